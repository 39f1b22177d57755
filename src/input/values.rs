//! The values the metrics APIs would answer for Object and External metrics, which no samples file
//! holds: from `--metric-value NAME=QUANTITY`, else from the HPA's `status.currentMetrics` (the
//! value the controller saw at its last sync). Resource and Pods samples pass through unchanged.
//!
//! The status is used only where it holds the metric's total (`current.value`). For an
//! `AverageValue` target the controller stores `ceil(total / status.replicas)` instead
//! (`GetObjectPerPodMetricReplicas`, `GetExternalPerPodMetricReplicas`), which cannot give the
//! total back, so such a metric needs the flag.

use std::collections::BTreeMap;

use crate::error::{InputError, UsageError};
use crate::input::manifest::{CurrentMetric, HpaStatus};
use crate::quantity::parse_milli;
use crate::scenario::{MetricIdentifier, MetricSpec, MetricValues, PodMetricValue, PodMetrics};

/// The flag named in messages.
const FLAG: &str = "--metric-value";

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Resolved {
    pub values: MetricValues,
    /// Substitutions worth saying in the output ("qps: value taken from status.currentMetrics").
    pub notes: Vec<String>,
}

/// Object and External values read from the metrics APIs' answers (`--custom-metrics`,
/// `--external-metrics`), keyed by the metric's position in `spec.metrics`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FromFiles {
    pub object: BTreeMap<usize, i64>,
    pub external: BTreeMap<usize, Vec<i64>>,
    /// `--custom-metrics` was given: an Object metric it has no item for got an empty answer.
    pub custom_answered: bool,
    /// `--external-metrics` was given: an External metric it has no item for got an empty answer.
    pub external_answered: bool,
}

