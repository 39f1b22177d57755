//! The `simulate` command's inputs: the load CSV (the only module that knows its format), the
//! built-in scenarios' flags merged under the command line's, and everything validated into one
//! `calc::simulate::Setup`.
//!
//! Load CSV: a header, then one row per change of the load.
//!
//! | column | meaning |
//! |---|---|
//! | `time` | offset from the start: `0s`, `90s`, `5m`, `1h30m` (whole seconds; the first row at 0) |
//! | a metric's name | the TOTAL demand across all pods: `cpu` (`2400m` or `2.4`), `memory`, a Pods metric's total, an Object or External metric's value |
//!
//! Column names are trimmed and case-insensitive; a UTF-8 BOM and CRLF line ends are accepted.
//! Every metric of the HPA needs its column (a Resource or ContainerResource metric by its
//! resource name); an empty cell keeps the previous row's value. The load is a step function:
//! a row's values hold until the next row.
//!
//! `--load` may instead hold a Prometheus range-query answer (or `--prometheus` run the queries):
//! `input::prometheus` turns it into the same `LoadCurve`.

use std::path::Path;

use anyhow::{Result, bail};
use clap::Parser;

use crate::calc::simulate::rollout::{IntOrPercent, Rollout};
use crate::calc::simulate::{
    LoadColumn, LoadCurve, LoadStep, NodeGroup, START, ScenarioLabel, Setup, StartupBurst, Timing,
};
use crate::cli::{Cli, Command, NodeFlags, SimulateArgs};
use crate::error::InputError;
use crate::input::manifest;
use crate::input::nodes::{from_flags, parse_resource_list};
use crate::input::prometheus;
use crate::input::read_input;
use crate::input::samples::{Cell, csv_error, csv_reader, record_line};
use crate::quantity::{build_quantity, parse_milli};
use crate::scenario::{
    ControllerConfig, MetricSpec, MetricValues, Resources, Scenario, Source, TargetType,
};
use crate::scenarios::{self, BuiltIn};
use crate::time::Duration;
use crate::{UsageError, version, warn};

/// The longest simulation accepted: a year of syncs is already millions of rows.
const MAX_DURATION: Duration = Duration::from_secs(366 * 86_400);
/// Without --duration the run goes this long past the last load row.
const TAIL: Duration = Duration::from_secs(15 * 60);

