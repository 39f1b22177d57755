//! `--nodepool FILE` (repeatable), `--nodeclass FILE` and `--instance-types FILE`: Karpenter's
//! NodePools (`karpenter.sh/v1`, YAML or JSON, lists and multi-document files), the
//! EC2NodeClass kubelet settings, and the KWOK provider's `InstanceTypeOptions` catalog
//! (`kwok/cloudprovider/helpers.go`), validated into `KarpenterInput`. The pending pods'
//! scheduling constraints come from the `--target` pod template.

use crate::error::{InputError, yaml_error};
use crate::input::aws_catalog::{self, AmiFamily, ProviderOptions};
use crate::input::inputs::{KarpenterTexts, Text};
use crate::quantity::parse_milli;
use crate::scenario::karpenter::{
    Budget, BudgetNodes, ConsolidationPolicy, Disruption, EvictionThreshold, HostPort,
    InstanceType, KarpenterInput, KubeletSettings, NodePool, Offering, PendingGroup,
    PodAffinityTerm, PodConstraints, SelectorRequirement, TopologySpread,
};
use crate::scenario::node_groups::{Taint, Toleration};
use crate::scenario::{Capacity, Resources};
use serde::Deserialize;
use serde_yaml::Value;
use std::collections::BTreeMap;

/// The most instance types a catalog file may hold.
pub const MAX_INSTANCE_TYPES: usize = 5000;
const OPERATORS: [&str; 8] = [
    "In",
    "NotIn",
    "Exists",
    "DoesNotExist",
    "Gt",
    "Lt",
    "Gte",
    "Lte",
];
const EFFECTS: [&str; 3] = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ReqDoc {
    key: String,
    operator: String,
    #[serde(default)]
    values: Vec<String>,
    #[serde(default)]
    min_values: Option<i64>,
}

#[derive(Deserialize)]
struct TaintDoc {
    key: String,
    #[serde(default)]
    value: String,
    effect: String,
}

/// Every document of a YAML/JSON file: sequences and `kind: List` items flattened.
fn documents(file: &str, text: &str) -> Result<Vec<Value>, InputError> {
    let mut out = Vec::new();
    for doc in serde_yaml::Deserializer::from_str(text) {
        let v = Value::deserialize(doc).map_err(|e| yaml_error(file, &e))?;
        match v {
            Value::Null => {}
            Value::Sequence(items) => out.extend(items),
            // `kind: List`, or a typed list as the API serves it (`NodePoolList`).
            Value::Mapping(ref m)
                if m.get("kind")
                    .and_then(Value::as_str)
                    .is_some_and(|k| k.ends_with("List")) =>
            {
                if let Some(Value::Sequence(items)) = m.get("items") {
                    out.extend(items.iter().cloned());
                }
            }
            other => out.push(other),
        }
    }
    Ok(out)
}

fn get<'v>(v: &'v Value, path: &[&str]) -> Option<&'v Value> {
    path.iter().try_fold(v, |v, k| v.get(*k))
}

fn typed<T: for<'de> Deserialize<'de>>(
    file: &str,
    field: &str,
    v: &Value,
) -> Result<T, InputError> {
    serde_yaml::from_value(v.clone())
        .map_err(|e| InputError::new(file, format!("{e}")).field(field))
}

fn requirements(
    file: &str,
    field: &str,
    v: Option<&Value>,
) -> Result<Vec<SelectorRequirement>, InputError> {
    let docs: Vec<ReqDoc> = match v {
        Some(v) => typed(file, field, v)?,
        None => Vec::new(),
    };
    let mut out = Vec::new();
    for (i, d) in docs.into_iter().enumerate() {
        let at = format!("{field}[{i}]");
        if !OPERATORS.contains(&d.operator.as_str()) {
            return Err(InputError::new(
                file,
                format!(
                    "found {}, expected one of {}",
                    d.operator,
                    OPERATORS.join(", ")
                ),
            )
            .field(format!("{at}.operator")));
        }
        let numeric = matches!(d.operator.as_str(), "Gt" | "Lt" | "Gte" | "Lte");
        if numeric
            && (d.values.len() != 1 || d.values.first().is_none_or(|v| v.parse::<i64>().is_err()))
        {
            return Err(InputError::new(
                file,
                format!(
                    "found {:?}, expected one integer value for {}",
                    d.values, d.operator
                ),
            )
            .field(format!("{at}.values")));
        }
        if d.operator == "In" && d.values.is_empty() {
            return Err(
                InputError::new(file, "found no values, expected at least one for In")
                    .field(format!("{at}.values")),
            );
        }
        if let Some(m) = d.min_values.filter(|m| {
            *m < 1 || (d.operator == "In" && usize::try_from(*m).unwrap_or(0) > d.values.len())
        }) {
            return Err(InputError::new(
                file,
                format!("found {m}, expected 1 to the number of values"),
            )
            .field(format!("{at}.minValues")));
        }
        out.push(SelectorRequirement {
            key: d.key,
            operator: d.operator,
            values: d.values,
            min_values: d.min_values,
        });
    }
    Ok(out)
}

