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
use crate::scenario::{
    ControllerConfig, HpaSpec, MetricSpec, Pod, PodMetrics, Scenario, TargetType,
};
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
    let each = |key: &&String| -> Result<(HpaDiff, Vec<String>)> {
        inputs.bounds.stop.check()?;
        let mut warnings = Vec::new();
        let d = hpa_diff(
            inputs,
            capture.as_ref(),
            &settings.controller,
            key,
            (old.get(*key), new.get(*key)),
            &mut warnings,
        )?;
        Ok((d, warnings))
    };
    let mut hpas = Vec::new();
    let mut worse = Vec::new();
    let mut warnings = Vec::new();
    for (key, compared) in keys.iter().zip(on_every_core(&keys, each)) {
        let (d, said) = compared?;
        warnings.extend(said);
        if let (Some(a), Some(b)) = (&d.old_figures, &d.new_figures) {
            for (text, r) in inputs.fail_on.iter().zip(&rules) {
                if let Some(detail) = r.worse(a, b) {
                    worse.push(Worse {
                        hpa: (*key).clone(),
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

/// `f` of every item, on every core, in the items' order: the HPAs do not depend on each other,
/// and each core takes a contiguous run of them, as the audit's evaluation does.
fn on_every_core<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let run = items.len().div_ceil(cores).max(1);
    let f = &f;
    std::thread::scope(|scope| {
        let workers: Vec<_> = (items.chunks(run))
            .map(|chunk| scope.spawn(move || chunk.iter().map(f).collect::<Vec<R>>()))
            .collect();
        (workers.into_iter())
            .flat_map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
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
    let (syncs_a, syncs_b) = (
        UniformSyncs::new(config, old, a, &ra, high)?,
        UniformSyncs::new(config, new, b, &rb, high)?,
    );
    let mut rows = Vec::new();
    for n in low..=high {
        let band = |syncs: &UniformSyncs, spec: &HpaSpec| -> Result<String> {
            if n < spec.min_replicas || n > spec.max_replicas {
                return Ok("-".to_string());
            }
            syncs.hold_band(n)
        };
        let (x, y) = (band(&syncs_a, a)?, band(&syncs_b, b)?);
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

/// One side's syncs of `n` ready pods at the target, each requesting 1000 units: the uniform
/// case of `serve --offline`'s calculator, as samples (input::form does the same). The inputs
/// are read once, for the largest count the side allows, and each smaller count's scenario is
/// that one's first `n` pods: `uniform_scenario` of `n` gives the same (a test says so), without
/// reading the manifest and the samples again for every count.
struct UniformSyncs {
    /// The scenario of `largest` pods, without its pods and their samples.
    base: Option<Scenario>,
    pods: Vec<Pod>,
    samples: Vec<PodMetrics>,
}

impl UniformSyncs {
    fn new(
        config: &ControllerConfig,
        side: &Side,
        spec: &HpaSpec,
        target: &(String, i32),
        high: i32,
    ) -> Result<UniformSyncs> {
        let largest = high.min(spec.max_replicas);
        if largest < spec.min_replicas.max(1) {
            return Ok(UniformSyncs {
                base: None,
                pods: Vec::new(),
                samples: Vec::new(),
            });
        }
        let mut base = uniform_scenario(config, side, target, largest)?;
        let pods = std::mem::take(&mut *base.pods);
        let samples = std::mem::take(&mut *base.metrics.resource);
        Ok(UniformSyncs {
            base: Some(base),
            pods,
            samples,
        })
    }

    /// The scenario of the sync of `n` pods, `n` from 1 to the largest count.
    fn at(&self, n: i32) -> Option<Scenario> {
        let k = usize::try_from(n).ok()?;
        let mut scenario = self.base.clone()?;
        scenario.pods = self.pods.get(..k)?.to_vec().into();
        scenario.metrics.resource = self.samples.get(..k)?.to_vec().into();
        scenario.current_replicas = n;
        scenario.status_replicas = n;
        Some(scenario)
    }

    /// The hold band of the sync of `n` pods.
    fn hold_band(&self, n: i32) -> Result<String> {
        let Some(scenario) = self.at(n) else {
            anyhow::bail!("no uniform sync of {n} pods");
        };
        Ok(band_of(&scenario))
    }
}

/// The first metric's hold band of a sync, as the diff prints it.
fn band_of(scenario: &Scenario) -> String {
    let report = calc::evaluate(scenario);
    let band = report.metrics.first().and_then(|m| m.hold_band.as_ref());
    calc::diff::band_text(band)
}

/// The scenario of one sync of `n` ready pods at the target, each requesting 1000 units, read
/// from samples as the calculator's form gives them.
fn uniform_scenario(
    config: &ControllerConfig,
    side: &Side,
    (resource, percent): &(String, i32),
    n: i32,
) -> Result<Scenario> {
    let mut csv = format!("pod,ready,{resource},{resource}_request\n");
    for i in 0..n {
        csv.push_str(&format!("pod-{i},true,{}m,1000m\n", percent * 10));
    }
    let mut settings = Settings::new(config.clone());
    settings.current_replicas = Some(n);
    settings.now = crate::time::Timestamp::parse_rfc3339("2026-01-01T00:00:00Z");
    let mut inputs = Inputs::of_hpa(Text::new(&side.place, side.text.clone()), settings);
    inputs.pods = Some(Given::Text(Text::new("<diff: uniform pods>", csv)));
    crate::input::build(inputs)
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

    fn side(yaml: &str) -> (Side, HpaSpec) {
        let file = Text::new("hpa.yaml", yaml);
        let spec = manifest::load("hpa.yaml:1", yaml, None).unwrap().spec;
        let side = Side {
            place: "hpa.yaml:1".into(),
            text: yaml.into(),
            name: spec.name.clone(),
            file,
        };
        (side, spec)
    }

    fn hpa(min: i32, max: i32, resource: &str, percent: i32, behavior: &str) -> String {
        format!(
            "apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {{name: web, namespace: shop}}
spec:
  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}
  minReplicas: {min}
  maxReplicas: {max}
  metrics:
  - type: Resource
    resource: {{name: {resource}, target: {{type: Utilization, averageUtilization: {percent}}}}}
{behavior}"
        )
    }

    /// Each count's sync cut from the largest one is the sync read from that count's own
    /// samples, scenario and band alike: the diff's hold bands are the ones it read before,
    /// for targets, bounds, behaviours, tolerances and API versions of every kind.
    #[test]
    fn a_uniform_sync_cut_from_the_largest_is_the_one_read_for_its_count() {
        let v1 = "apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: old, namespace: shop}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: old}
  minReplicas: 3
  maxReplicas: 9
  targetCPUUtilizationPercentage: 70
";
        let window = "  behavior:\n    scaleDown: {stabilizationWindowSeconds: 0}\n    \
                      scaleUp: {policies: [{type: Pods, value: 1, periodSeconds: 60}]}\n";
        let cases = [
            hpa(1, 12, "cpu", 50, ""),
            hpa(2, 10, "cpu", 60, window),
            hpa(5, 7, "memory", 150, ""),
            hpa(1, 3, "cpu", 1, ""),
            v1.to_string(),
        ];
        let tolerant = ControllerConfig {
            tolerance: 0.25,
            ..ControllerConfig::default()
        };
        let mut bands = std::collections::BTreeSet::new();
        for config in [ControllerConfig::default(), tolerant] {
            for yaml in &cases {
                let (side, spec) = side(yaml);
                let target = utilization(&spec).unwrap();
                let syncs = UniformSyncs::new(&config, &side, &spec, &target, 40).unwrap();
                for n in spec.min_replicas.max(1)..=spec.max_replicas {
                    let read = uniform_scenario(&config, &side, &target, n).unwrap();
                    let cut = syncs.at(n).unwrap();
                    assert_eq!(cut, read, "{yaml} at {n}");
                    let band = syncs.hold_band(n).unwrap();
                    assert_eq!(band, band_of(&read), "{yaml} at {n}");
                    bands.insert(band);
                }
            }
        }
        // The cases give bands of many kinds, not one.
        assert!(bands.len() > 10, "{bands:?}");
    }

    #[test]
    fn work_on_every_core_keeps_the_items_order() {
        let items: Vec<usize> = (0..1000).collect();
        let doubled = on_every_core(&items, |i| i * 2);
        assert_eq!(doubled, items.iter().map(|i| i * 2).collect::<Vec<_>>());
        assert!(on_every_core(&[] as &[usize], |i| *i).is_empty());
    }
}
