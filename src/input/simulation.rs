//! The `simulate` command's inputs: the HPA and the load (a load CSV, a Prometheus answer, or
//! the queries to run), the settings of the run, and everything validated into one
//! `scenario::simulation::Setup`. A built-in scenario is the same inputs, with its own settings under
//! the user's.

use anyhow::{Result, bail};

use crate::calc::simulate::START;
use crate::error::{InputError, UsageError};
use crate::input::builtin::{self, BuiltIn};
use crate::input::cluster::fleet;
use crate::input::cluster::objects;
pub use crate::input::inputs::SimSettings;
use crate::input::inputs::{ControllerFlags, NodeSettings, Text, controller_config};
use crate::input::nodes::{NodeFiles, from_settings, parse_resource_list};
use crate::input::prometheus::{self, ReplaySettings};
use crate::input::what_if::{self, ContainerQuantity};
use crate::input::{load_csv, manifest};
use crate::quantity::build_quantity;
use crate::scenario::simulation::{
    IntOrPercent, LoadCurve, NodeGroup, Rollout, ScenarioLabel, Setup, StartupBurst, Timing,
};
use crate::scenario::{MetricSpec, MetricValues, Resources, Scenario, Source, TargetType};
use crate::time::Duration;

/// The longest simulation accepted: a year of syncs is already millions of rows.
const MAX_DURATION: Duration = Duration::from_secs(366 * 86_400);
/// Without --duration the run goes this long past the last load row.
const TAIL: Duration = Duration::from_secs(15 * 60);

/// What one simulation is built from.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// The HPA manifest (or ScaledObject).
    pub hpa: Text,
    /// A load CSV or a Prometheus answer; `None` when `replay.prometheus` runs the queries.
    pub load: Option<Text>,
    /// `--actual-file`: the replicas the cluster really had.
    pub actual: Option<Text>,
    pub settings: SimSettings,
    pub replay: ReplaySettings,
    /// The built-in scenario it is, if one.
    pub label: Option<ScenarioLabel>,
    /// Loads a person set while stepping through the run (`/simulate`): from each instant on, the
    /// first metric's total, in milli-units; the curve's later rows are dropped.
    pub load_set: Vec<(Duration, i64)>,
}

impl Inputs {
    /// The built-in scenario `name` with the user's settings over its own.
    pub fn builtin(
        name: &str,
        settings: SimSettings,
        replay: ReplaySettings,
    ) -> Result<Inputs, InputError> {
        let found: &BuiltIn = builtin::find(name).ok_or_else(|| {
            InputError::new(
                "--scenario",
                format!(
                    "found {}, expected list or one of {}",
                    crate::error::quoted(name),
                    builtin::names()
                ),
            )
        })?;
        Ok(Inputs {
            hpa: Text::new(format!("<scenario {}: hpa>", found.name), found.hpa),
            load: Some(Text::new(
                format!("<scenario {}: load>", found.name),
                found.load,
            )),
            actual: None,
            settings: settings.over((found.settings)()),
            replay,
            label: Some(ScenarioLabel {
                name: found.name.to_string(),
                notice: found.notice.to_string(),
            }),
            load_set: Vec::new(),
        })
    }
}

/// Refuses two inputs on stdin.
pub fn one_stdin(paths: &[Option<&std::path::Path>]) -> Result<(), UsageError> {
    let on_stdin = (paths.iter().flatten())
        .filter(|p| **p == std::path::Path::new("-"))
        .count();
    if on_stdin > 1 {
        return Err(UsageError(
            "only one input can be read from stdin (`-`)".to_string(),
        ));
    }
    Ok(())
}

/// The most syncs one simulation runs: each is a row of the output (about 5 KB in memory).
pub const MAX_SYNCS: i64 = 100_000;
/// The most pods one simulation holds: its starting replicas and the HPA's maxReplicas.
pub const MAX_PODS: i32 = 100_000;

