//! KEDA's `status.lastActiveTime` as evidence of the HPA's memory. A trigger was active then, so it
//! served more than its activation threshold (a cron trigger: exactly its `desiredReplicas`), and
//! the HPA's sync at that time recommended at least what that value asks. While that sync is
//! inside the stabilization window, the window holds the count there; the steady-load assumption
//! alone would scale down through it.

use crate::calc::memory::steady_memory;
use crate::calc::normalize::scale_down_window;
use crate::calc::reconcile::{VersionRules, metric_inputs, tolerances_for_hpa};
use crate::calc::replicas::external_per_pod_metric_replicas;
use crate::report::{Diagnostic, Report, Severity};
use crate::scenario::keda::{KedaInput, Trigger, milli_from_float};
use crate::scenario::{Recommendation, Scenario};
use crate::time::{Duration, Timestamp};

use super::KedaOutcome;

/// The HPA's recommendation at KEDA's last active time, as far as the evidence fixes it.
#[derive(Debug, Clone, PartialEq)]
pub struct ActiveRecord {
    pub at: Timestamp,
    /// The least the HPA can have recommended then.
    pub at_least: i32,
    /// The triggers that may have been the active one, with what each served ("s0 (cron) served
    /// 2").
    pub served: Vec<String>,
}

/// The record, when the ScaledObject's status gives a last active time inside the HPA's
/// scale-down window, KEDA is not active now and the HPA's memory is assumed (a `--history` is the exact
/// form). `None` also when no trigger's value then can be bounded (a formula, a `Value` target).
pub fn record(k: &KedaInput, o: &KedaOutcome, hpa: &Scenario) -> Option<ActiveRecord> {
    let at = k.last_active?;
    let quiet = !o.last_active_now && !o.paused && o.scale_to.is_none();
    let inside = !at.after(hpa.now) && hpa.now.since(at) <= down_window(hpa);
    if k.last_active_assumed || k.modifiers.is_some() || hpa.memory.is_some() || !quiet || !inside {
        return None;
    }
    let mut at_least: Option<i32> = None;
    let mut served = Vec::new();
    for t in k.triggers.iter().filter(|t| t.metric_name.is_some()) {
        // Any of them may have been the active one: the record is at least the least of theirs.
        let (least, words) = least_proposal(t, hpa)?;
        at_least = Some(at_least.map_or(least, |a| a.min(least)));
        served.push(words);
    }
    Some(ActiveRecord {
        at,
        at_least: at_least?,
        served,
    })
}

/// The least proposal of an active trigger's External `AverageValue` metric, whatever the
/// replicas were then (inside the tolerance the proposal is that count), and what it served.
// Port of GetExternalPerPodMetricReplicas (replica_calculator.go) at the lowest value an active
// trigger serves.
fn least_proposal(t: &Trigger, hpa: &Scenario) -> Option<(i32, String)> {
    let target = t.target.filter(|tg| !tg.value_type)?;
    let (value, words) = match t.active_value {
        Some(v) => (milli_from_float(v), format!("served {}", number(v))),
        None => (
            milli_from_float(t.activation).saturating_add(1),
            format!("served more than its activation {}", number(t.activation)),
        ),
    };
    let rules = VersionRules::for_scenario(hpa);
    let tolerances = tolerances_for_hpa(&hpa.hpa, hpa.config.tolerance, &rules);
    let guards = metric_inputs(hpa, &rules, tolerances).guards;
    let proposal = |replicas| {
        external_per_pod_metric_replicas(tolerances, replicas, target.milli, &[value], guards)
            .replicas
    };
    // Outside the tolerance the proposal does not depend on the count (0 is never inside);
    // inside it is the count, and the lowest count inside lies near value / (target × (1 + up)).
    let outside = proposal(0);
    #[allow(clippy::cast_precision_loss)]
    let lowest = value as f64 / (target.milli.max(1) as f64 * (1.0 + tolerances.scale_up));
    let near = crate::calc::replicas::ceil_to_i32(lowest);
    let least = (near.saturating_sub(1)..=near.saturating_add(1))
        .filter(|&r| (1..=hpa.hpa.max_replicas).contains(&r))
        .map(proposal)
        .fold(outside, i32::min)
        .max(0);
    Some((least, format!("s{} ({}) {words}", t.index, t.scaler)))
}

/// The window that keeps a higher recommendation against a scale-down.
fn down_window(hpa: &Scenario) -> Duration {
    let flag = hpa.config.downscale_stabilization_window;
    match &hpa.hpa.behavior {
        None => flag,
        Some(b) => Duration(i64::from(scale_down_window(b, flag)).saturating_mul(1000)),
    }
}

fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

