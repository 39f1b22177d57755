//! A failed metric's value, inferred by running the controller forward. A metric the controller
//! could not get at its last sync (`ScalingActive=False FailedGet<Kind>Metric`, or kubectl's
//! `<unknown>`) has no value in the inputs: it is an unknown. Each candidate value is put where
//! the metrics API would answer it, and the same sync (`reconcile`) runs on it; what the sync gives
//! for every value is said, and which values give `status.desiredReplicas`.
//!
//! The candidates run from 0 to the value whose proposal passes `maxReplicas` (`target × (max +
//! 1)`, max cut at 256): a grid of 33 values first, then each stretch whose two ends give different
//! counts is halved until the change is found to one unit (a percent, or a milli-unit); a stretch
//! whose two ends give one count is taken to give it throughout (the count only rises with the
//! value: `computeReplicasForMetrics` takes the largest proposal, and each proposal rises with
//! its value). About 33 + 20 × (counts found) syncs.
//!
//! Several failed metrics are searched one at a time, each with the others at 0, the value that
//! gives their lowest proposal; the count for any combination of values is the largest of the
//! counts each gives so (`computeReplicasForMetrics` takes the largest proposal, and every later
//! step, the stabilization windows, the rate limits and the min/max clamps, only keeps or clamps
//! it, never turning a larger recommendation into a smaller count). That is k searches, not a
//! search over every combination: about k × (33 + 20 × counts) syncs.

use std::collections::BTreeMap;

use crate::calc::infer::sync_of;
use crate::report::{Diagnostic, Outcome, Report, Severity};
use crate::scenario::{
    ContainerMetrics, MetricSpec, PodMetricValue, PodMetrics, Resources, Scenario, TargetType,
};
use crate::time::Duration;

/// The grid the search starts from: this many stretches between 0 and the top value.
const GRID: i64 = 32;
/// The largest maxReplicas the top value is taken from.
const LARGEST_MAX: i64 = 256;

/// One stretch of candidate values that give one count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValueRun {
    /// The first value of the stretch, in the target's unit (a percent for Utilization, else
    /// milli-units).
    pub low: i64,
    /// The last value; `None`: every value from `low` on.
    pub high: Option<i64>,
    pub replicas: i32,
}

/// What the failed metric's value would make the sync do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedValue {
    /// Its place in `spec.metrics`.
    pub index: usize,
    pub kind: &'static str,
    pub name: String,
    /// The condition reason the failure sets (`FailedGetExternalMetric`).
    pub reason: &'static str,
    /// What a value is: `utilization`, `average per pod`, `value`, `total`.
    pub unit: Unit,
    pub from: i32,
    /// `status.desiredReplicas`.
    pub status_desired: i32,
    pub runs: Vec<ValueRun>,
    /// Candidate values the sync ran on.
    pub tried: usize,
    /// The other failed metrics, held at 0 (their lowest proposal) while this one was searched.
    pub others: Vec<String>,
}

/// Every failed metric's search, in `spec.metrics` order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedValues {
    pub each: Vec<FailedValue>,
    /// `status.desiredReplicas`.
    pub status_desired: i32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unit {
    /// A Resource utilization, in percent of the request.
    Percent,
    /// A quantity of this resource (`cpu`, `memory`) or metric (`""`), in milli-units.
    Quantity(String),
}

impl Unit {
    pub fn show(&self, v: i64) -> String {
        match self {
            Unit::Percent => format!("{v}%"),
            Unit::Quantity(resource) => crate::quantity::human_quantity(resource, v),
        }
    }
}

impl FailedValue {
    /// The values that give `status.desiredReplicas`.
    pub fn reproducing(&self) -> Vec<ValueRun> {
        (self.runs.iter())
            .filter(|r| r.replicas == self.status_desired)
            .copied()
            .collect()
    }

    fn range(&self, r: &ValueRun) -> String {
        match r.high {
            Some(h) if h == r.low => self.unit.show(h),
            Some(h) => format!("{}–{}", self.unit.show(r.low), self.unit.show(h)),
            None => format!("from {} on", self.unit.show(r.low)),
        }
    }
}