fn taints(file: &str, field: &str, v: Option<&Value>) -> Result<Vec<Taint>, InputError> {
    let docs: Vec<TaintDoc> = match v {
        Some(v) => typed(file, field, v)?,
        None => Vec::new(),
    };
    let mut out = Vec::new();
    for (i, d) in docs.into_iter().enumerate() {
        if !EFFECTS.contains(&d.effect.as_str()) {
            return Err(InputError::new(
                file,
                format!("found {}, expected one of {}", d.effect, EFFECTS.join(", ")),
            )
            .field(format!("{field}[{i}].effect")));
        }
        out.push(Taint {
            key: d.key,
            value: d.value,
            effect: d.effect,
        });
    }
    Ok(out)
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A resource list in milli-units (`nodes` and `pods` too).
fn resource_list(file: &str, field: &str, v: Option<&Value>) -> Result<Resources, InputError> {
    let mut out = Resources::default();
    let Some(Value::Mapping(m)) = v else {
        return Ok(out);
    };
    for (k, q) in m {
        let name = k.as_str().unwrap_or_default().to_string();
        let at = format!("{field}.{name}");
        let text = scalar(q).ok_or_else(|| {
            InputError::new(file, "found a non-scalar value, expected a quantity").field(&at)
        })?;
        let milli =
            parse_milli(&text).map_err(|e| InputError::new(file, e.to_string()).field(&at))?;
        if milli < 0 {
            return Err(
                InputError::new(file, format!("found {text}, expected 0 or more")).field(&at),
            );
        }
        out.0.push((name, milli));
    }
    Ok(out)
}

fn string_map(v: Option<&Value>) -> Vec<(String, String)> {
    match v {
        Some(Value::Mapping(m)) => (m.iter())
            .filter_map(|(k, v)| Some((k.as_str()?.to_string(), scalar(v)?)))
            .collect(),
        _ => Vec::new(),
    }
}

/// One NodePool document.
fn node_pool(file: &str, i: usize, doc: &Value) -> Result<NodePool, InputError> {
    let at = |f: &str| format!("[{i}].{f}");
    let kind = get(doc, &["kind"])
        .and_then(Value::as_str)
        .unwrap_or_default();
    if kind != "NodePool" {
        return Err(
            InputError::new(file, format!("found kind {kind:?}, expected NodePool"))
                .field(at("kind")),
        );
    }
    let name = get(doc, &["metadata", "name"])
        .and_then(Value::as_str)
        .unwrap_or_default();
    if name.is_empty() {
        return Err(
            InputError::new(file, "found no name, expected metadata.name")
                .field(at("metadata.name")),
        );
    }
    let weight = match get(doc, &["spec", "weight"]) {
        None | Some(Value::Null) => 0,
        Some(w) => w
            .as_i64()
            .filter(|w| (1..=100).contains(w))
            .and_then(|w| i32::try_from(w).ok())
            .ok_or_else(|| {
                InputError::new(file, format!("found {w:?}, expected 1 to 100"))
                    .field(at("spec.weight"))
            })?,
    };
    let tspec = ["spec", "template", "spec"];
    let field = at("spec.template.spec.requirements");
    let reqs = requirements(
        file,
        &field,
        get(doc, &[tspec[0], tspec[1], tspec[2], "requirements"]),
    )?;
    let field = at("spec.template.spec.taints");
    let taints = taints(
        file,
        &field,
        get(doc, &["spec", "template", "spec", "taints"]),
    )?;
    let limits = match get(doc, &["spec", "limits"]) {
        None | Some(Value::Null) => None,
        v => Some(resource_list(file, &at("spec.limits"), v)?),
    };
    Ok(NodePool {
        name: name.to_string(),
        weight,
        requirements: reqs,
        labels: string_map(get(doc, &["spec", "template", "metadata", "labels"])),
        taints,
        limits,
        node_class: get(doc, &["spec", "template", "spec", "nodeClassRef", "name"])
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        disruption: disruption(file, i, get(doc, &["spec", "disruption"]))?,
    })
}

/// `spec.disruption`: consolidationPolicy, consolidateAfter, budgets; absent fields take the
/// API's defaults (`WhenEmptyOrUnderutilized`, `0s`, `nodes: 10%`).
fn disruption(file: &str, i: usize, v: Option<&Value>) -> Result<Disruption, InputError> {
    let at = |f: &str| format!("[{i}].spec.disruption.{f}");
    let mut out = Disruption::default();
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return Ok(out);
    };
    if let Some(p) = get(v, &["consolidationPolicy"]).filter(|p| !p.is_null()) {
        out.consolidation_policy = match p.as_str() {
            Some("WhenEmpty") => ConsolidationPolicy::WhenEmpty,
            Some("WhenEmptyOrUnderutilized") => ConsolidationPolicy::WhenEmptyOrUnderutilized,
            _ => {
                let found = scalar(p).unwrap_or_default();
                return Err(InputError::new(
                    file,
                    format!("found {found:?}, expected WhenEmpty or WhenEmptyOrUnderutilized"),
                )
                .field(at("consolidationPolicy")));
            }
        };
    }
    if let Some(a) = get(v, &["consolidateAfter"]).filter(|a| !a.is_null()) {
        let text = scalar(a).unwrap_or_default();
        out.consolidate_after_s = if text == "Never" {
            None
        } else {
            let d = crate::time::Duration::parse(&text)
                .ok()
                .filter(|d| d.0 >= 0)
                .ok_or_else(|| {
                    InputError::new(
                        file,
                        format!("found {text:?}, expected a duration (30s, 5m) or Never"),
                    )
                    .field(at("consolidateAfter"))
                })?;
            Some(d.0 / 1000)
        };
    }
    if let Some(list) = get(v, &["budgets"]).filter(|b| !b.is_null()) {
        let items = list.as_sequence().ok_or_else(|| {
            InputError::new(file, "found a non-list, expected a list of budgets")
                .field(at("budgets"))
        })?;
        out.budgets = (items.iter().enumerate())
            .map(|(j, b)| budget(file, &at(&format!("budgets[{j}]")), b))
            .collect::<Result<_, _>>()?;
    }
    Ok(out)
}

