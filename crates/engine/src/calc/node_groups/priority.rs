//! The priority expander (`expander/priority/priority.go`): the options of the highest priority
//! level whose expressions match the group's name. The ConfigMap's expressions are matched by the
//! input side; here each option carries the levels that matched.

use super::candidate::{Candidate, ExpanderContext, Filtered, float};

/// The event the expander records for a group no expression matches.
pub fn not_found_warning(group: &str) -> String {
    format!(
        "Priority expander: node group {group} not found in priority expander configuration. \
         The group won't be used."
    )
}

// Port of priority.BestOptions. Levels start at -1, so a group matched only below -1 never wins;
// without a ConfigMap, or when no option matches, every option is kept.
pub fn best_options(cands: &[Candidate], among: &[usize], ctx: &ExpanderContext) -> Filtered {
    if among.is_empty() {
        return Filtered::default();
    }
    if !ctx.priorities_configured {
        return Filtered {
            kept: among.to_vec(),
            scores: Vec::new(),
        };
    }
    let mut max_prio = -1;
    let mut best: Vec<usize> = Vec::new();
    let mut scores = Vec::new();
    for &i in among {
        let Some(c) = cands.get(i) else { continue };
        // Go ranges over a map; the outcome does not depend on the order, so ascending.
        let mut levels = c.priorities.clone();
        levels.sort_unstable();
        levels.dedup();
        if let Some(top) = levels.last() {
            scores.push((i, float(*top)));
        }
        for prio in levels {
            if prio < max_prio {
                continue;
            }
            if prio > max_prio {
                max_prio = prio;
                best.clear();
            }
            best.push(i);
        }
    }
    if best.is_empty() {
        return Filtered {
            kept: among.to_vec(),
            scores,
        };
    }
    Filtered { kept: best, scores }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::node_groups::testing::candidate;

    fn with(name: &str, levels: &[i64]) -> Candidate {
        let mut c = candidate(name, 1, 1);
        c.priorities = levels.to_vec();
        c
    }

    fn ctx() -> ExpanderContext {
        ExpanderContext {
            stabilization_price: None,
            preferred_cpu: 1000,
            priorities_configured: true,
        }
    }

    #[test]
    fn the_highest_matched_level_wins_and_ties_stay() {
        let cands = [with("a", &[1]), with("b", &[10]), with("c", &[10, 1])];
        assert_eq!(best_options(&cands, &[0, 1, 2], &ctx()).kept, [1, 2]);
    }

    #[test]
    fn unmatched_groups_and_levels_below_minus_one_are_never_chosen() {
        let cands = [with("a", &[]), with("b", &[-5]), with("c", &[-1])];
        assert_eq!(best_options(&cands, &[0, 1, 2], &ctx()).kept, [2]);
        // Nothing matched at -1 or above: every option is kept.
        assert_eq!(best_options(&cands, &[0, 1], &ctx()).kept, [0, 1]);
    }

    #[test]
    fn without_a_config_map_every_option_is_kept() {
        let cands = [with("a", &[1]), with("b", &[10])];
        let mut c = ctx();
        c.priorities_configured = false;
        assert_eq!(best_options(&cands, &[0, 1], &c).kept, [0, 1]);
    }
}
