//! `kubectl describe hpa` text, as `describeHorizontalPodAutoscalerV2` (and, from old servers,
//! `describeHorizontalPodAutoscalerV1`) in kubernetes/kubectl `pkg/describe/describe.go` prints
//! it: `Name:`, `Namespace:`, `Reference: Kind/name`, one line per metric under `Metrics:`
//! (`( current / target )`, `<unknown>` when the status has no value), `Min replicas:`,
//! `Max replicas:`, the `Behavior:` block, `<Kind> pods: N current / M desired`, the
//! `Conditions:` table and the `Events:` table (`DescribeEvents`). Without a name, `kubectl
//! describe hpa` prints every HPA of the namespace, each starting at its `Name:` line.

use serde_json::{Map, Value, json};

use super::event::{HpaEvent, kept};
use super::{Lines, Pasted, scale_target_ref, split_cells, v2_spec};
use crate::error::InputError;
use crate::input::manifest::status::{CurrentMetric, HpaStatus};
use crate::quantity::parse_milli;
use crate::time::{Duration, Timestamp};

/// One line of the text: its number, its text without the line end.
type Line<'a> = (usize, &'a str);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    None,
    Skip,
    /// `Labels:`: one `key=value` per line, the first on the `Labels:` line itself.
    Labels,
    Metrics,
    Behavior,
    Conditions,
    Events,
}

/// Parses every HPA of the text; each comes with its `Name:` line.
pub fn parse(file: &str, text: &str) -> Result<Vec<(usize, Pasted)>, InputError> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<Line> = body
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end()))
        .collect();
    let starts: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, (_, l))| l.starts_with("Name:"))
        .map(|(i, _)| i)
        .collect();
    let mut out = Vec::new();
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(lines.len());
        let block = lines.get(start..end).unwrap_or_default();
        let first = block.first().map_or(1, |(n, _)| *n);
        out.push((first, parse_block(file, block)?));
    }
    if out.is_empty() {
        return Err(InputError::new(
            file,
            "found no `Name:` line, expected the text of `kubectl describe hpa`",
        )
        .at(1, Some(1)));
    }
    Ok(out)
}

fn error(file: &str, line: usize, message: impl Into<String>) -> InputError {
    InputError::new(file, message).at(line, None)
}

/// What one HPA's lines say, as they are read.
#[derive(Default)]
struct Reading {
    name: Option<String>,
    namespace: Option<String>,
    reference: Option<(String, String)>,
    metrics_seen: bool,
    metrics: Vec<Value>,
    current: Vec<CurrentMetric>,
    unknown: Vec<String>,
    min: Option<i64>,
    max: Option<i64>,
    replicas: Option<(i32, i32)>,
    behavior: Map<String, Value>,
    direction: Option<String>,
    scaled_to_zero: bool,
    /// The `Conditions:` table, as the status had it (kubectl prints no transition times).
    conditions: Vec<crate::report::Condition>,
    events: Vec<HpaEvent>,
    v1_target: Option<i64>,
    v1_current: Option<i32>,
    labels: std::collections::BTreeMap<String, String>,
    lines: Lines,
    warnings: Vec<String>,
}

fn parse_block(file: &str, block: &[Line]) -> Result<Pasted, InputError> {
    let mut r = Reading::default();
    let mut section = Section::None;
    let mut last_line = 1;
    for &(n, line) in block {
        last_line = n;
        if line.trim().is_empty() {
            continue;
        }
        if !line.starts_with([' ', '\t']) {
            section = top_level(file, n, line, &mut r)?;
            continue;
        }
        match section {
            Section::Metrics => metric_line(file, n, line, &mut r)?,
            Section::Behavior => behavior_line(file, n, line, &mut r)?,
            Section::Conditions => condition_line(file, n, line, &mut r)?,
            Section::Events => event_line(file, n, line, &mut r)?,
            Section::Labels => label(line, &mut r),
            Section::Skip => {}
            Section::None => r.warnings.push(format!(
                "{file}:{n}: found the indented line {:?} outside any section (ignored)",
                line.trim()
            )),
        }
    }
    finish(file, last_line, r)
}

