//! A fleet of HPAs from a cluster dump: every HPA matched to its target and pods through the pod
//! index, the single-HPA calculation run on each HPA's share of the dump, and the facts the
//! cross-HPA findings read (`calc::fleet`).

use std::collections::{BTreeSet, HashMap, HashSet};

use anyhow::Result;

use crate::calc;
use crate::input::cluster::index::{MetricsIndex, PodIndex, Selections};
use crate::input::cluster::json::{Json, Sym};
use crate::input::cluster::objects::{
    EventHead, HpaHead, Node, Pdb, Pod, PodSpec, Requirements, Workload, limits_milli, milli,
    requests_milli,
};
use crate::input::cluster::share::{Common, Parsed, Share};
use crate::input::cluster::{Dump, Whole};
use crate::input::selector::Selector;
use crate::input::target::ScaleUnread;
use crate::report::fleet::{AuditReport, Unevaluated};
use crate::scenario::fleet::{
    CapacityFacts, FleetFacts, GroupFit, HpaCase, HpaFacts, LoneScaledObject, Names, NodeRoom,
    PdbFacts, TargetState, VpaFacts,
};
use crate::scenario::{MetricSpec, SelectorError, TargetType};
use crate::time::Timestamp;

/// Kinds the API serves without a scale subresource: an HPA cannot target them.
pub const NO_SCALE_KINDS: [&str; 10] = [
    "DaemonSet",
    "Job",
    "CronJob",
    "Pod",
    "Service",
    "ConfigMap",
    "Secret",
    "Ingress",
    "PersistentVolumeClaim",
    "HorizontalPodAutoscaler",
];

/// One HPA matched to its target and pods.
struct Matched<'a> {
    hpa: &'a Whole<HpaHead>,
    target: Option<&'a Workload>,
    state: TargetState,
    selector: Option<(String, Selector)>,
    pods: Vec<u32>,
}

pub fn hpa_key(h: &HpaHead) -> String {
    format!("{}/{}", h.metadata.namespace, h.metadata.name)
}

/// Every HPA of the dump matched to its target and pods, and what the checks look up: the HPAs
/// selecting each pod, the events, the HPAs by target, the ScaledObjects, the PDBs, the nodes.
pub struct Fleet<'a> {
    dump: &'a Dump,
    matched: Vec<Matched<'a>>,
    selected_by: Selections,
    metrics: Option<MetricsIndex<'a>>,
    events: HashMap<(&'a str, &'a str), Vec<&'a Whole<EventHead>>>,
    by_target: HashMap<(&'a str, &'a str, &'a str), Vec<usize>>,
    scaled_objects: HashMap<(&'a str, &'a str), &'a Whole<HpaHead>>,
    pdbs: HashMap<usize, Vec<PdbFacts>>,
    rooms: Option<Vec<NodeRoom>>,
    /// The group's maximum, the nodes it may still add, and the room of each.
    growth: Option<(i64, i64, NodeRoom)>,
    /// The manifests earlier syncs parsed (`serve`).
    parsed: Option<&'a Parsed>,
}

impl<'a> Fleet<'a> {
    pub fn new(dump: &'a Dump, fleet: &FleetFacts) -> Fleet<'a> {
        let index = PodIndex::build(&dump.pods);
        let (matched, selected_by) = match_hpas(dump, &index);
        let mut events: HashMap<(&str, &str), Vec<_>> = HashMap::new();
        for e in &dump.events {
            if let Some(o) = (e.head.involved_object.as_ref()).or(e.head.regarding.as_ref()) {
                let ns = if o.namespace.is_empty() {
                    e.head.metadata.namespace.as_str()
                } else {
                    o.namespace.as_str()
                };
                events.entry((ns, o.name.as_str())).or_default().push(e);
            }
        }
        let mut by_target: HashMap<(&str, &str, &str), Vec<usize>> = HashMap::new();
        for (i, m) in matched.iter().enumerate() {
            let r = &m.hpa.head.spec.scale_target_ref;
            let ns = m.hpa.head.metadata.namespace.as_str();
            (by_target
                .entry((ns, r.kind.as_str(), r.name.as_str()))
                .or_default())
            .push(i);
        }
        let scaled_objects = (dump.scaled_objects.iter())
            .map(|s| {
                let m = &s.head.metadata;
                ((m.namespace.as_str(), m.name.as_str()), s)
            })
            .collect();
        let pdbs = pdbs_by_hpa(dump, &index, &selected_by);
        let growth = fleet.node_group_max.and_then(|max| {
            let given = i64::try_from(dump.nodes.len()).unwrap_or(i64::MAX);
            Some((max, max.saturating_sub(given).max(0), new_node_room(dump)?))
        });
        Fleet {
            dump,
            matched,
            selected_by,
            metrics: (fleet.metrics_given && dump.metrics_api_error.is_none())
                .then(|| MetricsIndex::build(&dump.metrics)),
            events,
            by_target,
            scaled_objects,
            pdbs,
            rooms: (!dump.nodes.is_empty()).then(|| node_rooms(dump)),
            growth,
            parsed: None,
        }
    }

    /// The fleet reading each manifest as `parsed` kept it from an earlier sync, when the text
    /// is the same, and keeping what it parses.
    #[must_use]
    pub fn parsed_by(mut self, parsed: Option<&'a Parsed>) -> Fleet<'a> {
        self.parsed = parsed;
        self
    }

    /// How many HPAs there are.
    pub fn hpa_count(&self) -> usize {
        self.matched.len()
    }

    /// The HPAs `range` (in the dump's order) as cases for the checks, each scenario built as
    /// it is asked for.
    pub fn cases<'f>(
        &'f self,
        common: &'f Common,
        range: std::ops::Range<usize>,
    ) -> impl Iterator<Item = HpaCase> + 'f {
        // How many pods of each set of requests the nodes given, and the group's new nodes, hold.
        let mut fits: HashMap<Requests, (i64, Option<GroupFit>)> = HashMap::new();
        let first = range.start;
        (self.matched.get(range).unwrap_or(&[]).iter().enumerate())
            .map(move |(i, m)| self.case(first + i, m, common, &mut fits))
    }

