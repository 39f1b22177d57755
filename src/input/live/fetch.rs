//! What the controller reads at one sync, read from the API server the way the controller reads
//! it (`reconcileAutoscaler` and the metrics clients of `pkg/controller/podautoscaler`): the HPA,
//! the scale subresource of its target (found through discovery), the pods of the scale's
//! selector (in pages), the three metrics APIs, the target object and the HPA's events. Nothing is
//! interpreted here: the answers are kept as the text the API served, for the offline parsers,
//! except the pod pages, which the offline pod reader (`pods::Pages`) reads as they arrive so that
//! the list is never held whole.

use serde_json::value::RawValue;

use super::LiveError;
use super::answer::{self, Page};
use super::client::{Api, MAX_EVENTS_BYTES, Refused, Request};
use crate::input::kubectl::pods::{CapturedPods, Pages};
use crate::input::kubectl::scale::Scale;
use crate::input::kubectl::{Scope, name_list};
use crate::input::manifest;
use crate::report::{Diagnostic, Severity};
use crate::scenario::{MetricIdentifier, MetricSpec, ObjectReference};
use crate::time::Timestamp;

/// Pods per page of the pod list (`limit`), as the controller's informer pages its lists.
pub const PAGE_SIZE: usize = 500;
/// The most pages one list is read in: 2,000 pages of 500 are a million objects.
pub const MAX_PAGES: usize = 2_000;
/// The events only say how the HPAs got where they are, and the API server keeps them an hour
/// (`--event-ttl`): their list stops, an error, past 200 pages, 50,000 events or 64 MiB, far
/// below what the other lists may hold (a cluster's HPAs rarely have a few thousand events).
pub const MAX_EVENT_PAGES: usize = 200;
pub const MAX_EVENTS: usize = 50_000;

/// How much of one list is read: (pages, items, bytes).
fn list_limits(req: &Request) -> (usize, usize, usize) {
    if req.resource == "events" {
        (MAX_EVENT_PAGES, MAX_EVENTS, MAX_EVENTS_BYTES)
    } else {
        let bytes = usize::try_from(crate::input::read::MAX_INPUT_BYTES).unwrap_or(usize::MAX);
        (MAX_PAGES, usize::MAX, bytes.saturating_mul(MAX_PAGES))
    }
}

/// The files the paged lists are written to, in the capture directory.
pub const PODS_FILE: &str = "pods.json";
pub const NODES_FILE: &str = "nodes.json";
pub const ALL_PODS_FILE: &str = "all-pods.json";
pub const NODEPOOLS_FILE: &str = "nodepools.json";
pub const NODECLASSES_FILE: &str = "ec2nodeclasses.json";
pub const EVENTS_FILE: &str = "events.json";
pub const TARGET_FILE: &str = "target.json";

/// Everything read, as served.
#[derive(Debug, Clone, PartialEq)]
pub struct Capture {
    pub namespace: String,
    /// The HPA, as `autoscaling/v2` serves it (JSON).
    pub hpa: String,
    /// The scale subresource of the target (JSON), or the API's error answer to its read (a
    /// `Status`): the controller's sync stops there (FailedGetScale), and so does the capture.
    pub scale: String,
    /// The target object itself (JSON): its replicas and rollout state for `--target`; `None`
    /// when the scale read failed.
    pub target_object: Option<String>,
    /// The scale read; `None` when it failed.
    pub scale_parsed: Option<Scale>,
    /// The target, `Kind/name` and the path its scale was read from.
    pub target: String,
    pub scale_path: String,
    /// The pods of the scale's selector, read page by page as the offline `--pods` reader reads
    /// them (with `--save`, also written to `PODS_FILE` as one `List` of every page's items).
    pub pods: Option<CapturedPods>,
    pub pod_count: usize,
    pub pod_pages: usize,
    /// The resource metrics API's `PodMetricsList`, when a metric reads it and the API answered.
    pub metrics: Option<String>,
    /// The custom and external metrics APIs' answers.
    pub metric_files: MetricFiles,
    /// The HPA's events (one `List`), and the API group version they were read from.
    pub events: String,
    pub events_from: &'static str,
    /// `--nodes-from-cluster`: every node and every pod of the cluster (one `List` each).
    pub nodes: Option<(String, String)>,
    /// `--nodes-from-cluster` where the API serves Karpenter's NodePools and some exist: the
    /// NodePools (one `List`) and the EC2NodeClasses, where served.
    pub karpenter: Option<(String, Option<String>)>,
    /// Metrics APIs that are not installed or not available: the controller's metrics that read
    /// them fail.
    pub diagnostics: Vec<Diagnostic>,
    pub notes: Vec<String>,
    /// When the last answer arrived, by the API server's clock (its `Date` header) where it
    /// sent one, else this machine's: the evaluation time.
    pub captured_at: Timestamp,
    pub clock: Clock,
    /// `/version`'s gitVersion (`v1.33.2-eks-1234`), when the server answered it.
    pub server_version: Option<String>,
}

/// Whose clock dated the capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    Server,
    Local,
}

