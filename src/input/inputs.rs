//! The one entrance of the input layer: what a front end hands over to be validated into a
//! `Scenario` (`input::build`). Every front end fills the same value: the command line reads
//! the files its flags name (`Inputs::from_cli`, in the command layer), live mode hands over what the API server
//! answered, the audit one HPA's share of a dump. Nothing below this sees clap.

use std::sync::Arc;

use anyhow::Result;

use crate::error::InputError;
use crate::input::kubectl::{metrics::CapturedMetrics, pods::CapturedPods};
use crate::input::read_input;
use crate::input::target::{ScaleUnread, TargetScale};
use crate::scenario::ControllerConfig;
use crate::time::{Duration, Timestamp};
use crate::version;

/// One input text and the name it is shown by: a file's path, `<stdin>`, or where it came from
/// (`the live answer (pods)` of a live capture, `the hpa of shop/web in the dump` of an audit).
#[derive(Debug, Clone, PartialEq)]
pub struct Text {
    pub name: String,
    /// Shared: the audit gives the same custom metrics answer to every HPA.
    pub text: Arc<str>,
}

impl Text {
    pub fn new(name: impl Into<String>, text: impl Into<Arc<str>>) -> Text {
        Text {
            name: name.into(),
            text: text.into(),
        }
    }

    /// Reads a file (`-` is stdin), bounded as every input is.
    pub fn read(path: &std::path::Path) -> Result<Text> {
        let (name, text) = read_input(path)?;
        Ok(Text::new(name, text))
    }
}

/// An input as text, or already read by the reader of its format: live mode reads the pod pages
/// as they arrive, the audit reads the dump's objects once.
#[derive(Debug, Clone, PartialEq)]
pub enum Given<T> {
    Text(Text),
    Read { name: String, value: T },
}

impl<T> Given<T> {
    /// The name the input is shown by.
    pub fn name(&self) -> &str {
        match self {
            Given::Text(t) => &t.name,
            Given::Read { name, .. } => name,
        }
    }
}

/// Everything one sync's scenario is built from.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// A manifest, a ScaledObject, `kubectl describe hpa` text or a `kubectl get hpa` table.
    pub hpa: Text,
    pub pods: Option<Given<CapturedPods>>,
    pub metrics: Option<Given<CapturedMetrics>>,
    pub custom_metrics: Vec<Text>,
    pub external_metrics: Vec<Text>,
    /// The target's scale subresource.
    pub scale: Option<Text>,
    /// The scale could not be read (an audit's target not in the dump, or of a kind without a
    /// scale subresource): the sync stops there (FailedGetScale), no pod, metric or target is
    /// read.
    pub scale_error: Option<ScaleUnread>,
    pub target: Option<Given<TargetScale>>,
    pub history: Option<Text>,
    pub events: Option<Text>,
    /// `kubectl get nodes -o json` and the cluster's pods, for the Nodes section.
    pub nodes: Option<Text>,
    pub all_pods: Option<Text>,
    /// `--node-groups`: several Cluster Autoscaler node groups, instead of one.
    pub node_groups: Option<Text>,
    /// `--nodepool`, `--nodeclass`, `--instance-types`: Karpenter instead of a node group.
    pub karpenter: Option<KarpenterTexts>,
    pub settings: Settings,
    /// Live mode: the API server answered every input but `history` (a file given beside it).
    pub live: Option<LiveSource>,
}

/// The Karpenter inputs as given (`--nodepool`, `--nodeclass`, `--instance-types`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KarpenterTexts {
    pub node_pools: Vec<Text>,
    pub node_class: Option<Text>,
    pub instance_types: Option<Text>,
}

/// The API server a live run read its inputs from, as the report's `sources` name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveSource {
    /// The kubeconfig context.
    pub context: String,
    /// The API server's URL.
    pub server: String,
    /// The evaluation time is the server's clock (its `Date` header), not this machine's.
    pub server_clock: bool,
}

