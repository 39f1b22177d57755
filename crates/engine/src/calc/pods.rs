//! Pod grouping and pod requests: `groupPods`, `calculateRequests` and `getReadyPodsCount` of
//! `pkg/controller/podautoscaler/replica_calculator.go`.

use std::collections::HashMap;

use crate::scenario::{ConditionStatus, ContainerKind, Pod, PodPhase, Resources};
use crate::time::{Duration, Timestamp};

/// One pod's sample as the metrics client hands it over (`metricsclient.PodMetric`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PodMetric {
    pub value: i64,
    pub timestamp: Timestamp,
    pub window: Duration,
}

/// A map keyed by pod name on the per-sync path. foldhash, not the standard SipHash: hashing
/// names was a fifth of a simulated week's profile; it is seeded per process, so crafted pod
/// names cannot force collisions.
pub type PodMap<'a, V> = HashMap<&'a str, V, foldhash::fast::RandomState>;

/// `metricsclient.PodMetricsInfo`: pod name → sample. May hold pods the lister does not know.
pub type PodMetricsInfo<'a> = PodMap<'a, PodMetric>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Ready,
    Unready,
    Missing,
    Ignored,
}

impl Class {
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Ready => "ready",
            Class::Unready => "unready",
            Class::Missing => "missing",
            Class::Ignored => "ignored",
        }
    }
}

/// Why a pod got its class, for `-o wide`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    Deleting,
    Failed,
    Pending,
    NoSample,
    ReadinessNotConsulted,
    NoReadyConditionOrStartTime,
    InitializingNotReady,
    InitializingSampleBeforeReady,
    Initializing,
    NeverBecameReady,
    Ready,
}

impl Why {
    pub fn describe(self) -> &'static str {
        match self {
            Why::Deleting => "has a deletionTimestamp",
            Why::Failed => "phase Failed",
            Why::Pending => "phase Pending (counted as unready)",
            Why::NoSample => "no metric sample",
            Why::ReadinessNotConsulted => "has a sample (readiness is only checked for cpu)",
            Why::NoReadyConditionOrStartTime => "no Ready condition or no start time",
            Why::InitializingNotReady => "inside the cpu initialization period and Ready=False",
            Why::InitializingSampleBeforeReady => {
                "inside the cpu initialization period; sample taken before ready + window"
            }
            Why::Initializing => "inside the cpu initialization period, ready with a fresh sample",
            Why::NeverBecameReady => "Ready=False and has never been ready",
            Why::Ready => "ready with a sample",
        }
    }
}

/// The result of `groupPods`, with each pod's class in input order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Groups<'a> {
    pub ready_pod_count: usize,
    pub unready: Vec<&'a str>,
    pub missing: Vec<&'a str>,
    pub ignored: Vec<&'a str>,
    pub classes: Vec<(&'a str, Class, Why)>,
}

/// Settings of `groupPods` that come from the controller flags and the version.
#[derive(Debug, Clone, Copy)]
pub struct GroupSettings {
    pub cpu_initialization_period: Duration,
    pub delay_of_initial_readiness_status: Duration,
    pub now: Timestamp,
    /// Ignore Succeeded pods like Failed ones (kubernetes/kubernetes#141302, after 1.37).
    pub ignore_succeeded: bool,
}

// Port of groupPods (replica_calculator.go).
pub fn group_pods<'a>(
    pods: &'a [Pod],
    metrics: &PodMetricsInfo<'_>,
    resource: &str,
    settings: &GroupSettings,
) -> Groups<'a> {
    let mut groups = Groups {
        classes: Vec::with_capacity(pods.len()),
        ..Groups::default()
    };
    for pod in pods {
        let (class, why) = classify(pod, metrics, resource, settings);
        let name = pod.name.as_str();
        match class {
            Class::Ready => groups.ready_pod_count += 1,
            Class::Unready => groups.unready.push(name),
            Class::Missing => groups.missing.push(name),
            Class::Ignored => groups.ignored.push(name),
        }
        groups.classes.push((name, class, why));
    }
    groups
}

