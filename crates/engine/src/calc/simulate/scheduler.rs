//! kube-scheduler (§8.2 step 5): each Pending pod, in creation order, goes to the Ready node
//! with the best LeastAllocated score that fits it (`cluster.rs` scores, `calc::nodes` fits); a
//! pod no node takes stays Pending for the Cluster Autoscaler. The start pods are placed the same
//! way before the run.
//!
//! The workload's pods are identical, so binding one changes only its node's fit and score: the
//! nodes wait in a queue ordered by score, and each pod takes the head and puts that node back
//! with its new score. A pod costs a logarithm of the node count, not a scan of every node, with
//! the same choice as the scan (`pick_node`, kept for the tests that say so).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use crate::scenario::Resources;
use crate::scenario::simulation::Setup;

use super::cluster::least_allocated_score;
use super::engine::{Engine, NodeState, PodState, SimNode};

/// The start pods were created, started and Ready this long before the start: past every
/// initialization period.
const LONG_AGO: i64 = 86_400_000;

impl Engine<'_> {
    /// The start pods: Ready long ago, placed by the scheduler on the existing nodes.
    pub(super) fn place_start_pods(&mut self) {
        let n = usize::try_from(self.setup.start_replicas.max(0)).unwrap_or(0);
        let mut unplaced = 0;
        let mut queue = Queue::new(self.setup, &self.nodes);
        let startup = self.setup.timing.pod_startup.millis();
        for _ in 0..n {
            self.create_pod(-LONG_AGO, self.revision);
            let node = queue.take(self.setup, &mut self.nodes);
            // `create_pod` just pushed this pair.
            let (Some(p), Some(pod)) = (self.pods.last_mut(), self.scenario.pods.last_mut()) else {
                continue;
            };
            match node {
                Some(node) => {
                    p.bind(pod, node, -LONG_AGO, startup);
                    p.make_ready(pod, -LONG_AGO);
                }
                None => {
                    // Said once here, not again by the scheduler.
                    p.waited = true;
                    unplaced += 1;
                }
            }
        }
        if unplaced > 0 {
            self.event(
                0,
                "scheduler",
                format!("{unplaced} of the {n} start pods fit on no existing node: Pending"),
            );
        }
    }

    pub(super) fn schedule(&mut self, t: i64) {
        let setup = self.setup;
        let mut unschedulable = 0;
        let mut after_wait: BTreeMap<u32, usize> = BTreeMap::new();
        let startup = setup.timing.pod_startup.millis();
        // Built at the first Pending pod: a tick with none costs no look at the nodes.
        let mut queue: Option<Queue> = None;
        for (p, pod) in self.pods.iter_mut().zip(&mut self.scenario.pods) {
            if p.state != PodState::Pending {
                continue;
            }
            let queue = queue.get_or_insert_with(|| Queue::new(setup, &self.nodes));
            match queue.take(setup, &mut self.nodes) {
                Some(node) => {
                    if p.waited {
                        *after_wait.entry(node).or_default() += 1;
                    }
                    p.bind(pod, node, t, startup);
                }
                None => {
                    if !p.waited {
                        p.waited = true;
                        unschedulable += 1;
                    }
                }
            }
        }
        for (node, n) in after_wait {
            let name = self.node_name(node);
            self.event(
                t,
                "scheduler",
                format!("{n} waiting pod(s) bound to {name}"),
            );
        }
        if unschedulable > 0 {
            self.event(
                t,
                "scheduler",
                format!("{unschedulable} pod(s) unschedulable: no Ready node has room"),
            );
        }
    }
}

/// The nodes that may take one more of the workload's identical pods, best first: the order of
/// `pick_node`'s scan (the best LeastAllocated score, ties to the lowest index) as a heap of
/// (score, index). Binding a pod changes only its node, which goes back with its new score while
/// it still fits; the other entries stay exact.
enum Queue {
    /// No node information: every pod goes to the unlimited node 0.
    Unlimited,
    Nodes(BinaryHeap<(i64, Reverse<usize>)>),
}

impl Queue {
    fn new(setup: &Setup, nodes: &[SimNode]) -> Queue {
        if setup.nodes.is_none() {
            return Queue::Unlimited;
        }
        let request = &setup.pod_request;
        let heap = (nodes.iter().enumerate())
            .filter_map(|(i, n)| score_if_fits(n, request).map(|s| (s, Reverse(i))))
            .collect();
        Queue::Nodes(heap)
    }