/// The first metric of the sync on `s` that failed for want of a value, searched forward;
/// `None` when no metric failed so, when `status.desiredReplicas` is unknown, or when a value
/// does not make it valid (a missing request fails it whatever the usage).
pub fn failed_metric_value(s: &Scenario) -> Option<FailedValue> {
    failed_metric_values(s)?.each.into_iter().next()
}

/// Every metric of the sync on `s` that failed for want of a value, each searched forward with
/// the others at 0 (module doc); `None` as for [`failed_metric_value`].
pub fn failed_metric_values(s: &Scenario) -> Option<FailedValues> {
    let status_desired = s.observed_status.as_ref()?.desired_replicas?;
    if s.metrics.selector_error.is_some() || s.scale_error.is_some() {
        return None;
    }
    let failed = failed_metrics(s);
    let mut each = Vec::with_capacity(failed.len());
    for &(index, reason, target, ref unit) in &failed {
        let spec = s.hpa.metrics.get(index)?;
        // The others at their lowest proposal: the base this metric's values are put on.
        let mut base = s.clone();
        let mut others = Vec::new();
        for &(other, ..) in failed.iter().filter(|f| f.0 != index) {
            let other_spec = s.hpa.metrics.get(other)?;
            let mut next = base.clone();
            with_value(&base, &mut next, other, other_spec, 0);
            base = next;
            others.push(other_spec.metric_name().to_string());
        }
        let top = target.saturating_mul(i64::from(s.hpa.max_replicas).clamp(1, LARGEST_MAX) + 1);
        let Some((counts, changes)) = search(&base, index, spec, top) else {
            continue;
        };
        each.push(FailedValue {
            index,
            kind: spec.type_name(),
            name: spec.metric_name().to_string(),
            reason,
            unit: unit.clone(),
            from: s.current_replicas,
            status_desired,
            runs: runs_of(&counts, &changes)?,
            tried: counts.len(),
            others,
        });
    }
    (!each.is_empty()).then_some(FailedValues {
        each,
        status_desired,
    })
}

/// The metrics the sync on `s` fails for want of a value and that a value makes valid (a
/// missing request fails a utilization whatever the usage), with the reason each sets, its
/// target and unit.
fn failed_metrics(s: &Scenario) -> Vec<(usize, &'static str, i64, Unit)> {
    let sync = sync_of(s);
    let mut trial = s.clone();
    (sync.outcomes.iter().enumerate())
        .filter_map(|(i, o)| {
            let failure = o.result.as_ref().err()?;
            let spec = s.hpa.metrics.get(i)?;
            let (target, unit) = target_of(spec)?;
            without_value(s, i).then_some(())?;
            with_value(s, &mut trial, i, spec, 0);
            let valid = (sync_of(&trial).outcomes.get(i)).is_some_and(|o| o.result.is_ok());
            valid.then_some((i, failure.reason, target, unit))
        })
        .collect()
}

/// The count the sync gives for each value tried, and the first value of each change: a grid
/// over `0..=top`, then each stretch whose ends differ halved down to one unit. `None` when a
/// value does not make the metric valid.
fn search(
    s: &Scenario,
    index: usize,
    spec: &MetricSpec,
    top: i64,
) -> Option<(BTreeMap<i64, i32>, Vec<i64>)> {
    let mut trial = s.clone();
    let mut counts: BTreeMap<i64, i32> = BTreeMap::new();
    let mut count = |v: i64| -> Option<i32> {
        if let Some(&c) = counts.get(&v) {
            return Some(c);
        }
        with_value(s, &mut trial, index, spec, v);
        let sync = sync_of(&trial);
        let valid = (sync.outcomes.get(index)).is_some_and(|o| o.result.is_ok());
        valid.then(|| {
            counts.insert(v, sync.desired_replicas);
            sync.desired_replicas
        })
    };
    let mut grid: Vec<i64> = (0..=GRID)
        .map(|k| i64::try_from(i128::from(top) * i128::from(k) / i128::from(GRID)).unwrap_or(top))
        .collect();
    grid.dedup();
    let mut seen = Vec::with_capacity(grid.len());
    for &v in &grid {
        seen.push((v, count(v)?));
    }
    let mut changes: Vec<i64> = Vec::new();
    let mut stack: Vec<(i64, i32, i64, i32)> = (seen.iter().zip(seen.iter().skip(1)))
        .filter(|(a, b)| a.1 != b.1)
        .map(|(a, b)| (a.0, a.1, b.0, b.1))
        .collect();
    while let Some((a, ca, b, cb)) = stack.pop() {
        if b - a <= 1 {
            changes.push(b);
            continue;
        }
        let mid = a + (b - a) / 2;
        let cm = count(mid)?;
        if cm != ca {
            stack.push((a, ca, mid, cm));
        }
        if cm != cb {
            stack.push((mid, cm, b, cb));
        }
    }
    changes.sort_unstable();
    Some((counts, changes))
}

