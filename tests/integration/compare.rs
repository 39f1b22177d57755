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
/// The configurations of the bursty hour: no scale-down window, then a tighter scale-down.
const FAST_SLOW: [&str; 4] = [
    "--hpa",
    "fixtures/compare/web-fast-down.yaml",
    "--compare",
    "fixtures/compare/web-slow-down.yaml",
];

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
    let mut args = FAST_SLOW.to_vec();
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
    let mut args = vec!["simulate"];
    args.extend(FAST_SLOW);
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
fn the_chart_draws_one_line_per_configuration_over_the_load() {
    let dir = crate::support::Scratch::new("cmp-chart");
    let path = dir.0.join("compare.svg");
    let mut args = vec!["simulate"];
    args.extend(FAST_SLOW);
    args.extend(["--chart", path.to_str().unwrap()]);
    args.extend(BURSTY);
    let out = Test::new().args(args).run();
    assert!(out.status.success());
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(svg.starts_with("<svg "), "{svg}");
    for label in [
        "#1 fixtures/compare/web-fast-down.yaml",
        "#2 fixtures/compare/web-slow-down.yaml",
        "load (cpu)",
        "The load they all ran on: cpu",
    ] {
        assert!(svg.contains(label), "{label}");
    }
    // Two configurations and the load: three step lines.
    assert_eq!(svg.matches("<path d=\"M").count(), 3, "{svg}");
}

#[test]
fn one_run_formats_are_refused_with_compare() {
    for extra in [["--html", "/tmp/cmp-x.html"], ["-o", "csv"]] {
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
            .stderr_contains("draws one run; with --compare use -o table or -o json (and --chart)")
            .run();
    }
}

/// The fenced blocks of a document, in order: each block's info string and text.
fn fenced_blocks(doc: &str) -> Vec<(&str, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(&str, String)> = None;
    for line in doc.lines() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(info)) => open = Some((info, String::new())),
            (Some(_), Some(_)) => blocks.extend(open.take()),
            (Some((_, text)), None) => {
                text.push_str(line);
                text.push('\n');
            }
            (None, None) => {}
        }
    }
    blocks
}

/// docs/compare.md's examples are the real output: each block that is one `hpacalc` command
/// (lines joined at a trailing `\`) followed by a block that is not a command is run, and its
/// stdout must be that block, character for character (a synopsis is followed by its example
/// command, so it is not run).
#[test]
fn the_docs_examples_are_the_real_output() {
    let docs = std::fs::read_to_string(crate::support::root().join("docs/compare.md")).unwrap();
    let blocks = fenced_blocks(&docs);
    let mut ran = 0;
    for pair in blocks.windows(2) {
        let (command, (_, expected)) = (&pair[0].1, &pair[1]);
        if !command.starts_with("hpacalc ") || expected.starts_with("hpacalc ") {
            continue;
        }
        let joined = command.replace("\\\n", " ");
        let args: Vec<&str> = joined.split_whitespace().skip(1).collect();
        let out = Test::new().args(&args).run();
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            *expected,
            "docs/compare.md's output of `{}` is not the real output",
            joined.trim()
        );
        ran += 1;
    }
    assert!(ran >= 2, "only {ran} example(s) of docs/compare.md ran");
}

/// The night of `docs/replay.md`, starting where the cluster was (4 replicas).
const NIGHT: [&str; 6] = [
    "--load",
    "fixtures/prometheus/night-cpu.json",
    "--actual-file",
    "fixtures/prometheus/night-replicas.json",
    "--pod-request",
    "cpu=500m",
];

/// The base and one `--compare` of the same manifest with the `--what-if` items.
fn what_if_run(items: &[&str]) -> Value {
    let mut args = vec![
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--compare",
        "fixtures/hpa/web-cpu.yaml",
    ];
    for item in items {
        args.extend(["--what-if", item]);
    }
    args.extend(NIGHT);
    compare_json(&args)
}

