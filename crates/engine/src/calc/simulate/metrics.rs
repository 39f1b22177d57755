//! The metrics APIs the HPA reads, answered from the load curve: metrics-server's
//! `metrics.k8s.io` for Resource and ContainerResource metrics, the custom and external metrics
//! APIs for Pods, Object and External metrics. Each Ready pod reports its share of the load and a
//! starting pod 0, each up to its `--pod-limit`, with a `--startup-cpu` burst averaged over the
//! sample window as metrics-server's rate is.

use crate::scenario::{
    ContainerMetrics, MetricSpec, Pod, PodMetricValue, PodMetrics, Resources, Scenario,
};
use crate::time::Duration;

use super::engine::{Engine, MetricFeeds, PodState, START, SimPod, count};

/// The custom metrics API's default window.
const CUSTOM_METRIC_WINDOW: Duration = Duration::from_secs(60);

impl MetricFeeds {
    /// Where each metric of the scenario's HPA finds its load (`columns`, in the HPA's order),
    /// and an empty value in the scenario's metrics for each Pods, Object and External metric.
    pub(super) fn new(scenario: &mut Scenario, columns: &[usize]) -> MetricFeeds {
        let mut feeds = MetricFeeds::default();
        for (i, (spec, &column)) in scenario.hpa.metrics.iter().zip(columns).enumerate() {
            let (list, name) = match spec {
                MetricSpec::Resource { resource, .. } => (&mut feeds.resources, resource),
                // Each Pods, Object and External entry has its own value, keyed by its position.
                MetricSpec::Pods { .. } => {
                    feeds.pods.push((i, column));
                    continue;
                }
                MetricSpec::Object { .. } => {
                    feeds.object.push((i, column));
                    continue;
                }
                MetricSpec::External { .. } => {
                    feeds.external.push((i, column));
                    continue;
                }
            };
            if !list.iter().any(|(n, _)| n == name) {
                list.push((name.clone(), column));
            }
        }
        for &(i, _) in &feeds.pods {
            scenario.metrics.pods.insert(i, Vec::new());
        }
        for &(i, _) in &feeds.object {
            scenario.metrics.object.insert(i, 0);
        }
        for &(i, _) in &feeds.external {
            scenario.metrics.external.insert(i, vec![0]);
        }
        feeds
    }
}

/// The `idx`-th of `n` equal shares of `total`: the remainder goes to the first ones, so the
/// shares add up to the total exactly.
pub(super) fn share(total: i64, n: i64, idx: i64) -> i64 {
    if n <= 0 {
        return 0;
    }
    total.div_euclid(n) + i64::from(idx < total.rem_euclid(n))
}

/// The pods that report metrics, in order, each with its index among the Ready pods (`None` for
/// a Starting pod, which reports 0).
fn reporting<'a>(
    pods: &'a [SimPod],
    names: &'a [Pod],
) -> impl Iterator<Item = (&'a SimPod, &'a Pod, Option<i64>)> + 'a {
    let mut ready_seen = 0i64;
    pods.iter()
        .zip(names)
        .filter_map(move |(p, pod)| match p.state {
            PodState::Ready { .. } => {
                ready_seen += 1;
                Some((p, pod, Some(ready_seen - 1)))
            }
            PodState::Starting { .. } => Some((p, pod, None)),
            PodState::Pending | PodState::Terminating { .. } => None,
        })
}

/// What the `ready` Ready pods serve of `total` when each serves its share up to `limit`.
pub(super) fn served(total: i64, ready: i64, limit: Option<i64>) -> i64 {
    if ready <= 0 {
        return 0;
    }
    let (q, extra) = (total.div_euclid(ready), total.rem_euclid(ready));
    let cap = |v: i64| limit.map_or(v, |l| v.min(l));
    extra
        .saturating_mul(cap(q + 1))
        .saturating_add((ready - extra).saturating_mul(cap(q)))
}

/// One pod's resource sample. A Ready pod uses its share of `total` (it is the `index`-th of
/// `ready`), a Starting pod nothing, each up to `limit`. During a startup burst (`factor_milli`,
/// and how many ms of the sample's `window_ms` it covers) the pod uses that multiple of a Ready
/// pod's share, up to `limit`; the sample averages the two over its window, as metrics-server's
/// rate does.
pub(super) fn resource_usage(
    total: i64,
    ready: i64,
    index: Option<i64>,
    limit: Option<i64>,
    burst: Option<(i64, i64, i64)>,
) -> i64 {
    let cap = |v: i64| limit.map_or(v, |l| v.min(l));
    let steady = index.map_or(0, |i| cap(share(total, ready, i)));
    let Some((factor_milli, overlap, window)) = burst.filter(|b| b.1 > 0) else {
        return steady;
    };
    let base = index.map_or_else(|| share(total, ready, 0), |i| share(total, ready, i));
    let bursting =
        cap(i64::try_from(i128::from(base) * i128::from(factor_milli) / 1000).unwrap_or(i64::MAX));
    if window <= overlap {
        return bursting;
    }
    let mixed = (i128::from(overlap) * i128::from(bursting)
        + i128::from(window - overlap) * i128::from(steady))
        / i128::from(window);
    i64::try_from(mixed).unwrap_or(i64::MAX)
}

