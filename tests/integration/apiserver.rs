//! A small Kubernetes API server for the live-mode tests: HTTPS on 127.0.0.1 with a test CA
//! made by rcgen, a bearer token, and this project's kubectl fixtures served at the real API
//! paths (discovery, the HPA, the scale subresources of a Deployment and of an Argo Rollout,
//! paginated pods, the three metrics APIs, the targets themselves, the HPA's events) plus error
//! answers: 403, 404, 503 and a slow endpoint. `Fixture::cluster` serves `fixtures/cluster/dump`
//! instead, as the lists `hpacalc audit -A` reads.
//!
//! Namespaces choose the situation: `shop` (everything answers), `rollouts` (the target is a
//! custom resource and metrics.k8s.io is not installed), `nometrics` (metrics.k8s.io answers
//! 503), `locked` (403), `slow` (the HPA answers after 3 s), `overlap` (a pod under the selector
//! belongs to another workload), `rolling` (a rollout's surge), `nocustom` (custom.metrics.k8s.io
//! answers 503), `nocustom404` (it is not installed). The `hostile-*` namespaces are a server gone
//! wrong (`hostile`): an endless answer, an endless list, huge or escape-laden messages.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::{Request, Response};
use serde_json::{Value, json};
use tokio_rustls::rustls;

use crate::support::{root, temp_dir};
use crate::tables;

pub const TOKEN: &str = "test-token";

/// What the server serves.
pub struct Fixture {
    pub hpa: Value,
    /// KEDA's HPA `keda-hpa-worker` (an External metric), in `shop`.
    pub keda: Value,
    pub pods: Vec<Value>,
    pub metrics: String,
    pub custom: String,
    pub external: String,
    /// events.k8s.io/v1 is served (else only core/v1 events are).
    pub events_v1: bool,
    /// `/version`'s gitVersion; `None` answers 404.
    pub version: Option<&'static str>,
    /// A whole cluster served instead of everything above (`Fixture::cluster`).
    pub dump: Option<Dumped>,
    /// Karpenter installed: its NodePools and EC2NodeClasses lists (`fixtures/karpenter/live`),
    /// served with their discovery; without, both groups answer 404.
    pub karpenter: Option<(Value, Value)>,
}

/// `fixtures/cluster/dump` as the API serves it, for `hpacalc audit -A`: each list of its kind's
/// items without kind and apiVersion, in pages of at most `DUMP_PAGE` items whatever the
/// `limit`; metrics.k8s.io in one answer (503 in namespace `team-2`). Namespace `locked` answers
/// 403, and so do the lists of the resources in `forbidden` everywhere.
pub struct Dumped {
    pub items: Vec<Value>,
    metrics: Value,
    pub forbidden: Vec<&'static str>,
    /// The answer of external.metrics.k8s.io for any metric (404 without).
    pub external: Option<Value>,
}

/// The largest page the dump's lists answer: the pods take several pages.
const DUMP_PAGE: usize = 100;

/// The lists the dump serves: (group version, resource, kind).
const DUMP_LISTS: [(&str, &str, &str); 12] = [
    (
        "autoscaling/v2",
        "horizontalpodautoscalers",
        "HorizontalPodAutoscaler",
    ),
    ("apps/v1", "deployments", "Deployment"),
    ("apps/v1", "statefulsets", "StatefulSet"),
    ("apps/v1", "replicasets", "ReplicaSet"),
    ("v1", "replicationcontrollers", "ReplicationController"),
    ("v1", "pods", "Pod"),
    ("policy/v1", "poddisruptionbudgets", "PodDisruptionBudget"),
    (
        "autoscaling.k8s.io/v1",
        "verticalpodautoscalers",
        "VerticalPodAutoscaler",
    ),
    ("metrics.k8s.io/v1beta1", "pods", "PodMetrics"),
    ("v1", "events", "Event"),
    ("events.k8s.io/v1", "events", "Event"),
    ("argoproj.io/v1alpha1", "rollouts", "Rollout"),
];

/// The kinds whose objects have a scale subresource in the dump's server.
const SCALED: [&str; 5] = [
    "Deployment",
    "StatefulSet",
    "ReplicaSet",
    "ReplicationController",
    "Rollout",
];

impl Fixture {
    /// `fixtures/kubectl/`: the HPA shop/web, its six pods and their metrics.
    pub fn kubectl() -> Fixture {
        let read =
            |f: &str| std::fs::read_to_string(root().join("fixtures/kubectl").join(f)).unwrap();
        let hpa: Value = serde_yaml::from_str(&read("hpa.yaml")).unwrap();
        let pods: Value = serde_json::from_str(&read("pods.json")).unwrap();
        Fixture {
            hpa,
            keda: serde_yaml::from_str(&read("keda-hpa.yaml")).unwrap(),
            pods: pods["items"].as_array().unwrap().clone(),
            metrics: read("metrics.json"),
            custom: read("custom-metrics.json"),
            external: read("external-metrics.json"),
            events_v1: true,
            version: Some("v1.37.0"),
            dump: None,
            karpenter: None,
        }
    }

    /// `Fixture::cluster` with an Argo Rollout in namespace `shop`: `worker` (5 replicas,
    /// selector `app=worker`, its five pods at 95% of their CPU request) scaled by the HPA
    /// `worker` (70%), and the HPA `lost` on the Rollout `vanished`, which does not exist.
    pub fn cluster_with_rollout() -> Fixture {
        let mut fixture = Fixture::cluster();
        let dump = fixture.dump.as_mut().unwrap();
        let hpa = |name: &str, target: &str| {
            json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                   "metadata": {"name": name, "namespace": "shop", "generation": 1,
                                "uid": format!("00000000-0000-4000-8000-{:0>12}", name.len()),
                                "creationTimestamp": "2026-11-01T00:00:00Z"},
                   "spec": {"scaleTargetRef": {"apiVersion": "argoproj.io/v1alpha1",
                                               "kind": "Rollout", "name": target},
                            "minReplicas": 2, "maxReplicas": 10,
                            "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                                "target": {"type": "Utilization", "averageUtilization": 70}}}]},
                   "status": {"observedGeneration": 1, "currentReplicas": 5,
                              "desiredReplicas": 5}})
        };
        dump.items.push(hpa("worker", "worker"));
        dump.items.push(hpa("lost", "vanished"));
        dump.items.push(
            json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout",
            "metadata": {"name": "worker", "namespace": "shop"},
            "spec": {"replicas": 5, "selector": {"matchLabels": {"app": "worker"}},
                     "template": {"metadata": {"labels": {"app": "worker"}}}},
            "status": {"replicas": 5, "selector": "app=worker"}}),
        );
        let metrics = dump.metrics["items"].as_array_mut().unwrap();
        for i in 0..5 {
            let name = format!("worker-6c8d7-{i:05}");
            let mut pod = synthetic_pod(i);
            pod["metadata"]["name"] = json!(name);
            pod["metadata"]["labels"] = json!({"app": "worker"});
            pod["metadata"]["ownerReferences"][0]["name"] = json!("worker-6c8d7");
            pod["spec"]["initContainers"] = json!([]);
            pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = json!("100m");
            dump.items.push(pod);
            metrics.push(json!({"metadata": {"name": name, "namespace": "shop",
                                              "labels": {"app": "worker"}},
                                "timestamp": "2026-11-29T14:59:45Z", "window": "15s",
                                "containers": [{"name": "app",
                                                "usage": {"cpu": "95m", "memory": "200Mi"}}]}));
        }
        fixture
    }

    /// `fixtures/cluster/dump/{cluster,metrics}.json` served as a live cluster.
    pub fn cluster() -> Fixture {
        let read = |f: &str| -> Value {
            let path = root().join("fixtures/cluster/dump").join(f);
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
        };
        let dump = Dumped {
            items: read("cluster.json")["items"].as_array().unwrap().clone(),
            metrics: read("metrics.json"),
            forbidden: Vec::new(),
            external: None,
        };
        Fixture {
            dump: Some(dump),
            ..Fixture::kubectl()
        }
    }
}

