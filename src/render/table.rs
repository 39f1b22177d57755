//! STUB: the step-by-step table.

use crate::report::Report;

pub fn render(report: &Report, wide: bool, color: bool) -> String {
    let _ = (wide, color);
    format!(
        "{} -> {}\n",
        report.current_replicas, report.desired_replicas
    )
}