/// The stretches between the changes, each with the count at its first value.
fn runs_of(counts: &BTreeMap<i64, i32>, changes: &[i64]) -> Option<Vec<ValueRun>> {
    let mut runs = Vec::new();
    let mut low = 0;
    for &c in changes {
        runs.push(ValueRun {
            low,
            high: Some(c - 1),
            replicas: *counts.get(&low)?,
        });
        low = c;
    }
    runs.push(ValueRun {
        low,
        high: None,
        replicas: *counts.get(&low)?,
    });
    Some(runs)
}

/// Whether the inputs hold no value for metric `i`: the metrics API answered nothing for it.
fn without_value(s: &Scenario, i: usize) -> bool {
    let v = &s.metrics;
    match s.hpa.metrics.get(i) {
        Some(MetricSpec::Resource { .. }) => v.resource.is_empty(),
        Some(MetricSpec::Pods { .. }) => v.pods.get(&i).is_none_or(Vec::is_empty),
        Some(MetricSpec::Object { .. }) => !v.object.contains_key(&i),
        Some(MetricSpec::External { .. }) => !v.external.contains_key(&i),
        None => false,
    }
}

/// The target in the unit the search runs in, and that unit.
fn target_of(spec: &MetricSpec) -> Option<(i64, Unit)> {
    let t = spec.target();
    let resource = match spec {
        MetricSpec::Resource { resource, .. } => resource.clone(),
        _ => String::new(),
    };
    let (target, unit) = match t.target_type {
        TargetType::Utilization => (i64::from(t.average_utilization?), Unit::Percent),
        TargetType::AverageValue => (t.average_value_milli?, Unit::Quantity(resource)),
        TargetType::Value => (t.value_milli?, Unit::Quantity(resource)),
    };
    (target > 0).then_some((target, unit))
}

/// `trial` as `s` with metric `index` answering `v`: every pod's sample (a utilization of each
/// container's request, or a usage, or a custom value), the object's value, or the external
/// total.
fn with_value(s: &Scenario, trial: &mut Scenario, index: usize, spec: &MetricSpec, v: i64) {
    trial.metrics.clone_from(&s.metrics);
    let values = &mut trial.metrics;
    let window = Duration::from_secs(15);
    match spec {
        MetricSpec::Resource {
            resource,
            container,
            target,
        } => {
            values.resource_api_error = None;
            let percent = target.target_type == TargetType::Utilization;
            values.resource = (s.pods.iter())
                .map(|p| PodMetrics {
                    pod: p.name.clone(),
                    timestamp: s.now,
                    window,
                    containers: (p.containers.iter().enumerate())
                        .filter(|(_, c)| container.as_ref().is_none_or(|n| *n == c.name))
                        .map(|(k, c)| {
                            let usage = if percent {
                                c.requests.get(resource).unwrap_or(0).saturating_mul(v) / 100
                            } else if k == 0 || container.is_some() {
                                v
                            } else {
                                0
                            };
                            ContainerMetrics {
                                name: c.name.clone(),
                                usage: Resources(vec![(resource.clone(), usage)]),
                            }
                        })
                        .collect(),
                })
                .collect();
            // Another failed Resource metric already answered (held at its lowest): its usage
            // stays beside this one's.
            if !s.metrics.resource.is_empty() {
                keep_other_usage(&s.metrics.resource, &mut values.resource, resource);
            }
        }
        MetricSpec::Pods { .. } => {
            values.custom_api_error = None;
            let each = (s.pods.iter())
                .map(|p| PodMetricValue {
                    pod: p.name.clone(),
                    value_milli: v,
                    timestamp: s.now,
                    window,
                })
                .collect();
            values.pods.insert(index, each);
        }
        MetricSpec::Object { .. } => {
            values.custom_api_error = None;
            values.object.insert(index, v);
        }
        MetricSpec::External { .. } => {
            values.external_api_error = None;
            values.external.insert(index, vec![v]);
        }
    }
}

