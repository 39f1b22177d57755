//! `/simulate` of `hpacalc serve`: a state (`input::sim_form`) filled into `simulation::Inputs`,
//! built and run to its instant as `hpacalc simulate` runs, and the page rendered
//! (`render::simulator`) with the controls to the next states. An input error is the page with
//! the CLI's message, 422.

use crate::calc::simulate::{self, Simulation, SyncRow};
use crate::input::form;
use crate::input::sim_form::{DEMOS, MAX_SECONDS, PASTED_SETTINGS, PASTED_TEXTS, Source, Stepping};
use crate::input::{builtin, simulation};
use crate::render::simulator::{self as page, Control, Frame, To};
use crate::render::{Exporter, Json};
use crate::report::Report;
use crate::stop::{Stop, Stopped};
use crate::time::Duration;

use super::http::{Reply, TEXT, html, reply};

/// What a request asks the simulator.
#[derive(Debug, Clone)]
pub enum Asked {
    /// A link's query.
    Get(String),
    /// The POST form's body: a paste, and the button pressed (`go`).
    Post(String),
}

/// The load choices: (id, label, per mille of the load now).
const LOAD_CHOICES: [(&str, &str, i64); 5] = [
    ("load-50", "×½", 500),
    ("load-75", "×¾", 750),
    ("load-125", "×1¼", 1250),
    ("load-150", "×1½", 1500),
    ("load-200", "×2", 2000),
];

/// The pairs a POST means: its button's `go` (`SECONDS` or `SECONDS;AT:QUANTITY`) moves `t` and
/// may set a load, replacing the sets from that instant on.
fn pressed(mut pairs: Vec<(String, String)>) -> Vec<(String, String)> {
    let Some(go) = form::field(&pairs, "go").map(str::to_string) else {
        return pairs;
    };
    let (t, set) = go
        .split_once(';')
        .map_or((go.as_str(), None), |(t, s)| (t, Some(s)));
    pairs.retain(|(n, _)| n != "t" && n != "go");
    pairs.push(("t".into(), t.to_string()));
    if let Some(set) = set {
        let at = set.split(':').next().and_then(|a| a.parse::<i64>().ok());
        pairs.retain(|(n, v)| {
            n != "set" || v.split(':').next().and_then(|a| a.parse::<i64>().ok()) < at
        });
        pairs.push(("set".into(), set.to_string()));
    }
    pairs
}

/// The page answering `asked`, unless `stop` comes first (503); a run past the request budget
/// is refused before it starts (422).
pub fn page(asked: &Asked, fleet: bool, stop: &Stop) -> Reply {
    let pairs = match asked {
        Asked::Get(query) => form::decode(query),
        Asked::Post(body) => pressed(form::decode(body)),
    };
    let mut frame = Frame {
        fleet,
        demos: demos(),
        ..Frame::default()
    };
    let stepping = match Stepping::from_pairs(&pairs) {
        Ok(s) => s,
        Err(e) => return refused(&mut frame, &pairs, &crate::error::shown(&e)),
    };
    let setup = match stepping.inputs().and_then(|i| simulation::build(&i)) {
        Ok(setup) => setup,
        Err(e) => return refused(&mut frame, &pairs, &crate::error::shown(&e)),
    };
    if let Err(e) = simulation::within_request_budget(&setup, "t") {
        return refused(&mut frame, &pairs, &e.to_string());
    }
    let Ok((sim, snapshot, last)) = run(&setup, stepping.t, stop) else {
        return reply(
            503,
            TEXT,
            "the simulation was stopped at --page-timeout; ask for less (an earlier t, fewer \
             replicas) or try again\n"
                .into(),
        );
    };
    let sync = sim.settings.sync_period_seconds.max(1);
    let now = setup.load.driving_value_at(Duration::from_secs(stepping.t));
    frame.steps = vec![
        control(
            &stepping,
            "next-sync",
            &format!("Next sync (+{sync} s)"),
            (stepping.t / sync + 1) * sync,
            None,
        ),
        control(&stepping, "wait-1m", "Wait 1 min", stepping.t + 60, None),
        control(&stepping, "restart", "Start over", 0, None),
    ];
    frame.loads = LOAD_CHOICES
        .iter()
        .map(|(id, label, per_mille)| {
            let milli = now.saturating_mul(*per_mille) / 1000;
            control(
                &stepping,
                id,
                label,
                (stepping.t / sync + 1) * sync,
                Some(milli),
            )
        })
        .collect();
    if stepping.t == 0 {
        frame.steps.retain(|c| c.id != "restart");
    }
    let playing = form::field(&pairs, "play").is_some();
    if key_moments(&mut frame, &stepping, playing, stop).is_err() {
        return reply(
            503,
            TEXT,
            "the simulation was stopped at --page-timeout; try again\n".into(),
        );
    }
    frame.scenarios = scenarios(&stepping.source);
    settings_fields(&mut frame, &pairs);
    if let Source::Paste(fields) = &stepping.source {
        let mut carried = fields.clone();
        carried.extend(
            stepping
                .load_set
                .iter()
                .map(|(at, milli)| ("set".to_string(), format!("{at}:{milli}m"))),
        );
        carried.push(("t".into(), stepping.t.to_string()));
        frame.carried = Some(carried);
    }
    let json = Json.export(&sim, crate::term::terminal());
    html(
        200,
        page::page(Some((&sim, &snapshot, last.as_ref())), &frame, &json),
    )
}