/// Builds every metric value the calculation needs. `flags` are the `--metric-value` arguments,
/// one `NAME=QUANTITY` each, NAME being an Object or External metric's `metric.name`; a name may be
/// given once. An External metric given by flag is a single value (the controller sums the list).
/// A flag wins over `files`, which win over the status. `approximate` is the replica count of an
/// answer from the status alone: then a status `averageValue` times it stands for the total.
pub fn resolve(
    specs: &[MetricSpec],
    flags: &[String],
    status: &HpaStatus,
    resource: Vec<PodMetrics>,
    pods: BTreeMap<usize, Vec<PodMetricValue>>,
    files: &FromFiles,
    approximate: Option<i32>,
) -> anyhow::Result<Resolved> {
    let given = parse_flags(flags)?;
    let mut takes_value: Vec<&str> = Vec::new();
    for spec in specs.iter().filter(|s| s.is_object_or_external()) {
        if !takes_value.contains(&spec.metric_name()) {
            takes_value.push(spec.metric_name());
        }
    }
    if let Some((unknown, _)) = given.keys().find(|(name, _)| !takes_value.contains(name)) {
        let expected = if takes_value.is_empty() {
            "no --metric-value: the HPA has no Object or External metric".to_string()
        } else {
            format!(
                "the name of an Object or External metric of the HPA: {}",
                crate::error::name_list(&takes_value, crate::error::LIST_NAMES)
            )
        };
        return Err(InputError::new(
            FLAG,
            format!(
                "found {}, expected {expected}",
                crate::error::quoted(unknown)
            ),
        )
        .into());
    }

    check_selectors(specs, &given)?;
    let mut resolved = Resolved {
        values: MetricValues {
            resource: resource.into(),
            pods,
            ..MetricValues::default()
        },
        notes: Vec::new(),
    };
    for (index, spec) in specs.iter().enumerate() {
        let (is_object, metric) = match spec {
            MetricSpec::Object { metric, .. } => (true, metric),
            MetricSpec::External { metric, .. } => (false, metric),
            _ => continue,
        };
        let name = &metric.name;
        let kind = spec.type_name();
        let flag = flag_for(&given, metric);
        if flag.is_none() {
            if is_object && let Some(&value) = files.object.get(&index) {
                resolved.values.object.insert(index, value);
                continue;
            }
            if !is_object && let Some(values) = files.external.get(&index) {
                resolved.values.external.insert(index, values.clone());
                continue;
            }
            // An answer without an item for the metric is what the controller sees as a failed
            // metric (`GetObjectMetric`, `GetExternalMetric` in metrics/client.go): no value.
            let (answered, flag, api) = if is_object {
                (files.custom_answered, "--custom-metrics", "custom")
            } else {
                (files.external_answered, "--external-metrics", "external")
            };
            if answered {
                resolved.notes.push(format!(
                    "{kind} metric {name}: no item in {flag}: the {api} metrics API answers \
                     nothing for it, a failed metric (pass --metric-value {name}=QUANTITY if the \
                     capture missed it)."
                ));
                continue;
            }
        }
        // The controller writes status.currentMetrics in spec.metrics' order
        // (computeReplicasForMetrics, horizontal.go): this entry's status is the same-numbered
        // one among those of its type and name.
        let entry = StatusEntry {
            kind,
            name,
            nth: (specs.iter().take(index))
                .filter(|s| s.type_name() == kind && s.metric_name() == name.as_str())
                .count(),
        };
        // No status entry of its own, but an earlier entry asks the metrics API the same
        // question (GetObjectMetric, GetExternalMetric take the name, selector and object, not
        // the target): the same answer.
        if flag.is_none()
            && entry.find(status).is_none()
            && let Some(j) = (specs.iter().take(index)).position(|e| same_question(e, spec))
        {
            if let Some(&v) = resolved.values.object.get(&j) {
                resolved.values.object.insert(index, v);
            }
            if let Some(v) = resolved.values.external.get(&j).cloned() {
                resolved.values.external.insert(index, v);
            }
            continue;
        }
        let value = match flag {
            Some(value) => value,
            None => match status_value(status, &entry, approximate, &mut resolved.notes)? {
                Some(value) => value,
                None => continue,
            },
        };
        if is_object {
            resolved.values.object.insert(index, value);
        } else {
            resolved.values.external.insert(index, vec![value]);
        }
    }
    Ok(resolved)
}

/// A metric no flag or file gives, from the status: its total (or, for an answer from the status
/// alone, its average times `approximate` replicas), or `None` for a failed metric the status
/// says the controller could not get. Each choice is said in `notes`.
fn status_value(
    status: &HpaStatus,
    entry: &StatusEntry<'_>,
    approximate: Option<i32>,
    notes: &mut Vec<String>,
) -> anyhow::Result<Option<i64>> {
    let (kind, name) = (entry.kind, entry.name);
    let total = from_status(status, entry);
    // The status says the controller could not get it: its failed metric, an answer.
    if total.is_err()
        && let Some(evidence) = failed_in_status(status, entry)
    {
        notes.push(format!(
            "{kind} metric {name}: no value, and {evidence}: the controller's failed metric, as \
             at its last sync (pass --metric-value {name}=QUANTITY to compute it with a value)."
        ));
        return Ok(None);
    }
    let value = match (total, approximate) {
        (Ok(value), _) => value,
        (Err(e), Some(replicas)) => {
            let Some(average) = status_average(status, entry) else {
                return Err(e.into());
            };
            notes.push(format!(
                "{kind} metric {name}: total approximated as status.currentMetrics averageValue \
                 × {replicas} replicas (the status rounds the per-pod average up)."
            ));
            average.saturating_mul(i64::from(replicas))
        }
        (Err(e), None) => return Err(e.into()),
    };
    notes.push(format!(
        "{kind} metric {name}: value taken from status.currentMetrics (the value at the last sync)"
    ));
    Ok(Some(value))
}

/// One `--metric-value` key: the metric's name, and the `matchLabels` of the entry it names
/// (`NAME{KEY=VALUE,...}`), if it names one.
pub(crate) type FlagKey<'a> = (&'a str, Option<BTreeMap<String, String>>);

