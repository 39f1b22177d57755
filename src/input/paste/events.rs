//! HPA events as the controller's memory: `kubectl get events -o json|yaml` (core/v1 `Event` and
//! `EventList`, and events.k8s.io/v1 `Event`), and the Events section of `kubectl describe hpa`
//! (read by `describe.rs` into the same [`HpaEvent`]).
//!
//! The controller writes one event per rescale, `SuccessfulRescale` "New size: N; reason: R"
//! (`reconcileAutoscaler`, horizontal.go), and a Warning event for each failure
//! (`FailedGetResourceMetric`, `FailedComputeMetricsReplicas`, `FailedRescale`, ...). The first
//! become the scale events and recommendations that `--history` would give; the others become
//! diagnostics. The event recorder folds repeats of the same message into one event with a
//! `count` (core/v1) or a `series` (events.k8s.io/v1) and the first and last times.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Deserialize;

pub use super::event::{HpaEvent, kept};
use super::text::{Header, Interval, Row};
use crate::error::InputError;
use crate::input::kubectl::{Format, Time, decode};
use crate::report::{Diagnostic, Severity};
use crate::scenario::{
    BoundedRecommendation, ControllerMemory, HpaSpec, Recommendation, ScaleEvent,
};
use crate::time::{Duration, Timestamp};

