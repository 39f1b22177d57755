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
    /// Live mode: read this HPA, its target, pods and metrics from the cluster (kubeconfig)
    #[arg(value_name = "HPA", conflicts_with = "hpa")]
    pub live_hpa: Option<String>,

    /// HPA: a manifest (YAML or JSON, autoscaling/v2, v2beta2, v2beta1 or v1), a KEDA
    /// ScaledObject, `kubectl describe hpa` text or the `kubectl get hpa` table; `-` reads stdin
    ///
    /// What `kubectl get hpa NAME -o yaml` prints, a hand-written manifest, a multi-document file
    /// or a `kind: List`; or the text of `kubectl describe hpa` or `kubectl get hpa [-w]`
    /// (recognized from the content; answered from the status they show, as an approximation).
    /// A KEDA ScaledObject (keda.sh/v1alpha1) stands for the HPA KEDA creates from it, and KEDA's
    /// own step (activation, cooldown, idle replicas, fallback, formula) runs first. Use --name to
    /// pick one HPA when the input holds several.
    #[arg(
        long,
        short = 'f',
        value_name = "FILE",
        required_unless_present_any = ["live_hpa", "namespace", "all_namespaces"]
    )]
    pub hpa: Option<PathBuf>,

    /// The pods: `kubectl get pods -o json|yaml` output, or CSV samples (`-` reads stdin)
    ///
    /// kubectl output (a List, PodList or Pod) is recognized from its content; usage then comes
    /// from --metrics. CSV columns: pod (required), container, ready, phase, deleting, started,
    /// ready_changed, one column per resource usage (cpu, memory), <resource>_request, and one
    /// column per Pods metric.
    #[arg(long, value_name = "FILE")]
    pub pods: Option<PathBuf>,

    /// Resource usage: a PodMetricsList (JSON or YAML) or `kubectl top pods --containers` text
    ///
    /// What `kubectl get --raw /apis/metrics.k8s.io/v1beta1/namespaces/NS/pods` prints (with
    /// `?labelSelector=`), or the table of `kubectl top pods --containers` (memory is truncated to
    /// whole Mi there). Replaces the usage columns of a CSV --pods file.
    #[arg(long, value_name = "FILE")]
    pub metrics: Option<PathBuf>,

    /// Custom metrics API answer (MetricValueList JSON or YAML) for Pods and Object metrics
    /// (repeatable)
    #[arg(long = "custom-metrics", value_name = "FILE")]
    pub custom_metrics: Vec<PathBuf>,

    /// External metrics API answer (ExternalMetricValueList JSON or YAML) for External metrics
    /// (repeatable)
    #[arg(long = "external-metrics", value_name = "FILE")]
    pub external_metrics: Vec<PathBuf>,

    /// The target's scale subresource (`kubectl get --raw .../scale`): spec.replicas is the
    /// current count, status.replicas the target's replicas, status.selector the pods' selector
    #[arg(long, value_name = "FILE")]
    pub scale: Option<PathBuf>,

    /// The HPA's namespace, as kubectl's -n: pods and metrics of other namespaces are left out
    ///
    /// Default: the manifest's namespace. An HPA in the `default` namespace (or without one) is
    /// taken to be in this one; an HPA in another namespace is an error, as with kubectl -f.
    #[arg(long, short = 'n', value_name = "NAMESPACE")]
    pub namespace: Option<String>,

    /// List every HPA of every namespace of the cluster, as `kubectl get hpa -A`, each with
    /// hpacalc's decision (without an HPA, `-n NAMESPACE` lists one namespace's)
    #[arg(
        long,
        short = 'A',
        conflicts_with_all = ["namespace", "live_hpa", "hpa"]
    )]
    pub all_namespaces: bool,

    /// The target's label selector, kubectl syntax (`app=web,tier in (front)`)
    ///
    /// Keeps only the pods, and their metrics, that it matches: use it when the pod file holds
    /// more than the target's pods. Operators: =, ==, !=, in, notin, exists (`key`), `!key`.
    #[arg(long, short = 'l', value_name = "SELECTOR")]
    pub selector: Option<String>,

    /// Pick the HPA with this name when the manifest holds several
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,

    /// The target's current replica count (default: status.currentReplicas, else the pods counted)
    #[arg(long, value_name = "N")]
    pub current_replicas: Option<i32>,

    /// The scale target: `kubectl get deploy NAME -o json|yaml` (or sts, rs)
    ///
    /// Its spec.replicas is the current count (unless --current-replicas) and its status.replicas
    /// divides AverageValue Object and External metrics. A Deployment or StatefulSet inside the
    /// --pods list is read the same way.
    #[arg(long, value_name = "FILE")]
    pub target: Option<PathBuf>,

    /// The target's status.replicas, which AverageValue Object and External metrics divide by
    /// (default: from --target or --pods, else the current count)
    #[arg(long, value_name = "N")]
    pub status_replicas: Option<i32>,

    /// Value of an Object or External metric, NAME=QUANTITY (repeatable)
    ///
    /// NAME{KEY=VALUE,...}=QUANTITY gives it to the entry of that name with that metric selector
    /// only (entries of one name with different selectors). For a KEDA ScaledObject: a trigger's raw value, NAME its name, s<index> or its metric name;
    /// NAME=failed marks a scaler that returns an error.
    #[arg(long = "metric-value", value_name = "NAME=QUANTITY")]
    pub metric_values: Vec<String>,

    /// Consecutive failures already recorded for each failing trigger (default: the
    /// ScaledObject's status.health, else 0)
    #[arg(long, value_name = "N", help_heading = "KEDA")]
    pub metric_failures: Option<i32>,

    /// How long ago a trigger was last active, e.g. 4m (default: status.lastActiveTime,
    /// else long ago)
    #[arg(long, value_name = "AGE", help_heading = "KEDA")]
    pub last_active: Option<String>,

    /// Earlier syncs: CSV with age,recommendation[,change]
    ///
    /// One row per earlier sync: how long ago (45s, 5m) and the unnormalized recommendation; the
    /// optional change column is the signed replica change the controller made at that sync.
    /// Without it hpacalc assumes steady load: every sync in the window recommended what this one
    /// recommends and no scale event happened.
    #[arg(long, value_name = "FILE")]
    pub history: Option<PathBuf>,

    /// HPA events, `kubectl get events -o json|yaml` (or its table), as the controller's memory
    ///
    /// core/v1 and events.k8s.io/v1 events (count and series folded), or the plain table of
    /// `kubectl get events`. SuccessfulRescale events
    /// become scale events and recommendations, as --history rows would; the controller's other
    /// events (FailedGetResourceMetric, ...) become diagnostics. Merged with --history when both
    /// are given (the CSV wins where both have a scale at the same second).
    #[arg(long, value_name = "FILE")]
    pub events: Option<PathBuf>,

    /// Print only the normalized autoscaling/v2 HPA used (defaults filled), YAML or `-o json`
    ///
    /// Whatever form --hpa was read from (v1, v2beta1, describe text, a get-hpa table), this is
    /// the HPA and status the calculation saw, instead of the report. For a KEDA ScaledObject:
    /// the HPA KEDA creates from it.
    #[arg(long)]
    pub print_hpa: bool,

    /// Evaluation time, RFC 3339 (default: the newest time in the kubectl inputs, else now)
    #[arg(long, value_name = "RFC3339")]
    pub now: Option<String>,

    /// Output format
    #[arg(short = 'o', long = "output", value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,

    /// Print only the answer: the decision line, the first WHY line and one line per other
    /// cause (the same as `-o summary`)
    #[arg(long, conflicts_with = "output")]
    pub brief: bool,

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

    /// Apply the controller rules of this Kubernetes release (1.27 to 1.37) [default: 1.37; live
    /// mode: the API server's]
    #[arg(long, value_name = "VERSION", help_heading = "Controller flags")]
    pub kube_version: Option<String>,

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

    #[command(flatten)]
    pub live: LiveFlags,

    #[command(flatten)]
    pub what_if: WhatIfFlags,

    /// What if KEY were VALUE: the decision before and after, in one report (repeatable; KEY is
    /// a what-if flag or a controller flag without its dashes: tolerance=0.05,
    /// kube-version=1.32, set-request=app.cpu=250m)
    #[arg(long = "what-if", value_name = "KEY=VALUE", help_heading = "What if")]
    pub what_if_changes: Vec<String>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The what-if changes of one sync or of every configuration of a simulation: the same usage
