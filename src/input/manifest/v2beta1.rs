//! `autoscaling/v2beta1` (and its older twin `v2alpha1`) → `autoscaling/v2`, as the API server
//! converted them (`pkg/apis/autoscaling/v2beta1/conversion.go`) before they stopped being served
//! (v2beta1 was removed in 1.25).
//!
//! v2beta1 names its targets on the metric source itself (`targetAverageUtilization`,
//! `targetAverageValue`, `targetValue`, `metricName`, `selector`/`metricSelector`, and for Object
//! metrics `target` is the described object): the same shape as the v1 metrics annotation, so the
//! per-metric conversion is shared with `v1.rs`. Half-migrated v2 manifests that still carry
//! these keys are caught by [`v2beta1_keys_in_v2`].

use serde_json::{Map, Value};

use super::documents::{Document, Source};
use super::locate::{FieldPath, Seg};
use super::v1::{BEHAVIOR_ANNOTATION, behavior_from_annotation, current_metric, metric_spec_to_v2};
use super::validate::{FieldError, field_error};
use super::{CurrentMetric, HpaStatus, map, metadata_name, require_spec, validate};
use crate::error::InputError;
use crate::scenario::HpaSpec;
use k8s_openapi::api::autoscaling::v2 as api_v2;

/// The v2beta1 metric source keys, with where v2 keeps the same thing.
const SOURCE_KEYS: &[(&str, &[(&str, &str)])] = &[
    (
        "resource",
        &[
            ("name", "name"),
            (
                "targetAverageUtilization",
                "target: {type: Utilization, averageUtilization: N}",
            ),
            (
                "targetAverageValue",
                "target: {type: AverageValue, averageValue: Q}",
            ),
        ],
    ),
    (
        "containerResource",
        &[
            ("name", "name"),
            ("container", "container"),
            (
                "targetAverageUtilization",
                "target: {type: Utilization, averageUtilization: N}",
            ),
            (
                "targetAverageValue",
                "target: {type: AverageValue, averageValue: Q}",
            ),
        ],
    ),
    (
        "pods",
        &[
            ("metricName", "metric.name"),
            ("selector", "metric.selector"),
            (
                "targetAverageValue",
                "target: {type: AverageValue, averageValue: Q}",
            ),
        ],
    ),
    (
        "object",
        &[
            ("target", "describedObject"),
            ("metricName", "metric.name"),
            ("selector", "metric.selector"),
            ("targetValue", "target: {type: Value, value: Q}"),
            (
                "averageValue",
                "target: {type: AverageValue, averageValue: Q}",
            ),
        ],
    ),
    (
        "external",
        &[
            ("metricName", "metric.name"),
            ("metricSelector", "metric.selector"),
            ("targetValue", "target: {type: Value, value: Q}"),
            (
                "targetAverageValue",
                "target: {type: AverageValue, averageValue: Q}",
            ),
        ],
    ),
];

/// Keys that exist only in v2beta1 (`name`, `container`, and Object's `target` are shared or
/// ambiguous; an Object `target` with a `kind` is the v2beta1 described object).
fn is_v2beta1_only(source: &str, key: &str, value: &Value) -> bool {
    match key {
        "name" | "container" => false,
        "target" => source == "object" && value.get("kind").is_some(),
        "averageValue" => source == "object",
        _ => true,
    }
}

fn present<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.get(key).filter(|x| !x.is_null())
}

