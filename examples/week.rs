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
use clap::Parser;
use hpacalc::cli::{Cli, Command};

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

/// The flags of the model run, on top of the base run's.
const MODEL: &[&str] = &[
    "--pod-limit",
    "cpu=600m",
    "--startup-cpu",
    "2x:45s",
    "--rollout",
    "84h",
    "--max-unavailable",
    "0",
    "--min-ready-seconds",
    "30",
];

fn main() -> Result<()> {
    run("base", &[])?;
    run("limits, startup burst and a rollout", MODEL)
}

fn run(label: &str, extra: &[&str]) -> Result<()> {
    let base = [
        "hpacalc",
        "simulate",
        "--hpa",
        "week-hpa.yaml",
        "--load",
        "week-load.csv",
        "--duration",
        "168h",
        "--pod-request",
        "cpu=500m,memory=512Mi",
        "--node-allocatable",
        "cpu=4,memory=16Gi,pods=110",
        "--daemonset-requests",
        "cpu=200m,memory=256Mi",
        "--node-group-min",
        "1",
        "--node-group-max",
        "20",
    ];
    let cli = Cli::try_parse_from(base.iter().chain(extra))?;
    let Some(Command::Simulate(args)) = cli.command else {
        bail!("not a simulate command line");
    };
    let load = week_load();
    let setup = hpacalc::input::load::setup(
        &args,
        ("week-hpa.yaml", HPA),
        ("week-load.csv", &load),
        None,
    )?;
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
    let json = hpacalc::render::timeline::json(&sim);
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