impl Engine<'_> {
    /// The load's values at `t` (the step function; `t` never goes back).
    pub(super) fn load_at(&mut self, t: i64) -> &[i64] {
        let steps = &self.setup.load.steps;
        while self
            .load_cursor
            .checked_add(1)
            .and_then(|i| steps.get(i))
            .is_some_and(|s| s.at.millis() <= t)
        {
            self.load_cursor += 1;
        }
        steps
            .get(self.load_cursor)
            .map_or(&[][..], |s| s.values.as_slice())
    }

    /// The metrics APIs' answers at `t`: the load split evenly over the Ready pods; Starting pods
    /// report 0 (they serve nothing yet); unscheduled and terminating pods report nothing. A
    /// resource sample stops at the pod's `--pod-limit`, and shows its `--startup-cpu` burst.
    /// Entries are overwritten in place, so a steady run allocates nothing here.
    pub(super) fn refresh_metrics(&mut self, t: i64) {
        let values = self.load_at(t).to_vec();
        let cursor = self.load_cursor;
        let now = START.add(Duration(t));
        let value = |column: usize| values.get(column).copied().unwrap_or(0);
        let ready_total = count(
            self.pods
                .iter()
                .filter(|p| matches!(p.state, PodState::Ready { .. }))
                .count(),
        );
        let window = self.setup.timing.metrics_window.millis();
        let Engine {
            scenario,
            pods,
            feeds,
            setup,
            ..
        } = self;
        // The part of a pod's sample window its startup burst covers (cpu only).
        let burst_of = |p: &SimPod| {
            let b = setup.startup_cpu?;
            let start = p.started?;
            let (from, to) = (t - window, t);
            let end = start + b.duration.millis();
            let overlap = if window == 0 {
                if start <= t && t < end { 1 } else { 0 }
            } else {
                (to.min(end) - from.max(start)).max(0)
            };
            Some((b.factor_milli, overlap, window.max(1)))
        };
        let names = &scenario.pods;
        let metrics = &mut scenario.metrics;

        if !feeds.resources.is_empty() {
            let samples = &mut metrics.resource;
            let mut k = 0;
            for (p, pod, share_of) in reporting(pods, names) {
                if k == samples.len() {
                    samples.push(PodMetrics {
                        pod: String::new(),
                        timestamp: now,
                        window: setup.timing.metrics_window,
                        containers: vec![ContainerMetrics {
                            name: setup.container.clone(),
                            usage: Resources(
                                feeds
                                    .resources
                                    .iter()
                                    .map(|(r, _)| (r.clone(), 0))
                                    .collect(),
                            ),
                        }],
                    });
                }
                let Some(entry) = samples.get_mut(k) else {
                    break;
                };
                entry.pod.clear();
                entry.pod.push_str(&pod.name);
                entry.timestamp = now;
                entry.window = setup.timing.metrics_window;
                let burst = burst_of(p);
                for c in &mut entry.containers {
                    for ((resource, usage), (_, column)) in
                        c.usage.0.iter_mut().zip(&feeds.resources)
                    {
                        let limit = setup.pod_limit.get(resource);
                        let burst = burst.filter(|_| resource == "cpu");
                        *usage =
                            resource_usage(value(*column), ready_total, share_of, limit, burst);
                    }
                }
                k += 1;
            }
            samples.truncate(k);
        }

        for (i, column) in &feeds.pods {
            let Some(samples) = metrics.pods.get_mut(i) else {
                continue;
            };
            let mut k = 0;
            for (_, pod, share_of) in reporting(pods, names) {
                if k == samples.len() {
                    samples.push(PodMetricValue {
                        pod: String::new(),
                        value_milli: 0,
                        timestamp: now,
                        window: CUSTOM_METRIC_WINDOW,
                    });
                }
                let Some(entry) = samples.get_mut(k) else {
                    break;
                };
                entry.pod.clear();
                entry.pod.push_str(&pod.name);
                entry.timestamp = now;
                entry.value_milli = share_of.map_or(0, |i| share(value(*column), ready_total, i));
                k += 1;
            }
            samples.truncate(k);
        }

        for (i, column) in &feeds.object {
            if let Some(v) = metrics.object.get_mut(i) {
                *v = value(*column);
            }
        }
        let failed = (setup.load.steps.get(cursor)).map_or(&[][..], |s| &s.failed[..]);
        external_answers(&mut metrics.external, &feeds.external, failed, &values);
    }
}

/// Each External metric's column total, as the external metrics API answers it; none where a
/// `failed` cell says the API answers an error.
fn external_answers(
    external: &mut std::collections::BTreeMap<usize, Vec<i64>>,
    feeds: &[(usize, usize)],
    failed: &[usize],
    values: &[i64],
) {
    for (i, column) in feeds {
        if failed.contains(column) {
            external.remove(i);
            continue;
        }
        let list = external.entry(*i).or_default();
        list.clear();
        list.push(values.get(*column).copied().unwrap_or(0));
    }
}
