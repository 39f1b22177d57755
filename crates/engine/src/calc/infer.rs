//! What the inputs hide, inferred by running the controller forward. Each unknown (a rescale's
//! recommendation, the pods without a sample behind a status average) gets a small integer
//! range; every candidate runs through the same `calc` functions the sync uses, and only those
//! that reproduce the evidence (an event's new size, `status.desiredReplicas`) are kept. No rule
//! is inverted by hand: the hand-written inverse is where the event bounds once ran the wrong
//! way (a legacy scale-up to 6 means the recommendation was at most 6, not at least).

use crate::calc::reconcile;
use crate::scenario::{BoundedRecommendation, ControllerMemory, Recommendation, Scenario};
use crate::time::Timestamp;

/// The largest candidate a search enumerates: beyond it every value is clamped by maxReplicas
/// the same way, so `maxReplicas` itself stands for the rest.
const LARGEST_CANDIDATE: i32 = 256;

/// The candidates whose forward run reproduces the evidence, in order: the one search every
/// inference here goes through.
pub fn survivors<T: Copy>(
    candidates: impl IntoIterator<Item = T>,
    mut reproduces: impl FnMut(T) -> bool,
) -> Vec<T> {
    candidates.into_iter().filter(|&c| reproduces(c)).collect()
}

/// The candidate counts `0..=maxReplicas`, cut at `LARGEST_CANDIDATE` with maxReplicas kept.
pub fn counts_up_to(max_replicas: i32) -> impl Iterator<Item = i32> + Clone {
    let top = max_replicas.clamp(0, LARGEST_CANDIDATE);
    (0..=top).chain((max_replicas > top).then_some(max_replicas))
}

/// What a rescale's sync can have recommended, found forward: every recommendation `r` for
/// which that sync, from the size before it and the memory before it, sets the event's new size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecommendationRange {
    pub bound: BoundedRecommendation,
    /// The size before the rescale (the new size minus the scale event's change).
    pub from: i32,
    pub low: i32,
    pub high: i32,
}

impl RecommendationRange {
    pub fn scale_down(&self) -> bool {
        self.bound.new_size < self.from
    }
}

/// The range of each bounded recommendation (`None` where no forward run reproduces the event,
/// or its size before is unknown: it then stays at its bound).
///
/// The syncs between rescales leave no event: one unknown sync a period before the rescale is
/// searched too, with any recommendation (or none) that kept the count at the size before.
pub fn recommendation_ranges(s: &Scenario) -> Vec<Option<RecommendationRange>> {
    let Some(memory) = &s.memory else {
        return vec![None; s.bounded.len()];
    };
    let mut past = Scenario {
        pods: Vec::new().into(),
        memory: None,
        bounded: Vec::new(),
        ..s.clone()
    };
    (s.bounded.iter())
        .map(|b| range_of(&mut past, memory, *b))
        .collect()
}

fn range_of(
    past: &mut Scenario,
    memory: &ControllerMemory,
    bound: BoundedRecommendation,
) -> Option<RecommendationRange> {
    let from = size_before(memory, &bound)?;
    let before = memory_before(memory, bound.timestamp);
    let period = past.config.sync_period;
    let candidates = counts_up_to(past.hpa.max_replicas);
    // The sync a period before: no recommendation in sight, or one that kept `from`.
    past.current_replicas = from;
    past.now = bound.timestamp.sub(period);
    let earlier: Vec<Option<i32>> = std::iter::once(None)
        .chain(
            survivors(candidates.clone(), |e| sync_sets(past, &before, e) == from)
                .into_iter()
                .map(Some),
        )
        .collect();
    past.now = bound.timestamp;
    let mut low: Option<i32> = None;
    let mut high: Option<i32> = None;
    for e in earlier {
        let mut memory = before.clone();
        if let Some(replicas) = e {
            let timestamp = bound.timestamp.sub(period);
            memory.recommendations.push(Recommendation {
                replicas,
                timestamp,
            });
        }
        let kept = survivors(candidates.clone(), |r| {
            sync_sets(past, &memory, r) == bound.new_size
        });
        if let (Some(&first), Some(&last)) = (kept.first(), kept.last()) {
            low = Some(low.map_or(first, |l| l.min(first)));
            high = Some(high.map_or(last, |h| h.max(last)));
        }
    }
    Some(RecommendationRange {
        bound,
        from,
        low: low?,
        high: high?,
    })
}

