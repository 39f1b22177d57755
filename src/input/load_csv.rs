//! The load CSV of `hpacalc simulate --load` (the only module that knows its format): the total
//! demand of each metric over time, as the simulation's `LoadCurve`.
//!
//! Load CSV: a header, then one row per change of the load.
//!
//! | column | meaning |
//! |---|---|
//! | `time` | offset from the start: `0s`, `90s`, `5m`, `1h30m` (whole seconds; the first row at 0) |
//! | a metric's name | the TOTAL demand across all pods: `cpu` (`2400m` or `2.4`), `memory`, a Pods metric's total, an Object or External metric's value |
//!
//! Column names are trimmed and case-insensitive; a UTF-8 BOM and CRLF line ends are accepted.
//! Every metric of the HPA needs its column (a Resource or ContainerResource metric by its
//! resource name); an empty cell keeps the previous row's value. The load is a step function:
//! a row's values hold until the next row. An External metric's cell may be `failed`: its source
//! (the metrics API, or a KEDA trigger's scaler) answers an error from that row on.
//!
//! `--load` may instead hold a Prometheus range-query answer (or `--prometheus` run the queries):
//! `input::prometheus` turns it into the same `LoadCurve`.

use crate::error::InputError;
use crate::input::samples::{Cell, HeaderLine, csv_error, csv_reader, record_line};
use crate::quantity::parse_milli;
use crate::scenario::MetricSpec;
use crate::scenario::simulation::{LoadColumn, LoadCurve, LoadStep};
use crate::time::Duration;

/// A cell saying an External metric's source answers an error from this row on.
pub const FAILED: &str = "failed";

/// Parses a load CSV read from `file` (the name is for messages only) against the HPA's metrics.
pub fn parse(file: &str, text: &str, metrics: &[MetricSpec]) -> Result<LoadCurve, InputError> {
    let mut reader = csv_reader(text);
    let header = reader.headers().map_err(|e| csv_error(file, &e))?.clone();
    let (time_column, columns) = read_header(file, &header, metrics)?;
    let metric_columns = metrics
        .iter()
        .map(|m| {
            columns
                .iter()
                .position(|(_, c)| c.name.eq_ignore_ascii_case(m.metric_name()))
                .unwrap_or(0)
        })
        .collect();
    let rows = Rows {
        file,
        header: &header,
        time_column,
        columns: &columns,
        // Negative totals make sense only for metrics that can be negative.
        allows_negative: columns.iter().map(|(_, c)| c.resource.is_none()).collect(),
        // A source that can fail on its own: an External metric (a KEDA trigger's scaler).
        may_fail: columns
            .iter()
            .map(|(_, c)| {
                metrics.iter().any(|m| {
                    matches!(m, MetricSpec::External { .. })
                        && m.metric_name().eq_ignore_ascii_case(&c.name)
                })
            })
            .collect(),
    };

    let mut steps: Vec<LoadStep> = Vec::new();
    let mut record = csv::StringRecord::new();
    while reader
        .read_record(&mut record)
        .map_err(|e| csv_error(file, &e))?
    {
        let step = rows.step(&record, steps.last())?;
        steps.push(step);
    }
    if steps.is_empty() {
        return Err(InputError::new(
            file,
            "found no rows, expected at least one row: the load at 0s",
        ));
    }
    Ok(LoadCurve {
        columns: columns.into_iter().map(|(_, c)| c).collect(),
        steps,
        metric_columns,
    })
}

