//! One proposal per metric and their combination: `computeReplicasForMetric`,
//! `computeStatusFor*Metric` and `computeReplicasForMetrics` of `horizontal.go`.

use std::collections::BTreeMap;

use crate::calc::metrics_client;
use crate::calc::pods::Groups;
use crate::calc::replicas::{
    CalcContext, ExternalGuards, PodBasedResult, PodTarget, ValueResult, external_metric_replicas,
    external_per_pod_metric_replicas, object_metric_replicas, object_per_pod_metric_replicas,
    pod_based_replicas,
};
use crate::scenario::{
    MetricIdentifier, MetricSpec, MetricTarget, MetricValues, ObjectReference, TargetType,
};

/// What one metric computed.
#[derive(Debug, Clone, PartialEq)]
pub enum Computed<'a> {
    PodBased(PodBasedResult<'a>),
    Value(ValueResult),
}

impl Computed<'_> {
    pub fn replicas(&self) -> i32 {
        match self {
            Computed::PodBased(r) => r.replicas,
            Computed::Value(r) => r.replicas,
        }
    }
}

/// A metric the controller could not compute.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricFailure<'a> {
    /// The condition reason (`FailedGetResourceMetric`, ...).
    pub reason: &'static str,
    /// The error inside the condition message.
    pub condition_error: String,
    /// The error `computeReplicasForMetric` returns (with the outer wrap).
    pub error: String,
    pub groups: Option<Box<Groups<'a>>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MetricOutcome<'a> {
    /// The name the controller uses in conditions and events.
    pub name: String,
    pub result: Result<Computed<'a>, MetricFailure<'a>>,
}

/// Inputs of one metric computation that are not the metric itself.
#[derive(Debug, Clone, Copy)]
pub struct MetricInputs<'a> {
    pub calc: CalcContext<'a>,
    pub values: &'a MetricValues,
    pub namespace: &'a str,
    pub spec_replicas: i32,
    pub status_replicas: i32,
    pub missing_container_is_error: bool,
    pub container_metrics: bool,
    pub guards: ExternalGuards,
}

/// `%+v` of a `*metav1.LabelSelector` with only matchLabels, as the controller prints it.
pub fn selector_text(selector: Option<&BTreeMap<String, String>>) -> String {
    match selector {
        None => "nil".to_string(),
        Some(labels) => {
            let pairs: String = labels.iter().map(|(k, v)| format!("{k}: {v},")).collect();
            format!(
                "&LabelSelector{{MatchLabels:map[string]string{{{pairs}}},MatchExpressions:[]LabelSelectorRequirement{{}},}}"
            )
        }
    }
}

/// The controller's name for a metric (used in conditions, events and the rescale reason).
/// The controller's metric name with its Go struct dump of the selector written as a label
/// selector, for sentences a person reads: `external metric queue(&LabelSelector{MatchLabels:
/// map[string]string{app: web,},...})` becomes `external metric queue{app=web}`, and `(nil)` goes.
/// Conditions, events and the JSON `description` keep the controller's own text.
pub fn readable(text: &str) -> String {
    const OPEN: &str = "(&LabelSelector{MatchLabels:map[string]string{";
    const CLOSE: &str = "},MatchExpressions:[]LabelSelectorRequirement{},})";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let nil = rest.find("(nil)");
        let open = rest.find(OPEN);
        match (open, nil) {
            (Some(o), n) if n.is_none_or(|n| o < n) => {
                let Some(close) = rest[o..].find(CLOSE).map(|c| o + c) else {
                    break;
                };
                out.push_str(&rest[..o]);
                let pairs: Vec<String> = rest[o + OPEN.len()..close]
                    .split(',')
                    .filter(|p| !p.is_empty())
                    .map(|p| p.replacen(": ", "=", 1))
                    .collect();
                out.push('{');
                out.push_str(&pairs.join(","));
                out.push('}');
                rest = &rest[close + CLOSE.len()..];
            }
            (_, Some(n)) => {
                out.push_str(&rest[..n]);
                rest = &rest[n + "(nil)".len()..];
            }
            _ => break,
        }
    }
    out.push_str(rest);
    out
}

