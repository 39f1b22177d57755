//! Parsers: each module owns one outside format and turns it into `scenario` types; this file
//! reads the files the flags name and validates everything into one `Scenario`.

pub mod cluster;
pub mod guard;
pub mod history;
pub mod keda;
pub mod kubectl;
pub mod live;
pub mod load;
pub mod manifest;
pub mod nodes;
pub mod past;
pub mod paste;
pub mod prometheus;
pub mod read;
pub mod recognize;
pub mod required;
pub mod samples;
pub mod selector;
pub mod sources;
pub mod target;
pub mod values;

use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::UsageError;
use crate::cli::Cli;
use crate::error::InputError;
use crate::report::{Diagnostic, Severity};
use crate::scenario::{ControllerConfig, Scenario, Source};
use crate::time::{Duration, Timestamp};
use crate::version;
use kubectl::capture;
pub use read::read_input;

pub fn flag_duration(flag: &str, text: &str) -> Result<Duration> {
    Duration::parse(text).map_err(|e| InputError::new(flag, e).into())
}

/// Reads `--hpa`, in whichever form it comes: a manifest or ScaledObject, or pasted text.
pub fn load_hpa(cli: &Cli) -> Result<manifest::LoadedHpa> {
    let hpa_path = cli.hpa.as_deref().context("--hpa is required")?;
    let (hpa_file, hpa_text) = read_input(hpa_path)?;
    let name = cli.name.as_deref();
    Ok(match paste::detect(&hpa_text) {
        Some(form) => {
            let mut all = match form {
                paste::Form::Describe => paste::describe::parse(&hpa_file, &hpa_text)?,
                paste::Form::Table => paste::table::parse(&hpa_file, &hpa_text)?,
            };
            paste::in_namespace(&mut all, cli.namespace.as_deref());
            paste::choose(&hpa_file, all, name)?.into_loaded(&hpa_file, form)?
        }
        None => {
            // Other text that is not a manifest (`kubectl top`): say what it is.
            if let Some(found) = recognize::what(&hpa_text) {
                bail!(recognize::refusal(&hpa_file, recognize::Given::Hpa, found));
            }
            manifest::load(&hpa_file, &hpa_text, name)
                .map_err(|e| recognize::or_helm(e, &hpa_file, recognize::Given::Hpa, &hpa_text))?
        }
    })
}

/// What `--print-hpa` prints.
pub enum PrintedHpa {
    /// The HPA KEDA creates from a ScaledObject, as KEDA writes it.
    Keda(serde_json::Value),
    /// The HPA alone, scoped to `-n` as the calculation would see it, with the status it carries.
    Hpa(
        Box<(
            crate::scenario::HpaSpec,
            Option<crate::scenario::ObservedStatus>,
        )>,
    ),
}

/// `--print-hpa`: the HPA hpacalc uses, and the warnings found on the way.
pub fn hpa_only(cli: &Cli) -> Result<(PrintedHpa, Vec<String>)> {
    let mut loaded = load_hpa(cli)?;
    if let Some(translated) = loaded.keda {
        return Ok((PrintedHpa::Keda(translated.hpa), loaded.warnings));
    }
    capture::scope(
        cli.namespace.as_deref(),
        cli.selector.as_deref(),
        &mut loaded.spec,
    )?;
    let status = capture::observed_status(&loaded.status);
    Ok((
        PrintedHpa::Hpa(Box::new((loaded.spec, status))),
        loaded.warnings,
    ))
}

/// Parses every input and validates it into the one value the calculation trusts.
pub fn build_scenario(cli: &Cli) -> Result<Scenario> {
    build_scenario_with(cli, None)
}