/// against other requests, limits, tolerances or bounds.
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "What if")]
pub struct WhatIfFlags {
    /// Give every container another request, `RESOURCE=QUANTITY` (cpu=250m, as `kubectl set
    /// resources --requests` does), or one container, `CONTAINER.RESOURCE=QUANTITY`
    /// (app.cpu=250m): the rightsizing or VPA case (repeatable)
    #[arg(long = "set-request", value_name = "[CONTAINER.]RESOURCE=QTY")]
    pub set_request: Vec<String>,

    /// Give every container (`RESOURCE=QUANTITY`) or one (`CONTAINER.RESOURCE=QUANTITY`) another
    /// limit (simulate: what a pod can use; repeatable)
    #[arg(long = "set-limit", value_name = "[CONTAINER.]RESOURCE=QTY")]
    pub set_limit: Vec<String>,

    /// Set behavior.scaleUp.tolerance (HPAConfigurableTolerance, 1.33+)
    #[arg(long, value_name = "RATIO")]
    pub scale_up_tolerance: Option<f64>,

    /// Set behavior.scaleDown.tolerance (HPAConfigurableTolerance, 1.33+)
    #[arg(long, value_name = "RATIO")]
    pub scale_down_tolerance: Option<f64>,

    /// Set spec.minReplicas
    #[arg(long, value_name = "N")]
    pub min: Option<i32>,

    /// Set spec.maxReplicas
    #[arg(long, value_name = "N")]
    pub max: Option<i32>,
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

    /// Real nodes: `kubectl get nodes -o json` (Ready, not cordoned nodes take pods)
    #[arg(long = "nodes", value_name = "FILE")]
    pub nodes_file: Option<std::path::PathBuf>,

    /// The cluster's pods, `kubectl get pods -A -o json`: what each node already runs
    #[arg(long, value_name = "FILE", requires = "nodes_file")]
    pub all_pods: Option<std::path::PathBuf>,

    /// Several node groups (YAML or JSON list: name, allocatable, capacity, labels, taints, minSize,
    /// maxSize, currentSize, pricePerHour, priority): the Cluster Autoscaler's loops, one group each
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["node_allocatable", "nodes_file", "existing_nodes", "node_group_max"]
    )]
    pub node_groups: Option<std::path::PathBuf>,

    /// The expander chain of --node-groups: least-waste, most-pods, least-nodes, priority, price,
    /// random, comma-separated [default: least-waste]
    #[arg(long, value_name = "CHAIN", requires = "node_groups")]
    pub expander: Option<String>,

    /// Karpenter NodePool (karpenter.sh/v1 YAML; lists and multi-document files; repeatable):
    /// the NodeClaims Karpenter's scheduler opens for the new pods, instead of a node group
    #[arg(
        long = "nodepool",
        value_name = "FILE",
        conflicts_with_all = ["node_allocatable", "existing_nodes", "node_group_max", "node_groups"]
    )]
    pub nodepools: Vec<std::path::PathBuf>,

    /// EC2NodeClass of --nodepool: its kubelet (maxPods, podsPerCore, kubeReserved,
    /// systemReserved, evictionHard) shapes each instance type's allocatable
    #[arg(long, value_name = "FILE", requires = "nodepools")]
    pub nodeclass: Option<std::path::PathBuf>,

    /// Instance types of --nodepool: Karpenter's KWOK InstanceTypeOptions JSON (name, offerings
    /// with Price and Requirements, architecture, operatingSystems, resources)
    #[arg(long, value_name = "FILE", requires = "nodepools")]
    pub instance_types: Option<std::path::PathBuf>,

    /// --scale-down-utilization-threshold of the Cluster Autoscaler
    #[arg(long, value_name = "RATIO", default_value = "0.5")]
    pub scale_down_utilization_threshold: f64,

    /// --scale-down-unneeded-time of the Cluster Autoscaler
    #[arg(long, value_name = "DURATION", default_value = "10m")]
    pub scale_down_unneeded_time: String,
}

/// Live mode: the cluster as the input, as kubectl reaches it.
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "Live (an HPA's name, or -n NAMESPACE or -A to list every HPA)")]
pub struct LiveFlags {
    /// Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,

    /// The kubeconfig context to use (default: its current-context)
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,

    /// The kubeconfig cluster to use instead of the context's, as kubectl's --cluster
    #[arg(long, value_name = "NAME")]
    pub cluster: Option<String>,

    /// The kubeconfig user to use instead of the context's, as kubectl's --user
    #[arg(long, value_name = "NAME")]
    pub user: Option<String>,

    #[command(flatten)]
    pub auth: AuthFlags,

    /// kubectl's log level: 6 or more logs each API request (method, URL, status, time) on
    /// stderr
    #[arg(short = 'v', long = "v", value_name = "N", default_value_t = 0)]
    pub verbosity: u8,

    /// How long to wait for each API request (`0` waits without limit)
    #[arg(long, value_name = "DURATION", default_value = "30s")]
    pub request_timeout: String,

    /// Also write what was read as offline files, with command.txt to reproduce the answer
    #[arg(long, value_name = "DIR")]
    pub save: Option<PathBuf>,

    /// Re-evaluate every --sync-period until Ctrl-C, keeping the controller's memory
    #[arg(long, conflicts_with = "save")]
    pub watch: bool,

    /// Also read the nodes and every pod of the cluster for the Nodes section (as --nodes and
    /// --all-pods)
    #[arg(long)]
    pub nodes_from_cluster: bool,

