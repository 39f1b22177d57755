//! KEDA's scale loop beside the HPA's syncs: every `pollingInterval` from 0, KEDA reads each
//! trigger's load column, runs the same poll as one sync (`calc::keda::decide`: activation from
//! zero, cooldown, idle replicas) and sets the target when it decides to; the HPA's sync at the
//! same instant runs after it. Mirrors `startScaleLoop` (pkg/scaling/scale_handler.go).
//!
//! A trigger's `failed` cell is its scaler's error: KEDA counts it in `status.health` (starting
//! from the count the ScaledObject's status gives), and the HPA's next syncs read what KEDA's
//! metrics server serves for it, the fallback's value or an error, until the scaler answers.
//! While paused by annotation KEDA has deleted the HPA: nothing but the pause sets the count.

use super::engine::{Engine, PodState, Poll, START, milli_to_f64};
use crate::calc::keda::decide;
use crate::scenario::keda::{KedaInput, TriggerValue};
use crate::time::Duration;

impl Poll {
    pub fn new(input: KedaInput) -> Poll {
        let every = input.polling_interval.millis().max(1000);
        Poll {
            paused: input.paused.is_some(),
            input,
            every,
            serving: std::collections::BTreeMap::new(),
        }
    }

    /// KEDA's memory after a poll: each trigger's consecutive failures, and what its metrics
    /// server serves for the failed ones.
    // Port of GetMetricsWithFallback (pkg/fallback/fallback.go): with a valid fallback, an error
    // increments status.health's numberOfFailures (IncrementFailure) and an answer sets it to 0
    // (UpdateHealthStatus); without one KEDA keeps no count.
    fn remember(&mut self, outcome: &crate::calc::keda::KedaOutcome) {
        let counted =
            (self.input.fallback).is_some_and(|f| f.failure_threshold >= 0 && f.replicas >= 0);
        self.serving.clear();
        self.paused = outcome.paused;
        // Paused, KEDA's scale loop is stopped (handlePause): it queries no scaler.
        if outcome.paused {
            return;
        }
        for t in &mut self.input.triggers {
            let Some(metric) = &t.metric_name else {
                continue;
            };
            match t.value {
                TriggerValue::Failed => {
                    if counted {
                        t.failures = t.failures.saturating_add(1);
                    }
                    let served = (outcome.external.get(metric)).and_then(|v| v.first().copied());
                    self.serving.insert(metric.clone(), served);
                }
                TriggerValue::Value(_) => t.failures = 0,
                TriggerValue::Resource | TriggerValue::Unknown => {}
            }
        }
    }

    pub fn due(&self, t: i64) -> bool {
        t % self.every == 0
    }

    pub fn next_after(&self, t: i64) -> i64 {
        (t.div_euclid(self.every) + 1) * self.every
    }
}

impl Engine<'_> {
    pub(super) fn keda_poll(&mut self, t: i64) {
        let Some(mut poll) = self.keda.take() else {
            return;
        };
        let values = self.load_at(t).to_vec();
        let failed = (self.setup.load.steps.get(self.load_cursor))
            .map_or(&[][..], |s| &s.failed[..])
            .to_vec();
        for trigger in &mut poll.input.triggers {
            let Some(metric) = &trigger.metric_name else {
                continue;
            };
            let column = self
                .setup
                .load
                .columns
                .iter()
                .position(|c| &c.name == metric);
            if column.is_some_and(|i| failed.contains(&i)) {
                trigger.value = TriggerValue::Failed;
            } else if let Some(v) = column.and_then(|i| values.get(i)) {
                trigger.value = TriggerValue::Value(milli_to_f64(*v));
            }
        }
        let ready = self
            .pods
            .iter()
            .filter(|p| matches!(p.state, PodState::Ready { .. }))
            .count();
        let now = START.add(Duration(t));
        let outcome = decide(
            &poll.input,
            self.replicas,
            i32::try_from(ready).unwrap_or(i32::MAX),
            now,
        );
        if outcome.last_active_now {
            poll.input.last_active = Some(now);
        }
        poll.remember(&outcome);
        self.keda = Some(poll);
        if let Some(n) = outcome.scale_to
            && n != self.replicas
        {
            self.event(
                t,
                "keda",
                format!("scales {} → {n} ({})", self.replicas, outcome.summary),
            );
            self.replicas = n;
            self.replicaset(t);
        }
    }
}

impl Engine<'_> {
    /// The HPA's External metrics as KEDA's metrics server serves them: a trigger that failed at
    /// KEDA's last poll serves its fallback's value, or an error.
    pub(super) fn keda_serves(&mut self) {
        let Some(poll) = &self.keda else {
            return;
        };
        for (i, spec) in self.scenario.hpa.metrics.iter().enumerate() {
            let crate::scenario::MetricSpec::External { metric, .. } = spec else {
                continue;
            };
            match poll.serving.get(&metric.name) {
                None => {}
                Some(Some(v)) => {
                    self.scenario.metrics.external.insert(i, vec![*v]);
                }
                Some(None) => {
                    self.scenario.metrics.external.remove(&i);
                }
            }
        }
    }

    /// KEDA is paused by annotation: it deleted the HPA.
    pub(super) fn keda_paused(&self) -> bool {
        self.keda.as_ref().is_some_and(|k| k.paused)
    }
}
