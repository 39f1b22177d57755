//! Exit codes, in one place: 0 computed, 1 bad input, 2 usage (clap's own), 3 findings.

use crate::error::{DiffWorse, FindingsFailed, UsageError};

pub const BAD_INPUT: u8 = 1;
pub const USAGE: u8 = 2;
/// `hpacalc audit --fail-on`: a finding of that severity exists; `hpacalc diff --fail-on`: a
/// change got worse.
pub const FINDINGS: u8 = 3;

/// The exit code of a failed run.
pub fn of(err: &anyhow::Error) -> u8 {
    if err.downcast_ref::<UsageError>().is_some() {
        USAGE
    } else if err.downcast_ref::<FindingsFailed>().is_some()
        || err.downcast_ref::<DiffWorse>().is_some()
    {
        FINDINGS
    } else {
        BAD_INPUT
    }
}
