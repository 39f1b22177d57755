//! KEDA `ScaledObject` (`keda.sh/v1alpha1`) → the `autoscaling/v2` HPA KEDA creates for it, plus
//! what KEDA's own scale loop needs (`scenario::keda::KedaInput`). Translation only: KEDA's
//! decisions are in `calc::keda`.
//!
//! Mirrors kedacore/keda: `controllers/keda/hpa.go` (`newHPAForScaledObject`,
//! `getScaledObjectMetricSpecs`), `apis/keda/v1alpha1/scaledobject_types.go` and
//! `scaledobject_webhook.go` (validation), `pkg/scalers/*` (each trigger's metric, in
//! `scalers.rs`) and `pkg/scaling/modifiers` (the formula, parsed by the engine's `formula`). The HPA is
//! built as the JSON object KEDA would send to the API server, then goes through the same
//! defaulting and validation as a manifest (`input::manifest`); `--print-hpa` prints it.

use crate::formula;
pub mod scalers;

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::error::InputError;
use crate::input::inputs::Settings;
use crate::input::manifest::locate::FieldPath;
use crate::input::manifest::validate::{FieldError, field_error};
use crate::quantity::{Format, format_milli, parse_milli};
use crate::scenario::keda::{
    COMPOSITE_METRIC, ExternalTarget, Fallback, FallbackBehavior, Health, KedaCondition, KedaInput,
    KedaStatus, Modifiers, Paused, Trigger, TriggerValue, milli_from_float, truncate_milli,
};
use crate::time::{Duration, Timestamp};
use scalers::Threshold;

pub const KIND: &str = "ScaledObject";
pub const API_VERSION: &str = "keda.sh/v1alpha1";
/// `ScaledObjectOwnerAnnotation`: the label the metrics server selects on.
pub const OWNER_LABEL: &str = "scaledobject.keda.sh/name";
const EXCLUDED_LABELS_ANNOTATION: &str = "scaledobject.keda.sh/hpa-excluded-labels";
const PAUSED: &str = "autoscaling.keda.sh/paused";
const PAUSED_REPLICAS: &str = "autoscaling.keda.sh/paused-replicas";
const PAUSED_SCALE_IN: &str = "autoscaling.keda.sh/paused-scale-in";
const PAUSED_SCALE_OUT: &str = "autoscaling.keda.sh/paused-scale-out";
const FORCE_ACTIVATION: &str = "autoscaling.keda.sh/force-activation";
/// `maxK8sLabelValueLength` (scaledobject_webhook.go).
const MAX_LABEL_VALUE: usize = 63;
/// `defaultHPAMaxReplicas`.
const DEFAULT_MAX: i32 = 100;
/// KEDA's defaults for the scale loop (`scale_scaledobjects.go`, `scale_handler.go`).
const DEFAULT_COOLDOWN: i64 = 300;
const DEFAULT_INITIAL_COOLDOWN: i64 = 0;
const DEFAULT_POLLING: i64 = 30;

/// A ScaledObject translated: the HPA object and KEDA's own settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Translated {
    /// The `autoscaling/v2` `HorizontalPodAutoscaler` KEDA creates, as JSON.
    pub hpa: Value,
    pub keda: KedaSpec,
    /// For each `spec.metrics[i]` of the HPA, the field of the ScaledObject it came from.
    pub metric_sources: Vec<FieldPath>,
}

/// KEDA's settings, before the trigger values are known.
#[derive(Debug, Clone, PartialEq)]
pub struct KedaSpec {
    pub input: KedaInput,
    /// `status.health`: failures per metric name.
    pub health: BTreeMap<String, i32>,
    /// Notes for the output's assumptions (a guessed scaler, ...).
    pub notes: Vec<String>,
}

/// Whether a document is a ScaledObject.
pub fn is_scaled_object(kind: &str, api_version: &str) -> bool {
    kind == KIND && (api_version.is_empty() || api_version.starts_with("keda.sh/"))
}

/// The HPA path of a validation error, in the ScaledObject's terms.
pub fn source_path(translated: &Translated, path: &FieldPath) -> FieldPath {
    use crate::input::manifest::locate::Seg;
    let segs = &path.0;
    let key = |i: usize| match segs.get(i) {
        Some(Seg::Key(k)) => Some(k.as_str()),
        _ => None,
    };
    if key(0) != Some("spec") {
        return FieldPath::of(&["metadata"]);
    }
    let rest = |from: usize| FieldPath(segs.get(from..).unwrap_or_default().to_vec());
    match key(1) {
        Some("minReplicas") => FieldPath::of(&["spec", "minReplicaCount"]),
        Some("maxReplicas") => FieldPath::of(&["spec", "maxReplicaCount"]),
        Some("behavior") => {
            FieldPath::of(&["spec", "advanced", "horizontalPodAutoscalerConfig"]).join(&rest(1))
        }
        Some("metrics") => match segs.get(2) {
            Some(Seg::Index(i)) => translated
                .metric_sources
                .get(*i)
                .cloned()
                .unwrap_or_else(|| FieldPath::of(&["spec", "triggers"])),
            _ => FieldPath::of(&["spec", "triggers"]),
        },
        _ => FieldPath::of(&["spec", "scaleTargetRef"]),
    }
}

fn found(v: &Value) -> String {
    match v {
        Value::Null => "nothing".to_string(),
        Value::Bool(b) => format!("{b}"),
        Value::Number(n) => format!("{n}"),
        Value::String(s) => crate::error::quoted(s).to_string(),
        Value::Array(_) => "a list".to_string(),
        Value::Object(_) => "a mapping".to_string(),
    }
}

fn at<'v>(raw: &'v Value, path: &FieldPath) -> Option<&'v Value> {
    use crate::input::manifest::locate::Seg;
    let mut v = Some(raw);
    for seg in &path.0 {
        v = match seg {
            Seg::Key(k) => v.and_then(|x| x.get(k.as_str())),
            Seg::Index(i) => v.and_then(|x| x.get(i)),
        };
    }
    v.filter(|v| !v.is_null())
}

fn opt_str(raw: &Value, path: &FieldPath) -> Result<Option<String>, FieldError> {
    match at(raw, path) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(field_error(
            path.clone(),
            format!("found {}, expected a string", found(other)),
        )),
    }
}

/// An `*int32` field with the CRD's `Minimum`.
fn opt_i32(raw: &Value, path: &FieldPath, minimum: i32) -> Result<Option<i32>, FieldError> {
    match at(raw, path) {
        None => Ok(None),
        Some(v) => {
            let n = v
                .as_i64()
                .and_then(|n| i32::try_from(n).ok())
                .ok_or_else(|| {
                    field_error(
                        path.clone(),
                        format!("found {}, expected a 32-bit integer", found(v)),
                    )
                })?;
            if n < minimum {
                return Err(field_error(
                    path.clone(),
                    format!("found {n}, expected {minimum} or more"),
                ));
            }
            Ok(Some(n))
        }
    }
}

fn string_map(raw: &Value, path: &FieldPath) -> Result<BTreeMap<String, String>, FieldError> {
    match at(raw, path) {
        None => Ok(BTreeMap::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                other => Err(field_error(
                    path.key(k),
                    format!(
                        "found {}, expected a string (quote it: the API server rejects other types)",
                        found(other)
                    ),
                )),
            })
            .collect(),
        Some(other) => Err(field_error(
            path.clone(),
            format!("found {}, expected a mapping of strings", found(other)),
        )),
    }
}

