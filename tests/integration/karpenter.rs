//! Karpenter through the CLI: `--nodepool`, `--nodeclass`, `--instance-types`, the NodeClaims in
//! `nodes.karpenter` (checked against the JSON Schema) and in the table, and the errors.

use crate::support::{NOW, Test, hpacalc, json_output, stderr, stdout};

const CATALOG: &str = "fixtures/karpenter/instance-types.json";

/// web-cpu goes from 6 to 10 pods: 4 Pending pods.
fn args<'a>(request: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pods",
        "fixtures/samples/web-cpu.csv",
        "--now",
        NOW,
        "--instance-types",
        CATALOG,
        "--pod-request",
        request,
        "--daemonset-requests",
        "cpu=100m,memory=128Mi",
    ];
    args.extend(extra);
    args
}

fn karpenter(request: &str, extra: &[&str]) -> serde_json::Value {
    json_output(&args(request, extra))["nodes"]["karpenter"].clone()
}

#[test]
fn the_pending_pods_pack_into_one_claim_of_the_cheapest_surviving_type() {
    let k = karpenter(
        "cpu=500m,memory=1Gi",
        &["--nodepool", "fixtures/karpenter/nodepool.yaml"],
    );
    assert_eq!(k["pendingPods"], 4);
    let claim = &k["nodeClaims"][0];
    assert_eq!(claim["nodePool"], "general");
    assert_eq!(claim["pods"], 4);
    assert_eq!(claim["launched"]["instanceType"], "m5.xlarge");
    assert_eq!(claim["launched"]["capacityType"], "on-demand");
    assert_eq!(claim["instanceTypes"][0], "m5.xlarge");
    // 4 × 500m + one DaemonSet pod's 100m.
    assert_eq!(claim["requests"]["cpu"], "2100m");
    assert_eq!(k["costPerHour"], 0.192);
    assert_eq!(k["unschedulable"], serde_json::json!([]));
}

#[test]
fn the_heavier_nodepool_goes_first_and_spot_launches_when_allowed() {
    let k = karpenter(
        "cpu=1500m,memory=1Gi",
        &[
            "--nodepool",
            "fixtures/karpenter/nodepools-weighted.yaml",
            "--nodeclass",
            "fixtures/karpenter/nodeclass.yaml",
        ],
    );
    assert_eq!(k["nodePools"], serde_json::json!(["spot-c5", "general"]));
    let claim = &k["nodeClaims"][0];
    assert_eq!(claim["nodePool"], "spot-c5");
    assert_eq!(claim["launched"]["capacityType"], "spot");
    // The limit of 8 cpu leaves c5.2xlarge the largest type.
    assert_eq!(claim["launched"]["instanceType"], "c5.2xlarge");
}

#[test]
fn an_untolerated_taint_is_the_reason_pods_stay_pending() {
    let k = karpenter(
        "cpu=500m,memory=1Gi",
        &["--nodepool", "fixtures/karpenter/tainted.yaml"],
    );
    assert_eq!(k["nodeClaims"], serde_json::json!([]));
    assert_eq!(k["unschedulable"][0]["pods"], 4);
    assert_eq!(
        k["unschedulable"][0]["reason"],
        "did not tolerate taint (taint=nvidia.com/gpu=true:NoSchedule)"
    );
}

#[test]
fn the_report_matches_the_schema() {
    Test::new()
        .args(args(
            "cpu=500m,memory=1Gi",
            &[
                "--nodepool",
                "fixtures/karpenter/nodepool.yaml",
                "-o",
                "json",
            ],
        ))
        .schema("report")
        .run();
}

#[test]
fn the_table_shows_the_claims_and_the_cause() {
    let o = hpacalc(&args(
        "cpu=1500m,memory=1Gi",
        &[
            "--nodepool",
            "fixtures/karpenter/nodepools-weighted.yaml",
            "--nodepool",
            "fixtures/karpenter/tainted.yaml",
            "--nodeclass",
            "fixtures/karpenter/nodeclass.yaml",
        ],
    ));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    snapbox::assert_data_eq!(
        stdout(&o),
        snapbox::file!["snapshots/web-cpu-karpenter.txt"]
    );
}

