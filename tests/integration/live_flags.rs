//! kubectl's own flags in live mode, as kubectl treats them: `--cluster` and `--user` replace the
//! context's kubeconfig entries, `-v=6` logs each request on stderr (never a credential).

use crate::apiserver::{TOKEN, base64};
use crate::live::{fail_line, run_in, server};
use crate::support::{decision, stderr};

/// The decision, without the time of the run (live mode answers now).
fn timeless(v: &serde_json::Value) -> serde_json::Value {
    let mut d = decision(v);
    d.as_object_mut().unwrap().remove("now");
    d
}

/// A kubeconfig whose context `test` names a cluster that does not answer and a user with a bad
/// token; `local` and `tester` are the test API server and its token.
fn wrong_context_kubeconfig() -> std::path::PathBuf {
    let s = server();
    let path = s.path("kubeconfig-wrong-context");
    let text = format!(
        "apiVersion: v1\nkind: Config\ncurrent-context: test\nclusters:\n- name: gone\n  \
         cluster:\n    server: https://127.0.0.1:1\n- name: local\n  cluster:\n    server: {}\n    \
         certificate-authority-data: {}\ncontexts:\n- name: test\n  context:\n    cluster: gone\n    \
         user: intruder\n    namespace: shop\nusers:\n- name: intruder\n  user:\n    token: \
         wrong\n- name: tester\n  user:\n    token: {TOKEN}\n",
        s.url,
        base64(s.ca_pem.as_bytes())
    );
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn cluster_and_user_replace_the_contexts_entries_as_kubectls_flags_do() {
    let kubeconfig = wrong_context_kubeconfig();
    let dir = server().path("");
    let good = crate::live::live(&["web", "-o", "json"]).json();
    let chosen = run_in(
        &dir,
        &[
            "web",
            "--cluster",
            "local",
            "--user",
            "tester",
            "-o",
            "json",
        ],
        Some(&kubeconfig),
    )
    .json();
    assert!(
        timeless(&chosen) == timeless(&good),
        "the flags' entries answer as the good context"
    );
    // The context's own entries are what is used without the flags.
    let line = fail_line(run_in(&dir, &["web"], Some(&kubeconfig)));
    assert!(line.contains("https://127.0.0.1:1"), "{line}");
    let line = fail_line(run_in(
        &dir,
        &["web", "--cluster", "local"],
        Some(&kubeconfig),
    ));
    assert!(
        line.contains("401") || line.contains("Unauthorized"),
        "{line}"
    );
    // An entry the kubeconfig lacks names those it has.
    let line = fail_line(run_in(
        &dir,
        &["web", "--user", "nobody"],
        Some(&kubeconfig),
    ));
    assert!(
        line.contains("user \"nobody\" not found in the kubeconfig (its users: intruder, tester)"),
        "{line}"
    );
    let line = fail_line(run_in(
        &dir,
        &["web", "--cluster", "prod"],
        Some(&kubeconfig),
    ));
    assert!(
        line.contains("cluster \"prod\" not found in the kubeconfig (its clusters: gone, local)"),
        "{line}"
    );
}

#[test]
fn v6_logs_each_request_on_stderr_as_kubectl_does_and_changes_no_answer() {
    let quiet = crate::live::live(&["web", "-o", "json"]).json();
    for form in [&["-v=6"][..], &["-v", "6"], &["--v=6"], &["-v9"]] {
        let out = crate::live::live(&[&["web", "-o", "json"][..], form].concat()).run();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(
            timeless(&v) == timeless(&quiet),
            "{form:?} changes the answer"
        );
        let log = stderr(&out);
        let hpa = format!(
            "GET {}/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers/web 200 OK in ",
            server().url
        );
        assert!(log.lines().any(|l| l.starts_with(&hpa)), "{form:?}: {log}");
        assert!(!log.contains(TOKEN), "{form:?}: the token is never logged");
    }
    // Below 6, nothing is logged.
    let out = crate::live::live(&["web", "-o", "json", "-v=5"]).run();
    assert!(!stderr(&out).contains("GET "), "{}", stderr(&out));
}
