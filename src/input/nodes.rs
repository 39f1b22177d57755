//! The node group from the `--node-*` flags: allocatable, DaemonSets, limits and the pod request.

use crate::calc::nodes::{effective_requests, pods_per_node};
use crate::error::InputError;
use crate::input::inputs::{NodeSettings, Text};
use crate::input::kubectl::cluster;
use crate::input::samples::counts_as_replica;
use crate::quantity::parse_milli;
use crate::scenario::{Capacity, Existing, ExistingNode, NodeInput, Pod, Resources};
use crate::time::Duration;
use std::collections::HashSet;

/// Parses `cpu=2,memory=8Gi,pods=110`: resources as milli-units, `pods` as a count.
pub fn parse_resource_list(flag: &str, text: &str) -> Result<(Resources, Option<i64>), InputError> {
    let mut resources = Resources::default();
    let mut pods = None;
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (name, value) = item.split_once('=').ok_or_else(|| {
            InputError::new(
                flag,
                format!(
                    "found {}, expected NAME=QUANTITY such as cpu=500m",
                    crate::error::quoted(item)
                ),
            )
        })?;
        let (name, value) = (name.trim(), value.trim());
        if resources.get(name).is_some() || (name == "pods" && pods.is_some()) {
            return Err(InputError::new(
                flag,
                format!("found {name} twice, expected each resource once"),
            ));
        }
        if name == "pods" {
            let n: i64 = value.parse().ok().filter(|n| *n >= 0).ok_or_else(|| {
                InputError::new(
                    flag,
                    format!("found pods={value}, expected a whole number of 0 or more"),
                )
                .field("pods")
            })?;
            pods = Some(n);
            continue;
        }
        let milli =
            parse_milli(value).map_err(|e| InputError::new(flag, e.to_string()).field(name))?;
        if milli < 0 {
            return Err(
                InputError::new(flag, format!("found {name}={value}, expected 0 or more"))
                    .field(name),
            );
        }
        resources.0.push((name.to_string(), milli));
    }
    Ok((resources, pods))
}

fn count(flag: &str, value: Option<i64>) -> Result<Option<i64>, InputError> {
    match value {
        Some(n) if n < 0 => Err(InputError::new(
            flag,
            format!("found {n}, expected 0 or more"),
        )),
        Some(n) if n > MAX_NODES => Err(InputError::new(
            flag,
            format!("found {n}, expected at most {MAX_NODES} nodes (hpacalc's node limit)"),
        )),
        other => Ok(other),
    }
}

/// The most nodes a group may have now: twice Kubernetes' documented 5,000-node scale, and a
/// bound on the work and the report's size.
pub const MAX_NODES: i64 = 10_000;

/// Refuses a node group that `current` pods would spread over more than [`MAX_NODES`] nodes when
/// the group's size is derived from the pods (no --existing-nodes, no --nodes).
pub fn check_size(group: &NodeInput, current: i32) -> Result<(), InputError> {
    if group.existing != Existing::Template(None) {
        return Ok(());
    }
    let (k, _) = pods_per_node(&group.template, &group.daemonsets, &group.pod_request);
    let current = i64::from(current.max(0));
    if k > 0 && (current + k - 1) / k > MAX_NODES {
        return Err(InputError::new(
            "--current-replicas",
            format!(
                "found {current} pods, {} nodes of {k} pods, expected at most {MAX_NODES} nodes \
                 (hpacalc's node limit): give --existing-nodes or a larger --node-allocatable",
                (current + k - 1) / k
            ),
        ));
    }
    Ok(())
}

