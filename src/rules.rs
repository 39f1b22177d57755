//! `hpacalc rules`: the alerting rules over the series `hpacalc serve` exports, as a Prometheus
//! rules file (`groups:`) or a prometheus-operator `PrometheusRule`.
//!
//! Each rule is data (its expression, hold, severity, texts and why), and both files are rendered
//! from the same list, so they cannot drift: the scalars go through the YAML serializer, the
//! layout and the comments that say why each rule is what it is are written here.
//! `contrib/prometheus/hpacalc-rules.test.yaml` holds promtool's unit tests of every rule, and
//! docs/always-on.md describes them.

use std::fmt::Write as _;

use serde::Serialize;

use crate::time::Duration;

/// The names of the series the rules read (`hpacalc serve`'s); their labels join with
/// kube-state-metrics': `namespace`, `horizontalpodautoscaler`, and per metric `metric_name` and
/// `metric_target_type` (`value`, `average` or `utilization`).
pub use crate::render::series::names as series;

/// The rule group's name, and the PrometheusRule's.
pub const GROUP: &str = "hpacalc";

/// The namespace of `contrib/deploy/`, where the PrometheusRule goes with the Deployment.
pub const NAMESPACE: &str = "hpacalc";

/// How the rules are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RulesFormat {
    /// A Prometheus rules file (`rule_files:`), `groups:` at the top.
    Plain,
    /// A prometheus-operator `PrometheusRule` (monitoring.coreos.com/v1) with the same groups.
    PrometheusRule,
}

/// How long a rule's expression must hold before it fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hold {
    Minutes(i64),
    /// A number of controller syncs (`--sync-period` each).
    Syncs(i64),
}

impl Hold {
    fn duration(self, sync_period: Duration) -> Duration {
        match self {
            Hold::Minutes(m) => Duration(m.saturating_mul(60_000)),
            Hold::Syncs(n) => Duration(sync_period.0.saturating_mul(n)),
        }
    }
}

/// One alerting rule, as data.
#[derive(Debug, Clone)]
struct Rule {
    alert: &'static str,
    /// Why the rule is what it is: written as comments above it.
    why: &'static [&'static str],
    expr: String,
    hold: Hold,
    severity: &'static str,
    summary: String,
    description: String,
}

impl Rule {
    /// The anchor of the rule's row in docs/diagnostics.md (`#alert-` and its name, lowercase).
    fn anchor(&self) -> String {
        format!("alert-{}", self.alert.to_lowercase())
    }
}

/// Where each alert's runbook row is: docs/diagnostics.md's "Alerts" table, one row a rule.
pub const RUNBOOK_BASE: &str = "https://github.com/hpacalc/hpacalc/blob/main/docs/diagnostics.md";

/// The job label of hpacalc's own scrape by default (the Service's name, which
/// prometheus-operator's ServiceMonitor gives as `job`, and the static example's `job_name`);
/// `--job` names another.
pub const JOB: &str = "hpacalc";

/// One rule as the rules file writes it (Prometheus' `rulefmt.Rule`).
#[derive(Serialize)]
struct RuleYaml<'a> {
    alert: &'a str,
    expr: &'a str,
    #[serde(rename = "for")]
    hold: String,
    labels: Labels<'a>,
    annotations: Annotations<'a>,
}

#[derive(Serialize)]
struct Labels<'a> {
    severity: &'a str,
}

#[derive(Serialize)]
struct Annotations<'a> {
    summary: &'a str,
    description: &'a str,
    runbook_url: String,
}

/// The HPA an alert is about, in its annotations.
const HPA: &str = "{{ $labels.namespace }}/{{ $labels.horizontalpodautoscaler }}";
/// What to run about it.
const RUN: &str = "hpacalc {{ $labels.horizontalpodautoscaler }} -n {{ $labels.namespace }}";
/// The metric an alert is about.
const METRIC: &str = "{{ $labels.metric_name }} ({{ $labels.metric_target_type }})";

/// The diagnostic codes that mean a metric cannot be computed (docs/diagnostics.md).
const CANNOT_COMPUTE: [&str; 2] = ["InvalidMetric", "MetricsApiUnavailable"];

