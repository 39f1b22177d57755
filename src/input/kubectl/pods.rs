//! `kubectl get pods -o json|yaml` (a `List`, a `PodList` or one `Pod`) → the pods the
//! controller's pod lister would return: those of the HPA's namespace that the target's selector
//! matches, with only the fields `groupPods` and `calculateRequests` read.
//!
//! A capture of a large cluster is hundreds of megabytes, so each list item is turned into a
//! `Pod` (or dropped) as soon as it is read: the parsed items never all exist at once. The order
//! in which problems are reported is the one of reading everything first: a malformed file, then
//! a document that is not a pod list, then the first bad pod, then the filters' verdicts.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::{Format, ObjectMeta, Owner, ResourceMap, Scope, Str, Time, decode_each, name_list};
use crate::error::InputError;
use crate::input::cluster::json::Json;
use crate::input::cluster::objects;
use crate::input::target::{TargetScale, replica_count};
use crate::report::{Diagnostic, Severity};
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
    /// Named causes found in the capture (`SelectorOverlap`).
    pub diagnostics: Vec<Diagnostic>,
    /// The HPA's scale target, when the file holds it (`kubectl get deploy,pods -o json`).
    pub target: Option<TargetScale>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct RawPod<'a> {
    #[serde(borrow, default)]
    kind: Option<Str<'a>>,
    #[serde(borrow, default)]
    metadata: Option<ObjectMeta<'a>>,
    #[serde(borrow, default)]
    spec: Option<PodSpec<'a>>,
    #[serde(borrow, default)]
    status: Option<PodStatus<'a>>,
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
    /// The RuntimeClass's overhead, which the pod-level request adds.
    #[serde(default)]
    overhead: Option<ResourceMap>,
    /// A workload's `spec.replicas` (the scale target's, when the list holds it).
    #[serde(default)]
    replicas: Option<i64>,
    /// `kubernetes.io/os: windows` places the pod on a Windows node.
    #[serde(default)]
    node_selector: Option<std::collections::BTreeMap<String, String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawContainer<'a> {
    #[serde(borrow, default)]
    name: Option<Str<'a>>,
    #[serde(borrow, default)]
    restart_policy: Option<Str<'a>>,
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
    phase: Option<Str<'a>>,
    #[serde(default)]
    start_time: Option<Time>,
    #[serde(borrow, default)]
    conditions: Option<Vec<RawCondition<'a>>>,
    /// A workload's `status.replicas`.
    #[serde(default)]
    replicas: Option<i64>,
    #[serde(default)]
    container_statuses: Option<Vec<RawContainerStatus>>,
}

/// `status.containerStatuses[]`: a container not running says why in `state.waiting` or
/// `state.terminated`.
#[derive(Deserialize)]
struct RawContainerStatus {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    state: Option<RawState>,
}

#[derive(Deserialize)]
struct RawState {
    #[serde(default)]
    waiting: Option<RawReason>,
    #[serde(default)]
    terminated: Option<RawReason>,
}

#[derive(Deserialize)]
struct RawReason {
    #[serde(default)]
    reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawCondition<'a> {
    #[serde(borrow, rename = "type", default)]
    condition_type: Option<Str<'a>>,
    #[serde(borrow, default)]
    status: Option<Str<'a>>,
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
    let new_reader = || Reader {
        rules: Rules {
            file,
            scope,
            target,
        },
        kept: Batch::default(),
        documents: 0,
        kind_error: None,
    };
    let Reader {
        kept, kind_error, ..
    } = decode_each(file, text, format, new_reader)?;
    if let Some(err) = kind_error {
        return Err(err);
    }
    if let Some(err) = kept.error {
        return Err(err);
    }
    finish(file, scope, target, kept)
}

/// The pods of a cluster dump that the audit matched to one HPA, through the same rules as a
/// file of them: what `parse` gives for a `List` of these pods, without writing one.
pub fn from_objects(
    file: &str,
    objects: &[&objects::Pod],
    scope: &Scope,
    target: &ObjectReference,
) -> Result<CapturedPods, InputError> {
    let rules = Rules {
        file,
        scope,
        target,
    };
    let mut kept = Batch::default();
    let mut batch = Batch::default();
    for (i, object) in objects.iter().enumerate() {
        let place = Place {
            doc: 0,
            item: Some(i),
        };
        // A value the parser would refuse is reported before any pod's problem, as for a file.
        let item = raw_pod(object, scope.selector.is_some()).map_err(|(field, message)| {
            InputError::new(file, message).field(format!("{place}.{field}"))
        })?;
        rules.accept(&kept, &mut batch, place, item);
    }
    kept.absorb(batch);
    if let Some(err) = kept.error {
        return Err(err);
    }
    finish(file, scope, target, kept)
}

