//! The provisioning scheduler (`scheduler.go`, `queue.go`): the Pending pods in cpu-then-memory
//! order, each placed on an existing node, else on a NodeClaim opened in this batch, else on a
//! new NodeClaim of the heaviest NodePool that takes it; a pod that fails is relaxed and
//! retried until the queue stops changing.

use std::collections::BTreeMap;

use super::catalog::{Item, Res, merge, res_fits};
use super::nodeclaim::{NodeClaim, Template, filter_instance_types};
use super::pod::{Pod, host_ports_conflict, pod_requirements, relax, tolerates_pod};
use super::requirements::{Requirements, is_in, well_known};
use super::topology::Topology;
use crate::scenario::karpenter::{HostPort, NodePool, PodConstraints};
use crate::scenario::node_groups::Taint;

/// A node already in the cluster (or launched by an earlier batch).
#[derive(Debug, Clone)]
pub struct ExistingNode {
    pub name: String,
    pub labels: Vec<(String, String)>,
    pub taints: Vec<Taint>,
    /// What NodePool limits count (`node.Capacity()`).
    pub capacity: Res,
    pub allocatable: Res,
    /// What its pods (DaemonSets included) request now.
    pub requested: Res,
    /// The host ports its pods hold (`HostPortUsage`).
    pub host_ports: Vec<HostPort>,
    /// Pods of workload 0 (the HPA's) already on it: they count in its topology.
    pub workload_pods: i64,
    /// Pending pods placed on it by this solve.
    pub pods: Vec<usize>,
}

/// A DaemonSet's pod: requests and constraints.
#[derive(Debug, Clone)]
pub struct Daemon {
    pub requests: Res,
    pub constraints: PodConstraints,
}

/// Everything `Solve` is given.
pub struct Problem<'a> {
    pub node_pools: &'a [NodePool],
    pub catalog: &'a [Item],
    pub daemons: &'a [Daemon],
    pub existing: Vec<ExistingNode>,
    pub pods: Vec<Pod>,
}

/// What `Solve` returns (`Results`).
pub struct Results {
    pub templates: Vec<Template>,
    pub claims: Vec<NodeClaim>,
    pub existing: Vec<ExistingNode>,
    /// (pod index, Karpenter's error), in pod order.
    pub errors: Vec<(usize, String)>,
    pub pods: Vec<Pod>,
    /// NodePools skipped because their requirements left no instance type.
    pub skipped_pools: Vec<String>,
}

// Port of NodeClaimTemplate construction (NewNodeClaimTemplate, nodeclaimtemplate.go): the
// NodePool's requirements, its labels, and the nodepool label.
fn template_requirements(np: &NodePool) -> Requirements {
    let mut r = Requirements::default();
    for s in &np.requirements {
        r.add(super::pod::selector_requirement(s));
    }
    r.add_all(&Requirements::from_labels(&np.labels));
    r.add(is_in("karpenter.sh/nodepool", &[&np.name]));
    r
}

// Port of isDaemonPodCompatible (scheduler.go): the DaemonSet tolerates the NodePool's taints
// (PreferNoSchedule ones always) and its required terms fit the NodePool and the type.
fn daemon_compatible(np: &Template, it: &Item, d: &Daemon) -> bool {
    let mut c = d.constraints.clone();
    let _ = relax_prefer_no_schedule(&mut c);
    if tolerates_pod(&np.taints, &c.tolerations).is_err() {
        return false;
    }
    loop {
        let reqs = pod_requirements(&c, true);
        if np.requirements.is_compatible(&reqs, true) && it.requirements.intersects(&reqs).is_ok() {
            return true;
        }
        if c.required_terms.len() <= 1 {
            return false;
        }
        c.required_terms.remove(0);
    }
}

fn relax_prefer_no_schedule(c: &mut PodConstraints) -> Option<String> {
    let mut only_taints = PodConstraints {
        tolerations: std::mem::take(&mut c.tolerations),
        ..PodConstraints::default()
    };
    let said = relax(&mut only_taints, true);
    c.tolerations = only_taints.tolerations;
    said
}

