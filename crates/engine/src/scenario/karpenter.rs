//! What Karpenter's provisioner needs to know: the instance types a cloud provider offers
//! (`cloudprovider.InstanceType`), filled either from a catalog file (`--instance-types`, KWOK's
//! `InstanceTypeOptions`) or from the AWS catalog built into the binary.

use super::{Capacity, Resources};

/// One instance type (`cloudprovider.InstanceType`): its labels, its capacity, what the kubelet
/// and the system hold back, and where and how it may be bought.
#[derive(Debug, Clone, PartialEq)]
pub struct InstanceType {
    /// `node.kubernetes.io/instance-type`.
    pub name: String,
    /// The single-valued labels of `Requirements` (arch, os, instance family, size, cpu,
    /// memory, ...); zone and capacity type come from `offerings`.
    pub labels: Vec<(String, String)>,
    /// `Capacity`: cpu in millicores, memory in bytes, and max pods.
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
