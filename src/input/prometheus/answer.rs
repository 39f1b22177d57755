//! The answer of Prometheus's `/api/v1/query_range` (its HTTP API's JSON envelope,
//! `web/api/v1/api.go` in prometheus/prometheus): `{"status": "success", "data": {"resultType":
//! "matrix", "result": [{"metric": {labels}, "values": [[unix seconds, "value"], ...]}]}}`, or
//! `{"status": "error", "errorType": ..., "error": ...}`. Values are strings because they may be
//! `NaN` or `±Inf`.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::IgnoredAny;

use crate::error::{InputError, json_error, quoted};

/// One series of a range query: its labels and its samples in time order.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub labels: BTreeMap<String, String>,
    /// `(unix seconds, value)`; the value may be NaN (a gap).
    pub samples: Vec<(f64, f64)>,
}

impl Series {
    /// The series as PromQL prints it: `up{job="web", pod="web-1"}`.
    pub fn selector(&self) -> String {
        let labels: Vec<String> = self
            .labels
            .iter()
            .filter(|(k, _)| *k != "__name__")
            .map(|(k, v)| format!("{k}={v:?}"))
            .collect();
        let name = self.labels.get("__name__").map_or("", String::as_str);
        format!("{name}{{{}}}", labels.join(", "))
    }
}

/// A `matrix` answer: the series in the order the server gave them.
#[derive(Debug, Clone, PartialEq)]
pub struct Matrix {
    pub series: Vec<Series>,
    /// The server's own `warnings` and `infos` (e.g. a `rate` over a non-counter).
    pub warnings: Vec<String>,
}

/// The envelope, read first so a vector or an error is named as such before its shape matters.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Envelope {
    status: String,
    error_type: Option<String>,
    error: Option<String>,
    data: Option<Data<IgnoredAny>>,
    #[serde(default)]
    warnings: Vec<String>,
    #[serde(default)]
    infos: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Data<R> {
    result_type: String,
    result: R,
}

#[derive(Deserialize)]
struct Full {
    data: Data<Vec<RawSeries>>,
}

#[derive(Deserialize)]
struct RawSeries {
    #[serde(default)]
    metric: BTreeMap<String, String>,
    #[serde(default)]
    values: Vec<(f64, String)>,
}

/// Does `text` look like a Prometheus answer rather than a load CSV? (A CSV never starts with `{`.)
pub fn looks_like_answer(text: &str) -> bool {
    text.trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with('{')
}

/// Parses a query_range answer read from `file` (the name is for messages only).
pub fn parse(file: &str, text: &str) -> Result<Matrix, InputError> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let envelope: Envelope = decode(file, body)?;
    if envelope.status != "success" {
        let what = envelope.error_type.as_deref().unwrap_or("an error");
        let why = envelope.error.as_deref().unwrap_or("no message");
        return Err(InputError::new(
            file,
            format!(
                "found status {} ({what}: {}), expected a successful answer: the query failed \
                 on the server",
                quoted(&envelope.status),
                quoted(why)
            ),
        )
        .field("status"));
    }
    let Some(data) = envelope.data else {
        return Err(InputError::new(
            file,
            "found no data, expected data.resultType and data.result",
        ));
    };
    if data.result_type != "matrix" {
        return Err(InputError::new(
            file,
            format!(
                "found {}, expected a \"matrix\": the answer of a range query \
                 (/api/v1/query_range), not of an instant query (/api/v1/query)",
                quoted(&data.result_type)
            ),
        )
        .field("data.resultType"));
    }
    let full: Full = decode(file, body)?;
    let mut series = Vec::with_capacity(full.data.result.len());
    for (i, raw) in full.data.result.into_iter().enumerate() {
        let mut samples = Vec::with_capacity(raw.values.len());
        let mut last = f64::NEG_INFINITY;
        for (j, (at, value)) in raw.values.into_iter().enumerate() {
            let field = || format!("data.result[{i}].values[{j}]");
            if !at.is_finite() || at <= last {
                return Err(InputError::new(
                    file,
                    format!(
                        "found the time {at}, expected a Unix time after the previous sample's \
                         (samples in increasing time)"
                    ),
                )
                .field(field()));
            }
            last = at;
            let v: f64 = value.parse().map_err(|_| {
                InputError::new(
                    file,
                    format!(
                        "found {}, expected a sample value such as \"0.25\" or \"NaN\"",
                        quoted(&value)
                    ),
                )
                .field(field())
            })?;
            if v.is_infinite() {
                return Err(InputError::new(
                    file,
                    format!(
                        "found {}, expected a finite value: a load cannot be infinite (check the \
                         query for a division by zero)",
                        quoted(&value)
                    ),
                )
                .field(field()));
            }
            samples.push((at, v));
        }
        series.push(Series {
            labels: raw.metric,
            samples,
        });
    }
    if series.is_empty() {
        return Err(InputError::new(
            file,
            "found an empty matrix (no series), expected at least one series: the query matched \
             nothing in that time range (check its labels, --start and --end)",
        )
        .field("data.result"));
    }
    let mut warnings = envelope.warnings;
    warnings.extend(envelope.infos);
    Ok(Matrix { series, warnings })
}

