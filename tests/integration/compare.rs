//! `simulate --compare` (issue 27): configurations run on the same replayed load, and their
//! figures checked against the arithmetic of the load, the requests and the policies.

use serde_json::Value;

use crate::support::Test;

fn compare_json(args: &[&str]) -> Value {
    Test::new()
        .args(["simulate", "-o", "json"])
        .args(args)
        .schema("comparison")
        .json()
}

fn figures(v: &Value, i: usize) -> &Value {
    &v["configurations"][i]["figures"]
}

/// `fixtures/prometheus/bursty-cpu.json`: 30 minutes of 15 s samples from 10:00 UTC, 1 core,
/// 2 cores from 5:00 to 10:00 and from 15:00 to 20:00, 1 core again to 30:00.
const BURSTY: [&str; 6] = [
    "--load",
    "fixtures/prometheus/bursty-cpu.json",
    "--pod-request",
    "cpu=500m",
    "--replicas",
    "4",
];

#[test]
fn a_tighter_scale_down_costs_pod_hours_and_flaps_less() {
    let mut args = vec![
        "--hpa",
        "fixtures/compare/web-fast-down.yaml",
        "--compare",
        "fixtures/compare/web-slow-down.yaml",
    ];
    args.extend(BURSTY);
    let v = compare_json(&args);
    let (fast, slow) = (figures(&v, 0), figures(&v, 1));
    // Without a window the count follows the load: 4 pods for the 1800 s and 4 more during the
    // two 300 s bursts (4 × 1800 + 4 × 300 × 2 = 9600 pod-seconds); up, down, up, down: three
    // reversals.
    assert_eq!(fast["podSeconds"], 9600);
    assert_eq!(fast["podHours"], 2.667);
    assert_eq!(fast["scaleEvents"], 4);
    assert_eq!(fast["directionChanges"], 3);
    // A 10-minute window keeps the 8 from 5:00 until the last high recommendation (19:45) leaves
    // it strictly (the behavior path drops a sample exactly one window old): at 29:45 the policy
    // lets 1 pod go. 4 × 1800 + 4 × (1785 − 300) + 3 × (1800 − 1785) = 13185 pod-seconds; one
    // reversal.
    assert_eq!(slow["podSeconds"], 13185);
    assert_eq!(slow["podHours"], 3.663);
    assert_eq!(slow["scaleEvents"], 2);
    assert_eq!(slow["directionChanges"], 1);
    // Both go 4 → 8 at the first burst: 100 % at 5:00, one sync above the target each time the
    // new pods are not counted yet.
    for f in [fast, slow] {
        assert_eq!(f["firstScaleUpSeconds"], 300);
        assert_eq!(f["peakReplicas"], 8);
        assert_eq!(f["timeToPeakSeconds"], 0);
    }
    assert_eq!(fast["secondsAboveTarget"], 30);
    // The slow one still holds 8 at the second burst: 2 cores over 8 pods is the target.
    assert_eq!(slow["secondsAboveTarget"], 15);
    // They first differ at 10:00, when the fast one drops to 4 and the slow one holds 8.
    assert_eq!(v["firstDifferenceSeconds"], 600);
    let slow_row = &v["configurations"][1]["simulation"]["timeline"][40];
    assert_eq!(slow_row["time"], 600);
    assert_eq!(slow_row["desiredReplicas"], 8);
}

