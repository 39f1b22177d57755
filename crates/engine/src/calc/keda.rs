//! KEDA's own step, before the HPA's: what its scale loop does with the trigger values
//! (activation 0↔1, cooldown, idle replicas, fallback, the scaling-modifiers formula) and what
//! its metrics server serves to the HPA. Pure, like the rest of `calc`.
//!
//! Mirrors kedacore/keda `pkg/scaling/scale_handler.go` (`getScaledObjectState`,
//! `getScalerState`), `pkg/fallback/fallback.go`, `pkg/scaling/modifiers/formula.go` and
//! `pkg/scaling/executor/scale_scaledobjects.go` (`RequestScale`).

use crate::formula;

use std::collections::BTreeMap;

use crate::report::{Diagnostic, Report, Severity, Step};
use crate::scenario::keda::{COMPOSITE_METRIC, milli_from_float, truncate_milli};
use crate::scenario::keda::{
    Fallback, FallbackBehavior, KedaInput, Modifiers, Trigger, TriggerValue,
};
use crate::scenario::{ConditionStatus, MetricSpec, PodPhase, Scenario};
use crate::time::Timestamp;

/// What KEDA decides and serves at this poll.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KedaOutcome {
    pub steps: Vec<Step>,
    pub diagnostics: Vec<Diagnostic>,
    /// What the metrics server answers for each External metric; a name absent means an error.
    pub external: BTreeMap<String, Vec<i64>>,
    /// The replica count KEDA itself sets on the target at this poll.
    pub scale_to: Option<i32>,
    /// The ScaledObject is paused: KEDA deleted the HPA.
    pub paused: bool,
    /// One clause for the decision's summary.
    pub summary: String,
    pub active: bool,
    pub error: bool,
    pub fallback_active: bool,
    /// KEDA records now as the last active time (`result.LastActiveTime`).
    pub last_active_now: bool,
}

fn step(steps: &mut Vec<Step>, title: impl Into<String>, detail: impl Into<String>) {
    steps.push(Step {
        phase: "keda".to_string(),
        title: title.into(),
        detail: detail.into(),
        values: std::collections::BTreeMap::new(),
    });
}

