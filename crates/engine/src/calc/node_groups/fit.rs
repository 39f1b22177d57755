//! Which Pending pods a group's template node could take at all (`SchedulablePodGroups` in
//! `core/scaleup/orchestrator`): the scheduler's filters on a fresh node with its DaemonSets.

use crate::calc::nodes::fresh_slot;
use crate::scenario::Capacity;
use crate::scenario::node_groups::{NodeGroupSpec, PendingPods, Taint, Toleration};

// Port of Toleration.ToleratesTaint (k8s.io/api/core/v1/toleration.go).
fn tolerates(t: &Toleration, taint: &Taint) -> bool {
    if !t.effect.is_empty() && t.effect != taint.effect {
        return false;
    }
    if !t.key.is_empty() && t.key != taint.key {
        return false;
    }
    match t.operator.as_str() {
        "Exists" => true,
        "" | "Equal" => t.value == taint.value,
        _ => false,
    }
}

/// The first taint the pods do not tolerate (TaintToleration's filter: NoSchedule and
/// NoExecute only).
pub fn untolerated<'a>(group: &'a NodeGroupSpec, pods: &PendingPods) -> Option<&'a Taint> {
    group
        .taints
        .iter()
        .filter(|t| t.effect == "NoSchedule" || t.effect == "NoExecute")
        .find(|taint| !pods.tolerations.iter().any(|t| tolerates(t, taint)))
}

/// Why the group's template node takes none of these pods, or `None` when it takes them.
pub fn unfit_reason(
    group: &NodeGroupSpec,
    daemonsets: &Capacity,
    pods: &PendingPods,
) -> Option<String> {
    if let Some(taint) = untolerated(group, pods) {
        return Some(format!(
            "untolerated taint {}={}:{}",
            taint.key, taint.value, taint.effect
        ));
    }
    // NodeAffinity's nodeSelector: every label, with its value.
    if let Some((k, v)) = pods
        .node_selector
        .iter()
        .find(|(k, v)| !group.labels.iter().any(|(lk, lv)| lk == k && lv == v))
    {
        return Some(format!("node selector {k}={v} does not match"));
    }
    if !fresh_slot(String::new(), &group.allocatable, daemonsets).fits(&pods.request) {
        return Some("the pod does not fit a fresh node after the DaemonSets".to_string());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::node_groups::testing::{group, pods};

    #[test]
    fn no_schedule_taints_need_a_toleration_prefer_no_schedule_does_not() {
        let mut g = group("gpu", 4000, 16);
        g.taints.push(Taint {
            key: "nvidia.com/gpu".into(),
            value: "true".into(),
            effect: "NoSchedule".into(),
        });
        let mut p = pods(500, 1, 1);
        assert!(unfit_reason(&g, &Capacity::default(), &p).is_some());
        p.tolerations.push(Toleration {
            key: "nvidia.com/gpu".into(),
            operator: "Exists".into(),
            value: String::new(),
            effect: String::new(),
        });
        assert_eq!(unfit_reason(&g, &Capacity::default(), &p), None);
        g.taints[0].effect = "PreferNoSchedule".into();
        p.tolerations.clear();
        assert_eq!(unfit_reason(&g, &Capacity::default(), &p), None);
    }

    #[test]
    fn a_node_selector_needs_every_label_and_a_pod_must_fit_a_fresh_node() {
        let mut g = group("a", 4000, 16);
        g.labels.push(("pool".into(), "web".into()));
        let mut p = pods(500, 1, 1);
        p.node_selector.push(("pool".into(), "batch".into()));
        assert!(unfit_reason(&g, &Capacity::default(), &p).is_some());
        p.node_selector[0].1 = "web".into();
        assert_eq!(unfit_reason(&g, &Capacity::default(), &p), None);
        assert!(unfit_reason(&g, &Capacity::default(), &pods(4001, 1, 1)).is_some());
    }
}
