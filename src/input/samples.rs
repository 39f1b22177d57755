//! Per-pod samples as CSV: the pods the controller's pod lister would return, and the answers the
//! resource metrics API (`metrics.k8s.io` PodMetrics) and the custom metrics API (`Pods` metrics)
//! would give for them. This is the only module that knows the samples CSV format.
//!
//! Columns (header required; any order; names trimmed and case-insensitive; UTF-8 BOM and CRLF
//! accepted; cells trimmed):
//!
//! | column | meaning | when absent or empty |
//! |---|---|---|
//! | `pod` | pod name (required) | error |
//! | `container` | container name: one row per container | one container named `app` |
//! | `ready` | Ready condition: true/false, yes/no, 1/0, or unknown | true |
//! | `phase` | Running, Pending, Succeeded, Failed, Unknown | Running |
//! | `deleting` | the pod has a `deletionTimestamp`: true/false | false |
//! | `started` | `status.startTime`: an age (`45s`, `1h30m`) or an RFC 3339 time | Go's zero time |
//! | `ready_changed` | `lastTransitionTime` of the Ready condition, same forms | the start time |
//! | `<resource>_request` | the container's request (`250m`, `512Mi`) | no request |
//! | a `Pods` metric's name | that pod's value of the metric | no value for the pod |
//! | any other name (`cpu`, `memory`, `nvidia.com/gpu`) | the container's usage of that resource | no usage |
//!
//! Choices a reader should know:
//! - Without a `container` column each pod has one container named `app`; a `ContainerResource`
//!   metric naming another container needs the `container` column.
//! - A pod with no usage value in any of its rows gets no PodMetrics at all: it is *missing* for
//!   every resource. Otherwise its PodMetrics lists every container row, and an empty usage cell
//!   means that container's usage lacks the resource, so (as in `metrics/client.go`
//!   `getPodMetrics`) the whole pod is missing for that resource under a `Resource` metric; a
//!   `ContainerResource` metric looks only at its own container's cell.
//! - Pod-level cells (`ready`, `phase`, `deleting`, `started`, `ready_changed`, Pods metrics) may be
//!   repeated on each row of a pod or left empty on some rows; the values given must agree, and a
//!   pod where none is given gets the default.
//! - Ages are measured back from `now`, so they cannot be negative; RFC 3339 times are taken as
//!   given, even after `now`.
//! - Usage and request quantities must be 0 or more; Pods metric values may be negative.
//! - Every sample is taken at `now`: resource samples with the `--metrics-window` window, Pods
//!   metric values with the custom metrics API's default window of one minute.

mod columns;

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use csv::{ReaderBuilder, StringRecord, Trim};

use crate::error::InputError;
use crate::quantity::parse_milli;
use crate::scenario::{
    ConditionStatus, Container, ContainerKind, ContainerMetrics, MetricSpec, Pod, PodMetricValue,
    PodMetrics, PodPhase, ReadyCondition, Resources,
};
use crate::time::{Duration, Timestamp};

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Samples {
    pub pods: Vec<Pod>,
    pub resource_metrics: Vec<PodMetrics>,
    /// Pods metric values by CSV column, i.e. by metric name.
    pub pod_metrics: BTreeMap<String, Vec<PodMetricValue>>,
    /// Pods metric values matched to the HPA, keyed by the metric's position in `spec.metrics`
    /// (what the scenario reads): filled by the capture or the status-only approximation.
    pub by_entry: BTreeMap<usize, Vec<PodMetricValue>>,
    /// Columns nothing reads.
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SampleSettings<'a> {
    /// The evaluation time: ages are measured back from it, and samples are taken at it.
    pub now: Timestamp,
    /// The `window` each resource usage sample reports.
    pub window: Duration,
    /// `--metrics` gives the usage: no usage column is needed.
    pub usage_given: bool,
    /// `--custom-metrics` was given: a Pods metric without a column got an empty answer.
    pub custom_answered: bool,
    /// Metrics answered by other files: columns so named are not unknown.
    pub other_names: &'a [String],
}

/// The name of each pod's only container when the file has no `container` column.
pub const DEFAULT_CONTAINER: &str = "app";

/// The custom metrics API's window when a value has no `windowSeconds` (`metrics/client.go`).
const CUSTOM_METRIC_WINDOW: Duration = Duration::from_secs(60);

const KNOWN_COLUMNS: [(&str, Column); 7] = [
    ("pod", Column::Pod),
    ("container", Column::Container),
    ("ready", Column::Ready),
    ("phase", Column::Phase),
    ("deleting", Column::Deleting),
    ("started", Column::Started),
    ("ready_changed", Column::ReadyChanged),
];

const PHASES: [(&str, PodPhase); 5] = [
    ("Running", PodPhase::Running),
    ("Pending", PodPhase::Pending),
    ("Succeeded", PodPhase::Succeeded),
    ("Failed", PodPhase::Failed),
    ("Unknown", PodPhase::Unknown),
];

/// What a column holds, decided once from the header.
#[derive(Debug, Clone, PartialEq)]
enum Column {
    Pod,
    Container,
    Ready,
    Phase,
    Deleting,
    Started,
    ReadyChanged,
    /// Usage of this resource.
    Usage(String),
    /// Request of this resource.
    Request(String),
    /// The values of a Pods metric: an index into the metric slots.
    PodsMetric(usize),
    /// A column nothing reads (warned about).
    Ignored,
}

struct Header {
    /// Column names as written (trimmed), for messages.
    names: Vec<String>,
    columns: Vec<Column>,
    pod: usize,
    container: Option<usize>,
    /// Per Pods metric name (as in the HPA), its slot.
    metrics: Vec<(String, usize)>,
    slots: usize,
}

/// A pod-level value and the line it was first given on.
struct Given<T> {
    value: T,
    line: usize,
}

