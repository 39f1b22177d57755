//! The week-long benchmark of `hpacalc simulate`: 7 days at 15 s syncs (40,320 syncs) over a
//! daily load wave, with a node group and the Cluster Autoscaler scanning every 10 s; then the
//! same week with the model flags on (a 600m limit per pod, a startup burst and a rolling update
//! in the middle of the week). Prints the time `calc::simulate::run` takes (best of several runs)
//! and what each run did.
//!
//! Run it in release mode: `cargo run --release --example week`.

use std::fmt::Write;
use std::time::Instant;

use anyhow::{Result, bail};
use hpacalc::input::Text;
use hpacalc::input::simulation::{self, SimSettings};
use hpacalc::render::{Exporter, Json, Terminal};

const HPA: &str = "\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: shop, namespace: bench}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: shop}
  minReplicas: 3
  maxReplicas: 40
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}
";

/// A load row every 5 minutes: a daily wave between 1.5 and 13.5 cores with a short peak at noon.
fn week_load() -> String {
    let mut csv = String::from("time,cpu\n");
    for step in 0..(7 * 24 * 12) {
        let minutes = step * 5;
        let day = f64::from(minutes % 1440) / 1440.0;
        let wave = 7.5 - 6.0 * (day * std::f64::consts::TAU).cos();
        let peak = if (715..=745).contains(&(minutes % 1440)) {
            4.0
        } else {
            0.0
        };
        // Whole millicores; the value is between 1500 and 17500.
        #[allow(clippy::cast_possible_truncation)]
        let milli = ((wave + peak) * 1000.0).round() as i64;
        let _ = writeln!(csv, "{}m,{milli}m", minutes);
    }
    csv
}

/// The settings of the base run: `--duration 168h --pod-request cpu=500m,memory=512Mi
/// --node-allocatable cpu=4,memory=16Gi,pods=110 --daemonset-requests cpu=200m,memory=256Mi
/// --node-group-min 1 --node-group-max 20`.
fn base() -> SimSettings {
    let text = |t: &str| Some(t.to_string());
    SimSettings {
        duration: text("168h"),
        pod_request: text("cpu=500m,memory=512Mi"),
        node_allocatable: text("cpu=4,memory=16Gi,pods=110"),
        daemonset_requests: vec!["cpu=200m,memory=256Mi".to_string()],
        node_group_min: Some(1),
        node_group_max: Some(20),
        ..SimSettings::default()
    }
}

/// The model run, on top of the base run: `--pod-limit cpu=600m --startup-cpu 2x:45s --rollout
/// 84h --max-unavailable 0 --min-ready-seconds 30`.
fn model() -> SimSettings {
    let text = |t: &str| Some(t.to_string());
    SimSettings {
        pod_limit: text("cpu=600m"),
        startup_cpu: text("2x:45s"),
        rollout: text("84h"),
        max_unavailable: text("0"),
        min_ready_seconds: Some(30),
        ..SimSettings::default()
    }
}

fn main() -> Result<()> {
    run("base", base())?;
    run("limits, startup burst and a rollout", model().over(base()))
}

fn run(label: &str, settings: SimSettings) -> Result<()> {
    let inputs = simulation::Inputs {
        hpa: Text::new("week-hpa.yaml", HPA),
        load: Some(Text::new("week-load.csv", week_load())),
        actual: None,
        settings,
        replay: Default::default(),
        label: None,
        load_set: Vec::new(),
    };
    let setup = simulation::build(&inputs)?;
    let mut best = f64::INFINITY;
    let mut sim = None;
    for _ in 0..5 {
        let started = Instant::now();
        let result = hpacalc::calc::simulate::run(&setup);
        best = best.min(started.elapsed().as_secs_f64());
        sim = Some(result);
    }
    let Some(sim) = sim else {
        bail!("no run");
    };
    let started = Instant::now();
    let json = Json.export(
        &sim,
        Terminal {
            color: false,
            width: 120,
        },
    );
    let render = started.elapsed().as_secs_f64();
    let s = &sim.summary;
    println!("{label}:");
    println!(
        "  {} syncs, {} events, {} scale-ups, {} scale-downs, peak {} replicas, peak {:?} nodes",
        s.syncs,
        sim.events.len(),
        s.scale_ups,
        s.scale_downs,
        s.peak_replicas,
        s.peak_nodes
    );
    #[allow(clippy::cast_precision_loss)]
    let per_sync = best / s.syncs.max(1) as f64 * 1e6;
    if let Some(peak) = s.peak_unserved_load {
        println!(
            "  {} RolloutSurge sync(s); demand unserved at {:?} sync(s), at most {peak} cores",
            s.rollout_surge_syncs, s.unserved_syncs
        );
    }
    println!(
        "  simulate::run: {:.1} ms (best of 5), {per_sync:.2} µs per sync; JSON rendering {:.1} ms ({} bytes)",
        best * 1000.0,
        render * 1000.0,
        json.len()
    );
    Ok(())
}
