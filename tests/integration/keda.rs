//! KEDA ScaledObjects (`fixtures/keda/`): the HPA each one becomes, and the decisions of both
//! layers before and after activation.

use crate::support::{Test, codes, hpacalc, json_output, root, stderr, stdout};

const NOW: &str = "2026-11-30T10:00:00Z";

fn run(file: &str, args: &[&str]) -> serde_json::Value {
    let path = format!("fixtures/keda/{file}");
    let mut all = vec!["--hpa", path.as_str(), "--now", NOW];
    all.extend(args);
    json_output(&all)
}

/// The diagnostics of KEDA's layer (the HPA's own ones, such as RateLimited, are tested elsewhere).
fn keda_codes(v: &serde_json::Value) -> Vec<String> {
    codes(v)
        .into_iter()
        .filter(|c| c.starts_with("Keda"))
        .collect()
}

fn keda_steps(v: &serde_json::Value) -> Vec<String> {
    v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["phase"] == "keda")
        .map(|s| {
            format!(
                "{}: {}",
                s["title"].as_str().unwrap(),
                s["detail"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn print_hpa_matches_the_snapshots() {
    for name in [
        "prometheus",
        "kafka-lag",
        "cron",
        "cpu-queue",
        "modifiers",
        "fallback",
        "idle",
    ] {
        let path = format!("fixtures/keda/{name}.yaml");
        let o = hpacalc(&["--hpa", &path, "--print-hpa"]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        let snapshot = root()
            .join("tests/integration/snapshots/keda")
            .join(format!("{name}.hpa.yaml"));
        snapbox::assert_data_eq!(stdout(&o), snapbox::Data::read_from(&snapshot, None));
    }
}

#[test]
fn print_hpa_json_is_the_same_object() {
    let v = json_output(&["--hpa", "fixtures/keda/prometheus.yaml", "--print-hpa"]);
    assert_eq!(v["metadata"]["name"], "keda-hpa-api");
    assert_eq!(
        v["spec"]["metrics"][0]["external"]["metric"]["name"],
        "s0-prometheus"
    );
}

#[test]
fn prometheus_table_from_zero_matches_the_snapshot() {
    let o = hpacalc(&[
        "--hpa",
        "fixtures/keda/prometheus.yaml",
        "--metric-value",
        "rps=850",
        "--current-replicas",
        "0",
        "--now",
        NOW,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    snapbox::assert_data_eq!(
        stdout(&o),
        snapbox::file!["snapshots/keda/prometheus-activation.txt"]
    );
}

#[test]
fn prometheus_below_activation_stays_at_zero() {
    let v = run(
        "prometheus.yaml",
        &["--metric-value", "rps=5", "--current-replicas", "0"],
    );
    assert_eq!(v["desiredReplicas"], 0);
    assert_eq!(keda_codes(&v), ["KedaActivation"]);
    // The HPA's own steps follow KEDA's.
    let phases: Vec<&str> = v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["phase"].as_str().unwrap())
        .collect();
    // At 0 replicas the HPA computes no metric: KEDA's rows sit between its inputs and its
    // conditions.
    let keda = phases.iter().position(|p| *p == "keda").unwrap();
    let conditions = phases.iter().position(|p| *p == "conditions").unwrap();
    assert!(phases[..keda].iter().all(|p| *p == "inputs"));
    assert!(keda < conditions);
    let v = run(
        "prometheus.yaml",
        &["--metric-value", "rps=50", "--current-replicas", "2"],
    );
    let phases: Vec<&str> = v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["phase"].as_str().unwrap())
        .collect();
    let keda = phases.iter().rposition(|p| *p == "keda").unwrap();
    let metric = phases.iter().position(|p| *p == "metric").unwrap();
    assert!(keda < metric);
}

#[test]
fn kafka_lag_before_and_after_activation() {
    let v = run(
        "kafka-lag.yaml",
        &["--metric-value", "s0=8", "--current-replicas", "0"],
    );
    assert_eq!(v["desiredReplicas"], 0);
    // By the generated metric name; KEDA sets 1, the HPA doubles it at most to 4 (legacy
    // limit max(2×1, 4)) toward ceil(420/50) = 9.
    let v = run(
        "kafka-lag.yaml",
        &[
            "--metric-value",
            "s0-kafka-orders-created=420",
            "--current-replicas",
            "0",
        ],
    );
    assert_eq!(v["currentReplicas"], 0);
    assert_eq!(v["desiredReplicas"], 4);
    assert_eq!(v["decision"]["metricProposal"], 9);
    assert_eq!(keda_codes(&v), ["KedaActivation"]);
}

#[test]
fn kafka_cooldown_then_scale_to_zero() {
    let v = run(
        "kafka-lag.yaml",
        &[
            "--metric-value",
            "s0=0",
            "--current-replicas",
            "3",
            "--last-active",
            "1m",
        ],
    );
    // Cooling down (120 s): the HPA alone goes to its minimum, 1.
    assert_eq!(v["desiredReplicas"], 1);
    assert_eq!(keda_codes(&v), ["KedaCooldown"]);
    // Exactly the cooldown ago is not yet "before now".
    let v = run(
        "kafka-lag.yaml",
        &[
            "--metric-value",
            "s0=0",
            "--current-replicas",
            "3",
            "--last-active",
            "2m",
        ],
    );
    assert_eq!(keda_codes(&v), ["KedaCooldown"]);
    let v = run(
        "kafka-lag.yaml",
        &[
            "--metric-value",
            "s0=0",
            "--current-replicas",
            "3",
            "--last-active",
            "2m1s",
        ],
    );
    assert_eq!(v["desiredReplicas"], 0);
    assert_eq!(keda_codes(&v), ["KedaIdle"]);
}

#[test]
fn cron_window_sets_desired_replicas_through_the_hpa() {
    let v = run(
        "cron.yaml",
        &["--metric-value", "s0=0", "--current-replicas", "0"],
    );
    assert_eq!(v["desiredReplicas"], 0);
    let v = run(
        "cron.yaml",
        &["--metric-value", "s0=10", "--current-replicas", "10"],
    );
    // 10 pods at target 1 each: ratio 1, no change (the deadband of kedacore/keda#7900).
    assert_eq!(v["desiredReplicas"], 10);
}

/// Two minutes after the cron window closed, KEDA's lastActiveTime says the trigger served its 2
/// then: the HPA's scale-down window holds 2 until about 07:22, not the 1 of steady load.
#[test]
fn a_recent_last_active_time_holds_the_cron_count_in_the_window() {
    let at = |now: &str| {
        json_output(&[
            "--hpa",
            "fixtures/keda/cron-last-active.yaml",
            "--metric-value",
            "s0=0",
            "--current-replicas",
            "2",
            "--now",
            now,
        ])
    };
    let v = at("2026-11-30T07:19:00Z");
    assert_eq!(v["desiredReplicas"], 2);
    assert_eq!(codes(&v)[0], "KedaRecentlyActive", "{}", v["diagnostics"]);
    let summary = v["decision"]["summary"].as_str().unwrap();
    assert!(
        summary.ends_with(
            "the window holds the recommendation of KEDA's last active time \
             (2026-11-30T07:17:00Z, at least 2) until about 2026-11-30T07:22:00Z, then 1"
        ),
        "{summary}"
    );
    // Past the window the record is gone: steady load, 2 → 1.
    let v = at("2026-11-30T07:22:30Z");
    assert_eq!(v["desiredReplicas"], 1);
    assert!(!codes(&v).contains(&"KedaRecentlyActive".to_string()));
}

#[test]
fn cpu_plus_queue_takes_the_larger_proposal() {
    let v = run(
        "cpu-queue.yaml",
        &[
            "--pods",
            "fixtures/keda/images.csv",
            "--metric-value",
            "queue=150",
        ],
    );
    assert_eq!(v["desiredReplicas"], 8);
    let v = run(
        "cpu-queue.yaml",
        &[
            "--pods",
            "fixtures/keda/images.csv",
            "--metric-value",
            "queue=0",
        ],
    );
    // The queue is inactive, min is 2: KEDA does nothing and cpu (90 % of 70 %) gives 6.
    assert_eq!(v["desiredReplicas"], 6);
    assert!(keda_codes(&v).is_empty());
}

#[test]
fn modifiers_formula_and_activation_target() {
    let v = run(
        "modifiers.yaml",
        &[
            "--metric-value",
            "rps=1",
            "--metric-value",
            "queue=2",
            "--current-replicas",
            "0",
        ],
    );
    // (1 + 2) / 2 = 1.5 is not above activationTarget 2.
    assert_eq!(v["desiredReplicas"], 0);
    let v = run(
        "modifiers.yaml",
        &[
            "--metric-value",
            "rps=300",
            "--metric-value",
            "queue=100",
            "--current-replicas",
            "5",
        ],
    );
    // composite 200 against 50 per pod: 4.
    assert_eq!(v["desiredReplicas"], 4);
    assert_eq!(v["metrics"][0]["name"], "composite-metric");
    assert!(
        keda_steps(&v)
            .iter()
            .any(|s| s == "formula: composite-metric = (rps + queue) / 2 = 200"),
        "{:?}",
        keda_steps(&v)
    );
}

#[test]
fn fallback_after_more_than_failure_threshold() {
    // status.health has 3 failures; this one is the 4th: currentReplicasIfHigher of 4 and 6.
    let v = run(
        "fallback.yaml",
        &["--metric-value", "outbox=failed", "--current-replicas", "4"],
    );
    assert_eq!(v["desiredReplicas"], 6);
    assert_eq!(keda_codes(&v), ["KedaFallback"]);
    let v = run(
        "fallback.yaml",
        &["--metric-value", "outbox=failed", "--current-replicas", "9"],
    );
    assert_eq!(v["desiredReplicas"], 9);
    // --metric-failures wins over the status: 2 failures, no fallback yet; the HPA's metric is
    // invalid and it keeps the count.
    let v = run(
        "fallback.yaml",
        &[
            "--metric-value",
            "outbox=failed",
            "--metric-failures",
            "1",
            "--current-replicas",
            "4",
        ],
    );
    assert_eq!(v["desiredReplicas"], 4);
    assert_eq!(v["metrics"][0]["errorReason"], "FailedGetExternalMetric");
    // Before the failure, a value: 60 messages at 25 per pod.
    let v = run(
        "fallback.yaml",
        &["--metric-value", "outbox=60", "--current-replicas", "4"],
    );
    assert_eq!(v["desiredReplicas"], 3);
}

#[test]
fn idle_replicas_before_and_after_activation() {
    let v = run(
        "idle.yaml",
        &["--metric-value", "jobs=0", "--current-replicas", "2"],
    );
    assert_eq!(v["desiredReplicas"], 0);
    assert_eq!(keda_codes(&v), ["KedaIdle"]);
    let v = run(
        "idle.yaml",
        &["--metric-value", "jobs=35", "--current-replicas", "0"],
    );
    // KEDA sets minReplicaCount 2, then the HPA: ceil(35/10) = 4.
    assert_eq!(v["desiredReplicas"], 4);
    assert_eq!(keda_codes(&v), ["KedaActivation"]);
}

#[test]
fn nan_inf_and_negative_values_are_served_as_zero() {
    for value in ["NaN", "Inf", "-3"] {
        let arg = format!("jobs={value}");
        // Cooling down, so the HPA still runs and shows what KEDA serves.
        let v = run(
            "idle.yaml",
            &[
                "--metric-value",
                &arg,
                "--current-replicas",
                "4",
                "--last-active",
                "10s",
            ],
        );
        assert_eq!(v["metrics"][0]["currentAverageValue"], "0", "{value}");
    }
}

#[test]
fn paused_replicas_hold_the_target() {
    let text = std::fs::read_to_string(root().join("fixtures/keda/idle.yaml"))
        .unwrap()
        .replace(
            "  name: thumbnails\n",
            "  name: thumbnails\n  annotations:\n    autoscaling.keda.sh/paused-replicas: \"3\"\n",
        );
    let v = Test::new()
        .args(["--hpa", "-", "--metric-value", "jobs=100"])
        .args(["--current-replicas", "7", "-o", "json"])
        .stdin(text)
        .schema("report")
        .json();
    assert_eq!(v["desiredReplicas"], 3);
    assert_eq!(v["decision"]["change"], "scaleDown");
}

#[test]
fn webhook_errors_are_located_in_the_scaled_object() {
    let text = "apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata:\n  name: w\nspec:\n  \
                scaleTargetRef:\n    name: w\n  minReplicaCount: 2\n  idleReplicaCount: 2\n  \
                triggers:\n    - type: redis\n      metadata:\n        listName: q\n";
    Test::new()
        .args(["--hpa", "-", "--metric-value", "s0=1"])
        .stdin(text)
        .status(1)
        .stdout("")
        .stderr_contains(":9:")
        .stderr_contains("idleReplicaCount")
        .run();
}

#[test]
fn unsupported_formula_construct_is_named() {
    let text = std::fs::read_to_string(root().join("fixtures/keda/modifiers.yaml"))
        .unwrap()
        .replace("(rps + queue) / 2", "count([rps, queue], {# > 1})");
    Test::new()
        .args(["--hpa", "-", "--print-hpa"])
        .stdin(text)
        .status(1)
        .stderr_contains("function `count`")
        .stderr_contains("scalingModifiers.formula")
        .run();
}

#[test]
fn a_missing_trigger_value_names_the_flag_to_pass() {
    Test::new()
        .args([
            "--hpa",
            "fixtures/keda/modifiers.yaml",
            "--metric-value",
            "rps=1",
        ])
        .args(["--current-replicas", "2"])
        .status(1)
        .stderr_contains("--metric-value queue=VALUE")
        .run();
}

#[test]
fn keda_flags_need_a_scaled_object() {
    let o = hpacalc(&["--hpa", "fixtures/hpa/web-cpu.yaml", "--last-active", "1m"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn the_scaled_object_and_the_hpa_keda_made_agree() {
    let external = "fixtures/kubectl/external-metrics.json";
    let from_so = json_output(&[
        "--hpa",
        "fixtures/keda/rabbitmq-worker.yaml",
        "--external-metrics",
        external,
        "--current-replicas",
        "5",
    ]);
    let from_hpa = json_output(&[
        "--hpa",
        "fixtures/kubectl/keda-hpa.yaml",
        "--external-metrics",
        external,
        "--current-replicas",
        "5",
    ]);
    assert_eq!(from_so["desiredReplicas"], from_hpa["desiredReplicas"]);
    assert_eq!(
        from_so["metrics"][0]["name"],
        from_hpa["metrics"][0]["name"]
    );
    assert_eq!(
        from_so["metrics"][0]["target"],
        from_hpa["metrics"][0]["target"]
    );
}

/// The HPA KEDA generated, as `kubectl get hpa -o yaml` prints it, alone: its status keeps only
/// the External metric's per-pod average (27400m over 5 replicas), so the answer is the
/// status-only approximation its describe text gives, 137 / 20 → 7. With `--pods` the total is a
/// missing input (exit 2), not made up.
#[test]
fn a_keda_hpas_yaml_alone_is_the_approximation_and_with_pods_its_total_is_missing() {
    let v = json_output(&["--hpa", "fixtures/kubectl/keda-hpa.yaml", "--now", NOW]);
    assert_eq!(v["approximation"], true);
    assert_eq!(v["decision"]["metricProposal"], 7);
    assert_eq!(v["desiredReplicas"], 7);
    assert!(codes(&v).contains(&"KedaManaged".to_string()));
    assert!(
        v["assumptions"]
            .to_string()
            .contains("averageValue × 5 replicas"),
        "{}",
        v["assumptions"]
    );
    Test::new()
        .args(["--hpa", "fixtures/kubectl/keda-hpa.yaml"])
        .args(["--pods", "fixtures/kubectl/pods.json"])
        .fails(2)
        .stdout("")
        .stderr_contains("expected --metric-value s0-rabbitmq-worker_tasks=QUANTITY")
        .run();
}

/// The ScaledObject's status as `kubectl get scaledobject -o yaml` prints it is evidence: no
/// trigger value is needed where the status bounds it, and what KEDA itself does comes first.
#[test]
fn the_status_says_keda_scales_to_zero_after_the_cooldown() {
    let v = run("status-cooldown.yaml", &["--current-replicas", "4"]);
    assert_eq!(v["desiredReplicas"], 0, "{}", v["decision"]);
    let first = &v["diagnostics"][0];
    assert_eq!(first["code"], "StatusKedaInactive");
    let message = first["message"].as_str().unwrap();
    assert!(
        message.contains("Active=False (ScalerCooldown)")
            && message.contains("ended at 2026-11-30T09:59:30Z")
            && message.contains("KEDA deactivates 4 → 0 (minReplicaCount)"),
        "{message}"
    );
    // Inside the cooldown KEDA waits and the HPA decides: at most the activation threshold (10)
    // of lag over 50 per pod, up to minReplicas 1.
    let v = json_output(&[
        "--hpa",
        "fixtures/keda/status-cooldown.yaml",
        "--current-replicas",
        "4",
        "--now",
        "2026-11-30T09:58:30Z",
    ]);
    assert_eq!(v["desiredReplicas"], 1, "{}", v["decision"]);
    assert_eq!(v["diagnostics"][0]["code"], "StatusKedaInactive");
    assert!(
        v["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .contains("KEDA is cooling down"),
        "{}",
        v["diagnostics"][0]
    );
}

#[test]
fn the_status_last_active_time_bounds_now() {
    // --now before lastActiveTime contradicts the capture: said, not silently used.
    let v = json_output(&[
        "--hpa",
        "fixtures/keda/status-cooldown.yaml",
        "--current-replicas",
        "4",
        "--now",
        "2026-11-30T09:50:00Z",
    ]);
    let conflicts: Vec<String> = (v["diagnostics"].as_array().unwrap().iter())
        .filter(|d| d["code"] == "StatusKedaConflict")
        .map(|d| d["message"].as_str().unwrap().to_string())
        .collect();
    assert!(
        conflicts
            .iter()
            .any(|m| m.contains("status.lastActiveTime 2026-11-30T09:57:30Z is after now")),
        "{conflicts:?}"
    );
}

#[test]
fn the_status_fallback_serves_target_times_replicas() {
    let v = run("status-fallback.yaml", &["--current-replicas", "3"]);
    assert_eq!(v["desiredReplicas"], 6, "{}", v["decision"]);
    let first = &v["diagnostics"][0];
    assert_eq!(first["code"], "StatusKedaFallback");
    assert!(
        first["message"].as_str().unwrap().contains(
            "failed 4 time(s) in a row (status.health), more than fallback.failureThreshold 3"
        ),
        "{first}"
    );
    assert!(
        first["message"]
            .as_str()
            .unwrap()
            .contains("served as target 25 × 6 = 150 (doFallback)"),
        "{first}"
    );
    // A value given now is a conflict with the status, and the value decides.
    let v = run(
        "status-fallback.yaml",
        &["--current-replicas", "3", "--metric-value", "outbox=50"],
    );
    assert_eq!(v["desiredReplicas"], 2, "{}", v["decision"]);
    assert!(codes(&v).contains(&"StatusKedaConflict".to_string()));
    assert!(!codes(&v).contains(&"StatusKedaFallback".to_string()));
}

#[test]
fn the_status_paused_count_against_the_annotation() {
    let v = run(
        "status-paused.yaml",
        &["--current-replicas", "4", "--metric-value", "s0=90"],
    );
    assert_eq!(v["desiredReplicas"], 5);
    assert_eq!(v["diagnostics"][0]["code"], "StatusKedaPaused");
    let conflict = (v["diagnostics"].as_array().unwrap().iter())
        .find(|d| d["code"] == "StatusKedaConflict")
        .expect("the status's pausedReplicaCount 3 against the annotation's 5");
    assert!(
        conflict["message"]
            .as_str()
            .unwrap()
            .contains("status.pausedReplicaCount is 3, but the paused-replicas annotation says 5"),
        "{conflict}"
    );
}

#[test]
fn a_trigger_threshold_pinning_max_gets_a_checked_fix_in_scaled_object_terms() {
    // 5000 of lag over lagThreshold 50: 100 asked, maxReplicaCount 12.
    let v = run(
        "kafka-lag.yaml",
        &["--metric-value", "s0=5000", "--current-replicas", "10"],
    );
    let at_max = (v["diagnostics"].as_array().unwrap().iter())
        .find(|d| d["code"] == "AtMaxReplicas")
        .unwrap();
    assert_eq!(
        at_max["fix"],
        "raise trigger s0 (kafka) metadata.lagThreshold from 50 to 420 → 12 replicas; or, if \
         the load needs them, raise spec.maxReplicaCount to 100 → 20 replicas"
    );
    // The fix applied to the ScaledObject: 5000 over 420 is 12, within maxReplicaCount, and
    // nothing is pinned any more.
    let dir = crate::support::Scratch::new("keda-threshold-fix");
    let fixed = dir.0.join("kafka-lag.yaml");
    let text = std::fs::read_to_string(root().join("fixtures/keda/kafka-lag.yaml")).unwrap();
    std::fs::write(
        &fixed,
        text.replace("lagThreshold: \"50\"", "lagThreshold: \"420\""),
    )
    .unwrap();
    let checked = json_output(&[
        "--hpa",
        fixed.to_str().unwrap(),
        "--now",
        NOW,
        "--metric-value",
        "s0=5000",
        "--current-replicas",
        "10",
    ]);
    assert_eq!(checked["desiredReplicas"], 12);
    assert!(!codes(&checked).contains(&"AtMaxReplicas".to_string()));
    // Below max there is nothing to fix: no trigger advice.
    let v = run(
        "kafka-lag.yaml",
        &["--metric-value", "s0=400", "--current-replicas", "8"],
    );
    let text = v["diagnostics"].to_string();
    assert!(!text.contains("raise trigger"), "{text}");
}

#[test]
fn a_composite_metric_pinning_max_gets_the_modifiers_target_checked_forward() {
    // (3000 + 1000) / 2 = 2000 over scalingModifiers.target 50: 40 asked, maxReplicaCount 25.
    let values = ["--metric-value", "rps=3000", "--metric-value", "queue=1000"];
    let mut args = values.to_vec();
    args.extend(["--current-replicas", "20"]);
    let v = run("modifiers.yaml", &args);
    let at_max = (v["diagnostics"].as_array().unwrap().iter())
        .find(|d| d["code"] == "AtMaxReplicas")
        .unwrap();
    assert_eq!(
        at_max["fix"],
        "raise advanced.scalingModifiers.target from 50 to 80 → 25 replicas; or, if the load \
         needs them, raise spec.maxReplicaCount to 40 → 40 replicas"
    );
    // The fix applied to the ScaledObject: 2000 over 80 is 25, and max no longer pins it.
    let dir = crate::support::Scratch::new("keda-modifiers-fix");
    let fixed = dir.0.join("modifiers.yaml");
    let text = std::fs::read_to_string(root().join("fixtures/keda/modifiers.yaml")).unwrap();
    std::fs::write(&fixed, text.replace("target: \"50\"", "target: \"80\"")).unwrap();
    let mut all = vec!["--hpa", fixed.to_str().unwrap(), "--now", NOW];
    all.extend(&args);
    let checked = json_output(&all);
    assert_eq!(checked["desiredReplicas"], 25);
    assert!(!codes(&checked).contains(&"AtMaxReplicas".to_string()));
    // Within max there is nothing to fix.
    let mut args = values.to_vec();
    args.extend(["--current-replicas", "8"]);
    let text = run("modifiers.yaml", &args)["diagnostics"].to_string();
    assert!(!text.contains("scalingModifiers.target"), "{text}");
}

#[test]
fn hpa_active_false_in_the_status_infers_the_failing_trigger_and_comes_first() {
    // HPAActive=False FailedGetExternalMetric, Active=False, no fallback: only a failing trigger
    // reproduces both when run forward; KEDA does nothing and the HPA keeps 3.
    let v = run("status-hpa-failing.yaml", &["--current-replicas", "3"]);
    assert_eq!(v["desiredReplicas"], 3);
    assert_eq!(v["diagnostics"][0]["code"], "StatusKedaHpaFailing");
    assert!(!codes(&v).contains(&"StatusKedaConflict".to_string()));
    // The same status without HPAActive: nothing says the trigger failed; its value is 0 or its
    // activation threshold, KEDA is not active, and past the cooldown it scales to 0.
    let text =
        std::fs::read_to_string(root().join("fixtures/keda/status-hpa-failing.yaml")).unwrap();
    let without = text.replace("type: HPAActive", "type: SomethingElse");
    let o = Test::new()
        .args(["--hpa", "-", "--current-replicas", "3", "--now", NOW])
        .args(["-o", "json"])
        .stdin(without)
        .run();
    let w: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(w["desiredReplicas"], 0, "{}", stderr(&o));
}

#[test]
fn without_a_value_and_without_a_status_that_bounds_it_the_value_is_still_required() {
    let o = hpacalc(&[
        "--hpa",
        "fixtures/keda/kafka-lag.yaml",
        "--now",
        NOW,
        "--current-replicas",
        "4",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("--metric-value"), "{}", stderr(&o));
    assert!(stdout(&o).is_empty());
}

/// docs/keda.md's examples of the status and the checked fix are the real output.
#[test]
fn the_keda_status_examples_in_the_docs_are_the_real_output() {
    let doc = std::fs::read_to_string(root().join("docs/keda.md")).unwrap();
    let start = doc.find("**KEDA's status is evidence**").unwrap();
    let end = doc.find("Not modelled:").unwrap();
    let mut ran = 0;
    for block in doc[start..end].split("```console\n").skip(1) {
        let block = block.split("```").next().unwrap();
        let mut lines = block.lines();
        let command = lines.next().unwrap().strip_prefix("$ hpacalc ").unwrap();
        let expected: Vec<&str> = lines.collect();
        let stdout = match command.split_once(" | jq -r ") {
            // The jq filter picks the AtMaxReplicas fix: read it from the JSON.
            Some((command, _)) => {
                let args: Vec<&str> = command.split_whitespace().collect();
                let v: serde_json::Value = serde_json::from_str(&stdout(&hpacalc(&args))).unwrap();
                (v["diagnostics"].as_array().unwrap().iter())
                    .filter(|d| d["code"] == "AtMaxReplicas")
                    .map(|d| d["fix"].as_str().unwrap().to_string())
                    .collect::<Vec<_>>()
                    .join("\n")
            }
            None => {
                let out = Test::new().args(command.split_whitespace()).run();
                String::from_utf8(out.stdout).unwrap()
            }
        };
        let chunk = expected.join("\n");
        assert!(
            stdout.contains(&chunk),
            "docs/keda.md's output of `hpacalc {command}` is not the real output:\n{chunk}\n--- \
             real ---\n{stdout}"
        );
        ran += 1;
    }
    assert_eq!(ran, 3);
}

/// Without --current-replicas, --target or pods, a ScaledObject's status that says where KEDA
/// holds the target gives the count (`calc::keda::status::start`, the code `simulate` starts
/// from); one that leaves it to the HPA gives an assumed count, said, with the answers at the
/// other counts; no status asks for the count.
#[test]
fn the_status_gives_the_current_count_where_it_determines_it() {
    // paused-replicas 5: KEDA holds the target at 5.
    let v = run("status-paused.yaml", &["--metric-value", "s0=90"]);
    assert_eq!(v["currentReplicas"], 5);
    assert_eq!(v["currentReplicasSource"], "status");
    assert_eq!(v["desiredReplicas"], 5, "{}", v["decision"]);
    // ScalerCooldown: the target is still up, at the HPA's minimum, and KEDA scales it in.
    let v = run("status-cooldown.yaml", &[]);
    assert_eq!(v["currentReplicas"], 1);
    assert_eq!(v["desiredReplicas"], 0, "{}", v["decision"]);
    assert!(
        (v["assumptions"].as_array().unwrap().iter()).any(|a| a
            .as_str()
            .unwrap()
            .contains("Active=False (ScalerCooldown)")),
        "{}",
        v["assumptions"]
    );
    // Active=False past the cooldown: the count is assumed (minReplicaCount 1), said in the
    // decision, and every count gives the same answer here.
    let v = run("cron-last-active.yaml", &[]);
    assert_eq!(v["currentReplicasSource"], "default");
    assert_eq!(v["currentReplicas"], 1);
    let summary = v["decision"]["summary"].as_str().unwrap();
    assert!(
        summary.contains("at the assumed current count 1")
            && summary.contains("every count from 0 to 10 gives the same answer"),
        "{summary}"
    );
    // No status: nothing says where the target is, and the count is asked for.
    Test::new()
        .args(["--hpa", "fixtures/keda/kafka-lag.yaml", "--now", NOW])
        .args(["--metric-value", "s0=5000"])
        .status(2)
        .stdout("")
        .stderr_contains("pass --current-replicas N")
        .run();
}
