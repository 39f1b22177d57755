//! The work a front end asks for, from what it read to an answer: the audit of a dump, the diff
//! of two sides of manifests, the comparison of simulated runs, one sync before and after a what-if. The commands, `serve` and `mcp`
//! all call these, and none of them imports another front end (one sync is `input::build` then
//! `calc::evaluate`, two calls that need no place of their own).

pub mod audit;
pub mod bounds;
pub mod compare;
pub mod diff;
pub mod what_if;
