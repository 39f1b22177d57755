//! The end of a run: its `Simulation` (`result.rs`) from the rows, events and totals the engine
//! gathered, with the settings the run used and the summary's counts.

use std::collections::BTreeMap;

use crate::calc::metrics::metric_name;
use crate::calc::nodes;
use crate::calc::normalize;
use crate::calc::reconcile::{VersionRules, tolerances_for_hpa};
use crate::quantity::build_quantity;
use crate::scenario::simulation::Setup;
use crate::scenario::{MetricSpec, Resources, Scenario, TargetType};

use super::engine::{Engine, count, milli_to_f64, secs, start_nodes};
use super::result::*;

impl Engine<'_> {
    /// The run's `Simulation`, up to `end` (ms).
    pub(super) fn finish(self, end: i64) -> Simulation {
        let setup = self.setup;
        let scenario = &setup.scenario;
        let hpa = &scenario.hpa;
        let summary = self.summary(end);
        let node_claims = self.provisioner.map(|p| p.claims).unwrap_or_default();
        let start_claims = count(
            node_claims
                .iter()
                .filter(|c| c.launched_at.is_none())
                .count(),
        );
        Simulation {
            node_claims,
            schema_version: SCHEMA_VERSION,
            hpa: format!("{}/{}", hpa.namespace, hpa.name),
            target: format!("{}/{}", hpa.target.kind, hpa.target.name),
            kube_version: format!("1.{}", scenario.config.kube_minor),
            scenario: setup.label.clone(),
            replay: setup.replay.clone(),
            metric: metric_info(scenario),
            settings: settings(setup, end, start_claims),
            load_columns: setup.load.columns.clone(),
            load_curve: setup
                .load
                .steps
                .iter()
                .filter(|step| step.at.millis() <= end)
                .map(|step| LoadPoint {
                    time: secs(step.at.millis()),
                    load: step.values.first().copied().map_or(0.0, milli_to_f64),
                })
                .collect(),
            summary,
            timeline: self.rows,
            events: self.events,
        }
    }

    /// What the timeline and the totals add up to.
    fn summary(&self, end: i64) -> Summary {
        let setup = self.setup;
        let last_change = secs(last_load_change(setup, end));
        let time_to_target = self
            .rows
            .iter()
            .zip(&self.in_band)
            .find(|(row, in_band)| row.time >= last_change && **in_band)
            .map(|(row, _)| row.time - last_change);
        let mut scale_ups = 0;
        let mut scale_downs = 0;
        for row in &self.rows {
            if row.desired_replicas > row.replicas {
                scale_ups += 1;
            } else if row.desired_replicas < row.replicas {
                scale_downs += 1;
            }
        }
        let with_nodes = setup.nodes.is_some();
        let limited = self.rows.iter().any(|r| r.unserved_load.is_some());
        let unserved = self.rows.iter().filter_map(|r| r.unserved_load);
        Summary {
            syncs: self.rows.len(),
            scale_ups,
            scale_downs,
            peak_replicas: self
                .rows
                .iter()
                .map(|r| r.desired_replicas.max(r.replicas))
                .max()
                .unwrap_or(setup.start_replicas),
            final_replicas: self.replicas,
            time_to_target_seconds: time_to_target,
            last_load_change_seconds: last_change,
            pod_seconds: secs(self.totals.pod_ms),
            ready_pod_seconds: secs(self.totals.ready_ms),
            pending_pod_seconds: secs(self.totals.pending_ms),
            max_pending_pods: self.totals.max_pending,
            node_seconds: with_nodes.then_some(secs(self.totals.node_ms)),
            peak_nodes: with_nodes.then_some(self.totals.peak_nodes),
            final_nodes: with_nodes.then_some(count(self.nodes.len())),
            node_cost: self.provisioner.as_ref().map(|_| {
                // Dollars × ms per hour, rounded to the cent's tenth.
                (self.totals.node_cost / 3_600_000.0 * 1000.0).round() / 1000.0
            }),
            peak_unserved_load: unserved.clone().max_by(f64::total_cmp),
            unserved_syncs: limited.then(|| unserved.filter(|&u| u > 0.0).count()),
            rollout_surge_syncs: self
                .rows
                .iter()
                .filter(|r| r.rollout_surge.is_some())
                .count(),
            actual: None,
        }
    }
}

/// When the load last changed, up to `end` (ms; 0 when it never does).
fn last_load_change(setup: &Setup, end: i64) -> i64 {
    let mut steps_changed = 0i64;
    for pair in setup.load.steps.windows(2) {
        if let [before, after] = pair
            && before.values != after.values
            && after.at.millis() <= end
        {
            steps_changed = after.at.millis();
        }
    }
    steps_changed
}

