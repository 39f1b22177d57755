//! What people paste into incident channels and issues, read as the inputs the controller saw:
//! `kubectl describe hpa` text (`describe.rs`), the `kubectl get hpa` table (`table.rs`), and
//! HPA events (`events.rs`: `--events`, and the Events section of describe text). Each ends in
//! the same `Scenario` as a manifest does: the text forms become an `autoscaling/v2` spec with a
//! status, defaulted and validated by the manifest module and answered by the status-only
//! approximation; the events become the controller memory `--history` gives.

pub mod describe;
pub mod event;
pub mod events;
pub mod table;
pub mod text;

use serde_json::Value;

use crate::error::InputError;
use crate::input::manifest::{self, HpaStatus, LoadedHpa};
use crate::report::Diagnostic;
use events::HpaEvent;
pub use text::{Form, detect, is_preamble, parse_age, split_cells};

/// `scaleTargetRef` from `Kind/name`: pasted text does not show the apiVersion, which the kinds
/// an HPA usually scales imply.
fn scale_target_ref(kind: &str, name: &str) -> Value {
    let mut r = serde_json::Map::new();
    let api_version = match kind {
        "Deployment" | "StatefulSet" | "ReplicaSet" => "apps/v1",
        "ReplicationController" => "v1",
        _ => "",
    };
    if !api_version.is_empty() {
        r.insert("apiVersion".into(), Value::from(api_version));
    }
    r.insert("kind".into(), Value::from(kind));
    r.insert("name".into(), Value::from(name));
    Value::Object(r)
}

/// The v2 spec of a pasted HPA.
fn v2_spec(
    reference: Value,
    min: Option<i64>,
    max: i64,
    metrics: Vec<Value>,
    behavior: Option<serde_json::Map<String, Value>>,
) -> Value {
    let mut spec = serde_json::Map::new();
    spec.insert("scaleTargetRef".into(), reference);
    if let Some(min) = min {
        spec.insert("minReplicas".into(), Value::from(min));
    }
    spec.insert("maxReplicas".into(), Value::from(max));
    spec.insert("metrics".into(), Value::Array(metrics));
    if let Some(b) = behavior {
        spec.insert("behavior".into(), Value::Object(b));
    }
    Value::Object(spec)
}

/// Where the parts of a pasted HPA are in the text (1-based lines), to place errors.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Lines {
    pub first: usize,
    pub reference: usize,
    pub metrics: Vec<usize>,
    pub min: usize,
    pub max: usize,
    pub behavior: usize,
}

impl Lines {
    /// The line of a field path of the v2 spec the text was turned into.
    fn of(&self, path: &str) -> usize {
        let rest = path.strip_prefix("spec.").unwrap_or(path);
        if let Some(i) = rest
            .strip_prefix("metrics[")
            .and_then(|r| r.split(']').next())
            .and_then(|i| i.parse::<usize>().ok())
            && let Some(line) = self.metrics.get(i)
        {
            return *line;
        }
        let line = if rest.starts_with("minReplicas") {
            self.min
        } else if rest.starts_with("maxReplicas") {
            self.max
        } else if rest.starts_with("behavior") {
            self.behavior
        } else if rest.starts_with("scaleTargetRef") {
            self.reference
        } else {
            0
        };
        if line == 0 { self.first } else { line }
    }
}

/// An HPA read from pasted text: the v2 spec it shows, its status, and what else the text says.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pasted {
    pub name: String,
    pub namespace: String,
    /// The `autoscaling/v2` spec, as JSON, before defaulting.
    pub spec: Value,
    pub status: HpaStatus,
    pub events: Vec<HpaEvent>,
    pub notes: Vec<String>,
    pub warnings: Vec<String>,
    pub diagnostics: Vec<Diagnostic>,
    pub lines: Lines,
    /// The metrics kubectl showed as `<unknown>` (no value in the status), as shown.
    pub unknown: Vec<String>,
    /// `metadata.labels` where the text shows them (describe's `Labels:`).
    pub labels: std::collections::BTreeMap<String, String>,
    /// The `spec.metrics` positions of Resource targets shown without their resource's name.
    pub unnamed_resources: Vec<usize>,
}

impl Pasted {
    /// Defaulted and validated as a manifest is; errors point at the line that showed the value.
    pub fn into_loaded(self, file: &str, form: Form) -> Result<LoadedHpa, InputError> {
        let (spec, advice) = manifest::from_v2_spec(self.name, self.namespace, self.spec).map_err(
            |(path, message)| {
                InputError::new(file, message)
                    .at(self.lines.of(&path), None)
                    .field(path)
            },
        )?;
        let mut warnings = self.warnings;
        warnings.extend(advice.into_iter().map(|w| format!("{file}: {w}")));
        let mut diagnostics = self.diagnostics;
        if !self.unknown.is_empty() {
            diagnostics.push(missing_metrics(&self.unknown));
        }
        Ok(LoadedHpa {
            spec,
            status: self.status,
            warnings,
            notes: self.notes,
            events: self.events,
            diagnostics,
            form: Some(form),
            source: crate::report::FactSource::new("hpa", form.name(), Some(file)),
            labels: self.labels,
            keda: None,
            unnamed_resources: self.unnamed_resources,
        })
    }
}