/// The most work one request may ask of the simulation, in pod-syncs (`Setup::work`: the syncs
/// times the pods and the nodes): a page of `hpacalc serve` or an MCP call past it is refused
/// before it starts. A pod-sync costs about 3 µs (the campaign's 10,000 replicas over a day of
/// 15 s syncs, 58 million pod-syncs, took 170 s), so the budget is about 30 s of work, which the
/// request's deadline then cuts. The command line has no such budget: its user waits for it.
pub const REQUEST_WORK: u64 = 10_000_000;

/// Refuses, before it starts, a run past `REQUEST_WORK`; `field` is what the request would
/// change (`t`, `duration`).
pub fn within_request_budget(setup: &Setup, field: &str) -> Result<(), InputError> {
    let work = setup.work();
    if work <= REQUEST_WORK {
        return Ok(());
    }
    let syncs = setup.sync_count();
    Err(InputError::new(
        field,
        format!(
            "found a run of {syncs} syncs over up to {} pods and nodes, {work} pod-syncs, \
             expected at most {REQUEST_WORK} pod-syncs for one request (the request budget): \
             an earlier end, fewer replicas or a longer sync period; `hpacalc simulate` on the \
             command line has no such budget",
            work / u64::try_from(syncs.max(1)).unwrap_or(1)
        ),
    ))
}

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

/// Everything validated into a `Setup`.
pub fn build(inputs: &Inputs) -> Result<Setup> {
    let args = &inputs.settings;
    prometheus::refuse_without_server(&inputs.replay)?;
    let hpa = (inputs.hpa.name.as_str(), &*inputs.hpa.text);
    let (config, timing) = controller_and_timing(args)?;
    let mut loaded = manifest::load(hpa.0, hpa.1, args.name.as_deref())?;
    args.what_if.apply_to_spec(&mut loaded.spec)?;
    let mut warnings = loaded.warnings.clone();
    let keda = scaled_object(&loaded, hpa.0, args.now.as_deref(), &mut warnings)?;
    let mut load = load_of(inputs, &loaded.spec.metrics, &mut warnings)?;
    for (at, milli) in &inputs.load_set {
        load.curve.set_from(*at, *milli);
    }
    let template = template_of(&inputs.hpa, &loaded.spec)?;
    let container = container(hpa.0, &loaded.spec.metrics)?;
    let pod_request = pod_request(args, &loaded.spec.metrics, template.as_ref(), &container)?;

    // A replay starts where the cluster was (the actual replicas at time 0, never negative).
    let start_replicas = match args.replicas.or(load.actual.as_ref().and_then(|a| a.at(0))) {
        Some(n) if n < 0 => bail!(InputError::new(
            "--replicas",
            format!("found {n}, expected 0 or more")
        )),
        Some(n) => n,
        None => match &keda {
            // Where the ScaledObject's status says KEDA holds the target, else its minimum.
            Some(k) => match crate::calc::keda::status::start(k) {
                Some((n, why)) => {
                    warnings.push(why);
                    n
                }
                None => k.min_replica_count.unwrap_or(0),
            },
            None => loaded
                .status
                .current_replicas
                .unwrap_or(loaded.spec.min_replicas),
        },
    };
    let nodes = match &args.karpenter {
        Some(texts) => Some(karpenter_group(args, texts, &pod_request, &inputs.hpa)?),
        None => node_group(args, &pod_request, &loaded.spec.namespace)?,
    };
    let duration = duration(args, &load)?;
    check_size(
        config.sync_period,
        duration,
        start_replicas,
        loaded.spec.max_replicas,
        &pod_request,
        &load.curve,
    )?;

    let scenario = Scenario {
        hpa: loaded.spec,
        current_replicas: start_replicas,
        current_replicas_source: Source::Simulation,
        status_replicas: start_replicas,
        scale_error: None,
        scaled_to_zero: loaded.status.scaled_to_zero,
        status_conditions: Vec::new(),
        pods: Vec::new().into(),
        metrics: MetricValues::default(),
        config,
        memory: None,
        now: START,
        input_notes: Vec::new(),
        warnings,
        input_diagnostics: Vec::new(),
        nodes: None,
        node_groups: None,
        karpenter: None,
        approximation: false,
        observed_status: None,
        keda,
        sources: Vec::new(),
        bounded: Vec::new(),
        earliest_now: None,
        unnamed_resources: Vec::new(),
    };
    let model = model(args, &pod_request, template.as_ref(), &container, duration)?;
    Ok(Setup {
        scenario,
        load: load.curve,
        start_replicas,
        pod_request,
        container,
        timing,
        nodes,
        duration,
        label: inputs.label.clone(),
        replay: load.replay,
        actual: load.actual,
        pod_limit: model.pod_limit,
        rollout: model.rollout,
        startup_cpu: model.startup_cpu,
    })
}