/// One `budgets[]` entry: `nodes` (a count or a percentage), `reasons`, `schedule`.
fn budget(file: &str, field: &str, b: &Value) -> Result<Budget, InputError> {
    let text = get(b, &["nodes"]).and_then(scalar).unwrap_or_default();
    let bad = || {
        InputError::new(
            file,
            format!("found {text:?}, expected a node count (3) or a percentage (10%)"),
        )
        .field(format!("{field}.nodes"))
    };
    let nodes = match text.strip_suffix('%') {
        Some(p) => BudgetNodes::Percent(
            p.parse()
                .ok()
                .filter(|p| (0..=100).contains(p))
                .ok_or_else(bad)?,
        ),
        None => BudgetNodes::Count(
            text.parse()
                .ok()
                .filter(|n: &i64| *n >= 0)
                .ok_or_else(bad)?,
        ),
    };
    let reasons = match get(b, &["reasons"]).filter(|r| !r.is_null()) {
        None => None,
        Some(r) => {
            let list: Vec<String> = (r.as_sequence().into_iter().flatten())
                .filter_map(scalar)
                .collect();
            if let Some(x) = list
                .iter()
                .find(|x| !["Empty", "Underutilized", "Drifted"].contains(&x.as_str()))
            {
                return Err(InputError::new(
                    file,
                    format!("found reason {x:?}, expected Empty, Underutilized or Drifted"),
                )
                .field(format!("{field}.reasons")));
            }
            Some(list)
        }
    };
    Ok(Budget {
        nodes,
        reasons,
        schedule: get(b, &["schedule"]).and_then(scalar),
    })
}

/// The file holds NodePools only (`kind: NodePool` in every document, at least one): what
/// `simulate --compare` reads as a NodePool change rather than another HPA.
pub fn holds_node_pools(t: &Text) -> bool {
    documents(&t.name, &t.text).is_ok_and(|docs| {
        !docs.is_empty()
            && docs
                .iter()
                .all(|d| d.get("kind").and_then(Value::as_str) == Some("NodePool"))
    })
}

/// Every NodePool of the files, names unique.
pub fn node_pools(texts: &[Text]) -> Result<Vec<NodePool>, InputError> {
    let mut out: Vec<NodePool> = Vec::new();
    for t in texts {
        for (i, doc) in documents(&t.name, &t.text)?.iter().enumerate() {
            let np = node_pool(&t.name, i, doc)?;
            if out.iter().any(|o| o.name == np.name) {
                return Err(InputError::new(
                    &t.name,
                    format!("found NodePool {} twice, expected unique names", np.name),
                )
                .field(format!("[{i}].metadata.name")));
            }
            out.push(np);
        }
    }
    if out.is_empty() {
        let name = texts.first().map_or("--nodepool", |t| t.name.as_str());
        return Err(InputError::new(
            name,
            "found no NodePool, expected at least one",
        ));
    }
    Ok(out)
}

/// An EC2NodeClass as the catalogs read it: `spec.amiFamily`, and `spec.kubelet` in the one
/// shape both the built-in AWS catalog's formula and a KWOK catalog apply.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NodeClass {
    pub ami_family: Option<String>,
    pub kubelet: KubeletSettings,
}