/// Go's `strconv.ParseBool`.
fn parse_bool(v: &str) -> Option<bool> {
    match v {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

// Port of getBoolAnnotation (scaledobject_types.go): present and not parseable means true.
// Port of NeedToBePausedByAnnotation (KEDA): `paused-replicas`, or `paused` true. KEDA then
// deletes the ScaledObject's HPA and holds the target.
pub fn paused_by_annotation(annotations: &BTreeMap<String, String>) -> bool {
    annotations.contains_key(PAUSED_REPLICAS) || bool_annotation(annotations, PAUSED)
}

fn bool_annotation(annotations: &BTreeMap<String, String>, key: &str) -> bool {
    annotations
        .get(key)
        .is_some_and(|v| parse_bool(v).unwrap_or(true))
}

/// A quantity as `resource.NewQuantity(n, DecimalSI).String()` prints it.
fn integer_quantity(n: i64) -> String {
    format_milli(n.saturating_mul(1000), Format::DecimalSI)
}

const SPEC_KEYS: &[&str] = &[
    "scaleTargetRef",
    "pollingInterval",
    "initialCooldownPeriod",
    "cooldownPeriod",
    "idleReplicaCount",
    "minReplicaCount",
    "maxReplicaCount",
    "advanced",
    "triggers",
    "fallback",
];
const TRIGGER_KEYS: &[&str] = &[
    "type",
    "name",
    "useCachedMetrics",
    "metadata",
    "authenticationRef",
    "metricType",
];
/// ScaledObject settings sometimes put in a trigger's metadata by mistake (kedacore/keda#2479).
const MISPLACED: &[&str] = &[
    "minReplicaCount",
    "maxReplicaCount",
    "idleReplicaCount",
    "cooldownPeriod",
    "pollingInterval",
];

/// Known keys of the nested objects, as the CRD's schema has them (the API server prunes others).
const NESTED_KEYS: &[(&[&str], &[&str])] = &[
    (
        &["scaleTargetRef"],
        &["name", "apiVersion", "kind", "envSourceContainerName"],
    ),
    (
        &["advanced"],
        &[
            "horizontalPodAutoscalerConfig",
            "restoreToOriginalReplicaCount",
            "scalingModifiers",
        ],
    ),
    (
        &["advanced", "horizontalPodAutoscalerConfig"],
        &["behavior", "name"],
    ),
    (
        &["advanced", "scalingModifiers"],
        &["formula", "target", "activationTarget", "metricType"],
    ),
    (&["fallback"], &["failureThreshold", "replicas", "behavior"]),
    (
        &["advanced", "horizontalPodAutoscalerConfig", "behavior"],
        &["scaleUp", "scaleDown"],
    ),
];
const RULES_KEYS: &[&str] = &[
    "stabilizationWindowSeconds",
    "selectPolicy",
    "policies",
    "tolerance",
];
const POLICY_KEYS: &[&str] = &["type", "value", "periodSeconds"];

/// Warns about unknown keys below `spec` (a typo such as `stabilisationWindowSeconds` in the
/// copied behavior would otherwise vanish, as the API server prunes it).
fn warn_unknown_nested(raw: &Value, spec: &FieldPath, warn: &mut dyn FnMut(&FieldPath, &str)) {
    let mut check = |path: &FieldPath, known: &[&str]| {
        if let Some(Value::Object(map)) = at(raw, path) {
            for key in map.keys().filter(|k| !known.contains(&k.as_str())) {
                warn(&path.key(key), "unknown field (ignored)");
            }
        }
    };
    for (keys, known) in NESTED_KEYS {
        let path = keys.iter().fold(spec.clone(), |p, k| p.key(k));
        check(&path, known);
    }
    let behavior = spec
        .key("advanced")
        .key("horizontalPodAutoscalerConfig")
        .key("behavior");
    for direction in ["scaleUp", "scaleDown"] {
        let rules = behavior.key(direction);
        check(&rules, RULES_KEYS);
        let policies = at(raw, &rules.key("policies")).and_then(Value::as_array);
        for i in 0..policies.map_or(0, Vec::len) {
            check(&rules.key("policies").index(i), POLICY_KEYS);
        }
    }
}

/// Translates the ScaledObject `raw`. `warn` receives (field, message) pairs.
pub fn translate(
    raw: &Value,
    warn: &mut dyn FnMut(&FieldPath, &str),
) -> Result<Translated, FieldError> {
    let meta = FieldPath::of(&["metadata"]);
    let spec = FieldPath::of(&["spec"]);
    let object = object_meta(raw, &meta)?;
    check_spec_keys(raw, &spec, warn)?;
    let target = scale_target(raw, &spec)?;
    let counts = replica_counts(raw, &spec)?;
    let advanced = spec.key("advanced");
    let hpa_config = advanced.key("horizontalPodAutoscalerConfig");
    let hpa_name = opt_str(raw, &hpa_config.key("name"))?
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| format!("keda-hpa-{}", object.name));
    verify_name(&meta, &object.name, &hpa_config, &hpa_name)?;
    let (hpa_min, hpa_max) = replica_bounds(&spec, &counts)?;

    let (triggers, metrics, notes) = translate_triggers(raw, &spec, &object.name, warn)?;
    let only_resources = triggers
        .iter()
        .all(|t| matches!(t.value, TriggerValue::Resource));
    verify_cpu_memory_scalers(&spec, &target, counts.min, only_resources)?;
    let sm_path = advanced.key("scalingModifiers");
    let scaling = scaling_modifiers(raw, &sm_path, &triggers)?;
    let fallback = translate_fallback(
        raw,
        &spec,
        scaling.used,
        only_resources,
        scaling.has_formula,
    )?;
    let pausing = pausing(&meta, &object.annotations)?;

    let metrics = metric_specs(metrics, scaling.modifiers.as_ref(), &object.name, &sm_path);
    let metric_sources = metrics.iter().map(|(_, _, p)| p.clone()).collect();
    let behavior = hpa_behavior(raw, &hpa_config, pausing.scale_in, pausing.scale_out);
    let hpa = new_hpa(
        &object,
        &hpa_name,
        &target,
        (hpa_min, hpa_max),
        metrics,
        behavior,
    );
    let status = read_status(raw, &meta)?;

    Ok(Translated {
        hpa,
        metric_sources,
        keda: KedaSpec {
            input: KedaInput {
                min_replica_count: counts.min,
                max_replica_count: hpa_max,
                idle_replica_count: counts.idle,
                cooldown: Duration::from_secs(counts.cooldown.map_or(DEFAULT_COOLDOWN, i64::from)),
                initial_cooldown: Duration::from_secs(
                    (counts.initial_cooldown).map_or(DEFAULT_INITIAL_COOLDOWN, i64::from),
                ),
                polling_interval: Duration::from_secs(
                    counts.polling.map_or(DEFAULT_POLLING, i64::from),
                ),
                last_active: status.last_active,
                created: status.created,
                last_active_assumed: false,
                triggers,
                fallback,
                modifiers: scaling.modifiers,
                paused: pausing.paused,
                pause_scale_in: pausing.scale_in,
                pause_scale_out: pausing.scale_out,
                force_activation: bool_annotation(&object.annotations, FORCE_ACTIVATION),
                name: object.name,
                status: status.written,
            },
            health: status.health,
            notes,
        },
    })
}

/// The ScaledObject's `metadata`: what the HPA's metadata and the annotations read.
struct ObjectMeta {
    name: String,
    namespace: Option<String>,
    labels: BTreeMap<String, String>,
    annotations: BTreeMap<String, String>,
}

fn object_meta(raw: &Value, meta: &FieldPath) -> Result<ObjectMeta, FieldError> {
    let name = opt_str(raw, &meta.key("name"))?.unwrap_or_default();
    if name.is_empty() {
        return Err(field_error(
            meta.key("name"),
            "found nothing, expected the ScaledObject's name",
        ));
    }
    Ok(ObjectMeta {
        name,
        namespace: opt_str(raw, &meta.key("namespace"))?.filter(|n| !n.is_empty()),
        labels: string_map(raw, &meta.key("labels"))?,
        annotations: string_map(raw, &meta.key("annotations"))?,
    })
}

/// `spec` must be a mapping; its unknown keys, and those of the nested objects, are warned about.
fn check_spec_keys(
    raw: &Value,
    spec: &FieldPath,
    warn: &mut dyn FnMut(&FieldPath, &str),
) -> Result<(), FieldError> {
    let Some(Value::Object(spec_map)) = at(raw, spec) else {
        return Err(field_error(
            spec.clone(),
            "found nothing, expected the ScaledObject's spec",
        ));
    };
    for key in spec_map.keys() {
        if !SPEC_KEYS.contains(&key.as_str()) {
            warn(&spec.key(key), "unknown field (ignored)");
        }
    }
    warn_unknown_nested(raw, spec, warn);
    Ok(())
}

/// `spec.scaleTargetRef`.
struct ScaleTarget {
    api_version: String,
    kind: String,
    name: String,
}

// scaleTargetRef: ParseGVKR defaults to apps/v1 Deployment.
fn scale_target(raw: &Value, spec: &FieldPath) -> Result<ScaleTarget, FieldError> {
    let target = spec.key("scaleTargetRef");
    let name = opt_str(raw, &target.key("name"))?.unwrap_or_default();
    if name.is_empty() {
        return Err(field_error(
            target.key("name"),
            "found nothing, expected the name of the object to scale",
        ));
    }
    let api_version = opt_str(raw, &target.key("apiVersion"))?
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "apps/v1".to_string());
    let kind = opt_str(raw, &target.key("kind"))?
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "Deployment".to_string());
    Ok(ScaleTarget {
        api_version,
        kind,
        name,
    })
}

