//! The HTTP layer under every answer of `hpacalc serve`: the listener, the reply and its content
//! types, the pages' security headers and a bounded request body. Nothing here knows a route.

use std::convert::Infallible;
use std::sync::Arc;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use tokio::sync::Semaphore;

use crate::input::live::LiveError;

pub type Reply = hyper::Response<Full<Bytes>>;

pub const TEXT: &str = "text/plain; charset=utf-8";
pub const JSON: &str = "application/json";
/// The Prometheus text format's content type.
pub const EXPOSITION: &str = "text/plain; version=0.0.4; charset=utf-8";
/// OpenMetrics' content type, when the `Accept` header asks for it.
pub const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

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

/// How long a client may take to send a request's body.
pub const BODY_READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// A POST body of at most `MAX_BODY` bytes, sent within `BODY_READ_TIMEOUT` (else 408); a longer
/// one is read on (to a bound, so that the client reads the answer) and refused with 413.
pub async fn read_body(body: hyper::body::Incoming) -> Result<String, Reply> {
    match tokio::time::timeout(BODY_READ_TIMEOUT, read_bounded(body)).await {
        Ok(read) => read,
        Err(_) => {
            let mut late = reply(
                408,
                TEXT,
                format!(
                    "the request body took longer than {} s to arrive\n",
                    BODY_READ_TIMEOUT.as_secs()
                ),
            );
            late.headers_mut().insert(
                hyper::header::CONNECTION,
                hyper::header::HeaderValue::from_static("close"),
            );
            Err(late)
        }
    }
}

async fn read_bounded(mut body: hyper::body::Incoming) -> Result<String, Reply> {
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

/// The port `serve` answers on unless told otherwise: none of Prometheus' (9090 to 9094),
/// node_exporter's (9100) or any exporter's of the Prometheus wiki's "Default port allocations"
/// (9100 to 9999, allocated to the last), kube-state-metrics' (8080, 8081), Grafana's (3000), nor
/// Kubernetes' own (6443, 10249 to 10259); docs/serve.md says why.
pub const DEFAULT_PORT: u16 = 8722;

/// Where `serve --listen` answers: `HOST:PORT`, `[IPV6]:PORT`, or `:PORT` for every address (as
/// Go's `net.Listen` reads `:PORT`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listen {
    /// An IP address, or a name bound at each of its addresses until one takes.
    At { host: String, port: u16 },
    /// Every address, IPv6 and IPv4.
    Every { port: u16 },
}

impl std::str::FromStr for Listen {
    type Err = String;

    fn from_str(text: &str) -> Result<Listen, String> {
        let expected = || {
            format!(
                "found {}, expected HOST:PORT, [IPV6]:PORT or :PORT (every address), e.g. \
                 127.0.0.1:{DEFAULT_PORT} or :{DEFAULT_PORT}",
                crate::error::quoted(text)
            )
        };
        let (host, port) = text.rsplit_once(':').ok_or_else(expected)?;
        let port: u16 = port.parse().map_err(|_| expected())?;
        if host.is_empty() {
            return Ok(Listen::Every { port });
        }
        let host = match host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
            Some(v6) if v6.parse::<std::net::Ipv6Addr>().is_ok() => v6,
            Some(_) => return Err(expected()),
            // An IPv6 address without its brackets is ambiguous (its last group or a port).
            None if host.contains(':') => return Err(expected()),
            None => host,
        };
        if host
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '/')
        {
            return Err(expected());
        }
        Ok(Listen::At {
            host: host.to_string(),
            port,
        })
    }
}

impl std::fmt::Display for Listen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Listen::At { host, port } if host.contains(':') => write!(f, "[{host}]:{port}"),
            Listen::At { host, port } => write!(f, "{host}:{port}"),
            Listen::Every { port } => write!(f, ":{port}"),
        }
    }
}

/// The listeners of `--listen`. Every address is `[::]`, which on Linux also takes IPv4 unless
/// `net.ipv6.bindv6only` is set: then `0.0.0.0` is bound beside it (where `[::]` took IPv4
/// already, that bind finds the port in use, and is not needed). Without IPv6, `0.0.0.0` alone.
pub async fn bind(listen: &Listen) -> anyhow::Result<Vec<tokio::net::TcpListener>> {
    use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
    let failed = |e: std::io::Error| LiveError(format!("cannot listen on {listen}: {e}"));
    match listen {
        Listen::At { host, port } => {
            let listener = tokio::net::TcpListener::bind((host.as_str(), *port))
                .await
                .map_err(failed)?;
            Ok(vec![listener])
        }
        Listen::Every { port } => {
            let v4 = SocketAddr::from((Ipv4Addr::UNSPECIFIED, *port));
            let v6 = SocketAddr::from((Ipv6Addr::UNSPECIFIED, *port));
            match tokio::net::TcpListener::bind(v6).await {
                Ok(six) => {
                    // The port is taken now: `0.0.0.0` binds only where `[::]` left IPv4 out
                    // (on the port `[::]` got, which `:0` chose).
                    let port = six.local_addr().map_or(*port, |a| a.port());
                    let v4 = SocketAddr::from((Ipv4Addr::UNSPECIFIED, port));
                    let four = tokio::net::TcpListener::bind(v4).await.ok();
                    Ok(std::iter::once(six).chain(four).collect())
                }
                Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => Err(failed(e).into()),
                Err(_) => Ok(vec![
                    tokio::net::TcpListener::bind(v4).await.map_err(failed)?,
                ]),
            }
        }
    }
}

