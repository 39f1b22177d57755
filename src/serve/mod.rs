//! `hpacalc serve`, the long-running front end: the objects the audit reads, watched
//! (`live::watch`), evaluated at every sync (`sync`), and answered on one address: the series and
//! the JSON API (`api`), the pages (`pages`: the fleet, one HPA, the calculator and the step
//! simulator). `--offline`: no cluster, the calculator and the simulator alone. SIGTERM or
//! Ctrl-C stops it. `cmd::serve` only fills `Config` from the flags.

pub mod api;
pub mod calc;
pub mod http;
pub mod pages;
pub mod simulator;
pub mod sync;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Result;

use crate::input::Settings;
use crate::input::live::LiveError;
use crate::input::live::client::{Api, Settings as Connection};
use crate::input::live::watch::Watched;
use crate::time::Duration;
use http::{accept_all, bind};
use pages::Site;
use sync::{Served, syncs};

/// What `serve` runs with, every flag read and checked.
#[derive(Debug, Clone)]
pub struct Config {
    pub listen: http::Listen,
    /// No cluster: the calculator and the simulator alone.
    pub offline: bool,
    /// The namespaces watched; empty: the kubeconfig's; `all`: every one.
    pub namespaces: Vec<String>,
    pub all_namespaces: bool,
    pub kubeconfig: Option<PathBuf>,
    pub context: Option<String>,
    pub cluster: Option<String>,
    pub user: Option<String>,
    /// `--server`, `--token`, `--insecure-skip-tls-verify`, `--as`, `--as-group`.
    pub overrides: crate::input::live::kubeconfig::Overrides,
    /// One API request's limit (`None`: none).
    pub request_timeout: Option<std::time::Duration>,
    pub verbosity: u8,
    /// The controller's settings every HPA is evaluated with.
    pub settings: Settings,
    pub sync_period: Duration,
    /// One page's limit, and how many are computed at once.
    pub page_timeout: Duration,
    pub max_evaluations: u16,
}

/// How long the work under way may take to end after SIGTERM: it looks at the stop flag every
/// few events, so it ends in far less; what does not is abandoned with the process.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Serves until SIGTERM or Ctrl-C, then stops within `SHUTDOWN_GRACE`: no new connection is
/// accepted, and every page and sync under way is told to stop.
pub fn run(config: &Config) -> Result<()> {
    let stopping: Arc<AtomicBool> = Arc::default();
    let runtime = runtime()?;
    let served = if config.offline {
        runtime.block_on(offline(config, &stopping))
    } else {
        runtime.block_on(cluster(config, &stopping))
    };
    stopping.store(true, Ordering::SeqCst);
    runtime.shutdown_timeout(SHUTDOWN_GRACE);
    served
}

/// `serve` with a cluster: the watches, the syncs and every page.
async fn cluster(config: &Config, stopping: &Arc<AtomicBool>) -> Result<()> {
    let connection = Connection {
        kubeconfig: config.kubeconfig.as_deref(),
        context: config.context.as_deref(),
        cluster: config.cluster.as_deref(),
        user: config.user.as_deref(),
        timeout: config.request_timeout,
        verbosity: config.verbosity,
        overrides: config.overrides.clone(),
    };
    let api = Arc::new(Api::connect(&connection).await?);
    let namespaces: Vec<Option<String>> =
        match (config.namespaces.as_slice(), config.all_namespaces) {
            (_, true) => vec![None],
            ([], false) => vec![Some(api.default_namespace.clone())],
            (some, false) => some.iter().cloned().map(Some).collect(),
        };
    let listeners = bind(&config.listen).await?;
    let served = Arc::new(Served::default());
    let site = Arc::new(Site::new(
        config,
        Some(Arc::clone(&served)),
        Arc::clone(stopping),
    ));
    tokio::spawn(accept_all(listeners, move |req| {
        pages::answer(Arc::clone(&site), req)
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
        "serve: {scope} of {} (context {}), answering on {}",
        api.server,
        api.context,
        answering(&config.listen)
    ));
    let watched = Watched::start(&api, &namespaces).await?;
    let settings = config.settings.clone();
    let syncs = syncs(
        &api,
        &watched,
        &namespaces,
        &served,
        settings,
        config.sync_period,
        stopping,
    );
    tokio::select! {
        () = syncs => Ok(()),
        () = stopped() => Ok(()),
    }
}

/// The I/O runtime: two workers.
fn runtime() -> Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| LiveError(format!("cannot start the I/O runtime: {e}")))?)
}

/// `serve --offline`: the calculator and the simulator alone, no cluster (no kubeconfig is read).
async fn offline(config: &Config, stopping: &Arc<AtomicBool>) -> Result<()> {
    let site = Arc::new(Site::new(config, None, Arc::clone(stopping)));
    let listeners = bind(&config.listen).await?;
    crate::term::log(&format!(
        "serve --offline: answering on {}: the calculator at /calc, the simulator at /simulate",
        answering(&config.listen)
    ));
    tokio::select! {
        () = accept_all(listeners, move |req| pages::answer(Arc::clone(&site), req)) => Ok(()),
        () = stopped() => Ok(()),
    }
}

/// Where the log says `serve` answers.
fn answering(listen: &http::Listen) -> String {
    match listen {
        http::Listen::Every { port } => format!("every address, port {port}"),
        at => format!("http://{at}"),
    }
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