/// Parses a load CSV read from `file` (the name is for messages only) against the HPA's metrics.
pub fn parse(file: &str, text: &str, metrics: &[MetricSpec]) -> Result<LoadCurve, InputError> {
    let mut reader = csv_reader(text);
    let header = reader.headers().map_err(|e| csv_error(file, &e))?.clone();
    let line = record_line(&header);
    let header_error = |column: usize, name: &str, message: String| {
        InputError::new(file, message)
            .at(line, Some(column + 1))
            .field(name)
    };
    let expected_names = {
        let mut names: Vec<&str> = Vec::new();
        for m in metrics {
            if !names
                .iter()
                .any(|n| n.eq_ignore_ascii_case(m.metric_name()))
            {
                names.push(m.metric_name());
            }
        }
        names
    };
    let mut time_column = None;
    let mut columns: Vec<(usize, LoadColumn)> = Vec::new();
    for (i, name) in header.iter().enumerate() {
        if let Some(first) = header
            .iter()
            .position(|other| other.eq_ignore_ascii_case(name))
            .filter(|&first| first != i)
        {
            return Err(header_error(
                i,
                name,
                format!(
                    "found the column \"{name}\" again (first as column {}), expected each column \
                     once",
                    first + 1
                ),
            ));
        }
        if name.eq_ignore_ascii_case("time") {
            time_column = Some(i);
            continue;
        }
        let Some(spec) = metrics
            .iter()
            .find(|m| m.metric_name().eq_ignore_ascii_case(name))
        else {
            return Err(header_error(
                i,
                name,
                format!(
                    "found the column {}, expected time or a metric of the HPA: {}",
                    crate::error::quoted(name),
                    crate::error::name_list(&expected_names, crate::error::LIST_NAMES)
                ),
            ));
        };
        columns.push((i, crate::input::prometheus::column(spec)));
    }
    let Some(time_column) = time_column else {
        return Err(InputError::new(
            file,
            format!(
                "found the columns {}, expected a time column",
                header.iter().collect::<Vec<_>>().join(",")
            ),
        )
        .at(line, None));
    };
    if let Some(missing) = expected_names
        .iter()
        .find(|n| !columns.iter().any(|(_, c)| c.name.eq_ignore_ascii_case(n)))
    {
        return Err(InputError::new(
            file,
            format!(
                "found no column for the HPA's metric {missing}, expected a column named \
                 {missing} with its total load"
            ),
        )
        .at(line, None));
    }
    let metric_columns = metrics
        .iter()
        .map(|m| {
            columns
                .iter()
                .position(|(_, c)| c.name.eq_ignore_ascii_case(m.metric_name()))
                .unwrap_or(0)
        })
        .collect();
    // Negative totals make sense only for metrics that can be negative.
    let allows_negative: Vec<bool> = columns.iter().map(|(_, c)| c.resource.is_none()).collect();

    let mut steps: Vec<LoadStep> = Vec::new();
    let mut record = csv::StringRecord::new();
    while reader
        .read_record(&mut record)
        .map_err(|e| csv_error(file, &e))?
    {
        let line = record_line(&record);
        let cell = |column: usize| Cell {
            file,
            line,
            column: column + 1,
            field: header.get(column).unwrap_or(""),
            text: record.get(column).unwrap_or(""),
        };
        let time = cell(time_column);
        let expected_time = "a time from the start such as 0s, 90s or 5m";
        if time.text.starts_with('-') {
            return Err(time.error(expected_time));
        }
        let at = Duration::parse(time.text).map_err(|_| time.error(expected_time))?;
        if at.millis() % 1000 != 0 {
            return Err(time.error("whole seconds"));
        }
        match steps.last() {
            None if at.millis() != 0 => {
                return Err(time.error("the first row at 0s (the load at the start)"));
            }
            Some(last) if at <= last.at => {
                return Err(time.error(format!(
                    "a time after the previous row's {} (rows in increasing time)",
                    last.at
                )));
            }
            _ => {}
        }
        let mut values = Vec::with_capacity(columns.len());
        for (k, (column, _)) in columns.iter().enumerate() {
            let c = cell(*column);
            if c.text.is_empty() {
                match steps.last().and_then(|s| s.values.get(k)) {
                    Some(&previous) => values.push(previous),
                    None => return Err(c.error("the total load at the start")),
                }
                continue;
            }
            let value = parse_milli(c.text).map_err(|e| c.message(e.to_string()))?;
            if value < 0 && !allows_negative.get(k).copied().unwrap_or(false) {
                return Err(c.error("a total of 0 or more"));
            }
            values.push(value);
        }
        steps.push(LoadStep { at, values });
    }
    if steps.is_empty() {
        return Err(InputError::new(
            file,
            "found no rows, expected at least one row: the load at 0s",
        ));
    }
    Ok(LoadCurve {
        columns: columns.into_iter().map(|(_, c)| c).collect(),
        steps,
        metric_columns,
    })
}

/// Validates the `simulate` flags and reads the files they name (or the built-in scenario).
pub fn build(args: &SimulateArgs) -> Result<Setup> {
    prometheus::refuse_without_server(&args.replay)?;
    if let Some(name) = &args.scenario {
        let builtin = scenarios::find(name).ok_or_else(|| {
            InputError::new(
                "--scenario",
                format!(
                    "found {}, expected list or one of {}",
                    crate::error::quoted(name),
                    scenarios::names()
                ),
            )
        })?;
        let merged = merge(args, &scenario_args(builtin)?);
        let label = ScenarioLabel {
            name: builtin.name.to_string(),
            notice: builtin.notice.to_string(),
        };
        let hpa_file = format!("<scenario {}: hpa>", builtin.name);
        let load_file = format!("<scenario {}: load>", builtin.name);
        return setup(
            &merged,
            (&hpa_file, builtin.hpa),
            (&load_file, builtin.load),
            Some(label),
        );
    }
    let Some(hpa) = &args.hpa else {
        bail!(UsageError(
            "simulate needs --hpa and --load (or --prometheus), or --scenario".to_string()
        ));
    };
    let stdin = [
        Some(hpa),
        args.load.as_ref(),
        args.replay.actual_file.as_ref(),
    ]
    .iter()
    .flatten()
    .filter(|p| p.as_path() == Path::new("-"))
    .count();
    if stdin > 1 {
        bail!(UsageError(
            "only one input can be read from stdin (`-`)".to_string()
        ));
    }
    let (hpa_file, hpa_text) = read_input(hpa)?;
    // With --prometheus the load comes from the queries (clap requires one or the other).
    let (load_file, load_text) = match &args.load {
        Some(load) => read_input(load)?,
        None => ("--prometheus".to_string(), String::new()),
    };
    setup(args, (&hpa_file, &hpa_text), (&load_file, &load_text), None)
}

