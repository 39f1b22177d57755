//! The ReplicaSet controller (§8.2 step 4): it creates pods up to its `spec.replicas` and deletes
//! the extra ones in `ActivePodsWithRanks` order (`cluster.rs`); a deleted pod terminates for the
//! termination time. Mirrors `manageReplicas` and `getPodsToDelete` in
//! `pkg/controller/replicaset/replica_set.go`; during a rollout the Deployment controller
//! (`rollout.rs`) sizes the two ReplicaSets.

use std::collections::{BTreeMap, BTreeSet};

use crate::scenario::{Container, ContainerKind, Pod, PodPhase};

use super::cluster::{RankedPod, deletion_key};
use super::engine::{Engine, PodState, SimPod, count};

impl Engine<'_> {
    pub(super) fn create_pod(&mut self, t: i64, revision: u32) {
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
            overhead: None,
            placement: Default::default(),
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
    pub(super) fn replicaset(&mut self, t: i64) {
        match (self.setup.rollout, self.sets) {
            (Some(rollout), Some(sets)) => self.rolling_update(t, &rollout, sets),
            _ => self.replica_set(t, self.revision, self.replicas),
        }
    }

    /// One ReplicaSet: creates or deletes pods of its `revision` so that its active ones match
    /// `want`.
    pub(super) fn replica_set(&mut self, t: i64, revision: u32, want: i32) {
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
        // Colocated pods are counted over the whole workload (the controller's related pods),
        // once per node.
        let active = || self.pods.iter().filter(|p| p.active());
        let mut on_node: BTreeMap<Option<u32>, usize> = BTreeMap::new();
        for p in active() {
            *on_node.entry(p.node).or_default() += 1;
        }
        let mut ranked: Vec<RankedPod> = active()
            .filter(|p| p.revision == revision)
            .map(|p| {
                let colocated = on_node.get(&p.node).copied().unwrap_or(0);
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
        let victims: BTreeSet<u64> = ranked.iter().take(extra).map(|r| r.seq).collect();
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
}
