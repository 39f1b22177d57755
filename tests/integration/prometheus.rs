//! `simulate` replaying real load from Prometheus (issue 15): a real `prometheus` server (Debian's
//! package; `.ci/run` installs it) started on 127.0.0.1 over a TSDB backfilled with `promtool tsdb
//! create-blocks-from openmetrics` from data generated here, queried through hpacalc's own client
//! and compared with the same answers given as files; and the answers a server should not give,
//! from a tiny local HTTP server.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{Test, free_port, get, hpacalc, json_of, row, stderr, stdout, temp_dir};

/// 2023-11-14T22:13:20Z: time 0 of the generated data.
const T0: i64 = 1_700_000_000;
/// One hour of samples every 15 s.
const SPAN: i64 = 3600;

/// The total CPU demand at `t` seconds: 1 core, 4 cores from 10m, 1.5 cores from 30m.
fn demand(t: i64) -> f64 {
    match t {
        ..600 => 1.0,
        600..1800 => 4.0,
        _ => 1.5,
    }
}

/// The replicas "the cluster" had: 2, then 8 from 11m, then 3 from 40m.
fn replicas(t: i64) -> i64 {
    match t {
        ..660 => 2,
        660..2400 => 8,
        _ => 3,
    }
}

/// OpenMetrics for promtool: a gauge of the total demand with a NaN at 5m and no samples from
/// 45m to 55m (longer than the 5m lookback: the range query has no points there), the replicas,
/// and cAdvisor's counter for two pods that share the demand.
fn openmetrics() -> String {
    let times = || (0..=SPAN).step_by(15);
    let mut out = String::from("# TYPE hpacalc_test_cpu gauge\n");
    for t in times().filter(|t| !(2700..3300).contains(t)) {
        let v = if t == 300 {
            "NaN".to_string()
        } else {
            demand(t).to_string()
        };
        out.push_str(&format!("hpacalc_test_cpu{{pod=\"web\"}} {v} {}\n", T0 + t));
    }
    out.push_str("# TYPE hpacalc_test_replicas gauge\n");
    for t in times() {
        out.push_str(&format!(
            "hpacalc_test_replicas{{hpa=\"web\"}} {} {}\n",
            replicas(t),
            T0 + t
        ));
    }
    out.push_str("# TYPE container_cpu_usage_seconds counter\n");
    for pod in ["web-1", "web-2"] {
        let mut total = 0.0;
        for t in times() {
            out.push_str(&format!(
                "container_cpu_usage_seconds_total{{namespace=\"shop\",pod=\"{pod}\",container=\"app\"}} {total} {}\n",
                T0 + t
            ));
            total += demand(t) / 2.0 * 15.0;
        }
    }
    out.push_str("# EOF\n");
    out
}

/// A `prometheus` server on 127.0.0.1, stopped when dropped.
pub struct Prometheus {
    child: Child,
    pub port: u16,
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `promtool check metrics` on `text`: its exit code and what it said.
pub fn promtool_check_metrics(text: &str) -> (Option<i32>, String) {
    let mut promtool = std::process::Command::new(tool("promtool"))
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    promtool
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let o = promtool.wait_with_output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code(), said)
}

pub fn tool(name: &str) -> PathBuf {
    let path = Path::new("/usr/bin").join(name);
    assert!(
        path.exists(),
        "{name} is missing: install Debian's prometheus package (.ci/run does)"
    );
    path
}

fn start_prometheus(dir: &Path) -> Prometheus {
    let input = dir.join("data.om");
    std::fs::write(&input, openmetrics()).unwrap();
    let tsdb = dir.join("tsdb");
    let o = Command::new(tool("promtool"))
        .args(["tsdb", "create-blocks-from", "openmetrics"])
        .arg(&input)
        .arg(&tsdb)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "promtool: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    // No scrape targets: the server only answers queries on loopback.
    run_prometheus(
        dir,
        "global:\n  scrape_interval: 1h\nscrape_configs: []\n",
        &tsdb,
    )
}

