//! What Karpenter's provisioner needs to know: the instance types a cloud provider offers
//! (`cloudprovider.InstanceType`), filled either from a catalog file (`--instance-types`, KWOK's
//! `InstanceTypeOptions`) or from the AWS catalog built into the binary.

use super::node_groups::{Taint, Toleration};
use super::{Capacity, Resources};

/// One instance type (`cloudprovider.InstanceType`): its labels, its capacity, what the kubelet
/// and the system hold back, and where and how it may be bought.
#[derive(Debug, Clone, PartialEq)]
pub struct InstanceType {
    /// `node.kubernetes.io/instance-type`.
    pub name: String,
    /// The single-valued labels of `Requirements` (arch, os, instance family, size, cpu,
    /// memory, ...); zone and capacity type come from `offerings`. A key given twice is one
    /// `In` requirement over both values (an instance type that runs linux and windows).
    pub labels: Vec<(String, String)>,
    /// `Capacity`: cpu in millicores, memory in bytes, and max pods. (The provisioner reads
    /// cpu as milli-units and every other resource in whole units: bytes, counts.)
    pub capacity: Capacity,
    /// `Overhead`: kube-reserved + system-reserved + the eviction threshold, subtracted from
    /// `capacity` to give the allocatable the scheduler packs into (`InstanceType.Allocatable`).
    pub overhead: Capacity,
    pub offerings: Vec<Offering>,
}

/// One way to buy the type (`cloudprovider.Offering`).
#[derive(Debug, Clone, PartialEq)]
pub struct Offering {
    /// `topology.kubernetes.io/zone`.
    pub zone: String,
    /// `karpenter.sh/capacity-type`: `on-demand`, `spot` or `reserved`.
    pub capacity_type: String,
    /// Dollars per hour.
    pub price: f64,
    pub available: bool,
}

/// The EC2NodeClass's `spec.kubelet` fields an instance type's allocatable depends on
/// (`KubeletConfiguration`), in the one shape both catalogs apply: the built-in AWS catalog's
/// formula and a KWOK catalog (`--nodeclass` on `--instance-types`); `None` leaves the
/// provider's default in place.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KubeletSettings {
    /// `maxPods`: replaces the ENI-limited pod count.
    pub max_pods: Option<i32>,
    /// `podsPerCore`: caps pods at this many per vCPU (AMI families that honour it).
    pub pods_per_core: Option<i32>,
    /// `kubeReserved`: resource name → milli-units; each entry replaces the computed default.
    pub kube_reserved: Option<Resources>,
    /// `systemReserved`: resource name → milli-units.
    pub system_reserved: Option<Resources>,
    /// `evictionHard`: signal (`memory.available`, `nodefs.available`) → threshold.
    pub eviction_hard: Option<Vec<(String, EvictionThreshold)>>,
}

/// One `evictionHard` value: a quantity (milli-units) or a percentage of the capacity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EvictionThreshold {
    Quantity(i64),
    /// `"10%"` is `Percent(10.0)`.
    Percent(f64),
}

/// One `NodeSelectorRequirementWithMinValues` (operators: In, NotIn, Exists, DoesNotExist, Gt,
/// Lt, Gte, Lte).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectorRequirement {
    pub key: String,
    pub operator: String,
    pub values: Vec<String>,
    pub min_values: Option<i64>,
}

/// A topology spread constraint of the pending pods (they select each other).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopologySpread {
    /// `topology.kubernetes.io/zone` or `kubernetes.io/hostname` (others are ignored).
    pub topology_key: String,
    pub max_skew: i64,
    /// `whenUnsatisfiable: DoNotSchedule`; `ScheduleAnyway` is a preference Karpenter relaxes.
    pub do_not_schedule: bool,
    pub min_domains: Option<i64>,
}

/// The scheduling constraints of a pod template.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PodConstraints {
    pub node_selector: Vec<(String, String)>,
    /// `requiredDuringScheduling...nodeSelectorTerms`: Karpenter uses the first and relaxes
    /// to the next when it fails.
    pub required_terms: Vec<Vec<SelectorRequirement>>,
    /// `preferredDuringScheduling...`: (weight, matchExpressions).
    pub preferred_terms: Vec<(i32, Vec<SelectorRequirement>)>,
    pub tolerations: Vec<Toleration>,
    pub topology_spread: Vec<TopologySpread>,
    /// Pod affinity and anti-affinity terms whose selector takes the workload's own pods.
    pub pod_affinity: Vec<PodAffinityTerm>,
    /// The containers' `hostPort`s.
    pub host_ports: Vec<HostPort>,
}

/// One pod (anti-)affinity term of the pending pods that selects their own workload (the
/// common case of an HPA's Deployment: one replica per node or per zone, or all together).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodAffinityTerm {
    /// `kubernetes.io/hostname` or `topology.kubernetes.io/zone` (others are ignored).
    pub topology_key: String,
    /// `podAntiAffinity` rather than `podAffinity`.
    pub anti: bool,
    /// The weight of a `preferredDuringScheduling...` term (Karpenter treats it as required
    /// until it relaxes it); `None` for a required term.
    pub preferred_weight: Option<i32>,
}

