//! `--chart FILE.svg`: a hand-written SVG of a simulation. Load (right axis, shaded), desired
//! replicas, the metrics' recommendation, Ready pods, Pending pods and nodes (left axis) over
//! time; a tick under the plot at every HPA sync; and a shaded band the length of the
//! scale-down stabilization window ending at each scale-down and at the end of each stretch the
//! window held. Pure: `&Simulation -> String`.

use std::fmt::Write;

use crate::calc::simulate::{Simulation, SyncRow};

const WIDTH: f64 = 960.0;
const HEIGHT: f64 = 580.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 76.0;
const TOP: f64 = 88.0;
const BOTTOM: f64 = 112.0;
const FONT: &str = "system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif";

const LOAD: &str = "#8c9bab";
const LOAD_FILL: &str = "#e3e9ef";
const DESIRED: &str = "#1f6feb";
const READY: &str = "#1a7f37";
const RECOMMENDATION: &str = "#8250df";
const PENDING: &str = "#cf222e";
const NODES: &str = "#bc4c00";
const WINDOW: &str = "#f2a900";
const GRID: &str = "#d8dee4";
const TEXT: &str = "#24292f";
const MUTED: &str = "#57606a";

/// Maps the simulation's time and values to the plot.
struct Frame {
    duration: f64,
    count_max: f64,
    load_max: f64,
}

impl Frame {
    fn x(&self, t: i64) -> f64 {
        LEFT + f(t) / self.duration * (WIDTH - LEFT - RIGHT)
    }
    fn y_count(&self, v: f64) -> f64 {
        HEIGHT - BOTTOM - v / self.count_max * (HEIGHT - TOP - BOTTOM)
    }
    fn y_load(&self, v: f64) -> f64 {
        HEIGHT - BOTTOM - v / self.load_max * (HEIGHT - TOP - BOTTOM)
    }
}

fn f(v: i64) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let x = v as f64;
    x
}

/// The smallest of 1, 2, 2.5, 5 × 10^k that is at least `v` (and at least 1).
fn nice_ceil(v: f64) -> f64 {
    if !(v.is_finite() && v > 1.0) {
        return 1.0;
    }
    let exp = v.log10().floor();
    let base = 10f64.powf(exp);
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * base)
        .find(|&c| c >= v - 1e-9)
        .unwrap_or(10.0 * base)
}

/// Escapes text for SVG.
fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `m:ss` below an hour, `h:mm` below two days, else days and hours.
fn time_label(t: i64) -> String {
    if t < 3600 {
        format!("{}:{:02}", t / 60, t % 60)
    } else if t < 2 * 86_400 {
        format!("{}:{:02}", t / 3600, t / 60 % 60)
    } else {
        format!("day {} {:02}h", t / 86_400 + 1, t / 3600 % 24)
    }
}

/// A time tick step giving at most 10 ticks.
fn time_step(duration: i64) -> i64 {
    const STEPS: [i64; 15] = [
        15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400, 172_800,
    ];
    STEPS
        .iter()
        .copied()
        .find(|s| duration / s <= 10)
        .unwrap_or(604_800)
}

/// A step line through `(time, value)` points, held until `end`.
fn step_path(
    points: &[(i64, f64)],
    end: i64,
    x: impl Fn(i64) -> f64,
    y: impl Fn(f64) -> f64,
) -> String {
    let mut d = String::new();
    for (i, &(t, v)) in points.iter().enumerate() {
        if i == 0 {
            let _ = write!(d, "M{:.1},{:.1}", x(t), y(v));
        } else {
            let _ = write!(d, " H{:.1} V{:.1}", x(t), y(v));
        }
    }
    if !points.is_empty() {
        let _ = write!(d, " H{:.1}", x(end));
    }
    d
}

fn series(rows: &[SyncRow], value: impl Fn(&SyncRow) -> Option<f64>) -> Vec<(i64, f64)> {
    rows.iter()
        .filter_map(|r| value(r).map(|v| (r.time, v)))
        .collect()
}

