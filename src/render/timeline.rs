//! A simulation as text: a table with one row per sync, the events and a summary (`-o table`),
//! the result as JSON (`-o json`), or one CSV row per sync (`-o csv`). Pure: `&Simulation ->
//! String`.

use std::fmt::Write;

use anstyle::Style;
use comfy_table::{ColumnConstraint, Width};

use crate::calc::simulate::{ActualComparison, Simulation, SyncRow, clock};
use crate::quantity::build_quantity;
use crate::render::table::{heading, new_table, paint, push_table};
use crate::time::{Duration, Timestamp};

/// Layout settings that come from the terminal.
pub type Layout = crate::render::Terminal;

/// Words of `text` in lines of at most `width` characters, each starting with `indent`.
pub(crate) fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty()
            && indent.len() + line.chars().count() + 1 + word.chars().count() > width
        {
            let _ = writeln!(out, "{indent}{line}");
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        let _ = writeln!(out, "{indent}{line}");
    }
    out
}

/// The one unit the LOAD column is written in, chosen from every row so the column never mixes
/// `2160m` and `6`: whole units when every load is whole, else milli-units; memory in the largest
/// of Gi, Mi, Ki that divides every load, else bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LoadUnit {
    Whole,
    Milli,
    Binary(i64, &'static str),
}

fn load_milli(value: f64) -> i64 {
    // Loads are whole milli-units, so the product is exact.
    #[allow(clippy::cast_possible_truncation)]
    let milli = (value * 1000.0).round() as i64;
    milli
}

fn load_resource(sim: &Simulation) -> &str {
    sim.load_columns
        .first()
        .and_then(|c| c.resource.as_deref())
        .unwrap_or("")
}

pub(crate) fn load_unit(sim: &Simulation) -> LoadUnit {
    let mut milli = sim.timeline.iter().map(|r| load_milli(r.load));
    if load_resource(sim) == "memory" {
        let bytes: Vec<i64> = milli.map(|m| m / 1000 + i64::from(m % 1000 > 0)).collect();
        for (size, suffix) in [(1 << 30, "Gi"), (1 << 20, "Mi"), (1 << 10, "Ki")] {
            if bytes.iter().all(|b| b % size == 0) {
                return LoadUnit::Binary(size, suffix);
            }
        }
        return LoadUnit::Binary(1, "");
    }
    if milli.all(|m| m % 1000 == 0) {
        LoadUnit::Whole
    } else {
        LoadUnit::Milli
    }
}

/// A load value in the column's unit (Kubernetes notation: `6`, `2160m`, `512Mi`).
pub(crate) fn load_text(unit: LoadUnit, load: f64) -> String {
    let milli = load_milli(load);
    match unit {
        LoadUnit::Whole => (milli / 1000).to_string(),
        LoadUnit::Milli if milli == 0 => "0".to_string(),
        LoadUnit::Milli => format!("{milli}m"),
        LoadUnit::Binary(size, suffix) => {
            let bytes = milli / 1000 + i64::from(milli % 1000 > 0);
            format!("{}{suffix}", bytes / size)
        }
    }
}

fn milli_text(resource: &str, value: f64) -> String {
    // Loads are whole milli-units, so the product is exact.
    #[allow(clippy::cast_possible_truncation)]
    let milli = (value * 1000.0).round() as i64;
    build_quantity(resource, milli)
}

pub(crate) fn utilization_text(sim: &Simulation, value: Option<f64>) -> String {
    match value {
        None => "-".to_string(),
        Some(v) if sim.metric.percent => format!("{v}%"),
        Some(v) => milli_text("", v),
    }
}

fn opt(value: Option<i32>) -> String {
    value.map_or_else(|| "-".to_string(), |v| v.to_string())
}

/// Which syncs the table shows, and what heads it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rows {
    /// Every sync (`--every-sync`), not only those where something changes.
    pub every_sync: bool,
    /// A sparkline of desired replicas above the table (stdout is a terminal).
    pub sparkline: bool,
}

/// The table of the syncs where something changes, without a sparkline.
pub fn table(sim: &Simulation, layout: Layout) -> String {
    table_with(sim, layout, Rows::default())
}