/// Deserializes `body`, naming the field path and the line and column of a mismatch.
fn decode<'a, T: Deserialize<'a>>(file: &str, body: &'a str) -> Result<T, InputError> {
    let mut de = serde_json::Deserializer::from_str(body);
    let mut track = serde_path_to_error::Track::new();
    let value = T::deserialize(serde_path_to_error::Deserializer::new(&mut de, &mut track))
        .and_then(|v| de.end().map(|()| v))
        .map_err(|e| {
            let mut err = json_error(file, &e);
            err.message = err
                .message
                .replace("the JSON kubectl prints", "a Prometheus query_range answer");
            let path = track.path().to_string();
            if path.is_empty() || path == "." || e.is_syntax() || e.is_eof() {
                err
            } else {
                err.field(path)
            }
        })?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MATRIX: &str = r#"{"status":"success","data":{"resultType":"matrix","result":[
        {"metric":{"__name__":"up","pod":"web-1"},"values":[[1700000000,"0.5"],[1700000015,"NaN"]]},
        {"metric":{},"values":[[1700000000.5,"2"]]}]},"warnings":["w"]}"#;

    #[test]
    fn a_matrix_answer_gives_its_series_in_order_with_nan_kept() {
        let m = parse("a.json", MATRIX).unwrap();
        assert_eq!(m.series.len(), 2);
        assert_eq!(m.series[0].selector(), "up{pod=\"web-1\"}");
        assert_eq!(m.series[0].samples[0], (1_700_000_000.0, 0.5));
        assert!(m.series[0].samples[1].1.is_nan());
        assert_eq!(m.series[1].samples, [(1_700_000_000.5, 2.0)]);
        assert_eq!(m.warnings, ["w"]);
    }

    #[test]
    fn malformed_answers_are_located_errors() {
        let cases = [
            (
                r#"{"status":"error","errorType":"bad_data","error":"parse error"}"#,
                "a.json: status: found status \"error\" (bad_data: \"parse error\")",
            ),
            (
                r#"{"status":"success","data":{"resultType":"vector","result":[]}}"#,
                "a.json: data.resultType: found \"vector\", expected a \"matrix\"",
            ),
            (
                r#"{"status":"success","data":{"resultType":"matrix","result":[]}}"#,
                "a.json: data.result: found an empty matrix",
            ),
            (
                "{\"status\":\"success\",\n\"data\":{\"resultType\":\"matrix\",\"result\":[{\"values\":[[1,2]]}]}}",
                "a.json:2:",
            ),
            ("{\"status\":", "a.json:1:10: found malformed JSON"),
            (
                r#"{"status":"success","data":{"resultType":"matrix","result":[{"values":[[1,"x"]]}]}}"#,
                "a.json: data.result[0].values[0]: found \"x\", expected a sample value",
            ),
            (
                r#"{"status":"success","data":{"resultType":"matrix","result":[{"values":[[2,"1"],[1,"1"]]}]}}"#,
                "a.json: data.result[0].values[1]: found the time 1",
            ),
            (
                r#"{"status":"success","data":{"resultType":"matrix","result":[{"values":[[1,"+Inf"]]}]}}"#,
                "expected a finite value",
            ),
            (r#"{"status":"success"}"#, "a.json: found no data"),
        ];
        for (text, want) in cases {
            let err = parse("a.json", text).unwrap_err().to_string();
            assert!(err.starts_with(want) || err.contains(want), "{text}: {err}");
        }
    }

    #[test]
    fn a_syntax_error_names_the_answer_format() {
        let err = parse("a.json", "{").unwrap_err().to_string();
        assert!(err.contains("a Prometheus query_range answer"), "{err}");
    }

    #[test]
    fn only_text_starting_with_a_brace_is_an_answer() {
        assert!(looks_like_answer("\u{feff} \n{\"status\":1}"));
        assert!(!looks_like_answer("time,cpu\n0s,1\n"));
    }
}
