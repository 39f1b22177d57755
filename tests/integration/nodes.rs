//! The Cluster Autoscaler's view through the CLI: node flags, the Nodes section, its errors.

use crate::support::{NOW, Test, check_malformed, hpacalc, json_output, stderr, stdout};

fn nodes_json(extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pods",
        "fixtures/samples/web-cpu.csv",
        "--now",
        NOW,
    ];
    args.extend(extra);
    json_output(&args)["nodes"].clone()
}

#[test]
fn without_node_information_nodes_is_null() {
    assert!(nodes_json(&[]).is_null());
}

#[test]
fn the_scale_up_needs_new_nodes_for_the_pending_pods() {
    // 1900m free per node after a 100m DaemonSet: 3 pods of 500m. 6 pods on 2 nodes; 4 more
    // pods fit nowhere, so ceil(4 / 3) = 2 nodes.
    let n = nodes_json(&[
        "--node-allocatable",
        "cpu=2,memory=8Gi",
        "--daemonset-requests",
        "cpu=100m,memory=128Mi",
    ]);
    assert_eq!(n["podsPerNode"], 3);
    assert_eq!(n["limitingResource"], "cpu");
    assert_eq!(n["existing"], 2);
    assert_eq!(n["pendingPods"], 4);
    assert_eq!(n["toAdd"], 2);
    assert_eq!(n["needed"], 4);
    assert_eq!(n["unschedulablePods"], 0);
    assert!(n["limitedBy"].is_null());
    assert_eq!(n["podRequest"]["cpu"], "500m");
}

#[test]
fn existing_free_room_is_used_before_new_nodes() {
    // 4 nodes of 3 pods hold 12: the 6 current pods and the 4 new ones fit.
    let n = nodes_json(&[
        "--node-allocatable",
        "cpu=2",
        "--daemonset-requests",
        "cpu=100m",
        "--existing-nodes",
        "4",
    ]);
    assert_eq!(
        (n["pendingPods"].clone(), n["toAdd"].clone()),
        (0.into(), 0.into())
    );
}

#[test]
fn node_limits_leave_pods_unschedulable() {
    let n = nodes_json(&[
        "--node-allocatable",
        "cpu=2",
        "--daemonset-requests",
        "cpu=100m",
        "--node-group-max",
        "3",
    ]);
    assert_eq!(
        (n["toAdd"].clone(), n["unschedulablePods"].clone()),
        (1.into(), 1.into())
    );
    assert_eq!(n["limitedBy"], "nodeGroupMax");
    let n = nodes_json(&["--node-allocatable", "cpu=2", "--max-nodes-total", "2"]);
    assert_eq!(n["limitedBy"], "maxNodesTotal");
}

#[test]
fn a_pod_request_flag_overrides_the_samples_and_can_be_too_large() {
    let n = nodes_json(&["--node-allocatable", "cpu=2", "--pod-request", "cpu=3"]);
    assert_eq!(n["podsPerNode"], 0);
    assert_eq!(n["limitedBy"], "podTooLarge");
    assert_eq!(n["podRequestSource"], "--pod-request");
}

