//! The controller's calculation, pure: a `Scenario` in, a `Report` out. One file per controller
//! concern, each naming the Go functions it ports.

pub mod advice;
pub mod assignment;
pub mod band;
pub mod conditions;
pub mod diagnose;
pub mod diff;
pub mod evidence;
pub mod explain;
pub mod failed_value;
pub mod fleet;
pub mod infer;
pub mod karpenter;
pub mod keda;
pub mod memory;
pub mod metrics;
pub mod metrics_client;
pub mod node_groups;
pub mod nodes;
pub mod normalize;
pub mod others;
pub mod pods;
pub mod reconcile;
pub mod replicas;
pub mod request_fix;
pub mod simulate;
pub mod status;
pub mod testing;
#[cfg(any(test, feature = "testing"))]
#[cfg(test)]
mod version_tests;

use crate::report::{self, Report};
use crate::scenario::Scenario;

/// One sync as the controller would run it now, reported step by step. For a KEDA ScaledObject,
/// KEDA's poll comes first (`keda`): the HPA's sync then reads what KEDA serves and starts from
/// the count KEDA set, and the report's desired count is the result of both.
pub fn evaluate(scenario: &Scenario) -> Report {
    let mut report = evaluate_now(scenario);
    if let Some(earliest) = scenario.earliest_now.filter(|t| t.before(scenario.now)) {
        infer::at_the_earliest_instant(scenario, earliest, evaluate_now, &mut report);
    }
    report
}

fn evaluate_now(scenario: &Scenario) -> Report {
    let Some(k) = &scenario.keda else {
        return evaluate_hpa(scenario);
    };
    // Trigger values the inputs do not give are inferred from the ScaledObject's status.
    let inferred = k.has_unknown();
    let (mut report, outcome, resolved) = match inferred
        .then(|| keda::status::evaluate_inferred(scenario, &keda_once))
        .flatten()
    {
        Some(found) => found,
        None => {
            let (report, outcome) = keda_once(scenario);
            (report, outcome, k.clone())
        }
    };
    let resolved = Scenario {
        keda: Some(resolved),
        ..scenario.clone()
    };
    keda::advice::check(&resolved, &keda_once, &mut report);
    keda::current::check(&resolved, |s| keda_once(s).0, &mut report);
    if let Some(k) = &resolved.keda {
        keda::status::evidence(k, inferred, &resolved, &outcome, &mut report);
    }
    report
}

/// KEDA's poll, then the HPA's sync on what KEDA serves, from the count KEDA set.
fn keda_once(scenario: &Scenario) -> (Report, keda::KedaOutcome) {
    let Some(k) = &scenario.keda else {
        return (evaluate_hpa(scenario), keda::KedaOutcome::default());
    };
    let outcome = keda::decide(
        k,
        scenario.current_replicas,
        keda::ready_replicas(scenario),
        scenario.now,
    );
    let hpa = keda::hpa_scenario(scenario, &outcome);
    let mut report = match keda::last_active::record(k, &outcome, &hpa) {
        Some(record) => keda::last_active::evaluate_with(&hpa, &record, evaluate_hpa),
        None => evaluate_hpa(&hpa),
    };
    keda::splice(&mut report, &outcome, scenario.current_replicas);
    (report, outcome)
}

