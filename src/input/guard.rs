//! One walk over every YAML or JSON input before it is built into values: aliases may not expand
//! past a budget proportional to the input (an alias bomb is refused before it takes memory), a
//! key may not repeat in one mapping, and tags that are no part of a Kubernetes object (`!foo`)
//! are refused. The walk builds nothing: it only counts and remembers the keys of the mapping it
//! is in.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Visitor};

use crate::error::{InputError, json_error, repeated_key, yaml_error};

/// Nodes every input may expand to whatever its size (aliases of small anchors are common).
pub const ALIAS_BUDGET_BASE: u64 = 100_000;
/// And per byte of input: a file without aliases has fewer nodes than bytes.
pub const ALIAS_BUDGET_PER_BYTE: u64 = 2;

/// The expanded-node budget of an input of `len` bytes.
pub fn alias_budget(len: usize) -> u64 {
    let len = u64::try_from(len).unwrap_or(u64::MAX);
    ALIAS_BUDGET_BASE.saturating_add(len.saturating_mul(ALIAS_BUDGET_PER_BYTE))
}

/// Checks every document of a YAML stream.
pub fn check_yaml(file: &str, text: &str) -> Result<(), InputError> {
    let mut walk = Walk {
        count: 0,
        budget: alias_budget(text.len()),
    };
    for doc in serde_yaml::Deserializer::from_str(text) {
        (&mut walk)
            .deserialize(doc)
            .map_err(|e| yaml_error(file, &e))?;
    }
    Ok(())
}

/// Checks one JSON value (JSON has no aliases: only keys are checked, the count stays small).
pub fn check_json(file: &str, text: &str) -> Result<(), InputError> {
    let mut walk = Walk {
        count: 0,
        budget: u64::MAX,
    };
    let mut de = serde_json::Deserializer::from_str(text);
    (&mut walk)
        .deserialize(&mut de)
        .map_err(|e| json_error(file, &e))
}

struct Walk {
    count: u64,
    budget: u64,
}

impl Walk {
    fn node<E: de::Error>(&mut self) -> Result<(), E> {
        self.count += 1;
        if self.count > self.budget {
            return Err(E::custom(format!(
                "found aliases that expand to more than {} nodes, expected at most {} nodes \
                 plus {} per byte of input (the alias budget): expand the anchors by hand",
                self.budget, ALIAS_BUDGET_BASE, ALIAS_BUDGET_PER_BYTE
            )));
        }
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for &mut Walk {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for &mut Walk {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML or JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.node()
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.node()
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.node()
    }
    fn visit_i128<E: de::Error>(self, _: i128) -> Result<(), E> {
        self.node()
    }
    fn visit_u128<E: de::Error>(self, _: u128) -> Result<(), E> {
        self.node()
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.node()
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.node()
    }
    fn visit_bytes<E: de::Error>(self, _: &[u8]) -> Result<(), E> {
        self.node()
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.node()
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.node()
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.node()?;
        while seq.next_element_seed(&mut *self)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.node()?;
        let mut keys = Keys::default();
        while let Some(key) = map.next_key_seed(Key(&mut *self))? {
            if let Some(key) = key
                && let Some(key) = keys.repeated(key)
            {
                return Err(de::Error::custom(repeated_key(&key)));
            }
            map.next_value_seed(&mut *self)?;
        }
        Ok(())
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
        let (tag, _) = data.variant::<String>()?;
        Err(de::Error::custom(format!(
            "found the YAML tag !{}, expected a plain value (a Kubernetes object has no tags)",
            crate::error::quoted_bare(&tag)
        )))
    }
}

/// The keys of one mapping: a short list scanned (most objects have a few keys), a set past 16.
#[derive(Default)]
pub(crate) struct Keys<'de> {
    few: Vec<Cow<'de, str>>,
    many: HashSet<Cow<'de, str>>,
}

impl<'de> Keys<'de> {
    /// Remembers `key`; returns it when it was there already.
    pub(crate) fn repeated(&mut self, key: Cow<'de, str>) -> Option<Cow<'de, str>> {
        if self.many.is_empty() {
            if self.few.contains(&key) {
                return Some(key);
            }
            self.few.push(key);
            if self.few.len() > 16 {
                self.many.extend(self.few.drain(..));
            }
            return None;
        }
        if self.many.contains(&key) {
            return Some(key);
        }
        self.many.insert(key);
        None
    }
}

/// A mapping key: its text when it is a scalar (what the key becomes in JSON), walked either way.
struct Key<'w>(&'w mut Walk);

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = Option<Cow<'de, str>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Key<'_> {
    type Value = Option<Cow<'de, str>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a mapping key")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        self.0.node::<E>()?;
        Ok(Some(Cow::Owned(v.to_string())))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        self.0.node::<E>()?;
        Ok(Some(Cow::Owned(v.to_string())))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        self.0.node::<E>()?;
        Ok(Some(Cow::Owned(v.to_string())))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        self.0.node::<E>()?;
        Ok(Some(Cow::Owned(v.to_string())))
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        self.0.node::<E>()?;
        Ok(Some(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        self.0.node::<E>()?;
        Ok(Some(Cow::Owned(v.to_owned())))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.0.node::<E>()?;
        Ok(Some(Cow::Borrowed("null")))
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.visit_unit()
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        self.0.visit_seq(seq).map(|()| None)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.0.visit_map(map).map(|()| None)
    }
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
        self.0.visit_enum(data).map(|()| None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_past_the_budget_are_refused_before_they_expand() {
        // 300 aliases of a 300-element anchor: 90,000 nodes from 2 KB.
        let mut text = String::from("a: &a [");
        text.push_str(&vec!["1"; 300].join(","));
        text.push_str("]\nb: [");
        text.push_str(&vec!["*a"; 300].join(","));
        text.push_str("]\n");
        let mut walk = Walk {
            count: 0,
            budget: 10_000,
        };
        let de = serde_yaml::Deserializer::from_str(&text).next().unwrap();
        let err = (&mut walk).deserialize(de).unwrap_err();
        assert!(err.to_string().contains("the alias budget"), "{err}");
        assert!(walk.count <= 10_001);
        // Within the default budget (100,000 + 2 per byte) it is accepted.
        check_yaml("x.yaml", &text).unwrap();
    }

    #[test]
    fn duplicate_keys_are_refused_in_yaml_and_json() {
        let err = check_yaml("x.yaml", "spec:\n  minReplicas: 1\n  minReplicas: 2\n").unwrap_err();
        assert!(
            err.to_string()
                .contains("found the key \"minReplicas\" twice"),
            "{err}"
        );
        let err = check_json("x.json", r#"{"spec": {"a": 1, "a": 2}}"#).unwrap_err();
        assert!(
            err.to_string().contains("found the key \"a\" twice"),
            "{err}"
        );
        // The same key in two mappings is fine.
        check_yaml("x.yaml", "a: {x: 1}\nb: {x: 1}\n").unwrap();
    }

    #[test]
    fn tags_that_are_no_part_of_an_object_are_refused() {
        let err = check_yaml("x.yaml", "spec:\n  maxReplicas: !custom 3\n").unwrap_err();
        assert!(
            err.to_string().contains("found the YAML tag !custom"),
            "{err}"
        );
    }
}
