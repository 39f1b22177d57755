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
    /// Pods metric values, keyed by the metric's position in `spec.metrics`.
    pub pod_metrics: BTreeMap<usize, Vec<PodMetricValue>>,
    pub files: FromFiles,
    /// `--metrics` is the resource metrics API's error answer (a `Status`).
    pub resource_api_error: Option<String>,
    /// A `--custom-metrics` or `--external-metrics` file is that API's error answer.
    pub custom_api_error: Option<String>,
    pub external_api_error: Option<String>,
    /// The scale's selector failed the controller's check (`InvalidSelector`).
    pub selector_error: Option<crate::scenario::SelectorError>,
    pub now: Timestamp,
    /// `now` is the clock, later than every time in the inputs: the earliest instant they allow
    /// (the newest of their times), at which the decision is checked too.
    pub earliest_now: Option<Timestamp>,
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

/// The pods input, once read: CSV waits for `now` (its ages count back from it).
enum PodsRead {
    Csv(String, std::sync::Arc<str>),
    Captured(String, Box<pods::CapturedPods>),
    None,
}

/// Reads the pods, the resource metrics and the custom and external metrics answers; `now` is
/// `--now` when given, else the capture's time (the newest metrics sample or status condition
/// change; never a pod's start or Ready time, which can be an hour before the capture), else
/// the clock.
pub fn observe(
    given: Captures<'_>,
    loaded: &LoadedHpa,
    scope: &Scope,
    now: Option<Timestamp>,
    window: Duration,
) -> Result<Observed> {
    observe_after(given, loaded, scope, (now, None), window)
}

/// `observe`, with the newest time of the events given (`--events` with their own times, not
/// describe's ages): the capture cannot predate it either.
pub fn observe_after(
    given: Captures<'_>,
    loaded: &LoadedHpa,
    scope: &Scope,
    (now, events): (Option<Timestamp>, Option<(Timestamp, String)>),
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
        selector_error: None,
        // Set below, before anything reads it.
        now: Timestamp::GO_ZERO,
        earliest_now: None,
        notes: Vec::new(),
        warnings: Vec::new(),
        diagnostics: Vec::new(),
        target: None,
        sources: Vec::new(),
    };
    // `newest`: the capture's own time (a sample's, an answer's); `bound`: every time the
    // capture cannot predate (the status's conditions, the pods' start and Ready transitions).
    let (mut newest, mut bound) = (Newest::default(), Newest::default());
    let have_pods = given.pods.is_some();
    let usage_given = given.metrics.is_some();
    let pods = read_pods(given.pods, usage_given, scope, loaded, &mut out)?;
    bound_by_inputs(&mut bound, loaded, events, &pods);
    let no_excluded = HashSet::new();
    let excluded = match &pods {
        PodsRead::Captured(_, c) => &c.excluded,
        _ => &no_excluded,
    };
    let resource = read_resource(given.metrics, scope, excluded, &mut out, &mut newest)?;
    let custom_values = read_answers(
        given.custom,
        Api::Custom,
        &mut out,
        &mut newest,
        |f, t, m| custom::parse_custom(f, t, m).map(|v| (custom::newest(&v, &[]), v)),
    )?;
    let external_values = read_answers(
        given.external,
        Api::External,
        &mut out,
        &mut newest,
        |f, t, m| custom::parse_external(f, t, m).map(|v| (custom::newest(&[], &v), v)),
    )?;
    out.now = evaluation_time(now, &newest, &bound, &mut out);

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
    match pods {
        PodsRead::Csv(file, text) => {
            let csv = CsvPods {
                file: &file,
                text: &text,
                answered: &pods_metric_files,
                usage_given: resource.is_some(),
                custom_given: !given.custom.is_empty(),
            };
            csv.read(specs, scope, window, &mut out)?;
        }
        PodsRead::Captured(file, captured) => {
            captured_pods(
                &file,
                *captured,
                specs,
                &pods_metric_files,
                resource.is_none(),
                &mut out,
            );
        }
        PodsRead::None => {}
    }
    out.pod_metrics.extend(pods_metric_files);
    if let Some((file, captured)) = resource {
        resource_metrics(&file, captured, window, have_pods, &mut out);
    }
    if have_pods {
        for (&i, values) in &out.pod_metrics {
            let name = specs
                .get(i)
                .map(MetricSpec::metric_name)
                .unwrap_or_default();
            // An entry of one name with the same values as an earlier one: said once.
            let said = (out.pod_metrics.range(..i)).any(|(&j, earlier)| {
                earlier == values && specs.get(j).map(MetricSpec::metric_name) == Some(name)
            });
            if said {
                continue;
            }
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

fn source(fact: &str, form: &str, file: Option<&str>) -> crate::report::FactSource {
    crate::report::FactSource::new(fact, form, file)
}

/// `--pods`: kubectl output is read now, CSV once `now` is known.
fn read_pods(
    given: Option<Given<pods::CapturedPods>>,
    usage_given: bool,
    scope: &Scope,
    loaded: &LoadedHpa,
    out: &mut Observed,
) -> Result<PodsRead> {
    Ok(match given {
        Some(Given::Read { name, value }) => {
            out.sources
                .push(source("pods", "kubectl get pods", Some(&name)));
            PodsRead::Captured(name, Box::new(value))
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
                    PodsRead::Csv(file, text)
                }
                format => {
                    out.sources
                        .push(source("pods", "kubectl get pods", Some(&file)));
                    let captured = pods::parse(&file, &text, format, scope, &loaded.spec.target)
                        .map_err(|e| recognize::or_helm(e, &file, recognize::Given::Pods, &text))?;
                    PodsRead::Captured(file, Box::new(captured))
                }
            }
        }
        None => PodsRead::None,
    })
}

