//! `hpacalc audit -A` / `-n NS`: the cluster dump read from the API instead of files. Each list
//! is read page by page (`limit`/`continue`) into the same `Dump` the `--cluster` files fill, by
//! the same reader: the live audit is the offline audit of what was listed, by construction.

use std::collections::HashMap;

use super::LiveError;
use super::client::{Api, Request, Settings};
use super::fetch::{
    client_error_message, discover, enc, hpa_metric_files, list_pages_or_refused, refused,
    status_text, unavailable,
};
use crate::input::cluster::objects::LabelSelector;
use crate::input::cluster::{Dump, HpaFiles};
use crate::scenario::MetricSpec;
use crate::scenario::fleet::Unlisted;

/// One list the audit reads: where the API serves it, and the kind of its items.
pub(super) struct Listed {
    pub(super) api_version: &'static str,
    pub(super) resource: &'static str,
    pub(super) kind: &'static str,
    /// Served only where an add-on is installed (VPA, KEDA): skipped quietly when it is not.
    pub(super) optional: bool,
    /// For a list the audit can do without: what goes unchecked when the API refuses it (403),
    /// said in a finding; `None` when a refusal stops the audit.
    pub(super) unchecked: Option<&'static str>,
}

/// What `kubectl get hpa,deploy,sts,rs,rc,pods,pdb,vpa,scaledobject -A -o json` lists; `hpacalc
/// rbac` grants `list` on each.
pub(super) const LISTS: [Listed; 9] = [
    Listed::core(
        "autoscaling/v2",
        "horizontalpodautoscalers",
        "HorizontalPodAutoscaler",
    ),
    Listed::core("apps/v1", "deployments", "Deployment"),
    Listed::core("apps/v1", "statefulsets", "StatefulSet"),
    Listed::core("apps/v1", "replicasets", "ReplicaSet"),
    Listed::core("v1", "replicationcontrollers", "ReplicationController"),
    Listed::core("v1", "pods", "Pod"),
    Listed::core("policy/v1", "poddisruptionbudgets", "PodDisruptionBudget"),
    Listed::add_on(
        "autoscaling.k8s.io/v1",
        "verticalpodautoscalers",
        "VerticalPodAutoscaler",
        "HpaVpaConflict is not checked",
    ),
    Listed::add_on(
        "keda.sh/v1alpha1",
        "scaledobjects",
        "ScaledObject",
        "the HPAs KEDA made are evaluated as HPAs alone, without KEDA's step (activation, \
         cooldown, fallback)",
    ),
];

/// What goes unchecked without the HPAs' events.
const WITHOUT_EVENTS: &str = "every HPA is evaluated without its events, so without the scale \
                              history that stabilization windows and rate limits read";

impl Listed {
    const fn core(api_version: &'static str, resource: &'static str, kind: &'static str) -> Self {
        Listed {
            api_version,
            resource,
            kind,
            optional: false,
            unchecked: None,
        }
    }
    const fn add_on(
        api_version: &'static str,
        resource: &'static str,
        kind: &'static str,
        unchecked: &'static str,
    ) -> Self {
        Listed {
            optional: true,
            unchecked: Some(unchecked),
            ..Listed::core(api_version, resource, kind)
        }
    }
}

/// The list request of `resource` in `api_version`, in one namespace or all of them.
pub(super) fn list_request(api_version: &str, resource: &str, namespace: Option<&str>) -> Request {
    let base = match api_version.split_once('/') {
        Some(_) => format!("/apis/{api_version}"),
        None => format!("/api/{api_version}"),
    };
    let scope = namespace.map_or(String::new(), |ns| format!("/namespaces/{}", enc(ns)));
    Request {
        path: format!("{base}{scope}/{resource}"),
        verb: "list",
        group: api_version
            .split_once('/')
            .map_or("", |(g, _)| g)
            .to_string(),
        resource: resource.to_string(),
        namespace: namespace.map(str::to_string),
    }
}

/// Connects as kubectl does (`--kubeconfig`, `--context`, `--request-timeout`) and lists the
/// dump; `namespace` `None` is every namespace (`-A`).
pub fn read(settings: &Settings<'_>, namespace: Option<&str>) -> Result<Dump, LiveError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| LiveError(format!("cannot start the I/O runtime: {e}")))?;
    runtime.block_on(async {
        let api = Api::connect(settings).await?;
        dump(&api, namespace).await
    })
}