#[test]
fn a_set_request_is_the_manifest_with_that_request() {
    // The flag on the same manifest runs as fixtures/compare/web-250m.yaml does.
    let v = what_if_run(&["set-request=app.cpu=250m"]);
    assert_eq!(
        v["configurations"][1]["name"],
        "fixtures/hpa/web-cpu.yaml (set-request app.cpu=250m)"
    );
    let sim = &v["configurations"][1]["simulation"];
    assert_eq!(sim["settings"]["podRequest"]["cpu"], "250m");
    assert_eq!(sim["timeline"][0]["utilization"], 96.0);
    let (base, half) = (figures(&v, 0), figures(&v, 1));
    assert_eq!(base["podSeconds"], 47850);
    assert_eq!(half["podSeconds"], 78660);
    assert_eq!(half["firstScaleUpSeconds"], 0);
}

#[test]
fn each_what_if_changes_only_its_configuration() {
    // A 600m limit: at 03:12:00 the 4 Ready pods serve 4 × 600m of the 4.6 cores; the 4 new
    // ones are Ready 15 s later and 8 × 600m covers it: 2.2 cores for 15 s.
    let v = what_if_run(&["set-limit=app.cpu=600m"]);
    assert_eq!(figures(&v, 0)["unservedLoadSeconds"], Value::Null);
    let limited = figures(&v, 1);
    assert!((limited["unservedLoadSeconds"].as_f64().unwrap() - 33.0).abs() < 1e-9);
    assert!((limited["peakUnservedLoad"].as_f64().unwrap() - 2.2).abs() < 1e-9);
    // maxReplicas 8: the second step to 10 never comes; 8 pods from 03:12:00 to 03:45:00, then
    // 5, not 4: the 1.04-core peaks read 26 % over 8 pods (20 % over 10), ceil(8 × 0.52) = 5,
    // and keep a 5 in the window. 4 × 9000 + 4 × 1980 + 1 × 2700 = 46620.
    let v = what_if_run(&["max=8"]);
    assert_eq!(figures(&v, 1)["peakReplicas"], 8);
    assert_eq!(figures(&v, 1)["podSeconds"], 46620);
    assert_eq!(
        v["configurations"][1]["simulation"]["settings"]["maxReplicas"],
        8
    );
    assert_eq!(v["firstDifferenceSeconds"], 4335);
    // A 30 s sync period reaches 10 one sync later: 03:12:30.
    let v = what_if_run(&["sync-period=30s"]);
    assert_eq!(figures(&v, 1)["timeToPeakSeconds"], 30);
    assert_eq!(
        v["configurations"][1]["simulation"]["settings"]["syncPeriodSeconds"],
        30
    );
    // The same HPA under 1.32's rules.
    let v = what_if_run(&["kube-version=1.32"]);
    assert_eq!(v["configurations"][0]["simulation"]["kubeVersion"], "1.37");
    assert_eq!(v["configurations"][1]["simulation"]["kubeVersion"], "1.32");
}

#[test]
fn the_flags_change_every_configuration() {
    let mut args = vec![
        "--hpa",
        "fixtures/compare/web-fast-down.yaml",
        "--compare",
        "fixtures/compare/web-slow-down.yaml",
        "--max",
        "6",
    ];
    args.extend(BURSTY);
    let v = compare_json(&args);
    for i in 0..2 {
        assert_eq!(figures(&v, i)["peakReplicas"], 6);
    }
}

#[test]
fn a_what_if_before_any_compare_is_a_usage_error() {
    Test::new()
        .args([
            "simulate",
            "--hpa",
            "fixtures/hpa/web-cpu.yaml",
            "--what-if",
            "tolerance=0.2",
            "--compare",
            "fixtures/hpa/web-cpu.yaml",
        ])
        .args(NIGHT)
        .fails(2)
        .stderr_contains("--what-if changes the --compare before it")
        .run();
    Test::new()
        .args(["simulate", "--hpa", "fixtures/hpa/web-cpu.yaml"])
        .args(["--compare", "fixtures/hpa/web-cpu.yaml"])
        .args(["--what-if", "pod-request=cpu=1"])
        .args(NIGHT)
        .fails(1)
        .stderr_contains("expected a KEY among set-request, set-limit")
        .run();
    Test::new()
        .args(["simulate", "--hpa", "fixtures/compare/web-500m.yaml"])
        .args(["--set-request", "sidecar.cpu=1"])
        .args(["--load", "fixtures/prometheus/night-cpu.json"])
        .fails(1)
        .stderr_contains(
            "error: --set-request: found the container \"sidecar\", expected one the pods have: app",
        )
        .run();
}

