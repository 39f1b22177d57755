//! What the API server does to an `autoscaling/v2` HPA before the controller sees it: defaulting
//! (`pkg/apis/autoscaling/v2/defaults.go`) and validation
//! (`pkg/apis/autoscaling/validation/validation.go`).
//!
//! Validation stops at the first error (the API server lists them all) and checks, in the
//! server's order, the rules that the controller's answer depends on. Messages say what was found
//! and what was expected, with the server's own wording in parentheses where it helps a search.

use k8s_openapi::api::autoscaling::v2 as api;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;

use super::locate::FieldPath;
use crate::quantity::{self, Quantity};

/// A problem with one field of the manifest; the caller adds the file and line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub path: FieldPath,
    pub message: String,
}

pub fn field_error(path: FieldPath, message: impl Into<String>) -> FieldError {
    FieldError {
        path,
        message: message.into(),
    }
}

/// `autoscaling.DefaultCPUUtilization` (pkg/apis/autoscaling/annotations.go).
pub const DEFAULT_CPU_UTILIZATION: i32 = 80;
/// `MaxPeriodSeconds` (validation.go).
const MAX_PERIOD_SECONDS: i32 = 1800;
/// `MaxStabilizationWindowSeconds` (validation.go).
const MAX_STABILIZATION_WINDOW_SECONDS: i32 = 3600;

pub const METRIC_TYPES: &str = "ContainerResource, External, Object, Pods or Resource";
pub const TARGET_TYPES: &str = "Utilization, Value or AverageValue";

/// The metric an HPA without metrics gets: CPU at 80% utilization.
pub fn default_cpu_metric(utilization: i32) -> api::MetricSpec {
    api::MetricSpec {
        type_: "Resource".to_string(),
        resource: Some(api::ResourceMetricSource {
            name: "cpu".to_string(),
            target: api::MetricTarget {
                type_: "Utilization".to_string(),
                average_utilization: Some(utilization),
                ..Default::default()
            },
        }),
        ..Default::default()
    }
}

// Port of SetDefaults_HorizontalPodAutoscaler (pkg/apis/autoscaling/v2/defaults.go)
pub fn set_defaults(spec: &mut api::HorizontalPodAutoscalerSpec) {
    if spec.min_replicas.is_none() {
        spec.min_replicas = Some(1);
    }
    if spec.metrics.as_ref().is_none_or(Vec::is_empty) {
        spec.metrics = Some(vec![default_cpu_metric(DEFAULT_CPU_UTILIZATION)]);
    }
    set_behavior_defaults(spec);
}

// Port of SetDefaults_HorizontalPodAutoscalerBehavior (pkg/apis/autoscaling/v2/defaults.go):
// a nil behavior stays nil (the legacy path); a present one gets both directions filled.
fn set_behavior_defaults(spec: &mut api::HorizontalPodAutoscalerSpec) {
    if let Some(behavior) = &mut spec.behavior {
        behavior.scale_up = Some(generate_scale_up_rules(behavior.scale_up.take()));
        behavior.scale_down = Some(generate_scale_down_rules(behavior.scale_down.take()));
    }
}

fn policy(type_: &str, value: i32, period_seconds: i32) -> api::HPAScalingPolicy {
    api::HPAScalingPolicy {
        type_: type_.to_string(),
        value,
        period_seconds,
    }
}

// Port of GenerateHPAScaleUpRules (pkg/apis/autoscaling/v2/defaults.go)
fn generate_scale_up_rules(from: Option<api::HPAScalingRules>) -> api::HPAScalingRules {
    let defaults = api::HPAScalingRules {
        stabilization_window_seconds: Some(0),
        select_policy: Some("Max".to_string()),
        policies: Some(vec![policy("Pods", 4, 15), policy("Percent", 100, 15)]),
        tolerance: None,
    };
    copy_scaling_rules(from, defaults)
}

