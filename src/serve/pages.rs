//! The requests of `hpacalc serve`, both modes: the pages (`/calc`, `/simulate`, and with a
//! cluster `/` and `/hpa/NS/NAME`) are computed off the I/O threads, at most `--max-evaluations`
//! at once and for at most `--page-timeout` each; the rest (`/metrics`, `/api/v1/...`,
//! `/healthz`, `/readyz`) is `api::route`.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use hyper::Method;
use tokio::sync::Semaphore;

use super::Config;
use super::api::route;
use super::calc;
use super::http::{Reply, TEXT, html, read_body, reply};
use super::simulator;
use super::sync::Served;
use crate::input::cluster::share::event_list;
use crate::input::form::{self, Uniform};
use crate::input::paste;
use crate::input::sim_form::{Source, Stepping};
use crate::render::fleet_page::{self, FleetPage, HpaPage};
use crate::report::Report;
use crate::stop::Stop;

/// What every request reads: the last sync (none offline) and the limits of a page.
pub(super) struct Site {
    served: Option<Arc<Served>>,
    timeout: std::time::Duration,
    evaluations: Arc<Semaphore>,
    /// The sync period, seconds: the fleet page reloads at it.
    period: u64,
    /// Raised when the server stops: the work under way ends at its next look.
    pub(super) stopping: Arc<AtomicBool>,
}

impl Site {
    pub(super) fn new(
        config: &Config,
        served: Option<Arc<Served>>,
        stopping: Arc<AtomicBool>,
    ) -> Site {
        Site {
            served,
            timeout: std::time::Duration::from_millis(
                u64::try_from(config.page_timeout.0).unwrap_or(0),
            ),
            evaluations: Arc::new(Semaphore::new(usize::from(config.max_evaluations))),
            period: u64::try_from(config.sync_period.0 / 1000)
                .unwrap_or(15)
                .max(1),
            stopping,
        }
    }

    /// `work` on a blocking thread once a place is free, answered 503 past the time limit. The
    /// work holds its place until it ends, so the bound holds, and it is given the deadline
    /// (`Stop`): the simulation and the evaluations end within an instant of the 503.
    async fn compute(&self, work: impl FnOnce(&Stop) -> Reply + Send + 'static) -> Reply {
        let deadline = tokio::time::Instant::now() + self.timeout;
        let place =
            tokio::time::timeout_at(deadline, Arc::clone(&self.evaluations).acquire_owned()).await;
        let Ok(Ok(place)) = place else {
            return reply(503, TEXT, busy("waited for a free place", self.timeout));
        };
        let stop = Stop::at(deadline.into_std()).or_when(Arc::clone(&self.stopping));
        let task = tokio::task::spawn_blocking(move || {
            let _place = place;
            work(&stop)
        });
        match tokio::time::timeout_at(deadline, task).await {
            // Work stopped at the deadline answers as the timeout does, whichever came first.
            Ok(Ok(answer))
                if answer.status() == hyper::StatusCode::SERVICE_UNAVAILABLE
                    && tokio::time::Instant::now() >= deadline =>
            {
                reply(503, TEXT, busy("took", self.timeout))
            }
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => reply(500, TEXT, "the page failed\n".into()),
            Err(_) => reply(503, TEXT, busy("took", self.timeout)),
        }
    }
}

fn busy(what: &str, limit: std::time::Duration) -> String {
    format!(
        "the page {what} longer than --page-timeout ({} ms); ask for less (an earlier t, a \
         shorter paste) or try again\n",
        limit.as_millis()
    )
}

/// One request.
pub(super) async fn answer(site: Arc<Site>, req: hyper::Request<hyper::body::Incoming>) -> Reply {
    let path = req.uri().path().trim_matches('/').to_string();
    let query = req.uri().query().unwrap_or("").to_string();
    let method = req.method().clone();
    let get = method == Method::GET || method == Method::HEAD;
    let fleet = site.served.is_some();
    match (path.as_str(), get, method == Method::POST) {
        ("calc", true, _) => {
            let asked = calc::Asked::Uniform(query);
            site.compute(move |_| calc::page(&asked, fleet)).await
        }
        ("simulate", true, _) => {
            let asked = simulator::Asked::Get(query);
            site.compute(move |stop| simulator::page(&asked, fleet, stop))
                .await
        }
        ("calc" | "simulate", _, true) => {
            let body = match read_body(req.into_body()).await {
                Ok(body) => body,
                Err(refused) => return refused,
            };
            if path == "calc" {
                let asked = calc::Asked::Paste(body);
                site.compute(move |_| calc::page(&asked, fleet)).await
            } else {
                let asked = simulator::Asked::Post(body);
                site.compute(move |stop| simulator::page(&asked, fleet, stop))
                    .await
            }
        }
        ("calc" | "simulate", ..) => reply(405, TEXT, format!("/{path} answers GET and POST\n")),
        _ => match &site.served {
            None => offline(get, &path),
            Some(served) if get && (path.is_empty() || path.starts_with("hpa/")) => {
                let served = Arc::clone(served);
                let period = site.period;
                site.compute(move |_| cluster_page(&served, &path, &query, period))
                    .await
            }
            Some(served) => {
                let accept = req.headers().get(hyper::header::ACCEPT);
                let accept = accept.and_then(|a| a.to_str().ok());
                route(served, &method, req.uri().path(), accept)
            }
        },
    }
}