/// The reason of the controller's rescale event.
pub const SUCCESSFUL_RESCALE: &str = "SuccessfulRescale";

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawList<'a> {
    #[serde(borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(default)]
    items: Option<Vec<RawEvent>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ObjectRef {
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    name: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Series {
    #[serde(default)]
    count: Option<i64>,
    #[serde(default)]
    last_observed_time: Option<Time>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Meta {
    #[serde(default)]
    name: Option<String>,
}

/// The fields of one event either API version may carry.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct RawFields {
    #[serde(default)]
    metadata: Option<Meta>,
    #[serde(default)]
    involved_object: Option<ObjectRef>,
    #[serde(default)]
    regarding: Option<ObjectRef>,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    note: Option<String>,
    #[serde(default, rename = "type")]
    type_: Option<String>,
    #[serde(default)]
    count: Option<i64>,
    #[serde(default)]
    deprecated_count: Option<i64>,
    #[serde(default)]
    first_timestamp: Option<Time>,
    #[serde(default)]
    last_timestamp: Option<Time>,
    #[serde(default)]
    deprecated_first_timestamp: Option<Time>,
    #[serde(default)]
    deprecated_last_timestamp: Option<Time>,
    #[serde(default)]
    event_time: Option<Time>,
    #[serde(default)]
    series: Option<Series>,
}

/// One list item: its fields, checked for a time as it is read so that a missing one is
/// reported at the item's place in the text.
#[derive(Deserialize)]
#[serde(try_from = "RawFields")]
struct RawEvent(RawFields);

impl TryFrom<RawFields> for RawEvent {
    type Error = String;
    fn try_from(f: RawFields) -> Result<Self, String> {
        if times(&f).is_none() {
            let name = f.metadata.as_ref().and_then(|m| m.name.as_deref());
            return Err(format!(
                "found an event{} without a time, expected lastTimestamp, eventTime, \
                 series.lastObservedTime or deprecatedLastTimestamp",
                describe_event(name, f.reason.as_deref())
            ));
        }
        Ok(RawEvent(f))
    }
}

fn describe_event(name: Option<&str>, reason: Option<&str>) -> String {
    match (name, reason) {
        (Some(n), Some(r)) => format!(" ({n}, {r})"),
        (Some(x), None) | (None, Some(x)) => format!(" ({x})"),
        (None, None) => String::new(),
    }
}

/// `(first, last)`: the recorder's first and last times, from whichever fields are set.
fn times(f: &RawFields) -> Option<(Timestamp, Timestamp)> {
    let last = f
        .series
        .as_ref()
        .and_then(|s| s.last_observed_time)
        .or(f.last_timestamp)
        .or(f.deprecated_last_timestamp)
        .or(f.event_time)?
        .0;
    let first = f
        .first_timestamp
        .or(f.deprecated_first_timestamp)
        .or(f.event_time)
        .map_or(last, |t| t.0);
    Some((first.min(last), last))
}

fn to_event(f: RawFields, origin: String) -> Option<HpaEvent> {
    let (first, last) = times(&f)?;
    let object = f.involved_object.or(f.regarding);
    let count = f
        .series
        .as_ref()
        .and_then(|s| s.count)
        .or(f.count)
        .or(f.deprecated_count)
        .unwrap_or(1)
        .max(1);
    let (kind, namespace, name) = match object {
        Some(o) => (
            o.kind.unwrap_or_default(),
            o.namespace.unwrap_or_default(),
            o.name.unwrap_or_default(),
        ),
        None => Default::default(),
    };
    Some(HpaEvent {
        kind,
        namespace,
        name,
        reason: f.reason.unwrap_or_default(),
        message: kept(&f.message.or(f.note).unwrap_or_default()),
        warning: f.type_.as_deref() == Some("Warning"),
        count,
        first,
        last,
        origin,
        relative: false,
        count_hidden: false,
    })
}

/// Parses `kubectl get events -o json|yaml`: an `EventList`/`List`, one `Event`, or a YAML stream
/// of them.
pub fn parse(file: &str, text: &str) -> Result<Vec<HpaEvent>, InputError> {
    let format = match crate::input::kubectl::detect(text) {
        Format::Text if super::text::detect(text) == Some(super::text::Form::Describe) => {
            return describe_events(file, text);
        }
        Format::Text => return parse_table(file, text),
        f => f,
    };
    let docs: Vec<RawList<'_>> = decode(file, text, format)?;
    let has_single = docs.iter().any(|d| d.items.is_none());
    // A document that is one Event is read again whole (event files are small).
    let singles: Vec<RawFields> = if has_single {
        decode(file, text, format)?
    } else {
        Vec::new()
    };
    let mut singles = singles.into_iter();
    let mut out = Vec::new();
    for (d, doc) in docs.into_iter().enumerate() {
        let single = singles.next().unwrap_or_default();
        let doc_name = if d == 0 {
            String::new()
        } else {
            format!("document {}: ", d + 1)
        };
        match doc.items {
            Some(items) => {
                for (i, item) in items.into_iter().enumerate() {
                    out.extend(to_event(item.0, format!("{file}: {doc_name}items[{i}]")));
                }
            }
            None => {
                let kind = doc.kind.as_deref().unwrap_or_default();
                if kind != "Event" {
                    let found = if kind.is_empty() {
                        "an object without kind or items".to_string()
                    } else {
                        format!("kind {kind}")
                    };
                    return Err(InputError::new(
                        file,
                        format!(
                            "found {found}, expected an EventList or Event (kubectl get events \
                             -o json|yaml)"
                        ),
                    )
                    .field("kind"));
                }
                let name = single.metadata.as_ref().and_then(|m| m.name.clone());
                let reason = single.reason.clone();
                let origin = format!("{file}: {doc_name}Event");
                let event = to_event(single, origin).ok_or_else(|| {
                    InputError::new(
                        file,
                        format!(
                            "found an event{} without a time, expected lastTimestamp, \
                             eventTime, series.lastObservedTime or deprecatedLastTimestamp",
                            describe_event(name.as_deref(), reason.as_deref())
                        ),
                    )
                })?;
                out.push(event);
            }
        }
    }
    Ok(out)
}

/// A whole `kubectl describe hpa` text given as the events: its Events section is them.
fn describe_events(file: &str, text: &str) -> Result<Vec<HpaEvent>, InputError> {
    let mut blocks = super::describe::parse(file, text)?;
    if blocks.len() != 1 {
        return Err(InputError::new(
            file,
            format!(
                "found the describe text of {} HPAs, expected one (its Events section is the \
                 events)",
                blocks.len()
            ),
        ));
    }
    Ok(blocks.remove(0).1.events)
}

// Port of printEvent (pkg/printers/internalversion/printers.go), read backwards: the table of
// `kubectl get events` (`LAST SEEN  TYPE  REASON  OBJECT  MESSAGE`; `-o wide` adds `SUBOBJECT`,
// `SOURCE`, `FIRST SEEN`, `COUNT` and `NAME`; `-A` puts `NAMESPACE` first). Ages are relative to
// the time the text was taken; OBJECT is `lowercased-kind/name`.
fn parse_table(file: &str, text: &str) -> Result<Vec<HpaEvent>, InputError> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut header: Option<Header> = None;
    let mut out = Vec::new();
    for (i, raw) in body.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim_end();
        if line.trim().is_empty() || super::text::is_preamble(line) {
            continue;
        }
        let Some(columns) = &header else {
            header = Some(table_header(file, n, line)?);
            continue;
        };
        // Names such as LAST SEEN hold a space: the message joins them with two.
        let row = Row::cut(file, n, line, columns, "  ")?;
        out.push(table_event(file, n, &row, columns)?);
    }
    Ok(out)
}