/// How far a run's key moments are looked for: a built-in scenario's own duration, else ten
/// minutes.
fn story_seconds(source: &Source) -> i64 {
    let own = match source {
        Source::Builtin(name) => builtin::find(name).and_then(|b| (b.settings)().duration),
        _ => None,
    };
    own.and_then(|d| Duration::parse(&d).ok())
        .map_or(600, |d| d.millis() / 1000)
        .clamp(0, MAX_SECONDS)
}

/// The run's key moments as links (a linkable state only: a paste's are buttons of its form),
/// the play link through them, and while playing the next moment's page to refresh to. The
/// moments come from the whole run (`render::simulator::moments`), whatever instant the page
/// shows; `Stopped` once `stop` is due.
fn key_moments(
    frame: &mut Frame,
    stepping: &Stepping,
    playing: bool,
    stop: &Stop,
) -> Result<(), Stopped> {
    if stepping.href(0, None).is_none() {
        return Ok(());
    }
    let whole = Stepping {
        t: story_seconds(&stepping.source).max(stepping.t),
        ..stepping.clone()
    };
    let Ok(setup) = whole.inputs().and_then(|i| simulation::build(&i)) else {
        return Ok(());
    };
    if simulation::within_request_budget(&setup, "t").is_err() {
        return Ok(());
    }
    let (sim, _) = simulate::run_until(&setup, None, stop)?;
    let moments = page::moments(&sim);
    let href = |t: i64| stepping.href(t, None).unwrap_or_default();
    frame.moments = moments
        .iter()
        .enumerate()
        .map(|(i, m)| Control {
            id: format!("moment-{}", i + 1),
            label: format!("{} {}", simulate::clock(m.t), m.label),
            to: if m.t == stepping.t {
                To::Here(href(m.t))
            } else {
                To::Link(href(m.t))
            },
        })
        .collect();
    frame.play = moments.first().map(|m| Control {
        id: "play".to_string(),
        label: "▶ Play the moments".to_string(),
        to: To::Link(format!("{}&play=1", href(m.t))),
    });
    if playing {
        frame.refresh = moments
            .iter()
            .find(|m| m.t > stepping.t)
            .map(|m| format!("{}&play=1", href(m.t)));
    }
    Ok(())
}

/// The run to `t`, its snapshot, and the report of its last sync; `Stopped` once `stop` is due.
fn run(
    setup: &crate::scenario::simulation::Setup,
    t: i64,
    stop: &Stop,
) -> Result<(Simulation, simulate::snapshot::Snapshot, Option<Report>), Stopped> {
    let sync = (setup.timing.sync_period.millis() / 1000).max(1);
    let last_sync = t / sync * sync;
    let mut last = None;
    let mut observe = |row: &SyncRow, build: &dyn Fn() -> Report| {
        if row.time == last_sync {
            last = Some(build());
        }
    };
    let (sim, snapshot) = simulate::run_until(setup, Some(&mut observe), stop)?;
    Ok((sim, snapshot, last))
}

/// A control to the state at `t` (capped at `MAX_SECONDS`) with `load` set from the next second.
fn control(stepping: &Stepping, id: &str, label: &str, t: i64, load: Option<i64>) -> Control {
    let t = t.min(MAX_SECONDS);
    let to = match stepping.href(t, load) {
        Some(href) => To::Link(href),
        None => To::Post(match load {
            Some(milli) => format!("{t};{}:{milli}m", stepping.t + 1),
            None => t.to_string(),
        }),
    };
    Control {
        id: id.to_string(),
        label: label.to_string(),
        to,
    }
}