fn evaluate_hpa(scenario: &Scenario) -> Report {
    // The status says the controller's selector check failed, for a reason the inputs do not
    // show: it fails again at this sync, and the metrics' own answer is said beside it.
    if let Some(error) = evidence::selector_from_status(scenario) {
        let without = evaluate_sync(scenario);
        let mut held = scenario.clone();
        held.metrics.selector_error = Some(error.clone());
        let mut report = evaluate_bounded(&held);
        // The controller read no metric: that, not the metrics pipeline, is why kubectl
        // shows `<unknown>`.
        report.diagnostics.retain(|d| d.code != "MissingMetrics");
        (report.diagnostics).insert(0, evidence::selector_diagnostic(scenario, &error, &without));
        return report;
    }
    // The status states a failure the inputs cannot check: it is the answer while it lasts.
    if let Some((condition, failing)) = evidence::failure_from_status(scenario) {
        let without = evaluate_bounded(scenario);
        let mut report = evaluate_bounded(&failing);
        report.diagnostics.retain(|d| d.code != "MissingMetrics");
        // A missing request the condition names: the metrics API answered, so the lines the
        // failing scenario's empty samples give (check metrics-server) are not the cause.
        if request_fix::from_condition(&condition.message).is_some() {
            (report.diagnostics)
                .retain(|d| !(d.code == "InvalidMetric" && d.fix.contains("metrics-server")));
        }
        let first = evidence::failure_diagnostic(condition, &report, &without);
        report.diagnostics.insert(0, first);
        if let Some(f) = failed_value::failed_metric_values(&failing) {
            failed_value::attach(&f, &mut report);
        }
        let valued = without.metrics.iter().any(|m| m.error.is_none());
        if valued && without.desired_replicas != report.desired_replicas {
            report.decision.summary = format!(
                "{}; or {} once the controller reads what it failed to get",
                report.decision.summary, without.desired_replicas
            );
            report.other_outcomes.push(report::Outcome {
                replicas: without.desired_replicas,
                when: format!("once the {} failure ends", condition.reason),
                settle: "pass --pods and --metrics captured now".to_string(),
            });
        }
        return report;
    }
    let report = evaluate_bounded(scenario);
    // A scale the controller could not update: the count it computes does not reach the target,
    // and `status.desiredReplicas` is the last one it wrote, not evidence of hidden pods.
    if let Some(c) = evidence::unable_to_scale(scenario) {
        return evidence::held_by_unable_to_scale(c, report);
    }
    let mut report = match infer::hidden_pods(scenario, &report) {
        Some((hidden, trial)) => with_hidden_pods(&hidden, &trial),
        None => report,
    };
    evidence::limit_first(scenario, &mut report);
    // Targets that name no resource: each assignment is run forward.
    if let Some(kept) = assignment::run(scenario) {
        report = assignment::resolve(scenario, report, &kept, evaluate_bounded);
    }
    // A metric the status shows without a value (kubectl's `<unknown>`): its value is searched.
    if report.metrics.iter().any(|m| m.error.is_some())
        && let Some(f) = failed_value::failed_metric_values(scenario)
    {
        failed_value::attach(&f, &mut report);
    }
    report
}

/// The sync with the pods the status hides, as the controller's last sync needed them: its
/// count is the answer, and every pod ready and reporting the other outcome.
fn with_hidden_pods(hidden: &infer::HiddenPods, trial: &Scenario) -> Report {
    let mut report = evaluate_bounded(trial);
    report.assumptions.push(format!(
        "The status's averages hide {} pod(s) unready or without a sample: the fewest for which \
         the controller's sync gives status.desiredReplicas {} from these values.",
        hidden.least, hidden.status_desired
    ));
    // The pods without a sample are inferred, not seen: no metrics pipeline to check.
    report.diagnostics.retain(|d| d.code != "MissingMetrics");
    report
        .diagnostics
        .insert(0, infer::hidden_pods_diagnostic(hidden));
    let all = hidden.all_reporting;
    if all != report.desired_replicas {
        report.decision.summary = format!(
            "{}; or {all} once every pod is ready and reporting (pass --pods and --metrics)",
            report.decision.summary
        );
        report.other_outcomes.push(report::Outcome {
            replicas: all,
            when: "once every pod is ready and reporting".to_string(),
            settle: "pass --pods and --metrics".to_string(),
        });
    }
    report
}

/// Some recommendations are known from events only as bounds (`Scenario::bounded`). What each
/// rescale's sync can have recommended is found forward (`infer::recommendation_ranges`: the
/// recommendations for which that sync sets the event's new size), and the next sync is computed
/// at both ends of every range. A window's max or min is monotone in each recommendation, so
/// every count the evidence allows lies between the two. The report is the one at the end away
/// from the new size (a scale-down's lowest recommendation, a scale-up's highest); where the two
/// differ it says so, first in WHY, in the decision and in `otherOutcomes`. (The status cannot
/// choose between them: it was written at another sync, under another rate limit.)
fn evaluate_bounded(scenario: &Scenario) -> Report {
    if scenario.bounded.is_empty() || scenario.memory.is_none() {
        return evaluate_sync(scenario);
    }
    let ranges = infer::recommendation_ranges(scenario);
    let far = |r: &infer::RecommendationRange| if r.scale_down() { r.low } else { r.high };
    let near = |r: &infer::RecommendationRange| if r.scale_down() { r.high } else { r.low };
    let far_report = evaluate_sync(&infer::with_recommendations(scenario, &ranges, far));
    let near_report = evaluate_sync(&infer::with_recommendations(scenario, &ranges, near));
    let (mut report, other) = (far_report, near_report);
    evidence::bounds(scenario, &ranges, &other, &mut report);
    report
}

