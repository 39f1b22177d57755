//! The custom metrics API's `MetricValueList` (`kubectl get --raw
//! /apis/custom.metrics.k8s.io/v1beta1/...`, `metricName`, or v1beta2's `metric.name`) and the
//! external metrics API's `ExternalMetricValueList` (`/apis/external.metrics.k8s.io/...`), matched
//! to the HPA's metrics by name.
//!
//! - A `MetricValue` whose `describedObject` is a Pod is a value of a `Pods` metric (the
//!   controller's `GetRawMetric`: keyed by pod name, window `windowSeconds` or one minute).
//! - Any other `describedObject` is the value of the `Object` metric with that metric name whose
//!   `describedObject` has the same kind and name (`GetObjectMetric`).
//! - Every `ExternalMetricValue` with the metric's name is one entry of the list the controller
//!   sums (`GetExternalMetric`). The API applied the metric selector when it answered; an item
//!   that carries `metricLabels` is kept only if they match the selector's `matchLabels`.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};

use serde::Deserialize;

use super::{Format, Labels, Milli, Scope, Time, decode, name_list};
use crate::error::InputError;
use crate::scenario::{MetricIdentifier, MetricSpec, ObjectReference, PodMetricValue};
use crate::time::{Duration, Timestamp};

/// The custom metrics API's default window when a value has no `windowSeconds`.
const CUSTOM_METRIC_WINDOW: Duration = Duration::from_secs(60);

/// One value of a `MetricValueList`.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomValue {
    pub path: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    pub metric: String,
    /// The metric selector's `matchLabels` the API answered for (v1beta1 `selector`, v1beta2
    /// `metric.selector`), if the item says.
    pub selector: Option<BTreeMap<String, String>>,
    pub value_milli: i64,
    pub timestamp: Option<Timestamp>,
    pub window: Option<Duration>,
}

/// One value of an `ExternalMetricValueList`.
#[derive(Debug, Clone, PartialEq)]
pub struct ExternalValue {
    pub metric: String,
    pub labels: Vec<(String, String)>,
    pub value_milli: i64,
    pub timestamp: Option<Timestamp>,
}

/// What the files give, matched to the HPA's metrics.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FileValues {
    /// Pods values, keyed by the metric's position in `spec.metrics`.
    pub pods: BTreeMap<usize, Vec<PodMetricValue>>,
    /// Object and External values, keyed by the metric's position in `spec.metrics`: each entry
    /// reads its own answer, as `computeReplicasForMetrics` asks once per entry.
    pub object: BTreeMap<usize, i64>,
    pub external: BTreeMap<usize, Vec<i64>>,
    pub notes: Vec<String>,
    pub warnings: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CustomList<'a> {
    #[serde(borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    items: Option<Vec<RawCustom<'a>>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawCustom<'a> {
    #[serde(borrow, default)]
    described_object: Option<Described<'a>>,
    #[serde(borrow, default)]
    metric_name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    metric: Option<MetricId<'a>>,
    #[serde(borrow, default)]
    selector: Option<Selector<'a>>,
    #[serde(default)]
    value: Option<Milli>,
    #[serde(default)]
    timestamp: Option<Time>,
    #[serde(default)]
    window_seconds: Option<i64>,
}

#[derive(Deserialize)]
struct Described<'a> {
    #[serde(borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    namespace: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct MetricId<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    selector: Option<Selector<'a>>,
}

/// A `metav1.LabelSelector` as the custom metrics API echoes it: its `matchLabels`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Selector<'a> {
    #[serde(borrow, default)]
    match_labels: Option<Labels<'a>>,
}

impl Selector<'_> {
    fn match_labels(self) -> BTreeMap<String, String> {
        (self
            .match_labels
            .map(|l| l.0)
            .unwrap_or_default()
            .into_iter())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ExternalList<'a> {
    #[serde(borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    items: Option<Vec<RawExternal<'a>>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawExternal<'a> {
    #[serde(borrow, default)]
    metric_name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    metric_labels: Option<Labels<'a>>,
    #[serde(default)]
    value: Option<Milli>,
    #[serde(default)]
    timestamp: Option<Time>,
}