/// The timing and limits the run used.
fn settings(setup: &Setup, end: i64, start_claims: i64) -> Settings {
    let scenario = &setup.scenario;
    let hpa = &scenario.hpa;
    let (window_down, window_up) = match &hpa.behavior {
        None => (
            secs(scenario.config.downscale_stabilization_window.millis()),
            0,
        ),
        Some(b) => (
            i64::from(normalize::scale_down_window(
                b,
                scenario.config.downscale_stabilization_window,
            )),
            i64::from(b.scale_up.stabilization_window_seconds.unwrap_or(0)),
        ),
    };
    Settings {
        duration_seconds: secs(end),
        start_replicas: setup.start_replicas,
        min_replicas: hpa.min_replicas,
        max_replicas: hpa.max_replicas,
        sync_period_seconds: secs(setup.timing.sync_period.millis()),
        pod_startup_seconds: secs(setup.timing.pod_startup.millis()),
        pod_termination_seconds: secs(setup.timing.pod_termination.millis()),
        metrics_window_seconds: secs(setup.timing.metrics_window.millis()),
        scale_down_window_seconds: window_down,
        scale_up_window_seconds: window_up,
        pod_request: quantities(&setup.pod_request),
        nodes: node_settings(setup, start_claims),
        pod_limit: quantities(&setup.pod_limit),
        rollout: setup.rollout.map(|r| RolloutSettings {
            at_seconds: secs(r.at),
            max_surge: r.max_surge.to_string(),
            max_unavailable: r.max_unavailable.to_string(),
            min_ready_seconds: secs(r.min_ready),
        }),
        startup_cpu: setup.startup_cpu.map(|b| StartupCpuSettings {
            factor: milli_to_f64(b.factor_milli),
            seconds: secs(b.duration.millis()),
        }),
    }
}

/// The node group's settings; `None` without node information.
fn node_settings(setup: &Setup, start_claims: i64) -> Option<NodeSettings> {
    setup.nodes.as_ref().map(|g| {
        let (k, _) =
            nodes::pods_per_node(&g.input.template, &g.input.daemonsets, &setup.pod_request);
        NodeSettings {
            pods_per_node: k,
            existing_nodes: match (&g.karpenter, &g.groups) {
                (Some(_), _) => start_claims,
                (None, Some(groups)) => groups.groups.iter().map(|s| s.current_size.max(0)).sum(),
                (None, None) => count(start_nodes(&g.input, setup.start_replicas).len()),
            },
            node_group_min: g.min,
            node_group_max: g.input.node_group_max,
            max_nodes_total: g.input.max_nodes_total,
            node_startup_seconds: secs(setup.timing.node_startup.millis()),
            ca_scan_interval_seconds: secs(setup.timing.ca_scan_interval.millis()),
            scale_down_utilization_threshold: g.input.scale_down_utilization_threshold,
            scale_down_unneeded_time_seconds: secs(g.input.scale_down_unneeded_time.millis()),
            scale_down_delay_after_add_seconds: secs(
                setup.timing.scale_down_delay_after_add.millis(),
            ),
            karpenter: g.karpenter.as_ref().map(|k| KarpenterSettings {
                node_pools: k.node_pools.iter().map(|np| np.name.clone()).collect(),
                catalog: k.catalog_source.clone(),
                batch_idle_seconds: secs(super::BATCH_IDLE_MS),
                batch_max_seconds: secs(super::BATCH_MAX_MS),
                consolidation: true,
                disruption_poll_seconds: secs(super::disruption::POLLING_PERIOD_MS),
            }),
        }
    })
}

/// Each resource's quantity as Kubernetes prints it.
fn quantities(list: &Resources) -> BTreeMap<String, String> {
    list.0
        .iter()
        .map(|(n, v)| (n.clone(), build_quantity(n, *v)))
        .collect()
}

/// The first metric's description, target and the controller's tolerance, for labels and the
/// chart's band.
fn metric_info(scenario: &Scenario) -> MetricInfo {
    let tolerance = crate::calc::explain::band(&tolerances_for_hpa(
        &scenario.hpa,
        scenario.config.tolerance,
        &VersionRules::for_scenario(scenario),
    ));
    let Some(spec) = scenario.hpa.metrics.first() else {
        return MetricInfo {
            description: String::new(),
            target: String::new(),
            percent: false,
            target_value: None,
            tolerance,
        };
    };
    let target = spec.target();
    let name = match spec {
        MetricSpec::Resource { resource, .. } => resource.as_str(),
        _ => "",
    };
    let (text, percent, value) = match (
        target.target_type,
        target.average_utilization,
        target.average_value_milli,
        target.value_milli,
    ) {
        (TargetType::Utilization, Some(u), _, _) => (format!("{u}%"), true, Some(f64::from(u))),
        (_, _, Some(v), _) | (_, _, None, Some(v)) => {
            (build_quantity(name, v), false, Some(milli_to_f64(v)))
        }
        _ => (String::new(), false, None),
    };
    MetricInfo {
        description: metric_name(spec),
        target: text,
        percent,
        target_value: value,
        tolerance,
    }
}
