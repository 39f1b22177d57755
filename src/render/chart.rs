//! `--chart FILE.svg`: a hand-written SVG of a simulation in two panels over one time axis. Top:
//! replicas (desired, the metrics' recommendation, Ready pods, the cluster's actual replicas when
//! given, Pending pods, nodes) with minReplicas and maxReplicas as lines and a band the length of
//! the scale-down stabilization window ending at each scale-down. Bottom: the first metric
//! against its target, inside the controller's tolerance band. Under the time axis: a tick at
//! every HPA sync and a marker at every scale-up, scale-down and node request. Every series has
//! its own dash pattern or weight, so the chart reads in grey scale. Pure and deterministic:
//! `&Simulation -> String`.

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::calc::simulate::compare::Comparison;
use crate::calc::simulate::{Simulation, SyncRow};

const WIDTH: f64 = 960.0;
const HEIGHT: f64 = 700.0;
const LEFT: f64 = 72.0;
const RIGHT: f64 = 40.0;
/// The replicas panel.
const TOP: f64 = 100.0;
const TOP_END: f64 = 340.0;
/// The metric panel.
const METRIC: f64 = 384.0;
const METRIC_END: f64 = 544.0;
const FONT: &str = "system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif";

const DESIRED: &str = "#1f6feb";
const READY: &str = "#1a7f37";
const ACTUAL: &str = "#24292f";
const RECOMMENDATION: &str = "#8250df";
const PENDING: &str = "#cf222e";
const NODES: &str = "#bc4c00";
const LIMIT: &str = "#6e7781";
const UTILIZATION: &str = "#0550ae";
const BAND: &str = "#afb8c1";
const WINDOW: &str = "#f2a900";
const GRID: &str = "#d8dee4";
const TEXT: &str = "#24292f";
const MUTED: &str = "#57606a";

/// The time axis, shared by both panels.
struct TimeAxis {
    duration: f64,
}

impl TimeAxis {
    fn x(&self, t: i64) -> f64 {
        LEFT + f(t) / self.duration * (WIDTH - LEFT - RIGHT)
    }
}

/// The plot's left and right edges in the SVG's coordinates (time 0 and the end).
pub fn plot_span() -> (f64, f64) {
    (LEFT, WIDTH - RIGHT)
}

/// One panel's vertical scale: `max` at `top`, 0 at `bottom`.
#[derive(Clone, Copy)]
struct Scale {
    top: f64,
    bottom: f64,
    max: f64,
    /// Between grid lines.
    step: f64,
}

impl Scale {
    fn y(&self, v: f64) -> f64 {
        self.bottom - v / self.max * (self.bottom - self.top)
    }
}

fn f(v: i64) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let x = v as f64;
    x
}

/// A vertical scale for values up to `peak`: a round grid step (1, 2 or 5 × 10^k; at least 1
/// for counts) giving at most about 5 steps, and a whole number of steps as the top.
fn nice_scale(peak: f64, whole: bool) -> (f64, f64) {
    let peak = if peak.is_finite() && peak > 0.0 {
        peak
    } else {
        1.0
    };
    let rough = peak / 5.0;
    let base = 10f64.powf(rough.log10().floor());
    let mut step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * base)
        .find(|&c| c >= rough - 1e-12)
        .unwrap_or(10.0 * base);
    if whole {
        step = step.max(1.0);
    }
    ((peak / step - 1e-9).ceil() * step, step)
}

/// Text for SVG (and HTML): the one HTML encoder.
pub(crate) use crate::render::escape::html as esc;

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

