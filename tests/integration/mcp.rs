//! `hpacalc mcp` (issue 28) through a real MCP client over a pipe (rmcp's, the protocol's Rust
//! SDK): initialize, the tools and their argument schemas (valid JSON Schema, and every call
//! here fits its tool's schema), each tool on the fixtures equal to the CLI's `-o json` on the
//! same files, malformed, mistyped, oversized and slow calls as tool errors the server
//! survives, and the live tools against the test API server.

use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::support::{NOW, Test, root, stderr, stdout};

/// A client connected to one `hpacalc mcp` process, driven synchronously.
pub(crate) struct Client {
    runtime: tokio::runtime::Runtime,
    service: Option<RunningService<RoleClient, ()>>,
    /// The server's process id.
    pid: Option<u32>,
}

impl Client {
    /// `hpacalc mcp ARGS` as the harness configures the binary.
    fn start(args: &[&str]) -> Client {
        Client::of(Test::new().arg("mcp").args(args))
    }

    pub(crate) fn of(test: Test) -> Client {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let command = tokio::process::Command::from(test.command());
        let (service, pid) = runtime.block_on(async {
            let (transport, _) = TokioChildProcess::builder(command)
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            let pid = transport.id();
            (().serve(transport).await.unwrap(), pid)
        });
        Client {
            runtime,
            service: Some(service),
            pid,
        }
    }

    fn service(&self) -> &RunningService<RoleClient, ()> {
        self.service.as_ref().unwrap()
    }

    fn tools(&self) -> Vec<Tool> {
        self.runtime
            .block_on(self.service().list_all_tools())
            .unwrap()
    }

    /// A call, answered (a tool error is an answer too) within `limit`; `None` past it.
    fn call_within(&self, name: &str, arguments: Value, limit: Duration) -> Option<CallToolResult> {
        let Value::Object(arguments) = arguments else {
            panic!("arguments must be an object");
        };
        let params = CallToolRequestParams::new(name.to_string()).with_arguments(arguments);
        let call = self.service().call_tool(params);
        self.runtime
            .block_on(async { tokio::time::timeout(limit, call).await.ok() })
            .map(|answer| answer.unwrap())
    }

    pub(crate) fn call(&self, name: &str, arguments: Value) -> CallToolResult {
        (self.call_within(name, arguments, Duration::from_secs(120))).expect("an answer")
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        if let Some(service) = self.service.take() {
            let _ = self.runtime.block_on(service.cancel());
        }
    }
}

fn texts(result: &CallToolResult) -> Vec<String> {
    (result.content.iter())
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

/// A successful answer: (the short text, the structured value, carried once: the one text
/// content is the short text, not the JSON again).
#[track_caller]
pub(crate) fn answered(result: &CallToolResult) -> (String, Value) {
    let t = texts(result);
    assert_eq!(result.is_error, Some(false), "{t:?}");
    assert_eq!(t.len(), 1, "{t:?}");
    let value = result
        .structured_content
        .clone()
        .expect("structured content");
    (t[0].clone(), value)
}

/// The arguments with `detail: "full"`: the whole report, the CLI's `-o json`.
pub(crate) fn full(mut arguments: Value) -> Value {
    arguments["detail"] = json!("full");
    arguments
}

/// A JSON text (the CLI's stdout) as a value.
#[track_caller]
fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

/// A tool error's text.
#[track_caller]
fn refused(result: &CallToolResult) -> String {
    let t = texts(result);
    assert_eq!(result.is_error, Some(true), "{t:?}");
    t.join("\n")
}

fn file(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap()
}

/// Which file is which tool argument: (path, argument).
type Names<T> = Vec<(T, T)>;

/// The CLI's stdout on `args`, each file named as the tool argument that carries its text: the
/// one difference between the two answers is the name an input is shown by.
fn cli(args: &[&str], names: &[(&str, &str)]) -> String {
    cli_exiting(0, args, names)
}

/// Every argument sent fits the tool's own schema.
fn fits(tools: &[Tool], name: &str, arguments: &Value) {
    let tool = tools.iter().find(|t| t.name == name).unwrap();
    let schema = Value::Object((*tool.input_schema).clone());
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(arguments)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{name}: {errors:?}");
}

const OFFLINE_TOOLS: [&str; 7] = [
    "explain_hpa",
    "simulate",
    "compare",
    "diff",
    "audit",
    "print_hpa",
    "list_diagnostics",
];

#[test]
fn initialize_names_the_server_and_tools_list_gives_each_tool_a_valid_schema() {
    let client = Client::start(&[]);
    let info = client.service().peer_info().unwrap();
    let server = info.server_info.as_ref().unwrap();
    assert_eq!(server.name, "hpacalc");
    assert_eq!(server.version, env!("CARGO_PKG_VERSION"));
    assert!(info.capabilities.tools.is_some());
    assert!(
        info.instructions
            .as_deref()
            .unwrap()
            .contains("explain_hpa")
    );
    let tools = client.tools();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, OFFLINE_TOOLS);
    for tool in &tools {
        let schema = Value::Object((*tool.input_schema).clone());
        assert!(
            jsonschema::meta::is_valid(&schema),
            "{}: {schema}",
            tool.name
        );
        assert_eq!(schema["type"], "object", "{}", tool.name);
        assert_eq!(schema["additionalProperties"], false, "{}", tool.name);
        if let Some(out) = &tool.output_schema {
            assert!(jsonschema::meta::is_valid(&Value::Object((**out).clone())));
        }
        let description = tool.description.as_deref().unwrap();
        assert!(description.len() > 100, "{}: {description}", tool.name);
        let a = tool.annotations.as_ref().unwrap();
        assert_eq!(a.read_only_hint, Some(true), "{}", tool.name);
    }
    let explain = &tools[0];
    assert_eq!(explain.input_schema["required"], json!(["hpa"]));
    // The audit reads no cluster without --allow-live: its schema offers no namespace.
    assert!(
        tools[4].input_schema["properties"]
            .get("namespace")
            .is_none()
    );
    let live = Client::start(&["--allow-live"]).tools();
    let names: Vec<&str> = live.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "explain_hpa",
            "explain_live_hpa",
            "simulate",
            "compare",
            "diff",
            "audit",
            "print_hpa",
            "list_diagnostics"
        ]
    );
    let described = live[1].description.as_deref().unwrap();
    assert!(described.contains("READS THE CLUSTER"), "{described}");
    assert!(
        live[5].input_schema["properties"]
            .get("namespace")
            .is_some()
    );
}

