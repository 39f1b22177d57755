use super::*;
use crate::input::aws_catalog::{instance_types, instance_types_for, table};
use hpacalc_engine::quantity::parse_milli;

fn row(name: &str) -> &'static Row {
    table().iter().find(|r| r.name == name).unwrap()
}

fn allocatable(t: &InstanceType, resource: &str) -> i64 {
    t.capacity.resources.get(resource).unwrap_or(0)
        - t.overhead.resources.get(resource).unwrap_or(0)
}

#[test]
fn every_types_allocatable_matches_the_providers_reference_page() {
    // fixtures/aws/allocatable_al2023.tsv: cpu, memory, pods of each type as Karpenter's
    // generated instance-types page lists them (AL2023, default kubelet).
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/aws/allocatable_al2023.tsv"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let types = instance_types(&KubeletSettings::default());
    let mut checked = 0;
    let mut wrong = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let cells: Vec<&str> = line.split('\t').collect();
        let t = types.iter().find(|t| t.name == cells[0]).unwrap();
        let got = (
            allocatable(t, "cpu"),
            allocatable(t, "memory"),
            t.capacity.pods,
        );
        let want = (
            parse_milli(cells[1]).unwrap(),
            parse_milli(cells[2]).unwrap(),
            cells[3].parse::<i64>().unwrap(),
        );
        if got != want {
            wrong.push(format!("{}: got {got:?}, want {want:?}", cells[0]));
        }
        checked += 1;
    }
    assert_eq!(checked, 1363);
    assert!(
        wrong.is_empty(),
        "{} differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn memory_less_graviton_cma_and_the_vm_overhead_rounded_up() {
    // a1.medium: 2048 MiB − 64 = 1984; ceil(1984 × 0.075) = 149 → 1835 MiB.
    assert_eq!(memory(row("a1.medium"), 0.075), 1835 * MI * 1000);
    // m5.large: 8192 MiB; ceil(614.4) = 615 → 7577 MiB.
    assert_eq!(memory(row("m5.large"), 0.075), 7577 * MI * 1000);
}

#[test]
fn eni_limited_pods_count_the_default_cards_interfaces_less_reserved() {
    // m5.large: 3 ENIs × (10 − 1) + 2 = 29; one reserved: 2 × 9 + 2 = 20; all reserved: 0.
    assert_eq!(eni_limited_pods(row("m5.large"), 0), 29);
    assert_eq!(eni_limited_pods(row("m5.large"), 1), 20);
    assert_eq!(eni_limited_pods(row("m5.large"), 3), 0);
}

#[test]
fn pods_take_max_pods_then_pods_per_core_where_the_family_honours_it() {
    let kubelet = KubeletSettings {
        max_pods: Some(200),
        pods_per_core: Some(4),
        ..KubeletSettings::default()
    };
    // m5.large has 2 vCPUs: min(200, 4 × 2) = 8; Bottlerocket ignores podsPerCore.
    assert_eq!(pods(row("m5.large"), AmiFamily::Al2023, &kubelet, 0), 8);
    assert_eq!(
        pods(row("m5.large"), AmiFamily::Bottlerocket, &kubelet, 0),
        200
    );
    // Windows: no ENI-limited density, 110; AL2023 without settings: the ENI count.
    let none = KubeletSettings::default();
    assert_eq!(pods(row("m5.large"), AmiFamily::Windows, &none, 0), 110);
    assert_eq!(pods(row("m5.large"), AmiFamily::Al2023, &none, 0), 29);
    assert_eq!(pods(row("m5.large"), AmiFamily::Al2023, &none, 1), 20);
}

#[test]
fn kube_reserved_cpu_follows_the_ranges_and_a_given_value_replaces_it() {
    let cpu = |milli| kube_reserved_resources(milli, 29, None).get("cpu");
    // 6 % of core 1, 1 % of core 2, 0.5 % of cores 3–4, 0.25 % beyond: 60, 70, 80, 80 + 70.
    assert_eq!(cpu(1000), Some(60));
    assert_eq!(cpu(2000), Some(70));
    assert_eq!(cpu(4000), Some(80));
    assert_eq!(cpu(32_000), Some(150));
    let given = Resources(vec![
        ("cpu".into(), 500),
        ("memory".into(), 1024 * MI * 1000),
    ]);
    let r = kube_reserved_resources(2000, 29, Some(&given));
    assert_eq!(r.get("cpu"), Some(500));
    assert_eq!(r.get("memory"), Some(1024 * MI * 1000));
    assert_eq!(r.get("ephemeral-storage"), Some(1024 * MI * 1000));
}

#[test]
fn eviction_hard_replaces_the_default_and_100_percent_disables_it() {
    let mem = 7577 * MI * 1000;
    let e = |v| eviction_threshold(mem, DEFAULT_EBS_BYTES * 1000, Some(v)).get("memory");
    assert_eq!(
        eviction_threshold(mem, 0, None).get("memory"),
        Some(100 * MI * 1000)
    );
    let ten = [(
        MEMORY_AVAILABLE.to_string(),
        EvictionThreshold::Percent(10.0),
    )];
    // ceil(7577 MiB = 7,945,060,352 bytes / 100 × 10) = 794,506,036 bytes.
    assert_eq!(e(&ten), Some(794_506_036 * 1000));
    let all = [(
        MEMORY_AVAILABLE.to_string(),
        EvictionThreshold::Percent(100.0),
    )];
    assert_eq!(e(&all), Some(0));
    let soft = [("memory.soft".to_string(), EvictionThreshold::Percent(50.0))];
    assert_eq!(e(&soft), Some(100 * MI * 1000));
}

#[test]
fn system_reserved_adds_to_the_overhead() {
    let kubelet = KubeletSettings {
        system_reserved: Some(Resources(vec![("cpu".into(), 100)])),
        ..KubeletSettings::default()
    };
    let with = instance_types_for(AmiFamily::Al2023, &kubelet, &ProviderOptions::default());
    let without = instance_types(&KubeletSettings::default());
    let cpu = |ts: &[InstanceType]| {
        ts.iter()
            .find(|t| t.name == "m5.large")
            .unwrap()
            .overhead
            .resources
            .get("cpu")
    };
    assert_eq!(cpu(&with), cpu(&without).map(|c| c + 100));
}

#[test]
fn the_ami_family_is_read_by_name() {
    assert_eq!(
        AmiFamily::from_name("Windows2022"),
        Some(AmiFamily::Windows)
    );
    assert_eq!(AmiFamily::from_name("al2023"), None);
}
