//! hpacalc: what the Kubernetes HorizontalPodAutoscaler controller will do at its next sync.
//!
//! Data flows one way: a front end fills one `input::Inputs` (files and flags, a live capture, a
//! dump's share), `input::build` validates it into the engine's `scenario::Scenario`, the pure
//! calculation (`calc`, the `hpacalc-engine` crate) turns it into a `report::Report`, and an
//! `render::Exporter` turns that into a table, JSON or YAML. `work` is what a front end asks for beyond one
//! sync (an audit, a diff, a comparison). The front ends are modules of their own: `cmd` (one
//! module a command, each only wiring flags to a layer), `serve` (the long-running HTTP server
//! and its pages) and `mcp` (the tools of the Model Context Protocol). `term` is the terminal at
//! the bottom.

pub mod catalog;
pub mod cli;
pub mod cmd;
pub mod error;
pub mod exit_codes;
pub mod input;
pub mod mcp;
pub mod output;
pub mod render;
pub mod rules;
pub mod schema;
pub mod serve;
pub mod term;
pub mod work;

/// The engine (its own crate, free of I/O), under the paths the rest of hpacalc names it by.
pub use hpacalc_engine::{calc, formula, quantity, quote, report, scenario, stop, time, version};

pub use cmd::run;
