//! Whole-cluster dumps (`hpacalc audit --dump`): any number of files, YAML or JSON, each a
//! `List` or single objects. A JSON file is streamed: one item at a time is read, turned into its
//! lean form (`objects`) or dropped, so memory holds what the audit keeps, not the file. The
//! pods are then indexed by namespace and labels (`index`), and each HPA's share of the dump is
//! handed to the single-HPA readers (`share`).

pub mod fleet;
pub mod index;
pub mod json;
pub mod manifests;
pub mod objects;
pub mod share;
pub mod stream;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::error::Category;

use crate::error::{InputError, yaml_error};
use crate::input::{guard, read};
use crate::time::Timestamp;
use objects::{EventHead, HpaHead, Meta, Node, Pdb, Pod, PodMetrics, Vpa, Workload};

/// An object kept whole (an HPA, a ScaledObject, an event), with where it was read.
#[derive(Debug, Clone, PartialEq)]
pub struct Whole<H> {
    pub head: H,
    /// The object's JSON text.
    pub text: Box<str>,
    /// `file items[3]`.
    pub place: String,
}

/// Everything of a dump the audit uses.
#[derive(Debug, Default)]
pub struct Dump {
    pub hpas: Vec<Whole<HpaHead>>,
    pub scaled_objects: Vec<Whole<HpaHead>>,
    pub workloads: Vec<Workload>,
    pub pods: Vec<Pod>,
    pub pdbs: Vec<Pdb>,
    pub vpas: Vec<Vpa>,
    pub nodes: Vec<Node>,
    pub metrics: Vec<PodMetrics>,
    /// `--metrics` was the API's error answer (a `Status`): its message.
    pub metrics_api_error: Option<String>,
    /// Events about HPAs.
    pub events: Vec<Whole<EventHead>>,
    /// Live: each HPA's custom and external metrics, as its own command's files, by
    /// `namespace/name`.
    pub hpa_files: std::collections::HashMap<String, HpaFiles>,
    /// Live: the scale targets that are no listed workload whose scale read the API answered
    /// with an error, by (namespace, kind, name).
    pub scales_unread:
        std::collections::HashMap<(String, String, String), crate::input::target::ScaleUnread>,
    /// Lists the API refused (live) that the audit went on without.
    pub unlisted: Vec<crate::scenario::fleet::Unlisted>,
    /// Items of kinds the audit does not use, by kind.
    pub skipped: BTreeMap<String, usize>,
    /// The newest time any object carries (managedFields, pod start and readiness, samples).
    pub newest: Option<Timestamp>,
    /// Objects given more than once (the same dump twice): the later copies were dropped.
    pub duplicates: usize,
    /// The kind of items without one in the file being read (`PodMetrics` in a PodMetricsList).
    default_kind: &'static str,
    /// The apiVersion of the API list page being read: its items carry neither kind nor
    /// apiVersion, which are then written into the kept text as kubectl writes them.
    default_api_version: &'static str,
}

/// Files one HPA's command reads besides its share of the dump (live: the custom and external
/// metrics APIs' answers), and what the APIs that did not answer mean for it.
#[derive(Debug, Default)]
pub struct HpaFiles {
    /// (flag, file name, text).
    pub files: Vec<(&'static str, &'static str, String)>,
    pub diagnostics: Vec<crate::report::Diagnostic>,
}