fn classify(
    pod: &Pod,
    metrics: &PodMetricsInfo<'_>,
    resource: &str,
    settings: &GroupSettings,
) -> (Class, Why) {
    if pod.deleting {
        return (Class::Ignored, Why::Deleting);
    }
    if pod.phase == PodPhase::Failed
        || (settings.ignore_succeeded && pod.phase == PodPhase::Succeeded)
    {
        return (Class::Ignored, Why::Failed);
    }
    // The controller's comment says "Pending pods are ignored", but they go to the unready set.
    if pod.phase == PodPhase::Pending {
        return (Class::Unready, Why::Pending);
    }
    let Some(metric) = metrics.get(pod.name.as_str()) else {
        return (Class::Missing, Why::NoSample);
    };
    if resource != "cpu" {
        return (Class::Ready, Why::ReadinessNotConsulted);
    }
    let (Some(condition), Some(start)) = (pod.ready, pod.start_time) else {
        return (Class::Unready, Why::NoReadyConditionOrStartTime);
    };
    if start
        .add(settings.cpu_initialization_period)
        .after(settings.now)
    {
        // Within the initialization period: unready unless ready and sampled after readiness.
        if condition.status == ConditionStatus::False {
            return (Class::Unready, Why::InitializingNotReady);
        }
        if metric
            .timestamp
            .before(condition.last_transition_time.add(metric.window))
        {
            return (Class::Unready, Why::InitializingSampleBeforeReady);
        }
        return (Class::Ready, Why::Initializing);
    }
    // Past the initialization period: unready only if it has never been ready.
    if condition.status == ConditionStatus::False
        && start
            .add(settings.delay_of_initial_readiness_status)
            .after(condition.last_transition_time)
    {
        return (Class::Unready, Why::NeverBecameReady);
    }
    (Class::Ready, Why::Ready)
}

/// Which containers' requests count, by version and feature gate.
#[derive(Debug, Clone, Copy)]
pub struct RequestSettings {
    /// Restartable init containers (sidecars) add to the pod request (1.29+).
    pub sidecars: bool,
    /// Pod-level `spec.resources.requests` replace the container sum (`PodLevelResources`, 1.34+).
    pub pod_level: bool,
}

// Port of calculateRequests (replica_calculator.go): every listed pod, ignored ones included.
pub fn calculate_requests<'a>(
    pods: &'a [Pod],
    container: Option<&str>,
    resource: &str,
    settings: RequestSettings,
) -> Result<PodMap<'a, i64>, String> {
    let mut requests = PodMap::with_capacity_and_hasher(pods.len(), Default::default());
    for pod in pods {
        let request = match (&pod.pod_requests, container) {
            (Some(pod_requests), None) if settings.pod_level && !pod_requests.0.is_empty() => {
                calculate_pod_level_requests(pod, pod_requests, resource)?
            }
            _ => calculate_pod_requests_from_containers(pod, container, resource, settings)?,
        };
        requests.insert(pod.name.as_str(), request);
    }
    Ok(requests)
}

// Port of calculatePodLevelRequests (replica_calculator.go): `PodRequests(pod,
// PodResourcesOptions{})`'s entry for the resource, missing only when nothing names it.
fn calculate_pod_level_requests(
    pod: &Pod,
    pod_requests: &Resources,
    resource: &str,
) -> Result<i64, String> {
    pod_level_request(pod, pod_requests, resource).ok_or_else(|| {
        format!(
            "missing pod-level request for {resource} in Pod {}",
            pod.name
        )
    })
}

// Port of PodRequests (k8s.io/component-helpers/resource/helpers.go) for one resource, with no
// option set: the containers' aggregate, replaced by the pod-level request of a supported
// resource (cpu, memory), plus the pod's overhead.
fn pod_level_request(pod: &Pod, pod_requests: &Resources, resource: &str) -> Option<i64> {
    let supported = matches!(resource, "cpu" | "memory");
    let aggregate = aggregate_container_requests(pod, resource);
    let request = match pod_requests.get(resource) {
        Some(v) if supported => Some(v),
        _ => aggregate,
    };
    match (request, pod.overhead.as_ref().and_then(|o| o.get(resource))) {
        (Some(r), Some(o)) => Some(r.saturating_add(o)),
        (r, o) => r.or(o),
    }
}

