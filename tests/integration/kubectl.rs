//! kubectl output as input (issue 4): the commands of docs/on-call.md's offline section on
//! `fixtures/kubectl/`, the same situation as CSV and as kubectl output giving the same decision,
//! the status comparison and the approximation from the status alone, every error, and the
//! `kubectl hpacalc` plugin name.

use std::path::Path;

use serde_json::Value;

use crate::support::{
    Test, check_malformed, codes, decision, hpacalc, json, json_output, root, stderr, stdout,
    temp_dir,
};

const HPA: &str = "fixtures/kubectl/hpa.yaml";
const PODS: &str = "fixtures/kubectl/pods.json";
const METRICS: &str = "fixtures/kubectl/metrics.json";
const CUSTOM: &str = "fixtures/kubectl/custom-metrics.json";
/// The newest time in the kubectl fixtures (a PodMetrics timestamp).
const CAPTURED: &str = "2026-11-29T14:59:58Z";

fn kubectl_form(extra: &[&str]) -> Value {
    let mut args = vec![
        "--hpa",
        HPA,
        "--pods",
        PODS,
        "--metrics",
        METRICS,
        "--custom-metrics",
        CUSTOM,
    ];
    args.extend(extra);
    json_output(&args)
}

fn csv_form() -> Value {
    json_output(&[
        "--hpa",
        HPA,
        "--pods",
        "fixtures/kubectl/equivalent.csv",
        "--now",
        CAPTURED,
    ])
}

fn as_yaml(fixture: &str, dir: &Path) -> String {
    let value: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join(fixture)).unwrap()).unwrap();
    let name = Path::new(fixture).with_extension("yaml");
    let path = dir.join(name.file_name().unwrap());
    std::fs::write(&path, serde_yaml::to_string(&value).unwrap()).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn csv_and_kubectl_forms_of_one_situation_give_identical_decisions() {
    let kubectl = kubectl_form(&[]);
    let csv = csv_form();
    assert_eq!(decision(&kubectl), decision(&csv));
    // The situation is not trivial: every pod class and both recounts occur.
    assert_eq!(kubectl["desiredReplicas"], 5);
    let cpu = &kubectl["metrics"][0];
    assert_eq!(
        [
            &cpu["readyPods"],
            &cpu["unreadyPods"],
            &cpu["missingPods"],
            &cpu["ignoredPods"]
        ],
        [2, 2, 1, 1]
    );
    assert_eq!(cpu["currentUtilization"], 89);
    assert_eq!(
        cpu["requestTotalMilli"], 1200,
        "app and the istio-proxy sidecar requests; not the plain init container"
    );
    assert_eq!(cpu["recount"]["newUtilization"], 35);
    assert_eq!(kubectl["metrics"][1]["currentAverageValue"], "96666m");
}

#[test]
fn yaml_captures_and_kubectl_top_give_the_same_decision() {
    let dir = temp_dir("kubectl-yaml");
    let pods = as_yaml(PODS, &dir);
    let metrics = as_yaml(METRICS, &dir);
    let custom = as_yaml(CUSTOM, &dir);
    let from_json = kubectl_form(&[]);
    let from_yaml = json_output(&[
        "--hpa",
        HPA,
        "--pods",
        &pods,
        "--metrics",
        &metrics,
        "--custom-metrics",
        &custom,
    ]);
    assert_eq!(decision(&from_json), decision(&from_yaml));
    let from_top = Test::new()
        .args(["--hpa", HPA, "--pods", PODS])
        .args(["--metrics", "fixtures/kubectl/top.txt"])
        .args(["--custom-metrics", CUSTOM, "--now", CAPTURED, "-o", "json"])
        .stderr_contains("kubectl top prints memory in whole Mi (truncated)")
        .schema("report")
        .json();
    assert_eq!(decision(&from_json), decision(&from_top));
}