pub fn metric_name(spec: &MetricSpec) -> String {
    match spec {
        MetricSpec::Resource {
            resource,
            container,
            target,
        } => match (target.average_value_milli, container) {
            (Some(_), _) => format!("{resource} resource"),
            (None, None) => format!("{resource} resource utilization (percentage of request)"),
            (None, Some(_)) => {
                format!("{resource} container resource utilization (percentage of request)")
            }
        },
        MetricSpec::Pods { metric, .. } => format!("pods metric {}", metric.name),
        MetricSpec::Object {
            described_object,
            metric,
            target,
        } => {
            if target.target_type == TargetType::Value && target.value_milli.is_some() {
                format!("{} metric {}", described_object.kind, metric.name)
            } else {
                // Sic: upstream names Object AverageValue metrics "external metric".
                format!(
                    "external metric {}({})",
                    metric.name,
                    selector_text(metric.selector.as_ref())
                )
            }
        }
        MetricSpec::External { metric, .. } => format!(
            "external metric {}({})",
            metric.name,
            selector_text(metric.selector.as_ref())
        ),
    }
}

fn failure<'a>(
    reason: &'static str,
    condition_error: String,
    outer: impl FnOnce(&str) -> String,
    groups: Option<Box<Groups<'a>>>,
) -> MetricFailure<'a> {
    MetricFailure {
        reason,
        error: outer(&condition_error),
        condition_error,
        groups,
    }
}

// Port of computeReplicasForMetric (horizontal.go): the switch on the metric source type, one
// computeStatusFor*Metric each. `index` is the spec's position in `spec.metrics`, which keys its
// Object or External value: the loop of computeReplicasForMetrics asks once per entry.
pub fn compute_replicas_for_metric<'a>(
    index: usize,
    spec: &'a MetricSpec,
    inputs: &MetricInputs<'a>,
) -> MetricOutcome<'a> {
    let name = metric_name(spec);
    let result = match spec {
        MetricSpec::Resource {
            resource,
            container,
            target,
        } => resource_metric(resource, container.as_deref(), target, inputs),
        MetricSpec::Pods { metric, target } => pods_metric(index, metric, target, inputs),
        MetricSpec::Object {
            described_object,
            metric,
            target,
        } => object_metric(index, described_object, metric, target, inputs),
        MetricSpec::External { metric, target } => external_metric(index, metric, target, inputs),
    };
    MetricOutcome { name, result }
}

// Port of computeStatusForPodsMetric (horizontal.go) with GetMetricReplicas
// (replica_calculator.go).
fn pods_metric<'a>(
    index: usize,
    metric: &MetricIdentifier,
    target: &MetricTarget,
    inputs: &MetricInputs<'a>,
) -> Result<Computed<'a>, MetricFailure<'a>> {
    let outer = |e: &str| format!("failed to get pods metric value: {e}");
    let target_usage = target.average_value_milli.unwrap_or(0);
    let values = inputs.values.pods.get(&index).map(Vec::as_slice);
    match (values, &inputs.values.custom_api_error) {
        // Port of customMetricsClient.GetRawMetric (metrics/client.go): the call failed.
        (None, Some(e)) => Err(format!(
            "unable to fetch metrics from custom metrics API: {e}"
        )),
        _ => metrics_client::raw_metric(values),
    }
    .map_err(|e| format!("unable to get metric {}: {e}", metric.name))
    .map_err(|e| failure("FailedGetPodsMetric", e, outer, None))
    .and_then(|samples| {
        pod_based_replicas(
            &inputs.calc,
            inputs.spec_replicas,
            samples,
            "",
            None,
            PodTarget::AverageValue(target_usage),
        )
        .map(Computed::PodBased)
        .map_err(|e| failure("FailedGetPodsMetric", e.message, outer, e.groups))
    })
}