/// The most common effective request among the pods that count as replicas, and a note when the
/// pods differ.
fn pod_request_from_samples(pods: &[Pod]) -> (Resources, String) {
    let mut seen: Vec<(Resources, usize)> = Vec::new();
    for pod in pods.iter().filter(|p| counts_as_replica(p)) {
        let r = effective_requests(pod);
        match seen.iter_mut().find(|(s, _)| *s == r) {
            Some((_, n)) => *n += 1,
            None => seen.push((r, 1)),
        }
    }
    let total: usize = seen.iter().map(|(_, n)| n).sum();
    // The first of the most common, so ties keep the input order.
    let best = seen
        .iter()
        .enumerate()
        .max_by_key(|(i, (_, n))| (*n, std::cmp::Reverse(*i)))
        .map(|(_, (r, n))| (r.clone(), *n));
    match best {
        None => (
            Resources::default(),
            "no samples and no --pod-request: pods request nothing (a pod slot each)".into(),
        ),
        Some((r, n)) if n == total => (r, format!("the request of the {total} current pod(s)")),
        Some((r, n)) => (
            r,
            format!(
                "the most common request among the current pods ({n} of {total}; the others differ)"
            ),
        ),
    }
}

/// Real nodes from `--nodes` (and `--all-pods`), sorted by name, with the template taken from
/// the first Ready node and the DaemonSets that run on it.
fn cluster_nodes(
    flags: &NodeSettings,
    files: NodeFiles<'_>,
    pods: &[Pod],
    namespace: &str,
) -> anyhow::Result<Option<(Vec<ExistingNode>, Capacity)>> {
    let Some(nodes) = files.nodes else {
        return Ok(None);
    };
    if flags.existing_nodes.is_some() {
        return Err(InputError::new(
            "--existing-nodes",
            "found --nodes too, expected one of them: --nodes gives the existing nodes",
        )
        .into());
    }
    let workload: HashSet<&str> = pods.iter().map(|p| p.name.as_str()).collect();
    let parsed = cluster::parse(
        &nodes.name,
        &nodes.text,
        files.all_pods.map(|t| (t.name.as_str(), &*t.text)),
        namespace,
        &workload,
    )?;
    Ok(Some(parsed))
}

/// What `--daemonset-requests` take on every node: requests summed, a pod slot each unless
/// `pods=N` says otherwise.
pub fn daemonsets(flags: &NodeSettings) -> Result<Capacity, InputError> {
    let mut daemonsets = Capacity::default();
    for text in &flags.daemonset_requests {
        let (r, pods) = parse_resource_list("--daemonset-requests", text)?;
        for (name, v) in r.0 {
            match daemonsets.resources.0.iter_mut().find(|(n, _)| *n == name) {
                Some((_, total)) => *total = total.saturating_add(v),
                None => daemonsets.resources.0.push((name, v)),
            }
        }
        daemonsets.pods += pods.unwrap_or(1);
    }
    Ok(daemonsets)
}

/// The workload's pod request: `--pod-request`, else the most common among the samples.
pub fn pod_request(flags: &NodeSettings, pods: &[Pod]) -> Result<(Resources, String), InputError> {
    Ok(match &flags.pod_request {
        Some(text) => (
            parse_resource_list("--pod-request", text)?.0,
            "--pod-request".to_string(),
        ),
        None => pod_request_from_samples(pods),
    })
}

/// `--nodes` and `--all-pods`, when given.
#[derive(Clone, Copy, Default)]
pub struct NodeFiles<'a> {
    pub nodes: Option<&'a Text>,
    pub all_pods: Option<&'a Text>,
}

