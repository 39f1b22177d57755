//! The step-by-step table: one row per step in the controller's order, then the decision line and
//! the assumptions. `-o wide` adds each pod's class and the reason. Pure: `&Report -> String`.

use std::fmt::Write;

use anstyle::{AnsiColor, Style};
use comfy_table::{ContentArrangement, Table, presets};

use crate::render::Terminal;
use crate::report::{NodesReport, Report, Severity, Step};

/// The terminal, and whether the table is `-o wide`.
#[derive(Debug, Clone, Copy)]
struct Layout {
    wide: bool,
    color: bool,
    width: u16,
}

pub(crate) fn paint(text: &str, style: Style, color: bool) -> String {
    if color {
        format!("{style}{text}{style:#}")
    } else {
        text.to_string()
    }
}

/// What parts of a heading are joined by.
const PARTS: &str = "  ·  ";

/// A heading line of `parts` joined by `  ·  `, the first painted `style`: as many parts a line
/// as fit in `width` columns, each other part at the start of a line of its own, and a part wider
/// than the line word-wrapped (`HPA shop/web → Deployment/web  ·  Kubernetes 1.37 rules`, then
/// the metric and its target at 80 columns).
pub(crate) fn heading(parts: &[String], style: Style, color: bool, width: u16) -> String {
    let room = usize::from(width);
    let gap = PARTS.chars().count();
    let mut out = String::new();
    // The columns the current line holds.
    let mut used = 0;
    for (i, part) in parts.iter().enumerate() {
        let shown = |text: &str| match i {
            0 => paint(text, style, color),
            _ => text.to_string(),
        };
        let n = part.chars().count();
        if used > 0 && used + gap + n <= room {
            out.push_str(PARTS);
            out.push_str(&shown(part));
            used += gap + n;
            continue;
        }
        if used > 0 {
            out.push('\n');
        }
        let lines = match n <= room {
            true => vec![part.clone()],
            false => hard_wrap(part, width),
        };
        let shown_lines: Vec<String> = lines.iter().map(|l| shown(l)).collect();
        out.push_str(&shown_lines.join("\n"));
        used = lines.last().map_or(0, |l| l.chars().count());
    }
    out.push('\n');
    out
}