/// The table: a heading, the syncs (`rows`), the events, the summary.
pub fn table_with(sim: &Simulation, layout: Layout, rows_shown: Rows) -> String {
    let bold = Style::new().bold();
    let width = usize::from(layout.width);
    let mut out = wrap(&headline(sim), width, "");
    out.push('\n');
    let s = &sim.settings;
    let parts = [
        format!("HPA {} → {}", sim.hpa, sim.target),
        format!("Kubernetes {} rules", sim.kube_version),
        format!("{} target {}", sim.metric.description, sim.metric.target),
    ];
    out.push_str(&heading(&parts, bold, layout.color, layout.width));
    let mut timing = format!(
        "{} simulated: sync every {}s, pods Ready {}s after scheduling",
        clock(s.duration_seconds),
        s.sync_period_seconds,
        s.pod_startup_seconds
    );
    if s.pod_termination_seconds > 0 {
        let _ = write!(timing, ", {}s to terminate", s.pod_termination_seconds);
    }
    if let Some(n) = &s.nodes {
        timing.push_str(&node_timing(n));
    }
    out.push_str(&wrap(&timing, width, ""));
    let mut model = Vec::new();
    if !s.pod_limit.is_empty() {
        let limits: Vec<String> = s
            .pod_limit
            .iter()
            .map(|(n, q)| format!("{n}={q}"))
            .collect();
        model.push(format!("pod limit {}", limits.join(",")));
    }
    if let Some(r) = &s.rollout {
        model.push(format!(
            "rollout at {} (maxSurge {}, maxUnavailable {}, minReadySeconds {})",
            clock(r.at_seconds),
            r.max_surge,
            r.max_unavailable,
            r.min_ready_seconds
        ));
    }
    if let Some(b) = &s.startup_cpu {
        model.push(format!(
            "new pods use {}x their CPU share for {}s after they start",
            b.factor, b.seconds
        ));
    }
    if !model.is_empty() {
        out.push_str(&wrap(&format!("Model: {}", model.join("; ")), width, ""));
    }
    if let Some(r) = &sim.replay {
        let mut line = format!(
            "Replay of Prometheus data from {} (times are UTC), one point every {}s",
            r.start, r.step_seconds
        );
        if r.load_gaps > 0 {
            let _ = write!(
                line,
                "; {} NaN or missing load sample(s) held the previous value",
                r.load_gaps
            );
        }
        out.push_str(&wrap(&line, width, ""));
    }
    if let Some(label) = &sim.scenario {
        out.push('\n');
        let _ = writeln!(
            out,
            "{}",
            paint(&format!("Scenario {}", label.name), bold, layout.color)
        );
        out.push_str(&wrap(&label.notice, width, "  "));
    }
    out.push('\n');

    push_syncs(&mut out, sim, layout, rows_shown);

    if !sim.events.is_empty() {
        out.push('\n');
        let _ = writeln!(out, "{}", paint("Events", bold, layout.color));
        let mut events = new_table(&["TIME", "BY", "EVENT"], layout.width);
        for e in &sim.events {
            events.add_row(vec![
                at(sim, e.time),
                e.source.to_string(),
                e.message.clone(),
            ]);
        }
        if let Some(column) = events.column_mut(2) {
            column.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(20)));
        }
        push_table(&mut out, &events);
    }

    out.push('\n');
    let _ = writeln!(out, "{}", paint("Summary", bold, layout.color));
    for line in summary_lines(sim) {
        out.push_str(&wrap(&line, width, "  "));
    }
    out
}

/// The answer first, as a single sync's decision line: where the run went and what it met on the
/// way (`api: 6 → 17 over 6:00 — peak 17; target 60% reached 239s after the last load change at
/// 0:01; at most 5 Pending; nodes 2 → 3`).
fn headline(sim: &Simulation) -> String {
    let m = &sim.summary;
    let name = sim.hpa.rsplit('/').next().unwrap_or(&sim.hpa);
    let mut parts = vec![format!("peak {}", m.peak_replicas)];
    parts.push(match m.time_to_target_seconds {
        Some(t) if m.last_load_change_seconds == 0 => {
            format!("target {} reached {t}s after the start", sim.metric.target)
        }
        Some(t) => format!(
            "target {} reached {t}s after the last load change at {}",
            sim.metric.target,
            at(sim, m.last_load_change_seconds)
        ),
        None => format!("target {} not reached", sim.metric.target),
    });
    if m.max_pending_pods > 0 {
        parts.push(format!("at most {} Pending", m.max_pending_pods));
    }
    if let (Some(first), Some(last)) = (sim.timeline.first().and_then(|r| r.nodes), m.final_nodes) {
        parts.push(format!("nodes {first} → {last}"));
    }
    format!(
        "{name}: {} → {} over {} — {}",
        sim.settings.start_replicas,
        m.final_replicas,
        clock(sim.settings.duration_seconds),
        parts.join("; ")
    )
}

