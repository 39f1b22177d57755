//! `replica_calculator.json`: the cases of `replica_calculator_test.go`, run through
//! `compute_replicas_for_metric` (full calculations) and the pod grouping and request functions.

use std::collections::{BTreeMap, HashMap};

use hpacalc::calc::metrics::{Computed, MetricInputs, compute_replicas_for_metric};
use hpacalc::calc::pods::{
    GroupSettings, PodMetric, PodMetricsInfo, RequestSettings,
    calculate_pod_requests_from_containers, calculate_requests, group_pods,
};
use hpacalc::calc::replicas::{CalcContext, ExternalGuards, Tolerances};
use hpacalc::scenario::{
    ConditionStatus, Container, ContainerKind, ContainerMetrics, MetricIdentifier, MetricSpec,
    MetricTarget, MetricValues, ObjectReference, Pod, PodMetricValue, PodMetrics, PodPhase,
    ReadyCondition, Resources, TargetType,
};
use hpacalc::time::{Duration, Timestamp};
use serde_json::Value;

use super::{
    Check, array, boolean, float, get, instant, int, int32, opt_int, opt_int32, opt_text, seconds,
    text,
};

/// The test's `now`; every age in the vectors is before it.
const NOW: Timestamp = Timestamp(0);

/// The newest controller: sidecars and pod-level requests count (the vectors' gate settings are
/// applied where a vector states them).
const REQUESTS: RequestSettings = RequestSettings {
    sidecars: true,
    pod_level: true,
};

pub fn run(v: &Value) -> Check {
    match text(v, "kind") {
        "replica_calculation" => replica_calculation(v),
        "group_pods" => group(v),
        "calculate_requests" => requests(v),
        "calculate_pod_requests_from_containers" => pod_requests(v),
        other => {
            let mut check = Check::default();
            check.fail(format!("harness: unknown kind {other:?}"));
            check
        }
    }
}

fn phase(name: &str) -> PodPhase {
    match name {
        "Pending" => PodPhase::Pending,
        "Running" => PodPhase::Running,
        "Succeeded" => PodPhase::Succeeded,
        "Failed" => PodPhase::Failed,
        "Unknown" => PodPhase::Unknown,
        other => panic!("unknown pod phase {other:?}"),
    }
}

fn condition_status(name: &str) -> ConditionStatus {
    match name {
        "True" => ConditionStatus::True,
        "False" => ConditionStatus::False,
        "Unknown" => ConditionStatus::Unknown,
        other => panic!("unknown condition status {other:?}"),
    }
}

/// A pod of either shape (`pods[]` of a calculation or `input.pods[]` of `group_pods`): the Ready
/// condition when `ready_condition` is set (its transition time defaults to Go's zero time),
/// the start time by the time model.
fn pod(p: &Value, containers: Vec<Container>) -> Pod {
    let ready = opt_text(p, "ready_condition").map(|status| ReadyCondition {
        status: condition_status(status),
        last_transition_time: instant(p, "ready_transition_kind", "ready_transition_age_s", NOW)
            .unwrap_or(Timestamp::GO_ZERO),
    });
    Pod {
        name: text(p, "name").to_string(),
        phase: phase(text(p, "phase")),
        deleting: boolean(p, "deleting"),
        start_time: instant(p, "start_time_kind", "start_age_s", NOW),
        ready,
        containers,
        pod_requests: None,
        overhead: None,
        placement: Default::default(),
    }
}

/// `Resources` with one entry, or none when the milli value is null.
fn resources(resource: &str, milli: Option<i64>) -> Resources {
    Resources(
        milli
            .map(|m| (resource.to_string(), m))
            .into_iter()
            .collect(),
    )
}

fn container(c: &Value, resource: &str, kind: ContainerKind) -> Container {
    Container {
        name: text(c, "name").to_string(),
        kind,
        requests: resources(resource, opt_int(c, "request_milli")),
    }
}

fn target(t: &Value) -> MetricTarget {
    MetricTarget {
        target_type: match text(t, "type") {
            "Utilization" => TargetType::Utilization,
            "AverageValue" => TargetType::AverageValue,
            "Value" => TargetType::Value,
            other => panic!("unknown target type {other:?}"),
        },
        average_utilization: opt_int32(t, "averageUtilization"),
        average_value_milli: opt_int(t, "averageValue_milli"),
        value_milli: opt_int(t, "value_milli"),
    }
}

