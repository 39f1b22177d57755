//! The HPA's scale target as kubectl prints it (`kubectl get deploy NAME -o json|yaml`, or a
//! StatefulSet, ReplicaSet or any object with a scale subresource): the controller reads its
//! `/scale`, whose `spec.replicas` is the current count and whose `status.replicas` divides the
//! AverageValue Object and External metrics (`GetObjectPerPodMetricReplicas`,
//! `GetExternalPerPodMetricReplicas` in `replica_calculator.go`). During a rollout the two differ.
//!
//! Fields read: `kind`, `metadata.name`, `metadata.namespace`, `spec.replicas`,
//! `status.replicas`. The object may also be one item of the `--pods` list (see
//! `kubectl::pods`), which hands over the same `TargetScale`.

use std::borrow::Cow;

use serde::Deserialize;

use crate::error::InputError;
use crate::input::cluster::objects::{ManagedField, replicas_managers};
use crate::input::kubectl::{Format, decode, detect};
use crate::scenario::ObjectReference;

/// What the target's scale says, and where it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetScale {
    /// The file it came from, for the notes.
    pub file: String,
    /// `spec.replicas`; `None` when the object leaves it unset.
    pub spec_replicas: Option<i32>,
    /// `status.replicas`; `None` when the object has no status.
    pub status_replicas: Option<i32>,
    /// Who else owns `spec.replicas` (its managedFields): `argocd-controller (managedFields)`.
    pub replicas_managers: Vec<String>,
}

/// Why the target's scale could not be read: an audit's target that is not in the dump, or of
/// a kind the API serves without a scale subresource, or (live) the API's own error answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScaleUnread {
    /// No object of the target's kind and name in the HPA's namespace.
    NotFound,
    /// A kind without a scale subresource (DaemonSet, Job, ...).
    NoScaleSubresource,
    /// Live: the API server answered the scale read with this error (its message).
    Answered(String),
}

impl ScaleUnread {
    // Port of the scale read of reconcileAutoscaler (horizontal.go): the error
    // scaleNamespacer.Get answers, which FailedGetScale carries. The API server's NotFound names
    // the scale subresource of the resource the RESTMapper maps the kind to
    // (`deployments/scale.apps "web" not found`); a path it does not serve is a bare 404.
    /// The error, and the assumption line that says where it comes from.
    pub fn error(self, target: &ObjectReference) -> (String, String) {
        match self {
            ScaleUnread::Answered(message) => {
                let note = format!(
                    "The API server answered the read of {} {}'s scale subresource with an \
                     error: the controller's scale read fails the same way (FailedGetScale), and \
                     the sync stops there.",
                    target.kind, target.name
                );
                (message, note)
            }
            ScaleUnread::NotFound => {
                let group = target.api_version.rsplit_once('/').map_or("", |(g, _)| g);
                let resource = match group {
                    "" => format!("{}/scale", resource_of(&target.kind)),
                    group => format!("{}/scale.{group}", resource_of(&target.kind)),
                };
                (
                    format!("{resource} \"{}\" not found", target.name),
                    format!(
                        "{} {} is not in the inputs: the controller's scale read of an object \
                         that does not exist fails (FailedGetScale), and the sync stops there.",
                        target.kind, target.name
                    ),
                )
            }
            ScaleUnread::NoScaleSubresource => (
                "the server could not find the requested resource".to_string(),
                format!(
                    "A {} has no scale subresource: the controller's scale read is answered 404 \
                     (FailedGetScale), and the sync stops there.",
                    target.kind
                ),
            ),
        }
    }
}

// Port of UnsafeGuessKindToResource (apimachinery meta/restmapper.go), which names the built-in
// kinds' resources as their plurals are: the lowercase kind, `s` → `ses`, `y` → `ies`, else `s`.
fn resource_of(kind: &str) -> String {
    let singular = kind.to_lowercase();
    if singular.ends_with("endpoints") {
        singular
    } else if singular.ends_with('s') {
        format!("{singular}es")
    } else if let Some(stem) = singular.strip_suffix('y') {
        format!("{stem}ies")
    } else {
        format!("{singular}s")
    }
}