/// Reads one HPA and everything its next sync reads. The pods are read page by page as they
/// arrive (and, with `save_pods`, written there as one `List`); the other answers are returned.
pub async fn capture(
    api: &Api,
    namespace: &str,
    name: &str,
    with_nodes: bool,
    save_pods: Option<std::fs::File>,
) -> Result<Capture, LiveError> {
    let ((hpa, spec), server_version) = tokio::try_join!(read_hpa(api, namespace, name), async {
        Ok(server_version(api).await)
    })?;

    // The scale does not depend on the metrics that read no pods: ask for both at once.
    let (scale, objects, external, events) = tokio::join!(
        read_scale(api, namespace, &spec.target),
        object_metrics(api, namespace, &spec.metrics),
        external_metrics(api, namespace, &spec.metrics),
        list_events(api, namespace, name),
    );
    let (events, events_from) = events?;
    let (scale_path, scale, object) = match scale? {
        TargetRead::Read {
            scale_path,
            scale,
            object,
        } => (scale_path, scale, object),
        TargetRead::Failed { scale_path, status } => {
            let stopped = Stopped {
                namespace,
                hpa,
                target: &spec.target,
                scale_path,
                status,
                events: (events, events_from),
                server_version,
            };
            return stopped.capture(api, save_pods);
        }
    };
    let (scale_parsed, selector, scope) = answer::scope_of(&scale, &spec.target, namespace)?;
    let objects = objects?;
    let external = external?;

    let wants_usage = spec
        .metrics
        .iter()
        .any(|m| matches!(m, MetricSpec::Resource { .. }));
    let pods_read = PodsRead {
        scope: &scope,
        target: &spec.target,
        save: save_pods,
    };
    let (pods, usage, pods_metrics, nodes) = tokio::join!(
        list_pods(api, namespace, &selector, pods_read),
        async {
            if wants_usage {
                pod_metrics(api, namespace, &selector).await.map(Some)
            } else {
                Ok(None)
            }
        },
        pods_custom_metrics(api, namespace, &selector, &spec.metrics),
        cluster_view(api, with_nodes),
    );
    let (pods, pod_pages) = pods?;
    let pod_count = pods.pods.len();
    let (nodes, karpenter) = nodes?.unzip();
    let karpenter = karpenter.flatten();
    let pods_metrics = pods_metrics?;

    let mut diagnostics = Vec::new();
    let mut notes = Vec::new();
    let metrics = match usage? {
        Some(Ok(text)) => Some(text),
        Some(Err(unavailable)) => {
            diagnostics.push(unavailable_diagnostic(
                "resource metrics API (metrics.k8s.io/v1beta1)",
                &unavailable,
                "install metrics-server (or the adapter that serves metrics.k8s.io) and check \
                 `kubectl get apiservice v1beta1.metrics.k8s.io`",
            ));
            // The answer the metrics client got, kept as the file the offline reader knows.
            let message = client_error_message(&unavailable, "get", "pods.metrics.k8s.io");
            Some(status_text(&message, unavailable.code))
        }
        None => None,
    };
    let files = metric_files(
        &spec.metrics,
        pods_metrics.into_iter().chain(objects),
        external,
        &mut diagnostics,
    );
    if pod_pages > 1 {
        notes.push(format!(
            "Live: {pod_count} pods listed in {pod_pages} pages of {PAGE_SIZE}."
        ));
    }
    let (captured_at, clock) = dated(api);
    Ok(Capture {
        namespace: namespace.to_string(),
        hpa,
        scale,
        target_object: Some(object),
        scale_parsed: Some(scale_parsed),
        pods: Some(pods),
        target: format!("{}/{}", spec.target.kind, spec.target.name),
        scale_path,
        pod_count,
        pod_pages,
        metrics,
        metric_files: files,
        events,
        events_from,
        nodes,
        karpenter,
        diagnostics,
        notes,
        captured_at,
        clock,
        server_version,
    })
}

/// When the capture was taken: the API server's clock at its last answer, else this machine's.
fn dated(api: &Api) -> (Timestamp, Clock) {
    match api.server_time() {
        Some(t) => (t, Clock::Server),
        None => (
            Timestamp(jiff::Timestamp::now().as_millisecond()),
            Clock::Local,
        ),
    }
}

/// A capture whose scale read failed: the HPA, its events, and the API's answer to the read.
struct Stopped<'a> {
    namespace: &'a str,
    hpa: String,
    target: &'a ObjectReference,
    scale_path: String,
    status: String,
    events: (String, &'static str),
    server_version: Option<String>,
}

impl Stopped<'_> {
    // Port of reconcileAutoscaler (horizontal.go): a failed scale read sets AbleToScale False
    // (FailedGetScale) and returns; no pod or metric is read.
    fn capture(self, api: &Api, save_pods: Option<std::fs::File>) -> Result<Capture, LiveError> {
        if let Some(mut file) = save_pods {
            // No pod is read: the capture's pods file is an empty list.
            let empty = "{\"kind\":\"List\",\"apiVersion\":\"v1\",\"metadata\":{},\"items\":[]}\n";
            std::io::Write::write_all(&mut file, empty.as_bytes())
                .map_err(|e| LiveError(format!("cannot write the capture's {PODS_FILE}: {e}")))?;
        }
        let (captured_at, clock) = dated(api);
        Ok(Capture {
            namespace: self.namespace.to_string(),
            hpa: self.hpa,
            scale: self.status,
            target_object: None,
            scale_parsed: None,
            pods: None,
            target: format!("{}/{}", self.target.kind, self.target.name),
            scale_path: self.scale_path,
            pod_count: 0,
            pod_pages: 0,
            metrics: None,
            metric_files: MetricFiles::default(),
            events: self.events.0,
            events_from: self.events.1,
            nodes: None,
            karpenter: None,
            diagnostics: Vec::new(),
            notes: Vec::new(),
            captured_at,
            clock,
            server_version: self.server_version,
        })
    }
}

/// `/version`: the server's release, whose controller rules apply. Any failure leaves it
/// unknown, and the caller says which version it used instead.
pub(super) async fn server_version(api: &Api) -> Option<String> {
    let req = Request {
        path: "/version".into(),
        verb: "get",
        group: String::new(),
        resource: "version".into(),
        namespace: None,
    };
    answer::git_version(&api.get(&req).await.ok()?.ok()?)
}

/// The HPA, as `autoscaling/v2` serves it, and its spec.
async fn read_hpa(
    api: &Api,
    namespace: &str,
    name: &str,
) -> Result<(String, crate::scenario::HpaSpec), LiveError> {
    let hpa_req = Request {
        path: format!(
            "/apis/autoscaling/v2/namespaces/{}/horizontalpodautoscalers/{}",
            enc(namespace),
            enc(name)
        ),
        verb: "get",
        group: "autoscaling".into(),
        resource: "horizontalpodautoscalers".into(),
        namespace: Some(namespace.into()),
    };
    let hpa = match api.get(&hpa_req).await? {
        Ok(text) => text,
        Err(r) if r.code == 404 => return Err(hpa_not_found(api, namespace, name).await),
        Err(r) => return Err(refused(api, &hpa_req, &r)),
    };
    let loaded = manifest::load(&format!("HPA {namespace}/{name} (live)"), &hpa, None)
        .map_err(|e| LiveError(e.to_string()))?;
    Ok((hpa, loaded.spec))
}

