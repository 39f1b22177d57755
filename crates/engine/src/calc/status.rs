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
    let reconciled = desired_replicas.map(|d| reconcile_desired(s, report, d, &metrics));
    if let (Some(Reconciled::Contradicted(_)), Some(d)) = (&reconciled, desired_replicas) {
        contradiction_causes(d.status < d.computed, &mut likely_causes);
    }
    let (reconciled, explanation) = match reconciled {
        Some(r) => (Some(r.kind().to_string()), Some(r.sentence().to_string())),
        None => (None, None),
    };
    if !desired_matches && reconciled.as_deref() == Some("explained") {
        likely_causes.extend(explanation.clone());
    }
    Some(StatusComparison {
        matches: metrics_match && desired_matches,
        desired_replicas,
        metrics,
        likely_causes,
        reconciled,
        explanation,
    })
}

/// `status.desiredReplicas` reconciled with the computation, with the sentence that says how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reconciled {
    Reproduced(String),
    /// The status answered another situation, or a failed sync left it behind.
    Explained(String),
    /// The same count and the same values, and the controller kept the count where hpacalc,
    /// assuming steady load, moves it: a memory hpacalc does not see held it.
    HeldByMemory(String),
    /// The same count and the same values gave another answer.
    Contradicted(String),
}

impl Reconciled {
    pub fn kind(&self) -> &'static str {
        match self {
            Reconciled::Reproduced(_) => "reproduced",
            Reconciled::Explained(_) | Reconciled::HeldByMemory(_) => "explained",
            Reconciled::Contradicted(_) => "contradicted",
        }
    }

    pub fn sentence(&self) -> &str {
        match self {
            Reconciled::Reproduced(t)
            | Reconciled::Explained(t)
            | Reconciled::HeldByMemory(t)
            | Reconciled::Contradicted(t) => t,
        }
    }
}

