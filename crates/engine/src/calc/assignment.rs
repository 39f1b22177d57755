//! Which unnamed target is which resource, inferred by running the controller forward. A
//! `kubectl get hpa` row from an API server before 1.30 prints a Resource Utilization target as
//! `46%/50%`, without the resource (`formatHPAMetrics`). The input takes the first such target as
//! cpu and the second as memory; with pods and samples each resource has its own values, so the
//! other assignment may give another count. Every assignment is run through the same sync; those
//! whose sync gives `status.desiredReplicas` (when the status says it, from the same count) are
//! kept, else all are. One count among those kept is the answer; more are each an outcome.
//!
//! From the status alone the assignment does not matter: each entry's value is the status's own,
//! whatever it is called, so nothing is run.

use crate::report::{Outcome, Report};
use crate::scenario::{MetricSpec, Scenario};

/// The resources an unnamed Utilization target can be, in the input's order of assumption.
const RESOURCES: [&str; 2] = ["cpu", "memory"];

/// One way to name the unnamed targets, and the count its sync gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    /// The resource of each unnamed target, in `spec.metrics` order.
    pub names: Vec<&'static str>,
    pub replicas: i32,
    /// Its sync gives `status.desiredReplicas`.
    pub reproduces: bool,
}

/// Every way to name `n` unnamed targets with distinct resources (one or two targets).
fn assignments(n: usize) -> Vec<Vec<&'static str>> {
    match n {
        1 => RESOURCES.iter().map(|&r| vec![r]).collect(),
        2 => vec![
            RESOURCES.to_vec(),
            RESOURCES.iter().rev().copied().collect(),
        ],
        _ => Vec::new(),
    }
}

/// `s` with its unnamed targets, and the status entries in their places, named `names`.
pub fn named(s: &Scenario, names: &[&str]) -> Scenario {
    let mut out = s.clone();
    for (&i, &name) in s.unnamed_resources.iter().zip(names) {
        let place = (s.observed_status.as_ref()).and_then(|o| {
            let found = o.metric_for(&s.hpa.metrics, i)?;
            (o.current_metrics.iter()).position(|m| std::ptr::eq(m, found))
        });
        if let Some(MetricSpec::Resource { resource, .. }) = out.hpa.metrics.get_mut(i) {
            *resource = name.to_string();
        }
        if let (Some(o), Some(p)) = (&mut out.observed_status, place)
            && let Some(m) = o.current_metrics.get_mut(p)
        {
            m.name = name.to_string();
        }
    }
    out
}

/// Every assignment of the unnamed targets run forward through the sync (`reconcile`, as
/// `evaluate` runs it): `None` when there is nothing to try (no unnamed target, or the status
/// alone, where it does not matter).
pub fn run(s: &Scenario) -> Option<Vec<Assignment>> {
    if s.unnamed_resources.is_empty() || s.approximation {
        return None;
    }
    let ways = assignments(s.unnamed_resources.len());
    if ways.is_empty() {
        return None;
    }
    let status = (s.observed_status.as_ref())
        .filter(|o| o.current_replicas == Some(s.current_replicas))
        .and_then(|o| o.desired_replicas);
    let mut all: Vec<Assignment> = (ways.into_iter())
        .map(|names| {
            let replicas = crate::calc::infer::sync_of(&named(s, &names)).desired_replicas;
            Assignment {
                reproduces: status == Some(replicas),
                names,
                replicas,
            }
        })
        .collect();
    // The evidence keeps those that reproduce it; when none does, it decides nothing.
    if all.iter().any(|a| a.reproduces) {
        all.retain(|a| a.reproduces);
    }
    Some(all)
}

fn said(names: &[&str]) -> String {
    names.join(", then ")
}

