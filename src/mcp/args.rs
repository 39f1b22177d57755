//! The tools' arguments, as an MCP client sends them (JSON, each with its JSON Schema), and what
//! they become: the same `Inputs` and `Settings` the command line fills, with each text named by
//! its argument (`hpa`, `pods`, `custom_metrics[1]`), as the web calculator names its fields.
//! Each setting is the flag of the same name (`current_replicas` is `--current-replicas`), and a
//! bad one is named as the flag, in the CLI's words.

use anyhow::{Result, bail};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::cli::FleetControllerFlags;
use crate::error::{InputError, UsageError};
use crate::input::cluster::share::Common;
use crate::input::inputs::{ControllerFlags, NodeSettings, controller_config};
use crate::input::prometheus::ReplaySettings;
use crate::input::simulation::{self, SimSettings};
use crate::input::what_if::WhatIf;
use crate::input::{Given, Inputs, Settings, Text, flag_duration, flag_time};
use crate::work::diff::DiffInputs;

/// The largest text one argument may carry. A message is bounded by the transport
/// (`MAX_MESSAGE_BYTES`); one text by this, a quarter of it.
pub const MAX_TEXT_BYTES: usize = 16 * 1024 * 1024;

/// The controller's flags (kube-controller-manager's), each left out at its default.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ControllerArgs {
    /// --horizontal-pod-autoscaler-tolerance (default 0.1)
    pub tolerance: Option<f64>,
    /// --horizontal-pod-autoscaler-cpu-initialization-period (default 5m)
    pub cpu_initialization_period: Option<String>,
    /// --horizontal-pod-autoscaler-initial-readiness-delay (default 30s)
    pub initial_readiness_delay: Option<String>,
    /// --horizontal-pod-autoscaler-downscale-stabilization (default 5m)
    pub downscale_stabilization: Option<String>,
    /// --horizontal-pod-autoscaler-sync-period (default 15s)
    pub sync_period: Option<String>,
    /// The Kubernetes release whose controller rules apply, 1.27 to 1.37 (default 1.37)
    pub kube_version: Option<String>,
    /// Feature gates over the release's defaults: NAME=true|false,...
    pub feature_gates: Option<String>,
    /// The window of each usage sample that does not carry one (default 15s)
    pub metrics_window: Option<String>,
}

impl ControllerArgs {
    /// These flags with the ones a what-if names over them.
    fn with(&self, w: &WhatIf) -> ControllerArgs {
        fn or(what_if: &Option<String>, flag: &Option<String>) -> Option<String> {
            what_if.clone().or_else(|| flag.clone())
        }
        ControllerArgs {
            tolerance: w.tolerance.or(self.tolerance),
            cpu_initialization_period: or(
                &w.cpu_initialization_period,
                &self.cpu_initialization_period,
            ),
            initial_readiness_delay: or(&w.initial_readiness_delay, &self.initial_readiness_delay),
            downscale_stabilization: or(&w.downscale_stabilization, &self.downscale_stabilization),
            sync_period: or(&w.sync_period, &self.sync_period),
            kube_version: or(&w.kube_version, &self.kube_version),
            feature_gates: or(&w.feature_gates, &self.feature_gates),
            metrics_window: or(&w.metrics_window, &self.metrics_window),
        }
    }

    /// The settings these flags give, every other setting at its default.
    fn settings(&self) -> Result<Settings> {
        let mut settings = Settings::new(controller_config(&ControllerFlags {
            kube_version: self.kube_version.as_deref(),
            feature_gates: self.feature_gates.as_deref(),
            tolerance: self.tolerance,
            cpu_initialization_period: self.cpu_initialization_period.as_deref(),
            initial_readiness_delay: self.initial_readiness_delay.as_deref(),
            downscale_stabilization: self.downscale_stabilization.as_deref(),
            sync_period: self.sync_period.as_deref(),
        })?);
        if let Some(window) = &self.metrics_window {
            settings.metrics_window = flag_duration("--metrics-window", window)?;
        }
        Ok(settings)
    }
}

