//! What kubectl prints, read offline: `kubectl get pods -o json|yaml`, the resource metrics API's
//! `PodMetricsList` (`kubectl get --raw /apis/metrics.k8s.io/...`), the text of
//! `kubectl top pods --containers`, and the custom and external metrics APIs' `MetricValueList`
//! and `ExternalMetricValueList`. The only module that knows these formats.
//!
//! Each file is parsed once, with serde, into small structs holding only the fields the
//! controller reads (strings borrowed from the text where the parser allows), then turned into
//! `scenario` types. Quantities and times are parsed while deserializing, so a bad one is reported
//! at its line and column.
//!
//! Fields read, by input (everything else is ignored):
//! - pods: `metadata.name`, `.namespace`, `.labels`, `.deletionTimestamp`,
//!   `.ownerReferences` (a warning only); `spec.containers[].name`, `.resources.requests`;
//!   `spec.initContainers[]` (the same, and `restartPolicy`); `spec.resources.requests`;
//!   `status.phase`, `.startTime`, `.conditions[type=Ready].status` and `.lastTransitionTime`.
//! - PodMetrics: `metadata.name`, `.namespace`, `.labels`; `timestamp`, `window`,
//!   `containers[].name`, `.usage`.
//! - MetricValue: `describedObject.kind`, `.name`, `.namespace`, `.apiVersion`; `metricName` (or
//!   `metric.name`); `value`; `timestamp`; `windowSeconds`.
//! - ExternalMetricValue: `metricName`, `metricLabels`, `value`, `timestamp`.
//!
//! Every reader of an object's `metadata` (these, `kubectl::cluster` and `input::target`) reads it
//! as one `ObjectMeta`: the union of the fields above, so a reader also checks the shape of
//! `ownerReferences` where it does not use them; labels are skipped by the readers that do not
//! select on them.

pub mod capture;
pub mod cluster;
pub mod custom;
pub mod metrics;
pub mod pods;
mod sample;
pub mod scale;
pub mod status_only;
mod top;

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

/// "a, b, c" with at most `max` names, then "and N more".
pub(crate) use crate::error::name_list;
use crate::error::repeated_key;
use crate::error::{InputError, json_error, yaml_error};
use crate::input::cluster::objects::{MetricsMeta, PodMeta};
use crate::input::guard::Keys;
use crate::input::selector::Selector;
use crate::quantity::parse_milli;
use crate::scenario::Resources;
use crate::time::{Duration, Timestamp};

/// How a file's content looks, decided from its first meaningful line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Yaml,
    /// Anything else: CSV for `--pods`, `kubectl top` for `--metrics`.
    Text,
}

/// JSON starts with `{` or `[`; YAML is a document marker or a top-level `apiVersion:`, `kind:`
/// or `items:` key among the first lines that are not comments.
pub fn detect(text: &str) -> Format {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let trimmed = body.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        return Format::Json;
    }
    let yaml = body
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .take(20)
        .any(|l| {
            l == "---"
                || l.starts_with("--- ")
                || ["apiVersion:", "kind:", "items:", "metadata:"]
                    .iter()
                    .any(|k| l.starts_with(k))
        });
    if yaml { Format::Yaml } else { Format::Text }
}

/// Deserializes every document of `text` (one for JSON, each of a YAML stream).
pub(crate) fn decode<'a, T: Deserialize<'a>>(
    file: &str,
    text: &'a str,
    format: Format,
) -> Result<Vec<T>, InputError> {
    Ok(decode_each(file, text, format, || All(Vec::new()))?.0)
}

