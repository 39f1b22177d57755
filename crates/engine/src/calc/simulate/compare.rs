//! `simulate --compare`: several configurations run on the same load, and the figures that tell
//! them apart. Each configuration is its own `Simulation` (the same engine, the same load, the
//! same cluster model); this file only reads their timelines and totals, so a figure is the same
//! whichever front end asks for it (the table, the JSON, `hpacalc diff`).

use schemars::JsonSchema;
use serde::Serialize;

use super::result::{SCHEMA_VERSION, Simulation, SyncRow};

/// The runs side by side.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    pub schema_version: u32,
    /// The first configuration is the base (`--hpa` and the flags); the others follow in the
    /// order of `--compare`.
    pub configurations: Vec<Configuration>,
    /// The first time (seconds) two configurations hold different replica counts; null when
    /// they never do.
    pub first_difference_seconds: Option<i64>,
}

/// One configuration: what it is, its figures, its whole run.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Configuration {
    /// The manifest it came from and its what-ifs, as given (`web.yaml (set-request
    /// app.cpu=250m)`).
    pub name: String,
    pub figures: Figures,
    pub simulation: Simulation,
}

/// What a configuration costs and how it behaves, from its timeline and totals.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Figures {
    /// `summary.podSeconds`: scheduled pods over time, what they cost.
    pub pod_seconds: i64,
    /// `podSeconds / 3600`, to three decimals.
    pub pod_hours: f64,
    /// `summary.nodeSeconds / 3600`; null without the node model.
    pub node_hours: Option<f64>,
    /// `summary.nodeCost`: what Karpenter's NodeClaims cost over the run, in dollars; null
    /// without `--nodepool`.
    pub node_cost: Option<f64>,
    /// Seconds with the first metric above its target: each sync whose `utilization` exceeds
    /// `metric.targetValue` counts until the next sync.
    pub seconds_above_target: i64,
    /// The demand left unserved over time: each sync's `unservedLoad` times the seconds to the
    /// next sync (core-seconds for cpu); null without a limit.
    pub unserved_load_seconds: Option<f64>,
    /// `summary.peakUnservedLoad`.
    pub peak_unserved_load: Option<f64>,
    /// Syncs that changed the count (`scaleUps + scaleDowns`).
    pub scale_events: usize,
    /// Scale events in the other direction than the one before (up after down, down after up):
    /// flapping.
    pub direction_changes: usize,
    pub peak_replicas: i32,
    /// The first sync that scaled up; null when none did.
    pub first_scale_up_seconds: Option<i64>,
    /// From the last load change at or before it to the first sync that set `peakReplicas`;
    /// null when the peak is the starting count.
    pub time_to_peak_seconds: Option<i64>,
}

/// The comparison of runs given as `(name, simulation)`, the base first.
pub fn compare(runs: Vec<(String, Simulation)>) -> Comparison {
    let first_difference_seconds = first_difference(runs.iter().map(|(_, s)| s));
    Comparison {
        schema_version: SCHEMA_VERSION,
        configurations: runs
            .into_iter()
            .map(|(name, simulation)| Configuration {
                name,
                figures: figures(&simulation),
                simulation,
            })
            .collect(),
        first_difference_seconds,
    }
}

