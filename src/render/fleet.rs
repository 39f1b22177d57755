//! `hpacalc audit` output: one row per HPA, then the findings and a summary line; or the
//! `AuditReport` as JSON or YAML. Pure: `&AuditReport -> String`.

use std::fmt::Write;

use super::table::{new_table, push_table};
use crate::report::fleet::AuditReport;
use crate::report::{MetricReport, Severity};

/// One row of the HPA table.
struct Row {
    key: String,
    cells: Vec<String>,
}

/// `cpu 72%/60%`: a metric's current value against its target.
fn metric_cell(m: &MetricReport) -> String {
    let current = match (
        m.current_utilization,
        &m.current_average_value,
        &m.current_value,
    ) {
        (Some(u), _, _) => format!("{u}%"),
        (None, Some(v), _) | (None, None, Some(v)) => v.clone(),
        (None, None, None) => "<unknown>".into(),
    };
    let t = &m.target;
    let target = match (t.average_utilization, &t.average_value, &t.value) {
        (Some(u), _, _) => format!("{u}%"),
        (None, Some(v), _) | (None, None, Some(v)) => v.clone(),
        (None, None, None) => "?".into(),
    };
    format!("{} {current}/{target}", m.name)
}

pub fn table(audit: &AuditReport, wide: bool, width: u16) -> String {
    let mut header = vec![
        "NAMESPACE",
        "NAME",
        "TARGET",
        "CURRENT → DESIRED",
        "MIN/MAX",
    ];
    if wide {
        header.push("METRICS");
    }
    header.push("FINDINGS");
    let mut rows: Vec<Row> = Vec::new();
    let codes_of = |hpa: &str, diagnostics: Vec<(String, Severity)>| {
        let mut codes: Vec<(String, Severity)> = (audit.findings.iter())
            .filter(|f| f.hpa.as_deref() == Some(hpa))
            .map(|f| (f.code.clone(), f.severity))
            .chain(diagnostics)
            .collect();
        codes.sort_by_key(|(_, s)| std::cmp::Reverse(*s));
        let mut seen: Vec<String> = Vec::new();
        for (c, _) in codes {
            if !seen.contains(&c) {
                seen.push(c);
            }
        }
        seen.join(", ")
    };
    for r in &audit.hpas {
        let (ns, name) = r.hpa.split_once('/').unwrap_or(("", &r.hpa));
        let diagnostics = (r.diagnostics.iter())
            .filter(|d| d.severity >= Severity::Warning)
            .map(|d| (d.code.clone(), d.severity))
            .collect();
        let mut cells = vec![
            ns.to_string(),
            name.to_string(),
            r.target.clone(),
            format!("{} → {}", r.current_replicas, r.desired_replicas),
            format!("{}/{}", r.min_replicas, r.max_replicas),
        ];
        if wide {
            let metrics: Vec<String> = r.metrics.iter().map(metric_cell).collect();
            cells.push(metrics.join(", "));
        }
        cells.push(codes_of(&r.hpa, diagnostics));
        rows.push(Row {
            key: r.hpa.clone(),
            cells,
        });
    }
    for u in &audit.unevaluated {
        let (ns, name) = u.hpa.split_once('/').unwrap_or(("", &u.hpa));
        let mut cells = vec![
            ns.to_string(),
            name.to_string(),
            u.target.clone(),
            "not evaluated".into(),
            format!("{}/{}", u.min_replicas, u.max_replicas),
        ];
        if wide {
            cells.push(String::new());
        }
        cells.push(codes_of(&u.hpa, Vec::new()));
        rows.push(Row {
            key: u.hpa.clone(),
            cells,
        });
    }
    rows.sort_by(|a, b| a.key.cmp(&b.key));
    let mut t = new_table(&header, width);
    for row in rows {
        t.add_row(row.cells);
    }
    let mut out = String::new();
    push_table(&mut out, &t);

    if !audit.findings.is_empty() {
        out.push('\n');
        let mut f = new_table(&["SEVERITY", "CODE", "HPA", "MESSAGE"], width);
        for finding in &audit.findings {
            let severity = match finding.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "info",
            };
            let mut message = finding.message.clone();
            if !finding.fix.is_empty() {
                message.push_str(&format!(" → fix: {}", finding.fix));
            }
            f.add_row(vec![
                severity.to_string(),
                finding.code.clone(),
                finding.hpa.clone().unwrap_or_default(),
                message,
            ]);
        }
        push_table(&mut out, &f);
    }
    let _ = writeln!(out, "\n{}", summary_line(&audit.summary));
    out
}

/// The counts under the tables: HPAs by what they do, findings by severity.
pub(crate) fn summary_line(s: &crate::report::fleet::AuditSummary) -> String {
    let c = &s.findings_by_severity;
    format!(
        "{} HPA(s): {} scaling up, {} scaling down, {} at max, {} failing; findings: {} error(s), \
         {} warning(s), {} info",
        s.hpas, s.scaling_up, s.scaling_down, s.at_max, s.failing, c.error, c.warning, c.info
    )
}

/// `file:12` → (`file`, 12); `file items[3]` and plain `file` → no line.
fn location(place: &str) -> (&str, Option<u64>) {
    if let Some((file, line)) = place.rsplit_once(':')
        && let Ok(n) = line.parse::<u64>()
    {
        return (file, Some(n));
    }
    (place.split(" items[").next().unwrap_or(place), None)
}

/// SARIF 2.1.0: one result per finding, at its HPA's file and line; one rule per code.
pub fn sarif(audit: &AuditReport, places: &std::collections::HashMap<String, String>) -> String {
    use serde_json::{Value, json};
    let mut rules: Vec<Value> = Vec::new();
    let mut ids: Vec<&str> = Vec::new();
    let results: Vec<Value> = audit
        .findings
        .iter()
        .map(|f| {
            if !ids.contains(&f.code.as_str()) {
                ids.push(&f.code);
                rules.push(json!({"id": f.code}));
            }
            let level = match f.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "note",
            };
            let locations: Vec<Value> = (f.hpa.as_ref().and_then(|h| places.get(h)))
                .map(|place| {
                    let (file, line) = location(place);
                    let mut physical = serde_json::Map::new();
                    physical.insert("artifactLocation".into(), json!({"uri": uri(file)}));
                    if let Some(line) = line {
                        physical.insert("region".into(), json!({"startLine": line}));
                    }
                    json!({"physicalLocation": physical})
                })
                .into_iter()
                .collect();
            json!({
                "ruleId": f.code,
                "level": level,
                "message": {"text": format!("{} Fix: {}", f.message, f.fix)},
                "locations": locations,
            })
        })
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "hpacalc",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": results,
        }],
    });
    let mut text = serde_json::to_string_pretty(&log).unwrap_or_default();
    text.push('\n');
    text
}

/// A path as a URI reference (SARIF 2.1.0 §3.10, RFC 3986): every byte but the unreserved
/// ones and `/` percent-encoded, so `charts/web#1.yaml` is `charts/web%231.yaml`.
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_a_percent_encoded_uri_reference() {
        assert_eq!(uri("charts/web#1.yaml"), "charts/web%231.yaml");
        assert_eq!(
            uri("rendered charts/a b.yaml"),
            "rendered%20charts/a%20b.yaml"
        );
        assert_eq!(uri("dir/ok-file_1.~yaml"), "dir/ok-file_1.~yaml");
        assert_eq!(uri("ü?"), "%C3%BC%3F");
    }
}
