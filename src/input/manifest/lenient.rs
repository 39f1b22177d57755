//! Placeholders left in fields neither the controller nor hpacalc reads
//! (`lastScaleTime: <some-time>` in the Kubernetes walkthrough): warnings, not errors.

use serde_json::Value;

use super::decode;
use super::documents::{Document, Source};
use super::locate::{FieldPath, Seg};
use crate::error::InputError;

/// Fields the controller, and hpacalc, never read, where documentation and issues often leave a
/// placeholder (`lastScaleTime: <some-time>`): `*` is any list index. Time fields are marked.
const IGNORED_FIELDS: &[(&[&str], bool)] = &[
    (&["status", "lastScaleTime"], true),
    (&["status", "observedGeneration"], false),
    (&["status", "conditions", "*", "lastTransitionTime"], true),
    (&["metadata", "creationTimestamp"], true),
    (&["metadata", "deletionTimestamp"], true),
    (&["metadata", "generation"], false),
    (&["metadata", "managedFields", "*", "time"], true),
];

/// Values of ignored fields that would not decode (placeholders such as `<some-time>`, times that
/// are not RFC 3339, counts that are not numbers): their paths and what was found.
fn placeholders(raw: &Value) -> Vec<(FieldPath, String)> {
    fn walk(
        v: &Value,
        rest: &[&str],
        time: bool,
        path: FieldPath,
        out: &mut Vec<(FieldPath, String)>,
    ) {
        let Some((first, tail)) = rest.split_first() else {
            let bad = match v {
                Value::Null => false,
                Value::String(s) if time => crate::time::Timestamp::parse_rfc3339(s).is_none(),
                Value::Number(n) => time || n.as_i64().is_none(),
                _ => true,
            };
            if bad {
                out.push((path, v.to_string()));
            }
            return;
        };
        if *first == "*" {
            for (i, item) in v.as_array().into_iter().flatten().enumerate() {
                walk(item, tail, time, path.index(i), out);
            }
        } else if let Some(next) = v.get(*first) {
            walk(next, tail, time, path.key(first), out);
        }
    }
    let mut out = Vec::new();
    for (fields, time) in IGNORED_FIELDS {
        walk(raw, fields, *time, FieldPath::root(), &mut out);
    }
    out
}

/// The typed pass, unless an ignored field holds a placeholder: then those fields are warned
/// about and left out, and the object is read from its value.
pub fn typed<T: serde::de::DeserializeOwned>(
    source: &Source,
    doc: &Document,
    item: Option<usize>,
    raw: &Value,
    warnings: &mut Vec<String>,
) -> Result<T, InputError> {
    let found = placeholders(raw);
    if found.is_empty() {
        return decode::typed(source, doc, item, warnings);
    }
    let mut cleaned = raw.clone();
    for (path, value) in &found {
        warnings.push(source.warning(
            path,
            &format!("found {value}, which does not read as this field (ignored: hpacalc does not use it)"),
        ));
        remove(&mut cleaned, &path.0);
    }
    decode::typed_from_value(source, cleaned, warnings).map_err(|unlocated| {
        // Another field does not decode either: the text pass says where, unless it stops at
        // one of the placeholders first.
        let mut ignore = Vec::new();
        match decode::typed::<T>(source, doc, item, &mut ignore) {
            Err(located)
                if !found
                    .iter()
                    .any(|(p, _)| located.field.as_deref() == Some(p.to_string().as_str())) =>
            {
                located
            }
            _ => unlocated,
        }
    })
}

fn remove(v: &mut Value, path: &[Seg]) {
    match path {
        [] => {}
        [Seg::Key(k)] => {
            if let Some(map) = v.as_object_mut() {
                map.remove(k);
            }
        }
        [Seg::Key(k), rest @ ..] => {
            if let Some(next) = v.get_mut(k.as_str()) {
                remove(next, rest);
            }
        }
        [Seg::Index(i), rest @ ..] => {
            if let Some(next) = v.get_mut(*i) {
                remove(next, rest);
            }
        }
    }
}
