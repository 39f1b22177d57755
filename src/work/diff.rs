//! The diff of two sides of manifests (`hpacalc diff` and the MCP `diff` tool): two sides of manifests read as `audit -f` reads them, matched by
//! `namespace/name`; each HPA's behaviour and hold bands from the engine, and with `--load` a
//! run of each side through the same `simulate` engine, compared by the comparison's figures.

use std::collections::BTreeMap;

use anyhow::Result;

use crate::calc;
use crate::calc::diff::{DiffReport, FieldChange, FlipRow, HpaDiff, Rule, SyncDecision, Worse};
use crate::calc::simulate::compare::Figures;
use crate::cli::FleetControllerFlags;
use crate::error::{InputError, UsageError};
use crate::input::cluster::Dump;
use crate::input::cluster::fleet::hpa_key;
use crate::input::prometheus::ReplaySettings;
use crate::input::simulation::{self, SimSettings};
use crate::input::{Given, Inputs, Settings, Text, manifest};
use crate::scenario::{ControllerConfig, HpaSpec, MetricSpec, TargetType};
use crate::work::bounds::Bounds;

/// The most replica counts whose hold band is computed for one HPA.
const MAX_FLIP_ROWS: i32 = 200;

/// One HPA as a side gives it: where it was read, its object's text, and the whole file it is
/// in (a run reads the target's pod template beside it, as `simulate --hpa` does).
struct Side {
    place: String,
    text: String,
    name: String,
    file: Text,
}

/// What a diff is given, every file read: both sides' texts and the options of `hpacalc diff`.
#[derive(Debug, Clone)]
pub struct DiffInputs {
    /// The manifests before the change, each text as one file (several documents each).
    pub old: Vec<Text>,
    /// The manifests after it.
    pub new: Vec<Text>,
    /// `--fail-on` rules, as given.
    pub fail_on: Vec<String>,
    pub load: Option<Text>,
    pub load_map: Vec<String>,
    pub actual: Option<Text>,
    pub pod_request: Option<String>,
    pub replicas: Option<i32>,
    pub duration: Option<String>,
    pub pods: Option<Text>,
    pub metrics: Option<Text>,
    pub now: Option<String>,
    pub controller: FleetControllerFlags,
    /// The deadline and budget of the request (none on the command line).
    pub bounds: Bounds,
}