// Port of NewGenericServerResponse (apimachinery/pkg/api/errors/errors.go): the error client-go
// returns for an answer whose body is not a Status, for the codes a metrics API answers when it
// is not installed or not available; a Status body is reported as its message.
pub(super) fn client_error_message(r: &Refused, verb: &str, group_resource: &str) -> String {
    if r.status {
        return r.message.clone();
    }
    let message = match r.code {
        404 => "the server could not find the requested resource".to_string(),
        503 => "the server is currently unable to handle the request".to_string(),
        code if code >= 500 => format!(
            "an error on the server ({:?}) has prevented the request from succeeding",
            r.message
        ),
        code => format!(
            "the server responded with the status code {code} but did not return more information"
        ),
    };
    format!("{message} ({verb} {group_resource})")
}

/// A `Status` as the offline readers take an API's error answer.
pub(super) fn status_text(message: &str, code: u16) -> String {
    // A server's message is kept to what a report shows of it.
    let message = crate::error::cut(message, crate::error::MAX_MESSAGE_CHARS);
    serde_json::json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": message, "code": code,
    })
    .to_string()
}

/// The items of the answers, a diagnostic per query the API did not answer, and the first
/// error of the API itself (message and code).
/// The custom and external metrics APIs' answers for one HPA, as the files the offline readers
/// read (`--custom-metrics`, `--external-metrics`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MetricFiles {
    /// One `MetricValueList`, when the HPA has a Pods or Object metric.
    pub custom: Option<String>,
    /// One `ExternalMetricValueList`, when the HPA has an External metric.
    pub external: Option<String>,
    /// The APIs' error answers (a `Status`), when they failed: the metrics without a value fail
    /// with the client's error, as the controller's do.
    pub custom_error: Option<String>,
    pub external_error: Option<String>,
}

impl MetricFiles {
    /// (flag, file name, text) of each file, the text `None` when there is none.
    pub fn all(&self) -> [(&'static str, &'static str, Option<&String>); 4] {
        [
            (
                "--custom-metrics",
                "custom-metrics.json",
                self.custom.as_ref(),
            ),
            (
                "--external-metrics",
                "external-metrics.json",
                self.external.as_ref(),
            ),
            // The APIs' error answers, for the metrics without a value.
            (
                "--custom-metrics",
                "custom-metrics-error.json",
                self.custom_error.as_ref(),
            ),
            (
                "--external-metrics",
                "external-metrics-error.json",
                self.external_error.as_ref(),
            ),
        ]
    }

    /// (flag, file name, text) of each file there is.
    pub fn files(&self) -> impl Iterator<Item = (&'static str, &'static str, &String)> {
        (self.all().into_iter()).filter_map(|(flag, file, text)| text.map(|t| (flag, file, t)))
    }
}

/// The files of the answers; a metrics API that did not answer is a diagnostic.
fn metric_files(
    specs: &[MetricSpec],
    custom: impl IntoIterator<Item = MetricAnswer>,
    external: Vec<MetricAnswer>,
    diagnostics: &mut Vec<Diagnostic>,
) -> MetricFiles {
    let (custom_items, custom_error) = gather(
        custom,
        diagnostics,
        "check the custom metrics adapter: `kubectl get apiservice \
         v1beta2.custom.metrics.k8s.io` and that it serves this metric",
    );
    let (external_items, external_error) = gather(
        external,
        diagnostics,
        "check the external metrics adapter (KEDA's metrics server, for one): `kubectl get \
         apiservice v1beta1.external.metrics.k8s.io`",
    );
    let has = |pred: fn(&MetricSpec) -> bool| specs.iter().any(pred);
    MetricFiles {
        custom: has(|m| matches!(m, MetricSpec::Pods { .. } | MetricSpec::Object { .. })).then(
            || {
                list_text(
                    "MetricValueList",
                    "custom.metrics.k8s.io/v1beta2",
                    &custom_items,
                )
            },
        ),
        external: has(|m| matches!(m, MetricSpec::External { .. })).then(|| {
            list_text(
                "ExternalMetricValueList",
                "external.metrics.k8s.io/v1beta1",
                &external_items,
            )
        }),
        custom_error: custom_error.map(|(message, code)| status_text(&message, code)),
        external_error: external_error.map(|(message, code)| status_text(&message, code)),
    }
}

/// The custom and external metrics of one HPA whose target's selector is `selector` (the Pods
/// metrics need it), read as `capture` reads them, with the diagnostics of the APIs that did not
/// answer. For the live audit: every HPA's next sync reads these besides the dump.
pub(super) async fn hpa_metric_files(
    api: &Api,
    namespace: &str,
    selector: Option<&str>,
    specs: &[MetricSpec],
) -> Result<(MetricFiles, Vec<Diagnostic>), LiveError> {
    let (pods, objects, external) = tokio::join!(
        async {
            match selector {
                Some(selector) => pods_custom_metrics(api, namespace, selector, specs).await,
                None => Ok(Vec::new()),
            }
        },
        object_metrics(api, namespace, specs),
        external_metrics(api, namespace, specs),
    );
    let mut diagnostics = Vec::new();
    let files = metric_files(
        specs,
        pods?.into_iter().chain(objects?),
        external?,
        &mut diagnostics,
    );
    Ok((files, diagnostics))
}

fn gather(
    answers: impl IntoIterator<Item = MetricAnswer>,
    diagnostics: &mut Vec<Diagnostic>,
    fix: &str,
) -> (Vec<Box<RawValue>>, Option<(String, u16)>) {
    let mut items = Vec::new();
    let mut error = None;
    for answer in answers {
        match answer {
            MetricAnswer::Items(more) => items.extend(more),
            MetricAnswer::Unavailable(u) => {
                diagnostics.push(unavailable_diagnostic(&u.what, &u.refused, fix));
                if let Some(message) = u.message {
                    error.get_or_insert((message, u.refused.code));
                }
            }
        }
    }
    (items, error)
}

fn unavailable_diagnostic(what: &str, r: &Refused, fix: &str) -> Diagnostic {
    let state = if r.code == 404 {
        "is not installed (404)".to_string()
    } else {
        format!("is not available ({})", r.code)
    };
    Diagnostic::new(
        "MetricsApiUnavailable",
        Severity::Error,
        format!(
            "The {what} {state}: {}. The controller's metrics that read it fail; the others \
             still count.",
            r.message
        ),
        fix,
    )
}

