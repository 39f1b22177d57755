//! The least-waste expander (`expander/waste/waste.go`): the option that leaves the smallest
//! fraction of cpu and memory of its new nodes unrequested.

use super::candidate::{Candidate, Filtered, float};

/// The wasted fraction of cpu plus that of memory, over the new nodes' capacity.
pub fn wasted_score(c: &Candidate) -> f64 {
    let avail_cpu = c.capacity_cpu.saturating_mul(c.node_count);
    let avail_memory = c.capacity_memory.saturating_mul(c.node_count);
    let wasted_cpu = float(avail_cpu - c.requested_cpu) / float(avail_cpu);
    let wasted_memory = float(avail_memory - c.requested_memory) / float(avail_memory);
    wasted_cpu + wasted_memory
}

// Port of leastwaste.BestOptions: every option at the least score, in order. The first option
// sets the score even when it is larger than 0 (`leastWastedOptions == nil`).
pub fn best_options(cands: &[Candidate], among: &[usize]) -> Filtered {
    let mut least = 0.0;
    let mut best: Option<Vec<usize>> = None;
    let mut scores = Vec::with_capacity(among.len());
    for &i in among {
        let Some(c) = cands.get(i) else { continue };
        let score = wasted_score(c);
        scores.push((i, score));
        #[allow(clippy::float_cmp)]
        if score == least {
            best.get_or_insert_with(Vec::new).push(i);
        }
        if best.is_none() || score < least {
            least = score;
            best = Some(vec![i]);
        }
    }
    Filtered {
        kept: best.unwrap_or_default(),
        scores,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::node_groups::testing::candidate;

    #[test]
    fn least_waste_keeps_the_option_wasting_the_least_cpu_plus_memory() {
        // 1 pod of 500m / 1000Mi: 16 × that is "balanced", 32 × memory "highmem".
        let mut balanced = candidate("balanced", 1, 1);
        (balanced.capacity_cpu, balanced.capacity_memory) = (8000, 16_000);
        (balanced.requested_cpu, balanced.requested_memory) = (500, 1000);
        let mut highmem = balanced.clone();
        highmem.group = "highmem".into();
        highmem.capacity_memory = 32_000;
        let cands = [balanced, highmem];
        assert_eq!(best_options(&cands, &[0, 1]).kept, [0]);
    }

    #[test]
    fn equal_waste_keeps_every_option_in_order() {
        let cands = [candidate("a", 1, 1), candidate("b", 1, 1)];
        assert_eq!(best_options(&cands, &[0, 1]).kept, [0, 1]);
    }
}
