//! `contrib/deploy/`: each file parses as its Kubernetes kind (k8s-openapi's types for the
//! built-in kinds, with no key they would drop; the fields prometheus-operator requires for
//! ServiceMonitor and PrometheusRule), the objects refer to each other by the right names, the
//! ClusterRole grants what `hpacalc rbac` prints plus `watch`, and the Deployment runs
//! `hpacalc serve -A --listen ADDR`.

use std::collections::BTreeSet;
use std::net::SocketAddr;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Container, Namespace, Service, ServiceAccount};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::support::{Test, root, stdout};

const DIR: &str = "contrib/deploy";

fn text(file: &str) -> String {
    let path = root().join(DIR).join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn value_of(file: &str, text: &str) -> Value {
    serde_yaml::from_str(text).unwrap_or_else(|e| panic!("{DIR}/{file}: {e}"))
}

/// `text` as the k8s-openapi type of its kind: apiVersion and kind are that type's, and no key
/// is one the type does not know (k8s-openapi would drop it silently).
fn typed<T: DeserializeOwned + k8s_openapi::Resource>(file: &str, text: &str) -> T {
    let value = value_of(file, text);
    assert_eq!(value["apiVersion"], T::API_VERSION, "{file}: apiVersion");
    assert_eq!(value["kind"], T::KIND, "{file}: kind");
    let mut ignored = Vec::new();
    let typed: T = serde_ignored::deserialize(value, |path| ignored.push(path.to_string()))
        .unwrap_or_else(|e: serde_json::Error| panic!("{file}: not a {}: {e}", T::KIND));
    assert!(ignored.is_empty(), "{file}: unknown keys {ignored:?}");
    typed
}

fn file<T: DeserializeOwned + k8s_openapi::Resource>(name: &str) -> T {
    typed(name, &text(name))
}

/// The deploy files, each read as its kind.
struct Deploy {
    namespace: Namespace,
    account: ServiceAccount,
    role: ClusterRole,
    binding: ClusterRoleBinding,
    deployment: Deployment,
    service: Service,
    monitor: Value,
    rule: Value,
}

impl Deploy {
    fn read() -> Deploy {
        let names: BTreeSet<String> = std::fs::read_dir(root().join(DIR))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        let expected: BTreeSet<String> = [
            "00-namespace.yaml",
            "serviceaccount.yaml",
            "clusterrole.yaml",
            "clusterrolebinding.yaml",
            "deployment.yaml",
            "service.yaml",
            "servicemonitor.yaml",
            "prometheusrule.yaml",
        ]
        .map(String::from)
        .into();
        assert_eq!(names, expected, "{DIR}: a file this test does not check");
        Deploy {
            namespace: file("00-namespace.yaml"),
            account: file("serviceaccount.yaml"),
            role: file("clusterrole.yaml"),
            binding: file("clusterrolebinding.yaml"),
            deployment: file("deployment.yaml"),
            service: file("service.yaml"),
            monitor: value_of("servicemonitor.yaml", &text("servicemonitor.yaml")),
            rule: value_of("prometheusrule.yaml", &text("prometheusrule.yaml")),
        }
    }

    fn container(&self) -> &Container {
        let pod = self.deployment.spec.template.spec.as_ref();
        let containers = &pod.unwrap().containers;
        assert_eq!(containers.len(), 1, "deployment.yaml: one container");
        &containers[0]
    }
}

/// The namespaced objects are in the Namespace of 00-namespace.yaml, and refer to each other by
/// name: the binding to the ClusterRole and the ServiceAccount, the Deployment to the account,
/// the Service to the Deployment's pods.
#[test]
fn the_deploy_files_are_their_kinds_and_refer_to_each_other() {
    let d = Deploy::read();
    let ns = d.namespace.metadata.name.as_deref().unwrap();
    for (file, namespace) in [
        ("serviceaccount.yaml", &d.account.metadata.namespace),
        ("deployment.yaml", &d.deployment.metadata.namespace),
        ("service.yaml", &d.service.metadata.namespace),
    ] {
        assert_eq!(namespace.as_deref(), Some(ns), "{file}");
    }
    for (file, v) in [
        ("servicemonitor.yaml", &d.monitor),
        ("prometheusrule.yaml", &d.rule),
    ] {
        assert_eq!(v["metadata"]["namespace"], ns, "{file}");
    }
    assert_eq!(d.binding.role_ref.kind, "ClusterRole");
    assert_eq!(
        Some(&d.binding.role_ref.name),
        d.role.metadata.name.as_ref()
    );
    let subjects = d.binding.subjects.as_ref().unwrap();
    assert_eq!(subjects.len(), 1);
    assert_eq!(subjects[0].kind, "ServiceAccount");
    assert_eq!(Some(&subjects[0].name), d.account.metadata.name.as_ref());
    assert_eq!(subjects[0].namespace.as_deref(), Some(ns));

    let spec = &d.deployment.spec;
    let pod = spec.template.spec.as_ref().unwrap();
    assert_eq!(pod.service_account_name, d.account.metadata.name);
    let pod_labels = spec.template.metadata.as_ref().unwrap().labels.as_ref();
    assert_eq!(spec.selector.match_labels.as_ref(), pod_labels);
    let service = d.service.spec.as_ref().unwrap();
    assert_eq!(
        service.selector.as_ref(),
        pod_labels,
        "service.yaml selects the pods"
    );
    let ports = service.ports.as_ref().unwrap();
    assert_eq!(ports.len(), 1);
    assert_eq!(ports[0].name.as_deref(), Some("metrics"));
    assert_eq!(ports[0].port, 9090);
    assert_eq!(
        ports[0].target_port,
        Some(IntOrString::String("metrics".into()))
    );
}

/// `hpacalc serve -A --listen ADDR` on port 9090, named `metrics`, with its probes, non-root
/// on a read-only root filesystem, with resources.
#[test]
fn the_deployment_runs_serve_read_only_and_probed() {
    let d = Deploy::read();
    let c = d.container();
    let args = c.args.as_deref().unwrap();
    assert_eq!(args.first().map(String::as_str), Some("serve"));
    assert!(args.iter().any(|a| a == "-A"), "{args:?}");
    let listen = args.iter().position(|a| a == "--listen").unwrap();
    let addr: SocketAddr = args[listen + 1].parse().unwrap();
    assert_eq!(addr.port(), 9090);
    assert_eq!(args.len(), 4, "only the flags serve takes: {args:?}");

    let ports = c.ports.as_deref().unwrap();
    assert_eq!(ports.len(), 1);
    assert_eq!(ports[0].container_port, 9090);
    assert_eq!(ports[0].name.as_deref(), Some("metrics"));
    for (probe, path) in [
        (&c.liveness_probe, "/healthz"),
        (&c.readiness_probe, "/readyz"),
    ] {
        let get = probe.as_ref().unwrap().http_get.as_ref().unwrap();
        assert_eq!(get.path.as_deref(), Some(path));
        assert_eq!(get.port, IntOrString::String("metrics".into()));
    }
    let security = c.security_context.as_ref().unwrap();
    assert_eq!(security.read_only_root_filesystem, Some(true));
    assert_eq!(security.allow_privilege_escalation, Some(false));
    let pod = d.deployment.spec.template.spec.as_ref();
    let pod_security = pod.unwrap().security_context.as_ref().unwrap();
    assert_eq!(pod_security.run_as_non_root, Some(true));
    assert!(pod_security.run_as_user.unwrap() > 0);
    let resources = c.resources.as_ref().unwrap();
    for key in ["cpu", "memory"] {
        assert!(
            resources.requests.as_ref().unwrap().contains_key(key),
            "{key}"
        );
    }
    assert!(resources.limits.as_ref().unwrap().contains_key("memory"));
}

/// Every (API group, resource, verb) or (URL, verb) a rule grants.
fn grants(rules: &[PolicyRule]) -> BTreeSet<(String, String, String)> {
    let mut out = BTreeSet::new();
    for rule in rules {
        for verb in &rule.verbs {
            for url in rule.non_resource_urls.iter().flatten() {
                out.insert(("url".to_string(), url.clone(), verb.clone()));
            }
            for group in rule.api_groups.iter().flatten() {
                for resource in rule.resources.iter().flatten() {
                    out.insert((group.clone(), resource.clone(), verb.clone()));
                }
            }
        }
    }
    out
}

/// The ClusterRole grants what `hpacalc rbac` prints, `watch` on each resource it names, and
/// nothing that writes.
#[test]
fn the_cluster_role_is_hpacalc_rbac_plus_watch() {
    let d = Deploy::read();
    let printed = stdout(&Test::new().args(["rbac"]).status(0).run());
    let rbac: ClusterRole = typed("`hpacalc rbac`", &printed);
    let needed = grants(rbac.rules.as_deref().unwrap());
    // A subresource (`*/scale`) is read, never listed or watched.
    let watches: BTreeSet<_> = needed
        .iter()
        .filter(|(group, resource, _)| group != "url" && !resource.contains('/'))
        .map(|(group, resource, _)| (group.clone(), resource.clone(), "watch".to_string()))
        .collect();
    let granted = grants(d.role.rules.as_deref().unwrap());
    let missing: Vec<_> = needed
        .union(&watches)
        .filter(|g| !granted.contains(*g))
        .collect();
    assert!(missing.is_empty(), "clusterrole.yaml lacks {missing:?}");
    let writes: Vec<_> = granted
        .iter()
        .filter(|(_, _, verb)| !matches!(verb.as_str(), "get" | "list" | "watch"))
        .collect();
    assert!(writes.is_empty(), "clusterrole.yaml writes: {writes:?}");
}

/// The ServiceMonitor scrapes the Service's `metrics` port at /metrics every 15s, keeping the
/// series' namespace label; the PrometheusRule has what prometheus-operator requires.
#[test]
fn the_service_monitor_and_prometheus_rule_have_their_required_fields() {
    let d = Deploy::read();
    let m = &d.monitor;
    assert_eq!(m["apiVersion"], "monitoring.coreos.com/v1");
    assert_eq!(m["kind"], "ServiceMonitor");
    assert_eq!(m["metadata"]["name"], "hpacalc");
    let service_labels = serde_json::to_value(&d.service.metadata.labels).unwrap();
    let selector = m["spec"]["selector"]["matchLabels"].as_object().unwrap();
    assert!(!selector.is_empty());
    for (key, value) in selector {
        assert_eq!(
            &service_labels[key], value,
            "the ServiceMonitor selects the Service"
        );
    }
    let endpoints = m["spec"]["endpoints"].as_array().unwrap();
    assert_eq!(endpoints.len(), 1);
    assert_eq!(endpoints[0]["port"], "metrics");
    assert_eq!(endpoints[0]["path"], "/metrics");
    assert_eq!(endpoints[0]["interval"], "15s");
    assert_eq!(endpoints[0]["honorLabels"], true);

    let r = &d.rule;
    assert_eq!(r["apiVersion"], "monitoring.coreos.com/v1");
    assert_eq!(r["kind"], "PrometheusRule");
    assert_eq!(r["metadata"]["name"], "hpacalc");
    let groups = r["spec"]["groups"].as_array().unwrap();
    assert!(!groups.is_empty());
    for group in groups {
        assert!(group["name"].is_string());
        for rule in group["rules"].as_array().unwrap() {
            assert!(
                rule["alert"].is_string() && rule["expr"].is_string(),
                "{rule}"
            );
            assert!(rule["labels"]["severity"].is_string(), "{rule}");
        }
    }
}
