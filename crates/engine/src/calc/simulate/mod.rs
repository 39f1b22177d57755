//! What the HPA, the ReplicaSet, the scheduler and the Cluster Autoscaler do over time for a load
//! curve: a deterministic, time-stepped replay of the controller, sync after sync, with pods that
//! take time to start and nodes that take time to boot.
//!
//! No controller rule is implemented twice: every HPA sync updates one `Scenario` in place (pods
//! with phases, Ready conditions and start times; metric samples split from the load) and calls
//! `calc::reconcile::reconcile` with one `ControllerMemory` that lives for the whole run, so the
//! stabilization windows and the rate policies act with the controller's own boundary rules.
//! Fit and the binpacking estimator come from `calc::nodes`. The order of events inside an
//! instant follows the causal chain of the reference (`cluster-autoscaler.md` §8.2): nodes and
//! pods finish what they started, the HPA syncs and the ReplicaSet creates or deletes pods, the
//! scheduler binds Pending pods, then the Cluster Autoscaler scans. Time jumps from event to
//! event (next sync, next scan, next pod or node Ready), so idle seconds cost nothing.
//!
//! One file a component: `engine` (the clock, the cluster's state and the event loop), `kubelet`,
//! `hpa`, `metrics` (the metrics APIs), `keda`, `replicaset`, `rollout` (the Deployment
//! controller), `scheduler` and `autoscaler` (the Cluster Autoscaler), each an `impl Engine`;
//! `cluster` holds the scheduler's and the ReplicaSet's ranking rules, `summary` turns a run into
//! its `Simulation` (`result`), `actual` compares it with what the cluster did, `compare` sets
//! several runs on the same load side by side (`simulate --compare`). The inputs of a
//! run are `scenario::simulation`.

mod actual;
mod autoscaler;
mod cluster;
pub mod compare;
mod disruption;
mod engine;
mod groups;
mod hpa;
mod karpenter;
mod keda;
mod kubelet;
mod metrics;
mod replicaset;
pub mod result;
pub mod rollout;
mod scheduler;
pub mod snapshot;
mod summary;

pub use engine::{START, SyncObserver, clock, run, run_observed, run_to_snapshot, run_until};
pub use karpenter::{BATCH_IDLE_MS, BATCH_MAX_MS};
pub use result::*;

#[cfg(test)]
mod tests;