/// The node group's flags (the Cluster Autoscaler's), for the Nodes section.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeArgs {
    /// One node's allocatable resources, e.g. cpu=4,memory=16Gi
    pub node_allocatable: Option<String>,
    /// Nodes in the group now
    pub existing_nodes: Option<i64>,
    /// Each DaemonSet pod's requests on every node, e.g. cpu=100m,memory=128Mi
    #[serde(default)]
    pub daemonset_requests: Vec<String>,
    /// The node group's maximum size
    pub node_group_max: Option<i64>,
    /// The Cluster Autoscaler's --max-nodes-total
    pub max_nodes_total: Option<i64>,
    /// One pod's requests, when the inputs do not give them
    pub pod_request: Option<String>,
    /// --scale-down-utilization-threshold (default 0.5)
    pub scale_down_utilization_threshold: Option<f64>,
    /// --scale-down-unneeded-time (default 10m)
    pub scale_down_unneeded_time: Option<String>,
}

impl NodeArgs {
    /// The node settings, each left out at the flag's default.
    fn settings(self) -> NodeSettings {
        let d = NodeSettings::default();
        NodeSettings {
            node_allocatable: self.node_allocatable,
            existing_nodes: self.existing_nodes,
            daemonset_requests: self.daemonset_requests,
            node_group_max: self.node_group_max,
            max_nodes_total: self.max_nodes_total,
            pod_request: self.pod_request,
            scale_down_utilization_threshold: (self.scale_down_utilization_threshold)
                .unwrap_or(d.scale_down_utilization_threshold),
            scale_down_unneeded_time: (self.scale_down_unneeded_time)
                .unwrap_or(d.scale_down_unneeded_time),
            expander: None,
        }
    }
}

/// `explain_hpa`: one sync of the controller, from the texts a person would paste.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExplainArgs {
    /// The HPA: a manifest (`kubectl get hpa -o yaml|json`, autoscaling/v1, v2 or v2beta1), a
    /// KEDA ScaledObject, `kubectl describe hpa` text or a `kubectl get hpa` table
    pub hpa: String,
    /// The pods under the target's selector: `kubectl get pods -o json|yaml`, or a samples CSV
    /// (pod,ready,cpu,cpu_request,...)
    pub pods: Option<String>,
    /// The pods' usage: the PodMetrics list (`kubectl get --raw
    /// /apis/metrics.k8s.io/v1beta1/namespaces/NS/pods`) or `kubectl top pods` text; needs pods
    pub metrics: Option<String>,
    /// Answers of the custom metrics API (custom.metrics.k8s.io), one text each
    #[serde(default)]
    pub custom_metrics: Vec<String>,
    /// Answers of the external metrics API (external.metrics.k8s.io), one text each
    #[serde(default)]
    pub external_metrics: Vec<String>,
    /// The target's scale subresource (`kubectl get --raw .../deployments/NAME/scale`)
    pub scale: Option<String>,
    /// The scale target object (`kubectl get deploy NAME -o yaml|json`)
    pub target: Option<String>,
    /// The controller's recent recommendations and scale events, as the history CSV
    pub history: Option<String>,
    /// The HPA's events (`kubectl get events -o yaml|json`, the events table, `kubectl events`):
    /// rescales become the controller's memory
    pub events: Option<String>,
    /// `kubectl get nodes -o json`, for the Nodes section
    pub nodes: Option<String>,
    /// Every pod of the cluster (`kubectl get pods -A -o json`), with nodes
    pub all_pods: Option<String>,
    /// -n: the HPA's namespace
    pub namespace: Option<String>,
    /// -l: the target's selector, kubectl syntax
    pub selector: Option<String>,
    /// The HPA to pick when the text holds several
    pub name: Option<String>,
    /// The target's current replica count, when no input gives it
    pub current_replicas: Option<i32>,
    /// The HPA's status.currentReplicas, when no input gives it
    pub status_replicas: Option<i32>,
    /// A metric's current value, NAME=QUANTITY (a KEDA trigger: NAME=failed)
    #[serde(default)]
    pub metric_values: Vec<String>,
    /// KEDA: the failures already recorded for each failing trigger
    pub metric_failures: Option<i32>,
    /// KEDA: how long ago a trigger was last active, e.g. 4m
    pub last_active: Option<String>,
    /// The evaluation time, RFC 3339 (default: from the inputs, else the clock)
    pub now: Option<String>,
    /// The controller's flags
    #[serde(default)]
    pub flags: ControllerArgs,
    /// The node group's flags, for the Nodes section
    #[serde(default)]
    pub node_group: NodeArgs,
    /// What if: every container's request (`cpu=250m`, as `kubectl set resources --requests`
    /// does) or one container's (`app.cpu=250m`); the answer is the sync before and after
    #[serde(default)]
    pub set_request: Vec<String>,
    /// What if spec.minReplicas were this
    pub min: Option<i32>,
    /// What if spec.maxReplicas were this
    pub max: Option<i32>,
    /// What if behavior.scaleUp.tolerance were this (1.33+)
    pub scale_up_tolerance: Option<f64>,
    /// What if behavior.scaleDown.tolerance were this (1.33+)
    pub scale_down_tolerance: Option<f64>,
    /// What if KEY were VALUE, as `--what-if` (set-request=app.cpu=250m, min=3, max=20,
    /// tolerance=0.05, scale-up-tolerance=0.02, kube-version=1.32, ...)
    #[serde(default)]
    pub what_if: Vec<String>,
}