/// A dump's pod as the reader of a file would have read it: (the field, the message) of a value
/// it would refuse. Its labels are handed over only when a selector will read them.
fn raw_pod(pod: &objects::Pod, labels: bool) -> Result<RawPod<'_>, (String, String)> {
    fn str(s: &str) -> Option<Str<'_>> {
        Some(Str::borrowed(s))
    }
    let spec = &pod.spec;
    let status = &pod.status;
    let conditions = (status.conditions.iter())
        .enumerate()
        .map(|(j, c)| {
            Ok(RawCondition {
                condition_type: c.condition_type.as_deref().and_then(str),
                status: c.status.as_deref().and_then(str),
                last_transition_time: time(c.last_transition_time.as_deref())
                    .map_err(|m| (format!("status.conditions[{j}].lastTransitionTime"), m))?,
            })
        })
        .collect::<Result<Vec<_>, (String, String)>>()?;
    Ok(RawPod {
        kind: str("Pod"),
        metadata: Some(ObjectMeta::of_dump(&pod.metadata, labels)),
        spec: Some(PodSpec {
            containers: raw_containers(&spec.containers, "containers")?,
            init_containers: raw_containers(&spec.init_containers, "initContainers")?,
            resources: requirements(spec.resources.as_ref())
                .map_err(|(f, m)| (format!("spec.resources.{f}"), m))?,
            overhead: (spec.overhead.as_ref().map(resource_map).transpose())
                .map_err(|(f, m)| (format!("spec.overhead.{f}"), m))?,
            replicas: None,
            node_selector: None,
        }),
        status: Some(PodStatus {
            phase: status.phase.as_deref().and_then(str),
            start_time: time(status.start_time.as_deref())
                .map_err(|m| ("status.startTime".to_string(), m))?,
            conditions: (!conditions.is_empty()).then_some(conditions),
            replicas: None,
            container_statuses: None,
        }),
    })
}

/// A dump's containers (`None` when there are none, as an absent list reads).
fn raw_containers<'a>(
    list: &'a [objects::Container],
    key: &str,
) -> Result<Option<Vec<RawContainer<'a>>>, (String, String)> {
    if list.is_empty() {
        return Ok(None);
    }
    (list.iter().enumerate())
        .map(|(j, c)| {
            Ok(RawContainer {
                name: Some(Str::borrowed(c.name.as_str())),
                restart_policy: (c.restart_policy.as_deref()).map(Str::borrowed),
                resources: requirements(c.resources.as_ref())
                    .map_err(|(f, m)| (format!("spec.{key}[{j}].resources.{f}"), m))?,
            })
        })
        .collect::<Result<Vec<_>, (String, String)>>()
        .map(Some)
}

/// `resources` with its requests read as quantities, as `ResourceMap` reads them.
fn requirements(
    resources: Option<&objects::Requirements>,
) -> Result<Option<Requirements>, (String, String)> {
    let Some(resources) = resources else {
        return Ok(None);
    };
    let requests = match &resources.requests {
        None => None,
        Some(json) => {
            Some(resource_map(json).map_err(|(name, m)| (format!("requests.{name}"), m))?)
        }
    };
    Ok(Some(Requirements { requests }))
}

/// A dump's `ResourceList` as milli-units: (the resource, the message) of a quantity refused.
pub(crate) fn resource_map(json: &Json) -> Result<ResourceMap, (String, String)> {
    let pairs = match json {
        Json::Null => return Ok(ResourceMap::default()),
        Json::Object(pairs) => pairs,
        other => {
            return Err((
                String::new(),
                format!(
                    "found {}, expected a mapping of resource names to quantities",
                    crate::error::quoted(&other.text())
                ),
            ));
        }
    };
    let mut list = Vec::with_capacity(pairs.len());
    for (name, value) in pairs.iter() {
        let written;
        let text = match value {
            Json::String(s) => s.as_str(),
            Json::Number(n) => {
                written = match (n.as_i64(), n.as_u64(), n.as_f64()) {
                    (Some(i), _, _) => i.to_string(),
                    (None, Some(u), _) => u.to_string(),
                    (None, None, Some(f)) => f.to_string(),
                    _ => n.to_string(),
                };
                written.as_str()
            }
            other => {
                return Err((
                    name.to_string(),
                    format!(
                        "found {}, expected a quantity such as 250m or 512Mi",
                        crate::error::quoted(&other.text())
                    ),
                ));
            }
        };
        let milli =
            crate::quantity::parse_milli(text).map_err(|e| (name.to_string(), e.to_string()))?;
        if milli < 0 {
            return Err((
                name.to_string(),
                format!("found a negative {name} of {milli} milli-units, expected 0 or more"),
            ));
        }
        list.push((name.to_string(), milli));
    }
    Ok(ResourceMap(Resources(list)))
}

/// A dump's time as `metav1.Time` reads it.
pub(crate) fn time(text: Option<&str>) -> Result<Option<Time>, String> {
    text.map(|t| {
        Timestamp::parse_rfc3339(t).map(Time).ok_or_else(|| {
            format!(
                "found {}, expected an RFC 3339 time such as 2026-11-29T15:04:05Z",
                crate::error::quoted(t)
            )
        })
    })
    .transpose()
}

/// A pod list read page by page (`limit`/`continue`), each page turned into `Pod`s as it arrives
/// and dropped: what `parse` gives for the whole list, without ever holding it.
pub struct Pages<'s> {
    rules: Rules<'s>,
    kept: Batch<'static>,
}