// Port of AggregateContainerRequests (k8s.io/component-helpers/resource/helpers.go) for one
// resource: the app containers and sidecars summed; each init container needs its own request
// plus the sidecars started before it, and the largest of those is a floor. `None` when no
// container names the resource (`addResourceList` adds only what is listed).
fn aggregate_container_requests(pod: &Pod, resource: &str) -> Option<i64> {
    let add = |a: Option<i64>, b: Option<i64>| match (a, b) {
        (Some(a), Some(b)) => Some(a.saturating_add(b)),
        (a, b) => a.or(b),
    };
    let mut requests = None;
    for c in pod
        .containers
        .iter()
        .filter(|c| c.kind == ContainerKind::App)
    {
        requests = add(requests, c.requests.get(resource));
    }
    let (mut sidecars, mut init_floor) = (None, None);
    for c in pod
        .containers
        .iter()
        .filter(|c| c.kind != ContainerKind::App)
    {
        let own = c.requests.get(resource);
        let needs = if c.kind == ContainerKind::Sidecar {
            requests = add(requests, own);
            sidecars = add(sidecars, own);
            sidecars
        } else {
            add(own, sidecars)
        };
        init_floor = init_floor.max(needs);
    }
    // maxResourceList: the floor where it is higher, or where the containers name nothing.
    requests.max(init_floor)
}

// Port of calculatePodRequestsFromContainers (replica_calculator.go).
pub fn calculate_pod_requests_from_containers(
    pod: &Pod,
    container: Option<&str>,
    resource: &str,
    settings: RequestSettings,
) -> Result<i64, String> {
    let considered = pod.containers.iter().filter(|c| match c.kind {
        ContainerKind::App => true,
        ContainerKind::Sidecar => settings.sidecars,
        ContainerKind::Init => false,
    });
    if let Some(name) = container {
        let c = considered
            .clone()
            .find(|c| c.name == name)
            .ok_or_else(|| format!("container {name} not found in Pod {}", pod.name))?;
        return c.requests.get(resource).ok_or_else(|| {
            format!(
                "missing request for {resource} in container {} of Pod {}",
                c.name, pod.name
            )
        });
    }
    let mut sum = 0i64;
    for c in considered {
        let request = c.requests.get(resource).ok_or_else(|| {
            format!(
                "missing request for {resource} in container {} of Pod {}",
                c.name, pod.name
            )
        })?;
        sum = sum.wrapping_add(request);
    }
    Ok(sum)
}

// Port of getReadyPodsCount (replica_calculator.go): Running and Ready=True, nothing else.
pub fn ready_pods_count(pods: &[Pod]) -> Result<i64, String> {
    if pods.is_empty() {
        return Err("no pods returned by selector while calculating replica count".into());
    }
    let count = pods
        .iter()
        .filter(|p| {
            p.phase == PodPhase::Running
                && p.ready.is_some_and(|c| c.status == ConditionStatus::True)
        })
        .count();
    Ok(i64::try_from(count).unwrap_or(i64::MAX))
}