/// One sync's inputs, or, with what-if changes, the inputs before and after them.
pub enum Explained {
    One(Box<Inputs>),
    WhatIf {
        before: Box<Inputs>,
        after: Box<Inputs>,
        what_if: Box<WhatIf>,
    },
}

/// The text of one argument, named by it, within `MAX_TEXT_BYTES`.
pub fn text(name: &str, text: String) -> Result<Text, InputError> {
    if text.len() > MAX_TEXT_BYTES {
        return Err(InputError::new(
            name,
            format!(
                "found {} bytes, expected at most {MAX_TEXT_BYTES} bytes ({} MiB, a tool \
                 argument's limit): select fewer objects (-n, -l) before capturing",
                text.len(),
                MAX_TEXT_BYTES / (1024 * 1024)
            ),
        ));
    }
    Ok(Text::new(name, text))
}

/// An optional text argument, bounded.
fn optional(name: &str, given: Option<String>) -> Result<Option<Text>, InputError> {
    given.map(|t| text(name, t)).transpose()
}

/// A list of texts, each named by its place (`custom_metrics[1]`), bounded.
fn each(name: &str, given: Vec<String>) -> Result<Vec<Text>, InputError> {
    (given.into_iter().enumerate())
        .map(|(i, t)| text(&format!("{name}[{i}]"), t))
        .collect()
}

impl ExplainArgs {
    /// The settings these arguments give, validated as the command line's are.
    fn settings(&mut self) -> Result<Settings> {
        let mut settings = self.flags.settings()?;
        settings.now = self
            .now
            .as_deref()
            .map(|t| flag_time("--now", t))
            .transpose()?;
        settings.namespace = self.namespace.take();
        settings.selector = self.selector.take();
        settings.name = self.name.take();
        settings.current_replicas = self.current_replicas;
        settings.status_replicas = self.status_replicas;
        settings.metric_values = std::mem::take(&mut self.metric_values);
        settings.metric_failures = self.metric_failures;
        settings.last_active = self.last_active.take();
        settings.nodes = std::mem::take(&mut self.node_group).settings();
        Ok(settings)
    }