/// The HPA is not there: say which HPAs the namespace has, when listing them is allowed.
async fn hpa_not_found(api: &Api, namespace: &str, name: &str) -> LiveError {
    let req = Request {
        path: format!(
            "/apis/autoscaling/v2/namespaces/{}/horizontalpodautoscalers",
            enc(namespace)
        ),
        verb: "list",
        group: "autoscaling".into(),
        resource: "horizontalpodautoscalers".into(),
        namespace: Some(namespace.into()),
    };
    let others = match api.get(&req).await {
        Ok(Ok(text)) => match answer::names(&text) {
            Some(names) if names.is_empty() => "it has none".to_string(),
            Some(names) => format!("its HPAs: {}", name_list(&names, 10)),
            None => "its HPAs could not be read".to_string(),
        },
        Ok(Err(r)) if r.code == 403 => "listing its HPAs is forbidden".to_string(),
        Ok(Err(r)) => format!(
            "listing its HPAs failed: {} {}",
            r.code,
            crate::error::quoted_bare(&r.message)
        ),
        Err(e) => format!("listing its HPAs failed: {e}"),
    };
    LiveError(format!(
        "HorizontalPodAutoscaler {} not found in namespace {} of {} ({others})",
        crate::error::quoted(name),
        crate::error::quoted_bare(namespace),
        api.server
    ))
}

/// An answer other than 2xx, 404 and 503, as one line a person can act on.
pub fn refused(api: &Api, req: &Request, r: &Refused) -> LiveError {
    let resource = if req.group.is_empty() {
        req.resource.clone()
    } else {
        format!("{}.{}", req.resource, req.group)
    };
    let scope = req
        .namespace
        .as_deref()
        .map_or("cluster-wide".to_string(), |ns| {
            format!("in namespace {ns}")
        });
    // What the server says is its own text: quoted, cut, never sent to the terminal raw.
    let message = crate::error::quoted_bare(&r.message);
    match r.code {
        401 => LiveError(format!(
            "the API server {} refused the credentials of context {} (401 Unauthorized: \
             {message}): log in again or renew the token",
            api.server, api.context
        )),
        403 => LiveError(format!(
            "forbidden (403): cannot {} {resource} {scope} on {} (context {}): {message}; a Role \
             or ClusterRole bound to you with the rule {{apiGroups: [\"{}\"], resources: \
             [\"{}\"], verbs: [\"{}\"]}} allows it (`hpacalc rbac` prints every rule live mode \
             needs)",
            req.verb, api.server, api.context, req.group, req.resource, req.verb
        )),
        code => LiveError(format!(
            "the API server {} answered {} {} with {code}: {message}",
            api.server,
            req.verb.to_uppercase(),
            crate::error::quoted_bare(&req.path),
        )),
    }
}

/// `/apis/GROUP/VERSION` or `/api/v1`.
pub(super) fn group_version_path(api_version: &str) -> String {
    if api_version.contains('/') {
        format!("/apis/{api_version}")
    } else {
        format!("/api/{api_version}")
    }
}

/// The resource of a kind in one group version, from discovery: (plural name, has `/scale`).
pub(super) async fn discover(
    api: &Api,
    api_version: &str,
    kind: &str,
) -> Result<Option<(String, bool)>, LiveError> {
    let req = Request {
        path: group_version_path(api_version),
        verb: "get",
        group: String::new(),
        resource: format!("discovery {api_version}"),
        namespace: None,
    };
    let text = match api.get(&req).await? {
        Ok(text) => text,
        Err(r) if r.code == 404 => return Ok(None),
        Err(r) if r.code == 403 => {
            return Err(LiveError(format!(
                "forbidden (403): cannot get the discovery document {} on {} (context {}): {}; \
                 the rule {{nonResourceURLs: [\"/api\", \"/api/*\", \"/apis\", \"/apis/*\"], \
                 verbs: [\"get\"]}} allows it (every authenticated user has it through \
                 system:discovery unless it was removed)",
                req.path,
                api.server,
                api.context,
                crate::error::quoted_bare(&r.message)
            )));
        }
        Err(r) => return Err(refused(api, &req, &r)),
    };
    answer::resource_of(&text, kind).map_err(|e| unreadable(api, &req, "an APIResourceList", &e))
}

/// An answer of the API server that is not the document asked for.
fn unreadable(api: &Api, req: &Request, expected: &str, e: &serde_json::Error) -> LiveError {
    LiveError(format!(
        "the API server {} answered GET {} with a document that is not {expected}: {e}",
        api.server,
        crate::error::quoted_bare(&req.path)
    ))
}

pub(super) fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

// Port of the scale read of reconcileAutoscaler (horizontal.go): the RESTMapper names the
// target's resource, then scaleNamespacer.Get reads its scale subresource. The object itself is
// read too, as `kubectl get KIND NAME -o json` prints it: what `--target` reads offline. A kind
// the API does not serve (RESTMappings' NoKindMatchError), a kind without `/scale` and a scale
// read answered 404 are the controller's FailedGetScale, with the error's text, as `audit`
// reads them (`scales::read`): an answer, not a failure of hpacalc.
async fn read_scale(
    api: &Api,
    namespace: &str,
    target: &ObjectReference,
) -> Result<TargetRead, LiveError> {
    let failed = |scale_path: String, message: &str| TargetRead::Failed {
        scale_path,
        status: status_text(message, 404),
    };
    let Some((resource, has_scale)) = discover(api, &target.api_version, &target.kind).await?
    else {
        let group = group_of(&target.api_version);
        let kind = &target.kind;
        let message = format!("no matches for kind \"{kind}\" in group \"{group}\"");
        return Ok(failed(String::new(), &message));
    };
    let req = Request {
        path: format!(
            "{}/namespaces/{}/{resource}/{}/scale",
            group_version_path(&target.api_version),
            enc(namespace),
            enc(&target.name)
        ),
        verb: "get",
        group: group_of(&target.api_version).to_string(),
        resource: format!("{resource}/scale"),
        namespace: Some(namespace.into()),
    };
    if !has_scale {
        // The API server answers a path it does not serve with a bare 404.
        let message = "the server could not find the requested resource";
        return Ok(failed(req.path, message));
    }
    // The object itself, for its owners and rollout state (`--target`), read with its scale.
    let object_req = Request {
        path: req.path.trim_end_matches("/scale").to_string(),
        verb: "get",
        group: req.group.clone(),
        resource,
        namespace: req.namespace.clone(),
    };
    let (scale, object) = tokio::join!(api.get(&req), api.get(&object_req));
    let scale = match scale? {
        Ok(text) => text,
        Err(r) if r.code == 404 => {
            let group_resource = match req.group.as_str() {
                "" => req.resource.clone(),
                group => format!("{}.{group}", req.resource),
            };
            let message = client_error_message(&r, "get", &group_resource);
            return Ok(failed(req.path, &message));
        }
        Err(r) => return Err(refused(api, &req, &r)),
    };
    let object = match object? {
        Ok(text) => text,
        Err(r) if r.code == 404 => {
            return Err(LiveError(format!(
                "the target {}/{} of the HPA answered its scale read, then GET {} answered \
                 {}: it was deleted between the two reads; run again",
                target.kind,
                target.name,
                object_req.path,
                crate::error::quoted(&r.message)
            )));
        }
        Err(r) => return Err(refused(api, &object_req, &r)),
    };
    Ok(TargetRead::Read {
        scale_path: req.path,
        scale,
        object,
    })
}

