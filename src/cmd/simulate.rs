//! `hpacalc simulate`: the controller over time; the chart and the HTML page are written before
//! anything is printed.

use anyhow::Result;

use crate::calc;
use crate::cli::{ReplayArgs, SimulateArgs, TimelineFormat, WhatIfFlags};
use crate::error::UsageError;
use crate::input::Text;
use crate::input::builtin as scenarios;
use crate::input::inputs::KarpenterTexts;
use crate::input::prometheus::ReplaySettings;
use crate::input::simulation;
use crate::input::simulation::SimSettings;
use crate::input::what_if::WhatIf;
use crate::output;
use crate::render::{self, Csv, Exporter, Json, Timeline};
use crate::report::Report;
use crate::term::{stdout_is_terminal, terminal, warn_all, write_stdout};
use crate::work::compare::{compare_runs, configuration};

pub fn run(args: &SimulateArgs) -> Result<()> {
    if args.scenario.as_deref() == Some("list") {
        let list: Vec<(&str, &str)> = scenarios::ALL.iter().map(|s| (s.name, s.notice)).collect();
        let text = render::timeline::scenario_list(&list, terminal().width);
        return write_stdout(text.as_bytes());
    }
    if !args.compare.is_empty() {
        return compare(args);
    }
    let inputs = [
        ("--hpa", &args.hpa),
        ("--load", &args.load),
        ("--actual-file", &args.replay.actual_file),
    ];
    let inputs: Vec<output::Input<'_>> = inputs
        .iter()
        .filter_map(|(flag, p)| p.as_deref().map(|path| output::Input { flag, path }))
        .collect();
    let mut outputs = output::Outputs::new(&inputs);
    for (flag, path) in [("--chart", &args.chart), ("--html", &args.html)] {
        if let Some(path) = path {
            outputs.check(flag, path)?;
        }
    }
    let setup = simulation::build(&inputs_of(args)?)?;
    warn_all(&setup.scenario.warnings);
    let sim = match &args.html {
        None => calc::simulate::run(&setup),
        Some(path) => {
            let mut reports = render::html::SyncReports::new(setup.sync_count());
            let mut observe = |row: &calc::simulate::SyncRow, build: &dyn Fn() -> Report| {
                reports.observe(row, build);
            };
            let sim = calc::simulate::run_observed(&setup, Some(&mut observe));
            let page = render::html::render(&sim, &reports);
            outputs.stage("--html", path, page.as_bytes())?;
            sim
        }
    };
    if let Some(path) = &args.chart {
        let chart = render::chart::render(&sim);
        outputs.stage("--chart", path, chart.as_bytes())?;
    }
    outputs.commit()?;
    let exporter: Box<dyn Exporter<calc::simulate::Simulation>> = match args.output {
        TimelineFormat::Table => Box::new(Timeline(render::timeline::Rows {
            every_sync: args.every_sync,
            sparkline: stdout_is_terminal(),
        })),
        TimelineFormat::Json => Box::new(Json),
        TimelineFormat::Csv => Box::new(Csv),
    };
    write_stdout(exporter.export(&sim, terminal()).as_bytes())
}

/// `--compare`: each configuration is its own run of the same engine on the same load (read
/// once), the base (`--hpa` or the scenario) first.
fn compare(args: &SimulateArgs) -> Result<()> {
    for (flag, set) in [
        ("--html", args.html.is_some()),
        ("-o csv", args.output == TimelineFormat::Csv),
    ] {
        if set {
            anyhow::bail!(UsageError(format!(
                "{flag} draws one run; with --compare use -o table or -o json (and --chart)"
            )));
        }
    }
    let base = inputs_of(args)?;
    let base_name = match (&args.hpa, &args.scenario) {
        (Some(path), _) => path.display().to_string(),
        (None, Some(name)) => format!("scenario {name}"),
        (None, None) => String::new(),
    };
    if args.what_if_of.contains(&None) {
        anyhow::bail!(UsageError(
            "--what-if changes the --compare before it: put it after one (the flags themselves \
             change every configuration)"
                .to_string()
        ));
    }
    let mut configs = vec![(base_name, base.clone())];
    for (i, path) in args.compare.iter().enumerate() {
        if path == std::path::Path::new("-") {
            anyhow::bail!(UsageError(
                "--compare reads a file, not stdin (`-`)".to_string()
            ));
        }
        let items: Vec<String> = (args.what_if_changes.iter().zip(&args.what_if_of))
            .filter(|(_, of)| **of == Some(i))
            .map(|(item, _)| item.clone())
            .collect();
        configs.push(configuration(
            path.display().to_string(),
            &base,
            Text::read(path)?,
            &items,
        )?);
    }
    let (comparison, warned) = compare_runs(&configs, &crate::work::bounds::Bounds::default())?;
    warn_all(&warned);
    if let Some(path) = &args.chart {
        let mut read: Vec<output::Input<'_>> = (args.compare.iter())
            .map(|path| output::Input {
                flag: "--compare",
                path,
            })
            .collect();
        let named = [("--hpa", &args.hpa), ("--load", &args.load)];
        read.extend(
            named
                .iter()
                .filter_map(|(flag, p)| p.as_deref().map(|path| output::Input { flag, path })),
        );
        let mut outputs = output::Outputs::new(&read);
        outputs.check("--chart", path)?;
        let chart = render::chart::render_comparison(&comparison);
        outputs.stage("--chart", path, chart.as_bytes())?;
        outputs.commit()?;
    }
    let exporter: Box<dyn Exporter<calc::simulate::compare::Comparison>> = match args.output {
        TimelineFormat::Json => Box::new(Json),
        _ => Box::new(Timeline(render::timeline::Rows {
            every_sync: args.every_sync,
            sparkline: false,
        })),
    };
    write_stdout(exporter.export(&comparison, terminal()).as_bytes())
}

