//! What the HPA, the ReplicaSet, the scheduler and the Cluster Autoscaler do over time for a load
//! curve: a deterministic, time-stepped replay of the controller, sync after sync, with pods that
//! take time to start and nodes that take time to boot.
//!
//! No controller rule is implemented twice: every HPA sync updates one `Scenario` in place (pods
//! with phases, Ready conditions and start times; metric samples split from the load) and calls
//! `calc::reconcile::reconcile` with one `ControllerMemory` that lives for the whole run, so the
//! stabilization windows and the rate policies act with the controller's own boundary rules.
//! Fit and the binpacking estimator come from `calc::nodes`. The order of events inside an
//! instant follows the causal chain of the reference (`cluster-autoscaler.md` §8.2): nodes and
//! pods finish what they started, the HPA syncs and the ReplicaSet creates or deletes pods, the
//! scheduler binds Pending pods, then the Cluster Autoscaler scans. Time jumps from event to
//! event (next sync, next scan, next pod or node Ready), so idle seconds cost nothing.

mod actual;
mod cluster;
mod keda;
pub mod result;
pub mod rollout;

use std::collections::BTreeMap;

use crate::calc::metrics::{self, Computed};
use crate::calc::nodes::{self, Slot};
use crate::calc::normalize;
use crate::calc::reconcile::{Branch, Sync, VersionRules, reconcile, tolerances_for_hpa};
use crate::quantity::build_quantity;
use crate::report::Report;
use crate::scenario::simulation::{Rollout, Setup};
use crate::scenario::{
    ConditionStatus, Container, ContainerKind, ContainerMetrics, ControllerMemory, Existing,
    MetricSpec, NodeInput, Pod, PodMetricValue, PodMetrics, PodPhase, ReadyCondition,
    Recommendation, Resources, Scenario, TargetType,
};
use crate::time::{Duration, Timestamp};
use actual::compare;
use cluster::{RankedPod, deletion_key, least_allocated_score};
pub use result::*;

/// The simulation clock's zero as an instant (any instant would do: only differences matter).
pub const START: Timestamp = Timestamp(1_800_000_000_000);
/// The start pods were created, started and Ready this long before the start: past every
/// initialization period.
const LONG_AGO: i64 = 86_400_000;
/// The Cluster Autoscaler skips a scale-up while every unschedulable pod is younger than this
/// (`unschedulablePodWithGpuTimeBuffer`'s non-GPU counterpart in `static_autoscaler.go`).
const NEW_POD_WAIT_MS: i64 = 2_000;
/// `--max-scale-down-parallelism` and `--max-drain-parallelism` defaults.
const MAX_SCALE_DOWN_PARALLELISM: usize = 10;
const MAX_DRAIN_PARALLELISM: usize = 1;
/// The custom metrics API's default window.
const CUSTOM_METRIC_WINDOW: Duration = Duration::from_secs(60);
/// The scheduler retries pods the Cluster Autoscaler evicted at the next tick.
const NEXT_TICK_MS: i64 = 1_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PodState {
    /// Not bound to a node (phase Pending).
    Pending,
    /// Bound, containers starting, Ready=False (phase Running).
    Starting { ready_at: i64 },
    /// Ready=True since that instant.
    Ready { since: i64 },
    /// Deleted (deletionTimestamp set); it keeps its node room until it is gone.
    Terminating { gone_at: i64 },
}

#[derive(Debug, Clone)]
struct SimPod {
    seq: u64,
    created: i64,
    /// The node id; 0 is the unlimited node of a run without node information.
    node: Option<u32>,
    state: PodState,
    /// The scheduler found no room for it at least once.
    waited: bool,
    /// The pod template's revision (its ReplicaSet): 0, then 1 from a rollout on.
    revision: u32,
    /// When it was bound and its containers started.
    started: Option<i64>,
}

impl SimPod {
    fn active(&self) -> bool {
        !matches!(self.state, PodState::Terminating { .. })
    }

    /// Bound to `node` at `t`: phase Running, Ready=False until the startup time has passed
    /// (Ready at once without one). `pod` is this pod as the controller sees it.
    fn bind(&mut self, pod: &mut Pod, node: u32, t: i64, startup: i64) {
        self.node = Some(node);
        self.started = Some(t);
        self.state = PodState::Starting {
            ready_at: t + startup,
        };
        pod.phase = PodPhase::Running;
        pod.start_time = Some(START.add(Duration(t)));
        pod.ready = Some(ReadyCondition {
            status: ConditionStatus::False,
            last_transition_time: START.add(Duration(t)),
        });
        if startup == 0 {
            self.make_ready(pod, t);
        }
    }

    /// Ready=True since `at`, here and in the controller's view `pod`.
    fn make_ready(&mut self, pod: &mut Pod, at: i64) {
        self.state = PodState::Ready { since: at };
        pod.ready = Some(ReadyCondition {
            status: ConditionStatus::True,
            last_transition_time: START.add(Duration(at)),
        });
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NodeState {
    Booting { ready_at: i64 },
    Ready,
}

#[derive(Debug, Clone)]
struct SimNode {
    id: u32,
    slot: Slot,
    state: NodeState,
    unneeded_since: Option<i64>,
}

/// Each metric of the HPA, and where its value comes from in the load.
#[derive(Debug, Clone, Default)]
struct MetricFeeds {
    /// Resource and ContainerResource metrics: resource name → load column (first one wins).
    resources: Vec<(String, usize)>,
    /// Pods metrics: metric name → load column.
    pods: Vec<(String, usize)>,
    object: Vec<(String, usize)>,
    external: Vec<(String, usize)>,
}

/// What the controller decided at one sync, owned (the `Sync` borrows the scenario).
struct Decision {
    desired: i32,
    recommendation: Option<i32>,
    stabilized: Option<i32>,
    reason: Option<String>,
    utilization: Option<f64>,
    in_band: bool,
}

struct Engine<'s> {
    setup: &'s Setup,
    /// Sees each sync's row and can build its full report (`run_observed`).
    observer: Option<&'s mut SyncObserver<'s>>,
    scenario: Scenario,
    memory: ControllerMemory,
    feeds: MetricFeeds,
    /// Aligned with `scenario.pods`.
    pods: Vec<SimPod>,
    nodes: Vec<SimNode>,
    next_seq: u64,
    next_node: u32,
    /// The target's `spec.replicas`.
    replicas: i32,
    load_cursor: usize,
    last_scale_up: Option<i64>,
    /// An extra instant the scheduler must run at (pods recreated after an eviction).
    extra_tick: Option<i64>,
    /// The last "cannot add nodes" note, said once per change.
    ca_note: Option<String>,
    min_size_note: bool,
    rows: Vec<SyncRow>,
    in_band: Vec<bool>,
    events: Vec<Event>,
    totals: Totals,
    /// A KEDA ScaledObject's poll, before the HPA's syncs (`keda.rs`).
    keda: Option<keda::Poll>,
    /// The current pod template's revision: new pods get it.
    revision: u32,
    /// The two ReplicaSets while a rollout is in progress.
    sets: Option<rollout::Sets>,
}

#[derive(Debug, Clone, Copy, Default)]
struct Totals {
    pod_ms: i64,
    ready_ms: i64,
    pending_ms: i64,
    node_ms: i64,
    max_pending: i64,
    peak_nodes: i64,
}

fn secs(ms: i64) -> i64 {
    ms.div_euclid(1000)
}

fn milli_to_f64(milli: i64) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let v = milli as f64 / 1000.0;
    v
}

fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// `m:ss`, or `h:mm:ss` from an hour on.
pub fn clock(seconds: i64) -> String {
    let sign = if seconds < 0 { "-" } else { "" };
    let s = seconds.unsigned_abs();
    if s >= 3600 {
        format!("{sign}{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{sign}{}:{:02}", s / 60, s % 60)
    }
}

/// The `idx`-th of `n` equal shares of `total`: the remainder goes to the first ones, so the
/// shares add up to the total exactly.
fn share(total: i64, n: i64, idx: i64) -> i64 {
    if n <= 0 {
        return 0;
    }
    total.div_euclid(n) + i64::from(idx < total.rem_euclid(n))
}

/// Called after each sync with its row and a way to build that sync's full step-by-step report,
/// the single-sync `calc::evaluate` on the cluster as the sync saw it and the controller's memory
/// from before it. Building costs a second reconcile, so an observer builds only what it keeps.
pub type SyncObserver<'a> = dyn FnMut(&SyncRow, &dyn Fn() -> Report) + 'a;

/// Runs the simulation.
pub fn run(setup: &Setup) -> Simulation {
    run_observed(setup, None)
}

/// Runs the simulation, showing each sync to `observer` (`--html` keeps some syncs' reports).
pub fn run_observed<'s>(
    setup: &'s Setup,
    observer: Option<&'s mut SyncObserver<'s>>,
) -> Simulation {
    let mut engine = Engine::new(setup);
    engine.observer = observer;
    engine.place_start_pods();
    engine.seed_memory();
    let end = setup.duration.millis().max(0);
    let sync = setup.timing.sync_period.millis().max(1000);
    let scan = setup.timing.ca_scan_interval.millis().max(1000);
    let mut t = 0i64;
    loop {
        let is_sync = t % sync == 0;
        let is_scan = setup.nodes.is_some() && t % scan == 0;
        engine.tick(t, is_sync, is_scan);
        let next = engine.next_event(t, sync, scan);
        let until = next.min(end);
        if until > t {
            engine.accumulate(until - t);
        }
        if next > end {
            break;
        }
        t = next;
    }
    let mut simulation = engine.finish(end);
    if let Some(curve) = &setup.actual {
        compare(&mut simulation, curve);
    }
    simulation
}

/// The pods that report metrics, in order, each with its index among the Ready pods (`None` for
/// a Starting pod, which reports 0).
fn reporting<'a>(
    pods: &'a [SimPod],
    names: &'a [Pod],
) -> impl Iterator<Item = (&'a SimPod, &'a Pod, Option<i64>)> + 'a {
    let mut ready_seen = 0i64;
    pods.iter()
        .zip(names)
        .filter_map(move |(p, pod)| match p.state {
            PodState::Ready { .. } => {
                ready_seen += 1;
                Some((p, pod, Some(ready_seen - 1)))
            }
            PodState::Starting { .. } => Some((p, pod, None)),
            PodState::Pending | PodState::Terminating { .. } => None,
        })
}

/// What the `ready` Ready pods serve of `total` when each serves its share up to `limit`.
fn served(total: i64, ready: i64, limit: Option<i64>) -> i64 {
    if ready <= 0 {
        return 0;
    }
    let (q, extra) = (total.div_euclid(ready), total.rem_euclid(ready));
    let cap = |v: i64| limit.map_or(v, |l| v.min(l));
    extra
        .saturating_mul(cap(q + 1))
        .saturating_add((ready - extra).saturating_mul(cap(q)))
}

/// One pod's resource sample. A Ready pod uses its share of `total` (it is the `index`-th of
/// `ready`), a Starting pod nothing, each up to `limit`. During a startup burst (`factor_milli`,
/// and how many ms of the sample's `window_ms` it covers) the pod uses that multiple of a Ready
/// pod's share, up to `limit`; the sample averages the two over its window, as metrics-server's
/// rate does.
fn resource_usage(
    total: i64,
    ready: i64,
    index: Option<i64>,
    limit: Option<i64>,
    burst: Option<(i64, i64, i64)>,
) -> i64 {
    let cap = |v: i64| limit.map_or(v, |l| v.min(l));
    let steady = index.map_or(0, |i| cap(share(total, ready, i)));
    let Some((factor_milli, overlap, window)) = burst.filter(|b| b.1 > 0) else {
        return steady;
    };
    let base = index.map_or_else(|| share(total, ready, 0), |i| share(total, ready, i));
    let bursting =
        cap(i64::try_from(i128::from(base) * i128::from(factor_milli) / 1000).unwrap_or(i64::MAX));
    if window <= overlap {
        return bursting;
    }
    let mixed = (i128::from(overlap) * i128::from(bursting)
        + i128::from(window - overlap) * i128::from(steady))
        / i128::from(window);
    i64::try_from(mixed).unwrap_or(i64::MAX)
}

impl<'s> Engine<'s> {
    fn new(setup: &'s Setup) -> Self {
        let mut scenario = setup.scenario.clone();
        scenario.pods.clear();
        scenario.metrics = Default::default();
        scenario.memory = None;
        scenario.nodes = None;
        scenario.current_replicas = setup.start_replicas;
        scenario.now = START;
        let mut feeds = MetricFeeds::default();
        for (spec, &column) in scenario.hpa.metrics.iter().zip(&setup.load.metric_columns) {
            let (list, name) = match spec {
                MetricSpec::Resource { resource, .. } => (&mut feeds.resources, resource),
                MetricSpec::Pods { metric, .. } => (&mut feeds.pods, &metric.name),
                MetricSpec::Object { metric, .. } => (&mut feeds.object, &metric.name),
                MetricSpec::External { metric, .. } => (&mut feeds.external, &metric.name),
            };
            if !list.iter().any(|(n, _)| n == name) {
                list.push((name.clone(), column));
            }
        }
        for (name, _) in &feeds.pods {
            scenario.metrics.pods.insert(name.clone(), Vec::new());
        }
        for (name, _) in &feeds.object {
            scenario.metrics.object.insert(name.clone(), 0);
        }
        for (name, _) in &feeds.external {
            scenario.metrics.external.insert(name.clone(), vec![0]);
        }
        let nodes = match &setup.nodes {
            None => Vec::new(),
            Some(group) => start_nodes(&group.input, setup.start_replicas),
        };
        let next_node = u32::try_from(nodes.len()).unwrap_or(u32::MAX);
        Engine {
            setup,
            scenario,
            memory: ControllerMemory::default(),
            feeds,
            pods: Vec::new(),
            nodes,
            next_seq: 0,
            next_node,
            replicas: setup.start_replicas,
            load_cursor: 0,
            last_scale_up: None,
            extra_tick: None,
            ca_note: None,
            min_size_note: false,
            rows: Vec::new(),
            in_band: Vec::new(),
            events: Vec::new(),
            totals: Totals::default(),
            keda: setup.scenario.keda.clone().map(keda::Poll::new),
            observer: None,
            revision: 0,
            sets: None,
        }
    }

    fn event(&mut self, t: i64, source: &'static str, message: String) {
        self.events.push(Event {
            time: secs(t),
            source,
            message,
        });
    }

