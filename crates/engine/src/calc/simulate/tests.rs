//! The simulation's rules, each on a small setup built as `hpacalc simulate` would build it.

use super::engine::Engine;
use super::metrics::{resource_usage, served, share};
use super::*;
use crate::calc::testing;
use crate::time::Duration;

fn row(sim: &Simulation, time: i64) -> &SyncRow {
    sim.timeline.iter().find(|r| r.time == time).unwrap()
}

fn events_at(sim: &Simulation, time: i64) -> Vec<&str> {
    sim.events
        .iter()
        .filter(|e| e.time == time)
        .map(|e| e.message.as_str())
        .collect()
}

#[test]
fn ready_pods_serve_their_shares_up_to_the_limit() {
    // 2500m over 2 pods: 1250m each; a 1-core limit serves 2000m.
    assert_eq!(served(2500, 2, Some(1000)), 2000);
    assert_eq!(served(2500, 2, None), 2500);
    // 1001m over 2: 501m and 500m, under a 500m limit 1000m.
    assert_eq!(served(1001, 2, Some(500)), 1000);
    assert_eq!(served(2500, 0, Some(1000)), 0);
}

#[test]
fn a_startup_burst_is_averaged_over_the_sample_window() {
    // 4 Ready pods share 2000m: 500m each. Limit 800m.
    assert_eq!(resource_usage(2000, 4, Some(0), Some(800), None), 500);
    // Twice the share for the whole window: 1000m, capped at 800m.
    assert_eq!(
        resource_usage(2000, 4, Some(0), Some(800), Some((2000, 15_000, 15_000))),
        800
    );
    // A third of the window in the burst: (5 s × 1000m + 10 s × 500m) / 15 s.
    assert_eq!(
        resource_usage(2000, 4, Some(0), None, Some((2000, 5_000, 15_000))),
        666
    );
    // A starting pod bursts at a Ready pod's share, and reports 0 after its burst.
    assert_eq!(
        resource_usage(2000, 4, None, None, Some((2000, 15_000, 15_000))),
        1000
    );
    assert_eq!(
        resource_usage(2000, 4, None, None, Some((2000, 0, 15_000))),
        0
    );
}

#[test]
fn shares_add_up_to_the_total() {
    for (total, n) in [(1000, 3), (7, 4), (-7, 4), (0, 5), (2400, 6)] {
        let sum: i64 = (0..n).map(|i| share(total, n, i)).sum();
        assert_eq!(sum, total, "{total} over {n}");
    }
    assert_eq!(share(10, 0, 0), 0);
}

#[test]
fn memory_is_seeded_as_if_the_first_load_had_held_for_the_window() {
    // 2000m over 4 pods of 500m is 100 %: the first sync recommends 8.
    let s = testing::simulation(&[(0, 2000)], 4);
    let mut engine = Engine::new(&s);
    engine.place_start_pods();
    engine.seed_memory();
    let recs = &engine.memory.recommendations;
    // Every 15 s over the 5-minute window, before the first sync.
    assert_eq!(recs.len(), 20);
    assert!(recs.iter().all(|r| r.replicas == 8));
    assert_eq!(recs[0].timestamp, START.sub(Duration::from_secs(300)));
    assert!(engine.memory.scale_up_events.is_empty());
}

#[test]
fn start_pods_are_spread_over_the_existing_nodes() {
    let s = testing::on_nodes(testing::simulation(&[(0, 1000)], 4), 2);
    let mut engine = Engine::new(&s);
    engine.place_start_pods();
    let per_node: Vec<i64> = engine.nodes.iter().map(|n| n.slot.workload_pods).collect();
    assert_eq!(per_node, [2, 2]);
}

#[test]
fn the_replicaset_deletes_from_the_node_with_the_most_replicas_first() {
    // 3 pods per node fit (1900m free); 5 pods: 3 on node-1, 2 on node-2 after spreading
    // (node-1, node-2, node-1, node-2, node-1).
    let s = testing::on_nodes(testing::simulation(&[(0, 1250)], 5), 2);
    let mut engine = Engine::new(&s);
    engine.place_start_pods();
    engine.replicas = 3;
    engine.replicaset(60_000);
    let per_node: Vec<i64> = engine.nodes.iter().map(|n| n.slot.workload_pods).collect();
    assert_eq!(per_node, [1, 2]);
    assert_eq!(engine.scenario.pods.len(), engine.pods.len());
}