/// The target's scale subresource and the target object, as served; or the API's error answer
/// to the scale read (a `Status`), where the controller's sync stops.
enum TargetRead {
    Read {
        scale_path: String,
        scale: String,
        object: String,
    },
    Failed {
        scale_path: String,
        status: String,
    },
}

/// One `List` text of the given items.
fn list_text(kind: &str, api_version: &str, items: &[Box<RawValue>]) -> String {
    let mut out = format!(
        "{{\"kind\":\"{kind}\",\"apiVersion\":\"{api_version}\",\"metadata\":{{}},\"items\":["
    );
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(item.get());
    }
    out.push_str("]}\n");
    out
}

/// A paged list (`limit`/`continue`) as one `List` text of every page's items.
async fn list_all(api: &Api, req: &Request) -> Result<String, LiveError> {
    let mut text = CappedText(Vec::new());
    list_pages(api, req, Some(&mut text), |_| Ok(())).await?;
    String::from_utf8(text.0).map_err(|e| {
        LiveError(format!(
            "the API server {} answered GET {} with text that is not UTF-8: {e}",
            api.server,
            crate::error::quoted_bare(&req.path)
        ))
    })
}

/// A list's text in memory, at most the input size limit however many pages it takes.
struct CappedText(Vec<u8>);

impl std::io::Write for CappedText {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let cap = usize::try_from(crate::input::read::MAX_INPUT_BYTES).unwrap_or(usize::MAX);
        if self.0.len().saturating_add(bytes.len()) > cap {
            return Err(std::io::Error::other(format!(
                "the list holds more than {cap} bytes ({} MiB, the input size limit)",
                cap / (1024 * 1024)
            )));
        }
        self.0.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A paged list, each page handed to `read` as it arrives and, with `out`, written there as
/// one `List` of every page's items: (items, pages).
pub(super) async fn list_pages(
    api: &Api,
    req: &Request,
    out: Option<&mut (dyn std::io::Write + Send)>,
    read: impl FnMut(&str) -> Result<(), LiveError>,
) -> Result<(usize, usize), LiveError> {
    match list_pages_or_refused(api, req, out, read).await? {
        Ok(counts) => Ok(counts),
        Err((page_req, r)) => Err(refused(api, &page_req, &r)),
    }
}

/// `list_pages`, with the API's refusal of a page (and that page's request) as an answer of its
/// own, for the caller that can go on without the list.
pub(super) async fn list_pages_or_refused(
    api: &Api,
    req: &Request,
    mut out: Option<&mut (dyn std::io::Write + Send)>,
    mut read: impl FnMut(&str) -> Result<(), LiveError>,
) -> Result<Result<(usize, usize), (Request, Refused)>, LiveError> {
    let cannot =
        |e: std::io::Error| LiveError(format!("cannot write the list of {}: {e}", req.path));
    if let Some(out) = &mut out {
        out.write_all(b"{\"kind\":\"List\",\"apiVersion\":\"v1\",\"metadata\":{},\"items\":[")
            .map_err(cannot)?;
    }
    let mut count = 0;
    let mut pages = 0;
    let mut bytes = 0usize;
    let (max_pages, max_items, max_bytes) = list_limits(req);
    let mut next: Option<String> = None;
    let mut tokens: std::collections::HashSet<String> = std::collections::HashSet::new();
    let separator = if req.path.contains('?') { '&' } else { '?' };
    let endless = |why: String| {
        LiveError(format!(
            "the API server {} answered the list {} {why}: the list would never end",
            api.server,
            crate::error::quoted_bare(&req.path)
        ))
    };
    loop {
        let mut page_req = req.clone();
        page_req.path = format!("{}{separator}limit={PAGE_SIZE}", req.path);
        if let Some(token) = &next {
            page_req.path.push_str(&format!("&continue={}", enc(token)));
        }
        let text = match api.get(&page_req).await? {
            Ok(text) => text,
            Err(r) => return Ok(Err((page_req, r))),
        };
        let page = Page::parse(&text).map_err(|e| unreadable(api, &page_req, "a list", &e))?;
        pages += 1;
        bytes = bytes.saturating_add(text.len());
        for item in page.items() {
            if let Some(out) = &mut out {
                if count > 0 {
                    out.write_all(b",").map_err(cannot)?;
                }
                out.write_all(item.get().as_bytes()).map_err(cannot)?;
            }
            count += 1;
        }
        next = page.next().map(str::to_string);
        read(&text)?;
        let Some(token) = &next else {
            break;
        };
        if !tokens.insert(token.clone()) {
            return Err(endless(format!(
                "with the continue token of an earlier page again (page {})",
                pages + 1
            )));
        }
        if pages >= max_pages {
            return Err(endless(format!("with more than {max_pages} pages")));
        }
        if count >= max_items {
            return Err(endless(format!(
                "with more than {max_items} {} in {pages} pages",
                req.resource
            )));
        }
        if bytes >= max_bytes {
            return Err(endless(format!(
                "with more than {max_bytes} bytes in {pages} pages"
            )));
        }
    }
    if let Some(out) = &mut out {
        out.write_all(b"]}\n").map_err(cannot)?;
        out.flush().map_err(cannot)?;
    }
    Ok(Ok((count, pages)))
}

/// How the pods are read: the offline reader's scope and target, and the file to save them to.
struct PodsRead<'a> {
    scope: &'a Scope,
    target: &'a ObjectReference,
    save: Option<std::fs::File>,
}

