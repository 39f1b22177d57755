//! The simulation's clock and cluster: the `Engine` holds a run's pods, nodes and the HPA's
//! `ControllerMemory`, jumps from event to event, and at each instant lets the components act in
//! the reference's causal order (`tick`). Each component's rules are an `impl Engine` in its own
//! file; the cluster's state and the bookkeeping they share (a pod's removal, the events) are
//! here.

use crate::calc::nodes::{self, Slot};
use crate::report::Report;
use crate::scenario::keda::KedaInput;
use crate::scenario::simulation::Setup;
use crate::scenario::{
    ConditionStatus, ControllerMemory, Existing, NodeInput, Pod, PodPhase, ReadyCondition, Scenario,
};
use crate::stop::{Stop, Stopped};
use crate::time::{Duration, Timestamp};

use super::actual::compare;
use super::result::{Event, Simulation, SyncRow};
use super::snapshot::Snapshot;

/// The simulation clock's zero as an instant (any instant would do: only differences matter).
pub const START: Timestamp = Timestamp(1_800_000_000_000);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PodState {
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
pub(super) struct SimPod {
    pub(super) seq: u64,
    pub(super) created: i64,
    /// The node id; 0 is the unlimited node of a run without node information.
    pub(super) node: Option<u32>,
    pub(super) state: PodState,
    /// The scheduler found no room for it at least once.
    pub(super) waited: bool,
    /// The pod template's revision (its ReplicaSet): 0, then 1 from a rollout on.
    pub(super) revision: u32,
    /// When it was bound and its containers started.
    pub(super) started: Option<i64>,
}

impl SimPod {
    pub(super) fn active(&self) -> bool {
        !matches!(self.state, PodState::Terminating { .. })
    }

    /// Bound to `node` at `t`: phase Running, Ready=False until the startup time has passed
    /// (Ready at once without one). `pod` is this pod as the controller sees it.
    pub(super) fn bind(&mut self, pod: &mut Pod, node: u32, t: i64, startup: i64) {
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
    pub(super) fn make_ready(&mut self, pod: &mut Pod, at: i64) {
        self.state = PodState::Ready { since: at };
        pod.ready = Some(ReadyCondition {
            status: ConditionStatus::True,
            last_transition_time: START.add(Duration(at)),
        });
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NodeState {
    Booting { ready_at: i64 },
    Ready,
}

#[derive(Debug, Clone)]
pub(super) struct SimNode {
    pub(super) id: u32,
    pub(super) slot: Slot,
    pub(super) state: NodeState,
    pub(super) unneeded_since: Option<i64>,
    /// The group of `--node-groups` the node belongs to (`None`: the one node group).
    pub(super) group: Option<usize>,
    /// The NodeClaim Karpenter launched it as (`--nodepool`); `None` for a node group's node.
    pub(super) claim: Option<super::karpenter::Claim>,
}

pub(super) struct Engine<'s> {
    pub(super) setup: &'s Setup,
    /// Sees each sync's row and can build its full report (`run_observed`).
    pub(super) observer: Option<&'s mut SyncObserver<'s>>,
    pub(super) scenario: Scenario,
    pub(super) memory: ControllerMemory,
    pub(super) feeds: MetricFeeds,
    /// Aligned with `scenario.pods`.
    pub(super) pods: Vec<SimPod>,
    pub(super) nodes: Vec<SimNode>,
    pub(super) next_seq: u64,
    pub(super) next_node: u32,
    /// The target's `spec.replicas`.
    pub(super) replicas: i32,
    pub(super) load_cursor: usize,
    pub(super) last_scale_up: Option<i64>,
    /// An extra instant the scheduler must run at (pods recreated after an eviction).
    pub(super) extra_tick: Option<i64>,
    /// The last "cannot add nodes" note, said once per change.
    pub(super) ca_note: Option<String>,
    pub(super) min_size_note: bool,
    pub(super) rows: Vec<SyncRow>,
    pub(super) in_band: Vec<bool>,
    pub(super) events: Vec<Event>,
    pub(super) totals: Totals,
    /// A KEDA ScaledObject's poll, before the HPA's syncs (`keda.rs`).
    pub(super) keda: Option<Poll>,
    /// The current pod template's revision: new pods get it.
    pub(super) revision: u32,
    /// The two ReplicaSets while a rollout is in progress.
    pub(super) sets: Option<Sets>,
    /// Karpenter's batcher and NodeClaims (`karpenter.rs`), with `--nodepool`.
    pub(super) provisioner: Option<super::karpenter::Provisioner>,
}

// What each component keeps between instants; its rules are in its own file.

/// The ScaledObject and what KEDA remembers between polls.
#[derive(Debug, Clone)]
pub struct Poll {
    /// Its triggers' failure counts (`status.health`) and `lastActiveTime` are KEDA's memory.
    pub(super) input: KedaInput,
    pub(super) every: i64,
    /// What KEDA's metrics server serves for each trigger that failed at the last poll: the
    /// fallback's value, or `None` (an error).
    pub(super) serving: std::collections::BTreeMap<String, Option<i64>>,
    /// Paused by annotation at the last poll: KEDA deleted the HPA.
    pub(super) paused: bool,
}

/// Each metric of the HPA, and where its value comes from in the load.
#[derive(Debug, Clone, Default)]
pub(super) struct MetricFeeds {
    /// Resource and ContainerResource metrics: resource name → load column (first one wins).
    pub(super) resources: Vec<(String, usize)>,
    /// Pods, Object and External metrics: (position in `spec.metrics`, column), one per entry.
    pub(super) pods: Vec<(usize, usize)>,
    pub(super) object: Vec<(usize, usize)>,
    pub(super) external: Vec<(usize, usize)>,
}

/// The two ReplicaSets of a rollout in progress: their `spec.replicas`, and the annotations the
/// Deployment controller stamps on them when it scales them (`SetReplicasAnnotations`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sets {
    pub old: i32,
    pub new: i32,
    /// `deployment.kubernetes.io/desired-replicas`.
    pub desired_annotation: i32,
    /// `deployment.kubernetes.io/max-replicas`.
    pub max_annotation: i32,
}

#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Totals {
    pub(super) pod_ms: i64,
    pub(super) ready_ms: i64,
    pub(super) pending_ms: i64,
    pub(super) node_ms: i64,
    pub(super) max_pending: i64,
    pub(super) peak_nodes: i64,
    /// Dollars × milliseconds of the NodeClaims' prices per hour (Karpenter's nodes).
    pub(super) node_cost: f64,
}

pub(super) fn secs(ms: i64) -> i64 {
    ms.div_euclid(1000)
}

pub(super) fn milli_to_f64(milli: i64) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let v = milli as f64 / 1000.0;
    v
}