/// One pod while its rows are read.
struct PodRows {
    name: String,
    first_line: usize,
    ready: Option<Given<ConditionStatus>>,
    phase: Option<Given<PodPhase>>,
    deleting: Option<Given<bool>>,
    started: Option<Given<Timestamp>>,
    ready_changed: Option<Given<Timestamp>>,
    metric_values: Vec<Option<Given<i64>>>,
    containers: Vec<Container>,
    /// The container names seen, to find a repeated one without scanning the rows again.
    container_names: std::collections::HashSet<String>,
    usage: Vec<ContainerMetrics>,
    any_usage: bool,
}

/// Parses a samples CSV read from `file` (the name is for messages only).
pub fn parse(
    file: &str,
    text: &str,
    metrics: &[MetricSpec],
    settings: &SampleSettings<'_>,
) -> Result<Samples, InputError> {
    let mut reader = csv_reader(text);
    let header_record = reader.headers().map_err(|e| csv_error(file, &e))?;
    let (header, warnings) = read_header(file, header_record, metrics, settings)?;

    let mut pods: Vec<PodRows> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut record = StringRecord::new();
    while reader
        .read_record(&mut record)
        .map_err(|e| csv_error(file, &e))?
    {
        read_row(file, &header, &record, settings.now, &mut pods, &mut index)?;
    }
    let mut samples = assemble(pods, &header, settings);
    samples.warnings = warnings;
    Ok(samples)
}

/// Whether a pod counts toward the current replica count when no other source gives it: not
/// deleting, not Failed, not Succeeded.
pub fn counts_as_replica(pod: &Pod) -> bool {
    !pod.deleting && !matches!(pod.phase, PodPhase::Failed | PodPhase::Succeeded)
}

fn read_header(
    file: &str,
    record: &StringRecord,
    metrics: &[MetricSpec],
    settings: &SampleSettings<'_>,
) -> Result<(Header, Vec<String>), InputError> {
    let place = HeaderLine {
        file,
        line: record_line(record),
    };
    let names: Vec<String> = record.iter().map(str::to_string).collect();
    let lower: Vec<String> = names.iter().map(|n| n.to_lowercase()).collect();
    place.check_names(&names, &lower)?;

    let mut columns: Vec<Option<Column>> = lower
        .iter()
        .map(|name| {
            KNOWN_COLUMNS
                .iter()
                .find(|(known, _)| known == name)
                .map(|(_, column)| column.clone())
        })
        .collect();
    let Some(pod) = lower.iter().position(|n| n == "pod") else {
        return Err(place.whole(format!(
            "found {}, expected a `pod` column",
            describe_columns(&names)
        )));
    };
    let container = lower.iter().position(|n| n == "container");
    let claim = Claim {
        place: &place,
        names: &names,
        lower: &lower,
        custom_answered: settings.custom_answered,
    };
    let (metric_slots, slots) = claim.metric_columns(&mut columns, metrics)?;

    let mut columns: Vec<Column> = columns
        .into_iter()
        .zip(lower)
        .map(|(column, name)| {
            column.unwrap_or_else(|| match name.strip_suffix("_request") {
                Some(resource) if !resource.is_empty() => Column::Request(resource.to_string()),
                _ => Column::Usage(name),
            })
        })
        .collect();
    let unread = unread_columns(&place, &names, &columns, metrics, settings)?;
    for i in unread.columns {
        if let Some(c) = columns.get_mut(i) {
            *c = Column::Ignored;
        }
    }
    Ok((
        Header {
            names,
            columns,
            pod,
            container,
            metrics: metric_slots,
            slots,
        },
        unread.warnings,
    ))
}

/// The header as the Pods metrics look for their columns.
struct Claim<'a> {
    place: &'a HeaderLine<'a>,
    names: &'a [String],
    lower: &'a [String],
    custom_answered: bool,
}

impl Claim<'_> {
    /// Pods metrics claim their columns before the `_request` and resource rules run: each
    /// metric's slot, and how many slots there are.
    fn metric_columns(
        &self,
        columns: &mut [Option<Column>],
        metrics: &[MetricSpec],
    ) -> Result<(Vec<(String, usize)>, usize), InputError> {
        let mut metric_slots: Vec<(String, usize)> = Vec::new();
        let mut slot_columns: Vec<usize> = Vec::new();
        for spec in metrics {
            let MetricSpec::Pods { metric, .. } = spec else {
                continue;
            };
            if metric_slots.iter().any(|(name, _)| *name == metric.name) {
                continue;
            }
            let Some(column) = self.column_of(columns, &metric.name)? else {
                // The custom metrics API answered without it: an empty answer.
                continue;
            };
            let slot = match slot_columns.iter().position(|&c| c == column) {
                Some(slot) => slot,
                None => {
                    slot_columns.push(column);
                    slot_columns.len() - 1
                }
            };
            if let Some(c) = columns.get_mut(column) {
                *c = Some(Column::PodsMetric(slot));
            }
            metric_slots.push((metric.name.clone(), slot));
        }
        Ok((metric_slots, slot_columns.len()))
    }

    /// The column of the Pods metric `metric`; `None` when the custom metrics API answered
    /// without it.
    fn column_of(
        &self,
        columns: &[Option<Column>],
        metric: &str,
    ) -> Result<Option<usize>, InputError> {
        let names = self.names;
        let wanted = metric.to_lowercase();
        let Some(column) = self.lower.iter().position(|n| *n == wanted) else {
            if self.custom_answered {
                return Ok(None);
            }
            let free: Vec<usize> = (0..names.len())
                .filter(|&i| columns.get(i).is_some_and(Option::is_none))
                .collect();
            if let Some(i) = columns::closest(names, &free, metric) {
                let found = names.get(i).map_or("", String::as_str);
                return Err(self.place.at(
                    i,
                    found,
                    format!(
                        "found the column {found}; the Pods metric {metric} reads its values \
                         from a column named {metric}"
                    ),
                ));
            }
            return Err(self.place.whole(format!(
                "found {}, expected a column named {metric} for the Pods metric {metric}",
                describe_columns(names),
            )));
        };
        if KNOWN_COLUMNS.iter().any(|(known, _)| *known == wanted) {
            return Err(self.place.at(
                column,
                names.get(column).map_or("", String::as_str),
                format!(
                    "found the Pods metric {metric} named like the `{wanted}` column, expected a \
                     metric name that is not a samples column"
                ),
            ));
        }
        Ok(Some(column))
    }
}