fn identifier(m: &Value) -> MetricIdentifier {
    let selector = m
        .get("selector")
        .and_then(|s| s.get("matchLabels"))
        .and_then(Value::as_object)
        .map(|labels| {
            labels
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect::<BTreeMap<_, _>>()
        });
    MetricIdentifier {
        name: text(m, "name").to_string(),
        selector,
    }
}

fn metric_spec(m: &Value) -> MetricSpec {
    let target = target(get(m, "target"));
    match text(m, "type") {
        "Resource" => MetricSpec::Resource {
            resource: text(m, "resource").to_string(),
            container: None,
            target,
        },
        "ContainerResource" => MetricSpec::Resource {
            resource: text(m, "resource").to_string(),
            container: Some(text(m, "container").to_string()),
            target,
        },
        "Pods" => MetricSpec::Pods {
            metric: identifier(m),
            target,
        },
        "Object" => {
            let o = get(m, "described_object");
            MetricSpec::Object {
                described_object: ObjectReference {
                    api_version: text(o, "apiVersion").to_string(),
                    kind: text(o, "kind").to_string(),
                    name: text(o, "name").to_string(),
                },
                metric: identifier(m),
                target,
            }
        }
        "External" => MetricSpec::External {
            metric: identifier(m),
            target,
        },
        other => panic!("unknown metric type {other:?}"),
    }
}

/// What the fake metrics APIs of the Go test answer.
fn metric_values(v: &Value, resource: &str, spec: &MetricSpec) -> MetricValues {
    let mut values = MetricValues {
        resource: array(v, "resource_metric_samples")
            .iter()
            .map(|s| PodMetrics {
                pod: text(s, "pod").to_string(),
                timestamp: instant(s, "timestamp_kind", "timestamp_age_s", NOW)
                    .unwrap_or(Timestamp::GO_ZERO),
                window: seconds(s, "window_s"),
                containers: array(s, "containers")
                    .iter()
                    .map(|c| ContainerMetrics {
                        name: text(c, "name").to_string(),
                        usage: resources(resource, opt_int(c, "usage_milli")),
                    })
                    .collect(),
            })
            .collect(),
        ..MetricValues::default()
    };
    let samples: Vec<PodMetricValue> = array(v, "pod_metric_samples")
        .iter()
        .map(|s| PodMetricValue {
            pod: text(s, "pod").to_string(),
            value_milli: int(s, "value_milli"),
            timestamp: instant(s, "timestamp_kind", "timestamp_age_s", NOW)
                .unwrap_or(Timestamp::GO_ZERO),
            window: seconds(s, "window_s"),
        })
        .collect();
    if !samples.is_empty() {
        // The scenario has one metric: spec.metrics[0].
        values.pods.insert(0, samples);
    }
    let levels: Vec<i64> = array(v, "object_or_external_values_milli")
        .iter()
        .map(|l| {
            l.as_i64()
                .unwrap_or_else(|| panic!("a level is not an int64"))
        })
        .collect();
    match spec {
        // The fake custom metrics API answers levels[0] for the described object.
        MetricSpec::Object { .. } => {
            if let Some(&level) = levels.first() {
                values.object.insert(0, level);
            }
        }
        MetricSpec::External { .. } if !levels.is_empty() => {
            values.external.insert(0, levels);
        }
        _ => {}
    }
    values
}

fn group_settings(v: &Value) -> GroupSettings {
    GroupSettings {
        cpu_initialization_period: seconds(v, "cpu_initialization_period_s"),
        delay_of_initial_readiness_status: seconds(v, "delay_of_initial_readiness_status_s"),
        now: NOW,
        ignore_succeeded: false,
    }
}