/// The finding codes that mean the controller cannot read or set the target's scale, or reads no
/// metric (docs/audit.md): it does nothing for the HPA.
const CANNOT_SCALE: [&str; 3] = ["TargetMissing", "TargetKindMismatch", "AmbiguousSelector"];

/// Every rule, in the order of the file.
fn rules(sync_period: Duration, job: &str) -> Vec<Rule> {
    vec![
        at_max_above_target(),
        metric_unavailable(),
        status_mismatch(sync_period),
        missing_request(),
        near_flip(),
        cannot_scale(),
        scaling_inactive(),
        hpacalc_absent(job),
        hpacalc_stale(sync_period),
    ]
}

fn cannot_scale() -> Rule {
    Rule {
        alert: "HpaCannotScale",
        why: &[
            "An audit finding that leaves the controller nothing to do: TargetMissing (the",
            "target's scale cannot be read: AbleToScale False, FailedGetScale),",
            "TargetKindMismatch (a kind without a scale subresource) or AmbiguousSelector (another",
            "HPA selects the same pods: ScalingActive False, and no metric is read). None heals by",
            "itself; 5 minutes lets a rollout that creates the target finish. One alert per HPA.",
        ],
        expr: format!(
            "max by (namespace, horizontalpodautoscaler) (\n  {}{{code=~\"{}\"}} == 1\n)",
            series::FINDING,
            CANNOT_SCALE.join("|")
        ),
        hold: Hold::Minutes(5),
        severity: "warning",
        summary: format!("HPA {HPA} cannot scale its target"),
        description: format!(
            "{HPA} has had a finding that stops the controller for 5 minutes (TargetMissing, \
             TargetKindMismatch or AmbiguousSelector): it neither reads its metrics nor changes \
             the count. `{RUN}` names the finding and its fix."
        ),
    }
}

fn scaling_inactive() -> Rule {
    Rule {
        alert: "HpaScalingInactive",
        why: &[
            "The condition ScalingActive is False as hpacalc computes it: the controller cannot",
            "compute a count (every metric failed, or the selector is refused) and keeps the one",
            "it has. 10 minutes: longer than a metrics pipeline's restart. Not ScalingDisabled, a",
            "target scaled to 0 on purpose, which pauses the HPA (its ScalingDisabled finding is",
            "in hpacalc_finding). The reason label says which failure.",
        ],
        expr: format!(
            "{}{{condition=\"ScalingActive\",status=\"False\",reason!=\"ScalingDisabled\"}} == 1",
            series::CONDITION
        ),
        hold: Hold::Minutes(10),
        severity: "warning",
        summary: format!("HPA {HPA}: ScalingActive is False ({{{{ $labels.reason }}}})"),
        description: format!(
            "{HPA} has had ScalingActive False, reason {{{{ $labels.reason }}}}, for 10 minutes: \
             the controller computes no count and keeps the current one whatever the load. \
             `{RUN}` shows the failing metric or selector."
        ),
    }
}

fn hpacalc_absent(job: &str) -> Rule {
    let literal = promql_string(job);
    Rule {
        alert: "HpacalcAbsent",
        why: &[
            "No scrape of hpacalc succeeds: the target is not discovered (no up series) or every",
            "one is down (up 0). Then no other rule here can fire: their silence means nothing.",
            "The job label is the Service's name, hpacalc, unless `hpacalc rules --job` names another.",
        ],
        expr: format!("absent(up{{job={literal}}} == 1)"),
        hold: Hold::Minutes(5),
        severity: "warning",
        summary: "hpacalc is not scraped: the HPA alerts cannot fire".to_string(),
        description: format!(
            "No scrape of job {job} has succeeded for 5 minutes (no target, or every one is \
             down), so hpacalc's alerts about HPAs cannot fire. Check the hpacalc Deployment \
             (`kubectl -n {NAMESPACE} get pods`) and the ServiceMonitor or scrape config."
        ),
    }
}