/// The columns nothing reads (to be ignored with a warning), or the first needed column that is
/// missing.
fn unread_columns(
    place: &HeaderLine<'_>,
    names: &[String],
    columns: &[Column],
    metrics: &[MetricSpec],
    settings: &SampleSettings<'_>,
) -> Result<columns::Unread, InputError> {
    let read: Vec<columns::Read<'_>> = columns
        .iter()
        .map(|c| match c {
            Column::Usage(r) => columns::Read::Usage(r),
            Column::Request(r) => columns::Read::Request(r),
            _ => columns::Read::Known,
        })
        .collect();
    columns::check(
        &columns::Context {
            file: place.file,
            line: place.line,
            usage_given: settings.usage_given,
            other_names: settings.other_names,
        },
        names,
        &read,
        metrics,
    )
}

fn read_row(
    file: &str,
    header: &Header,
    record: &StringRecord,
    now: Timestamp,
    pods: &mut Vec<PodRows>,
    index: &mut HashMap<String, usize>,
) -> Result<(), InputError> {
    let line = record_line(record);
    let cell = |column: usize| Cell {
        file,
        line,
        column: column + 1,
        field: header.names.get(column).map_or("", String::as_str),
        text: record.get(column).unwrap_or(""),
    };

    let pod_cell = cell(header.pod);
    if pod_cell.text.is_empty() {
        return Err(pod_cell.error("a pod name"));
    }
    let slot = match index.get(pod_cell.text) {
        Some(&slot) if header.container.is_none() => {
            let first = pods.get(slot).map_or(0, |p| p.first_line);
            return Err(pod_cell.message(format!(
                "found the pod \"{}\" again (first on line {first}), expected each pod once \
                 (add a `container` column for one row per container)",
                pod_cell.text
            )));
        }
        Some(&slot) => slot,
        None => {
            index.insert(pod_cell.text.to_string(), pods.len());
            pods.push(PodRows {
                name: pod_cell.text.to_string(),
                first_line: line,
                ready: None,
                phase: None,
                deleting: None,
                started: None,
                ready_changed: None,
                metric_values: (0..header.slots).map(|_| None).collect(),
                containers: Vec::new(),
                container_names: std::collections::HashSet::new(),
                usage: Vec::new(),
                any_usage: false,
            });
            pods.len() - 1
        }
    };
    let Some(rows) = pods.get_mut(slot) else {
        return Ok(());
    };

    let container_name = match header.container {
        Some(column) => {
            let c = cell(column);
            if c.text.is_empty() {
                return Err(c.error("a container name"));
            }
            if !rows.container_names.insert(c.text.to_string()) {
                return Err(c.message(format!(
                    "found the container {} of pod {} again, expected each pod and container \
                     once",
                    crate::error::quoted(c.text),
                    crate::error::quoted(&rows.name)
                )));
            }
            c.text
        }
        None => DEFAULT_CONTAINER,
    };

    let mut requests = Vec::new();
    let mut usage = Vec::new();
    for (i, column) in header.columns.iter().enumerate() {
        let c = cell(i);
        if c.text.is_empty() {
            continue;
        }
        match column {
            Column::Pod | Column::Container | Column::Ignored => {}
            Column::Ready => agree(&mut rows.ready, parse_ready(&c)?, &c)?,
            Column::Phase => agree(&mut rows.phase, parse_phase(&c)?, &c)?,
            Column::Deleting => agree(&mut rows.deleting, parse_bool(&c)?, &c)?,
            Column::Started => agree(&mut rows.started, parse_time(&c, now)?, &c)?,
            Column::ReadyChanged => agree(&mut rows.ready_changed, parse_time(&c, now)?, &c)?,
            Column::Usage(resource) => usage.push((resource.clone(), parse_amount(&c)?)),
            Column::Request(resource) => requests.push((resource.clone(), parse_amount(&c)?)),
            Column::PodsMetric(slot) => {
                let value = parse_milli(c.text).map_err(|e| c.message(e.to_string()))?;
                if let Some(given) = rows.metric_values.get_mut(*slot) {
                    agree(given, value, &c)?;
                }
            }
        }
    }
    rows.any_usage |= !usage.is_empty();
    rows.containers.push(Container {
        name: container_name.to_string(),
        kind: ContainerKind::App,
        requests: Resources(requests),
    });
    rows.usage.push(ContainerMetrics {
        name: container_name.to_string(),
        usage: Resources(usage),
    });
    Ok(())
}

