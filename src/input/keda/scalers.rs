//! Each scaler's metric name, threshold (the HPA target) and activation threshold, read from the
//! trigger's `metadata` as KEDA's scalers read them (`pkg/scalers/*_scaler.go`,
//! `GetMetricSpecForScaling`). Only what the HPA and the activation step need: connection
//! settings, authentication and scaler-specific value shaping are not modelled.

use std::collections::BTreeMap;

/// A scaler's HPA target: `GetMetricTarget` (an integer) or `GetMetricTargetMili` (a float
/// printed with `%.3f`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Threshold {
    Integer(i64),
    Milli(f64),
}

#[derive(Debug, Clone, PartialEq)]
pub struct ScalerSpec {
    /// The metric name before the `s<index>-` prefix, already normalized.
    pub metric_name: String,
    pub threshold: Threshold,
    /// The metadata key the threshold came from, or the default's description.
    pub threshold_source: String,
    pub activation: f64,
    pub activation_source: String,
    /// Set when hpacalc does not know this scaler and guessed from the metadata's key names.
    pub guessed: Option<String>,
    /// The value the scaler serves whenever it is active, where its rules fix it.
    pub active_value: Option<f64>,
}

/// An error in the trigger's metadata: the key (or `None` for the trigger itself) and what is
/// wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct MetadataError {
    pub key: Option<String>,
    pub message: String,
}

fn err(key: &str, message: impl Into<String>) -> MetadataError {
    MetadataError {
        key: Some(key.to_string()),
        message: message.into(),
    }
}

// Port of NormalizeString (pkg/util/normalize_string.go).
pub fn normalize(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '/' | '.' | ':' | '%' | '(' | ')' => '-',
            c => c,
        })
        .collect()
}

// Port of GenerateMetricNameWithIndex (pkg/scalers/scaler.go).
pub fn with_index(index: usize, name: &str) -> String {
    format!("s{index}-{name}")
}

type Meta = BTreeMap<String, String>;

fn text<'m>(meta: &'m Meta, key: &str) -> Option<&'m str> {
    meta.get(key).map(String::as_str).filter(|v| !v.is_empty())
}

fn required<'m>(meta: &'m Meta, key: &str) -> Result<&'m str, MetadataError> {
    text(meta, key).ok_or_else(|| err(key, "found nothing, expected a value (required)"))
}

/// `strconv.ParseInt(s, 10, 64)`, as KEDA's typed config reads an int64.
fn int(meta: &Meta, key: &str, default: i64) -> Result<(i64, String), MetadataError> {
    match text(meta, key) {
        None => Ok((default, format!("default {default}"))),
        Some(v) => v
            .trim()
            .parse::<i64>()
            .map(|n| (n, key.to_string()))
            .map_err(|_| {
                err(
                    key,
                    format!("found {}, expected an integer", crate::error::quoted(v)),
                )
            }),
    }
}

/// `strconv.ParseFloat(s, 64)`.
fn float(meta: &Meta, key: &str) -> Result<Option<f64>, MetadataError> {
    match text(meta, key) {
        None => Ok(None),
        Some(v) => parse_float(v).map(Some).ok_or_else(|| {
            err(
                key,
                format!("found {}, expected a number", crate::error::quoted(v)),
            )
        }),
    }
}

/// Go's `strconv.ParseFloat`: decimal and exponent forms, `Inf`, `NaN`.
pub fn parse_float(v: &str) -> Option<f64> {
    let t = v.trim();
    let lower = t.to_ascii_lowercase();
    match lower.trim_start_matches(['+', '-']) {
        "inf" | "infinity" => {
            return Some(if lower.starts_with('-') {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            });
        }
        "nan" => return Some(f64::NAN),
        _ => {}
    }
    t.parse::<f64>().ok()
}

fn activation_int(meta: &Meta, key: &str) -> Result<(f64, String), MetadataError> {
    let (n, source) = int(meta, key, 0)?;
    #[allow(clippy::cast_precision_loss)]
    Ok((n as f64, source))
}

fn activation_float(meta: &Meta, key: &str) -> Result<(f64, String), MetadataError> {
    Ok(match float(meta, key)? {
        Some(v) => (v, key.to_string()),
        None => (0.0, "default 0".to_string()),
    })
}