#[test]
fn the_time_defaults_to_the_newest_input_time_and_says_so() {
    let v = kubectl_form(&[]);
    assert_eq!(v["now"], CAPTURED);
    let said = v["assumptions"].as_array().unwrap().iter().any(|a| {
        a.as_str().unwrap().starts_with(&format!(
            "No --now: evaluated at {CAPTURED}, the newest time in the inputs (in {METRICS})"
        ))
    });
    assert!(said, "{}", v["assumptions"]);
    let given = kubectl_form(&["--now", "2026-11-29T16:00:00Z"]);
    assert_eq!(given["now"], "2026-11-29T16:00:00Z");
}

/// `fixtures/kubectl/capture-time/`: the HPA file named, its pod list and `kubectl top` text,
/// and `extra` flags, as JSON.
fn capture_time(hpa: &str, extra: &[&str]) -> serde_json::Value {
    let dir = "fixtures/kubectl/capture-time";
    Test::new()
        .args(["--hpa", &format!("{dir}/{hpa}")])
        .args(["--pods", &format!("{dir}/pods.json")])
        .args(["--metrics", &format!("{dir}/top.txt")])
        .args(extra)
        .args(["-o", "json"])
        .json()
}

/// `kubectl top` text has no sample times and a pod list holds only start and Ready times,
/// which can be an hour before the capture: the clock is the evaluation time, never a pod's.
#[test]
fn pods_ready_an_hour_before_a_top_capture_are_not_in_their_initialization_period() {
    let v = capture_time("hpa.yaml", &[]);
    assert_eq!(
        (v["currentReplicas"].as_i64(), v["desiredReplicas"].as_i64()),
        (Some(4), Some(6))
    );
    assert_eq!(v["metrics"][0]["readyPods"], 4, "{}", v["metrics"][0]);
    let now = v["now"].as_str().unwrap();
    assert!(now > "2026-11-29T14:05:00Z", "{now}");
    let said = (v["assumptions"].as_array().unwrap().iter()).any(|a| {
        a.as_str().unwrap().starts_with(&format!(
            "No --now, and no time of the capture in the inputs (a pod's start or Ready time is \
             not one; kubectl top text has none): evaluated at the current time, {now}; the \
             inputs allow any time from 2026-11-29T14:00:20Z"
        ))
    });
    assert!(said, "{}", v["assumptions"]);
    // Captured at the pods' Ready transition, inside their initialization period but Ready and
    // sampled at the evaluation time, the sync gives 6 too: said.
    let checked = (v["assumptions"].as_array().unwrap().iter()).any(|a| {
        a == "At the earliest instant the inputs allow, 2026-11-29T14:00:20Z, the sync gives 6 too."
    });
    assert!(checked, "{}", v["assumptions"]);
}

/// The status was written at a sync before the capture: its newest condition change bounds the
/// capture's time from below, as the pods' times do.
#[test]
fn the_status_conditions_only_bound_a_capture_without_sample_times() {
    // A condition's time is written at a sync before the capture: a lower bound, not the
    // capture's time. Without a sample time the clock is used, and the bound is said.
    let v = capture_time("hpa-status.yaml", &[]);
    assert!(
        v["now"].as_str().unwrap() > "2026-11-29T14:58:45Z",
        "{}",
        v["now"]
    );
    assert_eq!(v["desiredReplicas"], 6);
    let said = (v["assumptions"].as_array().unwrap().iter()).any(|a| {
        a.as_str()
            .unwrap()
            .contains("the inputs allow any time from 2026-11-29T14:58:45Z")
    });
    assert!(said, "{:#}", v["assumptions"]);
}

/// The issue's capture: `kubectl top` text (no clock), the pods' JSON with Ready transitions at
/// 14:00:20, and a status whose newest condition is 20 s older. The capture cannot predate the
/// pods' own Ready transitions: they are ready, and the sync scales 4 → 6, not 4 → 4.
#[test]
fn now_never_predates_the_pods_ready_transitions() {
    let v = capture_time("hpa-condition-before-ready.yaml", &[]);
    assert!(
        v["now"].as_str().unwrap() >= "2026-11-29T14:00:20Z",
        "{}",
        v["now"]
    );
    assert_eq!(v["metrics"][0]["readyPods"], 4, "{}", v["metrics"][0]);
    assert_eq!(v["desiredReplicas"], 6);
    let said = (v["assumptions"].as_array().unwrap().iter()).any(|a| {
        a.as_str()
            .unwrap()
            .contains("the inputs allow any time from 2026-11-29T14:00:20Z (in fixtures/kubectl/capture-time/pods.json)")
    });
    assert!(said, "{:#}", v["assumptions"]);
}