// Port of GenerateHPAScaleDownRules (pkg/apis/autoscaling/v2/defaults.go): the window stays nil,
// the controller fills it from --horizontal-pod-autoscaler-downscale-stabilization.
fn generate_scale_down_rules(from: Option<api::HPAScalingRules>) -> api::HPAScalingRules {
    let defaults = api::HPAScalingRules {
        stabilization_window_seconds: None,
        select_policy: Some("Max".to_string()),
        policies: Some(vec![policy("Percent", 100, 15)]),
        tolerance: None,
    };
    copy_scaling_rules(from, defaults)
}

// Port of copyHPAScalingRules (pkg/apis/autoscaling/v2/defaults.go): every set field wins, and a
// set `policies` list (even empty) replaces the default list.
fn copy_scaling_rules(
    from: Option<api::HPAScalingRules>,
    mut to: api::HPAScalingRules,
) -> api::HPAScalingRules {
    let Some(from) = from else { return to };
    if from.select_policy.is_some() {
        to.select_policy = from.select_policy;
    }
    if from.stabilization_window_seconds.is_some() {
        to.stabilization_window_seconds = from.stabilization_window_seconds;
    }
    if from.policies.is_some() {
        to.policies = from.policies;
    }
    if from.tolerance.is_some() {
        to.tolerance = from.tolerance;
    }
    to
}

// Port of validateHorizontalPodAutoscalerSpec (pkg/apis/autoscaling/validation/validation.go),
// with HPAScaleToZero on: minReplicas may be 0.
pub fn validate(spec: &api::HorizontalPodAutoscalerSpec) -> Result<(), FieldError> {
    let path = FieldPath::of(&["spec"]);
    if let Some(min) = spec.min_replicas
        && min < 0
    {
        return Err(field_error(
            path.key("minReplicas"),
            format!("found {min}, expected 0 or more"),
        ));
    }
    if spec.max_replicas < 1 {
        return Err(field_error(
            path.key("maxReplicas"),
            format!(
                "found {}, expected a number greater than 0",
                spec.max_replicas
            ),
        ));
    }
    if let Some(min) = spec.min_replicas
        && spec.max_replicas < min
    {
        return Err(field_error(
            path.key("maxReplicas"),
            format!(
                "found {}, expected a number greater than or equal to `minReplicas` ({min})",
                spec.max_replicas
            ),
        ));
    }
    let target = &spec.scale_target_ref;
    validate_object_reference(&target.kind, &target.name, &path.key("scaleTargetRef"))?;
    validate_metrics(
        spec.metrics.as_deref().unwrap_or_default(),
        &path.key("metrics"),
        spec.min_replicas,
    )?;
    if let Some(behavior) = &spec.behavior {
        // Port of validateBehavior (validation.go)
        let path = path.key("behavior");
        if let Some(rules) = &behavior.scale_up {
            validate_scaling_rules(rules, &path.key("scaleUp"))?;
        }
        if let Some(rules) = &behavior.scale_down {
            validate_scaling_rules(rules, &path.key("scaleDown"))?;
        }
    }
    Ok(())
}

// Port of ValidateCrossVersionObjectReference (validation.go): kind and name are required path
// segments. (The apiVersion group check of newer servers is a warning, see `reference_warnings`.)
fn validate_object_reference(kind: &str, name: &str, path: &FieldPath) -> Result<(), FieldError> {
    if kind.is_empty() {
        return Err(field_error(
            path.key("kind"),
            "found nothing, expected the kind of the object (e.g. Deployment)",
        ));
    }
    validate_path_segment(kind, &path.key("kind"))?;
    if name.is_empty() {
        return Err(field_error(
            path.key("name"),
            "found nothing, expected the name of the object",
        ));
    }
    validate_path_segment(name, &path.key("name"))?;
    validate_name_length(name, MAX_NAME, &path.key("name"))
}

/// The longest object name (`NameIsDNSSubdomain`: 253 characters): no object an HPA scales or
/// reads a metric of has a longer one, and no longer name is worth reading on.
pub const MAX_NAME: usize = 253;
/// The longest namespace (`ValidateNamespaceName`, a DNS label: 63 characters).
pub const MAX_NAMESPACE: usize = 63;

