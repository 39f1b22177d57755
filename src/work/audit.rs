//! The audit of a dump however it was read (files, the live cluster, an MCP call's text, each
//! sync of `serve`): every HPA evaluated, on every core, with the findings that need more than
//! one object to see; and the static checks of manifests.

use std::collections::HashMap;

use crate::calc;
use crate::input::cluster::Dump;
use crate::input::cluster::fleet::{Fleet, hpa_key, lone_scaled_objects, static_checks};
use crate::input::cluster::share::{Common, Parsed};
use crate::report::fleet::AuditReport;
use crate::scenario::ControllerMemory;
use crate::scenario::fleet::FleetFacts;
use crate::stop::{Stop, Stopped};
use crate::time::Duration;

/// Where each HPA was read (`file:line`, or `file items[3]`), by `namespace/name`.
pub type Places = HashMap<String, String>;

pub fn places(dump: &Dump) -> Places {
    (dump.hpas.iter())
        .map(|h| (hpa_key(&h.head), h.place.clone()))
        .collect()
}

/// What an audit knows of a dump besides its objects: whether the metrics API's answer was
/// given (its absence is then no finding) and the node group's size limit.
#[derive(Debug, Clone, Copy)]
pub struct DumpFacts {
    pub metrics_given: bool,
    pub node_group_max: Option<i64>,
}

/// The audit of a dump however it was read (files, the live cluster, an MCP call's text): the
/// objects given twice used once, every HPA evaluated at `common`'s time (else the dump's
/// newest), and the findings; with where each HPA was read and the warnings to show. `Stopped`
/// once `stop` is due (an MCP call past its time).
pub fn of_dump(
    mut dump: Dump,
    mut common: Common,
    given: &DumpFacts,
    stop: &Stop,
) -> Result<(AuditReport, Places, Vec<String>), Stopped> {
    dump.dedupe();
    let mut warnings = Vec::new();
    if dump.duplicates > 0 {
        warnings.push(format!(
            "{} object(s) were given more than once (the same kind, namespace and name): the \
             first of each is used",
            dump.duplicates
        ));
    }
    for u in &dump.unlisted {
        warnings.push(format!(
            "cannot list {} (403): {}; the audit goes on",
            u.resource, u.unchecked
        ));
    }
    common.settings.now = common.settings.now.or(dump.newest);
    let fleet = FleetFacts {
        newest: dump.newest,
        sync_period: common.settings.controller.sync_period,
        metrics_api_error: dump.metrics_api_error.clone(),
        metrics_given: given.metrics_given,
        unlisted: std::mem::take(&mut dump.unlisted),
        node_group_max: given.node_group_max,
    };
    let audit = audit_dump(&dump, &common, &fleet, None, stop)?;
    Ok((audit, places(&dump), warnings))
}

/// What `serve` keeps from one sync to the next: the controller's memory of each HPA
/// (`namespace/name`), and each HPA's manifest as it was parsed.
#[derive(Debug, Default)]
pub struct Memories {
    pub controller: std::sync::Mutex<HashMap<String, ControllerMemory>>,
    pub parsed: Parsed,
}

/// Every HPA of `dump` evaluated, with the findings: the audit of a dump, and each sync of
/// `hpacalc serve`, which gives the `memories` its earlier syncs left (the first sync of an HPA
/// starts from what its events say, as one audit does) and gets back what this sync leaves.
/// Every core looks at `stop` before each HPA: `Stopped` once it is due.
pub fn audit_dump(
    dump: &Dump,
    common: &Common,
    fleet: &FleetFacts,
    memories: Option<&Memories>,
    stop: &Stop,
) -> Result<AuditReport, Stopped> {
    let view = Fleet::new(dump, fleet).parsed_by(memories.map(|m| &m.parsed));
    let evaluated = evaluate(&view, common, memories, stop)?;
    if let Some(memories) = memories {
        // An HPA that is gone is forgotten, as the controller forgets a deleted HPA.
        let live: std::collections::HashSet<String> =
            (dump.hpas.iter()).map(|h| hpa_key(&h.head)).collect();
        if let Ok(mut kept) = memories.controller.lock() {
            kept.retain(|key, _| live.contains(key));
        }
        memories.parsed.retain(&live);
    }
    Ok(calc::fleet::audit(
        evaluated,
        fleet,
        &lone_scaled_objects(dump),
    ))
}

/// One HPA's case evaluated, with the memory an earlier sync left and, after it, this sync's.
fn evaluate_remembering(
    mut case: crate::scenario::fleet::HpaCase,
    memories: Option<&Memories>,
) -> calc::fleet::Evaluated {
    if let (Some(memories), Ok(scenario)) = (memories, &mut case.scenario) {
        let key = format!("{}/{}", scenario.hpa.namespace, scenario.hpa.name);
        if let Some(Ok(kept)) = Some(memories.controller.lock())
            && let Some(memory) = kept.get(&key)
        {
            scenario.memory = Some(memory.clone());
        }
        let after = calc::memory::remember(scenario);
        if let Ok(mut kept) = memories.controller.lock() {
            kept.insert(key, after);
        }
    }
    calc::fleet::evaluate(case)
}

/// Every HPA built and evaluated, on every core: the cases do not depend on each other, and
/// each core takes a contiguous run of them, so the order is the dump's.
fn evaluate(
    view: &Fleet,
    common: &Common,
    memories: Option<&Memories>,
    stop: &Stop,
) -> Result<Vec<calc::fleet::Evaluated>, Stopped> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let run = view.hpa_count().div_ceil(cores).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..view.hpa_count())
            .step_by(run)
            .map(|start| {
                let range = start..(start + run).min(view.hpa_count());
                scope.spawn(move || {
                    (view.cases(common, range))
                        .map(|case| {
                            stop.check()?;
                            Ok(evaluate_remembering(case, memories))
                        })
                        .collect::<Result<Vec<_>, Stopped>>()
                })
            })
            .collect();
        let mut evaluated = Vec::with_capacity(view.hpa_count());
        for w in workers {
            evaluated.extend(w.join().unwrap_or_else(|p| std::panic::resume_unwind(p))?);
        }
        Ok(evaluated)
    })
}

/// The static checks of every HPA of manifests (`audit -f`), no decision.
pub fn static_audit(mut dump: Dump, sync_period: Duration) -> (AuditReport, Places) {
    dump.dedupe();
    let fleet = FleetFacts {
        newest: None,
        sync_period,
        metrics_api_error: None,
        // No metrics are read: their absence is no finding.
        metrics_given: true,
        unlisted: Vec::new(),
        node_group_max: None,
    };
    (static_checks(&dump, &fleet), places(&dump))
}
