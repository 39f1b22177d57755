//! One integration test binary (faster links on 2 cores): the binary on `fixtures/`, the upstream
//! conformance suite, properties of the core, and malformed input.

mod cli;
mod conformance;
mod hostile;
mod kubectl;
mod nodes;
mod properties;
mod simulate;
