//! `hpacalc serve`'s copy of the cluster: each list the audit reads (`cluster::LISTS`), listed
//! once and then watched from the list's `resourceVersion`, as an informer keeps it: `ADDED` and
//! `MODIFIED` objects are read by the dump's own reader into their lean form and kept by name,
//! `DELETED` ones dropped, `BOOKMARK`s move the version on, and a `410 Gone` (the version is too
//! old) or a broken watch lists again. Each sync takes a `Dump` of what is kept, then reads what
//! changes every sync (`cluster::at_sync`), so a sync is the audit of the objects as they are.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration as StdDuration, Instant};

use serde::Deserialize;
use serde_json::value::RawValue;

use super::LiveError;
use super::client::{Api, Request};
use super::cluster::{LISTS, Listed, list_request};
use super::fetch::{discover, list_pages_or_refused};
use crate::input::cluster::{Dump, Lean};
use crate::scenario::fleet::Unlisted;

/// How long to wait before listing again after the API refused the list (403).
const REFUSED_RETRY: StdDuration = StdDuration::from_secs(30);

/// client-go's reflector backs off between two `ListAndWatch` (`NewReflectorWithOptions`:
/// `wait.NewExponentialBackoffManager(800*time.Millisecond, 30*time.Second, 2*time.Minute, 2.0,
/// 1.0, clock)`): 0.8 s doubled at every failure up to 30 s, each pause stretched by a random
/// part up to itself (jitter 1.0: [0.8, 1.6) s first, [30, 60) s at the most), back to 0.8 s
/// after 2 minutes without a pause.
const BACKOFF_INITIAL: StdDuration = StdDuration::from_millis(800);
const BACKOFF_MAX: StdDuration = StdDuration::from_secs(30);
const BACKOFF_RESET: StdDuration = StdDuration::from_secs(120);
/// A watch shorter than this with no event is a failure (`watchHandler`'s "very short watch").
const VERY_SHORT_WATCH: StdDuration = StdDuration::from_secs(1);

/// The reflector's pause between two lists.
#[derive(Debug, Clone, Copy)]
struct Backoff {
    next: StdDuration,
    last: Option<Instant>,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            next: BACKOFF_INITIAL,
            last: None,
        }
    }
}

impl Backoff {
    /// The next pause at `now`, `random` in [0, 1): exponentialBackoffManagerImpl's
    /// getNextBackoff (reset after `BACKOFF_RESET`) and wait.Backoff's Step (factor 2, capped,
    /// then jittered by up to 1.0 of itself).
    fn step(&mut self, now: Instant, random: f64) -> StdDuration {
        if self
            .last
            .is_none_or(|last| now.duration_since(last) > BACKOFF_RESET)
        {
            self.next = BACKOFF_INITIAL;
        }
        self.last = Some(now);
        let pause = self.next;
        self.next = (pause * 2).min(BACKOFF_MAX);
        pause + pause.mul_f64(random.clamp(0.0, 1.0))
    }
}

/// A number in [0, 1) that differs from call to call (the standard library's random hash keys;
/// a jitter needs no better).
fn unit_random() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let bits = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    #[allow(clippy::cast_precision_loss, reason = "53 random bits")]
    let unit = (bits >> 11) as f64 / (1u64 << 53) as f64;
    unit
}

/// What one list holds now.
#[derive(Default)]
struct Kept {
    /// By namespace and name: the order the API lists them in (etcd's keys).
    objects: BTreeMap<(String, String), Lean>,
    /// The list was read at least once.
    listed: bool,
    /// The API refused the list (403) and the audit goes on without it.
    unlisted: Option<Unlisted>,
}

/// The watched lists.
#[derive(Clone, Default)]
pub struct Watched {
    lists: Arc<Vec<Mutex<Kept>>>,
}

/// One event of a watch.
#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(borrow)]
    object: &'a RawValue,
}

