//! kube-scheduler (§8.2 step 5): each Pending pod, in creation order, goes to the Ready node
//! with the best LeastAllocated score that fits it (`cluster.rs` scores, `calc::nodes` fits); a
//! pod no node takes stays Pending for the Cluster Autoscaler. The start pods are placed the same
//! way before the run.

use std::collections::BTreeMap;

use crate::scenario::Pod;
use crate::scenario::simulation::Setup;

use super::cluster::least_allocated_score;
use super::engine::{Engine, NodeState, PodState, SimNode, SimPod};

/// The start pods were created, started and Ready this long before the start: past every
/// initialization period.
const LONG_AGO: i64 = 86_400_000;

impl Engine<'_> {
    /// The start pods: Ready long ago, placed by the scheduler on the existing nodes.
    pub(super) fn place_start_pods(&mut self) {
        let n = usize::try_from(self.setup.start_replicas.max(0)).unwrap_or(0);
        let mut unplaced = 0;
        for _ in 0..n {
            self.create_pod(-LONG_AGO, self.revision);
            let node = pick_node(self.setup, &self.nodes);
            // `create_pod` just pushed this pair.
            let (Some(p), Some(pod)) = (self.pods.last_mut(), self.scenario.pods.last_mut()) else {
                continue;
            };
            match node {
                Some(node) => {
                    bind(self.setup, &mut self.nodes, p, pod, node, -LONG_AGO);
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
        for (p, pod) in self.pods.iter_mut().zip(&mut self.scenario.pods) {
            if p.state != PodState::Pending {
                continue;
            }
            match pick_node(setup, &self.nodes) {
                Some(node) => {
                    if p.waited {
                        *after_wait.entry(node).or_default() += 1;
                    }
                    bind(setup, &mut self.nodes, p, pod, node, t);
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

/// The Ready node with the best LeastAllocated score that fits one more pod (ties to the
/// lowest index); the unlimited node 0 without node information.
fn pick_node(setup: &Setup, nodes: &[SimNode]) -> Option<u32> {
    if setup.nodes.is_none() {
        return Some(0);
    }
    let request = &setup.pod_request;
    let mut best: Option<(i64, u32)> = None;
    for n in nodes {
        if n.state != NodeState::Ready || !n.slot.schedulable || !n.slot.fits(request) {
            continue;
        }
        let score = least_allocated_score(&n.slot, request);
        if best.is_none_or(|(s, _)| score > s) {
            best = Some((score, n.id));
        }
    }
    best.map(|(_, id)| id)
}

/// The scheduler binds the pod (`p`, and `pod` as the controller sees it) to `node` at `t`:
/// the pod takes its room there and starts.
fn bind(setup: &Setup, nodes: &mut [SimNode], p: &mut SimPod, pod: &mut Pod, node: u32, t: i64) {
    if let Some(n) = nodes.iter_mut().find(|n| n.id == node) {
        n.slot.place(&setup.pod_request);
    }
    p.bind(pod, node, t, setup.timing.pod_startup.millis());
}
