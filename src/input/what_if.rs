//! What-if changes: the same inputs with other requests, limits, tolerances, bounds or
//! controller flags. A `WhatIf` is what the flags (`--set-request`, `--min`, ...) or the
//! `--what-if KEY=VALUE` items say, typed; it is applied to the validated HPA spec and pods (one
//! sync) or to a simulation's settings, so the calculation never knows a change was asked for.

use crate::error::InputError;
use crate::quantity::{build_quantity, parse_milli};
use crate::scenario::{HpaSpec, Pod, Scenario};
use hpacalc_engine::what_if::{self, Change, Refused};

/// The changes, as given; each `None` or empty leaves the input as it is.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WhatIf {
    /// `CONTAINER.RESOURCE=QUANTITY`, in order (a later one for the same container and
    /// resource wins).
    pub set_request: Vec<String>,
    pub set_limit: Vec<String>,
    pub tolerance: Option<f64>,
    pub scale_up_tolerance: Option<f64>,
    pub scale_down_tolerance: Option<f64>,
    pub min: Option<i32>,
    pub max: Option<i32>,
    pub sync_period: Option<String>,
    pub cpu_initialization_period: Option<String>,
    pub initial_readiness_delay: Option<String>,
    pub downscale_stabilization: Option<String>,
    pub kube_version: Option<String>,
    pub feature_gates: Option<String>,
    pub metrics_window: Option<String>,
}

/// The keys `--what-if` accepts: the what-if flags and the controller flags, without dashes.
pub const KEYS: [&str; 14] = [
    "set-request",
    "set-limit",
    "tolerance",
    "scale-up-tolerance",
    "scale-down-tolerance",
    "min",
    "max",
    "sync-period",
    "cpu-initialization-period",
    "initial-readiness-delay",
    "downscale-stabilization",
    "kube-version",
    "feature-gates",
    "metrics-window",
];

/// A resource set to a quantity in one container (`app.cpu=250m`) or, as `kubectl set resources
/// --requests=cpu=250m` does, in every container (`cpu=250m`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerQuantity {
    /// `None`: every container.
    pub container: Option<String>,
    pub resource: String,
    pub milli: i64,
}

impl WhatIf {
    /// `--what-if KEY=VALUE` items, each over the ones before.
    pub fn parse(items: &[String]) -> Result<WhatIf, InputError> {
        let mut w = WhatIf::default();
        for item in items {
            w.set(item)?;
        }
        Ok(w)
    }

    /// One `KEY=VALUE` item over the changes so far.
    fn set(&mut self, item: &str) -> Result<(), InputError> {
        let bad = |expected: &str| {
            InputError::new(
                "--what-if",
                format!("found {}, expected {expected}", crate::error::quoted(item)),
            )
        };
        let (key, value) = item
            .split_once('=')
            .ok_or_else(|| bad("KEY=VALUE such as set-request=app.cpu=250m"))?;
        let ratio = || -> Result<Option<f64>, InputError> {
            value
                .parse::<f64>()
                .ok()
                .filter(|r| r.is_finite() && *r >= 0.0)
                .map(Some)
                .ok_or_else(|| bad("a ratio of 0 or more"))
        };
        let count = || -> Result<Option<i32>, InputError> {
            value
                .parse::<i32>()
                .ok()
                .map(Some)
                .ok_or_else(|| bad("a whole number"))
        };
        let text = Some(value.to_string());
        match key {
            "set-request" => self.set_request.push(value.to_string()),
            "set-limit" => self.set_limit.push(value.to_string()),
            "tolerance" => self.tolerance = ratio()?,
            "scale-up-tolerance" => self.scale_up_tolerance = ratio()?,
            "scale-down-tolerance" => self.scale_down_tolerance = ratio()?,
            "min" => self.min = count()?,
            "max" => self.max = count()?,
            "sync-period" => self.sync_period = text,
            "cpu-initialization-period" => self.cpu_initialization_period = text,
            "initial-readiness-delay" => self.initial_readiness_delay = text,
            "downscale-stabilization" => self.downscale_stabilization = text,
            "kube-version" => self.kube_version = text,
            "feature-gates" => self.feature_gates = text,
            "metrics-window" => self.metrics_window = text,
            _ => return Err(bad(&format!("a KEY among {}", KEYS.join(", ")))),
        }
        Ok(())
    }

