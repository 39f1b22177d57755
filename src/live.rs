//! `hpacalc HPA`: one evaluation of the live cluster, or `--watch`: one every sync period, the
//! controller's memory (recommendations, scale events) seeded from the HPA's events and kept from
//! one evaluation to the next as the controller keeps it.

use std::io::Write;

use anyhow::Result;

use crate::calc;
use crate::calc::reconcile::reconcile;
use crate::cli::{Cli, OutputFormat};
use crate::input::live::Session;
use crate::report::Report;
use crate::scenario::{ControllerMemory, Recommendation, Scenario};
use crate::time::{Duration, Timestamp};

pub fn run(cli: &Cli, name: &str) -> Result<()> {
    let session = Session::open(cli, name)?;
    if !cli.live.watch {
        let scenario = session.scenario()?;
        for w in &scenario.warnings {
            crate::warn(w);
        }
        let report = calc::evaluate(&scenario);
        return crate::write_stdout(crate::render_report(&report, cli.output).as_bytes());
    }
    watch(cli, &session)
}

fn watch(cli: &Cli, session: &Session) -> Result<()> {
    let period = crate::input::flag_duration("--sync-period", &cli.sync_period)?;
    let period = std::time::Duration::from_millis(u64::try_from(period.millis().max(1))?);
    let mut interrupt = session.block_on(async { Interrupt::new() })?;
    let mut memory: Option<ControllerMemory> = None;
    let mut last_desired: Option<i32> = None;
    let mut evaluations: u64 = 0;
    let json = cli.output == OutputFormat::Json;
    loop {
        let started = std::time::Instant::now();
        let mut out = String::new();
        match session.scenario() {
            Ok(mut scenario) => {
                for w in &scenario.warnings {
                    crate::warn(w);
                }
                // The first evaluation starts from the memory the HPA's events give (as a single
                // run does); each later one from the memory the watch kept.
                if memory.is_some() {
                    scenario.memory.clone_from(&memory);
                }
                let report = calc::evaluate(&scenario);
                memory = Some(remember(&scenario));
                if cli.output == OutputFormat::Yaml {
                    out.push_str("---\n");
                    out.push_str(&crate::render_report(&report, cli.output));
                } else if json {
                    out.push_str(&serde_json::to_string(&report)?);
                    out.push('\n');
                } else {
                    out.push_str(&line(&report));
                    if last_desired != Some(report.desired_replicas) {
                        out.push('\n');
                        out.push_str(&crate::render_report(&report, cli.output));
                        out.push('\n');
                    }
                }
                last_desired = Some(report.desired_replicas);
            }
            Err(err) => {
                let now = Timestamp(jiff::Timestamp::now().as_millisecond()).to_rfc3339();
                let value = crate::schema::WatchError {
                    error: format!("{err:#}"),
                    now: now.clone(),
                };
                if cli.output == OutputFormat::Yaml {
                    out.push_str("---\n");
                    out.push_str(&serde_yaml::to_string(&value).unwrap_or_default());
                } else if json {
                    out.push_str(&serde_json::to_string(&value)?);
                    out.push('\n');
                } else {
                    out.push_str(&format!("{now}  error: {err:#}\n"));
                }
            }
        }
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(out.as_bytes())?;
        stdout.flush()?;
        drop(stdout);
        evaluations += 1;
        if cli.live.watch_count.is_some_and(|n| evaluations >= n) {
            return Ok(());
        }
        let wait = period.saturating_sub(started.elapsed());
        if session.block_on(interrupt.sleep(wait)) {
            return Ok(());
        }
    }
}

/// One line of a watch: time, current → desired, the decision, the first diagnostic.
fn line(report: &Report) -> String {
    let mut text = format!(
        "{}  {} → {}  {}",
        report.now, report.current_replicas, report.desired_replicas, report.decision.summary
    );
    if let Some(d) = report.diagnostics.first() {
        text.push_str(&format!("  [{}: {}]", d.code, d.message));
    }
    text.push('\n');
    text
}

