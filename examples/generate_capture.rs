//! Writes a synthetic whole-namespace capture of N pods as kubectl prints it, for benchmarks:
//! `pods.json` (`kubectl get pods -o json`: multi-container pods with an injected sidecar, labels,
//! conditions; about 3 KB a pod), the matching `metrics.json` (PodMetricsList), `samples.csv`
//! (the same situation as CSV) and `hpa.yaml`.
//!
//!     cargo run --release --example generate_capture -- 100000 /tmp/capture

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let dir = PathBuf::from(args.next().unwrap_or_else(|| "capture".into()));
    std::fs::create_dir_all(&dir)?;

    std::fs::write(
        dir.join("hpa.yaml"),
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n  namespace: prod\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: web\n  minReplicas: 1\n  maxReplicas: 1000000\n  metrics:\n  - type: Resource\n    resource:\n      name: cpu\n      target:\n        type: Utilization\n        averageUtilization: 60\n",
    )?;

    let mut pods = BufWriter::new(File::create(dir.join("pods.json"))?);
    let mut metrics = BufWriter::new(File::create(dir.join("metrics.json"))?);
    let mut csv = BufWriter::new(File::create(dir.join("samples.csv"))?);
    writeln!(pods, "{{\n    \"apiVersion\": \"v1\",\n    \"items\": [")?;
    write!(
        metrics,
        "{{\"kind\":\"PodMetricsList\",\"apiVersion\":\"metrics.k8s.io/v1beta1\",\"metadata\":{{}},\"items\":["
    )?;
    writeln!(
        csv,
        "pod,container,ready,phase,started,cpu,cpu_request,memory,memory_request"
    )?;
    let mut item = String::with_capacity(4096);
    let mut wrote_metric = false;
    for i in 0..n {
        let name = format!("web-7d4b9c-{i:07x}");
        let ready = i % 50 != 7;
        let phase = if i % 97 == 3 { "Pending" } else { "Running" };
        let app_cpu = 200 + (i * 37) % 400;
        let proxy_cpu = 20 + (i * 13) % 30;
        pod_json(&mut item, i, &name, ready, phase);
        if i + 1 < n {
            item.push(',');
        }
        pods.write_all(item.as_bytes())?;
        pods.write_all(b"\n")?;
        if phase == "Running" {
            if wrote_metric {
                metrics.write_all(b",")?;
            }
            wrote_metric = true;
            write!(
                metrics,
                r#"{{"metadata":{{"name":"{name}","namespace":"prod","labels":{{"app":"web"}}}},"timestamp":"2026-11-29T14:59:50Z","window":"15s","containers":[{{"name":"app","usage":{{"cpu":"{app_cpu}000000n","memory":"301524Ki"}}}},{{"name":"istio-proxy","usage":{{"cpu":"{proxy_cpu}000000n","memory":"62156Ki"}}}}]}}"#
            )?;
        }
        let usage = |v: usize| {
            if phase == "Running" {
                format!("{v}m")
            } else {
                String::new()
            }
        };
        writeln!(
            csv,
            "{name},app,{ready},{phase},5h,{},500m,{},512Mi",
            usage(app_cpu),
            if phase == "Running" { "301524Ki" } else { "" }
        )?;
        writeln!(
            csv,
            "{name},istio-proxy,,,,{},100m,{},128Mi",
            usage(proxy_cpu),
            if phase == "Running" { "62156Ki" } else { "" }
        )?;
    }
    writeln!(
        pods,
        "    ],\n    \"kind\": \"List\",\n    \"metadata\": {{\"resourceVersion\": \"\"}}\n}}"
    )?;
    writeln!(metrics, "]}}")?;
    pods.flush()?;
    metrics.flush()?;
    csv.flush()?;
    Ok(())
}

