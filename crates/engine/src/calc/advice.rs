//! Advice the engine has checked. Every `fix:` that changes a setting (maxReplicas, minReplicas,
//! a tolerance) is applied to a copy of the scenario through the same what-if path as the CLI's
//! `--max`, `--min` and tolerance flags (`crate::what_if`), the sync is run again with the
//! controller's own `reconcile`, and the fix says what it would do ("raise maxReplicas to 14 →
//! 14 replicas at about 79 %"). A fix that does not move the count the way it says is not
//! offered: the fix names the lever that does (the target, the node group's max). A missing
//! request's fix is checked the same way, through `--set-request`'s path (`calc::request_fix`).

use crate::calc::metrics::readable;
use crate::calc::nodes;
use crate::calc::reconcile::{self, Normalization, Sync};
use crate::report::{Diagnostic, MetricReport, NodesReport, Report};
use crate::scenario::{NodeInput, Scenario};
use crate::what_if::{self, Change};

/// The fixes of the report's diagnostics that change a setting, each checked by a what-if sync;
/// then the pods the nodes cannot hold, first in WHY (after what the status says) and in the
/// decision line.
pub fn check(s: &Scenario, sync: &Sync<'_>, report: &mut Report) {
    let mut out = std::mem::take(&mut report.diagnostics);
    check_fixes(s, sync, report, &mut out);
    if let Some(d) = pods_pending(s, report) {
        let at = out
            .iter()
            .take_while(|d| d.code.starts_with("Status"))
            .count();
        out.insert(at, d);
        if let Some(n) = &report.nodes {
            report
                .decision
                .summary
                .push_str(&format!("; {} Pending", n.unschedulable_pods));
        }
    }
    report.diagnostics = out;
}

fn check_fixes(s: &Scenario, sync: &Sync<'_>, report: &Report, out: &mut [Diagnostic]) {
    // A missing request: the request is set through `--set-request`'s path and run (the sync
    // may have given up, with no normalization).
    for d in out.iter_mut() {
        if d.code == "MissingRequest" && d.fix.starts_with("set resources.requests.") {
            let index = crate::calc::request_fix::generic(report, &d.message);
            if let Some(fix) = index.and_then(|i| crate::calc::request_fix::fix(s, sync, i)) {
                d.fix = fix;
            }
        } else if d.code == "MissingRequest" && d.fix.contains(" is injected by ") {
            // An injected sidecar: the annotation sets the request; what that request gives is
            // run forward the same way.
            let index = crate::calc::request_fix::generic(report, &d.message);
            if let Some(check) =
                index.and_then(|i| crate::calc::request_fix::check_other_way(s, sync, i))
            {
                d.fix = format!("{}. Checked: {check}", d.fix);
            }
        }
    }
    let Some(n) = &sync.normalization else { return };
    // A checked fix depends on the sync, not on the line: each is run once, however many lines
    // share it (an HPA of 20,000 metrics has as many WithinTolerance lines).
    let mut checked: [Option<Option<String>>; 4] = Default::default();
    for d in out.iter_mut() {
        let slot = match (d.code.as_str(), n.limited.reason) {
            ("AtMaxReplicas", "TooManyReplicas") if !d.fix.starts_with("see ") => 0,
            ("AtMinReplicas", "TooFewReplicas") => 1,
            ("WithinTolerance", _) => 2,
            ("RateLimited", "ScaleUpLimit") => 3,
            _ => continue,
        };
        let Some(cell) = checked.get_mut(slot) else {
            continue;
        };
        let fix = cell.get_or_insert_with(|| match slot {
            0 => raise_max(s, n, report),
            1 => lower_min(s, n, report),
            2 => smaller_tolerance(s, report),
            _ => faster_scale_up(s, n, report),
        });
        if let Some(fix) = fix {
            d.fix.clone_from(fix);
        }
    }
}

/// The count the controller would set with the changes, from the same inputs.
pub fn desired_with(s: &Scenario, changes: &[Change]) -> Option<i32> {
    sync_with(s, changes).map(|(count, _)| count)
}

/// The count with the changes, and the reason of the limit that set it (`ScaleUpLimit`, ...).
fn sync_with(s: &Scenario, changes: &[Change]) -> Option<(i32, &'static str)> {
    let changed = what_if::changed(s, changes)?;
    let assume_steady = changed.memory.is_none();
    let mut memory = changed.memory.clone().unwrap_or_default();
    let sync = reconcile::reconcile(&changed, &mut memory, assume_steady);
    let reason = sync.normalization.as_ref().map_or("", |n| n.limited.reason);
    Some((sync.desired_replicas, reason))
}

