//! Karpenter's consolidation: what goes when the load drops. One disruption loop runs the
//! methods in `disruption.Controller`'s order (empty → multi-node → single-node; drift is not
//! modelled) and acts on the first that finds a command; each method simulates rescheduling
//! the candidates' pods with the provisioning scheduler (`SimulateScheduling`), so a node goes
//! only when its pods fit elsewhere, and is replaced only by one cheaper node.
//!
//! Mirrors kubernetes-sigs/karpenter `pkg/controllers/disruption/` (`controller.go`,
//! `emptiness.go`, `multinodeconsolidation.go`, `singlenodeconsolidation.go`,
//! `consolidation.go`, `helpers.go`, `types.go`) and `pkg/apis/v1/nodepool.go` (budgets).
//! A pure function of the cluster it is given: no clock (`consolidateAfter` is judged on each
//! node's `since_pod_change_s`), no validation wait, no PodDisruptionBudgets, no
//! `do-not-disrupt`, and a budget with a `schedule` is taken as active.

use std::collections::BTreeMap;

use super::catalog::{self, CAPACITY_TYPE, INSTANCE_TYPE, Item, Launch, Res, ZONE, merge};
use super::pod::Pod;
use super::requirements::{Operator, Requirements, is_in};
use super::scheduler::{self, Daemon, ExistingNode, Problem, Results};
use crate::scenario::karpenter::{BudgetNodes, ConsolidationPolicy, NodePool};

/// A node the cluster runs: a NodeClaim Karpenter launched.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterNode {
    pub name: String,
    pub node_pool: String,
    /// `node.kubernetes.io/instance-type`: a name in the catalog.
    pub instance_type: String,
    pub zone: String,
    pub capacity_type: String,
    /// Labels the node carries beyond its NodePool's and instance type's.
    pub labels: Vec<(String, String)>,
    /// The node's allocatable when it differs from its instance type's (`None`: the type's).
    pub allocatable: Option<Res>,
    /// What its DaemonSet pods request (they stay with the node).
    pub daemon_requests: Res,
    /// Its reschedulable pods.
    pub pods: Vec<Pod>,
    /// Seconds since a pod was last bound to or removed from the node (or since it
    /// initialized): the `Consolidatable` condition holds once this reaches `consolidateAfter`.
    pub since_pod_change_s: i64,
}

/// What consolidation looks at.
#[derive(Debug, Clone)]
pub struct Cluster<'a> {
    pub node_pools: &'a [NodePool],
    pub catalog: &'a [Item],
    pub daemons: &'a [Daemon],
    pub nodes: Vec<ClusterNode>,
    /// The `SpotToSpotConsolidation` feature gate (off by default upstream).
    pub spot_to_spot: bool,
}

/// The disruption method that found a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Emptiness,
    MultiNode,
    SingleNode,
}

impl Method {
    /// `ConsolidationType()`: `empty`, `multi`, `single`.
    pub fn name(self) -> &'static str {
        match self {
            Method::Emptiness => "empty",
            Method::MultiNode => "multi",
            Method::SingleNode => "single",
        }
    }

    /// `Reason()`: the disruption reason its budgets are counted under.
    pub fn reason(self) -> &'static str {
        match self {
            Method::Emptiness => "Empty",
            Method::MultiNode | Method::SingleNode => "Underutilized",
        }
    }
}

/// The one node a replace command launches.
#[derive(Debug, Clone, PartialEq)]
pub struct Replacement {
    pub node_pool: String,
    /// Its instance types after the price filter, cheapest first.
    pub instance_types: Vec<String>,
    /// What the cloud provider would launch.
    pub launched: Option<Launch>,
    /// The DaemonSet overhead the replacement carries.
    pub daemon_requests: Res,
}

/// One disruption command: delete `nodes`, or replace them with `replacement`.
#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    pub method: Method,
    /// The candidates, in the order the method chose them.
    pub nodes: Vec<String>,
    pub replacement: Option<Replacement>,
    /// What the candidates cost per hour (their offerings' prices).
    pub price_before: f64,
    /// What the replacement costs per hour (0 for a delete).
    pub price_after: f64,
    /// Each moved pod and where it goes (`None`: the replacement).
    pub moves: Vec<(Pod, Option<String>)>,
}

/// A node that may be disrupted (`Candidate`): its catalog entry, NodePool, price and cost.
#[derive(Debug, Clone)]
struct Candidate {
    node: usize,
    pool: usize,
    item: usize,
    price: f64,
    /// `RescheduleDisruptionCost`: 1 + one per reschedulable pod (`EvictionCost` of a pod with
    /// no deletion cost and priority 0 is 1).
    disruption_cost: f64,
}

impl Candidate {
    // Port of Candidate.IsEmpty (types.go).
    fn is_empty(&self) -> bool {
        self.disruption_cost <= 1.0
    }

    // Port of Candidate.SavingsRatio (types.go).
    fn savings_ratio(&self) -> f64 {
        self.price / self.disruption_cost
    }
}