    fn case(
        &self,
        i: usize,
        m: &Matched<'a>,
        common: &Common,
        fits: &mut HashMap<Requests, (i64, Option<GroupFit>)>,
    ) -> HpaCase {
        let head = &m.hpa.head;
        let meta = &head.metadata;
        let key = hpa_key(head);
        let (selecting, same_target) = self.others(i, m);
        let selector_text = m.selector.as_ref().map(|(t, _)| t.clone());
        let selector_error = selector_error(m, &key, &selecting);
        let r = &head.spec.scale_target_ref;
        let scenario = self.scenario(m, &key, selector_error, common);
        // A target whose scale cannot be read has its findings; its metrics are never read.
        let (resources, utilization_resources, missing_requests) = match &scenario {
            Ok(scenario) if m.state == TargetState::Found => {
                requests_facts(&scenario.hpa.metrics, m.target)
            }
            _ => (Vec::new(), Vec::new(), Vec::new()),
        };
        let (min_replicas, max_replicas) = match &scenario {
            Ok(s) => (s.hpa.min_replicas, s.hpa.max_replicas),
            Err(_) => (
                clamp_i32(head.spec.min_replicas.unwrap_or(1)),
                clamp_i32(head.spec.max_replicas.unwrap_or(0)),
            ),
        };
        let facts = HpaFacts {
            namespace: meta.namespace.to_string(),
            name: meta.name.clone(),
            target_kind: r.kind.to_string(),
            target_name: r.name.to_string(),
            target: m.state.clone(),
            min_replicas,
            max_replicas,
            utilization_resources,
            resources,
            missing_requests,
            selecting,
            same_target,
            selector: selector_text.unwrap_or_default(),
            replicas_owners: m.target.map(replicas_managers).unwrap_or_default(),
            pdbs: self.pdbs.get(&i).cloned().unwrap_or_default(),
            vpas: vpas_of(self.dump, &meta.namespace, &r.kind, &r.name),
            generation: meta.generation,
            observed_generation: head.status.observed_generation,
            status_written: status_written(head),
            capacity: self.capacity(m, fits),
        };
        HpaCase { facts, scenario }
    }

    /// The other HPAs selecting this HPA's pods (the controller's own check), and those with the
    /// same scale target. The HPAs are sorted by `namespace/name`: their positions are in name
    /// order, and only the names a message shows are written out.
    fn others(&self, i: usize, m: &Matched<'_>) -> (Names, Names) {
        let selecting: BTreeSet<u32> = (m.pods.iter())
            .flat_map(|&p| self.selected_by.hpas_of(p))
            .filter(|&h| h as usize != i)
            .collect();
        let name = |h: usize| self.matched.get(h).map(|o| hpa_key(&o.hpa.head));
        let selecting = Names::of(
            selecting.iter().filter_map(|&h| name(h as usize)),
            selecting.len(),
        );
        let ns = m.hpa.head.metadata.namespace.as_str();
        let r = &m.hpa.head.spec.scale_target_ref;
        let same: Vec<usize> = (self.by_target.get(&(ns, r.kind.as_str(), r.name.as_str())))
            .into_iter()
            .flatten()
            .copied()
            .filter(|&o| o != i)
            .collect();
        let same_target = Names::of(same.iter().filter_map(|&o| name(o)), same.len());
        (selecting, same_target)
    }