// Port of computeStatusForObjectMetric (horizontal.go) with GetObjectMetricReplicas /
// GetObjectPerPodMetricReplicas (replica_calculator.go).
fn object_metric<'a>(
    index: usize,
    described_object: &ObjectReference,
    metric: &MetricIdentifier,
    target: &MetricTarget,
    inputs: &MetricInputs<'a>,
) -> Result<Computed<'a>, MetricFailure<'a>> {
    const REASON: &str = "FailedGetObjectMetric";
    let outer = |e: &str| format!("failed to get object metric value: {e}");
    match (target.target_type, target.value_milli, target.average_value_milli) {
        (TargetType::Value, Some(target_value), _) => {
            object_value(index, described_object, metric, inputs)
                .and_then(|usage| {
                    object_metric_replicas(
                        &inputs.calc,
                        inputs.spec_replicas,
                        target_value,
                        usage,
                        inputs.guards.value_clamp,
                    )
                })
                .map(Computed::Value)
                .map_err(|e| failure(REASON, e, outer, None))
        }
        (TargetType::AverageValue, _, Some(target_average)) => {
            object_value(index, described_object, metric, inputs)
                .map(|usage| {
                    Computed::Value(object_per_pod_metric_replicas(
                        inputs.calc.tolerances,
                        inputs.status_replicas,
                        target_average,
                        usage,
                    ))
                })
                .map_err(|e| {
                    failure(
                        REASON,
                        e,
                        |e| outer(&format!("failed to get {} object metric: {e}", metric.name)),
                        None,
                    )
                })
        }
        _ => Err(failure(
            REASON,
            "invalid object metric source: neither a value target nor an average value target was set".into(),
            |e| e.to_string(),
            None,
        )),
    }
}

// Port of customMetricsClient.GetObjectMetric (metrics/client.go): the value, or the call failed
// or the answer held no value. The error is wrapped as Get{Object,ObjectPerPod}MetricReplicas
// do: their format puts the error after the object's name (sic).
fn object_value(
    index: usize,
    described_object: &ObjectReference,
    metric: &MetricIdentifier,
    inputs: &MetricInputs<'_>,
) -> Result<i64, String> {
    inputs.values.object.get(&index).copied().ok_or_else(|| {
        let cause = inputs.values.custom_api_error.as_deref().unwrap_or(
            "the custom metrics API server returned 0 results when we asked for exactly one",
        );
        format!(
            "unable to get metric {}: {} on {} {}/unable to fetch metrics from custom metrics \
             API: {cause}",
            metric.name, described_object.kind, inputs.namespace, described_object.name
        )
    })
}

// Port of computeStatusForExternalMetric (horizontal.go) with GetExternalPerPodMetricReplicas /
// GetExternalMetricReplicas (replica_calculator.go).
fn external_metric<'a>(
    index: usize,
    metric: &MetricIdentifier,
    target: &MetricTarget,
    inputs: &MetricInputs<'a>,
) -> Result<Computed<'a>, MetricFailure<'a>> {
    const REASON: &str = "FailedGetExternalMetric";
    // computeReplicasForMetric's wrap around computeStatusForExternalMetric's.
    let outer = |inner: String| {
        move |e: &str| {
            format!(
                "failed to get {} external metric value: {inner}: {e}",
                metric.name
            )
        }
    };
    if let Some(target_average) = target.average_value_milli {
        let outer = outer(format!("failed to get {} external metric", metric.name));
        external_values(index, metric, inputs)
            .map(|values| {
                Computed::Value(external_per_pod_metric_replicas(
                    inputs.calc.tolerances,
                    inputs.status_replicas,
                    target_average,
                    values,
                    inputs.guards,
                ))
            })
            .map_err(|e| failure(REASON, e, outer, None))
    } else if let Some(target_value) = target.value_milli {
        let outer = outer(format!("failed to get external metric {}", metric.name));
        external_values(index, metric, inputs)
            .and_then(|values| {
                external_metric_replicas(
                    &inputs.calc,
                    inputs.spec_replicas,
                    target_value,
                    values,
                    inputs.guards,
                )
            })
            .map(Computed::Value)
            .map_err(|e| failure(REASON, e, outer, None))
    } else {
        Err(failure(
            REASON,
            "invalid external metric source: neither a value target nor an average value target was set".into(),
            |e| e.to_string(),
            None,
        ))
    }
}

