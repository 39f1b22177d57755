//! `/simulate` of `hpacalc serve --offline` (issue 26, the step simulator): seed 000's five
//! demos, stepped through the page's own links (`demo-N`, `next-sync`, `wait-1m`, the load
//! choices) as a person clicks them, reproduce the numbers each story tells; the last page of
//! each is loaded in headless Chromium and read from its `hpacalc-data` and `hpacalc-cluster`
//! JSON. A paste steps through one POST form; a bad state is the CLI's message with 422.

use serde_json::Value;

use crate::html::{chromium, console, screenshot};
use crate::support::{Scratch, Test, get, root};
use crate::web::{Offline, data, encode, post};

/// The `href` of the control `id` on `page`.
fn href(page: &str, id: &str) -> String {
    let at = page
        .find(&format!("id=\"{id}\" href=\""))
        .unwrap_or_else(|| panic!("no link {id} on the page"));
    let start = at + format!("id=\"{id}\" href=\"").len();
    let end = start + page[start..].find('"').unwrap();
    page[start..end].replace("&amp;", "&")
}

/// The page the link `id` of `page` leads to.
fn click(server: &Offline, page: &str, id: &str) -> String {
    let (code, next) = get(server.port, &href(page, id)).unwrap();
    assert_eq!(code, 200, "{id}: {next}");
    next
}

fn cluster(page: &str) -> Value {
    let start = page.find("id=\"hpacalc-cluster\">").unwrap() + "id=\"hpacalc-cluster\">".len();
    let end = start + page[start..].find("</script>").unwrap();
    serde_json::from_str(&page[start..end]).unwrap()
}

