//! The fix of a missing request (`MissingRequest`), checked forward. A Utilization target needs
//! a request on every container of every pod the selector lists (`calculateRequests` in
//! `replica_calculator.go` returns "missing request for ..." at the first container without
//! one), so "set the request" is a fix that changes a setting: each candidate request is put on
//! the container through the what-if path of `--set-request` (`crate::what_if`), the sync runs
//! again, and the fix says what it would give ("set resources.requests.cpu on container app
//! (e.g. 500m, the request its other pods have) → 3 replicas at about 47 %"). A container the
//! engine then finds without a request too is added to the change, one at a time, as the
//! controller's own error names it. Where the metric stays invalid the fix says why, and no
//! count is offered.
//!
//! A pod that another workload owns (`Placement::foreign_owner`) is the lever instead: the sync
//! runs without such pods, as labels outside the selector would leave it.
//!
//! Candidates for each container: the request the container has on the other pods (the most
//! common one), and the request at which its observed usage sits at the target (its average
//! usage × 100 / target %). Where neither is known, what decides is said instead.

use std::collections::BTreeMap;

use crate::calc::infer::sync_of;
use crate::calc::metrics::Computed;
use crate::calc::reconcile::Sync;
use crate::report::Report;
use crate::scenario::{MetricSpec, PodPhase, Scenario, TargetType};
use crate::what_if::{self, Change};

/// At most this many containers are added to one change before the check gives up.
const MOST_CONTAINERS: usize = 8;

/// Where a candidate request comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The request the container has on the other pods.
    OtherPods,
    /// The request at which the container's observed usage sits at the target.
    UsageAtTarget,
}

impl Origin {
    fn words(self, target: i32) -> String {
        match self {
            Origin::OtherPods => "the request its other pods have".to_string(),
            Origin::UsageAtTarget => format!("at which its usage now is the {target} % target"),
        }
    }
}

/// One candidate fix run forward.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// Each container and the request put on it.
    pub requests: Vec<(String, i64, Origin)>,
    /// The count the sync gives with them, and the metric's utilization at that count if the
    /// load stays as it is; `Err`: the metric is still invalid, with the engine's error.
    pub result: Result<(i32, Option<i64>), String>,
}

/// The `MissingRequest` fix of metric `index` (a Resource or ContainerResource Utilization
/// metric whose sync failed for a missing request), checked forward; `None` when that metric did
/// not fail so.
pub fn fix(s: &Scenario, sync: &Sync<'_>, index: usize) -> Option<String> {
    let Failed {
        resource,
        container,
        usage,
        error,
        first,
    } = failed(s, sync, index)?;
    let field = format!("resources.requests.{resource}");
    if s.pods.is_empty() || s.approximation {
        return Some(without_pods(resource, &first));
    }
    // A pod of another workload under the selector: the lever is the pod, not the request.
    if let Some(fix) = foreign_pod(s, index, error) {
        return Some(fix);
    }
    let checked = candidates(s, index, resource, container, usage, &first);
    if checked.is_empty() {
        return Some(format!(
            "set {field} on container {first}; no other pod has one and the samples show no \
             {resource} usage of it to size one from, so the count is then decided by the \
             request you choose: pass --set-request {first}.{resource}=QUANTITY to see what it \
             gives"
        ));
    }
    Some(words(&field, resource, usage, &checked))
}

/// The check of a fix that sets the request another way (an injected sidecar's pod-template
/// annotation, `calc::diagnose`): the same candidates run forward through `--set-request`'s
/// path, in words ("set the request on container istio-proxy (e.g. 120m, at which its usage now
/// is the 50 % target) → 3 replicas ..."), or why the metric stays invalid; `None` where the
/// pods are not in the inputs (nothing to run) or the metric did not fail for a request.
pub fn check_other_way(s: &Scenario, sync: &Sync<'_>, index: usize) -> Option<String> {
    let Failed {
        resource,
        container,
        usage,
        first,
        ..
    } = failed(s, sync, index)?;
    if s.pods.is_empty() || s.approximation {
        return None;
    }
    let checked = candidates(s, index, resource, container, usage, &first);
    if checked.is_empty() {
        return Some(format!(
            "no request for it is known (no other pod has one, and the samples show no \
             {resource} usage of it), so the count then depends on the request set: pass \
             --set-request {first}.{resource}=QUANTITY to see what it gives"
        ));
    }
    Some(words("the request", resource, usage, &checked))
}

