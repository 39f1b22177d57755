//! The computed result against the HPA's `status`, which records what the controller computed at
//! its last sync: `desiredReplicas` and, per metric, `currentMetrics` (the first pass's average
//! utilization and value, as `computeStatusForResourceMetric` and friends write them). When they
//! differ, says so and gives the usual reasons.

use crate::quantity::{Format, build_quantity, format_milli, parse_milli};
use crate::report::{
    MetricComparison, MetricReport, ReplicaComparison, Report, StatusComparison, Step,
};
use crate::scenario::{MetricSpec, ObservedMetric, Scenario};

/// Compares `report` with the scenario's observed status; `None` without one.
pub fn compare(s: &Scenario, report: &Report) -> Option<StatusComparison> {
    let observed = s.observed_status.as_ref()?;
    let desired_replicas = observed.desired_replicas.map(|status| ReplicaComparison {
        status,
        computed: report.desired_replicas,
        matches: status == report.desired_replicas,
    });
    let mut metrics = Vec::new();
    if !s.approximation {
        for (i, (spec, m)) in s.hpa.metrics.iter().zip(&report.metrics).enumerate() {
            if let Some(entry) = observed.metric_for(&s.hpa.metrics, i) {
                metrics.extend(compare_metric(spec, entry, m));
            }
        }
    }
    let metrics_match = metrics.iter().all(|m| m.matches);
    let desired_matches = desired_replicas.is_none_or(|d| d.matches);
    let mut likely_causes = Vec::new();
    let mut uncomputed: Vec<&str> = metrics
        .iter()
        .filter(|m| m.computed.is_none())
        .map(|m| m.name.as_str())
        .collect();
    // One name per metric: its values are adjacent.
    uncomputed.dedup();
    if !uncomputed.is_empty() {
        likely_causes.push(format!(
            "Not computed here: {} (see the metric's error); give its values with --metrics, \
             --custom-metrics, --external-metrics or --metric-value.",
            uncomputed.join(", ")
        ));
    }
    if metrics.iter().any(|m| !m.matches && m.computed.is_some()) {
        likely_causes.push(
            "Stale or mixed capture: the controller rewrites the status at every sync (15s by \
             default); pods and metrics captured at another moment, or a metrics-server sample \
             taken since, give other values."
                .to_string(),
        );
        likely_causes.push(
            "A different pod set: the controller counts the pods its target's selector matches \
             in the HPA's namespace (check -l/--selector and the pod file)."
                .to_string(),
        );
    }
    // `setCurrentReplicasAndMetricsInStatus`: when the controller cannot compute any metric it
    // writes the current replicas and the metrics, not desiredReplicas, which keeps its last
    // value (0 for an HPA that never computed one). History and flags do not explain that.
    // A failed selector check (AmbiguousSelector, InvalidSelector) computes nothing either.
    let controller_failed = s.status_conditions.iter().any(|c| {
        c.condition_type == "ScalingActive"
            && c.status == "False"
            && (c.reason.starts_with("FailedGet") || c.reason.ends_with("Selector"))
    });
    let all_failed_here =
        !report.metrics.is_empty() && report.metrics.iter().all(|m| m.error.is_some());
    if !desired_matches && (controller_failed || all_failed_here) {
        likely_causes.push(if controller_failed {
            "The controller could not compute its metrics at its last sync (ScalingActive=False): \
             it then leaves status.desiredReplicas at its last value (0 if it never computed one), \
             so the status does not say what it wants."
                .to_string()
        } else {
            "Every metric fails here: the controller then leaves status.desiredReplicas at its \
             last value (0 if it never computed one); fix the metrics before comparing counts."
                .to_string()
        });
    } else if !desired_matches {
        if s.approximation {
            likely_causes.push(
                "The status hides unready and missing pods: the controller's recount of them may \
                 have changed its proposal (pass --pods and --metrics)."
                    .to_string(),
            );
        }
        if observed
            .current_replicas
            .is_some_and(|n| n != report.current_replicas)
        {
            likely_causes.push(format!(
                "The status was written with {} current replicas, this run uses {}.",
                observed.current_replicas.unwrap_or_default(),
                report.current_replicas
            ));
        }
        likely_causes.push(
            "History: stabilization windows and rate limits read earlier recommendations and \
             scale events that the status does not record (pass --history)."
                .to_string(),
        );
        likely_causes.push(
            "Non-default controller flags: pass the cluster's --tolerance, \
             --downscale-stabilization, --cpu-initialization-period, --initial-readiness-delay \
             and --kube-version."
                .to_string(),
        );
    }
    Some(StatusComparison {
        matches: metrics_match && desired_matches,
        desired_replicas,
        metrics,
        likely_causes,
    })
}

