//! Hardening, round three (issue 22): each attack of the campaign, generated here in the shape it
//! was run, against the binary. Every case ends within 20 s and 1 GiB, with the right answer or
//! exit 1, one short error line and nothing on stdout; no file outside what the run was asked to
//! write changes; no secret reaches a stream; no control byte from an input reaches the
//! terminal. The cluster-side cases use the test API server's `hostile-*` namespaces. Round four
//! (issue 35) adds its own: each output language's encoder on the campaign's names, errors quoted
//! one way on every surface, and names that are not path segments refused.

use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::apiserver::{ApiServer, Fixture, Watches};
use crate::live::{audit_live, fail_line, live, run_in, save_dir, server};
use crate::serve::Serving;
use crate::support::{NOW, Scratch, Test, get, stderr, stdout};
use crate::web::Offline;

/// The bounds of every case, in CPU time (`Test::cpu_within`: the kernel's limit, so a loaded
/// machine does not fail them; a hang is caught on the wall clock at 15 times this). They guard
/// against blow-ups, not speed (benches/ measure that): debug builds of the largest cases take
/// about 10 s of CPU.
const WITHIN: Duration = Duration::from_secs(40);
const MEMORY_MIB: u64 = 1024;

/// An error a person reads: one line, short, without a raw control byte.
fn short_error(text: &str) {
    assert_eq!(text.lines().count(), 1, "{}", &text[..text.len().min(500)]);
    assert!(text.len() < 2_000, "{} bytes: {}", text.len(), &text[..500]);
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text}"
    );
}

/// A bounded failing run: exit 1, nothing on stdout, one short error line.
fn refused(test: Test) -> String {
    let out = test
        .cpu_within(WITHIN)
        .memory_limit_mib(MEMORY_MIB)
        .status(1)
        .stdout("")
        .run();
    let err = stderr(&out);
    short_error(&err);
    err
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

// ---------------------------------------------------------------------------------------------
// Round four (issue 35): what the new surfaces echo goes through the encoder of its language,
// errors are quoted one way on every surface, and API paths hold only path segments.

/// The campaign's hostile names that a real API server accepts as a metric name (a path
/// segment): a forged series, a name ending in a backslash, Markdown's line break, heading, HTML,
/// image and link, a comment opening a script, terminal escapes, a carriage return, the Unicode
/// line separators and NUL.
const HOSTILE_NAMES: &[&str] = &[
    "x\"} 1\nhpacalc_desired_replicas{namespace=\"kube-system\",horizontalpodautoscaler=\"forged\"} 999",
    "ends-in\\",
    "q\n# heading\n<img src=x onerror=alert(1)>![i](x)[l](y)|`",
    "<!--<script",
    "\u{1b}[31mred\u{7}",
    "carriage\rreturn",
    "line\u{2028}separator\u{2029}",
    "nul\0byte",
];

/// One External metric a name, each with its own target.
fn hostile_metrics() -> Vec<Value> {
    (HOSTILE_NAMES.iter().enumerate())
        .map(|(i, name)| {
            json!({"type": "External", "external": {"metric": {"name": name},
                "target": {"type": "Value", "value": (i + 1).to_string()}}})
        })
        .collect()
}

/// A sample's name and labels.
type Sample = (String, Vec<(String, String)>);

/// Each sample of a text exposition: its name and labels, read as the format says (`\\`, `\"`
/// and `\n` the only escapes), or `None` where a line does not parse.
fn exposition_samples(text: &str) -> Option<Vec<Sample>> {
    let mut out = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (name, mut rest) = match line.find(['{', ' ']) {
            Some(i) => line.split_at(i),
            None => return None,
        };
        let mut labels = Vec::new();
        if let Some(inner) = rest.strip_prefix('{') {
            let mut chars = inner.char_indices();
            let mut key = String::new();
            loop {
                let (_, c) = chars.next()?;
                match c {
                    '}' => break,
                    ',' => {}
                    '=' => {
                        if chars.next()?.1 != '"' {
                            return None;
                        }
                        let mut value = String::new();
                        loop {
                            match chars.next()?.1 {
                                '\\' => match chars.next()?.1 {
                                    '\\' => value.push('\\'),
                                    '"' => value.push('"'),
                                    'n' => value.push('\n'),
                                    _ => return None,
                                },
                                '"' => break,
                                c => value.push(c),
                            }
                        }
                        labels.push((std::mem::take(&mut key), value));
                    }
                    c => key.push(c),
                }
            }
            rest = &inner[chars.next().map_or(inner.len(), |(i, _)| i)..];
        }
        let value = rest.trim();
        if value.parse::<f64>().is_err() && !["NaN", "+Inf", "-Inf"].contains(&value) {
            return None;
        }
        out.push((name.to_string(), labels));
    }
    Some(out)
}

/// The test API server with HPA team-0/hot on every hostile name (each answered 5), and `serve`
/// on it.
fn serving_hostile_names(interval: &str) -> (ApiServer, Serving) {
    let mut fixture = Fixture::cluster();
    let dump = fixture.dump.as_mut().unwrap();
    let hpa = (dump.items.iter_mut())
        .find(|i| i["kind"] == "HorizontalPodAutoscaler" && i["metadata"]["name"] == "hot")
        .unwrap();
    hpa["spec"]["metrics"] = Value::Array(hostile_metrics());
    // Each External metric is answered (a value of 5), so each has its series.
    let items: Vec<Value> = (HOSTILE_NAMES.iter())
        .map(|name| json!({"metricName": name, "metricLabels": {}, "timestamp": NOW, "value": "5"}))
        .collect();
    dump.external = Some(json!({"kind": "ExternalMetricValueList",
        "apiVersion": "external.metrics.k8s.io/v1beta1", "metadata": {}, "items": items}));
    let server = ApiServer::start(fixture);
    let serving = Serving::start(&server, interval);
    (server, serving)
}

#[test]
fn a_hostile_metric_name_forges_no_series_and_the_exposition_parses() {
    let (server, serving) = serving_hostile_names("60s");
    let (code, text) = crate::support::get(serving.port, "/metrics").unwrap();
    assert_eq!(code, 200);

    // promtool reads it whole: no parse error (exit 1); its lint (exit 3) is about names.
    let (code, said) = crate::prometheus::promtool_check_metrics(&text);
    assert_ne!(code, Some(1), "{said}");
    assert!(
        !said.contains("parsing error") && !said.contains("error while linting"),
        "{said}"
    );

    // Every sample is of an HPA the cluster has, and the metric names come back as they were.
    let samples = exposition_samples(&text).expect("every line parses");
    let hpas: Vec<(String, String)> = (server.items().iter())
        .filter(|i| i["kind"] == "HorizontalPodAutoscaler")
        .map(|i| {
            let m = &i["metadata"];
            (
                m["namespace"].as_str().unwrap().into(),
                m["name"].as_str().unwrap().into(),
            )
        })
        .collect();
    let label = |labels: &[(String, String)], key: &str| {
        labels
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    };
    for (name, labels) in &samples {
        let Some(ns) = label(labels, "namespace") else {
            continue;
        };
        let hpa = label(labels, "horizontalpodautoscaler").unwrap();
        assert!(
            hpas.contains(&(ns.clone(), hpa.clone())),
            "{name} {ns}/{hpa}"
        );
    }
    let targets: Vec<String> = (samples.iter())
        .filter(|(name, labels)| {
            name == "hpacalc_metric_target"
                && label(labels, "horizontalpodautoscaler").as_deref() == Some("hot")
        })
        .filter_map(|(_, labels)| label(labels, "metric_name"))
        .collect();
    for hostile in HOSTILE_NAMES {
        assert!(
            targets.iter().any(|t| t.starts_with(hostile)),
            "{hostile:?} in {targets:?}: {}",
            serving.json("/api/v1/hpas/team-0/hot")["metrics"]
        );
    }
}