/// The scaler's spec for trigger `scaler` with `meta`. cpu and memory are handled by the caller.
pub fn spec(scaler: &str, meta: &Meta) -> Result<ScalerSpec, MetadataError> {
    match scaler {
        "prometheus" => prometheus(meta),
        "kafka" => kafka(meta),
        "cron" => cron(meta),
        "rabbitmq" => rabbitmq(meta),
        "aws-sqs-queue" => aws_sqs_queue(meta),
        "azure-servicebus" => azure_servicebus(meta),
        "redis" | "redis-cluster" | "redis-sentinel" => redis(meta),
        "redis-streams" | "redis-cluster-streams" | "redis-sentinel-streams" => redis_streams(meta),
        _ => generic(scaler, meta),
    }
}

/// The spec of a scaler hpacalc knows: `name` normalized, the threshold and where it came from,
/// the activation threshold and where it came from.
fn known(
    name: &str,
    threshold: Threshold,
    threshold_source: String,
    (activation, activation_source): (f64, String),
) -> ScalerSpec {
    ScalerSpec {
        metric_name: normalize(name),
        threshold,
        threshold_source,
        activation,
        activation_source,
        guessed: None,
        active_value: None,
    }
}

// Port of parsePrometheusMetadata / GetMetricSpecForScaling (prometheus_scaler.go).
fn prometheus(meta: &Meta) -> Result<ScalerSpec, MetadataError> {
    required(meta, "serverAddress")?;
    required(meta, "query")?;
    let threshold = float(meta, "threshold")?
        .ok_or_else(|| err("threshold", "found nothing, expected a number (required)"))?;
    let activation = activation_float(meta, "activationThreshold")?;
    Ok(known(
        "prometheus",
        Threshold::Milli(threshold),
        "threshold".to_string(),
        activation,
    ))
}

// Port of parseKafkaMetadata / GetMetricSpecForScaling (kafka_scaler.go).
fn kafka(meta: &Meta) -> Result<ScalerSpec, MetadataError> {
    let group = required(meta, "consumerGroup")?;
    let (lag, source) = int(meta, "lagThreshold", 10)?;
    if lag <= 0 {
        return Err(err(
            "lagThreshold",
            format!("found {lag}, expected a positive number"),
        ));
    }
    let (activation, activation_source) = int(meta, "activationLagThreshold", 0)?;
    if activation < 0 {
        return Err(err(
            "activationLagThreshold",
            format!("found {activation}, expected a non-negative number"),
        ));
    }
    let name = match text(meta, "topic") {
        Some(topic) => format!("kafka-{topic}"),
        None => format!("kafka-{group}-topics"),
    };
    #[allow(clippy::cast_precision_loss)]
    let activation = (activation as f64, activation_source);
    Ok(known(&name, Threshold::Integer(lag), source, activation))
}

// Port of cronMetadata.Validate / GetMetricSpecForScaling (cron_scaler.go): the target is
// always 1 and the value is desiredReplicas inside the window, 0 outside.
fn cron(meta: &Meta) -> Result<ScalerSpec, MetadataError> {
    let start = required(meta, "start")?;
    let end = required(meta, "end")?;
    let timezone = required(meta, "timezone")?;
    let (desired, _) = int(meta, "desiredReplicas", 0)?;
    if desired == 0 {
        return Err(err(
            "desiredReplicas",
            "found nothing, expected the replicas inside the window (no desiredReplicas specified)",
        ));
    }
    if start == end {
        return Err(err(
            "end",
            "found the same schedule as start, expected a different one",
        ));
    }
    let name = format!(
        "cron-{timezone}-{}-{}",
        cron_time_format(start),
        cron_time_format(end)
    );
    #[allow(clippy::cast_precision_loss)]
    let active_value = Some(desired as f64);
    Ok(ScalerSpec {
        active_value,
        ..known(
            &name,
            Threshold::Integer(1),
            "always 1 (the value is desiredReplicas inside the window)".to_string(),
            (0.0, "active inside the window".to_string()),
        )
    })
}