/// The time axis's title: what its labels count.
fn time_title(duration: i64) -> &'static str {
    if duration < 3600 {
        "time from the start (m:ss)"
    } else if duration < 2 * 86_400 {
        "time from the start (h:mm)"
    } else {
        "time from the start (days)"
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

/// A step line through `(time, value)` points, each value held until the next point and the last
/// until `end`; a point without a value (the controller could not compute it) breaks the line.
fn step_path(
    points: &[(i64, Option<f64>)],
    end: i64,
    x: impl Fn(i64) -> f64,
    y: impl Fn(f64) -> f64,
) -> String {
    let mut d = String::new();
    let mut drawing = false;
    for &(t, v) in points {
        match (v, drawing) {
            (Some(v), false) => {
                let sep = if d.is_empty() { "" } else { " " };
                let _ = write!(d, "{sep}M{:.1},{:.1}", x(t), y(v));
            }
            (Some(v), true) => {
                let _ = write!(d, " H{:.1} V{:.1}", x(t), y(v));
            }
            (None, true) => {
                let _ = write!(d, " H{:.1}", x(t));
            }
            (None, false) => {}
        }
        drawing = v.is_some();
    }
    if drawing {
        let _ = write!(d, " H{:.1}", x(end));
    }
    d
}

fn series(rows: &[SyncRow], value: impl Fn(&SyncRow) -> Option<f64>) -> Vec<(i64, Option<f64>)> {
    rows.iter().map(|r| (r.time, value(r))).collect()
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
struct Line {
    label: String,
    color: &'static str,
    width: f64,
    dash: &'static str,
    points: Vec<(i64, Option<f64>)>,
}

impl Line {
    fn new(
        label: &str,
        color: &'static str,
        width: f64,
        dash: &'static str,
        points: Vec<(i64, Option<f64>)>,
    ) -> Line {
        Line {
            label: label.to_string(),
            color,
            width,
            dash,
            points,
        }
    }

    fn swatch(&self) -> String {
        format!(
            r#"<line x1="0" y1="0" x2="22" y2="0" stroke="{}"{}/>"#,
            self.color,
            stroke_style(self.color, self.width, self.dash)
        )
    }
}

/// A marker under the time axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Marker {
    ScaleUp,
    ScaleDown,
    NodeRequest,
}

impl Marker {
    const ALL: [Marker; 3] = [Marker::ScaleUp, Marker::ScaleDown, Marker::NodeRequest];

    fn label(self) -> &'static str {
        match self {
            Marker::ScaleUp => "scale-up",
            Marker::ScaleDown => "scale-down",
            Marker::NodeRequest => "node request",
        }
    }

    /// Filled up-triangle, hollow down-triangle, filled diamond: apart in shape, not only colour.
    fn shape(self, x: f64, y: f64) -> String {
        match self {
            Marker::ScaleUp => {
                format!(r#"<path d="M{x:.1},{y:.1} l-4.5,8 h9 Z" fill="{DESIRED}"/>"#)
            }
            Marker::ScaleDown => format!(
                r##"<path d="M{:.1},{:.1} h9 l-4.5,8 Z" fill="#ffffff" stroke="{DESIRED}" stroke-width="1.5"/>"##,
                x - 4.5,
                y
            ),
            Marker::NodeRequest => format!(
                r#"<path d="M{x:.1},{y:.1} l4.5,4.5 l-4.5,4.5 l-4.5,-4.5 Z" fill="{NODES}"/>"#
            ),
        }
    }

    /// Its row under the axis.
    fn row(self) -> f64 {
        match self {
            Marker::ScaleUp | Marker::ScaleDown => 0.0,
            Marker::NodeRequest => 11.0,
        }
    }
}

/// Scale events from the rows, node requests from the Cluster Autoscaler's events; one marker of
/// a kind per pixel, so a week of syncs stays a small file.
fn markers(sim: &Simulation, axis: &TimeAxis) -> BTreeSet<(Marker, i64)> {
    let mut out = BTreeSet::new();
    let mut put = |kind: Marker, t: i64| {
        // Rounded to a tenth of a pixel: the drawing's own resolution.
        #[allow(clippy::cast_possible_truncation)]
        let px = (axis.x(t) * 10.0).round() as i64;
        out.insert((kind, px));
    };
    for r in &sim.timeline {
        if r.desired_replicas > r.replicas {
            put(Marker::ScaleUp, r.time);
        } else if r.desired_replicas < r.replicas {
            put(Marker::ScaleDown, r.time);
        }
    }
    for e in &sim.events {
        if e.source == "clusterAutoscaler" && e.message.starts_with("requests ") {
            put(Marker::NodeRequest, e.time);
        }
    }
    out
}

/// Horizontal grid lines and value labels of one panel.
fn grid(svg: &mut String, scale: Scale, labels: impl Fn(f64) -> String) {
    let mut v = 0.0;
    while v <= scale.max + scale.step / 2.0 {
        let y = scale.y(v);
        let _ = writeln!(
            svg,
            r#"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{GRID}" stroke-width="1"/>"#,
            WIDTH - RIGHT
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end" fill="{MUTED}">{}</text>"#,
            LEFT - 8.0,
            y + 4.0,
            labels(v)
        );
        v += scale.step;
    }
}

/// The most characters of a panel title that fit the plot's width (about 7 px each at 12 px).
const TITLE_CHARS: usize = 118;

/// `text` cut to `max` characters, with an ellipsis when cut (a KEDA metric's name can be long).
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// A panel's title above it, and its axis title along its left edge.
fn panel_titles(svg: &mut String, scale: Scale, heading: &str, axis: &str) {
    let _ = writeln!(
        svg,
        r#"<text x="{LEFT}" y="{:.1}" font-size="12" font-weight="600">{}</text>"#,
        scale.top - 10.0,
        esc(heading)
    );
    let mid = (scale.top + scale.bottom) / 2.0;
    let _ = writeln!(
        svg,
        r#"<text transform="translate(18 {mid:.1}) rotate(-90)" text-anchor="middle" fill="{MUTED}">{}</text>"#,
        esc(axis)
    );
}

fn draw(svg: &mut String, line: &Line, end: i64, axis: &TimeAxis, scale: Scale) {
    let d = step_path(&line.points, end, |t| axis.x(t), |v| scale.y(v));
    if d.is_empty() {
        return;
    }
    let _ = writeln!(
        svg,
        r#"<path d="{d}" fill="none" stroke="{}"{}/>"#,
        line.color,
        stroke_style(line.color, line.width, line.dash)
    );
}

/// The count lines, drawn in this order (the thickest first, so the others stay visible on it).
fn count_lines(sim: &Simulation) -> Vec<Line> {
    let rows = &sim.timeline;
    let mut lines = vec![Line::new(
        "desired replicas",
        DESIRED,
        6.0,
        "",
        series(rows, |r| Some(f64::from(r.desired_replicas))),
    )];
    if sim.settings.nodes.is_some() {
        lines.push(Line::new(
            "nodes (Ready + booting)",
            NODES,
            2.0,
            "12 4",
            series(rows, |r| {
                Some(f(r.nodes.unwrap_or(0) + r.nodes_booting.unwrap_or(0)))
            }),
        ));
    }
    if rows.iter().any(|r| r.pending_pods > 0) {
        lines.push(Line::new(
            "Pending pods",
            PENDING,
            1.6,
            "2 3",
            series(rows, |r| Some(f(r.pending_pods))),
        ));
    }
    lines.push(Line::new(
        "Ready pods",
        READY,
        2.0,
        "",
        series(rows, |r| Some(f(r.ready_replicas))),
    ));
    lines.push(Line::new(
        "recommendation",
        RECOMMENDATION,
        1.6,
        "6 4",
        series(rows, |r| r.recommendation.map(f64::from)),
    ));
    if rows.iter().any(|r| r.actual_replicas.is_some()) {
        lines.push(Line::new(
            "actual replicas (the cluster)",
            ACTUAL,
            2.2,
            "9 3 2 3",
            series(rows, |r| r.actual_replicas.map(f64::from)),
        ));
    }
    lines
}

/// A legend entry: its label (escaped) and its swatch.
type Item = (String, String);

pub fn render(sim: &Simulation) -> String {
    let axis = TimeAxis {
        duration: f(sim.settings.duration_seconds.max(1)),
    };
    let mut svg = heading(sim);
    let mut legend = replicas_panel(&mut svg, sim, &axis);
    legend.extend(metric_panel(&mut svg, sim, &axis));
    legend.extend(time_axis(&mut svg, sim, &axis));
    draw_legend(&mut svg, legend);
    svg.push_str("</svg>\n");
    svg
}

/// The SVG's opening, its title and the run's timing.
fn heading(sim: &Simulation) -> String {
    let s = &sim.settings;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="{FONT}" font-size="13" fill="{TEXT}">"#
    );
    let title = match &sim.scenario {
        Some(label) => format!("{} · scenario {}", sim.hpa, label.name),
        None => sim.hpa.clone(),
    };
    let _ = writeln!(
        svg,
        "<title>HPA {}: replicas and {} over time</title>",
        esc(&title),
        esc(&sim.metric.description)
    );
    let _ = writeln!(
        svg,
        r##"<rect width="100%" height="100%" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        svg,
        r#"<text x="{LEFT}" y="28" font-size="17" font-weight="600">HPA {}</text>"#,
        esc(&title)
    );
    let mut timing = format!(
        "sync every {}s · pods Ready {}s after scheduling",
        s.sync_period_seconds, s.pod_startup_seconds
    );
    if let Some(k) = s.nodes.as_ref().and_then(|n| n.karpenter.as_ref()) {
        let _ = write!(
            timing,
            " · Karpenter (NodePool {}) · NodeClaims Ready {} after launch",
            k.node_pools.join(", "),
            time_label(s.nodes.as_ref().map_or(0, |n| n.node_startup_seconds))
        );
    } else if let Some(n) = &s.nodes {
        let _ = write!(
            timing,
            " · {} pods per node · nodes boot in {} · Cluster Autoscaler scan every {}s",
            n.pods_per_node,
            time_label(n.node_startup_seconds),
            n.ca_scan_interval_seconds
        );
    }
    let _ = writeln!(
        svg,
        r#"<text x="{LEFT}" y="50" font-size="12" fill="{MUTED}">{}</text>"#,
        esc(&timing)
    );
    svg
}

