//! The Prometheus series of a fleet's sync (`hpacalc serve`'s `/metrics`), in the text format
//! through `prometheus-client`. The label names join with kube-state-metrics': `namespace`,
//! `horizontalpodautoscaler`, and per metric `metric_name` and `metric_target_type` (`value`,
//! `average`, `utilization`, as kube-state-metrics spells them). Every value is read off the
//! reports the sync computed; none is computed here. Every label value is escaped as the
//! exposition format says (`render::escape::prometheus_label`) before prometheus-client, which
//! writes them as they are, sees it: a name from the cluster cannot end its label or its line.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::metrics::info::Info;
use prometheus_client::registry::Registry;

use std::fmt::Write as _;

use crate::render::escape::prometheus_label as label;
use crate::report::fleet::{AuditReport, Finding};
use crate::report::{BandValue, MetricReport, Report, Severity};

/// The series' names, which `hpacalc rules` writes its expressions with.
pub mod names {
    pub const DESIRED_REPLICAS: &str = "hpacalc_desired_replicas";
    pub const CURRENT_REPLICAS: &str = "hpacalc_current_replicas";
    pub const MIN_REPLICAS: &str = "hpacalc_min_replicas";
    pub const MAX_REPLICAS: &str = "hpacalc_max_replicas";
    pub const STATUS_MISMATCH: &str = "hpacalc_status_mismatch";
    pub const METRIC_VALUE: &str = "hpacalc_metric_value";
    pub const METRIC_TARGET: &str = "hpacalc_metric_target";
    pub const SCALE_UP_AT: &str = "hpacalc_scale_up_at";
    pub const SCALE_DOWN_AT: &str = "hpacalc_scale_down_at";
    pub const DIAGNOSTIC: &str = "hpacalc_diagnostic";
    pub const FINDING: &str = "hpacalc_finding";
    pub const CONDITION: &str = "hpacalc_condition";
    pub const PROPOSED_REPLICAS: &str = "hpacalc_proposed_replicas";
    pub const STABILIZED_REPLICAS: &str = "hpacalc_stabilized_replicas";
    pub const LAST_SYNC: &str = "hpacalc_last_sync_timestamp_seconds";
    pub const BUILD_INFO: &str = "hpacalc_build_info";
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Hpa {
    namespace: String,
    horizontalpodautoscaler: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Metric {
    namespace: String,
    horizontalpodautoscaler: String,
    metric_name: String,
    metric_target_type: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ConditionLabels {
    namespace: String,
    horizontalpodautoscaler: String,
    condition: String,
    status: String,
    reason: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Cause {
    namespace: String,
    horizontalpodautoscaler: String,
    code: String,
    severity: String,
}

/// The series that outlive one sync: counted and timed over the server's life.
#[derive(Clone)]
pub struct Running {
    pub evaluation_errors: Counter,
    pub sync_duration: Histogram,
}

impl Default for Running {
    fn default() -> Self {
        let buckets = [0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];
        Running {
            evaluation_errors: Counter::default(),
            sync_duration: Histogram::new(buckets),
        }
    }
}

type Gauges<L> = Family<L, Gauge<f64, std::sync::atomic::AtomicU64>>;

/// The gauges of one HPA, each with its name and help.
const HPA_GAUGES: [(&str, &str); 7] = [
    (
        names::DESIRED_REPLICAS,
        "The replica count hpacalc computes for the next sync",
    ),
    (
        names::CURRENT_REPLICAS,
        "The replica count the target has now",
    ),
    (names::MIN_REPLICAS, "spec.minReplicas"),
    (names::MAX_REPLICAS, "spec.maxReplicas"),
    (
        names::STATUS_MISMATCH,
        "1 when the HPA's status contradicts the computation on the same inputs",
    ),
    (
        names::PROPOSED_REPLICAS,
        "The count the metrics propose this sync, before the stabilization window",
    ),
    (
        names::STABILIZED_REPLICAS,
        "The count after the stabilization window, before the rate limits and the bounds",
    ),
];

/// The gauges of one metric of an HPA.
const METRIC_GAUGES: [(&str, &str); 4] = [
    (
        names::METRIC_VALUE,
        "The metric's current value (percent for utilization)",
    ),
    (
        names::METRIC_TARGET,
        "The metric's target (percent for utilization)",
    ),
    (
        names::SCALE_UP_AT,
        "The metric value from which the count goes up",
    ),
    (
        names::SCALE_DOWN_AT,
        "The metric value at or below which the count goes down",
    ),
];

/// The families of one sync's reports, filled from the audit.
struct Families {
    hpa: [Family<Hpa, Gauge>; 7],
    metric: [Gauges<Metric>; 4],
    diagnostics: Family<Cause, Gauge>,
    findings: Family<Cause, Gauge>,
    conditions: Family<ConditionLabels, Gauge>,
}

impl Families {
    fn new() -> Families {
        Families {
            hpa: std::array::from_fn(|_| Family::default()),
            metric: std::array::from_fn(|_| Family::default()),
            diagnostics: Family::default(),
            findings: Family::default(),
            conditions: Family::default(),
        }
    }

    /// One HPA's report: its counts, its metrics, its causes and its conditions.
    fn report(&self, report: &Report) {
        let hpa = hpa_labels(&report.hpa);
        let mismatch = report
            .diagnostics
            .iter()
            .any(|d| d.code == "StatusMismatch");
        let counts = [
            Some(report.desired_replicas),
            Some(report.current_replicas),
            Some(report.min_replicas),
            Some(report.max_replicas),
            Some(i32::from(mismatch)),
            report.decision.metric_proposal,
            report.decision.stabilized_replicas,
        ];
        for (family, value) in self.hpa.iter().zip(counts) {
            if let Some(value) = value {
                family.get_or_create(&hpa).set(i64::from(value));
            }
        }
        for m in &report.metrics {
            let labels = Metric {
                namespace: hpa.namespace.clone(),
                horizontalpodautoscaler: hpa.horizontalpodautoscaler.clone(),
                metric_name: label(&m.name),
                metric_target_type: target_type(m).to_string(),
            };
            for (family, value) in self.metric.iter().zip(metric_values(m)) {
                if let Some(v) = value {
                    family.get_or_create(&labels).set(v);
                }
            }
        }
        for d in &report.diagnostics {
            let cause = cause(&hpa, &d.code, d.severity);
            if d.severity != Severity::Info {
                self.findings.get_or_create(&cause).set(1);
            }
            self.diagnostics.get_or_create(&cause).set(1);
        }
        for c in &report.conditions {
            let labels = ConditionLabels {
                namespace: hpa.namespace.clone(),
                horizontalpodautoscaler: hpa.horizontalpodautoscaler.clone(),
                condition: label(&c.condition_type),
                status: label(&c.status),
                reason: label(&c.reason),
            };
            self.conditions.get_or_create(&labels).set(1);
        }
    }

    /// The audit's findings of warning or error severity (an HPA that could not be evaluated has
    /// only these); one about the inputs as a whole has empty HPA labels.
    fn findings(&self, findings: &[Finding]) {
        for f in findings.iter().filter(|f| f.severity != Severity::Info) {
            let hpa = hpa_labels(f.hpa.as_deref().unwrap_or("/"));
            self.findings
                .get_or_create(&cause(&hpa, &f.code, f.severity))
                .set(1);
        }
    }

    fn register(self, registry: &mut Registry) {
        for ((name, help), family) in HPA_GAUGES.into_iter().zip(self.hpa) {
            registry.register(name, help, family);
        }
        for ((name, help), family) in METRIC_GAUGES.into_iter().zip(self.metric) {
            registry.register(name, help, family);
        }
        registry.register(
            names::DIAGNOSTIC,
            "1 for each named cause hpacalc finds for the HPA",
            self.diagnostics,
        );
        registry.register(
            names::FINDING,
            "1 for each audit finding and diagnostic of warning or error severity",
            self.findings,
        );
        registry.register(
            names::CONDITION,
            "1 for each condition hpacalc computes for the HPA, with its status and reason",
            self.conditions,
        );
    }
}

fn hpa_labels(key: &str) -> Hpa {
    let (namespace, name) = key.split_once('/').unwrap_or(("", key));
    Hpa {
        namespace: label(namespace),
        horizontalpodautoscaler: label(name),
    }
}

fn cause(hpa: &Hpa, code: &str, s: Severity) -> Cause {
    Cause {
        namespace: hpa.namespace.clone(),
        horizontalpodautoscaler: hpa.horizontalpodautoscaler.clone(),
        code: label(code),
        severity: severity(s).to_string(),
    }
}

/// The version and the git revision this binary was built from (build.rs).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
pub const REVISION: &str = env!("HPACALC_REVISION");

/// Every series of one sync, as OpenMetrics text (`text_format` gives the 0.0.4 text);
/// `last_sync` in Unix seconds.
pub fn series(audit: &AuditReport, running: &Running, last_sync: f64) -> String {
    let mut registry = Registry::default();
    let families = Families::new();
    for report in &audit.hpas {
        families.report(report);
    }
    families.findings(&audit.findings);
    families.register(&mut registry);
    registry.register(
        "hpacalc_evaluation_errors",
        "Syncs or HPAs whose evaluation failed",
        running.evaluation_errors.clone(),
    );
    registry.register(
        "hpacalc_sync_duration_seconds",
        "How long each sync took: reading what changes at every sync and evaluating every HPA",
        running.sync_duration.clone(),
    );
    let last = Gauge::<f64, std::sync::atomic::AtomicU64>::default();
    last.set(last_sync);
    registry.register(
        names::LAST_SYNC,
        "When the last sync ended, in Unix seconds",
        last,
    );
    registry.register(
        "hpacalc_build",
        "The version of hpacalc serving, and the git revision it was built from",
        Info::new(vec![
            ("version".to_string(), label(VERSION)),
            ("revision".to_string(), label(REVISION)),
        ]),
    );
    let mut text = String::new();
    // Writing into a String cannot fail.
    let _ = prometheus_client::encoding::text::encode(&mut text, &registry);
    text
}

/// The OpenMetrics text of `series` in Prometheus' text format 0.0.4, which has no `# EOF`, no
/// `# UNIT`, no `info` type, and names a counter's family by its sample (`_total`): the
/// families' HELP and TYPE lines renamed as their samples are named, the samples as they are
/// (both formats escape a label value alike).
pub fn text_format(openmetrics: &str) -> String {
    let mut types: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    for line in openmetrics.lines() {
        if let Some((name, kind)) = line.strip_prefix("# TYPE ").and_then(|l| l.split_once(' ')) {
            types.insert(name, kind);
        }
    }
    let renamed = |name: &str| match types.get(name).copied() {
        Some("counter") => (format!("{name}_total"), "counter"),
        Some("info") => (format!("{name}_info"), "gauge"),
        Some(kind) => (name.to_string(), kind),
        None => (name.to_string(), "untyped"),
    };
    let mut out = String::with_capacity(openmetrics.len());
    for line in openmetrics.lines() {
        if line == "# EOF" || line.starts_with("# UNIT ") {
            continue;
        }
        if let Some((name, help)) = line.strip_prefix("# HELP ").and_then(|l| l.split_once(' ')) {
            let _ = writeln!(out, "# HELP {} {help}", renamed(name).0);
        } else if let Some((name, _)) = line.strip_prefix("# TYPE ").and_then(|l| l.split_once(' '))
        {
            let (name, kind) = renamed(name);
            let _ = writeln!(out, "# TYPE {name} {kind}");
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// kube-state-metrics' `metric_target_type`.
fn target_type(m: &MetricReport) -> &'static str {
    match m.target.target_type.as_str() {
        "Utilization" => "utilization",
        "AverageValue" => "average",
        _ => "value",
    }
}

/// (value, target, scale up at, scale down at) of a metric, in base units.
pub(crate) fn metric_values(m: &MetricReport) -> [Option<f64>; 4] {
    let t = &m.target;
    let (value, target) = match t.target_type.as_str() {
        "Utilization" => (
            m.current_utilization.map(f64::from),
            t.average_utilization.map(f64::from),
        ),
        "AverageValue" => (
            quantity(m.current_average_value.as_deref()),
            quantity(t.average_value.as_deref()),
        ),
        _ => (
            quantity(m.current_value.as_deref()),
            quantity(t.value.as_deref()),
        ),
    };
    let band = m.hold_band.as_ref();
    let edge = |e: Option<&crate::report::BandEdge>| e.and_then(|e| band_value(&e.value));
    [
        value,
        target,
        edge(band.and_then(|b| b.above.as_ref())),
        edge(band.and_then(|b| b.below.as_ref())),
    ]
}

fn band_value(v: &BandValue) -> Option<f64> {
    match v {
        #[allow(clippy::cast_precision_loss, reason = "a percent")]
        BandValue::Percent(p) => Some(*p as f64),
        BandValue::Quantity(q) => quantity(Some(q)),
    }
}

/// A quantity in base units (`537m` is 0.537).
fn quantity(text: Option<&str>) -> Option<f64> {
    let milli = crate::quantity::parse_milli(text?).ok()?;
    #[allow(clippy::cast_precision_loss, reason = "an exported gauge")]
    Some(milli as f64 / 1000.0)
}

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Info => "info",
        Severity::Warning => "warning",
        Severity::Error => "error",
    }
}

/// The summary line of each HPA, for `/api/v1/hpas`.
pub fn summary(report: &Report) -> serde_json::Value {
    serde_json::json!({
        "hpa": report.hpa,
        "target": report.target,
        "currentReplicas": report.current_replicas,
        "desiredReplicas": report.desired_replicas,
        "summary": report.decision.summary,
        "diagnostics": report.diagnostics.iter().map(|d| &d.code).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_0_0_4_text_names_counters_and_info_by_their_samples_and_has_no_eof() {
        let running = Running::default();
        running.evaluation_errors.inc();
        let audit = AuditReport {
            schema_version: 1,
            summary: crate::report::fleet::AuditSummary {
                hpas: 0,
                scaling_up: 0,
                scaling_down: 0,
                at_max: 0,
                failing: 0,
                findings_by_severity: crate::report::fleet::SeverityCounts::default(),
            },
            hpas: Vec::new(),
            unevaluated: Vec::new(),
            findings: vec![
                Finding {
                    code: "TargetMissing".into(),
                    severity: Severity::Error,
                    hpa: Some("shop/we\"b".into()),
                    objects: Vec::new(),
                    message: String::new(),
                    fix: String::new(),
                },
                Finding {
                    code: "Quiet".into(),
                    severity: Severity::Info,
                    hpa: Some("shop/web".into()),
                    objects: Vec::new(),
                    message: String::new(),
                    fix: String::new(),
                },
            ],
        };
        let open = series(&audit, &running, 1.5);
        assert!(open.ends_with("# EOF\n"), "{open}");
        assert!(open.contains("# TYPE hpacalc_evaluation_errors counter\n"));
        assert!(open.contains("# TYPE hpacalc_build info\n"));
        let text = text_format(&open);
        assert!(!text.contains("# EOF"), "{text}");
        for line in [
            "# HELP hpacalc_evaluation_errors_total Syncs or HPAs whose evaluation failed.",
            "# TYPE hpacalc_evaluation_errors_total counter",
            "hpacalc_evaluation_errors_total 1",
            "# TYPE hpacalc_build_info gauge",
            "# TYPE hpacalc_last_sync_timestamp_seconds gauge",
            "hpacalc_last_sync_timestamp_seconds 1.5",
            "# TYPE hpacalc_sync_duration_seconds histogram",
            // A finding of an HPA with no report, its name escaped; an info one is left out.
            "hpacalc_finding{namespace=\"shop\",horizontalpodautoscaler=\"we\\\"b\",\
             code=\"TargetMissing\",severity=\"error\"} 1",
        ] {
            assert!(text.lines().any(|l| l == line), "{line}\n{text}");
        }
        assert!(!text.contains("Quiet"), "{text}");
        let build =
            format!("hpacalc_build_info{{version=\"{VERSION}\",revision=\"{REVISION}\"}} 1");
        assert!(text.lines().any(|l| l == build), "{text}");
        // The samples are the same lines in both.
        let samples = |t: &str| -> Vec<String> {
            (t.lines().filter(|l| !l.starts_with('#')))
                .map(String::from)
                .collect()
        };
        assert_eq!(samples(&open), samples(&text));
    }
}