/// `--metrics`: a PodMetricsList or `kubectl top` text.
fn read_resource(
    given: Option<Given<metrics::CapturedMetrics>>,
    scope: &Scope,
    excluded: &HashSet<String>,
    out: &mut Observed,
    newest: &mut Newest,
) -> Result<Option<(String, metrics::CapturedMetrics)>> {
    Ok(match given {
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
            Some((file, captured))
        }
        Some(Given::Read { name, value }) => {
            out.sources
                .push(source("resourceMetrics", "PodMetricsList", Some(&name)));
            newest.offer(value.newest(), &name);
            Some((name, value))
        }
        None => None,
    })
}

/// The custom or the external metrics API.
#[derive(Clone, Copy)]
enum Api {
    Custom,
    External,
}

/// Each answer of one metrics API: its values, or its error answer (a `Status`).
fn read_answers<V>(
    answers: &[Text],
    api: Api,
    out: &mut Observed,
    newest: &mut Newest,
    parse: impl Fn(&str, &str, Format) -> Result<(Option<Timestamp>, Vec<V>), InputError>,
) -> Result<Vec<V>> {
    let (fact, list, word) = match api {
        Api::Custom => ("customMetrics", "MetricValueList", "custom"),
        Api::External => ("externalMetrics", "ExternalMetricValueList", "external"),
    };
    let mut all = Vec::new();
    for Text { name: file, text } in answers {
        let format = api_format(file, text)?;
        if let Some(e) = metrics::api_status(file, text, format)? {
            out.sources.push(source(fact, "Status", Some(file)));
            api_error_note(&mut out.notes, file, word, &e);
            let slot = match api {
                Api::Custom => &mut out.custom_api_error,
                Api::External => &mut out.external_api_error,
            };
            slot.get_or_insert(e);
            continue;
        }
        out.sources.push(source(fact, list, Some(file)));
        let (time, values) = parse(file, text, format)?;
        newest.offer(time, file);
        all.extend(values);
    }
    Ok(all)
}

