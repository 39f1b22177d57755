//! hpacalc: what the Kubernetes HorizontalPodAutoscaler controller will do at its next sync.
//!
//! Data flows one way: files and flags are parsed (`input`) into a validated [`scenario::Scenario`],
//! the pure calculation (`calc`) turns it into a [`report::Report`], and renderers (`render`) turn
//! that into a table, JSON or YAML.

pub mod calc;
pub mod cli;
pub mod error;
pub mod input;
pub mod quantity;
pub mod render;
pub mod report;
pub mod scenario;
pub mod time;
pub mod version;

use std::io::{self, Read, Write};
use std::path::Path;

use anyhow::{Context, Result, bail};
use clap::CommandFactory;

use crate::cli::{Cli, Command, OutputFormat};
use crate::error::{InputError, display_name};
use crate::scenario::{ControllerConfig, Scenario, Source};
use crate::time::{Duration, Timestamp};

/// Exit codes, in one place: 0 computed, 1 bad input, 2 usage (clap's own).
pub mod exit_codes {
    pub const BAD_INPUT: u8 = 1;
    pub const USAGE: u8 = 2;
}

/// Runs one invocation; everything printed on stdout is the result.
pub fn run(cli: &Cli) -> Result<()> {
    if let Some(Command::Completions { shell }) = &cli.command {
        let mut out = Vec::new();
        clap_complete::generate(*shell, &mut Cli::command(), "hpacalc", &mut out);
        return write_stdout(&out);
    }
    let scenario = build_scenario(cli)?;
    let report = calc::evaluate(&scenario);
    let text = match cli.output {
        OutputFormat::Table | OutputFormat::Wide => render::table::render(
            &report,
            render::table::Layout {
                wide: cli.output == OutputFormat::Wide,
                color: color_enabled(),
                width: terminal_width(),
            },
        ),
        OutputFormat::Json => render::json::render(&report),
        OutputFormat::Yaml => render::json::render_yaml(&report),
    };
    write_stdout(text.as_bytes())
}

/// A usage error found after clap parsed the flags: exit 2, like clap's own.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

pub fn exit_code(err: &anyhow::Error) -> u8 {
    if err.downcast_ref::<UsageError>().is_some() {
        exit_codes::USAGE
    } else {
        exit_codes::BAD_INPUT
    }
}

pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.downcast_ref::<io::Error>()
        .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
}

fn write_stdout(bytes: &[u8]) -> Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()?;
    Ok(())
}

/// Colour on a terminal unless NO_COLOR is set (anstream also honours CLICOLOR_FORCE).
fn color_enabled() -> bool {
    anstream::AutoStream::choice(&io::stdout()) != anstream::ColorChoice::Never
}

/// `COLUMNS` when set (tests set it for stable snapshots), else 120.
fn terminal_width() -> u16 {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .filter(|&w: &u16| w >= 40)
        .unwrap_or(120)
}

fn read_input(path: &Path) -> Result<(String, String)> {
    let shown = display_name(&path.to_string_lossy());
    let mut text = String::new();
    if path == Path::new("-") {
        io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| InputError::new(&shown, format!("cannot read: {e}")))?;
    } else {
        text = std::fs::read_to_string(path)
            .map_err(|e| InputError::new(&shown, format!("cannot read: {e}")))?;
    }
    Ok((shown, text))
}

fn flag_duration(flag: &str, text: &str) -> Result<Duration> {
    Duration::parse(text).map_err(|e| InputError::new(flag, e).into())
}

fn warn(message: &str) {
    let style = anstyle::Style::new()
        .bold()
        .fg_color(Some(anstyle::AnsiColor::Yellow.into()));
    anstream::eprintln!("{style}warning{style:#}: {message}");
}