/// The header of `kubectl get events` (any release: before 1.14 FIRST SEEN and COUNT came first
/// and NAME and KIND stood apart) or of `kubectl events`.
fn table_header(file: &str, n: usize, line: &str) -> Result<Header, InputError> {
    let header = Header::parse(line);
    let object = header.has("OBJECT") || (header.has("NAME") && header.has("KIND"));
    if !(header.has("LAST SEEN") && header.has("REASON") && header.has("MESSAGE") && object) {
        return Err(InputError::new(
            file,
            format!(
                "found {:?}, expected the JSON or YAML of `kubectl get events -o json|yaml`, or a \
                 table of `kubectl get events` or `kubectl events` (LAST SEEN  TYPE  REASON  \
                 OBJECT  MESSAGE)",
                line.trim()
            ),
        )
        .at(n, Some(1)));
    }
    Ok(header)
}

/// One row of an events table. LAST SEEN is an age, or `LAST (xN over FIRST)` (`kubectl events`,
/// and `kubectl get events` before 1.19's wide columns); FIRST SEEN and COUNT, where the table has
/// them, say the same. Without either, repeats are hidden: `countHidden`.
fn table_event(
    file: &str,
    n: usize,
    row: &Row<'_>,
    header: &Header,
) -> Result<HpaEvent, InputError> {
    let cell = |name: &str| row.get(name);
    let interval = |name: &str| -> Result<Option<Interval>, InputError> {
        let Some((col, text)) = cell(name) else {
            return Ok(None);
        };
        super::text::parse_interval(text).map(Some).ok_or_else(|| {
            InputError::new(
                file,
                format!(
                    "found {} in {name}, expected an age such as 5m or `5m (x3 over 20m)`",
                    crate::error::quoted(text)
                ),
            )
            .at(n, Some(col))
            .field(name.to_string())
        })
    };
    let seen = interval("LAST SEEN")?.unwrap_or(Interval {
        last: Duration::ZERO,
        count: 1,
        first: Duration::ZERO,
    });
    let first = interval("FIRST SEEN")?.map_or(seen.first, |f| f.first.max(seen.last));
    let count = cell("COUNT")
        .and_then(|(_, c)| c.parse::<i64>().ok())
        .unwrap_or(seen.count)
        .max(1);
    let (kind, name) = match cell("OBJECT") {
        Some((_, object)) => object.split_once('/').unwrap_or((object, "")),
        // Before 1.14: KIND is the object's kind, NAME the event's own name, which the event
        // recorder makes `<object>.<hex>`.
        None => (
            cell("KIND").map_or("", |(_, k)| k),
            cell("NAME").map_or("", |(_, n)| {
                n.rsplit_once('.')
                    .filter(|(_, h)| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()))
                    .map_or(n, |(object, _)| object)
            }),
        ),
    };
    let at = |d: Duration| Timestamp(0).sub(d);
    Ok(HpaEvent {
        kind: kind.to_string(),
        namespace: cell("NAMESPACE").map_or("", |(_, c)| c).to_string(),
        name: name.to_string(),
        reason: cell("REASON").map_or("", |(_, c)| c).to_string(),
        message: kept(cell("MESSAGE").map_or("", |(_, c)| c)),
        warning: cell("TYPE").is_some_and(|(_, t)| t == "Warning"),
        count,
        first: at(first),
        last: at(seen.last),
        origin: format!("{file}:{n}"),
        relative: true,
        count_hidden: !header.has("COUNT") && seen.count == 1 && !header.has("FIRST SEEN"),
    })
}

/// What the events say about the controller's past, ready for the `Scenario`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EventHistory {
    /// The rescales inside the longest window as the controller's memory; `None` when there is
    /// none (steady load is assumed, as without `--history`).
    pub memory: Option<ControllerMemory>,
    /// Its recommendations that are only bounds: every rescale's.
    pub bounded: Vec<BoundedRecommendation>,
    pub notes: Vec<String>,
    pub warnings: Vec<String>,
    pub diagnostics: Vec<Diagnostic>,
}

/// One rescale the events show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rescale {
    time: Timestamp,
    new_size: i32,
    direction: Option<i32>,
}

