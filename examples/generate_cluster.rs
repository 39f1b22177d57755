//! Writes a synthetic cluster dump for `hpacalc audit`, as kubectl prints it, with one planted
//! problem of every finding type in namespace `team-0`:
//! `cluster.json` (HPAs, Deployments, DaemonSets, pods, PDBs, VPAs), `metrics.json`
//! (PodMetricsList), `nodes.json` (NodeList), `metrics-down.json` (the metrics API's error
//! answer) and `planted.json` (each finding expected, `{code, hpa}`).
//!
//!     cargo run --release --example generate_cluster -- PODS HPAS NODES DIR
//!     cargo run --release --example generate_cluster -- 150000 3000 5000 /tmp/cluster
//!
//! Every other HPA is healthy: its pods use exactly their target, so it holds its count.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

const NOW: &str = "2026-11-29T15:00:00Z";
const NAMESPACES: usize = 100;

/// One workload of the dump and its HPA.
struct App {
    ns: String,
    name: String,
    pods: usize,
    min: usize,
    max: usize,
    /// Usage per pod in millicores (the request is 500m; 300m is the 60% target).
    usage: usize,
    request: bool,
    /// Extra selector labels of the Deployment (`track=canary`), and of its pods.
    track: Option<&'static str>,
    replicas_manager: Option<&'static str>,
    generation: (u32, u32),
}

impl App {
    fn new(ns: &str, name: &str, pods: usize) -> App {
        App {
            ns: ns.into(),
            name: name.into(),
            pods,
            min: 2.min(pods.max(1)),
            max: pods * 4,
            usage: 300,
            request: true,
            track: None,
            replicas_manager: None,
            generation: (1, 1),
        }
    }
}

/// An HPA on `kind/target` with a CPU Utilization target of 60%, as the controller last wrote it.
fn hpa(
    ns: &str,
    name: &str,
    kind: &str,
    target: &str,
    range: (usize, usize, usize),
    g: (u32, u32),
) -> String {
    let (min, max, current) = range;
    format!(
        r#"{{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{{"name":"{name}","namespace":"{ns}","generation":{},"uid":"00000000-0000-4000-8000-000000000001","creationTimestamp":"2026-11-01T00:00:00Z"}},"spec":{{"scaleTargetRef":{{"apiVersion":"apps/v1","kind":"{kind}","name":"{target}"}},"minReplicas":{min},"maxReplicas":{max},"metrics":[{{"type":"Resource","resource":{{"name":"cpu","target":{{"type":"Utilization","averageUtilization":60}}}}}}]}},"status":{{"observedGeneration":{},"currentReplicas":{current},"desiredReplicas":{current}}}}}"#,
        g.0, g.1
    )
}

