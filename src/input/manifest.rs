//! HPA manifests (`autoscaling/v2`, `v2beta2`, `v2beta1`, `v2alpha1`, `v1`; YAML or JSON) → a
//! validated, defaulted `HpaSpec`, the status the manifest carries, and warnings. The only module
//! that knows k8s-openapi.
//!
//! The controller never sees a manifest: it sees what the API server made of it. So this module
//! does what the server does between the request and the controller's informer: decoding
//! (unknown keys dropped, which we warn about; placeholders in ignored fields, `lenient.rs`),
//! conversion from v1 (`v1.rs`) and v2beta1 (`v2beta1.rs`), defaulting and validation
//! (`validate.rs`). Pasted text (`input::paste`) comes in through [`from_v2_spec`].
//!
//! Each document is read twice. First as a `serde_json::Value` (`documents.rs`), to find the
//! objects, pick the HPA and see which keys are present (k8s-openapi turns a missing required
//! field into 0 or ""). Then the chosen object is deserialized again from the text into
//! k8s-openapi types (`decode.rs`), so that type errors keep the line, column and path the YAML
//! parser knows. Errors found after that get their line from `locate.rs`.

mod decode;
mod documents;
mod lenient;
pub(crate) mod locate;
mod map;
pub mod status;
mod tags;
mod v1;
mod v2beta1;
pub(crate) mod validate;

use std::collections::BTreeMap;

use k8s_openapi::api::autoscaling::v2 as api_v2;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde_json::Value;

use crate::error::InputError;
use crate::scenario::HpaSpec;
use decode::{V1Envelope, V2Envelope};
use documents::{Document, Source};
use locate::{FieldPath, Seg};
use validate::FieldError;

pub use status::{CurrentMetric, HpaStatus};

#[derive(Debug, Clone, PartialEq)]
pub struct LoadedHpa {
    pub spec: HpaSpec,
    pub status: HpaStatus,
    /// Unknown keys and other things worth a warning on stderr.
    pub warnings: Vec<String>,
    /// `metadata.labels` (who manages the HPA: KEDA labels the HPAs it generates).
    pub labels: BTreeMap<String, String>,
    /// The input was a KEDA ScaledObject: the HPA built from it and KEDA's own settings.
    pub keda: Option<crate::input::keda::Translated>,
    /// What the conversion assumed (a version no longer served), for the assumptions.
    pub notes: Vec<String>,
    /// Events the input carried (the Events section of describe text).
    pub events: Vec<crate::input::paste::events::HpaEvent>,
    /// Named causes the input showed (a get-hpa `<unknown>`).
    pub diagnostics: Vec<crate::report::Diagnostic>,
    /// The pasted form it was read from; `None` for a manifest.
    pub form: Option<crate::input::paste::text::Form>,
    /// The input form and file, for the report's `sources`.
    pub source: crate::report::FactSource,
    /// The `spec.metrics` positions of Resource targets the input showed without their
    /// resource's name (a `kubectl get hpa` row before 1.30).
    pub unnamed_resources: Vec<usize>,
}

/// Larger input is refused before parsing: no HPA manifest comes near it.
pub const MAX_INPUT_BYTES: usize = 64 * 1024 * 1024;

const VERSIONS: &str = "autoscaling/v2, autoscaling/v2beta2, autoscaling/v2beta1, autoscaling/v2alpha1 or autoscaling/v1";

/// `autoscaling.ToleranceScaleUpAnnotation` / `ToleranceScaleDownAnnotation`: where a v2beta2
/// view keeps the tolerances it has no field for.
const SCALE_UP_TOLERANCE_ANNOTATION: &str = "autoscaling.alpha.kubernetes.io/scale-up-tolerance";
const SCALE_DOWN_TOLERANCE_ANNOTATION: &str =
    "autoscaling.alpha.kubernetes.io/scale-down-tolerance";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Version {
    V2,
    V2beta2,
    /// `v2beta1` and `v2alpha1` (same shape).
    V2beta1,
    V1,
}