/// Turns the rows read into the scenario's pods and metric samples, in file order.
fn assemble(pods: Vec<PodRows>, header: &Header, settings: &SampleSettings<'_>) -> Samples {
    let mut samples = Samples {
        pods: Vec::with_capacity(pods.len()),
        ..Samples::default()
    };
    let mut slot_values: Vec<Vec<PodMetricValue>> = (0..header.slots).map(|_| Vec::new()).collect();
    for rows in pods {
        for (given, values) in rows.metric_values.iter().zip(&mut slot_values) {
            if let Some(given) = given {
                values.push(PodMetricValue {
                    pod: rows.name.clone(),
                    value_milli: given.value,
                    timestamp: settings.now,
                    window: CUSTOM_METRIC_WINDOW,
                });
            }
        }
        if rows.any_usage {
            samples.resource_metrics.push(PodMetrics {
                pod: rows.name.clone(),
                timestamp: settings.now,
                window: settings.window,
                containers: rows.usage,
            });
        }
        let start = rows.started.map_or(Timestamp::GO_ZERO, |g| g.value);
        samples.pods.push(Pod {
            name: rows.name,
            phase: rows.phase.map_or(PodPhase::Running, |g| g.value),
            deleting: rows.deleting.is_some_and(|g| g.value),
            start_time: Some(start),
            ready: Some(ReadyCondition {
                status: rows.ready.map_or(ConditionStatus::True, |g| g.value),
                last_transition_time: rows.ready_changed.map_or(start, |g| g.value),
            }),
            containers: rows.containers,
            pod_requests: None,
            overhead: None,
            placement: Default::default(),
        });
    }
    // An API that returns no item for a metric is an absent name, not an empty list.
    for (slot, values) in slot_values.into_iter().enumerate() {
        if values.is_empty() {
            continue;
        }
        let mut names = header
            .metrics
            .iter()
            .filter(|(_, s)| *s == slot)
            .map(|(name, _)| name)
            .peekable();
        while let Some(name) = names.next() {
            if names.peek().is_some() {
                samples.pod_metrics.insert(name.clone(), values.clone());
            } else {
                samples.pod_metrics.insert(name.clone(), values);
                break;
            }
        }
    }
    samples
}

/// Records a pod-level value, refusing one that disagrees with an earlier row of the same pod.
fn agree<T: PartialEq>(
    slot: &mut Option<Given<T>>,
    value: T,
    cell: &Cell<'_>,
) -> Result<(), InputError> {
    match slot {
        Some(given) if given.value != value => Err(cell.error(format_args!(
            "the value given on line {} (the rows of one pod must agree)",
            given.line
        ))),
        Some(_) => Ok(()),
        None => {
            *slot = Some(Given {
                value,
                line: cell.line,
            });
            Ok(())
        }
    }
}

fn parse_bool(cell: &Cell<'_>) -> Result<bool, InputError> {
    let t = cell.text;
    if ["true", "yes", "1"]
        .iter()
        .any(|v| t.eq_ignore_ascii_case(v))
    {
        Ok(true)
    } else if ["false", "no", "0"]
        .iter()
        .any(|v| t.eq_ignore_ascii_case(v))
    {
        Ok(false)
    } else {
        Err(cell.error("true or false (or yes/no, 1/0)"))
    }
}

fn parse_ready(cell: &Cell<'_>) -> Result<ConditionStatus, InputError> {
    if cell.text.eq_ignore_ascii_case("unknown") {
        return Ok(ConditionStatus::Unknown);
    }
    match parse_bool(cell) {
        Ok(true) => Ok(ConditionStatus::True),
        Ok(false) => Ok(ConditionStatus::False),
        Err(_) => Err(cell.error("true, false or unknown (or yes/no, 1/0)")),
    }
}

fn parse_phase(cell: &Cell<'_>) -> Result<PodPhase, InputError> {
    PHASES
        .iter()
        .find(|(name, _)| cell.text.eq_ignore_ascii_case(name))
        .map(|&(_, phase)| phase)
        .ok_or_else(|| cell.error("Running, Pending, Succeeded, Failed or Unknown"))
}

/// An RFC 3339 time, or an age measured back from `now`.
fn parse_time(cell: &Cell<'_>, now: Timestamp) -> Result<Timestamp, InputError> {
    if let Some(t) = Timestamp::parse_rfc3339(cell.text) {
        return Ok(t);
    }
    if cell.text.starts_with('-') {
        return Err(cell.error("an age of 0 or more (how long ago, such as 45s or 10m)"));
    }
    Duration::parse(cell.text)
        .map(|age| now.sub(age))
        .map_err(|_| {
            cell.error(
                "an age such as 45s, 10m or 1h30m, or an RFC 3339 time such as \
                 2026-11-29T15:04:05Z",
            )
        })
}

/// A usage or request quantity in milli-units: never negative.
fn parse_amount(cell: &Cell<'_>) -> Result<i64, InputError> {
    match parse_milli(cell.text) {
        Ok(v) if v < 0 => Err(cell.error("a quantity of 0 or more")),
        Ok(v) => Ok(v),
        Err(e) => Err(cell.message(e.to_string())),
    }
}

fn describe_columns(names: &[String]) -> String {
    if names.is_empty() {
        "no columns".to_string()
    } else {
        format!(
            "the columns {}",
            crate::error::name_list(names, crate::error::LIST_NAMES)
        )
    }
}

/// The CSV reader every CSV input uses: a header, trimmed cells, equal row lengths, and lines
/// that start with `#` skipped as comments (no pod name, time or number starts with one).
pub(crate) fn csv_reader(text: &str) -> csv::Reader<&[u8]> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    ReaderBuilder::new()
        .comment(Some(b'#'))
        .has_headers(true)
        .flexible(false)
        .trim(Trim::All)
        .from_reader(text.as_bytes())
}

/// The 1-based line a record starts on.
pub(crate) fn record_line(record: &StringRecord) -> usize {
    record.position().map_or(1, |p| line_number(p.line()))
}

fn line_number(line: u64) -> usize {
    usize::try_from(line).unwrap_or(usize::MAX)
}

/// A CSV syntax error (ragged row, invalid UTF-8) as a located input error.
pub(crate) fn csv_error(file: &str, err: &csv::Error) -> InputError {
    let message = match err.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("found {len} fields, expected {expected_len} as in the header"),
        csv::ErrorKind::Utf8 { .. } => "found bytes that are not UTF-8, expected UTF-8 text".into(),
        _ => format!("cannot read CSV: {err}"),
    };
    let error = InputError::new(file, message);
    match err.position() {
        Some(pos) => error.at(line_number(pos.line()), None),
        None => error,
    }
}

/// One cell, with everything an error about it needs.
pub(crate) struct Cell<'a> {
    pub file: &'a str,
    pub line: usize,
    /// 1-based.
    pub column: usize,
    pub field: &'a str,
    pub text: &'a str,
}

