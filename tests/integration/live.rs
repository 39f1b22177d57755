//! Live mode (issue 12) against the test API server of `apiserver.rs`: the live answer equals the
//! offline answer on the saved capture and on the fixtures it serves; custom resources as
//! targets; metrics APIs that are missing or unavailable; every error as one line with exit 1;
//! `--watch`; `hpacalc rbac`; `hpacalc audit -A` / `-n` equal to the offline audit of the same
//! objects. Only 127.0.0.1 is ever reached.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::apiserver::{ApiServer, Fixture, foreign_ca_pem, synthetic_metrics, synthetic_pod};
use crate::support::{Test, codes, decision, hpacalc, json_of, root, stderr, stdout, temp_dir};

pub(crate) fn server() -> &'static ApiServer {
    static SERVER: OnceLock<ApiServer> = OnceLock::new();
    SERVER.get_or_init(|| ApiServer::start(Fixture::kubectl()))
}

/// hpacalc in `dir` with only the given kubeconfig in reach (no KUBECONFIG, no ~/.kube, not in
/// a pod).
pub(crate) fn run_in(dir: &Path, args: &[&str], kubeconfig: Option<&Path>) -> Test {
    let mut test = Test::new()
        .args(args)
        .current_dir(dir)
        .env("HOME", &server().dir)
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .stdin_null();
    // HPACALC_BIN runs another build (the release binary, for the benchmark).
    if let Some(bin) = std::env::var_os("HPACALC_BIN") {
        test = test.program(bin);
    }
    if let Some(k) = kubeconfig {
        test = test.arg("--kubeconfig").arg(k);
    }
    test
}

pub(crate) fn live(args: &[&str]) -> Test {
    run_in(&root(), args, Some(&server().good_kubeconfig()))
}

fn live_json(args: &[&str]) -> Value {
    live(args).args(["-o", "json"]).schema("report").json()
}

/// Exit 1, nothing on stdout and one line on stderr, which it returns.
pub(crate) fn fail_line(test: Test) -> String {
    stderr(&test.status(1).stdout("").stderr_lines(1).run())
}

/// The controller's decision and the steps to it: live mode and the offline run of its capture
/// read the same forms, so even the steps agree.
fn answer(v: &Value) -> Value {
    serde_json::json!({"decision": decision(v), "steps": v["steps"]})
}