/// A `GetResourceReplicas`/`Get*MetricReplicas` case through `compute_replicas_for_metric`.
fn replica_calculation(v: &Value) -> Check {
    let m = get(v, "metric");
    // Requests and usage are of the metric's resource (always cpu in these tests).
    let resource = opt_text(m, "resource").unwrap_or("cpu");
    let pods: Vec<Pod> = array(v, "pods")
        .iter()
        .map(|p| {
            let containers = array(p, "containers")
                .iter()
                .map(|c| container(c, resource, ContainerKind::App))
                .collect();
            pod(p, containers)
        })
        .collect();
    let spec = metric_spec(m);
    let values = metric_values(v, resource, &spec);
    let current = int32(v, "current_replicas");
    let tolerances = get(v, "tolerances");
    let inputs = MetricInputs {
        calc: CalcContext {
            pods: &pods,
            ready_pods: None,
            group: group_settings(v),
            requests: REQUESTS,
            tolerances: Tolerances {
                scale_down: float(tolerances, "scale_down"),
                scale_up: float(tolerances, "scale_up"),
                symmetric: false,
            },
        },
        values: &values,
        namespace: "test-namespace",
        spec_replicas: current,
        status_replicas: current,
        missing_container_is_error: false,
        container_metrics: true,
        guards: ExternalGuards {
            per_pod_overflow: true,
            value_sum_saturates: true,
            value_clamp: true,
        },
    };
    let outcome = compute_replicas_for_metric(0, &spec, &inputs);
    let expected = get(v, "expected");
    let mut check = Check::default();
    let computed = match (&outcome.result, boolean(expected, "error")) {
        (Err(failure), false) => {
            check.fail(format!("error: expected none, got {:?}", failure.error));
            return check;
        }
        (Ok(computed), true) => {
            check.fail(format!(
                "error: expected one containing {:?}, got {} replicas",
                text(expected, "error_contains"),
                computed.replicas()
            ));
            return check;
        }
        (Err(failure), true) => {
            let want = text(expected, "error_contains");
            if !failure.condition_error.contains(want) && !failure.error.contains(want) {
                check.fail(format!(
                    "error: expected one containing {want:?}, got {:?}",
                    failure.error
                ));
            }
            None
        }
        (Ok(computed), false) => Some(computed),
    };
    for field in array(expected, "asserted") {
        let field = field.as_str().unwrap_or_default();
        // Assertion names may carry a note: "error_contains (substring of err.Error())".
        let key = field.split_whitespace().next().unwrap_or_default();
        match (key, computed) {
            ("error_contains", _) => {}
            // hpacalc does not return the metric timestamp.
            ("timestamp_kind", _) => check.not_compared("timestamp_kind"),
            ("replicas", Some(c)) => {
                check.eq("replicas", int32(expected, "replicas"), c.replicas())
            }
            ("utilization", Some(Computed::PodBased(r))) => {
                check.eq(
                    "utilization",
                    Some(int32(expected, "utilization")),
                    r.utilization,
                );
            }
            ("raw_value_milli", Some(Computed::PodBased(r))) => {
                check.eq(
                    "raw_value_milli",
                    int(expected, "raw_value_milli"),
                    r.raw_average,
                );
            }
            ("usage_milli", Some(Computed::PodBased(r))) => {
                check.eq("usage_milli", int(expected, "usage_milli"), r.raw_average);
            }
            ("usage_milli", Some(Computed::Value(r))) => {
                check.eq("usage_milli", int(expected, "usage_milli"), r.usage);
            }
            (other, _) => check.fail(format!("harness: cannot compare asserted field {other:?}")),
        }
    }
    check
}

fn samples(metrics: &Value) -> PodMetricsInfo<'_> {
    metrics
        .as_object()
        .unwrap_or_else(|| panic!("`metrics` is not an object"))
        .iter()
        .map(|(pod, s)| {
            let metric = PodMetric {
                value: int(s, "value_milli"),
                timestamp: instant(s, "timestamp_kind", "timestamp_age_s", NOW)
                    .unwrap_or(Timestamp::GO_ZERO),
                window: Duration::from_secs(int(s, "window_s")),
            };
            (pod.as_str(), metric)
        })
        .collect()
}

fn sorted_names<'v>(v: &'v Value, key: &str) -> Vec<&'v str> {
    let mut names: Vec<&str> = array(v, key)
        .iter()
        .map(|n| n.as_str().unwrap_or_default())
        .collect();
    names.sort_unstable();
    names
}

fn sorted(names: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = names.iter().map(|n| (*n).to_string()).collect();
    names.sort_unstable();
    names
}

