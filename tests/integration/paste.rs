//! What people paste: v2beta1 manifests, `kubectl describe hpa`, the `kubectl get hpa` table and
//! HPA events, each ending in the same decision as the equivalent manifest and history.

use serde_json::Value;

use crate::support::{
    NOW, Test, approximate, codes, decision, hpacalc, json, json_output, root, stderr, stdout,
    temp_dir,
};

const EVERYTHING_VALUES: [&str; 8] = [
    "--metric-value",
    "requests-per-second=12k",
    "--metric-value",
    "queue_messages_ready=90",
    "--current-replicas",
    "3",
    "--pods",
    "fixtures/samples/pods-metric.csv",
];

#[test]
fn a_v2beta1_manifest_decides_as_its_v2_twin_and_says_the_version_is_gone() {
    let mut beta = vec!["--hpa", "fixtures/hpa/v2beta1.yaml"];
    beta.extend(EVERYTHING_VALUES);
    let mut v2 = vec!["--hpa", "fixtures/hpa/all-metric-types.yaml"];
    v2.extend(EVERYTHING_VALUES);
    let (beta, v2) = (json(&beta), json(&v2));
    assert_eq!(decision(&beta), decision(&v2));
    let notes = beta["assumptions"].as_array().unwrap();
    assert!(
        notes[0]
            .as_str()
            .unwrap()
            .contains("autoscaling/v2beta1, which the API server no longer serves"),
        "{notes:?}"
    );
}