#[derive(Deserialize, Default)]
struct Head {
    #[serde(default)]
    metadata: HeadMeta,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct HeadMeta {
    #[serde(default)]
    name: String,
    #[serde(default)]
    namespace: String,
    #[serde(default)]
    resource_version: Option<String>,
}

impl Watched {
    /// Starts watching every list the audit reads, in each of `namespaces` or (with `[None]`) the
    /// whole cluster; an add-on's list that discovery does not find is not watched. Each list is
    /// kept by a task of its own on the current runtime.
    pub async fn start(
        api: &Arc<Api>,
        namespaces: &[Option<String>],
    ) -> Result<Watched, LiveError> {
        for ns in namespaces.iter().flatten() {
            super::path_segment("namespace", ns)?;
        }
        let mut wanted = Vec::new();
        for list in &LISTS {
            if list.optional && discover(api, list.api_version, list.kind).await?.is_none() {
                continue;
            }
            wanted.push(list);
        }
        let each: Vec<(&Option<String>, &&Listed)> = (namespaces.iter())
            .flat_map(|ns| wanted.iter().map(move |list| (ns, list)))
            .collect();
        let lists: Vec<Mutex<Kept>> = each.iter().map(|_| Mutex::default()).collect();
        let watched = Watched {
            lists: Arc::new(lists),
        };
        for (i, (namespace, list)) in each.into_iter().enumerate() {
            let req = list_request(list.api_version, list.resource, namespace.as_deref());
            let (api, watched, list) = (Arc::clone(api), watched.clone(), *list);
            tokio::spawn(async move { watched.keep(&api, i, list, &req).await });
        }
        Ok(watched)
    }

    /// A copy that holds `dump`'s objects as one list, read once: what the watches keep, for a
    /// benchmark of the sync without a cluster (`examples/serve_sync.rs`).
    pub fn holding(mut dump: Dump) -> Watched {
        // One list a kind, as the watches keep them: names repeat across kinds.
        let mut lists: BTreeMap<String, Kept> = BTreeMap::new();
        for item in dump.drain() {
            let kind = match &item {
                Lean::Workload(w) => w.kind.to_string(),
                other => format!("{:?}", std::mem::discriminant(other)),
            };
            let kept = lists.entry(kind).or_insert_with(|| Kept {
                listed: true,
                ..Kept::default()
            });
            kept.objects.insert(key(&item), item);
        }
        Watched {
            lists: Arc::new(lists.into_values().map(Mutex::new).collect()),
        }
    }

    /// Whether every list has been read once.
    pub fn listed(&self) -> bool {
        (self.lists.iter()).all(|k| k.lock().is_ok_and(|k| k.listed))
    }

    /// What is kept now, as a dump. A pod's copy shares every part of the kept one (no
    /// allocation but the dump's list).
    pub fn dump(&self) -> Dump {
        let mut dump = Dump::default();
        for kept in self.lists.iter() {
            let Ok(kept) = kept.lock() else {
                continue;
            };
            if let Some(Lean::Pod(_)) = kept.objects.values().next() {
                dump.pods.reserve(kept.objects.len());
            }
            for item in kept.objects.values() {
                dump.put(item.clone());
            }
            dump.unlisted.extend(kept.unlisted.clone());
        }
        dump
    }

    /// Lists, then watches, list `i` for ever, as client-go's `Reflector.Run` does: every
    /// `ListAndWatch` that ends (a failed list, a failed, expired or very short watch) is
    /// followed by the reflector's backoff, then a new list.
    async fn keep(&self, api: &Api, i: usize, list: &'static Listed, req: &Request) {
        let mut backoff = Backoff::default();
        loop {
            match self.list(api, i, list, req).await {
                Ok(Some(version)) => self.watch_from(api, i, list, req, version).await,
                Ok(None) => {
                    // A refused list stays refused until the next try.
                    tokio::time::sleep(REFUSED_RETRY).await;
                    continue;
                }
                Err(e) => crate::term::warn(&format!("serve: {e}; listing again")),
            }
            tokio::time::sleep(backoff.step(Instant::now(), unit_random())).await;
        }
    }