fn kind_error(file: &str, kind: Option<&str>, expected: &str) -> InputError {
    let found = match kind {
        Some(k) if !k.is_empty() => format!("kind {k}"),
        _ => "an object without kind or items".to_string(),
    };
    InputError::new(file, format!("found {found}, expected {expected}")).field("kind")
}

fn missing(file: &str, path: &str, what: &str) -> InputError {
    InputError::new(file, format!("found nothing, expected {what}")).field(path.to_string())
}

/// Parses a `MetricValueList` (JSON or YAML).
pub fn parse_custom(
    file: &str,
    text: &str,
    format: Format,
) -> Result<Vec<CustomValue>, InputError> {
    let docs: Vec<CustomList<'_>> = decode(file, text, format)?;
    let mut out = Vec::new();
    for doc in docs {
        let items = match (doc.kind.as_deref(), doc.items) {
            (None | Some("MetricValueList" | "List"), Some(items)) => items,
            (kind, _) => {
                return Err(kind_error(
                    file,
                    kind,
                    "a MetricValueList (kubectl get --raw /apis/custom.metrics.k8s.io/...)",
                ));
            }
        };
        for (i, raw) in items.into_iter().enumerate() {
            let path = format!("items[{i}]");
            let described = raw.described_object.ok_or_else(|| {
                missing(
                    file,
                    &format!("{path}.describedObject"),
                    "the object the value describes",
                )
            })?;
            let name = described.name.filter(|n| !n.is_empty()).ok_or_else(|| {
                missing(
                    file,
                    &format!("{path}.describedObject.name"),
                    "the object's name",
                )
            })?;
            let (id_name, id_selector) = raw.metric.map_or((None, None), |m| (m.name, m.selector));
            let selector = (raw.selector.or(id_selector)).map(Selector::match_labels);
            let metric = raw
                .metric_name
                .or(id_name)
                .filter(|n| !n.is_empty())
                .ok_or_else(|| missing(file, &format!("{path}.metricName"), "the metric's name"))?;
            let value = raw
                .value
                .ok_or_else(|| missing(file, &format!("{path}.value"), "the metric's value"))?;
            let window = match raw.window_seconds {
                Some(s) if s < 0 => {
                    return Err(InputError::new(
                        file,
                        format!("found {s}, expected a window of 0 seconds or more"),
                    )
                    .field(format!("{path}.windowSeconds")));
                }
                Some(s) => Some(Duration::from_secs(s.min(i64::MAX / 1000))),
                None => None,
            };
            out.push(CustomValue {
                path,
                kind: described.kind.map(Cow::into_owned).unwrap_or_default(),
                namespace: described.namespace.map(Cow::into_owned),
                name: name.into_owned(),
                metric: metric.into_owned(),
                selector,
                value_milli: value.0,
                timestamp: raw.timestamp.map(|t| t.0),
                window,
            });
        }
    }
    Ok(out)
}

