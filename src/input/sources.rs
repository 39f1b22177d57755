//! The report's `sources`: which input form each fact came from, so a reader can tell a pasted
//! value from a file's, a flag's, or one hpacalc computed or assumed.

use crate::report::FactSource;
use crate::scenario::Source;

/// Assembles the list, in a fixed order: the HPA and its status, the files, the current count,
/// what the approximation computed, the history.
pub fn collect(
    hpa: &FactSource,
    has_status: bool,
    files: &[FactSource],
    current_replicas: &Source,
    approximation: bool,
    history: Vec<FactSource>,
) -> Vec<FactSource> {
    let as_fact = |fact: &str| FactSource {
        fact: fact.to_string(),
        ..hpa.clone()
    };
    let mut out = vec![hpa.clone()];
    if has_status {
        out.push(as_fact("status"));
    }
    out.extend(files.iter().cloned());
    out.push(match current_replicas {
        Source::Flag => FactSource::new("currentReplicas", "flag", Some("--current-replicas")),
        Source::Status => as_fact("currentReplicas"),
        Source::Target => FactSource::new("currentReplicas", "the target's spec.replicas", None),
        Source::Samples | Source::Default | Source::Simulation => {
            FactSource::new("currentReplicas", "computed", None)
        }
    });
    if approximation {
        out.retain(|s| s.fact != "pods" && s.fact != "resourceMetrics");
        for fact in ["pods", "resourceMetrics"] {
            out.push(FactSource::new(fact, "computed from the status", None));
        }
    }
    out.extend(history);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_approximation_replaces_the_pod_files_with_computed_pods() {
        let hpa = FactSource::new("hpa", "kubectl get hpa", Some("t.txt"));
        let files = [FactSource::new("pods", "samples CSV", Some("p.csv"))];
        let out = collect(&hpa, true, &files, &Source::Status, true, vec![]);
        let facts: Vec<(&str, &str)> = out
            .iter()
            .map(|s| (s.fact.as_str(), s.form.as_str()))
            .collect();
        assert_eq!(
            facts,
            [
                ("hpa", "kubectl get hpa"),
                ("status", "kubectl get hpa"),
                ("currentReplicas", "kubectl get hpa"),
                ("pods", "computed from the status"),
                ("resourceMetrics", "computed from the status"),
            ]
        );
    }
}
