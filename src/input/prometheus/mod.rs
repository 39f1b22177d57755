//! Replaying real load from Prometheus: a `/api/v1/query_range` answer given as `--load FILE`, or
//! the range queries hpacalc runs itself (`--prometheus URL --query METRIC=PROMQL`), become the
//! simulation's load curve; `--actual-file` or `--actual PROMQL` the replicas the cluster really
//! had. The only module that knows Prometheus: the simulation sees a `LoadCurve` and an
//! `ActualCurve`.
//!
//! Each HPA metric reads one series (`--load-map cpu=0` or `--load-map cpu='{pod="web"}'`; the
//! only series needs no map). Times become offsets from the first sample, on the query's step
//! (the smallest spacing of the samples); a NaN or missing sample is a gap over which the previous
//! value holds, and a warning counts them.

pub mod answer;
pub mod client;

use anyhow::Result;

use crate::error::{InputError, name_list, quoted};
use crate::input::inputs::Text;
use crate::scenario::MetricSpec;
use crate::scenario::simulation::{ActualCurve, LoadColumn, LoadCurve, LoadStep, Replay};
use crate::time::{Duration, Timestamp};
pub use answer::{Matrix, Series, looks_like_answer};
use client::{Client, Connection, Range};

/// The most points one load curve holds: a year of 30 s steps.
const MAX_POINTS: i64 = 1_100_000;
/// Prometheus refuses a range query of more points than this per series (`api.go`).
const MAX_QUERY_POINTS: i64 = 11_000;

/// A replayed load, ready for the simulation.
#[derive(Debug)]
pub struct Loaded {
    pub curve: LoadCurve,
    pub replay: Replay,
    pub actual: Option<ActualCurve>,
    /// From the first sample to the last: the default duration.
    pub span: Duration,
    pub warnings: Vec<String>,
}

/// How `--load-map` names a series.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Pick {
    Index(usize),
    /// `(label, equal, value)`: `pod="web"` or `pod!="web"`.
    Labels(Vec<(String, bool, String)>),
}

/// One `--load-map METRIC=SERIES`.
fn parse_map(text: &str) -> Result<(String, Pick), InputError> {
    let flag = |m: String| InputError::new("--load-map", m);
    let Some((metric, series)) = text.split_once('=') else {
        return Err(flag(format!(
            "found {}, expected METRIC=INDEX or METRIC={{LABEL=\"VALUE\"}}",
            quoted(text)
        )));
    };
    let (metric, series) = (metric.trim(), series.trim());
    let pick = if series.starts_with('{') {
        Pick::Labels(parse_matchers(series).map_err(|m| {
            flag(format!(
                "{metric}: found {}, expected label matchers such as {{pod=\"web\"}}: {m}",
                quoted(series)
            ))
        })?)
    } else {
        Pick::Index(series.parse().map_err(|_| {
            flag(format!(
                "{metric}: found {}, expected a 0-based series index or label matchers such as \
                 {{pod=\"web\"}}",
                quoted(series)
            ))
        })?)
    };
    Ok((metric.to_string(), pick))
}

/// `{a="b", c!="d"}`: PromQL's equality matchers (regex matchers are the query's job).
fn parse_matchers(text: &str) -> Result<Vec<(String, bool, String)>, String> {
    let inner = text
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .ok_or("no closing }")?;
    let mut out = Vec::new();
    let mut rest = inner.trim_start();
    while !rest.is_empty() {
        let name_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let (name, after) = rest.split_at(name_end);
        if name.is_empty() {
            return Err(format!("a label name at {}", quoted(rest)));
        }
        let after = after.trim_start();
        let (equal, after) = if let Some(a) = after.strip_prefix("!=") {
            (false, a)
        } else if after.starts_with("=~") || after.starts_with("!~") {
            return Err("= or != (a regex matcher belongs in the query)".to_string());
        } else if let Some(a) = after.strip_prefix('=') {
            (true, a)
        } else {
            return Err(format!("= or != after {name}"));
        };
        let after = after.trim_start();
        let body = after.strip_prefix('"').ok_or("a double-quoted value")?;
        let mut value = String::new();
        let mut chars = body.char_indices();
        let mut end = None;
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => value.extend(chars.next().map(|(_, c)| c)),
                '"' => {
                    end = Some(i);
                    break;
                }
                c => value.push(c),
            }
        }
        let end = end.ok_or("a closing quote")?;
        out.push((name.to_string(), equal, value));
        rest = body.get(end + 1..).unwrap_or("").trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
    }
    if out.is_empty() {
        return Err("at least one matcher".to_string());
    }
    Ok(out)
}

