//! The Deployment controller's rolling update, on counts: how many pods the new and the old
//! ReplicaSet should have, given the Deployment's replicas (what the HPA sets), `maxSurge`,
//! `maxUnavailable` and how many pods of each are available. Mirrors
//! `pkg/controller/deployment/rolling.go`, `sync.go` (`scale`) and
//! `pkg/controller/deployment/util/deployment_util.go`. The `impl Engine` below drives it on the
//! engine's pods: the rollout's start, the two ReplicaSets after each change, and which pods are
//! available.

use crate::scenario::simulation::{IntOrPercent, Rollout};

use super::engine::{Engine, PodState, Sets};

// Port of ResolveFenceposts (pkg/controller/deployment/util/deployment_util.go): surge rounds
// up, unavailable rounds down, and when both resolve to 0, unavailable is 1.
pub fn resolve_fenceposts(
    max_surge: IntOrPercent,
    max_unavailable: IntOrPercent,
    desired: i32,
) -> (i32, i32) {
    let surge = max_surge.scaled(desired, true);
    let mut unavailable = max_unavailable.scaled(desired, false);
    if surge == 0 && unavailable == 0 {
        unavailable = 1;
    }
    (surge, unavailable)
}

// Port of MaxSurge (deployment_util.go).
fn max_surge(rollout: &Rollout, replicas: i32) -> i32 {
    resolve_fenceposts(rollout.max_surge, rollout.max_unavailable, replicas).0
}

// Port of MaxUnavailable (deployment_util.go): 0 at 0 replicas, never more than the replicas.
fn max_unavailable(rollout: &Rollout, replicas: i32) -> i32 {
    if replicas == 0 {
        return 0;
    }
    resolve_fenceposts(rollout.max_surge, rollout.max_unavailable, replicas)
        .1
        .min(replicas)
}

/// Available pods (Ready; minReadySeconds 0) of each ReplicaSet, and all pods (status.replicas).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Available {
    pub old: i32,
    pub new: i32,
    pub status_replicas: i32,
}

impl Sets {
    /// At the rollout's start: the new ReplicaSet at 0 (`getNewReplicaSet`).
    pub fn start(rollout: &Rollout, replicas: i32) -> Self {
        Sets {
            old: replicas,
            new: 0,
            desired_annotation: replicas,
            max_annotation: replicas + max_surge(rollout, replicas),
        }
    }

    fn annotate(&mut self, rollout: &Rollout, replicas: i32) {
        self.desired_annotation = replicas;
        self.max_annotation = replicas + max_surge(rollout, replicas);
    }

    /// One pass of `syncDeployment`: a scaling event (`scale`) when the replicas changed, else
    /// one step of `rolloutRolling`. True when a ReplicaSet's size changed; the caller lets the
    /// ReplicaSets act on it and calls again, as the controller's requeue does.
    pub fn sync(&mut self, rollout: &Rollout, replicas: i32, available: Available) -> bool {
        let before = *self;
        let active = (self.old > 0, self.new > 0);
        // isScalingEvent: an active ReplicaSet's desired-replicas annotation differs.
        if (active.0 || active.1) && self.desired_annotation != replicas {
            self.scale(rollout, replicas, available);
            self.annotate(rollout, replicas);
            return *self != before;
        }
        if self.reconcile_new(rollout, replicas) || self.reconcile_old(rollout, replicas, available)
        {
            self.annotate(rollout, replicas);
        }
        *self != before
    }

    // Port of reconcileNewReplicaSet and NewRSNewReplicas (rolling.go, deployment_util.go): the
    // new ReplicaSet grows while all pods stay within replicas + maxSurge.
    fn reconcile_new(&mut self, rollout: &Rollout, replicas: i32) -> bool {
        if self.new == replicas {
            return false;
        }
        if self.new > replicas {
            self.new = replicas;
            return true;
        }
        let max_total = replicas + max_surge(rollout, replicas);
        let current = self.old + self.new;
        if current >= max_total {
            return false;
        }
        let up = (max_total - current).min(replicas - self.new);
        self.new += up;
        up > 0
    }

