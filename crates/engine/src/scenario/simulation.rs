//! The validated inputs of one simulation run: the HPA's `Scenario` and what happens around it
//! over time (the load curve, the timing of pods and nodes, the node group, a rolling update, the
//! replicas the cluster really had).
//!
//! `input::simulation` builds a `Setup`; `calc::simulate` runs it and trusts it. What a run
//! changes (its pods, nodes and ReplicaSets) and what it produces (`calc::simulate::Simulation`)
//! are the calculation's.

use schemars::JsonSchema;
use serde::Serialize;

use crate::scenario::{NodeInput, Resources, Scenario};
use crate::time::Duration;

/// Timing parameters. All durations are whole seconds (the input checks it).
#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    pub sync_period: Duration,
    /// From binding to Ready.
    pub pod_startup: Duration,
    /// From the deletion to the pod's disappearance; it holds its node room meanwhile.
    pub pod_termination: Duration,
    /// From the Cluster Autoscaler's request to the node being Ready.
    pub node_startup: Duration,
    pub ca_scan_interval: Duration,
    pub scale_down_delay_after_add: Duration,
    /// The window of each resource metric sample (metrics-server's resolution).
    pub metrics_window: Duration,
}

/// The node group and the Cluster Autoscaler's settings for it.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeGroup {
    pub input: NodeInput,
    /// The node group's minimum size: scale-down never goes below it.
    pub min: i64,
    /// `--node-groups`: several groups, one of which the expander chain picks in each loop
    /// (`input` then holds what they share: DaemonSets, the pod request, the scale-down
    /// settings; each group keeps its own minimum and maximum).
    pub groups: Option<crate::scenario::node_groups::NodeGroupsInput>,
    /// `--nodepool`: Karpenter provisions the nodes instead of the Cluster Autoscaler (`input`
    /// then holds the DaemonSets and the pod request only; the Cluster Autoscaler's loop does
    /// not run).
    pub karpenter: Option<crate::scenario::karpenter::KarpenterInput>,
}

/// One step of the load curve: from `at` on, each column's total (milli-units).
#[derive(Debug, Clone, PartialEq)]
pub struct LoadStep {
    pub at: Duration,
    pub values: Vec<i64>,
    /// The columns whose source fails from `at` on (a `failed` cell of an External metric: the
    /// metrics API, or a KEDA trigger's scaler, answers an error); their `values` keep the last
    /// total. Usually empty.
    pub failed: Vec<usize>,
}

impl LoadStep {
    /// A step where every column answers.
    pub fn answering(at: Duration, values: Vec<i64>) -> LoadStep {
        LoadStep {
            at,
            values,
            failed: Vec::new(),
        }
    }
}

/// The load: a step function, one column per metric.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadCurve {
    pub columns: Vec<LoadColumn>,
    /// Sorted by `at`; the first at 0.
    pub steps: Vec<LoadStep>,
    /// For each metric of the HPA, in order, the column holding its load.
    pub metric_columns: Vec<usize>,
}

impl LoadCurve {
    /// The column of the HPA's first metric: the load a person turns up or down.
    fn driving_column(&self) -> usize {
        self.metric_columns.first().copied().unwrap_or(0)
    }

    /// The first metric's total at `at` (milli-units).
    pub fn driving_value_at(&self, at: Duration) -> i64 {
        let column = self.driving_column();
        self.steps
            .iter()
            .take_while(|s| s.at <= at)
            .last()
            .and_then(|s| s.values.get(column).copied())
            .unwrap_or(0)
    }

    /// From `at` on, the first metric's total is `milli` and every other column keeps its value
    /// at `at`: the curve's later steps are dropped, since the person now drives the load.
    pub fn set_from(&mut self, at: Duration, milli: i64) {
        let column = self.driving_column();
        let Some(mut step) = self.steps.iter().take_while(|s| s.at <= at).last().cloned() else {
            return;
        };
        self.steps.retain(|s| s.at < at);
        if let Some(v) = step.values.get_mut(column) {
            *v = milli;
        }
        step.failed.retain(|&c| c != column);
        step.at = at;
        self.steps.push(step);
    }
}

#[cfg(test)]
mod load_tests {
    use super::*;

    #[test]
    fn a_set_load_holds_from_its_instant_and_drops_the_later_steps() {
        let step = |at: i64, values: Vec<i64>| LoadStep::answering(Duration::from_secs(at), values);
        let mut curve = LoadCurve {
            columns: Vec::new(),
            steps: vec![
                step(0, vec![7, 1000]),
                step(120, vec![8, 1100]),
                step(300, vec![9, 1200]),
            ],
            metric_columns: vec![1],
        };
        assert_eq!(curve.driving_value_at(Duration::from_secs(119)), 1000);
        assert_eq!(curve.driving_value_at(Duration::from_secs(120)), 1100);
        curve.set_from(Duration::from_secs(61), 2000);
        assert_eq!(
            curve.steps,
            [step(0, vec![7, 1000]), step(61, vec![7, 2000])]
        );
        curve.set_from(Duration::from_secs(61), 500);
        assert_eq!(
            curve.steps,
            [step(0, vec![7, 1000]), step(61, vec![7, 500])]
        );
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoadColumn {
    pub name: String,
    /// The resource name for a Resource metric's column (formats `2400m`, `1Gi`), else null.
    pub resource: Option<String>,
}

/// Everything a run needs, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct Setup {
    /// The HPA and the controller settings; its pods and metric values are replaced.
    pub scenario: Scenario,
    pub load: LoadCurve,
    /// Ready pods at the start.
    pub start_replicas: i32,
    /// Each pod's request (one container).
    pub pod_request: Resources,
    /// The container's name (a ContainerResource metric's container, else `app`).
    pub container: String,
    pub timing: Timing,
    pub nodes: Option<NodeGroup>,
    /// Syncs run at 0, one sync period, ... up to and including this.
    pub duration: Duration,
    pub label: Option<ScenarioLabel>,
    /// Where a replayed load came from; `None` for a load CSV or a scenario.
    pub replay: Option<Replay>,
    /// The replicas the cluster really had (`--actual`).
    pub actual: Option<ActualCurve>,
    /// `--pod-limit`, or the target's pod template: each pod's limits; a pod uses no more
    /// (empty: no limits).
    pub pod_limit: Resources,
    /// `--rollout`: a rolling update of the target's pods.
    pub rollout: Option<Rollout>,
    /// `--startup-cpu`: the CPU burst of a new pod.
    pub startup_cpu: Option<StartupBurst>,
}

impl Setup {
    /// How many syncs a run has: at 0, every sync period, up to and including the duration.
    pub fn sync_count(&self) -> usize {
        let period = self.timing.sync_period.millis().max(1000);
        usize::try_from(self.duration.millis().max(0) / period + 1).unwrap_or(usize::MAX)
    }

