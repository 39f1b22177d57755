//! `hpacalc diff OLD NEW`: what a change to an HPA changes. Statically, the behaviour the
//! controller reads from the spec (bounds, targets, stabilization windows, rate limits,
//! tolerances) and where the count flips at each replica count; with a load, the comparison's
//! figures of both runs, and which of them got worse by the `--fail-on` rules.

use schemars::JsonSchema;
use serde::Serialize;

use crate::calc::metrics::{metric_name, readable};
use crate::calc::normalize::scale_down_window;
use crate::calc::reconcile::{VersionRules, tolerances_for_hpa};
use crate::calc::simulate::compare::Figures;
use crate::quantity::build_quantity;
use crate::report::SCHEMA_VERSION;
use crate::scenario::{
    ControllerConfig, HpaSpec, MetricSpec, PolicyType, ScalingRules, SelectPolicy, TargetType,
};

/// Every HPA of either side, by `namespace/name`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DiffReport {
    pub schema_version: u32,
    pub hpas: Vec<HpaDiff>,
    /// What got worse by `--fail-on`, over every HPA.
    pub worse: Vec<Worse>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HpaDiff {
    /// `namespace/name`.
    pub hpa: String,
    /// `changed`, `unchanged`, `added` or `removed`.
    pub status: String,
    /// The behaviour that differs, field by field (empty when unchanged).
    pub changes: Vec<FieldChange>,
    /// The first metric's hold band at each replica count where the two differ; empty when
    /// the first metric is not a Utilization target on both sides.
    pub flips: Vec<FlipRow>,
    /// The figures of a run of each on the given load; null without one.
    pub old_figures: Option<Figures>,
    pub new_figures: Option<Figures>,
    /// One sync of each on the given capture (`--pods`); null without one.
    pub old_decision: Option<SyncDecision>,
    pub new_decision: Option<SyncDecision>,
}

/// What one side decides on the capture: the report's count and its one-line summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SyncDecision {
    pub current_replicas: i32,
    pub desired_replicas: i32,
    /// `decision.summary` of the report.
    pub summary: String,
}

impl SyncDecision {
    /// The part of a report a diff shows.
    pub fn of(report: &crate::report::Report) -> SyncDecision {
        SyncDecision {
            current_replicas: report.current_replicas,
            desired_replicas: report.desired_replicas,
            summary: report.decision.summary.clone(),
        }
    }
}

/// One field of the behaviour, as the controller reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FieldChange {
    pub field: String,
    pub old: String,
    pub new: String,
}

/// At `replicas` ready pods, the first metric's values (percent) that keep the count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FlipRow {
    pub replicas: i32,
    /// `42%–55%`; `-` where that side's bounds exclude the count.
    pub old: String,
    pub new: String,
}

/// One `--fail-on` rule that a changed HPA breaks.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Worse {
    pub hpa: String,
    /// The rule as given: `flapping`, `unserved-load`, `pod-hours>10%`.
    pub rule: String,
    /// What changed: `direction changes 1 → 3`.
    pub detail: String,
}

/// A `--fail-on` rule: what must not get worse.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rule {
    /// More unserved load × s.
    UnservedLoad,
    /// More direction changes.
    Flapping,
    /// More scale events.
    ScaleEvents,
    /// Pod-hours up by more than this percent.
    PodHours(f64),
    /// Time above target up by more than this percent.
    TimeAboveTarget(f64),
}

impl Rule {
    /// What got worse from `old` to `new` by this rule; `None` when nothing did.
    pub fn worse(self, old: &Figures, new: &Figures) -> Option<String> {
        let more = |a: f64, b: f64, percent: f64| b > a * (1.0 + percent / 100.0) && b > a;
        match self {
            Rule::UnservedLoad => {
                let (a, b) = (
                    old.unserved_load_seconds.unwrap_or(0.0),
                    new.unserved_load_seconds.unwrap_or(0.0),
                );
                (b > a).then(|| format!("unserved load × s {} → {}", round(a), round(b)))
            }
            Rule::Flapping => (new.direction_changes > old.direction_changes).then(|| {
                format!(
                    "direction changes {} → {}",
                    old.direction_changes, new.direction_changes
                )
            }),
            Rule::ScaleEvents => (new.scale_events > old.scale_events)
                .then(|| format!("scale events {} → {}", old.scale_events, new.scale_events)),
            Rule::PodHours(p) => more(old.pod_hours, new.pod_hours, p)
                .then(|| format!("pod-hours {} → {}", old.pod_hours, new.pod_hours)),
            Rule::TimeAboveTarget(p) => {
                let (a, b) = (old.seconds_above_target, new.seconds_above_target);
                more(seconds(a), seconds(b), p).then(|| format!("seconds above target {a} → {b}"))
            }
        }
    }
}

