//! Inputs that cannot silently mislead (issue 10): what is missing is a usage error naming the
//! flag that supplies it, a CSV column that is misnamed or missing is an error naming the column,
//! an empty metrics answer is a failed metric, and the scale's status.replicas comes from the
//! target when given.

use serde_json::Value;

use crate::support::{NOW, Test, check_malformed, json_output, root, temp_dir};

const KEDA: &str = "fixtures/kubectl/keda-hpa.yaml";
const WORKER: &str = "fixtures/hpa/queue-worker.yaml";
const ROLLOUT: &str = "fixtures/kubectl/deploy-worker-rollout.json";

fn assumptions(v: &Value) -> String {
    v["assumptions"].to_string()
}

#[test]
fn an_hpa_alone_without_a_status_is_a_usage_error_naming_the_flag() {
    Test::new()
        .args(["--hpa", "fixtures/hpa/web-cpu.yaml"])
        .fails(2)
        .stderr_starts_with("error: no current replica count:")
        .stderr_contains("--current-replicas N")
        .run();
}

#[test]
fn a_metric_that_reads_pods_without_pods_or_status_is_a_usage_error() {
    Test::new()
        .args([
            "--hpa",
            "fixtures/hpa/web-cpu.yaml",
            "--current-replicas",
            "3",
        ])
        .fails(2)
        .stderr_starts_with(
            "error: no pods: the Resource metric cpu averages its usage over the pods",
        )
        .stderr_contains("pass --pods")
        .run();
}

#[test]
fn average_value_external_metrics_need_no_pods() {
    let v = json_output(&[
        "--hpa",
        KEDA,
        "--current-replicas",
        "5",
        "--metric-value",
        "s0-rabbitmq-worker_tasks=137",
        "--now",
        NOW,
    ]);
    assert_eq!(v["desiredReplicas"], 7);
}

#[test]
fn the_target_gives_spec_and_status_replicas_during_a_rollout() {
    let base = [
        "--hpa",
        KEDA,
        "--metric-value",
        "s0-rabbitmq-worker_tasks=105",
        "--now",
        NOW,
    ];
    // Without the target: 105 / (20 × 5) = 1.05 is inside the tolerance: hold 5.
    let plain = json_output(&base);
    assert_eq!(plain["desiredReplicas"], 5);
    assert_eq!(plain["metrics"][0]["currentAverageValue"], "21");
    assert!(
        assumptions(&plain).contains("5, the current count (no rollout assumed"),
        "{}",
        assumptions(&plain)
    );
    // The rollout: spec.replicas 5, status.replicas 6; 105 / (20 × 6) = 0.875 → ceil(105 / 20) = 6.
    let mut args = base.to_vec();
    args.extend(["--target", ROLLOUT]);
    let v = json_output(&args);
    assert_eq!(v["currentReplicas"], 5);
    assert_eq!(v["metrics"][0]["currentAverageValue"], "17500m");
    assert_eq!(v["metrics"][0]["proposedReplicas"], 6);
    assert_eq!(v["desiredReplicas"], 6);
    let said = assumptions(&v);
    assert!(
        said.contains("divide by the scale's status.replicas: 6, the target's status.replicas in fixtures/kubectl/deploy-worker-rollout.json"),
        "{said}"
    );
    assert!(
        said.contains("Current replicas: 5, the target's spec.replicas"),
        "{said}"
    );
    // The flag gives the same.
    let mut args = base.to_vec();
    args.extend(["--status-replicas", "6"]);
    let flag = json_output(&args);
    assert_eq!(flag["metrics"][0]["proposedReplicas"], 6);
    assert!(assumptions(&flag).contains("6, from --status-replicas"));
}

#[test]
fn the_target_inside_the_pods_list_is_read_too() {
    let pods: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("fixtures/kubectl/pods.json")).unwrap(),
    )
    .unwrap();
    let mut list = pods.clone();
    let deploy = serde_json::json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"replicas": 7}, "status": {"replicas": 8}
    });
    list["items"].as_array_mut().unwrap().insert(0, deploy);
    let path = temp_dir("target-in-pods").join("deploy-and-pods.json");
    std::fs::write(&path, serde_json::to_string(&list).unwrap()).unwrap();
    let v = json_output(&[
        "--hpa",
        "fixtures/kubectl/hpa.yaml",
        "--pods",
        path.to_str().unwrap(),
        "--metrics",
        "fixtures/kubectl/metrics.json",
    ]);
    assert_eq!(v["currentReplicas"], 7);
    assert!(
        assumptions(&v).contains("Current replicas: 7, the target's spec.replicas in"),
        "{}",
        assumptions(&v)
    );
    assert!(
        !v["warnings"].to_string().contains("not pods"),
        "the target is not a skipped item: {}",
        v["warnings"]
    );
}

