//! Builders for unit tests of the calculation: small, valid scenarios in a few lines.

use crate::scenario::{
    ConditionStatus, Container, ContainerKind, ContainerMetrics, ControllerConfig, HpaSpec,
    MetricIdentifier, MetricSpec, MetricTarget, MetricValues, ObjectReference, Pod, PodMetrics,
    PodPhase, ReadyCondition, Resources, Scenario, Source, TargetType,
};
use crate::time::{Duration, Timestamp};
use crate::version;

pub const NOW: Timestamp = Timestamp(1_800_000_000_000);

pub fn cpu_utilization(target: i32) -> MetricSpec {
    MetricSpec::Resource {
        resource: "cpu".into(),
        container: None,
        target: MetricTarget {
            target_type: TargetType::Utilization,
            average_utilization: Some(target),
            average_value_milli: None,
            value_milli: None,
        },
    }
}

pub fn external(name: &str, value: Option<i64>, average: Option<i64>) -> MetricSpec {
    MetricSpec::External {
        metric: MetricIdentifier {
            name: name.into(),
            selector: None,
        },
        target: MetricTarget {
            target_type: if average.is_some() {
                TargetType::AverageValue
            } else {
                TargetType::Value
            },
            average_utilization: None,
            average_value_milli: average,
            value_milli: value,
        },
    }
}

/// A Running, Ready pod started long ago with one app container requesting `cpu_request`.
pub fn pod(name: &str, cpu_request: i64) -> Pod {
    Pod {
        name: name.into(),
        phase: PodPhase::Running,
        deleting: false,
        start_time: Some(Timestamp::GO_ZERO),
        ready: Some(ReadyCondition {
            status: ConditionStatus::True,
            last_transition_time: Timestamp::GO_ZERO,
        }),
        containers: vec![Container {
            name: "app".into(),
            kind: ContainerKind::App,
            requests: Resources(vec![("cpu".into(), cpu_request)]),
        }],
        pod_requests: None,
        overhead: None,
        placement: Default::default(),
    }
}

pub fn cpu_sample(pod: &str, cpu: i64) -> PodMetrics {
    PodMetrics {
        pod: pod.into(),
        timestamp: NOW,
        window: Duration::from_secs(15),
        containers: vec![ContainerMetrics {
            name: "app".into(),
            usage: Resources(vec![("cpu".into(), cpu)]),
        }],
    }
}

/// `n` pods requesting 1 cpu, each using `usage` millicores.
pub fn scenario(metrics: Vec<MetricSpec>, n: usize, usage: i64) -> Scenario {
    let pods: Vec<Pod> = (0..n).map(|i| pod(&format!("p{i}"), 1000)).collect();
    let resource = pods.iter().map(|p| cpu_sample(&p.name, usage)).collect();
    Scenario {
        hpa: HpaSpec {
            name: "web".into(),
            namespace: "default".into(),
            target: ObjectReference {
                api_version: "apps/v1".into(),
                kind: "Deployment".into(),
                name: "web".into(),
            },
            min_replicas: 1,
            max_replicas: 100,
            metrics,
            behavior: None,
        },
        current_replicas: i32::try_from(n).unwrap_or(i32::MAX),
        current_replicas_source: Source::Flag,
        status_replicas: i32::try_from(n).unwrap_or(i32::MAX),
        scale_error: None,
        scaled_to_zero: false,
        status_conditions: Vec::new(),
        pods: pods.into(),
        metrics: MetricValues {
            resource,
            ..MetricValues::default()
        },
        config: ControllerConfig::default(),
        memory: None,
        now: NOW,
        input_notes: Vec::new(),
        warnings: Vec::new(),
        input_diagnostics: Vec::new(),
        nodes: None,
        node_groups: None,
        karpenter: None,
        approximation: false,
        observed_status: None,
        keda: None,
        sources: Vec::new(),
        bounded: Vec::new(),
        earliest_now: None,
        unnamed_resources: Vec::new(),
    }
}

/// The same scenario under another release's rules and gate defaults.
pub fn at_version(mut s: Scenario, minor: u32) -> Scenario {
    s.config.kube_minor = minor;
    s.config.features = version::default_gates(minor);
    s
}

/// A controller memory holding one recommendation of `replicas`, made `secs_ago` before `NOW`.
pub fn recommended(replicas: i32, secs_ago: i64) -> crate::scenario::ControllerMemory {
    crate::scenario::ControllerMemory {
        recommendations: vec![crate::scenario::Recommendation {
            replicas,
            timestamp: NOW.sub(Duration::from_secs(secs_ago)),
        }],
        ..crate::scenario::ControllerMemory::default()
    }
}

