//! The step-by-step table: one row per step in the controller's order, then the decision line and
//! the assumptions. `-o wide` adds each pod's class and the reason. Pure: `&Report -> String`.

use std::fmt::Write;

use anstyle::{AnsiColor, Style};
use comfy_table::{ContentArrangement, Table, presets};

use crate::report::{NodesReport, Report};

/// Layout settings that come from the terminal.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    pub wide: bool,
    pub color: bool,
    /// Total width in columns.
    pub width: u16,
}

pub(crate) fn paint(text: &str, style: Style, color: bool) -> String {
    if color {
        format!("{style}{text}{style:#}")
    } else {
        text.to_string()
    }
}

pub(crate) fn new_table(header: &[&str], width: u16) -> Table {
    let mut table = Table::new();
    table
        .load_style(presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(width)
        .set_header(header.to_vec());
    table
}

/// Trailing spaces that comfy-table pads lines with are trimmed, so snapshots and diffs are clean.
pub(crate) fn push_table(out: &mut String, table: &Table) {
    for line in table.to_string().lines() {
        let line = line.strip_prefix(' ').unwrap_or(line);
        // Names and messages come from the inputs: a control character is shown, never sent.
        out.push_str(&crate::error::escape_control(line.trim_end()));
        out.push('\n');
    }
}

pub fn render(report: &Report, layout: Layout) -> String {
    let bold = Style::new().bold();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} → {}  ·  Kubernetes {} rules  ·  {}",
        paint(
            &format!("HPA {}", crate::error::escape_control(&report.hpa)),
            bold,
            layout.color
        ),
        crate::error::escape_control(&report.target),
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
    let summary = crate::error::escape_control(summary);
    let _ = writeln!(out, "{}  {summary}", paint(&arrow, style, layout.color));

    if let Some(nodes) = &report.nodes {
        out.push('\n');
        push_table(&mut out, &nodes_table(nodes, layout.width));
    }

    if !report.assumptions.is_empty() {
        out.push('\n');
        out.push_str(&paint("Assumptions", bold, layout.color));
        out.push('\n');
        for a in &report.assumptions {
            let _ = writeln!(out, "- {}", crate::error::escape_control(a));
        }
    }
    out
}

/// The Cluster Autoscaler's view, after the replica decision.
fn nodes_table(n: &NodesReport, width: u16) -> Table {
    let mut table = new_table(&["NODES", "DETAIL"], width);
    let request: Vec<String> = n
        .pod_request
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    let request = if request.is_empty() {
        "nothing (a pod slot only)".to_string()
    } else {
        request.join(", ")
    };
    table.add_row(vec![
        "pod request".to_string(),
        format!("{request} ({})", n.pod_request_source),
    ]);
    table.add_row(vec![
        "pods per node".to_string(),
        format!("{} (limited by {})", n.pods_per_node, n.limiting_resource),
    ]);
    table.add_row(vec![
        "nodes".to_string(),
        format!("{} now → {} needed: add {}", n.existing, n.needed, n.to_add),
    ]);
    table.add_row(vec![
        "pending pods".to_string(),
        format!(
            "{} fit in no existing node; {} would stay Pending",
            n.pending_pods, n.unschedulable_pods
        ),
    ]);
    let limit = match n.limited_by.as_deref() {
        None => "none hit".to_string(),
        Some("nodeGroupMax") => "the node group's maximum size".to_string(),
        Some("maxNodesTotal") => "--max-nodes-total".to_string(),
        Some("podTooLarge") => {
            "the pod is larger than a node of this group: never schedulable here".to_string()
        }
        Some(other) => other.to_string(),
    };
    table.add_row(vec!["limits".to_string(), limit]);
    if !n.underutilized_nodes.is_empty() {
        table.add_row(vec![
            "scale-down".to_string(),
            format!(
                "{} at or under {} utilization: removable after {} unneeded",
                n.underutilized_nodes.join(", "),
                n.scale_down_utilization_threshold,
                n.scale_down_unneeded_time
            ),
        ]);
    }
    table
}
