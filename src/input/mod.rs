//! Parsers: each module owns one outside format and turns it into `scenario` types. A front end
//! fills one `Inputs` (`inputs`), and `build` validates it into the one `Scenario` the
//! calculation trusts.

pub mod aws_catalog;
pub mod build;
pub mod builtin;
pub mod cluster;
pub mod form;
pub mod guard;
pub mod history;
pub mod inputs;
pub mod karpenter;
pub mod keda;
pub mod kubectl;
pub mod live;
pub mod load_csv;
pub mod manifest;
pub mod node_groups;
pub mod nodes;
pub mod past;
pub mod paste;
pub mod prometheus;
pub mod read;
pub mod recognize;
pub mod required;
pub mod samples;
pub mod selector;
pub mod sim_form;
pub mod simulation;
pub mod sources;
pub mod target;
pub mod values;
pub mod what_if;

pub use build::{PrintedHpa, build, build_parsed, hpa_only, load_hpa};
pub use inputs::{Given, Inputs, Settings, Text, flag_duration, flag_time};
pub use read::read_input;
