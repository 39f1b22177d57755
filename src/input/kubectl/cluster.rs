//! `kubectl get nodes -o json|yaml` and `kubectl get pods -A -o json|yaml` → each node's
//! allocatable and the room its pods leave, for the Cluster Autoscaler's view (`--nodes`,
//! `--all-pods`). Only these fields are read: nodes' `metadata.name`, `spec.unschedulable`,
//! `status.allocatable`, the Ready condition; pods' `metadata.name`, `.namespace`,
//! `.ownerReferences[].kind` (DaemonSet), `spec.nodeName`, `spec.containers[].resources.requests`,
//! `spec.initContainers[]` (the same and `restartPolicy`), `spec.resources.requests`,
//! `spec.overhead`, `status.phase`. For Karpenter's existing nodes (`karpenter_nodes`) also the
//! nodes' `metadata.labels`, `spec.taints` and `status.capacity`, and the pods' container
//! `ports[].hostPort`.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use serde::Deserialize;

use super::{Format, ObjectMeta, ResourceMap, decode};
use crate::calc::nodes::effective_requests;
use crate::error::InputError;
use crate::scenario::karpenter::{ClusterNode, HostPort};
use crate::scenario::node_groups::Taint;
use crate::scenario::{Capacity, Container, ContainerKind, ExistingNode, Pod, PodPhase, Resources};

#[derive(Deserialize)]
struct List<'a> {
    #[serde(borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    items: Option<Vec<Item<'a>>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Item<'a> {
    #[serde(borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    metadata: Option<ObjectMeta<'a>>,
    #[serde(borrow, default)]
    spec: Option<Spec<'a>>,
    #[serde(borrow, default)]
    status: Option<Status<'a>>,
}

/// A node's or a pod's spec: the fields of both kinds.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Spec<'a> {
    #[serde(default)]
    unschedulable: Option<bool>,
    #[serde(borrow, default)]
    node_name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    containers: Option<Vec<RawContainer<'a>>>,
    #[serde(borrow, default)]
    init_containers: Option<Vec<RawContainer<'a>>>,
    #[serde(default)]
    resources: Option<Requirements>,
    #[serde(default)]
    overhead: Option<ResourceMap>,
    #[serde(borrow, default)]
    taints: Option<Vec<RawTaint<'a>>>,
}

#[derive(Deserialize)]
struct RawTaint<'a> {
    #[serde(borrow, default)]
    key: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    value: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    effect: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawPort<'a> {
    #[serde(default)]
    host_port: Option<i32>,
    #[serde(borrow, default, rename = "hostIP")]
    host_ip: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    protocol: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawContainer<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    restart_policy: Option<Cow<'a, str>>,
    #[serde(default)]
    resources: Option<Requirements>,
    #[serde(borrow, default)]
    ports: Option<Vec<RawPort<'a>>>,
}

#[derive(Deserialize)]
struct Requirements {
    #[serde(default)]
    requests: Option<ResourceMap>,
}

#[derive(Deserialize, Default)]
struct Status<'a> {
    #[serde(default)]
    allocatable: Option<ResourceMap>,
    #[serde(default)]
    capacity: Option<ResourceMap>,
    #[serde(borrow, default)]
    phase: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    conditions: Option<Vec<Condition<'a>>>,
}

#[derive(Deserialize)]
struct Condition<'a> {
    #[serde(borrow, rename = "type", default)]
    condition_type: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
}

fn items<'a>(
    file: &str,
    text: &'a str,
    expected: &str,
    kind: &str,
) -> Result<Vec<Item<'a>>, InputError> {
    let format = match super::detect(text) {
        Format::Text => Format::Json,
        f => f,
    };
    let mut out = Vec::new();
    for list in decode::<List<'_>>(file, text, format)? {
        let list_kind = list.kind.as_deref().unwrap_or("");
        let own_list = format!("{kind}List");
        if !matches!(list_kind, "" | "List") && list_kind != own_list {
            return Err(InputError::new(
                file,
                format!(
                    "found kind {}, expected {expected}",
                    crate::error::quoted_bare(list_kind)
                ),
            )
            .field("kind"));
        }
        match list.items {
            Some(items) => out.extend(
                items
                    .into_iter()
                    .filter(|i| i.kind.as_deref().is_none_or(|k| k == kind)),
            ),
            None if list_kind.is_empty() => {}
            None => {
                return Err(InputError::new(
                    file,
                    format!("found kind {list_kind}, expected {expected}"),
                )
                .field("kind"));
            }
        }
    }
    Ok(out)
}

