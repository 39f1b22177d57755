//! Build script: the revision `hpacalc_build_info` exports (`HPACALC_REVISION`), from
//! `$HPACALC_REVISION` when set (a release build from a source archive), else from git, else
//! `unknown`.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (out.status.success() && !text.is_empty()).then(|| text.to_string())
}

fn main() {
    println!("cargo:rerun-if-env-changed=HPACALC_REVISION");
    let revision = std::env::var("HPACALC_REVISION")
        .ok()
        .filter(|r| !r.is_empty())
        .or_else(|| git(&["rev-parse", "--short=12", "HEAD"]));
    // A commit or a checkout moves HEAD's log: the revision is read again then.
    if let Some(log) = git(&[
        "rev-parse",
        "--path-format=absolute",
        "--git-path",
        "logs/HEAD",
    ]) {
        println!("cargo:rerun-if-changed={log}");
    }
    // Only what a label value may hold as it is.
    let revision: String = revision
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '+'))
        .collect();
    let revision = if revision.is_empty() {
        "unknown".to_string()
    } else {
        revision
    };
    println!("cargo:rustc-env=HPACALC_REVISION={revision}");
}