/// A PromQL query's result vector (`None` until Prometheus answers it).
fn promql_vector(port: u16, query: &str) -> Option<Vec<Value>> {
    let encoded: String = (query.bytes())
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect();
    let (code, body) = get(port, &format!("/api/v1/query?query={encoded}"))?;
    let v: Value = serde_json::from_str(&body).ok()?;
    (code == 200).then(|| v["data"]["result"].as_array().cloned())?
}

/// Debian's Prometheus scrapes `serve` with `honor_labels: true` (as contrib/deploy's
/// ServiceMonitor does): the target is up, no series names another namespace or HPA, and each
/// hostile name is a label value Prometheus read back whole.
#[test]
fn a_real_prometheus_scrape_of_hostile_names_is_up_and_forges_nothing() {
    let (server, serving) = serving_hostile_names("1s");
    let dir = crate::support::temp_dir("hardening-prometheus");
    let config = format!(
        "global:\n  scrape_interval: 1s\nscrape_configs:\n- job_name: hpacalc\n  \
         honor_labels: true\n  static_configs:\n  - targets: ['127.0.0.1:{}']\n",
        serving.port
    );
    let prometheus = crate::prometheus::run_prometheus(&dir, &config, &dir.join("tsdb"));
    let hot = "hpacalc_metric_target{namespace=\"team-0\",horizontalpodautoscaler=\"hot\"}";
    // Generous: a loaded machine may take a while for the first scrapes.
    let deadline = Instant::now() + Duration::from_secs(120);
    let names: Vec<String> = loop {
        let up = promql_vector(prometheus.port, "up{job=\"hpacalc\"}").unwrap_or_default();
        let targets = promql_vector(prometheus.port, hot).unwrap_or_default();
        if up.len() == 1 && up[0]["value"][1] == "1" && targets.len() >= HOSTILE_NAMES.len() {
            break (targets.iter())
                .map(|t| {
                    t["metric"]["metric_name"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string()
                })
                .collect();
        }
        assert!(
            Instant::now() < deadline,
            "no scrape with up == 1 and every target in 120 s: up {up:?}, {} targets",
            targets.len()
        );
        std::thread::sleep(Duration::from_millis(500));
    };
    // The names as /metrics writes them, read by the format's own rules: Prometheus read the same.
    let (_, text) = get(serving.port, "/metrics").unwrap();
    let exposed: Vec<String> = (exposition_samples(&text).unwrap().into_iter())
        .filter(|(name, labels)| {
            name == "hpacalc_metric_target"
                && labels
                    .iter()
                    .any(|(k, v)| k == "horizontalpodautoscaler" && v == "hot")
        })
        .filter_map(|(_, labels)| labels.into_iter().find(|(k, _)| k == "metric_name"))
        .map(|(_, v)| v)
        .collect();
    for hostile in HOSTILE_NAMES {
        let scraped = names.iter().find(|n| n.starts_with(hostile));
        assert!(scraped.is_some(), "{hostile:?} not in {names:?}");
        assert!(
            exposed.contains(scraped.unwrap()),
            "{scraped:?} in {exposed:?}"
        );
    }
    for forged in [
        "{namespace=\"kube-system\"}",
        "{horizontalpodautoscaler=\"forged\"}",
    ] {
        let found = promql_vector(prometheus.port, forged).unwrap();
        assert!(found.is_empty(), "{forged}: {found:?}");
    }
    // Every stored series of an HPA is of an HPA the cluster has.
    let hpas: Vec<(Value, Value)> = (server.items().iter())
        .filter(|i| i["kind"] == "HorizontalPodAutoscaler")
        .map(|i| {
            (
                i["metadata"]["namespace"].clone(),
                i["metadata"]["name"].clone(),
            )
        })
        .collect();
    let all = "{__name__=~\"hpacalc_.+\",horizontalpodautoscaler!=\"\"}";
    let stored = promql_vector(prometheus.port, all).unwrap();
    assert!(!stored.is_empty());
    for series in stored {
        let m = &series["metric"];
        let of = (m["namespace"].clone(), m["horizontalpodautoscaler"].clone());
        assert!(hpas.contains(&of), "{m}");
    }
}

#[test]
fn diff_markdown_keeps_each_hostile_name_inside_its_cell() {
    let scratch = Scratch::new("hardening-diff-markdown");
    let side = |dir: &str, value: &str| {
        let hpa = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment",
                "name": "web"}, "minReplicas": 2, "maxReplicas": 10,
                "metrics": hostile_metrics().into_iter().map(|mut m| {
                    m["external"]["target"]["value"] = json!(value);
                    m
                }).collect::<Vec<_>>()}});
        std::fs::create_dir_all(scratch.0.join(dir)).unwrap();
        write(&scratch.0.join(dir), "web.json", &hpa.to_string())
    };
    let (old, new) = (side("old", "3"), side("new", "4"));
    let o = Test::new()
        .args(["diff", &old, &new, "-o", "markdown"])
        .status(0)
        .run();
    let md = stdout(&o);
    // Each changed metric is one row of three cells: nothing of a name ends the row, starts a
    // block or opens markup (every special character is behind a backslash).
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| metrics[")).collect();
    assert!(rows.is_empty(), "the field name is escaped too: {md}");
    let rows: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("| metrics\\["))
        .collect();
    assert_eq!(rows.len(), HOSTILE_NAMES.len(), "{md}");
    for row in rows {
        let cells = row.replace("\\\\", "").replace("\\|", "");
        assert_eq!(cells.matches('|').count(), 4, "{row}");
        let bare = row
            .replace("\\\\", "")
            .replace("\\<", "")
            .replace("\\[", "");
        assert!(!bare.contains(['<', '[']), "{row}");
    }
    assert!(!md.lines().any(|l| l.starts_with("# ")), "{md}");
    assert!(
        !md.contains(['\u{1b}', '\u{7}', '\r', '\0', '\u{2028}']),
        "{md}"
    );
}

#[test]
fn diff_tables_send_no_control_byte_to_the_terminal() {
    let scratch = Scratch::new("hardening-diff-table");
    let side = |dir: &str, value: &str| {
        let hpa = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment",
                "name": "web"}, "minReplicas": 2, "maxReplicas": 10,
                "metrics": [{"type": "External", "external": {"metric": {"name":
                    "\u{1b}]0;title\u{7}\u{1b}[2J\r\u{2028}"}, "target": {"type": "Value",
                    "value": value}}}]}});
        std::fs::create_dir_all(scratch.0.join(dir)).unwrap();
        write(&scratch.0.join(dir), "web.json", &hpa.to_string())
    };
    let (old, new) = (side("old", "3"), side("new", "4"));
    let o = Test::new().args(["diff", &old, &new]).status(0).run();
    let table = stdout(&o);
    assert!(
        !table.contains(['\u{1b}', '\u{7}', '\r', '\u{2028}']),
        "{table:?}"
    );
    assert!(table.contains("\\e]0;title\\u0007"), "{table}");
    // A metric without a selector is named without one: not the controller's `queue(nil)`.
    assert!(!table.contains("(nil)"), "{table}");
}

