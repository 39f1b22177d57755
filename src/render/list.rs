//! `hpacalc -n NAMESPACE` and `hpacalc -A`: every HPA in the style of `kubectl get hpa`, each
//! with hpacalc's decision and its first WHY line. The rows are the audit's reports
//! (`AuditReport`); `--brief` is each HPA's decision line. Pure: `&AuditReport -> String`.

use std::fmt::Write;

use super::table::{new_table, push_table};
use crate::render::escape::terminal as shown;
use crate::render::headline::{decision_line, severity};
use crate::report::Report;
use crate::report::fleet::AuditReport;

/// Which columns: NAMESPACE with `-A`, MINPODS/MAXPODS and every cause with `-o wide`.
#[derive(Debug, Clone, Copy)]
pub struct Columns {
    pub namespaces: bool,
    pub wide: bool,
}

/// `cpu: 80%/50%`, as kubectl's TARGETS column writes each metric.
fn targets(r: &Report) -> String {
    let cells: Vec<String> = (r.metrics.iter())
        .map(|m| {
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
                (Some(u), _, _) => format!("{u}%"),
                (None, Some(v), _) | (None, None, Some(v)) => v.clone(),
                (None, None, None) => "<unknown>".into(),
            };
            format!("{}: {current}/{target}", m.name)
        })
        .collect();
    cells.join(", ")
}

/// The first WHY line of a row: the first named cause, else the decision's first sentence.
fn why(r: &Report) -> String {
    match r.diagnostics.first() {
        Some(d) => format!("{} {}: {}", severity(d.severity), d.code, d.message),
        None => {
            let sentence = crate::render::table::decision_line(r).1;
            sentence.split(". ").next().unwrap_or(sentence).to_string()
        }
    }
}

/// The table: one row per HPA, sorted by namespace and name, then the audit's counts.
pub fn table(audit: &AuditReport, columns: Columns, width: u16) -> String {
    let mut header = Vec::new();
    if columns.namespaces {
        header.push("NAMESPACE");
    }
    header.extend([
        "NAME",
        "REFERENCE",
        "CURRENT → DESIRED",
        "STATUS DESIRED",
        "TARGETS",
    ]);
    if columns.wide {
        header.extend(["MINPODS", "MAXPODS", "CAUSES"]);
    }
    header.push("WHY");
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    let split = |hpa: &str| -> (String, String) {
        let (ns, name) = hpa.split_once('/').unwrap_or(("", hpa));
        (ns.to_string(), name.to_string())
    };
    for r in &audit.hpas {
        let (ns, name) = split(&r.hpa);
        let status = (r.status_comparison.as_ref())
            .and_then(|s| s.desired_replicas)
            .map_or_else(|| "<none>".to_string(), |d| d.status.to_string());
        let mut cells = Vec::new();
        if columns.namespaces {
            cells.push(ns);
        }
        cells.extend([
            name,
            r.target.clone(),
            format!("{} → {}", r.current_replicas, r.desired_replicas),
            status,
            targets(r),
        ]);
        if columns.wide {
            let codes: Vec<&str> = r.diagnostics.iter().map(|d| d.code.as_str()).collect();
            cells.extend([
                r.min_replicas.to_string(),
                r.max_replicas.to_string(),
                codes.join(", "),
            ]);
        }
        cells.push(why(r));
        rows.push((r.hpa.clone(), cells));
    }
    for u in &audit.unevaluated {
        let (ns, name) = split(&u.hpa);
        let mut cells = Vec::new();
        if columns.namespaces {
            cells.push(ns);
        }
        cells.extend([
            name,
            u.target.clone(),
            "not evaluated".into(),
            "<none>".into(),
            String::new(),
        ]);
        if columns.wide {
            cells.extend([
                u.min_replicas.to_string(),
                u.max_replicas.to_string(),
                String::new(),
            ]);
        }
        cells.push(u.error.clone());
        rows.push((u.hpa.clone(), cells));
    }
    rows.sort();
    let mut out = String::new();
    if rows.is_empty() {
        out.push_str("No HPAs found.\n");
        return out;
    }
    let mut t = new_table(&header, width);
    for (_, cells) in rows {
        t.add_row(cells);
    }
    push_table(&mut out, &t);
    let _ = writeln!(
        out,
        "\n{}",
        crate::render::fleet::summary_line(&audit.summary)
    );
    out
}

/// `--brief`: each HPA's decision line (`web: 6 → 10 scale up — cpu 80% of 50% target`),
/// namespaced with `-A`, sorted.
pub fn brief(audit: &AuditReport, columns: Columns) -> String {
    let mut lines: Vec<(String, String)> = (audit.hpas.iter())
        .map(|r| {
            let line = decision_line(r);
            let ns = r.hpa.split_once('/').map_or("", |(ns, _)| ns);
            let line = if columns.namespaces {
                format!("{}/{line}", shown(ns))
            } else {
                line
            };
            (r.hpa.clone(), line)
        })
        .chain(audit.unevaluated.iter().map(|u| {
            (
                u.hpa.clone(),
                format!("{}: not evaluated — {}", shown(&u.hpa), shown(&u.error)),
            )
        }))
        .collect();
    lines.sort();
    let mut out = String::new();
    for (_, line) in lines {
        out.push_str(&line);
        out.push('\n');
    }
    out
}