/// `read`, with `/version` read beside the lists: the release whose controller rules apply, as
/// one HPA's live run takes it (`Rules::Server`, unless `--kube-version` was given), set in
/// `given`. Answers the line that says which release applies when the server did not say its own
/// or it is outside the releases hpacalc knows.
pub fn read_with_rules(
    settings: &Settings<'_>,
    namespace: Option<&str>,
    rules: &super::Rules,
    given: &mut crate::input::Settings,
) -> anyhow::Result<(Dump, Option<String>)> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| LiveError(format!("cannot start the I/O runtime: {e}")))?;
    let (dump, version) = runtime.block_on(async {
        let api = Api::connect(settings).await?;
        let version = super::fetch::server_version(&api).await;
        Ok::<_, LiveError>((dump(&api, namespace).await?, version))
    })?;
    let line = super::server_rules(rules, version.as_deref(), given)?;
    // The server's own release says so in each HPA's kubeVersion: no line needed.
    Ok((dump, line.filter(|(_, _, own)| !own).map(|(_, l, _)| l)))
}

/// Every object the audit uses, in `namespace` or (with `None`) the whole cluster.
pub async fn dump(api: &Api, namespace: Option<&str>) -> Result<Dump, LiveError> {
    if let Some(ns) = namespace {
        super::path_segment("namespace", ns)?;
    }
    let mut dump = Dump::default();
    for list in &LISTS {
        if list.optional && discover(api, list.api_version, list.kind).await?.is_none() {
            continue;
        }
        let req = list_request(list.api_version, list.resource, namespace);
        read_list(api, &mut dump, &req, list).await?;
    }
    at_sync(api, &mut dump, namespace).await?;
    Ok(dump)
}

/// What is read anew at every sync, beside the lists: the HPAs' events, the PodMetrics, the
/// scale of each target of a kind no list holds (`scales`), and each HPA's custom and external
/// metrics (`hpacalc serve` watches the lists and reads these).
pub async fn at_sync(api: &Api, dump: &mut Dump, namespace: Option<&str>) -> Result<(), LiveError> {
    // The HPAs' events, each HPA's memory as for one HPA: events.k8s.io/v1 when served, else
    // core/v1, as `kubectl get events -A --field-selector involvedObject.kind=...` lists them.
    let (version, field) = match discover(api, "events.k8s.io/v1", "Event").await? {
        Some(_) => ("events.k8s.io/v1", "regarding"),
        None => ("v1", "involvedObject"),
    };
    let mut req = list_request(version, "events", namespace);
    req.path = format!(
        "{}?fieldSelector={}",
        req.path,
        enc(&format!("{field}.kind=HorizontalPodAutoscaler"))
    );
    let events = Listed {
        api_version: version,
        resource: "events",
        kind: "Event",
        optional: true,
        unchecked: Some(WITHOUT_EVENTS),
    };
    read_list(api, dump, &req, &events).await?;
    // Port of resourceMetricsClient.GetResourceMetric (metrics/client.go): one list of
    // PodMetrics, not paged; an API that is absent or unavailable is its error, as offline.
    let req = list_request("metrics.k8s.io/v1beta1", "pods", namespace);
    let text = match api.get(&req).await? {
        Ok(text) => text,
        Err(r) if unavailable(&r) => status_text(
            &client_error_message(&r, "get", "pods.metrics.k8s.io"),
            r.code,
        ),
        Err(r) => return Err(super::fetch::refused(api, &req, &r)),
    };
    dump.read_page(&req.path, "PodMetrics", "", &text)
        .map_err(|e| LiveError(format!("the API server {} answered: {e}", api.server)))?;
    // The targets of other kinds, through their scale: the Pods metrics below read with their
    // selectors.
    super::scales::read(api, dump).await?;
    read_metric_files(api, dump).await
}