    /// The node the scheduler picks for the next pod, with the pod's room taken there: its id.
    fn take(&mut self, setup: &Setup, nodes: &mut [SimNode]) -> Option<u32> {
        let Queue::Nodes(heap) = self else {
            return Some(0);
        };
        let request = &setup.pod_request;
        let (_, Reverse(i)) = heap.pop()?;
        let node = nodes.get_mut(i)?;
        node.slot.place(request);
        if let Some(score) = score_if_fits(node, request) {
            heap.push((score, Reverse(i)));
        }
        Some(node.id)
    }
}

/// The node's LeastAllocated score for one more pod of `request`, if it is Ready, schedulable
/// and fits it (the filter, then the score, of one scheduling cycle).
fn score_if_fits(n: &SimNode, request: &Resources) -> Option<i64> {
    (n.state == NodeState::Ready && n.slot.schedulable && n.slot.fits(request))
        .then(|| least_allocated_score(&n.slot, request))
}

/// The Ready node with the best LeastAllocated score that fits one more pod (ties to the
/// lowest index); the unlimited node 0 without node information. The scan `Queue` replaces,
/// kept to show the two choose alike.
#[cfg(test)]
fn pick_node(setup: &Setup, nodes: &[SimNode]) -> Option<u32> {
    if setup.nodes.is_none() {
        return Some(0);
    }
    let request = &setup.pod_request;
    let mut best: Option<(i64, u32)> = None;
    for n in nodes {
        let Some(score) = score_if_fits(n, request) else {
            continue;
        };
        if best.is_none_or(|(s, _)| score > s) {
            best = Some((score, n.id));
        }
    }
    best.map(|(_, id)| id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::simulate::engine::start_nodes;
    use crate::calc::testing;
    use crate::scenario::{Capacity, Existing, ExistingNode};

    fn node(name: &str, cpu: i64, used: i64, pods: i64, schedulable: bool) -> ExistingNode {
        ExistingNode {
            name: name.into(),
            allocatable: Capacity {
                resources: Resources(vec![("cpu".into(), cpu)]),
                pods,
            },
            requested: Capacity {
                resources: Resources(vec![("cpu".into(), used)]),
                pods: 1,
            },
            workload_pods: 0,
            schedulable,
        }
    }

    /// Identical nodes, larger and fuller ones, a cordoned one, a pod-limited one and two still
    /// booting: the queue binds every pod where the scan over all nodes would, in turn.
    #[test]
    fn the_queue_picks_the_node_the_scan_picks_for_every_pod() {
        let mut s = testing::on_nodes(testing::simulation(&[(0, 1000)], 0), 0);
        let mut list: Vec<ExistingNode> = (0..6)
            .map(|i| node(&format!("same-{i}"), 2000, 100, 110, true))
            .collect();
        list.insert(2, node("large", 8000, 100, 110, true));
        list.insert(4, node("full", 4000, 3700, 110, true));
        list.push(node("cordoned", 8000, 0, 110, false));
        list.push(node("three-pods", 16_000, 0, 4, true));
        list.push(node("booting", 8000, 0, 110, true));
        list.push(node("tied", 2000, 100, 110, true));
        if let Some(group) = &mut s.nodes {
            group.input.existing = Existing::Nodes(list);
        }
        let mut scanned = start_nodes(&s.nodes.as_ref().unwrap().input, 0);
        if let Some(n) = scanned.iter_mut().find(|n| n.slot.name == "booting") {
            n.state = NodeState::Booting { ready_at: 60_000 };
        }
        let mut queued = scanned.clone();
        let mut queue = Queue::new(&s, &queued);
        let (mut by_scan, mut by_queue) = (Vec::new(), Vec::new());
        // More pods than the nodes take: the last ones fit nowhere, both ways.
        for _ in 0..60 {
            let id = pick_node(&s, &scanned);
            if let Some(n) = id.and_then(|id| scanned.iter_mut().find(|n| n.id == id)) {
                n.slot.place(&s.pod_request);
            }
            by_scan.push(id);
            by_queue.push(queue.take(&s, &mut queued));
        }
        assert_eq!(by_queue, by_scan);
        assert!(by_scan.contains(&None), "{by_scan:?}");
        let used = |nodes: &[SimNode]| {
            nodes
                .iter()
                .map(|n| n.slot.workload_pods)
                .collect::<Vec<_>>()
        };
        assert_eq!(used(&queued), used(&scanned));
        // Both spread the pods over more than one kind of node.
        assert!(used(&scanned).iter().filter(|&&k| k > 0).count() > 6);
    }

    #[test]
    fn without_node_information_every_pod_goes_to_node_zero() {
        let s = testing::simulation(&[(0, 1000)], 0);
        let mut queue = Queue::new(&s, &[]);
        assert_eq!(queue.take(&s, &mut []), Some(0));
        assert_eq!(pick_node(&s, &[]), Some(0));
    }
}
