//! The instance types as the scheduler sees them (`cloudprovider.InstanceType`): requirements,
//! capacity, allocatable and offerings; which of them fit a NodeClaim's requests and
//! requirements (`fits`, `compatible`), their price order (`OrderByPrice`), `minValues`
//! (`SatisfiesMinValues`, `Truncate`) and the AWS provider's launch choice.

use std::collections::BTreeMap;

use super::requirements::{Operator, Requirements, is_in, requirement};
use crate::scenario::karpenter::InstanceType;

/// A resource list in milli-units (cpu millicores × 1, memory bytes × 1000, pods × 1000).
pub type Res = BTreeMap<String, i64>;

pub const ZONE: &str = "topology.kubernetes.io/zone";
pub const CAPACITY_TYPE: &str = "karpenter.sh/capacity-type";
pub const INSTANCE_TYPE: &str = "node.kubernetes.io/instance-type";
pub const HOSTNAME: &str = "kubernetes.io/hostname";

/// One way to buy an instance type (`cloudprovider.Offering`).
#[derive(Debug, Clone, PartialEq)]
pub struct Offer {
    pub zone: String,
    pub capacity_type: String,
    pub price: f64,
    pub available: bool,
    /// zone and capacity type as requirements.
    pub requirements: Requirements,
}

impl Offer {
    pub fn new(zone: &str, capacity_type: &str, price: f64, available: bool) -> Offer {
        let mut requirements = Requirements::default();
        requirements.add(is_in(ZONE, &[zone]));
        requirements.add(is_in(CAPACITY_TYPE, &[capacity_type]));
        Offer {
            zone: zone.to_string(),
            capacity_type: capacity_type.to_string(),
            price,
            available,
            requirements,
        }
    }
}

/// One instance type of the catalog.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub name: String,
    pub requirements: Requirements,
    pub capacity: Res,
    pub allocatable: Res,
    pub offerings: Vec<Offer>,
}

/// Milli-units of the shared type's capacity: cpu is milli already; other resources are whole.
fn milli(resources: &crate::scenario::Resources, pods: i64) -> Res {
    let mut out: Res = (resources.0.iter())
        .map(|(k, v)| {
            let m = if k == "cpu" {
                *v
            } else {
                v.saturating_mul(1000)
            };
            (k.clone(), m)
        })
        .collect();
    out.insert("pods".into(), pods.saturating_mul(1000));
    out
}

/// `InstanceType.computeAllocatable`: capacity less the overhead, never below zero.
pub fn subtract(a: &Res, b: &Res) -> Res {
    a.iter()
        .map(|(k, v)| (k.clone(), (v - b.get(k).copied().unwrap_or(0)).max(0)))
        .collect()
}

impl Item {
    // Port of newInstanceType (kwok/cloudprovider/helpers.go) and fake.NewInstanceType: the
    // labels become `In` requirements, zones and capacity types come from the available
    // offerings.
    pub fn from_instance_type(it: &InstanceType) -> Item {
        let offerings: Vec<Offer> = (it.offerings.iter())
            .map(|o| Offer::new(&o.zone, &o.capacity_type, o.price, o.available))
            .collect();
        let mut grouped: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for (k, v) in &it.labels {
            grouped.entry(k.as_str()).or_default().push(v.clone());
        }
        let mut requirements = Requirements::default();
        requirements.add(is_in(INSTANCE_TYPE, &[&it.name]));
        for (k, values) in grouped {
            requirements.add(requirement(k, Operator::In, None, &values));
        }
        let available = || offerings.iter().filter(|o| o.available);
        let zones: Vec<String> = available().map(|o| o.zone.clone()).collect();
        let types: Vec<String> = available().map(|o| o.capacity_type.clone()).collect();
        requirements.add(requirement(ZONE, Operator::In, None, &zones));
        requirements.add(requirement(CAPACITY_TYPE, Operator::In, None, &types));
        let capacity = milli(&it.capacity.resources, it.capacity.pods);
        let overhead = milli(&it.overhead.resources, it.overhead.pods);
        Item {
            name: it.name.clone(),
            requirements,
            allocatable: subtract(&capacity, &overhead),
            capacity,
            offerings,
        }
    }

    /// The cheapest available offering compatible with `reqs` (`OrderByPrice`'s price).
    pub fn cheapest(&self, reqs: &Requirements) -> f64 {
        (self.offerings.iter())
            .filter(|o| o.available && reqs.is_compatible(&o.requirements, true))
            .map(|o| o.price)
            .fold(f64::MAX, f64::min)
    }
}

// Port of resources.Fits: every requested quantity within allocatable.
pub fn res_fits(requests: &Res, allocatable: &Res) -> bool {
    requests
        .iter()
        .all(|(k, v)| *v <= allocatable.get(k).copied().unwrap_or(0))
}

pub fn merge(a: &Res, b: &Res) -> Res {
    let mut out = a.clone();
    for (k, v) in b {
        *out.entry(k.clone()).or_insert(0) += v;
    }
    out
}

