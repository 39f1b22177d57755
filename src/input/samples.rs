//! STUB: per-pod samples as CSV → pods and metric samples.

use std::collections::BTreeMap;

use crate::error::InputError;
use crate::scenario::{MetricSpec, Pod, PodMetricValue, PodMetrics, PodPhase};
use crate::time::{Duration, Timestamp};

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Samples {
    pub pods: Vec<Pod>,
    pub resource_metrics: Vec<PodMetrics>,
    pub pod_metrics: BTreeMap<String, Vec<PodMetricValue>>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SampleSettings {
    /// The evaluation time: ages are measured back from it, and samples are taken at it.
    pub now: Timestamp,
    /// The `window` each resource usage sample reports.
    pub window: Duration,
}

pub fn parse(
    file: &str,
    text: &str,
    metrics: &[MetricSpec],
    settings: &SampleSettings,
) -> Result<Samples, InputError> {
    let _ = (text, metrics, settings);
    Err(InputError::new(file, "sample parsing is not written yet"))
}

/// Whether a pod counts toward the current replica count when no other source gives it: not
/// deleting, not Failed, not Succeeded.
pub fn counts_as_replica(pod: &Pod) -> bool {
    !pod.deleting && !matches!(pod.phase, PodPhase::Failed | PodPhase::Succeeded)
}