/// One node as listed, before its pods are added.
struct NodeEntry {
    node: ExistingNode,
    /// Requests of the DaemonSet pods on it.
    daemonsets: Capacity,
    labels: Vec<(String, String)>,
    taints: Vec<Taint>,
    capacity: Capacity,
    ready: bool,
    host_ports: Vec<HostPort>,
}

/// A resource list as a `Capacity`: `pods` a count (110 when absent).
fn capacity_of(list: Resources) -> Capacity {
    let (pods_milli, resources): (Vec<_>, Vec<_>) =
        list.0.into_iter().partition(|(n, _)| n == "pods");
    Capacity {
        resources: Resources(resources),
        pods: pods_milli.first().map_or(110, |(_, m)| m / 1000),
    }
}

/// The nodes of `--nodes` as Karpenter's cluster state holds them (`state.StateNode`): labels,
/// taints, capacity, allocatable, and what the pods of `--all-pods` bound to each request and
/// which host ports they hold, sorted by name.
pub fn karpenter_nodes(
    nodes_file: &str,
    nodes_text: &str,
    pods: Option<(&str, &str)>,
    namespace: &str,
    workload: &HashSet<&str>,
) -> Result<Vec<ClusterNode>, InputError> {
    let entries = entries(nodes_file, nodes_text, pods, namespace, workload)?;
    Ok((entries.into_iter())
        .map(|e| ClusterNode {
            name: e.node.name,
            labels: e.labels,
            taints: e.taints,
            capacity: e.capacity,
            allocatable: e.node.allocatable,
            requested: e.node.requested,
            workload_pods: e.node.workload_pods,
            initialized: e.ready,
            host_ports: e.host_ports,
        })
        .collect())
}

/// The nodes of `--nodes`, with the room the pods of `--all-pods` take, sorted by name. The pods
/// of this HPA's workload are those of `namespace` named in `workload`.
pub fn parse(
    nodes_file: &str,
    nodes_text: &str,
    pods: Option<(&str, &str)>,
    namespace: &str,
    workload: &HashSet<&str>,
) -> Result<(Vec<ExistingNode>, Capacity), InputError> {
    let entries = entries(nodes_file, nodes_text, pods, namespace, workload)?;
    // The template is the first Ready node of the group, with the DaemonSets that run on it.
    let template_daemonsets = entries
        .iter()
        .find(|e| e.node.schedulable)
        .or(entries.first())
        .map(|e| e.daemonsets.clone())
        .unwrap_or_default();
    Ok((
        entries.into_iter().map(|e| e.node).collect(),
        template_daemonsets,
    ))
}

fn taints_of(spec: Option<&Spec<'_>>) -> Vec<Taint> {
    (spec
        .and_then(|s| s.taints.as_deref())
        .unwrap_or_default()
        .iter())
    .map(|t| Taint {
        key: t.key.as_deref().unwrap_or_default().to_string(),
        value: t.value.as_deref().unwrap_or_default().to_string(),
        effect: t.effect.as_deref().unwrap_or_default().to_string(),
    })
    .collect()
}

// Port of GetHostPorts (pkg/scheduling/hostportusage.go) for a bound pod.
fn host_ports_of(spec: &Spec<'_>) -> Vec<HostPort> {
    (spec.containers.iter().flatten())
        .flat_map(|c| c.ports.iter().flatten())
        .filter(|p| p.host_port.is_some_and(|p| p != 0))
        .map(|p| HostPort {
            ip: (p.host_ip.as_deref())
                .filter(|ip| !ip.is_empty())
                .unwrap_or("0.0.0.0")
                .to_string(),
            protocol: p.protocol.as_deref().unwrap_or("TCP").to_string(),
            port: p.host_port.unwrap_or(0),
        })
        .collect()
}

