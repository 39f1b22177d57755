//! Renderers: pure functions of a `Report`.

pub mod json;
pub mod table;
