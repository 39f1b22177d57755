//! The loop-by-loop plan: each `RunOnce` of the Cluster Autoscaler scales one group (the one the
//! expander chain picks); the pods its nodes do not take wait for the next loop, where they first
//! fill the free room of the nodes added before (filter-out-schedulable over upcoming nodes).

use super::candidate::{Candidate, ExpanderContext, float};
use super::chain::{self, Outcome};
use super::fit::unfit_reason;
use super::option::{self, Computed};
use super::price::{preferred_node_cpu, stabilization_price};
use crate::calc::nodes::{Slot, estimate_on};
use crate::report::node_groups::{
    ExpanderStep, ExpansionOption, NodeGroupSize, NodeGroupsReport, ScaleUpLoop, SkippedGroup,
};
use crate::scenario::Resources;
use crate::scenario::node_groups::{Expander, NodeGroupSpec, NodeGroupsInput, PendingPods};
use std::collections::BTreeMap;

/// The most loops a plan runs: each adds a node at least, so this bounds the work.
pub const MAX_LOOPS: i64 = 1000;

/// A node a loop added, with the group it belongs to.
#[derive(Debug, Clone)]
pub struct AddedNode {
    pub group: usize,
    pub(crate) slot: Slot,
}

/// The plan, and the nodes it adds.
#[derive(Debug, Clone)]
pub struct Plan {
    pub report: NodeGroupsReport,
    pub added: Vec<AddedNode>,
}

/// One group as the loops see it: its size now and why it takes none of each pod kind.
struct GroupState<'a> {
    spec: &'a NodeGroupSpec,
    size: i64,
    /// Per pod kind: why this group's template node takes none of them (fixed over the plan).
    unfit: Vec<Option<String>>,
}

/// The state the loops carry: the groups, the nodes added, the pods still Pending.
struct State<'a> {
    input: &'a NodeGroupsInput,
    kinds: &'a [PendingPods],
    groups: Vec<GroupState<'a>>,
    left: Vec<i64>,
    added: Vec<AddedNode>,
}

/// The kinds of pods still Pending that `group` can take, with their counts.
fn schedulable(
    kinds: &[PendingPods],
    left: &[i64],
    group: &GroupState<'_>,
) -> Vec<(Resources, i64)> {
    kinds
        .iter()
        .zip(left)
        .zip(&group.unfit)
        .filter(|((_, left), unfit)| **left > 0 && unfit.is_none())
        .map(|((kind, left), _)| (kind.request.clone(), *left))
        .collect()
}

impl State<'_> {
    fn cluster_nodes(&self) -> i64 {
        self.groups.iter().map(|g| g.size).sum()
    }

    /// Filter-out-schedulable over the nodes added in earlier loops, first-fit in their order.
    fn fill_upcoming(&mut self) -> i64 {
        let mut placed = 0;
        for (k, (kind, left)) in self.kinds.iter().zip(self.left.iter_mut()).enumerate() {
            for node in &mut self.added {
                if *left == 0 {
                    break;
                }
                let fits = self
                    .groups
                    .get(node.group)
                    .and_then(|g| g.unfit.get(k))
                    .is_some_and(Option::is_none);
                if !fits {
                    continue;
                }
                let n = node.slot.room_for(&kind.request).min(*left);
                if n > 0 {
                    node.slot.place_n(&kind.request, n);
                    *left -= n;
                    placed += n;
                }
            }
        }
        placed
    }

    /// `filterValidScaleUpNodeGroups`, then `ComputeExpansionOption` for each valid group, keeping
    /// those whose nodes take pods.
    fn options(&self) -> (Vec<(usize, Computed)>, Vec<SkippedGroup>) {
        let mut options = Vec::new();
        let mut skipped = Vec::new();
        let cluster_nodes = self.cluster_nodes();
        for (g, group) in self.groups.iter().enumerate() {
            let skip = |reason: String| SkippedGroup {
                group: group.spec.name.clone(),
                reason,
            };
            if group.size >= group.spec.max_size {
                skipped.push(skip("max size reached".into()));
                continue;
            }
            let schedulable = schedulable(self.kinds, &self.left, group);
            if schedulable.is_empty() {
                let why = group.unfit.iter().flatten().next().cloned();
                skipped.push(skip(why.unwrap_or_else(|| "no pod fits".into())));
                continue;
            }
            let computed = option::compute(
                group.spec,
                group.size,
                &schedulable,
                self.input,
                cluster_nodes,
            );
            if computed.candidate.pod_count == 0 || computed.candidate.node_count == 0 {
                let why = computed.limited_by.unwrap_or("no pod fits");
                skipped.push(skip(format!("no node may be added ({why})")));
                continue;
            }
            options.push((g, computed));
        }
        (options, skipped)
    }
}

