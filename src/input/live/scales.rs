//! The scale targets that are no listed workload (an Argo Rollout, any custom resource with a
//! scale subresource), read at every sync the way the controller reads every target: the
//! target's kind mapped to its resource by discovery (asked once a sync per group version and
//! kind), then `GET …/RESOURCE/NAME/scale`. A scale that answers becomes a workload of the dump
//! (its `spec.replicas`, `status.replicas`, and `status.selector` as the pods' selector), so the
//! audit, `serve` and MCP evaluate the HPA as live mode does; an error answer is kept with its
//! message, which the controller's FailedGetScale carries.
//!
//! The built-in kinds (`cluster::WORKLOAD_KINDS`) are read from their lists: their scale is
//! their `spec.replicas`, `status.replicas` and `spec.selector`, as the API server's scale
//! subresource of each computes it, so no request is made for each of them.

use std::collections::{BTreeSet, HashMap};

use serde::Deserialize;

use super::LiveError;
use super::client::{Api, Request};
use super::fetch::{client_error_message, discover, enc, group_of, group_version_path, refused};
use crate::input::cluster::objects::{Expression, LabelSelector, Meta, Workload};
use crate::input::cluster::{Dump, WORKLOAD_KINDS};
use crate::input::cluster::{fleet::NO_SCALE_KINDS, json::Sym};
use crate::input::kubectl::{Format, scale};
use crate::input::selector::Selector;
use crate::input::target::ScaleUnread;

/// One target to read: (namespace, apiVersion, kind, name).
type Wanted = (String, String, String, String);