/// Debian's `prometheus` with `config` on the TSDB `tsdb`, once it answers `/-/ready`.
pub fn run_prometheus(dir: &Path, config: &str, tsdb: &Path) -> Prometheus {
    let file = dir.join("prometheus.yml");
    std::fs::write(&file, config).unwrap();
    let config = file;
    let port = free_port();
    let child = Command::new(tool("prometheus"))
        .arg(format!("--config.file={}", config.display()))
        .arg(format!("--storage.tsdb.path={}", tsdb.display()))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .arg("--storage.tsdb.retention.time=3650d")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let server = Prometheus { child, port };
    let deadline = Instant::now() + Duration::from_secs(60);
    while get(port, "/-/ready").map(|(c, _)| c) != Some(200) {
        assert!(Instant::now() < deadline, "prometheus was not ready in 60s");
        std::thread::sleep(Duration::from_millis(200));
    }
    server
}

const CPU: &str = "hpacalc_test_cpu{pod=\"web\"}";
const RATE: &str =
    "sum(rate(container_cpu_usage_seconds_total{namespace=\"shop\",pod=~\"web-.*\"}[1m]))";
const ACTUAL: &str = "hpacalc_test_replicas{hpa=\"web\"}";

fn base() -> Vec<String> {
    [
        "simulate",
        "-o",
        "json",
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pod-request",
        "cpu=500m",
    ]
    .map(String::from)
    .to_vec()
}

