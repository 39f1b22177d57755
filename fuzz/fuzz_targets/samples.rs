#![no_main]
use hpacalc::input::samples::{SampleSettings, parse};
use hpacalc::scenario::{MetricIdentifier, MetricSpec, MetricTarget, TargetType};
use hpacalc::time::{Duration, Timestamp};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let pods_metric = MetricSpec::Pods {
        metric: MetricIdentifier { name: "rps".into(), selector: None },
        target: MetricTarget {
            target_type: TargetType::AverageValue,
            average_utilization: None,
            average_value_milli: Some(1000),
            value_milli: None,
        },
    };
    let settings = SampleSettings {
        now: Timestamp(1_800_000_000_000),
        window: Duration::from_secs(15),
        usage_given: false,
        custom_answered: false,
        other_names: &[],
    };
    let _ = parse("fuzz.csv", text, &[], &settings);
    let _ = parse("fuzz.csv", text, &[pods_metric], &settings);
});