/// What discovery said of a kind: its resource and whether it has `/scale`; `None` when no
/// group version the API serves has the kind.
type Mapping = Option<(String, bool)>;

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct HpaTarget {
    #[serde(default)]
    spec: TargetSpec,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct TargetSpec {
    #[serde(default)]
    scale_target_ref: TargetRef,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct TargetRef {
    #[serde(default)]
    api_version: String,
}

/// Reads the scale of every HPA's target that no list holds, into `dump`.
pub async fn read(api: &Api, dump: &mut Dump) -> Result<(), LiveError> {
    let mut mappings: HashMap<(String, String), Mapping> = HashMap::new();
    for (namespace, api_version, kind, name) in wanted(dump) {
        let mapping_key = (api_version.clone(), kind.clone());
        let mapping = match mappings.get(&mapping_key) {
            Some(m) => m.clone(),
            None => {
                let m = discover(api, &api_version, &kind).await?;
                mappings.insert(mapping_key, m.clone());
                m
            }
        };
        let key = (namespace.clone(), kind.clone(), name.clone());
        let Some((resource, has_scale)) = mapping else {
            // Port of reconcileAutoscaler's RESTMappings error (horizontal.go), whose text is
            // meta.NoKindMatchError's for a group kind without versions.
            let group = group_of(&api_version);
            let answer = format!("no matches for kind \"{kind}\" in group \"{group}\"");
            dump.scales_unread
                .insert(key, ScaleUnread::Answered(answer));
            continue;
        };
        if !has_scale {
            dump.scales_unread
                .insert(key, ScaleUnread::NoScaleSubresource);
            continue;
        }
        let req = Request {
            path: format!(
                "{}/namespaces/{}/{resource}/{}/scale",
                group_version_path(&api_version),
                enc(&namespace),
                enc(&name)
            ),
            verb: "get",
            group: group_of(&api_version).to_string(),
            resource: format!("{resource}/scale"),
            namespace: Some(namespace.clone()),
        };
        match api.get(&req).await? {
            Ok(text) => {
                let target = (namespace.as_str(), api_version.as_str(), kind.as_str());
                let workload = workload_of_scale(target, &name, &text).map_err(|e| {
                    LiveError(format!(
                        "the API server {} answered GET {} with a document that is not a \
                         Scale: {e}",
                        api.server, req.path
                    ))
                })?;
                dump.workloads.push(workload);
            }
            // The controller's scale read fails on any error answer; hpacalc's own refusal
            // (403) is said as the API says it, with what it means for this HPA.
            Err(r) if r.code == 404 || r.code == 403 => {
                let group_resource = match req.group.as_str() {
                    "" => req.resource.clone(),
                    group => format!("{}.{group}", req.resource),
                };
                let answer = client_error_message(&r, "get", &group_resource);
                dump.scales_unread
                    .insert(key, ScaleUnread::Answered(answer));
            }
            Err(r) => return Err(refused(api, &req, &r)),
        }
    }
    Ok(())
}

/// The targets to read: each HPA's that is not of a listed kind (nor of a kind that has no
/// scale at all), once each, and not read already (`serve -n A -n B` reads each namespace's
/// answers into one dump).
fn wanted(dump: &Dump) -> BTreeSet<Wanted> {
    let read: BTreeSet<(&str, &str, &str)> = (dump.workloads.iter())
        .map(|w| {
            (
                &*w.metadata.namespace,
                w.kind.as_str(),
                w.metadata.name.as_str(),
            )
        })
        .chain((dump.scales_unread.keys()).map(|(n, k, m)| (n.as_str(), k.as_str(), m.as_str())))
        .collect();
    let mut out = BTreeSet::new();
    for h in &dump.hpas {
        let r = &h.head.spec.scale_target_ref;
        let kind: &str = &r.kind;
        let namespace: &str = &h.head.metadata.namespace;
        if kind.is_empty()
            || WORKLOAD_KINDS.contains(&kind)
            || NO_SCALE_KINDS.contains(&kind)
            || read.contains(&(namespace, kind, &*r.name))
        {
            continue;
        }
        // The head keeps no apiVersion: the few HPAs on other kinds are read for it.
        let api_version = serde_json::from_str::<HpaTarget>(&h.text)
            .unwrap_or_default()
            .spec
            .scale_target_ref
            .api_version;
        out.insert((
            namespace.to_string(),
            api_version,
            kind.to_string(),
            r.name.to_string(),
        ));
    }
    out
}

/// A scale (`autoscaling/v1` `Scale`) as the workload the audit matches an HPA to: its two
/// counts, and its `status.selector` text as a label selector (`None` when it has none, which
/// the controller's selector check reports).
fn workload_of_scale(
    (namespace, api_version, kind): (&str, &str, &str),
    name: &str,
    text: &str,
) -> Result<Workload, String> {
    let scale = scale::parse("scale", text, Format::Json).map_err(|e| format!("{e:#}"))?;
    let selector = (scale.selector.as_deref())
        .map(|text| Selector::parse(text).map(|parsed| label_selector(&parsed)))
        .transpose()
        .map_err(|e| format!("status.selector does not parse: {e}"))?;
    let mut workload = Workload {
        api_version: api_version.to_string(),
        kind: kind.to_string(),
        metadata: Meta {
            name: name.to_string(),
            namespace: Sym::new(namespace),
            ..Meta::default()
        },
        ..Workload::default()
    };
    workload.spec.replicas = Some(i64::from(scale.spec_replicas));
    workload.spec.selector = selector;
    workload.status.replicas = Some(i64::from(scale.status_replicas));
    Ok(workload)
}

/// A parsed selector as the `LabelSelector` the dump's workloads carry.
fn label_selector(parsed: &Selector) -> LabelSelector {
    let parts = parsed.label_selector_parts();
    LabelSelector {
        match_labels: parts.labels.into_iter().collect(),
        match_expressions: (parts.expressions.into_iter())
            .map(|(key, operator, values)| Expression {
                key,
                operator: operator.to_string(),
                values,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scale_is_the_workload_of_its_counts_and_selector() {
        let text = r#"{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"worker"},
            "spec":{"replicas":5},"status":{"replicas":4,
            "selector":"app=worker,tier in (a,b),!canary,gen>2"}}"#;
        let w =
            workload_of_scale(("shop", "argoproj.io/v1alpha1", "Rollout"), "worker", text).unwrap();
        assert_eq!(
            (w.kind.as_str(), w.metadata.name.as_str()),
            ("Rollout", "worker")
        );
        assert_eq!((w.spec.replicas, w.status.replicas), (Some(5), Some(4)));
        let selector = w.spec.selector.unwrap();
        assert_eq!(selector.to_text(), "app=worker,tier in (a,b),!canary,gen>2");
        assert_eq!(
            selector.match_labels.len(),
            1,
            "the equality is a matchLabels pair"
        );
    }

    #[test]
    fn a_scale_without_a_selector_is_a_workload_without_one() {
        let text = r#"{"kind":"Scale","spec":{"replicas":2},"status":{"replicas":2}}"#;
        let w = workload_of_scale(("shop", "example.com/v1", "Thing"), "t", text).unwrap();
        assert_eq!(w.spec.selector, None);
    }

    #[test]
    fn a_selector_that_does_not_parse_is_an_error() {
        let text = r#"{"kind":"Scale","spec":{"replicas":2},"status":{"replicas":2,
            "selector":"a in b"}}"#;
        let e = workload_of_scale(("shop", "example.com/v1", "Thing"), "t", text).unwrap_err();
        assert!(e.starts_with("status.selector does not parse"), "{e}");
    }
}