    /// The run's work in pod-syncs, an upper bound a front end weighs before it starts a run:
    /// every sync looks at each pod (the replica calculator) and each node (the scheduler and
    /// the Cluster Autoscaler), so the work is the syncs times the most pods (the starting
    /// replicas or `maxReplicas`) plus the nodes the run starts with (each node it adds holds a
    /// pod, so the pods bound those).
    pub fn work(&self) -> u64 {
        let pods = self
            .start_replicas
            .max(self.scenario.hpa.max_replicas)
            .max(1);
        let nodes = self.nodes.as_ref().map_or(0, |g| match &g.input.existing {
            crate::scenario::Existing::Template(n) => n.unwrap_or(0),
            crate::scenario::Existing::Nodes(list) => i64::try_from(list.len()).unwrap_or(i64::MAX),
        });
        let per_sync =
            u64::try_from(i64::from(pods).saturating_add(nodes.max(0))).unwrap_or(u64::MAX);
        u64::try_from(self.sync_count())
            .unwrap_or(u64::MAX)
            .saturating_mul(per_sync)
    }
}

/// `--startup-cpu 2x:45s`: for `duration` after it starts, a pod uses `factor_milli / 1000`
/// times its share of the load in CPU (warm-up work that serves nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StartupBurst {
    pub factor_milli: i64,
    pub duration: Duration,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScenarioLabel {
    pub name: String,
    /// What to notice.
    pub notice: String,
}

/// `maxSurge` or `maxUnavailable`: a count, or a percent of the Deployment's replicas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntOrPercent {
    Int(i32),
    Percent(i32),
}

impl IntOrPercent {
    // Port of GetScaledValueFromIntOrPercent (apimachinery/pkg/util/intstr/intstr.go): a percent
    // of `total`, rounded up or down (math.Ceil / math.Floor of value * total / 100).
    pub fn scaled(self, total: i32, round_up: bool) -> i32 {
        match self {
            IntOrPercent::Int(n) => n,
            IntOrPercent::Percent(p) => {
                let product = i64::from(p) * i64::from(total);
                let value = if round_up {
                    product.div_euclid(100) + i64::from(product.rem_euclid(100) > 0)
                } else {
                    product.div_euclid(100)
                };
                i32::try_from(value).unwrap_or(i32::MAX)
            }
        }
    }
}

impl std::fmt::Display for IntOrPercent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IntOrPercent::Int(n) => write!(f, "{n}"),
            IntOrPercent::Percent(p) => write!(f, "{p}%"),
        }
    }
}

/// `--rollout AT` with `--max-surge` and `--max-unavailable`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rollout {
    /// Milliseconds from the start.
    pub at: i64,
    pub max_surge: IntOrPercent,
    pub max_unavailable: IntOrPercent,
    /// The Deployment's `minReadySeconds`, in ms: a pod is available this long after Ready.
    pub min_ready: i64,
}

/// The replicas the cluster had, as a step function of time.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ActualCurve {
    /// `(milliseconds from the start, replicas)`, sorted by time; times before 0 are allowed.
    pub points: Vec<(i64, i32)>,
}

impl ActualCurve {
    /// The last value at or before `t` (milliseconds); `None` before the first.
    pub fn at(&self, t: i64) -> Option<i32> {
        let i = self.points.partition_point(|&(at, _)| at <= t);
        i.checked_sub(1)
            .and_then(|i| self.points.get(i))
            .map(|&(_, v)| v)
    }
}

/// Where a replay's load came from: time 0 as a date, and the resolution of the data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Replay {
    /// The instant of time 0 (the first sample), RFC 3339.
    pub start: String,
    /// The query's step: the load changes at most this often.
    pub step_seconds: i64,
    /// Samples that were NaN or missing (the previous value held), over all load series.
    pub load_gaps: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_actual_value_at_a_time_is_the_last_one_at_or_before_it() {
        let curve = ActualCurve {
            points: vec![(-5000, 1), (0, 2), (30_000, 4)],
        };
        assert_eq!(curve.at(-6000), None);
        assert_eq!(curve.at(-5000), Some(1));
        assert_eq!(curve.at(29_999), Some(2));
        assert_eq!(curve.at(30_000), Some(4));
        assert_eq!(curve.at(1_000_000), Some(4));
        assert_eq!(ActualCurve::default().at(0), None);
    }
}