/// What holds the count at `count` after a change, in words.
fn holder_words(reason: &str, count: i32, report: &Report) -> String {
    match reason {
        "ScaleUpLimit" => format!(
            "the scale-up rate limit allows {count} this sync (raise behavior.scaleUp.policies)"
        ),
        "ScaleDownLimit" => format!(
            "the scale-down rate limit allows {count} this sync (raise behavior.scaleDown.policies)"
        ),
        _ => format!(
            "{} asks for {count}: change its target",
            decisive_name(report)
        ),
    }
}

/// The metric that decided the count, if one did.
fn decisive(report: &Report) -> Option<&MetricReport> {
    let name = report.decision.metric_name.as_deref()?;
    report.metrics.iter().find(|m| m.description == name)
}

/// " at about 79 %": the decisive metric's value at `count` replicas if the load stays as it
/// is (the same total spread over more or fewer pods); empty where the value does not follow
/// the count (a Value target) or is unknown.
fn at_load(report: &Report, count: i32) -> String {
    let Some(m) = decisive(report) else {
        return String::new();
    };
    let pods = i64::try_from(m.ready_pods).unwrap_or(0);
    match (
        m.current_utilization,
        m.usage_total_milli,
        m.request_total_milli,
    ) {
        (Some(_), Some(usage), Some(requests)) if pods > 0 && count > 0 && requests > 0 => {
            // The request of one pod, times the new count: the total the usage divides.
            #[allow(clippy::cast_precision_loss)]
            let percent = usage as f64 * 100.0 * pods as f64 / (requests as f64 * f64::from(count));
            format!(" at about {percent:.0} % if the load stays as it is")
        }
        _ => String::new(),
    }
}

/// `raise maxReplicas`: offered with what it gives when a higher max moves the count; the node
/// group's max is named when the pods it adds could not be scheduled.
fn raise_max(s: &Scenario, n: &Normalization, report: &Report) -> Option<String> {
    let to = n.stabilized;
    let (count, reason) = sync_with(s, &[Change::MaxReplicas(to)])?;
    if count <= n.limited.replicas {
        return Some(format!(
            "a higher maxReplicas does not move it (maxReplicas {to} still gives {count}): {}",
            holder_words(reason, count, report)
        ));
    }
    let mut fix = format!(
        "raise maxReplicas to {to} → {}{}",
        replicas(count),
        at_load(report, count)
    );
    if let Some(nodes) = &s.nodes {
        fix.push_str(&pending_note(nodes, s.current_replicas, count));
    }
    Some(fix)
}

/// The next sync's scenario once the count is `count` and its pods are ready: the same values,
/// `count` ready pods (copies of the ready ones, when pods are given), the memory as it is.
pub fn next_sync(s: &Scenario, count: i32) -> Scenario {
    let mut next = s.clone();
    next.current_replicas = count;
    next.status_replicas = count;
    let ready: Vec<&crate::scenario::Pod> = (s.pods.iter())
        .filter(|p| {
            p.phase == crate::scenario::PodPhase::Running
                && p.ready
                    .as_ref()
                    .is_some_and(|r| r.status == crate::scenario::ConditionStatus::True)
        })
        .collect();
    if !ready.is_empty() {
        let n = usize::try_from(count).unwrap_or(0);
        next.pods = (0..n)
            .filter_map(|i| {
                let mut pod = (*ready.get(i % ready.len())?).clone();
                if i >= ready.len() {
                    pod.name = format!("{}-next-{i}", pod.name);
                }
                Some(pod)
            })
            .collect();
    }
    next
}

/// `lower minReplicas`: offered with what it gives when a lower min moves the count down.
fn lower_min(s: &Scenario, n: &Normalization, report: &Report) -> Option<String> {
    let to = n.stabilized.max(1);
    if to >= s.hpa.min_replicas {
        return None;
    }
    let (count, reason) = sync_with(s, &[Change::MinReplicas(to)])?;
    Some(if count < n.limited.replicas {
        format!(
            "lower minReplicas to {to} → {}{} (only if fewer pods is what you want: \
             to scale up sooner, lower the target of {} instead)",
            replicas(count),
            at_load(report, count),
            decisive_name(report)
        )
    } else {
        format!(
            "a lower minReplicas does not move it (minReplicas {to} still gives {count}): {}",
            holder_words(reason, count, report)
        )
    })
}