// Port of resolveNodePrice (types.go): the price of the offering in the node's zone and
// capacity type, available or not; 0 when there is none.
fn node_price(it: &Item, n: &ClusterNode) -> f64 {
    (it.offerings.iter())
        .find(|o| o.zone == n.zone && o.capacity_type == n.capacity_type)
        .map_or(0.0, |o| o.price)
}

// Port of NewCandidate (types.go), as far as it applies offline: a node whose instance type or
// NodePool is unknown is no candidate.
fn candidates(c: &Cluster<'_>) -> Vec<Candidate> {
    let mut out = Vec::new();
    for (i, n) in c.nodes.iter().enumerate() {
        let Some(pool) = c.node_pools.iter().position(|p| p.name == n.node_pool) else {
            continue;
        };
        let Some(item) = c.catalog.iter().position(|it| it.name == n.instance_type) else {
            continue;
        };
        #[allow(clippy::cast_precision_loss)]
        let disruption_cost = 1.0 + n.pods.len() as f64;
        out.push(Candidate {
            node: i,
            pool,
            item,
            price: c.catalog.get(item).map_or(0.0, |it| node_price(it, n)),
            disruption_cost,
        });
    }
    out
}

fn consolidatable(np: &NodePool, n: &ClusterNode) -> bool {
    (np.disruption.consolidate_after_s).is_some_and(|d| n.since_pod_change_s >= d)
}

// Port of Emptiness.ShouldDisrupt (emptiness.go) and consolidation.ShouldDisrupt
// (consolidation.go): consolidation enabled (`consolidateAfter` not Never), the node
// Consolidatable; empty nodes belong to Emptiness, the rest to the consolidation methods, and
// only under `WhenEmptyOrUnderutilized`.
fn should_disrupt(method: Method, c: &Cluster<'_>, cand: &Candidate) -> bool {
    let (Some(np), Some(n)) = (c.node_pools.get(cand.pool), c.nodes.get(cand.node)) else {
        return false;
    };
    if !consolidatable(np, n) {
        return false;
    }
    match method {
        Method::Emptiness => cand.is_empty(),
        Method::MultiNode | Method::SingleNode => {
            !cand.is_empty()
                && np.disruption.consolidation_policy
                    == ConsolidationPolicy::WhenEmptyOrUnderutilized
        }
    }
}

// Port of Budget.GetAllowedDisruptions (nodepool.go): `intstr.GetScaledValueFromIntOrPercent`
// rounded up.
fn allowed(nodes: BudgetNodes, num_nodes: i64) -> i64 {
    match nodes {
        BudgetNodes::Count(n) => n,
        BudgetNodes::Percent(p) => (p * num_nodes + 99) / 100,
    }
}

// Port of NodePool.GetAllowedDisruptionsByReason (nodepool.go): the least of the budgets that
// name the reason or name none; MaxInt32 without budgets.
pub fn allowed_disruptions(np: &NodePool, num_nodes: i64, reason: &str) -> i64 {
    (np.disruption.budgets.iter())
        .filter(|b| (b.reasons.as_ref()).is_none_or(|r| r.iter().any(|x| x == reason)))
        .map(|b| allowed(b.nodes, num_nodes))
        .fold(i64::from(i32::MAX), i64::min)
}

// Port of BuildDisruptionBudgetMapping (helpers.go): per NodePool, the allowed disruptions over
// its nodes (every node here is initialized, Ready and not yet disrupting).
fn budget_mapping(c: &Cluster<'_>, reason: &str) -> BTreeMap<String, i64> {
    (c.node_pools.iter())
        .map(|np| {
            let n = c.nodes.iter().filter(|n| n.node_pool == np.name).count();
            let n = i64::try_from(n).unwrap_or(i64::MAX);
            (np.name.clone(), allowed_disruptions(np, n, reason).max(0))
        })
        .collect()
}

// Port of consolidation.sortCandidates (consolidation.go): savings ratio descending (a stable
// sort: ties keep the cluster's node order, where Go's sort.Slice leaves them undefined).
fn sort_candidates(cands: &mut [Candidate]) {
    cands.sort_by(|a, b| b.savings_ratio().total_cmp(&a.savings_ratio()));
}

/// The node's labels: its NodePool's template labels, the nodepool, the instance type's
/// single-valued requirements, its zone and capacity type.
fn node_labels(np: &NodePool, it: &Item, n: &ClusterNode) -> Vec<(String, String)> {
    let mut labels: BTreeMap<String, String> = np.labels.iter().cloned().collect();
    labels.extend(n.labels.iter().cloned());
    for (k, r) in &it.requirements.0 {
        if r.operator() == Operator::In
            && r.len() == 1
            && let Some(v) = r.values().next()
        {
            labels.insert(k.clone(), v.clone());
        }
    }
    labels.insert("karpenter.sh/nodepool".into(), np.name.clone());
    labels.insert(INSTANCE_TYPE.into(), it.name.clone());
    labels.insert(ZONE.into(), n.zone.clone());
    labels.insert(CAPACITY_TYPE.into(), n.capacity_type.clone());
    labels.into_iter().collect()
}

fn pods_requests(pods: &[Pod]) -> Res {
    pods.iter()
        .fold(Res::new(), |acc, p| merge(&acc, &p.requests))
}