/// A Resource Utilization metric whose sync failed for a missing request.
struct Failed<'s> {
    resource: &'s str,
    container: Option<&'s str>,
    /// The target utilization, in percent.
    usage: i32,
    /// The engine's error, as the controller words it.
    error: &'s str,
    /// The first container without the request, as the error names it.
    first: String,
}

/// Metric `index` of `s`, when it is a Utilization target whose sync failed for a request.
fn failed<'s>(s: &'s Scenario, sync: &'s Sync<'_>, index: usize) -> Option<Failed<'s>> {
    let MetricSpec::Resource {
        resource,
        container,
        target,
    } = s.hpa.metrics.get(index)?
    else {
        return None;
    };
    if target.target_type != TargetType::Utilization {
        return None;
    }
    let error = &sync.outcomes.get(index)?.result.as_ref().err()?.error;
    Some(Failed {
        resource,
        container: container.as_deref(),
        usage: target.average_utilization?,
        first: missing_container(error, resource)?,
        error,
    })
}

/// The fix in words: every candidate that makes the metric valid, with its count; or, when none
/// does, why the metric stays invalid.
fn words(field: &str, resource: &str, target: i32, checked: &[Checked]) -> String {
    let valid: Vec<String> = (checked.iter())
        .filter_map(|c| {
            let (count, percent) = c.result.as_ref().ok()?;
            let on = (c.requests.iter())
                .map(|(name, milli, origin)| {
                    format!(
                        "container {name} (e.g. {}, {})",
                        crate::quantity::human_quantity(resource, *milli),
                        origin.words(target)
                    )
                })
                .collect::<Vec<_>>()
                .join(" and ");
            let at = percent.map_or(String::new(), |p| {
                format!(" at about {p} % if the load stays as it is")
            });
            let n = if *count == 1 { "replica" } else { "replicas" };
            Some(format!("set {field} on {on} → {count} {n}{at}"))
        })
        .collect();
    if !valid.is_empty() {
        return valid.join("; or ");
    }
    let names: Vec<&str> = (checked.iter())
        .flat_map(|c| c.requests.iter().map(|(n, ..)| n.as_str()))
        .collect();
    let error = (checked.iter())
        .find_map(|c| c.result.as_ref().err())
        .cloned()
        .unwrap_or_default();
    format!(
        "set {field} on container {}, but that alone does not make the metric computable (with \
         it the controller still fails: {error}); fix that too",
        names.first().copied().unwrap_or_default()
    )
}

/// The candidate changes for the first container without a request, each run forward.
fn candidates(
    s: &Scenario,
    index: usize,
    resource: &str,
    filter: Option<&str>,
    target: i32,
    first: &str,
) -> Vec<Checked> {
    let mut out: Vec<Checked> = Vec::new();
    for origin in [Origin::OtherPods, Origin::UsageAtTarget] {
        let Some(milli) = candidate(s, resource, filter, target, first, origin) else {
            continue;
        };
        let checked = run(s, index, resource, filter, target, (first, milli, origin));
        if !out.iter().any(|c| c.requests == checked.requests) {
            out.push(checked);
        }
    }
    out
}

