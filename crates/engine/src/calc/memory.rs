//! The controller's memory from one sync to the next (`recommendations`, `scaleUpEvents`,
//! `scaleDownEvents` of `HorizontalController`): what a watch or a long-running service keeps
//! between evaluations, as the controller keeps it between syncs.

use crate::calc;
use crate::calc::reconcile::reconcile;
use crate::scenario::{ControllerMemory, Recommendation, Scenario};
use crate::time::Duration;

/// The controller's memory after this sync: the memory it started with (or, at the first sync,
/// the steady load hpacalc assumes: this sync's proposal at every sync of the window) and what
/// this sync records.
pub fn remember(scenario: &Scenario) -> ControllerMemory {
    let mut memory = match &scenario.memory {
        Some(m) => m.clone(),
        None => steady_memory(scenario),
    };
    reconcile(scenario, &mut memory, false);
    memory
}

/// What "steady load" means as a memory: one recommendation of this sync's proposal per sync
/// period over the longest stabilization window, no scale events.
pub fn steady_memory(scenario: &Scenario) -> ControllerMemory {
    let mut scratch = ControllerMemory::default();
    let proposal = reconcile(scenario, &mut scratch, true)
        .metric_proposal
        .unwrap_or(scenario.current_replicas);
    let window_ms = longest_window(scenario).millis();
    let step = scenario.config.sync_period.millis().max(1000);
    let mut memory = ControllerMemory::default();
    let mut at = -window_ms;
    while at < 0 {
        memory.recommendations.push(Recommendation {
            replicas: proposal,
            timestamp: scenario.now.add(Duration(at)),
        });
        at += step;
    }
    memory
}

/// The longest stabilization window the controller reads for this HPA: how far back a
/// recommendation can still matter.
pub fn longest_window(scenario: &Scenario) -> Duration {
    let config = &scenario.config;
    match &scenario.hpa.behavior {
        None => config.downscale_stabilization_window,
        Some(b) => {
            let down = calc::normalize::scale_down_window(b, config.downscale_stabilization_window);
            let up = b.scale_up.stabilization_window_seconds.unwrap_or(0);
            Duration(i64::from(down.max(up)).saturating_mul(1000))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::testing::{cpu_utilization, scenario};

    #[test]
    fn the_first_memory_is_the_steady_load_over_the_window() {
        // 4 pods at 800m of 1000m against 50%: ratio 1.6, proposal 7; window 300s, sync 15s.
        let s = scenario(vec![cpu_utilization(50)], 4, 800);
        let memory = steady_memory(&s);
        assert_eq!(memory.recommendations.len(), 20);
        assert!(memory.recommendations.iter().all(|r| r.replicas == 7));
        assert_eq!(
            memory.recommendations.first().map(|r| r.timestamp),
            Some(s.now.add(Duration(-300_000)))
        );
        assert!(memory.scale_up_events.is_empty() && memory.scale_down_events.is_empty());
    }

    #[test]
    fn each_evaluation_records_its_recommendation_in_the_memory() {
        let s = scenario(vec![cpu_utilization(50)], 4, 800);
        let first = remember(&s);
        assert_eq!(first.recommendations.len(), 21, "the window plus this sync");
        assert_eq!(
            first
                .recommendations
                .last()
                .map(|r| (r.replicas, r.timestamp)),
            Some((7, s.now))
        );
        // storeScaleEvent keeps no events without behavior (the legacy path does not read them).
        assert!(first.scale_up_events.is_empty());
        let mut next = s.clone();
        next.now = s.now.add(Duration(15_000));
        next.memory = Some(first.clone());
        let second = remember(&next);
        // The recommendation that left the window is replaced by this one (stabilizeRecommendation).
        assert_eq!(second.recommendations.len(), first.recommendations.len());
        assert!(
            second
                .recommendations
                .iter()
                .any(|r| r.timestamp == next.now)
        );
        assert!(
            second
                .recommendations
                .iter()
                .all(|r| r.timestamp >= next.now.add(Duration(-300_000)))
        );
    }
}
