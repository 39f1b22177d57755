//! `--history` CSV: the controller's in-memory state for the HPA (its earlier recommendations and
//! scale events), which the API does not keep and a restart loses. The stabilization windows and
//! the rate policies of `horizontal.go` read it.
//!
//! Header `age,recommendation[,change]` (any order, case-insensitive); one row per earlier sync:
//! - `age`: how long before now the sync ran (`45s`, `2m`, `0`); never negative;
//! - `recommendation`: the sync's unnormalized recommendation, in replicas (0 or more);
//! - `change`: the signed replica change the controller made at that sync; empty or 0 = none.
//!
//! The rows may come in any order: each list is sorted oldest first, as the controller appends,
//! and rows of the same age keep their file order.

use crate::error::InputError;
use crate::input::samples::{Cell, csv_error, csv_reader, record_line};
use crate::scenario::{ControllerMemory, Recommendation, ScaleEvent};
use crate::time::{Duration, Timestamp};

/// Parses a history CSV read from `file` (the name is for messages only).
pub fn parse(file: &str, text: &str, now: Timestamp) -> Result<ControllerMemory, InputError> {
    let mut reader = csv_reader(text);
    let header = reader.headers().map_err(|e| csv_error(file, &e))?.clone();
    let columns = read_header(file, &header)?;

    let mut memory = ControllerMemory::default();
    let mut record = csv::StringRecord::new();
    while reader
        .read_record(&mut record)
        .map_err(|e| csv_error(file, &e))?
    {
        let line = record_line(&record);
        let cell = |column: usize| Cell {
            file,
            line,
            column: column + 1,
            field: header.get(column).unwrap_or(""),
            text: record.get(column).unwrap_or(""),
        };

        let age = cell(columns.age);
        if age.text.starts_with('-') {
            return Err(age.error("an age of 0 or more"));
        }
        let age_value = Duration::parse(age.text)
            .map_err(|_| age.error("an age such as 45s, 2m or 1h30m, or 0"))?;
        let timestamp = now.sub(age_value);

        let recommendation = cell(columns.recommendation);
        let replicas = recommendation
            .text
            .parse::<i32>()
            .ok()
            .filter(|&r| r >= 0)
            .ok_or_else(|| recommendation.error("a whole number of replicas, 0 or more"))?;
        memory.recommendations.push(Recommendation {
            replicas,
            timestamp,
        });

        let Some(change_column) = columns.change else {
            continue;
        };
        let change = cell(change_column);
        if change.text.is_empty() {
            continue;
        }
        let expected = "a whole number of replicas: positive for a scale up, negative for a \
                         scale down, 0 or empty for none";
        let value = change
            .text
            .parse::<i32>()
            .map_err(|_| change.error(expected))?;
        let magnitude = value.checked_abs().ok_or_else(|| change.error(expected))?;
        let event = ScaleEvent {
            replica_change: magnitude,
            timestamp,
            outdated: false,
        };
        if value > 0 {
            memory.scale_up_events.push(event);
        } else if value < 0 {
            memory.scale_down_events.push(event);
        }
    }

    // Stable sorts: rows of the same age keep their file order.
    memory.recommendations.sort_by_key(|r| r.timestamp);
    memory.scale_up_events.sort_by_key(|e| e.timestamp);
    memory.scale_down_events.sort_by_key(|e| e.timestamp);
    Ok(memory)
}

struct Columns {
    age: usize,
    recommendation: usize,
    change: Option<usize>,
}

fn read_header(file: &str, header: &csv::StringRecord) -> Result<Columns, InputError> {
    let line = record_line(header);
    let (mut age, mut recommendation, mut change) = (None, None, None);
    for (i, name) in header.iter().enumerate() {
        let slot = if name.eq_ignore_ascii_case("age") {
            &mut age
        } else if name.eq_ignore_ascii_case("recommendation") {
            &mut recommendation
        } else if name.eq_ignore_ascii_case("change") {
            &mut change
        } else {
            return Err(header_error(
                file,
                line,
                i,
                name,
                format!("found the column \"{name}\", expected age, recommendation or change"),
            ));
        };
        if let Some(first) = slot.replace(i) {
            return Err(header_error(
                file,
                line,
                i,
                name,
                format!(
                    "found the column \"{name}\" again (first as column {}), expected each \
                     column once",
                    first + 1
                ),
            ));
        }
    }
    match (age, recommendation) {
        (Some(age), Some(recommendation)) => Ok(Columns {
            age,
            recommendation,
            change,
        }),
        _ => {
            let found: Vec<&str> = header.iter().collect();
            let found = if found.is_empty() {
                "no columns".to_string()
            } else {
                format!("the columns {}", found.join(","))
            };
            Err(InputError::new(
                file,
                format!("found {found}, expected the header age,recommendation[,change]"),
            )
            .at(line, None))
        }
    }
}