/// The simulation and the warnings on stderr of a run that must succeed.
fn run_json(args: &[String]) -> (Value, String) {
    let o = Test::new().args(args).status(0).run();
    (json_of(&o, "simulation"), stderr(&o))
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[test]
fn a_replay_from_a_real_prometheus_equals_the_same_answers_given_as_files() {
    let dir = temp_dir("prometheus");
    let server = start_prometheus(&dir);
    let url = format!("http://127.0.0.1:{}", server.port);
    let range = [
        "--start",
        "2023-11-14T22:13:20Z",
        "--end",
        "2023-11-14T23:13:20Z",
        "--step",
        "15s",
    ]
    .map(String::from);

    let mut live = base();
    live.extend(["--prometheus".into(), url.clone()]);
    live.extend(["--query".into(), format!("cpu={CPU}")]);
    live.extend(["--actual".into(), ACTUAL.into()]);
    live.extend(range.iter().cloned());
    let (v, warnings) = run_json(&live);

    // The replay: time 0 is the first sample, the query's step, the gaps held and counted.
    assert_eq!(v["replay"]["start"], "2023-11-14T22:13:20Z");
    assert_eq!(v["replay"]["stepSeconds"], 15);
    // The NaN at 5m, and 50m to 55m: the 5m lookback covers 45m to 50m.
    assert_eq!(v["replay"]["loadGaps"], 21, "{warnings}");
    assert!(
        warnings.contains("--query cpu: series 0 hpacalc_test_cpu{pod=\"web\"} (cpu): 21 of 241 samples are NaN or missing"),
        "{warnings}"
    );
    assert_eq!(v["settings"]["durationSeconds"], SPAN);
    // Without --replicas the run starts where the cluster was.
    assert_eq!(v["settings"]["startReplicas"], 2);
    assert_eq!(row(&v, 0)["load"], 1.0);
    assert_eq!(row(&v, 300)["load"], 1.0);
    assert_eq!(row(&v, 900)["load"], 4.0);
    assert_eq!(row(&v, 3000)["load"], 1.5);
    // The actual replicas beside the simulation's, and the summary of where they differ.
    assert_eq!(row(&v, 0)["actualReplicas"], 2);
    assert_eq!(row(&v, 900)["actualReplicas"], 8);
    assert_eq!(row(&v, 3600)["actualReplicas"], 3);
    let a = &v["summary"]["actual"];
    assert_eq!(a["syncsCompared"], 241);
    let differing = v["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["desiredReplicas"] != r["actualReplicas"])
        .count();
    assert_eq!(a["syncsDifferent"], differing);
    assert!(differing > 0);

    // The same answers, fetched as files, give the same simulation.
    for (name, query) in [("load.json", CPU), ("actual.json", ACTUAL)] {
        let path = format!(
            "/api/v1/query_range?query={}&start={T0}&end={}&step=15",
            encode(query),
            T0 + SPAN
        );
        let (code, body) = get(server.port, &path).unwrap();
        assert_eq!(code, 200, "{body}");
        std::fs::write(dir.join(name), body).unwrap();
    }
    let mut files = base();
    files.extend(["--load".into(), dir.join("load.json").display().to_string()]);
    files.extend([
        "--actual-file".into(),
        dir.join("actual.json").display().to_string(),
    ]);
    let (from_files, _) = run_json(&files);
    assert_eq!(from_files, v);

    // cAdvisor's counter through rate(): the same load once the window has filled.
    let mut rate = base();
    rate.extend([
        "--prometheus".into(),
        url,
        "--query".into(),
        format!("cpu={RATE}"),
    ]);
    rate.extend(range.iter().cloned());
    let (r, _) = run_json(&rate);
    for t in [450, 1200, 3300] {
        let (want, got) = (
            demand(t),
            r["timeline"][usize::try_from(t / 15).unwrap()]["load"]
                .as_f64()
                .unwrap(),
        );
        assert!((want - got).abs() < 0.001, "{t}s: {got}, expected {want}");
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A tiny HTTP server on 127.0.0.1 that answers by the query it is sent, and remembers each
/// request's Authorization header.
fn canned_server() -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = Vec::new();
            let mut byte = [0u8; 1];
            while !request.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                request.push(byte[0]);
            }
            let request = String::from_utf8_lossy(&request).into_owned();
            let auth = request
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .starts_with("authorization:")
                        .then(|| l[14..].trim().to_string())
                })
                .unwrap_or_default();
            log.lock().unwrap().push(auth);
            let matrix = |result: &str| {
                format!(
                    "{{\"status\":\"success\",\"data\":{{\"resultType\":\"matrix\",\"result\":{result}}}}}"
                )
            };
            let (code, body) = if request.contains("query=error") {
                (
                    "400 Bad Request",
                    r#"{"status":"error","errorType":"bad_data","error":"1:6: parse error: unexpected end of input"}"#.to_string(),
                )
            } else if request.contains("query=vector") {
                (
                    "200 OK",
                    r#"{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1700000000,"1"]}]}}"#.to_string(),
                )
            } else if request.contains("query=empty") {
                ("200 OK", matrix("[]"))
            } else if request.contains("query=hang") {
                std::thread::sleep(Duration::from_secs(3));
                ("200 OK", matrix("[]"))
            } else if request.contains("query=fail") {
                (
                    "500 Internal Server Error",
                    "internal failure\n".to_string(),
                )
            } else {
                (
                    "200 OK",
                    matrix(r#"[{"metric":{},"values":[[1700000000,"1"],[1700000015,"2"]]}]"#),
                )
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {code}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (port, seen)
}

fn query_args(port: u16, query: &str) -> Vec<String> {
    let mut args = base();
    args.extend(
        [
            "--prometheus",
            &format!("http://127.0.0.1:{port}"),
            "--query",
            &format!("cpu={query}"),
            "--start",
            "2023-11-14T22:13:20Z",
            "--end",
            "2023-11-14T22:13:35Z",
        ]
        .map(String::from),
    );
    args
}

#[test]
fn bad_answers_and_unreachable_servers_are_errors_that_print_nothing() {
    let (port, _) = canned_server();
    let closed = free_port();
    let cases = [
        (
            query_args(port, "error"),
            "error: --query cpu: status: found status \"error\" (bad_data: \"1:6: parse error: \
             unexpected end of input\"), expected a successful answer",
        ),
        (
            query_args(port, "vector"),
            "error: --query cpu: data.resultType: found \"vector\", expected a \"matrix\"",
        ),
        (
            query_args(port, "empty"),
            "error: --query cpu: data.result: found an empty matrix (no series)",
        ),
        (
            query_args(port, "fail"),
            "answered HTTP 500 Internal Server Error: \"internal failure\", expected 200 OK",
        ),
        (
            [
                query_args(port, "hang"),
                vec!["--request-timeout".into(), "1s".into()],
            ]
            .concat(),
            "got no answer within 1s (--request-timeout)",
        ),
        (
            query_args(closed, "up"),
            "error: --query cpu: cannot reach the server for the range query --query cpu on \
             http://127.0.0.1:",
        ),
    ];
    for (args, want) in cases {
        Test::new().args(args).fails(1).stderr_contains(want).run();
    }
}

#[test]
fn the_token_and_basic_auth_reach_the_server() {
    let (port, seen) = canned_server();
    let mut token = query_args(port, "up");
    token.extend(["--token".into(), "s3cret".into()]);
    run_json(&token);
    Test::new()
        .args(query_args(port, "up"))
        .env("PROMETHEUS_USERNAME", "ann")
        .env("PROMETHEUS_PASSWORD", "pw")
        .status(0)
        .run();
    let seen = seen.lock().unwrap().clone();
    // base64("ann:pw")
    assert_eq!(seen, ["Bearer s3cret", "Basic YW5uOnB3"]);
}

#[test]
fn a_file_answer_is_mapped_and_its_errors_are_located() {
    let dir = temp_dir("answers");
    let answer = r#"{"status":"success","data":{"resultType":"matrix","result":[
  {"metric":{"pod":"a"},"values":[[1700000000,"1"],[1700000015,"3"]]},
  {"metric":{"pod":"b"},"values":[[1700000000,"2"],[1700000015,"NaN"]]}]}}"#;
    let file = dir.join("two.json");
    std::fs::write(&file, answer).unwrap();
    let file = file.display().to_string();
    let mut args = base();
    args.extend([
        "--load".into(),
        file.clone(),
        "--load-map".into(),
        "cpu={pod=\"b\"}".into(),
    ]);
    let (v, warnings) = run_json(&args);
    assert_eq!(row(&v, 15)["load"], 2.0);
    assert!(
        warnings.contains("1 of 2 samples are NaN or missing"),
        "{warnings}"
    );
    Test::new()
        .args(base())
        .args(["--load", &file])
        .status(1)
        .stderr_contains(format!(
            "error: {file}: found 2 series, expected one per metric: map one to cpu with \
             --load-map cpu=INDEX"
        ))
        .run();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"status\":\"success\",\n\"data\":{\"resultType\":\"matrix\",\"result\":[{\"values\":[[1,2]]}]}}").unwrap();
    Test::new()
        .args(base())
        .arg("--load")
        .arg(&bad)
        .status(1)
        .stderr_contains(format!("{}:2:", bad.display()))
        .stderr_contains("data.result[0].values[0][1]")
        .run();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_readme_walkthrough_is_the_real_output() {
    let readme = std::fs::read_to_string(crate::cli::root().join("docs/replay.md")).unwrap();
    let section = readme
        .split("## Why did it scale at 03:12?")
        .nth(1)
        .and_then(|s| s.split("![The replayed").next())
        .expect("docs/replay.md has the walkthrough");
    let chart = temp_dir("walkthrough").join("replay.svg");
    let chart = chart.display().to_string();
    let o = hpacalc(&[
        "simulate",
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pod-request",
        "cpu=500m",
        "--load",
        "fixtures/prometheus/night-cpu.json",
        "--actual-file",
        "fixtures/prometheus/night-replicas.json",
        "--chart",
        &chart,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let shown: Vec<&str> = section
        .split("```text\n")
        .skip(2)
        .filter_map(|block| block.split("```").next())
        .flat_map(str::lines)
        .filter(|l| !l.trim().is_empty() && *l != "…")
        .collect();
    assert!(shown.len() > 10, "{shown:?}");
    for line in shown {
        assert!(
            out.contains(line),
            "docs/replay.md line not in the output: {line}"
        );
    }
    assert!(std::fs::read_to_string(&chart).unwrap().starts_with("<svg"));
    let _ = std::fs::remove_dir_all(temp_dir("walkthrough"));
}

#[test]
fn tls_is_verified_unless_skipped_and_a_ca_file_is_trusted() {
    // A TLS server with a certificate from its own CA (the live mode's test API server): it has
    // no query_range, so getting past TLS shows as an HTTP error.
    let server = crate::apiserver::ApiServer::start(crate::apiserver::Fixture::kubectl());
    let ca = server.path("ca.pem");
    std::fs::write(&ca, &server.ca_pem).unwrap();
    let https = |extra: &[&str]| {
        let mut args = base();
        args.extend(
            [
                "--prometheus",
                &server.url,
                "--query",
                "cpu=up",
                "--start",
                "2023-11-14T22:13:20Z",
                "--end",
                "2023-11-14T22:13:35Z",
            ]
            .map(String::from),
        );
        args.extend(extra.iter().map(|s| s.to_string()));
        stderr(&Test::new().args(args).status(1).stdout("").run())
    };
    let refused = https(&[]);
    assert!(
        refused.contains("TLS failed for the range query --query cpu")
            && refused.contains("--certificate-authority, or --insecure-skip-tls-verify"),
        "{refused}"
    );
    for extra in [
        &["--insecure-skip-tls-verify"][..],
        &["--certificate-authority", ca.to_str().unwrap()],
    ] {
        let past_tls = https(extra);
        assert!(
            past_tls.contains("answered HTTP 4"),
            "{extra:?}: {past_tls}"
        );
    }
}

#[test]
fn replay_flag_errors_say_what_was_expected() {
    let run = |extra: &[&str]| Test::new().args(base()).args(extra);
    for (extra, code, want) in [
        (
            &[
                "--prometheus",
                "127.0.0.1:9090",
                "--query",
                "cpu=up",
                "--start",
                "-1h",
            ][..],
            1,
            "error: --prometheus: found \"127.0.0.1:9090\", expected an http:// or https:// URL",
        ),
        (
            &["--prometheus", "http://127.0.0.1:1", "--start", "-1h"],
            1,
            "error: --query: found no query for the HPA's metric cpu, expected --query cpu=PROMQL",
        ),
        (
            &["--load", "fixtures/load/web-day.csv", "--load-map", "cpu=0"],
            1,
            "error: --load-map: found a load CSV, expected a Prometheus query_range answer",
        ),
        (
            &["--load", "fixtures/load/web-day.csv", "--query", "cpu=up"],
            2,
            "error: --query needs --prometheus URL",
        ),
        (
            &[
                "--load",
                "fixtures/load/web-day.csv",
                "--insecure-skip-tls-verify",
            ],
            2,
            "error: --insecure-skip-tls-verify needs --prometheus URL",
        ),
        (
            &[
                "--load",
                "fixtures/load/web-day.csv",
                "--prometheus",
                "http://127.0.0.1:1",
            ],
            2,
            "cannot be used with",
        ),
    ] {
        run(extra).fails(code).stderr_contains(want).run();
    }
}

#[test]
fn an_answer_replays_exactly_as_the_same_steps_in_a_load_csv() {
    let dir = temp_dir("same-as-csv");
    let answer = r#"{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[
        [1700000000,"1"],[1700000030,"3.5"],[1700000060,"3.5"],[1700000090,"NaN"],[1700000120,"0.75"]]}]}}"#;
    let json = dir.join("load.json");
    std::fs::write(&json, answer).unwrap();
    let csv = dir.join("load.csv");
    std::fs::write(&csv, "time,cpu\n0s,1\n30s,3.5\n2m,750m\n").unwrap();
    let run = |load: &Path| {
        let mut args = base();
        args.extend(["--load".into(), load.display().to_string()]);
        args.extend([
            "--duration".into(),
            "10m".into(),
            "--replicas".into(),
            "2".into(),
        ]);
        run_json(&args).0
    };
    let (from_answer, from_csv) = (run(&json), run(&csv));
    assert_eq!(from_answer["timeline"], from_csv["timeline"]);
    assert_eq!(from_answer["events"], from_csv["events"]);
    assert_eq!(from_answer["loadCurve"], from_csv["loadCurve"]);
    assert_eq!(from_csv["replay"], Value::Null);
    assert_eq!(from_answer["replay"]["loadGaps"], 1);
    let _ = std::fs::remove_dir_all(&dir);
}
