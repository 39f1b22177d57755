//! STUB: the metric values the APIs would answer, from samples, `--metric-value` and the status.

use std::collections::BTreeMap;

use crate::error::InputError;
use crate::input::manifest::HpaStatus;
use crate::scenario::{MetricSpec, MetricValues, PodMetricValue, PodMetrics};

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Resolved {
    pub values: MetricValues,
    /// Substitutions worth saying in the output ("qps: value taken from status.currentMetrics").
    pub notes: Vec<String>,
}

pub fn resolve(
    specs: &[MetricSpec],
    flags: &[String],
    status: &HpaStatus,
    resource: Vec<PodMetrics>,
    pods: BTreeMap<String, Vec<PodMetricValue>>,
) -> Result<Resolved, InputError> {
    let _ = (specs, flags, status);
    Ok(Resolved {
        values: MetricValues {
            resource,
            pods,
            ..MetricValues::default()
        },
        notes: Vec::new(),
    })
}
