//! `hpacalc serve` against the test API server serving `fixtures/cluster/dump` with watches:
//! every HPA of the cluster is evaluated at every sync and served as `/metrics` and JSON, equal
//! to `hpacalc audit -A` at the same time on the same objects; an HPA edited through a watch
//! event, and one edited while the watches are expired (410 Gone, a new list), show at a later
//! sync; SIGTERM stops it with exit 0.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::apiserver::{ApiServer, Fixture};
use crate::live::run_in;
use crate::support::{free_port, get, json_of, root, temp_dir};

/// `hpacalc serve` running, killed when dropped.
pub struct Serving {
    pub child: Child,
    pub port: u16,
    /// Its stderr.
    pub log: std::path::PathBuf,
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Serving {
    /// Starts `hpacalc serve -A` on `server`, syncing every `period`, and waits for `/readyz`.
    pub fn start(server: &ApiServer, period: &str) -> Serving {
        Serving::start_with(server, period, &["-A"])
    }

    /// `start`, with more flags.
    pub fn start_with(server: &ApiServer, period: &str, flags: &[&str]) -> Serving {
        Serving::start_on(server, period, free_port(), flags)
    }

    /// `start_with`, on 127.0.0.1:`port`.
    pub fn start_on(server: &ApiServer, period: &str, port: u16, flags: &[&str]) -> Serving {
        Serving::start_kubeconfig(server, &server.good_kubeconfig(), period, port, flags)
    }

    /// `start_on`, with the kubeconfig `kubeconfig`.
    pub fn start_kubeconfig(
        server: &ApiServer,
        kubeconfig: &std::path::Path,
        period: &str,
        port: u16,
        flags: &[&str],
    ) -> Serving {
        let log = temp_dir(&format!("serve-{port}")).join("stderr.txt");
        let child = Command::new(env!("CARGO_BIN_EXE_hpacalc"))
            .args(["serve", "--sync-period", period, "--listen"])
            .arg(format!("127.0.0.1:{port}"))
            .arg("--kubeconfig")
            .arg(kubeconfig)
            .args(flags)
            .env("HOME", &server.dir)
            .env_remove("KUBECONFIG")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let serving = Serving {
            child,
            port,
            log: log.clone(),
        };
        let started = Instant::now();
        while get(port, "/readyz").is_none_or(|(code, _)| code != 200) {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "serve was not ready in 60 s: {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        serving
    }

    /// The JSON of a path.
    pub fn json(&self, path: &str) -> Value {
        let (code, body) = get(self.port, path).unwrap();
        assert_eq!(code, 200, "{path}: {body}");
        serde_json::from_str(&body).unwrap()
    }

    /// The value of one series of `/metrics`, by its name and labels as printed.
    pub fn sample(&self, series: &str) -> Option<f64> {
        let (_, text) = get(self.port, "/metrics")?;
        text.lines()
            .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
    }

    /// Waits until `check` holds of `/metrics` (a sync or two).
    pub fn until(&self, what: &str, check: impl Fn(&Serving) -> bool) {
        let started = Instant::now();
        while !check(self) {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "{what} in 30 s"
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

fn hpa_series(name: &str, ns: &str, hpa: &str) -> String {
    format!("{name}{{namespace=\"{ns}\",horizontalpodautoscaler=\"{hpa}\"}}")
}

/// Everything of a report that is the controller's decision, without the time it was made.
fn decided(v: &Value) -> Value {
    let mut d = crate::support::decision(v);
    d.as_object_mut().unwrap().remove("now");
    d
}

#[test]
fn serve_answers_every_hpa_as_the_audit_does_and_follows_the_watches() {
    let server = ApiServer::start(Fixture::cluster());
    // One sync in the minute: every report below is of the first sync, whose memory is what
    // the events say, as an audit's is.
    let serving = Serving::start(&server, "60s");

    // The whole fleet, as `audit -A` answers at the same evaluation time.
    let hpas = serving.json("/api/v1/hpas");
    let listed = hpas["hpas"].as_array().unwrap();
    assert_eq!(listed.len(), 20, "every HPA of the dump");
    let one = serving.json("/api/v1/hpas/team-0/shop");
    let now = one["now"].as_str().unwrap().to_string();
    let o = run_in(
        &root(),
        &["audit", "-A", "-o", "json", "--now", &now],
        Some(&server.good_kubeconfig()),
    )
    .run();
    let audit = json_of(&o, "audit");
    for report in audit["hpas"].as_array().unwrap() {
        let key = report["hpa"].as_str().unwrap();
        let served = serving.json(&format!("/api/v1/hpas/{key}"));
        assert_eq!(served["now"], report["now"], "{key}: one sync");
        let (a, b) = (decided(&served), decided(report));
        if a != b {
            let dir = temp_dir("serve-diff");
            std::fs::write(dir.join("served.json"), format!("{a:#}")).unwrap();
            std::fs::write(dir.join("audit.json"), format!("{b:#}")).unwrap();
            panic!("{key}: served and audited differ, see {}", dir.display());
        }
        let (ns, name) = key.split_once('/').unwrap();
        for (series, field) in [
            ("hpacalc_current_replicas", "currentReplicas"),
            ("hpacalc_max_replicas", "maxReplicas"),
            ("hpacalc_min_replicas", "minReplicas"),
        ] {
            let value = serving.sample(&hpa_series(series, ns, name));
            assert_eq!(value, report[field].as_f64(), "{key} {series}");
        }
    }
    // A Utilization metric's value and target in percent, as kube-state-metrics labels them.
    let cpu = "{namespace=\"team-0\",horizontalpodautoscaler=\"shop\",metric_name=\"cpu\",\
               metric_target_type=\"utilization\"}";
    let target = serving.sample(&format!("hpacalc_metric_target{cpu}"));
    assert_eq!(
        target,
        one["metrics"][0]["target"]["averageUtilization"].as_f64()
    );
    assert!(
        serving
            .sample("hpacalc_last_sync_timestamp_seconds")
            .unwrap()
            > 1.7e9
    );
    assert_eq!(serving.sample("hpacalc_evaluation_errors_total"), Some(0.0));
    // The example lines of docs/serve.md and of README's "Always on" are what /metrics serves.
    let (code, metrics) = get(serving.port, "/metrics").unwrap();
    assert_eq!(code, 200);
    for (file, after, count) in [
        ("docs/serve.md", "For example", 6),
        ("README.md", "## Always on", 2),
    ] {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        let (_, example) = text.split_once(after).unwrap();
        let lines: Vec<&str> = (example.lines())
            .filter(|l| l.starts_with("hpacalc_") && l.contains('{'))
            .collect();
        assert_eq!(lines.len(), count, "{file}");
        for line in lines {
            assert!(
                metrics.lines().any(|m| m == line),
                "{file}: {line}\nnot in:\n{metrics}"
            );
        }
    }

    drop(serving);

    // Every second from here: an HPA edited, the watch's MODIFIED event reaches a later sync.
    let serving = Serving::start(&server, "1s");
    let edited = |name: &str, max: i64| {
        let mut hpa = (server.items().into_iter())
            .find(|i| i["kind"] == "HorizontalPodAutoscaler" && i["metadata"]["name"] == name)
            .unwrap();
        hpa["spec"]["maxReplicas"] = serde_json::json!(max);
        hpa
    };
    server.change(edited("cart", 30), false);
    let cart = hpa_series("hpacalc_max_replicas", "team-0", "cart");
    serving.until("the watched edit", |s| s.sample(&cart) == Some(30.0));
    // Its target scaled: the current count follows the Deployment.
    let mut deployment = (server.items().into_iter())
        .find(|i| i["kind"] == "Deployment" && i["metadata"]["name"] == "cart")
        .unwrap();
    deployment["spec"]["replicas"] = serde_json::json!(5);
    server.change(deployment, false);
    let current = hpa_series("hpacalc_current_replicas", "team-0", "cart");
    serving.until("the scaled target", |s| s.sample(&current) == Some(5.0));
    // An edit the watch never says: the 410 Gone that follows makes serve list again.
    server.change(edited("search", 40), true);
    server.expire_watches();
    let search = hpa_series("hpacalc_max_replicas", "team-0", "search");
    serving.until("the relisted edit", |s| s.sample(&search) == Some(40.0));

    // SIGTERM: a clean stop.
    let mut serving = serving;
    let pid = serving.child.id().to_string();
    Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = serving.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "serve ignored SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(status.code(), Some(0));
}

/// The value of the one series a PromQL instant query answers, from Prometheus at `port`.
fn promql(port: u16, query: &str) -> Option<f64> {
    let (code, body) = get(port, &format!("/api/v1/query?query={}", encode(query)))?;
    let v: Value = serde_json::from_str(&body).ok()?;
    if code != 200 || v["data"]["result"].as_array()?.len() != 1 {
        return None;
    }
    v["data"]["result"][0]["value"][1].as_str()?.parse().ok()
}

/// Asserts that the query gives `expected`, asking again for up to 20 s: a scrape under load may
/// come late.
fn promql_is(port: u16, query: &str, expected: Option<f64>) {
    let started = Instant::now();
    loop {
        let got = promql(port, query);
        if got == expected {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{query}: {got:?}, expected {expected:?}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
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

/// A real Prometheus (Debian's) scrapes `hpacalc serve`: a PromQL query of each series gives
/// what `/api/v1/hpas/NS/NAME`, the `-o json` report, says of the same HPA.
#[test]
fn a_real_prometheus_scrapes_serve_and_each_series_is_the_reports_value() {
    let server = ApiServer::start(Fixture::cluster());
    let serving = Serving::start(&server, "1s");
    let dir = temp_dir("serve-prometheus");
    let tsdb = dir.join("tsdb");
    let config = format!(
        "global:\n  scrape_interval: 1s\nscrape_configs:\n- job_name: hpacalc\n  \
         static_configs:\n  - targets: ['127.0.0.1:{}']\n",
        serving.port
    );
    let prometheus = crate::prometheus::run_prometheus(&dir, &config, &tsdb);
    let hpa = "{namespace=\"team-0\",horizontalpodautoscaler=\"hot\"}";
    let started = Instant::now();
    while promql(prometheus.port, &format!("hpacalc_current_replicas{hpa}")).is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no scrape in 60 s"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    // From the second sync on, the memory the first left holds the count for the downscale
    // window: the report (and the series) no longer change from one sync to the next.
    std::thread::sleep(Duration::from_secs(3));
    let report = serving.json("/api/v1/hpas/team-0/hot");
    // The first sync, like `audit`, reads a lower cpu as a scale-down at 40 % (steady load in
    // the window); later syncs remember the recommendations of 3 the first ones made.
    let band = &report["metrics"][0]["holdBand"];
    assert_eq!(band["lowHeldBy"], "stabilizationWindow", "{band}");
    for (series, field) in [
        ("hpacalc_desired_replicas", "desiredReplicas"),
        ("hpacalc_current_replicas", "currentReplicas"),
        ("hpacalc_min_replicas", "minReplicas"),
        ("hpacalc_max_replicas", "maxReplicas"),
    ] {
        promql_is(
            prometheus.port,
            &format!("{series}{hpa}"),
            report[field].as_f64(),
        );
    }
    let cpu = &report["metrics"][0];
    let labels = "{namespace=\"team-0\",horizontalpodautoscaler=\"hot\",metric_name=\"cpu\"}";
    let band = &cpu["holdBand"];
    for (series, value) in [
        ("hpacalc_metric_value", cpu["currentUtilization"].as_f64()),
        (
            "hpacalc_metric_target",
            cpu["target"]["averageUtilization"].as_f64(),
        ),
        ("hpacalc_scale_up_at", band["above"]["value"].as_f64()),
        ("hpacalc_scale_down_at", band["below"]["value"].as_f64()),
    ] {
        promql_is(prometheus.port, &format!("{series}{labels}"), value);
    }
    let mismatch = report["diagnostics"].to_string().contains("StatusMismatch");
    let query = format!("hpacalc_status_mismatch{hpa}");
    promql_is(prometheus.port, &query, Some(f64::from(u8::from(mismatch))));
    for code in (report["diagnostics"].as_array().unwrap().iter()).map(|d| &d["code"]) {
        let query = format!("hpacalc_diagnostic{{horizontalpodautoscaler=\"hot\",code={code}}}");
        promql_is(prometheus.port, &query, Some(1.0));
    }
    for series in [
        "hpacalc_evaluation_errors_total",
        "hpacalc_last_sync_timestamp_seconds",
        "hpacalc_sync_duration_seconds_count",
    ] {
        assert!(promql(prometheus.port, series).is_some(), "{series}");
    }
}

/// The series' value now, waiting for `check` to hold of it.
fn sample_until(serving: &Serving, series: &str, what: &str, check: impl Fn(f64) -> bool) -> f64 {
    serving.until(what, |s| s.sample(series).is_some_and(&check));
    serving.sample(series).unwrap()
}

/// Bad days: the API server goes away (the last sync is still served, the errors are counted)
/// and comes back (syncs go on); an HPA that cannot be evaluated is counted while the others are
/// served; a burst of 10,000 pod events leaves serve's memory where it was.
#[test]
fn serve_rides_out_an_api_server_gone_away_a_bad_hpa_and_a_burst_of_events() {
    let server = ApiServer::start(Fixture::cluster());
    let serving = Serving::start_with(&server, "1s", &["-A", "--log-format", "json"]);
    let hot = hpa_series("hpacalc_desired_replicas", "team-0", "hot");
    let desired = serving.sample(&hot);
    assert!(desired.is_some());
    let errors = "hpacalc_evaluation_errors_total";
    assert_eq!(serving.sample(errors), Some(0.0));

    server.go_away(true);
    sample_until(&serving, errors, "errors counted while away", |e| e > 0.0);
    assert_eq!(
        serving.sample(&hot),
        desired,
        "the last sync is still served"
    );
    let away = serving
        .sample("hpacalc_last_sync_timestamp_seconds")
        .unwrap();
    server.go_away(false);
    sample_until(
        &serving,
        "hpacalc_last_sync_timestamp_seconds",
        "a sync after",
        |t| t > away,
    );
    assert_eq!(serving.sample(&hot), desired);

    // An HPA whose metrics no controller can read: counted, the others still served.
    let mut bad = (server.items().into_iter())
        .find(|i| i["kind"] == "HorizontalPodAutoscaler" && i["metadata"]["name"] == "cart")
        .unwrap();
    bad["metadata"]["name"] = serde_json::json!("broken");
    bad["spec"]["metrics"] = serde_json::json!([{"type": "Bogus"}]);
    let before = serving.sample(errors).unwrap();
    server.change(bad, false);
    sample_until(&serving, errors, "the bad HPA counted", |e| e > before);
    assert_eq!(serving.sample(&hot), desired);
    let listed = serving.json("/api/v1/hpas");
    assert!(listed["hpas"].as_array().unwrap().len() >= 20);

    // 10,000 MODIFIED events for the pods serve already holds: its memory stays put.
    let rss = |pid: u32| -> u64 {
        let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        (text.lines())
            .find_map(|l| {
                l.strip_prefix("VmRSS:")?
                    .trim()
                    .strip_suffix("kB")?
                    .trim()
                    .parse()
                    .ok()
            })
            .unwrap()
    };
    let pods: Vec<Value> = (server.items().into_iter())
        .filter(|i| i["kind"] == "Pod")
        .collect();
    let first = rss(serving.child.id());
    for round in 0..10_000 / pods.len() + 1 {
        for pod in &pods {
            let mut pod = pod.clone();
            pod["metadata"]["labels"]["round"] = serde_json::json!(round.to_string());
            server.change(pod, false);
        }
    }
    let synced = serving
        .sample("hpacalc_last_sync_timestamp_seconds")
        .unwrap();
    sample_until(
        &serving,
        "hpacalc_last_sync_timestamp_seconds",
        "a sync after the burst",
        |t| t > synced + 2.0,
    );
    let after = rss(serving.child.id());
    assert!(
        after < first + 64 * 1024,
        "RSS {first} KiB before the burst, {after} KiB after"
    );
    assert_eq!(serving.sample(&hot), desired);

    // `--log-format json`: every stderr line one object, the outage said in them.
    let log = std::fs::read_to_string(&serving.log).unwrap();
    let lines: Vec<Value> = (log.lines())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert!(
        lines
            .iter()
            .all(|l| l["time"].is_string() && l["message"].is_string())
    );
    assert!(lines.iter().any(|l| {
        l["level"] == "info"
            && l["message"]
                .as_str()
                .unwrap()
                .contains("the first sync evaluated 20 HPA(s)")
    }));
    assert!(lines.iter().any(|l| {
        l["level"] == "warning"
            && l["message"]
                .as_str()
                .unwrap()
                .contains("serve: the sync failed")
    }));
}

/// Two namespaces, one of which answers 403 to every list: the other is served, the refused
/// lists are findings, and the refused reads count as errors at every sync.
#[test]
fn a_forbidden_namespace_leaves_the_others_served() {
    let server = ApiServer::start(Fixture::cluster());
    let serving = Serving::start_with(&server, "1s", &["-n", "team-1", "-n", "locked"]);
    let listed = serving.json("/api/v1/hpas");
    let hpas: Vec<&str> = (listed["hpas"].as_array().unwrap().iter())
        .map(|h| h["hpa"].as_str().unwrap())
        .collect();
    assert_eq!(hpas, ["team-1/app-1"]);
    assert!(
        serving
            .sample(&hpa_series("hpacalc_desired_replicas", "team-1", "app-1"))
            .is_some()
    );
    sample_until(
        &serving,
        "hpacalc_evaluation_errors_total",
        "the refused reads",
        |e| e > 0.0,
    );
    let log = std::fs::read_to_string(&serving.log).unwrap();
    assert!(log.contains("in namespace locked"), "{log}");
    let findings = serving.json("/api/v1/findings");
    let forbidden: Vec<&Value> = (findings["findings"].as_array().unwrap().iter())
        .filter(|f| f["code"] == "ListForbidden")
        .collect();
    let messages: Vec<&str> = forbidden
        .iter()
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert!(
        messages.iter().any(|m| m.contains("locked")),
        "{messages:#?}"
    );
}

/// kubectl's connection flags, as live mode, a list and `audit -n` take them (one `AuthFlags`):
/// `--server`, `--token` and `--insecure-skip-tls-verify` win over a kubeconfig of a dead server,
/// another CA and a bad token, and `--as`/`--as-group` are sent on every request, the watches'
/// included.
#[test]
fn serve_takes_kubectls_connection_flags_as_live_mode_does() {
    let server = ApiServer::start(Fixture::cluster());
    let bad = server.kubeconfig(
        "kubeconfig-all-wrong",
        "wrong",
        &crate::apiserver::foreign_ca_pem(),
        "https://127.0.0.1:1",
    );
    let flags = [
        "-A",
        "--server",
        &server.url,
        "--token",
        crate::apiserver::TOKEN,
        "--insecure-skip-tls-verify",
        "--as",
        "jane",
        "--as-group",
        "ops",
    ];
    let serving = Serving::start_kubeconfig(&server, &bad, "60s", free_port(), &flags);
    let listed = serving.json("/api/v1/hpas");
    assert_eq!(listed["hpas"].as_array().unwrap().len(), 20, "{listed}");
    let seen = server.impersonations();
    assert!(!seen.is_empty());
    for (user, groups) in &seen {
        assert_eq!(
            (user.as_deref(), groups.as_slice()),
            (Some("jane"), &["ops".to_string()][..])
        );
    }
    drop(serving);
    // --as-group needs --as, as kubectl's does: a usage error before anything is read.
    crate::live::run_in(
        &root(),
        &["serve", "-A", "--as-group", "ops"],
        Some(&server.good_kubeconfig()),
    )
    .status(2)
    .stdout("")
    .run();
}
