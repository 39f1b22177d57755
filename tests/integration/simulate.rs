//! `hpacalc simulate` through the binary (issue 6): each built-in scenario's story, a simulation of
//! one sync against the single-sync calculator, the controller's timing boundaries over time,
//! custom load files, the output formats and the input errors.

use serde_json::Value;

use crate::support::{
    NOW, Scratch, Test, check_malformed, hpacalc, root, row, rows, stderr, stdout,
};

fn simulate_json(args: &[&str]) -> Value {
    simulate_json_stdin(args, "")
}

fn simulate_json_stdin(args: &[&str], stdin: &str) -> Value {
    Test::new()
        .args(["simulate", "-o", "json"])
        .args(args)
        .stdin(stdin)
        .schema("simulation")
        .json()
}

fn scenario(name: &str) -> Value {
    simulate_json(&["--scenario", name])
}

/// `(time, from, to)` for every sync that changed the replica count.
fn changes(v: &Value) -> Vec<(i64, i64, i64)> {
    rows(v)
        .iter()
        .filter(|r| r["desiredReplicas"] != r["replicas"])
        .map(|r| {
            (
                r["time"].as_i64().unwrap(),
                r["replicas"].as_i64().unwrap(),
                r["desiredReplicas"].as_i64().unwrap(),
            )
        })
        .collect()
}