#[test]
fn without_nodes_new_pods_start_at_once_and_are_ready_after_the_startup() {
    let mut s = testing::simulation(&[(0, 1000), (60, 2000)], 4);
    s.duration = Duration::from_secs(120);
    let sim = run(&s);
    assert_eq!(row(&sim, 60).desired_replicas, 8);
    assert_eq!(events_at(&sim, 75), ["4 pod(s) Ready"]);
    assert_eq!(row(&sim, 75).ready_replicas, 8);
    assert_eq!(sim.summary.pending_pod_seconds, 0);
}

#[test]
fn the_cluster_autoscaler_waits_one_loop_for_pods_under_two_seconds_old() {
    // HPA and CA both act at 0:30: the new pods are 0 s old, so the node is requested at 0:40.
    let mut s = testing::on_nodes(testing::simulation(&[(0, 1000), (30, 3000)], 4), 2);
    s.duration = Duration::from_secs(60);
    let sim = run(&s);
    assert_eq!(row(&sim, 30).desired_replicas, 8);
    assert!(
        events_at(&sim, 30)
            .iter()
            .any(|e| e.starts_with("waits one loop"))
    );
    assert!(
        events_at(&sim, 40)
            .iter()
            .any(|e| e.starts_with("requests 1 node(s) (node-3, Ready at 3:40)"))
    );
}

#[test]
fn an_unneeded_node_goes_strictly_after_the_unneeded_time_and_its_pods_move() {
    // 2 pods on 3 nodes: node-3 is empty and node-1's pod fits on node-2, so both are
    // unneeded from 0:00; they go at the first scan after 10:00, 10:10. The evicted pod is
    // recreated and scheduled at the next tick, 10:11.
    let mut s = testing::on_nodes(testing::simulation(&[(0, 500)], 2), 3);
    s.duration = Duration::from_secs(660);
    if let Some(group) = &mut s.nodes {
        group.min = 1;
    }
    let sim = run(&s);
    assert!(events_at(&sim, 600).is_empty());
    assert_eq!(
        events_at(&sim, 610),
        [
            "removes node-3 (empty)",
            "removes node-1 (1 pod(s) evicted and recreated)"
        ]
    );
    let r = row(&sim, 615);
    assert_eq!(
        (r.ready_replicas, r.starting_pods, r.nodes),
        (1, 1, Some(1))
    );
    assert_eq!(events_at(&sim, 626), ["1 pod(s) Ready"]);
}

#[test]
fn pods_that_no_allowed_node_would_take_stay_pending() {
    let mut s = testing::on_nodes(testing::simulation(&[(0, 1500), (30, 3000)], 6), 2);
    s.duration = Duration::from_secs(120);
    if let Some(group) = &mut s.nodes {
        group.input.node_group_max = Some(2);
    }
    let sim = run(&s);
    // maxReplicas 10: 4 new pods, none of which the 2 full nodes take.
    assert_eq!(row(&sim, 60).pending_pods, 4);
    assert_eq!(
        events_at(&sim, 40),
        ["4 pod(s) fit on no node it may add: the node group's maximum size (2)"]
    );
    assert_eq!(sim.summary.final_nodes, Some(2));
}

#[test]
fn a_terminating_pod_holds_its_node_room_until_it_is_gone() {
    let mut s = testing::on_nodes(testing::simulation(&[(0, 1500)], 6), 2);
    s.timing.pod_termination = Duration::from_secs(30);
    let mut engine = Engine::new(&s);
    engine.place_start_pods();
    engine.replicas = 4;
    engine.replicaset(0);
    let deleting = engine.scenario.pods.iter().filter(|p| p.deleting).count();
    assert_eq!(deleting, 2);
    let held: i64 = engine.nodes.iter().map(|n| n.slot.workload_pods).sum();
    assert_eq!(held, 6);
    engine.pods_progress(30_000);
    let held: i64 = engine.nodes.iter().map(|n| n.slot.workload_pods).sum();
    assert_eq!((held, engine.pods.len()), (4, 4));
}

