//! Whole-cluster dumps (`hpacalc audit --cluster`): any number of files, YAML or JSON, each a
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

use std::collections::BTreeMap;
use std::fmt;
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use crate::error::{InputError, json_error, yaml_error};
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

    fn read_json(&mut self, file: &str, stream: impl std::io::Read) -> Result<(), InputError> {
        let mut de = serde_json::Deserializer::from_reader(stream);
        let mut top = Top {
            dump: self,
            file,
            error: None,
        };
        let result = (&mut top).deserialize(&mut de);
        if let Some(err) = top.error {
            return Err(err);
        }
        result.map_err(|e| json_error(file, &e))?;
        de.end().map_err(|e| json_error(file, &e))
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
                        self.add(&at(Some(i)), &item.to_string())?;
                    }
                }
                None if value.is_null() => {}
                None => self.add(&at(None), &value.to_string())?,
            }
        }
        Ok(())
    }

    /// Keeps one object in its lean form, or counts it as skipped.
    fn add(&mut self, place: &str, text: &str) -> Result<(), InputError> {
        #[derive(Deserialize)]
        struct Kind<'a> {
            #[serde(borrow, default)]
            kind: Option<std::borrow::Cow<'a, str>>,
            #[serde(default)]
            message: Option<String>,
        }
        let bad = |e: serde_json::Error| {
            InputError::new(place, format!("found {}, expected a Kubernetes object", e))
        };
        let head: Kind<'_> = serde_json::from_str(text).map_err(bad)?;
        let kind = head.kind.as_deref().unwrap_or(self.default_kind);
        let typed;
        let text = match (&head.kind, self.default_api_version) {
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
                self.metrics_api_error = Some(head.message.unwrap_or_default());
            }
            other => {
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

/// The top level of a JSON file: a list's `items` are streamed; any other object is one item.
struct Top<'d, 'f> {
    dump: &'d mut Dump,
    file: &'f str,
    /// An item's own problem, reported instead of the parser's generic one.
    error: Option<InputError>,
}

impl<'de> DeserializeSeed<'de> for &mut Top<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for &mut Top<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Kubernetes object or List")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut fields: Vec<(String, Box<RawValue>)> = Vec::new();
        let mut listed = false;
        while let Some(key) = map.next_key::<String>()? {
            if key == "items" {
                listed = true;
                map.next_value_seed(Items { top: &mut *self })?;
            } else {
                fields.push((key, map.next_value()?));
            }
        }
        if !listed {
            let mut text = String::from("{");
            for (i, (k, v)) in fields.iter().enumerate() {
                if i > 0 {
                    text.push(',');
                }
                text.push_str(&serde_json::Value::String(k.clone()).to_string());
                text.push(':');
                text.push_str(v.get());
            }
            text.push('}');
            if let Err(e) = self.dump.add(self.file, &text) {
                self.error = Some(e);
                return Err(de::Error::custom("bad object"));
            }
        }
        Ok(())
    }
}

struct Items<'t, 'd, 'f> {
    top: &'t mut Top<'d, 'f>,
}

impl<'de> DeserializeSeed<'de> for Items<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Items<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of objects")
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0usize;
        while let Some(raw) = seq.next_element::<Box<RawValue>>()? {
            let place = format!("{} items[{i}]", self.top.file);
            if let Err(e) = self.top.dump.add(&place, raw.get()) {
                self.top.error = Some(e);
                return Err(de::Error::custom("bad item"));
            }
            i += 1;
        }
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Err(de::Error::custom(
            "found a mapping, expected a list of objects in items",
        ))
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