/// Three decimals, as the figures' table prints them.
fn round(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

// Seconds of a run are far below 2^53: exact.
#[allow(clippy::cast_precision_loss)]
fn seconds(s: i64) -> f64 {
    s as f64
}

impl DiffReport {
    /// The report of this schema version.
    pub fn new(hpas: Vec<HpaDiff>, worse: Vec<Worse>) -> DiffReport {
        DiffReport {
            schema_version: SCHEMA_VERSION,
            hpas,
            worse,
        }
    }
}

/// The behaviour the controller reads from a spec, field by field, in a fixed order: the
/// bounds, each metric's target, then per direction the stabilization window, the rate limit
/// and the tolerance, under the controller's flags.
pub fn behaviour(spec: &HpaSpec, config: &ControllerConfig) -> Vec<(String, String)> {
    let flag_window = config.downscale_stabilization_window;
    let mut out = vec![
        ("minReplicas".to_string(), spec.min_replicas.to_string()),
        ("maxReplicas".to_string(), spec.max_replicas.to_string()),
    ];
    for (i, m) in spec.metrics.iter().enumerate() {
        out.push((format!("metrics[{i}]"), metric_text(m)));
    }
    let t = tolerances_for_hpa(spec, config.tolerance, &VersionRules::for_config(config));
    match &spec.behavior {
        None => {
            out.push(("scaleUp.window".into(), "0s".into()));
            out.push((
                "scaleUp.rateLimit".into(),
                "max(2 × current, 4) (no behavior)".into(),
            ));
            out.push((
                "scaleDown.window".into(),
                format!("{}s (the flag)", flag_window.millis() / 1000),
            ));
            out.push(("scaleDown.rateLimit".into(), "none (no behavior)".into()));
        }
        Some(b) => {
            let up = b.scale_up.stabilization_window_seconds.unwrap_or(0);
            out.push(("scaleUp.window".into(), format!("{up}s")));
            out.push(("scaleUp.rateLimit".into(), rate_text(&b.scale_up)));
            let down = scale_down_window(b, flag_window);
            out.push(("scaleDown.window".into(), format!("{down}s")));
            out.push(("scaleDown.rateLimit".into(), rate_text(&b.scale_down)));
        }
    }
    out.push(("scaleUp.tolerance".into(), t.scale_up.to_string()));
    out.push(("scaleDown.tolerance".into(), t.scale_down.to_string()));
    out
}

/// The fields whose values differ, in `behaviour`'s order (a field on one side only is `-` on
/// the other).
pub fn field_changes(old: &[(String, String)], new: &[(String, String)]) -> Vec<FieldChange> {
    let mut fields: Vec<&str> = old.iter().map(|(f, _)| f.as_str()).collect();
    for (f, _) in new {
        if !fields.contains(&f.as_str()) {
            fields.push(f);
        }
    }
    let get = |list: &[(String, String)], f: &str| {
        list.iter()
            .find(|(k, _)| k == f)
            .map_or_else(|| "-".to_string(), |(_, v)| v.clone())
    };
    fields
        .into_iter()
        .filter_map(|f| {
            let (a, b) = (get(old, f), get(new, f));
            (a != b).then(|| FieldChange {
                field: f.to_string(),
                old: a,
                new: b,
            })
        })
        .collect()
}

/// The values a hold band keeps the count over: `42%–55%`, `42% and above`; `?` without one.
pub fn band_text(band: Option<&crate::report::HoldBand>) -> String {
    match band {
        None => "?".to_string(),
        Some(b) => match &b.high {
            Some(high) => format!("{}–{high}", b.low),
            None => format!("{} and above", b.low),
        },
    }
}

/// A metric and its target as Kubernetes prints them: `cpu resource utilization (percentage of
/// request) 50%`.
fn metric_text(m: &MetricSpec) -> String {
    let t = m.target();
    let resource = match m {
        MetricSpec::Resource { resource, .. } => resource.as_str(),
        _ => "",
    };
    let target = match (t.target_type, t.average_utilization) {
        (TargetType::Utilization, Some(u)) => format!("{u}%"),
        _ => t
            .average_value_milli
            .or(t.value_milli)
            .map_or_else(String::new, |v| build_quantity(resource, v)),
    };
    // The name as a person reads it: a selector as `{app=web}`, none without one (`queue`, not
    // the controller's `queue(nil)`).
    format!("{} {target}", readable(&metric_name(m)))
}

/// A direction's rate policies: `Pods 4 per 15s, Percent 100 per 15s (Max)`.
fn rate_text(rules: &ScalingRules) -> String {
    if rules.select_policy == SelectPolicy::Disabled {
        return "disabled".to_string();
    }
    let policies: Vec<String> = (rules.policies.iter())
        .map(|p| {
            let kind = match p.policy_type {
                PolicyType::Pods => "Pods",
                PolicyType::Percent => "Percent",
            };
            format!("{kind} {} per {}s", p.value, p.period_seconds)
        })
        .collect();
    let select = match rules.select_policy {
        SelectPolicy::Max => "Max",
        SelectPolicy::Min => "Min",
        SelectPolicy::Disabled => "Disabled",
    };
    if policies.len() > 1 {
        format!("{} ({select})", policies.join(", "))
    } else {
        policies.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::testing;
    use crate::scenario::{Behavior, ScalingPolicy};

    fn figures(pod_hours: f64, direction_changes: usize, unserved: Option<f64>) -> Figures {
        Figures {
            pod_seconds: 0,
            pod_hours,
            node_hours: None,
            node_cost: None,
            seconds_above_target: 100,
            unserved_load_seconds: unserved,
            peak_unserved_load: None,
            scale_events: direction_changes + 1,
            direction_changes,
            peak_replicas: 4,
            first_scale_up_seconds: None,
            time_to_peak_seconds: None,
        }
    }

    #[test]
    fn each_rule_says_what_got_worse() {
        let old = figures(10.0, 1, None);
        let new = figures(11.5, 3, Some(2.5));
        assert_eq!(
            Rule::Flapping.worse(&old, &new).as_deref(),
            Some("direction changes 1 → 3")
        );
        assert_eq!(
            Rule::UnservedLoad.worse(&old, &new).as_deref(),
            Some("unserved load × s 0 → 2.5")
        );
        // 15 % more pod-hours: worse by 10 %, not by 20 %.
        assert!(Rule::PodHours(10.0).worse(&old, &new).is_some());
        assert!(Rule::PodHours(20.0).worse(&old, &new).is_none());
        assert!(Rule::ScaleEvents.worse(&old, &new).is_some());
        assert!(Rule::TimeAboveTarget(0.0).worse(&old, &new).is_none());
        // Better is never worse.
        assert!(Rule::Flapping.worse(&new, &old).is_none());
        assert!(Rule::UnservedLoad.worse(&new, &old).is_none());
    }

    #[test]
    fn a_metric_without_a_selector_is_named_without_one() {
        let spec = testing::scenario(vec![testing::external("queue", Some(30_000), None)], 0, 0);
        let b = behaviour(&spec.hpa, &ControllerConfig::default());
        let metric = &b.iter().find(|(k, _)| k == "metrics[0]").unwrap().1;
        assert_eq!(metric, "external metric queue 30");
    }

    #[test]
    fn the_behaviour_names_the_legacy_path_and_each_policy() {
        let mut spec = testing::scenario(vec![testing::cpu_utilization(50)], 0, 0).hpa;
        spec.behavior = None;
        let config = ControllerConfig::default();
        let legacy = behaviour(&spec, &config);
        let get = |b: &[(String, String)], f: &str| {
            b.iter()
                .find(|(k, _)| k == f)
                .map(|(_, v)| v.clone())
                .unwrap()
        };
        assert_eq!(get(&legacy, "scaleDown.window"), "300s (the flag)");
        assert_eq!(
            get(&legacy, "metrics[0]"),
            "cpu resource utilization (percentage of request) 50%"
        );
        let policy = |policy_type, value, period_seconds| ScalingPolicy {
            policy_type,
            value,
            period_seconds,
        };
        spec.behavior = Some(Behavior {
            scale_up: ScalingRules {
                stabilization_window_seconds: Some(0),
                select_policy: SelectPolicy::Max,
                policies: vec![
                    policy(PolicyType::Pods, 4, 15),
                    policy(PolicyType::Percent, 100, 15),
                ],
                tolerance: Some(0.05),
            },
            scale_down: ScalingRules {
                stabilization_window_seconds: Some(600),
                select_policy: SelectPolicy::Max,
                policies: vec![policy(PolicyType::Pods, 1, 60)],
                tolerance: None,
            },
        });
        let tight = behaviour(&spec, &config);
        assert_eq!(
            get(&tight, "scaleUp.rateLimit"),
            "Pods 4 per 15s, Percent 100 per 15s (Max)"
        );
        assert_eq!(get(&tight, "scaleDown.rateLimit"), "Pods 1 per 60s");
        assert_eq!(get(&tight, "scaleUp.tolerance"), "0.05");
        let changes = field_changes(&legacy, &tight);
        let fields: Vec<&str> = changes.iter().map(|c| c.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "scaleUp.rateLimit",
                "scaleDown.window",
                "scaleDown.rateLimit",
                "scaleUp.tolerance"
            ]
        );
        // Before 1.33 the HPA's own tolerance is not read.
        let old = ControllerConfig {
            kube_minor: 32,
            ..ControllerConfig::default()
        };
        let off = behaviour(&spec, &old);
        assert_eq!(get(&off, "scaleUp.tolerance"), "0.1");
        assert!(field_changes(&tight, &tight).is_empty());
    }
}