// Port of the length rule of NameIsDNSSubdomain / IsDNS1123Label (apimachinery validation.go).
pub fn validate_name_length(name: &str, max: usize, path: &FieldPath) -> Result<(), FieldError> {
    let count = name.chars().count();
    if count > max {
        return Err(field_error(
            path.clone(),
            format!(
                "found a name of {count} characters, expected at most {max} (the API server \
                 refuses a longer one)"
            ),
        ));
    }
    Ok(())
}

// Port of IsValidPathSegmentName (k8s.io/apimachinery/pkg/api/validation/path/name.go): a name
// may not be `.` or `..` (NameMayNotBe) and may not contain `/` or `%` (NameMayNotContain);
// the first reason, in its words.
pub fn path_segment_refusal(name: &str) -> Option<String> {
    if name == "." || name == ".." {
        return Some(format!("may not be '{name}'"));
    }
    ["/", "%"]
        .into_iter()
        .find(|bad| name.contains(bad))
        .map(|bad| format!("may not contain '{bad}'"))
}

fn validate_path_segment(name: &str, path: &FieldPath) -> Result<(), FieldError> {
    let Some(reason) = path_segment_refusal(name) else {
        return Ok(());
    };
    Err(field_error(
        path.clone(),
        format!(
            "found {}, expected a name that can be a path segment ({reason})",
            crate::error::quoted(name)
        ),
    ))
}

// Port of validateMetrics (validation.go)
fn validate_metrics(
    metrics: &[api::MetricSpec],
    path: &FieldPath,
    min_replicas: Option<i32>,
) -> Result<(), FieldError> {
    for (i, metric) in metrics.iter().enumerate() {
        validate_metric_spec(metric, &path.index(i))?;
    }
    if min_replicas == Some(0)
        && !metrics
            .iter()
            .any(|m| m.type_ == "Object" || m.type_ == "External")
    {
        return Err(field_error(
            path.clone(),
            "found minReplicas 0 and no Object or External metric, expected at least one Object or \
             External metric to support scaling to zero replicas",
        ));
    }
    Ok(())
}

// Port of validateMetricSpec (validation.go): exactly one source block, the one `type` names.
fn validate_metric_spec(metric: &api::MetricSpec, path: &FieldPath) -> Result<(), FieldError> {
    let type_ = metric.type_.as_str();
    if type_.is_empty() {
        return Err(field_error(
            path.key("type"),
            format!("found nothing, expected a metric source type: {METRIC_TYPES}"),
        ));
    }
    let blocks = [
        ("object", metric.object.is_some()),
        ("external", metric.external.is_some()),
        ("pods", metric.pods.is_some()),
        ("resource", metric.resource.is_some()),
        ("containerResource", metric.container_resource.is_some()),
    ];
    let expected = match type_ {
        "Object" => "object",
        "External" => "external",
        "Pods" => "pods",
        "Resource" => "resource",
        "ContainerResource" => "containerResource",
        other => {
            return Err(field_error(
                path.key("type"),
                format!(
                    "found {}, expected {METRIC_TYPES}",
                    crate::error::quoted(other)
                ),
            ));
        }
    };
    if !blocks.iter().any(|&(key, set)| set && key == expected) {
        return Err(field_error(
            path.key(expected),
            format!(
                "found no `{expected}` block, expected one for a {type_} metric \
                 (must populate information for the given metric source)"
            ),
        ));
    }
    if let Some((extra, _)) = blocks.iter().find(|&&(key, set)| set && key != expected) {
        return Err(field_error(
            path.key(extra),
            format!(
                "found a `{extra}` block in a {type_} metric, expected only `{expected}` \
                 (must populate the given metric source only)"
            ),
        ));
    }
    if let Some(src) = &metric.object {
        validate_object_source(src, &path.key("object"))?;
    }
    if let Some(src) = &metric.external {
        validate_external_source(src, &path.key("external"))?;
    }
    if let Some(src) = &metric.pods {
        validate_pods_source(src, &path.key("pods"))?;
    }
    if let Some(src) = &metric.resource {
        validate_resource_source(&src.name, None, &src.target, &path.key("resource"))?;
    }
    if let Some(src) = &metric.container_resource {
        let path = path.key("containerResource");
        validate_resource_source(&src.name, Some(&src.container), &src.target, &path)?;
    }
    Ok(())
}