    /// The single-HPA scenario of the HPA's share of the dump; an HPA KEDA made is given as its
    /// ScaledObject (KEDA's step, then the HPA's). A target whose scale cannot be read gives the
    /// controller's answer to that (FailedGetScale), from the HPA alone.
    fn scenario(
        &self,
        m: &Matched<'a>,
        key: &str,
        selector_error: Option<SelectorError>,
        common: &Common,
    ) -> Result<crate::scenario::Scenario, String> {
        let meta = &m.hpa.head.metadata;
        let scale_error = match &m.state {
            TargetState::Found => None,
            TargetState::Missing => Some(ScaleUnread::NotFound),
            TargetState::NoScale => Some(ScaleUnread::NoScaleSubresource),
            TargetState::Unread { answer } => Some(ScaleUnread::Answered(answer.clone())),
        };
        let scaled_object = (meta.owner_references.iter())
            .filter(|_| scale_error.is_none())
            .find(|o| o.kind == "ScaledObject")
            .and_then(|o| (self.scaled_objects).get(&(meta.namespace.as_str(), o.name.as_str())))
            .copied();
        let pods = || (m.pods.iter()).filter_map(|&p| self.dump.pods.get(p as usize));
        let share = Share {
            hpa: m.hpa,
            manifest: m.hpa,
            target: m.target,
            pods: pods().collect(),
            metrics: self.metrics.as_ref().map(|by_pod| {
                pods()
                    .filter_map(|p| by_pod.get(&p.metadata.namespace, &p.metadata.name))
                    .collect()
            }),
            metrics_api_error: self.dump.metrics_api_error.as_deref(),
            events: (self.events)
                .get(&(meta.namespace.as_str(), meta.name.as_str()))
                .cloned()
                .unwrap_or_default(),
            selector_error,
            scale_error,
            own: self.dump.hpa_files.get(key),
            parsed: self.parsed,
        };
        share_scenario(share, scaled_object, common).map_err(|e| format!("{e:#}"))
    }

    /// The pods' requests of one replica and the room the nodes have (with `--nodes`).
    fn capacity(
        &self,
        m: &Matched<'_>,
        fits: &mut HashMap<Requests, (i64, Option<GroupFit>)>,
    ) -> Option<CapacityFacts> {
        let rooms = self.rooms.as_ref()?;
        let per_pod = per_pod_requests(m.target?);
        let (fit, group) = fits
            .entry(per_pod.clone())
            .or_insert_with(|| {
                let group = self.growth.as_ref().map(|(max, new_nodes, room)| GroupFit {
                    max: *max,
                    new_nodes: *new_nodes,
                    fit: calc::fleet::pods_that_fit(std::slice::from_ref(room), &per_pod)
                        .saturating_mul(*new_nodes),
                });
                (calc::fleet::pods_that_fit(rooms, &per_pod), group)
            })
            .clone();
        Some(CapacityFacts {
            per_pod,
            fit,
            current_pods: i64::try_from(m.pods.len()).unwrap_or(i64::MAX),
            group,
        })
    }
}

/// Every HPA matched to its target and the pods its target's selector matches, sorted by
/// `namespace/name`, and which HPAs select each pod.
fn match_hpas<'a>(dump: &'a Dump, index: &PodIndex) -> (Vec<Matched<'a>>, Selections) {
    let workloads: HashMap<(&str, &str, &str), &Workload> = (dump.workloads.iter())
        .map(|w| {
            let m = &w.metadata;
            ((m.namespace.as_str(), w.kind.as_str(), m.name.as_str()), w)
        })
        .collect();
    let mut hpas: Vec<&Whole<HpaHead>> = dump.hpas.iter().collect();
    hpas.sort_by_key(|h| hpa_key(&h.head));
    let mut selections: Vec<(u32, u32)> = Vec::new();
    let mut matched: Vec<Matched<'_>> = Vec::with_capacity(hpas.len());
    for (h, hpa) in hpas.iter().enumerate() {
        let ns = hpa.head.metadata.namespace.as_str();
        let target_ref = &hpa.head.spec.scale_target_ref;
        let target = workloads
            .get(&(ns, target_ref.kind.as_str(), target_ref.name.as_str()))
            .copied();
        let state = match target {
            Some(_) => TargetState::Found,
            None => unfound_state(dump, ns, &target_ref.kind, &target_ref.name),
        };
        let label_selector = target.and_then(|w| w.spec.selector.as_ref());
        let selector = label_selector.and_then(|s| {
            let text = s.to_text();
            Selector::parse(&text).ok().map(|p| (text, p))
        });
        let pods = match (label_selector, &selector) {
            (Some(s), Some((text, parsed))) if !text.is_empty() => {
                index.select(&dump.pods, ns, s, parsed)
            }
            _ => Vec::new(),
        };
        let id = u32::try_from(h).unwrap_or(u32::MAX);
        selections.extend(pods.iter().map(|&p| (p, id)));
        matched.push(Matched {
            hpa,
            target,
            state,
            selector,
            pods,
        });
    }
    (matched, Selections::new(selections))
}

/// A target that no workload of the dump is: what the API answered its scale read (live), a kind
/// without a scale subresource, or missing.
fn unfound_state(dump: &Dump, namespace: &str, kind: &str, name: &str) -> TargetState {
    let key = (namespace.to_string(), kind.to_string(), name.to_string());
    match dump.scales_unread.get(&key) {
        Some(ScaleUnread::Answered(answer)) => TargetState::Unread {
            answer: answer.clone(),
        },
        Some(ScaleUnread::NoScaleSubresource) => TargetState::NoScale,
        _ if NO_SCALE_KINDS.contains(&kind) => TargetState::NoScale,
        _ => TargetState::Missing,
    }
}