/// The counts and periods of `spec` as given, each with the CRD's minimum.
struct ReplicaCounts {
    polling: Option<i32>,
    initial_cooldown: Option<i32>,
    cooldown: Option<i32>,
    idle: Option<i32>,
    min: Option<i32>,
    max: Option<i32>,
}

fn replica_counts(raw: &Value, spec: &FieldPath) -> Result<ReplicaCounts, FieldError> {
    Ok(ReplicaCounts {
        polling: opt_i32(raw, &spec.key("pollingInterval"), 1)?,
        initial_cooldown: opt_i32(raw, &spec.key("initialCooldownPeriod"), 0)?,
        cooldown: opt_i32(raw, &spec.key("cooldownPeriod"), 0)?,
        idle: opt_i32(raw, &spec.key("idleReplicaCount"), 0)?,
        min: opt_i32(raw, &spec.key("minReplicaCount"), 0)?,
        max: opt_i32(raw, &spec.key("maxReplicaCount"), 1)?,
    })
}

// Port of verifyName (scaledobject_webhook.go).
/// A name quoted with its length, once: `quoted` gives the length of a name it cuts.
fn with_length(name: &str) -> String {
    let count = name.chars().count();
    if count > crate::error::ECHO_CHARS {
        crate::error::quoted(name)
    } else {
        format!("{} ({count} characters)", crate::error::quoted(name))
    }
}

fn verify_name(
    meta: &FieldPath,
    name: &str,
    hpa_config: &FieldPath,
    hpa_name: &str,
) -> Result<(), FieldError> {
    if name.len() > MAX_LABEL_VALUE {
        return Err(field_error(
            meta.key("name"),
            format!(
                "found a name of {} characters, expected at most {MAX_LABEL_VALUE} (it is the \
                 value of the {OWNER_LABEL} label)",
                name.len()
            ),
        ));
    }
    if hpa_name.len() > MAX_LABEL_VALUE {
        return Err(field_error(
            hpa_config.key("name"),
            format!(
                "found the HPA name {}, expected at most {MAX_LABEL_VALUE} characters: set \
                 spec.advanced.horizontalPodAutoscalerConfig.name to a shorter name or shorten \
                 the ScaledObject's name",
                with_length(hpa_name)
            ),
        ));
    }
    Ok(())
}

// Port of CheckReplicaCountBoundsAreValid (scaledobject_types.go) and the CRD's CEL rule. Gives
// the HPA's minReplicas and maxReplicas.
fn replica_bounds(spec: &FieldPath, counts: &ReplicaCounts) -> Result<(i32, i32), FieldError> {
    let hpa_min = counts.min.filter(|m| *m > 0).unwrap_or(1);
    let hpa_max = counts.max.unwrap_or(DEFAULT_MAX);
    let checked_min = if counts.min.is_some() { hpa_min } else { 0 };
    if checked_min > hpa_max {
        return Err(field_error(
            spec.key("minReplicaCount"),
            format!(
                "found minReplicaCount {checked_min} above maxReplicaCount {hpa_max}, expected at \
                 most maxReplicaCount"
            ),
        ));
    }
    if let Some(idle) = counts.idle
        && idle >= checked_min
    {
        return Err(field_error(
            spec.key("idleReplicaCount"),
            format!(
                "found idleReplicaCount {idle}, expected less than minReplicaCount {checked_min}"
            ),
        ));
    }
    Ok((hpa_min, hpa_max))
}

// The scale-to-zero rule of verifyCPUMemoryScalers (only for Deployments and StatefulSets,
// whose pod template the webhook reads).
fn verify_cpu_memory_scalers(
    spec: &FieldPath,
    target: &ScaleTarget,
    min: Option<i32>,
    only_resources: bool,
) -> Result<(), FieldError> {
    if only_resources
        && target.api_version == "apps/v1"
        && matches!(target.kind.as_str(), "Deployment" | "StatefulSet")
        && min.unwrap_or(0) == 0
    {
        return Err(field_error(
            spec.key("minReplicaCount"),
            "found 0 (or nothing) with only cpu/memory triggers, expected 1 or more (scale to \
             zero doesn't work in this case)",
        ));
    }
    Ok(())
}

/// `spec.advanced.scalingModifiers`, and what the fallback's rules ask of it.
struct Scaling {
    modifiers: Option<Modifiers>,
    /// `IsUsingModifiers`.
    used: bool,
    has_formula: bool,
}

// scalingModifiers: IsUsingModifiers is "the struct is not empty".
fn scaling_modifiers(
    raw: &Value,
    sm_path: &FieldPath,
    triggers: &[Trigger],
) -> Result<Scaling, FieldError> {
    let sm_formula = opt_str(raw, &sm_path.key("formula"))?.unwrap_or_default();
    let sm_target = opt_str(raw, &sm_path.key("target"))?.unwrap_or_default();
    let sm_activation = opt_str(raw, &sm_path.key("activationTarget"))?.unwrap_or_default();
    let sm_type = opt_str(raw, &sm_path.key("metricType"))?.unwrap_or_default();
    let used = !(sm_formula.is_empty()
        && sm_target.is_empty()
        && sm_activation.is_empty()
        && sm_type.is_empty());
    let modifiers = if used {
        Some(modifiers(
            sm_path,
            &sm_formula,
            &sm_target,
            &sm_activation,
            &sm_type,
            triggers,
        )?)
    } else {
        None
    };
    Ok(Scaling {
        modifiers,
        used,
        has_formula: !sm_formula.is_empty(),
    })
}

