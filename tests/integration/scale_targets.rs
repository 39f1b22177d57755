//! Every scale target through its scale subresource, as the controller reads it
//! (`scaleNamespacer.Scales(…).Get` in `reconcileAutoscaler`): an HPA on an Argo Rollout gets
//! the same answer from live mode, `audit -A`, `serve` (its JSON, its page and its series) and
//! the MCP `audit` tool; an HPA whose target's scale answers 404 is FailedGetScale with the API
//! server's message.

use serde_json::Value;

use crate::apiserver::{ApiServer, Fixture};
use crate::live::run_in;
use crate::mcp::{Client, answered};
use crate::serve::Serving;
use crate::support::{decision, get, root};
use crate::web::data;

/// The decision of a report, without the time it was made (live mode's is the API server's
/// clock at its reads, serve's its sync's).
fn decided(v: &Value) -> Value {
    let mut d = decision(v);
    d["now"] = Value::Null;
    for c in d["conditions"].as_array_mut().into_iter().flatten() {
        c["lastTransitionTime"] = Value::Null;
    }
    d
}

#[test]
fn an_hpa_on_a_rollout_gets_its_scales_answer_everywhere() {
    let server = ApiServer::start(Fixture::cluster_with_rollout());
    let kubeconfig = server.good_kubeconfig();
    let serving = Serving::start(&server, "60s");
    let served = serving.json("/api/v1/hpas/shop/worker");
    let now = served["now"].as_str().unwrap().to_string();
    assert_eq!(served["currentReplicas"], 5, "the Rollout's scale");
    assert_eq!(
        served["desiredReplicas"], 7,
        "5 pods at 95% for 70%: ceil(5 × 95/70)"
    );

    // Live mode reads the Rollout's /scale itself (at the server's time: the decision is the
    // same, nothing in this namespace depends on the minute).
    let live = run_in(
        &root(),
        &["worker", "-n", "shop", "-o", "json"],
        Some(&kubeconfig),
    )
    .schema("report")
    .json();
    assert_eq!(decided(&live), decided(&served));

    // audit -A: the same report, and no TargetMissing for it.
    let audit = run_in(
        &root(),
        &["audit", "-A", "-o", "json", "--now", &now],
        Some(&kubeconfig),
    )
    .schema("audit")
    .json();
    let of = |name: &str| {
        (audit["hpas"].as_array().unwrap().iter())
            .find(|h| h["hpa"] == format!("shop/{name}"))
            .cloned()
            .unwrap()
    };
    assert_eq!(decided(&of("worker")), decided(&served));
    let findings: Vec<&Value> = (audit["findings"].as_array().unwrap().iter())
        .filter(|f| f["hpa"].as_str().is_some_and(|h| h.starts_with("shop/")))
        .collect();
    assert!(
        findings
            .iter()
            .all(|f| f["hpa"] != "shop/worker" || f["code"] != "TargetMissing"),
        "{findings:?}"
    );

    // The HPA on a Rollout that does not exist: FailedGetScale with the API server's message.
    let answer = "rollouts.argoproj.io \"vanished\" not found";
    let lost = of("lost");
    let able = (lost["conditions"].as_array().unwrap().iter())
        .find(|c| c["type"] == "AbleToScale")
        .unwrap();
    assert_eq!(able["reason"], "FailedGetScale");
    assert_eq!(
        able["message"],
        format!("the HPA controller was unable to get the target's current scale: {answer}")
    );
    let missing = findings
        .iter()
        .find(|f| f["hpa"] == "shop/lost" && f["code"] == "TargetMissing")
        .expect("a TargetMissing finding for shop/lost");
    assert!(
        missing["message"].as_str().unwrap().contains(answer),
        "{missing}"
    );
    assert_eq!(
        decided(&serving.json("/api/v1/hpas/shop/lost")),
        decided(&lost)
    );
    // Live mode: the same answer, exit 0 (an answer of the controller, not a failure to read).
    let live_lost = run_in(
        &root(),
        &["lost", "-n", "shop", "-o", "json"],
        Some(&kubeconfig),
    )
    .status(0)
    .schema("report")
    .json();
    assert_eq!(decided(&live_lost), decided(&lost));
    assert_eq!(
        live_lost["currentReplicas"], lost["currentReplicas"],
        "the count kept"
    );
    let (code, page) = get(serving.port, "/hpa/shop/lost").unwrap();
    assert_eq!(code, 200);
    assert_eq!(decided(&data(&page)), decided(&lost), "the page's report");

    // serve's series and page.
    let series = "hpacalc_desired_replicas{namespace=\"shop\",horizontalpodautoscaler=\"worker\"}";
    assert_eq!(serving.sample(series), Some(7.0));
    let (code, page) = get(serving.port, "/hpa/shop/worker").unwrap();
    assert_eq!(code, 200);
    assert!(
        page.contains("HPA shop/worker → Rollout/worker"),
        "the page's title"
    );
    assert_eq!(decided(&data(&page)), decided(&served), "the page's report");

    // The MCP audit tool of the namespace.
    let test = run_in(&root(), &["mcp", "--allow-live"], Some(&kubeconfig));
    let client = Client::of(test);
    let (_, value) = answered(&client.call(
        "audit",
        serde_json::json!({"namespace": "shop", "now": now, "detail": "full"}),
    ));
    let report = (value["hpas"].as_array().unwrap().iter())
        .find(|h| h["hpa"] == "shop/worker")
        .unwrap();
    assert_eq!(decided(report), decided(&served));
    let lost_in_mcp = (value["hpas"].as_array().unwrap().iter())
        .find(|h| h["hpa"] == "shop/lost")
        .unwrap();
    assert_eq!(decided(lost_in_mcp), decided(&lost));
    // The MCP tool of one live HPA: both answers again.
    for (name, expected) in [("worker", &served), ("lost", &lost)] {
        let (_, one) = answered(&client.call(
            "explain_live_hpa",
            serde_json::json!({"name": name, "namespace": "shop", "detail": "full"}),
        ));
        assert_eq!(decided(&one), decided(expected), "explain_live_hpa {name}");
    }
    // The scale was read through the API, not guessed from a list.
    assert!(
        server
            .requests()
            .iter()
            .any(|r| r == "/apis/argoproj.io/v1alpha1/namespaces/shop/rollouts/worker/scale")
    );
}
