//! `serve`'s `/metrics` as Prometheus takes it: both formats by the `Accept` header, promtool's
//! lint on the 0.0.4 text, every family's HELP and TYPE in the metadata API of a real Prometheus
//! (Debian's) that scrapes it, the finding, condition and build series against the report, and
//! every query of the Grafana dashboard (contrib/grafana/hpacalc.json) run on that Prometheus:
//! each parses, and each that reads only hpacalc's series returns data. `--listen :PORT` answers
//! on every address.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::apiserver::{ApiServer, Fixture};
use crate::serve::Serving;
use crate::support::{free_port, get, root, temp_dir};

const OPENMETRICS_ACCEPT: &str = "application/openmetrics-text;version=1.0.0,application/\
openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

/// A GET on `host:port` with an `Accept` header: the status, the Content-Type and the body.
fn get_accepting(host: &str, port: u16, path: &str, accept: &str) -> (u16, String, String) {
    let mut stream = std::net::TcpStream::connect((host, port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.0\r\nHost: localhost\r\nAccept: {accept}\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let code = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    let kind = (head.lines())
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-type")
                .then(|| v.trim().to_string())
        })
        .unwrap_or_default();
    (code, kind, body.to_string())
}

/// Each family of an exposition: (name, type) of its TYPE lines, and the names with a HELP.
fn families(text: &str) -> (Vec<(String, String)>, BTreeSet<String>) {
    let typed = (text.lines())
        .filter_map(|l| l.strip_prefix("# TYPE ")?.split_once(' '))
        .map(|(n, t)| (n.to_string(), t.to_string()))
        .collect();
    let helped = (text.lines())
        .filter_map(|l| Some(l.strip_prefix("# HELP ")?.split_once(' ')?.0.to_string()))
        .collect();
    (typed, helped)
}

/// The value of each sample of `name` whose labels include every `(key, value)` of `with`, as
/// its label text.
fn samples(text: &str, name: &str) -> BTreeSet<String> {
    (text.lines())
        .filter_map(|l| l.strip_prefix(name)?.strip_prefix('{'))
        .filter_map(|l| Some(l.rsplit_once("} ")?.0.to_string()))
        .collect()
}

/// A query string's bytes, percent-encoded.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A Prometheus API answer (its JSON), whatever its status code.
fn api(port: u16, path: &str) -> Value {
    let (_, body) = get(port, path).unwrap();
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}"))
}