    /// The start pods: Ready long ago, placed by the scheduler on the existing nodes.
    fn place_start_pods(&mut self) {
        let n = usize::try_from(self.setup.start_replicas.max(0)).unwrap_or(0);
        let mut unplaced = 0;
        for _ in 0..n {
            self.create_pod(-LONG_AGO, self.revision);
            let node = pick_node(self.setup, &self.nodes);
            // `create_pod` just pushed this pair.
            let (Some(p), Some(pod)) = (self.pods.last_mut(), self.scenario.pods.last_mut()) else {
                continue;
            };
            match node {
                Some(node) => {
                    bind(self.setup, &mut self.nodes, p, pod, node, -LONG_AGO);
                    p.make_ready(pod, -LONG_AGO);
                }
                None => {
                    // Said once here, not again by the scheduler.
                    p.waited = true;
                    unplaced += 1;
                }
            }
        }
        if unplaced > 0 {
            self.event(
                0,
                "scheduler",
                format!("{unplaced} of the {n} start pods fit on no existing node: Pending"),
            );
        }
    }

    /// The controller's memory as if the first row's load had held for the whole window: a
    /// recommendation every sync period, each what the first sync recommends; no scale events.
    fn seed_memory(&mut self) {
        self.refresh_metrics(0);
        self.scenario.now = START;
        self.scenario.current_replicas = self.replicas;
        self.scenario.status_replicas = self.replicas;
        let mut scratch = ControllerMemory::default();
        let proposal = reconcile(&self.scenario, &mut scratch, true)
            .metric_proposal
            .unwrap_or(self.replicas);
        let config = &self.scenario.config;
        let window_ms = match &self.scenario.hpa.behavior {
            None => config.downscale_stabilization_window.millis(),
            Some(b) => {
                let down = normalize::scale_down_window(b, config.downscale_stabilization_window);
                let up = b.scale_up.stabilization_window_seconds.unwrap_or(0);
                i64::from(down.max(up)).saturating_mul(1000)
            }
        };
        let step = self.setup.timing.sync_period.millis().max(1000);
        let mut at = -window_ms;
        while at < 0 {
            self.memory.recommendations.push(Recommendation {
                replicas: proposal,
                timestamp: START.add(Duration(at)),
            });
            at += step;
        }
        if self.memory.recommendations.is_empty() {
            self.memory.recommendations.push(Recommendation {
                replicas: proposal,
                timestamp: START.sub(Duration(window_ms)),
            });
        }
    }

    fn tick(&mut self, t: i64, is_sync: bool, is_scan: bool) {
        self.nodes_progress(t);
        self.pods_progress(t);
        if let Some(r) = self.setup.rollout.filter(|r| r.at == t) {
            self.start_rollout(t, &r);
        } else if self.sets.is_some() {
            // The Deployment controller reacts to pods turning Ready (available).
            self.replicaset(t);
        }
        if self.keda.as_ref().is_some_and(|k| k.due(t)) {
            self.keda_poll(t);
        }
        if is_sync {
            self.sync(t);
        }
        self.schedule(t);
        if is_scan {
            self.cluster_autoscaler(t);
        }
    }

    fn next_event(&self, t: i64, sync: i64, scan: i64) -> i64 {
        let mut next = (t.div_euclid(sync) + 1) * sync;
        if self.setup.nodes.is_some() {
            next = next.min((t.div_euclid(scan) + 1) * scan);
        }
        for p in &self.pods {
            match p.state {
                PodState::Starting { ready_at } if ready_at > t => next = next.min(ready_at),
                PodState::Terminating { gone_at } if gone_at > t => next = next.min(gone_at),
                _ => {}
            }
        }
        for n in &self.nodes {
            if let NodeState::Booting { ready_at } = n.state
                && ready_at > t
            {
                next = next.min(ready_at);
            }
        }
        if let Some(extra) = self.extra_tick.filter(|&e| e > t) {
            next = next.min(extra);
        }
        if let Some(k) = &self.keda {
            next = next.min(k.next_after(t));
        }
        if let Some(r) = self.setup.rollout {
            if r.at > t {
                next = next.min(r.at);
            }
            // The ReplicaSet controller looks again when a Ready pod becomes available.
            if self.sets.is_some() && r.min_ready > 0 {
                for p in &self.pods {
                    if let PodState::Ready { since } = p.state
                        && since + r.min_ready > t
                    {
                        next = next.min(since + r.min_ready);
                    }
                }
            }
        }
        next
    }

    fn accumulate(&mut self, dt: i64) {
        let (mut bound, mut ready, mut pending) = (0i64, 0i64, 0i64);
        for p in &self.pods {
            match p.state {
                PodState::Pending => pending += 1,
                PodState::Ready { .. } => {
                    ready += 1;
                    bound += 1;
                }
                PodState::Starting { .. } | PodState::Terminating { .. } => bound += 1,
            }
        }
        let totals = &mut self.totals;
        totals.pod_ms += bound * dt;
        totals.ready_ms += ready * dt;
        totals.pending_ms += pending * dt;
        totals.node_ms += count(self.nodes.len()) * dt;
        totals.max_pending = totals.max_pending.max(pending);
        totals.peak_nodes = totals.peak_nodes.max(count(self.nodes.len()));
    }

    // ---- pods and nodes finishing what they started (§8.2 step 1) ----

    fn nodes_progress(&mut self, t: i64) {
        let mut ready = Vec::new();
        for n in &mut self.nodes {
            if let NodeState::Booting { ready_at } = n.state
                && ready_at <= t
            {
                n.state = NodeState::Ready;
                ready.push(n.slot.name.clone());
            }
        }
        if !ready.is_empty() {
            self.event(t, "kubelet", format!("{} Ready", ready.join(", ")));
        }
    }

    fn pods_progress(&mut self, t: i64) {
        let mut became_ready = 0;
        let mut gone = false;
        for (p, pod) in self.pods.iter_mut().zip(&mut self.scenario.pods) {
            match p.state {
                PodState::Starting { ready_at } if ready_at <= t => {
                    p.make_ready(pod, ready_at);
                    became_ready += 1;
                }
                PodState::Terminating { gone_at } if gone_at <= t => gone = true,
                _ => {}
            }
        }
        if gone {
            self.remove_pods(
                |p| matches!(p.state, PodState::Terminating { gone_at } if gone_at <= t),
            );
        }
        if became_ready > 0 {
            self.event(t, "kubelet", format!("{became_ready} pod(s) Ready"));
        }
    }

    // ---- the HPA (§8.2 step 3) ----

