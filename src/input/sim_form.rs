//! The simulator's state (`hpacalc serve`, `/simulate`): what a link or a form says, filled into
//! the same `simulation::Inputs` that `hpacalc simulate` fills. A state is a source (a built-in
//! scenario, the calculator's uniform case, or pasted texts), an instant `t`, and the loads a
//! person set on the way there; a link holds all of it, so any state can be shared and reloaded.

use std::fmt::Write;

use anyhow::Result;

use crate::error::{InputError, quoted};
use crate::input::form::{self, REQUEST_MILLI, Uniform};
use crate::input::prometheus::ReplaySettings;
use crate::input::simulation::{Inputs, SimSettings};
use crate::input::{Text, builtin};
use crate::quantity::parse_milli;
use crate::time::Duration;

/// The furthest instant a page simulates to: a day of syncs.
pub const MAX_SECONDS: i64 = 86_400;

/// Where the run comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A built-in scenario, by name.
    Builtin(String),
    /// The calculator's uniform case, as a flat load.
    Uniform(Uniform),
    /// Pasted texts and settings (a POST form): (field, value), as given.
    Paste(Vec<(String, String)>),
}

/// One state of the simulator.
#[derive(Debug, Clone, PartialEq)]
pub struct Stepping {
    pub source: Source,
    /// Seconds from the start: the run ends here.
    pub t: i64,
    /// (seconds, milli-units): from each instant on, the first metric's total.
    pub load_set: Vec<(i64, i64)>,
}

/// The paste form's texts: the HPA (manifest or ScaledObject), the load (a load CSV or a saved
/// Prometheus answer) and the replicas the cluster really had.
pub const PASTED_TEXTS: [&str; 4] = ["hpa", "load", "actual", "nodepool"];

/// The paste form's settings, each `simulate`'s flag of the same name: (id, label).
pub const PASTED_SETTINGS: [(&str, &str); 16] = [
    ("replicas", "replicas at the start"),
    ("now", "captured at (RFC 3339)"),
    ("pod-request", "pod request (cpu=500m)"),
    ("daemonset-requests", "DaemonSet requests (cpu=100m)"),
    ("pod-limit", "pod limit"),
    ("node-allocatable", "node allocatable (cpu=2,pods=110)"),
    ("existing-nodes", "existing nodes"),
    ("node-group-max", "node group max"),
    ("node-startup", "node startup"),
    ("pod-startup", "pod startup"),
    ("rollout", "rollout at"),
    ("max-surge", "maxSurge"),
    ("max-unavailable", "maxUnavailable"),
    ("min-ready-seconds", "minReadySeconds"),
    ("sync-period", "sync period"),
    ("kube-version", "Kubernetes rules"),
];

/// The built-in scenarios of the five demos, in the seed simulator's order: tolerance, traffic
/// doubles, pods pending, a short dip, a real drop.
pub const DEMOS: [&str; 5] = [
    "tolerance",
    "traffic-doubles",
    "capped-pending",
    "short-dip",
    "drop-to-three",
];

/// The node model a demo without one runs on in the simulator, so that its cluster panel draws
/// nodes: 3 nodes of 2000m (4 pods of 500m each), the group fixed at 3. Its 12 slots hold
/// every pod up to the demos' `maxReplicas` 10, so every pod finds room and the story is the
/// scenario's own (a test checks each demo's syncs are those of the run without nodes). A
/// scenario with its own node model, and any other built-in, is run as `hpacalc simulate
/// --scenario NAME` runs it.
fn demo_nodes(name: &str) -> SimSettings {
    let own = builtin::find(name).map(|b| (b.settings)());
    if !DEMOS.contains(&name) || own.is_none_or(|s| s.node_allocatable.is_some()) {
        return SimSettings::default();
    }
    SimSettings {
        node_allocatable: Some("cpu=2000m,pods=110".to_string()),
        existing_nodes: Some(DEMO_NODES),
        node_group_min: Some(DEMO_NODES),
        node_group_max: Some(DEMO_NODES),
        ..SimSettings::default()
    }
}

/// How many nodes a demo without its own node model runs on.
pub const DEMO_NODES: i64 = 3;

/// `61:2000m`: an instant in seconds and a quantity.
fn load_set(text: &str) -> Result<(i64, i64), InputError> {
    let bad = || {
        InputError::new(
            "set",
            format!(
                "found {}, expected SECONDS:QUANTITY such as 61:2000m",
                quoted(text)
            ),
        )
    };
    let (at, value) = text.split_once(':').ok_or_else(bad)?;
    let at = at
        .trim()
        .parse::<i64>()
        .ok()
        .filter(|a| (0..=MAX_SECONDS).contains(a))
        .ok_or_else(bad)?;
    let milli = parse_milli(value.trim()).map_err(|_| bad())?;
    Ok((at, milli))
}

