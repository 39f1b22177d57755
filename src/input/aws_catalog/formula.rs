//! The AWS provider's capacity and overhead of one instance type, ported from
//! `pkg/providers/instancetype/types.go` (aws/karpenter-provider-aws). Quantities are milli-units
//! (memory in milli-bytes), as everywhere in the engine.

use hpacalc_engine::scenario::karpenter::{
    EvictionThreshold, InstanceType, KubeletSettings, Offering,
};
use hpacalc_engine::scenario::{Capacity, Resources};

use super::Row;

const MI: i64 = 1024 * 1024;
/// `amifamily.DefaultEBS.VolumeSize`: the root volume with no blockDeviceMappings.
const DEFAULT_EBS_BYTES: i64 = 20 * 1024 * MI;
/// `MemoryAvailable`, `NodeFSAvailable` (types.go).
const MEMORY_AVAILABLE: &str = "memory.available";
const NODEFS_AVAILABLE: &str = "nodefs.available";

/// The provider's operator options that change the allocatable (options.go).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProviderOptions {
    /// `--vm-memory-overhead-percent` (0.075).
    pub vm_memory_overhead_percent: f64,
    /// `--reserved-enis` (0).
    pub reserved_enis: i64,
}

impl Default for ProviderOptions {
    fn default() -> Self {
        ProviderOptions {
            vm_memory_overhead_percent: 0.075,
            reserved_enis: 0,
        }
    }
}

/// `cloudprovider.InstanceTypeOverhead`: the three parts `InstanceType.overhead` sums.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OverheadParts {
    pub kube_reserved: Resources,
    pub system_reserved: Resources,
    pub eviction_threshold: Resources,
}

/// The EC2NodeClass's AMI family, as far as its `FeatureFlags` change the allocatable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AmiFamily {
    Al2023,
    Al2,
    Bottlerocket,
    Windows,
    Custom,
}

/// `amifamily.FeatureFlags`, the three that matter here.
struct FeatureFlags {
    uses_eni_limited_memory_overhead: bool,
    pods_per_core_enabled: bool,
    supports_eni_limited_pod_density: bool,
}

impl AmiFamily {
    /// `spec.amiFamily` (or an alias's family): `AL2023`, `AL2`, `Bottlerocket`, `Windows2019`,
    /// `Windows2022`, `Windows2025`, `Custom`.
    pub fn from_name(name: &str) -> Option<AmiFamily> {
        match name {
            "AL2023" => Some(AmiFamily::Al2023),
            "AL2" => Some(AmiFamily::Al2),
            "Bottlerocket" => Some(AmiFamily::Bottlerocket),
            "Windows2019" | "Windows2022" | "Windows2025" => Some(AmiFamily::Windows),
            "Custom" => Some(AmiFamily::Custom),
            _ => None,
        }
    }

    // Port of DefaultFamily.FeatureFlags (resolver.go), Bottlerocket.FeatureFlags
    // (bottlerocket.go), Windows.FeatureFlags (windows.go)
    fn feature_flags(self) -> FeatureFlags {
        match self {
            AmiFamily::Al2023 | AmiFamily::Al2 | AmiFamily::Custom => FeatureFlags {
                uses_eni_limited_memory_overhead: true,
                pods_per_core_enabled: true,
                supports_eni_limited_pod_density: true,
            },
            AmiFamily::Bottlerocket => FeatureFlags {
                uses_eni_limited_memory_overhead: false,
                pods_per_core_enabled: false,
                supports_eni_limited_pod_density: true,
            },
            AmiFamily::Windows => FeatureFlags {
                uses_eni_limited_memory_overhead: false,
                pods_per_core_enabled: true,
                supports_eni_limited_pod_density: false,
            },
        }
    }
}