    fn sync(&mut self, t: i64) {
        self.scenario.now = START.add(Duration(t));
        self.scenario.current_replicas = self.replicas;
        let active = self.pods.iter().filter(|p| p.active()).count();
        self.scenario.status_replicas = i32::try_from(active).unwrap_or(i32::MAX);
        self.refresh_metrics(t);
        let (mut ready, mut starting, mut pending) = (0, 0, 0);
        for p in &self.pods {
            match p.state {
                PodState::Pending => pending += 1,
                PodState::Starting { .. } => starting += 1,
                PodState::Ready { .. } => ready += 1,
                PodState::Terminating { .. } => {}
            }
        }
        let memory_before = self.observer.is_some().then(|| self.memory.clone());
        let (decision, surge) = {
            let sync = reconcile(&self.scenario, &mut self.memory, false);
            // More Ready pods than replicas: the one situation RolloutSurge names.
            let surge = (ready > i64::from(self.replicas))
                .then(|| crate::calc::rollout_surge(&self.scenario, &sync))
                .flatten();
            (decide(&sync), surge)
        };
        let (nodes, booting) = match self.setup.nodes {
            None => (None, None),
            Some(_) => {
                let booting = self
                    .nodes
                    .iter()
                    .filter(|n| matches!(n.state, NodeState::Booting { .. }))
                    .count();
                (
                    Some(count(self.nodes.len() - booting)),
                    Some(count(booting)),
                )
            }
        };
        let values = self.load_at(t).to_vec();
        let columns = &self.setup.load.columns;
        let unserved = columns
            .first()
            .and_then(|c| c.resource.as_deref())
            .and_then(|r| self.setup.pod_limit.get(r))
            .map(|limit| {
                let total = values.first().copied().unwrap_or(0);
                total - served(total, ready, Some(limit))
            });
        let loads = columns
            .iter()
            .zip(&values)
            .map(|(c, &v)| (c.name.clone(), milli_to_f64(v)))
            .collect();
        self.rows.push(SyncRow {
            time: secs(t),
            load: values.first().copied().map_or(0.0, milli_to_f64),
            loads,
            ready_replicas: ready,
            starting_pods: starting,
            pending_pods: pending,
            replicas: self.replicas,
            utilization: decision.utilization,
            recommendation: decision.recommendation,
            stabilized: decision.stabilized,
            desired_replicas: decision.desired,
            reason: decision.reason.clone(),
            nodes,
            nodes_booting: booting,
            actual_replicas: None,
            unserved_load: unserved.map(milli_to_f64),
            rollout_surge: surge,
        });
        if let (Some(observer), Some(memory), Some(row)) =
            (self.observer.as_mut(), memory_before, self.rows.last())
        {
            let scenario = &self.scenario;
            // The HPA's sync alone: KEDA's poll is its own step of the simulation.
            let build = || {
                let mut s = scenario.clone();
                s.memory = Some(memory.clone());
                s.keda = None;
                crate::calc::evaluate(&s)
            };
            observer(row, &build);
        }
        self.in_band.push(decision.in_band);
        if decision.desired != self.replicas {
            let why = decision
                .reason
                .map(|r| format!(" ({r})"))
                .unwrap_or_default();
            self.event(
                t,
                "hpa",
                format!("scales {} → {}{why}", self.replicas, decision.desired),
            );
        }
        self.replicas = decision.desired;
        self.replicaset(t);
    }

    /// The load's values at `t` (the step function; `t` never goes back).
    fn load_at(&mut self, t: i64) -> &[i64] {
        let steps = &self.setup.load.steps;
        while self
            .load_cursor
            .checked_add(1)
            .and_then(|i| steps.get(i))
            .is_some_and(|s| s.at.millis() <= t)
        {
            self.load_cursor += 1;
        }
        steps
            .get(self.load_cursor)
            .map_or(&[][..], |s| s.values.as_slice())
    }

    /// The metrics APIs' answers at `t`: the load split evenly over the Ready pods; Starting pods
    /// report 0 (they serve nothing yet); unscheduled and terminating pods report nothing. A
    /// resource sample stops at the pod's `--pod-limit`, and shows its `--startup-cpu` burst.
    /// Entries are overwritten in place, so a steady run allocates nothing here.
    fn refresh_metrics(&mut self, t: i64) {
        let values = self.load_at(t).to_vec();
        let now = START.add(Duration(t));
        let value = |column: usize| values.get(column).copied().unwrap_or(0);
        let ready_total = count(
            self.pods
                .iter()
                .filter(|p| matches!(p.state, PodState::Ready { .. }))
                .count(),
        );
        let window = self.setup.timing.metrics_window.millis();
        let Engine {
            scenario,
            pods,
            feeds,
            setup,
            ..
        } = self;
        // The part of a pod's sample window its startup burst covers (cpu only).
        let burst_of = |p: &SimPod| {
            let b = setup.startup_cpu?;
            let start = p.started?;
            let (from, to) = (t - window, t);
            let end = start + b.duration.millis();
            let overlap = if window == 0 {
                if start <= t && t < end { 1 } else { 0 }
            } else {
                (to.min(end) - from.max(start)).max(0)
            };
            Some((b.factor_milli, overlap, window.max(1)))
        };
        let names = &scenario.pods;
        let metrics = &mut scenario.metrics;

        if !feeds.resources.is_empty() {
            let samples = &mut metrics.resource;
            let mut k = 0;
            for (p, pod, share_of) in reporting(pods, names) {
                if k == samples.len() {
                    samples.push(PodMetrics {
                        pod: String::new(),
                        timestamp: now,
                        window: setup.timing.metrics_window,
                        containers: vec![ContainerMetrics {
                            name: setup.container.clone(),
                            usage: Resources(
                                feeds
                                    .resources
                                    .iter()
                                    .map(|(r, _)| (r.clone(), 0))
                                    .collect(),
                            ),
                        }],
                    });
                }
                let Some(entry) = samples.get_mut(k) else {
                    break;
                };
                entry.pod.clear();
                entry.pod.push_str(&pod.name);
                entry.timestamp = now;
                entry.window = setup.timing.metrics_window;
                let burst = burst_of(p);
                for c in &mut entry.containers {
                    for ((resource, usage), (_, column)) in
                        c.usage.0.iter_mut().zip(&feeds.resources)
                    {
                        let limit = setup.pod_limit.get(resource);
                        let burst = burst.filter(|_| resource == "cpu");
                        *usage =
                            resource_usage(value(*column), ready_total, share_of, limit, burst);
                    }
                }
                k += 1;
            }
            samples.truncate(k);
        }

        for (name, column) in &feeds.pods {
            let Some(samples) = metrics.pods.get_mut(name) else {
                continue;
            };
            let mut k = 0;
            for (_, pod, share_of) in reporting(pods, names) {
                if k == samples.len() {
                    samples.push(PodMetricValue {
                        pod: String::new(),
                        value_milli: 0,
                        timestamp: now,
                        window: CUSTOM_METRIC_WINDOW,
                    });
                }
                let Some(entry) = samples.get_mut(k) else {
                    break;
                };
                entry.pod.clear();
                entry.pod.push_str(&pod.name);
                entry.timestamp = now;
                entry.value_milli = share_of.map_or(0, |i| share(value(*column), ready_total, i));
                k += 1;
            }
            samples.truncate(k);
        }

        for (name, column) in &feeds.object {
            if let Some(v) = metrics.object.get_mut(name) {
                *v = value(*column);
            }
        }
        for (name, column) in &feeds.external {
            if let Some(list) = metrics.external.get_mut(name) {
                list.clear();
                list.push(value(*column));
            }
        }
    }

    // ---- the ReplicaSet (§8.2 step 4) ----