/// What is not a file: the controller's flags, validated, and what the user says of the inputs.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub controller: ControllerConfig,
    /// The window of each usage sample that does not carry one.
    pub metrics_window: Duration,
    /// The evaluation time; `None`: from the inputs, else the clock.
    pub now: Option<Timestamp>,
    /// `-n`: the HPA's namespace.
    pub namespace: Option<String>,
    /// `-l`: the target's selector, kubectl syntax.
    pub selector: Option<String>,
    /// The HPA to pick when the input holds several.
    pub name: Option<String>,
    pub current_replicas: Option<i32>,
    pub status_replicas: Option<i32>,
    /// `NAME=QUANTITY` (or a KEDA trigger's `NAME=failed`), as given.
    pub metric_values: Vec<String>,
    /// KEDA: the failures already recorded for each failing trigger.
    pub metric_failures: Option<i32>,
    /// KEDA: how long ago a trigger was last active, as given (`4m`).
    pub last_active: Option<String>,
    pub nodes: NodeSettings,
}

/// The node group's settings, as given: validated with the pods they depend on
/// (`input::nodes::from_settings`).
#[derive(Debug, Clone, PartialEq)]
pub struct NodeSettings {
    pub node_allocatable: Option<String>,
    pub existing_nodes: Option<i64>,
    pub daemonset_requests: Vec<String>,
    pub node_group_max: Option<i64>,
    pub max_nodes_total: Option<i64>,
    pub pod_request: Option<String>,
    pub scale_down_utilization_threshold: f64,
    pub scale_down_unneeded_time: String,
    /// `--expander`: the chain, as given (least-waste when `None`).
    pub expander: Option<String>,
}

impl Default for NodeSettings {
    fn default() -> Self {
        NodeSettings {
            node_allocatable: None,
            existing_nodes: None,
            daemonset_requests: Vec::new(),
            node_group_max: None,
            max_nodes_total: None,
            pod_request: None,
            scale_down_utilization_threshold: 0.5,
            scale_down_unneeded_time: "10m".to_string(),
            expander: None,
        }
    }
}

impl Settings {
    /// The settings of a sync with every default: no flag given.
    pub fn new(controller: ControllerConfig) -> Settings {
        Settings {
            controller,
            metrics_window: Duration::from_secs(15),
            now: None,
            namespace: None,
            selector: None,
            name: None,
            current_replicas: None,
            status_replicas: None,
            metric_values: Vec::new(),
            metric_failures: None,
            last_active: None,
            nodes: NodeSettings::default(),
        }
    }
}

/// The controller's flags as given, each `None` when left at kube-controller-manager's default.
#[derive(Debug, Clone, Copy, Default)]
pub struct ControllerFlags<'a> {
    pub kube_version: Option<&'a str>,
    pub feature_gates: Option<&'a str>,
    pub tolerance: Option<f64>,
    pub cpu_initialization_period: Option<&'a str>,
    pub initial_readiness_delay: Option<&'a str>,
    pub downscale_stabilization: Option<&'a str>,
    pub sync_period: Option<&'a str>,
}

/// A duration flag, named in the error.
pub fn flag_duration(flag: &str, text: &str) -> Result<Duration, InputError> {
    Duration::parse(text).map_err(|e| InputError::new(flag, e))
}

/// A time flag (`--now`), RFC 3339, named in the error.
pub fn flag_time(flag: &str, text: &str) -> Result<Timestamp, InputError> {
    Timestamp::parse_rfc3339(text).ok_or_else(|| {
        InputError::new(
            flag,
            format!(
                "found {}, expected an RFC 3339 time such as 2026-11-29T15:04:05Z",
                crate::error::quoted(text)
            ),
        )
    })
}

/// The controller's flags validated into its configuration: the one place they are checked, for
/// one sync, a simulation and an audit alike.
pub fn controller_config(flags: &ControllerFlags<'_>) -> Result<ControllerConfig, InputError> {
    let kube_minor = version::parse_kube_version(flags.kube_version.unwrap_or("1.37"))
        .map_err(|e| InputError::new("--kube-version", e))?;
    let mut features = version::default_gates(kube_minor);
    if let Some(text) = flags.feature_gates {
        version::apply_feature_gates(&mut features, kube_minor, text)
            .map_err(|e| InputError::new("--feature-gates", e))?;
    }
    let duration = |flag: &str, value: Option<&str>, default: &str| {
        flag_duration(flag, value.unwrap_or(default))
    };
    let config = ControllerConfig {
        kube_minor,
        features,
        tolerance: flags.tolerance.unwrap_or(0.1),
        cpu_initialization_period: duration(
            "--cpu-initialization-period",
            flags.cpu_initialization_period,
            "5m",
        )?,
        delay_of_initial_readiness_status: duration(
            "--initial-readiness-delay",
            flags.initial_readiness_delay,
            "30s",
        )?,
        downscale_stabilization_window: duration(
            "--downscale-stabilization",
            flags.downscale_stabilization,
            "5m",
        )?,
        sync_period: duration("--sync-period", flags.sync_period, "15s")?,
        ..ControllerConfig::default()
    };
    if !(config.tolerance.is_finite() && config.tolerance >= 0.0) {
        return Err(InputError::new(
            "--tolerance",
            format!("found {}, expected a ratio of 0 or more", config.tolerance),
        ));
    }
    Ok(config)
}

