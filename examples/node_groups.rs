//! The benchmark of the Cluster Autoscaler over several node groups (`--node-groups`): the
//! loop-by-loop plan for 10 groups × 1,000 Pending pods and 100 groups × 10,000, with the chain
//! `priority,least-waste,price`. Each group is capped at 20 nodes, so the plan runs many loops,
//! each computing every group's option. Prints the time `calc::node_groups::plan::plan` takes
//! (best of several runs) and what the plan did.
//!
//! Run it in release mode: `cargo run --release --example node_groups`.

use std::time::Instant;

use hpacalc::calc::node_groups::plan::plan;
use hpacalc::scenario::node_groups::{
    Expander, NodeGroupSpec, NodeGroupsInput, PendingPods, PodPricing,
};
use hpacalc::scenario::{Capacity, Resources};

const GI: i64 = 1024 * 1024 * 1024 * 1000;

fn capacity(cpu_milli: i64, memory_gi: i64, pods: i64) -> Capacity {
    Capacity {
        resources: Resources(vec![
            ("cpu".into(), cpu_milli),
            ("memory".into(), memory_gi * GI),
        ]),
        pods,
    }
}

/// `n` groups as a cluster's node groups are: instance families (general purpose, compute,
/// memory: 4, 2 or 8 GiB a core) in sizes of 2 to 64 cores, each family at its own price per
/// core (families differ by generation and processor), one family in three with a priority.
/// No two groups share both a shape and a price, so the chain `priority,least-waste,price`
/// picks one group in every loop, as it does in a real cluster whose groups are all different.
fn groups(n: usize) -> Vec<NodeGroupSpec> {
    (0..n)
        .map(|i| {
            let family = i / 6;
            let cores = [2, 4, 8, 16, 32, 64].get(i % 6).copied().unwrap_or(2);
            let per_core = [4, 2, 8].get(family % 3).copied().unwrap_or(4);
            // $/core-hour: compute 0.0425, general 0.048, memory 0.063 at the first
            // generation, each later family of the kind ~1.7 % cheaper or dearer.
            let base = [0.048, 0.0425, 0.063]
                .get(family % 3)
                .copied()
                .unwrap_or(0.048);
            #[allow(clippy::cast_precision_loss)]
            let step = (family / 3) as f64;
            let rate = base * (1.0 + 0.017 * step * if family % 2 == 0 { 1.0 } else { -1.0 });
            let price = f64::from(cores) * rate;
            NodeGroupSpec {
                name: format!("group-{i:03}"),
                allocatable: capacity(
                    i64::from(cores) * 1000 - 80,
                    i64::from(cores * per_core) - 1,
                    110,
                ),
                capacity: capacity(i64::from(cores) * 1000, i64::from(cores * per_core), 110),
                labels: Vec::new(),
                taints: Vec::new(),
                min_size: 0,
                max_size: 20,
                current_size: 1,
                price_per_hour: Some(price),
                priorities: if family % 3 == 0 {
                    vec![10]
                } else {
                    Vec::new()
                },
                exists: true,
            }
        })
        .collect()
}

/// `total` Pending pods of three shapes.
fn pods(total: i64) -> Vec<PendingPods> {
    [(500, 1), (250, 2), (1000, 4)]
        .iter()
        .map(|&(cpu, gi)| PendingPods {
            request: Resources(vec![("cpu".into(), cpu), ("memory".into(), gi * GI)]),
            count: total / 3,
            node_selector: Vec::new(),
            tolerations: Vec::new(),
        })
        .collect()
}

fn main() {
    for (n, total) in [(10, 1_000), (100, 10_000)] {
        let input = NodeGroupsInput {
            groups: groups(n),
            expander: vec![Expander::Priority, Expander::LeastWaste, Expander::Price],
            priorities_configured: true,
            pod_pricing: PodPricing {
                per_core_hour: 0.033_174,
                per_gib_hour: 0.004_446,
            },
            daemonsets: capacity(200, 0, 3),
            max_nodes_total: None,
            max_nodes_per_scale_up: 1000,
            pod_request: Resources::default(),
            pod_request_source: "benchmark".into(),
        };
        let kinds = pods(total);
        let mut best = f64::INFINITY;
        let mut report = plan(&input, &kinds).report;
        for _ in 0..5 {
            let start = Instant::now();
            report = plan(&input, &kinds).report;
            best = best.min(start.elapsed().as_secs_f64());
        }
        println!(
            "{n} groups × {total} pods: {:.2} ms (best of 5); {} loops, {} nodes added, {} pods \
             Pending, outcome {}",
            best * 1000.0,
            report.loops.len(),
            report.nodes_added,
            report.unschedulable_pods,
            report.outcome
        );
    }
}
