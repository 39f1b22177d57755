//! The ScaledObject's `status` as evidence of KEDA's own state. KEDA writes it at every poll:
//! `Active` (`RequestScale`: `ScalerActive`, `ScalerNotActive`, `ScalerCooldown`), `Fallback`
//! (`updateStatus` in `fallback.go`: `FallbackExists` while some `status.health` entry is
//! `Failing` more than `failureThreshold` times), `Paused` (`handlePause`), the health of each
//! metric, `pausedReplicaCount` and `lastActiveTime`.
//!
//! A trigger whose value the inputs do not give is an unknown: its candidate values (a failure,
//! nothing, its activation threshold) each run through KEDA's poll (`decide`) and the HPA's
//! sync, and only those that reproduce the status are kept, as `calc::infer` does for the HPA.
//! A status that disagrees with values the inputs do give is said, never overridden.

use crate::calc::infer::survivors;
use crate::report::{Diagnostic, Outcome, Report, Severity};
use crate::scenario::Scenario;
use crate::scenario::keda::{KedaInput, KedaStatus, Trigger, TriggerValue};
use crate::time::Timestamp;

use super::{KedaOutcome, decide, fallback_value};

/// The most value combinations tried: past it, each later unknown keeps its first candidate.
const MOST_COMBINATIONS: usize = 64;

/// The values an unknown trigger can have served at KEDA's last poll, the status's own first:
/// `Failed` where `status.health` says `Failing` (or `Ready` says a trigger errs), else nothing
/// served (0) and its activation threshold, the two ends of "not above it".
fn candidates(t: &Trigger, status: &KedaStatus) -> Vec<TriggerValue> {
    let health = (t.metric_name.as_ref()).and_then(|m| status.health.get(m));
    let failing = health.is_some_and(|h| h.failing && h.failures > 0);
    let trigger_error = status
        .condition("Ready")
        .is_some_and(|c| matches!(c.reason.as_str(), "TriggerError" | "PartialTriggerError"));
    let mut out = Vec::new();
    if failing || (health.is_none() && trigger_error) || hpa_failed(status).is_some() {
        out.push(TriggerValue::Failed);
    }
    if !failing {
        out.push(TriggerValue::Value(0.0));
        if t.activation > 0.0 {
            out.push(TriggerValue::Value(t.activation));
        }
    }
    out
}

/// The reason of `HPAActive=False` when it says the HPA could not get its External metrics
/// (`FailedGetExternalMetric`): at the HPA's last sync some trigger served it no value.
// Port of getHPAHealth (scale_scaledobjects.go): HPAActive mirrors the HPA's ScalingActive,
// False with the HPA's own reason; and the HPA sets ScalingActive False only when every metric
// failed, or some did and the rest would scale down (computeReplicasForMetrics, horizontal.go):
// either way a trigger served it no value.
pub fn hpa_failed(status: &KedaStatus) -> Option<&str> {
    status
        .condition("HPAActive")
        .filter(|c| c.status == "False" && c.reason == "FailedGetExternalMetric")
        .map(|c| c.reason.as_str())
}

/// Whether the HPA's sync, run forward, writes the ScalingActive that `HPAActive=False` mirrors:
/// False with the same reason.
fn hpa_reproduced(status: &KedaStatus, report: &Report) -> bool {
    let Some(reason) = hpa_failed(status) else {
        return true;
    };
    (report.conditions.iter())
        .any(|c| c.condition_type == "ScalingActive" && c.status == "False" && c.reason == reason)
}

/// Every assignment of candidate values to the unknown triggers, the status's first, bounded by
/// `MOST_COMBINATIONS`.
fn assignments(k: &KedaInput, status: &KedaStatus) -> Vec<KedaInput> {
    let mut out = vec![k.clone()];
    for (i, t) in k.triggers.iter().enumerate() {
        if !matches!(t.value, TriggerValue::Unknown) {
            continue;
        }
        let values = candidates(t, status);
        let keep = if out.len().saturating_mul(values.len()) > MOST_COMBINATIONS {
            1
        } else {
            values.len()
        };
        out = out
            .into_iter()
            .flat_map(|base| {
                values.iter().take(keep).map(move |v| {
                    let mut next = base.clone();
                    if let Some(slot) = next.triggers.get_mut(i) {
                        slot.value = *v;
                    }
                    next
                })
            })
            .collect();
    }
    out
}