/// The syncs `rows_shown` asks for, under the sparkline and the line that says how many.
fn push_syncs(out: &mut String, sim: &Simulation, layout: Layout, rows_shown: Rows) {
    let width = usize::from(layout.width);
    if rows_shown.sparkline {
        out.push_str(&sparkline_line(sim, width));
    }
    let unit = load_unit(sim);
    let all: Vec<Vec<String>> = sim.timeline.iter().map(|r| cells(sim, unit, r)).collect();
    let shown = changed_rows(all, rows_shown.every_sync);
    if shown.gaps > 0 {
        out.push_str(&wrap(
            &shown_note(shown.syncs, sim.timeline.len()),
            width,
            "",
        ));
    }
    let mut rows = new_table(&header(sim), layout.width);
    for row in shown.rows {
        rows.add_row(row);
    }
    push_table(out, &rows);
}

/// The rows a table prints, and how many syncs and gaps they stand for.
pub(crate) struct Shown {
    pub rows: Vec<Vec<String>>,
    /// Syncs printed.
    pub syncs: usize,
    /// Runs of syncs left out, each printed as one `…` row.
    pub gaps: usize,
}

/// The syncs to print: the first, the last, and each whose cells after the first (its time)
/// differ from the sync before it; each run of left-out syncs is one `…` row. `every` keeps all.
pub(crate) fn changed_rows(rows: Vec<Vec<String>>, every: bool) -> Shown {
    let count = rows.len();
    let mut shown = Shown {
        rows: Vec::with_capacity(if every { count } else { 16 }),
        syncs: 0,
        gaps: 0,
    };
    let mut previous: Option<Vec<String>> = None;
    let mut skipped = false;
    for (i, row) in rows.into_iter().enumerate() {
        let changed = previous.as_ref().is_none_or(|p| p.get(1..) != row.get(1..));
        if every || changed || i + 1 == count {
            if skipped {
                shown.rows.push(vec!["…".to_string()]);
                shown.gaps += 1;
                skipped = false;
            }
            shown.rows.push(row.clone());
            shown.syncs += 1;
        } else {
            skipped = true;
        }
        previous = Some(row);
    }
    shown
}

/// The line above a table that leaves syncs out: how many it prints, and how to see them all.
pub(crate) fn shown_note(syncs: usize, total: usize) -> String {
    format!(
        "{syncs} of {total} syncs shown: the first, the last and each that changes a column; … \
         stands for syncs like the one above it (--every-sync shows all)"
    )
}

/// Eight heights of a sparkline, lowest first.
const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// `desired replicas 2 ▁▁▂▅██▇▅▃▂▁ 10`: the run in at most the line's width, each character the
/// highest desired count of the syncs it stands for, scaled between the run's lowest and highest.
pub(crate) fn sparkline_line(sim: &Simulation, width: usize) -> String {
    let desired: Vec<i32> = sim.timeline.iter().map(|r| r.desired_replicas).collect();
    let (Some(&low), Some(&high)) = (desired.iter().min(), desired.iter().max()) else {
        return String::new();
    };
    let label = format!("desired replicas {low} ");
    let tail = format!(" {high}");
    let room = width
        .saturating_sub(label.chars().count() + tail.chars().count())
        .max(10);
    let per_char = desired.len().div_ceil(room).max(1);
    let span = i64::from(high) - i64::from(low);
    let line: String = desired
        .chunks(per_char)
        .map(|chunk| {
            let top = i64::from(chunk.iter().copied().max().unwrap_or(low)) - i64::from(low);
            let level = if span == 0 { 0 } else { top * 7 / span };
            BARS.get(usize::try_from(level).unwrap_or(0))
                .copied()
                .unwrap_or('█')
        })
        .collect();
    format!("{label}{line}{tail}\n")
}