/// `samples` with every usage of `old` but `resource`'s kept: the pod's sample answers each
/// resource the metrics put there. The samples were built from one pod list, in one order.
fn keep_other_usage(old: &[PodMetrics], samples: &mut [PodMetrics], resource: &str) {
    for (pod, before) in samples.iter_mut().zip(old) {
        if pod.pod != before.pod {
            continue;
        }
        for c in &before.containers {
            let others = (c.usage.0.iter()).filter(|(r, _)| r != resource).cloned();
            match pod.containers.iter_mut().find(|n| n.name == c.name) {
                Some(n) => n.usage.0.extend(others),
                None => pod.containers.push(ContainerMetrics {
                    name: c.name.clone(),
                    usage: Resources(others.collect()),
                }),
            }
        }
    }
}

/// What a value of the failed metric would make the sync give, said after the failure: each
/// stretch of values and its count, and which give `status.desiredReplicas`. A sync that gives
/// up on its metrics writes the count it found, not a new one
/// (`setCurrentReplicasAndMetricsInStatus` keeps `hpa.Status.DesiredReplicas`): then no value
/// may reproduce it, and that is said. Beside other failed metrics, the values are said with
/// those at their lowest, and the status's count is [`joint_diagnostic`]'s.
pub fn diagnostic(f: &FailedValue) -> Diagnostic {
    let runs: Vec<String> = (f.runs.iter())
        .map(|r| format!("{} gives {}", f.range(r), r.replicas))
        .collect();
    let reproducing: Vec<String> = f.reproducing().iter().map(|r| f.range(r)).collect();
    let status = if !f.others.is_empty() {
        format!(
            "with {} at 0 (the lowest proposal), so each is the least the sync gives at that value",
            f.others.join(" and ")
        )
    } else if reproducing.is_empty() {
        format!(
            "no value gives status.desiredReplicas {} (a sync that gives up keeps the \
             desiredReplicas an earlier sync wrote)",
            f.status_desired
        )
    } else {
        format!(
            "the values that give status.desiredReplicas {}: {}",
            f.status_desired,
            reproducing.join(", ")
        )
    };
    let what = match (&f.unit, f.kind) {
        (Unit::Percent, _) => "of the request",
        (_, "Object" | "External") => "as the metrics API answers it",
        _ => "per pod",
    };
    Diagnostic::new(
        "FailedMetricValue",
        Severity::Info,
        format!(
            "{} metric {} has no value ({}), so its value is an unknown: run forward from {} \
             replicas over {} candidate values ({what}), {}; {status}",
            f.kind,
            f.name,
            f.reason,
            f.from,
            f.tried,
            runs.join(", ")
        ),
        format!(
            "pass the value the metrics API answers now ({}) to compute from it",
            settle(f)
        ),
    )
}

/// The input that gives the failed metric's value, by its kind: `--metric-value` takes Object
/// and External metrics only.
fn settle(f: &FailedValue) -> String {
    match f.kind {
        "Object" => format!("--metric-value {}=QUANTITY, or --custom-metrics", f.name),
        "External" => format!("--metric-value {}=QUANTITY, or --external-metrics", f.name),
        "Pods" => "--pods and --custom-metrics".to_string(),
        _ => "--pods and --metrics".to_string(),
    }
}