// Port of IsUnderConsolidateAfter (pkg/utils/disruption): a nonzero `consolidateAfter` not yet
// elapsed since the node's last pod event; `Never` and `0s` never are.
fn under_consolidate_after(np: Option<&NodePool>, n: &ClusterNode) -> bool {
    (np.and_then(|p| p.disruption.consolidate_after_s))
        .is_some_and(|d| d > 0 && n.since_pod_change_s < d)
}

// Port of SimulateScheduling (helpers.go): the candidates' pods are Pending, every other node
// is an existing node (sorted by name, `sortExistingNodes`), and the provisioning scheduler
// places them; no second packer. A node under its `consolidateAfter` window takes no moved pod
// (`IsConsolidationSimulation`, Scheduler.add's `isUnderConsolidateAfter` check), so it is left
// out of the existing nodes.
fn simulate(c: &Cluster<'_>, cands: &[&Candidate]) -> Results {
    let chosen: Vec<usize> = cands.iter().map(|x| x.node).collect();
    let mut existing: Vec<ExistingNode> = Vec::new();
    for (_, n) in c
        .nodes
        .iter()
        .enumerate()
        .filter(|(i, _)| !chosen.contains(i))
    {
        let np = c.node_pools.iter().find(|p| p.name == n.node_pool);
        if under_consolidate_after(np, n) {
            continue;
        }
        let it = c.catalog.iter().find(|it| it.name == n.instance_type);
        let labels = match (np, it) {
            (Some(np), Some(it)) => node_labels(np, it, n),
            _ => vec![("karpenter.sh/nodepool".into(), n.node_pool.clone())],
        };
        let Some(allocatable) = n
            .allocatable
            .clone()
            .or_else(|| it.map(|t| t.allocatable.clone()))
        else {
            continue;
        };
        existing.push(ExistingNode {
            name: n.name.clone(),
            labels,
            taints: np.map(|p| p.taints.clone()).unwrap_or_default(),
            capacity: it.map_or_else(|| allocatable.clone(), |t| t.capacity.clone()),
            allocatable,
            requested: merge(&n.daemon_requests, &pods_requests(&n.pods)),
            host_ports: Vec::new(),
            workload_pods: 0,
            pods: Vec::new(),
        });
    }
    existing.sort_by(|a, b| a.name.cmp(&b.name));
    let pods: Vec<Pod> = (cands.iter())
        .filter_map(|x| c.nodes.get(x.node))
        .flat_map(|n| n.pods.iter().cloned())
        .collect();
    let mut results = scheduler::solve(Problem {
        node_pools: c.node_pools,
        catalog: c.catalog,
        daemons: c.daemons,
        existing,
        pods,
    });
    // `TruncateInstanceTypes(MaxInstanceTypes)`: price order, at most 600.
    for claim in results.claims.iter_mut() {
        let its: Vec<&Item> = (claim.instance_types.iter())
            .filter_map(|i| c.catalog.get(*i))
            .collect();
        if let Ok(t) = catalog::truncate(&its, &claim.requirements, catalog::MAX_INSTANCE_TYPES) {
            claim.instance_types = (t.iter())
                .filter_map(|it| c.catalog.iter().position(|x| x.name == it.name))
                .collect();
        }
    }
    results
}

// Port of Offerings.WorstLaunchPrice (pkg/cloudprovider/types.go): the dearest available,
// compatible offering of the capacity type that would launch (reserved, then spot, then
// on-demand); MaxFloat64 when none.
pub fn worst_launch_price(it: &Item, reqs: &Requirements) -> f64 {
    for ct in ["reserved", "spot", "on-demand"] {
        let prices: Vec<f64> = (it.offerings.iter())
            .filter(|o| o.available && o.capacity_type == ct)
            .filter(|o| reqs.is_compatible(&o.requirements, true))
            .map(|o| o.price)
            .collect();
        if !prices.is_empty() {
            return prices.into_iter().fold(f64::MIN, f64::max);
        }
    }
    f64::MAX
}

// Port of NodeClaim.RemoveInstanceTypeOptionsByPriceAndMinValues (scheduling/nodeclaim.go), the
// former `filterByPrice`: the types whose worst launch price is below `max_price`, failing when
// what is left breaks `minValues`.
fn filter_by_price<'a>(
    its: &[&'a Item],
    reqs: &Requirements,
    max_price: f64,
) -> Result<Vec<&'a Item>, String> {
    let kept: Vec<&Item> = (its.iter().copied())
        .filter(|it| worst_launch_price(it, reqs) < max_price)
        .collect();
    let mv = catalog::satisfies_min_values(&kept, reqs);
    if mv.short.is_empty() {
        Ok(kept)
    } else {
        Err(catalog::min_values_error(&mv.short))
    }
}

/// `computeConsolidation`'s answer.
enum Decision {
    NoOp(String),
    Delete,
    /// The replacement's types (price order) and requirements.
    Replace(Vec<usize>, Requirements),
}

/// `MinInstanceTypesForSpotToSpotConsolidation`.
pub const MIN_SPOT_TO_SPOT_TYPES: usize = 15;

