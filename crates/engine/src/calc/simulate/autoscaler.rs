//! The Cluster Autoscaler's loop (§8.2 step 6), every `--scan-interval`: a scale-up for the
//! unschedulable pods with the binpacking estimator of `calc::nodes`, then the scale-down: nodes
//! at or under the utilization threshold whose pods fit elsewhere become unneeded, and go once
//! they have been unneeded for long enough, outside the cooldown (reference §4.3). Mirrors
//! `StaticAutoscaler.RunOnce` (`cluster-autoscaler/core/static_autoscaler.go`).

use crate::calc::nodes::{self, Slot};
use crate::scenario::Resources;
use crate::scenario::simulation::NodeGroup;

use super::engine::{Engine, NodeState, PodState, SimNode, clock, count, node_index, secs};

/// The Cluster Autoscaler skips a scale-up while every unschedulable pod is younger than this
/// (`unschedulablePodWithGpuTimeBuffer`'s non-GPU counterpart in `static_autoscaler.go`).
const NEW_POD_WAIT_MS: i64 = 2_000;

/// `--max-scale-down-parallelism` and `--max-drain-parallelism` defaults.
const MAX_SCALE_DOWN_PARALLELISM: usize = 10;
const MAX_DRAIN_PARALLELISM: usize = 1;

/// The scheduler retries pods the Cluster Autoscaler evicted at the next tick.
const NEXT_TICK_MS: i64 = 1_000;