#[test]
fn the_table_has_a_nodes_section() {
    let o = hpacalc(&[
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pods",
        "fixtures/samples/web-cpu.csv",
        "--now",
        NOW,
        "--node-allocatable",
        "cpu=2,memory=8Gi",
        "--daemonset-requests",
        "cpu=100m,memory=128Mi",
        "--node-group-max",
        "3",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    snapbox::assert_data_eq!(stdout(&o), snapbox::file!["snapshots/web-cpu-nodes.txt"]);
}

#[test]
fn bad_node_flags_are_input_errors() {
    let cases: &[(&[&str], &str)] = &[
        (&["--node-allocatable", "memory=8Gi"], "without cpu"),
        (&["--node-allocatable", "cpu=two"], "--node-allocatable"),
        (
            &["--node-allocatable", "cpu=2", "--existing-nodes=-1"],
            "--existing-nodes",
        ),
        (
            &["--node-allocatable", "cpu=2", "--node-group-max=-3"],
            "--node-group-max",
        ),
        (&["--existing-nodes", "3"], "--node-allocatable"),
        (
            &[
                "--node-allocatable",
                "cpu=2",
                "--scale-down-utilization-threshold",
                "1.5",
            ],
            "threshold",
        ),
        (
            &["--node-allocatable", "cpu=2", "--daemonset-requests", "cpu"],
            "--daemonset-requests",
        ),
    ];
    for (extra, fragment) in cases {
        Test::new()
            .args(["--hpa", "fixtures/hpa/web-cpu.yaml"])
            .args(["--pods", "fixtures/samples/web-cpu.csv"])
            .args(*extra)
            .fails(1)
            .stderr_contains(*fragment)
            .run();
    }
}

/// The kubectl form: real nodes and what the cluster's pods already take on them.
fn cluster_json(extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "--hpa",
        "fixtures/kubectl/hpa.yaml",
        "--pods",
        "fixtures/kubectl/pods.json",
        "--metrics",
        "fixtures/kubectl/metrics.json",
        "--custom-metrics",
        "fixtures/kubectl/custom-metrics.json",
        "--nodes",
        "fixtures/cluster/nodes.json",
        "--all-pods",
        "fixtures/cluster/pods-all.json",
    ];
    args.extend(extra);
    json_output(&args)["nodes"].clone()
}

fn workload_pods(n: &serde_json::Value) -> Vec<i64> {
    n["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .map(|n| n["workloadPods"].as_i64().unwrap_or(-1))
        .collect()
}

#[test]
fn real_nodes_keep_their_pods_and_daemonsets() {
    let n = cluster_json(&[]);
    let names: Vec<&str> = n["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "ip-10-0-3-17",
            "ip-10-0-4-88",
            "ip-10-0-5-203",
            "ip-10-0-6-44"
        ]
    );
    assert_eq!(workload_pods(&n), [2, 1, 2, 0]);
    // 1930m allocatable, 125m of DaemonSets (found on the first Ready node): 3 pods of 600m.
    assert_eq!(
        (n["podsPerNode"].clone(), n["existing"].clone()),
        (3.into(), 4.into())
    );
    // The Succeeded Job pod on ip-10-0-4-88 holds nothing: 125m + 600m of 1930m.
    let u = n["nodes"][1]["utilization"].as_f64().unwrap();
    assert!((u - 725.0 / 1930.0).abs() < 1e-9, "{u}");
}

#[test]
fn new_pods_fill_real_free_room_but_not_a_cordoned_node() {
    let n = cluster_json(&["--current-replicas", "9"]);
    assert_eq!(workload_pods(&n), [3, 3, 3, 0]);
    assert_eq!(
        (n["pendingPods"].clone(), n["toAdd"].clone()),
        (0.into(), 0.into())
    );
    let n = cluster_json(&["--current-replicas", "12"]);
    assert_eq!(
        (n["pendingPods"].clone(), n["toAdd"].clone()),
        (3.into(), 1.into())
    );
}

#[test]
fn bad_cluster_captures_are_input_errors() {
    let base = [
        "--hpa",
        "fixtures/kubectl/hpa.yaml",
        "--pods",
        "fixtures/kubectl/pods.json",
    ];
    // The bad node lists of the corpus (fixtures/malformed/CASES.tsv).
    check_malformed(&["nodes-no-allocatable.json", "kubectl-truncated.json"]);
    let cases: &[(&[&str], i32, &str)] = &[
        (
            &["--nodes", "fixtures/kubectl/pods.json"],
            1,
            "fixtures/kubectl/pods.json",
        ),
        (
            &[
                "--nodes",
                "fixtures/cluster/nodes.json",
                "--existing-nodes",
                "2",
            ],
            1,
            "--existing-nodes",
        ),
        (
            &["--all-pods", "fixtures/cluster/pods-all.json"],
            2,
            "--nodes",
        ),
    ];
    for (extra, code, fragment) in cases {
        Test::new()
            .args(base)
            .args(*extra)
            .fails(*code)
            .stderr_contains(*fragment)
            .run();
    }
}
