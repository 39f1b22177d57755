//! Fix advice for a ScaledObject, in its own terms and checked forward. When the count is pinned
//! at `maxReplicaCount` by a trigger whose threshold asks for more, the lever is the trigger's
//! threshold (`lagThreshold`, `threshold`, cpu's `value`, ...): candidate thresholds run through
//! the same what-if path as every other fix (`crate::what_if`, here on the HPA's metric target
//! and the trigger's), KEDA's poll and the HPA's sync, and only one whose count settles within
//! maxReplicaCount is offered, with the count it gives. With `advanced.scalingModifiers` the HPA
//! reads one composite metric against the modifiers' `target`, and that target is the lever, run
//! forward the same way (`activationTarget` only decides 0 ↔ 1: `getScaledObjectState` in
//! scale_handler.go compares the formula's value with it, and that value does not depend on the
//! target). The HPA's own
//! advice ("raise maxReplicas") is said as the ScaledObject's `spec.maxReplicaCount`.

use crate::calc::keda::status::{Run, label};
use crate::report::{MetricReport, Report};
use crate::scenario::keda::{COMPOSITE_METRIC, KedaInput, Trigger};
use crate::scenario::{MetricSpec, MetricTarget, Scenario, TargetType};
use crate::what_if::{self, Change};

/// The most candidate thresholds run forward.
const MOST_CANDIDATES: usize = 48;

/// Replaces the HPA's wording with the ScaledObject's, and adds the trigger threshold that the
/// engine shows brings the count within maxReplicaCount.
pub fn check(s: &Scenario, run: Run<'_>, report: &mut Report) {
    let Some(k) = &s.keda else { return };
    for d in &mut report.diagnostics {
        d.fix = d
            .fix
            .replace("a higher maxReplicas", "a higher spec.maxReplicaCount")
            .replace("raise maxReplicas", "raise spec.maxReplicaCount")
            .replace("(maxReplicas ", "(maxReplicaCount ");
    }
    let Some(at) = (report.diagnostics.iter()).position(|d| d.code == "AtMaxReplicas") else {
        return;
    };
    let Some(fix) = threshold_fix(s, k, run, report).or_else(|| modifiers_fix(s, k, run, report))
    else {
        return;
    };
    if let Some(d) = report.diagnostics.get_mut(at) {
        d.fix = if d.fix.starts_with("raise spec.maxReplicaCount") {
            format!("{fix}; or, if the load needs them, {}", d.fix)
        } else {
            // A higher max does not help (the engine showed it): the threshold is the lever.
            format!("{fix} ({})", d.fix)
        };
    }
}

/// The metric that decided the count.
fn decisive(report: &Report) -> Option<&MetricReport> {
    let name = report.decision.metric_name.as_deref()?;
    report.metrics.iter().find(|m| m.description == name)
}

/// The trigger behind the decisive metric and its index in the HPA's metrics.
fn trigger_of<'k>(
    s: &Scenario,
    k: &'k KedaInput,
    m: &MetricReport,
) -> Option<(&'k Trigger, usize)> {
    let t = k.triggers.iter().find(|t| match &t.metric_name {
        Some(name) => *name == m.name,
        None => t.scaler == m.name,
    })?;
    t.threshold_key.as_ref()?;
    let index = s.hpa.metrics.iter().position(|spec| match spec {
        MetricSpec::External { metric, .. } => t.metric_name.as_deref() == Some(&metric.name),
        MetricSpec::Resource { resource, .. } => t.metric_name.is_none() && *resource == t.scaler,
        _ => false,
    })?;
    Some((t, index))
}

/// A threshold in the trigger's own units: the target's number (a percent for Utilization).
fn threshold_of(target: &MetricTarget) -> Option<f64> {
    #[allow(clippy::cast_precision_loss)]
    match target.target_type {
        TargetType::Utilization => target.average_utilization.map(f64::from),
        TargetType::AverageValue => target.average_value_milli.map(|m| m as f64 / 1000.0),
        TargetType::Value => target.value_milli.map(|m| m as f64 / 1000.0),
    }
}