/// Parses `text` (read from `file`, for messages) and picks the HPA named `name` when several.
pub fn load(file: &str, text: &str, name: Option<&str>) -> Result<LoadedHpa, InputError> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(InputError::new(
            file,
            format!(
                "found {} bytes, expected a manifest of at most {} MiB",
                text.len(),
                MAX_INPUT_BYTES / (1024 * 1024)
            ),
        ));
    }
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let json = body.trim_start().starts_with('{');
    let docs = if json {
        documents::parse_json(file, text)?
    } else {
        documents::parse_yaml(file, text)?
    };
    let objects = documents::collect_objects(file, text, json, &docs)?;
    let chosen = documents::choose(file, text, json, &objects, name)?;
    let source = Source {
        file,
        text,
        json,
        span: chosen.doc.span.clone(),
        prefix: match chosen.item {
            Some(i) => FieldPath::of(&["items"]).index(i),
            None => FieldPath::root(),
        },
    };
    if crate::input::keda::is_scaled_object(&chosen.kind, &chosen.api_version) {
        return load_scaled_object(&source, chosen.value);
    }
    let version = version(&source, &chosen.api_version)?;
    let mut warnings = Vec::new();
    let mut notes = Vec::new();
    let (spec, status) = load_version(&source, chosen, version, &mut warnings, &mut notes)?;
    check_status_counts(&source, &status)?;
    Ok(LoadedHpa {
        spec,
        status,
        warnings,
        labels: labels(chosen.value),
        keda: None,
        unnamed_resources: Vec::new(),
        notes,
        events: Vec::new(),
        diagnostics: Vec::new(),
        form: None,
        source: crate::report::FactSource::new(
            "hpa",
            &format!("manifest {}", chosen.api_version),
            Some(file),
        ),
    })
}

/// A ScaledObject, loaded as the HPA KEDA creates for it.
fn load_scaled_object(source: &Source, raw: &Value) -> Result<LoadedHpa, InputError> {
    let mut warnings = Vec::new();
    let (spec, translated) = load_keda(source, raw, &mut warnings)?;
    Ok(LoadedHpa {
        spec,
        status: HpaStatus::default(),
        warnings,
        // The KEDA step explains KEDA's layer itself: no KedaManaged notice.
        labels: BTreeMap::new(),
        keda: Some(translated),
        unnamed_resources: Vec::new(),
        notes: Vec::new(),
        events: Vec::new(),
        diagnostics: Vec::new(),
        form: None,
        source: crate::report::FactSource::new("hpa", "KEDA ScaledObject", Some(source.file)),
    })
}

/// The HPA's API version, one this module reads.
fn version(source: &Source, api_version: &str) -> Result<Version, InputError> {
    Ok(match api_version {
        "autoscaling/v2" => Version::V2,
        "autoscaling/v2beta2" => Version::V2beta2,
        "autoscaling/v1" => Version::V1,
        "autoscaling/v2beta1" | "autoscaling/v2alpha1" => Version::V2beta1,
        other => {
            let found = if other.is_empty() {
                "nothing".to_string()
            } else {
                crate::error::quoted(other).to_string()
            };
            return Err(source.error(
                &FieldPath::of(&["apiVersion"]),
                format!("found {found}, expected {VERSIONS}"),
            ));
        }
    })
}

/// The HPA's spec and status, read as its version has them; `notes` says what a conversion
/// assumed.
fn load_version(
    source: &Source,
    chosen: &documents::Object<'_>,
    version: Version,
    warnings: &mut Vec<String>,
    notes: &mut Vec<String>,
) -> Result<(HpaSpec, HpaStatus), InputError> {
    let (doc, item, raw) = (chosen.doc, chosen.item, chosen.value);
    match version {
        Version::V2 | Version::V2beta2 => load_v2(source, doc, item, raw, version, warnings),
        Version::V1 => load_v1(source, doc, item, raw, warnings),
        Version::V2beta1 => {
            if let Some(e) = v2beta1::v2_keys_in_v2beta1(raw, &chosen.api_version) {
                return Err(source.field_error(e));
            }
            notes.push(v2beta1::notice(&chosen.api_version));
            v2beta1::load(source, doc, item, raw, warnings)
        }
    }
}

