//! What the HPA's `status.conditions` say of the controller's own state, reconciled with the
//! computation. A condition is *reproduced* when the sync computed here sets it the same way
//! (nothing to say); *explained* when the controller saw what the inputs cannot show (another
//! HPA on the same pods, a scale it could not read, a metric it could not get): then it is named
//! first in WHY, and where the controller's code makes it decide the count, it decides it here.

use crate::calc::infer::RecommendationRange;
use crate::report::{Condition, Diagnostic, Outcome, Report, Severity};
use crate::scenario::{Scenario, SelectorError};

/// The code of a fact the controller wrote that the inputs do not show.
const CODE: &str = "ControllerReported";

/// `validateAndParseSelector` failed at the controller's last sync (ScalingActive=False
/// AmbiguousSelector or InvalidSelector) and the inputs show no reason for it: the other HPA,
/// or the target's selector, is out of sight. Unless that changed since, it fails again.
pub fn selector_from_status(s: &Scenario) -> Option<SelectorError> {
    if s.metrics.selector_error.is_some() {
        return None;
    }
    let c = scaling_active_false(s)?;
    matches!(c.reason.as_str(), "AmbiguousSelector" | "InvalidSelector").then(|| SelectorError {
        reason: c.reason.clone(),
        message: c.message.clone(),
    })
}

/// A failure the status states and the inputs cannot check (the values are the status's own,
/// or there are none): ScalingActive=False `FailedGet<Kind>Metric`, or AbleToScale=False
/// `FailedGetScale`. The scenario returned makes the sync fail the same way, so the controller's
/// own code, run forward, gives what it does while the failure lasts.
pub fn failure_from_status(s: &Scenario) -> Option<(&Condition, Scenario)> {
    if !s.approximation {
        return None;
    }
    let stated = s.status_conditions.iter().find(|c| {
        c.status == "False"
            && ((c.condition_type == "ScalingActive" && c.reason.starts_with("FailedGet"))
                || (c.condition_type == "AbleToScale" && c.reason == "FailedGetScale"))
    })?;
    let mut failing = s.clone();
    if stated.reason == "FailedGetScale" {
        failing.scale_error = Some(stated.message.clone());
        return Some((stated, failing));
    }
    let kind = (stated.reason.strip_prefix("FailedGet"))
        .and_then(|r| r.strip_suffix("Metric"))
        .unwrap_or_default();
    let named = missing_request(&stated.message);
    let values = &mut failing.metrics;
    // An entry whose own status shows a value was got at that sync: not the failed one
    // (computeReplicasForMetrics writes one status per entry, in order).
    let got = |i: usize| {
        (s.observed_status.as_ref())
            .and_then(|o| o.metric_for(&s.hpa.metrics, i))
            .is_some_and(|m| {
                m.value_milli.is_some()
                    || m.average_value_milli.is_some()
                    || m.average_utilization.is_some()
            })
    };
    for (i, spec) in (s.hpa.metrics.iter().enumerate()).filter(|&(i, m)| {
        m.type_name() == kind && !(matches!(kind, "Pods" | "Object" | "External") && got(i))
    }) {
        match spec.type_name() {
            // A request the condition names as missing: the samples stay (the metrics API
            // answered), and the stand-in below lacks the request.
            "Resource" | "ContainerResource" if named.is_some() => {}
            // No sample: the resource metrics API returned none, as the controller saw it.
            "Resource" | "ContainerResource" => values.resource.clear(),
            "Pods" => {
                values.pods.remove(&i);
            }
            "Object" => {
                values.object.remove(&i);
            }
            "External" => {
                values.external.remove(&i);
            }
            _ => {}
        }
    }
    if let Some(named) = &named
        && kind == "Resource"
    {
        without_request(&mut failing, named);
    }
    Some((stated, failing))
}

/// What a condition's `missing request for cpu in container app of Pod web-1` names: the
/// resource, the container and the pod.
struct NamedRequest {
    resource: String,
    container: String,
    pod: String,
}

fn missing_request(message: &str) -> Option<NamedRequest> {
    let (_, rest) = message.split_once("missing request for ")?;
    let (resource, rest) = rest.split_once(" in container ")?;
    let (container, pod) = rest.split_once(" of Pod ")?;
    Some(NamedRequest {
        resource: resource.to_string(),
        container: container.to_string(),
        pod: pod.trim_end_matches(['.', ' ']).to_string(),
    })
}