pub(crate) fn save_dir(name: &str) -> PathBuf {
    let dir = server().path(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The files of a saved capture of `web` (its offline command's inputs).
const CAPTURE_FILES: [&str; 7] = [
    "hpa.yaml",
    "scale.json",
    "target.json",
    "pods.json",
    "metrics.json",
    "custom-metrics.json",
    "events.json",
];

/// The offline command `--save` wrote to `command.txt`, and its report when run in `dir`.
fn run_saved(dir: &Path) -> (String, Value) {
    let command = std::fs::read_to_string(dir.join("command.txt")).unwrap();
    let line = command.lines().find(|l| l.starts_with("hpacalc ")).unwrap();
    let args: Vec<&str> = line.split_whitespace().skip(1).collect();
    let report = run_in(dir, &args, None).schema("report").json();
    (line.to_string(), report)
}

#[test]
fn the_live_answer_is_the_offline_answer_on_the_saved_capture() {
    let dir = save_dir("incident-4711");
    let live = live_json(&["web", "-n", "shop", "--save", dir.to_str().unwrap()]);
    assert_eq!(live["hpa"], "shop/web");
    assert_eq!(live["currentReplicas"], 5);
    for file in CAPTURE_FILES {
        assert!(dir.join(file).exists(), "{file} saved");
    }
    let (line, offline) = run_saved(&dir);
    assert!(
        line.contains("--scale scale.json")
            && line.contains("--target target.json")
            && line.contains("--events events.json")
            && line.contains("--now "),
        "{line}"
    );
    assert_eq!(answer(&live), answer(&offline));
    let assumptions = live["assumptions"].as_array().unwrap();
    assert!(
        assumptions[0]
            .as_str()
            .unwrap()
            .starts_with(&format!("Live: read from context test at {}", server().url)),
        "{assumptions:?}"
    );
}

#[test]
fn the_live_answer_is_the_offline_answer_on_the_fixtures_it_serves() {
    let live = live_json(&["web"]);
    let now = live["now"].as_str().unwrap();
    let offline = Test::new()
        .args([
            "--hpa",
            "fixtures/kubectl/hpa.yaml",
            "--pods",
            "fixtures/kubectl/pods.json",
            "--metrics",
            "fixtures/kubectl/metrics.json",
            "--custom-metrics",
            "fixtures/kubectl/custom-metrics.json",
            "-l",
            "app=web",
            "--current-replicas",
            "5",
            "--now",
            now,
            "-o",
            "json",
        ])
        .schema("report")
        .json();
    for key in ["desiredReplicas", "metrics", "decision", "conditions"] {
        assert_eq!(live[key], offline[key], "{key}");
    }
}

#[test]
fn requests_follow_the_controller_and_custom_metrics_fall_back_to_v1beta1() {
    live_json(&["web", "-n", "shop"]);
    let requests = server().requests();
    let has = |p: &str| requests.iter().any(|r| r.starts_with(p));
    assert!(has("/apis/apps/v1/namespaces/shop/deployments/web/scale"));
    assert!(has(
        "/api/v1/namespaces/shop/pods?labelSelector=app%3Dweb&limit=500"
    ));
    assert!(has(
        "/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods?labelSelector=app%3Dweb"
    ));
    assert!(has(
        "/apis/custom.metrics.k8s.io/v1beta2/namespaces/shop/pods/*/http_requests_per_second"
    ));
    assert!(has(
        "/apis/custom.metrics.k8s.io/v1beta1/namespaces/shop/pods/*/http_requests_per_second"
    ));
}

#[test]
fn a_custom_resource_target_is_scaled_through_its_scale_subresource() {
    // The Rollout's namespace has no metrics.k8s.io: cpu fails, the Pods metric still counts.
    let v = live_json(&["canary", "-n", "rollouts"]);
    assert_eq!(v["target"], "Rollout/canary");
    assert!(
        codes(&v).contains(&"MetricsApiUnavailable".to_string()),
        "{v:#}"
    );
    let cpu = &v["metrics"][0];
    assert_eq!(
        cpu["error"],
        "failed to get cpu resource metric value: failed to get cpu utilization: unable to get \
         metrics for resource cpu: unable to fetch \
         metrics from resource metrics API: the server could not find the requested resource \
         (get pods.metrics.k8s.io)"
    );
    assert_eq!(cpu["errorReason"], "FailedGetResourceMetric");
    assert!(
        v["metrics"][1]["proposedReplicas"].is_number(),
        "{:#}",
        v["metrics"][1]
    );
}

#[test]
fn a_metrics_api_answering_503_is_the_controllers_failed_metric_not_an_error() {
    let dir = save_dir("nometrics");
    let started = Instant::now();
    let v = live_json(&[
        "web",
        "-n",
        "nometrics",
        "--request-timeout",
        "5s",
        "--save",
        dir.to_str().unwrap(),
    ]);
    assert!(started.elapsed() < Duration::from_secs(5), "no retries");
    assert!(
        v["metrics"][0]["error"].as_str().unwrap().ends_with(
            "the server is currently unable to handle the request (get pods.metrics.k8s.io)"
        ),
        "{:#}",
        v["metrics"][0]
    );
    // The failed answer is part of the capture: offline gives the same answer.
    let (_, offline) = run_saved(&dir);
    assert_eq!(answer(&v), answer(&offline));
    let d = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "MetricsApiUnavailable")
        .expect("MetricsApiUnavailable");
    assert!(d["message"].as_str().unwrap().contains("(503)"), "{d:#}");
    let reasons: Vec<&str> = v["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["reason"].as_str())
        .collect();
    assert!(
        reasons.contains(&"ValidMetricFound"),
        "the Pods metric counts: {reasons:?}"
    );
}

#[test]
fn a_custom_metrics_api_unavailable_or_missing_fails_its_metrics_with_the_controllers_text() {
    let pods_error = |ns: &str| {
        let dir = save_dir(ns);
        let v = live_json(&["web", "-n", ns, "--save", dir.to_str().unwrap()]);
        let pods = &v["metrics"][1];
        assert_eq!(pods["errorReason"], "FailedGetPodsMetric", "{pods:#}");
        assert!(
            v["metrics"][0]["proposedReplicas"].is_number(),
            "cpu still counts"
        );
        assert!(codes(&v).contains(&"MetricsApiUnavailable".to_string()));
        // The API's answer is part of the capture: offline gives the same answer.
        let (line, offline) = run_saved(&dir);
        assert!(
            line.contains("--custom-metrics custom-metrics-error.json"),
            "{line}"
        );
        assert_eq!(answer(&v), answer(&offline));
        pods["error"].as_str().unwrap().to_string()
    };
    // As the controller's event says it (fixtures/paste/events.yaml, from a real cluster).
    assert_eq!(
        pods_error("nocustom"),
        "failed to get pods metric value: unable to get metric http_requests_per_second: unable \
         to fetch metrics from custom metrics API: the server is currently unable to handle the \
         request (get pods.custom.metrics.k8s.io *)"
    );
    assert_eq!(
        pods_error("nocustom404"),
        "failed to get pods metric value: unable to get metric http_requests_per_second: unable \
         to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) \
         registered"
    );
}

#[test]
fn nodes_from_the_cluster_feed_the_nodes_section_as_the_files_do() {
    let dir = save_dir("nodes");
    let live = live_json(&[
        "web",
        "--nodes-from-cluster",
        "--save",
        dir.to_str().unwrap(),
    ]);
    assert!(live["nodes"].is_object(), "{:#}", live["nodes"]);
    assert!(dir.join("nodes.json").exists() && dir.join("all-pods.json").exists());
    let (line, offline) = run_saved(&dir);
    assert!(
        line.contains("--nodes nodes.json --all-pods all-pods.json"),
        "{line}"
    );
    assert_eq!(live["nodes"], offline["nodes"]);
    assert_eq!(answer(&live), answer(&offline));
}

#[test]
fn kedas_external_metric_is_read_with_the_metric_selector() {
    let dir = save_dir("keda");
    let live = live_json(&["keda-hpa-worker", "--save", dir.to_str().unwrap()]);
    let requests = server().requests();
    assert!(requests.iter().any(|r| r
        == "/apis/external.metrics.k8s.io/v1beta1/namespaces/shop/s0-rabbitmq-worker_tasks?labelSelector=scaledobject.keda.sh%2Fname%3Dworker"));
    assert_eq!(
        live["metrics"][0]["currentAverageValue"], "27400m",
        "137 over the scale's 5 replicas: {:#}",
        live["metrics"][0]
    );
    let (line, offline) = run_saved(&dir);
    assert!(
        line.contains("--external-metrics external-metrics.json"),
        "{line}"
    );
    assert_eq!(answer(&live), answer(&offline));
}

/// The AbleToScale condition of a report.
fn able_to_scale(report: &Value) -> Value {
    (report["conditions"].as_array().unwrap().iter())
        .find(|c| c["type"] == "AbleToScale")
        .cloned()
        .unwrap()
}

// reconcileAutoscaler (horizontal.go): a scale read that fails is FailedGetScale, an answer.
#[test]
fn a_target_without_a_scale_subresource_is_failed_get_scale() {
    let report = live_json(&["daemon", "-n", "shop"]);
    let able = able_to_scale(&report);
    assert_eq!(
        (&able["status"], &able["reason"]),
        (&"False".into(), &"FailedGetScale".into())
    );
    assert_eq!(
        able["message"],
        "the HPA controller was unable to get the target's current scale: the server could not \
         find the requested resource"
    );
}

#[test]
fn a_forbidden_read_names_the_verb_resource_namespace_and_rule() {
    let err = fail_line(live(&["web", "-n", "locked"]));
    for part in [
        "forbidden (403): cannot get horizontalpodautoscalers.autoscaling in namespace locked",
        "apiGroups: [\"autoscaling\"], resources: [\"horizontalpodautoscalers\"], verbs: [\"get\"]",
    ] {
        assert!(err.contains(part), "{part}: {err}");
    }
}

#[test]
fn an_hpa_that_is_not_there_lists_the_namespaces_hpas() {
    let err = fail_line(live(&["wbe", "-n", "shop"]));
    assert!(
        err.contains("HorizontalPodAutoscaler \"wbe\" not found in namespace shop")
            && err.contains("its HPAs: web, orphan"),
        "{err}"
    );
}

#[test]
fn a_target_that_is_not_there_is_failed_get_scale_and_replays_from_its_capture() {
    let dir = save_dir("orphan-capture");
    let report = live_json(&["orphan", "-n", "shop", "--save", dir.to_str().unwrap()]);
    let able = able_to_scale(&report);
    assert_eq!(able["reason"], "FailedGetScale");
    // The test server answers this 404 without a Status: client-go's message for it.
    assert_eq!(
        able["message"],
        "the HPA controller was unable to get the target's current scale: the server could not \
         find the requested resource (get deployments/scale.apps)"
    );
    // The capture keeps the API's answer as scale.json; offline, it is the same answer.
    let (line, offline) = run_saved(&dir);
    assert!(
        line.contains("--scale scale.json") && !line.contains("--pods"),
        "{line}"
    );
    assert_eq!(answer(&report), answer(&offline));
}

#[test]
fn a_slow_server_times_out_within_the_request_timeout_and_is_named() {
    let started = Instant::now();
    let err = fail_line(live(&["web", "-n", "slow", "--request-timeout", "1s"]));
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(
        err.contains(&format!("the API server {} did not answer", server().url))
            && err.contains("within 1s (--request-timeout)"),
        "{err}"
    );
}

#[test]
fn bad_credentials_tls_and_unreachable_servers_are_one_line_each() {
    let s = server();
    let bad_token = s.kubeconfig("bad-token", "wrong", &s.ca_pem.clone(), &s.url.clone());
    let err = fail_line(run_in(&root(), &["web"], Some(&bad_token)));
    assert!(
        err.contains("401 Unauthorized") && err.contains("context test"),
        "{err}"
    );

    let foreign = s.kubeconfig(
        "foreign-ca",
        "test-token",
        &foreign_ca_pem(),
        &s.url.clone(),
    );
    let err = fail_line(run_in(&root(), &["web"], Some(&foreign)));
    assert!(
        err.contains(&format!("TLS with the API server {} failed", s.url)),
        "{err}"
    );

    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let closed = format!("https://127.0.0.1:{port}");
    let gone = s.kubeconfig("closed", "test-token", &s.ca_pem.clone(), &closed);
    let err = fail_line(run_in(&root(), &["web"], Some(&gone)));
    assert!(
        err.contains(&format!("cannot reach the API server {closed}")),
        "{err}"
    );
}

#[test]
fn no_kubeconfig_and_an_unknown_context_are_one_line_each() {
    let err = fail_line(run_in(&root(), &["web"], None));
    assert!(
        err.contains("no kubeconfig: pass --kubeconfig, set KUBECONFIG"),
        "{err}"
    );
    let err = fail_line(live(&["web", "--context", "prod"]));
    assert!(
        err.contains("context \"prod\" not found in the kubeconfig (its contexts: test)"),
        "{err}"
    );
}

/// KUBECONFIG is a list; as kubectl does, a file of it that does not exist is skipped.
#[test]
fn kubeconfig_comes_from_the_kubeconfig_variable_too() {
    let list = std::env::join_paths([
        std::path::PathBuf::from("/nonexistent/kubeconfig"),
        server().good_kubeconfig(),
    ])
    .unwrap();
    let v = Test::new()
        .args(["web", "-o", "json"])
        .env("HOME", &server().dir)
        .env("KUBECONFIG", &list)
        .env_remove("KUBERNETES_SERVICE_HOST")
        .schema("report")
        .json();
    assert_eq!(v["hpa"], "shop/web", "the context's namespace");
}

#[test]
fn watch_prints_one_json_object_per_evaluation() {
    let o = live(&[
        "web",
        "--watch",
        "--watch-count",
        "2",
        "--sync-period",
        "1s",
        "-o",
        "json",
    ])
    .status(0)
    .run();
    let text = stdout(&o);
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("one object per line"))
        .collect();
    for line in &lines {
        crate::schema::assert_fits("watchLine", line);
    }
    assert_eq!(lines.len(), 2);
    assert!(lines[1]["now"].as_str() > lines[0]["now"].as_str());
    // From the second evaluation the memory is the controller's, not the steady assumption.
    let steady = |v: &Value| {
        v["assumptions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a.as_str().unwrap().starts_with("No --history"))
    };
    assert!(!steady(&lines[0]) && !steady(&lines[1]));
    // The first evaluation starts from the memory of the HPA's events, as a single run does.
    let from_events = |v: &Value| {
        v["sources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["fact"] == "history" && s["form"] == "live")
    };
    assert!(from_events(&lines[0]), "{:#}", lines[0]["sources"]);
}

/// Every fact the API server answered names it, by the kubeconfig context and the server's URL;
/// no source names a file of the capture, which lives in memory (with `--save` too). A
/// `--history` file given beside it stays the file it is.
#[test]
fn a_live_answers_sources_name_the_context_and_the_server_not_files() {
    let dir = save_dir("sources");
    let saved = ["--save", dir.to_str().unwrap()];
    let history = ["--history", "fixtures/history/steady.csv"];
    for args in [&[][..], &saved[..], &history[..]] {
        let mut all = vec!["web", "-n", "shop"];
        all.extend(args);
        let v = live_json(&all);
        let sources = v["sources"].as_array().unwrap();
        for fact in [
            "hpa",
            "status",
            "pods",
            "resourceMetrics",
            "customMetrics",
            "now",
        ] {
            let s = (sources.iter())
                .find(|s| s["fact"] == fact)
                .unwrap_or_else(|| panic!("no {fact} in {sources:#?}"));
            assert_eq!(s["form"], "live", "{s}");
            assert_eq!(s["context"], "test", "{s}");
            assert_eq!(s["server"], server().url.as_str(), "{s}");
            assert_eq!(s["file"], Value::Null, "{s}");
        }
        // The HPA's events are its memory: read from the server too.
        assert!(
            (sources.iter()).any(|s| s["fact"] == "history" && s["form"] == "live"),
            "{sources:#?}"
        );
        let text = v["sources"].to_string();
        let tmp = std::env::temp_dir();
        let elsewhere = ["--now", dir.to_str().unwrap(), tmp.to_str().unwrap()];
        for file in CAPTURE_FILES.iter().chain(&elsewhere) {
            assert!(!text.contains(file), "{file} in {text}");
        }
        let files: Vec<&Value> = (sources.iter()).filter(|s| !s["file"].is_null()).collect();
        if args == &history[..] {
            let csv = serde_json::json!({"fact": "history", "form": "history CSV",
                "file": "fixtures/history/steady.csv", "context": null, "server": null});
            assert_eq!(files, [&csv], "{sources:#?}");
        } else {
            assert!(files.is_empty(), "{sources:#?}");
        }
    }
}

#[test]
fn the_hpas_events_are_its_history_as_the_events_file_is() {
    let v = live_json(&["web", "-n", "shop"]);
    assert!(
        v["sources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["fact"] == "history" && s["form"] == "live"),
        "{:#}",
        v["sources"]
    );
    // The controller's Warning events are diagnostics, as with --events.
    assert!(
        codes(&v).contains(&"ControllerReported".to_string()),
        "{:#}",
        v["diagnostics"]
    );
    let requests = server().requests();
    assert!(requests.iter().any(|r| r.starts_with(
        "/apis/events.k8s.io/v1/namespaces/shop/events?fieldSelector=regarding.kind%3DHorizontalPodAutoscaler%2Cregarding.name%3Dweb&limit=500"
    )), "{requests:?}");
}

#[test]
fn events_are_read_from_core_v1_where_events_k8s_io_is_not_served() {
    let mut fixture = Fixture::kubectl();
    fixture.events_v1 = false;
    let s = ApiServer::start(fixture);
    let dir = s.path("core-events");
    let live = run_in(
        &root(),
        &["web", "-o", "json", "--save", dir.to_str().unwrap()],
        Some(&s.good_kubeconfig()),
    )
    .json();
    assert!(s.requests().iter().any(|r| r.starts_with(
        "/api/v1/namespaces/shop/events?fieldSelector=involvedObject.kind%3DHorizontalPodAutoscaler%2CinvolvedObject.name%3Dweb"
    )));
    let events = std::fs::read_to_string(dir.join("events.json")).unwrap();
    assert!(events.contains("\"involvedObject\""), "{events}");
    // Both versions give the same memory: the same answer as the events.k8s.io/v1 server's.
    let (_, offline) = run_saved(&dir);
    assert_eq!(answer(&live), answer(&offline));
}

#[test]
fn the_api_servers_release_gives_the_rules_and_its_clock_the_time() {
    let mut fixture = Fixture::kubectl();
    fixture.version = Some("v1.33.2-eks-4b1f2a3");
    let s = ApiServer::start(fixture);
    let dir = s.path("server-version");
    let kubeconfig = s.good_kubeconfig();
    let live = run_in(
        &root(),
        &["web", "-o", "json", "--save", dir.to_str().unwrap()],
        Some(&kubeconfig),
    )
    .json();
    assert_eq!(live["kubeVersion"], "1.33");
    let said = |v: &Value, line: &str| {
        (v["assumptions"].as_array().unwrap().iter()).any(|a| a.as_str().unwrap().contains(line))
    };
    assert!(
        said(
            &live,
            "Live: the API server is v1.33.2-eks-4b1f2a3: the rules of 1.33 apply."
        ),
        "{:#}",
        live["assumptions"]
    );
    assert!(said(&live, "by the API server's clock (its Date header)"));
    // The saved command repeats the release, so it gives the live answer.
    let command = std::fs::read_to_string(dir.join("command.txt")).unwrap();
    assert!(command.contains("--kube-version 1.33"), "{command}");
    let (_, offline) = run_saved(&dir);
    assert_eq!(answer(&live), answer(&offline));
    assert_eq!(offline["kubeVersion"], "1.33");
    // --kube-version wins over the server's.
    let given = run_in(
        &root(),
        &["web", "-o", "json", "--kube-version", "1.35"],
        Some(&kubeconfig),
    )
    .json();
    assert_eq!(given["kubeVersion"], "1.35");
    assert!(!said(&given, "Live: the API server is"));
}

#[test]
fn a_server_without_its_version_or_outside_the_known_releases_says_which_rules_apply() {
    for (version, kube, line) in [
        (
            None,
            "1.37",
            "Live: the API server did not say its version (/version): the rules of 1.37 apply; \
             pass --kube-version with the cluster's release.",
        ),
        (
            Some("v1.25.16"),
            "1.27",
            "Live: the API server is v1.25.16, outside the releases hpacalc knows (1.27–1.37): \
             the rules of the nearest, 1.27, apply.",
        ),
    ] {
        let mut fixture = Fixture::kubectl();
        fixture.version = version;
        let s = ApiServer::start(fixture);
        let v = run_in(&root(), &["web", "-o", "json"], Some(&s.good_kubeconfig())).json();
        assert_eq!(v["kubeVersion"], kube);
        assert!(
            (v["assumptions"].as_array().unwrap().iter()).any(|a| a == line),
            "{:#}",
            v["assumptions"]
        );
    }
}

#[test]
fn the_target_object_gives_ownership_and_rollout_state() {
    // A pod under the target's own selector that another workload owns: SelectorOverlap.
    let v = live_json(&["web", "-n", "overlap"]);
    let overlap = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "SelectorOverlap")
        .unwrap_or_else(|| panic!("{:#}", v["diagnostics"]));
    assert!(
        overlap["message"]
            .as_str()
            .unwrap()
            .contains("web-7d4b9c-2xkqp (ReplicaSet/api-5d9f8)"),
        "{overlap:#}"
    );
    assert!(
        !overlap["fix"].as_str().unwrap().contains("-l"),
        "{overlap:#}"
    );
    assert!(!codes(&live_json(&["web", "-n", "shop"])).contains(&"SelectorOverlap".to_string()));
    // A rollout: the Deployment has 6 replicas for the 3 it wants, all running.
    let dir = save_dir("rolling");
    let v = live_json(&["web", "-n", "rolling", "--save", dir.to_str().unwrap()]);
    assert!(
        codes(&v).contains(&"RolloutSurge".to_string()),
        "{:#}",
        v["diagnostics"]
    );
    let target: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("target.json")).unwrap()).unwrap();
    assert_eq!(target["kind"], "Deployment");
    assert_eq!(target["status"]["replicas"], 6);
    assert!(
        server()
            .requests()
            .iter()
            .any(|r| r == "/apis/apps/v1/namespaces/rolling/deployments/web")
    );
}

#[test]
fn watch_in_yaml_prints_one_document_per_evaluation() {
    let o = live(&[
        "web",
        "--watch",
        "--watch-count",
        "2",
        "--sync-period",
        "1s",
        "-o",
        "yaml",
    ])
    .status(0)
    .run();
    let docs: Vec<Value> = serde_yaml::Deserializer::from_str(&stdout(&o))
        .map(|d| serde::Deserialize::deserialize(d).unwrap())
        .collect();
    assert_eq!(docs.len(), 2);
    assert_eq!(docs[1]["hpa"], "shop/web");
}

#[test]
fn watch_tables_print_a_line_per_evaluation_and_the_report_when_it_changes() {
    let o = live(&[
        "web",
        "--watch",
        "--watch-count",
        "2",
        "--sync-period",
        "1s",
    ])
    .status(0)
    .run();
    let text = stdout(&o);
    eprintln!("{text}");
    let evaluations: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(" → ") && l.starts_with("20"))
        .collect();
    assert_eq!(evaluations.len(), 2, "{text}");
    assert_eq!(
        text.matches("PHASE").count(),
        1,
        "the full report once: {text}"
    );
}

#[test]
fn a_failing_call_is_reported_on_its_line_and_the_watch_goes_on() {
    let o = live(&[
        "web",
        "-n",
        "slow",
        "--request-timeout",
        "1s",
        "--watch",
        "--watch-count",
        "2",
        "--sync-period",
        "1s",
    ])
    .status(0)
    .run();
    let text = stdout(&o);
    let errors = text
        .lines()
        .filter(|l| l.contains("  error: the API server") && l.contains("did not answer"))
        .count();
    assert_eq!(errors, 2, "{text}");
}

#[test]
fn a_failing_call_in_json_is_an_error_line_that_fits_the_schema() {
    let o = live(&[
        "web",
        "-n",
        "slow",
        "--request-timeout",
        "1s",
        "--watch",
        "--watch-count",
        "1",
        "-o",
        "json",
    ])
    .status(0)
    .run();
    let text = stdout(&o);
    let line: Value = serde_json::from_str(text.trim_end()).expect("one object");
    crate::schema::assert_fits("watchLine", &line);
    assert!(
        line["error"].as_str().unwrap().contains("did not answer"),
        "{text}"
    );
    assert!(line["now"].is_string(), "{text}");
    assert_eq!(line.as_object().unwrap().len(), 2, "{text}");
}

#[cfg(unix)]
#[test]
fn ctrl_c_ends_a_watch_with_exit_code_0() {
    let mut child = Test::new()
        .args(["web", "--watch", "--sync-period", "30s", "-o", "json"])
        .arg("--kubeconfig")
        .arg(server().good_kubeconfig())
        .env("HOME", &server().dir)
        .env_remove("KUBECONFIG")
        .command()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the first evaluation, then interrupt the wait for the next one.
    let mut first = String::new();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    std::io::BufRead::read_line(&mut out, &mut first).unwrap();
    assert!(first.starts_with('{'), "{first}");
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn flags_that_give_what_live_mode_reads_are_usage_errors() {
    live(&["web", "--pods", "fixtures/kubectl/pods.json"])
        .status(2)
        .stderr_contains("--pods gives what live mode reads from the cluster")
        .run();
    for flag in ["--events", "--target"] {
        live(&["web", flag, "fixtures/paste/events.yaml"])
            .status(2)
            .stderr_contains(format!("{flag} gives what live mode reads"))
            .run();
    }
}

#[test]
fn rbac_prints_the_read_only_cluster_role() {
    let o = hpacalc(&["rbac"]);
    assert!(o.status.success());
    let role: Value = serde_yaml::from_str(&stdout(&o)).unwrap();
    assert_eq!(role["kind"], "ClusterRole");
    let readme = std::fs::read_to_string(root().join("docs/live.md")).unwrap();
    assert!(
        readme.contains(stdout(&o).trim()),
        "docs/live.md gives the same ClusterRole"
    );
}

/// 5,000 pods under the selector, served in pages: evaluated end to end in under 2 s (release
/// build, measured in docs/performance.md; the debug build of `cargo test` on a shared machine is
/// allowed 60 s).
#[test]
fn five_thousand_pods_are_read_in_pages_and_evaluated_quickly() {
    // HPACALC_BENCH_PODS=N measures another size (the assertions below are for 5,000).
    let n: usize = std::env::var("HPACALC_BENCH_PODS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(5000);
    let mut fixture = Fixture::kubectl();
    fixture.pods = (0..n).map(synthetic_pod).collect();
    fixture.metrics = synthetic_metrics(n, "2026-11-29T14:59:58Z");
    let s = ApiServer::start(fixture);
    let kubeconfig = s.good_kubeconfig();
    let started = Instant::now();
    let mut args = vec!["web", "-o", "json"];
    // HPACALC_BENCH_SAVE=DIR keeps the capture, to compare with the offline run on it.
    let save = std::env::var("HPACALC_BENCH_SAVE").unwrap_or_default();
    if !save.is_empty() {
        args.extend(["--save", save.as_str()]);
    }
    let o = run_in(&root(), &args, Some(&kubeconfig)).status(0).run();
    let elapsed = started.elapsed();
    if n != 5000 {
        let served: usize = (0..n).map(|i| synthetic_pod(i).to_string().len()).sum();
        eprintln!("live benchmark: {n} pods, pod list {served} bytes, {elapsed:?} end to end");
        return;
    }
    let v = json_of(&o, "report");
    assert!(
        (v["assumptions"].as_array().unwrap().iter())
            .any(|a| a == "Live: 5000 pods listed in 10 pages of 500."),
        "{:#}",
        v["assumptions"]
    );
    let pages = s
        .requests()
        .iter()
        .filter(|r| r.contains("continue="))
        .count();
    assert_eq!(pages, 9);
    let served: usize = (0..5000).map(|i| synthetic_pod(i).to_string().len()).sum();
    eprintln!(
        "live benchmark: 5000 pods, pod list {served} bytes as served, {elapsed:?} end to end"
    );
    let limit = if cfg!(debug_assertions) { 60 } else { 2 };
    assert!(elapsed < Duration::from_secs(limit), "{elapsed:?}");
}

/// The server of `Fixture::cluster`: `fixtures/cluster/dump` as a live cluster.
fn cluster_server() -> &'static ApiServer {
    static SERVER: OnceLock<ApiServer> = OnceLock::new();
    SERVER.get_or_init(|| ApiServer::start(Fixture::cluster()))
}

/// The kubeconfig of `Fixture::cluster`'s server.
pub(crate) fn cluster_kubeconfig() -> PathBuf {
    cluster_server().good_kubeconfig()
}

pub(crate) fn audit_live(args: &[&str]) -> Test {
    let mut all = vec!["audit"];
    all.extend(args);
    run_in(&root(), &all, Some(&cluster_server().good_kubeconfig()))
}

/// The same audit of files: no kubeconfig (a connection flag with files is a usage error).
fn audit_offline(args: &[&str]) -> Test {
    let mut all = vec!["audit"];
    all.extend(args);
    run_in(&root(), &all, None)
}

const DUMP_FILES: [&str; 4] = [
    "--dump",
    "fixtures/cluster/dump/cluster.json",
    "--metrics",
    "fixtures/cluster/dump/metrics.json",
];

#[test]
fn audit_all_namespaces_live_equals_the_offline_audit_of_the_same_objects() {
    let live = audit_live(&["-A", "-o", "json"]).schema("audit").json();
    let mut offline = DUMP_FILES.to_vec();
    offline.extend(["-o", "json"]);
    let offline = audit_offline(&offline).schema("audit").json();
    assert_eq!(live, offline);
    assert_eq!(live["summary"]["hpas"], 20);
    let codes: Vec<&str> = (live["findings"].as_array().unwrap().iter())
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"TargetMissing"), "{codes:?}");
    assert!(codes.contains(&"AmbiguousSelector"), "{codes:?}");
    // Every list was paged: the 295 pods in pages of at most 100.
    let requests = cluster_server().requests();
    let pod_pages: Vec<&String> = (requests.iter())
        .filter(|r| r.starts_with("/api/v1/pods?"))
        .collect();
    assert!(pod_pages.len() >= 3, "{pod_pages:?}");
    assert!(pod_pages.iter().all(|r| r.contains("limit=500")));
    assert!(pod_pages.iter().any(|r| r.contains("continue=")));
    assert!(
        requests
            .iter()
            .any(|r| r.starts_with("/api/v1/events?fieldSelector=involvedObject.kind")),
        "the HPAs' events are listed (core/v1: events.k8s.io/v1 is not served)"
    );
}

