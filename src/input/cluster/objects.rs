//! The lean form of each object a cluster dump holds: only the fields the audit or the
//! single-HPA readers use. Pods, pod metrics and workloads serialize back to the kubectl shape the
//! single-HPA readers parse (`kubectl::pods`, `kubectl::metrics`, `target`), so one HPA's share
//! of the dump is read by the same code as a file of its own.

use serde::{Deserialize, Serialize};

use super::json::{Json, Shared, Sym};
use crate::time::Timestamp;

/// `metadata`, for every kind but pods and pod metrics (`PodMeta`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub namespace: Sym,
    #[serde(default, skip_serializing_if = "Labels::is_empty")]
    pub labels: Labels,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<Sym>,
    #[serde(default, skip_serializing_if = "Shared::is_empty")]
    pub owner_references: Shared<Owner>,
    #[serde(default, skip_serializing)]
    pub generation: Option<i64>,
    #[serde(default, skip_serializing)]
    pub managed_fields: Box<[ManagedField]>,
}

/// The `metadata` of a pod: 150,000 are kept, so only what the controller reads of them, and of
/// the managed fields only the newest write, which dates the dump. Every part is shared, so that
/// a copy of a pod (each sync of `serve` takes one of what the watches keep) allocates nothing.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodMeta {
    #[serde(default)]
    pub name: std::sync::Arc<str>,
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub namespace: Sym,
    #[serde(default, skip_serializing_if = "Labels::is_empty")]
    pub labels: Labels,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<Sym>,
    #[serde(default, skip_serializing_if = "Shared::is_empty")]
    pub owner_references: Shared<Owner>,
    #[serde(
        default,
        rename = "managedFields",
        skip_serializing,
        deserialize_with = "newest_write"
    )]
    pub last_write: Option<Timestamp>,
}

fn newest_write<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Timestamp>, D::Error> {
    #[derive(Deserialize)]
    struct Written {
        #[serde(default)]
        time: Option<String>,
    }
    let all = Option::<Vec<Written>>::deserialize(d)?.unwrap_or_default();
    Ok((all.iter())
        .filter_map(|w| w.time.as_deref().and_then(Timestamp::parse_rfc3339))
        .max())
}

/// Labels as pairs: smaller than a map for the few labels a pod has, and shared by the pods of
/// one template.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Labels(pub Shared<(Sym, Sym)>);

impl Labels {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<'de> Deserialize<'de> for Labels {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = Option::<std::collections::BTreeMap<Sym, Sym>>::deserialize(d)?;
        Ok(Labels(map.unwrap_or_default().into_iter().collect()))
    }
}

impl Serialize for Labels {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Deserialize, Serialize)]
pub struct Owner {
    #[serde(default)]
    pub kind: Sym,
    #[serde(default)]
    pub name: Sym,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
}

/// One `managedFields` entry: who owns what, and when it last wrote.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManagedField {
    #[serde(default)]
    pub manager: String,
    #[serde(default)]
    pub operation: String,
    #[serde(default)]
    pub subresource: String,
    #[serde(default)]
    pub time: Option<String>,
    /// Whether `fieldsV1` holds `f:spec` → `f:replicas`.
    #[serde(default, rename = "fieldsV1", deserialize_with = "owns_replicas")]
    pub owns_spec_replicas: bool,
}

/// The manager that writes `spec.replicas` for the HPA: through the scale subresource.
const CONTROLLER_MANAGER: &str = "kube-controller-manager";

/// Managers other than the HPA controller that own a target's `spec.replicas`: whoever applies
/// it (Argo CD, Flux, Helm, kubectl) resets the count the HPA set.
pub fn replicas_managers(fields: &[ManagedField]) -> Vec<String> {
    let mut out: Vec<String> = (fields.iter())
        .filter(|f| f.owns_spec_replicas && f.subresource != "scale")
        .filter(|f| f.manager != CONTROLLER_MANAGER)
        .map(|f| format!("{} (managedFields)", f.manager))
        .collect();
    out.dedup();
    out
}

fn owns_replicas<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    let v = Json::deserialize(d)?;
    Ok(v.get("f:spec").and_then(|s| s.get("f:replicas")).is_some())
}

