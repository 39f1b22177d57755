//! Pages that tell the story (issue 38, item 6), each rule checked in headless Chromium on the
//! dumped DOM: the answer above the steps on `/calc`; `/calc` with an AverageValue target; the
//! simulator's demos on nodes, with their key moments, a play link that steps through them by
//! `<meta http-equiv="refresh">`, one load unit, and the workload and cluster panels agreeing.
//! (The fleet's band, failing rows, charts and event ages are checked in `web_fleet.rs`, which
//! has the cluster.)

use crate::html::{chromium, console};
use crate::support::{NOW, Scratch, get};
use crate::web::{Offline, data};

/// The `href` of the link `id` on `page`.
fn href(page: &str, id: &str) -> Option<String> {
    let key = format!("id=\"{id}\"");
    let at = page.find(&key)?;
    let rest = &page[at..];
    let start = rest.find("href=\"")? + "href=\"".len();
    let end = start + rest[start..].find('"')?;
    Some(rest[start..end].replace("&amp;", "&"))
}

fn dom(server: &Offline, dir: &Scratch, path: &str) -> String {
    let b = chromium(&server.url(path), "--dump-dom", &dir.0);
    assert!(console(&b.stderr).is_empty(), "{:?}", console(&b.stderr));
    b.stdout
}

fn position(page: &str, what: &str) -> usize {
    page.find(what)
        .unwrap_or_else(|| panic!("{what} is not on the page"))
}

#[test]
fn the_calculator_answers_first_and_takes_average_value_targets_in_chromium() {
    let server = Offline::start();
    let dir = Scratch::new("web-story-calc");
    let page = dom(
        &server,
        &dir,
        &format!("/calc?replicas=4&ready=4&usage=180&target=60&max=12&now={NOW}"),
    );
    let v = data(&page);
    let decision = position(&page, "class=\"decision");
    let why = position(&page, "class=\"first-why");
    let (forms, steps) = (
        position(&page, "id=\"uniform\""),
        position(&page, "class=\"steps\""),
    );
    assert!(decision < why && why < forms && forms < steps);
    let arrow = format!("<b>{} → {}</b>", v["currentReplicas"], v["desiredReplicas"]);
    assert!(
        page[decision..why].contains(&arrow),
        "{}",
        &page[decision..why]
    );
    let first = &v["diagnostics"][0];
    assert!(
        page[why..forms].contains(first["code"].as_str().unwrap()),
        "the first WHY line is the report's first diagnostic"
    );

    // 4 pods at 120Mi of memory against an AverageValue of 100Mi: ceil(1.2 × 4) = 5.
    let page = dom(
        &server,
        &dir,
        &format!(
            "/calc?replicas=4&ready=4&resource=memory&average-value=100Mi&usage-value=120Mi\
             &now={NOW}"
        ),
    );
    let v = data(&page);
    assert_eq!(v["metrics"][0]["target"]["type"], "AverageValue");
    assert_eq!(v["desiredReplicas"], 5, "{}", v["decision"]["summary"]);
    assert!(position(&page, "class=\"decision") < position(&page, "id=\"uniform\""));
    let steps = &page[position(&page, "class=\"steps\"")..];
    assert!(
        steps.contains("100Mi"),
        "the steps explain the AverageValue target"
    );
    assert!(page.contains("id=\"average-value\"") && page.contains("id=\"usage-value\""));
}

/// The cluster panel's pods in `state` and the workload panel's count of them, on one page.
fn panels(page: &str, state: &str) -> (usize, usize) {
    let panel = page.split("id=\"cluster-panel\"").nth(1).unwrap();
    let panel = panel.split("</section>").next().unwrap();
    let drawn = panel.matches(&format!("class=\"slot {state}\"")).count();
    let cell = page.split("id=\"pods-now\"").nth(1).unwrap();
    let said = cell
        .split(&format!("data-{state}=\""))
        .nth(1)
        .and_then(|v| v.split('"').next())
        .unwrap()
        .parse()
        .unwrap();
    (said, drawn)
}

#[test]
fn every_demo_has_nodes_key_moments_a_play_link_and_panels_that_agree_in_chromium() {
    let server = Offline::start();
    let dir = Scratch::new("web-story-demos");
    let (_, first) = get(server.port, "/simulate").unwrap();
    for n in 1..=5 {
        let start = href(&first, &format!("demo-{n}")).unwrap();
        let page = dom(&server, &dir, &start);
        assert!(!page.to_lowercase().contains("no node model"), "demo {n}");
        assert!(page.contains("data-node=\""), "demo {n}: nodes are drawn");
        // One unit: cpu in millicores.
        let load = page.split("id=\"load\">").nth(1).unwrap();
        let load = load.split('<').next().unwrap();
        assert!(load.ends_with('m'), "demo {n}: load {load}");
        // The key moments, found from the run, each a link; play starts at the first.
        let moments: Vec<String> = (1..=8)
            .map_while(|i| href(&page, &format!("moment-{i}")))
            .collect();
        assert!(moments.len() >= 2, "demo {n}: {moments:?}");
        let play = href(&page, "play").unwrap();
        assert_eq!(play, format!("{}&play=1", moments[0]));
        // Playing: each moment's page refreshes to the next one, and the last stops.
        for (i, moment) in moments.iter().enumerate() {
            let (code, shown) = get(server.port, &format!("{moment}&play=1")).unwrap();
            assert_eq!(code, 200);
            let refresh = moments.get(i + 1).map(|next| {
                format!(
                    "content=\"4; url={}&amp;play=1\"",
                    next.replace('&', "&amp;")
                )
            });
            match refresh {
                Some(r) => assert!(shown.contains(&r), "demo {n}, moment {i}: {r}"),
                None => assert!(
                    !shown.contains("http-equiv=\"refresh\""),
                    "demo {n}: the last"
                ),
            }
            assert!(
                shown.contains(&format!("id=\"moment-{}\" class=\"here\"", i + 1)),
                "demo {n}: the moment shown is marked"
            );
            for state in ["ready", "starting", "pending", "terminating"] {
                let (said, drawn) = panels(&shown, state);
                assert_eq!(said, drawn, "demo {n} at {moment}: {state}");
            }
        }
    }
    // The drop demo's moment "the window expires", in the browser: both panels say 3 pods.
    let page = dom(&server, &dir, "/simulate?scenario=drop-to-three&t=0");
    let expires = (1..=8)
        .find(|i| {
            page.split(&format!("id=\"moment-{i}\""))
                .nth(1)
                .and_then(|s| s.split("</a>").next())
                .is_some_and(|s| s.contains("5:15 the window expires: 8 → 3"))
        })
        .expect("the window expires at 5:15");
    let at = dom(
        &server,
        &dir,
        &href(&page, &format!("moment-{expires}")).unwrap(),
    );
    assert_eq!(panels(&at, "ready"), (3, 3));
    assert_eq!(data(&at)["settings"]["durationSeconds"], 315);
}