fn num(v: f64) -> String {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

#[allow(clippy::cast_precision_loss)]
fn milli_text(m: i64) -> String {
    num(m as f64 / 1000.0)
}

/// State of one trigger at this poll.
struct TriggerState {
    active: bool,
    error: bool,
    fallback: bool,
    /// Served value (milli), `None` on error.
    served: Option<i64>,
    /// The value the formula sees: `None` is nil.
    formula_value: Option<f64>,
}

impl TriggerState {
    /// A failed trigger: the HPA gets no value, and the formula does not see it.
    const ERROR: TriggerState = TriggerState {
        active: false,
        error: true,
        fallback: false,
        served: None,
        formula_value: None,
    };

    /// A served value (milli), which the formula sees in units.
    #[allow(clippy::cast_precision_loss)]
    fn serving(milli: i64, active: bool, fallback: bool) -> TriggerState {
        TriggerState {
            active,
            error: false,
            fallback,
            served: Some(milli),
            formula_value: Some(milli as f64 / 1000.0),
        }
    }
}

// Port of doFallback (pkg/fallback/fallback.go): the value that makes the HPA land on the
// fallback replicas, `target × replicas` (÷ ready pods for a Value target).
#[allow(clippy::cast_precision_loss)]
pub fn fallback_value(
    behavior: FallbackBehavior,
    fallback_replicas: i32,
    current: i32,
    ready: i32,
    value_target: bool,
    normalisation: f64,
) -> Option<(i64, f64)> {
    let fb = i64::from(fallback_replicas);
    let cur = i64::from(current);
    let mut replicas = match behavior {
        FallbackBehavior::Static => fb as f64,
        FallbackBehavior::CurrentReplicas => cur as f64,
        FallbackBehavior::CurrentReplicasIfHigher => cur.max(fb) as f64,
        FallbackBehavior::CurrentReplicasIfLower => cur.min(fb) as f64,
        FallbackBehavior::ScalingModifiers => return None,
    };
    if value_target {
        if ready == 0 {
            return None;
        }
        replicas /= f64::from(ready);
    }
    // `int64(normalisationValue*1000*replicas)`, in Go's order: (target × 1000) × replicas.
    #[allow(clippy::cast_possible_truncation)]
    let milli = (normalisation * 1000.0 * replicas) as i64;
    Some((milli, replicas))
}

/// KEDA's poll: each trigger, the formula, the activity, then `RequestScale`.
pub fn decide(k: &KedaInput, current: i32, ready: i32, now: Timestamp) -> KedaOutcome {
    let mut o = KedaOutcome {
        steps: Vec::new(),
        diagnostics: Vec::new(),
        external: BTreeMap::new(),
        scale_to: None,
        paused: false,
        summary: String::new(),
        active: false,
        error: false,
        fallback_active: false,
        last_active_now: false,
    };
    step(
        &mut o.steps,
        format!("ScaledObject {}", k.name),
        format!(
            "minReplicaCount {}, maxReplicaCount {}, idleReplicaCount {}; cooldown {}s, polling \
             every {}s; {} trigger(s); current replicas {current}",
            k.min_replica_count
                .map_or("unset (0)".to_string(), |m| m.to_string()),
            k.max_replica_count,
            k.idle_replica_count
                .map_or("unset".to_string(), |m| m.to_string()),
            k.cooldown.millis() / 1000,
            k.polling_interval.millis() / 1000,
            k.triggers.len()
        ),
    );
    let states = poll_triggers(k, current, ready, &mut o);
    o.error = states.iter().any(|(_, s)| s.error);
    o.fallback_active = states.iter().any(|(_, s)| s.fallback);
    o.active = scaled_object_active(k, &states, &mut o);
    request_scale(k, current, k.min_replica_count.unwrap_or(0), now, &mut o);
    o
}

/// Each trigger at this poll: its value and activity, or its failure and the fallback; and without
/// scaling modifiers the value the metrics server serves for it.
// Port of getScalerState and GetMetricsWithFallback, per trigger (scale_handler.go, fallback.go).
fn poll_triggers<'k>(
    k: &'k KedaInput,
    current: i32,
    ready: i32,
    o: &mut KedaOutcome,
) -> Vec<(&'k Trigger, TriggerState)> {
    // Port of HasValidFallback (fallback.go).
    let valid_fallback = k.fallback.filter(|f| {
        f.failure_threshold >= 0
            && f.replicas >= 0
            && k.modifiers.as_ref().is_none_or(|m| m.target_is_integer)
    });
    let mut states = Vec::new();
    for t in &k.triggers {
        let state = match t.value {
            _ if t.metric_name.is_none() => {
                trigger_step(
                    &mut o.steps,
                    t,
                    "no KEDA value; the HPA reads the pods (always active)",
                );
                continue;
            }
            TriggerValue::Resource => continue,
            TriggerValue::Value(v) => served_value(t, v, &mut o.steps),
            // Resolved from the status before the poll (`status::resolve`); never reached.
            TriggerValue::Unknown => served_value(t, 0.0, &mut o.steps),
            TriggerValue::Failed => failed_trigger(k, t, valid_fallback, current, ready, o),
        };
        if k.modifiers.is_none()
            && let (Some(metric), Some(v)) = (&t.metric_name, state.served)
        {
            o.external.insert(metric.clone(), vec![v]);
        }
        states.push((t, state));
    }
    states
}