/// One explain_hpa case: the tool's arguments, the CLI's flags, and which file is which
/// argument.
struct Case {
    arguments: Value,
    flags: Vec<&'static str>,
    names: Vec<(&'static str, &'static str)>,
}

fn case(files: &[(&'static str, &'static str)], extra: Value, flags: &[&'static str]) -> Case {
    let mut arguments = extra;
    let mut all = Vec::new();
    let mut names = Vec::new();
    for (arg, path) in files {
        let (name, flag) = match *arg {
            "custom_metrics" => ("custom_metrics[0]", "--custom-metrics"),
            "hpa" => ("hpa", "--hpa"),
            "pods" => ("pods", "--pods"),
            "metrics" => ("metrics", "--metrics"),
            "events" => ("events", "--events"),
            "history" => ("history", "--history"),
            "scale" => ("scale", "--scale"),
            other => panic!("{other}"),
        };
        if *arg == "custom_metrics" {
            arguments[*arg] = json!([file(path)]);
        } else {
            arguments[*arg] = json!(file(path));
        }
        all.extend([flag, *path]);
        names.push((*path, name));
    }
    all.extend(flags);
    Case {
        arguments,
        flags: all,
        names,
    }
}

/// The README's example: (argument, file).
const EXAMPLE: [(&str, &str); 2] = [
    ("hpa", "fixtures/hpa/web-cpu.yaml"),
    ("pods", "fixtures/samples/web-cpu.csv"),
];

#[test]
fn explain_hpa_equals_the_clis_json_on_the_fixtures() {
    let cases = [
        case(&EXAMPLE, json!({"now": NOW}), &["--now", NOW]),
        case(
            &[
                ("hpa", "fixtures/kubectl/hpa.yaml"),
                ("pods", "fixtures/kubectl/pods.json"),
                ("metrics", "fixtures/kubectl/metrics.json"),
                ("custom_metrics", "fixtures/kubectl/custom-metrics.json"),
            ],
            json!({}),
            &[],
        ),
        case(
            &[
                ("hpa", "fixtures/kubectl/hpa.yaml"),
                ("pods", "fixtures/kubectl/pods.json"),
                ("metrics", "fixtures/kubectl/top.txt"),
                ("custom_metrics", "fixtures/kubectl/custom-metrics.json"),
            ],
            json!({"flags": {"tolerance": 0.05, "kube_version": "1.31"}}),
            &["--tolerance", "0.05", "--kube-version", "1.31"],
        ),
        case(
            &[
                ("hpa", "fixtures/paste/rate-limited/describe.txt"),
                ("pods", "fixtures/paste/rate-limited/samples.csv"),
            ],
            json!({"now": NOW}),
            &["--now", NOW],
        ),
        case(
            &[("hpa", "fixtures/hpa/failed-metric.yaml")],
            json!({"now": NOW}),
            &["--now", NOW],
        ),
        case(
            &[
                ("hpa", "fixtures/kubectl/hpa.yaml"),
                ("events", "fixtures/paste/events.yaml"),
            ],
            json!({"now": NOW}),
            &["--now", NOW],
        ),
        case(
            &[("hpa", "fixtures/keda/prometheus.yaml")],
            json!({"now": NOW, "metric_values": ["rps=50"], "current_replicas": 2}),
            &[
                "--now",
                NOW,
                "--metric-value",
                "rps=50",
                "--current-replicas",
                "2",
            ],
        ),
    ];
    let client = Client::start(&[]);
    let tools = client.tools();
    for c in cases {
        fits(&tools, "explain_hpa", &c.arguments);
        let mut flags = c.flags.clone();
        flags.extend(["-o", "json"]);
        let expected = cli(&flags, &c.names);
        let started = Instant::now();
        let result = client.call("explain_hpa", full(c.arguments.clone()));
        let took = started.elapsed();
        let (summary, value) = answered(&result);
        assert_eq!(value, json_of(&expected), "{:?}", c.flags);
        crate::schema::assert_fits("report", &value);
        // The summary is the table's decision line and WHY lines.
        let arrow = format!(
            "{} → {}  ",
            value["currentReplicas"], value["desiredReplicas"]
        );
        assert!(
            summary.lines().nth(1).unwrap().starts_with(&arrow),
            "{summary}"
        );
        for d in value["diagnostics"].as_array().unwrap() {
            let line = format!(
                "{} {}: ",
                d["severity"].as_str().unwrap(),
                d["code"].as_str().unwrap()
            );
            assert!(summary.contains(&line), "{line}\n{summary}");
        }
        eprintln!("explain_hpa {:?}: {took:?}", c.flags.get(1));
    }
}

#[test]
fn simulate_equals_the_clis_json_on_a_scenario_a_load_csv_and_a_prometheus_answer() {
    let client = Client::start(&[]);
    let tools = client.tools();
    let cases: [(Value, Vec<&str>, Names<&str>); 3] = [
        (
            json!({"scenario": "pods-pending", "flags": {"duration": "10m"}}),
            vec!["--scenario", "pods-pending", "--duration", "10m"],
            vec![],
        ),
        (
            json!({
                "hpa": file("fixtures/hpa/web-cpu.yaml"),
                "load": file("fixtures/load/web-day.csv"),
                "flags": {"pod_request": "cpu=500m", "replicas": 3}
            }),
            vec![
                "--hpa",
                "fixtures/hpa/web-cpu.yaml",
                "--load",
                "fixtures/load/web-day.csv",
                "--pod-request",
                "cpu=500m",
                "--replicas",
                "3",
            ],
            vec![
                ("fixtures/hpa/web-cpu.yaml", "hpa"),
                ("fixtures/load/web-day.csv", "load"),
            ],
        ),
        (
            json!({
                "hpa": file("fixtures/hpa/web-cpu.yaml"),
                "load": file("fixtures/prometheus/night-cpu.json"),
                "actual": file("fixtures/prometheus/night-replicas.json"),
                "flags": {"pod_request": "cpu=500m"}
            }),
            vec![
                "--hpa",
                "fixtures/hpa/web-cpu.yaml",
                "--load",
                "fixtures/prometheus/night-cpu.json",
                "--actual-file",
                "fixtures/prometheus/night-replicas.json",
                "--pod-request",
                "cpu=500m",
            ],
            vec![
                ("fixtures/hpa/web-cpu.yaml", "hpa"),
                ("fixtures/prometheus/night-cpu.json", "load"),
                ("fixtures/prometheus/night-replicas.json", "actual"),
            ],
        ),
    ];
    for (arguments, flags, names) in cases {
        fits(&tools, "simulate", &arguments);
        let mut all = vec!["simulate"];
        all.extend(&flags);
        all.extend(["-o", "json"]);
        let expected = cli(&all, &names);
        let (summary, value) = answered(&client.call("simulate", full(arguments)));
        assert_eq!(value, json_of(&expected), "{flags:?}");
        crate::schema::assert_fits("simulation", &value);
        assert!(summary.contains("replicas: peak "), "{summary}");
    }
}

/// The CLI's stdout as `cli` gives it, with the exit code expected (`diff --fail-on` exits 3).
fn cli_exiting(code: i32, args: &[&str], names: &[(&str, &str)]) -> String {
    let o = Test::new().args(args).run();
    assert_eq!(o.status.code(), Some(code), "{}", stderr(&o));
    let mut out = stdout(&o);
    for (path, name) in names {
        out = out.replace(path, name);
    }
    out
}

#[test]
fn compare_equals_the_clis_json_on_a_prometheus_answer_with_per_configuration_what_ifs() {
    let client = Client::start(&[]);
    let tools = client.tools();
    let cases: [(Value, Vec<&str>, Names<&str>); 3] = [
        (
            json!({
                "hpa": file("fixtures/compare/web-fast-down.yaml"),
                "compare": [file("fixtures/compare/web-slow-down.yaml")],
                "load": file("fixtures/prometheus/bursty-cpu.json"),
                "flags": {"pod_request": "cpu=500m", "replicas": 4}
            }),
            vec![
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
            ],
            vec![
                ("fixtures/compare/web-fast-down.yaml", "hpa"),
                ("fixtures/compare/web-slow-down.yaml", "compare[0]"),
                ("fixtures/prometheus/bursty-cpu.json", "load"),
            ],
        ),
        (
            json!({
                "hpa": file("fixtures/hpa/web-cpu.yaml"),
                "compare": [file("fixtures/compare/web-250m.yaml"), file("fixtures/hpa/web-cpu.yaml")],
                "what_if": [[], ["set-request=app.cpu=250m", "tolerance=0.05"]],
                "load": file("fixtures/prometheus/night-cpu.json"),
                "actual": file("fixtures/prometheus/night-replicas.json"),
                "flags": {"pod_request": "cpu=500m"}
            }),
            vec![
                "--hpa",
                "fixtures/hpa/web-cpu.yaml",
                "--compare",
                "fixtures/compare/web-250m.yaml",
                "--compare",
                "fixtures/hpa/web-cpu.yaml",
                "--what-if",
                "set-request=app.cpu=250m",
                "--what-if",
                "tolerance=0.05",
                "--load",
                "fixtures/prometheus/night-cpu.json",
                "--actual-file",
                "fixtures/prometheus/night-replicas.json",
                "--pod-request",
                "cpu=500m",
            ],
            vec![],
        ),
        (
            json!({
                "scenario": "pods-pending",
                "compare": [file("fixtures/compare/web-slow-down.yaml")],
                "flags": {"duration": "10m"}
            }),
            vec![
                "--scenario",
                "pods-pending",
                "--compare",
                "fixtures/compare/web-slow-down.yaml",
                "--duration",
                "10m",
            ],
            vec![("fixtures/compare/web-slow-down.yaml", "compare[0]")],
        ),
    ];
    for (i, (arguments, flags, names)) in cases.into_iter().enumerate() {
        fits(&tools, "compare", &arguments);
        let mut all = vec!["simulate"];
        all.extend(&flags);
        all.extend(["-o", "json"]);
        let mut expected = cli(&all, &names);
        if i == 1 {
            // The same file twice: each configuration by its place.
            for (from, to) in [
                ("\"fixtures/hpa/web-cpu.yaml\"", "\"hpa\""),
                ("fixtures/compare/web-250m.yaml", "compare[0]"),
                ("fixtures/hpa/web-cpu.yaml (", "compare[1] ("),
                ("fixtures/hpa/web-cpu.yaml", "hpa"),
                ("fixtures/prometheus/night-cpu.json", "load"),
                ("fixtures/prometheus/night-replicas.json", "actual"),
            ] {
                expected = expected.replace(from, to);
            }
        }
        let (summary, value) = answered(&client.call("compare", full(arguments)));
        assert_eq!(value, json_of(&expected), "{flags:?}");
        crate::schema::assert_fits("comparison", &value);
        assert!(summary.starts_with("#1 "), "{summary}");
        assert!(summary.contains("\n#2 "), "{summary}");
    }
}

#[test]
fn a_malformed_configuration_or_what_if_of_compare_is_the_clis_message() {
    let client = Client::start(&[]);
    // A malformed configuration is the CLI's located message, named by its argument.
    let broken = "fixtures/malformed/hpa-bad-indent.yaml";
    let o = Test::new()
        .args([
            "simulate",
            "--hpa",
            "fixtures/compare/web-fast-down.yaml",
            "--compare",
            broken,
            "--load",
            "fixtures/prometheus/bursty-cpu.json",
            "--pod-request",
            "cpu=500m",
        ])
        .status(1)
        .run();
    let message = stderr(&o).trim_end().replace(broken, "compare[0]");
    let arguments = json!({
        "hpa": file("fixtures/compare/web-fast-down.yaml"),
        "compare": [file(broken)],
        "load": file("fixtures/prometheus/bursty-cpu.json"),
        "flags": {"pod_request": "cpu=500m"},
    });
    let text = refused(&client.call("compare", arguments));
    assert_eq!(Some(text.as_str()), message.strip_prefix("error: "));
    let bad = json!({
        "hpa": file("fixtures/compare/web-fast-down.yaml"),
        "compare": [file("fixtures/compare/web-slow-down.yaml")],
        "what_if": [["speed=2"]],
        "load": file("fixtures/prometheus/bursty-cpu.json"),
    });
    let text = refused(&client.call("compare", bad));
    assert!(text.starts_with("--what-if: found \"speed=2\""), "{text}");
}

/// Which file of `fixtures/diff` is which argument of `diff`.
const DIFF_NAMES: [(&str, &str); 5] = [
    ("fixtures/diff/old/web.yaml", "old[0]"),
    ("fixtures/diff/old/worker.yaml", "old[1]"),
    ("fixtures/diff/new/web.yaml", "new[0]"),
    ("fixtures/diff/new/worker.yaml", "new[1]"),
    ("fixtures/prometheus/bursty-cpu.json", "load"),
];

fn diff_sides() -> Value {
    json!({
        "old": [file("fixtures/diff/old/web.yaml"), file("fixtures/diff/old/worker.yaml")],
        "new": [file("fixtures/diff/new/web.yaml"), file("fixtures/diff/new/worker.yaml")],
    })
}

#[test]
fn diff_equals_the_clis_json_and_markdown_and_a_broken_rule_is_an_answer() {
    let client = Client::start(&[]);
    let tools = client.tools();
    let base = ["diff", "fixtures/diff/old", "fixtures/diff/new"];
    let mut on_load = diff_sides();
    on_load["load"] = json!(file("fixtures/prometheus/bursty-cpu.json"));
    on_load["replicas"] = json!(4);
    let mut worse = on_load.clone();
    worse["fail_on"] = json!(["flapping", "pod-hours>50%"]);
    let load = [
        "--load",
        "fixtures/prometheus/bursty-cpu.json",
        "--replicas",
        "4",
    ];
    let rules = ["--fail-on", "flapping", "--fail-on", "pod-hours>50%"];
    for (arguments, extra, code) in [
        (diff_sides(), vec![], 0),
        (on_load, load.to_vec(), 0),
        (worse, [&load[..], &rules[..]].concat(), 3),
    ] {
        fits(&tools, "diff", &arguments);
        let run = |format: &str| {
            let mut all = base.to_vec();
            all.extend(&extra);
            all.extend(["-o", format]);
            cli_exiting(code, &all, &DIFF_NAMES)
        };
        let (summary, value) = answered(&client.call("diff", full(arguments)));
        assert_eq!(value, json_of(&run("json")), "{extra:?}");
        assert_eq!(summary, run("markdown"), "{extra:?}");
        crate::schema::assert_fits("diff", &value);
        assert_eq!(value["worse"].as_array().unwrap().is_empty(), code == 0);
    }
    // A bad rule is the CLI's message.
    let o = Test::new()
        .args(base)
        .args(load)
        .args(["--fail-on", "slower"])
        .status(1)
        .run();
    let mut bad = diff_sides();
    bad["load"] = json!(file("fixtures/prometheus/bursty-cpu.json"));
    bad["fail_on"] = json!(["slower"]);
    let text = refused(&client.call("diff", bad));
    assert_eq!(
        Some(text.as_str()),
        stderr(&o).trim_end().strip_prefix("error: ")
    );
    // So is a malformed manifest, located in its argument.
    let broken = "fixtures/malformed/hpa-bad-indent.yaml";
    let o = Test::new()
        .args(["diff", "fixtures/diff/old", broken])
        .status(1)
        .run();
    let message = stderr(&o).trim_end().replace(broken, "new[0]");
    let mut bad = diff_sides();
    bad["new"] = json!([file(broken)]);
    let text = refused(&client.call("diff", bad));
    assert_eq!(Some(text.as_str()), message.strip_prefix("error: "));
}

#[test]
fn audit_equals_the_clis_json_on_a_dump() {
    let client = Client::start(&[]);
    let arguments = json!({
        "dump": file("fixtures/cluster/dump/cluster.json"),
        "metrics": file("fixtures/cluster/dump/metrics.json"),
        "now": NOW,
    });
    fits(&client.tools(), "audit", &arguments);
    let expected = cli(
        &[
            "audit",
            "--dump",
            "fixtures/cluster/dump/cluster.json",
            "--metrics",
            "fixtures/cluster/dump/metrics.json",
            "--now",
            NOW,
            "-o",
            "json",
        ],
        &[
            ("fixtures/cluster/dump/cluster.json", "dump"),
            ("fixtures/cluster/dump/metrics.json", "metrics"),
        ],
    );
    let (summary, value) = answered(&client.call("audit", full(arguments)));
    assert_eq!(value, json_of(&expected));
    crate::schema::assert_fits("audit", &value);
    assert!(summary.starts_with("20 HPA(s): "), "{summary}");
    assert!(summary.contains("AmbiguousSelector"), "{summary}");
    // A YAML dump is read too.
    let expected = cli(
        &[
            "audit",
            "--dump",
            "fixtures/cluster/yaml/web.yaml",
            "--now",
            NOW,
            "-o",
            "json",
        ],
        &[("fixtures/cluster/yaml/web.yaml", "dump")],
    );
    let yaml = json!({"dump": file("fixtures/cluster/yaml/web.yaml"), "now": NOW});
    assert_eq!(
        answered(&client.call("audit", full(yaml))).1,
        json_of(&expected)
    );
}

#[test]
fn print_hpa_equals_the_clis_json_for_keda_and_old_api_versions() {
    let client = Client::start(&[]);
    for path in [
        "fixtures/keda/cpu-queue.yaml",
        "fixtures/hpa/v1.yaml",
        "fixtures/paste/describe.txt",
    ] {
        if !root().join(path).exists() {
            continue;
        }
        let expected = cli(
            &["--hpa", path, "--print-hpa", "-o", "json"],
            &[(path, "hpa")],
        );
        let (summary, mut value) = answered(&client.call("print_hpa", json!({"hpa": file(path)})));
        // A printed HPA is small: its summary is the HPA itself, marked as one.
        let marked = value.as_object_mut().unwrap().remove("detail");
        assert_eq!(marked, Some(json!("summary")));
        assert_eq!(value, json_of(&expected), "{path}");
        assert_eq!(value["kind"], "HorizontalPodAutoscaler");
        assert!(
            summary.contains("kind: HorizontalPodAutoscaler"),
            "{summary}"
        );
    }
}

#[test]
fn list_diagnostics_is_the_table_of_docs_diagnostics_md() {
    let client = Client::start(&[]);
    let (summary, value) = answered(&client.call("list_diagnostics", json!({})));
    let listed: Vec<&str> = (value["diagnostics"].as_array().unwrap().iter())
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    let docs = file("docs/diagnostics.md");
    let documented: Vec<&str> = (docs.lines())
        .filter(|l| l.starts_with("| `") || l.starts_with("- `"))
        .flat_map(|l| {
            let first = l.split(" | ").next().unwrap_or(l);
            let first = first.split(" (").next().unwrap_or(first);
            first.split('`').skip(1).step_by(2)
        })
        .collect();
    assert_eq!(listed, documented);
    assert!(listed.len() > 25, "{listed:?}");
    for d in value["diagnostics"].as_array().unwrap() {
        assert!(
            ["info", "warning", "error", "error / warning"]
                .contains(&d["severity"].as_str().unwrap()),
            "{d}"
        );
        assert!(!d["when"].as_str().unwrap().is_empty(), "{d}");
    }
    assert!(summary.contains("StabilizationHold (info): "), "{summary}");
}

/// A malformed case of `fixtures/malformed/` as a tool call: the tool, its arguments and which
/// path is which argument; `None` for a case whose flags no tool argument gives (or a file that
/// is not text, which a JSON string cannot carry).
fn as_call(case: &crate::support::Malformed) -> Option<(&'static str, Value, Names<String>)> {
    let path = format!("{}/{}", crate::support::MALFORMED, case.file);
    let args: Vec<String> = (case.args.split_whitespace())
        .map(|a| a.replace("FILE", &path))
        .collect();
    let (tool, flags) = match args.first().map(String::as_str) {
        Some("simulate") => ("simulate", args.get(1..)?),
        Some(_) => ("explain_hpa", &args[..]),
        None => return None,
    };
    let mut arguments = json!({});
    let mut names = Vec::new();
    for pair in flags.chunks(2) {
        let [flag, value] = pair else { return None };
        let name = match (tool, flag.as_str()) {
            (_, "--hpa") => "hpa",
            ("explain_hpa", "--pods") => "pods",
            ("explain_hpa", "--metrics") => "metrics",
            ("explain_hpa", "--history") => "history",
            ("explain_hpa", "--events") => "events",
            ("explain_hpa", "--nodes") => "nodes",
            ("explain_hpa", "--now") => {
                arguments["now"] = json!(value);
                continue;
            }
            ("simulate", "--load") => "load",
            ("simulate", "--pod-request") => {
                arguments["flags"] = json!({"pod_request": value});
                continue;
            }
            _ => return None,
        };
        let text = std::fs::read_to_string(root().join(value)).ok()?;
        arguments[name] = json!(text);
        names.push((value.clone(), name.to_string()));
    }
    Some((tool, arguments, names))
}

#[test]
fn every_malformed_input_a_tool_can_carry_is_a_tool_error_with_the_clis_message() {
    let client = Client::start(&[]);
    let mut checked = 0;
    for case in crate::support::malformed_cases() {
        let Some((tool, arguments, names)) = as_call(&case) else {
            continue;
        };
        let o = case.test().run();
        let mut message = stderr(&o)
            .trim_end()
            .strip_prefix("error: ")
            .unwrap()
            .to_string();
        for (path, name) in &names {
            message = message.replace(path, name);
        }
        let text = refused(&client.call(tool, arguments));
        assert_eq!(text, message, "{}", case.file);
        checked += 1;
    }
    assert!(checked > 80, "{checked}");
}

#[test]
fn mistyped_and_missing_arguments_are_tool_errors_that_name_them() {
    let client = Client::start(&[]);
    for (arguments, expected) in [
        (json!({}), "arguments: missing field `hpa`"),
        (
            json!({"hpa": 5}),
            "arguments: hpa: invalid type: integer `5`, expected a string",
        ),
        (
            json!({"hpa": "x", "podz": "y"}),
            "arguments: podz: unknown field `podz`",
        ),
        (
            json!({"hpa": "x", "flags": {"tolerance": "much"}}),
            "arguments: flags.tolerance: invalid type: string \"much\"",
        ),
        (
            json!({"hpa": file("fixtures/hpa/web-cpu.yaml"), "flags": {"tolerance": -1.0}}),
            "--tolerance: found -1, expected a ratio of 0 or more",
        ),
        (
            json!({"hpa": file("fixtures/hpa/web-cpu.yaml"), "now": "yesterday"}),
            "--now: found \"yesterday\", expected an RFC 3339 time",
        ),
        (
            json!({"hpa": file("fixtures/hpa/web-cpu.yaml"), "metrics": "{}"}),
            "metrics needs pods",
        ),
        (json!({"hpa": "\u{0}\u{1b}[31m"}), "hpa"),
    ] {
        let text = refused(&client.call("explain_hpa", arguments.clone()));
        assert!(text.starts_with(expected), "{arguments}: {text}");
        assert!(!text.contains('\u{1b}'), "{text}");
    }
    for (tool, arguments, expected) in [
        (
            "simulate",
            json!({}),
            "simulate needs hpa and load, or a scenario",
        ),
        (
            "simulate",
            json!({"scenario": "nope"}),
            "--scenario: found \"nope\"",
        ),
        (
            "simulate",
            json!({"scenario": "pods-pending", "flags": {"duration": 7}}),
            "arguments: flags.duration: invalid type",
        ),
        ("audit", json!({}), "audit needs a dump"),
        ("audit", json!({"dump": "[1, 2"}), "dump"),
        (
            "audit",
            json!({"namespace": "shop"}),
            "arguments: namespace reads the cluster",
        ),
        ("print_hpa", json!({"hpa": "kind: Pod\n"}), "hpa"),
        (
            "list_diagnostics",
            json!({"x": 1}),
            "arguments: x: unknown field `x`",
        ),
    ] {
        let result = client.call_within(tool, arguments.clone(), Duration::from_secs(60));
        match result {
            Some(r) => {
                let text = refused(&r);
                assert!(text.starts_with(expected), "{tool} {arguments}: {text}");
            }
            None => panic!("{tool}: no answer"),
        }
    }
}

#[test]
fn an_unknown_tool_is_a_protocol_error_and_the_server_goes_on() {
    let client = Client::start(&[]);
    let params = CallToolRequestParams::new("rm_rf").with_arguments(serde_json::Map::new());
    let err = client
        .runtime
        .block_on(client.service().call_tool(params))
        .unwrap_err();
    assert!(err.to_string().contains("no tool named \"rm_rf\""), "{err}");
    // Without --allow-live the live tool is not there at all.
    let params =
        CallToolRequestParams::new("explain_live_hpa").with_arguments(serde_json::Map::new());
    let err = (client.runtime)
        .block_on(client.service().call_tool(params))
        .unwrap_err();
    assert!(err.to_string().contains("no tool named"), "{err}");
    answered(&client.call("list_diagnostics", json!({})));
}

#[test]
fn oversized_arguments_are_refused_by_size_and_the_server_goes_on() {
    let client = Client::start(&[]);
    let big = "#".repeat(17 * 1024 * 1024);
    let text = refused(&client.call("explain_hpa", json!({"hpa": big})));
    assert!(
        text.starts_with("hpa: found 17825792 bytes, expected at most 16777216 bytes"),
        "{text}"
    );
    let text = refused(&client.call("audit", json!({"dump": big})));
    assert!(text.starts_with("dump: found 17825792 bytes"), "{text}");
    // A message over the transport's 64 MiB is dropped unanswered; the server reads on.
    let huge = "#".repeat(65 * 1024 * 1024);
    drop(big);
    let dropped = client.call_within("explain_hpa", json!({"hpa": huge}), Duration::from_secs(3));
    assert!(dropped.is_none());
    answered(&client.call("list_diagnostics", json!({})));
}

#[test]
fn a_call_past_its_time_is_a_tool_error_and_the_server_goes_on() {
    let client = Client::start(&["--call-timeout", "20ms"]);
    let week =
        json!({"scenario": "pods-pending", "flags": {"duration": "168h", "sync_period": "15s"}});
    let started = Instant::now();
    let text = refused(&client.call("simulate", week));
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        text.starts_with("--call-timeout: the call took longer than 20 ms"),
        "{text}"
    );
    // The next call waits for the slot the runaway one still holds, within its own time.
    let mut answered_once = false;
    for _ in 0..200 {
        let r = client.call("list_diagnostics", json!({}));
        if r.is_error == Some(false) {
            answered_once = true;
            break;
        }
        let text = refused(&r);
        assert!(
            text.contains("an earlier call is still running") || text.contains("took longer"),
            "{text}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(answered_once);
}

#[test]
fn a_call_past_its_time_stops_its_work_and_frees_the_slot_within_a_second() {
    let client = Client::start(&["--call-timeout", "1s"]);
    let week =
        json!({"scenario": "pods-pending", "flags": {"duration": "168h", "sync_period": "15s"}});
    let text = refused(&client.call("simulate", week));
    assert!(
        text.starts_with("--call-timeout: the call took longer than 1000 ms"),
        "{text}"
    );
    // The runaway run stopped at the deadline: the next call gets the slot at once (it used to
    // wait for the whole week to be simulated).
    std::thread::sleep(Duration::from_millis(500));
    let started = Instant::now();
    answered(&client.call("list_diagnostics", json!({})));
    assert!(started.elapsed() < Duration::from_millis(900));
}

/// The CPU time a process has used so far (user and system, from `/proc/PID/stat`), in
/// seconds: unlike the wall clock, it does not grow with the machine's load.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // After the command's name in parentheses: utime and stime are the 12th and 13th fields.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    ticks / 100.0
}

/// `notifications/cancelled` (sent by rmcp's client when a call is abandoned) stops the call's
/// work and frees its queue place and slot: the next call is answered, and the server spent no
/// more CPU on the cancelled run than the second it ran (the whole run takes several seconds of
/// CPU; the CPU time, not the wall clock, is compared, so a loaded machine does not matter).
#[test]
fn a_cancelled_call_stops_its_work_and_frees_its_slot() {
    let client = Client::start(&["--call-timeout", "10m"]);
    let pid = client.pid.unwrap();
    let long = json!({"scenario": "pods-pending",
        "flags": {"duration": "400h", "sync_period": "15s", "replicas": 100}});
    let before = cpu_seconds(pid);
    assert!(
        (client.call_within("simulate", long, Duration::from_secs(1))).is_none(),
        "the run is meant to outlast the second the client waits"
    );
    answered(&client.call("list_diagnostics", json!({})));
    let spent = cpu_seconds(pid) - before;
    // One second of one thread, the stop's latency and the answers: well under the run's own
    // cost (over 5 s of CPU in a debug build: `hpacalc simulate` with the same flags).
    assert!(spent < 3.0, "{spent} s of CPU: the cancelled run went on");
    // And it stays stopped.
    std::thread::sleep(Duration::from_secs(2));
    let idle = cpu_seconds(pid) - before - spent;
    assert!(idle < 0.5, "{idle} s of CPU after the answer");
}

#[test]
fn explain_live_hpa_equals_live_mode_and_audit_of_a_namespace_equals_audit_n() {
    let s = crate::live::server();
    let test = crate::live::run_in(
        &root(),
        &["mcp", "--allow-live"],
        Some(&s.good_kubeconfig()),
    );
    let client = Client::of(test);
    let arguments = json!({"name": "web"});
    fits(&client.tools(), "explain_live_hpa", &arguments);
    let (summary, mcp) = answered(&client.call("explain_live_hpa", full(arguments)));
    let o = crate::live::live(&["web", "-o", "json"]).run();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let cli: Value = serde_json::from_slice(&o.stdout).unwrap();
    crate::schema::assert_fits("report", &mcp);
    // The same decision from the same reads (the fixture's events are dated from the clock,
    // so two reads a second apart differ in their times).
    let untimed = |v: &Value| {
        let mut d = crate::support::decision(v);
        d["now"] = Value::Null;
        d
    };
    assert_eq!(untimed(&mcp), untimed(&cli));
    assert_eq!(crate::support::codes(&mcp), crate::support::codes(&cli));
    assert_eq!(
        mcp["steps"].as_array().unwrap().len(),
        cli["steps"].as_array().unwrap().len()
    );
    assert_eq!(mcp["sources"], cli["sources"]);
    assert!(summary.starts_with("HPA "), "{summary}");
    let missing = refused(&client.call("explain_live_hpa", json!({"name": "nope"})));
    assert!(missing.contains("nope"), "{missing}");

    let kubeconfig = crate::live::cluster_kubeconfig();
    let test = crate::live::run_in(&root(), &["mcp", "--allow-live"], Some(&kubeconfig));
    let client = Client::of(test);
    let arguments = json!({"namespace": "team-2", "now": NOW});
    fits(&client.tools(), "audit", &arguments);
    let (_, value) = answered(&client.call("audit", full(arguments)));
    let expected = crate::live::audit_live(&["-n", "team-2", "--now", NOW, "-o", "json"]).run();
    assert_eq!(value, json_of(&stdout(&expected)));
}

#[test]
fn the_reference_python_client_gets_the_clis_answer() {
    let python = std::process::Command::new("python3")
        .args(["-c", "import mcp"])
        .output();
    if !python.is_ok_and(|o| o.status.success()) {
        eprintln!(
            "SKIPPED the_reference_python_client_gets_the_clis_answer: python3 with PyPI's `mcp` \
             is not installed (scripts/test.sh installs it when pip can)"
        );
        return;
    }
    let o = std::process::Command::new("python3")
        .arg(root().join("tests/integration/mcp/reference_client.py"))
        .arg(env!("CARGO_BIN_EXE_hpacalc"))
        .arg(root())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let seen: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(seen["server"], "hpacalc");
    assert_eq!(seen["tools"], json!(OFFLINE_TOOLS));
    assert_eq!(seen["isError"], json!([false, false, true]));
    // The README's example, as reference_client.py sends it.
    let expected = cli(
        &[
            &case(&EXAMPLE, json!({}), &["--now", NOW]).flags[..],
            &["-o", "json"],
        ]
        .concat(),
        &EXAMPLE.map(|(arg, path)| (path, arg)),
    );
    // The full report once, as the structured content; the text is the short one both times.
    assert_eq!(seen["full"], json_of(&expected));
    assert_eq!(seen["fullText"], seen["text"]);
    assert_eq!(seen["text"].as_array().unwrap().len(), 1);
    let text = seen["text"][0].as_str().unwrap();
    assert!(
        text.starts_with("HPA shop/web → Deployment/web\n"),
        "{text}"
    );
    assert_eq!(seen["structured"]["detail"], "summary");
    assert_eq!(
        seen["structured"]["desiredReplicas"],
        seen["full"]["desiredReplicas"]
    );
    let error = seen["error"][0].as_str().unwrap();
    assert!(error.starts_with("arguments: hpa: invalid type"), "{error}");
}

/// The calls README.md and docs/mcp.md show, each with the summary they show after it: (the
/// document, the tool, its arguments with each "…the text of FILE…" read, the summary).
fn documented_calls() -> Vec<(&'static str, String, Value, String)> {
    let mut calls = Vec::new();
    for doc in ["README.md", "docs/mcp.md"] {
        let text = file(doc);
        for block in text.split("```json\n{\"name\": ").skip(1) {
            let call: Value = serde_json::from_str(&format!(
                "{{\"name\": {}",
                block.split("\n```").next().unwrap()
            ))
            .unwrap();
            let mut arguments = call["arguments"].clone();
            for value in arguments.as_object_mut().unwrap().values_mut() {
                let each: Vec<&mut Value> = match value {
                    Value::Array(items) => items.iter_mut().collect(),
                    other => vec![other],
                };
                for value in each {
                    if let Some(path) = (value.as_str())
                        .and_then(|shown| shown.strip_prefix("…the text of "))
                        .and_then(|p| p.strip_suffix('…'))
                    {
                        *value = json!(file(path));
                    }
                }
            }
            let summary = block
                .split("```text\n")
                .nth(1)
                .and_then(|b| b.split("```").next())
                .unwrap();
            calls.push((
                doc,
                call["name"].as_str().unwrap().to_string(),
                arguments,
                summary.to_string(),
            ));
        }
    }
    calls
}

#[test]
fn the_calls_the_readme_and_docs_show_give_the_summaries_they_show() {
    let calls = documented_calls();
    assert_eq!(calls.len(), 3, "one call in README.md, two in docs/mcp.md");
    let client = Client::start(&[]);
    let tools = client.tools();
    for (doc, tool, arguments, shown) in calls {
        fits(&tools, &tool, &arguments);
        let (summary, _) = answered(&client.call(&tool, arguments));
        assert_eq!(summary, shown, "{doc}");
    }
    // docs/mcp.md names every tool, and the README section the offline ones and the live one.
    let docs = file("docs/mcp.md");
    let readme = file("README.md");
    for tool in OFFLINE_TOOLS.iter().chain(&["explain_live_hpa"]) {
        assert!(
            docs.contains(&format!("| `{tool}` |")),
            "docs/mcp.md: {tool}"
        );
        assert!(readme.contains(&format!("`{tool}`")), "README.md: {tool}");
    }
}

#[test]
fn messages_that_are_not_json_rpc_are_dropped_and_the_server_reads_on() {
    use std::io::{BufRead, BufReader, Write};
    let mut child = Test::new()
        .arg("mcp")
        .command()
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}});
    let deep = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{{\"name\":\
         \"explain_hpa\",\"arguments\":{{\"hpa\":{}{}}}}}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    for line in [
        init.to_string(),
        initialized.to_string(),
        deep,
        "not json at all \u{1b}[2J".to_string(),
        list.to_string(),
    ] {
        writeln!(stdin, "{line}").unwrap();
    }
    stdin.flush().unwrap();
    let first: Value =
        serde_json::from_str(&rx.recv_timeout(Duration::from_secs(30)).unwrap()).unwrap();
    assert_eq!(first["id"], 1);
    let next: Value =
        serde_json::from_str(&rx.recv_timeout(Duration::from_secs(30)).unwrap()).unwrap();
    assert_eq!(next["id"], 3, "the two bad lines are not answered: {next}");
    assert!(next["result"]["tools"].as_array().unwrap().len() == OFFLINE_TOOLS.len());
    drop(stdin);
    assert!(
        child.wait().unwrap().success(),
        "the server ends when its stdin does"
    );
}

