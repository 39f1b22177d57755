//! The expanders that count: most-pods (`expander/mostpods/mostpods.go`), least-nodes
//! (`expander/leastnodes/leastnodes.go`), and random (`expander/random/random.go`), which
//! hpacalc never rolls: every option it would pick among is a tie.

use super::candidate::{Candidate, Filtered, float};

// Port of mostpods.BestOptions: the options with the most pods; an option with none ties at 0.
pub fn most_pods(cands: &[Candidate], among: &[usize]) -> Filtered {
    let mut max_pods = 0;
    let mut best = Vec::new();
    let mut scores = Vec::with_capacity(among.len());
    for &i in among {
        let Some(c) = cands.get(i) else { continue };
        scores.push((i, float(c.pod_count)));
        if c.pod_count == max_pods {
            best.push(i);
        } else if c.pod_count > max_pods {
            max_pods = c.pod_count;
            best = vec![i];
        }
    }
    Filtered { kept: best, scores }
}

// Port of leastnodes.BestOptions: the options with the fewest nodes, skipping any with none.
pub fn least_nodes(cands: &[Candidate], among: &[usize]) -> Filtered {
    let mut least = i64::MAX;
    let mut best = Vec::new();
    let mut scores = Vec::with_capacity(among.len());
    for &i in among {
        let Some(c) = cands.get(i) else { continue };
        if c.node_count == 0 {
            continue;
        }
        scores.push((i, float(c.node_count)));
        if c.node_count == least {
            best.push(i);
        } else if c.node_count < least {
            least = c.node_count;
            best = vec![i];
        }
    }
    Filtered { kept: best, scores }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::node_groups::testing::candidate;

    #[test]
    fn most_pods_keeps_every_option_with_the_most_pods() {
        let cands = [
            candidate("a", 1, 2),
            candidate("b", 3, 5),
            candidate("c", 2, 5),
        ];
        assert_eq!(most_pods(&cands, &[0, 1, 2]).kept, [1, 2]);
    }

    #[test]
    fn least_nodes_skips_options_without_nodes() {
        let cands = [
            candidate("a", 0, 2),
            candidate("b", 3, 5),
            candidate("c", 2, 5),
        ];
        assert_eq!(least_nodes(&cands, &[0, 1, 2]).kept, [2]);
        assert!(least_nodes(&cands, &[0]).kept.is_empty());
    }
}