    /// Stop --watch after N evaluations (for tests)
    #[arg(long, value_name = "N", requires = "watch", hide = true)]
    pub watch_count: Option<u64>,
}

/// kubectl's connection flags over the kubeconfig (genericclioptions `ConfigFlags`): one HPA,
/// a list (`-n`, `-A`), `audit -n`/`-A` and `serve` take the same ones.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct AuthFlags {
    /// The API server's address, as kubectl's --server: over the kubeconfig cluster's (no
    /// kubeconfig is needed with it)
    #[arg(long, short = 's', value_name = "URL")]
    pub server: Option<String>,

    /// Bearer token for the API server, as kubectl's --token: over the kubeconfig user's
    /// credentials
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,

    /// Do not check the server's certificate, as kubectl's flag (the kubeconfig's CA is unused)
    #[arg(long)]
    pub insecure_skip_tls_verify: bool,

    /// The user to impersonate, as kubectl's --as (a user, or system:serviceaccount:NS:NAME)
    #[arg(long = "as", value_name = "USER")]
    pub as_user: Option<String>,

    /// A group to impersonate, as kubectl's --as-group (repeatable; needs --as)
    #[arg(long = "as-group", value_name = "GROUP", requires = "as_user")]
    pub as_group: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the minimal read-only ClusterRole live mode needs, as YAML
    Rbac,
    /// Every HPA of the cluster evaluated at every sync, served to Prometheus (/metrics) and as
    /// JSON, until stopped
    ///
    /// Lists the objects the audit reads once and then watches them; the metrics APIs and the
    /// HPAs' events are read at every --sync-period. Read-only. With --offline, the calculator
    /// (/calc) alone, with no cluster.
    Serve(Box<ServeArgs>),
    /// Print Prometheus alerting rules over the series of `hpacalc serve`, as YAML
    ///
    /// A rules file (`groups:`, for Prometheus' rule_files), or with --prometheus-rule a
    /// prometheus-operator PrometheusRule with the same groups: an HPA at maxReplicas above its
    /// target, a metric that cannot be computed, a status that disagrees with hpacalc, a missing
    /// request, and a metric within 10 % of a flip.
    Rules(RulesArgs),
    /// Print the JSON Schema of every JSON output (report, simulation, watch line)
    Schema,
    /// Print a shell completion script
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// What the HPA, the scheduler and the Cluster Autoscaler do over time for a load curve
    ///
    /// Replays the controller sync after sync over a load curve, with pods that take time to
    /// start and nodes that take time to boot, using the same controller code as a single sync.
    /// `--scenario list` names the built-in scenarios.
    Simulate(Box<SimulateArgs>),
    /// What a change to HPA manifests changes: their behaviour, where the count flips, and with
    /// a load their runs side by side (for a pull request)
    ///
    /// OLD and NEW are two manifests or two folders of manifests (read as `audit -f` reads
    /// them), matched by namespace/name. Without --load, each HPA's static behaviour: bounds,
    /// targets, windows, rate limits, tolerances and the hold band at each replica count. With
    /// --pods (a capture), one sync of each; with --load (a load CSV or a saved Prometheus
    /// answer), both run through `simulate` and their figures compared; --fail-on exits 3 when
    /// one gets worse.
    Diff(Box<DiffArgs>),
    /// Every HPA of a cluster dump: the controller's decision for each, and the problems that
    /// need more than one object to see
    ///
    /// Reads any number of dumps (`kubectl get hpa,deploy,sts,rs,pods,pdb -A -o json`), runs the
    /// single-HPA calculation on every HPA with the pods its target's selector matches, and
    /// adds the cross-HPA findings (AmbiguousSelector, TargetMissing, PdbBlocksDrain, ...).
    /// `-A` (or `-n NS`) lists the same objects from the cluster instead.
    Audit(Box<AuditArgs>),
    /// Serve the calculator to AI assistants: the Model Context Protocol over stdin and stdout
    ///
    /// An MCP client (Claude Desktop, an IDE, an agent) starts `hpacalc mcp` and calls its tools:
    /// explain_hpa, simulate, compare, diff, audit, print_hpa, list_diagnostics; with
    /// --allow-live also explain_live_hpa and audit of a live namespace. Each takes the inputs as text, as a
    /// person pastes them, and answers the JSON of `-o json` with a short summary. Read-only.
    Mcp(McpArgs),
}

/// `hpacalc mcp`: what the tools may read, and how long one call may take.
#[derive(Debug, Clone, clap::Args)]
pub struct McpArgs {
    /// Also offer the tools that read the cluster through the kubeconfig, as live mode does
    /// (explain_live_hpa, audit of a namespace); read-only
    #[arg(long)]
    pub allow_live: bool,

    /// The longest one tool call may take; a call still running then is answered with an error
    #[arg(long, value_name = "DURATION", default_value = "60s")]
    pub call_timeout: String,

    /// Path to the kubeconfig file of the live tools (default: $KUBECONFIG, else
    /// ~/.kube/config, else in-cluster)
    #[arg(long, value_name = "FILE", requires = "allow_live")]
    pub kubeconfig: Option<PathBuf>,
}

/// `hpacalc diff`: the two sides, the load they run on, and what must not get worse.
#[derive(Debug, Clone, clap::Args)]
pub struct DiffArgs {
    /// The manifests before the change: a file or a folder (.yaml, .yml, .json, subfolders too)
    #[arg(value_name = "OLD")]
    pub old: PathBuf,

    /// The manifests after the change
    #[arg(value_name = "NEW")]
    pub new: PathBuf,

    /// Output format
    #[arg(short = 'o', long = "output", value_enum, default_value_t = DiffFormat::Table)]
    pub output: DiffFormat,

    /// Exit 3 when a changed HPA gets worse by RULE: unserved-load, flapping, scale-events,
    /// pod-hours[>N%], time-above-target[>N%] (alone: any increase; repeatable; needs --load)
    #[arg(long, value_name = "RULE")]
    pub fail_on: Vec<String>,

    /// Run both sides of each changed HPA on this load: a load CSV or a saved Prometheus answer
    /// (as `simulate --load` reads it)
    #[arg(long, value_name = "FILE", help_heading = "Load")]
    pub load: Option<PathBuf>,

    /// The series a metric reads in a Prometheus answer (as simulate's; repeatable)
    #[arg(long = "load-map", value_name = "METRIC=SERIES", help_heading = "Load")]
    pub load_map: Vec<String>,

    /// The replicas the cluster had, a saved query_range answer (the run starts there)
    #[arg(long, value_name = "FILE", requires = "load", help_heading = "Load")]
    pub actual_file: Option<PathBuf>,