fn hpacalc_stale(sync_period: Duration) -> Rule {
    let hold = Hold::Minutes(5);
    let late = stale_after(sync_period);
    Rule {
        alert: "HpacalcStale",
        why: &[
            "hpacalc answers scrapes but its last successful sync is old: the API server refuses",
            "its reads, or a sync takes far longer than the period. The series are the last",
            "sync's, so every HPA alert reads an old state. Late: 20 sync periods, at least 5",
            "minutes; before the first sync the time is 0, so a serve never ready fires too.",
        ],
        expr: format!("time() - {} > {}", series::LAST_SYNC, late.0 / 1000),
        hold,
        severity: "warning",
        summary: "hpacalc's last sync is old: the series are stale".to_string(),
        description: format!(
            "hpacalc at {{{{ $labels.instance }}}} has not ended a sync for more than {} (its \
             last one ended {{{{ $value | humanizeDuration }}}} ago): what it exports is old. \
             Its log says why (`kubectl -n {NAMESPACE} logs deploy/hpacalc`); \
             hpacalc_evaluation_errors_total counts the failed syncs.",
            prometheus_duration(late)
        ),
    }
}

/// When hpacalc's last sync is late: 20 sync periods, and at least 5 minutes.
fn stale_after(sync_period: Duration) -> Duration {
    Duration(sync_period.0.saturating_mul(20).max(300_000))
}

fn at_max_above_target() -> Rule {
    use series::{CURRENT_REPLICAS, MAX_REPLICAS, METRIC_TARGET, METRIC_VALUE};
    Rule {
        alert: "HpaAtMaxAboveTarget",
        why: &[
            "At (or above) maxReplicas, with a metric above its target: the controller would add",
            "replicas and maxReplicas stops it. 15 minutes: longer than a burst, and than the 5m",
            "downscale window that keeps a count up after one.",
        ],
        expr: format!(
            "({METRIC_VALUE} > {METRIC_TARGET})\n\
             and on (namespace, horizontalpodautoscaler)\n\
             ({CURRENT_REPLICAS} >= {MAX_REPLICAS})"
        ),
        hold: Hold::Minutes(15),
        severity: "warning",
        summary: format!("HPA {HPA} is at maxReplicas with {METRIC} above its target"),
        description: format!(
            "{HPA} has been at maxReplicas for 15 minutes while {METRIC} is {{{{ $value }}}}, \
             above its target: the metrics ask for more replicas than maxReplicas allows. Raise \
             maxReplicas or lower the load; `{RUN}` shows the count the metrics ask for."
        ),
    }
}

fn metric_unavailable() -> Rule {
    Rule {
        alert: "HpaMetricUnavailable",
        why: &[
            "A metric the controller cannot compute (docs/diagnostics.md): InvalidMetric (its",
            "read or its calculation fails) or MetricsApiUnavailable (the metrics API it reads is",
            "not installed or not available, so all of its metrics fail). The HPA then scales on",
            "the other metrics only, and never down. Not MissingRequest, which has a rule of its",
            "own, nor MissingMetrics: with some pods unsampled the controller still computes the",
            "metric (it recounts them). One alert per HPA, whichever codes are active.",
        ],
        expr: format!(
            "max by (namespace, horizontalpodautoscaler) (\n  {}{{code=~\"{}\"}} == 1\n)",
            series::DIAGNOSTIC,
            CANNOT_COMPUTE.join("|")
        ),
        hold: Hold::Minutes(5),
        severity: "warning",
        summary: format!("HPA {HPA} cannot compute a metric"),
        description: format!(
            "{HPA} has had a metric it cannot compute (InvalidMetric or MetricsApiUnavailable) \
             for 5 minutes: it scales on its other metrics only, and does not scale down. `{RUN}` \
             names the metric and the error."
        ),
    }
}

fn status_mismatch(sync_period: Duration) -> Rule {
    let hold = Hold::Syncs(3);
    Rule {
        alert: "HpaStatusMismatch",
        why: &[
            "The HPA's status says the controller computed another desiredReplicas than hpacalc",
            "does from the same count and metric values. One sync can disagree while a change",
            "reaches the two at different times; three in a row (hpacalc rules --sync-period)",
            "mean the controller's flags, release or inputs differ from what hpacalc sees.",
        ],
        expr: format!("{} == 1", series::STATUS_MISMATCH),
        hold,
        severity: "warning",
        summary: format!("HPA {HPA}: its status disagrees with hpacalc's computation"),
        description: format!(
            "The status of {HPA} has disagreed for 3 syncs ({}) with what hpacalc computes from \
             the same replica count and metric values: the controller's flags, its release or \
             its inputs differ from what hpacalc sees. `{RUN}` shows both numbers and the \
             likeliest cause.",
            prometheus_duration(hold.duration(sync_period))
        ),
    }
}