/// Parses "New size: N; reason: R" and the direction R implies, from the reasons
/// `reconcileAutoscaler` and `normalizeDesiredReplicas` write (horizontal.go).
fn rescale_message(message: &str) -> Option<(i32, Option<i32>)> {
    let rest = message.trim().strip_prefix("New size:")?;
    let (size, reason) = rest.split_once(';').unwrap_or((rest, ""));
    let size = size.trim().parse::<i32>().ok()?;
    let reason = reason
        .trim()
        .strip_prefix("reason:")
        .unwrap_or(reason)
        .trim();
    let direction = if reason.ends_with("above target")
        || reason.contains("below Spec.MinReplicas")
        || reason.contains("must be greater than 0")
    {
        Some(1)
    } else if reason.ends_with("below target") || reason.contains("above Spec.MaxReplicas") {
        Some(-1)
    } else {
        None
    };
    Some((size, direction))
}

/// The longest time the controller looks back: the stabilization windows and the policies'
/// periods (`behavior`), or the downscale stabilization window (legacy path).
pub fn longest_window(hpa: &HpaSpec, downscale_window: Duration) -> Duration {
    let Some(b) = &hpa.behavior else {
        return downscale_window;
    };
    let mut longest = downscale_window.millis();
    for rules in [&b.scale_up, &b.scale_down] {
        if let Some(w) = rules.stabilization_window_seconds {
            longest = longest.max(i64::from(w) * 1000);
        }
        for p in &rules.policies {
            longest = longest.max(i64::from(p.period_seconds) * 1000);
        }
    }
    Duration(longest)
}

/// Whether an event is about this HPA (describe text's events carry no object: all are).
fn is_about(e: &HpaEvent, hpa: &HpaSpec) -> bool {
    e.kind.is_empty()
        || (e.kind.eq_ignore_ascii_case("HorizontalPodAutoscaler")
            && e.name == hpa.name
            && (e.namespace.is_empty() || e.namespace == hpa.namespace))
}

/// A fix for each failure the controller reports.
fn fix_for(reason: &str) -> &'static str {
    match reason {
        "FailedGetResourceMetric" | "FailedGetContainerResourceMetric" => {
            "check the resource metrics API (kubectl top pods; metrics-server running) and that \
             every container of the target's pods has a request for the resource"
        }
        "FailedGetPodsMetric" | "FailedGetObjectMetric" => {
            "check the custom metrics API (kubectl get --raw /apis/custom.metrics.k8s.io/v1beta1) \
             and the adapter's rules for this metric"
        }
        "FailedGetExternalMetric" => {
            "check the external metrics API (kubectl get --raw \
             /apis/external.metrics.k8s.io/v1beta1) and the metric's selector"
        }
        "FailedGetScale" | "FailedRescale" => {
            "check scaleTargetRef and that the controller may get and update the target's scale \
             subresource"
        }
        "InvalidSelector" | "AmbiguousSelector" | "SelectorRequired" => {
            "make the target's selector match only its own pods, and no other HPA's target"
        }
        _ => "read the message; the controller retries at every sync",
    }
}