/// The simulation's inputs: a built-in scenario with the flags over its settings, or the files
/// the flags name.
fn inputs_of(args: &SimulateArgs) -> Result<simulation::Inputs> {
    let mut settings = settings_of(args);
    settings.node_groups = args.node_groups.as_deref().map(Text::read).transpose()?;
    settings.karpenter = karpenter_texts(args)?;
    let replay = replay_of(&args.replay);
    if let Some(name) = &args.scenario {
        return Ok(simulation::Inputs::builtin(name, settings, replay)?);
    }
    let Some(hpa) = &args.hpa else {
        anyhow::bail!(UsageError(
            "simulate needs --hpa and --load (or --prometheus), or --scenario".to_string()
        ));
    };
    simulation::one_stdin(&[
        Some(hpa),
        args.load.as_deref(),
        args.replay.actual_file.as_deref(),
    ])?;
    let read = |path: Option<&std::path::Path>| path.map(Text::read).transpose();
    Ok(simulation::Inputs {
        hpa: Text::read(hpa)?,
        load: read(args.load.as_deref())?,
        actual: read(args.replay.actual_file.as_deref())?,
        settings,
        replay,
        label: None,
        load_set: Vec::new(),
    })
}

/// `--nodepool` and its files, read; `None` without `--nodepool`.
fn karpenter_texts(args: &SimulateArgs) -> Result<Option<KarpenterTexts>> {
    if args.nodepools.is_empty() {
        return Ok(None);
    }
    let read = |path: Option<&std::path::Path>| path.map(Text::read).transpose();
    Ok(Some(KarpenterTexts {
        node_pools: (args.nodepools.iter())
            .map(|p| Text::read(p))
            .collect::<Result<_, _>>()?,
        node_class: read(args.nodeclass.as_deref())?,
        instance_types: read(args.instance_types.as_deref())?,
    }))
}

fn settings_of(a: &SimulateArgs) -> SimSettings {
    SimSettings {
        name: a.name.clone(),
        replicas: a.replicas,
        now: a.now.clone(),
        duration: a.duration.clone(),
        pod_request: a.pod_request.clone(),
        pod_startup: a.pod_startup.clone(),
        pod_termination: a.pod_termination.clone(),
        node_startup: a.node_startup.clone(),
        ca_scan_interval: a.ca_scan_interval.clone(),
        scale_down_delay_after_add: a.scale_down_delay_after_add.clone(),
        sync_period: a.sync_period.clone(),
        tolerance: a.tolerance,
        cpu_initialization_period: a.cpu_initialization_period.clone(),
        initial_readiness_delay: a.initial_readiness_delay.clone(),
        downscale_stabilization: a.downscale_stabilization.clone(),
        kube_version: a.kube_version.clone(),
        feature_gates: a.feature_gates.clone(),
        metrics_window: a.metrics_window.clone(),
        node_allocatable: a.node_allocatable.clone(),
        existing_nodes: a.existing_nodes,
        daemonset_requests: a.daemonset_requests.clone(),
        node_group_min: a.node_group_min,
        node_group_max: a.node_group_max,
        max_nodes_total: a.max_nodes_total,
        scale_down_utilization_threshold: a.scale_down_utilization_threshold,
        scale_down_unneeded_time: a.scale_down_unneeded_time.clone(),
        pod_limit: a.pod_limit.clone(),
        rollout: a.rollout.clone(),
        max_surge: a.max_surge.clone(),
        max_unavailable: a.max_unavailable.clone(),
        min_ready_seconds: a.min_ready_seconds,
        startup_cpu: a.startup_cpu.clone(),
        node_groups: None,
        expander: a.expander.clone(),
        karpenter: None,
        what_if: what_if_of(&a.what_if),
    }
}

/// The what-if flags, typed as `--what-if` items are.
pub fn what_if_of(f: &WhatIfFlags) -> WhatIf {
    WhatIf {
        set_request: f.set_request.clone(),
        set_limit: f.set_limit.clone(),
        scale_up_tolerance: f.scale_up_tolerance,
        scale_down_tolerance: f.scale_down_tolerance,
        min: f.min,
        max: f.max,
        ..WhatIf::default()
    }
}

pub fn replay_of(r: &ReplayArgs) -> ReplaySettings {
    ReplaySettings {
        load_map: r.load_map.clone(),
        prometheus: r.prometheus.clone(),
        queries: r.queries.clone(),
        actual: r.actual.clone(),
        start: r.start.clone(),
        end: r.end.clone(),
        step: r.step.clone(),
        token: r.token.clone(),
        username: r.username.clone(),
        password: r.password.clone(),
        certificate_authority: r.certificate_authority.clone(),
        insecure_skip_tls_verify: r.insecure_skip_tls_verify,
        request_timeout: r.request_timeout.clone(),
    }
}