#[test]
fn print_hpa_prints_the_normalized_v2_hpa_as_yaml_or_json() {
    let o = hpacalc(&["--hpa", "fixtures/hpa/v2beta1.yaml", "--print-hpa"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let yaml = stdout(&o);
    assert!(yaml.starts_with("apiVersion: autoscaling/v2\n"), "{yaml}");
    assert!(yaml.contains("describedObject:"), "{yaml}");
    let o = hpacalc(&[
        "--hpa",
        "fixtures/hpa/v2beta1.yaml",
        "--print-hpa",
        "-o",
        "json",
    ]);
    let printed: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        printed.pointer("/spec/metrics/1/containerResource/target/averageUtilization"),
        Some(&serde_json::json!(60))
    );
    assert_eq!(printed["spec"]["minReplicas"], 1);
}

#[test]
fn the_printed_hpa_reads_back_to_the_same_decision() {
    let o = hpacalc(&["--hpa", "fixtures/kubectl/hpa.yaml", "--print-hpa"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let again = Test::new()
        .args(["--hpa", "-", "--now", NOW, "-o", "json"])
        .stdin(stdout(&o))
        .schema("report")
        .json();
    let original = json(&["--hpa", "fixtures/kubectl/hpa.yaml"]);
    assert_eq!(decision(&again), decision(&original));
}

#[test]
fn events_as_history_decide_as_the_equivalent_history_csv() {
    let hpa = ["--hpa", "fixtures/kubectl/hpa.yaml"];
    let events = json(&[&hpa[..], &["--events", "fixtures/paste/events.yaml"]].concat());
    let csv = json(
        &[
            &hpa[..],
            &["--history", "fixtures/paste/history-equivalent.csv"],
        ]
        .concat(),
    );
    assert_eq!(decision(&events), decision(&csv));
    let steps = |v: &serde_json::Value| {
        v["steps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["phase"] == "stabilize" || s["phase"] == "limit")
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(steps(&events), steps(&csv));
    let notes = events["assumptions"].to_string();
    assert!(notes.contains("3 rescale(s) in the last 5m"), "{notes}");
    assert!(
        notes.contains("1 event(s) of other objects ignored"),
        "{notes}"
    );
}

#[test]
fn the_controllers_failures_become_controller_reported_diagnostics() {
    let v = json(&[
        "--hpa",
        "fixtures/kubectl/hpa.yaml",
        "--events",
        "fixtures/paste/events.yaml",
    ]);
    let reported: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "ControllerReported")
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert!(
        reported.iter().any(|m| m.starts_with(
            "the controller reported FailedGetPodsMetric 14 times in the last 20 minutes: unable to get metric http_requests_per_second"
        )),
        "{reported:?}"
    );
    assert!(
        reported
            .iter()
            .any(|m| m.contains("FailedComputeMetricsReplicas 14 times")),
        "{reported:?}"
    );
}

#[test]
fn history_and_events_together_are_merged_and_said() {
    let v = json(&[
        "--hpa",
        "fixtures/kubectl/hpa.yaml",
        "--events",
        "fixtures/paste/events.yaml",
        "--history",
        "fixtures/history/scale-events.csv",
    ]);
    assert!(
        v["assumptions"]
            .to_string()
            .contains("--history and --events merged"),
        "{}",
        v["assumptions"]
    );
}

#[test]
fn yaml_describe_text_and_a_get_hpa_line_give_the_same_approximate_decision() {
    let yaml = json(&["--hpa", "fixtures/paste/hpa.yaml"]);
    let describe = json(&["--hpa", "fixtures/paste/describe.txt"]);
    let table = json(&["--hpa", "fixtures/paste/get-hpa-watch.txt", "--name", "web"]);
    assert_eq!(yaml["approximation"], true);
    // The status kept 5 from the same count: pods it hides explain it (8 once they report).
    assert_eq!(yaml["desiredReplicas"], 5);
    assert_eq!(yaml["otherOutcomes"][0]["replicas"], 8);
    assert_eq!(approximate(&describe), approximate(&yaml));
    // The table shows no desired count: nothing hidden to infer, it answers the metrics alone,
    // the YAML's other outcome.
    assert_eq!(
        table["desiredReplicas"],
        yaml["otherOutcomes"][0]["replicas"]
    );
    assert_eq!(table["currentReplicas"], yaml["currentReplicas"]);
    // describe shows all three metrics, with their names: the same metrics as the YAML.
    let names = |v: &serde_json::Value| {
        v["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["name"].clone(), m["proposedReplicas"].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&describe), names(&yaml));
}

#[test]
fn the_describe_texts_events_feed_the_history_and_the_diagnostics() {
    let v = json(&["--hpa", "fixtures/paste/describe.txt"]);
    let notes = v["assumptions"].to_string();
    assert!(
        notes.contains("the describe text's Events: 3 rescale(s) in the last 5m"),
        "{notes}"
    );
    let messages: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "ControllerReported")
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert!(
        messages.iter().any(|m| m.starts_with(
            "the controller reported FailedGetPodsMetric 14 times in the last 20 minutes"
        )),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.contains("FailedRescale 1 time")),
        "{messages:?}"
    );
}

#[test]
fn print_hpa_of_describe_text_is_the_yamls_spec() {
    let out = |path: &str| json_output(&["--hpa", path, "--print-hpa"]);
    let mut from_describe = out("fixtures/paste/describe.txt");
    let mut from_yaml = out("fixtures/paste/hpa.yaml");
    assert_eq!(from_describe["spec"], from_yaml["spec"]);
    // Describe prints the conditions without their times; only ScaledToZero is read from them.
    for v in [&mut from_describe, &mut from_yaml] {
        v["status"].as_object_mut().unwrap().remove("conditions");
    }
    assert_eq!(from_describe["status"], from_yaml["status"]);
}

#[test]
fn several_hpas_in_one_describe_text_are_picked_with_name() {
    let one = std::fs::read_to_string(root().join("fixtures/paste/describe.txt")).unwrap();
    let other = one
        .replace(
            "Name:                                                  web",
            "Name:                                                  api",
        )
        .replace(
            "Max replicas:                                          12",
            "Max replicas:                                          20",
        );
    let both = format!("{one}\n\n{other}");
    Test::new()
        .args(["--hpa", "-", "--now", NOW])
        .stdin(both.as_str())
        .status(1)
        .stderr_contains("found 2 HPAs (shop/api, shop/web), expected one: pick it with --name")
        .run();
    let v = Test::new()
        .args(["--hpa", "-", "--name", "api", "--now", NOW, "-o", "json"])
        .stdin(both)
        .schema("report")
        .json();
    assert_eq!(v["hpa"], "shop/api");
    assert_eq!(v["maxReplicas"], 20);
}

#[test]
fn an_unknown_target_in_the_table_is_the_controllers_failed_metric_and_missing_metrics() {
    let v = json(&[
        "--hpa",
        "fixtures/paste/get-hpa-watch.txt",
        "--name",
        "worker",
    ]);
    assert_eq!(v["desiredReplicas"], 2);
    assert_eq!(v["metrics"][0]["errorReason"], "FailedGetResourceMetric");
    let missing: Vec<&serde_json::Value> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "MissingMetrics")
        .collect();
    assert_eq!(missing.len(), 1, "{}", v["diagnostics"]);
    assert_eq!(missing[0]["severity"], "warning");
}

#[test]
fn a_get_hpa_table_with_more_than_two_metrics_warns_about_the_hidden_ones() {
    let o = hpacalc(&[
        "--hpa",
        "fixtures/paste/get-hpa-watch.txt",
        "--name",
        "web",
        "--now",
        NOW,
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("`+ 1 more...`"), "{}", stderr(&o));
}

#[test]
fn sources_say_which_form_each_fact_came_from() {
    let v = json(&["--hpa", "fixtures/paste/get-hpa-watch.txt", "--name", "web"]);
    let form = |fact: &str| {
        v["sources"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["fact"] == fact)
            .map(|s| s["form"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(form("hpa"), ["kubectl get hpa"]);
    assert_eq!(form("currentReplicas"), ["kubectl get hpa"]);
    assert_eq!(form("pods"), ["computed from the status"]);
    assert_eq!(form("history"), ["assumed"]);
    assert_eq!(form("now"), ["flag"]);
    let v = json(&[
        "--hpa",
        "fixtures/hpa/v2beta1.yaml",
        "--metric-value",
        "requests-per-second=12k",
        "--metric-value",
        "queue_messages_ready=90",
        "--current-replicas",
        "3",
        "--pods",
        "fixtures/samples/pods-metric.csv",
        "--events",
        "fixtures/paste/events.yaml",
    ]);
    let sources = v["sources"].to_string();
    assert!(sources.contains(r#"{"context":null,"fact":"hpa","file":"fixtures/hpa/v2beta1.yaml","form":"manifest autoscaling/v2beta1","server":null}"#), "{sources}");
    assert!(
        sources.contains(r#"{"context":null,"fact":"currentReplicas","file":"--current-replicas","form":"flag","server":null}"#),
        "{sources}"
    );
    assert!(
        sources.contains(
            r#"{"context":null,"fact":"history","file":"fixtures/paste/events.yaml","form":"kubectl get events","server":null}"#
        ),
        "{sources}"
    );
}

#[test]
fn pasted_external_average_values_are_approximated_from_the_status() {
    let text = "Name:  q\nNamespace:  jobs\nReference:  Deployment/worker\nMetrics:  ( current / target )\n  \"queue_messages_ready\" (target average value):  90 / 30\nMin replicas:  1\nMax replicas:  10\nDeployment pods:  3 current / 3 desired\n";
    let v = Test::new()
        .args(["--hpa", "-", "--now", NOW, "-o", "json"])
        .stdin(text)
        .schema("report")
        .json();
    assert_eq!(v["approximation"], true);
    // 90 average over 3 pods is 270 in total: 270 / 30 = 9 replicas, limited to max(2 × 3, 4).
    assert_eq!(v["decision"]["metricProposal"], 9);
    assert_eq!(v["desiredReplicas"], 6);
}

#[test]
fn a_get_hpa_table_of_all_namespaces_needs_n_when_names_repeat() {
    let file = "fixtures/paste/get-hpa-all-namespaces.txt";
    let o = hpacalc(&["--hpa", file, "--name", "web", "--now", NOW]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(
            "found 2 HPAs (blog/web, shop/web), expected one: pick the namespace with -n"
        ),
        "{}",
        stderr(&o)
    );
    // kubectl's deprecation warning above the header is skipped.
    let v = json(&["--hpa", file, "--name", "web", "-n", "blog"]);
    assert_eq!(v["hpa"], "blog/web");
    assert_eq!(v["maxReplicas"], 4);
}

#[test]
fn the_kubectl_get_events_table_decides_as_its_yaml() {
    let hpa = ["--hpa", "fixtures/kubectl/hpa.yaml"];
    let yaml = json(&[&hpa[..], &["--events", "fixtures/paste/events.yaml"]].concat());
    let table = json(&[&hpa[..], &["--events", "fixtures/paste/events.txt"]].concat());
    assert_eq!(decision(&table), decision(&yaml));
    let codes = |v: &serde_json::Value| {
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["code"] == "ControllerReported")
            .count()
    };
    assert_eq!(codes(&table), codes(&yaml));
}

/// Every events table kubectl prints, laid out as its tabwriter pads it, is read by the header's
/// column positions (`-o wide`'s SUBOBJECT is empty for an HPA's events) and gives the decision
/// and the reported failures of the YAML. `kubectl events`' `30s (x14 over 20m)` is 14 times over
/// 20 minutes; the plain table prints no COUNT and says it hides repeats.
#[test]
fn every_kubectl_events_table_reads_as_its_yaml() {
    let hpa = ["--hpa", "fixtures/kubectl/hpa.yaml"];
    let reported = |v: &serde_json::Value| -> Vec<String> {
        (v["diagnostics"].as_array().unwrap().iter())
            .filter(|d| d["code"] == "ControllerReported")
            .map(|d| d["message"].as_str().unwrap().to_string())
            .collect()
    };
    let yaml = json(&[&hpa[..], &["--events", "fixtures/paste/events.yaml"]].concat());
    for form in ["get-events-wide", "kubectl-events", "get-events-pre-1.14"] {
        let file = format!("fixtures/paste/events/{form}.txt");
        let v = json(&[&hpa[..], &["--events", &file]].concat());
        assert_eq!(decision(&v), decision(&yaml), "{form}");
        assert_eq!(reported(&v), reported(&yaml), "{form}");
    }
    let plain = json(
        &[
            &hpa[..],
            &["--events", "fixtures/paste/events/get-events.txt"],
        ]
        .concat(),
    );
    assert_eq!(decision(&plain), decision(&yaml));
    let first = &reported(&plain)[0];
    assert!(
        first.starts_with(
            "the controller reported FailedComputeMetricsReplicas at least 1 time in the last 30 \
             seconds (this table hides repeats: kubectl get events -o wide shows COUNT and FIRST \
             SEEN)"
        ),
        "{first}"
    );
}

/// A describe text cut before `Deployment pods:` (after a whole Behavior) has no count: with
/// `--current-replicas` it answers as the whole text; without, the count is what is missing
/// (a usage error that says how to give it).
#[test]
fn a_describe_text_cut_before_its_pods_line_answers_with_the_count_given() {
    let whole = std::fs::read_to_string("fixtures/paste/describe.txt").unwrap();
    let cut = &whole[..whole.find("Deployment pods:").unwrap()];
    let dir = temp_dir("describe-cut");
    let file = dir.join("cut.txt");
    std::fs::write(&file, cut).unwrap();
    let path = file.to_str().unwrap();
    let given = json(&["--hpa", path, "--current-replicas", "5"]);
    let full = json(&["--hpa", "fixtures/paste/describe.txt"]);
    // Cut before `5 current / 5 desired`, the text has no status count to infer hidden pods
    // from: it answers what its metrics give, the whole text's other outcome.
    assert_eq!(
        (&given["currentReplicas"], &given["desiredReplicas"]),
        (
            &full["currentReplicas"],
            &full["otherOutcomes"][0]["replicas"]
        )
    );
    assert_eq!(full["desiredReplicas"], 5);
    let o = hpacalc(&["--hpa", path, "--now", NOW]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no current replica count"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).is_empty());
}

/// A whole describe text given as `--events`: its Events section is the events, read as when
/// the describe text is the HPA itself.
#[test]
fn a_describe_text_given_as_the_events_gives_its_events_section() {
    let reported = |v: &serde_json::Value| -> Vec<String> {
        (v["diagnostics"].as_array().unwrap().iter())
            .filter(|d| d["code"] == "ControllerReported")
            .map(|d| d["message"].as_str().unwrap().to_string())
            .collect()
    };
    let as_events = json(&[
        "--hpa",
        "fixtures/paste/hpa.yaml",
        "--events",
        "fixtures/paste/describe.txt",
    ]);
    let as_hpa = json(&["--hpa", "fixtures/paste/describe.txt"]);
    assert_eq!(reported(&as_events).len(), 4);
    assert_eq!(reported(&as_events), reported(&as_hpa));
}

/// describe's `Labels:` show KEDA's labels: the HPA is KEDA's, as its manifest would say.
#[test]
fn a_described_keda_hpa_is_named_keda_managed_from_its_labels() {
    let keda = json(&["--hpa", "fixtures/paste/describe-keda.txt"]);
    let d = (keda["diagnostics"].as_array().unwrap().iter())
        .find(|d| d["code"] == "KedaManaged")
        .unwrap_or_else(|| panic!("{}", keda["diagnostics"]));
    assert!(
        (d["message"].as_str().unwrap())
            .starts_with("this HPA is generated by the KEDA ScaledObject web:"),
        "{d}"
    );
    let plain = json(&["--hpa", "fixtures/paste/describe.txt"]);
    assert!(!codes(&plain).contains(&"KedaManaged".to_string()));
}

/// A `kubectl get hpa` table cut before AGE, and without NAMESPACE (no -A): read, and the
/// namespace it takes is said.
#[test]
fn a_get_hpa_table_without_age_or_namespace_is_read_and_says_whose_namespace() {
    let dir = temp_dir("get-hpa-cut");
    let file = dir.join("get-hpa.txt");
    std::fs::write(
        &file,
        "NAME   REFERENCE        TARGETS       MINPODS   MAXPODS   REPLICAS\n\
         web    Deployment/web   cpu: 80%/50%  2         10        4\n",
    )
    .unwrap();
    let v = json(&["--hpa", file.to_str().unwrap(), "-n", "shop"]);
    assert_eq!(v["hpa"], "shop/web");
    assert!(
        (v["assumptions"].as_array().unwrap().iter()).any(|a| a
            .as_str()
            .unwrap()
            .starts_with("The table has no NAMESPACE column (kubectl get hpa without -A)")),
        "{}",
        v["assumptions"]
    );
}

#[test]
fn the_readme_on_call_example_is_what_hpacalc_prints() {
    let readme = std::fs::read_to_string(crate::cli::root().join("docs/on-call.md")).unwrap();
    let v = json(&["--hpa", "fixtures/paste/describe.txt"]);
    let mut lines = vec![v["decision"]["summary"].as_str().unwrap().to_string()];
    for d in v["diagnostics"].as_array().unwrap() {
        if d["code"] == "ControllerReported" {
            let m = d["message"].as_str().unwrap();
            lines.push(m.split(": ").next().unwrap().to_string());
        }
    }
    let expected = lines.join("\n");
    assert!(
        readme.contains(&expected),
        "docs/on-call.md's example is out of date:\n{expected}"
    );
}

/// A describe text whose conditions say AmbiguousSelector (a KEDA HPA and a plain one on the same
/// pods): the controller reads no metric, so the count holds, and that is the first WHY line.
#[test]
fn an_ambiguous_selector_in_the_pasted_conditions_holds_the_count_and_is_the_first_cause() {
    let v = json(&[
        "--hpa",
        "fixtures/paste/describe-ambiguous.txt",
        "--pods",
        "fixtures/kubectl/capture-time/pods.json",
        "--metrics",
        "fixtures/kubectl/capture-time/top.txt",
        "-l",
        "app=api",
    ]);
    assert_eq!(
        (v["currentReplicas"].as_i64(), v["desiredReplicas"].as_i64()),
        (Some(4), Some(4))
    );
    let first = &v["diagnostics"][0];
    assert_eq!(
        first["code"], "ControllerReported",
        "{:#}",
        v["diagnostics"]
    );
    assert_eq!(first["severity"], "error");
    assert_eq!(
        first["message"],
        "the controller reports ScalingActive=False AmbiguousSelector: pods by selector app=web \
         are controlled by multiple HPAs: [shop/keda-hpa-web shop/web]. It then reads no metric \
         and keeps 4 replicas until that changes; the metrics here alone would give 5"
    );
    // Nothing blames the metrics pipeline or history for what the selector explains.
    assert!(
        !codes(&v)
            .iter()
            .any(|c| c == "MissingMetrics" || c == "StatusMismatch"),
        "{:?}",
        codes(&v)
    );
}

/// A rate-limited scale-down's new size (16): run forward from 20, any recommendation up to 16
/// sets it; below 16 the count goes on down to 12 (Pods 4 per 60 s); both answers are said.
#[test]
fn a_rate_limited_scale_down_event_bounds_the_memory_and_the_answer_says_both() {
    let v = json(&[
        "--hpa",
        "fixtures/paste/rate-limited/describe.txt",
        "--pods",
        "fixtures/paste/rate-limited/samples.csv",
    ]);
    assert_eq!(v["desiredReplicas"], 12);
    assert_eq!(
        v["diagnostics"][0]["code"], "MemoryBounded",
        "{:#}",
        v["diagnostics"]
    );
    assert!(
        (v["diagnostics"][0]["message"].as_str().unwrap())
            .ends_with("(that sync recommended between 0 and 16). With the recommendations at one end of those ranges the next count is 12; at the other it is 16"),
        "{}",
        v["diagnostics"][0]["message"]
    );
    assert!((v["decision"]["summary"].as_str().unwrap()).ends_with(
        "; or 16, depending on what the rescales' syncs recommended (the events only bound it)"
    ));
    assert_eq!(v["otherOutcomes"][0]["replicas"], 16);
}

/// `<unknown>` for an External metric in describe text, with the condition saying why: the
/// controller's failed metric (it blocks a scale-down, not this scale-up), not an input error.
#[test]
fn an_unknown_external_metric_in_describe_text_is_the_controllers_failed_metric() {
    let v = json(&["--hpa", "fixtures/paste/describe-external-unknown.txt"]);
    assert_eq!(v["desiredReplicas"], 8);
    assert_eq!(v["metrics"][1]["errorReason"], "FailedGetExternalMetric");
    let said = (v["assumptions"].as_array().unwrap().iter()).any(|a| {
        a.as_str().unwrap().starts_with(
            "External metric queue_depth: no value, and the status says ScalingActive=False \
             FailedGetExternalMetric: the HPA was unable to compute the replica count",
        )
    });
    assert!(said, "{:#}", v["assumptions"]);
    // The condition names a metric that fails here too: nothing else to explain.
    assert!(
        !codes(&v).contains(&"ControllerReported".to_string()),
        "{:?}",
        codes(&v)
    );
}

/// Issue 36, item 1: the failed External metric's value is an unknown, searched forward. From 6
/// replicas, with cpu proposing 8, a queue depth v (Value target 100) proposes ceil(6 × v / 100):
/// up to 133.333 the count stays 8, from 183.334 the legacy limit of 12 holds it. The status's 6
/// is what the sync that gave up kept, which no value reproduces.
#[test]
fn a_failed_metrics_value_is_searched_forward_and_each_count_said() {
    let v = json(&["--hpa", "fixtures/paste/describe-external-unknown.txt"]);
    assert_eq!(v["desiredReplicas"], 8);
    let all = codes(&v);
    let at = all.iter().position(|c| c == "FailedMetricValue");
    assert_eq!(at, Some(1), "after the failure itself: {all:?}");
    let message = v["diagnostics"][1]["message"].as_str().unwrap();
    for part in [
        "External metric queue_depth has no value (FailedGetExternalMetric)",
        "run forward from 6 replicas over",
        "0–133.333 gives 8, 133.334–150 gives 9",
        "from 183.334 on gives 12",
        "no value gives status.desiredReplicas 6",
    ] {
        assert!(message.contains(part), "{part}: {message}");
    }
    let others: Vec<i64> = (v["otherOutcomes"].as_array().unwrap().iter())
        .map(|o| o["replicas"].as_i64().unwrap())
        .collect();
    assert_eq!(others, [9, 10, 11, 12], "{:#}", v["otherOutcomes"]);
    assert_eq!(
        v["otherOutcomes"][0]["when"],
        "if queue_depth comes back at 133.334–150"
    );
    assert_eq!(
        v["otherOutcomes"][0]["settle"],
        "pass --metric-value queue_depth=QUANTITY, or --external-metrics"
    );
}

/// Issue 36, item 1: two External metrics `<unknown>` in describe text, each searched with the
/// other at 0 (its lowest proposal); the count with both back is the larger of the two
/// (computeReplicasForMetrics takes the largest proposal), and no pair of values gives the
/// status's 6, which the sync that gave up kept.
#[test]
fn two_failed_metrics_in_describe_text_are_each_searched_and_said() {
    let v = json(&["--hpa", "fixtures/paste/describe-two-external-unknown.txt"]);
    assert_eq!(v["desiredReplicas"], 8);
    let all = codes(&v);
    let at = all.iter().position(|c| c == "FailedMetricValues");
    assert_eq!(at, Some(1), "after the failure itself: {all:?}");
    assert_eq!(all[2..4], ["FailedMetricValue", "FailedMetricValue"]);
    let joint = v["diagnostics"][1]["message"].as_str().unwrap();
    for part in [
        "2 metrics have no value (queue_depth, consumer_lag)",
        "the largest of the counts each gives with the others at 0",
        "no values give status.desiredReplicas 6",
    ] {
        assert!(joint.contains(part), "{part}: {joint}");
    }
    let lag = v["diagnostics"][3]["message"].as_str().unwrap();
    for part in [
        "External metric consumer_lag has no value (FailedGetExternalMetric)",
        // AverageValue 10 a replica from 6: ceil(v / 10) past cpu's 8 from 80.001.
        "0–80 gives 8, 80.001–90 gives 9",
        "with queue_depth at 0 (the lowest proposal)",
    ] {
        assert!(lag.contains(part), "{part}: {lag}");
    }
    let others: Vec<i64> = (v["otherOutcomes"].as_array().unwrap().iter())
        .map(|o| o["replicas"].as_i64().unwrap())
        .collect();
    assert_eq!(others, [9, 10, 11, 12], "{:#}", v["otherOutcomes"]);
    assert_eq!(
        v["otherOutcomes"][0]["when"],
        "if queue_depth comes back at 133.334–150 and consumer_lag at a value giving no more"
    );
}

/// Issue 36, item 1: `<unknown>` TARGETS cells in `kubectl get hpa` rows, as the API servers of
/// kubectl 1.27–1.29 (no resource name) and 1.30–1.33 print them, read as metrics the
/// controller could not get: exit 0 with the count the valid metric gives, never a usage error.
#[test]
fn unknown_targets_in_get_hpa_rows_are_failed_metrics_in_every_form() {
    let dir = temp_dir("get-hpa-unknown");
    for (form, targets) in [
        ("1.27", "46%/50%, <unknown>/500m (avg)"),
        ("1.30", "cpu: 46%/50%, <unknown>/500m (avg)"),
        ("1.27-cpu", "<unknown>/50%, 91/100"),
        ("1.30-cpu", "cpu: <unknown>/50%, 91/100"),
    ] {
        let file = dir.join(format!("get-hpa-{form}.txt"));
        std::fs::write(
            &file,
            format!(
                "NAME   REFERENCE        TARGETS   MINPODS   MAXPODS   REPLICAS   AGE\n\
                 web    Deployment/web   {targets}   2   10   4   5m\n"
            ),
        )
        .unwrap();
        let v = json(&["--hpa", file.to_str().unwrap()]);
        assert_eq!(v["desiredReplicas"], 4, "{form}: {:#}", v["decision"]);
        let failed: Vec<&Value> = (v["metrics"].as_array().unwrap().iter())
            .filter(|m| !m["errorReason"].is_null())
            .collect();
        assert_eq!(failed.len(), 1, "{form}: {:#}", v["metrics"]);
    }
}

/// Issue 36, item 1: which unnamed target is which resource. A row from an API server before
/// 1.30 prints `89%/30%` without the resource; with pods and samples cpu and memory each have their
/// own values, so both are run forward. The answer is the input's assumption (cpu), what the
/// named `cpu:` row gives; the named `memory:` row's count, where it differs, is the other
/// outcome.
#[test]
fn an_unnamed_target_is_run_as_cpu_and_as_memory_with_pods_and_samples() {
    let dir = temp_dir("get-hpa-unnamed");
    let run = |targets: &str| {
        let file = dir.join("get-hpa.txt");
        std::fs::write(
            &file,
            format!(
                "NAME   REFERENCE        TARGETS   MINPODS   MAXPODS   REPLICAS   AGE\n\
                 web    Deployment/web   {targets}   1   20   4   5m\n"
            ),
        )
        .unwrap();
        json(&[
            "--hpa",
            file.to_str().unwrap(),
            "-n",
            "shop",
            "--pods",
            "fixtures/kubectl/pods.json",
            "--metrics",
            "fixtures/kubectl/metrics.json",
        ])
    };
    let (unnamed, cpu, memory) = (run("89%/30%"), run("cpu: 89%/30%"), run("memory: 89%/30%"));
    assert_eq!(unnamed["desiredReplicas"], cpu["desiredReplicas"]);
    let others: Vec<&Value> = (unnamed["otherOutcomes"].as_array().unwrap().iter())
        .map(|o| &o["replicas"])
        .collect();
    // At 30 % the two resources' samples give different counts: the test needs both.
    assert_ne!(memory["desiredReplicas"], cpu["desiredReplicas"]);
    assert_eq!(others, [&memory["desiredReplicas"]]);
    let said = (unnamed["assumptions"].as_array().unwrap().iter()).any(|a| {
        a.as_str().unwrap().starts_with(
            "1 Utilization target(s) name no resource: each assignment run forward: cpu gives",
        )
    });
    assert!(said, "{:#}", unnamed["assumptions"]);
}

/// Issue 36, item 7: metric rows of one name stay separate. The `<unknown>` row is the
/// controller's failed metric; the row with a value keeps its own 45 per pod (270 on 6 pods),
/// which the `<unknown>` row does not borrow (computeReplicasForMetrics computes each entry).
#[test]
fn same_name_metric_rows_in_describe_text_each_keep_their_own_value() {
    let v = json(&["--hpa", "fixtures/paste/describe-external-same-name.txt"]);
    let unknown = &v["metrics"][1];
    assert_eq!(
        unknown["errorReason"], "FailedGetExternalMetric",
        "{unknown:#}"
    );
    assert!(unknown["currentValue"].is_null(), "{unknown:#}");
    assert!(unknown["proposedReplicas"].is_null(), "{unknown:#}");
    let average = &v["metrics"][2];
    assert_eq!(average["currentAverageValue"], "45", "{average:#}");
    assert_eq!(average["proposedReplicas"], 27, "ceil(270 / 10)");
    assert!(average["errorReason"].is_null(), "{average:#}");
}

/// Issue 36, item 7: two `"http_requests" on pods` rows (two Pods entries of one name, e.g.
/// with different selectors) each keep their own value: computeReplicasForMetrics asks
/// GetRawMetric once per entry. The second row's 5 used to overwrite the first row's 30.
#[test]
fn same_name_pods_rows_in_describe_text_each_keep_their_own_value() {
    let v = json(&["--hpa", "fixtures/paste/describe-pods-same-name.txt"]);
    let (first, second) = (&v["metrics"][0], &v["metrics"][1]);
    assert_eq!(first["currentAverageValue"], "30", "{first:#}");
    assert_eq!(first["proposedReplicas"], 6, "ceil(30 / 20 × 4)");
    assert_eq!(second["currentAverageValue"], "5", "{second:#}");
    assert_eq!(second["proposedReplicas"], 2, "ceil(5 / 10 × 4)");
    assert_eq!(
        v["decision"]["metricProposal"], 6,
        "the larger proposal decides"
    );
}

/// Issue 36, item 7: a status-only HPA YAML with two Pods `currentMetrics` of one name (two
/// selectors) reproduces each entry's own average: 30 and 5, two proposals.
#[test]
fn same_name_pods_current_metrics_in_status_only_yaml_each_keep_their_own_value() {
    let v = json(&["--hpa", "fixtures/hpa/pods-same-name.yaml"]);
    assert_eq!(v["metrics"][0]["currentAverageValue"], "30", "{v:#}");
    assert_eq!(v["metrics"][0]["proposedReplicas"], 6);
    assert_eq!(v["metrics"][1]["currentAverageValue"], "5", "{v:#}");
    assert_eq!(v["metrics"][1]["proposedReplicas"], 2);
}

/// Issue 36, item 7: a CSV column is named by the metric alone, so it cannot tell two Pods
/// entries of one name with different selectors apart: both read it, and an assumption says so
/// rather than merging them silently.
#[test]
fn a_csv_column_shared_by_same_name_pods_metrics_is_an_assumption() {
    let v = json(&[
        "--hpa",
        "fixtures/hpa/pods-same-name.yaml",
        "--pods",
        "fixtures/samples/pods-same-name.csv",
    ]);
    assert_eq!(v["metrics"][0]["proposedReplicas"], 6, "30 / 20 on 4 pods");
    assert_eq!(v["metrics"][1]["proposedReplicas"], 12, "30 / 10 on 4 pods");
    let said = v["assumptions"].to_string();
    assert!(
        said.contains("Pods metric http_requests: fixtures/samples/pods-same-name.csv does not say which metric selector"),
        "{said}"
    );
}

/// Issue 36, item 4: a v1 HPA with no current utilization whose conditions annotation says
/// `ScalingActive False FailedGetResourceMetric` is answered (exit 0), the reason first in WHY:
/// the controller keeps the count. It used to be refused with "no pods: pass --pods".
#[test]
fn a_v1_failure_in_the_conditions_annotation_is_the_answer() {
    let v = json(&["--hpa", "fixtures/hpa/v1-failed-metric.yaml"]);
    assert_eq!(
        (&v["currentReplicas"], &v["desiredReplicas"]),
        (&4.into(), &4.into())
    );
    let first = &v["diagnostics"][0];
    assert_eq!(first["code"], "StatusFailure", "{:#}", v["diagnostics"]);
    assert!(
        first["message"].as_str().unwrap().starts_with(
            "the controller reports ScalingActive=False FailedGetResourceMetric since \
             2026-11-29T14:00:00Z: the HPA was unable to compute the replica count"
        ),
        "{}",
        first["message"]
    );
}

/// Issue 36, item 1: a legacy scale-up event (describe's Events: 4 → 6, the limit 8) ran the
/// sync forward: only a recommendation of 6 sets it, so it is not a floor that lets the window
/// hold more. A paste of the events as `kubectl get events` prints them, with the HPA's YAML.
#[test]
fn a_legacy_scale_up_event_is_run_forward_not_taken_as_a_floor() {
    let dir = temp_dir("legacy-scale-up");
    let hpa = dir.join("hpa.yaml");
    std::fs::write(
        &hpa,
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n  \
         namespace: shop\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    \
         name: web\n  minReplicas: 2\n  maxReplicas: 20\n  metrics:\n  - type: Resource\n    \
         resource:\n      name: cpu\n      target:\n        type: Utilization\n        \
         averageUtilization: 50\nstatus:\n  currentReplicas: 6\n  desiredReplicas: 6\n  \
         currentMetrics:\n  - type: Resource\n    resource:\n      name: cpu\n      current:\n        \
         averageUtilization: 66\n        averageValue: 330m\n",
    )
    .unwrap();
    let events = dir.join("events.txt");
    std::fs::write(
        &events,
        "LAST SEEN   TYPE     REASON              OBJECT                          MESSAGE\n\
         60s         Normal   SuccessfulRescale   horizontalpodautoscaler/web     New size: 6; reason: cpu resource utilization (percentage of request) above target\n",
    )
    .unwrap();
    let v = json(&[
        "--hpa",
        hpa.to_str().unwrap(),
        "--events",
        events.to_str().unwrap(),
    ]);
    let said = v["assumptions"].to_string();
    assert!(said.contains("that sync recommended"), "{said}");
    assert!(
        !(v["diagnostics"].as_array().unwrap().iter())
            .any(|d| d["code"] == "MemoryBounded" && d["message"].as_str().unwrap().contains("20")),
        "{:#}",
        v["diagnostics"]
    );
}

/// Issue 36: `ScalingLimited True TooManyReplicas` in describe's Conditions is the first WHY
/// line when the sync reproduces it (exit 0), with the cause's own fix folded in.
#[test]
fn a_too_many_replicas_limit_in_describe_text_is_said_first() {
    let v = json(&["--hpa", "fixtures/hpa/describe-too-many-replicas.txt"]);
    assert_eq!(
        (&v["currentReplicas"], &v["desiredReplicas"]),
        (&4.into(), &6.into())
    );
    let first = &v["diagnostics"][0];
    assert_eq!(first["code"], "StatusLimited", "{:#}", v["diagnostics"]);
    assert!(
        first["message"].as_str().unwrap().starts_with(
            "the controller reports ScalingLimited=True TooManyReplicas: the desired replica \
             count is more than the maximum replica count. The sync here reproduces it: 4 → 6"
        ),
        "{}",
        first["message"]
    );
    assert!(first["fix"].as_str().unwrap().contains("maxReplicas"));
}

/// Issue 36: `AbleToScale False FailedUpdateScale` in describe's Conditions is the answer
/// while it lasts (exit 0): the count computed does not reach the target.
#[test]
fn a_failed_scale_update_in_describe_text_holds_the_count() {
    let v = json(&["--hpa", "fixtures/hpa/describe-failed-update-scale.txt"]);
    assert_eq!(
        (&v["currentReplicas"], &v["desiredReplicas"]),
        (&4.into(), &4.into())
    );
    assert_eq!(v["otherOutcomes"][0]["replicas"], 8);
    let first = &v["diagnostics"][0];
    assert_eq!(first["code"], "StatusFailure", "{:#}", v["diagnostics"]);
    assert!(
        (first["message"].as_str().unwrap()).contains("AbleToScale=False FailedUpdateScale"),
        "{}",
        first["message"]
    );
    assert!(
        !(v["diagnostics"].as_array().unwrap().iter()).any(|d| d["code"] == "ControllerReported"),
        "{:#}",
        v["diagnostics"]
    );
}