/// Parses an `ExternalMetricValueList` (JSON or YAML).
pub fn parse_external(
    file: &str,
    text: &str,
    format: Format,
) -> Result<Vec<ExternalValue>, InputError> {
    let docs: Vec<ExternalList<'_>> = decode(file, text, format)?;
    let mut out = Vec::new();
    for doc in docs {
        let items = match (doc.kind.as_deref(), doc.items) {
            (None | Some("ExternalMetricValueList" | "List"), Some(items)) => items,
            (kind, _) => {
                return Err(kind_error(
                    file,
                    kind,
                    "an ExternalMetricValueList (kubectl get --raw /apis/external.metrics.k8s.io/...)",
                ));
            }
        };
        for (i, raw) in items.into_iter().enumerate() {
            let path = format!("items[{i}]");
            let metric = raw
                .metric_name
                .filter(|n| !n.is_empty())
                .ok_or_else(|| missing(file, &format!("{path}.metricName"), "the metric's name"))?;
            let value = raw
                .value
                .ok_or_else(|| missing(file, &format!("{path}.value"), "the metric's value"))?;
            out.push(ExternalValue {
                metric: metric.into_owned(),
                labels: raw
                    .metric_labels
                    .unwrap_or_default()
                    .0
                    .into_iter()
                    .map(|(k, v)| (k.into_owned(), v.into_owned()))
                    .collect(),
                value_milli: value.0,
                timestamp: raw.timestamp.map(|t| t.0),
            });
        }
    }
    Ok(out)
}

/// The newest time among the values.
pub fn newest(custom: &[CustomValue], external: &[ExternalValue]) -> Option<Timestamp> {
    custom
        .iter()
        .filter_map(|v| v.timestamp)
        .chain(external.iter().filter_map(|v| v.timestamp))
        .max()
}

/// Matches the values to the HPA's metrics. Values of pods the selector left out of the pod file
/// and of other namespaces are dropped; a value without a time is taken at `now`.
pub fn match_metrics(
    specs: &[MetricSpec],
    custom: &[CustomValue],
    external: &[ExternalValue],
    scope: &Scope,
    excluded: &HashSet<String>,
    now: Timestamp,
) -> FileValues {
    let mut matcher = Matcher {
        custom,
        scope,
        out: FileValues::default(),
        used: vec![false; custom.len()],
        other_namespaces: Vec::new(),
    };
    for (index, spec) in specs.iter().enumerate() {
        match spec {
            MetricSpec::Pods { metric, .. } => matcher.pods(index, metric, excluded, now),
            MetricSpec::Object {
                described_object,
                metric,
                ..
            } => matcher.object(index, described_object, metric),
            MetricSpec::External { metric, .. } => matcher.external(index, external, metric),
            MetricSpec::Resource { .. } => {}
        }
    }
    let unlabelled = |name: &str| {
        (custom.iter()).any(|v| v.kind == "Pod" && v.metric == name && v.selector.is_none())
    };
    let notes = same_name_pods(specs, &matcher.out.pods, "--custom-metrics", unlabelled);
    matcher.out.notes.extend(notes);
    matcher.finish(specs, external)
}

/// Notes for Pods entries of one name with different metric selectors that read the same
/// values because the source (`what`) does not say which selector a value answers: the
/// controller asks `GetRawMetric` once per entry, with its own selector, and could get
/// different values.
pub fn same_name_pods<T>(
    specs: &[MetricSpec],
    values: &BTreeMap<usize, T>,
    what: &str,
    unlabelled: impl Fn(&str) -> bool,
) -> Vec<String> {
    let pods = |i: usize| match specs.get(i) {
        Some(MetricSpec::Pods { metric, .. }) if values.contains_key(&i) => Some(metric),
        _ => None,
    };
    let mut notes = Vec::new();
    for (i, metric) in (0..specs.len()).filter_map(|i| pods(i).map(|m| (i, m))) {
        let earlier = (0..i)
            .filter_map(pods)
            .any(|m| m.name == metric.name && m.selector != metric.selector);
        if !earlier || !unlabelled(&metric.name) {
            continue;
        }
        notes.push(format!(
            "Pods metric {}: {what} does not say which metric selector its values answer, and \
             spec.metrics has entries of that name with different selectors: each reads the \
             same values (assumed; give each selector's values to tell them apart).",
            metric.name
        ));
    }
    notes.dedup();
    notes
}

/// The values matched so far, and which custom values a metric took.
struct Matcher<'a> {
    custom: &'a [CustomValue],
    scope: &'a Scope,
    out: FileValues,
    /// Per custom value, whether a metric took it.
    used: Vec<bool>,
    other_namespaces: Vec<String>,
}