/// Hands every document of `text` to a seed from `new_seed` in turn, which keeps only what it
/// needs as it reads (a large capture need not be held twice, as text and as parsed structs), and
/// returns that seed.
///
/// JSON is read once without tracking the field path: tracking costs a third of a large
/// capture's time. Only when the data is wrong is it read again, by a fresh seed, tracking the
/// path (`items[3].status.startTime`) for the error.
pub(crate) fn decode_each<'a, S>(
    file: &str,
    text: &'a str,
    format: Format,
    mut new_seed: impl FnMut() -> S,
) -> Result<S, InputError>
where
    for<'s> &'s mut S: DeserializeSeed<'a, Value = ()>,
{
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut seed = new_seed();
    if format != Format::Json {
        crate::input::guard::check_yaml(file, body)?;
        for doc in serde_yaml::Deserializer::from_str(body) {
            DeserializeSeed::deserialize(&mut seed, doc).map_err(|e| yaml_error(file, &e))?;
        }
        return Ok(seed);
    }
    // No guard walk here: JSON has no aliases, and a capture of 100,000 pods is read once.
    let mut de = serde_json::Deserializer::from_str(body);
    let first = DeserializeSeed::deserialize(&mut seed, &mut de).and_then(|()| de.end());
    let Err(e) = first else {
        return Ok(seed);
    };
    let syntax = matches!(
        e.classify(),
        serde_json::error::Category::Syntax | serde_json::error::Category::Eof
    );
    if syntax {
        return Err(json_error(file, &e));
    }
    // What the first reading kept is freed before the second reading keeps it again.
    drop(seed);
    let mut track = serde_path_to_error::Track::new();
    let mut de = serde_json::Deserializer::from_str(body);
    let again = DeserializeSeed::deserialize(
        &mut new_seed(),
        serde_path_to_error::Deserializer::new(&mut de, &mut track),
    );
    // The same text read the same way fails the same way; the first error stands otherwise.
    let (e, path) = match again {
        Err(again) => (again, track.path().to_string()),
        Ok(()) => (e, String::new()),
    };
    let err = json_error(file, &e);
    if path.is_empty() || path == "." || err.field.is_some() {
        Err(err)
    } else {
        Err(err.field(path))
    }
}

/// The seed of `decode`: every document, whole.
struct All<T>(Vec<T>);

impl<'a, T: Deserialize<'a>> DeserializeSeed<'a> for &mut All<T> {
    type Value = ();
    fn deserialize<D: Deserializer<'a>>(self, d: D) -> Result<(), D::Error> {
        self.0.push(T::deserialize(d)?);
        Ok(())
    }
}

/// Which objects of a file belong to the HPA: its namespace and the target's selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    pub namespace: String,
    pub selector: Option<Selector>,
    /// The selector is the target's own (its scale's `status.selector`), not a `-l` that may
    /// only narrow a larger capture: the pods it matches are the controller's, owners checked.
    pub selector_is_targets: bool,
}

impl Scope {
    /// An object without a namespace is taken to be in the HPA's, as kubectl would place it.
    pub fn in_namespace(&self, namespace: Option<&str>) -> bool {
        namespace.is_none_or(|n| n.is_empty() || n == self.namespace)
    }
}

/// A quantity as `MilliValue()`, parsed while deserializing so errors keep their place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Milli(pub i64);

impl<'de> Deserialize<'de> for Milli {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Milli;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a quantity such as 250m or 512Mi")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Milli, E> {
                parse_milli(v).map(Milli).map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Milli, E> {
                self.visit_str(&v.to_string())
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Milli, E> {
                self.visit_str(&v.to_string())
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Milli, E> {
                self.visit_str(&v.to_string())
            }
        }
        d.deserialize_any(V)
    }
}

/// A `metav1.Time` (RFC 3339).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Time(pub Timestamp);

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Time;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an RFC 3339 time such as 2026-11-29T15:04:05Z")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Time, E> {
                Timestamp::parse_rfc3339(v).map(Time).ok_or_else(|| {
                    E::custom(format!(
                        "found {}, expected an RFC 3339 time such as 2026-11-29T15:04:05Z",
                        crate::error::quoted(v)
                    ))
                })
            }
        }
        d.deserialize_str(V)
    }
}

/// A Go duration as `metav1.Duration` prints it (`15.038s`, `1m0s`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Window(pub Duration);

impl<'de> Deserialize<'de> for Window {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Window;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a duration such as 15s or 1m0s")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Window, E> {
                Duration::parse(v).map(Window).map_err(|e| {
                    E::custom(format!(
                        "found {}, expected a duration: {e}",
                        crate::error::quoted(v)
                    ))
                })
            }
        }
        d.deserialize_str(V)
    }
}

/// A `ResourceList` (`{cpu: 250m, memory: 512Mi}`) as milli-units, in the file's order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ResourceMap(pub Resources);