// Port of the activity of getScaledObjectState (scale_handler.go): any trigger active; with
// scaling modifiers, the composite value above activationTarget instead (HandleScalingModifiers,
// formula.go); with only cpu/memory triggers, always, unless an error.
fn scaled_object_active(
    k: &KedaInput,
    states: &[(&Trigger, TriggerState)],
    o: &mut KedaOutcome,
) -> bool {
    let mut active = states.iter().any(|(_, s)| s.active);
    if let Some(m) = &k.modifiers {
        active = formula_active(k, m, states, o);
    }
    // Only cpu/memory triggers: always active unless an error.
    if k.triggers
        .iter()
        .all(|t| matches!(t.value, TriggerValue::Resource))
        && !o.error
    {
        active = true;
    }
    active
}

/// The composite metric KEDA serves with scaling modifiers, and whether it is above
/// activationTarget (never with a failed trigger).
fn formula_active(
    k: &KedaInput,
    m: &Modifiers,
    states: &[(&Trigger, TriggerState)],
    o: &mut KedaOutcome,
) -> bool {
    let fallback = states
        .iter()
        .find(|(_, s)| s.fallback)
        .and_then(|(_, s)| s.served);
    let Some(c) = composite_value(k, m, states, fallback, &mut o.steps) else {
        return false;
    };
    o.external.insert(COMPOSITE_METRIC.to_string(), vec![c]);
    if o.error {
        return false;
    }
    #[allow(clippy::cast_precision_loss)]
    let value = c as f64 / 1000.0;
    let active = value > m.activation_target;
    step(
        &mut o.steps,
        "formula activation",
        format!(
            "{} {} activationTarget {}: {}",
            milli_text(c),
            if active { ">" } else { "≤" },
            num(m.activation_target),
            if active { "active" } else { "inactive" }
        ),
    );
    active
}

/// The step of one trigger, `trigger sN SCALER`, its detail after the metric name (the scaler's
/// for cpu and memory) and the trigger's name.
fn trigger_step(steps: &mut Vec<Step>, t: &Trigger, detail: &str) {
    let subject = t.metric_name.as_deref().unwrap_or(&t.scaler);
    let named = if t.name.is_empty() {
        String::new()
    } else {
        format!(" ({})", t.name)
    };
    step(
        steps,
        format!("trigger s{} {}", t.index, t.scaler),
        format!("{subject}{named}: {detail}"),
    );
}

/// A trigger that answered: its value, served to the HPA, and active iff above its activation.
fn served_value(t: &Trigger, v: f64, steps: &mut Vec<Step>) -> TriggerState {
    let served = milli_from_float(v);
    let active = v > t.activation;
    let cleaned = if served == 0 && !(v.is_finite() && v >= 0.0) {
        format!(" ({} served as 0)", num(v))
    } else {
        String::new()
    };
    trigger_step(
        steps,
        t,
        &format!(
            "value {}{cleaned} {} activation {} ({}): {}",
            num(v),
            if active { ">" } else { "≤" },
            num(t.activation),
            t.activation_source,
            if active { "active" } else { "inactive" }
        ),
    );
    TriggerState::serving(served, active, false)
}

