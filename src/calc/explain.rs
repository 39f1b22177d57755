//! Turns one sync's intermediate values into a `Report`: metric summaries, the step-by-step trace
//! in the controller's order, the decision in words, and the assumptions behind it.

use crate::calc::metrics::{Computed, MetricOutcome};
use crate::calc::pods::Groups;
use crate::calc::reconcile::{Branch, Sync};
use crate::calc::replicas::Tolerances;
use crate::quantity::{Format, build_quantity, format_milli};
use crate::report::{
    Decision, HoldBand, MetricReport, PodClass, Recount, Report, SCHEMA_VERSION, Step,
    TargetReport, ToleranceBand,
};
use crate::scenario::{MetricSpec, Scenario, Source, TargetType};

fn decimal(milli: i64) -> String {
    format_milli(milli, Format::DecimalSI)
}

fn step(steps: &mut Vec<Step>, phase: &str, title: impl Into<String>, detail: impl Into<String>) {
    steps.push(Step {
        phase: phase.to_string(),
        title: title.into(),
        detail: detail.into(),
    });
}

fn band(t: &Tolerances) -> ToleranceBand {
    ToleranceBand {
        lower: 1.0 - t.scale_down,
        upper: 1.0 + t.scale_up,
    }
}

fn target_report(spec: &MetricSpec) -> TargetReport {
    let t = spec.target();
    let resource = match spec {
        MetricSpec::Resource { resource, .. } => resource.as_str(),
        _ => "",
    };
    TargetReport {
        target_type: match t.target_type {
            TargetType::Utilization => "Utilization",
            TargetType::AverageValue => "AverageValue",
            TargetType::Value => "Value",
        }
        .to_string(),
        average_utilization: t.average_utilization,
        average_value: t.average_value_milli.map(|v| build_quantity(resource, v)),
        value: t.value_milli.map(decimal),
    }
}

fn target_text(spec: &MetricSpec) -> String {
    let t = target_report(spec);
    match (t.average_utilization, t.average_value, t.value) {
        (Some(u), _, _) => format!("{u}%"),
        (None, Some(v), _) => format!("{v} average per pod"),
        (None, None, Some(v)) => format!("{v} total"),
        _ => "none".into(),
    }
}

fn groups_text(g: &Groups<'_>) -> String {
    format!(
        "{} ready, {} unready, {} missing, {} ignored",
        g.ready_pod_count,
        g.unready.len(),
        g.missing.len(),
        g.ignored.len()
    )
}

fn pod_classes(g: &Groups<'_>) -> Vec<PodClass> {
    g.classes
        .iter()
        .map(|(name, class, why)| PodClass {
            name: (*name).to_string(),
            class: class.as_str().to_string(),
            reason: why.describe().to_string(),
        })
        .collect()
}

/// The inclusive integer range of current values that keeps the count: values `x` with
/// `tolerances.is_within(x / target)`, found with the controller's own float test.
fn hold_range(t: &Tolerances, target: f64) -> Option<(i64, i64)> {
    if !(target.is_finite() && target > 0.0) {
        return None;
    }
    let within = |x: i64| {
        #[allow(clippy::cast_precision_loss)]
        let xf = x as f64;
        t.is_within(xf / target)
    };
    let guess = |f: f64| {
        #[allow(clippy::cast_possible_truncation)]
        let g = (f * target).round() as i64;
        g
    };
    let mut lo = guess(1.0 - t.scale_down).max(0);
    let mut hi = guess(1.0 + t.scale_up);
    for _ in 0..4 {
        if lo > 0 && within(lo - 1) {
            lo -= 1;
        } else if !within(lo) {
            lo += 1;
        }
        if within(hi + 1) {
            hi += 1;
        } else if !within(hi) {
            hi -= 1;
        }
    }
    (lo <= hi && within(lo) && within(hi)).then_some((lo, hi))
}