/// Issue 36, item 3: `status.lastScaleTime` and an event's own time bound `now` from below
/// like the conditions' and the pods' times: the earliest instant said is the newest of them.
#[test]
fn last_scale_time_and_event_times_bound_the_capture() {
    let allowed_from = |v: &serde_json::Value, from: &str| {
        (v["assumptions"].as_array().unwrap().iter()).any(|a| {
            a.as_str()
                .unwrap()
                .contains(&format!("the inputs allow any time from {from}"))
        })
    };
    let v = capture_time("hpa-last-scale.yaml", &[]);
    assert!(
        allowed_from(
            &v,
            "2026-11-29T14:05:00Z (in fixtures/kubectl/capture-time/hpa-last-scale.yaml)"
        ),
        "{:#}",
        v["assumptions"]
    );
    let events = "fixtures/kubectl/capture-time/events.yaml";
    let v = capture_time("hpa-last-scale.yaml", &["--events", events]);
    assert!(
        allowed_from(&v, &format!("2026-11-29T14:06:00Z (in {events})")),
        "{:#}",
        v["assumptions"]
    );
}

/// Memory reads in binary units in sentences, exact at the band's edges; the JSON keeps the
/// exact quantities (the lowest value that keeps the count is one milli-byte above 112.5Mi).
#[test]
fn a_memory_band_reads_in_binary_units_and_stays_exact_in_json() {
    let v = capture_time("hpa-memory.yaml", &["--now", "2026-11-29T15:00:00Z"]);
    assert!(
        (v["decision"]["summary"].as_str().unwrap()).ends_with(
            "Holds 4 replicas while memory average is above 112.5Mi up to 165Mi; scales up \
             above 165Mi, down at 112.5Mi or below"
        ),
        "{}",
        v["decision"]["summary"]
    );
    let band = &v["metrics"][0]["holdBand"];
    assert_eq!(band["low"], "117964800001m");
    assert_eq!(band["high"], "165Mi");
}

/// One integer percent both holds and scales when a recount divides by more pods than it was read
/// over: the band names the usage total where the count flips, and the JSON keeps it exactly.
#[test]
fn a_percent_split_by_the_recount_names_the_usage_total_where_the_count_flips() {
    let dir = "fixtures/kubectl/recount-split";
    let v = json(&[
        "--hpa",
        &format!("{dir}/hpa.yaml"),
        "--pods",
        &format!("{dir}/pods.json"),
        "--metrics",
        &format!("{dir}/top.txt"),
    ]);
    assert_eq!(v["desiredReplicas"], 6);
    let band = &v["metrics"][0]["holdBand"];
    assert_eq!(
        (&band["high"], &band["highTotal"], &band["lowTotal"]),
        (
            &serde_json::json!(67),
            &serde_json::json!("3359m"),
            &serde_json::Value::Null
        )
    );
    assert_eq!(
        band["above"],
        serde_json::json!({"value": 67, "replicas": 7, "total": "3360m"})
    );
    assert!(
        (v["decision"]["summary"].as_str().unwrap()).ends_with(
            "cpu utilization is 45%–67% (up to 3359m in all); scales up from 3360m in all, down \
             at 44% or below"
        ),
        "{}",
        v["decision"]["summary"]
    );
}