/// The paused annotations.
struct Pausing {
    paused: Option<Paused>,
    scale_in: bool,
    scale_out: bool,
}

fn pausing(
    meta: &FieldPath,
    annotations: &BTreeMap<String, String>,
) -> Result<Pausing, FieldError> {
    let paused_replicas = match annotations.get(PAUSED_REPLICAS) {
        None => None,
        Some(v) => Some(v.trim().parse::<i32>().map_err(|_| {
            field_error(
                meta.key("annotations").key(PAUSED_REPLICAS),
                format!(
                    "found {}, expected a replica count",
                    crate::error::quoted(v)
                ),
            )
        })?),
    };
    let paused = if paused_by_annotation(annotations) {
        Some(Paused {
            replicas: paused_replicas,
        })
    } else {
        None
    };
    Ok(Pausing {
        paused,
        scale_in: bool_annotation(annotations, PAUSED_SCALE_IN),
        scale_out: bool_annotation(annotations, PAUSED_SCALE_OUT),
    })
}

/// The metric specs, in KEDA's order: sorted by type (sort.Slice; for the handful of triggers
/// of a ScaledObject it runs an insertion sort, which keeps the triggers' order within a type).
/// With scaling modifiers, the External metrics give way to the composite one.
fn metric_specs(
    mut metrics: Vec<MetricEntry>,
    modifiers: Option<&Modifiers>,
    name: &str,
    sm_path: &FieldPath,
) -> Vec<MetricEntry> {
    metrics.sort_by(|a, b| a.0.cmp(&b.0));
    if let Some(m) = modifiers {
        let milli = truncate_milli(m.target);
        let target = if m.value_type {
            json!({"type": "Value", "value": format_milli(milli, Format::DecimalSI)})
        } else {
            json!({"type": "AverageValue", "averageValue": format_milli(milli, Format::DecimalSI)})
        };
        metrics.retain(|(kind, _, _)| kind == "Resource");
        metrics.push((
            "External".to_string(),
            json!({"type": "External", "external": {
                "metric": {"name": COMPOSITE_METRIC, "selector": {"matchLabels": {OWNER_LABEL: name}}},
                "target": target}}),
            sm_path.key("target"),
        ));
    }
    metrics
}

// Port of newHPAForScaledObject (hpa.go).
fn new_hpa(
    object: &ObjectMeta,
    hpa_name: &str,
    target: &ScaleTarget,
    (hpa_min, hpa_max): (i32, i32),
    metrics: Vec<MetricEntry>,
    behavior: Option<Value>,
) -> Value {
    let metadata = hpa_metadata(
        &object.name,
        object.namespace.as_deref(),
        hpa_name,
        &object.labels,
        &object.annotations,
    );
    let mut hpa_spec = Map::new();
    hpa_spec.insert(
        "scaleTargetRef".into(),
        json!({"apiVersion": target.api_version, "kind": target.kind, "name": target.name}),
    );
    hpa_spec.insert("minReplicas".into(), json!(hpa_min));
    hpa_spec.insert("maxReplicas".into(), json!(hpa_max));
    hpa_spec.insert(
        "metrics".into(),
        Value::Array(metrics.into_iter().map(|(_, m, _)| m).collect()),
    );
    if let Some(b) = behavior {
        hpa_spec.insert("behavior".into(), b);
    }
    // Built by insertion: `json!` would copy the metrics through serialization, twice the
    // memory of 80,000 triggers at the peak.
    let mut hpa = Map::new();
    hpa.insert("apiVersion".into(), "autoscaling/v2".into());
    hpa.insert("kind".into(), "HorizontalPodAutoscaler".into());
    hpa.insert("metadata".into(), metadata);
    hpa.insert("spec".into(), Value::Object(hpa_spec));
    Value::Object(hpa)
}

/// `status.lastActiveTime`, `status.health` and `metadata.creationTimestamp`, and the whole
/// status KEDA wrote (`None` without a `status`).
struct Status {
    last_active: Option<Timestamp>,
    created: Option<Timestamp>,
    health: BTreeMap<String, i32>,
    written: Option<KedaStatus>,
}

fn read_status(raw: &Value, meta: &FieldPath) -> Result<Status, FieldError> {
    let status = FieldPath::of(&["status"]);
    let last_active = timestamp(raw, &status.key("lastActiveTime"))?;
    let created = timestamp(raw, &meta.key("creationTimestamp"))?;
    let mut health = BTreeMap::new();
    let mut written = KedaStatus::default();
    if let Some(Value::Object(entries)) = at(raw, &status.key("health")) {
        for metric in entries.keys() {
            let path = status.key("health").key(metric).key("numberOfFailures");
            let failing = opt_str(raw, &status.key("health").key(metric).key("status"))?;
            let n = opt_i32(raw, &path, 0)?;
            if let Some(n) = n {
                health.insert(metric.clone(), n);
            }
            written.health.insert(
                metric.clone(),
                Health {
                    failures: n.unwrap_or(0),
                    failing: failing.as_deref() == Some("Failing"),
                },
            );
        }
    }
    written.conditions = keda_conditions(raw, &status.key("conditions"))?;
    if let Some(Value::Array(names)) = at(raw, &status.key("externalMetricNames")) {
        written.external_metric_names = names
            .iter()
            .filter_map(|n| n.as_str().map(str::to_string))
            .collect();
    }
    written.original_replica_count = opt_i32(raw, &status.key("originalReplicaCount"), 0)?;
    written.paused_replica_count = opt_i32(raw, &status.key("pausedReplicaCount"), 0)?;
    let written = at(raw, &status)
        .is_some_and(|v| v.as_object().is_some_and(|o| !o.is_empty()))
        .then_some(written);
    Ok(Status {
        last_active,
        created,
        health,
        written,
    })
}

/// `status.conditions`: `type` and `status` are required (`Condition`), `reason` and `message`
/// optional.
fn keda_conditions(raw: &Value, path: &FieldPath) -> Result<Vec<KedaCondition>, FieldError> {
    let Some(items) = at(raw, path) else {
        return Ok(Vec::new());
    };
    let Some(items) = items.as_array() else {
        return Err(field_error(
            path.clone(),
            format!("found {}, expected a list of conditions", found(items)),
        ));
    };
    let mut out = Vec::new();
    for i in 0..items.len() {
        let at_i = path.index(i);
        let text = |key: &str| opt_str(raw, &at_i.key(key));
        let (Some(condition_type), Some(status)) = (text("type")?, text("status")?) else {
            return Err(field_error(
                at_i,
                "found a condition without type or status, expected both (Ready, Active, \
                 Fallback, Paused; True, False or Unknown)",
            ));
        };
        out.push(KedaCondition {
            condition_type,
            status,
            reason: text("reason")?.unwrap_or_default(),
            message: text("message")?.unwrap_or_default(),
        });
    }
    Ok(out)
}

/// A metric spec of the HPA: its type (for the sort), the JSON, and the ScaledObject field it
/// came from.
type MetricEntry = (String, Value, FieldPath);

/// The triggers, the HPA's metric specs, and notes (a guessed scaler).
type TriggerParts = (Vec<Trigger>, Vec<MetricEntry>, Vec<String>);