/// An `autoscaling/v2` (or v2beta2) spec that still carries v2beta1 metric keys: an error at the
/// first one that names every such key and its v2 spelling.
pub fn v2beta1_keys_in_v2(raw: &Value, api_version: &str) -> Option<FieldError> {
    let metrics = raw.pointer("/spec/metrics").and_then(Value::as_array)?;
    let mut first: Option<FieldPath> = None;
    let mut found = Vec::new();
    for (i, metric) in metrics.iter().enumerate() {
        for (source, keys) in SOURCE_KEYS {
            let Some(block) = present(metric, source) else {
                continue;
            };
            for (key, v2) in *keys {
                if let Some(value) = present(block, key)
                    && is_v2beta1_only(source, key, value)
                {
                    let path = FieldPath::of(&["spec", "metrics"])
                        .index(i)
                        .key(source)
                        .key(key);
                    found.push(format!("{path} (v2: {source}.{v2})"));
                    first.get_or_insert(path);
                }
            }
        }
    }
    let path = first?;
    Some(field_error(
        path,
        format!(
            "found autoscaling/v2beta1 key(s) in an {api_version} manifest: {}; expected the \
             {api_version} spelling (or apiVersion: autoscaling/v2beta1 for the whole file)",
            found.join(", ")
        ),
    ))
}

/// A v2beta1 (or v2alpha1) manifest whose metrics are written the v2 way (`target: {type: ..}`,
/// `metric`, `describedObject`): an error at the first such key, naming the apiVersion to use.
pub fn v2_keys_in_v2beta1(raw: &Value, api_version: &str) -> Option<FieldError> {
    let metrics = raw.pointer("/spec/metrics").and_then(Value::as_array)?;
    for (i, metric) in metrics.iter().enumerate() {
        for (source, _) in SOURCE_KEYS {
            let Some(block) = present(metric, source) else {
                continue;
            };
            let v2_key =
                ["metric", "describedObject", "target"]
                    .into_iter()
                    .find(|k| match present(block, k) {
                        None => false,
                        Some(v) if *k == "target" && *source == "object" => v.get("type").is_some(),
                        Some(_) => true,
                    });
            if let Some(key) = v2_key {
                let path = FieldPath::of(&["spec", "metrics"])
                    .index(i)
                    .key(source)
                    .key(key);
                return Some(field_error(
                    path,
                    format!(
                        "found the autoscaling/v2 key {} in an {api_version} manifest, \
                         expected the {api_version} spelling (targetAverageUtilization, \
                         targetAverageValue, targetValue, metricName) or apiVersion: \
                         autoscaling/v2 for the whole file",
                        crate::error::quoted(key)
                    ),
                ));
            }
        }
    }
    None
}

/// A v2beta1 spec converted to the v2 JSON shape, ready for k8s-openapi's v2 types.
pub struct Converted {
    pub spec: Value,
    /// The behavior came from the behavior annotation.
    pub behavior_from_annotation: bool,
}

// Port of Convert_v2beta1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler and the
// generated autoConvert_v2beta1_HorizontalPodAutoscalerSpec_To_autoscaling_HorizontalPodAutoscalerSpec
// (pkg/apis/autoscaling/v2beta1/conversion.go, zz_generated.conversion.go): each metric source
// converts as the v1 annotation's do, and the behavior comes from the behavior annotation when it
// decodes to a non-zero value.
pub fn convert_spec(raw_spec: &Value, annotations: Option<&Map<String, Value>>) -> Converted {
    let mut spec = Map::new();
    for key in ["scaleTargetRef", "minReplicas", "maxReplicas"] {
        if let Some(v) = present(raw_spec, key) {
            spec.insert(key.to_string(), v.clone());
        }
    }
    if let Some(metrics) = present(raw_spec, "metrics").and_then(Value::as_array) {
        let converted: Vec<Value> = metrics.iter().map(metric_spec_to_v2).collect();
        spec.insert("metrics".to_string(), Value::Array(converted));
    }
    let behavior = annotations
        .and_then(|a| a.get(BEHAVIOR_ANNOTATION))
        .and_then(Value::as_str)
        .and_then(behavior_from_annotation);
    let behavior_from_annotation = behavior.is_some();
    if let Some(b) = behavior
        && let Ok(v) = serde_json::to_value(b)
    {
        spec.insert("behavior".to_string(), v);
    }
    Converted {
        spec: Value::Object(spec),
        behavior_from_annotation,
    }
}

