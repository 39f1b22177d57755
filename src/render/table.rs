//! The step-by-step table: one row per step in the controller's order, then the decision line and
//! the assumptions. `-o wide` adds each pod's class and the reason. Pure: `&Report -> String`.

use std::fmt::Write;

use anstyle::{AnsiColor, Style};
use comfy_table::{ContentArrangement, Table, presets};

use crate::report::Report;

/// Layout settings that come from the terminal.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    pub wide: bool,
    pub color: bool,
    /// Total width in columns.
    pub width: u16,
}

fn paint(text: &str, style: Style, color: bool) -> String {
    if color {
        format!("{style}{text}{style:#}")
    } else {
        text.to_string()
    }
}

fn new_table(header: &[&str], width: u16) -> Table {
    let mut table = Table::new();
    table
        .load_style(presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(width)
        .set_header(header.to_vec());
    table
}

/// Trailing spaces that comfy-table pads lines with are trimmed, so snapshots and diffs are clean.
fn push_table(out: &mut String, table: &Table) {
    for line in table.to_string().lines() {
        let line = line.strip_prefix(' ').unwrap_or(line);
        out.push_str(line.trim_end());
        out.push('\n');
    }
}

pub fn render(report: &Report, layout: Layout) -> String {
    let bold = Style::new().bold();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} → {}  ·  Kubernetes {} rules  ·  {}",
        paint(&format!("HPA {}", report.hpa), bold, layout.color),
        report.target,
        report.kube_version,
        report.now
    );
    out.push('\n');

    let mut steps = new_table(&["PHASE", "STEP", "DETAIL"], layout.width);
    let mut last_phase = "";
    // The decision step is the line printed under the table.
    for s in report
        .steps
        .iter()
        .filter(|s| s.phase != "decision" || s.title != "decision")
    {
        let phase = if s.phase == last_phase {
            ""
        } else {
            s.phase.as_str()
        };
        last_phase = &s.phase;
        steps.add_row(vec![phase, s.title.as_str(), s.detail.as_str()]);
    }
    push_table(&mut out, &steps);

    if layout.wide {
        let mut pods = new_table(&["METRIC", "POD", "CLASS", "REASON"], layout.width);
        for m in &report.metrics {
            for p in &m.pods {
                pods.add_row(vec![
                    m.name.as_str(),
                    p.name.as_str(),
                    p.class.as_str(),
                    p.reason.as_str(),
                ]);
            }
        }
        if report.metrics.iter().any(|m| !m.pods.is_empty()) {
            out.push('\n');
            push_table(&mut out, &pods);
        }
    }

    out.push('\n');
    let arrow = format!("{} → {}", report.current_replicas, report.desired_replicas);
    let style = match report.decision.change.as_str() {
        "scaleUp" => Style::new().bold().fg_color(Some(AnsiColor::Green.into())),
        "scaleDown" => Style::new().bold().fg_color(Some(AnsiColor::Yellow.into())),
        _ => bold,
    };
    let summary = report
        .decision
        .summary
        .strip_prefix(&format!("{arrow}: "))
        .unwrap_or(&report.decision.summary);
    let _ = writeln!(out, "{}  {summary}", paint(&arrow, style, layout.color));

    if !report.assumptions.is_empty() {
        out.push('\n');
        out.push_str(&paint("Assumptions", bold, layout.color));
        out.push('\n');
        for a in &report.assumptions {
            let _ = writeln!(out, "- {a}");
        }
    }
    out
}
