use super::*;
use crate::calc::testing;
use std::time::Duration as StdDuration;

fn cpu() -> MetricSpec {
    testing::cpu_utilization(50)
}

fn external(name: &str) -> MetricSpec {
    testing::external(name, Some(100_000), None)
}

/// The replay settings of a saved answer with these `--load-map`s.
fn maps(load_map: &[&str]) -> ReplaySettings {
    ReplaySettings {
        load_map: load_map.iter().map(|m| m.to_string()).collect(),
        ..ReplaySettings::default()
    }
}

/// A matrix answer: each series is `(labels JSON, [(seconds from 1700000000, "value")])`.
fn answer(series: &[(&str, &[(i64, &str)])]) -> String {
    let result: Vec<String> = series
        .iter()
        .map(|(labels, values)| {
            let values: Vec<String> = values
                .iter()
                .map(|(t, v)| format!("[{},\"{v}\"]", 1_700_000_000 + t))
                .collect();
            format!("{{\"metric\":{labels},\"values\":[{}]}}", values.join(","))
        })
        .collect();
    format!(
        "{{\"status\":\"success\",\"data\":{{\"resultType\":\"matrix\",\"result\":[{}]}}}}",
        result.join(",")
    )
}

fn steps(curve: &LoadCurve) -> Vec<(i64, Vec<i64>)> {
    curve
        .steps
        .iter()
        .map(|s| (s.at.millis() / 1000, s.values.clone()))
        .collect()
}

#[test]
fn the_only_series_is_the_load_on_the_query_step_with_gaps_held() {
    let text = answer(&[(
        "{\"pod\":\"web\"}",
        &[
            (0, "NaN"),
            (15, "1.5"),
            (30, "1.5"),
            (60, "2.25"),
            (75, "NaN"),
        ],
    )]);
    let r = replay(&maps(&[]), ("l.json", &text), None, &[cpu()]).unwrap();
    // The leading NaN takes the first value; 45 is missing and 75 is NaN: the previous holds.
    assert_eq!(steps(&r.curve), [(0, vec![1500]), (60, vec![2250])]);
    assert_eq!(r.replay.start, "2023-11-14T22:13:20Z");
    assert_eq!(r.replay.step_seconds, 15);
    assert_eq!(r.replay.load_gaps, 3);
    assert_eq!(r.span, Duration::from_secs(75));
    assert_eq!(r.warnings.len(), 1);
    assert!(
        r.warnings[0]
            .contains("l.json: series 0 {pod=\"web\"} (cpu): 3 of 6 samples are NaN or missing"),
        "{}",
        r.warnings[0]
    );
    assert_eq!(r.curve.columns[0].resource.as_deref(), Some("cpu"));
}

#[test]
fn load_map_picks_series_by_index_or_labels_for_each_metric() {
    let text = answer(&[
        ("{\"pod\":\"a\"}", &[(0, "1"), (10, "2")]),
        ("{\"pod\":\"b\",\"q\":\"x\"}", &[(0, "5"), (10, "6")]),
    ]);
    let metrics = [cpu(), external("queue")];
    let r = replay(
        &maps(&["queue={pod=\"b\", q!=\"y\"}", "CPU=0"]),
        ("l.json", &text),
        None,
        &metrics,
    )
    .unwrap();
    assert_eq!(
        steps(&r.curve),
        [(0, vec![1000, 5000]), (10, vec![2000, 6000])]
    );
    assert_eq!(r.curve.metric_columns, [0, 1]);
    let err = replay(&maps(&["cpu=0"]), ("l.json", &text), None, &metrics)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("--load-map: found no series for queue, expected a --load-map for each"),
        "{err}"
    );
}

#[test]
fn mapping_errors_say_which_series_exist() {
    let text = answer(&[
        ("{\"pod\":\"a\"}", &[(0, "1")]),
        ("{\"pod\":\"b\"}", &[(0, "2")]),
    ]);
    let cases: [(&[&str], &str); 7] = [
        (
            &[],
            "l.json: found 2 series, expected one per metric: map one to cpu with --load-map",
        ),
        (
            &["--load-map", "cpu=2"],
            "expected a series index from 0 to 1 (series: 0 {pod=\"a\"}, 1 {pod=\"b\"})",
        ),
        (
            &["--load-map", "cpu={pod!=\"c\"}"],
            "found 2 series matching the --load-map of cpu",
        ),
        (
            &["--load-map", "rps=0"],
            "--load-map: found the metric \"rps\", expected a metric of the HPA: cpu",
        ),
        (
            &["--load-map", "cpu=x"],
            "--load-map: cpu: found \"x\", expected a 0-based series index",
        ),
        (
            &["--load-map", "cpu={pod=~\"a\"}"],
            "a regex matcher belongs in the query",
        ),
        (
            &["--load-map", "cpu=0", "--load-map", "cpu=1"],
            "found cpu twice",
        ),
    ];
    for (flags, want) in cases {
        let given: Vec<&str> = flags.iter().skip(1).step_by(2).copied().collect();
        let err = replay(&maps(&given), ("l.json", &text), None, &[cpu()])
            .unwrap_err()
            .to_string();
        assert!(err.contains(want), "{flags:?}: {err}");
    }
}