/// Maps a path in the converted v2 spec back to the v2beta1 key that held the value.
pub fn source_path(path: &FieldPath, behavior_from_annotation: bool) -> FieldPath {
    let metrics = FieldPath::of(&["spec", "metrics"]);
    if let Some(rest) = path.strip_prefix(&metrics) {
        let mut segs = rest.0.iter();
        if let (Some(Seg::Index(i)), Some(Seg::Key(source))) = (segs.next(), segs.next()) {
            let base = metrics.index(*i).key(source);
            let tail: Vec<&str> = segs
                .filter_map(|s| match s {
                    Seg::Key(k) => Some(k.as_str()),
                    Seg::Index(_) => None,
                })
                .collect();
            let key = match (source.as_str(), tail.as_slice()) {
                (_, ["metric", "name"]) => Some("metricName"),
                ("external", ["metric", "selector", ..]) => Some("metricSelector"),
                (_, ["metric", "selector", ..]) => Some("selector"),
                (_, ["target", "averageUtilization"]) => Some("targetAverageUtilization"),
                ("object", ["target", "averageValue"]) => Some("averageValue"),
                (_, ["target", "averageValue"]) => Some("targetAverageValue"),
                (_, ["target", "value"]) => Some("targetValue"),
                ("object", ["describedObject", ..]) => Some("target"),
                (_, ["name"]) => Some("name"),
                (_, ["container"]) => Some("container"),
                _ => None,
            };
            return match key {
                Some(k) => base.key(k),
                None => base,
            };
        }
        return path.clone();
    }
    let behavior = FieldPath::of(&["spec", "behavior"]);
    if behavior_from_annotation && path.strip_prefix(&behavior).is_some() {
        return FieldPath::of(&["metadata", "annotations", BEHAVIOR_ANNOTATION]);
    }
    path.clone()
}

/// Known keys of a v2beta1 spec, for unknown-key warnings (the typed pass cannot see into a
/// spec that has no k8s-openapi type).
pub fn unknown_keys(raw_spec: &Value) -> Vec<FieldPath> {
    let spec = FieldPath::of(&["spec"]);
    let mut out = Vec::new();
    let mut check = |v: &Value, path: &FieldPath, known: &[&str]| {
        if let Some(map) = v.as_object() {
            for key in map.keys() {
                if !known.contains(&key.as_str()) {
                    out.push(path.key(key));
                }
            }
        }
    };
    check(
        raw_spec,
        &spec,
        &["scaleTargetRef", "minReplicas", "maxReplicas", "metrics"],
    );
    if let Some(r) = present(raw_spec, "scaleTargetRef") {
        check(
            r,
            &spec.key("scaleTargetRef"),
            &["apiVersion", "kind", "name"],
        );
    }
    let metrics = present(raw_spec, "metrics").and_then(Value::as_array);
    for (i, metric) in metrics.into_iter().flatten().enumerate() {
        let path = spec.key("metrics").index(i);
        let sources: Vec<&str> = SOURCE_KEYS.iter().map(|(s, _)| *s).collect();
        let mut known = vec!["type"];
        known.extend(&sources);
        check(metric, &path, &known);
        for (source, keys) in SOURCE_KEYS {
            if let Some(block) = present(metric, source) {
                let known: Vec<&str> = keys.iter().map(|(k, _)| *k).collect();
                check(block, &path.key(source), &known);
            }
        }
    }
    out
}

// Port of Convert_v2beta1_HorizontalPodAutoscalerStatus_To_autoscaling_HorizontalPodAutoscalerStatus
// and the v2beta1 metric status conversions (conversion.go): the status has the v1 annotation's
// shape, so each entry converts as there.
pub fn convert_status(raw_status: Option<&Value>) -> Result<HpaStatus, FieldError> {
    let Some(status) = raw_status else {
        return Ok(HpaStatus::default());
    };
    let count = |key: &str| -> Result<Option<i32>, FieldError> {
        match present(status, key) {
            None => Ok(None),
            Some(v) => v
                .as_i64()
                .and_then(|n| i32::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| {
                    field_error(
                        FieldPath::of(&["status", key]),
                        format!("found {v}, expected a replica count"),
                    )
                }),
        }
    };
    let path = FieldPath::of(&["status", "currentMetrics"]);
    let current_metrics = present(status, "currentMetrics")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, m)| current_metric(m, &path.index(i)))
        .collect::<Result<Vec<CurrentMetric>, _>>()?;
    let scaled_to_zero = present(status, "conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|c| {
            c.get("type").and_then(Value::as_str) == Some("ScaledToZero")
                && c.get("status").and_then(Value::as_str) == Some("True")
        });
    let conditions = super::v1::conditions(
        present(status, "conditions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten(),
    );
    Ok(HpaStatus {
        current_replicas: count("currentReplicas")?,
        desired_replicas: count("desiredReplicas")?,
        scaled_to_zero,
        conditions,
        current_metrics,
        last_scale_time: present(status, "lastScaleTime")
            .and_then(Value::as_str)
            .map(str::to_string),
    })
}