    fn create_pod(&mut self, t: i64, revision: u32) {
        self.next_seq += 1;
        let name = format!("{}-{}", self.scenario.hpa.target.name, self.next_seq);
        self.scenario.pods.push(Pod {
            name,
            phase: PodPhase::Pending,
            deleting: false,
            start_time: None,
            ready: None,
            containers: vec![Container {
                name: self.setup.container.clone(),
                kind: ContainerKind::App,
                requests: self.setup.pod_request.clone(),
            }],
            pod_requests: None,
        });
        self.pods.push(SimPod {
            seq: self.next_seq,
            created: t,
            node: None,
            state: PodState::Pending,
            waited: false,
            revision,
            started: None,
        });
    }

    /// The target's controllers after a change of `spec.replicas` or of the pods: its
    /// ReplicaSet, or during a rollout the Deployment controller and both ReplicaSets.
    fn replicaset(&mut self, t: i64) {
        let (Some(rollout), Some(start)) = (self.setup.rollout, self.sets) else {
            self.replica_set(t, self.revision, self.replicas);
            return;
        };
        let old_revision = self.revision - 1;
        let mut sets = start;
        // The controller requeues itself after each change; a few passes settle an instant.
        for _ in 0..8 {
            let available = self.available(t, old_revision, rollout.min_ready);
            let changed = sets.sync(&rollout, self.replicas, available);
            self.replica_set(t, old_revision, sets.old);
            self.replica_set(t, self.revision, sets.new);
            if !changed {
                break;
            }
        }
        let mut scaled = Vec::new();
        for (which, before, after) in [("new", start.new, sets.new), ("old", start.old, sets.old)] {
            if before != after {
                scaled.push(format!("the {which} ReplicaSet {before} → {after}"));
            }
        }
        if !scaled.is_empty() {
            self.event(t, "deployment", format!("scales {}", scaled.join(", ")));
        }
        let old_left = self
            .pods
            .iter()
            .any(|p| p.active() && p.revision == old_revision);
        if sets.old == 0 && !old_left {
            self.sets = None;
            self.event(
                t,
                "deployment",
                format!("rollout complete: {} pod(s) of the new template", sets.new),
            );
        } else {
            self.sets = Some(sets);
        }
    }

    /// The rollout starts: a new pod template, so a new ReplicaSet, at 0.
    fn start_rollout(&mut self, t: i64, r: &Rollout) {
        self.revision += 1;
        self.sets = Some(rollout::Sets::start(r, self.replicas));
        let (surge, unavailable) =
            rollout::resolve_fenceposts(r.max_surge, r.max_unavailable, self.replicas);
        self.event(
            t,
            "deployment",
            format!(
                "rollout of a new pod template: maxSurge {} ({surge} pod(s)), maxUnavailable {} \
                 ({unavailable}) of {} replicas",
                r.max_surge, r.max_unavailable, self.replicas
            ),
        );
        self.replicaset(t);
    }

    /// Available active pods of the old and the new template, and all active pods. Port of
    /// IsPodAvailable (pkg/api/v1/pod/util.go): Ready for minReadySeconds. The controller
    /// re-checks when that time is up (and finds it available an instant later).
    fn available(&self, t: i64, old_revision: u32, min_ready: i64) -> rollout::Available {
        let (mut old, mut new, mut all) = (0, 0, 0);
        for p in self.pods.iter().filter(|p| p.active()) {
            all += 1;
            if matches!(p.state, PodState::Ready { since } if since + min_ready <= t) {
                if p.revision == old_revision {
                    old += 1;
                } else {
                    new += 1;
                }
            }
        }
        rollout::Available {
            old,
            new,
            status_replicas: all,
        }
    }

    /// One ReplicaSet: creates or deletes pods of its `revision` so that its active ones match
    /// `want`.
    fn replica_set(&mut self, t: i64, revision: u32, want: i32) {
        let want = usize::try_from(want.max(0)).unwrap_or(0);
        let active_count = self
            .pods
            .iter()
            .filter(|p| p.active() && p.revision == revision)
            .count();
        if active_count < want {
            for _ in active_count..want {
                self.create_pod(t, revision);
            }
            return;
        }
        let extra = active_count - want;
        if extra == 0 {
            return;
        }
        // Colocated pods are counted over the whole workload (the controller's related pods).
        let active: Vec<&SimPod> = self.pods.iter().filter(|p| p.active()).collect();
        let mut ranked: Vec<RankedPod> = active
            .iter()
            .filter(|p| p.revision == revision)
            .map(|p| {
                let colocated = active.iter().filter(|q| q.node == p.node).count();
                let ready_since = match p.state {
                    PodState::Ready { since } => Some(since),
                    _ => None,
                };
                RankedPod {
                    assigned: p.node.is_some(),
                    running: p.node.is_some(),
                    ready: ready_since.is_some(),
                    colocated: count(colocated),
                    ready_since,
                    created: p.created,
                    seq: p.seq,
                }
            })
            .collect();
        ranked.sort_by_key(|r| deletion_key(r, t));
        let victims: Vec<u64> = ranked.iter().take(extra).map(|r| r.seq).collect();
        let termination = self.setup.timing.pod_termination.millis();
        if termination == 0 {
            self.remove_pods(|p| victims.contains(&p.seq));
        } else {
            for (p, pod) in self.pods.iter_mut().zip(&mut self.scenario.pods) {
                if victims.contains(&p.seq) {
                    if p.node.is_none() {
                        // An unscheduled pod has nothing to stop.
                        p.state = PodState::Terminating { gone_at: t };
                    } else {
                        p.state = PodState::Terminating {
                            gone_at: t + termination,
                        };
                    }
                    pod.deleting = true;
                }
            }
            self.remove_pods(
                |p| matches!(p.state, PodState::Terminating { gone_at } if gone_at <= t),
            );
        }
    }

    /// Removes the pods `gone` selects, and gives their node room back.
    fn remove_pods(&mut self, gone: impl Fn(&SimPod) -> bool) {
        let keep: Vec<bool> = self.pods.iter().map(|p| !gone(p)).collect();
        for (p, _) in self.pods.iter().zip(&keep).filter(|(_, k)| !**k) {
            if let Some(n) = p
                .node
                .and_then(|id| self.nodes.iter_mut().find(|n| n.id == id))
            {
                n.slot.remove(&self.setup.pod_request);
            }
        }
        let mut flags = keep.iter();
        self.scenario
            .pods
            .retain(|_| flags.next().copied().unwrap_or(true));
        let mut flags = keep.iter();
        self.pods.retain(|_| flags.next().copied().unwrap_or(true));
    }

    // ---- the scheduler (§8.2 step 5) ----

    fn schedule(&mut self, t: i64) {
        let setup = self.setup;
        let mut unschedulable = 0;
        let mut after_wait: BTreeMap<u32, usize> = BTreeMap::new();
        for (p, pod) in self.pods.iter_mut().zip(&mut self.scenario.pods) {
            if p.state != PodState::Pending {
                continue;
            }
            match pick_node(setup, &self.nodes) {
                Some(node) => {
                    if p.waited {
                        *after_wait.entry(node).or_default() += 1;
                    }
                    bind(setup, &mut self.nodes, p, pod, node, t);
                }
                None => {
                    if !p.waited {
                        p.waited = true;
                        unschedulable += 1;
                    }
                }
            }
        }
        for (node, n) in after_wait {
            let name = self.node_name(node);
            self.event(
                t,
                "scheduler",
                format!("{n} waiting pod(s) bound to {name}"),
            );
        }
        if unschedulable > 0 {
            self.event(
                t,
                "scheduler",
                format!("{unschedulable} pod(s) unschedulable: no Ready node has room"),
            );
        }
    }