// Port of externalMetricsClient.GetExternalMetric (metrics/client.go): the values, or the call
// failed, or it returned no items.
fn external_values<'v>(
    index: usize,
    metric: &MetricIdentifier,
    inputs: &MetricInputs<'v>,
) -> Result<&'v [i64], String> {
    let values = inputs
        .values
        .external
        .get(&index)
        .map(Vec::as_slice)
        .unwrap_or_default();
    if !values.is_empty() {
        return Ok(values);
    }
    let cause = match &inputs.values.external_api_error {
        Some(e) => format!("unable to fetch metrics from external metrics API: {e}"),
        None => "no metrics returned from external metrics API".to_string(),
    };
    Err(format!(
        "unable to get external metric {}/{}/{}: {cause}",
        inputs.namespace,
        metric.name,
        selector_text(metric.selector.as_ref())
    ))
}

// Port of computeStatusForResourceMetricGeneric (horizontal.go) with GetResourceReplicas /
// GetRawResourceReplicas (replica_calculator.go).
fn resource_metric<'a>(
    resource: &str,
    container: Option<&str>,
    target: &MetricTarget,
    inputs: &MetricInputs<'a>,
) -> Result<Computed<'a>, MetricFailure<'a>> {
    let reason = if container.is_some() {
        "FailedGetContainerResourceMetric"
    } else {
        "FailedGetResourceMetric"
    };
    let outer = |e: &str| match container {
        Some(c) => format!("failed to get {c} container metric value: {e}"),
        None => format!("failed to get {resource} resource metric value: {e}"),
    };
    if container.is_some() && !inputs.container_metrics {
        // The 1.28 controller returns this error with an empty condition; we name the usual reason.
        return Err(failure(
            reason,
            "ContainerResource metric type is not supported: disabled by the feature gate".into(),
            |e| e.to_string(),
            None,
        ));
    }
    let (pod_target, wrap): (PodTarget, &str) = match (
        target.average_value_milli,
        target.average_utilization,
    ) {
        (Some(v), _) => (PodTarget::AverageValue(v), "usage"),
        (None, Some(u)) => (PodTarget::Utilization(u), "utilization"),
        (None, None) => {
            return Err(failure(
                reason,
                "invalid resource metric source: neither an average utilization target nor an average value (usage) target was set".into(),
                outer,
                None,
            ));
        }
    };
    let samples = match &inputs.values.resource_api_error {
        // Port of resourceMetricsClient.GetResourceMetric (metrics/client.go): the List call failed.
        Some(e) => Err(format!(
            "unable to fetch metrics from resource metrics API: {e}"
        )),
        None => metrics_client::resource_metric(
            &inputs.values.resource,
            resource,
            container,
            inputs.missing_container_is_error,
        ),
    }
    .map_err(|e| {
        failure(
            reason,
            format!("failed to get {resource} {wrap}: unable to get metrics for resource {resource}: {e}"),
            outer,
            None,
        )
    })?;
    pod_based_replicas(
        &inputs.calc,
        inputs.spec_replicas,
        samples,
        resource,
        container,
        pod_target,
    )
    .map(Computed::PodBased)
    .map_err(|e| {
        failure(
            reason,
            format!("failed to get {resource} {wrap}: {}", e.message),
            outer,
            e.groups,
        )
    })
}

