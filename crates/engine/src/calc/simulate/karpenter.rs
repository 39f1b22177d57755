//! Karpenter in the simulation (`simulate --nodepool`), in place of the Cluster Autoscaler: the
//! Pending pods open a batch window, the window closes after a second without new Pending pods
//! or ten seconds after it opened, then one `Solve` (`calc::karpenter`, the scheduler of the
//! single sync) places every Pending pod on the NodeClaims already launched (booting or Ready)
//! or on new ones, which are launched and turn Ready after the node startup time; kube-scheduler
//! then binds the pods to them (`scheduler.rs`) as to any node.
//!
//! Mirrors kubernetes-sigs/karpenter `pkg/controllers/provisioning`: `Batcher.Trigger` and
//! `Batcher.Wait` (`batcher.go`) for the window, `Provisioner.Schedule` and `CreateNodeClaims`
//! (`provisioner.go`) for the launch. Consolidation is not simulated here yet: its one call site
//! is `karpenter_disruption`.

use std::collections::BTreeSet;

use crate::calc::karpenter::catalog::{CAPACITY_TYPE, INSTANCE_TYPE, Item, Res, ZONE};
use crate::calc::karpenter::requirements::Operator;
use crate::calc::karpenter::scheduler::ExistingNode;
use crate::calc::karpenter::{catalog_of, claim_report, solve_on};
use crate::calc::nodes::{self, Slot};
use crate::scenario::karpenter::KarpenterInput;
use crate::scenario::node_groups::Taint;
use crate::scenario::{Capacity, Resources};

use super::engine::{Engine, NodeState, PodState, SimNode, clock, count, secs};
use super::result::NodeClaimRun;

/// `BATCH_IDLE_DURATION`'s default (`options.go`): a window closes after this long without a new
/// Pending pod.
pub const BATCH_IDLE_MS: i64 = 1_000;
/// `BATCH_MAX_DURATION`'s default (`options.go`): a window closes this long after it opened.
pub const BATCH_MAX_MS: i64 = 10_000;

/// What Karpenter keeps between instants.
#[derive(Debug, Clone, Default)]
pub(super) struct Provisioner {
    /// The catalog as the scheduler reads it, built once.
    pub(super) catalog: Vec<Item>,
    /// The open batch window: (opened at, last trigger at).
    pub(super) window: Option<(i64, i64)>,
    /// The pods (by sequence number) that triggered the batcher already: each pod triggers once.
    pub(super) triggered: BTreeSet<u64>,
    /// The last "pods stay Pending" note, said once per change.
    pub(super) note: Option<String>,
    /// Every NodeClaim of the run, in launch order.
    pub(super) claims: Vec<NodeClaimRun>,
}

/// What a node launched by Karpenter is: its NodeClaim.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Claim {
    pub(super) node_pool: String,
    pub(super) instance_type: String,
    pub(super) capacity_type: String,
    pub(super) zone: String,
    pub(super) price: f64,
    /// The node's labels, as a later solve matches pods against them.
    pub(super) labels: Vec<(String, String)>,
    pub(super) taints: Vec<Taint>,
}

/// Milli-unit resources (the `pods` slot × 1000) as a node's capacity.
fn capacity_of(r: &Res) -> Capacity {
    Capacity {
        resources: Resources(
            r.iter()
                .filter(|(k, _)| k.as_str() != "pods")
                .map(|(k, v)| (k.clone(), *v))
                .collect(),
        ),
        pods: r.get("pods").copied().unwrap_or(0) / 1000,
    }
}

/// A node's capacity as the Karpenter scheduler's resources.
fn res_of(c: &Capacity) -> Res {
    let mut out: Res = c.resources.0.iter().cloned().collect();
    out.insert("pods".into(), c.pods.saturating_mul(1000));
    out
}

/// The labels a node of `item` bought as (zone, capacity type) in `pool` carries: the type's
/// single-valued requirements, the offering's zone and capacity type, the NodePool's own labels
/// and the `karpenter.sh/nodepool` label.
fn labels_of(
    input: &KarpenterInput,
    pool: &str,
    item: &Item,
    zone: &str,
    ct: &str,
) -> Vec<(String, String)> {
    let mut labels: Vec<(String, String)> = (item.requirements.0.iter())
        .filter(|(k, r)| {
            r.operator() == Operator::In && r.len() == 1 && *k != ZONE && *k != CAPACITY_TYPE
        })
        .filter_map(|(k, r)| r.values().next().map(|v| (k.clone(), v.clone())))
        .collect();
    labels.push((ZONE.into(), zone.into()));
    labels.push((CAPACITY_TYPE.into(), ct.into()));
    labels.push(("karpenter.sh/nodepool".into(), pool.into()));
    if let Some(np) = input.node_pools.iter().find(|np| np.name == pool) {
        labels.extend(np.labels.iter().cloned());
    }
    if !labels.iter().any(|(k, _)| k == INSTANCE_TYPE) {
        labels.push((INSTANCE_TYPE.into(), item.name.clone()));
    }
    labels
}