    /// `other`'s changes over these: each one `other` sets wins; its requests and limits come
    /// after these.
    pub fn then(&self, other: &WhatIf) -> WhatIf {
        fn pick<T: Clone>(a: &Option<T>, b: &Option<T>) -> Option<T> {
            b.clone().or_else(|| a.clone())
        }
        let mut set_request = self.set_request.clone();
        set_request.extend(other.set_request.iter().cloned());
        let mut set_limit = self.set_limit.clone();
        set_limit.extend(other.set_limit.iter().cloned());
        WhatIf {
            set_request,
            set_limit,
            tolerance: pick(&self.tolerance, &other.tolerance),
            scale_up_tolerance: pick(&self.scale_up_tolerance, &other.scale_up_tolerance),
            scale_down_tolerance: pick(&self.scale_down_tolerance, &other.scale_down_tolerance),
            min: pick(&self.min, &other.min),
            max: pick(&self.max, &other.max),
            sync_period: pick(&self.sync_period, &other.sync_period),
            cpu_initialization_period: pick(
                &self.cpu_initialization_period,
                &other.cpu_initialization_period,
            ),
            initial_readiness_delay: pick(
                &self.initial_readiness_delay,
                &other.initial_readiness_delay,
            ),
            downscale_stabilization: pick(
                &self.downscale_stabilization,
                &other.downscale_stabilization,
            ),
            kube_version: pick(&self.kube_version, &other.kube_version),
            feature_gates: pick(&self.feature_gates, &other.feature_gates),
            metrics_window: pick(&self.metrics_window, &other.metrics_window),
        }
    }

    /// No change at all: the plain command.
    pub fn is_empty(&self) -> bool {
        *self == WhatIf::default()
    }

    /// The changes as `--what-if` would name them, for labels: `set-request app.cpu=250m`.
    pub fn labels(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        out.extend(self.set_request.iter().map(|r| format!("set-request {r}")));
        out.extend(self.set_limit.iter().map(|r| format!("set-limit {r}")));
        let numbers = [
            ("tolerance", self.tolerance),
            ("scale-up-tolerance", self.scale_up_tolerance),
            ("scale-down-tolerance", self.scale_down_tolerance),
            ("min", self.min.map(f64::from)),
            ("max", self.max.map(f64::from)),
        ];
        out.extend((numbers.iter()).filter_map(|(k, v)| v.map(|v| format!("{k} {v}"))));
        let texts = [
            ("sync-period", &self.sync_period),
            ("cpu-initialization-period", &self.cpu_initialization_period),
            ("initial-readiness-delay", &self.initial_readiness_delay),
            ("downscale-stabilization", &self.downscale_stabilization),
            ("kube-version", &self.kube_version),
            ("feature-gates", &self.feature_gates),
            ("metrics-window", &self.metrics_window),
        ];
        out.extend((texts.iter()).filter_map(|(k, v)| v.as_ref().map(|v| format!("{k} {v}"))));
        out
    }

    /// `--set-request` as typed changes.
    pub fn requests(&self) -> Result<Vec<ContainerQuantity>, InputError> {
        self.set_request
            .iter()
            .map(|t| container_quantity("--set-request", t))
            .collect()
    }

    /// `--set-limit` as typed changes.
    pub fn limits(&self) -> Result<Vec<ContainerQuantity>, InputError> {
        self.set_limit
            .iter()
            .map(|t| container_quantity("--set-limit", t))
            .collect()
    }

    /// The changes as the engine applies them (`hpacalc_engine::what_if`): the bounds, the
    /// tolerances and the requests, typed. The controller flags go through `Settings`.
    pub fn changes(&self) -> Result<Vec<Change>, InputError> {
        let mut out = Vec::new();
        out.extend(self.min.map(Change::MinReplicas));
        out.extend(self.max.map(Change::MaxReplicas));
        out.extend(self.tolerance.map(Change::Tolerance));
        out.extend(self.scale_up_tolerance.map(Change::ScaleUpTolerance));
        out.extend(self.scale_down_tolerance.map(Change::ScaleDownTolerance));
        for r in self.requests()? {
            out.push(Change::Request {
                container: r.container,
                resource: r.resource,
                milli: r.milli,
            });
        }
        Ok(out)
    }