fn deployment(a: &App) -> String {
    let track = a
        .track
        .map(|t| format!(r#","track":"{t}""#))
        .unwrap_or_default();
    let requests = if a.request {
        r#","resources":{"requests":{"cpu":"500m","memory":"256Mi"}}"#
    } else {
        ""
    };
    let managed = match a.replicas_manager {
        Some(m) => format!(
            r#","managedFields":[{{"manager":"{m}","operation":"Apply","apiVersion":"apps/v1","time":"2026-11-29T14:00:00Z","fieldsType":"FieldsV1","fieldsV1":{{"f:spec":{{"f:replicas":{{}},"f:template":{{}}}}}}}}]"#
        ),
        None => String::new(),
    };
    format!(
        r#"{{"apiVersion":"apps/v1","kind":"Deployment","metadata":{{"name":"{name}","namespace":"{ns}","generation":3{managed}}},"spec":{{"replicas":{n},"selector":{{"matchLabels":{{"app":"{app}"{track}}}}},"template":{{"metadata":{{"labels":{{"app":"{app}"{track}}}}},"spec":{{"containers":[{{"name":"app","image":"registry.example/app:1"{requests}}}]}}}}}},"status":{{"replicas":{n},"readyReplicas":{n}}}}}"#,
        name = a.name,
        ns = a.ns,
        n = a.pods,
        app = a.name.trim_end_matches("-canary"),
    )
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, d: usize| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(d);
    let (total_pods, total_hpas, total_nodes) = (num(0, 300), num(1, 20), num(2, 4));
    let dir = PathBuf::from(args.get(3).cloned().unwrap_or_else(|| "cluster".into()));
    std::fs::create_dir_all(&dir)?;
    let namespaces = NAMESPACES.min(total_hpas.max(1));

    let Planted {
        planted,
        mut apps,
        extra_hpas,
        extra_objects,
    } = planted_problems();

    // The healthy rest, spread over the namespaces.
    let used_pods: usize = apps.iter().map(|a| a.pods).sum();
    let planted_hpas = apps.len() + extra_hpas.len();
    let healthy = total_hpas.saturating_sub(planted_hpas).max(1);
    let per = (total_pods.saturating_sub(used_pods) / healthy).max(1);
    for h in 0..healthy {
        let ns = format!("team-{}", h % namespaces);
        apps.push(App::new(&ns, &format!("app-{h}"), per));
    }

    let mut out = BufWriter::new(File::create(dir.join("cluster.json"))?);
    let mut metrics = BufWriter::new(File::create(dir.join("metrics.json"))?);
    writeln!(
        out,
        "{{\"apiVersion\":\"v1\",\"kind\":\"List\",\"metadata\":{{\"resourceVersion\":\"\"}},\"items\":["
    )?;
    write!(
        metrics,
        "{{\"kind\":\"PodMetricsList\",\"apiVersion\":\"metrics.k8s.io/v1beta1\",\"metadata\":{{}},\"items\":["
    )?;
    let mut first = true;
    let mut item = |out: &mut BufWriter<File>, text: &str| -> std::io::Result<()> {
        if !first {
            writeln!(out, ",")?;
        }
        first = false;
        write!(out, "{text}")
    };
    for a in &apps {
        let range = (a.min, a.max, a.pods);
        item(
            &mut out,
            &hpa(&a.ns, &a.name, "Deployment", &a.name, range, a.generation),
        )?;
        item(&mut out, &deployment(a))?;
    }
    for h in &extra_hpas {
        item(&mut out, h)?;
    }
    for o in &extra_objects {
        item(&mut out, o)?;
    }
    let mut pod = String::with_capacity(4096);
    let mut p = 0usize;
    let mut first_metric = true;
    for a in &apps {
        let app = a.name.trim_end_matches("-canary");
        let track = a
            .track
            .map(|t| format!(r#","track":"{t}""#))
            .unwrap_or_default();
        let requests = if a.request {
            r#","resources":{"requests":{"cpu":"500m","memory":"256Mi"},"limits":{"memory":"512Mi"}}"#
        } else {
            ""
        };
        for i in 0..a.pods {
            let name = format!("{}-5f7c9-{i:05x}", a.name);
            let node = if total_nodes > 0 { p % total_nodes } else { 0 };
            pod.clear();
            let _ = write!(
                pod,
                r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"annotations":{{"kubectl.kubernetes.io/restartedAt":"2026-11-28T09:00:00Z"}},"creationTimestamp":"2026-11-29T10:00:00Z","generateName":"{n}-5f7c9-","labels":{{"app":"{app}","pod-template-hash":"5f7c9"{track}}},"name":"{name}","namespace":"{ns}","ownerReferences":[{{"apiVersion":"apps/v1","blockOwnerDeletion":true,"controller":true,"kind":"ReplicaSet","name":"{n}-5f7c9","uid":"3c1f0a52-7a61-4c5e-9d1e-8f2b8a0c6d11"}}],"resourceVersion":"{rv}","uid":"0d6f7d4b-1b2c-4d3e-8f4a-{p:012x}"}},"spec":{{"containers":[{{"image":"registry.example/app:1","imagePullPolicy":"IfNotPresent","name":"app","ports":[{{"containerPort":8080,"name":"http","protocol":"TCP"}}]{requests},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","volumeMounts":[{{"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount","name":"kube-api-access","readOnly":true}}]}}],"dnsPolicy":"ClusterFirst","enableServiceLinks":true,"nodeName":"node-{node:05}","preemptionPolicy":"PreemptLowerPriority","priority":0,"restartPolicy":"Always","schedulerName":"default-scheduler","serviceAccountName":"default","terminationGracePeriodSeconds":30}},"status":{{"conditions":[{{"lastTransitionTime":"2026-11-29T10:00:05Z","status":"True","type":"Initialized"}},{{"lastTransitionTime":"2026-11-29T10:01:00Z","status":"True","type":"Ready"}},{{"lastTransitionTime":"2026-11-29T10:01:00Z","status":"True","type":"ContainersReady"}},{{"lastTransitionTime":"2026-11-29T10:00:00Z","status":"True","type":"PodScheduled"}}],"containerStatuses":[{{"containerID":"containerd://{p:064x}","image":"registry.example/app:1","imageID":"registry.example/app@sha256:{p:064x}","lastState":{{}},"name":"app","ready":true,"restartCount":0,"started":true,"state":{{"running":{{"startedAt":"2026-11-29T10:00:30Z"}}}}}}],"hostIP":"10.0.{h1}.{h2}","phase":"Running","podIP":"10.{i1}.{i2}.{i3}","qosClass":"Burstable","startTime":"2026-11-29T10:00:00Z"}}}}"#,
                n = a.name,
                ns = a.ns,
                rv = 1000 + p,
                h1 = (node / 250) % 250,
                h2 = node % 250 + 1,
                i1 = 100 + (p >> 16) % 100,
                i2 = (p >> 8) % 256,
                i3 = p % 256,
            );
            item(&mut out, &pod)?;
            if !first_metric {
                write!(metrics, ",")?;
            }
            first_metric = false;
            write!(
                metrics,
                r#"{{"metadata":{{"name":"{name}","namespace":"{ns}","creationTimestamp":"{NOW}","labels":{{"app":"{app}"}}}},"timestamp":"2026-11-29T14:59:45Z","window":"15s","containers":[{{"name":"app","usage":{{"cpu":"{u}m","memory":"200Mi"}}}}]}}"#,
                ns = a.ns,
                u = a.usage,
            )?;
            p += 1;
        }
    }
    writeln!(out, "\n]}}")?;
    writeln!(metrics, "]}}")?;
    out.flush()?;
    metrics.flush()?;

    write_nodes(&dir, total_nodes)?;

    write_planted(&dir, planted)
}

/// The planted problems, all in team-0, each on a workload of its own: the workloads, the
/// HPAs and objects beside them, and what the audit must find.
struct Planted {
    planted: Vec<(&'static str, String)>,
    apps: Vec<App>,
    extra_hpas: Vec<String>,
    extra_objects: Vec<String>,
}

fn planted_problems() -> Planted {
    let mut planted: Vec<(&str, String)> = Vec::new();
    let mut apps: Vec<App> = Vec::new();
    let mut extra_hpas: Vec<String> = Vec::new();
    let mut extra_objects: Vec<String> = Vec::new();
    let ns0 = "team-0";
    let small = 3;
    // AmbiguousSelector (overlap): the stable Deployment's selector also matches the canary pods.
    apps.push(App::new(ns0, "shop", small));
    let mut canary = App::new(ns0, "shop-canary", 1);
    canary.track = Some("canary");
    canary.min = 1;
    apps.push(canary);
    planted.push(("AmbiguousSelector", format!("{ns0}/shop")));
    planted.push(("AmbiguousSelector", format!("{ns0}/shop-canary")));
    // AmbiguousSelector (same target): two HPAs on one Deployment.
    apps.push(App::new(ns0, "cart", small));
    extra_hpas.push(hpa(
        ns0,
        "cart-memory",
        "Deployment",
        "cart",
        (2, 12, small),
        (1, 1),
    ));
    planted.push(("AmbiguousSelector", format!("{ns0}/cart")));
    planted.push(("AmbiguousSelector", format!("{ns0}/cart-memory")));
    // HpaVpaConflict.
    apps.push(App::new(ns0, "search", small));
    extra_objects.push(format!(
        r#"{{"apiVersion":"autoscaling.k8s.io/v1","kind":"VerticalPodAutoscaler","metadata":{{"name":"search","namespace":"{ns0}"}},"spec":{{"targetRef":{{"apiVersion":"apps/v1","kind":"Deployment","name":"search"}},"updatePolicy":{{"updateMode":"InPlaceOrRecreate"}}}}}}"#
    ));
    planted.push(("HpaVpaConflict", format!("{ns0}/search")));
    // TargetMissing and TargetKindMismatch.
    extra_hpas.push(hpa(ns0, "ghost", "Deployment", "ghost", (1, 5, 1), (1, 1)));
    planted.push(("TargetMissing", format!("{ns0}/ghost")));
    extra_hpas.push(hpa(ns0, "agent", "DaemonSet", "agent", (1, 5, 1), (1, 1)));
    extra_objects.push(format!(
        r#"{{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{{"name":"agent","namespace":"{ns0}"}},"spec":{{"selector":{{"matchLabels":{{"app":"agent"}}}}}}}}"#
    ));
    planted.push(("TargetKindMismatch", format!("{ns0}/agent")));
    // MinEqualsMax.
    let mut fixed = App::new(ns0, "fixed", small);
    fixed.min = small;
    fixed.max = small;
    apps.push(fixed);
    planted.push(("MinEqualsMax", format!("{ns0}/fixed")));
    // MaxBelowCurrentLoad: at max, and the pods use twice their target.
    let mut hot = App::new(ns0, "hot", small);
    hot.max = small;
    hot.min = 1;
    hot.usage = 600;
    apps.push(hot);
    planted.push(("MaxBelowCurrentLoad", format!("{ns0}/hot")));
    // PdbBlocksDrain.
    apps.push(App::new(ns0, "ledger", small));
    extra_objects.push(format!(
        r#"{{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{{"name":"ledger","namespace":"{ns0}"}},"spec":{{"minAvailable":2,"selector":{{"matchLabels":{{"app":"ledger"}}}}}}}}"#
    ));
    planted.push(("PdbBlocksDrain", format!("{ns0}/ledger")));
    // ReplicasFieldManaged.
    let mut gitops = App::new(ns0, "gitops", small);
    gitops.replicas_manager = Some("argocd-controller");
    apps.push(gitops);
    planted.push(("ReplicasFieldManaged", format!("{ns0}/gitops")));
    // NoRequests.
    let mut bare = App::new(ns0, "bare", small);
    bare.request = false;
    apps.push(bare);
    planted.push(("NoRequests", format!("{ns0}/bare")));
    // StatusStale.
    let mut stale = App::new(ns0, "stale", small);
    stale.generation = (2, 1);
    apps.push(stale);
    planted.push(("StatusStale", format!("{ns0}/stale")));
    // MaxUnreachable (with --nodes): a max far above what the nodes hold.
    let mut huge = App::new(ns0, "huge", small);
    huge.max = 100_000;
    apps.push(huge);
    planted.push(("MaxUnreachable", format!("{ns0}/huge")));

    Planted {
        planted,
        apps,
        extra_hpas,
        extra_objects,
    }
}

/// `nodes.json`: `total` nodes of 16 CPUs and 64 GiB.
fn write_nodes(dir: &std::path::Path, total_nodes: usize) -> std::io::Result<()> {
    let mut nodes = BufWriter::new(File::create(dir.join("nodes.json"))?);
    write!(
        nodes,
        "{{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
    )?;
    for n in 0..total_nodes {
        if n > 0 {
            write!(nodes, ",")?;
        }
        write!(
            nodes,
            r#"{{"apiVersion":"v1","kind":"Node","metadata":{{"name":"node-{n:05}"}},"status":{{"allocatable":{{"cpu":"16","memory":"64Gi","pods":"110"}},"conditions":[{{"type":"Ready","status":"True"}}]}}}}"#
        )?;
    }
    writeln!(nodes, "]}}")?;
    nodes.flush()?;
    Ok(())
}

/// `metrics-down.json` (the metrics API's 503) and `planted.json`, the problems to find.
fn write_planted(dir: &std::path::Path, mut planted: Vec<(&str, String)>) -> std::io::Result<()> {
    std::fs::write(
        dir.join("metrics-down.json"),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server is currently unable to handle the request (get pods.metrics.k8s.io)","reason":"ServiceUnavailable","code":503}
"#,
    )?;
    planted.sort();
    let list: Vec<String> = planted
        .iter()
        .map(|(c, h)| format!("  {{\"code\": \"{c}\", \"hpa\": \"{h}\"}}"))
        .collect();
    std::fs::write(
        dir.join("planted.json"),
        format!("[\n{}\n]\n", list.join(",\n")),
    )?;
    Ok(())
}