/// The pods of the selector, page after page, read into the offline reader's pods as they arrive
/// (and, when saving, written as one `List`): (pods, pages).
async fn list_pods(
    api: &Api,
    namespace: &str,
    selector: &str,
    how: PodsRead<'_>,
) -> Result<(CapturedPods, usize), LiveError> {
    let req = Request {
        path: format!(
            "/api/v1/namespaces/{}/pods?labelSelector={}",
            enc(namespace),
            enc(selector)
        ),
        verb: "list",
        group: String::new(),
        resource: "pods".into(),
        namespace: Some(namespace.into()),
    };
    let mut saved = how.save.map(std::io::BufWriter::new);
    let out = saved
        .as_mut()
        .map(|w| w as &mut (dyn std::io::Write + Send));
    let mut pages = Pages::new(PODS_FILE, how.scope, how.target);
    let (_, count) = list_pages(api, &req, out, |text| {
        pages.page(text).map_err(|e| {
            LiveError(format!(
                "the API server {} answered GET {} with a pod list hpacalc cannot read: {e}",
                api.server, req.path
            ))
        })
    })
    .await?;
    let pods = pages.finish().map_err(|e| LiveError(e.to_string()))?;
    Ok((pods, count))
}

/// The HPA's events into `file`, as `kubectl get events --field-selector` lists them:
/// events.k8s.io/v1 when the server serves it, else core/v1. Returns the group version read.
// Port of the event lookup of `kubectl describe hpa` (describe.go, searchEvents): the events
// whose involved object is the HPA, by kind and name in its namespace.
async fn list_events(
    api: &Api,
    namespace: &str,
    name: &str,
) -> Result<(String, &'static str), LiveError> {
    let (version, prefix, field) = match discover(api, "events.k8s.io/v1", "Event").await? {
        Some(_) => ("events.k8s.io/v1", "/apis/events.k8s.io/v1", "regarding"),
        None => ("v1", "/api/v1", "involvedObject"),
    };
    let selector = format!("{field}.kind=HorizontalPodAutoscaler,{field}.name={name}");
    let req = Request {
        path: format!(
            "{prefix}/namespaces/{}/events?fieldSelector={}",
            enc(namespace),
            enc(&selector)
        ),
        verb: "list",
        group: group_of(version).to_string(),
        resource: "events".into(),
        namespace: Some(namespace.into()),
    };
    Ok((list_all(api, &req).await?, version))
}

/// `--nodes-from-cluster`: every node and every pod of the cluster, as `kubectl get nodes -o
/// json` and `kubectl get pods -A -o json` print them.
async fn cluster_nodes(api: &Api) -> Result<(String, String), LiveError> {
    let cluster = |path: &str, resource: &str| Request {
        path: path.to_string(),
        verb: "list",
        group: String::new(),
        resource: resource.to_string(),
        namespace: None,
    };
    let (nodes_req, pods_req) = (
        cluster("/api/v1/nodes", "nodes"),
        cluster("/api/v1/pods", "pods"),
    );
    let (nodes, pods) = tokio::join!(list_all(api, &nodes_req), list_all(api, &pods_req));
    Ok((nodes?, pods?))
}

/// The nodes, the pods and Karpenter's objects (`--nodes-from-cluster`).
type ClusterView = ((String, String), Option<(String, Option<String>)>);

/// `--nodes-from-cluster`: the cluster's nodes and pods, and Karpenter's objects where the API
/// serves them; `None` without the flag.
async fn cluster_view(api: &Api, with_nodes: bool) -> Result<Option<ClusterView>, LiveError> {
    if !with_nodes {
        return Ok(None);
    }
    let (nodes, karpenter) = tokio::join!(cluster_nodes(api), karpenter_objects(api));
    Ok(Some((nodes?, karpenter?)))
}

/// Whether a `List` answer holds no item.
fn no_items(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v.get("items").and_then(|i| i.as_array()).map(Vec::is_empty))
        .unwrap_or(true)
}

/// `--nodes-from-cluster`: Karpenter's NodePools (`karpenter.sh/v1`) and the AWS provider's
/// EC2NodeClasses (`karpenter.k8s.aws/v1`), as `kubectl get nodepools -o json` prints them.
/// Discovery says whether the API serves them: a cluster without Karpenter (or without a
/// NodePool) has no Karpenter model, and that is no error.
async fn karpenter_objects(api: &Api) -> Result<Option<(String, Option<String>)>, LiveError> {
    let list = |group: &str, resource: String| Request {
        path: format!("/apis/{group}/v1/{resource}"),
        verb: "list",
        group: group.to_string(),
        resource,
        namespace: None,
    };
    let Some((pools, _)) = discover(api, "karpenter.sh/v1", "NodePool").await? else {
        return Ok(None);
    };
    let node_pools = list_all(api, &list("karpenter.sh", pools)).await?;
    if no_items(&node_pools) {
        return Ok(None);
    }
    let classes = match discover(api, "karpenter.k8s.aws/v1", "EC2NodeClass").await? {
        Some((resource, _)) => {
            let text = list_all(api, &list("karpenter.k8s.aws", resource)).await?;
            (!no_items(&text)).then_some(text)
        }
        None => None,
    };
    Ok(Some((node_pools, classes)))
}

/// The resource metrics API for the selector's pods; `Err` when the API is absent or unavailable.
// Port of resourceMetricsClient.GetResourceMetric (metrics/client.go): one list of PodMetrics
// for the namespace and selector.
async fn pod_metrics(
    api: &Api,
    namespace: &str,
    selector: &str,
) -> Result<Result<String, Refused>, LiveError> {
    let req = Request {
        path: format!(
            "/apis/metrics.k8s.io/v1beta1/namespaces/{}/pods?labelSelector={}",
            enc(namespace),
            enc(selector)
        ),
        verb: "list",
        group: "metrics.k8s.io".into(),
        resource: "pods".into(),
        namespace: Some(namespace.into()),
    };
    match api.get(&req).await? {
        Ok(text) => Ok(Ok(text)),
        Err(r) if unavailable(&r) => Ok(Err(r)),
        Err(r) => Err(refused(api, &req, &r)),
    }
}

/// A metrics API that is not installed (404) or not available (503) answers no values.
pub(super) fn unavailable(r: &Refused) -> bool {
    matches!(r.code, 404 | 503)
}

/// One metrics query's outcome: its items, or why the API gave none.
enum MetricAnswer {
    Items(Vec<Box<RawValue>>),
    Unavailable(Unanswered),
}

/// A metrics query the API did not answer.
struct Unanswered {
    /// The API and metric, for the diagnostic.
    what: String,
    refused: Refused,
    /// The error the controller's metrics client returns for it, when the API itself failed.
    message: Option<String>,
}