    /// Every change on one sync's scenario, as the engine's fix check applies its own.
    pub fn apply(&self, s: &mut Scenario) -> Result<(), InputError> {
        what_if::apply(s, &self.changes()?).map_err(refused)
    }

    /// `--set-request` on every pod of one sync that has the container.
    pub fn apply_to_pods(&self, pods: &mut [Pod]) -> Result<(), InputError> {
        what_if::apply_to_pods(pods, &self.changes()?).map_err(refused)
    }

    /// `--min`, `--max` and the per-direction tolerances on the validated spec, checked as the
    /// API server checks them.
    pub fn apply_to_spec(&self, spec: &mut HpaSpec) -> Result<(), InputError> {
        what_if::apply_to_spec(spec, &self.changes()?).map_err(refused)
    }
}

impl ContainerQuantity {
    /// Whether the change sets the container named `name`.
    pub fn applies_to(&self, name: &str) -> bool {
        self.container.as_deref().is_none_or(|c| c == name)
    }
}

/// The flag and the message of a change the engine refused.
fn refused(r: Refused) -> InputError {
    match r {
        Refused::Min(min) => InputError::new("--min", format!("found {min}, expected 0 or more")),
        Refused::Max { max, min } => InputError::new(
            "--max",
            format!("found {max}, expected at least 1 and at least minReplicas ({min})"),
        ),
        Refused::Tolerance { up, value } => InputError::new(
            if up {
                "--scale-up-tolerance"
            } else {
                "--scale-down-tolerance"
            },
            format!("found {value}, expected a ratio of 0 or more"),
        ),
        Refused::NoContainer { container, names } => {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let change = ContainerQuantity {
                container,
                resource: String::new(),
                milli: 0,
            };
            no_container("--set-request", &change, &names)
        }
    }
}

/// The error for a change naming a container the pods do not have.
pub fn no_container(flag: &str, change: &ContainerQuantity, names: &[&str]) -> InputError {
    InputError::new(
        flag,
        format!(
            "found the container {}, expected one the pods have: {}",
            crate::error::quoted(change.container.as_deref().unwrap_or("")),
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        ),
    )
}

