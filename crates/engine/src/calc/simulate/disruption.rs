//! Karpenter's disruption controller in the simulation (`simulate --nodepool`): every
//! `pollingPeriod` one disruption loop (`consolidation::disrupt`, the engine function the
//! one-shot answer uses: empty → multi-node → single-node, budgets, `consolidateAfter`) runs over
//! the Ready NodeClaims with their bound pods, and its command goes through the orchestration
//! queue: the candidates are tainted, the replacement is launched, and once it is Ready the
//! candidates are deleted and their pods evicted (recreated Pending, kube-scheduler binds them).
//!
//! Mirrors kubernetes-sigs/karpenter `pkg/controllers/disruption/controller.go`
//! (`Controller.Reconcile`, `pollingPeriod`), `queue.go` (`Queue.StartCommand`,
//! `waitOrTerminate`) and `pkg/controllers/nodeclaim/podevents` (the last pod event that
//! `consolidateAfter` counts from). Simplified: no loop runs while a pod is Pending, a NodeClaim
//! boots or a command is in progress (upstream's `SimulateScheduling` counts Pending pods and
//! refuses moves onto uninitialized nodes, and a successful loop requeues at once), so at most
//! one command is in progress; there is no 15 s validation wait before a command starts.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::calc::karpenter::consolidation::{self, Cluster, ClusterNode, Command};
use crate::calc::karpenter::{daemons, pod::Pod, pod_requests};
use crate::calc::nodes;
use crate::scenario::Capacity;
use crate::scenario::karpenter::KarpenterInput;

use super::engine::{Engine, NodeState, PodState, SimNode, clock, count, node_index, secs};
use super::karpenter::{Claim, capacity_of, claim_run, labels_of};

/// `pollingPeriod` (`disruption/controller.go`): the disruption controller looks for
/// opportunities this often.
pub const POLLING_PERIOD_MS: i64 = 10_000;

/// The scheduler retries the evicted pods at the next tick.
const NEXT_TICK_MS: i64 = 1_000;

/// A command in the orchestration queue: its candidates (node ids), tainted, and its
/// replacement's node id while it boots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Queued {
    pub(super) candidates: Vec<u32>,
    pub(super) replacement: Option<u32>,
}

/// The disruption controller's next poll after `t`.
pub(super) fn next_poll(t: i64) -> i64 {
    (t.div_euclid(POLLING_PERIOD_MS) + 1) * POLLING_PERIOD_MS
}

/// A node's candidates named with their type and price: `m5-2 (m5.8xlarge, $1.536/h)`.
fn described(nodes: &[SimNode], ids: &[u32]) -> String {
    let names: Vec<String> = (ids.iter())
        .filter_map(|id| node_index(nodes, *id).and_then(|i| nodes.get(i)))
        .map(|n| match &n.claim {
            Some(c) => format!("{} ({}, ${:.3}/h)", n.slot.name, c.instance_type, c.price),
            None => n.slot.name.clone(),
        })
        .collect();
    names.join(", ")
}

/// What a disruption loop depends on besides the NodePools and the catalog: each node, its pods,
/// and whether it is past its NodePool's `consolidateAfter`.
pub(super) type QuietKey = Vec<(String, Vec<String>, bool)>;

fn quiet_key(input: &KarpenterInput, nodes: &[ClusterNode]) -> QuietKey {
    (nodes.iter())
        .map(|n| {
            let after = (input.node_pools.iter())
                .find(|np| np.name == n.node_pool)
                .and_then(|np| np.disruption.consolidate_after_s);
            (
                n.name.clone(),
                n.pods.iter().map(|p| p.name.clone()).collect(),
                after.is_some_and(|d| n.since_pod_change_s >= d),
            )
        })
        .collect()
}

