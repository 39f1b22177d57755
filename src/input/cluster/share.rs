//! One HPA's share of a dump (its manifest, its target, the pods its target's selector matches,
//! their metrics, its events) written as the files of the single-HPA command and read by that
//! command's own reader (`input::build_scenario`): the audit's scenario of an HPA is the one
//! `hpacalc -f hpa.json --pods pods.json ...` builds, by construction.

use std::path::PathBuf;
use std::rc::Rc;

use anyhow::Result;
use clap::Parser;

use super::objects::{PodMetrics, Workload};
use super::{Whole, objects};
use crate::cli::Cli;
use crate::input::read;
use crate::scenario::{Scenario, SelectorError};

/// What one HPA's share holds.
pub struct Share<'a> {
    pub hpa: &'a Whole<objects::HpaHead>,
    /// What is given as `--hpa`: the HPA, or the KEDA ScaledObject that made it.
    pub manifest: &'a Whole<objects::HpaHead>,
    pub target: Option<&'a Workload>,
    pub pods: Vec<&'a objects::Pod>,
    /// `None` when no `--metrics` was given.
    pub metrics: Option<Vec<&'a PodMetrics>>,
    pub metrics_api_error: Option<&'a str>,
    pub events: Vec<&'a Whole<objects::EventHead>>,
    /// The controller's own selector check failed for this HPA.
    pub selector_error: Option<SelectorError>,
    /// Its own files besides the dump (live custom and external metrics).
    pub own: Option<&'a super::HpaFiles>,
}

/// Files and flags every HPA's command shares.
pub struct Common {
    /// Controller flags and `--now`, as command-line arguments.
    pub flags: Vec<String>,
    /// `--custom-metrics` and `--external-metrics` files: read once, given to every HPA.
    pub files: Vec<(String, PathBuf, Rc<str>)>,
}

fn list(items: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = items.collect();
    format!(
        "{{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{}]}}",
        items.join(",")
    )
}

/// A list item with its `kind`, written straight to text (no JSON tree per pod).
#[derive(serde::Serialize)]
struct Kinded<'a, T> {
    kind: &'static str,
    #[serde(flatten)]
    item: &'a T,
}

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// The scenario the single-HPA command builds from this share.
pub fn scenario(share: &Share<'_>, common: &Common) -> Result<Scenario> {
    let meta = &share.hpa.head.metadata;
    let dir = PathBuf::from(format!("<dump>/{}/{}", meta.namespace, meta.name));
    let mut files: Vec<(PathBuf, Rc<str>)> = Vec::new();
    let mut args: Vec<String> = vec!["hpacalc".into()];
    let mut add = |flag: &str, name: &str, text: String| {
        let path = dir.join(name);
        args.push(flag.to_string());
        args.push(path.to_string_lossy().into_owned());
        files.push((path, text.into()));
    };
    let name = if std::ptr::eq(share.manifest, share.hpa) {
        "hpa.json"
    } else {
        "scaledobject.json"
    };
    add("--hpa", name, share.manifest.text.to_string());
    // The pods and the target travel together: the pods reader takes the target from the list.
    let pods = share
        .pods
        .iter()
        .map(|&item| json(&Kinded { kind: "Pod", item }));
    add("--pods", "pods.json", list(pods));
    if let Some(target) = share.target {
        add("--target", "target.json", json(target));
    }
    match (share.metrics_api_error, &share.metrics) {
        (Some(message), _) => add(
            "--metrics",
            "metrics.json",
            json(&serde_json::json!({
                "kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message
            })),
        ),
        (None, Some(metrics)) => add(
            "--metrics",
            "metrics.json",
            format!(
                "{{\"kind\":\"PodMetricsList\",\"apiVersion\":\"metrics.k8s.io/v1beta1\",\"items\":[{}]}}",
                metrics.iter().map(json).collect::<Vec<_>>().join(",")
            ),
        ),
        (None, None) => {}
    }
    if !share.events.is_empty() {
        add(
            "--events",
            "events.json",
            list(share.events.iter().map(|e| e.text.to_string())),
        );
    }
    for (flag, name, text) in share.own.iter().flat_map(|o| &o.files) {
        add(flag, name, text.clone());
    }
    for (flag, path, text) in &common.files {
        args.push(flag.clone());
        args.push(path.to_string_lossy().into_owned());
        files.push((path.clone(), Rc::clone(text)));
    }
    args.extend(common.flags.iter().cloned());
    let cli = Cli::try_parse_from(&args)
        .map_err(|e| anyhow::anyhow!("internal: the single-HPA command does not parse: {e}"))?;
    let mut scenario = read::with_provided(files, || crate::input::build_scenario(&cli))?;
    scenario
        .metrics
        .selector_error
        .clone_from(&share.selector_error);
    if let Some(own) = share.own {
        scenario
            .input_diagnostics
            .extend(own.diagnostics.iter().cloned());
    }
    Ok(scenario)
}