pub(super) fn count(n: usize) -> i64 {
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
    let (engine, end) = drive(setup, observer, &Stop::default());
    finish(engine, end)
}

/// Runs the simulation and keeps the cluster as the run leaves it (`/simulate`'s panels).
pub fn run_to_snapshot<'s>(
    setup: &'s Setup,
    observer: Option<&'s mut SyncObserver<'s>>,
) -> (Simulation, Snapshot) {
    let (engine, end) = drive(setup, observer, &Stop::default());
    let snapshot = engine.snapshot(end);
    (finish(engine, end), snapshot)
}

/// `run_to_snapshot` that ends with `Stopped` once `stop` is due: a server's request past its
/// time limit frees its place within a few events, however long the run would have been.
pub fn run_until<'s>(
    setup: &'s Setup,
    observer: Option<&'s mut SyncObserver<'s>>,
    stop: &Stop,
) -> Result<(Simulation, Snapshot), Stopped> {
    let (engine, end) = drive(setup, observer, stop);
    stop.check()?;
    let snapshot = engine.snapshot(end);
    Ok((finish(engine, end), snapshot))
}

/// How many events pass between two looks at the clock: one look costs about as much as a
/// few dozen nanoseconds, an event a few microseconds at least.
const EVENTS_PER_CHECK: u32 = 16;

/// The event loop, from 0 to the run's end or until `stop` is due (then the engine is left
/// where it stopped).
fn drive<'s>(
    setup: &'s Setup,
    observer: Option<&'s mut SyncObserver<'s>>,
    stop: &Stop,
) -> (Engine<'s>, i64) {
    let mut engine = Engine::new(setup);
    engine.observer = observer;
    engine.place_start_pods();
    engine.seed_memory();
    let end = setup.duration.millis().max(0);
    let sync = setup.timing.sync_period.millis().max(1000);
    let scan = setup.timing.ca_scan_interval.millis().max(1000);
    let mut t = 0i64;
    let mut events = 0u32;
    loop {
        let is_sync = t % sync == 0;
        let is_scan = cluster_autoscaler(setup) && t % scan == 0;
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
        events = events.wrapping_add(1);
        if events.is_multiple_of(EVENTS_PER_CHECK) && stop.due() {
            break;
        }
    }
    (engine, end)
}

/// The run's result, compared with the actual replicas when they were given.
fn finish(engine: Engine<'_>, end: i64) -> Simulation {
    let setup = engine.setup;
    let mut simulation = engine.finish(end);
    if let Some(curve) = &setup.actual {
        compare(&mut simulation, curve);
    }
    simulation
}