/// `build_scenario`, with the `--pods` file already read (live mode reads the pages as they
/// arrive, with the same reader).
pub fn build_scenario_with(
    cli: &Cli,
    pods: Option<kubectl::pods::CapturedPods>,
) -> Result<Scenario> {
    let stdin_users = [
        cli.hpa.as_deref(),
        cli.pods.as_deref(),
        cli.history.as_deref(),
        cli.events.as_deref(),
        cli.metrics.as_deref(),
        cli.target.as_deref(),
        cli.scale.as_deref(),
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

    let mut loaded = load_hpa(cli)?;
    let mut warnings = std::mem::take(&mut loaded.warnings);
    let manifest_notes = std::mem::take(&mut loaded.notes);
    let scale = match &cli.scale {
        Some(path) => {
            let (file, text) = read_input(path)?;
            Some((
                kubectl::scale::parse(&file, &text, kubectl::detect(&text))?,
                file,
            ))
        }
        None => None,
    };
    let selector = cli
        .selector
        .as_deref()
        .or_else(|| scale.as_ref().and_then(|(s, _)| s.selector.as_deref()));
    let mut scope = capture::scope(cli.namespace.as_deref(), selector, &mut loaded.spec)?;
    scope.selector_is_targets = cli.selector.is_none() && scale.is_some();

    let mut observed = capture::observe(cli, &loaded, &scope, now_flag, window, pods)?;
    warnings.append(&mut observed.warnings);
    let now = observed.now;
    let mut samples = samples::Samples {
        pods: observed.pods,
        resource_metrics: observed.resource_metrics,
        pod_metrics: observed.pod_metrics,
        warnings: Vec::new(),
    };
    let mut notes = manifest_notes;
    notes.extend(observed.notes);

    let past = past::read(
        cli,
        &loaded.spec,
        std::mem::take(&mut loaded.events),
        loaded.source.file.as_deref(),
        config.downscale_stabilization_window,
        now,
    )?;
    notes.extend(past.notes);
    warnings.extend(past.warnings);
    let mut input_diagnostics = std::mem::take(&mut loaded.diagnostics);
    input_diagnostics.extend(past.diagnostics);
    input_diagnostics.extend(std::mem::take(&mut observed.diagnostics));
    input_diagnostics.extend(keda_managed(&loaded.labels));

    // Flag values are checked before what is missing: a bad value is the more precise error.
    // A ScaledObject's trigger values (`failed`, NaN) are KEDA's to read (`keda::from_cli`).
    if loaded.keda.is_none() {
        values::parse_flags(&cli.metric_values)?;
    }
    let target_scale = match &cli.target {
        Some(path) => {
            let (file, text) = read_input(path)?;
            Some(target::parse(
                &file,
                &text,
                &loaded.spec.target,
                &loaded.spec.namespace,
            )?)
        }
        // The scale subresource (`--scale`, what live mode reads) stands for the target.
        None => observed.target.take().or_else(|| {
            scale.as_ref().map(|(s, file)| target::TargetScale {
                file: file.clone(),
                spec_replicas: Some(s.spec_replicas),
                status_replicas: Some(s.status_replicas),
            })
        }),
    };
    let current = required::current_replicas(&required::CurrentInputs {
        flag: cli.current_replicas,
        target: target_scale.as_ref(),
        status: loaded.status.current_replicas,
        counted: cli.pods.is_some().then(|| {
            i32::try_from(
                samples
                    .pods
                    .iter()
                    .filter(|p| samples::counts_as_replica(p))
                    .count(),
            )
            .unwrap_or(i32::MAX)
        }),
    })?;
    let (current_replicas, current_replicas_source) = (current.replicas, current.source);
    notes.extend(current.note);
    let (status_replicas, status_note) = required::status_replicas(
        cli.status_replicas,
        target_scale.as_ref(),
        current_replicas,
        &loaded.spec.metrics,
    )?;
    if cli.status_replicas.is_some() && status_note.is_none() {
        warnings.push(
            "--status-replicas is read only by AverageValue Object and External metrics, and the \
             HPA has none"
                .to_string(),
        );
    }
    notes.extend(status_note);

    // From the status alone: synthetic pods reproduce status.currentMetrics.
    let observed_status = capture::observed_status(&loaded.status);
    let approximation = cli.pods.is_none()
        && current_replicas_source != Source::Samples
        && (loaded.form.is_some()
            || (!loaded.status.current_metrics.is_empty()
                && kubectl::status_only::reads_pods(&loaded.spec.metrics)));
    required::pods_for_metrics(
        &loaded.spec.metrics,
        current_replicas,
        cli.pods.is_some(),
        approximation,
    )?;
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

    // A ScaledObject: KEDA's metrics server answers the External metrics (`calc::keda`).
    let (keda, external_specs, value_flags) = match &loaded.keda {
        Some(translated) => {
            let (input, keda_notes) = keda::from_cli(
                translated,
                cli,
                &observed.files.external,
                now,
                !samples.pods.is_empty(),
            )?;
            notes.extend(keda_notes);
            let others: Vec<_> = (loaded.spec.metrics.iter())
                .filter(|m| !m.is_object_or_external())
                .cloned()
                .collect();
            (Some(input), others, &[][..])
        }
        None => {
            let hpa_file = loaded.source.file.clone().unwrap_or_default();
            keda::refuse_flags(cli, &hpa_file)?;
            let all = loaded.spec.metrics.clone();
            (None, all, cli.metric_values.as_slice())
        }
    };

    let sources = sources::collect(
        &loaded.source,
        observed_status.is_some(),
        &observed.sources,
        &current_replicas_source,
        approximation,
        past.sources,
    );

    let resource_api_error = observed.resource_api_error.take();
    let custom_api_error = observed.custom_api_error.take();
    let external_api_error = observed.external_api_error.take();
    let mut metrics = values::resolve(
        &external_specs,
        value_flags,
        &loaded.status,
        samples.resource_metrics,
        samples.pod_metrics,
        &observed.files,
        approximation.then_some(current_replicas),
    )?;
    notes.extend(metrics.notes);
    metrics.values.resource_api_error = resource_api_error;
    metrics.values.custom_api_error = custom_api_error;
    metrics.values.external_api_error = external_api_error;

    let node_group = nodes::from_flags(&cli.nodes, &samples.pods, &loaded.spec.namespace)?;
    if let Some(group) = &node_group {
        nodes::check_size(group, current_replicas)?;
    }

    Ok(Scenario {
        hpa: loaded.spec,
        current_replicas,
        current_replicas_source,
        status_replicas,
        scaled_to_zero: loaded.status.scaled_to_zero,
        status_conditions: loaded.status.conditions.clone(),
        pods: samples.pods,
        metrics: metrics.values,
        config,
        memory: past.memory,
        now,
        input_notes: notes,
        warnings,
        input_diagnostics,
        sources,
        nodes: node_group,
        approximation,
        observed_status,
        keda,
    })
}

/// `KedaManaged`: KEDA labels the HPAs it generates (`scaledobject.keda.sh/name`,
/// `app.kubernetes.io/managed-by: keda-operator`; kedacore/keda `controllers/keda/hpa.go`).
fn keda_managed(labels: &std::collections::BTreeMap<String, String>) -> Option<Diagnostic> {
    let scaled_object = labels.get("scaledobject.keda.sh/name");
    let by_operator = labels
        .get("app.kubernetes.io/managed-by")
        .is_some_and(|m| m == "keda-operator");
    if scaled_object.is_none() && !by_operator {
        return None;
    }
    let owner = scaled_object.map_or_else(
        || "a KEDA ScaledObject".to_string(),
        |name| format!("the KEDA ScaledObject {name}"),
    );
    Some(Diagnostic::new(
        "KedaManaged",
        Severity::Info,
        format!(
            "this HPA is generated by {owner}: its External metrics are served by KEDA's metrics \
             server, and scaling between 0 and 1 replica (activation, cooldown) is KEDA's \
             decision, not the HPA controller's"
        ),
        "change the ScaledObject, not the HPA: KEDA rewrites the HPA from it",
    ))
}
