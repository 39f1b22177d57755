//! The cluster's pages of `hpacalc serve`: `/`, every HPA of the last sync at a glance, and
//! `/hpa/NS/NAME`, one HPA's report with its last hour and its events. Pure functions of the
//! audit's reports; no script runs (the fleet refreshes itself with a `<meta>` refresh at each
//! sync); `#hpacalc-data` holds the fleet summary or the `-o json` report.

use std::fmt::Write;

use crate::input::paste::events::HpaEvent;
use crate::render::history::Point;
use crate::render::html::report_body;
use crate::render::page::{band_text, data_script, esc, head, report_title};
use crate::render::series::{metric_values, summary};
use crate::report::fleet::AuditReport;
use crate::report::{Condition, Report, Severity};
use crate::time::Timestamp;

const STYLE: &str = r"
.bad { color: #cf222e; } .muted { color: #57606a; }
tr.error td:first-child { border-left: 3px solid #cf222e; }
tr.failing { background: #ffebe9; } .failing { color: #cf222e; }
.band-words { font-size: 12px; color: #57606a; } .window-hold { font-size: 12px; color: #9a6700; }
tr.warning td:first-child { border-left: 3px solid #9a6700; }
svg text { font: 10px sans-serif; fill: #57606a; }
#filters label { display: inline; margin-right: 4px; }
";

/// What `/` shows.
pub struct FleetPage<'a> {
    pub audit: &'a AuditReport,
    /// The filters, as given (`""`: all).
    pub namespace: &'a str,
    pub code: &'a str,
    /// Seconds between syncs: the page reloads at that pace.
    pub refresh: u64,
    /// When the last sync ended (RFC 3339).
    pub synced: &'a str,
}

fn worst(report: &Report) -> Option<Severity> {
    report.diagnostics.iter().map(|d| d.severity).max()
}

/// Why the HPA counts as failing (the audit's rule, `calc::fleet::assemble`): its
/// ScalingActive or AbleToScale condition is False.
pub fn failing(report: &Report) -> Option<&Condition> {
    report.conditions.iter().find(|c| {
        matches!(c.condition_type.as_str(), "ScalingActive" | "AbleToScale") && c.status == "False"
    })
}

/// A failing condition as a person reads it: `ScalingActive False (FailedGetResourceMetric):
/// message`.
fn failing_words(c: &Condition) -> String {
    format!("{} False ({}): {}", c.condition_type, c.reason, c.message)
}

fn mismatch(report: &Report) -> bool {
    report
        .status_comparison
        .as_ref()
        .is_some_and(|c| !c.matches)
}

fn severity_class(s: Option<Severity>) -> &'static str {
    match s {
        Some(Severity::Error) => "error",
        Some(Severity::Warning) => "warning",
        _ => "",
    }
}

/// The reports the filters keep: the failing first, then the most severe, then those whose
/// status disagrees.
pub fn kept<'a>(reports: &'a [Report], namespace: &str, code: &str) -> Vec<&'a Report> {
    let mut kept: Vec<&Report> = reports
        .iter()
        .filter(|r| namespace.is_empty() || r.hpa.split('/').next() == Some(namespace))
        .filter(|r| code.is_empty() || r.diagnostics.iter().any(|d| d.code == code))
        .collect();
    kept.sort_by(|a, b| {
        (failing(b).is_some(), worst(b), mismatch(b))
            .cmp(&(failing(a).is_some(), worst(a), mismatch(a)))
            .then_with(|| a.hpa.cmp(&b.hpa))
    });
    kept
}

/// What keeps the count where a band stops, in words (`HoldBand::low_held_by`'s codes).
fn held_by_words(code: &str) -> &str {
    match code {
        "minReplicas" => "minReplicas",
        "maxReplicas" => "maxReplicas",
        "stabilizationWindow" => "the stabilization window",
        "rateLimit" => "the rate limit",
        "otherMetric" => "another metric",
        "invalidMetric" => "an invalid metric",
        "recount" => "the recount of missing and unready pods",
        other => other,
    }
}

/// The stabilization window's hold, when it kept the count from the metrics' proposal:
/// `the window holds 4; the metrics ask 2`.
fn window_hold(report: &Report) -> Option<String> {
    let d = &report.decision;
    match (d.metric_proposal, d.stabilized_replicas) {
        (Some(asked), Some(held)) if asked != held => {
            Some(format!("the window holds {held}; the metrics ask {asked}"))
        }
        _ => None,
    }
}

/// The first metric's hold band in words, as its own page says it: the values that keep the
/// count and what keeps it past each open end, or why no value keeps it.
fn band_words(report: &Report) -> Option<String> {
    let metric = report.metrics.first()?;
    let Some(band) = &metric.hold_band else {
        // The metric's own "hold band" step says why no value keeps the count; with several
        // metrics the steps cannot be told apart by name, so the sentence is general.
        let step = (report.metrics.len() == 1)
            .then(|| report.steps.iter().find(|s| s.title == "hold band"))
            .flatten();
        return Some(step.map_or_else(
            || {
                format!(
                    "no value of {} alone keeps {}",
                    metric.name, report.current_replicas
                )
            },
            |s| s.detail.clone(),
        ));
    };
    let low = match (&band.below, &band.low_held_by) {
        (None, Some(by)) => format!("any lower value (held by {})", held_by_words(by)),
        _ => band.low.to_string(),
    };
    let high = match (&band.high, &band.high_held_by) {
        (Some(h), _) => h.to_string(),
        (None, Some(by)) => format!("any higher value (held by {})", held_by_words(by)),
        (None, None) => "any higher value".to_string(),
    };
    Some(format!(
        "{} keeps {} from {low} to {high}",
        metric.name, report.current_replicas
    ))
}

/// A metric's value against its hold band: the band shaded (none when no value keeps the
/// count), the target a tick, the value a bar; beneath, the band in words and the window's hold.
fn band_bar(report: &Report) -> String {
    let Some(metric) = report.metrics.first() else {
        return String::new();
    };
    let [value, target, up, down] = metric_values(metric);
    let Some(value) = value else {
        return "<span class=\"muted\">no value</span>".to_string();
    };
    let top = [Some(value), target, up, down]
        .into_iter()
        .flatten()
        .fold(0.0_f64, f64::max)
        .max(f64::MIN_POSITIVE)
        * 1.25;
    let x = |v: f64| (v / top * 160.0).clamp(0.0, 160.0);
    let mut svg = String::from(
        "<svg width=\"160\" height=\"14\" role=\"img\"><rect width=\"160\" height=\"14\" \
         fill=\"#f6f8fa\"/>",
    );
    if metric.hold_band.is_some() {
        let (low, high) = (down.map_or(0.0, x), up.map_or(160.0, x));
        let _ = write!(
            svg,
            "<rect class=\"band\" x=\"{low:.1}\" width=\"{:.1}\" height=\"14\" \
             fill=\"#dafbe1\"/>",
            (high - low).max(0.0)
        );
    }
    let _ = write!(
        svg,
        "<rect y=\"5\" width=\"{:.1}\" height=\"4\" fill=\"#0969da\"/>",
        x(value)
    );
    if let Some(t) = target {
        let _ = write!(
            svg,
            "<line x1=\"{0:.1}\" x2=\"{0:.1}\" y2=\"14\" stroke=\"#24292f\"/>",
            x(t)
        );
    }
    let words = band_words(report).unwrap_or_default();
    let hold = window_hold(report);
    let _ = write!(
        svg,
        "<title>{}: {value}; {}</title></svg><br><span class=\"band-words\">{}</span>",
        esc(&metric.name),
        esc(&words),
        esc(&words)
    );
    if let Some(hold) = hold {
        let _ = write!(svg, "<br><b class=\"window-hold\">{}</b>", esc(&hold));
    }
    svg
}

fn options(out: &mut String, id: &str, label: &str, values: &[&str], chosen: &str) {
    let _ = write!(
        out,
        "<label for=\"{id}\">{label}</label> <select id=\"{id}\" name=\"{}\"><option value=\"\">all\
         </option>",
        id.trim_start_matches("filter-")
    );
    for v in values {
        let selected = if *v == chosen { " selected" } else { "" };
        let _ = write!(out, "<option{selected}>{}</option>", esc(v));
    }
    out.push_str("</select> ");
}

/// `/`: the fleet.
pub fn fleet(page: &FleetPage<'_>) -> String {
    let mut out = head("the fleet", STYLE, true);
    out = out.replacen(
        "<title>",
        &format!(
            "<meta http-equiv=\"refresh\" content=\"{}\"><title>",
            page.refresh.max(1)
        ),
        1,
    );
    let a = page.audit;
    let _ = writeln!(
        out,
        "<h1>Every HPA</h1><p class=\"muted\" id=\"synced\">The sync of {}: {} HPA(s), {} \
         scaling up, {} down, {} at max, {} failing. This page reloads every {} s.</p>",
        esc(page.synced),
        a.summary.hpas,
        a.summary.scaling_up,
        a.summary.scaling_down,
        a.summary.at_max,
        a.summary.failing,
        page.refresh
    );
    let mut namespaces: Vec<&str> = a
        .hpas
        .iter()
        .filter_map(|r| r.hpa.split('/').next())
        .collect();
    namespaces.sort_unstable();
    namespaces.dedup();
    let mut codes: Vec<&str> = a
        .hpas
        .iter()
        .flat_map(|r| r.diagnostics.iter().map(|d| d.code.as_str()))
        .collect();
    codes.sort_unstable();
    codes.dedup();
    out.push_str("<form method=\"get\" action=\"/\" id=\"filters\">");
    options(
        &mut out,
        "filter-namespace",
        "namespace",
        &namespaces,
        page.namespace,
    );
    options(&mut out, "filter-code", "diagnostic", &codes, page.code);
    out.push_str("<button type=\"submit\" id=\"filter\">Filter</button></form>\n");
    out.push_str(
        "<table id=\"hpas\"><thead><tr><th>HPA</th><th>replicas</th><th>why</th>\
         <th>metric and hold band</th><th>status</th></tr></thead><tbody>\n",
    );
    let kept = kept(&a.hpas, page.namespace, page.code);
    for r in &kept {
        let mut why = r.diagnostics.first().map_or_else(
            || esc(&r.decision.summary),
            |d| format!("<b>{}</b> {}", esc(&d.code), esc(&d.message)),
        );
        let class = match failing(r) {
            Some(c) => {
                why = format!(
                    "<b class=\"bad failing\">failing: {}</b><br>{why}",
                    esc(&failing_words(c))
                );
                "error failing"
            }
            None => severity_class(worst(r)),
        };
        let status = match r.status_comparison.as_ref() {
            Some(c) if !c.matches => format!(
                "<span class=\"bad\">differs{}</span>",
                c.desired_replicas
                    .map_or(String::new(), |d| format!(": status says {}", d.status))
            ),
            Some(_) => "matches".to_string(),
            None => "-".to_string(),
        };
        let _ = writeln!(
            out,
            "<tr class=\"{}\" data-hpa=\"{}\"><td><a href=\"/hpa/{}\">{}</a><br>\
             <span class=\"muted\">{}</span></td><td>{} → {}</td><td>{why}</td><td>{}</td>\
             <td>{status}</td></tr>",
            class,
            esc(&r.hpa),
            esc(&r.hpa),
            esc(&r.hpa),
            esc(&r.target),
            r.current_replicas,
            r.desired_replicas,
            band_bar(r)
        );
    }
    out.push_str("</tbody></table>\n");
    if !a.unevaluated.is_empty() {
        out.push_str("<h2>Not evaluated</h2><ul id=\"unevaluated\">\n");
        for u in &a.unevaluated {
            let _ = writeln!(out, "<li>{}: {}</li>", esc(&u.hpa), esc(&u.error));
        }
        out.push_str("</ul>\n");
    }
    let data = serde_json::json!({
        "summary": a.summary,
        "hpas": kept.iter().map(|r| summary(r)).collect::<Vec<_>>(),
    });
    data_script(&mut out, "hpacalc-data", &data.to_string());
    out.push_str("</body></html>\n");
    out
}

/// What `/hpa/NS/NAME` shows.
pub struct HpaPage<'a> {
    pub report: &'a Report,
    pub history: &'a [Point],
    pub events: &'a [HpaEvent],
    /// Why the events could not be read, if so.
    pub events_error: Option<String>,
    /// The calculator and the simulator with this HPA's numbers, when its metric is a
    /// Utilization one.
    pub calc: Option<String>,
    pub simulate: Option<String>,
}

/// One line of a chart: its label, its colour, its value at a point.
type Line<'a> = (&'a str, &'a str, &'a dyn Fn(&Point) -> Option<f64>);