struct State {
    fixture: Fixture,
    /// The pods of `shop`, serialized once (a page is then a join).
    pods_raw: Vec<String>,
    requests: Mutex<Vec<String>>,
    /// Each request's `Impersonate-User` and `Impersonate-Group` headers, as sent.
    impersonations: Mutex<Vec<(Option<String>, Vec<String>)>>,
    /// The dump's objects as they are now (`ApiServer::change` edits them).
    items: Mutex<Vec<Value>>,
    /// Watch events not yet sent: (kind, event).
    pending: Mutex<Vec<(String, Value)>>,
    /// The kinds whose next watch answers 410 Gone.
    gone: Mutex<Vec<&'static str>>,
    /// The resourceVersion of the objects as they are now.
    version: AtomicUsize,
    /// The server has gone away: connections are dropped.
    down: std::sync::atomic::AtomicBool,
    /// How the watches answer (`ApiServer::watches`).
    watches: Mutex<Watches>,
}

/// How the dump's watches answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Watches {
    /// After half a second, the queued events and a BOOKMARK.
    Usual,
    /// At once, with no event: a server that closes every watch.
    EndAtOnce,
    /// One ADDED event of 4 MiB, past any object the API server stores.
    Huge,
}

pub struct ApiServer {
    pub url: String,
    pub ca_pem: String,
    pub dir: PathBuf,
    state: Arc<State>,
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A CA and a server certificate for 127.0.0.1 signed by it: (CA PEM, cert DER, key DER).
fn certificates() -> (String, Vec<u8>, Vec<u8>) {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "hpacalc test CA");
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let issuer = rcgen::Issuer::new(ca_params, ca_key);
    let key = rcgen::KeyPair::generate().unwrap();
    let params =
        rcgen::CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()])
            .unwrap();
    let cert = params.signed_by(&key, &issuer).unwrap();
    (ca.pem(), cert.der().to_vec(), key.serialize_der())
}

/// Another CA's certificate, for the TLS failure test.
pub fn foreign_ca_pem() -> String {
    certificates().0
}

impl ApiServer {
    pub fn start(fixture: Fixture) -> ApiServer {
        let (ca_pem, cert, key) = certificates();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![cert.into()],
                rustls::pki_types::PrivateKeyDer::Pkcs8(key.into()),
            )
            .unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let pods_raw = fixture.pods.iter().map(Value::to_string).collect();
        let state = Arc::new(State {
            items: Mutex::new(
                fixture
                    .dump
                    .as_ref()
                    .map(|d| d.items.clone())
                    .unwrap_or_default(),
            ),
            pods_raw,
            requests: Mutex::new(Vec::new()),
            impersonations: Mutex::new(Vec::new()),
            pending: Mutex::new(Vec::new()),
            gone: Mutex::new(Vec::new()),
            version: AtomicUsize::new(100),
            down: std::sync::atomic::AtomicBool::new(false),
            watches: Mutex::new(Watches::Usual),
            fixture,
        });
        let served = Arc::clone(&state);
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                loop {
                    let Ok((tcp, _)) = listener.accept().await else {
                        continue;
                    };
                    // Gone away (`ApiServer::go_away`): every connection is dropped at once.
                    if served.down.load(Ordering::SeqCst) {
                        drop(tcp);
                        continue;
                    }
                    let acceptor = acceptor.clone();
                    let state = Arc::clone(&served);
                    tokio::spawn(async move {
                        let Ok(tls) = acceptor.accept(tcp).await else {
                            return;
                        };
                        let service = hyper::service::service_fn(move |req| {
                            let state = Arc::clone(&state);
                            async move { Ok::<_, Infallible>(handle(&state, req).await) }
                        });
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(hyper_util::rt::TokioIo::new(tls), service)
                            .await;
                    });
                }
            });
        });
        let dir = temp_dir(&format!(
            "apiserver-{}",
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        ApiServer {
            url: format!("https://127.0.0.1:{port}"),
            ca_pem,
            dir,
            state,
        }
    }

    /// Writes a kubeconfig with one context `test` (namespace `shop`) for this server.
    pub fn kubeconfig(&self, file: &str, token: &str, ca_pem: &str, server: &str) -> PathBuf {
        let path = self.dir.join(file);
        let text = format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: test\nclusters:\n- name: local\n  \
             cluster:\n    server: {server}\n    certificate-authority-data: {}\ncontexts:\n- \
             name: test\n  context:\n    cluster: local\n    user: tester\n    namespace: \
             shop\nusers:\n- name: tester\n  user:\n    token: {token}\n",
            base64(ca_pem.as_bytes())
        );
        // Written aside and renamed over: tests that share a server rewrite its kubeconfig while
        // another test's hpacalc reads it, which must never see a half-written file.
        let aside = self.dir.join(format!(
            "{file}.{}.tmp",
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::write(&aside, text).unwrap();
        std::fs::rename(&aside, &path).unwrap();
        path
    }

    /// The kubeconfig every passing test uses.
    pub fn good_kubeconfig(&self) -> PathBuf {
        self.kubeconfig("kubeconfig", TOKEN, &self.ca_pem.clone(), &self.url.clone())
    }

    /// Each request's impersonation headers so far: (`Impersonate-User`, `Impersonate-Group`s).
    /// The server checks the token only: what impersonation would allow is the real API
    /// server's authorization, which this one does not model.
    pub fn impersonations(&self) -> Vec<(Option<String>, Vec<String>)> {
        self.state.impersonations.lock().unwrap().clone()
    }

    /// The paths requested so far, with their queries.
    pub fn requests(&self) -> Vec<String> {
        self.state.requests.lock().unwrap().clone()
    }

    pub fn path(&self, file: &str) -> PathBuf {
        self.dir.join(file)
    }

    /// Replaces (or adds) a dump object, found by kind, namespace and name, and queues the watch
    /// event that says so (`MODIFIED`, or `ADDED`), unless `quietly`: then only a new list sees it.
    pub fn change(&self, object: Value, quietly: bool) {
        let version = self.state.version.fetch_add(1, Ordering::SeqCst) + 1;
        let mut object = object;
        object["metadata"]["resourceVersion"] = json!(version.to_string());
        let same = |i: &Value| {
            i["kind"] == object["kind"]
                && i["metadata"]["namespace"] == object["metadata"]["namespace"]
                && i["metadata"]["name"] == object["metadata"]["name"]
        };
        let mut items = self.state.items.lock().unwrap();
        let kind = if let Some(i) = items.iter_mut().find(|i| same(i)) {
            *i = object.clone();
            "MODIFIED"
        } else {
            items.push(object.clone());
            "ADDED"
        };
        if !quietly {
            let event = json!({"type": kind, "object": object});
            let k = object["kind"].as_str().unwrap().to_string();
            self.state.pending.lock().unwrap().push((k, event));
        }
    }

    /// The server goes away (`true`: every connection is dropped) or comes back.
    pub fn go_away(&self, away: bool) {
        self.state.down.store(away, Ordering::SeqCst);
    }

    /// The dump's objects as the server holds them now.
    pub fn items(&self) -> Vec<Value> {
        self.state.items.lock().unwrap().clone()
    }

    /// How the watches answer from now on.
    pub fn watches(&self, how: Watches) {
        *self.state.watches.lock().unwrap() = how;
    }

    /// The next watch of each list answers 410 Gone, so that its watcher lists again.
    pub fn expire_watches(&self) {
        *self.state.gone.lock().unwrap() = DUMP_LISTS.iter().map(|(_, _, k)| *k).collect();
    }
}

pub fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ABC[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

type Reply = Response<Full<Bytes>>;

fn reply(code: u16, body: String) -> Reply {
    Response::builder()
        .status(code)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body)))
        .unwrap()
}

