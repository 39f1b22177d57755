//! A JSON value for the few free-form fields a lean object keeps (requests, conditions, metric
//! usage). `serde_json::Value` keeps each object in a B-tree whose smallest node takes ~600 bytes,
//! so a pod's five small objects cost more than its text; here an object is one boxed slice of
//! pairs, sorted by key. It serializes back to the JSON `serde_json::Value` would write: keys
//! sorted, the last of duplicate keys kept.

use std::any::{Any, TypeId};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::hash::Hash;
use std::ops::Deref;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, Serializer};
use serde_json::Number;

/// A string a dump repeats across its objects (a namespace, a label, a key, a quantity, a
/// phase): one shared copy, however many objects hold it.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sym(Arc<str>);

/// The strings interned so far, shared by every reader of the process. Hashed with foldhash, not
/// SipHash: a sync interns a dozen strings of each of 150,000 pods and their metrics.
type Interned = HashSet<Arc<str>, foldhash::fast::RandomState>;
static INTERNED: LazyLock<Mutex<Interned>> = LazyLock::new(Mutex::default);

impl Sym {
    pub fn new(text: &str) -> Sym {
        // A table another thread left mid-insert still holds only whole entries.
        let mut table = INTERNED.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(known) = table.get(text) {
            return Sym(Arc::clone(known));
        }
        let fresh: Arc<str> = Arc::from(text);
        table.insert(Arc::clone(&fresh));
        Sym(fresh)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Drops the strings no object holds any more, and says how many are left. The table would
    /// otherwise keep every string ever read: `serve` reads the PodMetrics anew each sync, and
    /// their timestamps and usages are new strings each time. Each sync of `serve` calls this
    /// once its dump is gone.
    pub fn forget_unused() -> usize {
        let mut table = INTERNED.lock().unwrap_or_else(PoisonError::into_inner);
        table.retain(|s| Arc::strong_count(s) > 1);
        table.len()
    }
}

impl Deref for Sym {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for Sym {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Sym {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Sym {
    fn from(text: &str) -> Sym {
        Sym::new(text)
    }
}

impl PartialEq<str> for Sym {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for Sym {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl fmt::Debug for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for Sym {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Sym {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Sym, D::Error> {
        struct SymVisitor;
        impl Visitor<'_> for SymVisitor {
            type Value = Sym;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Sym, E> {
                Ok(Sym::new(s))
            }
        }
        d.deserialize_str(SymVisitor)
    }
}

/// A list a dump repeats across its objects (the labels, owner and containers that every pod of
/// one ReplicaSet has): one shared copy, however many objects hold it. 150,000 pods of a few
/// thousand workloads then cost a few thousand lists, not 150,000.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Shared<T: 'static>(Arc<[T]>);

/// One table of shared lists per item type.
static LISTS: LazyLock<Mutex<HashMap<TypeId, Box<dyn Any + Send>>>> = LazyLock::new(Mutex::default);

/// The table of one item type's shared lists.
type SharedTable<T> = HashSet<Arc<[T]>, foldhash::fast::RandomState>;

impl<T: Hash + Eq + Send + Sync + 'static> Shared<T> {
    pub fn new(items: Vec<T>) -> Shared<T> {
        let mut tables = LISTS.lock().unwrap_or_else(PoisonError::into_inner);
        let table = tables
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Box::new(SharedTable::<T>::default()));
        let Some(table) = table.downcast_mut::<SharedTable<T>>() else {
            // Unreachable: each table is made for its own type just above.
            return Shared(Arc::from(items));
        };
        if let Some(known) = table.get(items.as_slice()) {
            return Shared(Arc::clone(known));
        }
        let fresh: Arc<[T]> = Arc::from(items);
        table.insert(Arc::clone(&fresh));
        Shared(fresh)
    }
}

impl<T> Shared<T> {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<T: Hash + Eq + Send + Sync + 'static> Default for Shared<T> {
    fn default() -> Shared<T> {
        Shared::new(Vec::new())
    }
}

impl<T: Hash + Eq + Send + Sync + 'static> FromIterator<T> for Shared<T> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Shared<T> {
        Shared::new(items.into_iter().collect())
    }
}

impl<T> Deref for Shared<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.0
    }
}