impl<'s> Pages<'s> {
    pub fn new(file: &'s str, scope: &'s Scope, target: &'s ObjectReference) -> Pages<'s> {
        Pages {
            rules: Rules {
                file,
                scope,
                target,
            },
            kept: Batch::default(),
        }
    }

    /// Reads one page, a `PodList` as the API serves it.
    pub fn page(&mut self, text: &str) -> Result<(), InputError> {
        let rules = self.rules;
        let new_reader = || Reader {
            rules,
            kept: Batch::default(),
            documents: 0,
            kind_error: None,
        };
        let reader = decode_each(rules.file, text, Format::Json, new_reader)?;
        if let Some(err) = reader.kind_error {
            return Err(err);
        }
        let page = reader.kept;
        if let Some(err) = page.error {
            return Err(err);
        }
        if let Some(again) = page.seen.iter().find(|n| self.kept.seen.contains(*n)) {
            return Err(InputError::new(
                self.rules.file,
                format!("found the pod \"{again}\" again, expected each pod once"),
            ));
        }
        self.kept.absorb(page.into_owned());
        Ok(())
    }

    /// What the pages add up to.
    pub fn finish(self) -> Result<CapturedPods, InputError> {
        let Rules {
            file,
            scope,
            target,
        } = self.rules;
        finish(file, scope, target, self.kept)
    }
}

/// The kept pods and the verdicts on the others, once every item is read.
fn finish(
    file: &str,
    scope: &Scope,
    target: &ObjectReference,
    kept: Batch<'_>,
) -> Result<CapturedPods, InputError> {
    let target_scale = match kept.target {
        Some(found) => Some(TargetScale {
            file: file.to_string(),
            spec_replicas: replica_count(file, &format!("{}spec.replicas", found.at), found.spec)?,
            status_replicas: replica_count(
                file,
                &format!("{}status.replicas", found.at),
                found.status,
            )?,
            // The pod list's reader keeps the target's counts only; --target reads the rest.
            replicas_managers: Vec::new(),
        }),
        None => None,
    };
    let mut out = CapturedPods {
        target: target_scale,
        pods: kept.pods,
        excluded: kept.excluded,
        newest: kept.newest,
        ..CapturedPods::default()
    };
    if kept.skipped_kinds.count > 0 {
        out.warnings.push(format!(
            "{file}: skipped {} item(s) that are not pods ({})",
            kept.skipped_kinds.count, kept.skipped_kinds
        ));
    }
    let other_namespaces = kept.other_namespaces;
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
    if kept.foreign_owned.count > 0 {
        out.diagnostics.push(Diagnostic::new(
            "SelectorOverlap",
            Severity::Warning,
            format!(
                "{file}: {} pod(s) under the selector are not owned by {}/{}: {}; the controller \
                 averages every pod the target's selector matches, so these count too",
                kept.foreign_owned.count, target.kind, target.name, kept.foreign_owned
            ),
            if scope.selector_is_targets {
                "give each workload labels of its own and a selector that matches only its pods"
            } else {
                "give each workload labels of its own and a selector that matches only its pods; \
                 if the capture simply holds more than the target's pods, pass the target's \
                 selector with -l"
            },
        ));
    }
    Ok(out)
}

/// What decides which pods are kept.
#[derive(Clone, Copy)]
struct Rules<'s> {
    file: &'s str,
    scope: &'s Scope,
    target: &'s ObjectReference,
}

/// The state carried through the documents of a file (the `DeserializeSeed` of each one).
struct Reader<'s, 'a> {
    rules: Rules<'s>,
    /// What the documents read so far add up to.
    kept: Batch<'a>,
    documents: usize,
    /// The first document that is not a pod list: reported before any pod's problem.
    kind_error: Option<InputError>,
}

impl<'a> Reader<'_, 'a> {
    /// Whether a pod read now can still matter: after a problem only the parser's own errors can.
    fn reading(&self) -> bool {
        self.kind_error.is_none() && self.kept.error.is_none()
    }

    /// Decides what a document was once its `kind` is known (kubectl prints it after `items`).
    fn end_document(
        &mut self,
        doc: usize,
        kind: Option<Str<'a>>,
        items: Option<Batch<'a>>,
        single: RawPod<'a>,
    ) {
        let kind = kind.as_ref().map_or("", Str::as_str);
        match (kind, items) {
            ("" | "List" | "PodList", Some(items)) => self.kept.absorb(items),
            // A Pod's `items`, if any, are not its pods.
            ("Pod", _) => {
                if self.reading() {
                    let mut batch = Batch::default();
                    self.rules
                        .accept(&self.kept, &mut batch, Place { doc, item: None }, single);
                    self.kept.absorb(batch);
                }
            }
            (kind, _) if self.rules.is_target(kind, &single) => {
                let at = match doc {
                    0 => String::new(),
                    d => format!("(document {}) ", d + 1),
                };
                self.kept.target.get_or_insert(FoundTarget::of(at, &single));
            }
            ("", None) if single.metadata.is_none() => {
                // An empty YAML document between `---` lines.
            }
            (other, _) => {
                if self.kind_error.is_none() {
                    let found = if other.is_empty() {
                        "an object without kind or items".to_string()
                    } else {
                        format!("kind {other}")
                    };
                    let field = match doc {
                        0 => "kind".to_string(),
                        d => format!("(document {}) kind", d + 1),
                    };
                    self.kind_error = Some(
                        InputError::new(
                            self.rules.file,
                            format!("found {found}, expected {KINDS}"),
                        )
                        .field(field),
                    );
                }
            }
        }
    }
}

impl<'de> DeserializeSeed<'de> for &mut Reader<'_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        let doc = self.documents;
        self.documents += 1;
        d.deserialize_map(DocumentVisitor { reader: self, doc })
    }
}

/// One document: a list (`items`) or a single pod (the other fields).
struct DocumentVisitor<'r, 's, 'a> {
    reader: &'r mut Reader<'s, 'a>,
    doc: usize,
}

/// The keys of a document that matter.
enum Key {
    Kind,
    Items,
    Metadata,
    Spec,
    Status,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("field identifier")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                Ok(match v {
                    "kind" => Key::Kind,
                    "items" => Key::Items,
                    "metadata" => Key::Metadata,
                    "spec" => Key::Spec,
                    "status" => Key::Status,
                    _ => Key::Other,
                })
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Key, E> {
                Ok(Key::Other)
            }
            fn visit_bytes<E: de::Error>(self, _: &[u8]) -> Result<Key, E> {
                Ok(Key::Other)
            }
        }
        d.deserialize_identifier(V)
    }
}