/// A `Key:<tab>value` line; returns the section it opens.
/// `Target CPU utilization: 70%` of the old `describeHorizontalPodAutoscalerV1`.
fn v1_target(
    file: &str,
    n: usize,
    key: &str,
    value: &str,
    r: &mut Reading,
) -> Result<(), InputError> {
    r.metrics_seen = true;
    r.lines.metrics = vec![n];
    let pct = value.strip_suffix('%').unwrap_or(value);
    r.v1_target = Some(pct.parse::<i64>().map_err(|_| {
        error(
            file,
            n,
            format!(
                "found {}, expected a percentage such as 50%",
                crate::error::quoted(value)
            ),
        )
        .field(key.to_string())
    })?);
    Ok(())
}

/// One `key=value` of describe's Labels (`printLabelsMultiline`); `<none>` has none.
fn label(line: &str, r: &mut Reading) {
    if let Some((key, value)) = line.trim().split_once('=') {
        r.labels.insert(key.to_string(), value.to_string());
    }
}

fn top_level(file: &str, n: usize, line: &str, r: &mut Reading) -> Result<Section, InputError> {
    let Some((key, value)) = line.split_once(':') else {
        return Err(error(
            file,
            n,
            format!(
                "found {}, expected a describe line such as `Max replicas:  10`",
                crate::error::quoted(line)
            ),
        ));
    };
    let value = value.trim();
    let int = |what: &str| -> Result<i64, InputError> {
        value.parse::<i64>().map_err(|_| {
            error(
                file,
                n,
                format!("found {}, expected {what}", crate::error::quoted(value)),
            )
            .field(key.to_string())
        })
    };
    Ok(match key {
        "Name" => {
            r.name = Some(value.to_string());
            r.lines.first = n;
            Section::None
        }
        "Namespace" => {
            r.namespace = Some(value.to_string());
            Section::None
        }
        // Who manages the HPA: KEDA labels the HPAs it generates.
        "Labels" => {
            label(value, r);
            Section::Labels
        }
        "Annotations" => Section::Skip,
        "CreationTimestamp" => Section::None,
        "Reference" => {
            let Some((kind, name)) = value.split_once('/') else {
                return Err(error(
                    file,
                    n,
                    format!(
                        "found {}, expected Kind/name such as Deployment/web",
                        crate::error::quoted(value)
                    ),
                )
                .field("Reference"));
            };
            r.reference = Some((kind.to_string(), name.to_string()));
            r.lines.reference = n;
            Section::None
        }
        "Metrics" => {
            r.metrics_seen = true;
            Section::Metrics
        }
        "Min replicas" => {
            r.lines.min = n;
            if value != "<unset>" {
                r.min = Some(int("a whole number of replicas or <unset>")?);
            }
            Section::None
        }
        "Max replicas" => {
            r.lines.max = n;
            r.max = Some(int("a whole number of replicas")?);
            Section::None
        }
        "Behavior" => {
            r.lines.behavior = n;
            Section::Behavior
        }
        "Target CPU utilization" => {
            v1_target(file, n, key, value, r)?;
            Section::None
        }
        "Current CPU utilization" => {
            let pct = value.strip_suffix('%').unwrap_or(value);
            r.v1_current = pct.parse::<i32>().ok();
            Section::None
        }
        "Conditions" => Section::Conditions,
        "Events" => Section::Events,
        k if k.ends_with(" pods") => {
            r.replicas = Some(replica_counts(value).ok_or_else(|| {
                error(
                    file,
                    n,
                    format!(
                        "found {}, expected `N current / M desired`",
                        crate::error::quoted(value)
                    ),
                )
                .field(key.to_string())
            })?);
            Section::None
        }
        other => {
            r.warnings.push(format!(
                "{file}:{n}: found the line `{other}:`, which kubectl describe hpa does not \
                 print (ignored)"
            ));
            Section::Skip
        }
    })
}

