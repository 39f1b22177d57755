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

/// Where an item is (`items[3]`, `line 4`): written out only for a message, not for each of the
/// 150,000 items of a dump.
#[derive(Debug)]
pub(super) enum ItemPath {
    Text(String),
    /// `items[i]`.
    Index(usize),
}

impl std::fmt::Display for ItemPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ItemPath::Text(text) => f.write_str(text),
            ItemPath::Index(i) => write!(f, "items[{i}]"),
        }
    }
}

/// One item with what the filters read.
#[derive(Debug)]
pub(super) struct Item {
    pub path: ItemPath,
    pub namespace: Option<String>,
    pub labels: Option<Vec<(String, String)>>,
    pub sample: Sample,
}