fn status(code: u16, reason: &str, message: &str) -> Reply {
    reply(
        code,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
               "message": message, "reason": reason, "code": code})
        .to_string(),
    )
}

fn query(q: Option<&str>) -> BTreeMap<String, String> {
    q.unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (k.to_string(), decode(v))
        })
        .collect()
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap();
            out.push(u8::from_str_radix(hex, 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

/// The HPA of a namespace, by name: the fixture's, moved and retargeted.
fn hpa(fixture: &Fixture, ns: &str, name: &str) -> Option<Value> {
    if (ns, name) == ("shop", "keda-hpa-worker") {
        return Some(fixture.keda.clone());
    }
    let mut hpa = fixture.hpa.clone();
    hpa["metadata"]["namespace"] = json!(ns);
    hpa["metadata"]["name"] = json!(name);
    match (ns, name) {
        (
            "shop" | "nometrics" | "slow" | "overlap" | "rolling" | "nocustom" | "nocustom404",
            "web",
        ) => {}
        (ns, "web") if ns.starts_with("hostile-") => {}
        // Two Pods metrics of one name with different metric selectors: the adapter answers
        // each selector with its own values.
        ("selectors", "web") => {
            let metrics = hpa["spec"]["metrics"].as_array_mut().unwrap();
            let at = (metrics.iter()).position(|m| m["type"] == "Pods").unwrap();
            let mut other = metrics[at].clone();
            metrics[at]["pods"]["metric"]["selector"] = json!({"matchLabels": {"path": "/a"}});
            other["pods"]["metric"]["selector"] = json!({"matchLabels": {"path": "/b"}});
            metrics.push(other);
        }
        ("shop", "orphan") => hpa["spec"]["scaleTargetRef"]["name"] = json!("gone"),
        ("shop", "daemon") => {
            hpa["spec"]["scaleTargetRef"] =
                json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent"});
        }
        ("rollouts", "canary") => {
            hpa["spec"]["scaleTargetRef"] =
                json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout", "name": "canary"});
        }
        _ => return None,
    }
    Some(hpa)
}

fn scale(name: &str, replicas: i64, status: i64) -> String {
    json!({"kind": "Scale", "apiVersion": "autoscaling/v1",
           "metadata": {"name": name},
           "spec": {"replicas": replicas},
           "status": {"replicas": status, "selector": "app=web"}})
    .to_string()
}

/// A group version's resources, each with the verbs and short names kubectl's mapper reads.
fn discovery(group_version: &str, resources: &[(&str, &str)]) -> String {
    let list: Vec<Value> = resources
        .iter()
        .map(|(name, kind)| {
            let short: &[&str] = match *name {
                "horizontalpodautoscalers" => &["hpa"],
                "deployments" => &["deploy"],
                "pods" => &["po"],
                "events" => &["ev"],
                "namespaces" => &["ns"],
                "nodes" => &["no"],
                _ => &[],
            };
            json!({"name": name, "singularName": "", "kind": kind,
                   "namespaced": !matches!(*name, "namespaces" | "nodes" | "nodepools" | "ec2nodeclasses"),
                   "verbs": ["get", "list", "watch"], "shortNames": short})
        })
        .collect();
    json!({"kind": "APIResourceList", "groupVersion": group_version, "resources": list}).to_string()
}

/// `/apis`: the groups served, each at its preferred version, as kubectl's discovery reads them.
fn group_list() -> String {
    let groups: Vec<Value> = [
        ("autoscaling", &["v2", "v1"][..]),
        ("apps", &["v1"]),
        ("events.k8s.io", &["v1"]),
        ("metrics.k8s.io", &["v1beta1"]),
        ("custom.metrics.k8s.io", &["v1beta1"]),
        ("external.metrics.k8s.io", &["v1beta1"]),
        ("argoproj.io", &["v1alpha1"]),
    ]
    .iter()
    .map(|(name, versions)| {
        let versions: Vec<Value> = versions
            .iter()
            .map(|v| json!({"groupVersion": format!("{name}/{v}"), "version": v}))
            .collect();
        json!({"name": name, "versions": versions, "preferredVersion": versions[0]})
    })
    .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}).to_string()
}

/// The HPAs of `namespaces`, as a list or as kubectl's table.
fn hpa_list(f: &Fixture, namespaces: &[&str], as_table: bool) -> Reply {
    let items: Vec<Value> = namespaces
        .iter()
        .flat_map(|ns| {
            ["web", "orphan", "canary", "daemon", "keda-hpa-worker"]
                .iter()
                .filter_map(|n| hpa(f, ns, n))
        })
        .collect();
    if as_table {
        return reply(200, tables::hpa_table(&items));
    }
    reply(
        200,
        json!({"kind": "HorizontalPodAutoscalerList", "apiVersion": "autoscaling/v2",
               "metadata": {}, "items": items})
        .to_string(),
    )
}