/// `spec.kubelet.evictionHard`: each value a quantity or a percentage of the capacity.
fn eviction_hard(
    file: &str,
    v: Option<&Value>,
) -> Result<Option<Vec<(String, EvictionThreshold)>>, InputError> {
    let eviction = (string_map(v).into_iter())
        .map(|(signal, value)| {
            let threshold = match value.trim().strip_suffix('%') {
                Some(p) => (p.trim().parse::<f64>().ok())
                    .filter(|p| (0.0..=100.0).contains(p))
                    .map(EvictionThreshold::Percent),
                None => parse_milli(&value).ok().map(EvictionThreshold::Quantity),
            };
            let field = format!("spec.kubelet.evictionHard.{signal}");
            threshold.map(|t| (signal, t)).ok_or_else(|| {
                InputError::new(
                    file,
                    format!("found {value:?}, expected a quantity or a percentage (10%)"),
                )
                .field(field)
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((!eviction.is_empty()).then_some(eviction))
}

/// The EC2NodeClass's `spec.amiFamily` and `spec.kubelet`: the one named `wanted` (the
/// NodePool's `nodeClassRef`) when the file holds it, else the first.
pub fn node_class(t: &Text, wanted: Option<&str>) -> Result<NodeClass, InputError> {
    let docs = documents(&t.name, &t.text)?;
    let classes: Vec<&Value> = (docs.iter())
        .filter(|d| get(d, &["kind"]).and_then(Value::as_str) == Some("EC2NodeClass"))
        .collect();
    let named = |d: &&&Value| get(d, &["metadata", "name"]).and_then(Value::as_str) == wanted;
    let doc = (classes.iter().find(named).or(classes.first()))
        .copied()
        .ok_or_else(|| {
            InputError::new(
                &t.name,
                "found no EC2NodeClass, expected kind: EC2NodeClass",
            )
        })?;
    let k = get(doc, &["spec", "kubelet"]);
    let int = |f: &str| -> Result<Option<i32>, InputError> {
        match k.and_then(|k| k.get(f)) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => (v.as_i64().filter(|n| *n >= 0))
                .map(|n| Some(i32::try_from(n).unwrap_or(i32::MAX)))
                .ok_or_else(|| {
                    InputError::new(
                        &t.name,
                        format!("found {v:?}, expected a whole number of 0 or more"),
                    )
                    .field(format!("spec.kubelet.{f}"))
                }),
        }
    };
    let list = |f: &str| -> Result<Option<Resources>, InputError> {
        let field = format!("spec.kubelet.{f}");
        let r = resource_list(&t.name, &field, k.and_then(|k| k.get(f)))?;
        Ok((!r.0.is_empty()).then_some(r))
    };
    Ok(NodeClass {
        ami_family: get(doc, &["spec", "amiFamily"])
            .and_then(Value::as_str)
            .map(str::to_string),
        kubelet: KubeletSettings {
            max_pods: int("maxPods")?,
            pods_per_core: int("podsPerCore")?,
            kube_reserved: list("kubeReserved")?,
            system_reserved: list("systemReserved")?,
            eviction_hard: eviction_hard(&t.name, k.and_then(|k| k.get("evictionHard")))?,
        },
    })
}

#[derive(Deserialize)]
struct KwokType {
    name: String,
    #[serde(default)]
    offerings: Vec<KwokOffering>,
    #[serde(default)]
    architecture: String,
    #[serde(default, rename = "operatingSystems")]
    operating_systems: Vec<String>,
    #[serde(default)]
    resources: BTreeMap<String, Value>,
}

#[derive(Deserialize)]
struct KwokOffering {
    #[serde(alias = "price")]
    #[serde(rename = "Price", default)]
    price: f64,
    #[serde(rename = "Requirements", alias = "requirements", default)]
    requirements: Vec<ReqDoc>,
}

/// Whole units of a milli-unit quantity (cpu stays milli).
fn whole(name: &str, milli: i64) -> i64 {
    if name == "cpu" { milli } else { milli / 1000 }
}

// Port of setDefaultOptions and newInstanceType (kwok/cloudprovider/helpers.go): labels from
// the name (size, family) and resources, 110 pods unless given, every offering available, and
// KWOK's fixed overhead (100m cpu, 10Mi memory kube-reserved).
fn kwok_type(file: &str, i: usize, d: KwokType) -> Result<InstanceType, InputError> {
    let at = |f: &str| format!("[{i}].{f}");
    let mut resources = Resources::default();
    let mut pods = 110;
    let (mut cpu_text, mut mem_text) = (String::new(), String::new());
    for (k, v) in &d.resources {
        let text = scalar(v).ok_or_else(|| {
            InputError::new(file, "found a non-scalar value, expected a quantity")
                .field(at(&format!("resources.{k}")))
        })?;
        let milli = parse_milli(&text).map_err(|e| {
            InputError::new(file, e.to_string()).field(at(&format!("resources.{k}")))
        })?;
        match k.as_str() {
            "pods" => pods = milli / 1000,
            "cpu" => cpu_text.clone_from(&text),
            "memory" => mem_text.clone_from(&text),
            _ => {}
        }
        if k != "pods" {
            resources.0.push((k.clone(), whole(k, milli)));
        }
    }
    if resources.get("cpu").is_none() || resources.get("memory").is_none() {
        return Err(
            InputError::new(file, "found no cpu or memory, expected both in resources")
                .field(at("resources")),
        );
    }
    let size = kwok_size(&d.name).unwrap_or_else(|| cpu_text.clone());
    let family = kwok_family(&d.name);
    let mut labels = vec![
        ("kubernetes.io/arch".to_string(), d.architecture.clone()),
        ("karpenter.kwok.sh/instance-size".into(), size),
        ("karpenter.kwok.sh/instance-family".into(), family),
        ("karpenter.kwok.sh/instance-cpu".into(), cpu_text),
        ("karpenter.kwok.sh/instance-memory".into(), mem_text),
    ];
    labels.extend(
        d.operating_systems
            .iter()
            .map(|o| ("kubernetes.io/os".to_string(), o.clone())),
    );
    let mut offerings = Vec::new();
    for (j, o) in d.offerings.iter().enumerate() {
        let value = |key: &str| {
            (o.requirements.iter())
                .find(|r| r.key == key)
                .and_then(|r| r.values.first().cloned())
        };
        let (Some(zone), Some(ct)) = (
            value("topology.kubernetes.io/zone"),
            value("karpenter.sh/capacity-type"),
        ) else {
            return Err(InputError::new(
                file,
                "found no zone or capacity type, expected both as requirements",
            )
            .field(at(&format!("offerings[{j}].Requirements"))));
        };
        if !o.price.is_finite() || o.price < 0.0 {
            return Err(InputError::new(
                file,
                format!("found {}, expected a price of 0 or more", o.price),
            )
            .field(at(&format!("offerings[{j}].Price"))));
        }
        offerings.push(Offering {
            zone,
            capacity_type: ct,
            price: o.price,
            available: true,
        });
    }
    Ok(InstanceType {
        name: d.name,
        labels,
        capacity: Capacity { resources, pods },
        overhead: Capacity {
            resources: Resources(vec![
                ("cpu".into(), 100),
                ("memory".into(), 10 * 1024 * 1024),
            ]),
            pods: 0,
        },
        offerings,
    })
}

// Port of parseSizeFromType (kwok/cloudprovider/helpers.go): `^\w+\.(nano|...|\d*xlarge|metal)$`.
fn kwok_size(name: &str) -> Option<String> {
    let (family, size) = name.split_once('.')?;
    if family.is_empty() || !family.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let named = ["nano", "micro", "small", "medium", "large", "metal"].contains(&size);
    let xl = size
        .strip_suffix("xlarge")
        .is_some_and(|d| d.chars().all(|c| c.is_ascii_digit()));
    (named || xl).then(|| size.to_string())
}

// Port of parseFamilyFromType (kwok/cloudprovider/helpers.go).
fn kwok_family(name: &str) -> String {
    match name.split_once(['.', '-']) {
        Some((f, _)) => f.to_string(),
        None => name.chars().take(1).collect(),
    }
}

/// The EC2NodeClass kubelet applied to a KWOK type: `maxPods`, `podsPerCore` (the smaller
/// wins), `kubeReserved` replacing KWOK's, `systemReserved` and an absolute `evictionHard`
/// `memory.available` added to the overhead.
fn apply_kubelet(it: &mut InstanceType, k: &KubeletSettings) {
    if let Some(m) = k.max_pods {
        it.capacity.pods = i64::from(m);
    }
    if let Some(ppc) = k.pods_per_core.filter(|p| *p > 0) {
        let cores = it.capacity.resources.get("cpu").unwrap_or(0) / 1000;
        it.capacity.pods = it.capacity.pods.min(i64::from(ppc) * cores);
    }
    let add = |name: &str, milli: i64, o: &mut Resources| {
        let v = whole(name, milli);
        match o.0.iter_mut().find(|(n, _)| n == name) {
            Some((_, x)) => *x += v,
            None => o.0.push((name.to_string(), v)),
        }
    };
    let mut overhead = match &k.kube_reserved {
        None => it.overhead.resources.clone(),
        Some(_) => Resources::default(),
    };
    let reserved = (k.kube_reserved.iter().chain(&k.system_reserved)).flat_map(|r| &r.0);
    for (n, v) in reserved {
        add(n, *v, &mut overhead);
    }
    if let Some((_, EvictionThreshold::Quantity(milli))) =
        (k.eviction_hard.iter().flatten()).find(|(s, _)| s == "memory.available")
    {
        add("memory", *milli, &mut overhead);
    }
    it.overhead.resources = overhead;
}

/// The KWOK catalog file.
pub fn instance_types(
    t: &Text,
    kubelet: Option<&KubeletSettings>,
) -> Result<Vec<InstanceType>, InputError> {
    let docs: Vec<KwokType> = serde_json::from_str(&t.text).map_err(|e| {
        InputError::new(
            &t.name,
            format!("{e}, expected a JSON list of InstanceTypeOptions"),
        )
        .at(e.line(), Some(e.column()))
    })?;
    if docs.len() > MAX_INSTANCE_TYPES {
        return Err(InputError::new(
            &t.name,
            format!(
                "found {} instance types, expected at most {MAX_INSTANCE_TYPES}",
                docs.len()
            ),
        ));
    }
    let mut out = Vec::new();
    for (i, d) in docs.into_iter().enumerate() {
        let mut it = kwok_type(&t.name, i, d)?;
        if let Some(k) = kubelet {
            apply_kubelet(&mut it, k);
        }
        out.push(it);
    }
    if out.is_empty() {
        return Err(InputError::new(
            &t.name,
            "found no instance type, expected at least one",
        ));
    }
    Ok(out)
}

/// A pod template: its spec and its labels.
type PodTemplate = (Value, Vec<(String, String)>);

/// The target's pod template.
fn pod_spec(target: &Text) -> Result<Option<PodTemplate>, InputError> {
    let docs = documents(&target.name, &target.text)?;
    Ok(docs.into_iter().find_map(|d| {
        let spec = get(&d, &["spec", "template", "spec"]).cloned()?;
        Some((
            spec,
            string_map(get(&d, &["spec", "template", "metadata", "labels"])),
        ))
    }))
}

// Port of LabelSelector matching (`metav1.LabelSelectorAsSelector` then `Matches`): every
// matchLabels pair and every matchExpression holds for `labels`; no selector selects nothing.
fn selects(selector: Option<&Value>, labels: &[(String, String)]) -> bool {
    let Some(sel) = selector.filter(|s| !s.is_null()) else {
        return false;
    };
    let value = |k: &str| labels.iter().find(|(l, _)| l == k).map(|(_, v)| v.as_str());
    let pairs = string_map(sel.get("matchLabels"));
    let exprs = (sel.get("matchExpressions").and_then(Value::as_sequence))
        .into_iter()
        .flatten();
    pairs.iter().all(|(k, v)| value(k) == Some(v.as_str()))
        && exprs.into_iter().all(|e| {
            let key = e.get("key").and_then(Value::as_str).unwrap_or_default();
            let values: Vec<&str> = (e.get("values").and_then(Value::as_sequence))
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            match (e.get("operator").and_then(Value::as_str), value(key)) {
                (Some("In"), Some(v)) => values.contains(&v),
                (Some("NotIn"), Some(v)) => !values.contains(&v),
                (Some("NotIn" | "DoesNotExist"), None) => true,
                (Some("Exists"), Some(_)) => true,
                _ => false,
            }
        })
}

/// The pod (anti-)affinity terms of the template that select its own pods (the workload's
/// replicas) on hostname or zone, required and preferred; terms on other pods are not modelled.
fn pod_affinity_terms(spec: &Value, labels: &[(String, String)]) -> Vec<PodAffinityTerm> {
    let mut out = Vec::new();
    for (kind, anti) in [("podAffinity", false), ("podAntiAffinity", true)] {
        let Some(a) = get(spec, &["affinity", kind]) else {
            continue;
        };
        let required = (a.get("requiredDuringSchedulingIgnoredDuringExecution"))
            .and_then(Value::as_sequence)
            .into_iter()
            .flatten()
            .map(|t| (t, None));
        let preferred = (a.get("preferredDuringSchedulingIgnoredDuringExecution"))
            .and_then(Value::as_sequence)
            .into_iter()
            .flatten()
            .filter_map(|p| {
                let w = p.get("weight").and_then(Value::as_i64);
                let w = w.and_then(|w| i32::try_from(w).ok()).unwrap_or(1);
                Some((p.get("podAffinityTerm")?, Some(w)))
            });
        for (term, preferred_weight) in required.chain(preferred) {
            let key = term
                .get("topologyKey")
                .and_then(Value::as_str)
                .unwrap_or("");
            let own_namespace = term.get("namespaceSelector").is_none()
                && term
                    .get("namespaces")
                    .and_then(Value::as_sequence)
                    .is_none_or(Vec::is_empty);
            if own_namespace && selects(term.get("labelSelector"), labels) {
                out.push(PodAffinityTerm {
                    topology_key: key.to_string(),
                    anti,
                    preferred_weight,
                });
            }
        }
    }
    out
}

// Port of GetHostPorts (pkg/scheduling/hostportusage.go): the containers' ports with a
// hostPort (an empty hostIP is 0.0.0.0; the protocol TCP by default).
fn host_ports(spec: &Value) -> Vec<HostPort> {
    (spec.get("containers").and_then(Value::as_sequence))
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("ports").and_then(Value::as_sequence))
        .flatten()
        .filter_map(|p| {
            let port = p
                .get("hostPort")
                .and_then(Value::as_i64)
                .filter(|p| *p != 0)?;
            let s = |k: &str| {
                p.get(k)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            };
            let protocol = s("protocol");
            Some(HostPort {
                ip: if s("hostIP").is_empty() {
                    "0.0.0.0".into()
                } else {
                    s("hostIP")
                },
                protocol: if protocol.is_empty() {
                    "TCP".into()
                } else {
                    protocol
                },
                port: i32::try_from(port).ok()?,
            })
        })
        .collect()
}

/// The scheduling constraints of the target's pod template (none without one).
pub fn pod_constraints(target: Option<&Text>) -> Result<PodConstraints, InputError> {
    let Some(t) = target else {
        return Ok(PodConstraints::default());
    };
    let Some((spec, labels)) = pod_spec(t)? else {
        return Ok(PodConstraints::default());
    };
    let f = &t.name;
    let na = ["affinity", "nodeAffinity"];
    let mut required = Vec::new();
    let terms = get(
        &spec,
        &[
            na[0],
            na[1],
            "requiredDuringSchedulingIgnoredDuringExecution",
            "nodeSelectorTerms",
        ],
    );
    for (i, term) in terms
        .and_then(Value::as_sequence)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let at = format!(
            "spec.template.spec.affinity.nodeAffinity.required...nodeSelectorTerms[{i}].matchExpressions"
        );
        required.push(requirements(f, &at, term.get("matchExpressions"))?);
    }
    let mut preferred = Vec::new();
    let prefs = get(
        &spec,
        &[
            na[0],
            na[1],
            "preferredDuringSchedulingIgnoredDuringExecution",
        ],
    );
    for (i, p) in prefs
        .and_then(Value::as_sequence)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let at = format!(
            "spec.template.spec.affinity.nodeAffinity.preferred...[{i}].preference.matchExpressions"
        );
        let weight = p
            .get("weight")
            .and_then(Value::as_i64)
            .and_then(|w| i32::try_from(w).ok())
            .unwrap_or(1);
        preferred.push((
            weight,
            requirements(f, &at, get(p, &["preference", "matchExpressions"]))?,
        ));
    }
    let tolerations = (spec
        .get("tolerations")
        .and_then(Value::as_sequence)
        .into_iter()
        .flatten())
    .map(|t| {
        let s = |k: &str| {
            t.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        Toleration {
            key: s("key"),
            operator: s("operator"),
            value: s("value"),
            effect: s("effect"),
        }
    })
    .collect();
    let spread = (spec
        .get("topologySpreadConstraints")
        .and_then(Value::as_sequence)
        .into_iter()
        .flatten())
    .map(|c| TopologySpread {
        topology_key: c
            .get("topologyKey")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        max_skew: c.get("maxSkew").and_then(Value::as_i64).unwrap_or(1),
        do_not_schedule: c.get("whenUnsatisfiable").and_then(Value::as_str)
            != Some("ScheduleAnyway"),
        min_domains: c.get("minDomains").and_then(Value::as_i64),
    })
    .collect();
    Ok(PodConstraints {
        node_selector: string_map(spec.get("nodeSelector")),
        required_terms: required,
        preferred_terms: preferred,
        tolerations,
        topology_spread: spread,
        pod_affinity: pod_affinity_terms(&spec, &labels),
        host_ports: host_ports(&spec),
    })
}

/// The AWS catalog built into the binary, for the EC2NodeClass's AMI family (AL2023 without
/// one) and kubelet settings.
fn builtin_catalog(class: Option<&NodeClass>) -> Result<(Vec<InstanceType>, String), InputError> {
    let family = match class.and_then(|k| k.ami_family.as_deref()) {
        None => "AL2023",
        Some(name) => name,
    };
    let ami = AmiFamily::from_name(family).ok_or_else(|| {
        InputError::new(
            "--nodeclass",
            format!(
                "found amiFamily {family:?}, expected AL2023, AL2, Bottlerocket, Windows2019, \
                 Windows2022, Windows2025 or Custom"
            ),
        )
        .field("spec.amiFamily")
    })?;
    let none = KubeletSettings::default();
    let settings = class.map_or(&none, |c| &c.kubelet);
    let types = aws_catalog::instance_types_for(ami, settings, &ProviderOptions::default());
    let source = format!(
        "the built-in AWS catalog ({} types, {family}, us-east-1 on-demand prices; spot priced \
         as on-demand, an estimate)",
        types.len()
    );
    Ok((types, source))
}

/// Every Karpenter input, validated.
pub fn read(
    texts: &KarpenterTexts,
    constraints: PodConstraints,
    daemonsets: Capacity,
    (request, source): (Resources, String),
) -> Result<KarpenterInput, InputError> {
    let node_pools = node_pools(&texts.node_pools)?;
    // The class of the NodePool the scheduler tries first (weight, then name descending).
    let first = (node_pools.iter())
        .max_by(|a, b| a.weight.cmp(&b.weight).then_with(|| a.name.cmp(&b.name)))
        .map(|np| np.node_class.as_str());
    let class = (texts.node_class.as_ref())
        .map(|t| node_class(t, first))
        .transpose()?;
    let (instance_types, catalog_source) = match &texts.instance_types {
        Some(t) => (
            instance_types(t, class.as_ref().map(|c| &c.kubelet))?,
            format!("{} (KWOK InstanceTypeOptions)", t.name),
        ),
        None => builtin_catalog(class.as_ref())?,
    };
    Ok(KarpenterInput {
        node_pools,
        instance_types,
        catalog_source,
        daemonsets,
        pod: PendingGroup {
            name: "pod".into(),
            count: 0,
            request,
            constraints,
        },
        pod_request_source: source,
        existing: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn constraints(spec: &str) -> PodConstraints {
        let text = format!(
            "kind: Deployment\nspec:\n  template:\n    metadata:\n      labels: {{app: web, tier: front}}\n    spec:\n{spec}"
        );
        pod_constraints(Some(&Text::new("target.yaml", text))).unwrap()
    }

    #[test]
    fn pod_affinity_terms_on_the_workloads_own_pods_are_kept() {
        let c = constraints(
            "      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {matchLabels: {app: web}}
            topologyKey: kubernetes.io/hostname
          - labelSelector: {matchLabels: {app: db}}
            topologyKey: kubernetes.io/hostname
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 40
            podAffinityTerm:
              labelSelector:
                matchExpressions: [{key: tier, operator: In, values: [front]}]
              topologyKey: topology.kubernetes.io/zone
        podAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {matchLabels: {app: web}}
            namespaces: [other]
            topologyKey: kubernetes.io/hostname
",
        );
        // The db term selects other pods, the podAffinity term another namespace's.
        assert_eq!(
            c.pod_affinity,
            vec![
                PodAffinityTerm {
                    topology_key: "kubernetes.io/hostname".into(),
                    anti: true,
                    preferred_weight: None,
                },
                PodAffinityTerm {
                    topology_key: "topology.kubernetes.io/zone".into(),
                    anti: true,
                    preferred_weight: Some(40),
                },
            ]
        );
    }

    #[test]
    fn host_ports_default_to_every_address_and_tcp() {
        let c = constraints(
            "      containers:
      - name: a
        ports: [{containerPort: 80}, {containerPort: 81, hostPort: 9100}]
      - name: b
        ports: [{containerPort: 53, hostPort: 53, protocol: UDP, hostIP: 10.0.0.1}]
",
        );
        assert_eq!(
            c.host_ports,
            vec![
                HostPort {
                    ip: "0.0.0.0".into(),
                    protocol: "TCP".into(),
                    port: 9100
                },
                HostPort {
                    ip: "10.0.0.1".into(),
                    protocol: "UDP".into(),
                    port: 53
                },
            ]
        );
    }

    #[test]
    fn the_node_class_the_first_node_pool_names_is_chosen() {
        let t = Text::new(
            "classes.json",
            r#"{"kind": "EC2NodeClassList", "items": [
                {"kind": "EC2NodeClass", "metadata": {"name": "a"}, "spec": {"amiFamily": "AL2"}},
                {"kind": "EC2NodeClass", "metadata": {"name": "b"}, "spec": {"amiFamily": "Bottlerocket"}}]}"#,
        );
        let family = |w| node_class(&t, w).unwrap().ami_family;
        assert_eq!(family(Some("b")).as_deref(), Some("Bottlerocket"));
        assert_eq!(family(Some("z")).as_deref(), Some("AL2"));
    }

    #[test]
    fn one_kubelet_shape_serves_both_catalogs() {
        let t = Text::new(
            "class.yaml",
            "kind: EC2NodeClass\nspec:\n  kubelet:\n    maxPods: 20\n    kubeReserved: {cpu: 200m}\n    evictionHard: {memory.available: 100Mi, nodefs.available: 10%}\n",
        );
        let k = node_class(&t, None).unwrap().kubelet;
        assert_eq!(k.max_pods, Some(20));
        assert_eq!(
            k.eviction_hard,
            Some(vec![
                (
                    "memory.available".into(),
                    EvictionThreshold::Quantity(100 * 1024 * 1024 * 1000)
                ),
                ("nodefs.available".into(), EvictionThreshold::Percent(10.0)),
            ])
        );
        // A KWOK type takes the same value: its pods, and kube-reserved replacing KWOK's.
        let mut it = InstanceType {
            name: "t".into(),
            labels: Vec::new(),
            capacity: Capacity {
                resources: Resources(vec![("cpu".into(), 4000)]),
                pods: 110,
            },
            overhead: Capacity {
                resources: Resources(vec![("cpu".into(), 100)]),
                pods: 0,
            },
            offerings: Vec::new(),
        };
        apply_kubelet(&mut it, &k);
        assert_eq!(it.capacity.pods, 20);
        assert_eq!(it.overhead.resources.get("cpu"), Some(200));
        let bad = Text::new(
            "class.yaml",
            "kind: EC2NodeClass\nspec: {kubelet: {evictionHard: {memory.available: lots}}}\n",
        );
        let e = node_class(&bad, None).unwrap_err().to_string();
        assert!(
            e.contains("spec.kubelet.evictionHard.memory.available"),
            "{e}"
        );
    }
}