#[test]
fn half_the_request_doubles_the_utilization_and_scales_earlier() {
    let v = compare_json(&[
        "--hpa",
        "fixtures/compare/web-500m.yaml",
        "--compare",
        "fixtures/compare/web-250m.yaml",
        "--load",
        "fixtures/prometheus/night-cpu.json",
        "--actual-file",
        "fixtures/prometheus/night-replicas.json",
    ]);
    let timeline = |i: usize| {
        v["configurations"][i]["simulation"]["timeline"]
            .as_array()
            .unwrap()
            .clone()
    };
    let (full, half) = (timeline(0), timeline(1));
    // 960m over 4 pods: 240m each, 48 % of 500m and 96 % of 250m.
    assert_eq!(full[0]["utilization"], 48.0);
    assert_eq!(half[0]["utilization"], 96.0);
    // The same pods, the same usage: at every sync with the same replica count and every pod
    // counted, the halved request reads twice the utilization.
    let mut same = 0;
    for (a, b) in full.iter().zip(&half) {
        if a["replicas"] == b["replicas"] && a["readyReplicas"] == b["readyReplicas"] {
            let (ua, ub) = (a["utilization"].as_f64(), b["utilization"].as_f64());
            if let (Some(ua), Some(ub)) = (ua, ub) {
                assert!((ub - 2.0 * ua).abs() <= 1.0, "{a} {b}");
                same += 1;
            }
        }
    }
    assert!(same > 100, "{same}");
    // 96 % is a ratio of 1.92: ceil(4 × 1.92) = 8 at the first sync, where 500m waits for the
    // batch job at 03:12 (4320 s).
    let (f, h) = (figures(&v, 0), figures(&v, 1));
    assert_eq!(f["firstScaleUpSeconds"], 4320);
    assert_eq!(h["firstScaleUpSeconds"], 0);
    assert_eq!(v["firstDifferenceSeconds"], 0);
    // 500m: 4 pods for 9000 s, 4 more from 4320 s, 2 more from 4335 s, until 6300 s (03:45):
    // 4 × 9000 + 4 × 1980 + 2 × 1965 = 47850. 250m: 8 to 4320 s, 10 to 6300 s, then 9 (the
    // load's 1.04-core peaks keep a 9 in the window): 8 × 4320 + 10 × 1980 + 9 × 2700 = 78660.
    assert_eq!(f["podSeconds"], 47850);
    assert_eq!(h["podSeconds"], 78660);
    assert_eq!(f["peakReplicas"], 10);
    assert_eq!(f["timeToPeakSeconds"], 15);
    assert_eq!(h["timeToPeakSeconds"], 0);
}

#[test]
fn the_table_puts_the_configurations_side_by_side() {
    let mut args = vec![
        "simulate",
        "--hpa",
        "fixtures/compare/web-fast-down.yaml",
        "--compare",
        "fixtures/compare/web-slow-down.yaml",
    ];
    args.extend(BURSTY);
    let out = Test::new().args(args).run();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines.contains(&"#2 fixtures/compare/web-slow-down.yaml: HPA shop/web, Kubernetes 1.37 rules, 2 to 10 replicas, sync every 15s"),
        "{text}"
    );
    assert!(lines.contains(&"first difference at 10:10:00"), "{text}");
    assert!(
        lines.contains(&"TIME      LOAD  UTIL #1  REPLICAS #1  UTIL #2  REPLICAS #2"),
        "{text}"
    );
    assert!(
        lines.contains(&"10:10:00  1     25%      8 → 4        25%      8"),
        "{text}"
    );
    assert!(
        lines.contains(&"pod-hours          2.667     3.663"),
        "{text}"
    );
    assert!(lines.contains(&"direction changes  3         1"), "{text}");
}

#[test]
fn one_run_formats_are_refused_with_compare() {
    for extra in [["--chart", "/tmp/cmp-x.svg"], ["-o", "csv"]] {
        Test::new()
            .args([
                "simulate",
                "--hpa",
                "fixtures/compare/web-fast-down.yaml",
                "--compare",
                "fixtures/compare/web-slow-down.yaml",
            ])
            .args(BURSTY)
            .args(extra)
            .fails(2)
            .stderr_contains("draws one run; with --compare use -o table or -o json")
            .run();
    }
}

#[test]
fn the_docs_example_is_the_real_output() {
    let docs = std::fs::read_to_string(crate::support::root().join("docs/compare.md")).unwrap();
    let block = docs
        .split("```text\n")
        .find(|b| b.starts_with("HPA shop/web"))
        .and_then(|b| b.split("```").next())
        .unwrap();
    let out = Test::new()
        .args([
            "simulate",
            "--hpa",
            "fixtures/compare/web-fast-down.yaml",
            "--compare",
            "fixtures/compare/web-slow-down.yaml",
        ])
        .args(BURSTY)
        .run();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    for line in block.lines().filter(|l| *l != "…") {
        assert!(lines.contains(&line), "not in the output: {line:?}\n{text}");
    }
}