    /// The what-if changes: the flags' (`set_request`, `min`, ...), then the `what_if` items
    /// over them, as the command line takes `--set-request` and `--what-if`.
    fn what_if(&mut self) -> Result<WhatIf> {
        let flags = WhatIf {
            set_request: std::mem::take(&mut self.set_request),
            min: self.min.take(),
            max: self.max.take(),
            scale_up_tolerance: self.scale_up_tolerance.take(),
            scale_down_tolerance: self.scale_down_tolerance.take(),
            ..WhatIf::default()
        };
        Ok(flags.then(&WhatIf::parse(&std::mem::take(&mut self.what_if))?))
    }

    /// One sync's inputs, or the inputs before and after the what-if changes: after them, the
    /// controller flags the changes name win over `flags` (`Settings::from_cli_with`).
    pub fn explained(mut self) -> Result<Explained> {
        let what_if = self.what_if()?;
        if what_if.is_empty() {
            return Ok(Explained::One(Box::new(self.inputs()?)));
        }
        let changed = self.flags.with(&what_if).settings()?;
        let before = self.inputs()?;
        let mut after = before.clone();
        after.settings.controller = changed.controller;
        after.settings.metrics_window = changed.metrics_window;
        Ok(Explained::WhatIf {
            before: Box::new(before),
            after: Box::new(after),
            what_if: Box::new(what_if),
        })
    }

    /// The `Inputs` of one sync: the command line's, with texts instead of files.
    pub fn inputs(mut self) -> Result<Inputs> {
        if self.metrics.is_some() && self.pods.is_none() {
            bail!(UsageError(
                "metrics needs pods: the controller reads each pod's readiness and requests"
                    .to_string()
            ));
        }
        if self.all_pods.is_some() && self.nodes.is_none() {
            bail!(UsageError("all_pods needs nodes".to_string()));
        }
        let settings = self.settings()?;
        let mut inputs = Inputs::of_hpa(text("hpa", self.hpa)?, settings);
        inputs.pods = optional("pods", self.pods)?.map(Given::Text);
        inputs.metrics = optional("metrics", self.metrics)?.map(Given::Text);
        inputs.custom_metrics = each("custom_metrics", self.custom_metrics)?;
        inputs.external_metrics = each("external_metrics", self.external_metrics)?;
        inputs.scale = optional("scale", self.scale)?;
        inputs.target = optional("target", self.target)?.map(Given::Text);
        inputs.history = optional("history", self.history)?;
        inputs.events = optional("events", self.events)?;
        inputs.nodes = optional("nodes", self.nodes)?;
        inputs.all_pods = optional("all_pods", self.all_pods)?;
        Ok(inputs)
    }
}

/// `print_hpa`: the HPA hpacalc uses.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PrintHpaArgs {
    /// The HPA: a manifest (autoscaling/v1, v2 or v2beta1), a KEDA ScaledObject, `kubectl
    /// describe hpa` text or a `kubectl get hpa` table
    pub hpa: String,
    /// -n: the HPA's namespace
    pub namespace: Option<String>,
    /// -l: the target's selector, kubectl syntax
    pub selector: Option<String>,
    /// The HPA to pick when the text holds several
    pub name: Option<String>,
    /// The controller's flags
    #[serde(default)]
    pub flags: ControllerArgs,
}

impl PrintHpaArgs {
    /// The HPA's text and the settings that scope it, as `--print-hpa` reads them.
    pub fn inputs(self) -> Result<(Text, Settings)> {
        let mut settings = self.flags.settings()?;
        settings.namespace = self.namespace;
        settings.selector = self.selector;
        settings.name = self.name;
        Ok((text("hpa", self.hpa)?, settings))
    }
}

/// `explain_live_hpa`: one sync of an HPA read from the cluster.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LiveArgs {
    /// The HPA's name
    pub name: String,
    /// Its namespace (default: the kubeconfig context's)
    pub namespace: Option<String>,
    /// The kubeconfig context (default: its current-context)
    pub context: Option<String>,
    /// The controller's flags; without kube_version, the API server's release's rules apply
    #[serde(default)]
    pub flags: ControllerArgs,
}