    /// Each pod's request, as simulate's (default: the target's pod template beside the HPA)
    #[arg(
        long,
        value_name = "RESOURCES",
        requires = "load",
        help_heading = "Load"
    )]
    pub pod_request: Option<String>,

    /// Ready pods at the start, as simulate's
    #[arg(long, value_name = "N", requires = "load", help_heading = "Load")]
    pub replicas: Option<i32>,

    /// How long to simulate, as simulate's
    #[arg(
        long,
        value_name = "DURATION",
        requires = "load",
        help_heading = "Load"
    )]
    pub duration: Option<String>,

    /// Evaluate one sync of both sides on these pods (`kubectl get pods -o json`, or samples
    /// CSV), as `hpacalc --pods` reads them
    #[arg(long, value_name = "FILE", help_heading = "Capture")]
    pub pods: Option<PathBuf>,

    /// The pods' usage for that sync (PodMetricsList or `kubectl top pods --containers`)
    #[arg(long, value_name = "FILE", requires = "pods", help_heading = "Capture")]
    pub metrics: Option<PathBuf>,

    /// The evaluation time of that sync (default: from the capture, else the clock)
    #[arg(
        long,
        value_name = "RFC3339",
        requires = "pods",
        help_heading = "Capture"
    )]
    pub now: Option<String>,

    #[command(flatten)]
    pub controller: FleetControllerFlags,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    /// What changed per HPA, as tables
    Table,
    /// {"hpas": [...], "worse": [...]}
    Json,
    /// A pull-request comment
    Markdown,
}

/// `hpacalc rules`: which file, and the sync period the status-mismatch rule counts in.
#[derive(Debug, Clone, clap::Args)]
pub struct RulesArgs {
    /// Print a prometheus-operator PrometheusRule (monitoring.coreos.com/v1) instead of a plain
    /// rules file
    #[arg(long)]
    pub prometheus_rule: bool,

    /// --horizontal-pod-autoscaler-sync-period: the status-mismatch rule fires after 3 syncs
    #[arg(long, value_name = "DURATION", default_value = "15s")]
    pub sync_period: String,

    /// The `job` label of hpacalc's own scrape, for HpacalcAbsent (the Service's name, or the
    /// scrape config's job_name)
    #[arg(long, value_name = "NAME", default_value = crate::rules::JOB)]
    pub job: String,
}

/// `hpacalc audit`: the files of a cluster dump and how to report on them.
#[derive(Debug, Clone, clap::Args)]
pub struct AuditArgs {
    /// A cluster dump, `kubectl get hpa,deploy,sts,rs,pods,pdb -A -o json|yaml` (repeatable; a
    /// List or single objects; VPAs and KEDA ScaledObjects are used when present)
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present_any = ["manifests", "all_namespaces", "namespace", "cluster"],
        num_args = 1..
    )]
    pub dump: Vec<PathBuf>,

    /// Live (-n, -A): the kubeconfig cluster to use instead of the context's, as kubectl's
    /// --cluster. Without -n or -A there is no kubeconfig to name: the old spelling of --dump
    #[arg(
        long,
        value_name = "NAME",
        num_args = 1..,
        conflicts_with_all = ["manifests", "dump"],
        help_heading = "Live"
    )]
    pub cluster: Vec<String>,

    /// Live: list every namespace of the cluster (kubeconfig) instead of reading files
    #[arg(
        short = 'A',
        long,
        conflicts_with_all = ["dump", "manifests", "metrics", "namespace", "custom_metrics", "external_metrics", "events"],
        help_heading = "Live"
    )]
    pub all_namespaces: bool,

    /// Live: list one namespace of the cluster (kubeconfig) instead of reading files
    #[arg(
        short = 'n',
        long,
        value_name = "NAMESPACE",
        conflicts_with_all = ["dump", "manifests", "metrics", "custom_metrics", "external_metrics", "events"],
        help_heading = "Live"
    )]
    pub namespace: Option<String>,

    /// Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)
    #[arg(long, value_name = "FILE", help_heading = "Live")]
    pub kubeconfig: Option<PathBuf>,

    /// The kubeconfig context to use (default: its current-context)
    #[arg(long, value_name = "NAME", help_heading = "Live")]
    pub context: Option<String>,

    /// The kubeconfig user to use instead of the context's, as kubectl's --user
    #[arg(long, value_name = "NAME", help_heading = "Live")]
    pub user: Option<String>,

    #[command(flatten, next_help_heading = "Live")]
    pub auth: AuthFlags,

    /// kubectl's log level: 6 or more logs each API request (method, URL, status, time) on
    /// stderr
    #[arg(
        short = 'v',
        long = "v",
        value_name = "N",
        default_value_t = 0,
        help_heading = "Live"
    )]
    pub verbosity: u8,

    /// How long to wait for each API request (`0` waits without limit)
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "30s",
        help_heading = "Live"
    )]
    pub request_timeout: String,

    /// Manifests only (a folder of YAML or JSON, e.g. `helm template` output): static checks,
    /// no decision (repeatable)
    #[arg(
        short = 'f',
        long = "filename",
        value_name = "DIR|FILE",
        conflicts_with_all = ["dump", "cluster", "metrics", "nodes", "events", "custom_metrics", "external_metrics"]
    )]
    pub manifests: Vec<PathBuf>,

    /// The pods' resource usage: `kubectl get --raw /apis/metrics.k8s.io/v1beta1/pods`
    #[arg(long, value_name = "FILE")]
    pub metrics: Option<PathBuf>,

    /// Custom metrics API answer (MetricValueList) for Pods and Object metrics (repeatable)
    #[arg(long = "custom-metrics", value_name = "FILE")]
    pub custom_metrics: Vec<PathBuf>,

    /// External metrics API answer (ExternalMetricValueList) for External metrics (repeatable)
    #[arg(long = "external-metrics", value_name = "FILE")]
    pub external_metrics: Vec<PathBuf>,

    /// The nodes, `kubectl get nodes -o json`: checks that each HPA's maxReplicas fits
    #[arg(long, value_name = "FILE")]
    pub nodes: Option<PathBuf>,

    /// The node group's maximum size: the nodes it may still add count toward maxReplicas, each
    /// like the first schedulable node given with only that node's DaemonSet pods
    #[arg(long, value_name = "N", requires = "nodes", value_parser = clap::value_parser!(i64).range(0..))]
    pub node_group_max: Option<i64>,

    /// Events, `kubectl get events -A -o json`: the controller's memory of each HPA
    #[arg(long, value_name = "FILE")]
    pub events: Option<PathBuf>,

    /// Output format
    #[arg(short = 'o', long = "output", value_enum, default_value_t = AuditFormat::Table)]
    pub output: AuditFormat,

    /// Exit with 3 when a finding of this severity or above exists
    #[arg(long, value_enum, value_name = "SEVERITY")]
    pub fail_on: Option<FailOn>,

    /// Evaluation time, RFC 3339 (default: the newest time in the dump, else now)
    #[arg(long, value_name = "RFC3339")]
    pub now: Option<String>,

    #[command(flatten)]
    pub controller: FleetControllerFlags,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AuditFormat {
    /// One row per HPA, then the findings
    Table,
    /// The table plus each HPA's metric values
    Wide,
    /// {"schemaVersion", "summary", "hpas", "unevaluated", "findings"}
    Json,
    /// The same object as YAML
    Yaml,
    /// SARIF 2.1.0, each finding at its HPA's file and line (with -f)
    Sarif,
    /// A report to paste into a ticket: the counts, one row per HPA with its decision and first
    /// WHY line, the findings
    Markdown,
}