    fn node_name(&self, id: u32) -> String {
        self.nodes
            .iter()
            .find(|n| n.id == id)
            .map_or_else(|| format!("node {id}"), |n| n.slot.name.clone())
    }

    // ---- the Cluster Autoscaler (§8.2 step 6) ----

    fn cluster_autoscaler(&mut self, t: i64) {
        let Some(group) = self.setup.nodes.as_ref() else {
            return;
        };
        let request = &self.setup.pod_request;
        let pending: Vec<i64> = self
            .pods
            .iter()
            .filter(|p| p.state == PodState::Pending)
            .map(|p| p.created)
            .collect();
        let mut cooldown = false;
        if !pending.is_empty() && pending.iter().all(|&c| t - c < NEW_POD_WAIT_MS) {
            // Every unschedulable pod is brand new: wait one loop, and no scale-down in it.
            cooldown = true;
            self.event(
                t,
                "clusterAutoscaler",
                format!(
                    "waits one loop: all {} unschedulable pod(s) are under 2s old",
                    pending.len()
                ),
            );
        } else if !pending.is_empty() {
            // filter-out-schedulable: free room on Ready nodes, then on the nodes still booting.
            let room: i64 = self
                .nodes
                .iter()
                .filter(|n| n.state == NodeState::Ready)
                .chain(self.nodes.iter().filter(|n| n.state != NodeState::Ready))
                .filter(|n| n.slot.schedulable)
                .map(|n| room_for(&n.slot, request))
                .sum();
            let remaining = count(pending.len()).saturating_sub(room).max(0);
            if remaining > 0 {
                let size = count(self.nodes.len());
                // The Cluster Autoscaler's --max-nodes-per-scaleup first, as in a single sync.
                let mut limit = nodes::MAX_NODES_PER_SCALE_UP;
                let mut limited_by = Some(format!("--max-nodes-per-scaleup ({limit})"));
                for (max, name) in [
                    (group.input.node_group_max, "the node group's maximum size"),
                    (group.input.max_nodes_total, "--max-nodes-total"),
                ] {
                    if let Some(max) = max {
                        let room = max.saturating_sub(size).max(0);
                        if room < limit {
                            limit = room;
                            limited_by = Some(format!("{name} ({max})"));
                        }
                    }
                }
                let estimate =
                    nodes::estimate(&[(request.clone(), remaining)], &group.input, limit);
                let added = estimate.nodes.len();
                let placed = estimate.placed.first().copied().unwrap_or(0);
                if added > 0 {
                    let ready_at = t + self.setup.timing.node_startup.millis();
                    let mut names = Vec::new();
                    for _ in 0..added {
                        self.next_node += 1;
                        let name = format!("node-{}", self.next_node);
                        names.push(name.clone());
                        self.nodes.push(SimNode {
                            id: self.next_node,
                            slot: nodes::template_slot(name, &group.input),
                            state: NodeState::Booting { ready_at },
                            unneeded_since: None,
                        });
                    }
                    self.last_scale_up = Some(t);
                    cooldown = true;
                    self.event(
                        t,
                        "clusterAutoscaler",
                        format!(
                            "requests {added} node(s) ({}, Ready at {}) for {remaining} \
                             unschedulable pod(s)",
                            names.join(", "),
                            clock(secs(ready_at))
                        ),
                    );
                }
                let left = remaining - placed;
                let note = (left > 0).then(|| {
                    let why =
                        if room_for(&nodes::template_slot(String::new(), &group.input), request)
                            == 0
                        {
                            "the pod is larger than a node of the group".to_string()
                        } else {
                            limited_by.unwrap_or_else(|| "no room".to_string())
                        };
                    format!("{left} pod(s) fit on no node it may add: {why}")
                });
                if note.is_some() && note != self.ca_note {
                    let text = note.clone().unwrap_or_default();
                    self.event(t, "clusterAutoscaler", text);
                }
                self.ca_note = note;
            } else {
                self.ca_note = None;
            }
        } else {
            self.ca_note = None;
        }
        self.scale_down(t, cooldown);
    }

    /// Scale-down tracking every loop, then deletion unless in cooldown (reference §4.3).
    fn scale_down(&mut self, t: i64, cooldown: bool) {
        let Some(group) = self.setup.nodes.as_ref() else {
            return;
        };
        let request = &self.setup.pod_request;
        let threshold = group.input.scale_down_utilization_threshold;
        let size = count(self.nodes.len());
        // Pods that must move off each node (terminating pods need no new home).
        let movable: Vec<i64> = self
            .nodes
            .iter()
            .map(|n| {
                count(
                    self.pods
                        .iter()
                        .filter(|p| p.active() && p.node == Some(n.id))
                        .count(),
                )
            })
            .collect();
        let mut room: Vec<i64> = self
            .nodes
            .iter()
            .map(|n| {
                if n.state == NodeState::Ready && n.slot.schedulable {
                    room_for(&n.slot, request)
                } else {
                    0
                }
            })
            .collect();
        // The Ready nodes as (index, node, pods to move).
        let mut order: Vec<(usize, &SimNode, i64)> = self
            .nodes
            .iter()
            .zip(&movable)
            .enumerate()
            .filter(|(_, (n, _))| n.state == NodeState::Ready)
            .map(|(i, (n, &pods))| (i, n, pods))
            .collect();
        // Empty nodes first, then the ones unneeded in the previous loop, then the rest.
        order.sort_by_key(|&(i, n, _)| (n.slot.workload_pods > 0, n.unneeded_since.is_none(), i));
        let mut removable = vec![false; self.nodes.len()];
        if size > group.min {
            for &(i, n, pods) in &order {
                if n.slot.utilization() > threshold {
                    continue;
                }
                // The node's pods must fit on the other nodes; a fit is committed, so later
                // candidates cannot count on the same room.
                let mut trial = room.clone();
                let mut left = pods;
                for ((j, r), &gone) in trial.iter_mut().enumerate().zip(&removable) {
                    if j == i {
                        // The candidate itself takes none, and has no room once removed.
                        *r = 0;
                        continue;
                    }
                    if gone || left == 0 {
                        continue;
                    }
                    let take = (*r).min(left);
                    *r -= take;
                    left -= take;
                }
                if left == 0 {
                    room = trial;
                    if let Some(flag) = removable.get_mut(i) {
                        *flag = true;
                    }
                }
            }
        }
        let mut newly = Vec::new();
        let mut again = Vec::new();
        for (n, &r) in self.nodes.iter_mut().zip(&removable) {
            match (r, n.unneeded_since) {
                (true, None) => {
                    n.unneeded_since = Some(t);
                    newly.push(format!(
                        "{} (utilization {:.0}%)",
                        n.slot.name,
                        n.slot.utilization() * 100.0
                    ));
                }
                (false, Some(_)) => {
                    n.unneeded_since = None;
                    again.push(n.slot.name.clone());
                }
                _ => {}
            }
        }
        if !newly.is_empty() {
            let threshold_pct = threshold * 100.0;
            self.event(
                t,
                "clusterAutoscaler",
                format!(
                    "unneeded from now: {}; at or under the {threshold_pct:.0}% threshold and \
                     the pods fit elsewhere",
                    newly.join(", ")
                ),
            );
        }
        // A group at its minimum size has no candidates: that was said when it was reached.
        if !again.is_empty() && size > group.min {
            self.event(
                t,
                "clusterAutoscaler",
                format!("needed again: {}", again.join(", ")),
            );
        }

        let delay = self.setup.timing.scale_down_delay_after_add.millis();
        let in_cooldown = cooldown || self.last_scale_up.is_some_and(|last| last + delay > t);
        if in_cooldown {
            return;
        }
        let unneeded_time = group.input.scale_down_unneeded_time.millis();
        // (pods to move?, node id) of the nodes unneeded long enough, in node order.
        let mut eligible: Vec<(bool, u32)> = self
            .nodes
            .iter()
            .zip(&movable)
            .filter(|(n, _)| {
                n.unneeded_since
                    .is_some_and(|since| since + unneeded_time < t)
            })
            .map(|(n, &pods)| (pods > 0, n.id))
            .collect();
        // Empty nodes first; the sort is stable, so node order within each kind.
        eligible.sort_by_key(|&(drain, _)| drain);
        let mut deleted: Vec<u32> = Vec::new();
        let mut drains = 0;
        let mut blocked_by_min = false;
        for (drain, id) in eligible {
            if size - count(deleted.len()) <= group.min {
                blocked_by_min = true;
                break;
            }
            if deleted.len() >= MAX_SCALE_DOWN_PARALLELISM {
                break;
            }
            if drain {
                if drains >= MAX_DRAIN_PARALLELISM {
                    continue;
                }
                drains += 1;
            }
            deleted.push(id);
        }
        for id in &deleted {
            let name = self.node_name(*id);
            let evicted = self
                .pods
                .iter()
                .filter(|p| p.node == Some(*id) && p.active())
                .count();
            let what = if evicted == 0 {
                "empty".to_string()
            } else {
                format!("{evicted} pod(s) evicted and recreated")
            };
            self.event(t, "clusterAutoscaler", format!("removes {name} ({what})"));
        }
        if blocked_by_min && !self.min_size_note {
            self.event(
                t,
                "clusterAutoscaler",
                format!(
                    "keeps the other unneeded node(s): the node group is at its minimum size {}",
                    group.min
                ),
            );
        }
        self.min_size_note = blocked_by_min;
        if deleted.is_empty() {
            return;
        }
        // Evicted pods are deleted at once; the ReplicaSet recreates them as Pending pods.
        self.remove_pods(|p| p.node.is_some_and(|n| deleted.contains(&n)));
        self.nodes.retain(|n| !deleted.contains(&n.id));
        let before = self.pods.len();
        self.replicaset(t);
        if self.pods.len() > before {
            self.extra_tick = Some(t + NEXT_TICK_MS);
        }
    }