/// Turns the events into the controller's memory and diagnostics.
///
/// Rescales: each `SuccessfulRescale` occurrence is a scale event of `new size - previous size`,
/// the previous size being the new size of the rescale before it; the first one's is unknown and
/// is taken as one replica in the direction its reason says. Its new size is also taken as the
/// recommendation of that sync (the controller recorded its metrics' proposal, which the events
/// do not carry). An event counted several times has only its first and last times: those two
/// occurrences are used. Occurrences older than the longest window are ignored, and said.
pub fn to_history(
    events: &[HpaEvent],
    hpa: &HpaSpec,
    now: Timestamp,
    longest: Duration,
    source: &str,
) -> EventHistory {
    let mut out = EventHistory::default();
    let (ours, others): (Vec<&HpaEvent>, Vec<&HpaEvent>) =
        events.iter().partition(|e| is_about(e, hpa));
    if !others.is_empty() {
        out.notes.push(format!(
            "{source}: {} event(s) of other objects ignored (only HorizontalPodAutoscaler {}/{} \
             is read).",
            others.len(),
            hpa.namespace,
            hpa.name
        ));
    }
    let cutoff = now.sub(longest);
    let mut rescales = Vec::new();
    let mut unknown_times = 0;
    for e in &ours {
        if e.reason != SUCCESSFUL_RESCALE {
            continue;
        }
        let Some((new_size, direction)) = rescale_message(&e.message) else {
            out.warnings.push(format!(
                "{}: found the SuccessfulRescale message {}, expected \"New size: N; reason: \
                 ...\" (ignored)",
                e.origin,
                crate::error::quoted(&e.message)
            ));
            continue;
        };
        let mut times = vec![e.last];
        if e.count > 1 && e.first != e.last {
            times.insert(0, e.first);
        }
        unknown_times += (e.count - i64::try_from(times.len()).unwrap_or(1)).max(0);
        for time in times {
            rescales.push(Rescale {
                time,
                new_size,
                direction,
            });
        }
    }
    rescales.sort_by_key(|r| r.time);
    if unknown_times > 0 {
        out.notes.push(format!(
            "{source}: {unknown_times} rescale(s) folded into counted events have no time of \
             their own (only the first and last are known): not counted."
        ));
    }
    let mut memory = ControllerMemory::default();
    let mut ignored = 0;
    let mut previous: Option<i32> = None;
    for r in &rescales {
        let change = match previous {
            Some(p) => r.new_size.saturating_sub(p),
            None => {
                let assumed = r.direction.unwrap_or(0);
                if !r.time.before(cutoff) {
                    out.notes.push(format!(
                        "{source}: the first rescale (to {} at {}) has no earlier size in the \
                         events: its change is taken as {}; pass --history for the real one.",
                        r.new_size,
                        r.time.to_rfc3339(),
                        match assumed {
                            1 => "+1 (its reason says a scale up)".to_string(),
                            -1 => "-1 (its reason says a scale down)".to_string(),
                            _ => "0 (its reason gives no direction)".to_string(),
                        }
                    ));
                }
                assumed
            }
        };
        previous = Some(r.new_size);
        if r.time.before(cutoff) {
            ignored += 1;
            continue;
        }
        memory.recommendations.push(Recommendation {
            replicas: r.new_size,
            timestamp: r.time,
        });
        if change != 0 {
            out.bounded.push(BoundedRecommendation {
                timestamp: r.time,
                new_size: r.new_size,
            });
        }
        let event = ScaleEvent {
            replica_change: change.saturating_abs(),
            timestamp: r.time,
            outdated: false,
        };
        if change > 0 {
            memory.scale_up_events.push(event);
        } else if change < 0 {
            memory.scale_down_events.push(event);
        }
    }
    keep_memory(&mut out, memory, ignored, longest, source);
    out.diagnostics = reported(&ours, now);
    out
}

/// The rescales inside the window as the memory, and what the assumptions say of them.
fn keep_memory(
    out: &mut EventHistory,
    memory: ControllerMemory,
    ignored: usize,
    longest: Duration,
    source: &str,
) {
    if ignored > 0 {
        out.notes.push(format!(
            "{source}: {ignored} rescale(s) older than the longest window ({longest}) ignored \
             (their sizes still give the next rescale's change)."
        ));
    }
    if memory.recommendations.is_empty() {
        out.notes.push(format!(
            "{source}: no rescale in the last {longest}: steady load assumed, as without \
             --history."
        ));
    } else {
        out.notes.push(format!(
            "{source}: {} rescale(s) in the last {longest} are the controller's memory; each new \
             size bounds that sync's recommendation (the window and the rate limit come after \
             it: the recommendations that set it are found by running that sync forward), and \
             syncs between rescales are unknown.",
            memory.recommendations.len()
        ));
        out.memory = Some(memory);
    }
}

/// Every reason other than `SuccessfulRescale`, as one diagnostic each, newest first.
fn reported(events: &[&HpaEvent], now: Timestamp) -> Vec<Diagnostic> {
    struct Seen<'e> {
        count: i64,
        first: Timestamp,
        last: &'e HpaEvent,
        hidden: bool,
    }
    let mut by_reason: BTreeMap<&str, Seen> = BTreeMap::new();
    for e in events.iter().filter(|e| e.reason != SUCCESSFUL_RESCALE) {
        let seen = by_reason.entry(e.reason.as_str()).or_insert(Seen {
            count: 0,
            first: e.first,
            last: e,
            hidden: false,
        });
        seen.hidden |= e.count_hidden;
        seen.count = seen.count.saturating_add(e.count);
        seen.first = seen.first.min(e.first);
        if e.last.after(seen.last.last) {
            seen.last = e;
        }
    }
    let mut list: Vec<(&str, Seen)> = by_reason.into_iter().collect();
    list.sort_by_key(|(_, s)| std::cmp::Reverse(s.last.last));
    list.into_iter()
        .map(|(reason, s)| {
            let times = if s.count == 1 { "time" } else { "times" };
            // The plain table prints neither COUNT nor FIRST SEEN: the event may have repeated
            // for longer.
            let (least, hidden) = if s.hidden {
                (
                    "at least ",
                    " (this table hides repeats: kubectl get events -o wide shows COUNT and FIRST \
                     SEEN)",
                )
            } else {
                ("", "")
            };
            Diagnostic::new(
                "ControllerReported",
                Severity::Warning,
                format!(
                    "the controller reported {reason} {least}{} {times} {}{hidden}: {}",
                    s.count,
                    span_words(now.since(s.first)),
                    s.last.message
                ),
                fix_for(reason),
            )
        })
        .collect()
}

