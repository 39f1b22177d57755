//! `-o markdown`: one sync, or an audit, as a report to paste into a ticket or an incident
//! channel. The answer first (the decision line and the WHY lines), then the steps as a table.
//! Every value from the inputs goes through the Markdown encoder (`render::escape::markdown`,
//! names as code spans through `markdown_code`): a hostile name cannot open a link, HTML or a row.
//! Pure: `&Report -> String`, `&AuditReport -> String`.

use std::fmt::Write;

use crate::render::escape::{markdown as md, markdown_code as code};
use crate::render::headline::{decision_line, metric_phrase, severity};
use crate::render::table::{listed_steps, nodes_rows};
use crate::report::Report;
use crate::report::fleet::AuditReport;

/// One sync: the decision, WHY, the steps, the nodes and the assumptions.
pub fn report(r: &Report) -> String {
    let mut out = format!("### {}\n\n", md(&decision_line(r)));
    let _ = writeln!(
        out,
        "HPA {} → {} · Kubernetes {} rules · {}\n",
        code(&r.hpa),
        code(&r.target),
        md(&r.kube_version),
        md(&r.now)
    );
    let _ = writeln!(
        out,
        "**Decision:** {} → {}: {}\n",
        r.current_replicas,
        r.desired_replicas,
        md(crate::render::table::decision_line(r).1)
    );
    if !r.diagnostics.is_empty() {
        out.push_str("**Why**\n\n| severity | cause | detail | fix |\n|---|---|---|---|\n");
        for d in &r.diagnostics {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                severity(d.severity),
                code(&d.code),
                md(&d.message),
                md(&d.fix)
            );
        }
        out.push('\n');
    }
    out.push_str("| phase | step | detail |\n|---|---|---|\n");
    let mut last_phase = "";
    for s in listed_steps(r) {
        let phase = if s.phase == last_phase { "" } else { &s.phase };
        last_phase = &s.phase;
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            md(phase),
            md(&s.title),
            md(&s.detail)
        );
    }
    if let Some(nodes) = &r.nodes {
        out.push_str("\n| nodes | detail |\n|---|---|\n");
        for row in nodes_rows(nodes) {
            let cells: Vec<String> = row.iter().map(|c| md(c)).collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
    }
    if !r.assumptions.is_empty() {
        out.push_str("\n**Assumptions**\n\n");
        for a in &r.assumptions {
            let _ = writeln!(out, "- {}", md(a));
        }
    }
    out
}

/// An audit: the counts, one row per HPA with its decision line, then the findings.
pub fn audit(a: &AuditReport) -> String {
    let mut out = String::from("## hpacalc audit\n\n");
    let _ = writeln!(
        out,
        "{}\n",
        md(&crate::render::fleet::summary_line(&a.summary))
    );
    out.push_str("| HPA | target | current → desired | min/max | metrics | why |\n");
    out.push_str("|---|---|---|---|---|---|\n");
    let mut rows: Vec<(String, String)> = Vec::new();
    for r in &a.hpas {
        let metrics: Vec<String> = r.metrics.iter().map(metric_phrase).collect();
        let why = (r.diagnostics.first())
            .map(|d| format!("{} {}: {}", severity(d.severity), d.code, d.message))
            .unwrap_or_else(|| crate::render::table::decision_line(r).1.to_string());
        rows.push((
            r.hpa.clone(),
            format!(
                "| {} | {} | {} → {} | {}/{} | {} | {} |",
                code(&r.hpa),
                code(&r.target),
                r.current_replicas,
                r.desired_replicas,
                r.min_replicas,
                r.max_replicas,
                md(&metrics.join(", ")),
                md(&why)
            ),
        ));
    }
    for u in &a.unevaluated {
        rows.push((
            u.hpa.clone(),
            format!(
                "| {} | {} | not evaluated | {}/{} | | {} |",
                code(&u.hpa),
                code(&u.target),
                u.min_replicas,
                u.max_replicas,
                md(&u.error)
            ),
        ));
    }
    rows.sort();
    for (_, row) in rows {
        out.push_str(&row);
        out.push('\n');
    }
    if !a.findings.is_empty() {
        out.push_str("\n**Findings**\n\n| severity | code | HPA | message | fix |\n");
        out.push_str("|---|---|---|---|---|\n");
        let mut findings: Vec<_> = a.findings.iter().collect();
        findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
        for f in findings {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                severity(f.severity),
                code(&f.code),
                f.hpa.as_deref().map(code).unwrap_or_default(),
                md(&f.message),
                md(&f.fix)
            );
        }
    }
    out
}