/// v2beta1 and v2alpha1: converted to the v2 shape as a JSON value, then read as v2.
pub fn load(
    source: &Source,
    doc: &Document,
    item: Option<usize>,
    raw: &Value,
    warnings: &mut Vec<String>,
) -> Result<(HpaSpec, HpaStatus), InputError> {
    let envelope: super::decode::AnyEnvelope =
        super::lenient::typed(source, doc, item, raw, warnings)?;
    let spec_path = FieldPath::of(&["spec"]);
    require_spec(source, raw)?;
    super::tags::check_object(source, &envelope, raw)?;
    let meta = envelope.metadata.unwrap_or_default();
    let (name, namespace) = metadata_name(source, &meta)?;
    let raw_spec = raw.get("spec").cloned().unwrap_or(Value::Null);
    for path in unknown_keys(&raw_spec) {
        warnings.push(format!(
            "{}unknown field {path} (ignored)",
            source.prefix_of(&path)
        ));
    }
    let annotations = raw
        .pointer("/metadata/annotations")
        .and_then(Value::as_object);
    let converted = convert_spec(&raw_spec, annotations);
    let from_annotation = converted.behavior_from_annotation;
    let to_source = |e: FieldError| {
        let path = source_path(&e.path, from_annotation);
        source.error(&path, e.message)
    };
    let mut spec: api_v2::HorizontalPodAutoscalerSpec =
        serde_json::from_value(converted.spec.clone()).map_err(|e| {
            // Find the metric that does not decode, to say where.
            let metrics = converted.spec.get("metrics").and_then(Value::as_array);
            let bad = metrics
                .into_iter()
                .flatten()
                .position(|m| serde_json::from_value::<api_v2::MetricSpec>(m.clone()).is_err());
            let path = match bad {
                Some(i) => spec_path.key("metrics").index(i),
                None => spec_path.clone(),
            };
            source.error(
                &path,
                format!("found {}", e.to_string().replace("invalid type: ", "")),
            )
        })?;
    validate::set_defaults(&mut spec);
    validate::validate(&spec).map_err(to_source)?;
    let advice = validate::reference_warnings(&spec)
        .into_iter()
        .chain(validate::target_warnings(&spec));
    warnings
        .extend(advice.map(|w| source.warning(&source_path(&w.path, from_annotation), &w.message)));
    let hpa = map::to_hpa_spec(name, namespace, &spec).map_err(to_source)?;
    let status = convert_status(raw.get("status")).map_err(|e| source.field_error(e))?;
    Ok((hpa, status))
}

/// The sentence the assumptions carry for a manifest of a version no longer served.
pub fn notice(api_version: &str) -> String {
    let when = if api_version == "autoscaling/v2alpha1" {
        "replaced by autoscaling/v2beta1 in Kubernetes 1.8"
    } else {
        "removed in Kubernetes 1.25"
    };
    format!(
        "The manifest is {api_version}, which the API server no longer serves ({when}): it was converted to autoscaling/v2 as the API server's conversion \
         did (targetAverageUtilization → target.averageUtilization, metricName → metric.name, ...); \
         --print-hpa shows the result"
    )
}

#[cfg(test)]
mod tests {
    use super::super::{LoadedHpa, load};
    use crate::scenario::{MetricSpec, TargetType};