// Port of rabbitMQMetadata.Validate / GetMetricSpecForScaling (rabbitmq_scaler.go).
fn rabbitmq(meta: &Meta) -> Result<ScalerSpec, MetadataError> {
    let queue = required(meta, "queueName")?;
    let queue_length = float(meta, "queueLength")?.unwrap_or(0.0);
    let mode = text(meta, "mode").unwrap_or("Unknown");
    let value = float(meta, "value")?.unwrap_or(0.0);
    let (threshold, source) = if queue_length == 0.0 && mode == "Unknown" && value == 0.0 {
        (20.0, "default 20 (mode QueueLength)".to_string())
    } else if queue_length != 0.0 && (mode != "Unknown" || value != 0.0) {
        return Err(err(
            "queueLength",
            "found queueLength with mode or value, expected mode and value only \
             (queueLength is deprecated)",
        ));
    } else if queue_length != 0.0 {
        (queue_length, "queueLength".to_string())
    } else if mode == "Unknown" {
        return Err(err(
            "mode",
            "found nothing, expected QueueLength or MessageRate",
        ));
    } else if value == 0.0 {
        return Err(err("value", "found nothing, expected the target value"));
    } else if !matches!(mode, "QueueLength" | "MessageRate") {
        return Err(err(
            "mode",
            format!(
                "found {}, expected QueueLength or MessageRate",
                crate::error::quoted(mode)
            ),
        ));
    } else {
        (value, format!("value (mode {mode})"))
    };
    let activation = activation_float(meta, "activationValue")?;
    Ok(known(
        &format!("rabbitmq-{}", query_escape(queue)),
        Threshold::Milli(threshold),
        source,
        activation,
    ))
}

// Port of parseAwsSqsQueueMetadata / GetMetricSpecForScaling (aws_sqs_queue_scaler.go).
fn aws_sqs_queue(meta: &Meta) -> Result<ScalerSpec, MetadataError> {
    let url = required(meta, "queueURL")?;
    let (length, source) = int(meta, "queueLength", 5)?;
    let activation = activation_int(meta, "activationQueueLength")?;
    Ok(known(
        &format!("aws-sqs-{}", sqs_queue_name(url)?),
        Threshold::Integer(length),
        source,
        activation,
    ))
}

// Port of parseAzureServiceBusMetadata / GetMetricSpecForScaling
// (azure_servicebus_scaler.go).
fn azure_servicebus(meta: &Meta) -> Result<ScalerSpec, MetadataError> {
    let (length, source) = int(meta, "messageCount", 5)?;
    let activation = activation_int(meta, "activationMessageCount")?;
    let (entity, kind) = match (text(meta, "queueName"), text(meta, "topicName")) {
        (Some(q), None) => (q, "queue"),
        (None, Some(t)) => {
            required(meta, "subscriptionName")?;
            (t, "topic")
        }
        (Some(_), Some(_)) => {
            return Err(err(
                "topicName",
                "found both queueName and topicName, expected one of them",
            ));
        }
        (None, None) => {
            return Err(err(
                "queueName",
                "found nothing, expected queueName or topicName",
            ));
        }
    };
    let regex = text(meta, "useRegex").is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let name = if regex {
        format!("{kind}-regex")
    } else {
        entity.to_string()
    };
    Ok(known(
        &format!("azure-servicebus-{name}"),
        Threshold::Integer(length),
        source,
        activation,
    ))
}

// Port of parseRedisMetadata / GetMetricSpecForScaling (redis_scaler.go); the cluster and
// sentinel variants share it.
fn redis(meta: &Meta) -> Result<ScalerSpec, MetadataError> {
    let list = required(meta, "listName")?;
    let (length, source) = int(meta, "listLength", 5)?;
    let activation = activation_int(meta, "activationListLength")?;
    Ok(known(
        &format!("redis-{list}"),
        Threshold::Integer(length),
        source,
        activation,
    ))
}

// Port of redisStreamsMetadata.Validate / GetMetricSpecForScaling (redis_streams_scaler.go):
// the target depends on the mode the keys select.
fn redis_streams(meta: &Meta) -> Result<ScalerSpec, MetadataError> {
    let stream = required(meta, "stream")?;
    let (threshold, source) = if text(meta, "consumerGroup").is_some() {
        let (lag, lag_source) = int(meta, "lagCount", 0)?;
        if lag != 0 {
            (lag, lag_source)
        } else {
            int(meta, "pendingEntriesCount", 5)?
        }
    } else {
        int(meta, "streamLength", 5)?
    };
    let activation = activation_int(meta, "activationLagCount")?;
    Ok(known(
        &format!("redis-streams-{stream}"),
        Threshold::Integer(threshold),
        source,
        activation,
    ))
}