fn header_error(file: &str, line: usize, column: usize, name: &str, message: String) -> InputError {
    InputError::new(file, message)
        .at(line, Some(column + 1))
        .field(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Timestamp = Timestamp(1_800_000_000_000);

    fn ago(secs: i64) -> Timestamp {
        NOW.sub(Duration::from_secs(secs))
    }

    fn recs(memory: &ControllerMemory) -> Vec<(i32, Timestamp)> {
        memory
            .recommendations
            .iter()
            .map(|r| (r.replicas, r.timestamp))
            .collect()
    }

    fn events(list: &[ScaleEvent]) -> Vec<(i32, Timestamp)> {
        assert!(list.iter().all(|e| !e.outdated));
        list.iter()
            .map(|e| (e.replica_change, e.timestamp))
            .collect()
    }

    #[test]
    fn each_row_is_a_recommendation_at_now_minus_its_age() {
        let m = parse(
            "h.csv",
            include_str!("../../fixtures/history/steady.csv"),
            NOW,
        )
        .unwrap();
        assert_eq!(
            recs(&m),
            [
                (4, ago(285)),
                (4, ago(225)),
                (4, ago(165)),
                (4, ago(105)),
                (4, ago(45)),
                (4, ago(15)),
            ]
        );
        assert!(m.scale_up_events.is_empty() && m.scale_down_events.is_empty());
    }

    #[test]
    fn recommendations_are_sorted_oldest_first_keeping_file_order_for_equal_ages() {
        let m = parse("h.csv", "age,recommendation\n1m,6\n0,5\n2m,9\n1m,7\n", NOW).unwrap();
        assert_eq!(
            recs(&m),
            [(9, ago(120)), (6, ago(60)), (7, ago(60)), (5, NOW)]
        );
        let m = parse(
            "h.csv",
            include_str!("../../fixtures/history/recent-high.csv"),
            NOW,
        )
        .unwrap();
        assert!(recs(&m).contains(&(9, ago(120))));
    }

    #[test]
    fn positive_changes_are_scale_ups_and_negative_ones_scale_downs_by_magnitude() {
        let m = parse(
            "h.csv",
            include_str!("../../fixtures/history/scale-events.csv"),
            NOW,
        )
        .unwrap();
        assert_eq!(m.recommendations.len(), 6);
        assert_eq!(events(&m.scale_up_events), [(4, ago(480)), (1, ago(30))]);
        assert_eq!(events(&m.scale_down_events), [(3, ago(180)), (1, ago(90))]);
    }

    #[test]
    fn columns_are_case_insensitive_in_any_order() {
        let m = parse(
            "h.csv",
            "\u{feff}Change , RECOMMENDATION,Age\r\n-2,3,30s\r\n",
            NOW,
        )
        .unwrap();
        assert_eq!(recs(&m), [(3, ago(30))]);
        assert_eq!(events(&m.scale_down_events), [(2, ago(30))]);
    }

    #[test]
    fn a_header_without_rows_is_an_empty_memory() {
        let m = parse("h.csv", "age,recommendation,change\n", NOW).unwrap();
        assert_eq!(m, ControllerMemory::default());
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
                "negative age",
                include_str!("../../fixtures/malformed/history-negative-age.csv"),
                3,
                Some(1),
                Some("age"),
                "found \"-5m\", expected an age of 0 or more",
            ),
            (
                "bad age",
                "age,recommendation\n5 minutes,3\n",
                2,
                Some(1),
                Some("age"),
                "found \"5 minutes\", expected an age such as 45s, 2m or 1h30m, or 0",
            ),
            (
                "empty age",
                "age,recommendation\n,3\n",
                2,
                Some(1),
                Some("age"),
                "found an empty cell, expected an age",
            ),
            (
                "negative recommendation",
                "age,recommendation\n1m,-1\n",
                2,
                Some(2),
                Some("recommendation"),
                "found \"-1\", expected a whole number of replicas, 0 or more",
            ),
            (
                "fractional recommendation",
                "age,recommendation\n1m,2.5\n",
                2,
                Some(2),
                Some("recommendation"),
                "found \"2.5\", expected a whole number of replicas, 0 or more",
            ),
            (
                "empty recommendation",
                "age,recommendation\n1m,\n",
                2,
                Some(2),
                Some("recommendation"),
                "found an empty cell, expected a whole number of replicas",
            ),
            (
                "bad change",
                "age,recommendation,change\n1m,3,up\n",
                2,
                Some(3),
                Some("change"),
                "found \"up\", expected a whole number of replicas: positive for a scale up",
            ),
            (
                "change without a magnitude",
                "age,recommendation,change\n1m,3,-2147483648\n",
                2,
                Some(3),
                Some("change"),
                "found \"-2147483648\", expected a whole number of replicas",
            ),
            (
                "unknown column",
                "age,recommendation,replicas\n",
                1,
                Some(3),
                Some("replicas"),
                "found the column \"replicas\", expected age, recommendation or change",
            ),
            (
                "duplicate column",
                "age,recommendation,AGE\n",
                1,
                Some(3),
                Some("AGE"),
                "found the column \"AGE\" again (first as column 1)",
            ),
            (
                "missing column",
                "age,change\n",
                1,
                None,
                None,
                "found the columns age,change, expected the header age,recommendation[,change]",
            ),
            (
                "empty file",
                "",
                1,
                None,
                None,
                "found no columns, expected the header age,recommendation[,change]",
            ),
            (
                "ragged row",
                "age,recommendation\n1m,3\n2m\n",
                3,
                None,
                None,
                "found 1 fields, expected 2 as in the header",
            ),
        ];
        for &(rule, text, line, column, field, message) in cases {
            let err = parse("h.csv", text, NOW).unwrap_err();
            assert_eq!(err.file, "h.csv", "{rule}");
            assert_eq!(err.line, Some(line), "{rule}: {err}");
            assert_eq!(err.column, column, "{rule}: {err}");
            assert_eq!(err.field.as_deref(), field, "{rule}: {err}");
            assert!(err.message.starts_with(message), "{rule}: {err}");
        }
    }
}