/// One candidate request for `container`, by its origin.
fn candidate(
    s: &Scenario,
    resource: &str,
    filter: Option<&str>,
    target: i32,
    container: &str,
    origin: Origin,
) -> Option<i64> {
    match origin {
        Origin::OtherPods => {
            let mut seen: BTreeMap<i64, usize> = BTreeMap::new();
            for c in (s.pods.iter())
                .filter(|p| !matches!(p.phase, PodPhase::Succeeded | PodPhase::Failed))
                .flat_map(|p| p.containers.iter())
                .filter(|c| c.name == container)
            {
                if let Some(r) = c.requests.get(resource).filter(|r| *r > 0) {
                    *seen.entry(r).or_default() += 1;
                }
            }
            // The most common; of equals, the largest.
            (seen.into_iter())
                .max_by_key(|&(r, n)| (n, r))
                .map(|(r, _)| r)
        }
        Origin::UsageAtTarget => {
            let usages: Vec<i64> = (s.metrics.resource.iter())
                .flat_map(|p| p.containers.iter())
                .filter(|c| c.name == container && filter.is_none_or(|f| f == container))
                .filter_map(|c| c.usage.get(resource))
                .collect();
            let total: i64 = usages.iter().sum();
            let n = i64::try_from(usages.len()).ok()?;
            let target = i64::from(target);
            // The average usage × 100 / target %, up to a whole unit (a millicore).
            let per = n.saturating_mul(target);
            (n > 0 && total > 0 && target > 0)
                .then(|| (total.saturating_mul(100).saturating_add(per - 1)) / per)
        }
    }
}

/// The sync with the request on `first`, and on every further container the engine then finds
/// without one (the same origin's candidate), until the metric computes or fails otherwise.
fn run(
    s: &Scenario,
    index: usize,
    resource: &str,
    filter: Option<&str>,
    target: i32,
    first: (&str, i64, Origin),
) -> Checked {
    let (name, milli, origin) = first;
    let mut requests = vec![(name.to_string(), milli, origin)];
    loop {
        let changes: Vec<Change> = (requests.iter())
            .map(|(c, milli, _)| Change::Request {
                container: Some(c.clone()),
                resource: resource.to_string(),
                milli: *milli,
            })
            .collect();
        let Some(changed) = what_if::changed(s, &changes) else {
            let result = Err(format!("no pod has container {name}"));
            return Checked { requests, result };
        };
        let sync = sync_of(&changed);
        let result = match sync.outcomes.get(index).map(|o| &o.result) {
            Some(Ok(Computed::PodBased(p))) => {
                let count = sync.desired_replicas;
                Ok((count, percent_at(p, count)))
            }
            Some(Ok(Computed::Value(_))) | None => Err("the metric is not pod-based".to_string()),
            Some(Err(f)) => {
                let next = missing_container(&f.error, resource);
                let known = next
                    .as_ref()
                    .is_some_and(|n| requests.iter().any(|(c, ..)| c == n));
                match next {
                    Some(next) if !known && requests.len() < MOST_CONTAINERS => {
                        let fallback = [origin, Origin::OtherPods, Origin::UsageAtTarget];
                        let found = (fallback.iter()).find_map(|&o| {
                            candidate(s, resource, filter, target, &next, o).map(|m| (m, o))
                        });
                        if let Some((milli, o)) = found {
                            requests.push((next, milli, o));
                            continue;
                        }
                        Err(f.condition_error.clone())
                    }
                    _ => Err(f.condition_error.clone()),
                }
            }
        };
        return Checked { requests, result };
    }
}

/// The container the engine's error says lacks a request for `resource`:
/// `missing request for cpu in container app of Pod web-1`.
fn missing_container(error: &str, resource: &str) -> Option<String> {
    let (_, rest) = error.split_once(&format!("missing request for {resource} in container "))?;
    let (container, _) = rest.split_once(" of Pod ")?;
    Some(container.to_string())
}