/// `--fail-on`: the least severe finding that fails the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Warnings and errors
    Warning,
    /// Errors only
    Error,
}

/// `hpacalc simulate`: the flags of a simulation. Settings left unset take the built-in
/// scenario's value (with --scenario), else the default named in their help.
#[derive(Debug, Clone, clap::Args)]
pub struct SimulateArgs {
    /// HPA manifest (YAML or JSON; `-` reads stdin)
    #[arg(
        long,
        short = 'f',
        value_name = "FILE",
        required_unless_present = "scenario",
        conflicts_with = "scenario"
    )]
    pub hpa: Option<PathBuf>,

    /// Load curve: CSV with a time column and one column per metric (`-` reads stdin)
    ///
    /// `time` is the offset from the start (0s, 90s, 5m); each other column is named like a
    /// metric of the HPA (cpu, a Pods, Object or External metric's name) and holds the TOTAL
    /// demand across all pods (2400m or 2.4 for cpu), or an Object or External metric's value.
    /// The load is a step function between rows; an empty cell keeps the previous value.
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present_any = ["scenario", "prometheus"],
        conflicts_with_all = ["scenario", "prometheus"]
    )]
    pub load: Option<PathBuf>,

    /// Run a built-in scenario (`--scenario list` names them); other flags change its settings
    #[arg(long, value_name = "NAME")]
    pub scenario: Option<String>,

    /// Pick the HPA with this name when the manifest holds several
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,

    /// Ready pods at the start (default: the actual replicas at time 0 with --actual, else
    /// status.currentReplicas, else minReplicas)
    #[arg(long, value_name = "N")]
    pub replicas: Option<i32>,

    /// When the --hpa file was captured, RFC 3339: the run starts then (a ScaledObject's
    /// status.lastActiveTime and cooldown count from it; default: the current time, not before
    /// lastActiveTime)
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,

    /// Another HPA manifest to run on the same load, cluster model and replay, side by side
    /// with --hpa (repeatable; `--what-if` after it changes that configuration only); a file of
    /// NodePools instead runs --hpa with those NodePools in place of --nodepool's
    #[arg(long, value_name = "FILE", help_heading = "Compare")]
    pub compare: Vec<PathBuf>,

    /// What if KEY were VALUE, for the --compare before it only (repeatable; KEY is a what-if
    /// flag or a controller flag without its dashes: set-request=app.cpu=250m, tolerance=0.05)
    #[arg(
        long = "what-if",
        value_name = "KEY=VALUE",
        requires = "compare",
        help_heading = "Compare"
    )]
    pub what_if_changes: Vec<String>,

    /// For each `--what-if`, the `--compare` it follows (0-based), from the command line's order;
    /// `None` before the first.
    #[arg(skip)]
    pub what_if_of: Vec<Option<usize>>,

    #[command(flatten)]
    pub what_if: WhatIfFlags,

    /// How long to simulate, e.g. 30m, 7d (default: the last load row + 15m)
    #[arg(long, value_name = "DURATION")]
    pub duration: Option<String>,

    /// Output format
    #[arg(short = 'o', long = "output", value_enum, default_value_t = TimelineFormat::Table)]
    pub output: TimelineFormat,

    /// Print every sync in the table, not only the first, the last and those where a column
    /// changes (-o json and -o csv always have every sync)
    #[arg(long)]
    pub every_sync: bool,

    /// Also write an SVG chart of load, replicas and nodes over time to this file
    ///
    /// Two panels over one time axis: replicas (desired, recommendation, Ready, Pending, nodes,
    /// minReplicas and maxReplicas), and the first metric against its target and tolerance band;
    /// markers under the axis at each scale-up, scale-down and node request.
    #[arg(long, value_name = "FILE")]
    pub chart: Option<PathBuf>,

    /// Also write a self-contained HTML report to this file: summary, chart, timeline, and each
    /// sync's full step-by-step report
    ///
    /// One file with nothing to fetch (inline CSS, JS and SVG). Choose a sync by clicking its row
    /// or the chart, or open FILE#sync=N. A run of at most 1000 syncs keeps every sync's report;
    /// a longer one keeps those of the syncs that changed the replica count or the reason.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,

    /// Each pod's request, e.g. cpu=500m,memory=256Mi (needed by Utilization targets; default:
    /// the target's pod template, when the --hpa file holds the target)
    #[arg(long, value_name = "RESOURCES")]
    pub pod_request: Option<String>,

    /// From scheduling to Ready (default 15s)
    #[arg(long, value_name = "DURATION", help_heading = "Timing")]
    pub pod_startup: Option<String>,

    /// How long a deleted pod keeps its node room (default 0s)
    #[arg(long, value_name = "DURATION", help_heading = "Timing")]
    pub pod_termination: Option<String>,

    /// From the Cluster Autoscaler's request (or Karpenter's launch) to a Ready node (default 3m)
    #[arg(long, value_name = "DURATION", help_heading = "Timing")]
    pub node_startup: Option<String>,

    /// --scan-interval of the Cluster Autoscaler (default 10s)
    #[arg(long, value_name = "DURATION", help_heading = "Timing")]
    pub ca_scan_interval: Option<String>,

    /// --scale-down-delay-after-add of the Cluster Autoscaler (default 10m)
    #[arg(long, value_name = "DURATION", help_heading = "Timing")]
    pub scale_down_delay_after_add: Option<String>,

    /// --horizontal-pod-autoscaler-sync-period (default 15s)
    #[arg(long, value_name = "DURATION", help_heading = "Controller flags")]
    pub sync_period: Option<String>,

    /// --horizontal-pod-autoscaler-tolerance (default 0.1)
    #[arg(long, value_name = "RATIO", help_heading = "Controller flags")]
    pub tolerance: Option<f64>,

    /// --horizontal-pod-autoscaler-cpu-initialization-period (default 5m)
    #[arg(long, value_name = "DURATION", help_heading = "Controller flags")]
    pub cpu_initialization_period: Option<String>,

    /// --horizontal-pod-autoscaler-initial-readiness-delay (default 30s)
    #[arg(long, value_name = "DURATION", help_heading = "Controller flags")]
    pub initial_readiness_delay: Option<String>,

    /// --horizontal-pod-autoscaler-downscale-stabilization (default 5m)
    #[arg(long, value_name = "DURATION", help_heading = "Controller flags")]
    pub downscale_stabilization: Option<String>,

    /// Apply the controller rules of this Kubernetes release, 1.27 to 1.37 (default 1.37)
    #[arg(long, value_name = "VERSION", help_heading = "Controller flags")]
    pub kube_version: Option<String>,

    /// Override feature gates: NAME=true|false,...
    #[arg(long, value_name = "GATES", help_heading = "Controller flags")]
    pub feature_gates: Option<String>,

    /// The window of each resource usage sample (CPU readiness rule; default 15s)
    #[arg(long, value_name = "DURATION", help_heading = "Controller flags")]
    pub metrics_window: Option<String>,

    /// Allocatable of one node of the group: cpu=2,memory=8Gi,pods=110 (pods defaults to 110)
    #[arg(
        long,
        value_name = "RESOURCES",
        help_heading = "Nodes (Cluster Autoscaler)"
    )]
    pub node_allocatable: Option<String>,

    /// Nodes at the start (default: just enough for the start pods)
    #[arg(long, value_name = "N", help_heading = "Nodes (Cluster Autoscaler)")]
    pub existing_nodes: Option<i64>,

    /// Requests of one DaemonSet on every node, e.g. cpu=100m,memory=128Mi (repeatable)
    #[arg(
        long = "daemonset-requests",
        value_name = "RESOURCES",
        help_heading = "Nodes (Cluster Autoscaler)"
    )]
    pub daemonset_requests: Vec<String>,

    /// The node group's minimum size (default 0)
    #[arg(long, value_name = "N", help_heading = "Nodes (Cluster Autoscaler)")]
    pub node_group_min: Option<i64>,

    /// The node group's maximum size
    #[arg(long, value_name = "N", help_heading = "Nodes (Cluster Autoscaler)")]
    pub node_group_max: Option<i64>,

    /// --max-nodes-total of the Cluster Autoscaler
    #[arg(long, value_name = "N", help_heading = "Nodes (Cluster Autoscaler)")]
    pub max_nodes_total: Option<i64>,

    /// --scale-down-utilization-threshold of the Cluster Autoscaler (default 0.5)
    #[arg(
        long,
        value_name = "RATIO",
        help_heading = "Nodes (Cluster Autoscaler)"
    )]
    pub scale_down_utilization_threshold: Option<f64>,

    /// --scale-down-unneeded-time of the Cluster Autoscaler (default 10m)
    #[arg(
        long,
        value_name = "DURATION",
        help_heading = "Nodes (Cluster Autoscaler)"
    )]
    pub scale_down_unneeded_time: Option<String>,

    /// Several node groups (the --node-groups file of the single sync): each Cluster Autoscaler
    /// loop scales the one group the expander chain picks
    #[arg(
        long,
        value_name = "FILE",
        help_heading = "Nodes (Cluster Autoscaler)",
        conflicts_with_all = ["node_allocatable", "existing_nodes", "node_group_min", "node_group_max"]
    )]
    pub node_groups: Option<PathBuf>,

    /// The expander chain of --node-groups: least-waste, most-pods, least-nodes, priority, price,
    /// random, comma-separated [default: least-waste]
    #[arg(
        long,
        value_name = "CHAIN",
        help_heading = "Nodes (Cluster Autoscaler)",
        requires = "node_groups"
    )]
    pub expander: Option<String>,

    /// Karpenter provisions the nodes instead of a Cluster Autoscaler node group: a NodePool
    /// (karpenter.sh/v1; lists and multi-document files; repeatable)
    ///
    /// Pending pods are batched (1 s without a new one, at most 10 s), solved by Karpenter's
    /// scheduler over the NodeClaims already launched and new ones; a new NodeClaim is Ready
    /// after --node-startup. The start pods run on the NodeClaims one solve launches for them.
    #[arg(
        long = "nodepool",
        value_name = "FILE",
        help_heading = "Nodes (Karpenter)",
        conflicts_with_all = ["node_allocatable", "existing_nodes", "node_group_min", "node_group_max", "max_nodes_total", "node_groups", "ca_scan_interval", "scale_down_delay_after_add", "scale_down_utilization_threshold", "scale_down_unneeded_time"]
    )]
    pub nodepools: Vec<PathBuf>,

    /// EC2NodeClass of --nodepool: its amiFamily and kubelet (maxPods, podsPerCore,
    /// kubeReserved, systemReserved, evictionHard) for the built-in AWS catalog
    #[arg(
        long,
        value_name = "FILE",
        help_heading = "Nodes (Karpenter)",
        requires = "nodepools"
    )]
    pub nodeclass: Option<PathBuf>,

    /// Instance types of --nodepool: Karpenter's KWOK InstanceTypeOptions JSON (default: the
    /// built-in AWS catalog)
    #[arg(
        long,
        value_name = "FILE",
        help_heading = "Nodes (Karpenter)",
        requires = "nodepools"
    )]
    pub instance_types: Option<PathBuf>,

    /// Each pod's limits, e.g. cpu=1: a pod uses no more, the rest of its share goes unserved
    /// (default: the target's pod template, when the --hpa file holds the target)
    #[arg(long, value_name = "RESOURCES", help_heading = "Model")]
    pub pod_limit: Option<String>,

    /// Start a rolling update of the pods at this time from the start, e.g. 5m
    #[arg(long, value_name = "AT", help_heading = "Model")]
    pub rollout: Option<String>,

    /// The rollout's maxSurge: pods over the replicas, a count or a percent (default 25%)
    #[arg(long, value_name = "N|P%", help_heading = "Model")]
    pub max_surge: Option<String>,

    /// The rollout's maxUnavailable: a count or a percent (default 25%)
    #[arg(long, value_name = "N|P%", help_heading = "Model")]
    pub max_unavailable: Option<String>,

    /// The Deployment's minReadySeconds: a new pod counts as available this long after Ready
    /// (default 0)
    #[arg(long, value_name = "SECONDS", help_heading = "Model")]
    pub min_ready_seconds: Option<i64>,

    /// A new pod's CPU burst: FACTORx:DURATION, e.g. 2x:45s (that multiple of its share of the
    /// load for that long after it starts)
    #[arg(long, value_name = "FACTORx:DURATION", help_heading = "Model")]
    pub startup_cpu: Option<String>,

    #[command(flatten)]
    pub replay: ReplayArgs,
}