fn evaluate_sync(scenario: &Scenario) -> Report {
    let assume_steady = scenario.memory.is_none();
    let mut memory = scenario.memory.clone().unwrap_or_default();
    let sync = reconcile::reconcile(scenario, &mut memory, assume_steady);
    let bands = band::for_sync(scenario, &sync, assume_steady);
    let mut report = explain::build(scenario, &sync, &bands, assume_steady);
    report.nodes = scenario
        .nodes
        .as_ref()
        .map(|n| nodes::plan(n, scenario.current_replicas, sync.desired_replicas))
        .or_else(|| {
            let k = scenario.karpenter.as_ref()?;
            Some(karpenter::nodes_report(
                k,
                scenario.current_replicas,
                sync.desired_replicas,
            ))
        })
        .or_else(|| {
            let groups = scenario.node_groups.as_ref()?;
            Some(node_groups::nodes_report(
                groups,
                scenario.current_replicas,
                sync.desired_replicas,
            ))
        });
    if scenario.approximation {
        status::label_approximation(&mut report);
    }
    // A sync that could not read the scale computed nothing to compare with the status.
    if scenario.scale_error.is_none() {
        report.status_comparison = status::compare(scenario, &report);
    }
    if let Some(c) = &report.status_comparison {
        report.steps.extend(status::steps(c));
    }
    report.diagnostics = diagnose::diagnose(scenario, &sync, &report);
    advice::check(scenario, &sync, &mut report);
    report.diagnostics.extend(overflow_diagnostics(&sync));
    let explained = evidence::explained(scenario, &report);
    report.diagnostics.extend(explained);
    if report.diagnostics.iter().any(|d| d.code == "StatusHeld") {
        report.decision.summary = format!(
            "{}; or {} if what held the count at the last sync still holds (the status says it \
             kept {})",
            report.decision.summary, report.current_replicas, report.current_replicas
        );
    }
    // Most severe first; a stable sort keeps the controller's order within a severity.
    report
        .diagnostics
        .sort_by_key(|d| std::cmp::Reverse(d.severity));
    report
}

/// The `RolloutSurge` cause of a sync the simulation ran: the same diagnosis a single sync gets,
/// from the same report (built without the hold bands, which this cause does not read).
pub fn rollout_surge(scenario: &Scenario, sync: &reconcile::Sync<'_>) -> Option<String> {
    let bands = vec![None; sync.outcomes.len()];
    let report = explain::build(scenario, sync, &bands, false);
    diagnose::diagnose(scenario, sync, &report)
        .into_iter()
        .find(|d| d.code == "RolloutSurge")
        .map(|d| d.message)
}

/// `ArithmeticOverflow`: a sum the controller computes in int64 wrapped, as it does in Go; the
/// report keeps the controller's wrapped value and says which sum it was.
fn overflow_diagnostics(sync: &reconcile::Sync<'_>) -> Vec<crate::report::Diagnostic> {
    use crate::report::{Diagnostic, Severity};
    sync.outcomes
        .iter()
        .filter_map(|o| match &o.result {
            Ok(metrics::Computed::PodBased(r)) => r
                .overflow
                .or_else(|| r.recount.as_ref().and_then(|t| t.overflow))
                .map(|sum| (o.name.as_str(), sum.describe())),
            _ => None,
        })
        .map(|(name, sum)| {
            Diagnostic::new(
                "ArithmeticOverflow",
                Severity::Warning,
                format!(
                    "metric {name}: {sum} overflows the controller's 64-bit integers; the \
                     controller computes with the wrapped value, and so does this result"
                ),
                "lower the requests or usage, or split the workload: the controller's answer \
                 for this metric is not meaningful",
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::testing::{cpu_utilization, scenario};
    use super::*;

    #[test]
    fn an_int64_sum_that_overflows_keeps_the_wrapped_value_and_is_diagnosed() {
        // 1,000 pods each using 10^16 milli-cpu: usage × 100 passes 2^63.
        let mut s = scenario(vec![cpu_utilization(60)], 1000, 10_000_000_000_000_000);
        s.hpa.max_replicas = 10_000;
        let report = evaluate(&s);
        let found: Vec<&str> = report.diagnostics.iter().map(|d| d.code.as_str()).collect();
        assert!(found.contains(&"ArithmeticOverflow"), "{found:?}");
        let d = report
            .diagnostics
            .iter()
            .find(|d| d.code == "ArithmeticOverflow")
            .unwrap();
        assert!(d.message.contains("overflows"), "{}", d.message);
        // Within range: no such diagnostic.
        let mut s = scenario(vec![cpu_utilization(60)], 1000, 900);
        s.hpa.max_replicas = 10_000;
        let report = evaluate(&s);
        assert!(
            report
                .diagnostics
                .iter()
                .all(|d| d.code != "ArithmeticOverflow")
        );
    }
}