/// The pod the error names, when another workload owns it: the sync runs again without every
/// such pod (labels outside the selector take them off the controller's pod list and the
/// metrics' answer), and the fix says what that gives, or why it is not enough.
fn foreign_pod(s: &Scenario, index: usize, error: &str) -> Option<String> {
    let (_, name) = error.rsplit_once(" of Pod ")?;
    let pod = s.pods.iter().find(|p| p.name == name)?;
    let owner = pod.placement.foreign_owner.as_deref()?;
    let mut without = s.clone();
    without.pods.retain(|p| p.placement.foreign_owner.is_none());
    let kept = |n: &str| without.pods.iter().any(|p| p.name == n);
    without.metrics.resource = (s.metrics.resource.iter())
        .filter(|m| kept(&m.pod))
        .cloned()
        .collect();
    let mut pods = std::mem::take(&mut without.metrics.pods);
    for values in pods.values_mut() {
        values.retain(|v| kept(&v.pod));
    }
    without.metrics.pods = pods;
    let gone = s.pods.len() - without.pods.len();
    let lead = format!(
        "Pod {name} is owned by {owner}, not by the target, yet the HPA's selector matches it \
         (and the controller sums the requests of every pod it lists): give {} labels outside \
         the selector, or the target a selector of its own",
        if gone == 1 { "it" } else { "those pods" }
    );
    if without.pods.is_empty() {
        return Some(format!(
            "{lead}; the selector then lists none of the target's pods"
        ));
    }
    let sync = sync_of(&without);
    Some(match sync.outcomes.get(index).map(|o| &o.result) {
        Some(Ok(Computed::PodBased(p))) => {
            let count = sync.desired_replicas;
            let n = if count == 1 { "replica" } else { "replicas" };
            let at = percent_at(p, count).map_or(String::new(), |p| {
                format!(" at about {p} % if the load stays as it is")
            });
            format!("{lead} → {count} {n}{at}; the target's own pods need no change")
        }
        Some(Err(f)) => format!(
            "{lead}; without {} the controller still fails ({}): fix that too",
            if gone == 1 { "it" } else { "them" },
            f.condition_error
        ),
        _ => lead,
    })
}

/// The metric's utilization at `count` replicas if the load stays as it is: the same usage
/// over `count` pods' requests.
fn percent_at(p: &crate::calc::replicas::PodBasedResult<'_>, count: i32) -> Option<i64> {
    let ready = i64::try_from(p.groups.ready_pod_count).ok()?;
    (p.request_total)
        .filter(|r| *r > 0 && count > 0 && ready > 0)
        .map(|r| p.usage_total.saturating_mul(100 * ready) / (r * i64::from(count)))
}

/// The fix where the pods are not in the inputs: what decides the count once the request is set.
fn without_pods(resource: &str, container: &str) -> String {
    format!(
        "set resources.requests.{resource} on container {container}; the pods and their usage \
         are not in the inputs, so the count is then decided by {resource} usage over that \
         request: pass --pods and --metrics with --set-request {container}.{resource}=QUANTITY \
         to see it"
    )
}

/// The fix of a failure the status states (`ScalingActive=False FailedGetResourceMetric`) whose
/// message names a missing request (`missing request for cpu in container app of Pod web-1`):
/// the request, and what decides the count; `None` for any other message.
pub fn from_condition(message: &str) -> Option<String> {
    let (_, rest) = message.split_once("missing request for ")?;
    let (resource, _) = rest.split_once(' ')?;
    let container = missing_container(message, resource)?;
    Some(without_pods(resource, &container))
}