/// `hpacalc simulate`: replaying real load from Prometheus, beside what the cluster really did.
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "Replay from Prometheus")]
pub struct ReplayArgs {
    /// Map a series of a Prometheus answer to a metric: METRIC=INDEX (0-based) or
    /// METRIC={LABEL="VALUE",...} (repeatable)
    ///
    /// `--load` also reads a /api/v1/query_range answer (JSON, resultType matrix). Each metric of
    /// the HPA reads one series: the only one, or the one this flag names by its index in the
    /// answer or by label matchers (= and !=).
    #[arg(long = "load-map", value_name = "METRIC=SERIES")]
    pub load_map: Vec<String>,

    /// The replicas the cluster really had: a query_range answer with one series
    #[arg(long, value_name = "FILE", conflicts_with = "actual")]
    pub actual_file: Option<PathBuf>,

    /// Run the range queries on this Prometheus server, e.g. http://127.0.0.1:9090
    #[arg(long, value_name = "URL", conflicts_with = "scenario")]
    pub prometheus: Option<String>,

    /// METRIC=PROMQL: the total load of one metric of the HPA over time (repeatable)
    #[arg(long = "query", value_name = "METRIC=PROMQL")]
    pub queries: Vec<String>,

    /// PromQL for the replicas the cluster really had, e.g.
    /// kube_horizontalpodautoscaler_status_desired_replicas{horizontalpodautoscaler="web"}
    #[arg(long, value_name = "PROMQL")]
    pub actual: Option<String>,

