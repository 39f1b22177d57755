//! One pod's metrics as the readers of PodMetrics answers and of `kubectl top` both give them.

use crate::scenario::ContainerMetrics;
use crate::time::{Duration, Timestamp};

/// One item before `now` and the default window are known.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub pod: String,
    pub timestamp: Option<Timestamp>,
    pub window: Option<Duration>,
    pub containers: Vec<ContainerMetrics>,
}

/// One item with what the filters read.
#[derive(Debug)]
pub(super) struct Item {
    pub path: String,
    pub namespace: Option<String>,
    pub labels: Option<Vec<(String, String)>>,
    pub sample: Sample,
}