/// Discovery as kubectl reads it: `/api`, `/apis`, and the group versions kubectl's mapper asks
/// about (the HPA's short name `hpa` among them).
fn discovered(parts: &[&str]) -> Option<Reply> {
    Some(match parts {
        ["api"] => reply(
            200,
            json!({"kind": "APIVersions", "versions": ["v1"],
                   "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0",
                                                   "serverAddress": "127.0.0.1:6443"}]})
            .to_string(),
        ),
        ["apis"] => reply(200, group_list()),
        ["api", "v1"] => reply(
            200,
            discovery(
                "v1",
                &[
                    ("pods", "Pod"),
                    ("events", "Event"),
                    ("namespaces", "Namespace"),
                    ("nodes", "Node"),
                ],
            ),
        ),
        ["apis", "autoscaling", version @ ("v1" | "v2")] => reply(
            200,
            discovery(
                &format!("autoscaling/{version}"),
                &[
                    ("horizontalpodautoscalers", "HorizontalPodAutoscaler"),
                    ("horizontalpodautoscalers/status", "HorizontalPodAutoscaler"),
                ],
            ),
        ),
        [
            "apis",
            group @ ("custom.metrics.k8s.io" | "external.metrics.k8s.io"),
            "v1beta1",
        ] => reply(200, discovery(&format!("{group}/v1beta1"), &[])),
        ["apis", "metrics.k8s.io", "v1beta1"] => reply(
            200,
            discovery(
                "metrics.k8s.io/v1beta1",
                &[("pods", "PodMetrics"), ("nodes", "NodeMetrics")],
            ),
        ),
        _ => return None,
    })
}

#[allow(
    clippy::too_many_lines,
    reason = "one route per arm, as the API server's paths"
)]
async fn handle(state: &State, req: Request<hyper::body::Incoming>) -> Reply {
    let path = req.uri().path().to_string();
    let q = query(req.uri().query());
    state.requests.lock().unwrap().push(
        req.uri()
            .path_and_query()
            .map(|p| p.to_string())
            .unwrap_or_default(),
    );
    {
        let header = |name: &str| -> Vec<String> {
            (req.headers().get_all(name).iter())
                .filter_map(|v| v.to_str().ok().map(str::to_string))
                .collect()
        };
        let user = header("impersonate-user").into_iter().next();
        state
            .impersonations
            .lock()
            .unwrap()
            .push((user, header("impersonate-group")));
    }
    if state.down.load(Ordering::SeqCst) {
        // A request on a connection opened before: closed with it.
        let mut answer = reply(503, "gone away\n".to_string());
        answer.headers_mut().insert(
            "connection",
            hyper::header::HeaderValue::from_static("close"),
        );
        return answer;
    }
    let authorized = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        == Some(&format!("Bearer {TOKEN}"));
    if !authorized {
        return status(401, "Unauthorized", "Unauthorized");
    }
    let as_table = tables::wants_table(req.headers().get("accept").and_then(|v| v.to_str().ok()));
    let f = &state.fixture;
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    if let Some(answer) = hostile(&parts, &q) {
        return answer;
    }
    if let Some(answer) = discovered(&parts) {
        return answer;
    }
    if parts == ["version"] {
        return version(f.version);
    }
    if let Some(answer) = karpenter(f, &parts) {
        return answer;
    }
    if let Some(dump) = &f.dump {
        if q.get("watch").map(String::as_str) == Some("true") {
            return watched(state, &parts).await;
        }
        return dumped(state, dump, &parts, &q);
    }
    let in_ns = |text: &str, ns: &str| text.replace("\"shop\"", &format!("\"{ns}\""));
    match parts.as_slice() {
        [
            "apis",
            "autoscaling",
            "v2",
            "namespaces",
            ns,
            "horizontalpodautoscalers",
            name,
        ] => {
            if *ns == "locked" {
                return status(
                    403,
                    "Forbidden",
                    &format!(
                        "horizontalpodautoscalers.autoscaling \"{name}\" is forbidden: User \
                         \"tester\" cannot get resource \"horizontalpodautoscalers\" in API group \
                         \"autoscaling\" in the namespace \"locked\""
                    ),
                );
            }
            if *ns == "slow" {
                tokio::time::sleep(std::time::Duration::from_secs(3)).await;
            }
            match hpa(f, ns, name) {
                Some(h) if as_table => reply(200, tables::hpa_table(&[h])),
                Some(h) => reply(200, h.to_string()),
                None => status(
                    404,
                    "NotFound",
                    &format!("horizontalpodautoscalers.autoscaling \"{name}\" not found"),
                ),
            }
        }
        [
            "apis",
            "autoscaling",
            "v2",
            "namespaces",
            ns,
            "horizontalpodautoscalers",
        ] => hpa_list(f, &[ns], as_table),
        ["apis", "autoscaling", "v2", "horizontalpodautoscalers"] => {
            hpa_list(f, &["shop", "rollouts"], as_table)
        }
        ["apis", "apps", "v1"] => reply(
            200,
            discovery(
                "apps/v1",
                &[
                    ("deployments", "Deployment"),
                    ("deployments/scale", "Scale"),
                    ("deployments/status", "Deployment"),
                    ("statefulsets", "StatefulSet"),
                    ("statefulsets/scale", "Scale"),
                    ("daemonsets", "DaemonSet"),
                ],
            ),
        ),
        ["apis", "events.k8s.io", "v1"] if f.events_v1 => {
            reply(200, discovery("events.k8s.io/v1", &[("events", "Event")]))
        }
        ["apis", "events.k8s.io", "v1", "namespaces", ns, "events"] if f.events_v1 => {
            reply(200, events(ns, q.get("fieldSelector"), "regarding"))
        }
        ["api", "v1", "namespaces", ns, "events"] if as_table => reply(
            200,
            tables::event_table(&event_items(ns, q.get("fieldSelector"), "involvedObject")),
        ),
        ["api", "v1", "namespaces", ns, "events"] => {
            reply(200, events(ns, q.get("fieldSelector"), "involvedObject"))
        }
        ["api", "v1", "events"] if as_table => reply(
            200,
            tables::event_table(&event_items(
                "shop",
                q.get("fieldSelector"),
                "involvedObject",
            )),
        ),
        ["api", "v1", "events"] => reply(
            200,
            events("shop", q.get("fieldSelector"), "involvedObject"),
        ),
        ["apis", "apps", "v1", "namespaces", ns, "deployments", name] if *name != "gone" => {
            reply(200, workload("apps/v1", "Deployment", ns, name))
        }
        [
            "apis",
            "argoproj.io",
            "v1alpha1",
            "namespaces",
            "rollouts",
            "rollouts",
            "canary",
        ] => reply(
            200,
            workload("argoproj.io/v1alpha1", "Rollout", "rollouts", "canary"),
        ),
        ["apis", "argoproj.io", "v1alpha1"] => reply(
            200,
            discovery(
                "argoproj.io/v1alpha1",
                &[
                    ("rollouts", "Rollout"),
                    ("rollouts/scale", "Scale"),
                    ("rollouts/status", "Rollout"),
                ],
            ),
        ),
        [
            "apis",
            "apps",
            "v1",
            "namespaces",
            ns,
            "deployments",
            name,
            "scale",
        ] if *name != "gone" => {
            let (spec, status) = if *ns == "rolling" { (3, 6) } else { (5, 5) };
            reply(200, scale(name, spec, status))
        }
        [
            "apis",
            "argoproj.io",
            "v1alpha1",
            "namespaces",
            "rollouts",
            "rollouts",
            "canary",
            "scale",
        ] => reply(200, scale("canary", 5, 5)),
        ["api", "v1", "namespaces", ns, "pods"] => {
            let selected = q.get("labelSelector").map(String::as_str) == Some("app=web");
            let total = if selected { state.pods_raw.len() } else { 0 };
            let limit: usize = q
                .get("limit")
                .and_then(|l| l.parse().ok())
                .unwrap_or(usize::MAX);
            let start: usize = q.get("continue").and_then(|c| c.parse().ok()).unwrap_or(0);
            let end = start.saturating_add(limit).min(total);
            // The rollout's namespace lists only the pods that have metrics.
            let items: Vec<String> = (start..end)
                .filter(|i| {
                    *ns != "rolling"
                        || f.metrics
                            .contains(f.pods[*i]["metadata"]["name"].as_str().unwrap_or("-"))
                })
                .map(|i| {
                    if *ns == "shop" {
                        state.pods_raw[i].clone()
                    } else {
                        let mut p = f.pods[i].clone();
                        p["metadata"]["namespace"] = json!(ns);
                        if *ns == "overlap" && i == 0 {
                            p["metadata"]["ownerReferences"][0]["name"] = json!("api-5d9f8");
                        }
                        // The rollout's surge pods are up: all six are running and ready.
                        if *ns == "rolling" {
                            p["status"]["phase"] = json!("Running");
                            p["status"]["conditions"] = json!([{"type": "Ready", "status": "True",
                                "lastTransitionTime": "2026-11-29T14:00:00Z"}]);
                            if let Some(meta) = p["metadata"].as_object_mut() {
                                meta.remove("deletionTimestamp");
                            }
                        }
                        p.to_string()
                    }
                })
                .collect();
            let next = if end < total {
                end.to_string()
            } else {
                String::new()
            };
            let meta = json!({"resourceVersion": "1", "continue": next});
            reply(
                200,
                format!(
                    "{{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{meta},\"items\":[{}]}}",
                    items.join(",")
                ),
            )
        }
        [
            "apis",
            "metrics.k8s.io",
            "v1beta1",
            "namespaces",
            ns,
            "pods",
        ] => match *ns {
            "nometrics" => status(
                503,
                "ServiceUnavailable",
                "the server is currently unable to handle the request (get pods.metrics.k8s.io)",
            ),
            "rollouts" => reply(404, "404 page not found\n".to_string()),
            ns => reply(200, in_ns(&f.metrics, ns)),
        },
        // Only v1beta1 of the custom metrics API is served: hpacalc falls back to it. In
        // `nocustom` it is unavailable (the aggregator's plain 503), in `nocustom404` not there.
        ["apis", "custom.metrics.k8s.io", "v1beta2", ..] => {
            reply(404, "404 page not found\n".to_string())
        }
        [
            "apis",
            "custom.metrics.k8s.io",
            "v1beta1",
            "namespaces",
            "nocustom",
            ..,
        ] => reply(503, "service unavailable\n".to_string()),
        [
            "apis",
            "custom.metrics.k8s.io",
            "v1beta1",
            "namespaces",
            "nocustom404",
            ..,
        ] => reply(404, "404 page not found\n".to_string()),
        [
            "apis",
            "custom.metrics.k8s.io",
            "v1beta1",
            "namespaces",
            ns,
            "pods",
            "*",
            _metric,
        ] => {
            // In `selectors`, `path=/b` is asked apart and answers 10 for every pod.
            if *ns == "selectors"
                && q.get("metricLabelSelector").map(String::as_str) == Some("path=/b")
            {
                let mut list: Value = serde_json::from_str(&in_ns(&f.custom, ns)).unwrap();
                for item in list["items"].as_array_mut().unwrap() {
                    item["value"] = json!("10");
                }
                return reply(200, list.to_string());
            }
            reply(200, in_ns(&f.custom, ns))
        }
        [
            "apis",
            "external.metrics.k8s.io",
            "v1beta1",
            "namespaces",
            ns,
            _metric,
        ] => reply(200, in_ns(&f.external, ns)),
        ["api", "v1", "nodes"] => reply(200, cluster_file("nodes.json")),
        ["api", "v1", "pods"] => reply(200, cluster_file("pods-all.json")),
        _ => reply(404, "404 page not found\n".to_string()),
    }
}