/// The status records the last sync: its starting count (`currentReplicas`), its first-pass
/// values (`currentMetrics`) and its answer (`desiredReplicas`). Only when the count and the
/// values are this run's is a different answer a contradiction.
pub fn reconcile_desired(
    s: &Scenario,
    report: &Report,
    d: ReplicaComparison,
    metrics: &[MetricComparison],
) -> Reconciled {
    let (status, computed, current) = (d.status, d.computed, report.current_replicas);
    if d.matches {
        return Reconciled::Reproduced(format!(
            "status.desiredReplicas {status} is what this sync computes"
        ));
    }
    // `setCurrentReplicasAndMetricsInStatus`: when the controller cannot compute any metric it
    // writes the current replicas and the metrics, not desiredReplicas, which keeps its last
    // value (0 for an HPA that never computed one). A failed selector check (AmbiguousSelector,
    // InvalidSelector) computes nothing either.
    // A failed scale update (`AbleToScale=False FailedUpdateScale`) returns before `setStatus`
    // too: the same.
    let controller_failed = s.status_conditions.iter().any(|c| {
        (c.condition_type == "ScalingActive"
            && c.status == "False"
            && (c.reason.starts_with("FailedGet") || c.reason.ends_with("Selector")))
            || (c.condition_type == "AbleToScale" && c.reason == "FailedUpdateScale")
    });
    if controller_failed {
        return Reconciled::Explained(
            "The controller could not compute its metrics at its last sync (ScalingActive=False): \
             it then leaves status.desiredReplicas at its last value (0 if it never computed one), \
             so the status does not say what it wants."
                .to_string(),
        );
    }
    if !report.metrics.is_empty() && report.metrics.iter().all(|m| m.error.is_some()) {
        return Reconciled::Explained(
            "Every metric fails here: the controller then leaves status.desiredReplicas at its \
             last value (0 if it never computed one); fix the metrics before comparing counts."
                .to_string(),
        );
    }
    let Some(n) = s.observed_status.as_ref().and_then(|o| o.current_replicas) else {
        return Reconciled::Explained(format!(
            "The status has no currentReplicas: status.desiredReplicas {status} may answer \
             another count than this run's {current}."
        ));
    };
    if n != current {
        return Reconciled::Explained(if status == current {
            format!(
                "The last sync started from {n} replicas (status.currentReplicas) and scaled to \
                 {status}, the count now: this run is the sync after it."
            )
        } else {
            format!(
                "status.desiredReplicas {status} answered the last sync's {n} replicas \
                 (status.currentReplicas); the count is {current} now."
            )
        });
    }
    if let Some(m) = metrics.iter().find(|m| !m.matches && m.computed.is_some()) {
        return Reconciled::Explained(format!(
            "The metrics moved since the last sync ({} {} {} in the status, {} here): \
             status.desiredReplicas {status} answered the status's values, not these.",
            m.name,
            m.field,
            m.status,
            m.computed.as_deref().unwrap_or_default()
        ));
    }
    if s.approximation {
        return Reconciled::Explained(format!(
            "The status hides unready and missing pods: the controller's recount of them, or its \
             memory (a window or a rate limit), may have given {status} where this approximation \
             gives {computed} (pass --pods and --metrics)."
        ));
    }
    if !s.bounded.is_empty() && status == current {
        return Reconciled::Explained(format!(
            "At its last sync the controller kept {current} replicas: the rescale events bound \
             its memory without fixing it (MemoryBounded), and a recommendation at its bound \
             holds {status}."
        ));
    }
    if metrics.is_empty() {
        return Reconciled::Explained(format!(
            "The status has no currentMetrics: the values its last sync read are unknown, so \
             status.desiredReplicas {status} may answer other values than these."
        ));
    }
    // A scale-up is held by memory only with a behavior (its window, its policies' events);
    // the legacy scale-up limit reads none.
    let memory_can_hold = computed < current || s.hpa.behavior.is_some();
    if status == current && s.memory.is_none() && memory_can_hold {
        let window = match (computed > current, s.hpa.behavior.is_some()) {
            (true, _) => {
                "a lower recommendation in the scale-up stabilization window, or a rate limit"
            }
            (false, true) => {
                "a higher recommendation in the scale-down stabilization window, or a rate limit"
            }
            // Without behavior a scale-down has no rate limit.
            (false, false) => "a higher recommendation in the downscale stabilization window",
        };
        return Reconciled::HeldByMemory(format!(
            "At its last sync the controller kept {current} replicas, from the same count and \
             the same metric values (status.desiredReplicas {status}): its memory held it \
             ({window}), which the steady load assumed here does not show. If \
             that still holds, this sync keeps {current} too; else {computed}."
        ));
    }
    Reconciled::Contradicted(format!(
        "status.desiredReplicas is {status}, computed by the controller from {current} replicas \
         and the same metric values; hpacalc computes {computed} from the same"
    ))
}