/// The stand-in of a status that names a missing request: the pods the status stands for, the
/// first one named as the condition names it, each with the named container and without that
/// request, and a sample per pod (the metrics API answered). The controller's own
/// `calculatePodRequestsFromContainers` then fails with the condition's words, forward.
fn without_request(failing: &mut Scenario, named: &NamedRequest) {
    use crate::scenario::{Container, ContainerKind, ContainerMetrics, PodMetrics, Resources};
    if failing.pods.is_empty() {
        return;
    }
    let pods = &mut *failing.pods;
    if !pods.iter().any(|p| p.name == named.pod)
        && let Some(first) = pods.first_mut()
    {
        first.name.clone_from(&named.pod);
    }
    for pod in pods.iter_mut() {
        pod.pod_requests = None;
        match pod
            .containers
            .iter_mut()
            .find(|c| c.name == named.container)
        {
            Some(c) => c.requests.0.retain(|(r, _)| *r != named.resource),
            None => pod.containers.insert(
                0,
                Container {
                    name: named.container.clone(),
                    kind: ContainerKind::App,
                    requests: Resources::default(),
                },
            ),
        }
    }
    // The samples' values are never read: the request check fails before they are.
    failing.metrics.resource_api_error = None;
    failing.metrics.resource = (failing.pods.iter())
        .map(|p| PodMetrics {
            pod: p.name.clone(),
            timestamp: failing.now,
            window: crate::time::Duration::from_secs(15),
            containers: (p.containers.iter())
                .map(|c| ContainerMetrics {
                    name: c.name.clone(),
                    usage: Resources(vec![(named.resource.clone(), 0)]),
                })
                .collect(),
        })
        .collect();
}

/// The status's `ScalingLimited` condition, as evidence the sync must reproduce: its status
/// and reason (`TooManyReplicas`, `TooFewReplicas`, `ScaleUpLimit`, `ScaleDownLimit`,
/// `DesiredWithinRange`), set after normalization by `normalizeDesiredReplicas` and
/// `normalizeDesiredReplicasWithBehaviors`.
pub fn stated_limit(s: &Scenario) -> Option<&Condition> {
    (s.status_conditions.iter()).find(|c| c.condition_type == "ScalingLimited")
}

/// Whether a sync's conditions agree with the `ScalingLimited` the status states (a sync that
/// leaves the condition alone, out of the min/max range, keeps the status's own).
pub fn agrees_with_limit(stated: Option<&Condition>, computed: Option<&Condition>) -> bool {
    match (stated, computed) {
        (Some(s), Some(c)) => s.status == c.status && s.reason == c.reason,
        _ => true,
    }
}

/// `AbleToScale=False` for a reason other than `FailedGetScale` (which `failure_from_status`
/// runs forward): the controller computed a count it did not write. `FailedUpdateScale` is the
/// only other reason `reconcileAutoscaler` sets; the `Backoff*` reasons come from controllers
/// before 1.18 (`shouldScale`), which did not rescale either. Only from the status alone: with
/// pods given the inputs are checked instead (`explained`).
pub fn unable_to_scale(s: &Scenario) -> Option<&Condition> {
    if !s.approximation {
        return None;
    }
    (s.status_conditions.iter()).find(|c| {
        c.condition_type == "AbleToScale" && c.status == "False" && c.reason != "FailedGetScale"
    })
}

/// The count held by a scale the controller could not update: the sync computes `without`, the
/// target keeps its replicas while the failure lasts. First in WHY, with the other outcome.
pub fn held_by_unable_to_scale(c: &Condition, mut report: Report) -> Report {
    let (current, computed) = (report.current_replicas, report.desired_replicas);
    let then = if computed == current {
        format!("once it ends the sync keeps {computed} too")
    } else {
        format!("once it ends the sync sets {computed}")
    };
    // Said here, with its answer: not twice.
    let stated = format!("AbleToScale=False {}", c.reason);
    (report.diagnostics).retain(|d| !(d.code == CODE && d.message.contains(&stated)));
    report.diagnostics.insert(
        0,
        Diagnostic::new(
            "StatusFailure",
            Severity::Error,
            format!(
                "the controller reports AbleToScale=False {}{}: {}. Its sync computes a count \
                 but the target's scale is not updated, so it stays at {current} ({current} → \
                 {current}) while that lasts; {then}",
                c.reason,
                since(c),
                c.message
            ),
            "check that the target exists and serves the scale subresource, the controller's \
             RBAC (system:controller:horizontal-pod-autoscaler) for it, and admission webhooks \
             or quotas that refuse the update (kubectl get events)",
        ),
    );
    if computed != current {
        report.decision.summary = format!(
            "the controller cannot update the target's scale (AbleToScale=False {}); or \
             {computed} once it can",
            c.reason
        );
        report.decision.change = "none".to_string();
        report.other_outcomes.insert(
            0,
            Outcome {
                replicas: computed,
                when: format!("once the {} failure ends", c.reason),
                settle: "check the target's scale subresource and the controller's events"
                    .to_string(),
            },
        );
        report.desired_replicas = current;
    }
    report
}

