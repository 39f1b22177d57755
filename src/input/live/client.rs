//! The connection to the API server, as kubectl makes it: `--kubeconfig`, else `KUBECONFIG` (a
//! list of files, merged), else `~/.kube/config`, else the in-cluster service account; the
//! context from `--context`, else the kubeconfig's current-context, its cluster and user replaced
//! by `--cluster` and `--user`. Every request is a plain GET with the request timeout and no
//! client retries, answered with its status code and body: the caller decides what a 404 or a
//! 503 means. From `-v=6` on, each request is logged on stderr, as kubectl logs it.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration as StdDuration;

use http_body_util::BodyExt;
use kube::config::KubeConfigOptions;

use super::LiveError;
use crate::time::Timestamp;

/// One API server, reached with one identity.
#[derive(Clone)]
pub struct Api {
    client: kube::Client,
    /// The cluster URL, as the kubeconfig names it.
    pub server: String,
    /// The context name, or `in-cluster`.
    pub context: String,
    /// The context's namespace (`default` when it names none).
    pub default_namespace: String,
    timeout: Option<StdDuration>,
    /// `-v`: from 6 on, each request is logged on stderr.
    verbosity: u8,
    /// How far the API server's clock (the `Date` of its first answer) is ahead of this
    /// machine's, in milliseconds: the controller's clock is the server's side. Kept for the
    /// session, so the times of `--watch`'s evaluations follow each other.
    server_offset: std::sync::Arc<std::sync::Mutex<Option<i64>>>,
    /// The bytes every watch of this API holds of events not yet ended (`MAX_WATCHES_BYTES`).
    watch_bytes: std::sync::Arc<AtomicUsize>,
}

/// What a request is, for error messages and the RBAC rule that allows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub path: String,
    pub verb: &'static str,
    /// API group, `""` for the core group.
    pub group: String,
    /// Resource, with its subresource (`deployments/scale`).
    pub resource: String,
    pub namespace: Option<String>,
}

/// The largest answer to a GET of one stored object (an HPA, a scale, a target, a discovery
/// document): the watch event's limit, for the same reason. The API server takes no request
/// body over 3 MiB (`MaxRequestBodyBytes` in k8s.io/apiserver's `NewConfig`) and etcd stores no
/// object over 1.5 MiB (`--max-request-bytes`), so no object it keeps is read back larger; an
/// answer past it is not the object asked for.
pub const MAX_OBJECT_BYTES: usize = MAX_WATCH_EVENT_BYTES;

/// The largest answer to a GET of a metrics API (`custom.metrics.k8s.io`,
/// `external.metrics.k8s.io`): those answers are not stored objects but lists the adapter builds,
/// one item per pod or series (10,000 pods make about 3 MB), so they keep the larger bound.
pub const MAX_METRICS_ANSWER_BYTES: usize = 64 * 1024 * 1024;

/// The largest watch event: the API server's own limit on a request body,
/// `MaxRequestBodyBytes: 3 * 1024 * 1024` (k8s.io/apiserver's `NewConfig`: etcd takes requests of
/// at most 1.5 MiB by default, `--max-request-bytes`, and a JSON body may be twice its stored
/// protobuf form). No object the API server stores comes near it; past it, the watch ends and
/// the list is read again after the reflector's backoff.
pub const MAX_WATCH_EVENT_BYTES: usize = 3 * 1024 * 1024;
/// The most bytes of events not yet ended that every watch of `serve` holds together (35 lists
/// sending 3 MiB events at once would hold 105 MiB); a watch whose event would take the total
/// past it ends, as one over `MAX_WATCH_EVENT_BYTES` does.
pub const MAX_WATCHES_BYTES: usize = 64 * 1024 * 1024;

/// The most bytes of the events list, a page or all of them (`fetch::MAX_EVENT_PAGES`).
pub const MAX_EVENTS_BYTES: usize = 64 * 1024 * 1024;

/// The bytes one watch counts in its API's total, given back when the watch ends.
struct Held<'a> {
    total: &'a AtomicUsize,
    bytes: usize,
}

impl Held<'_> {
    /// Counts `now` bytes for this watch: the total across watches after the change.
    fn set(&mut self, now: usize) -> usize {
        if now >= self.bytes {
            let grown = now - self.bytes;
            self.bytes = now;
            self.total.fetch_add(grown, Ordering::SeqCst) + grown
        } else {
            let shrunk = self.bytes - now;
            self.bytes = now;
            self.total.fetch_sub(shrunk, Ordering::SeqCst) - shrunk
        }
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.set(0);
    }
}