/// `HH:MM` (UTC) of Unix seconds, or `HH:MM:SS` with `seconds`.
fn clock_utc(at: f64, seconds: bool) -> String {
    #[allow(clippy::cast_possible_truncation, reason = "seconds of a day")]
    let of_day = (at.rem_euclid(86_400.0)) as i64;
    let minutes = format!("{:02}:{:02}", of_day / 3600, of_day % 3600 / 60);
    if seconds {
        format!("{minutes}:{:02}", of_day % 60)
    } else {
        minutes
    }
}

/// The times a time axis labels: whole multiples of a step of 1, 5, 10, 15, 30 or 60 minutes,
/// the smallest that gives at most 6 labels over `first..=last` (Unix seconds).
fn time_ticks(first: f64, last: f64) -> Vec<f64> {
    let span = (last - first).max(1.0);
    let step = [60.0, 300.0, 600.0, 900.0, 1800.0, 3600.0, 7200.0]
        .into_iter()
        .find(|step| span / step <= 6.0)
        .unwrap_or(3600.0 * (span / 3600.0 / 6.0).ceil());
    let mut t = (first / step).ceil() * step;
    let mut ticks = Vec::new();
    while t <= last && ticks.len() < 12 {
        ticks.push(t);
        t += step;
    }
    ticks
}