/// The top panel: the stabilization windows, the counts, minReplicas and maxReplicas.
fn replicas_panel(svg: &mut String, sim: &Simulation, axis: &TimeAxis) -> Vec<Item> {
    let s = &sim.settings;
    let end = s.duration_seconds.max(1);
    let plot_right = WIDTH - RIGHT;
    let lines = count_lines(sim);
    let count_peak = lines
        .iter()
        .flat_map(|l| l.points.iter().filter_map(|p| p.1))
        .chain([f64::from(s.max_replicas), f64::from(s.min_replicas)])
        .fold(1.0, f64::max);
    let (max, step) = nice_scale(count_peak * 1.1, true);
    let counts = Scale {
        top: TOP,
        bottom: TOP_END,
        max,
        step,
    };
    let window = s.scale_down_window_seconds;
    let ends = if window > 0 {
        window_ends(&sim.timeline)
    } else {
        Vec::new()
    };
    for &t in &ends {
        let from = axis.x((t - window).max(0));
        let to = axis.x(t);
        let _ = writeln!(
            svg,
            r#"<rect x="{from:.1}" y="{TOP}" width="{:.1}" height="{:.1}" fill="{WINDOW}" fill-opacity="0.13"/>"#,
            (to - from).max(0.5),
            TOP_END - TOP
        );
        let _ = writeln!(
            svg,
            r#"<line x1="{to:.1}" y1="{TOP}" x2="{to:.1}" y2="{TOP_END}" stroke="{WINDOW}" stroke-width="1.5"/>"#
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" font-size="11" fill="{MUTED}" text-anchor="end">{} window</text>"#,
            to - 4.0,
            TOP + 14.0,
            time_label(window)
        );
    }
    let count_title = if s.nodes.is_some() {
        "pods / nodes"
    } else {
        "pods"
    };
    grid(svg, counts, trim_float);
    panel_titles(svg, counts, "Replicas (pods)", count_title);
    for (name, value) in [
        ("maxReplicas", s.max_replicas),
        ("minReplicas", s.min_replicas),
    ] {
        let y = counts.y(f64::from(value));
        let _ = writeln!(
            svg,
            r#"<line x1="{LEFT}" y1="{y:.1}" x2="{plot_right:.1}" y2="{y:.1}" stroke="{LIMIT}" stroke-width="1.2" stroke-dasharray="1 3"/>"#
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" font-size="11" fill="{MUTED}" text-anchor="end">{name} {value}</text>"#,
            plot_right - 4.0,
            y - 4.0
        );
    }
    for line in &lines {
        draw(svg, line, end, axis, counts);
    }
    let mut items: Vec<Item> = lines.iter().map(|l| (esc(&l.label), l.swatch())).collect();
    items.push((
        "minReplicas / maxReplicas".to_string(),
        format!(
            r#"<line x1="0" y1="0" x2="22" y2="0" stroke="{LIMIT}" stroke-width="1.2" stroke-dasharray="1 3"/>"#
        ),
    ));
    if !ends.is_empty() {
        items.push((
            format!("stabilization window ({})", time_label(window)),
            format!(
                r#"<rect x="0" y="-6" width="22" height="12" fill="{WINDOW}" fill-opacity="0.25"/>"#
            ),
        ));
    }
    items
}