#[test]
fn audit_live_with_metrics_unavailable_equals_the_offline_error_status() {
    let now = ["--now", "2026-11-29T15:00:00Z", "-o", "json"];
    let mut args = vec!["-n", "team-2"];
    args.extend(now);
    let live = audit_live(&args).schema("audit").json();
    let mut offline = vec![
        "--dump",
        "fixtures/cluster/dump/cluster.json",
        "--metrics",
        "fixtures/cluster/dump/metrics-down.json",
    ];
    offline.extend(now);
    let offline = audit_offline(&offline).schema("audit").json();
    let of_team_2 = |v: &Value, key: &str, field: &str| -> Vec<Value> {
        (v[key].as_array().unwrap().iter())
            .filter(|h| h[field].as_str().is_some_and(|n| n.starts_with("team-2/")))
            .cloned()
            .collect()
    };
    assert_eq!(
        live["hpas"].as_array().unwrap(),
        &of_team_2(&offline, "hpas", "hpa")
    );
    let findings = of_team_2(&offline, "findings", "hpa");
    assert!(
        findings
            .iter()
            .any(|f| f["code"] == "MetricsApiUnavailable")
    );
    assert_eq!(live["findings"].as_array().unwrap(), &findings);
}

#[test]
fn audit_of_one_namespace_lists_only_it_and_equals_the_offline_hpas_of_it() {
    let now = ["--now", "2026-11-29T15:00:00Z"];
    let mut args = vec!["-n", "team-1", "-o", "json"];
    args.extend(now);
    let live = audit_live(&args).schema("audit").json();
    let mut offline = DUMP_FILES.to_vec();
    offline.extend(["-o", "json"]);
    offline.extend(now);
    let offline = audit_offline(&offline).schema("audit").json();
    let team_1: Vec<&Value> = (offline["hpas"].as_array().unwrap().iter())
        .filter(|h| h["hpa"].as_str().unwrap().starts_with("team-1/"))
        .collect();
    let live_hpas: Vec<&Value> = live["hpas"].as_array().unwrap().iter().collect();
    assert!(!team_1.is_empty());
    assert_eq!(live_hpas, team_1);
    assert!(
        cluster_server()
            .requests()
            .iter()
            .any(|r| r.starts_with("/apis/apps/v1/namespaces/team-1/deployments?limit="))
    );
}

