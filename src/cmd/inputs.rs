//! The command line as the input layer's `Inputs`: the settings its flags give, validated, and
//! the text of every file it names. The only place the top-level flags meet the input layer.

use anyhow::{Result, bail};

use crate::cli::{Cli, FleetControllerFlags, NodeFlags};
use crate::error::UsageError;
use crate::input::inputs::{
    ControllerFlags, NodeSettings, controller_config, flag_duration, flag_time,
};
use crate::input::what_if::WhatIf;
use crate::input::{Given, Inputs, Settings, Text};

impl NodeSettings {
    /// The node flags, as given.
    pub fn from_flags(flags: &NodeFlags) -> NodeSettings {
        NodeSettings {
            node_allocatable: flags.node_allocatable.clone(),
            existing_nodes: flags.existing_nodes,
            daemonset_requests: flags.daemonset_requests.clone(),
            node_group_max: flags.node_group_max,
            max_nodes_total: flags.max_nodes_total,
            pod_request: flags.pod_request.clone(),
            scale_down_utilization_threshold: flags.scale_down_utilization_threshold,
            scale_down_unneeded_time: flags.scale_down_unneeded_time.clone(),
            expander: flags.expander.clone(),
        }
    }
}

impl Settings {
    /// The settings a fleet's controller flags give (`audit`, `serve`), validated.
    pub fn from_fleet_flags(flags: &FleetControllerFlags) -> Result<Settings> {
        Ok(Settings::new(controller_config(&ControllerFlags {
            kube_version: Some(&flags.kube_version),
            feature_gates: flags.feature_gates.as_deref(),
            tolerance: Some(flags.tolerance),
            sync_period: Some(&flags.sync_period),
            ..ControllerFlags::default()
        })?))
    }

    /// The settings the flags give, validated (usage errors first, then each flag's value).
    pub fn from_cli(cli: &Cli) -> Result<Settings> {
        Settings::from_cli_with(cli, &WhatIf::default())
    }

    /// The same with a what-if's controller flags over the command line's.
    pub fn from_cli_with(cli: &Cli, w: &WhatIf) -> Result<Settings> {
        let now = cli
            .now
            .as_deref()
            .map(|text| flag_time("--now", text))
            .transpose()?;
        fn or<'a>(what_if: &'a Option<String>, flag: &'a str) -> Option<&'a str> {
            what_if.as_deref().or(Some(flag))
        }
        let controller = controller_config(&ControllerFlags {
            kube_version: w.kube_version.as_deref().or(cli.kube_version.as_deref()),
            feature_gates: w.feature_gates.as_deref().or(cli.feature_gates.as_deref()),
            tolerance: w.tolerance.or(Some(cli.tolerance)),
            cpu_initialization_period: or(
                &w.cpu_initialization_period,
                &cli.cpu_initialization_period,
            ),
            initial_readiness_delay: or(&w.initial_readiness_delay, &cli.initial_readiness_delay),
            downscale_stabilization: or(&w.downscale_stabilization, &cli.downscale_stabilization),
            sync_period: or(&w.sync_period, &cli.sync_period),
        })?;
        let metrics_window = w.metrics_window.as_ref().unwrap_or(&cli.metrics_window);
        Ok(Settings {
            controller,
            metrics_window: flag_duration("--metrics-window", metrics_window)?,
            now,
            namespace: cli.namespace.clone(),
            selector: cli.selector.clone(),
            name: cli.name.clone(),
            current_replicas: cli.current_replicas,
            status_replicas: cli.status_replicas,
            metric_values: cli.metric_values.clone(),
            metric_failures: cli.metric_failures,
            last_active: cli.last_active.clone(),
            nodes: NodeSettings::from_flags(&cli.nodes),
        })
    }
}

impl Inputs {
    /// What the command line gives: its settings, and the text of every file it names.
    pub fn from_cli(cli: &Cli) -> Result<Inputs> {
        let files = [
            cli.hpa.as_deref(),
            cli.pods.as_deref(),
            cli.history.as_deref(),
            cli.events.as_deref(),
            cli.metrics.as_deref(),
            cli.target.as_deref(),
            cli.scale.as_deref(),
        ];
        let stdin_users = (files.into_iter())
            .chain(cli.custom_metrics.iter().map(|p| Some(p.as_path())))
            .chain(cli.external_metrics.iter().map(|p| Some(p.as_path())))
            .filter(|p| p.is_some_and(|p| p == std::path::Path::new("-")))
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
        let settings = Settings::from_cli(cli)?;
        let Some(hpa) = &cli.hpa else {
            bail!(UsageError("--hpa is required".to_string()));
        };
        let read = |path: &Option<std::path::PathBuf>| path.as_deref().map(Text::read).transpose();
        let all = |paths: &[std::path::PathBuf]| -> Result<Vec<Text>> {
            paths.iter().map(|p| Text::read(p)).collect()
        };
        Ok(Inputs {
            hpa: Text::read(hpa)?,
            scale: read(&cli.scale)?,
            scale_error: None,
            pods: read(&cli.pods)?.map(Given::Text),
            metrics: read(&cli.metrics)?.map(Given::Text),
            custom_metrics: all(&cli.custom_metrics)?,
            external_metrics: all(&cli.external_metrics)?,
            history: read(&cli.history)?,
            events: read(&cli.events)?,
            target: read(&cli.target)?.map(Given::Text),
            nodes: read(&cli.nodes.nodes_file)?,
            all_pods: read(&cli.nodes.all_pods)?,
            node_groups: read(&cli.nodes.node_groups)?,
            karpenter: if cli.nodes.nodepools.is_empty() {
                None
            } else {
                Some(crate::input::inputs::KarpenterTexts {
                    node_pools: all(&cli.nodes.nodepools)?,
                    node_class: read(&cli.nodes.nodeclass)?,
                    instance_types: read(&cli.nodes.instance_types)?,
                })
            },
            settings,
            live: None,
        })
    }
}