impl Engine<'_> {
    // Mirrors StaticAutoscaler.RunOnce (core/static_autoscaler.go): a scale-up for the
    // unschedulable pods, then the scale-down, which a scale-up in the same loop holds off.
    pub(super) fn cluster_autoscaler(&mut self, t: i64) {
        let Some(group) = self.setup.nodes.as_ref() else {
            return;
        };
        let pending: Vec<i64> = self
            .pods
            .iter()
            .filter(|p| p.state == PodState::Pending)
            .map(|p| p.created)
            .collect();
        let cooldown = if pending.is_empty() {
            self.ca_note = None;
            false
        } else if pending.iter().all(|&c| t - c < NEW_POD_WAIT_MS) {
            // Every unschedulable pod is brand new: wait one loop, and no scale-down in it.
            self.event(
                t,
                "clusterAutoscaler",
                format!(
                    "waits one loop: all {} unschedulable pod(s) are under 2s old",
                    pending.len()
                ),
            );
            true
        } else {
            let remaining = count(pending.len()).saturating_sub(self.free_room()).max(0);
            if remaining > 0 {
                match &group.groups {
                    Some(groups) => self.scale_up_groups(t, groups, remaining),
                    None => self.scale_up(t, group, remaining),
                }
            } else {
                self.ca_note = None;
                false
            }
        };
        self.scale_down(t, cooldown);
    }

    // Mirrors the filter-out-schedulable pod list processor
    // (core/podlistprocessor/filter_out_schedulable.go): the pods that fit in the free room of
    // the Ready nodes, then of the nodes still booting, need no new node.
    fn free_room(&self) -> i64 {
        let request = &self.setup.pod_request;
        self.nodes
            .iter()
            .filter(|n| n.state == NodeState::Ready)
            .chain(self.nodes.iter().filter(|n| n.state != NodeState::Ready))
            .filter(|n| n.slot.schedulable)
            .map(|n| room_for(&n.slot, request))
            .sum()
    }

    // Mirrors ScaleUpOrchestrator.ScaleUp (core/scaleup/orchestrator/orchestrator.go): the
    // binpacking estimate for the `remaining` pods within the limits on new nodes. True when it
    // requested nodes.
    fn scale_up(&mut self, t: i64, group: &NodeGroup, remaining: i64) -> bool {
        let request = &self.setup.pod_request;
        let (limit, limited_by) = new_node_limit(group, count(self.nodes.len()));
        let estimate = nodes::estimate(&[(request.clone(), remaining)], &group.input, limit);
        let added = estimate.nodes.len();
        let placed = estimate.placed.first().copied().unwrap_or(0);
        if added > 0 {
            self.add_nodes(t, group, added, remaining);
        }
        self.note_unplaced(t, group, remaining - placed, limited_by);
        added > 0
    }

    /// Requests `added` nodes of the group's template for `remaining` pods: they boot for the
    /// node startup time.
    fn add_nodes(&mut self, t: i64, group: &NodeGroup, added: usize, remaining: i64) {
        let ready_at = t + self.setup.timing.node_startup.millis();
        let mut names = Vec::new();
        for _ in 0..added {
            self.next_node += 1;
            let name = format!("node-{}", self.next_node);
            names.push(name.clone());
            self.nodes.push(SimNode {
                id: self.next_node,
                slot: nodes::template_slot(name, &group.input),
                state: NodeState::Booting { ready_at },
                unneeded_since: None,
                group: None,
                claim: None,
            });
        }
        self.last_scale_up = Some(t);
        self.event(
            t,
            "clusterAutoscaler",
            format!(
                "requests {added} node(s) ({}, Ready at {}) for {remaining} unschedulable pod(s)",
                names.join(", "),
                clock(secs(ready_at))
            ),
        );
    }

    /// Why `left` pods fit on no node the scale-up may add, said once per change of it.
    fn note_unplaced(&mut self, t: i64, group: &NodeGroup, left: i64, limited_by: String) {
        let request = &self.setup.pod_request;
        let note = (left > 0).then(|| {
            let why = if room_for(&nodes::template_slot(String::new(), &group.input), request) == 0
            {
                "the pod is larger than a node of the group".to_string()
            } else {
                limited_by
            };
            format!("{left} pod(s) fit on no node it may add: {why}")
        });
        if note.is_some() && note != self.ca_note {
            let text = note.clone().unwrap_or_default();
            self.event(t, "clusterAutoscaler", text);
        }
        self.ca_note = note;
    }

    /// Scale-down tracking every loop, then deletion unless in cooldown (reference §4.3).
    fn scale_down(&mut self, t: i64, cooldown: bool) {
        let Some(group) = self.setup.nodes.as_ref() else {
            return;
        };
        let movable = self.movable_pods();
        let removable = self.unneeded_nodes(group, &movable);
        self.update_unneeded(t, group, &removable);
        // isScaleDownInCooldown (static_autoscaler.go): a scale-up in this loop or less than
        // --scale-down-delay-after-add ago.
        let delay = self.setup.timing.scale_down_delay_after_add.millis();
        if cooldown || self.last_scale_up.is_some_and(|last| last + delay > t) {
            return;
        }
        let (deleted, blocked_by_min) = self.nodes_to_delete(t, group, &movable);
        self.delete_nodes(t, group, &deleted, blocked_by_min);
    }

    /// Pods that must move off each node (terminating pods need no new home), counted in one
    /// pass over the pods.
    fn movable_pods(&self) -> Vec<i64> {
        let mut movable = vec![0i64; self.nodes.len()];
        for p in self.pods.iter().filter(|p| p.active()) {
            if let Some(n) = (p.node)
                .and_then(|id| node_index(&self.nodes, id))
                .and_then(|i| movable.get_mut(i))
            {
                *n += 1;
            }
        }
        movable
    }

    // Mirrors Planner.categorizeNodes (core/scaledown/planner/planner.go): a Ready node at or
    // under the utilization threshold is unneeded when its `movable` pods fit on the other nodes.
    fn unneeded_nodes(&self, group: &NodeGroup, movable: &[i64]) -> Vec<bool> {
        let request = &self.setup.pod_request;
        let threshold = group.input.scale_down_utilization_threshold;
        let size = count(self.nodes.len());
        let mut room = Rooms::new(self.nodes.iter().map(|n| {
            if n.state == NodeState::Ready && n.slot.schedulable {
                room_for(&n.slot, request)
            } else {
                0
            }
        }));
        // The Ready nodes as (index, node, pods to move).
        let mut order: Vec<(usize, &SimNode, i64)> = self
            .nodes
            .iter()
            .zip(movable)
            .enumerate()
            .filter(|(_, (n, _))| n.state == NodeState::Ready)
            .map(|(i, (n, &pods))| (i, n, pods))
            .collect();
        // Empty nodes first, then the ones unneeded in the previous loop, then the rest.
        order.sort_by_key(|&(i, n, _)| (n.slot.workload_pods > 0, n.unneeded_since.is_none(), i));
        let mut removable = vec![false; self.nodes.len()];
        if size > group.min {
            for &(i, n, pods) in &order {
                if n.slot.utilization() > threshold || self.group_at_min(n, &[]) {
                    continue;
                }
                // The node's pods must fit on the other nodes; a fit is committed, so later
                // candidates cannot count on the same room.
                if room.move_off(i, pods)
                    && let Some(flag) = removable.get_mut(i)
                {
                    *flag = true;
                }
            }
        }
        removable
    }

    // Mirrors unneeded.Nodes.Update (core/scaledown/unneeded/nodes.go): a node keeps the time it
    // was first found unneeded, and loses it when it is needed again.
    fn update_unneeded(&mut self, t: i64, group: &NodeGroup, removable: &[bool]) {
        let threshold = group.input.scale_down_utilization_threshold;
        let size = count(self.nodes.len());
        let mut newly = Vec::new();
        let mut again = Vec::new();
        for (n, &r) in self.nodes.iter_mut().zip(removable) {
            match (r, n.unneeded_since) {
                (true, None) => {
                    n.unneeded_since = Some(t);
                    newly.push(format!(
                        "{} (utilization {:.0}%)",
                        n.slot.name,
                        n.slot.utilization() * 100.0
                    ));
                }
                (false, Some(_)) => {
                    n.unneeded_since = None;
                    again.push(n.slot.name.clone());
                }
                _ => {}
            }
        }
        if !newly.is_empty() {
            let threshold_pct = threshold * 100.0;
            self.event(
                t,
                "clusterAutoscaler",
                format!(
                    "unneeded from now: {}; at or under the {threshold_pct:.0}% threshold and \
                     the pods fit elsewhere",
                    newly.join(", ")
                ),
            );
        }
        // A group at its minimum size has no candidates: that was said when it was reached.
        if !again.is_empty() && size > group.min {
            self.event(
                t,
                "clusterAutoscaler",
                format!("needed again: {}", again.join(", ")),
            );
        }
    }

    // Mirrors Planner.NodesToDelete (core/scaledown/planner/planner.go): the nodes unneeded for
    // longer than --scale-down-unneeded-time, empty ones first, within the parallelism limits
    // and the node group's minimum size (true when the minimum held one back).
    fn nodes_to_delete(&self, t: i64, group: &NodeGroup, movable: &[i64]) -> (Vec<u32>, bool) {
        let size = count(self.nodes.len());
        let unneeded_time = group.input.scale_down_unneeded_time.millis();
        // (pods to move?, node id) of the nodes unneeded long enough, in node order.
        let mut eligible: Vec<(bool, u32)> = self
            .nodes
            .iter()
            .zip(movable)
            .filter(|(n, _)| {
                n.unneeded_since
                    .is_some_and(|since| since + unneeded_time < t)
            })
            .map(|(n, &pods)| (pods > 0, n.id))
            .collect();
        // Empty nodes first; the sort is stable, so node order within each kind.
        eligible.sort_by_key(|&(drain, _)| drain);
        let mut deleted: Vec<u32> = Vec::new();
        let mut drains = 0;
        let mut blocked_by_min = false;
        for (drain, id) in eligible {
            if size - count(deleted.len()) <= group.min {
                blocked_by_min = true;
                break;
            }
            if node_index(&self.nodes, id)
                .and_then(|i| self.nodes.get(i))
                .is_some_and(|n| self.group_at_min(n, &deleted))
            {
                blocked_by_min = true;
                continue;
            }
            if deleted.len() >= MAX_SCALE_DOWN_PARALLELISM {
                break;
            }
            if drain {
                if drains >= MAX_DRAIN_PARALLELISM {
                    continue;
                }
                drains += 1;
            }
            deleted.push(id);
        }
        (deleted, blocked_by_min)
    }

    // Mirrors Actuator.StartDeletion (core/scaledown/actuator/actuator.go): the nodes go and
    // their pods are evicted.
    fn delete_nodes(&mut self, t: i64, group: &NodeGroup, deleted: &[u32], blocked_by_min: bool) {
        for id in deleted {
            let name = self.node_name(*id);
            let evicted = self
                .pods
                .iter()
                .filter(|p| p.node == Some(*id) && p.active())
                .count();
            let what = if evicted == 0 {
                "empty".to_string()
            } else {
                format!("{evicted} pod(s) evicted and recreated")
            };
            self.event(t, "clusterAutoscaler", format!("removes {name} ({what})"));
        }
        if blocked_by_min && !self.min_size_note {
            let why = if group.groups.is_some() {
                "their node group is at its minimum size".to_string()
            } else {
                format!("the node group is at its minimum size {}", group.min)
            };
            self.event(
                t,
                "clusterAutoscaler",
                format!("keeps the other unneeded node(s): {why}"),
            );
        }
        self.min_size_note = blocked_by_min;
        if deleted.is_empty() {
            return;
        }
        // Evicted pods are deleted at once; the ReplicaSet recreates them as Pending pods.
        self.remove_pods(|p| p.node.is_some_and(|n| deleted.contains(&n)));
        self.nodes.retain(|n| !deleted.contains(&n.id));
        let before = self.pods.len();
        self.replicaset(t);
        if self.pods.len() > before {
            self.extra_tick = Some(t + NEXT_TICK_MS);
        }
    }
}