impl Dump {
    /// Drops the later copies of any object given twice (same kind, namespace and name), as
    /// the API holds each object once: a dump given twice is the dump once.
    pub fn dedupe(&mut self) {
        let meta = |m: &Meta| (m.namespace.to_string(), m.name.clone());
        let mut dropped = 0;
        dropped += keep_first(&mut self.hpas, |h| meta(&h.head.metadata));
        dropped += keep_first(&mut self.scaled_objects, |h| meta(&h.head.metadata));
        dropped += keep_first(&mut self.workloads, |w| {
            (
                format!("{}/{}", w.kind, w.metadata.namespace),
                w.metadata.name.clone(),
            )
        });
        dropped += keep_first(&mut self.pods, |p| {
            (
                p.metadata.namespace.to_string(),
                p.metadata.name.to_string(),
            )
        });
        dropped += keep_first(&mut self.metrics, |p| {
            (
                p.metadata.namespace.to_string(),
                p.metadata.name.to_string(),
            )
        });
        dropped += keep_first(&mut self.pdbs, |p| meta(&p.metadata));
        dropped += keep_first(&mut self.vpas, |v| meta(&v.metadata));
        dropped += keep_first(&mut self.nodes, |n| meta(&n.metadata));
        dropped += keep_first(&mut self.events, |e| meta(&e.head.metadata));
        self.duplicates += dropped;
    }
}

/// One object of a dump in its lean form, as a store that keeps objects by name holds it
/// (`hpacalc serve`'s watches): read by the dump's own reader, put back into a dump to audit.
#[derive(Debug, Clone)]
/// The few large kinds are boxed: the pods, many, stay their own size.
pub enum Lean {
    Hpa(Box<Whole<HpaHead>>),
    ScaledObject(Box<Whole<HpaHead>>),
    Workload(Box<Workload>),
    Pod(Pod),
    Pdb(Pdb),
    Vpa(Vpa),
}

impl Dump {
    /// The objects read so far, taken out in their lean form.
    pub fn drain(&mut self) -> Vec<Lean> {
        let hpas = (std::mem::take(&mut self.hpas).into_iter()).map(|h| Lean::Hpa(Box::new(h)));
        let scaled = std::mem::take(&mut self.scaled_objects).into_iter();
        let workloads = std::mem::take(&mut self.workloads).into_iter();
        let pods = std::mem::take(&mut self.pods).into_iter().map(Lean::Pod);
        let pdbs = std::mem::take(&mut self.pdbs).into_iter().map(Lean::Pdb);
        let vpas = std::mem::take(&mut self.vpas).into_iter().map(Lean::Vpa);
        hpas.chain(scaled.map(|s| Lean::ScaledObject(Box::new(s))))
            .chain(workloads.map(|w| Lean::Workload(Box::new(w))))
            .chain(pods)
            .chain(pdbs)
            .chain(vpas)
            .collect()
    }

    /// Adds an object kept elsewhere.
    pub fn put(&mut self, item: Lean) {
        match item {
            Lean::Hpa(h) => self.hpas.push(*h),
            Lean::ScaledObject(s) => self.scaled_objects.push(*s),
            Lean::Workload(w) => self.workloads.push(*w),
            Lean::Pod(p) => self.pods.push(p),
            Lean::Pdb(p) => self.pdbs.push(p),
            Lean::Vpa(v) => self.vpas.push(v),
        }
    }
}

/// Keeps the first item of each key, in order; returns how many were dropped. Sorting the
/// positions by key keeps it O(n log n) for the 150,000 pods of a large dump.
fn keep_first<T>(items: &mut Vec<T>, key: impl Fn(&T) -> (String, String)) -> usize {
    let keys: Vec<(String, String)> = items.iter().map(&key).collect();
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by(|&a, &b| keys.get(a).cmp(&keys.get(b)).then(a.cmp(&b)));
    let mut keep = vec![true; keys.len()];
    for pair in order.windows(2) {
        if let [a, b] = *pair
            && keys.get(a) == keys.get(b)
            && let Some(k) = keep.get_mut(b)
        {
            *k = false;
        }
    }
    let before = items.len();
    let mut flags = keep.into_iter();
    items.retain(|_| flags.next().unwrap_or(true));
    before - items.len()
}

/// Kinds whose objects may be scale targets: kept as workloads.
pub const WORKLOAD_KINDS: [&str; 4] = [
    "Deployment",
    "StatefulSet",
    "ReplicaSet",
    "ReplicationController",
];

impl Dump {
    /// Reads a PodMetricsList (or the API's error `Status`) into the dump.
    pub fn read_metrics(&mut self, path: &Path) -> Result<(), InputError> {
        self.default_kind = "PodMetrics";
        let out = self.read(path);
        self.default_kind = "";
        out
    }