/// `3 current / 3 desired`.
fn replica_counts(value: &str) -> Option<(i32, i32)> {
    let (current, desired) = value.split_once('/')?;
    let current = current
        .trim()
        .strip_suffix("current")?
        .trim()
        .parse()
        .ok()?;
    let desired = desired
        .trim()
        .strip_suffix("desired")?
        .trim()
        .parse()
        .ok()?;
    Some((current, desired))
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A quantity as the text shows it (`Quantity.String()`), checked.
fn quantity(file: &str, n: usize, text: &str, what: &str) -> Result<i64, InputError> {
    parse_milli(text).map_err(|e| {
        error(
            file,
            n,
            format!(
                "found {} ({e}), expected {what} as a quantity such as 500m or 100Mi",
                crate::error::quoted(text)
            ),
        )
    })
}

/// `46% (23m)` → (46, 23m).
fn utilization_current(text: &str) -> Option<(i32, i64)> {
    let (pct, rest) = text.split_once('%')?;
    let pct = pct.trim().parse().ok()?;
    let avg = rest.trim().strip_prefix('(')?.strip_suffix(')')?;
    Some((pct, parse_milli(avg).ok()?))
}

// Port of the metric lines of describeHorizontalPodAutoscalerV2 (pkg/describe/describe.go), read
// backwards: each form of line gives back the metric spec and its status entry.
fn metric_line(file: &str, n: usize, line: &str, r: &mut Reading) -> Result<(), InputError> {
    let text = collapse(line);
    let Some(at) = text.rfind(": ") else {
        return Err(error(
            file,
            n,
            format!(
                "found {:?}, expected a metric line `<metric>: <current> / <target>`",
                text
            ),
        )
        .field("Metrics"));
    };
    let (label, value) = (
        text.get(..at).unwrap_or(""),
        text.get(at + 2..).unwrap_or(""),
    );
    let Some((current, target)) = value.split_once(" / ") else {
        return Err(error(
            file,
            n,
            format!(
                "found {}, expected `<current> / <target>`",
                crate::error::quoted(value)
            ),
        )
        .field("Metrics"));
    };
    let metric = MetricText {
        file,
        n,
        label,
        current: (current != "<unknown>").then_some(current),
        target,
    };
    let (spec, status) = if let Some(rest) = label.strip_prefix("resource ") {
        metric.resource(rest)?
    } else if let Some(quoted) = label.strip_prefix('"')
        && let Some((name, rest)) = quoted.split_once('"')
    {
        metric.named(name, rest.trim())?
    } else {
        return Err(error(
            file,
            n,
            format!(
                "found {}, expected a metric line as kubectl describe hpa prints it \
                 (`resource cpu on pods  (as a percentage of request)`, `\"name\" on pods`, ...)",
                crate::error::quoted(label)
            ),
        )
        .field("Metrics"));
    };
    r.metrics.push(spec);
    push_status(r, n, status, metric.current.is_none(), &text)
}

/// A metric line cut at its last `: ` and its ` / `: line `n` of `file`.
struct MetricText<'a> {
    file: &'a str,
    n: usize,
    label: &'a str,
    /// `None` for `<unknown>`.
    current: Option<&'a str>,
    target: &'a str,
}

