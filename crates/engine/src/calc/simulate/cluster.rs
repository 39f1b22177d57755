//! The rules of the other controllers the simulation needs and the single-sync calculator does
//! not: kube-scheduler's LeastAllocated score (which Ready node a pod goes to) and the
//! ReplicaSet's deletion order (`ActivePodsWithRanks`). Fit and the estimator stay in
//! `calc::nodes`.

use std::cmp::Reverse;

use crate::calc::nodes::Slot;
use crate::scenario::Resources;

/// `schedutil.DefaultMilliCPURequest`: what a pod without a cpu request weighs when scoring.
const DEFAULT_MILLI_CPU: i64 = 100;
/// `schedutil.DefaultMemoryRequest` (200 MiB), in milli-bytes like every quantity here.
const DEFAULT_MEMORY_MILLI: i64 = 200 * 1024 * 1024 * 1000;
/// `framework.MaxNodeScore`.
const MAX_NODE_SCORE: i64 = 100;

// Port of leastResourceScorer with the default weights cpu:1, memory:1
// (noderesources/least_allocated.go) and the non-zero requests it scores with
// (schedutil.GetNonzeroRequests): the share of each resource left free after placing the pod.
pub(crate) fn least_allocated_score(slot: &Slot, pod_request: &Resources) -> i64 {
    let mut total = 0i64;
    for (name, default) in [("cpu", DEFAULT_MILLI_CPU), ("memory", DEFAULT_MEMORY_MILLI)] {
        let capacity = slot.allocatable.resources.get(name).unwrap_or(0);
        let own = pod_request.get(name).unwrap_or(0);
        let nonzero = if own > 0 { own } else { default };
        // The workload's pods on the node weigh their non-zero request too; the DaemonSets are
        // taken as given.
        let workload_extra = if own > 0 {
            0
        } else {
            default.saturating_mul(slot.workload_pods)
        };
        let requested = slot
            .requested
            .resources
            .get(name)
            .unwrap_or(0)
            .saturating_add(workload_extra)
            .saturating_add(nonzero);
        // leastRequestedScore: 0 when the node has none of it or the pod would overcommit it.
        if capacity > 0 && requested <= capacity {
            total += capacity
                .saturating_sub(requested)
                .saturating_mul(MAX_NODE_SCORE)
                / capacity;
        }
    }
    total / 2
}

/// What `ActivePodsWithRanks.Less` reads of one pod.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RankedPod {
    pub assigned: bool,
    /// Phase Running (bound); Pending otherwise.
    pub running: bool,
    pub ready: bool,
    /// Active pods of the workload on the same node (`getPodsRankedByRelatedPodsOnSameNode`).
    pub colocated: i64,
    /// When the Ready condition turned True (ms of simulation time).
    pub ready_since: Option<i64>,
    pub created: i64,
    /// Creation order, standing in for the pod UID the controller breaks ties with.
    pub seq: u64,
}

/// `int64(math.Log2(float64(d)))` for a duration in ms, as nanoseconds like Go's; -1 when the
/// instant is not in the past (`logarithmicRankDiff`).
fn log2_rank(now: i64, then: i64) -> i64 {
    let ms = now.saturating_sub(then);
    if ms <= 0 {
        return -1;
    }
    #[allow(clippy::cast_precision_loss)]
    let ns = ms as f64 * 1e6;
    // A log2 of a positive finite number fits easily.
    #[allow(clippy::cast_possible_truncation)]
    let rank = ns.log2().floor() as i64;
    rank
}