/// The NodeClaims a solve opened, each with the node its launch makes: (claim, its pods, the
/// node's allocatable), in the solve's order; the pods no NodePool takes, by Karpenter's reason;
/// and the pods placed on NodeClaims launched before.
struct Solved {
    launches: Vec<(Claim, i64, Capacity)>,
    unschedulable: Vec<(i64, String)>,
    on_existing: i64,
}

fn solve(
    input: &KarpenterInput,
    catalog: &[Item],
    existing: Vec<ExistingNode>,
    pending: i64,
) -> Solved {
    let results = solve_on(input, catalog, existing, pending);
    let mut launches = Vec::new();
    for c in &results.claims {
        let report = claim_report(catalog, &results, c);
        let (Some(l), Some(price)) = (report.launched, report.price_per_hour) else {
            continue;
        };
        let Some(item) = catalog.iter().find(|it| it.name == l.instance_type) else {
            continue;
        };
        let taints =
            (results.templates.get(c.template)).map_or_else(Vec::new, |t| t.taints.clone());
        let claim = Claim {
            labels: labels_of(input, &report.node_pool, item, &l.zone, &l.capacity_type),
            node_pool: report.node_pool,
            instance_type: l.instance_type,
            capacity_type: l.capacity_type,
            zone: l.zone,
            price,
            taints,
        };
        launches.push((claim, report.pods, capacity_of(&item.allocatable)));
    }
    let mut unschedulable: Vec<(i64, String)> = Vec::new();
    for (_, reason) in &results.errors {
        match unschedulable.iter_mut().find(|(_, r)| r == reason) {
            Some((n, _)) => *n += 1,
            None => unschedulable.push((1, reason.clone())),
        }
    }
    let on_existing = results.existing.iter().map(|n| count(n.pods.len())).sum();
    Solved {
        launches,
        unschedulable,
        on_existing,
    }
}

/// The nodes Karpenter launched for the start pods, Ready since long before the run: one solve
/// of `start_replicas` Pending pods on an empty cluster, as Karpenter would have left it.
pub(super) fn start_nodes(
    input: &KarpenterInput,
    catalog: &[Item],
    start_replicas: i32,
    daemonsets: &Capacity,
) -> (Vec<SimNode>, Vec<NodeClaimRun>) {
    let solved = solve(input, catalog, Vec::new(), i64::from(start_replicas.max(0)));
    let mut nodes = Vec::new();
    let mut runs = Vec::new();
    for (i, (claim, _, allocatable)) in solved.launches.into_iter().enumerate() {
        let id = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let name = format!("{}-{id}", claim.node_pool);
        runs.push(claim_run(&name, &claim, None, None));
        nodes.push(SimNode {
            id,
            slot: nodes::fresh_slot(name, &allocatable, daemonsets),
            state: NodeState::Ready,
            unneeded_since: None,
            group: None,
            claim: Some(claim),
        });
    }
    (nodes, runs)
}

fn claim_run(name: &str, c: &Claim, launched: Option<i64>, ready: Option<i64>) -> NodeClaimRun {
    NodeClaimRun {
        name: name.to_string(),
        node_pool: c.node_pool.clone(),
        instance_type: c.instance_type.clone(),
        capacity_type: c.capacity_type.clone(),
        zone: c.zone.clone(),
        price_per_hour: c.price,
        launched_at: launched.map(secs),
        ready_at: ready.map(secs),
    }
}