/// A built-in scenario's flags, parsed by the same command line parser.
fn scenario_args(builtin: &BuiltIn) -> Result<SimulateArgs> {
    let argv = ["hpacalc", "simulate", "--scenario", builtin.name]
        .into_iter()
        .chain(builtin.args.iter().flat_map(|group| group.iter().copied()));
    match Cli::try_parse_from(argv) {
        Ok(Cli {
            command: Some(Command::Simulate(args)),
            ..
        }) => Ok(*args),
        Ok(_) => bail!("scenario {}: its flags are not a simulation", builtin.name),
        Err(e) => bail!("scenario {}: {e}", builtin.name),
    }
}

/// The command line's settings over the scenario's.
fn merge(user: &SimulateArgs, base: &SimulateArgs) -> SimulateArgs {
    fn pick<T: Clone>(user: &Option<T>, base: &Option<T>) -> Option<T> {
        user.clone().or_else(|| base.clone())
    }
    SimulateArgs {
        hpa: None,
        load: None,
        scenario: user.scenario.clone(),
        name: pick(&user.name, &base.name),
        replicas: pick(&user.replicas, &base.replicas),
        duration: pick(&user.duration, &base.duration),
        output: user.output,
        chart: user.chart.clone(),
        html: user.html.clone(),
        pod_request: pick(&user.pod_request, &base.pod_request),
        pod_startup: pick(&user.pod_startup, &base.pod_startup),
        pod_termination: pick(&user.pod_termination, &base.pod_termination),
        node_startup: pick(&user.node_startup, &base.node_startup),
        ca_scan_interval: pick(&user.ca_scan_interval, &base.ca_scan_interval),
        scale_down_delay_after_add: pick(
            &user.scale_down_delay_after_add,
            &base.scale_down_delay_after_add,
        ),
        sync_period: pick(&user.sync_period, &base.sync_period),
        tolerance: pick(&user.tolerance, &base.tolerance),
        cpu_initialization_period: pick(
            &user.cpu_initialization_period,
            &base.cpu_initialization_period,
        ),
        initial_readiness_delay: pick(&user.initial_readiness_delay, &base.initial_readiness_delay),
        downscale_stabilization: pick(&user.downscale_stabilization, &base.downscale_stabilization),
        kube_version: pick(&user.kube_version, &base.kube_version),
        feature_gates: pick(&user.feature_gates, &base.feature_gates),
        metrics_window: pick(&user.metrics_window, &base.metrics_window),
        node_allocatable: pick(&user.node_allocatable, &base.node_allocatable),
        existing_nodes: pick(&user.existing_nodes, &base.existing_nodes),
        daemonset_requests: if user.daemonset_requests.is_empty() {
            base.daemonset_requests.clone()
        } else {
            user.daemonset_requests.clone()
        },
        node_group_min: pick(&user.node_group_min, &base.node_group_min),
        node_group_max: pick(&user.node_group_max, &base.node_group_max),
        max_nodes_total: pick(&user.max_nodes_total, &base.max_nodes_total),
        scale_down_utilization_threshold: pick(
            &user.scale_down_utilization_threshold,
            &base.scale_down_utilization_threshold,
        ),
        scale_down_unneeded_time: pick(
            &user.scale_down_unneeded_time,
            &base.scale_down_unneeded_time,
        ),
        pod_limit: pick(&user.pod_limit, &base.pod_limit),
        rollout: pick(&user.rollout, &base.rollout),
        max_surge: pick(&user.max_surge, &base.max_surge),
        max_unavailable: pick(&user.max_unavailable, &base.max_unavailable),
        min_ready_seconds: pick(&user.min_ready_seconds, &base.min_ready_seconds),
        startup_cpu: pick(&user.startup_cpu, &base.startup_cpu),
        replay: user.replay.clone(),
    }
}

