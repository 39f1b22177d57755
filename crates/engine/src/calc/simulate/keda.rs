//! KEDA's scale loop beside the HPA's syncs: every `pollingInterval` from 0, KEDA reads each
//! trigger's load column, runs the same poll as one sync (`calc::keda::decide`: activation from
//! zero, cooldown, idle replicas) and sets the target when it decides to; the HPA's sync at the
//! same instant runs after it. Mirrors `startScaleLoop` (pkg/scaling/scale_handler.go).

use super::engine::{Engine, PodState, Poll, START, milli_to_f64};
use crate::calc::keda::decide;
use crate::scenario::keda::{KedaInput, TriggerValue};
use crate::time::Duration;

impl Poll {
    pub fn new(input: KedaInput) -> Poll {
        let every = input.polling_interval.millis().max(1000);
        Poll { input, every }
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
            if let Some(v) = column.and_then(|i| values.get(i)) {
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