// Port of GetMetricsWithFallback (fallback.go): a failed trigger is an error until it has failed
// more than failureThreshold times in a row; then the fallback serves a value (doFallback), or nil
// to the formula for a `scalingModifiers` fallback.
fn failed_trigger(
    k: &KedaInput,
    t: &Trigger,
    valid_fallback: Option<Fallback>,
    current: i32,
    ready: i32,
    o: &mut KedaOutcome,
) -> TriggerState {
    let failures = t.failures.saturating_add(1);
    let f = match valid_fallback {
        Some(f) if failures > f.failure_threshold => f,
        Some(f) => {
            trigger_step(
                &mut o.steps,
                t,
                &format!(
                    "failed ({failures} consecutive failure(s), fallback after more than {}): \
                     error, the HPA gets no value",
                    f.failure_threshold
                ),
            );
            return TriggerState::ERROR;
        }
        None => {
            trigger_step(
                &mut o.steps,
                t,
                "failed, no fallback: error, the HPA gets no value",
            );
            return TriggerState::ERROR;
        }
    };
    if f.behavior == FallbackBehavior::ScalingModifiers {
        trigger_step(
            &mut o.steps,
            t,
            &format!(
                "failed ({failures} consecutive failures > failureThreshold {}): nil in the \
                 formula",
                f.failure_threshold
            ),
        );
        return TriggerState {
            active: false,
            error: false,
            fallback: false,
            served: Some(-1000),
            formula_value: None,
        };
    }
    let (value_target, normalisation) = match &k.modifiers {
        Some(m) => (m.value_type, m.target),
        #[allow(clippy::cast_precision_loss)]
        None => t
            .target
            .map_or((false, 0.0), |tg| (tg.value_type, tg.milli as f64 / 1000.0)),
    };
    let Some((milli, replicas)) = fallback_value(
        f.behavior,
        f.replicas,
        current,
        ready,
        value_target,
        normalisation,
    ) else {
        trigger_step(
            &mut o.steps,
            t,
            "failed; the fallback cannot be computed (no ready pods for a Value target): error",
        );
        return TriggerState::ERROR;
    };
    trigger_step(
        &mut o.steps,
        t,
        &format!(
            "failed ({failures} consecutive failures > failureThreshold {}): fallback {} → \
             serves target {} × {} = {}",
            f.failure_threshold,
            f.behavior.as_str(),
            num(normalisation),
            num(replicas),
            milli_text(milli)
        ),
    );
    o.diagnostics
        .push(fallback_diagnostic(t, f, failures, replicas));
    TriggerState::serving(milli, true, true)
}

/// `KedaFallback`: a trigger failed more than failureThreshold times, and the fallback serves.
fn fallback_diagnostic(t: &Trigger, f: Fallback, failures: i32, replicas: f64) -> Diagnostic {
    Diagnostic::new(
        "KedaFallback",
        Severity::Warning,
        format!(
            "Trigger s{} ({}) failed {failures} times in a row, more than \
             fallback.failureThreshold {}: KEDA serves the value that makes the HPA aim for {} \
             replica(s) ({}).",
            t.index,
            t.scaler,
            f.failure_threshold,
            num(replicas),
            f.behavior.as_str()
        ),
        "Fix the scaler's source or credentials (kubectl describe scaledobject shows the \
         error); the count follows the fallback until it answers again.",
    )
}

// Port of HandleScalingModifiers and calculateScalingModifiersFormula (formula.go): the
// composite metric is the fallback's value while a fallback is active, else the formula over the
// triggers' values (a failed trigger is absent, a trigger in `scalingModifiers` fallback is nil).
fn composite_value(
    k: &KedaInput,
    m: &Modifiers,
    states: &[(&Trigger, TriggerState)],
    fallback: Option<i64>,
    steps: &mut Vec<Step>,
) -> Option<i64> {
    if let Some(v) = fallback {
        return Some(v);
    }
    let vars: BTreeMap<String, Option<f64>> = states
        .iter()
        .filter(|(t, s)| !t.name.is_empty() && !s.error)
        .map(|(t, s)| (t.name.clone(), s.formula_value))
        .collect();
    let result = formula::eval(&m.formula, &vars).and_then(|v| match v {
        // Without `??` the formula is wrapped in float(...), which refuses nil.
        formula::Value::Nil if !m.text.contains("??") => {
            Err("float(nil): the formula returned nil".to_string())
        }
        formula::Value::Nil => match k.fallback {
            Some(f) => Ok(f64::from(f.replicas) * m.target),
            None => Err(
                "scalingModifiers formula evaluated to nil but no fallback is configured"
                    .to_string(),
            ),
        },
        formula::Value::Int(_) | formula::Value::Float(_) => Ok(v_number(v)),
        formula::Value::Bool(_) => Err("formula returned non-float result bool".to_string()),
    });
    match result {
        Ok(out) => {
            step(
                steps,
                "formula",
                format!("{COMPOSITE_METRIC} = {} = {}", m.text, num(out)),
            );
            Some(truncate_milli(out))
        }
        Err(e) => {
            step(
                steps,
                "formula",
                format!(
                    "{COMPOSITE_METRIC} = {}: error trying to run custom formula: {e}",
                    m.text
                ),
            );
            None
        }
    }
}