/// The report for the assignments kept (`kept`, from `run`): the input's own when it is among
/// them (the others' counts are outcomes), else the first kept one's, evaluated.
pub fn resolve(
    s: &Scenario,
    mut report: Report,
    kept: &[Assignment],
    evaluate: impl Fn(&Scenario) -> Report,
) -> Report {
    let assumed: Vec<&str> = (s.unnamed_resources.iter())
        .filter_map(|&i| s.hpa.metrics.get(i).map(MetricSpec::metric_name))
        .collect();
    let Some(answer) = (kept.iter().find(|a| a.names == assumed)).or_else(|| kept.first()) else {
        return report;
    };
    if answer.names != assumed {
        report = evaluate(&named(s, &answer.names));
    }
    let runs: Vec<String> = (kept.iter())
        .map(|a| format!("{} gives {}", said(&a.names), a.replicas))
        .collect();
    let evidence = if kept.iter().any(|a| a.reproduces) {
        " (kept: those whose sync gives status.desiredReplicas)"
    } else {
        ""
    };
    report.assumptions.push(format!(
        "{} Utilization target(s) name no resource: each assignment run forward{evidence}: {}; \
         the answer takes {}.",
        s.unnamed_resources.len(),
        runs.join("; "),
        said(&answer.names)
    ));
    for other in kept.iter().filter(|a| a.replicas != answer.replicas) {
        if (report.other_outcomes.iter()).any(|o| o.replicas == other.replicas) {
            continue;
        }
        report.decision.summary = format!(
            "{}; or {} if the unnamed targets are {}",
            report.decision.summary,
            other.replicas,
            said(&other.names)
        );
        report.other_outcomes.push(Outcome {
            replicas: other.replicas,
            when: format!("if the unnamed targets are {}", said(&other.names)),
            settle: "pass the HPA's YAML or its describe text, which name the resource".to_string(),
        });
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::evaluate;
    use crate::calc::testing::{cpu_utilization, scenario};
    use crate::scenario::{ObservedMetric, ObservedStatus};

    /// 4 pods at 800m of a 1000m cpu request (80 %) and 100Mi of a 400Mi memory request (25 %),
    /// one unnamed 50 % target, taken as cpu.
    fn unnamed_one() -> Scenario {
        let mut s = scenario(vec![cpu_utilization(50)], 4, 800);
        let mi = 1024 * 1024 * 1000;
        for p in &mut s.pods {
            p.containers[0].requests.0.push(("memory".into(), 400 * mi));
        }
        for m in &mut s.metrics.resource {
            m.containers[0].usage.0.push(("memory".into(), 100 * mi));
        }
        s.unnamed_resources = vec![0];
        s
    }

    #[test]
    fn without_evidence_each_assignment_is_kept_and_its_count_an_outcome() {
        // cpu: ceil(4 × 80 / 50) = 7; memory: ceil(4 × 25 / 50) = 2.
        let s = unnamed_one();
        let kept = run(&s).unwrap();
        let counts: Vec<(&str, i32)> = kept.iter().map(|a| (a.names[0], a.replicas)).collect();
        assert_eq!(counts, [("cpu", 7), ("memory", 2)]);
        let r = resolve(&s, evaluate(&s), &kept, evaluate);
        assert_eq!(r.desired_replicas, 7, "the input's own assumption answers");
        assert_eq!(r.other_outcomes[0].replicas, 2);
        assert!(
            r.decision
                .summary
                .ends_with("; or 2 if the unnamed targets are memory"),
            "{}",
            r.decision.summary
        );
    }

    #[test]
    fn the_status_count_keeps_only_the_assignment_that_reproduces_it() {
        let mut s = unnamed_one();
        s.observed_status = Some(ObservedStatus {
            conditions: Vec::new(),
            current_replicas: Some(4),
            desired_replicas: Some(2),
            current_metrics: vec![ObservedMetric {
                metric_type: "Resource".into(),
                name: "cpu".into(),
                value_milli: None,
                average_value_milli: None,
                average_utilization: Some(25),
            }],
        });
        let kept = run(&s).unwrap();
        assert_eq!(kept.len(), 1, "{kept:?}");
        assert_eq!(
            (kept[0].names.clone(), kept[0].reproduces),
            (vec!["memory"], true)
        );
        let r = resolve(&s, evaluate(&s), &kept, evaluate);
        assert_eq!(r.desired_replicas, 2);
        assert!(r.other_outcomes.is_empty());
        assert_eq!(r.metrics[0].name, "memory", "{:?}", r.metrics[0]);
    }

    #[test]
    fn two_unnamed_targets_are_tried_both_ways_and_the_status_alone_not_at_all() {
        assert_eq!(
            assignments(2),
            [vec!["cpu", "memory"], vec!["memory", "cpu"]]
        );
        assert!(assignments(3).is_empty());
        let mut s = unnamed_one();
        s.approximation = true;
        assert!(run(&s).is_none());
    }
}
