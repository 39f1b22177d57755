//! The hold band: the range of one metric's current value over which the sync keeps the current
//! count, everything else held fixed (the pods and their groups, the recount, the tolerance, the
//! other metrics, stabilization, rate limits, min and max).
//!
//! Nothing here re-derives a formula. Each probe replays the controller's own functions: the
//! per-metric calculator on another usage total (`decide_pod_based`, the Object and External
//! calculators), then `computeReplicasForMetrics` and the normalization through
//! `reconcile::probe`. Those functions are monotone in the value, so the band's edges are found by
//! binary search.

use crate::calc::metrics::{Computed, MetricInputs, MetricOutcome};
use crate::calc::normalize::{SCALE_DOWN_STABILIZED, SCALE_UP_STABILIZED};
use crate::calc::others::Others;
use crate::calc::reconcile::{self, Branch, Probe, Sync, VersionRules};
use crate::calc::replicas::{
    PodSums, PodTarget, decide_pod_based, external_metric_replicas,
    external_per_pod_metric_replicas, object_metric_replicas, object_per_pod_metric_replicas,
};
use crate::scenario::{ControllerMemory, MetricSpec, Scenario, TargetType};

/// How a metric's reported value maps onto the usage total the calculator reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    /// Utilization: `int32(total × 100 / requests)` percent.
    Percent { requests: i64 },
    /// Average per pod: `total / len(metrics)`.
    Average { samples: i64 },
    /// The total itself (Object and External `Value` targets).
    Total,
    /// `ceil(total / status.replicas)` (Object and External `AverageValue` targets).
    PerPod { replicas: i64 },
}

impl Axis {
    /// The reported value of a usage total (totals are never negative here).
    pub fn value(self, x: i64) -> i64 {
        match self {
            Axis::Percent { requests } => x.saturating_mul(100) / requests.max(1),
            Axis::Average { samples } => x / samples.max(1),
            Axis::Total => x,
            Axis::PerPod { replicas } => {
                let r = replicas.max(1);
                x / r + i64::from(x % r > 0)
            }
        }
    }

    /// The usage totals whose reported value is `v`, inclusive.
    pub fn totals(self, v: i64) -> (i64, i64) {
        match self {
            Axis::Percent { requests } => {
                let r = requests.max(1);
                let first = |v: i64| ceil_div(v.saturating_mul(r), 100);
                (first(v), first(v.saturating_add(1)).saturating_sub(1))
            }
            Axis::Average { samples } => {
                let n = samples.max(1);
                let lo = v.saturating_mul(n);
                (lo, lo.saturating_add(n - 1))
            }
            Axis::Total => (v, v),
            Axis::PerPod { replicas } => {
                let r = replicas.max(1);
                let hi = v.saturating_mul(r);
                (
                    v.saturating_sub(1)
                        .saturating_mul(r)
                        .saturating_add(1)
                        .min(hi),
                    hi,
                )
            }
        }
    }
}

fn ceil_div(a: i64, b: i64) -> i64 {
    a / b + i64::from(a % b > 0)
}

/// What keeps the count at one end of the value range, where the band has no edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hold {
    MinReplicas,
    MaxReplicas,
    /// A stabilization window's recommendation.
    Stabilization,
    /// A rate limit (a behavior policy or the legacy scale-up limit).
    RateLimit,
    /// Another metric's proposal (its index).
    OtherMetric(usize),
    /// An invalid metric blocks the scale-down.
    InvalidMetric,
    /// The metric's own calculation keeps the count (the recount or the tolerance).
    Recount,
}

impl Hold {
    pub fn code(self) -> &'static str {
        match self {
            Hold::MinReplicas => "minReplicas",
            Hold::MaxReplicas => "maxReplicas",
            Hold::Stabilization => "stabilizationWindow",
            Hold::RateLimit => "rateLimit",
            Hold::OtherMetric(_) => "otherMetric",
            Hold::InvalidMetric => "invalidMetric",
            Hold::Recount => "recount",
        }
    }
}

/// The first value outside an edge, and the count the sync would end with there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outside {
    pub value: i64,
    pub replicas: i32,
    /// The first usage total outside, when `value` is also read from totals inside the band (an
    /// integer percent or average that cannot say where the count flips).
    pub total: Option<i64>,
}

