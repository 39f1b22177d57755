//! kubectl's own flags in live mode, as kubectl treats them: `--cluster` and `--user` replace the
//! context's kubeconfig entries, `-v=6` logs each request on stderr (never a credential).

use crate::apiserver::{TOKEN, base64};
use crate::live::{fail_line, run_in, server};
use crate::support::{decision, stderr, stdout};

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

/// `hpacalc -n shop` lists the namespace's HPAs as `kubectl get hpa` does, each with the decision
/// `hpacalc NAME -n shop` gives; `-o json` is the audit's report, `-l` selects by labels.
#[test]
fn a_namespace_lists_every_hpa_with_the_decision_of_each() {
    use crate::apiserver::{ApiServer, Fixture};
    let s = ApiServer::start(Fixture::cluster_with_rollout());
    let kubeconfig = s.good_kubeconfig();
    let dir = s.path("");
    let list = run_in(&dir, &["-n", "shop", "-o", "json"], Some(&kubeconfig))
        .status(0)
        .schema("audit")
        .json();
    let hpas = list["hpas"].as_array().unwrap();
    assert!(!hpas.is_empty(), "{list}");
    for r in hpas {
        let name = r["hpa"].as_str().unwrap().trim_start_matches("shop/");
        // An HPA whose target's scale cannot be read is FailedGetScale in both, as the
        // controller answers it: the count kept, exit 0.
        let one = run_in(&dir, &[name, "-n", "shop", "-o", "json"], Some(&kubeconfig))
            .status(0)
            .json();
        assert_eq!(
            (
                &r["currentReplicas"],
                &r["desiredReplicas"],
                &r["decision"]["change"]
            ),
            (
                &one["currentReplicas"],
                &one["desiredReplicas"],
                &one["decision"]["change"]
            ),
            "{name}: the list and the single run disagree"
        );
    }
    let o = run_in(&dir, &["-n", "shop"], Some(&kubeconfig))
        .status(0)
        .run();
    let text = stdout(&o);
    let header = text.lines().next().unwrap();
    for column in [
        "NAME",
        "REFERENCE",
        "CURRENT → DESIRED",
        "STATUS DESIRED",
        "TARGETS",
        "WHY",
    ] {
        assert!(header.contains(column), "{header}");
    }
    assert!(!header.contains("NAMESPACE"), "{header}");
    for r in hpas {
        let name = r["hpa"].as_str().unwrap().trim_start_matches("shop/");
        let arrow = format!("{} → {}", r["currentReplicas"], r["desiredReplicas"]);
        assert!(
            text.lines()
                .any(|l| l.starts_with(name) && l.contains(&arrow)),
            "{name} {arrow}:\n{text}"
        );
    }
    // -l selects HPAs by their labels: none of these has the label `tier`.
    run_in(&dir, &["-n", "shop", "-l", "tier"], Some(&kubeconfig))
        .status(0)
        .stdout("No HPAs found.\n")
        .run();
    // -A adds the NAMESPACE column; --brief is one decision line per HPA.
    let all = run_in(&dir, &["-A", "-o", "wide"], Some(&kubeconfig))
        .status(0)
        .run();
    assert!(stdout(&all).starts_with("NAMESPACE"), "{}", stdout(&all));
    let brief = run_in(&dir, &["-n", "shop", "--brief"], Some(&kubeconfig))
        .status(0)
        .run();
    assert!(
        stdout(&brief)
            .lines()
            .any(|l| l.starts_with("worker: 5 → 7 scale up — cpu")),
        "{}",
        stdout(&brief)
    );
}

/// A list applies the controller rules of the API server's release (`/version`), as one HPA's
/// live run does; `--kube-version` wins over it; a server that does not say its version gets
/// the default release's rules and a warning that says so.
#[test]
fn a_list_applies_the_api_servers_release_unless_kube_version_is_given() {
    use crate::apiserver::{ApiServer, Fixture};
    let versions = |v: &serde_json::Value| -> Vec<String> {
        (v["hpas"].as_array().unwrap().iter())
            .map(|h| h["kubeVersion"].as_str().unwrap().to_string())
            .collect()
    };
    for (version, flags, expected, warning) in [
        (Some("v1.33.2-eks-4b1f2a3"), &[][..], "1.33", None),
        (
            Some("v1.33.2-eks-4b1f2a3"),
            &["--kube-version", "1.35"][..],
            "1.35",
            None,
        ),
        (
            None,
            &[][..],
            "1.37",
            Some(
                "warning: Live: the API server did not say its version (/version): the rules of \
                 1.37 apply; pass --kube-version with the cluster's release.",
            ),
        ),
    ] {
        let mut fixture = Fixture::cluster_with_rollout();
        fixture.version = version;
        let s = ApiServer::start(fixture);
        let args = [&["-n", "shop", "-o", "json"][..], flags].concat();
        let o = run_in(&s.path(""), &args, Some(&s.good_kubeconfig()))
            .status(0)
            .run();
        let list = crate::support::json_of(&o, "audit");
        let found = versions(&list);
        assert!(!found.is_empty(), "{list}");
        assert!(
            found.iter().all(|v| v == expected),
            "{version:?} {flags:?}: {found:?}"
        );
        let err = stderr(&o);
        match warning {
            Some(line) => assert!(err.lines().any(|l| l == line), "{err}"),
            None => assert!(!err.contains("API server"), "{err}"),
        }
    }
}

