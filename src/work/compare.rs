//! The comparison of simulated runs (`simulate --compare` and the MCP `compare` tool): each
//! configuration is the base's inputs with its HPA and `--what-if` items, and every run goes
//! through the same engine.

use anyhow::Result;

use crate::calc;
use crate::input::Text;
use crate::input::simulation;
use crate::input::what_if::WhatIf;
use crate::work::bounds::Bounds;

/// One configuration of a comparison: `hpa` on the base's load and settings with the
/// `--what-if` items, named by `name` and the changes they make; when `hpa` holds NodePools
/// instead, the base's HPA on those NodePools.
pub fn configuration(
    name: String,
    base: &simulation::Inputs,
    hpa: Text,
    items: &[String],
) -> Result<(String, simulation::Inputs)> {
    let what_if = WhatIf::parse(items)?;
    let mut name = name;
    let mut settings = base.settings.clone().with_what_if(&what_if);
    // A file of NodePools is a NodePool change: the base's HPA with these NodePools in place
    // of `--nodepool`'s (its NodeClass and catalog kept).
    let hpa = if crate::input::karpenter::holds_node_pools(&hpa) {
        let Some(karpenter) = settings.karpenter.as_mut() else {
            anyhow::bail!(crate::error::InputError::new(
                &hpa.name,
                "found NodePools to compare, expected --nodepool for the base they replace"
            ));
        };
        karpenter.node_pools = vec![hpa];
        name = format!("{name} (NodePools)");
        base.hpa.clone()
    } else {
        hpa
    };
    if !what_if.is_empty() {
        name = format!("{name} ({})", what_if.labels().join(", "));
    }
    let inputs = simulation::Inputs {
        hpa,
        settings,
        ..base.clone()
    };
    Ok((name, inputs))
}

/// Each configuration run by the same engine, the base first, and compared; the warnings of
/// every run, each once (the same load warns the same way in every run). Each run within
/// `bounds`.
pub fn compare_runs(
    configs: &[(String, simulation::Inputs)],
    bounds: &Bounds,
) -> Result<(calc::simulate::compare::Comparison, Vec<String>)> {
    let mut warned: Vec<String> = Vec::new();
    let mut runs = Vec::with_capacity(configs.len());
    for (name, inputs) in configs {
        let setup = simulation::build(inputs)?;
        for w in &setup.scenario.warnings {
            if !warned.contains(w) {
                warned.push(w.clone());
            }
        }
        runs.push((name.clone(), bounds.run(&setup, "duration")?));
    }
    Ok((calc::simulate::compare::compare(runs), warned))
}
