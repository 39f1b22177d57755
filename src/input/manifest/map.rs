//! The validated, defaulted `autoscaling/v2` spec as the calculation's `scenario` types:
//! quantities to milli-units, the selector's `matchLabels`, tolerances as
//! `Quantity.AsApproximateFloat64()`.

use std::collections::BTreeMap;

use k8s_openapi::api::autoscaling::v2 as api;

use super::locate::FieldPath;
use super::validate::{FieldError, METRIC_TYPES, TARGET_TYPES, field_error, milli, parse_quantity};
use crate::scenario::{
    Behavior, HpaSpec, MetricIdentifier, MetricSpec, MetricTarget, ObjectReference, PolicyType,
    ScalingPolicy, ScalingRules, SelectPolicy, TargetType,
};

/// The validated, defaulted spec as the calculation's `HpaSpec`.
pub fn to_hpa_spec(
    name: String,
    namespace: String,
    spec: &api::HorizontalPodAutoscalerSpec,
) -> Result<HpaSpec, FieldError> {
    let path = FieldPath::of(&["spec"]);
    let target = &spec.scale_target_ref;
    let metrics = spec
        .metrics
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, m)| to_metric(m, &path.key("metrics").index(i)))
        .collect::<Result<Vec<_>, _>>()?;
    let behavior = match &spec.behavior {
        None => None,
        Some(b) => Some(Behavior {
            scale_up: to_rules(b.scale_up.as_ref(), &path.key("behavior").key("scaleUp"))?,
            scale_down: to_rules(
                b.scale_down.as_ref(),
                &path.key("behavior").key("scaleDown"),
            )?,
        }),
    };
    Ok(HpaSpec {
        name,
        namespace,
        target: ObjectReference {
            api_version: target.api_version.clone().unwrap_or_default(),
            kind: target.kind.clone(),
            name: target.name.clone(),
        },
        min_replicas: spec.min_replicas.unwrap_or(1),
        max_replicas: spec.max_replicas,
        metrics,
        behavior,
    })
}

fn to_metric(metric: &api::MetricSpec, path: &FieldPath) -> Result<MetricSpec, FieldError> {
    let missing = || field_error(path.key("type"), "found a metric without its source block");
    Ok(match metric.type_.as_str() {
        "Resource" => {
            let src = metric.resource.as_ref().ok_or_else(missing)?;
            MetricSpec::Resource {
                resource: src.name.clone(),
                container: None,
                target: to_target(&src.target, &path.key("resource").key("target"))?,
            }
        }
        "ContainerResource" => {
            let src = metric.container_resource.as_ref().ok_or_else(missing)?;
            MetricSpec::Resource {
                resource: src.name.clone(),
                container: Some(src.container.clone()),
                target: to_target(&src.target, &path.key("containerResource").key("target"))?,
            }
        }
        "Pods" => {
            let src = metric.pods.as_ref().ok_or_else(missing)?;
            MetricSpec::Pods {
                metric: to_identifier(&src.metric),
                target: to_target(&src.target, &path.key("pods").key("target"))?,
            }
        }
        "Object" => {
            let src = metric.object.as_ref().ok_or_else(missing)?;
            let object = &src.described_object;
            MetricSpec::Object {
                described_object: ObjectReference {
                    api_version: object.api_version.clone().unwrap_or_default(),
                    kind: object.kind.clone(),
                    name: object.name.clone(),
                },
                metric: to_identifier(&src.metric),
                target: to_target(&src.target, &path.key("object").key("target"))?,
            }
        }
        "External" => {
            let src = metric.external.as_ref().ok_or_else(missing)?;
            MetricSpec::External {
                metric: to_identifier(&src.metric),
                target: to_target(&src.target, &path.key("external").key("target"))?,
            }
        }
        other => {
            return Err(field_error(
                path.key("type"),
                format!(
                    "found {}, expected {METRIC_TYPES}",
                    crate::error::quoted(other)
                ),
            ));
        }
    })
}

fn to_target(target: &api::MetricTarget, path: &FieldPath) -> Result<MetricTarget, FieldError> {
    let target_type = match target.type_.as_str() {
        "Utilization" => TargetType::Utilization,
        "AverageValue" => TargetType::AverageValue,
        "Value" => TargetType::Value,
        other => {
            return Err(field_error(
                path.key("type"),
                format!(
                    "found {}, expected {TARGET_TYPES}",
                    crate::error::quoted(other)
                ),
            ));
        }
    };
    Ok(MetricTarget {
        target_type,
        average_utilization: target.average_utilization,
        average_value_milli: target
            .average_value
            .as_ref()
            .map(|q| milli(q, &path.key("averageValue")))
            .transpose()?,
        value_milli: target
            .value
            .as_ref()
            .map(|q| milli(q, &path.key("value")))
            .transpose()?,
    })
}

fn to_identifier(id: &api::MetricIdentifier) -> MetricIdentifier {
    let labels: Option<BTreeMap<String, String>> = id
        .selector
        .as_ref()
        .and_then(|s| s.match_labels.clone())
        .filter(|labels| !labels.is_empty());
    MetricIdentifier {
        name: id.name.clone(),
        selector: labels,
    }
}

fn to_rules(
    rules: Option<&api::HPAScalingRules>,
    path: &FieldPath,
) -> Result<ScalingRules, FieldError> {
    let defaulted = rules.cloned().unwrap_or_default();
    let select_policy = match defaulted.select_policy.as_deref() {
        None | Some("Max") => SelectPolicy::Max,
        Some("Min") => SelectPolicy::Min,
        Some("Disabled") => SelectPolicy::Disabled,
        Some(other) => {
            return Err(field_error(
                path.key("selectPolicy"),
                format!(
                    "found {}, expected Disabled, Max or Min",
                    crate::error::quoted(other)
                ),
            ));
        }
    };
    let policies = defaulted
        .policies
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, p)| {
            let policy_type = match p.type_.as_str() {
                "Pods" => PolicyType::Pods,
                "Percent" => PolicyType::Percent,
                other => {
                    return Err(field_error(
                        path.key("policies").index(i).key("type"),
                        format!(
                            "found {}, expected Percent or Pods",
                            crate::error::quoted(other)
                        ),
                    ));
                }
            };
            Ok(ScalingPolicy {
                policy_type,
                value: p.value,
                period_seconds: p.period_seconds,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let tolerance = defaulted
        .tolerance
        .as_ref()
        .map(|q| parse_quantity(q, &path.key("tolerance")).map(|q| q.as_approximate_f64()))
        .transpose()?;
    Ok(ScalingRules {
        stabilization_window_seconds: defaulted.stabilization_window_seconds,
        select_policy,
        policies,
        tolerance,
    })
}
