//! `/simulate`, the step simulator of `hpacalc serve`: a pure function of a run stopped at `t`
//! (its `Simulation`, the `Snapshot` of the cluster, the last sync's `Report`) and its controls,
//! to one self-contained page. Three panels (the HPA controller; the workload and the Cluster
//! Autoscaler; the cluster's nodes and pods), the chart, the last syncs and the events. No
//! script runs: every control is a link (or, for pasted inputs, a button of one POST form). The
//! run's `-o json` is in `#hpacalc-data`, the snapshot in `#hpacalc-cluster`.

use std::fmt::Write;

use crate::calc::simulate::snapshot::{PodSnapshot, Snapshot};
use crate::calc::simulate::{Simulation, clock};
use crate::render::chart;
use crate::render::html::{events, report_body, timeline};
use crate::render::page::{data_script, esc, head, text_area, text_field};
use crate::render::timeline::{LoadUnit, cells, header, load_text, load_unit, summary_lines};
use crate::report::Report;

/// Where a control goes.
#[derive(Debug, Clone, PartialEq)]
pub enum To {
    /// A link to this state.
    Link(String),
    /// A link to the state the page shows (a key moment's).
    Here(String),
    /// The POST form's button value (`go`): `SECONDS` or `SECONDS;AT:QUANTITY`.
    Post(String),
}

/// One control: its stable id, its label, where it goes.
#[derive(Debug, Clone, PartialEq)]
pub struct Control {
    pub id: String,
    pub label: String,
    pub to: To,
}

/// What the page shows besides the run.
#[derive(Debug, Clone, Default)]
pub struct Frame {
    /// Next sync, wait a minute, start over.
    pub steps: Vec<Control>,
    /// The load choices.
    pub loads: Vec<Control>,
    /// The five demos.
    pub demos: Vec<Control>,
    /// A paste's fields, carried by the POST form: (field, value).
    pub carried: Option<Vec<(String, String)>>,
    /// The paste form's settings fields: (id, label, value).
    pub settings: Vec<(&'static str, &'static str, String)>,
    /// The built-in scenarios, for the chooser: (name, chosen).
    pub scenarios: Vec<(&'static str, bool)>,
    /// An input error (the CLI's located message).
    pub error: Option<String>,
    /// The server has a cluster.
    pub fleet: bool,
    /// The run's key moments (`the scale-up 4 → 8`), each a link to its instant; the one at
    /// this page's instant has the class `here`.
    pub moments: Vec<Control>,
    /// Steps through the moments, one page every few seconds.
    pub play: Option<Control>,
    /// While playing: the next moment's page, which this one refreshes to.
    pub refresh: Option<String>,
}

/// Seconds a played moment stays on screen.
pub const PLAY_SECONDS: u32 = 4;

/// One key moment of a run: its instant (a sync's) and what happens then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moment {
    pub t: i64,
    pub label: String,
}

/// The most moments a run lists.
pub const MAX_MOMENTS: usize = 8;

