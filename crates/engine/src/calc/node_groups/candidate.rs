//! One expansion option (`expander.Option`) with what the expanders read of its group: the
//! shared vocabulary of the expander files, below all of them.

/// `expander.Option` and the facts of its group's template node the expanders read.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub group: String,
    /// `NodeCount`: nodes the estimator opens for the option's pods.
    pub node_count: i64,
    /// `len(Pods)`: the Pending pods those nodes take.
    pub pod_count: i64,
    /// The pods' requests summed (`resourcesForPods`), milli-cores and milli-bytes.
    pub requested_cpu: i64,
    pub requested_memory: i64,
    /// The template node's `status.capacity` (`resourcesForNode`).
    pub capacity_cpu: i64,
    pub capacity_memory: i64,
    /// `NodePrice` of one node for the hour; `None` when the provider has none.
    pub node_price: Option<f64>,
    /// The pods' `PodPrice` summed; `None` when one has none.
    pub pods_price: Option<f64>,
    /// `NodeGroup.Exist()`.
    pub exists: bool,
    /// `gpu.NodeHasGpu`: the GPU label or a GPU resource on the template node.
    pub has_gpu: bool,
    /// The priority levels whose expressions match the group's name.
    pub priorities: Vec<i64>,
}

/// What every expander sees besides the options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExpanderContext {
    /// `PodPrice` of `priceStabilizationPod` (500m, 500Mi); `None` when it has none.
    pub stabilization_price: Option<f64>,
    /// The preferred node's cpu capacity in milli-cores (`PreferredNodeProvider.Node`).
    pub preferred_cpu: i64,
    /// The priority ConfigMap exists and parses.
    pub priorities_configured: bool,
}

/// What one filter kept, and the score it gave each option it looked at (index, score).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Filtered {
    pub kept: Vec<usize>,
    pub scores: Vec<(usize, f64)>,
}

#[allow(clippy::cast_precision_loss)]
pub(crate) fn float(v: i64) -> f64 {
    v as f64
}