impl Request {
    /// The largest answer read: a page of a list may be large (the PodMetrics of a cluster are
    /// one answer), one object never is.
    pub fn max_bytes(&self) -> usize {
        if self.verb == "list" && self.resource == "events" {
            MAX_EVENTS_BYTES
        } else if self.verb == "list" {
            usize::try_from(crate::input::read::MAX_INPUT_BYTES).unwrap_or(usize::MAX)
        } else if self.group.ends_with("metrics.k8s.io") {
            MAX_METRICS_ANSWER_BYTES
        } else {
            MAX_OBJECT_BYTES
        }
    }

    /// What to do about an answer past `max_bytes`.
    fn past_cap_advice(&self) -> &'static str {
        if self.verb == "list" {
            "select fewer objects (-n)"
        } else if self.group.ends_with("metrics.k8s.io") {
            "the metrics adapter answers far more than one HPA's metrics: check its selectors"
        } else {
            "the API server stores no object over 1.5 MiB (etcd's --max-request-bytes) and \
             takes no body over 3 MiB, so this is not the object asked for: check that the \
             kubeconfig's server is the API server, not a proxy that rewrites answers"
        }
    }
}

/// An answer that is not a success.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub code: u16,
    /// The `Status` object's `message`, else the body's first line.
    pub message: String,
    /// The body was a `Status` (client-go then reports its message as is).
    pub status: bool,
}

/// The outcome of one GET: the body, a refusal by the server, or a failure to get an answer.
pub type Answer = Result<Result<String, Refused>, LiveError>;

/// Where the configuration comes from.
#[derive(Default)]
pub struct Settings<'a> {
    pub kubeconfig: Option<&'a Path>,
    pub context: Option<&'a str>,
    /// `--cluster`, `--user`: the kubeconfig entries used instead of the context's.
    pub cluster: Option<&'a str>,
    pub user: Option<&'a str>,
    /// `None`: no limit.
    pub timeout: Option<StdDuration>,
    /// `-v`, kubectl's log level: 6 and above log each request.
    pub verbosity: u8,
    /// `--server`, `--token`, `--insecure-skip-tls-verify`, `--as`, `--as-group`.
    pub overrides: super::kubeconfig::Overrides,
}

/// The `-v` level from which each request is logged (kubectl's own: method, URL, status, time).
pub const LOG_REQUESTS: u8 = 6;

impl Api {
    /// Loads the configuration as kubectl does and builds a client without retries.
    pub async fn connect(settings: &Settings<'_>) -> Result<Api, LiveError> {
        let (mut config, context) = load_config(settings).await?;
        // A 503 from an aggregated API is an answer, not a reason to wait: no client retries.
        config.default_retry = false;
        if let Some(t) = settings.timeout {
            config.connect_timeout = Some(t);
            config.read_timeout = Some(t);
        }
        let server = config.cluster_url.to_string();
        let server = server.trim_end_matches('/').to_string();
        let default_namespace = config.default_namespace.clone();
        let client = kube::Client::try_from(config).map_err(|e| {
            LiveError(format!(
                "cannot build a client for {server} (context {context}): {}",
                chain(&e)
            ))
        })?;
        Ok(Api {
            client,
            server,
            context,
            default_namespace,
            timeout: settings.timeout,
            verbosity: settings.verbosity,
            server_offset: std::sync::Arc::default(),
            watch_bytes: std::sync::Arc::default(),
        })
    }

    /// The API server's time now, by the offset its first `Date` header gave; `None` when it
    /// sent none. This machine's clock keeps the milliseconds a `Date` (whole seconds) lacks.
    pub fn server_time(&self) -> Option<Timestamp> {
        let offset = self.server_offset.lock().ok().and_then(|o| *o)?;
        Some(Timestamp(local_now().0.saturating_add(offset)))
    }

    fn saw_date(&self, headers: &http::HeaderMap) {
        let date = (headers.get(http::header::DATE))
            .and_then(|v| v.to_str().ok())
            .and_then(http_date);
        if let (Some(t), Ok(mut offset)) = (date, self.server_offset.lock()) {
            // A Date is the second the answer was sent in: its middle, on average.
            offset.get_or_insert_with(|| t.0.saturating_add(500).saturating_sub(local_now().0));
        }
    }

