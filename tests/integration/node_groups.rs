//! Several Cluster Autoscaler node groups through the CLI: `--node-groups`, `--expander`, the
//! plan in `nodes.nodeGroups` (checked against the JSON Schema) and in the table, and the errors.

use crate::support::{NOW, Test, hpacalc, json_output, stderr, stdout};

const GROUPS: &str = "fixtures/nodes/node-groups.yaml";

/// web-cpu goes from 6 to 10 pods: 4 Pending pods of 500m / 1Gi.
fn args(extra: &[&str]) -> Vec<String> {
    let mut args: Vec<&str> = vec![
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pods",
        "fixtures/samples/web-cpu.csv",
        "--now",
        NOW,
        "--node-groups",
        GROUPS,
        "--pod-request",
        "cpu=500m,memory=1Gi",
        "--daemonset-requests",
        "cpu=100m,memory=128Mi",
    ];
    args.extend(extra);
    args.into_iter().map(str::to_string).collect()
}

fn plan(extra: &[&str]) -> serde_json::Value {
    let args = args(extra);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    json_output(&refs)["nodes"]["nodeGroups"].clone()
}

#[test]
fn least_waste_ties_two_groups_and_the_plan_lists_both() {
    let p = plan(&[]);
    assert_eq!(p["expander"], serde_json::json!(["least-waste"]));
    assert_eq!(p["pendingPods"], 4);
    let first = &p["loops"][0];
    assert_eq!(first["tied"], serde_json::json!(["m5-large", "m5-xlarge"]));
    assert!(first["chosen"].is_null());
    assert_eq!(first["options"][0]["scores"]["least-waste"], 1.25);
    assert_eq!(
        first["skipped"][0]["reason"],
        "untolerated taint nvidia.com/gpu=true:NoSchedule"
    );
    assert_eq!(
        (p["outcome"].as_str(), p["nodesAdded"].as_i64()),
        (Some("tie"), Some(0))
    );
}

#[test]
fn a_chain_breaks_the_tie_and_the_group_grows() {
    let p = plan(&["--expander", "least-waste,price"]);
    let first = &p["loops"][0];
    assert_eq!(first["chosen"], "m5-large");
    assert_eq!(first["steps"][1]["kept"], serde_json::json!(["m5-large"]));
    assert_eq!(
        (first["nodesAdded"].as_i64(), first["podsPlaced"].as_i64()),
        (Some(2), Some(4))
    );
    assert_eq!(p["groups"][0]["newSize"], 4);
    assert_eq!(p["outcome"], "allScheduled");
    // Two m5.large at $0.096/h.
    assert!((p["addedCostPerHour"].as_f64().unwrap() - 0.192).abs() < 1e-9);
}

#[test]
fn the_priority_configmap_picks_the_highest_matching_level() {
    let p = plan(&["--expander", "priority,least-waste"]);
    assert_eq!(p["loops"][0]["chosen"], "c5-2xlarge");
    assert_eq!(p["loops"][0]["options"][2]["scores"]["priority"], 50.0);
    let notes = p["notes"].to_string();
    assert!(notes.contains("g4dn-xlarge not found"), "{notes}");
}

#[test]
fn the_table_shows_the_loops() {
    let args = args(&["--expander", "least-waste,price"]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = hpacalc(&refs);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    snapbox::assert_data_eq!(
        stdout(&o),
        snapbox::file!["snapshots/web-cpu-node-groups.txt"]
    );
}

#[test]
fn bad_chains_and_files_are_input_errors() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--expander", "price,price"],
            "Expander price was specified multiple times",
        ),
        (
            &["--expander", "random,price"],
            "Expander price came after an expander random",
        ),
        (&["--expander", "grpc"], "Expander grpc not supported"),
    ];
    for (extra, message) in cases {
        let args = args(extra);
        Test::new()
            .args(args.iter().map(String::as_str))
            .fails(1)
            .stderr_contains(*message)
            .stdout("")
            .run();
    }
}

// ---- simulate --node-groups: the same plan, one loop per Cluster Autoscaler scan ----

/// web-cpu's load over the four groups: 2 pods Pending at 0:15, 2 more at 0:30.
fn simulate_events(extra: &[&str]) -> Vec<(i64, String)> {
    let v = Test::new()
        .args(["simulate", "-o", "json"])
        .args([
            "--hpa",
            "fixtures/hpa/web-cpu.yaml",
            "--load",
            "fixtures/load/web-cpu.csv",
            "--node-groups",
            GROUPS,
            "--pod-request",
            "cpu=500m,memory=1Gi",
            "--daemonset-requests",
            "cpu=100m,memory=128Mi",
        ])
        .args(extra)
        .schema("simulation")
        .json();
    v["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["source"] == "clusterAutoscaler")
        .map(|e| {
            (
                e["time"].as_i64().unwrap(),
                e["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn simulate_scales_one_group_per_loop_and_the_rest_wait_for_the_next() {
    let events = simulate_events(&[]);
    // Loop 0:20: 2 pods; least-waste picks m5-large (3 pods a node). Loop 0:30: 2 more, of which
    // the booting node still holds 1: one more m5-large for the other.
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[0].0, 20);
    assert!(
        events[0].1.starts_with(
            "scales node group m5-large (least-waste keeps m5-large): requests 1 node(s) (node-3,"
        ),
        "{}",
        events[0].1
    );
    assert!(events[0].1.contains("for 2 unschedulable pod(s)"));
    assert_eq!(events[1].0, 30);
    assert!(
        events[1].1.contains("node group m5-large")
            && events[1].1.contains("for 1 unschedulable pod(s)")
    );
}

#[test]
fn simulate_follows_the_expander_chain_as_the_single_sync_does() {
    let events = simulate_events(&["--expander", "priority,least-waste,price"]);
    assert_eq!(events.len(), 1, "{events:?}");
    assert!(
        events[0].1.starts_with(
            "scales node group c5-2xlarge (priority keeps c5-2xlarge): requests 1 node(s)"
        ),
        "{}",
        events[0].1
    );
}

#[test]
fn simulate_lists_every_random_tie_and_adds_no_node() {
    let events = simulate_events(&["--expander", "random"]);
    assert!(!events.is_empty());
    assert!(
        events
            .iter()
            .all(|(_, m)| !m.starts_with("scales node group")),
        "{events:?}"
    );
    assert!(
        events[0].1.contains("tie between m5-large, m5-xlarge, c5-2xlarge; every tied group is listed, none is picked"),
        "{}",
        events[0].1
    );
}

#[test]
fn simulate_refuses_node_groups_beside_node_allocatable() {
    let out = Test::new()
        .args([
            "simulate",
            "--hpa",
            "fixtures/hpa/web-cpu.yaml",
            "--load",
            "fixtures/load/web-cpu.csv",
            "--node-groups",
            GROUPS,
            "--node-allocatable",
            "cpu=2",
        ])
        .fails(2)
        .run();
    assert!(
        stderr(&out).contains("--node-allocatable"),
        "{}",
        stderr(&out)
    );
}