/// The target with threshold `v` in its units.
fn target_at(target: &MetricTarget, v: f64) -> MetricTarget {
    let milli = crate::scenario::keda::milli_from_float(v);
    let mut out = target.clone();
    match target.target_type {
        #[allow(clippy::cast_possible_truncation)]
        TargetType::Utilization => out.average_utilization = Some(v.ceil().min(1e9) as i32),
        TargetType::AverageValue => out.average_value_milli = Some(milli),
        TargetType::Value => out.value_milli = Some(milli),
    }
    out
}

/// The scenario with the trigger's threshold at `v`: the HPA's metric target through the
/// what-if path, and KEDA's own copy (its fallback serves target × replicas).
pub fn with_threshold(s: &Scenario, index: usize, trigger: usize, v: f64) -> Option<Scenario> {
    let spec = s.hpa.metrics.get(index)?;
    let target = target_at(spec.target(), v);
    let mut out = what_if::changed(s, &[Change::MetricTarget { index, target }])?;
    if let Some(k) = &mut out.keda
        && let Some(t) = k.triggers.get_mut(trigger)
        && let Some(tg) = &mut t.target
    {
        tg.milli = crate::scenario::keda::milli_from_float(v);
    }
    Some(out)
}

/// Rounds a threshold up to two significant digits (whole numbers for integer thresholds and
/// percents): the value a person would write.
fn round_up(v: f64, integer: bool) -> f64 {
    if integer || v >= 100.0 {
        let digits = if v >= 100.0 {
            10f64.powf(v.log10().floor() - 1.0)
        } else {
            1.0
        };
        return (v / digits).ceil() * digits;
    }
    let step = 10f64.powf(v.abs().max(1e-3).log10().floor() - 1.0);
    ((v / step).ceil() * step * 1000.0).round() / 1000.0
}

/// The count a scenario's sync gives and the metrics' proposal, when the sync after it, from that
/// count with its pods ready, proposes the same (`None` when it moves again: a target that runs
/// away).
fn settles(run: Run<'_>, changed: &Scenario) -> Option<(i32, i32)> {
    let (first, _) = run(changed);
    let count = first.desired_replicas;
    let proposal = first.decision.metric_proposal.unwrap_or(count);
    let next = crate::calc::advice::next_sync(changed, count);
    let (second, _) = run(&next);
    let again = second
        .decision
        .metric_proposal
        .unwrap_or(second.desired_replicas);
    (again == proposal).then_some((count, proposal))
}

/// The least threshold above `now`, among the candidates that would make the proposal each
/// count within max, whose forward run (`change` applied, then two syncs) settles within max:
/// the threshold and the count. Candidates only: each is checked by running forward.
fn first_settling(
    run: Run<'_>,
    (now, proposal, max): (f64, i32, i32),
    integer: bool,
    change: &dyn Fn(f64) -> Option<Scenario>,
) -> Option<(f64, i32)> {
    let mut tried = Vec::new();
    for n in (1..=max).rev() {
        let v = round_up(now * f64::from(proposal) / f64::from(n), integer);
        if v <= now || tried.contains(&v.to_bits()) {
            continue;
        }
        tried.push(v.to_bits());
        if tried.len() > MOST_CANDIDATES {
            break;
        }
        let changed = change(v)?;
        let Some((count, p)) = settles(run, &changed) else {
            continue;
        };
        if p > max || count > max {
            continue;
        }
        return Some((v, count));
    }
    None
}

/// What pins max, if a threshold can lift it: the decisive metric's proposal above max.
fn pinned(report: &Report, max: i32) -> Option<(&MetricReport, i32)> {
    let m = decisive(report)?;
    let proposal = report.decision.metric_proposal?;
    (proposal > max).then_some((m, proposal))
}