fn hold_band(spec: &MetricSpec, t: &Tolerances) -> Option<HoldBand> {
    let target = spec.target();
    let resource = match spec {
        MetricSpec::Resource { resource, .. } => resource.as_str(),
        _ => "",
    };
    if let Some(u) = target
        .average_utilization
        .filter(|_| target.average_value_milli.is_none())
    {
        let (lo, hi) = hold_range(t, f64::from(u))?;
        return Some(HoldBand {
            unit: "percent".into(),
            low: format!("{lo}%"),
            high: format!("{hi}%"),
        });
    }
    let milli = target.average_value_milli.or(target.value_milli)?;
    #[allow(clippy::cast_precision_loss)]
    let (lo, hi) = hold_range(t, milli as f64)?;
    Some(HoldBand {
        unit: "quantity".into(),
        low: build_quantity(resource, lo),
        high: build_quantity(resource, hi),
    })
}

fn metric_report(
    spec: &MetricSpec,
    outcome: &MetricOutcome<'_>,
    tolerances: &Tolerances,
    single: bool,
) -> MetricReport {
    let (resource, container) = match spec {
        MetricSpec::Resource {
            resource,
            container,
            ..
        } => (resource.as_str(), container.clone()),
        _ => ("", None),
    };
    let mut r = MetricReport {
        metric_type: spec.type_name().to_string(),
        name: spec.metric_name().to_string(),
        description: outcome.name.clone(),
        container,
        target: target_report(spec),
        current_utilization: None,
        current_average_value: None,
        current_value: None,
        ratio: None,
        tolerance: band(tolerances),
        ready_pods: 0,
        unready_pods: 0,
        missing_pods: 0,
        ignored_pods: 0,
        pods: Vec::new(),
        usage_total_milli: None,
        request_total_milli: None,
        recount: None,
        proposed_replicas: None,
        branch: None,
        error: None,
        error_reason: None,
        hold_band: None,
    };
    let set_groups = |r: &mut MetricReport, g: &Groups<'_>| {
        r.ready_pods = g.ready_pod_count;
        r.unready_pods = g.unready.len();
        r.missing_pods = g.missing.len();
        r.ignored_pods = g.ignored.len();
        r.pods = pod_classes(g);
    };
    match &outcome.result {
        Ok(Computed::PodBased(p)) => {
            set_groups(&mut r, &p.groups);
            r.current_utilization = p.utilization;
            r.current_average_value = Some(build_quantity(resource, p.raw_average));
            r.ratio = Some(p.usage_ratio);
            r.usage_total_milli = Some(p.usage_total);
            r.request_total_milli = p.request_total;
            r.recount = p.recount.as_ref().map(|t| Recount {
                missing_pods_value_milli: t.missing_value,
                unready_pods_at_zero: t.unready_at_zero,
                metrics_count: t.metrics_count,
                new_ratio: t.new_ratio,
                new_utilization: t.new_utilization,
            });
            r.proposed_replicas = Some(p.replicas);
            r.branch = Some(p.branch.to_string());
        }
        Ok(Computed::Value(v)) => {
            match spec.target().target_type {
                TargetType::AverageValue => r.current_average_value = Some(decimal(v.usage)),
                _ => r.current_value = Some(decimal(v.usage)),
            }
            r.ratio = Some(v.usage_ratio);
            r.proposed_replicas = Some(v.replicas);
            r.branch = Some(v.branch.to_string());
        }
        Err(f) => {
            if let Some(g) = &f.groups {
                set_groups(&mut r, g);
            }
            r.error = Some(f.error.clone());
            r.error_reason = Some(f.reason.to_string());
        }
    }
    if single && r.error.is_none() {
        r.hold_band = hold_band(spec, tolerances);
    }
    r
}

fn ratio_verdict(t: &Tolerances, ratio: f64) -> String {
    let b = band(t);
    if t.is_within(ratio) {
        format!(
            "ratio {ratio:.3} is inside the tolerance band {:.2}–{:.2}: no change from this metric",
            b.lower, b.upper
        )
    } else if ratio > 1.0 {
        format!("ratio {ratio:.3} is above {:.2}: scale up", b.upper)
    } else {
        format!("ratio {ratio:.3} is below {:.2}: scale down", b.lower)
    }
}