impl MetricText<'_> {
    fn quantity(&self, text: &str, what: &str) -> Result<i64, InputError> {
        quantity(self.file, self.n, text, what)
    }

    fn error(&self, message: String) -> InputError {
        error(self.file, self.n, message)
    }

    /// `resource cpu on pods`, `resource cpu of container "app" on pods`, with
    /// ` (as a percentage of request)` for a Utilization target: `rest` follows `resource `.
    fn resource(&self, rest: &str) -> Result<(Value, CurrentMetric), InputError> {
        let (label, target) = (self.label, self.target);
        let mut status = CurrentMetric::default();
        let (rest, utilization) = match rest.strip_suffix(" (as a percentage of request)") {
            Some(r) => (r, true),
            None => (rest, false),
        };
        let rest = rest.strip_suffix(" on pods").ok_or_else(|| {
            self.error(format!(
                "found {}, expected `resource <name> on pods`",
                crate::error::quoted(label)
            ))
        })?;
        let (resource, container) = match rest.split_once(" of container ") {
            Some((res, c)) => (res, Some(c.trim_matches('"'))),
            None => (rest, None),
        };
        let target_json = if utilization {
            let pct = target
                .strip_suffix('%')
                .and_then(|p| p.parse::<i64>().ok())
                .ok_or_else(|| {
                    self.error(format!(
                        "found {}, expected a target such as 50%",
                        crate::error::quoted(target)
                    ))
                })?;
            if let Some(c) = self.current {
                let (u, avg) = utilization_current(c).ok_or_else(|| {
                    self.error(format!(
                        "found {}, expected a current value such as 46% (230m)",
                        crate::error::quoted(c)
                    ))
                })?;
                status.average_utilization = Some(u);
                status.average_value_milli = Some(avg);
            }
            json!({"type": "Utilization", "averageUtilization": pct})
        } else {
            self.quantity(target, "the target")?;
            if let Some(c) = self.current {
                status.average_value_milli = Some(self.quantity(c, "the current value")?);
            }
            json!({"type": "AverageValue", "averageValue": target})
        };
        status.name = resource.to_string();
        let spec = match container {
            Some(c) => {
                status.metric_type = "ContainerResource".into();
                json!({"type": "ContainerResource", "containerResource": {
                    "name": resource, "container": c, "target": target_json}})
            }
            None => {
                status.metric_type = "Resource".into();
                json!({"type": "Resource", "resource": {"name": resource, "target": target_json}})
            }
        };
        Ok((spec, status))
    }

    /// `"name" on pods`, `"name" on Kind/name (target value)` (or `target average value`), or
    /// `"name" (target value)` (or `target average value`) of an External metric: `rest` follows
    /// the quoted name.
    fn named(&self, name: &str, rest: &str) -> Result<(Value, CurrentMetric), InputError> {
        let (label, target) = (self.label, self.target);
        let q = |t: &str, what: &str| self.quantity(t, what);
        q(target, "the target")?;
        let mut status = CurrentMetric {
            name: name.to_string(),
            ..CurrentMetric::default()
        };
        let (kind, average) = if rest == "on pods" {
            ("Pods", true)
        } else if let Some(object) = rest.strip_prefix("on ") {
            let (described, which) = object.rsplit_once(" (").ok_or_else(|| {
                self.error(format!(
                    "found {}, expected `\"<metric>\" on Kind/name (target value)`",
                    crate::error::quoted(label)
                ))
            })?;
            let (kind, oname) = described.split_once('/').unwrap_or((described, ""));
            let average = which == "target average value)";
            let target_json = target_json(target, average);
            spec_with_current(&mut status, self.current, average, q)?;
            status.metric_type = "Object".into();
            let spec = json!({"type": "Object", "object": {
                "describedObject": {"kind": kind, "name": oname},
                "metric": {"name": name}, "target": target_json}});
            return Ok((spec, status));
        } else if rest == "(target value)" {
            ("External", false)
        } else if rest == "(target average value)" {
            ("External", true)
        } else {
            return Err(self.error(format!(
                "found {}, expected a metric as kubectl describe prints it",
                crate::error::quoted(label)
            )));
        };
        spec_with_current(&mut status, self.current, average, q)?;
        status.metric_type = kind.into();
        let key = if kind == "Pods" { "pods" } else { "external" };
        let mut source = Map::new();
        source.insert("metric".into(), json!({ "name": name }));
        source.insert("target".into(), target_json(target, average));
        Ok((json!({"type": kind, key: Value::Object(source)}), status))
    }
}
fn target_json(target: &str, average: bool) -> Value {
    if average {
        json!({"type": "AverageValue", "averageValue": target})
    } else {
        json!({"type": "Value", "value": target})
    }
}

fn spec_with_current(
    status: &mut CurrentMetric,
    current: Option<&str>,
    average: bool,
    q: impl Fn(&str, &str) -> Result<i64, InputError>,
) -> Result<(), InputError> {
    if let Some(c) = current {
        let v = q(c, "the current value")?;
        if average {
            status.average_value_milli = Some(v);
        } else {
            status.value_milli = Some(v);
        }
    }
    Ok(())
}

fn push_status(
    r: &mut Reading,
    n: usize,
    status: CurrentMetric,
    unknown: bool,
    text: &str,
) -> Result<(), InputError> {
    r.lines.metrics.push(n);
    if unknown {
        r.unknown.push(text.to_string());
    }
    // An `<unknown>` row is still an entry, without a value: kubectl's describeHorizontalPodAutoscalerV2
    // reads status.currentMetrics[i] for spec.metrics[i], so each row keeps its own place.
    r.current.push(status);
    Ok(())
}