    /// Start of the range: RFC 3339, or a time before now such as -12h
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub start: Option<String>,

    /// End of the range: RFC 3339, now, or a time before now such as -1h (default now)
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub end: Option<String>,

    /// Resolution of the range queries (default 15s)
    #[arg(long, value_name = "DURATION")]
    pub step: Option<String>,

    /// Bearer token for the Prometheus server
    #[arg(
        long,
        value_name = "TOKEN",
        env = "PROMETHEUS_TOKEN",
        hide_env_values = true
    )]
    pub token: Option<String>,

    /// Username for basic auth to the Prometheus server
    #[arg(
        long,
        value_name = "USER",
        env = "PROMETHEUS_USERNAME",
        hide_env_values = true
    )]
    pub username: Option<String>,

    /// Password for basic auth to the Prometheus server
    #[arg(
        long,
        value_name = "PASSWORD",
        env = "PROMETHEUS_PASSWORD",
        hide_env_values = true
    )]
    pub password: Option<String>,

    /// A PEM file of the CA that signed the Prometheus server's certificate
    #[arg(long, value_name = "FILE")]
    pub certificate_authority: Option<PathBuf>,

    /// Do not verify the Prometheus server's TLS certificate (insecure)
    #[arg(long)]
    pub insecure_skip_tls_verify: bool,

    /// How long to wait for each Prometheus query; `0` waits without limit (default 30s)
    #[arg(long, value_name = "DURATION")]
    pub request_timeout: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TimelineFormat {
    /// One row per sync, then the events and a summary
    Table,
    /// {"timeline": [...], "events": [...], "summary": {...}}
    Json,
    /// One row per sync, for spreadsheets
    Csv,
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
    /// The decision line, the first WHY line and one line per other cause (as --brief)
    #[value(alias = "brief")]
    Summary,
    /// A report to paste into a ticket: the decision, WHY and the steps as Markdown tables
    Markdown,
}

/// The name a plugin binary has: kubectl runs `kubectl hpacalc ...` as `kubectl-hpacalc ...`.
const PLUGIN_BINARY: &str = "kubectl-hpacalc";

/// How the program calls itself in usage and errors: `kubectl hpacalc` when invoked as the kubectl
/// plugin (`kubectl-hpacalc`, or `kubectl-hpacalc.exe`), else `hpacalc`.
pub fn invoked_as(argv0: &std::ffi::OsStr) -> &'static str {
    let file = std::path::Path::new(argv0)
        .file_name()
        .map(|f| f.to_string_lossy())
        .unwrap_or_default();
    let stem = file.strip_suffix(".exe").unwrap_or(&file);
    if stem == PLUGIN_BINARY {
        "kubectl hpacalc"
    } else {
        "hpacalc"
    }
}

/// The flags, or clap's outcome (help, version, usage error) for the caller to print.
pub fn try_parse_args<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    use clap::{CommandFactory, FromArgMatches};
    let args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
    let name = args.first().map_or("hpacalc", |a| invoked_as(a));
    let only_program = args.len() == 1;
    let matches = match Cli::command().bin_name(name).try_get_matches_from(args) {
        Ok(m) => m,
        Err(_) if only_program && !std::io::IsTerminal::is_terminal(&std::io::stdin()) => {
            // `cat describe.txt | hpacalc`: the text is on stdin, and `--hpa -` reads it.
            return Err(Cli::command().bin_name(name).error(
                clap::error::ErrorKind::MissingRequiredArgument,
                format!(
                    "no HPA given, and stdin is not a terminal: to read the HPA from stdin, \
                     run `{name} --hpa -` (`kubectl describe hpa web | {name} --hpa -`)"
                ),
            ));
        }
        Err(e) => return Err(e),
    };
    let mut cli = Cli::from_arg_matches(&matches)?;
    if cli.brief {
        cli.output = OutputFormat::Summary;
    }
    if let Some(given) = cli.live_hpa.take() {
        match positional_hpa(&given).map_err(|m| {
            Cli::command()
                .bin_name(name)
                .error(clap::error::ErrorKind::InvalidValue, m)
        })? {
            Positional::Name(n) => cli.live_hpa = Some(n),
            Positional::File(path) => {
                crate::term::log(&format!(
                    "{name}: reading {} as --hpa: a file of that name exists (hpa/NAME names \
                     an HPA of the cluster)",
                    path.display()
                ));
                cli.hpa = Some(path);
            }
        }
    }
    if cli.command.is_none() && cli.hpa.is_some() {
        refuse_live_flags(&matches).map_err(|m| {
            Cli::command()
                .bin_name(name)
                .error(clap::error::ErrorKind::ArgumentConflict, m)
        })?;
    }
    if let (Some(Command::Simulate(sim)), Some(("simulate", sub))) =
        (&mut cli.command, matches.subcommand())
    {
        sim.what_if_of = what_if_owners(sub);
    }
    Ok(cli)
}

/// The live flags (kubeconfig, credentials, `--save`, `--watch`, ...) given with a file input:
/// they would be silently ignored, so they are a usage error.
fn refuse_live_flags(matches: &clap::ArgMatches) -> Result<(), String> {
    let live = <LiveFlags as clap::Args>::augment_args(clap::Command::new("live"));
    for arg in live.get_arguments() {
        if matches.value_source(arg.get_id().as_str())
            == Some(clap::parser::ValueSource::CommandLine)
        {
            let flag = arg.get_long().map_or_else(
                || format!("-{}", arg.get_short().unwrap_or('?')),
                |l| format!("--{l}"),
            );
            return Err(format!(
                "{flag} is for the live cluster (an HPA's name, -n NAMESPACE or -A), and the \
                 input here is the --hpa file: drop {flag}, or name the HPA instead of the file"
            ));
        }
    }
    Ok(())
}

/// What the positional argument names.
#[derive(Debug, PartialEq, Eq)]
enum Positional {
    /// An HPA of the cluster.
    Name(String),
    /// A file that exists: the `--hpa` input (`hpacalc describe.txt`).
    File(PathBuf),
}

/// kubectl's forms of an HPA's type (`kubectl api-resources`: the short name `hpa`, the
/// singular and plural, each with the group or version.group).
const HPA_TYPES: [&str; 3] = ["hpa", "horizontalpodautoscaler", "horizontalpodautoscalers"];