/// A pod: what `groupPods` and `calculateRequests` read, and its node.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
pub struct Pod {
    #[serde(default)]
    pub metadata: PodMeta,
    #[serde(default)]
    pub spec: PodSpec,
    #[serde(default)]
    pub status: PodStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodSpec {
    #[serde(default, skip_serializing_if = "Shared::is_empty")]
    pub containers: Shared<Container>,
    #[serde(default, skip_serializing_if = "Shared::is_empty")]
    pub init_containers: Shared<Container>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Requirements>,
    /// The RuntimeClass's overhead: the pod-level request adds it (`PodRequests`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead: Option<Json>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_name: Option<Sym>,
}

/// `resources`: the requests (`calculateRequests`), and the limits, which only `simulate` reads
/// (of a pod template given beside the HPA).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Deserialize, Serialize)]
pub struct Requirements {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<Json>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<Json>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Container {
    #[serde(default)]
    pub name: Sym,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_policy: Option<Sym>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Requirements>,
}

impl Container {
    /// Whether `resources.requests` names `resource`.
    pub fn requests(&self, resource: &str) -> bool {
        (self.resources.as_ref())
            .and_then(|r| r.requests.as_ref())
            .and_then(|r| r.get(resource))
            .is_some()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<Sym>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_time: Option<Sym>,
    /// Only the Ready condition is kept.
    #[serde(
        default,
        skip_serializing_if = "no_conditions",
        deserialize_with = "ready_only"
    )]
    pub conditions: std::sync::Arc<[Condition]>,
}

/// A pod condition: what `IsPodReady` and the readiness window read.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub condition_type: Option<Sym>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Sym>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<Sym>,
}

fn ready_only<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<std::sync::Arc<[Condition]>, D::Error> {
    let all = Option::<Vec<Condition>>::deserialize(d)?.unwrap_or_default();
    Ok(all
        .into_iter()
        .filter(|c| c.condition_type.as_deref() == Some("Ready"))
        .collect())
}

fn no_conditions(list: &std::sync::Arc<[Condition]>) -> bool {
    list.is_empty()
}

/// The `metadata` of a PodMetrics: the pod it is about. Its labels (metrics-server copies the
/// pod's) are not read: each sync reads the metrics of every pod anew, and the audit finds an
/// item by the pod's namespace and name, the pod's own labels having chosen the pod.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
pub struct MetricsMeta {
    #[serde(default)]
    pub name: Box<str>,
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub namespace: Sym,
}

/// One item of a PodMetricsList.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
pub struct PodMetrics {
    #[serde(default)]
    pub metadata: MetricsMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<Sym>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<Sym>,
    #[serde(default)]
    pub containers: Box<[MetricsContainer]>,
}

/// One container's usage in a PodMetrics.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
pub struct MetricsContainer {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<Sym>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Json>,
}

/// A workload that may be a scale target (Deployment, StatefulSet, ReplicaSet, ...).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Workload {
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub metadata: Meta,
    #[serde(default)]
    pub spec: WorkloadSpec,
    #[serde(default)]
    pub status: WorkloadStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i64>,
    /// A `metav1.LabelSelector`, or a ReplicationController's plain map (`scaleFromRC` makes it
    /// `labels.SelectorFromSet`).
    #[serde(default, skip_serializing, deserialize_with = "either_selector")]
    pub selector: Option<LabelSelector>,
    /// The pod template's containers, for the requests the pods will have.
    #[serde(default, skip_serializing)]
    pub template: Option<Template>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
pub struct WorkloadStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
pub struct Template {
    #[serde(default)]
    pub metadata: Meta,
    #[serde(default)]
    pub spec: PodSpec,
}

/// A workload's `spec.selector`: a LabelSelector has only its two keys, so a map with any other
/// is a ReplicationController's `map[string]string`, every pair a matchLabels entry.
fn either_selector<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<LabelSelector>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Selector(StrictSelector),
        Map(std::collections::BTreeMap<String, String>),
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct StrictSelector {
        #[serde(default)]
        match_labels: std::collections::BTreeMap<String, String>,
        #[serde(default)]
        match_expressions: Vec<Expression>,
    }
    Ok(Option::<Either>::deserialize(d)?.map(|e| match e {
        Either::Selector(s) => LabelSelector {
            match_labels: s.match_labels,
            match_expressions: s.match_expressions,
        },
        Either::Map(match_labels) => LabelSelector {
            match_labels,
            match_expressions: Vec::new(),
        },
    }))
}

/// `metav1.LabelSelector`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelSelector {
    #[serde(default)]
    pub match_labels: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    pub match_expressions: Vec<Expression>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
pub struct Expression {
    #[serde(default)]
    pub key: String,
    #[serde(default)]
    pub operator: String,
    #[serde(default)]
    pub values: Vec<String>,
}

impl LabelSelector {
    /// The selector in kubectl's syntax, as `metav1.FormatLabelSelector` prints it (the scale's
    /// `status.selector`): matchLabels sorted by key, then the expressions.
    pub fn to_text(&self) -> String {
        let mut parts: Vec<String> = self
            .match_labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        for e in &self.match_expressions {
            parts.push(match e.operator.as_str() {
                "In" => format!("{} in ({})", e.key, e.values.join(",")),
                "NotIn" => format!("{} notin ({})", e.key, e.values.join(",")),
                "Exists" => e.key.clone(),
                // A scale's selector text may compare integers, which a LabelSelector cannot.
                "Gt" => format!("{}>{}", e.key, e.values.concat()),
                "Lt" => format!("{}<{}", e.key, e.values.concat()),
                _ => format!("!{}", e.key),
            });
        }
        parts.join(",")
    }
}