/// `metadata.labels` with string values.
fn labels(raw: &Value) -> BTreeMap<String, String> {
    raw.pointer("/metadata/labels")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

// Port of ValidateHorizontalPodAutoscalerStatusUpdate (validation.go): counts are nonnegative.
fn check_status_counts(source: &Source, status: &HpaStatus) -> Result<(), InputError> {
    for (key, count) in [
        ("currentReplicas", status.current_replicas),
        ("desiredReplicas", status.desired_replicas),
    ] {
        if let Some(n) = count.filter(|n| *n < 0) {
            return Err(source.error(
                &FieldPath::of(&["status", key]),
                format!("found {n}, expected 0 or more (the API server refuses a negative count)"),
            ));
        }
    }
    Ok(())
}
/// A KEDA ScaledObject: translated into the HPA KEDA creates (`input::keda`), which then goes
/// through the same defaulting and validation as a manifest; errors name the ScaledObject's
/// fields.
fn load_keda(
    source: &Source,
    raw: &Value,
    warnings: &mut Vec<String>,
) -> Result<(HpaSpec, crate::input::keda::Translated), InputError> {
    use crate::input::keda;
    let translated = {
        let mut warn = |path: &FieldPath, message: &str| {
            warnings.push(source.warning(path, message));
        };
        keda::translate(raw, &mut warn).map_err(|e| source.field_error(e))?
    };
    let behavior = FieldPath::of(&[
        "spec",
        "advanced",
        "horizontalPodAutoscalerConfig",
        "behavior",
    ]);
    let envelope =
        <V2Envelope as serde::Deserialize>::deserialize(&translated.hpa).map_err(|e| {
            source.error(
                &behavior,
                format!("expected an autoscaling/v2 behavior: {e}"),
            )
        })?;
    let to_source =
        |e: FieldError| source.error(&keda::source_path(&translated, &e.path), e.message);
    let meta = envelope.metadata.unwrap_or_default();
    let name = meta.name.clone().unwrap_or_default();
    let namespace = meta
        .namespace
        .clone()
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "default".to_string());
    let mut spec = envelope.spec.unwrap_or_default();
    validate::set_defaults(&mut spec);
    validate::validate(&spec).map_err(to_source)?;
    let advice = validate::reference_warnings(&spec)
        .into_iter()
        .chain(validate::target_warnings(&spec));
    warnings.extend(
        advice.map(|w| source.warning(&keda::source_path(&translated, &w.path), &w.message)),
    );
    let hpa = map::to_hpa_spec(name, namespace, &spec).map_err(to_source)?;
    Ok((hpa, translated))
}

/// A key k8s-openapi would fill with 0 or "" when absent, so it must be checked in the raw value.
fn require(
    source: &Source,
    raw: &Value,
    path: &FieldPath,
    expected: &str,
) -> Result<(), InputError> {
    let mut at = Some(raw);
    for seg in &path.0 {
        at = match seg {
            Seg::Key(k) => at.and_then(|v| v.get(k.as_str())),
            Seg::Index(i) => at.and_then(|v| v.get(i)),
        };
    }
    match at {
        Some(v) if !v.is_null() => Ok(()),
        _ => Err(source.error(path, format!("found nothing, expected {expected}"))),
    }
}