// Port of buildDaemonOverheadGroups (scheduler.go): instance types grouped by the set of
// DaemonSets compatible with them, in first-seen order (Go's map order is undefined).
fn daemon_groups(t: &Template, catalog: &[Item], daemons: &[Daemon]) -> Vec<(Vec<usize>, Res)> {
    let mut groups: Vec<(Vec<bool>, Vec<usize>, Res)> = Vec::new();
    for &i in &t.instance_types {
        let Some(it) = catalog.get(i) else { continue };
        let key: Vec<bool> = (daemons.iter())
            .map(|d| daemon_compatible(t, it, d))
            .collect();
        if let Some(g) = groups.iter_mut().find(|g| g.0 == key) {
            g.1.push(i);
            continue;
        }
        let overhead = (daemons.iter().zip(&key))
            .filter(|(_, k)| **k)
            .fold(Res::new(), |acc, (d, _)| merge(&acc, &d.requests));
        groups.push((key, vec![i], overhead));
    }
    groups.into_iter().map(|(_, t, o)| (t, o)).collect()
}

// Port of NewScheduler (scheduler.go) with OrderByWeight (pkg/utils/nodepool): heaviest
// NodePool first, equal weights by name descending; a NodePool whose requirements leave no
// instance type is skipped.
fn templates(p: &Problem<'_>) -> (Vec<Template>, Vec<String>) {
    let mut pools: Vec<&NodePool> = p.node_pools.iter().collect();
    pools.sort_by(|a, b| b.weight.cmp(&a.weight).then_with(|| b.name.cmp(&a.name)));
    let all: Vec<usize> = (0..p.catalog.len()).collect();
    let (mut out, mut skipped) = (Vec::new(), Vec::new());
    for np in pools {
        let requirements = template_requirements(np);
        let everything = vec![(all.clone(), Res::new())];
        let empty = Res::new();
        match filter_instance_types(p.catalog, &all, &everything, &requirements, &empty, &empty) {
            Ok(its) => {
                let mut t = Template {
                    node_pool: np.name.clone(),
                    weight: np.weight,
                    requirements,
                    taints: np.taints.clone(),
                    instance_types: its,
                    daemon_groups: Vec::new(),
                };
                t.daemon_groups = daemon_groups(&t, p.catalog, p.daemons);
                out.push(t);
            }
            Err(_) => skipped.push(np.name.clone()),
        }
    }
    (out, skipped)
}

// Port of byCPUAndMemoryDescending (queue.go): cpu, then memory, descending; then the pods'
// order (creation time, UID).
fn queue_order(pods: &[Pod]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..pods.len()).collect();
    let get = |i: usize, k: &str| {
        (pods.get(i))
            .and_then(|p| p.requests.get(k).copied())
            .unwrap_or(0)
    };
    order.sort_by(|&a, &b| {
        get(b, "cpu")
            .cmp(&get(a, "cpu"))
            .then_with(|| get(b, "memory").cmp(&get(a, "memory")))
            .then_with(|| a.cmp(&b))
    });
    order
}

struct State<'a> {
    catalog: &'a [Item],
    templates: Vec<Template>,
    claims: Vec<NodeClaim>,
    existing: Vec<ExistingNode>,
    topology: Topology,
    /// NodePool limits left (`remainingResources`).
    remaining: BTreeMap<String, Res>,
    next_id: usize,
}

/// The requirements of an existing node: its labels and its hostname (`NewExistingNode`).
pub fn existing_requirements(n: &ExistingNode) -> Requirements {
    let mut reqs = Requirements::from_labels(&n.labels);
    reqs.add(is_in(super::catalog::HOSTNAME, &[hostname(n)]));
    reqs
}

// Port of StateNode.HostName (state/statenode.go): the hostname label, else the node's name.
pub fn hostname(n: &ExistingNode) -> &str {
    (n.labels.iter())
        .find(|(k, _)| k == super::catalog::HOSTNAME)
        .map_or(&n.name, |(_, v)| v)
}

