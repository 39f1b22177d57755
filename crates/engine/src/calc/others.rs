//! `computeReplicasForMetrics`'s choice with one metric's proposal replaced, in constant time:
//! the hold band probes each metric at many values while the other metrics' proposals stay as
//! they are, so their part of the choice is folded once, not at every probe (20,000 metrics
//! would otherwise cost 20,000² folds a probe).

use crate::calc::metrics::{Choice, choose};

/// The fold of `choose` so far: the winning proposal and its metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Fold {
    replicas: i32,
    winner: Option<usize>,
}

impl Fold {
    // The step of computeReplicasForMetrics (horizontal.go): `replicas == 0 || proposal >
    // replicas` takes the proposal.
    fn step(self, proposal: i32, index: usize) -> Fold {
        if self.replicas == 0 || proposal > self.replicas {
            Fold {
                replicas: proposal,
                winner: Some(index),
            }
        } else {
            self
        }
    }
}

/// What the proposals after one metric do to the fold, for any state it reaches them in.
#[derive(Debug, Clone, Copy, Default)]
struct Suffix {
    /// The largest positive proposal and where it first is. Once the fold holds a positive
    /// count it never falls to 0 again, so only a larger proposal can take it; before, the
    /// first positive one takes it. Either way the fold ends at this maximum or at its state.
    max_positive: Option<(i32, usize)>,
    invalid: usize,
    first_invalid: Option<usize>,
}

/// The other metrics' proposals, folded once.
pub struct Others {
    proposals: Vec<Option<i32>>,
    /// The fold of the proposals before each metric, and their invalid ones.
    prefix: Vec<(Fold, usize, Option<usize>)>,
    suffix: Vec<Suffix>,
    spec_replicas: i32,
}

impl Others {
    pub fn new(proposals: Vec<Option<i32>>, spec_replicas: i32) -> Others {
        let n = proposals.len();
        let mut prefix = Vec::with_capacity(n);
        let (mut fold, mut invalid, mut first_invalid) = (Fold::default(), 0, None);
        for (i, p) in proposals.iter().enumerate() {
            prefix.push((fold, invalid, first_invalid));
            match p {
                Some(p) => fold = fold.step(*p, i),
                None => {
                    first_invalid = first_invalid.or(Some(i));
                    invalid += 1;
                }
            }
        }
        let mut suffix = vec![Suffix::default(); n];
        let mut after = Suffix::default();
        for i in (0..n).rev() {
            if let Some(slot) = suffix.get_mut(i) {
                *slot = after;
            }
            match proposals.get(i).copied().flatten() {
                // `>=`: going backwards, an equal maximum found later is the earlier one.
                Some(p) if p > 0 && after.max_positive.is_none_or(|(m, _)| p >= m) => {
                    after.max_positive = Some((p, i));
                }
                Some(_) => {}
                None => {
                    after.invalid += 1;
                    after.first_invalid = Some(i);
                }
            }
        }
        Others {
            proposals,
            prefix,
            suffix,
            spec_replicas,
        }
    }

    /// `choose` over the proposals with metric `index`'s replaced by `proposal`.
    pub fn choose_with(&self, index: usize, proposal: Option<i32>) -> Choice {
        let (Some(&(before, pre_invalid, pre_first)), Some(after)) =
            (self.prefix.get(index), self.suffix.get(index))
        else {
            let mut all = self.proposals.clone();
            if let Some(slot) = all.get_mut(index) {
                *slot = proposal;
            }
            return choose(all.into_iter(), self.spec_replicas);
        };
        let mut fold = before;
        let mut invalid = pre_invalid;
        let mut first_invalid = pre_first;
        match proposal {
            Some(p) => fold = fold.step(p, index),
            None => {
                first_invalid = first_invalid.or(Some(index));
                invalid += 1;
            }
        }
        fold = match after.max_positive {
            Some((max, at)) if fold.replicas <= 0 || max > fold.replicas => Fold {
                replicas: max,
                winner: Some(at),
            },
            Some(_) => fold,
            // No positive proposal after: the fold from a positive count stays; from 0 or below
            // the zeros and negatives decide, step by step (no metric of a real HPA is here).
            None if fold.replicas > 0 => fold,
            None => (index + 1..self.proposals.len()).fold(fold, |f, i| {
                match self.proposals.get(i).copied().flatten() {
                    Some(p) => f.step(p, i),
                    None => f,
                }
            }),
        };
        invalid += after.invalid;
        first_invalid = first_invalid.or(after.first_invalid);
        let count = self.proposals.len();
        let failed = invalid >= count || (invalid > 0 && fold.replicas < self.spec_replicas);
        Choice {
            failed,
            replicas: if failed { -1 } else { fold.replicas },
            winner: if failed { None } else { fold.winner },
            invalid_count: invalid,
            first_invalid,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn the_folded_choice_is_the_choice(
            proposals in prop::collection::vec(prop::option::weighted(0.85, -3i32..6), 1..12),
            index in 0usize..12,
            candidate in prop::option::weighted(0.85, -3i32..6),
            spec in 0i32..6,
        ) {
            let index = index % proposals.len();
            let mut all = proposals.clone();
            all[index] = candidate;
            let want = choose(all.into_iter(), spec);
            let got = Others::new(proposals, spec).choose_with(index, candidate);
            prop_assert_eq!(
                (got.failed, got.replicas, got.winner, got.invalid_count, got.first_invalid),
                (want.failed, want.replicas, want.winner, want.invalid_count, want.first_invalid)
            );
        }
    }
}