/// The bottom panel: the first metric against its target, inside the tolerance band.
fn metric_panel(svg: &mut String, sim: &Simulation, axis: &TimeAxis) -> Vec<Item> {
    let end = sim.settings.duration_seconds.max(1);
    let plot_right = WIDTH - RIGHT;
    let metric = &sim.metric;
    let band = metric
        .target_value
        .map(|t| (t * metric.tolerance.lower, t * metric.tolerance.upper));
    let metric_peak = sim
        .timeline
        .iter()
        .filter_map(|r| r.utilization)
        .chain(band.map(|b| b.1))
        .fold(0.0, f64::max);
    let (max, step) = nice_scale(metric_peak * 1.1, false);
    let values = Scale {
        top: METRIC,
        bottom: METRIC_END,
        max,
        step,
    };
    let unit = if metric.percent { "%" } else { "" };
    grid(svg, values, |v| format!("{}{unit}", trim_float(v)));
    let metric_axis = if metric.percent {
        "% of request"
    } else {
        "value"
    };
    panel_titles(
        svg,
        values,
        &format!(
            "{} against its target",
            shorten(&metric.description, TITLE_CHARS - 20)
        ),
        metric_axis,
    );
    let mut lines = Vec::new();
    let mut band_item = None;
    if let (Some(target), Some((low, high))) = (metric.target_value, band) {
        let (top, bottom) = (values.y(high), values.y(low));
        let _ = writeln!(
            svg,
            r#"<rect x="{LEFT}" y="{top:.1}" width="{:.1}" height="{:.1}" fill="{BAND}" fill-opacity="0.45"/>"#,
            plot_right - LEFT,
            (bottom - top).max(0.5)
        );
        lines.push(Line::new(
            &format!("target {}", metric.target),
            TEXT,
            1.2,
            "6 3",
            vec![(0, Some(target))],
        ));
        band_item = Some((
            format!(
                "tolerance band {}{unit}–{}{unit}",
                trim_float(low),
                trim_float(high)
            ),
            format!(
                r#"<rect x="0" y="-6" width="22" height="12" fill="{BAND}" fill-opacity="0.45"/>"#
            ),
        ));
    }
    let what = if metric.percent {
        "utilization"
    } else {
        "value"
    };
    lines.push(Line::new(
        &format!("current {what}"),
        UTILIZATION,
        2.0,
        "",
        series(&sim.timeline, |r| r.utilization),
    ));
    for line in &lines {
        draw(svg, line, end, axis, values);
    }
    lines
        .iter()
        .map(|l| (esc(&l.label), l.swatch()))
        .chain(band_item)
        .collect()
}