// The Cluster Autoscaler's --max-nodes-per-scaleup first, as in a single sync, then the node
// group's maximum size and --max-nodes-total: how many nodes a scale-up may add to a cluster of
// `size`, and the limit that says so.
fn new_node_limit(group: &NodeGroup, size: i64) -> (i64, String) {
    let mut limit = nodes::MAX_NODES_PER_SCALE_UP;
    let mut limited_by = format!("--max-nodes-per-scaleup ({limit})");
    for (max, name) in [
        (group.input.node_group_max, "the node group's maximum size"),
        (group.input.max_nodes_total, "--max-nodes-total"),
    ] {
        if let Some(max) = max {
            let room = max.saturating_sub(size).max(0);
            if room < limit {
                limit = room;
                limited_by = format!("{name} ({max})");
            }
        }
    }
    (limit, limited_by)
}

/// How many more pods of `request` fit on the node: the fit rule in closed form for identical
/// pods (`pods_per_node` with the node's own requests in place of the DaemonSets').
fn room_for(slot: &Slot, request: &Resources) -> i64 {
    nodes::pods_per_node(&slot.allocatable, &slot.requested, request).0
}

/// The room each node has left while the scale-down planner commits the moves of the nodes it
/// finds unneeded: a move takes room first-fit, in node order, from every node but the one
/// emptied, which has none once removed. Room only shrinks, so the nodes before `first` have
/// none left, and a candidate whose pods do not fit is told so by the total alone: each node is
/// passed over once in a whole loop, where trying each candidate over every node would be
/// quadratic in the node count.
struct Rooms {
    room: Vec<i64>,
    total: i128,
    first: usize,
}