/// `ScalingLimited` as the status states it, first in WHY: reproduced by the sync here (its own
/// cause, `AtMaxReplicas`, `AtMinReplicas` or `RateLimited`, is folded into this line), or, when
/// nothing the inputs hide reproduces it, a contradiction (`StatusMismatch`).
///
/// Only for an answer from the status alone, as the failures the status states: with pods given
/// the inputs are checked, and the sync's own cause says it.
pub fn limit_first(s: &Scenario, report: &mut Report) {
    let Some(stated) = stated_limit(s).filter(|c| c.status == "True" && s.approximation) else {
        return;
    };
    let computed = (report.conditions.iter()).find(|c| c.condition_type == "ScalingLimited");
    let head = format!(
        "the controller reports ScalingLimited=True {}{}: {}",
        stated.reason,
        since(stated),
        stated.message
    );
    if !agrees_with_limit(Some(stated), computed) {
        let found = computed.map_or("no ScalingLimited".to_string(), |c| {
            format!("ScalingLimited={} {}", c.status, c.reason)
        });
        report.diagnostics.insert(
            0,
            Diagnostic::new(
                "StatusMismatch",
                Severity::Warning,
                format!(
                    "{head}. The sync here sets {found} ({} → {}), and no pods hidden behind \
                     the status's averages reproduce the controller's",
                    report.current_replicas, report.desired_replicas
                ),
                "the status was written at another moment, or from other values: pass --pods \
                 and --metrics captured now",
            ),
        );
        return;
    }
    let cause = match stated.reason.as_str() {
        "TooManyReplicas" => "AtMaxReplicas",
        "TooFewReplicas" => "AtMinReplicas",
        _ => "RateLimited",
    };
    let folded = (report.diagnostics.iter()).position(|d| d.code == cause);
    let (why, fix) = match folded.map(|i| report.diagnostics.remove(i)) {
        Some(d) => (format!("; here too: {}", d.message), d.fix),
        None => (String::new(), String::new()),
    };
    // The status's own word on why the count stops where it does: a warning, as the reason
    // first in WHY.
    let severity = Severity::Warning;
    // First among its severity: a graver cause (a bounded memory, an error) stays above it.
    let at = (report.diagnostics.iter())
        .position(|d| d.severity <= severity)
        .unwrap_or(report.diagnostics.len());
    report.diagnostics.insert(
        at,
        Diagnostic::new(
            "StatusLimited",
            severity,
            format!(
                "{head}. The sync here reproduces it: {} → {}{why}",
                report.current_replicas, report.desired_replicas
            ),
            fix,
        ),
    );
}

/// The failure the status states, first in WHY: the controller keeps what its own code gives
/// while it lasts (`held`), and `without` is what the status's values give once it ends.
pub fn failure_diagnostic(c: &Condition, held: &Report, without: &Report) -> Diagnostic {
    let (kept, after) = (held.desired_replicas, without.desired_replicas);
    let valued = without.metrics.iter().any(|m| m.error.is_none());
    let then = if !valued {
        "the inputs hold no value to say what it gives after".to_string()
    } else if after == kept {
        format!("once it ends the status's values give {after} too")
    } else {
        format!("once it ends the status's values give {after}")
    };
    Diagnostic::new(
        "StatusFailure",
        Severity::Error,
        format!(
            "the controller reports {}=False {}{}: {}. While that lasts its sync gives {kept} \
             ({} → {kept}); {then}",
            c.condition_type,
            c.reason,
            since(c),
            c.message,
            held.current_replicas
        ),
        fix_for_failure(c),
    )
}

fn fix_for_failure(c: &Condition) -> String {
    // A request the condition names as missing: the request, not the metrics pipeline.
    if let Some(fix) = crate::calc::request_fix::from_condition(&c.message) {
        return fix;
    }
    match c.reason.as_str() {
        "FailedGetScale" => {
            "check that the target exists and serves the scale subresource, and the \
             controller's RBAC (system:controller:horizontal-pod-autoscaler) for it"
        }
        "FailedGetResourceMetric" | "FailedGetContainerResourceMetric" => {
            "check the resource metrics API (kubectl top pods; kubectl get apiservice \
             v1beta1.metrics.k8s.io) and that every container of the target's pods has a request"
        }
        _ => {
            "check the metrics API the metric comes from (kubectl get apiservice) and its \
             adapter's logs; pass the pods and metrics to compute from them instead"
        }
    }
    .to_string()
}

fn scaling_active_false(s: &Scenario) -> Option<&Condition> {
    (s.status_conditions.iter())
        .find(|c| c.condition_type == "ScalingActive" && c.status == "False")
}

fn since(c: &Condition) -> String {
    match &c.last_transition_time {
        Some(t) => format!(" since {t}"),
        None => String::new(),
    }
}

