//! The command line: kubectl-style flags, controller flags named as in kube-controller-manager.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

/// What will the HorizontalPodAutoscaler do at its next sync, and why?
///
/// hpacalc runs the Kubernetes HPA controller's own algorithm (ported from
/// pkg/controller/podautoscaler) on an HPA manifest and per-pod samples, offline, and prints each
/// step: pod groups, usage against target, ratio and tolerance, the recount of missing and
/// unready pods, stabilization, rate limits, clamping, and the conditions the controller sets.
#[derive(Debug, Parser)]
#[command(
    name = "hpacalc",
    bin_name = "hpacalc",
    version,
    subcommand_negates_reqs = true,
    args_conflicts_with_subcommands = true,
    max_term_width = 100
)]
pub struct Cli {
    /// HPA manifest (YAML or JSON, autoscaling/v2, v2beta2 or v1; `-` reads stdin)
    ///
    /// What `kubectl get hpa NAME -o yaml` prints, a hand-written manifest, a multi-document file
    /// or a `kind: List`. Use --name to pick one HPA when the file holds several.
    #[arg(long, short = 'f', value_name = "FILE", required = true)]
    pub hpa: Option<PathBuf>,

    /// Per-pod samples, CSV with a header (`-` reads stdin)
    ///
    /// Columns: pod (required), container, ready, phase, deleting, started, ready_changed, one
    /// column per resource usage (cpu, memory), <resource>_request, and one column per Pods metric.
    #[arg(long, value_name = "FILE")]
    pub pods: Option<PathBuf>,

    /// Pick the HPA with this name when the manifest holds several
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,

    /// The target's current replica count (default: status.currentReplicas, else the pods counted)
    #[arg(long, value_name = "N")]
    pub current_replicas: Option<i32>,

    /// Value of an Object or External metric, NAME=QUANTITY (repeatable)
    #[arg(long = "metric-value", value_name = "NAME=QUANTITY")]
    pub metric_values: Vec<String>,

    /// Earlier syncs: CSV with age,recommendation[,change]
    ///
    /// One row per earlier sync: how long ago (45s, 5m) and the unnormalized recommendation; the
    /// optional change column is the signed replica change the controller made at that sync.
    /// Without it hpacalc assumes steady load: every sync in the window recommended what this one
    /// recommends and no scale event happened.
    #[arg(long, value_name = "FILE")]
    pub history: Option<PathBuf>,

    /// Evaluation time, RFC 3339 (default: now)
    #[arg(long, value_name = "RFC3339")]
    pub now: Option<String>,

    /// Output format
    #[arg(short = 'o', long = "output", value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,

    /// --horizontal-pod-autoscaler-tolerance
    #[arg(
        long,
        value_name = "RATIO",
        default_value = "0.1",
        help_heading = "Controller flags"
    )]
    pub tolerance: f64,

    /// --horizontal-pod-autoscaler-cpu-initialization-period
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "5m",
        help_heading = "Controller flags"
    )]
    pub cpu_initialization_period: String,

    /// --horizontal-pod-autoscaler-initial-readiness-delay
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "30s",
        help_heading = "Controller flags"
    )]
    pub initial_readiness_delay: String,

    /// --horizontal-pod-autoscaler-downscale-stabilization
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "5m",
        help_heading = "Controller flags"
    )]
    pub downscale_stabilization: String,

    /// --horizontal-pod-autoscaler-sync-period
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "15s",
        help_heading = "Controller flags"
    )]
    pub sync_period: String,

    /// Apply the controller rules of this Kubernetes release (1.27 to 1.37)
    #[arg(
        long,
        value_name = "VERSION",
        default_value = "1.37",
        help_heading = "Controller flags"
    )]
    pub kube_version: String,

    /// Override feature gates: NAME=true|false,... (HPAConfigurableTolerance, HPAScaleToZero,
    /// PodLevelResources, HPAContainerMetrics)
    #[arg(long, value_name = "GATES", help_heading = "Controller flags")]
    pub feature_gates: Option<String>,

    /// The window of each CSV usage sample, as metrics-server reports it (CPU readiness rule)
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "15s",
        help_heading = "Controller flags"
    )]
    pub metrics_window: String,

    #[command(flatten)]
    pub nodes: NodeFlags,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The node group, for the Cluster Autoscaler's view of the decision.
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "Nodes (Cluster Autoscaler)")]
pub struct NodeFlags {
    /// Allocatable of one node of the group: cpu=2,memory=8Gi,pods=110 (pods defaults to 110)
    #[arg(long, value_name = "RESOURCES")]
    pub node_allocatable: Option<String>,

    /// Nodes of the group running the workload now (default: just enough for the current pods)
    #[arg(long, value_name = "N")]
    pub existing_nodes: Option<i64>,

    /// Requests of one DaemonSet on every node, e.g. cpu=100m,memory=128Mi (repeatable; each adds a
    /// pod unless pods=N is given)
    #[arg(long = "daemonset-requests", value_name = "RESOURCES")]
    pub daemonset_requests: Vec<String>,

    /// The node group's maximum size
    #[arg(long, value_name = "N")]
    pub node_group_max: Option<i64>,

    /// --max-nodes-total of the Cluster Autoscaler
    #[arg(long, value_name = "N")]
    pub max_nodes_total: Option<i64>,

    /// The effective request of one pod, e.g. cpu=500m,memory=256Mi (default: from the samples)
    #[arg(long, value_name = "RESOURCES")]
    pub pod_request: Option<String>,

    /// --scale-down-utilization-threshold of the Cluster Autoscaler
    #[arg(long, value_name = "RATIO", default_value = "0.5")]
    pub scale_down_utilization_threshold: f64,

    /// --scale-down-unneeded-time of the Cluster Autoscaler
    #[arg(long, value_name = "DURATION", default_value = "10m")]
    pub scale_down_unneeded_time: String,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print a shell completion script
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Step-by-step table
    Table,
    /// The table plus each pod's class and reason
    Wide,
    /// One JSON object
    Json,
    /// The same object as YAML
    Yaml,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn verify_cli() {
        Cli::command().debug_assert();
    }
}
