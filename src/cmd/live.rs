//! `hpacalc HPA`: one evaluation of the live cluster; the flags that would give what the cluster
//! gives are refused, and the ones that change the answer are repeated in the saved command.

use anyhow::Result;
use clap::Parser;

use crate::calc;
use crate::cli::{AuthFlags, Cli, OutputFormat};
use crate::cmd::evaluate::report_exporter;
use crate::error::UsageError;
use crate::input::live::kubeconfig::Overrides;
use crate::input::live::{Options, Rules, Session, request_timeout};
use crate::input::{Settings, Text};
use crate::term::{terminal, warn_all, write_stdout};

pub fn run(cli: &Cli, name: &str) -> Result<()> {
    let session = open(cli, name)?;
    let scenario = session.scenario()?;
    warn_all(&scenario.warnings);
    let report = calc::evaluate(&scenario);
    write_stdout(
        report_exporter(cli.output)
            .export(&report, terminal())
            .as_bytes(),
    )
}

/// The session of a live run: the connection, and the settings of the offline command.
pub fn open(cli: &Cli, name: &str) -> Result<Session> {
    refuse_file_flags(cli, false)?;
    let timeout = request_timeout(&cli.live.request_timeout)?;
    let mut settings = Settings::from_cli(cli)?;
    // The offline command names no namespace: the HPA read from the cluster carries it.
    settings.namespace = None;
    let options = Options {
        kubeconfig: cli.live.kubeconfig.clone(),
        context: cli.live.context.clone(),
        cluster: cli.live.cluster.clone(),
        user: cli.live.user.clone(),
        timeout,
        verbosity: cli.live.verbosity,
        overrides: overrides(&cli.live.auth),
        namespace: cli.namespace.clone(),
        save: cli.live.save.clone(),
        with_nodes: cli.live.nodes_from_cluster,
        rules: match &cli.kube_version {
            Some(_) => Rules::Given,
            None => Rules::Server {
                feature_gates: cli.feature_gates.clone(),
            },
        },
        settings,
        history: cli.history.as_deref().map(Text::read).transpose()?,
        passthrough: passthrough(cli),
    };
    Session::open(options, name)
}

/// kubectl's `--server`, `--token`, `--insecure-skip-tls-verify`, `--as` and `--as-group`.
pub fn overrides(flags: &AuthFlags) -> Overrides {
    Overrides {
        server: flags.server.clone(),
        insecure_skip_tls_verify: flags.insecure_skip_tls_verify,
        token: flags.token.clone(),
        as_user: flags.as_user.clone(),
        as_groups: flags.as_group.clone(),
    }
}

/// Flags that give what live mode reads from the cluster are usage errors, not silently ignored.
/// A list (`-n NAMESPACE` without an HPA, `-A`) takes `-l`: it selects HPAs.
pub fn refuse_file_flags(cli: &Cli, list: bool) -> Result<(), UsageError> {
    let given = [
        ("--pods", cli.pods.is_some()),
        ("--metrics", cli.metrics.is_some()),
        ("--custom-metrics", !cli.custom_metrics.is_empty()),
        ("--external-metrics", !cli.external_metrics.is_empty()),
        ("--scale", cli.scale.is_some()),
        ("--target", cli.target.is_some()),
        ("--events", cli.events.is_some()),
        ("--selector", cli.selector.is_some() && !list),
        ("--name", cli.name.is_some()),
        ("--current-replicas", cli.current_replicas.is_some()),
        ("--metric-value", !cli.metric_values.is_empty()),
        ("--now", cli.now.is_some()),
        ("--nodes", cli.nodes.nodes_file.is_some()),
    ];
    match given.iter().find(|(_, set)| *set) {
        Some((flag, _)) => Err(UsageError(format!(
            "{flag} gives what live mode reads from the cluster: use it with --hpa FILE (or \
             --save the capture and edit the files)"
        ))),
        None => Ok(()),
    }
}

/// The flags that change the answer, as given: the offline command repeats them.
fn passthrough(cli: &Cli) -> Vec<String> {
    let defaults = Cli::parse_from(["hpacalc", "--hpa", "x"]);
    let mut out = Vec::new();
    let mut flag = |name: &str, value: String, default: String| {
        if value != default {
            out.push(format!("--{name}"));
            out.push(value);
        }
    };
    flag(
        "tolerance",
        cli.tolerance.to_string(),
        defaults.tolerance.to_string(),
    );
    for (name, value, default) in [
        (
            "cpu-initialization-period",
            &cli.cpu_initialization_period,
            &defaults.cpu_initialization_period,
        ),
        (
            "initial-readiness-delay",
            &cli.initial_readiness_delay,
            &defaults.initial_readiness_delay,
        ),
        (
            "downscale-stabilization",
            &cli.downscale_stabilization,
            &defaults.downscale_stabilization,
        ),
        ("sync-period", &cli.sync_period, &defaults.sync_period),
        (
            "metrics-window",
            &cli.metrics_window,
            &defaults.metrics_window,
        ),
    ] {
        flag(name, value.clone(), default.clone());
    }
    if let Some(version) = &cli.kube_version {
        out.extend(["--kube-version".to_string(), version.clone()]);
    }
    if let Some(gates) = &cli.feature_gates {
        out.extend(["--feature-gates".to_string(), gates.clone()]);
    }
    if let Some(history) = &cli.history {
        out.extend([
            "--history".to_string(),
            std::path::absolute(history)
                .unwrap_or_else(|_| history.clone())
                .to_string_lossy()
                .into_owned(),
        ]);
    }
    let output = match cli.output {
        OutputFormat::Table => None,
        OutputFormat::Wide => Some("wide"),
        OutputFormat::Json => Some("json"),
        OutputFormat::Yaml => Some("yaml"),
        OutputFormat::Summary => Some("summary"),
        OutputFormat::Markdown => Some("markdown"),
    };
    if let Some(o) = output {
        out.extend(["-o".to_string(), o.to_string()]);
    }
    let n = &cli.nodes;
    for (name, value) in [
        ("node-allocatable", n.node_allocatable.clone()),
        ("existing-nodes", n.existing_nodes.map(|v| v.to_string())),
        ("node-group-max", n.node_group_max.map(|v| v.to_string())),
        ("max-nodes-total", n.max_nodes_total.map(|v| v.to_string())),
        ("pod-request", n.pod_request.clone()),
    ] {
        if let Some(v) = value {
            out.extend([format!("--{name}"), v]);
        }
    }
    for d in &n.daemonset_requests {
        out.extend(["--daemonset-requests".to_string(), d.clone()]);
    }
    for (name, value, default) in [
        (
            "scale-down-utilization-threshold",
            n.scale_down_utilization_threshold.to_string(),
            defaults.nodes.scale_down_utilization_threshold.to_string(),
        ),
        (
            "scale-down-unneeded-time",
            n.scale_down_unneeded_time.clone(),
            defaults.nodes.scale_down_unneeded_time.clone(),
        ),
    ] {
        if value != default {
            out.extend([format!("--{name}"), value]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_flags_that_differ_from_their_defaults_pass_through() {
        let cli = Cli::parse_from(["hpacalc", "web", "--tolerance", "0.2", "-o", "json"]);
        assert_eq!(passthrough(&cli), ["--tolerance", "0.2", "-o", "json"]);
        let cli = Cli::parse_from(["hpacalc", "web"]);
        assert!(passthrough(&cli).is_empty());
    }
}