#[test]
fn bad_nodepools_and_catalogs_are_input_errors_naming_file_and_field() {
    let dir = crate::support::Scratch::new("karpenter-errors");
    let write = |name: &str, text: &str| {
        let path = dir.0.join(name);
        std::fs::write(&path, text).expect("scratch file");
        path.display().to_string()
    };
    let bad_op = write(
        "bad-op.yaml",
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\nspec:\n  template:\n    spec:\n      requirements:\n        - {key: k, operator: Within, values: [x]}\n",
    );
    let bad_yaml = write("bad.yaml", "kind: NodePool\n  metadata: [\n");
    let bad_policy = write(
        "bad-policy.yaml",
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\nspec:\n  disruption:\n    consolidationPolicy: Balanced\n",
    );
    let bad_budget = write(
        "bad-budget.yaml",
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\nspec:\n  disruption:\n    consolidateAfter: 30s\n    budgets:\n      - nodes: 120%\n",
    );
    let bad_catalog = write(
        "types.json",
        "[{\"name\": \"x\", \"resources\": {\"cpu\": \"2\"}}]",
    );
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["--nodepool", bad_op.as_str()],
            format!(
                "{bad_op}: [0].spec.template.spec.requirements[0].operator: found Within, expected one of In"
            ),
        ),
        (
            vec!["--nodepool", bad_yaml.as_str()],
            format!("{bad_yaml}:2"),
        ),
        (
            vec!["--nodepool", bad_policy.as_str()],
            format!(
                "{bad_policy}: [0].spec.disruption.consolidationPolicy: found \"Balanced\", expected WhenEmpty or WhenEmptyOrUnderutilized"
            ),
        ),
        (
            vec!["--nodepool", bad_budget.as_str()],
            format!(
                "{bad_budget}: [0].spec.disruption.budgets[0].nodes: found \"120%\", expected a node count (3) or a percentage (10%)"
            ),
        ),
        (
            vec![
                "--nodepool",
                "fixtures/karpenter/nodepool.yaml",
                "--instance-types",
                bad_catalog.as_str(),
            ],
            format!("{bad_catalog}: [0].resources: found no cpu or memory"),
        ),
    ];
    for (extra, message) in cases {
        let mut a = vec![
            "--hpa",
            "fixtures/hpa/web-cpu.yaml",
            "--pods",
            "fixtures/samples/web-cpu.csv",
            "--now",
            NOW,
            "--pod-request",
            "cpu=500m",
        ];
        if !extra.contains(&"--instance-types") {
            a.extend(["--instance-types", CATALOG]);
        }
        a.extend(extra);
        Test::new()
            .args(a)
            .fails(1)
            .stderr_contains(message)
            .stdout("")
            .run();
    }
}

/// Issue 39's worked example, from the AWS catalog built into the binary: 40 new pods of
/// 500m/1Gi (40 → 80) with 3 DaemonSets on an on-demand m5 NodePool pack into one NodeClaim, and
/// the cheapest surviving type is m5.8xlarge at $1.536/h; 3 × m5.2xlarge would be $1.152/h.
#[test]
fn the_worked_example_packs_into_one_m5_8xlarge_from_the_built_in_catalog() {
    let dir = "fixtures/karpenter/worked";
    let (hpa, pods, nodepool) = (
        format!("{dir}/hpa.yaml"),
        format!("{dir}/pods.csv"),
        format!("{dir}/nodepool-m5.yaml"),
    );
    let args = [
        "--hpa",
        &hpa,
        "--pods",
        &pods,
        "--nodepool",
        &nodepool,
        "--daemonset-requests",
        "cpu=300m,memory=384Mi",
        "--now",
        NOW,
    ];
    let report = json_output(&args);
    assert_eq!(report["desiredReplicas"], 80);
    let k = &report["nodes"]["karpenter"];
    assert_eq!(k["pendingPods"], 40);
    assert_eq!(k["nodeClaims"].as_array().map(Vec::len), Some(1));
    let claim = &k["nodeClaims"][0];
    assert_eq!(claim["launched"]["instanceType"], "m5.8xlarge");
    assert_eq!(claim["launched"]["capacityType"], "on-demand");
    assert_eq!(claim["pods"], 40);
    assert_eq!(claim["pricePerHour"], 1.536);
    assert_eq!(k["costPerHour"], 1.536);
    assert!(
        k["catalog"]
            .as_str()
            .is_some_and(|s| s.contains("built-in AWS catalog")),
        "{k}"
    );
    let table = stdout(&hpacalc(&args));
    assert!(
        table.contains("3 × m5.2xlarge would cost $0.384/h less"),
        "{table}"
    );
}