/// The positional argument as kubectl reads a resource: `TYPE/NAME` (`hpa/web`,
/// `horizontalpodautoscalers.autoscaling/web`) names an HPA; a bare word that is an existing
/// file is the `--hpa` input; otherwise the word is the HPA's name.
fn positional_hpa(given: &str) -> Result<Positional, String> {
    if let Some((kind, name)) = given.split_once('/')
        && !std::path::Path::new(given).exists()
    {
        let lower = kind.to_ascii_lowercase();
        let (resource, group) = lower.split_once('.').unwrap_or((&lower, ""));
        let group_ok = matches!(
            group,
            "" | "autoscaling" | "v1.autoscaling" | "v2.autoscaling"
        );
        if HPA_TYPES.contains(&resource) && group_ok && !name.is_empty() && !name.contains('/') {
            return Ok(Positional::Name(name.to_string()));
        }
        return Err(format!(
            "found {}, expected an HPA's name, TYPE/NAME with an HPA's type (hpa/web, \
             horizontalpodautoscalers.autoscaling/web), or a file to read as --hpa",
            crate::error::quoted(given)
        ));
    }
    if std::path::Path::new(given).is_file() {
        return Ok(Positional::File(PathBuf::from(given)));
    }
    Ok(Positional::Name(given.to_string()))
}

/// Which `--compare` each `--what-if` follows on the command line: clap keeps each value's index.
fn what_if_owners(matches: &clap::ArgMatches) -> Vec<Option<usize>> {
    let compares: Vec<usize> = matches
        .indices_of("compare")
        .map(Iterator::collect)
        .unwrap_or_default();
    matches
        .indices_of("what_if_changes")
        .map(|indices| {
            indices
                .map(|i| compares.iter().filter(|&&c| c < i).count().checked_sub(1))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn kubectl_type_name_forms_name_an_hpa() {
        for given in [
            "hpa/web",
            "HPA/web",
            "horizontalpodautoscaler/web",
            "horizontalpodautoscalers.autoscaling/web",
            "hpa.v2.autoscaling/web",
        ] {
            assert_eq!(
                positional_hpa(given),
                Ok(Positional::Name("web".into())),
                "{given}"
            );
        }
        for bad in ["deployment/web", "hpa/", "hpa/a/b", "hpa.apps/web"] {
            assert!(positional_hpa(bad).is_err(), "{bad}");
        }
        assert_eq!(positional_hpa("web"), Ok(Positional::Name("web".into())));
        assert_eq!(
            positional_hpa("Cargo.toml"),
            Ok(Positional::File("Cargo.toml".into()))
        );
    }

    #[test]
    fn the_plugin_binary_calls_itself_kubectl_hpacalc() {
        for (argv0, name) in [
            ("/usr/local/bin/kubectl-hpacalc", "kubectl hpacalc"),
            ("kubectl-hpacalc.exe", "kubectl hpacalc"),
            ("C:/bin/kubectl-hpacalc.exe", "kubectl hpacalc"),
            ("target/debug/hpacalc", "hpacalc"),
            ("kubectl-hpacalc-old", "hpacalc"),
            ("", "hpacalc"),
        ] {
            assert_eq!(invoked_as(std::ffi::OsStr::new(argv0)), name, "{argv0}");
        }
    }

    #[test]
    fn kubectl_style_short_flags_parse() {
        let cli =
            try_parse_args(["hpacalc", "-f", "h.yaml", "-n", "shop", "-l", "app=web"]).unwrap();
        assert_eq!(cli.namespace.as_deref(), Some("shop"));
        assert_eq!(cli.selector.as_deref(), Some("app=web"));
    }

    #[test]
    fn verify_cli() {
        Cli::command().debug_assert();
    }
}

/// `hpacalc serve`: where it reads the cluster, where it answers, and the controller flags.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeArgs {
    /// Watch every namespace
    #[arg(short = 'A', long, conflicts_with = "namespace")]
    pub all_namespaces: bool,

    /// Watch this namespace (repeatable; default: the context's)
    #[arg(short = 'n', long, value_name = "NAMESPACE")]
    pub namespace: Vec<String>,

    /// Where to answer the pages, /metrics, /healthz, /readyz and /api/v1/hpas: HOST:PORT,
    /// [IPV6]:PORT, or :PORT for every address
    #[arg(long, value_name = "ADDRESS", default_value = "127.0.0.1:8722")]
    pub listen: String,

    /// Serve the calculator (/calc) and the simulator (/simulate) alone, with no cluster: no
    /// kubeconfig is read
    #[arg(long)]
    pub offline: bool,

    /// The longest a page may take to compute; a slower one is answered 503
    #[arg(long, value_name = "DURATION", default_value = "10s")]
    pub page_timeout: String,

    /// How many pages are computed at once; more wait, up to --page-timeout
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..))]
    pub max_evaluations: u16,

    /// Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,

    /// The kubeconfig context to use (default: its current-context)
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,

    /// The kubeconfig cluster to use instead of the context's, as kubectl's --cluster
    #[arg(long, value_name = "NAME")]
    pub cluster: Option<String>,

    /// The kubeconfig user to use instead of the context's, as kubectl's --user
    #[arg(long, value_name = "NAME")]
    pub user: Option<String>,

    #[command(flatten)]
    pub auth: AuthFlags,

    /// How long to wait for each API request (`0` waits without limit)
    #[arg(long, value_name = "DURATION", default_value = "30s")]
    pub request_timeout: String,

    /// kubectl's log level: 6 or more logs each API request on stderr
    #[arg(short = 'v', long = "v", value_name = "N", default_value_t = 0)]
    pub verbosity: u8,

    /// How stderr's log lines are written: text, or one JSON object a line
    #[arg(long, value_enum, value_name = "FORMAT", default_value = "text")]
    pub log_format: LogFormat,

    #[command(flatten)]
    pub controller: FleetControllerFlags,
}

/// `serve --log-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// `warning: ...` lines
    Text,
    /// `{"time", "level", "message"}` a line
    Json,
}

/// The controller flags a fleet is evaluated with (`audit`, `serve`).
#[derive(Debug, Clone, clap::Args)]
pub struct FleetControllerFlags {
    /// --horizontal-pod-autoscaler-sync-period
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "15s",
        help_heading = "Controller flags"
    )]
    pub sync_period: String,

    /// --horizontal-pod-autoscaler-tolerance
    #[arg(
        long,
        value_name = "RATIO",
        default_value = "0.1",
        help_heading = "Controller flags"
    )]
    pub tolerance: f64,

    /// Apply the controller rules of this Kubernetes release (1.27 to 1.37)
    #[arg(
        long,
        value_name = "VERSION",
        default_value = "1.37",
        help_heading = "Controller flags"
    )]
    pub kube_version: String,

    /// Override feature gates: NAME=true|false,...
    #[arg(long, value_name = "GATES", help_heading = "Controller flags")]
    pub feature_gates: Option<String>,
}