/// The shared time axis: grid, labels and title, a tick per sync, the markers.
fn time_axis(svg: &mut String, sim: &Simulation, axis: &TimeAxis) -> Vec<Item> {
    let s = &sim.settings;
    let end = s.duration_seconds.max(1);
    let plot_right = WIDTH - RIGHT;
    time_grid(svg, sim, axis, end);
    // A tick at every sync, when they are far enough apart to see.
    let spacing = (plot_right - LEFT) / (f(end) / f(s.sync_period_seconds.max(1)));
    if spacing >= 3.0 {
        let mut ticks = String::new();
        for row in &sim.timeline {
            let _ = write!(ticks, "M{:.1},{METRIC_END} v7 ", axis.x(row.time));
        }
        let _ = writeln!(
            svg,
            r#"<path d="{}" stroke="{MUTED}" stroke-width="1"/>"#,
            ticks.trim_end()
        );
    }
    let marks = markers(sim, axis);
    for &(kind, px) in &marks {
        let _ = writeln!(
            svg,
            "{}",
            kind.shape(f(px) / 10.0, METRIC_END + 10.0 + kind.row())
        );
    }
    let mut items: Vec<Item> = Marker::ALL
        .into_iter()
        .filter(|kind| marks.iter().any(|(k, _)| k == kind))
        .map(|kind| (kind.label().to_string(), kind.shape(11.0, -4.0)))
        .collect();
    items.push((
        "HPA sync".to_string(),
        format!(r#"<line x1="11" y1="-6" x2="11" y2="6" stroke="{MUTED}" stroke-width="1"/>"#),
    ));
    items
}

/// The time axis's grid, labels and title, up to `end` (seconds), under both panels.
fn time_grid(svg: &mut String, sim: &Simulation, axis: &TimeAxis, end: i64) {
    let plot_right = WIDTH - RIGHT;
    let step = time_step(end);
    let mut t = 0;
    while t <= end {
        let x = axis.x(t);
        for (top, bottom) in [(TOP, TOP_END), (METRIC, METRIC_END)] {
            let _ = writeln!(
                svg,
                r#"<line x1="{x:.1}" y1="{top}" x2="{x:.1}" y2="{bottom}" stroke="{GRID}" stroke-width="1" stroke-dasharray="2 3"/>"#
            );
        }
        // A replay is labelled as the table shows it (the UTC time of day, and the date when
        // the run crosses midnight), to the minute.
        let label = super::timeline::replay_time(sim, t)
            .and_then(|time| time.get(..time.len().saturating_sub(3)).map(str::to_string))
            .unwrap_or_else(|| time_label(t));
        let _ = writeln!(
            svg,
            r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle" fill="{MUTED}">{label}</text>"#,
            METRIC_END + 44.0,
        );
        t += step;
    }
    for y in [TOP_END, METRIC_END] {
        let _ = writeln!(
            svg,
            r#"<line x1="{LEFT}" y1="{y}" x2="{plot_right}" y2="{y}" stroke="{MUTED}" stroke-width="1"/>"#
        );
    }
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="{MUTED}">{}</text>"#,
        (LEFT + plot_right) / 2.0,
        METRIC_END + 62.0,
        match &sim.replay {
            Some(r) => {
                // The labels carry the date when the run crosses midnight UTC.
                let dated = super::timeline::replay_time(sim, 0).is_some_and(|t| t.contains(' '));
                let form = if dated { "MM-DD hh:mm" } else { "hh:mm" };
                esc(&format!(
                    "UTC time of day ({form}), replay from {}",
                    r.start
                ))
            }
            None => time_title(end).to_string(),
        }
    );
}