/// The budgets of issue 38: `tools/list` within 32 KB, and a default answer (the text and the
/// structured content together) within about 8 KB.
const TOOLS_LIST_BUDGET: usize = 32 * 1024;
const ANSWER_BUDGET: usize = 8 * 1024;

/// The bytes an answer puts in a context window: its texts and its structured content.
fn answer_bytes(result: &CallToolResult) -> usize {
    let structured = result
        .structured_content
        .as_ref()
        .map_or(0, |v| v.to_string().len());
    texts(result).iter().map(String::len).sum::<usize>() + structured
}

#[test]
fn tools_list_and_a_default_answer_fit_their_budgets_and_detail_full_is_the_whole_report() {
    for args in [&[][..], &["--allow-live"][..]] {
        let client = Client::start(args);
        let tools = client.tools();
        let listed = serde_json::to_string(&json!({ "tools": tools })).unwrap();
        assert!(
            listed.len() <= TOOLS_LIST_BUDGET,
            "{args:?}: {} bytes",
            listed.len()
        );
        for tool in &tools {
            // Input schemas are kept whole, with `detail`; output schemas only say where the
            // whole one is.
            let detail = &tool.input_schema["properties"]["detail"];
            assert_eq!(detail["enum"], json!(["summary", "full"]), "{}", tool.name);
            if let Some(out) = &tool.output_schema {
                assert!(out.len() <= 2, "{}: {out:?}", tool.name);
            }
        }
    }
    let client = Client::start(&[]);
    let arguments = case(&EXAMPLE, json!({"now": NOW}), &[]).arguments;
    let brief = client.call("explain_hpa", arguments.clone());
    assert!(
        answer_bytes(&brief) <= ANSWER_BUDGET,
        "{}",
        answer_bytes(&brief)
    );
    let (text, summary) = answered(&brief);
    let (full_text, whole) = answered(&client.call("explain_hpa", full(arguments)));
    assert_eq!(text, full_text, "the text is the short one either way");
    assert_eq!(summary["detail"], "summary");
    assert!(summary.get("steps").is_none(), "{summary}");
    assert_eq!(
        summary["stepsTotal"],
        whole["steps"].as_array().unwrap().len()
    );
    for key in [
        "desiredReplicas",
        "currentReplicas",
        "decision",
        "diagnostics",
        "metrics",
    ] {
        assert_eq!(summary[key].is_null(), whole[key].is_null(), "{key}");
    }
    assert_eq!(summary["desiredReplicas"], whole["desiredReplicas"]);
    assert_eq!(summary["decision"], whole["decision"]);
    // Each diagnostic without its fix, which the text's WHY lines carry, and without nulls.
    let fixless: Vec<Value> = (whole["diagnostics"].as_array().unwrap().iter())
        .map(|d| {
            let mut d = d.clone();
            (d.as_object_mut().unwrap()).retain(|k, v| k != "fix" && !v.is_null());
            d
        })
        .collect();
    assert_eq!(summary["diagnostics"], json!(fixless));
    let bad = refused(&client.call("explain_hpa", json!({"hpa": "x", "detail": "all"})));
    assert!(bad.starts_with("arguments: detail: found"), "{bad}");
    // The audit of the 20-HPA dump: one row an HPA, within the budget.
    let dump = json!({
        "dump": file("fixtures/cluster/dump/cluster.json"),
        "metrics": file("fixtures/cluster/dump/metrics.json"),
        "now": NOW,
    });
    let audit = client.call("audit", dump);
    let (_, rows) = answered(&audit);
    assert!(
        answer_bytes(&audit) <= 4 * ANSWER_BUDGET,
        "{}",
        answer_bytes(&audit)
    );
    // One row an HPA, as many as the budget leaves room for, and how many there are.
    let kept = rows["hpas"].as_array().unwrap().len();
    assert!((5..=20).contains(&kept), "{kept}");
    assert!(kept == 20 || rows["hpasTotal"] == 20, "{rows}");
    assert!(rows["hpas"][0].get("steps").is_none());
}