// Port of ExistingNode.CanAdd and tryVolumeAlternative (existingnode.go), in upstream's order:
// taints, host ports, room for the requests, the node's labels against the pod's requirements,
// then topology.
fn existing_can_add(n: &ExistingNode, topo: &Topology, pod: &Pod) -> Result<Requirements, String> {
    tolerates_pod(&n.taints, &pod.constraints.tolerations)?;
    host_ports_conflict(&n.host_ports, &pod.constraints.host_ports)?;
    if !res_fits(&merge(&n.requested, &pod.requests), &n.allocatable) {
        return Err("exceeds node resources".into());
    }
    let mut reqs = existing_requirements(n);
    let pod_reqs = pod_requirements(&pod.constraints, false);
    reqs.compatible(&pod_reqs, false)?;
    reqs.add_all(&pod_reqs);
    let strict = pod_requirements(&pod.constraints, true);
    let t = topo.add_requirements(pod, &strict, &reqs)?;
    reqs.compatible(&t, false)?;
    reqs.add_all(&t);
    Ok(reqs)
}

// Port of subtractMax (scheduler.go): the largest capacity of the NodeClaim's types, taken from
// the NodePool's remaining limits (keys the capacity lacks, like `nodes`, stay).
fn subtract_max(remaining: &Res, catalog: &[Item], its: &[usize]) -> Res {
    remaining
        .iter()
        .map(|(k, v)| {
            let max = (its.iter())
                .filter_map(|i| catalog.get(*i))
                .map(|it| it.capacity.get(k).copied().unwrap_or(0))
                .max()
                .unwrap_or(0);
            (k.clone(), v - max)
        })
        .collect()
}

// Port of filterByRemainingResources (scheduler.go).
fn within_limits(it: &Item, remaining: &Res) -> bool {
    remaining
        .iter()
        .all(|(k, v)| it.capacity.get(k).copied().unwrap_or(0) <= *v)
}

impl State<'_> {
    // Port of Scheduler.addToExistingNode (scheduler.go): the first node that takes the pod.
    fn add_to_existing(&mut self, pi: usize, pod: &Pod) -> bool {
        for n in self.existing.iter_mut() {
            if let Ok(reqs) = existing_can_add(n, &self.topology, pod) {
                n.requested = merge(&n.requested, &pod.requests);
                n.host_ports
                    .extend(pod.constraints.host_ports.iter().cloned());
                n.pods.push(pi);
                self.topology.record(pod, &reqs);
                return true;
            }
        }
        false
    }

    // Port of Scheduler.addToInflightNode (scheduler.go): NodeClaims with the fewest pods first.
    fn add_to_inflight(&mut self, pi: usize, pod: &Pod) -> bool {
        self.claims.sort_by_key(|c| c.pods.len());
        for claim in self.claims.iter_mut() {
            let Some(t) = self.templates.get(claim.template) else {
                continue;
            };
            if let Ok(fit) = claim.can_add(t, self.catalog, &self.topology, pod) {
                claim.add(pi, pod, fit, &mut self.topology);
                return true;
            }
        }
        false
    }

    // Port of Scheduler.addToNewNodeClaim (scheduler.go): the first template, by weight, whose
    // new NodeClaim takes the pod within the NodePool's limits.
    fn add_to_new(&mut self, pi: usize, pod: &Pod) -> Result<(), String> {
        let mut errs = Vec::new();
        for (ti, t) in self.templates.iter().enumerate() {
            let mut its = t.instance_types.clone();
            if let Some(rem) = self.remaining.get(&t.node_pool) {
                if rem.get("nodes") == Some(&0) {
                    errs.push(format!(
                        "node limits have been exhausted for nodepool (NodePool={})",
                        t.node_pool
                    ));
                    continue;
                }
                its.retain(|i| {
                    self.catalog
                        .get(*i)
                        .is_some_and(|it| within_limits(it, rem))
                });
                if its.is_empty() {
                    errs.push(format!(
                        "all available instance types exceed limits for nodepool (NodePool={})",
                        t.node_pool
                    ));
                    continue;
                }
            }
            self.next_id += 1;
            let mut claim = NodeClaim::new(ti, t, its, self.next_id);
            match claim.can_add(t, self.catalog, &self.topology, pod) {
                Ok(fit) => {
                    self.topology
                        .register(super::catalog::HOSTNAME, &claim.hostname);
                    claim.add(pi, pod, fit, &mut self.topology);
                    let pool = t.node_pool.clone();
                    if let Some(rem) = self.remaining.get(&pool) {
                        let left = subtract_max(rem, self.catalog, &claim.instance_types);
                        self.remaining.insert(pool, left);
                    }
                    self.claims.push(claim);
                    return Ok(());
                }
                Err(e) => errs.push(e),
            }
        }
        Err(errs.join("; "))
    }

    // Port of Scheduler.add (scheduler.go).
    fn add(&mut self, pi: usize, pod: &Pod) -> Result<(), String> {
        if self.add_to_existing(pi, pod) || self.add_to_inflight(pi, pod) {
            return Ok(());
        }
        if self.templates.is_empty() {
            return Err("nodepool requirements filtered out all available instance types".into());
        }
        self.add_to_new(pi, pod)
    }
}

