//! What kube-apiserver answers to kubectl's table requests (`Accept:
//! application/json;as=Table;v=v1;g=meta.k8s.io`), for the test API server: the `Table` of HPAs
//! and of events, each cell as the server's printers write it (`printHorizontalPodAutoscaler`,
//! `formatHPAMetrics`, `printEvent` in pkg/printers/internalversion/printers.go, an API server of
//! 1.30 or later), ages as `duration.HumanDuration`. kubectl aligns the columns and drops those
//! of priority 1 unless `-o wide`: that part is kubectl's own, which is what the real-kubectl
//! tests capture.

use serde_json::{Value, json};

/// Whether a request asks for a Table, as kubectl's `get` does.
pub fn wants_table(accept: Option<&str>) -> bool {
    accept.is_some_and(|a| a.contains("as=Table"))
}

/// A column of a Table: name, type and priority (1 only under `-o wide`).
fn column(name: &str, priority: u8) -> Value {
    json!({"name": name, "type": "string", "format": if name == "Name" { "name" } else { "" },
           "description": "", "priority": priority})
}

/// The object a row carries by default: its metadata only, which kubectl reads for `-A`'s
/// NAMESPACE column.
fn partial(object: &Value) -> Value {
    json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
           "metadata": object["metadata"]})
}

fn table(columns: Vec<Value>, rows: Vec<Value>) -> String {
    json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1",
           "metadata": {"resourceVersion": "1"},
           "columnDefinitions": columns, "rows": rows})
    .to_string()
}

/// `duration.HumanDuration` (k8s.io/apimachinery/pkg/util/duration), of whole seconds.
pub fn human_duration(seconds: i64) -> String {
    if seconds < -1 {
        return "<invalid>".into();
    }
    if seconds < 0 {
        return "0s".into();
    }
    if seconds < 120 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        return match seconds % 60 {
            0 => format!("{minutes}m"),
            s => format!("{minutes}m{s}s"),
        };
    }
    if minutes < 180 {
        return format!("{minutes}m");
    }
    let hours = seconds / 3600;
    if hours < 8 {
        return match minutes % 60 {
            0 => format!("{hours}h"),
            m => format!("{hours}h{m}m"),
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        return match hours % 24 {
            0 => format!("{}d", hours / 24),
            h => format!("{}d{h}h", hours / 24),
        };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        return match (hours / 24) % 365 {
            0 => format!("{}y", hours / 24 / 365),
            d => format!("{}y{d}d", hours / 24 / 365),
        };
    }
    format!("{}y", hours / 24 / 365)
}

/// `translateTimestampSince`: `<unknown>` for no time, else the age now.
fn since(timestamp: &Value) -> String {
    let Some(t) = timestamp
        .as_str()
        .and_then(|t| t.parse::<jiff::Timestamp>().ok())
    else {
        return "<unknown>".into();
    };
    human_duration(jiff::Timestamp::now().duration_since(t).as_secs())
}

/// A quantity as the API server prints it: the fixtures already hold canonical strings.
fn quantity(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

/// `formatHPAMetrics`: at most two `current/target` entries, then `+ N more...`.
fn format_hpa_metrics(specs: &[Value], statuses: &[Value]) -> String {
    if specs.is_empty() {
        return "<none>".into();
    }
    let unknown = || "<unknown>".to_string();
    let mut list = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let status = statuses.get(i).unwrap_or(&Value::Null);
        let entry = match spec["type"].as_str().unwrap_or_default() {
            "External" => {
                let target = &spec["external"]["target"];
                let current = &status["external"]["current"];
                if target["averageValue"].is_null() {
                    let now = (!current["value"].is_null()).then(|| quantity(&current["value"]));
                    format!(
                        "{}/{}",
                        now.unwrap_or_else(unknown),
                        quantity(&target["value"])
                    )
                } else {
                    let now = (!current["averageValue"].is_null())
                        .then(|| quantity(&current["averageValue"]));
                    format!(
                        "{}/{} (avg)",
                        now.unwrap_or_else(unknown),
                        quantity(&target["averageValue"])
                    )
                }
            }
            "Pods" => {
                let current = &status["pods"]["current"]["averageValue"];
                let now = (!current.is_null()).then(|| quantity(current));
                format!(
                    "{}/{}",
                    now.unwrap_or_else(unknown),
                    quantity(&spec["pods"]["target"]["averageValue"])
                )
            }
            "Resource" => {
                let resource = &spec["resource"];
                let name = resource["name"].as_str().unwrap_or_default();
                let current = &status["resource"]["current"];
                if resource["target"]["averageValue"].is_null() {
                    let now = current["averageUtilization"]
                        .as_i64()
                        .map(|u| format!("{u}%"));
                    let target = resource["target"]["averageUtilization"]
                        .as_i64()
                        .map_or_else(|| "<auto>".to_string(), |u| format!("{u}%"));
                    format!("{name}: {}/{target}", now.unwrap_or_else(unknown))
                } else {
                    let now = (!current["averageValue"].is_null())
                        .then(|| quantity(&current["averageValue"]));
                    format!(
                        "{name}: {}/{}",
                        now.unwrap_or_else(unknown),
                        quantity(&resource["target"]["averageValue"])
                    )
                }
            }
            _ => "<unknown type>".into(),
        };
        list.push(entry);
    }
    let count = list.len();
    if count > 2 {
        list.truncate(2);
        return format!("{} + {} more...", list.join(", "), count - 2);
    }
    list.join(", ")
}

