//! The calculator's forms (`hpacalc serve --offline`, `/calc`): what a web form says, filled into
//! the same `Inputs` the command line fills, with in-memory named texts (never an argv, never a
//! temporary file). The uniform case (every pod alike) becomes an HPA manifest and a samples CSV;
//! a paste is the texts as given, each named by its field.

use std::fmt::Write;

use anyhow::Result;

use crate::error::{InputError, UsageError};
use crate::input::inputs::{ControllerFlags, controller_config, flag_time};
use crate::input::{Given, Inputs, Settings, Text};

/// Every pod's request in the uniform case: a percent of it is 10m.
pub const REQUEST_MILLI: i64 = 1000;

/// The most pods the uniform form describes.
pub const MAX_PODS: i64 = 10_000;

/// `application/x-www-form-urlencoded` (a query or a POST body) as its (name, value) pairs.
pub fn decode(text: &str) -> Vec<(String, String)> {
    text.split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (unescape(name), unescape(value))
        })
        .collect()
}

/// `+` is a space, `%XX` a byte; anything else (a bad escape too) as it is.
fn unescape(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (b, hex) {
            (b'+', _) => out.push(b' '),
            (b'%', Some(v)) => {
                out.push(v);
                i += 2;
            }
            _ => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The value of a field, the last one given.
pub fn field<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .rev()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// The uniform case: every ready pod uses the same share of the same request.
#[derive(Debug, Clone, PartialEq)]
pub struct Uniform {
    /// The target's current replica count.
    pub replicas: i64,
    /// Each ready pod's usage, in percent of its request (`REQUEST_MILLI`).
    pub usage: i64,
    pub ready: i64,
    pub unready: i64,
    pub missing: i64,
    /// The target utilization, percent.
    pub target: i64,
    pub tolerance: f64,
    pub min: i64,
    pub max: i64,
    /// `spec.behavior` as YAML (its fields, unindented); empty is none: the legacy path.
    pub behavior: String,
    /// `--node-allocatable` (`cpu=2,pods=110`): with it, the nodes the decision needs.
    pub node_allocatable: String,
    /// `--existing-nodes`.
    pub existing_nodes: Option<i64>,
    /// The metric's resource (`cpu`, `memory`) of an AverageValue target.
    pub resource: String,
    /// An AverageValue target (`100Mi`); empty: the Utilization target `target`.
    pub average_value: String,
    /// With an AverageValue target: each ready pod's usage (`120Mi`).
    pub usage_value: String,
}

impl Default for Uniform {
    fn default() -> Self {
        Uniform {
            replicas: 4,
            usage: 60,
            ready: 4,
            unready: 0,
            missing: 0,
            target: 50,
            tolerance: 0.1,
            min: 1,
            max: 10,
            behavior: String::new(),
            node_allocatable: String::new(),
            existing_nodes: None,
            resource: "cpu".to_string(),
            average_value: String::new(),
            usage_value: String::new(),
        }
    }
}

/// The GET form's fields, in the order shown: (id, label).
pub const UNIFORM_FIELDS: [(&str, &str); 15] = [
    ("replicas", "current replicas"),
    ("usage", "usage per ready pod (% of a 1000m request)"),
    ("ready", "ready pods"),
    ("unready", "not ready pods"),
    ("missing", "pods without metrics"),
    ("target", "target utilization (%)"),
    ("tolerance", "tolerance"),
    ("min", "minReplicas"),
    ("max", "maxReplicas"),
    ("behavior", "behavior (YAML, optional)"),
    (
        "node-allocatable",
        "node allocatable (cpu=2,pods=110; optional: the nodes needed)",
    ),
    ("existing-nodes", "existing nodes (optional)"),
    (
        "resource",
        "resource of an AverageValue target (cpu, memory)",
    ),
    (
        "average-value",
        "AverageValue target (100Mi; optional: replaces the utilization target)",
    ),
    (
        "usage-value",
        "usage per ready pod, for AverageValue (120Mi)",
    ),
];

/// A quantity field of the AverageValue case: empty, or a quantity `parse_milli` reads.
fn quantity_field(pairs: &[(String, String)], name: &str) -> Result<String> {
    let text = field(pairs, name).unwrap_or("").trim();
    if !text.is_empty() && !matches!(crate::quantity::parse_milli(text), Ok(m) if m >= 0) {
        return Err(InputError::new(
            name,
            format!(
                "found {}, expected a quantity of 0 or more such as 100Mi or 250m",
                crate::error::quoted(text)
            ),
        )
        .into());
    }
    Ok(text.to_string())
}

fn whole(pairs: &[(String, String)], name: &str, default: i64, low: i64) -> Result<i64> {
    let Some(text) = field(pairs, name).map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(default);
    };
    match text.parse::<i64>() {
        Ok(v) if (low..=1_000_000).contains(&v) => Ok(v),
        _ => Err(InputError::new(
            name,
            format!(
                "found {}, expected a whole number from {low} to 1000000",
                crate::error::quoted(text)
            ),
        )
        .into()),
    }
}

impl Uniform {
    /// The GET form's query; a field left out (or empty) is its default.
    pub fn from_pairs(pairs: &[(String, String)]) -> Result<Uniform> {
        let d = Uniform::default();
        let tolerance = match field(pairs, "tolerance").map(str::trim) {
            None | Some("") => d.tolerance,
            Some(text) => text
                .parse::<f64>()
                .ok()
                .filter(|t| t.is_finite() && *t >= 0.0)
                .ok_or_else(|| {
                    InputError::new(
                        "tolerance",
                        format!(
                            "found {}, expected a ratio such as 0.1",
                            crate::error::quoted(text)
                        ),
                    )
                })?,
        };
        let u = Uniform {
            replicas: whole(pairs, "replicas", d.replicas, 0)?,
            usage: whole(pairs, "usage", d.usage, 0)?,
            ready: whole(pairs, "ready", d.ready, 0)?,
            unready: whole(pairs, "unready", d.unready, 0)?,
            missing: whole(pairs, "missing", d.missing, 0)?,
            target: whole(pairs, "target", d.target, 1)?,
            tolerance,
            min: whole(pairs, "min", d.min, 1)?,
            max: whole(pairs, "max", d.max, 1)?,
            behavior: field(pairs, "behavior")
                .unwrap_or("")
                .trim_end()
                .to_string(),
            node_allocatable: field(pairs, "node-allocatable")
                .unwrap_or("")
                .trim()
                .to_string(),
            existing_nodes: match field(pairs, "existing-nodes").map(str::trim) {
                None | Some("") => None,
                Some(_) => Some(whole(pairs, "existing-nodes", 0, 0)?),
            },
            resource: match field(pairs, "resource").map(str::trim) {
                None | Some("") => d.resource,
                Some(r @ ("cpu" | "memory")) => r.to_string(),
                Some(other) => {
                    return Err(InputError::new(
                        "resource",
                        format!(
                            "found {}, expected cpu or memory",
                            crate::error::quoted(other)
                        ),
                    )
                    .into());
                }
            },
            average_value: quantity_field(pairs, "average-value")?,
            usage_value: quantity_field(pairs, "usage-value")?,
        };
        if !u.average_value.is_empty() && u.usage_value.is_empty() {
            return Err(InputError::new(
                "usage-value",
                "found nothing, expected each ready pod's usage (120Mi) for the AverageValue \
                 target",
            )
            .into());
        }
        if u.ready + u.unready + u.missing > MAX_PODS {
            return Err(InputError::new(
                "ready",
                format!("ready, unready and missing pods add up to more than {MAX_PODS}"),
            )
            .into());
        }
        Ok(u)
    }

    /// The values as the form shows them, in `UNIFORM_FIELDS`' order.
    pub fn values(&self) -> [String; 15] {
        [
            self.replicas.to_string(),
            self.usage.to_string(),
            self.ready.to_string(),
            self.unready.to_string(),
            self.missing.to_string(),
            self.target.to_string(),
            self.tolerance.to_string(),
            self.min.to_string(),
            self.max.to_string(),
            self.behavior.clone(),
            self.node_allocatable.clone(),
            self.existing_nodes
                .map_or_else(String::new, |n| n.to_string()),
            self.resource.clone(),
            self.average_value.clone(),
            self.usage_value.clone(),
        ]
    }

    /// An AverageValue target rather than the Utilization one.
    pub fn is_average_value(&self) -> bool {
        !self.average_value.is_empty()
    }

    /// The HPA: cpu utilization at `target` (or `resource` at the AverageValue given), `min` to
    /// `max`, and the behavior given.
    pub fn hpa_text(&self) -> String {
        let (resource, target) = if self.is_average_value() {
            (
                self.resource.as_str(),
                format!(
                    "type: AverageValue\n        averageValue: {}",
                    self.average_value
                ),
            )
        } else {
            (
                "cpu",
                format!(
                    "type: Utilization\n        averageUtilization: {}",
                    self.target
                ),
            )
        };
        let mut text = format!(
            "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: calc\n  \
             namespace: default\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    \
             kind: Deployment\n    name: app\n  minReplicas: {}\n  maxReplicas: {}\n  metrics:\n  \
             - type: Resource\n    resource:\n      name: {resource}\n      target:\n        \
             {target}\n",
            self.min, self.max
        );
        if !self.behavior.trim().is_empty() {
            text.push_str("  behavior:\n");
            for line in self.behavior.lines() {
                let _ = writeln!(text, "    {line}");
            }
        }
        text
    }

    /// The samples CSV: the ready pods at `usage`, the not ready ones too (the controller sets
    /// their usage aside), and the missing ones without a sample.
    /// With an AverageValue target: the ready and not ready pods at `usage-value` of
    /// `resource`, no request (the controller reads none for it).
    pub fn pods_csv(&self) -> String {
        let (header, usage, request) = if self.is_average_value() {
            (
                format!("pod,ready,{}\n", self.resource),
                self.usage_value.clone(),
                String::new(),
            )
        } else {
            (
                "pod,ready,cpu,cpu_request\n".to_string(),
                format!("{}m", self.usage * REQUEST_MILLI / 100),
                format!(",{REQUEST_MILLI}m"),
            )
        };
        let mut out = header;
        let kinds = [
            (self.ready, "true", usage.as_str()),
            (self.unready, "false", usage.as_str()),
            (self.missing, "true", ""),
        ];
        let mut n = 0;
        for (count, ready, value) in kinds {
            for _ in 0..count {
                n += 1;
                let _ = writeln!(out, "pod-{n},{ready},{value}{request}");
            }
        }
        out
    }

    /// The command line that computes the same, given the two files as `hpa.yaml` and `pods.csv`.
    pub fn command(&self, now: Option<&str>) -> String {
        let mut out = format!(
            "hpacalc --hpa hpa.yaml --pods pods.csv --current-replicas {} --tolerance {}",
            self.replicas, self.tolerance
        );
        if !self.node_allocatable.is_empty() {
            let _ = write!(out, " --node-allocatable {}", self.node_allocatable);
        }
        if let Some(n) = self.existing_nodes {
            let _ = write!(out, " --existing-nodes {n}");
        }
        if let Some(now) = now {
            let _ = write!(out, " --now {now}");
        }
        out
    }

    /// The `Inputs` of the uniform case.
    pub fn inputs(&self, now: Option<&str>) -> Result<Inputs> {
        let mut settings = settings(now, Some(self.tolerance))?;
        settings.current_replicas = Some(i32::try_from(self.replicas)?);
        settings.nodes.node_allocatable =
            Some(self.node_allocatable.clone()).filter(|a| !a.is_empty());
        settings.nodes.existing_nodes = self.existing_nodes;
        let mut inputs = Inputs::of_hpa(Text::new("hpa.yaml", self.hpa_text()), settings);
        inputs.pods = Some(Given::Text(Text::new("pods.csv", self.pods_csv())));
        Ok(inputs)
    }
}

/// `now`, an RFC 3339 time, as `--now` reads it.
fn settings(now: Option<&str>, tolerance: Option<f64>) -> Result<Settings> {
    let now = (now.map(str::trim).filter(|t| !t.is_empty()))
        .map(|text| flag_time("now", text))
        .transpose()?;
    let mut settings = Settings::new(controller_config(&ControllerFlags {
        tolerance,
        ..ControllerFlags::default()
    })?);
    settings.now = now;
    Ok(settings)
}

/// The POST form's pasted texts, by field: `hpa` (any form `--hpa` reads), `pods`, `metrics`,
/// `events` (each as its flag reads it; empty is not given) and `now`.
pub const PASTED_FIELDS: [&str; 4] = ["hpa", "pods", "metrics", "events"];

/// The `Inputs` of a paste, each text named by its field.
pub fn pasted_inputs(pairs: &[(String, String)]) -> Result<Inputs> {
    let text = |name: &str| {
        field(pairs, name)
            .filter(|t| !t.trim().is_empty())
            .map(|t| Text::new(name, t))
    };
    let Some(hpa) = text("hpa") else {
        anyhow::bail!(UsageError("hpa: paste an HPA".to_string()));
    };
    let pods = text("pods");
    let metrics = text("metrics");
    if metrics.is_some() && pods.is_none() {
        anyhow::bail!(UsageError(
            "metrics needs pods: the controller reads each pod's readiness and requests"
                .to_string()
        ));
    }
    let mut inputs = Inputs::of_hpa(hpa, settings(field(pairs, "now"), None)?);
    inputs.pods = pods.map(Given::Text);
    inputs.metrics = metrics.map(Given::Text);
    inputs.events = text("events");
    Ok(inputs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(query: &str) -> Vec<(String, String)> {
        decode(query)
    }

    #[test]
    fn a_form_is_decoded_with_its_escapes() {
        let p = pairs("hpa=a+b%3Cc%3E&x=%ZZ&&y");
        assert_eq!(field(&p, "hpa"), Some("a b<c>"));
        assert_eq!(field(&p, "x"), Some("%ZZ"));
        assert_eq!(field(&p, "y"), Some(""));
    }

    #[test]
    fn the_uniform_case_is_a_manifest_and_a_samples_csv() {
        let u =
            Uniform::from_pairs(&pairs("replicas=3&usage=60&ready=2&unready=1&target=30")).unwrap();
        assert_eq!(
            u.pods_csv(),
            "pod,ready,cpu,cpu_request\npod-1,true,600m,1000m\npod-2,true,600m,1000m\n\
             pod-3,false,600m,1000m\n"
        );
        assert!(u.hpa_text().contains("averageUtilization: 30"));
        let scenario = crate::input::build(u.inputs(Some("2026-11-29T15:00:00Z")).unwrap());
        assert!(scenario.is_ok(), "{scenario:?}");
    }

    #[test]
    fn a_behavior_goes_under_spec_behavior_and_is_read_as_a_manifest_s() {
        let query = "replicas=4&usage=180&ready=4&target=60&max=100&behavior=\
                     scaleUp%3A%0A++policies%3A%0A++-+type%3A+Pods%0A++++value%3A+1%0A++++\
                     periodSeconds%3A+60";
        let u = Uniform::from_pairs(&pairs(query)).unwrap();
        assert!(
            u.hpa_text().ends_with(
                "  behavior:\n    scaleUp:\n      policies:\n      - type: Pods\n        \
                            value: 1\n        periodSeconds: 60\n"
            ),
            "{}",
            u.hpa_text()
        );
        let report = crate::calc::evaluate(&crate::input::build(u.inputs(None).unwrap()).unwrap());
        // 180 % of 60 % asks for 12; one pod per minute allows 5.
        assert_eq!(report.desired_replicas, 5);
    }

    #[test]
    fn a_node_allocatable_gives_the_nodes_the_decision_needs() {
        let query = "replicas=4&usage=180&ready=4&target=60&max=12&node-allocatable=cpu%3D2%2Cpods%3D110\
                     &existing-nodes=2";
        let u = Uniform::from_pairs(&pairs(query)).unwrap();
        assert!(
            u.command(None)
                .ends_with("--node-allocatable cpu=2,pods=110 --existing-nodes 2")
        );
        let report = crate::calc::evaluate(&crate::input::build(u.inputs(None).unwrap()).unwrap());
        // 8 pods of 1000m, 2 a node of 2 cores: 4 nodes, 2 more than there are.
        let nodes = report.nodes.expect("the Nodes section");
        assert_eq!(report.desired_replicas, 8);
        assert_eq!(
            (nodes.pods_per_node, nodes.needed, nodes.to_add),
            (2, 4, 2),
            "{nodes:?}"
        );
    }

    #[test]
    fn an_average_value_target_is_a_manifest_s_and_the_controller_s_ratio() {
        // 4 pods at 120Mi against 100Mi: ceil(1.2 × 4) = 5.
        let query = "replicas=4&ready=4&resource=memory&average-value=100Mi&usage-value=120Mi";
        let u = Uniform::from_pairs(&pairs(query)).unwrap();
        assert!(
            u.hpa_text()
                .contains("name: memory\n      target:\n        type: AverageValue\n        averageValue: 100Mi\n"),
            "{}",
            u.hpa_text()
        );
        assert_eq!(u.pods_csv().lines().next(), Some("pod,ready,memory"));
        let report = crate::calc::evaluate(&crate::input::build(u.inputs(None).unwrap()).unwrap());
        assert_eq!(report.desired_replicas, 5, "{}", report.decision.summary);
        assert_eq!(report.metrics[0].target.target_type, "AverageValue");
        for (query, field) in [
            ("average-value=100Mi", "usage-value"),
            ("average-value=lots&usage-value=1", "average-value"),
            ("resource=gpu&average-value=1&usage-value=1", "resource"),
        ] {
            let e = Uniform::from_pairs(&pairs(query)).unwrap_err();
            assert!(format!("{e:#}").starts_with(field), "{e:#}");
        }
    }

    #[test]
    fn a_bad_number_names_its_field() {
        let e = Uniform::from_pairs(&pairs("target=x")).unwrap_err();
        assert!(format!("{e:#}").starts_with("target"), "{e:#}");
        assert!(Uniform::from_pairs(&pairs("ready=9000&missing=9000")).is_err());
    }

    #[test]
    fn a_paste_needs_an_hpa_and_metrics_need_pods() {
        assert!(pasted_inputs(&pairs("pods=x")).is_err());
        assert!(pasted_inputs(&pairs("hpa=x&metrics=y")).is_err());
        assert!(pasted_inputs(&pairs("hpa=x&now=yesterday")).is_err());
        assert!(pasted_inputs(&pairs("hpa=x")).is_ok());
    }
}
