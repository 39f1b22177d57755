//! The binary on `fixtures/`: what a user types, what they see, and the exit codes.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs hpacalc from the project root with a fixed width, no colour and a fixed clock.
pub fn hpacalc(args: &[&str]) -> Output {
    hpacalc_stdin(args, "")
}

pub fn hpacalc_stdin(args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_hpacalc"))
        .args(args)
        .current_dir(root())
        .env("COLUMNS", "120")
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hpacalc runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("hpacalc finishes")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

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