/// Every node with its pods added, sorted by name.
fn entries(
    nodes_file: &str,
    nodes_text: &str,
    pods: Option<(&str, &str)>,
    namespace: &str,
    workload: &HashSet<&str>,
) -> Result<Vec<NodeEntry>, InputError> {
    let expected = "a NodeList or a List of nodes (kubectl get nodes -o json)";
    let mut entries: Vec<NodeEntry> = Vec::new();
    for (i, item) in items(nodes_file, nodes_text, expected, "Node")?
        .into_iter()
        .enumerate()
    {
        let field = |f: &str| format!("items[{i}].{f}");
        let meta = item.metadata.unwrap_or_default();
        let labels: Vec<(String, String)> = (meta.labels.map(|l| l.0).unwrap_or_default())
            .into_iter()
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        let name = meta.name.filter(|n| !n.is_empty()).ok_or_else(|| {
            InputError::new(nodes_file, "found nothing, expected the node's name")
                .field(field("metadata.name"))
        })?;
        let status = item.status.unwrap_or_default();
        let allocatable = status.allocatable.map(|a| a.0).ok_or_else(|| {
            InputError::new(
                nodes_file,
                format!("found no allocatable for node {name}, expected status.allocatable"),
            )
            .field(field("status.allocatable"))
        })?;
        let (pods_milli, resources): (Vec<_>, Vec<_>) =
            allocatable.0.into_iter().partition(|(n, _)| n == "pods");
        let max_pods = pods_milli.first().map_or(110, |(_, m)| m / 1000);
        let ready = status.conditions.unwrap_or_default().iter().any(|c| {
            c.condition_type.as_deref() == Some("Ready") && c.status.as_deref() == Some("True")
        });
        let taints = taints_of(item.spec.as_ref());
        let cordoned = item.spec.and_then(|s| s.unschedulable).unwrap_or(false);
        let capacity = status.capacity.map(|c| capacity_of(c.0));
        entries.push(NodeEntry {
            node: ExistingNode {
                name: name.into_owned(),
                allocatable: Capacity {
                    resources: Resources(resources),
                    pods: max_pods,
                },
                requested: Capacity::default(),
                workload_pods: 0,
                schedulable: ready && !cordoned,
            },
            daemonsets: Capacity::default(),
            labels,
            taints,
            capacity: capacity.unwrap_or_default(),
            ready,
            host_ports: Vec::new(),
        });
    }
    for e in entries
        .iter_mut()
        .filter(|e| e.capacity == Capacity::default())
    {
        e.capacity = e.node.allocatable.clone(); // no status.capacity: the allocatable
    }
    if entries.is_empty() {
        return Err(InputError::new(
            nodes_file,
            format!("found no nodes, expected {expected}"),
        ));
    }
    entries.sort_by(|a, b| a.node.name.cmp(&b.node.name));
    let index: HashMap<String, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.node.name.clone(), i))
        .collect();

    if let Some((pods_file, pods_text)) = pods {
        let expected = "a PodList or a List of pods (kubectl get pods -A -o json)";
        for item in items(pods_file, pods_text, expected, "Pod")? {
            let spec = item.spec.unwrap_or_default();
            let Some(entry) = spec
                .node_name
                .as_deref()
                .and_then(|n| index.get(n))
                .and_then(|&i| entries.get_mut(i))
            else {
                continue; // Not bound, or on a node that is not listed.
            };
            let phase = item
                .status
                .as_ref()
                .and_then(|s| s.phase.as_deref())
                .unwrap_or("Running");
            if phase == "Succeeded" || phase == "Failed" {
                continue; // Terminal pods release their requests.
            }
            let meta = item.metadata.unwrap_or_default();
            let daemonset = meta
                .owner_references
                .as_deref()
                .unwrap_or_default()
                .iter()
                .any(|o| o.kind.as_deref() == Some("DaemonSet"));
            let mut request = effective_requests(&to_pod(&spec));
            if let Some(overhead) = &spec.overhead {
                add(&mut request, &overhead.0);
            }
            add(&mut entry.node.requested.resources, &request);
            entry.node.requested.pods += 1;
            entry.host_ports.extend(host_ports_of(&spec));
            if daemonset {
                add(&mut entry.daemonsets.resources, &request);
                entry.daemonsets.pods += 1;
            }
            let name = meta.name.as_deref().unwrap_or("");
            if meta.namespace.as_deref() == Some(namespace) && workload.contains(name) {
                entry.node.workload_pods += 1;
            }
        }
    }
    Ok(entries)
}