fn metric_selector(metric: &MetricIdentifier) -> Option<String> {
    metric.selector.as_ref().filter(|s| !s.is_empty()).map(|s| {
        s.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    })
}

/// GET a custom metrics path under v1beta2, then v1beta1 when v1beta2 is not served.
/// `resource` and `name` are what the client's request names (`pods` and `*`, or
/// `deployments.apps` and the object's name), for its error message.
async fn custom_get(
    api: &Api,
    namespace: &str,
    tail: &str,
    what: String,
    (resource, name): (&str, &str),
) -> Result<MetricAnswer, LiveError> {
    let mut last = None;
    for version in ["v1beta2", "v1beta1"] {
        let req = Request {
            path: format!("/apis/custom.metrics.k8s.io/{version}/namespaces/{tail}"),
            verb: "get",
            group: "custom.metrics.k8s.io".into(),
            resource: "*".into(),
            namespace: Some(namespace.into()),
        };
        match api.get(&req).await? {
            Ok(text) => {
                // v1beta1 answers an Object metric with one MetricValue, not a list.
                let items = answer::metric_items(&text)
                    .map_err(|e| unreadable(api, &req, "a metric value (list)", &e))?;
                return Ok(MetricAnswer::Items(items));
            }
            // A version that is served but unavailable says more than one that is not served.
            Err(r) if unavailable(&r) => {
                if last
                    .as_ref()
                    .is_none_or(|l: &Refused| l.code == 404 && !l.status)
                {
                    last = Some(r);
                }
            }
            Err(r) => return Err(refused(api, &req, &r)),
        }
    }
    let refused = last.unwrap_or(Refused {
        code: 404,
        message: String::new(),
        status: false,
    });
    // Port of apiVersionsFromDiscovery.fetchVersions (custom_metrics/discovery.go): neither
    // version served is the group missing from discovery.
    let message = if refused.code == 404 && !refused.status {
        "no custom metrics API (custom.metrics.k8s.io) registered".to_string()
    } else {
        client_error_message(
            &refused,
            "get",
            &format!("{resource}.custom.metrics.k8s.io {name}"),
        )
    };
    Ok(MetricAnswer::Unavailable(Unanswered {
        what,
        refused,
        message: Some(message),
    }))
}

// Port of customMetricsClient.GetRawMetric (metrics/client.go): the metric for every pod of the
// selector, `pods/*/METRIC?labelSelector=...`.
async fn pods_custom_metrics(
    api: &Api,
    namespace: &str,
    selector: &str,
    specs: &[MetricSpec],
) -> Result<Vec<MetricAnswer>, LiveError> {
    let mut out = Vec::new();
    let pods: Vec<&MetricIdentifier> = (specs.iter())
        .filter_map(|s| match s {
            MetricSpec::Pods { metric, .. } => Some(metric),
            _ => None,
        })
        .collect();
    let mut asked: Vec<(&str, Option<String>)> = Vec::new();
    for metric in pods.iter().copied() {
        let ms = metric_selector(metric);
        // Entries asking the same question read the same answer: asked once (the reader gives
        // every entry of that name and selector its values).
        if asked.contains(&(metric.name.as_str(), ms.clone())) {
            continue;
        }
        asked.push((metric.name.as_str(), ms.clone()));
        let mut tail = format!(
            "{}/pods/*/{}?labelSelector={}",
            enc(namespace),
            enc(&metric.name),
            enc(selector)
        );
        if let Some(ms) = &ms {
            tail.push_str(&format!("&metricLabelSelector={}", enc(ms)));
        }
        let what = format!("custom metrics API (Pods metric {})", metric.name);
        let answer = custom_get(api, namespace, &tail, what, ("pods", "*")).await?;
        // Another entry of this name with another selector: each answer says which selector it
        // answers, so each entry keeps its own values.
        let shared = (pods.iter()).any(|m| m.name == metric.name && m.selector != metric.selector);
        out.push(if shared {
            stamped(answer, metric)
        } else {
            answer
        });
    }
    Ok(out)
}

// Port of customMetricsClient.GetRawMetric (metrics/client.go): the controller asks once per
// entry with that entry's metric selector, so the answer is that selector's.
/// The answer with each item that does not say its metric selector given the one it was asked
/// with (`metric.selector.matchLabels`, as a v1beta2 adapter echoes it), for the reader of
/// `--custom-metrics`, which gives an item to the entries of its name and selector.
fn stamped(answer: MetricAnswer, metric: &MetricIdentifier) -> MetricAnswer {
    let MetricAnswer::Items(items) = answer else {
        return answer;
    };
    let labels = metric.selector.clone().unwrap_or_default();
    let items = (items.into_iter())
        .map(|item| {
            let Ok(mut value) = serde_json::from_str::<serde_json::Value>(item.get()) else {
                return item;
            };
            let says = |v: &serde_json::Value| !v.is_null();
            let top = value.get("selector").is_some_and(says);
            let inner = (value.get("metric").and_then(|m| m.get("selector"))).is_some_and(says);
            if top || inner {
                return item;
            }
            let Some(object) = value.as_object_mut() else {
                return item;
            };
            let id = (object.entry("metric")).or_insert_with(|| serde_json::json!({}));
            if let Some(id) = id.as_object_mut() {
                id.insert(
                    "selector".to_string(),
                    serde_json::json!({ "matchLabels": labels }),
                );
            }
            serde_json::value::to_raw_value(&value).unwrap_or(item)
        })
        .collect();
    MetricAnswer::Items(items)
}

