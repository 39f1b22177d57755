//! The upstream conformance suite: every case of the Kubernetes HPA controller's own unit tests
//! (`fixtures/upstream/*.json`, documented in `fixtures/upstream/README.md`) run through the
//! library with the case's own settings, comparing every field the Go test asserts.
//!
//! A port that drifts from the controller fails here with the vector's id and a field-by-field
//! diff; the vectors are never edited to make a case pass.

mod aws_instancetype;
mod expander;
mod karpenter;
mod karpenter_consolidation;
mod normalization;
mod replica;

use std::fmt::Debug;
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

use hpacalc::time::{Duration, Timestamp};
use serde_json::Value;

/// Vectors hpacalc deliberately does not reproduce: (id, the upstream behaviour not modelled).
/// Skipped vectors still run; one that passes is reported so the entry can go.
const SKIPS: &[(&str, &str)] = &[
    (
        "cluster-autoscaler/TestBinpackingEstimate/hostport-conflict-forces-pod-per-node",
        "host ports (the NodePorts filter) are not modelled",
    ),
    (
        "cluster-autoscaler/TestBinpackingEstimate/hostname-topology-spreading-with-maxskew-2-forces-2-pods/node",
        "topology spread constraints are not modelled in the estimator",
    ),
    (
        "cluster-autoscaler/TestBinpackingEstimate/zonal-topology-spreading-with-maxskew-2-only-allows-2-pods-to-schedule",
        "topology spread constraints are not modelled in the estimator",
    ),
    (
        "cluster-autoscaler/TestBinpackingEstimate/hostname-topology-spreading-with-maxskew-1-with-a-large-scaleup-handles-scheduling-pods-retroactively",
        "topology spread constraints are not modelled in the estimator",
    ),
];

/// How many vectors the files hold (README: 100 + 96 + 51 + 41 + 71 + 20).
const EXPECTED_VECTORS: usize = 379;

/// Runs one vector of a file.
type Runner = fn(&Value) -> Check;

/// What one vector's comparison found.
#[derive(Debug, Default)]
struct Check {
    /// One line per asserted field that differs (or per harness problem).
    diffs: Vec<String>,
    /// Asserted fields hpacalc has no counterpart for (not compared, not failed).
    not_compared: Vec<&'static str>,
}

impl Check {
    fn eq<T: PartialEq + Debug>(&mut self, field: &str, expected: T, got: T) {
        if expected != got {
            self.diffs
                .push(format!("{field}: expected {expected:?}, got {got:?}"));
        }
    }

    fn fail(&mut self, line: String) {
        self.diffs.push(line);
    }

    fn not_compared(&mut self, field: &'static str) {
        self.not_compared.push(field);
    }

    /// Fails on any `expected` key outside `handled` (notes aside), so that a field the Go test
    /// asserts can never be silently left uncompared.
    fn only_keys(&mut self, expected: &Value, handled: &[&str]) {
        let Some(map) = expected.as_object() else {
            self.fail("harness: `expected` is not an object".into());
            return;
        };
        for key in map.keys() {
            if !handled.contains(&key.as_str()) && !key.ends_with("Note") {
                self.fail(format!("harness: expected field `{key}` is not compared"));
            }
        }
    }
}

/// The whole suite's result.
#[derive(Debug, Default)]
struct Summary {
    passed: usize,
    failed: Vec<(String, Vec<String>)>,
    skipped: usize,
    /// Skipped vectors that pass now.
    stale_skips: Vec<String>,
    /// Field name → how many vectors assert it without it being compared.
    not_compared: Vec<(&'static str, usize)>,
}

impl Summary {
    fn total(&self) -> usize {
        self.passed + self.failed.len() + self.skipped
    }

    fn count_not_compared(&mut self, field: &'static str) {
        match self.not_compared.iter_mut().find(|(f, _)| *f == field) {
            Some((_, n)) => *n += 1,
            None => self.not_compared.push((field, 1)),
        }
    }
}

fn load(file: &str) -> Vec<Value> {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "fixtures", "upstream", file]
        .iter()
        .collect();
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    match serde_json::from_str(&text) {
        Ok(Value::Array(vectors)) => vectors,
        Ok(_) => panic!("{}: expected a JSON array of vectors", path.display()),
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

/// Runs one vector, turning a panic (in the library or the harness) into a failure line.
fn run_one(run: Runner, vector: &Value) -> Check {
    match catch_unwind(AssertUnwindSafe(|| run(vector))) {
        Ok(check) => check,
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("(no message)");
            Check {
                diffs: vec![format!("panicked: {message}")],
                not_compared: Vec::new(),
            }
        }
    }
}

fn run_suite() -> Summary {
    let mut summary = Summary::default();
    let files: [(&str, Runner); 6] = [
        ("replica_calculator.json", replica::run),
        ("normalization.json", normalization::run),
        ("cluster_autoscaler.json", expander::run),
        ("aws_instancetype.json", aws_instancetype::run),
        ("karpenter.json", karpenter::run),
        ("karpenter_consolidation.json", karpenter_consolidation::run),
    ];
    for (file, run) in files {
        for vector in load(file) {
            let id = text(&vector, "id").to_string();
            let check = run_one(run, &vector);
            if SKIPS.iter().any(|(skip, _)| *skip == id) {
                summary.skipped += 1;
                if check.diffs.is_empty() {
                    summary.stale_skips.push(id);
                }
                continue;
            }
            for field in &check.not_compared {
                summary.count_not_compared(field);
            }
            if check.diffs.is_empty() {
                summary.passed += 1;
            } else {
                summary.failed.push((id, check.diffs));
            }
        }
    }
    summary
}

#[test]
fn upstream_conformance() {
    let summary = run_suite();
    // Straight to the process's stdout, past the test harness's capture: `cargo test` shows the
    // count on every run, as docs/fidelity.md promises.
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "\nconformance: {} passed, {} failed, {} skipped",
        summary.passed,
        summary.failed.len(),
        summary.skipped
    );
    for (field, n) in &summary.not_compared {
        let _ = writeln!(
            out,
            "conformance: `{field}` asserted upstream but not compared in {n} vectors"
        );
    }
    for id in &summary.stale_skips {
        let _ = writeln!(
            out,
            "conformance: skipped vector {id} passes now; remove it from SKIPS"
        );
    }
    drop(out);
    assert_eq!(
        summary.total(),
        EXPECTED_VECTORS,
        "the suite ran {} vectors, the fixtures hold {EXPECTED_VECTORS}",
        summary.total()
    );
    if !summary.failed.is_empty() {
        let report: Vec<String> = summary
            .failed
            .iter()
            .map(|(id, diffs)| format!("{id}\n    {}", diffs.join("\n    ")))
            .collect();
        panic!(
            "{} upstream vectors failed:\n{}",
            summary.failed.len(),
            report.join("\n")
        );
    }
}

