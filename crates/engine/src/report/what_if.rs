//! One sync before and after a what-if change (`hpacalc --hpa ... --what-if ...`): two
//! `Report`s of the same inputs, the second with other requests, bounds, tolerances or
//! controller flags.

use schemars::JsonSchema;
use serde::Serialize;

use super::{Report, SCHEMA_VERSION};

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WhatIfReport {
    pub schema_version: u32,
    /// The changes, as `--what-if` names them (`set-request app.cpu=250m`).
    pub changes: Vec<String>,
    /// `before.desiredReplicas` and `after.desiredReplicas`.
    pub desired_replicas_before: i32,
    pub desired_replicas_after: i32,
    /// The sync as given.
    pub before: Report,
    /// The same sync with the changes.
    pub after: Report,
}

impl WhatIfReport {
    /// Both reports, and their counts lifted to the top for a quick read.
    pub fn new(changes: Vec<String>, before: Report, after: Report) -> WhatIfReport {
        WhatIfReport {
            schema_version: SCHEMA_VERSION,
            changes,
            desired_replicas_before: before.desired_replicas,
            desired_replicas_after: after.desired_replicas,
            before,
            after,
        }
    }
}