/// The most syncs one simulation runs: each is a row of the output (about 5 KB in memory).
pub const MAX_SYNCS: i64 = 100_000;
/// The most pods one simulation holds: its starting replicas and the HPA's maxReplicas.
pub const MAX_PODS: i32 = 100_000;

/// Work proportional to a number in the input is bounded: syncs and pods have a ceiling, and a
/// load whose sums would overflow the controller's int64 arithmetic is refused.
fn check_size(
    sync_period: Duration,
    duration: Duration,
    start_replicas: i32,
    max_replicas: i32,
    pod_request: &Resources,
    curve: &LoadCurve,
) -> Result<(), InputError> {
    let syncs = duration.millis() / sync_period.millis().max(1) + 1;
    if syncs > MAX_SYNCS {
        return Err(InputError::new(
            "--duration",
            format!(
                "found {duration} at a --sync-period of {sync_period}, {syncs} syncs, expected at \
                 most {MAX_SYNCS} syncs (the simulation limit): a shorter --duration or a longer \
                 --sync-period"
            ),
        ));
    }
    for (flag, n) in [
        ("--replicas", start_replicas),
        ("spec.maxReplicas", max_replicas),
    ] {
        if n > MAX_PODS {
            return Err(InputError::new(
                flag,
                format!(
                    "found {n}, expected at most {MAX_PODS} pods (the simulation limit): \
                     simulate a smaller workload with the same per-pod load"
                ),
            ));
        }
    }
    // The controller sums requests over the pods and multiplies usage by 100 (utilization).
    let pods = i64::from(start_replicas.max(max_replicas).max(1));
    for (name, r) in &pod_request.0 {
        if r.checked_mul(pods)
            .and_then(|t| t.checked_mul(100))
            .is_none()
        {
            return Err(InputError::new(
                "--pod-request",
                format!(
                    "found {name}={}, whose sum over {pods} pods overflows the controller's \
                     64-bit arithmetic, expected a smaller request",
                    crate::quantity::build_quantity(name, *r)
                ),
            ));
        }
    }
    for step in &curve.steps {
        for (column, v) in curve.columns.iter().zip(&step.values) {
            if v.checked_mul(100).is_none() {
                return Err(InputError::new(
                    "--load",
                    format!(
                        "found {} at {}, a load that overflows the controller's 64-bit \
                         arithmetic, expected a smaller value",
                        crate::quantity::format_milli(*v, crate::quantity::Format::DecimalSI),
                        step.at
                    ),
                )
                .field(column.name.clone()));
            }
        }
    }
    Ok(())
}

/// A duration flag, or its default.
fn duration_flag(flag: &str, value: Option<&str>, default: &str) -> Result<Duration, InputError> {
    let text = value.unwrap_or(default);
    Duration::parse(text).map_err(|e| InputError::new(flag, e))
}

/// A duration flag that sets the simulation's clock: whole seconds, and more than 0 if `positive`.
fn step_flag(
    flag: &str,
    value: Option<&str>,
    default: &str,
    positive: bool,
) -> Result<Duration, InputError> {
    let d = duration_flag(flag, value, default)?;
    let text = value.unwrap_or(default);
    if d.millis() % 1000 != 0 {
        return Err(InputError::new(
            flag,
            format!("found {text}, expected whole seconds"),
        ));
    }
    if positive && d.millis() == 0 {
        return Err(InputError::new(
            flag,
            format!("found {text}, expected at least 1s"),
        ));
    }
    Ok(d)
}