/// The controller's flags, and the clock of the run (whole seconds).
fn controller_and_timing(
    args: &SimSettings,
) -> Result<(crate::scenario::ControllerConfig, Timing)> {
    let config = controller_config(&ControllerFlags {
        kube_version: args.kube_version.as_deref(),
        feature_gates: args.feature_gates.as_deref(),
        tolerance: args.tolerance,
        cpu_initialization_period: args.cpu_initialization_period.as_deref(),
        initial_readiness_delay: args.initial_readiness_delay.as_deref(),
        downscale_stabilization: args.downscale_stabilization.as_deref(),
        sync_period: args.sync_period.as_deref(),
    })?;
    let step = |flag: &str, value: &Option<String>, default: &str, positive: bool| {
        step_flag(flag, value.as_deref(), default, positive)
    };
    let timing = Timing {
        sync_period: step("--sync-period", &args.sync_period, "15s", true)?,
        pod_startup: step("--pod-startup", &args.pod_startup, "15s", false)?,
        pod_termination: step("--pod-termination", &args.pod_termination, "0s", false)?,
        node_startup: step("--node-startup", &args.node_startup, "3m", false)?,
        ca_scan_interval: step("--ca-scan-interval", &args.ca_scan_interval, "10s", true)?,
        scale_down_delay_after_add: duration_flag(
            "--scale-down-delay-after-add",
            args.scale_down_delay_after_add.as_deref(),
            "10m",
        )?,
        metrics_window: duration_flag("--metrics-window", args.metrics_window.as_deref(), "15s")?,
    };
    Ok((config, timing))
}

/// A ScaledObject: KEDA's poll runs beside the HPA's syncs, each trigger reading the load column
/// named like its metric. Its status is where the run starts, as it is the one-shot answer's
/// evidence (`keda::status_state`: the failure counts of `status.health`); its times count from
/// the capture (`--now`), which is the run's 0. The formula is a one-sync feature only.
fn scaled_object(
    loaded: &manifest::LoadedHpa,
    file: &str,
    now: Option<&str>,
    warnings: &mut Vec<String>,
) -> Result<Option<crate::scenario::keda::KedaInput>> {
    let Some(t) = &loaded.keda else {
        return Ok(None);
    };
    if t.keda.input.modifiers.is_some() {
        bail!(InputError::new(
            file,
            "found scalingModifiers, expected a ScaledObject without them: simulate does not \
             evaluate the formula over time (one sync: hpacalc --hpa FILE --metric-value ...)"
        ));
    }
    let mut input = t.keda.input.clone();
    crate::input::keda::status_state(&t.keda, &mut input, None)?;
    let captured = capture_time(now, input.last_active, warnings)?;
    input.shift(captured, crate::calc::simulate::START);
    Ok(Some(input))
}