    /// Reads one page of an API list (`GET /apis/apps/v1/deployments?limit=500`), named `name`:
    /// the same reader as a file, with the kind and apiVersion the API leaves out of each item.
    pub fn read_page(
        &mut self,
        name: &str,
        kind: &'static str,
        api_version: &'static str,
        text: &str,
    ) -> Result<(), InputError> {
        (self.default_kind, self.default_api_version) = (kind, api_version);
        let out = self.read_json(name, text.as_bytes());
        (self.default_kind, self.default_api_version) = ("", "");
        out
    }

    /// Reads one file into the dump.
    pub fn read(&mut self, path: &Path) -> Result<(), InputError> {
        let (file, stream) = read::open_stream(path)?;
        let mut stream = BufReader::with_capacity(1 << 20, stream);
        let first = loop {
            let buf = stream
                .fill_buf()
                .map_err(|e| InputError::new(&file, format!("cannot read: {e}")))?;
            match buf.iter().position(|b| !b.is_ascii_whitespace()) {
                Some(i) => break buf.get(i).copied(),
                None if buf.is_empty() => break None,
                None => {
                    let n = buf.len();
                    stream.consume(n);
                }
            }
        };
        match first {
            None => Err(InputError::new(
                &file,
                "found nothing, expected kubectl get -o json|yaml output",
            )),
            Some(b'{') => self.read_json(&file, stream),
            Some(_) => {
                let bytes = read::read_capped(stream, &file)?;
                let text = String::from_utf8(bytes).map_err(|_| {
                    InputError::new(&file, "found bytes that are not UTF-8, expected text")
                })?;
                self.read_yaml(&file, &text)
            }
        }
    }

    /// Reads a dump given as text (an MCP call's argument), named `name`: the same readers as a
    /// file's, JSON streamed and YAML as documents.
    pub fn read_text(&mut self, name: &str, text: &str) -> Result<(), InputError> {
        match text.trim_start().as_bytes().first() {
            None => Err(InputError::new(
                name,
                "found nothing, expected kubectl get -o json|yaml output",
            )),
            Some(b'{') => self.read_json(name, text.as_bytes()),
            Some(_) => self.read_yaml(name, text),
        }
    }

    /// Reads a PodMetricsList given as text (or the API's error `Status`) into the dump.
    pub fn read_metrics_text(&mut self, name: &str, text: &str) -> Result<(), InputError> {
        self.default_kind = "PodMetrics";
        let out = self.read_text(name, text);
        self.default_kind = "";
        out
    }

    fn read_json(&mut self, file: &str, stream: impl BufRead + Send) -> Result<(), InputError> {
        let mut top = Top {
            dump: self,
            file,
            fields: Vec::new(),
        };
        stream::walk_beside(file, stream, &mut top)
    }

    fn read_yaml(&mut self, file: &str, text: &str) -> Result<(), InputError> {
        guard::check_yaml(file, text)?;
        for (d, doc) in serde_yaml::Deserializer::from_str(text).enumerate() {
            let value = serde_json::Value::deserialize(doc).map_err(|e| yaml_error(file, &e))?;
            let at = |item: Option<usize>| match (d, item) {
                (0, None) => file.to_string(),
                (d, None) => format!("{file} (document {})", d + 1),
                (0, Some(i)) => format!("{file} items[{i}]"),
                (d, Some(i)) => format!("{file} (document {}) items[{i}]", d + 1),
            };
            match value.get("items").and_then(serde_json::Value::as_array) {
                Some(items) => {
                    for (i, item) in items.iter().enumerate() {
                        self.add(Place::Named(&at(Some(i))), &item.to_string(), None)?;
                    }
                }
                None if value.is_null() => {}
                None => self.add(Place::Named(&at(None)), &value.to_string(), None)?,
            }
        }
        Ok(())
    }