// Port of compatible (pkg/controllers/provisioning/scheduling/nodeclaim.go).
pub fn compatible(it: &Item, reqs: &Requirements) -> bool {
    it.requirements.intersects(reqs).is_ok()
}

// Port of fits (pkg/controllers/provisioning/scheduling/nodeclaim.go): one allocatable group
// (no offering overrides); has an offering when any available offering is compatible.
pub fn fits(it: &Item, requests: &Res, reqs: &Requirements) -> (bool, bool) {
    let has_offering =
        (it.offerings.iter()).any(|o| o.available && reqs.is_compatible(&o.requirements, true));
    (
        has_offering && res_fits(requests, &it.allocatable),
        has_offering,
    )
}

// Port of InstanceTypes.OrderByPrice (pkg/cloudprovider/types.go): a stable sort here, where Go's
// sort.Slice leaves ties in no defined order; ties keep the name order.
pub fn order_by_price<'a>(its: &mut [&'a Item], reqs: &Requirements) {
    let mut keyed: Vec<(f64, &'a Item)> = its.iter().map(|it| (it.cheapest(reqs), *it)).collect();
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.name.cmp(&b.1.name)));
    for (slot, (_, it)) in its.iter_mut().zip(keyed) {
        *slot = it;
    }
}

/// `SatisfiesMinValues`'s answer: how many types were needed, and the keys short of their
/// `minValues` with the count they reached.
pub struct MinValues {
    pub needed: usize,
    pub short: BTreeMap<String, usize>,
}

// Port of InstanceTypes.SatisfiesMinValues (pkg/cloudprovider/types.go).
pub fn satisfies_min_values(its: &[&Item], reqs: &Requirements) -> MinValues {
    if !reqs.has_min_values() {
        return MinValues {
            needed: 0,
            short: BTreeMap::new(),
        };
    }
    let mut seen: BTreeMap<&str, std::collections::BTreeSet<String>> = BTreeMap::new();
    let mut short = BTreeMap::new();
    for (i, it) in its.iter().enumerate() {
        for r in reqs.0.values().filter(|r| r.min_values.is_some()) {
            let values = seen.entry(r.key.as_str()).or_default();
            values.extend(it.requirements.get(&r.key).values().cloned());
        }
        for (k, v) in &seen {
            let want = reqs.get(k).min_values.unwrap_or(0);
            if i64::try_from(v.len()).unwrap_or(i64::MAX) < want {
                short.insert((*k).to_string(), v.len());
            } else {
                short.remove(*k);
            }
        }
        if short.is_empty() {
            return MinValues {
                needed: i + 1,
                short,
            };
        }
    }
    MinValues {
        needed: its.len(),
        short,
    }
}

/// The error `SatisfiesMinValues` wraps.
pub fn min_values_error(short: &BTreeMap<String, usize>) -> String {
    let keys: Vec<&str> = short.keys().map(String::as_str).collect();
    format!(
        "minValues requirement is not met for label(s) (label(s)={})",
        keys.join(", ")
    )
}

/// `MaxInstanceTypes`: how many types a NodeClaim carries to the cloud provider.
pub const MAX_INSTANCE_TYPES: usize = 600;

// Port of InstanceTypes.Truncate (pkg/cloudprovider/types.go): price order, at most `max`,
// failing when the truncation breaks `minValues` (the Strict policy).
pub fn truncate<'a>(
    its: &[&'a Item],
    reqs: &Requirements,
    max: usize,
) -> Result<Vec<&'a Item>, String> {
    let mut ordered = its.to_vec();
    order_by_price(&mut ordered, reqs);
    ordered.truncate(max);
    if reqs.has_min_values() {
        let mv = satisfies_min_values(&ordered, reqs);
        if !mv.short.is_empty() {
            return Err(format!(
                "validating minValues, {}",
                min_values_error(&mv.short)
            ));
        }
    }
    Ok(ordered)
}

/// What would be launched for a NodeClaim.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    pub instance_type: String,
    pub capacity_type: String,
    pub zone: String,
    pub price: f64,
}

const GPU_RESOURCES: [&str; 5] = [
    "aws.amazon.com/neuron",
    "aws.amazon.com/neuroncore",
    "amd.com/gpu",
    "nvidia.com/gpu",
    "habana.ai/gaudi",
];

// Port of filterExoticInstanceTypes (aws/karpenter-provider-aws pkg/providers/instance):
// metal sizes and accelerators go unless nothing else is left.
fn filter_exotic<'a>(its: &[&'a Item]) -> Vec<&'a Item> {
    let generic: Vec<&Item> = (its.iter().copied())
        .filter(|it| {
            let metal = (it
                .requirements
                .get("karpenter.k8s.aws/instance-size")
                .values())
            .any(|s| s.contains("metal"));
            let gpu = GPU_RESOURCES
                .iter()
                .any(|r| it.capacity.get(*r).copied().unwrap_or(0) > 0);
            !metal && !gpu
        })
        .collect();
    if generic.is_empty() {
        its.to_vec()
    } else {
        generic
    }
}