// Port of validateAndParseSelector (horizontal.go): a scale without a selector, or pods another
// HPA's selector matches too, stop the controller's sync.
fn selector_error(m: &Matched<'_>, key: &str, selecting: &Names) -> Option<SelectorError> {
    let text = m.selector.as_ref().map(|(t, _)| t);
    match (&m.state, text) {
        (TargetState::Found, None) => Some(SelectorError {
            reason: "InvalidSelector".into(),
            message: "the HPA target's scale is missing a selector".into(),
        }),
        (TargetState::Found, Some(text)) if !selecting.is_empty() => Some(SelectorError {
            reason: "AmbiguousSelector".into(),
            message: format!(
                "pods by selector {text} are controlled by multiple HPAs: [{}]",
                selecting.with(key).joined(" ")
            ),
        }),
        _ => None,
    }
}

/// The ScaledObjects that no HPA of the dump belongs to, and whether KEDA paused them.
pub fn lone_scaled_objects(dump: &Dump) -> Vec<LoneScaledObject> {
    let owned: BTreeSet<(&str, &str)> = (dump.hpas.iter())
        .flat_map(|h| {
            let ns = h.head.metadata.namespace.as_str();
            (h.head.metadata.owner_references.iter())
                .filter(|o| o.kind == "ScaledObject")
                .map(move |o| (ns, o.name.as_str()))
        })
        .collect();
    let mut lone: Vec<LoneScaledObject> = (dump.scaled_objects.iter())
        .filter(|so| {
            let m = &so.head.metadata;
            !owned.contains(&(m.namespace.as_str(), m.name.as_str()))
        })
        .map(|so| {
            #[derive(serde::Deserialize, Default)]
            struct Annotated {
                #[serde(default)]
                metadata: AnnotatedMeta,
            }
            #[derive(serde::Deserialize, Default)]
            struct AnnotatedMeta {
                #[serde(default)]
                annotations: std::collections::BTreeMap<String, String>,
            }
            let annotations = serde_json::from_str::<Annotated>(&so.text)
                .unwrap_or_default()
                .metadata
                .annotations;
            LoneScaledObject {
                key: hpa_key(&so.head),
                paused: crate::input::keda::paused_by_annotation(&annotations),
            }
        })
        .collect();
    lone.sort_by(|a, b| a.key.cmp(&b.key));
    lone
}

/// The scenario of one HPA's share: as the ScaledObject that made it, when KEDA did (KEDA's step,
/// then the HPA's), else as the HPA. A ScaledObject without a trigger's value cannot be
/// evaluated; the HPA alone still has an answer (its metrics files or its status), which then
/// says that it leaves KEDA's step out.
fn share_scenario<'a>(
    mut share: Share<'a>,
    scaled_object: Option<&'a Whole<HpaHead>>,
    common: &Common,
) -> Result<crate::scenario::Scenario> {
    let Some(so) = scaled_object else {
        return share.scenario(common);
    };
    let hpa = std::mem::replace(&mut share.manifest, so);
    let e = match share.scenario(common) {
        Ok(scenario) => return Ok(scenario),
        Err(e) => e,
    };
    let why = format!(
        "the ScaledObject {} could not be evaluated ({e:#}): this is the answer of its HPA alone, \
         without KEDA's step (activation, cooldown, fallback)",
        so.head.metadata.name
    );
    share.manifest = hpa;
    let mut scenario = share.scenario(common)?;
    scenario.warnings.push(why);
    Ok(scenario)
}

fn clamp_i32(v: i64) -> i32 {
    i32::try_from(v).unwrap_or(if v < 0 { i32::MIN } else { i32::MAX })
}

/// The resources the HPA scales on, those with Utilization targets, and the containers of the
/// target's pod template without a request for one of those.
#[allow(clippy::type_complexity)]
fn requests_facts(
    metrics: &[MetricSpec],
    target: Option<&Workload>,
) -> (Vec<String>, Vec<String>, Vec<(String, String)>) {
    let mut resources = Vec::new();
    let mut utilization = Vec::new();
    let mut missing = Vec::new();
    let template = target.and_then(|w| w.spec.template.as_ref());
    for m in metrics {
        let MetricSpec::Resource {
            resource,
            container,
            target: t,
        } = m
        else {
            continue;
        };
        if !resources.contains(resource) {
            resources.push(resource.clone());
        }
        if t.target_type != TargetType::Utilization {
            continue;
        }
        utilization.push(resource.clone());
        let Some(template) = template else { continue };
        let pod_level = (template.spec.resources.as_ref())
            .and_then(|r| r.requests.as_ref())
            .and_then(|r| r.get(resource))
            .is_some();
        if pod_level {
            continue;
        }
        for c in &template.spec.containers {
            if container.as_ref().is_some_and(|n| *n != *c.name) {
                continue;
            }
            let entry = (c.name.to_string(), resource.clone());
            if !c.requests(resource) && !missing.contains(&entry) {
                missing.push(entry);
            }
        }
    }
    (resources, utilization, missing)
}

/// Managers other than the HPA controller that own `spec.replicas` (managedFields).
fn replicas_managers(w: &Workload) -> Vec<String> {
    super::objects::replicas_managers(&w.metadata.managed_fields)
}

