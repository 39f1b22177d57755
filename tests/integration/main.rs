//! One integration test binary (faster links on 2 cores): the binary on `fixtures/`, the upstream
//! conformance suite, properties of the core, and malformed input. `support.rs` is the one
//! harness every module runs the binary through.

// Test code: a panic is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod always_on;
mod apiserver;
mod audit;
mod cli;
mod compare;
mod conformance;
mod deploy;
mod hardening;
mod hostile;
mod html;
mod inputs;
mod karpenter;
mod keda;
mod kubectl;
mod kubectl_real;
mod live;
mod live_flags;
mod mcp;
mod node_groups;
mod nodes;
mod paste;
mod prometheus;
mod properties;
mod rules;
mod scale_targets;
mod schema;
mod serve;
mod simulate;
mod support;
mod tables;
mod web;
mod web_fleet;
mod web_simulator;
mod web_story;
