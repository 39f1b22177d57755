//! The answers of `hpacalc serve` that are not pages: `/metrics` (the series of the last sync),
//! `/healthz`, `/readyz` (after the first full sync), `/api/v1/hpas`, `/api/v1/hpas/NS/NAME` (the
//! `-o json` report) and `/api/v1/findings` (the audit's).

use std::sync::atomic::Ordering;

use super::http::{EXPOSITION, JSON, Reply, TEXT, reply};
use super::sync::Served;
use crate::render::series::summary;
use crate::report::fleet::AuditReport;

pub fn route(served: &Served, method: &hyper::Method, path: &str) -> Reply {
    if method != hyper::Method::GET && method != hyper::Method::HEAD {
        return reply(405, TEXT, "only GET is served\n".into());
    }
    let ready = served.ready.load(Ordering::SeqCst);
    let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
    match parts.as_slice() {
        ["healthz"] => reply(200, TEXT, "ok\n".into()),
        ["readyz"] if ready => reply(200, TEXT, "ok\n".into()),
        ["readyz"] => reply(503, TEXT, "the first sync has not ended\n".into()),
        ["metrics"] => {
            let text = served.metrics.read().map(|m| m.clone()).unwrap_or_default();
            reply(200, EXPOSITION, text)
        }
        ["api", "v1", kind @ ("hpas" | "findings"), rest @ ..] => {
            let Ok(audit) = served.audit.read() else {
                return reply(500, TEXT, "the last sync is unreadable\n".into());
            };
            let Some(audit) = audit.as_ref() else {
                return reply(503, TEXT, "the first sync has not ended\n".into());
            };
            if *kind == "findings" {
                let all = serde_json::json!({"findings": audit.findings});
                return reply(200, JSON, all.to_string());
            }
            hpas(audit, rest)
        }
        _ => reply(
            404,
            TEXT,
            "not found: /metrics, /healthz, /readyz, /api/v1/hpas, /api/v1/findings\n".into(),
        ),
    }
}

/// `/api/v1/hpas`: each HPA's summary; `/api/v1/hpas/NS/NAME`: its whole report.
fn hpas(audit: &AuditReport, rest: &[&str]) -> Reply {
    match rest {
        [] => {
            let all: Vec<serde_json::Value> = audit.hpas.iter().map(summary).collect();
            reply(200, JSON, serde_json::json!({"hpas": all}).to_string())
        }
        [ns, name] => {
            let key = format!("{ns}/{name}");
            match audit.hpas.iter().find(|r| r.hpa == key) {
                Some(report) => {
                    let text = serde_json::to_string_pretty(report).unwrap_or_default();
                    reply(200, JSON, text + "\n")
                }
                None => reply(404, TEXT, format!("no HPA {key} in the last sync\n")),
            }
        }
        _ => reply(
            404,
            TEXT,
            "expected /api/v1/hpas or /api/v1/hpas/NAMESPACE/NAME\n".into(),
        ),
    }
}