/// The last write of the HPA's status, per managedFields.
fn status_written(h: &HpaHead) -> Option<Timestamp> {
    (h.metadata.managed_fields.iter())
        .filter(|f| f.subresource == "status")
        .filter_map(|f| f.time.as_deref().and_then(Timestamp::parse_rfc3339))
        .max()
}

/// The PDBs whose selector matches pods of each HPA (by HPA position).
fn pdbs_by_hpa(
    dump: &Dump,
    index: &PodIndex,
    selected_by: &Selections,
) -> HashMap<usize, Vec<PdbFacts>> {
    let mut out: HashMap<usize, Vec<PdbFacts>> = HashMap::new();
    for pdb in &dump.pdbs {
        let selector = pdb.spec.selector.clone().unwrap_or_default();
        let Ok(parsed) = Selector::parse(&selector.to_text()) else {
            continue;
        };
        let hpas: BTreeSet<u32> = index
            .select(&dump.pods, &pdb.metadata.namespace, &selector, &parsed)
            .iter()
            .flat_map(|&p| selected_by.hpas_of(p))
            .collect();
        for h in hpas {
            out.entry(h as usize).or_default().push(pdb_facts(pdb));
        }
    }
    out
}

fn pdb_facts(pdb: &Pdb) -> PdbFacts {
    let text = |v: &Option<Json>| v.as_ref().map(Json::text);
    PdbFacts {
        name: pdb.metadata.name.clone(),
        min_available: text(&pdb.spec.min_available),
        max_unavailable: text(&pdb.spec.max_unavailable),
    }
}

/// The VPAs on this target, with their mode and the resources they control.
fn vpas_of(dump: &Dump, ns: &str, kind: &str, name: &str) -> Vec<VpaFacts> {
    (dump.vpas.iter())
        .filter(|v| v.metadata.namespace == ns)
        .filter(|v| {
            v.spec
                .target_ref
                .as_ref()
                .is_some_and(|t| t.kind == kind && t.name == name)
        })
        .map(|v| {
            let default = vec!["cpu".to_string(), "memory".to_string()];
            let policies = (v.spec.resource_policy.as_ref())
                .map(|p| p.container_policies.clone())
                .unwrap_or_default();
            let controlled: Vec<String> = if policies.is_empty() {
                default
            } else {
                let mut all: Vec<String> = Vec::new();
                for p in policies.iter().filter(|p| p.mode.as_deref() != Some("Off")) {
                    for r in p.controlled_resources.as_ref().unwrap_or(&default) {
                        if !all.contains(r) {
                            all.push(r.clone());
                        }
                    }
                }
                all
            };
            VpaFacts {
                name: v.metadata.name.clone(),
                // The VPA API's default update mode.
                update_mode: (v.spec.update_policy.as_ref())
                    .and_then(|p| p.update_mode.clone())
                    .unwrap_or_else(|| "Auto".into()),
                controlled,
            }
        })
        .collect()
}

/// Requests by resource, in milli-units.
type Requests = Vec<(String, i64)>;

/// The requests of one pod: the sum of its app containers' requests, or the pod-level requests
/// when set.
fn pod_requests(spec: &PodSpec) -> Vec<(String, i64)> {
    pod_total(spec, requests_milli)
}

/// One resource list of one pod (`requests_milli` or `limits_milli`): the sum over its app
/// containers, or the pod-level list when set.
fn pod_total(
    spec: &PodSpec,
    list: fn(Option<&Requirements>) -> Vec<(String, i64)>,
) -> Vec<(String, i64)> {
    let pod_level = list(spec.resources.as_ref());
    if !pod_level.is_empty() {
        return pod_level;
    }
    let mut total: Vec<(String, i64)> = Vec::new();
    for c in &spec.containers {
        for (r, m) in list(c.resources.as_ref()) {
            match total.iter_mut().find(|(t, _)| *t == r) {
                Some((_, v)) => *v = v.saturating_add(m),
                None => total.push((r, m)),
            }
        }
    }
    total.sort();
    total
}

/// One replica of the target, from its pod template.
pub fn per_pod_requests(w: &Workload) -> Vec<(String, i64)> {
    (w.spec.template.as_ref())
        .map(|t| pod_requests(&t.spec))
        .unwrap_or_default()
}

/// One replica's limits, from the target's pod template (what `simulate` caps a pod's usage
/// at): the pod-level limits, else the sum over the containers of each resource that every
/// container limits (one without a limit leaves the pod's use of it unbounded).
pub fn per_pod_limits(w: &Workload) -> Vec<(String, i64)> {
    let Some(t) = w.spec.template.as_ref() else {
        return Vec::new();
    };
    let mut total = pod_total(&t.spec, limits_milli);
    if limits_milli(t.spec.resources.as_ref()).is_empty() {
        let limited = |c: &super::objects::Container, r: &str| {
            limits_milli(c.resources.as_ref())
                .iter()
                .any(|(n, _)| n == r)
        };
        total.retain(|(r, _)| t.spec.containers.iter().all(|c| limited(c, r)));
    }
    total
}