    /// Keeps one object in its lean form, or counts it as skipped. `origin` is where its text
    /// starts in a JSON file, to say a syntax error there.
    fn add(&mut self, place: Place<'_>, text: &str, origin: Origin<'_>) -> Result<(), InputError> {
        let bad = |e: serde_json::Error| match (origin, e.classify()) {
            (Some((file, at)), Category::Syntax | Category::Eof) => stream::locate(file, at, &e),
            _ => InputError::new(
                place.to_string(),
                format!("found {e}, expected a Kubernetes object"),
            ),
        };
        // The kind is looked up among the first keys (kubectl writes it second); the whole head
        // is parsed only when that says nothing, or for a Status's message.
        let (kind_field, message) = match stream::kind_of(text) {
            stream::KindOf::Plain(kind) if kind != "Status" => (Some(kind.into()), None),
            stream::KindOf::Absent => (None, None),
            _ => {
                let head: Head<'_> = serde_json::from_str(text).map_err(bad)?;
                (head.kind, head.message)
            }
        };
        let kind: &str = kind_field.as_deref().unwrap_or(self.default_kind);
        let typed;
        let text = match (&kind_field, self.default_api_version) {
            // Pods and their metrics are read into their lean form, which has neither field:
            // their text is not copied to add them.
            (None, _) if matches!(kind, "Pod" | "PodMetrics") => text,
            (None, api_version) if !api_version.is_empty() => {
                typed = with_type(text, kind, api_version);
                typed.as_str()
            }
            _ => text,
        };
        match kind {
            "Pod" => {
                let pod: Pod = serde_json::from_str(text).map_err(bad)?;
                // A pod's managed fields only date the dump: their newest write is all it keeps.
                self.newest = self.newest.max(pod.metadata.last_write);
                let ready_times = pod
                    .status
                    .conditions
                    .iter()
                    .filter_map(|c| c.last_transition_time.as_deref());
                let times: Vec<String> = (pod.status.start_time.as_deref().into_iter())
                    .chain(ready_times)
                    .map(str::to_string)
                    .collect();
                for t in &times {
                    self.offer(t);
                }
                self.pods.push(pod);
            }
            "PodMetrics" => {
                let m: PodMetrics = serde_json::from_str(text).map_err(bad)?;
                if let Some(t) = &m.timestamp {
                    self.offer(t);
                }
                self.metrics.push(m);
            }
            "HorizontalPodAutoscaler" | "ScaledObject" => {
                let head: HpaHead = serde_json::from_str(text).map_err(bad)?;
                self.offer_meta(&head.metadata);
                let whole = Whole {
                    head,
                    text: text.into(),
                    place: place.to_string(),
                };
                if kind == "ScaledObject" {
                    self.scaled_objects.push(whole);
                } else {
                    self.hpas.push(whole);
                }
            }
            k if WORKLOAD_KINDS.contains(&k) => {
                let w: Workload = serde_json::from_str(text).map_err(bad)?;
                self.offer_meta(&w.metadata);
                self.workloads.push(w);
            }
            "PodDisruptionBudget" => self.pdbs.push(serde_json::from_str(text).map_err(bad)?),
            "Node" => self.nodes.push(serde_json::from_str(text).map_err(bad)?),
            "VerticalPodAutoscaler" => self.vpas.push(serde_json::from_str(text).map_err(bad)?),
            "Event" => {
                let head: EventHead = serde_json::from_str(text).map_err(bad)?;
                let about = head.involved_object.as_ref().or(head.regarding.as_ref());
                if about.is_some_and(|o| o.kind == "HorizontalPodAutoscaler") {
                    self.events.push(Whole {
                        head,
                        text: text.into(),
                        place: place.to_string(),
                    });
                }
            }
            "Status" => {
                self.metrics_api_error = Some(message.unwrap_or_default());
            }
            other => {
                // Not kept, but refused when it is not JSON, as when every item was parsed.
                serde_json::from_str::<IgnoredAny>(text).map_err(bad)?;
                *self.skipped.entry(other.to_string()).or_default() += 1;
            }
        }
        Ok(())
    }

