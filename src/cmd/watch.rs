//! `hpacalc HPA --watch`: one evaluation every sync period until Ctrl-C, the controller's memory
//! (recommendations, scale events) seeded from the HPA's events and kept from one evaluation to
//! the next as the controller keeps it (`calc::memory`).

use std::io::Write;

use anyhow::Result;

use crate::calc;
use crate::calc::memory::remember;
use crate::cli::{Cli, OutputFormat};
use crate::cmd::evaluate::report_exporter;
use crate::error::escape_control;
use crate::input::live::Session;
use crate::report::Report;
use crate::scenario::ControllerMemory;
use crate::term::{terminal, warn_all};
use crate::time::Timestamp;

pub fn run(cli: &Cli, name: &str) -> Result<()> {
    let session = crate::cmd::live::open(cli, name)?;
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
    let exporter = report_exporter(cli.output);
    loop {
        let started = std::time::Instant::now();
        let mut out = String::new();
        match session.scenario() {
            Ok(mut scenario) => {
                warn_all(&scenario.warnings);
                // The first evaluation starts from the memory the HPA's events give (as a single
                // run does); each later one from the memory the watch kept.
                if memory.is_some() {
                    scenario.memory.clone_from(&memory);
                }
                let report = calc::evaluate(&scenario);
                memory = Some(remember(&scenario));
                if cli.output == OutputFormat::Yaml {
                    out.push_str("---\n");
                    out.push_str(&exporter.export(&report, terminal()));
                } else if json {
                    out.push_str(&serde_json::to_string(&report)?);
                    out.push('\n');
                } else {
                    out.push_str(&line(&report));
                    if last_desired != Some(report.desired_replicas) {
                        out.push('\n');
                        out.push_str(&exporter.export(&report, terminal()));
                        out.push('\n');
                    }
                }
                last_desired = Some(report.desired_replicas);
            }
            Err(err) => {
                let now = Timestamp(jiff::Timestamp::now().as_millisecond()).to_rfc3339();
                let value = crate::schema::WatchError {
                    error: crate::error::shown(&err),
                    now: now.clone(),
                };
                if cli.output == OutputFormat::Yaml {
                    out.push_str("---\n");
                    out.push_str(&serde_yaml::to_string(&value).unwrap_or_default());
                } else if json {
                    out.push_str(&serde_json::to_string(&value)?);
                    out.push('\n');
                } else {
                    let error = crate::error::shown(&err);
                    out.push_str(&format!("{now}  error: {error}\n"));
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
    // The summary and the diagnostic carry the inputs' words (an API server's message): a
    // control byte is shown, never sent to the terminal.
    let mut text = format!(
        "{}  {} → {}  {}",
        report.now,
        report.current_replicas,
        report.desired_replicas,
        escape_control(&report.decision.summary)
    );
    if let Some(d) = report.diagnostics.first() {
        text.push_str(&format!("  [{}: {}]", d.code, escape_control(&d.message)));
    }
    text.push('\n');
    text
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