impl Engine<'_> {
    /// Karpenter's disruption each instant: the pod events, the queue's commands whose
    /// replacement is Ready, and at each poll one disruption loop.
    pub(super) fn karpenter_disruption(&mut self, t: i64) {
        self.pod_events(t);
        self.finish_commands(t);
        if t.rem_euclid(POLLING_PERIOD_MS) == 0 && self.may_disrupt() {
            self.disruption_loop(t);
            // A delete command has no replacement to wait for.
            self.finish_commands(t);
        }
    }

    // Mirrors the pod events controller (nodeclaim/podevents/controller.go): a pod bound to a
    // NodeClaim's node or deleted from it sets its LastPodEventTime. The start nodes and their
    // pods were there long before the run.
    fn pod_events(&mut self, t: i64) {
        let mut now: BTreeMap<u32, Vec<u64>> = (self.nodes.iter())
            .filter(|n| n.claim.is_some())
            .map(|n| (n.id, Vec::new()))
            .collect();
        for p in self.pods.iter().filter(|p| p.active()) {
            if let Some(v) = p.node.and_then(|id| now.get_mut(&id)) {
                v.push(p.seq);
            }
        }
        let Some(k) = self.provisioner.as_mut() else {
            return;
        };
        k.pod_events.retain(|id, _| now.contains_key(id));
        for (id, pods) in now {
            match k.pod_events.get_mut(&id) {
                Some(e) if e.0 == pods => {}
                Some(e) => *e = (pods, t),
                None => {
                    let since = if t == 0 { i64::MIN / 4 } else { t };
                    k.pod_events.insert(id, (pods, since));
                }
            }
        }
    }

    /// No Pending pod, no NodeClaim booting, no command in progress (the module's
    /// simplification of `SimulateScheduling`'s checks).
    fn may_disrupt(&self) -> bool {
        self.provisioner
            .as_ref()
            .is_some_and(|k| k.queue.is_empty())
            && self.pods.iter().all(|p| p.state != PodState::Pending)
            && (self.nodes.iter()).all(|n| n.state == NodeState::Ready)
    }

    /// The Ready NodeClaims not marked for deletion as consolidation sees them: their bound
    /// pods and the seconds since their last pod event.
    fn cluster_nodes(&self, input: &KarpenterInput, t: i64) -> Vec<ClusterNode> {
        let requests = pod_requests(&self.setup.pod_request);
        let constraints = Arc::new(input.pod.constraints.clone());
        let daemon_requests = (daemons(input).first())
            .map(|d| d.requests.clone())
            .unwrap_or_default();
        let events = self.provisioner.as_ref().map(|k| &k.pod_events);
        let mut out = Vec::new();
        for n in &self.nodes {
            let Some(c) = n.claim.as_ref().filter(|_| n.slot.schedulable) else {
                continue;
            };
            let pods = (self.pods.iter())
                .filter(|p| p.node == Some(n.id) && p.active())
                .map(|p| Pod {
                    name: format!("{}-{}", self.scenario.hpa.target.name, p.seq),
                    group: 0,
                    requests: requests.clone(),
                    constraints: Arc::clone(&constraints),
                })
                .collect();
            let last = events.and_then(|e| e.get(&n.id)).map_or(t, |e| e.1);
            out.push(ClusterNode {
                name: n.slot.name.clone(),
                node_pool: c.node_pool.clone(),
                instance_type: c.instance_type.clone(),
                zone: c.zone.clone(),
                capacity_type: c.capacity_type.clone(),
                labels: Vec::new(),
                allocatable: None,
                daemon_requests: daemon_requests.clone(),
                pods,
                since_pod_change_s: secs(t.saturating_sub(last)),
            });
        }
        out
    }

    // Port of Controller.Reconcile (disruption/controller.go) at a poll: one loop of the
    // methods (consolidation::disrupt); its command starts.
    fn disruption_loop(&mut self, t: i64) {
        let setup = self.setup;
        let Some(input) = setup.nodes.as_ref().and_then(|g| g.karpenter.as_ref()) else {
            return;
        };
        let nodes = self.cluster_nodes(input, t);
        let key = quiet_key(input, &nodes);
        if self
            .provisioner
            .as_ref()
            .is_some_and(|k| k.quiet.as_ref() == Some(&key))
        {
            // The loop is a pure function of this cluster: it found nothing last time.
            return;
        }
        let outcome = {
            let Some(k) = self.provisioner.as_ref() else {
                return;
            };
            let ds = daemons(input);
            consolidation::disrupt(&Cluster {
                node_pools: &input.node_pools,
                catalog: &k.catalog,
                daemons: &ds,
                nodes,
                spot_to_spot: false,
            })
        };
        if let Some(k) = self.provisioner.as_mut() {
            k.quiet = outcome.command.is_none().then_some(key);
        }
        // The `Unconsolidatable` events of the nodes a loop leaves are not said: upstream
        // publishes them on every loop, which would repeat them every 10 s.
        if let Some(cmd) = outcome.command {
            self.start_command(t, input, &cmd);
        }
    }

    // Port of Queue.StartCommand (disruption/queue.go): the candidates are tainted
    // (karpenter.sh/disrupted:NoSchedule: kube-scheduler and the provisioner place no pod on
    // them) and the replacement NodeClaim is launched (createReplacementNodeClaims).
    // A replacement no offering can launch fails the command and leaves the candidates alone
    // (computeConsolidation: "the launch should fail and we'll just leave the node alone").
    fn start_command(&mut self, t: i64, input: &KarpenterInput, cmd: &Command) {
        if cmd
            .replacement
            .as_ref()
            .is_some_and(|r| r.launched.is_none())
        {
            return;
        }
        let ids: Vec<u32> = (self.nodes.iter())
            .filter(|n| cmd.nodes.contains(&n.slot.name))
            .map(|n| n.id)
            .collect();
        for n in self.nodes.iter_mut().filter(|n| ids.contains(&n.id)) {
            n.slot.schedulable = false;
        }
        let candidates = described(&self.nodes, &ids);
        let launched = (cmd.replacement.as_ref())
            .and_then(|r| r.launched.as_ref().map(|l| (r.node_pool.as_str(), l)));
        let (replacement, what) = match launched {
            Some((pool, l)) => {
                let (id, name, ready_at) = self.launch_replacement(t, input, pool, l, cmd);
                let what = format!(
                    "replaces {candidates} with {} (${:.3}/h), {} pod(s) move; NodeClaim \
                     {name} Ready at {}",
                    l.instance_type,
                    cmd.price_after,
                    cmd.moves.len(),
                    clock(secs(ready_at))
                );
                (Some(id), what)
            }
            None => {
                let what = format!("deletes {candidates}, {} pod(s) move", cmd.moves.len());
                (None, what)
            }
        };
        self.event(
            t,
            "karpenter",
            format!("consolidation ({}): {what}", cmd.method.name()),
        );
        if let Some(k) = self.provisioner.as_mut() {
            k.queue.push(Queued {
                candidates: ids,
                replacement,
            });
        }
    }

    /// The replacement NodeClaim, booting: (its node id, name, Ready instant).
    fn launch_replacement(
        &mut self,
        t: i64,
        input: &KarpenterInput,
        pool: &str,
        l: &crate::calc::karpenter::catalog::Launch,
        cmd: &Command,
    ) -> (u32, String, i64) {
        let setup = self.setup;
        let daemonsets =
            (setup.nodes.as_ref()).map_or_else(Capacity::default, |g| g.input.daemonsets.clone());
        let item = (self.provisioner.as_ref())
            .and_then(|k| k.catalog.iter().find(|it| it.name == l.instance_type))
            .cloned();
        let (labels, allocatable) = item.as_ref().map_or_else(
            || (Vec::new(), Capacity::default()),
            |it| {
                (
                    labels_of(input, pool, it, &l.zone, &l.capacity_type),
                    capacity_of(&it.allocatable),
                )
            },
        );
        let taints = (input.node_pools.iter())
            .find(|np| np.name == pool)
            .map_or_else(Vec::new, |np| np.taints.clone());
        let claim = Claim {
            node_pool: pool.to_string(),
            instance_type: l.instance_type.clone(),
            capacity_type: l.capacity_type.clone(),
            zone: l.zone.clone(),
            price: cmd.price_after,
            labels,
            taints,
        };
        self.next_node += 1;
        let id = self.next_node;
        let name = format!("{pool}-{id}");
        let ready_at = t + setup.timing.node_startup.millis();
        if let Some(k) = self.provisioner.as_mut() {
            k.claims
                .push(claim_run(&name, &claim, Some(t), Some(ready_at)));
        }
        self.nodes.push(SimNode {
            id,
            slot: nodes::fresh_slot(name.clone(), &allocatable, &daemonsets),
            state: NodeState::Booting { ready_at },
            unneeded_since: None,
            group: None,
            claim: Some(claim),
        });
        (id, name, ready_at)
    }

    // Port of Queue.waitOrTerminate (disruption/queue.go): once the replacement is initialized
    // (Ready) the candidates are deleted; their pods are evicted and the ReplicaSet recreates
    // them as Pending pods, which kube-scheduler binds at the next tick.
    fn finish_commands(&mut self, t: i64) {
        let nodes = &self.nodes;
        let Some(k) = self.provisioner.as_mut() else {
            return;
        };
        let (done, wait): (Vec<Queued>, Vec<Queued>) =
            std::mem::take(&mut k.queue).into_iter().partition(|q| {
                q.replacement.is_none_or(|id| {
                    node_index(nodes, id)
                        .and_then(|i| nodes.get(i))
                        .is_some_and(|n| n.state == NodeState::Ready)
                })
            });
        k.queue = wait;
        let deleted: Vec<u32> = done.iter().flat_map(|q| q.candidates.clone()).collect();
        if deleted.is_empty() {
            return;
        }
        for id in &deleted {
            let name = self.node_name(*id);
            let evicted = count(
                (self.pods.iter())
                    .filter(|p| p.node == Some(*id) && p.active())
                    .count(),
            );
            if let Some(k) = self.provisioner.as_mut()
                && let Some(run) = k.claims.iter_mut().find(|c| c.name == name)
            {
                run.deleted_at = Some(secs(t));
            }
            let what = if evicted == 0 {
                "empty".to_string()
            } else {
                format!("{evicted} pod(s) evicted and recreated")
            };
            self.event(t, "karpenter", format!("deletes {name} ({what})"));
        }
        self.remove_pods(|p| p.node.is_some_and(|n| deleted.contains(&n)));
        self.nodes.retain(|n| !deleted.contains(&n.id));
        let before = self.pods.len();
        self.replicaset(t);
        if self.pods.len() > before {
            self.extra_tick = Some(t + NEXT_TICK_MS);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_disruption_controller_polls_every_ten_seconds() {
        assert_eq!(next_poll(0), 10_000);
        assert_eq!(next_poll(9_999), 10_000);
        assert_eq!(next_poll(10_000), 20_000);
    }
}
