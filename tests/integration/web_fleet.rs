//! The cluster's pages of `hpacalc serve` (issue 26) against the test API server: `/` lists every
//! HPA of the last sync as `/api/v1/hpas` does, most severe first, filtered by namespace and
//! code, and reloads at each sync; `/hpa/NS/NAME` is the HPA's report with its last hour and
//! its events, and links to the calculator and the simulator with its numbers. Both are loaded
//! in headless Chromium; screenshots are kept under the tests' output.

use serde_json::Value;

use crate::apiserver::{ApiServer, Fixture};
use crate::html::{chromium, console, screenshot};
use crate::serve::Serving;
use crate::support::{Scratch, get};
use crate::web::data;

fn page(serving: &Serving, path: &str) -> String {
    let (code, page) = get(serving.port, path).unwrap();
    assert_eq!(code, 200, "{path}: {page}");
    page
}

/// A report's place on the fleet page, as a rank: failing (ScalingActive or AbleToScale False)
/// 3, else the highest severity of its diagnostics (error 2, warning 1, else 0).
fn rank(report: &Value) -> i32 {
    let failing = report["conditions"].as_array().unwrap().iter().any(|c| {
        (c["type"] == "ScalingActive" || c["type"] == "AbleToScale") && c["status"] == "False"
    });
    if failing {
        return 3;
    }
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| match d["severity"].as_str() {
            Some("error") => 2,
            Some("warning") => 1,
            _ => 0,
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn the_fleet_and_one_hpa_in_chromium() {
    let server = ApiServer::start(Fixture::cluster());
    // An HPA web and its controller's event.
    let mut web = server
        .items()
        .into_iter()
        .find(|i| i["kind"] == "HorizontalPodAutoscaler" && i["metadata"]["name"] == "shop")
        .unwrap();
    web["metadata"]["name"] = "web".into();
    web["metadata"]["namespace"] = "shop".into();
    server.change(web, false);
    let event = serde_json::json!({
        "apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": "web.1", "namespace": "shop"},
        "regarding": {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                      "name": "web", "namespace": "shop"},
        "type": "Normal", "reason": "SuccessfulRescale",
        "note": "New size: 4; reason: cpu resource utilization (percentage of request) above target",
        "eventTime": "2026-12-01T10:00:00.000000Z", "reportingController": "horizontal-pod-autoscaler"
    });
    server.change(event, true);
    let serving = Serving::start(&server, "1s");
    serving.until("the web HPA is served", |s| {
        get(s.port, "/api/v1/hpas/shop/web").is_some_and(|(code, _)| code == 200)
    });

    let fleet = page(&serving, "/");
    assert!(fleet.contains("<meta http-equiv=\"refresh\" content=\"1\">"));
    let shown = data(&fleet);
    let listed = serving.json("/api/v1/hpas");
    assert_eq!(
        shown["hpas"].as_array().unwrap().len(),
        listed["hpas"].as_array().unwrap().len()
    );
    assert_eq!(shown["summary"]["hpas"], 21);
    // Failing first, then the most severe.
    let ranks: Vec<i32> = (shown["hpas"].as_array().unwrap().iter())
        .map(|h| rank(&serving.json(&format!("/api/v1/hpas/{}", h["hpa"].as_str().unwrap()))))
        .collect();
    assert!(ranks.windows(2).all(|w| w[0] >= w[1]), "{ranks:?}");
    // The filters.
    let team_1 = data(&page(&serving, "/?namespace=team-1"));
    let names: Vec<&str> = (team_1["hpas"].as_array().unwrap().iter())
        .map(|h| h["hpa"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["team-1/app-1"]);
    let code = shown["hpas"][0]["diagnostics"][0]
        .as_str()
        .unwrap()
        .to_string();
    let coded = data(&page(&serving, &format!("/?code={code}")));
    assert!(!coded["hpas"].as_array().unwrap().is_empty());
    assert!((coded["hpas"].as_array().unwrap().iter()).all(|h| {
        h["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| *d == *code)
    }));

    // One HPA: its report, as the API answers it, its hour, its events.
    // An HPA whose CPU utilization was read: the calculator's uniform case has its numbers.
    let key = (listed["hpas"].as_array().unwrap().iter())
        .map(|h| h["hpa"].as_str().unwrap().to_string())
        .find(|k| {
            !serving.json(&format!("/api/v1/hpas/{k}"))["metrics"][0]["currentUtilization"]
                .is_null()
        })
        .unwrap();
    let path = format!("/hpa/{key}");
    let kept_syncs = |page: &str| -> usize {
        let after = page.split("The last hour (").nth(1).unwrap();
        after.split(' ').next().unwrap().parse().unwrap()
    };
    serving.until("three syncs are kept", |s| kept_syncs(&page(s, &path)) >= 3);
    let shop = page(&serving, &path);
    let report = data(&shop);
    assert_eq!(report["hpa"], key.as_str());
    assert!(shop.contains("id=\"history-metric\""));
    assert!(shop.contains("<polyline"));
    let calc = shop
        .split("id=\"to-calc\" href=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap()
        .replace("&amp;", "&");
    let m = &report["metrics"][0];
    assert_eq!(
        calc,
        format!(
            "/calc?replicas={}&usage={}&ready={}&unready={}&missing={}&target={}&tolerance=0.1&\
             min={}&max={}&behavior=&node-allocatable=&existing-nodes=&resource=cpu&\
             average-value=&usage-value=",
            report["currentReplicas"],
            m["currentUtilization"],
            m["readyPods"],
            m["unreadyPods"],
            m["missingPods"],
            m["target"]["averageUtilization"],
            report["minReplicas"],
            report["maxReplicas"]
        )
    );
    let from_calc = data(&page(&serving, &calc));
    assert_eq!(from_calc["currentReplicas"], report["currentReplicas"]);
    assert!(shop.contains("id=\"to-simulator\""));
    let web = page(&serving, "/hpa/shop/web");
    assert!(
        web.contains("SuccessfulRescale"),
        "its events are shown: {}",
        &web[web.find("<h2>Events").unwrap_or(0)..]
    );
    assert_eq!(get(serving.port, "/hpa/team-0/nope").unwrap().0, 404);

    // In the browser, with a screenshot of each page (README's, with HPACALC_BLESS=1).
    let dir = Scratch::new("web-fleet");
    for (path, shot) in [("/", "web-fleet.png"), (path.as_str(), "web-hpa.png")] {
        let url = format!("http://127.0.0.1:{}{path}", serving.port);
        let b = chromium(&url, "--dump-dom", &dir.0);
        assert!(console(&b.stderr).is_empty(), "{:?}", console(&b.stderr));
        assert!(b.stdout.contains("id=\"hpacalc-data\""));
        if path == "/" {
            the_fleet_tells_the_story(&serving, &b.stdout);
        } else {
            one_hpa_tells_the_story(&b.stdout);
        }
        screenshot(&url, shot, &dir.0);
    }
    the_event_has_its_age(&serving, &dir);
    // The calculator and the simulator are served beside the cluster's pages.
    assert!(page(&serving, "/simulate").contains("id=\"nav-fleet\""));
}

/// The web HPA's event, with its age, in the browser.
fn the_event_has_its_age(serving: &Serving, dir: &Scratch) {
    let url = format!("http://127.0.0.1:{}/hpa/shop/web", serving.port);
    let b = chromium(&url, "--dump-dom", &dir.0);
    let age = b
        .stdout
        .split("<td class=\"age\">")
        .nth(1)
        .and_then(|s| s.split('<').next())
        .expect("the event has an age");
    assert!(
        age.starts_with(|c: char| c.is_ascii_digit())
            && age.ends_with(|c: char| "smhdy".contains(c)),
        "{age}"
    );
}

/// The fleet's rules, on its dumped DOM: every bar says its band in words and shades no band
/// where the HPA's own page says no value keeps the count (never "any lower value and any
/// higher value" then); every failing HPA is red and starts with its condition.
fn the_fleet_tells_the_story(serving: &Serving, dom: &str) {
    let rows: Vec<&str> = dom
        .split("<tr class=\"")
        .skip(1)
        .map(|r| r.split("</tr>").next().unwrap())
        .collect();
    let summary = data(dom)["summary"].clone();
    assert_eq!(u64::try_from(rows.len()).ok(), summary["hpas"].as_u64());
    let mut failing = 0;
    for row in &rows {
        let hpa = row
            .split("data-hpa=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        let report = serving.json(&format!("/api/v1/hpas/{hpa}"));
        if rank(&report) == 3 {
            failing += 1;
            assert!(row.starts_with("error failing"), "{hpa}: {row}");
            assert!(row.contains("<b class=\"bad failing\">failing: "), "{hpa}");
        }
        let metric = &report["metrics"][0];
        if metric.is_null() || !row.contains("<svg") {
            continue;
        }
        assert!(row.contains("class=\"band-words\""), "{hpa}: {row}");
        if metric["holdBand"].is_null() {
            assert!(!row.contains("class=\"band\""), "{hpa}: no band is shaded");
            assert!(!row.contains("any lower value"), "{hpa}: {row}");
            let step = report["steps"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["title"] == "hold band");
            if let (Some(step), 1) = (step, report["metrics"].as_array().unwrap().len()) {
                let words = step["detail"].as_str().unwrap().replace('&', "&amp;");
                assert!(row.contains(&words), "{hpa}: the page's own words");
            }
        } else {
            assert!(row.contains("class=\"band\""), "{hpa}");
        }
    }
    // The audit counts the HPAs it could not evaluate as failing too; they are listed apart.
    let unevaluated = dom.split("id=\"unevaluated\"").nth(1).map_or(0, |list| {
        list.split("</ul>").next().unwrap().matches("<li>").count()
    });
    assert_eq!(
        u64::try_from(failing + unevaluated).ok(),
        summary["failing"].as_u64(),
        "every failing HPA is marked"
    );
}

/// One HPA's rules, on its dumped DOM: the decision and the first WHY line above the steps; two
/// charts, each with a legend and times along its axis.
fn one_hpa_tells_the_story(dom: &str) {
    let decision = dom.find("class=\"decision").unwrap();
    let steps = dom.find("class=\"steps\"").unwrap();
    assert!(decision < steps);
    if let Some(why) = dom.find("class=\"first-why") {
        assert!(decision < why && why < steps);
    }
    for id in ["history-metric", "history-replicas"] {
        let chart = dom.split(&format!("id=\"{id}\"")).nth(1).unwrap();
        let chart = chart.split("</svg>").next().unwrap();
        assert!(chart.matches("class=\"legend\"").count() >= 3, "{id}");
        let times: Vec<&str> = chart
            .split("class=\"time\"")
            .skip(1)
            .filter_map(|s| s.split('>').nth(1)?.split('<').next())
            .collect();
        assert!(!times.is_empty(), "{id}: no time on its axis");
        assert!(
            times
                .iter()
                .all(|t| (t.len() == 5 || t.len() == 8) && t.as_bytes()[2] == b':'),
            "{id}: {times:?}"
        );
        assert!(chart.contains(">UTC</text>"), "{id}");
    }
}
