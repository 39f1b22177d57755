//! `hpacalc serve`: the objects the audit reads, watched (`live::watch`); at every sync the
//! metrics APIs and the events read anew (`live::cluster::at_sync`) and every HPA evaluated by the
//! audit's own path (`audit::audit_dump`); the answers served on one address: `/metrics` (the
//! series of `render::series`), `/healthz`, `/readyz` (after the first full sync),
//! `/api/v1/hpas`, `/api/v1/hpas/NS/NAME` (the `-o json` report) and `/api/v1/findings` (the
//! audit's). `--offline`: no cluster, the calculator alone (`/calc`, `cmd::calc`), `/healthz` and
//! `/readyz`. SIGTERM or Ctrl-C stops it.

use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use anyhow::Result;
use http_body_util::Full;
use hyper::body::Bytes;

use super::pages::Site;
use crate::cli::ServeArgs;
use crate::input::cluster::Whole;
use crate::input::cluster::objects::EventHead;
use crate::input::cluster::share::Common;
use crate::input::live::LiveError;
use crate::input::live::client::{Api, Settings as Connection};
use crate::input::live::watch::Watched;
use crate::input::{Settings, flag_duration};
use crate::render::history::History;
use crate::render::series::{Running, series, summary};
use crate::report::fleet::AuditReport;
use crate::scenario::fleet::FleetFacts;
use crate::time::Timestamp;

/// This machine's clock.
fn clock() -> Timestamp {
    Timestamp(jiff::Timestamp::now().as_millisecond())
}

/// What the last sync computed, served until the next one ends.
#[derive(Default)]
pub(super) struct Served {
    metrics: RwLock<String>,
    pub(super) audit: RwLock<Option<AuditReport>>,
    ready: AtomicBool,
    running: Running,
    /// When the last sync that answered ended, Unix seconds.
    last_sync: RwLock<f64>,
    /// The events the last sync read, for the HPA pages.
    pub(super) events: RwLock<Vec<Whole<EventHead>>>,
    /// Each HPA's last hour, for its page.
    pub(super) history: RwLock<History>,
}

pub fn run(args: &ServeArgs) -> Result<()> {
    if args.log_format == crate::cli::LogFormat::Json {
        crate::term::log_json();
    }
    if args.offline {
        return offline(args);
    }
    let timeout = crate::input::live::request_timeout(&args.request_timeout)?;
    let sync_period = flag_duration("--sync-period", &args.controller.sync_period)?;
    let settings = Settings::from_fleet_flags(&args.controller)?;
    runtime()?.block_on(async {
        let connection = Connection {
            kubeconfig: args.kubeconfig.as_deref(),
            context: args.context.as_deref(),
            cluster: args.cluster.as_deref(),
            user: args.user.as_deref(),
            timeout,
            verbosity: args.verbosity,
        };
        let api = Arc::new(Api::connect(&connection).await?);
        let namespaces: Vec<Option<String>> = match (args.namespace.as_slice(), args.all_namespaces)
        {
            (_, true) => vec![None],
            ([], false) => vec![Some(api.default_namespace.clone())],
            (some, false) => some.iter().cloned().map(Some).collect(),
        };
        let listener = bind(args.listen).await?;
        let served = Arc::new(Served::default());
        let site = Arc::new(Site::new(args, Some(Arc::clone(&served)))?);
        tokio::spawn(accept(listener, move |req| {
            super::pages::answer(Arc::clone(&site), req)
        }));
        let scope = match namespaces.as_slice() {
            [None] => "every namespace".to_string(),
            some => format!(
                "namespace(s) {}",
                some.iter()
                    .flatten()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        crate::term::log(&format!(
            "serve: {scope} of {} (context {}), answering on http://{}",
            api.server, api.context, args.listen
        ));
        let watched = Watched::start(&api, &namespaces).await?;
        let syncs = syncs(&api, &watched, &namespaces, &served, settings, sync_period);
        tokio::select! {
            () = syncs => Ok(()),
            () = stopped() => Ok(()),
        }
    })
}

/// The I/O runtime: two workers.
fn runtime() -> Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| LiveError(format!("cannot start the I/O runtime: {e}")))?)
}

async fn bind(address: std::net::SocketAddr) -> Result<tokio::net::TcpListener> {
    Ok(tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| LiveError(format!("cannot listen on {address}: {e}")))?)
}

/// `serve --offline`: the calculator and the simulator alone, no cluster (no kubeconfig is read).
fn offline(args: &ServeArgs) -> Result<()> {
    let site = Arc::new(Site::new(args, None)?);
    runtime()?.block_on(async {
        let listener = bind(args.listen).await?;
        crate::term::log(&format!(
            "serve --offline: the calculator on http://{0}/calc, the simulator on \
             http://{0}/simulate",
            args.listen
        ));
        tokio::select! {
            () = accept(listener, move |req| super::pages::answer(Arc::clone(&site), req)) => Ok(()),
            () = stopped() => Ok(()),
        }
    })
}

/// Resolves at SIGTERM or Ctrl-C.
async fn stopped() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = interrupt => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = interrupt.await;
}