/// The configurations' lines of a comparison, in order: a colour and a dash each, so that a
/// grey-scale print still tells them apart.
const CONFIGURATIONS: [(&str, &str); 6] = [
    ("#0969da", ""),
    ("#cf222e", "8 4"),
    ("#1a7f37", "3 3"),
    ("#8250df", "12 4 2 4"),
    ("#bc4c00", "2 2"),
    ("#57606a", "10 3"),
];

/// `simulate --compare --chart`: one desired-replicas line per configuration over the actual
/// replicas (top), and the load they all ran on (bottom).
pub fn render_comparison(cmp: &Comparison) -> String {
    let Some(base) = cmp.configurations.first().map(|c| &c.simulation) else {
        return String::new();
    };
    let end = (cmp.configurations.iter())
        .map(|c| c.simulation.settings.duration_seconds)
        .fold(1, i64::max);
    let axis = TimeAxis { duration: f(end) };
    let mut svg = heading(base);
    let mut lines: Vec<Line> = Vec::new();
    for (i, c) in cmp.configurations.iter().enumerate() {
        let (color, dash) = CONFIGURATIONS
            .get(i % CONFIGURATIONS.len())
            .copied()
            .unwrap_or(("#0969da", ""));
        let points = series(&c.simulation.timeline, |r| {
            Some(f64::from(r.desired_replicas))
        });
        lines.push(Line::new(
            &format!("#{} {}", i + 1, c.name),
            color,
            2.2,
            dash,
            points,
        ));
    }
    if base.timeline.iter().any(|r| r.actual_replicas.is_some()) {
        let points = series(&base.timeline, |r| r.actual_replicas.map(f64::from));
        lines.push(Line::new(
            "actual replicas (the cluster)",
            ACTUAL,
            1.6,
            "9 3 2 3",
            points,
        ));
    }
    let peak = (lines.iter())
        .flat_map(|l| l.points.iter().filter_map(|p| p.1))
        .fold(1.0, f64::max);
    let (max, step) = nice_scale(peak * 1.1, true);
    let counts = Scale {
        top: TOP,
        bottom: TOP_END,
        max,
        step,
    };
    grid(&mut svg, counts, trim_float);
    panel_titles(
        &mut svg,
        counts,
        "Desired replicas, one line per configuration",
        "pods",
    );
    for line in &lines {
        draw(&mut svg, line, end, &axis, counts);
    }
    let first = base.load_columns.first();
    let column = first.map_or("load", |c| c.name.as_str());
    let unit = match first.and_then(|c| c.resource.as_deref()) {
        Some("cpu") => "cores",
        Some("memory") => "bytes",
        _ => "total",
    };
    let load: Vec<(i64, Option<f64>)> = (base.load_curve.iter())
        .map(|p| (p.time, Some(p.load)))
        .collect();
    let load_peak = load.iter().filter_map(|p| p.1).fold(0.0, f64::max);
    let (max, step) = nice_scale(load_peak * 1.1, false);
    let values = Scale {
        top: METRIC,
        bottom: METRIC_END,
        max,
        step,
    };
    grid(&mut svg, values, trim_float);
    panel_titles(
        &mut svg,
        values,
        &format!("The load they all ran on: {column}"),
        unit,
    );
    let load_line = Line::new(&format!("load ({column})"), LIMIT, 2.0, "", load);
    draw(&mut svg, &load_line, end, &axis, values);
    lines.push(load_line);
    time_grid(&mut svg, base, &axis, end);
    draw_legend(
        &mut svg,
        lines.iter().map(|l| (esc(&l.label), l.swatch())).collect(),
    );
    svg.push_str("</svg>\n");
    svg
}