    /// GET `req.path`: the body of a 2xx answer, the refusal of any other, or why there was none;
    /// logged from `-v=6` on.
    pub async fn get(&self, req: &Request) -> Answer {
        let started = std::time::Instant::now();
        let answer = self.get_unlogged(req).await;
        if self.verbosity >= LOG_REQUESTS {
            let ms = started.elapsed().as_millis();
            let url = format!("{}{}", self.server, req.path);
            crate::term::log(&match &answer {
                Ok(Ok(_)) => format!("GET {url} 200 OK in {ms} milliseconds"),
                Ok(Err(refused)) => {
                    let reason = http::StatusCode::from_u16(refused.code)
                        .ok()
                        .and_then(|c| c.canonical_reason())
                        .unwrap_or_default();
                    format!("GET {url} {} {reason} in {ms} milliseconds", refused.code)
                }
                Err(e) => format!("GET {url} failed after {ms} milliseconds: {e}"),
            });
        }
        answer
    }

    /// How long a watch asks the server to keep its answer open (`timeoutSeconds`): 5 minutes, or
    /// less than the request timeout, which bounds every read of the answer, so that the server
    /// ends a quiet watch cleanly before the client gives up on it.
    pub fn watch_seconds(&self) -> u64 {
        self.timeout
            .map_or(300, |t| t.as_secs().saturating_sub(5).clamp(5, 300))
    }

    /// GET `req.path` as a watch (`?watch=true`): each line of the answer, one event, handed to
    /// `line` as it arrives, until the server ends the answer or `line` returns false; the refusal
    /// of an answer that is not a success. A line over `MAX_WATCH_EVENT_BYTES`, or past
    /// `MAX_WATCHES_BYTES` across watches, is an error.
    pub async fn watch(
        &self,
        req: &Request,
        mut line: impl FnMut(&str) -> bool,
    ) -> Result<Result<(), Refused>, LiveError> {
        if self.verbosity >= LOG_REQUESTS {
            crate::term::log(&format!("WATCH {}{}", self.server, req.path));
        }
        let response = self.send(req).await?;
        let code = response.status().as_u16();
        let mut body = response.into_body();
        let mut pending: Vec<u8> = Vec::new();
        let mut held = Held {
            total: &self.watch_bytes,
            bytes: 0,
        };
        while let Some(frame) = body.frame().await {
            let frame = match frame {
                Ok(frame) => frame,
                // A quiet watch that outlived the read timeout ended; the caller watches again.
                Err(e) if chain(&e).to_lowercase().contains("timed out") => return Ok(Ok(())),
                // The server (or a proxy) closed the stream between two events without TLS's
                // goodbye, as a watch's end often is: every event arrived whole, so the watch
                // ended as a clean one does, and the caller watches again from the last version
                // (a watch that ends so within a second is still client-go's "very short
                // watch"). Cut inside an event, it is an error, which still blames no CA.
                Err(e)
                    if (200..300).contains(&code)
                        && pending.is_empty()
                        && closed_without_goodbye(&chain(&e)) =>
                {
                    return Ok(Ok(()));
                }
                Err(e) => return Err(self.transport_error(&e, req)),
            };
            let Some(data) = frame.data_ref() else {
                continue;
            };
            pending.extend_from_slice(data);
            if pending.len() > MAX_WATCH_EVENT_BYTES {
                return Err(LiveError(format!(
                    "the API server {} sent a watch event of more than {MAX_WATCH_EVENT_BYTES} \
                     bytes (the API server's own request limit) on {}",
                    self.server, req.path
                )));
            }
            if held.set(pending.len()) > MAX_WATCHES_BYTES {
                return Err(LiveError(format!(
                    "the watches of {} hold more than {MAX_WATCHES_BYTES} bytes of events at once; \
                     {} ends and is listed again",
                    self.server, req.path
                )));
            }
            if !(200..300).contains(&code) {
                continue;
            }
            while let Some(end) = memchr::memchr(b'\n', &pending) {
                let text = String::from_utf8_lossy(pending.get(..=end).unwrap_or_default());
                let go_on = text.trim().is_empty() || line(text.trim());
                drop(text);
                pending.drain(..=end);
                if !go_on {
                    return Ok(Ok(()));
                }
            }
            held.set(pending.len());
        }
        if !(200..300).contains(&code) {
            let (message, status) =
                super::answer::status_message(&String::from_utf8_lossy(&pending));
            return Ok(Err(Refused {
                code,
                message,
                status,
            }));
        }
        Ok(Ok(()))
    }

    /// Sends the GET of `req.path`: the answer's head, its body still to read.
    async fn send(&self, req: &Request) -> Result<http::Response<kube::client::Body>, LiveError> {
        let request = http::Request::get(req.path.as_str())
            .header(http::header::ACCEPT, "application/json")
            .body(Vec::new())
            .map_err(|e| {
                LiveError(format!(
                    "bad request path {}: {e}",
                    crate::error::quoted_bare(&req.path)
                ))
            })?;
        self.client
            .send(request.map(kube::client::Body::from))
            .await
            .map_err(|e| self.transport_error(&e, req))
    }

