#![no_main]
// A Prometheus query_range answer (`simulate --load` given JSON): the envelope, the series, and
// their placement on the load grid with --load-map.
use hpacalc::cli::{Cli, Command, try_parse_args};
use hpacalc::input::prometheus::{answer, replay};
use hpacalc::scenario::{MetricIdentifier, MetricSpec, MetricTarget, TargetType};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = answer::parse("fuzz.json", text);
    let queue = MetricSpec::External {
        metric: MetricIdentifier { name: "queue".into(), selector: None },
        target: MetricTarget {
            target_type: TargetType::Value,
            average_utilization: None,
            average_value_milli: None,
            value_milli: Some(1000),
        },
    };
    for map in [&["--load-map", "queue=1"][..], &["--load-map", "queue={pod=\"a\"}"], &[]] {
        let argv = ["hpacalc", "simulate", "--hpa", "h.yaml", "--load", "fuzz.json"];
        if let Ok(Cli { command: Some(Command::Simulate(args)), .. }) =
            try_parse_args(argv.iter().chain(map))
        {
            let _ = replay(&args, ("fuzz.json", text), std::slice::from_ref(&queue));
        }
    }
});