/// The count the controller's sync sets with the metrics recommending `r`, from `memory`
/// (`reconcile::probe`: normalization, rate limits and min/max as the sync runs them).
fn sync_sets(past: &Scenario, memory: &ControllerMemory, r: i32) -> i32 {
    reconcile::probe(past, memory, true, &[Some(r)]).desired
}

/// The size before a rescale: its new size less the change of the scale event at its time.
fn size_before(memory: &ControllerMemory, b: &BoundedRecommendation) -> Option<i32> {
    let at = |events: &[crate::scenario::ScaleEvent]| {
        (events.iter())
            .find(|e| e.timestamp == b.timestamp)
            .map(|e| e.replica_change)
    };
    if let Some(up) = at(&memory.scale_up_events) {
        return Some(b.new_size - up);
    }
    at(&memory.scale_down_events).map(|down| b.new_size + down)
}

/// What the controller remembered before `t`: the recommendations and scale events older.
fn memory_before(memory: &ControllerMemory, t: Timestamp) -> ControllerMemory {
    ControllerMemory {
        recommendations: (memory.recommendations.iter())
            .filter(|r| r.timestamp.before(t))
            .copied()
            .collect(),
        scale_up_events: (memory.scale_up_events.iter())
            .filter(|e| e.timestamp.before(t))
            .copied()
            .collect(),
        scale_down_events: (memory.scale_down_events.iter())
            .filter(|e| e.timestamp.before(t))
            .copied()
            .collect(),
    }
}

/// The scenario with each ranged recommendation of its memory set by `pick` (a range's low or
/// high end); recommendations without a range stay at their bound.
pub fn with_recommendations(
    s: &Scenario,
    ranges: &[Option<RecommendationRange>],
    pick: impl Fn(&RecommendationRange) -> i32,
) -> Scenario {
    let mut out = s.clone();
    if let Some(memory) = &mut out.memory {
        for range in ranges.iter().flatten() {
            let b = range.bound;
            let slot = (memory.recommendations.iter_mut())
                .find(|r| r.timestamp == b.timestamp && r.replicas == b.new_size);
            if let Some(r) = slot {
                r.replicas = pick(range);
            }
        }
    }
    out
}

/// The pods the status hides behind its averages, found forward: the counts of pods unready
/// (`unready`) and without a sample (`missing`) for which the controller's last sync, from the
/// status's count and values, gives `status.desiredReplicas`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HiddenPods {
    /// The fewest pods hidden that reproduce the status's count.
    pub least: usize,
    /// `(unready, missing)` with `least` hidden that reproduce it.
    pub counts: Vec<(usize, usize)>,
    pub replicas: usize,
    /// `status.desiredReplicas`: what the sync gives while they stay so.
    pub status_desired: i32,
    /// What the status's values give with every pod ready and reporting.
    pub all_reporting: i32,
    /// The status's `ScalingLimited`, reproduced too (`ScalingLimited=True TooManyReplicas`).
    pub limit: Option<String>,
}

