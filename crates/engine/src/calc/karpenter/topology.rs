//! Topology over zones and hostnames (`topology.go`, `topologygroup.go`): each spread
//! constraint, pod affinity term and pod anti-affinity term of a workload is a group counting
//! its pods per domain; a NodeClaim or node may take the pod only in a domain the group allows
//! (`nextDomainTopologySpread`, `nextDomainAffinity`, `nextDomainAntiAffinity`).

use std::collections::BTreeMap;

use super::catalog::{HOSTNAME, ZONE};
use super::pod::Pod;
use super::requirements::{Operator, Requirement, Requirements, is_in, requirement};

/// What a group enforces (`TopologyType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Spread,
    PodAffinity,
    PodAntiAffinity,
}

/// One constraint of one workload (`TopologyGroup`). The workload's pods are the ones it
/// selects (the pending pods' terms select their own workload).
#[derive(Debug, Clone)]
pub struct Group {
    pub kind: Kind,
    pub workload: usize,
    pub key: String,
    pub max_skew: i64,
    pub min_domains: Option<i64>,
    /// Pods of the workload per domain; zones are registered up front (count 0), hostnames as
    /// nodes and NodeClaims appear. A domain of count 0 is one of `emptyDomains`.
    pub domains: BTreeMap<String, i64>,
}

/// Every group of the solve.
#[derive(Debug, Clone, Default)]
pub struct Topology {
    pub groups: Vec<Group>,
}