fn seconds(pairs: &[(String, String)]) -> Result<i64, InputError> {
    let Some(text) = form::field(pairs, "t")
        .map(str::trim)
        .filter(|t| !t.is_empty())
    else {
        return Ok(0);
    };
    text.parse::<i64>()
        .ok()
        .filter(|t| (0..=MAX_SECONDS).contains(t))
        .ok_or_else(|| {
            InputError::new(
                "t",
                format!(
                    "found {}, expected whole seconds from 0 to {MAX_SECONDS}",
                    quoted(text)
                ),
            )
        })
}

impl Stepping {
    /// A query or a POST body. No source is the first demo.
    pub fn from_pairs(pairs: &[(String, String)]) -> Result<Stepping> {
        let source = if let Some(name) = form::field(pairs, "scenario") {
            if builtin::find(name).is_none() {
                return Err(InputError::new(
                    "scenario",
                    format!(
                        "found {}, expected one of {}",
                        quoted(name),
                        builtin::names()
                    ),
                )
                .into());
            }
            Source::Builtin(name.to_string())
        } else if form::field(pairs, "hpa").is_some() {
            Source::Paste(
                pairs
                    .iter()
                    .filter(|(n, _)| {
                        PASTED_TEXTS.contains(&n.as_str())
                            || PASTED_SETTINGS.iter().any(|(id, _)| id == n)
                    })
                    .cloned()
                    .collect(),
            )
        } else if form::UNIFORM_FIELDS
            .iter()
            .any(|(id, _)| form::field(pairs, id).is_some())
        {
            Source::Uniform(Uniform::from_pairs(pairs)?)
        } else {
            Source::Builtin(DEMOS[0].to_string())
        };
        let mut load_set = pairs
            .iter()
            .filter(|(n, _)| n == "set")
            .map(|(_, v)| load_set(v))
            .collect::<Result<Vec<_>, _>>()?;
        load_set.sort_by_key(|(at, _)| *at);
        Ok(Stepping {
            source,
            t: seconds(pairs)?,
            load_set,
        })
    }

    /// The run's inputs: the source's, ending at `t`.
    pub fn inputs(&self) -> Result<Inputs> {
        let duration = Some(format!("{}s", self.t));
        let mut inputs = match &self.source {
            Source::Builtin(name) => Inputs::builtin(
                name,
                SimSettings {
                    duration,
                    ..demo_nodes(name)
                },
                ReplaySettings::default(),
            )?,
            Source::Uniform(u) => uniform_inputs(u, duration)?,
            Source::Paste(pairs) => pasted_inputs(pairs, duration)?,
        };
        inputs.load_set = self
            .load_set
            .iter()
            .map(|&(at, milli)| (Duration::from_secs(at), milli))
            .collect();
        Ok(inputs)
    }

    /// The query of this state at `t` with `extra` set from `t`'s next second on (a GET link);
    /// `None` for a paste, which only a POST form carries.
    pub fn href(&self, t: i64, extra: Option<i64>) -> Option<String> {
        let mut query = match &self.source {
            Source::Builtin(name) => format!("scenario={}", escape(name)),
            Source::Uniform(u) => form::UNIFORM_FIELDS
                .iter()
                .zip(u.values())
                .map(|((id, _), v)| format!("{id}={}", escape(&v)))
                .collect::<Vec<_>>()
                .join("&"),
            Source::Paste(_) => return None,
        };
        let _ = write!(query, "&t={t}");
        for (at, milli) in self.sets_with(extra) {
            let _ = write!(query, "&set={at}:{milli}m");
        }
        Some(format!("/simulate?{query}"))
    }

    /// The loads set, and `extra` from the second after `t` on.
    pub fn sets_with(&self, extra: Option<i64>) -> Vec<(i64, i64)> {
        let mut sets = self.load_set.clone();
        if let Some(milli) = extra {
            let at = self.t + 1;
            sets.retain(|(a, _)| *a < at);
            sets.push((at, milli));
        }
        sets
    }
}

/// `application/x-www-form-urlencoded` escaping of a value.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(b));
            }
            b' ' => out.push('+'),
            _ => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}