/// The header: the time column, and each metric column with its place. Every column is `time`
/// or a metric of the HPA, once; every metric has its column.
fn read_header(
    file: &str,
    header: &csv::StringRecord,
    metrics: &[MetricSpec],
) -> Result<(usize, Vec<(usize, LoadColumn)>), InputError> {
    let place = HeaderLine {
        file,
        line: record_line(header),
    };
    let mut expected_names: Vec<&str> = Vec::new();
    for m in metrics {
        if !(expected_names.iter()).any(|n| n.eq_ignore_ascii_case(m.metric_name())) {
            expected_names.push(m.metric_name());
        }
    }
    let mut time_column = None;
    let mut columns: Vec<(usize, LoadColumn)> = Vec::new();
    for (i, name) in header.iter().enumerate() {
        if let Some(first) = header
            .iter()
            .position(|other| other.eq_ignore_ascii_case(name))
            .filter(|&first| first != i)
        {
            return Err(place.at(
                i,
                name,
                format!(
                    "found the column \"{name}\" again (first as column {}), expected each column \
                     once",
                    first + 1
                ),
            ));
        }
        if name.eq_ignore_ascii_case("time") {
            time_column = Some(i);
            continue;
        }
        let Some(spec) = metrics
            .iter()
            .find(|m| m.metric_name().eq_ignore_ascii_case(name))
        else {
            return Err(place.at(
                i,
                name,
                format!(
                    "found the column {}, expected time or a metric of the HPA: {}",
                    crate::error::quoted(name),
                    crate::error::name_list(&expected_names, crate::error::LIST_NAMES)
                ),
            ));
        };
        columns.push((i, crate::input::prometheus::column(spec)));
    }
    let Some(time_column) = time_column else {
        return Err(place.whole(format!(
            "found the columns {}, expected a time column",
            header.iter().collect::<Vec<_>>().join(",")
        )));
    };
    if let Some(missing) = expected_names
        .iter()
        .find(|n| !columns.iter().any(|(_, c)| c.name.eq_ignore_ascii_case(n)))
    {
        return Err(place.whole(format!(
            "found no column for the HPA's metric {missing}, expected a column named {missing} \
             with its total load"
        )));
    }
    Ok((time_column, columns))
}

/// What reading a row needs of the header.
struct Rows<'a> {
    file: &'a str,
    header: &'a csv::StringRecord,
    time_column: usize,
    columns: &'a [(usize, LoadColumn)],
    allows_negative: Vec<bool>,
    may_fail: Vec<bool>,
}