    fn v2beta1(metrics: &str) -> String {
        format!(
            "apiVersion: autoscaling/v2beta1\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n\
             spec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  \
             maxReplicas: 10\n{metrics}"
        )
    }

    fn ok(text: &str) -> LoadedHpa {
        load("hpa.yaml", text, None).unwrap()
    }

    #[test]
    fn resource_target_average_utilization_becomes_a_utilization_target() {
        let h = ok(&v2beta1(
            "  metrics:\n  - type: Resource\n    resource: {name: cpu, targetAverageUtilization: 60}\n",
        ));
        let MetricSpec::Resource { target, .. } = &h.spec.metrics[0] else {
            panic!("{:?}", h.spec.metrics)
        };
        assert_eq!(target.target_type, TargetType::Utilization);
        assert_eq!(target.average_utilization, Some(60));
        assert!(h.notes[0].contains("no longer serves"), "{:?}", h.notes);
    }

    #[test]
    fn resource_without_utilization_is_an_average_value_target() {
        let h = ok(&v2beta1(
            "  metrics:\n  - type: Resource\n    resource: {name: memory, targetAverageValue: 1Gi}\n",
        ));
        let MetricSpec::Resource { target, .. } = &h.spec.metrics[0] else {
            panic!()
        };
        assert_eq!(target.target_type, TargetType::AverageValue);
        assert_eq!(target.average_value_milli, Some(1024 * 1024 * 1024 * 1000));
    }

    #[test]
    fn object_is_a_value_target_unless_average_value_is_set() {
        let value = ok(&v2beta1(
            "  metrics:\n  - type: Object\n    object:\n      metricName: rps\n      \
             target: {kind: Ingress, name: main}\n      targetValue: 10k\n",
        ));
        let MetricSpec::Object {
            described_object,
            metric,
            target,
        } = &value.spec.metrics[0]
        else {
            panic!()
        };
        assert_eq!(target.target_type, TargetType::Value);
        assert_eq!(target.value_milli, Some(10_000_000));
        assert_eq!(described_object.kind, "Ingress");
        assert_eq!(metric.name, "rps");
        let average = ok(&v2beta1(
            "  metrics:\n  - type: Object\n    object:\n      metricName: rps\n      \
             target: {kind: Ingress, name: main}\n      averageValue: 100\n",
        ));
        assert_eq!(
            average.spec.metrics[0].target().target_type,
            TargetType::AverageValue
        );
    }

    #[test]
    fn external_is_a_value_target_only_with_target_value() {
        let h = ok(&v2beta1(
            "  metrics:\n  - type: External\n    external:\n      metricName: q\n      \
             metricSelector: {matchLabels: {queue: a}}\n      targetAverageValue: 30\n",
        ));
        let MetricSpec::External { metric, target } = &h.spec.metrics[0] else {
            panic!()
        };
        assert_eq!(target.target_type, TargetType::AverageValue);
        assert_eq!(
            metric.selector.as_ref().and_then(|s| s.get("queue")),
            Some(&"a".to_string())
        );
    }

    #[test]
    fn pods_is_always_an_average_value_target() {
        let h = ok(&v2beta1(
            "  metrics:\n  - type: Pods\n    pods: {metricName: rps, targetAverageValue: 100}\n",
        ));
        assert_eq!(h.spec.metrics[0].metric_name(), "rps");
        assert_eq!(
            h.spec.metrics[0].target().average_value_milli,
            Some(100_000)
        );
    }

    #[test]
    fn no_metrics_defaults_to_cpu_80_percent_and_min_replicas_to_1() {
        let h = ok(&v2beta1(""));
        assert_eq!(h.spec.min_replicas, 1);
        assert_eq!(h.spec.metrics[0].target().average_utilization, Some(80));
        assert!(h.spec.behavior.is_none());
    }