/// The values of one failed metric whose count is at most `n`, as one stretch from 0 (the counts
/// rise with the value); `None` when even 0 gives more.
fn at_most(f: &FailedValue, n: i32) -> Option<ValueRun> {
    let last = f.runs.iter().take_while(|r| r.replicas <= n).last()?;
    Some(ValueRun {
        low: 0,
        high: last.high,
        replicas: n,
    })
}

// Port of computeReplicasForMetrics (horizontal.go): the largest valid proposal wins, so with
// every failed metric back the count is the largest of the counts each gives alone.
/// Several failed metrics together: the count is the largest of what each gives with the others
/// at their lowest, so `status.desiredReplicas` needs every one at a value giving at most it, and
/// one giving exactly it.
pub fn joint_diagnostic(all: &FailedValues) -> Diagnostic {
    let n = all.status_desired;
    let names: Vec<&str> = all.each.iter().map(|f| f.name.as_str()).collect();
    let tried: usize = all.each.iter().map(|f| f.tried).sum();
    let bounds: Option<Vec<String>> = (all.each.iter())
        .map(|f| at_most(f, n).map(|r| format!("{} {}", f.name, f.range(&r))))
        .collect();
    let exact: Vec<String> = (all.each.iter())
        .flat_map(|f| {
            (f.reproducing().into_iter()).map(move |r| format!("{} {}", f.name, f.range(&r)))
        })
        .collect();
    let status = match bounds {
        Some(bounds) if !exact.is_empty() => format!(
            "status.desiredReplicas {n} needs each at a value giving at most {n} ({}) and one \
             giving {n} ({})",
            bounds.join(", "),
            exact.join(" or ")
        ),
        _ => format!(
            "no values give status.desiredReplicas {n} (a sync that gives up keeps the \
             desiredReplicas an earlier sync wrote)"
        ),
    };
    Diagnostic::new(
        "FailedMetricValues",
        Severity::Info,
        format!(
            "{} metrics have no value ({}): the count with all of them back is the largest of \
             the counts each gives with the others at 0, since the controller takes the largest \
             proposal and its limits only keep or clamp it ({tried} values tried in all, one search per \
             metric); {status}",
            all.each.len(),
            names.join(", ")
        ),
        "pass the values the metrics API answers now to compute from them".to_string(),
    )
}

