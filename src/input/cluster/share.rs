//! One HPA's share of a dump (its manifest, its target, the pods its target's selector matches,
//! their metrics, its events) as the `Inputs` of the single-HPA command: the audit's scenario of
//! an HPA is the one `hpacalc -f hpa.json --pods pods.json ...` builds, by construction, and the
//! objects the dump holds are read once, never written out to be read again.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use super::objects::{self, PodMetrics, Workload};
use super::{Whole, objects::HpaHead};
use crate::error::InputError;
use crate::input::inputs::{Given, Inputs, Settings, Text};
use crate::input::kubectl::{Scope, metrics, pods};
use crate::input::manifest::LoadedHpa;
use crate::input::target::{ScaleUnread, TargetScale, replica_count};
use crate::scenario::{ObjectReference, Scenario, SelectorError};

/// What one HPA's share holds.
pub struct Share<'a> {
    pub hpa: &'a Whole<HpaHead>,
    /// What is given as `--hpa`: the HPA, or the KEDA ScaledObject that made it.
    pub manifest: &'a Whole<HpaHead>,
    pub target: Option<&'a Workload>,
    pub pods: Vec<&'a objects::Pod>,
    /// `None` when no `--metrics` was given.
    pub metrics: Option<Vec<&'a PodMetrics>>,
    pub metrics_api_error: Option<&'a str>,
    pub events: Vec<&'a Whole<objects::EventHead>>,
    /// The controller's own selector check failed for this HPA.
    pub selector_error: Option<SelectorError>,
    /// The target's scale cannot be read (not in the dump, or a kind without one): the sync
    /// stops there, and no pod or metric is handed over.
    pub scale_error: Option<ScaleUnread>,
    /// Its own answers besides the dump (live custom and external metrics).
    pub own: Option<&'a super::HpaFiles>,
    /// The manifests earlier syncs of `serve` parsed, when it keeps them.
    pub parsed: Option<&'a Parsed>,
}

/// Each HPA's manifest (or ScaledObject) as an earlier sync of `serve` parsed it, by the name its
/// text is given under: the text is the same from sync to sync until the object changes, and
/// parsing it was a quarter of the time a sync takes to make an HPA's scenario. An entry is
/// used only for the same text, name and namespace settings: what `load_hpa` reads.
#[derive(Debug, Default)]
pub struct Parsed(Mutex<HashMap<String, ParsedEntry>>);

#[derive(Debug)]
struct ParsedEntry {
    /// The HPA's `namespace/name`, to forget it once it is gone.
    hpa: String,
    text: Arc<str>,
    settings: (Option<String>, Option<String>),
    loaded: LoadedHpa,
}

impl Parsed {
    /// The manifest as `load_hpa` reads it, from an earlier sync when the text is the same;
    /// `None` when it does not load (the build then reads it again, and says why).
    fn load(&self, hpa: &str, text: &Text, settings: &Settings) -> Option<LoadedHpa> {
        let said = (settings.name.clone(), settings.namespace.clone());
        if let Ok(kept) = self.0.lock()
            && let Some(e) = kept.get(&text.name)
            && e.settings == said
            && (Arc::ptr_eq(&e.text, &text.text) || e.text == text.text)
        {
            return Some(e.loaded.clone());
        }
        let loaded = crate::input::load_hpa(text, settings).ok()?;
        if let Ok(mut kept) = self.0.lock() {
            let entry = ParsedEntry {
                hpa: hpa.to_string(),
                text: Arc::clone(&text.text),
                settings: said,
                loaded: loaded.clone(),
            };
            kept.insert(text.name.clone(), entry);
        }
        Some(loaded)
    }

    /// Forgets the manifests of the HPAs (`namespace/name`) not in `live`.
    pub fn retain(&self, live: &HashSet<String>) {
        if let Ok(mut kept) = self.0.lock() {
            kept.retain(|_, e| live.contains(&e.hpa));
        }
    }
}

/// Events as the one `List` that `--events` reads.
pub fn event_list<'a>(events: impl Iterator<Item = &'a str>) -> String {
    let items: Vec<&str> = events.collect();
    format!(
        "{{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{}]}}",
        items.join(",")
    )
}

/// What every HPA's command shares.
pub struct Common {
    /// The controller flags and the evaluation time.
    pub settings: Settings,
    /// `--custom-metrics` and `--external-metrics`: read once, given to every HPA.
    pub custom_metrics: Vec<Text>,
    pub external_metrics: Vec<Text>,
}

