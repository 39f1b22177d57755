//! The expander chain (`expander/factory/chain.go`, `expander_factory.go`): each expander
//! filters what the one before kept, until one option remains; `random` decides what is left,
//! and hpacalc reports that as a tie instead of rolling the die.

use super::candidate::{Candidate, ExpanderContext, Filtered};
use super::{price, priority, simple, waste};
use crate::scenario::node_groups::Expander;

/// Why a chain is refused, in `Factory.Build`'s words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChainError {
    Unknown(String),
    Repeated(String),
    AfterStrategy { name: String, previous: String },
}

impl std::fmt::Display for ChainError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChainError::Unknown(name) => write!(f, "Expander {name} not supported"),
            ChainError::Repeated(name) => write!(
                f,
                "Expander {name} was specified multiple times, each expander must not be \
                 specified more than once"
            ),
            ChainError::AfterStrategy { name, previous } => write!(
                f,
                "Expander {name} came after an expander {previous} that will always return only \
                 one result, this is not allowed since {name} will never be used"
            ),
        }
    }
}

// Port of Factory.Build: each name known, once, and nothing after a strategy (random).
pub fn build(names: &[&str]) -> Result<Vec<Expander>, ChainError> {
    let mut chain: Vec<Expander> = Vec::with_capacity(names.len());
    let mut previous: Option<&str> = None;
    for (i, &name) in names.iter().enumerate() {
        if names.iter().take(i).any(|n| *n == name) {
            return Err(ChainError::Repeated(name.to_string()));
        }
        if chain.last().is_some_and(|e| e.is_strategy()) {
            return Err(ChainError::AfterStrategy {
                name: name.to_string(),
                previous: previous.unwrap_or_default().to_string(),
            });
        }
        previous = Some(name);
        let e = Expander::from_name(name).ok_or_else(|| ChainError::Unknown(name.to_string()))?;
        chain.push(e);
    }
    Ok(chain)
}

/// One expander's pass: what it looked at, scored and kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub expander: Expander,
    pub filtered: Filtered,
}

/// The chain's answer: one option, or a tie that `random` would break.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outcome {
    pub steps: Vec<Step>,
    pub chosen: Option<usize>,
    /// The options `random` picks among (two or more); empty when one was chosen or none left.
    pub tied: Vec<usize>,
}

fn filter(e: Expander, cands: &[Candidate], among: &[usize], ctx: &ExpanderContext) -> Filtered {
    match e {
        Expander::LeastWaste => waste::best_options(cands, among),
        Expander::MostPods => simple::most_pods(cands, among),
        Expander::LeastNodes => simple::least_nodes(cands, among),
        Expander::Priority => priority::best_options(cands, among, ctx),
        Expander::Price => price::best_options(cands, among, ctx),
        // Random picks one of what it gets: all of them are tied.
        Expander::Random => Filtered {
            kept: among.to_vec(),
            scores: Vec::new(),
        },
    }
}

// Port of chainStrategy.BestOption: each filter narrows what the one before kept; stop as soon
// as one option remains. Returns what is left for the fallback strategy (one option or more, or
// none), whatever the filters are.
pub fn narrow<F>(count: usize, filters: impl IntoIterator<Item = F>) -> Vec<usize>
where
    F: FnOnce(&[usize]) -> Vec<usize>,
{
    let mut among: Vec<usize> = (0..count).collect();
    for filter in filters {
        among = filter(&among);
        if among.len() == 1 {
            break;
        }
    }
    among
}

/// The chain of expanders over `cands`: each pass recorded, then the fallback (random) as a tie.
pub fn choose(chain: &[Expander], cands: &[Candidate], ctx: &ExpanderContext) -> Outcome {
    let steps = std::cell::RefCell::new(Vec::with_capacity(chain.len()));
    let among = narrow(
        cands.len(),
        chain.iter().map(|&e| {
            let steps = &steps;
            move |among: &[usize]| {
                let filtered = filter(e, cands, among, ctx);
                let kept = filtered.kept.clone();
                steps.borrow_mut().push(Step {
                    expander: e,
                    filtered,
                });
                kept
            }
        }),
    );
    let mut outcome = Outcome {
        steps: steps.into_inner(),
        ..Outcome::default()
    };
    match among.len() {
        0 => {}
        1 => outcome.chosen = among.first().copied(),
        _ => outcome.tied = among,
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::node_groups::testing::candidate;

    const CTX: ExpanderContext = ExpanderContext {
        stabilization_price: None,
        preferred_cpu: 1000,
        priorities_configured: false,
    };

    #[test]
    fn build_refuses_repeats_unknown_names_and_anything_after_random() {
        assert_eq!(
            build(&["most-pods", "least-waste"]),
            Ok(vec![Expander::MostPods, Expander::LeastWaste])
        );
        assert_eq!(
            build(&["price", "price"]),
            Err(ChainError::Repeated("price".into()))
        );
        assert_eq!(
            build(&["random", "price"]),
            Err(ChainError::AfterStrategy {
                name: "price".into(),
                previous: "random".into()
            })
        );
        assert_eq!(build(&["grpc"]), Err(ChainError::Unknown("grpc".into())));
    }

    #[test]
    fn the_chain_stops_at_one_option_and_reports_a_tie_otherwise() {
        let cands = [
            candidate("a", 1, 5),
            candidate("b", 2, 5),
            candidate("c", 1, 3),
        ];
        let o = choose(&[Expander::MostPods, Expander::LeastNodes], &cands, &CTX);
        assert_eq!((o.chosen, o.steps.len()), (Some(0), 2));
        let o = choose(&[Expander::MostPods], &cands, &CTX);
        assert_eq!((o.chosen, o.tied), (None, vec![0, 1]));
    }
}