fn v_number(v: formula::Value) -> f64 {
    match v {
        formula::Value::Float(f) => f,
        #[allow(clippy::cast_precision_loss)]
        formula::Value::Int(n) => n as f64,
        _ => 0.0,
    }
}

// Port of RequestScale (scale_scaledobjects.go): paused, active (or forced), not active.
fn request_scale(k: &KedaInput, current: i32, min: i32, now: Timestamp, o: &mut KedaOutcome) {
    if let Some(p) = k.paused {
        o.paused = true;
        o.scale_to = p.replicas;
        let to = p.replicas.unwrap_or(current);
        step(
            &mut o.steps,
            "paused",
            format!(
                "paused by annotation: KEDA deleted the HPA and holds the target at {to}{}",
                if p.replicas.is_some() {
                    " (paused-replicas)"
                } else {
                    " (its current count)"
                }
            ),
        );
        o.summary = format!("KEDA is paused at {to} (the HPA is deleted)");
        return;
    }
    let activity = if o.active {
        "active: at least one trigger is active".to_string()
    } else if k.force_activation {
        "not active, but activation is forced by the force-activation annotation".to_string()
    } else if o.error {
        "not active: a trigger failed".to_string()
    } else {
        "not active: no trigger is above its activation threshold".to_string()
    };
    step(&mut o.steps, "activity", activity);
    if o.active || k.force_activation {
        scale_active(k, current, min, now, o);
    } else {
        scale_inactive(k, current, min, now, o);
    }
}

/// A `scale loop` step and the clause it gives the decision's summary.
fn scale_loop(o: &mut KedaOutcome, detail: impl Into<String>, summary: impl Into<String>) {
    step(&mut o.steps, "scale loop", detail);
    o.summary = summary.into();
}

/// `RequestScale` when active: from zero or idle KEDA sets the count; else the HPA decides.
fn scale_active(k: &KedaInput, current: i32, min: i32, now: Timestamp, o: &mut KedaOutcome) {
    if (k.idle_replica_count.is_some() && current < min) || current == 0 {
        scale_from_zero_or_idle(k, current, min, o);
    } else if o.error {
        scale_loop(
            o,
            "active, but some triggers failed (PartialTriggerError): the HPA decides",
            "KEDA leaves the count to the HPA",
        );
    } else {
        scale_loop(
            o,
            format!(
                "active at {current} replica(s): lastActiveTime is now {}; the HPA decides",
                now.to_rfc3339()
            ),
            "KEDA: active, the HPA decides",
        );
        o.last_active_now = true;
    }
}

// Port of scaleFromZeroOrIdle (scale_scaledobjects.go): max(minReplicaCount, 1), unless
// paused-scale-out.
fn scale_from_zero_or_idle(k: &KedaInput, current: i32, min: i32, o: &mut KedaOutcome) {
    if k.pause_scale_out {
        scale_loop(
            o,
            "active from zero or idle, but paused-scale-out keeps the count",
            "KEDA would activate but scale-out is paused",
        );
        return;
    }
    let to_min = if min > 0 { min } else { 1 };
    o.scale_to = Some(to_min);
    o.last_active_now = true;
    scale_loop(
        o,
        format!(
            "active at {current} replica(s): KEDA scales {current} → {to_min} \
             (max(minReplicaCount, 1)); the HPA takes over from {to_min}"
        ),
        format!("KEDA activates {current} → {to_min}"),
    );
    o.diagnostics.push(Diagnostic::new(
        "KedaActivation",
        Severity::Info,
        format!(
            "KEDA activated the workload: a trigger is above its activation threshold \
             at {current} replica(s), so KEDA set {to_min}; the HPA decides from there."
        ),
        "",
    ));
}