#[test]
fn idle_stretches_cost_no_ticks_between_events() {
    // An hour without nodes: one tick per sync and nothing else.
    let mut s = testing::simulation(&[(0, 1000)], 4);
    s.duration = Duration::from_secs(3600);
    let mut engine = Engine::new(&s);
    engine.place_start_pods();
    let mut ticks = 0;
    let mut t = 0;
    while t <= 3_600_000 {
        ticks += 1;
        t = engine.next_event(t, 15_000, 10_000);
    }
    assert_eq!(ticks, 241);
}

#[test]
fn surge_pods_that_stay_pending_mark_the_rows_of_the_rollout() {
    // 6 pods of 500m fill 2 nodes (3 each beside a 100m DaemonSet) at the group's maximum; 55 %
    // is inside the tolerance. The rollout's surge pod finds no room and stays Pending, and the
    // old pods cannot go (maxUnavailable 0): 7 pods for 6 replicas from 1:00 on.
    use crate::scenario::simulation::{IntOrPercent, Rollout};
    let mut s = testing::on_nodes(testing::simulation(&[(0, 1650)], 6), 2);
    s.duration = Duration::from_secs(120);
    if let Some(group) = &mut s.nodes {
        group.input.node_group_max = Some(2);
    }
    s.rollout = Some(Rollout {
        at: 60_000,
        max_surge: IntOrPercent::Int(1),
        max_unavailable: IntOrPercent::Int(0),
        min_ready: 0,
    });
    let sim = run(&s);
    assert_eq!(row(&sim, 45).rollout_surge, None);
    for t in [60, 90, 120] {
        let r = row(&sim, t);
        assert_eq!((r.ready_replicas, r.pending_pods, r.replicas), (6, 1, 6));
        assert_eq!(
            r.rollout_surge.as_deref(),
            Some(
                "7 pods for the target's 6 replicas during the rollout (1 surge pod(s)): 6 Ready, \
                 1 Pending; the controller lists them all, and this sync's proposal does not \
                 multiply a ratio by more ready pods than replicas"
            ),
            "at {t}s"
        );
    }
    assert_eq!(sim.summary.rollout_surge_syncs, 5);
}

#[test]
fn the_snapshot_shows_each_node_s_pods_the_pending_ones_and_the_window() {
    // The CA test's run stopped at 0:35: 8 pods wanted, 2 nodes of 3 slots (1900m free each,
    // 600m pods): 6 bound and Ready or starting, 2 Pending, no node requested yet.
    let mut s = testing::on_nodes(testing::simulation(&[(0, 1000), (30, 3000)], 4), 2);
    s.duration = Duration::from_secs(35);
    let (sim, snapshot) = run_to_snapshot(&s, None);
    assert_eq!(snapshot.time, 35);
    let slots: Vec<i64> = snapshot.nodes.iter().map(|n| n.slots).collect();
    let held: Vec<usize> = snapshot.nodes.iter().map(|n| n.pods.len()).collect();
    assert_eq!(
        (slots.as_slice(), held.as_slice()),
        ([3, 3].as_slice(), [3, 3].as_slice())
    );
    assert_eq!(snapshot.pending.len(), 2);
    assert!(snapshot.pending.iter().all(|p| p.state == "pending"));
    assert!(snapshot.unmodelled.is_empty());
    assert_eq!(row(&sim, 30).desired_replicas, 8);
    // The seeded memory (every 15 s from -5:00) and the syncs at 0:00, 0:15 and 0:30, each of
    // which overwrote the sample its legacy window no longer kept: -4:30 to 0:30 are left, all
    // counted by the 0:30 sync (at most 300 s old).
    let kept: Vec<(i64, bool)> = snapshot
        .recommendations
        .iter()
        .map(|c| (c.time, c.counts))
        .collect();
    let expected: Vec<(i64, bool)> = (-270..=30).step_by(15).map(|t| (t, true)).collect();
    assert_eq!(kept, expected);
}

#[test]
fn without_a_node_model_the_bound_pods_are_unmodelled() {
    let mut s = testing::simulation(&[(0, 1000), (60, 2000)], 4);
    s.duration = Duration::from_secs(60);
    let (_, snapshot) = run_to_snapshot(&s, None);
    assert!(snapshot.nodes.is_empty());
    let states: Vec<&str> = snapshot.unmodelled.iter().map(|p| p.state).collect();
    // 4 Ready, 4 created at 1:00 and starting.
    assert_eq!(states.iter().filter(|s| **s == "ready").count(), 4);
    assert_eq!(states.iter().filter(|s| **s == "starting").count(), 4);
}