/// Pending pods of one shape.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingGroup {
    /// Names pods `name-1`, `name-2`, ...
    pub name: String,
    pub count: i64,
    /// Requests in milli-units (the `pods` slot is added by the scheduler).
    pub request: Resources,
    pub constraints: PodConstraints,
}

/// A NodePool (`karpenter.sh/v1`), as far as provisioning reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct NodePool {
    pub name: String,
    pub weight: i32,
    pub requirements: Vec<SelectorRequirement>,
    /// `spec.template.metadata.labels`.
    pub labels: Vec<(String, String)>,
    pub taints: Vec<Taint>,
    /// `spec.limits`: cpu in milli-units, other resources in milli-units too, `nodes` a count.
    pub limits: Option<Resources>,
    /// `spec.template.spec.nodeClassRef.name`.
    pub node_class: String,
    /// `spec.disruption`: what consolidation may do with this NodePool's nodes.
    pub disruption: Disruption,
}

/// `spec.disruption.consolidationPolicy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ConsolidationPolicy {
    /// Only empty nodes go (the Emptiness method).
    WhenEmpty,
    /// Empty nodes go, and underutilized ones are deleted or replaced (the default).
    #[default]
    WhenEmptyOrUnderutilized,
}

/// `spec.disruption.budgets[].nodes`: a count or a percentage of the NodePool's nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetNodes {
    Count(i64),
    Percent(i64),
}

/// One `spec.disruption.budgets[]` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budget {
    pub nodes: BudgetNodes,
    /// `reasons` (`Empty`, `Underutilized`, `Drifted`); `None` applies to every reason.
    pub reasons: Option<Vec<String>>,
    /// `schedule` (cron) and `duration` as written; a scheduled budget is taken as active.
    pub schedule: Option<String>,
}

/// `spec.disruption` of a NodePool. The default is upstream's: `WhenEmptyOrUnderutilized`,
/// `consolidateAfter: 0s`, one budget of `nodes: 10%`.
#[derive(Debug, Clone, PartialEq)]
pub struct Disruption {
    pub consolidation_policy: ConsolidationPolicy,
    /// `consolidateAfter` in seconds; `None` is `Never` (consolidation disabled).
    pub consolidate_after_s: Option<i64>,
    pub budgets: Vec<Budget>,
}

impl Default for Disruption {
    fn default() -> Self {
        Disruption {
            consolidation_policy: ConsolidationPolicy::default(),
            consolidate_after_s: Some(0),
            budgets: vec![Budget {
                nodes: BudgetNodes::Percent(10),
                reasons: None,
                schedule: None,
            }],
        }
    }
}

/// What Karpenter's provisioner is asked: the NodePools, the catalog, the DaemonSets and the
/// Pending pods.
#[derive(Debug, Clone, PartialEq)]
pub struct KarpenterInput {
    pub node_pools: Vec<NodePool>,
    pub instance_types: Vec<InstanceType>,
    /// Where the catalog came from (a file, or the built-in table), said in the output.
    pub catalog_source: String,
    /// What the DaemonSets request on every new node (one overhead group: `--daemonset-requests`
    /// carries no constraints).
    pub daemonsets: Capacity,
    /// The workload's pod: request and constraints; the decision's new pods are this shape.
    pub pod: PendingGroup,
    pub pod_request_source: String,
    /// The cluster's nodes (`--nodes`, `--all-pods`, or live `--nodes-from-cluster`): the
    /// scheduler's existing nodes, which take Pending pods before any NodeClaim opens.
    pub existing: Vec<ClusterNode>,
}

/// One node of the cluster as Karpenter's cluster state holds it (`state.StateNode`): its
/// labels (the `karpenter.sh/nodepool` one, the instance type, the zone), taints, capacity,
/// allocatable and what the pods bound to it request.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ClusterNode {
    pub name: String,
    pub labels: Vec<(String, String)>,
    pub taints: Vec<Taint>,
    /// `status.capacity` (what NodePool limits count), milli-units; `pods` a count.
    pub capacity: Capacity,
    /// `status.allocatable`, milli-units; `pods` a count.
    pub allocatable: Capacity,
    /// What the pods bound to it request (DaemonSets included), and how many there are.
    pub requested: Capacity,
    /// Pods of this HPA's workload on the node (they count in its topology spread).
    pub workload_pods: i64,
    /// Ready: Karpenter's `Initialized` for a node it does not manage; initialized nodes are
    /// tried first.
    pub initialized: bool,
    /// The host ports its pods hold (`HostPortUsage`): (hostIP, protocol, port).
    pub host_ports: Vec<HostPort>,
}

/// One host port a pod asks for (`scheduling.HostPort`): an empty or `0.0.0.0` IP is every
/// address of the node.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HostPort {
    pub ip: String,
    /// `TCP`, `UDP` or `SCTP`.
    pub protocol: String,
    pub port: i32,
}