/// `RequestScale` when not active: a failing trigger, the way to zero or idle, up to
/// minReplicaCount, or nothing to do.
fn scale_inactive(k: &KedaInput, current: i32, min: i32, now: Timestamp, o: &mut KedaOutcome) {
    let idle_above = k.idle_replica_count.is_some_and(|idle| current > idle);
    if o.error && k.fallback.is_some_and(|f| f.replicas != 0) {
        scale_loop(
            o,
            "not active with a failing trigger and a fallback: KEDA leaves the count to the HPA",
            "KEDA leaves the count to the HPA (fallback configured)",
        );
    } else if o.error && k.fallback.is_none() {
        scale_loop(
            o,
            "not active with a failing trigger and no fallback (TriggerError): KEDA does nothing",
            "KEDA does nothing (a trigger fails)",
        );
    } else if idle_above || (current > 0 && min == 0) {
        scale_to_zero_or_idle(k, current, now, o);
    } else if k.idle_replica_count.is_none() && current < min {
        o.scale_to = Some(min);
        scale_loop(
            o,
            format!("not active and {current} < minReplicaCount: KEDA scales to {min}"),
            format!("KEDA scales {current} → {min} (minReplicaCount)"),
        );
    } else {
        scale_loop(
            o,
            format!("not active at {current} replica(s): nothing for KEDA to do"),
            if current == 0 {
                "KEDA keeps the workload at 0"
            } else {
                "KEDA: not active, the HPA decides"
            },
        );
        if current == 0 {
            o.diagnostics.push(Diagnostic::new(
                "KedaActivation",
                Severity::Info,
                "No trigger is above its activation threshold: KEDA keeps the workload at 0 \
                 replicas, and the HPA does not act at 0.",
                "Lower the trigger's activation threshold if it should wake at this value.",
            ));
        }
    }
}

// Port of scaleToZeroOrIdle (scale_scaledobjects.go): after the cooldown, to idleReplicaCount or
// minReplicaCount, unless paused-scale-in.
fn scale_to_zero_or_idle(k: &KedaInput, current: i32, now: Timestamp, o: &mut KedaOutcome) {
    if k.pause_scale_in {
        scale_loop(
            o,
            "not active, but paused-scale-in keeps the count",
            "KEDA would deactivate but scale-in is paused",
        );
        return;
    }
    let (to, what) = match (k.idle_replica_count, k.min_replica_count) {
        (Some(idle), _) => (idle, "idleReplicaCount"),
        (None, m) => (m.unwrap_or(0), "minReplicaCount"),
    };
    // Strict, as KEDA's `Add(cooldown).Before(time.Now())`.
    let (passed, since) = match k.last_active {
        Some(t) => (
            t.add(k.cooldown).before(now),
            format!(
                "last active {} ago, cooldownPeriod {}s",
                now.since(t),
                k.cooldown.millis() / 1000
            ),
        ),
        None => match k.created {
            Some(c) => (
                c.add(k.initial_cooldown).before(now),
                format!(
                    "never active; created {} ago, initialCooldownPeriod {}s",
                    now.since(c),
                    k.initial_cooldown.millis() / 1000
                ),
            ),
            None => (true, "last active long ago (assumed)".to_string()),
        },
    };
    if passed {
        o.scale_to = Some(to);
        scale_loop(
            o,
            format!(
                "not active, {since}: the cooldown has passed; KEDA scales {current} → {to} ({what})"
            ),
            format!("KEDA deactivates {current} → {to} ({what})"),
        );
        o.diagnostics.push(Diagnostic::new(
            "KedaIdle",
            Severity::Info,
            format!(
                "No trigger is active and the cooldown has passed ({since}): KEDA set the \
                 workload to {to} ({what}); the HPA does not act at 0 replicas."
            ),
            if k.last_active_assumed {
                "Pass --last-active AGE if a trigger was active recently.".to_string()
            } else {
                String::new()
            },
        ));
    } else {
        scale_loop(
            o,
            format!(
                "not active, {since}: still cooling down (ScalerCooldown); KEDA waits, the HPA \
                 decides meanwhile"
            ),
            "KEDA is cooling down, the HPA decides",
        );
        let left = match k.last_active {
            Some(t) => t.add(k.cooldown).since(now),
            None => k.created.map_or(crate::time::Duration::ZERO, |c| {
                c.add(k.initial_cooldown).since(now)
            }),
        };
        o.diagnostics.push(Diagnostic::new(
            "KedaCooldown",
            Severity::Info,
            format!(
                "No trigger is active, but KEDA waits for the cooldown ({since}): it scales to \
                 {to} ({what}) at the first poll more than {left} from now; meanwhile the HPA \
                 keeps at least minReplicas."
            ),
            "Lower spec.cooldownPeriod to scale in sooner.",
        ));
    }
}