fn metric_steps(
    steps: &mut Vec<Step>,
    spec: &MetricSpec,
    m: &MetricReport,
    outcome: &MetricOutcome<'_>,
    t: &Tolerances,
) {
    let title = format!("{} {}", spec.type_name(), spec.metric_name());
    step(
        steps,
        "metric",
        title,
        format!("target {} ({})", target_text(spec), outcome.name),
    );
    let resource = match spec {
        MetricSpec::Resource { resource, .. } => resource.as_str(),
        _ => "",
    };
    match &outcome.result {
        Ok(Computed::PodBased(p)) => {
            step(steps, "metric", "pods", groups_text(&p.groups));
            let usage = match (p.utilization, p.request_total) {
                (Some(u), Some(req)) => format!(
                    "usage {} over requests {} = {u}% (truncated); average {}",
                    build_quantity(resource, p.usage_total),
                    build_quantity(resource, req),
                    build_quantity(resource, p.raw_average)
                ),
                _ => format!(
                    "total {} over {} samples = {} average (truncated)",
                    build_quantity(resource, p.usage_total),
                    p.samples,
                    build_quantity(resource, p.raw_average)
                ),
            };
            step(steps, "metric", "current", usage);
            if p.recount.is_none() {
                step(
                    steps,
                    "metric",
                    "tolerance",
                    ratio_verdict(t, p.usage_ratio),
                );
            } else {
                step(
                    steps,
                    "metric",
                    "ratio",
                    format!(
                        "ratio {:.3}: missing or unready pods force a recount",
                        p.usage_ratio
                    ),
                );
            }
            if let Some(rc) = &p.recount {
                let mut parts = Vec::new();
                match rc.missing_value {
                    Some(0) => parts.push(format!(
                        "{} missing pod(s) counted at 0",
                        p.groups.missing.len()
                    )),
                    Some(v) => parts.push(format!(
                        "{} missing pod(s) counted at {}",
                        p.groups.missing.len(),
                        match p.utilization {
                            Some(_) => "max(100%, target) of their request".to_string(),
                            None => build_quantity(resource, v),
                        }
                    )),
                    None if !p.groups.missing.is_empty() => {
                        parts.push("missing pods not added (ratio exactly 1)".to_string());
                    }
                    None => {}
                }
                if rc.unready_at_zero {
                    parts.push(format!(
                        "{} unready pod(s) counted at 0",
                        p.groups.unready.len()
                    ));
                } else if !p.groups.unready.is_empty() {
                    parts.push(format!(
                        "{} unready pod(s) left out (not a scale-up)",
                        p.groups.unready.len()
                    ));
                }
                let new = match rc.new_utilization {
                    Some(u) => format!("{u}%, ratio {:.3}", rc.new_ratio),
                    None => format!("ratio {:.3}", rc.new_ratio),
                };
                step(
                    steps,
                    "metric",
                    "recount",
                    format!("{}; {} samples → {new}", parts.join(", "), rc.metrics_count),
                );
            }
            step(
                steps,
                "metric",
                "proposal",
                format!("{} replicas ({})", p.replicas, p.branch),
            );
        }
        Ok(Computed::Value(v)) => {
            let current = m
                .current_value
                .clone()
                .or_else(|| m.current_average_value.clone())
                .unwrap_or_default();
            step(steps, "metric", "current", current);
            step(
                steps,
                "metric",
                "tolerance",
                ratio_verdict(t, v.usage_ratio),
            );
            let ready = v
                .ready_pods
                .map(|n| format!(", {n} ready pods"))
                .unwrap_or_default();
            step(
                steps,
                "metric",
                "proposal",
                format!("{} replicas ({}{ready})", v.replicas, v.branch),
            );
        }
        Err(f) => {
            if let Some(g) = &f.groups {
                step(steps, "metric", "pods", groups_text(g));
            }
            step(
                steps,
                "metric",
                "error",
                format!("{}: {}", f.reason, f.condition_error),
            );
        }
    }
}

fn source_text(source: &Source) -> &'static str {
    match source {
        Source::Flag => "flag",
        Source::Status => "status",
        Source::Samples => "samples",
        Source::Default => "default",
    }
}

