//! The answer from the HPA's status alone (`--hpa` without `--pods`): synthetic pods whose
//! samples reproduce `status.currentMetrics` exactly where integers allow.
//!
//! The status reports, per metric, what the controller's first pass saw: the average utilization
//! and average value over the pods that were ready and had a sample, before the recount of missing
//! and unready pods. It hides those pods. So hpacalc builds `currentReplicas` identical ready pods,
//! each using the status's average value with a request chosen so that the truncated utilization
//! is the status's, and labels the result an approximation.

use std::collections::BTreeMap;

use crate::input::manifest::HpaStatus;
use crate::scenario::{
    ConditionStatus, Container, ContainerKind, ContainerMetrics, MetricSpec, ObservedStatus, Pod,
    PodMetricValue, PodMetrics, PodPhase, ReadyCondition, Resources, TargetType,
};
use crate::time::{Duration, Timestamp};

/// The container that carries the pod's usage when no ContainerResource metric names it.
const MAIN: &str = "app";
/// The container that carries the rest of the pod's usage when `app` is a ContainerResource's.
const REST: &str = "rest";
/// The custom metrics API's default window.
const CUSTOM_METRIC_WINDOW: Duration = Duration::from_secs(60);

/// Synthetic pods and the samples that reproduce the status.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Synthesized {
    pub pods: Vec<Pod>,
    pub resource_metrics: Vec<PodMetrics>,
    /// Pods metric values, keyed by the metric's position in `spec.metrics`: two entries of one
    /// name each reproduce their own status entry.
    pub pod_metrics: BTreeMap<usize, Vec<PodMetricValue>>,
    pub notes: Vec<String>,
}

/// One container's usage and request of one resource.
#[derive(Debug, Clone, Copy, Default)]
struct Cell {
    usage: Option<i64>,
    request: Option<i64>,
}

/// Containers in order, each with its resources.
#[derive(Debug, Default)]
struct Template(Vec<(String, BTreeMap<String, Cell>)>);

impl Template {
    fn cell(&mut self, container: &str, resource: &str) -> &mut Cell {
        let at = match self.0.iter().position(|(n, _)| n == container) {
            Some(i) => i,
            None => {
                self.0.push((container.to_string(), BTreeMap::new()));
                self.0.len() - 1
            }
        };
        // `at` indexes an entry that exists: found or just pushed.
        #[allow(clippy::indexing_slicing)]
        let resources = &mut self.0[at].1;
        resources.entry(resource.to_string()).or_default()
    }
}

/// A request `r` with `trunc(usage × 100 / r) == utilization`, and whether one exists.
fn request_for(usage: i64, utilization: i32) -> (i64, bool) {
    let u = i64::from(utilization);
    if usage <= 0 {
        return (1000, usage == 0 && u == 0);
    }
    let Some(num) = usage.checked_mul(100) else {
        return (usage, false);
    };
    if u <= 0 {
        return (num.saturating_add(1), true);
    }
    // The largest request with num / r >= u; it is exact when num / r is exactly u.
    let r = (num / u).max(1);
    (r, num / r == u)
}

/// Usage and request of one status entry; `None` when the status has no value for it.
fn values(
    average: Option<i64>,
    utilization: Option<i32>,
    needs_request: bool,
) -> Option<(Cell, bool, bool)> {
    match (average, utilization) {
        (Some(a), Some(u)) => {
            let (r, exact) = request_for(a, u);
            Some((
                Cell {
                    usage: Some(a),
                    request: Some(r),
                },
                exact,
                true,
            ))
        }
        (Some(a), None) => Some((
            Cell {
                usage: Some(a),
                request: needs_request.then_some(a),
            },
            !needs_request,
            true,
        )),
        // Only a percentage: a request of one unit, so the usage is u% of it.
        (None, Some(u)) => Some((
            Cell {
                usage: Some(i64::from(u).saturating_mul(10)),
                request: Some(1000),
            },
            true,
            false,
        )),
        (None, None) => None,
    }
}

