//! The placement benchmark of `hpacalc simulate` (issue 35, item 3): N one-pod nodes, each
//! holding one of the N start pods (`--replicas N --existing-nodes N --node-allocatable
//! cpu=1,memory=4Gi,pods=1 --pod-request cpu=500m,memory=512Mi`), under a flat load that keeps
//! the count where it is, for 60 and 120 simulated seconds; then the same nodes with a load that
//! doubles at 0:30, so that N pods wait Pending for the nodes the Cluster Autoscaler adds. Prints
//! the time `calc::simulate::run` takes (best of three runs) for N = 1,000, 2,000, 4,000 and
//! 10,000.
//!
//! Run it in release mode: `cargo run --release --example placement`.

use std::time::Instant;

use anyhow::Result;
use hpacalc::input::Text;
use hpacalc::input::simulation::{self, SimSettings};

fn hpa(n: i64) -> String {
    format!(
        "\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {{name: wide, namespace: bench}}
spec:
  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: wide}}
  minReplicas: 1
  maxReplicas: {}
  metrics:
  - type: Resource
    resource: {{name: cpu, target: {{type: Utilization, averageUtilization: 60}}}}
",
        n * 2
    )
}

/// 60 % of each pod's 500m request at the start (the count holds); with `doubles`, twice that
/// from 0:30 on.
fn load(n: i64, doubles: bool) -> String {
    let flat = n * 300;
    if doubles {
        format!("time,cpu\n0s,{flat}m\n30s,{}m\n", flat * 2)
    } else {
        format!("time,cpu\n0s,{flat}m\n")
    }
}

fn settings(n: i64, duration: &str) -> SimSettings {
    let text = |t: &str| Some(t.to_string());
    SimSettings {
        replicas: Some(i32::try_from(n).unwrap_or(i32::MAX)),
        duration: text(duration),
        pod_request: text("cpu=500m,memory=512Mi"),
        node_allocatable: text("cpu=1,memory=4Gi,pods=1"),
        existing_nodes: Some(n),
        // hpacalc's node limit.
        node_group_max: Some((n * 2).min(10_000)),
        ..SimSettings::default()
    }
}

fn main() -> Result<()> {
    for (label, duration, doubles) in [
        ("flat load, 60 s", "60s", false),
        ("flat load, 120 s", "120s", false),
        ("load doubles at 0:30, 120 s", "120s", true),
    ] {
        println!("{label}:");
        for n in [1_000, 2_000, 4_000, 10_000] {
            time(n, duration, doubles)?;
        }
    }
    Ok(())
}

fn time(n: i64, duration: &str, doubles: bool) -> Result<()> {
    let inputs = simulation::Inputs {
        hpa: Text::new("placement-hpa.yaml", hpa(n)),
        load: Some(Text::new("placement-load.csv", load(n, doubles))),
        actual: None,
        settings: settings(n, duration),
        replay: Default::default(),
        label: None,
        load_set: Vec::new(),
    };
    let setup = simulation::build(&inputs)?;
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..3 {
        let started = Instant::now();
        let sim = hpacalc::calc::simulate::run(&setup);
        best = best.min(started.elapsed().as_secs_f64());
        last = Some(sim);
        // One run is enough to show a slow case.
        if best > 5.0 {
            break;
        }
    }
    if let Some(sim) = last {
        let s = &sim.summary;
        println!(
            "  {n:>6} nodes: {:>9.1} ms (best of 3); {} syncs, {} events, peak {} replicas, \
             peak {:?} nodes",
            best * 1000.0,
            s.syncs,
            sim.events.len(),
            s.peak_replicas,
            s.peak_nodes
        );
    }
    Ok(())
}