impl LiveArgs {
    /// The offline command's settings: live mode reads the rest from the cluster.
    pub fn settings(&self) -> Result<Settings> {
        self.flags.settings()
    }
}

/// `simulate`: the controller over time.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SimulateArgs {
    /// A built-in scenario by name; the flags given win over its own
    pub scenario: Option<String>,
    /// The HPA manifest (or KEDA ScaledObject), when no scenario is named
    pub hpa: Option<String>,
    /// The load curve: a load CSV (time and one column a metric) or a saved Prometheus
    /// query_range answer
    pub load: Option<String>,
    /// The replicas the cluster really had, a saved Prometheus query_range answer, to compare
    pub actual: Option<String>,
    /// Which series of a Prometheus answer is which metric: METRIC=INDEX or
    /// METRIC={LABEL="VALUE",...}
    #[serde(default)]
    pub load_map: Vec<String>,
    /// The simulate flags, each named as `hpacalc simulate --FLAG` with `_` for `-` (duration,
    /// replicas, pod_request, pod_startup, node_startup, tolerance, rollout, ...)
    #[serde(default)]
    pub flags: SimSettings,
}

impl SimulateArgs {
    /// The simulation's inputs: a built-in scenario with the flags over its settings, or the
    /// texts given.
    pub fn inputs(self) -> Result<simulation::Inputs> {
        let replay = ReplaySettings {
            load_map: self.load_map,
            ..ReplaySettings::default()
        };
        if let Some(name) = &self.scenario {
            if self.hpa.is_some() || self.load.is_some() {
                bail!(UsageError(
                    "scenario gives its own hpa and load: name a scenario, or give hpa and load"
                        .to_string()
                ));
            }
            return Ok(simulation::Inputs::builtin(name, self.flags, replay)?);
        }
        let Some(hpa) = self.hpa else {
            bail!(UsageError(
                "simulate needs hpa and load, or a scenario".to_string()
            ));
        };
        Ok(simulation::Inputs {
            hpa: text("hpa", hpa)?,
            load: optional("load", self.load)?,
            actual: optional("actual", self.actual)?,
            settings: self.flags,
            replay,
            label: None,
            load_set: Vec::new(),
        })
    }
}

/// `compare`: configurations run on the same load, as `hpacalc simulate --compare`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompareArgs {
    /// A built-in scenario by name, the base (its HPA and load); the flags given win over its
    /// own
    pub scenario: Option<String>,
    /// The base HPA manifest (or KEDA ScaledObject), when no scenario is named
    pub hpa: Option<String>,
    /// The other HPA manifests, each run on the base's load and flags (`--compare FILE`)
    pub compare: Vec<String>,
    /// Each other configuration's what-if changes, KEY=VALUE as `--what-if` after its
    /// `--compare` (set-request=app.cpu=250m, tolerance=0.05, max=20, ...): what_if[i] changes
    /// compare[i]
    #[serde(default)]
    pub what_if: Vec<Vec<String>>,
    /// The load curve: a load CSV (time and one column a metric) or a saved Prometheus
    /// query_range answer
    pub load: Option<String>,
    /// The replicas the cluster really had, a saved Prometheus query_range answer, to compare
    pub actual: Option<String>,
    /// Which series of a Prometheus answer is which metric: METRIC=INDEX or
    /// METRIC={LABEL="VALUE",...}
    #[serde(default)]
    pub load_map: Vec<String>,
    /// The simulate flags of every configuration, each named as `hpacalc simulate --FLAG` with
    /// `_` for `-`
    #[serde(default)]
    pub flags: SimSettings,
}

