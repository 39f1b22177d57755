//! Parsers: each module owns one outside format and turns it into `scenario` types.

pub mod history;
pub mod manifest;
pub mod samples;
pub mod values;