    async fn get_unlogged(&self, req: &Request) -> Answer {
        let call = async {
            let response = self.send(req).await?;
            let code = response.status().as_u16();
            self.saw_date(response.headers());
            // The cap is checked while the body arrives: an endless answer never fills memory.
            let cap = req.max_bytes();
            let bytes = http_body_util::Limited::new(response.into_body(), cap)
                .collect()
                .await
                .map_err(|e| {
                    if e.is::<http_body_util::LengthLimitError>() {
                        LiveError(format!(
                            "the API server {} answered {} {} with more than {cap} bytes, \
                             expected at most {} MiB: {}",
                            self.server,
                            req.verb.to_uppercase(),
                            crate::error::quoted_bare(&req.path),
                            cap / (1024 * 1024),
                            req.past_cap_advice()
                        ))
                    } else {
                        self.transport_error(e.as_ref(), req)
                    }
                })?
                .to_bytes();
            let text = String::from_utf8(Vec::from(bytes)).map_err(|_| {
                LiveError(format!(
                    "{} answered GET {} with text that is not UTF-8",
                    self.server,
                    crate::error::quoted_bare(&req.path)
                ))
            })?;
            if (200..300).contains(&code) {
                Ok(Ok(text))
            } else {
                let (message, status) = super::answer::status_message(&text);
                // A server's message is kept to what a report shows of it.
                let message =
                    crate::error::cut(&message, crate::error::MAX_MESSAGE_CHARS).into_owned();
                Ok(Err(Refused {
                    code,
                    message,
                    status,
                }))
            }
        };
        match self.timeout {
            None => call.await,
            Some(t) => tokio::time::timeout(t, call).await.unwrap_or_else(|_| {
                Err(LiveError(format!(
                    "the API server {} did not answer GET {} within {} (--request-timeout)",
                    self.server,
                    crate::error::quoted_bare(&req.path),
                    crate::time::Duration::from(t)
                )))
            }),
        }
    }

