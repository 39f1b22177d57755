//! The fake cloud provider's instance types (`pkg/cloudprovider/fake/instancetype.go`), which
//! upstream's scheduling and provisioning tests run on: the conformance vectors and the unit
//! tests build their catalogs here.

use super::catalog::{CAPACITY_TYPE, INSTANCE_TYPE, Item, Offer, Res, ZONE, subtract};
use super::requirements::{Operator, Requirements, is_in, requirement};

const GIB: i64 = 1024 * 1024 * 1024;

/// What `NewInstanceType`'s options set.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Millicores; 4 cores when 0.
    pub cpu_milli: i64,
    /// Bytes; 4Gi when 0.
    pub memory: i64,
    /// 5 when 0.
    pub pods: i64,
    /// Other resources, whole units (GPUs).
    pub extra: Vec<(String, i64)>,
    /// (zone, capacity type, price, available); the five default offerings when empty.
    pub offerings: Vec<(String, String, Option<f64>, bool)>,
    /// `amd64` when empty.
    pub architecture: String,
    /// linux, windows, darwin when empty.
    pub operating_systems: Vec<String>,
}

// Port of PriceFromResources (fake/instancetype.go).
pub fn price_from_resources(cpu_milli: i64, memory: i64, gpus: i64) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let price = 0.1 * cpu_milli as f64 / 1000.0 + 0.1 * memory as f64 / 1e9 + gpus as f64;
    price
}

// Port of NewInstanceType (fake/instancetype.go).
pub fn instance_type(name: &str, o: &Options) -> Item {
    let cpu = if o.cpu_milli == 0 { 4000 } else { o.cpu_milli };
    let memory = if o.memory == 0 { 4 * GIB } else { o.memory };
    let pods = if o.pods == 0 { 5 } else { o.pods };
    let gpus: i64 = (o.extra.iter())
        .filter(|(k, _)| k.starts_with("fake.com/vendor"))
        .map(|(_, v)| *v)
        .sum();
    let price = price_from_resources(cpu, memory, gpus.min(1) * i64::from(gpus > 0));
    let offerings: Vec<Offer> = if o.offerings.is_empty() {
        [
            ("test-zone-1", "spot"),
            ("test-zone-2", "spot"),
            ("test-zone-1", "on-demand"),
            ("test-zone-2", "on-demand"),
            ("test-zone-3", "on-demand"),
        ]
        .into_iter()
        .map(|(z, c)| Offer::new(z, c, price, true))
        .collect()
    } else {
        (o.offerings.iter())
            .map(|(z, c, p, a)| Offer::new(z, c, p.unwrap_or(price), *a))
            .collect()
    };
    let arch = if o.architecture.is_empty() {
        "amd64"
    } else {
        &o.architecture
    };
    let os: Vec<String> = if o.operating_systems.is_empty() {
        vec!["darwin".into(), "linux".into(), "windows".into()]
    } else {
        o.operating_systems.clone()
    };
    let mut r = Requirements::default();
    r.add(is_in(INSTANCE_TYPE, &[name]));
    r.add(is_in("kubernetes.io/arch", &[arch]));
    r.add(requirement("kubernetes.io/os", Operator::In, None, &os));
    let avail = || offerings.iter().filter(|o| o.available);
    let zones: Vec<String> = avail().map(|o| o.zone.clone()).collect();
    let cts: Vec<String> = avail().map(|o| o.capacity_type.clone()).collect();
    r.add(requirement(ZONE, Operator::In, None, &zones));
    r.add(requirement(CAPACITY_TYPE, Operator::In, None, &cts));
    let mut size = requirement("size", Operator::DoesNotExist, None, &[]);
    let mut special = requirement("special", Operator::DoesNotExist, None, &[]);
    r.add(is_in("integer", &[&(cpu / 1000).to_string()]));
    if cpu > 4000 && memory > 8 * GIB {
        size.insert("large");
        special.insert("optional");
    } else {
        size.insert("small");
    }
    r.add(size);
    r.add(special);
    let mut capacity: Res = [
        ("cpu".to_string(), cpu),
        ("memory".to_string(), memory * 1000),
        ("pods".to_string(), pods * 1000),
    ]
    .into();
    for (k, v) in &o.extra {
        capacity.insert(k.clone(), v * 1000);
    }
    // KubeReserved: 100m cpu, 10Mi memory.
    let overhead: Res = [
        ("cpu".to_string(), 100),
        ("memory".to_string(), 10 * 1024 * 1024 * 1000),
    ]
    .into();
    Item {
        name: name.to_string(),
        requirements: r,
        allocatable: subtract(&capacity, &overhead),
        capacity,
        offerings,
    }
}

/// `fake.InstanceTypes(total)`: `fake-it-<i>` with i+1 cores, 2(i+1) Gi, 10(i+1) pods.
pub fn instance_types(total: i64) -> Vec<Item> {
    (0..total)
        .map(|i| {
            instance_type(
                &format!("fake-it-{i}"),
                &Options {
                    cpu_milli: (i + 1) * 1000,
                    memory: (i + 1) * 2 * GIB,
                    pods: (i + 1) * 10,
                    ..Options::default()
                },
            )
        })
        .collect()
}

/// The default catalog of the fake provider (`fake.NewCloudProvider`'s
/// `InstanceTypes`): default-instance-type, small-instance-type, gpu-vendor-instance-type,
/// gpu-vendor-b-instance-type, arm-instance-type, single-pod-instance-type.
pub fn default_catalog() -> Vec<Item> {
    let o = |cpu: i64, mem_gi: i64, pods: i64| Options {
        cpu_milli: cpu,
        memory: mem_gi * GIB,
        pods,
        ..Options::default()
    };
    let mut gpu = o(0, 0, 0);
    gpu.extra = vec![("fake.com/vendor-a".into(), 2)];
    let mut gpu_b = o(0, 0, 0);
    gpu_b.extra = vec![("fake.com/vendor-b".into(), 2)];
    let mut arm = o(16000, 128, 0);
    arm.architecture = "arm64".into();
    vec![
        instance_type("default-instance-type", &o(0, 0, 0)),
        instance_type("small-instance-type", &o(2000, 2, 0)),
        instance_type("gpu-vendor-instance-type", &gpu),
        instance_type("gpu-vendor-b-instance-type", &gpu_b),
        instance_type("arm-instance-type", &arm),
        instance_type("single-pod-instance-type", &o(0, 0, 1)),
    ]
}

/// `fake.InstanceTypesAssorted()`: every cpu × memory × zone × capacity type × os × arch, each
/// with one offering.
pub fn assorted() -> Vec<Item> {
    let mut out = Vec::new();
    for cpu in [1, 2, 4, 8, 16, 32, 64] {
        for mem in [1, 2, 4, 8, 16, 32, 64, 128] {
            for zone in ["test-zone-1", "test-zone-2", "test-zone-3"] {
                for ct in ["spot", "on-demand"] {
                    for os in ["linux", "windows"] {
                        for arch in ["amd64", "arm64"] {
                            let name = format!("{cpu}-cpu-{mem}-mem-{arch}-{os}-{zone}-{ct}");
                            let o = Options {
                                cpu_milli: cpu * 1000,
                                memory: mem * GIB,
                                offerings: vec![(zone.into(), ct.into(), None, true)],
                                architecture: arch.into(),
                                operating_systems: vec![os.into()],
                                ..Options::default()
                            };
                            out.push(instance_type(&name, &o));
                        }
                    }
                }
            }
        }
    }
    out
}
