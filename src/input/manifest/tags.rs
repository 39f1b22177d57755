//! Core YAML tags that change a field's type (`maxReplicas: !!str 10`): the API server's YAML
//! reader makes that a string and refuses it for an integer field, while the typed YAML reader
//! here would read the plain scalar as a number. The untyped reading (which honours the tag) is
//! compared with the typed one: a string where the field holds a number or a boolean is refused.

use serde_json::Value;

use super::documents::Source;
use super::locate::FieldPath;
use crate::error::InputError;

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
        (Value::Object(t), Value::Object(r)) => {
            for (key, t_value) in t {
                if let Some(r_value) = r.get(key) {
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