/// "1 replica", "14 replicas".
fn replicas(count: i32) -> String {
    if count == 1 {
        "1 replica".to_string()
    } else {
        format!("{count} replicas")
    }
}

fn decisive_name(report: &Report) -> String {
    report
        .decision
        .metric_name
        .as_deref()
        .map_or_else(|| "the metrics".to_string(), readable)
}

/// A tolerance just under the ratio's distance from 1, per HPA (1.33+) or for the controller,
/// whichever moves the count; "nothing to fix" keeps its place when neither does.
fn smaller_tolerance(s: &Scenario, report: &Report) -> Option<String> {
    let m = report.metrics.iter().find(|m| {
        m.ratio
            .is_some_and(|r| r >= m.tolerance.lower && r <= m.tolerance.upper)
    })?;
    let ratio = m.ratio?;
    let up = ratio > 1.0;
    // Hundredths, strictly under the distance: 1.04 → 0.03.
    let t = ((ratio - 1.0).abs() * 100.0 - 1e-6).floor().max(0.0) / 100.0;
    let (field, per_hpa) = if up {
        ("behavior.scaleUp.tolerance", Change::ScaleUpTolerance(t))
    } else {
        (
            "behavior.scaleDown.tolerance",
            Change::ScaleDownTolerance(t),
        )
    };
    let current = s.current_replicas;
    let moved = |count: i32| (up && count > current) || (!up && count < current);
    if let Some(count) = desired_with(s, &[per_hpa]).filter(|c| moved(*c)) {
        return Some(format!(
            "nothing to fix; to react to smaller changes set {field} to {t} → {}",
            replicas(count)
        ));
    }
    if let Some(count) = desired_with(s, &[Change::Tolerance(t)]).filter(|c| moved(*c)) {
        return Some(format!(
            "nothing to fix; to react to smaller changes set the controller's \
             --horizontal-pod-autoscaler-tolerance to {t} (every HPA of the cluster; {field} \
             needs 1.33+ with HPAConfigurableTolerance) → {}",
            replicas(count)
        ));
    }
    let holder = match decisive(report) {
        Some(d) if d.description != m.description => {
            format!("{} decides the count", readable(&d.description))
        }
        _ => format!("a stabilization window or a bound keeps {current}"),
    };
    Some(format!(
        "nothing to fix; a smaller tolerance ({t}) alone would not move the count this sync \
         ({holder})"
    ))
}

/// `scale up faster`: not offered when the pods a faster scale-up adds could not be scheduled.
fn faster_scale_up(s: &Scenario, n: &Normalization, report: &Report) -> Option<String> {
    let nodes = s.nodes.as_ref()?;
    let unlimited = n.stabilized.min(s.hpa.max_replicas);
    let at = nodes::plan(nodes, s.current_replicas, unlimited);
    if at.unschedulable_pods == 0 {
        return None;
    }
    let _ = report;
    Some(format!(
        "scaling up faster does not help: at {unlimited} replicas {} pod(s) would stay Pending \
         ({}); {}",
        at.unschedulable_pods,
        limit_words(&at, nodes),
        room_fix(nodes, s.current_replicas, unlimited)
    ))
}

/// `PodsPending`: the decision's pods that no node would take, the limit and the nodes they need.
fn pods_pending(s: &Scenario, report: &Report) -> Option<Diagnostic> {
    let (nodes, at) = (s.nodes.as_ref()?, report.nodes.as_ref()?);
    if at.unschedulable_pods == 0 {
        return None;
    }
    let desired = report.desired_replicas;
    let need = match nodes_needed(nodes, s.current_replicas, desired) {
        Some(needed) => format!(" ({desired} pods need {needed} nodes)"),
        None => String::new(),
    };
    Some(Diagnostic::new(
        "PodsPending",
        crate::report::Severity::Warning,
        format!(
            "{} of {desired} pods would stay Pending: {}{need}; the HPA counts them as replicas, \
             and as unready pods they count as using nothing on the next scale-up",
            at.unschedulable_pods,
            limit_words(at, nodes)
        ),
        format!(
            "{}; scaling up faster or a higher maxReplicas only adds Pending pods",
            room_fix(nodes, s.current_replicas, desired)
        ),
    ))
}