// Port of filterUnwantedSpot (aws/karpenter-provider-aws pkg/providers/instance): with spot
// and on-demand both possible, types whose cheapest offering costs more than the cheapest
// on-demand one go.
fn filter_unwanted_spot<'a>(its: &[&'a Item], reqs: &Requirements) -> Vec<&'a Item> {
    let offers = |it: &'a Item| {
        (it.offerings.iter())
            .filter(move |o| o.available && reqs.is_compatible(&o.requirements, true))
    };
    let cheapest_od = (its.iter())
        .flat_map(|it| offers(it).filter(|o| o.capacity_type == "on-demand"))
        .map(|o| o.price)
        .fold(f64::MAX, f64::min);
    (its.iter().copied())
        .filter(|it| offers(it).map(|o| o.price).fold(f64::MAX, f64::min) <= cheapest_od)
        .collect()
}

// Port of getCapacityType (aws/karpenter-provider-aws pkg/providers/instance): reserved, then
// spot, then on-demand, whichever the requirements allow and an offering has; then the cheapest
// offering of that capacity type (CreateFleet's lowest-price strategy).
pub fn launch(its: &[&Item], reqs: &Requirements) -> Option<Launch> {
    let ct = reqs.get(CAPACITY_TYPE);
    let mixed = ct.has("spot") && ct.has("on-demand");
    let mut candidates = filter_exotic(its);
    if mixed {
        candidates = filter_unwanted_spot(&candidates, reqs);
    }
    let offers = || {
        candidates.iter().flat_map(|it| {
            (it.offerings.iter())
                .filter(|o| o.available && reqs.is_compatible(&o.requirements, true))
                .map(move |o| (*it, o))
        })
    };
    let chosen = ["reserved", "spot", "on-demand"]
        .into_iter()
        .find(|c| ct.has(c) && offers().any(|(_, o)| o.capacity_type == *c))?;
    offers()
        .filter(|(_, o)| o.capacity_type == chosen)
        .min_by(|a, b| a.1.price.total_cmp(&b.1.price))
        .map(|(it, o)| Launch {
            instance_type: it.name.clone(),
            capacity_type: o.capacity_type.clone(),
            zone: o.zone.clone(),
            price: o.price,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(name: &str, cpu: i64, offers: Vec<Offer>) -> Item {
        let mut requirements = Requirements::default();
        requirements.add(is_in(INSTANCE_TYPE, &[name]));
        let capacity: Res = [("cpu".to_string(), cpu), ("pods".to_string(), 110_000)].into();
        Item {
            name: name.into(),
            requirements,
            allocatable: capacity.clone(),
            capacity,
            offerings: offers,
        }
    }

    #[test]
    fn order_by_price_uses_the_cheapest_compatible_available_offering() {
        let a = item("a", 1000, vec![Offer::new("z1", "on-demand", 2.0, true)]);
        let b = item(
            "b",
            1000,
            vec![
                Offer::new("z1", "on-demand", 3.0, true),
                Offer::new("z1", "spot", 1.0, false),
            ],
        );
        let mut its = vec![&b, &a];
        order_by_price(&mut its, &Requirements::default());
        assert_eq!(its[0].name, "a");
    }

    #[test]
    fn launch_prefers_spot_to_on_demand_when_both_are_allowed() {
        let a = item(
            "a",
            1000,
            vec![
                Offer::new("z1", "on-demand", 2.0, true),
                Offer::new("z1", "spot", 1.0, true),
            ],
        );
        let mut reqs = Requirements::default();
        reqs.add(is_in(CAPACITY_TYPE, &["spot", "on-demand"]));
        assert_eq!(launch(&[&a], &reqs).unwrap().capacity_type, "spot");
        let mut od = Requirements::default();
        od.add(is_in(CAPACITY_TYPE, &["on-demand"]));
        assert_eq!(launch(&[&a], &od).unwrap().capacity_type, "on-demand");
    }

    #[test]
    fn unwanted_spot_dearer_than_the_cheapest_on_demand_is_dropped() {
        let a = item("a", 1000, vec![Offer::new("z1", "on-demand", 1.0, true)]);
        let b = item("b", 1000, vec![Offer::new("z1", "spot", 1.5, true)]);
        let mut reqs = Requirements::default();
        reqs.add(is_in(CAPACITY_TYPE, &["spot", "on-demand"]));
        let l = launch(&[&a, &b], &reqs).unwrap();
        assert_eq!(
            (l.instance_type.as_str(), l.capacity_type.as_str()),
            ("a", "on-demand")
        );
    }

    #[test]
    fn truncate_fails_when_min_values_break() {
        let a = item("a", 1000, vec![Offer::new("z1", "on-demand", 1.0, true)]);
        let b = item("b", 1000, vec![Offer::new("z1", "on-demand", 2.0, true)]);
        let mut reqs = Requirements::default();
        reqs.add(requirement(INSTANCE_TYPE, Operator::Exists, Some(2), &[]));
        assert!(truncate(&[&a, &b], &reqs, 1).is_err());
        assert_eq!(truncate(&[&b, &a], &reqs, 2).unwrap()[0].name, "a");
    }
}