/// kubectl's `--server`, `--token` and `--insecure-skip-tls-verify` win over the kubeconfig
/// (client-go `DirectClientConfig.getCluster`/`getAuthInfo`), and need no kubeconfig at all;
/// `--as` and `--as-group` send the impersonation headers on every request.
#[test]
fn server_token_and_insecure_flags_win_over_the_kubeconfig() {
    let s = server();
    let dir = s.path("");
    let good = crate::live::live(&["web", "-o", "json"]).json();
    // A kubeconfig of a dead server, another CA and a bad token.
    let bad = s.kubeconfig(
        "kubeconfig-all-wrong",
        "wrong",
        &crate::apiserver::foreign_ca_pem(),
        "https://127.0.0.1:1",
    );
    let flags = [
        "web",
        "-n",
        "shop",
        "--server",
        &s.url,
        "--token",
        TOKEN,
        "--insecure-skip-tls-verify",
        "-o",
        "json",
    ];
    let over = run_in(&dir, &flags, Some(&bad)).status(0).json();
    assert!(
        timeless(&over) == timeless(&good),
        "the flags answer as the good kubeconfig"
    );
    // No kubeconfig at all: the flags are the configuration, as for kubectl.
    let none = run_in(&dir, &flags, None).status(0).json();
    assert!(timeless(&none) == timeless(&good));
    // Without --insecure-skip-tls-verify the other CA refuses the server's certificate.
    let line = fail_line(run_in(&dir, &flags[..7], Some(&bad)));
    assert!(
        line.contains("certificate") || line.contains("tls"),
        "{line}"
    );
}

#[test]
fn as_and_as_group_send_the_impersonation_headers() {
    let s = crate::apiserver::ApiServer::start(crate::apiserver::Fixture::kubectl());
    let kubeconfig = s.good_kubeconfig();
    run_in(
        &s.path(""),
        &[
            "web",
            "--as",
            "jane",
            "--as-group",
            "ops",
            "--as-group",
            "dev",
        ],
        Some(&kubeconfig),
    )
    .status(0)
    .run();
    let seen = s.impersonations();
    assert!(!seen.is_empty());
    for (user, groups) in &seen {
        assert_eq!(user.as_deref(), Some("jane"));
        assert_eq!(groups, &["ops", "dev"]);
    }
    // --as-group needs --as, as kubectl's does.
    run_in(
        &s.path(""),
        &["web", "--as-group", "ops"],
        Some(&kubeconfig),
    )
    .status(2)
    .stdout("")
    .run();
}

/// Live flags given with a file input would be ignored: a usage error (exit 2), nothing on
/// stdout.
#[test]
fn live_flags_with_a_file_input_are_usage_errors() {
    for flag in [
        &["--context", "prod"][..],
        &["--token", "t"],
        &["--as", "jane"],
        &["--insecure-skip-tls-verify"],
        &["--save", "dir"],
    ] {
        let mut args = vec![
            "--hpa",
            "fixtures/hpa/web-cpu.yaml",
            "--pods",
            "fixtures/samples/web-cpu.csv",
        ];
        args.extend(flag);
        let o = crate::support::Test::new()
            .args(&args)
            .status(2)
            .stdout("")
            .run();
        assert!(stderr(&o).contains(flag[0]), "{}", stderr(&o));
    }
    // The same for a file named as the positional argument.
    crate::support::Test::new()
        .args([
            "fixtures/hpa/web-cpu.yaml",
            "--pods",
            "fixtures/samples/web-cpu.csv",
            "--context",
            "prod",
        ])
        .status(2)
        .stdout("")
        .run();
}

/// An assumption or a message names only a file that exists: a live run without `--save` says
/// "the live answer", an audit's HPA "in the dump"; with `--save`, the saved files by their path.
#[test]
fn assumptions_name_only_files_that_exist() {
    let names = |v: &serde_json::Value| -> Vec<String> {
        let mut all = Vec::new();
        for key in ["assumptions", "warnings"] {
            for a in v[key].as_array().unwrap() {
                all.push(a.as_str().unwrap().to_string());
            }
        }
        for d in v["diagnostics"].as_array().unwrap() {
            all.push(d["message"].as_str().unwrap().to_string());
        }
        all
    };
    let v = crate::live::live(&["web", "-o", "json"]).status(0).json();
    for line in names(&v) {
        for file in [
            "events.json",
            "target.json",
            "pods.json",
            "scale.json",
            "hpa.yaml",
        ] {
            assert!(
                !line.contains(file),
                "names {file}, which does not exist: {line}"
            );
        }
    }
    let dir = crate::live::save_dir("saved-names");
    let v = crate::live::live(&["web", "--save", dir.to_str().unwrap(), "-o", "json"])
        .status(0)
        .json();
    // The saved command names the files relative to the folder it names.
    for line in names(&v).iter().filter(|l| !l.starts_with("Saved in ")) {
        for word in line.split_whitespace() {
            let word = word.trim_end_matches([',', ':', ';', ')', '.']);
            if word.ends_with(".json") || word.ends_with(".yaml") {
                assert!(
                    std::path::Path::new(word).exists(),
                    "{word} does not exist: {line}"
                );
            }
        }
    }
    let audit = crate::live::audit_live(&["-A", "-o", "json"])
        .status(0)
        .json();
    for r in audit["hpas"].as_array().unwrap() {
        for line in names(r) {
            assert!(!line.contains("<dump>/"), "{line}");
        }
    }
}
