//! The bulk-edit benchmark of `hpacalc diff` (issue 35, item 4): N HPAs in one manifest file a
//! side, every one changed (its target from 50 % to 60 % and its scale-down window from 300 s to
//! 120 s), between 2 and `MAX` replicas. Prints the time `work::diff::diff_texts` takes (best of
//! three runs) without a capture, then with `--pods` (one sync of each side), then with `--load`
//! (one 10-minute run of each side).
//!
//! Run it in release mode: `cargo run --release --example diff_bulk [N] [MAX]` (600 and 10 by
//! default).

use std::fmt::Write;
use std::time::Instant;

use anyhow::Result;
use clap::Parser;
use hpacalc::cli::FleetControllerFlags;
use hpacalc::input::Text;
use hpacalc::render::{Exporter, Json, Terminal};
use hpacalc::work::diff::{DiffInputs, diff_texts};

/// The controller flags at their defaults, as `hpacalc diff` parses them.
#[derive(Parser)]
struct Defaults {
    #[command(flatten)]
    controller: FleetControllerFlags,
}

fn side(n: usize, max: i32, percent: i32, window: i32) -> String {
    let mut text = String::new();
    for i in 0..n {
        let _ = write!(
            text,
            "---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {{name: app-{i}, namespace: bulk}}
spec:
  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: app-{i}}}
  minReplicas: 2
  maxReplicas: {max}
  metrics:
  - type: Resource
    resource: {{name: cpu, target: {{type: Utilization, averageUtilization: {percent}}}}}
  behavior:
    scaleDown: {{stabilizationWindowSeconds: {window}}}
"
        );
    }
    text
}

fn pods() -> String {
    let mut csv = String::from("pod,ready,cpu,cpu_request\n");
    for i in 0..4 {
        let _ = writeln!(csv, "pod-{i},true,{}m,500m", 250 + i * 40);
    }
    csv
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(600);
    let max: i32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    let controller = Defaults::parse_from(["diff_bulk"]).controller;
    let base = DiffInputs {
        old: vec![Text::new("old.yaml", side(n, max, 50, 300))],
        new: vec![Text::new("new.yaml", side(n, max, 60, 120))],
        fail_on: Vec::new(),
        load: None,
        load_map: Vec::new(),
        actual: None,
        pod_request: Some("cpu=500m".to_string()),
        replicas: Some(4),
        duration: Some("10m".to_string()),
        pods: None,
        metrics: None,
        now: None,
        controller,
        bounds: Default::default(),
    };
    let with_pods = DiffInputs {
        pods: Some(Text::new("pods.csv", pods())),
        ..base.clone()
    };
    let with_load = DiffInputs {
        load: Some(Text::new(
            "load.csv",
            "time,cpu\n0s,1200m\n2m,2400m\n6m,900m\n",
        )),
        ..base.clone()
    };
    println!("{n} changed HPAs, minReplicas 2, maxReplicas {max}:");
    for (label, inputs) in [
        ("behaviour and hold bands", &base),
        ("with --pods", &with_pods),
        ("with --load", &with_load),
    ] {
        let mut best = f64::INFINITY;
        let mut changed = 0;
        for _ in 0..3 {
            let started = Instant::now();
            let (report, _) = diff_texts(inputs)?;
            best = best.min(started.elapsed().as_secs_f64());
            changed = report.hpas.iter().filter(|h| h.status == "changed").count();
            if best > 5.0 {
                break;
            }
        }
        println!(
            "  {label:<26} {:>9.1} ms (best of 3), {changed} changed",
            best * 1000.0
        );
        // DIFF_BULK_JSON=DIR keeps each report, to compare two builds' answers.
        if let Some(dir) = std::env::var_os("DIFF_BULK_JSON") {
            let (report, _) = diff_texts(inputs)?;
            let json = Json.export(
                &report,
                Terminal {
                    color: false,
                    width: 120,
                },
            );
            let file = format!("{}.json", label.replace(' ', "-"));
            std::fs::write(std::path::Path::new(&dir).join(file), json)?;
        }
    }
    Ok(())
}
