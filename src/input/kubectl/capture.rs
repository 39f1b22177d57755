//! Reads the pods and metrics files a sync needs, in whichever form they come (kubectl output or
//! CSV samples), picks the evaluation time, and says what the controller would have seen
//! differently: the files' namespaces and selectors, pods without samples, samples without pods.

use std::collections::{BTreeMap, HashSet};

use anyhow::Result;

use super::{Format, Scope, custom, detect, metrics, name_list, pods};
use crate::error::InputError;
use crate::input::inputs::{Given, Text};
use crate::input::manifest::{HpaStatus, LoadedHpa};
use crate::input::selector::Selector;
use crate::input::values::FromFiles;
use crate::input::{recognize, samples};
use crate::scenario::{
    HpaSpec, MetricSpec, ObservedMetric, ObservedStatus, Pod, PodMetricValue, PodMetrics,
};
use crate::time::{Duration, Timestamp};

/// Everything the pods and metrics files say, ready for the scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Observed {
    pub pods: Vec<Pod>,
    pub resource_metrics: Vec<PodMetrics>,
    pub pod_metrics: BTreeMap<String, Vec<PodMetricValue>>,
    pub files: FromFiles,
    /// `--metrics` is the resource metrics API's error answer (a `Status`).
    pub resource_api_error: Option<String>,
    /// A `--custom-metrics` or `--external-metrics` file is that API's error answer.
    pub custom_api_error: Option<String>,
    pub external_api_error: Option<String>,
    pub now: Timestamp,
    pub notes: Vec<String>,
    pub warnings: Vec<String>,
    /// Named causes the captures show (`SelectorOverlap`).
    pub diagnostics: Vec<crate::report::Diagnostic>,
    /// The HPA's scale target, when the pods file holds it.
    pub target: Option<crate::input::target::TargetScale>,
    /// Which form each file was, for the report's `sources`.
    pub sources: Vec<crate::report::FactSource>,
}

/// Applies `-n` to the HPA and parses `-l`: the scope the files are filtered by.
pub fn scope(
    namespace: Option<&str>,
    selector: Option<&str>,
    hpa: &mut HpaSpec,
) -> Result<Scope, InputError> {
    if let Some(ns) = namespace {
        if ns.is_empty() {
            return Err(InputError::new(
                "--namespace",
                "found an empty namespace, expected a name",
            ));
        }
        if hpa.namespace != ns {
            // The manifest reader puts an HPA without a namespace in `default`, as kubectl does.
            if hpa.namespace != "default" {
                return Err(InputError::new(
                    "--namespace",
                    format!(
                        "found {}, expected the HPA's namespace {} from the manifest \
                         (kubectl also refuses a -n that differs from the object's namespace)",
                        crate::error::quoted(ns),
                        crate::error::quoted(&hpa.namespace)
                    ),
                ));
            }
            hpa.namespace = ns.to_string();
        }
    }
    let selector = selector
        .map(|text| Selector::parse(text).map_err(|e| InputError::new("--selector", e)))
        .transpose()?;
    Ok(Scope {
        namespace: hpa.namespace.clone(),
        selector,
        selector_is_targets: false,
    })
}

/// The manifest's status as the scenario carries it, when it has anything to compare.
pub fn observed_status(status: &HpaStatus) -> Option<ObservedStatus> {
    let has_any = status.desired_replicas.is_some() || !status.current_metrics.is_empty();
    has_any.then(|| ObservedStatus {
        current_replicas: status.current_replicas,
        desired_replicas: status.desired_replicas,
        conditions: status.conditions.clone(),
        current_metrics: status
            .current_metrics
            .iter()
            .map(|m| ObservedMetric {
                metric_type: m.metric_type.clone(),
                name: m.name.clone(),
                value_milli: m.value_milli,
                average_value_milli: m.average_value_milli,
                average_utilization: m.average_utilization,
            })
            .collect(),
    })
}

/// The newest time seen so far, and the file it came from.
#[derive(Default)]
struct Newest(Option<(Timestamp, String)>);

impl Newest {
    fn offer(&mut self, time: Option<Timestamp>, file: &str) {
        if let Some(t) = time
            && self.0.as_ref().is_none_or(|(best, _)| t > *best)
        {
            self.0 = Some((t, file.to_string()));
        }
    }
}

/// The pods and metrics inputs of one sync.
pub struct Captures<'a> {
    pub pods: Option<Given<pods::CapturedPods>>,
    pub metrics: Option<Given<metrics::CapturedMetrics>>,
    pub custom: &'a [Text],
    pub external: &'a [Text],
}