/// One edge of the band: a value past which the count changes, or what holds it at every value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    Changes(Outside),
    HeldBy(Hold),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Band {
    pub axis: Axis,
    /// Inclusive reported values that keep the count at some usage total.
    pub low: i64,
    pub high: i64,
    /// The lowest usage total that keeps the count, when `low` is also read from totals that
    /// change it (the edge splits that value); likewise the highest for `high`.
    pub low_total: Option<i64>,
    pub high_total: Option<i64>,
    pub below: Edge,
    /// `HeldBy` when every higher value keeps the count too (then `high` is the search's end).
    pub above: Edge,
}

/// Why no value of the metric alone keeps the count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoBand {
    /// The count changes at every value; what forces it.
    Forced(Hold),
    /// The count jumps over the current one between two adjacent values.
    Jumps,
}

/// The metric's proposal as a function of a usage total, with the calculator it came from.
enum Calculator<'s> {
    PodBased(&'s PodSums),
    ObjectValue(i64),
    ObjectAverage(i64),
    ExternalValue(i64),
    ExternalAverage(i64),
}

impl Calculator<'_> {
    /// The metric's proposal for usage total `x` (`None` when the calculator fails) and the usage
    /// ratio it computed.
    fn evaluate(&self, inputs: &MetricInputs<'_>, current: i32, x: i64) -> (Option<i32>, f64) {
        let tolerances = inputs.calc.tolerances;
        let value = |r: Result<crate::calc::replicas::ValueResult, String>| match r {
            Ok(v) => (Some(v.replicas), v.usage_ratio),
            Err(_) => (None, f64::NAN),
        };
        match *self {
            Calculator::PodBased(sums) => {
                let d = decide_pod_based(sums, tolerances, current, x);
                (Some(d.replicas), d.usage_ratio)
            }
            Calculator::ObjectValue(target) => value(object_metric_replicas(
                &inputs.calc,
                current,
                target,
                x,
                inputs.guards.value_clamp,
            )),
            Calculator::ObjectAverage(target) => value(Ok(object_per_pod_metric_replicas(
                tolerances,
                inputs.status_replicas,
                target,
                x,
            ))),
            Calculator::ExternalValue(target) => value(external_metric_replicas(
                &inputs.calc,
                current,
                target,
                &[x],
                inputs.guards,
            )),
            Calculator::ExternalAverage(target) => value(Ok(external_per_pod_metric_replicas(
                tolerances,
                inputs.status_replicas,
                target,
                &[x],
                inputs.guards,
            ))),
        }
    }
}

/// The axis, the calculator, the current usage total and the total at the target of a valid
/// metric; `None` for an invalid one.
fn calculator<'s>(
    spec: &MetricSpec,
    outcome: &'s MetricOutcome<'_>,
    status_replicas: i32,
) -> Option<(Axis, Calculator<'s>, i64, i64)> {
    let target = spec.target();
    match outcome.result.as_ref().ok()? {
        Computed::PodBased(p) => {
            let sums = &p.sums;
            let (axis, at_target) = match (sums.target, sums.request_total) {
                (PodTarget::Utilization(t), Some(requests)) => (
                    Axis::Percent { requests },
                    requests.saturating_mul(i64::from(t)) / 100,
                ),
                (PodTarget::AverageValue(t), _) => {
                    let samples = i64::try_from(sums.samples).unwrap_or(i64::MAX);
                    (Axis::Average { samples }, t.saturating_mul(samples))
                }
                (PodTarget::Utilization(_), None) => return None,
            };
            Some((
                axis,
                Calculator::PodBased(sums),
                sums.usage_total,
                at_target,
            ))
        }
        Computed::Value(v) => {
            let per_pod = Axis::PerPod {
                replicas: i64::from(status_replicas),
            };
            let (axis, calc, t) = match (spec, target.target_type) {
                (MetricSpec::Object { .. }, TargetType::Value) => {
                    let t = target.value_milli?;
                    (Axis::Total, Calculator::ObjectValue(t), t)
                }
                (MetricSpec::Object { .. }, _) => {
                    let t = target.average_value_milli?;
                    (per_pod, Calculator::ObjectAverage(t), t)
                }
                (MetricSpec::External { .. }, _) if target.average_value_milli.is_some() => {
                    let t = target.average_value_milli?;
                    (per_pod, Calculator::ExternalAverage(t), t)
                }
                (MetricSpec::External { .. }, _) => {
                    let t = target.value_milli?;
                    (Axis::Total, Calculator::ExternalValue(t), t)
                }
                _ => return None,
            };
            let at_target = match axis {
                Axis::PerPod { replicas } => t.saturating_mul(replicas),
                _ => t,
            };
            Some((axis, calc, v.total, at_target))
        }
    }
}

