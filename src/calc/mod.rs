//! STUB: the controller's calculation.

use crate::report::Report;
use crate::scenario::Scenario;

pub fn evaluate(scenario: &Scenario) -> Report {
    let _ = scenario;
    todo!()
}