/// "in the last 20 minutes", "in the last 45 seconds", "just now".
fn span_words(span: Duration) -> String {
    let secs = (span.millis() + 500).div_euclid(1000);
    match secs {
        ..=0 => "just now".to_string(),
        1..=119 => format!("in the last {secs} seconds"),
        _ => format!("in the last {} minutes", (secs + 30) / 60),
    }
}

/// Merges event history into a `--history` memory: the CSV's rows are kept; an event's rescale is
/// added unless the CSV already has a scale event at the same second.
/// Returns the times of the recommendations it added.
pub fn merge(csv: &mut ControllerMemory, events: &ControllerMemory) -> Vec<Timestamp> {
    let second = |t: Timestamp| t.0.div_euclid(1000);
    let has_scale_at = |m: &ControllerMemory, t: Timestamp| {
        m.scale_up_events
            .iter()
            .chain(&m.scale_down_events)
            .any(|e| second(e.timestamp) == second(t))
    };
    let mut added = ControllerMemory::default();
    for r in &events.recommendations {
        if has_scale_at(csv, r.timestamp) {
            continue;
        }
        added.recommendations.push(*r);
        let same = |e: &&ScaleEvent| e.timestamp == r.timestamp;
        added
            .scale_up_events
            .extend(events.scale_up_events.iter().find(same));
        added
            .scale_down_events
            .extend(events.scale_down_events.iter().find(same));
    }
    let times = added.recommendations.iter().map(|r| r.timestamp).collect();
    csv.recommendations.extend(added.recommendations);
    csv.scale_up_events.extend(added.scale_up_events);
    csv.scale_down_events.extend(added.scale_down_events);
    csv.recommendations.sort_by_key(|r| r.timestamp);
    csv.scale_up_events.sort_by_key(|e| e.timestamp);
    csv.scale_down_events.sort_by_key(|e| e.timestamp);
    times
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ObjectReference;

    const NOW: Timestamp = Timestamp(1_800_000_000_000);

    fn ago(secs: i64) -> Timestamp {
        NOW.sub(Duration::from_secs(secs))
    }

    fn hpa() -> HpaSpec {
        HpaSpec {
            name: "web".into(),
            namespace: "shop".into(),
            target: ObjectReference::default(),
            min_replicas: 1,
            max_replicas: 10,
            metrics: vec![],
            behavior: None,
        }
    }

    fn event(reason: &str, message: &str, first: i64, last: i64, count: i64) -> HpaEvent {
        HpaEvent {
            kind: "HorizontalPodAutoscaler".into(),
            namespace: "shop".into(),
            name: "web".into(),
            reason: reason.into(),
            message: message.into(),
            warning: reason != SUCCESSFUL_RESCALE,
            count,
            first: ago(first),
            last: ago(last),
            origin: "e.yaml: items[0]".into(),
            relative: false,
            count_hidden: false,
        }
    }

    fn rescale(size: i32, reason: &str, age: i64) -> HpaEvent {
        event(
            SUCCESSFUL_RESCALE,
            &format!("New size: {size}; reason: {reason}"),
            age,
            age,
            1,
        )
    }

    fn history(events: &[HpaEvent]) -> EventHistory {
        to_history(events, &hpa(), NOW, Duration::from_secs(300), "e.yaml")
    }

    fn changes(list: &[ScaleEvent]) -> Vec<(i32, Timestamp)> {
        list.iter()
            .map(|e| (e.replica_change, e.timestamp))
            .collect()
    }

    #[test]
    fn the_rescale_message_gives_the_new_size_and_its_reason_the_direction() {
        let up =
            "New size: 7; reason: cpu resource utilization (percentage of request) above target";
        assert_eq!(rescale_message(up), Some((7, Some(1))));
        assert_eq!(
            rescale_message("New size: 2; reason: All metrics below target"),
            Some((2, Some(-1)))
        );
        assert_eq!(
            rescale_message(
                "New size: 10; reason: Current number of replicas above Spec.MaxReplicas"
            ),
            Some((10, Some(-1)))
        );
        assert_eq!(
            rescale_message(
                "New size: 1; reason: Current number of replicas below Spec.MinReplicas"
            ),
            Some((1, Some(1)))
        );
        assert_eq!(rescale_message("scaled"), None);
    }

    #[test]
    fn each_change_is_the_difference_with_the_previous_new_size() {
        let h = history(&[
            rescale(3, "All metrics below target", 2400),
            rescale(7, "cpu above target", 230),
            rescale(6, "All metrics below target", 140),
            rescale(5, "All metrics below target", 75),
        ]);
        let m = h.memory.unwrap();
        assert_eq!(changes(&m.scale_up_events), [(4, ago(230))]);
        assert_eq!(changes(&m.scale_down_events), [(1, ago(140)), (1, ago(75))]);
        let recs: Vec<i32> = m.recommendations.iter().map(|r| r.replicas).collect();
        assert_eq!(recs, [7, 6, 5]);
        assert!(
            h.notes
                .iter()
                .any(|n| n.contains("1 rescale(s) older than the longest window"))
        );
    }

    #[test]
    fn the_first_rescale_counts_one_replica_in_its_reasons_direction() {
        let h = history(&[rescale(7, "cpu above target", 60)]);
        let m = h.memory.unwrap();
        assert_eq!(changes(&m.scale_up_events), [(1, ago(60))]);
        assert!(
            h.notes
                .iter()
                .any(|n| n.contains("its change is taken as +1")),
            "{:?}",
            h.notes
        );
    }

    #[test]
    fn no_rescale_in_the_window_assumes_steady_load() {
        let h = history(&[rescale(3, "All metrics below target", 2400)]);
        assert_eq!(h.memory, None);
        assert!(h.notes.iter().any(|n| n.contains("steady load assumed")));
    }

    #[test]
    fn a_counted_rescale_uses_its_first_and_last_times() {
        let mut e = rescale(4, "cpu above target", 0);
        e.first = ago(200);
        e.last = ago(20);
        e.count = 3;
        let h = history(&[rescale(2, "All metrics below target", 250), e]);
        let m = h.memory.unwrap();
        let times: Vec<Timestamp> = m.recommendations.iter().map(|r| r.timestamp).collect();
        assert_eq!(times, [ago(250), ago(200), ago(20)]);
        assert!(h.notes.iter().any(|n| n.contains("1 rescale(s) folded")));
    }

    #[test]
    fn events_of_other_objects_are_ignored_and_counted() {
        let mut pod = rescale(9, "x above target", 10);
        pod.kind = "Pod".into();
        let mut other_hpa = rescale(9, "x above target", 10);
        other_hpa.name = "api".into();
        let h = history(&[pod, other_hpa]);
        assert_eq!(h.memory, None);
        assert!(h.notes[0].contains("2 event(s) of other objects ignored"));
    }

    #[test]
    fn other_reasons_become_controller_reported_diagnostics() {
        let h = history(&[
            event("FailedGetResourceMetric", "old", 1200, 600, 10),
            event(
                "FailedGetResourceMetric",
                "missing request for cpu",
                300,
                30,
                4,
            ),
            event(
                "FailedRescale",
                "New size: 4; reason: ...; error: forbidden",
                50,
                50,
                1,
            ),
        ]);
        assert_eq!(h.diagnostics.len(), 2);
        let d = &h.diagnostics[0];
        assert_eq!(d.code, "ControllerReported");
        assert_eq!(d.severity, Severity::Warning);
        assert_eq!(
            d.message,
            "the controller reported FailedGetResourceMetric 14 times in the last 20 minutes: \
             missing request for cpu"
        );
        assert!(
            h.diagnostics[1]
                .message
                .contains("FailedRescale 1 time in the last 50 seconds")
        );
    }

    #[test]
    fn the_longest_window_is_the_largest_window_or_period() {
        let mut spec = hpa();
        assert_eq!(
            longest_window(&spec, Duration::from_secs(300)),
            Duration::from_secs(300)
        );
        let rules = |w, period| crate::scenario::ScalingRules {
            stabilization_window_seconds: w,
            select_policy: crate::scenario::SelectPolicy::Max,
            policies: vec![crate::scenario::ScalingPolicy {
                policy_type: crate::scenario::PolicyType::Pods,
                value: 1,
                period_seconds: period,
            }],
            tolerance: None,
        };
        spec.behavior = Some(crate::scenario::Behavior {
            scale_up: rules(Some(0), 900),
            scale_down: rules(Some(600), 60),
        });
        assert_eq!(
            longest_window(&spec, Duration::from_secs(300)),
            Duration::from_secs(900)
        );
    }

    #[test]
    fn merging_keeps_the_csv_and_adds_rescales_at_other_times() {
        let ev = |change, age| ScaleEvent {
            replica_change: change,
            timestamp: ago(age),
            outdated: false,
        };
        let rec = |replicas, age| Recommendation {
            replicas,
            timestamp: ago(age),
        };
        let mut csv = ControllerMemory {
            recommendations: vec![rec(8, 100)],
            scale_up_events: vec![ev(2, 100)],
            scale_down_events: vec![],
        };
        let events = ControllerMemory {
            recommendations: vec![rec(6, 200), rec(7, 100)],
            scale_up_events: vec![ev(1, 200), ev(1, 100)],
            scale_down_events: vec![],
        };
        merge(&mut csv, &events);
        assert_eq!(csv.recommendations, [rec(6, 200), rec(8, 100)]);
        assert_eq!(csv.scale_up_events, [ev(1, 200), ev(2, 100)]);
    }

    #[test]
    fn core_v1_and_events_k8s_io_v1_items_read_the_same_fields() {
        let events = parse(
            "e.yaml",
            include_str!("../../../fixtures/paste/events.yaml"),
        )
        .unwrap();
        assert_eq!(events.len(), 7);
        let series = &events[2];
        assert_eq!(series.reason, "FailedComputeMetricsReplicas");
        assert_eq!(series.count, 14);
        assert!(
            series
                .message
                .starts_with("invalid metrics (1 invalid out of 2)")
        );
        assert_eq!(
            series.last,
            Timestamp::parse_rfc3339("2026-11-29T14:59:30.004512Z").unwrap()
        );
        let deprecated = &events[5];
        assert_eq!(
            deprecated.message,
            "New size: 6; reason: All metrics below target"
        );
        assert_eq!(
            deprecated.last,
            Timestamp::parse_rfc3339("2026-11-29T14:57:40Z").unwrap()
        );
        assert_eq!(events[4].kind, "Pod");
    }

    #[test]
    fn a_single_event_document_is_read() {
        let text = "apiVersion: events.k8s.io/v1\nkind: Event\nregarding: {kind: HorizontalPodAutoscaler, name: web}\nreason: SuccessfulRescale\nnote: 'New size: 3; reason: All metrics below target'\neventTime: 2026-11-29T14:57:40.000001Z\n";
        let events = parse("e.yaml", text).unwrap();
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].name, "web");
    }

    #[test]
    fn other_text_is_refused_at_its_line() {
        let err = parse("e.txt", "hello there\n").unwrap_err();
        assert_eq!(err.line, Some(1));
    }

    #[test]
    fn the_kubectl_get_events_table_reads_ages_objects_and_counts() {
        let text = "LAST SEEN   TYPE      REASON                OBJECT                        MESSAGE\n\
                    3m50s       Normal    SuccessfulRescale     horizontalpodautoscaler/web   New size: 7; reason: cpu resource utilization (percentage of request) above target\n\
                    19m (x14 over 20m)   Warning   FailedGetPodsMetric   horizontalpodautoscaler/web   unable to get metric rps\n\
                    3m49s       Normal    ScalingReplicaSet     deployment/web                Scaled up replica set web-7d9c8b6f5d to 7\n";
        let events: Vec<HpaEvent> = parse("e.txt", text)
            .unwrap()
            .into_iter()
            .map(|e| e.at(NOW))
            .collect();
        assert_eq!(events.len(), 3);
        assert_eq!(events[0].last, ago(230));
        assert_eq!((events[1].count, events[1].last), (14, ago(1140)));
        let h = to_history(&events, &hpa(), NOW, Duration::from_secs(300), "e.txt");
        assert_eq!(h.memory.unwrap().recommendations.len(), 1);
        assert!(
            h.notes[0].contains("1 event(s) of other objects ignored"),
            "{:?}",
            h.notes
        );
        assert_eq!(h.diagnostics.len(), 1);
    }
}