/// Why the controller can answer differently from the same count and values.
fn contradiction_causes(held_lower: bool, causes: &mut Vec<String>) {
    let recount = "The recount at the last sync: status.currentMetrics hold the first pass, \
                   before unready and missing pods were recounted; pods unready or without a \
                   sample then (not in these inputs) give a lower answer."
        .to_string();
    if held_lower {
        causes.push(recount.clone());
    }
    causes.push(
        "History: stabilization windows and rate limits read earlier recommendations and \
         scale events that the status does not record (pass --history)."
            .to_string(),
    );
    causes.push(
        "Non-default controller flags: pass the cluster's --tolerance, \
         --downscale-stabilization, --cpu-initialization-period, --initial-readiness-delay \
         and --kube-version."
            .to_string(),
    );
    if !held_lower {
        causes.push(recount);
    }
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
        // Other values than this run's: the status answered them, which history does not explain.
        assert_eq!(c.reconciled.as_deref(), Some("explained"));
        assert_eq!(
            c.explanation.as_deref(),
            Some(
                "The metrics moved since the last sync (cpu averageUtilization 72% in the \
                 status, 40% here): status.desiredReplicas 4 answered the status's values, not \
                 these."
            )
        );
        assert!(c.likely_causes.iter().all(|l| !l.starts_with("History")));
        let rows: Vec<_> = r.steps.iter().filter(|st| st.phase == "status").collect();
        assert_eq!(rows.len(), 4, "{rows:?}");
        assert_eq!(rows[3].title, "likely causes");
    }

    #[test]
    fn each_reading_of_the_last_syncs_answer_names_its_facts() {
        // 3 pods at 40 % of a 50 % target: this sync computes 3 (ratio 0.8 → ceil(2.4) = 3).
        let reading = |current: i32, desired: i32, utilization: i32, average: i64| {
            let mut s = scenario();
            let mut o = observed(desired, utilization, average);
            o.current_replicas = Some(current);
            s.observed_status = Some(o);
            let r = evaluate(&s);
            let c = r.status_comparison.clone().unwrap();
            let codes: Vec<String> = r.diagnostics.into_iter().map(|d| d.code).collect();
            (c.reconciled.unwrap(), c.explanation.unwrap(), codes)
        };
        let (kind, text, codes) = reading(3, 3, 40, 400);
        assert_eq!(kind, "reproduced");
        assert!(!codes.iter().any(|c| c.starts_with("Status")), "{text}");
        // The last sync scaled 2 → 3, the count now.
        let (kind, text, codes) = reading(2, 3, 40, 400);
        assert_eq!(kind, "reproduced", "{text}");
        assert!(!codes.iter().any(|c| c.starts_with("Status")));
        let (kind, text, codes) = reading(2, 4, 40, 400);
        assert_eq!(kind, "explained");
        assert_eq!(
            text,
            "status.desiredReplicas 4 answered the last sync's 2 replicas \
             (status.currentReplicas); the count is 3 now."
        );
        assert!(!codes.iter().any(|c| c.starts_with("Status")));
        // The same count and values, another answer: a contradiction, named.
        let (kind, text, codes) = reading(3, 5, 40, 400);
        assert_eq!(kind, "contradicted");
        assert_eq!(
            text,
            "status.desiredReplicas is 5, computed by the controller from 3 replicas and the \
             same metric values; hpacalc computes 3 from the same"
        );
        assert!(codes.contains(&"StatusMismatch".to_string()));
    }

    #[test]
    fn a_count_the_controller_kept_at_the_same_values_is_held_by_its_memory() {
        // 3 pods at 20 %: this sync computes 2, but the controller kept 3 at the same values.
        let mut s = testing::scenario(vec![testing::cpu_utilization(50)], 3, 200);
        let mut o = observed(3, 20, 200);
        o.current_replicas = Some(3);
        s.observed_status = Some(o);
        let r = evaluate(&s);
        assert_eq!(r.desired_replicas, 2);
        assert_eq!(r.diagnostics[0].code, "StatusHeld", "{:?}", r.diagnostics);
        assert!(
            r.decision.summary.ends_with(
                "; or 3 if what held the count at the last sync still holds (the status says it \
                 kept 3)"
            ),
            "{}",
            r.decision.summary
        );
        // With the controller's memory given (it recommended 2 only), the same disagreement is a
        // contradiction.
        s.memory = Some(testing::recommended(2, 10));
        let codes: Vec<String> = evaluate(&s)
            .diagnostics
            .into_iter()
            .map(|d| d.code)
            .collect();
        assert!(codes.contains(&"StatusMismatch".to_string()), "{codes:?}");
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
        // 5 from 3 pods at 40 % of 50 %: no pods unready or without a sample give it (they
        // only move a scale-down's ratio toward 1), so the difference stays unexplained here.
        s.observed_status = Some(observed(desired + 2, 1, 1));
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