fn events(v: &Value) -> Vec<(i64, String)> {
    v["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["time"].as_i64().unwrap(),
                e["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn has_event(v: &Value, time: i64, starts_with: &str) -> bool {
    events(v)
        .iter()
        .any(|(t, m)| *t == time && m.starts_with(starts_with))
}

// ---- the built-in scenarios: when the count changes, and to what ----

#[test]
fn scenario_tolerance_holds_at_55_percent_and_adds_one_pod_at_60() {
    let v = scenario("tolerance");
    assert_eq!(changes(&v), [(300, 4, 5)]);
    // 55 % against 50 %: the ratio 1.1 is inside the band, so the recommendation is the count.
    for t in [120, 285] {
        assert_eq!(row(&v, t)["utilization"], 55.0);
        assert_eq!(row(&v, t)["recommendation"], 4);
    }
    assert_eq!(row(&v, 300)["utilization"], 60.0);
    assert_eq!(row(&v, 330)["utilization"], 48.0);
    assert_eq!(v["summary"]["finalReplicas"], 5);
    assert_eq!(v["summary"]["timeToTargetSeconds"], 15);
}

#[test]
fn scenario_traffic_doubles_goes_from_4_to_8_and_settles() {
    let v = scenario("traffic-doubles");
    assert_eq!(changes(&v), [(60, 4, 8)]);
    assert_eq!(row(&v, 60)["utilization"], 100.0);
    assert_eq!(row(&v, 75)["readyReplicas"], 8);
    assert_eq!(row(&v, 75)["utilization"], 50.0);
    assert_eq!(v["summary"]["peakReplicas"], 8);
    assert!(has_event(&v, 75, "4 pod(s) Ready"));
}

#[test]
fn scenario_pods_pending_waits_for_the_node_without_asking_for_more() {
    let v = scenario("pods-pending");
    // The scale-up limit caps the first step at 12; the window's 17 comes back at 0:30.
    assert_eq!(changes(&v), [(15, 6, 12), (30, 12, 17)]);
    assert_eq!(row(&v, 15)["reason"], "ScaleUpLimit");
    assert!(has_event(
        &v,
        30,
        "waits one loop: all 5 unschedulable pod(s)"
    ));
    assert!(has_event(
        &v,
        40,
        "requests 1 node(s) (node-3, Ready at 3:40)"
    ));
    // While node-3 boots: 5 Pending pods count as 0 CPU, 58 % is inside the band, no more pods.
    for t in (45..=210).step_by(15) {
        let r = row(&v, t);
        assert_eq!(
            (
                r["pendingPods"].clone(),
                r["nodes"].clone(),
                r["nodesBooting"].clone()
            ),
            (5.into(), 2.into(), 1.into()),
            "at {t}s"
        );
        assert_eq!(r["recommendation"], 17, "at {t}s");
    }
    assert!(has_event(&v, 220, "node-3 Ready"));
    assert!(has_event(&v, 220, "5 waiting pod(s) bound to node-3"));
    assert_eq!(row(&v, 240)["readyReplicas"], 17);
    assert_eq!(row(&v, 240)["utilization"], 58.0);
    assert_eq!(v["summary"]["peakNodes"], 3);
    assert_eq!(v["summary"]["maxPendingPods"], 5);
}

#[test]
fn scenario_short_dip_removes_nothing() {
    let v = scenario("short-dip");
    assert!(changes(&v).is_empty());
    for t in [180, 195, 210, 225] {
        let r = row(&v, t);
        assert_eq!(r["recommendation"], 4, "at {t}s");
        assert_eq!(r["stabilized"], 8, "at {t}s");
        assert_eq!(r["reason"], "ScaleDownStabilized", "at {t}s");
    }
    assert_eq!(row(&v, 240)["recommendation"], 8);
}

#[test]
fn scenario_real_drop_scales_down_when_the_window_has_passed() {
    let v = scenario("real-drop");
    assert_eq!(changes(&v), [(420, 8, 4)]);
    assert_eq!(row(&v, 120)["recommendation"], 4);
}

#[test]
fn scenario_node_scale_down_removes_the_emptied_node_after_the_unneeded_time() {
    let v = scenario("node-scale-down");
    assert_eq!(changes(&v), [(15, 6, 12), (30, 12, 17), (915, 17, 5)]);
    assert!(has_event(&v, 920, "unneeded from now: node-1"));
    // Unneeded since 15:20; removable strictly after 10 minutes: the 25:30 scan.
    assert!(
        !events(&v)
            .iter()
            .any(|(t, m)| *t < 1530 && m.starts_with("removes"))
    );
    assert!(has_event(&v, 1530, "removes node-1 (empty)"));
    assert!(has_event(&v, 1530, "keeps the other unneeded node(s)"));
    assert_eq!(v["summary"]["finalNodes"], 2);
}

#[test]
fn scenario_keda_queue_scales_to_zero_only_after_the_cooldown_and_wakes_on_activation() {
    let v = scenario("keda-queue");
    // The HPA's own change: 1 → 4 at the sync right after KEDA's activation.
    assert_eq!(changes(&v), [(60, 1, 4)]);
    assert!(has_event(&v, 60, "scales 0 → 1 (KEDA activates"));
    // Last active at the 2:30 poll; 2:30 + 120 s is not before the 4:30 poll: 5:00.
    assert!(
        !events(&v)
            .iter()
            .any(|(t, m)| *t < 300 && m.starts_with("scales 4 → 0"))
    );
    assert!(has_event(&v, 300, "scales 4 → 0 (KEDA deactivates"));
    assert_eq!(row(&v, 285)["stabilized"], 4);
    assert_eq!(row(&v, 300)["reason"], "ScalingDisabled");
    assert!(has_event(&v, 480, "scales 0 → 1 (KEDA activates"));
    assert!(has_event(&v, 660, "scales 1 → 0"));
    assert_eq!(v["summary"]["finalReplicas"], 0);
}

// ---- a ScaledObject's status is where the run starts ----

#[test]
fn a_paused_scaled_object_stays_at_its_paused_replicas() {
    let v = simulate_json(&[
        "--hpa",
        "fixtures/keda/status-paused.yaml",
        "--load",
        "fixtures/load/keda-status-paused.csv",
        "--duration",
        "5m",
    ]);
    // 300 against 30 asks for 10, but KEDA deleted the HPA: paused-replicas 5 holds.
    for r in rows(&v) {
        assert_eq!(r["replicas"], 5, "{r}");
        assert_eq!(r["desiredReplicas"], 5, "{r}");
        assert_eq!(r["reason"], "KedaPaused", "{r}");
    }
    assert_eq!(row(&v, 0)["recommendation"], 10);
    assert!(events(&v).iter().all(|(_, m)| !m.starts_with("scales")));
}

#[test]
fn a_falling_back_scaled_object_starts_at_the_fallback_until_the_scaler_answers() {
    let args = [
        "--hpa",
        "fixtures/keda/status-fallback.yaml",
        "--load",
        "fixtures/load/keda-status-fallback.csv",
        "--now",
        "2026-11-30T10:00:00Z",
        "--duration",
        "12m",
    ];
    let v = simulate_json(&args);
    // status.health has 4 failures (threshold 3): the first poll falls back at once, and the
    // HPA reads currentReplicasIfHigher's 6 × 25 = 150, 25 a pod, at 6 pods.
    assert_eq!(row(&v, 0)["replicas"], 6);
    for t in [0, 150, 285] {
        assert_eq!(row(&v, t)["utilization"], 25.0, "{t}");
        assert_eq!(row(&v, t)["desiredReplicas"], 6, "{t}");
    }
    // The scaler answers 50 at 5:00: 2 pods, once the window lets go of the 6s.
    assert_eq!(row(&v, 300)["recommendation"], 2);
    assert_eq!(changes(&v), [(600, 6, 2)]);
}

#[test]
fn a_failing_scaler_without_its_status_falls_back_only_after_the_threshold() {
    // The same ScaledObject with no status: failures count from 0, the 4th poll (at 1:30,
    // polling every 30 s) is the first above failureThreshold 3; until then the HPA's metric
    // fails and the count holds.
    let text = std::fs::read_to_string("fixtures/keda/status-fallback.yaml").unwrap();
    let spec = text.split("\nstatus:").next().unwrap();
    let v = simulate_json_stdin(
        &[
            "--hpa",
            "-",
            "--load",
            "fixtures/load/keda-status-fallback.csv",
            "--replicas",
            "2",
            "--duration",
            "2m",
        ],
        spec,
    );
    assert_eq!(row(&v, 0)["reason"], "FailedGetExternalMetric");
    assert_eq!(row(&v, 75)["desiredReplicas"], 2);
    assert_eq!(row(&v, 90)["recommendation"], 6);
    assert_eq!(row(&v, 120)["replicas"], 6);
}

#[test]
fn an_inactive_scaled_object_scales_in_when_its_cooldown_ends() {
    // lastActiveTime 09:57:30 + cooldownPeriod 120 s = 09:59:30, 90 s after the capture; KEDA
    // polls every 15 s and scales in at the first poll strictly after it: 1:45.
    let v = simulate_json(&[
        "--hpa",
        "fixtures/keda/status-cooldown.yaml",
        "--load",
        "fixtures/load/keda-status-cooldown.csv",
        "--now",
        "2026-11-30T09:58:00Z",
        "--duration",
        "3m",
    ]);
    assert_eq!(row(&v, 0)["replicas"], 1);
    assert_eq!(row(&v, 90)["replicas"], 1);
    assert!(has_event(&v, 105, "scales 1 → 0 (KEDA deactivates"));
    assert!(events(&v).iter().all(|(t, _)| *t == 105));
    // A capture before the status's own lastActiveTime is refused.
    assert_input_error(
        &["simulate", "--hpa", "fixtures/keda/status-cooldown.yaml"],
        &[
            "--load",
            "fixtures/load/keda-status-cooldown.csv",
            "--now",
            "2026-11-30T09:00:00Z",
        ],
        "before the ScaledObject's status.lastActiveTime",
    );
}

#[test]
fn the_docs_cooldown_example_is_the_real_output() {
    let docs = std::fs::read_to_string(root().join("docs/simulate.md")).expect("docs/simulate.md");
    let command = "hpacalc simulate --hpa fixtures/keda/status-cooldown.yaml";
    let block = docs
        .split("```text\n$ ")
        .find(|b| b.starts_with(command))
        .expect("docs/simulate.md shows the status-cooldown example")
        .split("```")
        .next()
        .unwrap();
    let mut lines = block.lines();
    let args: Vec<&str> = lines.next().unwrap().split_whitespace().skip(1).collect();
    let out = stdout(&hpacalc(&args));
    for line in lines.filter(|l| *l != "...") {
        assert!(
            out.lines().any(|o| o.trim_end() == line),
            "docs/simulate.md's line {line:?} is not in the real output:\n{out}"
        );
    }
}

/// `base` plus `extra` is refused as an input error (exit 1, nothing on stdout) saying `want`.
fn assert_input_error(base: &[&str], extra: &[&str], want: &str) {
    Test::new()
        .args(base)
        .args(extra)
        .fails(1)
        .stderr_contains(want)
        .run();
}

/// The replica count at every sync where it changed, starting from the first sync's.
fn count_sequence(v: &Value) -> Vec<i64> {
    let mut seq = vec![rows(v)[0]["replicas"].as_i64().unwrap()];
    seq.extend(changes(v).iter().map(|&(_, _, to)| to));
    seq
}

#[test]
fn scenario_cpu_limit_doubling_doubles_every_30_seconds_to_max() {
    let v = scenario("cpu-limit-doubling");
    assert_eq!(count_sequence(&v), [1, 2, 4, 8, 16, 24]);
    assert_eq!(
        changes(&v),
        [
            (60, 1, 2),
            (90, 2, 4),
            (120, 4, 8),
            (150, 8, 16),
            (180, 16, 24)
        ]
    );
    // The pod's usage stops at its limit: 100 % of request, and 23 of the 24 cores unserved.
    assert_eq!(row(&v, 60)["utilization"], 100.0);
    assert_eq!(row(&v, 60)["unservedLoad"], 23.0);
    assert_eq!(row(&v, 195)["unservedLoad"], 0.0);
    assert_eq!(v["summary"]["peakUnservedLoad"], 23.0);
    assert_eq!(v["summary"]["unservedSyncs"], 9);
    assert_eq!(v["settings"]["podLimit"]["cpu"], "1");
}

#[test]
fn without_a_limit_the_same_step_jumps_to_max_at_once() {
    let v = simulate_json(&["--scenario", "cpu-limit-doubling", "--pod-limit", "cpu=100"]);
    assert_eq!(count_sequence(&v), [1, 24]);
    assert_eq!(row(&v, 60)["utilization"], 2400.0);
}

/// The cpu-limit-doubling HPA with its Deployment in the `--hpa` file: the template's requests
/// and limits (app 800m + proxy 200m of cpu each) stand for `--pod-request cpu=1 --pod-limit
/// cpu=1`, and the run is the scenario's. A flag wins over the template.
const WITH_DEPLOYMENT: [&str; 8] = [
    "--hpa",
    "fixtures/hpa/api-with-deployment.yaml",
    "--load",
    "-",
    "--replicas",
    "1",
    "--duration",
    "4m",
];
const DOUBLING_LOAD: &str = "time,cpu\n0s,500m\n1m,24\n";

#[test]
fn the_pod_templates_limits_beside_the_hpa_cap_the_pods_as_pod_limit_does() {
    let v = simulate_json_stdin(&WITH_DEPLOYMENT, DOUBLING_LOAD);
    // Summed over the containers: cpu 800m + 200m. Memory: only app limits it, so the pod's
    // memory is not limited; its request is app's 256Mi.
    assert_eq!(v["settings"]["podLimit"], serde_json::json!({"cpu": "1"}));
    assert_eq!(
        v["settings"]["podRequest"],
        serde_json::json!({"cpu": "1", "memory": "256Mi"})
    );
    assert_eq!(count_sequence(&v), [1, 2, 4, 8, 16, 24]);
    // 24 cores on one pod limited to 1: 1000m of 1000m requested is 100 %, 23 cores unserved.
    assert_eq!(row(&v, 60)["utilization"], 100.0);
    assert_eq!(row(&v, 60)["unservedLoad"], 23.0);
    let scenario = scenario("cpu-limit-doubling");
    assert_eq!(rows(&v), rows(&scenario));
}

#[test]
fn pod_limit_and_pod_request_win_over_the_pod_template() {
    let mut args = WITH_DEPLOYMENT.to_vec();
    args.extend(["--pod-limit", "cpu=100"]);
    let v = simulate_json_stdin(&args, DOUBLING_LOAD);
    assert_eq!(count_sequence(&v), [1, 24]);
    assert_eq!(row(&v, 60)["utilization"], 2400.0);
    // A 500m request with the template's 1-core limit: 500m on one pod is 100 % at 0:00, ratio 2,
    // so ceil(2 × 1) = 2; at 1:00 each pod serves at most its 1000m of the 24 cores: 200 %.
    let mut args = WITH_DEPLOYMENT.to_vec();
    args.extend(["--pod-request", "cpu=500m"]);
    let v = simulate_json_stdin(&args, DOUBLING_LOAD);
    assert_eq!(row(&v, 0)["utilization"], 100.0);
    assert_eq!(changes(&v)[0], (0, 1, 2));
    assert_eq!(row(&v, 60)["utilization"], 200.0);
    // A template limit below the request given is refused where it is.
    Test::new()
        .args(["simulate"])
        .args(WITH_DEPLOYMENT)
        .args(["--pod-request", "cpu=2"])
        .stdin(DOUBLING_LOAD)
        .fails(1)
        .stderr(
            "error: fixtures/hpa/api-with-deployment.yaml: Deployment api spec.template \
             resources.limits: found cpu=1, below the request cpu=2, expected a limit of at least \
             the request\n",
        )
        .run();
}

#[test]
fn scenario_rollout_surge_multiplies_by_the_surge_pods() {
    let v = scenario("rollout-surge");
    assert_eq!(changes(&v), [(90, 8, 9)]);
    // 12 ready pods (8 old, 4 new not yet available) for 8 replicas.
    let r = row(&v, 90);
    assert_eq!(
        (r["readyReplicas"].as_i64(), r["replicas"].as_i64()),
        (Some(12), Some(8))
    );
    let surge = r["rolloutSurge"].as_str().expect("rolloutSurge at 1:30");
    assert!(
        surge.starts_with("12 ready pods, more than the target's 8 replicas"),
        "{surge}"
    );
    assert!(surge.ends_with("so it proposes 9"), "{surge}");
    let marked = |multiplied: bool| -> Vec<i64> {
        (rows(&v).iter())
            .filter(|r| {
                r["rolloutSurge"]
                    .as_str()
                    .is_some_and(|s| s.contains(" ready pods, more than ") == multiplied)
            })
            .map(|r| r["time"].as_i64().unwrap())
            .collect()
    };
    // Multiplied by more ready pods than replicas at 1:30, 2:00 and 2:15.
    assert_eq!(marked(true), [90, 120, 135]);
    // The other syncs of the rollout with surge pods say how many, in which state: at 1:00 the 4
    // new pods are Pending beside the 8 old ones; at 1:15 all 12 are Ready, but the new pods have
    // no sample yet (the recount proposes 6); at 1:45 14 pods for 9 replicas, 4 of them Pending.
    assert_eq!(marked(false), [60, 75, 105]);
    let tail = "; the controller lists them all, and this sync's proposal does not multiply a \
                ratio by more ready pods than replicas";
    for (t, head) in [
        (
            60,
            "12 pods for the target's 8 replicas during the rollout (4 surge pod(s)): 8 Ready, 4 Pending",
        ),
        (
            75,
            "12 pods for the target's 8 replicas during the rollout (4 surge pod(s)): 12 Ready",
        ),
        (
            105,
            "14 pods for the target's 9 replicas during the rollout (5 surge pod(s)): 10 Ready, 4 Pending",
        ),
    ] {
        assert_eq!(
            row(&v, t)["rolloutSurge"],
            format!("{head}{tail}"),
            "at {t}s"
        );
    }
    assert_eq!(v["summary"]["rolloutSurgeSyncs"], 6);
    assert!(has_event(
        &v,
        60,
        "rollout of a new pod template: maxSurge 50% (4 pod(s))"
    ));
    assert!(has_event(
        &v,
        150,
        "rollout complete: 9 pod(s) of the new template"
    ));
    assert_eq!(v["summary"]["finalReplicas"], 9);
}

#[test]
fn scenario_startup_burst_overshoots_without_the_initialization_period() {
    let v = scenario("startup-burst");
    assert_eq!(changes(&v), [(60, 8, 12), (105, 12, 16), (465, 16, 12)]);
    // The new pods' first samples are all warm-up: 4 at 100 %, 8 at 50 %.
    assert_eq!(row(&v, 105)["utilization"], 66.0);
    // The default period hides the burst: 8 → 12 and no more.
    let v = simulate_json(&[
        "--scenario",
        "startup-burst",
        "--cpu-initialization-period",
        "5m",
    ]);
    assert_eq!(changes(&v), [(60, 8, 12)]);
    assert_eq!(v["settings"]["startupCpu"]["factor"], 2.0);
}

#[test]
fn the_model_scenarios_tables_match_their_snapshots() {
    for (name, snapshot) in [
        (
            "cpu-limit-doubling",
            snapbox::file!["snapshots/simulate/cpu-limit-doubling.txt"],
        ),
        (
            "rollout-surge",
            snapbox::file!["snapshots/simulate/rollout-surge.txt"],
        ),
        (
            "startup-burst",
            snapbox::file!["snapshots/simulate/startup-burst.txt"],
        ),
    ] {
        let o = hpacalc(&["simulate", "--scenario", name]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        snapbox::assert_data_eq!(stdout(&o), snapshot);
    }
}

#[test]
fn simulate_refuses_scaling_modifiers_with_a_reason() {
    Test::new()
        .args(["simulate", "--hpa", "fixtures/keda/modifiers.yaml"])
        .args(["--load", "fixtures/load/web-day.csv"])
        .status(1)
        .stderr_contains("scalingModifiers")
        .run();
}

#[test]
fn scenario_list_names_every_scenario_with_what_to_notice() {
    let o = hpacalc(&["simulate", "--scenario", "list"]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    for name in [
        "tolerance",
        "traffic-doubles",
        "pods-pending",
        "short-dip",
        "real-drop",
        "node-scale-down",
        "keda-queue",
    ] {
        assert!(
            text.lines().any(|l| l == name),
            "{name} missing from:\n{text}"
        );
    }
    assert!(text.contains("ScaleDownStabilized"));
}

#[test]
fn command_line_flags_change_a_scenario() {
    // Nodes that boot in 40 s: the Pending pods start at 1:35 instead of 3:55.
    let v = simulate_json(&["--scenario", "pods-pending", "--node-startup", "40s"]);
    assert!(has_event(
        &v,
        40,
        "requests 1 node(s) (node-3, Ready at 1:20)"
    ));
    assert_eq!(row(&v, 90)["pendingPods"], 0);
    assert_eq!(v["settings"]["nodes"]["nodeStartupSeconds"], 40);
}

// ---- one sync equals the single-sync calculator ----

/// The first sync of a simulation and the calculator on the same inputs: same proposal, same
/// desired count.
fn assert_one_sync_equals_the_calculator(single: &[&str], single_stdin: &str, sim: &[&str]) {
    let one = Test::new()
        .args(single)
        .args(["--now", NOW, "-o", "json"])
        .stdin(single_stdin)
        .schema("report")
        .json();
    let mut sim_args = sim.to_vec();
    sim_args.extend(["--duration", "0s"]);
    let v = simulate_json(&sim_args);
    assert_eq!(rows(&v).len(), 1);
    let first = &rows(&v)[0];
    assert_eq!(first["recommendation"], one["decision"]["metricProposal"]);
    assert_eq!(first["desiredReplicas"], one["desiredReplicas"]);
    assert_eq!(first["replicas"], one["currentReplicas"]);
}

#[test]
fn one_sync_equals_the_single_sync_calculator_for_cpu() {
    assert_one_sync_equals_the_calculator(
        &[
            "--hpa",
            "fixtures/hpa/web-cpu.yaml",
            "--pods",
            "fixtures/samples/web-cpu.csv",
        ],
        "",
        &[
            "--hpa",
            "fixtures/hpa/web-cpu.yaml",
            "--load",
            "fixtures/load/web-cpu.csv",
            "--replicas",
            "6",
            "--pod-request",
            "cpu=500m",
        ],
    );
    let v = simulate_json(&[
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--load",
        "fixtures/load/web-cpu.csv",
        "--replicas",
        "6",
        "--pod-request",
        "cpu=500m",
        "--duration",
        "0s",
    ]);
    assert_eq!(rows(&v)[0]["desiredReplicas"], 10);
}

#[test]
fn one_sync_equals_the_single_sync_calculator_for_every_metric_type() {
    // Memory AverageValue, ContainerResource cpu, Pods, Object and External: uneven per-pod
    // samples in the calculator, the same totals split evenly in the simulation.
    let pods = "pod,started,memory,cpu,cpu_request,packets-per-second\n\
                e-0,6h,400Mi,300m,500m,1000\n\
                e-1,6h,450Mi,350m,500m,1200\n\
                e-2,6h,500Mi,400m,500m,900\n\
                e-3,6h,650Mi,450m,500m,1300\n";
    assert_one_sync_equals_the_calculator(
        &[
            "--hpa",
            "fixtures/hpa/all-metric-types.yaml",
            "--pods",
            "-",
            "--metric-value",
            "requests-per-second=15k",
            "--metric-value",
            "queue_messages_ready=200",
        ],
        pods,
        &[
            "--hpa",
            "fixtures/hpa/all-metric-types.yaml",
            "--load",
            "fixtures/load/everything.csv",
            "--replicas",
            "4",
            "--pod-request",
            "cpu=500m",
        ],
    );
}

// ---- timing boundaries ----

const BEHAVIOR_DOWN_300: &str = "\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: shop}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 10
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
  behavior:
    scaleDown:
      stabilizationWindowSeconds: 300
";

#[test]
fn a_recommendation_exactly_one_window_old_still_holds_on_the_legacy_path() {
    // The last 8 is recommended at 1:45. At 6:45 it is exactly 300 s old: the legacy window
    // includes it (stabilizeRecommendation skips only samples Before the cutoff).
    let v = scenario("real-drop");
    assert_eq!(row(&v, 105)["recommendation"], 8);
    assert_eq!(row(&v, 405)["stabilized"], 8);
    assert_eq!(row(&v, 405)["desiredReplicas"], 8);
    assert_eq!(row(&v, 420)["desiredReplicas"], 4);
}

#[test]
fn a_recommendation_exactly_one_window_old_is_out_with_behavior() {
    // The same load with behavior.scaleDown.stabilizationWindowSeconds 300: that window keeps
    // only samples After the cutoff, so the 8 of 1:45 is out at 6:45 and the count falls then.
    let v = simulate_json_stdin(
        &[
            "--hpa",
            "-",
            "--load",
            "fixtures/load/web-drop.csv",
            "--replicas",
            "8",
            "--pod-request",
            "cpu=500m",
            "--duration",
            "10m",
        ],
        BEHAVIOR_DOWN_300,
    );
    assert_eq!(row(&v, 390)["stabilized"], 8);
    assert_eq!(changes(&v), [(405, 8, 4)]);
}

#[test]
fn a_scale_event_exactly_one_period_old_no_longer_limits() {
    // One pod per 60 s: the event of 0:00 limits the syncs at 0:15, 0:30 and 0:45 (strictly
    // inside the period) and no longer at 1:00.
    let hpa = "\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: shop}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 10
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
  behavior:
    scaleUp:
      stabilizationWindowSeconds: 0
      policies:
      - {type: Pods, value: 1, periodSeconds: 60}
";
    let v = simulate_json_stdin(
        &[
            "--hpa",
            "-",
            "--load",
            "fixtures/load/web-cpu.csv",
            "--replicas",
            "2",
            "--pod-request",
            "cpu=500m",
            "--duration",
            "3m",
        ],
        hpa,
    );
    assert_eq!(
        changes(&v),
        [(0, 2, 3), (60, 3, 4), (120, 4, 5), (180, 5, 6)]
    );
    assert_eq!(row(&v, 45)["reason"], "ScaleUpLimit");
}

// ---- custom load files and outputs ----

#[test]
fn a_custom_load_file_runs_to_the_last_row_plus_15_minutes() {
    let v = simulate_json(&[
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--load",
        "fixtures/load/web-day.csv",
        "--replicas",
        "6",
        "--pod-request",
        "cpu=500m",
    ]);
    // The last row is at 10:00: 25 minutes, a sync every 15 s.
    assert_eq!(v["settings"]["durationSeconds"], 1500);
    assert_eq!(rows(&v).len(), 101);
    // Capped at maxReplicas 10; down in two steps as the window lets go of 12 and then of 6.
    assert_eq!(changes(&v), [(120, 6, 10), (780, 10, 6), (900, 6, 4)]);
    assert_eq!(row(&v, 120)["reason"], "TooManyReplicas");
    assert_eq!(v["summary"]["peakReplicas"], 10);
    assert!(v["summary"]["nodeSeconds"].is_null());
    assert!(row(&v, 0)["nodes"].is_null());
}

#[test]
fn several_load_columns_feed_their_metrics() {
    // queue-worker: an External Value metric and an Object AverageValue metric.
    let v = simulate_json(&[
        "--hpa",
        "fixtures/hpa/queue-worker.yaml",
        "--load",
        "fixtures/load/worker.csv",
        "--duration",
        "2m",
    ]);
    assert_eq!(v["loadColumns"][0]["name"], "queue_messages_ready");
    assert_eq!(row(&v, 0)["loads"]["inflight_jobs"], 18.0);
    // status.currentReplicas 4: 250 messages against 100 gives ceil(2.5 × 4) = 10.
    assert_eq!(row(&v, 0)["replicas"], 4);
    assert_eq!(row(&v, 0)["recommendation"], 10);
    assert_eq!(row(&v, 0)["utilization"], 250.0);
}

#[test]
fn csv_output_has_one_row_per_sync_and_the_json_keys_as_header() {
    let o = hpacalc(&["simulate", "--scenario", "traffic-doubles", "-o", "csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "time,load,utilization,readyReplicas,startingPods,pendingPods,replicas,recommendation,\
         stabilized,desiredReplicas,reason,nodes,nodesBooting,actualReplicas,unservedLoad,rolloutSurge"
    );
    assert_eq!(lines.len(), 22);
    assert_eq!(lines[5], "60,2,100,4,0,0,4,8,8,8,,,,,,");
}

#[test]
fn the_table_shows_the_story_events_and_summary() {
    let o = hpacalc(&["simulate", "--scenario", "pods-pending"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    // The answer first: where the run went, then the HPA it ran.
    assert!(
        text.starts_with("api: 6 → 17 over 6:00 — peak 17; "),
        "{text}"
    );
    let first = text
        .split("\n\n")
        .next()
        .unwrap_or_default()
        .replace('\n', " ");
    assert!(first.ends_with("at most 5 Pending; nodes 2 → 3"), "{first}");
    assert!(text.contains("\nHPA shop/api → Deployment/api"), "{text}");
    assert!(text.contains("Scenario pods-pending"));
    let header = text.lines().find(|l| l.starts_with("TIME  ")).unwrap();
    for column in [
        "LOAD", "UTIL", "READY", "PODS", "PENDING", "REC", "STABLE", "DESIRED", "REASON", "NODES",
    ] {
        assert!(header.contains(column), "{header}");
    }
    let at_45 = text.lines().find(|l| l.starts_with("0:45 ")).unwrap();
    let cells: Vec<&str> = at_45.split_whitespace().collect();
    assert_eq!(
        cells,
        [
            "0:45", "6000m", "83%", "12", "17", "5", "17", "17", "17", "-", "2", "+1"
        ]
    );
    // The LOAD column keeps one unit: 2160m at 0:00, so 6000m (not 6) at 0:15.
    assert!(text.contains("0:00  2160m  60%"));
    assert!(text.contains("0:15  6000m  166%"));
    assert!(text.contains("6 → 12"));
    assert!(text.contains("Events"));
    assert!(text.contains("Summary"));
}

#[test]
fn the_chart_is_an_svg_with_sync_ticks_and_the_window() {
    let dir = Scratch::new("chart");
    let path = dir.0.join("chart.svg");
    Test::new()
        .args(["simulate", "--scenario", "real-drop", "--chart"])
        .arg(&path)
        .status(0)
        .run();
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.trim_end().ends_with("</svg>"));
    // 41 syncs: one tick each under the plot.
    assert_eq!(svg.matches(" v7").count(), 41);
    assert!(svg.contains("5:00 window"));
    for label in [
        "desired replicas",
        "Ready pods",
        "recommendation",
        "HPA sync",
    ] {
        assert!(svg.contains(label), "{label}");
    }
}

#[test]
fn the_readme_documents_every_simulation_key() {
    let readme =
        std::fs::read_to_string(root().join("docs/simulate.md")).expect("docs/simulate.md");
    let section = readme
        .split("# Over time")
        .nth(1)
        .expect("docs/simulate.md has an \"Over time\" section");
    let v = scenario("pods-pending");
    let mut keys: Vec<String> = Vec::new();
    for object in [
        &v,
        &rows(&v)[0],
        &v["summary"],
        &v["settings"],
        &v["settings"]["nodes"],
        &v["events"][0],
        &v["metric"],
        &v["loadColumns"][0],
    ] {
        keys.extend(object.as_object().unwrap().keys().cloned());
    }
    for key in keys {
        assert!(
            section.contains(&format!("`{key}`")),
            "docs/simulate.md's \"Over time\" section does not document `{key}`"
        );
    }
}

// ---- errors ----

#[test]
fn load_file_errors_are_located_and_print_nothing() {
    // The bad load CSVs of the corpus (fixtures/malformed/CASES.tsv).
    check_malformed(&[
        "load-unordered.csv",
        "load-bad-value.csv",
        "load-unknown-column.csv",
    ]);
}

#[test]
fn flag_errors_say_what_was_found_and_expected() {
    let base = [
        "simulate",
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--load",
        "fixtures/load/web-cpu.csv",
    ];
    for (extra, want) in [
        (
            &[][..],
            "--pod-request: found no --pod-request, expected a cpu request such as cpu=500m",
        ),
        (
            &["--pod-request", "cpu=500m", "--node-startup", "1m"][..],
            "--node-startup: found no node group, expected --node-allocatable with it",
        ),
        (
            &["--pod-request", "cpu=500m", "--pod-startup", "1.5s"][..],
            "--pod-startup: found 1.5s, expected whole seconds",
        ),
        (
            &["--pod-request", "cpu=500m", "--sync-period", "0s"][..],
            "--sync-period: found 0s, expected at least 1s",
        ),
        (
            &["--pod-request", "cpu=500m", "--replicas=-1"][..],
            "--replicas: found -1, expected 0 or more",
        ),
        (
            &["--pod-request", "cpu=500m", "--duration", "9000h"][..],
            "--duration: found 9000h, expected at most 8784h",
        ),
    ] {
        assert_input_error(&base, extra, want);
    }
    Test::new()
        .args(["simulate", "--scenario", "nope"])
        .status(1)
        .stderr_contains("--scenario: found \"nope\", expected list or one of tolerance")
        .run();
}

#[test]
fn model_flag_errors_say_what_was_found_and_expected() {
    let base = [
        "simulate",
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--load",
        "fixtures/load/web-cpu.csv",
        "--pod-request",
        "cpu=500m",
    ];
    for (extra, want) in [
        (
            &["--pod-limit", "cpu=250m"][..],
            "--pod-limit: found cpu=250m, below the request cpu=500m, expected a limit of at \
             least the request",
        ),
        (
            &["--max-surge", "1"][..],
            "--max-surge: found no rollout, expected --rollout AT with it",
        ),
        (
            &["--min-ready-seconds", "10"][..],
            "--min-ready-seconds: found no rollout, expected --rollout AT with it",
        ),
        (
            &["--rollout", "1m", "--max-surge", "lots"][..],
            "--max-surge: found \"lots\", expected a count of 0 or more or a percent such as 25%",
        ),
        (
            &["--rollout", "1m", "--max-unavailable", "150%"][..],
            "--max-unavailable: found 150%, expected at most 100%",
        ),
        (
            &[
                "--rollout",
                "1m",
                "--max-surge",
                "0",
                "--max-unavailable",
                "0%",
            ][..],
            "--max-unavailable: found 0 with --max-surge 0, expected one of them above 0",
        ),
        (
            &["--rollout", "1m", "--duration", "30s"][..],
            "--rollout: found 1m, expected a time within the --duration of 30s",
        ),
        (
            &["--startup-cpu", "2:45s"][..],
            "--startup-cpu: found \"2:45s\", expected FACTORx:DURATION",
        ),
        (
            &["--startup-cpu", "2x:0s"][..],
            "--startup-cpu: found 0s, expected at least 1s",
        ),
    ] {
        assert_input_error(&base, extra, want);
    }
}

/// A rollout whose surge pod finds no room: 4 pods of cpu 1 fill the 2 nodes of cpu 2 (the
/// group's maximum), so the new pod stays Pending beside the 4 old ones, which cannot go
/// (maxUnavailable 0). At 55 % the 4 Ready pods are inside the tolerance. From 1:00 on the table
/// shows 5 pods for 4 replicas, and so does each row's `rolloutSurge`; the table's REASON too.
#[test]
fn surge_pods_that_are_pending_are_said_in_rollout_surge_as_the_table_shows_them() {
    let args = [
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--load",
        "-",
        "--replicas",
        "4",
        "--pod-request",
        "cpu=1",
        "--node-allocatable",
        "cpu=2,pods=110",
        "--existing-nodes",
        "2",
        "--node-group-max",
        "2",
        "--rollout",
        "1m",
        "--max-surge",
        "1",
        "--max-unavailable",
        "0",
        "--duration",
        "2m",
    ];
    let load = "time,cpu\n0s,2200m\n";
    let v = simulate_json_stdin(&args, load);
    let surge = "5 pods for the target's 4 replicas during the rollout (1 surge pod(s)): 4 Ready, \
                 1 Pending; the controller lists them all, and this sync's proposal does not \
                 multiply a ratio by more ready pods than replicas";
    for r in rows(&v) {
        let t = r["time"].as_i64().unwrap();
        let pods = ["readyReplicas", "startingPods", "pendingPods"]
            .map(|k| r[k].as_i64().unwrap())
            .iter()
            .sum::<i64>();
        if t < 60 {
            assert_eq!((pods, &r["rolloutSurge"]), (4, &Value::Null), "at {t}s");
        } else {
            assert_eq!((pods, r["pendingPods"].as_i64()), (5, Some(1)), "at {t}s");
            assert_eq!(r["rolloutSurge"], surge, "at {t}s");
        }
        assert_eq!(
            (r["replicas"].as_i64(), r["desiredReplicas"].as_i64()),
            (Some(4), Some(4))
        );
    }
    assert_eq!(v["summary"]["rolloutSurgeSyncs"], 5);
    let table = Test::new()
        .args(["simulate", "--every-sync"])
        .args(args)
        .stdin(load)
        .status(0)
        .run();
    let text = stdout(&table);
    let at = |clock: &str| {
        text.lines()
            .find(|l| l.starts_with(clock))
            .unwrap()
            .to_string()
    };
    assert!(
        at("1:00 ").contains(" 5     1  ") && at("1:00 ").contains("RolloutSurge"),
        "{text}"
    );
    assert!(!at("0:45 ").contains("RolloutSurge"), "{text}");
    assert!(text.contains("RolloutSurge at 5 sync(s): more pods than replicas during the rollout"));
}

#[test]
fn a_rollout_with_the_default_fenceposts_replaces_every_pod() {
    // 10 pods at 48 %: surge 3 (rounded up), unavailable 2 (rounded down). Two steps replace all
    // 10 pods; the count holds.
    let v = simulate_json(&[
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--load",
        "fixtures/load/web-cpu.csv",
        "--pod-request",
        "cpu=500m",
        "--replicas",
        "10",
        "--rollout",
        "30s",
        "--duration",
        "3m",
    ]);
    assert!(has_event(
        &v,
        30,
        "rollout of a new pod template: maxSurge 25% (3 pod(s)), maxUnavailable 25% (2) of 10"
    ));
    assert!(has_event(
        &v,
        30,
        "scales the new ReplicaSet 0 → 5, the old ReplicaSet 10 → 8"
    ));
    assert!(has_event(
        &v,
        45,
        "scales the new ReplicaSet 5 → 10, the old ReplicaSet 8 → 3"
    ));
    assert!(has_event(
        &v,
        60,
        "rollout complete: 10 pod(s) of the new template"
    ));
    assert_eq!(changes(&v), []);
    // The syncs at 0:30 and 0:45 see 13 pods for 10 replicas (the 5 new ones not Ready yet, 2 old
    // ones gone): surge pods, but never more ready pods than replicas.
    let surge = "13 pods for the target's 10 replicas during the rollout (3 surge pod(s)): 8 \
                 Ready, 5 Pending; the controller lists them all, and this sync's proposal does \
                 not multiply a ratio by more ready pods than replicas";
    for t in [30, 45] {
        assert_eq!(row(&v, t)["rolloutSurge"], surge, "at {t}s");
    }
    assert_eq!(v["summary"]["rolloutSurgeSyncs"], 2);
    assert_eq!(v["settings"]["rollout"]["maxSurge"], "25%");
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["simulate"][..],
        &["simulate", "--hpa", "fixtures/hpa/web-cpu.yaml"][..],
        &[
            "simulate",
            "--scenario",
            "tolerance",
            "--hpa",
            "fixtures/hpa/web-cpu.yaml",
        ][..],
        &["simulate", "--scenario", "tolerance", "-o", "yaml"][..],
    ] {
        Test::new().args(args).status(2).stdout("").run();
    }
}

#[test]
fn an_unwritable_chart_is_an_error_and_prints_nothing() {
    Test::new()
        .args(["simulate", "--scenario", "tolerance"])
        .args(["--chart", "/nonexistent-dir/chart.svg"])
        .status(1)
        .stdout("")
        .stderr_contains("/nonexistent-dir/chart.svg: cannot write --chart")
        .run();
}

#[test]
fn the_readme_simulate_example_is_the_real_output() {
    let readme =
        std::fs::read_to_string(root().join("docs/simulate.md")).expect("docs/simulate.md");
    let command = "$ hpacalc simulate --scenario pods-pending\n";
    let start = readme
        .find(command)
        .expect("docs/simulate.md shows the pods-pending example")
        + command.len();
    let block = &readme[start..];
    let block = &block[..block.find("```").expect("the example's end")];
    let o = hpacalc(&["simulate", "--scenario", "pods-pending"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        block,
        "docs/simulate.md's simulate example is not the real output"
    );
}

/// Durations take days; a day of syncs is every sync in the JSON, and the table prints the first,
/// the last and the syncs that change a column, unless `--every-sync`.
#[test]
fn a_day_takes_d_and_the_table_prints_only_the_syncs_that_change() {
    let args = ["simulate", "--scenario", "real-drop", "--duration", "1d"];
    let v = Test::new().args(args).args(["-o", "json"]).json();
    // 86,400 s at a 15 s sync period, both ends included.
    assert_eq!(v["timeline"].as_array().unwrap().len(), 5761);
    let short = stdout(&Test::new().args(args).status(0).run());
    assert!(
        short.contains("syncs shown: the first, the last"),
        "{short}"
    );
    assert!(short.contains("\n…\n"), "{short}");
    assert!(short.lines().count() < 80, "{short}");
    assert!(
        short.contains("\n23:59:45  ") || short.contains("\n24:00:00  "),
        "{short}"
    );
    let every = stdout(&Test::new().args(args).arg("--every-sync").status(0).run());
    assert!(every.lines().count() > 5761, "{}", every.lines().count());
    assert!(!every.contains("syncs shown"));
    Test::new()
        .args(["simulate", "--scenario", "real-drop", "--duration", "400d"])
        .fails(1)
        .stderr_contains("expected at most")
        .run();
}

/// On a terminal (util-linux's `script`), a sparkline of desired replicas heads the table;
/// piped, it does not.
#[test]
fn a_sparkline_of_desired_replicas_heads_the_table_on_a_terminal() {
    let command = format!(
        "stty cols 100 rows 60; exec {} simulate --scenario real-drop",
        env!("CARGO_BIN_EXE_hpacalc")
    );
    let o = Test::new()
        .program("script")
        .args(["-qec", &command, "/dev/null"])
        .status(0)
        .run();
    let text = stdout(&o).replace("\r\n", "\n");
    let line = text
        .lines()
        .find(|l| l.starts_with("desired replicas "))
        .unwrap_or_else(|| panic!("no sparkline:\n{text}"));
    // real-drop holds 8, then falls to 4 when the window lets go.
    assert!(line.starts_with("desired replicas 4 █"), "{line}");
    assert!(line.ends_with("▁ 8"), "{line}");
    assert!(line.chars().count() <= 100, "{line}");
    let piped = hpacalc(&["simulate", "--scenario", "real-drop"]);
    assert!(!stdout(&piped).contains("desired replicas "));
}

/// `--chart` and `--html` follow the umask, as a shell's `>` does (a report is for sharing); the
/// files of a capture (`--save`) are private, which `output.rs`'s unit test checks.
#[cfg(unix)]
#[test]
fn chart_and_html_files_follow_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let dir = Scratch::new("umask");
    let (chart, html) = (dir.0.join("run.svg"), dir.0.join("run.html"));
    let command = format!(
        "umask 022; exec {} simulate --scenario real-drop --chart {} --html {}",
        env!("CARGO_BIN_EXE_hpacalc"),
        chart.display(),
        html.display()
    );
    Test::new()
        .program("sh")
        .args(["-c", &command])
        .status(0)
        .run();
    for path in [&chart, &html] {
        let mode = std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644, "{}: {mode:o}", path.display());
    }
}

/// At 80 columns (`COLUMNS=80`, as a piped run of an 80-column terminal) no line is over 80:
/// every built-in scenario's table (its heading line wrapped at the terminal's width, a KEDA
/// metric's long name included), the scenario list, a comparison and the README's example.
#[test]
fn every_simulation_and_the_readme_example_fit_80_columns() {
    let at_80 = |args: &[&str]| {
        let o = Test::new().args(args).env("COLUMNS", "80").status(0).run();
        let text = stdout(&o);
        let over: Vec<&str> = text.lines().filter(|l| l.chars().count() > 80).collect();
        assert!(over.is_empty(), "{args:?}: lines over 80: {over:#?}");
        text
    };
    let list = at_80(&["simulate", "--scenario", "list"]);
    let names: Vec<&str> = (list.lines())
        .filter(|l| !l.is_empty() && !l.starts_with(' '))
        .collect();
    assert!(names.len() >= 12, "{names:?}");
    for name in &names {
        let text = at_80(&["simulate", "--scenario", name]);
        // The heading is there, wrapped: the HPA and the rules, then the metric and its target.
        let heading = text.lines().find(|l| l.starts_with("HPA ")).unwrap_or("");
        assert!(heading.contains("  ·  Kubernetes 1."), "{name}: {text}");
        assert!(text.contains(" target "), "{name}: {text}");
    }
    at_80(&[
        "simulate",
        "--hpa",
        "fixtures/compare/web-fast-down.yaml",
        "--compare",
        "fixtures/compare/web-slow-down.yaml",
        "--load",
        "fixtures/prometheus/bursty-cpu.json",
        "--pod-request",
        "cpu=500m",
        "--replicas",
        "4",
    ]);
    let readme = at_80(&[
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pods",
        "fixtures/samples/web-cpu.csv",
        "--now",
        NOW,
    ]);
    assert!(readme.starts_with("web: 6 → 10 scale up"), "{readme}");
}