/// A PodDisruptionBudget.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pdb {
    #[serde(default)]
    pub metadata: Meta,
    #[serde(default)]
    pub spec: PdbSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PdbSpec {
    #[serde(default)]
    pub selector: Option<LabelSelector>,
    /// An integer or a percentage.
    #[serde(default)]
    pub min_available: Option<Json>,
    #[serde(default)]
    pub max_unavailable: Option<Json>,
}

/// A VerticalPodAutoscaler.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Vpa {
    #[serde(default)]
    pub metadata: Meta,
    #[serde(default)]
    pub spec: VpaSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VpaSpec {
    #[serde(default)]
    pub target_ref: Option<Owner>,
    #[serde(default)]
    pub update_policy: Option<UpdatePolicy>,
    #[serde(default)]
    pub resource_policy: Option<ResourcePolicy>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdatePolicy {
    #[serde(default)]
    pub update_mode: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcePolicy {
    #[serde(default)]
    pub container_policies: Vec<ContainerPolicy>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerPolicy {
    #[serde(default)]
    pub container_name: Option<String>,
    #[serde(default)]
    pub mode: Option<String>,
    #[serde(default)]
    pub controlled_resources: Option<Vec<String>>,
}

/// What the audit reads of an HPA besides what the manifest reader validates.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaHead {
    #[serde(default)]
    pub metadata: Meta,
    #[serde(default)]
    pub spec: HpaHeadSpec,
    #[serde(default)]
    pub status: HpaHeadStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaHeadSpec {
    #[serde(default)]
    pub scale_target_ref: Owner,
    #[serde(default)]
    pub min_replicas: Option<i64>,
    #[serde(default)]
    pub max_replicas: Option<i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaHeadStatus {
    #[serde(default)]
    pub observed_generation: Option<i64>,
    #[serde(default)]
    pub last_scale_time: Option<String>,
}

/// The object an event is about.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventHead {
    #[serde(default)]
    pub metadata: Meta,
    #[serde(default)]
    pub involved_object: Option<Involved>,
    /// events.k8s.io/v1.
    #[serde(default)]
    pub regarding: Option<Involved>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Involved {
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub namespace: String,
}

/// A node: what it can hold and whether the scheduler may use it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    #[serde(default)]
    pub metadata: Meta,
    #[serde(default)]
    pub spec: NodeSpec,
    #[serde(default)]
    pub status: NodeStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct NodeSpec {
    #[serde(default)]
    pub unschedulable: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct NodeStatus {
    #[serde(default)]
    pub allocatable: std::collections::BTreeMap<String, Json>,
    #[serde(default)]
    pub conditions: Vec<Json>,
}

impl Node {
    /// Ready and not cordoned: the scheduler may place pods here.
    pub fn schedulable(&self) -> bool {
        !self.spec.unschedulable
            && self.status.conditions.iter().any(|c| {
                c.get("type").and_then(Json::as_str) == Some("Ready")
                    && c.get("status").and_then(Json::as_str) == Some("True")
            })
    }
}

/// The milli-value of each request in a `resources` object (`{requests: {cpu: 500m}}`).
pub fn requests_milli(resources: Option<&Requirements>) -> Vec<(String, i64)> {
    list_milli(resources.and_then(|r| r.requests.as_ref()))
}

/// `resources.limits`, in milli-units.
pub fn limits_milli(resources: Option<&Requirements>) -> Vec<(String, i64)> {
    list_milli(resources.and_then(|r| r.limits.as_ref()))
}

/// A resource list's quantities, in milli-units.
fn list_milli(list: Option<&Json>) -> Vec<(String, i64)> {
    milli(
        list.map_or(&[][..], Json::entries)
            .iter()
            .map(|(k, v)| (&**k, v)),
    )
}

/// The milli-value of each quantity; one that does not parse counts as nothing.
pub fn milli<'a>(quantities: impl Iterator<Item = (&'a str, &'a Json)>) -> Vec<(String, i64)> {
    quantities
        .filter_map(|(k, v)| {
            (crate::quantity::parse_milli(&v.text()).ok()).map(|m| (k.to_string(), m))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ReplicationController's selector is a plain map; a Deployment's a LabelSelector. Both
    /// select by their labels.
    #[test]
    fn a_replication_controllers_map_selector_reads_as_match_labels() {
        let rc: WorkloadSpec = serde_json::from_str(r#"{"selector":{"app":"web"}}"#).unwrap();
        let deploy: WorkloadSpec =
            serde_json::from_str(r#"{"selector":{"matchLabels":{"app":"web"}}}"#).unwrap();
        assert_eq!(rc.selector, deploy.selector);
        assert_eq!(rc.selector.unwrap().match_labels["app"], "web");
    }
}