/// `--now`; else the capture's time (a sample's), but never before a time the capture cannot
/// predate (`bound`); else the clock, when not earlier than every such time (else the newest of
/// them). Each is said in the assumptions.
fn evaluation_time(
    now: Option<Timestamp>,
    newest: &Newest,
    bound: &Newest,
    out: &mut Observed,
) -> Timestamp {
    out.sources.push(match (now, &newest.0) {
        (Some(_), _) => source("now", "flag", Some("--now")),
        (None, Some((_, file))) => source("now", "newest time in the inputs", Some(file)),
        (None, None) => source("now", "clock", None),
    });
    if let Some(t) = now {
        return t;
    }
    let later = |t: Timestamp| bound.0.as_ref().filter(|(b, _)| b.after(t));
    if let Some((t, file)) = &newest.0 {
        if let Some((b, in_file)) = later(*t) {
            out.notes.push(format!(
                "No --now: the newest sample time, {} (in {file}), is before {} (in {in_file}), \
                 which the capture cannot predate: evaluated at {}.",
                t.to_rfc3339(),
                b.to_rfc3339(),
                b.to_rfc3339()
            ));
            return *b;
        }
        out.notes.push(format!(
            "No --now: evaluated at {}, the newest time in the inputs (in {file}).",
            t.to_rfc3339()
        ));
        return *t;
    }
    // Whole seconds, as kubectl and the API write times.
    let clock = Timestamp(jiff::Timestamp::now().as_second().saturating_mul(1000));
    let said = "No --now, and no time of the capture in the inputs (a pod's start or Ready time is \
                not one; kubectl top text has none)";
    match &bound.0 {
        Some((b, in_file)) if b.after(clock) => {
            out.notes.push(format!(
                "{said}: the current time is before {} (in {in_file}), which the capture cannot \
                 predate: evaluated at {}. Pass --now with the time of the capture.",
                b.to_rfc3339(),
                b.to_rfc3339()
            ));
            *b
        }
        Some((b, in_file)) => {
            out.notes.push(format!(
                "{said}: evaluated at the current time, {}; the inputs allow any time from {} \
                 (in {in_file}). Pass --now with the time of the capture.",
                clock.to_rfc3339(),
                b.to_rfc3339()
            ));
            out.earliest_now = Some(*b);
            clock
        }
        None => {
            out.notes.push(format!(
                "{said}: evaluated at the current time, {}. Pass --now with the time of the \
                 capture.",
                clock.to_rfc3339()
            ));
            clock
        }
    }
}

/// Every time in the inputs the capture cannot predate: the events', the status's conditions and
/// `lastScaleTime`, the pods' start and Ready transitions, a ScaledObject's `lastActiveTime`.
fn bound_by_inputs(
    bound: &mut Newest,
    loaded: &LoadedHpa,
    events: Option<(Timestamp, String)>,
    pods: &PodsRead,
) {
    let status_times = (loaded.status.conditions.iter())
        .filter_map(|c| c.last_transition_time.as_deref())
        .chain(loaded.status.last_scale_time.as_deref())
        .filter_map(Timestamp::parse_rfc3339);
    if let Some((t, file)) = events {
        bound.offer(Some(t), &file);
    }
    bound.offer(
        status_times.max(),
        loaded.source.file.as_deref().unwrap_or("the HPA"),
    );
    if let PodsRead::Captured(file, captured) = pods {
        bound.offer(captured.newest, file);
    }
    // A ScaledObject's status.lastActiveTime: KEDA wrote it at a poll before the capture.
    bound.offer(
        (loaded.keda.as_ref()).and_then(|t| t.keda.input.last_active),
        loaded.source.file.as_deref().unwrap_or("the ScaledObject"),
    );
}

/// CSV samples as the pods, once `now` is known.
struct CsvPods<'a> {
    file: &'a str,
    text: &'a str,
    /// The Pods metrics `--custom-metrics` answered: they need no CSV column.
    answered: &'a BTreeMap<usize, Vec<PodMetricValue>>,
    usage_given: bool,
    custom_given: bool,
}