/// Answers every connection of each listener by `handler`, as `accept` does for one.
pub async fn accept_all<H, F>(listeners: Vec<tokio::net::TcpListener>, handler: H)
where
    H: Fn(hyper::Request<hyper::body::Incoming>) -> F + Clone + Send + Sync + 'static,
    F: std::future::Future<Output = Reply> + Send + 'static,
{
    let mut tasks = tokio::task::JoinSet::new();
    for listener in listeners {
        tasks.spawn(accept(listener, handler.clone()));
    }
    while tasks.join_next().await.is_some() {}
}

/// The most connections open at once; one more is answered 503 and closed at once, so that
/// half-sent requests cannot take every file descriptor (the default limit is often 1,024).
pub const MAX_CONNECTIONS: usize = 256;
/// How long a client may take to send a request's head (hyper's default without a timer is
/// forever: a slowloris client keeps its connection for ever). It also ends an idle keep-alive.
pub const HEADER_READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// The pause after a failed `accept` (EMFILE: no descriptor left), doubled up to the longest
/// while it keeps failing, instead of a loop that spins a core and serves no one.
const ACCEPT_PAUSE: std::time::Duration = std::time::Duration::from_millis(100);
const ACCEPT_PAUSE_MAX: std::time::Duration = std::time::Duration::from_secs(1);

/// The answer to a connection over `MAX_CONNECTIONS`, written without reading its request.
const TOO_MANY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; \
charset=utf-8\r\nConnection: close\r\nContent-Length: 45\r\n\r\ntoo many open connections; try again shortly\n";

/// Answers every connection of `listener`, each request by `handler`: at most
/// `MAX_CONNECTIONS` at once, each head read within `HEADER_READ_TIMEOUT`, and a pause after a
/// failed accept.
pub async fn accept<H, F>(listener: tokio::net::TcpListener, handler: H)
where
    H: Fn(hyper::Request<hyper::body::Incoming>) -> F + Clone + Send + Sync + 'static,
    F: std::future::Future<Output = Reply> + Send + 'static,
{
    let open = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let mut pause = ACCEPT_PAUSE;
    loop {
        let tcp = match listener.accept().await {
            Ok((tcp, _)) => {
                pause = ACCEPT_PAUSE;
                tcp
            }
            Err(_) => {
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(ACCEPT_PAUSE_MAX);
                continue;
            }
        };
        let Ok(place) = Arc::clone(&open).try_acquire_owned() else {
            tokio::spawn(refuse(tcp));
            continue;
        };
        let handler = handler.clone();
        tokio::spawn(async move {
            let _place = place;
            let service = hyper::service::service_fn(move |req| {
                let answer = handler(req);
                async move { Ok::<_, Infallible>(answer.await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT)
                .serve_connection(hyper_util::rt::TokioIo::new(tcp), service)
                .await;
        });
    }
}

/// A connection over `MAX_CONNECTIONS`: the short 503, then what the client sent is read away for
/// at most a second (closing a socket with unread bytes resets it, and the client would see a
/// reset instead of the answer), then it is closed.
async fn refuse(tcp: tokio::net::TcpStream) {
    let _ = tokio::time::timeout(std::time::Duration::from_secs(1), async {
        let mut sent = 0usize;
        while sent < TOO_MANY.len() {
            tcp.writable().await?;
            match tcp.try_write(TOO_MANY.get(sent..).unwrap_or_default()) {
                Ok(n) => sent += n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
        let mut sink = [0u8; 4096];
        let mut read = 0usize;
        while read < 64 * 1024 {
            tcp.readable().await?;
            match tcp.try_read(&mut sink) {
                Ok(0) => break,
                Ok(n) => read += n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    })
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_reads_host_port_ipv6_and_every_address() {
        let at = |host: &str, port| Listen::At {
            host: host.into(),
            port,
        };
        for (text, listen) in [
            (":8722", Listen::Every { port: 8722 }),
            ("127.0.0.1:9", at("127.0.0.1", 9)),
            ("0.0.0.0:8722", at("0.0.0.0", 8722)),
            ("[::]:8722", at("::", 8722)),
            ("[::1]:80", at("::1", 80)),
            ("localhost:8722", at("localhost", 8722)),
        ] {
            assert_eq!(text.parse::<Listen>(), Ok(listen.clone()), "{text}");
            assert_eq!(listen.to_string(), text);
        }
        for bad in [
            "8722", ":", ":99999", "::1:80", "[x]:80", "a b:80", "host:", "",
        ] {
            let err = bad.parse::<Listen>().unwrap_err();
            assert!(err.contains("expected HOST:PORT"), "{bad}: {err}");
        }
    }
}