/// The columns of the table, one per `cells`.
pub(crate) fn header(sim: &Simulation) -> Vec<&'static str> {
    let mut header = vec![
        "TIME", "LOAD", "UTIL", "READY", "PODS", "PENDING", "REC", "STABLE", "DESIRED", "REASON",
    ];
    if sim.settings.nodes.is_some() {
        header.push("NODES");
    }
    if sim.summary.actual.is_some() {
        header.push("ACTUAL");
    }
    if with_unserved(sim) {
        header.push("UNSERVED");
    }
    header
}

/// Whether the run had a `--pod-limit` for its load's resource (the UNSERVED column); the
/// summary says it once, so a row needs no scan of the others.
fn with_unserved(sim: &Simulation) -> bool {
    sim.summary.peak_unserved_load.is_some()
}

/// One sync's cells, in the order of `header`.
pub(crate) fn cells(sim: &Simulation, unit: LoadUnit, row: &SyncRow) -> Vec<String> {
    let with_nodes = sim.settings.nodes.is_some();
    let total = row.ready_replicas + row.starting_pods + row.pending_pods;
    let desired = if row.desired_replicas == row.replicas {
        row.desired_replicas.to_string()
    } else {
        format!("{} → {}", row.replicas, row.desired_replicas)
    };
    let mut cells = vec![
        at(sim, row.time),
        load_text(unit, row.load),
        utilization_text(sim, row.utilization),
        row.ready_replicas.to_string(),
        total.to_string(),
        row.pending_pods.to_string(),
        opt(row.recommendation),
        opt(row.stabilized),
        desired,
        reason_text(row),
    ];
    if with_nodes {
        let ready = row.nodes.unwrap_or(0);
        cells.push(match row.nodes_booting {
            Some(b) if b > 0 => format!("{ready} +{b}"),
            _ => ready.to_string(),
        });
    }
    if sim.summary.actual.is_some() {
        cells.push(opt(row.actual_replicas));
    }
    if with_unserved(sim) {
        cells.push(load_text(unit, row.unserved_load.unwrap_or(0.0)));
    }
    cells
}

/// The summary, one sentence a line.
pub(crate) fn summary_lines(sim: &Simulation) -> Vec<String> {
    let m = &sim.summary;
    let mut lines = vec![format!(
        "replicas: peak {}, final {}; {} sync(s) scaled up, {} scaled down, of {}",
        m.peak_replicas, m.final_replicas, m.scale_ups, m.scale_downs, m.syncs
    )];
    let since = if m.last_load_change_seconds == 0 {
        "the start".to_string()
    } else {
        format!(
            "the last load change at {}",
            at(sim, m.last_load_change_seconds)
        )
    };
    lines.push(match m.time_to_target_seconds {
        Some(t) => format!("target {} reached {}s after {since}", sim.metric.target, t),
        None => format!(
            "target {} not reached after {since} (the first metric stays outside the tolerance \
             band)",
            sim.metric.target
        ),
    });
    lines.push(format!(
        "pod-seconds {} (Ready {}), Pending pod-seconds {} (at most {} Pending at once)",
        m.pod_seconds, m.ready_pod_seconds, m.pending_pod_seconds, m.max_pending_pods
    ));
    if let (Some(node_seconds), Some(peak), Some(last)) =
        (m.node_seconds, m.peak_nodes, m.final_nodes)
    {
        lines.push(format!(
            "node-seconds {node_seconds}; nodes: peak {peak}, final {last}"
        ));
    }
    if let Some(cost) = m.node_cost {
        lines.push(format!("NodeClaims: {}; cost ${cost:.3}", claims_text(sim)));
    }
    let unit = load_unit(sim);
    if let (Some(peak), Some(syncs)) = (m.peak_unserved_load, m.unserved_syncs) {
        lines.push(format!(
            "demand over the pods' limits left unserved at {syncs} sync(s), at most {}",
            load_text(unit, peak)
        ));
    }
    if m.rollout_surge_syncs > 0 {
        lines.push(format!(
            "RolloutSurge at {} sync(s): more pods than replicas during the rollout",
            m.rollout_surge_syncs
        ));
    }
    if let Some(a) = &m.actual {
        lines.push(actual_line(sim, a));
    }
    lines
}