    fn offer(&mut self, time: &str) {
        if let Some(t) = Timestamp::parse_rfc3339(time) {
            self.newest = self.newest.max(Some(t));
        }
    }

    fn offer_meta(&mut self, meta: &Meta) {
        for f in &meta.managed_fields {
            if let Some(t) = &f.time {
                self.offer(t);
            }
        }
    }
}

/// An API list item with the `kind` and `apiVersion` its list gives it, as kubectl prints it.
fn with_type(text: &str, kind: &str, api_version: &str) -> String {
    let rest = text.trim_start().strip_prefix('{').unwrap_or(text);
    let comma = if rest.trim_start().starts_with('}') {
        ""
    } else {
        ","
    };
    format!("{{\"kind\":\"{kind}\",\"apiVersion\":\"{api_version}\"{comma}{rest}")
}

/// Where an object's text starts in its JSON file, when it was read from one.
type Origin<'a> = Option<(&'a str, stream::At)>;

/// Where an object was read (`file items[3]`): written out only for the objects kept whole and
/// for errors, not for each of 150,000 pods.
#[derive(Clone, Copy)]
enum Place<'a> {
    Named(&'a str),
    Item(&'a str, usize),
}

impl std::fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Named(name) => f.write_str(name),
            Place::Item(file, index) => write!(f, "{file} items[{index}]"),
        }
    }
}

/// The head of an object whose kind the first keys do not say plainly.
#[derive(Deserialize)]
struct Head<'a> {
    #[serde(borrow, default)]
    kind: Option<std::borrow::Cow<'a, str>>,
    #[serde(default)]
    message: Option<String>,
}

/// The top level of a JSON file: a list's `items` each go to the dump as they are read; any
/// other object is one item.
struct Top<'d, 'f> {
    dump: &'d mut Dump,
    file: &'f str,
    fields: Vec<(String, String)>,
}

impl stream::Parts for Top<'_, '_> {
    fn item(&mut self, index: usize, text: &str, at: stream::At) -> Result<(), InputError> {
        let place = Place::Item(self.file, index);
        self.dump.add(place, text, Some((self.file, at)))
    }

    fn field(&mut self, key: String, value: &str, at: stream::At) -> Result<(), InputError> {
        serde_json::from_str::<IgnoredAny>(value).map_err(|e| stream::locate(self.file, at, &e))?;
        self.fields.push((key, value.to_string()));
        Ok(())
    }

    fn end_without_items(&mut self) -> Result<(), InputError> {
        let mut text = String::from("{");
        for (i, (k, v)) in self.fields.iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            text.push_str(&serde_json::Value::String(k.clone()).to_string());
            text.push(':');
            text.push_str(v);
        }
        text.push('}');
        self.dump.add(Place::Named(self.file), &text, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_list_items_get_the_kind_and_api_version_of_their_list() {
        assert_eq!(
            with_type(r#"{"metadata":{}}"#, "Deployment", "apps/v1"),
            r#"{"kind":"Deployment","apiVersion":"apps/v1","metadata":{}}"#
        );
        assert_eq!(
            with_type("{ }", "Pod", "v1"),
            r#"{"kind":"Pod","apiVersion":"v1" }"#
        );
    }

    #[test]
    fn an_api_page_is_read_as_a_file_list_of_its_kind() {
        let page = r#"{"kind":"DeploymentList","apiVersion":"apps/v1",
            "metadata":{"continue":"x"},
            "items":[{"metadata":{"name":"web","namespace":"shop"},"spec":{"replicas":2}}]}"#;
        let mut dump = Dump::default();
        dump.read_page("/apis/apps/v1/deployments", "Deployment", "apps/v1", page)
            .unwrap();
        assert_eq!(dump.workloads.len(), 1);
        assert_eq!(dump.workloads[0].kind, "Deployment");
        assert_eq!(dump.workloads[0].metadata.name, "web");
        assert!(dump.skipped.is_empty());
    }
}