/// One pod as kubectl prints it, indented as an element of `items`.
fn pod_json(item: &mut String, i: usize, name: &str, ready: bool, phase: &str) {
    item.clear();
    let _ = write!(
        item,
        r#"        {{
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {{
                "annotations": {{"sidecar.istio.io/status": "{{\"initContainers\":[\"istio-init\"],\"containers\":[\"istio-proxy\"]}}", "prometheus.io/scrape": "true"}},
                "creationTimestamp": "2026-11-29T10:00:00Z",
                "generateName": "web-7d4b9c-",
                "labels": {{"app": "web", "pod-template-hash": "7d4b9c", "security.istio.io/tlsMode": "istio", "version": "v42"}},
                "name": "{name}",
                "namespace": "prod",
                "ownerReferences": [{{"apiVersion": "apps/v1", "blockOwnerDeletion": true, "controller": true, "kind": "ReplicaSet", "name": "web-7d4b9c", "uid": "3c1f0a52-7a61-4c5e-9d1e-8f2b8a0c6d11"}}],
                "resourceVersion": "{rv}",
                "uid": "0d6f7d4b-1b2c-4d3e-8f4a-{i:012x}"
            }},
            "spec": {{
                "containers": [
                    {{"name": "app", "image": "registry.example.com/prod/web:1.42.0", "imagePullPolicy": "IfNotPresent",
                      "ports": [{{"containerPort": 8080, "name": "http", "protocol": "TCP"}}],
                      "resources": {{"limits": {{"memory": "1Gi"}}, "requests": {{"cpu": "500m", "memory": "512Mi"}}}},
                      "readinessProbe": {{"httpGet": {{"path": "/healthz", "port": 8080, "scheme": "HTTP"}}, "periodSeconds": 5}},
                      "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
                      "volumeMounts": [{{"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access", "readOnly": true}}]}},
                    {{"name": "istio-proxy", "image": "docker.io/istio/proxyv2:1.24.0", "args": ["proxy", "sidecar"],
                      "resources": {{"limits": {{"cpu": "2", "memory": "1Gi"}}, "requests": {{"cpu": "100m", "memory": "128Mi"}}}}}}
                ],
                "initContainers": [
                    {{"name": "istio-init", "image": "docker.io/istio/proxyv2:1.24.0", "args": ["istio-iptables"],
                      "resources": {{"requests": {{"cpu": "10m", "memory": "40Mi"}}}}}}
                ],
                "nodeName": "ip-10-0-{a}-{b}.eu-west-1.compute.internal",
                "restartPolicy": "Always",
                "schedulerName": "default-scheduler",
                "serviceAccountName": "web",
                "terminationGracePeriodSeconds": 30
            }},
            "status": {{
                "conditions": [
                    {{"lastTransitionTime": "2026-11-29T10:00:05Z", "status": "True", "type": "Initialized"}},
                    {{"lastTransitionTime": "2026-11-29T10:00:20Z", "status": "{ready_s}", "type": "Ready"}},
                    {{"lastTransitionTime": "2026-11-29T10:00:20Z", "status": "{ready_s}", "type": "ContainersReady"}},
                    {{"lastTransitionTime": "2026-11-29T10:00:01Z", "status": "True", "type": "PodScheduled"}}
                ],
                "containerStatuses": [
                    {{"name": "app", "ready": {ready}, "restartCount": 0, "started": true, "image": "registry.example.com/prod/web:1.42.0", "imageID": "registry.example.com/prod/web@sha256:4f1c", "state": {{"running": {{"startedAt": "2026-11-29T10:00:08Z"}}}}}},
                    {{"name": "istio-proxy", "ready": true, "restartCount": 0, "started": true, "image": "docker.io/istio/proxyv2:1.24.0", "imageID": "docker.io/istio/proxyv2@sha256:9a2b", "state": {{"running": {{"startedAt": "2026-11-29T10:00:06Z"}}}}}}
                ],
                "hostIP": "10.0.{a}.{b}",
                "phase": "{phase}",
                "podIP": "10.1.{a}.{b}",
                "qosClass": "Burstable",
                "startTime": "2026-11-29T10:00:01Z"
            }}
        }}"#,
        rv = 48_000_000 + i,
        a = (i / 250) % 250,
        b = i % 250,
        ready_s = if ready { "True" } else { "False" },
    );
}