/// `text` word-wrapped in `width` columns, a word wider than that (a KEDA metric's selector)
/// cut where the line ends.
fn hard_wrap(text: &str, width: u16) -> Vec<String> {
    let room = usize::from(width).max(1);
    let mut lines = Vec::new();
    for line in crate::render::headline::wrap_indented(text, width, "", "") {
        let chars: Vec<char> = line.chars().collect();
        lines.extend(chars.chunks(room).map(|c| c.iter().collect::<String>()));
    }
    lines
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

pub fn render(report: &Report, wide: bool, terminal: Terminal) -> String {
    let layout = Layout {
        wide,
        color: terminal.color,
        width: terminal.width,
    };
    let bold = Style::new().bold();
    let mut out = String::new();
    // The answer first: the decision line and the first WHY line, then how it was reached.
    for (i, line) in crate::render::headline::lines(report, layout.width)
        .iter()
        .enumerate()
    {
        let style = if i == 0 {
            change_style(report)
        } else {
            Style::new()
        };
        let _ = writeln!(out, "{}", paint(line, style, layout.color));
    }
    out.push('\n');
    let parts = [
        format!(
            "HPA {} → {}",
            crate::error::escape_control(&report.hpa),
            crate::error::escape_control(&report.target)
        ),
        format!("Kubernetes {} rules", report.kube_version),
        report.now.to_string(),
    ];
    out.push_str(&heading(&parts, bold, layout.color, layout.width));
    out.push('\n');
    push_table(&mut out, &steps_table(report, layout.width));
    if layout.wide && report.metrics.iter().any(|m| !m.pods.is_empty()) {
        out.push('\n');
        push_table(&mut out, &pods_table(report, layout.width));
    }
    if !report.diagnostics.is_empty() {
        out.push('\n');
        push_table(&mut out, &why_table(report, layout));
    }
    // Without a named cause the first WHY line was the decision's sentence: not said twice.
    if !report.diagnostics.is_empty() {
        out.push('\n');
        push_decision(&mut out, report, layout);
    }
    if let Some(nodes) = &report.nodes {
        out.push('\n');
        push_table(&mut out, &nodes_table(nodes, layout.width));
    }
    if !report.assumptions.is_empty() {
        out.push('\n');
        out.push_str(&paint("Assumptions", bold, layout.color));
        out.push('\n');
        for a in &report.assumptions {
            for (i, line) in wrap(
                &crate::error::escape_control(a),
                usize::from(layout.width).saturating_sub(2),
            )
            .iter()
            .enumerate()
            {
                let _ = writeln!(out, "{} {line}", if i == 0 { "-" } else { " " });
            }
        }
    }
    out
}

/// One row per step, each phase named once.
fn steps_table(report: &Report, width: u16) -> Table {
    let mut steps = new_table(&["PHASE", "STEP", "DETAIL"], width);
    // On a narrow terminal a long step title (a metric's name) would squeeze the details: the
    // title column gets at most a fifth of the width, or its longest word, up to a third.
    let title_bound = (width < 100).then(|| {
        let longest_word = report
            .steps
            .iter()
            .flat_map(|s| s.title.split(' '))
            .map(|w| u16::try_from(w.chars().count()).unwrap_or(u16::MAX))
            .max()
            .unwrap_or(0);
        longest_word.max(width / 5).min(width / 3)
    });
    let mut last_phase = "";
    for s in listed_steps(report) {
        let phase = if s.phase == last_phase {
            ""
        } else {
            s.phase.as_str()
        };
        last_phase = &s.phase;
        // A title longer than its column breaks between words (comfy-table would cut a word).
        let title = match title_bound {
            Some(bound) if s.title.chars().count() > usize::from(bound) => {
                s.title.replacen(' ', "\n", 1)
            }
            _ => s.title.clone(),
        };
        steps.add_row(vec![phase, title.as_str(), s.detail.as_str()]);
    }
    if let Some(bound) = title_bound
        && let Some(column) = steps.column_mut(1)
    {
        // The width counts comfy-table's padding of one column on each side.
        column.set_constraint(comfy_table::ColumnConstraint::Absolute(
            comfy_table::Width::Fixed(bound + 2),
        ));
    }
    steps
}

/// `-o wide`: each pod's class and the reason, per metric.
fn pods_table(report: &Report, width: u16) -> Table {
    let mut pods = new_table(&["METRIC", "POD", "CLASS", "REASON"], width);
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
    pods
}

/// The decision line under the table, wrapped under its arrow.
fn push_decision(out: &mut String, report: &Report, layout: Layout) {
    let (arrow, summary) = decision_line(report);
    let style = change_style(report);
    let indent = arrow.chars().count() + 2;
    let summary = crate::error::escape_control(summary);
    let lines = wrap(&summary, usize::from(layout.width).saturating_sub(indent));
    for (i, line) in lines.iter().enumerate() {
        if i == 0 {
            let _ = writeln!(out, "{}  {line}", paint(&arrow, style, layout.color));
        } else {
            let _ = writeln!(out, "{:indent$}{line}", "");
        }
    }
}

/// Bold, green for a scale-up, yellow for a scale-down.
fn change_style(report: &Report) -> Style {
    match report.decision.change.as_str() {
        "scaleUp" => Style::new().bold().fg_color(Some(AnsiColor::Green.into())),
        "scaleDown" => Style::new().bold().fg_color(Some(AnsiColor::Yellow.into())),
        _ => Style::new().bold(),
    }
}

/// The steps of the table, in the controller's order: all but the decision step, which is the
/// line printed under the table (`decision_line`).
pub(crate) fn listed_steps(report: &Report) -> impl Iterator<Item = &Step> {
    report
        .steps
        .iter()
        .filter(|s| s.phase != "decision" || s.title != "decision")
}

/// The decision: `current → desired`, and the summary without that arrow.
pub(crate) use crate::render::headline::arrow_and_summary as decision_line;

/// Greedy word wrap of free text to `width` columns (a word longer than a line stays whole).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(20);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut len = 0;
    for word in text.split(' ') {
        let w = word.chars().count();
        if len > 0 && len + 1 + w > width {
            lines.push(std::mem::take(&mut line));
            len = 0;
        }
        if len > 0 {
            line.push(' ');
            len += 1;
        }
        line.push_str(word);
        len += w;
    }
    lines.push(line);
    lines
}

