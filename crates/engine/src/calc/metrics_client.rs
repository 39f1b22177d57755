//! How the controller's metrics client turns API answers into per-pod values:
//! `pkg/controller/podautoscaler/metrics/client.go`.

use crate::calc::pods::{PodMetric, PodMetricsInfo};
use crate::scenario::{PodMetricValue, PodMetrics};

// Port of resourceMetricsClient.GetResourceMetric with getPodMetrics / getContainerMetrics
// (metrics/client.go). `missing_container_is_error` selects the rule before 1.32.
pub fn resource_metric<'a>(
    items: &'a [PodMetrics],
    resource: &str,
    container: Option<&str>,
    missing_container_is_error: bool,
) -> Result<PodMetricsInfo<'a>, String> {
    if items.is_empty() {
        return Err("no metrics returned from resource metrics API".into());
    }
    let mut res = PodMetricsInfo::with_capacity_and_hasher(items.len(), Default::default());
    for m in items {
        let value = match container {
            None => pod_sum(m, resource),
            Some(name) => match m.containers.iter().find(|c| c.name == name) {
                Some(c) => c.usage.get(resource),
                None if missing_container_is_error => {
                    return Err(format!(
                        "failed to get container metrics: container {name} not present in metrics for pod {}",
                        m.pod
                    ));
                }
                None => None,
            },
        };
        if let Some(value) = value {
            res.insert(
                m.pod.as_str(),
                PodMetric {
                    value,
                    timestamp: m.timestamp,
                    window: m.window,
                },
            );
        }
    }
    Ok(res)
}

// Port of getPodMetrics (metrics/client.go): a pod is missing when it has no containers or any
// container lacks the resource.
fn pod_sum(m: &PodMetrics, resource: &str) -> Option<i64> {
    if m.containers.is_empty() {
        return None;
    }
    m.containers.iter().try_fold(0i64, |sum, c| {
        Some(sum.wrapping_add(c.usage.get(resource)?))
    })
}

// Port of customMetricsClient.GetRawMetric (metrics/client.go).
pub fn raw_metric(values: Option<&[PodMetricValue]>) -> Result<PodMetricsInfo<'_>, String> {
    let values = values.unwrap_or_default();
    if values.is_empty() {
        return Err("no metrics returned from custom metrics API".into());
    }
    Ok(values
        .iter()
        .map(|v| {
            (
                v.pod.as_str(),
                PodMetric {
                    value: v.value_milli,
                    timestamp: v.timestamp,
                    window: v.window,
                },
            )
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{ContainerMetrics, Resources};
    use crate::time::{Duration, Timestamp};

    fn item(pod: &str, containers: &[(&str, Option<i64>)]) -> PodMetrics {
        PodMetrics {
            pod: pod.into(),
            timestamp: Timestamp(0),
            window: Duration::from_secs(60),
            containers: containers
                .iter()
                .map(|(name, cpu)| ContainerMetrics {
                    name: (*name).into(),
                    usage: Resources(cpu.map(|v| ("cpu".to_string(), v)).into_iter().collect()),
                })
                .collect(),
        }
    }

    #[test]
    fn pod_usage_is_the_sum_over_containers() {
        let items = [item("a", &[("c1", Some(100)), ("c2", Some(50))])];
        assert_eq!(
            resource_metric(&items, "cpu", None, false).unwrap()["a"].value,
            150
        );
    }

    #[test]
    fn a_container_without_the_resource_makes_the_pod_missing() {
        let items = [item("a", &[("c1", Some(100)), ("", None)]), item("b", &[])];
        assert!(
            resource_metric(&items, "cpu", None, false)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn container_metrics_pick_the_named_container() {
        let items = [
            item("a", &[("c1", Some(100)), ("c2", Some(50))]),
            item("b", &[("c1", Some(7))]),
        ];
        let m = resource_metric(&items, "cpu", Some("c2"), false).unwrap();
        assert_eq!(m["a"].value, 50);
        assert!(!m.contains_key("b"));
        assert!(resource_metric(&items, "cpu", Some("c2"), true).is_err());
    }

    #[test]
    fn no_items_is_an_error() {
        assert_eq!(
            resource_metric(&[], "cpu", None, false).unwrap_err(),
            "no metrics returned from resource metrics API"
        );
        assert!(raw_metric(None).is_err());
    }
}
