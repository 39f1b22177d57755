//! The answers of `hpacalc serve` that are not pages: `/metrics` (the series of the last sync),
//! `/healthz`, `/readyz` (after the first full sync), `/api/v1/hpas`, `/api/v1/hpas/NS/NAME` (the
//! `-o json` report) and `/api/v1/findings` (the audit's).

use std::sync::atomic::Ordering;

use super::http::{EXPOSITION, JSON, OPENMETRICS, Reply, TEXT, reply};
use super::sync::Served;
use crate::render::series::{summary, text_format};
use crate::report::fleet::AuditReport;

/// `accept`: the request's `Accept` header, which chooses `/metrics`' format.
pub fn route(served: &Served, method: &hyper::Method, path: &str, accept: Option<&str>) -> Reply {
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
            let Ok(text) = served.metrics.read() else {
                return reply(500, TEXT, "the last sync is unreadable\n".into());
            };
            if wants_openmetrics(accept.unwrap_or("")) {
                reply(200, OPENMETRICS, text.clone())
            } else {
                reply(200, EXPOSITION, text_format(&text))
            }
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

/// Whether an `Accept` header prefers OpenMetrics 1.0.0 to the 0.0.4 text: its media range is
/// listed (with no version, or 1.0.0) with a quality above 0 and at least that of `text/plain`
/// (`text/*`, `*/*`), as client_golang's `expfmt.Negotiate` chooses. Prometheus asks
/// `application/openmetrics-text;version=1.0.0,...,text/plain;version=0.0.4;q=0.5,*/*;q=0.1`.
pub fn wants_openmetrics(accept: &str) -> bool {
    let mut openmetrics = 0.0_f64;
    let mut text = 0.0_f64;
    for range in accept.split(',') {
        let mut parts = range.split(';').map(str::trim);
        let media = parts.next().unwrap_or("").to_ascii_lowercase();
        let mut quality = 1.0_f64;
        let mut version = None;
        for param in parts {
            let (key, value) = param.split_once('=').unwrap_or((param, ""));
            match key.trim().to_ascii_lowercase().as_str() {
                "q" => quality = value.trim().parse().unwrap_or(0.0),
                "version" => version = Some(value.trim().to_string()),
                _ => {}
            }
        }
        match media.as_str() {
            "application/openmetrics-text" if version.as_deref().is_none_or(|v| v == "1.0.0") => {
                openmetrics = openmetrics.max(quality);
            }
            "text/plain" | "text/*" | "*/*" => text = text.max(quality),
            _ => {}
        }
    }
    openmetrics > 0.0 && openmetrics >= text
}

#[cfg(test)]
mod tests {
    use super::wants_openmetrics;

    #[test]
    fn the_accept_header_chooses_openmetrics_only_when_preferred() {
        let prometheus = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;\
                          version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
        for (accept, openmetrics) in [
            (prometheus, true),
            ("application/openmetrics-text; version=1.0.0", true),
            ("application/openmetrics-text", true),
            ("", false),
            ("*/*", false),
            ("text/plain;version=0.0.4", false),
            ("application/openmetrics-text;version=0.0.1", false),
            ("application/openmetrics-text;q=0", false),
            ("text/plain, application/openmetrics-text;q=0.5", false),
            ("text/plain;q=0.2, application/openmetrics-text;q=0.5", true),
        ] {
            assert_eq!(wants_openmetrics(accept), openmetrics, "{accept}");
        }
    }
}
