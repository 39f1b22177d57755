//! The resource metrics API's answer (`metrics.k8s.io/v1beta1` `PodMetricsList`, JSON or YAML, or
//! one `PodMetrics`), or the text of `kubectl top pods --containers` → the `PodMetrics` items the
//! controller's metrics client would receive for the target's selector.
//!
//! Per-container usage is kept as listed; the metrics client (`calc::metrics_client`) sums it per
//! pod and drops a pod when a container lacks the resource. Items of other namespaces are left
//! out. With a selector, an item is kept when its labels match (metrics-server copies the pod's
//! labels) or, without labels, unless the pod file holds the pod and the selector left it out.

use std::borrow::Cow;
use std::collections::HashSet;

use serde::Deserialize;

pub use super::sample::Sample;
use super::sample::{Item, ItemPath};
use super::{Format, ObjectMeta, ResourceMap, Scope, Str, Time, Window, decode, name_list, top};
use crate::error::InputError;
use crate::scenario::{ContainerMetrics, PodMetrics};
use crate::time::{Duration, Timestamp};

/// The items kept, and what to say about them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CapturedMetrics {
    pub samples: Vec<Sample>,
    /// The file is the API's error answer (a `Status`, as `hpacalc HPA --save` writes it when
    /// metrics.k8s.io is not installed or unavailable): its message.
    pub api_error: Option<String>,
    /// From `kubectl top`: usage rounded for display, and no timestamps.
    pub from_top: bool,
    pub notes: Vec<String>,
    pub warnings: Vec<String>,
}

impl CapturedMetrics {
    /// The newest sample time.
    pub fn newest(&self) -> Option<Timestamp> {
        self.samples.iter().filter_map(|s| s.timestamp).max()
    }

    /// The items as the API returns them; a sample without a time is taken at `now` and one
    /// without a window has `window` (`--metrics-window`).
    pub fn into_pod_metrics(self, now: Timestamp, window: Duration) -> Vec<PodMetrics> {
        self.samples
            .into_iter()
            .map(|s| PodMetrics {
                pod: s.pod,
                timestamp: s.timestamp.unwrap_or(now),
                window: s.window.unwrap_or(window),
                containers: s.containers,
            })
            .collect()
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Document<'a> {
    #[serde(borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    items: Option<Vec<RawItem<'a>>>,
    #[serde(borrow, flatten)]
    single: RawItem<'a>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct RawItem<'a> {
    /// An item's own kind (the list's is read by `Document`).
    #[serde(borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    metadata: Option<ObjectMeta<'a>>,
    #[serde(default)]
    timestamp: Option<Time>,
    #[serde(default)]
    window: Option<Window>,
    #[serde(borrow, default)]
    containers: Option<Vec<RawContainer<'a>>>,
}

#[derive(Deserialize)]
struct RawContainer<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(default)]
    usage: Option<ResourceMap>,
}

const KINDS: &str = "a PodMetricsList or PodMetrics (kubectl get --raw \
                     /apis/metrics.k8s.io/v1beta1/namespaces/NS/pods), or the text of kubectl top \
                     pods --containers";

/// Parses a metrics capture in any of its forms. `excluded` are the pods the selector left out of
/// the pod file.
pub fn parse(
    file: &str,
    text: &str,
    format: Format,
    scope: &Scope,
    excluded: &HashSet<String>,
) -> Result<CapturedMetrics, InputError> {
    if let Some(message) = api_status(file, text, format)? {
        return Ok(CapturedMetrics {
            api_error: Some(message),
            ..CapturedMetrics::default()
        });
    }
    let from_top = format == Format::Text;
    keep_items(file, scope, excluded, from_top, |keep| {
        if from_top {
            top::parse(file, text)?.into_iter().try_for_each(keep)
        } else {
            each_api_item(file, text, format, keep)
        }
    })
}