/// A small line chart of `series` (each a label, a colour, and one value a point) over time:
/// a legend above, the value scale at the left, the times (UTC) beneath.
fn chart(id: &str, points: &[Point], series: &[Line<'_>]) -> String {
    let (left, top_margin, w, h) = (40.0, 20.0, 460.0, 110.0);
    let first = points.first().map_or(0.0, |p| p.at);
    let last = points.last().map_or(first, |p| p.at);
    let span = (last - first).max(1.0);
    let top = points
        .iter()
        .flat_map(|p| series.iter().filter_map(move |(_, _, f)| f(p)))
        .fold(0.0_f64, f64::max)
        .max(f64::MIN_POSITIVE)
        * 1.1;
    let x = |at: f64| left + (at - first) / span * w;
    let y = |v: f64| top_margin + h - v / top * h;
    let mut svg = format!(
        "<svg id=\"{id}\" width=\"{}\" height=\"{}\" role=\"img\"><rect x=\"{left}\" \
         y=\"{top_margin}\" width=\"{w}\" height=\"{h}\" fill=\"#f6f8fa\"/>",
        left + w + 8.0,
        top_margin + h + 16.0
    );
    // The legend: a swatch and a label a series.
    let mut at = left;
    for (label, colour, _) in series {
        let _ = write!(
            svg,
            "<g class=\"legend\"><line x1=\"{at:.1}\" x2=\"{:.1}\" y1=\"9\" y2=\"9\" \
             stroke=\"{colour}\" stroke-width=\"3\"/><text x=\"{:.1}\" y=\"12\">{}</text></g>",
            at + 14.0,
            at + 18.0,
            esc(label)
        );
        #[allow(clippy::cast_precision_loss, reason = "a short label")]
        let advance = 30.0 + 6.0 * label.chars().count() as f64;
        at += advance;
    }
    for (_, colour, value) in series {
        let line: Vec<String> = points
            .iter()
            .filter_map(|p| Some(format!("{:.1},{:.1}", x(p.at), y(value(p)?))))
            .collect();
        let _ = write!(
            svg,
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.5\" points=\"{}\"/>",
            line.join(" ")
        );
    }
    // The value scale.
    let _ = write!(
        svg,
        "<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\">{2}</text>\
         <text x=\"{0}\" y=\"{3}\" text-anchor=\"end\">0</text>",
        left - 3.0,
        top_margin + 8.0,
        (top * 100.0).round() / 100.0,
        top_margin + h
    );
    // The time axis.
    let base = top_margin + h;
    if !points.is_empty() {
        // Fewer than two whole minutes to label (a short history): its first and last times,
        // to the second.
        let mut ticks = time_ticks(first, last);
        let seconds = ticks.len() < 2;
        if seconds {
            ticks = vec![first, last];
            ticks.dedup();
        }
        for (i, t) in ticks.into_iter().enumerate() {
            let anchor = match (seconds, i) {
                (false, _) => "middle",
                (true, 0) => "start",
                (true, _) => "end",
            };
            let _ = write!(
                svg,
                "<line class=\"tick\" x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{base}\" y2=\"{1}\" \
                 stroke=\"#8c959f\"/><text class=\"time\" x=\"{0:.1}\" y=\"{2}\" \
                 text-anchor=\"{anchor}\">{3}</text>",
                x(t),
                base + 4.0,
                base + 14.0,
                clock_utc(t, seconds)
            );
        }
    }
    let _ = write!(
        svg,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">UTC</text></svg>",
        left - 3.0,
        base + 14.0
    );
    svg
}

/// How long ago, as kubectl prints an age (`k8s.io/apimachinery/pkg/util/duration.HumanDuration`,
/// ported rule by rule): seconds below 2 minutes, minutes and seconds below 10, minutes below 3
/// hours, hours and minutes below 8, hours below 2 days, days and hours below 8 days, days below
/// 2 years, then years and days below 8 years, then years.
pub fn human_duration(millis: i64) -> String {
    let seconds = millis.div_euclid(1000);
    if seconds < -1 {
        return "<invalid>".to_string();
    } else if seconds < 0 {
        return "0s".to_string();
    } else if seconds < 60 * 2 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        let s = seconds % 60;
        return if s == 0 {
            format!("{minutes}m")
        } else {
            format!("{minutes}m{s}s")
        };
    } else if minutes < 60 * 3 {
        return format!("{minutes}m");
    }
    let hours = minutes / 60;
    if hours < 8 {
        let m = minutes % 60;
        if m == 0 {
            format!("{hours}h")
        } else {
            format!("{hours}h{m}m")
        }
    } else if hours < 48 {
        format!("{hours}h")
    } else if hours < 24 * 8 {
        let h = hours % 24;
        if h == 0 {
            format!("{}d", hours / 24)
        } else {
            format!("{}d{h}h", hours / 24)
        }
    } else if hours < 24 * 365 * 2 {
        format!("{}d", hours / 24)
    } else if hours < 24 * 365 * 8 {
        let dy = (hours / 24) % 365;
        if dy == 0 {
            format!("{}y", hours / 24 / 365)
        } else {
            format!("{}y{dy}d", hours / 24 / 365)
        }
    } else {
        format!("{}y", hours / 24 / 365)
    }
}