/// The custom and external metrics of each HPA that has Pods, Object or External metrics, read as
/// for one HPA (`fetch::hpa_metric_files`): the Pods metrics with the selector of the target in
/// the dump. An HPA whose manifest does not load is left to the audit's own finding.
async fn read_metric_files(api: &Api, dump: &mut Dump) -> Result<(), LiveError> {
    let selectors: HashMap<(&str, &str, &str), &LabelSelector> = (dump.workloads.iter())
        .filter_map(|w| {
            let m = &w.metadata;
            let key = (m.namespace.as_str(), w.kind.as_str(), m.name.as_str());
            Some((key, w.spec.selector.as_ref()?))
        })
        .collect();
    let mut wanted = Vec::new();
    for h in &dump.hpas {
        let Ok(loaded) = crate::input::manifest::load(&h.place, &h.text, None) else {
            continue;
        };
        let metrics = loaded.spec.metrics;
        let reads_apis = metrics.iter().any(|m| {
            matches!(
                m,
                MetricSpec::Pods { .. } | MetricSpec::Object { .. } | MetricSpec::External { .. }
            )
        });
        if !reads_apis {
            continue;
        }
        let meta = &h.head.metadata;
        // A namespace no API server holds (`..`, from a server gone wrong) is not put in a path.
        if super::path_segment("namespace", &meta.namespace).is_err() {
            continue;
        }
        let r = &h.head.spec.scale_target_ref;
        let selector =
            (selectors.get(&(meta.namespace.as_str(), r.kind.as_str(), r.name.as_str())))
                .map(|s| s.to_text())
                .filter(|s| !s.is_empty());
        wanted.push((
            meta.namespace.to_string(),
            meta.name.clone(),
            selector,
            metrics,
        ));
    }
    for (namespace, name, selector, metrics) in wanted {
        let (files, diagnostics) =
            hpa_metric_files(api, &namespace, selector.as_deref(), &metrics).await?;
        let files = (files.files())
            .map(|(flag, file, text)| (flag, file, text.clone()))
            .collect();
        dump.hpa_files.insert(
            format!("{namespace}/{name}"),
            HpaFiles { files, diagnostics },
        );
    }
    Ok(())
}

/// Every page of one list, read into the dump as it arrives. A list the audit can do without
/// (`Listed::unchecked`) that the API refuses (403) becomes a finding, and the audit goes on.
pub(super) async fn read_list(
    api: &Api,
    dump: &mut Dump,
    req: &Request,
    list: &Listed,
) -> Result<(), LiveError> {
    let listed = list_pages_or_refused(api, req, None, |text| {
        dump.read_page(&req.path, list.kind, list.api_version, text)
            .map_err(|e| {
                LiveError(format!(
                    "the API server {} answered GET {} with a list hpacalc cannot read: {e}",
                    api.server, req.path
                ))
            })
    })
    .await?;
    match (listed, list.unchecked) {
        (Ok(_), _) => Ok(()),
        (Err((_, r)), Some(unchecked)) if r.code == 403 => {
            let u = Unlisted {
                group: req.group.clone(),
                resource: req.resource.clone(),
                namespace: req.namespace.clone(),
                answer: r.message,
                unchecked: unchecked.to_string(),
            };
            dump.unlisted.push(u);
            Ok(())
        }
        (Err((page, r)), _) => Err(refused(api, &page, &r)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_namespaced_or_cluster_wide_at_the_apis_paths() {
        let r = list_request("apps/v1", "deployments", Some("shop"));
        assert_eq!(r.path, "/apis/apps/v1/namespaces/shop/deployments");
        assert_eq!((r.group.as_str(), r.verb), ("apps", "list"));
        let r = list_request("v1", "pods", None);
        assert_eq!(r.path, "/api/v1/pods");
        assert_eq!((r.group.as_str(), r.namespace), ("", None));
    }

    #[test]
    fn hpacalc_rbac_grants_list_on_every_list_the_audit_reads() {
        let role: serde_yaml::Value =
            serde_yaml::from_str(super::super::rbac::CLUSTER_ROLE).unwrap();
        let rules = role["rules"].as_sequence().unwrap();
        let has = |seq: &serde_yaml::Value, s: &str| {
            seq.as_sequence()
                .is_some_and(|l| l.iter().any(|v| v.as_str() == Some(s)))
        };
        let listed = (LISTS.iter().map(|l| (l.api_version, l.resource))).chain([
            ("metrics.k8s.io/v1beta1", "pods"),
            ("events.k8s.io/v1", "events"),
            ("v1", "events"),
        ]);
        for (api_version, resource) in listed {
            let req = list_request(api_version, resource, None);
            assert!(
                rules.iter().any(|r| has(&r["apiGroups"], &req.group)
                    && has(&r["resources"], resource)
                    && has(&r["verbs"], "list")),
                "{api_version} {resource}"
            );
        }
    }
}