/// The key moments of a run, read from its syncs as the timeline shows them: each change of the
/// load, the first sync the stabilization window holds the count (`ScaleDownStabilized`), each
/// scale-up and scale-down (a scale-down after the window held is "the window expires"), the
/// first capped at `maxReplicas` (`TooManyReplicas`), the sync where a scale-up's new pods are
/// all Ready; and from the run's events, at their own instants, the first pods Pending, the
/// Cluster Autoscaler's first node request, the first node Ready and the Pending pods bound. Moments at one instant are one, their words joined; at
/// most `MAX_MOMENTS`, the earliest.
pub fn moments(sim: &Simulation) -> Vec<Moment> {
    let unit = page_unit(sim);
    let mut found: Vec<Moment> = Vec::new();
    let mut add = |t: i64, label: String| match found.iter_mut().find(|m| m.t == t) {
        Some(m) => {
            m.label.push_str("; ");
            m.label.push_str(&label);
        }
        None => found.push(Moment { t, label }),
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut waiting_ready: Option<i32> = None;
    let mut prev: Option<&crate::calc::simulate::SyncRow> = None;
    for row in &sim.timeline {
        let reason = row.reason.as_deref().unwrap_or("");
        if let Some(p) = prev
            && load_text(unit, p.load) != load_text(unit, row.load)
        {
            let way = if row.load > p.load { "rises" } else { "falls" };
            add(
                row.time,
                format!("the load {way} to {}", load_text(unit, row.load)),
            );
        }
        let was_held = prev.is_some_and(|p| p.reason.as_deref() == Some("ScaleDownStabilized"));
        if reason == "ScaleDownStabilized" && !was_held {
            add(
                row.time,
                format!(
                    "the window holds {} (the metrics ask {})",
                    row.desired_replicas,
                    row.recommendation
                        .map_or_else(|| "-".to_string(), |r| r.to_string())
                ),
            );
        }
        if let Some(target) = waiting_ready
            && row.ready_replicas >= i64::from(target)
            && row.replicas == target
        {
            add(row.time, format!("the new pods are Ready ({target})"));
            waiting_ready = None;
        }
        if row.desired_replicas > row.replicas {
            add(
                row.time,
                format!("the scale-up {} → {}", row.replicas, row.desired_replicas),
            );
            waiting_ready = Some(row.desired_replicas);
        } else if row.desired_replicas < row.replicas {
            let what = if was_held {
                "the window expires"
            } else {
                "the scale-down"
            };
            add(
                row.time,
                format!("{what}: {} → {}", row.replicas, row.desired_replicas),
            );
        }
        if reason == "TooManyReplicas" && seen.insert("capped") {
            add(
                row.time,
                format!("capped at maxReplicas {}", sim.settings.max_replicas),
            );
        }
        prev = Some(row);
    }
    // The cluster's moments, at their own instants: the first pods no node has room for, the
    // Cluster Autoscaler's first request, the first node turning Ready, the waiting pods bound.
    for e in &sim.events {
        let m = e.message.as_str();
        let label = match e.source {
            "scheduler" if m.contains("unschedulable") && seen.insert("pending") => {
                format!("{} pod(s) Pending", m.split(' ').next().unwrap_or(""))
            }
            "clusterAutoscaler" if m.starts_with("requests") && seen.insert("request") => {
                "the Cluster Autoscaler requests a node".to_string()
            }
            "kubelet"
                if m.ends_with(" Ready")
                    && !m.starts_with(|c: char| c.is_ascii_digit())
                    && seen.insert("node") =>
            {
                m.to_string()
            }
            "scheduler" if m.contains("bound to") && seen.insert("bound") => {
                "the Pending pods are bound".to_string()
            }
            _ => continue,
        };
        add(e.time, label);
    }
    found.sort_by_key(|m| m.t);
    found.truncate(MAX_MOMENTS);
    found
}

const STYLE: &str = r"
.bar { display: flex; gap: 16px; flex-wrap: wrap; align-items: center; margin: 8px 0; }
.bar a, .bar button { padding: 3px 10px; border: 1px solid #d0d7de; border-radius: 4px;
  background: #f6f8fa; color: #24292f; text-decoration: none; font: inherit; cursor: pointer; }
.panels { display: grid; grid-template-columns: repeat(auto-fit, minmax(340px, 1fr)); gap: 16px; }
.panel { border: 1px solid #d8dee4; padding: 8px 12px; }
.strip { display: flex; flex-wrap: wrap; gap: 2px; margin: 6px 0; }
.cell { min-width: 26px; padding: 2px; text-align: center; border: 1px solid #d0d7de;
  font: 12px monospace; }
.cell.out { color: #8c959f; border-style: dashed; }
.cell.holds { background: #ddf4ff; border-color: #0969da; font-weight: 700; }
.node { display: inline-block; border: 1px solid #8c959f; margin: 4px; padding: 4px;
  vertical-align: top; }
.node.booting { border-style: dashed; }
.slot { display: inline-block; width: 54px; height: 22px; margin: 2px; border: 1px dotted #d0d7de;
  font: 11px/22px monospace; text-align: center; }
.slot.ready { background: #dafbe1; } .slot.starting { background: #fff8c5; }
.slot.terminating { background: #ffebe9; } .slot.pending { background: #ffebe9;
  border: 1px solid #cf222e; }
.notice { background: #f6f8fa; padding: 8px; border-left: 3px solid #0969da; }
.muted { color: #57606a; }
#moments a.here { background: #fff3c4; border-color: #d4a72c; font-weight: 600; }
#moments a#play { background: #dafbe1; }
";

/// The whole page; `run` is `None` when the inputs were refused (the error is in `frame`).
pub fn page(
    run: Option<(&Simulation, &Snapshot, Option<&Report>)>,
    frame: &Frame,
    json: &str,
) -> String {
    let mut out = head("the HPA simulator", STYLE, frame.fleet);
    if let Some(next) = &frame.refresh {
        // Playing: the next moment in a few seconds, still no script.
        out = out.replacen(
            "<title>",
            &format!(
                "<meta http-equiv=\"refresh\" content=\"{PLAY_SECONDS}; url={}\"><title>",
                esc(next)
            ),
            1,
        );
    }
    out.push_str("<h1>The HPA simulator</h1>\n");
    if let Some(message) = &frame.error {
        let _ = writeln!(
            out,
            "<p class=\"error\" id=\"error\" role=\"alert\">{}</p>",
            esc(message)
        );
    }
    if let Some((sim, snapshot, last)) = run {
        if let Some(label) = &sim.scenario {
            let _ = writeln!(
                out,
                "<p class=\"notice\" id=\"story\"><b>{}</b>: {}</p>",
                esc(&label.name),
                esc(&label.notice)
            );
        }
        controls(&mut out, sim, frame);
        out.push_str("<div class=\"panels\">\n");
        hpa_panel(&mut out, sim, snapshot, last);
        workload_panel(&mut out, sim, snapshot);
        cluster_panel(&mut out, snapshot);
        out.push_str("</div>\n");
        let _ = writeln!(
            out,
            "<h2>Chart</h2>\n<div id=\"chart\">{}</div>",
            chart::render(sim)
        );
        out.push_str("<h2>The last syncs</h2>\n");
        timeline(
            &mut out,
            sim,
            sim.timeline.len().saturating_sub(20),
            page_unit(sim),
        );
        events(&mut out, sim);
        data_script(&mut out, "hpacalc-data", json);
        let cluster = serde_json::to_string(snapshot).unwrap_or_default();
        data_script(&mut out, "hpacalc-cluster", &cluster);
    } else {
        demos(&mut out, frame);
    }
    open_form(&mut out, frame);
    out.push_str("</body></html>\n");
    out
}

/// The loads' unit on every simulator page: millicores for cpu (`1000m`, `3000m`), whatever the
/// run's values, so that no demo reads `1` where another reads `3000m`; other resources as the
/// timeline writes them.
pub(crate) fn page_unit(sim: &Simulation) -> LoadUnit {
    let resource = sim.load_columns.first().and_then(|c| c.resource.as_deref());
    if resource == Some("cpu") {
        LoadUnit::Milli
    } else {
        load_unit(sim)
    }
}

fn control(out: &mut String, c: &Control) {
    match &c.to {
        To::Link(href) => {
            let _ = write!(
                out,
                "<a id=\"{}\" href=\"{}\">{}</a>",
                esc(&c.id),
                esc(href),
                esc(&c.label)
            );
        }
        To::Here(href) => {
            let _ = write!(
                out,
                "<a id=\"{}\" class=\"here\" href=\"{}\" aria-current=\"step\">{}</a>",
                esc(&c.id),
                esc(href),
                esc(&c.label)
            );
        }
        To::Post(go) => {
            let _ = write!(
                out,
                "<button type=\"submit\" form=\"state\" name=\"go\" id=\"{}\" value=\"{}\">{}\
                 </button>",
                esc(&c.id),
                esc(go),
                esc(&c.label)
            );
        }
    }
}

fn demos(out: &mut String, frame: &Frame) {
    out.push_str("<div class=\"bar\"><span>Demos:</span>");
    for c in &frame.demos {
        control(out, c);
    }
    out.push_str("</div>\n");
}

/// The clock, the steps, the load choices and the demos; a paste's fields in one hidden form.
fn controls(out: &mut String, sim: &Simulation, frame: &Frame) {
    if let Some(carried) = &frame.carried {
        out.push_str("<form method=\"post\" action=\"/simulate\" id=\"state\">");
        for (name, value) in carried {
            let _ = write!(
                out,
                "<input type=\"hidden\" name=\"{}\" value=\"{}\">",
                esc(name),
                esc(value)
            );
        }
        out.push_str("</form>\n");
    }
    let now = sim.settings.duration_seconds;
    let unit = page_unit(sim);
    let load = sim.timeline.last().map_or(0.0, |r| r.load);
    let _ = write!(
        out,
        "<div class=\"bar\"><b id=\"clock\" data-t=\"{now}\">t = {}</b>",
        clock(now)
    );
    for c in &frame.steps {
        control(out, c);
    }
    let _ = write!(
        out,
        "</div>\n<div class=\"bar\"><span>Load now <b id=\"load\">{}</b>; from the next second:\
         </span>",
        esc(&load_text(unit, load))
    );
    for c in &frame.loads {
        control(out, c);
    }
    out.push_str("</div>\n");
    if !frame.moments.is_empty() {
        out.push_str("<div class=\"bar\" id=\"moments\"><span>Key moments:</span>");
        if let Some(play) = &frame.play {
            control(out, play);
        }
        for c in &frame.moments {
            control(out, c);
        }
        out.push_str("</div>\n");
    }
    demos(out, frame);
}

fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn row2(out: &mut String, name: &str, value: &str) {
    let _ = writeln!(
        out,
        "<tr><th>{}</th><td>{}</td></tr>",
        esc(name),
        esc(value)
    );
}

/// The HPA controller: its settings, the last sync's numbers and steps, the window's cells.
fn hpa_panel(out: &mut String, sim: &Simulation, snapshot: &Snapshot, last: Option<&Report>) {
    let s = &sim.settings;
    out.push_str("<section class=\"panel\" id=\"hpa-panel\"><h2>HPA controller</h2><table>\n");
    row2(out, "HPA", &format!("{} → {}", sim.hpa, sim.target));
    row2(
        out,
        "metric",
        &format!("{} target {}", sim.metric.description, sim.metric.target),
    );
    row2(
        out,
        "replicas",
        &format!("min {}, max {}", s.min_replicas, s.max_replicas),
    );
    row2(
        out,
        "sync, window",
        &format!(
            "every {}s; scale-down window {}s, scale-up {}s; Kubernetes {} rules",
            s.sync_period_seconds,
            s.scale_down_window_seconds,
            s.scale_up_window_seconds,
            sim.kube_version
        ),
    );
    out.push_str("</table>\n");
    let stabilized = sim.timeline.last().and_then(|r| r.stabilized);
    let _ = writeln!(
        out,
        "<h3>Recommendations kept</h3><div class=\"strip\" id=\"window\">{}</div>\
         <p class=\"muted\">Dashed: outside the last sync's window. Blue: the recommendation that \
         holds.</p>",
        strip(snapshot, stabilized)
    );
    if let Some(row) = sim.timeline.last() {
        let unit = page_unit(sim);
        let _ = writeln!(
            out,
            "<h3>The sync at {}</h3><table id=\"last-sync\">",
            clock(row.time)
        );
        for (h, c) in header(sim).iter().zip(cells(sim, unit, row)) {
            row2(out, h, &c);
        }
        out.push_str("</table>\n");
    }
    if let Some(report) = last {
        out.push_str(
            "<details id=\"steps\"><summary>Its steps, as the controller takes them</summary>\n",
        );
        report_body(out, report);
        out.push_str("</details>\n");
    }
    out.push_str("</section>\n");
}

fn strip(snapshot: &Snapshot, stabilized: Option<i32>) -> String {
    let mut out = String::new();
    let holds = snapshot
        .recommendations
        .iter()
        .rposition(|c| c.counts && Some(c.replicas) == stabilized);
    for (i, c) in snapshot.recommendations.iter().enumerate() {
        let class = if Some(i) == holds {
            "cell holds"
        } else if c.counts {
            "cell"
        } else {
            "cell out"
        };
        let _ = write!(
            out,
            "<span class=\"{class}\" title=\"{}\" data-time=\"{}\">{}</span>",
            clock_signed(c.time),
            c.time,
            c.replicas
        );
    }
    out
}

fn clock_signed(seconds: i64) -> String {
    if seconds < 0 {
        format!("-{}", clock(-seconds))
    } else {
        clock(seconds)
    }
}

/// How many pods of the snapshot are in each state: (ready, starting, pending, terminating).
/// The workload panel counts these, the pods the cluster panel draws, so both say the same at
/// every instant. (The last sync's row counts the pods as the HPA read them, before that sync's
/// change reached the ReplicaSet: at 5:15 of drop-to-three it read 8 Ready and set 3, and the
/// ReplicaSet deleted 5 at the same instant.)
pub fn pod_counts(snapshot: &Snapshot) -> [usize; 4] {
    let every = || {
        (snapshot.nodes.iter().flat_map(|n| &n.pods))
            .chain(&snapshot.unmodelled)
            .chain(&snapshot.pending)
    };
    let of = |state: &str| every().filter(|p| p.state == state).count();
    [
        of("ready"),
        of("starting"),
        of("pending"),
        of("terminating"),
    ]
}

/// The workload and the Cluster Autoscaler: load, metrics, the Deployment, the pods and nodes
/// now (the snapshot's, as the cluster panel draws them), the node group.
fn workload_panel(out: &mut String, sim: &Simulation, snapshot: &Snapshot) {
    out.push_str(
        "<section class=\"panel\" id=\"workload-panel\"><h2>Workload and Cluster Autoscaler</h2>\
         <table>\n",
    );
    if let Some(row) = sim.timeline.last() {
        let unit = page_unit(sim);
        row2(out, "load", &load_text(unit, row.load));
        let reading = row.utilization.map_or_else(
            || "-".to_string(),
            |u| {
                if sim.metric.percent {
                    format!("{u}%")
                } else {
                    u.to_string()
                }
            },
        );
        row2(
            out,
            "metrics",
            &format!("{reading} (target {})", sim.metric.target),
        );
        row2(
            out,
            "Deployment",
            &format!("spec.replicas {} → {}", row.replicas, row.desired_replicas),
        );
        let [ready, starting, pending, terminating] = pod_counts(snapshot);
        let _ = writeln!(
            out,
            "<tr><th>pods now</th><td id=\"pods-now\" data-ready=\"{ready}\" \
             data-starting=\"{starting}\" data-pending=\"{pending}\" \
             data-terminating=\"{terminating}\">{ready} Ready, {starting} starting, {pending} \
             Pending{}</td></tr>",
            if terminating > 0 {
                format!(", {terminating} terminating")
            } else {
                String::new()
            }
        );
        if (row.ready_replicas, row.starting_pods, row.pending_pods)
            != (count(ready), count(starting), count(pending))
        {
            row2(
                out,
                &format!("pods the {} sync read", clock(row.time)),
                &format!(
                    "{} Ready, {} starting, {} Pending",
                    row.ready_replicas, row.starting_pods, row.pending_pods
                ),
            );
        }
        let booting = snapshot
            .nodes
            .iter()
            .filter(|n| n.ready_at.is_some())
            .count();
        let nodes = snapshot.nodes.len() - booting;
        match &sim.settings.nodes {
            Some(group) if group.karpenter.is_some() => {
                let cost: f64 = (snapshot.nodes.iter())
                    .filter_map(|n| n.node_claim.as_ref().map(|c| c.price_per_hour))
                    .sum();
                row2(
                    out,
                    "Karpenter",
                    &format!(
                        "{nodes} NodeClaim(s) Ready, {booting} launched and booting, ${cost:.3}/h"
                    ),
                );
            }
            Some(group) => {
                let max = group
                    .node_group_max
                    .map_or_else(|| "no max".to_string(), |m| format!("max {m}"));
                row2(
                    out,
                    "node group",
                    &format!(
                        "{nodes} Ready, {booting} booting (min {}, {max}; {} pods a node)",
                        group.node_group_min, group.pods_per_node
                    ),
                );
            }
            None => row2(out, "node group", "no node model: every pod finds room"),
        }
    }
    out.push_str("</table>\n<ul>\n");
    for line in summary_lines(sim) {
        let _ = writeln!(out, "<li>{}</li>", esc(&line));
    }
    out.push_str("</ul></section>\n");
}

fn pods(out: &mut String, list: &[PodSnapshot]) {
    for p in list {
        let _ = write!(
            out,
            "<span class=\"slot {}\" title=\"{} {}\">{}</span>",
            p.state,
            esc(&p.name),
            p.state,
            esc(p.name.rsplit('-').next().unwrap_or(&p.name))
        );
    }
}

/// The cluster: each node's slots and pods, the Pending pods.
fn cluster_panel(out: &mut String, snapshot: &Snapshot) {
    out.push_str("<section class=\"panel\" id=\"cluster-panel\"><h2>Cluster</h2>\n");
    for node in &snapshot.nodes {
        let (class, state) = match node.ready_at {
            Some(at) => ("node booting", format!(", booting, Ready at {}", clock(at))),
            None => ("node", String::new()),
        };
        let claim = node.node_claim.as_ref().map_or_else(String::new, |c| {
            format!(
                " <span class=\"claim\">NodeClaim {} {} ${:.3}/h</span>",
                esc(&c.instance_type),
                esc(&c.capacity_type),
                c.price_per_hour
            )
        });
        let _ = write!(
            out,
            "<div class=\"{class}\" data-node=\"{}\"><div>{}{claim}{state}</div>",
            esc(&node.name),
            esc(&node.name)
        );
        pods(out, &node.pods);
        let free = usize::try_from(node.slots)
            .unwrap_or(0)
            .saturating_sub(node.pods.len());
        for _ in 0..free.min(64) {
            out.push_str("<span class=\"slot\"></span>");
        }
        out.push_str("</div>\n");
    }
    if !snapshot.unmodelled.is_empty() {
        out.push_str("<p class=\"muted\">No node model: the pods as they stand.</p><div>");
        pods(out, &snapshot.unmodelled);
        out.push_str("</div>\n");
    }
    let _ = write!(
        out,
        "<h3>Pending ({})</h3><div id=\"pending\">",
        snapshot.pending.len()
    );
    pods(out, &snapshot.pending);
    out.push_str(
        "</div>\n<p class=\"muted\">Green Ready, yellow starting, red Pending or terminating.</p>\
         </section>\n",
    );
}

/// Open a scenario (GET) or paste any `simulate` input (POST).
fn open_form(out: &mut String, frame: &Frame) {
    out.push_str(
        "<h2>Open a run</h2><div class=\"forms\"><form method=\"get\" action=\"/simulate\" \
         id=\"open-scenario\"><label for=\"scenario\">built-in scenario</label> \
         <select id=\"scenario\" name=\"scenario\">",
    );
    for (name, chosen) in &frame.scenarios {
        let selected = if *chosen { " selected" } else { "" };
        let _ = write!(out, "<option{selected}>{}</option>", esc(name));
    }
    out.push_str(
        "</select> <button type=\"submit\" id=\"open\">Open</button></form>\n\
         <form method=\"post\" action=\"/simulate\" id=\"paste\"><h3>Paste</h3>\n",
    );
    let carried = |name: &str| {
        frame
            .carried
            .as_ref()
            .and_then(|c| c.iter().find(|(n, _)| n == name))
            .map_or("", |(_, v)| v.as_str())
    };
    for (id, label, rows) in [
        ("hpa", "HPA manifest or ScaledObject", 8),
        ("load", "load CSV or a saved Prometheus answer", 5),
        ("actual", "actual replicas (optional)", 2),
        (
            "nodepool",
            "Karpenter NodePool (optional; the built-in AWS catalog)",
            4,
        ),
    ] {
        text_area(out, id, label, rows, carried(id));
    }
    for (id, label, value) in &frame.settings {
        text_field(out, id, label, value);
    }
    out.push_str(
        "<label for=\"t\">simulate to (seconds) <input type=\"text\" id=\"t\" name=\"t\" \
         value=\"0\"></label>\n<button type=\"submit\" id=\"simulate\">Simulate</button></form>\
         </div>\n",
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::simulate::snapshot::WindowCell;

    #[test]
    fn the_cell_that_holds_is_the_newest_counted_one_of_the_stabilized_count() {
        let cell = |time, replicas, counts| WindowCell {
            time,
            replicas,
            counts,
        };
        let snapshot = Snapshot {
            time: 30,
            nodes: Vec::new(),
            unmodelled: Vec::new(),
            pending: Vec::new(),
            recommendations: vec![
                cell(-300, 9, false),
                cell(0, 8, true),
                cell(15, 8, true),
                cell(30, 3, true),
            ],
        };
        let strip = strip(&snapshot, Some(8));
        assert_eq!(strip.matches("class=\"cell holds\"").count(), 1);
        assert!(
            strip.contains("<span class=\"cell holds\" title=\"0:15\" data-time=\"15\">8</span>"),
            "{strip}"
        );
        assert!(
            strip.contains("<span class=\"cell out\" title=\"-5:00\" data-time=\"-300\">9</span>"),
            "{strip}"
        );
    }
}
