//! Several node groups in the simulation (`simulate --node-groups`): each Cluster Autoscaler
//! loop asks the single sync's loop-by-loop plan (`calc::node_groups::plan`) for its first loop
//! only. The expander chain picks one group, that group gets its nodes, and the pods they do not
//! take wait for the next loop (`ScaleUpOrchestrator.ScaleUp` scales one group per `RunOnce`).
//! A tie the chain leaves (`random`) is listed, never broken: no node is added while it lasts.

use crate::calc::node_groups::plan;
use crate::calc::nodes;
use crate::scenario::node_groups::{NodeGroupsInput, PendingPods};

use super::engine::{Engine, NodeState, SimNode, clock, count, secs};

/// Each group's current size, as Ready nodes of its template.
pub(super) fn start_nodes(groups: &NodeGroupsInput) -> Vec<SimNode> {
    let mut out = Vec::new();
    for (g, spec) in groups.groups.iter().enumerate() {
        for _ in 0..spec.current_size.max(0) {
            let id = u32::try_from(out.len() + 1).unwrap_or(u32::MAX);
            out.push(SimNode {
                id,
                slot: nodes::fresh_slot(
                    format!("node-{id}"),
                    &spec.allocatable,
                    &groups.daemonsets,
                ),
                state: NodeState::Ready,
                unneeded_since: None,
                group: Some(g),
                claim: None,
            });
        }
    }
    out
}

impl Engine<'_> {
    /// The groups as this loop sees them: each one's size is its nodes in the simulation.
    fn groups_now(&self, groups: &NodeGroupsInput) -> NodeGroupsInput {
        let mut now = groups.clone();
        for (g, spec) in now.groups.iter_mut().enumerate() {
            spec.current_size = count(self.nodes.iter().filter(|n| n.group == Some(g)).count());
        }
        now
    }

    // Mirrors ScaleUpOrchestrator.ScaleUp (core/scaleup/orchestrator/orchestrator.go) over
    // several groups: the options, the expander chain's one choice, the nodes it adds. True when
    // it requested nodes.
    pub(super) fn scale_up_groups(
        &mut self,
        t: i64,
        groups: &NodeGroupsInput,
        remaining: i64,
    ) -> bool {
        let input = self.groups_now(groups);
        let pending = PendingPods {
            request: self.setup.pod_request.clone(),
            count: remaining,
            node_selector: Vec::new(),
            tolerations: Vec::new(),
        };
        let planned = plan::plan(&input, std::slice::from_ref(&pending));
        let Some(first) = planned.report.loops.first() else {
            return false;
        };
        let chosen = first
            .chosen
            .as_ref()
            .and_then(|name| input.groups.iter().position(|g| &g.name == name));
        let added = usize::try_from(first.nodes_added).unwrap_or(0);
        let Some(g) = chosen.filter(|_| added > 0) else {
            let why = if first.tied.is_empty() {
                format!(
                    "{remaining} pod(s) fit on no node it may add: {}",
                    planned.report.outcome
                )
            } else {
                format!(
                    "{remaining} unschedulable pod(s) wait: the expander chain ends in a tie \
                     between {}; every tied group is listed, none is picked",
                    first.tied.join(", ")
                )
            };
            self.note_once(t, why);
            return false;
        };
        self.ca_note = None;
        let steps: Vec<String> = first
            .steps
            .iter()
            .map(|s| format!("{} keeps {}", s.expander, s.kept.join(", ")))
            .collect();
        self.add_group_nodes(t, groups, g, added, remaining, &steps.join("; "));
        true
    }

    /// Requests `added` nodes of group `g`'s template for `remaining` pods.
    fn add_group_nodes(
        &mut self,
        t: i64,
        groups: &NodeGroupsInput,
        g: usize,
        added: usize,
        remaining: i64,
        why: &str,
    ) {
        let Some(spec) = groups.groups.get(g) else {
            return;
        };
        let ready_at = t + self.setup.timing.node_startup.millis();
        let mut names = Vec::new();
        for _ in 0..added {
            self.next_node += 1;
            let name = format!("node-{}", self.next_node);
            names.push(name.clone());
            self.nodes.push(SimNode {
                id: self.next_node,
                slot: nodes::fresh_slot(name, &spec.allocatable, &groups.daemonsets),
                state: NodeState::Booting { ready_at },
                unneeded_since: None,
                group: Some(g),
                claim: None,
            });
        }
        self.last_scale_up = Some(t);
        self.event(
            t,
            "clusterAutoscaler",
            format!(
                "scales node group {} ({why}): requests {added} node(s) ({}, Ready at {}) for \
                 {remaining} unschedulable pod(s); the pods they do not take wait for the next loop",
                spec.name,
                names.join(", "),
                clock(secs(ready_at))
            ),
        );
    }

    /// Says `note` once per change of it.
    fn note_once(&mut self, t: i64, note: String) {
        if self.ca_note.as_ref() != Some(&note) {
            self.event(t, "clusterAutoscaler", note.clone());
        }
        self.ca_note = Some(note);
    }

    /// The node's group is at its minimum size once the nodes in `deleted` are gone.
    pub(super) fn group_at_min(&self, node: &SimNode, deleted: &[u32]) -> bool {
        let (Some(g), Some(groups)) = (
            node.group,
            self.setup.nodes.as_ref().and_then(|n| n.groups.as_ref()),
        ) else {
            return false;
        };
        let min = groups.groups.get(g).map_or(0, |s| s.min_size);
        let left = self
            .nodes
            .iter()
            .filter(|n| n.group == Some(g) && !deleted.contains(&n.id))
            .count();
        count(left) <= min
    }
}