/// The status says the controller kept 4 at these same values (its currentMetrics match the
/// capture): a memory hpacalc does not see held it, so both outcomes are given, first in WHY.
#[test]
fn a_count_the_status_kept_at_the_same_values_gives_both_outcomes() {
    let dir = "fixtures/kubectl/capture-time";
    let v = Test::new()
        .args(["--hpa", &format!("{dir}/hpa-held.yaml")])
        .args(["--pods", &format!("{dir}/pods.json")])
        .args(["--metrics", &format!("{dir}/top-low.txt")])
        .args(["-o", "json"])
        .json();
    assert_eq!(v["desiredReplicas"], 2);
    assert_eq!(v["statusComparison"]["reconciled"], "explained");
    let first = &v["diagnostics"][0];
    assert_eq!(first["code"], "StatusHeld", "{}", v["diagnostics"]);
    assert!(
        (first["message"].as_str().unwrap()).contains(
            "its memory held it (a higher recommendation in the downscale stabilization window)"
        ),
        "{first}"
    );
    assert!((v["decision"]["summary"].as_str().unwrap()).ends_with(
        "; or 4 if what held the count at the last sync still holds (the status says it kept 4)"
    ));
    // The same status against the capture at 75 %: the load rose since the last sync, whose 4
    // answered 20 %. What happens next is 6, and nothing contradicts it.
    let v = Test::new()
        .args(["--hpa", &format!("{dir}/hpa-held.yaml")])
        .args(["--pods", &format!("{dir}/pods.json")])
        .args(["--metrics", &format!("{dir}/top.txt")])
        .args(["-o", "json"])
        .json();
    assert_eq!(v["desiredReplicas"], 6);
    let c = &v["statusComparison"];
    assert_eq!(c["reconciled"], "explained");
    assert_eq!(
        c["explanation"],
        "The metrics moved since the last sync (cpu averageUtilization 20% in the status, 75% \
         here): status.desiredReplicas 4 answered the status's values, not these."
    );
    assert!(
        codes(&v).iter().all(|c| !c.starts_with("Status")),
        "{:?}",
        codes(&v)
    );
}

/// `--target`'s managedFields show Argo CD owning spec.replicas: each sync of it resets the
/// count, as `audit` finds it for a cluster.
#[test]
fn a_target_whose_replicas_another_manager_owns_is_named_for_one_hpa() {
    let dir = "fixtures/kubectl/capture-time";
    let v = capture_time(
        "hpa.yaml",
        &[
            "--target",
            &format!("{dir}/deploy-argocd.json"),
            "--now",
            "2026-11-29T15:00:00Z",
        ],
    );
    let d = (v["diagnostics"].as_array().unwrap().iter())
        .find(|d| d["code"] == "ReplicasFieldManaged")
        .unwrap_or_else(|| panic!("{:#}", v["diagnostics"]));
    assert_eq!(
        d["message"],
        format!(
            "Deployment api's spec.replicas is set by argocd-controller (managedFields), not by \
             the HPA controller: every apply of it resets the count the HPA set (read from \
             {dir}/deploy-argocd.json)"
        )
    );
    // The HPA controller's own write through the scale subresource is not another manager.
    let without = capture_time("hpa.yaml", &["--now", "2026-11-29T15:00:00Z"]);
    assert!(!crate::support::codes(&without).contains(&"ReplicasFieldManaged".to_string()));
}

/// A minute after start, pods Ready at 20 s and sampled since count as ready (`groupPods`):
/// their startup burst counts, and WHY says so; five minutes on, it does not.
#[test]
fn pods_ready_inside_the_cpu_initialization_period_are_named() {
    let at = |now: &str| capture_time("hpa.yaml", &["--now", now]);
    let early = at("2026-11-29T14:01:00Z");
    let d = (early["diagnostics"].as_array().unwrap().iter())
        .find(|d| d["code"] == "ReadyDuringInitialization")
        .unwrap_or_else(|| panic!("{:#}", early["diagnostics"]));
    assert_eq!(
        d["message"],
        "4 pod(s) (api-6b8f4-2k9xq, api-6b8f4-7mzcd, api-6b8f4-p4hjw and 1 more) became Ready \
         inside the cpu initialization period (5m from their start) and were sampled since: the \
         controller counts their cpu, a startup burst included"
    );
    assert_eq!(early["desiredReplicas"], 6);
    let later = at("2026-11-29T14:06:00Z");
    assert!(!crate::support::codes(&later).contains(&"ReadyDuringInitialization".to_string()));
}