impl<'s> Engine<'s> {
    pub(super) fn new(setup: &'s Setup) -> Self {
        let mut scenario = setup.scenario.clone();
        scenario.pods.clear();
        scenario.metrics = Default::default();
        scenario.memory = None;
        scenario.nodes = None;
        scenario.current_replicas = setup.start_replicas;
        scenario.now = START;
        let feeds = MetricFeeds::new(&mut scenario, &setup.load.metric_columns);
        let mut provisioner = None;
        let nodes = match &setup.nodes {
            None => Vec::new(),
            Some(group) => match (&group.karpenter, &group.groups) {
                (Some(k), _) => {
                    let (p, nodes) = super::karpenter::provisioner(
                        k,
                        setup.start_replicas,
                        &group.input.daemonsets,
                    );
                    provisioner = Some(p);
                    nodes
                }
                (None, Some(groups)) => super::groups::start_nodes(groups),
                (None, None) => start_nodes(&group.input, setup.start_replicas),
            },
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
            keda: setup.scenario.keda.clone().map(Poll::new),
            observer: None,
            revision: 0,
            sets: None,
            provisioner,
        }
    }

    pub(super) fn event(&mut self, t: i64, source: &'static str, message: String) {
        self.events.push(Event {
            time: secs(t),
            source,
            message,
        });
    }

    /// One instant, in the reference's causal order (§8.2).
    fn tick(&mut self, t: i64, is_sync: bool, is_scan: bool) {
        // Nodes and pods finish what they started (`kubelet.rs`).
        self.nodes_progress(t);
        self.pods_progress(t);
        // The Deployment controller (`rollout.rs`), KEDA (`keda.rs`), the HPA (`hpa.rs`), each
        // with the ReplicaSets acting on what it sets (`replicaset.rs`).
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
        // The scheduler binds Pending pods (`scheduler.rs`), then the Cluster Autoscaler scans
        // (`autoscaler.rs`).
        self.schedule(t);
        if is_scan {
            self.cluster_autoscaler(t);
        }
        // Or Karpenter, with `--nodepool` (`karpenter.rs`).
        self.karpenter(t);
    }

    pub(super) fn next_event(&self, t: i64, sync: i64, scan: i64) -> i64 {
        let mut next = (t.div_euclid(sync) + 1) * sync;
        if cluster_autoscaler(self.setup) {
            next = next.min((t.div_euclid(scan) + 1) * scan);
        }
        if let Some(end) = self.batch_end().filter(|&e| e > t) {
            next = next.min(end);
        }
        if let Some(k) = self.karpenter_next(t) {
            next = next.min(k);
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
        let prices: f64 = (self.nodes.iter())
            .filter_map(|n| n.claim.as_ref().map(|c| c.price))
            .sum();
        #[allow(clippy::cast_precision_loss)]
        let ms = dt as f64;
        totals.node_cost += prices * ms;
    }

    /// Removes the pods `gone` selects, and gives their node room back.
    pub(super) fn remove_pods(&mut self, gone: impl Fn(&SimPod) -> bool) {
        let keep: Vec<bool> = self.pods.iter().map(|p| !gone(p)).collect();
        for (p, _) in self.pods.iter().zip(&keep).filter(|(_, k)| !**k) {
            if let Some(n) = (p.node)
                .and_then(|id| node_index(&self.nodes, id))
                .and_then(|i| self.nodes.get_mut(i))
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

    pub(super) fn node_name(&self, id: u32) -> String {
        node_index(&self.nodes, id)
            .and_then(|i| self.nodes.get(i))
            .map_or_else(|| format!("node {id}"), |n| n.slot.name.clone())
    }
}

/// The Cluster Autoscaler's loop runs: a node model, and not Karpenter's.
fn cluster_autoscaler(setup: &Setup) -> bool {
    setup.nodes.as_ref().is_some_and(|g| g.karpenter.is_none())
}

/// Where the node `id` is in `nodes`, found in a logarithm of their count: ids are handed out in
/// increasing order (`start_nodes`, then each node the Cluster Autoscaler adds) and nodes are
/// only ever removed, so the list stays sorted by id.
pub(super) fn node_index(nodes: &[SimNode], id: u32) -> Option<usize> {
    nodes.binary_search_by_key(&id, |n| n.id).ok()
}

/// The existing nodes: `--existing-nodes`, or just enough for the start pods.
pub(super) fn start_nodes(input: &NodeInput, start_replicas: i32) -> Vec<SimNode> {
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
            group: None,
            claim: None,
        })
        .collect()
}