/// The uniform case over time: its HPA, `replicas` pods of `REQUEST_MILLI` each, and the load the
/// ready pods use now, held flat.
fn uniform_inputs(u: &Uniform, duration: Option<String>) -> Result<Inputs> {
    if u.is_average_value() {
        return Err(InputError::new(
            "average-value",
            "found an AverageValue target, expected the calculator's utilization case: the \
             simulator's uniform load is cpu at a percent of a 1000m request",
        )
        .into());
    }
    let total = u
        .ready
        .saturating_mul(u.usage)
        .saturating_mul(REQUEST_MILLI)
        / 100;
    Ok(Inputs {
        hpa: Text::new("hpa.yaml", u.hpa_text()),
        load: Some(Text::new("load.csv", format!("time,cpu\n0s,{total}m\n"))),
        actual: None,
        settings: SimSettings {
            replicas: Some(i32::try_from(u.replicas)?),
            pod_request: Some(format!("cpu={REQUEST_MILLI}m")),
            tolerance: Some(u.tolerance),
            node_allocatable: Some(u.node_allocatable.clone()).filter(|a| !a.is_empty()),
            existing_nodes: u.existing_nodes,
            duration,
            ..SimSettings::default()
        },
        replay: ReplaySettings::default(),
        label: None,
        load_set: Vec::new(),
    })
}

fn whole<T: std::str::FromStr>(id: &str, text: &str) -> Result<T, InputError> {
    text.trim().parse::<T>().map_err(|_| {
        InputError::new(
            id,
            format!("found {}, expected a whole number", quoted(text)),
        )
    })
}