    // Port of reconcileOldReplicaSets, cleanupUnhealthyReplicas and
    // scaleDownOldReplicaSetsForRollingUpdate (rolling.go): the old ReplicaSet shrinks while at
    // least replicas - maxUnavailable pods stay available, its unhealthy pods first.
    fn reconcile_old(&mut self, rollout: &Rollout, replicas: i32, available: Available) -> bool {
        let before = self.old;
        if before == 0 {
            return false;
        }
        let all_pods = self.old + self.new;
        let min_available = replicas - max_unavailable(rollout, replicas);
        let new_unavailable = self.new - available.new;
        let max_scaled_down = all_pods - min_available - new_unavailable;
        if max_scaled_down <= 0 {
            return false;
        }
        let unhealthy = (self.old - available.old).max(0);
        let cleanup = max_scaled_down.min(unhealthy);
        self.old -= cleanup;
        let available_all = available.old + available.new;
        if available_all > min_available {
            let down = self.old.min(available_all - min_available);
            self.old -= down;
        }
        self.old != before
    }

    // Port of scale (sync.go) for the two ReplicaSets of a rolling update, with GetProportion
    // and getReplicaSetFraction (deployment_util.go): a change of the replicas mid-rollout is
    // shared in proportion to the ReplicaSets' sizes, the leftover to the larger one.
    fn scale(&mut self, rollout: &Rollout, replicas: i32, available: Available) {
        // FindActiveOrLatest: one active ReplicaSet (or none, then the newest) takes it all.
        match (self.old > 0, self.new > 0) {
            (true, false) => {
                self.old = replicas;
                return;
            }
            (false, _) => {
                self.new = replicas;
                return;
            }
            (true, true) => {}
        }
        // IsSaturated: the new ReplicaSet has them all, available; the old one goes.
        if self.new == replicas && self.desired_annotation == replicas && available.new == replicas
        {
            self.old = 0;
            return;
        }
        let surge = max_surge(rollout, replicas);
        let allowed = if replicas > 0 { replicas + surge } else { 0 };
        let to_add = allowed - (self.old + self.new);
        if to_add == 0 {
            return;
        }
        // ReplicaSetsBySizeNewer when adding, BySizeOlder when removing: larger first.
        let new_first = if to_add > 0 {
            self.new >= self.old
        } else {
            self.new > self.old
        };
        let before_max = if self.max_annotation > 0 {
            self.max_annotation
        } else {
            available.status_replicas
        };
        let share =
            |size: i32, added: i32| proportion(size, replicas, surge, before_max, to_add, added);
        let (first, second) = if new_first {
            (&mut self.new, &mut self.old)
        } else {
            (&mut self.old, &mut self.new)
        };
        let p1 = share(*first, 0);
        let p2 = share(*second, p1);
        // The leftover goes to the first (the larger) ReplicaSet.
        *first = (*first + to_add - p2).max(0);
        *second += p2;
    }
}

// Port of GetProportion and getReplicaSetFraction (deployment_util.go): a ReplicaSet's part of
// `to_add`, its size scaled from the max-replicas annotation to replicas + maxSurge.
fn proportion(
    size: i32,
    replicas: i32,
    surge: i32,
    before_max: i32,
    to_add: i32,
    added: i32,
) -> i32 {
    if size == 0 || to_add == 0 || to_add == added {
        return 0;
    }
    let fraction = if replicas == 0 {
        -size
    } else {
        // integer.RoundToInt32: floor(x + 0.5).
        let scaled = f64::from(size) * f64::from(replicas + surge) / f64::from(before_max.max(1));
        #[allow(clippy::cast_possible_truncation)]
        let rounded = (scaled + 0.5).floor() as i32;
        rounded - size
    };
    let allowed = to_add - added;
    if to_add > 0 {
        fraction.min(allowed)
    } else {
        fraction.max(allowed)
    }
}

