//! `simulate --compare` as text: the configurations named, one row per sync with each
//! configuration's replicas side by side, and their figures in one table. Pure: every number
//! is the engine's (`calc::simulate::compare`).

use std::fmt::Write;

use anstyle::Style;

use crate::calc::simulate::compare::{Comparison, Figures, replicas_at};
use crate::calc::simulate::{Simulation, clock};
use crate::render::Terminal;
use crate::render::table::{heading, new_table, paint, push_table};
use crate::render::timeline::{
    Rows, at, changed_rows, load_text, load_unit, shown_note, utilization_text, wrap,
};
use crate::report::Report;
use crate::report::what_if::WhatIfReport;

/// The comparison table: the configurations, the timeline side by side, the figures.
pub fn table(cmp: &Comparison, terminal: Terminal) -> String {
    table_with(cmp, terminal, Rows::default())
}

/// The comparison table with the syncs `rows` asks for (every sync, or those where a column
/// changes).
pub fn table_with(cmp: &Comparison, terminal: Terminal, rows: Rows) -> String {
    let mut out = String::new();
    let Some(base) = cmp.configurations.first().map(|c| &c.simulation) else {
        return out;
    };
    let bold = Style::new().bold();
    let width = usize::from(terminal.width);
    let parts = [
        format!("HPA {} → {}", base.hpa, base.target),
        format!(
            "{} configurations on the same load",
            cmp.configurations.len()
        ),
        format!("{} target {}", base.metric.description, base.metric.target),
    ];
    out.push_str(&heading(&parts, bold, terminal.color, terminal.width));
    for (i, c) in cmp.configurations.iter().enumerate() {
        let s = &c.simulation;
        let mut line = format!(
            "#{} {}: HPA {}, Kubernetes {} rules, {} to {} replicas, sync every {}s",
            i + 1,
            c.name,
            s.hpa,
            s.kube_version,
            s.settings.min_replicas,
            s.settings.max_replicas,
            s.settings.sync_period_seconds
        );
        if let Some(k) = s.settings.nodes.as_ref().and_then(|n| n.karpenter.as_ref()) {
            let _ = write!(line, ", Karpenter NodePool {}", k.node_pools.join(", "));
        }
        out.push_str(&wrap(&line, width, ""));
    }
    let first = cmp.first_difference_seconds.map_or_else(
        || "the configurations never differ".to_string(),
        |t| format!("first difference at {}", at(base, t)),
    );
    out.push_str(&wrap(&first, width, ""));
    out.push('\n');
    let (table, shown) = timeline(cmp, base, terminal, rows.every_sync);
    if shown.gaps > 0 {
        out.push_str(&wrap(&shown_note(shown.syncs, shown.total), width, ""));
    }
    push_table(&mut out, &table);
    out.push('\n');
    let _ = writeln!(out, "{}", paint("Summary", bold, terminal.color));
    push_table(&mut out, &figures(cmp, base, terminal));
    out
}

/// TIME, LOAD, ACTUAL when the replay has it, then each configuration's UTIL and REPLICAS.
fn timeline(
    cmp: &Comparison,
    base: &Simulation,
    terminal: Terminal,
    every_sync: bool,
) -> (comfy_table::Table, ShownCount) {
    let with_actual = base.summary.actual.is_some();
    let mut header = vec!["TIME".to_string(), "LOAD".to_string()];
    if with_actual {
        header.push("ACTUAL".to_string());
    }
    for i in 1..=cmp.configurations.len() {
        header.push(format!("UTIL #{i}"));
        header.push(format!("REPLICAS #{i}"));
    }
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut rows = new_table(&header, terminal.width);
    let unit = load_unit(base);
    let mut times: Vec<i64> = (cmp.configurations.iter())
        .flat_map(|c| c.simulation.timeline.iter().map(|r| r.time))
        .collect();
    times.sort_unstable();
    times.dedup();
    let total = times.len();
    let mut all = Vec::with_capacity(total);
    for t in times {
        let row = base.timeline.iter().rfind(|r| r.time <= t);
        let mut cells = vec![
            at(base, t),
            row.map_or_else(String::new, |r| load_text(unit, r.load)),
        ];
        if with_actual {
            cells.push(opt(row.and_then(|r| r.actual_replicas)));
        }
        for c in &cmp.configurations {
            let s = &c.simulation;
            let own = s.timeline.iter().find(|r| r.time == t);
            cells.push(own.map_or_else(String::new, |r| utilization_text(s, r.utilization)));
            cells.push(match own {
                Some(r) if r.desired_replicas != r.replicas => {
                    format!("{} → {}", r.replicas, r.desired_replicas)
                }
                _ => opt(replicas_at(s, t)),
            });
        }
        all.push(cells);
    }
    let shown = changed_rows(all, every_sync);
    let count = ShownCount {
        syncs: shown.syncs,
        gaps: shown.gaps,
        total,
    };
    for row in shown.rows {
        rows.add_row(row);
    }
    (rows, count)
}