/// Everything validated into a `Setup`; `hpa` and `load` are `(name for messages, text)`.
pub fn setup(
    args: &SimulateArgs,
    hpa: (&str, &str),
    load: (&str, &str),
    label: Option<ScenarioLabel>,
) -> Result<Setup> {
    let kube_version = args.kube_version.as_deref().unwrap_or("1.37");
    let kube_minor = version::parse_kube_version(kube_version)
        .map_err(|e| InputError::new("--kube-version", e))?;
    let mut features = version::default_gates(kube_minor);
    if let Some(text) = &args.feature_gates {
        version::apply_feature_gates(&mut features, kube_minor, text)
            .map_err(|e| InputError::new("--feature-gates", e))?;
    }
    let tolerance = args.tolerance.unwrap_or(0.1);
    if !(tolerance.is_finite() && tolerance >= 0.0) {
        bail!(InputError::new(
            "--tolerance",
            format!("found {tolerance}, expected a ratio of 0 or more")
        ));
    }
    let sync_period = step_flag("--sync-period", args.sync_period.as_deref(), "15s", true)?;
    let config = ControllerConfig {
        kube_minor,
        features,
        tolerance,
        cpu_initialization_period: duration_flag(
            "--cpu-initialization-period",
            args.cpu_initialization_period.as_deref(),
            "5m",
        )?,
        delay_of_initial_readiness_status: duration_flag(
            "--initial-readiness-delay",
            args.initial_readiness_delay.as_deref(),
            "30s",
        )?,
        downscale_stabilization_window: duration_flag(
            "--downscale-stabilization",
            args.downscale_stabilization.as_deref(),
            "5m",
        )?,
        sync_period,
        ..ControllerConfig::default()
    };
    let timing = Timing {
        sync_period,
        pod_startup: step_flag("--pod-startup", args.pod_startup.as_deref(), "15s", false)?,
        pod_termination: step_flag(
            "--pod-termination",
            args.pod_termination.as_deref(),
            "0s",
            false,
        )?,
        node_startup: step_flag("--node-startup", args.node_startup.as_deref(), "3m", false)?,
        ca_scan_interval: step_flag(
            "--ca-scan-interval",
            args.ca_scan_interval.as_deref(),
            "10s",
            true,
        )?,
        scale_down_delay_after_add: duration_flag(
            "--scale-down-delay-after-add",
            args.scale_down_delay_after_add.as_deref(),
            "10m",
        )?,
        metrics_window: duration_flag("--metrics-window", args.metrics_window.as_deref(), "15s")?,
    };

    let loaded = manifest::load(hpa.0, hpa.1, args.name.as_deref())?;
    // A ScaledObject: KEDA's poll runs beside the HPA's syncs, each trigger reading the load
    // column named like its metric. The formula and failures are one-sync features only.
    let keda = match &loaded.keda {
        None => None,
        Some(t) if t.keda.input.modifiers.is_some() => bail!(InputError::new(
            hpa.0,
            "found scalingModifiers, expected a ScaledObject without them: simulate does not \
             evaluate the formula over time (one sync: hpacalc --hpa FILE --metric-value ...)"
        )),
        Some(t) => Some(t.keda.input.clone()),
    };
    for w in &loaded.warnings {
        warn(w);
    }
    let replay = if args.replay.prometheus.is_some() || prometheus::looks_like_answer(load.1) {
        let r = prometheus::replay(args, load, &loaded.spec.metrics)?;
        for w in &r.warnings {
            warn(w);
        }
        Some(r)
    } else {
        prometheus::refuse_with_csv(&args.replay)?;
        None
    };
    let (curve, replay, actual, span) = match replay {
        Some(r) => (r.curve, Some(r.replay), r.actual, Some(r.span)),
        None => (
            parse(load.0, load.1, &loaded.spec.metrics)?,
            None,
            None,
            None,
        ),
    };

    let pod_request = match &args.pod_request {
        Some(text) => parse_resource_list("--pod-request", text)?.0,
        None => Resources::default(),
    };
    for spec in &loaded.spec.metrics {
        if let MetricSpec::Resource {
            resource, target, ..
        } = spec
            && target.target_type == TargetType::Utilization
            && pod_request.get(resource).unwrap_or(0) <= 0
        {
            let found = args.pod_request.as_deref().map_or_else(
                || "no --pod-request".to_string(),
                |t| format!("\"{t}\" without {resource}"),
            );
            bail!(InputError::new(
                "--pod-request",
                format!(
                    "found {found}, expected a {resource} request such as {resource}=500m: the \
                     HPA's {resource} metric has a Utilization target, which divides usage by \
                     each pod's request"
                )
            ));
        }
    }
    let mut containers: Vec<&str> = Vec::new();
    for spec in &loaded.spec.metrics {
        if let MetricSpec::Resource {
            container: Some(c), ..
        } = spec
            && !containers.contains(&c.as_str())
        {
            containers.push(c);
        }
    }
    if containers.len() > 1 {
        bail!(InputError::new(
            hpa.0,
            format!(
                "found ContainerResource metrics for the containers {}, expected one container: \
                 the simulation models pods with one container",
                containers.join(", ")
            )
        ));
    }
    let container = containers.first().copied().unwrap_or("app").to_string();

    // A replay starts where the cluster was (the actual replicas at time 0, never negative).
    let start_replicas = match args.replicas.or(actual.as_ref().and_then(|a| a.at(0))) {
        Some(n) if n < 0 => bail!(InputError::new(
            "--replicas",
            format!("found {n}, expected 0 or more")
        )),
        Some(n) => n,
        None => match &keda {
            Some(k) => k.min_replica_count.unwrap_or(0),
            None => loaded
                .status
                .current_replicas
                .unwrap_or(loaded.spec.min_replicas),
        },
    };

    let nodes = node_group(args, &pod_request, &loaded.spec.namespace)?;

    let last_row = curve.steps.last().map_or(Duration::ZERO, |s| s.at);
    let duration = match &args.duration {
        Some(text) => step_flag("--duration", Some(text), "0s", false)?,
        // A replay ends with its data; a load CSV runs on to show the settling.
        None => span.unwrap_or(Duration(last_row.millis().saturating_add(TAIL.millis()))),
    };
    if duration > MAX_DURATION {
        bail!(InputError::new(
            "--duration",
            format!(
                "found {duration}, expected at most {MAX_DURATION} (the output has a row per \
                 sync)"
            )
        ));
    }

    check_size(
        config.sync_period,
        duration,
        start_replicas,
        loaded.spec.max_replicas,
        &pod_request,
        &curve,
    )?;

    let scenario = Scenario {
        hpa: loaded.spec,
        current_replicas: start_replicas,
        current_replicas_source: Source::Simulation,
        status_replicas: start_replicas,
        scaled_to_zero: loaded.status.scaled_to_zero,
        status_conditions: Vec::new(),
        pods: Vec::new(),
        metrics: MetricValues::default(),
        config,
        memory: None,
        now: START,
        input_notes: Vec::new(),
        warnings: Vec::new(),
        input_diagnostics: Vec::new(),
        nodes: None,
        approximation: false,
        observed_status: None,
        keda,
        sources: Vec::new(),
    };
    let model = model(args, &pod_request, duration)?;
    Ok(Setup {
        scenario,
        load: curve,
        start_replicas,
        pod_request,
        container,
        timing,
        nodes,
        duration,
        label,
        replay,
        actual,
        pod_limit: model.pod_limit,
        rollout: model.rollout,
        startup_cpu: model.startup_cpu,
    })
}