/// A value read in full and dropped. Unlike `IgnoredAny`, which lets serde_json skim, it reports
/// malformed text as serde's flattened structs did, which read the other keys of a document whole
/// (and refused YAML tags and 128-bit integers, which serde's defaults still refuse here).
struct Skip;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SkipVisitor)
    }
}

struct SkipVisitor;

impl<'de> Visitor<'de> for SkipVisitor {
    type Value = Skip;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_bytes<E: de::Error>(self, _: &[u8]) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_none<E: de::Error>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Skip, D::Error> {
        Skip::deserialize(d)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Skip, D::Error> {
        Skip::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skip, A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(Skip)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skip, A::Error> {
        while map.next_entry::<Skip, Skip>()?.is_some() {}
        Ok(Skip)
    }
    /// A YAML tag (`!x`).
    fn visit_enum<A: de::EnumAccess<'de>>(self, _: A) -> Result<Skip, A::Error> {
        Err(de::Error::custom(
            "untagged and internally tagged enums do not support enum input",
        ))
    }
}

/// A field seen twice is an error at its second key, as in serde's derived structs.
fn first<T, E: de::Error>(slot: &Option<T>, name: &'static str) -> Result<(), E> {
    match slot {
        Some(_) => Err(E::duplicate_field(name)),
        None => Ok(()),
    }
}

impl<'de> Visitor<'de> for DocumentVisitor<'_, '_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct Document")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let DocumentVisitor { reader, doc } = self;
        let mut kind: Option<Option<Str<'de>>> = None;
        let mut items: Option<Option<Batch<'de>>> = None;
        let mut metadata: Option<Option<ObjectMeta<'de>>> = None;
        let mut spec: Option<Option<PodSpec<'de>>> = None;
        let mut status: Option<Option<PodStatus<'de>>> = None;
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Kind => {
                    first(&kind, "kind")?;
                    kind = Some(map.next_value()?);
                }
                Key::Items => {
                    first(&items, "items")?;
                    // The items of a document already known not to be a list are read, not kept.
                    let keep = reader.reading()
                        && kind.as_ref().is_none_or(|k| {
                            matches!(k.as_ref().map_or("", Str::as_str), "" | "List" | "PodList")
                        });
                    let seed = ItemsSeed {
                        rules: &reader.rules,
                        kept: &reader.kept,
                        doc,
                        keep,
                    };
                    items = Some(map.next_value_seed(seed)?);
                }
                Key::Metadata => {
                    first(&metadata, "metadata")?;
                    metadata = Some(map.next_value()?);
                }
                Key::Spec => {
                    first(&spec, "spec")?;
                    spec = Some(map.next_value()?);
                }
                Key::Status => {
                    first(&status, "status")?;
                    status = Some(map.next_value()?);
                }
                Key::Other => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        let single = RawPod {
            kind: None,
            metadata: metadata.flatten(),
            spec: spec.flatten(),
            status: status.flatten(),
        };
        reader.end_document(doc, kind.flatten(), items.flatten(), single);
        Ok(())
    }
}

/// A document's `items`, each turned into a pod as soon as it is read.
struct ItemsSeed<'r, 's, 'a> {
    rules: &'r Rules<'s>,
    /// The earlier documents' pods (each pod name counts once in the whole file).
    kept: &'r Batch<'a>,
    doc: usize,
    keep: bool,
}

impl<'de> DeserializeSeed<'de> for ItemsSeed<'_, '_, 'de> {
    type Value = Option<Batch<'de>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for ItemsSeed<'_, '_, 'de> {
    type Value = Option<Batch<'de>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("option")
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(ItemsVisitor(self)).map(Some)
    }
}

struct ItemsVisitor<'r, 's, 'a>(ItemsSeed<'r, 's, 'a>);

impl<'de> Visitor<'de> for ItemsVisitor<'_, '_, 'de> {
    type Value = Batch<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Batch<'de>, A::Error> {
        let ItemsSeed {
            rules,
            kept,
            doc,
            keep,
        } = self.0;
        let mut batch = Batch::default();
        let mut i = 0;
        // Every item is read even after a problem: a malformed later one is reported first.
        while let Some(item) = seq.next_element::<RawPod<'de>>()? {
            if keep {
                match item.kind.as_ref().map(Str::as_str) {
                    None | Some("Pod") => {
                        rules.accept(kept, &mut batch, Place { doc, item: Some(i) }, item);
                    }
                    Some(other) if rules.is_target(other, &item) => {
                        let at = format!("{}.", Place { doc, item: Some(i) });
                        batch.target.get_or_insert(FoundTarget::of(at, &item));
                    }
                    Some(other) => batch.skipped_kinds.push(|| other.to_string()),
                }
            }
            i += 1;
        }
        Ok(batch)
    }
}

/// Where a pod is: `items[3]`, `(document 2) items[0]`, or a document that is one pod.
#[derive(Clone, Copy)]
struct Place {
    doc: usize,
    item: Option<usize>,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.doc, self.item) {
            (0, None) => Ok(()),
            (d, None) => write!(f, "(document {})", d + 1),
            (0, Some(i)) => write!(f, "items[{i}]"),
            (d, Some(i)) => write!(f, "(document {}) items[{i}]", d + 1),
        }
    }
}

/// The first few of many names, and how many there were: messages show three.
#[derive(Default)]
struct Shortlist {
    first: Vec<String>,
    count: usize,
}

impl Shortlist {
    const SHOWN: usize = 3;

    fn push(&mut self, name: impl FnOnce() -> String) {
        if self.first.len() < Self::SHOWN {
            self.first.push(name());
        }
        self.count += 1;
    }