#[test]
fn the_fixtures_hold_every_upstream_case_once() {
    let replica = load("replica_calculator.json");
    let normalization = load("normalization.json");
    let autoscaler = load("cluster_autoscaler.json");
    let aws = load("aws_instancetype.json");
    let karpenter = load("karpenter.json");
    let consolidation = load("karpenter_consolidation.json");
    assert_eq!(
        (
            replica.len(),
            normalization.len(),
            autoscaler.len(),
            aws.len(),
            karpenter.len(),
            consolidation.len()
        ),
        (100, 96, 51, 41, 71, 20)
    );
    let mut ids: Vec<&str> = replica
        .iter()
        .chain(&normalization)
        .chain(&autoscaler)
        .chain(&aws)
        .chain(&karpenter)
        .chain(&consolidation)
        .map(|v| text(v, "id"))
        .collect();
    ids.sort_unstable();
    let before = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), before, "vector ids are not unique");
    for (skip, reason) in SKIPS {
        assert!(
            ids.binary_search(skip).is_ok(),
            "SKIPS names an unknown vector {skip}"
        );
        assert!(!reason.is_empty(), "SKIPS entry {skip} gives no reason");
    }
}

#[test]
fn a_differing_field_fails_the_check() {
    let mut check = Check::default();
    check.eq("replicas", 4, 4);
    assert!(check.diffs.is_empty());
    check.eq("replicas", 4, 5);
    check.only_keys(
        &serde_json::json!({"replicas": 4, "extra": 1, "extraNote": ""}),
        &["replicas"],
    );
    assert_eq!(
        check.diffs,
        [
            "replicas: expected 4, got 5",
            "harness: expected field `extra` is not compared"
        ]
    );
}

// JSON access for the vectors. The files are fixed test data: a malformed vector panics with the
// key, and `run_one` reports the panic against the vector's id.

fn get<'v>(v: &'v Value, key: &str) -> &'v Value {
    v.get(key)
        .unwrap_or_else(|| panic!("vector has no key `{key}` in {}", abbreviated(v)))
}

fn abbreviated(v: &Value) -> String {
    let s = v.to_string();
    s.chars().take(160).collect()
}

fn text<'v>(v: &'v Value, key: &str) -> &'v str {
    get(v, key)
        .as_str()
        .unwrap_or_else(|| panic!("`{key}` is not a string"))
}

fn opt_text<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

fn int(v: &Value, key: &str) -> i64 {
    get(v, key)
        .as_i64()
        .unwrap_or_else(|| panic!("`{key}` is not an int64"))
}

fn opt_int(v: &Value, key: &str) -> Option<i64> {
    match v.get(key) {
        None | Some(Value::Null) => None,
        Some(_) => Some(int(v, key)),
    }
}

fn int32(v: &Value, key: &str) -> i32 {
    i32::try_from(int(v, key)).unwrap_or_else(|_| panic!("`{key}` is not an int32"))
}

fn opt_int32(v: &Value, key: &str) -> Option<i32> {
    opt_int(v, key).map(|n| i32::try_from(n).unwrap_or_else(|_| panic!("`{key}` is not an int32")))
}

fn float(v: &Value, key: &str) -> f64 {
    get(v, key)
        .as_f64()
        .unwrap_or_else(|| panic!("`{key}` is not a number"))
}

fn boolean(v: &Value, key: &str) -> bool {
    get(v, key)
        .as_bool()
        .unwrap_or_else(|| panic!("`{key}` is not a bool"))
}

/// An array, with `null` or an absent key read as empty.
fn array<'v>(v: &'v Value, key: &str) -> &'v [Value] {
    match v.get(key) {
        None | Some(Value::Null) => &[],
        Some(Value::Array(items)) => items,
        Some(_) => panic!("`{key}` is not an array"),
    }
}

fn seconds(v: &Value, key: &str) -> Duration {
    Duration::from_secs(int(v, key))
}

/// `age_s` seconds before `now`.
fn ago(now: Timestamp, age_s: i64) -> Timestamp {
    now.sub(Duration::from_secs(age_s))
}

/// The README's time model: `<prefix>_kind` is `age` (with `<age_key>`), `zero` (Go's zero
/// time) or `absent` (nil).
fn instant(v: &Value, kind_key: &str, age_key: &str, now: Timestamp) -> Option<Timestamp> {
    match text(v, kind_key) {
        "age" => Some(ago(now, int(v, age_key))),
        "zero" => Some(Timestamp::GO_ZERO),
        "absent" => None,
        other => panic!("`{kind_key}` is {other:?}, expected age, zero or absent"),
    }
}