/// The model flags: limits, a rollout, a startup burst.
struct Model {
    pod_limit: Resources,
    rollout: Option<Rollout>,
    startup_cpu: Option<StartupBurst>,
}

fn model(args: &SimulateArgs, pod_request: &Resources, duration: Duration) -> Result<Model> {
    let pod_limit = match &args.pod_limit {
        Some(text) => parse_resource_list("--pod-limit", text)?.0,
        None => Resources::default(),
    };
    for (name, limit) in &pod_limit.0 {
        // The API server's rule: a request may not exceed its limit.
        if let Some(request) = pod_request.get(name).filter(|r| r > limit) {
            bail!(InputError::new(
                "--pod-limit",
                format!(
                    "found {name}={}, below the request {name}={}, expected a limit of at least \
                     the request",
                    build_quantity(name, *limit),
                    build_quantity(name, request)
                )
            ));
        }
    }
    let rollout = match &args.rollout {
        None => {
            for (set, flag) in [
                (args.max_surge.is_some(), "--max-surge"),
                (args.max_unavailable.is_some(), "--max-unavailable"),
                (args.min_ready_seconds.is_some(), "--min-ready-seconds"),
            ] {
                if set {
                    bail!(InputError::new(
                        flag,
                        "found no rollout, expected --rollout AT with it"
                    ));
                }
            }
            None
        }
        Some(text) => {
            let at = step_flag("--rollout", Some(text), "0s", false)?;
            if at > duration {
                bail!(InputError::new(
                    "--rollout",
                    format!("found {text}, expected a time within the --duration of {duration}")
                ));
            }
            let max_surge = int_or_percent("--max-surge", args.max_surge.as_deref())?;
            let max_unavailable =
                int_or_percent("--max-unavailable", args.max_unavailable.as_deref())?;
            if let IntOrPercent::Percent(p) = max_unavailable
                && p > 100
            {
                bail!(InputError::new(
                    "--max-unavailable",
                    format!("found {p}%, expected at most 100%")
                ));
            }
            // The API server's rule: both may not be 0.
            if max_surge.scaled(100, true) == 0 && max_unavailable.scaled(100, true) == 0 {
                bail!(InputError::new(
                    "--max-unavailable",
                    "found 0 with --max-surge 0, expected one of them above 0"
                ));
            }
            let min_ready = match args.min_ready_seconds {
                Some(n) if !(0..=86_400).contains(&n) => bail!(InputError::new(
                    "--min-ready-seconds",
                    format!("found {n}, expected 0 to 86400 seconds")
                )),
                n => n.unwrap_or(0) * 1000,
            };
            Some(Rollout {
                at: at.millis(),
                max_surge,
                max_unavailable,
                min_ready,
            })
        }
    };
    let startup_cpu = args.startup_cpu.as_deref().map(startup_burst).transpose()?;
    Ok(Model {
        pod_limit,
        rollout,
        startup_cpu,
    })
}