fn metadata_name(source: &Source, meta: &ObjectMeta) -> Result<(String, String), InputError> {
    let name = meta.name.clone().unwrap_or_default();
    if name.is_empty() {
        return Err(source.error(
            &FieldPath::of(&["metadata", "name"]),
            "found nothing, expected the HPA's name",
        ));
    }
    let namespace = meta
        .namespace
        .clone()
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "default".to_string());
    for (value, max, key) in [
        (&name, validate::MAX_NAME, "name"),
        (&namespace, validate::MAX_NAMESPACE, "namespace"),
    ] {
        validate::validate_name_length(value, max, &FieldPath::of(&["metadata", key]))
            .map_err(|e| source.error(&e.path, e.message))?;
    }
    Ok((name, namespace))
}

/// The spec keys of every version that k8s-openapi would silently zero.
fn require_spec(source: &Source, raw: &Value) -> Result<(), InputError> {
    let spec = FieldPath::of(&["spec"]);
    require(source, raw, &spec, "the HPA's spec")?;
    require(
        source,
        raw,
        &spec.key("scaleTargetRef"),
        "the object to scale (kind and name)",
    )?;
    require(
        source,
        raw,
        &spec.key("maxReplicas"),
        "the maximum number of replicas",
    )
}

/// The keys of a v2 spec that k8s-openapi would silently zero.
fn require_v2(source: &Source, raw: &Value) -> Result<(), InputError> {
    let spec = FieldPath::of(&["spec"]);
    require_spec(source, raw)?;
    let metrics = raw.pointer("/spec/metrics").and_then(Value::as_array);
    for (i, metric) in metrics.into_iter().flatten().enumerate() {
        let path = spec.key("metrics").index(i);
        require(source, raw, &path.key("type"), "the metric source type")?;
        for key in [
            "resource",
            "containerResource",
            "pods",
            "object",
            "external",
        ] {
            if metric.get(key).is_some_and(|v| !v.is_null()) {
                let target = path.key(key).key("target");
                require(source, raw, &target, "the metric's target")?;
                require(source, raw, &target.key("type"), "the target type")?;
            }
        }
    }
    for direction in ["scaleUp", "scaleDown"] {
        let rules = spec.key("behavior").key(direction);
        let pointer = format!("/spec/behavior/{direction}/policies");
        let policies = raw.pointer(&pointer).and_then(Value::as_array);
        for i in 0..policies.map_or(0, Vec::len) {
            let path = rules.key("policies").index(i);
            require(
                source,
                raw,
                &path.key("type"),
                "the policy type (Pods or Percent)",
            )?;
            require(
                source,
                raw,
                &path.key("value"),
                "the policy's amount of change",
            )?;
            require(
                source,
                raw,
                &path.key("periodSeconds"),
                "the policy's period in seconds",
            )?;
        }
    }
    Ok(())
}

fn load_v2(
    source: &Source,
    doc: &Document,
    item: Option<usize>,
    raw: &Value,
    version: Version,
    warnings: &mut Vec<String>,
) -> Result<(HpaSpec, HpaStatus), InputError> {
    if let Some(e) = v2beta1::v2beta1_keys_in_v2(raw, api_version_name(version)) {
        return Err(source.field_error(e));
    }
    let envelope: V2Envelope = lenient::typed(source, doc, item, raw, warnings)?;
    require_v2(source, raw)?;
    tags::check_object(source, &envelope, raw)?;
    let meta = envelope.metadata.unwrap_or_default();
    let (name, namespace) = metadata_name(source, &meta)?;
    let mut spec = envelope.spec.unwrap_or_default();
    if version == Version::V2beta2 {
        v2beta2_tolerances(source, &mut spec, &meta, warnings)?;
    }
    validate::set_defaults(&mut spec);
    validate::validate(&spec).map_err(|e| source.field_error(e))?;
    let advice = validate::reference_warnings(&spec)
        .into_iter()
        .chain(validate::target_warnings(&spec));
    warnings.extend(advice.map(|w| source.warning(&w.path, &w.message)));
    let hpa = map::to_hpa_spec(name, namespace, &spec).map_err(|e| source.field_error(e))?;
    let status = match envelope.status {
        None => HpaStatus::default(),
        Some(status) => status_v2(&status, raw.get("status")).map_err(|e| source.field_error(e))?,
    };
    Ok((hpa, status))
}

