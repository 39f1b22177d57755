//! The price expander (`expander/price/price.go`, `preferred.go`): how well the money is spent
//! (node price over pod price, both stabilized), times how far the node is from the preferred
//! node for the cluster's size, doubled for a group that does not exist yet.

use super::candidate::{Candidate, ExpanderContext, Filtered, float};
use crate::scenario::node_groups::PodPricing;

/// `notExistCoeficient`: the penalty of a group the autoscaler would have to create.
const NOT_EXIST_COEFFICIENT: f64 = 2.0;
/// `gpuUnfitnessOverride`: a GPU node is never the shape the cluster prefers.
const GPU_UNFITNESS_OVERRIDE: f64 = 1000.0;
/// `priceStabilizationPod`: 500m and 500Mi.
const STABILIZATION_CPU_MILLI: i64 = 500;
const STABILIZATION_MEMORY_BYTES: i64 = 500 * 1024 * 1024;
const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

// Port of SimplePreferredNodeProvider.Node: the preferred node's cpu doubles each time the
// cluster's node count triples (1, 2, 4, 8, 16, 32 cores).
pub fn preferred_node_cpu(cluster_nodes: i64) -> i64 {
    let cores = match cluster_nodes {
        ..=2 => 1,
        3..=6 => 2,
        7..=20 => 4,
        21..=60 => 8,
        61..=200 => 16,
        _ => 32,
    };
    cores * 1000
}

// Port of SimpleNodeUnfitness: the ratio of the larger to the smaller cpu capacity.
pub fn node_unfitness(preferred_cpu: i64, evaluated_cpu: i64) -> f64 {
    let (p, e) = (float(preferred_cpu), float(evaluated_cpu));
    (p / e).max(e / p)
}

/// `PodPrice` for `cpu_milli` and `memory_milli` (milli-bytes) for one hour.
pub fn pod_price(pricing: &PodPricing, cpu_milli: i64, memory_milli: i64) -> f64 {
    float(cpu_milli) / 1000.0 * pricing.per_core_hour
        + float(memory_milli) / 1000.0 / GIB * pricing.per_gib_hour
}

/// `PodPrice(priceStabilizationPod)`.
pub fn stabilization_price(pricing: &PodPricing) -> f64 {
    pod_price(
        pricing,
        STABILIZATION_CPU_MILLI,
        STABILIZATION_MEMORY_BYTES * 1000,
    )
}

/// The option's score, lower is better; `None` when its node or pods have no price.
pub fn option_score(c: &Candidate, ctx: &ExpanderContext) -> Option<f64> {
    let node_price = c.node_price?;
    let total_pod_price = c.pods_price?;
    let stabilization = ctx.stabilization_price.unwrap_or(0.0);
    let total_node_price = node_price * float(c.node_count);
    let price_sub_score = (total_node_price + stabilization) / (total_pod_price + stabilization);
    let unfitness = node_unfitness(ctx.preferred_cpu, c.capacity_cpu);
    let mut suppressed = (unfitness - 1.0) * (1.0 - (float(c.node_count - 1) / 15.0).tanh()) + 1.0;
    if c.has_gpu {
        suppressed = GPU_UNFITNESS_OVERRIDE;
    }
    let mut score = suppressed * price_sub_score;
    if !c.exists {
        score *= NOT_EXIST_COEFFICIENT;
    }
    Some(score)
}

// Port of priceBased.BestOptions: the options at the lowest score; options without a price are
// skipped, so none may remain.
pub fn best_options(cands: &[Candidate], among: &[usize], ctx: &ExpanderContext) -> Filtered {
    let mut best: Vec<usize> = Vec::new();
    let mut best_score = 0.0;
    let mut scores = Vec::with_capacity(among.len());
    for &i in among {
        let Some(score) = cands.get(i).and_then(|c| option_score(c, ctx)) else {
            continue;
        };
        scores.push((i, score));
        #[allow(clippy::float_cmp)]
        if best.is_empty() || best_score == score {
            best.push(i);
            best_score = score;
        } else if best_score > score {
            best = vec![i];
            best_score = score;
        }
    }
    Filtered { kept: best, scores }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::node_groups::testing::candidate;

    fn ctx(preferred_cpu: i64) -> ExpanderContext {
        ExpanderContext {
            stabilization_price: Some(10.0),
            preferred_cpu,
            priorities_configured: false,
        }
    }

    fn priced(name: &str, nodes: i64, cpu: i64, node_price: f64, pods_price: f64) -> Candidate {
        let mut c = candidate(name, nodes, 2);
        c.capacity_cpu = cpu;
        c.node_price = Some(node_price);
        c.pods_price = Some(pods_price);
        c
    }

    #[test]
    fn the_preferred_node_doubles_as_the_cluster_triples() {
        let cpu: Vec<i64> = [0, 2, 3, 6, 7, 20, 21, 60, 61, 200, 201]
            .iter()
            .map(|n| preferred_node_cpu(*n) / 1000)
            .collect();
        assert_eq!(cpu, [1, 1, 2, 2, 4, 4, 8, 8, 16, 16, 32]);
    }

    #[test]
    fn the_cheaper_group_wins_unless_the_other_is_the_preferred_shape() {
        let cands = [
            priced("ng1", 2, 1000, 20.0, 30.0),
            priced("ng2", 1, 4000, 200.0, 30.0),
        ];
        assert_eq!(best_options(&cands, &[0, 1], &ctx(2000)).kept, [0]);
        let cands = [
            priced("ng1", 2, 1000, 50.0, 30.0),
            priced("ng2", 1, 4000, 200.0, 30.0),
        ];
        assert_eq!(best_options(&cands, &[0, 1], &ctx(4000)).kept, [1]);
    }

    #[test]
    fn a_group_that_does_not_exist_pays_double_and_gpu_nodes_a_thousandfold() {
        let mut c = priced("ng", 1, 2000, 10.0, 10.0);
        let base = option_score(&c, &ctx(2000)).unwrap();
        assert!((base - 1.0).abs() < 1e-12);
        c.exists = false;
        assert!((option_score(&c, &ctx(2000)).unwrap() - 2.0).abs() < 1e-12);
        c.exists = true;
        c.has_gpu = true;
        assert!((option_score(&c, &ctx(2000)).unwrap() - 1000.0).abs() < 1e-9);
    }

    #[test]
    fn options_without_a_price_are_skipped() {
        let mut c = priced("ng", 1, 2000, 10.0, 10.0);
        c.node_price = None;
        assert!(best_options(&[c], &[0], &ctx(2000)).kept.is_empty());
    }
}