/// `TestGroupPods`: the four groups, the pod lists compared as sets.
fn group(v: &Value) -> Check {
    let input = get(v, "input");
    let pods: Vec<Pod> = array(input, "pods")
        .iter()
        .map(|p| pod(p, Vec::new()))
        .collect();
    let metrics = samples(get(input, "metrics"));
    let groups = group_pods(&pods, &metrics, text(input, "resource"), &group_settings(v));
    let expected = get(v, "expected");
    let mut check = Check::default();
    check.eq(
        "ready_pod_count",
        usize::try_from(int(expected, "ready_pod_count")).unwrap_or(usize::MAX),
        groups.ready_pod_count,
    );
    for (key, got) in [
        ("unready_pods", &groups.unready),
        ("missing_pods", &groups.missing),
        ("ignored_pods", &groups.ignored),
    ] {
        check.eq(
            key,
            sorted_names(expected, key),
            sorted(got).iter().map(String::as_str).collect(),
        );
    }
    check.only_keys(
        expected,
        &[
            "ready_pod_count",
            "unready_pods",
            "missing_pods",
            "ignored_pods",
            "asserted",
        ],
    );
    check
}

/// A pod of the request-function vectors: app containers, init containers (sidecars when
/// `restart_policy` is `Always`) and an optional pod-level request.
fn request_pod(p: &Value, resource: &str) -> Pod {
    let mut containers: Vec<Container> = array(p, "containers")
        .iter()
        .map(|c| container(c, resource, ContainerKind::App))
        .collect();
    containers.extend(array(p, "init_containers").iter().map(|c| {
        let kind = match opt_text(c, "restart_policy") {
            Some("Always") => ContainerKind::Sidecar,
            _ => ContainerKind::Init,
        };
        container(c, resource, kind)
    }));
    let pod_requests = p
        .get("pod_level_request")
        .filter(|r| !r.is_null())
        .map(|r| resources(resource, Some(int(r, "value_milli"))));
    Pod {
        name: text(p, "name").to_string(),
        phase: PodPhase::Running,
        deleting: false,
        start_time: None,
        ready: None,
        containers,
        pod_requests,
        overhead: None,
        placement: Default::default(),
    }
}

/// `TestCalculateRequests`: the whole map (nil on error) and the exact error.
fn requests(v: &Value) -> Check {
    let input = get(v, "input");
    let resource = text(input, "resource");
    let pods: Vec<Pod> = array(input, "pods")
        .iter()
        .map(|p| request_pod(p, resource))
        .collect();
    let settings = RequestSettings {
        pod_level: boolean(input, "pod_level_resources_feature_enabled"),
        ..REQUESTS
    };
    let result = calculate_requests(&pods, opt_text(input, "container"), resource, settings);
    let expected = get(v, "expected");
    let want_map: Option<HashMap<&str, i64>> =
        get(expected, "requests_milli").as_object().map(|m| {
            m.iter()
                .map(|(pod, r)| {
                    (
                        pod.as_str(),
                        r.as_i64().unwrap_or_else(|| panic!("request not an int64")),
                    )
                })
                .collect()
        });
    let mut check = Check::default();
    check.eq("error (bool)", boolean(expected, "error"), result.is_err());
    let got_map: Option<HashMap<&str, i64>> = result
        .as_ref()
        .ok()
        .map(|m| m.iter().map(|(k, v)| (*k, *v)).collect());
    check.eq("requests_milli", want_map, got_map);
    check.eq(
        "error",
        opt_text(expected, "error_equals"),
        result.as_ref().err().map(String::as_str),
    );
    check.only_keys(
        expected,
        &["requests_milli", "error", "error_equals", "asserted"],
    );
    check
}

/// `TestCalculatePodRequestsFromContainers_NonExistentContainer`: 0 and the exact error.
fn pod_requests(v: &Value) -> Check {
    let input = get(v, "input");
    let resource = text(input, "resource");
    let pod = request_pod(get(input, "pod"), resource);
    let result = calculate_pod_requests_from_containers(
        &pod,
        opt_text(input, "container"),
        resource,
        REQUESTS,
    );
    let expected = get(v, "expected");
    let mut check = Check::default();
    check.eq("error (bool)", boolean(expected, "error"), result.is_err());
    // Go returns (0, err) on error.
    check.eq(
        "request_milli",
        int(expected, "request_milli"),
        *result.as_ref().unwrap_or(&0),
    );
    check.eq(
        "error",
        opt_text(expected, "error_equals"),
        result.as_ref().err().map(String::as_str),
    );
    check.only_keys(
        expected,
        &["request_milli", "error", "error_equals", "asserted"],
    );
    check
}
