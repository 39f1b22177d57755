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

/// The EC2NodeClass's `spec.kubelet` fields the built-in AWS catalog's allocatable depends on
/// (`KubeletConfiguration`); `None` leaves the provider's default in place.
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

/// The EC2NodeClass kubelet settings (`spec.kubelet` of `--nodeclass`) a catalog applies when it
/// computes allocatable: `maxPods`, `podsPerCore`, `kubeReserved`, `systemReserved`,
/// `evictionHard`. Every field absent is the provider's default.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KubeletConfig {
    /// `spec.amiFamily` (AL2023, Bottlerocket, ...), when given.
    pub ami_family: Option<String>,
    pub max_pods: Option<i64>,
    pub pods_per_core: Option<i64>,
    /// `kubeReserved`, quantities in milli-units.
    pub kube_reserved: Resources,
    /// `systemReserved`, quantities in milli-units.
    pub system_reserved: Resources,
    /// `evictionHard` as written (`memory.available: 100Mi`, `nodefs.available: 10%`).
    pub eviction_hard: Vec<(String, String)>,
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
}