    fn finish(self, end: i64) -> Simulation {
        let setup = self.setup;
        let scenario = &setup.scenario;
        let hpa = &scenario.hpa;
        let mut steps_changed = 0i64;
        for pair in setup.load.steps.windows(2) {
            if let [before, after] = pair
                && before.values != after.values
                && after.at.millis() <= end
            {
                steps_changed = after.at.millis();
            }
        }
        let last_change = secs(steps_changed);
        let time_to_target = self
            .rows
            .iter()
            .zip(&self.in_band)
            .find(|(row, in_band)| row.time >= last_change && **in_band)
            .map(|(row, _)| row.time - last_change);
        let mut scale_ups = 0;
        let mut scale_downs = 0;
        for row in &self.rows {
            if row.desired_replicas > row.replicas {
                scale_ups += 1;
            } else if row.desired_replicas < row.replicas {
                scale_downs += 1;
            }
        }
        let (window_down, window_up) = match &hpa.behavior {
            None => (
                secs(scenario.config.downscale_stabilization_window.millis()),
                0,
            ),
            Some(b) => (
                i64::from(normalize::scale_down_window(
                    b,
                    scenario.config.downscale_stabilization_window,
                )),
                i64::from(b.scale_up.stabilization_window_seconds.unwrap_or(0)),
            ),
        };
        let node_settings = setup.nodes.as_ref().map(|g| {
            let (k, _) =
                nodes::pods_per_node(&g.input.template, &g.input.daemonsets, &setup.pod_request);
            NodeSettings {
                pods_per_node: k,
                existing_nodes: count(start_nodes(&g.input, setup.start_replicas).len()),
                node_group_min: g.min,
                node_group_max: g.input.node_group_max,
                max_nodes_total: g.input.max_nodes_total,
                node_startup_seconds: secs(setup.timing.node_startup.millis()),
                ca_scan_interval_seconds: secs(setup.timing.ca_scan_interval.millis()),
                scale_down_utilization_threshold: g.input.scale_down_utilization_threshold,
                scale_down_unneeded_time_seconds: secs(g.input.scale_down_unneeded_time.millis()),
                scale_down_delay_after_add_seconds: secs(
                    setup.timing.scale_down_delay_after_add.millis(),
                ),
            }
        });
        let with_nodes = setup.nodes.is_some();
        let limited = self.rows.iter().any(|r| r.unserved_load.is_some());
        let unserved = self.rows.iter().filter_map(|r| r.unserved_load);
        Simulation {
            schema_version: SCHEMA_VERSION,
            hpa: format!("{}/{}", hpa.namespace, hpa.name),
            target: format!("{}/{}", hpa.target.kind, hpa.target.name),
            kube_version: format!("1.{}", scenario.config.kube_minor),
            scenario: setup.label.clone(),
            replay: setup.replay.clone(),
            metric: metric_info(scenario),
            settings: Settings {
                duration_seconds: secs(end),
                start_replicas: setup.start_replicas,
                min_replicas: hpa.min_replicas,
                max_replicas: hpa.max_replicas,
                sync_period_seconds: secs(setup.timing.sync_period.millis()),
                pod_startup_seconds: secs(setup.timing.pod_startup.millis()),
                pod_termination_seconds: secs(setup.timing.pod_termination.millis()),
                metrics_window_seconds: secs(setup.timing.metrics_window.millis()),
                scale_down_window_seconds: window_down,
                scale_up_window_seconds: window_up,
                pod_request: quantities(&setup.pod_request),
                nodes: node_settings,
                pod_limit: quantities(&setup.pod_limit),
                rollout: setup.rollout.map(|r| RolloutSettings {
                    at_seconds: secs(r.at),
                    max_surge: r.max_surge.to_string(),
                    max_unavailable: r.max_unavailable.to_string(),
                    min_ready_seconds: secs(r.min_ready),
                }),
                startup_cpu: setup.startup_cpu.map(|b| StartupCpuSettings {
                    factor: milli_to_f64(b.factor_milli),
                    seconds: secs(b.duration.millis()),
                }),
            },
            load_columns: setup.load.columns.clone(),
            load_curve: setup
                .load
                .steps
                .iter()
                .filter(|step| step.at.millis() <= end)
                .map(|step| LoadPoint {
                    time: secs(step.at.millis()),
                    load: step.values.first().copied().map_or(0.0, milli_to_f64),
                })
                .collect(),
            summary: Summary {
                syncs: self.rows.len(),
                scale_ups,
                scale_downs,
                peak_replicas: self
                    .rows
                    .iter()
                    .map(|r| r.desired_replicas.max(r.replicas))
                    .max()
                    .unwrap_or(setup.start_replicas),
                final_replicas: self.replicas,
                time_to_target_seconds: time_to_target,
                last_load_change_seconds: last_change,
                pod_seconds: secs(self.totals.pod_ms),
                ready_pod_seconds: secs(self.totals.ready_ms),
                pending_pod_seconds: secs(self.totals.pending_ms),
                max_pending_pods: self.totals.max_pending,
                node_seconds: with_nodes.then_some(secs(self.totals.node_ms)),
                peak_nodes: with_nodes.then_some(self.totals.peak_nodes),
                final_nodes: with_nodes.then_some(count(self.nodes.len())),
                peak_unserved_load: unserved.clone().max_by(f64::total_cmp),
                unserved_syncs: limited.then(|| unserved.filter(|&u| u > 0.0).count()),
                rollout_surge_syncs: self
                    .rows
                    .iter()
                    .filter(|r| r.rollout_surge.is_some())
                    .count(),
                actual: None,
            },
            timeline: self.rows,
            events: self.events,
        }
    }
}

