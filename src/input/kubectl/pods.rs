//! `kubectl get pods -o json|yaml` (a `List`, a `PodList` or one `Pod`) → the pods the
//! controller's pod lister would return: those of the HPA's namespace that the target's selector
//! matches, with only the fields `groupPods` and `calculateRequests` read.

use std::borrow::Cow;
use std::collections::HashSet;

use serde::Deserialize;
use serde::de::IgnoredAny;

use super::{Format, Labels, ResourceMap, Scope, Time, decode, name_list};
use crate::error::InputError;
use crate::scenario::{
    ConditionStatus, Container, ContainerKind, ObjectReference, Pod, PodPhase, ReadyCondition,
    Resources,
};
use crate::time::Timestamp;

/// The pods kept, and what the metrics filters need to know about the others.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CapturedPods {
    pub pods: Vec<Pod>,
    /// Pods of the HPA's namespace that the selector left out: their metrics are left out too
    /// when the metrics carry no labels.
    pub excluded: HashSet<String>,
    /// The newest time in the kept pods (start times, Ready transitions).
    pub newest: Option<Timestamp>,
    /// Said in the output's assumptions.
    pub notes: Vec<String>,
    /// Printed on stderr.
    pub warnings: Vec<String>,
}

/// One document: a list (`items`) or a single pod (the other fields).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Document<'a> {
    #[serde(borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    items: Option<Vec<RawPod<'a>>>,
    #[serde(borrow, flatten)]
    single: RawPod<'a>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct RawPod<'a> {
    #[serde(borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    metadata: Option<Meta<'a>>,
    #[serde(borrow, default)]
    spec: Option<PodSpec<'a>>,
    #[serde(borrow, default)]
    status: Option<PodStatus<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Meta<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    namespace: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    labels: Option<Labels<'a>>,
    #[serde(default)]
    deletion_timestamp: Option<IgnoredAny>,
    #[serde(borrow, default)]
    owner_references: Option<Vec<Owner<'a>>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Owner<'a> {
    #[serde(borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(default)]
    controller: Option<bool>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct PodSpec<'a> {
    #[serde(borrow, default)]
    containers: Option<Vec<RawContainer<'a>>>,
    #[serde(borrow, default)]
    init_containers: Option<Vec<RawContainer<'a>>>,
    #[serde(default)]
    resources: Option<Requirements>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawContainer<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    restart_policy: Option<Cow<'a, str>>,
    #[serde(default)]
    resources: Option<Requirements>,
}

#[derive(Deserialize)]
struct Requirements {
    #[serde(default)]
    requests: Option<ResourceMap>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct PodStatus<'a> {
    #[serde(borrow, default)]
    phase: Option<Cow<'a, str>>,
    #[serde(default)]
    start_time: Option<Time>,
    #[serde(borrow, default)]
    conditions: Option<Vec<RawCondition<'a>>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawCondition<'a> {
    #[serde(borrow, rename = "type", default)]
    condition_type: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    #[serde(default)]
    last_transition_time: Option<Time>,
}

const KINDS: &str = "a Pod, a PodList or a List (what kubectl get pods -o json|yaml prints)";

/// Parses a pods capture and keeps the pods in `scope`. `target` is the HPA's scale target, used
/// only to warn about pods of other workloads when no selector is given.
pub fn parse(
    file: &str,
    text: &str,
    format: Format,
    scope: &Scope,
    target: &ObjectReference,
) -> Result<CapturedPods, InputError> {
    let docs: Vec<Document<'_>> = decode(file, text, format)?;
    let mut raw: Vec<(String, RawPod<'_>)> = Vec::new();
    let mut skipped_kinds: Vec<String> = Vec::new();
    for (d, doc) in docs.into_iter().enumerate() {
        let doc_path = if d == 0 {
            String::new()
        } else {
            format!("(document {}) ", d + 1)
        };
        let kind = doc.kind.as_deref().unwrap_or("");
        match (kind, doc.items) {
            ("" | "List" | "PodList", Some(items)) => {
                for (i, item) in items.into_iter().enumerate() {
                    match item.kind.as_deref() {
                        None | Some("Pod") => raw.push((format!("{doc_path}items[{i}]"), item)),
                        Some(other) => skipped_kinds.push(other.to_string()),
                    }
                }
            }
            ("Pod", _) => raw.push((doc_path.trim_end().to_string(), doc.single)),
            ("", None) if doc.single.metadata.is_none() => {
                // An empty YAML document between `---` lines.
            }
            (other, _) => {
                let found = if other.is_empty() {
                    "an object without kind or items".to_string()
                } else {
                    format!("kind {other}")
                };
                return Err(
                    InputError::new(file, format!("found {found}, expected {KINDS}"))
                        .field(format!("{doc_path}kind").trim().to_string()),
                );
            }
        }
    }

    let mut out = CapturedPods::default();
    if !skipped_kinds.is_empty() {
        out.warnings.push(format!(
            "{file}: skipped {} item(s) that are not pods ({})",
            skipped_kinds.len(),
            name_list(&skipped_kinds, 3)
        ));
    }
    let mut seen: HashSet<String> = HashSet::with_capacity(raw.len());
    let mut other_namespaces: Vec<String> = Vec::new();
    let mut foreign_owned: Vec<String> = Vec::new();
    let mut newest: Option<Timestamp> = None;
    out.pods.reserve(raw.len());
    for (path, item) in raw {
        let meta = item.metadata.unwrap_or_default();
        let Some(name) = meta.name.filter(|n| !n.is_empty()) else {
            return Err(
                InputError::new(file, "found nothing, expected the pod's name")
                    .field(format!("{path}.metadata.name")),
            );
        };
        let namespace = meta.namespace.as_deref();
        if !scope.in_namespace(namespace) {
            let ns = namespace.unwrap_or_default().to_string();
            if !other_namespaces.contains(&ns) {
                other_namespaces.push(ns);
            }
            continue;
        }
        let labels = meta.labels.unwrap_or_default();
        if let Some(selector) = &scope.selector
            && !labels.matches(selector)
        {
            out.excluded.insert(name.into_owned());
            continue;
        }
        if !seen.insert(name.to_string()) {
            return Err(InputError::new(
                file,
                format!("found the pod \"{name}\" again, expected each pod once"),
            )
            .field(format!("{path}.metadata.name")));
        }
        if scope.selector.is_none()
            && let Some(owner) = controller_owner(meta.owner_references.as_deref())
            && !owned_by_target(&owner, target)
        {
            foreign_owned.push(format!("{name} ({owner})"));
        }
        let pod = to_pod(
            file,
            &path,
            name.into_owned(),
            meta.deletion_timestamp.is_some(),
            item.spec.unwrap_or_default(),
            item.status.unwrap_or_default(),
        )?;
        let times = pod
            .start_time
            .into_iter()
            .chain(pod.ready.map(|r| r.last_transition_time));
        newest = newest.max(times.max());
        out.pods.push(pod);
    }
    out.newest = newest;

    if out.pods.is_empty() && !other_namespaces.is_empty() {
        return Err(InputError::new(
            file,
            format!(
                "found only pods of namespace {}, expected pods of the HPA's namespace {} \
                 (kubectl get pods -n {} -o json)",
                name_list(&other_namespaces, 3),
                scope.namespace,
                scope.namespace
            ),
        )
        .field("metadata.namespace"));
    }
    if let Some(selector) = &scope.selector
        && out.pods.is_empty()
        && !out.excluded.is_empty()
    {
        return Err(InputError::new(
            "--selector",
            format!(
                "found no pod of {file} matching {selector} ({} pod(s) in namespace {}), \
                 expected the target's selector",
                out.excluded.len(),
                scope.namespace
            ),
        ));
    }
    if !other_namespaces.is_empty() {
        out.notes.push(format!(
            "{file}: pods of namespace {} were left out (the HPA is in {}).",
            name_list(&other_namespaces, 3),
            scope.namespace
        ));
    }
    if let Some(selector) = &scope.selector
        && !out.excluded.is_empty()
    {
        out.notes.push(format!(
            "{file}: {} pod(s) do not match the selector {selector} and were left out.",
            out.excluded.len()
        ));
    }
    if !foreign_owned.is_empty() {
        out.warnings.push(format!(
            "{file}: {} pod(s) are not owned by {}/{}: {}; the controller counts only the pods \
             the target's selector matches: pass -l/--selector with it",
            foreign_owned.len(),
            target.kind,
            target.name,
            name_list(&foreign_owned, 3)
        ));
    }
    Ok(out)
}

/// `Kind/name` of the controlling owner.
fn controller_owner(owners: Option<&[Owner<'_>]>) -> Option<String> {
    let owner = owners?.iter().find(|o| o.controller == Some(true))?;
    Some(format!(
        "{}/{}",
        owner.kind.as_deref().unwrap_or(""),
        owner.name.as_deref().unwrap_or("")
    ))
}

/// Whether `Kind/name` is the target itself or one of its ReplicaSets (`<name>-<hash>`).
fn owned_by_target(owner: &str, target: &ObjectReference) -> bool {
    let name = owner.split_once('/').map_or("", |(_, n)| n);
    name == target.name
        || name
            .strip_prefix(target.name.as_str())
            .and_then(|rest| rest.strip_prefix('-'))
            .is_some_and(|hash| !hash.is_empty() && !hash.contains('-'))
}

fn to_pod(
    file: &str,
    path: &str,
    name: String,
    deleting: bool,
    spec: PodSpec<'_>,
    status: PodStatus<'_>,
) -> Result<Pod, InputError> {
    let phase = match status.phase.as_deref() {
        Some("Running") => PodPhase::Running,
        Some("Pending") => PodPhase::Pending,
        Some("Succeeded") => PodPhase::Succeeded,
        Some("Failed") => PodPhase::Failed,
        // An absent phase is neither Pending nor Failed for the controller, nor Running.
        Some("Unknown" | "") | None => PodPhase::Unknown,
        Some(other) => {
            return Err(InputError::new(
                file,
                format!(
                    "found \"{other}\", expected Pending, Running, Succeeded, Failed or Unknown"
                ),
            )
            .field(format!("{path}.status.phase")));
        }
    };
    let ready = status
        .conditions
        .unwrap_or_default()
        .into_iter()
        .find(|c| c.condition_type.as_deref() == Some("Ready"))
        .map(|c| ReadyCondition {
            status: match c.status.as_deref() {
                Some("True") => ConditionStatus::True,
                Some("False") => ConditionStatus::False,
                _ => ConditionStatus::Unknown,
            },
            // A nil lastTransitionTime is Go's zero time.
            last_transition_time: c.last_transition_time.map_or(Timestamp::GO_ZERO, |t| t.0),
        });

    let containers_in = spec.containers.unwrap_or_default();
    let init_in = spec.init_containers.unwrap_or_default();
    let mut containers = Vec::with_capacity(containers_in.len() + init_in.len());
    for (list, raw_list) in [("containers", containers_in), ("initContainers", init_in)] {
        for (j, c) in raw_list.into_iter().enumerate() {
            let Some(cname) = c.name.filter(|n| !n.is_empty()) else {
                return Err(
                    InputError::new(file, "found nothing, expected the container's name")
                        .field(format!("{path}.spec.{list}[{j}].name")),
                );
            };
            let kind = match (list, c.restart_policy.as_deref()) {
                ("containers", _) => ContainerKind::App,
                (_, Some("Always")) => ContainerKind::Sidecar,
                _ => ContainerKind::Init,
            };
            containers.push(Container {
                name: cname.into_owned(),
                kind,
                requests: requests(c.resources),
            });
        }
    }
    let pod_requests = spec.resources.map(|r| requests(Some(r)));
    Ok(Pod {
        name,
        phase,
        deleting,
        start_time: status.start_time.map(|t| t.0),
        ready,
        containers,
        pod_requests,
    })
}

fn requests(resources: Option<Requirements>) -> Resources {
    resources
        .and_then(|r| r.requests)
        .map(|m| m.0)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::selector::Selector;

    fn scope(selector: Option<&str>) -> Scope {
        Scope {
            namespace: "shop".into(),
            selector: selector.map(|s| Selector::parse(s).unwrap()),
        }
    }

    fn target() -> ObjectReference {
        ObjectReference {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            name: "web".into(),
        }
    }

    fn pod_json(name: &str, namespace: &str, app: &str, extra: &str) -> String {
        format!(
            r#"{{"kind":"Pod","metadata":{{"name":"{name}","namespace":"{namespace}","labels":{{"app":"{app}"}}}},
               "spec":{{"containers":[{{"name":"app","resources":{{"requests":{{"cpu":"500m"}}}}}}]}},
               "status":{{"phase":"Running","startTime":"2026-11-29T12:00:00Z",
               "conditions":[{{"type":"Ready","status":"True","lastTransitionTime":"2026-11-29T12:00:30Z"}}]}}{extra}}}"#
        )
    }

    fn list(items: &[String]) -> String {
        format!(
            r#"{{"apiVersion":"v1","kind":"List","items":[{}]}}"#,
            items.join(",")
        )
    }

    fn parse_json(text: &str, selector: Option<&str>) -> Result<CapturedPods, InputError> {
        parse("pods.json", text, Format::Json, &scope(selector), &target())
    }

    #[test]
    fn a_pod_keeps_phase_readiness_start_and_requests() {
        let captured = parse_json(&list(&[pod_json("web-1", "shop", "web", "")]), None).unwrap();
        let pod = &captured.pods[0];
        assert_eq!(pod.name, "web-1");
        assert_eq!(pod.phase, PodPhase::Running);
        assert!(!pod.deleting);
        let t = |s| Timestamp::parse_rfc3339(s).unwrap();
        assert_eq!(pod.start_time, Some(t("2026-11-29T12:00:00Z")));
        assert_eq!(
            pod.ready,
            Some(ReadyCondition {
                status: ConditionStatus::True,
                last_transition_time: t("2026-11-29T12:00:30Z"),
            })
        );
        assert_eq!(pod.containers[0].requests.get("cpu"), Some(500));
        assert_eq!(pod.pod_requests, None);
        assert_eq!(captured.newest, Some(t("2026-11-29T12:00:30Z")));
    }

    #[test]
    fn init_containers_are_sidecars_only_with_restart_policy_always() {
        let text = r#"{"kind":"Pod","metadata":{"name":"web-1"},"spec":{
            "containers":[{"name":"app","resources":{"requests":{"cpu":"1"}}}],
            "initContainers":[{"name":"proxy","restartPolicy":"Always","resources":{"requests":{"cpu":"100m"}}},
                              {"name":"migrate","resources":{"requests":{"cpu":"2"}}}],
            "resources":{"requests":{"cpu":"3"}}},
            "status":{"phase":"Pending"}}"#;
        let pod = parse_json(text, None).unwrap().pods.remove(0);
        let kinds: Vec<_> = pod
            .containers
            .iter()
            .map(|c| (c.name.as_str(), c.kind))
            .collect();
        assert_eq!(
            kinds,
            [
                ("app", ContainerKind::App),
                ("proxy", ContainerKind::Sidecar),
                ("migrate", ContainerKind::Init)
            ]
        );
        assert_eq!(pod.pod_requests.unwrap().get("cpu"), Some(3000));
        assert_eq!(pod.phase, PodPhase::Pending);
        assert_eq!(pod.ready, None);
        assert_eq!(pod.start_time, None);
    }

    #[test]
    fn a_deletion_timestamp_and_a_missing_phase_are_kept() {
        let text = r#"{"kind":"Pod","metadata":{"name":"web-1","deletionTimestamp":"2026-11-29T12:00:00Z"},
            "spec":{"containers":[{"name":"app"}]},"status":{}}"#;
        let pod = parse_json(text, None).unwrap().pods.remove(0);
        assert!(pod.deleting);
        assert_eq!(pod.phase, PodPhase::Unknown);
        assert!(
            pod.containers[0].requests.0.is_empty(),
            "no request stays none"
        );
    }

    #[test]
    fn the_namespace_and_the_selector_choose_the_pods() {
        let text = list(&[
            pod_json("web-1", "shop", "web", ""),
            pod_json("worker-1", "shop", "worker", ""),
            pod_json("web-9", "prod", "web", ""),
        ]);
        let all = parse_json(&text, None).unwrap();
        assert_eq!(all.pods.len(), 2);
        assert!(all.notes[0].contains("pods of namespace prod were left out"));
        let web = parse_json(&text, Some("app=web")).unwrap();
        let names: Vec<_> = web.pods.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["web-1"]);
        assert!(web.excluded.contains("worker-1"));
    }

    #[test]
    fn pods_of_other_workloads_are_warned_about_without_a_selector() {
        let owner = |name: &str| {
            format!(
                r#","ownerReferences":[{{"kind":"ReplicaSet","name":"{name}","controller":true}}]"#
            )
        };
        let with_owner = |pod: &str, o: &str| {
            pod_json(pod, "shop", "x", "").replacen(
                r#""labels""#,
                &format!("{}, \"labels\"", &owner(o)[1..]),
                1,
            )
        };
        let text = list(&[
            with_owner("web-1", "web-7d4b9c"),
            with_owner("worker-1", "worker-5f6d"),
            with_owner("web-api-1", "web-api-66f"),
        ]);
        let captured = parse_json(&text, None).unwrap();
        assert_eq!(captured.warnings.len(), 1, "{:?}", captured.warnings);
        assert!(captured.warnings[0].contains("2 pod(s) are not owned by Deployment/web"));
        assert!(captured.warnings[0].contains("worker-1 (ReplicaSet/worker-5f6d)"));
        assert!(
            parse_json(&text, Some("app=x"))
                .unwrap()
                .warnings
                .is_empty()
        );
    }

    #[test]
    fn yaml_lists_and_multi_document_streams_are_read() {
        let yaml = "apiVersion: v1\nkind: List\nitems:\n- kind: Pod\n  metadata:\n    name: web-1\n  status:\n    phase: Running\n- kind: Service\n  metadata:\n    name: web\n---\nkind: Pod\nmetadata:\n  name: web-2\n";
        let captured = parse("pods.yaml", yaml, Format::Yaml, &scope(None), &target()).unwrap();
        let names: Vec<_> = captured.pods.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["web-1", "web-2"]);
        assert!(captured.warnings[0].contains("skipped 1 item(s) that are not pods (Service)"));
    }

    #[test]
    fn bad_pod_files_are_errors_naming_the_place() {
        let cases: &[(&str, Option<&str>, &str, Option<&str>)] = &[
            (
                r#"{"kind":"PodMetricsList","items":[]}"#,
                None,
                "found kind PodMetricsList, expected a Pod, a PodList or a List",
                Some("kind"),
            ),
            (
                r#"{"kind":"List","items":[{"metadata":{}}]}"#,
                None,
                "found nothing, expected the pod's name",
                Some("items[0].metadata.name"),
            ),
            (
                r#"{"kind":"List","items":[{"metadata":{"name":"a"},"status":{"phase":"Lost"}}]}"#,
                None,
                "found \"Lost\", expected Pending",
                Some("items[0].status.phase"),
            ),
            (
                r#"{"kind":"List","items":[{"metadata":{"name":"a"}},{"metadata":{"name":"a"}}]}"#,
                None,
                "found the pod \"a\" again",
                Some("items[1].metadata.name"),
            ),
            (
                r#"{"kind":"List","items":[{"metadata":{"name":"a","namespace":"prod"}}]}"#,
                None,
                "found only pods of namespace prod, expected pods of the HPA's namespace shop",
                Some("metadata.namespace"),
            ),
            (
                r#"{"kind":"List","items":[{"metadata":{"name":"a","labels":{"app":"web"}}}]}"#,
                Some("app=api"),
                "found no pod of pods.json matching app=api",
                None,
            ),
        ];
        for &(text, selector, message, field) in cases {
            let err = parse_json(text, selector).unwrap_err();
            assert!(err.message.starts_with(message), "{text}: {err}");
            assert_eq!(err.field.as_deref(), field, "{text}: {err}");
        }
        let err = parse_json("{\"kind\":\"List\",\"items\":[{\"spec\":{\"containers\":[{\"name\":\"a\",\n\"resources\":{\"requests\":{\"cpu\":\"lots\"}}}]}}]}", None).unwrap_err();
        assert_eq!(err.line, Some(2), "{err}");
        assert!(err.message.starts_with("found \"lots\""), "{err}");
    }
}