// Port of consolidation.computeConsolidation (consolidation.go): all pods must reschedule;
// onto existing nodes it is a delete; onto one new NodeClaim it is a replace, kept only if a
// type launches for less than the candidates cost.
fn compute_consolidation(c: &Cluster<'_>, cands: &[&Candidate]) -> (Decision, Results) {
    let results = simulate(c, cands);
    if let Some((_, e)) = results.errors.first() {
        return (Decision::NoOp(e.clone()), results);
    }
    let claim = match results.claims.as_slice() {
        [] => return (Decision::Delete, results),
        [one] => one,
        more => {
            let why = format!("Can't remove without creating {} candidates", more.len());
            return (Decision::NoOp(why), results);
        }
    };
    let candidate_price: f64 = cands.iter().map(|x| x.price).sum();
    let all_spot = (cands.iter()).all(|x| {
        c.nodes
            .get(x.node)
            .is_some_and(|n| n.capacity_type == "spot")
    });
    let mut reqs = claim.requirements.clone();
    let mut its: Vec<&Item> = (claim.instance_types.iter())
        .filter_map(|i| c.catalog.get(*i))
        .collect();
    catalog::order_by_price(&mut its, &reqs);
    let index = |its: &[&Item]| -> Vec<usize> {
        (its.iter())
            .filter_map(|it| c.catalog.iter().position(|x| x.name == it.name))
            .collect()
    };
    if all_spot && reqs.get(CAPACITY_TYPE).has("spot") {
        let d = spot_to_spot(c, cands.len(), &mut reqs, &its, candidate_price);
        let d = match d {
            Ok(kept) => Decision::Replace(index(&kept), reqs),
            Err(why) => Decision::NoOp(why),
        };
        return (d, results);
    }
    let kept = match filter_by_price(&its, &reqs, candidate_price) {
        Err(e) => return (Decision::NoOp(format!("Filtering by price: {e}")), results),
        Ok(k) if k.is_empty() => {
            return (
                Decision::NoOp("Can't replace with a cheaper node".into()),
                results,
            );
        }
        Ok(k) => k,
    };
    let ct = reqs.get(CAPACITY_TYPE);
    if ct.has("spot") && ct.has("on-demand") {
        reqs.add(is_in(CAPACITY_TYPE, &["spot"]));
    }
    (Decision::Replace(index(&kept), reqs), results)
}

// Port of consolidation.computeSpotToSpotConsolidation (consolidation.go): behind the feature
// gate; a single node needs 15 cheaper spot types and launches from the 15 cheapest (or as
// many as `minValues` needs).
fn spot_to_spot<'a>(
    c: &Cluster<'_>,
    candidates: usize,
    reqs: &mut Requirements,
    its: &[&'a Item],
    candidate_price: f64,
) -> Result<Vec<&'a Item>, String> {
    if !c.spot_to_spot {
        return Err(
            "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node"
                .into(),
        );
    }
    reqs.add(is_in(CAPACITY_TYPE, &["spot"]));
    let compatible: Vec<&Item> = (its.iter().copied())
        .filter(|it| catalog::compatible(it, reqs))
        .collect();
    let mut kept = filter_by_price(&compatible, reqs, candidate_price)
        .map_err(|e| format!("Filtering by price: {e}"))?;
    if kept.is_empty() {
        return Err("Can't replace with a cheaper node".into());
    }
    if candidates > 1 {
        return Ok(kept);
    }
    if kept.len() < MIN_SPOT_TO_SPOT_TYPES {
        return Err(format!(
            "SpotToSpotConsolidation requires {MIN_SPOT_TO_SPOT_TYPES} cheaper instance type options than the current candidate to consolidate, got {}",
            kept.len()
        ));
    }
    let keep = if reqs.has_min_values() {
        MIN_SPOT_TO_SPOT_TYPES.max(catalog::satisfies_min_values(&kept, reqs).needed)
    } else {
        MIN_SPOT_TO_SPOT_TYPES
    };
    kept.truncate(keep);
    Ok(kept)
}

/// The command for a decision, with where each pod goes.
fn command(
    c: &Cluster<'_>,
    method: Method,
    cands: &[&Candidate],
    decision: Decision,
    results: &Results,
) -> Option<Command> {
    let replacement = match decision {
        Decision::NoOp(_) => return None,
        Decision::Delete => None,
        Decision::Replace(kept, reqs) => {
            let its: Vec<&Item> = kept.iter().filter_map(|i| c.catalog.get(*i)).collect();
            let launched = catalog::launch(&its, &reqs);
            let claim = results.claims.first()?;
            let t = results.templates.get(claim.template)?;
            let daemon_requests = (launched.as_ref())
                .and_then(|l| c.catalog.iter().position(|x| x.name == l.instance_type))
                .and_then(|i| t.daemon_groups.iter().find(|g| g.0.contains(&i)))
                .map(|g| g.1.clone())
                .unwrap_or_default();
            Some(Replacement {
                node_pool: t.node_pool.clone(),
                instance_types: its.iter().map(|it| it.name.clone()).collect(),
                launched,
                daemon_requests,
            })
        }
    };
    let mut moves: Vec<(Pod, Option<String>)> = Vec::new();
    for n in &results.existing {
        for &pi in &n.pods {
            if let Some(p) = results.pods.get(pi) {
                moves.push((p.clone(), Some(n.name.clone())));
            }
        }
    }
    for claim in &results.claims {
        moves.extend(
            (claim.pods.iter()).filter_map(|pi| results.pods.get(*pi).map(|p| (p.clone(), None))),
        );
    }
    let price_after = (replacement.as_ref())
        .and_then(|r| r.launched.as_ref())
        .map_or(0.0, |l| l.price);
    Some(Command {
        method,
        nodes: (cands.iter())
            .filter_map(|x| c.nodes.get(x.node).map(|n| n.name.clone()))
            .collect(),
        replacement,
        price_before: cands.iter().map(|x| x.price).sum(),
        price_after,
        moves,
    })
}