/// A paste: the texts named by their fields, the settings as `simulate`'s flags read them.
fn pasted_inputs(pairs: &[(String, String)], duration: Option<String>) -> Result<Inputs> {
    let text = |name: &str| {
        form::field(pairs, name)
            .filter(|t| !t.trim().is_empty())
            .map(|t| Text::new(name, t))
    };
    let Some(hpa) = text("hpa") else {
        return Err(
            InputError::new("hpa", "found nothing, expected an HPA or a ScaledObject").into(),
        );
    };
    let Some(load) = text("load") else {
        return Err(InputError::new(
            "load",
            "found nothing, expected a load CSV or a saved Prometheus answer",
        )
        .into());
    };
    let mut settings = SimSettings {
        duration,
        ..SimSettings::default()
    };
    for (id, _) in PASTED_SETTINGS {
        let Some(value) = form::field(pairs, id).filter(|v| !v.trim().is_empty()) else {
            continue;
        };
        let owned = Some(value.trim().to_string());
        match id {
            "replicas" => settings.replicas = Some(whole(id, value)?),
            "existing-nodes" => settings.existing_nodes = Some(whole(id, value)?),
            "node-group-max" => settings.node_group_max = Some(whole(id, value)?),
            "min-ready-seconds" => settings.min_ready_seconds = Some(whole(id, value)?),
            "now" => settings.now = owned,
            "pod-request" => settings.pod_request = owned,
            "daemonset-requests" => settings.daemonset_requests = vec![value.trim().to_string()],
            "pod-limit" => settings.pod_limit = owned,
            "node-allocatable" => settings.node_allocatable = owned,
            "node-startup" => settings.node_startup = owned,
            "pod-startup" => settings.pod_startup = owned,
            "rollout" => settings.rollout = owned,
            "max-surge" => settings.max_surge = owned,
            "max-unavailable" => settings.max_unavailable = owned,
            "sync-period" => settings.sync_period = owned,
            _ => settings.kube_version = owned,
        }
    }
    // A pasted NodePool: Karpenter provisions the nodes (`--nodepool`, the built-in catalog).
    settings.karpenter = text("nodepool").map(|np| crate::input::inputs::KarpenterTexts {
        node_pools: vec![np],
        node_class: None,
        instance_types: None,
    });
    Ok(Inputs {
        hpa,
        load: Some(load),
        actual: text("actual"),
        settings,
        replay: ReplaySettings::default(),
        label: None,
        load_set: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stepping(query: &str) -> Result<Stepping> {
        Stepping::from_pairs(&form::decode(query))
    }

    #[test]
    fn a_link_holds_the_whole_state_and_reads_back_the_same() {
        let s = stepping("scenario=short-dip&t=90&set=61:2000m&set=31:500m").unwrap();
        assert_eq!(s.load_set, [(31, 500), (61, 2000)]);
        let next = s.href(105, None).unwrap();
        assert_eq!(
            next,
            "/simulate?scenario=short-dip&t=105&set=31:500m&set=61:2000m"
        );
        let query = next.trim_start_matches("/simulate?");
        assert_eq!(stepping(query).unwrap().t, 105);
        // A load set now replaces the later ones.
        assert_eq!(s.sets_with(Some(4000)), [(31, 500), (61, 2000), (91, 4000)]);
    }

    #[test]
    fn every_demo_runs_on_nodes_with_room_for_every_pod_and_tells_its_own_story() {
        use crate::calc::simulate;
        use crate::input::simulation;
        for name in DEMOS {
            let end = builtin::find(name)
                .and_then(|b| (b.settings)().duration)
                .unwrap();
            let seconds = crate::time::Duration::parse(&end).unwrap().millis() / 1000;
            let with = stepping(&format!("scenario={name}&t={seconds}")).unwrap();
            let setup = simulation::build(&with.inputs().unwrap()).unwrap();
            let group = setup.nodes.as_ref().expect("a node model");
            let on_nodes = simulate::run(&setup);
            // The room: every pod up to maxReplicas has a slot.
            let slots = simulate::run_to_snapshot(&setup, None)
                .1
                .nodes
                .iter()
                .map(|n| n.slots)
                .sum::<i64>();
            assert!(
                slots >= i64::from(setup.scenario.hpa.max_replicas),
                "{name}: {slots} slots; {group:?}"
            );
            // The scenario as the command line runs it: the same syncs.
            let plain = simulation::Inputs::builtin(
                name,
                SimSettings::default(),
                ReplaySettings::default(),
            )
            .unwrap();
            let alone = simulate::run(&simulation::build(&plain).unwrap());
            let story = |sim: &simulate::Simulation| -> Vec<(i64, i32, i32, i64, i64)> {
                sim.timeline
                    .iter()
                    .map(|r| {
                        (
                            r.time,
                            r.replicas,
                            r.desired_replicas,
                            r.ready_replicas,
                            r.pending_pods,
                        )
                    })
                    .collect()
            };
            assert_eq!(story(&on_nodes), story(&alone), "{name}");
        }
    }

    #[test]
    fn no_source_is_the_first_demo_and_a_paste_has_no_link() {
        assert_eq!(
            stepping("").unwrap().source,
            Source::Builtin("tolerance".into())
        );
        let paste = stepping("hpa=x&load=y&t=15").unwrap();
        assert!(paste.href(30, None).is_none());
        let uniform = stepping("replicas=3&usage=90").unwrap();
        assert!(
            uniform
                .href(0, None)
                .unwrap()
                .contains("replicas=3&usage=90")
        );
    }

    /// `now` is `simulate --now`: the paste's capture time, which a ScaledObject's status is read
    /// against (where KEDA holds the target at the start); a bad one is refused naming the flag.
    #[test]
    fn a_pasted_now_is_simulates_now_flag() {
        let so = std::fs::read_to_string("fixtures/keda/status-cooldown.yaml").unwrap();
        let load = std::fs::read_to_string("fixtures/load/keda-status-cooldown.csv").unwrap();
        let pairs = |now: &str| {
            vec![
                ("hpa".to_string(), so.clone()),
                ("load".to_string(), load.clone()),
                ("now".to_string(), now.to_string()),
            ]
        };
        let at = "2026-11-30T09:58:30Z";
        let inputs = Stepping::from_pairs(&pairs(at)).unwrap().inputs().unwrap();
        assert_eq!(inputs.settings.now.as_deref(), Some(at));
        // The same run `hpacalc simulate --now` makes.
        let flags = crate::input::simulation::Inputs {
            hpa: Text::new("hpa", so.as_str()),
            load: Some(Text::new("load", load.as_str())),
            actual: None,
            settings: SimSettings {
                duration: Some("0s".to_string()),
                now: Some(at.to_string()),
                ..SimSettings::default()
            },
            replay: ReplaySettings::default(),
            label: None,
            load_set: Vec::new(),
        };
        let setup = crate::input::simulation::build(&inputs).unwrap();
        assert_eq!(
            setup.scenario.keda.as_ref().map(|k| k.last_active),
            crate::input::simulation::build(&flags)
                .unwrap()
                .scenario
                .keda
                .as_ref()
                .map(|k| k.last_active)
        );
        let e = Stepping::from_pairs(&pairs("yesterday")).unwrap().inputs();
        let e = e.and_then(|i| crate::input::simulation::build(&i).map(|_| ()));
        assert!(format!("{:#}", e.unwrap_err()).contains("--now"));
    }

    #[test]
    fn bad_fields_are_named() {
        for (query, field) in [
            ("scenario=nope", "scenario"),
            ("t=-1", "t"),
            ("t=86401", "t"),
            ("set=abc", "set"),
            ("set=10:lots", "set"),
        ] {
            let e = stepping(query).unwrap_err();
            assert!(format!("{e:#}").starts_with(field), "{query}: {e:#}");
        }
        let paste = stepping("hpa=x&load=y&replicas=many").unwrap();
        let e = paste.inputs().unwrap_err();
        assert!(format!("{e:#}").starts_with("replicas"), "{e:#}");
    }

    #[test]
    fn the_uniform_case_runs_its_ready_pods_load_flat() {
        let s = stepping("replicas=4&usage=90&ready=4&target=50&t=30").unwrap();
        let setup = crate::input::simulation::build(&s.inputs().unwrap()).unwrap();
        assert_eq!(setup.load.driving_value_at(Duration::ZERO), 3600);
        assert_eq!(setup.start_replicas, 4);
        assert_eq!(setup.duration, Duration::from_secs(30));
    }
}