/// Whether KEDA's poll with these values writes the status's `Active` and `Fallback`.
// Port of the conditions RequestScale (scale_scaledobjects.go) and updateStatus (fallback.go)
// write: Active is the activity (or forced activation), untouched while paused; Fallback is
// True while a trigger serves its fallback.
pub fn reproduces(k: &KedaInput, status: &KedaStatus, o: &KedaOutcome) -> bool {
    if !o.paused
        && let Some(active) = status.is("Active")
        && active != (o.active || k.force_activation)
    {
        return false;
    }
    if k.fallback.is_some()
        && let Some(fallback) = status.is("Fallback")
        && fallback != o.fallback_active
    {
        return false;
    }
    true
}

/// One forward run of KEDA's poll and the HPA's sync on a scenario.
pub type Run<'a> = &'a dyn Fn(&Scenario) -> (Report, KedaOutcome);

/// The answer with the unknown trigger values inferred from the status: the first assignment
/// that reproduces it is the answer, and the other counts those that also do give are its other
/// outcomes. With none that does, the first candidate is used and the conflict said.
pub fn evaluate_inferred(s: &Scenario, run: Run<'_>) -> Option<(Report, KedaOutcome, KedaInput)> {
    let k = s.keda.as_ref()?;
    let status = k.status.clone().unwrap_or_default();
    let with = |input: &KedaInput| Scenario {
        keda: Some(input.clone()),
        ..s.clone()
    };
    let all = assignments(k, &status);
    let ready = super::ready_replicas(s);
    let kept = survivors(all.iter(), |input| {
        reproduces(
            input,
            &status,
            &decide(input, s.current_replicas, ready, s.now),
        )
    });
    // HPAActive=False: the HPA's own sync, run forward on each candidate, must fail the same way.
    let kept: Vec<&KedaInput> = if hpa_failed(&status).is_some() {
        survivors(kept, |input| hpa_reproduced(&status, &run(&with(input)).0))
    } else {
        kept
    };
    let reproduced = !kept.is_empty();
    let chosen: Vec<&KedaInput> = if reproduced {
        kept
    } else {
        all.iter().take(1).collect()
    };
    let (first, rest) = chosen.split_first()?;
    let (mut report, outcome) = run(&with(first));
    report.assumptions.push(assumed(k, first, reproduced));
    for other in rest {
        let (r, _) = run(&with(other));
        let seen = report.desired_replicas == r.desired_replicas
            || (report.other_outcomes.iter()).any(|o| o.replicas == r.desired_replicas);
        if seen {
            continue;
        }
        report.other_outcomes.push(Outcome {
            replicas: r.desired_replicas,
            when: format!("if {}", values_words(k, other)),
            settle: "pass --metric-value NAME=VALUE for each trigger".to_string(),
        });
        report.decision.summary = format!(
            "{}; or {} if {}",
            report.decision.summary,
            r.desired_replicas,
            values_words(k, other)
        );
    }
    if !reproduced {
        report.diagnostics.insert(
            0,
            conflict(format!(
                "no value of the triggers without one ({}) reproduces the status's Active={} \
                 and Fallback={}: evaluated with {}",
                unknown_names(k),
                status
                    .condition("Active")
                    .map_or("?", |c| c.status.as_str()),
                status
                    .condition("Fallback")
                    .map_or("?", |c| c.status.as_str()),
                values_words(k, first)
            )),
        );
    }
    Some((report, outcome, (*first).clone()))
}