/// An event's age at `now` as `kubectl describe` writes it: `3m`, or `3m (x4 over 10m)` for a
/// repeated one.
fn event_age(e: &HpaEvent, now: Option<Timestamp>) -> String {
    let Some(now) = now else {
        return "-".to_string();
    };
    let e = e.clone().at(now);
    let last = human_duration(now.0.saturating_sub(e.last.0));
    if e.count > 1 {
        format!(
            "{last} (x{} over {})",
            e.count,
            human_duration(now.0.saturating_sub(e.first.0))
        )
    } else {
        last
    }
}

/// What the metric chart draws: the first metric and its unit.
fn chart_title(r: &Report) -> String {
    r.metrics.first().map_or_else(
        || "The metric".to_string(),
        |m| match m.target.target_type.as_str() {
            "Utilization" => format!("{}: utilization, % of request", m.name),
            _ => format!("{}: value in base units (cores, bytes)", m.name),
        },
    )
}

/// `/hpa/NS/NAME`: the report, its last hour, its events.
pub fn hpa(page: &HpaPage<'_>) -> String {
    let r = page.report;
    let mut out = head(&r.hpa, STYLE, true);
    let _ = writeln!(out, "<h1>{}</h1>", esc(&report_title(r)));
    if let Some(c) = failing(r) {
        let _ = writeln!(
            out,
            "<p class=\"bad failing\" id=\"failing\"><b>failing: {}</b></p>",
            esc(&failing_words(c))
        );
    }
    report_body(&mut out, r);
    for m in &r.metrics {
        if let Some(band) = &m.hold_band {
            let _ = writeln!(
                out,
                "<p class=\"band\">{}: {}</p>",
                esc(&m.name),
                esc(&band_text(band))
            );
        }
    }
    if let Some(c) = r
        .status_comparison
        .as_ref()
        .and_then(|c| c.explanation.as_ref())
    {
        let _ = writeln!(out, "<p id=\"status\">{}</p>", esc(c));
    }
    let _ = writeln!(
        out,
        "<h2>The last hour ({} syncs)</h2><h3>{}</h3>{}<h3>Replicas</h3>{}",
        page.history.len(),
        esc(&chart_title(r)),
        chart(
            "history-metric",
            page.history,
            &[
                ("value", "#0969da", &|p: &Point| p.value),
                ("target", "#24292f", &|p: &Point| p.target),
                ("scales up at", "#cf222e", &|p: &Point| p.up_at),
                ("scales down at", "#1a7f37", &|p: &Point| p.down_at),
            ],
        ),
        chart(
            "history-replicas",
            page.history,
            &[
                ("current", "#24292f", &|p: &Point| Some(f64::from(
                    p.current
                ))),
                ("status desired", "#9a6700", &|p: &Point| p
                    .status_desired
                    .map(f64::from)),
                ("computed", "#0969da", &|p: &Point| Some(f64::from(
                    p.desired
                ))),
            ],
        )
    );
    out.push_str("<h2>Events</h2>\n");
    if let Some(e) = &page.events_error {
        let _ = writeln!(out, "<p class=\"bad\" id=\"events-error\">{}</p>", esc(e));
    }
    let now = Timestamp::parse_rfc3339(&r.now);
    out.push_str(
        "<table id=\"events\"><thead><tr><th>Type</th><th>Reason</th><th>Age</th>\
         <th>Message</th></tr></thead><tbody>\n",
    );
    for e in page.events {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td class=\"age\">{}</td><td>{}</td></tr>",
            if e.warning { "Warning" } else { "Normal" },
            esc(&e.reason),
            esc(&event_age(e, now)),
            esc(&e.message)
        );
    }
    out.push_str("</tbody></table>\n<p>");
    if let Some(href) = &page.calc {
        let _ = write!(
            out,
            "<a id=\"to-calc\" href=\"{}\">In the calculator</a> · ",
            esc(href)
        );
    }
    if let Some(href) = &page.simulate {
        let _ = write!(
            out,
            "<a id=\"to-simulator\" href=\"{}\">In the simulator (what if the load doubles?)</a>",
            esc(href)
        );
    }
    let json = serde_json::to_string_pretty(r).unwrap_or_default();
    out.push_str("</p>\n");
    data_script(&mut out, "hpacalc-data", &json);
    out.push_str("</body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::testing::{cpu_utilization, scenario};
    use crate::report::Diagnostic;

    fn report(hpa: &str, severity: Option<Severity>) -> Report {
        let mut r = crate::calc::evaluate(&scenario(vec![cpu_utilization(50)], 4, 500));
        r.hpa = hpa.to_string();
        r.diagnostics = severity
            .map(|s| Diagnostic::new("AtMaxReplicas", s, "m", ""))
            .into_iter()
            .collect();
        r
    }

    #[test]
    fn the_most_severe_come_first_and_the_filters_keep_what_they_say() {
        let reports = [
            report("a/quiet", None),
            report("b/warned", Some(Severity::Warning)),
            report("a/failing", Some(Severity::Error)),
            report("a/noted", Some(Severity::Info)),
        ];
        let order: Vec<&str> = kept(&reports, "", "")
            .iter()
            .map(|r| r.hpa.as_str())
            .collect();
        assert_eq!(order, ["a/failing", "b/warned", "a/noted", "a/quiet"]);
        let in_a: Vec<&str> = kept(&reports, "a", "AtMaxReplicas")
            .iter()
            .map(|r| r.hpa.as_str())
            .collect();
        assert_eq!(in_a, ["a/failing", "a/noted"]);
    }

    #[test]
    fn a_count_no_value_keeps_has_no_band_and_says_what_the_window_holds() {
        use crate::calc::testing::recommended;
        // 4 pods at the target, but 8 recommended a minute ago: the window sets 8, and no value
        // of the metric alone keeps 4.
        let mut s = scenario(vec![cpu_utilization(50)], 4, 500);
        s.memory = Some(recommended(8, 60));
        let r = crate::calc::evaluate(&s);
        assert!(r.metrics[0].hold_band.is_none(), "no band keeps 4");
        let step = r.steps.iter().find(|s| s.title == "hold band").unwrap();
        let bar = band_bar(&r);
        assert!(!bar.contains("class=\"band\""), "no value is shaded: {bar}");
        assert!(!bar.contains("any lower value"), "{bar}");
        assert!(bar.contains(&esc(&step.detail)), "{bar}");
        assert!(step.detail.starts_with("no value"), "{}", step.detail);
        let (asked, held) = (
            r.decision.metric_proposal.unwrap(),
            r.decision.stabilized_replicas.unwrap(),
        );
        assert_ne!(asked, held);
        assert!(bar.contains(&format!(
            "<b class=\"window-hold\">the window holds {held}; the metrics ask {asked}</b>"
        )));
    }

    #[test]
    fn a_band_is_shaded_from_its_low_to_its_high_with_what_holds_an_open_end() {
        let mut s = scenario(vec![cpu_utilization(60)], 2, 500);
        s.hpa.min_replicas = 2;
        let r = crate::calc::evaluate(&s);
        let band = r.metrics[0].hold_band.clone().unwrap();
        let bar = band_bar(&r);
        assert!(bar.contains("class=\"band\""), "{bar}");
        assert!(
            bar.contains(&format!(
                "cpu keeps 2 from any lower value (held by minReplicas) to {}",
                band.high.unwrap()
            )),
            "{bar}"
        );
        assert!(!bar.contains("window-hold"));
    }

    #[test]
    fn a_failing_hpa_is_red_with_its_condition_first() {
        let mut quiet = report("a/quiet", Some(Severity::Warning));
        let mut failed = report("a/failed", Some(Severity::Info));
        failed.conditions.push(Condition {
            condition_type: "ScalingActive".into(),
            status: "False".into(),
            reason: "FailedGetResourceMetric".into(),
            message: "no <metrics>".into(),
            last_transition_time: None,
        });
        quiet.conditions.clear();
        let reports = [quiet, failed];
        let order: Vec<&str> = kept(&reports, "", "")
            .iter()
            .map(|r| r.hpa.as_str())
            .collect();
        assert_eq!(order, ["a/failed", "a/quiet"]);
        let page = hpa(&HpaPage {
            report: &reports[1],
            history: &[],
            events: &[],
            events_error: None,
            calc: None,
            simulate: None,
        });
        assert!(page.contains(
            "<p class=\"bad failing\" id=\"failing\"><b>failing: ScalingActive False \
             (FailedGetResourceMetric): no &lt;metrics&gt;</b></p>"
        ));
    }

    #[test]
    fn ages_read_as_kubectl_prints_them() {
        for (seconds, age) in [
            (-5, "<invalid>"),
            (-1, "0s"),
            (0, "0s"),
            (119, "119s"),
            (120, "2m"),
            (125, "2m5s"),
            (600, "10m"),
            (3 * 3600 - 1, "179m"),
            (3 * 3600, "3h"),
            (3 * 3600 + 60, "3h1m"),
            (8 * 3600, "8h"),
            (48 * 3600, "2d"),
            (49 * 3600, "2d1h"),
            (8 * 86_400, "8d"),
            (2 * 365 * 86_400, "2y"),
            (2 * 365 * 86_400 + 86_400, "2y1d"),
            (9 * 365 * 86_400, "9y"),
        ] {
            assert_eq!(human_duration(seconds * 1000), age, "{seconds}s");
        }
    }

    #[test]
    fn a_chart_has_a_legend_and_times_along_its_axis() {
        let r = report("a/web", None);
        // An hour of syncs from 10:00:07 UTC, every 15 s.
        let start = 1_796_119_207.0; // 2026-12-01T10:00:07Z
        let points: Vec<Point> = (0..240)
            .map(|i| Point::of(&r, start + 15.0 * f64::from(i)))
            .collect();
        let svg = chart(
            "c",
            &points,
            &[
                ("value", "#0969da", &|p: &Point| p.value),
                ("target", "#24292f", &|p: &Point| p.target),
            ],
        );
        assert_eq!(svg.matches("class=\"legend\"").count(), 2);
        assert!(svg.contains(">value</text>") && svg.contains(">target</text>"));
        let times: Vec<&str> = svg
            .split("class=\"time\"")
            .skip(1)
            .filter_map(|s| s.split('>').nth(1)?.split('<').next())
            .collect();
        assert_eq!(times, ["10:10", "10:20", "10:30", "10:40", "10:50"]);
        assert!(svg.contains(">UTC</text>"));
        // Three syncs a second apart: the first and the last time, to the second.
        let short = chart(
            "c",
            &points[..3],
            &[("value", "#0969da", &|p: &Point| p.value)],
        );
        assert!(short.contains(">10:00:07</text>") && short.contains(">10:00:37</text>"));
    }

    #[test]
    fn events_show_their_age_at_the_sync() {
        let r = report("a/web", None);
        let now = Timestamp::parse_rfc3339(&r.now).unwrap();
        let event = HpaEvent {
            kind: String::new(),
            namespace: String::new(),
            name: String::new(),
            reason: "SuccessfulRescale".into(),
            message: "New size: 4".into(),
            warning: false,
            count: 3,
            first: Timestamp(now.0 - 600_000),
            last: Timestamp(now.0 - 125_000),
            origin: String::new(),
            relative: false,
            count_hidden: false,
        };
        let page = hpa(&HpaPage {
            report: &r,
            history: &[],
            events: &[event],
            events_error: None,
            calc: None,
            simulate: None,
        });
        assert!(
            page.contains("<td class=\"age\">2m5s (x3 over 10m)</td>"),
            "{page}"
        );
    }

    #[test]
    fn the_band_bar_escapes_and_marks_the_target() {
        let r = report("a/web", None);
        let bar = band_bar(&r);
        assert!(bar.starts_with("<svg"), "{bar}");
        assert!(bar.contains("<line"), "the target is a tick");
    }
}
