//! `--html FILE`: one self-contained page of a simulation (inline CSS, JS and SVG; nothing is
//! fetched): the summary, the chart, the timeline, and for a chosen sync its full step-by-step
//! report, the same `Report` the single-sync table shows (`calc::evaluate`, built by the
//! simulation's observer from the cluster as that sync saw it).
//!
//! Memory stays bounded on long runs: each kept report is rendered to an HTML fragment as soon
//! as its sync ran and the `Report` is dropped. A run of at most `MAX_REPORTS` syncs keeps every
//! sync's report; a longer one keeps only the syncs that changed the replica count or the
//! controller's reason (the first `MAX_REPORTS` of them), and the page says so for the others.
//! Every text that comes from the inputs is escaped.

use std::fmt::Write;

use crate::calc::simulate::{Simulation, SyncRow, clock};
use crate::render::chart::{self, esc};
use crate::render::table::{decision_line, listed_steps, nodes_rows};
use crate::render::timeline::{LoadUnit, cells, header, load_unit, summary_lines};
use crate::report::{Report, Severity};

/// The most reports a page keeps.
pub const MAX_REPORTS: usize = 1000;

/// The syncs' reports a page keeps, rendered; fed by `calc::simulate::run_observed`.
#[derive(Debug, Default)]
pub struct SyncReports {
    every: bool,
    /// (sync number from 1, the report as HTML).
    kept: Vec<(usize, String)>,
    seen: usize,
    last_reason: Option<String>,
}

impl SyncReports {
    /// For a run of `syncs` syncs.
    pub fn new(syncs: usize) -> SyncReports {
        SyncReports {
            every: syncs <= MAX_REPORTS,
            ..SyncReports::default()
        }
    }

    /// Sees one sync; builds and keeps its report when the policy keeps it.
    pub fn observe(&mut self, row: &SyncRow, build: &dyn Fn() -> Report) {
        self.seen += 1;
        let changed = row.desired_replicas != row.replicas
            || row.reason != self.last_reason
            || self.seen == 1;
        self.last_reason.clone_from(&row.reason);
        if self.kept.len() < MAX_REPORTS && (self.every || changed) {
            self.kept
                .push((self.seen, report_fragment(self.seen, row, &build())));
        }
    }
}

/// One sync's report as HTML: the steps, the named causes, the decision, the nodes and the
/// assumptions, in the table's order.
fn report_fragment(number: usize, row: &SyncRow, report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<section class="report" id="r{number}" hidden><h3>Sync {number} at {}: {} → {}</h3>"#,
        clock(row.time),
        report.current_replicas,
        report.desired_replicas
    );
    report_body(&mut out, report);
    out.push_str("</section>\n");
    out
}

/// A report as HTML, every text escaped: the answer first (`headline`), then the steps, the
/// named causes, the nodes and the assumptions: the simulation page's, the calculator's
/// (`render::page`) and the cluster's (`render::fleet_page`).
pub(crate) fn report_body(out: &mut String, report: &Report) {
    headline(out, report);
    report_details(out, report);
}

/// The answer a person reads first: the decision (`6 → 10 scale up: ...`) and the first WHY
/// line (the most severe named cause, as the table's WHY orders them), above the steps.
pub(crate) fn headline(out: &mut String, report: &Report) {
    let (arrow, summary) = decision_line(report);
    let _ = writeln!(
        out,
        r#"<p class="decision {}"><b>{arrow}</b> {}</p>"#,
        esc(&report.decision.change),
        esc(summary)
    );
    if let Some(d) = report.diagnostics.first() {
        let severity = severity_name(d.severity);
        let _ = writeln!(
            out,
            r#"<p class="first-why {severity}"><b>{severity} {}</b>: {}</p>"#,
            esc(&d.code),
            esc(&d.message)
        );
    }
}

pub(crate) fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