/// Everything a probe needs besides the value.
pub struct Bands<'s, 'a> {
    scenario: &'s Scenario,
    outcomes: &'s [MetricOutcome<'a>],
    memory_before: ControllerMemory,
    assume_steady: bool,
    inputs: MetricInputs<'s>,
    /// The other metrics' proposals, folded once for every probe.
    others: Others,
}

impl<'s, 'a> Bands<'s, 'a> {
    pub fn new(
        scenario: &'s Scenario,
        outcomes: &'s [MetricOutcome<'a>],
        mut inputs: MetricInputs<'s>,
        assume_steady: bool,
    ) -> Self {
        // The pods do not change between probes: count the ready ones once.
        inputs.calc.ready_pods = crate::calc::pods::ready_pods_count(inputs.calc.pods).ok();
        Bands {
            scenario,
            outcomes,
            memory_before: scenario.memory.clone().unwrap_or_default(),
            assume_steady,
            inputs,
            others: Others::new(
                (outcomes.iter())
                    .map(|o| o.result.as_ref().ok().map(Computed::replicas))
                    .collect(),
                scenario.current_replicas,
            ),
        }
    }

    fn probe(&self, index: usize, calc: &Calculator<'_>, x: i64) -> Probe {
        let current = self.scenario.current_replicas;
        let proposal = calc.evaluate(&self.inputs, current, x).0;
        let choice = self.others.choose_with(index, proposal);
        reconcile::probe_choice(
            self.scenario,
            &self.memory_before,
            self.assume_steady,
            choice,
        )
    }

    /// The band of metric `index`, or why there is none; `None` when the metric is invalid.
    ///
    /// The final count is monotone in the value only piecewise: where the ratio crosses the
    /// tolerance band or 1, the calculator switches between `ceil(ratio × ready pods)`, the
    /// current count and the recount, and when the ready pods differ from the current count the
    /// count can go down, back to the current one, then down again. So the totals are first cut
    /// where the usage ratio (itself monotone) crosses those points, each piece is searched on its
    /// own, and the band is the stretch of totals that keep the count around the current total
    /// (or the nearest one).
    pub fn band(&self, index: usize) -> Option<Result<Band, NoBand>> {
        let spec = self.scenario.hpa.metrics.get(index)?;
        let outcome = self.outcomes.get(index)?;
        let (axis, calc, current_x, at_target) =
            calculator(spec, outcome, self.scenario.status_replicas)?;
        let current = self.scenario.current_replicas;
        // Up to 100 times the larger of the current and the target total: past a ratio of 100
        // only a clamp, a limit or a window can keep the count, and they keep it beyond too.
        let end = current_x
            .max(at_target)
            .max(1)
            .saturating_mul(100)
            .min(i64::MAX / 400);
        let start = current_x.clamp(-(i64::MAX / 400), 0);
        let desired = |x: i64| self.probe(index, &calc, x).desired;

        let tolerances = self.inputs.calc.tolerances;
        let ratio = |x: i64| calc.evaluate(&self.inputs, current, x).1;
        let cuts: [&dyn Fn(f64) -> bool; 4] = [
            &|r| tolerances.is_within(r) || r > 1.0,
            &|r| r >= 1.0,
            &|r| r > 1.0,
            &|r| !tolerances.is_within(r) && r > 1.0,
        ];
        let mut starts: Vec<i64> = cuts
            .iter()
            .filter_map(|cut| first_true(start, end, |x| cut(ratio(x))))
            .filter(|&x| x > start)
            .collect();
        starts.push(start);
        starts.sort_unstable();
        starts.dedup();
        // The totals that keep the count, one stretch per piece, then joined where they touch.
        let mut kept: Vec<(i64, i64)> = Vec::new();
        for (k, &piece_start) in starts.iter().enumerate() {
            let piece_end = starts.get(k + 1).map_or(end, |next| next - 1);
            let Some(lo) = first_true(piece_start, piece_end, |x| desired(x) >= current) else {
                continue;
            };
            let hi = first_true(piece_start, piece_end, |x| desired(x) > current)
                .map_or(piece_end, |x| x - 1);
            if lo > hi {
                continue;
            }
            match kept.last_mut() {
                Some(last) if last.1 + 1 == lo => last.1 = hi,
                _ => kept.push((lo, hi)),
            }
        }
        let distance = |&(lo, hi): &(i64, i64)| {
            if current_x < lo {
                lo.saturating_sub(current_x)
            } else if current_x > hi {
                current_x.saturating_sub(hi)
            } else {
                0
            }
        };
        let Some(&(lo, hi)) = kept.iter().min_by_key(|k| distance(k)) else {
            return Some(Err(if desired(start) > current {
                NoBand::Forced(self.hold(index, &calc, start, true))
            } else if desired(end) < current {
                NoBand::Forced(self.hold(index, &calc, end, false))
            } else {
                NoBand::Jumps
            }));
        };
        // The reported values of [lo, hi]. An edge that falls inside one value's totals (an
        // integer percent read from many totals, only some of which flip) is kept with its total,
        // so the band never excludes a value that holds, nor claims one that flips.
        let (low, high) = (axis.value(lo), axis.value(hi));
        let low_total = (lo > start && axis.totals(low).0 < lo).then_some(lo);
        let high_total = (hi < end && axis.totals(high).1 > hi).then_some(hi);
        let below = if lo == start {
            Edge::HeldBy(self.hold(index, &calc, start, true))
        } else if low_total.is_some() {
            Edge::Changes(Outside {
                value: low,
                replicas: desired(lo - 1),
                total: Some(lo - 1),
            })
        } else {
            let value = low - 1;
            Edge::Changes(Outside {
                value,
                replicas: desired(axis.totals(value).0),
                total: None,
            })
        };
        let above = if hi == end {
            Edge::HeldBy(self.hold(index, &calc, end, false))
        } else if high_total.is_some() {
            Edge::Changes(Outside {
                value: high,
                replicas: desired(hi + 1),
                total: Some(hi + 1),
            })
        } else {
            let value = high + 1;
            Edge::Changes(Outside {
                value,
                replicas: desired(axis.totals(value).1),
                total: None,
            })
        };
        Some(Ok(Band {
            axis,
            low,
            high,
            low_total,
            high_total,
            below,
            above,
        }))
    }

    /// What keeps (or forces) the count at total `x`: read from the probe's own trace.
    fn hold(&self, index: usize, calc: &Calculator<'_>, x: i64, downward: bool) -> Hold {
        let probe = self.probe(index, calc, x);
        let current = self.scenario.current_replicas;
        if probe.failed {
            return Hold::InvalidMetric;
        }
        if let Some(w) = probe.winner
            && w != index
            && (if downward {
                probe.proposal >= current
            } else {
                probe.proposal > current
            })
        {
            return Hold::OtherMetric(w);
        }
        let Some(n) = probe.normalization else {
            return Hold::Recount;
        };
        let proposal_moves = if downward {
            probe.proposal < current
        } else {
            probe.proposal > current
        };
        if !proposal_moves && n.stabilized == probe.proposal.max(0) {
            return Hold::Recount;
        }
        if n.stabilization == SCALE_DOWN_STABILIZED
            || n.stabilization == SCALE_UP_STABILIZED
            || n.stabilized != probe.proposal.max(0)
        {
            return Hold::Stabilization;
        }
        match n.limited.reason {
            "TooFewReplicas" => Hold::MinReplicas,
            "TooManyReplicas" => Hold::MaxReplicas,
            _ => Hold::RateLimit,
        }
    }
}