/// For an answer from the status alone that disagrees with `status.desiredReplicas` (from the
/// same count): the fewest hidden pods that reproduce it, and the scenario with them.
///
/// Two unknowns, because the recount treats them apart (`GetResourceReplicas`): on a scale-up
/// both count at 0; on a scale-down a pod without a sample counts at the target and an unready
/// one (cpu, inside its initialization period) drops out. The averages the status holds are over
/// the other pods, which stay alike: which pods are hidden does not matter, only how many. The
/// totals are tried from 1 up, each split into at most 16 ways, at most 16 totals (a stride on
/// larger targets), and the search stops at the first total that reproduces the count.
pub fn hidden_pods(s: &Scenario, report: &crate::report::Report) -> Option<(HiddenPods, Scenario)> {
    let o = s.observed_status.as_ref()?;
    let d = o.desired_replicas?;
    let same_count = o.current_replicas == Some(s.current_replicas);
    // `ScalingLimited` is evidence too: the values kept must reproduce its status and reason.
    let limit = crate::calc::evidence::stated_limit(s);
    let computed_limit = (report.conditions.iter()).find(|c| c.condition_type == "ScalingLimited");
    let agrees = crate::calc::evidence::agrees_with_limit(limit, computed_limit);
    if !s.approximation
        || !same_count
        || (d == report.desired_replicas && agrees)
        || s.pods.len() < 2
    {
        return None;
    }
    let n = s.pods.len();
    let mut trial = s.clone();
    for total in (1..n).step_by(n.div_ceil(16).max(1)) {
        let splits = (0..=total).step_by((total / 16).max(1));
        let counts = survivors(splits.map(|u| (u, total - u)), |(u, m)| {
            hide(s, &mut trial, u, m);
            let sync = sync_of(&trial);
            sync.desired_replicas == d
                && crate::calc::evidence::agrees_with_limit(
                    limit,
                    sync.conditions.get("ScalingLimited"),
                )
        });
        let Some(&(u, m)) = counts.first() else {
            continue;
        };
        hide(s, &mut trial, u, m);
        let hidden = HiddenPods {
            least: total,
            counts,
            replicas: n,
            status_desired: d,
            all_reporting: report.desired_replicas,
            limit: (limit.filter(|c| c.status == "True"))
                .map(|c| format!("ScalingLimited=True {}", c.reason)),
        };
        return Some((hidden, trial));
    }
    None
}

/// `trial` as `s` with the last `missing` pods without samples (every metric's) and the
/// `unready` before them unready: Ready=False since now, started now (inside the cpu
/// initialization period).
fn hide(s: &Scenario, trial: &mut Scenario, unready: usize, missing: usize) {
    let n = s.pods.len();
    let sampled = n.saturating_sub(missing);
    let ready = sampled.saturating_sub(unready);
    for (i, (pod, original)) in trial.pods.iter_mut().zip(&s.pods).enumerate() {
        pod.clone_from(original);
        if (ready..sampled).contains(&i) {
            pod.start_time = Some(s.now);
            pod.ready = Some(crate::scenario::ReadyCondition {
                status: crate::scenario::ConditionStatus::False,
                last_transition_time: s.now,
            });
        }
    }
    let hidden: std::collections::HashSet<&str> = (s.pods.iter().skip(sampled))
        .map(|p| p.name.as_str())
        .collect();
    trial.metrics.resource = (s.metrics.resource.iter())
        .filter(|m| !hidden.contains(m.pod.as_str()))
        .cloned()
        .collect();
    for (&index, values) in &s.metrics.pods {
        let kept = (values.iter())
            .filter(|v| !hidden.contains(v.pod.as_str()))
            .cloned()
            .collect();
        trial.metrics.pods.insert(index, kept);
    }
}

/// The sync as `evaluate` runs it (`reconcile`): its count and its conditions.
pub(crate) fn sync_of(s: &Scenario) -> reconcile::Sync<'_> {
    let assume_steady = s.memory.is_none();
    let mut memory = s.memory.clone().unwrap_or_default();
    reconcile::reconcile(s, &mut memory, assume_steady)
}