/// One sync of `fixtures/samples/web-cpu.csv` (6 pods, 2400m over 3 cores: 80 % of a 50 %
/// target) with `extra`.
fn one_sync(extra: &[&str]) -> Value {
    Test::new()
        .args(["--hpa", "fixtures/hpa/web-cpu.yaml"])
        .args(["--pods", "fixtures/samples/web-cpu.csv"])
        .args(["--now", crate::support::NOW, "-o", "json"])
        .args(extra)
        .schema("whatIf")
        .json()
}

#[test]
fn one_sync_gives_the_decision_before_and_after() {
    // Half the request: 2400m over 1500m is 160 %, ratio 3.2, ceil(3.2 × 6) = 20; with
    // maxReplicas 30 the legacy scale-up limit max(2 × 6, 4) = 12 caps it.
    let v = one_sync(&["--set-request", "app.cpu=250m", "--max", "30"]);
    assert_eq!(
        v["changes"],
        serde_json::json!(["set-request app.cpu=250m", "max 30"])
    );
    assert_eq!(v["before"]["metrics"][0]["currentUtilization"], 80);
    assert_eq!(v["after"]["metrics"][0]["currentUtilization"], 160);
    assert_eq!(v["after"]["decision"]["metricProposal"], 20);
    assert_eq!(
        (
            v["desiredReplicasBefore"].as_i64(),
            v["desiredReplicasAfter"].as_i64()
        ),
        (Some(10), Some(12))
    );
    // A tolerance of 0.7 holds 6 at a ratio of 1.6, whether the controller's or the HPA's own.
    for extra in [
        &["--what-if", "tolerance=0.7"][..],
        &["--scale-up-tolerance", "0.7"],
    ] {
        let v = one_sync(extra);
        assert_eq!(v["desiredReplicasAfter"], 6, "{extra:?}");
    }
    // A scale-down tolerance leaves a scale-up alone.
    assert_eq!(
        one_sync(&["--scale-down-tolerance", "0.7"])["desiredReplicasAfter"],
        10
    );
    let v = one_sync(&["--what-if", "kube-version=1.32"]);
    assert_eq!(
        (
            v["before"]["kubeVersion"].as_str(),
            v["after"]["kubeVersion"].as_str()
        ),
        (Some("1.37"), Some("1.32"))
    );
    // Below minReplicas the controller takes the minimum without reading metrics.
    let v = one_sync(&["--min", "12", "--max", "12"]);
    assert_eq!(v["desiredReplicasAfter"], 12);
}

#[test]
fn one_sync_table_starts_with_both_counts() {
    let out = Test::new()
        .args(["--hpa", "fixtures/hpa/web-cpu.yaml"])
        .args([
            "--pods",
            "fixtures/samples/web-cpu.csv",
            "--now",
            crate::support::NOW,
        ])
        .args(["--what-if", "tolerance=0.7"])
        .run();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // The answer first: both counts and what changed in between, then each sync's report.
    assert_eq!(
        lines.first(),
        Some(&"desired replicas: 10 before, 6 after the change: proposal 10 → 6")
    );
    assert_eq!(lines.get(1..3), Some(&["", "Before"][..]), "{text}");
    assert!(lines.contains(&"What if: tolerance 0.7"), "{text}");
    Test::new()
        .args(["--hpa", "fixtures/hpa/web-cpu.yaml"])
        .args(["--pods", "fixtures/samples/web-cpu.csv"])
        .args(["--set-limit", "app.cpu=1"])
        .fails(1)
        .stderr_contains(
            "error: --set-limit: found a limit for one sync, expected it with simulate",
        )
        .run();
}

