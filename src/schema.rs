//! `hpacalc schema`: the JSON Schema of every JSON output, generated from the Rust types that are
//! serialized (schemars), so the schema cannot drift from the output.
//!
//! One JSON object keyed by output name; each value is a standalone JSON Schema (draft 2020-12)
//! with its own `$defs`. Every object schema forbids keys it does not list
//! (`additionalProperties: false`), except free-form maps such as `steps[].values`.

use schemars::generate::SchemaSettings;
use schemars::transform::RecursiveTransform;
use schemars::{JsonSchema, Schema};
use serde::Serialize;

use crate::calc::simulate::result::Simulation;
use crate::report::Report;

/// The names of the outputs, as keys of `hpacalc schema`, in print order.
pub const OUTPUTS: [&str; 7] = [
    "report",
    "whatIf",
    "simulation",
    "comparison",
    "diff",
    "watchLine",
    "audit",
];

/// One line of `--watch -o json` when an evaluation failed (a successful one is a `report`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WatchError {
    /// The error, as printed on stderr in the table output.
    pub error: String,
    /// The time of the failed evaluation (RFC 3339).
    pub now: String,
}

/// One line of `--watch -o json`: a report, or the error of that evaluation.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum WatchLine {
    Report(Box<Report>),
    Error(WatchError),
}

fn schema_for<T: JsonSchema>() -> Schema {
    let mut settings = SchemaSettings::draft2020_12().for_serialize();
    settings
        .transforms
        .push(Box::new(RecursiveTransform(close_object)));
    settings.into_generator().into_root_schema_for::<T>()
}

/// Objects with listed properties allow no other key: an output that gains a key the types do not
/// declare fails validation.
fn close_object(schema: &mut Schema) {
    if schema.get("properties").is_some() && schema.get("additionalProperties").is_none() {
        schema.insert(
            "additionalProperties".into(),
            serde_json::Value::Bool(false),
        );
    }
}

/// The schema of one output by its name in `OUTPUTS`.
pub fn schema_of(output: &str) -> Option<Schema> {
    match output {
        "report" => Some(schema_for::<Report>()),
        "whatIf" => Some(schema_for::<crate::report::what_if::WhatIfReport>()),
        "simulation" => Some(schema_for::<Simulation>()),
        "comparison" => Some(schema_for::<crate::calc::simulate::compare::Comparison>()),
        "diff" => Some(schema_for::<crate::calc::diff::DiffReport>()),
        "watchLine" => Some(schema_for::<WatchLine>()),
        "audit" => Some(schema_for::<crate::report::fleet::AuditReport>()),
        _ => None,
    }
}

/// Every output's schema, keyed by output name: what `hpacalc schema` prints.
pub fn all() -> serde_json::Value {
    let mut map = serde_json::Map::new();
    for name in OUTPUTS {
        if let Some(schema) = schema_of(name) {
            map.insert(name.to_string(), schema.to_value());
        }
    }
    serde_json::Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_output_has_a_schema_with_its_schema_version() {
        for name in OUTPUTS {
            let schema = schema_of(name).unwrap().to_value();
            let text = schema.to_string();
            assert!(text.contains("\"schemaVersion\""), "{name}: {text}");
        }
    }

    #[test]
    fn report_objects_are_closed_and_their_keys_required() {
        let schema = schema_of("report").unwrap().to_value();
        assert_eq!(schema["additionalProperties"], false);
        let required: Vec<&str> = schema["required"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|v| v.as_str())
            .collect();
        assert!(required.contains(&"schemaVersion"));
        assert!(required.contains(&"nodes"), "{required:?}");
        assert_eq!(schema["$defs"]["Decision"]["additionalProperties"], false);
    }

    #[test]
    fn free_form_step_values_stay_open() {
        let schema = schema_of("report").unwrap().to_value();
        let values = &schema["$defs"]["Step"]["properties"]["values"];
        assert_ne!(values["additionalProperties"], false, "{values}");
    }

    #[test]
    fn unknown_output_has_no_schema() {
        assert!(schema_of("nonsense").is_none());
    }
}