/// Reads the pods, the resource metrics and the custom and external metrics answers; `now` is
/// `--now` when given, else the newest time in the kubectl inputs, else the clock.
pub fn observe(
    given: Captures<'_>,
    loaded: &LoadedHpa,
    scope: &Scope,
    now: Option<Timestamp>,
    window: Duration,
) -> Result<Observed> {
    let specs = &loaded.spec.metrics;
    let mut out = Observed {
        pods: Vec::new(),
        resource_metrics: Vec::new(),
        pod_metrics: BTreeMap::new(),
        files: FromFiles::default(),
        resource_api_error: None,
        custom_api_error: None,
        external_api_error: None,
        // Set below, before anything reads it.
        now: Timestamp::GO_ZERO,
        notes: Vec::new(),
        warnings: Vec::new(),
        diagnostics: Vec::new(),
        target: None,
        sources: Vec::new(),
    };
    let mut newest = Newest::default();
    let source = crate::report::FactSource::new;

    // The pods: kubectl output now, CSV once `now` is known (its ages count back from it).
    let mut csv: Option<(String, std::sync::Arc<str>)> = None;
    let mut captured_pods: Option<(String, pods::CapturedPods)> = None;
    let have_pods = given.pods.is_some();
    let usage_given = given.metrics.is_some();
    match given.pods {
        Some(Given::Read { name, value }) => {
            out.sources
                .push(source("pods", "kubectl get pods", Some(&name)));
            newest.offer(value.newest, &name);
            captured_pods = Some((name, value));
        }
        Some(Given::Text(Text { name: file, text })) => {
            // `what` returns at once for JSON: a large capture is not scanned.
            if let Some(found) = recognize::what(&text) {
                return Err(recognize::refusal(&file, recognize::Given::Pods, found).into());
            }
            match detect(&text) {
                Format::Text => {
                    out.sources.push(source("pods", "samples CSV", Some(&file)));
                    if !usage_given {
                        out.sources
                            .push(source("resourceMetrics", "samples CSV", Some(&file)));
                    }
                    csv = Some((file, text));
                }
                format => {
                    out.sources
                        .push(source("pods", "kubectl get pods", Some(&file)));
                    let captured = pods::parse(&file, &text, format, scope, &loaded.spec.target)
                        .map_err(|e| recognize::or_helm(e, &file, recognize::Given::Pods, &text))?;
                    newest.offer(captured.newest, &file);
                    captured_pods = Some((file, captured));
                }
            }
        }
        None => {}
    }
    let no_excluded = HashSet::new();
    let excluded = captured_pods
        .as_ref()
        .map_or(&no_excluded, |(_, c)| &c.excluded);

    let mut resource = None;
    match given.metrics {
        Some(Given::Text(Text { name: file, text })) => {
            let format = detect(&text);
            let form = if format == Format::Text {
                "kubectl top pods"
            } else {
                "PodMetricsList"
            };
            out.sources
                .push(source("resourceMetrics", form, Some(&file)));
            let captured = metrics::parse(&file, &text, format, scope, excluded)?;
            newest.offer(captured.newest(), &file);
            resource = Some((file, captured));
        }
        Some(Given::Read { name, value }) => {
            out.sources
                .push(source("resourceMetrics", "PodMetricsList", Some(&name)));
            newest.offer(value.newest(), &name);
            resource = Some((name, value));
        }
        None => {}
    }

    let mut custom_values = Vec::new();
    for Text { name: file, text } in given.custom {
        let format = api_format(file, text)?;
        if let Some(e) = metrics::api_status(file, text, format)? {
            out.sources
                .push(source("customMetrics", "Status", Some(file)));
            api_error_note(&mut out.notes, file, "custom", &e);
            out.custom_api_error.get_or_insert(e);
            continue;
        }
        out.sources
            .push(source("customMetrics", "MetricValueList", Some(file)));
        let values = custom::parse_custom(file, text, format)?;
        newest.offer(custom::newest(&values, &[]), file);
        custom_values.extend(values);
    }
    let mut external_values = Vec::new();
    for Text { name: file, text } in given.external {
        let format = api_format(file, text)?;
        if let Some(e) = metrics::api_status(file, text, format)? {
            out.sources
                .push(source("externalMetrics", "Status", Some(file)));
            api_error_note(&mut out.notes, file, "external", &e);
            out.external_api_error.get_or_insert(e);
            continue;
        }
        out.sources.push(source(
            "externalMetrics",
            "ExternalMetricValueList",
            Some(file),
        ));
        let values = custom::parse_external(file, text, format)?;
        newest.offer(custom::newest(&[], &values), file);
        external_values.extend(values);
    }

    out.sources.push(match (now, &newest.0) {
        (Some(_), _) => source("now", "flag", Some("--now")),
        (None, Some((_, file))) => source("now", "newest time in the inputs", Some(file)),
        (None, None) => source("now", "clock", None),
    });
    out.now = match (now, &newest.0) {
        (Some(t), _) => t,
        (None, Some((t, file))) => {
            out.notes.push(format!(
                "No --now: evaluated at {}, the newest time in the inputs (in {file}).",
                t.to_rfc3339()
            ));
            *t
        }
        (None, None) => Timestamp(jiff::Timestamp::now().as_millisecond()),
    };

    let from_files = custom::match_metrics(
        specs,
        &custom_values,
        &external_values,
        scope,
        excluded,
        out.now,
    );
    out.notes.extend(from_files.notes);
    out.warnings.extend(from_files.warnings);
    out.files = FromFiles {
        object: from_files.object,
        external: from_files.external,
        custom_answered: !given.custom.is_empty(),
        external_answered: !given.external.is_empty(),
    };
    let pods_metric_files = from_files.pods;

    match (csv, captured_pods) {
        (Some((file, text)), _) => {
            // Pods metrics answered by --custom-metrics need no CSV column.
            let csv_specs: Vec<MetricSpec> = specs
                .iter()
                .filter(|s| {
                    !matches!(s, MetricSpec::Pods { metric, .. }
                        if pods_metric_files.contains_key(&metric.name))
                })
                .cloned()
                .collect();
            let answered: Vec<String> = pods_metric_files.keys().cloned().collect();
            let parsed = samples::parse(
                &file,
                &text,
                &csv_specs,
                &samples::SampleSettings {
                    now: out.now,
                    window,
                    usage_given: resource.is_some(),
                    custom_answered: !given.custom.is_empty(),
                    other_names: &answered,
                },
            )
            .map_err(|e| recognize::or_helm(e, &file, recognize::Given::Pods, &text))?;
            out.warnings.extend(parsed.warnings);
            for spec in &csv_specs {
                if let MetricSpec::Pods { metric, .. } = spec
                    && !parsed.pod_metrics.contains_key(&metric.name)
                    && !given.custom.is_empty()
                {
                    out.notes.push(format!(
                        "Pods metric {}: no item in --custom-metrics and no value in {file}: the \
                         custom metrics API answers nothing, a failed metric.",
                        metric.name
                    ));
                }
            }
            if let Some(selector) = &scope.selector {
                out.warnings.push(format!(
                    "{file}: CSV samples carry no labels: the selector {selector} is not applied \
                     to them"
                ));
            }
            out.pods = parsed.pods;
            out.pod_metrics = parsed.pod_metrics;
            if resource.is_some() && !parsed.resource_metrics.is_empty() {
                out.warnings.push(format!(
                    "{file}: the usage columns are ignored: --metrics gives the usage"
                ));
            }
            if resource.is_none() {
                out.resource_metrics = parsed.resource_metrics;
            }
        }
        (None, Some((file, captured))) => {
            out.pods = captured.pods;
            out.target = captured.target;
            out.notes.extend(captured.notes);
            out.warnings.extend(captured.warnings);
            out.diagnostics.extend(captured.diagnostics);
            if resource.is_none()
                && specs
                    .iter()
                    .any(|s| matches!(s, MetricSpec::Resource { .. }))
            {
                out.notes.push(format!(
                    "{file} holds no usage and no --metrics was given: the resource metrics API \
                     answers nothing (pass --metrics with a PodMetricsList or kubectl top output)."
                ));
            }
            for spec in specs {
                if let MetricSpec::Pods { metric, .. } = spec
                    && !pods_metric_files.contains_key(&metric.name)
                {
                    out.notes.push(format!(
                        "Pods metric {}: no value in --custom-metrics: the custom metrics API \
                         answers nothing.",
                        metric.name
                    ));
                }
            }
        }
        (None, None) => {}
    }
    out.pod_metrics.extend(pods_metric_files);

    if let Some((file, captured)) = resource {
        if let Some(e) = &captured.api_error {
            out.notes.push(format!(
                "{file} is the resource metrics API's error answer: \"{e}\"; the controller's \
                 resource metrics fail with it."
            ));
        }
        out.resource_api_error.clone_from(&captured.api_error);
        out.notes.extend(captured.notes.iter().cloned());
        out.warnings.extend(captured.warnings.iter().cloned());
        out.resource_metrics = captured.into_pod_metrics(out.now, window);
        note_strays(
            &mut out.notes,
            &file,
            &out.pods,
            out.resource_metrics.iter().map(|m| m.pod.as_str()),
            have_pods,
        );
    }
    if have_pods {
        for (name, values) in &out.pod_metrics {
            note_strays(
                &mut out.notes,
                &format!("Pods metric {name}"),
                &out.pods,
                values.iter().map(|v| v.pod.as_str()),
                true,
            );
        }
    }
    Ok(out)
}