impl Rooms {
    fn new(room: impl Iterator<Item = i64>) -> Rooms {
        let room: Vec<i64> = room.collect();
        let total = room.iter().map(|&r| i128::from(r)).sum();
        let mut rooms = Rooms {
            room,
            total,
            first: 0,
        };
        rooms.skip_full();
        rooms
    }

    /// Moves `pods` off node `i` onto the others and takes `i`'s room away, if they all fit;
    /// false, and nothing changed, if they do not.
    fn move_off(&mut self, i: usize, pods: i64) -> bool {
        let own = self.room.get(i).copied().unwrap_or(0);
        if self.total - i128::from(own) < i128::from(pods) {
            return false;
        }
        let mut left = pods;
        let mut j = self.first;
        while left > 0 && j < self.room.len() {
            if j != i
                && let Some(r) = self.room.get_mut(j)
            {
                let take = (*r).min(left);
                *r -= take;
                left -= take;
                self.total -= i128::from(take);
            }
            j += 1;
        }
        if let Some(r) = self.room.get_mut(i) {
            self.total -= i128::from(*r);
            *r = 0;
        }
        self.skip_full();
        true
    }

    fn skip_full(&mut self) {
        while self.room.get(self.first).is_some_and(|&r| r == 0) {
            self.first += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Rooms;

    /// The planner's move as it was written first: each candidate tried on a copy of every
    /// node's room, kept when its pods all fit.
    fn move_off_by_trial(room: &mut Vec<i64>, removed: &[bool], i: usize, pods: i64) -> bool {
        let mut trial = room.clone();
        let mut left = pods;
        for ((j, r), &gone) in trial.iter_mut().enumerate().zip(removed) {
            if j == i {
                *r = 0;
                continue;
            }
            if gone || left == 0 {
                continue;
            }
            let take = (*r).min(left);
            *r -= take;
            left -= take;
        }
        if left == 0 {
            *room = trial;
        }
        left == 0
    }

    #[test]
    fn moves_commit_as_the_trial_on_every_node_commits() {
        // Nodes with no room, some room and much room; candidates empty, small and too large,
        // in the planner's order (empty ones first), some of them twice.
        let start = vec![0, 3, 1, 0, 5, 2, 0, 0, 4, 1, 0, 2];
        let candidates = [
            (3, 0),
            (7, 0),
            (0, 2),
            (10, 1),
            (1, 4),
            (5, 9),
            (11, 3),
            (2, 2),
            (8, 1),
            (9, 6),
            (4, 1),
            (6, 0),
        ];
        let mut fast = Rooms::new(start.iter().copied());
        let mut slow = start.clone();
        let mut removed = vec![false; start.len()];
        for (i, pods) in candidates {
            let by_trial = move_off_by_trial(&mut slow, &removed, i, pods);
            assert_eq!(fast.move_off(i, pods), by_trial, "node {i}, {pods} pod(s)");
            assert_eq!(fast.room, slow, "node {i}, {pods} pod(s)");
            removed[i] |= by_trial;
        }
        assert!(removed.iter().any(|r| *r) && removed.iter().any(|r| !*r));
    }
}