/// The `--metric-value` flags, `NAME=QUANTITY` or `NAME{KEY=VALUE,...}=QUANTITY`, each key once.
pub(crate) fn parse_flags(flags: &[String]) -> Result<BTreeMap<FlagKey<'_>, i64>, InputError> {
    let mut given = BTreeMap::new();
    for flag in flags {
        let bad = || {
            InputError::new(
                FLAG,
                format!(
                    "found {}, expected NAME=QUANTITY or NAME{{KEY=VALUE,...}}=QUANTITY",
                    crate::error::quoted(flag)
                ),
            )
        };
        // A selector's `=` is inside its braces: the quantity follows the closing one.
        let split = match flag.find('{') {
            Some(open) => (flag[open..].find('}').map(|c| c + open))
                .and_then(|close| Some((&flag[..=close], flag[close + 1..].strip_prefix('=')?))),
            None => flag.split_once('='),
        };
        let Some((key, quantity)) = split
            .map(|(n, q)| (n.trim(), q.trim()))
            .filter(|(n, _)| !n.is_empty() && !n.starts_with('{'))
        else {
            return Err(bad());
        };
        let (name, selector) = match key.split_once('{') {
            Some((name, labels)) => {
                let labels = labels.strip_suffix('}').ok_or_else(bad)?;
                (name.trim(), Some(match_labels(labels).ok_or_else(bad)?))
            }
            None => (key, None),
        };
        let value =
            parse_milli(quantity).map_err(|e| InputError::new(FLAG, e.to_string()).field(key))?;
        if given.insert((name, selector), value).is_some() {
            return Err(InputError::new(
                FLAG,
                format!("found a second value for {key}, expected one value per metric"),
            )
            .field(key));
        }
    }
    Ok(given)
}

/// `KEY=VALUE,...` as `matchLabels`; `None` for a pair without `=` or an empty key.
fn match_labels(text: &str) -> Option<BTreeMap<String, String>> {
    let mut labels = BTreeMap::new();
    for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=')?;
        let k = k.trim();
        if k.is_empty() {
            return None;
        }
        labels.insert(k.to_string(), v.trim().to_string());
    }
    Some(labels)
}

/// The flag's value for an entry: the one naming its selector, else the one naming only its
/// name (every entry of that name).
fn flag_for(given: &BTreeMap<FlagKey<'_>, i64>, metric: &MetricIdentifier) -> Option<i64> {
    let own = metric.selector.clone().unwrap_or_default();
    (given.get(&(metric.name.as_str(), Some(own))))
        .or_else(|| given.get(&(metric.name.as_str(), None)))
        .copied()
}