/// The smallest `x` in `[start, end]` where the monotone `pred` holds.
fn first_true(start: i64, end: i64, pred: impl Fn(i64) -> bool) -> Option<i64> {
    if !pred(end) {
        return None;
    }
    let (mut lo, mut hi) = (start, end);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(lo)
}

/// The band of every metric of a sync that consulted them (`None` for an invalid metric, and for
/// every metric when the metrics were not consulted).
pub fn for_sync(
    s: &Scenario,
    sync: &Sync<'_>,
    assume_steady: bool,
) -> Vec<Option<Result<Band, NoBand>>> {
    let n = sync.outcomes.len();
    if !matches!(sync.branch, Branch::Metrics | Branch::MetricsFailed) {
        return vec![None; n];
    }
    let rules = VersionRules::for_scenario(s);
    let inputs = reconcile::metric_inputs(s, &rules, sync.tolerances);
    let bands = Bands::new(s, &sync.outcomes, inputs, assume_steady);
    (0..n).map(|i| bands.band(i)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_totals_are_the_totals_that_truncate_to_the_percent() {
        let axis = Axis::Percent { requests: 3000 };
        for v in [1, 40, 41, 66, 67] {
            let (lo, hi) = axis.totals(v);
            assert_eq!(axis.value(lo), v);
            assert_eq!(axis.value(hi), v);
            assert_eq!(axis.value(lo - 1), v - 1);
            assert_eq!(axis.value(hi + 1), v + 1);
        }
    }

    #[test]
    fn per_pod_totals_are_the_totals_whose_ceiling_is_the_value() {
        let axis = Axis::PerPod { replicas: 4 };
        for v in [1, 2, 250] {
            let (lo, hi) = axis.totals(v);
            assert_eq!((axis.value(lo), axis.value(hi)), (v, v));
            assert_eq!(axis.value(lo - 1), v - 1);
            assert_eq!(axis.value(hi + 1), v + 1);
        }
    }

    use crate::calc::evaluate;
    use crate::calc::testing::{cpu_utilization, scenario};
    use crate::report::{BandEdge, BandValue, HoldBand};

    #[test]
    fn three_pods_at_a_60_percent_target_hold_from_41_to_66_percent() {
        // ceil(41/60 × 3) = ceil(2.05) = 3 holds; ceil(40/60 × 3) = 2; 66 % is a ratio of 1.1.
        let r = evaluate(&scenario(vec![cpu_utilization(60)], 3, 500));
        assert_eq!(
            r.metrics[0].hold_band,
            Some(HoldBand {
                unit: "percent".into(),
                low: BandValue::Percent(41),
                high: Some(BandValue::Percent(66)),
                below: Some(BandEdge {
                    value: BandValue::Percent(40),
                    replicas: 2,
                    total: None,
                }),
                above: Some(BandEdge {
                    value: BandValue::Percent(67),
                    replicas: 4,
                    total: None,
                }),
                low_held_by: None,
                high_held_by: None,
                low_total: None,
                high_total: None,
            })
        );
        assert!(r.decision.summary.ends_with(
            "Holds 3 replicas while cpu utilization is 41%–66%; scales up from 67%, down at 40% or below"
        ));
    }

    #[test]
    fn at_min_replicas_nothing_lower_changes_the_count() {
        let mut s = scenario(vec![cpu_utilization(60)], 2, 500);
        s.hpa.min_replicas = 2;
        let b = evaluate(&s).metrics[0].hold_band.clone().unwrap();
        assert_eq!(
            (b.below, b.low_held_by.as_deref()),
            (None, Some("minReplicas"))
        );
        assert_eq!(b.low, BandValue::Percent(0));
    }

    #[test]
    fn ready_pods_below_the_current_count_split_the_values_that_hold() {
        // 1 pod but 3 replicas: within tolerance keeps 3, just above it ceil(1.15 × 1) = 2. The
        // band is the stretch around the current value, not everything from the tolerance up.
        let mut s = scenario(vec![cpu_utilization(60)], 1, 600);
        s.current_replicas = 3;
        let b = evaluate(&s).metrics[0].hold_band.clone().unwrap();
        assert_eq!(
            (b.low, b.high),
            (BandValue::Percent(54), Some(BandValue::Percent(66)))
        );
        assert_eq!(b.above.map(|e| e.replicas), Some(2));
    }

    /// `ready` pods with samples (all the usage on the first), `unready` pods Ready False since
    /// their start (samples ignored) and `missing` pods without a sample, each requesting 1 cpu.
    fn recount_case(target: i32, ready: usize, unready: usize, missing: usize, x: i64) -> Scenario {
        use crate::scenario::{ConditionStatus, ReadyCondition};
        let n = ready + unready + missing;
        let mut s = scenario(vec![cpu_utilization(target)], n, 0);
        for (i, sample) in s.metrics.resource.iter_mut().enumerate() {
            sample.containers[0].usage.0[0].1 = if i == 0 { x } else { 0 };
        }
        for pod in &mut s.pods[ready..ready + unready] {
            pod.ready = Some(ReadyCondition {
                status: ConditionStatus::False,
                last_transition_time: crate::time::Timestamp::GO_ZERO,
            });
        }
        s.metrics.resource.truncate(ready + unready);
        s
    }

    fn desired_at(target: i32, pods: (usize, usize, usize), x: i64) -> i32 {
        let s = recount_case(target, pods.0, pods.1, pods.2, x);
        let mut memory = ControllerMemory::default();
        reconcile::reconcile(&s, &mut memory, true).desired_replicas
    }

    #[test]
    fn a_split_percent_keeps_the_usage_total_where_the_count_flips() {
        // 5 ready pods of 1000m and one unready, target 50%: 3359m reads 67% and the recount
        // gives int(3359 × 100 / 6000) = 55 %, a ratio of 1.10 that holds; 3360m also reads 67%
        // but recounts to 56 %, 1.12: it scales up. So 67% both holds and scales.
        let r = evaluate(&recount_case(50, 5, 1, 0, 3350));
        let b = r.metrics[0].hold_band.clone().unwrap();
        assert_eq!(b.high, Some(BandValue::Percent(67)));
        assert_eq!(b.high_total.as_deref(), Some("3359m"));
        let above = b.above.unwrap();
        assert_eq!(
            (above.value, above.total.as_deref(), above.replicas),
            (BandValue::Percent(67), Some("3360m"), 7)
        );
        assert!(
            r.decision
                .summary
                .contains("67% (up to 3359m in all); scales up from 3360m in all"),
            "{}",
            r.decision.summary
        );
    }

    #[test]
    fn the_band_is_exact_at_every_usage_total_with_a_recount() {
        // Each case sweeps every usage total and runs the whole sync at each: the band's totals
        // are exactly the run of totals around the current one that keep the count.
        for (target, pods) in [
            (50, (5, 1, 0)),
            (50, (5, 0, 1)),
            (60, (3, 2, 0)),
            (70, (4, 1, 1)),
            (80, (2, 0, 1)),
            (45, (7, 2, 0)),
        ] {
            let current_x = 670 * i64::try_from(pods.0).unwrap();
            let s = recount_case(target, pods.0, pods.1, pods.2, current_x);
            let current = s.current_replicas;
            let mut memory = ControllerMemory::default();
            let sync = reconcile::reconcile(&s, &mut memory, true);
            let Some(Ok(band)) = for_sync(&s, &sync, true).remove(0) else {
                panic!("{target} {pods:?}: no band");
            };
            let axis = band.axis;
            let lo = band.low_total.unwrap_or(axis.totals(band.low).0).max(0);
            let hi = band.high_total.unwrap_or(axis.totals(band.high).1);
            let case = format!("{target}% {pods:?}: totals {lo}..={hi}");
            for x in lo..=hi {
                assert_eq!(
                    desired_at(target, pods, x),
                    current,
                    "{case}: {x} must hold"
                );
            }
            if let Edge::Changes(o) = band.below {
                let d = desired_at(target, pods, lo - 1);
                assert_ne!(d, current, "{case}: {} must change", lo - 1);
                if o.total.is_some() {
                    assert_eq!((o.total, o.replicas), (Some(lo - 1), d), "{case}");
                }
            }
            if let Edge::Changes(o) = band.above {
                let d = desired_at(target, pods, hi + 1);
                assert_ne!(d, current, "{case}: {} must change", hi + 1);
                if o.total.is_some() {
                    assert_eq!((o.total, o.replicas), (Some(hi + 1), d), "{case}");
                }
            }
        }
    }

    #[test]
    fn first_true_finds_the_edge_of_a_monotone_predicate() {
        assert_eq!(first_true(0, 100, |x| x >= 37), Some(37));
        assert_eq!(first_true(0, 100, |x| x >= 0), Some(0));
        assert_eq!(first_true(0, 100, |x| x > 100), None);
    }
}
