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
            .map(|(k, v)| format!("{k}={}", crate::error::quoted(v)))
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

/// The series as text, borrowed from the answer: each is read only as far as the run needs it.
#[derive(Deserialize)]
struct Full<'a> {
    #[serde(borrow)]
    data: Data<Vec<&'a serde_json::value::RawValue>>,
}

#[derive(Deserialize)]
struct Labels {
    #[serde(default)]
    metric: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct Values {
    #[serde(default)]
    values: Vec<(f64, Sample)>,
}

/// A sample's value, parsed as it is read (a string per sample would cost its own allocation);
/// the text is kept only when it is not a number, for the error.
enum Sample {
    Number(f64),
    /// `+Inf` or `-Inf`, as written.
    Infinite(String),
    Bad(String),
}

impl<'de> Deserialize<'de> for Sample {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Sample, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Sample;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Sample, E> {
                Ok(match v.parse::<f64>() {
                    Ok(n) if n.is_infinite() => Sample::Infinite(v.to_string()),
                    Ok(n) => Sample::Number(n),
                    Err(_) => Sample::Bad(v.to_string()),
                })
            }
        }
        d.deserialize_str(V)
    }
}

/// Does `text` look like a Prometheus answer rather than a load CSV? (A CSV never starts with `{`.)
pub fn looks_like_answer(text: &str) -> bool {
    text.trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with('{')
}

/// Parses a query_range answer read from `file` (the name is for messages only).
pub fn parse(file: &str, text: &str) -> Result<Matrix, InputError> {
    parse_kept(file, text, &|_, _| true)
}

/// `parse`, keeping the samples of only the series `keep` wants (by index and labels): a run
/// that reads one series of a 300 MB answer holds that series, not the answer's. The others keep
/// their labels, for the messages that list them.
pub fn parse_kept(
    file: &str,
    text: &str,
    keep: &dyn Fn(usize, &BTreeMap<String, String>) -> bool,
) -> Result<Matrix, InputError> {
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
    let full: Full<'_> = decode(file, body)?;
    let mut series = Vec::with_capacity(full.data.result.len());
    for (i, raw) in full.data.result.into_iter().enumerate() {
        let item = Item { file, body, raw, i };
        let labels = item.decode::<Labels>()?.metric;
        if !keep(i, &labels) {
            series.push(Series {
                labels,
                samples: Vec::new(),
            });
            continue;
        }
        let values = item.decode::<Values>()?.values;
        let mut samples = Vec::with_capacity(values.len());
        let mut last = f64::NEG_INFINITY;
        for (j, (at, value)) in values.into_iter().enumerate() {
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
            let v = match value {
                Sample::Number(v) => v,
                Sample::Infinite(text) => {
                    return Err(InputError::new(
                        file,
                        format!(
                            "found {}, expected a finite value: a load cannot be infinite (check \
                             the query for a division by zero)",
                            quoted(&text)
                        ),
                    )
                    .field(field()));
                }
                Sample::Bad(text) => {
                    return Err(InputError::new(
                        file,
                        format!(
                            "found {}, expected a sample value such as \"0.25\" or \"NaN\"",
                            quoted(&text)
                        ),
                    )
                    .field(field()));
                }
            };

            samples.push((at, v));
        }
        series.push(Series { labels, samples });
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

/// One series of the answer, as text borrowed from it.
struct Item<'a> {
    file: &'a str,
    body: &'a str,
    raw: &'a serde_json::value::RawValue,
    i: usize,
}

impl Item<'_> {
    /// Reads the series' text into `T`; an error is placed in the whole answer (its line and
    /// column, and `data.result[i]` before the field).
    fn decode<'b, T: Deserialize<'b>>(&'b self) -> Result<T, InputError> {
        let text = self.raw.get();
        decode(self.file, text).map_err(|mut err| {
            let offset = (text.as_ptr() as usize).saturating_sub(self.body.as_ptr() as usize);
            let before = self.body.get(..offset).unwrap_or("");
            let lines_before = before.matches('\n').count();
            if let Some(line) = err.line {
                let column_base = before.rfind('\n').map_or(offset, |nl| offset - nl - 1);
                err.column = err
                    .column
                    .map(|c| if line == 1 { c + column_base } else { c });
                err.line = Some(line + lines_before);
            }
            let at = format!("data.result[{}]", self.i);
            err.field = Some(match err.field.take() {
                Some(inner) => format!("{at}.{inner}"),
                None => at,
            });
            err
        })
    }
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