// Port of Emptiness.ComputeCommands (emptiness.go): every empty candidate the budgets allow,
// in one delete.
fn emptiness(
    c: &Cluster<'_>,
    cands: &[Candidate],
    budgets: &mut BTreeMap<String, i64>,
) -> Option<Command> {
    let mut empty: Vec<&Candidate> = Vec::new();
    for cand in cands.iter().filter(|x| x.is_empty()) {
        let Some(np) = c.node_pools.get(cand.pool) else {
            continue;
        };
        let left = budgets.entry(np.name.clone()).or_insert(0);
        if *left <= 0 {
            continue;
        }
        empty.push(cand);
        *left -= 1;
    }
    if empty.is_empty() {
        return None;
    }
    let price_before = empty.iter().map(|x| x.price).sum();
    Some(Command {
        method: Method::Emptiness,
        nodes: (empty.iter())
            .filter_map(|x| c.nodes.get(x.node).map(|n| n.name.clone()))
            .collect(),
        replacement: None,
        price_before,
        price_after: 0.0,
        moves: Vec::new(),
    })
}

// Port of MultiNodeConsolidation.ComputeCommands and firstNConsolidationOption
// (multinodeconsolidation.go): the budgets filter the sorted candidates (at most 100), then a
// binary search finds the longest prefix that consolidates into deletes or one replacement.
fn multi_node(
    c: &Cluster<'_>,
    cands: &[Candidate],
    budgets: &mut BTreeMap<String, i64>,
) -> Option<Command> {
    let mut ok: Vec<&Candidate> = Vec::new();
    for cand in cands {
        let name = c.node_pools.get(cand.pool).map(|p| p.name.clone())?;
        let left = budgets.entry(name).or_insert(0);
        if *left <= 0 {
            continue;
        }
        ok.push(cand);
        *left -= 1;
    }
    let max_parallel = ok.len().min(100);
    if ok.len() < 2 {
        return None;
    }
    let (mut lo, mut hi) = (1usize, max_parallel);
    if ok.len() <= hi {
        hi = ok.len() - 1;
    }
    let mut saved: Option<Command> = None;
    while lo <= hi {
        let mid = (lo + hi) / 2;
        let batch = ok.get(0..=mid)?;
        let (decision, results) = compute_consolidation(c, batch);
        let decision = match decision {
            Decision::Replace(kept, reqs) => match filter_out_same_type(c, batch, &kept, &reqs) {
                Some(k) if !k.is_empty() => Decision::Replace(k, reqs),
                _ => Decision::NoOp("replacement is one of the candidates' types".into()),
            },
            d => d,
        };
        match command(c, Method::MultiNode, batch, decision, &results) {
            Some(cmd) => {
                saved = Some(cmd);
                lo = mid + 1;
            }
            None => hi = mid - 1,
        }
    }
    saved
}

// Port of filterOutSameInstanceType (multinodeconsolidation.go): when a replacement type is one
// of the candidates' types, the replacement must cost less than the cheapest such candidate.
fn filter_out_same_type(
    c: &Cluster<'_>,
    batch: &[&Candidate],
    kept: &[usize],
    reqs: &Requirements,
) -> Option<Vec<usize>> {
    let mut prices: BTreeMap<usize, f64> = BTreeMap::new();
    for cand in batch {
        let p = prices.entry(cand.item).or_insert(f64::MAX);
        *p = p.min(cand.price);
    }
    let max_price = (kept.iter())
        .filter_map(|i| prices.get(i))
        .fold(f64::MAX, |a, b| a.min(*b));
    let its: Vec<&Item> = kept.iter().filter_map(|i| c.catalog.get(*i)).collect();
    let left = filter_by_price(&its, reqs, max_price).ok()?;
    Some(
        (left.iter())
            .filter_map(|it| c.catalog.iter().position(|x| x.name == it.name))
            .collect(),
    )
}