/// `printHorizontalPodAutoscaler`'s table of `hpas`.
pub fn hpa_table(hpas: &[Value]) -> String {
    let columns = [
        "Name",
        "Reference",
        "Targets",
        "MinPods",
        "MaxPods",
        "Replicas",
        "Age",
    ];
    let rows = hpas
        .iter()
        .map(|h| {
            let spec = &h["spec"];
            let target = &spec["scaleTargetRef"];
            let none = Vec::new();
            let metrics = format_hpa_metrics(
                spec["metrics"].as_array().unwrap_or(&none),
                h["status"]["currentMetrics"].as_array().unwrap_or(&none),
            );
            let min = spec["minReplicas"]
                .as_i64()
                .map_or_else(|| "<unset>".to_string(), |m| m.to_string());
            json!({"cells": [
                h["metadata"]["name"],
                format!("{}/{}", quantity(&target["kind"]), quantity(&target["name"])),
                metrics,
                min,
                spec["maxReplicas"],
                h["status"]["currentReplicas"].as_i64().unwrap_or(0),
                since(&h["metadata"]["creationTimestamp"]),
            ], "object": partial(h)})
        })
        .collect();
    table(columns.iter().map(|c| column(c, 0)).collect(), rows)
}

/// `formatEventSource`: the component (or reporting controller), then the host (or reporting
/// instance), `<unknown>` without a component.
fn event_source(e: &Value) -> String {
    let first = |a: &Value, b: &Value| {
        let a = a.as_str().unwrap_or_default();
        if a.is_empty() {
            b.as_str().unwrap_or_default().to_string()
        } else {
            a.to_string()
        }
    };
    let component = first(&e["source"]["component"], &e["reportingComponent"]);
    let instance = first(&e["source"]["host"], &e["reportingInstance"]);
    match (component.is_empty(), instance.is_empty()) {
        (true, _) => "<unknown>".into(),
        (false, true) => component,
        (false, false) => format!("{component}, {instance}"),
    }
}

/// `printEvent`'s table of core/v1 `events`, every cell as the server writes it (it prints wide;
/// kubectl hides the priority-1 columns).
pub fn event_table(events: &[Value]) -> String {
    let columns = [
        ("Last Seen", 0),
        ("Type", 0),
        ("Reason", 0),
        ("Object", 0),
        ("Subobject", 1),
        ("Source", 1),
        ("Message", 0),
        ("First Seen", 1),
        ("Count", 1),
        ("Name", 1),
    ];
    let rows = events
        .iter()
        .map(|e| {
            let first = since(&e["firstTimestamp"]);
            let last = if e["lastTimestamp"].is_null() {
                first.clone()
            } else {
                since(&e["lastTimestamp"])
            };
            let object = &e["involvedObject"];
            let kind = quantity(&object["kind"]).to_lowercase();
            let target = match object["name"].as_str() {
                Some(name) if !name.is_empty() => format!("{kind}/{name}"),
                _ => kind,
            };
            json!({"cells": [
                last,
                e["type"],
                e["reason"],
                target,
                object["fieldPath"].as_str().unwrap_or_default(),
                event_source(e),
                e["message"].as_str().unwrap_or_default().trim(),
                first,
                e["count"].as_i64().filter(|c| *c > 0).unwrap_or(1),
                e["metadata"]["name"],
            ], "object": partial(e)})
        })
        .collect();
    table(columns.iter().map(|(c, p)| column(c, *p)).collect(), rows)
}

#[test]
fn human_durations_are_apimachinerys() {
    for (seconds, text) in [
        (-2, "<invalid>"),
        (-1, "0s"),
        (119, "119s"),
        (120, "2m"),
        (299, "4m59s"),
        (600, "10m"),
        (10_799, "179m"),
        (10_800, "3h"),
        (11_000, "3h3m"),
        (28_800, "8h"),
        (172_800, "2d"),
        (180_000, "2d2h"),
        (23_760_000, "275d"),
        (63_072_000, "2y"),
        (63_158_400, "2y1d"),
    ] {
        assert_eq!(human_duration(seconds), text, "{seconds}");
    }
}