/// Each trigger: validated (`ValidateTriggers`), its scaler read (`scalers.rs`), its metric spec
/// built as `GetMetricSpecForScaling` builds it.
fn translate_triggers(
    raw: &Value,
    spec: &FieldPath,
    name: &str,
    warn: &mut dyn FnMut(&FieldPath, &str),
) -> Result<TriggerParts, FieldError> {
    let triggers_path = spec.key("triggers");
    let items = trigger_items(raw, &triggers_path)?;
    let mut triggers: Vec<Trigger> = Vec::new();
    let mut metrics: Vec<MetricEntry> = Vec::new();
    let mut notes = Vec::new();
    // Sets, not lists: 80,000 triggers are checked in linear time.
    let mut names_seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut external_names: std::collections::HashSet<String> = std::collections::HashSet::new();
    for (index, item) in items.iter().enumerate() {
        let path = triggers_path.index(index);
        let fields = trigger_fields(raw, &path, item, &mut names_seen, warn)?;
        let (metric, trigger) = if matches!(fields.scaler.as_str(), "cpu" | "memory") {
            resource_trigger(
                &path,
                &fields.metadata,
                &fields.scaler,
                &fields.metric_type,
                index,
                fields.name,
            )?
        } else {
            let seen = (&mut external_names, &mut notes);
            external_trigger(&path, fields, index, name, seen)?
        };
        metrics.push(metric);
        triggers.push(trigger);
    }
    Ok((triggers, metrics, notes))
}

/// `spec.triggers`: a list of at least one.
fn trigger_items<'v>(raw: &'v Value, triggers_path: &FieldPath) -> Result<&'v [Value], FieldError> {
    match at(raw, triggers_path) {
        Some(Value::Array(items)) if !items.is_empty() => Ok(items.as_slice()),
        Some(Value::Array(_)) | None => Err(field_error(
            triggers_path.clone(),
            "found no triggers, expected at least one (no triggers defined in the ScaledObject)",
        )),
        Some(other) => Err(field_error(
            triggers_path.clone(),
            format!("found {}, expected a list of triggers", found(other)),
        )),
    }
}

/// What every trigger gives, whatever its scaler.
struct TriggerFields {
    scaler: String,
    name: String,
    metadata: BTreeMap<String, String>,
    metric_type: String,
}

/// A trigger's own fields, validated; `names_seen` are the names of the triggers before it.
fn trigger_fields(
    raw: &Value,
    path: &FieldPath,
    item: &Value,
    names_seen: &mut std::collections::HashSet<String>,
    warn: &mut dyn FnMut(&FieldPath, &str),
) -> Result<TriggerFields, FieldError> {
    let Value::Object(item_map) = item else {
        return Err(field_error(
            path.clone(),
            format!(
                "found {}, expected a trigger (type and metadata)",
                found(item)
            ),
        ));
    };
    for key in item_map.keys() {
        if !TRIGGER_KEYS.contains(&key.as_str()) {
            warn(&path.key(key), "unknown field (ignored)");
        }
    }
    let scaler = opt_str(raw, &path.key("type"))?.unwrap_or_default();
    if scaler.is_empty() {
        return Err(field_error(
            path.key("type"),
            "found nothing, expected the scaler's type (prometheus, kafka, cpu, ...)",
        ));
    }
    let trigger_name = opt_str(raw, &path.key("name"))?.unwrap_or_default();
    // Port of ValidateTriggers (scaletriggers_types.go).
    if !trigger_name.is_empty() && !names_seen.insert(trigger_name.clone()) {
        return Err(field_error(
            path.key("name"),
            format!(
                "found the trigger name {} a second time, expected unique names",
                crate::error::quoted(&trigger_name)
            ),
        ));
    }
    let cached = at(raw, &path.key("useCachedMetrics")).and_then(Value::as_bool) == Some(true);
    if cached && matches!(scaler.as_str(), "cpu" | "memory" | "cron") {
        return Err(field_error(
            path.key("useCachedMetrics"),
            format!(
                "found true, expected false: not supported for the {} scaler",
                crate::error::quoted(&scaler)
            ),
        ));
    }
    let metadata_path = path.key("metadata");
    let metadata = string_map(raw, &metadata_path)?;
    for key in MISPLACED {
        if metadata.contains_key(*key) {
            warn(
                &metadata_path.key(key),
                &format!(
                    "{key} is a ScaledObject setting, not trigger metadata: the scaler \
                     ignores it (put it under spec)"
                ),
            );
        }
    }
    let metric_type = opt_str(raw, &path.key("metricType"))?.unwrap_or_default();
    if !matches!(
        metric_type.as_str(),
        "" | "AverageValue" | "Value" | "Utilization"
    ) {
        return Err(field_error(
            path.key("metricType"),
            format!(
                "found {}, expected AverageValue, Value or Utilization",
                crate::error::quoted(&metric_type)
            ),
        ));
    }
    Ok(TriggerFields {
        scaler,
        name: trigger_name,
        metadata,
        metric_type,
    })
}

/// A trigger of any scaler but cpu and memory: an External metric of the HPA, named by the
/// scaler. `seen` holds the metric names of the triggers before it and receives the notes.
fn external_trigger(
    path: &FieldPath,
    fields: TriggerFields,
    index: usize,
    name: &str,
    (external_names, notes): (&mut std::collections::HashSet<String>, &mut Vec<String>),
) -> Result<(MetricEntry, Trigger), FieldError> {
    let metadata_path = path.key("metadata");
    // Port of GetMetricTargetType (pkg/scalers/scaler.go).
    let target_type = match fields.metric_type.as_str() {
        "" | "AverageValue" => "AverageValue",
        "Value" => "Value",
        _ => {
            return Err(field_error(
                path.key("metricType"),
                "found Utilization, expected Value or AverageValue ('Utilization' metric \
                 type is unsupported for external metrics)",
            ));
        }
    };
    let scaler = fields.scaler;
    let spec = scalers::spec(&scaler, &fields.metadata).map_err(|e| {
        let at = match &e.key {
            Some(k) => metadata_path.key(k),
            None => path.key("type"),
        };
        field_error(at, e.message)
    })?;
    if let Some(g) = &spec.guessed {
        notes.push(format!("Trigger s{index} ({scaler}): {g}."));
    }
    let metric_name = scalers::with_index(index, &spec.metric_name);
    // Port of the duplicate check in getScaledObjectMetricSpecs (hpa.go).
    if !external_names.insert(metric_name.clone()) {
        return Err(field_error(
            path.clone(),
            format!(
                "found the metric name {} a second time, expected unique metric names \
                 (metricName defined multiple times in ScaledObject {})",
                crate::error::quoted_bare(&metric_name),
                crate::error::quoted_bare(name)
            ),
        ));
    }
    let milli = match spec.threshold {
        Threshold::Integer(n) => n.saturating_mul(1000),
        Threshold::Milli(f) => milli_from_float(f),
    };
    let quantity = match spec.threshold {
        Threshold::Integer(n) => integer_quantity(n),
        Threshold::Milli(_) => format_milli(milli, Format::DecimalSI),
    };
    let target_json = if target_type == "AverageValue" {
        json!({"type": "AverageValue", "averageValue": quantity})
    } else {
        json!({"type": "Value", "value": quantity})
    };
    let metric = (
        "External".to_string(),
        json!({"type": "External", "external": {
            "metric": {"name": metric_name, "selector": {"matchLabels": {OWNER_LABEL: name}}},
            "target": target_json}}),
        metadata_path.key(&spec.threshold_source),
    );
    let trigger = Trigger {
        index,
        threshold_key: threshold_key(&scaler, &spec.threshold_source),
        scaler,
        name: fields.name,
        metric_name: Some(metric_name),
        activation: spec.activation,
        activation_source: spec.activation_source,
        target: Some(ExternalTarget {
            milli,
            value_type: target_type == "Value",
        }),
        value: TriggerValue::Value(0.0),
        active_value: spec.active_value,
        failures: 0,
        threshold_integer: matches!(spec.threshold, Threshold::Integer(_)),
    };
    Ok((metric, trigger))
}