// Port of customMetricsClient.GetObjectMetric (metrics/client.go): the RESTMapper names the
// described object's resource, then `RESOURCE.GROUP/NAME/METRIC`.
async fn object_metrics(
    api: &Api,
    namespace: &str,
    specs: &[MetricSpec],
) -> Result<Vec<MetricAnswer>, LiveError> {
    let mut out = Vec::new();
    for spec in specs {
        let MetricSpec::Object {
            described_object,
            metric,
            ..
        } = spec
        else {
            continue;
        };
        let what = format!("custom metrics API (Object metric {})", metric.name);
        let Some((resource, _)) =
            discover(api, &described_object.api_version, &described_object.kind).await?
        else {
            // The object's kind is unknown: not the metrics API's failure.
            out.push(MetricAnswer::Unavailable(Unanswered {
                what,
                refused: Refused {
                    code: 404,
                    message: format!(
                        "no kind {} in {}",
                        described_object.kind, described_object.api_version
                    ),
                    status: true,
                },
                message: None,
            }));
            continue;
        };
        let group = group_of(&described_object.api_version);
        let group_resource = if group.is_empty() {
            resource
        } else {
            format!("{resource}.{group}")
        };
        let named = (group_resource.as_str(), described_object.name.as_str());
        let mut tail = format!(
            "{}/{group_resource}/{}/{}",
            enc(namespace),
            enc(&described_object.name),
            enc(&metric.name)
        );
        if let Some(ms) = metric_selector(metric) {
            tail.push_str(&format!("?metricLabelSelector={}", enc(&ms)));
        }
        out.push(custom_get(api, namespace, &tail, what, named).await?);
    }
    Ok(out)
}

// Port of externalMetricsClient.GetExternalMetric (metrics/client.go): the metric in the HPA's
// namespace with the metric's selector.
async fn external_metrics(
    api: &Api,
    namespace: &str,
    specs: &[MetricSpec],
) -> Result<Vec<MetricAnswer>, LiveError> {
    let mut out = Vec::new();
    for spec in specs {
        let MetricSpec::External { metric, .. } = spec else {
            continue;
        };
        let mut path = format!(
            "/apis/external.metrics.k8s.io/v1beta1/namespaces/{}/{}",
            enc(namespace),
            enc(&metric.name)
        );
        if let Some(ms) = metric_selector(metric) {
            path.push_str(&format!("?labelSelector={}", enc(&ms)));
        }
        let req = Request {
            path,
            verb: "get",
            group: "external.metrics.k8s.io".into(),
            resource: metric.name.clone(),
            namespace: Some(namespace.into()),
        };
        let what = format!("external metrics API (External metric {})", metric.name);
        out.push(match api.get(&req).await? {
            Ok(text) => MetricAnswer::Items(
                answer::metric_items(&text)
                    .map_err(|e| unreadable(api, &req, "a metric value list", &e))?,
            ),
            Err(r) if unavailable(&r) => MetricAnswer::Unavailable(Unanswered {
                what,
                message: Some(client_error_message(
                    &r,
                    "get",
                    &format!("{}.external.metrics.k8s.io", metric.name),
                )),
                refused: r,
            }),
            Err(r) => return Err(refused(api, &req, &r)),
        });
    }
    Ok(out)
}

/// Percent-encodes a path segment or query value (RFC 3986 unreserved characters pass).
pub fn enc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'*' => {
                out.push(char::from(b));
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_are_percent_encoded_in_queries() {
        assert_eq!(
            enc("app=web,tier in (a,b)"),
            "app%3Dweb%2Ctier%20in%20%28a%2Cb%29"
        );
        assert_eq!(enc("web-1.x_y~*"), "web-1.x_y~*");
    }

    #[test]
    fn core_and_group_versions_have_their_discovery_paths() {
        assert_eq!(group_version_path("v1"), "/api/v1");
        assert_eq!(group_version_path("apps/v1"), "/apis/apps/v1");
        assert_eq!(group_of("argoproj.io/v1alpha1"), "argoproj.io");
        assert_eq!(group_of("v1"), "");
    }

    #[test]
    fn items_of_several_answers_make_one_list() {
        let a: Box<RawValue> = serde_json::from_str(r#"{"a":1}"#).unwrap();
        let b: Box<RawValue> = serde_json::from_str(r#"{"b":2}"#).unwrap();
        let text = list_text("List", "v1", &[a, b]);
        assert_eq!(
            text,
            "{\"kind\":\"List\",\"apiVersion\":\"v1\",\"metadata\":{},\"items\":[{\"a\":1},{\"b\":2}]}\n"
        );
    }

    #[test]
    fn an_answer_without_its_selector_is_given_the_one_it_was_asked_with() {
        let metric = MetricIdentifier {
            name: "rps".into(),
            selector: Some(
                [("path".to_string(), "/b".to_string())]
                    .into_iter()
                    .collect(),
            ),
        };
        let item = |text: &str| -> Box<RawValue> { serde_json::from_str(text).unwrap() };
        let answer = MetricAnswer::Items(vec![
            item(r#"{"metricName":"rps","value":"10","selector":null}"#),
            item(
                r#"{"metric":{"name":"rps","selector":{"matchLabels":{"path":"/a"}}},"value":"5"}"#,
            ),
        ]);
        let MetricAnswer::Items(items) = stamped(answer, &metric) else {
            panic!("items stay items");
        };
        let first: serde_json::Value = serde_json::from_str(items[0].get()).unwrap();
        assert_eq!(first["metric"]["selector"]["matchLabels"]["path"], "/b");
        assert_eq!(first["value"], "10");
        // An item that says its selector keeps it.
        assert_eq!(
            items[1].get(),
            r#"{"metric":{"name":"rps","selector":{"matchLabels":{"path":"/a"}}},"value":"5"}"#
        );
    }

    #[test]
    fn metric_selectors_are_label_selector_strings() {
        let metric = MetricIdentifier {
            name: "queue".into(),
            selector: Some(
                [("q".to_string(), "jobs".to_string())]
                    .into_iter()
                    .collect(),
            ),
        };
        assert_eq!(metric_selector(&metric).as_deref(), Some("q=jobs"));
    }

    #[test]
    fn answers_that_are_not_a_status_get_client_gos_message() {
        let plain = |code| Refused {
            code,
            message: "404 page not found".into(),
            status: false,
        };
        assert_eq!(
            client_error_message(&plain(404), "get", "pods.metrics.k8s.io"),
            "the server could not find the requested resource (get pods.metrics.k8s.io)"
        );
        assert_eq!(
            client_error_message(&plain(503), "get", "pods.metrics.k8s.io"),
            "the server is currently unable to handle the request (get pods.metrics.k8s.io)"
        );
        let status = Refused {
            code: 503,
            message: "service unavailable".into(),
            status: true,
        };
        assert_eq!(
            client_error_message(&status, "get", "x"),
            "service unavailable"
        );
    }

    #[test]
    fn unavailable_apis_are_404_and_503() {
        for (code, want) in [(404, true), (503, true), (403, false), (500, false)] {
            let r = Refused {
                code,
                message: String::new(),
                status: false,
            };
            assert_eq!(unavailable(&r), want, "{code}");
        }
    }
}