impl CompareArgs {
    /// The configurations, the base first, each named by its argument (`hpa`, `compare[0]`)
    /// and its what-ifs, as the command names each by its file.
    pub fn configurations(self) -> Result<Vec<(String, simulation::Inputs)>> {
        if self.compare.is_empty() {
            bail!(UsageError(
                "compare needs at least one other HPA in compare".to_string()
            ));
        }
        if self.what_if.len() > self.compare.len() {
            bail!(UsageError(format!(
                "arguments: what_if[{}] changes compare[{0}], which is not given",
                self.compare.len()
            )));
        }
        let base_name = match &self.scenario {
            Some(name) => format!("scenario {name}"),
            None => "hpa".to_string(),
        };
        let base = SimulateArgs {
            scenario: self.scenario,
            hpa: self.hpa,
            load: self.load,
            actual: self.actual,
            load_map: self.load_map,
            flags: self.flags,
        }
        .inputs()?;
        let mut configs = vec![(base_name, base.clone())];
        let mut what_if = self.what_if.into_iter();
        for (i, t) in self.compare.into_iter().enumerate() {
            let name = format!("compare[{i}]");
            let items = what_if.next().unwrap_or_default();
            let hpa = text(&name, t)?;
            configs.push(crate::work::compare::configuration(
                name, &base, hpa, &items,
            )?);
        }
        Ok(configs)
    }
}

/// `diff`: two sides of HPA manifests, matched by namespace/name, as `hpacalc diff OLD NEW`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffArgs {
    /// The manifests before the change, one text each (each may hold several documents or a
    /// List): HPAs and their targets, as `hpacalc diff` reads OLD's files
    pub old: Vec<String>,
    /// The manifests after the change
    pub new: Vec<String>,
    /// What makes a changed HPA worse: unserved-load, flapping, scale-events, pod-hours>N%,
    /// time-above-target>N% (needs load); a rule broken is reported in `worse`, not an error
    #[serde(default)]
    pub fail_on: Vec<String>,
    /// Run both sides of each changed HPA on this load: a load CSV or a saved Prometheus answer
    pub load: Option<String>,
    /// The series a metric reads in a Prometheus answer: METRIC=INDEX or
    /// METRIC={LABEL="VALUE",...}
    #[serde(default)]
    pub load_map: Vec<String>,
    /// The replicas the cluster had, a saved query_range answer (the runs start there); needs
    /// load
    pub actual: Option<String>,
    /// Each pod's request in the runs (default: the target's pod template beside the HPA)
    pub pod_request: Option<String>,
    /// Ready pods at the start of the runs
    pub replicas: Option<i32>,
    /// How long to run, e.g. 30m
    pub duration: Option<String>,
    /// Evaluate one sync of both sides on these pods (`kubectl get pods -o json`, or samples
    /// CSV)
    pub pods: Option<String>,
    /// The pods' usage for that sync (PodMetricsList or `kubectl top pods`); needs pods
    pub metrics: Option<String>,
    /// The evaluation time of that sync, RFC 3339; needs pods
    pub now: Option<String>,
    /// The controller's flags
    #[serde(default)]
    pub flags: FleetArgs,
}

impl DiffArgs {
    /// The diff's inputs: the command's, with each text named by its argument (`old[0]`).
    pub fn inputs(self) -> Result<DiffInputs> {
        let needs = |given: &[(&str, bool)], needed: &str, present: bool| -> Result<()> {
            match given.iter().find(|(_, set)| *set && !present) {
                Some((name, _)) => bail!(UsageError(format!("arguments: {name} needs {needed}"))),
                None => Ok(()),
            }
        };
        let on_load = [
            ("actual", self.actual.is_some()),
            ("pod_request", self.pod_request.is_some()),
            ("replicas", self.replicas.is_some()),
            ("duration", self.duration.is_some()),
        ];
        needs(&on_load, "load", self.load.is_some())?;
        let on_pods = [
            ("metrics", self.metrics.is_some()),
            ("now", self.now.is_some()),
        ];
        needs(&on_pods, "pods", self.pods.is_some())?;
        let f = self.flags;
        let d = FleetControllerFlags {
            sync_period: f.sync_period.unwrap_or_else(|| "15s".to_string()),
            tolerance: f.tolerance.unwrap_or(0.1),
            kube_version: f.kube_version.unwrap_or_else(|| "1.37".to_string()),
            feature_gates: f.feature_gates,
        };
        Ok(DiffInputs {
            old: each("old", self.old)?,
            new: each("new", self.new)?,
            fail_on: self.fail_on,
            load: optional("load", self.load)?,
            load_map: self.load_map,
            actual: optional("actual", self.actual)?,
            pod_request: self.pod_request,
            replicas: self.replicas,
            duration: self.duration,
            pods: optional("pods", self.pods)?,
            metrics: optional("metrics", self.metrics)?,
            now: self.now,
            controller: d,
            bounds: crate::work::bounds::Bounds::default(),
        })
    }
}