impl Engine<'_> {
    /// The rollout starts: a new pod template, so a new ReplicaSet, at 0.
    pub(super) fn start_rollout(&mut self, t: i64, r: &Rollout) {
        self.revision += 1;
        self.sets = Some(Sets::start(r, self.replicas));
        let (surge, unavailable) =
            resolve_fenceposts(r.max_surge, r.max_unavailable, self.replicas);
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

    /// A rollout in progress, from the ReplicaSets' sizes `start`: the Deployment controller
    /// resizes them and both ReplicaSets act, until the instant settles; the rollout is complete
    /// once no pod of the old template is left.
    pub(super) fn rolling_update(&mut self, t: i64, rollout: &Rollout, start: Sets) {
        let old_revision = self.revision - 1;
        let mut sets = start;
        // The controller requeues itself after each change; a few passes settle an instant.
        for _ in 0..8 {
            let available = self.available(t, old_revision, rollout.min_ready);
            let changed = sets.sync(rollout, self.replicas, available);
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

    /// Available active pods of the old and the new template, and all active pods. Port of
    /// IsPodAvailable (pkg/api/v1/pod/util.go): Ready for minReadySeconds. The controller
    /// re-checks when that time is up (and finds it available an instant later).
    fn available(&self, t: i64, old_revision: u32, min_ready: i64) -> Available {
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
        Available {
            old,
            new,
            status_replicas: all,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use IntOrPercent::{Int, Percent};

    #[test]
    fn fenceposts_round_surge_up_and_unavailable_down() {
        // The cases of ResolveFenceposts' comment, and the 25 % defaults.
        assert_eq!(resolve_fenceposts(Percent(0), Percent(1), 2), (0, 1));
        assert_eq!(resolve_fenceposts(Percent(1), Percent(25), 2), (1, 0));
        assert_eq!(resolve_fenceposts(Percent(1), Percent(0), 1), (1, 0));
        assert_eq!(resolve_fenceposts(Percent(25), Percent(25), 4), (1, 1));
        assert_eq!(resolve_fenceposts(Percent(25), Percent(25), 10), (3, 2));
        assert_eq!(resolve_fenceposts(Int(0), Int(0), 10), (0, 1));
    }

    fn defaults() -> Rollout {
        Rollout {
            at: 0,
            max_surge: Percent(25),
            max_unavailable: Percent(25),
            min_ready: 0,
        }
    }

    /// Runs passes until nothing changes, with `ready` available pods of each set.
    fn settle(sets: &mut Sets, rollout: &Rollout, replicas: i32, ready: (i32, i32)) {
        for _ in 0..10 {
            let available = Available {
                old: ready.0.min(sets.old),
                new: ready.1.min(sets.new),
                status_replicas: sets.old + sets.new,
            };
            if !sets.sync(rollout, replicas, available) {
                return;
            }
        }
    }

    #[test]
    fn a_rolling_update_of_4_surges_one_and_drops_one_at_once() {
        // 4 replicas, 25 %/25 %: surge 1, unavailable 1. New +1 (5 pods), old -1 (3 available
        // stay), new +1: 3 old and 2 new pods, not Ready.
        let r = defaults();
        let mut sets = Sets::start(&r, 4);
        settle(&mut sets, &r, 4, (4, 0));
        assert_eq!((sets.old, sets.new), (3, 2));
        // The 2 new pods Ready: old may drop to 1 (3 available must stay), new grows to 4.
        settle(&mut sets, &r, 4, (3, 2));
        assert_eq!((sets.old, sets.new), (1, 4));
        settle(&mut sets, &r, 4, (1, 4));
        assert_eq!((sets.old, sets.new), (0, 4));
    }

    #[test]
    fn a_scale_up_mid_rollout_is_shared_in_proportion() {
        // 3 old, 2 new (max annotation 5); the HPA asks for 8: allowed 8 + 2 = 10, 5 to add:
        // old round(3 * 10 / 5) - 3 = 3, new round(2 * 10 / 5) - 2 = 2.
        let r = defaults();
        let mut sets = Sets {
            old: 3,
            new: 2,
            desired_annotation: 4,
            max_annotation: 5,
        };
        let available = Available {
            old: 3,
            new: 0,
            status_replicas: 5,
        };
        assert!(sets.sync(&r, 8, available));
        assert_eq!((sets.old, sets.new), (6, 4));
        assert_eq!((sets.desired_annotation, sets.max_annotation), (8, 10));
    }

    #[test]
    fn outside_a_rollout_the_one_active_set_takes_the_count() {
        let r = defaults();
        let mut sets = Sets {
            old: 0,
            new: 4,
            desired_annotation: 4,
            max_annotation: 5,
        };
        let available = Available {
            old: 0,
            new: 4,
            status_replicas: 4,
        };
        assert!(sets.sync(&r, 6, available));
        assert_eq!((sets.old, sets.new), (0, 6));
    }
}
