//! `hpacalc audit` on the generated dump in `fixtures/cluster/dump` (examples/generate_cluster.rs:
//! one planted problem of every finding type, the other HPAs healthy) and on small YAML dumps.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::support::{Test, hpacalc, json_output, root, stderr, stdout, temp_dir};

const DUMP: &str = "fixtures/cluster/dump";

/// The committed dump with its metrics and nodes.
const WITH_NODES: [&str; 6] = [
    "--dump",
    "fixtures/cluster/dump/cluster.json",
    "--metrics",
    "fixtures/cluster/dump/metrics.json",
    "--nodes",
    "fixtures/cluster/dump/nodes.json",
];

fn audit_json(args: &[&str]) -> Value {
    Test::new()
        .arg("audit")
        .args(args)
        .args(["-o", "json"])
        .schema("audit")
        .json()
}

/// `(code, hpa)` of every finding.
fn found(v: &Value) -> BTreeSet<(String, String)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["hpa"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn planted() -> BTreeSet<(String, String)> {
    let text = std::fs::read_to_string(root().join(DUMP).join("planted.json")).unwrap();
    let list: Vec<Value> = serde_json::from_str(&text).unwrap();
    list.iter()
        .map(|p| {
            (
                p["code"].as_str().unwrap().to_string(),
                p["hpa"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn every_planted_problem_is_found_where_planted_and_nothing_else() {
    let v = audit_json(&WITH_NODES);
    assert_eq!(found(&v), planted());
    assert_eq!(v["findings"].as_array().unwrap().len(), planted().len());
    let s = &v["summary"];
    assert_eq!(s["hpas"], 20);
    assert_eq!(s["findingsBySeverity"]["error"], 7);
}

#[test]
fn without_nodes_max_unreachable_is_not_checked() {
    let v = audit_json(&[
        "--dump",
        "fixtures/cluster/dump/cluster.json",
        "--metrics",
        "fixtures/cluster/dump/metrics.json",
    ]);
    let mut expected = planted();
    expected.retain(|(code, _)| code != "MaxUnreachable");
    assert_eq!(found(&v), expected);
}

#[test]
fn the_node_groups_maximum_counts_the_nodes_it_may_still_add() {
    let with_max = |max: &str| {
        let mut args = WITH_NODES.to_vec();
        args.extend(["--node-group-max", max]);
        audit_json(&args)
    };
    let unreachable = |v: &Value| -> Option<String> {
        (v["findings"].as_array().unwrap().iter())
            .find(|f| f["code"] == "MaxUnreachable")
            .map(|f| f["message"].as_str().unwrap().to_string())
    };
    // 20 nodes given with room for 348 more pods; each new node holds 32 (cpu 500m, memory
    // 256Mi). team-0/huge needs 99,997 more: 348 + 32 × 3115 = 100,028 at a maximum of 3135.
    let message = unreachable(&with_max("100")).expect("MaxUnreachable at 100 nodes");
    assert!(
        message.ends_with(
            "the schedulable nodes given have room for 348 and the 80 node(s) the node group may \
             still add (--node-group-max 100) for 2560: the rest stay Pending"
        ),
        "{message}"
    );
    assert!(unreachable(&with_max("3134")).is_some());
    assert_eq!(unreachable(&with_max("3135")), None);
    // A maximum below the nodes given adds none.
    let message = unreachable(&with_max("5")).unwrap();
    assert!(message.contains("and the 0 node(s)"), "{message}");
}

#[test]
fn an_hpa_keda_made_is_audited_as_its_scaled_object_keda_step_first() {
    let now = ["--now", "2026-11-29T15:00:00Z"];
    let hpa = |v: &Value, name: &str| -> Value {
        (v["hpas"].as_array().unwrap().iter())
            .find(|h| h["hpa"] == format!("shop/{name}").as_str())
            .cloned()
            .unwrap_or(Value::Null)
    };
    let mut args = vec![
        "--dump",
        "fixtures/cluster/keda/cluster.json",
        "--external-metrics",
        "fixtures/cluster/keda/external-metrics.json",
    ];
    args.extend(now);
    let v = audit_json(&args);
    let orders = hpa(&v, "keda-hpa-orders-consumer");
    // The same answer as the ScaledObject given alone with the trigger's value.
    let alone = json_output(&[
        "--hpa",
        "fixtures/keda/kafka-lag.yaml",
        "--metric-value",
        "s0=420",
        "--current-replicas",
        "3",
        "--now",
        "2026-11-29T15:00:00Z",
    ]);
    assert_eq!(orders["desiredReplicas"], alone["desiredReplicas"]);
    assert_eq!(orders["decision"], alone["decision"]);
    let summary = orders["decision"]["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("KEDA: active, the HPA decides"),
        "{summary}"
    );
    // Two ScaledObjects own no HPA of the dump: one paused by annotation, one not reconciled.
    let lone: Vec<(String, String)> = (v["findings"].as_array().unwrap().iter())
        .filter(|f| f["code"] == "ScaledObjectWithoutHpa")
        .map(|f| (f["objects"][0].to_string(), f["message"].to_string()))
        .collect();
    assert_eq!(lone.len(), 2, "{lone:?}");
    assert!(lone[0].0.contains("ScaledObject/shop/reports") && lone[0].1.contains("is paused"));
    assert!(lone[1].0.contains("ScaledObject/shop/search") && lone[1].1.contains("owns no HPA"));

    // Without the trigger's value, an HPA that still has an answer (its status holds the
    // External metric's total) gives it, and says it is the HPA's alone.
    let v = audit_json(&[
        "--dump",
        "fixtures/cluster/keda/cluster.json",
        now[0],
        now[1],
    ]);
    let api = hpa(&v, "keda-hpa-api");
    assert_eq!(api["desiredReplicas"], 6, "{api:#}");
    let warnings = api["warnings"].to_string();
    assert!(
        warnings.contains("the ScaledObject api could not be evaluated (--metric-value: found no value for trigger s0")
            && warnings.contains("this is the answer of its HPA alone, without KEDA's step"),
        "{warnings}"
    );
    assert_eq!(hpa(&v, "keda-hpa-orders-consumer"), Value::Null);
    assert!(found(&v).contains(&(
        "EvaluationFailed".to_string(),
        "shop/keda-hpa-orders-consumer".to_string()
    )));
}

#[test]
fn an_ambiguous_hpa_gets_the_controllers_answer_no_scaling() {
    let v = audit_json(&[
        "--dump",
        "fixtures/cluster/dump/cluster.json",
        "--metrics",
        "fixtures/cluster/dump/metrics.json",
    ]);
    let cart = v["hpas"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["hpa"] == "team-0/cart")
        .unwrap();
    assert_eq!(cart["desiredReplicas"], cart["currentReplicas"]);
    let active = cart["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "ScalingActive")
        .unwrap();
    assert_eq!(active["status"], "False");
    assert_eq!(active["reason"], "AmbiguousSelector");
    assert_eq!(
        active["message"],
        "pods by selector app=cart are controlled by multiple HPAs: [team-0/cart team-0/cart-memory]"
    );
    // Every HPA has its report, those whose target's scale cannot be read too.
    assert!(v["unevaluated"].as_array().unwrap().is_empty());
    assert_eq!(v["hpas"].as_array().unwrap().len(), 20);
    for (hpa, target) in [
        ("team-0/ghost", "Deployment/ghost"),
        ("team-0/agent", "DaemonSet/agent"),
    ] {
        let r = report_of(&v, hpa);
        assert_eq!(r["target"], target);
        assert_eq!(able_to_scale(r), ("False", "FailedGetScale"));
        // The generator writes status.currentReplicas 1: the controller leaves it.
        assert_eq!(
            (&r["currentReplicas"], &r["desiredReplicas"]),
            (&1.into(), &1.into())
        );
    }
}

/// The report of `hpa` in an audit's `hpas[]`.
fn report_of<'v>(v: &'v Value, hpa: &str) -> &'v Value {
    (v["hpas"].as_array().unwrap().iter())
        .find(|r| r["hpa"] == hpa)
        .unwrap_or_else(|| panic!("{hpa} not in hpas[]: {:#}", v["unevaluated"]))
}

/// The status and reason of a report's AbleToScale condition.
fn able_to_scale(r: &Value) -> (&str, &str) {
    let c = (r["conditions"].as_array().unwrap().iter())
        .find(|c| c["type"] == "AbleToScale")
        .expect("AbleToScale");
    (c["status"].as_str().unwrap(), c["reason"].as_str().unwrap())
}

/// reconcileAutoscaler: a scale it cannot read (the target is not there, or its kind has no
/// scale subresource) sets AbleToScale False FailedGetScale and returns, leaving the count and
/// the status's other conditions as they are. Each HPA is in `hpas[]` with that answer, and the
/// findings name the cause.
#[test]
fn an_hpa_whose_scale_cannot_be_read_gets_the_controllers_failed_get_scale() {
    let v = audit_json(&[
        "--dump",
        "fixtures/cluster/yaml/orphans.yaml",
        "--now",
        "2026-11-29T15:00:00Z",
    ]);
    assert!(v["unevaluated"].as_array().unwrap().is_empty());
    let ghost = report_of(&v, "shop/ghost");
    // status.currentReplicas 4 stays; status.desiredReplicas 6 is the last successful sync's.
    assert_eq!(ghost["currentReplicas"], 4);
    assert_eq!(ghost["currentReplicasSource"], "status");
    assert_eq!(ghost["desiredReplicas"], 4);
    assert_eq!(ghost["decision"]["change"], "none");
    assert_eq!(ghost["decision"]["metricProposal"], Value::Null);
    assert!(ghost["metrics"].as_array().unwrap().is_empty());
    assert_eq!(ghost["statusComparison"], Value::Null);
    assert_eq!(able_to_scale(ghost), ("False", "FailedGetScale"));
    let conditions = ghost["conditions"].as_array().unwrap();
    assert_eq!(
        conditions[0]["message"],
        "the HPA controller was unable to get the target's current scale: deployments/scale.apps \"ghost\" not found"
    );
    // The status changed from True: the transition is now. ScalingActive is not touched.
    assert_eq!(conditions[0]["lastTransitionTime"], "2026-11-29T15:00:00Z");
    assert_eq!(conditions[1]["type"], "ScalingActive");
    assert_eq!(conditions[1]["lastTransitionTime"], "2026-11-29T14:00:00Z");
    let agent = report_of(&v, "shop/agent");
    // No status.currentReplicas: 0, as the API reads an omitted count.
    assert_eq!(
        (&agent["currentReplicas"], &agent["desiredReplicas"]),
        (&0.into(), &0.into())
    );
    assert_eq!(able_to_scale(agent), ("False", "FailedGetScale"));
    assert_eq!(
        found(&v),
        BTreeSet::from([
            ("TargetKindMismatch".to_string(), "shop/agent".to_string()),
            ("TargetMissing".to_string(), "shop/ghost".to_string()),
        ])
    );
    let s = &v["summary"];
    assert_eq!((&s["hpas"], &s["failing"]), (&2.into(), &2.into()));
}

#[test]
fn a_failing_metrics_api_is_a_finding_on_every_hpa_with_resource_metrics() {
    let v = audit_json(&[
        "--dump",
        "fixtures/cluster/dump/cluster.json",
        "--metrics",
        "fixtures/cluster/dump/metrics-down.json",
    ]);
    let unavailable: Vec<_> = found(&v)
        .into_iter()
        .filter(|(c, _)| c == "MetricsApiUnavailable")
        .collect();
    // Every HPA but the two whose target is not there.
    assert_eq!(unavailable.len(), 18);
}

#[test]
fn fail_on_exits_3_after_printing_the_result() {
    let args = [
        "audit",
        "--dump",
        "fixtures/cluster/dump/cluster.json",
        "--metrics",
        "fixtures/cluster/dump/metrics.json",
    ];
    Test::new().args(args).status(0).run();
    Test::new()
        .args(args)
        .args(["--fail-on", "error"])
        .status(3)
        .stdout_contains("AmbiguousSelector")
        .stderr_contains("7 finding(s) of severity error or above")
        .run();
    // A healthy dump passes --fail-on warning.
    Test::new()
        .args(["audit", "--dump", "fixtures/cluster/yaml/web.yaml"])
        .args(["--metrics", "fixtures/cluster/yaml/metrics.yaml"])
        .args(["--fail-on", "warning"])
        .status(0)
        .run();
}

#[test]
fn a_yaml_dump_of_single_objects_gets_the_single_hpa_decision() {
    let v = audit_json(&[
        "--dump",
        "fixtures/cluster/yaml/web.yaml",
        "--metrics",
        "fixtures/cluster/yaml/metrics.yaml",
    ]);
    let web = &v["hpas"][0];
    assert_eq!(web["hpa"], "shop/web");
    // 600m of 500m is 120% against 60%: twice the 2 pods.
    assert_eq!(web["metrics"][0]["currentUtilization"], 120);
    assert_eq!(web["desiredReplicas"], 4);
    assert_eq!(v["summary"]["scalingUp"], 1);
    assert!(v["findings"].as_array().unwrap().is_empty());
}

/// A ReplicationController's selector is a plain map (`scaleFromRC`: `labels.SelectorFromSet`):
/// the same pods, the same decision as the Deployment of web.yaml.
#[test]
fn a_replication_controller_target_selects_its_pods_by_its_map_selector() {
    let v = audit_json(&[
        "--dump",
        "fixtures/cluster/yaml/web-rc.yaml",
        "--metrics",
        "fixtures/cluster/yaml/metrics.yaml",
    ]);
    let web = &v["hpas"][0];
    assert_eq!(web["metrics"][0]["currentUtilization"], 120);
    assert_eq!(web["desiredReplicas"], 4);
    assert!(
        v["findings"].as_array().unwrap().is_empty(),
        "{}",
        v["findings"]
    );
}

#[test]
fn the_table_matches_the_snapshot() {
    let mut args = vec!["audit"];
    args.extend(WITH_NODES);
    args.extend(["-o", "wide"]);
    let o = hpacalc(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    snapbox::assert_data_eq!(stdout(&o), snapbox::file!["snapshots/audit-wide.txt"]);
}

#[test]
fn a_malformed_dump_is_a_located_error() {
    let dir = temp_dir("audit");
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        r#"{"kind":"List","items":[{"kind":"Pod","metadata":{"name":"a"},"spec":{"containers":7}}]}"#,
    )
    .unwrap();
    Test::new()
        .args(["audit", "--dump", bad.to_str().unwrap()])
        .status(1)
        .stdout("")
        .stderr_contains("bad.json items[0]")
        .run();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn manifests_only_get_the_static_checks_at_their_place() {
    let v = audit_json(&["-f", "fixtures/cluster/manifests"]);
    let expected: BTreeSet<(String, String)> = [
        ("AmbiguousSelector", "default/worker"),
        ("AmbiguousSelector", "default/worker-queue"),
        ("MinEqualsMax", "default/worker"),
        ("NoRequests", "default/worker"),
        ("PdbBlocksDrain", "default/web"),
        ("ReplicasFieldManaged", "default/web"),
        ("TargetMissing", "default/api"),
    ]
    .iter()
    .map(|(c, h)| (c.to_string(), h.to_string()))
    .collect();
    assert_eq!(found(&v), expected);
    assert!(v["hpas"].as_array().unwrap().is_empty());
    assert_eq!(v["summary"]["failing"], 0);

    let sarif = Test::new()
        .args(["audit", "-f", "fixtures/cluster/manifests", "-o", "sarif"])
        .json();
    assert_eq!(sarif["version"], "2.1.0");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), expected.len());
    let missing = results
        .iter()
        .find(|r| r["ruleId"] == "TargetMissing")
        .unwrap();
    let at = &missing["locations"][0]["physicalLocation"];
    assert_eq!(
        at["artifactLocation"]["uri"],
        "fixtures/cluster/manifests/templates/worker.yaml"
    );
    // The document's first line after its `---` and `# Source:` comment: `apiVersion:`.
    assert_eq!(at["region"]["startLine"], 62);
    assert_eq!(missing["level"], "error");
}

#[test]
fn audit_needs_a_dump_or_manifests_and_not_both_kinds_of_input() {
    let o = hpacalc(&["audit"]);
    assert_eq!(o.status.code(), Some(2));
    let o = hpacalc(&[
        "audit",
        "-f",
        "fixtures/cluster/manifests",
        "--metrics",
        "fixtures/cluster/dump/metrics.json",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
}

/// `--dump FILE` names the dump; `--cluster` is kubectl's kubeconfig cluster with `-n`/`-A`, and
/// without them (no kubeconfig is read, so nothing clashes) the old spelling of `--dump`.
#[test]
fn dump_is_the_file_and_the_old_cluster_spelling_still_reads_it_offline() {
    let new = audit_json(&["--dump", "fixtures/cluster/dump/cluster.json"]);
    let o = Test::new()
        .args([
            "audit",
            "--cluster",
            "fixtures/cluster/dump/cluster.json",
            "-o",
            "json",
        ])
        .status(0)
        .stderr_contains("old spelling of --dump")
        .run();
    let old: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(old, new);
    // Two kubeconfig clusters are no cluster: a usage error.
    Test::new()
        .args(["audit", "-A", "--cluster", "a", "b"])
        .status(2)
        .stdout("")
        .run();
}

/// `audit -o markdown`: a report to paste into a ticket, every value through the Markdown
/// encoder (a `|` in a message cannot end its cell).
#[test]
fn audit_markdown_has_one_row_per_hpa_and_the_findings() {
    let v = audit_json(&WITH_NODES);
    let o = Test::new()
        .arg("audit")
        .args(WITH_NODES)
        .args(["-o", "markdown"])
        .status(0)
        .run();
    let text = stdout(&o);
    assert!(text.starts_with("## hpacalc audit\n"), "{text}");
    let rows = text.lines().filter(|l| l.starts_with("| `")).count();
    let hpas = v["hpas"].as_array().unwrap().len() + v["unevaluated"].as_array().unwrap().len();
    let findings = v["findings"].as_array().unwrap().len();
    assert!(rows >= hpas, "{rows} rows for {hpas} HPAs:\n{text}");
    assert!(text.contains("**Findings**") == (findings > 0), "{text}");
    // Every table row has as many cells as its header: no value split a row.
    for line in text.lines().filter(|l| l.starts_with('|')) {
        let cells = line.replace("\\|", "").matches('|').count();
        assert!(
            cells == 7 || cells == 6 || cells == 3 || cells == 4,
            "{line}"
        );
    }
}

/// The connection flags read the cluster: with a dump's files they would be ignored, so they are
/// a usage error (exit 2), nothing on stdout.
#[test]
fn connection_flags_with_a_dump_are_usage_errors() {
    for flag in [
        &["--token", "t"][..],
        &["--context", "prod"],
        &["--as", "jane"],
    ] {
        let o = Test::new()
            .args(["audit", "--dump", "fixtures/cluster/dump/cluster.json"])
            .args(flag)
            .status(2)
            .stdout("")
            .run();
        assert!(stderr(&o).contains(flag[0]), "{}", stderr(&o));
    }
}