/// `StatusHiddenPods`: the last sync's count, what the status's values alone give, and the
/// hidden pods that explain the difference, first in WHY.
pub fn hidden_pods_diagnostic(h: &HiddenPods) -> crate::report::Diagnostic {
    use crate::report::{Diagnostic, Severity};
    let (d, all, n) = (h.status_desired, h.all_reporting, h.replicas);
    let how_many = format!("at least {}", h.least);
    let limit = h
        .limit
        .as_ref()
        .map(|l| format!(", {l}"))
        .unwrap_or_default();
    let then = if all == d {
        format!("{all} too, by another path")
    } else {
        all.to_string()
    };
    Diagnostic::new(
        "StatusHiddenPods",
        Severity::Warning,
        format!(
            "the controller's last sync set {d} (status.desiredReplicas{limit}) where the \
             status's metrics alone give {all} from {n} replicas: that needs {how_many} of the \
             {n} pods unready or without a sample (its recount counts them at 0 on a scale-up, \
             at the target on a scale-down). While they stay so the next sync keeps {d}; once \
             every pod is ready and reporting it gives {then}"
        ),
        "pass --pods (kubectl get pods -o json) and --metrics (kubectl top pods, or the \
         PodMetrics) to see which pods",
    )
}

/// `now` is the clock, and the inputs allow any instant from `earliest`: the sync is run at
/// `earliest` too; where its count differs, the instant from which the clock's answer holds is
/// found by bisection over whole seconds (the answer changes once as pods age past their
/// initialization periods and windows expire; about 30 syncs for a year's range), and said.
pub fn at_the_earliest_instant(
    s: &Scenario,
    earliest: Timestamp,
    evaluate: impl Fn(&Scenario) -> crate::report::Report,
    report: &mut crate::report::Report,
) {
    let mut at = Scenario {
        earliest_now: None,
        ..s.clone()
    };
    let mut count_at = |t: Timestamp| {
        at.now = t;
        evaluate(&at).desired_replicas
    };
    let first = count_at(earliest);
    let answer = report.desired_replicas;
    if first == answer {
        report.assumptions.push(format!(
            "At the earliest instant the inputs allow, {}, the sync gives {answer} too.",
            earliest.to_rfc3339()
        ));
        return;
    }
    // The last second that still gives `first`, and the first that gives the answer.
    let (mut low, mut high) = (earliest.0 / 1000, s.now.0 / 1000);
    while high - low > 1 {
        let mid = low + (high - low) / 2;
        if count_at(Timestamp(mid * 1000)) == first {
            low = mid;
        } else {
            high = mid;
        }
    }
    let from = Timestamp(high * 1000).to_rfc3339();
    report.assumptions.push(format!(
        "The inputs allow any instant from {}: captured then, the sync gives {first}; it gives \
         {answer} from {from}.",
        earliest.to_rfc3339()
    ));
    report.decision.summary = format!(
        "{}; or {first} if captured before {from} (pass --now with the capture's time)",
        report.decision.summary
    );
    report.other_outcomes.push(crate::report::Outcome {
        replicas: first,
        when: format!("if the capture was taken before {from}"),
        settle: "pass --now with the capture's time".to_string(),
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::evaluate;
    use crate::calc::testing::{cpu_utilization, scenario};
    use crate::scenario::ScaleEvent;
    use crate::time::Duration;

    /// A rescale `from → to` `ago` seconds before now, as the events give it.
    fn rescaled(s: &mut Scenario, from: i32, to: i32, ago: i64) {
        let at = s.now.sub(Duration::from_secs(ago));
        let event = ScaleEvent {
            replica_change: (to - from).abs(),
            timestamp: at,
            outdated: false,
        };
        let mut memory = ControllerMemory {
            recommendations: vec![Recommendation {
                replicas: to,
                timestamp: at,
            }],
            ..ControllerMemory::default()
        };
        if to > from {
            memory.scale_up_events.push(event);
        } else {
            memory.scale_down_events.push(event);
        }
        s.memory = Some(memory);
        s.bounded = vec![BoundedRecommendation {
            timestamp: at,
            new_size: to,
        }];
    }

    #[test]
    fn a_legacy_scale_up_below_its_limit_bounds_the_recommendation_from_above() {
        // 4 → 6 on the legacy path (limit max(2 × 4, 4) = 8): the window's max was 6, so the
        // recommendation was at most 6; never more, or the count would have gone higher. The
        // unknown sync before it kept 4, so nothing in the window was above 4: exactly 6.
        let mut s = scenario(vec![cpu_utilization(50)], 6, 1000);
        s.hpa.max_replicas = 20;
        rescaled(&mut s, 4, 6, 60);
        let range = recommendation_ranges(&s)[0].unwrap();
        assert_eq!((range.from, range.low, range.high), (4, 6, 6), "{range:?}");
    }

    #[test]
    fn a_legacy_scale_up_at_its_limit_leaves_the_recommendation_open_above() {
        // 4 → 8, the legacy limit: any recommendation from 8 up sets 8.
        let mut s = scenario(vec![cpu_utilization(50)], 8, 500);
        s.hpa.max_replicas = 20;
        rescaled(&mut s, 4, 8, 60);
        let range = recommendation_ranges(&s)[0].unwrap();
        assert_eq!((range.low, range.high), (8, 20), "{range:?}");
    }

    #[test]
    fn the_event_bound_that_ran_the_wrong_way_holds_the_count() {
        // The case: 4 → 6 a minute ago, legacy limit 8, metrics now propose 8 from 6
        // pods at 66 % of 50 %. The recommendation was at most 6, so the downscale window
        // holds nothing above 8: the sync scales to 8, and no "window holds 20" answer appears.
        let mut s = scenario(vec![cpu_utilization(50)], 6, 660);
        s.hpa.max_replicas = 20;
        rescaled(&mut s, 4, 6, 60);
        let r = evaluate(&s);
        assert_eq!(r.desired_replicas, 8);
        assert!(r.other_outcomes.is_empty(), "{:?}", r.other_outcomes);
        assert!(
            (r.assumptions.iter())
                .any(|a| a
                    .contains("(from 4 to 6 at 2027-01-15T07:59:00Z (that sync recommended 6))")),
            "{:#?}",
            r.assumptions
        );
    }

    #[test]
    fn a_behavior_scale_up_inside_its_window_is_found_exactly() {
        // 4 → 6 30 s ago, scale-up window 60 s, 100 % per 15 s: only a recommendation of 6
        // sets 6 from 4, and the window's min keeps 6 now although the metrics propose 10.
        use crate::scenario::{Behavior, PolicyType, ScalingPolicy, ScalingRules, SelectPolicy};
        let mut s = scenario(vec![cpu_utilization(50)], 6, 830);
        let rules = |window| ScalingRules {
            stabilization_window_seconds: Some(window),
            select_policy: SelectPolicy::Max,
            policies: vec![ScalingPolicy {
                policy_type: PolicyType::Percent,
                value: 100,
                period_seconds: 15,
            }],
            tolerance: None,
        };
        s.hpa.behavior = Some(Behavior {
            scale_up: rules(60),
            scale_down: rules(300),
        });
        rescaled(&mut s, 4, 6, 30);
        let range = recommendation_ranges(&s)[0].unwrap();
        assert_eq!((range.low, range.high), (6, 6));
        assert_eq!(evaluate(&s).desired_replicas, 6);
    }

    /// 5 pods at 80 % of a 50 % target (8 with every pod reporting), and a status that says
    /// the controller's last sync, from 5, kept 5.
    fn status_kept_five() -> Scenario {
        use crate::scenario::{ObservedMetric, ObservedStatus};
        let mut s = scenario(vec![cpu_utilization(50)], 5, 800);
        s.approximation = true;
        s.observed_status = Some(ObservedStatus {
            conditions: Vec::new(),
            current_replicas: Some(5),
            desired_replicas: Some(5),
            current_metrics: vec![ObservedMetric {
                metric_type: "Resource".into(),
                name: "cpu".into(),
                value_milli: None,
                average_value_milli: Some(800),
                average_utilization: Some(80),
            }],
        });
        s
    }

    #[test]
    fn a_status_that_kept_its_count_needs_pods_unready_or_without_a_sample() {
        let s = status_kept_five();
        let plain = evaluate(&Scenario {
            observed_status: None,
            ..s.clone()
        });
        assert_eq!(plain.desired_replicas, 8);
        // 1 hidden pod: 64 % → 7; 2: 48 %, inside the tolerance; 3 and 4: the recount turns
        // the scale-up into a scale-down, and the controller keeps 5.
        let (hidden, _) = hidden_pods(&s, &plain).unwrap();
        // On a scale-up an unready pod counts as one without a sample: both kinds survive.
        assert_eq!(hidden.least, 2);
        assert!(hidden.counts.contains(&(0, 2)) && hidden.counts.contains(&(2, 0)));
        let r = evaluate(&s);
        assert_eq!(r.desired_replicas, 5);
        assert_eq!(r.diagnostics[0].code, "StatusHiddenPods");
        assert!(
            r.diagnostics[0].message.starts_with(
                "the controller's last sync set 5 (status.desiredReplicas) where the status's \
                 metrics alone give 8 from 5 replicas: that needs at least 2 of the 5 pods \
                 unready or without a sample"
            ),
            "{}",
            r.diagnostics[0].message
        );
        assert!(
            r.decision.summary.ends_with(
                "; or 8 once every pod is ready and reporting (pass --pods and --metrics)"
            ),
            "{}",
            r.decision.summary
        );
        assert_eq!(r.other_outcomes[0].replicas, 8);
        assert!(!r.diagnostics.iter().any(|d| d.code == "StatusMismatch"));
    }

    #[test]
    fn a_status_no_hidden_pod_explains_stays_a_contradiction() {
        // 9 is above what any count of hidden pods gives (at most 8): nothing survives.
        let mut s = status_kept_five();
        if let Some(o) = &mut s.observed_status {
            o.desired_replicas = Some(9);
        }
        let plain = evaluate(&Scenario {
            observed_status: None,
            ..s.clone()
        });
        assert!(hidden_pods(&s, &plain).is_none());
        let r = evaluate(&s);
        assert_eq!(r.desired_replicas, 8);
        assert!(r.other_outcomes.is_empty());
    }

    #[test]
    fn the_earliest_instant_the_inputs_allow_is_checked_and_the_change_dated() {
        // A recommendation of 10 made 100 s before the earliest instant stays in the 300 s
        // legacy window (inclusive) until 200 s after it: captured then, the count is held.
        let mut s = scenario(vec![cpu_utilization(50)], 10, 250);
        let earliest = s.now;
        s.memory = Some(ControllerMemory {
            recommendations: vec![Recommendation {
                replicas: 10,
                timestamp: earliest.sub(Duration::from_secs(100)),
            }],
            ..ControllerMemory::default()
        });
        s.now = earliest.add(Duration::from_secs(1000));
        s.earliest_now = Some(earliest);
        let r = evaluate(&s);
        assert_eq!(r.desired_replicas, 5);
        assert_eq!(r.other_outcomes[0].replicas, 10);
        let changes = earliest.add(Duration::from_secs(201)).to_rfc3339();
        assert!(
            (r.assumptions.iter()).any(|a| a.ends_with(&format!(
                "captured then, the sync gives 10; it gives 5 from {changes}."
            ))),
            "{:#?}",
            r.assumptions
        );
    }

    #[test]
    fn survivors_keep_only_what_reproduces_the_evidence() {
        assert_eq!(survivors(0..10, |c| c % 3 == 0), vec![0, 3, 6, 9]);
        let cut: Vec<i32> = counts_up_to(1000).collect();
        assert_eq!((cut.len(), cut.last()), (258, Some(&1000)));
    }
}