// Port of validateObjectSource (validation.go)
fn validate_object_source(
    src: &api::ObjectMetricSource,
    path: &FieldPath,
) -> Result<(), FieldError> {
    let object = &src.described_object;
    validate_object_reference(&object.kind, &object.name, &path.key("describedObject"))?;
    validate_metric_identifier(&src.metric, &path.key("metric"))?;
    validate_metric_target(&src.target, &path.key("target"))?;
    if src.target.value.is_none() && src.target.average_value.is_none() {
        return Err(field_error(
            path.key("target").key("averageValue"),
            "found neither value nor averageValue, expected one of them \
             (must set either a target value or averageValue)",
        ));
    }
    Ok(())
}

// Port of validateExternalSource (validation.go)
fn validate_external_source(
    src: &api::ExternalMetricSource,
    path: &FieldPath,
) -> Result<(), FieldError> {
    validate_metric_identifier(&src.metric, &path.key("metric"))?;
    validate_metric_target(&src.target, &path.key("target"))?;
    match (&src.target.value, &src.target.average_value) {
        (None, None) => Err(field_error(
            path.key("target").key("averageValue"),
            "found neither value nor averageValue, expected one of them \
             (must set either a target value for metric or a per-pod target)",
        )),
        (Some(_), Some(_)) => Err(field_error(
            path.key("target").key("value"),
            "found both value and averageValue, expected only one \
             (may not set both a target value for metric and a per-pod target)",
        )),
        _ => Ok(()),
    }
}

// Port of validatePodsSource (validation.go)
fn validate_pods_source(src: &api::PodsMetricSource, path: &FieldPath) -> Result<(), FieldError> {
    validate_metric_identifier(&src.metric, &path.key("metric"))?;
    validate_metric_target(&src.target, &path.key("target"))?;
    if src.target.average_value.is_none() {
        return Err(field_error(
            path.key("target").key("averageValue"),
            "found nothing, expected a positive averageValue (Pods metrics are averaged over pods)",
        ));
    }
    Ok(())
}

// Port of validateResourceSource and validateContainerResourceSource (validation.go)
fn validate_resource_source(
    name: &str,
    container: Option<&str>,
    target: &api::MetricTarget,
    path: &FieldPath,
) -> Result<(), FieldError> {
    if name.is_empty() {
        return Err(field_error(
            path.key("name"),
            "found nothing, expected a resource name such as cpu or memory",
        ));
    }
    if let Some(container) = container {
        validate_dns_label(container, &path.key("container"))?;
    }
    validate_metric_target(target, &path.key("target"))?;
    match (&target.average_utilization, &target.average_value) {
        (None, None) => Err(field_error(
            path.key("target").key("averageUtilization"),
            "found neither averageUtilization nor averageValue, expected one of them \
             (must set either a target raw value or a target utilization)",
        )),
        (Some(_), Some(_)) => Err(field_error(
            path.key("target").key("averageValue"),
            "found both averageUtilization and averageValue, expected only one \
             (may not set both a target raw value and a target utilization)",
        )),
        _ => Ok(()),
    }
}

// Port of ValidateDNS1123Label (k8s.io/apimachinery/pkg/util/validation), as used for
// `containerResource.container`.
fn validate_dns_label(name: &str, path: &FieldPath) -> Result<(), FieldError> {
    if name.is_empty() {
        return Err(field_error(
            path.clone(),
            "found nothing, expected a container name",
        ));
    }
    let alnum = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    let valid = name.len() <= 63
        && name.chars().all(|c| alnum(c) || c == '-')
        && name.starts_with(alnum)
        && name.ends_with(alnum);
    if valid {
        Ok(())
    } else {
        Err(field_error(
            path.clone(),
            format!(
                "found {}, expected a container name: at most 63 lowercase letters, digits \
                 and '-', starting and ending with a letter or digit",
                crate::error::quoted(name)
            ),
        ))
    }
}