/// The last row of the page's timeline: the sync at its `t`.
fn last_row(page: &str) -> Value {
    data(page)["timeline"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone()
}

/// The demo `n` from the simulator's first page, then `clicks` in order.
fn demo(server: &Offline, n: usize, clicks: &[&str]) -> String {
    let (code, first) = get(server.port, "/simulate").unwrap();
    assert_eq!(code, 200);
    let mut page = click(server, &first, &format!("demo-{n}"));
    assert_eq!(data(&page)["settings"]["durationSeconds"], 0);
    for id in clicks {
        page = click(server, &page, id);
    }
    page
}

/// The same page, loaded by Chromium from the link that led to it.
fn in_chromium(server: &Offline, dir: &Scratch, page: &str) -> String {
    let t = data(page)["settings"]["durationSeconds"].as_i64().unwrap();
    let scenario = data(page)["scenario"]["name"].as_str().unwrap().to_string();
    let url = server.url(&format!("/simulate?scenario={scenario}&t={t}"));
    let b = chromium(&url, "--dump-dom", &dir.0);
    assert!(console(&b.stderr).is_empty(), "{:?}", console(&b.stderr));
    b.stdout
}

#[test]
fn seed_000s_demos_stepped_through_the_links_in_chromium() {
    let server = Offline::start();
    let dir = Scratch::new("web-seed-000");
    let wait = |n: usize| vec!["wait-1m"; n];

    // Tolerance: 55 % at 2:00 is inside it; 60 % at 5:00 gives ceil(1.2 × 4) = 5, and 5 pods
    // read 48 %, inside again.
    let at_2 = demo(&server, 1, &wait(2));
    assert_eq!(last_row(&at_2)["utilization"], 55.0);
    assert_eq!(last_row(&at_2)["desiredReplicas"], 4);
    let at_5 = click(
        &server,
        &click(&server, &click(&server, &at_2, "wait-1m"), "wait-1m"),
        "wait-1m",
    );
    let row = last_row(&at_5);
    assert_eq!(
        (row["time"].as_i64(), row["utilization"].as_f64()),
        (Some(300), Some(60.0))
    );
    assert_eq!(
        (row["replicas"].as_i64(), row["desiredReplicas"].as_i64()),
        (Some(4), Some(5))
    );
    let settled = in_chromium(&server, &dir, &click(&server, &at_5, "next-sync"));
    let row = last_row(&settled);
    assert_eq!(
        (row["time"].as_i64(), row["utilization"].as_f64()),
        (Some(315), Some(48.0))
    );
    assert_eq!(row["desiredReplicas"], 5);

    // Traffic doubles: 4 → 8 at 1:00, back at 50 % at 1:15.
    let doubled = demo(&server, 2, &["wait-1m"]);
    let row = last_row(&doubled);
    assert_eq!(
        (row["replicas"].as_i64(), row["desiredReplicas"].as_i64()),
        (Some(4), Some(8))
    );
    let row = last_row(&in_chromium(
        &server,
        &dir,
        &click(&server, &doubled, "next-sync"),
    ));
    assert_eq!(
        (row["readyReplicas"].as_i64(), row["utilization"].as_f64()),
        (Some(8), Some(50.0))
    );

    // Pods pending: the formula asks for 12, maxReplicas caps at 10, 2 pods wait for a node.
    let capped = demo(&server, 3, &["wait-1m"]);
    let row = last_row(&capped);
    assert_eq!(row["recommendation"], 12);
    assert_eq!(row["desiredReplicas"], 10);
    assert_eq!(row["reason"], "TooManyReplicas");
    let waiting = click(&server, &capped, "next-sync");
    let c = cluster(&waiting);
    assert_eq!(c["pending"].as_array().unwrap().len(), 2);
    assert_eq!(c["nodes"][2]["name"], "node-3");
    assert_eq!(c["nodes"][2]["readyAt"], 130, "node-3 boots until 2:10");
    // A minute later the node is Ready and the Pending pods landed on it.
    let landed = in_chromium(&server, &dir, &click(&server, &waiting, "wait-1m"));
    let c = cluster(&landed);
    assert!(c["pending"].as_array().unwrap().is_empty());
    assert!(c["nodes"][2]["readyAt"].is_null());
    assert_eq!(c["nodes"][2]["pods"].as_array().unwrap().len(), 2);
    assert_eq!(last_row(&landed)["replicas"], 10);

    // A short dip: the window keeps 8 through 3:00–4:00.
    let dip = in_chromium(&server, &dir, &demo(&server, 4, &wait(5)));
    let rows = data(&dip)["timeline"].as_array().unwrap().clone();
    assert_eq!(rows.len(), 21);
    assert!(
        rows.iter()
            .all(|r| r["desiredReplicas"] == 8 && r["replicas"] == 8)
    );
    assert!(
        rows.iter()
            .any(|r| r["recommendation"] == 4 && r["reason"] == "ScaleDownStabilized")
    );

    // A real drop: every sync from 0:15 recommends 3; the 8 of 0:00 still counts at 5:00,
    // exactly 300 s old (the legacy window keeps its edge), and the count falls at 5:15.
    let held = demo(&server, 5, &wait(5));
    let row = last_row(&held);
    assert_eq!(
        (
            row["recommendation"].as_i64(),
            row["desiredReplicas"].as_i64()
        ),
        (Some(3), Some(8))
    );
    let holds: Vec<i64> = cluster(&held)["recommendations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["counts"] == true && c["replicas"] == 8)
        .map(|c| c["time"].as_i64().unwrap())
        .collect();
    assert_eq!(
        holds,
        [0],
        "only the 0:00 recommendation of 8 is left in the window"
    );
    let fell = in_chromium(&server, &dir, &click(&server, &held, "next-sync"));
    let row = last_row(&fell);
    assert_eq!(
        (row["time"].as_i64(), row["replicas"].as_i64()),
        (Some(315), Some(8))
    );
    assert_eq!(row["desiredReplicas"], 3);

    // A screenshot for a person to look at (README's, with HPACALC_BLESS=1).
    screenshot(
        &server.url("/simulate?scenario=capped-pending&t=75"),
        "web-simulate.png",
        &dir.0,
    );
}

#[test]
fn a_load_choice_is_kept_in_the_link_and_drives_the_next_syncs() {
    let server = Offline::start();
    // Tolerance at 1:00, then ×2: 2000m from 1:01 on (the story's later steps are dropped).
    let at_1 = demo(&server, 1, &["wait-1m"]);
    assert_eq!(
        href(&at_1, "load-200"),
        "/simulate?scenario=tolerance&t=75&set=61:2000m"
    );
    let doubled = click(&server, &at_1, "load-200");
    let row = last_row(&doubled);
    assert_eq!(
        (row["utilization"].as_f64(), row["desiredReplicas"].as_i64()),
        (Some(100.0), Some(8))
    );
    // The choice stays in every link after it.
    assert!(href(&doubled, "wait-1m").ends_with("&t=135&set=61:2000m"));
    let later = click(&server, &doubled, "wait-1m");
    assert_eq!(last_row(&later)["load"], 2.0);
    // The calculator's uniform case opens in the simulator with its numbers.
    let (_, calc) = get(server.port, "/calc?replicas=4&ready=4&usage=90&target=50").unwrap();
    let sim = click(&server, &calc, "to-simulator");
    assert_eq!(last_row(&sim)["utilization"], 90.0);
    assert_eq!(last_row(&sim)["desiredReplicas"], 8);
}

#[test]
fn a_pasted_run_steps_through_one_post_form() {
    let server = Offline::start();
    let hpa = std::fs::read_to_string(root().join("fixtures/hpa/web-cpu.yaml")).unwrap();
    let body = format!(
        "hpa={}&load={}&replicas=4&pod-request=cpu%3D500m&t=0",
        encode(&hpa),
        encode("time,cpu\n0s,1000m\n30s,2000m\n")
    );
    let (code, _, first) = post(server.port, "/simulate", body.as_bytes());
    assert_eq!(code, 200, "{first}");
    assert!(first.contains("form=\"state\" name=\"go\" id=\"next-sync\" value=\"15\""));
    // The button sends the carried texts with its value: the state at 0:15, then 0:30.
    let step = |body: &str| {
        let (code, _, page) = post(server.port, "/simulate", format!("{body}&go=30").as_bytes());
        assert_eq!(code, 200, "{page}");
        page
    };
    let page = step(&body);
    let row = last_row(&page);
    assert_eq!(
        (row["time"].as_i64(), row["desiredReplicas"].as_i64()),
        (Some(30), Some(8))
    );
    // A bad state is the CLI's message, 422, the texts kept.
    let (code, _, refused) = post(server.port, "/simulate", format!("{body}&go=-5").as_bytes());
    assert_eq!(code, 422);
    assert!(
        refused.contains("t: found &quot;-5&quot;, expected whole seconds"),
        "{refused}"
    );
    assert!(
        refused.contains("averageUtilization"),
        "the pasted HPA is shown again"
    );
    let (code, page) = get(server.port, "/simulate?scenario=%3Cscript%3E").unwrap();
    assert_eq!(code, 422);
    assert!(!page.contains("<script>"));
}

#[test]
fn a_pasted_prometheus_replay_gives_simulates_json() {
    let server = Offline::start();
    let read = |f: &str| std::fs::read_to_string(root().join(f)).unwrap();
    let cli = Test::new()
        .args([
            "simulate",
            "-o",
            "json",
            "--hpa",
            "fixtures/hpa/web-cpu.yaml",
        ])
        .args(["--pod-request", "cpu=500m", "--duration", "3600s"])
        .args(["--load", "fixtures/prometheus/night-cpu.json"])
        .args(["--actual-file", "fixtures/prometheus/night-replicas.json"])
        .schema("simulation")
        .json();
    let body = format!(
        "hpa={}&load={}&actual={}&pod-request=cpu%3D500m&t=3600",
        encode(&read("fixtures/hpa/web-cpu.yaml")),
        encode(&read("fixtures/prometheus/night-cpu.json")),
        encode(&read("fixtures/prometheus/night-replicas.json"))
    );
    let (code, _, page) = post(server.port, "/simulate", body.as_bytes());
    assert_eq!(code, 200, "{page}");
    let shown = data(&page);
    for key in ["timeline", "summary", "events", "replay", "settings"] {
        assert_eq!(shown[key], cli[key], "{key}");
    }
}

/// A pasted NodePool (issue 39's worked example, 10 → 50 pods at 1:00): at 4:05 (m5-2 Ready
/// since 4:01, before the 4:10 poll consolidates m5-1 away) the page,
/// as Chromium builds it, shows each NodeClaim's type, capacity type and price where it shows
/// nodes, and the cluster's JSON carries them.
#[test]
fn a_pasted_nodepool_shows_the_nodeclaims_in_chromium() {
    let server = Offline::start();
    let read = |f: &str| {
        std::fs::read_to_string(root().join("fixtures/karpenter/worked").join(f)).unwrap()
    };
    let query = format!(
        "hpa={}&load={}&nodepool={}&replicas=10&pod-request={}&daemonset-requests={}&t=245",
        encode(&read("hpa-fast.yaml")),
        encode(&read("load.csv")),
        encode(&read("nodepool-m5.yaml")),
        encode("cpu=500m,memory=1Gi"),
        encode("cpu=300m,memory=384Mi"),
    );
    let (code, served) = get(server.port, &format!("/simulate?{query}")).unwrap();
    assert_eq!(code, 200, "{served}");
    let dir = Scratch::new("web-nodeclaims");
    let b = chromium(
        &server.url(&format!("/simulate?{query}")),
        "--dump-dom",
        &dir.0,
    );
    assert!(console(&b.stderr).is_empty(), "{:?}", console(&b.stderr));
    let dom = b.stdout;
    for shown in [
        "NodeClaim m5.2xlarge on-demand $0.384/h",
        "NodeClaim m5.8xlarge on-demand $1.536/h",
        "2 NodeClaim(s) Ready, 0 launched and booting, $1.920/h",
    ] {
        assert!(dom.contains(shown), "{shown}");
    }
    let nodes = cluster(&dom)["nodes"].clone();
    assert_eq!(nodes[1]["nodeClaim"]["instanceType"], "m5.8xlarge");
    assert_eq!(nodes[1]["nodeClaim"]["pricePerHour"], 1.536);
    assert_eq!(nodes[1]["pods"].as_array().map(Vec::len), Some(35));
    assert_eq!(data(&dom)["nodeClaims"][1]["launchedAt"], 61);
}