/// "; 3 of them would stay Pending (the node group's max of 6 nodes): raise it to 8".
fn pending_note(nodes: &NodeInput, current: i32, count: i32) -> String {
    let at = nodes::plan(nodes, current, count);
    if at.unschedulable_pods == 0 {
        return String::new();
    }
    format!(
        "; {} of them would stay Pending ({}): {}",
        at.unschedulable_pods,
        limit_words(&at, nodes),
        room_fix(nodes, current, count)
    )
}

/// The limit that keeps pods Pending, in words.
pub fn limit_words(at: &NodesReport, nodes: &NodeInput) -> String {
    match at.limited_by.as_deref() {
        Some("nodeGroupMax") => format!(
            "the node group is at its max of {} nodes",
            nodes.node_group_max.unwrap_or(at.existing)
        ),
        Some("maxNodesTotal") => format!(
            "the cluster is at --max-nodes-total {}",
            nodes.max_nodes_total.unwrap_or(at.existing)
        ),
        Some("podTooLarge") => "no node type of the group fits one pod".to_string(),
        _ => "the Cluster Autoscaler adds no more nodes in one scale-up".to_string(),
    }
}

/// The nodes `count` pods need, without the group's and the cluster's max: the lever to name.
pub fn nodes_needed(nodes: &NodeInput, current: i32, count: i32) -> Option<i64> {
    let unlimited = NodeInput {
        node_group_max: None,
        max_nodes_total: None,
        ..nodes.clone()
    };
    let at = nodes::plan(&unlimited, current, count);
    (at.unschedulable_pods == 0).then_some(at.existing + at.to_add)
}

