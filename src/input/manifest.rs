//! STUB: HPA manifests (autoscaling/v2, v2beta2, v1) → validated `HpaSpec`.

use crate::error::InputError;
use crate::scenario::HpaSpec;

/// What the manifest's `status` says (used for defaults and comparisons).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HpaStatus {
    pub current_replicas: Option<i32>,
    pub desired_replicas: Option<i32>,
    /// `status.conditions` has `ScaledToZero` with status `True`.
    pub scaled_to_zero: bool,
    /// `status.currentMetrics`, in order.
    pub current_metrics: Vec<CurrentMetric>,
}

/// One entry of `status.currentMetrics`, quantities in milli-units.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CurrentMetric {
    /// `Resource`, `ContainerResource`, `Pods`, `Object` or `External`.
    pub metric_type: String,
    /// Resource or metric name.
    pub name: String,
    pub value_milli: Option<i64>,
    pub average_value_milli: Option<i64>,
    pub average_utilization: Option<i32>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LoadedHpa {
    pub spec: HpaSpec,
    pub status: HpaStatus,
    /// Unknown keys and other things worth a warning on stderr.
    pub warnings: Vec<String>,
}

/// Parses `text` (read from `file`, for messages) and picks the HPA named `name` when several.
pub fn load(file: &str, text: &str, name: Option<&str>) -> Result<LoadedHpa, InputError> {
    let _ = (text, name);
    Err(InputError::new(file, "manifest parsing is not written yet"))
}
