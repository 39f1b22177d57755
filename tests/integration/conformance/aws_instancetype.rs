//! `aws_instancetype.json`: the allocatable and max-pods cases of Karpenter's AWS provider
//! (`pkg/providers/instancetype/suite_test.go`: Overhead, Kube Reserved, System Reserved,
//! Eviction, ENI limits, maxPods, podsPerCore), run through the built-in catalog
//! (`hpacalc::input::aws_catalog`). Upstream builds each type from its fake EC2
//! `DescribeInstanceTypes`; here the same type comes from the built-in table.

use hpacalc::input::aws_catalog::{AmiFamily, OverheadParts, ProviderOptions, instance_type};
use hpacalc::quantity::parse_milli;
use hpacalc::scenario::Resources;
use hpacalc::scenario::karpenter::{EvictionThreshold, InstanceType, KubeletSettings};
use serde_json::Value;

use super::{Check, array, get, int, opt_int, text};

pub fn run(v: &Value) -> Check {
    let inputs = get(v, "inputs");
    let expected = get(v, "expected");
    let mut check = Check::default();
    check.only_keys(
        expected,
        &[
            "systemReserved",
            "kubeReserved",
            "evictionThreshold",
            "evictionMemoryOfCapacity",
            "evictionStorageApprox",
            "capacityPods",
            "capacityPodsNot",
            "capacityPodsMin",
            "capacityPodsAsWithout",
        ],
    );
    let family_name = text(inputs, "amiFamily");
    let Some(family) = AmiFamily::from_name(family_name) else {
        check.fail(format!("harness: unknown amiFamily {family_name}"));
        return check;
    };
    let kubelet = kubelet(get(inputs, "kubelet"));
    let options = ProviderOptions {
        vm_memory_overhead_percent: inputs
            .get("vmMemoryOverheadPercent")
            .and_then(Value::as_f64)
            .unwrap_or(ProviderOptions::default().vm_memory_overhead_percent),
        reserved_enis: opt_int(inputs, "reservedENIs").unwrap_or(0),
    };
    for name in array(inputs, "instanceTypes") {
        let name = name.as_str().unwrap_or_default();
        let Some((it, parts)) = instance_type(name, family, &kubelet, &options) else {
            check.fail(format!("{name}: not in the built-in catalog"));
            continue;
        };
        compare(&mut check, name, expected, &it, &parts);
        if let Some(Value::String(field)) = expected.get("capacityPodsAsWithout") {
            let mut without = kubelet.clone();
            match field.as_str() {
                "podsPerCore" => without.pods_per_core = None,
                other => check.fail(format!("harness: capacityPodsAsWithout {other}")),
            }
            let base =
                instance_type(name, family, &without, &options).map(|(t, _)| t.capacity.pods);
            check.eq(
                &format!("{name} capacity pods"),
                base,
                Some(it.capacity.pods),
            );
        }
    }
    check
}

fn compare(
    check: &mut Check,
    name: &str,
    expected: &Value,
    it: &InstanceType,
    parts: &OverheadParts,
) {
    for (key, got) in [
        ("systemReserved", &parts.system_reserved),
        ("kubeReserved", &parts.kube_reserved),
        ("evictionThreshold", &parts.eviction_threshold),
    ] {
        let Some(Value::Object(want)) = expected.get(key) else {
            continue;
        };
        for (resource, quantity) in want {
            let want = parse_milli(quantity.as_str().unwrap_or_default()).ok();
            check.eq(
                &format!("{name} {key}.{resource}"),
                want,
                Some(got.get(resource).unwrap_or(0)),
            );
        }
    }
    if let Some(spec) = expected.get("evictionMemoryOfCapacity") {
        // BeNumerically("~", capacity × fraction, within), in bytes.
        let capacity = milli(&it.capacity.resources, "memory") / 1000;
        let eviction = milli(&parts.eviction_threshold, "memory") / 1000;
        #[allow(clippy::cast_precision_loss)]
        let off = (eviction as f64
            - capacity as f64 * get(spec, "fraction").as_f64().unwrap_or(0.0))
        .abs();
        #[allow(clippy::cast_precision_loss)]
        let within = int(spec, "within") as f64;
        if off > within {
            check.fail(format!(
                "{name} eviction memory: {eviction} bytes is {off} from the capacity's share"
            ));
        }
    }
    if let Some(Value::String(approx)) = expected.get("evictionStorageApprox") {
        let want = parse_milli(approx).ok();
        check.eq(
            &format!("{name} evictionThreshold.ephemeral-storage"),
            want,
            Some(milli(&parts.eviction_threshold, "ephemeral-storage")),
        );
    }
    if let Some(pods) = opt_int(expected, "capacityPods") {
        check.eq(&format!("{name} capacity pods"), pods, it.capacity.pods);
    }
    if let Some(pods) = opt_int(expected, "capacityPodsNot")
        && it.capacity.pods == pods
    {
        check.fail(format!("{name} capacity pods: expected not {pods}"));
    }
    if let Some(spec) = expected.get("capacityPodsMin") {
        let vcpus: i64 = it
            .labels
            .iter()
            .find(|(k, _)| k == "karpenter.k8s.aws/instance-cpu")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        let want = int(spec, "maxPods").min(int(spec, "perVcpu") * vcpus);
        check.eq(&format!("{name} capacity pods"), want, it.capacity.pods);
    }
}

fn milli(r: &Resources, name: &str) -> i64 {
    r.get(name).unwrap_or(0)
}

/// The vector's `kubelet` as the EC2NodeClass would give it (evictionSoft has no field: the
/// allocatable never reads it).
fn kubelet(v: &Value) -> KubeletSettings {
    let resources = |key: &str| {
        v.get(key).and_then(Value::as_object).map(|m| {
            Resources(
                m.iter()
                    .map(|(k, q)| {
                        (
                            k.clone(),
                            parse_milli(q.as_str().unwrap_or_default()).unwrap_or(-1),
                        )
                    })
                    .collect(),
            )
        })
    };
    let eviction_hard = v.get("evictionHard").and_then(Value::as_object).map(|m| {
        m.iter()
            .map(|(signal, value)| {
                let value = value.as_str().unwrap_or_default();
                let threshold = match value.strip_suffix('%') {
                    Some(p) => EvictionThreshold::Percent(p.parse().unwrap_or(-1.0)),
                    None => EvictionThreshold::Quantity(parse_milli(value).unwrap_or(-1)),
                };
                (signal.clone(), threshold)
            })
            .collect()
    });
    KubeletSettings {
        max_pods: opt_int(v, "maxPods").and_then(|n| i32::try_from(n).ok()),
        pods_per_core: opt_int(v, "podsPerCore").and_then(|n| i32::try_from(n).ok()),
        kube_reserved: resources("kubeReserved"),
        system_reserved: resources("systemReserved"),
        eviction_hard,
    }
}