/// The selector failure the status reports, with what the metrics alone would give
/// (`without`: the report computed as if the selector were fine).
pub fn selector_diagnostic(s: &Scenario, e: &SelectorError, without: &Report) -> Diagnostic {
    let since = scaling_active_false(s).map(since).unwrap_or_default();
    let current = s.current_replicas;
    let fix = if e.reason == "AmbiguousSelector" {
        "another HPA (a KEDA ScaledObject's included) selects these pods: delete or retarget one; \
         pass both to `hpacalc audit -f DIR`, or run `hpacalc audit -n NAMESPACE`, to see them"
    } else {
        "the target's selector is empty or invalid: fix its spec.selector (kubectl get the \
         target -o yaml)"
    };
    let computed = without.metrics.iter().any(|m| m.error.is_none());
    let alone = if computed {
        format!(
            "the metrics here alone would give {}",
            without.desired_replicas
        )
    } else {
        "the inputs hold no metric value to say what it would do then".to_string()
    };
    Diagnostic::new(
        CODE,
        Severity::Error,
        format!(
            "the controller reports ScalingActive=False {}{since}: {}. It then reads no metric \
             and keeps {current} replicas until that changes; {alone}",
            e.reason, e.message
        ),
        fix,
    )
}

/// The other conditions the inputs cannot reproduce: a scale the controller could not read or
/// update, a metric it could not get although the inputs hold its value.
pub fn explained(s: &Scenario, report: &Report) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for c in &s.status_conditions {
        let computed = (report.conditions.iter()).find(|r| r.condition_type == c.condition_type);
        let reproduced = computed.is_some_and(|r| r.status == c.status && r.reason == c.reason);
        if reproduced || c.status != "False" {
            continue;
        }
        match (c.condition_type.as_str(), c.reason.as_str()) {
            ("AbleToScale", reason @ ("FailedGetScale" | "FailedUpdateScale")) => {
                let verb = if reason == "FailedGetScale" {
                    "read"
                } else {
                    "update"
                };
                out.push(Diagnostic::new(
                    CODE,
                    Severity::Error,
                    format!(
                        "the controller reports AbleToScale=False {reason}{}: {}. It could not \
                         {verb} the target's scale at its last sync, so the count it computes \
                         does not reach the target",
                        since(c),
                        c.message
                    ),
                    "check that the target exists and serves the scale subresource, and the \
                     controller's RBAC (system:controller:horizontal-pod-autoscaler) for it",
                ));
            }
            // Explained only when this sync computes every metric of the kind the reason
            // names (`FailedGetExternalMetric`: External); a failing one reproduces it.
            ("ScalingActive", reason)
                if reason.starts_with("FailedGet") && computes_kind_of(reason, report) =>
            {
                out.push(Diagnostic::new(
                    CODE,
                    Severity::Warning,
                    format!(
                        "the controller reports ScalingActive=False {reason}{}: {}. The values \
                         given here are not what it read: at its last sync it could not get \
                         them",
                        since(c),
                        c.message
                    ),
                    "check the metrics API the metric comes from (kubectl get apiservice) and \
                     its adapter's logs; hpacalc's answer is the controller's once it reads them",
                ));
            }
            _ => {}
        }
    }
    out
}

/// The rescales whose new sizes only bound the memory: said, and where the recommendations the
/// forward search left decide the count, the other answer is given in WHY (after the errors,
/// before the rest), in the decision and in `otherOutcomes`. `report` and `other` were computed
/// at the two ends of every range.
pub fn bounds(
    s: &Scenario,
    ranges: &[Option<RecommendationRange>],
    other: &Report,
    report: &mut Report,
) {
    let n = s.bounded.len();
    let (got, alternative) = (report.desired_replicas, other.desired_replicas);
    let mut newest: Vec<_> = ranges.iter().flatten().collect();
    newest.sort_by_key(|r| std::cmp::Reverse(r.bound.timestamp));
    let named: Vec<String> = (newest.iter().take(3)).map(|r| described(r)).collect();
    if got == alternative {
        let found = if named.is_empty() {
            String::new()
        } else {
            format!(" ({})", named.join(", "))
        };
        report.assumptions.push(format!(
            "The events give {n} recommendation(s) only through their rescales' new sizes{found}: \
             the answer is {got} whichever of them each sync recommended."
        ));
        return;
    }
    let more = newest.len().saturating_sub(named.len());
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    let after_errors = (report.diagnostics.iter())
        .position(|d| d.severity < Severity::Error)
        .unwrap_or(report.diagnostics.len());
    report.diagnostics.insert(
        after_errors,
        Diagnostic::new(
            "MemoryBounded",
            Severity::Warning,
            format!(
                "the events bound the controller's memory without fixing it: the rescale(s) \
                 {}{more}. With the recommendations at one end of those ranges the next count is \
                 {got}; at the other it is {alternative}",
                named.join(", ")
            ),
            "pass --history with the controller's own recommendations (its -v=4 log, or a \
             recorded history) to settle it; the events alone cannot",
        ),
    );
    report.decision.summary = format!(
        "{}; or {alternative}, depending on what the rescales' syncs recommended (the events only \
         bound it)",
        report.decision.summary
    );
    report.other_outcomes.push(Outcome {
        replicas: alternative,
        when: "if the rescales' syncs recommended the other end of what their new sizes allow"
            .to_string(),
        settle: "pass --history with the controller's own recommendations".to_string(),
    });
}

