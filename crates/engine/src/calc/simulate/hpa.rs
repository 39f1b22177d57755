//! The HorizontalPodAutoscaler controller at each sync (§8.2 step 3): the cluster as the
//! controller would see it goes into `calc::reconcile::reconcile`, the one port of
//! `pkg/controller/podautoscaler/horizontal.go`, with the run's one `ControllerMemory`; the
//! decision sets the target's `spec.replicas`, and a row of the timeline records the sync.

use crate::calc::metrics::Computed;
use crate::calc::normalize;
use crate::calc::reconcile::{Branch, Sync, reconcile};
use crate::scenario::{ControllerMemory, Recommendation};
use crate::time::Duration;

use super::engine::{Engine, NodeState, PodState, START, count, milli_to_f64, secs};
use super::metrics::served;
use super::result::SyncRow;

/// What the controller decided at one sync, owned (the `Sync` borrows the scenario).
struct Decision {
    desired: i32,
    recommendation: Option<i32>,
    stabilized: Option<i32>,
    reason: Option<String>,
    utilization: Option<f64>,
    in_band: bool,
}

impl Engine<'_> {
    /// The controller's memory as if the first row's load had held for the whole window: a
    /// recommendation every sync period, each what the first sync recommends; no scale events.
    pub(super) fn seed_memory(&mut self) {
        self.refresh_metrics(0);
        self.scenario.now = START;
        self.scenario.current_replicas = self.replicas;
        self.scenario.status_replicas = self.replicas;
        let mut scratch = ControllerMemory::default();
        let proposal = reconcile(&self.scenario, &mut scratch, true)
            .metric_proposal
            .unwrap_or(self.replicas);
        let config = &self.scenario.config;
        let window_ms = match &self.scenario.hpa.behavior {
            None => config.downscale_stabilization_window.millis(),
            Some(b) => {
                let down = normalize::scale_down_window(b, config.downscale_stabilization_window);
                let up = b.scale_up.stabilization_window_seconds.unwrap_or(0);
                i64::from(down.max(up)).saturating_mul(1000)
            }
        };
        let step = self.setup.timing.sync_period.millis().max(1000);
        let mut at = -window_ms;
        while at < 0 {
            self.memory.recommendations.push(Recommendation {
                replicas: proposal,
                timestamp: START.add(Duration(at)),
            });
            at += step;
        }
        if self.memory.recommendations.is_empty() {
            self.memory.recommendations.push(Recommendation {
                replicas: proposal,
                timestamp: START.sub(Duration(window_ms)),
            });
        }
    }

    pub(super) fn sync(&mut self, t: i64) {
        self.scenario.now = START.add(Duration(t));
        self.scenario.current_replicas = self.replicas;
        let active = self.pods.iter().filter(|p| p.active()).count();
        self.scenario.status_replicas = i32::try_from(active).unwrap_or(i32::MAX);
        self.refresh_metrics(t);
        self.keda_serves();
        let (mut ready, mut starting, mut pending) = (0, 0, 0);
        for p in &self.pods {
            match p.state {
                PodState::Pending => pending += 1,
                PodState::Starting { .. } => starting += 1,
                PodState::Ready { .. } => ready += 1,
                PodState::Terminating { .. } => {}
            }
        }
        let memory_before = self.observer.is_some().then(|| self.memory.clone());
        let (decision, surge) = {
            let sync = reconcile(&self.scenario, &mut self.memory, false);
            let surge = self.surge(&sync, [ready, starting, pending]);
            let mut decision = decide(&sync);
            // Port of handlePause (reconcileScaledObject, scaledobject_controller.go): a paused
            // ScaledObject's HPA is deleted, and only the pause sets the count.
            if self.keda_paused() {
                decision.desired = self.replicas;
                decision.reason = Some("KedaPaused".to_string());
            }
            (decision, surge)
        };
        let (nodes, booting) = match self.setup.nodes {
            None => (None, None),
            Some(_) => {
                let booting = self
                    .nodes
                    .iter()
                    .filter(|n| matches!(n.state, NodeState::Booting { .. }))
                    .count();
                (
                    Some(count(self.nodes.len() - booting)),
                    Some(count(booting)),
                )
            }
        };
        let values = self.load_at(t).to_vec();
        let columns = &self.setup.load.columns;
        let unserved = columns
            .first()
            .and_then(|c| c.resource.as_deref())
            .and_then(|r| self.setup.pod_limit.get(r))
            .map(|limit| {
                let total = values.first().copied().unwrap_or(0);
                total - served(total, ready, Some(limit))
            });
        let loads = columns
            .iter()
            .zip(&values)
            .map(|(c, &v)| (c.name.clone(), milli_to_f64(v)))
            .collect();
        self.rows.push(SyncRow {
            time: secs(t),
            load: values.first().copied().map_or(0.0, milli_to_f64),
            loads,
            ready_replicas: ready,
            starting_pods: starting,
            pending_pods: pending,
            replicas: self.replicas,
            utilization: decision.utilization,
            recommendation: decision.recommendation,
            stabilized: decision.stabilized,
            desired_replicas: decision.desired,
            reason: decision.reason.clone(),
            nodes,
            nodes_booting: booting,
            actual_replicas: None,
            unserved_load: unserved.map(milli_to_f64),
            rollout_surge: surge,
        });
        if let (Some(observer), Some(memory), Some(row)) =
            (self.observer.as_mut(), memory_before, self.rows.last())
        {
            let scenario = &self.scenario;
            // The HPA's sync alone: KEDA's poll is its own step of the simulation.
            let build = || {
                let mut s = scenario.clone();
                s.memory = Some(memory.clone());
                s.keda = None;
                crate::calc::evaluate(&s)
            };
            observer(row, &build);
        }
        self.in_band.push(decision.in_band);
        if decision.desired != self.replicas {
            let why = decision
                .reason
                .map(|r| format!(" ({r})"))
                .unwrap_or_default();
            self.event(
                t,
                "hpa",
                format!("scales {} → {}{why}", self.replicas, decision.desired),
            );
        }
        self.replicas = decision.desired;
        self.replicaset(t);
    }
}