/// Pods the fallback divides by for a Value target: Running and Ready (getReadyReplicasCount);
/// without pods, the current count.
pub fn ready_replicas(s: &Scenario) -> i32 {
    if s.pods.is_empty() {
        return s.current_replicas;
    }
    let n = s
        .pods
        .iter()
        .filter(|p| {
            p.phase == PodPhase::Running
                && p.ready.is_some_and(|r| r.status == ConditionStatus::True)
        })
        .count();
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// The scenario the HPA's sync sees after KEDA's poll: KEDA's served values, and the count KEDA
/// set.
pub fn hpa_scenario(s: &Scenario, o: &KedaOutcome) -> Scenario {
    let mut hpa = s.clone();
    hpa.keda = None;
    // KEDA's metrics server answers by metric name: each External entry of that name reads it.
    for (i, spec) in s.hpa.metrics.iter().enumerate() {
        if let MetricSpec::External { metric, .. } = spec
            && let Some(values) = o.external.get(&metric.name)
        {
            hpa.metrics.external.insert(i, values.clone());
        }
    }
    if let Some(n) = o.scale_to {
        hpa.current_replicas = n;
        hpa.status_replicas = n;
    }
    hpa
}

/// Puts KEDA's steps before the HPA's `metric` steps and makes the decision the final count
/// after both layers.
pub fn splice(report: &mut Report, o: &KedaOutcome, original_current: i32) {
    let at = report
        .steps
        .iter()
        .position(|s| s.phase != "inputs")
        .unwrap_or(report.steps.len());
    report.steps.splice(at..at, o.steps.iter().cloned());
    let hpa_current = report.current_replicas;
    report.current_replicas = original_current;
    if let Some(n) = o.scale_to
        && let Some(row) = report
            .steps
            .iter_mut()
            .find(|s| s.phase == "inputs" && s.title == "current replicas")
    {
        let source = row
            .detail
            .split_once(", ")
            .map_or(String::new(), |(_, rest)| format!(", {rest}"));
        row.detail = format!(
            "{original_current}{source}; KEDA sets {n} and the HPA's sync starts from there"
        );
    }
    if o.paused {
        report.desired_replicas = o.scale_to.unwrap_or(original_current);
    }
    let desired = report.desired_replicas;
    report.decision.change = crate::calc::explain::change(original_current, desired).to_string();
    report.decision.summary = if o.paused {
        format!("{}; {original_current} → {desired}", o.summary)
    } else if o.scale_to.is_some() {
        format!(
            "{}; then the HPA: {hpa_current} → {desired}, {}",
            o.summary, report.decision.summary
        )
    } else {
        format!("{}: {}", o.summary, report.decision.summary)
    };
    // At 0 replicas the count is KEDA's to change (activation): the HPA's ScalingDisabled is
    // expected there, and its advice (scale up by hand) would be wrong.
    report.diagnostics.retain(|d| d.code != "ScalingDisabled");
    report.diagnostics.extend(o.diagnostics.iter().cloned());
    report
        .diagnostics
        .sort_by_key(|d| std::cmp::Reverse(d.severity));
}

pub mod advice;
pub mod current;
pub mod last_active;
pub mod status;
#[cfg(test)]
mod tests;
