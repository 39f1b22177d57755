//! The syncs of `hpacalc serve`: every sync period, once every list was read, the metrics APIs
//! and the events read anew (`live::cluster::at_sync`) and every HPA evaluated by the audit's own
//! path (`work::audit::audit_dump`), with the controller's memory kept from sync to sync; and what
//! the last sync computed (`Served`), which the answers read until the next one ends.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use crate::input::Settings;
use crate::input::cluster::Whole;
use crate::input::cluster::objects::EventHead;
use crate::input::cluster::share::Common;
use crate::input::live::client::Api;
use crate::input::live::watch::Watched;
use crate::render::history::History;
use crate::render::series::{Running, series};
use crate::report::fleet::AuditReport;
use crate::scenario::fleet::FleetFacts;
use crate::stop::Stop;
use crate::time::Timestamp;
use crate::work::audit::{Memories, audit_dump};

/// This machine's clock.
fn clock() -> Timestamp {
    Timestamp(jiff::Timestamp::now().as_millisecond())
}

/// What the last sync computed, served until the next one ends.
#[derive(Default)]
pub struct Served {
    pub metrics: RwLock<String>,
    pub audit: RwLock<Option<AuditReport>>,
    pub ready: AtomicBool,
    running: Running,
    /// When the last sync that answered ended, Unix seconds.
    last_sync: RwLock<f64>,
    /// The events the last sync read, for the HPA pages.
    pub events: RwLock<Vec<Whole<EventHead>>>,
    /// Each HPA's last hour, for its page.
    pub history: RwLock<History>,
}

/// Every `sync_period`, once every list was read: the audit of what is kept now; an audit
/// under way ends when `stopping` is raised.
pub async fn syncs(
    api: &Arc<Api>,
    watched: &Watched,
    namespaces: &[Option<String>],
    served: &Arc<Served>,
    settings: Settings,
    sync_period: crate::time::Duration,
    stopping: &Arc<AtomicBool>,
) {
    let period = std::time::Duration::from_millis(u64::try_from(sync_period.0).unwrap_or(15_000));
    let mut tick = tokio::time::interval(period.max(std::time::Duration::from_millis(100)));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // The controller's memory of each HPA, kept from sync to sync as the controller keeps it.
    let memories: Arc<Memories> = Arc::default();
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
        let stop = Stop::default().or_when(Arc::clone(stopping));
        let audited = tokio::task::spawn_blocking(move || {
            let audit = audit_dump(&dump, &common, &fleet, Some(&memories), &stop);
            audit.map(|audit| (audit, dump.events))
        })
        .await;
        // The sync's dump is gone: the strings only it held (each pod's metrics) are too.
        crate::input::cluster::json::Sym::forget_unused();
        let Ok(Ok((audit, events))) = audited else {
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
    pub fn synced(&self) -> String {
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