fn does_not_exist(key: &str) -> Requirement {
    requirement(key, Operator::DoesNotExist, None, &[])
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

impl Group {
    // Port of TopologyGroup.anyCompatiblePodDomain (topologygroup.go).
    fn any_compatible_pod_domain(&self, pod_domains: &Requirement) -> bool {
        (self.domains.iter()).any(|(d, c)| pod_domains.has(d) && *c > 0)
    }

    fn all_empty(&self) -> bool {
        self.domains.values().all(|c| *c == 0)
    }

    // Port of TopologyGroup.nextDomainAffinity (topologygroup.go): a domain that already holds
    // a selected pod; a self-selecting first pod bootstraps a domain (Go picks one at random
    // from a map: here the first by name).
    fn next_domain_affinity(
        &self,
        pod_domains: &Requirement,
        node_domains: &Requirement,
    ) -> Requirement {
        let mut options = does_not_exist(&self.key);
        let bootstrap = self.all_empty() || !self.any_compatible_pod_domain(pod_domains);
        if self.key == HOSTNAME
            && node_domains.operator() == Operator::In
            && node_domains.len() == 1
        {
            let host = node_domains.values().next().cloned().unwrap_or_default();
            if pod_domains.has(&host)
                && (self.domains.get(&host).copied().unwrap_or(0) > 0 || bootstrap)
            {
                options.insert(&host);
            }
            return options;
        }
        for (d, c) in &self.domains {
            if pod_domains.has(d) && *c > 0 && node_domains.has(d) {
                options.insert(d);
            }
        }
        if !options.is_empty() || !bootstrap {
            return options;
        }
        let both = pod_domains.intersection(node_domains);
        if let Some(d) = self.domains.keys().find(|d| both.has(d)) {
            options.insert(d);
        }
        if let Some(d) = self.domains.keys().find(|d| pod_domains.has(d)) {
            options.insert(d);
        }
        options
    }

    // Port of TopologyGroup.nextDomainAntiAffinity (topologygroup.go): the empty domains the
    // node may be in.
    fn next_domain_anti_affinity(
        &self,
        pod_domains: &Requirement,
        node_domains: &Requirement,
    ) -> Requirement {
        let mut options = does_not_exist(&self.key);
        if self.key == HOSTNAME
            && node_domains.operator() == Operator::In
            && node_domains.len() == 1
        {
            let host = node_domains.values().next().cloned().unwrap_or_default();
            if self.domains.get(&host).copied().unwrap_or(0) == 0 {
                options.insert(&host);
            }
            return options;
        }
        for (d, c) in &self.domains {
            if *c == 0 && node_domains.has(d) && pod_domains.has(d) {
                options.insert(d);
            }
        }
        options
    }

    // Port of TopologyGroup.Get (topologygroup.go).
    fn get(&self, pod_domains: &Requirement, node_domains: &Requirement) -> Requirement {
        match self.kind {
            Kind::Spread => self.next_domain(pod_domains, node_domains),
            Kind::PodAffinity => self.next_domain_affinity(pod_domains, node_domains),
            Kind::PodAntiAffinity => self.next_domain_anti_affinity(pod_domains, node_domains),
        }
    }

    /// Whether `pod` still carries the constraint this group stands for (`IsOwnedBy`: a
    /// relaxed constraint no longer binds the pod).
    fn owned_by(&self, pod: &Pod) -> bool {
        if self.workload != pod.group {
            return false;
        }
        let c = &pod.constraints;
        match self.kind {
            Kind::Spread => c.topology_spread.iter().any(|t| t.topology_key == self.key),
            Kind::PodAffinity | Kind::PodAntiAffinity => {
                let anti = self.kind == Kind::PodAntiAffinity;
                (c.pod_affinity.iter()).any(|t| t.anti == anti && t.topology_key == self.key)
            }
        }
    }
}

impl Topology {
    // Port of newForTopologies and newForAffinities (topology.go): one group per spread
    // constraint and per pod (anti-)affinity term, required and preferred alike, on zone or
    // hostname, of each workload; `zones` are the domains the NodePools' types offer.
    pub fn new(
        workloads: &[&crate::scenario::karpenter::PodConstraints],
        zones: &[String],
    ) -> Topology {
        let mut groups = Vec::new();
        for (w, c) in workloads.iter().enumerate() {
            let spreads = (c.topology_spread.iter()).map(|t| {
                (
                    Kind::Spread,
                    &t.topology_key,
                    t.max_skew.max(1),
                    t.min_domains,
                )
            });
            let terms = c.pod_affinity.iter().map(|t| {
                let kind = if t.anti {
                    Kind::PodAntiAffinity
                } else {
                    Kind::PodAffinity
                };
                (kind, &t.topology_key, i64::from(i32::MAX), None)
            });
            for (kind, key, max_skew, min_domains) in spreads.chain(terms) {
                if key != ZONE && key != HOSTNAME {
                    continue;
                }
                if groups
                    .iter()
                    .any(|g: &Group| g.workload == w && g.kind == kind && &g.key == key)
                {
                    continue; // the same selector and key: one group (`TopologyGroup.Hash`)
                }
                let domains = if key == ZONE {
                    zones.iter().map(|z| (z.clone(), 0)).collect()
                } else {
                    BTreeMap::new()
                };
                groups.push(Group {
                    kind,
                    workload: w,
                    key: key.clone(),
                    max_skew,
                    min_domains,
                    domains,
                });
            }
        }
        Topology { groups }
    }

    // Port of Topology.Register (topology.go): every group on `key` knows the domain.
    pub fn register(&mut self, key: &str, domain: &str) {
        for g in self.groups.iter_mut().filter(|g| g.key == key) {
            g.domains.entry(domain.to_string()).or_insert(0);
        }
    }

    // Port of countDomains (topology.go) for a node already in the cluster: the workload's
    // pods on it count in its hostname and zone.
    pub fn count_existing(&mut self, workload: usize, labels: &Requirements, pods: i64) {
        for g in self.groups.iter_mut().filter(|g| g.workload == workload) {
            let r = labels.get(&g.key);
            if r.operator() == Operator::In
                && r.len() == 1
                && let Some(d) = r.values().next()
            {
                *g.domains.entry(d.clone()).or_insert(0) += pods;
            }
        }
    }

    // Port of Topology.AddRequirements (topology.go): the domains each group the pod owns
    // allows it on a node or NodeClaim with `node` requirements.
    pub fn add_requirements(
        &self,
        pod: &Pod,
        strict: &Requirements,
        node: &Requirements,
    ) -> Result<Requirements, String> {
        let mut out = Requirements::default();
        for g in self.groups.iter().filter(|g| g.owned_by(pod)) {
            let pod_domains = strict.get(&g.key);
            let node_domains = node.get(&g.key);
            let next = g.get(&pod_domains, &node_domains);
            if next.operator() == Operator::DoesNotExist {
                let what = match g.kind {
                    Kind::Spread => "topology spread",
                    Kind::PodAffinity => "pod affinity",
                    Kind::PodAntiAffinity => "pod anti-affinity",
                };
                return Err(format!(
                    "unsatisfiable topology constraint for {what}, key={} (counts = {:?}, podDomains = {pod_domains}, nodeDomains = {node_domains})",
                    g.key, g.domains
                ));
            }
            out.add(next);
        }
        Ok(out)
    }

    // Port of Topology.Record (topology.go): every group that selects the pod counts it: an
    // anti-affinity group in every domain the node may still be in, the others only once the
    // node's requirements leave one domain.
    pub fn record(&mut self, pod: &Pod, node: &Requirements) {
        for g in self.groups.iter_mut().filter(|g| g.workload == pod.group) {
            let r = node.get(&g.key);
            if r.operator() != Operator::In {
                continue;
            }
            if g.kind == Kind::PodAntiAffinity {
                for d in r.values() {
                    *g.domains.entry(d.clone()).or_insert(0) += 1;
                }
            } else if r.len() == 1
                && let Some(d) = r.values().next()
            {
                *g.domains.entry(d.clone()).or_insert(0) += 1;
            }
        }
    }
}
