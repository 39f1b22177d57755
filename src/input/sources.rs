//! The report's `sources`: which input form each fact came from, so a reader can tell a pasted
//! value from a file's, a flag's, or one hpacalc computed or assumed.

use crate::input::inputs::LiveSource;
use crate::report::FactSource;
use crate::scenario::Source;

/// Assembles the list, in a fixed order: the HPA and its status, the files, the current count,
/// what the approximation computed, the history. In live mode every fact the API server
/// answered says so instead of naming a file.
pub fn collect(
    hpa: &FactSource,
    has_status: bool,
    files: &[FactSource],
    current_replicas: &Source,
    approximation: bool,
    history: Vec<FactSource>,
    live: Option<&LiveSource>,
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
    match live {
        Some(live) => out.into_iter().map(|s| from_server(s, live)).collect(),
        None => out,
    }
}

/// A live run's fact: what the API server answered has no file but the context and the server
/// (the evaluation time too, when its clock dated the capture). A `--history` CSV stays the file
/// it is, and what was computed or assumed stays so.
fn from_server(source: FactSource, live: &LiveSource) -> FactSource {
    let answered = match source.fact.as_str() {
        "now" => live.server_clock,
        _ => source.file.is_some() && source.form != "history CSV",
    };
    if answered {
        FactSource::live(&source.fact, &live.context, &live.server)
    } else if source.fact == "now" {
        FactSource::new("now", "clock", None)
    } else {
        source
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_runs_answers_name_the_server_and_a_history_file_stays_a_file() {
        let hpa = FactSource::new("hpa", "manifest autoscaling/v2", Some("hpa.yaml"));
        let files = [
            FactSource::new("pods", "kubectl get pods", Some("pods.json")),
            FactSource::new("now", "flag", Some("--now")),
        ];
        let history = vec![FactSource::new("history", "history CSV", Some("h.csv"))];
        let live = LiveSource {
            context: "prod".into(),
            server: "https://10.0.0.1:6443".into(),
            server_clock: false,
        };
        let out = collect(
            &hpa,
            true,
            &files,
            &Source::Target,
            false,
            history,
            Some(&live),
        );
        let server = FactSource::live("x", "prod", "https://10.0.0.1:6443");
        assert_eq!(
            out,
            [
                FactSource {
                    fact: "hpa".into(),
                    ..server.clone()
                },
                FactSource {
                    fact: "status".into(),
                    ..server.clone()
                },
                FactSource {
                    fact: "pods".into(),
                    ..server
                },
                // This machine's clock dated the capture.
                FactSource::new("now", "clock", None),
                FactSource::new("currentReplicas", "the target's spec.replicas", None),
                FactSource::new("history", "history CSV", Some("h.csv")),
            ]
        );
    }

    #[test]
    fn an_approximation_replaces_the_pod_files_with_computed_pods() {
        let hpa = FactSource::new("hpa", "kubectl get hpa", Some("t.txt"));
        let files = [FactSource::new("pods", "samples CSV", Some("p.csv"))];
        let out = collect(&hpa, true, &files, &Source::Status, true, vec![], None);
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