// Port of SingleNodeConsolidation.ComputeCommands and SortCandidates
// (singlenodeconsolidation.go): candidates interleaved by NodePool (in first-seen order, where
// Go iterates a map), the first that deletes or replaces within its budget.
fn single_node(
    c: &Cluster<'_>,
    cands: &[Candidate],
    budgets: &BTreeMap<String, i64>,
    events: &mut Vec<(String, String)>,
) -> Option<Command> {
    let mut pools: Vec<usize> = Vec::new();
    for x in cands {
        if !pools.contains(&x.pool) {
            pools.push(x.pool);
        }
    }
    let by_pool: Vec<Vec<&Candidate>> = (pools.iter())
        .map(|p| cands.iter().filter(|x| x.pool == *p).collect())
        .collect();
    let longest = by_pool.iter().map(Vec::len).max().unwrap_or(0);
    let order = (0..longest).flat_map(|i| by_pool.iter().filter_map(move |g| g.get(i).copied()));
    for cand in order {
        let name = c.node_pools.get(cand.pool).map(|p| p.name.as_str())?;
        if budgets.get(name).copied().unwrap_or(0) <= 0 {
            continue;
        }
        let batch = [cand];
        let (decision, results) = compute_consolidation(c, &batch);
        if let (Decision::NoOp(why), Some(n)) = (&decision, c.nodes.get(cand.node)) {
            events.push((n.name.clone(), why.clone()));
        }
        if let Some(cmd) = command(c, Method::SingleNode, &batch, decision, &results) {
            return Some(cmd);
        }
    }
    None
}

/// One disruption loop's answer: the command, and the `Unconsolidatable` events of the nodes
/// it looked at and left (node, Karpenter's message).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outcome {
    pub command: Option<Command>,
    pub unconsolidatable: Vec<(String, String)>,
}

// The `Unconsolidatable` events consolidation.ShouldDisrupt publishes.
fn disabled_events(c: &Cluster<'_>, all: &[Candidate]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for x in all {
        let (Some(np), Some(n)) = (c.node_pools.get(x.pool), c.nodes.get(x.node)) else {
            continue;
        };
        let why = if np.disruption.consolidate_after_s.is_none() {
            format!("NodePool {:?} has consolidation disabled", np.name)
        } else if !x.is_empty()
            && np.disruption.consolidation_policy == ConsolidationPolicy::WhenEmpty
        {
            format!(
                "NodePool {:?} has consolidation policy WhenEmpty, but node is not empty",
                np.name
            )
        } else {
            continue;
        };
        out.push((n.name.clone(), why));
    }
    out
}

// Port of Controller.disrupt (controller.go) over NewMethods: emptiness, then multi-node, then
// single-node consolidation (drift is not modelled); the first command found is the loop's.
pub fn disrupt(c: &Cluster<'_>) -> Outcome {
    let all = candidates(c);
    let mut events = disabled_events(c, &all);
    for method in [Method::Emptiness, Method::MultiNode, Method::SingleNode] {
        let mut cands: Vec<Candidate> = (all.iter())
            .filter(|x| should_disrupt(method, c, x))
            .cloned()
            .collect();
        if cands.is_empty() {
            continue;
        }
        sort_candidates(&mut cands);
        let mut budgets = budget_mapping(c, method.reason());
        let cmd = match method {
            Method::Emptiness => emptiness(c, &cands, &mut budgets),
            Method::MultiNode => multi_node(c, &cands, &mut budgets),
            Method::SingleNode => single_node(c, &cands, &budgets, &mut events),
        };
        if cmd.is_some() {
            return Outcome {
                command: cmd,
                unconsolidatable: Vec::new(),
            };
        }
    }
    Outcome {
        command: None,
        unconsolidatable: events,
    }
}

/// The cluster after a command: its nodes gone, their pods where the simulation put them (a
/// node that takes pods has its pod-change clock reset), the replacement launched.
pub fn apply(nodes: &[ClusterNode], cmd: &Command, n: usize) -> Vec<ClusterNode> {
    let mut out: Vec<ClusterNode> = (nodes.iter())
        .filter(|x| !cmd.nodes.contains(&x.name))
        .cloned()
        .collect();
    for (pod, to) in &cmd.moves {
        if let Some(node) = to
            .as_ref()
            .and_then(|t| out.iter_mut().find(|x| &x.name == t))
        {
            node.pods.push(pod.clone());
            node.since_pod_change_s = 0;
        }
    }
    if let Some(r) = &cmd.replacement
        && let Some(l) = &r.launched
    {
        out.push(ClusterNode {
            name: format!("{}-replacement-{n}", r.node_pool),
            node_pool: r.node_pool.clone(),
            instance_type: l.instance_type.clone(),
            zone: l.zone.clone(),
            capacity_type: l.capacity_type.clone(),
            labels: Vec::new(),
            allocatable: None,
            daemon_requests: r.daemon_requests.clone(),
            pods: (cmd.moves.iter())
                .filter(|(_, to)| to.is_none())
                .map(|(p, _)| p.clone())
                .collect(),
            since_pod_change_s: 0,
        });
    }
    out
}

/// What repeated disruption loops do.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Consolidation {
    /// The commands, in the order the loops executed them.
    pub commands: Vec<Command>,
    /// The nodes left.
    pub nodes: Vec<ClusterNode>,
    /// The last loop's `Unconsolidatable` events (why the nodes left stay).
    pub unconsolidatable: Vec<(String, String)>,
}