/// Whether a series' labels satisfy `--load-map`'s matchers (`=` and `!=`).
fn matches_labels(
    matchers: &[(String, bool, String)],
    labels: &std::collections::BTreeMap<String, String>,
) -> bool {
    matchers.iter().all(|(name, equal, value)| {
        let have = labels.get(name).map_or("", String::as_str);
        (have == value) == *equal
    })
}

/// The series `pick` names in `matrix` (`source` names the answer in messages); without a pick,
/// the only series.
fn select<'m>(
    source: &str,
    matrix: &'m Matrix,
    metric: &str,
    pick: Option<&Pick>,
) -> Result<(usize, &'m Series), InputError> {
    let listing = || {
        let all: Vec<String> = matrix
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| format!("{i} {}", s.selector()))
            .collect();
        name_list(&all, crate::error::LIST_NAMES)
    };
    match pick {
        None => match &matrix.series[..] {
            [only] => Ok((0, only)),
            _ => Err(InputError::new(
                source,
                format!(
                    "found {} series, expected one per metric: map one to {metric} with --load-map \
                 {metric}=INDEX or {metric}='{{LABEL=\"VALUE\"}}' (series: {}), or sum them in the \
                 query",
                    matrix.series.len(),
                    listing()
                ),
            )),
        },
        Some(Pick::Index(i)) => matrix.series.get(*i).map(|s| (*i, s)).ok_or_else(|| {
            InputError::new(
                source,
                format!(
                    "found --load-map {metric}={i}, expected a series index from 0 to {} \
                     (series: {})",
                    matrix.series.len() - 1,
                    listing()
                ),
            )
        }),
        Some(Pick::Labels(matchers)) => {
            let matches = |s: &Series| matches_labels(matchers, &s.labels);
            let found: Vec<usize> = (0..matrix.series.len())
                .filter(|&i| matrix.series.get(i).is_some_and(matches))
                .collect();
            match (
                found.len(),
                found.first().and_then(|&i| matrix.series.get(i)),
            ) {
                (1, Some(s)) => Ok((found.first().copied().unwrap_or(0), s)),
                _ => Err(InputError::new(
                    source,
                    format!(
                        "found {} series matching the --load-map of {metric}, expected exactly \
                         one (series: {})",
                        found.len(),
                        listing()
                    ),
                )),
            }
        }
    }
}

/// Unix seconds to milliseconds, for a time the answer parser already found finite.
fn millis(at: f64) -> Result<i64, String> {
    let ms = (at * 1000.0).round();
    if !(0.0..=1e14).contains(&ms) {
        return Err(format!(
            "found the time {at}, expected a Unix time in seconds"
        ));
    }
    #[allow(clippy::cast_possible_truncation)]
    Ok(ms as i64)
}

/// One load column: the metric it feeds and the series it reads.
struct Chosen<'m> {
    column: LoadColumn,
    source: String,
    index: usize,
    series: &'m Series,
}