#[test]
fn the_pages_json_block_ends_where_it_should_whatever_a_name_holds() {
    use crate::web::{Offline, data, encode, post};
    let server = Offline::start();
    let current: Vec<Value> = (HOSTILE_NAMES.iter())
        .map(|name| {
            json!({"type": "External", "external": {"metric": {"name": name},
                "current": {"value": "4"}}})
        })
        .collect();
    let hpa = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment",
            "name": "web"}, "minReplicas": 2, "maxReplicas": 10, "metrics": hostile_metrics()},
        "status": {"currentReplicas": 3, "desiredReplicas": 3, "currentMetrics": current}});
    let body = format!("hpa={}&now={}", encode(&hpa.to_string()), encode(NOW));
    let (code, _, page) = post(server.port, "/calc", body.as_bytes());
    assert_eq!(code, 200, "{page}");
    // The block is JSON up to its own end: nothing in it can open a comment or a script.
    let open = "id=\"hpacalc-data\">";
    let start = page.find(open).unwrap() + open.len();
    let end = start + page[start..].find("</script>").unwrap();
    assert!(!page[start..end].contains(['<', '>', '&']));
    let v = data(&page);
    let names: Vec<&str> = (v["metrics"].as_array().unwrap().iter())
        .filter_map(|m| m["name"].as_str())
        .collect();
    assert!(names.iter().any(|n| n.contains("<!--<script")), "{names:?}");
    // The page goes on after it to its end.
    assert!(page[end..].trim_end().ends_with("</html>"));
    // Control characters in the report's tables are shown, never sent.
    assert!(
        !page.contains(['\u{1b}', '\u{7}', '\0']),
        "a raw control byte"
    );
    assert!(page.contains("\\u{1b}[31mred"));
}

/// Chromium's own tokenizer: a name holding `<!--<script` in /simulate's data leaves
/// `#hpacalc-data` closed where the page closes it, and the paste form after it is a form of the
/// document, not text of the block (`--dump-dom` serializes the DOM Chromium built).
#[test]
fn chromium_keeps_the_data_block_closed_and_the_paste_form_outside_it() {
    use crate::web::{Offline, data, encode};
    let server = Offline::start();
    let name = "<!--<script";
    let hpa = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment",
            "name": "web"}, "minReplicas": 2, "maxReplicas": 10,
            "metrics": [{"type": "External", "external": {"metric": {"name": name},
                "target": {"type": "Value", "value": "1"}}}]},
        "status": {"currentReplicas": 3, "desiredReplicas": 3}});
    let load = format!("time,{name}\n0s,1\n5m,2\n");
    let query = format!(
        "hpa={}&load={}&now={}",
        encode(&hpa.to_string()),
        encode(&load),
        encode(NOW)
    );
    let url = server.url(&format!("/simulate?{query}"));
    let (code, served) = get(server.port, &format!("/simulate?{query}")).unwrap();
    assert_eq!(code, 200, "{served}");
    assert!(served.find("id=\"hpacalc-data\"").unwrap() < served.find("id=\"paste\"").unwrap());

    let scratch = Scratch::new("hardening-chromium-dom");
    let dom = crate::html::chromium(&url, "--dump-dom", &scratch.0).stdout;
    // The block Chromium built is the JSON the page wrote, the hostile name in it.
    let v = data(&dom);
    assert!(v.to_string().contains(name), "{v}");
    // The block ends where the page ends it: after it come the paste form and the page's end,
    // as elements.
    let open = "id=\"hpacalc-data\">";
    let start = dom.find(open).unwrap() + open.len();
    let end = start + dom[start..].find("</script>").unwrap();
    assert!(
        !dom[start..end].contains("<form"),
        "the form inside the block"
    );
    let form = "<form method=\"post\" action=\"/simulate\" id=\"paste\">";
    let at = end + (dom[end..].find(form)).unwrap_or_else(|| panic!("no paste form: {dom}"));
    // Every script between the block and the form is closed: the form is not script text.
    let between = &dom[end..at];
    assert_eq!(
        between.matches("<script").count() + 1,
        between.matches("</script>").count(),
        "{between}"
    );
    assert!(dom.trim_end().ends_with("</html>"));
}

#[test]
fn names_that_are_not_path_segments_are_refused_before_any_request() {
    for bad in ["..", ".", "a/b", "a%2Fb"] {
        let err = fail_line(live(&["web", "-n", bad]));
        assert!(err.contains("invalid namespace"), "{bad}: {err}");
        assert!(err.contains("client-go refuses it"), "{err}");
        if bad == "a/b" {
            // kubectl's TYPE/NAME form: a type that is not an HPA's is a usage error.
            live(&[bad])
                .status(2)
                .stdout("")
                .stderr_contains("TYPE/NAME with an HPA's type")
                .run();
            continue;
        }
        let err = fail_line(live(&[bad]));
        assert!(err.contains("invalid resource name"), "{bad}: {err}");
    }
    let err = fail_line(audit_live(&["-n", ".."]));
    assert!(err.contains("may not be '..'"), "{err}");
    let sent = server().requests();
    assert!(
        !sent
            .iter()
            .any(|r| r.contains("/../") || r.contains("/./") || r.contains("%2F")),
        "{sent:?}"
    );
}

#[test]
fn a_flag_value_is_quoted_one_way_and_rules_refuses_a_period_prometheus_cannot_hold() {
    let err = refused(Test::new().args(["rules", "--sync-period", "1s\nerror: forged line"]));
    assert!(err.contains("\\nerror: forged line"), "{err}");
    let err = refused(Test::new().args(["rules", "--sync-period", "9999999999h"]));
    assert!(err.contains("expected at most 854015h55m45s618ms"), "{err}");
    let long = "7".repeat(5_000);
    for args in [
        vec![
            "-f",
            "fixtures/hpa/multi.yaml",
            "--feature-gates",
            &format!("{long}=true"),
        ],
        vec![
            "-f",
            "fixtures/hpa/multi.yaml",
            "--cpu-initialization-period",
            &long,
        ],
    ] {
        let err = refused(Test::new().args(&args));
        assert!(err.contains("(5000 characters)"), "{err}");
        assert_eq!(err.matches("characters)").count(), 1, "one length: {err}");
    }
    // clap's own usage error quotes the value the same way.
    let o = Test::new()
        .args(["-f", "fixtures/hpa/multi.yaml", "--tolerance"])
        .arg(format!("{long}\u{1b}[31m"))
        .status(2)
        .stdout("")
        .run();
    let err = stderr(&o);
    assert!(err.contains("... (500"), "{err}");
    assert!(err.len() < 2_000 && !err.contains('\u{1b}'), "{err}");
}

