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
use prometheus_client::registry::Registry;

use crate::render::escape::prometheus_label as label;
use crate::report::fleet::AuditReport;
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

/// Every series of one sync, as the text `/metrics` serves; `last_sync` in Unix seconds.
pub fn series(audit: &AuditReport, running: &Running, last_sync: f64) -> String {
    let mut registry = Registry::default();
    let hpa_gauges = [
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
    ]
    .map(|(name, help)| (name, help, Family::<Hpa, Gauge>::default()));
    let metric_gauges = [
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
    ]
    .map(|(name, help)| (name, help, Gauges::<Metric>::default()));
    let causes = Family::<Cause, Gauge>::default();
    for report in &audit.hpas {
        let (namespace, name) = report.hpa.split_once('/').unwrap_or(("", &report.hpa));
        let hpa = Hpa {
            namespace: label(namespace),
            horizontalpodautoscaler: label(name),
        };
        let mismatch = report
            .diagnostics
            .iter()
            .any(|d| d.code == "StatusMismatch");
        let counts = [
            report.desired_replicas,
            report.current_replicas,
            report.min_replicas,
            report.max_replicas,
            i32::from(mismatch),
        ];
        for ((_, _, family), value) in hpa_gauges.iter().zip(counts) {
            family.get_or_create(&hpa).set(i64::from(value));
        }
        for m in &report.metrics {
            let labels = Metric {
                namespace: hpa.namespace.clone(),
                horizontalpodautoscaler: hpa.horizontalpodautoscaler.clone(),
                metric_name: label(&m.name),
                metric_target_type: target_type(m).to_string(),
            };
            for ((_, _, family), value) in metric_gauges.iter().zip(metric_values(m)) {
                if let Some(v) = value {
                    family.get_or_create(&labels).set(v);
                }
            }
        }
        for d in &report.diagnostics {
            let cause = Cause {
                namespace: hpa.namespace.clone(),
                horizontalpodautoscaler: hpa.horizontalpodautoscaler.clone(),
                code: label(&d.code),
                severity: severity(d.severity).to_string(),
            };
            causes.get_or_create(&cause).set(1);
        }
    }
    for (name, help, family) in hpa_gauges {
        registry.register(name, help, family);
    }
    for (name, help, family) in metric_gauges {
        registry.register(name, help, family);
    }
    registry.register(
        names::DIAGNOSTIC,
        "1 for each named cause hpacalc finds for the HPA",
        causes,
    );
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
        "hpacalc_last_sync_timestamp_seconds",
        "When the last sync ended, in Unix seconds",
        last,
    );
    let mut text = String::new();
    // Writing into a String cannot fail.
    let _ = prometheus_client::encoding::text::encode(&mut text, &registry);
    text
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
