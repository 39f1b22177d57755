//! The cost of the AWS catalog built into the binary (`input::aws_catalog`): the first call
//! parses the embedded table (1,363 types), every call computes each type's capacity and
//! overhead for the NodeClass's kubelet settings. Prints the time of the first call and of a
//! later one (best of several).
//!
//! Run it in release mode: `cargo run --release --example aws_catalog`.

use std::time::Instant;

use hpacalc::input::aws_catalog::instance_types;
use hpacalc::scenario::karpenter::KubeletSettings;

fn main() {
    let kubelet = KubeletSettings::default();
    let start = Instant::now();
    let types = instance_types(&kubelet);
    let first = start.elapsed().as_secs_f64();
    let mut best = f64::INFINITY;
    for _ in 0..20 {
        let start = Instant::now();
        let again = instance_types(&kubelet);
        best = best.min(start.elapsed().as_secs_f64());
        assert_eq!(again.len(), types.len());
    }
    let offered = types.iter().filter(|t| !t.offerings.is_empty()).count();
    println!(
        "{} types ({offered} offered in us-east-1): first call {:.2} ms (parse + build), later \
         calls {:.2} ms (best of 20)",
        types.len(),
        first * 1000.0,
        best * 1000.0
    );
}