/// A node as the next solve sees it: its labels, taints, capacity (its instance type's, for the
/// NodePool's limits), allocatable and what is bound to it.
fn existing_of(catalog: &[Item], slot: &Slot, claim: &Claim) -> ExistingNode {
    let allocatable = res_of(&slot.allocatable);
    let capacity = (catalog.iter().find(|it| it.name == claim.instance_type))
        .map_or_else(|| allocatable.clone(), |it| it.capacity.clone());
    ExistingNode {
        name: slot.name.clone(),
        labels: claim.labels.clone(),
        taints: claim.taints.clone(),
        capacity,
        allocatable,
        requested: res_of(&slot.requested),
        host_ports: Vec::new(),
        workload_pods: 0,
        pods: Vec::new(),
    }
}

impl Engine<'_> {
    /// Karpenter's part of an instant, after kube-scheduler: new Pending pods trigger the
    /// batcher, a window due now provisions, then disruption.
    pub(super) fn karpenter(&mut self, t: i64) {
        if self.provisioner.is_none() {
            return;
        }
        self.karpenter_trigger(t);
        if self.batch_end().is_some_and(|end| end <= t) {
            self.karpenter_provision(t);
        }
        self.karpenter_disruption(t);
    }

    // Port of Batcher.Trigger (batcher.go): each Pending pod triggers once; the first trigger
    // opens the window, each later one restarts its idle timer.
    fn karpenter_trigger(&mut self, t: i64) {
        let Some(k) = self.provisioner.as_mut() else {
            return;
        };
        let mut fresh = false;
        for p in self.pods.iter().filter(|p| p.state == PodState::Pending) {
            fresh |= k.triggered.insert(p.seq);
        }
        if fresh {
            k.window = Some(match k.window {
                None => (t, t),
                Some((opened, _)) => (opened, t),
            });
        }
    }

    /// The batch window's end (`window_end`), if one is open.
    pub(super) fn batch_end(&self) -> Option<i64> {
        let (opened, last) = self.provisioner.as_ref()?.window?;
        Some(window_end(opened, last))
    }

    // Mirrors Provisioner.Schedule and CreateNodeClaims (provisioner.go): every Pending pod is
    // solved over the NodeClaims launched before (Ready or booting, with the pods bound to them)
    // and new ones, and each new NodeClaim is launched.
    fn karpenter_provision(&mut self, t: i64) {
        let setup = self.setup;
        let Some(input) = setup.nodes.as_ref().and_then(|g| g.karpenter.as_ref()) else {
            return;
        };
        let daemonsets = setup.nodes.as_ref().map(|g| &g.input.daemonsets);
        let Some(k) = self.provisioner.as_mut() else {
            return;
        };
        let Some((opened, _)) = k.window.take() else {
            return;
        };
        let pending = count(
            self.pods
                .iter()
                .filter(|p| p.state == PodState::Pending)
                .count(),
        );
        if pending == 0 {
            return;
        }
        let existing: Vec<ExistingNode> = (self.nodes.iter())
            .filter_map(|n| {
                n.claim
                    .as_ref()
                    .map(|c| existing_of(&k.catalog, &n.slot, c))
            })
            .collect();
        let solved = solve(input, &k.catalog, existing, pending);
        let ready_at = t + setup.timing.node_startup.millis();
        let mut launched = Vec::new();
        for (claim, pods, allocatable) in solved.launches {
            self.next_node += 1;
            let name = format!("{}-{}", claim.node_pool, self.next_node);
            launched.push(format!(
                "NodeClaim {name} ({}, {}, {}, ${:.3}/h) for {pods} pod(s)",
                claim.instance_type, claim.capacity_type, claim.zone, claim.price
            ));
            k.claims
                .push(claim_run(&name, &claim, Some(t), Some(ready_at)));
            self.nodes.push(SimNode {
                id: self.next_node,
                slot: nodes::fresh_slot(
                    name,
                    &allocatable,
                    daemonsets.unwrap_or(&Capacity::default()),
                ),
                state: NodeState::Booting { ready_at },
                unneeded_since: None,
                group: None,
                claim: Some(claim),
            });
        }
        let window = format!(
            "batch of {pending} Pending pod(s) from {} to {}",
            clock(secs(opened)),
            clock(secs(t))
        );
        let mut said = Vec::new();
        if solved.on_existing > 0 {
            said.push(format!(
                "{} fit on NodeClaims launched before",
                solved.on_existing
            ));
        }
        if !launched.is_empty() {
            said.push(format!(
                "launches {} (Ready at {})",
                launched.join(", "),
                clock(secs(ready_at))
            ));
        }
        let note = (!solved.unschedulable.is_empty()).then(|| {
            let parts: Vec<String> = (solved.unschedulable.iter())
                .map(|(n, reason)| format!("{n} pod(s): {reason}"))
                .collect();
            format!("stay Pending: {}", parts.join("; "))
        });
        let k = self.provisioner.as_mut();
        let repeated = k.as_ref().is_some_and(|k| k.note == note);
        if let Some(k) = k {
            k.note.clone_from(&note);
        }
        if let Some(note) = note.filter(|_| !repeated || !launched.is_empty()) {
            said.push(note);
        }
        if !said.is_empty() {
            self.event(t, "karpenter", format!("{window}: {}", said.join("; ")));
        }
    }

    /// The single place where Karpenter's disruption controller (consolidation: empty,
    /// single-node and multi-node, within the NodePool's budgets and `consolidateAfter`) acts on
    /// the NodeClaims each instant. Not simulated yet: no node launched by Karpenter is removed
    /// or replaced during a run.
    fn karpenter_disruption(&mut self, _t: i64) {}
}