/// `hpacalc mcp` initialized over raw stdio; each of `requests` (raw lines) is sent in turn, and
/// the answer lines read back until each of `ids` is answered (the server answers requests as
/// they end, not in order).
fn mcp_raw(requests: &[String], ids: &[u64]) -> Vec<Value> {
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
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "hardening", "version": "0"}}});
    writeln!(stdin, "{initialize}").unwrap();
    lines.next().unwrap().unwrap();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    writeln!(stdin, "{initialized}").unwrap();
    for request in requests {
        writeln!(stdin, "{request}").unwrap();
    }
    let mut answers = Vec::new();
    loop {
        let answer = lines.next().unwrap().unwrap();
        assert!(answer.len() < 2_000, "{} bytes", answer.len());
        let v: Value = serde_json::from_str(&answer).unwrap();
        answers.push(v);
        if ids.iter().all(|id| answers.iter().any(|a| a["id"] == *id)) {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    answers
}

#[test]
fn mcp_answers_an_unknown_method_with_its_name_quoted() {
    let method = "m".repeat(4 * 1024 * 1024);
    let v = &mcp_raw(
        &[json!({"jsonrpc": "2.0", "id": 2, "method": method}).to_string()],
        &[2],
    )[0];
    assert_eq!(v["error"]["code"], -32601, "{v}");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.ends_with("...\" (4194304 characters)"), "{message}");
}

/// rmcp's own protocol errors: params that do not deserialize are quoted as every error is
/// (serde's reason quotes the refused value: cut to 80 characters with its length, control
/// bytes escaped); a line that is not JSON gets no answer and echoes nothing, and the session
/// goes on.
#[test]
fn mcp_protocol_errors_quote_what_they_refuse() {
    let huge = format!("{}\n\u{1b}[31m\u{7}", "A".repeat(4 * 1024 * 1024));
    let requests = [
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "explain_hpa", "arguments": huge}})
        .to_string(),
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{{\"name\":\"{}",
            "D".repeat(1024 * 1024)
        ),
        json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}).to_string(),
    ];
    // The line that is not JSON (id 3) is never answered: wait for the other two.
    let answers = mcp_raw(&requests, &[2, 4]);
    let by_id = |id: u64| answers.iter().find(|a| a["id"] == id);
    let invalid = by_id(2).expect("an answer to the invalid params");
    assert_eq!(invalid["error"]["code"], -32602, "{invalid}");
    let message = invalid["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("invalid params for \"tools/call\": invalid type: string \"AAAA"),
        "{message}"
    );
    // Cut, with the length of what serde quoted (the value, its escapes written out).
    let length: usize = (message.split("...\" (").nth(1))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no length: {message}"));
    assert!(length > 4 * 1024 * 1024, "{message}");
    assert!(message.ends_with(" characters), expected a map") && message.len() < 300);
    assert!(!message.contains(['\u{1b}', '\u{7}', '\n']), "{message}");
    // The line that is not JSON: no answer, nothing of it echoed; the ping after it answered.
    assert!(by_id(3).is_none(), "{answers:?}");
    assert!(answers.iter().all(|a| !a.to_string().contains("DDDD")));
    assert_eq!(by_id(4).unwrap()["result"], json!({}));
}

// ---------------------------------------------------------------------------------------------
// Data destroyed or written where it should not be.

/// An earlier capture in `dir`, saved from `shop`.
fn earlier_capture(name: &str) -> std::path::PathBuf {
    let dir = save_dir(name);
    live(&["web", "-n", "shop", "--save", dir.to_str().unwrap()])
        .status(0)
        .run();
    assert!(dir.join("command.txt").exists());
    dir
}

#[test]
fn save_never_deletes_a_file_this_run_did_not_write() {
    let dir = earlier_capture("keep-mine");
    // The user's own file, named like one an HPA without custom metrics does not write.
    let mine = write(&dir, "custom-metrics-error.json", "my notes");
    live(&["web", "-n", "shop", "--save", dir.to_str().unwrap()])
        .status(0)
        .run();
    assert_eq!(std::fs::read_to_string(mine).unwrap(), "my notes");
}

#[test]
fn save_refuses_a_folder_that_is_not_an_earlier_capture() {
    let dir = save_dir("not-a-capture");
    std::fs::create_dir_all(&dir).unwrap();
    let mine = write(&dir, "notes.txt", "mine");
    let out = live(&["web", "-n", "shop", "--save", dir.to_str().unwrap()])
        .status(2)
        .stdout("")
        .run();
    assert!(stderr(&out).contains("found a folder with other files (notes.txt)"));
    assert_eq!(std::fs::read_to_string(mine).unwrap(), "mine");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
}

#[cfg(unix)]
#[test]
fn save_never_writes_through_a_symlink() {
    let dir = earlier_capture("symlinked");
    let victim_dir = save_dir("victim");
    std::fs::create_dir_all(&victim_dir).unwrap();
    let victim = write(&victim_dir, "notes.txt", "the victim's notes");
    std::fs::remove_file(dir.join("hpa.yaml")).unwrap();
    std::os::unix::fs::symlink(&victim, dir.join("hpa.yaml")).unwrap();
    live(&["web", "-n", "shop", "--save", dir.to_str().unwrap()])
        .status(0)
        .run();
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "the victim's notes"
    );
    assert!(
        std::fs::symlink_metadata(dir.join("hpa.yaml"))
            .unwrap()
            .is_file()
    );
}

#[test]
fn a_failed_run_leaves_the_earlier_capture_whole() {
    let dir = earlier_capture("kept-whole");
    let before: Vec<(String, Vec<u8>)> = files_of(&dir);
    let err = fail_line(live(&[
        "web",
        "-n",
        "hostile-podsforbidden",
        "--save",
        dir.to_str().unwrap(),
    ]));
    assert!(err.contains("forbidden (403)"), "{err}");
    assert_eq!(files_of(&dir), before, "no file changed, none added");
}

fn files_of(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).unwrap_or_default())
        })
        .collect();
    files.sort();
    files
}

#[cfg(unix)]
#[test]
fn a_fifo_in_the_capture_folder_is_refused_not_opened() {
    let dir = earlier_capture("with-fifo");
    std::fs::remove_file(dir.join("scale.json")).unwrap();
    let fifo = dir.join("scale.json");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let err = refused(live(&[
        "web",
        "-n",
        "shop",
        "--save",
        dir.to_str().unwrap(),
    ]));
    assert!(err.contains("found a named pipe"), "{err}");
}

#[test]
fn live_mode_without_save_writes_no_file() {
    let tmp = Scratch::new("no-temp-files");
    live(&["web", "-n", "shop"])
        .env("TMPDIR", &tmp.0)
        .status(0)
        .run();
    assert_eq!(std::fs::read_dir(&tmp.0).unwrap().count(), 0);
}

// ---------------------------------------------------------------------------------------------
// Secrets.

#[test]
fn a_kubeconfig_error_names_the_place_never_the_content() {
    let tmp = Scratch::new("kubeconfig-secret");
    let secret = "s3cr3t-token-value";
    let key = "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tbXlrZXk=";
    let text = format!(
        "apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n    token: {secret}\n    \
         client-key-data: {key}\n  oops: [unclosed\ncontexts: []\n"
    );
    let path = write(&tmp.0, "kubeconfig", &text);
    let err = refused(run_in(&tmp.0, &["web"], Some(Path::new(&path))));
    // The place: the file, then its line and column.
    let place = err.split(&path).nth(1).unwrap_or("");
    assert!(
        place.starts_with(':') && place[1..].starts_with(|c: char| c.is_ascii_digit()),
        "{err}"
    );
    assert!(!err.contains(secret) && !err.contains(key), "{err}");
}