// Port of updateRemainingResources (scheduler.go): each NodePool's limits (milli-units;
// `nodes` × 1000) less the capacity of its existing nodes.
fn limits(p: &Problem<'_>) -> BTreeMap<String, Res> {
    let mut out = BTreeMap::new();
    for np in p.node_pools {
        let Some(l) = &np.limits else { continue };
        let mut rem: Res = l.0.iter().cloned().collect();
        for n in &p.existing {
            if n.labels
                .iter()
                .any(|(k, v)| k == "karpenter.sh/nodepool" && v == &np.name)
            {
                for (k, v) in rem.iter_mut() {
                    let used = if k == "nodes" {
                        1000
                    } else {
                        n.capacity.get(k).copied().unwrap_or(0)
                    };
                    *v -= used;
                }
            }
        }
        if let Some(n) = rem.get_mut("nodes") {
            *n /= 1000;
        }
        out.insert(np.name.clone(), rem);
    }
    out
}

/// The zones the templates' instance types offer, for zonal spread.
fn zones(templates: &[Template], catalog: &[Item]) -> Vec<String> {
    let mut z: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    for t in templates {
        let allowed = t.requirements.get(super::catalog::ZONE);
        for &i in &t.instance_types {
            for o in (catalog.get(i).map_or(&[][..], |it| &it.offerings[..]))
                .iter()
                .filter(|o| o.available && allowed.has(&o.zone))
            {
                z.insert(o.zone.clone());
            }
        }
    }
    z.into_iter().collect()
}

// Port of Scheduler.Solve and trySchedule (scheduler.go): pop in queue order; a pod that fails
// is relaxed and retried, else requeued; the queue stops when a pod comes round with nothing
// scheduled since it was pushed.
pub fn solve(mut p: Problem<'_>) -> Results {
    let (templates, skipped_pools) = templates(&p);
    let tolerate_pns =
        (p.node_pools.iter()).any(|np| np.taints.iter().any(|t| t.effect == "PreferNoSchedule"));
    let workloads = workload_constraints(&p.pods);
    let refs: Vec<&PodConstraints> = workloads.iter().collect();
    let mut topology = Topology::new(&refs, &zones(&templates, p.catalog));
    // NewExistingNode registers each node's hostname; countDomains counts the workload's pods.
    for n in &p.existing {
        topology.register(super::catalog::HOSTNAME, hostname(n));
        topology.count_existing(0, &existing_requirements(n), n.workload_pods);
    }
    let mut st = State {
        catalog: p.catalog,
        remaining: limits(&p),
        templates,
        claims: Vec::new(),
        existing: std::mem::take(&mut p.existing),
        topology,
        next_id: 0,
    };
    let mut pods = std::mem::take(&mut p.pods);
    let mut queue: std::collections::VecDeque<usize> = queue_order(&pods).into();
    let mut last_len: BTreeMap<usize, usize> = BTreeMap::new();
    let mut errors: BTreeMap<usize, String> = BTreeMap::new();
    while let Some(&pi) = queue.front() {
        if last_len.get(&pi) == Some(&queue.len()) {
            break;
        }
        queue.pop_front();
        let Some(pod) = pods.get_mut(pi) else { break };
        match try_schedule(&mut st, pi, pod, tolerate_pns) {
            Ok(()) => {
                errors.remove(&pi);
            }
            Err(e) => {
                errors.insert(pi, e);
                queue.push_back(pi);
                last_len.insert(pi, queue.len());
            }
        }
    }
    for c in st.claims.iter_mut() {
        if let Some(t) = st.templates.get(c.template) {
            c.finalize(t);
        }
    }
    Results {
        templates: st.templates,
        claims: st.claims,
        existing: st.existing,
        errors: errors.into_iter().collect(),
        pods,
        skipped_pools,
    }
}