#[test]
fn a_tolerance_and_an_upgrade_change_what_the_bursts_do() {
    // A scale-down tolerance of 0.6: 8 pods at 25 % are a ratio of 0.5, above 1 − 0.6, so the
    // count stays 8 after the first burst: 4 × 1800 + 4 × 1500 = 13200 pod-seconds, one event.
    let mut args = vec![
        "--hpa",
        "fixtures/compare/web-fast-down.yaml",
        "--compare",
        "fixtures/compare/web-fast-down.yaml",
        "--what-if",
        "scale-down-tolerance=0.6",
    ];
    args.extend(BURSTY);
    let v = compare_json(&args);
    let f = figures(&v, 1);
    assert_eq!(f["podSeconds"], 13200);
    assert_eq!(
        (f["scaleEvents"].as_i64(), f["directionChanges"].as_i64()),
        (Some(1), Some(0))
    );
    // A scale-up tolerance of 1.5 on both: 1.37 honours it (a ratio of 2 is inside 1 + 1.5, no
    // scale-up, 600 s above the target); 1.32 has no per-HPA tolerance and runs as without it.
    let mut args = vec![
        "--hpa",
        "fixtures/compare/web-fast-down.yaml",
        "--scale-up-tolerance",
        "1.5",
        "--compare",
        "fixtures/compare/web-fast-down.yaml",
        "--what-if",
        "kube-version=1.32",
    ];
    args.extend(BURSTY);
    let v = compare_json(&args);
    let (new, old) = (figures(&v, 0), figures(&v, 1));
    assert_eq!(new["podSeconds"], 7200);
    assert_eq!(new["scaleEvents"], 0);
    assert_eq!(new["secondsAboveTarget"], 600);
    assert_eq!(new["firstScaleUpSeconds"], Value::Null);
    assert_eq!(old["podSeconds"], 9600);
    assert_eq!(old["directionChanges"], 3);
}

/// `hpacalc diff` of `fixtures/diff/old` and `fixtures/diff/new`: `shop/web` loses its
/// scale-down window and goes to a 60 % target and 8 replicas; `shop/worker` is the same.
fn diff(extra: &[&str]) -> Test {
    Test::new()
        .args(["diff", "fixtures/diff/old", "fixtures/diff/new"])
        .args(extra)
}

const ON_BURSTS: [&str; 4] = [
    "--load",
    "fixtures/prometheus/bursty-cpu.json",
    "--replicas",
    "4",
];

#[test]
fn diff_prints_a_pull_request_comment() {
    let mut args = vec!["-o", "markdown"];
    args.extend(ON_BURSTS);
    let out = diff(&args).run();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let expected = [
        "## hpacalc diff",
        "",
        "2 HPA(s), 1 changed.",
        "",
        "### `shop/web` (changed)",
        "",
        "| field | old | new |",
        "|---|---|---|",
        "| maxReplicas | 10 | 8 |",
        "| metrics\\[0\\] | cpu resource utilization (percentage of request) 50% | cpu resource utilization (percentage of request) 60% |",
        "| scaleDown.window | 600s | 0s |",
        "| scaleDown.rateLimit | Pods 1 per 60s | Percent 100 per 15s |",
        "",
        "The first metric's values that keep each replica count:",
        "",
        "| replicas | old holds | new holds |",
        "|---|---|---|",
        // The controller's own band at each count: ceil(ratio × n) keeps n while the ratio
        // stays within the tolerance and above (n − 1) / n.
        "| 2 | 0%–55% | 0%–66% |",
        "| 3 | 34%–55% | 41%–66% |",
        "| 4 | 38%–55% | 46%–66% |",
        "| 5 | 41%–55% | 49%–66% |",
        "| 6 | 42%–55% | 51%–66% |",
        "| 7 | 43%–55% | 52%–66% |",
        "| 8 | 44%–55% | 53% and above |",
        "| 9 | 45%–55% | - |",
        "| 10 | 45% and above | - |",
        "",
        "On the load:",
        "",
        "| figure | old | new |",
        "|---|---|---|",
        // Old: the slow scale-down of a_tighter_scale_down_costs_pod_hours_and_flaps_less, 13185
        // pod-seconds. New: 2 cores over 4 pods of 500m is 100 %, ceil(4 × 100 / 60) = 7, and
        // back to 4 at once: 4 × 1800 + 3 × 300 × 2 = 9000 pod-seconds, 2.5 pod-hours.
        "| pod-hours | 3.663 | 2.5 |",
        "| node-hours | - | - |",
        "| time above target | 0:15 | 0:30 |",
        "| unserved load × s | - | - |",
        "| scale events | 2 | 4 |",
        "| direction changes | 1 | 3 |",
        "| peak replicas | 8 | 7 |",
        "| first scale-up | 300s | 300s |",
        "| time to peak | 0s | 0s |",
    ];
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines, expected, "{text}");
}