/// Disruption loops until none finds a command (at most `max_loops`), each command executed
/// before the next loop.
pub fn consolidate(mut c: Cluster<'_>, max_loops: usize) -> Consolidation {
    let mut out = Consolidation::default();
    for i in 0..max_loops {
        let o = disrupt(&c);
        out.unconsolidatable = o.unconsolidatable;
        let Some(cmd) = o.command else { break };
        c.nodes = apply(&c.nodes, &cmd, i + 1);
        out.commands.push(cmd);
    }
    out.nodes = c.nodes;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::karpenter::{fake, pod_requests};
    use crate::scenario::Resources;
    use crate::scenario::karpenter::{Budget, Disruption, PodConstraints};

    fn pool(budget: BudgetNodes) -> NodePool {
        NodePool {
            name: "default".into(),
            weight: 0,
            requirements: Vec::new(),
            labels: Vec::new(),
            taints: Vec::new(),
            limits: None,
            node_class: "default".into(),
            disruption: Disruption {
                budgets: vec![Budget {
                    nodes: budget,
                    reasons: None,
                    schedule: None,
                }],
                ..Disruption::default()
            },
        }
    }

    fn pods(n: usize, cpu: i64) -> Vec<Pod> {
        (0..n)
            .map(|i| Pod {
                name: format!("p-{i}"),
                group: 0,
                requests: pod_requests(&Resources(vec![("cpu".into(), cpu)])),
                constraints: std::sync::Arc::new(PodConstraints::default()),
            })
            .collect()
    }

    fn node(name: &str, it: &str, ct: &str, pods: Vec<Pod>) -> ClusterNode {
        ClusterNode {
            name: name.into(),
            node_pool: "default".into(),
            instance_type: it.into(),
            zone: "test-zone-1".into(),
            capacity_type: ct.into(),
            labels: Vec::new(),
            allocatable: None,
            daemon_requests: Res::new(),
            pods,
            since_pod_change_s: 3600,
        }
    }

    fn once(np: &NodePool, catalog: &[Item], nodes: Vec<ClusterNode>) -> Outcome {
        disrupt(&Cluster {
            node_pools: std::slice::from_ref(np),
            catalog,
            daemons: &[],
            nodes,
            spot_to_spot: false,
        })
    }

    #[test]
    fn a_node_under_its_consolidate_after_window_takes_no_moved_pod() {
        let catalog = fake::instance_types(4);
        let mut np = pool(BudgetNodes::Percent(100));
        np.disruption.consolidate_after_s = Some(60);
        let mut fresh = node("a", "fake-it-3", "on-demand", pods(2, 1500));
        fresh.since_pod_change_s = 10;
        let nodes = vec![
            fresh.clone(),
            node("b", "fake-it-3", "on-demand", pods(1, 500)),
        ];
        let cmd = once(&np, &catalog, nodes).command.expect("a replace");
        assert!(cmd.replacement.is_some(), "b's pod may not move onto a");
        fresh.since_pod_change_s = 60;
        let nodes = vec![fresh, node("b", "fake-it-3", "on-demand", pods(1, 500))];
        let cmd = once(&np, &catalog, nodes).command.expect("a delete");
        assert_eq!(cmd.moves[0].1.as_deref(), Some("a"));
    }

    #[test]
    fn budget_percentages_round_up() {
        assert_eq!(allowed(BudgetNodes::Percent(10), 3), 1);
        assert_eq!(allowed(BudgetNodes::Percent(30), 10), 3);
        assert_eq!(allowed(BudgetNodes::Percent(50), 3), 2);
        assert_eq!(allowed(BudgetNodes::Percent(0), 10), 0);
        assert_eq!(allowed(BudgetNodes::Count(2), 10), 2);
    }

    #[test]
    fn a_budget_naming_other_reasons_does_not_apply() {
        let mut np = pool(BudgetNodes::Count(0));
        np.disruption.budgets[0].reasons = Some(vec!["Drifted".into()]);
        assert_eq!(allowed_disruptions(&np, 10, "Empty"), i64::from(i32::MAX));
        np.disruption.budgets[0].reasons = Some(vec!["Empty".into()]);
        assert_eq!(allowed_disruptions(&np, 10, "Empty"), 0);
    }

    #[test]
    fn emptiness_deletes_the_empty_nodes_the_budget_allows() {
        let catalog = fake::instance_types(4);
        let np = pool(BudgetNodes::Percent(30));
        let nodes = (0..10)
            .map(|i| node(&format!("n{i}"), "fake-it-3", "on-demand", Vec::new()))
            .collect();
        let cmd = once(&np, &catalog, nodes).command.expect("a command");
        assert_eq!(cmd.method, Method::Emptiness);
        assert_eq!(cmd.nodes.len(), 3);
    }

    #[test]
    fn consolidate_after_never_or_not_yet_elapsed_leaves_nodes() {
        let catalog = fake::instance_types(4);
        let mut np = pool(BudgetNodes::Percent(100));
        np.disruption.consolidate_after_s = None;
        let o = once(
            &np,
            &catalog,
            vec![node("n", "fake-it-3", "on-demand", pods(1, 100))],
        );
        assert!(o.command.is_none());
        assert!(
            o.unconsolidatable[0]
                .1
                .contains("has consolidation disabled")
        );
        np.disruption.consolidate_after_s = Some(7200);
        let o = once(
            &np,
            &catalog,
            vec![node("n", "fake-it-3", "on-demand", Vec::new())],
        );
        assert!(o.command.is_none());
    }

    #[test]
    fn when_empty_leaves_an_underutilized_node() {
        let catalog = fake::instance_types(4);
        let mut np = pool(BudgetNodes::Percent(100));
        np.disruption.consolidation_policy = ConsolidationPolicy::WhenEmpty;
        let o = once(
            &np,
            &catalog,
            vec![node("n", "fake-it-3", "on-demand", pods(1, 100))],
        );
        assert!(o.command.is_none());
        assert!(
            o.unconsolidatable[0]
                .1
                .contains("WhenEmpty, but node is not empty")
        );
    }

    #[test]
    fn single_node_replaces_with_the_cheapest_type_that_holds_the_pods() {
        let catalog = fake::instance_types(4);
        let np = pool(BudgetNodes::Percent(100));
        let o = once(
            &np,
            &catalog,
            vec![node("n", "fake-it-3", "on-demand", pods(2, 300))],
        );
        let cmd = o.command.expect("a replace");
        assert_eq!(cmd.method, Method::SingleNode);
        let r = cmd.replacement.expect("a replacement");
        assert_eq!(
            r.launched.map(|l| l.instance_type),
            Some("fake-it-0".into())
        );
        assert!(cmd.price_after < cmd.price_before);
    }

    #[test]
    fn single_node_deletes_when_the_pods_fit_on_other_nodes() {
        let catalog = fake::instance_types(4);
        let np = pool(BudgetNodes::Percent(100));
        let nodes = vec![
            node("a", "fake-it-3", "on-demand", pods(2, 1500)),
            node("b", "fake-it-3", "on-demand", pods(1, 500)),
        ];
        let cmd = once(&np, &catalog, nodes).command.expect("a delete");
        assert_eq!(cmd.method, Method::SingleNode);
        assert_eq!(cmd.nodes, vec!["b".to_string()]);
        assert!(cmd.replacement.is_none());
        assert_eq!(cmd.moves[0].1.as_deref(), Some("a"));
    }

    #[test]
    fn multi_node_merges_several_nodes_into_one() {
        let catalog = fake::instance_types(8);
        let np = pool(BudgetNodes::Percent(100));
        let nodes = (0..3)
            .map(|i| node(&format!("n{i}"), "fake-it-7", "on-demand", pods(1, 500)))
            .collect();
        let cmd = once(&np, &catalog, nodes).command.expect("a merge");
        assert_eq!(cmd.method, Method::MultiNode);
        assert_eq!(cmd.nodes.len(), 3);
        let launched = cmd.replacement.and_then(|r| r.launched).expect("a launch");
        assert_eq!(launched.instance_type, "fake-it-1");
    }

    #[test]
    fn no_replacement_when_nothing_cheaper_holds_the_pods() {
        let catalog = fake::instance_types(4);
        let np = pool(BudgetNodes::Percent(100));
        let o = once(
            &np,
            &catalog,
            vec![node("n", "fake-it-0", "on-demand", pods(1, 500))],
        );
        assert!(o.command.is_none());
        assert_eq!(o.unconsolidatable[0].1, "Can't replace with a cheaper node");
    }

    #[test]
    fn spot_to_spot_needs_the_feature_gate() {
        let catalog = fake::instance_types(4);
        let np = pool(BudgetNodes::Percent(100));
        let o = once(
            &np,
            &catalog,
            vec![node("n", "fake-it-3", "spot", pods(1, 500))],
        );
        assert!(o.command.is_none());
        assert!(
            o.unconsolidatable[0]
                .1
                .starts_with("SpotToSpotConsolidation is disabled")
        );
    }

    #[test]
    fn worst_launch_price_takes_the_dearest_offering_of_the_launch_capacity_type() {
        let mut it = fake::instance_types(1).remove(0);
        it.offerings = vec![
            catalog::Offer::new("z1", "on-demand", 0.1, true),
            catalog::Offer::new("z1", "spot", 0.3, true),
            catalog::Offer::new("z2", "spot", 0.5, true),
        ];
        assert!((worst_launch_price(&it, &Requirements::default()) - 0.5).abs() < 1e-12);
        let mut od = Requirements::default();
        od.add(is_in(CAPACITY_TYPE, &["on-demand"]));
        assert!((worst_launch_price(&it, &od) - 0.1).abs() < 1e-12);
    }

    #[test]
    fn consolidate_runs_loops_until_nothing_is_left_to_do() {
        let catalog = fake::instance_types(8);
        let np = pool(BudgetNodes::Count(1));
        let nodes = vec![
            node("a", "fake-it-7", "on-demand", pods(1, 500)),
            node("b", "fake-it-7", "on-demand", Vec::new()),
        ];
        let c = consolidate(
            Cluster {
                node_pools: std::slice::from_ref(&np),
                catalog: &catalog,
                daemons: &[],
                nodes,
                spot_to_spot: false,
            },
            10,
        );
        let methods: Vec<Method> = c.commands.iter().map(|c| c.method).collect();
        assert_eq!(methods, vec![Method::Emptiness, Method::SingleNode]);
        assert_eq!(c.nodes.len(), 1);
        assert_eq!(c.nodes[0].instance_type, "fake-it-0");
    }
}