/// When the ScaledObject was captured: `--now`, else the current time; never before its
/// status.lastActiveTime, which KEDA wrote at a poll before the capture.
fn capture_time(
    now: Option<&str>,
    last_active: Option<crate::time::Timestamp>,
    warnings: &mut Vec<String>,
) -> Result<crate::time::Timestamp> {
    if let Some(text) = now {
        let t = crate::input::flag_time("--now", text)?;
        if let Some(l) = last_active.filter(|l| l.after(t)) {
            bail!(InputError::new(
                "--now",
                format!(
                    "found {text}, before the ScaledObject's status.lastActiveTime {}, expected \
                     a time the capture can have (at or after it)",
                    l.to_rfc3339()
                )
            ));
        }
        return Ok(t);
    }
    let clock = crate::time::Timestamp(jiff::Timestamp::now().as_second().saturating_mul(1000));
    let Some(l) = last_active else {
        return Ok(clock);
    };
    let start = if l.after(clock) { l } else { clock };
    warnings.push(format!(
        "KEDA: no --now: the run starts at {}, and status.lastActiveTime {} counts from it; pass \
         --now with the time of the capture",
        start.to_rfc3339(),
        l.to_rfc3339()
    ));
    Ok(start)
}

/// The load, and with a Prometheus answer where it came from and what really happened.
struct Load {
    curve: LoadCurve,
    replay: Option<crate::scenario::simulation::Replay>,
    actual: Option<crate::scenario::simulation::ActualCurve>,
    /// A replay's span: it ends with its data.
    span: Option<Duration>,
}

/// The load CSV, or a Prometheus answer (saved, or the queries `--prometheus` runs).
fn load_of(inputs: &Inputs, metrics: &[MetricSpec], warnings: &mut Vec<String>) -> Result<Load> {
    let load = match &inputs.load {
        Some(t) => (t.name.as_str(), &*t.text),
        // With --prometheus the load comes from the queries.
        None => ("--prometheus", ""),
    };
    let flags = &inputs.replay;
    if flags.prometheus.is_none() && !prometheus::looks_like_answer(load.1) {
        prometheus::refuse_with_csv(flags, inputs.actual.is_some())?;
        return Ok(Load {
            curve: load_csv::parse(load.0, load.1, metrics)?,
            replay: None,
            actual: None,
            span: None,
        });
    }
    let r = prometheus::replay(flags, load, inputs.actual.as_ref(), metrics)?;
    warnings.extend(r.warnings);
    Ok(Load {
        curve: r.curve,
        replay: Some(r.replay),
        actual: r.actual,
        span: Some(r.span),
    })
}

/// The pods of the HPA's target as its pod template gives them, when the `--hpa` file holds the
/// target beside the HPA (`kubectl get hpa,deploy -o yaml`, a chart's manifests).
struct Template {
    /// The `--hpa` file, and `Deployment web`, for messages.
    file: String,
    name: String,
    /// Its containers' requests and limits summed, or its pod-level ones, as the audit reads a
    /// target's template.
    requests: Resources,
    limits: Resources,
    /// Each app container's name, requests and limits (what `--set-request` and `--set-limit`
    /// change).
    containers: Vec<(String, Resources, Resources)>,
    /// The pod-level `resources` are set: they, not the containers', are the pod's.
    pod_level: bool,
}

/// The HPA's target in the `--hpa` file, read by the reader of cluster dumps.
fn template_of(hpa: &Text, spec: &crate::scenario::HpaSpec) -> Result<Option<Template>> {
    let mut dump = crate::input::cluster::Dump::default();
    dump.read_manifest_text(&hpa.name, &hpa.text)?;
    let target = &spec.target;
    let found = dump.workloads.iter().find(|w| {
        w.kind == target.kind
            && w.metadata.name == target.name
            && *w.metadata.namespace == *spec.namespace
    });
    Ok(found.map(|w| {
        let spec = w.spec.template.as_ref().map(|t| &t.spec);
        let containers = spec.map_or_else(Vec::new, |s| {
            (s.containers.iter())
                .map(|c| {
                    let resources = c.resources.as_ref();
                    (
                        c.name.to_string(),
                        Resources(objects::requests_milli(resources)),
                        Resources(objects::limits_milli(resources)),
                    )
                })
                .collect()
        });
        Template {
            file: hpa.name.clone(),
            name: format!("{} {}", w.kind, w.metadata.name),
            requests: Resources(fleet::per_pod_requests(w)),
            limits: Resources(fleet::per_pod_limits(w)),
            containers,
            pod_level: spec.is_some_and(|s| s.resources.is_some()),
        }
    }))
}