impl Fixture {
    /// `Fixture::kubectl` on a cluster where Karpenter runs: `fixtures/karpenter/live`.
    pub fn with_karpenter() -> Fixture {
        let read = |f: &str| -> Value {
            let path = root().join("fixtures/karpenter/live").join(f);
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
        };
        Fixture {
            karpenter: Some((read("nodepools.json"), read("ec2nodeclasses.json"))),
            ..Fixture::kubectl()
        }
    }
}

/// Karpenter's groups, when the fixture has them: discovery and the two lists.
fn karpenter(f: &Fixture, parts: &[&str]) -> Option<Reply> {
    let (pools, classes) = f.karpenter.as_ref()?;
    Some(match parts {
        ["apis", "karpenter.sh", "v1"] => reply(
            200,
            discovery("karpenter.sh/v1", &[("nodepools", "NodePool")]),
        ),
        ["apis", "karpenter.k8s.aws", "v1"] => reply(
            200,
            discovery(
                "karpenter.k8s.aws/v1",
                &[("ec2nodeclasses", "EC2NodeClass")],
            ),
        ),
        ["apis", "karpenter.sh", "v1", "nodepools"] => reply(200, pools.to_string()),
        ["apis", "karpenter.k8s.aws", "v1", "ec2nodeclasses"] => reply(200, classes.to_string()),
        _ => return None,
    })
}