// Port of validateMetricIdentifier (validation.go)
fn validate_metric_identifier(
    id: &api::MetricIdentifier,
    path: &FieldPath,
) -> Result<(), FieldError> {
    if id.name.is_empty() {
        return Err(field_error(
            path.key("name"),
            "found nothing, expected a metric name",
        ));
    }
    validate_path_segment(&id.name, &path.key("name"))
}

// Port of validateMetricTarget (validation.go): the type must be known and every set value
// positive; which values a source needs is checked by the source.
fn validate_metric_target(target: &api::MetricTarget, path: &FieldPath) -> Result<(), FieldError> {
    match target.type_.as_str() {
        "" => {
            return Err(field_error(
                path.key("type"),
                format!("found nothing, expected a metric target type: {TARGET_TYPES}"),
            ));
        }
        "Utilization" | "Value" | "AverageValue" => {}
        other => {
            return Err(field_error(
                path.key("type"),
                format!(
                    "found {}, expected {TARGET_TYPES}",
                    crate::error::quoted(other)
                ),
            ));
        }
    }
    if let Some(value) = &target.value {
        positive_quantity(value, &path.key("value"))?;
    }
    if let Some(value) = &target.average_value {
        positive_quantity(value, &path.key("averageValue"))?;
    }
    if let Some(utilization) = target.average_utilization
        && utilization < 1
    {
        return Err(field_error(
            path.key("averageUtilization"),
            format!("found {utilization}, expected a percentage greater than 0"),
        ));
    }
    Ok(())
}

/// Parses a quantity field; an unparsable one is an error naming the field.
pub fn parse_quantity(value: &ApiQuantity, path: &FieldPath) -> Result<Quantity, FieldError> {
    Quantity::parse(&value.0).map_err(|e| field_error(path.clone(), e.to_string()))
}

/// `MilliValue()` of a quantity field.
pub fn milli(value: &ApiQuantity, path: &FieldPath) -> Result<i64, FieldError> {
    quantity::parse_milli(&value.0).map_err(|e| field_error(path.clone(), e.to_string()))
}

// `Quantity.Sign() == 1`, as validateMetricTarget requires; the milli-value must fit in int64.
fn positive_quantity(value: &ApiQuantity, path: &FieldPath) -> Result<(), FieldError> {
    let parsed = parse_quantity(value, path)?;
    if parsed.mantissa <= 0 {
        return Err(field_error(
            path.clone(),
            format!(
                "found {}, expected a positive quantity",
                crate::error::quoted(&value.0)
            ),
        ));
    }
    milli(value, path).map(|_| ())
}

// Port of validateScalingRules (validation.go)
fn validate_scaling_rules(
    rules: &api::HPAScalingRules,
    path: &FieldPath,
) -> Result<(), FieldError> {
    if let Some(window) = rules.stabilization_window_seconds {
        if window < 0 {
            return Err(field_error(
                path.key("stabilizationWindowSeconds"),
                format!("found {window}, expected 0 or more seconds"),
            ));
        }
        if window > MAX_STABILIZATION_WINDOW_SECONDS {
            return Err(field_error(
                path.key("stabilizationWindowSeconds"),
                format!(
                    "found {window}, expected at most {MAX_STABILIZATION_WINDOW_SECONDS} seconds"
                ),
            ));
        }
    }
    if let Some(select) = &rules.select_policy
        && !matches!(select.as_str(), "Max" | "Min" | "Disabled")
    {
        return Err(field_error(
            path.key("selectPolicy"),
            format!(
                "found {}, expected Disabled, Max or Min",
                crate::error::quoted(select)
            ),
        ));
    }
    let policies = rules.policies.as_deref().unwrap_or_default();
    if policies.is_empty() {
        return Err(field_error(
            path.key("policies"),
            "found no policies, expected at least one (must specify at least one Policy)",
        ));
    }
    for (i, policy) in policies.iter().enumerate() {
        validate_scaling_policy(policy, &path.key("policies").index(i))?;
    }
    if let Some(tolerance) = &rules.tolerance {
        // ValidateNonnegativeQuantity (pkg/apis/core/validation)
        let path = path.key("tolerance");
        if parse_quantity(tolerance, &path)?.mantissa < 0 {
            return Err(field_error(
                path,
                format!(
                    "found {}, expected a quantity greater than or equal to 0",
                    crate::error::quoted(&tolerance.0)
                ),
            ));
        }
    }
    Ok(())
}