    #[test]
    fn behavior_comes_from_the_behavior_annotation() {
        let text = "apiVersion: autoscaling/v2beta1\nkind: HorizontalPodAutoscaler\nmetadata:\n  \
            name: web\n  annotations:\n    autoscaling.alpha.kubernetes.io/behavior: \
            '{\"ScaleDown\":{\"StabilizationWindowSeconds\":60}}'\nspec:\n  \
            scaleTargetRef: {kind: Deployment, name: web}\n  maxReplicas: 10\n";
        let h = ok(text);
        let b = h.spec.behavior.expect("behavior");
        assert_eq!(b.scale_down.stabilization_window_seconds, Some(60));
    }

    #[test]
    fn v2alpha1_reads_as_v2beta1() {
        let text = v2beta1("").replace("v2beta1", "v2alpha1");
        let h = ok(&text);
        assert!(h.notes[0].contains("autoscaling/v2alpha1"));
    }

    #[test]
    fn validation_errors_point_at_the_v2beta1_key() {
        let err = load(
            "hpa.yaml",
            &v2beta1(
                "  metrics:\n  - type: Resource\n    resource: {name: cpu, targetAverageUtilization: 0}\n",
            ),
            None,
        )
        .unwrap_err();
        assert_eq!(
            err.field.as_deref(),
            Some("spec.metrics[0].resource.targetAverageUtilization"),
            "{err}"
        );
        assert_eq!(err.line, Some(10), "{err}");
    }

    #[test]
    fn unknown_v2beta1_keys_are_warnings() {
        let h = ok(&v2beta1(
            "  metrics:\n  - type: Resource\n    resource: {name: cpu, targetAverageUtilization: 60, window: 5m}\n",
        ));
        assert!(
            h.warnings
                .iter()
                .any(|w| w.contains("spec.metrics[0].resource.window")),
            "{:?}",
            h.warnings
        );
    }

    #[test]
    fn status_converts_current_average_utilization() {
        let text = format!(
            "{}status:\n  currentReplicas: 3\n  desiredReplicas: 4\n  currentMetrics:\n  - type: Resource\n    \
             resource: {{name: cpu, currentAverageUtilization: 70, currentAverageValue: 350m}}\n",
            v2beta1("")
        );
        let h = ok(&text);
        assert_eq!(h.status.current_replicas, Some(3));
        assert_eq!(h.status.current_metrics[0].average_utilization, Some(70));
        assert_eq!(h.status.current_metrics[0].average_value_milli, Some(350));
    }

    #[test]
    fn a_v2_manifest_with_v2beta1_keys_names_them_and_their_v2_spelling() {
        let text = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n\
            spec:\n  scaleTargetRef: {kind: Deployment, name: web}\n  maxReplicas: 10\n  metrics:\n  \
            - type: Pods\n    pods:\n      metricName: rps\n      targetAverageValue: 100\n";
        let err = load("hpa.yaml", text, None).unwrap_err();
        assert_eq!(
            err.field.as_deref(),
            Some("spec.metrics[0].pods.metricName")
        );
        assert_eq!(err.line, Some(11), "{err}");
        assert!(err.message.contains("(v2: pods.metric.name)"), "{err}");
        assert!(
            err.message
                .contains("targetAverageValue (v2: pods.target: {type: AverageValue"),
            "{err}"
        );
    }
}

#[cfg(test)]
mod reverse_tests {
    use super::super::load;

    #[test]
    fn a_v2beta1_manifest_written_the_v2_way_says_which_apiversion_to_use() {
        let text = "apiVersion: autoscaling/v2beta1\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n\
            spec:\n  scaleTargetRef: {kind: Deployment, name: web}\n  maxReplicas: 10\n  metrics:\n  \
            - type: Resource\n    resource:\n      name: cpu\n      target: {type: Utilization, averageUtilization: 50}\n";
        let err = load("hpa.yaml", text, None).unwrap_err();
        assert_eq!(
            err.field.as_deref(),
            Some("spec.metrics[0].resource.target")
        );
        assert_eq!(err.line, Some(12), "{err}");
        assert!(
            err.message
                .contains("apiVersion: autoscaling/v2 for the whole file")
        );
    }
}