/// "raise trigger 'orders' (s0, kafka) metadata.lagThreshold from 10 to 60 → 6 replicas", for
/// the least raise whose forward run settles within maxReplicaCount; `None` when none does.
fn threshold_fix(s: &Scenario, k: &KedaInput, run: Run<'_>, report: &Report) -> Option<String> {
    let max = s.hpa.max_replicas;
    let (m, proposal) = pinned(report, max)?;
    let (t, index) = trigger_of(s, k, m)?;
    let position = k.triggers.iter().position(|x| std::ptr::eq(x, t))?;
    let spec = s.hpa.metrics.get(index)?;
    let now = threshold_of(spec.target())?;
    if now <= 0.0 {
        return None;
    }
    let integer = t.threshold_integer || spec.target().target_type == TargetType::Utilization;
    let change = |v: f64| with_threshold(s, index, position, v);
    let (v, count) = first_settling(run, (now, proposal, max), integer, &change)?;
    Some(format!(
        "raise trigger {} metadata.{} from {} to {} → {}{}",
        label(t),
        t.threshold_key.as_deref().unwrap_or("threshold"),
        number(now),
        number(v),
        replicas(count),
        value_type_words(spec.target())
    ))
}

fn value_type_words(target: &MetricTarget) -> &'static str {
    if target.target_type == TargetType::Value {
        "; or metricType AverageValue, which divides the value among the pods"
    } else {
        ""
    }
}

/// The scenario with `advanced.scalingModifiers.target` at `v`: the HPA's composite metric
/// target through the what-if path, and KEDA's own copy (its fallback and a nil formula serve
/// target × replicas).
// Port of the composite metric's target in hpa.go (getScaledObjectMetricSpecs): the HPA reads
// composite-metric against scalingModifiers.target, AverageValue or Value as metricType says.
pub fn with_modifiers_target(s: &Scenario, index: usize, v: f64) -> Option<Scenario> {
    let spec = s.hpa.metrics.get(index)?;
    let target = target_at(spec.target(), v);
    let mut out = what_if::changed(s, &[Change::MetricTarget { index, target }])?;
    if let Some(m) = out.keda.as_mut().and_then(|k| k.modifiers.as_mut()) {
        m.target = v;
        m.target_is_integer = v.fract() == 0.0;
    }
    Some(out)
}

/// "raise advanced.scalingModifiers.target from 50 to 80 → 25 replicas", when the composite
/// metric pins maxReplicaCount and a higher target, run forward, settles within it.
fn modifiers_fix(s: &Scenario, k: &KedaInput, run: Run<'_>, report: &Report) -> Option<String> {
    let modifiers = k.modifiers.as_ref()?;
    let max = s.hpa.max_replicas;
    let (m, proposal) = pinned(report, max)?;
    if m.name != COMPOSITE_METRIC {
        return None;
    }
    let index = s.hpa.metrics.iter().position(|spec| {
        matches!(spec, MetricSpec::External { metric, .. } if metric.name == COMPOSITE_METRIC)
    })?;
    let spec = s.hpa.metrics.get(index)?;
    let now = modifiers.target;
    if now <= 0.0 {
        return None;
    }
    // A fallback needs an integer target (HasValidFallback): keep one.
    let integer = modifiers.target_is_integer;
    let change = |v: f64| with_modifiers_target(s, index, v);
    let (v, count) = first_settling(run, (now, proposal, max), integer, &change)?;
    Some(format!(
        "raise advanced.scalingModifiers.target from {} to {} → {}{}",
        number(now),
        number(v),
        replicas(count),
        value_type_words(spec.target())
    ))
}

fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

fn replicas(count: i32) -> String {
    if count == 1 {
        "1 replica".to_string()
    } else {
        format!("{count} replicas")
    }
}

#[cfg(test)]
#[path = "advice_tests.rs"]
mod tests;