impl<'de> Deserialize<'de> for ResourceMap {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ResourceMap;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mapping of resource names to quantities")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ResourceMap, A::Error> {
                let mut list = Vec::with_capacity(map.size_hint().unwrap_or(2));
                let mut keys = Keys::default();
                while let Some((name, value)) = map.next_entry::<Cow<'de, str>, Milli>()? {
                    if let Some(name) = keys.repeated(name.clone()) {
                        return Err(de::Error::custom(repeated_key(&name)));
                    }
                    if value.0 < 0 {
                        return Err(de::Error::custom(format!(
                            "found a negative {name} of {} milli-units, expected 0 or more",
                            value.0
                        )));
                    }
                    list.push((name.into_owned(), value.0));
                }
                Ok(ResourceMap(Resources(list)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<ResourceMap, E> {
                Ok(ResourceMap::default())
            }
        }
        d.deserialize_map(V)
    }
}

/// A string borrowed from the text when it has no escapes. serde's own `Cow<str>` borrows only
/// as a struct field of its own, never inside an `Option`: it would copy every name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Str<'a>(pub Cow<'a, str>);

impl<'a> Str<'a> {
    /// A string of a value already in memory (a dump's object), borrowed.
    pub fn borrowed(s: &'a str) -> Self {
        Str(Cow::Borrowed(s))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_owned(self) -> String {
        self.0.into_owned()
    }
}

impl std::ops::Deref for Str<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Str<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Str<'a>, E> {
                Ok(Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Str<'a>, E> {
                Ok(Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Str<'a>, E> {
                Ok(Str(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V(PhantomData))
    }
}

/// An object's `metadata` as the kubectl readers read it: the fields any of them reads (pods all
/// of them; PodMetrics the name, namespace and labels; nodes, `--all-pods` and the scale target
/// fewer), each optional and borrowed from the text where the parser allows.
///
/// `L` is how `labels` is read: `Labels` by the readers that select on them, `IgnoredAny` by the
/// others (nodes and `--all-pods`, the scale target), which skip them as before: a whole
/// cluster's pods would otherwise each keep a list they never look at.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ObjectMeta<'a, L = Labels<'a>> {
    #[serde(borrow, default)]
    pub name: Option<Str<'a>>,
    #[serde(borrow, default)]
    pub namespace: Option<Str<'a>>,
    #[serde(default)]
    pub labels: Option<L>,
    /// Only whether it is set.
    #[serde(default)]
    pub deletion_timestamp: Option<IgnoredAny>,
    #[serde(borrow, default)]
    pub owner_references: Option<Vec<Owner<'a>>>,
}

impl<'a> ObjectMeta<'a> {
    /// A dump's PodMetrics metadata: the pod it is about (its labels are not kept, and an HPA's
    /// share of the dump is not narrowed by a selector again).
    pub fn of_dump_metrics(meta: &'a MetricsMeta) -> Self {
        ObjectMeta {
            name: Some(Str::borrowed(&meta.name)),
            namespace: (!meta.namespace.is_empty()).then(|| Str::borrowed(&meta.namespace)),
            labels: None,
            deletion_timestamp: None,
            owner_references: None,
        }
    }

    /// A dump's pod metadata, as the readers of a file would have read it (its labels only when
    /// `labels`: a selector will read them).
    pub fn of_dump(meta: &'a PodMeta, labels: bool) -> Self {
        ObjectMeta {
            name: Some(Str::borrowed(&meta.name)),
            namespace: (!meta.namespace.is_empty()).then(|| Str::borrowed(&meta.namespace)),
            labels: (labels && !meta.labels.is_empty()).then(|| {
                Labels(
                    (meta.labels.0.iter())
                        .map(|(k, v)| (Cow::Borrowed(k.as_str()), Cow::Borrowed(v.as_str())))
                        .collect(),
                )
            }),
            deletion_timestamp: meta.deletion_timestamp.as_ref().map(|_| IgnoredAny),
            owner_references: (!meta.owner_references.is_empty()).then(|| {
                (meta.owner_references.iter())
                    .map(|o| Owner {
                        kind: Some(Str::borrowed(&o.kind)),
                        name: Some(Str::borrowed(&o.name)),
                        controller: o.controller,
                    })
                    .collect()
            }),
        }
    }
}

/// One of `metadata.ownerReferences`.
#[derive(Deserialize)]
pub(crate) struct Owner<'a> {
    #[serde(borrow, default)]
    pub kind: Option<Str<'a>>,
    #[serde(borrow, default)]
    pub name: Option<Str<'a>>,
    #[serde(default)]
    pub controller: Option<bool>,
}