#[test]
fn diff_fails_on_what_gets_worse() {
    let mut args = vec![
        "-o",
        "markdown",
        "--fail-on",
        "flapping",
        "--fail-on",
        "pod-hours>10%",
    ];
    args.extend(ON_BURSTS);
    let out = diff(&args)
        .status(3)
        .stderr("error: 1 change(s) got worse by --fail-on flapping,pod-hours>10%\n")
        .run();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "**Worse by `--fail-on`:**\n\n- `shop/web`: direction changes 1 → 3 (`flapping`)\n"
        ),
        "{text}"
    );
    // Fewer pod-hours is no worse: the same rule alone passes.
    let mut args = vec!["--fail-on", "pod-hours>10%"];
    args.extend(ON_BURSTS);
    diff(&args).run();
    let v = {
        let mut args = vec!["-o", "json", "--fail-on", "flapping"];
        args.extend(ON_BURSTS);
        let o = diff(&args).status(3).run();
        crate::support::json_of(&o, "diff")
    };
    assert_eq!(v["worse"][0]["detail"], "direction changes 1 → 3");
    assert_eq!(v["hpas"][0]["newFigures"]["podSeconds"], 9000);
    assert_eq!(v["hpas"][1]["status"], "unchanged");
}

#[test]
fn diff_without_a_load_compares_the_behaviour() {
    let out = diff(&[]).run();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.contains(&"shop/worker  unchanged  0"), "{text}");
    assert!(
        lines.contains(&"scaleDown.window     600s                                     0s"),
        "{text}"
    );
    assert!(!text.contains("FIGURE"), "{text}");
    diff(&["--fail-on", "flapping"])
        .fails(2)
        .stderr_contains("--fail-on compares the runs of both sides: it needs --load")
        .run();
    diff(&["--fail-on", "slower"])
        .fails(1)
        .stderr_contains(
            "expected unserved-load, flapping, scale-events, pod-hours[>N%] or time-above-target[>N%]",
        )
        .run();
}

#[test]
fn the_docs_diff_comment_is_the_real_output() {
    let docs = std::fs::read_to_string(crate::support::root().join("docs/compare.md")).unwrap();
    let block = docs
        .split("```markdown\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .unwrap();
    let mut args = vec!["-o", "markdown", "--fail-on", "flapping"];
    args.extend(ON_BURSTS);
    let out = diff(&args)
        .status(3)
        .stderr("error: 1 change(s) got worse by --fail-on flapping\n")
        .run();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), block);
}

#[test]
fn the_ci_workflow_runs_diff_for_a_comment() {
    let path = crate::support::root().join("contrib/ci/hpacalc-diff.yaml");
    let text = std::fs::read_to_string(path).unwrap();
    let v: serde_json::Value = serde_yaml::from_str(&text).unwrap();
    let steps = v["jobs"]["diff"]["steps"].as_array().unwrap();
    let run: Vec<&str> = steps.iter().filter_map(|s| s["run"].as_str()).collect();
    assert!(
        run.iter()
            .any(|r| r.contains("hpacalc diff /tmp/hpa/old /tmp/hpa/new -o markdown")),
        "{run:?}"
    );
    assert_eq!(v["permissions"]["pull-requests"], "write");
    // hpacalc from a release, not a registry where the crate is not published.
    assert!(run.iter().any(|r| r.contains("gh release download")));
    assert!(!run.iter().any(|r| r.contains("cargo install")), "{run:?}");
    // Its test of a file holding an HPA takes YAML and JSON manifests, as grep -E reads it.
    let holds = (run.iter().flat_map(|r| r.lines()))
        .find_map(|l| l.trim().strip_prefix("holds_hpa='")?.strip_suffix('\''))
        .expect("the holds_hpa pattern");
    for (manifest, holds_hpa) in [
        ("kind: HorizontalPodAutoscaler\n", true),
        (
            "{\"apiVersion\": \"keda.sh/v1alpha1\", \"kind\": \"ScaledObject\"}\n",
            true,
        ),
        ("{\"kind\":\"HorizontalPodAutoscaler\"}\n", true),
        ("kind: HorizontalPodAutoscalerList2\n", false),
        ("kind: Deployment\n", false),
    ] {
        let mut grep = std::process::Command::new("grep")
            .args(["-qE", holds])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write as _;
        grep.stdin
            .take()
            .unwrap()
            .write_all(manifest.as_bytes())
            .unwrap();
        assert_eq!(grep.wait().unwrap().success(), holds_hpa, "{manifest}");
    }
    // One comment, found again by its marker and edited; none on a fork's pull request, whose
    // result is the job summary.
    let comment = (steps.iter())
        .find(|s| {
            s["run"]
                .as_str()
                .is_some_and(|r| r.contains("--method PATCH"))
        })
        .expect("a step that edits the comment");
    assert!(
        comment["if"]
            .as_str()
            .unwrap()
            .contains("head.repo.full_name == github.repository")
    );
    assert!(run.iter().any(|r| r.contains("<!-- hpacalc-diff -->")));
    assert!(run.iter().any(|r| r.contains("$GITHUB_STEP_SUMMARY")));
    // Its placeholder for a side without an HPA is a manifest diff reads.
    let dir = crate::support::temp_dir("cmp-ci");
    std::fs::create_dir_all(dir.join("old")).unwrap();
    std::fs::write(dir.join("old/none.yaml"), "kind: ConfigMap\n").unwrap();
    let out = Test::new()
        .args(["diff"])
        .arg(dir.join("old"))
        .arg("fixtures/diff/new/web.yaml")
        .args(["-o", "markdown"])
        .run();
    assert!(out.status.success());
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("### `shop/web` (added)")
    );
}

