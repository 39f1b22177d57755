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
