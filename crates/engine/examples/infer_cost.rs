//! The cost of issue 36's forward inference: one `evaluate` of an answer from the status alone
//! whose count needs hidden pods (the (unready, missing) pairs searched), and of a describe
//! text's rescale event (every recommendation run through that sync), of a failed metric's
//! value (`calc::failed_value`: a grid, then halving; two of them, each searched with the other
//! at 0), against the same sync without them; and of a KEDA ScaledObject whose trigger value is
//! inferred from its status (with `HPAActive=False` the HPA's sync runs per candidate too), and
//! whose threshold fix, or scalingModifiers target fix, is checked forward.
//! `cargo run --release -p hpacalc-engine --example infer_cost`; the numbers are in
//! docs/performance.md.

use std::time::Instant;

use hpacalc_engine::calc::evaluate;
use hpacalc_engine::calc::failed_value::{failed_metric_value, failed_metric_values};
use hpacalc_engine::calc::testing::{
    KAFKA_METRIC, cpu_utilization, external, kafka_scaled_object, scenario,
};
use hpacalc_engine::scenario::keda::{
    COMPOSITE_METRIC, KedaCondition, KedaInput, KedaStatus, Modifiers, TriggerValue,
};
use hpacalc_engine::scenario::{
    BoundedRecommendation, ControllerMemory, ObservedMetric, ObservedStatus, Recommendation,
    ScaleEvent, Scenario, Source,
};
use hpacalc_engine::time::Duration;

/// `n` pods at 80 % of a 50 % target; with `status`, the controller kept `n`.
fn status_only(n: usize, status: bool) -> Scenario {
    let mut s = scenario(vec![cpu_utilization(50)], n, 800);
    s.hpa.max_replicas = i32::try_from(4 * n).unwrap_or(i32::MAX);
    s.approximation = true;
    let count = i32::try_from(n).unwrap_or(i32::MAX);
    s.observed_status = status.then(|| ObservedStatus {
        conditions: Vec::new(),
        current_replicas: Some(count),
        desired_replicas: Some(count),
        current_metrics: vec![ObservedMetric {
            metric_type: "Resource".into(),
            name: "cpu".into(),
            value_milli: None,
            average_value_milli: Some(800),
            average_utilization: Some(80),
        }],
    });
    s
}

/// A legacy scale-up 4 → 6 a minute ago, maxReplicas `max`.
fn rescaled(max: i32, bounded: bool) -> Scenario {
    let mut s = scenario(vec![cpu_utilization(50)], 6, 660);
    s.hpa.max_replicas = max;
    let at = s.now.sub(Duration::from_secs(60));
    s.memory = Some(ControllerMemory {
        recommendations: vec![Recommendation {
            replicas: 6,
            timestamp: at,
        }],
        scale_up_events: vec![ScaleEvent {
            replica_change: 2,
            timestamp: at,
            outdated: false,
        }],
        scale_down_events: Vec::new(),
    });
    if bounded {
        s.bounded = vec![BoundedRecommendation {
            timestamp: at,
            new_size: 6,
        }];
    }
    s
}

/// A ScaledObject with one kafka trigger (lagThreshold 10, activation 5) at `n` replicas, min 2,
/// max 10: `value` served, or `None` for a value the status's `Active=False` bounds.
fn keda(n: usize, value: Option<f64>) -> Scenario {
    let mut s = scenario(vec![external(KAFKA_METRIC, None, Some(10_000))], n, 100);
    s.hpa.min_replicas = 2;
    s.hpa.max_replicas = 10;
    let condition = |t: &str, status: &str, reason: &str| KedaCondition {
        condition_type: t.into(),
        status: status.into(),
        reason: reason.into(),
        message: String::new(),
    };
    s.keda = Some(KedaInput {
        min_replica_count: Some(2),
        status: Some(KedaStatus {
            conditions: vec![condition("Active", "False", "ScalerNotActive")],
            ..KedaStatus::default()
        }),
        ..kafka_scaled_object(
            10,
            false,
            value.map_or(TriggerValue::Unknown, TriggerValue::Value),
        )
    });
    s
}

/// `keda`, with the status's `HPAActive=False` (`FailedGetExternalMetric`).
fn keda_hpa_failing(n: usize, value: Option<f64>) -> Scenario {
    let mut s = keda(n, value);
    if let Some(status) = s.keda.as_mut().and_then(|k| k.status.as_mut()) {
        status.conditions.push(KedaCondition {
            condition_type: "HPAActive".into(),
            status: "False".into(),
            reason: "FailedGetExternalMetric".into(),
            message: String::new(),
        });
    }
    s
}

/// `keda`, its trigger fed to the HPA through scalingModifiers (`orders * 1`, target 10).
fn keda_modifiers(n: usize, value: f64) -> Scenario {
    let mut s = keda(n, Some(value));
    s.hpa.metrics = vec![external(COMPOSITE_METRIC, None, Some(10_000))];
    s.metrics.external.clear();
    if let (Some(k), Ok(formula)) = (
        s.keda.as_mut(),
        hpacalc_engine::formula::parse("orders * 1", &["orders"]),
    ) {
        k.status = None;
        k.modifiers = Some(Modifiers {
            text: "orders * 1".into(),
            formula,
            target: 10.0,
            target_is_integer: true,
            activation_target: 0.0,
            value_type: false,
        });
    }
    s
}