    fn append(&mut self, other: Shortlist) {
        let room = Self::SHOWN.saturating_sub(self.first.len());
        self.first.extend(other.first.into_iter().take(room));
        self.count += other.count;
    }
}

/// As `name_list` prints the whole list.
impl fmt::Display for Shortlist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&name_list(&self.first, Self::SHOWN))?;
        match self.count.checked_sub(self.first.len()) {
            Some(more) if more > 0 => write!(f, " and {more} more"),
            _ => Ok(()),
        }
    }
}

/// The pods of one document's items, or of the whole file so far: a document's items are kept
/// apart until its `kind` says they are pods.
#[derive(Default)]
struct Batch<'a> {
    pods: Vec<Pod>,
    /// The kept pods' names, borrowed from the text where possible.
    seen: HashSet<Cow<'a, str>, foldhash::fast::RandomState>,
    excluded: HashSet<String>,
    other_namespaces: Vec<String>,
    foreign_owned: Shortlist,
    skipped_kinds: Shortlist,
    newest: Option<Timestamp>,
    /// The first pod that is wrong; nothing is kept after it.
    error: Option<InputError>,
    /// The scale target's replica counts, when an item is the target.
    target: Option<FoundTarget>,
}

/// The scale target found among the items: `spec.replicas`, `status.replicas` and its place.
struct FoundTarget {
    at: String,
    spec: Option<i64>,
    status: Option<i64>,
}

impl FoundTarget {
    fn of(at: String, item: &RawPod<'_>) -> FoundTarget {
        FoundTarget {
            at,
            spec: item.spec.as_ref().and_then(|s| s.replicas),
            status: item.status.as_ref().and_then(|s| s.replicas),
        }
    }
}

impl<'a> Batch<'a> {
    /// The batch without borrows from its text, to outlive the page it was read from.
    fn into_owned(self) -> Batch<'static> {
        Batch {
            seen: (self.seen.into_iter())
                .map(|n| Cow::Owned(n.into_owned()))
                .collect(),
            pods: self.pods,
            excluded: self.excluded,
            other_namespaces: self.other_namespaces,
            foreign_owned: self.foreign_owned,
            skipped_kinds: self.skipped_kinds,
            newest: self.newest,
            error: self.error,
            target: self.target,
        }
    }

    /// Adds a later batch: `self` comes first.
    fn absorb(&mut self, later: Batch<'a>) {
        // The first batch is moved, not copied: a file of one list is never held twice.
        fn join<T>(to: &mut Vec<T>, from: Vec<T>) {
            if to.is_empty() {
                *to = from;
            } else {
                to.extend(from);
            }
        }
        fn join_set<T: Eq + std::hash::Hash, S: std::hash::BuildHasher>(
            to: &mut HashSet<T, S>,
            from: HashSet<T, S>,
        ) {
            if to.is_empty() {
                *to = from;
            } else {
                to.extend(from);
            }
        }
        join(&mut self.pods, later.pods);
        join_set(&mut self.seen, later.seen);
        join_set(&mut self.excluded, later.excluded);
        join(&mut self.other_namespaces, later.other_namespaces);
        self.foreign_owned.append(later.foreign_owned);
        self.skipped_kinds.append(later.skipped_kinds);
        self.newest = self.newest.max(later.newest);
        if self.error.is_none() {
            self.error = later.error;
        }
        if self.target.is_none() {
            self.target = later.target;
        }
    }
}

impl Rules<'_> {
    /// Whether an object of kind `kind` is the HPA's scale target, in its namespace.
    fn is_target(&self, kind: &str, item: &RawPod<'_>) -> bool {
        let meta = item.metadata.as_ref();
        kind == self.target.kind
            && meta
                .and_then(|m| m.name.as_ref())
                .is_some_and(|n| n.as_str() == self.target.name)
            && self
                .scope
                .in_namespace(meta.and_then(|m| m.namespace.as_ref()).map(Str::as_str))
    }

    /// Turns one pod into a `Pod` of `batch`, or counts it as left out; `kept` holds the earlier
    /// documents' pods.
    fn accept<'a>(&self, kept: &Batch<'a>, batch: &mut Batch<'a>, place: Place, item: RawPod<'a>) {
        if kept.error.is_some() || batch.error.is_some() {
            return;
        }
        if let Err(err) = self.try_accept(kept, batch, place, item) {
            batch.error = Some(err);
        }
    }

    fn try_accept<'a>(
        &self,
        kept: &Batch<'a>,
        batch: &mut Batch<'a>,
        place: Place,
        item: RawPod<'a>,
    ) -> Result<(), InputError> {
        let file = self.file;
        let meta = item.metadata.unwrap_or_default();
        let Some(name) = meta.name.map(|n| n.0).filter(|n| !n.is_empty()) else {
            return Err(
                InputError::new(file, "found nothing, expected the pod's name")
                    .field(format!("{place}.metadata.name")),
            );
        };
        let namespace = meta.namespace.as_ref().map(Str::as_str);
        if !self.scope.in_namespace(namespace) {
            let ns = namespace.unwrap_or_default();
            let known = |list: &[String]| list.iter().any(|n| n == ns);
            if !known(&kept.other_namespaces) && !known(&batch.other_namespaces) {
                batch.other_namespaces.push(ns.to_string());
            }
            return Ok(());
        }
        let labels = meta.labels.unwrap_or_default();
        if let Some(selector) = &self.scope.selector
            && !labels.matches(selector)
        {
            batch.excluded.insert(name.into_owned());
            return Ok(());
        }
        if kept.seen.contains(name.as_ref()) || batch.seen.contains(name.as_ref()) {
            return Err(InputError::new(
                file,
                format!("found the pod \"{name}\" again, expected each pod once"),
            )
            .field(format!("{place}.metadata.name")));
        }
        let mut foreign_owner = None;
        if (self.scope.selector.is_none() || self.scope.selector_is_targets)
            && let Some((kind, owner)) = controller_owner(meta.owner_references.as_deref())
            && !owned_by_target(kind, owner, self.target)
        {
            batch
                .foreign_owned
                .push(|| format!("{name} ({kind}/{owner})"));
            foreign_owner = Some(format!("{kind}/{owner}"));
        }
        let mut pod = to_pod(
            file,
            place,
            name.to_string(),
            meta.deletion_timestamp.is_some(),
            item.spec.unwrap_or_default(),
            item.status.unwrap_or_default(),
        )?;
        pod.placement.foreign_owner = foreign_owner;
        batch.seen.insert(name);
        let times = pod
            .start_time
            .into_iter()
            .chain(pod.ready.map(|r| r.last_transition_time));
        batch.newest = batch.newest.max(times.max());
        batch.pods.push(pod);
        Ok(())
    }
}