/// Whether any metric reads the pods: pod-based metrics, and Object or External `Value` targets
/// (they multiply by the number of ready pods). Only then does the status alone approximate.
pub fn reads_pods(specs: &[MetricSpec]) -> bool {
    specs.iter().any(|s| match s {
        MetricSpec::Resource { .. } | MetricSpec::Pods { .. } => true,
        MetricSpec::Object { target, .. } | MetricSpec::External { target, .. } => {
            target.target_type == TargetType::Value
        }
    })
}

/// Whether the status keeps only the per-pod average of an Object or External AverageValue
/// metric, not its total: the controller writes the total over the replicas, rounded up
/// (`GetExternalPerPodMetricReplicas`, `GetObjectPerPodMetricReplicas`), so the status alone
/// gives the total only as an approximation.
pub fn keeps_only_averages(specs: &[MetricSpec], status: &HpaStatus) -> bool {
    specs.iter().any(|s| {
        s.is_object_or_external()
            && status.current_metrics.iter().any(|m| {
                m.metric_type == s.type_name()
                    && m.name == s.metric_name()
                    && m.value_milli.is_none()
                    && m.average_value_milli.is_some()
            })
    })
}

/// Builds `replicas` ready pods whose samples reproduce `status.currentMetrics` for every
/// pod-based metric of `specs`.
pub fn synthesize(
    specs: &[MetricSpec],
    status: &ObservedStatus,
    replicas: i32,
    now: Timestamp,
    window: Duration,
) -> Synthesized {
    let plan = plan(specs, status);
    let count = usize::try_from(replicas).unwrap_or(0);
    let mut out = pods(&plan, count, now, window);
    out.notes = notes(&plan, count);
    out
}

/// What the status gives each synthetic pod, and the labels of the metrics it reproduces only in
/// part.
#[derive(Default)]
struct Plan {
    template: Template,
    /// Each Pods metric's value, the same for every pod, by its position in `spec.metrics`.
    pods_values: Vec<(usize, i64)>,
    /// No whole-number request reproduces both numbers.
    inexact: Vec<String>,
    /// No value in the status.
    no_value: Vec<String>,
    /// Only a utilization in the status.
    no_average: Vec<String>,
}

/// Reads each metric's status entry into the template of one pod.
fn plan(specs: &[MetricSpec], status: &ObservedStatus) -> Plan {
    let mut plan = Plan::default();
    // Resources with a pod-level (not container) metric, and whether it needs requests.
    let mut pod_level: BTreeMap<&str, bool> = BTreeMap::new();

    // ContainerResource metrics first: a pod-level metric of the same resource takes the rest.
    let mut order: Vec<usize> = (0..specs.len()).collect();
    order.sort_by_key(|&i| {
        !matches!(
            specs.get(i),
            Some(MetricSpec::Resource {
                container: Some(_),
                ..
            })
        )
    });
    for i in order {
        let Some(spec) = specs.get(i) else { continue };
        let label = format!("{} {}", spec.type_name(), spec.metric_name());
        let entry = status.metric_for(specs, i);
        match spec {
            MetricSpec::Resource {
                resource,
                container,
                target,
            } => {
                let needs_request = target.target_type == TargetType::Utilization;
                let Some((cell, exact, has_average)) = entry.and_then(|m| {
                    values(m.average_value_milli, m.average_utilization, needs_request)
                }) else {
                    plan.no_value.push(label);
                    continue;
                };
                if !exact {
                    plan.inexact.push(label.clone());
                }
                if !has_average {
                    plan.no_average.push(label.clone());
                }
                match container {
                    Some(c) => *plan.template.cell(c, resource) = cell,
                    None => {
                        pod_level.insert(resource.as_str(), needs_request);
                        plan.pod_level(resource, cell, label);
                    }
                }
            }
            MetricSpec::Pods { .. } => match entry.and_then(|m| m.average_value_milli) {
                Some(a) => plan.pods_values.push((i, a)),
                None => plan.no_value.push(label),
            },
            MetricSpec::Object { .. } | MetricSpec::External { .. } => {}
        }
    }
    // A pod-level metric reads every container: each gets the resource, at 0 if not set.
    for (resource, needs_request) in &pod_level {
        for (_, resources) in &mut plan.template.0 {
            let cell = resources.entry((*resource).to_string()).or_default();
            cell.usage.get_or_insert(0);
            if *needs_request {
                cell.request.get_or_insert(0);
            }
        }
    }
    if plan.template.0.is_empty() {
        plan.template.0.push((MAIN.to_string(), BTreeMap::new()));
    }
    plan
}

