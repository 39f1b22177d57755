//! What one sync cannot do without, and where each number comes from when several inputs could
//! give it: the current replica count (`scale.spec.replicas`), the scale's `status.replicas`, and
//! the pods the pod-based metrics read. When nothing gives what the controller needs, the answer
//! would be made up (`--hpa` alone used to answer "0 → 0, scaling disabled"), so it is a usage
//! error that names the missing input and the flag that supplies it.

use crate::error::InputError;
use crate::error::UsageError;
use crate::input::target::TargetScale;
use crate::scenario::{MetricSpec, Source, TargetType};

/// The current replica count, where it came from, and a note when the source is worth saying.
#[derive(Debug, Clone, PartialEq)]
pub struct Current {
    pub replicas: i32,
    pub source: Source,
    pub note: Option<String>,
}

/// Where the current count can come from, in the order they win.
pub struct CurrentInputs<'a> {
    /// `--current-replicas`.
    pub flag: Option<i32>,
    /// `--target`, or the target inside `--pods`.
    pub target: Option<&'a TargetScale>,
    /// The HPA's `status.currentReplicas`.
    pub status: Option<i32>,
    /// The pods counted, when `--pods` was given.
    pub counted: Option<i32>,
}

/// The controller reads `scale.spec.replicas`: `--current-replicas`, else the target's
/// `spec.replicas`, else the HPA's `status.currentReplicas` (the count at the last sync), else the
/// pods counted.
pub fn current_replicas(inputs: &CurrentInputs<'_>) -> anyhow::Result<Current> {
    if let Some(n) = inputs.flag {
        if n < 0 {
            return Err(InputError::new(
                "--current-replicas",
                format!("found {n}, expected 0 or more"),
            )
            .into());
        }
        return Ok(Current {
            replicas: n,
            source: Source::Flag,
            note: None,
        });
    }
    if let Some(target) = inputs.target
        && let Some(n) = target.spec_replicas
    {
        let differs = inputs
            .status
            .filter(|&s| s != n)
            .map(|s| format!(" (the HPA's status.currentReplicas, {s}, is from its last sync)"))
            .unwrap_or_default();
        return Ok(Current {
            replicas: n,
            source: Source::Target,
            note: Some(format!(
                "Current replicas: {n}, the target's spec.replicas in {}{differs}.",
                target.file
            )),
        });
    }
    if let Some(n) = inputs.status {
        return Ok(Current {
            replicas: n,
            source: Source::Status,
            note: None,
        });
    }
    match inputs.counted {
        Some(n) => Ok(Current {
            replicas: n,
            source: Source::Samples,
            note: None,
        }),
        None => Err(UsageError(
            "no current replica count: the HPA has no status.currentReplicas and there are no \
             pods to count; pass --current-replicas N (or --target with kubectl get deploy NAME \
             -o json, or --pods)"
                .to_string(),
        )
        .into()),
    }
}

/// `scale.status.replicas` for AverageValue Object and External metrics, and the sentence that
/// says which value was used (only when such a metric exists).
pub fn status_replicas(
    flag: Option<i32>,
    target: Option<&TargetScale>,
    current: i32,
    specs: &[MetricSpec],
) -> Result<(i32, Option<String>), InputError> {
    let divides = specs.iter().any(|m| {
        matches!(m, MetricSpec::Object { target, .. } | MetricSpec::External { target, .. }
            if target.target_type == TargetType::AverageValue
                && target.average_value_milli.is_some())
    });
    let (n, said) = match (flag, target.and_then(|t| t.status_replicas.map(|n| (n, t)))) {
        (Some(n), _) if n < 0 => {
            return Err(InputError::new(
                "--status-replicas",
                format!("found {n}, expected 0 or more"),
            ));
        }
        (Some(n), _) => (n, format!("{n}, from --status-replicas")),
        (None, Some((n, t))) => (
            n,
            format!("{n}, the target's status.replicas in {}", t.file),
        ),
        (None, None) => (
            current,
            format!(
                "{current}, the current count (no rollout assumed; pass --target or \
                 --status-replicas when one is in progress)"
            ),
        ),
    };
    let note = divides.then(|| {
        format!(
            "AverageValue Object/External metrics divide by the scale's status.replicas: {said}."
        )
    });
    Ok((n, note))
}

/// Whether a metric reads the pods: Resource, ContainerResource and Pods metrics average over
/// them, and Object and External `Value` targets multiply by the ready pods
/// (`getUsageRatioReplicaCount`).
fn reads_pods(spec: &MetricSpec) -> bool {
    match spec {
        MetricSpec::Resource { .. } | MetricSpec::Pods { .. } => true,
        MetricSpec::Object { target, .. } | MetricSpec::External { target, .. } => {
            target.target_type == TargetType::Value
        }
    }
}