#[test]
fn audit_live_goes_on_without_a_forbidden_vpa_or_event_list_and_says_what_it_did_not_check() {
    let mut fixture = Fixture::cluster();
    fixture.dump.as_mut().unwrap().forbidden = vec!["verticalpodautoscalers", "events"];
    let s = ApiServer::start(fixture);
    let args = ["audit", "-A", "-o", "json", "--now", "2026-11-29T15:00:00Z"];
    let o = run_in(&root(), &args, Some(&s.good_kubeconfig()))
        .status(0)
        .run();
    let err = stderr(&o);
    assert!(
        err.contains("cannot list verticalpodautoscalers (403): HpaVpaConflict is not checked"),
        "{err}"
    );
    assert!(err.contains("cannot list events (403)"), "{err}");
    let v = json_of(&o, "audit");
    let findings = v["findings"].as_array().unwrap();
    let forbidden: Vec<&Value> = (findings.iter())
        .filter(|f| f["code"] == "ListForbidden")
        .collect();
    assert_eq!(forbidden.len(), 2, "{forbidden:#?}");
    assert_eq!(forbidden[0]["severity"], "info");
    assert!(
        forbidden.iter().any(|f| {
            let m = f["message"].as_str().unwrap();
            m.starts_with(
                "cannot list verticalpodautoscalers.autoscaling.k8s.io in any namespace (403: ",
            ) && m.ends_with("HpaVpaConflict is not checked")
        }),
        "{forbidden:#?}"
    );
    assert!(
        forbidden.iter().any(|f| f["fix"]
            .as_str()
            .unwrap()
            .contains(r#"{apiGroups: [""], resources: ["events"], verbs: ["list"]}"#)),
        "{forbidden:#?}"
    );
    // The planted VPA conflict is not found without the VPAs; everything else is as offline.
    assert!(!findings.iter().any(|f| f["code"] == "HpaVpaConflict"));
    let mut offline = DUMP_FILES.to_vec();
    offline.extend(["-o", "json", "--now", "2026-11-29T15:00:00Z"]);
    let offline = audit_offline(&offline).schema("audit").json();
    let others = |v: &Value| -> Vec<Value> {
        (v["findings"].as_array().unwrap().iter())
            .filter(|f| !["HpaVpaConflict", "ListForbidden"].contains(&f["code"].as_str().unwrap()))
            .cloned()
            .collect()
    };
    assert_eq!(others(&v), others(&offline));
}

#[test]
fn audit_live_reads_each_hpas_external_metrics_as_the_offline_files_give_them() {
    let queue = serde_json::json!([{"type": "External", "external": {
        "metric": {"name": "queue_depth", "selector": {"matchLabels": {"queue": "orders"}}},
        "target": {"type": "AverageValue", "averageValue": "30"}}}]);
    let answer = serde_json::json!({"kind": "ExternalMetricValueList",
        "apiVersion": "external.metrics.k8s.io/v1beta1", "metadata": {},
        "items": [{"metricName": "queue_depth", "metricLabels": {"queue": "orders"},
                   "timestamp": "2026-11-29T14:59:50Z", "value": "150"}]});
    let mut fixture = Fixture::cluster();
    let dump = fixture.dump.as_mut().unwrap();
    let hpa = (dump.items.iter_mut())
        .find(|i| i["kind"] == "HorizontalPodAutoscaler" && i["metadata"]["namespace"] == "team-1")
        .unwrap();
    hpa["spec"]["metrics"] = queue;
    let key = format!("team-1/{}", hpa["metadata"]["name"].as_str().unwrap());
    let items = dump.items.clone();
    dump.external = Some(answer.clone());
    let s = ApiServer::start(fixture);
    let now = ["--now", "2026-11-29T15:00:00Z"];
    let mut args = vec!["audit", "-n", "team-1", "-o", "json"];
    args.extend(now);
    let live = run_in(&root(), &args, Some(&s.good_kubeconfig()))
        .schema("audit")
        .json();
    assert!(
        s.requests().iter().any(|r| r
            == "/apis/external.metrics.k8s.io/v1beta1/namespaces/team-1/queue_depth?labelSelector=queue%3Dorders"),
        "{:#?}",
        s.requests()
    );
    // Offline: the same objects, and the same answer given as --external-metrics.
    let dir = temp_dir("audit-external");
    let cluster = dir.join("cluster.json");
    let external = dir.join("external.json");
    std::fs::write(
        &cluster,
        serde_json::json!({"kind": "List", "items": items}).to_string(),
    )
    .unwrap();
    std::fs::write(&external, answer.to_string()).unwrap();
    let mut offline_args = vec![
        "audit",
        "--dump",
        cluster.to_str().unwrap(),
        "--metrics",
        "fixtures/cluster/dump/metrics.json",
        "--external-metrics",
        external.to_str().unwrap(),
        "-o",
        "json",
    ];
    offline_args.extend(now);
    let offline = run_in(&root(), &offline_args, None).schema("audit").json();
    let report = |v: &Value| -> Value {
        let h = (v["hpas"].as_array().unwrap().iter())
            .find(|h| h["hpa"] == key.as_str())
            .unwrap_or_else(|| panic!("{key} not evaluated: {:#}", v["unevaluated"]));
        serde_json::json!([
            h["desiredReplicas"],
            h["metrics"],
            h["decision"],
            h["conditions"]
        ])
    };
    assert_eq!(report(&live), report(&offline));
    let metric = &report(&live)[1][0];
    assert_eq!(metric["type"], "External", "{metric:#}");
    // GetExternalMetricPerPodReplicas: ceil(150 / 30).
    assert_eq!(metric["proposedReplicas"], 5, "{metric:#}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn audit_live_errors_are_one_line_naming_the_verb_and_resource() {
    let err = fail_line(audit_live(&["-n", "locked"]));
    assert!(
        err.contains(
            "forbidden (403): cannot list horizontalpodautoscalers.autoscaling in namespace locked"
        ),
        "{err}"
    );
    let bad = cluster_server().kubeconfig(
        "bad-token",
        "wrong",
        &cluster_server().ca_pem.clone(),
        &cluster_server().url.clone(),
    );
    let err = fail_line(run_in(&root(), &["audit", "-A"], Some(&bad)));
    assert!(err.contains("401 Unauthorized"), "{err}");
    let err = fail_line(run_in(
        &root(),
        &["audit", "-A"],
        Some(&cluster_server().kubeconfig(
            "unreachable",
            crate::apiserver::TOKEN,
            &cluster_server().ca_pem.clone(),
            "https://127.0.0.1:9",
        )),
    ));
    assert!(err.contains("127.0.0.1:9"), "{err}");
}

#[test]
fn audit_live_and_files_are_one_or_the_other() {
    let usage: [&[&str]; 3] = [
        &[
            "audit",
            "-A",
            "--dump",
            "fixtures/cluster/dump/cluster.json",
        ],
        &["audit", "-n", "shop", "--events", "events.json"],
        &["audit", "-A", "-n", "shop"],
    ];
    for args in usage {
        Test::new().args(args).status(2).run();
    }
}

/// kubectl's `TYPE/NAME` forms name the same HPA as its bare name.
#[test]
fn kubectl_type_name_forms_read_the_same_hpa() {
    let bare = live_json(&["web", "-n", "shop"]);
    for form in ["hpa/web", "horizontalpodautoscalers.autoscaling/web"] {
        let v = live_json(&[form, "-n", "shop"]);
        assert_eq!(v["hpa"], bare["hpa"], "{form}");
        assert_eq!(v["desiredReplicas"], bare["desiredReplicas"], "{form}");
    }
}

/// `audit -A --token`: kubectl's token wins over the kubeconfig user's, as for one HPA.
#[test]
fn audit_live_takes_kubectls_token_over_the_kubeconfigs() {
    let s = cluster_server();
    let bad = s.kubeconfig(
        "kubeconfig-bad-token",
        "wrong",
        &s.ca_pem.clone(),
        &s.url.clone(),
    );
    let err = fail_line(run_in(&root(), &["audit", "-n", "team-1"], Some(&bad)));
    assert!(err.contains("401"), "{err}");
    let with_token = run_in(
        &root(),
        &[
            "audit",
            "-n",
            "team-1",
            "--token",
            crate::apiserver::TOKEN,
            "-o",
            "json",
        ],
        Some(&bad),
    )
    .schema("audit")
    .json();
    let good = audit_live(&["-n", "team-1", "-o", "json"])
        .schema("audit")
        .json();
    assert_eq!(with_token["summary"], good["summary"]);
}

/// The server of `Fixture::with_karpenter`: `Fixture::kubectl` where Karpenter runs.
fn karpenter_server() -> &'static ApiServer {
    static SERVER: OnceLock<ApiServer> = OnceLock::new();
    SERVER.get_or_init(|| ApiServer::start(Fixture::with_karpenter()))
}

// calculateExistingNodeClaims (scheduler.go): where the API serves NodePools, live mode reads
// them, the EC2NodeClasses and the nodes, and the Nodes section is Karpenter's; the capture
// replays offline with --nodepool and --nodeclass.
#[test]
fn nodepools_and_nodes_from_the_cluster_make_the_karpenter_model_live() {
    let s = karpenter_server();
    let dir = s.path("karpenter");
    let _ = std::fs::remove_dir_all(&dir);
    let args = [
        "web",
        "--nodes-from-cluster",
        "--pod-request",
        "cpu=1,memory=1Gi",
        "--save",
        dir.to_str().unwrap(),
        "-o",
        "json",
    ];
    let live = run_in(&root(), &args, Some(&s.good_kubeconfig()))
        .schema("report")
        .json();
    let k = &live["nodes"]["karpenter"];
    assert_eq!(
        k["nodePools"],
        serde_json::json!(["general"]),
        "{:#}",
        live["nodes"]
    );
    assert_eq!(k["existingNodes"], 4);
    let requests = s.requests();
    for path in [
        "/apis/karpenter.sh/v1/nodepools",
        "/apis/karpenter.k8s.aws/v1/ec2nodeclasses",
    ] {
        assert!(
            requests.iter().any(|r| r.starts_with(path)),
            "{path}: {requests:?}"
        );
    }
    let (line, offline) = run_saved(&dir);
    assert!(
        line.contains("--nodepool nodepools.json --nodeclass ec2nodeclasses.json"),
        "{line}"
    );
    assert_eq!(live["nodes"], offline["nodes"]);
}

// Absent from discovery (404): no Karpenter, no error; the node group model stays.
#[test]
fn a_cluster_without_karpenter_keeps_the_node_group_model() {
    let live = live_json(&["web", "--nodes-from-cluster"]);
    assert!(live["nodes"]["karpenter"].is_null(), "{:#}", live["nodes"]);
    assert!(
        server()
            .requests()
            .iter()
            .any(|r| r == "/apis/karpenter.sh/v1")
    );
}

/// Issue 36: two Pods metrics of one name with different metric selectors, read live: each is
/// asked with its own `metricLabelSelector` (`GetRawMetric`, once per entry), and each keeps the
/// values answered for its selector, as a `--custom-metrics` file whose items name their
/// selector does: 10 a pod for `path=/b`, the fixture's values for `path=/a`.
#[test]
fn pods_metrics_of_one_name_with_different_selectors_keep_their_own_live_values() {
    let v = live_json(&["web", "-n", "selectors"]);
    let pods: Vec<&Value> = (v["metrics"].as_array().unwrap().iter())
        .filter(|m| m["type"] == "Pods")
        .collect();
    assert_eq!(pods.len(), 2, "{:#}", v["metrics"]);
    assert!(pods.iter().all(|m| m["error"].is_null()), "{pods:#?}");
    assert_eq!(pods[1]["currentAverageValue"], "10", "{pods:#?}");
    assert_ne!(
        pods[0]["currentAverageValue"],
        pods[1]["currentAverageValue"]
    );
    let asked: Vec<String> = (server().requests().into_iter())
        .filter(|r| r.contains("/namespaces/selectors/pods/*/") && r.contains("v1beta1"))
        .collect();
    assert_eq!(asked.len(), 2, "one GET per selector: {asked:#?}");
}
