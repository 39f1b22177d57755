//! The controller's calculation, pure: a `Scenario` in, a `Report` out. One file per controller
//! concern, each naming the Go functions it ports.

pub mod band;
pub mod conditions;
pub mod diagnose;
pub mod explain;
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

/// One sync as the controller would run it now, reported step by step.
pub fn evaluate(scenario: &Scenario) -> Report {
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
