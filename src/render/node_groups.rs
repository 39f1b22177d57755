//! The node-group plan (`nodes.nodeGroups`) as rows of the nodes section: each loop's options
//! with the chain's scores, the group chosen or the tie, and the groups' sizes after the plan.

use crate::report::node_groups::{ExpansionOption, NodeGroupsReport, ScaleUpLoop};

/// A score as the table shows it: three decimals, trailing zeros cut.
fn score(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

fn option_text(o: &ExpansionOption) -> String {
    let scores: Vec<String> = o
        .scores
        .iter()
        .map(|(e, v)| format!("{e} {}", score(*v)))
        .collect();
    let mut text = format!("{}: {} node(s), {} pod(s)", o.group, o.node_count, o.pods);
    if !scores.is_empty() {
        text.push_str(&format!(" [{}]", scores.join(", ")));
    }
    if let Some(limit) = &o.limited_by {
        text.push_str(&format!(" (stopped at {limit})"));
    }
    text
}

fn loop_text(l: &ScaleUpLoop) -> String {
    let mut head = format!("{} pod(s) Pending", l.pending_pods);
    if l.fit_upcoming_nodes > 0 {
        head.push_str(&format!(
            ", {} fit nodes added before",
            l.fit_upcoming_nodes
        ));
    }
    let mut lines = vec![head];
    lines.extend(l.options.iter().map(option_text));
    lines.extend(
        l.skipped
            .iter()
            .map(|s| format!("{}: skipped, {}", s.group, s.reason)),
    );
    let chain: Vec<String> = l
        .steps
        .iter()
        .map(|s| format!("{} kept {}", s.expander, s.kept.join(", ")))
        .collect();
    if !chain.is_empty() {
        lines.push(chain.join("; "));
    }
    lines.push(match (&l.chosen, l.tied.is_empty()) {
        (Some(g), _) => format!(
            "→ {g}: add {} node(s) for {} pod(s)",
            l.nodes_added, l.pods_placed
        ),
        (None, false) => format!(
            "→ tie: random picks one of {} (hpacalc picks none)",
            l.tied.join(", ")
        ),
        (None, true) if l.options.is_empty() => "→ no group can take these pods".to_string(),
        (None, true) => "→ the expanders filtered out every option".to_string(),
    });
    lines.join("\n")
}

fn outcome_text(plan: &NodeGroupsReport) -> String {
    match plan.outcome.as_str() {
        "allScheduled" => "every Pending pod gets a node".to_string(),
        "tie" => "stops at a tie: the Cluster Autoscaler picks at random".to_string(),
        "noExpansionOptions" => "no group can take the remaining pods".to_string(),
        "expanderFilteredOutAll" => "the expanders filtered out every option".to_string(),
        "maxNodesTotalReached" => "--max-nodes-total reached".to_string(),
        other => other.to_string(),
    }
}

/// The rows of the plan, under the nodes section's own.
pub(crate) fn plan_rows(plan: &NodeGroupsReport) -> Vec<Vec<String>> {
    let mut rows = vec![vec!["expander".to_string(), plan.expander.join(", ")]];
    for l in &plan.loops {
        rows.push(vec![format!("loop {}", l.number), loop_text(l)]);
    }
    let sizes: Vec<String> = plan
        .groups
        .iter()
        .filter(|g| g.new_size != g.current_size)
        .map(|g| {
            format!(
                "{} {} → {} (max {})",
                g.name, g.current_size, g.new_size, g.max_size
            )
        })
        .collect();
    let mut result = format!(
        "{}; {} node(s) added, {} pod(s) stay Pending",
        outcome_text(plan),
        plan.nodes_added,
        plan.unschedulable_pods
    );
    if !sizes.is_empty() {
        result.push_str(&format!("\n{}", sizes.join(", ")));
    }
    if let Some(cost) = plan.added_cost_per_hour.filter(|_| plan.nodes_added > 0) {
        result.push_str(&format!("\n+${cost:.3}/h"));
    }
    rows.push(vec!["plan".to_string(), result]);
    for note in &plan.notes {
        rows.push(vec!["note".to_string(), note.clone()]);
    }
    rows
}
