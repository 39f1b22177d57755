//! Turns one sync's intermediate values into a `Report`: metric summaries, the step-by-step trace
//! in the controller's order, the decision in words, and the assumptions behind it.

use crate::calc::band::{Axis, Band, Edge, Hold, NoBand};
use crate::calc::metrics::{Computed, MetricOutcome, readable};
use crate::calc::pods::Groups;
use crate::calc::reconcile::{Branch, Sync};
use crate::calc::replicas::{PodBasedResult, RecountTrace, Rule, Tolerances};
use crate::quantity::{Format, build_quantity, format_milli, human_quantity};
use crate::report::{
    BandEdge, BandValue, Decision, HoldBand, MetricReport, PodClass, Recount, Report,
    SCHEMA_VERSION, Step, TargetReport, ToleranceBand,
};
use crate::scenario::{MetricSpec, Scenario, Source, TargetType};

fn decimal(milli: i64) -> String {
    format_milli(milli, Format::DecimalSI)
}

fn step(steps: &mut Vec<Step>, phase: &str, title: impl Into<String>, detail: impl Into<String>) {
    step_with(steps, phase, title, detail, Vec::new());
}

/// A step whose numbers also travel as fields of its `values`.
fn step_with(
    steps: &mut Vec<Step>,
    phase: &str,
    title: impl Into<String>,
    detail: impl Into<String>,
    values: Vec<(&str, serde_json::Value)>,
) {
    steps.push(Step {
        phase: phase.to_string(),
        title: title.into(),
        detail: detail.into(),
        values: values
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    });
}

/// The tolerance as the ratios between which a metric keeps the count.
pub(crate) fn band(t: &Tolerances) -> ToleranceBand {
    ToleranceBand {
        lower: 1.0 - t.scale_down,
        upper: 1.0 + t.scale_up,
    }
}

fn target_report(spec: &MetricSpec) -> TargetReport {
    let t = spec.target();
    let resource = resource_name(spec);
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

fn metric_report(
    spec: &MetricSpec,
    outcome: &MetricOutcome<'_>,
    tolerances: &Tolerances,
    hold: Option<&Result<Band, NoBand>>,
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
            r.branch = Some(p.branch.text().to_string());
        }
        Ok(Computed::Value(v)) => {
            match spec.target().target_type {
                TargetType::AverageValue => r.current_average_value = Some(decimal(v.usage)),
                _ => r.current_value = Some(decimal(v.usage)),
            }
            r.ratio = Some(v.usage_ratio);
            r.proposed_replicas = Some(v.replicas);
            r.branch = Some(v.branch.text().to_string());
        }
        Err(f) => {
            if let Some(g) = &f.groups {
                set_groups(&mut r, g);
            }
            r.error = Some(f.error.clone());
            r.error_reason = Some(f.reason.to_string());
        }
    }
    if let Some(Ok(b)) = hold {
        r.hold_band = Some(hold_band(spec, b));
    }
    r
}

fn band_value(spec: &MetricSpec, axis: Axis, v: i64) -> BandValue {
    match (axis, spec) {
        (Axis::Percent { .. }, _) => BandValue::Percent(v),
        (_, MetricSpec::Resource { resource, .. }) => {
            BandValue::Quantity(build_quantity(resource, v))
        }
        _ => BandValue::Quantity(decimal(v)),
    }
}

fn hold_band(spec: &MetricSpec, b: &Band) -> HoldBand {
    let value = |v| band_value(spec, b.axis, v);
    // A usage total in the metric's unit (`3359m` of cpu), whatever the axis reads it as.
    let total = |t: Option<i64>| t.map(|t| band_value(spec, Axis::Total, t).to_string());
    let edge = |e: &Edge| match e {
        Edge::Changes(o) => (
            Some(BandEdge {
                value: value(o.value),
                replicas: o.replicas,
                total: total(o.total),
            }),
            None,
        ),
        Edge::HeldBy(h) => (None, Some(h.code().to_string())),
    };
    let (below, low_held_by) = edge(&b.below);
    let (above, high_held_by) = edge(&b.above);
    HoldBand {
        unit: match b.axis {
            Axis::Percent { .. } => "percent",
            _ => "quantity",
        }
        .to_string(),
        low: value(b.low),
        high: above.as_ref().map(|_| value(b.high)),
        below,
        above,
        low_held_by,
        high_held_by,
        low_total: total(b.low_total),
        high_total: total(b.high_total),
    }
}