#[test]
fn a_live_hpa_of_two_thousand_pods_answers_twenty_pods_and_a_count_within_the_budget() {
    use crate::apiserver::{ApiServer, Fixture, synthetic_metrics, synthetic_pod};
    let mut fixture = Fixture::kubectl();
    fixture.pods = (0..2000).map(synthetic_pod).collect();
    fixture.metrics = synthetic_metrics(2000, "2026-11-29T14:59:58Z");
    let s = ApiServer::start(fixture);
    let test = crate::live::run_in(
        &root(),
        &["mcp", "--allow-live"],
        Some(&s.good_kubeconfig()),
    );
    let client = Client::of(test);
    let brief = client.call("explain_live_hpa", json!({"name": "web"}));
    let bytes = answer_bytes(&brief);
    let (text, summary) = answered(&brief);
    let sizes: Vec<(String, usize)> = (summary.as_object().unwrap().iter())
        .map(|(k, v)| (k.clone(), v.to_string().len()))
        .collect();
    eprintln!("text {} bytes; structured by key: {sizes:?}", text.len());
    let whole = client.call("explain_live_hpa", json!({"name": "web", "detail": "full"}));
    let full_bytes = answer_bytes(&whole);
    let (_, whole) = answered(&whole);
    eprintln!("explain_live_hpa of 2,000 pods: {bytes} bytes, with detail full {full_bytes}");
    // The decision, the WHY lines, the conditions and the status comparison within 8 KB.
    assert!(bytes <= ANSWER_BUDGET, "{bytes} bytes");
    assert_eq!(summary["decision"], whole["decision"]);
    for d in whole["diagnostics"].as_array().unwrap() {
        let (code, fix) = (d["code"].as_str().unwrap(), d["fix"].as_str().unwrap());
        assert!(text.contains(&format!(" {code}: ")), "{code}: {text}");
        assert!(
            fix.is_empty() || text.contains(&format!("  fix: {fix}\n")),
            "{code}: {text}"
        );
    }
    let metric = &summary["metrics"][0];
    // 20 pods, or fewer where 20 would pass the budget; the count says how many there are.
    let kept = metric["pods"].as_array().unwrap().len();
    assert!((5..=20).contains(&kept), "{metric}");
    assert_eq!(metric["podsTotal"], 2000);
    assert_eq!(whole["metrics"][0]["pods"].as_array().unwrap().len(), 2000);
    assert_eq!(summary["desiredReplicas"], whole["desiredReplicas"]);
}