#[test]
fn diff_on_a_capture_gives_both_decisions() {
    // 2400m over 3 cores is 80 %: against 50 %, ceil(1.6 × 6) = 10; against 60 %,
    // ceil(80 / 60 × 6) = 8, which the new maxReplicas of 8 also allows.
    let o = diff(&["-o", "json", "--pods", "fixtures/samples/web-cpu.csv"])
        .args(["--now", crate::support::NOW])
        .run();
    let v = crate::support::json_of(&o, "diff");
    let web = &v["hpas"][0];
    assert_eq!(web["oldDecision"]["desiredReplicas"], 10);
    assert_eq!(web["newDecision"]["desiredReplicas"], 8);
    assert_eq!(web["newDecision"]["currentReplicas"], 6);
    assert_eq!(web["oldFigures"], Value::Null);
    let out = diff(&["-o", "markdown", "--pods", "fixtures/samples/web-cpu.csv"])
        .args(["--now", crate::support::NOW])
        .run();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.lines()
            .any(|l| l.starts_with("| new | 6 → 8 | scale up")),
        "{text}"
    );
}

/// `--fail-on pod-hours` alone is any increase: the old side of the bursts costs more pod-hours
/// (3.663 against 2.5), so a pull request back to it fails, and the other way passes.
#[test]
fn fail_on_pod_hours_alone_is_any_increase() {
    let run = |old: &str, new: &str| {
        Test::new()
            .args(["diff", old, new, "--fail-on", "pod-hours"])
            .args([
                "--load",
                "fixtures/prometheus/bursty-cpu.json",
                "--replicas",
                "4",
            ])
    };
    run("fixtures/diff/new", "fixtures/diff/old")
        .status(3)
        .stderr_contains("got worse by --fail-on pod-hours")
        .run();
    run("fixtures/diff/old", "fixtures/diff/new")
        .status(0)
        .run();
}

/// `--set-request cpu=250m` sets every container, as `kubectl set resources --requests` does,
/// and the first line names what changed in between: 2400m over 1500m is 160 %, a proposal of
/// `ceil(3.2 × 6) = 20`, capped by maxReplicas.
#[test]
fn a_request_for_every_container_and_what_changed_in_between() {
    let out = Test::new()
        .args(["--hpa", "fixtures/hpa/web-cpu.yaml"])
        .args([
            "--pods",
            "fixtures/samples/web-cpu.csv",
            "--now",
            crate::support::NOW,
        ])
        .args(["--set-request", "cpu=250m"])
        .status(0)
        .run();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("What if: set-request cpu=250m"), "{text}");
    assert_eq!(
        text.lines().next(),
        Some(
            "desired replicas: 10 before and after the change: cpu utilization 80% → 160%, \
             proposal 10 → 20, capped by max 10"
        ),
        "{text}"
    );
    let named = one_sync(&["--set-request", "app.cpu=250m"]);
    let every = one_sync(&["--set-request", "cpu=250m"]);
    assert_eq!(named["after"]["metrics"], every["after"]["metrics"]);
}