/// The PodMetrics of a cluster dump that the audit matched to one HPA's pods, through the same
/// filters as a file of them: what `parse` gives for a `PodMetricsList` of these items.
pub fn from_objects(
    file: &str,
    objects: &[&crate::input::cluster::objects::PodMetrics],
    scope: &Scope,
    excluded: &HashSet<String>,
) -> Result<CapturedMetrics, InputError> {
    keep_items(file, scope, excluded, false, |keep| {
        for (i, object) in objects.iter().enumerate() {
            let path = ItemPath::Index(i);
            let raw = raw_item(object)
                .map_err(|(field, m)| InputError::new(file, m).field(format!("{path}.{field}")))?;
            keep(to_item(file, path, raw)?)?;
        }
        Ok(())
    })
}

/// A dump's PodMetrics as the reader of a file would have read it.
fn raw_item(
    object: &crate::input::cluster::objects::PodMetrics,
) -> Result<RawItem<'_>, (String, String)> {
    let window = match object.window.as_deref() {
        None => None,
        Some(w) => Some(Window(Duration::parse(w).map_err(|e| {
            (
                "window".to_string(),
                format!(
                    "found {}, expected a duration: {e}",
                    crate::error::quoted(w)
                ),
            )
        })?)),
    };
    let containers = (object.containers.iter())
        .enumerate()
        .map(|(j, c)| {
            let usage = match &c.usage {
                None => None,
                Some(json) => Some(
                    super::pods::resource_map(json)
                        .map_err(|(name, m)| (format!("containers[{j}].usage.{name}"), m))?,
                ),
            };
            Ok(RawContainer {
                name: c.name.as_deref().map(Cow::Borrowed),
                usage,
            })
        })
        .collect::<Result<Vec<_>, (String, String)>>()?;
    Ok(RawItem {
        kind: None,
        metadata: Some(ObjectMeta::of_dump_metrics(&object.metadata)),
        timestamp: super::pods::time(object.timestamp.as_deref())
            .map_err(|m| ("timestamp".to_string(), m))?,
        window,
        containers: Some(containers),
    })
}

/// Keeps the items `each` hands over that the scope selects, each once, and says what was left
/// out.
fn keep_items(
    file: &str,
    scope: &Scope,
    excluded: &HashSet<String>,
    from_top: bool,
    each: impl FnOnce(&mut dyn FnMut(Item) -> Result<(), InputError>) -> Result<(), InputError>,
) -> Result<CapturedMetrics, InputError> {
    let mut out = CapturedMetrics {
        from_top,
        ..CapturedMetrics::default()
    };
    let mut other_namespaces: Vec<String> = Vec::new();
    let mut seen: HashSet<String, foldhash::fast::RandomState> = HashSet::default();
    let mut left_out = 0usize;
    // Each item is kept or dropped as soon as it is read: only the kept samples accumulate.
    let mut keep = |item: Item| -> Result<(), InputError> {
        if !scope.in_namespace(item.namespace.as_deref()) {
            let ns = item.namespace.unwrap_or_default();
            if !other_namespaces.contains(&ns) {
                other_namespaces.push(ns);
            }
            return Ok(());
        }
        if let Some(selector) = &scope.selector {
            let kept = match &item.labels {
                Some(labels) if !labels.is_empty() => selector.matches_pairs(labels.as_slice()),
                _ => !excluded.contains(&item.sample.pod),
            };
            if !kept {
                left_out += 1;
                return Ok(());
            }
        }
        if !seen.insert(item.sample.pod.clone()) {
            return Err(InputError::new(
                file,
                format!(
                    "found metrics for the pod \"{}\" twice, expected one item per pod",
                    item.sample.pod
                ),
            )
            .field(item.path.to_string()));
        }
        out.samples.push(item.sample);
        Ok(())
    };
    each(&mut keep)?;
    if out.samples.is_empty() && !other_namespaces.is_empty() {
        return Err(InputError::new(
            file,
            format!(
                "found only metrics of namespace {}, expected metrics of the HPA's namespace {}",
                name_list(&other_namespaces, 3),
                scope.namespace
            ),
        )
        .field("metadata.namespace"));
    }
    if !other_namespaces.is_empty() {
        out.notes.push(format!(
            "{file}: metrics of namespace {} were left out (the HPA is in {}).",
            name_list(&other_namespaces, 3),
            scope.namespace
        ));
    }
    if left_out > 0
        && let Some(selector) = &scope.selector
    {
        out.notes.push(format!(
            "{file}: {left_out} metrics item(s) do not match the selector {selector} and were left out."
        ));
    }
    if from_top {
        out.warnings.push(format!(
            "{file}: kubectl top prints memory in whole Mi (truncated) and cpu in whole millicores; \
             the API's exact values may give a different answer"
        ));
        out.notes.push(format!(
            "{file} is kubectl top text: it has no sample times; each sample is taken at the \
             evaluation time with the --metrics-window window, and memory is truncated to whole Mi."
        ));
        let per_pod = out
            .samples
            .iter()
            .any(|s| s.containers.iter().any(|c| c.name.is_empty()));
        if per_pod {
            // The controller rounds each container's usage up to a millicore and sums them
            // (`getPodMetrics`, rest_metrics_client.go); a per-pod row is the exact sum rounded
            // up once.
            out.warnings.push(format!(
                "{file} has one row per pod (kubectl top without --containers): each is the pod's \
                 exact cpu rounded up once, while the controller rounds each container up and \
                 sums, so a pod of N containers reads up to N-1 millicores low (kubectl top pods \
                 --containers gives the controller's figures); a ContainerResource metric finds \
                 no container in it"
            ));
        }
    }
    Ok(out)
}