/// The instants a stabilization band ends at: each scale-down, and the last sync of each stretch
/// the window held without a scale-down after it.
fn window_ends(rows: &[SyncRow]) -> Vec<i64> {
    let held = |r: &SyncRow| {
        r.reason.as_deref() == Some("ScaleDownStabilized")
            && r.recommendation.is_some_and(|rec| rec < r.replicas)
    };
    let scales_down = |r: &SyncRow| r.desired_replicas < r.replicas;
    rows.iter()
        .enumerate()
        .filter(|&(i, row)| {
            let next = rows.get(i + 1);
            scales_down(row) || (held(row) && !next.is_some_and(|n| scales_down(n) || held(n)))
        })
        .map(|(_, row)| row.time)
        .collect()
}

/// One line of the chart: legend label, colour, width, dashes, points.
type Line<'a> = (&'a str, &'a str, f64, &'a str, Vec<(i64, f64)>);

pub fn render(sim: &Simulation) -> String {
    let rows = &sim.timeline;
    let end = sim.settings.duration_seconds.max(1);
    let with_nodes = sim.settings.nodes.is_some();
    let count_peak = rows
        .iter()
        .flat_map(|r| {
            [
                r.desired_replicas,
                r.replicas,
                r.recommendation.unwrap_or(0),
                i32::try_from(r.ready_replicas + r.starting_pods + r.pending_pods).unwrap_or(0),
                i32::try_from(r.nodes.unwrap_or(0) + r.nodes_booting.unwrap_or(0)).unwrap_or(0),
            ]
        })
        .max()
        .unwrap_or(1);
    let load_peak = sim
        .load_curve
        .iter()
        .map(|p| p.load)
        .chain(rows.iter().map(|r| r.load))
        .fold(0.0, f64::max);
    let frame = Frame {
        duration: f(end),
        count_max: nice_ceil(f64::from(count_peak.max(1)) * 1.1),
        load_max: nice_ceil(load_peak * 1.1),
    };
    let plot_bottom = HEIGHT - BOTTOM;
    let plot_right = WIDTH - RIGHT;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="{FONT}" font-size="13" fill="{TEXT}">"#
    );
    let _ = writeln!(
        svg,
        r##"<rect width="100%" height="100%" fill="#ffffff"/>"##
    );

    // Title and settings.
    let title = match &sim.scenario {
        Some(s) => format!("{} · scenario {}", sim.hpa, s.name),
        None => sim.hpa.clone(),
    };
    let _ = writeln!(
        svg,
        r#"<text x="{LEFT}" y="28" font-size="17" font-weight="600">HPA {}</text>"#,
        esc(&title)
    );
    let s = &sim.settings;
    let mut timing = format!(
        "sync every {}s · pods Ready {}s after scheduling",
        s.sync_period_seconds, s.pod_startup_seconds
    );
    if let Some(n) = &s.nodes {
        let _ = write!(
            timing,
            " · {} pods per node · nodes boot in {} · Cluster Autoscaler scan every {}s",
            n.pods_per_node,
            time_label(n.node_startup_seconds),
            n.ca_scan_interval_seconds
        );
    }
    for (y, line) in [
        (
            48,
            format!("{} target {}", sim.metric.description, sim.metric.target),
        ),
        (65, timing),
    ] {
        let _ = writeln!(
            svg,
            r#"<text x="{LEFT}" y="{y}" font-size="12" fill="{MUTED}">{}</text>"#,
            esc(&line)
        );
    }

    // Stabilization window bands, under everything else.
    let window = s.scale_down_window_seconds;
    if window > 0 {
        for t in window_ends(rows) {
            let from = frame.x((t - window).max(0));
            let to = frame.x(t);
            let _ = writeln!(
                svg,
                r#"<rect x="{from:.1}" y="{TOP}" width="{:.1}" height="{:.1}" fill="{WINDOW}" fill-opacity="0.13"/>"#,
                (to - from).max(0.5),
                plot_bottom - TOP
            );
            let _ = writeln!(
                svg,
                r#"<line x1="{to:.1}" y1="{TOP}" x2="{to:.1}" y2="{plot_bottom}" stroke="{WINDOW}" stroke-width="1.5"/>"#
            );
            let _ = writeln!(
                svg,
                r#"<text x="{:.1}" y="{:.1}" font-size="11" fill="{MUTED}" text-anchor="end">{} window</text>"#,
                to - 4.0,
                TOP + 14.0,
                time_label(window)
            );
        }
    }

    // Grid and the left axis (pods and nodes).
    let count_step = (frame.count_max / 5.0).max(1.0);
    let mut v = 0.0;
    while v <= frame.count_max + 1e-9 {
        let y = frame.y_count(v);
        let _ = writeln!(
            svg,
            r#"<line x1="{LEFT}" y1="{y:.1}" x2="{plot_right}" y2="{y:.1}" stroke="{GRID}" stroke-width="1"/>"#
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end" fill="{MUTED}">{v}</text>"#,
            LEFT - 8.0,
            y + 4.0
        );
        v += count_step;
    }
    let load_unit = match sim.load_columns.first() {
        Some(c) if c.resource.as_deref() == Some("cpu") => "load (cpu cores)".to_string(),
        Some(c) => format!("load ({})", c.name),
        None => "load".to_string(),
    };
    let load_step = frame.load_max / 5.0;
    for i in 0..=5 {
        let value = load_step * f64::from(i);
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" fill="{MUTED}">{}</text>"#,
            plot_right + 8.0,
            frame.y_load(value) + 4.0,
            trim_float(value)
        );
    }
    let mid = (TOP + plot_bottom) / 2.0;
    let left_title = if with_nodes { "pods / nodes" } else { "pods" };
    let _ = writeln!(
        svg,
        r#"<text transform="translate(18 {mid:.1}) rotate(-90)" text-anchor="middle" fill="{MUTED}">{left_title}</text>"#
    );
    let _ = writeln!(
        svg,
        r#"<text transform="translate({:.1} {mid:.1}) rotate(90)" text-anchor="middle" fill="{MUTED}">{}</text>"#,
        WIDTH - 14.0,
        esc(&load_unit)
    );

    // Time axis.
    let step = time_step(end);
    let mut t = 0;
    while t <= end {
        let x = frame.x(t);
        let _ = writeln!(
            svg,
            r#"<line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{plot_bottom}" stroke="{GRID}" stroke-width="1" stroke-dasharray="2 3"/>"#
        );
        let _ = writeln!(
            svg,
            r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle" fill="{MUTED}">{}</text>"#,
            plot_bottom + 30.0,
            time_label(t)
        );
        t += step;
    }
    let _ = writeln!(
        svg,
        r#"<line x1="{LEFT}" y1="{plot_bottom}" x2="{plot_right}" y2="{plot_bottom}" stroke="{MUTED}" stroke-width="1"/>"#
    );
    // A tick at every sync, when they are far enough apart to see.
    let spacing = (plot_right - LEFT) / (f(end) / f(s.sync_period_seconds.max(1)));
    if spacing >= 3.0 {
        let mut ticks = String::new();
        for row in rows {
            let x = frame.x(row.time);
            let _ = write!(ticks, "M{x:.1},{plot_bottom} v7 ");
        }
        let _ = writeln!(
            svg,
            r#"<path d="{}" stroke="{MUTED}" stroke-width="1"/>"#,
            ticks.trim_end()
        );
    }

    // Load: a shaded step area on the right axis.
    let load_points: Vec<(i64, f64)> = sim.load_curve.iter().map(|p| (p.time, p.load)).collect();
    let load_line = step_path(&load_points, end, |t| frame.x(t), |v| frame.y_load(v));
    if !load_line.is_empty() {
        let _ = writeln!(
            svg,
            r#"<path d="{load_line} V{plot_bottom} H{LEFT} Z" fill="{LOAD_FILL}" fill-opacity="0.7"/>"#
        );
        let _ = writeln!(
            svg,
            r#"<path d="{load_line}" fill="none" stroke="{LOAD}" stroke-width="1.5"/>"#
        );
    }

    // Counts on the left axis; the thickest last.
    let y = |v: f64| frame.y_count(v);
    let x = |t: i64| frame.x(t);
    let mut lines: Vec<Line> = Vec::new();
    if with_nodes {
        lines.push((
            "nodes (Ready + booting)",
            NODES,
            2.0,
            "",
            series(rows, |r| {
                Some(f(r.nodes.unwrap_or(0) + r.nodes_booting.unwrap_or(0)))
            }),
        ));
    }
    let any_pending = rows.iter().any(|r| r.pending_pods > 0);
    if any_pending {
        lines.push((
            "Pending pods",
            PENDING,
            1.6,
            "2 3",
            series(rows, |r| Some(f(r.pending_pods))),
        ));
    }
    // Desired replicas as a wide translucent band, so the lines drawn on it stay visible.
    lines.push((
        "desired replicas",
        DESIRED,
        6.0,
        "",
        series(rows, |r| Some(f64::from(r.desired_replicas))),
    ));
    lines.push((
        "Ready pods",
        READY,
        2.0,
        "",
        series(rows, |r| Some(f(r.ready_replicas))),
    ));
    lines.push((
        "recommendation",
        RECOMMENDATION,
        1.6,
        "6 4",
        series(rows, |r| r.recommendation.map(f64::from)),
    ));
    for (_, color, width, dash, points) in &lines {
        let _ = writeln!(
            svg,
            r#"<path d="{}" fill="none" stroke="{color}"{}/>"#,
            step_path(points, end, x, y),
            stroke_style(color, *width, dash)
        );
    }

    // Legend, in two rows under the time labels.
    let order = [DESIRED, READY, RECOMMENDATION, PENDING, NODES];
    let mut legend_lines: Vec<_> = lines.iter().collect();
    legend_lines.sort_by_key(|(_, color, ..)| order.iter().position(|c| c == color));
    let mut items: Vec<(String, String)> = legend_lines
        .into_iter()
        .map(|(label, color, width, dash, _)| {
            (
                (*label).to_string(),
                format!(
                    r#"<line x1="0" y1="0" x2="22" y2="0" stroke="{color}"{}/>"#,
                    stroke_style(color, *width, dash)
                ),
            )
        })
        .collect();
    items.push((
        esc(&load_unit),
        format!(
            r#"<rect x="0" y="-6" width="22" height="12" fill="{LOAD_FILL}" stroke="{LOAD}" stroke-width="1.5"/>"#
        ),
    ));
    if window > 0 && !window_ends(rows).is_empty() {
        items.push((
            format!("stabilization window ({})", time_label(window)),
            format!(
                r#"<rect x="0" y="-6" width="22" height="12" fill="{WINDOW}" fill-opacity="0.25"/>"#
            ),
        ));
    }
    items.push((
        "HPA sync".to_string(),
        format!(r#"<line x1="11" y1="-6" x2="11" y2="6" stroke="{MUTED}" stroke-width="1"/>"#),
    ));
    let mut lx = LEFT;
    let mut ly = plot_bottom + 58.0;
    for (label, swatch) in items {
        // About 7 px per character at 13 px.
        let width = 32.0 + f(i64::try_from(label.chars().count()).unwrap_or(0)) * 7.0 + 18.0;
        if lx + width > WIDTH - 10.0 {
            lx = LEFT;
            ly += 22.0;
        }
        let _ = writeln!(
            svg,
            r#"<g transform="translate({lx:.1} {ly:.1})">{swatch}<text x="30" y="4.5">{label}</text></g>"#
        );
        lx += width;
    }
    svg.push_str("</svg>\n");
    svg
}