/// The combination of all metrics.
#[derive(Debug, Clone, PartialEq)]
pub struct Combined {
    /// The controller gave up: every metric invalid, or an invalid one and a scale-down
    /// (`computeReplicasForMetrics` returned -1 with an error).
    pub failed: bool,
    /// `-1` when the controller gives up; a valid proposal of -1 (a negative metric value) is
    /// possible too, which is why `failed` is separate.
    pub replicas: i32,
    /// Index of the metric that named the proposal.
    pub winner: Option<usize>,
    pub invalid_count: usize,
    /// Index of the first invalid metric.
    pub first_invalid: Option<usize>,
    /// `invalid metrics (N invalid out of M), first error is: ...`
    pub error: Option<String>,
}

// Port of computeReplicasForMetrics (horizontal.go): the largest valid proposal wins; invalid
// metrics block a scale-down but not a scale-up.
/// `computeReplicasForMetrics`' choice among the proposals (`None`: an invalid metric).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    pub failed: bool,
    pub replicas: i32,
    pub winner: Option<usize>,
    pub invalid_count: usize,
    pub first_invalid: Option<usize>,
}

// Port of computeReplicasForMetrics (horizontal.go): the largest valid proposal; -1 with an error
// when every metric is invalid, or some are and the valid ones would scale down.
pub fn choose(proposals: impl ExactSizeIterator<Item = Option<i32>>, spec_replicas: i32) -> Choice {
    let count = proposals.len();
    let mut replicas = 0i32;
    let mut winner = None;
    let mut invalid_count = 0usize;
    let mut first_invalid = None;
    for (i, proposal) in proposals.enumerate() {
        match proposal {
            None => {
                if invalid_count == 0 {
                    first_invalid = Some(i);
                }
                invalid_count += 1;
            }
            Some(proposal) => {
                if replicas == 0 || proposal > replicas {
                    replicas = proposal;
                    winner = Some(i);
                }
            }
        }
    }
    let failed = invalid_count >= count || (invalid_count > 0 && replicas < spec_replicas);
    Choice {
        failed,
        replicas: if failed { -1 } else { replicas },
        winner: if failed { None } else { winner },
        invalid_count,
        first_invalid,
    }
}