/// The metadata key that sets a scaler's target, for a fix to name: the key read, or for a
/// default the key the scaler reads it from (`scalers.rs`); `None` for cron, whose target is
/// always 1.
fn threshold_key(scaler: &str, source: &str) -> Option<String> {
    if scaler == "cron" {
        return None;
    }
    if !source.starts_with("default") {
        return Some(source.to_string());
    }
    let key = match scaler {
        "kafka" => "lagThreshold",
        "aws-sqs-queue" => "queueLength",
        "azure-servicebus" => "messageCount",
        "redis" | "redis-cluster" | "redis-sentinel" => "listLength",
        "redis-streams" | "redis-cluster-streams" | "redis-sentinel-streams" => {
            "pendingEntriesCount"
        }
        "rabbitmq" => "value",
        _ => "threshold",
    };
    Some(key.to_string())
}

// Port of parseResourceMetadata / GetMetricSpecForScaling (cpu_memory_scaler.go): a cpu or
// memory trigger is a Resource (or ContainerResource) metric of the HPA.
fn resource_trigger(
    path: &FieldPath,
    metadata: &BTreeMap<String, String>,
    scaler: &str,
    metric_type: &str,
    index: usize,
    trigger_name: String,
) -> Result<(MetricEntry, Trigger), FieldError> {
    let metadata_path = path.key("metadata");
    if metadata.contains_key("type") {
        return Err(field_error(
            metadata_path.key("type"),
            "found the removed `type` setting, expected metricType on the trigger (The \
             'type' setting is DEPRECATED and is removed in v2.18 - Use 'metricType' \
             instead.)",
        ));
    }
    let value = metadata.get("value").cloned().unwrap_or_default();
    if value.is_empty() {
        return Err(field_error(
            metadata_path.key("value"),
            "found nothing, expected the target value (required)",
        ));
    }
    let target = match metric_type {
        "Utilization" => {
            let n: i32 = value.trim().parse().map_err(|_| {
                field_error(
                    metadata_path.key("value"),
                    format!(
                        "found {}, expected a whole percentage",
                        crate::error::quoted(&value)
                    ),
                )
            })?;
            json!({"type": "Utilization", "averageUtilization": n})
        }
        "AverageValue" => {
            parse_milli(&value).map_err(|e| {
                field_error(
                    metadata_path.key("value"),
                    format!(
                        "found {}, expected a quantity ({e})",
                        crate::error::quoted(&value)
                    ),
                )
            })?;
            json!({"type": "AverageValue", "averageValue": value})
        }
        other => {
            return Err(field_error(
                path.key("metricType"),
                format!(
                    "found {}, expected Utilization or AverageValue for a {scaler} trigger",
                    if other.is_empty() {
                        "nothing".to_string()
                    } else {
                        crate::error::quoted(other).to_string()
                    }
                ),
            ));
        }
    };
    let container = metadata.get("containerName").filter(|c| !c.is_empty());
    let (metric_kind, spec_json) = match container {
        Some(c) => (
            "ContainerResource",
            json!({"type": "ContainerResource", "containerResource":
                {"name": scaler, "container": c, "target": target}}),
        ),
        None => (
            "Resource",
            json!({"type": "Resource", "resource": {"name": scaler, "target": target}}),
        ),
    };
    Ok((
        (metric_kind.to_string(), spec_json, path.clone()),
        Trigger {
            index,
            scaler: scaler.to_string(),
            name: trigger_name,
            metric_name: None,
            activation: 0.0,
            activation_source: "always active (cpu and memory)".to_string(),
            target: None,
            value: TriggerValue::Resource,
            active_value: None,
            failures: 0,
            threshold_key: Some("value".to_string()),
            threshold_integer: metric_type == "Utilization",
        },
    ))
}

// Port of the fallback rules: the CRD's enum and minimums, CheckFallbackValid and the
// scalingModifiers behavior's requirement (scaledobject_types.go, scaledobject_webhook.go).
fn translate_fallback(
    raw: &Value,
    spec: &FieldPath,
    using_modifiers: bool,
    only_resources: bool,
    has_formula: bool,
) -> Result<Option<Fallback>, FieldError> {
    let fb_path = spec.key("fallback");
    Ok(match at(raw, &fb_path) {
        None => None,
        Some(_) => {
            let threshold =
                opt_i32(raw, &fb_path.key("failureThreshold"), 0)?.ok_or_else(|| {
                    field_error(
                        fb_path.key("failureThreshold"),
                        "found nothing, expected the failures before the fallback (required)",
                    )
                })?;
            let replicas = opt_i32(raw, &fb_path.key("replicas"), 0)?.ok_or_else(|| {
                field_error(
                    fb_path.key("replicas"),
                    "found nothing, expected the fallback replicas (required)",
                )
            })?;
            let behavior = match opt_str(raw, &fb_path.key("behavior"))?.as_deref() {
                None | Some("" | "static") => FallbackBehavior::Static,
                Some("currentReplicas") => FallbackBehavior::CurrentReplicas,
                Some("currentReplicasIfHigher") => FallbackBehavior::CurrentReplicasIfHigher,
                Some("currentReplicasIfLower") => FallbackBehavior::CurrentReplicasIfLower,
                Some("scalingModifiers") => FallbackBehavior::ScalingModifiers,
                Some(other) => {
                    return Err(field_error(
                        fb_path.key("behavior"),
                        format!(
                            "found {}, expected static, currentReplicas, \
                             currentReplicasIfHigher, currentReplicasIfLower or scalingModifiers",
                            crate::error::quoted(other)
                        ),
                    ));
                }
            };
            if !using_modifiers && only_resources {
                return Err(field_error(
                    fb_path,
                    "found a fallback with only cpu/memory triggers, expected at least one other \
                     trigger (at least one trigger (that is not cpu or memory) has to have the \
                     `AverageValue` type for the fallback to be enabled)",
                ));
            }
            if behavior == FallbackBehavior::ScalingModifiers && !has_formula {
                return Err(field_error(
                    fb_path.key("behavior"),
                    "found scalingModifiers, expected spec.advanced.scalingModifiers.formula to \
                     be defined (scalingModifiers fallback behavior requires \
                     scalingModifiers.formula to be defined)",
                ));
            }
            Some(Fallback {
                failure_threshold: threshold,
                replicas,
                behavior,
            })
        }
    })
}

// Port of the behavior part of newHPAForScaledObject (hpa.go): copied, with the
// paused-scale-in/out annotations setting `selectPolicy: Disabled`.
fn hpa_behavior(
    raw: &Value,
    hpa_config: &FieldPath,
    pause_in: bool,
    pause_out: bool,
) -> Option<Value> {
    let mut behavior = at(raw, &hpa_config.key("behavior")).cloned();
    for (paused, direction) in [(pause_in, "scaleDown"), (pause_out, "scaleUp")] {
        if paused {
            let b = behavior.get_or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(b) = b {
                let rules = b
                    .entry(direction)
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(rules) = rules {
                    rules.insert("selectPolicy".to_string(), json!("Disabled"));
                }
            }
        }
    }
    behavior
}

