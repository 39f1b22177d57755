//! The cluster as a run leaves it, for the panels of `hpacalc serve`'s `/simulate`: each node
//! with its pod slots and pods, the Pending pods, and the recommendations the controller keeps,
//! each marked by whether the last sync's stabilization window counted it (the engine's own
//! rule, `normalize::counts_in_window`).

use schemars::JsonSchema;
use serde::Serialize;

use crate::calc::normalize;
use crate::time::Duration;

use super::engine::{Engine, NodeState, PodState, SimPod, node_index, secs};

/// The state at the end of a run.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    /// Seconds from the start.
    pub time: i64,
    /// Each node in creation order; empty when the run has no node model.
    pub nodes: Vec<NodeSnapshot>,
    /// Without a node model: the bound pods (on one node without limits).
    pub unmodelled: Vec<PodSnapshot>,
    /// Pods no node holds yet (phase Pending).
    pub pending: Vec<PodSnapshot>,
    /// The recommendations the controller keeps, oldest first.
    pub recommendations: Vec<WindowCell>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeSnapshot {
    pub name: String,
    /// Still booting: Ready at `readyAt` (seconds).
    pub ready_at: Option<i64>,
    /// How many of the workload's pods it holds at most: those on it and the room left.
    pub slots: i64,
    pub pods: Vec<PodSnapshot>,
    /// The NodeClaim Karpenter launched it as (`--nodepool`); null for a node group's node.
    pub node_claim: Option<ClaimSnapshot>,
}

/// What a NodeClaim is: where it comes from, what was bought, at what price.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClaimSnapshot {
    pub node_pool: String,
    pub instance_type: String,
    /// `on-demand`, `spot` or `reserved`.
    pub capacity_type: String,
    pub price_per_hour: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodSnapshot {
    /// The pod's name, as the controller sees it (`web-7`, in creation order).
    pub name: String,
    /// `pending`, `starting`, `ready` or `terminating`.
    pub state: &'static str,
    /// The pod template's revision: 0, then 1 from a rollout on.
    pub revision: u32,
}

/// One stored recommendation.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WindowCell {
    /// When it was stored, seconds (negative: the memory a run starts with).
    pub time: i64,
    pub replicas: i32,
    /// The last sync's scale-down window counted it.
    pub counts: bool,
}

fn pod(p: &SimPod, name: &str) -> PodSnapshot {
    PodSnapshot {
        name: name.to_string(),
        state: match p.state {
            PodState::Pending => "pending",
            PodState::Starting { .. } => "starting",
            PodState::Ready { .. } => "ready",
            PodState::Terminating { .. } => "terminating",
        },
        revision: p.revision,
    }
}

impl Engine<'_> {
    /// What the panels show at `end` (ms), the instant the run stopped at.
    pub(super) fn snapshot(&self, end: i64) -> Snapshot {
        // `pods` is aligned with the controller's view, which holds the names.
        let named = || self.pods.iter().zip(&self.scenario.pods);
        // Each bound pod to its node, in one pass; node 0 is the unlimited one of a run without
        // node information.
        let mut bound: Vec<Vec<PodSnapshot>> = self.nodes.iter().map(|_| Vec::new()).collect();
        let mut unmodelled = Vec::new();
        for (p, seen) in named().filter(|(p, _)| p.state != PodState::Pending) {
            let Some(id) = p.node else { continue };
            match node_index(&self.nodes, id).and_then(|i| bound.get_mut(i)) {
                Some(on_node) => on_node.push(pod(p, &seen.name)),
                None if id == 0 && self.setup.nodes.is_none() => {
                    unmodelled.push(pod(p, &seen.name));
                }
                None => {}
            }
        }
        let nodes = self
            .nodes
            .iter()
            .zip(bound)
            .map(|(n, pods)| NodeSnapshot {
                name: n.slot.name.clone(),
                ready_at: match n.state {
                    NodeState::Booting { ready_at } => Some(secs(ready_at)),
                    NodeState::Ready => None,
                },
                slots: n
                    .slot
                    .workload_pods
                    .saturating_add(n.slot.room_for(&self.setup.pod_request)),
                pods,
                node_claim: n.claim.as_ref().map(|c| ClaimSnapshot {
                    node_pool: c.node_pool.clone(),
                    instance_type: c.instance_type.clone(),
                    capacity_type: c.capacity_type.clone(),
                    price_per_hour: c.price,
                }),
            })
            .collect();
        let pending = named()
            .filter(|(p, _)| p.state == PodState::Pending)
            .map(|(p, seen)| pod(p, &seen.name))
            .collect();
        Snapshot {
            time: secs(end),
            nodes,
            unmodelled,
            pending,
            recommendations: self.window_cells(),
        }
    }

    /// The stored recommendations, each judged by the window of the last sync.
    fn window_cells(&self) -> Vec<WindowCell> {
        let now = self.scenario.now;
        let config = &self.scenario.config;
        let (window, legacy) = match &self.scenario.hpa.behavior {
            None => (config.downscale_stabilization_window, true),
            Some(b) => {
                let seconds =
                    normalize::scale_down_window(b, config.downscale_stabilization_window);
                (Duration::from_secs(i64::from(seconds)), false)
            }
        };
        let mut cells: Vec<WindowCell> = self
            .memory
            .recommendations
            .iter()
            .map(|rec| WindowCell {
                time: secs(rec.timestamp.0.saturating_sub(super::START.0)),
                replicas: rec.replicas,
                counts: normalize::counts_in_window(rec.timestamp, now, window, legacy),
            })
            .collect();
        cells.sort_by_key(|c| c.time);
        cells
    }
}