/// One rescale and the recommendations its sync can have made, as the forward run found them.
fn described(r: &RecommendationRange) -> String {
    let b = r.bound;
    let recommended = if r.low == r.high {
        format!("{}", r.low)
    } else {
        format!("between {} and {}", r.low, r.high)
    };
    format!(
        "from {} to {} at {} (that sync recommended {recommended})",
        r.from,
        b.new_size,
        b.timestamp.to_rfc3339()
    )
}

/// Whether every metric of the kind a `FailedGet<Kind>Metric` reason names computed here.
fn computes_kind_of(reason: &str, report: &Report) -> bool {
    let kind = reason
        .strip_prefix("FailedGet")
        .and_then(|r| r.strip_suffix("Metric"))
        .unwrap_or_default();
    let of_kind: Vec<_> = (report.metrics.iter())
        .filter(|m| m.metric_type == kind)
        .collect();
    !of_kind.is_empty() && of_kind.iter().all(|m| m.error.is_none())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::evaluate;
    use crate::calc::testing::{cpu_utilization, scenario};

    fn condition(kind: &str, reason: &str, message: &str) -> Condition {
        Condition {
            condition_type: kind.into(),
            status: "False".into(),
            reason: reason.into(),
            message: message.into(),
            last_transition_time: Some("2026-11-29T14:02:10Z".into()),
        }
    }

    #[test]
    fn an_ambiguous_selector_in_the_status_holds_the_count_and_comes_first() {
        // Twice the target: the metrics alone would scale 4 to 8.
        let mut s = scenario(vec![cpu_utilization(50)], 4, 1000);
        s.status_conditions = vec![condition(
            "ScalingActive",
            "AmbiguousSelector",
            "pods by selector app=web are controlled by multiple HPAs: [shop/keda-hpa-web shop/web]",
        )];
        let r = evaluate(&s);
        assert_eq!(r.desired_replicas, 4);
        let first = &r.diagnostics[0];
        assert_eq!(
            (first.code.as_str(), first.severity),
            (CODE, Severity::Error)
        );
        assert_eq!(
            first.message,
            "the controller reports ScalingActive=False AmbiguousSelector since \
             2026-11-29T14:02:10Z: pods by selector app=web are controlled by multiple HPAs: \
             [shop/keda-hpa-web shop/web]. It then reads no metric and keeps 4 replicas until \
             that changes; the metrics here alone would give 8"
        );
        assert!(first.fix.contains("hpacalc audit"), "{}", first.fix);
        // A failure the inputs show themselves is not doubled.
        s.metrics.selector_error = selector_from_status(&s);
        assert!(selector_from_status(&s).is_none());
    }

    /// A status-only sync (approximated pods) whose condition names a missing request: the
    /// stand-in fails forward in `calculatePodRequestsFromContainers` with the condition's own
    /// words, so the decision and the metric's error name the request, not an empty answer.
    #[test]
    fn a_missing_request_the_condition_names_fails_forward_with_its_words() {
        let mut s = scenario(vec![cpu_utilization(50)], 4, 500);
        s.approximation = true;
        let message = "the HPA was unable to compute the replica count: failed to get cpu \
                       utilization: missing request for cpu in container app of Pod web-1";
        s.status_conditions = vec![condition(
            "ScalingActive",
            "FailedGetResourceMetric",
            message,
        )];
        let (_, failing) = failure_from_status(&s).unwrap();
        assert_eq!(failing.pods[0].name, "web-1");
        assert!((failing.pods.iter()).all(|p| {
            (p.containers.iter()).any(|c| c.name == "app" && c.requests.get("cpu").is_none())
        }));
        let r = evaluate(&s);
        assert_eq!(r.desired_replicas, 4);
        let error = r.metrics[0].error.as_deref().unwrap();
        assert!(
            error.ends_with("missing request for cpu in container app of Pod web-1"),
            "{error}"
        );
        assert!(
            r.decision.summary.contains("missing request for cpu"),
            "{}",
            r.decision.summary
        );
        assert!(r.diagnostics[0].message.contains("missing request for cpu"));
        // Any other failure still stands in as an empty answer.
        s.status_conditions[0].message = "failed to get cpu utilization".into();
        let (_, failing) = failure_from_status(&s).unwrap();
        assert!(failing.metrics.resource.is_empty());
    }

    #[test]
    fn a_failed_metric_the_inputs_compute_is_explained_and_a_reproduced_one_is_not() {
        let mut s = scenario(vec![cpu_utilization(50)], 4, 500);
        s.status_conditions = vec![condition(
            "ScalingActive",
            "FailedGetResourceMetric",
            "the HPA was unable to compute the replica count: failed to get cpu utilization",
        )];
        let r = evaluate(&s);
        let d = (r.diagnostics.iter()).find(|d| d.code == CODE).unwrap();
        assert!(
            d.message.starts_with(
                "the controller reports ScalingActive=False FailedGetResourceMetric since \
                 2026-11-29T14:02:10Z: the HPA was unable"
            ),
            "{}",
            d.message
        );
        // The metric fails here too (no samples): reproduced, nothing to explain.
        let mut failing = s.clone();
        failing.metrics.resource.clear();
        assert!(
            !evaluate(&failing)
                .diagnostics
                .iter()
                .any(|d| d.code == CODE)
        );
        // A scale the controller could not read: the inputs hold one.
        s.status_conditions = vec![condition("AbleToScale", "FailedGetScale", "not found")];
        let r = evaluate(&s);
        assert!(
            r.diagnostics
                .iter()
                .any(|d| d.code == CODE && d.message.contains("could not read the target's scale")),
            "{:#?}",
            r.diagnostics
        );
        // Reproduced: the computed condition is the same.
        s.status_conditions = vec![Condition {
            status: "True".into(),
            ..condition("AbleToScale", "ReadyForNewScale", "ok")
        }];
        assert!(!evaluate(&s).diagnostics.iter().any(|d| d.code == CODE));
    }

    #[test]
    fn a_failure_the_status_states_is_the_answer_while_it_lasts() {
        // From the status alone: 4 pods at 80 % of 50 % would give 7, but the controller says
        // it could not get the cpu metric: it keeps 4, and says why first.
        let mut s = scenario(vec![cpu_utilization(50)], 4, 800);
        s.approximation = true;
        s.status_conditions = vec![condition(
            "ScalingActive",
            "FailedGetResourceMetric",
            "the HPA was unable to compute the replica count: failed to get cpu utilization",
        )];
        let r = evaluate(&s);
        assert_eq!(r.desired_replicas, 4);
        let first = &r.diagnostics[0];
        assert_eq!(first.code, "StatusFailure", "{:#?}", r.diagnostics);
        assert!(
            first.message.starts_with(
                "the controller reports ScalingActive=False FailedGetResourceMetric since \
                 2026-11-29T14:02:10Z: the HPA was unable to compute the replica count: failed \
                 to get cpu utilization. While that lasts its sync gives 4 (4 → 4); once it ends \
                 the status's values give 7"
            ),
            "{}",
            first.message
        );
        assert_eq!(r.other_outcomes[0].replicas, 7);
        // The scale unread: the sync stops there.
        s.status_conditions = vec![condition("AbleToScale", "FailedGetScale", "not found")];
        let r = evaluate(&s);
        assert_eq!(
            (r.desired_replicas, r.diagnostics[0].code.as_str()),
            (4, "StatusFailure")
        );
        // With pods given, the inputs are checked instead: the computed answer stands.
        s.approximation = false;
        assert_eq!(evaluate(&s).desired_replicas, 7);
    }

    /// A rate-limited scale-down to 16 (Pods 4 per 60 s) 70 s ago, and metrics proposing 8.
    fn rate_limited_scale_down() -> Scenario {
        use crate::scenario::{
            Behavior, BoundedRecommendation, ControllerMemory, PolicyType, Recommendation,
            ScaleEvent, ScalingPolicy, ScalingRules, SelectPolicy,
        };
        // 250m of 1 cpu is 25 % against 50 %: ceil(0.5 × 16) = 8.
        let mut s = scenario(vec![cpu_utilization(50)], 16, 250);
        let rules = |policies| ScalingRules {
            stabilization_window_seconds: None,
            select_policy: SelectPolicy::Max,
            policies,
            tolerance: None,
        };
        s.hpa.behavior = Some(Behavior {
            scale_up: ScalingRules {
                stabilization_window_seconds: Some(0),
                ..rules(vec![ScalingPolicy {
                    policy_type: PolicyType::Percent,
                    value: 100,
                    period_seconds: 15,
                }])
            },
            scale_down: rules(vec![ScalingPolicy {
                policy_type: PolicyType::Pods,
                value: 4,
                period_seconds: 60,
            }]),
        });
        let at = s.now.sub(crate::time::Duration::from_secs(70));
        s.memory = Some(ControllerMemory {
            recommendations: vec![Recommendation {
                replicas: 16,
                timestamp: at,
            }],
            scale_up_events: Vec::new(),
            scale_down_events: vec![ScaleEvent {
                replica_change: 4,
                timestamp: at,
                outdated: false,
            }],
        });
        s.bounded = vec![BoundedRecommendation {
            timestamp: at,
            new_size: 16,
        }];
        s
    }

    #[test]
    fn a_rate_limited_scale_down_bounds_the_window_from_above_and_both_answers_are_said() {
        let s = rate_limited_scale_down();
        let r = evaluate(&s);
        // Below the bound the window holds nothing above 8: the policy allows 16 - 4 = 12.
        assert_eq!(r.desired_replicas, 12);
        let first = &r.diagnostics[0];
        assert_eq!(first.code, "MemoryBounded", "{:#?}", r.diagnostics);
        // Forward: from 20, any recommendation up to 16 sets 16 (the limit allows 20 - 4).
        assert!(
            first.message.contains(
                "the rescale(s) from 20 to 16 at 2027-01-15T07:58:50Z (that sync recommended \
                 between 0 and 16). With the recommendations at one end of those ranges the next \
                 count is 12; at the other it is 16"
            ),
            "{}",
            first.message
        );
        assert!(
            r.decision.summary.ends_with(
                "; or 16, depending on what the rescales' syncs recommended (the events only \
                 bound it)"
            ),
            "{}",
            r.decision.summary
        );
        assert_eq!(r.other_outcomes[0].replicas, 16);
        // The same memory given as exact (a --history CSV) holds 16, and says nothing of bounds.
        let exact = Scenario {
            bounded: Vec::new(),
            ..s
        };
        let r = evaluate(&exact);
        assert_eq!(r.desired_replicas, 16);
        assert!(!r.diagnostics.iter().any(|d| d.code == "MemoryBounded"));
    }

    #[test]
    fn bounds_that_do_not_change_the_count_are_said_in_the_assumptions() {
        let mut s = rate_limited_scale_down();
        // At 90 % the metrics propose ceil(1.8 × 16) = 29, above the window either way.
        s = Scenario {
            metrics: scenario(vec![cpu_utilization(50)], 16, 900).metrics,
            ..s
        };
        let r = evaluate(&s);
        assert!(!r.diagnostics.iter().any(|d| d.code == "MemoryBounded"));
        assert!(
            (r.assumptions.iter())
                .any(|a| a.starts_with("The events give 1 recommendation(s) only through their")),
            "{:#?}",
            r.assumptions
        );
    }

    #[test]
    fn a_scale_up_inside_its_window_holds_its_new_size() {
        use crate::scenario::{
            Behavior, BoundedRecommendation, ControllerMemory, PolicyType, Recommendation,
            ScaleEvent, ScalingPolicy, ScalingRules, SelectPolicy,
        };
        // 6 pods at 83 % of 50 %: ceil(1.66 × 6) = 10; a scale-up to 6 30 s ago, a 60 s up window.
        let mut s = scenario(vec![cpu_utilization(50)], 6, 830);
        let rules = |window| ScalingRules {
            stabilization_window_seconds: Some(window),
            select_policy: SelectPolicy::Max,
            policies: vec![ScalingPolicy {
                policy_type: PolicyType::Percent,
                value: 100,
                period_seconds: 15,
            }],
            tolerance: None,
        };
        s.hpa.behavior = Some(Behavior {
            scale_up: rules(60),
            scale_down: rules(300),
        });
        let at = s.now.sub(crate::time::Duration::from_secs(30));
        s.memory = Some(ControllerMemory {
            recommendations: vec![Recommendation {
                replicas: 6,
                timestamp: at,
            }],
            scale_up_events: vec![ScaleEvent {
                replica_change: 2,
                timestamp: at,
                outdated: false,
            }],
            scale_down_events: Vec::new(),
        });
        s.bounded = vec![BoundedRecommendation {
            timestamp: at,
            new_size: 6,
        }];
        // Forward, only a recommendation of 6 sets 6 from 4 (100 % per 15 s allows 8), and the
        // scale-up window's min keeps it 30 s later: one answer, although the metrics say 10.
        let r = evaluate(&s);
        assert_eq!(r.desired_replicas, 6);
        assert!(!r.diagnostics.iter().any(|d| d.code == "MemoryBounded"));
        assert!(r.other_outcomes.is_empty());
        assert!(
            (r.assumptions.iter()).any(|a| a.contains("(that sync recommended 6)")),
            "{:#?}",
            r.assumptions
        );
    }

    /// The status-only shape `kubectl describe hpa` gives: `n` current / `desired` desired,
    /// the cpu average, and the conditions.
    fn status_only(n: usize, usage: i64, desired: i32, conditions: Vec<Condition>) -> Scenario {
        use crate::scenario::{ObservedMetric, ObservedStatus};
        let mut s = scenario(vec![cpu_utilization(50)], n, usage);
        s.approximation = true;
        s.status_conditions.clone_from(&conditions);
        s.observed_status = Some(ObservedStatus {
            conditions,
            current_replicas: Some(s.current_replicas),
            desired_replicas: Some(desired),
            current_metrics: vec![ObservedMetric {
                metric_type: "Resource".into(),
                name: "cpu".into(),
                value_milli: None,
                average_value_milli: Some(usage),
                average_utilization: Some(i32::try_from(usage / 10).unwrap()),
            }],
        });
        s
    }

    fn limited(reason: &str, message: &str) -> Condition {
        Condition {
            status: "True".into(),
            ..condition("ScalingLimited", reason, message)
        }
    }

    #[test]
    fn a_too_many_replicas_limit_the_sync_reproduces_is_the_first_why_line() {
        // 4 pods at 100 % of 50 %: 8 asked, maxReplicas 6 (below the legacy limit 8).
        let mut s = status_only(
            4,
            1000,
            6,
            vec![limited(
                "TooManyReplicas",
                "the desired replica count is more than the maximum replica count",
            )],
        );
        s.hpa.max_replicas = 6;
        let r = evaluate(&s);
        assert_eq!(r.desired_replicas, 6);
        let first = &r.diagnostics[0];
        assert_eq!(first.code, "StatusLimited", "{:#?}", r.diagnostics);
        assert!(
            first.message.starts_with(
                "the controller reports ScalingLimited=True TooManyReplicas since \
                 2026-11-29T14:02:10Z: the desired replica count is more than the maximum \
                 replica count. The sync here reproduces it: 4 → 6; here too: cpu resource \
                 utilization (percentage of request) asks for 8, above maxReplicas 6: the count \
                 stops at 6"
            ),
            "{}",
            first.message
        );
        // Folded into the line, not said twice; its fix kept.
        assert!(!r.diagnostics.iter().any(|d| d.code == "AtMaxReplicas"));
        assert!(first.fix.contains("maxReplicas"), "{}", first.fix);
        // DesiredWithinRange (False) is not a limit: nothing to say first.
        s.status_conditions = vec![Condition {
            status: "False".into(),
            ..condition("ScalingLimited", "DesiredWithinRange", "in range")
        }];
        s.hpa.max_replicas = 10;
        if let Some(o) = &mut s.observed_status {
            o.desired_replicas = Some(8);
        }
        let r = evaluate(&s);
        assert_eq!(r.desired_replicas, 8);
        assert!(!r.diagnostics.iter().any(|d| d.code == "StatusLimited"));
    }

    #[test]
    fn a_rate_limit_reason_in_the_status_is_said_first() {
        // 2 pods at 400 % of 50 %: 16 asked; the legacy limit from 2 is max(4, 4) = 4.
        let mut s = status_only(
            2,
            4000,
            4,
            vec![limited(
                "ScaleUpLimit",
                "the desired replica count is increasing faster than the maximum scale rate",
            )],
        );
        s.hpa.max_replicas = 20;
        let r = evaluate(&s);
        assert_eq!(r.desired_replicas, 4);
        assert_eq!(
            r.diagnostics[0].code, "StatusLimited",
            "{:#?}",
            r.diagnostics
        );
        assert!(r.diagnostics[0].message.contains("ScaleUpLimit"));
        // With pods given the inputs are checked: the sync's own cause says it.
        s.approximation = false;
        let r = evaluate(&s);
        assert!(!r.diagnostics.iter().any(|d| d.code == "StatusLimited"));
        assert!(r.diagnostics.iter().any(|d| d.code == "RateLimited"));
    }

    #[test]
    fn a_too_many_replicas_limit_keeps_only_hidden_pods_that_reproduce_it() {
        // 10 pods at 40 % of 50 %: 8. The status kept 10, which pods unready or without a
        // sample would explain (a scale-down's recount counts them at the target)...
        let mut s = status_only(10, 400, 10, Vec::new());
        s.hpa.max_replicas = 10;
        let r = evaluate(&s);
        assert_eq!(
            (r.desired_replicas, r.diagnostics[0].code.as_str()),
            (10, "StatusHiddenPods")
        );
        // ...but not with ScalingLimited=True TooManyReplicas: hiding pods never asks for more
        // than 10, so no value survives and the status is a contradiction.
        s.status_conditions = vec![limited("TooManyReplicas", "more than the maximum")];
        let r = evaluate(&s);
        assert!(!r.diagnostics.iter().any(|d| d.code == "StatusHiddenPods"));
        let first = &r.diagnostics[0];
        assert_eq!(first.code, "StatusMismatch", "{:#?}", r.diagnostics);
        assert!(
            first.message.contains(
                "The sync here sets ScalingLimited=False DesiredWithinRange (10 → 8), and no \
                 pods hidden behind the status's averages reproduce the controller's"
            ),
            "{}",
            first.message
        );
    }

    #[test]
    fn a_scale_the_controller_cannot_update_keeps_the_count_while_it_lasts() {
        // 4 pods at 100 % of 50 %: the sync computes 8, the update is refused.
        let s = status_only(
            4,
            1000,
            4,
            vec![condition(
                "AbleToScale",
                "FailedUpdateScale",
                "the HPA controller was unable to update the target scale: admission webhook denied",
            )],
        );
        let r = evaluate(&s);
        assert_eq!(r.desired_replicas, 4);
        let first = &r.diagnostics[0];
        assert_eq!(first.code, "StatusFailure");
        assert!(
            first.message.ends_with(
                "admission webhook denied. Its sync computes a count but the target's scale is \
                 not updated, so it stays at 4 (4 → 4) while that lasts; once it ends the sync \
                 sets 8"
            ),
            "{}",
            first.message
        );
        assert_eq!(r.other_outcomes[0].replicas, 8);
        assert!(r.decision.summary.ends_with("; or 8 once it can"));
        // With pods given, the inputs are checked: the count computed stands.
        let checked = Scenario {
            approximation: false,
            ..s
        };
        assert_eq!(evaluate(&checked).desired_replicas, 8);
    }
}