/// Parses every input and validates it into the one value the calculation trusts.
fn build_scenario(cli: &Cli) -> Result<Scenario> {
    let stdin_users = [
        cli.hpa.as_deref(),
        cli.pods.as_deref(),
        cli.history.as_deref(),
    ]
    .iter()
    .filter(|p| p.is_some_and(|p| p == Path::new("-")))
    .count();
    if stdin_users > 1 {
        bail!(UsageError(
            "only one input can be read from stdin (`-`)".to_string()
        ));
    }
    let now = match &cli.now {
        Some(text) => Timestamp::parse_rfc3339(text).ok_or_else(|| {
            InputError::new(
                "--now",
                format!("found \"{text}\", expected an RFC 3339 time such as 2026-11-29T15:04:05Z"),
            )
        })?,
        None => Timestamp(jiff::Timestamp::now().as_millisecond()),
    };
    let kube_minor = version::parse_kube_version(&cli.kube_version)
        .map_err(|e| InputError::new("--kube-version", e))?;
    let mut features = version::default_gates(kube_minor);
    if let Some(text) = &cli.feature_gates {
        version::apply_feature_gates(&mut features, kube_minor, text)
            .map_err(|e| InputError::new("--feature-gates", e))?;
    }
    let config = ControllerConfig {
        kube_minor,
        features,
        tolerance: cli.tolerance,
        cpu_initialization_period: flag_duration(
            "--cpu-initialization-period",
            &cli.cpu_initialization_period,
        )?,
        delay_of_initial_readiness_status: flag_duration(
            "--initial-readiness-delay",
            &cli.initial_readiness_delay,
        )?,
        downscale_stabilization_window: flag_duration(
            "--downscale-stabilization",
            &cli.downscale_stabilization,
        )?,
        sync_period: flag_duration("--sync-period", &cli.sync_period)?,
        ..ControllerConfig::default()
    };
    if !(cli.tolerance.is_finite() && cli.tolerance >= 0.0) {
        bail!(InputError::new(
            "--tolerance",
            format!("found {}, expected a ratio of 0 or more", cli.tolerance)
        ));
    }
    let window = flag_duration("--metrics-window", &cli.metrics_window)?;

    let hpa_path = cli.hpa.as_deref().context("--hpa is required")?;
    let (hpa_file, hpa_text) = read_input(hpa_path)?;
    let loaded = input::manifest::load(&hpa_file, &hpa_text, cli.name.as_deref())?;
    for w in &loaded.warnings {
        warn(w);
    }

    let samples = match &cli.pods {
        Some(path) => {
            let (file, text) = read_input(path)?;
            input::samples::parse(
                &file,
                &text,
                &loaded.spec.metrics,
                &input::samples::SampleSettings { now, window },
            )?
        }
        None => input::samples::Samples::default(),
    };

    let memory = match &cli.history {
        Some(path) => {
            let (file, text) = read_input(path)?;
            Some(input::history::parse(&file, &text, now)?)
        }
        None => None,
    };

    let metrics = input::values::resolve(
        &loaded.spec.metrics,
        &cli.metric_values,
        &loaded.status,
        samples.resource_metrics,
        samples.pod_metrics,
    )?;

    let (current_replicas, current_replicas_source) =
        match (cli.current_replicas, loaded.status.current_replicas) {
            (Some(n), _) if n < 0 => bail!(InputError::new(
                "--current-replicas",
                format!("found {n}, expected 0 or more")
            )),
            (Some(n), _) => (n, Source::Flag),
            (None, Some(n)) => (n, Source::Status),
            (None, None) => (
                i32::try_from(
                    samples
                        .pods
                        .iter()
                        .filter(|p| input::samples::counts_as_replica(p))
                        .count(),
                )
                .unwrap_or(i32::MAX),
                Source::Samples,
            ),
        };

    Ok(Scenario {
        hpa: loaded.spec,
        current_replicas,
        current_replicas_source,
        status_replicas: current_replicas,
        scaled_to_zero: loaded.status.scaled_to_zero,
        pods: samples.pods,
        metrics: metrics.values,
        config,
        memory,
        now,
        input_notes: metrics.notes,
    })
}