impl Rows<'_> {
    /// One row: its time, after the `last` row's, and each metric's total (an empty cell keeps
    /// the last row's).
    fn step(
        &self,
        record: &csv::StringRecord,
        last: Option<&LoadStep>,
    ) -> Result<LoadStep, InputError> {
        let line = record_line(record);
        let cell = |column: usize| Cell {
            file: self.file,
            line,
            column: column + 1,
            field: self.header.get(column).unwrap_or(""),
            text: record.get(column).unwrap_or(""),
        };
        let time = cell(self.time_column);
        let expected_time = "a time from the start such as 0s, 90s or 5m";
        if time.text.starts_with('-') {
            return Err(time.error(expected_time));
        }
        let at = Duration::parse(time.text).map_err(|_| time.error(expected_time))?;
        if at.millis() % 1000 != 0 {
            return Err(time.error("whole seconds"));
        }
        match last {
            None if at.millis() != 0 => {
                return Err(time.error("the first row at 0s (the load at the start)"));
            }
            Some(last) if at <= last.at => {
                return Err(time.error(format!(
                    "a time after the previous row's {} (rows in increasing time)",
                    last.at
                )));
            }
            _ => {}
        }
        let mut values = Vec::with_capacity(self.columns.len());
        let mut failed = Vec::new();
        for (k, (column, _)) in self.columns.iter().enumerate() {
            let c = cell(*column);
            if c.text.is_empty() {
                match last.and_then(|s| s.values.get(k)) {
                    Some(&previous) => values.push(previous),
                    None => return Err(c.error("the total load at the start")),
                }
                if last.is_some_and(|s| s.failed.contains(&k)) {
                    failed.push(k);
                }
                continue;
            }
            if c.text.eq_ignore_ascii_case(FAILED) {
                if !self.may_fail.get(k).copied().unwrap_or(false) {
                    return Err(c.error(
                        "a total (`failed` is for an External metric: its source answers an \
                         error)",
                    ));
                }
                values.push(last.and_then(|s| s.values.get(k)).copied().unwrap_or(0));
                failed.push(k);
                continue;
            }
            let value = parse_milli(c.text).map_err(|e| c.message(e.to_string()))?;
            if value < 0 && !self.allows_negative.get(k).copied().unwrap_or(false) {
                return Err(c.error("a total of 0 or more"));
            }
            values.push(value);
        }
        Ok(LoadStep { at, values, failed })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::testing;

    fn cpu() -> MetricSpec {
        testing::cpu_utilization(50)
    }

    fn external(name: &str) -> MetricSpec {
        testing::external(name, Some(100_000), None)
    }

    #[test]
    fn a_failed_cell_fails_an_external_metric_until_a_value_and_is_refused_for_cpu() {
        let text = "time,cpu,queue\n0s,2,failed\n1m,3,\n2m,,40\n";
        let curve = parse("l.csv", text, &[cpu(), external("queue")]).unwrap();
        let failed: Vec<Vec<usize>> = curve.steps.iter().map(|s| s.failed.clone()).collect();
        assert_eq!(failed, [vec![1], vec![1], vec![]]);
        assert_eq!(curve.steps[2].values, [3000, 40_000]);
        let e = parse("l.csv", "time,cpu\n0s,failed\n", &[cpu()]).unwrap_err();
        assert!(
            e.to_string().contains("`failed` is for an External metric"),
            "{e}"
        );
    }

    #[test]
    fn rows_are_steps_in_milli_units_and_empty_cells_keep_the_previous_value() {
        let text = "\u{feff}Time,CPU,queue\r\n0s,2.4,100\r\n90s,,250\r\n5m,1200m,\r\n";
        let curve = parse("l.csv", text, &[cpu(), external("queue")]).unwrap();
        let steps: Vec<(i64, Vec<i64>)> = curve
            .steps
            .iter()
            .map(|s| (s.at.millis() / 1000, s.values.clone()))
            .collect();
        assert_eq!(
            steps,
            [
                (0, vec![2400, 100_000]),
                (90, vec![2400, 250_000]),
                (300, vec![1200, 250_000]),
            ]
        );
        assert_eq!(curve.metric_columns, [0, 1]);
        assert_eq!(curve.columns[0].resource.as_deref(), Some("cpu"));
        assert_eq!(curve.columns[1].resource, None);
    }

    #[test]
    fn load_errors_name_the_line_column_and_what_was_expected() {
        let cases = [
            (
                "cpu\n2\n",
                "l.csv:1: found the columns cpu, expected a time column",
            ),
            (
                "time,cpu,rps\n0s,1,1\n",
                "l.csv:1:3: rps: found the column \"rps\", expected time or a metric of the HPA: cpu",
            ),
            (
                "time\n0s\n",
                "l.csv:1: found no column for the HPA's metric cpu",
            ),
            (
                "time,cpu,CPU\n0s,1,1\n",
                "l.csv:1:3: CPU: found the column \"CPU\" again",
            ),
            ("time,cpu\n", "l.csv: found no rows"),
            (
                "time,cpu\n30s,1\n",
                "l.csv:2:1: time: found \"30s\", expected the first row at 0s",
            ),
            (
                "time,cpu\n0s,1\n2m,1\n1m,2\n",
                "l.csv:4:1: time: found \"1m\", expected a time after the previous row's 2m",
            ),
            ("time,cpu\n0s,1\n1.5s,1\n", "expected whole seconds"),
            (
                "time,cpu\n-5s,1\n",
                "l.csv:2:1: time: found \"-5s\", expected a time from the start",
            ),
            (
                "time,cpu\n0s,\n",
                "l.csv:2:2: cpu: found an empty cell, expected the total load at the start",
            ),
            (
                "time,cpu\n0s,-1\n",
                "l.csv:2:2: cpu: found \"-1\", expected a total of 0 or more",
            ),
            ("time,cpu\n0s,lots\n", "l.csv:2:2: cpu:"),
            ("time,cpu\n0s,1,2\n", "l.csv:2: found 3 fields, expected 2"),
        ];
        for (text, want) in cases {
            let err = parse("l.csv", text, &[cpu()]).unwrap_err().to_string();
            assert!(
                err.starts_with(want) || err.contains(want),
                "{text:?}: {err}"
            );
        }
    }

    #[test]
    fn negative_values_are_allowed_for_external_metrics() {
        let curve = parse("l.csv", "time,queue\n0s,-5\n", &[external("queue")]).unwrap();
        assert_eq!(curve.steps[0].values, [-5000]);
    }
}
