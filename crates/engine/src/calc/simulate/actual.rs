//! What the cluster really did (`--actual`), beside what the simulation did: the replica count
//! it had at each sync, and where the two differ. Pure: the input module hands over the curve.

use schemars::JsonSchema;
use serde::Serialize;

use super::result::Simulation;
use crate::scenario::simulation::ActualCurve;

/// How the simulation's replica counts compare with the cluster's.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActualComparison {
    /// Syncs with an actual value (the curve had started).
    pub syncs_compared: usize,
    /// Syncs where the simulation's desiredReplicas is not the actual replica count.
    pub syncs_different: usize,
    /// Of those, the syncs where the simulation had more replicas.
    pub syncs_simulation_higher: usize,
    pub syncs_simulation_lower: usize,
    /// The first sync that differs; null when none does.
    pub first_difference_seconds: Option<i64>,
    /// The sync where |simulated - actual| is largest (the first such); null when none differs.
    pub largest_difference_seconds: Option<i64>,
    /// Simulated minus actual at that sync (0 when none differs).
    pub largest_difference: i64,
    /// The mean of |simulated - actual| over the compared syncs (0 when none is compared).
    pub mean_absolute_difference: f64,
}

/// Fills each sync's `actualReplicas` and the summary's comparison.
pub fn compare(sim: &mut Simulation, curve: &ActualCurve) {
    let mut c = ActualComparison {
        syncs_compared: 0,
        syncs_different: 0,
        syncs_simulation_higher: 0,
        syncs_simulation_lower: 0,
        first_difference_seconds: None,
        largest_difference_seconds: None,
        largest_difference: 0,
        mean_absolute_difference: 0.0,
    };
    let mut total: i64 = 0;
    for row in &mut sim.timeline {
        row.actual_replicas = curve.at(row.time.saturating_mul(1000));
        let Some(actual) = row.actual_replicas else {
            continue;
        };
        c.syncs_compared += 1;
        let diff = i64::from(row.desired_replicas) - i64::from(actual);
        if diff == 0 {
            continue;
        }
        c.syncs_different += 1;
        if diff > 0 {
            c.syncs_simulation_higher += 1;
        } else {
            c.syncs_simulation_lower += 1;
        }
        c.first_difference_seconds.get_or_insert(row.time);
        if diff.abs() > c.largest_difference.abs() {
            c.largest_difference = diff;
            c.largest_difference_seconds = Some(row.time);
        }
        total += diff.abs();
    }
    if c.syncs_compared > 0 {
        #[allow(clippy::cast_precision_loss)]
        let mean = total as f64 / c.syncs_compared as f64;
        // Two decimals: the mean is for reading, not for further arithmetic.
        c.mean_absolute_difference = (mean * 100.0).round() / 100.0;
    }
    sim.summary.actual = Some(c);
}