#[test]
fn explain_hpa_answers_a_what_if_as_the_cli_does() {
    let client = Client::start(&[]);
    let tools = client.tools();
    let changes = [
        (
            json!({"set_request": ["cpu=250m"]}),
            vec!["--set-request", "cpu=250m"],
        ),
        (
            json!({"min": 3, "max": 5}),
            vec!["--min", "3", "--max", "5"],
        ),
        (
            json!({"scale_up_tolerance": 0.5, "what_if": ["tolerance=0.05"]}),
            vec!["--scale-up-tolerance", "0.5", "--what-if", "tolerance=0.05"],
        ),
    ];
    for (change, flags) in changes {
        let mut arguments = case(&EXAMPLE, json!({"now": NOW}), &[]).arguments;
        for (k, v) in change.as_object().unwrap() {
            arguments[k] = v.clone();
        }
        fits(&tools, "explain_hpa", &arguments);
        let mut all: Vec<&str> = case(&EXAMPLE, json!({}), &["--now", NOW]).flags;
        all.extend(flags.iter().copied());
        all.extend(["-o", "json"]);
        let expected = cli(&all, &EXAMPLE.map(|(arg, path)| (path, arg)));
        let (text, value) = answered(&client.call("explain_hpa", full(arguments.clone())));
        assert_eq!(value, json_of(&expected), "{flags:?}");
        assert!(text.starts_with("BEFORE\nHPA shop/web"), "{text}");
        assert!(text.contains("\nWHAT IF: "), "{text}");
        assert!(text.contains("desired replicas: "), "{text}");
        let (_, brief) = answered(&client.call("explain_hpa", arguments));
        assert_eq!(brief["detail"], "summary");
        assert_eq!(brief["desiredReplicasAfter"], value["desiredReplicasAfter"]);
        assert!(brief["after"].get("steps").is_none(), "{flags:?}");
    }
    let limit =
        json!({"hpa": file(EXAMPLE[0].1), "set_request": [], "what_if": ["set-limit=cpu=1"]});
    let e = refused(&client.call("explain_hpa", limit));
    assert!(
        e.starts_with("--set-limit: found a limit for one sync"),
        "{e}"
    );
}