/// Each resource's quantity as Kubernetes prints it.
fn quantities(list: &Resources) -> BTreeMap<String, String> {
    list.0
        .iter()
        .map(|(n, v)| (n.clone(), build_quantity(n, *v)))
        .collect()
}

/// How many more pods of `request` fit on the node: the fit rule in closed form for identical
/// pods (`pods_per_node` with the node's own requests in place of the DaemonSets').
fn room_for(slot: &Slot, request: &Resources) -> i64 {
    nodes::pods_per_node(&slot.allocatable, &slot.requested, request).0
}

/// The Ready node with the best LeastAllocated score that fits one more pod (ties to the
/// lowest index); the unlimited node 0 without node information.
fn pick_node(setup: &Setup, nodes: &[SimNode]) -> Option<u32> {
    if setup.nodes.is_none() {
        return Some(0);
    }
    let request = &setup.pod_request;
    let mut best: Option<(i64, u32)> = None;
    for n in nodes {
        if n.state != NodeState::Ready || !n.slot.schedulable || !n.slot.fits(request) {
            continue;
        }
        let score = least_allocated_score(&n.slot, request);
        if best.is_none_or(|(s, _)| score > s) {
            best = Some((score, n.id));
        }
    }
    best.map(|(_, id)| id)
}

/// The scheduler binds the pod (`p`, and `pod` as the controller sees it) to `node` at `t`:
/// the pod takes its room there and starts.
fn bind(setup: &Setup, nodes: &mut [SimNode], p: &mut SimPod, pod: &mut Pod, node: u32, t: i64) {
    if let Some(n) = nodes.iter_mut().find(|n| n.id == node) {
        n.slot.place(&setup.pod_request);
    }
    p.bind(pod, node, t, setup.timing.pod_startup.millis());
}

/// The existing nodes: `--existing-nodes`, or just enough for the start pods.
fn start_nodes(input: &NodeInput, start_replicas: i32) -> Vec<SimNode> {
    let slots: Vec<Slot> = match &input.existing {
        Existing::Template(n) => {
            let n = n.unwrap_or_else(|| {
                let (k, _) =
                    nodes::pods_per_node(&input.template, &input.daemonsets, &input.pod_request);
                let pods = i64::from(start_replicas.max(0));
                if k > 0 { (pods + k - 1) / k } else { 0 }
            });
            (1..=n)
                .map(|i| nodes::template_slot(format!("node-{i}"), input))
                .collect()
        }
        Existing::Nodes(list) => list
            .iter()
            .map(|n| {
                // The workload's own pods are placed by the simulation; keep the rest.
                let mut slot = nodes::template_slot(n.name.clone(), input);
                slot.allocatable = n.allocatable.clone();
                slot.requested = n.requested.clone();
                for _ in 0..n.workload_pods {
                    slot.workload_pods += 1;
                    slot.remove(&input.pod_request);
                }
                slot.schedulable = n.schedulable;
                slot
            })
            .collect(),
    };
    slots
        .into_iter()
        .enumerate()
        .map(|(i, slot)| SimNode {
            id: u32::try_from(i + 1).unwrap_or(u32::MAX),
            slot,
            state: NodeState::Ready,
            unneeded_since: None,
        })
        .collect()
}

/// The owned facts of one sync.
fn decide(sync: &Sync<'_>) -> Decision {
    let (utilization, ratio) = match sync.outcomes.first().map(|o| &o.result) {
        Some(Ok(Computed::PodBased(r))) => (
            Some(
                r.utilization
                    .map_or_else(|| milli_to_f64(r.raw_average), f64::from),
            ),
            Some(r.usage_ratio),
        ),
        Some(Ok(Computed::Value(v))) => (Some(milli_to_f64(v.usage)), Some(v.usage_ratio)),
        _ => (None, None),
    };
    let stabilized = sync.normalization.as_ref().map(|n| n.stabilized);
    let reason = match sync.branch {
        Branch::ScalingDisabled | Branch::MetricsFailed => sync
            .conditions
            .get("ScalingActive")
            .map(|c| c.reason.clone()),
        Branch::AboveMax => Some("TooManyReplicas".to_string()),
        Branch::BelowMin => Some("TooFewReplicas".to_string()),
        Branch::Metrics => match (&sync.normalization, sync.metric_proposal) {
            (Some(n), _) if n.limited.replicas != n.stabilized => {
                Some(n.limited.reason.to_string())
            }
            (Some(n), Some(p)) if n.stabilized > p => Some("ScaleDownStabilized".to_string()),
            (Some(n), Some(p)) if n.stabilized < p => Some("ScaleUpStabilized".to_string()),
            _ => None,
        },
    };
    Decision {
        desired: sync.desired_replicas,
        recommendation: sync.metric_proposal,
        stabilized,
        reason,
        utilization,
        in_band: ratio.is_some_and(|r| sync.tolerances.is_within(r)),
    }
}

/// The first metric's description, target and the controller's tolerance, for labels and the
/// chart's band.
fn metric_info(scenario: &Scenario) -> MetricInfo {
    let tolerance = crate::calc::explain::band(&tolerances_for_hpa(
        &scenario.hpa,
        scenario.config.tolerance,
        &VersionRules::for_scenario(scenario),
    ));
    let Some(spec) = scenario.hpa.metrics.first() else {
        return MetricInfo {
            description: String::new(),
            target: String::new(),
            percent: false,
            target_value: None,
            tolerance,
        };
    };
    let target = spec.target();
    let name = match spec {
        MetricSpec::Resource { resource, .. } => resource.as_str(),
        _ => "",
    };
    let (text, percent, value) = match (
        target.target_type,
        target.average_utilization,
        target.average_value_milli,
        target.value_milli,
    ) {
        (TargetType::Utilization, Some(u), _, _) => (format!("{u}%"), true, Some(f64::from(u))),
        (_, _, Some(v), _) | (_, _, None, Some(v)) => {
            (build_quantity(name, v), false, Some(milli_to_f64(v)))
        }
        _ => (String::new(), false, None),
    };
    MetricInfo {
        description: metrics::metric_name(spec),
        target: text,
        percent,
        target_value: value,
        tolerance,
    }
}

#[cfg(test)]
mod tests;