/// How many syncs the side-by-side table printed, of how many, and its `…` rows.
struct ShownCount {
    syncs: usize,
    gaps: usize,
    total: usize,
}

/// The names of the figures, in the order of `figure_cells`.
pub(crate) const FIGURES: [&str; 9] = [
    "pod-hours",
    "node-hours",
    "time above target",
    "unserved load × s",
    "scale events",
    "direction changes",
    "peak replicas",
    "first scale-up",
    "time to peak",
];

/// One row per figure, one column per configuration.
fn figures(cmp: &Comparison, base: &Simulation, terminal: Terminal) -> comfy_table::Table {
    let mut header = vec!["FIGURE".to_string()];
    header.extend((1..=cmp.configurations.len()).map(|i| format!("#{i}")));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut table = new_table(&header, terminal.width);
    let columns: Vec<[String; 9]> = (cmp.configurations.iter())
        .map(|c| figure_cells(&c.figures, &|t| at(base, t)))
        .collect();
    for (i, name) in FIGURES.iter().enumerate() {
        let mut cells = vec![(*name).to_string()];
        cells.extend(columns.iter().filter_map(|c| c.get(i).cloned()));
        table.add_row(cells);
    }
    // Karpenter's runs (`--nodepool`): what their NodeClaims cost.
    if cmp
        .configurations
        .iter()
        .any(|c| c.figures.node_cost.is_some())
    {
        let mut cells = vec!["node cost".to_string()];
        cells.extend(cmp.configurations.iter().map(|c| {
            c.figures
                .node_cost
                .map_or_else(|| "-".to_string(), |d| format!("${d:.3}"))
        }));
        table.add_row(cells);
        let mut cells = vec!["NodeClaims".to_string()];
        cells
            .extend((cmp.configurations.iter()).map(|c| launched_types(&c.simulation.node_claims)));
        table.add_row(cells);
    }
    table
}

/// One configuration's figures as the table writes them, in the order of `FIGURES`; `time`
/// writes the time of the first scale-up.
pub(crate) fn figure_cells(f: &Figures, time: &dyn Fn(i64) -> String) -> [String; 9] {
    let none = || "-".to_string();
    [
        f.pod_hours.to_string(),
        f.node_hours.map_or_else(none, |h| h.to_string()),
        clock(f.seconds_above_target),
        (f.unserved_load_seconds)
            .map_or_else(none, |u| ((u * 1000.0).round() / 1000.0).to_string()),
        f.scale_events.to_string(),
        f.direction_changes.to_string(),
        f.peak_replicas.to_string(),
        f.first_scale_up_seconds.map_or_else(none, time),
        f.time_to_peak_seconds
            .map_or_else(none, |t| format!("{t}s")),
    ]
}

/// One sync before and after a what-if: both step-by-step tables and the two counts.
pub fn what_if_table(r: &WhatIfReport, wide: bool, terminal: Terminal) -> String {
    let bold = Style::new().bold();
    // The answer first: what the change does to the count, and why.
    let mut out = what_if_line(r, terminal.width);
    out.push('\n');
    let _ = writeln!(out, "{}", paint("Before", bold, terminal.color));
    out.push_str(&crate::render::table::render(&r.before, wide, terminal));
    out.push('\n');
    let heading = format!("What if: {}", r.changes.join(", "));
    let _ = writeln!(out, "{}", paint(&heading, bold, terminal.color));
    out.push_str(&crate::render::table::render(&r.after, wide, terminal));
    out
}

/// `desired replicas: 10 before, 10 after the change: cpu utilization 80% → 160%, ...`, wrapped.
pub fn what_if_line(r: &WhatIfReport, width: u16) -> String {
    wrap(&what_if_counts(r), usize::from(width), "")
}