/// The report's metrics whose `MissingRequest` line has the generic fix, by index.
pub fn generic(report: &Report, message: &str) -> Option<usize> {
    (report.metrics.iter()).position(|m| {
        message.starts_with(&format!(
            "{}: missing request for ",
            crate::calc::metrics::readable(&m.description)
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::testing::{cpu_utilization, scenario};
    use crate::scenario::{Container, ContainerKind, Resources};

    /// The `MissingRequest` line's fix, as `evaluate` writes it.
    fn the_fix(s: &Scenario) -> String {
        let report = crate::calc::evaluate(s);
        let d = (report.diagnostics.iter()).find(|d| d.code == "MissingRequest");
        d.expect("a MissingRequest line").fix.clone()
    }

    /// 4 pods of container `app` at 700m of a 1-cpu request (target 50 %), pod p0's without
    /// its request.
    fn one_without() -> Scenario {
        let mut s = scenario(vec![cpu_utilization(50)], 4, 700);
        s.hpa.max_replicas = 20;
        s.pods[0].containers[0].requests = Resources(Vec::new());
        s
    }

    #[test]
    fn a_missing_request_fix_says_what_each_candidate_request_gives() {
        // The other pods' 1000m: 2800m over 4000m = 70 % of 50 %, ceil(1.4 × 4) = 6, at about
        // 2800 / 6000 = 46 %. At the target: 700m × 100 / 50 = 1400m, 50 % of 50 %: 4 stays.
        let s = one_without();
        let fix = the_fix(&s);
        assert_eq!(
            fix,
            "set resources.requests.cpu on container app (e.g. 1000m, the request its other pods \
             have) → 6 replicas at about 46 % if the load stays as it is; or set \
             resources.requests.cpu on container app (e.g. 1400m, at which its usage now is the \
             50 % target) → 4 replicas at about 50 % if the load stays as it is"
        );
        // Each count is what `--set-request app.cpu=…` computes.
        for (milli, count) in [(1000, 6), (1400, 4)] {
            let change = Change::Request {
                container: Some("app".into()),
                resource: "cpu".into(),
                milli,
            };
            let changed = what_if::changed(&s, &[change]).unwrap();
            assert_eq!(crate::calc::evaluate(&changed).desired_replicas, count);
        }
    }

    /// `one_without`'s pods all with their `app` request, and an injected `istio-proxy` on
    /// each, without a request, using 100m.
    fn istio() -> Scenario {
        let mut s = one_without();
        s.pods[0].containers[0].requests = Resources(vec![("cpu".into(), 1000)]);
        for (p, sample) in s.pods.iter_mut().zip(&mut s.metrics.resource) {
            p.containers.push(Container {
                name: "istio-proxy".into(),
                kind: ContainerKind::App,
                requests: Resources(Vec::new()),
            });
            sample.containers.push(crate::scenario::ContainerMetrics {
                name: "istio-proxy".into(),
                usage: Resources(vec![("cpu".into(), 100)]),
            });
        }
        s
    }

    #[test]
    fn an_injected_sidecar_fix_is_checked_forward_and_says_what_it_gives() {
        let s = istio();
        let fix = the_fix(&s);
        assert!(fix.contains("sidecar.istio.io/proxyCPU"), "{fix}");
        // Its usage at the 50 % target: 100m × 100 / 50 = 200m, and the count is what
        // `--set-request istio-proxy.cpu=200m` computes.
        let change = Change::Request {
            container: Some("istio-proxy".into()),
            resource: "cpu".into(),
            milli: 200,
        };
        let count =
            crate::calc::evaluate(&what_if::changed(&s, &[change]).unwrap()).desired_replicas;
        assert!(
            fix.contains(&format!(
                ". Checked: set the request on container istio-proxy (e.g. 200m, at which its \
                 usage now is the 50 % target) → {count} replicas"
            )),
            "{fix}"
        );
    }

    /// A second container `log` on every pod, without a request and without usage.
    fn add_log_container(s: &mut Scenario) {
        for p in &mut s.pods {
            p.containers.push(Container {
                name: "log".into(),
                kind: ContainerKind::App,
                requests: Resources(Vec::new()),
            });
        }
    }

    #[test]
    fn an_injected_sidecar_fix_the_engine_contradicts_offers_no_count() {
        // A second container `log` without a request and without usage: the sidecar's request
        // alone leaves the metric invalid.
        let mut s = istio();
        add_log_container(&mut s);
        let fix = the_fix(&s);
        assert!(fix.contains("sidecar.istio.io/proxyCPU"), "{fix}");
        assert!(
            fix.contains(
                "Checked: set the request on container istio-proxy, but that alone does not make \
                 the metric computable"
            ) && fix.contains("missing request for cpu in container log of Pod p0"),
            "{fix}"
        );
        assert!(!fix.contains("replicas"), "{fix}");
    }

    #[test]
    fn a_request_fix_the_engine_contradicts_is_not_offered_with_a_count() {
        // A second container `log` without a request on any pod and without usage: the
        // request on `app` alone leaves the metric invalid, as the engine's sync says.
        let mut s = one_without();
        add_log_container(&mut s);
        let fix = the_fix(&s);
        assert!(
            fix.starts_with(
                "set resources.requests.cpu on container app, but that alone does not make the \
                 metric computable (with it the controller still fails: "
            ) && fix.contains("missing request for cpu in container log of Pod p0); fix that too"),
            "{fix}"
        );
        assert!(!fix.contains("replicas"), "{fix}");
    }

    #[test]
    fn a_second_container_without_a_request_is_added_from_its_own_usage() {
        // `log` uses 100m on every pod and has no request anywhere: its request at the target
        // (200m) joins app's in one change, and the count is said for both.
        let mut s = one_without();
        for (p, sample) in s.pods.iter_mut().zip(&mut s.metrics.resource) {
            p.containers.push(Container {
                name: "log".into(),
                kind: ContainerKind::App,
                requests: Resources(Vec::new()),
            });
            sample.containers.push(crate::scenario::ContainerMetrics {
                name: "log".into(),
                usage: Resources(vec![("cpu".into(), 100)]),
            });
        }
        let fix = the_fix(&s);
        // 1000m + 200m a pod: 3200m over 4800m = 66 % of 50 %, ceil(4 × 1.333) = 6.
        assert!(
            fix.starts_with(
                "set resources.requests.cpu on container app (e.g. 1000m, the request its other pods \
                 have) and container log (e.g. 200m, at which its usage now is the 50 % target) \
                 → 6 replicas"
            ),
            "{fix}"
        );
    }

    #[test]
    fn a_pod_of_another_workload_is_the_lever_not_the_request() {
        // p0 (no request) belongs to ReplicaSet/worker: without it, 3 pods at 70 % of 50 %
        // give ceil(1.4 × 3) = 5, at about 2100 / 5000 = 42 %.
        let mut s = one_without();
        s.pods[0].placement.foreign_owner = Some("ReplicaSet/worker-5f6d8b".into());
        let fix = the_fix(&s);
        assert_eq!(
            fix,
            "Pod p0 is owned by ReplicaSet/worker-5f6d8b, not by the target, yet the HPA's \
             selector matches it (and the controller sums the requests of every pod it lists): \
             give it labels outside the selector, or the target a selector of its own → 5 \
             replicas at about 42 % if the load stays as it is; the target's own pods need no \
             change"
        );
        assert!(!fix.contains("set resources.requests"), "{fix}");
        // The target's own pod without a request: the request is the lever again.
        s.pods[0].placement.foreign_owner = None;
        s.pods[1].placement.foreign_owner = Some("ReplicaSet/worker-5f6d8b".into());
        assert!(the_fix(&s).starts_with("set resources.requests.cpu on container app"));
    }

    #[test]
    fn without_a_request_elsewhere_or_usage_what_decides_is_said() {
        // No pod's `app` has a request and the samples show no usage of it: no candidate, so
        // no count is claimed.
        let mut s = one_without();
        for p in &mut s.pods {
            p.containers[0].requests = Resources(Vec::new());
        }
        for m in &mut s.metrics.resource {
            m.containers[0].usage = Resources(vec![("cpu".into(), 0)]);
        }
        let fix = the_fix(&s);
        assert!(
            fix.starts_with(
                "set resources.requests.cpu on container app; no other pod has one and the \
                 samples show no cpu usage of it to size one from"
            ),
            "{fix}"
        );
        assert!(!fix.contains("→"), "{fix}");
    }

    #[test]
    fn without_pods_what_decides_is_said() {
        let s = one_without();
        let sync = sync_of(&s);
        let mut bare = s.clone();
        bare.pods.clear();
        let fix = fix(&bare, &sync, 0).unwrap();
        assert!(
            fix.contains("so the count is then decided by cpu usage over that request"),
            "{fix}"
        );
        assert!(fix.contains("--set-request app.cpu=QUANTITY"), "{fix}");
    }

    #[test]
    fn a_condition_naming_a_missing_request_gets_the_request_fix() {
        let message = "the HPA was unable to compute the replica count: failed to get cpu \
                       utilization: missing request for cpu in container app of Pod web-1";
        let fix = from_condition(message).unwrap();
        assert!(
            fix.starts_with("set resources.requests.cpu on container app;"),
            "{fix}"
        );
        assert_eq!(
            from_condition("unable to get metrics for resource cpu"),
            None
        );
    }

    #[test]
    fn a_metric_that_did_not_fail_for_a_request_has_no_request_fix() {
        let s = scenario(vec![cpu_utilization(50)], 2, 500);
        assert_eq!(fix(&s, &sync_of(&s), 0), None);
    }
}