impl Plan {
    /// A pod-level metric of `resource` whose status gives the pod `cell`: in `app`, or, when
    /// containers have their own metrics of it, what they leave in one more container.
    fn pod_level(&mut self, resource: &str, cell: Cell, label: String) {
        let named: Vec<(String, Cell)> = (self.template.0.iter())
            .filter_map(|(n, res)| res.get(resource).map(|c| (n.clone(), *c)))
            .collect();
        if named.is_empty() {
            *self.template.cell(MAIN, resource) = cell;
            return;
        }
        // The containers' own metrics are kept; the rest of the pod's usage and request goes to
        // one more container.
        let used: i64 = named.iter().filter_map(|(_, c)| c.usage).sum();
        let requested: i64 = named.iter().filter_map(|(_, c)| c.request).sum();
        let usage = cell.usage.unwrap_or(0) - used;
        let request = cell.request.map(|r| r - requested);
        if usage < 0 || request.is_some_and(|r| r < 0) {
            self.inexact.push(label);
        }
        let rest = if named.iter().any(|(n, _)| n == MAIN) {
            REST
        } else {
            MAIN
        };
        *self.template.cell(rest, resource) = Cell {
            usage: Some(usage.max(0)),
            request: request.map(|r| r.max(0)),
        };
    }
}

impl Template {
    /// The containers with their requests.
    fn containers(&self) -> Vec<Container> {
        (self.0.iter())
            .map(|(name, resources)| Container {
                name: name.clone(),
                kind: ContainerKind::App,
                requests: Resources(
                    (resources.iter())
                        .filter_map(|(r, c)| c.request.map(|v| (r.clone(), v)))
                        .collect(),
                ),
            })
            .collect()
    }

    /// The containers with their usage.
    fn usage(&self) -> Vec<ContainerMetrics> {
        (self.0.iter())
            .map(|(name, resources)| ContainerMetrics {
                name: name.clone(),
                usage: Resources(
                    (resources.iter())
                        .filter_map(|(r, c)| c.usage.map(|v| (r.clone(), v)))
                        .collect(),
                ),
            })
            .collect()
    }
}

/// `count` ready pods built from the plan, and their samples.
fn pods(plan: &Plan, count: usize, now: Timestamp, window: Duration) -> Synthesized {
    let mut out = Synthesized::default();
    let containers = plan.template.containers();
    let usage = plan.template.usage();
    let has_usage = usage.iter().any(|c| !c.usage.0.is_empty());
    for n in 1..=count {
        let name = format!("status-pod-{n}");
        out.pods.push(Pod {
            name: name.clone(),
            phase: PodPhase::Running,
            deleting: false,
            start_time: Some(Timestamp::GO_ZERO),
            ready: Some(ReadyCondition {
                status: ConditionStatus::True,
                last_transition_time: Timestamp::GO_ZERO,
            }),
            containers: containers.clone(),
            pod_requests: None,
            overhead: None,
            placement: Default::default(),
        });
        if has_usage {
            out.resource_metrics.push(PodMetrics {
                pod: name.clone(),
                timestamp: now,
                window,
                containers: usage.clone(),
            });
        }
        for &(index, value) in &plan.pods_values {
            out.pod_metrics
                .entry(index)
                .or_default()
                .push(PodMetricValue {
                    pod: name.clone(),
                    value_milli: value,
                    timestamp: now,
                    window: CUSTOM_METRIC_WINDOW,
                });
        }
    }
    out
}