// Port of printDirectionBehavior (pkg/describe/describe.go), read backwards.
fn behavior_line(file: &str, n: usize, line: &str, r: &mut Reading) -> Result<(), InputError> {
    let text = collapse(line);
    let bad = |what: &str| {
        error(
            file,
            n,
            format!("found {}, expected {what}", crate::error::quoted(&text)),
        )
        .field("Behavior".to_string())
    };
    match text.as_str() {
        "Scale Up:" => r.direction = Some("scaleUp".into()),
        "Scale Down:" => r.direction = Some("scaleDown".into()),
        "Policies:" => {}
        _ => {
            if let Some(w) = text
                .strip_prefix("Stabilization Window: ")
                .and_then(|w| w.strip_suffix(" seconds"))
            {
                let w: i64 = w
                    .parse()
                    .map_err(|_| bad("`Stabilization Window: N seconds`"))?;
                rules(r)
                    .ok_or_else(|| bad("`Scale Up:` or `Scale Down:` first"))?
                    .insert("stabilizationWindowSeconds".into(), json!(w));
            } else if let Some(p) = text.strip_prefix("Select Policy: ") {
                rules(r)
                    .ok_or_else(|| bad("`Scale Up:` or `Scale Down:` first"))?
                    .insert("selectPolicy".into(), json!(p));
            } else if let Some(p) = text.strip_prefix("- Type: ") {
                // `- Type: Pods  Value: 4  Period: 15 seconds`
                let words: Vec<&str> = p.split_whitespace().collect();
                let (kind, value, period) = match words.as_slice() {
                    [kind, "Value:", value, "Period:", period, "seconds"] => {
                        (*kind, *value, *period)
                    }
                    _ => return Err(bad("`- Type: Pods  Value: 4  Period: 15 seconds`")),
                };
                let value: i64 = value.parse().map_err(|_| bad("a whole policy value"))?;
                let period: i64 = period.parse().map_err(|_| bad("a whole period"))?;
                let rules = rules(r).ok_or_else(|| bad("`Scale Up:` or `Scale Down:` first"))?;
                let policies = rules.entry("policies").or_insert_with(|| json!([]));
                if let Some(list) = policies.as_array_mut() {
                    list.push(json!({"type": kind, "value": value, "periodSeconds": period}));
                }
            } else if let Some(t) = text.strip_prefix("Tolerance: ") {
                rules(r)
                    .ok_or_else(|| bad("`Scale Up:` or `Scale Down:` first"))?
                    .insert("tolerance".into(), json!(t));
            } else {
                return Err(bad("a line of the Behavior block"));
            }
        }
    }
    Ok(())
}

/// The rules of the direction being read (`Scale Up:` or `Scale Down:`).
fn rules(r: &mut Reading) -> Option<&mut Map<String, Value>> {
    let d = r.direction.clone()?;
    r.behavior
        .entry(d)
        .or_insert_with(|| json!({}))
        .as_object_mut()
}

/// A table row of `Conditions:` or `Events:` (the header and its dashes are skipped).
fn is_header(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("Type ") || t.starts_with("Type\t") || t.starts_with("----")
}

fn condition_line(file: &str, n: usize, line: &str, r: &mut Reading) -> Result<(), InputError> {
    if is_header(line) {
        return Ok(());
    }
    let cells = split_cells(line, 4);
    let (Some((_, kind)), Some((col, status))) = (cells.first(), cells.get(1)) else {
        return Err(error(
            file,
            n,
            format!(
                "found {:?}, expected a condition row `Type  Status  Reason  Message`",
                line.trim()
            ),
        )
        .field("Conditions"));
    };
    if !matches!(*status, "True" | "False" | "Unknown") {
        return Err(InputError::new(
            file,
            format!("found {} in the Status column, expected True, False or Unknown (are the columns shifted?)", crate::error::quoted(status)),
        )
        .at(n, Some(*col))
        .field("Conditions"));
    }
    if *kind == "ScaledToZero" && *status == "True" {
        r.scaled_to_zero = true;
    }
    let cell = |i: usize| cells.get(i).map_or("", |(_, text)| *text).to_string();
    r.conditions.push(crate::report::Condition {
        condition_type: kind.to_string(),
        status: status.to_string(),
        reason: cell(2),
        message: cell(3),
        last_transition_time: None,
    });
    Ok(())
}