fn option_report(c: &Computed, outcome: &Outcome, index: usize) -> ExpansionOption {
    let mut scores = BTreeMap::new();
    for step in &outcome.steps {
        if let Some((_, s)) = step.filtered.scores.iter().find(|(i, _)| *i == index) {
            scores.insert(step.expander.name().to_string(), *s);
        }
    }
    ExpansionOption {
        group: c.candidate.group.clone(),
        node_count: c.candidate.node_count,
        pods: c.candidate.pod_count,
        scores,
        limited_by: c.limited_by.map(str::to_string),
    }
}

/// Runs the loops for `kinds` of Pending pods over the groups of `input`.
pub fn plan(input: &NodeGroupsInput, kinds: &[PendingPods]) -> Plan {
    let groups = input
        .groups
        .iter()
        .map(|spec| GroupState {
            spec,
            size: spec.current_size,
            unfit: kinds
                .iter()
                .map(|k| unfit_reason(spec, &input.daemonsets, k))
                .collect(),
        })
        .collect();
    let mut state = State {
        input,
        kinds,
        groups,
        left: kinds.iter().map(|k| k.count.max(0)).collect(),
        added: Vec::new(),
    };
    let pending_pods: i64 = state.left.iter().sum();
    let mut loops = Vec::new();
    let mut outcome = "loopLimit";
    for number in 1..=MAX_LOOPS {
        let pending = state.left.iter().sum::<i64>();
        let fit_upcoming = state.fill_upcoming();
        if state.left.iter().all(|l| *l == 0) {
            if fit_upcoming > 0 {
                loops.push(empty_loop(number, pending, fit_upcoming));
            }
            outcome = "allScheduled";
            break;
        }
        let mut this = empty_loop(number, pending, fit_upcoming);
        let ended = run_loop(&mut state, &mut this);
        loops.push(this);
        if let Err(end) = ended {
            outcome = end;
            break;
        }
    }
    finish(input, state, pending_pods, loops, outcome)
}

fn empty_loop(number: i64, pending: i64, fit_upcoming: i64) -> ScaleUpLoop {
    ScaleUpLoop {
        number,
        pending_pods: pending,
        fit_upcoming_nodes: fit_upcoming,
        skipped: Vec::new(),
        options: Vec::new(),
        steps: Vec::new(),
        chosen: None,
        tied: Vec::new(),
        nodes_added: 0,
        pods_placed: 0,
    }
}