#[cfg(unix)]
#[test]
fn devices_and_fifos_in_a_kubeconfig_are_refused() {
    let tmp = Scratch::new("kubeconfig-devices");
    let ca = base64(server().ca_pem.as_bytes());
    let config = |cluster: &str, user: &str| {
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: t\nclusters:\n- name: c\n  cluster:\n    \
             server: {}\n    {cluster}\ncontexts:\n- name: t\n  context:\n    cluster: c\n    \
             user: u\nusers:\n- name: u\n  user:\n    {user}\n",
            server().url
        )
    };
    let cases = [
        (
            config(
                &format!("certificate-authority-data: {ca}"),
                "tokenFile: /dev/zero",
            ),
            "found a character device",
        ),
        (
            config("certificate-authority: /dev/urandom", "token: x"),
            "found a character device",
        ),
    ];
    for (text, want) in cases {
        let path = write(&tmp.0, "kubeconfig", &text);
        let err = refused(run_in(&tmp.0, &["web"], Some(Path::new(&path))));
        assert!(err.contains(want), "{err}");
    }
    // A kubeconfig that is a FIFO nobody writes.
    let fifo = tmp.0.join("fifo-config");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let err = refused(run_in(&tmp.0, &["web"], Some(&fifo)));
    assert!(err.contains("found a named pipe with no writer"), "{err}");
    // /dev/zero as the kubeconfig itself.
    let err = refused(run_in(&tmp.0, &["web"], Some(Path::new("/dev/zero"))));
    assert!(err.contains("found a character device"), "{err}");
}

#[cfg(unix)]
#[test]
fn an_exec_plugin_is_bounded_in_time_and_output() {
    let tmp = Scratch::new("exec-plugin");
    let ca = base64(server().ca_pem.as_bytes());
    let config = |command: &str, args: &str| {
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: t\nclusters:\n- name: c\n  cluster:\n    \
             server: {}\n    certificate-authority-data: {ca}\ncontexts:\n- name: t\n  context:\n    \
             cluster: c\n    user: u\nusers:\n- name: u\n  user:\n    exec:\n      apiVersion: \
             client.authentication.k8s.io/v1\n      command: {command}\n      args: {args}\n      \
             interactiveMode: Never\n",
            server().url
        )
    };
    // A plugin that never answers, under --request-timeout 1s.
    let path = write(&tmp.0, "slow", &config("sleep", "[\"600\"]"));
    let err = refused(run_in(
        &tmp.0,
        &["web", "--request-timeout", "1s"],
        Some(Path::new(&path)),
    ));
    assert!(err.contains("gave no credential within 1s"), "{err}");
    // A plugin that writes without end.
    let path = write(&tmp.0, "endless", &config("yes", "[]"));
    let err = refused(run_in(&tmp.0, &["web"], Some(Path::new(&path))));
    assert!(err.contains("printed more than 1048576 bytes"), "{err}");
    // A plugin that answers: the token it prints is used.
    let credential = json!({"apiVersion": "client.authentication.k8s.io/v1",
        "kind": "ExecCredential", "status": {"token": crate::apiserver::TOKEN}});
    let script = write(
        &tmp.0,
        "plugin.sh",
        &format!("#!/bin/sh\necho '{credential}'\n"),
    );
    std::process::Command::new("chmod")
        .args(["+x", &script])
        .status()
        .unwrap();
    let path = write(&tmp.0, "good", &config(&script, "[]"));
    let out = run_in(&tmp.0, &["web", "-n", "shop"], Some(Path::new(&path)))
        .status(0)
        .run();
    assert!(stdout(&out).contains("HPA shop/web"));
}

fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                char::from(ABC[((n >> (18 - 6 * i)) & 63) as usize])
            } else {
                '='
            });
        }
    }
    out
}

#[test]
fn kubeconfig_skips_the_files_of_kubeconfig_that_do_not_exist() {
    let out = run_in(&crate::support::root(), &["web", "-n", "shop"], None)
        .env(
            "KUBECONFIG",
            format!(
                "/nonexistent/config:{}",
                server().good_kubeconfig().display()
            ),
        )
        .status(0)
        .run();
    assert!(stdout(&out).contains("HPA shop/web"));
}

// ---------------------------------------------------------------------------------------------
// Unbounded memory or time from the cluster side.

#[test]
fn an_answer_past_the_size_limit_stops_while_it_arrives() {
    // One HPA of 70 MiB: past the 3 MiB no stored object exceeds, read no further.
    let err = refused(live(&["web", "-n", "hostile-huge"]));
    assert!(
        err.contains("with more than 3145728 bytes, expected at most 3 MiB"),
        "{err}"
    );
    assert!(err.contains("not the object asked for"), "{err}");
}

#[test]
fn a_list_past_the_size_limit_stops_while_it_arrives() {
    // `audit` of a namespace whose PodMetrics list is one answer of 530 MiB.
    let err = refused(audit_live(&["-n", "hostile-hugelist"]));
    assert!(err.contains("with more than 536870912 bytes"), "{err}");
}

#[test]
fn a_list_that_repeats_its_continue_token_stops() {
    let err = refused(live(&["web", "-n", "hostile-endless"]));
    assert!(
        err.contains("with the continue token of an earlier page again"),
        "{err}"
    );
}

#[test]
fn a_list_that_never_ends_stops_at_the_page_limit() {
    let err = refused(live(&["web", "-n", "hostile-chatty"]));
    assert!(err.contains("with more than 200 pages"), "{err}");
}

#[test]
fn a_large_unavailable_status_is_the_controllers_failed_metric() {
    let v = live(&["web", "-n", "hostile-bigstatus", "-o", "json"])
        .cpu_within(WITHIN)
        .status(0)
        .schema("report")
        .json();
    let codes: Vec<&str> = (v["diagnostics"].as_array().unwrap().iter())
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert!(codes.contains(&"MetricsApiUnavailable"), "{codes:?}");
    let text = v.to_string();
    assert!(
        text.len() < 40_000,
        "the report keeps the message cut: {}",
        text.len()
    );
}

// ---------------------------------------------------------------------------------------------
// Raw control bytes and floods.

#[test]
fn a_servers_message_is_cut_and_escaped_in_errors() {
    let err = refused(live(&["web", "-n", "hostile-noisy"]));
    assert!(
        err.contains("forbidden (403)") && err.contains("characters)"),
        "{err}"
    );
    // A selector of 80,000 labels: the request's path is refused before it is sent, and the
    // path is quoted cut, with its length.
    let err = refused(live(&["web", "-n", "hostile-bigselector"]));
    assert!(err.contains("characters)") && err.len() < 2_000, "{err}");
}

#[test]
fn the_watch_line_never_sends_an_escape_to_the_terminal() {
    let out = live(&["web", "-n", "hostile-ansi", "--watch", "--watch-count", "1"])
        .cpu_within(WITHIN)
        .status(0)
        .run();
    let text = stdout(&out);
    assert!(text.contains("MetricsApiUnavailable"), "{text}");
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text:?}"
    );
}