/// What the approximation is, and what it could not reproduce.
fn notes(plan: &Plan, count: usize) -> Vec<String> {
    let mut notes = vec![format!(
        "Approximation from the HPA's status alone (no --pods): {count} ready pod(s) with \
         identical usage reproduce status.currentMetrics. The status reports averages over the \
         pods that were ready and had a sample, before the recount of missing and unready pods, \
         and hides those pods; pass --pods and --metrics for the controller's exact answer."
    )];
    if !plan.no_value.is_empty() {
        notes.push(format!(
            "No value in status.currentMetrics for {} (the controller could not compute it at \
             its last sync): it has no samples here.",
            plan.no_value.join(", ")
        ));
    }
    if !plan.no_average.is_empty() {
        notes.push(format!(
            "The status gives only a utilization for {}: the synthetic pods request one unit \
             each, so the average value shown is not the real one.",
            plan.no_average.join(", ")
        ));
    }
    if !plan.inexact.is_empty() {
        notes.push(format!(
            "No whole-number request reproduces both the average value and the utilization of \
             {} exactly: the nearest was used.",
            plan.inexact.join(", ")
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::metrics_client::resource_metric;
    use crate::scenario::{MetricIdentifier, MetricTarget, ObservedMetric};

    fn utilization(u: i32) -> MetricTarget {
        MetricTarget {
            target_type: TargetType::Utilization,
            average_utilization: Some(u),
            average_value_milli: None,
            value_milli: None,
        }
    }

    fn average(v: i64) -> MetricTarget {
        MetricTarget {
            target_type: TargetType::AverageValue,
            average_utilization: None,
            average_value_milli: Some(v),
            value_milli: None,
        }
    }

    fn observed(entries: &[(&str, &str, Option<i64>, Option<i32>)]) -> ObservedStatus {
        ObservedStatus {
            conditions: Vec::new(),
            current_metrics: entries
                .iter()
                .map(|&(t, n, a, u)| ObservedMetric {
                    metric_type: t.into(),
                    name: n.into(),
                    average_value_milli: a,
                    average_utilization: u,
                    value_milli: None,
                })
                .collect(),
            ..ObservedStatus::default()
        }
    }

    /// The utilization and average the controller would compute from the synthetic pods.
    fn computed(s: &Synthesized, resource: &str, container: Option<&str>) -> (i64, i64) {
        let m = resource_metric(&s.resource_metrics, resource, container, false).unwrap();
        let total: i64 = m.values().map(|p| p.value).sum();
        let request: i64 = s
            .pods
            .iter()
            .flat_map(|p| &p.containers)
            .filter(|c| container.is_none_or(|n| c.name == n))
            .map(|c| c.requests.get(resource).unwrap())
            .sum();
        (
            total * 100 / request,
            total / i64::try_from(m.len()).unwrap(),
        )
    }

    #[test]
    fn request_for_reproduces_the_truncated_utilization() {
        for (usage, u) in [
            (361, 72),
            (400, 80),
            (1, 1),
            (0, 0),
            (5, 0),
            (314_572_800_000, 58),
        ] {
            let (r, exact) = request_for(usage, u);
            assert!(exact, "{usage} {u}");
            assert_eq!(usage * 100 / r, i64::from(u), "{usage} {u}");
        }
        assert!(!request_for(1, 99).1, "no request gives 1m at exactly 99%");
    }

    #[test]
    fn resource_status_gives_identical_ready_pods_with_the_same_averages() {
        let specs = [MetricSpec::Resource {
            resource: "cpu".into(),
            container: None,
            target: utilization(60),
        }];
        let s = synthesize(
            &specs,
            &observed(&[("Resource", "cpu", Some(361), Some(72))]),
            6,
            Timestamp(0),
            Duration::from_secs(15),
        );
        assert_eq!(s.pods.len(), 6);
        assert!(
            s.pods
                .iter()
                .all(|p| p.phase == PodPhase::Running && !p.deleting)
        );
        assert_eq!(computed(&s, "cpu", None), (72, 361));
        assert!(s.notes[0].starts_with("Approximation from the HPA's status alone"));
        assert_eq!(s.notes.len(), 1, "{:?}", s.notes);
    }

    #[test]
    fn container_and_pod_metrics_of_one_resource_are_both_reproduced() {
        let specs = [
            MetricSpec::Resource {
                resource: "cpu".into(),
                container: None,
                target: utilization(60),
            },
            MetricSpec::Resource {
                resource: "cpu".into(),
                container: Some("app".into()),
                target: utilization(60),
            },
            MetricSpec::Resource {
                resource: "memory".into(),
                container: None,
                target: average(500),
            },
        ];
        let st = observed(&[
            ("Resource", "cpu", Some(440), Some(73)),
            ("ContainerResource", "cpu", Some(400), Some(80)),
            ("Resource", "memory", Some(300), None),
        ]);
        let s = synthesize(&specs, &st, 3, Timestamp(0), Duration::from_secs(15));
        assert_eq!(computed(&s, "cpu", Some("app")), (80, 400));
        assert_eq!(computed(&s, "cpu", None), (73, 440));
        let memory = resource_metric(&s.resource_metrics, "memory", None, false).unwrap();
        assert_eq!(
            memory.len(),
            3,
            "every container has memory, so no pod is missing"
        );
        assert_eq!(memory["status-pod-1"].value, 300);
    }

    #[test]
    fn pods_metrics_and_missing_entries() {
        let specs = [
            MetricSpec::Pods {
                metric: MetricIdentifier {
                    name: "rps".into(),
                    selector: None,
                },
                target: average(100_000),
            },
            MetricSpec::Resource {
                resource: "cpu".into(),
                container: None,
                target: utilization(50),
            },
        ];
        let s = synthesize(
            &specs,
            &observed(&[("Pods", "rps", Some(87_500), None)]),
            2,
            Timestamp(7),
            Duration::from_secs(15),
        );
        let rps = &s.pod_metrics[&0];
        assert_eq!(rps.len(), 2);
        assert_eq!(
            (rps[0].value_milli, rps[0].timestamp),
            (87_500, Timestamp(7))
        );
        assert!(s.resource_metrics.is_empty(), "no cpu value: no samples");
        assert!(s.notes[1].contains("No value in status.currentMetrics for Resource cpu"));
    }

    // The controller writes status.currentMetrics in spec.metrics' order, one entry per spec
    // entry (computeReplicasForMetrics, horizontal.go): two Pods entries of one name each
    // reproduce their own status entry, not the last one's.
    #[test]
    fn same_name_pods_metrics_each_reproduce_their_own_status_entry() {
        let pods = |selector: &str| MetricSpec::Pods {
            metric: MetricIdentifier {
                name: "http_requests".into(),
                selector: Some([("path".to_string(), selector.to_string())].into()),
            },
            target: average(10_000),
        };
        let specs = [pods("/api"), pods("/static")];
        let status = observed(&[
            ("Pods", "http_requests", Some(30_000), None),
            ("Pods", "http_requests", Some(5_000), None),
        ]);
        let s = synthesize(&specs, &status, 4, Timestamp(7), Duration::from_secs(15));
        let values = |i: usize| {
            (s.pod_metrics[&i].iter())
                .map(|v| v.value_milli)
                .collect::<Vec<_>>()
        };
        assert_eq!(values(0), vec![30_000; 4]);
        assert_eq!(values(1), vec![5_000; 4]);
    }

    #[test]
    fn a_utilization_without_an_average_uses_a_one_unit_request() {
        let specs = [MetricSpec::Resource {
            resource: "cpu".into(),
            container: None,
            target: utilization(80),
        }];
        let s = synthesize(
            &specs,
            &observed(&[("Resource", "cpu", None, Some(95))]),
            1,
            Timestamp(0),
            Duration::from_secs(15),
        );
        assert_eq!(computed(&s, "cpu", None), (95, 950));
        assert!(s.notes[1].contains("gives only a utilization for Resource cpu"));
    }
}
