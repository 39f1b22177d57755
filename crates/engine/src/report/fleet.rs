//! The result of `hpacalc audit`: every HPA's single-HPA report and the findings that need more
//! than one object. The contract between `calc::fleet` and `render::fleet`.

use schemars::JsonSchema;
use serde::Serialize;

use super::{Report, Severity};

/// Changes whenever a key of the audit output changes meaning or disappears.
pub const AUDIT_SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditReport {
    pub schema_version: u32,
    pub summary: AuditSummary,
    /// One single-HPA report per HPA that could be evaluated, by namespace and name (a target
    /// whose scale cannot be read is the controller's answer to that: AbleToScale False).
    pub hpas: Vec<Report>,
    /// The HPAs that could not be evaluated, and why (a finding names the cause).
    pub unevaluated: Vec<Unevaluated>,
    /// Most severe first, then by HPA.
    pub findings: Vec<Finding>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditSummary {
    /// HPAs in the inputs (evaluated or not).
    pub hpas: usize,
    /// Evaluated HPAs whose desired count is above the current one.
    pub scaling_up: usize,
    pub scaling_down: usize,
    /// Evaluated HPAs whose desired count is their maxReplicas.
    pub at_max: usize,
    /// HPAs with ScalingActive False (the controller cannot compute a count) or AbleToScale
    /// False (it cannot read the target's scale), or not evaluated.
    pub failing: usize,
    pub findings_by_severity: SeverityCounts,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SeverityCounts {
    pub error: usize,
    pub warning: usize,
    pub info: usize,
}

/// An HPA without a report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Unevaluated {
    /// `namespace/name`.
    pub hpa: String,
    /// `Kind/name` of the scale target.
    pub target: String,
    pub min_replicas: i32,
    pub max_replicas: i32,
    /// Why the single-HPA evaluation could not run.
    pub error: String,
}

/// A problem found across objects.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// Stable code, documented in docs/audit.md.
    pub code: String,
    pub severity: Severity,
    /// `namespace/name` of the HPA concerned; null for a finding about the inputs as a whole.
    pub hpa: Option<String>,
    /// The other objects involved, `Kind/namespace/name`.
    pub objects: Vec<String>,
    pub message: String,
    /// What to change.
    pub fix: String,
}
