//! Core YAML tags that change a field's type (`maxReplicas: !!str 10`, `name: !!int 5`): the API
//! server's YAML reader (sigs.k8s.io/yaml, YAML to JSON, then the typed JSON decoder) keeps the
//! type the tag gives and refuses it for a field of another type, while the typed YAML reader here
//! would read the scalar as the field wants. The untyped reading (which honours the tag) is
//! compared with the typed one: a string where the field holds a number or a boolean, or a number
//! or a boolean where it holds a string, is refused. A plain `name: 5` is the same case: YAML
//! makes it a number, which a string field refuses.

use serde::Serialize;
use serde_json::Value;

use super::decode::Envelope;
use super::documents::Source;
use super::locate::FieldPath;
use crate::error::InputError;

/// Quantity fields of an HPA (`resource.Quantity` reads a JSON number as its text).
const QUANTITY_KEYS: &[&str] = &[
    "value",
    "averageValue",
    "tolerance",
    "targetValue",
    "targetAverageValue",
    "currentValue",
    "currentAverageValue",
];

/// Checks an object's typed metadata, spec and status against its raw value.
pub fn check_object<Spec: Serialize, Status: Serialize>(
    source: &Source,
    envelope: &Envelope<Spec, Status>,
    raw: &Value,
) -> Result<(), InputError> {
    let parts = [
        ("metadata", serde_json::to_value(&envelope.metadata).ok()),
        ("spec", serde_json::to_value(&envelope.spec).ok()),
        ("status", serde_json::to_value(&envelope.status).ok()),
    ];
    for (key, typed) in parts {
        if let (Some(typed), Some(raw)) = (typed, raw.get(key)) {
            check(source, &typed, raw, &FieldPath::of(&[key]))?;
        }
    }
    Ok(())
}

/// Compares the typed object, serialized back, with the raw value of the same object.
pub fn check(
    source: &Source,
    typed: &Value,
    raw: &Value,
    path: &FieldPath,
) -> Result<(), InputError> {
    match (typed, raw) {
        (Value::Number(_) | Value::Bool(_), Value::String(s)) => {
            let expected = if typed.is_boolean() {
                "true or false"
            } else {
                "a number"
            };
            Err(source.error(
                path,
                format!(
                    "found the string {} (a !!str tag?), expected {expected}: the API server \
                     reads a tagged value as its tag says",
                    crate::error::quoted(s)
                ),
            ))
        }
        (Value::String(_), Value::Number(_) | Value::Bool(_)) => Err(source.error(
            path,
            format!(
                "found the {} {raw}, expected a string: quote it (the API server refuses a {0} \
                 for a string field)",
                if raw.is_boolean() {
                    "boolean"
                } else {
                    "number"
                }
            ),
        )),
        (Value::Object(t), Value::Object(r)) => {
            for (key, t_value) in t {
                let quantity_number = QUANTITY_KEYS.contains(&key.as_str()) && t_value.is_string();
                if let Some(r_value) = r.get(key)
                    && !(quantity_number && r_value.is_number())
                {
                    check(source, t_value, r_value, &path.key(key))?;
                }
            }
            Ok(())
        }
        (Value::Array(t), Value::Array(r)) => {
            for (i, (t_value, r_value)) in t.iter().zip(r).enumerate() {
                check(source, t_value, r_value, &path.index(i))?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}