impl Inputs {
    /// An HPA and settings, nothing else given.
    pub fn of_hpa(hpa: Text, settings: Settings) -> Inputs {
        Inputs {
            hpa,
            pods: None,
            metrics: None,
            custom_metrics: Vec::new(),
            external_metrics: Vec::new(),
            scale: None,
            scale_error: None,
            target: None,
            history: None,
            events: None,
            nodes: None,
            all_pods: None,
            node_groups: None,
            karpenter: None,
            settings,
            live: None,
        }
    }
}

/// The settings of a simulation run, as given; each left `None` takes its default (`--help` names them).
/// An MCP call gives them as an object, each named as its flag (`pod_request` for
/// `--pod-request`).
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SimSettings {
    /// The HPA to pick when the manifest holds several.
    pub name: Option<String>,
    pub replicas: Option<i32>,
    /// When the inputs were captured, RFC 3339: the run starts then (a ScaledObject's
    /// status.lastActiveTime counts from it).
    pub now: Option<String>,
    pub duration: Option<String>,
    pub pod_request: Option<String>,
    pub pod_startup: Option<String>,
    pub pod_termination: Option<String>,
    pub node_startup: Option<String>,
    pub ca_scan_interval: Option<String>,
    pub scale_down_delay_after_add: Option<String>,
    pub sync_period: Option<String>,
    pub tolerance: Option<f64>,
    pub cpu_initialization_period: Option<String>,
    pub initial_readiness_delay: Option<String>,
    pub downscale_stabilization: Option<String>,
    pub kube_version: Option<String>,
    pub feature_gates: Option<String>,
    pub metrics_window: Option<String>,
    pub node_allocatable: Option<String>,
    pub existing_nodes: Option<i64>,
    pub daemonset_requests: Vec<String>,
    pub node_group_min: Option<i64>,
    pub node_group_max: Option<i64>,
    pub max_nodes_total: Option<i64>,
    pub scale_down_utilization_threshold: Option<f64>,
    pub scale_down_unneeded_time: Option<String>,
    pub pod_limit: Option<String>,
    pub rollout: Option<String>,
    pub max_surge: Option<String>,
    pub max_unavailable: Option<String>,
    pub min_ready_seconds: Option<i64>,
    pub startup_cpu: Option<String>,
    /// `--node-groups`: the groups file, read (the command line's only).
    #[serde(skip)]
    #[schemars(skip)]
    pub node_groups: Option<Text>,
    /// `--expander`: the chain of `--node-groups`.
    #[serde(skip)]
    #[schemars(skip)]
    pub expander: Option<String>,
    /// `--nodepool`, `--nodeclass`, `--instance-types`: Karpenter instead of a node group (the
    /// command line's and the page's paste only).
    #[serde(skip)]
    #[schemars(skip)]
    pub karpenter: Option<KarpenterTexts>,
    /// The what-if changes of the HPA and the pods (`--set-request`, `--min`, ...); the
    /// controller ones are the fields above. Not an MCP argument (yet): the command line's only.
    #[serde(skip)]
    #[schemars(skip)]
    pub what_if: crate::input::what_if::WhatIf,
}

impl SimSettings {
    /// These settings with a configuration's `--what-if` changes: each controller flag it sets
    /// wins, its requests and limits come after these.
    pub fn with_what_if(mut self, w: &crate::input::what_if::WhatIf) -> SimSettings {
        fn put<T: Clone>(to: &mut Option<T>, from: &Option<T>) {
            if from.is_some() {
                to.clone_from(from);
            }
        }
        put(&mut self.tolerance, &w.tolerance);
        put(&mut self.sync_period, &w.sync_period);
        put(
            &mut self.cpu_initialization_period,
            &w.cpu_initialization_period,
        );
        put(
            &mut self.initial_readiness_delay,
            &w.initial_readiness_delay,
        );
        put(
            &mut self.downscale_stabilization,
            &w.downscale_stabilization,
        );
        put(&mut self.kube_version, &w.kube_version);
        put(&mut self.feature_gates, &w.feature_gates);
        put(&mut self.metrics_window, &w.metrics_window);
        self.what_if = self.what_if.then(w);
        self
    }