#[test]
fn long_values_in_errors_are_cut_with_their_length() {
    let tmp = Scratch::new("long-values");
    // A KEDA formula of 600 KB.
    let formula = "a + ".repeat(150_000) + "a";
    let so = format!(
        "apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {{name: w, namespace: q}}\n\
         spec:\n  scaleTargetRef: {{name: w}}\n  advanced:\n    scalingModifiers:\n      \
         formula: \"{formula}\"\n      target: \"5\"\n  triggers:\n  - type: prometheus\n    \
         name: a\n    metadata: {{serverAddress: http://p, query: q, threshold: \"5\"}}\n"
    );
    let path = write(&tmp.0, "so.yaml", &so);
    let err = refused(Test::new().args(["--hpa", &path, "--current-replicas", "1"]));
    assert!(err.contains("characters)"), "{err}");
    // 5,000 HPAs in one file, and the one asked for is not among them.
    let docs: Vec<String> = (0..5_000)
        .map(|i| {
            format!(
                "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: h{i}, \
                 namespace: shop}}\nspec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: \
                 Deployment, name: web}}\n  maxReplicas: 3\n"
            )
        })
        .collect();
    let path = write(&tmp.0, "many.yaml", &docs.join("---\n"));
    let err = refused(Test::new().args(["--hpa", &path, "--name", "nothere"]));
    assert!(err.contains("and 4980 more"), "{err}");
}

#[test]
fn a_parsers_quote_of_a_long_value_is_cut() {
    let tmp = Scratch::new("parser-quote");
    let long = "x".repeat(200_000);
    let hpa = format!(
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: web, \
         namespace: shop}}\nspec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, \
         name: web}}\n  maxReplicas: \"{long}\"\n"
    );
    let path = write(&tmp.0, "hpa.yaml", &hpa);
    let err = refused(Test::new().args(["--hpa", &path, "--current-replicas", "1"]));
    assert!(
        err.contains("...\" (200000 characters), expected i32"),
        "{err}"
    );
    let pods = json!({"apiVersion": "v1", "kind": "List", "items": [{"kind": "Pod",
        "metadata": {"name": "a", "namespace": "shop"}, "spec": {"containers": long}}]});
    let path = write(&tmp.0, "pods.json", &pods.to_string());
    let err = refused(Test::new().args(["--hpa", "fixtures/hpa/web-cpu.yaml", "--pods", &path]));
    assert!(
        err.contains("(200000 characters), expected a sequence"),
        "{err}"
    );
}

#[test]
fn a_name_longer_than_the_api_allows_is_refused() {
    let tmp = Scratch::new("long-name");
    let name = "w".repeat(4 * 1024 * 1024);
    let hpa = format!(
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: web, \
         namespace: shop}}\nspec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, \
         name: {name}}}\n  maxReplicas: 3\n  metrics:\n  - type: Resource\n    resource: {{name: \
         cpu, target: {{type: Utilization, averageUtilization: 50}}}}\n"
    );
    let path = write(&tmp.0, "hpa.yaml", &hpa);
    let err = refused(Test::new().args([
        "--hpa",
        &path,
        "--pods",
        "fixtures/samples/web-cpu.csv",
        "--now",
        NOW,
    ]));
    assert!(
        err.contains("found a name of 4194304 characters, expected at most 253"),
        "{err}"
    );
}

#[test]
fn a_long_word_in_an_event_message_is_rendered_at_once() {
    let tmp = Scratch::new("long-word");
    let events = json!({"apiVersion": "v1", "kind": "List", "items": [{
        "apiVersion": "v1", "kind": "Event", "metadata": {"name": "e", "namespace": "shop"},
        "involvedObject": {"kind": "HorizontalPodAutoscaler", "name": "web", "namespace": "shop"},
        "reason": "FailedGetResourceMetric", "type": "Warning", "count": 3,
        "message": format!("failed {}", "x".repeat(2_000_000)),
        "firstTimestamp": "2026-11-29T14:50:00Z", "lastTimestamp": "2026-11-29T14:59:00Z"}]});
    let path = write(&tmp.0, "events.json", &events.to_string());
    let out = Test::new()
        .args([
            "--hpa",
            "fixtures/hpa/web-cpu.yaml",
            "--pods",
            "fixtures/samples/web-cpu.csv",
        ])
        .args(["--now", NOW, "--events", &path])
        .cpu_within(WITHIN)
        .status(0)
        .run();
    assert!(stdout(&out).len() < 20_000);
}

// ---------------------------------------------------------------------------------------------
// Quadratic inputs.

/// A cluster dump of `items`.
fn dump(dir: &Path, items: Vec<Value>) -> String {
    write(
        dir,
        "dump.json",
        &json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string(),
    )
}

fn deployment(name: &str, labels: &Value) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": name, "namespace": "shop"},
           "spec": {"replicas": 1, "selector": {"matchLabels": labels},
                    "template": {"metadata": {"labels": labels},
                                 "spec": {"containers": [{"name": "app",
                                     "resources": {"requests": {"cpu": "100m"}}}]}}},
           "status": {"replicas": 1}})
}

fn hpa_of(name: &str, target: &str) -> Value {
    json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
           "metadata": {"name": name, "namespace": "shop"},
           "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment",
                                       "name": target},
                    "minReplicas": 1, "maxReplicas": 3,
                    "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                        "target": {"type": "Utilization", "averageUtilization": 50}}}]}})
}

fn audit_json(args: &[&str]) -> (Value, usize) {
    let out = Test::new()
        .arg("audit")
        .args(args)
        .args(["-o", "json"])
        .cpu_within(WITHIN)
        .memory_limit_mib(MEMORY_MIB)
        .status(0)
        .run();
    let size = out.stdout.len();
    (serde_json::from_slice(&out.stdout).unwrap(), size)
}

#[test]
fn many_hpas_on_one_target_give_linear_findings() {
    let tmp = Scratch::new("many-on-one");
    let labels = json!({"app": "web"});
    let mut items = vec![deployment("web", &labels)];
    items.extend((0..2_500).map(|i| hpa_of(&format!("h{i:04}"), "web")));
    let path = dump(&tmp.0, items);
    let (v, size) = audit_json(&["--dump", &path, "--now", NOW]);
    assert!(size < 50_000_000, "{size} bytes of JSON");
    let finding = (v["findings"].as_array().unwrap().iter())
        .find(|f| f["code"] == "AmbiguousSelector")
        .unwrap();
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .starts_with("2499 other HPA(s)")
    );
    assert!(finding["objects"].as_array().unwrap().len() <= 20);
}

#[test]
fn many_deployments_under_one_selector_are_one_group() {
    let tmp = Scratch::new("one-selector");
    let labels = json!({"app": "web"});
    let mut docs = Vec::new();
    for i in 0..5_000 {
        let name = format!("d{i:04}");
        docs.push(deployment(&name, &labels).to_string());
        docs.push(hpa_of(&name, &name).to_string());
    }
    std::fs::write(
        tmp.0.join("all.json"),
        format!(
            "{{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{}]}}",
            docs.join(",")
        ),
    )
    .unwrap();
    let manifests = tmp.0.join("all.json");
    let out = Test::new()
        .args(["audit", "-f", manifests.to_str().unwrap(), "-o", "json"])
        .cpu_within(WITHIN)
        .memory_limit_mib(MEMORY_MIB)
        .run();
    // Every HPA's pods are every other's: 5,000 AmbiguousSelector findings of 20 names each.
    assert!(out.stdout.len() < 100_000_000, "{}", out.stdout.len());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let message = (v["findings"].as_array().unwrap().iter())
        .find(|f| f["code"] == "AmbiguousSelector")
        .and_then(|f| f["message"].as_str())
        .unwrap()
        .to_string();
    assert!(message.contains("and 4980 more"), "{message}");
}

