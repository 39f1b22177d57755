//! Parsers: each module owns one outside format and turns it into `scenario` types; this file
//! reads the files the flags name and validates everything into one `Scenario`.

pub mod guard;
pub mod history;
pub mod kubectl;
pub mod load;
pub mod manifest;
pub mod nodes;
pub mod read;
pub mod samples;
pub mod selector;
pub mod values;

use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::UsageError;
use crate::cli::Cli;
use crate::error::InputError;
use crate::scenario::{ControllerConfig, Scenario, Source};
use crate::time::{Duration, Timestamp};
use crate::version;
use kubectl::capture;
pub use read::read_input;

pub fn flag_duration(flag: &str, text: &str) -> Result<Duration> {
    Duration::parse(text).map_err(|e| InputError::new(flag, e).into())
}

/// Parses every input and validates it into the one value the calculation trusts.
pub fn build_scenario(cli: &Cli) -> Result<Scenario> {
    let stdin_users = [
        cli.hpa.as_deref(),
        cli.pods.as_deref(),
        cli.history.as_deref(),
        cli.metrics.as_deref(),
    ]
    .into_iter()
    .chain(cli.custom_metrics.iter().map(|p| Some(p.as_path())))
    .chain(cli.external_metrics.iter().map(|p| Some(p.as_path())))
    .filter(|p| p.is_some_and(|p| p == Path::new("-")))
    .count();
    if stdin_users > 1 {
        bail!(UsageError(
            "only one input can be read from stdin (`-`)".to_string()
        ));
    }
    if cli.metrics.is_some() && cli.pods.is_none() {
        bail!(UsageError(
            "--metrics needs --pods: the controller reads each pod's readiness and requests"
                .to_string()
        ));
    }
    let now_flag = match &cli.now {
        Some(text) => Some(Timestamp::parse_rfc3339(text).ok_or_else(|| {
            InputError::new(
                "--now",
                format!(
                    "found {}, expected an RFC 3339 time such as 2026-11-29T15:04:05Z",
                    crate::error::quoted(text)
                ),
            )
        })?),
        None => None,
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
    let mut loaded = manifest::load(&hpa_file, &hpa_text, cli.name.as_deref())?;
    let mut warnings = std::mem::take(&mut loaded.warnings);
    let scope = capture::scope(
        cli.namespace.as_deref(),
        cli.selector.as_deref(),
        &mut loaded.spec,
    )?;

    let mut observed = capture::observe(cli, &loaded, &scope, now_flag, window)?;
    warnings.append(&mut observed.warnings);
    let now = observed.now;
    let mut samples = samples::Samples {
        pods: observed.pods,
        resource_metrics: observed.resource_metrics,
        pod_metrics: observed.pod_metrics,
    };
    let mut notes = observed.notes;

    let memory = match &cli.history {
        Some(path) => {
            let (file, text) = read_input(path)?;
            Some(history::parse(&file, &text, now)?)
        }
        None => None,
    };

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
                        .filter(|p| samples::counts_as_replica(p))
                        .count(),
                )
                .unwrap_or(i32::MAX),
                Source::Samples,
            ),
        };

    // From the status alone: synthetic pods reproduce status.currentMetrics.
    let observed_status = capture::observed_status(&loaded.status);
    let approximation = cli.pods.is_none()
        && current_replicas_source != Source::Samples
        && !loaded.status.current_metrics.is_empty()
        && kubectl::status_only::reads_pods(&loaded.spec.metrics);
    if approximation && let Some(status) = &observed_status {
        let synthetic = kubectl::status_only::synthesize(
            &loaded.spec.metrics,
            status,
            current_replicas,
            now,
            window,
        );
        if !samples.pod_metrics.is_empty() {
            warnings.push(
                "Pods metric values of --custom-metrics need --pods: the status's averages are used"
                    .to_string(),
            );
        }
        samples.pods = synthetic.pods;
        samples.resource_metrics = synthetic.resource_metrics;
        samples.pod_metrics = synthetic.pod_metrics;
        notes.splice(0..0, synthetic.notes);
    }

    let metrics = values::resolve(
        &loaded.spec.metrics,
        &cli.metric_values,
        &loaded.status,
        samples.resource_metrics,
        samples.pod_metrics,
        &observed.files,
        approximation.then_some(current_replicas),
    )?;
    notes.extend(metrics.notes);

    let node_group = nodes::from_flags(&cli.nodes, &samples.pods, &loaded.spec.namespace)?;
    if let Some(group) = &node_group {
        nodes::check_size(group, current_replicas)?;
    }

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
        input_notes: notes,
        warnings,
        input_diagnostics: Vec::new(),
        nodes: node_group,
        approximation,
        observed_status,
    })
}