/// Metrics APIs answer JSON, or YAML when converted; anything else is refused.
fn api_error_note(notes: &mut Vec<String>, file: &str, api: &str, e: &str) {
    notes.push(format!(
        "{file} is the {api} metrics API's error answer: \"{e}\"; the controller's {api} \
         metrics without a value in another file fail with it."
    ));
}

fn api_format(file: &str, text: &str) -> Result<Format, InputError> {
    match detect(text) {
        Format::Text => Err(InputError::new(
            file,
            "found text that is neither JSON nor YAML, expected what kubectl get --raw prints"
                .to_string(),
        )
        .at(1, Some(1))),
        format => Ok(format),
    }
}

/// Samples of pods the pod list does not hold: the controller lists pods and asks for metrics
/// separately, so it sees them too, and counts them where its code does.
fn note_strays<'a>(
    notes: &mut Vec<String>,
    what: &str,
    pods: &[Pod],
    sampled: impl Iterator<Item = &'a str>,
    have_pods: bool,
) {
    if !have_pods {
        return;
    }
    let known: HashSet<&str> = pods.iter().map(|p| p.name.as_str()).collect();
    let strays: Vec<&str> = sampled.filter(|p| !known.contains(p)).collect();
    if strays.is_empty() {
        return;
    }
    notes.push(format!(
        "{what}: samples for {} pod(s) not in the pod list ({}). The controller lists pods and \
         metrics separately and keeps them as it does: a Utilization metric skips them (no \
         request), but they count in the recount's number of samples and in AverageValue and \
         Pods metric averages.",
        strays.len(),
        name_list(&strays, 3)
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ObjectReference;

    fn hpa(namespace: &str) -> HpaSpec {
        HpaSpec {
            name: "web".into(),
            namespace: namespace.into(),
            target: ObjectReference::default(),
            min_replicas: 1,
            max_replicas: 3,
            metrics: Vec::new(),
            behavior: None,
        }
    }

    #[test]
    fn the_namespace_flag_acts_as_kubectl_does_on_files() {
        // (manifest namespace, -n, resulting namespace or the error's start)
        let cases: &[(&str, Option<&str>, Result<&str, &str>)] = &[
            ("shop", None, Ok("shop")),
            ("shop", Some("shop"), Ok("shop")),
            ("default", Some("shop"), Ok("shop")),
            (
                "shop",
                Some("prod"),
                Err("found \"prod\", expected the HPA's namespace \"shop\""),
            ),
            ("shop", Some(""), Err("found an empty namespace")),
        ];
        for &(manifest, flag, want) in cases {
            let mut spec = hpa(manifest);
            match (scope(flag, None, &mut spec), want) {
                (Ok(s), Ok(ns)) => {
                    assert_eq!(s.namespace, ns, "{manifest} -n {flag:?}");
                    assert_eq!(spec.namespace, ns, "{manifest} -n {flag:?}");
                }
                (Err(e), Err(message)) => {
                    assert_eq!(e.file, "--namespace");
                    assert!(e.message.starts_with(message), "{e}");
                }
                (got, _) => panic!("{manifest} -n {flag:?}: {got:?}"),
            }
        }
    }

    #[test]
    fn a_bad_selector_is_a_flag_error() {
        let err = scope(None, Some("app in web"), &mut hpa("shop")).unwrap_err();
        assert_eq!(err.file, "--selector");
        let ok = scope(None, Some("app=web"), &mut hpa("shop")).unwrap();
        assert_eq!(ok.selector.unwrap().to_string(), "app=web");
    }

    #[test]
    fn only_a_status_with_something_to_compare_is_observed() {
        assert_eq!(observed_status(&HpaStatus::default()), None);
        let status = HpaStatus {
            current_replicas: Some(4),
            desired_replicas: Some(5),
            ..HpaStatus::default()
        };
        let observed = observed_status(&status).unwrap();
        assert_eq!(observed.desired_replicas, Some(5));
        assert_eq!(observed.current_replicas, Some(4));
    }

    #[test]
    fn samples_of_unlisted_pods_are_named() {
        let pod = |name: &str| Pod {
            name: name.into(),
            phase: crate::scenario::PodPhase::Running,
            deleting: false,
            start_time: None,
            ready: None,
            containers: Vec::new(),
            pod_requests: None,
        };
        let mut notes = Vec::new();
        note_strays(
            &mut notes,
            "m.json",
            &[pod("a")],
            ["a", "b"].into_iter(),
            true,
        );
        assert_eq!(notes.len(), 1);
        assert!(notes[0].starts_with("m.json: samples for 1 pod(s) not in the pod list (b)"));
        note_strays(&mut notes, "m.json", &[], ["b"].into_iter(), false);
        assert_eq!(
            notes.len(),
            1,
            "without a pod list there is nothing to compare"
        );
    }
}