#[test]
fn bad_values_are_located() {
    let cases = [
        (
            answer(&[("{}", &[(0, "-1")])]),
            "l.json: data.result[0].values[0]: found -1 for cpu, expected a total of 0 or more",
        ),
        (
            answer(&[("{}", &[(0, "NaN")])]),
            "found no value in series 0 {} (every sample is NaN)",
        ),
        (
            answer(&[("{}", &[(0, "1")]), ("{}", &[(0, "1")])])
                .replace("1700000000,", "1700000000.5,"),
            "found 2 series",
        ),
    ];
    for (text, want) in cases {
        let err = replay(&maps(&[]), ("l.json", &text), None, &[cpu()])
            .unwrap_err()
            .to_string();
        assert!(err.contains(want), "{err}");
    }
    let text = answer(&[("{}", &[(0, "1")])]).replace(
        "[1700000000,\"1\"]",
        "[1700000000,\"1\"],[1700000000.5,\"2\"]",
    );
    let err = replay(&maps(&[]), ("l.json", &text), None, &[cpu()])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("expected a query step of whole seconds"),
        "{err}"
    );
}

#[test]
fn the_actual_replicas_follow_the_load_clock() {
    let load = answer(&[("{}", &[(0, "1"), (15, "1"), (30, "1")])]);
    let actual = answer(&[("{}", &[(-15, "2"), (15, "NaN"), (30, "3")])]);
    let file = Text::new("actual.json", actual);
    let r = replay(&maps(&[]), ("l.json", &load), Some(&file), &[cpu()]).unwrap();
    let curve = r.actual.unwrap();
    assert_eq!(curve.points, [(-15_000, 2), (30_000, 3)]);
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("2 replica samples are NaN or missing")),
        "{:?}",
        r.warnings
    );
    let two = answer(&[("{}", &[(0, "1")]), ("{}", &[(0, "2")])]);
    let file = Text::new("actual.json", two);
    let err = replay(&maps(&[]), ("l.json", &load), Some(&file), &[cpu()])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("found 2 series, expected one: the replicas"),
        "{err}"
    );
}

#[test]
fn the_query_range_flags_are_checked_before_any_request() {
    let now = Timestamp(1_700_000_000_000);
    let r = |flags: &[&str]| {
        let mut a = ReplaySettings::default();
        for pair in flags.chunks(2) {
            let value = Some(pair[1].to_string());
            match pair[0] {
                "--start" => a.start = value,
                "--end" => a.end = value,
                _ => a.step = value,
            }
        }
        range(&a, now)
    };
    let ok = r(&["--start", "-1h", "--step", "30s"]).unwrap();
    assert_eq!(ok.start, Timestamp(1_700_000_000_000 - 3_600_000));
    assert_eq!(ok.end, now);
    assert_eq!(ok.step, Duration::from_secs(30));
    let ok = r(&[
        "--start",
        "2023-11-14T00:00:00Z",
        "--end",
        "2023-11-14T02:00:00+01:00",
    ])
    .unwrap();
    assert_eq!(ok.end.since(ok.start), Duration::from_secs(3600));
    let cases: [(&[&str], &str); 5] = [
        (&[], "--start: found none"),
        (
            &["--start", "yesterday"],
            "--start: found \"yesterday\", expected an RFC 3339 time",
        ),
        (
            &["--start", "-1h", "--end", "-2h"],
            "--end: found 2023-11-14T20:13:20Z, expected a time after --start",
        ),
        (
            &["--start", "-1h", "--step", "1.5s"],
            "--step: found 1.5s, expected whole seconds",
        ),
        (
            &["--start", "-168h", "--step", "15s"],
            "expected at most 11000 (Prometheus's limit per series)",
        ),
    ];
    for (flags, want) in cases {
        let err = r(flags).map(|_| ()).unwrap_err().to_string();
        assert!(err.contains(want), "{flags:?}: {err}");
    }
}

#[test]
fn label_matchers_read_quotes_escapes_and_inequality() {
    assert_eq!(
        parse_matchers(r#"{ a="x\"y" , b != "" }"#).unwrap(),
        [
            ("a".to_string(), true, "x\"y".to_string()),
            ("b".to_string(), false, String::new())
        ]
    );
    for bad in ["{}", "{a}", "{a=x}", "{a=\"x}", "a=\"x\""] {
        assert!(parse_matchers(bad).is_err(), "{bad}");
    }
}

#[test]
fn load_map_and_actual_file_need_a_prometheus_load() {
    let err = refuse_with_csv(&maps(&["cpu=0"]), false)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("--load-map: found a load CSV"), "{err}");
}

#[test]
fn the_request_timeout_reads_as_kubectl_and_live_mode_read_it() {
    let timeout = |t: &str| {
        let r = ReplaySettings {
            request_timeout: Some(t.to_string()),
            ..ReplaySettings::default()
        };
        connection("http://127.0.0.1:9090", &r).map(|c| c.timeout)
    };
    assert_eq!(timeout("5").unwrap(), Some(StdDuration::from_secs(5)));
    assert_eq!(timeout("1m30s").unwrap(), Some(StdDuration::from_secs(90)));
    assert_eq!(timeout("0").unwrap(), None);
    assert!(timeout("fast").is_err());
}
