//! Renderers: pure functions of a `Report` (one sync) or a `Simulation` (over time).

pub mod audit;
pub mod chart;
pub mod hpa;
pub mod html;
pub mod json;
pub mod table;
pub mod timeline;
