//! The controller's calculation, pure: a `Scenario` in, a `Report` out. One file per controller
//! concern, each naming the Go functions it ports.

pub mod band;
pub mod conditions;
pub mod diagnose;
pub mod explain;
pub mod keda;
pub mod metrics;
pub mod metrics_client;
pub mod nodes;
pub mod normalize;
pub mod pods;
pub mod reconcile;
pub mod replicas;
pub mod simulate;
pub mod status;
#[cfg(test)]
pub mod testing;
#[cfg(test)]
mod version_tests;

use crate::report::Report;
use crate::scenario::Scenario;

/// One sync as the controller would run it now, reported step by step. For a KEDA ScaledObject,
/// KEDA's poll comes first (`keda`): the HPA's sync then reads what KEDA serves and starts from
/// the count KEDA set, and the report's desired count is the result of both.
pub fn evaluate(scenario: &Scenario) -> Report {
    let Some(k) = &scenario.keda else {
        return evaluate_hpa(scenario);
    };
    let outcome = keda::decide(
        k,
        scenario.current_replicas,
        keda::ready_replicas(scenario),
        scenario.now,
    );
    let mut report = evaluate_hpa(&keda::hpa_scenario(scenario, &outcome));
    keda::splice(&mut report, &outcome, scenario.current_replicas);
    report
}

fn evaluate_hpa(scenario: &Scenario) -> Report {
    let assume_steady = scenario.memory.is_none();
    let mut memory = scenario.memory.clone().unwrap_or_default();
    let sync = reconcile::reconcile(scenario, &mut memory, assume_steady);
    let bands = band::for_sync(scenario, &sync, assume_steady);
    let mut report = explain::build(scenario, &sync, &bands, assume_steady);
    report.nodes = scenario
        .nodes
        .as_ref()
        .map(|n| nodes::plan(n, scenario.current_replicas, sync.desired_replicas));
    if scenario.approximation {
        status::label_approximation(&mut report);
    }
    report.status_comparison = status::compare(scenario, &report);
    if let Some(c) = &report.status_comparison {
        report.steps.extend(status::steps(c));
    }
    report.diagnostics = diagnose::diagnose(scenario, &sync, &report);
    report
}