// Port of DescribeEvents (pkg/describe/describe.go), read backwards: the Age column is an
// interval (`text::parse_interval`).
fn event_line(file: &str, n: usize, line: &str, r: &mut Reading) -> Result<(), InputError> {
    if is_header(line) || line.trim() == "<none>" {
        return Ok(());
    }
    let cells = split_cells(line, 5);
    let [
        (_, kind),
        (_, reason),
        (age_col, age),
        (_, _from),
        (_, message),
    ] = cells.as_slice()
    else {
        return Err(error(
            file,
            n,
            format!(
                "found {} column(s) in {:?}, expected an event row `Type  Reason  Age  From  Message`",
                cells.len(),
                line.trim()
            ),
        )
        .field("Events"));
    };
    if !matches!(*kind, "Normal" | "Warning") {
        return Err(error(
            file,
            n,
            format!("found {} in the Type column, expected Normal or Warning (are the columns shifted?)", crate::error::quoted(kind)),
        )
        .field("Events"));
    }
    // kubectl prints `<unknown>` for an event without times and `<invalid>` for one in the future.
    if age.starts_with("<unknown>") {
        r.warnings.push(format!(
            "{file}:{n}: the event {reason} has no time (`<unknown>` age): ignored"
        ));
        return Ok(());
    }
    let age: &str = if age.starts_with("<invalid>") {
        r.warnings.push(format!(
            "{file}:{n}: the event {reason} is dated after the text was taken (`<invalid>` age): \
             taken as just now"
        ));
        "0s"
    } else {
        age
    };
    let bad_age = || {
        InputError::new(
            file,
            format!(
                "found the age {}, expected an age such as 5m or `5m (x3 over 20m)`",
                crate::error::quoted(age)
            ),
        )
        .at(n, Some(*age_col))
        .field("Events")
    };
    let seen = super::text::parse_interval(age).ok_or_else(bad_age)?;
    // Relative to the time the text was taken: shifted to the evaluation time later.
    let at = |d: Duration| Timestamp(0).sub(d);
    r.events.push(HpaEvent {
        kind: String::new(),
        namespace: String::new(),
        name: String::new(),
        reason: (*reason).to_string(),
        message: kept(message),
        warning: *kind == "Warning",
        count: seen.count,
        first: at(seen.first),
        last: at(seen.last),
        origin: format!("{file}:{n}"),
        relative: true,
        count_hidden: false,
    });
    Ok(())
}