/// The requests and the number of the running pods bound to each node, of the pods `counted`.
fn used_by_node(dump: &Dump, counted: impl Fn(&Pod) -> bool) -> HashMap<&str, (Requests, i64)> {
    let mut used: HashMap<&str, (Requests, i64)> = HashMap::new();
    for p in dump.pods.iter().filter(|p| counted(p)) {
        let terminal = matches!(p.status.phase.as_deref(), Some("Succeeded" | "Failed"));
        let Some(node) = p.spec.node_name.as_deref().filter(|_| !terminal) else {
            continue;
        };
        let entry = used.entry(node).or_default();
        for (r, m) in pod_requests(&p.spec) {
            match entry.0.iter_mut().find(|(t, _)| *t == r) {
                Some((_, v)) => *v = v.saturating_add(m),
                None => entry.0.push((r, m)),
            }
        }
        entry.1 += 1;
    }
    used
}

/// A node's room: allocatable less what `used` says its pods request.
fn room(n: &Node, used: &HashMap<&str, (Requests, i64)>) -> NodeRoom {
    let alloc = milli(n.status.allocatable.iter().map(|(k, v)| (k.as_str(), v)));
    let (taken, pods) = used
        .get(n.metadata.name.as_str())
        .cloned()
        .unwrap_or_default();
    let free = (alloc.iter())
        .filter(|(r, _)| r != "pods")
        .map(|(r, a)| {
            let t = taken.iter().find(|(u, _)| u == r).map_or(0, |(_, v)| *v);
            (r.clone(), a.saturating_sub(t))
        })
        .collect();
    let slots = alloc
        .iter()
        .find(|(r, _)| r == "pods")
        .map_or(110, |(_, m)| m / 1000);
    NodeRoom {
        free,
        free_pods: slots - pods,
    }
}

/// Each schedulable node's room: allocatable less the requests of the pods bound to it.
fn node_rooms(dump: &Dump) -> Vec<NodeRoom> {
    let used = used_by_node(dump, |_| true);
    (dump.nodes.iter())
        .filter(|n| n.schedulable())
        .map(|n| room(n, &used))
        .collect()
}

/// The room of a node the group adds: like the first schedulable node given (the template
/// node, as for one HPA's `--nodes`), with only its DaemonSet pods, which every new node runs.
fn new_node_room(dump: &Dump) -> Option<NodeRoom> {
    let template = dump.nodes.iter().find(|n| n.schedulable())?;
    let daemons = used_by_node(dump, |p| {
        p.spec.node_name.as_deref() == Some(template.metadata.name.as_str())
            && (p.metadata.owner_references.iter()).any(|o| o.kind == "DaemonSet")
    });
    Some(room(template, &daemons))
}

/// An HPA's target in the manifests, and its selector (text and parsed).
type Target<'a> = (Option<&'a Workload>, Option<(String, Selector)>);

/// The findings manifests alone show: targets, selectors against the pod templates, PDBs, VPAs,
/// requests and `spec.replicas` set beside an HPA.
pub fn static_checks(dump: &Dump, fleet: &FleetFacts) -> AuditReport {
    let mut hpas: Vec<&Whole<HpaHead>> = dump.hpas.iter().collect();
    hpas.sort_by_key(|h| hpa_key(&h.head));
    // Each HPA's target and selector.
    // The workloads by namespace, kind and name: the first of each, as a scan would find it.
    let mut workloads: HashMap<(&str, &str, &str), &Workload> = HashMap::new();
    for w in &dump.workloads {
        let key = (
            w.metadata.namespace.as_str(),
            w.kind.as_str(),
            w.metadata.name.as_str(),
        );
        workloads.entry(key).or_insert(w);
    }
    let targets: Vec<Target<'_>> = (hpas.iter())
        .map(|h| {
            let r = &h.head.spec.scale_target_ref;
            let key = (
                h.head.metadata.namespace.as_str(),
                r.kind.as_str(),
                r.name.as_str(),
            );
            let w = workloads.get(&key).copied();
            (w, w.and_then(selector_of))
        })
        .collect();
    let others = Others::new(dump, &hpas, &targets);
    let mut findings = Vec::new();
    let mut unevaluated = Vec::new();
    for (i, h) in hpas.iter().enumerate() {
        let (target, selector) = (
            targets.get(i).map(|t| t.0).unwrap_or_default(),
            targets.get(i).and_then(|t| t.1.as_ref()),
        );
        let spec = crate::input::manifest::load(&h.place, &h.text, None).map(|l| l.spec);
        let facts = static_facts(dump, h, target, selector, spec.as_ref().ok());
        let facts = HpaFacts {
            selecting: others.selecting(i),
            same_target: others.same_target(i),
            ..facts
        };
        findings.extend(calc::fleet::hpa_findings(&facts, None, fleet));
        let key = hpa_key(&h.head);
        let error = match spec {
            Ok(_) => "manifests only (-f): static checks, no decision".to_string(),
            Err(e) => {
                findings.push(calc::fleet::evaluation_failed(
                    &key,
                    format!("the HPA manifest is invalid: {e}"),
                    "correct the manifest (kubectl apply --dry-run=server shows the API's answer)",
                ));
                e.to_string()
            }
        };
        unevaluated.push(Unevaluated {
            hpa: key,
            target: format!("{}/{}", facts.target_kind, facts.target_name),
            min_replicas: facts.min_replicas,
            max_replicas: facts.max_replicas,
            error,
        });
    }
    calc::fleet::assemble(Vec::new(), unevaluated, findings, false)
}