/// The HPA's sync with the record in its memory: steady load at every other sync of the window,
/// as without evidence, and the record at the last active time. Where it holds a higher count,
/// the record is the cause, first in WHY and in the decision. A lower bound cannot lower a
/// scale-up (the up window's minimum), so elsewhere the sync without it stands and the
/// assumptions say so.
pub fn evaluate_with(
    hpa: &Scenario,
    record: &ActiveRecord,
    evaluate: impl Fn(&Scenario) -> Report,
) -> Report {
    let mut without = evaluate(hpa);
    let mut memory = steady_memory(hpa);
    memory.recommendations.push(Recommendation {
        replicas: record.at_least,
        timestamp: record.at,
    });
    let mut with = hpa.clone();
    with.memory = Some(memory);
    let mut report = evaluate(&with);
    let when = format!(
        "KEDA's status.lastActiveTime is {} ({} ago): {} then, so the HPA's sync then \
         recommended at least {}",
        record.at.to_rfc3339(),
        hpa.now.since(record.at),
        record.served.join(" or "),
        record.at_least
    );
    let (held, would) = (report.desired_replicas, without.desired_replicas);
    if held <= would {
        without
            .assumptions
            .push(format!("{when}; that does not hold this sync's count."));
        return without;
    }
    let window = down_window(hpa);
    let until = record.at.add(window).to_rfc3339();
    let proposal = without
        .decision
        .metric_proposal
        .unwrap_or(hpa.current_replicas);
    report.assumptions.push(format!(
        "No --history: assumed steady load: every sync in the last {}s recommended {proposal} \
         and no scale event happened, except the sync at KEDA's last active time ({}), which \
         recommended at least {}.",
        window.millis() / 1000,
        record.at.to_rfc3339(),
        record.at_least
    ));
    report.diagnostics.insert(
        0,
        Diagnostic::new(
            "KedaRecentlyActive",
            Severity::Warning,
            format!(
                "{when}. The {}s scale-down window keeps that recommendation until about \
                 {until}: the count is {held} until then, not the {would} this sync's metrics \
                 alone give",
                window.millis() / 1000
            ),
            "nothing is wrong: this is the stabilization window after the trigger went \
             inactive. To scale in sooner, shorten \
             advanced.horizontalPodAutoscalerConfig.behavior.scaleDown.stabilizationWindowSeconds; \
             pass --history with the controller's recommendations for the exact answer",
        ),
    );
    report.decision.summary = format!(
        "{}; the window holds the recommendation of KEDA's last active time ({}, at least {}) \
         until about {until}, then {would}",
        report.decision.summary,
        record.at.to_rfc3339(),
        record.at_least,
    );
    report
}

#[cfg(test)]
mod tests {
    use crate::calc::evaluate;
    use crate::calc::testing::{NOW, external, scenario};
    use crate::scenario::Scenario;
    use crate::scenario::keda::{ExternalTarget, KedaInput, Trigger, TriggerValue};
    use crate::time::Duration;

    /// A cron trigger (desiredReplicas 2, target 1) now serving 0, at 2 replicas, min 1, max 10,
    /// KEDA last active `ago` before now.
    fn cron(ago: Option<i64>, active_value: Option<f64>) -> Scenario {
        let metric = "s0-cron-Etc-UTC-06xxx-157xxx";
        let mut s = scenario(vec![external(metric, None, Some(1000))], 2, 100);
        s.hpa.max_replicas = 10;
        s.metrics.external.insert(0, vec![0]);
        s.keda = Some(KedaInput {
            name: "reports".into(),
            min_replica_count: Some(1),
            max_replica_count: 10,
            idle_replica_count: None,
            cooldown: Duration::from_secs(300),
            initial_cooldown: Duration::ZERO,
            polling_interval: Duration::from_secs(30),
            last_active: ago.map(|a| NOW.sub(Duration::from_secs(a))),
            created: None,
            last_active_assumed: ago.is_none(),
            triggers: vec![Trigger {
                index: 0,
                scaler: "cron".into(),
                name: String::new(),
                metric_name: Some(metric.into()),
                activation: 0.0,
                activation_source: "active inside the window".into(),
                target: Some(ExternalTarget {
                    milli: 1000,
                    value_type: false,
                }),
                value: TriggerValue::Value(0.0),
                active_value,
                failures: 0,
                threshold_key: None,
                threshold_integer: true,
            }],
            fallback: None,
            modifiers: None,
            paused: None,
            pause_scale_in: false,
            pause_scale_out: false,
            force_activation: false,
            status: None,
        });
        s
    }

    #[test]
    fn a_cron_active_two_minutes_ago_holds_its_count_in_the_window() {
        let r = evaluate(&cron(Some(120), Some(2.0)));
        assert_eq!(r.desired_replicas, 2);
        assert_eq!(r.diagnostics[0].code, "KedaRecentlyActive");
        assert!(
            r.decision.summary.contains("at least 2) until about"),
            "{}",
            r.decision.summary
        );
    }

    #[test]
    fn without_the_last_active_time_or_past_the_window_the_steady_answer_stands() {
        for s in [cron(None, Some(2.0)), cron(Some(301), Some(2.0))] {
            let r = evaluate(&s);
            assert_eq!(r.desired_replicas, 1);
            assert!(r.diagnostics.iter().all(|d| d.code != "KedaRecentlyActive"));
        }
    }

    #[test]
    fn a_trigger_known_only_above_its_activation_bounds_no_higher_than_one() {
        // Active means more than activation 0: 1m, which asks for ceil(0.001) = 1 replica.
        let r = evaluate(&cron(Some(120), None));
        assert_eq!(r.desired_replicas, 1);
        assert!(
            (r.assumptions.iter()).any(|a| a.contains("at least 1; that does not hold")),
            "{:?}",
            r.assumptions
        );
    }

    #[test]
    fn the_least_proposal_takes_the_tolerance_around_any_count_then() {
        // 20 served against a target of 1: 19 replicas then were inside the tolerance (20 / 19 =
        // 1.053) and kept 19; 18 were not (1.11). So the record is at least 19, not 20.
        let mut s = cron(Some(120), Some(20.0));
        s.hpa.max_replicas = 30;
        let hpa = crate::calc::keda::hpa_scenario(
            &s,
            &crate::calc::keda::decide(s.keda.as_ref().unwrap(), 2, 2, NOW),
        );
        let t = &s.keda.as_ref().unwrap().triggers[0];
        assert_eq!(super::least_proposal(t, &hpa).map(|l| l.0), Some(19));
    }
}