/// `--pod-request`, else the target's pod template; a Utilization target needs it for its
/// resource.
fn pod_request(
    args: &SimSettings,
    metrics: &[MetricSpec],
    template: Option<&Template>,
    container: &str,
) -> Result<Resources> {
    let mut pod_request = match (&args.pod_request, template) {
        (Some(text), _) => parse_resource_list("--pod-request", text)?.0,
        (None, Some(t)) => t.requests.clone(),
        (None, None) => Resources::default(),
    };
    let from_template = template.filter(|_| args.pod_request.is_none());
    let changes = args.what_if.requests()?;
    set_per_container(
        &mut pod_request,
        &changes,
        from_template,
        container,
        Kind::Request,
    )?;
    for spec in metrics {
        if let MetricSpec::Resource {
            resource, target, ..
        } = spec
            && target.target_type == TargetType::Utilization
            && pod_request.get(resource).unwrap_or(0) <= 0
        {
            let found = match (&args.pod_request, template) {
                (Some(text), _) => format!("\"{text}\" without {resource}"),
                (None, Some(t)) => format!(
                    "no --pod-request, and the pod template of {} in {} requests no {resource}",
                    t.name, t.file
                ),
                (None, None) => "no --pod-request".to_string(),
            };
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
    Ok(pod_request)
}

/// The pods' one container: a ContainerResource metric's, else `app`.
fn container(file: &str, metrics: &[MetricSpec]) -> Result<String> {
    let mut containers: Vec<&str> = Vec::new();
    for spec in metrics {
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
            file,
            format!(
                "found ContainerResource metrics for the containers {}, expected one container: \
                 the simulation models pods with one container",
                containers.join(", ")
            )
        ));
    }
    Ok(containers.first().copied().unwrap_or("app").to_string())
}