#[derive(Deserialize)]
struct Doc<'a> {
    #[serde(borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    metadata: Option<Meta<'a>>,
    #[serde(default)]
    spec: Option<Replicas>,
    #[serde(default)]
    status: Option<Replicas>,
    #[serde(borrow, default)]
    items: Option<Vec<Doc<'a>>>,
}

/// The target's name and namespace, and who writes its fields.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Meta<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    namespace: Option<Cow<'a, str>>,
    #[serde(default)]
    managed_fields: Vec<ManagedField>,
}

/// `spec` or `status`: only `replicas`.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Replicas {
    #[serde(default)]
    pub replicas: Option<i64>,
}

/// A replica count as `int32`, or an error at `field`.
pub(crate) fn replica_count(
    file: &str,
    field: &str,
    value: Option<i64>,
) -> Result<Option<i32>, InputError> {
    match value {
        None => Ok(None),
        Some(n) => i32::try_from(n)
            .ok()
            .filter(|n| *n >= 0)
            .map(Some)
            .ok_or_else(|| {
                InputError::new(
                    file,
                    format!("found {n}, expected a replica count of 0 or more"),
                )
                .field(field.to_string())
            }),
    }
}

/// Parses `--target`: one object, or a List holding the HPA's target; `target` is the HPA's
/// `scaleTargetRef` and `namespace` its namespace.
pub fn parse(
    file: &str,
    text: &str,
    target: &ObjectReference,
    namespace: &str,
) -> Result<TargetScale, InputError> {
    let format = match detect(text) {
        Format::Text => {
            return Err(InputError::new(
                file,
                format!(
                    "found text that is neither JSON nor YAML, expected what kubectl get {} {} \
                     -o json prints",
                    target.kind.to_lowercase(),
                    target.name
                ),
            )
            .at(1, Some(1)));
        }
        format => format,
    };
    let docs: Vec<Doc<'_>> = decode(file, text, format)?;
    let mut seen: Vec<String> = Vec::new();
    let mut candidates: Vec<(String, Doc<'_>)> = Vec::new();
    for (d, doc) in docs.into_iter().enumerate() {
        let prefix = if d == 0 {
            String::new()
        } else {
            format!("(document {}) ", d + 1)
        };
        match doc.items {
            Some(items) if doc.kind.as_deref().is_none_or(|k| k.ends_with("List")) => {
                for (i, item) in items.into_iter().enumerate() {
                    candidates.push((format!("{prefix}items[{i}]."), item));
                }
            }
            _ => candidates.push((prefix, doc)),
        }
    }
    for (path, doc) in candidates {
        let kind = doc.kind.as_deref().unwrap_or("");
        let meta = doc.metadata.as_ref();
        let name = meta.and_then(|m| m.name.as_deref()).unwrap_or("");
        let in_namespace = meta
            .and_then(|m| m.namespace.as_deref())
            .is_none_or(|ns| ns.is_empty() || ns == namespace);
        if kind == target.kind && name == target.name && in_namespace {
            let spec = doc.spec.unwrap_or_default();
            return Ok(TargetScale {
                file: file.to_string(),
                spec_replicas: replica_count(file, &format!("{path}spec.replicas"), spec.replicas)?,
                status_replicas: replica_count(
                    file,
                    &format!("{path}status.replicas"),
                    doc.status.and_then(|s| s.replicas),
                )?,
                replicas_managers: meta
                    .map_or_else(Vec::new, |m| replicas_managers(&m.managed_fields)),
            });
        }
        seen.push(if kind.is_empty() && name.is_empty() {
            "an object without kind or name".to_string()
        } else {
            format!("{kind}/{name}")
        });
    }
    Err(InputError::new(
        file,
        format!(
            "found {}, expected the HPA's scale target {}/{} of namespace {namespace} (kubectl get \
             {} {} -n {namespace} -o json)",
            if seen.is_empty() {
                "no object".to_string()
            } else {
                crate::input::kubectl::name_list(&seen, 3)
            },
            target.kind,
            target.name,
            target.kind.to_lowercase(),
            target.name
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn web() -> ObjectReference {
        ObjectReference {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            name: "web".into(),
        }
    }

    #[test]
    fn spec_and_status_replicas_are_read_from_the_target() {
        let json = r#"{"kind":"Deployment","metadata":{"name":"web","namespace":"shop"},
            "spec":{"replicas":4,"template":{}},"status":{"replicas":6,"readyReplicas":5}}"#;
        let t = parse("deploy.json", json, &web(), "shop").unwrap();
        assert_eq!((t.spec_replicas, t.status_replicas), (Some(4), Some(6)));
        let yaml = "apiVersion: v1\nkind: List\nitems:\n- kind: Service\n  metadata:\n    name: web\n\
                    - kind: Deployment\n  metadata:\n    name: web\n  spec:\n    replicas: 3\n";
        let t = parse("all.yaml", yaml, &web(), "shop").unwrap();
        assert_eq!((t.spec_replicas, t.status_replicas), (Some(3), None));
    }

    #[test]
    fn another_object_is_refused_with_what_was_found() {
        let json = r#"{"kind":"Deployment","metadata":{"name":"api"},"spec":{"replicas":2}}"#;
        let err = parse("deploy.json", json, &web(), "shop").unwrap_err();
        assert_eq!(
            err.message,
            "found Deployment/api, expected the HPA's scale target Deployment/web of namespace \
             shop (kubectl get deployment web -n shop -o json)"
        );
        let other_ns = r#"{"kind":"Deployment","metadata":{"name":"web","namespace":"prod"}}"#;
        assert!(parse("d.json", other_ns, &web(), "shop").is_err());
        let err = parse("d.txt", "NAME READY\nweb 3/3\n", &web(), "shop").unwrap_err();
        assert!(err.message.starts_with("found text"), "{err}");
    }

    #[test]
    fn a_negative_count_is_located() {
        let json = r#"{"kind":"Deployment","metadata":{"name":"web"},"status":{"replicas":-1}}"#;
        let err = parse("d.json", json, &web(), "shop").unwrap_err();
        assert_eq!(err.field.as_deref(), Some("status.replicas"));
        assert_eq!(
            err.message,
            "found -1, expected a replica count of 0 or more"
        );
    }

    #[test]
    fn a_scale_that_cannot_be_read_answers_the_api_servers_not_found() {
        let (error, note) = ScaleUnread::NotFound.error(&web());
        assert_eq!(error, "deployments/scale.apps \"web\" not found");
        assert!(
            note.starts_with("Deployment web is not in the inputs"),
            "{note}"
        );
        let rc = ObjectReference {
            api_version: "v1".into(),
            kind: "ReplicationController".into(),
            name: "old".into(),
        };
        assert_eq!(
            ScaleUnread::NotFound.error(&rc).0,
            "replicationcontrollers/scale \"old\" not found"
        );
        let daemon = ObjectReference {
            kind: "DaemonSet".into(),
            ..web()
        };
        assert_eq!(
            ScaleUnread::NoScaleSubresource.error(&daemon).0,
            "the server could not find the requested resource"
        );
        let answer = "rollouts.argoproj.io \"worker\" not found".to_string();
        let (error, note) = ScaleUnread::Answered(answer.clone()).error(&web());
        assert_eq!(error, answer, "the API's own message");
        assert!(note.contains("FailedGetScale"), "{note}");
    }

    #[test]
    fn resources_are_named_as_unsafe_guess_kind_to_resource_names_them() {
        for (kind, resource) in [
            ("Deployment", "deployments"),
            ("StatefulSet", "statefulsets"),
            ("Ingress", "ingresses"),
            ("Policy", "policies"),
            ("Endpoints", "endpoints"),
        ] {
            assert_eq!(resource_of(kind), resource);
        }
    }
}