/// What holds the count, in words, for a band's open end or a metric without a band.
fn hold_text(hold: Hold, s: &Scenario, outcomes: &[MetricOutcome<'_>]) -> String {
    match hold {
        Hold::MinReplicas => format!("minReplicas {}", s.hpa.min_replicas),
        Hold::MaxReplicas => format!("maxReplicas {}", s.hpa.max_replicas),
        Hold::Stabilization => "the stabilization window".to_string(),
        Hold::RateLimit => "the rate limit".to_string(),
        Hold::OtherMetric(i) => outcomes
            .get(i)
            .map_or_else(|| "another metric".to_string(), |o| readable(&o.name)),
        Hold::InvalidMetric => "an invalid metric".to_string(),
        Hold::Recount => "the recount of missing and unready pods".to_string(),
    }
}

/// The band step of one metric: the values that keep the count and what happens past them.
fn band_step(
    m: &MetricReport,
    band: Option<&Result<Band, NoBand>>,
    s: &Scenario,
    outcomes: &[MetricOutcome<'_>],
) -> Option<String> {
    let current = s.current_replicas;
    match band? {
        Err(NoBand::Forced(hold)) => Some(format!(
            "no value of this metric alone keeps {current} replicas: {} sets the count",
            hold_text(*hold, s, outcomes)
        )),
        Err(NoBand::Jumps) => Some(format!(
            "no value of this metric keeps {current} replicas: the count jumps over it between two adjacent values"
        )),
        Ok(b) => {
            let hb = m.hold_band.as_ref()?;
            let mut parts = vec![format!("{} keeps {current}", range_text(m, hb))];
            for (edge, held) in [(&hb.above, &b.above), (&hb.below, &b.below)] {
                match (edge, held) {
                    (Some(e), _) => parts.push(format!("{} → {}", edge_words(m, e), e.replicas)),
                    (None, Edge::HeldBy(h)) => parts.push(format!(
                        "{} held by {}",
                        if std::ptr::eq(held, &b.above) {
                            "above"
                        } else {
                            "below"
                        },
                        hold_text(*h, s, outcomes)
                    )),
                    (None, Edge::Changes(_)) => {}
                }
            }
            Some(parts.join("; "))
        }
    }
}

fn range_text(m: &MetricReport, b: &HoldBand) -> String {
    // A value split by its edge names the usage total that still keeps the count ("from" and
    // "up to" only where the range's own words do not already say which end it is).
    let with_total = |words: String, total: &Option<String>, side: &str| match total {
        Some(t) => format!("{words} ({side}{} in all)", quantity_words(m, t)),
        None => words,
    };
    let low = |side| with_total(band_words(m, &b.low), &b.low_total, side);
    let high = |v, side| with_total(band_words(m, v), &b.high_total, side);
    match (&b.below, &b.high) {
        (None, None) => "every value".to_string(),
        (None, Some(v)) => format!("up to {}", high(v, "")),
        (Some(_), None) if b.low_total.is_none() && low("").starts_with("above") => low(""),
        (Some(_), None) => format!("{} and above", low("")),
        (Some(_), Some(v)) if low("from ").starts_with("above") => {
            format!("{} up to {}", low("from "), high(v, "up to "))
        }
        (Some(_), Some(v)) => format!("{}–{}", low("from "), high(v, "up to ")),
    }
}

/// An edge's value for a sentence: the usage total where the value alone cannot say it.
fn edge_words(m: &MetricReport, e: &BandEdge) -> String {
    match &e.total {
        Some(t) => format!("{} in all", quantity_words(m, t)),
        None => band_words(m, &e.value),
    }
}

/// A band value for a sentence: memory in binary units (`112.5Mi`, `above 165Mi`), anything
/// else as the JSON has it.
fn band_words(m: &MetricReport, v: &BandValue) -> String {
    match v {
        BandValue::Quantity(q) => quantity_words(m, q),
        BandValue::Percent(_) => v.to_string(),
    }
}

/// A quantity of the metric for a sentence, in the one unit of its resource
/// (`human_quantity`): memory in binary units, cpu in millicores, any other value a decimal.
fn quantity_words(m: &MetricReport, q: &str) -> String {
    let resource = match m.metric_type.as_str() {
        "Resource" | "ContainerResource" => m.name.as_str(),
        _ => "",
    };
    crate::quantity::parse_milli(q).map_or_else(|_| q.to_string(), |v| human_quantity(resource, v))
}

/// An Object or External metric's value for a sentence: the quantity, and the decimal it means
/// when the two differ (`866m = 0.866`); per second for a rate (prometheus-adapter's default
/// rules name a counter's rate `<name>_per_second`).
fn value_words(m: &MetricReport, q: &str) -> String {
    let Ok(v) = crate::quantity::parse_milli(q) else {
        return q.to_string();
    };
    let plain = crate::quantity::plain_decimal(v);
    let per = if m.name.ends_with("_per_second") || m.name.ends_with("per_second") {
        " per second"
    } else {
        ""
    };
    if plain == q {
        format!("{q}{per}")
    } else {
        format!("{q} = {plain}{per}")
    }
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

/// The `metric` steps of one metric: its target, then what it computed or why it failed.
fn metric_steps(
    steps: &mut Vec<Step>,
    spec: &MetricSpec,
    m: &MetricReport,
    outcome: &MetricOutcome<'_>,
    t: &Tolerances,
    current_replicas: i32,
) {
    let title = format!("{} {}", spec.type_name(), spec.metric_name());
    step(
        steps,
        "metric",
        title,
        format!("target {} ({})", target_text(spec), readable(&outcome.name)),
    );
    match &outcome.result {
        Ok(Computed::PodBased(p)) => pod_metric_steps(steps, spec, m, p, t, current_replicas),
        Ok(Computed::Value(v)) => {
            let current = (m.current_value.as_deref())
                .or(m.current_average_value.as_deref())
                .map(|q| value_words(m, q))
                .unwrap_or_default();
            step(steps, "metric", "current", current);
            step(
                steps,
                "metric",
                "tolerance",
                ratio_verdict(t, v.usage_ratio),
            );
            let (detail, values) = value_proposal_text(spec, v, t);
            step_with(steps, "metric", "proposal", detail, values);
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

/// The name of a Resource metric's resource (`cpu`), empty for the other types.
fn resource_name(spec: &MetricSpec) -> &str {
    match spec {
        MetricSpec::Resource { resource, .. } => resource.as_str(),
        _ => "",
    }
}

/// The steps of a pod-based metric: its pods, its usage, the ratio against the tolerance, the
/// recount if there was one, and the proposal.
fn pod_metric_steps(
    steps: &mut Vec<Step>,
    spec: &MetricSpec,
    m: &MetricReport,
    p: &PodBasedResult<'_>,
    t: &Tolerances,
    current_replicas: i32,
) {
    let resource = resource_name(spec);
    step(steps, "metric", "pods", groups_text(&p.groups));
    let usage = match (p.utilization, p.request_total) {
        (Some(u), Some(req)) => format!(
            "usage {} over requests {} = {u}% (truncated); average {}",
            human_quantity(resource, p.usage_total),
            human_quantity(resource, req),
            human_quantity(resource, p.raw_average)
        ),
        _ => format!(
            "total {} over {} samples = {} average (truncated)",
            human_quantity(resource, p.usage_total),
            p.samples,
            human_quantity(resource, p.raw_average)
        ),
    };
    step(steps, "metric", "current", usage);
    match &p.recount {
        None => step(
            steps,
            "metric",
            "tolerance",
            ratio_verdict(t, p.usage_ratio),
        ),
        Some(rc) => {
            step(
                steps,
                "metric",
                "ratio",
                format!(
                    "ratio {:.3}: missing or unready pods force a recount",
                    p.usage_ratio
                ),
            );
            recount_step(steps, resource, m, p, rc);
        }
    }
    let (detail, values) = pod_proposal_text(p, t, current_replicas);
    step_with(steps, "metric", "proposal", detail, values);
}

/// The `recount` step: how the missing and unready pods were counted, and the recount's sums.
fn recount_step(
    steps: &mut Vec<Step>,
    resource: &str,
    m: &MetricReport,
    p: &PodBasedResult<'_>,
    rc: &RecountTrace,
) {
    let inserted = if p.usage_ratio < 1.0 {
        p.sums.down
    } else if p.usage_ratio > 1.0 {
        p.sums.up
    } else {
        crate::calc::replicas::Inserted::default()
    };
    let q = |v: i64| human_quantity(resource, v);
    let total = p.usage_total.wrapping_add(inserted.value_total);
    let arithmetic = match (rc.new_utilization, p.request_total) {
        (Some(u), Some(req)) => format!(
            "({} + {}) over ({} + {}) = {u}%, ratio {u} ÷ {} = {:.3}",
            q(p.usage_total),
            q(inserted.value_total),
            q(req),
            q(inserted.request_total),
            m.target.average_utilization.unwrap_or_default(),
            rc.new_ratio
        ),
        _ => format!(
            "({} + {}) ÷ {} samples = {}, ratio {:.3}",
            q(p.usage_total),
            q(inserted.value_total),
            rc.metrics_count,
            q(total / i64::try_from(rc.metrics_count.max(1)).unwrap_or(1)),
            rc.new_ratio
        ),
    };
    step_with(
        steps,
        "metric",
        "recount",
        format!(
            "{}; {arithmetic}",
            recount_parts(resource, p, rc).join(", ")
        ),
        vec![
            ("usageTotalMilli", p.usage_total.into()),
            ("addedUsageMilli", inserted.value_total.into()),
            ("requestTotalMilli", p.request_total.into()),
            (
                "addedRequestMilli",
                p.request_total.map(|_| inserted.request_total).into(),
            ),
            ("metricsCount", rc.metrics_count.into()),
            ("newUtilization", rc.new_utilization.into()),
            ("newRatio", rc.new_ratio.into()),
        ],
    );
}

/// How the recount counted the missing pods and the unready ones, in words.
fn recount_parts(resource: &str, p: &PodBasedResult<'_>, rc: &RecountTrace) -> Vec<String> {
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
                None => human_quantity(resource, v),
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
    parts
}

fn source_text(source: &Source) -> &'static str {
    match source {
        Source::Flag => "flag",
        Source::Status => "status",
        Source::Samples => "samples",
        Source::Target => "target",
        Source::Default => "default",
        Source::Simulation => "simulation",
    }
}

/// The report of one sync, its trace in the order `reconcileAutoscaler` reads: the inputs, each
/// metric, the branch the sync took, the combination, the normalization, the conditions and the
/// decision.
pub fn build(
    s: &Scenario,
    sync: &Sync<'_>,
    bands: &[Option<Result<Band, NoBand>>],
    assume_steady: bool,
) -> Report {
    let hpa = &s.hpa;
    let current = s.current_replicas;
    let desired = sync.desired_replicas;
    let mut steps = Vec::new();
    let mut assumptions: Vec<String> = s.input_notes.clone();
    input_steps(&mut steps, s, sync);
    assumptions.extend(ignored_tolerance(s));
    let metrics = metric_phase(&mut steps, s, sync, bands);
    let branch_summary = branch_steps(&mut steps, s, sync);
    combine_steps(&mut steps, sync);
    if let Some(n) = &sync.normalization {
        normalize_steps(&mut steps, s, sync, n);
        assumptions.extend(history_assumption(s, sync, n, assume_steady));
    }
    for c in sync.conditions.clone().into_vec() {
        step(
            &mut steps,
            "conditions",
            c.condition_type.clone(),
            format!("{} {}: {}", c.status, c.reason, c.message),
        );
    }
    let summary = branch_summary.unwrap_or_else(|| decision_summary(s, sync, &metrics));
    step(
        &mut steps,
        "decision",
        "decision",
        format!("{current} → {desired}: {summary}"),
    );

    Report {
        schema_version: SCHEMA_VERSION,
        hpa: format!("{}/{}", hpa.namespace, hpa.name),
        target: format!("{}/{}", hpa.target.kind, hpa.target.name),
        kube_version: format!("1.{}", s.config.kube_minor),
        now: s.now.to_rfc3339(),
        current_replicas: current,
        current_replicas_source: source_text(&s.current_replicas_source).to_string(),
        desired_replicas: desired,
        other_outcomes: Vec::new(),
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
            change: change(current, desired).to_string(),
            summary,
        },
        conditions: sync.conditions.clone().into_vec(),
        steps,
        assumptions,
        nodes: None,
        approximation: s.approximation,
        status_comparison: None,
        diagnostics: Vec::new(),
        warnings: s.warnings.clone(),
        sources: s.sources.clone(),
    }
}

/// The decision's `change`: `scaleUp`, `scaleDown` or `none`.
pub(crate) fn change(current: i32, desired: i32) -> &'static str {
    if desired > current {
        "scaleUp"
    } else if desired < current {
        "scaleDown"
    } else {
        "none"
    }
}

/// The `inputs` steps: the HPA, where the current count came from, the pods, the controller's
/// settings and the feature gates.
fn input_steps(steps: &mut Vec<Step>, s: &Scenario, sync: &Sync<'_>) {
    let hpa = &s.hpa;
    let t = &sync.tolerances;
    let behavior_text = if hpa.behavior.is_some() {
        "behavior set (behavior normalization)"
    } else {
        "no behavior (legacy normalization)"
    };
    step(
        steps,
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
        // A ScaledObject's status has no count: `status::start` reads where KEDA holds it.
        Source::Status if s.keda.is_some() => "where the ScaledObject's status says KEDA holds it",
        Source::Status => "from status.currentReplicas",
        Source::Default if s.keda.is_some() => {
            "assumed: not in the inputs (see otherOutcomes for the other counts)"
        }
        Source::Samples => "counted from the samples: pods not deleting, Failed or Succeeded",
        Source::Target => "from the target's spec.replicas",
        Source::Default => "default",
        Source::Simulation => "the simulated target's spec.replicas at this sync",
    };
    step(
        steps,
        "inputs",
        "current replicas",
        format!("{}, {current_source}", s.current_replicas),
    );
    let pods = match s.scale_error {
        Some(_) => "none listed: the sync stops at the scale read".to_string(),
        None => format!("{} pod(s) listed under the target's selector", s.pods.len()),
    };
    step(steps, "inputs", "pods", pods);
    step(
        steps,
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
        steps,
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
}

/// The assumption that `behavior.*.tolerance` is set but ignored (HPAConfigurableTolerance off).
fn ignored_tolerance(s: &Scenario) -> Option<String> {
    let per_hpa_tolerance = s
        .hpa
        .behavior
        .as_ref()
        .is_some_and(|b| b.scale_up.tolerance.is_some() || b.scale_down.tolerance.is_some());
    (per_hpa_tolerance
        && !(s.config.kube_minor >= 33 && s.config.features.hpa_configurable_tolerance))
        .then(|| {
            format!(
                "behavior.*.tolerance is ignored: HPAConfigurableTolerance is off in 1.{} (the API server would drop or reject the field)",
                s.config.kube_minor
            )
        })
}

/// The `metric` steps, one metric at a time: its report, its steps and its hold band.
fn metric_phase(
    steps: &mut Vec<Step>,
    s: &Scenario,
    sync: &Sync<'_>,
    bands: &[Option<Result<Band, NoBand>>],
) -> Vec<MetricReport> {
    let t = &sync.tolerances;
    let mut metrics = Vec::new();
    for (i, (spec, outcome)) in s.hpa.metrics.iter().zip(&sync.outcomes).enumerate() {
        let band = bands.get(i).and_then(Option::as_ref);
        let m = metric_report(spec, outcome, t, band);
        metric_steps(steps, spec, &m, outcome, t, s.current_replicas);
        if let Some(text) = band_step(&m, band, s, &sync.outcomes) {
            step(steps, "metric", "hold band", text);
        }
        metrics.push(m);
    }
    metrics
}

/// The steps of a sync that did not reach the combination of valid metrics (a scale it could not
/// read, scaling disabled, out of range, a selector error, invalid metrics), and the summary they
/// give the decision.
fn branch_steps(steps: &mut Vec<Step>, s: &Scenario, sync: &Sync<'_>) -> Option<String> {
    let current = s.current_replicas;
    let desired = sync.desired_replicas;
    match sync.branch {
        Branch::ScalingDisabled => {
            step(
                steps,
                "decision",
                "scaling disabled",
                "the target has 0 replicas: the controller does not compute metrics",
            );
            Some(
                "no change: scaling is disabled since the replica count of the target is zero"
                    .into(),
            )
        }
        Branch::AboveMax | Branch::BelowMin => {
            let reason = sync.rescale_reason.clone().unwrap_or_default();
            step(
                steps,
                "decision",
                "out of range",
                format!("{reason}: jump to {desired}, metrics not consulted"),
            );
            Some(format!("{current} → {desired}: {reason}"))
        }
        Branch::MetricsFailed => {
            let mut summary = None;
            if let Some(e) = &s.metrics.selector_error {
                step(
                    steps,
                    "selector",
                    &e.reason,
                    format!(
                        "{}: the controller reads no metric and keeps {current} replicas",
                        e.message
                    ),
                );
                summary = Some(format!("no change: {}", e.message));
            }
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
                    steps,
                    "combine",
                    "invalid metrics",
                    format!("{why}: the controller keeps {current} replicas"),
                );
                summary = Some(format!(
                    "no change: {why}; {}",
                    c.error.clone().unwrap_or_default()
                ));
            }
            summary
        }
        Branch::FailedGetScale => {
            let error = s.scale_error.as_deref().unwrap_or_default();
            step(
                steps,
                "scale",
                "FailedGetScale",
                format!(
                    "{error}: the controller reads no count, pod or metric, records a \
                     FailedGetScale event and changes nothing; the count stays at {current} \
                     (status.currentReplicas)"
                ),
            );
            Some(format!(
                "no change: the HPA controller was unable to get the target's current scale: \
                 {error}"
            ))
        }
        Branch::Metrics => None,
    }
}

/// The `combine` steps: the largest valid proposal and the rescale reason.
fn combine_steps(steps: &mut Vec<Step>, sync: &Sync<'_>) {
    if let (Some(c), Some(proposal)) = (&sync.combined, sync.metric_proposal) {
        let name = c
            .winner
            .and_then(|i| sync.outcomes.get(i))
            .map(|o| readable(&o.name))
            .unwrap_or_default();
        let mut detail = format!("largest valid proposal: {proposal} ({name})");
        if c.invalid_count > 0 {
            detail.push_str(&format!(
                "; {} invalid metric(s) ignored because the valid proposal does not scale down",
                c.invalid_count
            ));
        }
        step(steps, "combine", "proposal", detail);
    }
    if let Some(reason) = &sync.rescale_reason
        && sync.branch == Branch::Metrics
    {
        step(steps, "combine", "rescale reason", readable(reason));
    }
}

/// The `stabilize` and `limit` steps of the normalization.
fn normalize_steps(
    steps: &mut Vec<Step>,
    s: &Scenario,
    sync: &Sync<'_>,
    n: &crate::calc::reconcile::Normalization,
) {
    let (stabilize_text, stabilize_values) = stabilization_text(s, sync, n);
    step_with(
        steps,
        "stabilize",
        "stabilization",
        stabilize_text,
        stabilize_values,
    );
    let (limit_text, limit_values) = limit_text(s, sync, n);
    step_with(
        steps,
        "limit",
        "rate limit and clamp",
        limit_text,
        limit_values,
    );
}

/// What the normalization assumed of the history: without `--history`, a steady load; with a
/// history without recommendations, the first recommendation seeded.
fn history_assumption(
    s: &Scenario,
    sync: &Sync<'_>,
    n: &crate::calc::reconcile::Normalization,
    assume_steady: bool,
) -> Option<String> {
    let current = s.current_replicas;
    let desired = sync.desired_replicas;
    if assume_steady {
        let proposal = sync.metric_proposal.unwrap_or(current);
        let window = n.down_window_seconds;
        let mut text = format!(
            "No --history: assumed steady load: every sync in the last {window}s recommended {proposal} and no scale event happened."
        );
        if desired < current {
            text.push_str(&format!(
                " A higher recommendation in the last {window}s would hold the replicas at up to {current}."
            ));
        }
        if desired > current && s.hpa.behavior.is_some() {
            text.push_str(" A recent scale-up would lower the rate limit.");
        }
        Some(text)
    } else if sync.seeded_initial_recommendation {
        Some(format!(
            "The history has no recommendations: like a controller that has just started, the current count {current} was recorded as the first recommendation."
        ))
    } else {
        None
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
            readable(sync.rescale_reason.as_deref().unwrap_or_default())
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
    let holds: Vec<String> = metrics
        .iter()
        .filter_map(|m| m.hold_band.as_ref().map(|b| hold_phrase(m, b, current)))
        .collect();
    if !holds.is_empty() {
        let decides = match (metrics.len(), &sync.combined) {
            (2.., Some(c)) => c
                .winner
                .and_then(|i| metrics.get(i))
                .map(|m| format!(" ({} decides)", m.name))
                .unwrap_or_default(),
            _ => String::new(),
        };
        text.push_str(&format!(
            ". Holds {current} replicas{decides} while {}",
            holds.join("; and while ")
        ));
    }
    text
}

/// "cpu utilization is 41%–66%; scales up from 67%, down at 40% or below".
fn hold_phrase(m: &MetricReport, b: &HoldBand, current: i32) -> String {
    let what = match (m.metric_type.as_str(), b.unit.as_str()) {
        (_, "percent") => format!("{} utilization", m.name),
        ("Object" | "External", _) if m.current_value.is_some() => format!("{} value", m.name),
        _ => format!("{} average", m.name),
    };
    let mut text = format!("{what} is {}", range_text(m, b));
    let mut after = Vec::new();
    for edge in [&b.above, &b.below] {
        let Some(e) = edge else { continue };
        let direction = if e.replicas > current { "up" } else { "down" };
        let value = edge_words(m, e);
        let at = if std::ptr::eq(edge, &b.above) {
            if value.starts_with("above") {
                value
            } else {
                format!("from {value}")
            }
        } else {
            format!("at {value} or below")
        };
        after.push(if after.is_empty() {
            format!("scales {direction} {at}")
        } else {
            format!("{direction} {at}")
        });
    }
    if !after.is_empty() {
        text.push_str(&format!("; {}", after.join(", ")));
    }
    text
}

/// `ceil(0.817 × 3) = ceil(2.451) = 3`: the proposal of a pod-based metric, written out.
fn pod_proposal_text(
    p: &PodBasedResult<'_>,
    t: &Tolerances,
    current: i32,
) -> (String, Vec<(&'static str, serde_json::Value)>) {
    let b = band(t);
    let (ratio, count, what) = match &p.recount {
        Some(rc) => (rc.new_ratio, rc.metrics_count, "samples"),
        None => (p.usage_ratio, p.groups.ready_pod_count, "ready pods"),
    };
    #[allow(clippy::cast_precision_loss)]
    let product = ratio * count as f64;
    let detail = if matches!(p.branch, Rule::ReadyPods | Rule::RecountSamples) {
        format!(
            "ceil({ratio:.3} × {count} {what}) = ceil({product:.3}) = {}",
            p.replicas
        )
    } else if p.branch.within_tolerance() {
        format!(
            "ratio {ratio:.3} is inside {:.2}–{:.2}: keep {current}",
            b.lower, b.upper
        )
    } else if p.branch == Rule::RecountCountReverses {
        format!(
            "ceil({ratio:.3} × {count} {what}) = ceil({product:.3}) = {} goes the other way: keep {current}",
            crate::calc::replicas::ceil_to_i32(product)
        )
    } else {
        format!(
            "the recount ratio {ratio:.3} is on the other side of 1 from the first pass's {:.3}: keep {current}",
            p.usage_ratio
        )
    };
    (
        detail,
        vec![
            ("ratio", ratio.into()),
            ("count", count.into()),
            ("replicas", p.replicas.into()),
        ],
    )
}

/// The proposal of an Object or External metric, written out.
fn value_proposal_text(
    spec: &MetricSpec,
    v: &crate::calc::replicas::ValueResult,
    t: &Tolerances,
) -> (String, Vec<(&'static str, serde_json::Value)>) {
    let b = band(t);
    let target = spec.target();
    let mut values = vec![
        ("ratio", v.usage_ratio.into()),
        ("replicas", v.replicas.into()),
    ];
    let detail = if v.branch.within_tolerance() {
        format!(
            "ratio {:.3} is inside {:.2}–{:.2}: keep {}",
            v.usage_ratio, b.lower, b.upper, v.replicas
        )
    } else if let Some(ready) = v.ready_pods {
        values.push(("readyPods", ready.into()));
        #[allow(clippy::cast_precision_loss)]
        let product = v.usage_ratio * ready as f64;
        format!(
            "ceil({:.3} × {ready} ready pods) = ceil({product:.3}) = {}",
            v.usage_ratio, v.replicas
        )
    } else if let Some(avg) = target
        .average_value_milli
        .filter(|_| v.branch == Rule::TotalPerAverage)
    {
        format!(
            "ceil(total {} ÷ target average {}) = {}",
            crate::quantity::plain_decimal(v.total),
            crate::quantity::plain_decimal(avg),
            v.replicas
        )
    } else {
        format!(
            "ceil({:.3}) = {} ({})",
            v.usage_ratio,
            v.replicas,
            v.branch.text()
        )
    };
    (detail, values)
}

/// The stabilization step: the window, the recommendation that decided, and when it expires.
fn stabilization_text(
    s: &Scenario,
    sync: &Sync<'_>,
    n: &crate::calc::reconcile::Normalization,
) -> (String, Vec<(&'static str, serde_json::Value)>) {
    let current = s.current_replicas;
    let proposal = sync.metric_proposal.unwrap_or(current).max(0);
    let mut text = match &s.hpa.behavior {
        None => format!(
            "legacy window {}s (inclusive): max({proposal}, recommendations of the last {}s) = {}",
            n.down_window_seconds, n.down_window_seconds, n.stabilized
        ),
        Some(_) => format!(
            "scale-up window {}s, scale-down window {}s (exclusive): clamp({current}, lowest recommendation of the up window, highest of the down window) = {}",
            n.up_window_seconds, n.down_window_seconds, n.stabilized
        ),
    };
    let mut values = vec![
        ("proposal", proposal.into()),
        ("stabilized", n.stabilized.into()),
        ("downWindowSeconds", n.down_window_seconds.into()),
        ("upWindowSeconds", n.up_window_seconds.into()),
    ];
    if let Some(h) = n.holder(s, sync) {
        text.push_str(&format!(
            "; held by the recommendation of {} from {} ago, in the window until {}",
            h.replicas,
            s.now.since(h.timestamp),
            h.until.to_rfc3339()
        ));
        values.push(("heldByRecommendation", h.replicas.into()));
        values.push((
            "heldByAgeSeconds",
            (s.now.since(h.timestamp).millis() / 1000).into(),
        ));
        values.push(("heldUntil", h.until.to_rfc3339().into()));
    }
    text.push_str(&format!("; {}", n.stabilization.0));
    (text, values)
}

/// The rate limit and clamp step: each policy's bound from the scale events, the choice, min/max.
fn limit_text(
    s: &Scenario,
    sync: &Sync<'_>,
    n: &crate::calc::reconcile::Normalization,
) -> (String, Vec<(&'static str, serde_json::Value)>) {
    let current = s.current_replicas;
    let bounds = format!("min {}, max {}", sync.min_replicas, s.hpa.max_replicas);
    let outcome = format!(
        "{} → {} ({})",
        n.stabilized, n.limited.replicas, n.limited.reason
    );
    let mut values = vec![
        ("stabilized", n.stabilized.into()),
        ("limited", n.limited.replicas.into()),
        ("reason", n.limited.reason.into()),
    ];
    if let Some(limit) = n.legacy_scale_up_limit {
        values.push(("scaleUpLimit", limit.into()));
        let text = format!(
            "{bounds}, scale-up limit max({}×{current}, {}) = {limit}: {outcome}",
            s.config.scale_up_limit_factor, s.config.scale_up_limit_minimum
        );
        return (text, values);
    }
    let Some(behavior) = &s.hpa.behavior else {
        return (format!("{bounds}: {outcome}"), values);
    };
    let up = n.stabilized > current;
    if n.stabilized == current {
        return (
            format!("{bounds}, no change: the rate policies do not apply: {outcome}"),
            values,
        );
    }
    let rules = if up {
        &behavior.scale_up
    } else {
        &behavior.scale_down
    };
    let memory = s.memory.clone().unwrap_or_default();
    let trace = crate::calc::normalize::policy_bounds(current, &memory, rules, s.now, up);
    let parts: Vec<String> = trace
        .iter()
        .map(|b| {
            let kind = b.policy.policy_type.as_str();
            let start = if b.added == 0 && b.deleted == 0 {
                format!("{}", b.period_start)
            } else {
                format!(
                    "({current} − {} + {} in the last {}s = {})",
                    b.added, b.deleted, b.policy.period_seconds, b.period_start
                )
            };
            let sign = if up { "+" } else { "−" };
            let arithmetic = match (b.policy.policy_type, up) {
                (crate::scenario::PolicyType::Pods, _) => {
                    format!("{start} {sign} {} = {}", b.policy.value, b.bound)
                }
                (crate::scenario::PolicyType::Percent, true) => format!(
                    "ceil({start} × {:.2}) = {}",
                    1.0 + f64::from(b.policy.value) / 100.0,
                    b.bound
                ),
                (crate::scenario::PolicyType::Percent, false) => format!(
                    "int({start} × {:.2}) = {}",
                    1.0 - f64::from(b.policy.value) / 100.0,
                    b.bound
                ),
            };
            format!(
                "{kind} {} per {}s → {arithmetic}",
                b.policy.value, b.policy.period_seconds
            )
        })
        .collect();
    values.push((
        "policies",
        serde_json::Value::Array(
            trace
                .iter()
                .map(|b| {
                    serde_json::json!({
                        "type": b.policy.policy_type.as_str(),
                        "value": b.policy.value,
                        "periodSeconds": b.policy.period_seconds,
                        "periodStart": b.period_start,
                        "limit": b.bound,
                    })
                })
                .collect(),
        ),
    ));
    values.push(("selectPolicy", format!("{:?}", rules.select_policy).into()));
    let text = format!(
        "{bounds}; {} policies: {}; selectPolicy {:?}: {outcome}",
        if up { "scaleUp" } else { "scaleDown" },
        parts.join(", "),
        rules.select_policy
    );
    (text, values)
}

#[cfg(test)]
mod tests {
    use crate::calc::evaluate;
    use crate::calc::testing::{NOW, cpu_utilization, recommended, scenario};
    use crate::report::{Report, Step};
    use crate::scenario::{
        Behavior, ControllerMemory, PolicyType, ScaleEvent, ScalingPolicy, ScalingRules,
        SelectPolicy,
    };
    use crate::time::Duration;

    fn step<'r>(r: &'r Report, title: &str) -> &'r Step {
        r.steps.iter().find(|s| s.title == title).unwrap()
    }

    fn rules(policies: Vec<ScalingPolicy>) -> ScalingRules {
        ScalingRules {
            stabilization_window_seconds: Some(0),
            select_policy: SelectPolicy::Max,
            policies,
            tolerance: None,
        }
    }

    fn policy(policy_type: PolicyType, value: i32) -> ScalingPolicy {
        ScalingPolicy {
            policy_type,
            value,
            period_seconds: 15,
        }
    }

    #[test]
    fn the_proposal_writes_out_ceil_of_ratio_times_pods() {
        // 3 pods at 49 % of 60 %: ratio 0.816, ceil(0.816 × 3) = ceil(2.450) = 3.
        let r = evaluate(&scenario(vec![cpu_utilization(60)], 3, 490));
        let s = step(&r, "proposal");
        assert_eq!(s.detail, "ceil(0.817 × 3 ready pods) = ceil(2.450) = 3");
        assert_eq!(s.values["replicas"], 3);
        assert_eq!(s.values["count"], 3);
    }

    #[test]
    fn each_policy_writes_out_its_bound_from_the_scale_events() {
        // 1 replica at 500 % of 50 %: Pods 4 per 15s → 1 + 4 = 5, Percent 100 → ceil(1 × 2) = 2.
        let mut s = scenario(vec![cpu_utilization(50)], 1, 5000);
        let up = rules(vec![
            policy(PolicyType::Pods, 4),
            policy(PolicyType::Percent, 100),
        ]);
        s.hpa.behavior = Some(Behavior {
            scale_up: up.clone(),
            scale_down: up,
        });
        let r = evaluate(&s);
        let limit = step(&r, "rate limit and clamp");
        assert!(
            limit.detail.contains(
                "scaleUp policies: Pods 4 per 15s → 1 + 4 = 5, Percent 100 per 15s → ceil(1 × 2.00) = 2; selectPolicy Max: 10 → 5 (ScaleUpLimit)"
            ),
            "{}",
            limit.detail
        );
        assert_eq!(limit.values["policies"][0]["limit"], 5);
        assert_eq!(limit.values["policies"][1]["limit"], 2);
        // A scale-up of 2 ten seconds ago counts against both policies' period.
        s.memory = Some(ControllerMemory {
            recommendations: vec![],
            scale_up_events: vec![ScaleEvent {
                replica_change: 2,
                timestamp: NOW.sub(Duration::from_secs(10)),
                outdated: false,
            }],
            scale_down_events: vec![],
        });
        s.current_replicas = 3;
        s.pods.truncate(1);
        let r = evaluate(&s);
        let limit = step(&r, "rate limit and clamp");
        assert!(
            limit
                .detail
                .contains("Pods 4 per 15s → (3 − 2 + 0 in the last 15s = 1) + 4 = 5"),
            "{}",
            limit.detail
        );
    }

    #[test]
    fn stabilization_names_the_recommendation_that_holds_and_until_when() {
        let mut s = scenario(vec![cpu_utilization(50)], 6, 200);
        s.memory = Some(recommended(6, 120));
        let r = evaluate(&s);
        let st = step(&r, "stabilization");
        assert!(
            st.detail.contains(
                "max(3, recommendations of the last 300s) = 6; held by the recommendation of 6 from 2m ago, in the window until 2027-01-15T08:03:00Z"
            ),
            "{}",
            st.detail
        );
        assert_eq!(st.values["heldByAgeSeconds"], 120);
    }

    #[test]
    fn an_adapter_value_says_what_it_is() {
        use crate::calc::testing::external;
        let mut s = scenario(
            vec![external("http_requests_per_second", Some(1000), None)],
            2,
            0,
        );
        s.metrics.external.insert(0, vec![866]);
        let r = evaluate(&s);
        assert_eq!(step(&r, "current").detail, "866m = 0.866 per second");
    }

    #[test]
    fn the_recount_writes_out_its_sums() {
        let mut s = scenario(vec![cpu_utilization(50)], 3, 900);
        s.pods.push(crate::calc::testing::pod("missing", 1000));
        let r = evaluate(&s);
        let rc = step(&r, "recount");
        // (2700m + 0m) over (3000m + 1000m) = 67 %: one unit in the sentence.
        assert!(
            rc.detail
                .ends_with("(2700m + 0m) over (3000m + 1000m) = 67%, ratio 67 ÷ 50 = 1.340"),
            "{}",
            rc.detail
        );
        assert_eq!(rc.values["addedRequestMilli"], 1000);
    }
}