/// `--duration`, else a replay's span, else the last load row and the settling after it.
fn duration(args: &SimSettings, load: &Load) -> Result<Duration> {
    let last_row = load.curve.steps.last().map_or(Duration::ZERO, |s| s.at);
    let duration = match &args.duration {
        Some(text) => step_flag("--duration", Some(text), "0s", false)?,
        None => (load.span).unwrap_or(Duration(last_row.millis().saturating_add(TAIL.millis()))),
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
    Ok(duration)
}

/// The model flags: limits, a rollout, a startup burst.
struct Model {
    pod_limit: Resources,
    rollout: Option<Rollout>,
    startup_cpu: Option<StartupBurst>,
}

fn model(
    args: &SimSettings,
    pod_request: &Resources,
    template: Option<&Template>,
    container: &str,
    duration: Duration,
) -> Result<Model> {
    let pod_limit = pod_limit(args, pod_request, template, container)?;
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

/// `--pod-limit`, else the limits of the target's pod template (a container without one adds
/// nothing); never below the request.
fn pod_limit(
    args: &SimSettings,
    pod_request: &Resources,
    template: Option<&Template>,
    container: &str,
) -> Result<Resources> {
    let mut pod_limit = match (&args.pod_limit, template) {
        (Some(text), _) => parse_resource_list("--pod-limit", text)?.0,
        (None, Some(t)) => t.limits.clone(),
        (None, None) => Resources::default(),
    };
    let from_template = template.filter(|_| args.pod_limit.is_none());
    let changes = args.what_if.limits()?;
    set_per_container(
        &mut pod_limit,
        &changes,
        from_template,
        container,
        Kind::Limit,
    )?;
    for (name, limit) in &pod_limit.0 {
        // The API server's rule: a request may not exceed its limit.
        if let Some(request) = pod_request.get(name).filter(|r| r > limit) {
            let message = format!(
                "found {name}={}, below the request {name}={}, expected a limit of at least the \
                 request",
                build_quantity(name, *limit),
                build_quantity(name, request)
            );
            bail!(match (&args.pod_limit, template) {
                (None, Some(t)) => InputError::new(&t.file, message)
                    .field(format!("{} spec.template resources.limits", t.name)),
                _ => InputError::new("--pod-limit", message),
            });
        }
    }
    Ok(pod_limit)
}

/// Which resource list `--set-request` or `--set-limit` changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Request,
    Limit,
}

/// `--set-request` or `--set-limit` on the pod's list: a container of the target's pod template
/// (the pod's list is then the containers' again, as the audit reads a template), or the
/// simulated pod's one container.
fn set_per_container(
    list: &mut Resources,
    changes: &[ContainerQuantity],
    template: Option<&Template>,
    container: &str,
    kind: Kind,
) -> Result<()> {
    let flag = match kind {
        Kind::Request => "--set-request",
        Kind::Limit => "--set-limit",
    };
    let Some(t) = template.filter(|t| !t.containers.is_empty()) else {
        for change in changes {
            if !change.applies_to(container) {
                bail!(what_if::no_container(flag, change, &[container]));
            }
            list.set(&change.resource, change.milli);
        }
        return Ok(());
    };
    if changes.is_empty() {
        return Ok(());
    }
    if t.pod_level {
        bail!(InputError::new(
            flag,
            format!(
                "found pod-level resources in the pod template of {} in {}, expected container                  resources: the pod-level ones win over the containers'",
                t.name, t.file
            )
        ));
    }
    let mut containers = t.containers.clone();
    for change in changes {
        let mut found = false;
        for (_, requests, limits) in containers.iter_mut().filter(|c| change.applies_to(&c.0)) {
            let own = match kind {
                Kind::Request => requests,
                Kind::Limit => limits,
            };
            own.set(&change.resource, change.milli);
            found = true;
        }
        if !found {
            let names: Vec<&str> = t.containers.iter().map(|c| c.0.as_str()).collect();
            bail!(what_if::no_container(flag, change, &names));
        }
    }
    // Requests add up; a limit bounds the pod only when every container has one.
    let mut total = Resources::default();
    let lists: Vec<&Resources> = (containers.iter())
        .map(|(_, r, l)| if kind == Kind::Request { r } else { l })
        .collect();
    for list in &lists {
        for (name, v) in &list.0 {
            let sum = total.get(name).unwrap_or(0).saturating_add(*v);
            total.set(name, sum);
        }
    }
    if kind == Kind::Limit {
        total
            .0
            .retain(|(name, _)| lists.iter().all(|l| l.get(name).is_some()));
    }
    *list = total;
    Ok(())
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
                format!(
                    "found {}, expected a count of 0 or more or a percent such as 25%",
                    crate::error::quoted(text)
                ),
            )
        })
}