/// The controller's flags an audit takes (`hpacalc audit`'s).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FleetArgs {
    /// --horizontal-pod-autoscaler-tolerance (default 0.1)
    pub tolerance: Option<f64>,
    /// --horizontal-pod-autoscaler-sync-period (default 15s)
    pub sync_period: Option<String>,
    /// The Kubernetes release whose controller rules apply, 1.27 to 1.37 (default 1.37)
    pub kube_version: Option<String>,
    /// Feature gates over the release's defaults: NAME=true|false,...
    pub feature_gates: Option<String>,
}

/// `audit`: every HPA of a cluster dump, and the findings across them.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuditArgs {
    /// A cluster dump: `kubectl get hpa,deploy,sts,rs,pods,pdb -A -o json|yaml` (a List or
    /// single objects; VPAs and ScaledObjects are used when present)
    pub dump: Option<String>,
    /// The PodMetrics list of the same pods (`kubectl get --raw
    /// /apis/metrics.k8s.io/v1beta1/pods`)
    pub metrics: Option<String>,
    /// The HPAs' events (`kubectl get events -A -o json`)
    pub events: Option<String>,
    /// Answers of the custom metrics API, one text each, given to every HPA
    #[serde(default)]
    pub custom_metrics: Vec<String>,
    /// Answers of the external metrics API, one text each, given to every HPA
    #[serde(default)]
    pub external_metrics: Vec<String>,
    /// The evaluation time, RFC 3339 (default: the newest time the dump carries)
    pub now: Option<String>,
    /// The node group's maximum size (the Cluster Autoscaler's --nodes)
    pub node_group_max: Option<i64>,
    /// The controller's flags
    #[serde(default)]
    pub flags: FleetArgs,
    /// Read this namespace of the cluster through the kubeconfig (besides any dump given)
    pub namespace: Option<String>,
    /// The kubeconfig context of namespace (default: its current-context)
    pub context: Option<String>,
}

/// The arguments of `audit` that read the cluster: left out of its schema without
/// `--allow-live`, and refused.
pub const LIVE_AUDIT_ARGS: [&str; 2] = ["namespace", "context"];

impl AuditArgs {
    /// What every HPA's sync is given besides its share of the dump: the controller flags, the
    /// time, the metrics APIs' answers.
    pub fn common(&mut self) -> Result<Common> {
        Ok(Common {
            settings: self.settings()?,
            custom_metrics: each("custom_metrics", std::mem::take(&mut self.custom_metrics))?,
            external_metrics: each(
                "external_metrics",
                std::mem::take(&mut self.external_metrics),
            )?,
        })
    }

    /// The settings of every HPA's sync: the controller flags and the time given.
    fn settings(&self) -> Result<Settings> {
        let f = &self.flags;
        let mut settings = Settings::new(controller_config(&ControllerFlags {
            kube_version: f.kube_version.as_deref(),
            feature_gates: f.feature_gates.as_deref(),
            tolerance: f.tolerance,
            sync_period: f.sync_period.as_deref(),
            ..ControllerFlags::default()
        })?);
        settings.now = self
            .now
            .as_deref()
            .map(|t| flag_time("--now", t))
            .transpose()?;
        Ok(settings)
    }
}