fn missing_request() -> Rule {
    Rule {
        alert: "HpaMissingRequest",
        why: &[
            "A container without a request for a Utilization metric's resource: the controller",
            "cannot compute that metric. It does not heal by itself; 5 minutes only lets a",
            "rollout that fixes it finish.",
        ],
        expr: format!(
            "max by (namespace, horizontalpodautoscaler) (\n  {}{{code=\"MissingRequest\"}} == 1\n)",
            series::DIAGNOSTIC
        ),
        hold: Hold::Minutes(5),
        severity: "warning",
        summary: format!("HPA {HPA}: a container has no request for a Utilization metric"),
        description: format!(
            "A container of the pods of {HPA} has had no request for the resource of a \
             Utilization metric for 5 minutes: the controller cannot compute that metric and does \
             not scale on it. Set the request (an injected sidecar's through its injector's \
             annotation); `{RUN}` names the container and the annotation."
        ),
    }
}

fn near_flip() -> Rule {
    use series::{METRIC_VALUE, SCALE_DOWN_AT, SCALE_UP_AT};
    Rule {
        alert: "HpaNearFlip",
        why: &[
            "A metric inside the hold band and within 10 % of one of its edges: at or above",
            "0.9 x scale_up_at (and below it), or at or below 1.1 x scale_down_at (and above it).",
            "Past the edge the count is changing, not about to. The edge label says which; an",
            "edge that does not exist (at maxReplicas, at minReplicas) has no series.",
        ],
        expr: format!(
            "label_replace(\n  \
               {METRIC_VALUE} >= 0.9 * {SCALE_UP_AT}\n  \
               and {METRIC_VALUE} < {SCALE_UP_AT},\n  \
               \"edge\", \"up\", \"\", \"\"\n\
             )\n\
             or\n\
             label_replace(\n  \
               {METRIC_VALUE} <= 1.1 * {SCALE_DOWN_AT}\n  \
               and {METRIC_VALUE} > {SCALE_DOWN_AT},\n  \
               \"edge\", \"down\", \"\", \"\"\n\
             )"
        ),
        hold: Hold::Minutes(10),
        severity: "info",
        summary: format!(
            "HPA {HPA}: {{{{ $labels.metric_name }}}} is within 10 % of scaling \
             {{{{ $labels.edge }}}}"
        ),
        description: format!(
            "{METRIC} of {HPA} has been within 10 % of the value where the count goes \
             {{{{ $labels.edge }}}} (hpacalc_scale_{{{{ $labels.edge }}}}_at) for 10 minutes; it \
             is {{{{ $value }}}}: a small change of load changes the replica count. `{RUN}` shows \
             the hold band and the counts on either side."
        ),
    }
}

/// A duration as Prometheus writes one (`45s`, `1m30s`, `1s500ms`): hours, minutes, seconds and
/// milliseconds, the zero ones left out.
pub fn prometheus_duration(d: Duration) -> String {
    let ms = d.0.max(0);
    if ms == 0 {
        return "0s".to_string();
    }
    let parts = [
        (ms / 3_600_000, "h"),
        (ms / 60_000 % 60, "m"),
        (ms / 1000 % 60, "s"),
        (ms % 1000, "ms"),
    ];
    parts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, unit)| format!("{n}{unit}"))
        .collect()
}

/// The longest duration Prometheus reads, in milliseconds: prometheus/common's
/// `model.ParseDuration` refuses one over `1<<63 - 1` nanoseconds ("duration out of range"),
/// about 292 years (`2562047h47m16s854ms`; promtool 2.42 reads that, and refuses a millisecond
/// more).
pub const PROMETHEUS_MAX_MILLIS: i64 = i64::MAX / 1_000_000;