// Port of Batcher.Wait (batcher.go): the window opened at `opened` and last triggered at `last`
// ends BATCH_IDLE_DURATION after the last trigger or BATCH_MAX_DURATION after it opened,
// whichever comes first.
fn window_end(opened: i64, last: i64) -> i64 {
    (last + BATCH_IDLE_MS).min(opened + BATCH_MAX_MS)
}

/// What Karpenter starts a run with: its catalog, and the nodes it launched for the start pods.
pub(super) fn provisioner(
    input: &KarpenterInput,
    start_replicas: i32,
    daemonsets: &Capacity,
) -> (Provisioner, Vec<SimNode>) {
    let catalog = catalog_of(input);
    let (nodes, claims) = start_nodes(input, &catalog, start_replicas, daemonsets);
    (
        Provisioner {
            catalog,
            claims,
            ..Provisioner::default()
        },
        nodes,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::simulate::run;
    use crate::calc::testing::simulation;
    use crate::scenario::karpenter::{InstanceType, NodePool, Offering, PendingGroup};
    use crate::scenario::simulation::{NodeGroup, Setup};
    use crate::scenario::{Existing, NodeInput};
    use crate::time::Duration;

    /// A type of `cores` cores (100m of them reserved), at 5 cents a core-hour.
    fn cores(n: i64) -> InstanceType {
        #[allow(clippy::cast_precision_loss)]
        let price = n as f64 * 0.05;
        InstanceType {
            name: format!("c{n}"),
            labels: Vec::new(),
            capacity: Capacity {
                resources: Resources(vec![("cpu".into(), n * 1000)]),
                pods: 110,
            },
            overhead: Capacity {
                resources: Resources(vec![("cpu".into(), 100)]),
                pods: 0,
            },
            offerings: vec![Offering {
                zone: "zone-a".into(),
                capacity_type: "on-demand".into(),
                price,
                available: true,
            }],
        }
    }

    /// `simulation(load, replicas)` with Karpenter: one NodePool over 2-, 4-, 8- and 16-core
    /// types, a 100m DaemonSet, the NodePool's cpu limit `limit` (millicores) if any.
    fn on_karpenter(load: &[(i64, i64)], replicas: i32, limit: Option<i64>) -> Setup {
        let mut setup = simulation(load, replicas);
        let daemonsets = Capacity {
            resources: Resources(vec![("cpu".into(), 100)]),
            pods: 1,
        };
        let karpenter = KarpenterInput {
            node_pools: vec![NodePool {
                name: "default".into(),
                weight: 0,
                requirements: Vec::new(),
                labels: Vec::new(),
                taints: Vec::new(),
                limits: limit.map(|l| Resources(vec![("cpu".into(), l)])),
                node_class: "default".into(),
                disruption: Default::default(),
            }],
            instance_types: [2, 4, 8, 16].into_iter().map(cores).collect(),
            catalog_source: "test".into(),
            existing: Vec::new(),
            daemonsets: daemonsets.clone(),
            pod: PendingGroup {
                name: "pod".into(),
                count: 0,
                request: setup.pod_request.clone(),
                constraints: Default::default(),
            },
            pod_request_source: "--pod-request".into(),
        };
        setup.nodes = Some(NodeGroup {
            input: NodeInput {
                template: Capacity::default(),
                daemonsets,
                existing: Existing::Template(Some(0)),
                pod_request: setup.pod_request.clone(),
                pod_request_source: "--pod-request".into(),
                node_group_max: None,
                max_nodes_total: None,
                scale_down_utilization_threshold: 0.5,
                scale_down_unneeded_time: Duration::from_secs(600),
            },
            min: 0,
            groups: None,
            karpenter: Some(karpenter),
        });
        setup
    }

    fn said(setup: &Setup, source: &str) -> Vec<(i64, String)> {
        run(setup)
            .events
            .into_iter()
            .filter(|e| e.source == source)
            .map(|e| (e.time, e.message))
            .collect()
    }

    #[test]
    fn a_window_closes_a_second_after_the_last_pod_or_ten_after_it_opened() {
        assert_eq!(window_end(60_000, 60_000), 61_000);
        assert_eq!(window_end(60_000, 65_500), 66_500);
        assert_eq!(window_end(60_000, 69_500), 70_000);
    }

    #[test]
    fn the_start_pods_run_on_the_nodeclaims_one_solve_launches_for_them() {
        // 2 pods of 500m and the 100m DaemonSet: the 2-core type (1900m) is the cheapest fit.
        let sim = run(&on_karpenter(&[(0, 500)], 2, None));
        assert_eq!(sim.node_claims.len(), 1, "{:?}", sim.node_claims);
        let start = &sim.node_claims[0];
        assert_eq!(
            (start.instance_type.as_str(), start.launched_at),
            ("c2", None)
        );
        assert!(sim.events.iter().all(|e| e.source != "karpenter"));
        assert_eq!(sim.timeline[0].pending_pods, 0);
    }

    #[test]
    fn pending_pods_are_batched_then_launched_and_bound_once_the_node_is_ready() {
        // At 60 s the load asks for 4 pods: of the 2 new ones the start node takes one
        // (1900 - 100 - 2 × 500 = 800m left), the other waits for Karpenter.
        let setup = on_karpenter(&[(0, 500), (60, 1000)], 2, None);
        let sim = run(&setup);
        let launch = sim
            .events
            .iter()
            .find(|e| e.source == "karpenter")
            .expect("a launch");
        // The window opened at the sync (60 s) and closed a second later.
        assert_eq!(launch.time, 61, "{launch:?}");
        assert!(
            launch
                .message
                .starts_with("batch of 1 Pending pod(s) from 1:00 to 1:01: launches NodeClaim default-2 (c2, on-demand, zone-a, $0.100/h) for 1 pod(s) (Ready at 4:01)"),
            "{launch:?}"
        );
        let claim = &sim.node_claims[1];
        assert_eq!((claim.launched_at, claim.ready_at), (Some(61), Some(241)));
        let kubelet = said(&setup, "kubelet");
        assert!(
            kubelet.contains(&(241, "default-2 Ready".to_string())),
            "{kubelet:?}"
        );
        let bound = said(&setup, "scheduler");
        assert!(
            bound.contains(&(241, "1 waiting pod(s) bound to default-2".to_string())),
            "{bound:?}"
        );
    }

    #[test]
    fn pods_that_fit_on_a_booting_nodeclaim_launch_nothing_new_for_them() {
        // 4 pods, then 8 at the next sync (the legacy scale-up limit doubles): the NodeClaim of
        // the first batch still boots and takes 3 of the pods of the second.
        let events = said(&on_karpenter(&[(0, 500), (60, 2000)], 2, None), "karpenter");
        assert!(
            events
                .iter()
                .any(|(_, m)| m.contains("fit on NodeClaims launched before")),
            "{events:?}"
        );
    }

    #[test]
    fn a_nodepool_at_its_limit_leaves_the_pods_pending_with_karpenters_reason() {
        // The start node's 2 cores use the whole 2-core limit.
        let events = said(
            &on_karpenter(&[(0, 500), (60, 1000)], 2, Some(2000)),
            "karpenter",
        );
        assert!(
            events
                .iter()
                .any(|(_, m)| m.contains("stay Pending: 1 pod(s): ") && m.contains("limits")),
            "{events:?}"
        );
        assert!(
            events.iter().all(|(_, m)| !m.contains("launches")),
            "{events:?}"
        );
    }

    #[test]
    fn the_nodeclaims_cost_their_price_over_the_time_they_exist() {
        // One 2-core node at $0.10/h for the whole run of 15 minutes.
        let sim = run(&on_karpenter(&[(0, 500)], 2, None));
        assert_eq!(sim.settings.duration_seconds, 900);
        assert_eq!(sim.summary.node_cost, Some(0.025));
    }
}