// Port of NewInstanceType (types.go): capacity (computeCapacity) and the overhead
// kubeReserved + systemReserved + evictionThreshold. Requirements are the table's labels.
pub(super) fn new_instance_type(
    row: &Row,
    family: AmiFamily,
    kubelet: &KubeletSettings,
    options: &ProviderOptions,
    offerings: Vec<Offering>,
) -> (InstanceType, OverheadParts) {
    let flags = family.feature_flags();
    let cpu = cpu(row);
    let memory = memory(row, options.vm_memory_overhead_percent);
    let storage = DEFAULT_EBS_BYTES * 1000;
    let pod_count = pods(row, family, kubelet, options.reserved_enis);
    let reserved_pods = if flags.uses_eni_limited_memory_overhead {
        eni_limited_pods(row, 0)
    } else {
        pod_count
    };
    let parts = OverheadParts {
        kube_reserved: kube_reserved_resources(cpu, reserved_pods, kubelet.kube_reserved.as_ref()),
        system_reserved: kubelet
            .system_reserved
            .as_ref()
            .map(system_reserved_resources)
            .unwrap_or_default(),
        eviction_threshold: eviction_threshold(memory, storage, kubelet.eviction_hard.as_deref()),
    };
    let mut overhead = Resources::default();
    for part in [
        &parts.kube_reserved,
        &parts.system_reserved,
        &parts.eviction_threshold,
    ] {
        add_all(&mut overhead, part);
    }
    let mut capacity = vec![
        ("cpu".to_string(), cpu),
        ("memory".to_string(), memory),
        ("ephemeral-storage".to_string(), storage),
    ];
    capacity.extend(row.extended.iter().map(|(k, v)| (k.clone(), v * 1000)));
    let it = InstanceType {
        name: row.name.clone(),
        labels: row.labels.clone(),
        capacity: Capacity {
            resources: Resources(capacity),
            pods: pod_count,
        },
        overhead: Capacity {
            resources: overhead,
            pods: 0,
        },
        offerings,
    };
    (it, parts)
}

/// `Overhead.Total()`: per resource, the sum.
fn add_all(into: &mut Resources, more: &Resources) {
    for (name, value) in &more.0 {
        set(into, name, into.get(name).unwrap_or(0) + value);
    }
}

fn set(into: &mut Resources, name: &str, value: i64) {
    match into.0.iter_mut().find(|(n, _)| n == name) {
        Some(entry) => entry.1 = value,
        None => into.0.push((name.to_string(), value)),
    }
}

// Port of cpu (types.go): DefaultVCpus cores.
fn cpu(row: &Row) -> i64 {
    row.vcpus * 1000
}

// Port of memory (types.go): the listed MiB, less 64 MiB of CMA on Graviton, less the VM
// overhead percent rounded up to a MiB.
fn memory(row: &Row, vm_memory_overhead_percent: f64) -> i64 {
    let mut size_mib = row.memory_mib;
    if row.arch == "arm64" {
        size_mib -= 64;
    }
    let bytes = size_mib * MI;
    // Go: int64(math.Ceil(float64(mem.Value())*VMMemoryOverheadPercent/1024/1024))
    #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
    let overhead_mib =
        ((bytes as f64) * vm_memory_overhead_percent / 1024.0 / 1024.0).ceil() as i64;
    (size_mib - overhead_mib) * MI * 1000
}

// Port of ENILimitedPods (types.go): max ENIs × (IPv4 per ENI − 1) + 2, on the default network
// card, less reserved ENIs (no EFA-only interfaces: the NodeClass's networkInterfaces are not
// read). A type missing from the upstream ENI table uses its listed max pods.
fn eni_limited_pods(row: &Row, reserved_enis: i64) -> i64 {
    let Some((interfaces, ipv4_per_interface)) = row.enis else {
        return row.listed_pods.unwrap_or(0);
    };
    let usable = (interfaces - reserved_enis).max(0);
    if usable == 0 {
        return 0;
    }
    usable * (ipv4_per_interface - 1) + 2
}

