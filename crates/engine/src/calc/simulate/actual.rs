//! What the cluster really did (`--actual`), beside what the simulation did: the replica count
//! it had at each sync, and where the two differ. Pure: the input module hands over the curve.

use schemars::JsonSchema;
use serde::Serialize;

use super::result::Simulation;

/// The replicas the cluster had, as a step function of time.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ActualCurve {
    /// `(milliseconds from the start, replicas)`, sorted by time; times before 0 are allowed.
    pub points: Vec<(i64, i32)>,
}

impl ActualCurve {
    /// The last value at or before `t` (milliseconds); `None` before the first.
    pub fn at(&self, t: i64) -> Option<i32> {
        let i = self.points.partition_point(|&(at, _)| at <= t);
        i.checked_sub(1)
            .and_then(|i| self.points.get(i))
            .map(|&(_, v)| v)
    }
}

/// Where a replay's load came from: time 0 as a date, and the resolution of the data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Replay {
    /// The instant of time 0 (the first sample), RFC 3339.
    pub start: String,
    /// The query's step: the load changes at most this often.
    pub step_seconds: i64,
    /// Samples that were NaN or missing (the previous value held), over all load series.
    pub load_gaps: usize,
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_actual_value_at_a_time_is_the_last_one_at_or_before_it() {
        let curve = ActualCurve {
            points: vec![(-5000, 1), (0, 2), (30_000, 4)],
        };
        assert_eq!(curve.at(-6000), None);
        assert_eq!(curve.at(-5000), Some(1));
        assert_eq!(curve.at(29_999), Some(2));
        assert_eq!(curve.at(30_000), Some(4));
        assert_eq!(curve.at(1_000_000), Some(4));
        assert_eq!(ActualCurve::default().at(0), None);
    }
}