/// One comparison per value the status holds for the metric.
fn compare_metric(
    spec: &MetricSpec,
    entry: &ObservedMetric,
    m: &MetricReport,
) -> Vec<MetricComparison> {
    let resource = match spec {
        MetricSpec::Resource { resource, .. } => resource.as_str(),
        _ => "",
    };
    let quantity = |milli: i64| match spec {
        MetricSpec::Resource { .. } => build_quantity(resource, milli),
        _ => format_milli(milli, Format::DecimalSI),
    };
    let same = |computed: &Option<String>, status: i64| {
        computed
            .as_deref()
            .and_then(|c| parse_milli(c).ok())
            .is_some_and(|c| c == status)
    };
    let item =
        |field: &str, status: String, computed: Option<String>, matches: bool| MetricComparison {
            metric_type: m.metric_type.clone(),
            name: m.name.clone(),
            field: field.to_string(),
            status,
            computed,
            matches,
        };
    let mut out = Vec::new();
    if let Some(u) = entry.average_utilization {
        out.push(item(
            "averageUtilization",
            format!("{u}%"),
            m.current_utilization.map(|c| format!("{c}%")),
            m.current_utilization == Some(u),
        ));
    }
    if let Some(a) = entry.average_value_milli {
        out.push(item(
            "averageValue",
            quantity(a),
            m.current_average_value.clone(),
            same(&m.current_average_value, a),
        ));
    }
    if let Some(v) = entry.value_milli {
        out.push(item(
            "value",
            quantity(v),
            m.current_value.clone(),
            same(&m.current_value, v),
        ));
    }
    out
}

/// Marks the decision of an answer from the status alone as an approximation, in words.
pub fn label_approximation(report: &mut Report) {
    let summary = report.decision.summary.clone();
    let labelled = format!("approximation from the HPA's status: {summary}");
    for step in &mut report.steps {
        if step.phase == "decision" && step.title == "decision" {
            step.detail = step.detail.replacen(&summary, &labelled, 1);
        }
    }
    report.decision.summary = labelled;
}