/// "s0 (kafka)": the triggers without a value.
fn unknown_names(k: &KedaInput) -> String {
    (k.triggers.iter())
        .filter(|t| matches!(t.value, TriggerValue::Unknown))
        .map(label)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `s0 (kafka)`, or the trigger's name.
pub fn label(t: &Trigger) -> String {
    if t.name.is_empty() {
        format!("s{} ({})", t.index, t.scaler)
    } else {
        format!("'{}' (s{}, {})", t.name, t.index, t.scaler)
    }
}

/// "s0 (kafka) fails, s1 (prometheus) serves 0": the values `input` gives the unknown triggers.
fn values_words(k: &KedaInput, input: &KedaInput) -> String {
    (k.triggers.iter().zip(&input.triggers))
        .filter(|(t, _)| matches!(t.value, TriggerValue::Unknown))
        .map(|(t, v)| match v.value {
            TriggerValue::Failed => format!("{} fails", label(t)),
            TriggerValue::Value(x) if x > 0.0 => {
                format!(
                    "{} serves {} (its activation threshold)",
                    label(t),
                    number(x)
                )
            }
            _ => format!("{} serves 0", label(t)),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

/// The assumption an inference rests on.
fn assumed(k: &KedaInput, chosen: &KedaInput, reproduced: bool) -> String {
    let status = k.status.clone().unwrap_or_default();
    let said: Vec<String> = ["Active", "Fallback", "Ready", "HPAActive"]
        .iter()
        .filter_map(|t| status.condition(t))
        .map(|c| format!("{}={} {}", c.condition_type, c.status, c.reason))
        .collect();
    format!(
        "KEDA: no value given for {}; the ScaledObject's status ({}{}) is the evidence: {} {} \
         it, found by running KEDA's poll forward on each candidate value.",
        unknown_names(k),
        said.join(", "),
        health_words(k, &status),
        values_words(k, chosen),
        if reproduced {
            "reproduces"
        } else {
            "is the nearest to"
        }
    )
}

fn health_words(k: &KedaInput, status: &KedaStatus) -> String {
    let words: Vec<String> = (k.triggers.iter())
        .filter_map(|t| {
            let m = t.metric_name.as_ref()?;
            let h = status.health.get(m)?;
            Some(format!(
                "; status.health {m}: {} failure(s), {}",
                h.failures,
                if h.failing { "Failing" } else { "Happy" }
            ))
        })
        .collect();
    words.concat()
}

fn conflict(message: String) -> Diagnostic {
    Diagnostic::new(
        "StatusKedaConflict",
        Severity::Warning,
        format!("KEDA's status disagrees with the inputs: {message}"),
        "the status is from KEDA's last poll: if the inputs are newer, trust them; otherwise pass \
         values captured at the same time (kubectl get scaledobject -o yaml with the metrics)",
    )
}

/// What the status says, checked against this poll: the fact it explains first in WHY
/// (`StatusKedaPaused`, `StatusKedaFallback`, `StatusKedaInactive`), then every disagreement
/// (`StatusKedaConflict`).
pub fn evidence(k: &KedaInput, inferred: bool, s: &Scenario, o: &KedaOutcome, report: &mut Report) {
    let Some(status) = &k.status else {
        return;
    };
    let mut said = Vec::new();
    if let Some(d) = explained(k, status, s, o).or_else(|| hpa_failing(k, status, report)) {
        said.push(d);
    }
    said.extend(
        conflicts(k, inferred, status, s.now, o)
            .into_iter()
            .map(conflict),
    );
    if let Some(reason) =
        hpa_failed(status).filter(|_| !inferred && !hpa_reproduced(status, report))
    {
        said.push(conflict(format!(
            "it says HPAActive=False ({reason}): at the HPA's last sync a trigger served it no \
             value; with the values given the HPA's sync gets its metrics: the answer follows the \
             values given"
        )));
    }
    for (i, d) in said.into_iter().enumerate() {
        report.diagnostics.insert(i, d);
    }
}

/// The status's own account of this poll, when it agrees with it: paused, falling back, or not
/// active.
fn explained(
    k: &KedaInput,
    status: &KedaStatus,
    s: &Scenario,
    o: &KedaOutcome,
) -> Option<Diagnostic> {
    if o.paused && status.is("Paused") == Some(true) {
        let to = o.scale_to.unwrap_or(s.current_replicas);
        return Some(Diagnostic::new(
            "StatusKedaPaused",
            Severity::Warning,
            format!(
                "KEDA's status says Paused=True ({}){}: KEDA deleted the HPA and holds the \
                 target at {to}{}; nothing scales it while the annotation stays",
                status.condition("Paused").map_or("", |c| c.reason.as_str()),
                status
                    .paused_replica_count
                    .map_or(String::new(), |n| format!(
                        ", status.pausedReplicaCount {n}"
                    )),
                if k.paused.and_then(|p| p.replicas).is_some() {
                    " (autoscaling.keda.sh/paused-replicas)"
                } else {
                    " (its count when paused)"
                }
            ),
            "remove the autoscaling.keda.sh/paused (or paused-replicas) annotation to hand the \
             count back to KEDA and its HPA",
        ));
    }
    if o.fallback_active && status.is("Fallback") != Some(false) {
        return fallback_explained(k, status, s);
    }
    let active = status.condition("Active")?;
    if o.paused || active.status != "False" || o.active || k.force_activation {
        return None;
    }
    // Reproduced, and KEDA leaves the count to the HPA: nothing of KEDA's to name first.
    let cooling = o.diagnostics.iter().any(|d| d.code == "KedaCooldown");
    if o.scale_to.is_none() && !cooling && s.current_replicas > 0 {
        return None;
    }
    let ended = cooldown_ended(k, s.now)
        .filter(|_| active.reason == "ScalerCooldown")
        .map_or(String::new(), |end| {
            format!(
                "; the cooldown it was waiting for ended at {} (lastActiveTime + \
                 cooldownPeriod {}s)",
                end.to_rfc3339(),
                k.cooldown.millis() / 1000
            )
        });
    Some(Diagnostic::new(
        "StatusKedaInactive",
        Severity::Warning,
        format!(
            "KEDA's status says Active=False ({}): no trigger is above its activation \
             threshold{ended}. {}: {}",
            active.reason,
            o.summary,
            if cooling {
                "until then the HPA decides from what the triggers serve"
            } else {
                "KEDA itself sets the count, and the HPA does not act at 0 replicas"
            }
        ),
        "raise the traffic or lower the trigger's activation threshold if it should be active; \
         lower spec.cooldownPeriod to scale in sooner",
    ))
}

/// `StatusKedaHpaFailing`: `HPAActive=False` (`FailedGetExternalMetric`), and the HPA's sync run
/// forward fails the same way: no trigger serves it a value, and it keeps the count.
fn hpa_failing(k: &KedaInput, status: &KedaStatus, report: &Report) -> Option<Diagnostic> {
    let reason = hpa_failed(status).filter(|_| hpa_reproduced(status, report))?;
    let failed: Vec<String> = (k.triggers.iter())
        .filter(|t| matches!(t.value, TriggerValue::Failed))
        .map(label)
        .collect();
    Some(Diagnostic::new(
        "StatusKedaHpaFailing",
        Severity::Warning,
        format!(
            "KEDA's status says HPAActive=False ({reason}): at the HPA's last sync KEDA's metrics \
             server served no value{}, so the HPA's ScalingActive is False and it keeps {} \
             replica(s) until a trigger answers",
            if failed.is_empty() {
                String::new()
            } else {
                format!(" ({} fails)", failed.join(", "))
            },
            report.desired_replicas
        ),
        "fix the scaler's source or credentials (kubectl describe scaledobject shows the error); \
         a spec.fallback would serve fallback.replicas after failureThreshold failures",
    ))
}

/// When the cooldown after the last activity ended, if it has.
fn cooldown_ended(k: &KedaInput, now: Timestamp) -> Option<Timestamp> {
    let end = k.last_active?.add(k.cooldown);
    end.before(now).then_some(end)
}

/// `StatusKedaFallback`: which metric fell back, and what `doFallback` serves.
fn fallback_explained(k: &KedaInput, status: &KedaStatus, s: &Scenario) -> Option<Diagnostic> {
    let f = k.fallback?;
    let t = (k.triggers.iter()).find(|t| matches!(t.value, TriggerValue::Failed))?;
    let metric = t.metric_name.clone().unwrap_or_default();
    let failures = status
        .health
        .get(&metric)
        .map_or(t.failures, |h| h.failures);
    let (value_type, target) = match &k.modifiers {
        Some(m) => (m.value_type, m.target),
        #[allow(clippy::cast_precision_loss)]
        None => t
            .target
            .map_or((false, 0.0), |tg| (tg.value_type, tg.milli as f64 / 1000.0)),
    };
    let ready = super::ready_replicas(s);
    let (milli, replicas) = fallback_value(
        f.behavior,
        f.replicas,
        s.current_replicas,
        ready,
        value_type,
        target,
    )?;
    #[allow(clippy::cast_precision_loss)]
    let served = milli as f64 / 1000.0;
    Some(Diagnostic::new(
        "StatusKedaFallback",
        Severity::Warning,
        format!(
            "KEDA's status says Fallback={} ({}): {} has failed {failures} time(s) in a row \
             (status.health), more than fallback.failureThreshold {}, so KEDA serves the \
             fallback instead of the scaler's value: {} gives {} replica(s), served as target \
             {} × {} = {} (doFallback){}",
            status
                .condition("Fallback")
                .map_or("True", |c| c.status.as_str()),
            status
                .condition("Fallback")
                .map_or("FallbackExists", |c| c.reason.as_str()),
            label(t),
            f.failure_threshold,
            f.behavior.as_str(),
            number(replicas),
            number(target),
            number(replicas),
            number(served),
            if value_type {
                format!(" (a Value target: the replicas ÷ {ready} ready pod(s))")
            } else {
                ", which the HPA's AverageValue target turns back into that count".to_string()
            }
        ),
        "fix the scaler's source or credentials (kubectl describe scaledobject shows the \
         error): the count follows the fallback until it answers again",
    ))
}

/// Where the status says KEDA holds the target, for a run that starts from it (`simulate`
/// without `--replicas`): the count, and why.
pub fn start(k: &KedaInput) -> Option<(i32, String)> {
    let status = k.status.as_ref();
    // The HPA KEDA creates has minReplicas max(minReplicaCount, 1) (hpa.go).
    let hpa_min = k.min_replica_count.unwrap_or(0).max(1);
    // Port of scaleTargetToPausedCount (scaledobject_controller.go): KEDA scales the target to
    // the paused-replicas count; paused: true leaves it where it was.
    if let Some(n) = k.paused.and_then(|p| p.replicas) {
        let written = status
            .and_then(|s| s.paused_replica_count)
            .map_or(String::new(), |m| {
                format!(", status.pausedReplicaCount {m}")
            });
        return Some((
            n,
            format!(
                "KEDA: paused (autoscaling.keda.sh/paused-replicas {n}{written}): the run starts \
                 at {n}, and KEDA holds the target there"
            ),
        ));
    }
    let status = status?;
    // Port of doFallback (fallback.go): the count the fallback's value makes the HPA aim for;
    // the current count, which the status does not give, taken as the HPA's minimum.
    if let Some(f) = k.fallback.filter(|_| status.is("Fallback") == Some(true))
        && let Some((_, replicas)) =
            fallback_value(f.behavior, f.replicas, hpa_min, hpa_min, false, 1.0)
    {
        #[allow(clippy::cast_possible_truncation)]
        let n = (replicas as i32).clamp(hpa_min, k.max_replica_count.max(hpa_min));
        return Some((
            n,
            format!(
                "KEDA: the status says Fallback=True: the run starts at {n}, where the fallback \
                 ({}, fallback.replicas {}) holds the HPA while the failing trigger's cells are \
                 `failed`",
                f.behavior.as_str(),
                f.replicas
            ),
        ));
    }
    // Port of scaleToZeroOrIdle (scale_scaledobjects.go): ScalerCooldown is written only above
    // idleReplicaCount (or above 0 with minReplicaCount 0), while the cooldown runs.
    let cooling = status
        .condition("Active")
        .is_some_and(|c| c.status == "False" && c.reason == "ScalerCooldown");
    cooling.then(|| {
        (
            hpa_min,
            format!(
                "KEDA: the status says Active=False (ScalerCooldown): the target is still up, so \
                 the run starts at {hpa_min} (the HPA's minimum) and KEDA scales it in at its \
                 first poll after lastActiveTime + cooldownPeriod"
            ),
        )
    })
}

/// Each way the status disagrees with the values and settings the inputs give.
fn conflicts(
    k: &KedaInput,
    inferred: bool,
    status: &KedaStatus,
    now: Timestamp,
    o: &KedaOutcome,
) -> Vec<String> {
    let mut out = Vec::new();
    if !inferred && !o.paused {
        let computed = o.active || k.force_activation;
        if let Some(c) = status
            .condition("Active")
            .filter(|c| match c.status.as_str() {
                "True" => !computed,
                "False" => computed,
                _ => false,
            })
        {
            out.push(format!(
                "it says Active={} ({}), but with the values given KEDA's poll is {}: the \
                 answer follows the values given",
                c.status,
                c.reason,
                if computed { "active" } else { "not active" }
            ));
        }
    }
    if k.fallback.is_some()
        && let Some(c) = status
            .condition("Fallback")
            .filter(|c| (c.status == "True") != o.fallback_active && c.status != "Unknown")
    {
        out.push(format!(
            "it says Fallback={} ({}), but with the values given {}: the answer follows the \
             values given",
            c.status,
            c.reason,
            if o.fallback_active {
                "a trigger has failed more than fallback.failureThreshold times and falls back"
            } else {
                "no trigger has failed more than fallback.failureThreshold times"
            }
        ));
    }
    for t in &k.triggers {
        let Some(metric) = &t.metric_name else {
            continue;
        };
        if let (Some(h), TriggerValue::Value(_)) = (status.health.get(metric), t.value)
            && h.failing
        {
            out.push(format!(
                "status.health says {metric} is Failing ({} failure(s)), but a value is given for \
                 {}: when the scaler answers KEDA sets it Happy with 0 failures",
                h.failures,
                label(t)
            ));
        }
    }
    paused_conflicts(k, status, &mut out);
    let mut written = status.external_metric_names.clone();
    // The triggers' External metric names, before a formula replaces them (hpa.go).
    let mut built: Vec<String> = (k.triggers.iter())
        .filter_map(|t| t.metric_name.clone())
        .collect();
    written.sort();
    built.sort();
    if !written.is_empty() && written != built {
        out.push(format!(
            "status.externalMetricNames is [{}], but the spec's triggers give [{}]: the spec \
             changed since KEDA's last reconcile, and its HPA follows the spec",
            written.join(", "),
            built.join(", ")
        ));
    }
    if let Some(t) = k.last_active.filter(|t| t.after(now)) {
        out.push(format!(
            "status.lastActiveTime {} is after now ({}), and the capture cannot predate it: \
             pass --now with the capture's time",
            t.to_rfc3339(),
            now.to_rfc3339()
        ));
    }
    out
}

/// The `Paused` condition and `pausedReplicaCount` against the pause annotations.
// Port of reconcileScaledObject and syncPausedReplicaCountStatus (scaledobject_controller.go):
// the annotations decide, and KEDA's next reconcile brings the status in line.
fn paused_conflicts(k: &KedaInput, status: &KedaStatus, out: &mut Vec<String>) {
    let annotated = k.paused.is_some() || k.pause_scale_in || k.pause_scale_out;
    match status.is("Paused") {
        Some(true) if !annotated => out.push(
            "it says Paused=True, but the ScaledObject has no pause annotation: KEDA unpauses at \
             its next reconcile (the annotation was removed) and recreates the HPA; the answer \
             follows the annotations"
                .to_string(),
        ),
        Some(false) if k.paused.is_some() => out.push(
            "it says Paused=False, but the ScaledObject has the pause annotation: KEDA pauses at \
             its next reconcile; the answer follows the annotation"
                .to_string(),
        ),
        _ => {}
    }
    let annotation = k.paused.and_then(|p| p.replicas);
    if let Some(n) = status.paused_replica_count
        && k.paused.is_some()
        && annotation != Some(n)
    {
        out.push(format!(
            "status.pausedReplicaCount is {n}, but the paused-replicas annotation says {}: KEDA \
             sets the annotation's count at its next reconcile; the answer follows the annotation",
            annotation.map_or("nothing (paused: true keeps the count)".to_string(), |a| {
                a.to_string()
            })
        ));
    }
}

#[cfg(test)]
#[path = "status_tests.rs"]
pub(crate) mod tests;