// Port of removeMetricsForPods (replica_calculator.go).
pub fn remove_metrics_for_pods(metrics: &mut PodMetricsInfo<'_>, pods: &[&str]) {
    for pod in pods {
        metrics.remove(*pod);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Container, ReadyCondition, Resources};

    const NOW: Timestamp = Timestamp(1_000_000_000);

    fn settings() -> GroupSettings {
        GroupSettings {
            cpu_initialization_period: Duration::from_secs(120),
            delay_of_initial_readiness_status: Duration::from_secs(10),
            now: NOW,
            ignore_succeeded: false,
        }
    }

    fn pod(
        name: &str,
        phase: PodPhase,
        ready: ConditionStatus,
        start_age: i64,
        ltt_age: i64,
    ) -> Pod {
        Pod {
            name: name.into(),
            phase,
            deleting: false,
            start_time: Some(NOW.sub(Duration::from_secs(start_age))),
            ready: Some(ReadyCondition {
                status: ready,
                last_transition_time: NOW.sub(Duration::from_secs(ltt_age)),
            }),
            containers: vec![],
            pod_requests: None,
            overhead: None,
            placement: Default::default(),
        }
    }

    fn sample(age: i64) -> PodMetric {
        PodMetric {
            value: 100,
            timestamp: NOW.sub(Duration::from_secs(age)),
            window: Duration::from_secs(30),
        }
    }

    fn class_of(p: Pod, metric: Option<PodMetric>, resource: &str) -> Class {
        let pods = [p];
        let mut metrics = PodMetricsInfo::default();
        if let Some(m) = metric {
            metrics.insert("p", m);
        }
        group_pods(&pods, &metrics, resource, &settings()).classes[0].1
    }

    #[test]
    fn deleting_and_failed_pods_are_ignored() {
        let mut p = pod("p", PodPhase::Running, ConditionStatus::True, 600, 600);
        p.deleting = true;
        assert_eq!(class_of(p, Some(sample(0)), "cpu"), Class::Ignored);
        let p = pod("p", PodPhase::Failed, ConditionStatus::True, 600, 600);
        assert_eq!(class_of(p, Some(sample(0)), "cpu"), Class::Ignored);
    }

    #[test]
    fn succeeded_pods_fall_through_before_the_fix() {
        let p = pod("p", PodPhase::Succeeded, ConditionStatus::True, 600, 600);
        assert_eq!(class_of(p, Some(sample(0)), "cpu"), Class::Ready);
    }

    #[test]
    fn pending_pods_are_unready_even_without_a_sample() {
        let p = pod("p", PodPhase::Pending, ConditionStatus::False, 600, 600);
        assert_eq!(class_of(p, None, "memory"), Class::Unready);
    }

    #[test]
    fn a_pod_without_a_sample_is_missing() {
        let p = pod("p", PodPhase::Running, ConditionStatus::True, 600, 600);
        assert_eq!(class_of(p, None, "cpu"), Class::Missing);
    }

    #[test]
    fn readiness_is_only_checked_for_cpu() {
        let p = pod("p", PodPhase::Running, ConditionStatus::False, 10, 10);
        assert_eq!(class_of(p.clone(), Some(sample(0)), "memory"), Class::Ready);
        assert_eq!(class_of(p, Some(sample(0)), "cpu"), Class::Unready);
    }

    #[test]
    fn initialization_period_boundary_is_strict() {
        // Started exactly 120 s ago: start + period is not after now, so the pod is past it.
        let p = pod("p", PodPhase::Running, ConditionStatus::True, 120, 5);
        assert_eq!(class_of(p, Some(sample(0)), "cpu"), Class::Ready);
        // 119 s ago: inside; became ready 5 s ago, sample window 30 s → sample before ready+window.
        let p = pod("p", PodPhase::Running, ConditionStatus::True, 119, 5);
        assert_eq!(class_of(p, Some(sample(0)), "cpu"), Class::Unready);
    }

    #[test]
    fn sample_exactly_at_ready_plus_window_counts_as_ready() {
        let p = pod("p", PodPhase::Running, ConditionStatus::True, 60, 30);
        assert_eq!(class_of(p, Some(sample(0)), "cpu"), Class::Ready);
    }

    #[test]
    fn never_ready_uses_the_readiness_delay_strictly() {
        // start + 10 s == transition: not After → ready.
        let p = pod("p", PodPhase::Running, ConditionStatus::False, 600, 590);
        assert_eq!(class_of(p, Some(sample(0)), "cpu"), Class::Ready);
        let p = pod("p", PodPhase::Running, ConditionStatus::False, 600, 595);
        assert_eq!(class_of(p, Some(sample(0)), "cpu"), Class::Unready);
    }

    #[test]
    fn no_ready_condition_is_unready_for_cpu() {
        let mut p = pod("p", PodPhase::Running, ConditionStatus::True, 600, 600);
        p.ready = None;
        assert_eq!(class_of(p, Some(sample(0)), "cpu"), Class::Unready);
    }

    fn container(name: &str, kind: ContainerKind, cpu: Option<i64>) -> Container {
        Container {
            name: name.into(),
            kind,
            requests: Resources(cpu.map(|v| ("cpu".to_string(), v)).into_iter().collect()),
        }
    }

    const ALL: RequestSettings = RequestSettings {
        sidecars: true,
        pod_level: true,
    };

    #[test]
    fn requests_sum_app_containers_and_sidecars_not_init() {
        let mut p = pod("p", PodPhase::Running, ConditionStatus::True, 0, 0);
        p.containers = vec![
            container("app", ContainerKind::App, Some(100)),
            container("init", ContainerKind::Init, Some(20)),
            container("proxy", ContainerKind::Sidecar, Some(50)),
        ];
        let pods = [p];
        assert_eq!(
            calculate_requests(&pods, None, "cpu", ALL).unwrap()["p"],
            150
        );
        let no_sidecars = RequestSettings {
            sidecars: false,
            ..ALL
        };
        assert_eq!(
            calculate_requests(&pods, None, "cpu", no_sidecars).unwrap()["p"],
            100
        );
    }

    #[test]
    fn a_missing_request_fails_the_whole_calculation() {
        let mut p = pod("p", PodPhase::Failed, ConditionStatus::True, 0, 0);
        p.containers = vec![container("app", ContainerKind::App, None)];
        assert_eq!(
            calculate_requests(&[p], None, "cpu", ALL).unwrap_err(),
            "missing request for cpu in container app of Pod p"
        );
    }

    /// `PodRequests` adds `spec.overhead` to the pod-level request: 1000m of pod-level cpu with
    /// 200m of RuntimeClass overhead is 1200m (a pod at 1308m reads 109 %, not 130 %).
    #[test]
    fn the_pod_level_request_adds_the_overhead() {
        let mut p = pod("p", PodPhase::Running, ConditionStatus::True, 0, 0);
        p.containers = vec![container("app", ContainerKind::App, Some(500))];
        p.pod_requests = Some(Resources(vec![("cpu".into(), 1000)]));
        p.overhead = Some(Resources(vec![("cpu".into(), 200)]));
        assert_eq!(
            calculate_requests(&[p], None, "cpu", ALL).unwrap()["p"],
            1200
        );
    }

    /// Pod-level requests that do not name the resource leave `PodRequests` its containers'
    /// aggregate: app containers and sidecars summed, floored by the largest init container
    /// (plus the sidecars started before it).
    #[test]
    fn pod_level_requests_without_the_resource_take_the_containers_with_the_init_floor() {
        let mut p = pod("p", PodPhase::Running, ConditionStatus::True, 0, 0);
        p.containers = vec![
            container("app", ContainerKind::App, Some(300)),
            container("proxy", ContainerKind::Sidecar, Some(100)),
            container("migrate", ContainerKind::Init, Some(900)),
        ];
        p.pod_requests = Some(Resources(vec![("memory".into(), 1 << 30)]));
        // max(300 + 100, 900 + 100) = 1000.
        assert_eq!(
            calculate_requests(&[p.clone()], None, "cpu", ALL).unwrap()["p"],
            1000
        );
        p.containers = vec![container("app", ContainerKind::App, None)];
        assert_eq!(
            calculate_requests(&[p], None, "cpu", ALL).unwrap_err(),
            "missing pod-level request for cpu in Pod p"
        );
    }

    #[test]
    fn pod_level_requests_win_unless_a_container_is_named() {
        let mut p = pod("p", PodPhase::Running, ConditionStatus::True, 0, 0);
        p.containers = vec![container("app", ContainerKind::App, None)];
        p.pod_requests = Some(Resources(vec![("cpu".into(), 800)]));
        let pods = [p];
        assert_eq!(
            calculate_requests(&pods, None, "cpu", ALL).unwrap()["p"],
            800
        );
        assert!(calculate_requests(&pods, Some("app"), "cpu", ALL).is_err());
        let off = RequestSettings {
            pod_level: false,
            ..ALL
        };
        assert!(calculate_requests(&pods, None, "cpu", off).is_err());
    }

    #[test]
    fn a_named_container_that_does_not_exist_is_an_error() {
        let mut p = pod("test-pod", PodPhase::Running, ConditionStatus::True, 0, 0);
        p.containers = vec![container("container1", ContainerKind::App, Some(100))];
        assert_eq!(
            calculate_pod_requests_from_containers(&p, Some("non-existent-container"), "cpu", ALL)
                .unwrap_err(),
            "container non-existent-container not found in Pod test-pod"
        );
    }

    #[test]
    fn ready_pods_count_needs_running_and_ready_true() {
        let pods = [
            pod("a", PodPhase::Running, ConditionStatus::True, 0, 0),
            pod("b", PodPhase::Pending, ConditionStatus::True, 0, 0),
            pod("c", PodPhase::Running, ConditionStatus::Unknown, 0, 0),
        ];
        assert_eq!(ready_pods_count(&pods), Ok(1));
        assert!(ready_pods_count(&[]).is_err());
    }
}