// Port of Scheduler.trySchedule (scheduler.go).
fn try_schedule(
    st: &mut State<'_>,
    pi: usize,
    pod: &mut Pod,
    tolerate_pns: bool,
) -> Result<(), String> {
    loop {
        match st.add(pi, pod) {
            Ok(()) => return Ok(()),
            Err(e) => {
                let mut relaxed = PodConstraints::clone(&pod.constraints);
                if relax(&mut relaxed, tolerate_pns).is_none() {
                    return Err(e);
                }
                pod.constraints = std::sync::Arc::new(relaxed);
            }
        }
    }
}

/// Each workload's constraints as first seen (spread groups are per workload).
fn workload_constraints(pods: &[Pod]) -> Vec<PodConstraints> {
    let mut seen: BTreeMap<usize, PodConstraints> = BTreeMap::new();
    for p in pods {
        seen.entry(p.group)
            .or_insert_with(|| PodConstraints::clone(&p.constraints));
    }
    let n = pods.iter().map(|p| p.group + 1).max().unwrap_or(0);
    (0..n)
        .map(|g| seen.remove(&g).unwrap_or_default())
        .collect()
}

/// Whether `key` is one a pod may require without a NodePool defining it.
pub fn allowed_undefined(key: &str) -> bool {
    well_known(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::karpenter::fake;
    use crate::scenario::Resources;
    use crate::scenario::karpenter::{SelectorRequirement, TopologySpread};

    fn pool(name: &str, weight: i32) -> NodePool {
        NodePool {
            name: name.into(),
            weight,
            requirements: Vec::new(),
            labels: Vec::new(),
            taints: Vec::new(),
            limits: None,
            node_class: "default".into(),
            disruption: Default::default(),
        }
    }

    fn pods(n: usize, cpu: i64, c: &PodConstraints) -> Vec<Pod> {
        (0..n)
            .map(|i| Pod {
                name: format!("p-{i}"),
                group: 0,
                requests: crate::calc::karpenter::pod_requests(&Resources(vec![(
                    "cpu".into(),
                    cpu,
                )])),
                constraints: std::sync::Arc::new(c.clone()),
            })
            .collect()
    }

    fn run(pools: &[NodePool], catalog: &[Item], daemons: &[Daemon], pods: Vec<Pod>) -> Results {
        solve(Problem {
            node_pools: pools,
            catalog,
            daemons,
            existing: Vec::new(),
            pods,
        })
    }

    #[test]
    fn queue_orders_by_cpu_then_memory_descending() {
        let mut p = pods(3, 100, &PodConstraints::default());
        p[1].requests.insert("cpu".into(), 500);
        p[2].requests.insert("memory".into(), 10);
        assert_eq!(queue_order(&p), vec![1, 2, 0]);
    }

    #[test]
    fn pods_pack_onto_one_claim_while_a_type_still_fits() {
        let catalog = fake::instance_types(5);
        let r = run(
            &[pool("default", 0)],
            &catalog,
            &[],
            pods(4, 1000, &PodConstraints::default()),
        );
        assert_eq!(r.claims.len(), 1);
        assert_eq!(r.claims[0].pods.len(), 4);
        // 4 cores of requests leave the 5-core type only (100m kube-reserved).
        assert_eq!(r.claims[0].instance_types, vec![4]);
    }

    #[test]
    fn heavier_node_pool_is_tried_first() {
        let catalog = fake::instance_types(2);
        let r = run(
            &[pool("light", 1), pool("heavy", 10)],
            &catalog,
            &[],
            pods(1, 100, &PodConstraints::default()),
        );
        assert_eq!(r.templates[r.claims[0].template].node_pool, "heavy");
    }

    #[test]
    fn limits_exclude_types_that_would_breach_them() {
        let catalog = fake::instance_types(4);
        let mut np = pool("default", 0);
        np.limits = Some(Resources(vec![("cpu".into(), 2000)]));
        let r = run(
            &[np],
            &catalog,
            &[],
            pods(3, 1000, &PodConstraints::default()),
        );
        assert_eq!(r.claims.len(), 1);
        assert!(
            r.errors[0]
                .1
                .contains("all available instance types exceed limits for nodepool")
        );
    }

    #[test]
    fn daemonset_overhead_is_added_at_finalize() {
        let catalog = fake::instance_types(4);
        let d = Daemon {
            requests: [("cpu".to_string(), 1000), ("pods".to_string(), 1000)].into(),
            constraints: PodConstraints::default(),
        };
        let r = run(
            &[pool("default", 0)],
            &catalog,
            &[d],
            pods(1, 1000, &PodConstraints::default()),
        );
        assert_eq!(r.claims[0].requests.get("cpu"), Some(&2000));
        assert!(!r.claims[0].instance_types.contains(&0));
    }

    #[test]
    fn untolerated_taint_leaves_the_pod_pending() {
        let catalog = fake::instance_types(2);
        let mut np = pool("default", 0);
        np.taints = vec![Taint {
            key: "dedicated".into(),
            value: "x".into(),
            effect: "NoSchedule".into(),
        }];
        let r = run(
            &[np],
            &catalog,
            &[],
            pods(1, 100, &PodConstraints::default()),
        );
        assert!(r.claims.is_empty());
        assert!(r.errors[0].1.contains("did not tolerate taint"));
    }

    #[test]
    fn zonal_spread_puts_each_pod_in_the_emptiest_zone() {
        let catalog = fake::instance_types(2);
        let c = PodConstraints {
            topology_spread: vec![TopologySpread {
                topology_key: "topology.kubernetes.io/zone".into(),
                max_skew: 1,
                do_not_schedule: true,
                min_domains: None,
            }],
            ..PodConstraints::default()
        };
        let r = run(&[pool("default", 0)], &catalog, &[], pods(3, 100, &c));
        assert_eq!(r.claims.len(), 3);
    }

    #[test]
    fn hostname_spread_caps_pods_per_claim_at_max_skew() {
        let catalog = fake::instance_types(8);
        let c = PodConstraints {
            topology_spread: vec![TopologySpread {
                topology_key: "kubernetes.io/hostname".into(),
                max_skew: 2,
                do_not_schedule: true,
                min_domains: None,
            }],
            ..PodConstraints::default()
        };
        let r = run(&[pool("default", 0)], &catalog, &[], pods(5, 100, &c));
        assert_eq!(r.claims.len(), 3);
    }

    #[test]
    fn an_unmet_requirement_names_karpenters_filter_error() {
        let catalog = fake::instance_types(2);
        let c = PodConstraints {
            required_terms: vec![vec![SelectorRequirement {
                key: "kubernetes.io/arch".into(),
                operator: "In".into(),
                values: vec!["arm64".into()],
                min_values: None,
            }]],
            ..PodConstraints::default()
        };
        let r = run(&[pool("default", 0)], &catalog, &[], pods(1, 100, &c));
        assert!(
            r.errors[0]
                .1
                .starts_with("no instance type met all requirements")
        );
    }
    fn term(key: &str, anti: bool, preferred_weight: Option<i32>) -> PodConstraints {
        PodConstraints {
            pod_affinity: vec![crate::scenario::karpenter::PodAffinityTerm {
                topology_key: key.into(),
                anti,
                preferred_weight,
            }],
            ..PodConstraints::default()
        }
    }

    fn node(name: &str, cpu: i64, requested_cpu: i64) -> ExistingNode {
        let res = |cpu: i64, pods: i64| -> Res {
            [("cpu".to_string(), cpu), ("pods".to_string(), pods * 1000)].into()
        };
        ExistingNode {
            name: name.into(),
            labels: vec![
                ("karpenter.sh/nodepool".into(), "default".into()),
                ("topology.kubernetes.io/zone".into(), "test-zone-1".into()),
            ],
            taints: Vec::new(),
            capacity: res(cpu, 110),
            allocatable: res(cpu, 110),
            requested: res(requested_cpu, 2),
            host_ports: Vec::new(),
            workload_pods: 0,
            pods: Vec::new(),
        }
    }

    fn run_on(pools: &[NodePool], existing: Vec<ExistingNode>, pods: Vec<Pod>) -> Results {
        solve(Problem {
            node_pools: pools,
            catalog: &fake::instance_types(8),
            daemons: &[],
            existing,
            pods,
        })
    }

    #[test]
    fn existing_nodes_take_pending_pods_before_any_node_claim() {
        let r = run_on(
            &[pool("default", 0)],
            vec![node("a", 4000, 1000)],
            pods(4, 1000, &PodConstraints::default()),
        );
        assert_eq!(r.existing[0].pods.len(), 3);
        assert_eq!(r.claims.len(), 1);
        assert_eq!(r.claims[0].pods.len(), 1);
    }

    #[test]
    fn existing_nodes_capacity_counts_against_node_pool_limits() {
        let mut np = pool("default", 0);
        np.limits = Some(Resources(vec![("cpu".into(), 5000)]));
        let r = run_on(
            &[np],
            vec![node("a", 4000, 4000)],
            pods(1, 1000, &PodConstraints::default()),
        );
        // 5 cores less the node's 4 leave 1: only the 1-core type (900m allocatable) is left.
        assert!(r.claims.is_empty());
        assert!(
            r.errors[0]
                .1
                .starts_with("no instance type has enough resources"),
            "{:?}",
            r.errors
        );
    }

    #[test]
    fn a_host_port_in_use_keeps_the_pod_off_the_node() {
        let port = crate::scenario::karpenter::HostPort {
            ip: String::new(),
            protocol: "TCP".into(),
            port: 8080,
        };
        let c = PodConstraints {
            host_ports: vec![port.clone()],
            ..PodConstraints::default()
        };
        let mut n = node("a", 8000, 0);
        n.host_ports = vec![port];
        let r = run_on(&[pool("default", 0)], vec![n], pods(2, 100, &c));
        assert!(r.existing[0].pods.is_empty());
        assert_eq!(
            r.claims.len(),
            2,
            "two pods on one port need two NodeClaims"
        );
    }

    #[test]
    fn hostname_anti_affinity_opens_one_node_claim_per_pod() {
        let c = term("kubernetes.io/hostname", true, None);
        let r = run_on(
            &[pool("default", 0)],
            vec![node("a", 8000, 0)],
            pods(3, 100, &c),
        );
        assert_eq!(r.existing[0].pods.len(), 1);
        assert_eq!(r.claims.len(), 2);
    }

    #[test]
    fn zonal_anti_affinity_schedules_one_pod_per_batch_until_a_zone_is_known() {
        // Late committal: the first NodeClaim may still land in any zone, so it blocks them all.
        let c = term("topology.kubernetes.io/zone", true, None);
        let r = run_on(&[pool("default", 0)], Vec::new(), pods(3, 100, &c));
        assert_eq!(r.claims.len(), 1);
        assert_eq!(r.errors.len(), 2);
        assert!(
            r.errors[0].1.contains("pod anti-affinity"),
            "{:?}",
            r.errors
        );
        // Once a node of the workload stands in zone 1, the next batch opens one elsewhere.
        let mut n = node("a", 100, 100);
        n.workload_pods = 1;
        let r = run_on(&[pool("default", 0)], vec![n], pods(2, 100, &c));
        assert_eq!(r.claims.len(), 1);
        let zone = r.claims[0].requirements.get("topology.kubernetes.io/zone");
        assert!(
            !zone.has("test-zone-1") && zone.has("test-zone-2"),
            "{zone}"
        );
    }

    #[test]
    fn preferred_anti_affinity_is_relaxed_when_it_cannot_be_met() {
        let c = term("topology.kubernetes.io/zone", true, Some(50));
        let r = run_on(&[pool("default", 0)], Vec::new(), pods(4, 100, &c));
        assert!(r.errors.is_empty(), "{:?}", r.errors);
        assert_eq!(r.claims.iter().map(|c| c.pods.len()).sum::<usize>(), 4);
    }

    #[test]
    fn hostname_affinity_packs_the_workload_onto_one_node_claim() {
        let c = term("kubernetes.io/hostname", false, None);
        let r = run_on(&[pool("default", 0)], Vec::new(), pods(3, 1000, &c));
        assert_eq!(r.claims.len(), 1);
        assert_eq!(r.claims[0].pods.len(), 3);
    }
}