pub fn build(s: &Scenario, sync: &Sync<'_>, assume_steady: bool) -> Report {
    let hpa = &s.hpa;
    let t = &sync.tolerances;
    let mut steps = Vec::new();
    let mut assumptions: Vec<String> = s.input_notes.clone();
    let behavior_text = if hpa.behavior.is_some() {
        "behavior set (behavior normalization)"
    } else {
        "no behavior (legacy normalization)"
    };
    step(
        &mut steps,
        "inputs",
        "HPA",
        format!(
            "{}/{} → {}/{}; min {}, max {}; {} metric(s); {behavior_text}",
            hpa.namespace,
            hpa.name,
            hpa.target.kind,
            hpa.target.name,
            sync.min_replicas,
            hpa.max_replicas,
            hpa.metrics.len()
        ),
    );
    let current_source = match s.current_replicas_source {
        Source::Flag => "from --current-replicas",
        Source::Status => "from status.currentReplicas",
        Source::Samples => "counted from the samples: pods not deleting, Failed or Succeeded",
        Source::Default => "default",
    };
    step(
        &mut steps,
        "inputs",
        "current replicas",
        format!("{}, {current_source}", s.current_replicas),
    );
    step(
        &mut steps,
        "inputs",
        "pods",
        format!("{} pod(s) listed under the target's selector", s.pods.len()),
    );
    step(
        &mut steps,
        "inputs",
        "controller",
        format!(
            "Kubernetes 1.{} rules; tolerance {}; cpu initialization {}; readiness delay {}; downscale window {}",
            s.config.kube_minor,
            if (t.scale_down - t.scale_up).abs() < f64::EPSILON {
                format!("{}", t.scale_up)
            } else {
                format!("down {} / up {}", t.scale_down, t.scale_up)
            },
            s.config.cpu_initialization_period,
            s.config.delay_of_initial_readiness_status,
            s.config.downscale_stabilization_window
        ),
    );

    let g = s.config.features;
    let on = |b: bool| if b { "on" } else { "off" };
    step(
        &mut steps,
        "inputs",
        "feature gates",
        format!(
            "HPAConfigurableTolerance={}, HPAScaleToZero={}, PodLevelResources={}, HPAContainerMetrics={}",
            on(g.hpa_configurable_tolerance),
            on(g.hpa_scale_to_zero),
            on(g.pod_level_resources),
            on(g.hpa_container_metrics)
        ),
    );
    let per_hpa_tolerance = hpa
        .behavior
        .as_ref()
        .is_some_and(|b| b.scale_up.tolerance.is_some() || b.scale_down.tolerance.is_some());
    if per_hpa_tolerance && !(s.config.kube_minor >= 33 && g.hpa_configurable_tolerance) {
        assumptions.push(format!(
            "behavior.*.tolerance is ignored: HPAConfigurableTolerance is off in 1.{} (the API server would drop or reject the field)",
            s.config.kube_minor
        ));
    }

    let single = hpa.metrics.len() == 1;
    let metrics: Vec<MetricReport> = hpa
        .metrics
        .iter()
        .zip(&sync.outcomes)
        .map(|(spec, outcome)| metric_report(spec, outcome, t, single))
        .collect();
    for ((spec, outcome), m) in hpa.metrics.iter().zip(&sync.outcomes).zip(&metrics) {
        metric_steps(&mut steps, spec, m, outcome, t);
    }

    let current = s.current_replicas;
    let desired = sync.desired_replicas;
    let mut summary = String::new();
    match sync.branch {
        Branch::ScalingDisabled => {
            step(
                &mut steps,
                "decision",
                "scaling disabled",
                "the target has 0 replicas: the controller does not compute metrics",
            );
            summary =
                "no change: scaling is disabled since the replica count of the target is zero"
                    .into();
        }
        Branch::AboveMax | Branch::BelowMin => {
            let reason = sync.rescale_reason.clone().unwrap_or_default();
            step(
                &mut steps,
                "decision",
                "out of range",
                format!("{reason}: jump to {desired}, metrics not consulted"),
            );
            summary = format!("{current} → {desired}: {reason}");
        }
        Branch::MetricsFailed => {
            if let Some(c) = &sync.combined {
                let why = if c.invalid_count >= sync.outcomes.len() {
                    "every metric is invalid".to_string()
                } else {
                    format!(
                        "{} invalid metric(s) and the valid ones would scale down to {}",
                        c.invalid_count,
                        sync.outcomes
                            .iter()
                            .filter_map(|o| o.result.as_ref().ok().map(Computed::replicas))
                            .max()
                            .unwrap_or(0)
                    )
                };
                step(
                    &mut steps,
                    "combine",
                    "invalid metrics",
                    format!("{why}: the controller keeps {current} replicas"),
                );
                summary = format!("no change: {why}; {}", c.error.clone().unwrap_or_default());
            }
        }
        Branch::Metrics => {}
    }
    if let (Some(c), Some(proposal)) = (&sync.combined, sync.metric_proposal) {
        let name = c
            .winner
            .and_then(|i| sync.outcomes.get(i))
            .map(|o| o.name.as_str())
            .unwrap_or("");
        let mut detail = format!("largest valid proposal: {proposal} ({name})");
        if c.invalid_count > 0 {
            detail.push_str(&format!(
                "; {} invalid metric(s) ignored because the valid proposal does not scale down",
                c.invalid_count
            ));
        }
        step(&mut steps, "combine", "proposal", detail);
    }
    if let Some(reason) = &sync.rescale_reason
        && sync.branch == Branch::Metrics
    {
        step(&mut steps, "combine", "rescale reason", reason.clone());
    }
    if let Some(n) = &sync.normalization {
        let proposal = sync.metric_proposal.unwrap_or(current);
        let window_text = match &hpa.behavior {
            None => format!(
                "legacy window {}s (inclusive): highest recommendation is {}",
                n.down_window_seconds, n.stabilized
            ),
            Some(_) => format!(
                "scale-up window {}s, scale-down window {}s (exclusive): clamp({current}, lowest up, highest down) = {}",
                n.up_window_seconds, n.down_window_seconds, n.stabilized
            ),
        };
        step(
            &mut steps,
            "stabilize",
            "stabilization",
            format!("{window_text}; {}", n.stabilization.0),
        );
        let limit_text = match n.legacy_scale_up_limit {
            Some(limit) => format!(
                "min {}, max {}, scale-up limit max({}×{current}, {}) = {limit}: {} → {} ({})",
                sync.min_replicas,
                hpa.max_replicas,
                s.config.scale_up_limit_factor,
                s.config.scale_up_limit_minimum,
                n.stabilized,
                n.limited.replicas,
                n.limited.reason
            ),
            None => format!(
                "min {}, max {}, rate policies: {} → {} ({})",
                sync.min_replicas,
                hpa.max_replicas,
                n.stabilized,
                n.limited.replicas,
                n.limited.reason
            ),
        };
        step(&mut steps, "limit", "rate limit and clamp", limit_text);
        if assume_steady {
            let window = n.down_window_seconds;
            let mut text = format!(
                "No --history: assumed steady load: every sync in the last {window}s recommended {proposal} and no scale event happened."
            );
            if desired < current {
                text.push_str(&format!(
                    " A higher recommendation in the last {window}s would hold the replicas at up to {current}."
                ));
            }
            if desired > current && hpa.behavior.is_some() {
                text.push_str(" A recent scale-up would lower the rate limit.");
            }
            assumptions.push(text);
        } else if sync.seeded_initial_recommendation {
            assumptions.push(format!(
                "The history has no recommendations: like a controller that has just started, the current count {current} was recorded as the first recommendation."
            ));
        }
    }
    for c in sync.conditions.clone().into_vec() {
        step(
            &mut steps,
            "conditions",
            c.condition_type.clone(),
            format!("{} {}: {}", c.status, c.reason, c.message),
        );
    }

    let change = if desired > current {
        "scaleUp"
    } else if desired < current {
        "scaleDown"
    } else {
        "none"
    };
    if summary.is_empty() {
        summary = decision_summary(s, sync, &metrics);
    }
    step(
        &mut steps,
        "decision",
        "decision",
        format!("{current} → {desired}: {summary}"),
    );

    if hpa.metrics.iter().any(|m| {
        matches!(m, MetricSpec::Object { target, .. } | MetricSpec::External { target, .. }
            if target.average_value_milli.is_some() && target.target_type == TargetType::AverageValue)
    }) {
        assumptions.push(format!(
            "AverageValue Object/External metrics divide by the scale's status.replicas; taken as {} (no rollout in progress).",
            s.status_replicas
        ));
    }

    Report {
        schema_version: SCHEMA_VERSION,
        hpa: format!("{}/{}", hpa.namespace, hpa.name),
        target: format!("{}/{}", hpa.target.kind, hpa.target.name),
        kube_version: format!("1.{}", s.config.kube_minor),
        now: s.now.to_rfc3339(),
        current_replicas: current,
        current_replicas_source: source_text(&s.current_replicas_source).to_string(),
        desired_replicas: desired,
        min_replicas: sync.min_replicas,
        max_replicas: hpa.max_replicas,
        metrics,
        decision: Decision {
            metric_proposal: sync.metric_proposal,
            metric_name: sync
                .combined
                .as_ref()
                .and_then(|c| c.winner)
                .and_then(|i| sync.outcomes.get(i))
                .map(|o| o.name.clone()),
            rescale_reason: sync.rescale_reason.clone(),
            stabilized_replicas: sync.normalization.as_ref().map(|n| n.stabilized),
            limited_replicas: sync.normalization.as_ref().map(|n| n.limited.replicas),
            change: change.to_string(),
            summary,
        },
        conditions: sync.conditions.clone().into_vec(),
        steps,
        assumptions,
        nodes: None,
        approximation: s.approximation,
        status_comparison: None,
        diagnostics: s.input_diagnostics.clone(),
        warnings: s.warnings.clone(),
        sources: s.sources.clone(),
    }
}