/// `--max-surge` / `--max-unavailable`: `3` or `25%`; 25% when not given.
fn int_or_percent(flag: &str, value: Option<&str>) -> Result<IntOrPercent, InputError> {
    let text = value.unwrap_or("25%");
    let parsed = match text.strip_suffix('%') {
        Some(p) => p.parse::<i32>().ok().map(IntOrPercent::Percent),
        None => text.parse::<i32>().ok().map(IntOrPercent::Int),
    };
    parsed
        .filter(|v| !matches!(v, IntOrPercent::Int(n) | IntOrPercent::Percent(n) if *n < 0))
        .ok_or_else(|| {
            InputError::new(
                flag,
                format!("found {text:?}, expected a count of 0 or more or a percent such as 25%"),
            )
        })
}

/// `--startup-cpu 2x:45s`.
fn startup_burst(text: &str) -> Result<StartupBurst, InputError> {
    let expected = || {
        InputError::new(
            "--startup-cpu",
            format!(
                "found {text:?}, expected FACTORx:DURATION with a factor above 0 and at most \
                 1000, such as 2x:45s"
            ),
        )
    };
    let (factor, duration) = text.split_once(':').ok_or_else(expected)?;
    let factor: f64 = factor
        .strip_suffix('x')
        .and_then(|f| f.parse().ok())
        .filter(|f: &f64| f.is_finite() && *f > 0.0 && *f <= 1000.0)
        .ok_or_else(expected)?;
    let duration = step_flag("--startup-cpu", Some(duration), "0s", true)?;
    // At most 1000 with milli precision: the product fits.
    #[allow(clippy::cast_possible_truncation)]
    let factor_milli = (factor * 1000.0).round() as i64;
    Ok(StartupBurst {
        factor_milli,
        duration,
    })
}