    /// Watches list `i` from `version` again as long as each watch ends cleanly
    /// (`Reflector.watch`); returns when the list must be read again. A watch that ended
    /// within a second without an event is a failure, as `watchHandler` says ("very short
    /// watch"): a server that closes every watch at once is not asked again at once.
    async fn watch_from(
        &self,
        api: &Api,
        i: usize,
        list: &'static Listed,
        req: &Request,
        mut version: String,
    ) {
        loop {
            let started = Instant::now();
            let Some((next, events)) = self.watch(api, i, list, req, &version).await else {
                return;
            };
            if events == 0 && started.elapsed() < VERY_SHORT_WATCH {
                crate::term::warn(&format!(
                    "serve: the watch of {} ended within a second with no event; listing again \
                     after a pause",
                    req.path
                ));
                return;
            }
            version = next;
        }
    }

    /// Reads list `i` whole, replacing what was kept: the list's version, or `None` when the
    /// API refused it with 403 (and the audit goes on without it).
    async fn list(
        &self,
        api: &Api,
        i: usize,
        list: &'static Listed,
        req: &Request,
    ) -> Result<Option<String>, LiveError> {
        let mut scratch = Dump::default();
        let mut version = None;
        let listed = list_pages_or_refused(api, req, None, |text| {
            version = super::answer::Page::parse(text)
                .ok()
                .and_then(|p| p.resource_version().map(str::to_string));
            scratch
                .read_page(&req.path, list.kind, list.api_version, text)
                .map_err(|e| LiveError(format!("{}: {e}", req.path)))
        })
        .await?;
        let mut objects = BTreeMap::new();
        for item in scratch.drain() {
            objects.insert(key(&item), item);
        }
        // A refused list is said in the findings, and the others serve: an add-on's goes
        // unchecked, a namespace whose own lists are refused goes unevaluated.
        let unlisted = match listed {
            Ok(_) => None,
            Err((_, r))
                if r.code == 403 && (list.unchecked.is_some() || req.namespace.is_some()) =>
            {
                let unchecked = list.unchecked.map_or_else(
                    || {
                        format!(
                            "the HPAs of namespace {} are evaluated without them",
                            req.namespace.as_deref().unwrap_or_default()
                        )
                    },
                    str::to_string,
                );
                Some(Unlisted {
                    group: req.group.clone(),
                    resource: req.resource.clone(),
                    namespace: req.namespace.clone(),
                    answer: r.message,
                    unchecked,
                })
            }
            Err((page, r)) => return Err(super::fetch::refused(api, &page, &r)),
        };
        let refused = unlisted.is_some();
        if let Some(Ok(mut kept)) = self.lists.get(i).map(Mutex::lock) {
            *kept = Kept {
                objects,
                listed: true,
                unlisted,
            };
        }
        Ok(if refused {
            None
        } else {
            Some(version.unwrap_or_default())
        })
    }

    /// Watches list `i` from `version`: the version to watch from next and the events seen
    /// when the answer ended cleanly, `None` when the list must be read again (410 Gone, an
    /// error, a broken answer).
    async fn watch(
        &self,
        api: &Api,
        i: usize,
        list: &'static Listed,
        req: &Request,
        version: &str,
    ) -> Option<(String, usize)> {
        let mut watch = req.clone();
        watch.verb = "watch";
        watch.path = format!(
            "{}?watch=true&allowWatchBookmarks=true&resourceVersion={}&timeoutSeconds={}",
            req.path,
            super::fetch::enc(version),
            api.watch_seconds()
        );
        let mut last = version.to_string();
        let mut relist = false;
        let mut events = 0usize;
        let answer = api
            .watch(&watch, |line| match self.apply(i, list, &req.path, line) {
                Applied::Version(v) => {
                    last = v;
                    events += 1;
                    true
                }
                Applied::Nothing => {
                    events += 1;
                    true
                }
                Applied::Relist => {
                    relist = true;
                    false
                }
            })
            .await;
        match answer {
            Ok(Ok(())) if !relist => Some((last, events)),
            Ok(Ok(())) => None,
            Ok(Err(r)) => {
                if r.code != 410 {
                    crate::term::warn(&format!(
                        "serve: the watch of {} answered {}: {}; listing again",
                        req.path, r.code, r.message
                    ));
                }
                None
            }
            Err(e) => {
                crate::term::warn(&format!("serve: {e}; listing again"));
                None
            }
        }
    }