/// The two counts of a what-if and what changed in between: `desired replicas: 10 before and
/// after the change: cpu utilization 80% → 160%, proposal 10 → 20, capped by max 10`.
pub fn what_if_counts(r: &WhatIfReport) -> String {
    let counts = if r.desired_replicas_before == r.desired_replicas_after {
        format!(
            "desired replicas: {} before and after the change",
            r.desired_replicas_before
        )
    } else {
        format!(
            "desired replicas: {} before, {} after the change",
            r.desired_replicas_before, r.desired_replicas_after
        )
    };
    let between = in_between(&r.before, &r.after);
    if between.is_empty() {
        counts
    } else {
        format!("{counts}: {}", between.join(", "))
    }
}

/// What changed between the two syncs, in the controller's order: each metric's current value
/// (`cpu utilization 80% → 160%`), the proposal, the count after the window, and the limit that
/// capped the answer after the change (`capped by max 10`). Read from the two reports.
fn in_between(before: &Report, after: &Report) -> Vec<String> {
    let mut out = Vec::new();
    for (b, a) in before.metrics.iter().zip(&after.metrics) {
        let name = a
            .container
            .as_ref()
            .map_or_else(|| a.name.clone(), |c| format!("{} of {c}", a.name));
        match (b.current_utilization, a.current_utilization) {
            (Some(x), Some(y)) if x != y => out.push(format!("{name} utilization {x}% → {y}%")),
            _ => {
                let value = |m: &crate::report::MetricReport| {
                    m.current_average_value
                        .clone()
                        .or_else(|| m.current_value.clone())
                };
                if let (Some(x), Some(y)) = (value(b), value(a))
                    && x != y
                {
                    out.push(format!("{name} {x} → {y}"));
                }
            }
        }
    }
    let (db, da) = (&before.decision, &after.decision);
    if let (Some(x), Some(y)) = (db.metric_proposal, da.metric_proposal)
        && x != y
    {
        out.push(format!("proposal {x} → {y}"));
    }
    if let (Some(x), Some(y)) = (db.stabilized_replicas, da.stabilized_replicas)
        && x != y
        && da.metric_proposal != Some(y)
    {
        out.push(format!("after the stabilization window {x} → {y}"));
    }
    if let Some(cap) = capped(after) {
        out.push(cap);
    }
    out
}

/// The limit that changed the count after the window, named from ScalingLimited's reason.
fn capped(report: &Report) -> Option<String> {
    let d = &report.decision;
    let (Some(stable), Some(limited)) = (d.stabilized_replicas, d.limited_replicas) else {
        return None;
    };
    if stable == limited {
        return None;
    }
    let reason = (report.conditions.iter())
        .find(|c| c.condition_type == "ScalingLimited" && c.status == "True")
        .map(|c| c.reason.as_str());
    Some(match reason {
        Some("TooManyReplicas") => format!("capped by max {limited}"),
        Some("TooFewReplicas") => format!("raised to min {limited}"),
        Some("ScaleUpLimit") => format!("capped by the scale-up limit at {limited}"),
        Some("ScaleDownLimit") => format!("held by the scale-down limit at {limited}"),
        Some(other) => format!("{other}: {limited}"),
        None => format!("limited to {limited}"),
    })
}

/// A count, or `-` where there is none.
fn opt(value: Option<i32>) -> String {
    value.map_or_else(|| "-".to_string(), |v| v.to_string())
}

/// The instance types a run's NodeClaims launched, in launch order, each with its count:
/// `m5.2xlarge, m5.8xlarge` or `2 × c5.xlarge`.
fn launched_types(claims: &[crate::calc::simulate::NodeClaimRun]) -> String {
    let mut counted: Vec<(&str, usize)> = Vec::new();
    for c in claims {
        match counted.iter_mut().find(|(t, _)| *t == c.instance_type) {
            Some((_, n)) => *n += 1,
            None => counted.push((&c.instance_type, 1)),
        }
    }
    let each: Vec<String> = (counted.iter())
        .map(|(t, n)| {
            if *n == 1 {
                (*t).to_string()
            } else {
                format!("{n} × {t}")
            }
        })
        .collect();
    if each.is_empty() {
        "-".to_string()
    } else {
        each.join(", ")
    }
}