/// A workload's selector, when it has one that parses.
fn selector_of(w: &Workload) -> Option<(String, Selector)> {
    let s = w.spec.selector.as_ref()?;
    let text = s.to_text();
    let parsed = Selector::parse(&text).ok()?;
    (!text.is_empty()).then_some((text, parsed))
}

/// The labels of a workload's pod template.
fn template_labels(w: &Workload) -> Vec<(Sym, Sym)> {
    (w.spec.template.as_ref())
        .map(|t| t.metadata.labels.0.to_vec())
        .unwrap_or_default()
}

/// What the manifests alone say of one HPA (the other HPAs aside).
fn static_facts(
    dump: &Dump,
    h: &Whole<HpaHead>,
    target: Option<&Workload>,
    selector: Option<&(String, Selector)>,
    spec: Option<&crate::scenario::HpaSpec>,
) -> HpaFacts {
    let head = &h.head;
    let meta = &head.metadata;
    let r = &head.spec.scale_target_ref;
    let state = match target {
        Some(_) => TargetState::Found,
        None => unfound_state(dump, &meta.namespace, &r.kind, &r.name),
    };
    let (resources, utilization_resources, missing_requests) = match spec {
        Some(s) => requests_facts(&s.metrics, target),
        None => Default::default(),
    };
    let (min_replicas, max_replicas) = match spec {
        Some(s) => (s.min_replicas, s.max_replicas),
        None => (
            clamp_i32(head.spec.min_replicas.unwrap_or(1)),
            clamp_i32(head.spec.max_replicas.unwrap_or(0)),
        ),
    };
    let labels = target.map(template_labels).unwrap_or_default();
    let pdbs = (dump.pdbs.iter())
        .filter(|p| target.is_some() && p.metadata.namespace == meta.namespace)
        .filter(|p| {
            let s = p.spec.selector.clone().unwrap_or_default();
            Selector::parse(&s.to_text()).is_ok_and(|s| s.matches_pairs(&labels))
        })
        .map(pdb_facts)
        .collect();
    HpaFacts {
        namespace: meta.namespace.to_string(),
        name: meta.name.clone(),
        target_kind: r.kind.to_string(),
        target_name: r.name.to_string(),
        target: state,
        min_replicas,
        max_replicas,
        utilization_resources,
        resources,
        missing_requests,
        selecting: Names::default(),
        same_target: Names::default(),
        selector: selector.map(|(t, _)| t.clone()).unwrap_or_default(),
        replicas_owners: (target.and_then(|w| w.spec.replicas))
            .map(|n| vec![format!("its manifest (spec.replicas: {n})")])
            .unwrap_or_default(),
        pdbs,
        vpas: vpas_of(dump, &meta.namespace, &r.kind, &r.name),
        generation: None,
        observed_generation: None,
        status_written: None,
        capacity: None,
    }
}

/// The manifests' HPAs and their targets, to find the others of one HPA.
struct Others<'s, 'a> {
    hpas: &'s [&'a Whole<HpaHead>],
    /// The HPAs of each scale target (namespace, kind, name).
    by_target: HashMap<(&'a str, &'a str, &'a str), Vec<usize>>,
    /// Each distinct set of HPAs whose selectors take one workload's pods (by its template's
    /// labels), and the sets each HPA is in: 5,000 Deployments under one selector are one set.
    groups: Vec<Vec<usize>>,
    groups_of: Vec<Vec<usize>>,
}

