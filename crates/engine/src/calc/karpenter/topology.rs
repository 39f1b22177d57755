//! Topology spread over zones and hostnames (`topology.go`, `topologygroup.go`): each spread
//! constraint of a workload is a group counting its pods per domain; a NodeClaim or node may
//! take the pod only in a domain that keeps the skew within `maxSkew`.

use std::collections::BTreeMap;

use super::catalog::{HOSTNAME, ZONE};
use super::pod::Pod;
use super::requirements::{Operator, Requirement, Requirements, is_in, requirement};

/// One spread constraint of one workload (`TopologyGroup`).
#[derive(Debug, Clone)]
pub struct Group {
    pub workload: usize,
    pub key: String,
    pub max_skew: i64,
    pub min_domains: Option<i64>,
    /// Pods of the workload per domain; zones are registered up front (count 0), hostnames as
    /// NodeClaims open.
    pub domains: BTreeMap<String, i64>,
}

/// Every group of the solve.
#[derive(Debug, Clone, Default)]
pub struct Topology {
    pub groups: Vec<Group>,
}

impl Group {
    // Port of TopologyGroup.domainMinCount (topologygroup.go).
    fn domain_min_count(&self, pod_domains: &Requirement) -> i64 {
        if self.key == HOSTNAME {
            return 0;
        }
        let supported: Vec<i64> = (self.domains.iter())
            .filter(|(d, _)| pod_domains.has(d))
            .map(|(_, c)| *c)
            .collect();
        let n = i64::try_from(supported.len()).unwrap_or(i64::MAX);
        if self.min_domains.is_some_and(|m| n < m) {
            return 0;
        }
        supported.into_iter().min().unwrap_or(i64::from(i32::MAX))
    }

    // Port of TopologyGroup.nextDomainTopologySpread (topologygroup.go); where Go iterates a
    // map, domains are taken in name order, so a tie goes to the first name.
    fn next_domain(&self, pod_domains: &Requirement, node_domains: &Requirement) -> Requirement {
        let min = self.domain_min_count(pod_domains);
        if self.key == HOSTNAME
            && node_domains.operator() == Operator::In
            && node_domains.len() == 1
        {
            let host = node_domains.values().next().cloned().unwrap_or_default();
            let count = self.domains.get(&host).copied().unwrap_or(0) + 1;
            return if count <= self.max_skew {
                is_in(&self.key, &[&host])
            } else {
                requirement(&self.key, Operator::DoesNotExist, None, &[])
            };
        }
        let mut best: Option<(&String, i64)> = None;
        for (domain, count) in &self.domains {
            if !node_domains.has(domain) {
                continue;
            }
            let count = count + 1;
            if count - min <= self.max_skew && best.is_none_or(|(_, c)| count < c) {
                best = Some((domain, count));
            }
        }
        match best {
            Some((d, _)) => is_in(&self.key, &[d]),
            None => requirement(&self.key, Operator::DoesNotExist, None, &[]),
        }
    }
}

impl Topology {
    /// One group per spread constraint on zone or hostname of each workload, with `zones` the
    /// domains the NodePools' instance types offer.
    pub fn new(
        workloads: &[&crate::scenario::karpenter::PodConstraints],
        zones: &[String],
    ) -> Topology {
        let mut groups = Vec::new();
        for (w, c) in workloads.iter().enumerate() {
            for t in &c.topology_spread {
                if t.topology_key != ZONE && t.topology_key != HOSTNAME {
                    continue;
                }
                let domains = if t.topology_key == ZONE {
                    zones.iter().map(|z| (z.clone(), 0)).collect()
                } else {
                    BTreeMap::new()
                };
                groups.push(Group {
                    workload: w,
                    key: t.topology_key.clone(),
                    max_skew: t.max_skew.max(1),
                    min_domains: t.min_domains,
                    domains,
                });
            }
        }
        Topology { groups }
    }

    /// The groups that apply to `pod` now: its workload's, for constraints it still carries.
    fn groups_for<'a>(&'a self, pod: &'a Pod) -> impl Iterator<Item = &'a Group> + 'a {
        self.groups.iter().filter(move |g| {
            g.workload == pod.group
                && pod
                    .constraints
                    .topology_spread
                    .iter()
                    .any(|t| t.topology_key == g.key)
        })
    }

    // Port of Topology.AddRequirements (topology.go): the domain each group allows the pod on a
    // node or NodeClaim with `node` requirements.
    pub fn add_requirements(
        &self,
        pod: &Pod,
        strict: &Requirements,
        node: &Requirements,
    ) -> Result<Requirements, String> {
        let mut out = Requirements::default();
        for g in self.groups_for(pod) {
            let pod_domains = strict.get(&g.key);
            let node_domains = node.get(&g.key);
            let next = g.next_domain(&pod_domains, &node_domains);
            if next.operator() == Operator::DoesNotExist {
                return Err(format!(
                    "unsatisfiable topology constraint for topology spread, key={} (counts = {:?}, podDomains = {pod_domains}, nodeDomains = {node_domains})",
                    g.key, g.domains
                ));
            }
            out.add(next);
        }
        Ok(out)
    }

    // Port of Topology.Record (topology.go): the pod counts in the one domain the node's
    // requirements leave.
    pub fn record(&mut self, pod: &Pod, node: &Requirements) {
        let keys: Vec<String> = (pod.constraints.topology_spread.iter())
            .map(|t| t.topology_key.clone())
            .collect();
        for g in self.groups.iter_mut() {
            if g.workload != pod.group || !keys.contains(&g.key) {
                continue;
            }
            let r = node.get(&g.key);
            if r.operator() == Operator::In
                && r.len() == 1
                && let Some(d) = r.values().next()
            {
                *g.domains.entry(d.clone()).or_insert(0) += 1;
            }
        }
    }
}
