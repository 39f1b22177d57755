//! The engine of hpacalc: the Kubernetes HPA controller's algorithm, pure.
//!
//! A validated [`scenario::Scenario`] goes in, [`calc::evaluate`] runs one sync as the controller
//! would (ported from `pkg/controller/podautoscaler`), and a [`report::Report`] comes out; the
//! simulation (`calc::simulate`) runs the same sync over time with the scheduler and the Cluster
//! Autoscaler. Nothing here reads a file, a flag or the network: every front end fills a
//! `Scenario`, and every renderer reads a `Report`.

pub mod calc;
pub mod formula;
pub mod quantity;
pub mod quote;
pub mod report;
pub mod scenario;
pub mod shared;
pub mod stop;
pub mod time;
pub mod version;
pub mod what_if;
