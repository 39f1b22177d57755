//! The documents of a manifest file and the objects in them: parsing (YAML streams or JSON),
//! `List`s, choosing the HPA, and turning parser errors and field paths into located errors.

use std::ops::Range;

use serde::Deserialize;
use serde_json::Value;

use super::locate::{self, FieldPath};
use super::validate::FieldError;
use crate::error::{InputError, json_error, yaml_error};

pub const HPA_KIND: &str = "HorizontalPodAutoscaler";

/// One document of the input.
pub struct Document {
    /// Position in the YAML stream, to find it again for the typed pass.
    pub stream_index: usize,
    pub value: Value,
    /// Byte range in the text, for locating fields.
    pub span: Range<usize>,
}

pub fn parse_json(file: &str, text: &str) -> Result<Vec<Document>, InputError> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    crate::input::guard::check_json(file, body)?;
    let value: Value = serde_json::from_str(body).map_err(|e| json_error(file, &e))?;
    Ok(vec![Document {
        stream_index: 0,
        value,
        span: (text.len() - body.len())..text.len(),
    }])
}

pub fn parse_yaml(file: &str, text: &str) -> Result<Vec<Document>, InputError> {
    crate::input::guard::check_yaml(file, text)?;
    let mut values = Vec::new();
    for (stream_index, doc) in serde_yaml::Deserializer::from_str(text).enumerate() {
        let value = Value::deserialize(doc).map_err(|e| yaml_error(file, &e))?;
        values.push((stream_index, value));
    }
    // The spans are found by splitting at `---` lines; if that disagrees with the parser (a
    // `---` inside a block scalar, say), every document gets the whole text.
    let spans = locate::yaml_document_spans(text);
    let spans_fit = spans.len() == values.len();
    Ok(values
        .into_iter()
        .filter(|(_, value)| !value.is_null())
        .map(|(stream_index, value)| Document {
            stream_index,
            value,
            span: match spans.get(stream_index) {
                Some(span) if spans_fit => span.clone(),
                _ => 0..text.len(),
            },
        })
        .collect())
}

/// An object found in the documents: a document itself, or an item of a `List`.
pub struct Object<'d> {
    pub doc: &'d Document,
    pub item: Option<usize>,
    pub kind: String,
    pub api_version: String,
    pub name: String,
    pub value: &'d Value,
}

fn str_at<'v>(value: &'v Value, key: &str) -> Option<&'v str> {
    value.get(key).and_then(Value::as_str)
}

pub fn collect_objects<'d>(
    file: &str,
    text: &str,
    json: bool,
    docs: &'d [Document],
) -> Result<Vec<Object<'d>>, InputError> {
    let mut objects = Vec::new();
    for doc in docs {
        let source = Source::document(file, text, json, doc);
        let value = &doc.value;
        if !value.is_object() {
            return Err(source.error(
                &FieldPath::root(),
                format!(
                    "found {}, expected a Kubernetes object (a mapping with apiVersion and kind)",
                    describe(value)
                ),
            ));
        }
        let Some(kind) = str_at(value, "kind") else {
            return Err(source.error(
                &FieldPath::of(&["kind"]),
                format!(
                    "found {}, expected {HPA_KIND}",
                    describe_opt(value.get("kind"))
                ),
            ));
        };
        let api_version = str_at(value, "apiVersion").unwrap_or_default();
        let is_list = kind == "List" || (kind.ends_with("List") && value.get("items").is_some());
        if !is_list {
            objects.push(Object {
                doc,
                item: None,
                kind: kind.to_string(),
                api_version: api_version.to_string(),
                name: name_of(value),
                value,
            });
            continue;
        }
        // Items of a typed list (`HorizontalPodAutoscalerList`) may leave out kind and apiVersion.
        let item_kind = kind.strip_suffix("List").filter(|k| !k.is_empty());
        let items = match value.get("items") {
            None | Some(Value::Null) => &[][..],
            Some(Value::Array(items)) => items.as_slice(),
            Some(other) => {
                return Err(source.error(
                    &FieldPath::of(&["items"]),
                    format!("found {}, expected a list of objects", describe(other)),
                ));
            }
        };
        for (i, item) in items.iter().enumerate() {
            let item_path = FieldPath::of(&["items"]).index(i);
            if !item.is_object() {
                return Err(source.error(
                    &item_path,
                    format!("found {}, expected a Kubernetes object", describe(item)),
                ));
            }
            let Some(kind) = str_at(item, "kind").or(item_kind) else {
                return Err(source.error(
                    &item_path.key("kind"),
                    format!(
                        "found {}, expected {HPA_KIND}",
                        describe_opt(item.get("kind"))
                    ),
                ));
            };
            objects.push(Object {
                doc,
                item: Some(i),
                kind: kind.to_string(),
                api_version: str_at(item, "apiVersion")
                    .unwrap_or(api_version)
                    .to_string(),
                name: name_of(item),
                value: item,
            });
        }
    }
    Ok(objects)
}

fn name_of(value: &Value) -> String {
    value
        .get("metadata")
        .and_then(|m| str_at(m, "name"))
        .unwrap_or_default()
        .to_string()
}