impl CsvPods<'_> {
    fn read(
        &self,
        specs: &[MetricSpec],
        scope: &Scope,
        window: Duration,
        out: &mut Observed,
    ) -> Result<()> {
        let file = self.file;
        let csv_specs: Vec<MetricSpec> = (specs.iter().enumerate())
            .filter(|&(i, s)| {
                !(matches!(s, MetricSpec::Pods { .. }) && self.answered.contains_key(&i))
            })
            .map(|(_, s)| s.clone())
            .collect();
        let answered: Vec<String> = (self.answered.keys())
            .filter_map(|&i| specs.get(i).map(|s| s.metric_name().to_string()))
            .collect();
        let settings = samples::SampleSettings {
            now: out.now,
            window,
            usage_given: self.usage_given,
            custom_answered: self.custom_given,
            other_names: &answered,
        };
        let parsed = samples::parse(file, self.text, &csv_specs, &settings)
            .map_err(|e| recognize::or_helm(e, file, recognize::Given::Pods, self.text))?;
        out.warnings.extend(parsed.warnings);
        for spec in &csv_specs {
            if let MetricSpec::Pods { metric, .. } = spec
                && !parsed.pod_metrics.contains_key(&metric.name)
                && self.custom_given
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
                "{file}: CSV samples carry no labels: the selector {selector} is not applied to \
                 them"
            ));
        }
        out.pods = parsed.pods;
        out.pod_metrics = csv_by_entry(specs, self.answered, parsed.pod_metrics);
        let notes = custom::same_name_pods(specs, &out.pod_metrics, file, |_| true);
        out.notes.extend(notes);
        if self.usage_given && !parsed.resource_metrics.is_empty() {
            out.warnings.push(format!(
                "{file}: the usage columns are ignored: --metrics gives the usage"
            ));
        }
        if !self.usage_given {
            out.resource_metrics = parsed.resource_metrics;
        }
        Ok(())
    }
}

/// The CSV's Pods metric columns (by name) as the values of each Pods entry of that name that
/// `--custom-metrics` did not answer. A column carries no metric selector, so entries of one name
/// share it (`custom::same_name_pods` says so when their selectors differ).
fn csv_by_entry(
    specs: &[MetricSpec],
    answered: &BTreeMap<usize, Vec<PodMetricValue>>,
    by_name: BTreeMap<String, Vec<PodMetricValue>>,
) -> BTreeMap<usize, Vec<PodMetricValue>> {
    (specs.iter().enumerate())
        .filter(|(i, _)| !answered.contains_key(i))
        .filter_map(|(i, s)| match s {
            MetricSpec::Pods { metric, .. } => by_name.get(&metric.name).map(|v| (i, v.clone())),
            _ => None,
        })
        .collect()
}

/// kubectl's pods as the pods, and what they cannot say.
fn captured_pods(
    file: &str,
    captured: pods::CapturedPods,
    specs: &[MetricSpec],
    answered: &BTreeMap<usize, Vec<PodMetricValue>>,
    no_usage: bool,
    out: &mut Observed,
) {
    out.pods = captured.pods;
    out.target = captured.target;
    out.notes.extend(captured.notes);
    out.warnings.extend(captured.warnings);
    out.diagnostics.extend(captured.diagnostics);
    if no_usage
        && specs
            .iter()
            .any(|s| matches!(s, MetricSpec::Resource { .. }))
    {
        out.notes.push(format!(
            "{file} holds no usage and no --metrics was given: the resource metrics API answers \
             nothing (pass --metrics with a PodMetricsList or kubectl top output)."
        ));
    }
    for (i, spec) in specs.iter().enumerate() {
        if let MetricSpec::Pods { metric, .. } = spec
            && !answered.contains_key(&i)
        {
            out.notes.push(format!(
                "Pods metric {}: no value in --custom-metrics: the custom metrics API answers \
                 nothing.",
                metric.name
            ));
        }
    }
}

/// The resource metrics API's items, or its error answer.
fn resource_metrics(
    file: &str,
    captured: metrics::CapturedMetrics,
    window: Duration,
    have_pods: bool,
    out: &mut Observed,
) {
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
        file,
        &out.pods,
        out.resource_metrics.iter().map(|m| m.pod.as_str()),
        have_pods,
    );
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
            overhead: None,
            placement: Default::default(),
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