// Port of Convert_v2beta2_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler
// (pkg/apis/autoscaling/v2beta2/conversion.go): v2beta2 has no `tolerance` field (a key of that
// name is dropped); the tolerances come from annotations, creating the rules they need.
fn v2beta2_tolerances(
    source: &Source,
    spec: &mut api_v2::HorizontalPodAutoscalerSpec,
    meta: &ObjectMeta,
    warnings: &mut Vec<String>,
) -> Result<(), InputError> {
    let path = FieldPath::of(&["spec", "behavior"]);
    if let Some(behavior) = &mut spec.behavior {
        for (direction, rules) in [
            ("scaleUp", &mut behavior.scale_up),
            ("scaleDown", &mut behavior.scale_down),
        ] {
            if let Some(rules) = rules
                && rules.tolerance.take().is_some()
            {
                let field = path.key(direction).key("tolerance");
                warnings.push(format!(
                    "{}unknown field {field} (ignored: autoscaling/v2beta2 has no tolerance)",
                    source.prefix_of(&field)
                ));
            }
        }
    }
    let annotations = meta.annotations.clone().unwrap_or_default();
    for (key, up) in [
        (SCALE_DOWN_TOLERANCE_ANNOTATION, false),
        (SCALE_UP_TOLERANCE_ANNOTATION, true),
    ] {
        let Some(text) = annotations.get(key) else {
            continue;
        };
        let annotation = FieldPath::of(&["metadata", "annotations", key]);
        let quantity = k8s_openapi::apimachinery::pkg::api::resource::Quantity(text.clone());
        validate::parse_quantity(&quantity, &annotation).map_err(|e| source.field_error(e))?;
        let behavior = spec.behavior.get_or_insert_with(Default::default);
        let rules = if up {
            &mut behavior.scale_up
        } else {
            &mut behavior.scale_down
        };
        rules.get_or_insert_with(Default::default).tolerance = Some(quantity);
    }
    Ok(())
}

/// The v2 status: what the calculation may take as defaults.
fn status_v2(
    status: &api_v2::HorizontalPodAutoscalerStatus,
    raw: Option<&Value>,
) -> Result<HpaStatus, FieldError> {
    let path = FieldPath::of(&["status", "currentMetrics"]);
    let current_metrics = status
        .current_metrics
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, m)| current_metric_v2(m, &path.index(i)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(HpaStatus {
        current_replicas: status.current_replicas,
        // Required in the API type, so k8s-openapi reads an absent one as 0.
        desired_replicas: raw
            .and_then(|r| r.get("desiredReplicas"))
            .filter(|v| !v.is_null())
            .map(|_| status.desired_replicas),
        scaled_to_zero: status
            .conditions
            .iter()
            .flatten()
            .any(|c| c.type_ == "ScaledToZero" && c.status == "True"),
        conditions: status
            .conditions
            .iter()
            .flatten()
            .map(|c| crate::report::Condition {
                condition_type: c.type_.clone(),
                status: c.status.clone(),
                reason: c.reason.clone().unwrap_or_default(),
                message: c.message.clone().unwrap_or_default(),
                last_transition_time: c.last_transition_time.as_ref().map(|t| t.0.to_string()),
            })
            .collect(),
        current_metrics,
        last_scale_time: status.last_scale_time.as_ref().map(|t| t.0.to_string()),
    })
}