// Port of the metadata of newHPAForScaledObject (hpa.go): KEDA's labels, the ScaledObject's
// labels minus the excluded ones, its annotations, and the ScaledObject as the owner.
fn hpa_metadata(
    name: &str,
    namespace: Option<&str>,
    hpa_name: &str,
    labels: &BTreeMap<String, String>,
    annotations: &BTreeMap<String, String>,
) -> Value {
    let mut hpa_labels = Map::new();
    let label_name = truncate_label(hpa_name);
    hpa_labels.insert("app.kubernetes.io/name".into(), json!(label_name));
    hpa_labels.insert("app.kubernetes.io/version".into(), json!("2.20.1"));
    hpa_labels.insert("app.kubernetes.io/part-of".into(), json!(name));
    hpa_labels.insert(
        "app.kubernetes.io/managed-by".into(),
        json!("keda-operator"),
    );
    let excluded: Vec<&str> = annotations
        .get(EXCLUDED_LABELS_ANNOTATION)
        .map(|s| s.split(',').collect())
        .unwrap_or_default();
    for (k, v) in labels {
        if !excluded.contains(&k.as_str()) {
            hpa_labels.insert(k.clone(), json!(v));
        }
    }
    let mut metadata = Map::new();
    metadata.insert("name".into(), json!(hpa_name));
    if let Some(ns) = namespace {
        metadata.insert("namespace".into(), json!(ns));
    }
    metadata.insert("labels".into(), Value::Object(hpa_labels));
    if !annotations.is_empty() {
        metadata.insert("annotations".into(), json!(annotations));
    }
    metadata.insert(
        "ownerReferences".into(),
        json!([{"apiVersion": API_VERSION, "kind": KIND, "name": name,
                "controller": true, "blockOwnerDeletion": true}]),
    );
    Value::Object(metadata)
}

/// The `app.kubernetes.io/name` label: at most 63 characters, without trailing non-alphanumerics.
fn truncate_label(name: &str) -> String {
    if name.len() <= MAX_LABEL_VALUE {
        return name.to_string();
    }
    let cut: String = name.chars().take(MAX_LABEL_VALUE).collect();
    cut.trim_end_matches(|c: char| !c.is_alphanumeric())
        .to_string()
}

fn timestamp(raw: &Value, path: &FieldPath) -> Result<Option<Timestamp>, FieldError> {
    match opt_str(raw, path)? {
        None => Ok(None),
        Some(s) => Timestamp::parse_rfc3339(&s).map(Some).ok_or_else(|| {
            field_error(
                path.clone(),
                format!(
                    "found {}, expected an RFC 3339 time",
                    crate::error::quoted(&s)
                ),
            )
        }),
    }
}

// Port of ValidateAndCompileScalingModifiers (scaledobject_webhook.go): the formula is
// required, compiled against the names of the non-cpu/memory triggers; the target must be a
// positive float and the metric type AverageValue or Value.
fn modifiers(
    path: &FieldPath,
    formula_text: &str,
    target: &str,
    activation: &str,
    metric_type: &str,
    triggers: &[Trigger],
) -> Result<Modifiers, FieldError> {
    if formula_text.is_empty() {
        return Err(field_error(
            path.key("formula"),
            "found nothing, expected a formula (ScalingModifiers.Formula is mandatory)",
        ));
    }
    if target.is_empty() {
        return Err(field_error(
            path.key("target"),
            "found nothing, expected a target (formula is given but target is empty)",
        ));
    }
    let names: Vec<&str> = triggers
        .iter()
        .filter(|t| !matches!(t.value, TriggerValue::Resource) && !t.name.is_empty())
        .map(|t| t.name.as_str())
        .collect();
    let formula = formula::parse(formula_text, &names).map_err(|e| {
        let shown = crate::error::quoted(formula_text);
        field_error(path.key("formula"), format!("in {shown}: {e}"))
    })?;
    // The webhook runs the compiled formula once with every trigger at -1, wrapped in `float(...)`
    // (castToFloatIfNecessary; with `??` a nil result is allowed): a type error is refused at
    // admission. The evaluator is the calculation's own, which is pure.
    let dummy = names
        .iter()
        .map(|n| ((*n).to_string(), Some(-1.0)))
        .collect();
    let refused = match crate::formula::eval(&formula, &dummy) {
        Err(e) => Some(e),
        Ok(crate::formula::Value::Bool(_)) => {
            Some("it returns a bool, expected a number (float(bool))".to_string())
        }
        Ok(crate::formula::Value::Nil) if !formula_text.contains("??") => {
            Some("it returns nil, expected a number (float(nil))".to_string())
        }
        Ok(_) => None,
    };
    if let Some(e) = refused {
        return Err(field_error(
            path.key("formula"),
            format!(
                "in {}: the webhook's trial run with every trigger at -1 fails: {e}",
                crate::error::quoted(formula_text)
            ),
        ));
    }
    let target_value = scalers::parse_float(target)
        .filter(|v| *v > 0.0)
        .ok_or_else(|| {
            field_error(
                path.key("target"),
                format!(
                    "found {}, expected a number above 0",
                    crate::error::quoted(target)
                ),
            )
        })?;
    let activation_target = if activation.is_empty() {
        0.0
    } else {
        scalers::parse_float(activation).ok_or_else(|| {
            field_error(
                path.key("activationTarget"),
                format!(
                    "found {}, expected a number",
                    crate::error::quoted(activation)
                ),
            )
        })?
    };
    let value_type = match metric_type {
        "" | "AverageValue" => false,
        "Value" => true,
        other => {
            return Err(field_error(
                path.key("metricType"),
                format!(
                    "found {}, expected AverageValue or Value",
                    crate::error::quoted(other)
                ),
            ));
        }
    };
    Ok(Modifiers {
        text: formula_text.to_string(),
        formula,
        target: target_value,
        target_is_integer: target.trim().parse::<i64>().is_ok_and(|n| n > 0),
        activation_target,
        value_type,
    })
}

/// The KEDA part of the scenario from the settings: `--metric-value` (or `files`, the external
/// metrics API's answers), `--metric-failures`, `--last-active`.
pub fn from_settings(
    translated: &Translated,
    settings: &Settings,
    files: &BTreeMap<String, Vec<i64>>,
    now: Timestamp,
) -> anyhow::Result<(KedaInput, Vec<String>)> {
    let age = match &settings.last_active {
        Some(text) => Some(crate::input::flag_duration("--last-active", text)?),
        None => None,
    };
    let (input, notes) = resolve(
        &translated.keda,
        &settings.metric_values,
        files,
        settings.metric_failures,
        age,
        now,
    )?;
    Ok((input, notes))
}

/// The KEDA settings with an HPA manifest: a usage error.
pub fn refuse_settings(settings: &Settings, hpa_file: &str) -> anyhow::Result<()> {
    for (flag, given) in [
        ("--last-active", settings.last_active.is_some()),
        ("--metric-failures", settings.metric_failures.is_some()),
    ] {
        if given {
            anyhow::bail!(crate::error::UsageError(format!(
                "{flag} applies to a KEDA ScaledObject, and {hpa_file} holds an HPA"
            )));
        }
    }
    Ok(())
}

/// The `--metric-value` flag's special value for a failing scaler.
pub const FAILED: &str = "failed";