// Port of ScaleUpOrchestrator.prepareScaleUp: the options, the expander's choice, the cap by
// `--max-nodes-total` (GetCappedNewNodeCount) and by the group's maximum (balanceScaleUps).
fn run_loop(state: &mut State<'_>, this: &mut ScaleUpLoop) -> Result<(), &'static str> {
    let input = state.input;
    let (options, skipped) = state.options();
    this.skipped = skipped;
    if options.is_empty() {
        return Err("noExpansionOptions");
    }
    let cluster_nodes = state.cluster_nodes();
    let ctx = ExpanderContext {
        stabilization_price: Some(stabilization_price(&input.pod_pricing)),
        preferred_cpu: preferred_node_cpu(cluster_nodes),
        priorities_configured: input.priorities_configured,
    };
    let cands: Vec<Candidate> = options.iter().map(|(_, c)| c.candidate.clone()).collect();
    let outcome = chain::choose(&input.expander, &cands, &ctx);
    this.options = options
        .iter()
        .enumerate()
        .map(|(i, (_, c))| option_report(c, &outcome, i))
        .collect();
    let names = |indices: &[usize]| -> Vec<String> {
        indices
            .iter()
            .filter_map(|i| cands.get(*i).map(|c| c.group.clone()))
            .collect()
    };
    this.steps = outcome
        .steps
        .iter()
        .map(|s| ExpanderStep {
            expander: s.expander.name().to_string(),
            kept: names(&s.filtered.kept),
        })
        .collect();
    this.tied = names(&outcome.tied);
    if !this.tied.is_empty() {
        return Err("tie");
    }
    let Some((g, computed)) = outcome.chosen.and_then(|best| options.get(best)) else {
        return Err("expanderFilteredOutAll");
    };
    this.chosen = Some(computed.candidate.group.clone());
    let mut new_nodes = computed.candidate.node_count;
    if let Some(total) = input.max_nodes_total.filter(|t| *t > 0)
        && new_nodes + cluster_nodes > total
    {
        new_nodes = total - cluster_nodes;
        if new_nodes < 1 {
            return Err("maxNodesTotalReached");
        }
    }
    apply(state, *g, computed, new_nodes, this);
    Ok(())
}

/// Adds up to `new_nodes` of the estimate's nodes to group `g` (within its maximum, as
/// balanceScaleUps caps) and takes their pods off the queue.
fn apply(
    state: &mut State<'_>,
    g: usize,
    computed: &Computed,
    new_nodes: i64,
    this: &mut ScaleUpLoop,
) {
    let State {
        input,
        kinds,
        groups,
        left,
        added,
    } = state;
    let Some(group) = groups.get_mut(g) else {
        return;
    };
    let new_nodes = new_nodes.min(group.spec.max_size - group.size);
    let schedulable = schedulable(kinds, left, group);
    let estimate = if new_nodes < computed.candidate.node_count {
        // Fewer nodes than estimated: the pods those nodes take, estimated again.
        estimate_on(
            &schedulable,
            &group.spec.allocatable,
            &input.daemonsets,
            new_nodes,
        )
    } else {
        computed.estimate.clone()
    };
    let mut placed = estimate.placed.iter();
    for (left, unfit) in left.iter_mut().zip(&group.unfit) {
        if *left > 0 && unfit.is_none() {
            let n = placed.next().copied().unwrap_or(0);
            *left -= n;
            this.pods_placed += n;
        }
    }
    let mut index = group.size - group.spec.current_size;
    for mut slot in estimate.nodes {
        index += 1;
        slot.name = format!("{}-new-{index}", group.spec.name);
        added.push(AddedNode { group: g, slot });
    }
    this.nodes_added = new_nodes;
    group.size += new_nodes;
}

fn finish(
    input: &NodeGroupsInput,
    state: State<'_>,
    pending_pods: i64,
    loops: Vec<ScaleUpLoop>,
    outcome: &str,
) -> Plan {
    let nodes_added: i64 = loops.iter().map(|l| l.nodes_added).sum();
    let mut cost = Some(0.0);
    for group in &state.groups {
        let added = group.size - group.spec.current_size;
        if added > 0 {
            cost = cost
                .zip(group.spec.price_per_hour)
                .map(|(c, p)| c + p * float(added));
        }
    }
    let report = NodeGroupsReport {
        expander: input
            .expander
            .iter()
            .map(|e| e.name().to_string())
            .collect(),
        pending_pods,
        nodes_added,
        added_cost_per_hour: cost,
        unschedulable_pods: state.left.iter().sum(),
        outcome: outcome.to_string(),
        groups: state
            .groups
            .iter()
            .map(|g| NodeGroupSize {
                name: g.spec.name.clone(),
                min_size: g.spec.min_size,
                max_size: g.spec.max_size,
                current_size: g.spec.current_size,
                new_size: g.size,
                price_per_hour: g.spec.price_per_hour,
            })
            .collect(),
        notes: notes(input),
        loops,
    };
    Plan {
        report,
        added: state.added,
    }
}

/// What the expanders in the chain will meet: groups without a price, groups no priority matches.
fn notes(input: &NodeGroupsInput) -> Vec<String> {
    let mut notes = Vec::new();
    if input.expander.contains(&Expander::Price) {
        for g in input.groups.iter().filter(|g| g.price_per_hour.is_none()) {
            notes.push(format!(
                "node group {} has no price: the price expander skips it",
                g.name
            ));
        }
    }
    if input.expander.contains(&Expander::Priority) {
        if !input.priorities_configured {
            notes.push(
                "no priorities given: the priority expander keeps every option (as without its \
                 ConfigMap)"
                    .into(),
            );
        } else {
            for g in input.groups.iter().filter(|g| g.priorities.is_empty()) {
                notes.push(super::priority::not_found_warning(&g.name));
            }
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::node_groups::testing::{group, input, pods};

    #[test]
    fn least_waste_picks_the_group_whose_nodes_the_pods_fill_best() {
        // 10 pods of 1 core / 4Gi: 4-core/16Gi nodes fit 4 exactly, 4-core/32Gi waste memory.
        let inp = input(vec![
            group("highmem", 4000, 32),
            group("balanced", 4000, 16),
        ]);
        let p = plan(&inp, &[pods(1000, 4, 10)]);
        let first = &p.report.loops[0];
        assert_eq!(first.chosen.as_deref(), Some("balanced"));
        assert_eq!((first.nodes_added, first.pods_placed), (3, 10));
        assert_eq!(p.report.outcome, "allScheduled");
    }

    #[test]
    fn a_full_group_leaves_the_rest_to_the_next_loop_and_the_next_group() {
        let mut small = group("small", 4000, 16);
        small.max_size = 1;
        let inp = input(vec![small, group("big", 16_000, 64)]);
        let mut inp = inp;
        inp.expander = vec![Expander::LeastNodes, Expander::MostPods];
        // least-nodes: 20 pods need 5 small nodes (capped at 1) or 2 big ones.
        let p = plan(&inp, &[pods(1000, 4, 20)]);
        let chosen: Vec<_> = p.report.loops.iter().map(|l| l.chosen.clone()).collect();
        assert_eq!(chosen, [Some("small".to_string()), Some("big".to_string())]);
        assert_eq!(p.report.loops[0].pods_placed, 4);
        assert_eq!(
            p.report.loops[0].options[0].limited_by.as_deref(),
            Some("nodeGroupMax")
        );
        assert_eq!(p.report.loops[1].skipped[0].reason, "max size reached");
        assert_eq!((p.report.nodes_added, p.report.unschedulable_pods), (2, 0));
    }

    #[test]
    fn random_lists_every_tied_group_and_picks_none() {
        let inp = input(vec![group("a", 4000, 16), group("b", 4000, 16)]);
        let p = plan(&inp, &[pods(1000, 4, 4)]);
        assert_eq!(p.report.loops[0].tied, ["a", "b"]);
        assert_eq!(p.report.loops[0].chosen, None);
        assert_eq!(
            (p.report.outcome.as_str(), p.report.nodes_added),
            ("tie", 0)
        );
    }

    #[test]
    fn max_nodes_total_caps_the_plan() {
        let mut inp = input(vec![group("a", 4000, 16)]);
        inp.groups[0].current_size = 3;
        inp.max_nodes_total = Some(5);
        let p = plan(&inp, &[pods(4000, 1, 10)]);
        assert_eq!((p.report.nodes_added, p.report.unschedulable_pods), (2, 8));
        assert_eq!(p.report.outcome, "noExpansionOptions");
        assert!(
            p.report.loops[1].skipped[0]
                .reason
                .contains("maxNodesTotal")
        );
    }

    #[test]
    fn pods_left_by_one_loop_first_fill_the_room_of_the_nodes_it_added() {
        let mut one = group("one", 4000, 16);
        one.max_size = 1;
        let mut inp = input(vec![one]);
        inp.max_nodes_per_scale_up = 1;
        // Two kinds: the big pods fill one node first; the small ones fit its remaining room.
        let p = plan(&inp, &[pods(3000, 1, 1), pods(500, 1, 2)]);
        assert_eq!(p.report.loops[0].pods_placed, 3);
        assert_eq!(p.report.unschedulable_pods, 0);
    }
}