    fn transport_error(&self, e: &(dyn std::error::Error + 'static), req: &Request) -> LiveError {
        let text = chain(e);
        let lower = text.to_lowercase();
        if closed_without_goodbye(&text) {
            // rustls: "peer closed connection without sending TLS close_notify". The server (or
            // a proxy) ended the stream without TLS's goodbye, as a watch's end often is: the
            // certificates were fine, and a body that arrived whole is whole.
            LiveError(format!(
                "the API server {} closed the connection without TLS close_notify (context {}): \
                 the certificates were accepted, and a watch that ends so is harmless (it is \
                 started again)",
                self.server, self.context
            ))
        } else if lower.contains("certificate")
            || lower.contains("tls")
            || lower.contains("handshake")
        {
            LiveError(format!(
                "TLS with the API server {} failed (context {}): {text}; check the cluster's \
                 certificate-authority in the kubeconfig",
                self.server, self.context
            ))
        } else if lower.contains("timed out") || lower.contains("timeout") {
            LiveError(format!(
                "the API server {} did not answer GET {} in time (context {}): {text}",
                self.server,
                crate::error::quoted_bare(&req.path),
                self.context
            ))
        } else {
            LiveError(format!(
                "cannot reach the API server {} (context {}): {text}",
                self.server, self.context
            ))
        }
    }
}

async fn load_config(settings: &Settings<'_>) -> Result<(kube::Config, String), LiveError> {
    let loaded = super::kubeconfig::load(settings.kubeconfig)?.map(|(k, _)| k);
    // kubectl needs no kubeconfig when --server is given: the flags are the whole configuration.
    let loaded = loaded
        .or_else(|| (settings.overrides.server.is_some()).then(super::kubeconfig::from_flags));
    let Some(mut kubeconfig) = loaded else {
        if std::env::var_os("KUBERNETES_SERVICE_HOST").is_some() {
            let config = kube::Config::incluster().map_err(|e| {
                LiveError(format!(
                    "cannot use the in-cluster configuration: {}",
                    chain(&e)
                ))
            })?;
            return Ok((config, "in-cluster".to_string()));
        }
        return Err(LiveError(
            "no kubeconfig: pass --kubeconfig, set KUBECONFIG, or create ~/.kube/config \
             (in a pod, the service account is used)"
                .to_string(),
        ));
    };
    let names = super::kubeconfig::context_names(&kubeconfig);
    let context = match (settings.context, kubeconfig.current_context.as_deref()) {
        (Some(c), _) => c.to_string(),
        (None, Some(c)) if !c.is_empty() => c.to_string(),
        _ => {
            return Err(LiveError(format!(
                "the kubeconfig has no current-context: pass --context ({})",
                context_list(&names)
            )));
        }
    };
    if !names.contains(&context.as_str()) {
        return Err(LiveError(format!(
            "context {} not found in the kubeconfig ({})",
            crate::error::quoted(&context),
            context_list(&names)
        )));
    }
    super::kubeconfig::use_entries(&mut kubeconfig, &context, settings.cluster, settings.user)?;
    super::kubeconfig::apply_overrides(&mut kubeconfig, &context, &settings.overrides)?;
    super::kubeconfig::inline_context(&mut kubeconfig, &context, settings.timeout)?;
    let options = KubeConfigOptions {
        context: Some(context.clone()),
        ..KubeConfigOptions::default()
    };
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .map_err(|e| {
            LiveError(format!(
                "cannot use context {} of the kubeconfig: {}",
                crate::error::quoted(&context),
                chain(&e)
            ))
        })?;
    Ok((config, context))
}

fn context_list(names: &[&str]) -> String {
    if names.is_empty() {
        "it has no contexts".to_string()
    } else {
        format!(
            "its contexts: {}",
            crate::error::name_list(names, crate::error::LIST_NAMES)
        )
    }
}

/// An error and its sources, `: `-separated, without repeats.
fn local_now() -> Timestamp {
    Timestamp(jiff::Timestamp::now().as_millisecond())
}

/// An HTTP `Date` (`Wed, 02 Dec 2026 01:50:00 GMT`, RFC 9110's IMF-fixdate, an RFC 2822 form).
fn http_date(text: &str) -> Option<Timestamp> {
    static PARSER: jiff::fmt::rfc2822::DateTimeParser = jiff::fmt::rfc2822::DateTimeParser::new();
    let t = PARSER.parse_timestamp(text).ok()?;
    Some(Timestamp(t.as_millisecond()))
}

/// rustls' "peer closed connection without sending TLS close_notify": an end of the stream, not
/// a certificate the client refused.
fn closed_without_goodbye(chain: &str) -> bool {
    chain.to_lowercase().contains("close_notify")
}

pub fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = vec![e.to_string()];
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = s.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_closed_without_close_notify_is_an_end_not_a_certificate_failure() {
        // What hyper gives when rustls reads the end of the stream without TLS's goodbye.
        let eof = std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "peer closed connection without sending TLS close_notify: \
             https://docs.rs/rustls/latest/rustls/manual/_03_howto/index.html#unexpected-eof",
        );
        let outer = std::io::Error::other(eof);
        assert!(closed_without_goodbye(&chain(&outer)));
        for failure in [
            "invalid peer certificate: UnknownIssuer",
            "received fatal alert: HandshakeFailure",
            "connection refused",
        ] {
            assert!(!closed_without_goodbye(failure), "{failure}");
        }
    }

    #[test]
    fn one_stored_object_is_capped_at_the_api_servers_own_request_limit() {
        let req = |verb: &'static str, group: &str, resource: &str| Request {
            path: String::new(),
            verb,
            group: group.to_string(),
            resource: resource.to_string(),
            namespace: None,
        };
        let hpa = req("get", "autoscaling", "horizontalpodautoscalers");
        assert_eq!(hpa.max_bytes(), 3 * 1024 * 1024);
        assert_eq!(
            req("get", "apps", "deployments/scale").max_bytes(),
            3 * 1024 * 1024
        );
        let custom = req("get", "custom.metrics.k8s.io", "pods/requests");
        assert_eq!(custom.max_bytes(), 64 * 1024 * 1024);
        assert_eq!(req("list", "", "events").max_bytes(), MAX_EVENTS_BYTES);
        assert_eq!(
            req("list", "metrics.k8s.io", "pods").max_bytes(),
            512 * 1024 * 1024
        );
        assert!(hpa.past_cap_advice().contains("not the object asked for"));
    }

    #[test]
    fn error_chains_skip_repeated_sources() {
        let inner = std::io::Error::other("connection refused");
        let outer = std::io::Error::other(inner);
        assert_eq!(chain(&outer), "connection refused");
    }

    #[test]
    fn an_http_date_is_the_servers_time() {
        assert_eq!(
            http_date("Wed, 02 Dec 2026 01:50:07 GMT").map(|t| t.to_rfc3339()),
            Some("2026-12-02T01:50:07Z".to_string())
        );
        assert_eq!(http_date("yesterday"), None);
    }
}