#[cfg(test)]
mod tests {
    use crate::calc::node_groups::testing::{group, input};
    use crate::calc::simulate::run;
    use crate::calc::testing::{on_nodes, simulation};
    use crate::scenario::simulation::Setup;

    /// `simulation(load)` over the groups: `small` (2 cores, 3 pods of 500m beside a 100m
    /// DaemonSet) and `big` (8 cores), with `small_now` / `small_min` nodes of `small`.
    fn two_groups(load: &[(i64, i64)], small_now: i64, small_min: i64) -> Setup {
        let mut setup = on_nodes(simulation(load, 2), 0);
        let mut small = group("small", 2000, 8);
        (small.current_size, small.min_size) = (small_now, small_min);
        let mut groups = input(vec![small, group("big", 8000, 32)]);
        groups.pod_request = setup.pod_request.clone();
        if let Some(nodes) = setup.nodes.as_mut() {
            groups.daemonsets = nodes.input.daemonsets.clone();
            nodes.groups = Some(groups);
        }
        setup
    }

    fn ca_events(setup: &Setup) -> Vec<(i64, String)> {
        run(setup)
            .events
            .into_iter()
            .filter(|e| e.source == "clusterAutoscaler")
            .map(|e| (e.time, e.message))
            .collect()
    }

    #[test]
    fn each_loop_scales_the_one_group_least_waste_picks() {
        // 4500m at 50 %: 9 pods, of which small's 1 node takes 3. Least-waste: 2 more small
        // nodes fill 6 of 6 slots; one big node 6 of 15.
        let events = ca_events(&two_groups(&[(0, 4500)], 1, 0));
        let scale_ups: Vec<&String> = events
            .iter()
            .map(|(_, m)| m)
            .filter(|m| m.starts_with("scales node group"))
            .collect();
        assert!(!scale_ups.is_empty(), "{events:?}");
        assert!(
            scale_ups
                .iter()
                .all(|m| m.starts_with("scales node group small (least-waste keeps small)")),
            "{scale_ups:?}"
        );
    }

    #[test]
    fn scale_down_keeps_each_group_at_its_own_minimum() {
        // 2 pods of 500m on 2 small nodes: both under 50 %, each one's pods fit on the other.
        let held = ca_events(&two_groups(&[(0, 500)], 2, 2));
        assert!(
            held.iter().all(|(_, m)| !m.starts_with("removes")),
            "{held:?}"
        );
        let free = ca_events(&two_groups(&[(0, 500)], 2, 0));
        assert!(
            free.iter().any(|(_, m)| m.starts_with("removes")),
            "{free:?}"
        );
    }
}
