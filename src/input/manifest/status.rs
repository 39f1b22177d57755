//! What an HPA's `status` says, however it was read (a manifest, describe text, a get-hpa table):
//! the controller's last answer, which the report compares with its own. Its own file, below both
//! the manifest and the pasted forms, which read into it.

/// What the manifest's `status` says (used for defaults and comparisons).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HpaStatus {
    pub current_replicas: Option<i32>,
    pub desired_replicas: Option<i32>,
    /// `status.conditions` has `ScaledToZero` with status `True`.
    pub scaled_to_zero: bool,
    /// `status.conditions`, in order: the list the controller updates in place.
    pub conditions: Vec<crate::report::Condition>,
    /// `status.currentMetrics`, in order.
    pub current_metrics: Vec<CurrentMetric>,
    /// `status.lastScaleTime` (RFC 3339): a time the capture cannot predate.
    pub last_scale_time: Option<String>,
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

impl CurrentMetric {
    /// An entry without a value: the controller could not get the metric (kubectl's
    /// `<unknown>`).
    pub fn is_unknown(&self) -> bool {
        self.value_milli.is_none()
            && self.average_value_milli.is_none()
            && self.average_utilization.is_none()
    }
}