fn current_metric_v2(
    m: &api_v2::MetricStatus,
    path: &FieldPath,
) -> Result<CurrentMetric, FieldError> {
    let (key, source) = match m.type_.as_str() {
        "Resource" => (
            "resource",
            m.resource.as_ref().map(|s| (&s.name, &s.current)),
        ),
        "ContainerResource" => (
            "containerResource",
            m.container_resource.as_ref().map(|s| (&s.name, &s.current)),
        ),
        "Pods" => (
            "pods",
            m.pods.as_ref().map(|s| (&s.metric.name, &s.current)),
        ),
        "Object" => (
            "object",
            m.object.as_ref().map(|s| (&s.metric.name, &s.current)),
        ),
        "External" => (
            "external",
            m.external.as_ref().map(|s| (&s.metric.name, &s.current)),
        ),
        _ => ("", None),
    };
    let mut out = CurrentMetric {
        metric_type: m.type_.clone(),
        ..CurrentMetric::default()
    };
    if let Some((name, current)) = source {
        let path = path.key(key).key("current");
        out.name.clone_from(name);
        out.value_milli = current
            .value
            .as_ref()
            .map(|q| validate::milli(q, &path.key("value")))
            .transpose()?;
        out.average_value_milli = current
            .average_value
            .as_ref()
            .map(|q| validate::milli(q, &path.key("averageValue")))
            .transpose()?;
        out.average_utilization = current.average_utilization;
    }
    Ok(out)
}

/// A v2 spec built from pasted text (describe output, a get-hpa line): defaulted, validated and
/// mapped as a manifest's would be. An error is `(field path, message)`, for the caller to place
/// in its own text.
pub fn from_v2_spec(
    name: String,
    namespace: String,
    spec: Value,
) -> Result<(HpaSpec, Vec<String>), (String, String)> {
    let mut spec: api_v2::HorizontalPodAutoscalerSpec =
        serde_json::from_value(spec).map_err(|e| ("spec".to_string(), format!("found {e}")))?;
    validate::set_defaults(&mut spec);
    let located = |e: FieldError| (e.path.to_string(), e.message);
    validate::validate(&spec).map_err(located)?;
    let warnings = validate::target_warnings(&spec)
        .into_iter()
        .map(|w| format!("{}: {}", w.path, w.message))
        .collect();
    let hpa = map::to_hpa_spec(name, namespace, &spec).map_err(located)?;
    Ok((hpa, warnings))
}

fn api_version_name(version: Version) -> &'static str {
    match version {
        Version::V2 => "autoscaling/v2",
        Version::V2beta2 => "autoscaling/v2beta2",
        Version::V2beta1 => "autoscaling/v2beta1",
        Version::V1 => "autoscaling/v1",
    }
}

fn load_v1(
    source: &Source,
    doc: &Document,
    item: Option<usize>,
    raw: &Value,
    warnings: &mut Vec<String>,
) -> Result<(HpaSpec, HpaStatus), InputError> {
    let envelope: V1Envelope = lenient::typed(source, doc, item, raw, warnings)?;
    require_spec(source, raw)?;
    tags::check_object(source, &envelope, raw)?;
    let meta = envelope.metadata.unwrap_or_default();
    let (name, namespace) = metadata_name(source, &meta)?;
    let annotations: BTreeMap<String, String> = meta.annotations.clone().unwrap_or_default();
    let v1_spec = envelope.spec.unwrap_or_default();
    let converted =
        v1::convert_spec(&v1_spec, &annotations, warnings).map_err(|e| source.field_error(e))?;
    let to_source = |e: FieldError| {
        let path = converted.source_path(&e.path);
        source.error(&path, e.message)
    };
    let mut spec = converted.spec.clone();
    validate::set_defaults(&mut spec);
    validate::validate(&spec).map_err(to_source)?;
    let advice = validate::reference_warnings(&spec)
        .into_iter()
        .chain(validate::target_warnings(&spec));
    warnings.extend(advice.map(|w| source.warning(&converted.source_path(&w.path), &w.message)));
    let hpa = map::to_hpa_spec(name, namespace, &spec).map_err(to_source)?;
    let status = v1::convert_status(
        envelope.status.as_ref(),
        raw.get("status"),
        &annotations,
        warnings,
    )
    .map_err(|e| source.field_error(e))?;
    Ok((hpa, status))
}

#[cfg(test)]
mod tests;