/// The controller's reason, and `RolloutSurge` when the sync had surge pods (`rolloutSurge`).
fn reason_text(row: &SyncRow) -> String {
    match (&row.reason, &row.rollout_surge) {
        (Some(r), Some(_)) => format!("{r}, RolloutSurge"),
        (Some(r), None) => r.clone(),
        (None, Some(_)) => "RolloutSurge".to_string(),
        (None, None) => "-".to_string(),
    }
}

/// A time of the run as the table shows it: from the start (`m:ss`, `h:mm:ss`), or for a replay
/// of Prometheus data the UTC time of day it happened (`03:12:00`), as the incident is remembered.
pub(crate) fn at(sim: &Simulation, seconds: i64) -> String {
    replay_time(sim, seconds).unwrap_or_else(|| clock(seconds))
}

/// In a replay of Prometheus data, the UTC time of day of a time of the run (`03:12:00`), with its
/// date (`11-30 03:12:00`) when the run crosses midnight UTC, so that no two times read the same;
/// `None` otherwise. The table and the chart label their times with it.
pub(crate) fn replay_time(sim: &Simulation, seconds: i64) -> Option<String> {
    let start = Timestamp::parse_rfc3339(&sim.replay.as_ref()?.start)?;
    let text = start.add(Duration::from_secs(seconds)).to_rfc3339();
    let last = (start.add(Duration::from_secs(sim.settings.duration_seconds))).to_rfc3339();
    let time = text.get(11..19)?;
    if last.get(..10) == start.to_rfc3339().get(..10) {
        Some(time.to_string())
    } else {
        Some(format!("{} {time}", text.get(5..10)?))
    }
}

/// The summary's sentence on the simulation against the cluster's actual replicas.
fn actual_line(sim: &Simulation, a: &ActualComparison) -> String {
    let mut line = format!(
        "actual replicas: the simulation's desired replicas differ at {} of {} syncs compared",
        a.syncs_different, a.syncs_compared
    );
    if let (Some(first), Some(largest)) = (a.first_difference_seconds, a.largest_difference_seconds)
    {
        let _ = write!(
            line,
            " ({} higher, {} lower), first at {}; largest at {}: {:+} replicas; mean |difference| {}",
            a.syncs_simulation_higher,
            a.syncs_simulation_lower,
            at(sim, first),
            at(sim, largest),
            a.largest_difference,
            a.mean_absolute_difference
        );
    }
    line
}

fn cell<T: ToString>(value: Option<T>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

/// One CSV row per sync, the JSON keys as the header; an empty cell is a null. With several
/// load columns, each also gets a `load.<name>` column.
pub fn csv(sim: &Simulation) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let extra: Vec<&str> = if sim.load_columns.len() > 1 {
        sim.load_columns.iter().map(|c| c.name.as_str()).collect()
    } else {
        Vec::new()
    };
    let mut header: Vec<String> = vec!["time".into(), "load".into()];
    header.extend(extra.iter().map(|n| format!("load.{n}")));
    header.extend(
        [
            "utilization",
            "readyReplicas",
            "startingPods",
            "pendingPods",
            "replicas",
            "recommendation",
            "stabilized",
            "desiredReplicas",
            "reason",
            "nodes",
            "nodesBooting",
            "actualReplicas",
            "unservedLoad",
            "rolloutSurge",
        ]
        .map(String::from),
    );
    let _ = writer.write_record(&header);
    for row in &sim.timeline {
        let mut record = vec![row.time.to_string(), row.load.to_string()];
        record.extend(extra.iter().map(|n| cell(row.loads.get(*n).copied())));
        record.extend([
            cell(row.utilization),
            row.ready_replicas.to_string(),
            row.starting_pods.to_string(),
            row.pending_pods.to_string(),
            row.replicas.to_string(),
            cell(row.recommendation),
            cell(row.stabilized),
            row.desired_replicas.to_string(),
            row.reason.clone().unwrap_or_default(),
            cell(row.nodes),
            cell(row.nodes_booting),
            cell(row.actual_replicas),
            cell(row.unserved_load),
            row.rollout_surge.clone().unwrap_or_default(),
        ]);
        let _ = writer.write_record(&record);
    }
    writer
        .into_inner()
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default()
}