/// The worked example's second half: the HPA drops to 10 pods (40 pods at 62m of a 500m
/// request, a 50 % target), the m5.8xlarge of the 40-pod answer keeps 10 pods, and Karpenter's
/// single-node consolidation replaces it with one m5.2xlarge.
#[test]
fn the_worked_example_scaled_down_to_10_pods_consolidates_to_one_m5_2xlarge() {
    let dir = "fixtures/karpenter/worked";
    let (hpa, pods, nodepool) = (
        format!("{dir}/hpa.yaml"),
        format!("{dir}/pods-low.csv"),
        format!("{dir}/nodepool-m5.yaml"),
    );
    let args = [
        "--hpa",
        &hpa,
        "--pods",
        &pods,
        "--nodepool",
        &nodepool,
        "--daemonset-requests",
        "cpu=300m,memory=384Mi",
        "--now",
        NOW,
    ];
    let mut json_args = args.to_vec();
    json_args.extend(["-o", "json"]);
    let report = Test::new().args(&json_args).schema("report").json();
    assert_eq!(report["desiredReplicas"], 10);
    let k = &report["nodes"]["karpenter"];
    let existing = &k["existingNodeClaims"];
    assert_eq!(existing.as_array().map(Vec::len), Some(1), "{k}");
    assert_eq!(existing[0]["instanceType"], "m5.8xlarge");
    assert_eq!(existing[0]["pods"], 10);
    let c = &k["consolidation"];
    assert_eq!(c.as_array().map(Vec::len), Some(1), "{k}");
    assert_eq!(c[0]["method"], "single");
    assert_eq!(c[0]["decision"], "replace");
    assert_eq!(c[0]["nodesRemoved"][0], "m5-1");
    assert_eq!(c[0]["replacement"]["instanceType"], "m5.2xlarge");
    assert_eq!(c[0]["priceBefore"], 1.536);
    assert_eq!(c[0]["priceAfter"], 0.384);
    assert_eq!(c[0]["podsMoved"], 10);
    assert_eq!(k["costPerHourAfterConsolidation"], 0.384);
    let o = hpacalc(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    snapbox::assert_data_eq!(
        stdout(&o),
        snapbox::file!["snapshots/worked-karpenter-scale-down.txt"]
    );
}

/// With the cluster's own nodes given, a scale-down does not consolidate them (which pods the
/// ReplicaSet removes from real nodes is not modelled), and the answer says so.
#[test]
fn a_scale_down_over_the_clusters_own_nodes_says_consolidation_is_not_modelled() {
    let report = json_output(&[
        "--hpa",
        "fixtures/karpenter/worked/hpa.yaml",
        "--pods",
        "fixtures/karpenter/worked/pods-low.csv",
        "--nodepool",
        "fixtures/karpenter/worked/nodepool-m5.yaml",
        "--nodes",
        "fixtures/cluster/nodes.json",
        "--all-pods",
        "fixtures/cluster/pods-all.json",
        "--now",
        NOW,
    ]);
    assert_eq!(report["desiredReplicas"], 10);
    let k = &report["nodes"]["karpenter"];
    assert!(k.get("consolidation").is_none(), "{k}");
    assert_eq!(
        k["notConsolidated"][0]["node"], "the cluster's nodes",
        "{k}"
    );
    assert!(
        (k["notConsolidated"][0]["reason"].as_str().unwrap_or(""))
            .starts_with("consolidation over the cluster's own nodes is not modelled"),
        "{k}"
    );
}

/// `consolidateAfter: Never` turns consolidation off: the scale-down leaves the m5.8xlarge and
/// says why, with Karpenter's own event message.
#[test]
fn consolidate_after_never_keeps_the_node_and_says_why() {
    let dir = crate::support::Scratch::new("karpenter-never");
    let np = std::fs::read_to_string("fixtures/karpenter/worked/nodepool-m5.yaml")
        .expect("fixture")
        + "  disruption:\n    consolidateAfter: Never\n";
    let path = dir.0.join("np.yaml");
    std::fs::write(&path, np).expect("scratch file");
    let report = json_output(&[
        "--hpa",
        "fixtures/karpenter/worked/hpa.yaml",
        "--pods",
        "fixtures/karpenter/worked/pods-low.csv",
        "--nodepool",
        path.to_str().expect("utf-8 path"),
        "--daemonset-requests",
        "cpu=300m,memory=384Mi",
        "--now",
        NOW,
    ]);
    let k = &report["nodes"]["karpenter"];
    assert!(k.get("consolidation").is_none(), "{k}");
    assert_eq!(
        k["notConsolidated"][0]["reason"],
        "NodePool \"m5\" has consolidation disabled"
    );
    assert_eq!(k["costPerHourAfterConsolidation"], 1.536);
}

// ---- simulate --nodepool: Karpenter over time ----

/// The worked example over time: 10 pods of 500m/1Gi (3 DaemonSets' 300m/384Mi on each node),
/// then at 1:00 a load for 50; `hpa-fast.yaml` lets one sync add the 40 new pods.
const SIM: [&str; 18] = [
    "simulate",
    "--hpa",
    "fixtures/karpenter/worked/hpa-fast.yaml",
    "--load",
    "fixtures/karpenter/worked/load.csv",
    "--replicas",
    "10",
    "--pod-request",
    "cpu=500m,memory=1Gi",
    "--daemonset-requests",
    "cpu=300m,memory=384Mi",
    "--nodepool",
    "fixtures/karpenter/worked/nodepool-m5.yaml",
    "--duration",
    "6m",
    "--node-startup",
    "3m",
    "--every-sync",
];

fn k_settings(v: &serde_json::Value) -> &serde_json::Value {
    &v["settings"]["nodes"]["karpenter"]
}

fn sim_json(extra: &[&str]) -> serde_json::Value {
    Test::new()
        .args(&SIM[..SIM.len() - 1])
        .args(extra)
        .args(["-o", "json"])
        .schema("simulation")
        .json()
}

/// The start pods' m5.2xlarge takes 5 of the 40 new pods; the other 35 are one batch, from the
/// sync at 1:00 to a second later, and one m5.8xlarge at $1.536/h takes them all; it is Ready
/// 3 minutes after its launch and the scheduler binds them there.
#[test]
fn simulate_nodepool_batches_the_pending_pods_and_launches_one_m5_8xlarge() {
    let v = sim_json(&[]);
    let claims = v["nodeClaims"].as_array().expect("nodeClaims");
    assert_eq!(claims.len(), 2, "{claims:?}");
    assert_eq!(claims[0]["instanceType"], "m5.2xlarge");
    assert!(claims[0]["launchedAt"].is_null());
    let launched = &claims[1];
    assert_eq!(launched["instanceType"], "m5.8xlarge");
    assert_eq!(launched["capacityType"], "on-demand");
    assert_eq!(launched["pricePerHour"], 1.536);
    assert_eq!(
        (
            launched["launchedAt"].as_i64(),
            launched["readyAt"].as_i64()
        ),
        (Some(61), Some(241))
    );
    let events: Vec<(i64, &str, &str)> = (v["events"].as_array().unwrap().iter())
        .map(|e| {
            (
                e["time"].as_i64().unwrap(),
                e["source"].as_str().unwrap(),
                e["message"].as_str().unwrap(),
            )
        })
        .collect();
    let launch = events
        .iter()
        .find(|e| e.1 == "karpenter")
        .expect("a launch");
    assert_eq!(launch.0, 61);
    assert!(
        launch.2.starts_with(
            "batch of 35 Pending pod(s) from 1:00 to 1:01: launches NodeClaim m5-2 (m5.8xlarge, \
             on-demand, us-east-1a, $1.536/h) for 35 pod(s) (Ready at 4:01)"
        ),
        "{launch:?}"
    );
    assert!(
        events.contains(&(241, "kubelet", "m5-2 Ready")),
        "{events:?}"
    );
    assert!(
        events.contains(&(241, "scheduler", "35 waiting pod(s) bound to m5-2")),
        "{events:?}"
    );
    // Once m5-2 is Ready (4:01) it has room for m5-1's 15 pods: the disruption controller's
    // poll at 4:10 deletes m5-1 (single-node consolidation, a delete saves its $0.384/h).
    assert!(
        events.contains(&(
            250,
            "karpenter",
            "consolidation (single): deletes m5-1 (m5.2xlarge, $0.384/h), 15 pod(s) move"
        )),
        "{events:?}"
    );
    assert_eq!(claims[0]["deletedAt"].as_i64(), Some(250));
    assert!(launched["deletedAt"].is_null());
    // 0.384 $/h for the 250 s until the deletion and 1.536 $/h for the 299 s from the launch:
    // $0.154.
    assert_eq!(v["summary"]["nodeCost"], 0.154);
    assert_eq!(k_settings(&v)["consolidation"], true);
    assert_eq!(k_settings(&v)["disruptionPollSeconds"], 10);
    let k = &v["settings"]["nodes"]["karpenter"];
    assert_eq!(
        (
            k["batchIdleSeconds"].as_i64(),
            k["batchMaxSeconds"].as_i64()
        ),
        (Some(1), Some(10))
    );
    assert_eq!(k["nodePools"], serde_json::json!(["m5"]));
}

/// Issue 39's worked example over time with the load dropping at 6:00 (`load-drop.csv`): the
/// HPA goes 10 → 50 → 10. m5-1 (the start pods' m5.2xlarge) is deleted at 4:10, as in the run
/// above. The HPA's scale-down stabilization (5 minutes) holds 50 until 10:45; the
/// ReplicaSet then deletes 40 of the 50 pods on m5-2, and at the next poll (10:50) the
/// m5.8xlarge's 10 pods and DaemonSets (5.3 cores) fit an m5.2xlarge (7,910m), a quarter of its
/// price, with no other node to take them: single-node consolidation replaces it. Multi-node
/// has a single candidate and emptiness none, so single-node is the method that finds it. The
/// replacement is launched first and m5-2 is deleted only once it is Ready (`waitOrTerminate`),
/// 3 minutes later; the 10 evicted pods are recreated and bound to it.
#[test]
fn simulate_nodepool_consolidates_the_m5_8xlarge_when_the_load_drops() {
    let mut args: Vec<&str> = SIM[..SIM.len() - 1].to_vec();
    args[4] = "fixtures/karpenter/worked/load-drop.csv";
    args[14] = "15m";
    let v = Test::new()
        .args(&args)
        .args(["-o", "json"])
        .schema("simulation")
        .json();
    let events: Vec<(i64, String)> = (v["events"].as_array().unwrap().iter())
        .filter(|e| e["source"] == "karpenter")
        .map(|e| {
            (
                e["time"].as_i64().unwrap(),
                e["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        events.contains(&(
            650,
            "consolidation (single): replaces m5-2 (m5.8xlarge, $1.536/h) with m5.2xlarge \
             ($0.384/h), 10 pod(s) move; NodeClaim m5-3 Ready at 13:50"
                .to_string()
        )),
        "{events:?}"
    );
    assert!(
        events.contains(&(
            830,
            "deletes m5-2 (10 pod(s) evicted and recreated)".to_string()
        )),
        "{events:?}"
    );
    let claims = v["nodeClaims"].as_array().unwrap();
    let row = |c: &serde_json::Value| {
        (
            c["name"].as_str().unwrap().to_string(),
            c["instanceType"].as_str().unwrap().to_string(),
            c["launchedAt"].as_i64(),
            c["readyAt"].as_i64(),
            c["deletedAt"].as_i64(),
        )
    };
    let rows: Vec<_> = claims.iter().map(row).collect();
    assert_eq!(
        rows,
        [
            ("m5-1".into(), "m5.2xlarge".into(), None, None, Some(250)),
            (
                "m5-2".into(),
                "m5.8xlarge".into(),
                Some(61),
                Some(241),
                Some(830)
            ),
            (
                "m5-3".into(),
                "m5.2xlarge".into(),
                Some(650),
                Some(830),
                None
            ),
        ]
    );
    // Every pod runs again at the end, on the replacement.
    let last = v["timeline"].as_array().unwrap().last().unwrap();
    assert_eq!(
        (last["readyReplicas"].as_i64(), last["nodes"].as_i64()),
        (Some(10), Some(1))
    );
    // m5-1 $0.384/h for 250 s, m5-2 $1.536/h from 61 s to 830 s, m5-3 $0.384/h from 650 s to
    // 900 s: 0.0267 + 0.3281 + 0.0267.
    assert_eq!(v["summary"]["nodeCost"], 0.381);
}

#[test]
fn simulate_nodepool_consolidation_table_matches_its_snapshot() {
    let mut args: Vec<&str> = SIM[..SIM.len() - 1].to_vec();
    args[4] = "fixtures/karpenter/worked/load-drop.csv";
    args[14] = "15m";
    let o = hpacalc(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    snapbox::assert_data_eq!(
        stdout(&o),
        snapbox::file!["snapshots/simulate/karpenter-consolidation.txt"]
    );
}

#[test]
fn simulate_nodepool_table_matches_its_snapshot() {
    let o = hpacalc(&SIM);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    snapbox::assert_data_eq!(
        stdout(&o),
        snapbox::file!["snapshots/simulate/karpenter-worked.txt"]
    );
}

/// The same run with the NodePool changed to the c5 family: c5.2xlarge for the start pods,
/// c5.9xlarge for the batch, and the cheaper run by three tenths of a cent.
#[test]
fn simulate_compare_of_two_nodepools_runs_the_same_hpa_on_each() {
    let v = Test::new()
        .args(&SIM[..SIM.len() - 1])
        .args([
            "--compare",
            "fixtures/karpenter/worked/nodepool-c5.yaml",
            "-o",
            "json",
        ])
        .schema("comparison")
        .json();
    let configs = v["configurations"].as_array().unwrap();
    assert_eq!(
        configs[1]["name"],
        "fixtures/karpenter/worked/nodepool-c5.yaml (NodePools)"
    );
    let types = |i: usize| -> Vec<String> {
        (configs[i]["simulation"]["nodeClaims"]
            .as_array()
            .unwrap()
            .iter())
        .map(|c| c["instanceType"].as_str().unwrap().to_string())
        .collect()
    };
    assert_eq!(types(0), ["m5.2xlarge", "m5.8xlarge"]);
    assert_eq!(types(1), ["c5.2xlarge", "c5.9xlarge"]);
    // Each run's start node is consolidated away once the batch's node is Ready (4:10).
    assert_eq!(configs[0]["figures"]["nodeCost"], 0.154);
    assert_eq!(configs[1]["figures"]["nodeCost"], 0.151);
    // The HPA is the same: the replicas never differ.
    assert!(v["firstDifferenceSeconds"].is_null());
    let table = stdout(&hpacalc(
        &[
            &SIM[..SIM.len() - 1],
            &["--compare", "fixtures/karpenter/worked/nodepool-c5.yaml"],
        ]
        .concat(),
    ));
    assert!(
        table.contains("node cost          $0.154                  $0.151"),
        "{table}"
    );
    assert!(
        table.contains("NodeClaims         m5.2xlarge, m5.8xlarge  c5.2xlarge, c5.9xlarge"),
        "{table}"
    );
}

#[test]
fn simulate_refuses_a_nodepool_comparison_without_a_base_nodepool() {
    Test::new()
        .args([
            "simulate",
            "--hpa",
            "fixtures/karpenter/worked/hpa-fast.yaml",
        ])
        .args(["--load", "fixtures/karpenter/worked/load.csv"])
        .args(["--compare", "fixtures/karpenter/worked/nodepool-c5.yaml"])
        .status(1)
        .stderr_contains("expected --nodepool for the base they replace")
        .stdout("")
        .run();
}

#[test]
fn simulate_refuses_nodepool_beside_a_node_group() {
    Test::new()
        .args(&SIM[..SIM.len() - 1])
        .args(["--node-allocatable", "cpu=8"])
        .status(2)
        .stdout("")
        .run();
}

#[test]
fn the_simulate_docs_karpenter_example_is_the_real_output() {
    let docs = std::fs::read_to_string(crate::support::root().join("docs/simulate.md"))
        .expect("docs/simulate.md");
    let command = "    --nodepool fixtures/karpenter/worked/nodepool-m5.yaml --duration 6m\n";
    let start = docs
        .find(command)
        .expect("docs/simulate.md shows the Karpenter example")
        + command.len();
    let block = &docs[start..];
    let block = &block[..block.find("```").expect("the example's end")];
    let o = hpacalc(&SIM[..SIM.len() - 3]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        block,
        "docs/simulate.md's Karpenter example is not the real output"
    );
}

/// The cluster of `fixtures/cluster`: four m6i.large nodes (1930m allocatable each). What their
/// pods request: ip-10-0-3-17 and ip-10-0-5-203 two web pods (500m each) and 125m of
/// DaemonSets, 805m free; ip-10-0-4-88 one web pod and the DaemonSets (its Job has Succeeded),
/// 1305m free; ip-10-0-6-44 is cordoned (the node.kubernetes.io/unschedulable taint).
const CLUSTER: [&str; 4] = [
    "--nodes",
    "fixtures/cluster/nodes.json",
    "--all-pods",
    "fixtures/cluster/pods-all.json",
];

// Scheduler.addToExistingNode (scheduler.go): the Pending pods go to the nodes that have room
// before any NodeClaim opens.
#[test]
fn existing_nodes_take_the_pending_pods_before_a_node_claim_opens() {
    let mut extra = vec!["--nodepool", "fixtures/karpenter/nodepool.yaml"];
    extra.extend(CLUSTER);
    // 500m pods: 1 + 2 + 1 of the 4 fit on the three schedulable nodes.
    let k = karpenter("cpu=500m,memory=1Gi", &extra);
    assert_eq!(
        (
            k["existingNodes"].as_i64(),
            k["podsOnExistingNodes"].as_i64()
        ),
        (Some(4), Some(4))
    );
    assert_eq!(k["nodeClaims"], serde_json::json!([]));
    // 1-core pods: only ip-10-0-4-88 has room (for one); three go to a NodeClaim.
    let k = karpenter("cpu=1,memory=1Gi", &extra);
    assert_eq!(k["podsOnExistingNodes"], 1);
    assert_eq!(k["nodeClaims"][0]["pods"], 3);
    let o = hpacalc(&args("cpu=1,memory=1Gi", &extra));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("1 pod(s) fit on the 4 existing node(s), tried first"),
        "{}",
        stdout(&o)
    );
}

// TopologyGroup.nextDomainAntiAffinity (topologygroup.go) and HostPortUsage.Conflicts
// (hostportusage.go): the target's self anti-affinity on the hostname keeps its pods off the
// nodes that run one, and each NodeClaim takes one pod.
#[test]
fn the_targets_anti_affinity_and_host_port_give_each_pod_its_own_node() {
    let mut extra = vec![
        "--nodepool",
        "fixtures/karpenter/nodepool.yaml",
        "--target",
        "fixtures/karpenter/target-one-per-node.yaml",
    ];
    extra.extend(CLUSTER);
    let k = karpenter("cpu=100m,memory=128Mi", &extra);
    // Every schedulable node runs a web pod already: none takes another.
    assert_eq!(k["podsOnExistingNodes"], 0);
    let claims = k["nodeClaims"].as_array().unwrap();
    assert_eq!(claims.len(), 4, "{k:#}");
    assert!(claims.iter().all(|c| c["pods"] == 1));
}