impl Engine<'_> {
    /// What a sync's `rolloutSurge` says: the `RolloutSurge` diagnosis when the proposal
    /// multiplied a ratio by more ready pods than replicas; else, during a rollout with more pods
    /// than replicas (surge pods Ready or not), how many and in which state. `pods` are the
    /// Ready, starting and Pending pods.
    fn surge(&self, sync: &Sync<'_>, pods: [i64; 3]) -> Option<String> {
        let [ready, starting, pending] = pods;
        let replicas = i64::from(self.replicas);
        // More Ready pods than replicas: the one situation the diagnosis names.
        let multiplied = (ready > replicas)
            .then(|| crate::calc::rollout_surge(&self.scenario, sync))
            .flatten();
        let total = ready + starting + pending;
        if multiplied.is_some() || self.sets.is_none() || total <= replicas {
            return multiplied;
        }
        let states: Vec<String> = [
            (ready, "Ready"),
            (starting, "starting"),
            (pending, "Pending"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, state)| format!("{n} {state}"))
        .collect();
        Some(format!(
            "{total} pods for the target's {replicas} replicas during the rollout ({} surge \
             pod(s)): {}; the controller lists them all, and this sync's proposal does not \
             multiply a ratio by more ready pods than replicas",
            total - replicas,
            states.join(", ")
        ))
    }
}

/// The owned facts of one sync.
fn decide(sync: &Sync<'_>) -> Decision {
    let (utilization, ratio) = match sync.outcomes.first().map(|o| &o.result) {
        Some(Ok(Computed::PodBased(r))) => (
            Some(
                r.utilization
                    .map_or_else(|| milli_to_f64(r.raw_average), f64::from),
            ),
            Some(r.usage_ratio),
        ),
        Some(Ok(Computed::Value(v))) => (Some(milli_to_f64(v.usage)), Some(v.usage_ratio)),
        _ => (None, None),
    };
    let stabilized = sync.normalization.as_ref().map(|n| n.stabilized);
    let reason = match sync.branch {
        Branch::ScalingDisabled | Branch::MetricsFailed => sync
            .conditions
            .get("ScalingActive")
            .map(|c| c.reason.clone()),
        Branch::FailedGetScale => sync.conditions.get("AbleToScale").map(|c| c.reason.clone()),
        Branch::AboveMax => Some("TooManyReplicas".to_string()),
        Branch::BelowMin => Some("TooFewReplicas".to_string()),
        Branch::Metrics => match (&sync.normalization, sync.metric_proposal) {
            (Some(n), _) if n.limited.replicas != n.stabilized => {
                Some(n.limited.reason.to_string())
            }
            (Some(n), Some(p)) if n.stabilized > p => Some("ScaleDownStabilized".to_string()),
            (Some(n), Some(p)) if n.stabilized < p => Some("ScaleUpStabilized".to_string()),
            _ => None,
        },
    };
    Decision {
        desired: sync.desired_replicas,
        recommendation: sync.metric_proposal,
        stabilized,
        reason,
        utilization,
        in_band: ratio.is_some_and(|r| sync.tolerances.is_within(r)),
    }
}