/// `--scenario list`: each built-in scenario's name and what to notice.
pub fn scenario_list(scenarios: &[(&str, &str)], width: u16) -> String {
    let mut out = String::new();
    for (name, notice) in scenarios {
        let _ = writeln!(out, "{name}");
        out.push_str(&wrap(notice, usize::from(width), "    "));
    }
    out
}

/// Each NodeClaim of a run with Karpenter: `m5-2 m5.8xlarge on-demand $1.536/h (1:01, Ready
/// 4:01)`, the start pods' ones `(at the start)`; `, deleted 13:50` once consolidation deleted it.
fn claims_text(sim: &Simulation) -> String {
    let each: Vec<String> = (sim.node_claims.iter())
        .map(|c| {
            let when = match (c.launched_at, c.ready_at) {
                (Some(l), Some(r)) => format!("launched {}, Ready {}", clock(l), clock(r)),
                _ => "at the start".to_string(),
            };
            let when = match c.deleted_at {
                Some(d) => format!("{when}, deleted {}", clock(d)),
                None => when,
            };
            format!(
                "{} {} {} ${:.3}/h ({when})",
                c.name, c.instance_type, c.capacity_type, c.price_per_hour
            )
        })
        .collect();
    each.join(", ")
}

/// The node model's part of the timing line: Karpenter's batching and startup, or the node
/// group's pods a node, startup and scan interval.
fn node_timing(n: &crate::calc::simulate::NodeSettings) -> String {
    match &n.karpenter {
        Some(k) => format!(
            "; Karpenter (NodePool {}) batches Pending pods ({}s idle, at most {}s), NodeClaims \
             Ready {} after launch, consolidation looks every {}s",
            k.node_pools.join(", "),
            k.batch_idle_seconds,
            k.batch_max_seconds,
            clock(n.node_startup_seconds),
            k.disruption_poll_seconds
        ),
        None => format!(
            "; nodes hold {} pods, boot in {}, Cluster Autoscaler scan every {}s",
            n.pods_per_node,
            clock(n.node_startup_seconds),
            n.ca_scan_interval_seconds
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_breaks_between_words_and_indents() {
        assert_eq!(wrap("aa bb cc", 6, "  "), "  aa\n  bb\n  cc\n");
        assert_eq!(wrap("aa bb cc", 80, ""), "aa bb cc\n");
    }

    fn rows(cells: &[&[&str]]) -> Vec<Vec<String>> {
        cells
            .iter()
            .map(|r| r.iter().map(|c| (*c).to_string()).collect())
            .collect()
    }

    #[test]
    fn only_syncs_where_something_changes_are_shown_with_the_first_and_last() {
        let all = rows(&[
            &["0:00", "1", "4"],
            &["0:15", "1", "4"],
            &["0:30", "2", "4 → 8"],
            &["0:45", "2", "8"],
            &["1:00", "2", "8"],
            &["1:15", "2", "8"],
        ]);
        let shown = changed_rows(all.clone(), false);
        let times: Vec<&str> = shown.rows.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(times, ["0:00", "…", "0:30", "0:45", "…", "1:15"]);
        assert_eq!((shown.syncs, shown.gaps), (4, 2));
        let every = changed_rows(all, true);
        assert_eq!((every.rows.len(), every.syncs, every.gaps), (6, 6, 0));
    }

    #[test]
    fn the_sparkline_scales_desired_replicas_between_the_lowest_and_highest() {
        let mut sim =
            crate::calc::simulate::run(&crate::input::builtin::builtin_setup("real-drop"));
        for (i, row) in sim.timeline.iter_mut().enumerate() {
            row.desired_replicas = if i < 4 { 2 } else { 10 };
        }
        sim.timeline.truncate(8);
        assert_eq!(sparkline_line(&sim, 80), "desired replicas 2 ▁▁▁▁████ 10\n");
    }

    #[test]
    fn loads_print_as_quantities_for_resources() {
        assert_eq!(milli_text("cpu", 2.4), "2400m");
        assert_eq!(milli_text("cpu", 6.0), "6");
        assert_eq!(milli_text("", 250.0), "250");
    }
}