// Port of pods (types.go): maxPods, else the ENI-limited count where the AMI family supports
// it, else 110; then at most podsPerCore × vCPUs where the family honours podsPerCore.
fn pods(row: &Row, family: AmiFamily, kubelet: &KubeletSettings, reserved_enis: i64) -> i64 {
    let flags = family.feature_flags();
    let mut count = match kubelet.max_pods {
        Some(max) => i64::from(max),
        None if flags.supports_eni_limited_pod_density => eni_limited_pods(row, reserved_enis),
        None => 110,
    };
    let per_core = i64::from(kubelet.pods_per_core.unwrap_or(0));
    if per_core > 0 && flags.pods_per_core_enabled {
        count = count.min(per_core * row.vcpus);
    }
    count
}

// Port of systemReservedResources (types.go): the NodeClass's values as given.
fn system_reserved_resources(system_reserved: &Resources) -> Resources {
    system_reserved.clone()
}

// Port of kubeReservedResources (types.go): memory 11 MiB per pod + 255 MiB, ephemeral-storage
// 1 GiB, cpu by the bottlerocket ranges (6 % of the first core, 1 % of the second, 0.5 % of the
// next two, 0.25 % above); each kubeReserved entry replaces its default.
fn kube_reserved_resources(
    cpu_milli: i64,
    pods: i64,
    kube_reserved: Option<&Resources>,
) -> Resources {
    let mut out = Resources(vec![
        ("memory".to_string(), (11 * pods + 255) * MI * 1000),
        ("ephemeral-storage".to_string(), 1024 * MI * 1000),
    ]);
    let ranges: [(i64, i64, f64); 4] = [
        (0, 1000, 0.06),
        (1000, 2000, 0.01),
        (2000, 4000, 0.005),
        (4000, 1 << 31, 0.0025),
    ];
    for (start, end, percentage) in ranges {
        if cpu_milli >= start {
            let span = if cpu_milli < end {
                cpu_milli - start
            } else {
                end - start
            };
            // Go: int64(r*cpuRange.percentage), truncated.
            #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
            let add = (span as f64 * percentage) as i64;
            let so_far = out.get("cpu").unwrap_or(0);
            set(&mut out, "cpu", so_far + add);
        }
    }
    for (name, value) in kube_reserved.map(|r| r.0.as_slice()).unwrap_or_default() {
        set(&mut out, name, *value);
    }
    out
}

// Port of evictionThreshold (types.go): 100 MiB of memory and 10 % of the root volume, each
// replaced by evictionHard's memory.available / nodefs.available (evictionSoft never counts).
fn eviction_threshold(
    memory: i64,
    storage: i64,
    eviction_hard: Option<&[(String, EvictionThreshold)]>,
) -> Resources {
    // Go: math.Ceil(float64(storage.Value()) / 100 * 10), in bytes.
    #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
    let storage_bytes = ((storage / 1000) as f64 / 100.0 * 10.0).ceil() as i64;
    let mut out = Resources(vec![
        ("memory".to_string(), 100 * MI * 1000),
        ("ephemeral-storage".to_string(), storage_bytes * 1000),
    ]);
    for (signal, threshold) in eviction_hard.unwrap_or_default() {
        let (resource, capacity) = match signal.as_str() {
            MEMORY_AVAILABLE => ("memory", memory),
            NODEFS_AVAILABLE => ("ephemeral-storage", storage),
            _ => continue,
        };
        set(
            &mut out,
            resource,
            compute_eviction_signal(capacity, *threshold),
        );
    }
    out
}

// Port of computeEvictionSignal and mustParsePercentage (types.go): a percentage of the capacity
// rounded up to a whole unit (100 % disables the threshold: 0), or the quantity as given.
fn compute_eviction_signal(capacity_milli: i64, threshold: EvictionThreshold) -> i64 {
    match threshold {
        EvictionThreshold::Quantity(milli) => milli,
        EvictionThreshold::Percent(p) => {
            let p = if p == 100.0 { 0.0 } else { p };
            #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
            let units = ((capacity_milli / 1000) as f64 / 100.0 * p).ceil() as i64;
            units * 1000
        }
    }
}

#[cfg(test)]
mod tests;
