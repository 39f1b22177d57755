//! The target's current count when a ScaledObject's inputs do not give it (no
//! `--current-replicas`, no `--target`, no pods) and its status does not determine it either
//! (`Active=True` with no count: KEDA leaves the count to the HPA). The front end assumes a count
//! (`Source::Default`) and says so; here every count the HPA may run at, `0..=maxReplicas`, runs
//! forward through the same poll and sync, and each other answer is listed with what settles it.
//! Where the status does determine the count (paused-replicas, an active fallback,
//! `ScalerCooldown`), `status::start` gives it and nothing is assumed.

use crate::calc::infer::counts_up_to;
use crate::report::{Outcome, Report};
use crate::scenario::{Scenario, Source};

/// The answer "the sync keeps the count it starts from", whichever count that is.
const KEEPS: i32 = -1;
/// The headline's own answer.
const MINE: i32 = -2;

/// What settles the count.
const SETTLE: &str = "pass --current-replicas N (or --target with kubectl get deploy NAME -o json)";

/// Adds the answers at the other counts the target may run at to `report` (computed at the
/// assumed `scenario.current_replicas`), and names the assumption in the summary.
pub fn check(scenario: &Scenario, run: impl Fn(&Scenario) -> Report, report: &mut Report) {
    let Some(k) = &scenario.keda else {
        return;
    };
    if scenario.current_replicas_source != Source::Default {
        return;
    }
    let assumed = scenario.current_replicas;
    let with = |c: i32| Scenario {
        current_replicas: c,
        status_replicas: c,
        ..scenario.clone()
    };
    let results: Vec<(i32, i32)> = counts_up_to(k.max_replica_count)
        .map(|c| match c == assumed {
            true => (c, report.desired_replicas),
            false => (c, run(&with(c)).desired_replicas),
        })
        .collect();
    // Each distinct answer, with the runs of counts that give it: the headline's number is
    // one; a count the sync keeps that no other count leads to is "the count stays".
    let mut answers: Vec<(i32, Vec<(i32, i32)>)> = Vec::new();
    for &(c, desired) in &results {
        let alone = results.iter().filter(|r| r.1 == desired).count() == 1;
        let desired = match desired {
            d if d == report.desired_replicas => MINE,
            d if d == c && alone => KEEPS,
            d => d,
        };
        match answers.iter_mut().find(|a| a.0 == desired) {
            Some((_, runs)) => match runs.last_mut() {
                Some(last) if last.1 + 1 == c => last.1 = c,
                _ => runs.push((c, c)),
            },
            None => answers.push((desired, vec![(c, c)])),
        }
    }
    let at_assumed =
        format!("at the assumed current count {assumed}, which the inputs do not give");
    let top = k.max_replica_count;
    match answers.as_slice() {
        [(MINE, _)] => {
            report.decision.summary = format!(
                "{}; {at_assumed}, and every count from 0 to {top} gives the same answer",
                report.decision.summary
            );
            return;
        }
        [(MINE, _), (KEEPS, runs)] | [(KEEPS, runs), (MINE, _)]
            if report.desired_replicas == assumed && runs.len() == 1 =>
        {
            report.decision.summary = format!(
                "{}; {at_assumed}, and from every count from 0 to {top} the sync keeps the \
                 count it starts from",
                report.decision.summary
            );
            return;
        }
        _ => {}
    }
    report.decision.summary = format!("{}; {at_assumed}", report.decision.summary);
    for (desired, runs) in answers.into_iter().filter(|a| a.0 != MINE) {
        let counts = (runs.iter())
            .map(|&(low, high)| match high - low {
                0 => low.to_string(),
                _ => format!("{low}–{high}"),
            })
            .collect::<Vec<_>>()
            .join(", ");
        let when = format!("if the target runs {counts} replica(s) now");
        let (replicas, what) = match desired {
            KEEPS => (
                runs.first().map_or(assumed, |r| r.0),
                "the count stays where it is".to_string(),
            ),
            n => (n, n.to_string()),
        };
        report.decision.summary = format!("{}; or {what} {when}", report.decision.summary);
        report.other_outcomes.push(Outcome {
            replicas,
            when: match desired {
                KEEPS => format!("{when} (the count stays where it is)"),
                _ => when,
            },
            settle: SETTLE.to_string(),
        });
    }
    report.assumptions.push(format!(
        "The target's current count is not in the inputs: {assumed} assumed; the answer depends \
         on it: {SETTLE}."
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::evaluate;
    use crate::calc::keda::status::tests::{condition, so};
    use crate::scenario::keda::{KedaStatus, TriggerValue};

    fn assumed(current: usize, lag: f64) -> Scenario {
        let mut s = so(current, 50, TriggerValue::Value(lag), false);
        s.pods = Vec::new().into();
        s.current_replicas_source = Source::Default;
        let k = s.keda.as_mut().unwrap();
        k.status = Some(KedaStatus {
            conditions: vec![condition("Active", "True", "ScalerActive")],
            ..KedaStatus::default()
        });
        s
    }

    /// A lag of 200 over lagThreshold 50 asks for 4, which every count from 0 to 10 reaches
    /// (the legacy scale-up limit is at least 4; steady history lets a scale-down through):
    /// the summary says the answer rests on no count.
    #[test]
    fn a_count_that_does_not_matter_is_said_and_adds_no_outcome() {
        let r = evaluate(&assumed(1, 200.0));
        assert!(r.other_outcomes.is_empty(), "{:?}", r.other_outcomes);
        assert!(
            r.decision.summary.contains("assumed current count 1")
                && r.decision.summary.contains("gives the same answer"),
            "{}",
            r.decision.summary
        );
    }

    /// A lag of 100000 asks for far more than maxReplicas 10: from 1 replica the legacy
    /// scale-up limit (max(2 × current, 4)) gives 4, from 3 it gives 6: the answer depends on
    /// the count, and each other answer is listed with what settles it, each one what the sync
    /// gives at that count.
    #[test]
    fn a_count_that_matters_lists_each_answer_with_what_settles_it() {
        let s = assumed(1, 100_000.0);
        let r = evaluate(&s);
        assert!(!r.other_outcomes.is_empty(), "{}", r.decision.summary);
        for o in &r.other_outcomes {
            assert_ne!(o.replicas, r.desired_replicas);
            assert!(o.settle.contains("--current-replicas"), "{o:?}");
            // Each listed answer is what the sync gives at a count in its range.
            let low: i32 = o
                .when
                .trim_start_matches("if the target runs ")
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .unwrap()
                .parse()
                .unwrap();
            let at = Scenario {
                current_replicas: low,
                status_replicas: low,
                current_replicas_source: Source::Flag,
                ..s.clone()
            };
            assert_eq!(evaluate(&at).desired_replicas, o.replicas, "{o:?}");
        }
        assert!(
            (r.assumptions.iter()).any(|a| a.contains("1 assumed")),
            "{:?}",
            r.assumptions
        );
    }

    /// A count given (a flag) is not searched.
    #[test]
    fn a_given_count_is_not_searched() {
        let mut s = assumed(1, 100_000.0);
        s.current_replicas_source = Source::Flag;
        let r = evaluate(&s);
        assert!(r.other_outcomes.is_empty());
        assert!(!r.decision.summary.contains("assumed"));
    }
}
