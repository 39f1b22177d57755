//! JSON and YAML: the `Report` serialized as is.

use crate::report::Report;

pub fn render(report: &Report) -> String {
    let mut text = serde_json::to_string_pretty(report).unwrap_or_default();
    text.push('\n');
    text
}

pub fn render_yaml(report: &Report) -> String {
    serde_yaml::to_string(report).unwrap_or_default()
}