pub fn combine(outcomes: &[MetricOutcome<'_>], spec_replicas: i32) -> Combined {
    let choice = choose(
        outcomes
            .iter()
            .map(|o| o.result.as_ref().ok().map(Computed::replicas)),
        spec_replicas,
    );
    let error = choice
        .first_invalid
        .and_then(|i| outcomes.get(i))
        .and_then(|o| o.result.as_ref().err())
        .map(|f| {
            format!(
                "invalid metrics ({} invalid out of {}), first error is: {}",
                choice.invalid_count,
                outcomes.len(),
                f.error
            )
        });
    Combined {
        failed: choice.failed,
        replicas: choice.replicas,
        winner: choice.winner,
        invalid_count: choice.invalid_count,
        first_invalid: choice.first_invalid,
        error,
    }
}

#[cfg(test)]
mod tests {
    use crate::calc::testing::{cpu_utilization, external, scenario};

    #[test]
    fn a_resource_metrics_api_error_fails_the_resource_metric_with_its_text() {
        let mut s = scenario(vec![cpu_utilization(50)], 3, 400);
        s.metrics.resource_api_error = Some(
            "the server is currently unable to handle the request (get pods.metrics.k8s.io)".into(),
        );
        let report = crate::calc::evaluate(&s);
        assert_eq!(
            report.metrics[0].error.as_deref(),
            Some(
                "failed to get cpu resource metric value: failed to get cpu utilization: unable \
                 to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server is currently unable to \
                 handle the request (get pods.metrics.k8s.io)"
            )
        );
        assert_eq!(
            report.metrics[0].error_reason.as_deref(),
            Some("FailedGetResourceMetric")
        );
    }

    #[test]
    fn custom_and_external_metrics_api_errors_fail_their_metrics_with_the_clients_text() {
        let mut s = scenario(
            vec![
                cpu_utilization(50),
                external("queue", None, Some(10_000)),
                crate::scenario::MetricSpec::Pods {
                    metric: crate::scenario::MetricIdentifier {
                        name: "rps".into(),
                        selector: None,
                    },
                    target: crate::scenario::MetricTarget {
                        target_type: crate::scenario::TargetType::AverageValue,
                        average_utilization: None,
                        average_value_milli: Some(100_000),
                        value_milli: None,
                    },
                },
            ],
            3,
            400,
        );
        s.metrics.external_api_error = Some(
            "the server could not find the requested resource (get queue.external.metrics.k8s.io)"
                .into(),
        );
        s.metrics.custom_api_error =
            Some("no custom metrics API (custom.metrics.k8s.io) registered".into());
        let report = crate::calc::evaluate(&s);
        assert_eq!(
            report.metrics[1].error.as_deref(),
            Some(
                "failed to get queue external metric value: failed to get queue external metric: \
                 unable to get external metric default/queue/nil: unable to fetch metrics from \
                 external metrics API: the server could not find the requested resource (get \
                 queue.external.metrics.k8s.io)"
            )
        );
        assert_eq!(
            report.metrics[2].error.as_deref(),
            Some(
                "failed to get pods metric value: unable to get metric rps: unable to fetch \
                 metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) \
                 registered"
            )
        );
        assert!(
            report.metrics[0].proposed_replicas.is_some(),
            "cpu still counts"
        );
    }
}

#[cfg(test)]
mod per_entry_tests {
    use crate::calc::testing::{external, scenario};
    use crate::scenario::{
        MetricIdentifier, MetricSpec, MetricTarget, ObjectReference, PodMetricValue, TargetType,
    };

    fn with_selector(mut spec: MetricSpec, key: &str, value: &str) -> MetricSpec {
        if let MetricSpec::External { metric, .. } = &mut spec {
            metric.selector = Some([(key.to_string(), value.to_string())].into());
        }
        spec
    }

    // computeReplicasForMetrics (horizontal.go) computes each entry of spec.metrics on its own:
    // two External entries of one name with different selectors each read their own answer.
    #[test]
    fn same_name_external_metrics_with_different_selectors_each_read_their_own_value() {
        let mut s = scenario(
            vec![
                with_selector(external("queue", None, Some(10_000)), "queue", "a"),
                with_selector(external("queue", None, Some(10_000)), "queue", "b"),
            ],
            2,
            0,
        );
        s.hpa.max_replicas = 20;
        s.metrics.external.insert(0, vec![30_000]);
        s.metrics.external.insert(1, vec![90_000]);
        let r = crate::calc::evaluate(&s);
        assert_eq!(r.metrics[0].proposed_replicas, Some(3));
        assert_eq!(r.metrics[1].proposed_replicas, Some(9));
    }

    // computeReplicasForMetric (horizontal.go) switches on the entry's type: an Object and an
    // External entry of one name are different API calls, with different values.
    #[test]
    fn an_object_and_an_external_metric_of_one_name_each_read_their_own_value() {
        let object = MetricSpec::Object {
            described_object: ObjectReference {
                api_version: "networking.k8s.io/v1".into(),
                kind: "Ingress".into(),
                name: "web".into(),
            },
            metric: MetricIdentifier {
                name: "queue".into(),
                selector: None,
            },
            target: MetricTarget {
                target_type: TargetType::Value,
                average_utilization: None,
                average_value_milli: None,
                value_milli: Some(10_000),
            },
        };
        let mut s = scenario(vec![object, external("queue", Some(10_000), None)], 2, 0);
        s.hpa.max_replicas = 20;
        s.metrics.object.insert(0, 20_000);
        s.metrics.external.insert(1, vec![40_000]);
        let r = crate::calc::evaluate(&s);
        assert_eq!(r.metrics[0].proposed_replicas, Some(4));
        assert_eq!(r.metrics[1].proposed_replicas, Some(8));
    }

    // An entry without a value is a failed metric (GetExternalMetric, metrics/client.go), even
    // when an entry of the same name has one.
    #[test]
    fn an_entry_without_a_value_fails_and_does_not_borrow_its_namesakes() {
        let mut s = scenario(
            vec![
                external("queue_depth", Some(100_000), None),
                external("queue_depth", None, Some(10_000)),
            ],
            6,
            0,
        );
        s.hpa.max_replicas = 20;
        s.metrics.external.insert(1, vec![270_000]);
        let r = crate::calc::evaluate(&s);
        assert_eq!(
            r.metrics[0].error_reason.as_deref(),
            Some("FailedGetExternalMetric")
        );
        assert_eq!(r.metrics[0].current_value, None);
        assert_eq!(r.metrics[0].current_average_value, None);
        assert_eq!(r.metrics[1].proposed_replicas, Some(27));
    }

    fn pods_metric(name: &str, selector: &str, average: i64) -> MetricSpec {
        MetricSpec::Pods {
            metric: MetricIdentifier {
                name: name.into(),
                selector: Some([("path".to_string(), selector.to_string())].into()),
            },
            target: MetricTarget {
                target_type: TargetType::AverageValue,
                average_utilization: None,
                average_value_milli: Some(average),
                value_milli: None,
            },
        }
    }

    fn per_pod(s: &crate::scenario::Scenario, value_milli: i64) -> Vec<PodMetricValue> {
        (s.pods.iter())
            .map(|p| PodMetricValue {
                pod: p.name.clone(),
                value_milli,
                timestamp: s.now,
                window: crate::time::Duration::from_secs(60),
            })
            .collect()
    }

    // computeReplicasForMetrics (horizontal.go) computes each entry on its own and
    // computeStatusForPodsMetric asks GetRawMetric with that entry's selector: two Pods entries
    // of one name each read their own per-pod values.
    #[test]
    fn same_name_pods_metrics_with_different_selectors_each_read_their_own_values() {
        let mut s = scenario(
            vec![
                pods_metric("http_requests", "/api", 20_000),
                pods_metric("http_requests", "/static", 10_000),
            ],
            4,
            0,
        );
        s.hpa.max_replicas = 20;
        s.metrics.pods.insert(0, per_pod(&s, 30_000));
        s.metrics.pods.insert(1, per_pod(&s, 5_000));
        let r = crate::calc::evaluate(&s);
        assert_eq!(r.metrics[0].current_average_value.as_deref(), Some("30"));
        assert_eq!(r.metrics[0].proposed_replicas, Some(6));
        assert_eq!(r.metrics[1].current_average_value.as_deref(), Some("5"));
        assert_eq!(r.metrics[1].proposed_replicas, Some(2));
    }

    // GetRawMetric (metrics/client.go) with no answer for an entry: that entry fails, it does
    // not read the values of an entry of the same name.
    #[test]
    fn a_pods_entry_without_values_fails_and_does_not_borrow_its_namesakes() {
        let mut s = scenario(
            vec![
                pods_metric("http_requests", "/api", 20_000),
                pods_metric("http_requests", "/static", 10_000),
            ],
            4,
            0,
        );
        s.metrics.pods.insert(1, per_pod(&s, 5_000));
        let r = crate::calc::evaluate(&s);
        assert_eq!(
            r.metrics[0].error_reason.as_deref(),
            Some("FailedGetPodsMetric")
        );
        assert_eq!(r.metrics[0].current_average_value, None);
        assert_eq!(r.metrics[1].proposed_replicas, Some(2));
    }
}

#[cfg(test)]
mod readable_tests {
    use super::*;

    #[test]
    fn readable_names_write_the_selector_as_a_label_selector() {
        let labels: BTreeMap<String, String> = [("app", "web"), ("queue", "a")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let with = format!(
            "external metric queue({}) above target",
            selector_text(Some(&labels))
        );
        assert_eq!(
            readable(&with),
            "external metric queue{app=web,queue=a} above target"
        );
        let without = format!("external metric queue({})", selector_text(None));
        assert_eq!(readable(&without), "external metric queue");
        assert_eq!(
            readable("cpu resource utilization (percentage of request)"),
            "cpu resource utilization (percentage of request)"
        );
    }
}