impl Share<'_> {
    /// The share as the inputs of the single-HPA command.
    pub fn inputs(&self, common: &Common) -> Result<Inputs, InputError> {
        let meta = &self.hpa.head.metadata;
        // No file of this name exists: each text is named as what it is in the dump (or the
        // live cluster the dump was read from), so a message or an assumption names no file.
        let of = format!("{}/{}", meta.namespace, meta.name);
        let file = |name: &str| {
            let what = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
            format!("the {} of {of} in the dump", what.replace('-', " "))
        };
        let manifest = if std::ptr::eq(self.manifest, self.hpa) {
            "hpa.json"
        } else {
            "scaledobject.json"
        };
        // The pods were matched by the audit's index: no selector narrows them again.
        let namespace = if meta.namespace.is_empty() {
            "default"
        } else {
            meta.namespace.as_str()
        };
        let scope = Scope {
            namespace: namespace.to_string(),
            selector: None,
            selector_is_targets: false,
        };
        let target_ref = &self.hpa.head.spec.scale_target_ref;
        let target_ref = ObjectReference {
            api_version: String::new(),
            kind: target_ref.kind.to_string(),
            name: target_ref.name.to_string(),
        };
        let mut inputs = Inputs::of_hpa(
            Text::new(file(manifest), &*self.manifest.text),
            common.settings.clone(),
        );
        inputs.scale_error = self.scale_error.clone();
        if self.scale_error.is_none() {
            let pods_file = file("pods.json");
            let captured = pods::from_objects(&pods_file, &self.pods, &scope, &target_ref)?;
            inputs.metrics = self.metrics_input(&file("metrics.json"), &scope, &captured)?;
            inputs.pods = Some(Given::Read {
                name: pods_file,
                value: captured,
            });
        }
        if let Some(target) = self.target {
            let name = file("target.json");
            let value = target_scale(&name, target)?;
            inputs.target = Some(Given::Read { name, value });
        }
        if !self.events.is_empty() {
            let list = event_list(self.events.iter().map(|e| &*e.text));
            inputs.events = Some(Text::new(file("events.json"), list));
        }
        for (flag, name, text) in self.own.iter().flat_map(|o| &o.files) {
            let text = Text::new(file(name), text.as_str());
            match *flag {
                "--custom-metrics" => inputs.custom_metrics.push(text),
                _ => inputs.external_metrics.push(text),
            }
        }
        inputs
            .custom_metrics
            .extend(common.custom_metrics.iter().cloned());
        inputs
            .external_metrics
            .extend(common.external_metrics.iter().cloned());
        Ok(inputs)
    }

    /// The resource metrics: the API's error answer, the matched items, or none given.
    fn metrics_input(
        &self,
        name: &str,
        scope: &Scope,
        pods: &pods::CapturedPods,
    ) -> Result<Option<Given<metrics::CapturedMetrics>>, InputError> {
        let value = match (self.metrics_api_error, &self.metrics) {
            (Some(message), _) => metrics::CapturedMetrics {
                api_error: Some(message.to_string()),
                ..metrics::CapturedMetrics::default()
            },
            (None, Some(items)) => metrics::from_objects(name, items, scope, &pods.excluded)?,
            (None, None) => return Ok(None),
        };
        Ok(Some(Given::Read {
            name: name.to_string(),
            value,
        }))
    }

    /// The scenario the single-HPA command builds from this share.
    pub fn scenario(&self, common: &Common) -> anyhow::Result<Scenario> {
        let inputs = self.inputs(common)?;
        let meta = &self.hpa.head.metadata;
        let hpa = format!("{}/{}", meta.namespace, meta.name);
        let parsed = (self.parsed).and_then(|p| p.load(&hpa, &inputs.hpa, &inputs.settings));
        let mut scenario = crate::input::build_parsed(inputs, parsed)?;
        scenario
            .metrics
            .selector_error
            .clone_from(&self.selector_error);
        if let Some(own) = self.own {
            scenario
                .input_diagnostics
                .extend(own.diagnostics.iter().cloned());
        }
        Ok(scenario)
    }
}

/// The target's replicas, as `--target` reads them.
fn target_scale(file: &str, target: &Workload) -> Result<TargetScale, InputError> {
    Ok(TargetScale {
        file: file.to_string(),
        spec_replicas: replica_count(file, "spec.replicas", target.spec.replicas)?,
        status_replicas: replica_count(file, "status.replicas", target.status.replicas)?,
        // The audit reports it as its own finding.
        replicas_managers: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ControllerConfig;

    fn hpa(max: i32) -> String {
        format!(
            r#"{{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler",
            "metadata":{{"name":"web","namespace":"shop"}},
            "spec":{{"scaleTargetRef":{{"apiVersion":"apps/v1","kind":"Deployment","name":"web"}},
            "minReplicas":1,"maxReplicas":{max},"metrics":[{{"type":"Resource","resource":
            {{"name":"cpu","target":{{"type":"Utilization","averageUtilization":50}}}}}}]}}}}"#
        )
    }

    #[test]
    fn a_kept_manifest_is_what_parsing_gives_and_a_changed_text_is_parsed_again() {
        let parsed = Parsed::default();
        let settings = Settings::new(ControllerConfig::default());
        let name = "the hpa of shop/web in the dump";
        let first = Text::new(name, hpa(10));
        let fresh = crate::input::load_hpa(&first, &settings).unwrap();
        assert_eq!(
            parsed.load("shop/web", &first, &settings),
            Some(fresh.clone())
        );
        // The same text, another copy of it (the next sync's dump): the kept parse.
        let again = Text::new(name, hpa(10));
        assert_eq!(parsed.load("shop/web", &again, &settings), Some(fresh));
        // The object changed: its new text is parsed.
        let changed = Text::new(name, hpa(12));
        let loaded = parsed.load("shop/web", &changed, &settings).unwrap();
        assert_eq!(loaded.spec.max_replicas, 12);
        // An HPA that is gone is forgotten.
        parsed.retain(&HashSet::new());
        assert!(parsed.0.lock().unwrap().is_empty());
    }
}
