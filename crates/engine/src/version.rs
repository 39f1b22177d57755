//! Which Kubernetes release's controller rules apply (`--kube-version`) and which feature gates
//! are on (`--feature-gates`), with each release's gate defaults from `pkg/features/kube_features.go`.

/// Oldest and newest supported minor versions (1.27 … 1.37).
pub const OLDEST: u32 = 27;
pub const NEWEST: u32 = 37;

/// Parses `1.33`, `v1.33` or `1.33.2` into the minor version.
pub fn parse_kube_version(text: &str) -> Result<u32, String> {
    let t = text.trim();
    let t = t.strip_prefix('v').unwrap_or(t);
    let mut parts = t.split('.');
    let minor = match (parts.next(), parts.next()) {
        (Some("1"), Some(minor)) => minor.parse::<u32>().ok(),
        _ => None,
    };
    match minor {
        Some(m) if (OLDEST..=NEWEST).contains(&m) => Ok(m),
        _ => Err(format!(
            "found {found}, expected a Kubernetes version from 1.{OLDEST} to 1.{NEWEST}",
            found = crate::quote::quoted(text)
        )),
    }
}

/// The kube-controller-manager feature gates that change the HPA's answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeatureGates {
    pub hpa_configurable_tolerance: bool,
    pub hpa_scale_to_zero: bool,
    pub pod_level_resources: bool,
    /// `HPAContainerMetrics` (beta up to 1.29, then GA).
    pub hpa_container_metrics: bool,
}

/// Each gate's default in a release.
pub fn default_gates(minor: u32) -> FeatureGates {
    FeatureGates {
        // Alpha (off) in 1.33–1.34, beta (on) from 1.35, GA in 1.37.
        hpa_configurable_tolerance: minor >= 35,
        // Alpha (off) until beta in 1.37.
        hpa_scale_to_zero: minor >= 37,
        // Beta (on) from 1.34; the controller reads pod-level requests from then on.
        pod_level_resources: minor >= 34,
        // Beta (on) in 1.27–1.29, GA from 1.30.
        hpa_container_metrics: true,
    }
}

/// A gate `--feature-gates` may set, and the releases where it is locked to its default.
struct Gate {
    name: &'static str,
    /// First release where the gate exists (earlier: unknown to kube-controller-manager).
    since: u32,
    /// First release where the gate is GA and locked to true.
    locked_from: Option<u32>,
    field: fn(&mut FeatureGates) -> &mut bool,
}

const GATES: &[Gate] = &[
    Gate {
        name: "HPAConfigurableTolerance",
        since: 33,
        locked_from: Some(37),
        field: |g| &mut g.hpa_configurable_tolerance,
    },
    Gate {
        name: "HPAScaleToZero",
        since: 16,
        locked_from: None,
        field: |g| &mut g.hpa_scale_to_zero,
    },
    Gate {
        name: "PodLevelResources",
        since: 32,
        locked_from: None,
        field: |g| &mut g.pod_level_resources,
    },
    Gate {
        name: "HPAContainerMetrics",
        since: 20,
        locked_from: Some(30),
        field: |g| &mut g.hpa_container_metrics,
    },
];

/// Applies `NAME=true|false,...` like kube-controller-manager's `--feature-gates`.
pub fn apply_feature_gates(gates: &mut FeatureGates, minor: u32, text: &str) -> Result<(), String> {
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (name, value) = item.split_once('=').ok_or_else(|| {
            format!(
                "found {}, expected NAME=true or NAME=false",
                crate::quote::quoted(item)
            )
        })?;
        let (name, value) = (name.trim(), value.trim());
        // The name as a message shows it: escaped and cut to 80 characters with its length.
        let shown = crate::quote::quoted_bare(name);
        let enabled = match value.to_ascii_lowercase().as_str() {
            "true" => true,
            "false" => false,
            _ => {
                return Err(format!(
                    "found {found}, expected NAME=true or NAME=false",
                    found = crate::quote::quoted(item)
                ));
            }
        };
        let known: Vec<&str> = GATES.iter().map(|g| g.name).collect();
        let gate = GATES
            .iter()
            .find(|g| g.name == name)
            .filter(|g| minor >= g.since)
            .ok_or_else(|| {
                format!(
                    "found unrecognized feature gate {} for 1.{minor}, expected one of {}",
                    crate::quote::quoted(name),
                    known.join(", ")
                )
            })?;
        if gate.locked_from.is_some_and(|from| minor >= from) && !enabled {
            return Err(format!(
                "found {shown}=false, expected true: the feature is GA and locked to true in 1.{minor}"
            ));
        }
        *(gate.field)(gates) = enabled;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_in_range_only() {
        assert_eq!(parse_kube_version("1.33"), Ok(33));
        assert_eq!(parse_kube_version("v1.27.4"), Ok(27));
        for bad in ["1.26", "1.38", "2.0", "latest", ""] {
            assert!(parse_kube_version(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn gate_defaults_follow_the_releases() {
        assert!(!default_gates(34).hpa_configurable_tolerance);
        assert!(default_gates(35).hpa_configurable_tolerance);
        assert!(!default_gates(36).hpa_scale_to_zero);
        assert!(default_gates(37).hpa_scale_to_zero);
        assert!(!default_gates(33).pod_level_resources);
        assert!(default_gates(34).pod_level_resources);
    }

    #[test]
    fn feature_gates_override_like_kube_controller_manager() {
        let mut g = default_gates(33);
        apply_feature_gates(
            &mut g,
            33,
            "HPAConfigurableTolerance=true, PodLevelResources=false",
        )
        .unwrap();
        assert!(g.hpa_configurable_tolerance && !g.pod_level_resources);
        assert!(apply_feature_gates(&mut g, 33, "Nope=true").is_err());
        assert!(apply_feature_gates(&mut g, 32, "HPAConfigurableTolerance=true").is_err());
        assert!(apply_feature_gates(&mut g, 37, "HPAConfigurableTolerance=false").is_err());
        assert!(apply_feature_gates(&mut g, 33, "HPAScaleToZero=maybe").is_err());
    }
}
