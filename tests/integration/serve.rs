//! `hpacalc serve` against the test API server serving `fixtures/cluster/dump` with watches:
//! every HPA of the cluster is evaluated at every sync and served as `/metrics` and JSON, equal
//! to `hpacalc audit -A` at the same time on the same objects; an HPA edited through a watch
//! event, and one edited while the watches are expired (410 Gone, a new list), show at a later
//! sync; SIGTERM stops it with exit 0.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::apiserver::{ApiServer, Fixture};
use crate::live::run_in;
use crate::support::{json_of, root, temp_dir};

/// A GET on 127.0.0.1:`port`: (status code, body).
pub fn get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut tcp = TcpStream::connect(("127.0.0.1", port)).ok()?;
    tcp.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(tcp, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut answer = String::new();
    tcp.read_to_string(&mut answer).ok()?;
    let (head, body) = answer.split_once("\r\n\r\n")?;
    let code = head.split_whitespace().nth(1)?.parse().ok()?;
    Some((code, body.to_string()))
}

/// A free port on 127.0.0.1.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `hpacalc serve` running, killed when dropped.
pub struct Serving {
    pub child: Child,
    pub port: u16,
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Serving {
    /// Starts `hpacalc serve -A` on `server`, syncing every second, and waits for `/readyz`.
    pub fn start(server: &ApiServer) -> Serving {
        let port = free_port();
        let log = temp_dir("serve").join("stderr.txt");
        let child = Command::new(env!("CARGO_BIN_EXE_hpacalc"))
            .args(["serve", "-A", "--sync-period", "1s", "--listen"])
            .arg(format!("127.0.0.1:{port}"))
            .arg("--kubeconfig")
            .arg(server.good_kubeconfig())
            .env("HOME", &server.dir)
            .env_remove("KUBECONFIG")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let serving = Serving { child, port };
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
    let serving = Serving::start(&server);

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
        if served["now"] == report["now"] {
            let (a, b) = (decided(&served), decided(report));
            if a != b {
                let dir = temp_dir("serve-diff");
                std::fs::write(dir.join("served.json"), format!("{a:#}")).unwrap();
                std::fs::write(dir.join("audit.json"), format!("{b:#}")).unwrap();
                panic!("{key}: served and audited differ, see {}", dir.display());
            }
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

    // An HPA edited: the watch's MODIFIED event reaches the next sync.
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