fn decision_summary(s: &Scenario, sync: &Sync<'_>, metrics: &[MetricReport]) -> String {
    let current = s.current_replicas;
    let desired = sync.desired_replicas;
    let proposal = sync.metric_proposal.unwrap_or(current);
    let n = sync.normalization.as_ref();
    let mut text = if desired == current && proposal == current {
        match metrics {
            [m] => match (m.ratio, &m.recount) {
                (Some(r), None) if sync.tolerances.is_within(r) => format!(
                    "no change: ratio {r:.2} is inside the tolerance band {:.2}–{:.2}",
                    m.tolerance.lower, m.tolerance.upper
                ),
                (Some(_), Some(rc)) => format!(
                    "no change: after the recount of missing and unready pods the ratio is {:.2}",
                    rc.new_ratio
                ),
                _ => "no change: the metrics propose the current count".to_string(),
            },
            _ => "no change: the largest proposal equals the current count".to_string(),
        }
    } else if desired == current {
        match n {
            Some(n) if n.stabilized == current && proposal < current => format!(
                "no change: the metrics propose {proposal}, but a higher recommendation in the stabilization window holds {current}"
            ),
            Some(n) if proposal > current && n.stabilized == current => format!(
                "no change: the metrics propose {proposal}, but the scale-up stabilization window holds {current}"
            ),
            Some(n) => format!(
                "no change: the metrics propose {proposal}; {} keeps {current}",
                n.limited.reason
            ),
            None => format!("no change: the metrics propose {proposal}"),
        }
    } else {
        let verb = if desired > current {
            "scale up"
        } else {
            "scale down"
        };
        let mut t = format!(
            "{verb} ({})",
            sync.rescale_reason.clone().unwrap_or_default()
        );
        if let Some(n) = n {
            if n.stabilized != proposal {
                t.push_str(&format!(
                    "; the stabilization window turns {proposal} into {}",
                    n.stabilized
                ));
            }
            if n.limited.replicas != n.stabilized {
                t.push_str(&format!(
                    "; {} caps {} at {}",
                    n.limited.reason, n.stabilized, n.limited.replicas
                ));
            }
        }
        t
    };
    if let [m] = metrics
        && let Some(b) = &m.hold_band
        && m.recount.is_none()
    {
        let what = match (m.metric_type.as_str(), b.unit.as_str()) {
            (_, "percent") => format!("{} utilization", m.name),
            ("Object" | "External", _) if m.current_value.is_some() => {
                format!("{} value", m.name)
            }
            _ => format!("{} average", m.name),
        };
        text.push_str(&format!(
            ". Holds {current} replicas while {what} is {}–{}; scales up above {}, down below {}",
            b.low, b.high, b.high, b.low
        ));
    }
    text
}