/// The failed metrics' search in the report: its diagnostics after the failure's, and each count
/// a value gives that the report does not already name among its outcomes.
pub fn attach(all: &FailedValues, report: &mut Report) {
    let mut at = usize::from(!report.diagnostics.is_empty());
    if all.each.len() > 1 {
        report.diagnostics.insert(at, joint_diagnostic(all));
        at += 1;
    }
    for f in &all.each {
        report.diagnostics.insert(at, diagnostic(f));
        at += 1;
    }
    for f in &all.each {
        let rest = if f.others.is_empty() {
            String::new()
        } else {
            format!(" and {} at a value giving no more", f.others.join(" and "))
        };
        for r in &f.runs {
            let known = r.replicas == report.desired_replicas
                || (report.other_outcomes.iter()).any(|o| o.replicas == r.replicas);
            if !known {
                report.other_outcomes.push(Outcome {
                    replicas: r.replicas,
                    when: format!("if {} comes back at {}{rest}", f.name, f.range(r)),
                    settle: format!("pass {}", settle(f)),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::testing::{cpu_utilization, external, scenario};
    use crate::scenario::{ObservedMetric, ObservedStatus};

    /// `n` pods at `usage` millicores of 1000 (cpu target 50 %) and an External Value metric
    /// `queue` (target 100) the controller could not get; the status says `desired`.
    fn failed_external(n: usize, usage: i64, desired: i32) -> Scenario {
        let mut s = scenario(
            vec![cpu_utilization(50), external("queue", Some(100_000), None)],
            n,
            usage,
        );
        s.hpa.max_replicas = 10;
        s.observed_status = Some(ObservedStatus {
            conditions: Vec::new(),
            current_replicas: Some(i32::try_from(n).unwrap()),
            desired_replicas: Some(desired),
            current_metrics: vec![ObservedMetric {
                metric_type: "Resource".into(),
                name: "cpu".into(),
                value_milli: None,
                average_value_milli: Some(usage),
                average_utilization: Some(i32::try_from(usage / 10).unwrap()),
            }],
        });
        s
    }

    #[test]
    fn a_failed_metric_blocking_a_scale_down_is_searched_and_each_count_dated_by_value() {
        // 4 pods at 25 % of 50 %: cpu proposes 2, the failed metric blocks the scale-down
        // (computeReplicasForMetrics: an invalid metric and a smaller proposal give up), and
        // the controller keeps 4. Back with a value v, the sync gives max(2, ceil(4 × v / 100)):
        // 2 up to 50, 3 up to 75, 4 up to 110 (inside the tolerance from 90), and on to the
        // legacy limit of 8.
        let s = failed_external(4, 250, 4);
        let f = failed_metric_value(&s).unwrap();
        assert_eq!(
            (f.index, f.kind, f.reason),
            (1, "External", "FailedGetExternalMetric")
        );
        assert_eq!(
            f.runs[0],
            ValueRun {
                low: 0,
                high: Some(50_000),
                replicas: 2
            }
        );
        // 110 itself is in: the band's top, 1 + 0.1, is inclusive (tolerances.isWithin).
        assert_eq!(
            f.runs[2],
            ValueRun {
                low: 75_001,
                high: Some(110_000),
                replicas: 4
            }
        );
        assert_eq!((f.runs[3].low, f.runs[3].replicas), (110_001, 5));
        let last = f.runs.last().unwrap();
        assert_eq!(
            (last.high, last.replicas),
            (None, 8),
            "2 × 4, the legacy limit"
        );
        // The counts only rise with the value, one stretch per count.
        assert!(f.runs.windows(2).all(|w| w[0].replicas < w[1].replicas));
        assert_eq!(f.reproducing(), vec![f.runs[2]]);
        assert!(f.tried <= 33 + 20 * f.runs.len(), "{}", f.tried);
    }

    #[test]
    fn each_stretch_is_checked_forward_at_both_ends() {
        let s = failed_external(4, 250, 4);
        let f = failed_metric_value(&s).unwrap();
        let mut trial = s.clone();
        for r in &f.runs {
            for v in [Some(r.low), r.high].into_iter().flatten() {
                with_value(&s, &mut trial, f.index, &s.hpa.metrics[1], v);
                assert_eq!(sync_of(&trial).desired_replicas, r.replicas, "{v}");
            }
        }
    }

    #[test]
    fn a_failed_metric_ignored_on_a_scale_up_leaves_the_status_count_to_low_values() {
        // 4 pods at 75 % of 50 %: cpu proposes 6 and the failed metric is ignored; values up to
        // 150 keep 6 (the status's count), higher ones raise it.
        let s = failed_external(4, 750, 6);
        let f = failed_metric_value(&s).unwrap();
        assert_eq!(f.runs[0].replicas, 6);
        assert_eq!(f.runs[0].high, Some(150_000), "ceil(4 × 150 / 100) = 6");
        assert_eq!(f.reproducing().len(), 1);
        let d = diagnostic(&f);
        assert!(
            d.message
                .contains("the values that give status.desiredReplicas 6: 0–150"),
            "{}",
            d.message
        );
    }

    #[test]
    fn a_failed_cpu_metric_is_searched_in_percent_of_the_request() {
        // The resource metrics API answered nothing: every pod's utilization is the unknown.
        let mut s = failed_external(4, 500, 4);
        s.hpa.metrics.truncate(1);
        s.metrics.resource.clear();
        let f = failed_metric_value(&s).unwrap();
        assert_eq!((f.kind, f.unit.clone()), ("Resource", Unit::Percent));
        // Every metric failed: the controller keeps 4. Back with u %, ceil(4 × u / 50) past the
        // 0.1 tolerance: 4 from 38 % (ceil(3.04)) to 55 % (1.1, the band's inclusive top).
        let four = (f.runs.iter()).position(|r| r.replicas == 4).unwrap();
        assert_eq!((f.runs[four].low, f.runs[four].high), (38, Some(55)));
        assert_eq!((f.runs[four + 1].low, f.runs[four + 1].replicas), (56, 5));
        assert_eq!(f.reproducing(), vec![f.runs[four]]);
    }

    #[test]
    fn a_metric_with_a_value_or_without_a_known_status_count_is_not_searched() {
        let mut s = failed_external(4, 250, 4);
        s.metrics.external.insert(1, vec![50_000]);
        assert!(failed_metric_value(&s).is_none());
        let mut s = failed_external(4, 250, 4);
        s.observed_status = None;
        assert!(failed_metric_value(&s).is_none());
    }

    /// `failed_external` with a second External metric `lag`, AverageValue 10 a replica, that
    /// failed too.
    fn two_failed(n: usize, usage: i64, desired: i32) -> Scenario {
        let mut s = failed_external(n, usage, desired);
        s.hpa.metrics.push(external("lag", None, Some(10_000)));
        s
    }

    /// The count a search says for value `v`.
    fn count_at(f: &FailedValue, v: i64) -> i32 {
        let run = (f.runs.iter()).find(|r| r.low <= v && r.high.is_none_or(|h| v <= h));
        run.unwrap().replicas
    }

    #[test]
    fn two_failed_metrics_are_each_searched_with_the_other_at_its_lowest() {
        // 4 pods at 75 % of 50 %: cpu proposes 6. queue (Value 100) proposes ceil(4 × q / 100),
        // lag (AverageValue 10) ceil(l / 10); with the other at 0 each gives max(6, its own).
        let s = two_failed(4, 750, 6);
        let all = failed_metric_values(&s).unwrap();
        let names: Vec<&str> = all.each.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["queue", "lag"]);
        let (queue, lag) = (&all.each[0], &all.each[1]);
        assert_eq!(
            (queue.others.clone(), lag.others.clone()),
            (vec!["lag".to_string()], vec!["queue".to_string()])
        );
        assert_eq!(
            (queue.runs[0].high, queue.runs[0].replicas),
            (Some(150_000), 6)
        );
        // l up to 66 gives ceil(6.6) = 7 above cpu's 6 only from 60.001.
        assert_eq!((lag.runs[0].high, lag.runs[0].replicas), (Some(60_000), 6));
        assert_eq!((lag.runs[1].low, lag.runs[1].replicas), (60_001, 7));
        // The legacy limit, max(2 × 4, 4): 8 for either.
        assert_eq!(queue.runs.last().unwrap().replicas, 8);
        assert_eq!(lag.runs.last().unwrap().replicas, 8);
    }

    #[test]
    fn two_failed_metrics_give_the_largest_of_their_counts_checked_forward_on_every_pair() {
        // The shortcut, run forward: both values put back at once, on every pair of each
        // search's stretch ends, the sync gives the larger of the two counts.
        for (usage, desired) in [(750, 6), (250, 4)] {
            let s = two_failed(4, usage, desired);
            let all = failed_metric_values(&s).unwrap();
            let (queue, lag) = (&all.each[0], &all.each[1]);
            let ends = |f: &FailedValue| -> Vec<i64> {
                (f.runs.iter())
                    .flat_map(|r| [Some(r.low), r.high])
                    .flatten()
                    .collect()
            };
            let mut trial = s.clone();
            let mut both = s.clone();
            for q in ends(queue) {
                with_value(&s, &mut trial, 1, &s.hpa.metrics[1], q);
                for l in ends(lag) {
                    with_value(&trial, &mut both, 2, &s.hpa.metrics[2], l);
                    let joint = sync_of(&both).desired_replicas;
                    assert_eq!(joint, count_at(queue, q).max(count_at(lag, l)), "{q} {l}");
                }
            }
        }
    }

    #[test]
    fn the_status_count_of_two_failed_metrics_needs_both_at_most_and_one_exactly() {
        let s = two_failed(4, 750, 7);
        let all = failed_metric_values(&s).unwrap();
        let d = joint_diagnostic(&all);
        assert_eq!(d.code, "FailedMetricValues");
        // queue gives 7 from 150.001 to 175; lag from 60.001 to 70.
        assert!(
            d.message.contains(
                "status.desiredReplicas 7 needs each at a value giving at most 7 (queue 0–175, \
                 lag 0–70) and one giving 7 (queue 150.001–175 or lag 60.001–70)"
            ),
            "{}",
            d.message
        );
        let report = crate::calc::evaluate(&s);
        let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code.as_str()).collect();
        let at = codes
            .iter()
            .position(|c| *c == "FailedMetricValues")
            .unwrap();
        assert_eq!(
            &codes[at + 1..at + 3],
            ["FailedMetricValue", "FailedMetricValue"]
        );
        assert!(
            report.diagnostics[at + 2]
                .message
                .contains("with queue at 0 (the lowest proposal)")
        );
        let seven = report
            .other_outcomes
            .iter()
            .find(|o| o.replicas == 7)
            .unwrap();
        assert_eq!(
            seven.when,
            "if queue comes back at 150.001–175 and lag at a value giving no more"
        );
        // No value reproduces a count below what cpu alone gives.
        let low = failed_metric_values(&two_failed(4, 750, 5)).unwrap();
        assert!(
            joint_diagnostic(&low)
                .message
                .contains("no values give status.desiredReplicas 5")
        );
    }

    #[test]
    fn two_failed_resource_metrics_keep_each_others_usage_in_the_samples() {
        // The resource metrics API answered nothing: cpu and memory both fail. Searching memory
        // with cpu held at 0 keeps cpu's sample valid beside it.
        let mut s = failed_external(4, 500, 4);
        s.hpa.metrics.truncate(1);
        s.hpa.metrics.push(MetricSpec::Resource {
            resource: "memory".into(),
            container: None,
            target: crate::scenario::MetricTarget {
                target_type: TargetType::AverageValue,
                average_utilization: None,
                average_value_milli: Some(100_000),
                value_milli: None,
            },
        });
        s.metrics.resource.clear();
        let all = failed_metric_values(&s).unwrap();
        let names: Vec<&str> = all.each.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["cpu", "memory"]);
        // memory at m a pod proposes ceil(4 × m / 100) past the tolerance; cpu at 0 % proposes 0.
        let memory = &all.each[1];
        assert_eq!(memory.others, ["cpu"]);
        assert_eq!(count_at(memory, 125_000), 5);
    }

    mod property {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(24))]
            /// For random pods, usage, bounds and targets, with a behavior's windows and rate
            /// limits or the legacy ones, both failed values put back at once give the larger of
            /// the two searches' counts, on every pair of stretch ends.
            #[test]
            fn two_failed_metrics_give_the_larger_count_on_random_scenarios(
                n in 1usize..7,
                usage in 0i64..2000,
                max_extra in 0i32..12,
                queue_target in 1i64..300,
                lag_target in 1i64..60,
                behavior in any::<bool>(),
            ) {
                let mut s = two_failed(n, usage, 1);
                s.hpa.max_replicas = i32::try_from(n).unwrap() + max_extra;
                s.hpa.metrics[1] = external("queue", Some(queue_target * 1000), None);
                s.hpa.metrics[2] = external("lag", None, Some(lag_target * 1000));
                if behavior {
                    s.hpa.behavior = Some(crate::scenario::Behavior::api_defaults());
                }
                let all = failed_metric_values(&s).unwrap();
                prop_assert_eq!(all.each.len(), 2);
                let (queue, lag) = (&all.each[0], &all.each[1]);
                let ends = |f: &FailedValue| -> Vec<i64> {
                    (f.runs.iter()).flat_map(|r| [Some(r.low), r.high]).flatten().collect()
                };
                let (mut one, mut both) = (s.clone(), s.clone());
                for q in ends(queue) {
                    with_value(&s, &mut one, 1, &s.hpa.metrics[1], q);
                    for l in ends(lag) {
                        with_value(&one, &mut both, 2, &s.hpa.metrics[2], l);
                        let joint = sync_of(&both).desired_replicas;
                        prop_assert_eq!(joint, count_at(queue, q).max(count_at(lag, l)));
                    }
                }
            }
        }
    }
}