#[test]
fn a_pod_list_with_other_workloads_needs_the_selector() {
    let all = [
        "--hpa",
        HPA,
        "--pods",
        "fixtures/kubectl/pods-all.json",
        "--metrics",
        METRICS,
        "--custom-metrics",
        CUSTOM,
    ];
    let v = json_output(&all);
    let overlap = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "SelectorOverlap")
        .expect("a SelectorOverlap diagnostic");
    assert!(
        overlap["message"].as_str().unwrap().contains(
            "1 pod(s) under the selector are not owned by Deployment/web: worker-5f6d8b-x7k2m (ReplicaSet/worker-5f6d8b)"
        ),
        "{overlap}"
    );
    assert_eq!(v["metrics"][0]["errorReason"], "FailedGetResourceMetric");
    assert!(
        v["metrics"][0]["error"]
            .as_str()
            .unwrap()
            .contains("missing request for cpu in container app of Pod worker-5f6d8b-x7k2m"),
        "{}",
        v["metrics"][0]["error"]
    );
    // The pod without a request is the other workload's: the fix names it, checked forward
    // without it (the count the target's selector alone gives), not a request.
    let missing = (v["diagnostics"].as_array().unwrap().iter())
        .find(|d| d["code"] == "MissingRequest")
        .unwrap();
    let fix = missing["fix"].as_str().unwrap();
    assert!(
        fix.starts_with(
            "Pod worker-5f6d8b-x7k2m is owned by ReplicaSet/worker-5f6d8b, not by the target, yet \
             the HPA's selector matches it"
        ),
        "{fix}"
    );
    let selected = json_output(&[&all[..], &["-l", "app=web", "-n", "shop"]].concat());
    let count = selected["desiredReplicas"].as_i64().unwrap();
    assert!(
        fix.contains(&format!("→ {count} replicas")),
        "{count}: {fix}"
    );
    assert_eq!(decision(&selected), decision(&kubectl_form(&[])));
    let by_set = json_output(&[&all[..], &["--selector", "app in (web), !job"]].concat());
    assert_eq!(decision(&by_set), decision(&selected));
}

#[test]
fn metrics_for_pods_not_in_the_list_are_counted_where_the_controller_counts_them() {
    let plain = kubectl_form(&[]);
    let v = json_output(&[
        "--hpa",
        HPA,
        "--pods",
        PODS,
        "--metrics",
        "fixtures/kubectl/metrics-extra.json",
        "--custom-metrics",
        CUSTOM,
    ]);
    let cpu = &v["metrics"][0];
    // Skipped by the utilization (no request) ...
    assert_eq!(
        cpu["currentUtilization"],
        plain["metrics"][0]["currentUtilization"]
    );
    // ... but one more sample in the recount.
    assert_eq!(cpu["recount"]["metricsCount"], 6);
    assert_eq!(plain["metrics"][0]["recount"]["metricsCount"], 5);
    let noted = v["assumptions"].as_array().unwrap().iter().any(|a| {
        a.as_str()
            .unwrap()
            .contains("samples for 1 pod(s) not in the pod list (web-7d4b9c-zz4np)")
    });
    assert!(noted, "{}", v["assumptions"]);
}