/// `serve --offline`'s other paths: `/` sends to the calculator.
fn offline(get: bool, path: &str) -> Reply {
    match (get, path) {
        (true, "healthz" | "readyz") => reply(200, TEXT, "ok\n".into()),
        (true, "") => {
            let mut to = reply(303, TEXT, "see /calc\n".into());
            to.headers_mut().insert(
                hyper::header::LOCATION,
                hyper::header::HeaderValue::from_static("/calc"),
            );
            to
        }
        _ => reply(
            404,
            TEXT,
            "not found: /calc, /simulate, /healthz, /readyz (serve --offline)\n".into(),
        ),
    }
}

/// `/` and `/hpa/NS/NAME`, from the last sync.
fn cluster_page(served: &Served, path: &str, query: &str, period: u64) -> Reply {
    let Ok(audit) = served.audit.read() else {
        return reply(500, TEXT, "the last sync is unreadable\n".into());
    };
    let Some(audit) = audit.as_ref() else {
        return reply(503, TEXT, "the first sync has not ended\n".into());
    };
    if path.is_empty() {
        let pairs = form::decode(query);
        let synced = served.synced();
        let page = FleetPage {
            audit,
            namespace: form::field(&pairs, "namespace").unwrap_or(""),
            code: form::field(&pairs, "code").unwrap_or(""),
            refresh: period,
            synced: &synced,
        };
        return html(200, fleet_page::fleet(&page));
    }
    let key = path.trim_start_matches("hpa/");
    let Some(report) = audit.hpas.iter().find(|r| r.hpa == key) else {
        return reply(404, TEXT, format!("no HPA {key} in the last sync\n"));
    };
    let history = served.history.read().map(|h| h.of(key)).unwrap_or_default();
    let (events, events_error) = match served.events_of(key) {
        Ok(events) => (events, None),
        Err(e) => (Vec::new(), Some(e)),
    };
    let uniform = uniform_of(report);
    let page = HpaPage {
        report,
        history: &history,
        events: &events,
        events_error,
        calc: uniform.as_ref().map(calc_href),
        simulate: uniform.and_then(|u| {
            Stepping {
                source: Source::Uniform(u),
                t: 0,
                load_set: Vec::new(),
            }
            .href(0, None)
        }),
    };
    html(200, fleet_page::hpa(&page))
}

/// The calculator's uniform case of an HPA whose first metric is a Utilization one: its
/// replicas, its pods' average utilization and classes, its target and bounds.
pub fn uniform_of(report: &Report) -> Option<Uniform> {
    let m = report.metrics.first()?;
    let target = i64::from(m.target.average_utilization?);
    Some(Uniform {
        replicas: i64::from(report.current_replicas),
        usage: i64::from(m.current_utilization?),
        ready: i64::try_from(m.ready_pods).ok()?,
        unready: i64::try_from(m.unready_pods).ok()?,
        missing: i64::try_from(m.missing_pods).ok()?,
        target,
        tolerance: ((m.tolerance.upper - 1.0) * 1000.0).round() / 1000.0,
        min: i64::from(report.min_replicas),
        max: i64::from(report.max_replicas),
        behavior: String::new(),
        node_allocatable: String::new(),
        existing_nodes: None,
        ..Uniform::default()
    })
}

fn calc_href(u: &Uniform) -> String {
    let query: Vec<String> = form::UNIFORM_FIELDS
        .iter()
        .zip(u.values())
        .map(|((id, _), v)| format!("{id}={}", crate::input::sim_form::escape(&v)))
        .collect();
    format!("/calc?{}", query.join("&"))
}

impl Served {
    /// The events of the last sync that name the HPA `key`, read by `--events`' reader (its
    /// located message when one cannot be read).
    fn events_of(&self, key: &str) -> Result<Vec<paste::events::HpaEvent>, String> {
        let Some((namespace, name)) = key.split_once('/') else {
            return Ok(Vec::new());
        };
        let Ok(events) = self.events.read() else {
            return Err("the last sync's events are unreadable".to_string());
        };
        let list = event_list(
            events
                .iter()
                .filter(|e| {
                    let o = e
                        .head
                        .involved_object
                        .as_ref()
                        .or(e.head.regarding.as_ref());
                    o.is_some_and(|o| {
                        o.kind == "HorizontalPodAutoscaler"
                            && o.name == name
                            && o.namespace == namespace
                    })
                })
                .map(|e| &*e.text),
        );
        paste::events::parse("events", &list).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::testing::{cpu_utilization, scenario};

    #[test]
    fn a_utilization_hpa_opens_in_the_calculator_with_its_numbers() {
        let report = crate::calc::evaluate(&scenario(vec![cpu_utilization(50)], 4, 900));
        let u = uniform_of(&report).unwrap();
        assert_eq!((u.replicas, u.usage, u.ready, u.target), (4, 90, 4, 50));
        assert!((u.tolerance - 0.1).abs() < 1e-9);
        let again = crate::calc::evaluate(&crate::input::build(u.inputs(None).unwrap()).unwrap());
        assert_eq!(again.desired_replicas, report.desired_replicas);
        assert!(calc_href(&u).starts_with("/calc?replicas=4&usage=90&ready=4&"));
    }
}