fn to_pod(spec: &Spec<'_>) -> Pod {
    let container = |c: &RawContainer<'_>, kind| Container {
        name: c.name.as_deref().unwrap_or("").to_string(),
        kind,
        requests: c
            .resources
            .as_ref()
            .and_then(|r| r.requests.as_ref())
            .map(|r| r.0.clone())
            .unwrap_or_default(),
    };
    let mut containers: Vec<Container> = spec
        .containers
        .iter()
        .flatten()
        .map(|c| container(c, ContainerKind::App))
        .collect();
    containers.extend(spec.init_containers.iter().flatten().map(|c| {
        let kind = if c.restart_policy.as_deref() == Some("Always") {
            ContainerKind::Sidecar
        } else {
            ContainerKind::Init
        };
        container(c, kind)
    }));
    Pod {
        name: String::new(),
        phase: PodPhase::Running,
        deleting: false,
        start_time: None,
        ready: None,
        containers,
        pod_requests: spec
            .resources
            .as_ref()
            .and_then(|r| r.requests.as_ref())
            .map(|r| r.0.clone()),
        // The node view adds spec.overhead to each pod's request itself.
        overhead: None,
        placement: Default::default(),
    }
}

fn add(into: &mut Resources, more: &Resources) {
    for (name, v) in &more.0 {
        match into.0.iter_mut().find(|(n, _)| n == name) {
            Some((_, total)) => *total = total.saturating_add(*v),
            None => into.0.push((name.clone(), *v)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn karpenter_nodes_carry_labels_taints_capacity_and_the_host_ports_in_use() {
        let nodes = r#"{"kind": "NodeList", "items": [{"metadata": {"name": "n1",
            "labels": {"karpenter.sh/nodepool": "general", "topology.kubernetes.io/zone": "a"}},
            "spec": {"taints": [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]},
            "status": {"capacity": {"cpu": "2", "pods": "29"},
                       "allocatable": {"cpu": "1930m", "pods": "29"},
                       "conditions": [{"type": "Ready", "status": "False"}]}}]}"#;
        let pods = r#"{"kind": "PodList", "items": [{"metadata": {"name": "web-1", "namespace": "shop"},
            "spec": {"nodeName": "n1", "containers": [{"name": "c",
                "resources": {"requests": {"cpu": "500m"}},
                "ports": [{"containerPort": 80, "hostPort": 9100}, {"containerPort": 81}]}]},
            "status": {"phase": "Running"}}]}"#;
        let workload: HashSet<&str> = ["web-1"].into();
        let n = karpenter_nodes(
            "nodes.json",
            nodes,
            Some(("pods.json", pods)),
            "shop",
            &workload,
        )
        .unwrap();
        let n = &n[0];
        assert!(
            n.labels
                .contains(&("karpenter.sh/nodepool".into(), "general".into()))
        );
        assert_eq!(n.taints[0].key, "dedicated");
        assert_eq!(
            (n.capacity.resources.get("cpu"), n.capacity.pods),
            (Some(2000), 29)
        );
        assert_eq!(n.allocatable.resources.get("cpu"), Some(1930));
        assert_eq!(
            (n.requested.resources.get("cpu"), n.requested.pods),
            (Some(500), 1)
        );
        assert_eq!((n.workload_pods, n.initialized), (1, false));
        assert_eq!(
            n.host_ports,
            vec![HostPort {
                ip: "0.0.0.0".into(),
                protocol: "TCP".into(),
                port: 9100
            }]
        );
    }
}