fn finish(file: &str, last_line: usize, r: Reading) -> Result<Pasted, InputError> {
    let truncated = |what: &str| {
        error(
            file,
            last_line,
            format!("found the end of the describe text, expected {what} (is the text cut short?)"),
        )
    };
    let name = r.name.clone().unwrap_or_default();
    let Some((kind, target)) = r.reference.clone() else {
        return Err(truncated("a `Reference:` line"));
    };
    if !r.metrics_seen {
        return Err(truncated("a `Metrics:` section"));
    }
    let Some(max) = r.max else {
        return Err(truncated("a `Max replicas:` line"));
    };
    let mut notes = Vec::new();
    // A text cut before `Deployment pods:` has no count: --current-replicas (or the target, or
    // the pods) gives it, and without them the count is what is missing. The API server defaults
    // both rules of a behavior with a select policy and policies, so a rule without them was
    // cut off, and reading on would be a silently different HPA.
    let (current_replicas, desired_replicas) = r.replicas.unzip();
    let whole_rule = |d: &str| {
        (r.behavior.get(d))
            .is_some_and(|v| v.get("selectPolicy").is_some() && v.get("policies").is_some())
    };
    if r.replicas.is_none()
        && r.lines.behavior > 0
        && !(whole_rule("scaleUp") && whole_rule("scaleDown"))
    {
        return Err(truncated(&format!(
            "the rest of `Behavior:` and the `{kind} pods:` line"
        )));
    }
    if r.replicas.is_none() {
        notes.push(format!(
            "The describe text ends before its `{kind} pods:` line: it gives no current or \
             desired count."
        ));
    }
    let mut metrics = r.metrics;
    let mut current = r.current;
    if let Some(pct) = r.v1_target {
        metrics.push(json!({"type": "Resource", "resource": {"name": "cpu",
            "target": {"type": "Utilization", "averageUtilization": pct}}}));
        if let Some(u) = r.v1_current {
            current.push(CurrentMetric {
                metric_type: "Resource".into(),
                name: "cpu".into(),
                average_utilization: Some(u),
                ..CurrentMetric::default()
            });
        }
    }
    let behavior = (r.lines.behavior > 0).then_some(r.behavior);
    let spec = v2_spec(
        scale_target_ref(&kind, &target),
        r.min,
        max,
        metrics,
        behavior,
    );
    notes.push(format!(
        "Read from `kubectl describe hpa` text ({file}): the HPA's spec and status as kubectl \
         printed them; the metric selectors and object apiVersions are not in that text."
    ));
    if !r.events.is_empty() {
        notes.push(
            "The Events section's ages are kubectl's, rounded down (\"20m\" is 20 to 21 minutes \
             before the text was taken, taken here as the evaluation time)."
                .to_string(),
        );
    }
    Ok(Pasted {
        name,
        namespace: r.namespace.unwrap_or_else(|| "default".to_string()),
        spec,
        status: HpaStatus {
            current_replicas,
            desired_replicas,
            scaled_to_zero: r.scaled_to_zero,
            current_metrics: current,
            conditions: r.conditions,
            // describe prints no lastScaleTime.
            last_scale_time: None,
        },
        events: r.events,
        notes,
        warnings: r.warnings,
        diagnostics: Vec::new(),
        lines: r.lines,
        unknown: r.unknown,
        labels: r.labels,
        unnamed_resources: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Pasted {
        let mut all = parse("d.txt", text).unwrap();
        assert_eq!(all.len(), 1);
        all.remove(0).1
    }

    fn describe(metrics: &str, rest: &str) -> String {
        format!(
            "Name:  web\nNamespace:  shop\nReference:  Deployment/web\nMetrics:  ( current / target )\n\
             {metrics}Min replicas:  1\nMax replicas:  10\nDeployment pods:  3 current / 4 desired\n{rest}"
        )
    }

    #[test]
    fn every_metric_line_reads_back_its_spec_and_status() {
        let p = one(&describe(
            "  resource cpu on pods  (as a percentage of request):  46% (23m) / 50%\n\
             \x20 resource memory on pods:  100Mi / 200Mi\n\
             \x20 resource cpu of container \"app\" on pods  (as a percentage of request):  <unknown> / 60%\n\
             \x20 \"http_requests\" on pods:  91 / 100\n\
             \x20 \"rps\" on Ingress/main (target value):  12k / 10k\n\
             \x20 \"queue\" (target average value):  30 / 40\n",
            "",
        ));
        let m = &p.spec["metrics"];
        assert_eq!(m[0]["resource"]["target"]["averageUtilization"], 50);
        assert_eq!(m[1]["resource"]["target"]["averageValue"], "200Mi");
        assert_eq!(m[2]["containerResource"]["container"], "app");
        assert_eq!(m[3]["pods"]["metric"]["name"], "http_requests");
        assert_eq!(m[4]["object"]["describedObject"]["kind"], "Ingress");
        assert_eq!(m[4]["object"]["target"]["value"], "10k");
        assert_eq!(m[5]["external"]["target"]["averageValue"], "40");
        let c = &p.status.current_metrics;
        assert_eq!(c.len(), 6, "one status entry per row, in the spec's order");
        assert_eq!(
            (c[0].average_utilization, c[0].average_value_milli),
            (Some(46), Some(23))
        );
        assert_eq!(
            (
                c[2].value_milli,
                c[2].average_value_milli,
                c[2].average_utilization
            ),
            (None, None, None),
            "the <unknown> one is an entry without a value"
        );
        assert_eq!(c[4].value_milli, Some(12_000_000));
        assert_eq!(p.unknown.len(), 1);
        assert_eq!(p.status.current_replicas, Some(3));
        assert_eq!(p.status.desired_replicas, Some(4));
        assert_eq!(p.lines.metrics, [5, 6, 7, 8, 9, 10]);
    }

    #[test]
    fn the_behavior_block_reads_back_windows_and_policies() {
        let p = one(&describe(
            "",
            "Behavior:\n  Scale Up:\n    Stabilization Window: 0 seconds\n    Select Policy: Max\n    \
             Policies:\n      - Type: Pods     Value: 4    Period: 15 seconds\n  Scale Down:\n    \
             Stabilization Window: 120 seconds\n    Select Policy: Min\n    Policies:\n      \
             - Type: Percent  Value: 10  Period: 60 seconds\n",
        ));
        let b = &p.spec["behavior"];
        assert_eq!(b["scaleUp"]["policies"][0]["value"], 4);
        assert_eq!(b["scaleDown"]["stabilizationWindowSeconds"], 120);
        assert_eq!(b["scaleDown"]["selectPolicy"], "Min");
    }

    #[test]
    fn no_behavior_block_leaves_behavior_unset() {
        let p = one(&describe("", ""));
        assert_eq!(p.spec.get("behavior"), None);
    }

    #[test]
    fn the_conditions_table_is_the_status_conditions() {
        let p = one(&describe(
            "  resource cpu on pods  (as a percentage of request):  <unknown> / 60%\n",
            "Conditions:\n  Type           Status  Reason             Message\n  ----           ------  ------             -------\n  \
             AbleToScale    True    SucceededGetScale  the HPA controller was able to get the target's current scale\n  \
             ScalingActive  False   AmbiguousSelector  pods by selector app=web are controlled by multiple HPAs: [shop/a shop/web]\n",
        ));
        let c = &p.status.conditions;
        assert_eq!(c.len(), 2);
        assert_eq!(
            (
                c[1].condition_type.as_str(),
                c[1].status.as_str(),
                c[1].reason.as_str()
            ),
            ("ScalingActive", "False", "AmbiguousSelector")
        );
        assert_eq!(
            c[1].message,
            "pods by selector app=web are controlled by multiple HPAs: [shop/a shop/web]"
        );
        assert_eq!(c[1].last_transition_time, None);
    }

    #[test]
    fn scaled_to_zero_comes_from_the_conditions_table() {
        let p = one(&describe(
            "",
            "Conditions:\n  Type          Status  Reason        Message\n  ----          ------  ------        -------\n  \
             ScaledToZero  True    ScaledToZero  the HPA controller scaled the workload to zero\n",
        ));
        assert!(p.status.scaled_to_zero);
    }

    #[test]
    fn event_ages_and_counts_read_as_describe_events_prints_them() {
        let p = one(&describe(
            "",
            "Events:\n  Type     Reason             Age                 From                       Message\n  \
             ----     ------             ----                ----                       -------\n  \
             Normal   SuccessfulRescale  3m50s               horizontal-pod-autoscaler  New size: 7; reason: cpu above target\n  \
             Warning  FailedGetScale     19m (x14 over 20m)  horizontal-pod-autoscaler  deployments/scale.apps \"web\" not found\n",
        ));
        let e = &p.events;
        assert_eq!(e.len(), 2);
        assert!(e[0].relative);
        assert_eq!(e[0].last, Timestamp(-230_000));
        assert_eq!(
            (e[1].count, e[1].first, e[1].last),
            (14, Timestamp(-1_200_000), Timestamp(-1_140_000))
        );
        let placed = e[1].clone().at(Timestamp(10_000_000));
        assert_eq!(placed.last, Timestamp(10_000_000 - 1_140_000));
    }

    #[test]
    fn unknown_ages_are_skipped_and_invalid_ones_taken_as_now() {
        let p = one(&describe(
            "",
            "Events:\n  Type     Reason             Age        From  Message\n  \
             ----     ------             ----       ----  -------\n  \
             Normal   SuccessfulRescale  <unknown>  hpa   New size: 7; reason: cpu above target\n  \
             Normal   SuccessfulRescale  <invalid>  hpa   New size: 8; reason: cpu above target\n",
        ));
        assert_eq!(p.events.len(), 1);
        assert_eq!(p.events[0].last, Timestamp(0));
        assert_eq!(p.warnings.len(), 2, "{:?}", p.warnings);
    }

    #[test]
    fn the_v1_describer_lines_are_read_too() {
        let p = one(
            "Name:  legacy\nNamespace:  default\nReference:  Deployment/legacy\n\
             Target CPU utilization:  70%\nCurrent CPU utilization:  85%\nMin replicas:  1\n\
             Max replicas:  4\nDeployment pods:  2 current / 3 desired\n",
        );
        assert_eq!(
            p.spec["metrics"][0]["resource"]["target"]["averageUtilization"],
            70
        );
        assert_eq!(p.status.current_metrics[0].average_utilization, Some(85));
    }

    #[test]
    fn malformed_lines_are_located() {
        let err = parse(
            "d.txt",
            &describe("  resource cpu on pods:  lots / 50%\n", ""),
        )
        .unwrap_err();
        assert_eq!(err.line, Some(5), "{err}");
        let err = parse(
            "d.txt",
            &describe(
                "",
                "Events:\n  Type  Reason  Age  From  Message\n  ----  ------  ---  ----  -------\n  \
                 Normal  SuccessfulRescale  yesterday  hpa  New size: 3\n",
            ),
        )
        .unwrap_err();
        assert_eq!((err.line, err.column), (Some(11), Some(30)), "{err}");
        let err = parse("d.txt", "Name:  web\nNamespace:  shop\n").unwrap_err();
        assert!(
            err.message.contains("expected a `Reference:` line"),
            "{err}"
        );
    }
}