fn demos() -> Vec<Control> {
    DEMOS
        .iter()
        .enumerate()
        .map(|(i, name)| Control {
            id: format!("demo-{}", i + 1),
            label: format!("{}. {name}", i + 1),
            to: To::Link(format!("/simulate?scenario={name}&t=0")),
        })
        .collect()
}

fn scenarios(source: &Source) -> Vec<(&'static str, bool)> {
    builtin::ALL
        .iter()
        .map(|s| (s.name, matches!(source, Source::Builtin(n) if n == s.name)))
        .collect()
}

/// The paste form's settings, as given.
fn settings_fields(frame: &mut Frame, pairs: &[(String, String)]) {
    frame.settings = PASTED_SETTINGS
        .iter()
        .map(|(id, label)| {
            (
                *id,
                *label,
                form::field(pairs, id).unwrap_or("").to_string(),
            )
        })
        .collect();
}

/// The page with the CLI's message, 422; the pasted texts are kept for correcting in place.
fn refused(frame: &mut Frame, pairs: &[(String, String)], message: &str) -> Reply {
    frame.error = Some(message.to_string());
    frame.scenarios = scenarios(&Source::Builtin(String::new()));
    settings_fields(frame, pairs);
    frame.carried = Some(
        pairs
            .iter()
            .filter(|(n, _)| PASTED_TEXTS.contains(&n.as_str()))
            .cloned()
            .collect(),
    );
    html(422, page::page(None, frame, ""))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `data-NAME="N"` of the workload panel's `pods-now` cell.
    fn said(page: &str, name: &str) -> usize {
        let cell = page.split("id=\"pods-now\"").nth(1).unwrap();
        let value = cell.split(&format!("data-{name}=\"")).nth(1).unwrap();
        value.split('"').next().unwrap().parse().unwrap()
    }

    /// How many pods of `state` the cluster panel draws.
    fn drawn(page: &str, state: &str) -> usize {
        let panel = page
            .split("id=\"cluster-panel\"")
            .nth(1)
            .and_then(|p| p.split("</section>").next())
            .unwrap();
        panel.matches(&format!("class=\"slot {state}\"")).count()
    }

    /// The paste form has `simulate --now` as a field, and a refused paste keeps its value.
    #[test]
    fn the_paste_form_takes_now_and_keeps_it() {
        let pairs = form::decode("hpa=x&load=y&now=2026-11-30T09%3A58%3A30Z");
        let mut frame = Frame::default();
        settings_fields(&mut frame, &pairs);
        let page = page::page(None, &frame, "");
        assert!(
            page.contains(
                "<input type=\"text\" id=\"now\" name=\"now\" value=\"2026-11-30T09:58:30Z\">"
            ),
            "{page}"
        );
    }

    #[test]
    fn the_workload_and_cluster_panels_agree_at_every_sync_of_every_demo() {
        for name in DEMOS {
            let end = story_seconds(&Source::Builtin(name.to_string()));
            let mut t = 0;
            while t <= end {
                let stepping =
                    Stepping::from_pairs(&form::decode(&format!("scenario={name}&t={t}"))).unwrap();
                let setup = simulation::build(&stepping.inputs().unwrap()).unwrap();
                let (sim, snapshot, last) = run(&setup, t, &Stop::default()).unwrap();
                let page = page::page(
                    Some((&sim, &snapshot, last.as_ref())),
                    &Frame::default(),
                    "",
                );
                for state in ["ready", "starting", "pending", "terminating"] {
                    assert_eq!(
                        said(&page, state),
                        drawn(&page, state),
                        "{name} at {t}: {state}"
                    );
                }
                assert!(!page.contains("No node model"), "{name} at {t}");
                assert!(!page.contains("no node model"), "{name} at {t}");
                t += sim.settings.sync_period_seconds.max(1);
            }
        }
    }

    #[test]
    fn drop_to_three_at_5_15_shows_3_pods_in_both_panels() {
        let stepping = Stepping::from_pairs(&form::decode("scenario=drop-to-three&t=315")).unwrap();
        let setup = simulation::build(&stepping.inputs().unwrap()).unwrap();
        let (sim, snapshot, last) = run(&setup, 315, &Stop::default()).unwrap();
        let row = sim.timeline.last().unwrap();
        // The sync read 8 Ready and set 3; the ReplicaSet acted at the same instant.
        assert_eq!((row.ready_replicas, row.desired_replicas), (8, 3));
        let page = page::page(
            Some((&sim, &snapshot, last.as_ref())),
            &Frame::default(),
            "",
        );
        assert_eq!((said(&page, "ready"), drawn(&page, "ready")), (3, 3));
        assert!(
            page.contains("pods the 5:15 sync read"),
            "the sync's own reading is kept"
        );
    }

    /// A pasted NodePool: the cluster panel shows each NodeClaim's type and price where it shows
    /// nodes, and the workload panel Karpenter's NodeClaims and their price per hour.
    #[test]
    fn a_pasted_nodepool_shows_the_nodeclaims_with_type_and_price() {
        let read =
            |p: &str| std::fs::read_to_string(format!("fixtures/karpenter/worked/{p}")).unwrap();
        let pairs: Vec<(String, String)> = [
            ("hpa", read("hpa-fast.yaml")),
            ("load", read("load.csv")),
            ("nodepool", read("nodepool-m5.yaml")),
            ("replicas", "10".to_string()),
            ("pod-request", "cpu=500m,memory=1Gi".to_string()),
            ("daemonset-requests", "cpu=300m,memory=384Mi".to_string()),
            ("t", "300".to_string()),
        ]
        .into_iter()
        .map(|(n, v)| (n.to_string(), v))
        .collect();
        let stepping = Stepping::from_pairs(&pairs).unwrap();
        let setup = simulation::build(&stepping.inputs().unwrap()).unwrap();
        let (sim, snapshot, last) = run(&setup, 300, &Stop::default()).unwrap();
        let page = page::page(
            Some((&sim, &snapshot, last.as_ref())),
            &Frame::default(),
            "",
        );
        // At 4:10 consolidation deleted m5-1: the m5.8xlarge has room for its 15 pods.
        for shown in [
            "data-node=\"m5-2\"><div>m5-2 <span class=\"claim\">NodeClaim m5.8xlarge on-demand $1.536/h</span></div>",
            "1 NodeClaim(s) Ready, 0 launched and booting, $1.536/h",
        ] {
            assert!(page.contains(shown), "{shown}");
        }
        assert!(!page.contains("data-node=\"m5-1\""));
        // The 50 pods run on the m5.8xlarge.
        assert_eq!(snapshot.nodes[0].pods.len(), 50);
    }

    #[test]
    fn each_demo_links_its_key_moments_and_plays_through_them() {
        // (demo, a moment it must list)
        for (name, moment) in [
            (
                "tolerance",
                "5:00 the load rises to 1200m; the scale-up 4 → 5",
            ),
            (
                "traffic-doubles",
                "1:00 the load rises to 2000m; the scale-up 4 → 8",
            ),
            ("capped-pending", "capped at maxReplicas 10"),
            ("short-dip", "the window holds 8 (the metrics ask 4)"),
            ("drop-to-three", "5:15 the window expires: 8 → 3"),
        ] {
            let stepping =
                Stepping::from_pairs(&form::decode(&format!("scenario={name}&t=0"))).unwrap();
            let mut frame = Frame::default();
            key_moments(&mut frame, &stepping, true, &Stop::default()).unwrap();
            let labels: Vec<&str> = frame.moments.iter().map(|c| c.label.as_str()).collect();
            assert!(
                labels.iter().any(|l| l.contains(moment)),
                "{name}: {labels:?}"
            );
            let first = match &frame.moments[0].to {
                To::Link(href) => href.clone(),
                other => panic!("{other:?}"),
            };
            assert_eq!(
                frame.play.as_ref().map(|p| &p.to),
                Some(&To::Link(format!("{first}&play=1")))
            );
            assert_eq!(frame.refresh, Some(format!("{first}&play=1")), "{name}");
        }
        // At the last moment the play stops.
        let stepping = Stepping::from_pairs(&form::decode("scenario=drop-to-three&t=315")).unwrap();
        let mut frame = Frame::default();
        key_moments(&mut frame, &stepping, true, &Stop::default()).unwrap();
        assert!(matches!(frame.moments.last().unwrap().to, To::Here(_)));
        assert_eq!(frame.refresh, None);
    }
}