/// `--startup-cpu 2x:45s`.
fn startup_burst(text: &str) -> Result<StartupBurst, InputError> {
    let expected = || {
        InputError::new(
            "--startup-cpu",
            format!(
                "found {}, expected FACTORx:DURATION with a factor above 0 and at most \
                 1000, such as 2x:45s",
                crate::error::quoted(text)
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
    args: &SimSettings,
    pod_request: &Resources,
    namespace: &str,
) -> Result<Option<NodeGroup>> {
    if let Some(text) = &args.node_groups {
        return several_groups(args, text, pod_request).map(Some);
    }
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
    let flags = NodeSettings {
        node_allocatable: args.node_allocatable.clone(),
        existing_nodes: args.existing_nodes,
        daemonset_requests: args.daemonset_requests.clone(),
        node_group_max: args.node_group_max,
        max_nodes_total: args.max_nodes_total,
        pod_request: None,
        scale_down_utilization_threshold: args.scale_down_utilization_threshold.unwrap_or(0.5),
        scale_down_unneeded_time: (args.scale_down_unneeded_time.clone())
            .unwrap_or_else(|| "10m".to_string()),
        expander: None,
    };
    let Some(mut input) = from_settings(&flags, NodeFiles::default(), &[], namespace)? else {
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
    Ok(Some(NodeGroup {
        input,
        min,
        groups: None,
        karpenter: None,
    }))
}

/// `--node-groups`: the groups file as the single sync reads it; the shared `input` holds the
/// DaemonSets, the pod request and the scale-down settings (its template is the first group's,
/// for the summary only; each group keeps its own minimum and maximum).
fn several_groups(args: &SimSettings, text: &Text, pod_request: &Resources) -> Result<NodeGroup> {
    let flags = NodeSettings {
        daemonset_requests: args.daemonset_requests.clone(),
        max_nodes_total: args.max_nodes_total,
        scale_down_utilization_threshold: args.scale_down_utilization_threshold.unwrap_or(0.5),
        scale_down_unneeded_time: (args.scale_down_unneeded_time.clone())
            .unwrap_or_else(|| "10m".to_string()),
        expander: args.expander.clone(),
        ..NodeSettings::default()
    };
    let daemonsets = crate::input::nodes::daemonsets(&flags)?;
    let groups = crate::input::node_groups::read(
        text,
        &flags,
        daemonsets.clone(),
        (pod_request.clone(), "--pod-request".to_string()),
    )?;
    let unneeded = crate::input::inputs::flag_duration(
        "--scale-down-unneeded-time",
        &flags.scale_down_unneeded_time,
    )?;
    let template = groups
        .groups
        .first()
        .map(|g| g.allocatable.clone())
        .unwrap_or_default();
    Ok(NodeGroup {
        input: crate::scenario::NodeInput {
            template,
            daemonsets,
            existing: crate::scenario::Existing::Template(Some(0)),
            pod_request: pod_request.clone(),
            pod_request_source: "--pod-request".to_string(),
            node_group_max: None,
            max_nodes_total: args.max_nodes_total,
            scale_down_utilization_threshold: flags.scale_down_utilization_threshold,
            scale_down_unneeded_time: unneeded,
        },
        min: 0,
        groups: Some(groups),
        karpenter: None,
    })
}

/// `--nodepool`: Karpenter's inputs as the single sync reads them, the pods' scheduling
/// constraints from the target's pod template in the `--hpa` file; the shared `input` holds the
/// DaemonSets and the pod request (no node group: the Cluster Autoscaler does not run).
fn karpenter_group(
    args: &SimSettings,
    texts: &crate::input::inputs::KarpenterTexts,
    pod_request: &Resources,
    hpa: &Text,
) -> Result<NodeGroup> {
    let flags = NodeSettings {
        daemonset_requests: args.daemonset_requests.clone(),
        ..NodeSettings::default()
    };
    let daemonsets = crate::input::nodes::daemonsets(&flags)?;
    let constraints = crate::input::karpenter::pod_constraints(Some(hpa))?;
    let karpenter = crate::input::karpenter::read(
        texts,
        constraints,
        daemonsets.clone(),
        (pod_request.clone(), "--pod-request".to_string()),
    )?;
    Ok(NodeGroup {
        input: crate::scenario::NodeInput {
            template: crate::scenario::Capacity::default(),
            daemonsets,
            existing: crate::scenario::Existing::Template(Some(0)),
            pod_request: pod_request.clone(),
            pod_request_source: "--pod-request".to_string(),
            node_group_max: None,
            max_nodes_total: None,
            scale_down_utilization_threshold: 0.5,
            scale_down_unneeded_time: Duration::from_secs(600),
        },
        min: 0,
        groups: None,
        karpenter: Some(karpenter),
    })
}