/// `n` pods at 25 % of a 50 % cpu target and an External metric the controller could not get,
/// maxReplicas `max`; with `status`, the status says the controller kept `n`.
fn failed_external(n: usize, max: i32, status: bool) -> Scenario {
    let mut s = scenario(
        vec![cpu_utilization(50), external("queue", Some(100_000), None)],
        n,
        250,
    );
    s.hpa.max_replicas = max;
    let count = i32::try_from(n).unwrap_or(i32::MAX);
    s.observed_status = status.then(|| ObservedStatus {
        conditions: Vec::new(),
        current_replicas: Some(count),
        desired_replicas: Some(count),
        current_metrics: Vec::new(),
    });
    s
}

/// `failed_external` with a second External metric (AverageValue 10 a replica) failed beside
/// the first: each searched with the other at 0.
fn two_failed(n: usize, max: i32, status: bool) -> Scenario {
    let mut s = failed_external(n, max, status);
    s.hpa.metrics.push(external("lag", None, Some(10_000)));
    s
}

/// The median of `runs` evaluations, in microseconds.
fn median_micros(s: &Scenario, runs: usize) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(evaluate(std::hint::black_box(s)));
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times.get(times.len() / 2).copied().unwrap_or_default()
}

fn main() {
    println!("case\twithout\twith\t(median µs of one evaluate)");
    for n in [5, 50, 500] {
        let runs = if n > 100 { 5 } else { 51 };
        let (plain, inferred) = (status_only(n, false), status_only(n, true));
        println!(
            "status alone, {n} pods\t{:.0}\t{:.0}",
            median_micros(&plain, runs),
            median_micros(&inferred, runs)
        );
    }
    for max in [10, 100, 1000] {
        let runs = if max > 100 { 5 } else { 51 };
        let (plain, inferred) = (rescaled(max, false), rescaled(max, true));
        println!(
            "one rescale event, maxReplicas {max}\t{:.0}\t{:.0}",
            median_micros(&plain, runs),
            median_micros(&inferred, runs)
        );
    }
    for (n, max) in [(4, 10), (4, 100), (50, 1000)] {
        let runs = if max > 100 { 5 } else { 51 };
        let (plain, searched) = (
            failed_external(n, max, false),
            failed_external(n, max, true),
        );
        let tried = failed_metric_value(&searched).map_or(0, |f| f.tried);
        println!(
            "a failed External metric's value, {n} pods, maxReplicas {max} ({tried} values \
             tried)\t{:.0}\t{:.0}",
            median_micros(&plain, runs),
            median_micros(&searched, runs)
        );
    }
    for (n, max) in [(4, 10), (50, 1000)] {
        let runs = if max > 100 { 5 } else { 51 };
        let (plain, searched) = (two_failed(n, max, false), two_failed(n, max, true));
        let tried: usize =
            failed_metric_values(&searched).map_or(0, |all| all.each.iter().map(|f| f.tried).sum());
        println!(
            "two failed External metrics, {n} pods, maxReplicas {max} ({tried} values tried)\
             \t{:.0}\t{:.0}",
            median_micros(&plain, runs),
            median_micros(&searched, runs)
        );
    }
    println!(
        "KEDA trigger value from the status (Active=False)\t{:.0}\t{:.0}",
        median_micros(&keda(4, Some(0.0)), 51),
        median_micros(&keda(4, None), 51)
    );
    // At 8 replicas 900 of lag asks 90, above maxReplicaCount 10: the threshold fix is searched
    // (its candidates run forward); at 40 the count is within max and nothing is searched.
    println!(
        "KEDA threshold fix at maxReplicaCount\t{:.0}\t{:.0}",
        median_micros(&keda(8, Some(40.0)), 51),
        median_micros(&keda(8, Some(900.0)), 51)
    );
    println!(
        "KEDA trigger value from the status with HPAActive=False\t{:.0}\t{:.0}",
        median_micros(&keda_hpa_failing(4, Some(0.0)), 51),
        median_micros(&keda_hpa_failing(4, None), 51)
    );
    println!(
        "KEDA scalingModifiers target fix at maxReplicaCount\t{:.0}\t{:.0}",
        median_micros(&keda_modifiers(8, 40.0), 51),
        median_micros(&keda_modifiers(8, 900.0), 51)
    );
    for max in [10, 100] {
        println!(
            "KEDA current count assumed (Active=True), maxReplicaCount {max}\t{:.0}\t{:.0}",
            median_micros(&keda_count(max, Source::Flag), 21),
            median_micros(&keda_count(max, Source::Default), 21)
        );
    }
}

/// `keda` active, its count given (`Flag`) or assumed (`Default`: every count from 0 to
/// maxReplicaCount runs forward, `calc::keda::current`).
fn keda_count(max: i32, source: Source) -> Scenario {
    let mut s = keda(4, Some(300.0));
    s.hpa.max_replicas = max;
    s.current_replicas_source = source;
    if let Some(k) = s.keda.as_mut() {
        k.max_replica_count = max;
        if let Some(status) = k.status.as_mut() {
            status.conditions = vec![KedaCondition {
                condition_type: "Active".into(),
                status: "True".into(),
                reason: "ScalerActive".into(),
                message: String::new(),
            }];
        }
    }
    s
}