/// One run's figures.
pub fn figures(sim: &Simulation) -> Figures {
    let rows = &sim.timeline;
    let end = sim.settings.duration_seconds;
    let above = sim.metric.target_value.map_or(0, |target| {
        held(rows, end)
            .filter(|(row, _)| row.utilization.is_some_and(|u| u > target))
            .map(|(_, seconds)| seconds)
            .sum()
    });
    let unserved = sim.summary.peak_unserved_load.map(|_| {
        held(rows, end)
            .map(|(row, seconds)| row.unserved_load.unwrap_or(0.0) * seconds_f64(seconds))
            .sum::<f64>()
    });
    let m = &sim.summary;
    Figures {
        pod_seconds: m.pod_seconds,
        pod_hours: hours(m.pod_seconds),
        node_hours: m.node_seconds.map(hours),
        node_cost: m.node_cost,
        seconds_above_target: above,
        unserved_load_seconds: unserved,
        peak_unserved_load: m.peak_unserved_load,
        scale_events: m.scale_ups + m.scale_downs,
        direction_changes: direction_changes(rows),
        peak_replicas: m.peak_replicas,
        first_scale_up_seconds: rows
            .iter()
            .find(|r| r.desired_replicas > r.replicas)
            .map(|r| r.time),
        time_to_peak_seconds: time_to_peak(sim),
    }
}

/// Each row with the seconds it holds: to the next sync, the last to the end of the run.
fn held(rows: &[SyncRow], end: i64) -> impl Iterator<Item = (&SyncRow, i64)> {
    rows.iter().enumerate().map(move |(i, row)| {
        let next = rows.get(i + 1).map_or(end, |r| r.time);
        (row, (next - row.time).max(0))
    })
}

/// Scale events whose direction differs from the previous event's.
fn direction_changes(rows: &[SyncRow]) -> usize {
    let mut last: Option<bool> = None;
    let mut changes = 0;
    for row in rows.iter().filter(|r| r.desired_replicas != r.replicas) {
        let up = row.desired_replicas > row.replicas;
        if last.is_some_and(|before| before != up) {
            changes += 1;
        }
        last = Some(up);
    }
    changes
}

/// From the load change that preceded the peak to the sync that first set it.
fn time_to_peak(sim: &Simulation) -> Option<i64> {
    let peak = sim.summary.peak_replicas;
    let row = sim
        .timeline
        .iter()
        .find(|r| r.desired_replicas == peak && r.replicas < peak)?;
    let changed = sim
        .load_curve
        .windows(2)
        .rev()
        .find_map(|pair| match pair {
            [before, after] if before.load != after.load && after.time <= row.time => {
                Some(after.time)
            }
            _ => None,
        })
        .unwrap_or(0);
    Some(row.time - changed)
}

/// The first sync time at which the runs' replica counts differ (each run's count at a time is
/// the one its last sync at or before it set).
fn first_difference<'a>(sims: impl Iterator<Item = &'a Simulation>) -> Option<i64> {
    let sims: Vec<&Simulation> = sims.collect();
    let mut times: Vec<i64> = sims
        .iter()
        .flat_map(|s| s.timeline.iter().map(|r| r.time))
        .collect();
    times.sort_unstable();
    times.dedup();
    times.into_iter().find(|&t| {
        let mut counts = sims.iter().map(|s| replicas_at(s, t));
        let Some(first) = counts.next() else {
            return false;
        };
        counts.any(|c| c != first)
    })
}

/// The count the run's last sync at or before `t` set; `None` before its first sync.
pub fn replicas_at(sim: &Simulation, t: i64) -> Option<i32> {
    let i = sim.timeline.partition_point(|r| r.time <= t);
    i.checked_sub(1)
        .and_then(|i| sim.timeline.get(i))
        .map(|r| r.desired_replicas)
}

/// Seconds as hours to three decimals, as the table prints them.
fn hours(seconds: i64) -> f64 {
    (seconds_f64(seconds) / 3.6).round() / 1000.0
}