#[test]
fn a_keda_external_metric_from_the_api_equals_the_flag() {
    let hpa = "fixtures/kubectl/keda-hpa.yaml";
    let from_api = json_output(&[
        "--hpa",
        hpa,
        "--external-metrics",
        "fixtures/kubectl/external-metrics.json",
    ]);
    let from_flag = json_output(&[
        "--hpa",
        hpa,
        "--metric-value",
        "s0-rabbitmq-worker_tasks=137",
        "--now",
        "2026-11-29T14:59:56Z",
    ]);
    assert_eq!(decision(&from_api), decision(&from_flag));
    assert_eq!(from_api["desiredReplicas"], 7);
    assert_eq!(
        from_api["approximation"], false,
        "AverageValue reads no pods"
    );
    assert_eq!(from_api["statusComparison"]["matches"], true);
    // KEDA labels the HPAs it generates: the 0↔1 step and the metric are KEDA's.
    let keda = from_api["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "KedaManaged")
        .expect("a KedaManaged diagnostic");
    assert_eq!(keda["severity"], "info");
    assert!(
        keda["message"]
            .as_str()
            .unwrap()
            .contains("generated by the KEDA ScaledObject worker")
    );
    let plain = json_output(&[
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pods",
        "fixtures/samples/web-cpu.csv",
    ]);
    assert!(
        plain["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["code"] != "KedaManaged")
    );
}

#[test]
fn the_status_alone_gives_an_approximation_compared_with_the_status() {
    let v = json_output(&["--hpa", HPA, "--now", CAPTURED]);
    assert_eq!(v["approximation"], true);
    assert_eq!(v["metrics"][0]["currentUtilization"], 89);
    assert_eq!(v["metrics"][0]["currentAverageValue"], "537m");
    assert_eq!(v["metrics"][1]["currentAverageValue"], "96666m");
    // The status hides the unready and missing pods whose recount keeps 5 replicas: found
    // forward, the controller's 5 is the answer and 8 the outcome once every pod reports.
    assert_eq!(v["desiredReplicas"], 5);
    assert_eq!(
        v["otherOutcomes"],
        serde_json::json!([{
            "replicas": 8,
            "when": "once every pod is ready and reporting",
            "settle": "pass --pods and --metrics"
        }])
    );
    let c = &v["statusComparison"];
    assert_eq!(c["reconciled"], "reproduced");
    assert_eq!(v["diagnostics"][0]["code"], "StatusHiddenPods");
    assert!(
        v["decision"]["summary"]
            .as_str()
            .unwrap()
            .starts_with("approximation from the HPA's status: ")
    );
    let table = hpacalc(&["--hpa", HPA, "--now", CAPTURED]);
    let text = stdout(&table);
    assert!(
        text.contains("status.desiredReplicas 5, computed 5: same")
            && text.contains("StatusHiddenPods"),
        "{text}"
    );
}

#[test]
fn the_status_comparison_says_when_values_differ() {
    let agreeing = kubectl_form(&[]);
    assert_eq!(agreeing["statusComparison"]["matches"], true);
    assert_eq!(
        agreeing["statusComparison"]["likelyCauses"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    // A later capture: both ready pods now use more cpu.
    let dir = temp_dir("kubectl-later");
    let later = std::fs::read_to_string(root().join(METRICS))
        .unwrap()
        .replace("519873402n", "619873402n");
    let path = dir.join("metrics-later.json");
    std::fs::write(&path, later).unwrap();
    let v = kubectl_form(&[]);
    let differing = json_output(&[
        "--hpa",
        HPA,
        "--pods",
        PODS,
        "--metrics",
        path.to_str().unwrap(),
        "--custom-metrics",
        CUSTOM,
    ]);
    let c = &differing["statusComparison"];
    assert_eq!(c["matches"], false);
    let cpu = &c["metrics"][0];
    assert_eq!(
        (
            &cpu["field"],
            &cpu["status"],
            &cpu["computed"],
            &cpu["matches"]
        ),
        (
            &Value::from("averageUtilization"),
            &Value::from("89%"),
            &Value::from("97%"),
            &Value::from(false)
        )
    );
    assert!(
        c["likelyCauses"][0]
            .as_str()
            .unwrap()
            .starts_with("Stale or mixed capture")
    );
    assert_eq!(v["statusComparison"]["matches"], true);
}

#[test]
fn bad_kubectl_input_names_the_file_place_and_problem() {
    // The bad captures of the corpus (fixtures/malformed/CASES.tsv).
    check_malformed(&[
        "kubectl-truncated.json",
        "samples-pods-other-namespace.json",
        "metrics-top-bad-column.txt",
    ]);
    let cases: &[(&[&str], &str)] = &[
        (
            &["--pods", PODS, "--custom-metrics", METRICS],
            "error: fixtures/kubectl/metrics.json: kind: found kind PodMetricsList, expected a \
             MetricValueList",
        ),
        (
            &[
                "--pods",
                PODS,
                "--external-metrics",
                "fixtures/kubectl/top.txt",
            ],
            "error: fixtures/kubectl/top.txt:1:1: found text that is neither JSON nor YAML",
        ),
        (
            &["-n", "prod"],
            "error: --namespace: found \"prod\", expected the HPA's namespace \"shop\"",
        ),
        (
            &["--pods", PODS, "-l", "app in web"],
            "error: --selector: found \"web\" after app in/notin, expected \"(\"",
        ),
        (
            &["--pods", PODS, "-l", "app=api"],
            "error: --selector: found no pod of fixtures/kubectl/pods.json matching app=api (6 \
             pod(s) in namespace shop)",
        ),
    ];
    for (extra, message) in cases {
        Test::new()
            .args(["--hpa", HPA])
            .args(*extra)
            .fails(1)
            .stderr_starts_with(*message)
            .run();
    }
    Test::new()
        .args(["--hpa", HPA, "--metrics", METRICS])
        .status(2)
        .stderr_contains("--metrics needs --pods")
        .run();
}

#[test]
fn installed_as_kubectl_hpacalc_it_calls_itself_kubectl_hpacalc() {
    let dir = temp_dir("plugin");
    let plugin = dir.join(format!("kubectl-hpacalc{}", std::env::consts::EXE_SUFFIX));
    let _ = std::fs::remove_file(&plugin);
    std::fs::copy(env!("CARGO_BIN_EXE_hpacalc"), &plugin).expect("copy the binary");
    let run = |args: &[&str]| Test::new().program(&plugin).args(args);
    run(&["--help"])
        .status(0)
        .stdout_contains("Usage: kubectl hpacalc [OPTIONS]")
        .run();
    run(&["--hpa", HPA, "--no-such-flag"])
        .status(2)
        .stderr_contains("Usage: kubectl hpacalc")
        .run();
    run(&["--hpa", HPA, "--pods", PODS, "-o", "json"])
        .status(0)
        .run();
    // The plain binary keeps its own name.
    Test::new()
        .arg("--help")
        .stdout_contains("Usage: hpacalc [OPTIONS]")
        .run();
}

#[test]
fn the_readme_on_call_commands_run_on_the_fixtures() {
    let readme = std::fs::read_to_string(root().join("docs/on-call.md")).expect("docs/on-call.md");
    let section = readme
        .split("\n## Offline: from files (air-gapped)")
        .nth(1)
        .expect("docs/on-call.md has an \"Offline\" section");
    let section = section.split("\n## ").next().unwrap_or(section);
    let commands: Vec<&str> = section
        .lines()
        .filter_map(|l| l.trim().strip_prefix("$ hpacalc "))
        .collect();
    assert!(commands.len() >= 3, "{commands:?}");
    for command in commands {
        let command = command.split(" | ").next().unwrap_or(command);
        let args: Vec<&str> = command.split_whitespace().collect();
        let o = hpacalc(&args);
        assert_eq!(o.status.code(), Some(0), "{command}: {}", stderr(&o));
    }
}

#[test]
fn the_krew_manifest_template_installs_the_binary_as_kubectl_hpacalc() {
    let text = std::fs::read_to_string(root().join("contrib/krew/hpacalc.yaml")).unwrap();
    let manifest: Value = serde_yaml::from_str(&text).expect("the template is YAML");
    assert_eq!(manifest["kind"], "Plugin");
    assert_eq!(manifest["metadata"]["name"], "hpacalc");
    let platforms = manifest["spec"]["platforms"].as_array().unwrap();
    assert!(platforms.len() >= 4);
    for p in platforms {
        let bin = p["bin"].as_str().unwrap();
        assert!(bin.starts_with("kubectl-hpacalc"), "{bin}");
        assert!(
            p["files"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["to"] == bin),
            "{p}"
        );
    }
}

#[test]
fn the_scale_file_gives_the_current_count_and_the_selector() {
    // kubectl get --raw /apis/apps/v1/namespaces/shop/deployments/web/scale: its selector keeps
    // the web pods of the whole-namespace capture, as -l app=web does.
    let common = [
        "--hpa",
        HPA,
        "--pods",
        "fixtures/kubectl/pods-all.json",
        "--metrics",
        METRICS,
        "--custom-metrics",
        CUSTOM,
    ];
    let mut with_scale = common.to_vec();
    with_scale.extend(["--scale", "fixtures/kubectl/scale.json"]);
    let mut with_selector = common.to_vec();
    with_selector.extend(["-l", "app=web", "--current-replicas", "5"]);
    let scale = json_output(&with_scale);
    assert_eq!(decision(&scale), decision(&json_output(&with_selector)));
    assert!(
        scale["assumptions"].as_array().unwrap().iter().any(|a| a
            == "Current replicas: 5, the target's spec.replicas in fixtures/kubectl/scale.json."),
        "{:#}",
        scale["assumptions"]
    );
}

/// validateAndParseSelector (horizontal.go): a scale without a selector, or with one that does
/// not parse, is the controller's InvalidSelector: no metric is read and the count is kept, never
/// every pod of the namespace.
#[test]
fn a_scale_without_a_usable_selector_is_invalid_selector_and_keeps_the_count() {
    let dir = temp_dir("scale-selector");
    let scale = std::fs::read_to_string("fixtures/kubectl/scale.json").unwrap();
    for (name, replace, message) in [
        (
            "none",
            ",\n        \"selector\": \"app=web\"",
            "the HPA target's scale is missing a selector",
        ),
        (
            "bad",
            "\"selector\": \"app=web\"",
            "couldn't convert selector into a corresponding internal selector object",
        ),
    ] {
        let text = if name == "bad" {
            scale.replace(replace, "\"selector\": \"app in (web\"")
        } else {
            scale.replace(replace, "")
        };
        assert_ne!(text, scale, "{name}: the fixture changed");
        let file = dir.join(format!("{name}.json"));
        std::fs::write(&file, text).unwrap();
        let v = json_output(&[
            "--hpa",
            HPA,
            "--pods",
            "fixtures/kubectl/pods-all.json",
            "--metrics",
            METRICS,
            "--custom-metrics",
            CUSTOM,
            "--scale",
            file.to_str().unwrap(),
        ]);
        assert_eq!(v["desiredReplicas"], 5, "{name}");
        let active = (v["conditions"].as_array().unwrap().iter())
            .find(|c| c["type"] == "ScalingActive")
            .unwrap();
        assert_eq!(
            (&active["status"], &active["reason"]),
            (
                &serde_json::json!("False"),
                &serde_json::json!("InvalidSelector")
            ),
            "{name}"
        );
        assert!(
            active["message"].as_str().unwrap().starts_with(message),
            "{name}: {active}"
        );
    }
}

/// docs/on-call.md's inference examples are the real output: each `console` block of the
/// section "How hpacalc infers what the inputs hide" (and the one just before it) is run, and
/// every run of lines between `...` elisions must appear in its stdout as printed.
#[test]
fn the_on_call_inference_examples_are_the_real_output() {
    let doc = std::fs::read_to_string(root().join("docs/on-call.md")).unwrap();
    let start = doc
        .find("The HPA alone already says something")
        .expect("docs/on-call.md's status-only example");
    let end = doc[start..]
        .find("Other captures work the same way")
        .map_or(doc.len(), |e| start + e);
    let mut ran = 0;
    for block in doc[start..end].split("```console\n").skip(1) {
        let block = block.split("```").next().unwrap();
        let mut lines = block.lines();
        let command = lines.next().unwrap().strip_prefix("$ hpacalc ").unwrap();
        let out = Test::new().args(command.split_whitespace()).run();
        let stdout = String::from_utf8(out.stdout).unwrap();
        let rest: Vec<&str> = lines.collect();
        for chunk in rest.split(|l| *l == "...").filter(|c| !c.is_empty()) {
            let chunk = chunk.join("\n");
            assert!(
                stdout.contains(&chunk),
                "docs/on-call.md's output of `hpacalc {command}` is not the real output:\n\
                 {chunk}\n--- real ---\n{stdout}"
            );
        }
        ran += 1;
    }
    assert!(ran >= 2, "only {ran} example(s) ran");
}