/// The node group from the node flags, validated by the single-sync calculator's parser.
fn node_group(
    args: &SimulateArgs,
    pod_request: &Resources,
    namespace: &str,
) -> Result<Option<NodeGroup>> {
    if args.node_allocatable.is_none() {
        let stray = [
            (args.existing_nodes.is_some(), "--existing-nodes"),
            (!args.daemonset_requests.is_empty(), "--daemonset-requests"),
            (args.node_group_min.is_some(), "--node-group-min"),
            (args.node_group_max.is_some(), "--node-group-max"),
            (args.max_nodes_total.is_some(), "--max-nodes-total"),
            (args.node_startup.is_some(), "--node-startup"),
            (args.ca_scan_interval.is_some(), "--ca-scan-interval"),
            (
                args.scale_down_delay_after_add.is_some(),
                "--scale-down-delay-after-add",
            ),
            (
                args.scale_down_utilization_threshold.is_some(),
                "--scale-down-utilization-threshold",
            ),
            (
                args.scale_down_unneeded_time.is_some(),
                "--scale-down-unneeded-time",
            ),
        ];
        if let Some((_, flag)) = stray.iter().find(|(set, _)| *set) {
            bail!(InputError::new(
                *flag,
                "found no node group, expected --node-allocatable with it"
            ));
        }
        return Ok(None);
    }
    let flags = NodeFlags {
        node_allocatable: args.node_allocatable.clone(),
        existing_nodes: args.existing_nodes,
        daemonset_requests: args.daemonset_requests.clone(),
        node_group_max: args.node_group_max,
        max_nodes_total: args.max_nodes_total,
        pod_request: None,
        scale_down_utilization_threshold: args.scale_down_utilization_threshold.unwrap_or(0.5),
        scale_down_unneeded_time: args
            .scale_down_unneeded_time
            .clone()
            .unwrap_or_else(|| "10m".to_string()),
        ..NodeFlags::default()
    };
    let Some(mut input) = from_flags(&flags, &[], namespace)? else {
        return Ok(None);
    };
    input.pod_request = pod_request.clone();
    input.pod_request_source = "--pod-request".to_string();
    let min = match args.node_group_min {
        Some(n) if n < 0 => bail!(InputError::new(
            "--node-group-min",
            format!("found {n}, expected 0 or more")
        )),
        Some(n) => n,
        None => 0,
    };
    if let Some(max) = input.node_group_max.filter(|&max| max < min) {
        bail!(InputError::new(
            "--node-group-max",
            format!("found {max}, expected at least --node-group-min ({min})")
        ));
    }
    Ok(Some(NodeGroup { input, min }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::testing;

    fn cpu() -> MetricSpec {
        testing::cpu_utilization(50)
    }

    fn external(name: &str) -> MetricSpec {
        testing::external(name, Some(100_000), None)
    }

    #[test]
    fn rows_are_steps_in_milli_units_and_empty_cells_keep_the_previous_value() {
        let text = "\u{feff}Time,CPU,queue\r\n0s,2.4,100\r\n90s,,250\r\n5m,1200m,\r\n";
        let curve = parse("l.csv", text, &[cpu(), external("queue")]).unwrap();
        let steps: Vec<(i64, Vec<i64>)> = curve
            .steps
            .iter()
            .map(|s| (s.at.millis() / 1000, s.values.clone()))
            .collect();
        assert_eq!(
            steps,
            [
                (0, vec![2400, 100_000]),
                (90, vec![2400, 250_000]),
                (300, vec![1200, 250_000]),
            ]
        );
        assert_eq!(curve.metric_columns, [0, 1]);
        assert_eq!(curve.columns[0].resource.as_deref(), Some("cpu"));
        assert_eq!(curve.columns[1].resource, None);
    }

    #[test]
    fn load_errors_name_the_line_column_and_what_was_expected() {
        let cases = [
            (
                "cpu\n2\n",
                "l.csv:1: found the columns cpu, expected a time column",
            ),
            (
                "time,cpu,rps\n0s,1,1\n",
                "l.csv:1:3: rps: found the column \"rps\", expected time or a metric of the HPA: cpu",
            ),
            (
                "time\n0s\n",
                "l.csv:1: found no column for the HPA's metric cpu",
            ),
            (
                "time,cpu,CPU\n0s,1,1\n",
                "l.csv:1:3: CPU: found the column \"CPU\" again",
            ),
            ("time,cpu\n", "l.csv: found no rows"),
            (
                "time,cpu\n30s,1\n",
                "l.csv:2:1: time: found \"30s\", expected the first row at 0s",
            ),
            (
                "time,cpu\n0s,1\n2m,1\n1m,2\n",
                "l.csv:4:1: time: found \"1m\", expected a time after the previous row's 2m",
            ),
            ("time,cpu\n0s,1\n1.5s,1\n", "expected whole seconds"),
            (
                "time,cpu\n-5s,1\n",
                "l.csv:2:1: time: found \"-5s\", expected a time from the start",
            ),
            (
                "time,cpu\n0s,\n",
                "l.csv:2:2: cpu: found an empty cell, expected the total load at the start",
            ),
            (
                "time,cpu\n0s,-1\n",
                "l.csv:2:2: cpu: found \"-1\", expected a total of 0 or more",
            ),
            ("time,cpu\n0s,lots\n", "l.csv:2:2: cpu:"),
            ("time,cpu\n0s,1,2\n", "l.csv:2: found 3 fields, expected 2"),
        ];
        for (text, want) in cases {
            let err = parse("l.csv", text, &[cpu()]).unwrap_err().to_string();
            assert!(
                err.starts_with(want) || err.contains(want),
                "{text:?}: {err}"
            );
        }
    }

    #[test]
    fn negative_values_are_allowed_for_external_metrics() {
        let curve = parse("l.csv", "time,queue\n0s,-5\n", &[external("queue")]).unwrap();
        assert_eq!(curve.steps[0].values, [-5000]);
    }
}
