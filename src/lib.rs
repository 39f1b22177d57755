//! hpacalc: what the Kubernetes HorizontalPodAutoscaler controller will do at its next sync.
//!
//! Data flows one way: a front end fills one `input::Inputs` (files and flags, a live capture, a
//! dump's share), `input::build` validates it into the engine's `scenario::Scenario`, the pure
//! calculation (`calc`, the `hpacalc-engine` crate) turns it into a `report::Report`, and an
//! `render::Exporter` turns that into a table, JSON or YAML. `cmd` wires the layers, one module a
//! command; `term` is the terminal at the bottom. `cmd::mcp` is the same command layer as tools of
//! the Model Context Protocol.

pub mod catalog;
pub mod cli;
pub mod cmd;
pub mod error;
pub mod exit_codes;
pub mod input;
pub mod output;
pub mod render;
pub mod rules;
pub mod schema;
pub mod term;

/// The engine (its own crate, free of I/O), under the paths the rest of hpacalc names it by.
pub use hpacalc_engine::{calc, formula, quantity, quote, report, scenario, time, version};

pub use cmd::run;