/// The rest of a report after its headline: the steps, every named cause with its fix, the
/// nodes and the assumptions.
pub(crate) fn report_details(out: &mut String, report: &Report) {
    out.push_str(
        "<table class=\"steps\"><thead><tr><th>Phase</th><th>Step</th><th>Detail</th></tr>\
         </thead><tbody>\n",
    );
    let mut last_phase = "";
    for s in listed_steps(report) {
        let phase = if s.phase == last_phase { "" } else { &s.phase };
        last_phase = &s.phase;
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(phase),
            esc(&s.title),
            esc(&s.detail)
        );
    }
    out.push_str("</tbody></table>\n");
    if !report.diagnostics.is_empty() {
        out.push_str(
            "<table class=\"why\"><thead><tr><th>Why</th><th></th><th>Detail</th></tr></thead>\
             <tbody>\n",
        );
        for d in &report.diagnostics {
            let severity = severity_name(d.severity);
            let fix = if d.fix.is_empty() {
                String::new()
            } else {
                format!("<br>fix: {}", esc(&d.fix))
            };
            let _ = writeln!(
                out,
                r#"<tr class="{severity}"><td>{severity}</td><td>{}</td><td>{}{fix}</td></tr>"#,
                esc(&d.code),
                esc(&d.message)
            );
        }
        out.push_str("</tbody></table>\n");
    }
    if let Some(nodes) = &report.nodes {
        out.push_str(
            "<table class=\"nodes\"><thead><tr><th>Nodes</th><th>Detail</th></tr></thead><tbody>\n",
        );
        for r in nodes_rows(nodes) {
            out.push_str("<tr>");
            for cell in r {
                let _ = write!(out, "<td>{}</td>", esc(&cell));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody></table>\n");
    }
    if !report.assumptions.is_empty() {
        out.push_str("<h4>Assumptions</h4><ul>\n");
        for a in &report.assumptions {
            let _ = writeln!(out, "<li>{}</li>", esc(a));
        }
        out.push_str("</ul>\n");
    }
}

const STYLE: &str = r##"
:root { color-scheme: light; --muted: #57606a; --line: #d8dee4; --pick: #fff3c4; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
  color: #24292f; margin: 24px auto; max-width: 1280px; padding: 0 16px; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 24px 0 8px; }
h3 { font-size: 15px; margin: 0 0 8px; } h4 { margin: 12px 0 4px; }
.muted { color: var(--muted); } .notice { background: #f6f8fa; padding: 8px 12px; }
#chart svg { max-width: 100%; height: auto; cursor: crosshair; }
.columns { display: flex; gap: 16px; align-items: flex-start; }
.columns > div { flex: 1 1 0; min-width: 0; }
.columns > div:first-child { flex-grow: 1.25; }
#timeline-box { position: relative; max-height: 640px; overflow: auto;
  border: 1px solid var(--line); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--line);
  vertical-align: top; white-space: pre-wrap; }
thead th { position: sticky; top: 0; background: #f6f8fa; }
#timeline { font-size: 13px; }
#timeline td { white-space: nowrap; font-variant-numeric: tabular-nums; }
#timeline tbody tr { cursor: pointer; }
#timeline tbody tr:hover { background: #f6f8fa; }
#timeline tr.scaled td:nth-child(9) { font-weight: 600; }
#timeline tr.chosen { background: var(--pick); outline: 2px solid #d4a72c; }
.report table { margin-bottom: 12px; }
.steps td:first-child { color: var(--muted); }
.why tr.error td:first-child { color: #cf222e; font-weight: 600; }
.why tr.warning td:first-child { color: #9a6700; font-weight: 600; }
.decision { font-size: 15px; } .decision b { font-size: 16px; }
.first-why.error b { color: #cf222e; } .first-why.warning b { color: #9a6700; }
nav button { font: inherit; margin-right: 6px; }
"##;

/// Chooses the sync named by the URL's `#sync=N` (or, without one, the first that changed the
/// replica count), shows its report, marks its row; a click on a row or the chart chooses one.
const SCRIPT: &str = r##"
(function () {
  var rows = Array.prototype.slice.call(document.querySelectorAll("#timeline tbody tr"));
  var chart = document.getElementById("chart");
  var empty = document.getElementById("not-kept");
  var shown = null;
  function show(n) {
    if (!(n >= 1 && n <= rows.length)) { n = Number(document.body.dataset.first); }
    if (shown) { shown.hidden = true; }
    rows.forEach(function (r) { r.classList.remove("chosen"); });
    var row = rows[n - 1];
    row.classList.add("chosen");
    var report = document.getElementById("r" + n);
    document.getElementById("chosen").textContent =
      "Sync " + n + " of " + rows.length + " at " + row.dataset.clock;
    empty.hidden = !!report;
    if (report) { report.hidden = false; shown = report; } else { shown = null; }
    document.documentElement.dataset.shown = String(n);
    var box = document.getElementById("timeline-box");
    box.scrollTop = row.offsetTop - box.clientHeight / 2;
  }
  function fromHash() {
    var m = /^#sync=(\d+)$/.exec(location.hash);
    show(m ? Number(m[1]) : NaN);
  }
  function choose(n) { location.hash = "sync=" + n; }
  document.querySelector("#timeline tbody").addEventListener("click", function (e) {
    var tr = e.target.closest("tr");
    if (tr) { choose(Number(tr.dataset.sync)); }
  });
  chart.addEventListener("click", function (e) {
    var svg = chart.querySelector("svg");
    var box = svg.getBoundingClientRect();
    var scale = Number(svg.getAttribute("width")) / box.width;
    var x = (e.clientX - box.left) * scale;
    var d = chart.dataset;
    var t = (x - Number(d.x0)) / (Number(d.x1) - Number(d.x0)) * Number(d.duration);
    var best = 1, gap = Infinity;
    rows.forEach(function (r) {
      var g = Math.abs(Number(r.dataset.time) - t);
      if (g < gap) { gap = g; best = Number(r.dataset.sync); }
    });
    choose(best);
  });
  document.getElementById("prev").addEventListener("click", function () {
    choose(Math.max(1, Number(document.documentElement.dataset.shown) - 1));
  });
  document.getElementById("next").addEventListener("click", function () {
    choose(Math.min(rows.length, Number(document.documentElement.dataset.shown) + 1));
  });
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
"##;

/// The page.
pub fn render(sim: &Simulation, reports: &SyncReports) -> String {
    let mut out = String::new();
    let title = format!("HPA {} → {}", sim.hpa, sim.target);
    let _ = writeln!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}: simulation</title>\n<style>{STYLE}</style>\n</head>",
        esc(&title)
    );
    let first = sim
        .timeline
        .iter()
        .position(|r| r.desired_replicas != r.replicas)
        .map_or(1, |i| i + 1);
    let _ = writeln!(out, r#"<body data-first="{first}">"#);
    summary(&mut out, sim, &title);
    chart(&mut out, sim);
    out.push_str("<div class=\"columns\">\n<div>\n<h2>Timeline</h2>\n");
    timeline(&mut out, sim, 0, load_unit(sim));
    out.push_str("</div>\n<div>\n");
    chosen(&mut out, reports);
    out.push_str("</div>\n</div>\n");
    events(&mut out, sim);
    let _ = writeln!(out, "<script>{SCRIPT}</script>\n</body>\n</html>");
    out
}

/// The heading, the scenario's notice and the summary's sentences.
fn summary(out: &mut String, sim: &Simulation, title: &str) {
    let _ = writeln!(
        out,
        "<h1>{}</h1>\n<p class=\"muted\">Kubernetes {} rules · {} target {} · {} simulated, \
         sync every {}s</p>",
        esc(title),
        esc(&sim.kube_version),
        esc(&sim.metric.description),
        esc(&sim.metric.target),
        clock(sim.settings.duration_seconds),
        sim.settings.sync_period_seconds
    );
    if let Some(label) = &sim.scenario {
        let _ = writeln!(
            out,
            "<p class=\"notice\"><b>Scenario {}</b>: {}</p>",
            esc(&label.name),
            esc(&label.notice)
        );
    }
    out.push_str("<h2>Summary</h2>\n<ul>\n");
    for line in summary_lines(sim) {
        let _ = writeln!(out, "<li>{}</li>", esc(&line));
    }
    out.push_str("</ul>\n");
}

/// The SVG chart, inline, with what the script needs to map a click to a time.
fn chart(out: &mut String, sim: &Simulation) {
    let (x0, x1) = chart::plot_span();
    let _ = writeln!(
        out,
        "<h2>Chart</h2>\n<div id=\"chart\" data-x0=\"{x0}\" data-x1=\"{x1}\" \
         data-duration=\"{}\">\n{}</div>\n<p class=\"muted\">Click the chart or a row to \
         choose a sync.</p>",
        sim.settings.duration_seconds.max(1),
        chart::render(sim)
    );
}

/// The timeline table: the text table's columns, one row per sync from the `from`-th on, loads
/// in `unit`.
pub(crate) fn timeline(out: &mut String, sim: &Simulation, from: usize, unit: LoadUnit) {
    out.push_str("<div id=\"timeline-box\">\n<table id=\"timeline\"><thead><tr>");
    for h in header(sim) {
        let _ = write!(out, "<th>{h}</th>");
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for (i, row) in sim.timeline.iter().enumerate().skip(from) {
        let scaled = if row.desired_replicas == row.replicas {
            ""
        } else {
            " class=\"scaled\""
        };
        let _ = write!(
            out,
            r#"<tr data-sync="{}" data-time="{}" data-clock="{}"{scaled}>"#,
            i + 1,
            row.time,
            clock(row.time)
        );
        for c in cells(sim, unit, row) {
            let _ = write!(out, "<td>{}</td>", esc(&c));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table>\n</div>\n");
}

/// The chosen sync's place: its heading, the buttons, and every kept report (hidden).
fn chosen(out: &mut String, reports: &SyncReports) {
    out.push_str(
        "<h2 id=\"chosen\">Sync</h2>\n<nav><button id=\"prev\" type=\"button\">← \
         previous</button><button id=\"next\" type=\"button\">next →</button></nav>\n",
    );
    let _ = writeln!(
        out,
        "<p id=\"not-kept\" hidden>{}</p>",
        esc(&not_kept_text(reports))
    );
    for (_, fragment) in &reports.kept {
        out.push_str(fragment);
    }
}

/// The events between the syncs, folded.
pub(crate) fn events(out: &mut String, sim: &Simulation) {
    if sim.events.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<details><summary><h2 style=\"display:inline\">Events ({})</h2></summary>\n\
         <table><thead><tr><th>Time</th><th>By</th><th>Event</th></tr></thead><tbody>",
        sim.events.len()
    );
    for e in &sim.events {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            clock(e.time),
            esc(e.source),
            esc(&e.message)
        );
    }
    out.push_str("</tbody></table></details>\n");
}

/// What the page says for a sync whose report it did not keep.
fn not_kept_text(reports: &SyncReports) -> String {
    format!(
        "This sync's step-by-step report was not kept. This run has {} syncs, more than {}, so \
         the page keeps only the reports of the syncs that changed the replica count or the \
         controller's reason (the first {} of them; {} kept). Its row in the timeline shows \
         what it decided; a shorter --duration keeps every sync's report.",
        reports.seen,
        MAX_REPORTS,
        MAX_REPORTS,
        reports.kept.len()
    )
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::calc::simulate::run_observed;

    fn page(scenario: &str) -> (Simulation, SyncReports, Vec<(i32, i32)>) {
        let setup = crate::input::builtin::builtin_setup(scenario);
        let mut reports = SyncReports::new(setup.sync_count());
        let mut decided = Vec::new();
        let mut observe = |row: &SyncRow, build: &dyn Fn() -> Report| {
            let report = build();
            decided.push((report.current_replicas, report.desired_replicas));
            reports.observe(row, &|| report.clone());
        };
        let sim = run_observed(&setup, Some(&mut observe));
        (sim, reports, decided)
    }

    #[test]
    fn each_syncs_report_is_the_single_sync_evaluation_of_what_that_sync_decided() {
        for scenario in crate::input::builtin::ALL {
            let (sim, reports, decided) = page(scenario.name);
            let rows: Vec<(i32, i32)> = sim
                .timeline
                .iter()
                .map(|r| (r.replicas, r.desired_replicas))
                .collect();
            assert_eq!(decided, rows, "{}", scenario.name);
            // A short run keeps every sync's report.
            assert_eq!(reports.kept.len(), sim.timeline.len(), "{}", scenario.name);
        }
    }

    #[test]
    fn the_page_holds_the_chart_the_timeline_and_every_report_hidden_until_chosen() {
        let (sim, reports, _) = page("real-drop");
        let html = render(&sim, &reports);
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert_eq!(html.matches("<tr data-sync=").count(), 41);
        assert_eq!(html.matches("<section class=\"report\"").count(), 41);
        assert_eq!(
            html.matches(" hidden>").count(),
            42,
            "41 reports + the not-kept note"
        );
        assert!(html.contains(
            r#"<section class="report" id="r29" hidden><h3>Sync 29 at 7:00: 8 → 4</h3>"#
        ));
        // Nothing to fetch: no external script, style, image or font.
        for outside in ["src=", "<link", "@import", "url(", "href=\"http"] {
            assert!(!html.contains(outside), "{outside}");
        }
    }

    #[test]
    fn text_from_the_inputs_is_escaped() {
        let (mut sim, reports, _) = page("real-drop");
        sim.hpa = "shop/<script>alert(1)</script>".to_string();
        if let Some(label) = sim.scenario.as_mut() {
            label.notice = "a \"quoted\" & <b>bold</b> notice".to_string();
        }
        let html = render(&sim, &reports);
        assert!(!html.contains("<script>alert"));
        assert!(html.contains("shop/&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(html.contains("a &quot;quoted&quot; &amp; &lt;b&gt;bold&lt;/b&gt; notice"));
        assert_eq!(html.matches("<script>").count(), 1);
    }

    #[test]
    fn a_long_run_keeps_only_the_syncs_that_change_something_and_builds_no_other() {
        let (sim, _, _) = page("real-drop");
        let one = crate::calc::evaluate(&crate::calc::testing::scenario(
            vec![crate::calc::testing::cpu_utilization(50)],
            2,
            500,
        ));
        let built = Cell::new(0);
        let mut reports = SyncReports::new(MAX_REPORTS + 1);
        for row in &sim.timeline {
            reports.observe(row, &|| {
                built.set(built.get() + 1);
                one.clone()
            });
        }
        // The first sync, the syncs whose reason changed (ScaleDownStabilized from 2:00, the
        // scale-down at 7:00 with none) and nothing else.
        let kept: Vec<usize> = reports.kept.iter().map(|(n, _)| *n).collect();
        let changed: Vec<usize> = sim
            .timeline
            .iter()
            .enumerate()
            .filter(|(i, r)| {
                *i == 0
                    || r.desired_replicas != r.replicas
                    || sim.timeline[i - 1].reason != r.reason
            })
            .map(|(i, _)| i + 1)
            .collect();
        assert_eq!(kept, changed);
        assert!(kept.len() < 6, "{kept:?}");
        assert_eq!(built.get(), kept.len());
        assert!(not_kept_text(&reports).contains("This run has 41 syncs, more than 1000"));
    }
}