impl<'a, T> IntoIterator for &'a Shared<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<T: fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl<T: Serialize> Serialize for Shared<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter())
    }
}

impl<'de, T: Deserialize<'de> + Hash + Eq + Send + Sync + 'static> Deserialize<'de> for Shared<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Shared<T>, D::Error> {
        Ok(Shared::new(Vec::deserialize(d)?))
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub enum Json {
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    String(Sym),
    Array(Box<[Json]>),
    Object(Box<[(Sym, Json)]>),
}

impl Json {
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        let pairs = self.entries();
        (pairs.binary_search_by(|(k, _)| k.as_str().cmp(key)).ok())
            .and_then(|i| pairs.get(i).map(|p| &p.1))
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// An object's members, sorted by key; nothing for any other value.
    pub fn entries(&self) -> &[(Sym, Json)] {
        match self {
            Json::Object(pairs) => pairs,
            _ => &[],
        }
    }

    /// A string as it is, any other value as JSON (a quantity written `2` or `"2"`).
    pub fn text(&self) -> String {
        match self {
            Json::String(s) => s.to_string(),
            other => serde_json::to_string(other).unwrap_or_default(),
        }
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Number(n) => n.serialize(s),
            Json::String(t) => s.serialize_str(t),
            Json::Array(items) => s.collect_seq(items.iter()),
            Json::Object(pairs) => s.collect_map(pairs.iter().map(|(k, v)| (k, v))),
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        Json::deserialize(d)
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Json, E> {
        Ok(Json::Bool(b))
    }
    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Json, E> {
        Ok(Json::Number(n.into()))
    }
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Json, E> {
        Ok(Json::Number(n.into()))
    }
    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Json, E> {
        Ok(Number::from_f64(n).map_or(Json::Null, Json::Number))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Json, E> {
        Ok(Json::String(Sym::new(s)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items.into_boxed_slice()))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut pairs: Vec<(Sym, Json)> = Vec::new();
        while let Some(pair) = map.next_entry()? {
            pairs.push(pair);
        }
        // Reversed then stably sorted: of duplicate keys the last comes first and is kept.
        pairs.reverse();
        pairs.sort_by(|a, b| a.0.cmp(&b.0));
        pairs.dedup_by(|later, first| later.0 == first.0);
        Ok(Json::Object(pairs.into_boxed_slice()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_no_object_holds_is_forgotten() {
        let held = Sym::new("forget-test-held");
        drop(Sym::new("forget-test-dropped"));
        Sym::forget_unused();
        let table = INTERNED.lock().unwrap();
        assert!(table.contains("forget-test-held"));
        assert!(!table.contains("forget-test-dropped"));
        drop(table);
        assert_eq!(Sym::new("forget-test-held").0.as_ptr(), held.0.as_ptr());
    }

    #[test]
    fn writes_back_what_serde_json_value_writes() {
        let text = r#"{"b":{"cpu":"500m","memory":2},"a":[true,null,1.5,-3],"b2":"x","a":"last"}"#;
        let ours: Json = serde_json::from_str(text).unwrap();
        let theirs: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(
            serde_json::to_string(&ours).unwrap(),
            serde_json::to_string(&theirs).unwrap()
        );
        assert_eq!(ours.get("a").and_then(Json::as_str), Some("last"));
        assert_eq!(
            ours.get("b").and_then(|b| b.get("memory")).map(Json::text),
            Some("2".into())
        );
        assert_eq!(ours.get("zz"), None);
    }

    #[test]
    fn equal_lists_are_one_copy() {
        let a: Shared<Sym> = ["app", "web"].into_iter().map(Sym::new).collect();
        let b: Shared<Sym> = serde_json::from_str(r#"["app","web"]"#).unwrap();
        let c: Shared<Sym> = serde_json::from_str(r#"["app"]"#).unwrap();
        assert!(Arc::ptr_eq(&a.0, &b.0));
        assert!(!Arc::ptr_eq(&a.0, &c.0));
        assert_eq!(serde_json::to_string(&b).unwrap(), r#"["app","web"]"#);
        assert!(Arc::ptr_eq(
            &Shared::<Sym>::default().0,
            &Shared::new(Vec::new()).0
        ));
    }
}
