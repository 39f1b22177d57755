//! `hpacalc schema` and the check that every JSON output of these tests fits it: a validator of
//! the subset of JSON Schema that schemars emits, which refuses any keyword it does not know (so a
//! schema that grows a keyword cannot be half-checked).

use std::sync::OnceLock;

use serde_json::Value;

use crate::support::{Test, json_output};

/// What `hpacalc schema` prints, parsed once per test binary.
fn schemas() -> &'static Value {
    static SCHEMAS: OnceLock<Value> = OnceLock::new();
    SCHEMAS.get_or_init(|| Test::new().arg("schema").json())
}

/// Panics with every place where `value` does not fit the schema of `output`
/// (`report`, `whatIf`, `simulation`, `comparison`, `watchLine`).
pub fn assert_fits(output: &str, value: &Value) {
    let root = schemas()
        .get(output)
        .unwrap_or_else(|| panic!("hpacalc schema has no `{output}`"));
    let mut errors = Vec::new();
    check(root, root, value, "$", &mut errors);
    assert!(
        errors.is_empty(),
        "the {output} output does not fit `hpacalc schema`:\n{}",
        errors.join("\n")
    );
}

fn resolve<'a>(root: &'a Value, reference: &str) -> &'a Value {
    let name = reference
        .strip_prefix("#/$defs/")
        .unwrap_or_else(|| panic!("unsupported $ref {reference}"));
    root.get("$defs")
        .and_then(|d| d.get(name))
        .unwrap_or_else(|| panic!("no $defs/{name}"))
}

fn type_fits(kind: &str, value: &Value) -> bool {
    match kind {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.is_i64() || value.is_u64(),
        other => panic!("unknown type {other}"),
    }
}

fn check(root: &Value, schema: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
    let schema = match schema {
        Value::Bool(true) => return,
        Value::Bool(false) => {
            errors.push(format!("{at}: no value is allowed here"));
            return;
        }
        Value::Object(map) => map,
        other => panic!("a schema is an object or a boolean, not {other}"),
    };
    for (keyword, arg) in schema {
        match keyword.as_str() {
            "$schema" | "$defs" | "title" | "description" | "format" => {}
            "$ref" => check(
                root,
                resolve(root, arg.as_str().unwrap()),
                value,
                at,
                errors,
            ),
            "type" => {
                let kinds: Vec<&str> = match arg {
                    Value::String(s) => vec![s.as_str()],
                    Value::Array(a) => a.iter().map(|k| k.as_str().unwrap()).collect(),
                    other => panic!("bad type {other}"),
                };
                if !kinds.iter().any(|k| type_fits(k, value)) {
                    errors.push(format!("{at}: expected {kinds:?}, found {value}"));
                }
            }
            "enum" => {
                if !arg.as_array().unwrap().contains(value) {
                    errors.push(format!("{at}: {value} is not one of {arg}"));
                }
            }
            "minimum" => {
                if let (Some(v), Some(min)) = (value.as_f64(), arg.as_f64())
                    && v < min
                {
                    errors.push(format!("{at}: {value} is below the minimum {arg}"));
                }
            }
            "anyOf" => {
                let fits = arg.as_array().unwrap().iter().any(|alt| {
                    let mut e = Vec::new();
                    check(root, alt, value, at, &mut e);
                    e.is_empty()
                });
                if !fits {
                    errors.push(format!("{at}: fits none of anyOf {arg}"));
                }
            }
            "items" => {
                if let Some(items) = value.as_array() {
                    for (i, item) in items.iter().enumerate() {
                        check(root, arg, item, &format!("{at}[{i}]"), errors);
                    }
                }
            }
            "required" => {
                if let Some(obj) = value.as_object() {
                    for key in arg.as_array().unwrap() {
                        let key = key.as_str().unwrap();
                        if !obj.contains_key(key) {
                            errors.push(format!("{at}: required key `{key}` is missing"));
                        }
                    }
                }
            }
            "properties" => {
                if let Some(obj) = value.as_object() {
                    for (key, sub) in arg.as_object().unwrap() {
                        if let Some(v) = obj.get(key) {
                            check(root, sub, v, &format!("{at}.{key}"), errors);
                        }
                    }
                }
            }
            "additionalProperties" => {
                if let Some(obj) = value.as_object() {
                    let listed = schema.get("properties").and_then(Value::as_object);
                    for (key, v) in obj {
                        if !listed.is_some_and(|p| p.contains_key(key)) {
                            match arg {
                                Value::Bool(false) => {
                                    errors.push(format!("{at}: key `{key}` is not in the schema"))
                                }
                                sub => check(root, sub, v, &format!("{at}.{key}"), errors),
                            }
                        }
                    }
                }
            }
            other => panic!("the validator does not know the keyword `{other}` (at {at})"),
        }
    }
}

#[test]
fn schema_names_every_output_and_its_schema_version() {
    for output in [
        "report",
        "whatIf",
        "simulation",
        "comparison",
        "diff",
        "watchLine",
    ] {
        let text = schemas()[output].to_string();
        assert!(text.contains("\"schemaVersion\""), "{output}");
    }
}

#[test]
fn a_renamed_or_extra_key_does_not_fit() {
    let mut v = json_output(&[
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pods",
        "fixtures/samples/web-cpu.csv",
    ]);
    let obj = v.as_object_mut().unwrap();
    let desired = obj.remove("desiredReplicas").unwrap();
    obj.insert("desired".into(), desired);
    let result = std::panic::catch_unwind(|| assert_fits("report", &v));
    let message = *result.unwrap_err().downcast::<String>().unwrap();
    assert!(
        message.contains("`desiredReplicas` is missing"),
        "{message}"
    );
    assert!(
        message.contains("key `desired` is not in the schema"),
        "{message}"
    );
}

#[test]
fn a_wrong_type_deep_inside_does_not_fit() {
    let mut v = json_output(&[
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pods",
        "fixtures/samples/web-cpu.csv",
    ]);
    v["decision"]["stabilizedReplicas"] = Value::String("3".into());
    v["metrics"][0]["extra"] = Value::Bool(true);
    let result = std::panic::catch_unwind(|| assert_fits("report", &v));
    let message = *result.unwrap_err().downcast::<String>().unwrap();
    assert!(
        message.contains("$.decision.stabilizedReplicas"),
        "{message}"
    );
    assert!(message.contains("$.metrics[0]: key `extra`"), "{message}");
}

/// `otherOutcomes` (issue 36): in the report's schema with its meaning, and an answer that has
/// outcomes fits it.
#[test]
fn other_outcomes_are_in_the_schema_and_an_inferred_answer_fits() {
    let report = &schemas()["report"];
    let field = &report["properties"]["otherOutcomes"];
    assert!(
        field["description"]
            .as_str()
            .is_some_and(|d| d.contains("consistent with the HPA's status")),
        "{field}"
    );
    let outcome = resolve(report, "#/$defs/Outcome");
    for key in ["replicas", "when", "settle"] {
        assert!(outcome["properties"].get(key).is_some(), "{outcome}");
    }
    let v = json_output(&[
        "--hpa",
        "fixtures/kubectl/hpa.yaml",
        "--now",
        "2026-11-29T14:59:58Z",
    ]);
    assert_eq!(v["otherOutcomes"][0]["replicas"], 8);
    assert_fits("report", &v);
}