/// Every flag that names a selector names one of an Object or External entry of its name.
fn check_selectors(
    specs: &[MetricSpec],
    given: &BTreeMap<FlagKey<'_>, i64>,
) -> Result<(), InputError> {
    let selectors = |name: &str| -> Vec<BTreeMap<String, String>> {
        (specs.iter())
            .filter_map(|s| match s {
                MetricSpec::Object { metric, .. } | MetricSpec::External { metric, .. }
                    if metric.name == name =>
                {
                    Some(metric.selector.clone().unwrap_or_default())
                }
                _ => None,
            })
            .collect()
    };
    for (name, selector) in given.keys() {
        let Some(selector) = selector else { continue };
        let known = selectors(name);
        if !known.contains(selector) {
            let show = |l: &BTreeMap<String, String>| {
                let pairs: Vec<String> = l.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!("{name}{{{}}}", pairs.join(","))
            };
            let listed: Vec<String> = known.iter().map(show).collect();
            return Err(InputError::new(
                FLAG,
                format!(
                    "found {}, expected the metric selector of an entry of {name}: {}",
                    show(selector),
                    listed.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// Whether two entries ask the metrics API the same question: one type, one metric identifier
/// (name and selector) and, for Object, one described object.
fn same_question(a: &MetricSpec, b: &MetricSpec) -> bool {
    match (a, b) {
        (MetricSpec::External { metric: m, .. }, MetricSpec::External { metric: n, .. }) => m == n,
        (
            MetricSpec::Object {
                described_object: d,
                metric: m,
                ..
            },
            MetricSpec::Object {
                described_object: e,
                metric: n,
                ..
            },
        ) => d == e && m == n,
        _ => false,
    }
}

/// One metric's place in `status.currentMetrics`: the `nth` entry of its type and name.
struct StatusEntry<'a> {
    kind: &'a str,
    name: &'a str,
    nth: usize,
}

impl StatusEntry<'_> {
    fn find<'s>(&self, status: &'s HpaStatus) -> Option<&'s CurrentMetric> {
        (status.current_metrics.iter())
            .filter(|m| m.metric_type == self.kind && m.name == self.name)
            .nth(self.nth)
    }
}

/// The metric's per-pod average from `status.currentMetrics`.
fn status_average(status: &HpaStatus, entry: &StatusEntry<'_>) -> Option<i64> {
    entry.find(status).and_then(|m| m.average_value_milli)
}

/// Why the status says the controller failed to get the metric: a `currentMetrics` entry for it
/// without a value (kubectl's `<unknown>`), or `ScalingActive=False FailedGet<Kind>Metric`.
fn failed_in_status(status: &HpaStatus, entry: &StatusEntry<'_>) -> Option<String> {
    // An entry of its own with a value is not the failed one the condition names.
    let own = entry.find(status);
    if own.is_some_and(|m| m.value_milli.is_some() || m.average_value_milli.is_some()) {
        return None;
    }
    let failed_reason = format!("FailedGet{}Metric", entry.kind);
    let condition = (status.conditions.iter()).find(|c| {
        c.condition_type == "ScalingActive" && c.status == "False" && c.reason == failed_reason
    });
    if let Some(c) = condition {
        return Some(format!(
            "the status says ScalingActive=False {}: {}",
            c.reason,
            crate::error::cut(&c.message, crate::error::MAX_MESSAGE_CHARS)
        ));
    }
    let unknown = own.is_some_and(|m| {
        m.value_milli.is_none()
            && m.average_value_milli.is_none()
            && m.average_utilization.is_none()
    });
    unknown.then(|| "the status has no value for it (kubectl shows <unknown>)".to_string())
}

/// The metric's total from `status.currentMetrics`, when the status holds it; else what is
/// missing, a usage error naming the flag that gives it.
fn from_status(status: &HpaStatus, entry: &StatusEntry<'_>) -> Result<i64, UsageError> {
    let (kind, name) = (entry.kind, entry.name);
    match entry
        .find(status)
        .map(|m| (m.value_milli, m.average_value_milli))
    {
        Some((Some(value), _)) => Ok(value),
        Some((None, Some(_))) => Err(UsageError(format!(
            "{FLAG}: found only an averageValue for {kind} metric {name} in \
             status.currentMetrics (the total divided by the replica count, rounded up, which \
             cannot give the total back), expected {FLAG} {name}=QUANTITY with the metric's total"
        ))),
        _ => Err(UsageError(format!(
            "{FLAG}: found no value for {kind} metric {name} (none in status.currentMetrics), \
             expected {FLAG} {name}=QUANTITY"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::manifest::CurrentMetric;
    use crate::scenario::{MetricIdentifier, MetricTarget, ObjectReference, TargetType};
    use crate::time::{Duration, Timestamp};

    fn target(target_type: TargetType) -> MetricTarget {
        MetricTarget {
            target_type,
            average_utilization: None,
            average_value_milli: (target_type == TargetType::AverageValue).then_some(1000),
            value_milli: (target_type == TargetType::Value).then_some(1000),
        }
    }

    fn id(name: &str) -> MetricIdentifier {
        MetricIdentifier {
            name: name.to_string(),
            selector: None,
        }
    }

    fn object(name: &str, target_type: TargetType) -> MetricSpec {
        MetricSpec::Object {
            described_object: ObjectReference {
                api_version: "networking.k8s.io/v1".to_string(),
                kind: "Ingress".to_string(),
                name: "main".to_string(),
            },
            metric: id(name),
            target: target(target_type),
        }
    }

    fn external(name: &str, target_type: TargetType) -> MetricSpec {
        MetricSpec::External {
            metric: id(name),
            target: target(target_type),
        }
    }

    fn pods(name: &str) -> MetricSpec {
        MetricSpec::Pods {
            metric: id(name),
            target: target(TargetType::AverageValue),
        }
    }

    fn status(entries: &[(&str, &str, Option<i64>, Option<i64>)]) -> HpaStatus {
        HpaStatus {
            current_metrics: entries
                .iter()
                .map(|&(metric_type, name, value, average)| CurrentMetric {
                    metric_type: metric_type.to_string(),
                    name: name.to_string(),
                    value_milli: value,
                    average_value_milli: average,
                    average_utilization: None,
                })
                .collect(),
            ..HpaStatus::default()
        }
    }

    fn flags(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn run(specs: &[MetricSpec], f: &[&str], st: &HpaStatus) -> anyhow::Result<Resolved> {
        resolve(
            specs,
            &flags(f),
            st,
            Vec::new(),
            BTreeMap::new(),
            &FromFiles::default(),
            None,
        )
    }

    #[test]
    fn flags_give_object_values_and_single_external_values() {
        let specs = [
            object("requests-per-second", TargetType::Value),
            external("queue_messages_ready", TargetType::AverageValue),
        ];
        let r = run(
            &specs,
            &["requests-per-second=2k", " queue_messages_ready = 30 "],
            &HpaStatus::default(),
        )
        .unwrap();
        assert_eq!(r.values.object[&0], 2_000_000);
        assert_eq!(r.values.external[&1], vec![30_000]);
        assert!(r.notes.is_empty());
    }

    #[test]
    fn a_flag_wins_over_the_status() {
        let specs = [object("rps", TargetType::Value)];
        let st = status(&[("Object", "rps", Some(5000), None)]);
        let r = run(&specs, &["rps=7"], &st).unwrap();
        assert_eq!(r.values.object[&0], 7000);
        assert!(r.notes.is_empty());
    }

    #[test]
    fn without_a_flag_the_status_total_is_used_and_noted() {
        let specs = [
            object("rps", TargetType::Value),
            external("queue", TargetType::Value),
            // The same question twice, with one status entry: one value and one note.
            external("queue", TargetType::Value),
        ];
        let st = status(&[
            ("Pods", "rps", Some(1), None),
            ("Object", "rps", Some(5000), None),
            ("External", "queue", Some(42_000), Some(7000)),
        ]);
        let r = run(&specs, &[], &st).unwrap();
        assert_eq!(r.values.object[&0], 5000);
        assert_eq!(r.values.external[&1], vec![42_000]);
        assert_eq!(r.values.external[&2], vec![42_000]);
        assert_eq!(
            r.notes,
            [
                "Object metric rps: value taken from status.currentMetrics (the value at the \
                 last sync)",
                "External metric queue: value taken from status.currentMetrics (the value at \
                 the last sync)",
            ]
        );
    }

    #[test]
    fn files_win_over_the_status_and_flags_win_over_files() {
        let specs = [
            object("rps", TargetType::Value),
            external("queue", TargetType::Value),
        ];
        let st = status(&[
            ("Object", "rps", Some(5000), None),
            ("External", "queue", Some(42_000), None),
        ]);
        let files = FromFiles {
            object: [(0, 6000)].into(),
            external: [(1, vec![1000, 2000])].into(),
            ..FromFiles::default()
        };
        let r = resolve(&specs, &[], &st, Vec::new(), BTreeMap::new(), &files, None).unwrap();
        assert_eq!(r.values.object[&0], 6000);
        assert_eq!(r.values.external[&1], vec![1000, 2000]);
        assert!(r.notes.is_empty(), "{:?}", r.notes);
        let flags = flags(&["queue=9"]);
        let r = resolve(
            &specs,
            &flags,
            &st,
            Vec::new(),
            BTreeMap::new(),
            &files,
            None,
        )
        .unwrap();
        assert_eq!(r.values.external[&1], vec![9000]);
    }

    #[test]
    fn an_answer_without_an_item_for_the_metric_is_no_value() {
        let specs = [
            object("rps", TargetType::AverageValue),
            external("queue", TargetType::Value),
        ];
        // The status has values, but the APIs answered: their answer wins, and it is empty.
        let st = status(&[
            ("Object", "rps", Some(5000), None),
            ("External", "queue", Some(42_000), None),
        ]);
        let files = FromFiles {
            custom_answered: true,
            external_answered: true,
            ..FromFiles::default()
        };
        let r = resolve(&specs, &[], &st, Vec::new(), BTreeMap::new(), &files, None).unwrap();
        assert!(r.values.object.is_empty() && r.values.external.is_empty());
        assert_eq!(
            r.notes,
            [
                "Object metric rps: no item in --custom-metrics: the custom metrics API answers \
                 nothing for it, a failed metric (pass --metric-value rps=QUANTITY if the \
                 capture missed it).",
                "External metric queue: no item in --external-metrics: the external metrics API \
                 answers nothing for it, a failed metric (pass --metric-value queue=QUANTITY if \
                 the capture missed it)."
            ]
        );
        // A flag still wins.
        let flags = flags(&["rps=3"]);
        let r = resolve(
            &specs,
            &flags,
            &st,
            Vec::new(),
            BTreeMap::new(),
            &files,
            None,
        )
        .unwrap();
        assert_eq!(r.values.object[&0], 3000);
    }

    #[test]
    fn an_approximation_turns_a_status_average_into_a_total() {
        let spec = external("queue", TargetType::AverageValue);
        let st = status(&[("External", "queue", None, Some(250))]);
        let files = FromFiles::default();
        let r = resolve(
            &[spec],
            &[],
            &st,
            Vec::new(),
            BTreeMap::new(),
            &files,
            Some(4),
        )
        .unwrap();
        assert_eq!(r.values.external[&0], vec![1000]);
        assert!(
            r.notes[0].contains("averageValue × 4 replicas"),
            "{:?}",
            r.notes
        );
    }

    #[test]
    fn a_status_with_only_the_average_cannot_give_the_total() {
        for spec in [
            object("rps", TargetType::AverageValue),
            external("rps", TargetType::AverageValue),
        ] {
            let kind = spec.type_name();
            let st = status(&[(kind, "rps", None, Some(250))]);
            let err = run(&[spec], &[], &st).unwrap_err();
            let missing = &err.downcast_ref::<UsageError>().expect("a usage error").0;
            assert!(
                missing.starts_with(&format!(
                    "--metric-value: found only an averageValue for {kind} metric rps in \
                     status.currentMetrics"
                )),
                "{missing}"
            );
            assert!(
                missing.ends_with("expected --metric-value rps=QUANTITY with the metric's total"),
                "{missing}"
            );
        }
    }

    #[test]
    fn a_metric_with_no_flag_and_no_status_is_an_error() {
        let st = status(&[("Object", "other", Some(1), None)]);
        let err = run(&[external("queue", TargetType::Value)], &[], &st).unwrap_err();
        assert_eq!(
            err.downcast_ref::<UsageError>().expect("a usage error").0,
            "--metric-value: found no value for External metric queue (none in \
             status.currentMetrics), expected --metric-value queue=QUANTITY"
        );
    }

    // computeReplicasForMetrics (horizontal.go) writes status.currentMetrics[i] for
    // spec.metrics[i]: kubectl describe's `"queue_depth" (target value): <unknown> / 100` and
    // `"queue_depth" (target average value): 45 / 10` are two entries, each with its own value.
    #[test]
    fn same_name_entries_read_their_own_status_entry_and_unknown_does_not_borrow() {
        let specs = [
            external("queue_depth", TargetType::Value),
            external("queue_depth", TargetType::AverageValue),
        ];
        let st = status(&[
            ("External", "queue_depth", None, None),
            ("External", "queue_depth", None, Some(45_000)),
        ]);
        let r = resolve(
            &specs,
            &[],
            &st,
            Vec::new(),
            BTreeMap::new(),
            &FromFiles::default(),
            Some(6),
        )
        .unwrap();
        assert!(!r.values.external.contains_key(&0), "{:?}", r.values);
        assert_eq!(r.values.external[&1], vec![270_000]);
        assert!(
            r.notes[0].contains("kubectl shows <unknown>"),
            "{:?}",
            r.notes
        );
    }

    // GetObjectMetric and GetExternalMetric (metrics/client.go) are different calls: an Object
    // and an External metric of one name each read their own status entry.
    #[test]
    fn an_object_and_an_external_metric_of_one_name_keep_their_own_values() {
        let specs = [
            object("queue", TargetType::Value),
            external("queue", TargetType::Value),
        ];
        let st = status(&[
            ("Object", "queue", Some(5000), None),
            ("External", "queue", Some(42_000), None),
        ]);
        let r = run(&specs, &[], &st).unwrap();
        assert_eq!(r.values.object[&0], 5000);
        assert_eq!(r.values.external[&1], vec![42_000]);
    }

    #[test]
    fn a_status_entry_without_a_value_is_the_controllers_failed_metric() {
        // kubectl's `<unknown>`: the entry is there, its value is not.
        let st = status(&[("External", "queue", None, None)]);
        let r = run(&[external("queue", TargetType::Value)], &[], &st).unwrap();
        assert!(!r.values.external.contains_key(&0));
        assert_eq!(
            r.notes[0],
            "External metric queue: no value, and the status has no value for it (kubectl shows \
             <unknown>): the controller's failed metric, as at its last sync (pass --metric-value \
             queue=QUANTITY to compute it with a value)."
        );
    }

    #[test]
    fn bad_flags_are_refused() {
        let specs = [
            object("rps", TargetType::Value),
            external("queue", TargetType::Value),
            pods("pps"),
        ];
        let cases: &[(&str, &[&str], Option<&str>, &str)] = &[
            (
                "no equals sign",
                &["rps"],
                None,
                "found \"rps\", expected NAME=QUANTITY",
            ),
            (
                "empty name",
                &["=5"],
                None,
                "found \"=5\", expected NAME=QUANTITY",
            ),
            ("bad quantity", &["rps=fast"], Some("rps"), "found \"fast\""),
            (
                "a name given twice",
                &["rps=1", "rps=2"],
                Some("rps"),
                "found a second value for rps, expected one value per metric",
            ),
            (
                "a name that takes no value",
                &["pps=5"],
                None,
                "found \"pps\", expected the name of an Object or External metric of the HPA: \
                 rps, queue",
            ),
        ];
        for &(rule, given, field, message) in cases {
            let err = run(&specs, given, &HpaStatus::default()).unwrap_err();
            let err = err.downcast_ref::<InputError>().expect("an input error");
            assert_eq!(err.file, "--metric-value", "{rule}");
            assert_eq!(err.field.as_deref(), field, "{rule}: {err}");
            assert!(err.message.starts_with(message), "{rule}: {err}");
        }
    }

    /// An External entry of `name` with the metric selector `queue=<q>`.
    fn external_for(name: &str, q: &str) -> MetricSpec {
        MetricSpec::External {
            metric: MetricIdentifier {
                name: name.to_string(),
                selector: Some([("queue".to_string(), q.to_string())].into()),
            },
            target: target(TargetType::Value),
        }
    }

    #[test]
    fn a_flag_naming_a_selector_gives_that_entry_its_value() {
        // Two External entries of one name, the controller asks each with its own selector:
        // a flag with the selector gives one its own value, a plain flag the rest.
        let specs = [external_for("depth", "jobs"), external_for("depth", "mail")];
        let r = run(
            &specs,
            &["depth{queue=mail}=7", "depth=30"],
            &HpaStatus::default(),
        )
        .unwrap();
        assert_eq!(r.values.external[&0], vec![30_000]);
        assert_eq!(r.values.external[&1], vec![7_000]);
        let r = run(
            &specs,
            &["depth{queue=jobs}=1", "depth{ queue = mail }=2"],
            &HpaStatus::default(),
        )
        .unwrap();
        assert_eq!(
            (r.values.external[&0][0], r.values.external[&1][0]),
            (1_000, 2_000)
        );
        // An entry without a selector is named by empty braces.
        let plain = [
            external("depth", TargetType::Value),
            external_for("depth", "mail"),
        ];
        let r = run(
            &plain,
            &["depth{}=3", "depth{queue=mail}=4"],
            &HpaStatus::default(),
        )
        .unwrap();
        assert_eq!(
            (r.values.external[&0][0], r.values.external[&1][0]),
            (3_000, 4_000)
        );
    }

    #[test]
    fn a_flag_naming_no_entrys_selector_is_refused() {
        let specs = [external_for("depth", "jobs"), external_for("depth", "mail")];
        for (given, message) in [
            (
                "depth{queue=web}=1",
                "found depth{queue=web}, expected the metric selector of an entry of depth: \
                 depth{queue=jobs}, depth{queue=mail}",
            ),
            (
                "depth{queue}=1",
                "found \"depth{queue}=1\", expected NAME=QUANTITY or NAME{KEY=VALUE,...}=QUANTITY",
            ),
            (
                "depth{queue=jobs=1",
                "found \"depth{queue=jobs=1\", expected NAME=QUANTITY or \
                 NAME{KEY=VALUE,...}=QUANTITY",
            ),
        ] {
            let err = run(&specs, &[given], &HpaStatus::default()).unwrap_err();
            let err = err.downcast_ref::<InputError>().expect("an input error");
            assert_eq!(err.message, message, "{given}");
        }
    }

    #[test]
    fn a_flag_for_an_hpa_without_object_or_external_metrics_is_refused() {
        let err = run(&[pods("pps")], &["rps=1"], &HpaStatus::default()).unwrap_err();
        assert_eq!(
            err.downcast_ref::<InputError>()
                .expect("an input error")
                .message,
            "found \"rps\", expected no --metric-value: the HPA has no Object or External metric"
        );
    }

    #[test]
    fn resource_and_pods_samples_pass_through() {
        let resource = vec![PodMetrics {
            pod: "web-1".to_string(),
            timestamp: Timestamp(0),
            window: Duration::from_secs(30),
            containers: Vec::new(),
        }];
        let mut pod_values = BTreeMap::new();
        pod_values.insert(
            0,
            vec![PodMetricValue {
                pod: "web-1".to_string(),
                value_milli: 5,
                timestamp: Timestamp(0),
                window: Duration::from_secs(60),
            }],
        );
        let r = resolve(
            &[pods("pps")],
            &[],
            &HpaStatus::default(),
            resource.clone(),
            pod_values.clone(),
            &FromFiles::default(),
            None,
        )
        .unwrap();
        assert_eq!(r.values.resource, resource.into());
        assert_eq!(r.values.pods, pod_values);
        assert!(r.values.object.is_empty() && r.values.external.is_empty());
    }
}
