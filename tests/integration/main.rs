//! One integration test binary (faster links on 2 cores): CLI tests on `fixtures/` and the
//! upstream conformance suite.

mod cli;
mod conformance;
mod nodes;
mod properties;