/// Picks the HPA: the one named `name`, or the only one. Objects of other kinds are skipped when
/// the file also holds HPAs (a whole application's manifests, say).
pub fn choose<'o, 'd>(
    file: &str,
    text: &str,
    json: bool,
    objects: &'o [Object<'d>],
    name: Option<&str>,
) -> Result<&'o Object<'d>, InputError> {
    let hpas: Vec<&Object> = objects
        .iter()
        .filter(|o| {
            o.kind == HPA_KIND || crate::input::keda::is_scaled_object(&o.kind, &o.api_version)
        })
        .collect();
    let Some(first) = hpas.first() else {
        let Some(other) = objects.first() else {
            return Err(InputError::new(
                file,
                format!("found no objects, expected a {HPA_KIND} manifest"),
            ));
        };
        let source = Source::document(file, text, json, other.doc);
        let path = match other.item {
            Some(i) => FieldPath::of(&["items"]).index(i).key("kind"),
            None => FieldPath::of(&["kind"]),
        };
        return Err(source.error(&path, format!("found {}, expected {HPA_KIND}", other.kind)));
    };
    // Two objects with one namespace and name: the API server keeps one, so which is meant?
    let mut seen = std::collections::HashSet::new();
    for hpa in &hpas {
        let namespace = hpa
            .value
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
            .unwrap_or("default");
        if !seen.insert((namespace, hpa.name.as_str())) {
            let source = Source::document(file, text, json, hpa.doc);
            let path = match hpa.item {
                Some(i) => FieldPath::of(&["items"]).index(i),
                None => FieldPath::root(),
            };
            return Err(source.error(
                &path.key("metadata").key("name"),
                format!(
                    "found a second {HPA_KIND} {}/{}, expected each namespace and name once",
                    crate::error::quoted_bare(namespace),
                    crate::error::quoted_bare(&hpa.name)
                ),
            ));
        }
    }
    let names = || {
        let names: Vec<&str> = hpas.iter().map(|o| o.name.as_str()).collect();
        crate::error::name_list(&names, crate::error::LIST_NAMES)
    };
    match name {
        Some(name) => hpas
            .iter()
            .find(|o| o.name == name)
            .copied()
            .ok_or_else(|| {
                InputError::new(
                    file,
                    format!(
                        "found no {HPA_KIND} named {}, expected one of: {}",
                        crate::error::quoted(name),
                        names()
                    ),
                )
            }),
        None if hpas.len() == 1 => Ok(first),
        None => Err(InputError::new(
            file,
            format!(
                "found {} HorizontalPodAutoscalers ({}), expected one: choose it with --name",
                hpas.len(),
                names()
            ),
        )),
    }
}

/// Where the chosen object is, for error locations.
pub struct Source<'a> {
    pub file: &'a str,
    pub text: &'a str,
    pub json: bool,
    pub span: Range<usize>,
    /// `items[i]` when the object is an item of a List.
    pub prefix: FieldPath,
}

impl<'a> Source<'a> {
    pub fn document(file: &'a str, text: &'a str, json: bool, doc: &Document) -> Self {
        Source {
            file,
            text,
            json,
            span: doc.span.clone(),
            prefix: FieldPath::root(),
        }
    }

    /// An error at `path` (relative to the object), located in the text when possible.
    pub fn error(&self, path: &FieldPath, message: impl Into<String>) -> InputError {
        let mut err = InputError::new(self.file, message);
        let full = self.prefix.join(path);
        let at = locate::locate(self.text, self.span.clone(), self.json, &full)
            .or_else(|| self.first_line());
        if let Some((line, column)) = at {
            err = err.at(line, Some(column));
        }
        if !path.0.is_empty() {
            err = err.field(path.to_string());
        }
        err
    }

    pub fn field_error(&self, e: FieldError) -> InputError {
        self.error(&e.path, e.message)
    }

    /// The first content line of the document, when nothing better is known.
    fn first_line(&self) -> Option<(usize, usize)> {
        let doc = self.text.get(self.span.clone())?;
        let mut offset = self.span.start;
        for line in doc.split_inclusive('\n') {
            let t = line.trim();
            if !t.is_empty() && !t.starts_with('#') && !t.starts_with("---") {
                let indent = line.len() - line.trim_start().len();
                return Some(locate::line_col(self.text, offset + indent));
            }
            offset += line.len();
        }
        None
    }

    /// A warning about the field at `path`: `file:line:col: path: message`.
    pub fn warning(&self, path: &FieldPath, message: &str) -> String {
        format!("{}{path}: {message}", self.prefix_of(path))
    }

    /// `file:line:col: ` of a field, for warnings.
    pub fn prefix_of(&self, path: &FieldPath) -> String {
        match locate::locate(
            self.text,
            self.span.clone(),
            self.json,
            &self.prefix.join(path),
        ) {
            Some((line, column)) => format!("{}:{line}:{column}: ", self.file),
            None => format!("{}: ", self.file),
        }
    }
}

fn describe(value: &Value) -> &'static str {
    match value {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

fn describe_opt(value: Option<&Value>) -> &'static str {
    value.map_or("nothing", describe)
}