/// The controller's memory after this sync: the memory it started with (or, at the first sync,
/// the steady load hpacalc assumes: this sync's proposal at every sync of the window) and what
/// this sync records.
fn remember(scenario: &Scenario) -> ControllerMemory {
    let mut memory = match &scenario.memory {
        Some(m) => m.clone(),
        None => steady_memory(scenario),
    };
    reconcile(scenario, &mut memory, false);
    memory
}

/// What "steady load" means as a memory: one recommendation of this sync's proposal per sync
/// period over the longest stabilization window, no scale events.
fn steady_memory(scenario: &Scenario) -> ControllerMemory {
    let mut scratch = ControllerMemory::default();
    let proposal = reconcile(scenario, &mut scratch, true)
        .metric_proposal
        .unwrap_or(scenario.current_replicas);
    let config = &scenario.config;
    let window_ms = match &scenario.hpa.behavior {
        None => config.downscale_stabilization_window.millis(),
        Some(b) => {
            let down = calc::normalize::scale_down_window(b, config.downscale_stabilization_window);
            let up = b.scale_up.stabilization_window_seconds.unwrap_or(0);
            i64::from(down.max(up)).saturating_mul(1000)
        }
    };
    let step = config.sync_period.millis().max(1000);
    let mut memory = ControllerMemory::default();
    let mut at = -window_ms;
    while at < 0 {
        memory.recommendations.push(Recommendation {
            replicas: proposal,
            timestamp: scenario.now.add(Duration(at)),
        });
        at += step;
    }
    memory
}

/// Ctrl-C, listened to from the start of a watch so that one pressed during a request ends the
/// watch at the next wait, with exit code 0.
struct Interrupt {
    #[cfg(unix)]
    signal: tokio::signal::unix::Signal,
}

impl Interrupt {
    fn new() -> Result<Interrupt> {
        #[cfg(unix)]
        {
            let signal = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
            Ok(Interrupt { signal })
        }
        #[cfg(not(unix))]
        {
            Ok(Interrupt {})
        }
    }

    /// Waits `wait`; true when Ctrl-C came first (or had come already).
    async fn sleep(&mut self, wait: std::time::Duration) -> bool {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.signal.recv() => true,
                () = tokio::time::sleep(wait) => false,
            }
        }
        #[cfg(not(unix))]
        {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => true,
                () = tokio::time::sleep(wait) => false,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::testing::{cpu_utilization, scenario};

    #[test]
    fn the_first_memory_is_the_steady_load_over_the_window() {
        // 4 pods at 800m of 1000m against 50%: ratio 1.6, proposal 7; window 300s, sync 15s.
        let s = scenario(vec![cpu_utilization(50)], 4, 800);
        let memory = steady_memory(&s);
        assert_eq!(memory.recommendations.len(), 20);
        assert!(memory.recommendations.iter().all(|r| r.replicas == 7));
        assert_eq!(
            memory.recommendations.first().map(|r| r.timestamp),
            Some(s.now.add(Duration(-300_000)))
        );
        assert!(memory.scale_up_events.is_empty() && memory.scale_down_events.is_empty());
    }

    #[test]
    fn each_evaluation_records_its_recommendation_in_the_memory() {
        let s = scenario(vec![cpu_utilization(50)], 4, 800);
        let first = remember(&s);
        assert_eq!(first.recommendations.len(), 21, "the window plus this sync");
        assert_eq!(
            first
                .recommendations
                .last()
                .map(|r| (r.replicas, r.timestamp)),
            Some((7, s.now))
        );
        // storeScaleEvent keeps no events without behavior (the legacy path does not read them).
        assert!(first.scale_up_events.is_empty());
        let mut next = s.clone();
        next.now = s.now.add(Duration(15_000));
        next.memory = Some(first.clone());
        let second = remember(&next);
        // The recommendation that left the window is replaced by this one (stabilizeRecommendation).
        assert_eq!(second.recommendations.len(), first.recommendations.len());
        assert!(
            second
                .recommendations
                .iter()
                .any(|r| r.timestamp == next.now)
        );
        assert!(
            second
                .recommendations
                .iter()
                .all(|r| r.timestamp >= next.now.add(Duration(-300_000)))
        );
    }
}