/// "Why": the named causes, most severe first, each with what to change.
fn why_table(report: &Report, layout: Layout) -> Table {
    let mut table = new_table(&["WHY", "", "DETAIL"], layout.width);
    for d in &report.diagnostics {
        let (severity, style) = match d.severity {
            Severity::Error => ("error", Style::new().fg_color(Some(AnsiColor::Red.into()))),
            Severity::Warning => (
                "warning",
                Style::new().fg_color(Some(AnsiColor::Yellow.into())),
            ),
            Severity::Info => ("info", Style::new()),
        };
        let detail = if d.fix.is_empty() {
            d.message.clone()
        } else {
            format!("{}\nfix: {}", d.message, d.fix)
        };
        table.add_row(vec![
            paint(severity, style, layout.color),
            d.code.clone(),
            detail,
        ]);
    }
    table
}

/// The Cluster Autoscaler's view, after the replica decision.
fn nodes_table(n: &NodesReport, width: u16) -> Table {
    let mut table = new_table(&["NODES", "DETAIL"], width);
    for row in nodes_rows(n) {
        table.add_row(row);
    }
    table
}

/// The Cluster Autoscaler's view as (what, detail) rows.
pub(crate) fn nodes_rows(n: &NodesReport) -> Vec<Vec<String>> {
    let mut table = Vec::new();
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
    table.push(vec![
        "pod request".to_string(),
        format!("{request} ({})", n.pod_request_source),
    ]);
    if let Some(k) = &n.karpenter {
        table.extend(crate::render::karpenter::rows(k));
        return table;
    }
    table.push(vec![
        "pods per node".to_string(),
        format!("{} (limited by {})", n.pods_per_node, n.limiting_resource),
    ]);
    table.push(vec![
        "nodes".to_string(),
        format!("{} now → {} needed: add {}", n.existing, n.needed, n.to_add),
    ]);
    table.push(vec![
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
        Some("noExpansionOptions") => "no node group can take the remaining pods".to_string(),
        Some("tie") => "a tie the Cluster Autoscaler breaks at random (see the loops)".to_string(),
        Some("podTooLarge") => {
            "the pod is larger than a node of this group: never schedulable here".to_string()
        }
        Some(other) => other.to_string(),
    };
    table.push(vec!["limits".to_string(), limit]);
    if let Some(plan) = &n.node_groups {
        table.extend(crate::render::node_groups::plan_rows(plan));
    }
    if !n.underutilized_nodes.is_empty() {
        table.push(vec![
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

#[cfg(test)]
mod heading_tests {
    use super::*;

    #[test]
    fn a_heading_puts_as_many_parts_a_line_as_fit_and_wraps_a_part_wider_than_the_line() {
        let parts = [
            "HPA shop/web → Deployment/web".to_string(),
            "Kubernetes 1.37 rules".to_string(),
            "cpu resource utilization (percentage of request) target 50%".to_string(),
        ];
        let plain = Style::new();
        assert_eq!(heading(&parts, plain, false, 120).lines().count(), 1);
        assert_eq!(
            heading(&parts, plain, false, 80),
            "HPA shop/web → Deployment/web  ·  Kubernetes 1.37 rules\n\
             cpu resource utilization (percentage of request) target 50%\n"
        );
        let narrow = heading(&parts, plain, false, 30);
        assert!(narrow.lines().all(|l| l.chars().count() <= 30), "{narrow}");
        assert_eq!(narrow.lines().count(), 5, "{narrow}");
        // A word wider than the line is cut where the line ends.
        let long = ["x".repeat(25)];
        assert_eq!(
            heading(&long, plain, false, 20),
            format!("{}\n{}\n", "x".repeat(20), "x".repeat(5))
        );
        // The first part is painted whole, with colour.
        let bold = Style::new().bold();
        assert!(heading(&parts, bold, true, 80).starts_with(&format!("{bold}HPA shop/web")));
    }
}
