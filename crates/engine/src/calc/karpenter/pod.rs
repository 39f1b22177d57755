//! The Pending pods as the scheduler holds them: requests, requirements from the pod's node
//! selector and affinity (`NewPodRequirements`, `NewStrictPodRequirements`), tolerations
//! (`Taints.ToleratesPod`), host ports (`HostPortUsage`, `hostportusage.go`) and preference
//! relaxation (`Preferences.Relax`).

use std::sync::Arc;

use super::catalog::Res;
use super::requirements::{Operator, Requirement, Requirements, is_in, requirement};
use crate::scenario::karpenter::{HostPort, PodConstraints, SelectorRequirement};
use crate::scenario::node_groups::{Taint, Toleration};

/// One Pending pod.
#[derive(Debug, Clone, PartialEq)]
pub struct Pod {
    pub name: String,
    /// Index of the pod's group (its workload).
    pub group: usize,
    /// Requests in milli-units, `pods: 1000` included.
    pub requests: Res,
    /// Shared by every pod of the workload until relaxation changes one pod's copy.
    pub constraints: Arc<PodConstraints>,
}

// Port of HostPort.Matches (pkg/scheduling/hostportusage.go): same protocol and port, and
// equal IPs unless one is unspecified (`0.0.0.0`, `::`; an empty hostIP is `0.0.0.0`).
pub fn host_port_matches(a: &HostPort, b: &HostPort) -> bool {
    let unspecified = |ip: &str| matches!(ip, "" | "0.0.0.0" | "::");
    let proto = |p: &str| {
        if p.is_empty() {
            "TCP".to_string()
        } else {
            p.to_string()
        }
    };
    proto(&a.protocol) == proto(&b.protocol)
        && a.port == b.port
        && (a.ip == b.ip || unspecified(&a.ip) || unspecified(&b.ip))
}

// Port of HostPortUsage.Conflicts (pkg/scheduling/hostportusage.go): a port the node's pods
// already hold.
pub fn host_ports_conflict(used: &[HostPort], wanted: &[HostPort]) -> Result<(), String> {
    for w in wanted {
        if let Some(u) = used.iter().find(|u| host_port_matches(w, u)) {
            return Err(format!(
                "checking host port usage, pod hostport conflicts with existing hostport configuration (pod-hostport={} {} {}, existing-hostport={} {} {})",
                w.ip, w.port, w.protocol, u.ip, u.port, u.protocol
            ));
        }
    }
    Ok(())
}

pub fn selector_requirement(s: &SelectorRequirement) -> Requirement {
    let op = Operator::from_name(&s.operator).unwrap_or(Operator::In);
    requirement(&s.key, op, s.min_values, &s.values)
}

fn from_terms(terms: &[SelectorRequirement]) -> Requirements {
    let mut out = Requirements::default();
    for t in terms {
        out.add(selector_requirement(t));
    }
    out
}

// Port of newPodRequirements (pkg/scheduling/requirements.go): the node selector, the heaviest
// preferred term (unless `strict`), then the first required term.
pub fn pod_requirements(c: &PodConstraints, strict: bool) -> Requirements {
    let mut out = Requirements::default();
    for (k, v) in &c.node_selector {
        out.add(is_in(k, &[v]));
    }
    if !strict
        && let Some((_, terms)) = (c.preferred_terms.iter())
            .enumerate()
            .max_by_key(|(i, (w, _))| (*w, std::cmp::Reverse(*i)))
            .map(|(_, t)| t)
    {
        out.add_all(&from_terms(terms));
    }
    if let Some(first) = c.required_terms.first() {
        out.add_all(&from_terms(first));
    }
    out
}

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

// Port of Taints.ToleratesPod (pkg/scheduling/taints.go): every taint (PreferNoSchedule
// included) must be tolerated.
pub fn tolerates_pod(taints: &[Taint], tolerations: &[Toleration]) -> Result<(), String> {
    for taint in taints {
        if !tolerations.iter().any(|t| tolerates(t, taint)) {
            let value = if taint.value.is_empty() {
                String::new()
            } else {
                format!("={}", taint.value)
            };
            return Err(format!(
                "did not tolerate taint (taint={}{value}:{})",
                taint.key, taint.effect
            ));
        }
    }
    Ok(())
}

/// The toleration `toleratePreferNoScheduleTaints` adds.
fn prefer_no_schedule() -> Toleration {
    Toleration {
        key: String::new(),
        operator: "Exists".into(),
        value: String::new(),
        effect: "PreferNoSchedule".into(),
    }
}