/// Fills in the trigger values: `flags` (`NAME=VALUE`, NAME a trigger's name, `s<index>` or the
/// generated metric name; VALUE a number, a quantity, or `failed`), else an external metrics API
/// answer (`files`, by metric name), the failure counts from
/// `status.health` or `failures`, and the last active time from `--last-active`.
pub fn resolve(
    spec: &KedaSpec,
    flags: &[String],
    files: &BTreeMap<String, Vec<i64>>,
    failures: Option<i32>,
    last_active_age: Option<Duration>,
    now: Timestamp,
) -> Result<(KedaInput, Vec<String>), InputError> {
    let mut input = spec.input.clone();
    let mut notes = spec.notes.clone();
    let given = flag_values(&input, flags)?;
    for (trigger, value) in input.triggers.iter_mut().zip(given) {
        let Some(metric) = trigger.metric_name.clone() else {
            continue;
        };
        trigger.value = match value {
            Some(v) => v,
            None if !files.contains_key(&metric) && inferable(spec, &metric) => {
                TriggerValue::Unknown
            }
            None => file_value(trigger, &metric, files, &mut notes)?,
        };
    }
    status_state(spec, &mut input, failures)?;
    last_active(&mut input, last_active_age, now, &mut notes);
    Ok((input, notes))
}

/// What KEDA remembers that its status shows, put into its input: each trigger's consecutive
/// failures from `status.health` (or `--metric-failures`). One piece of code for the one-shot
/// answer and the simulation's start; `status.lastActiveTime` is already the input's.
pub fn status_state(
    spec: &KedaSpec,
    input: &mut KedaInput,
    failures: Option<i32>,
) -> Result<(), InputError> {
    if failures.is_some_and(|n| n < 0) {
        return Err(InputError::new(
            "--metric-failures",
            "found a negative count, expected 0 or more",
        ));
    }
    for trigger in &mut input.triggers {
        let Some(metric) = &trigger.metric_name else {
            continue;
        };
        trigger.failures = match (spec.health.get(metric), failures) {
            (_, Some(n)) => n,
            (Some(n), None) => *n,
            (None, None) => 0,
        };
    }
    Ok(())
}

/// A trigger without a value whose value the status bounds (`calc::keda::status`): KEDA wrote
/// `Active=False` (every trigger at or below its activation threshold), `HPAActive=False`
/// `FailedGetExternalMetric` (a trigger served the HPA no value), or this metric's health is
/// `Failing`. `Active=True` alone does not say how far above: the value stays required.
fn inferable(spec: &KedaSpec, metric: &str) -> bool {
    let Some(status) = &spec.input.status else {
        return false;
    };
    status.is("Active") == Some(false)
        || crate::calc::keda::status::hpa_failed(status).is_some()
        || status
            .health
            .get(metric)
            .is_some_and(|h| h.failing && h.failures > 0)
}

const METRIC_VALUE: &str = "--metric-value";

/// The value `--metric-value` gives each trigger, if any.
fn flag_values(
    input: &KedaInput,
    flags: &[String],
) -> Result<Vec<Option<TriggerValue>>, InputError> {
    let mut given = vec![None; input.triggers.len()];
    for flag in flags {
        let Some((key, value)) = flag.split_once('=') else {
            return Err(InputError::new(
                METRIC_VALUE,
                format!("found \"{flag}\", expected NAME=VALUE"),
            ));
        };
        let key = key.trim();
        let (pos, trigger) = flag_trigger(input, key)?;
        if given.get(pos).is_some_and(Option::is_some) {
            return Err(InputError::new(
                METRIC_VALUE,
                format!(
                    "found trigger s{} given twice, expected it once",
                    trigger.index
                ),
            ));
        }
        let parsed = flag_value(key, value.trim())?;
        if let Some(slot) = given.get_mut(pos) {
            *slot = Some(parsed);
        }
    }
    Ok(given)
}

/// The trigger `key` names (its name, `s<index>` or its metric name), and its position: one with
/// an External metric.
fn flag_trigger<'t>(input: &'t KedaInput, key: &str) -> Result<(usize, &'t Trigger), InputError> {
    let Some((pos, trigger)) = input.triggers.iter().enumerate().find(|(_, t)| {
        (!t.name.is_empty() && t.name == key)
            || format!("s{}", t.index) == key
            || t.metric_name.as_deref() == Some(key)
    }) else {
        let known: Vec<String> = input
            .triggers
            .iter()
            .filter(|t| t.metric_name.is_some())
            .map(|t| {
                let mut n = format!("s{}", t.index);
                if !t.name.is_empty() {
                    n = format!("{} ({n})", t.name);
                }
                n
            })
            .collect();
        return Err(InputError::new(
            METRIC_VALUE,
            format!(
                "found \"{key}\", expected a trigger of ScaledObject {}: its name, s<index> \
                 or its metric name ({})",
                input.name,
                known.join(", ")
            ),
        ));
    };
    if trigger.metric_name.is_none() {
        return Err(InputError::new(
            METRIC_VALUE,
            format!(
                "found \"{key}\", a {} trigger, expected a trigger with an External metric \
                 (cpu and memory come from the pods)",
                trigger.scaler
            ),
        ));
    }
    Ok((pos, trigger))
}

/// A `--metric-value` VALUE: a number, a quantity or `failed`.
fn flag_value(key: &str, value: &str) -> Result<TriggerValue, InputError> {
    if value.eq_ignore_ascii_case(FAILED) {
        return Ok(TriggerValue::Failed);
    }
    if let Some(v) = scalers::parse_float(value) {
        return Ok(TriggerValue::Value(v));
    }
    let milli = parse_milli(value).map_err(|e| {
        InputError::new(
            METRIC_VALUE,
            format!(
                "found \"{value}\" for {key}, expected a number, a quantity or \
                 `failed` ({e})"
            ),
        )
    })?;
    #[allow(clippy::cast_precision_loss)]
    Ok(TriggerValue::Value(milli as f64 / 1000.0))
}

/// A trigger's value from the external metrics API's answer for `metric`, which no flag gave.
fn file_value(
    trigger: &Trigger,
    metric: &str,
    files: &BTreeMap<String, Vec<i64>>,
    notes: &mut Vec<String>,
) -> Result<TriggerValue, InputError> {
    if let Some(values) = files.get(metric) {
        notes.push(format!(
            "KEDA: trigger s{} value from --external-metrics (what KEDA's metrics server \
             answered for {metric}).",
            trigger.index
        ));
        #[allow(clippy::cast_precision_loss)]
        return Ok(TriggerValue::Value(
            values.iter().fold(0i64, |a, v| a.saturating_add(*v)) as f64 / 1000.0,
        ));
    }
    let label = if trigger.name.is_empty() {
        format!("s{}", trigger.index)
    } else {
        trigger.name.clone()
    };
    Err(InputError::new(
        METRIC_VALUE,
        format!(
            "found no value for trigger s{} ({}, metric {metric}), expected \
             --metric-value {label}=VALUE (the scaler's raw total) or {label}=failed",
            trigger.index, trigger.scaler
        ),
    ))
}

/// The last active time: `--last-active`'s age before `now`, else `status.lastActiveTime`, else
/// what its absence means.
fn last_active(
    input: &mut KedaInput,
    last_active_age: Option<Duration>,
    now: Timestamp,
    notes: &mut Vec<String>,
) {
    match (last_active_age, input.last_active) {
        (Some(age), _) => input.last_active = Some(now.sub(age)),
        (None, Some(t)) => notes.push(format!(
            "KEDA: last active time {} from status.lastActiveTime.",
            t.to_rfc3339()
        )),
        (None, None) if input.created.is_some() => notes.push(
            "KEDA: no --last-active and no status.lastActiveTime: never active, so the cooldown \
             counts from metadata.creationTimestamp + initialCooldownPeriod."
                .to_string(),
        ),
        (None, None) => {
            input.last_active_assumed = true;
            notes.push(
                "KEDA: no --last-active and no status.lastActiveTime: the triggers are assumed to \
                 have been last active long ago (the cooldown has passed)."
                    .to_string(),
            );
        }
    }
}

#[cfg(test)]
mod tests;