#[test]
fn an_empty_external_answer_is_a_failed_metric() {
    let v = json_output(&[
        "--hpa",
        KEDA,
        "--external-metrics",
        "fixtures/kubectl/external-metrics-empty.json",
        "--now",
        NOW,
    ]);
    let m = &v["metrics"][0];
    assert_eq!(m["errorReason"], "FailedGetExternalMetric");
    assert!(
        m["error"]
            .as_str()
            .unwrap()
            .contains("no metrics returned from external metrics API"),
        "{m}"
    );
    assert_eq!(
        v["desiredReplicas"], 5,
        "every metric invalid: the count holds"
    );
    assert!(
        assumptions(&v).contains("no item in --external-metrics"),
        "{}",
        assumptions(&v)
    );
}

#[test]
fn an_empty_custom_answer_fails_the_object_metric_and_blocks_a_scale_down() {
    let v = json_output(&[
        "--hpa",
        WORKER,
        "--pods",
        "fixtures/samples/worker.csv",
        "--custom-metrics",
        "fixtures/kubectl/custom-metrics-empty.json",
        "--metric-value",
        "queue_messages_ready=10",
        "--now",
        NOW,
    ]);
    let object = &v["metrics"][1];
    assert_eq!(object["errorReason"], "FailedGetObjectMetric");
    assert!(
        object["error"].as_str().unwrap().contains(
            "unable to fetch metrics from custom metrics API: the custom metrics API server \
             returned 0 results when we asked for exactly one"
        ),
        "{object}"
    );
    // The External metric alone would scale down to 1; the failed Object metric blocks it.
    assert_eq!(v["metrics"][0]["proposedReplicas"], 1);
    assert_eq!(v["desiredReplicas"], 4);
}

#[test]
fn a_misnamed_usage_column_names_the_column_it_needs() {
    // Its case in fixtures/malformed/CASES.tsv gives the whole message.
    check_malformed(&["samples-usage-column-misnamed.csv"]);
}

#[test]
fn a_missing_request_column_names_the_column_not_a_container() {
    // Its case in fixtures/malformed/CASES.tsv: `a column named cpu_request`, not `container app`.
    check_malformed(&["samples-no-request-column.csv"]);
}

#[test]
fn a_column_nothing_reads_is_a_warning_in_the_output() {
    let v = json_output(&[
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pods",
        "fixtures/samples/extra-column.csv",
        "--now",
        NOW,
    ]);
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("extra-column.csv:1:6: the column region is neither"),
        "{warnings}"
    );
    assert_eq!(v["currentReplicas"], 2);
}

#[test]
fn pasted_text_is_recognized_and_the_error_says_what_to_pass() {
    // Pasted text where another input belongs, in the corpus (fixtures/malformed/CASES.tsv).
    check_malformed(&[
        "samples-describe-hpa.txt",
        "samples-get-hpa.txt",
        "hpa-helm-template.yaml",
    ]);
    Test::new()
        .args(["--hpa", "fixtures/kubectl/hpa.yaml"])
        .args(["--pods", "fixtures/kubectl/top.txt"])
        .fails(1)
        .stderr_starts_with(
            "error: fixtures/kubectl/top.txt:1: found the output of kubectl top pods",
        )
        .stderr_contains("pass this file as --metrics")
        .run();
}

#[test]
fn a_status_replicas_flag_nothing_reads_is_a_warning() {
    let v = json_output(&[
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pods",
        "fixtures/samples/web-cpu.csv",
        "--status-replicas",
        "9",
        "--now",
        NOW,
    ]);
    assert!(
        v["warnings"]
            .to_string()
            .contains("--status-replicas is read only by AverageValue"),
        "{}",
        v["warnings"]
    );
}