/// The diff of both sides' texts: every HPA compared, what got worse by the rules in the
/// report's `worse` (the command's exit 3, not an error here), and the runs' warnings.
pub fn diff_texts(inputs: &DiffInputs) -> Result<(DiffReport, Vec<String>)> {
    let rules = (inputs.fail_on.iter())
        .map(|r| rule(r))
        .collect::<Result<Vec<_>, _>>()?;
    if !rules.is_empty() && inputs.load.is_none() {
        anyhow::bail!(UsageError(
            "--fail-on compares the runs of both sides: it needs --load".to_string()
        ));
    }
    let settings = Settings::from_fleet_flags(&inputs.controller)?;
    let (old, new) = (side(&inputs.old)?, side(&inputs.new)?);
    let capture = capture_of(inputs, &settings)?;
    let mut keys: Vec<&String> = old.keys().chain(new.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut hpas = Vec::new();
    let mut worse = Vec::new();
    let mut warnings = Vec::new();
    for key in keys {
        inputs.bounds.stop.check()?;
        let d = hpa_diff(
            inputs,
            capture.as_ref(),
            &settings.controller,
            key,
            (old.get(key), new.get(key)),
            &mut warnings,
        )?;
        if let (Some(a), Some(b)) = (&d.old_figures, &d.new_figures) {
            for (text, r) in inputs.fail_on.iter().zip(&rules) {
                if let Some(detail) = r.worse(a, b) {
                    worse.push(Worse {
                        hpa: key.clone(),
                        rule: text.clone(),
                        detail,
                    });
                }
            }
        }
        hpas.push(d);
    }
    Ok((DiffReport::new(hpas, worse), warnings))
}

/// `--fail-on RULE`.
fn rule(text: &str) -> Result<Rule, InputError> {
    let percent = |rest: &str| {
        rest.strip_suffix('%')
            .and_then(|p| p.parse::<f64>().ok())
            .filter(|p| p.is_finite() && *p >= 0.0)
    };
    let found = match text {
        "unserved-load" => Some(Rule::UnservedLoad),
        "flapping" => Some(Rule::Flapping),
        "scale-events" => Some(Rule::ScaleEvents),
        // Without a threshold, any increase.
        "pod-hours" => Some(Rule::PodHours(0.0)),
        "time-above-target" => Some(Rule::TimeAboveTarget(0.0)),
        _ => match text.split_once('>') {
            Some(("pod-hours", p)) => percent(p).map(Rule::PodHours),
            Some(("time-above-target", p)) => percent(p).map(Rule::TimeAboveTarget),
            _ => None,
        },
    };
    found.ok_or_else(|| {
        InputError::new(
            "--fail-on",
            format!(
                "found {}, expected unserved-load, flapping, scale-events, pod-hours[>N%] or \
                 time-above-target[>N%]",
                crate::error::quoted(text)
            ),
        )
    })
}

/// The HPAs of one side's manifests, by `namespace/name`, each read as `audit -f` reads a file.
fn side(files: &[Text]) -> Result<BTreeMap<String, Side>> {
    let mut dump = Dump::default();
    for file in files {
        dump.read_manifest_text(&file.name, &file.text)?;
    }
    dump.dedupe();
    let mut out = BTreeMap::new();
    for h in &dump.hpas {
        // `file:line`: the file is every file read whose name the place starts with.
        let Some(file) = (files.iter())
            .filter(|f| h.place.starts_with(f.name.as_str()))
            .max_by_key(|f| f.name.len())
        else {
            continue;
        };
        let side = Side {
            place: h.place.clone(),
            text: h.text.to_string(),
            name: h.head.metadata.name.to_string(),
            file: file.clone(),
        };
        out.insert(hpa_key(&h.head), side);
    }
    Ok(out)
}

/// One HPA on both sides: what changed, the hold bands, and with a load both runs' figures.
fn hpa_diff(
    inputs: &DiffInputs,
    capture: Option<&Inputs>,
    config: &ControllerConfig,
    key: &str,
    (old, new): (Option<&Side>, Option<&Side>),
    warnings: &mut Vec<String>,
) -> Result<HpaDiff> {
    let spec = |s: Option<&Side>| -> Result<Option<HpaSpec>> {
        Ok(
            s.map(|s| manifest::load(&s.place, &s.text, None).map(|l| l.spec))
                .transpose()?,
        )
    };
    let (a, b) = (spec(old)?, spec(new)?);
    let behaviour = |s: &Option<HpaSpec>| {
        s.as_ref()
            .map(|s| calc::diff::behaviour(s, config))
            .unwrap_or_default()
    };
    let changes: Vec<FieldChange> = calc::diff::field_changes(&behaviour(&a), &behaviour(&b));
    let status = match (&a, &b) {
        (None, _) => "added",
        (_, None) => "removed",
        (Some(x), Some(y)) if x == y => "unchanged",
        _ => "changed",
    };
    let mut d = HpaDiff {
        hpa: key.to_string(),
        status: status.to_string(),
        changes,
        flips: Vec::new(),
        old_figures: None,
        new_figures: None,
        old_decision: None,
        new_decision: None,
    };
    if let (Some(o), Some(n), Some(x), Some(y)) = (old, new, &a, &b)
        && status == "changed"
    {
        d.flips = flips(config, (o, x), (n, y))?;
        if let Some(load) = &inputs.load {
            d.old_figures = Some(run_on_load(inputs, load, o, warnings)?);
            d.new_figures = Some(run_on_load(inputs, load, n, warnings)?);
        }
        if let Some(capture) = capture {
            d.old_decision = Some(decide(capture, o, warnings)?);
            d.new_decision = Some(decide(capture, n, warnings)?);
        }
    }
    Ok(d)
}

/// The first metric's hold band at each replica count either side allows, where they differ:
/// each the controller's own band of a sync with that many ready pods at the target (a plain
/// Resource Utilization target on both sides, else none).
fn flips(
    config: &ControllerConfig,
    (old, a): (&Side, &HpaSpec),
    (new, b): (&Side, &HpaSpec),
) -> Result<Vec<FlipRow>> {
    let (Some(ra), Some(rb)) = (utilization(a), utilization(b)) else {
        return Ok(Vec::new());
    };
    let low = a.min_replicas.min(b.min_replicas).max(1);
    let high = a.max_replicas.max(b.max_replicas).min(low + MAX_FLIP_ROWS);
    let mut rows = Vec::new();
    for n in low..=high {
        let band = |side: &Side, spec: &HpaSpec, r: &(String, i32)| -> Result<String> {
            if n < spec.min_replicas || n > spec.max_replicas {
                return Ok("-".to_string());
            }
            hold_band(config, side, r, n)
        };
        let (x, y) = (band(old, a, &ra)?, band(new, b, &rb)?);
        if x != y {
            rows.push(FlipRow {
                replicas: n,
                old: x,
                new: y,
            });
        }
    }
    Ok(rows)
}

/// The resource and the percent of a spec's first metric, a plain Resource Utilization target.
fn utilization(spec: &HpaSpec) -> Option<(String, i32)> {
    match spec.metrics.first()? {
        MetricSpec::Resource {
            resource,
            container: None,
            target,
        } if target.target_type == TargetType::Utilization => {
            Some((resource.clone(), target.average_utilization?))
        }
        _ => None,
    }
}

/// The hold band of one sync of `n` ready pods at the target, each requesting 1000 units: the
/// uniform case of `serve --offline`'s calculator, as samples (input::form does the same).
fn hold_band(
    config: &ControllerConfig,
    side: &Side,
    (resource, percent): &(String, i32),
    n: i32,
) -> Result<String> {
    let mut csv = format!("pod,ready,{resource},{resource}_request\n");
    for i in 0..n {
        csv.push_str(&format!("pod-{i},true,{}m,1000m\n", percent * 10));
    }
    let mut settings = Settings::new(config.clone());
    settings.current_replicas = Some(n);
    settings.now = crate::time::Timestamp::parse_rfc3339("2026-01-01T00:00:00Z");
    let mut inputs = Inputs::of_hpa(Text::new(&side.place, side.text.clone()), settings);
    inputs.pods = Some(Given::Text(Text::new("<diff: uniform pods>", csv)));
    let scenario = crate::input::build(inputs)?;
    let report = calc::evaluate(&scenario);
    let band = report.metrics.first().and_then(|m| m.hold_band.as_ref());
    Ok(calc::diff::band_text(band))
}

/// `--pods` and `--metrics`, read once: the inputs of one sync, the HPA left to each side.
fn capture_of(given: &DiffInputs, settings: &Settings) -> Result<Option<Inputs>> {
    let Some(pods) = &given.pods else {
        return Ok(None);
    };
    let mut settings = settings.clone();
    if let Some(text) = &given.now {
        settings.now = Some(crate::input::inputs::flag_time("--now", text)?);
    }
    let mut inputs = Inputs::of_hpa(Text::new("", ""), settings);
    inputs.pods = Some(Given::Text(pods.clone()));
    inputs.metrics = given.metrics.clone().map(Given::Text);
    Ok(Some(inputs))
}

/// One side's sync on the capture: the single-sync calculation with that side's HPA.
fn decide(capture: &Inputs, side: &Side, warnings: &mut Vec<String>) -> Result<SyncDecision> {
    let mut inputs = capture.clone();
    inputs.hpa = side.file.clone();
    inputs.settings.name = Some(side.name.clone());
    let scenario = crate::input::build(inputs)?;
    warnings.extend(scenario.warnings.iter().cloned());
    Ok(SyncDecision::of(&calc::evaluate(&scenario)))
}

/// One side's run on the load: the same `Setup` and engine as `simulate`.
fn run_on_load(
    args: &DiffInputs,
    load: &Text,
    side: &Side,
    warnings: &mut Vec<String>,
) -> Result<Figures> {
    let c = &args.controller;
    let inputs = simulation::Inputs {
        hpa: side.file.clone(),
        load: Some(load.clone()),
        actual: args.actual.clone(),
        settings: SimSettings {
            name: Some(side.name.clone()),
            replicas: args.replicas,
            duration: args.duration.clone(),
            pod_request: args.pod_request.clone(),
            sync_period: Some(c.sync_period.clone()),
            tolerance: Some(c.tolerance),
            kube_version: Some(c.kube_version.clone()),
            feature_gates: c.feature_gates.clone(),
            ..SimSettings::default()
        },
        replay: ReplaySettings {
            load_map: args.load_map.clone(),
            ..ReplaySettings::default()
        },
        label: None,
        load_set: Vec::new(),
    };
    let setup = simulation::build(&inputs)?;
    warnings.extend(setup.scenario.warnings.iter().cloned());
    Ok(calc::simulate::compare::figures(
        &args.bounds.run(&setup, "duration")?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_without_a_threshold_means_any_increase() {
        assert_eq!(rule("pod-hours").unwrap(), Rule::PodHours(0.0));
        assert_eq!(
            rule("time-above-target").unwrap(),
            Rule::TimeAboveTarget(0.0)
        );
        assert_eq!(rule("pod-hours>10%").unwrap(), Rule::PodHours(10.0));
        assert!(rule("pod-hours>").is_err());
    }
}