/// Without `--pods` and without a status to approximate from, a metric that reads the pods would
/// see none: a usage error naming the first such metric. A target at 0 replicas has no pods.
pub fn pods_for_metrics(
    specs: &[MetricSpec],
    current_replicas: i32,
    pods_given: bool,
    approximation: bool,
) -> Result<(), UsageError> {
    if pods_given || approximation || current_replicas == 0 {
        return Ok(());
    }
    let Some(spec) = specs.iter().find(|s| reads_pods(s)) else {
        return Ok(());
    };
    let what = match spec {
        MetricSpec::Resource { .. } => "averages its usage over the pods",
        MetricSpec::Pods { .. } => "averages its values over the pods",
        _ => "multiplies its ratio by the ready pods (a Value target)",
    };
    Err(UsageError(format!(
        "no pods: the {} metric {} {what}, and the HPA has no status.currentMetrics to \
         approximate from; pass --pods with kubectl get pods -o json (or CSV samples)",
        spec.type_name(),
        spec.metric_name()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{MetricIdentifier, MetricTarget, ObjectReference};

    fn scale(spec: Option<i32>, status: Option<i32>) -> TargetScale {
        TargetScale {
            file: "deploy.json".into(),
            spec_replicas: spec,
            status_replicas: status,
            replicas_managers: Vec::new(),
        }
    }

    fn inputs<'a>(target: Option<&'a TargetScale>, status: Option<i32>) -> CurrentInputs<'a> {
        CurrentInputs {
            flag: None,
            target,
            status,
            counted: None,
        }
    }

    fn target(target_type: TargetType) -> MetricTarget {
        MetricTarget {
            target_type,
            average_utilization: (target_type == TargetType::Utilization).then_some(50),
            average_value_milli: (target_type == TargetType::AverageValue).then_some(1000),
            value_milli: (target_type == TargetType::Value).then_some(1000),
        }
    }

    fn cpu() -> MetricSpec {
        MetricSpec::Resource {
            resource: "cpu".into(),
            container: None,
            target: target(TargetType::Utilization),
        }
    }

    fn object(target_type: TargetType) -> MetricSpec {
        MetricSpec::Object {
            described_object: ObjectReference {
                api_version: "v1".into(),
                kind: "Service".into(),
                name: "web".into(),
            },
            metric: MetricIdentifier {
                name: "rps".into(),
                selector: None,
            },
            target: target(target_type),
        }
    }

    #[test]
    fn the_current_count_comes_from_flag_target_status_then_pods() {
        let t = scale(Some(4), Some(6));
        let mut all = inputs(Some(&t), Some(3));
        all.flag = Some(5);
        all.counted = Some(2);
        assert_eq!(current_replicas(&all).unwrap().replicas, 5);
        all.flag = None;
        let from_target = current_replicas(&all).unwrap();
        assert_eq!(from_target.replicas, 4);
        assert_eq!(
            from_target.note.as_deref(),
            Some(
                "Current replicas: 4, the target's spec.replicas in deploy.json (the HPA's \
                 status.currentReplicas, 3, is from its last sync)."
            )
        );
        all.target = None;
        assert_eq!(current_replicas(&all).unwrap().source, Source::Status);
        all.status = None;
        assert_eq!(current_replicas(&all).unwrap().source, Source::Samples);
    }

    #[test]
    fn no_source_of_the_current_count_is_a_usage_error() {
        let err = current_replicas(&inputs(None, None)).unwrap_err();
        let usage = err.downcast_ref::<UsageError>().expect("a usage error");
        assert!(usage.0.contains("pass --current-replicas N"), "{usage}");
        // A target without spec.replicas gives no count.
        let t = scale(None, Some(2));
        assert!(current_replicas(&inputs(Some(&t), None)).is_err());
    }

    #[test]
    fn status_replicas_come_from_flag_then_target_then_the_current_count() {
        let specs = [object(TargetType::AverageValue)];
        let t = scale(Some(4), Some(6));
        assert_eq!(status_replicas(Some(7), Some(&t), 4, &specs).unwrap().0, 7);
        let (n, note) = status_replicas(None, Some(&t), 4, &specs).unwrap();
        assert_eq!(n, 6);
        assert_eq!(
            note.as_deref(),
            Some(
                "AverageValue Object/External metrics divide by the scale's status.replicas: 6, \
                 the target's status.replicas in deploy.json."
            )
        );
        let (n, note) = status_replicas(None, None, 4, &specs).unwrap();
        assert_eq!(n, 4);
        assert!(note.unwrap().contains("4, the current count"));
        // Said only when a metric divides by it.
        let (_, note) = status_replicas(None, Some(&t), 4, &[cpu()]).unwrap();
        assert_eq!(note, None);
        assert!(status_replicas(Some(-1), None, 4, &specs).is_err());
    }

    #[test]
    fn metrics_that_read_pods_need_pods_or_a_status() {
        let err = pods_for_metrics(&[cpu()], 3, false, false).unwrap_err();
        assert!(
            err.0
                .starts_with("no pods: the Resource metric cpu averages its usage"),
            "{err}"
        );
        assert!(err.0.contains("pass --pods"), "{err}");
        assert!(pods_for_metrics(&[object(TargetType::Value)], 3, false, false).is_err());
        // What needs no pods, or has them, or can approximate, or has 0 replicas.
        assert!(pods_for_metrics(&[object(TargetType::AverageValue)], 3, false, false).is_ok());
        assert!(pods_for_metrics(&[cpu()], 3, true, false).is_ok());
        assert!(pods_for_metrics(&[cpu()], 3, false, true).is_ok());
        assert!(pods_for_metrics(&[cpu()], 0, false, false).is_ok());
    }
}