// Seconds of one run are far below 2^53: the conversion is exact.
#[allow(clippy::cast_precision_loss)]
fn seconds_f64(seconds: i64) -> f64 {
    seconds as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::simulate::run;
    use crate::calc::testing;

    /// A run of 4 pods of 500m on a load that steps at `steps` (seconds, millicores).
    fn sim(steps: &[(i64, i64)], replicas: i32) -> Simulation {
        run(&testing::simulation(steps, replicas))
    }

    fn row(time: i64, replicas: i32, desired: i32) -> SyncRow {
        let mut r = sim(&[(0, 2000)], 4).timeline.remove(0);
        r.time = time;
        r.replicas = replicas;
        r.desired_replicas = desired;
        r
    }

    #[test]
    fn direction_changes_count_each_reversal_of_scale_events() {
        // up, up, down, up, down: 3 reversals; holds count nothing.
        let rows = [
            row(0, 4, 8),
            row(15, 8, 8),
            row(30, 8, 10),
            row(45, 10, 6),
            row(60, 6, 6),
            row(75, 6, 9),
            row(90, 9, 4),
        ];
        assert_eq!(direction_changes(&rows), 3);
        assert_eq!(direction_changes(&rows[..3]), 0);
    }

    #[test]
    fn each_sync_holds_until_the_next_and_the_last_until_the_end() {
        let rows = [row(0, 4, 4), row(15, 4, 4), row(45, 4, 4)];
        let held: Vec<i64> = held(&rows, 60).map(|(_, s)| s).collect();
        assert_eq!(held, [15, 30, 15]);
    }

    #[test]
    fn a_steady_load_at_target_has_no_time_above_it_and_no_events() {
        // 1000m over 4 pods of 500m: 50 %, the target; 15 m and 15 s of 4 pods.
        let s = sim(&[(0, 1000)], 4);
        let f = figures(&s);
        assert_eq!(f.seconds_above_target, 0);
        assert_eq!((f.scale_events, f.direction_changes), (0, 0));
        assert_eq!(f.first_scale_up_seconds, None);
        assert_eq!(f.time_to_peak_seconds, None);
        assert_eq!(f.pod_seconds, 4 * s.settings.duration_seconds);
        assert_eq!(f.unserved_load_seconds, None);
    }

    #[test]
    fn a_step_up_is_above_target_until_the_new_pods_count() {
        // 4 pods at 50 % until 60 s, then 2000m: 100 % at the 60 s sync, which asks for 8.
        let s = sim(&[(0, 1000), (60, 2000)], 4);
        let f = figures(&s);
        assert_eq!(f.first_scale_up_seconds, Some(60));
        assert_eq!(f.peak_replicas, 8);
        assert_eq!(f.time_to_peak_seconds, Some(0));
        // Only the 60 s sync reads above 50 %: from 75 s the 8 pods share 2000m at 50 %.
        let above: Vec<i64> = (s.timeline.iter())
            .filter(|r| r.utilization.is_some_and(|u| u > 50.0))
            .map(|r| r.time)
            .collect();
        assert_eq!(above, [60]);
        assert_eq!(f.seconds_above_target, 15);
        // 4 pods for the whole run, 4 more from 60 s.
        let d = s.settings.duration_seconds;
        assert_eq!(f.pod_seconds, 4 * d + 4 * (d - 60));
        assert_eq!(f.pod_hours, hours(4 * d + 4 * (d - 60)));
    }

    #[test]
    fn hours_keep_three_decimals() {
        assert_eq!(hours(9600), 2.667);
        assert_eq!(hours(3600), 1.0);
        assert_eq!(hours(0), 0.0);
    }

    #[test]
    fn runs_first_differ_where_their_counts_do() {
        let a = sim(&[(0, 1000), (60, 2000)], 4);
        let b = sim(&[(0, 1000), (60, 2000)], 4);
        let c = sim(&[(0, 1000), (90, 2000)], 4);
        let cmp = compare(vec![("a".into(), a.clone()), ("b".into(), b)]);
        assert_eq!(cmp.first_difference_seconds, None);
        let cmp = compare(vec![("a".into(), a), ("c".into(), c)]);
        assert_eq!(cmp.first_difference_seconds, Some(60));
        assert_eq!(cmp.configurations.len(), 2);
        assert_eq!(
            cmp.configurations[1].figures.first_scale_up_seconds,
            Some(90)
        );
    }
}