/// Refuses a sync period some rule's `for:` (a multiple of it) would take past what Prometheus
/// reads: it would load none of the rules. The error says the longest period that fits.
pub fn check_sync_period(sync_period: Duration) -> Result<(), String> {
    let longest = rules(sync_period, JOB)
        .iter()
        .filter_map(|r| match r.hold {
            Hold::Syncs(n) => Some(n),
            Hold::Minutes(_) => None,
        })
        .max()
        .unwrap_or(1);
    match sync_period.0.checked_mul(longest) {
        Some(ms) if ms <= PROMETHEUS_MAX_MILLIS => Ok(()),
        _ => Err(format!(
            "found {}, expected at most {}: a rule holds for {longest} syncs, and Prometheus \
             reads no duration over {} (about 292 years)",
            prometheus_duration(sync_period),
            prometheus_duration(Duration(PROMETHEUS_MAX_MILLIS / longest)),
            prometheus_duration(Duration(PROMETHEUS_MAX_MILLIS)),
        )),
    }
}

/// A PromQL string literal of `text`: double-quoted, with `\\`, `"` and line breaks escaped.
fn promql_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The rules file, or the PrometheusRule, for this sync period and hpacalc's scrape job.
pub fn render(
    format: RulesFormat,
    sync_period: Duration,
    job: &str,
) -> Result<String, serde_yaml::Error> {
    let groups = groups(sync_period, job)?;
    let mut out = format!(
        "# Alerting rules over the series of `hpacalc serve`, from `hpacalc rules{}{}{}`.\n\
         # docs/always-on.md describes each rule; promtool tests them\n\
         # (contrib/prometheus/hpacalc-rules.test.yaml).\n",
        if format == RulesFormat::PrometheusRule {
            " --prometheus-rule"
        } else {
            ""
        },
        if sync_period == Duration(15_000) {
            String::new()
        } else {
            format!(" --sync-period {}", prometheus_duration(sync_period))
        },
        if job == JOB {
            String::new()
        } else {
            format!(" --job {}", crate::quote::escape_control(job))
        }
    );
    match format {
        RulesFormat::Plain => out.push_str(&groups),
        RulesFormat::PrometheusRule => {
            let _ = write!(
                out,
                "apiVersion: monitoring.coreos.com/v1\n\
                 kind: PrometheusRule\n\
                 metadata:\n  \
                   name: {GROUP}\n  \
                   namespace: {NAMESPACE}\n  \
                   labels:\n    \
                     app.kubernetes.io/name: hpacalc\n\
                 spec:\n"
            );
            out.push_str(&indent(&groups, "  "));
        }
    }
    Ok(out)
}

/// `groups:` with the one group of every rule, each rule under the comments of its why.
fn groups(sync_period: Duration, job: &str) -> Result<String, serde_yaml::Error> {
    let mut out = format!("groups:\n- name: {GROUP}\n  rules:\n");
    for rule in rules(sync_period, job) {
        for line in rule.why {
            let _ = writeln!(out, "  # {line}");
        }
        let yaml = serde_yaml::to_string(&[RuleYaml {
            alert: rule.alert,
            expr: &rule.expr,
            hold: prometheus_duration(rule.hold.duration(sync_period)),
            labels: Labels {
                severity: rule.severity,
            },
            annotations: Annotations {
                summary: &rule.summary,
                description: &rule.description,
                runbook_url: format!("{RUNBOOK_BASE}#{}", rule.anchor()),
            },
        }])?;
        out.push_str(&indent(&yaml, "  "));
    }
    Ok(out)
}

