//! The HTTP(S) client for `--prometheus`: one GET of `/api/v1/query_range` per query, through the
//! same hyper + rustls stack as the live cluster mode (kube's client, pointed at Prometheus and
//! with no kubeconfig). TLS is verified unless `--insecure-skip-tls-verify`; a bearer token or
//! basic auth is sent when given; every answer is read up to `MAX_ANSWER_BYTES` within the
//! request timeout.

use std::path::PathBuf;
use std::time::Duration as StdDuration;

use http_body_util::{BodyExt, Limited};

use crate::error::InputError;
use crate::time::{Duration, Timestamp};

/// The largest answer read: 11,000 points (Prometheus's own limit per series) of a few hundred
/// series fit well under it.
pub const MAX_ANSWER_BYTES: usize = 64 * 1024 * 1024;

/// How to reach the server.
pub struct Connection {
    pub url: String,
    pub token: Option<String>,
    pub basic: Option<(String, String)>,
    pub certificate_authority: Option<PathBuf>,
    pub insecure_skip_tls_verify: bool,
    /// `None`: no limit.
    pub timeout: Option<StdDuration>,
}

/// The time range and resolution of every query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    pub start: Timestamp,
    pub end: Timestamp,
    pub step: Duration,
}

/// A connected client and the runtime it runs on.
pub struct Client {
    client: kube::Client,
    runtime: tokio::runtime::Runtime,
    url: String,
    timeout: Option<StdDuration>,
}

fn error(message: String) -> InputError {
    InputError::new("--prometheus", message)
}

impl Client {
    pub fn new(c: Connection) -> Result<Client, InputError> {
        let uri: http::Uri = c.url.parse().map_err(|e| {
            error(format!(
                "found {}, expected a URL such as http://127.0.0.1:9090 ({e})",
                crate::error::quoted(&c.url)
            ))
        })?;
        if !matches!(uri.scheme_str(), Some("http" | "https")) || uri.host().is_none() {
            return Err(error(format!(
                "found {}, expected an http:// or https:// URL with a host",
                crate::error::quoted(&c.url)
            )));
        }
        let mut config = kube::Config::new(uri);
        config.default_retry = false;
        config.connect_timeout = c.timeout;
        config.read_timeout = c.timeout;
        config.accept_invalid_certs = c.insecure_skip_tls_verify;
        config.root_cert_file = c.certificate_authority;
        config.auth_info.token = c.token.map(secrecy::SecretString::from);
        if let Some((user, password)) = c.basic {
            config.auth_info.username = Some(user);
            config.auth_info.password = Some(secrecy::SecretString::from(password));
        }
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| error(format!("cannot start the I/O runtime: {e}")))?;
        // kube's client starts background tasks: build it inside the runtime.
        let client = runtime
            .block_on(async { kube::Client::try_from(config) })
            .map_err(|e| {
                error(format!(
                    "cannot build a client for {}: {}",
                    c.url,
                    crate::input::live::client::chain(&e)
                ))
            })?;
        Ok(Client {
            client,
            runtime,
            url: c.url.trim_end_matches('/').to_string(),
            timeout: c.timeout,
        })
    }

    /// Runs one range query; the answer's text, or why there is none.
    pub fn query_range(
        &self,
        flag: &str,
        promql: &str,
        range: Range,
    ) -> Result<String, InputError> {
        let path = format!(
            "/api/v1/query_range?query={}&start={}&end={}&step={}",
            encode(promql),
            unix(range.start),
            unix(range.end),
            range.step.millis() / 1000
        );
        let fail = |m: String| InputError::new(flag, m);
        let what = format!("the range query {flag} on {}", self.url);
        let call = async {
            let request = http::Request::get(path.as_str())
                .header(http::header::ACCEPT, "application/json")
                .body(Vec::new())
                .map_err(|e| fail(format!("cannot build {what}: {e}")))?;
            let response = self
                .client
                .send(request.map(kube::client::Body::from))
                .await
                .map_err(|e| fail(transport(&what, &crate::input::live::client::chain(&e))))?;
            let status = response.status();
            let bytes = Limited::new(response.into_body(), MAX_ANSWER_BYTES)
                .collect()
                .await
                .map_err(|e| {
                    fail(format!(
                        "cannot read the answer to {what}: {e} (at most {} MiB are read)",
                        MAX_ANSWER_BYTES >> 20
                    ))
                })?
                .to_bytes();
            let text = String::from_utf8(Vec::from(bytes))
                .map_err(|_| fail(format!("{what} answered with text that is not UTF-8")))?;
            // Prometheus answers a bad query with 400 or 422 and its JSON error: the parser
            // reports that one with the server's own words.
            let json_error = matches!(status.as_u16(), 400 | 422 | 503)
                && super::answer::looks_like_answer(&text);
            if status.is_success() || json_error {
                Ok(text)
            } else {
                let first = text.lines().next().unwrap_or("").trim();
                Err(fail(format!(
                    "{what} answered HTTP {status}: {}, expected 200 OK with a query_range answer",
                    crate::error::quoted(first)
                )))
            }
        };
        let Some(limit) = self.timeout else {
            return self.runtime.block_on(call);
        };
        self.runtime
            .block_on(async { tokio::time::timeout(limit, call).await })
            .unwrap_or_else(|_| {
                Err(fail(format!(
                    "{what} got no answer within {} (--request-timeout)",
                    Duration(i64::try_from(limit.as_millis()).unwrap_or(i64::MAX))
                )))
            })
    }
}

/// A transport failure as a sentence that says what to check.
fn transport(what: &str, text: &str) -> String {
    let lower = text.to_lowercase();
    if lower.contains("certificate") || lower.contains("tls") || lower.contains("handshake") {
        format!(
            "TLS failed for {what}: {text}; give the server's CA with --certificate-authority, or \
             --insecure-skip-tls-verify"
        )
    } else {
        format!("cannot reach the server for {what}: {text}")
    }
}

/// Unix seconds as Prometheus reads them (`1700000000.5`).
fn unix(t: Timestamp) -> String {
    let (s, ms) = (t.0.div_euclid(1000), t.0.rem_euclid(1000));
    if ms == 0 {
        s.to_string()
    } else {
        format!("{s}.{ms:03}")
    }
}

/// Percent-encoding of a query parameter: everything but RFC 3986's unreserved characters.
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 3);
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_parameters_are_percent_encoded() {
        assert_eq!(
            encode("sum(rate(x{pod=~\"web-.*\"}[1m]))"),
            "sum%28rate%28x%7Bpod%3D~%22web-.%2A%22%7D%5B1m%5D%29%29"
        );
        assert_eq!(encode("a b+c"), "a%20b%2Bc");
    }

    #[test]
    fn times_are_unix_seconds() {
        assert_eq!(unix(Timestamp(1_700_000_000_000)), "1700000000");
        assert_eq!(unix(Timestamp(1_700_000_000_250)), "1700000000.250");
    }
}
