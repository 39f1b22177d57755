//! The HTTP layer under every answer of `hpacalc serve`: the listener, the reply and its content
//! types, the pages' security headers and a bounded request body. Nothing here knows a route.

use std::convert::Infallible;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;

use crate::input::live::LiveError;

pub type Reply = hyper::Response<Full<Bytes>>;

pub const TEXT: &str = "text/plain; charset=utf-8";
pub const JSON: &str = "application/json";
/// The Prometheus text format's content type.
pub const EXPOSITION: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The largest request body read.
pub const MAX_BODY: usize = 1 << 20;

/// The CSP of every page: no script at all, nothing fetched.
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'";

pub fn reply(code: u16, kind: &str, body: String) -> Reply {
    let mut response = hyper::Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = hyper::StatusCode::from_u16(code).unwrap_or_default();
    if let Ok(v) = hyper::header::HeaderValue::from_str(kind) {
        response
            .headers_mut()
            .insert(hyper::header::CONTENT_TYPE, v);
    }
    response
}

/// A page: HTML with the headers that keep it inert (no script, no sniffing, no referrer).
pub fn html(code: u16, body: String) -> Reply {
    let mut response = reply(code, "text/html; charset=utf-8", body);
    let headers = response.headers_mut();
    headers.insert(
        hyper::header::CONTENT_SECURITY_POLICY,
        hyper::header::HeaderValue::from_static(CSP),
    );
    headers.insert(
        hyper::header::X_CONTENT_TYPE_OPTIONS,
        hyper::header::HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        hyper::header::REFERRER_POLICY,
        hyper::header::HeaderValue::from_static("no-referrer"),
    );
    response
}

/// A POST body of at most `MAX_BODY` bytes; a longer one is read on (to a bound, so that the
/// client reads the answer) and refused with 413.
pub async fn read_body(mut body: hyper::body::Incoming) -> Result<String, Reply> {
    let mut kept = Vec::new();
    let mut seen = 0usize;
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else {
            return Err(reply(
                400,
                TEXT,
                "the request body could not be read\n".into(),
            ));
        };
        if let Ok(data) = frame.into_data() {
            seen = seen.saturating_add(data.len());
            if seen <= MAX_BODY {
                kept.extend_from_slice(&data);
            } else if seen > 4 * MAX_BODY {
                break;
            }
        }
    }
    if seen > MAX_BODY {
        let mut refused = reply(
            413,
            TEXT,
            format!("the request body is over {MAX_BODY} bytes\n"),
        );
        refused.headers_mut().insert(
            hyper::header::CONNECTION,
            hyper::header::HeaderValue::from_static("close"),
        );
        return Err(refused);
    }
    Ok(String::from_utf8_lossy(&kept).into_owned())
}

pub async fn bind(address: std::net::SocketAddr) -> anyhow::Result<tokio::net::TcpListener> {
    Ok(tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| LiveError(format!("cannot listen on {address}: {e}")))?)
}

/// Answers every connection of `listener`, each request by `handler`.
pub async fn accept<H, F>(listener: tokio::net::TcpListener, handler: H)
where
    H: Fn(hyper::Request<hyper::body::Incoming>) -> F + Clone + Send + Sync + 'static,
    F: std::future::Future<Output = Reply> + Send + 'static,
{
    loop {
        let Ok((tcp, _)) = listener.accept().await else {
            continue;
        };
        let handler = handler.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| {
                let answer = handler(req);
                async move { Ok::<_, Infallible>(answer.await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(tcp), service)
                .await;
        });
    }
}