/// Asks `check` of the answer until it holds, for up to 30 s (scrapes come every second).
fn api_until(port: u16, path: &str, what: &str, check: impl Fn(&Value) -> bool) -> Value {
    let started = Instant::now();
    loop {
        let v = api(port, path);
        if check(&v) {
            return v;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{what}: {path} answered {v}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

#[test]
fn metrics_negotiate_their_format_pass_promtool_and_name_findings_conditions_and_build() {
    let server = ApiServer::start(Fixture::cluster());
    let serving = Serving::start(&server, "60s");
    let host = "127.0.0.1";

    // No Accept (curl's */*): the 0.0.4 text, which promtool's lint passes.
    let (code, kind, text) = get_accepting(host, serving.port, "/metrics", "*/*");
    assert_eq!(code, 200);
    assert_eq!(kind, "text/plain; version=0.0.4; charset=utf-8");
    assert!(!text.contains("# EOF"), "{text}");
    assert!(text.contains("# TYPE hpacalc_evaluation_errors_total counter\n"));
    assert!(text.contains("# TYPE hpacalc_build_info gauge\n"));
    let (exit, said) = crate::prometheus::promtool_check_metrics(&text);
    assert_eq!(exit, Some(0), "promtool check metrics: {said}");
    // OpenMetrics when asked, as Prometheus asks.
    let (code, kind, open) = get_accepting(host, serving.port, "/metrics", OPENMETRICS_ACCEPT);
    assert_eq!(code, 200);
    assert_eq!(
        kind,
        "application/openmetrics-text; version=1.0.0; charset=utf-8"
    );
    assert!(open.ends_with("# EOF\n"));
    assert!(open.contains("# TYPE hpacalc_evaluation_errors counter\n"));
    assert!(open.contains("# TYPE hpacalc_build info\n"));
    // The samples are the same in both.
    let sample_lines = |t: &str| -> Vec<String> {
        (t.lines().filter(|l| !l.starts_with('#')))
            .map(String::from)
            .collect()
    };
    assert_eq!(sample_lines(&text), sample_lines(&open));
    // Every family has a HELP and a TYPE, in both formats.
    for body in [&text, &open] {
        let (typed, helped) = families(body);
        assert!(typed.len() >= 18, "{typed:?}");
        for (name, _) in &typed {
            assert!(helped.contains(name), "{name} has no HELP");
        }
    }

    // The finding, condition and build series, against the report of the same sync.
    let report = serving.json("/api/v1/hpas/team-0/hot");
    let hot = "namespace=\"team-0\",horizontalpodautoscaler=\"hot\"";
    let findings: BTreeSet<String> = samples(&text, "hpacalc_finding")
        .into_iter()
        .filter(|l| l.starts_with(hot))
        .collect();
    // Its diagnostics and the audit's findings about it, of warning or error severity.
    let audit = serving.json("/api/v1/findings");
    let of_hot = (audit["findings"].as_array().unwrap().iter())
        .filter(|f| f["hpa"] == "team-0/hot")
        .chain(report["diagnostics"].as_array().unwrap());
    let expected: BTreeSet<String> = of_hot
        .filter(|d| d["severity"] != "info")
        .map(|d| format!("{hot},code={},severity={}", d["code"], d["severity"]))
        .collect();
    assert!(expected.len() >= 2, "{report}");
    assert_eq!(findings, expected);
    let conditions: BTreeSet<String> = samples(&text, "hpacalc_condition")
        .into_iter()
        .filter(|l| l.starts_with(hot))
        .collect();
    let expected: BTreeSet<String> = (report["conditions"].as_array().unwrap().iter())
        .map(|c| {
            format!(
                "{hot},condition={},status={},reason={}",
                c["type"], c["status"], c["reason"]
            )
        })
        .collect();
    assert_eq!(conditions.len(), 3, "{conditions:?}");
    assert_eq!(conditions, expected);
    let build = samples(&text, "hpacalc_build_info");
    let build = build.iter().next().unwrap();
    assert!(
        build.starts_with(&format!(
            "version=\"{}\",revision=\"",
            env!("CARGO_PKG_VERSION")
        )),
        "{build}"
    );
    // Every finding of an HPA, one that could not be evaluated (its target is missing) too.
    for f in audit["findings"].as_array().unwrap() {
        let (Some(hpa), Some("warning" | "error")) = (f["hpa"].as_str(), f["severity"].as_str())
        else {
            continue;
        };
        let (ns, name) = hpa.split_once('/').unwrap();
        let labels = format!(
            "namespace=\"{ns}\",horizontalpodautoscaler=\"{name}\",code={},severity={}",
            f["code"], f["severity"]
        );
        assert!(
            samples(&text, "hpacalc_finding").contains(&labels),
            "{labels}"
        );
    }
}

/// Every expression of every panel of `dashboard`, and the selectors of the variables'
/// `label_values` queries, their variables left in.
fn dashboard_queries(dashboard: &Value) -> (Vec<String>, Vec<String>) {
    let panels = dashboard["panels"].as_array().unwrap();
    let exprs: Vec<String> = (panels.iter())
        .flat_map(|p| p["targets"].as_array().unwrap())
        .map(|t| t["expr"].as_str().unwrap().to_string())
        .collect();
    let selectors = (dashboard["templating"]["list"].as_array().unwrap().iter())
        .filter(|v| v["type"] == "query")
        .map(|v| {
            let q = v["query"]["query"].as_str().unwrap();
            let inner = q.strip_prefix("label_values(").unwrap();
            inner.rsplit_once(',').unwrap().0.to_string()
        })
        .collect();
    (exprs, selectors)
}

/// The variables as Grafana substitutes them: `Some((namespace, hpa))` one HPA, `None` any HPA
/// (each matcher of a variable made `=~".+"`).
fn substitute(expr: &str, hpa: Option<(&str, &str)>) -> String {
    let expr = expr.replace("$__rate_interval", "1m");
    match hpa {
        Some((namespace, name)) => expr.replace("$namespace", namespace).replace("$hpa", name),
        None => expr
            .replace("namespace=\"$namespace\"", "namespace=~\".+\"")
            .replace("namespace=~\"$namespace\"", "namespace=~\".+\"")
            .replace(
                "horizontalpodautoscaler=\"$hpa\"",
                "horizontalpodautoscaler=~\".+\"",
            ),
    }
}

/// The metric names an expression reads: every name before `{`, `[` or the end of a term.
fn metric_names(expr: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut word = String::new();
    let mut in_braces = false;
    let mut quoted = false;
    for c in expr.chars().chain([' ']) {
        match c {
            '"' => quoted = !quoted,
            _ if quoted => {}
            '{' => in_braces = true,
            '}' => in_braces = false,
            _ => {}
        }
        if !quoted && !in_braces && (c.is_ascii_alphanumeric() || c == '_') {
            word.push(c);
            continue;
        }
        if word.contains('_') && (word.starts_with("hpacalc_") || word.starts_with("kube_")) {
            names.insert(word.clone());
        }
        word.clear();
    }
    names
}

#[test]
fn a_real_prometheus_lists_every_family_and_runs_every_dashboard_query() {
    // Prometheus first, so that its scrapes (every second) see the first sync, whose series
    // the later ones do not all have (from the second sync the window holds every HPA of the
    // cluster, and no scale_down_at is left): a sync every 60 s, so that on a loaded machine
    // the test still reads the first sync's series throughout.
    let server = ApiServer::start(Fixture::cluster());
    let serve_port = free_port();
    let started = jiff::Timestamp::now().as_second() - 5;
    let dir = temp_dir("always-on-prometheus");
    let config = format!(
        "global:\n  scrape_interval: 1s\nscrape_configs:\n- job_name: hpacalc\n  \
         honor_labels: true\n  static_configs:\n  - targets: ['127.0.0.1:{serve_port}']\n"
    );
    let prometheus = crate::prometheus::run_prometheus(&dir, &config, &dir.join("tsdb"));
    let port = prometheus.port;
    let serving = Serving::start_on(&server, "60s", serve_port, &["-A"]);

    // Prometheus negotiates OpenMetrics: its metadata API lists each family by its name there,
    // with its type and help. A family is written only while it has series (the first sync's
    // scale_down_at of team-0/hot is gone at the second): each family of the body now is listed.
    let now_typed = || {
        let (_, _, open) = get_accepting("127.0.0.1", serving.port, "/metrics", OPENMETRICS_ACCEPT);
        families(&open).0
    };
    let metadata = api_until(port, "/api/v1/metadata", "every family's metadata", |v| {
        (now_typed().iter()).all(|(name, _)| v["data"].get(name).is_some())
    });
    let typed = now_typed();
    assert!(typed.len() >= 17, "{typed:?}");
    for (name, kind) in &typed {
        let entry = &metadata["data"][name][0];
        assert_eq!(entry["type"].as_str(), Some(kind.as_str()), "{name}");
        assert!(!entry["help"].as_str().unwrap().is_empty(), "{name}");
    }

    // A few scrapes, so that each range query has points.
    std::thread::sleep(Duration::from_secs(6));
    let dashboard: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("contrib/grafana/hpacalc.json")).unwrap(),
    )
    .unwrap();
    let (exprs, selectors) = dashboard_queries(&dashboard);
    assert!(exprs.len() >= 20, "{exprs:?}");
    for selector in &selectors {
        let selector = substitute(selector, Some(("team-0", "hot")));
        let path = format!("/api/v1/series?match[]={}", encode(&selector));
        let v = api(port, &path);
        assert_eq!(v["status"], "success", "{selector}: {v}");
        assert!(!v["data"].as_array().unwrap().is_empty(), "{selector}");
    }
    let range = |expr: &str| {
        format!(
            "/api/v1/query_range?query={}&start={started}&end={}&step=1",
            encode(expr),
            jiff::Timestamp::now().as_second()
        )
    };
    let has_data = |v: &Value| !v["data"]["result"].as_array().unwrap().is_empty();
    let mut kube = 0;
    for expr in &exprs {
        let names = metric_names(expr);
        assert!(!names.is_empty(), "{expr}");
        // team-0/hot: a metric with its lower edge, a window that holds, findings. Its upper
        // edge has no series (at maxReplicas, nothing raises it): such a query must find data
        // for some HPA of the cluster, as the variables offer them.
        let one = substitute(expr, Some(("team-0", "hot")));
        let v = api(port, &range(&one));
        assert_eq!(v["status"], "success", "{one}: {v}");
        if !names.iter().all(|n| n.starts_with("hpacalc_")) {
            // kube-state-metrics does not run here: it parses, and answers nothing.
            kube += 1;
            continue;
        }
        if !has_data(&v) {
            // The range ends now at every try: a scrape that lands later is in it.
            let any = substitute(expr, None);
            let started = Instant::now();
            while !has_data(&api(port, &range(&any))) {
                assert!(
                    started.elapsed() < Duration::from_secs(60),
                    "{any}: no data in 60 s"
                );
                std::thread::sleep(Duration::from_millis(500));
            }
        }
    }
    assert!(kube >= 3, "the kube-state-metrics joins");
}

#[test]
fn listen_on_a_port_alone_answers_on_every_address() {
    let port = free_port();
    let dir = temp_dir(&format!("listen-every-{port}"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_hpacalc"))
        .args(["serve", "--offline", "--listen", &format!(":{port}")])
        .env("HOME", &dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while get(port, "/healthz").is_none_or(|(code, _)| code != 200) {
        assert!(started.elapsed() < Duration::from_secs(30), "not ready");
        std::thread::sleep(Duration::from_millis(100));
    }
    // IPv6's loopback too, where this machine has one.
    if std::net::TcpListener::bind("[::1]:0").is_ok() {
        let (code, _, body) = get_accepting("::1", port, "/healthz", "*/*");
        assert_eq!((code, body.as_str()), (200, "ok\n"));
    } else {
        eprintln!("no IPv6 loopback here: only 127.0.0.1 is checked");
    }
    let _ = child.kill();
    let o = child.wait_with_output().unwrap();
    let log = String::from_utf8_lossy(&o.stderr);
    assert!(
        log.contains(&format!("answering on every address, port {port}")),
        "{log}"
    );
}