    /// These settings over `base`'s: each one given here wins.
    pub fn over(self, base: SimSettings) -> SimSettings {
        fn pick<T>(user: Option<T>, base: Option<T>) -> Option<T> {
            user.or(base)
        }
        SimSettings {
            name: pick(self.name, base.name),
            replicas: pick(self.replicas, base.replicas),
            duration: pick(self.duration, base.duration),
            pod_request: pick(self.pod_request, base.pod_request),
            pod_startup: pick(self.pod_startup, base.pod_startup),
            pod_termination: pick(self.pod_termination, base.pod_termination),
            node_startup: pick(self.node_startup, base.node_startup),
            ca_scan_interval: pick(self.ca_scan_interval, base.ca_scan_interval),
            scale_down_delay_after_add: pick(
                self.scale_down_delay_after_add,
                base.scale_down_delay_after_add,
            ),
            sync_period: pick(self.sync_period, base.sync_period),
            tolerance: pick(self.tolerance, base.tolerance),
            cpu_initialization_period: pick(
                self.cpu_initialization_period,
                base.cpu_initialization_period,
            ),
            initial_readiness_delay: pick(
                self.initial_readiness_delay,
                base.initial_readiness_delay,
            ),
            downscale_stabilization: pick(
                self.downscale_stabilization,
                base.downscale_stabilization,
            ),
            kube_version: pick(self.kube_version, base.kube_version),
            feature_gates: pick(self.feature_gates, base.feature_gates),
            metrics_window: pick(self.metrics_window, base.metrics_window),
            node_allocatable: pick(self.node_allocatable, base.node_allocatable),
            existing_nodes: pick(self.existing_nodes, base.existing_nodes),
            daemonset_requests: if self.daemonset_requests.is_empty() {
                base.daemonset_requests
            } else {
                self.daemonset_requests
            },
            node_group_min: pick(self.node_group_min, base.node_group_min),
            node_group_max: pick(self.node_group_max, base.node_group_max),
            max_nodes_total: pick(self.max_nodes_total, base.max_nodes_total),
            scale_down_utilization_threshold: pick(
                self.scale_down_utilization_threshold,
                base.scale_down_utilization_threshold,
            ),
            scale_down_unneeded_time: pick(
                self.scale_down_unneeded_time,
                base.scale_down_unneeded_time,
            ),
            pod_limit: pick(self.pod_limit, base.pod_limit),
            what_if: base.what_if.then(&self.what_if),
            node_groups: pick(self.node_groups, base.node_groups),
            expander: pick(self.expander, base.expander),
            karpenter: pick(self.karpenter, base.karpenter),
            rollout: pick(self.rollout, base.rollout),
            max_surge: pick(self.max_surge, base.max_surge),
            max_unavailable: pick(self.max_unavailable, base.max_unavailable),
            min_ready_seconds: pick(self.min_ready_seconds, base.min_ready_seconds),
            startup_cpu: pick(self.startup_cpu, base.startup_cpu),
            now: pick(self.now, base.now),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_controller_flags_default_to_kube_controller_managers() {
        let config = controller_config(&ControllerFlags::default()).unwrap();
        assert_eq!(config, ControllerConfig::default());
    }

    #[test]
    fn each_controller_flag_is_named_in_its_error() {
        let cases: [(ControllerFlags<'_>, &str); 4] = [
            (
                ControllerFlags {
                    kube_version: Some("1.99"),
                    ..ControllerFlags::default()
                },
                "--kube-version",
            ),
            (
                ControllerFlags {
                    tolerance: Some(-0.1),
                    ..ControllerFlags::default()
                },
                "--tolerance",
            ),
            (
                ControllerFlags {
                    sync_period: Some("soon"),
                    ..ControllerFlags::default()
                },
                "--sync-period",
            ),
            (
                ControllerFlags {
                    feature_gates: Some("NoSuchGate=true"),
                    ..ControllerFlags::default()
                },
                "--feature-gates",
            ),
        ];
        for (flags, flag) in cases {
            assert_eq!(controller_config(&flags).unwrap_err().file, flag);
        }
    }
}
