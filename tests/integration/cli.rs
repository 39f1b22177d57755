//! The binary on `fixtures/`: what a user types, what they see, and the exit codes.

use crate::support::{NOW, Test, check_malformed, hpacalc, json, stderr, stdout};

// paste.rs and prometheus.rs read the README through `crate::cli::root`, in lines being moved
// to docs/ by another change: the name stays until then.
pub use crate::support::root;

#[test]
fn help_matches_the_snapshot() {
    let o = hpacalc(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    snapbox::assert_data_eq!(stdout(&o), snapbox::file!["snapshots/help.txt"]);
}

#[test]
fn committed_completions_match_the_generated_ones() {
    for (shell, file) in [
        ("bash", "hpacalc.bash"),
        ("zsh", "_hpacalc"),
        ("fish", "hpacalc.fish"),
        ("powershell", "_hpacalc.ps1"),
        ("elvish", "hpacalc.elv"),
    ] {
        let o = hpacalc(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}");
        let committed = std::fs::read_to_string(root().join("completions").join(file))
            .unwrap_or_else(|e| panic!("completions/{file}: {e}; run scripts/completions.sh"));
        assert!(
            stdout(&o) == committed,
            "completions/{file} is out of date: run scripts/completions.sh"
        );
    }
}

#[test]
fn usage_errors_exit_2() {
    let o = hpacalc(&["--pods", "x.csv"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let o = hpacalc(&["--hpa", "a", "-o", "xml"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn stdin_can_serve_only_one_input() {
    let o = hpacalc(&["--hpa", "-", "--pods", "-"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("only one input"), "{}", stderr(&o));
}

#[test]
fn an_unreadable_file_is_a_located_input_error() {
    let o = hpacalc(&["--hpa", "fixtures/does-not-exist.yaml"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    assert!(
        stderr(&o).starts_with("error: fixtures/does-not-exist.yaml: cannot read"),
        "{}",
        stderr(&o)
    );
}

fn conditions(v: &serde_json::Value) -> Vec<(String, String)> {
    v["conditions"]
        .as_array()
        .expect("conditions")
        .iter()
        .map(|c| {
            (
                c["type"].as_str().unwrap_or("").into(),
                c["reason"].as_str().unwrap_or("").into(),
            )
        })
        .collect()
}

fn has_condition(v: &serde_json::Value, kind: &str, reason: &str) -> bool {
    conditions(v).iter().any(|(t, r)| t == kind && r == reason)
}

#[test]
fn readme_example_table_matches_the_snapshot() {
    let o = hpacalc(&[
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pods",
        "fixtures/samples/web-cpu.csv",
        "--now",
        NOW,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    snapbox::assert_data_eq!(stdout(&o), snapbox::file!["snapshots/web-cpu.txt"]);
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    assert!(
        readme.contains(stdout(&o).trim_end()),
        "README.md's example output is out of date: paste tests/integration/snapshots/web-cpu.txt"
    );
}

/// The width is the terminal's when stdout is one, whatever `COLUMNS` says (bash does not export
/// it): under a pseudo-terminal of 80 columns (util-linux's `script`), the README's example has no
/// line over 80 characters, though the harness exports `COLUMNS=120`.
#[test]
fn the_readme_example_fits_an_80_column_terminal() {
    let command = format!(
        "stty cols 80 rows 60; exec {} --hpa fixtures/hpa/web-cpu.yaml --pods \\
         fixtures/samples/web-cpu.csv --now {NOW}",
        env!("CARGO_BIN_EXE_hpacalc")
    );
    let o = Test::new()
        .program("script")
        .args(["-qec", &command, "/dev/null"])
        .status(0)
        .run();
    // A terminal's line discipline ends lines with CR LF.
    let text = stdout(&o).replace("\r\n", "\n");
    // The answer first: the decision line is the first line, the first WHY line the second.
    let first = text.lines().next().unwrap_or_default();
    // Colour on a terminal: the SGR sequences are not text.
    let mut plain = String::new();
    let mut rest = first;
    while let Some(i) = rest.find("\x1b[") {
        plain.push_str(&rest[..i]);
        rest = rest[i..].split_once('m').map_or("", |(_, r)| r);
    }
    plain.push_str(rest);
    assert_eq!(
        plain, "web: 6 → 10 scale up — cpu 80% of 50% target",
        "the first line is not the decision:\n{text}"
    );
    let over: Vec<&str> = text.lines().filter(|l| l.chars().count() > 80).collect();
    assert!(
        over.is_empty(),
        "lines over 80 columns on an 80-column terminal: {over:#?}"
    );
    let widest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(
        widest > 70,
        "the table does not use the terminal's width ({widest}):\n{text}"
    );
}

/// Piped, without `COLUMNS`, the output is 100 columns wide.
#[test]
fn piped_output_without_columns_is_100_wide() {
    let o = Test::new()
        .env_remove("COLUMNS")
        .args([
            "--hpa",
            "fixtures/hpa/web-cpu.yaml",
            "--pods",
            "fixtures/samples/web-cpu.csv",
        ])
        .args(["--now", NOW])
        .status(0)
        .run();
    let widest = stdout(&o)
        .lines()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0);
    assert!(
        (90..=100).contains(&widest),
        "widest line {widest}, expected 90 to 100"
    );
}

/// The README is the first screen and a map of docs/ (fd's is 25 KB): it stays under 25 KiB, and
/// every docs file it links to exists, as does every docs file it maps.
#[test]
fn the_readme_stays_short_and_its_docs_links_exist() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    assert!(
        readme.len() <= 25_600,
        "README.md is {} bytes, over 25,600: move the reference to docs/",
        readme.len()
    );
    let links: Vec<&str> = readme
        .split("](docs/")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .map(|target| target.split('#').next().unwrap_or(target))
        .filter(|path| path.ends_with(".md"))
        .collect();
    assert!(!links.is_empty(), "README.md links to no docs/*.md file");
    for path in &links {
        assert!(
            root().join("docs").join(path).is_file(),
            "README.md links to docs/{path}, which does not exist"
        );
    }
    for entry in std::fs::read_dir(root().join("docs")).expect("docs/") {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") {
            assert!(
                links.contains(&name.as_str()),
                "README.md's map of docs/ does not name docs/{name}"
            );
        }
    }
}

#[test]
fn wide_table_lists_each_pod_with_its_class() {
    let o = hpacalc(&[
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pods",
        "fixtures/samples/web-mixed.csv",
        "--now",
        NOW,
        "-o",
        "wide",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    snapbox::assert_data_eq!(stdout(&o), snapbox::file!["snapshots/web-mixed-wide.txt"]);
}

#[test]
fn resource_utilization_scales_up_by_the_ratio() {
    let v = json(&[
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pods",
        "fixtures/samples/web-cpu.csv",
    ]);
    assert_eq!(v["currentReplicas"], 6);
    assert_eq!(v["currentReplicasSource"], "samples");
    let m = &v["metrics"][0];
    // 2400m used of 3 cpu requested: 80 % against 50 %.
    assert_eq!(m["currentUtilization"], 80);
    assert_eq!(m["ratio"], 1.6);
    assert_eq!(m["proposedReplicas"], 10);
    assert_eq!(v["desiredReplicas"], 10);
    assert_eq!(v["decision"]["change"], "scaleUp");
    assert!(has_condition(&v, "AbleToScale", "SucceededRescale"));
}

#[test]
fn missing_and_unready_pods_are_recounted() {
    let v = json(&[
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pods",
        "fixtures/samples/web-mixed.csv",
    ]);
    let m = &v["metrics"][0];
    assert_eq!(
        (
            m["readyPods"].clone(),
            m["unreadyPods"].clone(),
            m["missingPods"].clone(),
            m["ignoredPods"].clone()
        ),
        (1.into(), 2.into(), 1.into(), 2.into())
    );
    assert_eq!(m["recount"]["unreadyPodsAtZero"], true);
    assert_eq!(m["recount"]["missingPodsValueMilli"], 0);
    assert_eq!(m["recount"]["metricsCount"], 4);
    // 90 % → ratio 1.8 on the ready pod, but 22 % once the others count at 0: direction reversed.
    assert_eq!(m["recount"]["newUtilization"], 22);
    assert_eq!(v["desiredReplicas"], v["currentReplicas"]);
}

#[test]
fn every_metric_type_proposes_and_the_largest_wins() {
    let v = json(&[
        "--hpa",
        "fixtures/hpa/all-metric-types.yaml",
        "--pods",
        "fixtures/samples/pods-metric.csv",
        "--metric-value",
        "requests-per-second=12k",
        "--metric-value",
        "queue_messages_ready=95",
    ]);
    let types: Vec<_> = v["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        types,
        [
            "Resource",
            "ContainerResource",
            "Pods",
            "Object",
            "External"
        ]
    );
    // The samples have empty cpu and memory columns: both resource metrics are invalid, which
    // blocks only a scale-down.
    assert_eq!(v["metrics"][0]["errorReason"], "FailedGetResourceMetric");
    assert_eq!(
        v["metrics"][1]["errorReason"],
        "FailedGetContainerResourceMetric"
    );
    assert!(v["metrics"][0]["proposedReplicas"].is_null());
    assert_eq!(v["metrics"][2]["proposedReplicas"], 4);
    // Object Value: 12k / 10k = 1.2 × 3 Running and Ready pods = 3.6 → 4.
    assert_eq!(v["metrics"][3]["currentValue"], "12k");
    assert_eq!(v["metrics"][3]["proposedReplicas"], 4);
    // External AverageValue: 95 over 4 replicas is 23750m per pod, ratio 0.79 → ceil(95 / 30) = 4.
    assert_eq!(v["metrics"][4]["currentAverageValue"], "23750m");
    assert_eq!(v["metrics"][4]["proposedReplicas"], 4);
    assert_eq!(v["desiredReplicas"], 4);
    assert!(has_condition(&v, "ScalingActive", "ValidMetricFound"));
}

#[test]
fn object_and_external_values_come_from_the_status_and_say_so() {
    let v = json(&[
        "--hpa",
        "fixtures/hpa/queue-worker.yaml",
        "--pods",
        "fixtures/samples/worker.csv",
    ]);
    assert_eq!(v["currentReplicasSource"], "status");
    // 250 / 100 = 2.5 × 2 Running and Ready pods = 5.
    assert_eq!(v["metrics"][0]["proposedReplicas"], 5);
    // 18 / (5 × 4) = 0.9: inside the tolerance, so status.replicas (4).
    assert_eq!(v["metrics"][1]["proposedReplicas"], 4);
    assert_eq!(v["desiredReplicas"], 5);
    let assumptions = v["assumptions"].to_string();
    assert!(
        assumptions.contains("value taken from status.currentMetrics"),
        "{assumptions}"
    );
}

/// A value no flag, file or status gives is a missing input: exit 2, as README's exit codes say.
#[test]
fn an_object_metric_without_a_value_is_a_missing_input() {
    let o = hpacalc(&[
        "--hpa",
        "fixtures/hpa/all-metric-types.yaml",
        "--pods",
        "fixtures/samples/pods-metric.csv",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    assert!(stderr(&o).contains("--metric-value"), "{}", stderr(&o));
}

#[test]
fn behavior_policies_limit_the_scale_down() {
    let v = json(&[
        "--hpa",
        "fixtures/hpa/kubectl-get-hpa.yaml",
        "--pods",
        "fixtures/samples/web-rps.csv",
        "--current-replicas",
        "10",
    ]);
    // Proposals 4 (cpu) and 5 (requests): 5 wins; selectPolicy Min keeps the larger floor,
    // int32(10 × 0.9) = 9 against 10 − 2 = 8.
    assert_eq!(v["decision"]["metricProposal"], 5);
    assert_eq!(v["desiredReplicas"], 9);
    assert!(has_condition(&v, "ScalingLimited", "ScaleDownLimit"));
}

#[test]
fn history_feeds_the_window_and_the_rate_limits() {
    let v = json(&[
        "--hpa",
        "fixtures/hpa/kubectl-get-hpa.yaml",
        "--pods",
        "fixtures/samples/web-rps.csv",
        "--current-replicas",
        "10",
        "--history",
        "fixtures/history/scale-events.csv",
    ]);
    // Highest recommendation in the exclusive 300 s window: 6. One replica added 30 s ago: the
    // period started at 9, so the floor is int32(9 × 0.9) = 8.
    assert_eq!(v["decision"]["stabilizedReplicas"], 6);
    assert_eq!(v["desiredReplicas"], 8);
    assert_eq!(v["assumptions"], serde_json::json!([]));
}

#[test]
fn the_legacy_window_can_turn_a_low_proposal_into_a_scale_up() {
    let v = json(&[
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pods",
        "fixtures/samples/web-low.csv",
        "--history",
        "fixtures/history/recent-high.csv",
    ]);
    assert_eq!(v["decision"]["metricProposal"], 3);
    assert_eq!(v["decision"]["rescaleReason"], "All metrics below target");
    assert_eq!(v["desiredReplicas"], 9);
}

#[test]
fn without_history_the_steady_load_assumption_is_stated() {
    let v = json(&[
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pods",
        "fixtures/samples/web-low.csv",
    ]);
    assert_eq!(v["desiredReplicas"], 3);
    let a = v["assumptions"][0].as_str().unwrap_or("");
    assert!(
        a.contains("assumed steady load") && a.contains("would hold the replicas at up to 6"),
        "{a}"
    );
}

#[test]
fn yaml_output_is_the_same_object() {
    let o = hpacalc(&[
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pods",
        "fixtures/samples/web-cpu.csv",
        "--now",
        NOW,
        "-o",
        "yaml",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let y: serde_json::Value = serde_yaml::from_slice(&o.stdout).expect("YAML parses");
    let j = json(&[
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pods",
        "fixtures/samples/web-cpu.csv",
    ]);
    assert_eq!(y, j);
}

#[test]
fn the_manifest_can_come_from_stdin() {
    let text = std::fs::read_to_string(root().join("fixtures/hpa/web-cpu.yaml")).unwrap();
    let v = Test::new()
        .args(["--hpa", "-", "--pods", "fixtures/samples/web-cpu.csv"])
        .args(["--now", NOW, "-o", "json"])
        .stdin(text)
        .schema("report")
        .json();
    assert_eq!(v["desiredReplicas"], 10);
}

#[test]
fn the_readme_documents_every_json_key_it_promises() {
    let readme = std::fs::read_to_string(root().join("docs/output.md")).expect("docs/output.md");
    let v = json(&[
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pods",
        "fixtures/samples/web-cpu.csv",
    ]);
    let obj = v.as_object().unwrap();
    for key in obj.keys() {
        assert!(
            readme.contains(&format!("`{key}`")),
            "docs/output.md does not document `{key}`"
        );
    }
    for key in v["metrics"][0].as_object().unwrap().keys() {
        assert!(
            readme.contains(&format!("`{key}`")),
            "docs/output.md does not document metrics[].`{key}`"
        );
    }
    for key in [
        "currentReplicas",
        "desiredReplicas",
        "minReplicas",
        "maxReplicas",
        "metrics",
        "conditions",
        "steps",
        "assumptions",
    ] {
        assert!(obj.contains_key(key), "{key}");
    }
}

#[test]
fn no_color_is_respected_and_colour_can_be_forced() {
    let args = [
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pods",
        "fixtures/samples/web-cpu.csv",
        "--now",
        NOW,
    ];
    Test::new()
        .args(args)
        .status(0)
        .stdout_lacks("\u{1b}")
        .run();
    Test::new()
        .args(args)
        .env_remove("NO_COLOR")
        .env("CLICOLOR_FORCE", "1")
        .status(0)
        .stdout_contains("\u{1b}")
        .run();
}

#[test]
fn kube_version_selects_the_tolerance_rule() {
    // 550m of 1 cpu is 55 % of a 50 % target: exactly 1.1.
    let csv = "pod,cpu,cpu_request\na,550m,1\nb,550m,1\nc,550m,1\nd,550m,1\n";
    let run = |version: &str| {
        let v = Test::new()
            .args(["--hpa", "fixtures/hpa/web-cpu.yaml", "--pods", "-"])
            .args(["--now", NOW, "-o", "json", "--kube-version", version])
            .stdin(csv)
            .schema("report")
            .json();
        assert_eq!(v["kubeVersion"], version);
        v["desiredReplicas"].as_i64().unwrap()
    };
    assert_eq!(run("1.32"), 5);
    assert_eq!(run("1.33"), 4);
}

/// Bad input: exit 1, nothing on stdout, a message that names the file, the place and the problem.
#[test]
fn bad_input_names_the_file_place_and_problem() {
    // The bad manifests, samples and histories of the corpus (fixtures/malformed/CASES.tsv).
    check_malformed(&[
        "hpa-missing-max.yaml",
        "hpa-max-below-min.yaml",
        "hpa-bad-quantity.yaml",
        "hpa-bad-policy-period.yaml",
        "hpa-unknown-metric-type.yaml",
        "hpa-wrong-kind.yaml",
        "hpa-not-yaml.yaml",
        "samples-no-pod-column.csv",
        "samples-duplicate-pod.csv",
        "samples-bad-phase.csv",
        "samples-bad-quantity.csv",
        "samples-bad-age.csv",
        "history-negative-age.csv",
    ]);
    let cases: &[(&[&str], &str)] = &[
        (&["--hpa", "fixtures/hpa/multi.yaml"], "--name"),
        (
            &[
                "--hpa",
                "fixtures/hpa/kubectl-get-hpa.yaml",
                "--pods",
                "fixtures/samples/web-cpu.csv",
            ],
            "http_requests_per_second",
        ),
        (
            &["--hpa", "fixtures/hpa/web-cpu.yaml", "--now", "yesterday"],
            "--now",
        ),
        (
            &[
                "--hpa",
                "fixtures/hpa/web-cpu.yaml",
                "--cpu-initialization-period",
                "5 minutes",
            ],
            "--cpu-initialization-period",
        ),
        (
            &[
                "--hpa",
                "fixtures/hpa/web-cpu.yaml",
                "--kube-version",
                "1.20",
            ],
            "--kube-version",
        ),
        (
            &[
                "--hpa",
                "fixtures/hpa/web-cpu.yaml",
                "--feature-gates",
                "Nope=true",
            ],
            "--feature-gates",
        ),
        (
            &["--hpa", "fixtures/hpa/web-cpu.yaml", "--tolerance=-1"],
            "--tolerance",
        ),
        (
            &[
                "--hpa",
                "fixtures/hpa/web-cpu.yaml",
                "--current-replicas=-3",
            ],
            "--current-replicas",
        ),
    ];
    for (args, fragment) in cases {
        Test::new()
            .args(*args)
            .fails(1)
            .stderr_contains(*fragment)
            .run();
    }
}

#[test]
fn a_metric_the_controller_cannot_compute_is_a_result_not_an_error() {
    let csv = "pod,cpu,cpu_request\na,400m,\nb,300m,500m\n";
    let v = Test::new()
        .args(["--hpa", "fixtures/hpa/web-cpu.yaml", "--pods", "-"])
        .args(["--now", NOW, "-o", "json"])
        .stdin(csv)
        .schema("report")
        .json();
    assert!(v["metrics"][0]["proposedReplicas"].is_null());
    assert!(
        v["metrics"][0]["error"]
            .as_str()
            .unwrap()
            .contains("missing request for cpu in container app of Pod a")
    );
    assert!(has_condition(
        &v,
        "ScalingActive",
        "FailedGetResourceMetric"
    ));
    assert_eq!(v["desiredReplicas"], 2);
}

/// Issue 36, item 5: a missing request's fix is run through `--set-request`'s path: each
/// candidate request (the one the container has on the other pods, the one at which its usage
/// sits at the target) comes with the count the sync gives, and `--set-request` gives the same.
#[test]
fn a_missing_request_fix_says_what_the_request_gives_and_set_request_agrees() {
    let csv = "pod,cpu,cpu_request\na,400m,\nb,300m,500m\n";
    let run = |extra: &[&str]| {
        Test::new()
            .args(["--hpa", "fixtures/hpa/web-cpu.yaml", "--pods", "-"])
            .args(["--now", NOW, "-o", "json"])
            .args(extra)
            .stdin(csv)
            .json()
    };
    let v = run(&[]);
    let d = (v["diagnostics"].as_array().unwrap().iter())
        .find(|d| d["code"] == "MissingRequest")
        .unwrap();
    // 700m over 2 × 500m = 70 % of 50 %: ceil(1.4 × 2) = 3, at about 700 / 1500 = 46 %; at
    // 350m × 100 / 50 = 700m a pod the usage is the target: 2 stays.
    assert_eq!(
        d["fix"],
        "set resources.requests.cpu on container app (e.g. 500m, the request its other pods \
         have) → 3 replicas at about 46 % if the load stays as it is; or set \
         resources.requests.cpu on container app (e.g. 700m, at which its usage now is the 50 % \
         target) → 2 replicas at about 50 % if the load stays as it is"
    );
    for (request, count) in [("app.cpu=500m", 3), ("app.cpu=700m", 2)] {
        let after = run(&["--set-request", request]);
        assert_eq!(
            after["after"]["desiredReplicas"], count,
            "{request}: {after:#}"
        );
    }
}

/// Issue 36, item 5: a status whose condition names a missing request, with no pods: the fix is
/// the request and what decides the count, not "check metrics-server".
#[test]
fn a_missing_request_in_the_status_condition_says_what_decides() {
    let v = Test::new()
        .args(["--hpa", "fixtures/paste/describe-missing-request.txt"])
        .args(["--now", NOW, "-o", "json"])
        .json();
    assert_eq!(v["desiredReplicas"], 4);
    assert_eq!(v["diagnostics"][0]["code"], "StatusFailure");
    assert_eq!(
        v["diagnostics"][0]["fix"],
        "set resources.requests.cpu on container app; the pods and their usage are not in the \
         inputs, so the count is then decided by cpu usage over that request: pass --pods and \
         --metrics with --set-request app.cpu=QUANTITY to see it"
    );
    let all = v.to_string();
    assert!(!all.contains("metrics-server"), "{all}");
    // The stand-in failing sync runs the request check forward: the decision line, the metric's
    // error and the first WHY line carry the controller's own reason, not "no metrics returned".
    let named = "missing request for cpu in container app of Pod web-5f6d8b-x7k2m";
    let summary = v["decision"]["summary"].as_str().unwrap();
    assert!(summary.contains(named), "{summary}");
    assert!(!all.contains("no metrics returned"), "{all}");
    assert!(
        v["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .contains(named)
    );
    let table = Test::new()
        .args(["--hpa", "fixtures/paste/describe-missing-request.txt"])
        .args(["--now", NOW])
        .env("COLUMNS", "200")
        .status(0)
        .run();
    let text = stdout(&table);
    // The decision line, with its wrapped continuation lines joined.
    let decision = (text.lines())
        .skip_while(|l| !l.starts_with("4 → 4"))
        .take_while(|l| !l.is_empty())
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ");
    assert!(decision.contains(named), "{decision}");
}

/// The kubectl capture's table at 80 and 120 columns: every line fits, titles break between
/// words, and the decision line and the assumptions wrap with a hanging indent.
#[test]
fn the_table_reads_at_80_and_120_columns() {
    let args = [
        "--hpa",
        "fixtures/kubectl/hpa.yaml",
        "--pods",
        "fixtures/kubectl/pods.json",
        "--metrics",
        "fixtures/kubectl/metrics.json",
        "--custom-metrics",
        "fixtures/kubectl/custom-metrics.json",
    ];
    for (width, snapshot) in [
        ("80", snapbox::file!["snapshots/kubectl-80.txt"]),
        ("120", snapbox::file!["snapshots/kubectl-120.txt"]),
    ] {
        let o = Test::new().args(args).env("COLUMNS", width).status(0).run();
        let text = stdout(&o);
        let limit: usize = width.parse().unwrap();
        for line in text.lines() {
            assert!(line.chars().count() <= limit, "{width}: {line}");
        }
        snapbox::assert_data_eq!(text, snapshot);
    }
}

/// The man pages of `man/`, generated from the CLI definition by clap_mangen.
fn man_pages() -> Vec<(String, Vec<u8>)> {
    use clap::CommandFactory;
    let cmd = hpacalc::cli::Cli::command();
    let mut pages = Vec::new();
    let mut render = |cmd: clap::Command, file: String| {
        let mut out = Vec::new();
        clap_mangen::Man::new(cmd)
            .render(&mut out)
            .expect("man page");
        pages.push((file, out));
    };
    for sub in cmd.get_subcommands() {
        // clap takes a 'static name; a test may leak two short strings.
        let name: &'static str = Box::leak(format!("hpacalc-{}", sub.get_name()).into_boxed_str());
        render(sub.clone().name(name).bin_name(name), format!("{name}.1"));
    }
    render(cmd, "hpacalc.1".to_string());
    pages
}

#[test]
fn committed_man_pages_match_the_generated_ones() {
    // HPACALC_BLESS=1 cargo test man_pages rewrites them after a CLI change.
    let bless = std::env::var_os("HPACALC_BLESS").is_some();
    for (file, page) in man_pages() {
        let path = root().join("man").join(&file);
        if bless {
            std::fs::write(&path, &page).unwrap();
        }
        let committed = std::fs::read(&path).unwrap_or_else(|e| {
            panic!("man/{file}: {e}; run HPACALC_BLESS=1 cargo test man_pages")
        });
        assert!(
            page == committed,
            "man/{file} is out of date: run HPACALC_BLESS=1 cargo test man_pages"
        );
    }
}

/// The engine is a crate of its own so that the compiler keeps it free of I/O: no crate it
/// depends on, directly or through others (as Cargo.lock resolves them), reads flags, files of
/// a format, terminals or the network.
#[test]
fn the_engine_depends_on_no_io_crate() {
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).unwrap();
    let mut deps: std::collections::HashMap<String, Vec<String>> = Default::default();
    for block in lock.split("[[package]]").skip(1) {
        let name = block
            .lines()
            .find_map(|l| l.strip_prefix("name = "))
            .map(|n| n.trim_matches('"').to_string())
            .unwrap();
        let list: Vec<String> = block
            .split_once("dependencies = [")
            .map(|(_, rest)| rest.split_once(']').map_or("", |(l, _)| l))
            .unwrap_or("")
            .split(',')
            .map(|d| d.trim().trim_matches('"'))
            .filter(|d| !d.is_empty())
            .map(|d| d.split(' ').next().unwrap().to_string())
            .collect();
        deps.entry(name).or_default().extend(list);
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut todo = vec!["hpacalc-engine".to_string()];
    while let Some(name) = todo.pop() {
        if seen.insert(name.clone()) {
            todo.extend(deps.get(&name).cloned().unwrap_or_default());
        }
    }
    for forbidden in [
        "clap",
        "tokio",
        "kube",
        "hyper",
        "csv",
        "comfy-table",
        "http",
    ] {
        assert!(
            !seen.contains(forbidden),
            "the engine depends on {forbidden} (all it depends on: {seen:?})"
        );
    }
    assert!(seen.contains("serde"), "{seen:?}");
}

/// Every diagnostic code the source can give has its row in docs/diagnostics.md.
#[test]
fn every_diagnostic_code_is_documented() {
    let docs = std::fs::read_to_string(root().join("docs/diagnostics.md")).unwrap();
    let mut codes = std::collections::BTreeSet::new();
    let mut files = vec![root().join("src"), root().join("crates/engine/src")];
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, _) in text.match_indices("Diagnostic::new(") {
            let rest = text[i + "Diagnostic::new(".len()..].trim_start();
            if let Some(code) = rest.strip_prefix('"').and_then(|r| r.split('"').next()) {
                codes.insert(code.to_string());
            }
        }
    }
    assert!(codes.len() > 20, "{codes:?}");
    // A row of its own, a row shared by several codes, or a bullet.
    let documented = |c: &str| {
        let code = format!("`{c}`");
        docs.lines().any(|l| {
            (l.starts_with("| `") && l.split(" | ").next().is_some_and(|h| h.contains(&code)))
                || l.starts_with(&format!("- {code}"))
        })
    };
    let missing: Vec<&String> = codes.iter().filter(|c| !documented(c)).collect();
    assert!(
        missing.is_empty(),
        "not in docs/diagnostics.md: {missing:?}"
    );
}

/// README's evidence examples show the real WHY section and decision of their commands.
#[test]
fn the_readmes_evidence_examples_are_the_real_output() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    for args in [
        &[
            "--hpa",
            "fixtures/paste/rate-limited/describe.txt",
            "--pods",
            "fixtures/paste/rate-limited/samples.csv",
        ][..],
        &["--hpa", "fixtures/hpa/failed-metric.yaml"][..],
    ] {
        let o = hpacalc(&[args, &["--now", NOW]].concat());
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let out = stdout(&o);
        let why = out.find("WHY").expect("a WHY section");
        let end = out.find("\nAssumptions").expect("the assumptions");
        let shown = out[why..end].trim_end();
        assert!(
            readme.contains(shown),
            "README.md's output of {args:?} is out of date:\n{shown}"
        );
    }
}

/// Imports run one way: no two files under `src/` import each other, directly or in a loop
/// (`scripts/rs_cycles.py` reads the `use` lines and paths; the front ends `serve/` and `mcp/`
/// and the shared `work/` sit beside `cmd/`, not inside it).
#[test]
fn no_two_files_import_each_other() {
    let run = std::process::Command::new("python3")
        .args(["scripts/rs_cycles.py", "src"])
        .current_dir(root())
        .output();
    let Ok(out) = run else {
        eprintln!("SKIPPED no_two_files_import_each_other: no python3 to run scripts/rs_cycles.py");
        return;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "rs_cycles.py failed: {text}");
    assert_eq!(
        text.trim().lines().last(),
        Some("0 file cycle(s)"),
        "{text}"
    );
}

/// kubectl habits: a file given as the positional argument is read as `--hpa` (said on stderr),
/// and the same paste as `--hpa` gives the same answer; `TYPE/NAME` with another type is a usage
/// error; no argument with a pipe on stdin suggests `--hpa -`.
#[test]
fn a_file_as_the_positional_argument_is_read_as_hpa() {
    let as_flag = Test::new()
        .args(["--hpa", "fixtures/paste/describe.txt", "--now", NOW])
        .status(0)
        .run();
    let out = Test::new()
        .args(["fixtures/paste/describe.txt", "--now", NOW])
        .status(0)
        .stderr_contains("reading fixtures/paste/describe.txt as --hpa")
        .run();
    assert_eq!(stdout(&out), stdout(&as_flag));
    Test::new()
        .args(["deployment/web", "-n", "shop"])
        .fails(2)
        .stderr_contains("expected an HPA's name, TYPE/NAME with an HPA's type (hpa/web")
        .run();
    Test::new()
        .stdin(std::fs::read("fixtures/paste/describe.txt").unwrap())
        .fails(2)
        .stderr_contains(
            "stdin is not a terminal: to read the HPA from stdin, run `hpacalc --hpa -`",
        )
        .run();
}

/// `--brief` (`-o summary`): the decision line, the first WHY line and one line per other cause,
/// nothing else; `-o markdown` starts with the same decision line as a heading.
#[test]
fn brief_prints_the_answer_alone_and_markdown_starts_with_it() {
    let files = [
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pods",
        "fixtures/samples/web-mixed.csv",
    ];
    let v = json(&files);
    let args = [files[0], files[1], files[2], files[3], "--now", NOW];
    let causes = v["diagnostics"].as_array().unwrap();
    assert!(causes.len() > 1, "{v}");
    let brief = stdout(&Test::new().args(args).arg("--brief").status(0).run());
    let summary = stdout(
        &Test::new()
            .args(args)
            .args(["-o", "summary"])
            .status(0)
            .run(),
    );
    assert_eq!(brief, summary);
    let lines: Vec<&str> = brief.lines().collect();
    let first = format!("web: {} → {}", v["currentReplicas"], v["desiredReplicas"]);
    assert!(lines[0].starts_with(&first), "{brief}");
    assert!(
        lines[0].ends_with(causes[0]["code"].as_str().unwrap()),
        "{brief}"
    );
    assert!(
        lines[1].starts_with("  warning ")
            || lines[1].starts_with("  info ")
            || lines[1].starts_with("  error "),
        "{brief}"
    );
    for cause in &causes[1..] {
        let code = cause["code"].as_str().unwrap();
        assert_eq!(
            lines
                .iter()
                .filter(|l| l.contains(&format!(" {code}: ")))
                .count(),
            1,
            "{code}:\n{brief}"
        );
    }
    assert!(!brief.contains("PHASE"), "{brief}");
    let md = stdout(
        &Test::new()
            .args(args)
            .args(["-o", "markdown"])
            .status(0)
            .run(),
    );
    assert!(md.starts_with("### web: "), "{md}");
    assert!(md.contains("| phase | step | detail |"), "{md}");
    assert!(md.contains("**Why**"), "{md}");
}