// Port of validateScalingPolicy (validation.go)
fn validate_scaling_policy(
    policy: &api::HPAScalingPolicy,
    path: &FieldPath,
) -> Result<(), FieldError> {
    if policy.type_ != "Pods" && policy.type_ != "Percent" {
        return Err(field_error(
            path.key("type"),
            format!(
                "found {}, expected Percent or Pods",
                crate::error::quoted(&policy.type_)
            ),
        ));
    }
    if policy.value <= 0 {
        return Err(field_error(
            path.key("value"),
            format!(
                "found {}, expected a number greater than zero",
                policy.value
            ),
        ));
    }
    if policy.period_seconds <= 0 || policy.period_seconds > MAX_PERIOD_SECONDS {
        return Err(field_error(
            path.key("periodSeconds"),
            format!(
                "found {}, expected 1 to {MAX_PERIOD_SECONDS} seconds",
                policy.period_seconds
            ),
        ));
    }
    Ok(())
}

/// Valid combinations the controller reads differently from what `type` suggests: it branches on
/// which values are set, not on the type. Returned as field problems for the caller to locate.
pub fn target_warnings(spec: &api::HorizontalPodAutoscalerSpec) -> Vec<FieldError> {
    let mut warnings = Vec::new();
    let path = FieldPath::of(&["spec", "metrics"]);
    for (i, metric) in spec.metrics.iter().flatten().enumerate() {
        let path = path.index(i);
        let resource_like = [
            ("resource", metric.resource.as_ref().map(|r| &r.target)),
            (
                "containerResource",
                metric.container_resource.as_ref().map(|r| &r.target),
            ),
        ];
        for (key, target) in resource_like {
            let Some(t) = target else { continue };
            let reads = if t.average_value.is_some() {
                "averageValue"
            } else {
                "averageUtilization"
            };
            let fits = match t.type_.as_str() {
                "Utilization" => t.average_utilization.is_some(),
                "AverageValue" => t.average_value.is_some(),
                _ => false,
            };
            if !fits {
                warnings.push(field_error(
                    path.key(key).key("target").key("type"),
                    format!(
                        "type is {} but the controller uses the {reads} target",
                        t.type_
                    ),
                ));
            }
        }
        if let Some(pods) = &metric.pods
            && pods.target.type_ != "AverageValue"
        {
            warnings.push(field_error(
                path.key("pods").key("target").key("type"),
                format!(
                    "type is {} but Pods metrics always use the averageValue target",
                    pods.target.type_
                ),
            ));
        }
    }
    warnings
}

/// Newer API servers require an API group in `scaleTargetRef.apiVersion` (except for a
/// ReplicationController); older objects may lack it, and the controller copes, so warn only.
pub fn reference_warnings(spec: &api::HorizontalPodAutoscalerSpec) -> Vec<FieldError> {
    let target = &spec.scale_target_ref;
    let api_version = target.api_version.as_deref().unwrap_or_default();
    let has_group = api_version
        .split_once('/')
        .is_some_and(|(g, _)| !g.is_empty());
    if has_group || target.kind == "ReplicationController" {
        return Vec::new();
    }
    vec![field_error(
        FieldPath::of(&["spec", "scaleTargetRef", "apiVersion"]),
        format!(
            "found {}, expected group/version such as apps/v1 \
             (newer API servers reject a reference without an API group)",
            crate::error::quoted(api_version)
        ),
    )]
}
