//! The short text beside the JSON of an MCP tool's answer (`hpacalc mcp`): what a person reads
//! first, in the table's own words. One sync: the decision line and the WHY lines; a simulation:
//! its summary lines; an audit: its counts and its findings; a comparison: each configuration's
//! figures. Each reads the value only, as every renderer does. Names and messages from the
//! inputs are terminal text (`render::escape::terminal`): a line break in one cannot start a line
//! of its own.

use std::fmt::Write;

use crate::calc::simulate::Simulation;
use crate::calc::simulate::compare::Comparison;
use crate::render::compare::what_if_counts;
use crate::render::escape::terminal as shown;
use crate::render::fleet::summary_line;
use crate::render::table::decision_line;
use crate::render::timeline::summary_lines;
use crate::report::fleet::AuditReport;
use crate::report::what_if::WhatIfReport;
use crate::report::{Report, Severity};

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

/// One named cause (a diagnostic or a finding) and its fix, as the WHY section words them.
fn cause(out: &mut String, s: Severity, code: &str, message: &str, fix: &str) {
    let _ = writeln!(out, "{} {}: {}", severity(s), shown(code), shown(message));
    if !fix.is_empty() {
        let _ = writeln!(out, "  fix: {}", shown(fix));
    }
}

/// One sync: `HPA ns/name → Kind/name`, the decision line, then WHY, most severe first.
pub fn report(report: &Report) -> String {
    let (arrow, summary) = decision_line(report);
    let mut out = format!(
        "HPA {} → {}\n{arrow}  {}\n",
        shown(&report.hpa),
        shown(&report.target),
        shown(summary)
    );
    if !report.diagnostics.is_empty() {
        out.push_str("WHY\n");
    }
    for d in &report.diagnostics {
        cause(&mut out, d.severity, &d.code, &d.message, &d.fix);
    }
    for w in &report.warnings {
        let _ = writeln!(out, "warning: {}", shown(w));
    }
    out
}

/// A simulation: which HPA, and the summary the timeline ends with.
pub fn simulation(sim: &Simulation) -> String {
    let mut out = format!("HPA {} → {}\n", shown(&sim.hpa), shown(&sim.target));
    for line in summary_lines(sim) {
        let _ = writeln!(out, "{}", shown(&line));
    }
    out
}

/// An audit: the counts, then the findings, most severe first: at most `limit` of them, and how
/// many more there are.
pub fn audit(audit: &AuditReport, limit: usize) -> String {
    let mut out = format!("{}\n", summary_line(&audit.summary));
    for f in audit.findings.iter().take(limit) {
        let code = match &f.hpa {
            Some(hpa) => format!("{} {hpa}", f.code),
            None => f.code.clone(),
        };
        cause(&mut out, f.severity, &code, &f.message, &f.fix);
    }
    if let Some(more) = audit.findings.len().checked_sub(limit).filter(|n| *n > 0) {
        let _ = writeln!(out, "… {more} more finding(s): detail \"full\" lists them");
    }
    out
}

/// One sync before and after a what-if: the changes, each side's decision and WHY, and what
/// changed in between (`what_if_counts`).
pub fn what_if(r: &WhatIfReport) -> String {
    let mut out = format!("BEFORE\n{}", report(&r.before));
    let _ = writeln!(out, "WHAT IF: {}", shown(&r.changes.join(", ")));
    out.push_str(&report(&r.after));
    let _ = writeln!(out, "{}", what_if_counts(r));
    out
}

/// A comparison: each configuration's figures on one line, the base first, then the first
/// time two of them differ.
pub fn comparison(cmp: &Comparison) -> String {
    let mut out = String::new();
    for (i, c) in cmp.configurations.iter().enumerate() {
        let f = &c.figures;
        let _ = writeln!(
            out,
            "#{} {}: peak replicas {}, pod-hours {}, scale events {}, direction changes {}, \
             time above target {}s",
            i + 1,
            shown(&c.name),
            f.peak_replicas,
            f.pod_hours,
            f.scale_events,
            f.direction_changes,
            f.seconds_above_target
        );
    }
    match cmp.first_difference_seconds {
        Some(t) => {
            let _ = writeln!(out, "first difference at {t}s");
        }
        None => out.push_str("the configurations never differ\n"),
    }
    out
}
