//! The work of one `hpacalc serve` sync on a generated cluster, without the network: the watched
//! objects held as the watches hold them (`Watched::holding`), then, three times, what a sync
//! does: the dump taken from them, the PodMetrics read (as `at_sync` reads the API's answer) and
//! every HPA evaluated by the audit's path with the controller's memory kept. Prints the CPU time
//! and wall time of each sync, the interned strings left once its dump is gone, and the process's
//! resident memory against the watched JSON's size.
//!
//!     cargo run --release --example generate_cluster -- 150000 3000 5000 target/bench/cluster-150000
//!     cargo run --release --example serve_sync -- target/bench/cluster-150000

use std::path::Path;
use std::time::Instant;

use hpacalc::input::Settings;
use hpacalc::input::cluster::Dump;
use hpacalc::input::cluster::share::Common;
use hpacalc::input::inputs::{ControllerFlags, controller_config};
use hpacalc::input::live::watch::Watched;
use hpacalc::scenario::fleet::FleetFacts;
use hpacalc::stop::Stop;
use hpacalc::work::audit::{Memories, audit_dump};

/// The allocator of the `hpacalc` binary (src/main.rs), so that a sync here costs what it costs
/// in `serve`.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A field of `/proc/self/status`, in KiB.
fn status_kib(field: &str) -> u64 {
    let text = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    (text.lines())
        .find_map(|l| {
            l.strip_prefix(field)?
                .trim()
                .strip_suffix("kB")?
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

/// This process's CPU time (user and system), in seconds.
fn cpu_seconds() -> f64 {
    let text = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = text
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command; 100 ticks a
    // second on Linux.
    (ticks(11) + ticks(12)) / 100.0
}

fn main() -> anyhow::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or("target/bench/cluster-150000".into());
    let dir = Path::new(&dir);
    let watched_bytes = std::fs::metadata(dir.join("cluster.json"))?.len();
    let metrics = std::fs::read_to_string(dir.join("metrics.json"))?;
    let base = status_kib("VmRSS:");
    let mut dump = Dump::default();
    dump.read(&dir.join("cluster.json"))?;
    let watched = Watched::holding(dump);
    let held = status_kib("VmRSS:").saturating_sub(base);
    let settings = Settings::new(controller_config(&ControllerFlags {
        kube_version: Some("1.37"),
        sync_period: Some("15s"),
        tolerance: Some(0.1),
        ..ControllerFlags::default()
    })?);
    let memories = Memories::default();
    println!("| sync | HPAs | CPU | wall | of it: copy | metrics | evaluation | strings kept |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for sync in 1..=3 {
        let (cpu, wall) = (cpu_seconds(), Instant::now());
        let mut dump = watched.dump();
        let copied = wall.elapsed().as_secs_f64();
        dump.read_page("metrics", "PodMetrics", "metrics.k8s.io/v1beta1", &metrics)?;
        let read = wall.elapsed().as_secs_f64();
        let now = dump.newest;
        let mut settings = settings.clone();
        settings.now = now;
        let common = Common {
            settings,
            custom_metrics: Vec::new(),
            external_metrics: Vec::new(),
        };
        let fleet = FleetFacts {
            newest: now,
            sync_period: hpacalc::time::Duration(15_000),
            metrics_api_error: None,
            metrics_given: true,
            unlisted: Vec::new(),
            node_group_max: None,
        };
        let audit = audit_dump(&dump, &common, &fleet, Some(&memories), &Stop::default())?;
        // As `serve` does once a sync's dump is gone.
        drop(dump);
        let interned = hpacalc::input::cluster::json::Sym::forget_unused();
        let total = wall.elapsed().as_secs_f64();
        println!(
            "| {sync} | {} | {:.2} s | {:.2} s | {copied:.2} s | {:.2} s | {:.2} s | {interned} |",
            audit.hpas.len(),
            cpu_seconds() - cpu,
            total,
            read - copied,
            total - read
        );
    }
    let peak = status_kib("VmHWM:");
    println!();
    println!(
        "watched JSON {:.0} MB; held {:.0} MB ({:.2}x); peak RSS {:.0} MB ({:.2}x the watched JSON)",
        watched_bytes as f64 / 1e6,
        held as f64 * 1024.0 / 1e6,
        held as f64 * 1024.0 / watched_bytes as f64,
        peak as f64 * 1024.0 / 1e6,
        peak as f64 * 1024.0 / watched_bytes as f64
    );
    Ok(())
}