/// `CONTAINER.RESOURCE=QUANTITY`, or `RESOURCE=QUANTITY` for every container. A container's
/// name is a DNS-1123 label (`ValidateDNS1123Label` in `validateContainers`), never with a dot:
/// the name is cut at the first dot, so `app.nvidia.com/gpu=1` is `nvidia.com/gpu` of `app`.
fn container_quantity(flag: &str, text: &str) -> Result<ContainerQuantity, InputError> {
    let bad = || {
        InputError::new(
            flag,
            format!(
                "found {}, expected RESOURCE=QUANTITY (every container) or \
                 CONTAINER.RESOURCE=QUANTITY (one), such as cpu=250m or app.cpu=250m",
                crate::error::quoted(text)
            ),
        )
    };
    let (name, value) = text.split_once('=').ok_or_else(bad)?;
    let (container, resource) = match name.split_once('.') {
        Some((container, resource)) => (Some(container), resource),
        None => (None, name),
    };
    if container.is_some_and(str::is_empty) || resource.is_empty() {
        return Err(bad());
    }
    let milli =
        parse_milli(value.trim()).map_err(|e| InputError::new(flag, e.to_string()).field(name))?;
    if milli < 0 {
        return Err(InputError::new(
            flag,
            format!(
                "found {name}={}, expected 0 or more",
                build_quantity(resource, milli)
            ),
        ));
    }
    Ok(ContainerQuantity {
        container: container.map(str::to_string),
        resource: resource.to_string(),
        milli,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Resources;

    #[test]
    fn items_parse_by_key_and_later_ones_win() {
        let w = WhatIf::parse(&[
            "set-request=app.cpu=250m".into(),
            "tolerance=0.05".into(),
            "min=3".into(),
            "tolerance=0.2".into(),
            "kube-version=1.32".into(),
        ])
        .unwrap();
        assert_eq!(w.set_request, ["app.cpu=250m"]);
        assert_eq!((w.tolerance, w.min), (Some(0.2), Some(3)));
        assert_eq!(w.kube_version.as_deref(), Some("1.32"));
        assert_eq!(
            w.labels(),
            [
                "set-request app.cpu=250m",
                "tolerance 0.2",
                "min 3",
                "kube-version 1.32"
            ]
        );
        let e = WhatIf::parse(&["pod-request=cpu=1".into()]).unwrap_err();
        assert!(
            e.to_string().contains("expected a KEY among set-request"),
            "{e}"
        );
        assert!(WhatIf::parse(&["tolerance=-1".into()]).is_err());
    }

    #[test]
    fn a_resource_without_a_container_sets_every_container_as_kubectl_set_resources_does() {
        let q = container_quantity("--set-request", "cpu=250m").unwrap();
        assert_eq!(
            (q.container, q.resource.as_str(), q.milli),
            (None, "cpu", 250)
        );
        let w = WhatIf {
            set_request: vec!["cpu=250m".into()],
            ..WhatIf::default()
        };
        let pod = |names: &[&str]| Pod {
            name: "web-1".to_string(),
            phase: crate::scenario::PodPhase::Running,
            deleting: false,
            start_time: None,
            ready: None,
            containers: names
                .iter()
                .map(|n| crate::scenario::Container {
                    name: (*n).to_string(),
                    kind: crate::scenario::ContainerKind::App,
                    requests: Resources::default(),
                })
                .collect(),
            pod_requests: None,
            overhead: None,
            placement: Default::default(),
        };
        let mut pods = vec![pod(&["app", "sidecar"]), pod(&["app"])];
        w.apply_to_pods(&mut pods).unwrap();
        for c in pods.iter().flat_map(|p| &p.containers) {
            assert_eq!(c.requests.get("cpu"), Some(250), "{}", c.name);
        }
    }

    #[test]
    fn a_container_quantity_names_the_container_and_the_resource() {
        let q = container_quantity("--set-request", "app.cpu=1500m").unwrap();
        assert_eq!(
            (q.container.as_deref(), q.resource.as_str()),
            (Some("app"), "cpu")
        );
        assert_eq!(q.milli, 1500);
        let gpu = container_quantity("--set-limit", "app.nvidia.com/gpu=1").unwrap();
        assert_eq!(
            (gpu.container.as_deref(), gpu.resource.as_str()),
            (Some("app"), "nvidia.com/gpu")
        );
        for bad in ["app.cpu", ".cpu=1", "app.=1", "app.cpu=lots", "=1"] {
            assert!(container_quantity("--set-request", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_per_direction_tolerance_defaults_the_rest_of_behavior() {
        let mut spec = crate::calc::testing::scenario(Vec::new(), 0, 0).hpa;
        spec.behavior = None;
        let w = WhatIf {
            scale_up_tolerance: Some(0.05),
            ..WhatIf::default()
        };
        w.apply_to_spec(&mut spec).unwrap();
        let b = spec.behavior.unwrap();
        assert_eq!(b.scale_up.tolerance, Some(0.05));
        assert_eq!(b.scale_up.stabilization_window_seconds, Some(0));
        assert_eq!(b.scale_down.stabilization_window_seconds, None);
        assert_eq!(b.scale_down.policies.len(), 1);
    }

    #[test]
    fn bounds_are_checked_as_the_api_server_checks_them() {
        let mut spec = crate::calc::testing::scenario(Vec::new(), 0, 0).hpa;
        let w = WhatIf {
            min: Some(5),
            max: Some(4),
            ..WhatIf::default()
        };
        assert!(w.apply_to_spec(&mut spec).is_err());
        let w = WhatIf {
            min: Some(3),
            max: Some(12),
            ..WhatIf::default()
        };
        w.apply_to_spec(&mut spec).unwrap();
        assert_eq!((spec.min_replicas, spec.max_replicas), (3, 12));
    }

    #[test]
    fn later_changes_win_over_earlier_ones() {
        let all = WhatIf {
            tolerance: Some(0.2),
            set_request: vec!["app.cpu=1".into()],
            ..WhatIf::default()
        };
        let one = WhatIf {
            tolerance: Some(0.05),
            set_request: vec!["app.cpu=250m".into()],
            ..WhatIf::default()
        };
        let both = all.then(&one);
        assert_eq!(both.tolerance, Some(0.05));
        assert_eq!(both.set_request, ["app.cpu=1", "app.cpu=250m"]);
    }
}