/// `metadata.labels` (or `metricLabels`): key/value pairs, borrowed when the parser allows.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Labels<'a>(pub Vec<(Cow<'a, str>, Cow<'a, str>)>);

impl<'de: 'a, 'a> Deserialize<'de> for Labels<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Labels<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mapping of label names to values")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Labels<'a>, A::Error> {
                let mut list = Vec::with_capacity(map.size_hint().unwrap_or(4));
                let mut keys = Keys::default();
                while let Some(entry) = map.next_entry::<Cow<'de, str>, Cow<'de, str>>()? {
                    if let Some(name) = keys.repeated(entry.0.clone()) {
                        return Err(de::Error::custom(repeated_key(&name)));
                    }
                    list.push(entry);
                }
                Ok(Labels(list))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Labels<'a>, E> {
                Ok(Labels::default())
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

impl Labels<'_> {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_ref())
    }

    pub fn matches(&self, selector: &Selector) -> bool {
        selector.matches(|key| self.get(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_is_detected_from_the_content() {
        let cases = [
            ("{\"kind\":\"PodList\"}", Format::Json),
            ("\u{feff}  [1]", Format::Json),
            ("apiVersion: v1\nkind: List\n", Format::Yaml),
            ("# captured\nkind: PodMetricsList\n", Format::Yaml),
            ("---\nitems: []\n", Format::Yaml),
            ("pod,cpu\nweb-1,250m\n", Format::Text),
            ("POD  NAME  CPU(cores)  MEMORY(bytes)\n", Format::Text),
            ("", Format::Text),
        ];
        for (text, format) in cases {
            assert_eq!(detect(text), format, "{text:?}");
        }
    }

    #[derive(Debug, Deserialize)]
    struct Probe<'a> {
        #[serde(default)]
        cpu: Option<Milli>,
        #[serde(default)]
        at: Option<Time>,
        #[serde(default)]
        window: Option<Window>,
        #[serde(default)]
        usage: Option<ResourceMap>,
        #[serde(borrow, default)]
        labels: Option<Labels<'a>>,
    }

    #[test]
    fn quantities_times_and_windows_parse_while_deserializing() {
        let json = r#"{"cpu":"123456789n","at":"2026-11-29T15:04:05Z","window":"15.038s",
            "usage":{"cpu":"250m","memory":"1Ki"},"labels":{"app":"web"}}"#;
        let yaml = "cpu: 1\nat: 2026-11-29T15:04:05Z\nwindow: 1m0s\nusage:\n  cpu: 0.5\nlabels:\n  app: web\n";
        let j: Probe = decode("p.json", json, Format::Json).unwrap().remove(0);
        assert_eq!(j.cpu, Some(Milli(124)), "MilliValue rounds nanocores up");
        assert_eq!(j.at.unwrap().0.to_rfc3339(), "2026-11-29T15:04:05Z");
        assert_eq!(j.window, Some(Window(Duration(15_038))));
        assert_eq!(
            j.usage.unwrap().0,
            Resources(vec![("cpu".into(), 250), ("memory".into(), 1_024_000)])
        );
        assert_eq!(j.labels.unwrap().get("app"), Some("web"));
        let y: Probe = decode("p.yaml", yaml, Format::Yaml).unwrap().remove(0);
        assert_eq!(y.cpu, Some(Milli(1000)));
        assert_eq!(y.window, Some(Window(Duration(60_000))));
        assert_eq!(y.usage.unwrap().0, Resources(vec![("cpu".into(), 500)]));
    }

    #[test]
    fn bad_values_are_located_at_their_line_and_column() {
        let json = "{\n  \"usage\": {\"cpu\": \"fast\"}\n}";
        let err = decode::<Probe>("m.json", json, Format::Json).unwrap_err();
        assert_eq!((err.file.as_str(), err.line), ("m.json", Some(2)));
        assert!(err.message.starts_with("found \"fast\", expected"), "{err}");
        let yaml = "usage:\n  cpu: -1\n";
        let err = decode::<Probe>("m.yaml", yaml, Format::Yaml).unwrap_err();
        assert_eq!(err.line, Some(2), "{err}");
        assert!(err.message.contains("expected 0 or more"), "{err}");
        let err = decode::<Probe>("t.json", "{\"at\": \"yesterday\"}", Format::Json).unwrap_err();
        assert!(err.message.starts_with("found \"yesterday\""), "{err}");
    }

    #[test]
    fn times_the_api_server_accepts_are_read_in_captures() {
        for at in [
            "9999-12-31T23:59:59Z",
            "9999-12-31T23:59:59.999999999+00:00",
            "2026-11-29T15:04:05.123456789123Z",
        ] {
            let json = format!("{{\"at\": \"{at}\"}}");
            let probe: Probe = decode("t.json", &json, Format::Json).unwrap().remove(0);
            assert!(probe.at.is_some(), "{at}");
        }
    }

    #[test]
    fn a_key_twice_in_a_mapping_that_is_read_is_refused_as_strict_decoding_does() {
        for (json, field) in [
            (r#"{"labels": {"app": "a", "app": "b"}}"#, "labels"),
            (r#"{"usage": {"cpu": "1", "cpu": "2"}}"#, "usage"),
            (r#"{"cpu": "1", "cpu": "2"}"#, "."),
        ] {
            let err = decode::<Probe>("p.json", json, Format::Json).unwrap_err();
            assert!(err.message.starts_with("found the key"), "{json}: {err}");
            assert!(
                err.message.contains("twice in one mapping"),
                "{json}: {err}"
            );
            assert!(
                err.field.as_deref().is_none_or(|f| f == field),
                "{json}: {err}"
            );
        }
        let yaml = "labels:\n  app: a\n  tier: b\n";
        decode::<Probe>("p.yaml", yaml, Format::Yaml).unwrap();
    }

    #[test]
    fn metadata_is_borrowed_and_labels_are_skipped_where_nothing_selects_on_them() {
        let json = r#"{"name":"web-1","namespace":"shop","labels":{"app":"a","app":"b"},
            "deletionTimestamp":"2026-11-29T15:04:05Z",
            "ownerReferences":[{"kind":"ReplicaSet","name":"web-7d4b9c","controller":true}]}"#;
        let skipped: ObjectMeta<'_, IgnoredAny> =
            decode("m.json", json, Format::Json).unwrap().remove(0);
        assert!(matches!(
            skipped.name.map(|n| n.0),
            Some(Cow::Borrowed("web-1"))
        ));
        assert!(skipped.labels.is_some() && skipped.deletion_timestamp.is_some());
        let owner = skipped.owner_references.unwrap().remove(0);
        assert_eq!(owner.name.as_deref(), Some("web-7d4b9c"));
        assert_eq!(owner.controller, Some(true));
        let Err(err) = decode::<ObjectMeta>("m.json", json, Format::Json) else {
            panic!("labels with a key twice are read where a reader selects on them");
        };
        assert!(err.message.contains("twice in one mapping"), "{err}");
    }

    #[test]
    fn malformed_json_says_so_with_its_place() {
        let err = decode::<Probe>("p.json", "{\"cpu\": \"1\",\n", Format::Json).unwrap_err();
        assert_eq!(err.line, Some(2), "{err}");
        assert!(err.message.starts_with("found malformed JSON"), "{err}");
    }

    #[test]
    fn objects_without_a_namespace_are_in_the_hpas() {
        let scope = Scope {
            namespace: "shop".into(),
            selector: None,
            selector_is_targets: false,
        };
        assert!(scope.in_namespace(None));
        assert!(scope.in_namespace(Some("shop")));
        assert!(!scope.in_namespace(Some("prod")));
    }

    #[test]
    fn name_lists_are_cut_after_a_few() {
        assert_eq!(name_list(&["a", "b"], 3), "a, b");
        assert_eq!(name_list(&["a", "b", "c", "d"], 2), "a, b and 2 more");
    }
}
