//! `--node-groups FILE` and `--expander`: several Cluster Autoscaler node groups (a YAML or JSON
//! list, or an object with `nodeGroups`, the priority expander's `priorities` and `podPricing`)
//! and the expander chain, validated into `NodeGroupsInput`.

use crate::calc::node_groups::chain;
use crate::error::{InputError, yaml_error};
use crate::input::inputs::{NodeSettings, Text};
use crate::quantity::parse_milli;
use crate::scenario::node_groups::{NodeGroupSpec, NodeGroupsInput, PodPricing, Taint};
use crate::scenario::{Capacity, Resources};
use serde::Deserialize;
use std::collections::BTreeMap;

/// GCE's base prices (`cpuPricePerHour`, `memoryPricePerHourPerGb` of `gce_price_model.go`), the
/// only provider pricing the price expander ships with: what one pod costs per hour.
pub const DEFAULT_POD_PRICING: PodPricing = PodPricing {
    per_core_hour: 0.033_174,
    per_gib_hour: 0.004_446,
};

/// The most groups a file may hold: a bound on the work of each loop.
pub const MAX_GROUPS: usize = 1000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct FileDoc {
    node_groups: Vec<GroupDoc>,
    /// The ConfigMap's `priorities` data: a map of level → expressions, or that map as YAML text.
    #[serde(default)]
    priorities: Option<serde_yaml::Value>,
    #[serde(default)]
    pod_pricing: Option<PricingDoc>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PricingDoc {
    per_core_hour: f64,
    #[serde(rename = "perGiBHour")]
    per_gib_hour: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct GroupDoc {
    name: String,
    allocatable: BTreeMap<String, serde_yaml::Value>,
    #[serde(default)]
    capacity: Option<BTreeMap<String, serde_yaml::Value>>,
    #[serde(default)]
    labels: BTreeMap<String, String>,
    #[serde(default)]
    taints: Vec<TaintDoc>,
    #[serde(default)]
    min_size: i64,
    max_size: i64,
    #[serde(default)]
    current_size: i64,
    #[serde(default)]
    price_per_hour: Option<f64>,
    #[serde(default)]
    priority: Option<i64>,
    #[serde(default = "yes")]
    exists: bool,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TaintDoc {
    key: String,
    #[serde(default)]
    value: String,
    effect: String,
}

fn scalar(v: &serde_yaml::Value) -> Option<String> {
    match v {
        serde_yaml::Value::String(s) => Some(s.clone()),
        serde_yaml::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A resource list: quantities as milli-units, `pods` as a count (110 when absent).
fn capacity(
    file: &str,
    field: &str,
    list: &BTreeMap<String, serde_yaml::Value>,
) -> Result<Capacity, InputError> {
    let mut out = Capacity {
        resources: Resources::default(),
        pods: 110,
    };
    for (name, value) in list {
        let at = format!("{field}.{name}");
        let text = scalar(value).ok_or_else(|| {
            InputError::new(file, "found a non-scalar value, expected a quantity").field(&at)
        })?;
        if name == "pods" {
            out.pods = text.parse().ok().filter(|n: &i64| *n >= 0).ok_or_else(|| {
                InputError::new(
                    file,
                    format!("found {text}, expected a whole number of 0 or more"),
                )
                .field(&at)
            })?;
            continue;
        }
        let milli =
            parse_milli(&text).map_err(|e| InputError::new(file, e.to_string()).field(&at))?;
        if milli < 0 {
            return Err(
                InputError::new(file, format!("found {text}, expected 0 or more")).field(&at),
            );
        }
        out.resources.0.push((name.clone(), milli));
    }
    Ok(out)
}

const EFFECTS: [&str; 3] = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

fn group(file: &str, i: usize, doc: GroupDoc) -> Result<NodeGroupSpec, InputError> {
    let at = |f: &str| format!("nodeGroups[{i}].{f}");
    let allocatable = capacity(file, &at("allocatable"), &doc.allocatable)?;
    if allocatable.resources.get("cpu").is_none() {
        return Err(
            InputError::new(file, "found no cpu, expected cpu=QUANTITY").field(at("allocatable"))
        );
    }
    let capacity = match &doc.capacity {
        Some(c) => capacity(file, &at("capacity"), c)?,
        None => allocatable.clone(),
    };
    for (f, v) in [("minSize", doc.min_size), ("currentSize", doc.current_size)] {
        if v < 0 {
            return Err(
                InputError::new(file, format!("found {v}, expected 0 or more")).field(at(f)),
            );
        }
    }
    if doc.max_size < doc.min_size || doc.max_size > crate::input::nodes::MAX_NODES {
        return Err(InputError::new(
            file,
            format!(
                "found {}, expected from minSize ({}) to {} (hpacalc's node limit)",
                doc.max_size,
                doc.min_size,
                crate::input::nodes::MAX_NODES
            ),
        )
        .field(at("maxSize")));
    }
    if let Some(p) = doc.price_per_hour.filter(|p| !p.is_finite() || *p < 0.0) {
        return Err(
            InputError::new(file, format!("found {p}, expected a price of 0 or more"))
                .field(at("pricePerHour")),
        );
    }
    let mut taints = Vec::with_capacity(doc.taints.len());
    for (j, t) in doc.taints.into_iter().enumerate() {
        if !EFFECTS.contains(&t.effect.as_str()) {
            return Err(InputError::new(
                file,
                format!(
                    "found {}, expected one of {}",
                    crate::error::quoted(&t.effect),
                    EFFECTS.join(", ")
                ),
            )
            .field(at(&format!("taints[{j}].effect"))));
        }
        taints.push(Taint {
            key: t.key,
            value: t.value,
            effect: t.effect,
        });
    }
    Ok(NodeGroupSpec {
        name: doc.name,
        allocatable,
        capacity,
        labels: doc.labels.into_iter().collect(),
        taints,
        min_size: doc.min_size,
        max_size: doc.max_size,
        current_size: doc.current_size,
        price_per_hour: doc.price_per_hour,
        priorities: doc.priority.into_iter().collect(),
        exists: doc.exists,
    })
}

/// The ConfigMap's `priorities` text (`parsePrioritiesYAMLString`), as the upstream tests give it.
pub fn priority_config(file: &str, text: &str) -> Result<Vec<(i64, regex::Regex)>, InputError> {
    priorities(file, &serde_yaml::Value::String(text.to_string()))
}

// Port of groupIDMatchesList over every level: the levels whose expressions match the name
// anywhere (`FindStringIndex`).
pub fn matched_levels(expressions: &[(i64, regex::Regex)], name: &str) -> Vec<i64> {
    let mut levels: Vec<i64> = Vec::new();
    for (level, re) in expressions {
        if re.is_match(name) && !levels.contains(level) {
            levels.push(*level);
        }
    }
    levels
}

/// The priority expander's ConfigMap data (`parsePrioritiesYAMLString`): level → expressions.
fn priorities(
    file: &str,
    value: &serde_yaml::Value,
) -> Result<Vec<(i64, regex::Regex)>, InputError> {
    let parsed;
    let value = match value {
        serde_yaml::Value::String(text) => {
            if text.trim().is_empty() {
                return Err(InputError::new(
                    file,
                    "priority configuration in cluster-autoscaler-priority-expander configmap is \
                     empty; please provide valid configuration",
                )
                .field("priorities"));
            }
            parsed = serde_yaml::from_str::<serde_yaml::Value>(text)
                .map_err(|e| yaml_error(file, &e).field("priorities"))?;
            &parsed
        }
        other => other,
    };
    let map: BTreeMap<i64, Vec<String>> = serde_yaml::from_value(value.clone()).map_err(|e| {
        InputError::new(
            file,
            format!("{e}, expected a map of integer levels to lists of expressions"),
        )
        .field("priorities")
    })?;
    let mut out = Vec::new();
    for (level, expressions) in map {
        for re in expressions {
            let compiled = regex::Regex::new(&re).map_err(|e| {
                InputError::new(
                    file,
                    format!(
                        "Can't compile regexp rule for priority {level} and rule {re}: {}",
                        e.to_string().lines().last().unwrap_or_default()
                    ),
                )
                .field(format!("priorities.{level}"))
            })?;
            out.push((level, compiled));
        }
    }
    Ok(out)
}

/// The chain of `--expander`, checked as `Factory.Build` checks it.
pub fn expander_chain(
    text: &str,
) -> Result<Vec<crate::scenario::node_groups::Expander>, InputError> {
    let names: Vec<&str> = text.split(',').collect();
    chain::build(&names).map_err(|e| InputError::new("--expander", e.to_string()))
}

/// The groups of `--node-groups` with the node flags they share (`--daemonset-requests`,
/// `--max-nodes-total`, `--expander`) and the pod request.
pub fn read(
    text: &Text,
    flags: &NodeSettings,
    daemonsets: Capacity,
    (pod_request, pod_request_source): (Resources, String),
) -> anyhow::Result<NodeGroupsInput> {
    let file = text.name.as_str();
    // A list of groups, or an object with `nodeGroups`: the shape first, then the typed read
    // (which keeps the line of an error).
    let shape: serde_yaml::Value =
        serde_yaml::from_str(&text.text).map_err(|e| yaml_error(file, &e))?;
    let (docs, prios, pricing) = if shape.is_mapping() {
        let doc: FileDoc = serde_yaml::from_str(&text.text).map_err(|e| yaml_error(file, &e))?;
        (doc.node_groups, doc.priorities, doc.pod_pricing)
    } else {
        let groups: Vec<GroupDoc> =
            serde_yaml::from_str(&text.text).map_err(|e| yaml_error(file, &e))?;
        (groups, None, None)
    };
    if docs.is_empty() || docs.len() > MAX_GROUPS {
        return Err(InputError::new(
            file,
            format!(
                "found {} node groups, expected 1 to {MAX_GROUPS}",
                docs.len()
            ),
        )
        .into());
    }
    let mut groups = Vec::with_capacity(docs.len());
    for (i, doc) in docs.into_iter().enumerate() {
        let g = group(file, i, doc)?;
        if groups.iter().any(|o: &NodeGroupSpec| o.name == g.name) {
            return Err(InputError::new(
                file,
                format!("found node group {} twice, expected unique names", g.name),
            )
            .field(format!("nodeGroups[{i}].name"))
            .into());
        }
        groups.push(g);
    }
    let expressions = prios.as_ref().map(|p| priorities(file, p)).transpose()?;
    let priorities_configured =
        expressions.is_some() || groups.iter().any(|g| !g.priorities.is_empty());
    if let Some(expressions) = &expressions {
        for g in &mut groups {
            for level in matched_levels(expressions, &g.name) {
                if !g.priorities.contains(&level) {
                    g.priorities.push(level);
                }
            }
        }
    }
    let pod_pricing = match pricing {
        None => DEFAULT_POD_PRICING,
        Some(p) => PodPricing {
            per_core_hour: p.per_core_hour,
            per_gib_hour: p.per_gib_hour,
        },
    };
    let expander = expander_chain(flags.expander.as_deref().unwrap_or("least-waste"))?;
    Ok(NodeGroupsInput {
        groups,
        expander,
        priorities_configured,
        pod_pricing,
        daemonsets,
        max_nodes_total: flags.max_nodes_total.filter(|n| *n > 0),
        max_nodes_per_scale_up: crate::calc::nodes::MAX_NODES_PER_SCALE_UP,
        pod_request,
        pod_request_source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_text(text: &str, expander: Option<&str>) -> anyhow::Result<NodeGroupsInput> {
        let flags = NodeSettings {
            expander: expander.map(str::to_string),
            ..NodeSettings::default()
        };
        read(
            &Text::new("groups.yaml", text),
            &flags,
            Capacity::default(),
            (Resources::default(), "test".into()),
        )
    }

    #[test]
    fn a_list_takes_least_waste_and_each_group_its_own_priority() {
        let input = read_text(
            "- {name: a, allocatable: {cpu: 2, memory: 8Gi}, maxSize: 3, priority: 5}\n\
             - {name: b, allocatable: {cpu: '4'}, maxSize: 3}\n",
            None,
        )
        .unwrap();
        assert_eq!(
            input.expander,
            [crate::scenario::node_groups::Expander::LeastWaste]
        );
        assert!(input.priorities_configured);
        assert_eq!(input.groups[0].priorities, [5]);
        assert_eq!(input.groups[1].allocatable.pods, 110);
        assert_eq!(input.groups[1].capacity, input.groups[1].allocatable);
    }

    #[test]
    fn priority_expressions_match_anywhere_in_the_name() {
        let input = read_text(
            "nodeGroups:\n- {name: spot-m5, allocatable: {cpu: 2}, maxSize: 3}\n\
             - {name: m5, allocatable: {cpu: 2}, maxSize: 3}\n\
             priorities: \"10:\\n- spot\\n20:\\n- ^m5$\\n\"\n",
            Some("priority"),
        )
        .unwrap();
        assert_eq!(input.groups[0].priorities, [10]);
        assert_eq!(input.groups[1].priorities, [20]);
    }

    #[test]
    fn limits_and_names_are_checked() {
        for bad in [
            "- {name: a, allocatable: {cpu: 2}, minSize: 4, maxSize: 3}",
            "- {name: a, allocatable: {memory: 2Gi}, maxSize: 3}",
            "- {name: a, allocatable: {cpu: 2}, maxSize: 3}\n- {name: a, allocatable: {cpu: 2}, maxSize: 3}",
            "- {name: a, allocatable: {cpu: 2}, maxSize: 3, pricePerHour: -1}",
            "[]",
        ] {
            assert!(read_text(bad, None).is_err(), "{bad}");
        }
    }
}