fn room_fix(nodes: &NodeInput, current: i32, count: i32) -> String {
    match nodes_needed(nodes, current, count) {
        Some(needed) => format!("raise the node group's max to {needed} nodes"),
        None => "use a node type that fits the pod, or lower its requests".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use crate::calc::evaluate;
    use crate::calc::testing::{cpu_utilization, scenario};
    use crate::report::Diagnostic;
    use crate::scenario::{Capacity, Existing, NodeInput, Resources, Scenario};
    use crate::time::Duration;

    fn find(s: &Scenario, code: &str) -> Diagnostic {
        let all = evaluate(s).diagnostics;
        all.iter()
            .find(|d| d.code == code)
            .cloned()
            .unwrap_or_else(|| panic!("no {code} in {all:#?}"))
    }

    fn node_group(max: i64) -> NodeInput {
        let cpu = |m: i64| Resources(vec![("cpu".into(), m)]);
        NodeInput {
            template: Capacity {
                resources: cpu(2000),
                pods: 110,
            },
            daemonsets: Capacity {
                resources: cpu(0),
                pods: 0,
            },
            existing: Existing::Template(Some(2)),
            pod_request: cpu(1000),
            pod_request_source: "test".into(),
            node_group_max: Some(max),
            max_nodes_total: None,
            scale_down_utilization_threshold: 0.5,
            scale_down_unneeded_time: Duration::from_secs(600),
        }
    }

    #[test]
    fn pods_the_node_group_cannot_hold_come_first_in_why_and_in_the_decision() {
        // 2 pods at 300 % of 50 %: the legacy limit gives 4; 2 nodes of 2 pods at max 2 hold 4.
        let mut s = scenario(vec![cpu_utilization(50)], 2, 3000);
        s.hpa.max_replicas = 4;
        s.nodes = Some(node_group(2));
        assert!(!codes(&evaluate(&s)).contains(&"PodsPending".to_string()));
        // 4 pods asking for 12, max 8: 8 pods on room for 4.
        let mut s = scenario(vec![cpu_utilization(50)], 4, 1500);
        s.hpa.max_replicas = 8;
        s.nodes = Some(node_group(2));
        let report = evaluate(&s);
        let first = &report.diagnostics[0];
        assert_eq!(first.code, "PodsPending");
        assert_eq!(
            first.message,
            "4 of 8 pods would stay Pending: the node group is at its max of 2 nodes (8 pods need \
             4 nodes); the HPA counts them as replicas, and as unready pods they count as using \
             nothing on the next scale-up"
        );
        assert!(
            first
                .fix
                .starts_with("raise the node group's max to 4 nodes"),
            "{}",
            first.fix
        );
        assert!(
            report.decision.summary.ends_with("; 4 Pending"),
            "{}",
            report.decision.summary
        );
    }

    fn codes(r: &crate::report::Report) -> Vec<String> {
        r.diagnostics.iter().map(|d| d.code.clone()).collect()
    }

    #[test]
    fn raise_max_is_offered_with_the_count_it_gives() {
        // 4 pods at 150 % of 50 %: ceil(3 × 4) = 12, above maxReplicas 6.
        let mut s = scenario(vec![cpu_utilization(50)], 4, 1500);
        s.hpa.max_replicas = 6;
        let d = find(&s, "AtMaxReplicas");
        assert_eq!(
            d.fix,
            "raise maxReplicas to 12 → 8 replicas at about 75 % if the load stays as it is"
        );
    }

    #[test]
    fn raise_max_names_the_node_group_when_the_pods_would_stay_pending() {
        let mut s = scenario(vec![cpu_utilization(50)], 4, 1500);
        s.hpa.max_replicas = 6;
        s.nodes = Some(node_group(3));
        let d = find(&s, "AtMaxReplicas");
        assert!(
            d.fix.contains("2 of them would stay Pending (the node group is at its max of 3 nodes): raise the node group's max to 4 nodes"),
            "{}",
            d.fix
        );
    }

    #[test]
    fn lower_min_is_offered_only_when_it_moves_the_count_down() {
        // 4 pods at 10 % of 50 %: 1, below minReplicas 3.
        let mut s = scenario(vec![cpu_utilization(50)], 4, 100);
        s.hpa.min_replicas = 3;
        let d = find(&s, "AtMinReplicas");
        assert!(
            d.fix
                .starts_with("lower minReplicas to 1 → 1 replica at about 40 %"),
            "{}",
            d.fix
        );
    }

    #[test]
    fn raise_max_is_replaced_when_the_rate_limit_pins_the_count_at_max() {
        use crate::scenario::{Behavior, PolicyType, ScalingPolicy, SelectPolicy};
        // The scaleUp policy allows 4 + 2 = 6 = maxReplicas: the reason is TooManyReplicas, but
        // a higher max still gives 6.
        let mut s = scenario(vec![cpu_utilization(50)], 4, 1500);
        s.hpa.max_replicas = 6;
        let mut b = Behavior::api_defaults();
        b.scale_up.select_policy = SelectPolicy::Max;
        b.scale_up.policies = vec![ScalingPolicy {
            policy_type: PolicyType::Pods,
            value: 2,
            period_seconds: 60,
        }];
        s.hpa.behavior = Some(b);
        let d = find(&s, "AtMaxReplicas");
        assert_eq!(
            d.fix,
            "a higher maxReplicas does not move it (maxReplicas 12 still gives 6): the scale-up \
             rate limit allows 6 this sync (raise behavior.scaleUp.policies)"
        );
    }

    #[test]
    fn a_smaller_tolerance_is_offered_with_its_count_or_said_not_to_move_it() {
        // 52 % of 50 %: ratio 1.04 → tolerance 0.03 gives ceil(1.04 × 3) = 4.
        let s = scenario(vec![cpu_utilization(50)], 3, 520);
        let d = find(&s, "WithinTolerance");
        assert_eq!(
            d.fix,
            "nothing to fix; to react to smaller changes set behavior.scaleUp.tolerance to 0.03 → 4 replicas"
        );
        // At 1.32 the per-HPA tolerance is not read: the controller's flag is the lever.
        let mut s = scenario(vec![cpu_utilization(50)], 3, 520);
        s.config.kube_minor = 32;
        let d = find(&s, "WithinTolerance");
        assert!(
            d.fix
                .contains("--horizontal-pod-autoscaler-tolerance to 0.03"),
            "{}",
            d.fix
        );
        // Near the bottom, a window holds the count: no tolerance moves it.
        let mut s = scenario(vec![cpu_utilization(50)], 3, 480);
        s.memory = Some(crate::calc::testing::recommended(3, 60));
        let d = find(&s, "WithinTolerance");
        assert!(
            d.fix.contains("would not move the count this sync"),
            "{}",
            d.fix
        );
    }

    #[test]
    fn scale_up_faster_is_replaced_when_the_new_pods_cannot_be_scheduled() {
        // 2 pods at 300 % of 50 %: 12, the legacy limit gives 4.
        let mut s = scenario(vec![cpu_utilization(50)], 2, 3000);
        let d = find(&s, "RateLimited");
        assert!(d.fix.contains("to scale up faster"), "{}", d.fix);
        s.nodes = Some(node_group(3));
        let d = find(&s, "RateLimited");
        assert!(
            d.fix.starts_with("scaling up faster does not help: at 12 replicas 6 pod(s) would stay Pending (the node group is at its max of 3 nodes); raise the node group's max to 6 nodes"),
            "{}",
            d.fix
        );
    }
}