/// The sort key of `ActivePodsWithRanks.Less` with `LogarithmicScaleDown` (on by default): pods
/// to delete first sort first. Unassigned before assigned, Pending before Running, not ready
/// before ready, more colocated replicas first, then ready for less time (in powers of two),
/// then newer (in powers of two). Where the controller compares random UIDs, the newest pod
/// goes first. Pod deletion cost and restart counts are not modelled (all equal).
pub(crate) fn deletion_key(
    pod: &RankedPod,
    now: i64,
) -> (bool, bool, bool, Reverse<i64>, i64, i64, Reverse<u64>) {
    let ready_rank = match (pod.ready, pod.ready_since) {
        (true, Some(since)) => log2_rank(now, since),
        _ => 0,
    };
    (
        pod.assigned,
        pod.running,
        pod.ready,
        Reverse(pod.colocated),
        ready_rank,
        log2_rank(now, pod.created),
        Reverse(pod.seq),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Capacity;

    fn res(cpu: i64, mem: i64) -> Resources {
        Resources(vec![("cpu".into(), cpu), ("memory".into(), mem)])
    }

    fn slot(cpu_used: i64, workload_pods: i64) -> Slot {
        Slot {
            name: "n".into(),
            allocatable: Capacity {
                resources: res(4000, 8000),
                pods: 110,
            },
            requested: Capacity {
                resources: res(cpu_used, 0),
                pods: workload_pods,
            },
            workload_pods,
            schedulable: true,
            added: false,
        }
    }

    #[test]
    fn least_allocated_prefers_the_emptiest_node() {
        // cpu: (4000 - 1000 - 500) * 100 / 4000 = 62; memory: (8000 - 1000) * 100 / 8000 = 87.
        assert_eq!(least_allocated_score(&slot(1000, 2), &res(500, 1000)), 74);
        assert!(
            least_allocated_score(&slot(0, 0), &res(500, 1000))
                > least_allocated_score(&slot(1000, 2), &res(500, 1000))
        );
        // A pod that would overcommit a resource scores 0 for it.
        assert_eq!(least_allocated_score(&slot(3800, 1), &res(500, 0)), 0);
    }

    #[test]
    fn least_allocated_weighs_a_pod_without_requests_as_100m() {
        // No memory allocatable: only cpu scores. cpu (4000 - 100) * 100 / 4000 = 97; / 2.
        let mut s = slot(0, 0);
        s.allocatable.resources = Resources(vec![("cpu".into(), 4000)]);
        assert_eq!(least_allocated_score(&s, &Resources::default()), 48);
    }

    fn pod(seq: u64) -> RankedPod {
        RankedPod {
            assigned: true,
            running: true,
            ready: true,
            colocated: 3,
            ready_since: Some(0),
            created: 0,
            seq,
        }
    }

    #[test]
    fn deletion_order_follows_active_pods_with_ranks() {
        let now = 3_600_000;
        let cases: [(&str, RankedPod, RankedPod); 6] = [
            (
                "unassigned first",
                RankedPod {
                    assigned: false,
                    running: false,
                    ready: false,
                    ready_since: None,
                    ..pod(1)
                },
                pod(2),
            ),
            (
                "not ready first",
                RankedPod {
                    ready: false,
                    ready_since: None,
                    ..pod(1)
                },
                pod(2),
            ),
            (
                "more colocated replicas first",
                RankedPod {
                    colocated: 6,
                    ..pod(1)
                },
                pod(2),
            ),
            (
                "ready for less time first",
                RankedPod {
                    ready_since: Some(now - 60_000),
                    ..pod(1)
                },
                pod(2),
            ),
            (
                "the same power of two: the newer pod first",
                RankedPod {
                    ready_since: Some(1),
                    ..pod(2)
                },
                pod(1),
            ),
            (
                "newer creation first when ready at the same time",
                RankedPod {
                    created: now - 1000,
                    ..pod(1)
                },
                pod(2),
            ),
        ];
        for (rule, first, second) in cases {
            assert!(
                deletion_key(&first, now) < deletion_key(&second, now),
                "{rule}"
            );
        }
    }

    #[test]
    fn log2_rank_is_minus_one_for_now_and_grows_by_doubling() {
        assert_eq!(log2_rank(5, 5), -1);
        // 1 ms = 1e6 ns: log2 = 19.93.
        assert_eq!(log2_rank(1, 0), 19);
        assert_eq!(log2_rank(2, 0), 20);
    }
}