impl Cell<'_> {
    /// "found <the cell>, expected <expected>", located at the cell.
    pub(crate) fn error(&self, expected: impl fmt::Display) -> InputError {
        if self.text.is_empty() {
            self.message(format!("found an empty cell, expected {expected}"))
        } else {
            self.message(format!(
                "found {}, expected {expected}",
                crate::error::quoted(self.text)
            ))
        }
    }

    pub(crate) fn message(&self, message: String) -> InputError {
        InputError::new(self.file, message)
            .at(self.line, Some(self.column))
            .field(self.field)
    }
}

/// A CSV header's line, for its errors.
pub(crate) struct HeaderLine<'a> {
    pub file: &'a str,
    pub line: usize,
}

impl HeaderLine<'_> {
    /// An error at column `column` (0-based), named `name`.
    pub(crate) fn at(&self, column: usize, name: &str, message: String) -> InputError {
        InputError::new(self.file, message)
            .at(self.line, Some(column + 1))
            .field(name)
    }

    /// An error about the header as a whole.
    pub(crate) fn whole(&self, message: String) -> InputError {
        InputError::new(self.file, message).at(self.line, None)
    }

    /// Every column has a name, and no name is given twice.
    fn check_names(&self, names: &[String], lower: &[String]) -> Result<(), InputError> {
        let mut first_seen: HashMap<&str, usize> = HashMap::with_capacity(lower.len());
        for (i, (name, shown)) in lower.iter().zip(names).enumerate() {
            if name.is_empty() {
                return Err(self.at(
                    i,
                    "",
                    "found an empty column name, expected a name such as pod, cpu or cpu_request"
                        .to_string(),
                ));
            }
            let first = *first_seen.entry(name.as_str()).or_insert(i);
            if first != i {
                return Err(self.at(
                    i,
                    shown,
                    format!(
                        "found the column {} again (first as column {}), expected each column once",
                        crate::error::quoted(shown),
                        first + 1
                    ),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{MetricIdentifier, MetricTarget, TargetType};

    const NOW: Timestamp = Timestamp(1_800_000_000_000);
    const SETTINGS: SampleSettings = SampleSettings {
        now: NOW,
        window: Duration::from_secs(30),
        usage_given: false,
        custom_answered: false,
        other_names: &[],
    };

    fn ago(secs: i64) -> Timestamp {
        NOW.sub(Duration::from_secs(secs))
    }

    fn pods_metric(name: &str) -> MetricSpec {
        MetricSpec::Pods {
            metric: MetricIdentifier {
                name: name.to_string(),
                selector: None,
            },
            target: MetricTarget {
                target_type: TargetType::AverageValue,
                average_utilization: None,
                average_value_milli: Some(1000),
                value_milli: None,
            },
        }
    }

    fn parse_ok(text: &str) -> Samples {
        parse("pods.csv", text, &[], &SETTINGS).unwrap()
    }

    fn res(list: &[(&str, i64)]) -> Resources {
        Resources(list.iter().map(|&(n, v)| (n.to_string(), v)).collect())
    }

    fn usage_of<'a>(samples: &'a Samples, pod: &str) -> Option<&'a PodMetrics> {
        samples.resource_metrics.iter().find(|m| m.pod == pod)
    }

    #[test]
    fn comment_lines_are_skipped_and_rows_keep_their_lines() {
        let text = "# captured at 15:00\npod,ready,started,cpu,cpu_request\n# the web pods\nweb-a,true,3h,350m,500m\n";
        let s = parse_ok(text);
        assert_eq!(s.pods.len(), 1);
        assert_eq!(s.pods[0].name, "web-a");
    }
    #[test]
    fn one_row_per_pod_gives_one_app_container_and_one_pod_metrics() {
        let s = parse_ok(include_str!("../../fixtures/samples/web-cpu.csv"));
        assert_eq!(s.pods.len(), 6);
        assert_eq!(s.resource_metrics.len(), 6);
        let pod = &s.pods[0];
        assert_eq!(pod.name, "web-7d4b9c-2xkqp");
        assert_eq!(pod.phase, PodPhase::Running);
        assert!(!pod.deleting);
        assert_eq!(pod.start_time, Some(ago(3 * 3600)));
        assert_eq!(
            pod.ready,
            Some(ReadyCondition {
                status: ConditionStatus::True,
                last_transition_time: ago(3 * 3600),
            })
        );
        assert_eq!(
            pod.containers,
            vec![Container {
                name: "app".to_string(),
                kind: ContainerKind::App,
                requests: res(&[("cpu", 500)]),
            }]
        );
        assert_eq!(pod.pod_requests, None);
        assert_eq!(
            s.resource_metrics[0],
            PodMetrics {
                pod: "web-7d4b9c-2xkqp".to_string(),
                timestamp: NOW,
                window: Duration::from_secs(30),
                containers: vec![ContainerMetrics {
                    name: "app".to_string(),
                    usage: res(&[("cpu", 350)]),
                }],
            }
        );
        let total: i64 = s
            .resource_metrics
            .iter()
            .map(|m| m.containers[0].usage.get("cpu").unwrap())
            .sum();
        assert_eq!(total, 2400);
        assert!(s.pod_metrics.is_empty());
    }

    #[test]
    fn absent_columns_take_their_defaults() {
        let s = parse_ok("pod\nweb-1\n");
        assert_eq!(
            s.pods,
            vec![Pod {
                name: "web-1".to_string(),
                phase: PodPhase::Running,
                deleting: false,
                start_time: Some(Timestamp::GO_ZERO),
                ready: Some(ReadyCondition {
                    status: ConditionStatus::True,
                    last_transition_time: Timestamp::GO_ZERO,
                }),
                containers: vec![Container {
                    name: "app".to_string(),
                    kind: ContainerKind::App,
                    requests: Resources::default(),
                }],
                pod_requests: None,
                overhead: None,
                placement: Default::default(),
            }]
        );
        assert!(s.resource_metrics.is_empty());
    }

    #[test]
    fn empty_cells_take_the_defaults_too() {
        let s = parse_ok("pod,ready,phase,deleting,started,ready_changed\nweb-1,,,,,\n");
        assert_eq!(s.pods, parse_ok("pod\nweb-1\n").pods);
    }

    #[test]
    fn column_names_are_trimmed_case_insensitive_and_in_any_order() {
        let s = parse_ok(" CPU_Request , Cpu ,POD, Ready\n500m,250m,web-1,no\n");
        assert_eq!(s.pods[0].name, "web-1");
        assert_eq!(s.pods[0].containers[0].requests, res(&[("cpu", 500)]));
        assert_eq!(
            s.pods[0].ready.map(|r| r.status),
            Some(ConditionStatus::False)
        );
        assert_eq!(
            s.resource_metrics[0].containers[0].usage,
            res(&[("cpu", 250)])
        );
    }

    #[test]
    fn a_utf8_bom_and_crlf_line_ends_are_accepted() {
        let s = parse_ok("\u{feff}pod,cpu\r\nweb-1,250m\r\nweb-2, 300m \r\n");
        assert_eq!(s.pods.len(), 2);
        assert_eq!(s.pods[0].name, "web-1");
        assert_eq!(
            s.resource_metrics[1].containers[0].usage,
            res(&[("cpu", 300)])
        );
    }

    #[test]
    fn every_other_column_is_a_resource_usage_or_request() {
        let s = parse_ok(
            "pod,nvidia.com/gpu,nvidia.com/gpu_request,ephemeral-storage,memory_request\n\
             web-1,1,1,1Gi,512Mi\n",
        );
        assert_eq!(
            s.pods[0].containers[0].requests,
            res(&[("nvidia.com/gpu", 1000), ("memory", 536_870_912_000)])
        );
        assert_eq!(
            s.resource_metrics[0].containers[0].usage,
            res(&[
                ("nvidia.com/gpu", 1000),
                ("ephemeral-storage", 1_073_741_824_000)
            ])
        );
    }

    #[test]
    fn booleans_accept_true_false_yes_no_one_zero_in_any_case() {
        for (text, ready, deleting) in [
            ("true", ConditionStatus::True, true),
            ("TRUE", ConditionStatus::True, true),
            ("Yes", ConditionStatus::True, true),
            ("1", ConditionStatus::True, true),
            ("false", ConditionStatus::False, false),
            ("No", ConditionStatus::False, false),
            ("0", ConditionStatus::False, false),
        ] {
            let s = parse_ok(&format!("pod,ready,deleting\nweb-1,{text},{text}\n"));
            assert_eq!(s.pods[0].ready.map(|r| r.status), Some(ready), "{text}");
            assert_eq!(s.pods[0].deleting, deleting, "{text}");
        }
        let s = parse_ok("pod,ready\nweb-1,Unknown\n");
        assert_eq!(
            s.pods[0].ready.map(|r| r.status),
            Some(ConditionStatus::Unknown)
        );
    }

    #[test]
    fn phases_are_case_insensitive() {
        for (text, phase) in [
            ("Running", PodPhase::Running),
            ("pending", PodPhase::Pending),
            ("SUCCEEDED", PodPhase::Succeeded),
            ("failed", PodPhase::Failed),
            ("unknown", PodPhase::Unknown),
        ] {
            let s = parse_ok(&format!("pod,phase\nweb-1,{text}\n"));
            assert_eq!(s.pods[0].phase, phase, "{text}");
        }
    }

    #[test]
    fn times_are_ages_before_now_or_rfc3339() {
        for (text, expected) in [
            ("45s", ago(45)),
            ("10m", ago(600)),
            ("1h30m", ago(5400)),
            ("0", NOW),
            (
                "2026-11-29T15:04:05Z",
                Timestamp::parse_rfc3339("2026-11-29T15:04:05Z").unwrap(),
            ),
        ] {
            let s = parse_ok(&format!("pod,started,ready_changed\nweb-1,{text},{text}\n"));
            assert_eq!(s.pods[0].start_time, Some(expected), "{text}");
            assert_eq!(
                s.pods[0].ready.map(|r| r.last_transition_time),
                Some(expected),
                "{text}"
            );
        }
    }

    #[test]
    fn ready_changed_defaults_to_the_start_time() {
        let s = parse_ok("pod,started\nweb-1,2m\n");
        assert_eq!(
            s.pods[0].ready.map(|r| r.last_transition_time),
            Some(ago(120))
        );
    }

    #[test]
    fn mixed_pods_keep_phase_readiness_deletion_and_missing_samples() {
        let s = parse_ok(include_str!("../../fixtures/samples/web-mixed.csv"));
        let summary: Vec<_> = s
            .pods
            .iter()
            .map(|p| {
                (
                    p.phase,
                    p.ready.unwrap().status,
                    p.deleting,
                    usage_of(&s, &p.name).is_some(),
                )
            })
            .collect();
        use ConditionStatus::{False, True};
        assert_eq!(
            summary,
            vec![
                (PodPhase::Running, True, false, true),
                (PodPhase::Running, False, false, true),
                (PodPhase::Pending, False, false, false),
                (PodPhase::Failed, False, false, false),
                (PodPhase::Running, True, true, true),
                (PodPhase::Running, True, false, false),
            ]
        );
        assert_eq!(s.pods[1].start_time, Some(ago(90)));
        assert_eq!(
            s.pods[1].ready.map(|r| r.last_transition_time),
            Some(ago(60))
        );
        // A pod without a sample still has its request.
        assert_eq!(s.pods[5].containers[0].requests, res(&[("cpu", 500)]));
    }

    #[test]
    fn a_pod_without_one_resource_has_only_the_others_in_its_usage() {
        let s = parse_ok("pod,cpu,memory\nweb-1,250m,\nweb-2,,\n");
        assert_eq!(s.resource_metrics.len(), 1);
        assert_eq!(
            s.resource_metrics[0].containers[0].usage,
            res(&[("cpu", 250)])
        );
    }

    #[test]
    fn container_rows_give_one_container_each_and_share_pod_level_cells() {
        let s = parse_ok(include_str!("../../fixtures/samples/containers.csv"));
        assert_eq!(s.pods.len(), 3);
        assert_eq!(s.resource_metrics.len(), 3);
        let pod = &s.pods[0];
        assert_eq!(pod.start_time, Some(ago(7200)));
        assert_eq!(pod.ready.map(|r| r.status), Some(ConditionStatus::True));
        let names: Vec<_> = pod.containers.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["app", "istio-proxy"]);
        assert_eq!(
            pod.containers[1].requests,
            res(&[("cpu", 100), ("memory", 134_217_728_000)])
        );
        let metrics = &s.resource_metrics[0];
        assert_eq!(metrics.containers.len(), 2);
        assert_eq!(metrics.containers[1].name, "istio-proxy");
        assert_eq!(metrics.containers[1].usage.get("cpu"), Some(40));
        assert_eq!(
            s.pods[2].ready.map(|r| r.status),
            Some(ConditionStatus::False)
        );
    }

    #[test]
    fn a_container_row_without_usage_is_listed_empty_when_its_pod_has_usage() {
        let s = parse_ok(
            "pod,container,cpu\nweb-1,app,250m\nweb-1,sidecar,\nweb-2,app,\nweb-2,sidecar,\n",
        );
        // web-1 lists the sidecar with no cpu: the controller then misses web-1 for cpu.
        assert_eq!(s.resource_metrics.len(), 1);
        assert_eq!(
            s.resource_metrics[0].containers,
            vec![
                ContainerMetrics {
                    name: "app".to_string(),
                    usage: res(&[("cpu", 250)]),
                },
                ContainerMetrics {
                    name: "sidecar".to_string(),
                    usage: Resources::default(),
                },
            ]
        );
        // web-2 has no usage at all: no PodMetrics.
        assert!(usage_of(&s, "web-2").is_none());
    }

    #[test]
    fn rows_of_one_pod_need_not_be_adjacent() {
        let s = parse_ok("pod,container,ready\nweb-1,app,false\nweb-2,app,\nweb-1,sidecar,no\n");
        assert_eq!(s.pods.len(), 2);
        assert_eq!(s.pods[0].containers.len(), 2);
        assert_eq!(
            s.pods[0].ready.map(|r| r.status),
            Some(ConditionStatus::False)
        );
    }

    #[test]
    fn a_pods_metric_column_gives_one_value_per_pod_with_a_one_minute_window() {
        let specs = [pods_metric("packets-per-second")];
        let s = parse(
            "pods.csv",
            include_str!("../../fixtures/samples/pods-metric.csv"),
            &specs,
            &SETTINGS,
        )
        .unwrap();
        let values = &s.pod_metrics["packets-per-second"];
        let got: Vec<_> = values
            .iter()
            .map(|v| (v.pod.as_str(), v.value_milli))
            .collect();
        assert_eq!(
            got,
            [
                ("web-7d4b9c-2xkqp", 1_200_000),
                ("web-7d4b9c-5mfzl", 800_000),
                ("web-7d4b9c-8ndwq", 1_000_000),
                ("web-7d4b9c-c4rtv", 950_500),
            ]
        );
        assert!(
            values
                .iter()
                .all(|v| v.timestamp == NOW && v.window == Duration::from_secs(60))
        );
        // The metric's column is not a resource.
        assert!(s.resource_metrics.is_empty());
    }

    #[test]
    fn a_pods_metric_column_matches_case_insensitively_and_skips_empty_cells() {
        let specs = [pods_metric("QPS"), pods_metric("QPS")];
        let s = parse("pods.csv", "pod,qps\nweb-1,5\nweb-2,\n", &specs, &SETTINGS).unwrap();
        assert_eq!(s.pod_metrics.len(), 1);
        assert_eq!(s.pod_metrics["QPS"].len(), 1);
        assert_eq!(s.pod_metrics["QPS"][0].pod, "web-1");
    }

    #[test]
    fn a_pods_metric_without_any_value_is_absent() {
        let specs = [pods_metric("qps")];
        let s = parse("pods.csv", "pod,qps\nweb-1,\n", &specs, &SETTINGS).unwrap();
        assert!(s.pod_metrics.is_empty());
    }

    #[test]
    fn counts_as_replica_excludes_deleting_failed_and_succeeded_pods() {
        for (phase, deleting, counts) in [
            (PodPhase::Running, false, true),
            (PodPhase::Pending, false, true),
            (PodPhase::Unknown, false, true),
            (PodPhase::Running, true, false),
            (PodPhase::Failed, false, false),
            (PodPhase::Succeeded, false, false),
        ] {
            let mut pod = parse_ok("pod\nweb-1\n").pods.remove(0);
            pod.phase = phase;
            pod.deleting = deleting;
            assert_eq!(counts_as_replica(&pod), counts, "{phase:?} {deleting}");
        }
    }

    #[test]
    #[allow(clippy::too_many_lines, reason = "one table of cases")]
    fn bad_input_is_located_at_line_column_and_field() {
        // (rule, input, line, column, field, message start)
        type Case<'a> = (
            &'a str,
            &'a str,
            usize,
            Option<usize>,
            Option<&'a str>,
            &'a str,
        );
        let cases: &[Case<'_>] = &[
            (
                "no pod column",
                include_str!("../../fixtures/malformed/samples-no-pod-column.csv"),
                1,
                None,
                None,
                "found the columns name, ready, cpu, cpu_request, expected a `pod` column",
            ),
            (
                "empty file",
                "",
                1,
                None,
                None,
                "found no columns, expected a `pod` column",
            ),
            (
                "duplicate pod",
                include_str!("../../fixtures/malformed/samples-duplicate-pod.csv"),
                4,
                Some(1),
                Some("pod"),
                "found the pod \"web-1\" again (first on line 2), expected each pod once",
            ),
            (
                "bad phase",
                include_str!("../../fixtures/malformed/samples-bad-phase.csv"),
                3,
                Some(2),
                Some("phase"),
                "found \"Crashing\", expected Running, Pending, Succeeded, Failed or Unknown",
            ),
            (
                "bad quantity",
                include_str!("../../fixtures/malformed/samples-bad-quantity.csv"),
                3,
                Some(2),
                Some("cpu"),
                "found \"300 millicores\", expected",
            ),
            (
                "negative age",
                include_str!("../../fixtures/malformed/samples-bad-age.csv"),
                3,
                Some(2),
                Some("started"),
                "found \"-5m\", expected an age of 0 or more",
            ),
            (
                "bad duration",
                "pod,ready_changed\nweb-1,ten minutes\n",
                2,
                Some(2),
                Some("ready_changed"),
                "found \"ten minutes\", expected an age such as 45s",
            ),
            (
                "empty pod name",
                "cpu,pod\n250m,\n",
                2,
                Some(2),
                Some("pod"),
                "found an empty cell, expected a pod name",
            ),
            (
                "duplicate container",
                "pod,container\nweb-1,app\nweb-1,app\n",
                3,
                Some(2),
                Some("container"),
                "found the container \"app\" of pod \"web-1\" again",
            ),
            (
                "empty container name",
                "pod,container\nweb-1,\n",
                2,
                Some(2),
                Some("container"),
                "found an empty cell, expected a container name",
            ),
            (
                "bad boolean",
                "pod,deleting\nweb-1,maybe\n",
                2,
                Some(2),
                Some("deleting"),
                "found \"maybe\", expected true or false (or yes/no, 1/0)",
            ),
            (
                "bad ready",
                "pod,Ready\nweb-1,maybe\n",
                2,
                Some(2),
                Some("Ready"),
                "found \"maybe\", expected true, false or unknown",
            ),
            (
                "disagreeing pod-level cells",
                "pod,container,ready\nweb-1,app,true\nweb-1,sidecar,\nweb-1,other,false\n",
                4,
                Some(3),
                Some("ready"),
                "found \"false\", expected the value given on line 2",
            ),
            (
                "negative usage",
                "pod,cpu\nweb-1,-250m\n",
                2,
                Some(2),
                Some("cpu"),
                "found \"-250m\", expected a quantity of 0 or more",
            ),
            (
                "ragged row",
                "pod,cpu\nweb-1,250m\nweb-2,250m,extra\n",
                3,
                None,
                None,
                "found 3 fields, expected 2 as in the header",
            ),
            (
                "duplicate column",
                "pod,cpu,CPU\n",
                1,
                Some(3),
                Some("CPU"),
                "found the column \"CPU\" again (first as column 2)",
            ),
            (
                "empty column name",
                "pod,,cpu\n",
                1,
                Some(2),
                Some(""),
                "found an empty column name",
            ),
        ];
        for &(rule, text, line, column, field, message) in cases {
            let err = parse("pods.csv", text, &[], &SETTINGS).unwrap_err();
            assert_eq!(err.file, "pods.csv", "{rule}");
            assert_eq!(err.line, Some(line), "{rule}: {err}");
            assert_eq!(err.column, column, "{rule}: {err}");
            assert_eq!(err.field.as_deref(), field, "{rule}: {err}");
            assert!(err.message.starts_with(message), "{rule}: {err}");
        }
    }

    #[test]
    fn a_pods_metric_without_its_column_is_an_error_listing_the_columns() {
        let specs = [pods_metric("packets-per-second")];
        let err = parse("pods.csv", "pod,cpu\nweb-1,1\n", &specs, &SETTINGS).unwrap_err();
        assert_eq!(err.line, Some(1));
        assert_eq!(
            err.message,
            "found the columns pod, cpu, expected a column named packets-per-second for the \
             Pods metric packets-per-second"
        );
    }

    #[test]
    fn a_pods_metric_without_its_column_names_the_closest_one() {
        let specs = [pods_metric("packets-per-second")];
        let err = parse(
            "pods.csv",
            "pod,packets_per_second\nweb-1,1\n",
            &specs,
            &SETTINGS,
        )
        .unwrap_err();
        assert_eq!((err.line, err.column), (Some(1), Some(2)));
        assert_eq!(
            err.message,
            "found the column packets_per_second; the Pods metric packets-per-second reads its \
             values from a column named packets-per-second"
        );
        // Answered by --custom-metrics without an item: no column is needed.
        let answered = SampleSettings {
            custom_answered: true,
            ..SETTINGS
        };
        let s = parse("pods.csv", "pod\nweb-1\n", &specs, &answered).unwrap();
        assert!(s.pod_metrics.is_empty());
    }

    #[test]
    fn a_pods_metric_named_like_a_samples_column_is_an_error() {
        let specs = [pods_metric("ready")];
        let err = parse("pods.csv", "pod,ready\nweb-1,1\n", &specs, &SETTINGS).unwrap_err();
        assert_eq!((err.line, err.column), (Some(1), Some(2)));
        assert!(
            err.message.contains("named like the `ready` column"),
            "{err}"
        );
    }

    #[test]
    fn a_pods_metric_value_must_agree_between_rows_and_may_be_negative() {
        let specs = [pods_metric("qps")];
        let s = parse(
            "pods.csv",
            "pod,container,qps\nweb-1,app,-2\nweb-1,sidecar,-2\n",
            &specs,
            &SETTINGS,
        )
        .unwrap();
        assert_eq!(s.pod_metrics["qps"][0].value_milli, -2000);
        let err = parse(
            "pods.csv",
            "pod,container,qps\nweb-1,app,2\nweb-1,sidecar,3\n",
            &specs,
            &SETTINGS,
        )
        .unwrap_err();
        assert_eq!((err.line, err.column), (Some(3), Some(3)));
    }
}