/// Every `sync_period`, once every list was read: the audit of what is kept now.
async fn syncs(
    api: &Arc<Api>,
    watched: &Watched,
    namespaces: &[Option<String>],
    served: &Arc<Served>,
    settings: Settings,
    sync_period: crate::time::Duration,
) {
    let period = std::time::Duration::from_millis(u64::try_from(sync_period.0).unwrap_or(15_000));
    let mut tick = tokio::time::interval(period.max(std::time::Duration::from_millis(100)));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // The controller's memory of each HPA, kept from sync to sync as the controller keeps it.
    let memories: Arc<super::audit::Memories> = Arc::default();
    // The first sync comes as soon as every list was read once.
    while !watched.listed() {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    loop {
        tick.tick().await;
        let started = std::time::Instant::now();
        let mut dump = watched.dump();
        let mut failed = 0;
        for namespace in namespaces {
            let ns = namespace.as_deref();
            if let Err(e) = crate::input::live::cluster::at_sync(api, &mut dump, ns).await {
                crate::term::warn(&format!(
                    "serve: the sync's reads failed{}: {e}",
                    ns.map_or(String::new(), |ns| format!(" in namespace {ns}"))
                ));
                failed += 1;
            }
        }
        // Every namespace failed: the last answer is served; else the others are.
        if failed == namespaces.len() {
            crate::term::warn("serve: the sync failed; the last one is served");
            served.failed();
            continue;
        }
        served.running.evaluation_errors.inc_by(failed as u64);
        let now = api.server_time().unwrap_or_else(clock);
        let mut settings = settings.clone();
        settings.now = Some(now);
        let common = Common {
            settings,
            custom_metrics: Vec::new(),
            external_metrics: Vec::new(),
        };
        let fleet = FleetFacts {
            newest: Some(now),
            sync_period,
            metrics_api_error: dump.metrics_api_error.clone(),
            metrics_given: true,
            unlisted: std::mem::take(&mut dump.unlisted),
            node_group_max: None,
        };
        let memories = Arc::clone(&memories);
        let audited = tokio::task::spawn_blocking(move || {
            let audit = super::audit::audit_dump(&dump, &common, &fleet, Some(&memories));
            (audit, dump.events)
        })
        .await;
        let Ok((audit, events)) = audited else {
            served.failed();
            continue;
        };
        let failed = u64::try_from(audit.unevaluated.len()).unwrap_or(u64::MAX);
        served.running.evaluation_errors.inc_by(failed);
        served
            .running
            .sync_duration
            .observe(started.elapsed().as_secs_f64());
        #[allow(clippy::cast_precision_loss, reason = "a Unix time in seconds")]
        let ended = clock().0 as f64 / 1000.0;
        if !served.ready.load(Ordering::SeqCst) {
            crate::term::log(&format!(
                "serve: the first sync evaluated {} HPA(s) in {:.2} s; ready",
                audit.hpas.len(),
                started.elapsed().as_secs_f64()
            ));
        }
        served.publish(audit, events, ended);
    }
}

impl Served {
    /// A sync's answer, served from now on.
    fn publish(&self, audit: AuditReport, events: Vec<Whole<EventHead>>, ended: f64) {
        let text = series(&audit, &self.running, ended);
        if let Ok(mut m) = self.metrics.write() {
            *m = text;
        }
        if let Ok(mut h) = self.history.write() {
            h.record(&audit.hpas, ended);
        }
        if let Ok(mut e) = self.events.write() {
            *e = events;
        }
        if let Ok(mut a) = self.audit.write() {
            *a = Some(audit);
        }
        if let Ok(mut t) = self.last_sync.write() {
            *t = ended;
        }
        self.ready.store(true, Ordering::SeqCst);
    }

    /// When the last sync ended, RFC 3339 (empty before the first).
    pub(super) fn synced(&self) -> String {
        let ended = self.last_sync.read().map_or(0.0, |t| *t);
        #[allow(clippy::cast_possible_truncation, reason = "Unix milliseconds")]
        let ms = (ended * 1000.0) as i64;
        jiff::Timestamp::from_millisecond(ms).map_or_else(|_| String::new(), |t| t.to_string())
    }

    /// A sync that failed: counted, and the last answer served again with the count.
    fn failed(&self) {
        self.running.evaluation_errors.inc();
        let ended = self.last_sync.read().map_or(0.0, |t| *t);
        if let Ok(audit) = self.audit.read()
            && let Some(audit) = audit.as_ref()
            && let Ok(mut m) = self.metrics.write()
        {
            *m = series(audit, &self.running, ended);
        }
    }
}

pub(super) type Reply = hyper::Response<Full<Bytes>>;

pub(super) fn reply(code: u16, kind: &str, body: String) -> Reply {
    let mut response = hyper::Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = hyper::StatusCode::from_u16(code).unwrap_or_default();
    if let Ok(v) = hyper::header::HeaderValue::from_str(kind) {
        response
            .headers_mut()
            .insert(hyper::header::CONTENT_TYPE, v);
    }
    response
}

/// Answers every connection of `listener`, each request by `handler`.
async fn accept<H, F>(listener: tokio::net::TcpListener, handler: H)
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

pub(super) const TEXT: &str = "text/plain; charset=utf-8";
const JSON: &str = "application/json";
/// The Prometheus text format's content type.
const EXPOSITION: &str = "text/plain; version=0.0.4; charset=utf-8";

pub(super) fn route(served: &Served, method: &hyper::Method, path: &str) -> Reply {
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