/// Width, dashes, and the translucency of the wide desired-replicas band.
fn stroke_style(color: &str, width: f64, dash: &str) -> String {
    let mut style = format!(r#" stroke-width="{width}" stroke-linejoin="round""#);
    if !dash.is_empty() {
        let _ = write!(style, r#" stroke-dasharray="{dash}""#);
    }
    if color == DESIRED {
        style.push_str(r#" stroke-opacity="0.45""#);
    }
    style
}

/// A load axis label: no trailing zeros.
fn trim_float(v: f64) -> String {
    let text = format!("{v:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    text.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_ceil_rounds_up_to_1_2_2_5_5() {
        for (v, want) in [
            (0.3, 1.0),
            (3.0, 5.0),
            (18.7, 20.0),
            (21.0, 25.0),
            (6.6, 10.0),
        ] {
            assert_eq!(nice_ceil(v), want, "{v}");
        }
    }

    #[test]
    fn time_steps_give_at_most_ten_ticks() {
        assert_eq!(time_step(600), 60);
        assert_eq!(time_step(1560), 300);
        assert_eq!(time_step(7 * 86_400), 86_400);
    }

    #[test]
    fn step_paths_hold_each_value_until_the_next_point() {
        let d = step_path(&[(0, 1.0), (10, 2.0)], 20, f, |v| v);
        assert_eq!(d, "M0.0,1.0 H10.0 V2.0 H20.0");
    }

    #[test]
    fn labels_are_escaped() {
        assert_eq!(esc("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
