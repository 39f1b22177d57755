//! What-if changes applied to the validated inputs: the one place a bound, a tolerance or a
//! request is changed, shared by the CLI's what-if flags (`--min`, `--max`, the tolerances,
//! `--set-request`) and the check of every `fix:` that changes a setting (`calc::advice`), so a
//! fix is judged by exactly what the flag would compute. Pure: the front end parses the flags,
//! this applies them.

use crate::scenario::{Behavior, HpaSpec, MetricSpec, MetricTarget, Pod, Resources, Scenario};

/// One change to a sync's inputs.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    MinReplicas(i32),
    MaxReplicas(i32),
    /// The controller's `--horizontal-pod-autoscaler-tolerance`.
    Tolerance(f64),
    /// `behavior.scaleUp.tolerance` (1.33+, HPAConfigurableTolerance).
    ScaleUpTolerance(f64),
    /// `behavior.scaleDown.tolerance`.
    ScaleDownTolerance(f64),
    /// `spec.metrics[index].*.target`: another target value or type (a KEDA trigger's
    /// threshold lands here).
    MetricTarget {
        index: usize,
        target: MetricTarget,
    },
    /// One container's request (`None`: every container, as `kubectl set resources` sets
    /// them), on every pod that has the container.
    Request {
        container: Option<String>,
        resource: String,
        milli: i64,
    },
}

/// A change the API server (or the pods) would not take.
#[derive(Debug, Clone, PartialEq)]
pub enum Refused {
    /// minReplicas below 0.
    Min(i32),
    /// maxReplicas below 1 or below minReplicas.
    Max { max: i32, min: i32 },
    /// A tolerance that is not a finite ratio of 0 or more.
    Tolerance { up: bool, value: f64 },
    /// A request for a container no pod has; the names the pods do have, sorted.
    NoContainer {
        container: Option<String>,
        names: Vec<String>,
    },
}

impl Resources {
    /// The list with one entry set (added when absent).
    pub fn set(&mut self, resource: &str, milli: i64) {
        match self.0.iter_mut().find(|(n, _)| n == resource) {
            Some((_, v)) => *v = milli,
            None => self.0.push((resource.to_string(), milli)),
        }
    }
}

/// The spec's changes (bounds and per-direction tolerances), then the bounds checked as
/// `validateHorizontalPodAutoscalerSpec` checks them (HPAScaleToZero on: min ≥ 0, max ≥ 1,
/// max ≥ min). Requests and the controller's tolerance are not the spec's: skipped here.
pub fn apply_to_spec(spec: &mut HpaSpec, changes: &[Change]) -> Result<(), Refused> {
    for change in changes {
        match *change {
            Change::MinReplicas(min) => spec.min_replicas = min,
            Change::MaxReplicas(max) => spec.max_replicas = max,
            Change::MetricTarget { index, ref target } => {
                if let Some(spec) = spec.metrics.get_mut(index) {
                    let (MetricSpec::Resource { target: t, .. }
                    | MetricSpec::Pods { target: t, .. }
                    | MetricSpec::Object { target: t, .. }
                    | MetricSpec::External { target: t, .. }) = spec;
                    t.clone_from(target);
                }
            }
            _ => {}
        }
    }
    if spec.min_replicas < 0 {
        return Err(Refused::Min(spec.min_replicas));
    }
    if spec.max_replicas < 1 || spec.max_replicas < spec.min_replicas {
        return Err(Refused::Max {
            max: spec.max_replicas,
            min: spec.min_replicas,
        });
    }
    for change in changes {
        let (up, value) = match *change {
            Change::ScaleUpTolerance(t) => (true, t),
            Change::ScaleDownTolerance(t) => (false, t),
            _ => continue,
        };
        if !(value.is_finite() && value >= 0.0) {
            return Err(Refused::Tolerance { up, value });
        }
        // Setting a field of `behavior` makes it non-nil: the API server defaults the rest.
        let behavior = spec.behavior.get_or_insert_with(Behavior::api_defaults);
        let rules = if up {
            &mut behavior.scale_up
        } else {
            &mut behavior.scale_down
        };
        rules.tolerance = Some(value);
    }
    Ok(())
}