/// The comparison as rows of the trace, after the decision.
pub fn steps(c: &StatusComparison) -> Vec<Step> {
    let verdict = |matches: bool| if matches { "same" } else { "differs" };
    let mut steps = Vec::new();
    let mut push = |title: String, detail: String| {
        steps.push(Step {
            phase: "status".to_string(),
            title,
            detail,
            values: std::collections::BTreeMap::new(),
        });
    };
    if let Some(d) = &c.desired_replicas {
        push(
            "desired replicas".to_string(),
            format!(
                "status.desiredReplicas {}, computed {}: {}",
                d.status,
                d.computed,
                verdict(d.matches)
            ),
        );
    }
    for m in &c.metrics {
        push(
            format!("{} {}", m.metric_type, m.name),
            format!(
                "status {} {}, computed {}: {}",
                m.field,
                m.status,
                m.computed
                    .as_deref()
                    .unwrap_or("nothing (the metric is invalid)"),
                verdict(m.matches)
            ),
        );
    }
    if !c.likely_causes.is_empty() {
        push("likely causes".to_string(), c.likely_causes.join(" "));
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::evaluate;
    use crate::calc::testing;
    use crate::scenario::{ObservedStatus, Source};

    fn observed(desired: i32, utilization: i32, average: i64) -> ObservedStatus {
        ObservedStatus {
            conditions: Vec::new(),
            current_replicas: Some(3),
            desired_replicas: Some(desired),
            current_metrics: vec![ObservedMetric {
                metric_type: "Resource".into(),
                name: "cpu".into(),
                value_milli: None,
                average_value_milli: Some(average),
                average_utilization: Some(utilization),
            }],
        }
    }

    fn scenario() -> Scenario {
        let mut s = testing::scenario(vec![testing::cpu_utilization(50)], 3, 400);
        s.current_replicas_source = Source::Flag;
        s
    }

    #[test]
    fn a_status_that_agrees_matches_and_gives_no_causes() {
        let mut s = scenario();
        let plain = evaluate(&s);
        assert_eq!(plain.status_comparison, None, "no status, no comparison");
        s.observed_status = Some(observed(plain.desired_replicas, 40, 400));
        let r = evaluate(&s);
        let c = r.status_comparison.unwrap();
        assert!(c.matches, "{c:?}");
        assert!(c.likely_causes.is_empty());
        assert_eq!(c.metrics.len(), 2);
        assert!(
            r.steps
                .iter()
                .any(|st| st.phase == "status" && st.detail.ends_with("same"))
        );
    }

    #[test]
    fn differences_are_said_with_their_likely_causes() {
        let mut s = scenario();
        let desired = evaluate(&s).desired_replicas;
        s.observed_status = Some(observed(desired + 1, 72, 361));
        let r = evaluate(&s);
        let c = r.status_comparison.unwrap();
        assert!(!c.matches);
        assert_eq!(
            c.desired_replicas,
            Some(ReplicaComparison {
                status: desired + 1,
                computed: desired,
                matches: false
            })
        );
        assert_eq!(c.metrics[0].status, "72%");
        assert_eq!(c.metrics[0].computed.as_deref(), Some("40%"));
        assert_eq!(c.metrics[1].status, "361m");
        assert!(!c.metrics[1].matches);
        assert!(c.likely_causes[0].starts_with("Stale or mixed capture"));
        assert!(c.likely_causes.iter().any(|l| l.starts_with("History")));
        let rows: Vec<_> = r.steps.iter().filter(|st| st.phase == "status").collect();
        assert_eq!(rows.len(), 4, "{rows:?}");
        assert_eq!(rows[3].title, "likely causes");
    }

    #[test]
    fn a_metric_that_cannot_be_computed_says_so_rather_than_blame_the_capture() {
        let mut s = scenario();
        s.metrics.resource.clear();
        let desired = evaluate(&s).desired_replicas;
        s.observed_status = Some(observed(desired, 40, 400));
        let c = evaluate(&s).status_comparison.unwrap();
        assert!(!c.matches);
        assert_eq!(c.metrics[0].computed, None);
        assert_eq!(c.likely_causes.len(), 1, "{:?}", c.likely_causes);
        assert!(c.likely_causes[0].starts_with("Not computed here: cpu (see"));
    }

    #[test]
    fn an_approximation_compares_only_the_desired_count() {
        let mut s = scenario();
        s.approximation = true;
        let desired = evaluate(&s).desired_replicas;
        s.observed_status = Some(observed(desired - 1, 1, 1));
        let c = evaluate(&s).status_comparison.unwrap();
        assert!(c.metrics.is_empty());
        assert!(!c.matches);
        assert!(c.likely_causes[0].starts_with("The status hides unready and missing pods"));
        let r = evaluate(&s);
        assert!(r.approximation);
        assert!(
            r.decision
                .summary
                .starts_with("approximation from the HPA's status: "),
            "{}",
            r.decision.summary
        );
        let step = r.steps.iter().find(|st| st.title == "decision").unwrap();
        assert!(
            step.detail
                .contains(": approximation from the HPA's status: ")
        );
    }
}