/// A small document of kind `Status`: the API's answer instead of a list.
pub(crate) fn api_status(
    file: &str,
    text: &str,
    format: Format,
) -> Result<Option<String>, InputError> {
    #[derive(Deserialize)]
    struct Status {
        #[serde(default)]
        kind: Option<String>,
        #[serde(default)]
        message: Option<String>,
    }
    if format == Format::Text || text.len() > 64 * 1024 || !text.contains("Status") {
        return Ok(None);
    }
    let Ok(docs) = decode::<Status>(file, text, format) else {
        return Ok(None);
    };
    match docs.as_slice() {
        [one] if one.kind.as_deref() == Some("Status") => match &one.message {
            Some(m) if !m.is_empty() => Ok(Some(m.clone())),
            _ => Err(InputError::new(
                file,
                "found a Status without a message, expected the API's error message",
            )
            .field("message")),
        },
        _ => Ok(None),
    }
}

/// Hands each item of an API answer to `each` as it is converted (none is held beside the others).
fn each_api_item(
    file: &str,
    text: &str,
    format: Format,
    each: &mut dyn FnMut(Item) -> Result<(), InputError>,
) -> Result<(), InputError> {
    let docs: Vec<Document<'_>> = decode(file, text, format)?;
    for (d, doc) in docs.into_iter().enumerate() {
        let prefix = if d == 0 {
            String::new()
        } else {
            format!("(document {}) ", d + 1)
        };
        let kind = doc.kind.as_deref().unwrap_or("");
        match (kind, doc.items) {
            ("" | "List" | "PodMetricsList", Some(list)) => {
                for (i, raw) in list.into_iter().enumerate() {
                    // A pod list given to --metrics: its items are Pods, not PodMetrics.
                    if let Some(k) = raw.kind.as_deref().filter(|k| *k != "PodMetrics") {
                        return Err(InputError::new(
                            file,
                            format!(
                                "found kind {}, expected {KINDS}",
                                crate::error::quoted_bare(k)
                            ),
                        )
                        .field(format!("{prefix}items[{i}].kind")));
                    }
                    let path = ItemPath::Text(format!("{prefix}items[{i}]"));
                    each(to_item(file, path, raw)?)?;
                }
            }
            ("PodMetrics", _) => {
                let path = ItemPath::Text(prefix.trim_end().to_string());
                each(to_item(file, path, doc.single)?)?;
            }
            ("", None) if doc.single.metadata.is_none() && doc.single.containers.is_none() => {}
            (other, _) => {
                let found = if other.is_empty() {
                    "an object without kind or items".to_string()
                } else {
                    format!("kind {other}")
                };
                return Err(
                    InputError::new(file, format!("found {found}, expected {KINDS}"))
                        .field(format!("{prefix}kind").trim().to_string()),
                );
            }
        }
    }
    Ok(())
}