#[test]
fn a_selector_of_many_labels_is_matched_in_linear_time() {
    let tmp = Scratch::new("many-labels");
    let labels: serde_json::Map<String, Value> =
        (0..30_000).map(|i| (format!("k{i}"), json!("v"))).collect();
    let labels = Value::Object(labels);
    let pod = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-1", "namespace": "shop", "labels": labels},
        "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": "100m"}}}]},
        "status": {"phase": "Running"}});
    let path = dump(
        &tmp.0,
        vec![deployment("web", &labels), hpa_of("web", "web"), pod],
    );
    let (v, _) = audit_json(&["--dump", &path, "--now", NOW]);
    assert_eq!(v["summary"]["hpas"], 1);
}

#[cfg(unix)]
#[test]
fn symlinked_folders_are_not_walked() {
    let tmp = Scratch::new("loops");
    let labels = json!({"app": "web"});
    let items = json!([deployment("web", &labels), hpa_of("web", "web")]);
    write(
        &tmp.0,
        "app.json",
        &json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string(),
    );
    std::os::unix::fs::symlink(".", tmp.0.join("loop")).unwrap();
    std::os::unix::fs::symlink(".", tmp.0.join("loop2")).unwrap();
    let (v, _) = audit_json(&["-f", tmp.0.to_str().unwrap()]);
    assert_eq!(v["summary"]["hpas"], 1);
}

#[test]
fn a_dump_given_twice_is_the_dump_once() {
    let path = "fixtures/cluster/dump/cluster.json";
    let (once, _) = audit_json(&["--dump", path]);
    let out = Test::new()
        .args(["audit", "--dump", path, "--dump", path, "-o", "json"])
        .cpu_within(WITHIN)
        .status(0)
        .stderr_contains("given more than once")
        .run();
    let twice: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(twice["summary"], once["summary"]);
    assert_eq!(twice["findings"], once["findings"]);
}

#[test]
fn many_metrics_do_not_replay_every_metric_per_metric() {
    let tmp = Scratch::new("many-metrics");
    let metrics: Vec<String> = (0..20_000)
        .map(|i| {
            format!(
                "  - type: Resource\n    resource: {{name: cpu, target: {{type: Utilization, \
                 averageUtilization: {}}}}}\n",
                40 + i % 50
            )
        })
        .collect();
    let hpa = format!(
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: web, \
         namespace: shop}}\nspec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, \
         name: web}}\n  minReplicas: 1\n  maxReplicas: 20\n  metrics:\n{}",
        metrics.concat()
    );
    let path = write(&tmp.0, "hpa.yaml", &hpa);
    Test::new()
        .args([
            "--hpa",
            &path,
            "--pods",
            "fixtures/samples/web-cpu.csv",
            "--now",
            NOW,
        ])
        .args(["-o", "json"])
        .cpu_within(WITHIN)
        .memory_limit_mib(MEMORY_MIB)
        .status(0)
        .run();
}

// 40,000 triggers take about 8 s in a debug build when the name checks are by set (80,000, the
// attack's size, 16 s debug and 3.7 s, 734 MB in release); comparing each name with every earlier
// one took minutes.
#[test]
fn a_scaled_object_of_many_triggers_translates_in_linear_time() {
    let tmp = Scratch::new("many-triggers");
    let triggers: Vec<String> = (0..40_000)
        .map(|i| {
            format!(
                "  - type: prometheus\n    name: t{i}\n    metadata: {{serverAddress: http://p, \
                 query: q{i}, threshold: \"5\"}}\n"
            )
        })
        .collect();
    let so = format!(
        "apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {{name: w, namespace: q}}\n\
         spec:\n  scaleTargetRef: {{name: w}}\n  triggers:\n{}",
        triggers.concat()
    );
    let path = write(&tmp.0, "so.yaml", &so);
    Test::new()
        .args(["--hpa", &path, "--print-hpa", "-o", "json"])
        .cpu_within(WITHIN)
        .memory_limit_mib(MEMORY_MIB)
        .status(0)
        .run();
}

#[test]
fn a_long_get_hpa_watch_keeps_a_few_fields_per_row() {
    let tmp = Scratch::new("watch-rows");
    let mut text =
        String::from("NAME   REFERENCE        TARGETS       MINPODS   MAXPODS   REPLICAS   AGE\n");
    for i in 0..300_000 {
        text.push_str(&format!(
            "web    Deployment/web   cpu: {}%/50%   2         10        4          5m\n",
            40 + i % 20
        ));
    }
    let path = write(&tmp.0, "watch.txt", &text);
    let out = Test::new()
        .args(["--hpa", &path, "-o", "json"])
        .cpu_within(WITHIN)
        .memory_limit_mib(MEMORY_MIB)
        .status(0)
        .run();
    assert!(stdout(&out).contains("\"hpa\": \"default/web\""));
}