/// The requests on every pod of one sync that has the container, in order (a later one for the
/// same container and resource wins).
pub fn apply_to_pods(pods: &mut [Pod], changes: &[Change]) -> Result<(), Refused> {
    for change in changes {
        let Change::Request {
            container,
            resource,
            milli,
        } = change
        else {
            continue;
        };
        let mut found = false;
        for c in pods
            .iter_mut()
            .flat_map(|p| p.containers.iter_mut())
            .filter(|c| container.as_deref().is_none_or(|name| c.name == name))
        {
            c.requests.set(resource, *milli);
            found = true;
        }
        if !found {
            let mut names: Vec<String> = (pods.iter())
                .flat_map(|p| p.containers.iter().map(|c| c.name.clone()))
                .collect();
            names.sort_unstable();
            names.dedup();
            return Err(Refused::NoContainer {
                container: container.clone(),
                names,
            });
        }
    }
    Ok(())
}

/// Every change on one sync's scenario: the spec's, the pods' and the controller's tolerance.
pub fn apply(s: &mut Scenario, changes: &[Change]) -> Result<(), Refused> {
    apply_to_spec(&mut s.hpa, changes)?;
    // Only a request changes the pods: the others keep them shared with the scenario copied.
    if (changes.iter()).any(|c| matches!(c, Change::Request { .. })) {
        apply_to_pods(&mut s.pods, changes)?;
    }
    for change in changes {
        if let Change::Tolerance(t) = *change {
            if !(t.is_finite() && t >= 0.0) {
                return Err(Refused::Tolerance { up: true, value: t });
            }
            s.config.tolerance = t;
        }
    }
    Ok(())
}

/// The scenario with the changes, when they apply.
pub fn changed(s: &Scenario, changes: &[Change]) -> Option<Scenario> {
    let mut out = s.clone();
    apply(&mut out, changes).ok()?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::testing::{cpu_utilization, scenario};

    #[test]
    fn bounds_are_checked_after_both_are_set() {
        let mut s = scenario(vec![cpu_utilization(50)], 2, 500);
        let err = apply(&mut s, &[Change::MinReplicas(5), Change::MaxReplicas(4)]);
        assert_eq!(err, Err(Refused::Max { max: 4, min: 5 }));
        let mut s = scenario(vec![cpu_utilization(50)], 2, 500);
        apply(&mut s, &[Change::MaxReplicas(20), Change::MinReplicas(12)]).unwrap();
        assert_eq!((s.hpa.min_replicas, s.hpa.max_replicas), (12, 20));
    }

    #[test]
    fn a_request_changes_every_pod_with_the_container_or_names_the_containers() {
        let mut s = scenario(vec![cpu_utilization(50)], 2, 500);
        let name = s.pods[0].containers[0].name.clone();
        let change = |container: &str| Change::Request {
            container: Some(container.into()),
            resource: "cpu".into(),
            milli: 250,
        };
        apply(&mut s, &[change(&name)]).unwrap();
        assert!(
            s.pods
                .iter()
                .all(|p| p.containers[0].requests.get("cpu") == Some(250))
        );
        let Err(Refused::NoContainer { names, .. }) = apply(&mut s, &[change("nope")]) else {
            panic!("a missing container is refused");
        };
        assert!(names.contains(&name), "{names:?}");
    }

    #[test]
    fn the_controller_tolerance_is_the_config_and_a_direction_is_behavior() {
        let mut s = scenario(vec![cpu_utilization(50)], 2, 500);
        s.hpa.behavior = None;
        apply(
            &mut s,
            &[Change::Tolerance(0.2), Change::ScaleDownTolerance(0.05)],
        )
        .unwrap();
        assert_eq!(s.config.tolerance, 0.2);
        let b = s.hpa.behavior.unwrap();
        assert_eq!(b.scale_down.tolerance, Some(0.05));
        assert_eq!(b.scale_up.tolerance, None);
    }
}
