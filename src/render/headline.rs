//! The answer first: the lines every text output of one sync starts with, and all `--brief`
//! (`-o summary`) prints. The decision line names the HPA, the counts, the change, the metric that
//! decided it against its target and the first named cause
//! (`web: 6 → 10 scale up — cpu 80% of 50% target, ScaleUpLimit`); the first WHY line is the
//! first named cause in full, or the decision's sentence when nothing is named. Pure: it reads the
//! `Report` only.

use crate::render::escape::terminal as shown;
use crate::report::{Diagnostic, MetricReport, Report, Severity};

/// `error`, `warning` or `info`, as the WHY section prints a severity.
pub(crate) fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

/// `scale up`, `scale down` or `no change`.
fn change(report: &Report) -> &'static str {
    match report.decision.change.as_str() {
        "scaleUp" => "scale up",
        "scaleDown" => "scale down",
        _ => "no change",
    }
}

/// The metric that decided the count: the one the controller names, else the first with a
/// proposal, else the first.
fn deciding_metric(report: &Report) -> Option<&MetricReport> {
    let named = report.decision.metric_name.as_deref();
    (report.metrics.iter())
        .find(|m| named.is_some_and(|n| m.description == n))
        .or_else(|| {
            report
                .metrics
                .iter()
                .find(|m| m.proposed_replicas.is_some())
        })
        .or_else(|| report.metrics.first())
}

/// `cpu 80% of 50% target`, or `cpu FailedGetResourceMetric` for a metric the controller could
/// not compute.
pub(crate) fn metric_phrase(m: &MetricReport) -> String {
    let t = &m.target;
    let target = match (t.average_utilization, &t.average_value, &t.value) {
        (Some(u), _, _) => format!("{u}%"),
        (None, Some(v), _) | (None, None, Some(v)) => v.clone(),
        (None, None, None) => "?".into(),
    };
    let current = match (
        m.current_utilization,
        &m.current_average_value,
        &m.current_value,
    ) {
        (Some(u), _, _) => Some(format!("{u}%")),
        (None, Some(v), _) | (None, None, Some(v)) => Some(v.clone()),
        (None, None, None) => None,
    };
    let container = m
        .container
        .as_deref()
        .map(|c| format!(" ({c})"))
        .unwrap_or_default();
    match (current, &m.error_reason) {
        (Some(current), _) => format!("{}{container} {current} of {target} target", m.name),
        (None, Some(reason)) => format!("{}{container} {reason}", m.name),
        (None, None) => format!("{}{container} unknown, target {target}", m.name),
    }
}

/// The first named cause's code, else the reason of a true ScalingLimited condition.
fn first_cause(report: &Report) -> Option<&str> {
    (report.diagnostics.first().map(|d| d.code.as_str())).or_else(|| {
        (report.conditions.iter())
            .find(|c| c.condition_type == "ScalingLimited" && c.status == "True")
            .map(|c| c.reason.as_str())
    })
}

/// `web: 6 → 10 scale up — cpu 80% of 50% target, ScaleUpLimit`.
pub fn decision_line(report: &Report) -> String {
    let name = report.hpa.rsplit_once('/').map_or(&*report.hpa, |(_, n)| n);
    let mut why: Vec<String> = deciding_metric(report)
        .map(metric_phrase)
        .into_iter()
        .collect();
    why.extend(first_cause(report).map(str::to_string));
    let mut line = format!(
        "{}: {} → {} {}",
        shown(name),
        report.current_replicas,
        report.desired_replicas,
        change(report)
    );
    if !why.is_empty() {
        line.push_str(" — ");
        line.push_str(&shown(&why.join(", ")));
    }
    line
}

/// One cause on one line: `warning MissingMetrics: 1 of 4 pods have no sample ...`.
pub(crate) fn cause_line(d: &Diagnostic) -> String {
    format!(
        "{} {}: {}",
        severity(d.severity),
        shown(&d.code),
        shown(&d.message)
    )
}

/// The decision: `current → desired`, and the summary without that arrow.
pub(crate) fn arrow_and_summary(report: &Report) -> (String, &str) {
    let arrow = format!("{} → {}", report.current_replicas, report.desired_replicas);
    let summary = report
        .decision
        .summary
        .strip_prefix(&format!("{arrow}: "))
        .unwrap_or(&report.decision.summary);
    (arrow, summary)
}

/// The first WHY line: the first named cause, else the decision's sentence.
pub fn why_line(report: &Report) -> String {
    match report.diagnostics.first() {
        Some(d) => cause_line(d),
        None => shown(arrow_and_summary(report).1).into_owned(),
    }
}

/// The lines every text output of one sync starts with, wrapped to `width`: the decision line,
/// then the first WHY line indented by two.
pub fn lines(report: &Report, width: u16) -> Vec<String> {
    let mut out = wrap_indented(&decision_line(report), width, "", "  ");
    out.extend(wrap_indented(&why_line(report), width, "  ", "  "));
    out
}

/// `--brief` (`-o summary`): the two lines, then one line per other cause, each cut to `width`.
pub fn brief(report: &Report, width: u16) -> String {
    let mut out = String::new();
    for line in lines(report, width) {
        out.push_str(&line);
        out.push('\n');
    }
    for d in report.diagnostics.iter().skip(1) {
        out.push_str(&cut(&format!("  {}", cause_line(d)), usize::from(width)));
        out.push('\n');
    }
    out
}

/// `text` cut to `width` characters, ending in `…` when cut.
pub(crate) fn cut(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut s: String = text.chars().take(width.saturating_sub(1)).collect();
    s.push('…');
    s
}

/// Greedy word wrap: the first line starts with `first`, the others with `rest`.
pub(crate) fn wrap_indented(text: &str, width: u16, first: &str, rest: &str) -> Vec<String> {
    let width = usize::from(width).max(20);
    let mut lines = Vec::new();
    let mut line = first.to_string();
    let mut len = first.chars().count();
    let mut empty = true;
    for word in text.split(' ') {
        let w = word.chars().count();
        if !empty && len + 1 + w > width {
            lines.push(std::mem::replace(&mut line, rest.to_string()));
            len = rest.chars().count();
            empty = true;
        }
        if !empty {
            line.push(' ');
            len += 1;
        }
        line.push_str(word);
        len += w;
        empty = false;
    }
    lines.push(line);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_keeps_every_line_within_the_width_and_indents_the_rest() {
        let text = "scale up (cpu resource utilization (percentage of request) above target). \
                    Holds 6 replicas while cpu utilization is 42%–55%";
        let lines = wrap_indented(text, 40, "  ", "  ");
        assert!(lines.len() > 2, "{lines:?}");
        for l in &lines {
            assert!(l.chars().count() <= 40, "{l}");
            assert!(l.starts_with("  ") && !l.starts_with("   "), "{l}");
        }
        assert_eq!(
            lines
                .join(" ")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
            text
        );
    }

    #[test]
    fn cut_ends_in_an_ellipsis_only_when_cut() {
        assert_eq!(cut("abcdef", 6), "abcdef");
        assert_eq!(cut("abcdefg", 6), "abcde…");
    }
}