    /// Applies one watch event to list `i`.
    fn apply(&self, i: usize, list: &'static Listed, path: &str, line: &str) -> Applied {
        let Ok(event) = serde_json::from_str::<Event<'_>>(line) else {
            return Applied::Relist;
        };
        let head: Head = serde_json::from_str(event.object.get()).unwrap_or_default();
        let Some(Ok(mut kept)) = self.lists.get(i).map(Mutex::lock) else {
            return Applied::Relist;
        };
        match event.kind {
            "ADDED" | "MODIFIED" => {
                let mut scratch = Dump::default();
                let page = format!("{{\"items\":[{}]}}", event.object.get());
                if scratch
                    .read_page(path, list.kind, list.api_version, &page)
                    .is_err()
                {
                    return Applied::Relist;
                }
                for item in scratch.drain() {
                    kept.objects.insert(key(&item), item);
                }
            }
            "DELETED" => {
                let m = &head.metadata;
                kept.objects.remove(&(m.namespace.clone(), m.name.clone()));
            }
            "BOOKMARK" => {}
            // `ERROR`: a Status; 410 Gone (or any other) means listing again.
            _ => return Applied::Relist,
        }
        head.metadata
            .resource_version
            .map_or(Applied::Nothing, Applied::Version)
    }
}

/// What one event did to what is kept.
enum Applied {
    /// Kept; the watch is now at this version.
    Version(String),
    Nothing,
    Relist,
}

/// An object's namespace and name.
fn key(item: &Lean) -> (String, String) {
    let (namespace, name) = match item {
        Lean::Hpa(h) | Lean::ScaledObject(h) => {
            let m = &h.head.metadata;
            (m.namespace.to_string(), m.name.clone())
        }
        Lean::Workload(w) => (w.metadata.namespace.to_string(), w.metadata.name.clone()),
        Lean::Pod(p) => (
            p.metadata.namespace.to_string(),
            p.metadata.name.to_string(),
        ),
        Lean::Pdb(p) => (p.metadata.namespace.to_string(), p.metadata.name.clone()),
        Lean::Vpa(v) => (v.metadata.namespace.to_string(), v.metadata.name.clone()),
    };
    (namespace, name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backoff_is_the_reflectors_doubled_capped_jittered_and_reset() {
        let mut b = Backoff::default();
        let t0 = Instant::now();
        let at = |s: u64| t0 + StdDuration::from_secs(s);
        // No jitter: 0.8, 1.6, 3.2, ... up to 30 s.
        let pauses: Vec<u128> = (0..8).map(|i| b.step(at(i), 0.0).as_millis()).collect();
        assert_eq!(
            pauses,
            [800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000]
        );
        // Jitter 1.0: up to the pause again, [30, 60) s at the most.
        assert_eq!(b.step(at(9), 0.5).as_millis(), 45_000);
        // Two minutes without a pause: from 0.8 s again, jittered into [0.8, 1.6).
        assert_eq!(b.step(at(9 + 121), 0.25).as_millis(), 1000);
        assert_eq!(b.step(at(9 + 122), 0.0).as_millis(), 1600);
        let r = unit_random();
        assert!((0.0..1.0).contains(&r));
    }
}