// Port of Preferences.Relax (pkg/controllers/provisioning/scheduling/preferences.go): drops one
// soft constraint, in upstream's order; `None` when nothing is left to relax.
pub fn relax(c: &mut PodConstraints, tolerate_prefer_no_schedule: bool) -> Option<String> {
    // removeRequiredNodeAffinityTerm: only while another term remains.
    if c.required_terms.len() > 1 {
        c.required_terms.remove(0);
        return Some("removing: requiredDuringSchedulingIgnoredDuringExecution[0]".into());
    }
    // removePreferredPodAffinityTerm, then removePreferredPodAntiAffinityTerm: the heaviest
    // preferred term of each (a stable sort by weight, descending).
    for anti in [false, true] {
        let heaviest = (c.pod_affinity.iter().enumerate())
            .filter_map(|(i, t)| {
                t.preferred_weight
                    .filter(|_| t.anti == anti)
                    .map(|w| (i, w))
            })
            .fold(None, |best: Option<(usize, i32)>, (i, w)| match best {
                Some((_, bw)) if bw >= w => best,
                _ => Some((i, w)),
            });
        if let Some((i, _)) = heaviest {
            c.pod_affinity.remove(i);
            let what = if anti {
                "podAntiAffinity"
            } else {
                "podAffinity"
            };
            return Some(format!(
                "removing: spec.affinity.{what}.preferredDuringSchedulingIgnoredDuringExecution[0]"
            ));
        }
    }
    // removePreferredNodeAffinityTerm: the heaviest first (a stable sort by weight).
    if !c.preferred_terms.is_empty() {
        c.preferred_terms
            .sort_by_key(|(w, _)| std::cmp::Reverse(*w));
        c.preferred_terms.remove(0);
        return Some("removing: preferredDuringSchedulingIgnoredDuringExecution[0]".into());
    }
    // removeTopologySpreadScheduleAnyway: swap-remove the first ScheduleAnyway.
    if let Some(i) = c.topology_spread.iter().position(|t| !t.do_not_schedule) {
        c.topology_spread.swap_remove(i);
        return Some("removing: spec.topologySpreadConstraints".into());
    }
    // toleratePreferNoScheduleTaints, when a NodePool has such a taint.
    if tolerate_prefer_no_schedule {
        let t = prefer_no_schedule();
        let covered = |x: &Toleration| {
            x.operator == "Exists"
                && x.key.is_empty()
                && (x.effect.is_empty() || x.effect == t.effect)
        };
        if !c.tolerations.iter().any(covered) {
            c.tolerations.push(t);
            return Some("adding: toleration for PreferNoSchedule taints".into());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(key: &str, op: &str, values: &[&str]) -> SelectorRequirement {
        SelectorRequirement {
            key: key.into(),
            operator: op.into(),
            values: values.iter().map(|s| (*s).to_string()).collect(),
            min_values: None,
        }
    }

    #[test]
    fn pod_requirements_take_the_heaviest_preference_and_the_first_required_term() {
        let c = PodConstraints {
            preferred_terms: vec![
                (1, vec![sel("a", "In", &["1"])]),
                (5, vec![sel("b", "In", &["2"])]),
            ],
            required_terms: vec![vec![sel("c", "In", &["3"])], vec![sel("d", "In", &["4"])]],
            ..PodConstraints::default()
        };
        let r = pod_requirements(&c, false);
        assert!(r.has("b") && r.has("c") && !r.has("a") && !r.has("d"));
        assert!(!pod_requirements(&c, true).has("b"));
    }

    #[test]
    fn relax_drops_required_terms_before_preferences() {
        let mut c = PodConstraints {
            preferred_terms: vec![(1, vec![sel("a", "In", &["1"])])],
            required_terms: vec![vec![sel("c", "In", &["3"])], vec![sel("d", "In", &["4"])]],
            ..PodConstraints::default()
        };
        assert!(relax(&mut c, false).is_some());
        assert_eq!(c.required_terms.len(), 1);
        assert!(relax(&mut c, false).is_some());
        assert!(c.preferred_terms.is_empty());
        assert!(relax(&mut c, false).is_none());
    }

    #[test]
    fn prefer_no_schedule_taints_must_be_tolerated_until_relaxed() {
        let taint = Taint {
            key: "k".into(),
            value: String::new(),
            effect: "PreferNoSchedule".into(),
        };
        let mut c = PodConstraints::default();
        assert!(tolerates_pod(std::slice::from_ref(&taint), &c.tolerations).is_err());
        assert!(relax(&mut c, true).is_some());
        assert!(tolerates_pod(&[taint], &c.tolerations).is_ok());
    }
}
