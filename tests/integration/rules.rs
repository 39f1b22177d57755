//! `hpacalc rules`: the committed rules files are its output, and promtool (Debian's prometheus
//! package; scripts/test.sh installs it) checks them and runs their unit tests,
//! `contrib/prometheus/hpacalc-rules.test.yaml`, which cover every rule.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_yaml::Value;

use crate::support::{Scratch, Test, root, stdout};

const RULES: &str = "contrib/prometheus/hpacalc-rules.yaml";
const RULES_TEST: &str = "contrib/prometheus/hpacalc-rules.test.yaml";
const PROMETHEUS_RULE: &str = "contrib/deploy/monitoring/prometheusrule.yaml";

/// Each committed file is what its command prints (HPACALC_BLESS=1 rewrites them).
#[test]
fn committed_rules_match_hpacalc_rules() {
    let bless = std::env::var_os("HPACALC_BLESS").is_some();
    for (args, file) in [
        (&["rules"][..], RULES),
        (&["rules", "--prometheus-rule"][..], PROMETHEUS_RULE),
    ] {
        let printed = stdout(&Test::new().args(args).status(0).stderr("").run());
        let path = root().join(file);
        if bless {
            std::fs::write(&path, &printed).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(
            printed == committed,
            "{file} is not what `hpacalc {}` prints: run HPACALC_BLESS=1 cargo test --test \
             integration committed_",
            args.join(" ")
        );
    }
}

fn yaml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn alert_names(groups: &Value) -> Vec<String> {
    groups
        .as_sequence()
        .unwrap()
        .iter()
        .flat_map(|g| g["rules"].as_sequence().unwrap())
        .map(|r| r["alert"].as_str().unwrap().to_string())
        .collect()
}

/// The PrometheusRule holds the rules file's groups, and every rule has a unit test that sees it
/// fire and one that sees it hold back (an empty `exp_alerts`).
#[test]
fn every_rule_has_a_firing_test_and_a_near_miss() {
    let plain = yaml(&root().join(RULES));
    let operator = yaml(&root().join(PROMETHEUS_RULE));
    assert_eq!(operator["spec"]["groups"], plain["groups"]);
    let names = alert_names(&plain["groups"]);
    assert_eq!(
        names,
        [
            "HpaAtMaxAboveTarget",
            "HpaMetricUnavailable",
            "HpaStatusMismatch",
            "HpaMissingRequest",
            "HpaNearFlip",
            "HpaCannotScale",
            "HpaScalingInactive",
            "HpacalcAbsent",
            "HpacalcStale"
        ]
    );
    let tests = yaml(&root().join(RULES_TEST));
    assert_eq!(tests["rule_files"][0].as_str(), Some("hpacalc-rules.yaml"));
    let cases: Vec<(&str, usize)> = tests["tests"]
        .as_sequence()
        .unwrap()
        .iter()
        .flat_map(|t| t["alert_rule_test"].as_sequence().unwrap())
        .map(|c| {
            let alerts = c["exp_alerts"].as_sequence().map_or(0, Vec::len);
            (c["alertname"].as_str().unwrap(), alerts)
        })
        .collect();
    for name in &names {
        assert!(
            cases.iter().any(|(n, a)| n == name && *a > 0),
            "{RULES_TEST}: no test sees {name} fire"
        );
        assert!(
            cases.iter().any(|(n, a)| n == name && *a == 0),
            "{RULES_TEST}: no test sees {name} hold back on a near miss"
        );
    }
}

/// Every alert's runbook_url is its row's anchor in docs/diagnostics.md, and that anchor exists
/// once, on a row that names the alert.
#[test]
fn every_runbook_url_is_a_row_of_diagnostics_md() {
    let plain = yaml(&root().join(RULES));
    let docs = std::fs::read_to_string(root().join("docs/diagnostics.md")).unwrap();
    for rule in plain["groups"][0]["rules"].as_sequence().unwrap() {
        let name = rule["alert"].as_str().unwrap();
        let url = rule["annotations"]["runbook_url"].as_str().unwrap();
        let (page, anchor) = url.split_once('#').unwrap();
        assert!(page.ends_with("/docs/diagnostics.md"), "{name}: {url}");
        let tag = format!("<a id=\"{anchor}\"></a>");
        let rows: Vec<&str> = docs.lines().filter(|l| l.contains(&tag)).collect();
        assert_eq!(rows.len(), 1, "{name}: {tag} in docs/diagnostics.md");
        assert!(
            rows[0].starts_with(&format!("| {tag}`{name}` |")),
            "{name}: {}",
            rows[0]
        );
    }
}

fn promtool() -> Option<PathBuf> {
    let path = PathBuf::from("/usr/bin/promtool");
    path.exists().then_some(path)
}

/// `promtool ARGS...` from the project root: its output, after asserting that it succeeded.
fn run_promtool(promtool: &Path, args: &[&str]) -> String {
    let o = Command::new(promtool)
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "promtool {}:\n{text}", args.join(" "));
    text
}

/// promtool checks the rules file, the PrometheusRule's groups and a file printed for another
/// sync period, and runs the unit tests.
#[test]
fn promtool_checks_the_rules_and_runs_their_tests() {
    let Some(promtool) = promtool() else {
        eprintln!(
            "SKIPPED promtool_checks_the_rules_and_runs_their_tests: no /usr/bin/promtool \
             (Debian's prometheus package; scripts/test.sh installs it)"
        );
        return;
    };
    let checked = run_promtool(&promtool, &["check", "rules", RULES]);
    assert!(checked.contains("SUCCESS: 9 rules found"), "{checked}");
    let tested = run_promtool(&promtool, &["test", "rules", RULES_TEST]);
    assert!(tested.contains("SUCCESS"), "{tested}");

    let scratch = Scratch::new("rules");
    let spec = yaml(&root().join(PROMETHEUS_RULE))["spec"].clone();
    let groups = scratch.0.join("prometheusrule-groups.yaml");
    std::fs::write(&groups, serde_yaml::to_string(&spec).unwrap()).unwrap();
    let slow = scratch.0.join("rules-30s.yaml");
    let o = Test::new()
        .args(["rules", "--sync-period", "30s"])
        .status(0)
        .stdout_contains("--sync-period 30s`")
        .stdout_contains("for: 1m30s")
        .stdout_contains("for 3 syncs (1m30s)")
        .run();
    std::fs::write(&slow, &o.stdout).unwrap();
    // Another scrape job, quoted as PromQL reads a string.
    let job = scratch.0.join("rules-job.yaml");
    let o = Test::new()
        .args(["rules", "--job", "monitoring/hpacalc \"x\""])
        .status(0)
        .stdout_contains(r#"absent(up{job="monitoring/hpacalc \"x\""} == 1)"#)
        .run();
    std::fs::write(&job, &o.stdout).unwrap();
    for file in [&groups, &slow, &job] {
        let checked = run_promtool(&promtool, &["check", "rules", file.to_str().unwrap()]);
        assert!(checked.contains("SUCCESS: 9 rules found"), "{checked}");
    }
}

#[test]
fn a_bad_sync_period_names_the_flag() {
    for (value, message) in [
        ("soon", "error: --sync-period: \"soon\" is not a duration"),
        (
            "0s",
            "error: --sync-period: found \"0s\", expected a positive duration",
        ),
    ] {
        Test::new()
            .args(["rules", "--sync-period", value])
            .status(1)
            .stdout("")
            .stderr_starts_with(message)
            .run();
    }
    Test::new()
        .args(["rules", "--job", ""])
        .status(1)
        .stdout("")
        .stderr_starts_with("error: --job: found an empty name")
        .run();
}