/// The legend, in rows under the time axis title.
fn draw_legend(svg: &mut String, items: Vec<Item>) {
    let mut lx = LEFT;
    let mut ly = METRIC_END + 94.0;
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

/// An axis label: no trailing zeros.
fn trim_float(v: f64) -> String {
    let text = format!("{v:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    text.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_have_round_steps_and_a_whole_number_of_them() {
        for (peak, whole, want) in [
            (8.8, true, (10.0, 2.0)),
            (33.0, true, (40.0, 10.0)),
            (60.5, false, (80.0, 20.0)),
            (1.1, true, (2.0, 1.0)),
            (0.33, false, (0.4, 0.1)),
            (0.0, false, (1.0, 0.2)),
        ] {
            let (max, step) = nice_scale(peak, whole);
            assert!(
                (max - want.0).abs() < 1e-9 && (step - want.1).abs() < 1e-9,
                "{peak}: {max} {step}"
            );
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
        let d = step_path(&[(0, Some(1.0)), (10, Some(2.0))], 20, f, |v| v);
        assert_eq!(d, "M0.0,1.0 H10.0 V2.0 H20.0");
    }

    #[test]
    fn a_value_the_controller_could_not_compute_breaks_the_line() {
        let points = [(0, Some(1.0)), (10, None), (20, Some(3.0)), (30, Some(4.0))];
        let d = step_path(&points, 40, f, |v| v);
        assert_eq!(d, "M0.0,1.0 H10.0 M20.0,3.0 H30.0 V4.0 H40.0");
    }

    fn builtin(name: &str) -> Simulation {
        crate::calc::simulate::run(&crate::input::builtin::builtin_setup(name))
    }

    #[test]
    fn a_replay_is_labelled_with_the_utc_time_of_day_as_the_table_is() {
        let mut sim = builtin("real-drop");
        assert!(render(&sim).contains(">2:00</text>"));
        sim.replay = Some(crate::scenario::simulation::Replay {
            start: "2026-11-30T03:00:00Z".to_string(),
            step_seconds: 15,
            load_gaps: 0,
        });
        let svg = render(&sim);
        // Ticks every minute of the 10-minute run: 2:00 from the start is 03:02 UTC.
        assert!(svg.contains(">03:02</text>"), "{svg}");
        assert!(!svg.contains(">2:00</text>"));
        assert!(svg.contains("UTC time of day (hh:mm), replay from 2026-11-30T03:00:00Z"));
    }

    #[test]
    fn a_replay_across_midnight_utc_is_labelled_with_the_date_as_the_table_is() {
        let mut sim = builtin("real-drop");
        sim.replay = Some(crate::scenario::simulation::Replay {
            start: "2026-11-30T23:55:00Z".to_string(),
            step_seconds: 15,
            load_gaps: 0,
        });
        let svg = render(&sim);
        assert!(svg.contains(">11-30 23:57</text>"), "{svg}");
        assert!(svg.contains(">12-01 00:02</text>"), "{svg}");
        assert!(svg.contains("UTC time of day (MM-DD hh:mm), replay from 2026-11-30T23:55:00Z"));
        let layout = crate::render::timeline::Layout {
            color: false,
            width: 200,
        };
        let every = crate::render::timeline::Rows {
            every_sync: true,
            sparkline: false,
        };
        let table = crate::render::timeline::table_with(&sim, layout, every);
        assert!(table.contains("12-01 00:04:00"), "{table}");
    }

    #[test]
    fn actual_replicas_are_drawn_only_when_given() {
        let mut sim = builtin("real-drop");
        assert!(!render(&sim).contains("actual replicas"));
        for (i, row) in sim.timeline.iter_mut().enumerate() {
            row.actual_replicas = (i < 3).then_some(5);
        }
        let svg = render(&sim);
        assert!(svg.contains("actual replicas (the cluster)"));
        // Three syncs 15 s apart at 5, then a gap; the scale's top is 15 (maxReplicas 10 + 10%).
        let y = Scale {
            top: TOP,
            bottom: TOP_END,
            max: 15.0,
            step: 5.0,
        }
        .y(5.0);
        let axis = TimeAxis { duration: 600.0 };
        let d = format!(
            "M{LEFT:.1},{y:.1} H{:.1} V{y:.1} H{:.1} V{y:.1} H{:.1}",
            axis.x(15),
            axis.x(30),
            axis.x(45)
        );
        assert!(
            svg.contains(&format!(r#"<path d="{d}" fill="none" stroke="{ACTUAL}""#)),
            "{d}"
        );
    }

    #[test]
    fn scale_events_and_node_requests_are_marked_under_the_time_axis() {
        let sim = builtin("pods-pending");
        let axis = TimeAxis {
            duration: f(sim.settings.duration_seconds),
        };
        let marks: Vec<(Marker, i64)> = markers(&sim, &axis).into_iter().collect();
        let ups: Vec<i64> = sim
            .timeline
            .iter()
            .filter(|r| r.desired_replicas > r.replicas)
            .map(|r| r.time)
            .collect();
        assert!(!ups.is_empty());
        let requests: Vec<i64> = sim
            .events
            .iter()
            .filter(|e| e.source == "clusterAutoscaler" && e.message.starts_with("requests "))
            .map(|e| e.time)
            .collect();
        assert!(!requests.is_empty());
        #[allow(clippy::cast_possible_truncation)]
        let px = |t: i64| (axis.x(t) * 10.0).round() as i64;
        let want: Vec<(Marker, i64)> = ups
            .iter()
            .map(|&t| (Marker::ScaleUp, px(t)))
            .chain(requests.iter().map(|&t| (Marker::NodeRequest, px(t))))
            .collect();
        assert_eq!(marks, want);
        let svg = render(&sim);
        for label in [
            "scale-up",
            "node request",
            "Pending pods",
            "nodes (Ready + booting)",
        ] {
            assert!(
                svg.contains(&format!("<text x=\"30\" y=\"4.5\">{label}</text>")),
                "{label}"
            );
        }
        assert!(!svg.contains(">scale-down</text>"));
    }

    #[test]
    fn a_long_title_is_cut_with_an_ellipsis() {
        assert_eq!(shorten("abcdef", 6), "abcdef");
        assert_eq!(shorten("abcdefg", 6), "abcde…");
    }

    #[test]
    fn labels_are_escaped() {
        assert_eq!(esc("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
