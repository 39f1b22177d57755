//! The benchmark of Karpenter's provisioning (`--nodepool`): one solve of 1,000 Pending pods
//! (500m / 1Gi, one DaemonSet of 100m / 128Mi) over a KWOK-style generated catalog of 800
//! instance types (20 families × 10 sizes × 4 memory ratios, 3 zones, spot and on-demand), with
//! one NodePool allowing both capacity types, then the same over the AWS catalog built into the
//! binary (1,363 types). Prints the time `calc::karpenter::report` takes (best of several runs)
//! and what it launched.
//!
//! Run it in release mode: `cargo run --release --example karpenter`.

use std::time::Instant;

use hpacalc::calc::karpenter::report;
use hpacalc::scenario::karpenter::{
    InstanceType, KarpenterInput, NodePool, Offering, PendingGroup, SelectorRequirement,
};
use hpacalc::scenario::{Capacity, Resources};

const GIB: i64 = 1024 * 1024 * 1024;

/// 800 types: family f, size s (1 to 96 cores), memory 2/4/8/16 GiB a core.
fn catalog() -> Vec<InstanceType> {
    let sizes = [1, 2, 4, 8, 12, 16, 24, 32, 48, 96];
    let mut out = Vec::new();
    for f in 0..20 {
        for (r, per_core) in [2, 4, 8, 16].into_iter().enumerate() {
            for cores in sizes {
                let family = format!(
                    "f{f}{}",
                    ["c", "m", "r", "x"].get(r).copied().unwrap_or("m")
                );
                let name = format!("{family}.{cores}xlarge");
                #[allow(clippy::cast_precision_loss)]
                let price =
                    cores as f64 * (0.03 + 0.005 * per_core as f64) * (1.0 + f as f64 / 100.0);
                let offerings = ["us-east-1a", "us-east-1b", "us-east-1c"]
                    .into_iter()
                    .flat_map(|z| {
                        [("on-demand", price), ("spot", price * 0.4)].map(|(ct, p)| Offering {
                            zone: z.into(),
                            capacity_type: ct.into(),
                            price: p,
                            available: true,
                        })
                    })
                    .collect();
                out.push(InstanceType {
                    name,
                    labels: vec![
                        ("kubernetes.io/arch".into(), "amd64".into()),
                        ("kubernetes.io/os".into(), "linux".into()),
                        ("karpenter.kwok.sh/instance-family".into(), family),
                    ],
                    capacity: Capacity {
                        resources: Resources(vec![
                            ("cpu".into(), cores * 1000),
                            ("memory".into(), cores * per_core * GIB),
                        ]),
                        pods: 110,
                    },
                    overhead: Capacity {
                        resources: Resources(vec![
                            ("cpu".into(), 100),
                            ("memory".into(), 10 * 1024 * 1024),
                        ]),
                        pods: 0,
                    },
                    offerings,
                });
            }
        }
    }
    out
}

fn main() {
    let aws = hpacalc::input::aws_catalog::instance_types(&Default::default());
    for (source, types) in [("generated", catalog()), ("built-in AWS", aws)] {
        solve(source, types);
    }
}

/// One timed solve of 1,000 Pending pods over `types`.
fn solve(source: &str, types: Vec<InstanceType>) {
    let input = KarpenterInput {
        node_pools: vec![NodePool {
            name: "default".into(),
            weight: 0,
            requirements: vec![SelectorRequirement {
                key: "karpenter.sh/capacity-type".into(),
                operator: "In".into(),
                values: vec!["spot".into(), "on-demand".into()],
                min_values: None,
            }],
            labels: Vec::new(),
            taints: Vec::new(),
            limits: None,
            node_class: "default".into(),
            disruption: Default::default(),
        }],
        instance_types: types,
        catalog_source: source.into(),
        daemonsets: Capacity {
            resources: Resources(vec![
                ("cpu".into(), 100),
                ("memory".into(), 128 * 1024 * 1024 * 1000),
            ]),
            pods: 1,
        },
        pod: PendingGroup {
            name: "web".into(),
            count: 0,
            request: Resources(vec![("cpu".into(), 500), ("memory".into(), GIB * 1000)]),
            constraints: Default::default(),
        },
        pod_request_source: "benchmark".into(),
        existing: Vec::new(),
    };
    let mut best = f64::MAX;
    let mut last = None;
    for _ in 0..3 {
        let start = Instant::now();
        let r = report(&input, 1000);
        best = best.min(start.elapsed().as_secs_f64());
        last = Some(r);
    }
    let Some(r) = last else { return };
    let launched: Vec<String> = (r.node_claims.iter())
        .map(|c| {
            c.launched.as_ref().map_or("none".into(), |l| {
                format!("{} {}", l.instance_type, l.capacity_type)
            })
        })
        .collect();
    println!(
        "{source}: {} instance types, 1000 pods: {:.1} ms (best of 3); {} NodeClaims ({}), ${:.3}/h, {} Pending",
        input.instance_types.len(),
        best * 1000.0,
        r.node_claims.len(),
        launched.join(", "),
        r.cost_per_hour,
        r.unschedulable.iter().map(|u| u.pods).sum::<i64>()
    );
}
