//! `/calc`, the calculator page of `hpacalc serve --offline`: pure functions of the forms' values
//! and the `Report` (or the input error) to one self-contained HTML page. No script runs; the
//! `-o json` report is embedded in `<script type="application/json" id="hpacalc-data">` for
//! tests and scripts. Every value is escaped.

use std::fmt::Write;

use crate::render::html::{headline, report_details};
use crate::report::{HoldBand, Report};

/// What the forms hold, to show them again with the answer.
#[derive(Debug, Clone, Default)]
pub struct Form {
    /// The GET form's fields: (id, label, value).
    pub uniform: Vec<(&'static str, &'static str, String)>,
    /// The POST form's pasted texts: (id, text).
    pub pasted: Vec<(&'static str, String)>,
    /// The `now` field, as given.
    pub now: String,
    /// For the uniform case: the equivalent command and the files it reads (name, text).
    pub command: Option<(String, Vec<(String, String)>)>,
    /// The server has a cluster: the pages link to the fleet.
    pub fleet: bool,
    /// The same case in the simulator (a link), when it has one.
    pub simulate: Option<String>,
}

/// What the page answers.
#[derive(Debug, Clone, Copy)]
pub enum Answer<'a> {
    /// Nothing asked yet.
    Empty,
    Report(&'a Report),
    /// The CLI's located message (`{err:#}`), and which form it is about (`uniform`, `paste`).
    Error(&'a str, &'a str),
}

pub use crate::render::escape::{html as esc, script_json};

const STYLE: &str = r"
body { font: 14px/1.45 system-ui, sans-serif; color: #24292f; margin: 24px auto;
  max-width: 1200px; padding: 0 16px; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin: 20px 0 8px; }
.forms { display: flex; gap: 24px; flex-wrap: wrap; }
.forms form { flex: 1 1 420px; border: 1px solid #d8dee4; padding: 12px; }
label { display: block; margin: 4px 0; } input[type=text] { width: 7em; }
textarea { width: 100%; font: 12px monospace; }
table { border-collapse: collapse; width: 100%; margin-bottom: 12px; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid #d8dee4;
  vertical-align: top; white-space: pre-wrap; }
thead th { background: #f6f8fa; }
.why tr.error td:first-child { color: #cf222e; font-weight: 600; }
.why tr.warning td:first-child { color: #9a6700; font-weight: 600; }
.decision { font-size: 16px; }
#answer { border: 1px solid #d8dee4; padding: 4px 12px; margin-bottom: 12px; }
.first-why.error b { color: #cf222e; } .first-why.warning b { color: #9a6700; }
.error { color: #cf222e; white-space: pre-wrap; border-left: 3px solid #cf222e; padding: 4px 8px; }
pre { background: #f6f8fa; padding: 8px; overflow: auto; }
nav { margin-bottom: 8px; } nav a { color: #0969da; }
";

/// The start of every page: its title, the common style and `extra`, and the links between the
/// pages (`fleet`: the server has a cluster).
pub fn head(title: &str, extra: &str, fleet: bool) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>hpacalc: {}</title><style>{STYLE}{extra}</style></head><body>\n<nav>",
        esc(title)
    );
    if fleet {
        out.push_str("<a href=\"/\" id=\"nav-fleet\">Fleet</a> · ");
    }
    out.push_str(
        "<a href=\"/calc\" id=\"nav-calc\">Calculator</a> · \
         <a href=\"/simulate\" id=\"nav-simulate\">Simulator</a></nav>\n",
    );
    out
}

/// The whole page.
pub fn calc(form: &Form, answer: Answer<'_>) -> String {
    let mut out = head("the HPA calculator", "", form.fleet);
    out.push_str(
        "<h1>The HPA calculator</h1>\n<p>What the \
         HorizontalPodAutoscaler controller does at its next sync, computed by hpacalc's \
         engine.</p>\n<div class=\"forms\">\n",
    );
    let error = |which: &str| match answer {
        Answer::Error(message, about) if about == which => Some(message),
        _ => None,
    };
    if let Answer::Report(report) = answer {
        // The answer before the forms: what a person came for, without scrolling.
        let _ = writeln!(
            out,
            "<section id=\"answer\"><h2>{}</h2>",
            esc(&report_title(report))
        );
        headline(&mut out, report);
        out.push_str(
            "<p><a href=\"#report\">Its steps, as the controller takes them</a></p></section>\n",
        );
    }
    uniform_form(&mut out, form, error("uniform"));
    paste_form(&mut out, form, error("paste"));
    out.push_str("</div>\n");
    if let Answer::Report(report) = answer {
        report_section(&mut out, form, report);
    }
    out.push_str("</body></html>\n");
    out
}

/// A labelled one-line field of a form.
pub fn text_field(out: &mut String, id: &str, label: &str, value: &str) {
    let _ = writeln!(
        out,
        "<label for=\"{id}\">{} <input type=\"text\" id=\"{id}\" name=\"{id}\" \
         value=\"{}\"></label>",
        esc(label),
        esc(value)
    );
}

/// A labelled text area of a form (the newline after the tag keeps a text's first newline).
pub fn text_area(out: &mut String, id: &str, label: &str, rows: u8, text: &str) {
    let _ = writeln!(
        out,
        "<label for=\"{id}\">{}</label><textarea id=\"{id}\" name=\"{id}\" rows=\"{rows}\">\n{}\
         </textarea>",
        esc(label),
        esc(text)
    );
}

/// `HPA ns/name → Kind/name · Kubernetes 1.37 rules · now`: a report's heading.
pub fn report_title(report: &Report) -> String {
    format!(
        "HPA {} → {} · Kubernetes {} rules · {}",
        report.hpa, report.target, report.kube_version, report.now
    )
}

/// The embedded JSON of a page, which no browser runs.
pub fn data_script(out: &mut String, id: &str, json: &str) {
    let _ = writeln!(
        out,
        "<script type=\"application/json\" id=\"{id}\">{}</script>",
        script_json(json)
    );
}

fn error_box(out: &mut String, message: Option<&str>) {
    if let Some(message) = message {
        let _ = writeln!(
            out,
            "<p class=\"error\" id=\"error\" role=\"alert\">{}</p>",
            esc(message)
        );
    }
}

/// The uniform case: a GET form, every value in the URL.
fn uniform_form(out: &mut String, form: &Form, error: Option<&str>) {
    out.push_str("<form method=\"get\" action=\"/calc\" id=\"uniform\"><h2>Every pod alike</h2>\n");
    error_box(out, error);
    for (id, label, value) in &form.uniform {
        if *id == "behavior" {
            text_area(out, id, label, 4, value);
        } else {
            text_field(out, id, label, value);
        }
    }
    let _ = writeln!(
        out,
        "<label for=\"now-uniform\">now (RFC 3339, optional) <input type=\"text\" \
         id=\"now-uniform\" name=\"now\" value=\"{}\" style=\"width: 14em\"></label>\n\
         <button type=\"submit\" id=\"calculate\">Calculate</button></form>",
        esc(&form.now)
    );
}

/// Pasted text: a POST form.
fn paste_form(out: &mut String, form: &Form, error: Option<&str>) {
    out.push_str(
        "<form method=\"post\" action=\"/calc\" id=\"paste\" \
         enctype=\"application/x-www-form-urlencoded\"><h2>Paste</h2>\n",
    );
    error_box(out, error);
    let labels = [
        (
            "hpa",
            "HPA: a manifest, describe text, a get-hpa table or a ScaledObject",
        ),
        (
            "pods",
            "pods: samples CSV, kubectl get pods -o json|yaml (optional)",
        ),
        (
            "metrics",
            "metrics: kubectl top pods text or PodMetrics JSON (optional)",
        ),
        (
            "events",
            "events: kubectl get events or describe's Events (optional)",
        ),
    ];
    for (id, label) in labels {
        let text = form
            .pasted
            .iter()
            .find(|(i, _)| *i == id)
            .map_or("", |(_, t)| t.as_str());
        text_area(out, id, label, if id == "hpa" { 10 } else { 4 }, text);
    }
    let _ = writeln!(
        out,
        "<label for=\"now\">now (RFC 3339, optional) <input type=\"text\" id=\"now\" \
         name=\"now\" value=\"{}\" style=\"width: 14em\"></label>\n\
         <button type=\"submit\" id=\"explain\">Explain</button></form>",
        esc(&form.now)
    );
}

/// One metric's hold band, as a sentence.
pub fn band_text(band: &HoldBand) -> String {
    let high = band
        .high
        .as_ref()
        .map_or_else(|| "any higher value".to_string(), ToString::to_string);
    let mut text = format!("the count holds from {} to {high}", band.low);
    if let Some(below) = &band.below {
        let _ = write!(text, "; at {} it becomes {}", below.value, below.replicas);
    }
    if let Some(above) = &band.above {
        let _ = write!(text, "; at {} it becomes {}", above.value, above.replicas);
    }
    text
}

/// The answer: the decision, the steps, WHY, the hold band, the command, the JSON.
fn report_section(out: &mut String, form: &Form, report: &Report) {
    let _ = writeln!(
        out,
        "<section id=\"report\"><h2>The steps, as the controller takes them</h2>"
    );
    report_details(out, report);
    let bands: Vec<_> = report
        .metrics
        .iter()
        .filter_map(|m| m.hold_band.as_ref().map(|b| (&m.name, b)))
        .collect();
    if !bands.is_empty() {
        out.push_str("<h3>Hold band</h3><ul id=\"hold-band\">\n");
        for (name, band) in bands {
            let _ = writeln!(out, "<li>{}: {}</li>", esc(name), esc(&band_text(band)));
        }
        out.push_str("</ul>\n");
    }
    if let Some(href) = &form.simulate {
        let _ = writeln!(
            out,
            "<p><a id=\"to-simulator\" href=\"{}\">The same pods over time, in the simulator \
             (what if the load doubles?)</a></p>",
            esc(href)
        );
    }
    if let Some((command, files)) = &form.command {
        let _ = writeln!(
            out,
            "<h3>The same on the command line</h3><pre id=\"command\">{}</pre>",
            esc(command)
        );
        for (name, text) in files {
            let _ = writeln!(out, "<p>{}:</p><pre>{}</pre>", esc(name), esc(text));
        }
    }
    let json = serde_json::to_string_pretty(report).unwrap_or_default();
    let _ = writeln!(
        out,
        "<details><summary>The -o json report</summary><pre>{}</pre></details>",
        esc(&json)
    );
    data_script(out, "hpacalc-data", &json);
    out.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_is_escaped_and_the_json_cannot_end_its_script() {
        assert_eq!(
            esc("<script>\u{1b}[31m'\"&"),
            "&lt;script&gt;\\u{1b}[31m&#39;&quot;&amp;"
        );
        assert_eq!(
            script_json(r#"{"a":"</script>"}"#),
            r#"{"a":"\u003c/script\u003e"}"#
        );
    }

    #[test]
    fn the_decision_and_the_first_why_come_before_the_forms_and_the_steps() {
        use crate::calc::testing::{cpu_utilization, scenario};
        let mut s = scenario(vec![cpu_utilization(50)], 4, 900);
        s.hpa.max_replicas = 5;
        let report = crate::calc::evaluate(&s);
        let first = report
            .diagnostics
            .first()
            .expect("capped at max: a named cause");
        let page = calc(&Form::default(), Answer::Report(&report));
        let decision = page.find("class=\"decision").unwrap();
        let why = page.find("class=\"first-why").unwrap();
        let severity = crate::render::html::severity_name(first.severity);
        assert!(page[why..].starts_with(&format!(
            "class=\"first-why {severity}\"><b>{severity} {}</b>",
            first.code
        )));
        let forms = page.find("id=\"uniform\"").unwrap();
        let steps = page.find("class=\"steps\"").unwrap();
        assert!(decision < why && why < forms && forms < steps, "{page}");
        assert!(page[decision..].contains(&format!(
            "<b>{} → {}</b>",
            report.current_replicas, report.desired_replicas
        )));
        assert_eq!(page.matches("class=\"decision").count(), 1);
    }

    #[test]
    fn an_error_is_shown_beside_its_form() {
        let form = Form {
            pasted: vec![("hpa", "<script>alert(1)</script>".to_string())],
            ..Form::default()
        };
        let page = calc(&form, Answer::Error("hpa:1:1: <bad>", "paste"));
        assert!(page.contains("hpa:1:1: &lt;bad&gt;"));
        assert!(!page.contains("<script>alert"));
        assert!(page.contains("id=\"explain\""));
    }
}