/// The simulation `hpacalc simulate --hpa web.yaml --load L --replicas N --pod-request cpu=500m`
/// sets up: `web` (cpu Utilization 50 %, 2 to 10 replicas, no behavior) under a cpu load of
/// `(seconds, total millicores)` steps, with every default of the command, run until the last
/// step + 15 minutes.
pub fn simulation(load: &[(i64, i64)], replicas: i32) -> crate::scenario::simulation::Setup {
    use crate::calc::simulate::START;
    use crate::scenario::simulation::{LoadColumn, LoadCurve, LoadStep, Setup, Timing};
    let mut scenario = scenario(vec![cpu_utilization(50)], 0, 0);
    scenario.hpa.namespace = "shop".into();
    (scenario.hpa.min_replicas, scenario.hpa.max_replicas) = (2, 10);
    scenario.current_replicas = replicas;
    scenario.current_replicas_source = Source::Simulation;
    scenario.status_replicas = replicas;
    scenario.metrics = MetricValues::default();
    scenario.now = START;
    let steps: Vec<LoadStep> = (load.iter())
        .map(|&(secs, cpu)| LoadStep::answering(Duration::from_secs(secs), vec![cpu]))
        .collect();
    let last = steps.last().map_or(Duration::ZERO, |s| s.at);
    Setup {
        scenario,
        load: LoadCurve {
            columns: vec![LoadColumn {
                name: "cpu".into(),
                resource: Some("cpu".into()),
            }],
            steps,
            metric_columns: vec![0],
        },
        start_replicas: replicas,
        pod_request: Resources(vec![("cpu".into(), 500)]),
        container: "app".into(),
        timing: Timing {
            sync_period: Duration::from_secs(15),
            pod_startup: Duration::from_secs(15),
            pod_termination: Duration::ZERO,
            node_startup: Duration::from_secs(180),
            ca_scan_interval: Duration::from_secs(10),
            scale_down_delay_after_add: Duration::from_secs(600),
            metrics_window: Duration::from_secs(15),
        },
        nodes: None,
        duration: Duration(last.millis() + 900_000),
        label: None,
        replay: None,
        actual: None,
        pod_limit: Resources::default(),
        rollout: None,
        startup_cpu: None,
    }
}

/// `simulation` on a node group: `--node-allocatable cpu=2,pods=110 --daemonset-requests
/// cpu=100m --existing-nodes N` (group minimum 0, no maximum, the Cluster Autoscaler's defaults).
pub fn on_nodes(
    mut setup: crate::scenario::simulation::Setup,
    existing: i64,
) -> crate::scenario::simulation::Setup {
    use crate::scenario::{Capacity, Existing, NodeInput};
    setup.nodes = Some(crate::scenario::simulation::NodeGroup {
        input: NodeInput {
            template: Capacity {
                resources: Resources(vec![("cpu".into(), 2000)]),
                pods: 110,
            },
            daemonsets: Capacity {
                resources: Resources(vec![("cpu".into(), 100)]),
                pods: 1,
            },
            existing: Existing::Template(Some(existing)),
            pod_request: setup.pod_request.clone(),
            pod_request_source: "--pod-request".into(),
            node_group_max: None,
            max_nodes_total: None,
            scale_down_utilization_threshold: 0.5,
            scale_down_unneeded_time: Duration::from_secs(600),
        },
        min: 0,
        groups: None,
        karpenter: None,
    });
    setup
}

/// KEDA's external metric name of the `orders` kafka trigger of [`kafka_scaled_object`].
pub const KAFKA_METRIC: &str = "s0-kafka-orders";

/// A ScaledObject `orders` with one kafka trigger (`lagThreshold` `threshold`, activation 5),
/// AverageValue or Value, serving `value`; min 0, max 10, no status.
pub fn kafka_scaled_object(
    threshold: i64,
    value_type: bool,
    value: crate::scenario::keda::TriggerValue,
) -> crate::scenario::keda::KedaInput {
    use crate::scenario::keda::{ExternalTarget, KedaInput, Trigger};
    KedaInput {
        name: "orders".into(),
        min_replica_count: Some(0),
        max_replica_count: 10,
        idle_replica_count: None,
        cooldown: Duration::from_secs(300),
        initial_cooldown: Duration::ZERO,
        polling_interval: Duration::from_secs(30),
        last_active: None,
        created: None,
        last_active_assumed: true,
        triggers: vec![Trigger {
            index: 0,
            scaler: "kafka".into(),
            name: "orders".into(),
            metric_name: Some(KAFKA_METRIC.into()),
            activation: 5.0,
            activation_source: "activationLagThreshold".into(),
            target: Some(ExternalTarget {
                milli: threshold * 1000,
                value_type,
            }),
            value,
            active_value: None,
            failures: 0,
            threshold_key: Some("lagThreshold".into()),
            threshold_integer: true,
        }],
        fallback: None,
        modifiers: None,
        paused: None,
        pause_scale_in: false,
        pause_scale_out: false,
        force_activation: false,
        status: None,
    }
}