/// Every non-empty line of `text` behind `prefix`.
fn indent(text: &str, prefix: &str) -> String {
    text.lines()
        .map(|line| {
            if line.is_empty() {
                "\n".to_string()
            } else {
                format!("{prefix}{line}\n")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sync_period_whose_holds_prometheus_cannot_read_is_refused() {
        // The longest hold is three syncs: a third of the longest duration fits, a millisecond
        // more does not.
        let fits = Duration(PROMETHEUS_MAX_MILLIS / 3);
        assert_eq!(check_sync_period(fits), Ok(()));
        let err = check_sync_period(Duration(fits.0 + 1)).unwrap_err();
        assert!(err.contains("expected at most 854015h55m45s618ms"), "{err}");
        assert!(check_sync_period(Duration(9_999_999_999 * 3_600_000)).is_err());
        assert!(check_sync_period(Duration(i64::MAX)).is_err());
    }

    #[test]
    fn durations_are_written_as_prometheus_reads_them() {
        for (ms, text) in [
            (0, "0s"),
            (500, "500ms"),
            (45_000, "45s"),
            (90_000, "1m30s"),
            (1_500, "1s500ms"),
            (3_600_000, "1h"),
            (90_000_000, "25h"),
            (3_661_001, "1h1m1s1ms"),
        ] {
            assert_eq!(prometheus_duration(Duration(ms)), text, "{ms}");
        }
    }

    #[test]
    fn the_status_mismatch_rule_holds_for_three_syncs() {
        for (sync, hold) in [(15_000, "45s"), (30_000, "1m30s"), (500, "1s500ms")] {
            let text = render(RulesFormat::Plain, Duration(sync), JOB).unwrap();
            let doc: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
            let rules = doc["groups"][0]["rules"].as_sequence().unwrap();
            let mismatch = rules
                .iter()
                .find(|r| r["alert"].as_str() == Some("HpaStatusMismatch"))
                .unwrap();
            assert_eq!(mismatch["for"].as_str(), Some(hold), "{sync}");
            assert!(
                mismatch["annotations"]["description"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("3 syncs ({hold})"))
            );
        }
    }

    #[test]
    fn every_rule_names_the_hpa_and_what_to_run() {
        let text = render(RulesFormat::Plain, Duration(15_000), JOB).unwrap();
        let doc: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
        let rules = doc["groups"][0]["rules"].as_sequence().unwrap();
        assert_eq!(rules.len(), 9);
        for rule in rules {
            let name = rule["alert"].as_str().unwrap();
            assert!(rule["labels"]["severity"].as_str().is_some(), "{name}");
            let url = rule["annotations"]["runbook_url"].as_str().unwrap();
            assert_eq!(
                url,
                format!("{RUNBOOK_BASE}#alert-{}", name.to_lowercase()),
                "{name}"
            );
            // hpacalc's own alerts are about no HPA.
            if name.starts_with("Hpacalc") {
                continue;
            }
            for key in ["summary", "description"] {
                let text = rule["annotations"][key].as_str().unwrap();
                assert!(text.contains(HPA), "{name} {key}");
            }
            let description = rule["annotations"]["description"].as_str().unwrap();
            assert!(description.contains(RUN), "{name}");
        }
    }

    #[test]
    fn hpacalc_is_stale_after_20_syncs_and_at_least_5_minutes() {
        for (sync, late) in [(15_000, 300_000), (1_000, 300_000), (60_000, 1_200_000)] {
            assert_eq!(stale_after(Duration(sync)), Duration(late), "{sync}");
        }
        let rules = rules(Duration(60_000), JOB);
        let stale = rules.iter().find(|r| r.alert == "HpacalcStale").unwrap();
        assert!(stale.expr.ends_with("> 1200"), "{}", stale.expr);
    }

    #[test]
    fn the_absent_rule_reads_the_job_it_is_given_as_a_promql_string() {
        let rule = hpacalc_absent("prom\"etheus\\x");
        assert_eq!(rule.expr, "absent(up{job=\"prom\\\"etheus\\\\x\"} == 1)");
        let text = render(RulesFormat::Plain, Duration(15_000), "hpacalc-serve").unwrap();
        assert!(
            text.contains("absent(up{job=\"hpacalc-serve\"} == 1)"),
            "{text}"
        );
        assert!(
            text.contains("from `hpacalc rules --job hpacalc-serve`"),
            "{text}"
        );
        let default = render(RulesFormat::Plain, Duration(15_000), JOB).unwrap();
        assert!(
            default.contains("absent(up{job=\"hpacalc\"} == 1)"),
            "{default}"
        );
    }

    #[test]
    fn the_prometheus_rule_holds_the_same_groups() {
        let plain: serde_yaml::Value =
            serde_yaml::from_str(&render(RulesFormat::Plain, Duration(15_000), JOB).unwrap())
                .unwrap();
        let operator: serde_yaml::Value = serde_yaml::from_str(
            &render(RulesFormat::PrometheusRule, Duration(15_000), JOB).unwrap(),
        )
        .unwrap();
        assert_eq!(
            operator["apiVersion"].as_str(),
            Some("monitoring.coreos.com/v1")
        );
        assert_eq!(operator["kind"].as_str(), Some("PrometheusRule"));
        assert_eq!(operator["metadata"]["name"].as_str(), Some(GROUP));
        assert_eq!(operator["spec"]["groups"], plain["groups"]);
    }
}
