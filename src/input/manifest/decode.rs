//! The typed pass: the chosen object deserialized from the text into k8s-openapi types, so
//! that type errors keep the parser's line, column and path, with unknown keys collected by
//! `serde_ignored` (k8s-openapi drops them silently).

use std::marker::PhantomData;

use k8s_openapi::api::autoscaling::{v1 as api_v1, v2 as api_v2};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IgnoredAny, Visitor};

use super::documents::{Document, Source};
use super::locate::FieldPath;
use crate::error::InputError;
use crate::error::{json_error, yaml_error};

/// The top level of a Kubernetes object. `apiVersion` and `kind` are read as plain strings (the
/// k8s-openapi object types reject any apiVersion but their own, and v2beta2 shares v2's shape).
#[derive(Deserialize)]
pub struct Envelope<Spec, Status> {
    #[serde(rename = "apiVersion")]
    _api_version: Option<String>,
    #[serde(rename = "kind")]
    _kind: Option<String>,
    pub metadata: Option<ObjectMeta>,
    pub spec: Option<Spec>,
    pub status: Option<Status>,
}

pub type V2Envelope =
    Envelope<api_v2::HorizontalPodAutoscalerSpec, api_v2::HorizontalPodAutoscalerStatus>;
/// A version without k8s-openapi types (v2beta1): metadata typed, the rest read as JSON values.
pub type AnyEnvelope = Envelope<serde_json::Value, serde_json::Value>;
pub type V1Envelope =
    Envelope<api_v1::HorizontalPodAutoscalerSpec, api_v1::HorizontalPodAutoscalerStatus>;

/// Deserializes the chosen object from the text into `T`, collecting unknown keys as warnings.
pub fn typed<T: de::DeserializeOwned>(
    source: &Source,
    doc: &Document,
    item: Option<usize>,
    warnings: &mut Vec<String>,
) -> Result<T, InputError> {
    let mut ignored: Vec<FieldPath> = Vec::new();
    let mut record = |path: serde_ignored::Path| ignored.push(ignored_path(&path));
    let seed = Pick::<T> {
        item,
        marker: PhantomData,
    };
    let value = if source.json {
        let body = source.text.get(doc.span.clone()).unwrap_or(source.text);
        let mut de = serde_json::Deserializer::from_str(body);
        seed.deserialize(serde_ignored::Deserializer::new(&mut de, &mut record))
            .and_then(|v| de.end().map(|()| v))
            .map_err(|e| json_error(source.file, &e))?
    } else {
        let de = serde_yaml::Deserializer::from_str(source.text)
            .nth(doc.stream_index)
            .ok_or_else(|| {
                InputError::new(
                    source.file,
                    "found fewer YAML documents on a second read, expected the same",
                )
            })?;
        seed.deserialize(serde_ignored::Deserializer::new(de, &mut record))
            .map_err(|e| {
                let mut err = yaml_error(source.file, &e);
                err.field = err.field.map(|f| strip_item_prefix(&f, item));
                err
            })?
    };
    for path in ignored {
        if let Some(relative) = path.strip_prefix(&source.prefix) {
            warnings.push(format!(
                "{}unknown field {relative} (ignored)",
                source.prefix_of(&relative)
            ));
        }
    }
    Ok(value)
}

/// The chosen object deserialized from its JSON value instead of the text (used once placeholder
/// values were taken out of it), with unknown keys collected as warnings.
pub fn typed_from_value<T: de::DeserializeOwned>(
    source: &Source,
    value: serde_json::Value,
    warnings: &mut Vec<String>,
) -> Result<T, InputError> {
    let mut ignored: Vec<FieldPath> = Vec::new();
    let typed = serde_ignored::deserialize(value, |path| ignored.push(ignored_path(&path)))
        .map_err(|e: serde_json::Error| {
            source.error(
                &FieldPath::root(),
                format!("found {}", e.to_string().replace("invalid type: ", "")),
            )
        })?;
    for path in ignored {
        warnings.push(format!(
            "{}unknown field {path} (ignored)",
            source.prefix_of(&path)
        ));
    }
    Ok(typed)
}

fn ignored_path(path: &serde_ignored::Path) -> FieldPath {
    use serde_ignored::Path;
    match path {
        Path::Root => FieldPath::root(),
        Path::Seq { parent, index } => ignored_path(parent).index(*index),
        Path::Map { parent, key } => ignored_path(parent).key(key),
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => ignored_path(parent),
    }
}

fn strip_item_prefix(field: &str, item: Option<usize>) -> String {
    match item {
        Some(i) => {
            let prefix = format!("items[{i}].");
            field.strip_prefix(&prefix).unwrap_or(field).to_string()
        }
        None => field.to_string(),
    }
}

/// Deserializes the whole document as `T`, or only item `item` of its `items`.
struct Pick<T> {
    item: Option<usize>,
    marker: PhantomData<T>,
}

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for Pick<T> {
    type Value = T;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        match self.item {
            None => T::deserialize(deserializer),
            Some(item) => deserializer.deserialize_map(ListVisitor::<T> {
                item,
                marker: PhantomData,
            }),
        }
    }
}

struct ListVisitor<T> {
    item: usize,
    marker: PhantomData<T>,
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for ListVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a List with items")
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "items" {
                found = map.next_value_seed(ItemSeed::<T> {
                    item: self.item,
                    marker: PhantomData,
                })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        found.ok_or_else(|| de::Error::custom(format!("found no items[{}]", self.item)))
    }
}

struct ItemSeed<T> {
    item: usize,
    marker: PhantomData<T>,
}

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for ItemSeed<T> {
    type Value = Option<T>;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Option<T>, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for ItemSeed<T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list of objects")
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Option<T>, A::Error> {
        let mut found = None;
        let mut index = 0;
        loop {
            if index == self.item {
                match seq.next_element::<T>()? {
                    Some(value) => found = Some(value),
                    None => break,
                }
            } else if seq.next_element::<IgnoredAny>()?.is_none() {
                break;
            }
            index += 1;
        }
        Ok(found)
    }
}