/// Any other scaler: the threshold is the first metadata key among the usual names, read as a
/// float (`GetMetricTargetMili`), and the activation threshold the matching `activation*` key.
/// The metric name is `s<index>-<scaler>`; real scalers usually add a suffix.
fn generic(scaler: &str, meta: &Meta) -> Result<ScalerSpec, MetadataError> {
    const EXACT: &[&str] = &["threshold", "targetValue", "value", "targetMetricValue"];
    let candidate = EXACT
        .iter()
        .map(|k| (*k).to_string())
        .find(|k| text(meta, k).is_some())
        .or_else(|| {
            meta.keys()
                .filter(|k| !k.starts_with("activation") && text(meta, k).is_some())
                .find(|k| {
                    ["Threshold", "Length", "Count", "TargetValue", "Target"]
                        .iter()
                        .any(|s| k.ends_with(s))
                })
                .cloned()
        });
    let Some(key) = candidate else {
        return Err(MetadataError {
            key: None,
            message: format!(
                "found a {} trigger whose metadata has no threshold-like key, expected one \
                 of threshold, targetValue, value, or a key ending in Threshold, Length, Count or \
                 Target (hpacalc knows the thresholds of prometheus, kafka, rabbitmq, \
                 aws-sqs-queue, azure-servicebus, redis, redis-streams, cron, cpu and memory)",
                crate::error::quoted(scaler)
            ),
        });
    };
    let threshold = float(meta, &key)?.unwrap_or(0.0);
    let mut activation_key = format!("activation{}", upper_first(&key));
    if text(meta, &activation_key).is_none() && text(meta, "activationThreshold").is_some() {
        activation_key = "activationThreshold".to_string();
    }
    let (activation, activation_source) = activation_float(meta, &activation_key)?;
    Ok(ScalerSpec {
        metric_name: normalize(scaler),
        threshold: Threshold::Milli(threshold),
        threshold_source: key.clone(),
        activation,
        activation_source,
        guessed: Some(format!(
            "hpacalc does not know the {} scaler: it guessed the threshold from \
             metadata.{key}, the activation threshold from {activation_key} (0 if absent) and the \
             metric name s<index>-{scaler}; KEDA's scaler may differ",
            crate::error::quoted(scaler)
        )),
        active_value: None,
    })
}

fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

// Port of parseCronTimeFormat (cron_scaler.go).
fn cron_time_format(s: &str) -> String {
    s.replace(' ', "")
        .replace('*', "x")
        .replace('/', "Sl")
        .replace('?', "Qm")
        .replace(',', "Cm")
}

/// Go's `url.QueryEscape`: unreserved characters kept, space as `+`, the rest `%XX`.
fn query_escape(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(b));
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The queue name of `queueURL` (parseAwsSqsQueueMetadata): the third segment of the path of a
/// URL, or the text itself when it is not a URL.
fn sqs_queue_name(url: &str) -> Result<String, MetadataError> {
    let Some((_, rest)) = url.split_once("://") else {
        // url.ParseRequestURI accepts an absolute path too.
        if let Some(path) = url.strip_prefix('/') {
            return third_segment(&format!("/{path}"), url);
        }
        return Ok(url.to_string());
    };
    let path = rest.find('/').and_then(|i| rest.get(i..)).unwrap_or("");
    let path = path.split(['?', '#']).next().unwrap_or("");
    third_segment(path, url)
}

