#![no_main]
// A Prometheus query_range answer (`simulate --load` given JSON): the envelope, the series, and
// their placement on the load grid with --load-map.
use hpacalc::input::prometheus::{ReplaySettings, answer, replay};
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
    for map in [&["queue=1"][..], &["queue={pod=\"a\"}"], &[]] {
        let settings = ReplaySettings {
            load_map: map.iter().map(|m| m.to_string()).collect(),
            ..ReplaySettings::default()
        };
        let _ = replay(&settings, ("fuzz.json", text), None, std::slice::from_ref(&queue));
    }
});