fn to_item(file: &str, path: ItemPath, raw: RawItem<'_>) -> Result<Item, InputError> {
    let meta = raw.metadata.unwrap_or_default();
    let Some(name) = meta.name.filter(|n| !n.is_empty()) else {
        return Err(
            InputError::new(file, "found nothing, expected the pod's name").field(
                format!("{path}.metadata.name")
                    .trim_start_matches('.')
                    .to_string(),
            ),
        );
    };
    let containers: Vec<ContainerMetrics> = raw
        .containers
        .unwrap_or_default()
        .into_iter()
        .map(|c| ContainerMetrics {
            name: c.name.map(Cow::into_owned).unwrap_or_default(),
            usage: c.usage.map(|u| u.0).unwrap_or_default(),
        })
        .collect();
    // The metrics server reports each container once; a repeated one would count its usage twice.
    // (The few names of a pod are compared, not hashed.)
    for (j, c) in containers.iter().enumerate() {
        if containers
            .get(..j)
            .unwrap_or_default()
            .iter()
            .any(|k| k.name == c.name)
        {
            return Err(InputError::new(
                file,
                format!(
                    "found a second container named {}, expected each container once \
                     (its usage would count twice)",
                    crate::error::quoted(&c.name)
                ),
            )
            .field(
                format!("{path}.containers[{j}].name")
                    .trim_start_matches('.')
                    .to_string(),
            ));
        }
    }
    Ok(Item {
        path,
        namespace: meta.namespace.map(Str::into_owned),
        labels: meta.labels.map(|l| {
            l.0.into_iter()
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect()
        }),
        sample: Sample {
            pod: name.into_owned(),
            timestamp: raw.timestamp.map(|t| t.0),
            window: raw.window.map(|w| w.0),
            containers,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::selector::Selector;
    use crate::scenario::Resources;

    fn scope(selector: Option<&str>) -> Scope {
        Scope {
            namespace: "shop".into(),
            selector: selector.map(|s| Selector::parse(s).unwrap()),
            selector_is_targets: false,
        }
    }

    const LIST: &str = r#"{"kind":"PodMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},"items":[
      {"metadata":{"name":"web-1","namespace":"shop","labels":{"app":"web"}},"timestamp":"2026-11-29T15:00:00Z","window":"15.038s",
       "containers":[{"name":"app","usage":{"cpu":"399999001n","memory":"300Mi"}},{"name":"istio-proxy","usage":{"cpu":"40m","memory":"60Mi"}}]},
      {"metadata":{"name":"worker-1","namespace":"shop","labels":{"app":"worker"}},"timestamp":"2026-11-29T15:00:05Z","window":"15s",
       "containers":[{"name":"app","usage":{"cpu":"1","memory":"1Gi"}}]},
      {"metadata":{"name":"web-9","namespace":"prod"},"timestamp":"2026-11-29T15:00:09Z","window":"15s","containers":[]}
    ]}"#;

    #[test]
    fn a_status_answer_is_the_apis_error() {
        let status = r#"{"kind":"Status","apiVersion":"v1","status":"Failure","code":503,
            "message":"the server is currently unable to handle the request (get pods.metrics.k8s.io)"}"#;
        let m = parse(
            "m.json",
            status,
            Format::Json,
            &scope(None),
            &HashSet::new(),
        )
        .unwrap();
        assert!(m.samples.is_empty());
        assert_eq!(
            m.api_error.as_deref(),
            Some("the server is currently unable to handle the request (get pods.metrics.k8s.io)")
        );
        let err = parse(
            "m.json",
            r#"{"kind":"Status"}"#,
            Format::Json,
            &scope(None),
            &HashSet::new(),
        )
        .unwrap_err();
        assert_eq!(err.field.as_deref(), Some("message"));
        let list = parse("m.json", LIST, Format::Json, &scope(None), &HashSet::new()).unwrap();
        assert_eq!(list.api_error, None);
    }

    #[test]
    fn a_pod_metrics_list_gives_one_item_per_pod_with_its_time_and_window() {
        let m = parse("m.json", LIST, Format::Json, &scope(None), &HashSet::new()).unwrap();
        assert_eq!(m.samples.len(), 2, "the prod item is left out");
        let web = &m.samples[0];
        assert_eq!(web.pod, "web-1");
        assert_eq!(web.window, Some(Duration(15_038)));
        assert_eq!(
            web.containers[0].usage,
            Resources(vec![
                ("cpu".into(), 400),
                ("memory".into(), 314_572_800_000)
            ])
        );
        assert_eq!(
            m.newest(),
            Timestamp::parse_rfc3339("2026-11-29T15:00:05Z"),
            "items of other namespaces do not count"
        );
        assert!(m.notes[0].contains("metrics of namespace prod were left out"));
        assert!(!m.from_top);
    }

    #[test]
    fn the_selector_uses_the_items_labels_or_else_the_pod_file() {
        let m = parse(
            "m.json",
            LIST,
            Format::Json,
            &scope(Some("app=web")),
            &HashSet::new(),
        )
        .unwrap();
        let pods: Vec<_> = m.samples.iter().map(|s| s.pod.as_str()).collect();
        assert_eq!(pods, ["web-1"]);
        let unlabelled = LIST.replace(r#","labels":{"app":"worker"}"#, "");
        let excluded: HashSet<String> = ["worker-1".to_string()].into();
        let kept = parse(
            "m.json",
            &unlabelled,
            Format::Json,
            &scope(Some("app=web")),
            &HashSet::new(),
        )
        .unwrap();
        assert_eq!(
            kept.samples.len(),
            2,
            "no labels and not in the pod file: kept"
        );
        let dropped = parse(
            "m.json",
            &unlabelled,
            Format::Json,
            &scope(Some("app=web")),
            &excluded,
        )
        .unwrap();
        assert_eq!(
            dropped.samples.len(),
            1,
            "no labels, left out of the pod file: dropped"
        );
    }

    #[test]
    fn missing_times_and_windows_take_the_defaults() {
        let yaml = "kind: PodMetrics\nmetadata:\n  name: web-1\ncontainers:\n- name: app\n  usage:\n    cpu: 250m\n";
        let m = parse("m.yaml", yaml, Format::Yaml, &scope(None), &HashSet::new()).unwrap();
        let items = m.into_pod_metrics(Timestamp(5000), Duration::from_secs(30));
        assert_eq!(items[0].timestamp, Timestamp(5000));
        assert_eq!(items[0].window, Duration::from_secs(30));
        assert_eq!(items[0].containers[0].usage.get("cpu"), Some(250));
    }

    #[test]
    fn bad_metrics_files_are_errors_naming_the_place() {
        let cases: &[(&str, &str, Option<&str>)] = &[
            (
                r#"{"kind":"PodList","items":[]}"#,
                "found kind PodList, expected a PodMetricsList",
                Some("kind"),
            ),
            (
                r#"{"items":[{"metadata":{}}]}"#,
                "found nothing, expected the pod's name",
                Some("items[0].metadata.name"),
            ),
            (
                r#"{"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"a"}}]}"#,
                "found metrics for the pod \"a\" twice",
                Some("items[1]"),
            ),
            (
                r#"{"items":[{"metadata":{"name":"a","namespace":"prod"}}]}"#,
                "found only metrics of namespace prod, expected metrics of the HPA's namespace shop",
                Some("metadata.namespace"),
            ),
            (
                r#"{"items":[{"metadata":{"name":"a"},"window":"soon"}]}"#,
                "found \"soon\", expected a duration",
                Some("items[0].window"),
            ),
        ];
        for &(text, message, field) in cases {
            let err =
                parse("m.json", text, Format::Json, &scope(None), &HashSet::new()).unwrap_err();
            assert!(err.message.starts_with(message), "{text}: {err}");
            assert_eq!(err.field.as_deref(), field, "{text}: {err}");
        }
    }
}