impl<'s, 'a> Others<'s, 'a> {
    fn new(dump: &Dump, hpas: &'s [&'a Whole<HpaHead>], targets: &'s [Target<'a>]) -> Self {
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut known: HashMap<Vec<usize>, usize> = HashMap::new();
        let mut groups_of: Vec<Vec<usize>> = vec![Vec::new(); hpas.len()];
        // Workloads with the same template labels in one namespace take the same HPAs: each
        // such set of labels is matched once, against the HPAs of its namespace.
        let mut by_namespace: HashMap<&str, Vec<usize>> = HashMap::new();
        for (j, h) in hpas.iter().enumerate() {
            (by_namespace
                .entry(h.head.metadata.namespace.as_str())
                .or_default())
            .push(j);
        }
        let mut seen: HashSet<(&str, Vec<(Sym, Sym)>)> = HashSet::new();
        for w in &dump.workloads {
            let ns = w.metadata.namespace.as_str();
            let labels = template_labels(w);
            if !seen.insert((ns, labels.clone())) {
                continue;
            }
            let taking: Vec<usize> = (by_namespace.get(ns).into_iter().flatten())
                .copied()
                .filter(|&j| {
                    (targets.get(j))
                        .and_then(|t| t.1.as_ref())
                        .is_some_and(|(_, p)| p.matches_pairs(&labels))
                })
                .collect();
            if taking.len() < 2 || known.contains_key(&taking) {
                continue;
            }
            let id = groups.len();
            for &j in &taking {
                if let Some(of) = groups_of.get_mut(j) {
                    of.push(id);
                }
            }
            known.insert(taking.clone(), id);
            groups.push(taking);
        }
        let mut by_target: HashMap<(&str, &str, &str), Vec<usize>> = HashMap::new();
        for (j, h) in hpas.iter().enumerate() {
            let r = &h.head.spec.scale_target_ref;
            let key = (
                h.head.metadata.namespace.as_str(),
                r.kind.as_str(),
                r.name.as_str(),
            );
            by_target.entry(key).or_default().push(j);
        }
        Others {
            hpas,
            by_target,
            groups,
            groups_of,
        }
    }

    /// The other HPAs taking pods of a workload HPA `i` takes.
    fn selecting(&self, i: usize) -> Names {
        let of = self.groups_of.get(i).map(Vec::as_slice).unwrap_or_default();
        if let [g] = of {
            // One set (the usual case): its names without walking all of it.
            return self.names_but(
                self.groups.get(*g).map(Vec::as_slice).unwrap_or_default(),
                i,
            );
        }
        let mut others: BTreeSet<usize> = BTreeSet::new();
        for &g in of {
            others.extend(self.groups.get(g).into_iter().flatten());
        }
        let others: Vec<usize> = others.into_iter().collect();
        self.names_but(&others, i)
    }

    /// The other HPAs with the same scale target.
    fn same_target(&self, i: usize) -> Names {
        let Some(h) = self.hpas.get(i) else {
            return Names::default();
        };
        let ns = h.head.metadata.namespace.as_str();
        let r = &h.head.spec.scale_target_ref;
        let same = self.by_target.get(&(ns, r.kind.as_str(), r.name.as_str()));
        self.names_but(same.map(Vec::as_slice).unwrap_or_default(), i)
    }

    /// The HPAs at these sorted positions (name order) but `i`, as a message lists them: only
    /// the first few are named, so this costs a few names however many there are.
    fn names_but(&self, positions: &[usize], i: usize) -> Names {
        let total = positions.len() - usize::from(positions.binary_search(&i).is_ok());
        let named = (positions.iter()).filter(|&&j| j != i);
        Names::of(
            named.filter_map(|&j| self.hpas.get(j).map(|o| hpa_key(&o.head))),
            total,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dump(objects: &[serde_json::Value]) -> Dump {
        let mut dump = Dump::default();
        let list = serde_json::json!({"kind": "List", "items": objects}).to_string();
        dump.read_page("test", "", "", &list).unwrap();
        dump
    }

    fn pod(name: &str, owner: &str, cpu: &str) -> serde_json::Value {
        serde_json::json!({"kind": "Pod", "metadata": {"name": name, "namespace": "shop",
            "ownerReferences": [{"kind": owner, "name": "x", "controller": true}]},
            "spec": {"nodeName": "node-1",
                     "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]},
            "status": {"phase": "Running"}})
    }

    #[test]
    fn a_templates_limits_sum_the_resources_every_container_limits() {
        let workload = |spec: serde_json::Value| -> Workload {
            serde_json::from_value(serde_json::json!({"kind": "Deployment",
                "spec": {"template": {"spec": spec}}}))
            .unwrap()
        };
        let app = serde_json::json!({"name": "app", "resources": {
            "requests": {"cpu": "800m", "memory": "256Mi"},
            "limits": {"cpu": "800m", "memory": "512Mi"}}});
        let proxy = serde_json::json!({"name": "proxy", "resources": {
            "requests": {"cpu": "200m"}, "limits": {"cpu": "200m"}}});
        let w = workload(serde_json::json!({"containers": [app, proxy]}));
        assert_eq!(per_pod_limits(&w), [("cpu".to_string(), 1000)]);
        assert_eq!(
            per_pod_requests(&w),
            [
                ("cpu".to_string(), 1000),
                ("memory".to_string(), 268_435_456_000)
            ]
        );
        // Pod-level limits are the pod's, whatever its containers say.
        let w = workload(serde_json::json!({"containers": [app],
            "resources": {"limits": {"cpu": "2"}}}));
        assert_eq!(per_pod_limits(&w), [("cpu".to_string(), 2000)]);
        assert!(per_pod_limits(&workload(serde_json::json!({}))).is_empty());
    }

    #[test]
    fn a_new_node_is_the_template_node_with_only_its_daemonset_pods() {
        let node = serde_json::json!({"kind": "Node", "metadata": {"name": "node-1"},
            "status": {"allocatable": {"cpu": "4", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]}});
        let d = dump(&[
            node,
            pod("agent", "DaemonSet", "1"),
            pod("web", "ReplicaSet", "2"),
        ]);
        let rooms = node_rooms(&d);
        assert_eq!(rooms[0].free, vec![("cpu".to_string(), 1000)]);
        assert_eq!(rooms[0].free_pods, 108);
        let new = new_node_room(&d).unwrap();
        assert_eq!(new.free, vec![("cpu".to_string(), 3000)]);
        assert_eq!(new.free_pods, 109);
        assert_eq!(new_node_room(&dump(&[])), None);
    }
}