fn third_segment(path: &str, url: &str) -> Result<String, MetadataError> {
    let parts: Vec<&str> = path.split('/').collect();
    match parts.as_slice() {
        [_, _, name] if !name.is_empty() => Ok((*name).to_string()),
        _ => Err(err(
            "queueURL",
            format!(
                "found {}, expected https://sqs.REGION.amazonaws.com/ACCOUNT/QUEUE \
                 (cannot get queueName from queueURL)",
                crate::error::quoted(url)
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(pairs: &[(&str, &str)]) -> Meta {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect()
    }

    #[test]
    fn normalize_replaces_keda_characters() {
        assert_eq!(normalize("a/b.c:d%e(f)g"), "a-b-c-d-e-f-g");
    }

    #[test]
    fn prometheus_threshold_is_milli_and_activation_optional() {
        let s = spec(
            "prometheus",
            &meta(&[
                ("serverAddress", "http://p:9090"),
                ("query", "sum(x)"),
                ("threshold", "2.5"),
            ]),
        )
        .unwrap();
        assert_eq!(s.metric_name, "prometheus");
        assert_eq!(s.threshold, Threshold::Milli(2.5));
        assert_eq!(s.activation, 0.0);
    }

    #[test]
    fn kafka_defaults_and_topic_name() {
        let s = spec(
            "kafka",
            &meta(&[("consumerGroup", "g"), ("topic", "orders.v1")]),
        )
        .unwrap();
        assert_eq!(s.metric_name, "kafka-orders-v1");
        assert_eq!(s.threshold, Threshold::Integer(10));
        let s = spec("kafka", &meta(&[("consumerGroup", "g")])).unwrap();
        assert_eq!(s.metric_name, "kafka-g-topics");
        let e = spec(
            "kafka",
            &meta(&[("consumerGroup", "g"), ("lagThreshold", "0")]),
        )
        .unwrap_err();
        assert_eq!(e.key.as_deref(), Some("lagThreshold"));
    }

    #[test]
    fn cron_name_and_target_one() {
        let s = spec(
            "cron",
            &meta(&[
                ("timezone", "Europe/Paris"),
                ("start", "0 8 * * 1-5"),
                ("end", "0 18 * * 1-5"),
                ("desiredReplicas", "10"),
            ]),
        )
        .unwrap();
        assert_eq!(s.metric_name, "cron-Europe-Paris-08xx1-5-018xx1-5");
        assert_eq!(s.threshold, Threshold::Integer(1));
    }

    #[test]
    fn rabbitmq_modes() {
        let s = spec("rabbitmq", &meta(&[("queueName", "jobs")])).unwrap();
        assert_eq!(s.threshold, Threshold::Milli(20.0));
        let s = spec(
            "rabbitmq",
            &meta(&[
                ("queueName", "a b/c"),
                ("mode", "QueueLength"),
                ("value", "50"),
            ]),
        )
        .unwrap();
        assert_eq!(s.threshold, Threshold::Milli(50.0));
        assert_eq!(s.metric_name, "rabbitmq-a+b-2Fc");
        assert!(
            spec(
                "rabbitmq",
                &meta(&[("queueName", "q"), ("queueLength", "5"), ("value", "3")])
            )
            .is_err()
        );
    }

    #[test]
    fn sqs_queue_name_from_url() {
        let s = spec(
            "aws-sqs-queue",
            &meta(&[(
                "queueURL",
                "https://sqs.eu-west-1.amazonaws.com/123456789/orders",
            )]),
        )
        .unwrap();
        assert_eq!(s.metric_name, "aws-sqs-orders");
        assert_eq!(s.threshold, Threshold::Integer(5));
        let s = spec("aws-sqs-queue", &meta(&[("queueURL", "orders")])).unwrap();
        assert_eq!(s.metric_name, "aws-sqs-orders");
    }

    #[test]
    fn servicebus_and_redis() {
        let s = spec(
            "azure-servicebus",
            &meta(&[("queueName", "q"), ("messageCount", "7")]),
        )
        .unwrap();
        assert_eq!(s.metric_name, "azure-servicebus-q");
        assert_eq!(s.threshold, Threshold::Integer(7));
        let s = spec("redis", &meta(&[("listName", "jobs")])).unwrap();
        assert_eq!(s.threshold, Threshold::Integer(5));
        let s = spec(
            "redis-streams",
            &meta(&[("stream", "s"), ("consumerGroup", "g"), ("lagCount", "9")]),
        )
        .unwrap();
        assert_eq!(s.threshold, Threshold::Integer(9));
        let s = spec(
            "redis-streams",
            &meta(&[("stream", "s"), ("consumerGroup", "g")]),
        )
        .unwrap();
        assert_eq!(s.threshold_source, "default 5");
    }

    #[test]
    fn generic_rule_guesses_and_says_so() {
        let s = spec(
            "new-relic",
            &meta(&[("threshold", "12"), ("activationThreshold", "3")]),
        )
        .unwrap();
        assert_eq!(s.threshold, Threshold::Milli(12.0));
        assert_eq!(s.activation, 3.0);
        assert!(s.guessed.is_some());
        let s = spec(
            "mongodb",
            &meta(&[("queryValue", "x"), ("targetValue", "4")]),
        )
        .unwrap();
        assert_eq!(s.threshold_source, "targetValue");
        assert!(spec("weird", &meta(&[("host", "x")])).is_err());
    }
}