#[test]
fn a_large_prometheus_answer_keeps_only_the_series_read() {
    let tmp = Scratch::new("big-answer");
    // The attack's shape, a third of its size (the debug build reads 300 MB in more than 20 s):
    // 125 series of 40,000 samples, 100 MB, and --load-map reads one. Held whole as the samples
    // of every series, the answer would take four times its size, past the limit.
    let mut text = String::from(r#"{"status":"success","data":{"resultType":"matrix","result":["#);
    for s in 0..125 {
        if s > 0 {
            text.push(',');
        }
        text.push_str(&format!(r#"{{"metric":{{"pod":"p{s}"}},"values":["#));
        for i in 0..40_000 {
            if i > 0 {
                text.push(',');
            }
            text.push_str(&format!(
                "[{},\"0.{:03}\"]",
                1_700_000_000 + i * 15,
                i % 1000
            ));
        }
        text.push_str("]}");
    }
    text.push_str("]}}");
    assert!(text.len() > 100_000_000, "{}", text.len());
    let path = write(&tmp.0, "answer.json", &text);
    drop(text);
    Test::new()
        .args([
            "simulate",
            "--hpa",
            "fixtures/hpa/web-cpu.yaml",
            "--load",
            &path,
        ])
        .args([
            "--load-map",
            "cpu=7",
            "--pod-request",
            "cpu=500m",
            "--duration",
            "15m",
        ])
        .args(["-o", "csv"])
        // A debug build reads 100 MB here in about 14 s alone.
        .cpu_within(WITHIN * 2)
        .memory_limit_mib(400)
        .status(0)
        .run();
}

// ---------------------------------------------------------------------------------------------
// Misleading.

#[test]
fn a_sarif_location_is_a_uri() {
    let tmp = Scratch::new("sarif");
    let dir = tmp.0.join("rendered charts");
    std::fs::create_dir_all(&dir).unwrap();
    write(
        &dir,
        "web#1.yaml",
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, \
         namespace: shop}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, \
         name: gone}\n  maxReplicas: 3\n",
    );
    let out = Test::new()
        .args(["audit", "-f", dir.to_str().unwrap(), "-o", "sarif"])
        .status(0)
        .run();
    let sarif: Value = serde_json::from_slice(&out.stdout).unwrap();
    let uri = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
        ["artifactLocation"]["uri"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(uri.ends_with("rendered%20charts/web%231.yaml"), "{uri}");
}

// ---------------------------------------------------------------------------------------------
// Round four (issue 35): bounded work with a deadline inside, and memory budgets across streams.

/// A uniform case of 10,000 pods over a day of 15 s syncs: 57.6 million pod-syncs.
const PAST_THE_BUDGET: &str =
    "/simulate?replicas=10000&ready=10000&usage=50&target=50&min=1&max=10000&t=86400";
/// 1,000 pods over a day: 5.8 million pod-syncs, within the budget, and minutes of work.
const WITHIN_THE_BUDGET: &str =
    "/simulate?replicas=1000&ready=1000&usage=50&target=50&min=1&max=1000&t=86400";

#[test]
fn a_run_past_the_request_budget_is_refused_before_it_starts() {
    let server = Offline::start();
    let started = Instant::now();
    let (code, page) = get(server.port, PAST_THE_BUDGET).unwrap();
    assert_eq!(code, 422, "{page}");
    assert!(page.contains("the request budget"), "{page}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_page_past_its_timeout_frees_its_place_within_a_second() {
    let server = Offline::start_with(&["--page-timeout", "1s", "--max-evaluations", "1"]);
    let (code, _) = get(server.port, WITHIN_THE_BUDGET).unwrap();
    assert_eq!(code, 503);
    // The one place is free again: the run stopped at its deadline (it used to hold the place
    // for minutes, and every page answered 503 meanwhile).
    std::thread::sleep(Duration::from_millis(500));
    let (code, page) = get(server.port, "/calc?replicas=4&usage=90&ready=4&target=50").unwrap();
    assert_eq!(code, 200, "{page}");
}

#[test]
fn sigterm_ends_serve_within_five_seconds_whatever_runs() {
    let mut server = Offline::start_with(&["--page-timeout", "300s"]);
    let port = server.port;
    let page = std::thread::spawn(move || get(port, WITHIN_THE_BUDGET));
    std::thread::sleep(Duration::from_secs(1));
    let pid = server.child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let asked = Instant::now();
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            asked.elapsed() < Duration::from_secs(5),
            "still running 5 s after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
    let _ = page.join();
}

#[test]
fn half_sent_requests_are_capped_then_timed_out() {
    use std::io::{Read, Write};
    let server = Offline::start();
    let mut held = Vec::new();
    for _ in 0..300 {
        let mut tcp = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
        tcp.write_all(b"GET /calc HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            .unwrap();
        held.push(tcp);
    }
    // Over the cap of open connections: answered 503 at once, not left to wait.
    let (code, body) = get(server.port, "/readyz").unwrap();
    assert_eq!(code, 503, "{body}");
    // Each head not sent within the header timeout closes its connection; then all is well.
    let started = Instant::now();
    while get(server.port, "/readyz").is_none_or(|(code, _)| code != 200) {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "still refused after 30 s"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    let mut first = held.swap_remove(0);
    first
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut rest = Vec::new();
    assert!(first.read_to_end(&mut rest).is_ok(), "closed by the server");
}

/// The CPU seconds a process has used, from /proc.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = stat.rsplit_once(") ").unwrap().1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    ticks / 100.0
}

#[test]
fn accept_errors_pause_instead_of_spinning() {
    let port = crate::support::free_port();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -n 64 && exec {} serve --offline --listen 127.0.0.1:{port}",
            env!("CARGO_BIN_EXE_hpacalc")
        ))
        .env("KUBECONFIG", "/nonexistent")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while get(port, "/readyz").is_none_or(|(code, _)| code != 200) {
        assert!(started.elapsed() < Duration::from_secs(30), "not ready");
        std::thread::sleep(Duration::from_millis(100));
    }
    // 100 connections: past 64 descriptors, accept fails with EMFILE.
    let held: Vec<TcpStream> = (0..100)
        .filter_map(|_| TcpStream::connect(("127.0.0.1", port)).ok())
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let before = cpu_seconds(child.id());
    std::thread::sleep(Duration::from_secs(3));
    let used = cpu_seconds(child.id()) - before;
    drop(held);
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        used < 1.0,
        "{used} CPU seconds in 3 s: the accept loop spins"
    );
}

/// The watch requests the test API server has answered: (all of them, the lists watched).
fn watches(server: &ApiServer) -> (usize, usize) {
    let requests = server.requests();
    let watched: Vec<&String> = requests
        .iter()
        .filter(|r| r.contains("watch=true"))
        .collect();
    let mut lists: Vec<&str> = watched
        .iter()
        .map(|r| r.split('?').next().unwrap())
        .collect();
    lists.sort_unstable();
    lists.dedup();
    (watched.len(), lists.len())
}

#[test]
fn a_watch_that_ends_at_once_is_watched_again_after_the_reflectors_backoff() {
    let server = ApiServer::start(Fixture::cluster());
    let serving = Serving::start(&server, "1s");
    server.watches(Watches::EndAtOnce);
    std::thread::sleep(Duration::from_secs(1));
    let (before, lists) = watches(&server);
    std::thread::sleep(Duration::from_secs(5));
    let (after, _) = watches(&server);
    eprintln!("{} watches of {lists} lists in 5 s", after - before);
    // Backoffs of [0.8, 1.6), [1.6, 3.2), [3.2, 6.4) s: at most 4 watches a list in 5 s (they
    // were 400 to 565 a second in all before).
    assert!(
        after - before <= 4 * lists,
        "{} watches of {lists} lists in 5 s",
        after - before
    );
    server.watches(Watches::Usual);
    assert_eq!(get(serving.port, "/readyz").unwrap().0, 200);
}

/// The peak resident memory of a process, MiB.
fn peak_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kib / 1024
}

#[test]
fn a_watch_event_past_the_api_servers_limit_ends_its_watch_within_the_memory_budget() {
    let server = ApiServer::start(Fixture::cluster());
    let serving = Serving::start(&server, "1s");
    server.watches(Watches::Huge);
    let started = Instant::now();
    loop {
        let log = std::fs::read_to_string(&serving.log).unwrap_or_default();
        if log.contains("sent a watch event of more than 3145728 bytes") {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "{log}");
        std::thread::sleep(Duration::from_millis(250));
    }
    server.watches(Watches::Usual);
    assert_eq!(get(serving.port, "/readyz").unwrap().0, 200);
    // Every list's watch sent 4 MiB at once: each stopped at 3 MiB, and the total at 64 MiB.
    let peak = peak_mib(serving.child.id());
    eprintln!("peak {peak} MiB");
    assert!(peak < 400, "peak {peak} MiB");
}

#[test]
fn an_endless_events_list_stops_at_its_item_cap() {
    // Bounded in CPU time (20 s: the kernel's limit), not on the wall clock a loaded machine
    // stretches; the cap is the item count the message names.
    let err =
        refused(live(&["web", "-n", "hostile-eventflood"]).cpu_within(Duration::from_secs(20)));
    assert!(err.contains("with more than 50000 events"), "{err}");
}

#[test]
fn a_get_hpa_watch_of_many_hpas_is_read_as_a_stream() {
    let tmp = Scratch::new("watch-many");
    let mut text = String::from(
        "NAMESPACE   NAME   REFERENCE        TARGETS       MINPODS   MAXPODS   REPLICAS   AGE\n",
    );
    for i in 0..200_000 {
        text.push_str(&format!(
            "ns{i:<7}   web    Deployment/web   cpu: {}%/50%   2         10        4          5m\n",
            40 + i % 20
        ));
    }
    let path = write(&tmp.0, "watch.txt", &text);
    // Each row's spec kept would take about 1 GB (300,000 rows took 1.6 GB).
    let out = Test::new()
        .args(["--hpa", &path, "-n", "ns5", "-o", "json"])
        .cpu_within(Duration::from_secs(90))
        .memory_limit_mib(512)
        .status(0)
        .run();
    assert!(stdout(&out).contains("\"hpa\": \"ns5/web\""));
}