/// kubectl shows `<unknown>` where the status has no current value: the controller could not get
/// the metric at its last sync.
fn missing_metrics(shown: &[String]) -> Diagnostic {
    Diagnostic::new(
        "MissingMetrics",
        crate::report::Severity::Warning,
        format!(
            "kubectl showed <unknown> for {} metric(s) ({}): the controller could not get their \
             values at its last sync, so they count as failed metrics here (a failed metric \
             blocks a scale-down)",
            shown.len(),
            shown.join("; ")
        ),
        "check the metrics pipeline (kubectl top pods for resource metrics, kubectl get --raw \
         /apis/custom.metrics.k8s.io/v1beta1 or /apis/external.metrics.k8s.io/v1beta1 for the \
         others) and the HPA's ScalingActive condition and events",
    )
}

/// What the choice of one HPA among several reads of each: its namespace and name (a whole
/// pasted HPA, or a row of a `get hpa -w` capture kept as its key alone).
pub trait Keyed {
    fn namespace(&self) -> &str;
    fn name(&self) -> &str;
}

impl Keyed for Pasted {
    fn namespace(&self) -> &str {
        &self.namespace
    }
    fn name(&self) -> &str {
        &self.name
    }
}

/// Keeps the HPAs of `namespace` (`-n`): a get-hpa table from `-A` lists every namespace.
pub fn in_namespace<T: Keyed>(all: &mut Vec<(usize, T)>, namespace: Option<&str>) {
    if let Some(ns) = namespace
        && all.iter().any(|(_, p)| p.namespace() == ns)
    {
        all.retain(|(_, p)| p.namespace() == ns);
    }
}

/// Several HPAs in one text: the one named `name`, or the only one. Rows of `kubectl get hpa -w`
/// repeat an HPA once per change: the last row is the newest.
pub fn choose<T: Keyed>(
    file: &str,
    all: Vec<(usize, T)>,
    name: Option<&str>,
) -> Result<T, InputError> {
    let key = |p: &T| format!("{}/{}", p.namespace(), p.name());
    let mut keys: Vec<String> = all.iter().map(|(_, p)| key(p)).collect();
    keys.sort_unstable();
    keys.dedup();
    let mut candidates: Vec<(usize, T)> = match name {
        Some(n) => all.into_iter().filter(|(_, p)| p.name() == n).collect(),
        None => all,
    };
    let mut chosen: Vec<String> = candidates.iter().map(|(_, p)| key(p)).collect();
    chosen.sort_unstable();
    chosen.dedup();
    match (name, chosen.len()) {
        (Some(n), 0) => Err(InputError::new(
            file,
            format!(
                "found no HPA named {}, expected one of: {}",
                crate::error::quoted(n),
                crate::error::name_list(&keys, crate::error::LIST_NAMES)
            ),
        )),
        (None, 0) => Err(InputError::new(
            file,
            "found no HPA in the text, expected at least one",
        )),
        (_, 1) => candidates
            .pop()
            .map(|(_, p)| p)
            .ok_or_else(|| InputError::new(file, "found no HPA in the text, expected one")),
        (_, many) => {
            let line = candidates.get(1).map_or(1, |(l, _)| *l);
            let how = if name.is_some() {
                "pick the namespace with -n"
            } else {
                "pick it with --name (and -n)"
            };
            Err(InputError::new(
                file,
                format!(
                    "found {many} HPAs ({}), expected one: {how}",
                    crate::error::name_list(&chosen, crate::error::LIST_NAMES)
                ),
            )
            .at(line, None))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cut_of_the_fixtures_reads_or_fails_at_a_line() {
        let cases = [
            (
                include_str!("../../../fixtures/paste/describe.txt"),
                Form::Describe,
            ),
            (
                include_str!("../../../fixtures/paste/get-hpa-watch.txt"),
                Form::Table,
            ),
        ];
        for (text, form) in cases {
            for end in (0..=text.len())
                .filter(|&i| text.is_char_boundary(i))
                .step_by(3)
            {
                let cut = &text[..end];
                let chosen = match form {
                    Form::Describe => describe::parse("p.txt", cut)
                        .and_then(|all| choose("p.txt", all, Some("web"))),
                    Form::Table => table::parse_one("p.txt", cut, None, Some("web")),
                };
                let result = chosen.and_then(|one| one.into_loaded("p.txt", form));
                if let Err(e) = result
                    && !e.message.starts_with("found no HPA named")
                {
                    assert!(e.line.is_some(), "{form:?} cut at {end}: {e}");
                }
            }
        }
        let events = include_str!("../../../fixtures/paste/events.yaml");
        for end in (0..=events.len())
            .filter(|&i| events.is_char_boundary(i))
            .step_by(7)
        {
            let _ = events::parse("e.yaml", &events[..end]);
        }
    }
}