/// The grid all series are placed on: the first sample's time and the step, in milliseconds.
fn grid(chosen: &[Chosen<'_>], step: Option<i64>) -> Result<(i64, i64), InputError> {
    let mut t0 = i64::MAX;
    let mut smallest = i64::MAX;
    for c in chosen {
        let mut previous = None;
        for (j, &(at, _)) in c.series.samples.iter().enumerate() {
            let t = millis(at).map_err(|m| {
                InputError::new(&c.source, m).field(format!("data.result[{}].values[{j}]", c.index))
            })?;
            t0 = t0.min(t);
            if let Some(p) = previous {
                smallest = smallest.min(t - p);
            }
            previous = Some(t);
        }
    }
    let step = step.unwrap_or(if smallest == i64::MAX { 1000 } else { smallest });
    if step % 1000 != 0 {
        let source = chosen.first().map_or("--load", |c| c.source.as_str());
        return Err(InputError::new(
            source,
            format!(
                "found samples {}s apart, expected a query step of whole seconds",
                Duration(step)
            ),
        ));
    }
    Ok((if t0 == i64::MAX { 0 } else { t0 }, step))
}

/// The series' values on the grid (`None`: a gap), from `t0` for `points` steps.
fn on_grid(
    c: &Chosen<'_>,
    (t0, step): (i64, i64),
    points: usize,
    allow_negative: bool,
) -> Result<Vec<Option<i64>>, InputError> {
    let mut values = vec![None; points];
    for (j, &(at, v)) in c.series.samples.iter().enumerate() {
        let field = || format!("data.result[{}].values[{j}]", c.index);
        let k = (millis(at).map_err(|m| InputError::new(&c.source, m))? - t0 + step / 2) / step;
        if v.is_nan() {
            continue;
        }
        let milli = (v * 1000.0).round();
        if milli.abs() >= 9.0e18 {
            return Err(InputError::new(
                &c.source,
                format!("found {v}, expected a value below 9e15"),
            )
            .field(field()));
        }
        if milli < 0.0 && !allow_negative {
            return Err(InputError::new(
                &c.source,
                format!(
                    "found {v} for {}, expected a total of 0 or more",
                    c.column.name
                ),
            )
            .field(field()));
        }
        #[allow(clippy::cast_possible_truncation)]
        let milli = milli as i64;
        if let Some(slot) = usize::try_from(k).ok().and_then(|k| values.get_mut(k)) {
            *slot = Some(milli);
        }
    }
    Ok(values)
}

/// The chosen series as one load curve, with the gaps counted and warned about.
fn load_curve(
    chosen: &[Chosen<'_>],
    metric_columns: Vec<usize>,
    step: Option<i64>,
    warnings: &mut Vec<String>,
) -> Result<(LoadCurve, Replay, (i64, i64), Duration), InputError> {
    let (t0, step) = grid(chosen, step)?;
    let last = chosen
        .iter()
        .filter_map(|c| c.series.samples.last())
        .map(|&(at, _)| millis(at).unwrap_or(t0))
        .max()
        .unwrap_or(t0);
    let points = (last - t0) / step + 1;
    if points > MAX_POINTS {
        return Err(InputError::new(
            chosen.first().map_or("--load", |c| c.source.as_str()),
            format!(
                "found {points} points of {}, expected at most {MAX_POINTS}: a larger step",
                Duration(step)
            ),
        ));
    }
    let points = usize::try_from(points).unwrap_or(0);
    let mut columns = Vec::with_capacity(chosen.len());
    let mut gaps = 0;
    for c in chosen {
        let mut values = on_grid(c, (t0, step), points, c.column.resource.is_none())?;
        let missing = values.iter().filter(|v| v.is_none()).count();
        let Some(first) = values.iter().flatten().next().copied() else {
            return Err(InputError::new(
                &c.source,
                format!(
                    "found no value in series {} {} (every sample is NaN), expected the load of {}",
                    c.index,
                    c.series.selector(),
                    c.column.name
                ),
            ));
        };
        if missing > 0 {
            gaps += missing;
            warnings.push(format!(
                "{}: series {} {} ({}): {missing} of {points} samples are NaN or missing; the \
                 previous value holds over each gap (the first value before the first sample)",
                c.source,
                c.index,
                c.series.selector(),
                c.column.name
            ));
        }
        let mut held = first;
        for v in &mut values {
            held = v.unwrap_or(held);
            *v = Some(held);
        }
        columns.push(values);
    }
    let mut steps: Vec<LoadStep> = Vec::new();
    for k in 0..points {
        let values: Vec<i64> = columns
            .iter()
            .map(|c| c.get(k).copied().flatten().unwrap_or(0))
            .collect();
        if steps.last().is_none_or(|s| s.values != values) {
            let at = Duration(i64::try_from(k).unwrap_or(0) * step);
            steps.push(LoadStep::answering(at, values));
        }
    }
    let curve = LoadCurve {
        columns: chosen.iter().map(|c| c.column.clone()).collect(),
        steps,
        metric_columns,
    };
    let replay = Replay {
        start: Timestamp(t0).to_rfc3339(),
        step_seconds: step / 1000,
        load_gaps: gaps,
    };
    Ok((curve, replay, (t0, step), Duration(last - t0)))
}

/// The replicas series (exactly one) on the load's clock: a step function from its samples.
fn actual_curve(
    source: &str,
    matrix: &Matrix,
    (t0, step): (i64, i64),
    warnings: &mut Vec<String>,
) -> Result<ActualCurve, InputError> {
    let [series] = &matrix.series[..] else {
        return Err(InputError::new(
            source,
            format!(
                "found {} series, expected one: the replicas of one workload (e.g. \
                 max(kube_horizontalpodautoscaler_status_desired_replicas{{...}}))",
                matrix.series.len()
            ),
        ));
    };
    let mut points = Vec::with_capacity(series.samples.len());
    let mut gaps = 0;
    let mut previous = None;
    for (j, &(at, v)) in series.samples.iter().enumerate() {
        let field = || format!("data.result[0].values[{j}]");
        let t = millis(at).map_err(|m| InputError::new(source, m).field(field()))? - t0;
        // Points the query step should have given between two samples are missing.
        if let Some(p) = previous.replace(t) {
            gaps += usize::try_from((t - p) / step - 1).unwrap_or(0);
        }
        if v.is_nan() {
            gaps += 1;
            continue;
        }
        if !(0.0..=f64::from(i32::MAX)).contains(&v) {
            return Err(InputError::new(
                source,
                format!("found {v}, expected a replica count of 0 or more"),
            )
            .field(field()));
        }
        #[allow(clippy::cast_possible_truncation)]
        points.push((t, v.round() as i32));
    }
    if gaps > 0 {
        warnings.push(format!(
            "{source}: {gaps} replica samples are NaN or missing; the previous value holds over \
             each gap"
        ));
    }
    if points.is_empty() {
        return Err(InputError::new(
            source,
            "found no value (every sample is NaN), expected the replica count",
        ));
    }
    Ok(ActualCurve { points })
}

/// The load column of a metric: its name, and its resource for a Resource metric.
pub fn column(spec: &MetricSpec) -> LoadColumn {
    LoadColumn {
        name: spec.metric_name().to_string(),
        resource: match spec {
            MetricSpec::Resource { resource, .. } => Some(resource.clone()),
            _ => None,
        },
    }
}

/// The HPA's metrics, each once (case-insensitively), and each spec's index among them.
fn distinct_metrics(metrics: &[MetricSpec]) -> (Vec<&MetricSpec>, Vec<usize>) {
    let mut distinct: Vec<&MetricSpec> = Vec::new();
    let mut index = Vec::with_capacity(metrics.len());
    for m in metrics {
        let name = m.metric_name();
        match distinct
            .iter()
            .position(|d| d.metric_name().eq_ignore_ascii_case(name))
        {
            Some(i) => index.push(i),
            None => {
                index.push(distinct.len());
                distinct.push(m);
            }
        }
    }
    (distinct, index)
}

/// `METRIC=TEXT` flags by metric, each naming a metric of the HPA once.
fn by_metric<T>(
    flag: &str,
    entries: Vec<(String, T)>,
    metrics: &[&MetricSpec],
) -> Result<Vec<Option<T>>, InputError> {
    let names: Vec<&str> = metrics.iter().map(|m| m.metric_name()).collect();
    let mut out: Vec<Option<T>> = metrics.iter().map(|_| None).collect();
    for (name, value) in entries {
        let Some(i) = names.iter().position(|n| n.eq_ignore_ascii_case(&name)) else {
            return Err(InputError::new(
                flag,
                format!(
                    "found the metric {}, expected a metric of the HPA: {}",
                    quoted(&name),
                    name_list(&names, crate::error::LIST_NAMES)
                ),
            ));
        };
        match out.get_mut(i) {
            Some(slot @ None) => *slot = Some(value),
            _ => {
                return Err(InputError::new(
                    flag,
                    format!("found {name} twice, expected each metric once"),
                ));
            }
        }
    }
    Ok(out)
}

/// A `--start` or `--end`: RFC 3339, `now`, or a negative duration from now (`-12h`).
fn parse_time(flag: &str, text: &str, now: Timestamp) -> Result<Timestamp, InputError> {
    if text == "now" {
        return Ok(now);
    }
    if let Some(ago) = text.strip_prefix('-') {
        return Duration::parse(ago)
            .map(|d| now.sub(d))
            .map_err(|e| InputError::new(flag, e));
    }
    Timestamp::parse_rfc3339(text).ok_or_else(|| {
        InputError::new(
            flag,
            format!(
                "found {}, expected an RFC 3339 time (2026-11-30T03:00:00Z), now, or a time \
                 before now such as -12h",
                quoted(text)
            ),
        )
    })
}

/// How a replay's load is read from Prometheus, as given: the series of a saved answer, or the
/// server and the range queries to run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReplaySettings {
    /// `METRIC=INDEX` or `METRIC={LABEL="VALUE",...}`.
    pub load_map: Vec<String>,
    pub prometheus: Option<String>,
    /// `METRIC=PROMQL`.
    pub queries: Vec<String>,
    /// PromQL for the replicas the cluster really had.
    pub actual: Option<String>,
    pub start: Option<String>,
    pub end: Option<String>,
    pub step: Option<String>,
    pub token: Option<String>,
    pub username: Option<String>,
    pub password: Option<String>,
    pub certificate_authority: Option<std::path::PathBuf>,
    pub insecure_skip_tls_verify: bool,
    pub request_timeout: Option<String>,
}

/// The range of `--start`, `--end` and `--step`, checked against Prometheus's point limit.
fn range(r: &ReplaySettings, now: Timestamp) -> Result<Range, InputError> {
    let Some(start) = &r.start else {
        return Err(InputError::new(
            "--start",
            "found none, expected the start of the replay, e.g. --start -12h or an RFC 3339 time",
        ));
    };
    let start = parse_time("--start", start, now)?;
    let end = parse_time("--end", r.end.as_deref().unwrap_or("now"), now)?;
    let step_text = r.step.as_deref().unwrap_or("15s");
    let step = Duration::parse(step_text).map_err(|e| InputError::new("--step", e))?;
    if step.millis() < 1000 || step.millis() % 1000 != 0 {
        return Err(InputError::new(
            "--step",
            format!("found {step_text}, expected whole seconds, at least 1s"),
        ));
    }
    if end <= start {
        return Err(InputError::new(
            "--end",
            format!(
                "found {}, expected a time after --start ({})",
                end.to_rfc3339(),
                start.to_rfc3339()
            ),
        ));
    }
    let points = end.since(start).millis() / step.millis() + 1;
    if points > MAX_QUERY_POINTS {
        return Err(InputError::new(
            "--step",
            format!(
                "found {points} points from --start to --end at {step_text}, expected at most \
                 {MAX_QUERY_POINTS} (Prometheus's limit per series): a larger --step"
            ),
        ));
    }
    Ok(Range { start, end, step })
}

/// The connection the flags describe.
fn connection(url: &str, r: &ReplaySettings) -> Result<Connection, InputError> {
    // kubectl's form, as live mode reads it: a duration, a bare number of seconds, or `0`.
    let timeout =
        crate::input::live::request_timeout(r.request_timeout.as_deref().unwrap_or("30s"))?;
    let basic = match (&r.username, &r.password) {
        (Some(u), Some(p)) => Some((u.clone(), p.clone())),
        (None, None) => None,
        _ => {
            return Err(InputError::new(
                "--username",
                "found only one of --username and --password, expected both for basic auth",
            ));
        }
    };
    Ok(Connection {
        url: url.to_string(),
        token: r.token.clone(),
        basic,
        certificate_authority: r.certificate_authority.clone(),
        insecure_skip_tls_verify: r.insecure_skip_tls_verify,
        timeout,
    })
}

/// An answer and the name its messages use (the file, or `--query cpu`).
type Named = (String, Matrix);

/// Runs each metric's `--query` and the `--actual` query on the `--prometheus` server: the
/// answers in metric order, the actual replicas' answer, and the step.
fn run_queries(
    url: &str,
    r: &ReplaySettings,
    distinct: &[&MetricSpec],
) -> Result<(Vec<Named>, Option<Named>, i64), InputError> {
    let range = range(r, Timestamp(jiff::Timestamp::now().as_millisecond()))?;
    let queries = r
        .queries
        .iter()
        .map(|q| match q.split_once('=') {
            Some((m, promql)) => Ok((m.trim().to_string(), promql.to_string())),
            None => Err(InputError::new(
                "--query",
                format!("found {}, expected METRIC=PROMQL", quoted(q)),
            )),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let queries = by_metric("--query", queries, distinct)?;
    let client = Client::new(connection(url, r)?)?;
    let mut answers = Vec::with_capacity(distinct.len());
    for (m, q) in distinct.iter().zip(queries) {
        let name = m.metric_name();
        let Some(promql) = q else {
            return Err(InputError::new(
                "--query",
                format!(
                    "found no query for the HPA's metric {name}, expected --query {name}=PROMQL \
                     with its total load"
                ),
            ));
        };
        let source = format!("--query {name}");
        let text = client.query_range(&source, &promql, range)?;
        answers.push((source.clone(), answer::parse(&source, &text)?));
    }
    let actual = match &r.actual {
        Some(promql) => {
            let text = client.query_range("--actual", promql, range)?;
            Some(("--actual".to_string(), answer::parse("--actual", &text)?))
        }
        None => None,
    };
    Ok((answers, actual, range.step.millis()))
}

/// The `--load` answer (or the `--prometheus` queries) and the actual replicas, as the
/// simulation's inputs. `load` is `(name for messages, text)`.
pub fn replay(
    r: &ReplaySettings,
    load: (&str, &str),
    actual_file: Option<&Text>,
    metrics: &[MetricSpec],
) -> Result<Loaded> {
    let (distinct, metric_columns) = distinct_metrics(metrics);
    let maps = r
        .load_map
        .iter()
        .map(|t| parse_map(t))
        .collect::<Result<Vec<_>, _>>()?;
    let picks = by_metric("--load-map", maps, &distinct)?;
    let (answers, mut actual, step) = match &r.prometheus {
        Some(url) => {
            let (answers, actual, step) = run_queries(url, r, &distinct)?;
            (answers, actual, Some(step))
        }
        None => {
            // One answer for several metrics: which series is which is the user's to say.
            if distinct.len() > 1
                && let Some((m, _)) = distinct.iter().zip(&picks).find(|(_, p)| p.is_none())
            {
                let names: Vec<&str> = distinct.iter().map(|m| m.metric_name()).collect();
                return Err(InputError::new(
                    "--load-map",
                    format!(
                        "found no series for {}, expected a --load-map for each of the HPA's \
                         metrics ({}) when one answer holds them all",
                        m.metric_name(),
                        name_list(&names, crate::error::LIST_NAMES)
                    ),
                )
                .into());
            }
            // Only the series the metrics read keep their samples (the first, without a map).
            let keep = |i: usize, labels: &std::collections::BTreeMap<String, String>| {
                (picks.iter()).any(|pick| match pick {
                    None => i == 0,
                    Some(Pick::Index(k)) => *k == i,
                    Some(Pick::Labels(matchers)) => matches_labels(matchers, labels),
                })
            };
            let answer = answer::parse_kept(load.0, load.1, &keep)?;
            (vec![(load.0.to_string(), answer)], None, None)
        }
    };
    if let Some(Text { name, text }) = actual_file {
        let matrix = answer::parse(name, text)?;
        actual = Some((name.clone(), matrix));
    }
    let mut chosen = Vec::with_capacity(distinct.len());
    for (k, (m, pick)) in distinct.iter().zip(&picks).enumerate() {
        // One answer per query, or the one file every metric reads from.
        let Some((source, matrix)) = answers.get(k).or(answers.first()) else {
            continue;
        };
        let (index, series) = select(source, matrix, m.metric_name(), pick.as_ref())?;
        chosen.push(Chosen {
            column: column(m),
            source: source.clone(),
            index,
            series,
        });
    }
    let mut warnings = Vec::new();
    for (source, m) in answers.iter().chain(actual.iter()) {
        for w in &m.warnings {
            warnings.push(format!("{source}: Prometheus warns: {w}"));
        }
    }
    let (curve, replay, grid, span) = load_curve(&chosen, metric_columns, step, &mut warnings)?;
    let actual = match &actual {
        Some((source, m)) => Some(actual_curve(source, m, grid, &mut warnings)?),
        None => None,
    };
    Ok(Loaded {
        curve,
        replay,
        actual,
        span,
        warnings,
    })
}

/// The flags of `--prometheus`, refused without it (exit 2, like clap's usage errors).
pub fn refuse_without_server(r: &ReplaySettings) -> Result<()> {
    if r.prometheus.is_some() {
        return Ok(());
    }
    let stray = [
        (!r.queries.is_empty(), "--query"),
        (r.actual.is_some(), "--actual"),
        (r.start.is_some(), "--start"),
        (r.end.is_some(), "--end"),
        (r.step.is_some(), "--step"),
        (r.certificate_authority.is_some(), "--certificate-authority"),
        (r.insecure_skip_tls_verify, "--insecure-skip-tls-verify"),
        (r.request_timeout.is_some(), "--request-timeout"),
    ];
    match stray.iter().find(|(set, _)| *set) {
        Some((_, flag)) => Err(crate::error::UsageError(format!(
            "{flag} needs --prometheus URL: it is a flag of the range queries hpacalc runs"
        ))
        .into()),
        None => Ok(()),
    }
}

/// The replay flags that need a Prometheus load, refused with a load CSV or a scenario.
pub fn refuse_with_csv(r: &ReplaySettings, actual_file: bool) -> Result<(), InputError> {
    for (set, flag) in [
        (!r.load_map.is_empty(), "--load-map"),
        (actual_file, "--actual-file"),
    ] {
        if set {
            return Err(InputError::new(
                flag,
                "found a load CSV, expected a Prometheus query_range answer in --load (or \
                 --prometheus): the flag maps Prometheus series",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