impl Matcher<'_> {
    /// A `Pods` metric, the entry at `index` of `spec.metrics`: the values of its name and
    /// metric selector described by a pod of the HPA's namespace that the pod selector keeps
    /// (`GetRawMetric`, asked once per entry with that entry's metric selector). A value that
    /// does not say its selector answers every entry of its name.
    fn pods(
        &mut self,
        index: usize,
        metric: &MetricIdentifier,
        excluded: &HashSet<String>,
        now: Timestamp,
    ) {
        let wanted = metric.selector.clone().unwrap_or_default();
        let answers = |v: &CustomValue| {
            v.kind == "Pod"
                && v.metric == metric.name
                && v.selector.as_ref().is_none_or(|s| *s == wanted)
        };
        let mut values = Vec::new();
        let mut left_out = 0usize;
        for (v, flag) in self.custom.iter().zip(self.used.iter_mut()) {
            if !answers(v) {
                continue;
            }
            *flag = true;
            if !self.scope.in_namespace(v.namespace.as_deref()) {
                let ns = v.namespace.clone().unwrap_or_default();
                if !self.other_namespaces.contains(&ns) {
                    self.other_namespaces.push(ns);
                }
                continue;
            }
            if excluded.contains(&v.name) {
                left_out += 1;
                continue;
            }
            values.push(PodMetricValue {
                pod: v.name.clone(),
                value_milli: v.value_milli,
                timestamp: v.timestamp.unwrap_or(now),
                window: v.window.unwrap_or(CUSTOM_METRIC_WINDOW),
            });
        }
        if left_out > 0 {
            self.out.notes.push(format!(
                "Pods metric {}: {left_out} value(s) of pods the selector leaves out were left \
                 out.",
                metric.name
            ));
        }
        // Seen in the files (even if every value was left out): the API's answer.
        if self.custom.iter().any(answers) {
            self.out.pods.insert(index, values);
        }
    }

    /// An `Object` metric: the first value of its name describing its object
    /// (`GetObjectMetric`).
    fn object(&mut self, index: usize, described: &ObjectReference, metric: &MetricIdentifier) {
        let scope = self.scope;
        let mut found = self
            .custom
            .iter()
            .zip(self.used.iter_mut())
            .filter(|(v, _)| {
                v.metric == metric.name
                    && v.kind == described.kind
                    && v.name == described.name
                    && scope.in_namespace(v.namespace.as_deref())
            });
        if let Some((first, flag)) = found.next() {
            *flag = true;
            let more = found.count();
            if more > 0 {
                self.out.warnings.push(format!(
                    "{} values for Object metric {} of {}/{}: the first ({}) is used",
                    more + 1,
                    metric.name,
                    described.kind,
                    described.name,
                    first.path
                ));
            }
            self.out.object.insert(index, first.value_milli);
        }
    }

    /// An `External` metric: every value of its name whose labels, if any, match its selector
    /// (`GetExternalMetric`).
    fn external(&mut self, index: usize, external: &[ExternalValue], metric: &MetricIdentifier) {
        let named: Vec<&ExternalValue> = external
            .iter()
            .filter(|v| v.metric == metric.name)
            .collect();
        if named.is_empty() {
            return;
        }
        let wanted = metric.selector.as_ref();
        let kept: Vec<i64> = named
            .iter()
            .filter(|v| {
                v.labels.is_empty()
                    || wanted.is_none_or(|w| {
                        w.iter()
                            .all(|(k, want)| v.labels.iter().any(|(lk, lv)| lk == k && lv == want))
                    })
            })
            .map(|v| v.value_milli)
            .collect();
        if kept.len() < named.len() {
            self.out.notes.push(format!(
                "External metric {}: {} value(s) whose metricLabels do not match the metric \
                 selector were left out.",
                metric.name,
                named.len() - kept.len()
            ));
        }
        self.out.external.insert(index, kept);
    }

    /// What was left out of other namespaces, and the values no metric took.
    fn finish(mut self, specs: &[MetricSpec], external: &[ExternalValue]) -> FileValues {
        let out = &mut self.out;
        if !self.other_namespaces.is_empty() {
            out.notes.push(format!(
                "Custom metric values of namespace {} were left out (the HPA is in {}).",
                name_list(&self.other_namespaces, 3),
                self.scope.namespace
            ));
        }
        let unused: Vec<String> = (self.custom.iter())
            .zip(&self.used)
            .filter(|(_, used)| !**used)
            .map(|(v, _)| format!("{} of {} {}", v.metric, v.kind, v.name))
            .collect();
        if !unused.is_empty() {
            out.warnings.push(format!(
                "{} custom metric value(s) match no metric of the HPA: {}",
                unused.len(),
                name_list(&unused, 3)
            ));
        }
        let mut external_unused: Vec<&str> = external
            .iter()
            .map(|v| v.metric.as_str())
            .filter(|name| {
                !specs.iter().any(
                    |s| matches!(s, MetricSpec::External { metric, .. } if metric.name == *name),
                )
            })
            .collect();
        external_unused.dedup();
        if !external_unused.is_empty() {
            out.warnings.push(format!(
                "external metric values match no External metric of the HPA: {}",
                name_list(&external_unused, 3)
            ));
        }
        self.out
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{MetricTarget, TargetType};

    fn target() -> MetricTarget {
        MetricTarget {
            target_type: TargetType::AverageValue,
            average_utilization: None,
            average_value_milli: Some(1000),
            value_milli: None,
        }
    }

    fn id(name: &str, selector: Option<(&str, &str)>) -> MetricIdentifier {
        MetricIdentifier {
            name: name.into(),
            selector: selector.map(|(k, v)| [(k.to_string(), v.to_string())].into()),
        }
    }

    fn specs() -> Vec<MetricSpec> {
        vec![
            MetricSpec::Pods {
                metric: id("http_requests_per_second", None),
                target: target(),
            },
            MetricSpec::Object {
                described_object: ObjectReference {
                    api_version: "networking.k8s.io/v1".into(),
                    kind: "Ingress".into(),
                    name: "main".into(),
                },
                metric: id("requests-per-second", None),
                target: target(),
            },
            MetricSpec::External {
                metric: id("queue_messages_ready", Some(("queue", "worker_tasks"))),
                target: target(),
            },
        ]
    }

    fn scope() -> Scope {
        Scope {
            namespace: "shop".into(),
            selector: None,
            selector_is_targets: false,
        }
    }

    const CUSTOM: &str = r#"{"kind":"MetricValueList","apiVersion":"custom.metrics.k8s.io/v1beta1","items":[
      {"describedObject":{"kind":"Pod","namespace":"shop","name":"web-1","apiVersion":"/v1"},"metricName":"http_requests_per_second","timestamp":"2026-11-29T15:00:00Z","windowSeconds":30,"value":"87500m"},
      {"describedObject":{"kind":"Pod","namespace":"shop","name":"web-2","apiVersion":"/v1"},"metric":{"name":"http_requests_per_second"},"timestamp":"2026-11-29T15:00:02Z","value":"120"},
      {"describedObject":{"kind":"Ingress","namespace":"shop","name":"main","apiVersion":"networking.k8s.io/v1"},"metricName":"requests-per-second","timestamp":"2026-11-29T15:00:01Z","value":"2k"},
      {"describedObject":{"kind":"Pod","namespace":"shop","name":"db-0"},"metricName":"connections","value":"3"}
    ]}"#;

    const EXTERNAL: &str = r#"{"kind":"ExternalMetricValueList","apiVersion":"external.metrics.k8s.io/v1beta1","metadata":{},"items":[
      {"metricName":"queue_messages_ready","metricLabels":{"queue":"worker_tasks"},"timestamp":"2026-11-29T15:00:03Z","value":"40"},
      {"metricName":"queue_messages_ready","metricLabels":{"queue":"other"},"timestamp":"2026-11-29T15:00:03Z","value":"1k"},
      {"metricName":"queue_messages_ready","metricLabels":null,"timestamp":"2026-11-29T15:00:03Z","value":"2"}
    ]}"#;

    #[test]
    fn values_are_matched_to_pods_object_and_external_metrics() {
        let custom = parse_custom("c.json", CUSTOM, Format::Json).unwrap();
        let external = parse_external("e.json", EXTERNAL, Format::Json).unwrap();
        assert_eq!(
            newest(&custom, &external),
            Timestamp::parse_rfc3339("2026-11-29T15:00:03Z")
        );
        let now = Timestamp(0);
        let v = match_metrics(&specs(), &custom, &external, &scope(), &HashSet::new(), now);
        let pods = &v.pods[&0];
        assert_eq!(pods.len(), 2);
        assert_eq!(pods[0].value_milli, 87_500);
        assert_eq!(pods[0].window, Duration::from_secs(30));
        assert_eq!(
            pods[1].window, CUSTOM_METRIC_WINDOW,
            "the default window is 1m"
        );
        assert_eq!(
            v.object[&1], 2_000_000,
            "the Object metric, second in spec.metrics"
        );
        assert_eq!(
            v.external[&2],
            vec![40_000, 2000],
            "labelled values must match the selector; unlabelled ones are kept"
        );
        assert!(
            v.warnings[0].contains("connections of Pod db-0"),
            "{:?}",
            v.warnings
        );
    }

    // computeReplicasForMetrics (horizontal.go) asks GetExternalMetric once per spec entry with
    // that entry's selector: two entries of one name each keep their own values.
    #[test]
    fn same_name_external_metrics_with_different_selectors_match_their_own_values() {
        let external = parse_external("e.json", EXTERNAL, Format::Json).unwrap();
        let entry = |queue: &str| MetricSpec::External {
            metric: MetricIdentifier {
                name: "queue_messages_ready".into(),
                selector: Some([("queue".to_string(), queue.to_string())].into()),
            },
            target: target(),
        };
        let specs = [entry("worker_tasks"), entry("other")];
        let v = match_metrics(
            &specs,
            &[],
            &external,
            &scope(),
            &HashSet::new(),
            Timestamp(0),
        );
        assert_eq!(v.external[&0], vec![40_000, 2000]);
        assert_eq!(v.external[&1], vec![1_000_000, 2000]);
    }

    fn pods_entry(selector: &str) -> MetricSpec {
        MetricSpec::Pods {
            metric: id("http_requests", Some(("path", selector))),
            target: target(),
        }
    }

    // computeStatusForPodsMetric (horizontal.go) asks GetRawMetric once per entry with that
    // entry's metric selector: a v1beta2 answer that names its selector (`metric.selector`)
    // goes to the entry with that selector only.
    #[test]
    fn same_name_pods_metrics_take_the_values_answered_for_their_own_selector() {
        const V1BETA2: &str = r#"{"kind":"MetricValueList","items":[
          {"describedObject":{"kind":"Pod","namespace":"shop","name":"web-1"},"metric":{"name":"http_requests","selector":{"matchLabels":{"path":"/api"}}},"timestamp":"2026-11-29T15:00:00Z","value":"30"},
          {"describedObject":{"kind":"Pod","namespace":"shop","name":"web-1"},"metric":{"name":"http_requests","selector":{"matchLabels":{"path":"/static"}}},"timestamp":"2026-11-29T15:00:00Z","value":"5"}
        ]}"#;
        let custom = parse_custom("c.json", V1BETA2, Format::Json).unwrap();
        let specs = [pods_entry("/api"), pods_entry("/static")];
        let v = match_metrics(
            &specs,
            &custom,
            &[],
            &scope(),
            &HashSet::new(),
            Timestamp(0),
        );
        let values = |i: usize| v.pods[&i].iter().map(|p| p.value_milli).collect::<Vec<_>>();
        assert_eq!(values(0), vec![30_000]);
        assert_eq!(values(1), vec![5_000]);
        assert!(v.notes.is_empty(), "{:?}", v.notes);
    }

    // A value that does not say its selector (v1beta1 with no `selector`) cannot be told
    // apart: each entry of its name reads it, and a note says so.
    #[test]
    fn same_name_pods_metrics_share_values_without_a_selector_and_say_so() {
        let custom = parse_custom("c.json", CUSTOM, Format::Json).unwrap();
        let specs = [
            MetricSpec::Pods {
                metric: id("http_requests_per_second", Some(("path", "/api"))),
                target: target(),
            },
            MetricSpec::Pods {
                metric: id("http_requests_per_second", Some(("path", "/static"))),
                target: target(),
            },
        ];
        let v = match_metrics(
            &specs,
            &custom,
            &[],
            &scope(),
            &HashSet::new(),
            Timestamp(0),
        );
        assert_eq!(v.pods[&0], v.pods[&1]);
        assert_eq!(v.pods[&0].len(), 2);
        assert_eq!(v.notes.len(), 1, "{:?}", v.notes);
        assert!(
            v.notes[0].starts_with(
                "Pods metric http_requests_per_second: --custom-metrics does not say which \
                 metric selector"
            ),
            "{}",
            v.notes[0]
        );
    }

    #[test]
    fn values_of_pods_the_selector_leaves_out_are_dropped() {
        let custom = parse_custom("c.json", CUSTOM, Format::Json).unwrap();
        let excluded: HashSet<String> = ["web-2".to_string()].into();
        let v = match_metrics(&specs(), &custom, &[], &scope(), &excluded, Timestamp(0));
        assert_eq!(v.pods[&0].len(), 1);
        assert!(!v.external.contains_key(&2), "absent, not empty");
    }

    #[test]
    fn bad_value_lists_are_errors_naming_the_place() {
        let cases: &[(&str, bool, &str, Option<&str>)] = &[
            (
                r#"{"kind":"PodMetricsList","items":[]}"#,
                false,
                "found kind PodMetricsList, expected a MetricValueList",
                Some("kind"),
            ),
            (
                r#"{"kind":"MetricValueList","items":[{"describedObject":{"name":"a"}}]}"#,
                false,
                "found nothing, expected the metric's name",
                Some("items[0].metricName"),
            ),
            (
                r#"{"items":[{"describedObject":{"name":"a"},"metricName":"m"}]}"#,
                false,
                "found nothing, expected the metric's value",
                Some("items[0].value"),
            ),
            (
                r#"{"items":[{"describedObject":{"name":"a"},"metricName":"m","value":"1","windowSeconds":-1}]}"#,
                false,
                "found -1, expected a window",
                Some("items[0].windowSeconds"),
            ),
            (
                r#"{"kind":"MetricValueList","items":[]}"#,
                true,
                "found kind MetricValueList, expected an ExternalMetricValueList",
                Some("kind"),
            ),
            (
                r#"{"items":[{"metricName":"q","value":"x"}]}"#,
                true,
                "found \"x\", expected a Kubernetes quantity",
                Some("items[0].value"),
            ),
        ];
        for &(text, is_external, message, field) in cases {
            let err = if is_external {
                parse_external("e.json", text, Format::Json).unwrap_err()
            } else {
                parse_custom("c.json", text, Format::Json).unwrap_err()
            };
            assert!(err.message.starts_with(message), "{text}: {err}");
            assert_eq!(err.field.as_deref(), field, "{text}: {err}");
        }
    }
}