/// The node group, when `--node-allocatable` or `--nodes` was given.
pub fn from_settings(
    flags: &NodeSettings,
    files: NodeFiles<'_>,
    pods: &[Pod],
    namespace: &str,
) -> anyhow::Result<Option<NodeInput>> {
    let cluster = cluster_nodes(flags, files, pods, namespace)?;
    let template = match (&flags.node_allocatable, &cluster) {
        (Some(text), _) => {
            let (resources, max_pods) = parse_resource_list("--node-allocatable", text)?;
            if resources.get("cpu").is_none() {
                return Err(InputError::new(
                    "--node-allocatable",
                    format!(
                        "found {} without cpu, expected at least cpu=QUANTITY",
                        crate::error::quoted(text)
                    ),
                )
                .into());
            }
            Capacity {
                resources,
                pods: max_pods.unwrap_or(110),
            }
        }
        // The template is the first Ready node of the group.
        (None, Some((nodes, _))) => nodes
            .iter()
            .find(|n| n.schedulable)
            .or(nodes.first())
            .map(|n| n.allocatable.clone())
            .unwrap_or_default(),
        (None, None) => {
            let stray = [
                (flags.existing_nodes.is_some(), "--existing-nodes"),
                (!flags.daemonset_requests.is_empty(), "--daemonset-requests"),
                (flags.node_group_max.is_some(), "--node-group-max"),
                (flags.max_nodes_total.is_some(), "--max-nodes-total"),
                (flags.pod_request.is_some(), "--pod-request"),
            ];
            if let Some((_, flag)) = stray.iter().find(|(set, _)| *set) {
                return Err(InputError::new(
                    *flag,
                    "found no node group, expected --node-allocatable or --nodes with it",
                )
                .into());
            }
            return Ok(None);
        }
    };
    let daemonsets = daemonsets(flags)?;
    let (existing, daemonsets) = match cluster {
        // The DaemonSets found on the template node, unless the flags name them.
        Some((nodes, found)) if flags.daemonset_requests.is_empty() => {
            (Existing::Nodes(nodes), found)
        }
        Some((nodes, _)) => (Existing::Nodes(nodes), daemonsets),
        None => (
            Existing::Template(count("--existing-nodes", flags.existing_nodes)?),
            daemonsets,
        ),
    };
    let (pod_request, pod_request_source) = pod_request(flags, pods)?;
    if !(flags.scale_down_utilization_threshold.is_finite()
        && (0.0..=1.0).contains(&flags.scale_down_utilization_threshold))
    {
        return Err(InputError::new(
            "--scale-down-utilization-threshold",
            format!(
                "found {}, expected a ratio from 0 to 1",
                flags.scale_down_utilization_threshold
            ),
        )
        .into());
    }
    Ok(Some(NodeInput {
        template,
        daemonsets,
        existing,
        pod_request,
        pod_request_source,
        node_group_max: count("--node-group-max", flags.node_group_max)?,
        max_nodes_total: count("--max-nodes-total", flags.max_nodes_total)?,
        scale_down_utilization_threshold: flags.scale_down_utilization_threshold,
        scale_down_unneeded_time: Duration::parse(&flags.scale_down_unneeded_time)
            .map_err(|e| InputError::new("--scale-down-unneeded-time", e))?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_lists_parse_quantities_and_a_pod_count() {
        let (r, pods) = parse_resource_list("--x", "cpu=2, memory=8Gi,pods=110").unwrap();
        assert_eq!(r.get("cpu"), Some(2000));
        assert_eq!(r.get("memory"), Some(8 * 1024 * 1024 * 1024 * 1000));
        assert_eq!(pods, Some(110));
        for bad in ["cpu", "cpu=lots", "cpu=-1", "pods=-2", "cpu=1,cpu=2"] {
            assert!(parse_resource_list("--x", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_allocatable_needs_cpu() {
        let flags = NodeSettings {
            node_allocatable: Some("memory=8Gi".into()),
            ..NodeSettings::default()
        };
        let err = from_settings(&flags, NodeFiles::default(), &[], "default").unwrap_err();
        assert!(err.to_string().contains("without cpu"), "{err}");
    }

    #[test]
    fn node_flags_without_a_group_are_refused() {
        let flags = NodeSettings {
            existing_nodes: Some(2),
            ..NodeSettings::default()
        };
        assert!(
            from_settings(&flags, NodeFiles::default(), &[], "default")
                .unwrap_err()
                .to_string()
                .contains("--node-allocatable")
        );
    }

    #[test]
    fn each_daemonset_takes_a_pod_slot_unless_told() {
        let flags = NodeSettings {
            node_allocatable: Some("cpu=4".into()),
            daemonset_requests: vec!["cpu=100m".into(), "cpu=50m,pods=2".into()],
            ..NodeSettings::default()
        };
        let n = from_settings(&flags, NodeFiles::default(), &[], "default")
            .unwrap()
            .unwrap();
        assert_eq!(n.daemonsets.pods, 3);
        assert_eq!(n.daemonsets.resources.get("cpu"), Some(150));
        assert_eq!(n.template.pods, 110);
    }
}