/// The kind and name of the controlling owner.
fn controller_owner<'o>(owners: Option<&'o [Owner<'_>]>) -> Option<(&'o str, &'o str)> {
    let owner = owners?.iter().find(|o| o.controller == Some(true))?;
    Some((
        owner.kind.as_ref().map_or("", Str::as_str),
        owner.name.as_ref().map_or("", Str::as_str),
    ))
}

/// Whether the owner `kind/name` is the target itself or one of its ReplicaSets
/// (`<name>-<hash>`).
fn owned_by_target(kind: &str, name: &str, target: &ObjectReference) -> bool {
    // `kind/name` is read from its first slash: a kind with a slash in it moves the name's start.
    let joined;
    let name = match kind.split_once('/') {
        Some((_, rest)) => {
            joined = format!("{rest}/{name}");
            joined.as_str()
        }
        None => name,
    };
    name == target.name
        || name
            .strip_prefix(target.name.as_str())
            .and_then(|rest| rest.strip_prefix('-'))
            .is_some_and(|hash| !hash.is_empty() && !hash.contains('-'))
}

fn to_pod(
    file: &str,
    place: Place,
    name: String,
    deleting: bool,
    spec: PodSpec<'_>,
    status: PodStatus<'_>,
) -> Result<Pod, InputError> {
    let phase = match status.phase.as_ref().map(Str::as_str) {
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
                    "found {}, expected Pending, Running, Succeeded, Failed or Unknown",
                    crate::error::quoted(other)
                ),
            )
            .field(format!("{place}.status.phase")));
        }
    };
    let ready = status
        .conditions
        .unwrap_or_default()
        .into_iter()
        .find(|c| c.condition_type.as_ref().map(Str::as_str) == Some("Ready"))
        .map(|c| ReadyCondition {
            status: match c.status.as_ref().map(Str::as_str) {
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
    // Port of validateContainers / validateInitContainers (validation.go): one name per container,
    // across both lists (the few names of a pod are compared, not hashed).
    for (list, raw_list) in [("containers", containers_in), ("initContainers", init_in)] {
        for (j, c) in raw_list.into_iter().enumerate() {
            let Some(cname) = c.name.map(|n| n.0).filter(|n| !n.is_empty()) else {
                return Err(
                    InputError::new(file, "found nothing, expected the container's name")
                        .field(format!("{place}.spec.{list}[{j}].name")),
                );
            };
            if containers.iter().any(|k: &Container| k.name == *cname) {
                return Err(InputError::new(
                    file,
                    format!(
                        "found a second container named {}, expected each name once in a pod",
                        crate::error::quoted(&cname)
                    ),
                )
                .field(format!("{place}.spec.{list}[{j}].name")));
            }
            let kind = match (list, c.restart_policy.as_ref().map(Str::as_str)) {
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
    let overhead = spec.overhead.map(|o| o.0);
    let placement = crate::scenario::Placement {
        windows: (spec.node_selector.as_ref())
            .and_then(|s| s.get("kubernetes.io/os"))
            .is_some_and(|os| os == "windows"),
        not_running: not_running(status.container_statuses.unwrap_or_default()),
        foreign_owner: None,
    };
    Ok(Pod {
        name,
        phase,
        deleting,
        start_time: status.start_time.map(|t| t.0),
        ready,
        containers,
        pod_requests,
        overhead,
        placement,
    })
}

/// The first container waiting or terminated, with the reason kubectl prints in its STATUS
/// column (`CrashLoopBackOff`, `ImagePullBackOff`, `OOMKilled`, `Error`).
fn not_running(statuses: Vec<RawContainerStatus>) -> Option<(String, String)> {
    statuses.into_iter().find_map(|c| {
        let state = c.state?;
        let reason = (state.waiting.or(state.terminated))?.reason?;
        Some((c.name.unwrap_or_default(), reason))
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
            selector_is_targets: false,
        }
    }

    #[test]
    fn pages_read_one_by_one_give_what_the_whole_list_gives() {
        let pod = |name: &str| {
            format!(
                r#"{{"metadata":{{"name":"{name}","namespace":"shop","labels":{{"app":"web"}},
                "ownerReferences":[{{"kind":"ReplicaSet","name":"web-5d9f8","controller":true}}]}},
                "status":{{"phase":"Running","startTime":"2026-11-29T14:00:00Z"}}}}"#
            )
        };
        let list = |names: &[&str]| {
            let items: Vec<String> = names.iter().map(|n| pod(n)).collect();
            format!(r#"{{"kind":"PodList","items":[{}]}}"#, items.join(","))
        };
        let scope = scope(Some("app=web"));
        let target = target();
        let whole = parse(
            "pods.json",
            &list(&["web-1", "web-2", "web-3"]),
            Format::Json,
            &scope,
            &target,
        )
        .unwrap();
        let mut pages = Pages::new("pods.json", &scope, &target);
        pages.page(&list(&["web-1", "web-2"])).unwrap();
        pages.page(&list(&["web-3"])).unwrap();
        assert_eq!(pages.finish().unwrap(), whole);
        let mut pages = Pages::new("pods.json", &scope, &target);
        pages.page(&list(&["web-1"])).unwrap();
        let err = pages.page(&list(&["web-1"])).unwrap_err();
        assert_eq!(
            err.message,
            "found the pod \"web-1\" again, expected each pod once"
        );
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
    fn a_windows_node_selector_and_a_waiting_container_are_kept() {
        // As `kubectl get pods -o json` prints them: a nodeSelector, and containerStatuses whose
        // state is waiting (CrashLoopBackOff) or running.
        let text = r#"{"kind":"Pod","metadata":{"name":"web-1"},"spec":{
            "nodeSelector":{"kubernetes.io/os":"windows"},
            "containers":[{"name":"app","resources":{"requests":{"cpu":"1"}}},
                          {"name":"log","resources":{"requests":{"cpu":"10m"}}}]},
            "status":{"phase":"Running","containerStatuses":[
              {"name":"log","ready":true,"restartCount":0,"state":{"running":{"startedAt":"2026-11-29T12:00:00Z"}}},
              {"name":"app","ready":false,"restartCount":7,"state":{"waiting":{"reason":"CrashLoopBackOff",
               "message":"back-off 5m0s restarting failed container=app"}},
               "lastState":{"terminated":{"exitCode":1,"reason":"Error"}}}]}}"#;
        let pod = parse_json(text, None).unwrap().pods.remove(0);
        assert!(pod.placement.windows);
        assert_eq!(
            pod.placement.not_running,
            Some(("app".to_string(), "CrashLoopBackOff".to_string()))
        );
        // A Linux pod with every container running: nothing kept.
        let text = text.replace("windows", "linux").replace(
            r#""waiting":{"reason":"CrashLoopBackOff","#,
            r#""running":{"#,
        );
        let pod = parse_json(&text, None).unwrap().pods.remove(0);
        assert_eq!(pod.placement, crate::scenario::Placement::default());
    }

    #[test]
    fn init_containers_are_sidecars_only_with_restart_policy_always() {
        let text = r#"{"kind":"Pod","metadata":{"name":"web-1"},"spec":{
            "containers":[{"name":"app","resources":{"requests":{"cpu":"1"}}}],
            "initContainers":[{"name":"proxy","restartPolicy":"Always","resources":{"requests":{"cpu":"100m"}}},
                              {"name":"migrate","resources":{"requests":{"cpu":"2"}}}],
            "resources":{"requests":{"cpu":"3"}},"overhead":{"cpu":"250m"}},
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
        assert_eq!(pod.overhead.unwrap().get("cpu"), Some(250));
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
        assert!(captured.warnings.is_empty(), "{:?}", captured.warnings);
        assert_eq!(captured.diagnostics.len(), 1, "{:?}", captured.diagnostics);
        let overlap = &captured.diagnostics[0];
        assert_eq!(overlap.code, "SelectorOverlap");
        assert!(
            overlap
                .message
                .contains("2 pod(s) under the selector are not owned by Deployment/web")
        );
        assert!(
            overlap
                .message
                .contains("worker-1 (ReplicaSet/worker-5f6d)")
        );
        // Each pod says its foreign owner, for the fix that names the pod (calc::request_fix).
        let owners: Vec<_> = (captured.pods.iter())
            .map(|p| p.placement.foreign_owner.as_deref())
            .collect();
        assert_eq!(
            owners,
            [
                None,
                Some("ReplicaSet/worker-5f6d"),
                Some("ReplicaSet/web-api-66f")
            ]
        );
        assert!(
            parse_json(&text, Some("app=x"))
                .unwrap()
                .diagnostics
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

    /// Pod names kept, or the error's field and the start of its message.
    type Outcome<'t> = Result<&'t [&'t str], (Option<&'t str>, &'t str)>;

    fn outcome_of(text: &str) -> Result<Vec<String>, InputError> {
        let format = crate::input::kubectl::detect(text);
        parse("pods", text, format, &scope(None), &target())
            .map(|c| c.pods.into_iter().map(|p| p.name).collect())
    }

    #[test]
    fn items_read_before_their_documents_kind_count_only_in_a_list() {
        // kubectl prints `kind` after `items`: each item becomes a pod before the kind is known.
        let cases: &[(&str, Outcome)] = &[
            (
                r#"{"items":[{"metadata":{"name":"a"}}],"kind":"List"}"#,
                Ok(&["a"]),
            ),
            (
                r#"{"items":[{"metadata":{"name":"a"},"status":{"phase":"Lost"}}],"kind":"Pod","metadata":{"name":"b"}}"#,
                Ok(&["b"]),
            ),
            (
                "kind: Pod\nitems:\n- metadata:\n    name: a\nmetadata:\n  name: b\n---\nitems:\n- metadata:\n    name: a\n",
                Ok(&["b", "a"]),
            ),
            (
                r#"{"items":[{"metadata":{}}],"kind":"PodMetricsList"}"#,
                Err((Some("kind"), "found kind PodMetricsList")),
            ),
        ];
        for &(text, expected) in cases {
            match (outcome_of(text), expected) {
                (Ok(names), Ok(want)) => assert_eq!(names, want, "{text}"),
                (Err(err), Err((field, message))) => {
                    assert_eq!(err.field.as_deref(), field, "{text}: {err}");
                    assert!(err.message.starts_with(message), "{text}: {err}");
                }
                (got, _) => panic!("{text}: {got:?}"),
            }
        }
    }

    #[test]
    fn problems_are_reported_in_the_order_of_reading_everything_first() {
        let cases: &[(&str, Option<&str>, &str)] = &[
            // A malformed later item comes before an earlier pod's problem.
            (
                r#"{"items":[{"metadata":{}},{"metadata":{"name":"b"},"status":{"startTime":"x"}}]}"#,
                Some("items[1].status.startTime"),
                "found \"x\", expected an RFC 3339 time",
            ),
            // So does a later document that is not a pod list.
            (
                "items:\n- metadata: {}\n---\nkind: Foo\n",
                Some("(document 2) kind"),
                "found kind Foo",
            ),
            // Names count once in the whole file, across documents.
            (
                "kind: Pod\nmetadata:\n  name: a\n---\nitems:\n- metadata:\n    name: a\n",
                Some("(document 2) items[0].metadata.name"),
                "found the pod \"a\" again",
            ),
            // A name written with an escape is the same name.
            (
                r#"{"items":[{"metadata":{"name":"a\u0041"}},{"metadata":{"name":"aA"}}]}"#,
                Some("items[1].metadata.name"),
                "found the pod \"aA\" again",
            ),
            // Other keys of a document are read whole, as before streaming.
            (
                r#"{"other":{"a":1,},"items":[]}"#,
                None,
                "found malformed JSON (trailing comma)",
            ),
        ];
        for &(text, field, message) in cases {
            let err = outcome_of(text).unwrap_err();
            assert_eq!(err.field.as_deref(), field, "{text}: {err}");
            assert!(err.message.starts_with(message), "{text}: {err}");
        }
    }

    #[test]
    fn long_lists_in_warnings_show_three_names_and_the_count() {
        let owned = |name: &str| {
            format!(
                r#"{{"metadata":{{"name":"{name}","ownerReferences":[{{"kind":"ReplicaSet","name":"api-1","controller":true}}]}}}}"#
            )
        };
        let text = format!(
            "{}\n---\n{}",
            list(&[
                r#"{"kind":"Service"}"#.to_string(),
                owned("a"),
                r#"{"kind":"Secret"}"#.to_string(),
                owned("b"),
            ]),
            list(&[
                r#"{"kind":"Service"}"#.to_string(),
                r#"{"kind":"Node"}"#.to_string(),
                owned("c"),
                owned("d"),
            ])
        );
        let captured = parse("pods.yaml", &text, Format::Yaml, &scope(None), &target()).unwrap();
        assert_eq!(
            captured.warnings,
            [
                "pods.yaml: skipped 4 item(s) that are not pods (Service, Secret, Service and 1 \
              more)"
            ]
        );
        assert!(captured.diagnostics[0].message.contains(
            "pods.yaml: 4 pod(s) under the selector are not owned by Deployment/web: \
             a (ReplicaSet/api-1), b (ReplicaSet/api-1), c (ReplicaSet/api-1) and 1 more;"
        ));
    }

    #[test]
    fn the_scale_target_among_the_items_gives_its_replica_counts() {
        let json = r#"{"kind":"List","items":[
            {"kind":"Deployment","metadata":{"name":"web","namespace":"shop"},
             "spec":{"replicas":4,"template":{"spec":{"containers":[{"name":"app"}]}}},
             "status":{"replicas":5,"conditions":[{"type":"Progressing","status":"True",
               "lastTransitionTime":"2026-11-29T12:00:00Z"}]}},
            {"kind":"Deployment","metadata":{"name":"api","namespace":"shop"},"spec":{"replicas":9}},
            {"kind":"Pod","metadata":{"name":"web-1","namespace":"shop"}}]}"#;
        let got = parse_json(json, None).unwrap();
        let found = got.target.expect("the Deployment web is the target");
        assert_eq!(
            (found.spec_replicas, found.status_replicas),
            (Some(4), Some(5))
        );
        assert_eq!(got.pods.len(), 1);
        assert_eq!(
            got.warnings,
            ["pods.json: skipped 1 item(s) that are not pods (Deployment)"]
        );
        let bad = r#"{"kind":"List","items":[{"kind":"Deployment","metadata":{"name":"web"},
            "spec":{"replicas":-2}}]}"#;
        let err = parse_json(bad, None).unwrap_err();
        assert_eq!(err.field.as_deref(), Some("items[0].spec.replicas"));
        // A document of its own in a YAML stream, rather than a kind error.
        let yaml = "kind: Pod\nmetadata:\n  name: web-1\n---\nkind: StatefulSet\nmetadata:\n  \
                    name: web\nspec:\n  replicas: 3\n";
        let web = ObjectReference {
            kind: "StatefulSet".into(),
            ..target()
        };
        let got = parse("pods.yaml", yaml, Format::Yaml, &scope(None), &web).unwrap();
        let t = got.target.expect("the StatefulSet document");
        assert_eq!((t.spec_replicas, t.status_replicas), (Some(3), None));
        let err = parse("pods.yaml", yaml, Format::Yaml, &scope(None), &target()).unwrap_err();
        assert!(err.message.starts_with("found kind StatefulSet"), "{err}");
    }
}
