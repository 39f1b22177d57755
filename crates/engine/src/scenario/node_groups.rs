//! What the Cluster Autoscaler's scale-up needs to know of several node groups: each group's
//! template node, limits and price, the expander chain (`--expander`), and the Pending pods.

use super::{Capacity, Resources};

/// One expander of the chain, as the Cluster Autoscaler's `--expander` names it
/// (`expander/expander.go`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expander {
    LeastWaste,
    MostPods,
    LeastNodes,
    Priority,
    Price,
    Random,
}

impl Expander {
    /// Every expander hpacalc ports, in the order `--help` lists them.
    pub const ALL: [Expander; 6] = [
        Expander::LeastWaste,
        Expander::MostPods,
        Expander::LeastNodes,
        Expander::Priority,
        Expander::Price,
        Expander::Random,
    ];

    /// The name `--expander` takes (`LeastWasteExpanderName`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Expander::LeastWaste => "least-waste",
            Expander::MostPods => "most-pods",
            Expander::LeastNodes => "least-nodes",
            Expander::Priority => "priority",
            Expander::Price => "price",
            Expander::Random => "random",
        }
    }

    pub fn from_name(name: &str) -> Option<Expander> {
        Expander::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Implements `expander.Strategy` (always one answer): nothing may follow it in a chain.
    pub fn is_strategy(self) -> bool {
        self == Expander::Random
    }
}

/// A taint of the group's template node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taint {
    pub key: String,
    pub value: String,
    /// `NoSchedule`, `PreferNoSchedule` or `NoExecute`.
    pub effect: String,
}

/// A toleration of the Pending pods (`v1.Toleration`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toleration {
    pub key: String,
    /// `Equal` (the default) or `Exists`.
    pub operator: String,
    pub value: String,
    /// Empty: every effect.
    pub effect: String,
}

/// One node group of the cloud provider (`cloudprovider.NodeGroup` and its template node).
#[derive(Debug, Clone, PartialEq)]
pub struct NodeGroupSpec {
    pub name: String,
    /// The template node's `status.allocatable`: what the scheduler fits pods into.
    pub allocatable: Capacity,
    /// The template node's `status.capacity`: what least-waste and price compare.
    pub capacity: Capacity,
    pub labels: Vec<(String, String)>,
    pub taints: Vec<Taint>,
    pub min_size: i64,
    pub max_size: i64,
    /// The group's target size now.
    pub current_size: i64,
    /// `NodePrice` of one node for an hour; a group without one is skipped by `price`.
    pub price_per_hour: Option<f64>,
    /// The priority levels whose regular expressions match the group's name (the priority
    /// expander's ConfigMap, matched by the input side).
    pub priorities: Vec<i64>,
    /// `NodeGroup.Exist()`: false for a group the autoscaler would have to create.
    pub exists: bool,
}

/// The provider's `PodPrice`: a pod's requests priced per core-hour and per GiB-hour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PodPricing {
    pub per_core_hour: f64,
    pub per_gib_hour: f64,
}

/// The Pending pods of one kind: their request, count and scheduling constraints.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingPods {
    pub request: Resources,
    pub count: i64,
    pub node_selector: Vec<(String, String)>,
    pub tolerations: Vec<Toleration>,
}

/// Several node groups and the expander that picks one per loop.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeGroupsInput {
    pub groups: Vec<NodeGroupSpec>,
    /// The chain, validated as `Factory.Build` does (no repeats, nothing after `random`).
    pub expander: Vec<Expander>,
    /// A priority ConfigMap was given; without one the priority expander keeps every option.
    pub priorities_configured: bool,
    pub pod_pricing: PodPricing,
    /// What the DaemonSets take on every new node.
    pub daemonsets: Capacity,
    /// `--max-nodes-total`; `None` is no limit (the flag's 0).
    pub max_nodes_total: Option<i64>,
    /// `--max-nodes-per-scaleup`.
    pub max_nodes_per_scale_up: i64,
    /// The effective request of one of the workload's pods, and where it came from.
    pub pod_request: Resources,
    pub pod_request_source: String,
}