/// A message of `n` lines, each with the escapes that retitle a terminal and clear it.
pub fn escape_laden(n: usize) -> String {
    (0..n)
        .map(|i| format!("line {i} \u{1b}]0;pwned\u{7}\u{1b}[2J of a server's message"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The answers of a server gone wrong, by namespace; `None`: the usual answer.
fn hostile(parts: &[&str], q: &BTreeMap<String, String>) -> Option<Reply> {
    let ns = parts
        .iter()
        .position(|p| *p == "namespaces")
        .and_then(|i| parts.get(i + 1))?;
    let resource = parts.last().copied().unwrap_or("");
    let list = |kind: &str, next: &str, items: &str| {
        format!(
            "{{\"kind\":\"{kind}\",\"apiVersion\":\"v1\",\"metadata\":{{\"continue\":\"{next}\"}},\"items\":[{items}]}}"
        )
    };
    match (*ns, resource) {
        // An HPA answer past any object's size: 70 MiB of one annotation.
        ("hostile-huge", "web") if parts.contains(&"horizontalpodautoscalers") => {
            let filler = "x".repeat(70 * 1024 * 1024);
            Some(reply(
                200,
                format!(
                    "{{\"kind\":\"HorizontalPodAutoscaler\",\"metadata\":{{\"annotations\":{{\"a\":\"{filler}\"}}}}}}"
                ),
            ))
        }
        // The same continue token on empty pages, for ever.
        ("hostile-endless", "pods") => Some(reply(200, list("PodList", "again", ""))),
        // A new continue token on every page, each with one event, for ever.
        ("hostile-chatty", "events") => {
            let n: u64 = q.get("continue").and_then(|c| c.parse().ok()).unwrap_or(0);
            let event = json!({"apiVersion": "v1", "kind": "Event",
                "metadata": {"name": format!("web.{n}"), "namespace": "hostile-chatty"},
                "involvedObject": {"kind": "HorizontalPodAutoscaler", "name": "web"},
                "type": "Normal", "reason": "Noise", "message": "again", "count": 1,
                "firstTimestamp": ago(60), "lastTimestamp": ago(60)});
            Some(reply(
                200,
                list("EventList", &(n + 1).to_string(), &event.to_string()),
            ))
        }
        // Full pages of events with a new continue token each, for ever.
        ("hostile-eventflood", "events") => {
            let n: u64 = q.get("continue").and_then(|c| c.parse().ok()).unwrap_or(0);
            let events: Vec<String> = (0..500)
                .map(|i| {
                    json!({"apiVersion": "v1", "kind": "Event",
                        "metadata": {"name": format!("web.{n}.{i}"), "namespace": "hostile-eventflood"},
                        "involvedObject": {"kind": "HorizontalPodAutoscaler", "name": "web"},
                        "type": "Normal", "reason": "Noise", "message": "again", "count": 1,
                        "firstTimestamp": ago(60), "lastTimestamp": ago(60)})
                    .to_string()
                })
                .collect();
            Some(reply(
                200,
                list("EventList", &(n + 1).to_string(), &events.join(",")),
            ))
        }
        // A PodMetrics list past the input size limit in one answer (`audit` of the namespace).
        ("hostile-hugelist", "pods") if parts.contains(&"metrics.k8s.io") => {
            let item =
                r#"{"metadata":{"name":"p","namespace":"hostile-hugelist"},"containers":[]}"#;
            let items = vec![item; 530 * 1024 * 1024 / item.len()].join(",");
            Some(reply(200, list("PodMetricsList", "", &items)))
        }
        // metrics.k8s.io unavailable, with a message of 100 KB.
        ("hostile-bigstatus", "pods") if parts.contains(&"metrics.k8s.io") => Some(status(
            503,
            "ServiceUnavailable",
            &"unavailable ".repeat(8_500),
        )),
        // A 403 whose message is 5 MB of lines with terminal escapes.
        // A message of 2.5 MB (40,000 escape-laden lines), under the 3 MiB of one answer.
        ("hostile-noisy", "web") => Some(status(403, "Forbidden", &escape_laden(40_000))),
        // A 403 on the pods, after the HPA, its scale and its target answered.
        ("hostile-podsforbidden", "pods") if !parts.contains(&"metrics.k8s.io") => Some(status(
            403,
            "Forbidden",
            "pods is forbidden: User \"tester\" cannot list resource \"pods\"",
        )),
        // metrics.k8s.io unavailable, with a message that would retitle the terminal.
        ("hostile-ansi", "pods") if parts.contains(&"metrics.k8s.io") => {
            Some(status(503, "ServiceUnavailable", &escape_laden(3)))
        }
        // A scale whose selector is 200 KB: the pod list's URL is too long for the server.
        ("hostile-bigselector", "scale") => {
            let labels: Vec<String> = (0..20_000).map(|i| format!("k{i}=v")).collect();
            Some(reply(
                200,
                json!({"kind": "Scale", "apiVersion": "autoscaling/v1",
                       "metadata": {"name": "web"}, "spec": {"replicas": 5},
                       "status": {"replicas": 5, "selector": labels.join(",")}})
                .to_string(),
            ))
        }
        ("hostile-bigselector", "pods") => Some(status(
            414,
            "RequestURITooLong",
            "the request's URI is too long",
        )),
        _ => None,
    }
}

/// The target object as `kubectl get KIND NAME -o json` prints it: 5 replicas; in namespace
/// `rolling`, 3 wanted and 6 during the rollout (its scale says the same).
/// An answer of the dump's server: discovery of the VPA's group, or a page of a list.
/// A watch of a dump list: after half a second (a real one stays open for minutes), the queued
/// events of its kind and a BOOKMARK, or, after `expire_watches`, 410 Gone.
async fn watched(state: &State, parts: &[&str]) -> Reply {
    let how = *state.watches.lock().unwrap();
    if how == Watches::EndAtOnce {
        return reply(200, String::new());
    }
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let resource = parts.last().copied().unwrap_or_default();
    if how == Watches::Huge {
        let filler = "x".repeat(4 * 1024 * 1024);
        let event = json!({"type": "ADDED", "object": {"metadata": {"name": "huge",
            "namespace": "team-1", "resourceVersion": "1", "annotations": {"a": filler}}}});
        return reply(200, format!("{event}\n"));
    }
    let Some(&(_, _, kind)) = DUMP_LISTS.iter().find(|(_, r, _)| *r == resource) else {
        return reply(404, "404 page not found\n".to_string());
    };
    let expired = {
        let mut gone = state.gone.lock().unwrap();
        let before = gone.len();
        gone.retain(|k| *k != kind);
        gone.len() < before
    };
    if expired {
        let gone = json!({"type": "ERROR", "object": {"kind": "Status", "apiVersion": "v1",
            "status": "Failure", "reason": "Expired", "code": 410,
            "message": "too old resource version"}});
        return reply(200, format!("{gone}\n"));
    }
    let mut lines = String::new();
    state.pending.lock().unwrap().retain(|(k, event)| {
        if k == kind {
            lines.push_str(&format!("{event}\n"));
            false
        } else {
            true
        }
    });
    let version = state.version.load(Ordering::SeqCst).to_string();
    let bookmark = json!({"type": "BOOKMARK", "object": {"kind": kind,
        "metadata": {"resourceVersion": version}}});
    lines.push_str(&format!("{bookmark}\n"));
    reply(200, lines)
}

/// `/version`: the fixture's gitVersion, or 404 without one.
fn version(git_version: Option<&str>) -> Reply {
    match git_version {
        Some(v) => reply(
            200,
            json!({"major": "1", "minor": v.split('.').nth(1).unwrap_or_default(),
                   "gitVersion": v, "platform": "linux/amd64"})
            .to_string(),
        ),
        None => status(
            404,
            "NotFound",
            "the server could not find the requested resource",
        ),
    }
}

fn dumped(state: &State, dump: &Dumped, parts: &[&str], q: &BTreeMap<String, String>) -> Reply {
    let not_found = || reply(404, "404 page not found\n".to_string());
    let (group_version, rest) = match parts {
        ["api", v, rest @ ..] => (v.to_string(), rest),
        ["apis", g, v, rest @ ..] => (format!("{g}/{v}"), rest),
        _ => return not_found(),
    };
    if group_version == "external.metrics.k8s.io/v1beta1" {
        return match &dump.external {
            Some(answer) => reply(200, answer.to_string()),
            None => not_found(),
        };
    }
    if let ["namespaces", ns, resource, name, tail @ ..] = rest {
        return dumped_object(state, &group_version, (ns, resource, name), tail);
    }
    let (ns, resource) = match rest {
        [] if group_version == "argoproj.io/v1alpha1" => {
            return reply(
                200,
                discovery(
                    &group_version,
                    &[
                        ("rollouts", "Rollout"),
                        ("rollouts/scale", "Scale"),
                        ("rollouts/status", "Rollout"),
                    ],
                ),
            );
        }
        [] if group_version == "autoscaling.k8s.io/v1" => {
            return reply(
                200,
                discovery(
                    &group_version,
                    &[("verticalpodautoscalers", "VerticalPodAutoscaler")],
                ),
            );
        }
        [resource] => (None, *resource),
        ["namespaces", ns, resource] => (Some(*ns), *resource),
        _ => return not_found(),
    };
    let Some(&(_, _, kind)) = DUMP_LISTS
        .iter()
        .find(|(gv, r, _)| *gv == group_version && *r == resource)
    else {
        return not_found();
    };
    if ns == Some("locked") || dump.forbidden.contains(&resource) {
        let scope = ns.map_or("at the cluster scope".to_string(), |ns| {
            format!("in the namespace \"{ns}\"")
        });
        return status(
            403,
            "Forbidden",
            &format!(
                "{resource} is forbidden: User \"tester\" cannot list resource \"{resource}\" \
                 {scope}"
            ),
        );
    }
    let in_scope = |item: &&Value| ns.is_none_or(|ns| item["metadata"]["namespace"] == ns);
    if kind == "PodMetrics" && ns == Some("team-2") {
        return reply(503, "service unavailable\n".to_string());
    }
    if kind == "PodMetrics" {
        let items: Vec<&Value> = dump.metrics["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(in_scope)
            .filter(|item| selects(q.get("labelSelector"), &item["metadata"]["labels"]))
            .collect();
        let list = json!({"kind": "PodMetricsList", "apiVersion": group_version,
                          "metadata": {}, "items": items});
        return reply(200, list.to_string());
    }
    let items = state.items.lock().unwrap().clone();
    let selected = |item: &&Value| selects(q.get("labelSelector"), &item["metadata"]["labels"]);
    let all: Vec<Value> = (items.iter())
        .filter(|i| i["kind"] == kind)
        .filter(in_scope)
        .filter(selected)
        .map(|i| {
            let mut item = i.clone();
            let object = item.as_object_mut().unwrap();
            object.remove("kind");
            object.remove("apiVersion");
            item
        })
        .collect();
    let from: usize = q.get("continue").map_or(0, |c| c.parse().unwrap());
    let limit: usize = q.get("limit").map_or(all.len(), |l| l.parse().unwrap());
    let to = all.len().min(from + limit.min(DUMP_PAGE));
    let next = if to < all.len() {
        to.to_string()
    } else {
        String::new()
    };
    let version = state.version.load(Ordering::SeqCst).to_string();
    let list = json!({"kind": format!("{kind}List"), "apiVersion": group_version,
                      "metadata": {"continue": next, "resourceVersion": version},
                      "items": &all[from..to]});
    reply(200, list.to_string())
}

/// Whether labels hold every `key=value` of a selector (the only form the tests' selectors take).
fn selects(selector: Option<&String>, labels: &Value) -> bool {
    selector.is_none_or(|s| {
        (s.split(',').filter(|r| !r.is_empty()))
            .all(|r| r.split_once('=').is_some_and(|(k, v)| labels[k] == v))
    })
}

/// One object of the dump (`GET …/namespaces/NS/RESOURCE/NAME`) or its scale subresource
/// (`…/NAME/scale`), computed from the object as the API server's scale subresources are; an
/// object that is not there answers the API server's NotFound.
fn dumped_object(
    state: &State,
    group_version: &str,
    (ns, resource, name): (&str, &str, &str),
    tail: &[&str],
) -> Reply {
    let Some(&(_, _, kind)) = DUMP_LISTS
        .iter()
        .find(|(gv, r, _)| *gv == group_version && *r == resource)
    else {
        return reply(404, "404 page not found\n".to_string());
    };
    let group = group_version.rsplit_once('/').map_or("", |(g, _)| g);
    let scale = match tail {
        [] => false,
        ["scale"] if SCALED.contains(&kind) => true,
        _ => return reply(404, "404 page not found\n".to_string()),
    };
    let items = state.items.lock().unwrap();
    let found = items.iter().find(|i| {
        i["kind"] == kind && i["metadata"]["namespace"] == ns && i["metadata"]["name"] == name
    });
    let Some(object) = found else {
        // A custom resource's scale is read through its store: its NotFound names the resource.
        let resource = match (scale, kind) {
            (true, "Rollout") | (false, _) => resource.to_string(),
            (true, _) => format!("{resource}/scale"),
        };
        let qualified = match group {
            "" => resource,
            group => format!("{resource}.{group}"),
        };
        return status(
            404,
            "NotFound",
            &format!("{qualified} \"{name}\" not found"),
        );
    };
    if !scale {
        return reply(200, object.to_string());
    }
    let labels = object["spec"]["selector"]["matchLabels"].as_object();
    let selector: Vec<String> = (labels.into_iter().flatten())
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
        .collect();
    let scale = json!({"kind": "Scale", "apiVersion": "autoscaling/v1",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"replicas": object["spec"]["replicas"]},
        "status": {"replicas": object["status"]["replicas"], "selector": selector.join(",")}});
    reply(200, scale.to_string())
}

fn workload(api_version: &str, kind: &str, ns: &str, name: &str) -> String {
    let (spec, status) = if ns == "rolling" { (3, 6) } else { (5, 5) };
    json!({"kind": kind, "apiVersion": api_version,
           "metadata": {"name": name, "namespace": ns, "uid": "3b9d7c1e-0c1a-4a0e-9f4e-1d2c3b4a5f60"},
           "spec": {"replicas": spec, "selector": {"matchLabels": {"app": "web"}}},
           "status": {"replicas": status, "readyReplicas": status}})
    .to_string()
}

/// Seconds before now, as the API server writes times.
pub fn ago(seconds: i64) -> String {
    let t = jiff::Timestamp::now() - jiff::SignedDuration::from_secs(seconds);
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// The event list of a namespace (`field` is `regarding` for events.k8s.io/v1,
/// `involvedObject` for core/v1).
fn events(ns: &str, selector: Option<&String>, field: &str) -> String {
    let items = event_items(ns, selector, field);
    let kind = if field == "regarding" {
        "events.k8s.io/v1"
    } else {
        "v1"
    };
    json!({"kind": "EventList", "apiVersion": kind, "metadata": {"resourceVersion": "7"},
           "items": items})
    .to_string()
}

/// Whether a field selector (`a=b,c=d`; none selects all) matches HPA `web`'s events: each of
/// its terms on the object's kind, name, namespace, API version or uid holds.
fn selects_web(selector: Option<&String>, field: &str, ns: &str) -> bool {
    let Some(selector) = selector else {
        return true;
    };
    selector.split(',').all(|term| {
        let Some((key, value)) = term.split_once('=') else {
            return false;
        };
        let value = value.trim_start_matches('=');
        match key.strip_prefix(field).and_then(|k| k.strip_prefix('.')) {
            Some("kind") => value == "HorizontalPodAutoscaler",
            Some("name") => value == "web",
            Some("namespace") => value == ns,
            Some("apiVersion") => value.starts_with("autoscaling/"),
            Some("uid") => true,
            _ => false,
        }
    })
}

/// The events of HPA `web` that `selector` selects: a scale up from 4 to 6 two minutes ago, then
/// a failed Pods metric, repeated.
fn event_items(ns: &str, selector: Option<&String>, field: &str) -> Vec<Value> {
    if selects_web(selector, field, ns) {
        let object = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                            "name": "web", "namespace": ns});
        let (message, count) = if field == "regarding" {
            ("note", "deprecatedCount")
        } else {
            ("message", "count")
        };
        let event = |name: &str, kind: &str, reason: &str, text: &str, first: i64, last: i64, n| {
            let mut e = json!({"metadata": {"name": name, "namespace": ns}, field: object,
                               "type": kind, "reason": reason, message: text, count: n});
            if field == "regarding" {
                e["apiVersion"] = json!("events.k8s.io/v1");
                e["kind"] = json!("Event");
                e["eventTime"] = json!(ago(first).replace('Z', ".000000Z"));
                if n > 1 {
                    e["series"] =
                        json!({"count": n, "lastObservedTime": ago(last).replace('Z', ".000000Z")});
                }
            } else {
                e["apiVersion"] = json!("v1");
                e["kind"] = json!("Event");
                e["firstTimestamp"] = json!(ago(first));
                e["lastTimestamp"] = json!(ago(last));
                e["source"] = json!({"component": "horizontal-pod-autoscaler"});
            }
            e
        };
        vec![
            event(
                "web.1",
                "Normal",
                "SuccessfulRescale",
                "New size: 4; reason: cpu resource utilization (percentage of request) above target",
                240,
                240,
                1,
            ),
            event(
                "web.2",
                "Normal",
                "SuccessfulRescale",
                "New size: 6; reason: cpu resource utilization (percentage of request) above target",
                120,
                120,
                1,
            ),
            event(
                "web.3",
                "Warning",
                "FailedGetPodsMetric",
                "unable to get metric http_requests_per_second: unable to fetch metrics from custom metrics API: the server is currently unable to handle the request (get pods.custom.metrics.k8s.io *)",
                300,
                30,
                3,
            ),
        ]
    } else {
        Vec::new()
    }
}

/// `fixtures/cluster/`: the nodes and the cluster's pods, served whole (one page).
fn cluster_file(file: &str) -> String {
    std::fs::read_to_string(root().join("fixtures/cluster").join(file)).unwrap()
}

/// A Pod like `kubectl get pods -o json` prints, for the benchmark.
pub fn synthetic_pod(i: usize) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": format!("web-7d4b9c-{i:05}"), "namespace": "shop",
                     "labels": {"app": "web", "pod-template-hash": "7d4b9c"},
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                          "name": "web-7d4b9c", "controller": true,
                                          "uid": "5f0c6f1e-8d4a-4a47-9f53-0f6c2d7b9e21"}],
                     "uid": format!("00000000-0000-0000-0000-{i:012}"),
                     "resourceVersion": "48214010",
                     "creationTimestamp": "2026-11-29T10:00:00Z"},
        "spec": {"containers": [{"name": "app", "image": "registry.example/web:1.2.3",
                                 "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                                 "env": [{"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                                         {"name": "LOG_LEVEL", "value": "info"}],
                                 "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080},
                                                    "periodSeconds": 5},
                                 "volumeMounts": [{"name": "kube-api-access", "readOnly": true,
                                                   "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}],
                                 "resources": {"requests": {"cpu": "200m", "memory": "256Mi"},
                                               "limits": {"memory": "512Mi"}}}],
                 "initContainers": [{"name": "istio-proxy", "image": "docker.io/istio/proxyv2:1.24.0",
                                     "restartPolicy": "Always",
                                     "args": ["proxy", "sidecar", "--domain", "$(POD_NAMESPACE).svc.cluster.local"],
                                     "resources": {"requests": {"cpu": "100m", "memory": "128Mi"},
                                                   "limits": {"cpu": "2", "memory": "1Gi"}}}],
                 "volumes": [{"name": "kube-api-access", "projected": {"defaultMode": 420,
                              "sources": [{"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}]}}],
                 "tolerations": [{"effect": "NoExecute", "key": "node.kubernetes.io/not-ready",
                                  "operator": "Exists", "tolerationSeconds": 300}],
                 "nodeName": format!("node-{}", i % 100), "restartPolicy": "Always",
                 "serviceAccountName": "web", "terminationGracePeriodSeconds": 30},
        "status": {"phase": "Running", "startTime": "2026-11-29T10:00:05Z",
                   "podIP": "10.0.0.1", "hostIP": "192.168.0.1", "qosClass": "Burstable",
                   "conditions": [{"type": "Ready", "status": "True",
                                   "lastTransitionTime": "2026-11-29T10:00:20Z"},
                                  {"type": "ContainersReady", "status": "True",
                                   "lastTransitionTime": "2026-11-29T10:00:20Z"}],
                   "containerStatuses": [{"name": "app", "ready": true, "restartCount": 0,
                                          "image": "registry.example/web:1.2.3",
                                          "started": true,
                                          "state": {"running": {"startedAt": "2026-11-29T10:00:10Z"}}}]}
    })
}

/// The PodMetricsList of `n` synthetic pods at 150m each.
pub fn synthetic_metrics(n: usize, at: &str) -> String {
    let items: Vec<Value> = (0..n)
        .map(|i| {
            json!({"metadata": {"name": format!("web-7d4b9c-{i:05}"), "namespace": "shop",
                                "labels": {"app": "web"}},
                   "timestamp": at, "window": "15s",
                   "containers": [{"name": "app", "usage": {"cpu": "150m", "memory": "200Mi"}}]})
        })
        .collect();
    json!({"kind": "PodMetricsList", "apiVersion": "metrics.k8s.io/v1beta1", "metadata": {},
           "items": items})
    .to_string()
}
