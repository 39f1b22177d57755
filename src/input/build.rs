//! `Inputs` → `Scenario`: every input parsed by the reader of its format and validated into the
//! one value the calculation trusts. The phases read as the controller's sync does: the HPA, the
//! scope its target gives, the pods and metrics, the past, the counts, KEDA's step, the values.

use anyhow::{Result, bail};

use super::inputs::{Given, Inputs, Settings, Text};
use super::kubectl::{self, capture};
use super::manifest::LoadedHpa;
use super::{keda, nodes, past, paste, recognize, required, samples, sources, target, values};
use crate::report::{Diagnostic, Severity};
use crate::scenario::{Scenario, Source};

/// Reads `--hpa`, in whichever form it comes: a manifest or ScaledObject, or pasted text.
pub fn load_hpa(hpa: &Text, settings: &Settings) -> Result<LoadedHpa> {
    let (file, text) = (&hpa.name, &*hpa.text);
    let name = settings.name.as_deref();
    Ok(match paste::detect(text) {
        Some(form) => {
            let namespace = settings.namespace.as_deref();
            let chosen = match form {
                paste::Form::Describe => {
                    let mut all = paste::describe::parse(file, text)?;
                    paste::in_namespace(&mut all, namespace);
                    paste::choose(file, all, name)?
                }
                // A `get hpa -w` capture may hold a row per change of every HPA: read as a
                // stream, the chosen HPA's last row alone read whole.
                paste::Form::Table => paste::table::parse_one(file, text, namespace, name)?,
            };
            chosen.into_loaded(file, form)?
        }
        None => {
            // Other text that is not a manifest (`kubectl top`): say what it is.
            if let Some(found) = recognize::what(text) {
                bail!(recognize::refusal(file, recognize::Given::Hpa, found));
            }
            super::manifest::load(file, text, name)
                .map_err(|e| recognize::or_helm(e, file, recognize::Given::Hpa, text))?
        }
    })
}

/// What `--print-hpa` prints.
pub enum PrintedHpa {
    /// The HPA KEDA creates from a ScaledObject, as KEDA writes it.
    Keda(serde_json::Value),
    /// The HPA alone, scoped to `-n` as the calculation would see it, with the status it carries.
    Hpa(
        Box<(
            crate::scenario::HpaSpec,
            Option<crate::scenario::ObservedStatus>,
        )>,
    ),
}

/// `--print-hpa`: the HPA hpacalc uses, and the warnings found on the way.
pub fn hpa_only(hpa: &Text, settings: &Settings) -> Result<(PrintedHpa, Vec<String>)> {
    let mut loaded = load_hpa(hpa, settings)?;
    if let Some(translated) = loaded.keda {
        return Ok((PrintedHpa::Keda(translated.hpa), loaded.warnings));
    }
    capture::scope(
        settings.namespace.as_deref(),
        settings.selector.as_deref(),
        &mut loaded.spec,
    )?;
    let status = capture::observed_status(&loaded.status);
    Ok((
        PrintedHpa::Hpa(Box::new((loaded.spec, status))),
        loaded.warnings,
    ))
}

/// Every input read by the reader of its format: the HPA, the scope its target gives, the pods
/// and metrics, the past.
struct Read {
    settings: Settings,
    loaded: LoadedHpa,
    scale: Option<(kubectl::scale::Scale, String)>,
    /// The error the scale read answered: the sync stops there.
    scale_error: Option<String>,
    target: Option<Given<target::TargetScale>>,
    have_pods: bool,
    live: Option<super::inputs::LiveSource>,
    observed: capture::Observed,
    samples: samples::Samples,
    past: past::Past,
    nodes: (Option<Text>, Option<Text>),
    node_groups: Option<Text>,
    /// `--nodepool` and friends, with the target's pod constraints read before the target goes.
    karpenter: Option<(
        super::inputs::KarpenterTexts,
        crate::scenario::karpenter::PodConstraints,
    )>,
    said: Said,
}

/// Reads every input; the inputs are taken whole: pods read already (live, audit) move on,
/// never copied.
/// A `--scale` file that holds the API's error answer to the scale read (live `--save` keeps it
/// so) is the controller's FailedGetScale, as an audit's unread scale.
fn scale_or_its_error(
    scale: Option<Text>,
    scale_error: Option<target::ScaleUnread>,
) -> Result<(Option<Text>, Option<target::ScaleUnread>)> {
    let Some(t) = scale else {
        return Ok((None, scale_error));
    };
    Ok(
        match kubectl::metrics::api_status(&t.name, &t.text, kubectl::detect(&t.text))? {
            Some(message) => (
                None,
                scale_error.or(Some(target::ScaleUnread::Answered(message))),
            ),
            None => (Some(t), scale_error),
        },
    )
}

fn read(inputs: Inputs, hpa_parsed: Option<LoadedHpa>) -> Result<Read> {
    let Inputs {
        hpa,
        pods,
        metrics,
        custom_metrics,
        external_metrics,
        scale,
        scale_error,
        target,
        history,
        events,
        nodes,
        all_pods,
        node_groups,
        karpenter,
        settings,
        live,
    } = inputs;
    let karpenter = match karpenter {
        Some(texts) => {
            let target_text = match &target {
                Some(super::inputs::Given::Text(t)) => Some(t),
                _ => None,
            };
            let constraints = super::karpenter::pod_constraints(target_text)?;
            Some((texts, constraints))
        }
        None => None,
    };
    let have_pods = pods.is_some();
    let mut loaded = match hpa_parsed {
        Some(loaded) => loaded,
        None => load_hpa(&hpa, &settings)?,
    };
    drop(hpa);
    let mut said = Said {
        notes: std::mem::take(&mut loaded.notes),
        warnings: std::mem::take(&mut loaded.warnings),
        diagnostics: Vec::new(),
    };
    let (scale, scale_error) = scale_or_its_error(scale, scale_error)?;
    let scale_error = scale_error.map(|unread| {
        let (error, note) = unread.error(&loaded.spec.target);
        said.notes.push(note);
        error
    });
    let scale = scale.as_ref().map(read_scale).transpose()?;
    let (selector, selector_error) =
        pod_selector(settings.selector.as_deref(), scale.as_ref().map(|(s, _)| s));
    let mut scope = capture::scope(settings.namespace.as_deref(), selector, &mut loaded.spec)?;
    scope.selector_is_targets = settings.selector.is_none() && scale.is_some();

    let captures = capture::Captures {
        pods,
        metrics,
        custom: &custom_metrics,
        external: &external_metrics,
    };
    let window = settings.metrics_window;
    let event_time = past::newest_time(events.as_ref())?;
    let mut observed = capture::observe_after(
        captures,
        &loaded,
        &scope,
        (settings.now, event_time),
        window,
    )?;
    observed.selector_error = selector_error;
    said.warnings.append(&mut observed.warnings);
    said.notes.append(&mut observed.notes);
    let now = observed.now;
    let samples = samples::Samples {
        pods: std::mem::take(&mut observed.pods),
        resource_metrics: std::mem::take(&mut observed.resource_metrics),
        pod_metrics: std::collections::BTreeMap::new(),
        by_entry: std::mem::take(&mut observed.pod_metrics),
        warnings: Vec::new(),
    };

    let mut past = past::read(
        history.as_ref(),
        events.as_ref(),
        &loaded.spec,
        std::mem::take(&mut loaded.events),
        loaded.source.file.as_deref(),
        settings.controller.downscale_stabilization_window,
        now,
    )?;
    said.notes.append(&mut past.notes);
    said.warnings.append(&mut past.warnings);
    said.diagnostics = std::mem::take(&mut loaded.diagnostics);
    said.diagnostics.append(&mut past.diagnostics);
    said.diagnostics.append(&mut observed.diagnostics);
    said.diagnostics.extend(keda_managed(&loaded.labels));
    Ok(Read {
        settings,
        loaded,
        scale,
        scale_error,
        target,
        have_pods,
        live,
        observed,
        samples,
        past,
        nodes: (nodes, all_pods),
        node_groups,
        karpenter,
        said,
    })
}

impl Read {
    /// The current count and where it came from (the target's scale, else the status, else the
    /// pods counted), with what it says on the way; and `ReplicasFieldManaged`.
    fn counts(&mut self) -> Result<Counts> {
        // Flag values are checked before what is missing: a bad value is the more precise
        // error. A ScaledObject's trigger values (`failed`, NaN) are KEDA's to read
        // (`keda::from_settings`).
        if self.loaded.keda.is_none() {
            values::parse_flags(&self.settings.metric_values)?;
        }
        let in_pods = self.observed.target.take();
        let target = target_of(
            self.target.take(),
            &self.loaded,
            in_pods,
            self.scale.as_ref(),
        )?;
        let mut counts = Counts::of(
            &self.settings,
            &self.loaded,
            target.as_ref(),
            self.have_pods.then_some(&self.samples.pods),
            self.scale_error.is_some(),
        )?;
        self.said.notes.append(&mut counts.notes);
        self.said.warnings.append(&mut counts.warnings);
        let managed =
            (target.as_ref()).and_then(|t| replicas_field_managed(&self.loaded.spec.target, t));
        self.said.diagnostics.extend(managed);
        Ok(counts)
    }
}

/// Parses every input and validates it into the one value the calculation trusts.
pub fn build(inputs: Inputs) -> Result<Scenario> {
    build_parsed(inputs, None)
}

/// `build`, with `inputs.hpa` as an earlier sync of `serve` parsed the same text
/// (`cluster::share::Parsed`) when given: taken as it is instead of parsing the text again.
pub fn build_parsed(inputs: Inputs, hpa_parsed: Option<LoadedHpa>) -> Result<Scenario> {
    let mut read = read(inputs, hpa_parsed)?;
    let counts = read.counts()?;
    let Read {
        settings,
        loaded,
        scale_error,
        have_pods,
        live,
        mut observed,
        mut samples,
        past,
        nodes: (nodes, all_pods),
        node_groups,
        karpenter,
        mut said,
        ..
    } = read;
    let now = observed.now;
    let window = settings.metrics_window;

    // From the status alone: synthetic pods reproduce status.currentMetrics.
    let observed_status = capture::observed_status(&loaded.status);
    let approximation = !have_pods
        && scale_error.is_none()
        && counts.source != Source::Samples
        && from_status_alone(&loaded, &settings, &observed.files);
    required::pods_for_metrics(
        &loaded.spec.metrics,
        counts.current,
        have_pods || scale_error.is_some(),
        approximation,
    )?;
    if approximation && let Some(status) = &observed_status {
        let sync = Approximated {
            status,
            now,
            window,
            current: counts.current,
        };
        sync.fill(&mut samples, &mut said, &loaded);
    }

    let keda = keda_step(&loaded, &settings, &observed.files, now, &mut said)?;
    let sources = sources::collect(
        &loaded.source,
        observed_status.is_some(),
        &observed.sources,
        &counts.source,
        approximation,
        past.sources,
        live.as_ref(),
    );
    let metrics = match scale_error {
        // The sync stops at the scale: no metric is read.
        Some(_) => crate::scenario::MetricValues::default(),
        None => metric_values(
            &loaded,
            &settings,
            keda.is_some(),
            samples.resource_metrics,
            samples.by_entry,
            &mut observed,
            approximation.then_some(counts.current),
            &mut said,
        )?,
    };
    let (node_group, node_groups, karpenter) = node_sections(
        &settings,
        (&nodes, &all_pods),
        node_groups.as_ref(),
        karpenter,
        &samples.pods,
        (&loaded, counts.current),
    )?;

    Ok(Scenario {
        scaled_to_zero: loaded.status.scaled_to_zero,
        status_conditions: loaded.status.conditions.clone(),
        hpa: loaded.spec,
        current_replicas: counts.current,
        current_replicas_source: counts.source,
        status_replicas: counts.status,
        scale_error,
        pods: samples.pods.into(),
        metrics,
        config: settings.controller,
        memory: past.memory,
        bounded: past.bounded,
        earliest_now: observed.earliest_now,
        unnamed_resources: loaded.unnamed_resources.clone(),
        now,
        input_notes: said.notes,
        warnings: said.warnings,
        input_diagnostics: said.diagnostics,
        sources,
        nodes: node_group,
        node_groups,
        karpenter,
        approximation,
        observed_status,
        keda,
    })
}

type NodeSections = (
    Option<crate::scenario::NodeInput>,
    Option<crate::scenario::node_groups::NodeGroupsInput>,
    Option<crate::scenario::karpenter::KarpenterInput>,
);

/// The Nodes section's model: Karpenter (`--nodepool`), several node groups (`--node-groups`)
/// or one node group.
fn node_sections(
    settings: &Settings,
    files: (&Option<Text>, &Option<Text>),
    node_groups: Option<&Text>,
    karpenter: Option<(
        super::inputs::KarpenterTexts,
        crate::scenario::karpenter::PodConstraints,
    )>,
    pods: &[crate::scenario::Pod],
    (loaded, current): (&LoadedHpa, i32),
) -> Result<NodeSections> {
    if let Some((texts, constraints)) = karpenter {
        let daemonsets = nodes::daemonsets(&settings.nodes)?;
        let request = nodes::pod_request(&settings.nodes, pods)?;
        let mut k = super::karpenter::read(&texts, constraints, daemonsets, request)?;
        if let (Some(nodes_text), all_pods) = files {
            let workload: std::collections::HashSet<&str> =
                pods.iter().map(|p| p.name.as_str()).collect();
            k.existing = super::kubectl::cluster::karpenter_nodes(
                &nodes_text.name,
                &nodes_text.text,
                all_pods.as_ref().map(|t| (t.name.as_str(), &*t.text)),
                &loaded.spec.namespace,
                &workload,
            )?;
        }
        return Ok((None, None, Some(k)));
    }
    if let Some(text) = node_groups {
        let daemonsets = nodes::daemonsets(&settings.nodes)?;
        let request = nodes::pod_request(&settings.nodes, pods)?;
        let groups = super::node_groups::read(text, &settings.nodes, daemonsets, request)?;
        return Ok((None, Some(groups), None));
    }
    Ok((
        node_group(settings, files, pods, loaded, current)?,
        None,
        None,
    ))
}

/// The node group of the Nodes section, checked against the current count.
fn node_group(
    settings: &Settings,
    (nodes, all_pods): (&Option<Text>, &Option<Text>),
    pods: &[crate::scenario::Pod],
    loaded: &LoadedHpa,
    current: i32,
) -> Result<Option<crate::scenario::NodeInput>> {
    let files = nodes::NodeFiles {
        nodes: nodes.as_ref(),
        all_pods: all_pods.as_ref(),
    };
    let group = nodes::from_settings(&settings.nodes, files, pods, &loaded.spec.namespace)?;
    if let Some(group) = &group {
        nodes::check_size(group, current)?;
    }
    Ok(group)
}

/// What the inputs said on the way: the assumptions, the warnings for stderr, the named causes.
struct Said {
    notes: Vec<String>,
    warnings: Vec<String>,
    diagnostics: Vec<Diagnostic>,
}

/// `--scale`: the scale subresource, and the name it was read from.
/// The selector the pods are listed by: `-l`'s, else the scale's `status.selector`, which the
/// controller checks first: an empty or unparsable one is `InvalidSelector`, and it reads no
/// metric (the pods are then listed without a selector, and not used).
// Port of validateAndParseSelector (horizontal.go), its two failures.
fn pod_selector<'a>(
    flag: Option<&'a str>,
    scale: Option<&'a kubectl::scale::Scale>,
) -> (Option<&'a str>, Option<crate::scenario::SelectorError>) {
    let invalid = |message: String| crate::scenario::SelectorError {
        reason: "InvalidSelector".to_string(),
        message,
    };
    match (flag, scale.map(|s| s.selector.as_deref())) {
        (Some(flag), _) => (Some(flag), None),
        (None, None) => (None, None),
        (None, Some(None)) => (
            None,
            Some(invalid(
                "the HPA target's scale is missing a selector".to_string(),
            )),
        ),
        (None, Some(Some(text))) => match crate::input::selector::Selector::parse(text) {
            Ok(_) => (Some(text), None),
            Err(e) => (
                None,
                Some(invalid(format!(
                    "couldn't convert selector into a corresponding internal selector object: {e}"
                ))),
            ),
        },
    }
}

fn read_scale(t: &Text) -> Result<(kubectl::scale::Scale, String)> {
    let parsed = kubectl::scale::parse(&t.name, &t.text, kubectl::detect(&t.text))?;
    Ok((parsed, t.name.clone()))
}

/// `ReplicasFieldManaged`: another manager owns the target's `spec.replicas` (as `audit` finds
/// it), so each of its applies resets the count the HPA set.
fn replicas_field_managed(
    target: &crate::scenario::ObjectReference,
    t: &target::TargetScale,
) -> Option<Diagnostic> {
    if t.replicas_managers.is_empty() {
        return None;
    }
    Some(Diagnostic::new(
        "ReplicasFieldManaged",
        crate::report::Severity::Warning,
        format!(
            "{} {}'s spec.replicas is set by {}, not by the HPA controller: every apply of it \
             resets the count the HPA set (read from {})",
            target.kind,
            target.name,
            t.replicas_managers.join(", "),
            t.file
        ),
        "remove spec.replicas from the manifests the manager applies (or tell it to ignore the \
         field, e.g. Argo CD ignoreDifferences)",
    ))
}

/// The target's replicas: `--target`, else the target inside the pod list, else the scale
/// subresource (what live mode reads), which stands for the target.
fn target_of(
    given: Option<Given<target::TargetScale>>,
    loaded: &LoadedHpa,
    in_pods: Option<target::TargetScale>,
    scale: Option<&(kubectl::scale::Scale, String)>,
) -> Result<Option<target::TargetScale>> {
    Ok(match given {
        Some(Given::Text(t)) => Some(target::parse(
            &t.name,
            &t.text,
            &loaded.spec.target,
            &loaded.spec.namespace,
        )?),
        Some(Given::Read { value, .. }) => Some(value),
        None => in_pods.or_else(|| {
            scale.map(|(s, file)| target::TargetScale {
                file: file.clone(),
                spec_replicas: Some(s.spec_replicas),
                status_replicas: Some(s.status_replicas),
                replicas_managers: Vec::new(),
            })
        }),
    })
}

/// The values of the metrics the controller reads, and the metrics APIs' errors. A
/// ScaledObject's External metrics are left out: KEDA's metrics server answers them
/// (`calc::keda`).
#[allow(clippy::too_many_arguments)]
fn metric_values(
    loaded: &LoadedHpa,
    settings: &Settings,
    keda: bool,
    resource: Vec<crate::scenario::PodMetrics>,
    pod_metrics: std::collections::BTreeMap<usize, Vec<crate::scenario::PodMetricValue>>,
    observed: &mut capture::Observed,
    approximate: Option<i32>,
    said: &mut Said,
) -> Result<crate::scenario::MetricValues> {
    let all = &loaded.spec.metrics;
    let (specs, flags) = if keda {
        let others: Vec<_> = (all.iter().filter(|m| !m.is_object_or_external()))
            .cloned()
            .collect();
        (others, &[][..])
    } else {
        (all.clone(), settings.metric_values.as_slice())
    };
    let resolved = values::resolve(
        &specs,
        flags,
        &loaded.status,
        resource,
        pod_metrics,
        &observed.files,
        approximate,
    )?;
    said.notes.extend(resolved.notes);
    let mut metrics = resolved.values;
    metrics.resource_api_error = observed.resource_api_error.take();
    metrics.custom_api_error = observed.custom_api_error.take();
    metrics.external_api_error = observed.external_api_error.take();
    metrics.selector_error = observed.selector_error.take();
    Ok(metrics)
}

/// KEDA's step of a ScaledObject (its trigger values, failures and last activity); the KEDA
/// flags are refused with an HPA.
fn keda_step(
    loaded: &LoadedHpa,
    settings: &Settings,
    files: &values::FromFiles,
    now: crate::time::Timestamp,
    said: &mut Said,
) -> Result<Option<crate::scenario::keda::KedaInput>> {
    let Some(translated) = &loaded.keda else {
        let hpa_file = loaded.source.file.clone().unwrap_or_default();
        keda::refuse_settings(settings, &hpa_file)?;
        return Ok(None);
    };
    // KEDA's metrics server answers by metric name (its generated names are unique).
    let by_name: std::collections::BTreeMap<String, Vec<i64>> = (files.external.iter())
        .filter_map(|(&i, values)| {
            let name = loaded.spec.metrics.get(i)?.metric_name().to_string();
            Some((name, values.clone()))
        })
        .collect();
    let (input, notes) = keda::from_settings(translated, settings, &by_name, now)?;
    said.notes.extend(notes);
    Ok(Some(input))
}

/// The current replica count and the target's status.replicas, where each came from.
struct Counts {
    current: i32,
    source: Source,
    status: i32,
    notes: Vec<String>,
    warnings: Vec<String>,
}

impl Counts {
    /// The scale was not read: the count is `status.currentReplicas`, which the controller
    /// leaves as it is (an omitted count is 0, as the API reads it).
    fn unread(loaded: &LoadedHpa) -> Counts {
        let current = loaded.status.current_replicas;
        Counts {
            current: current.unwrap_or(0),
            source: Source::Status,
            status: current.unwrap_or(0),
            notes: (current.is_none())
                .then(|| {
                    "The HPA has no status.currentReplicas: 0, as the API reads an omitted \
                     count."
                        .to_string()
                })
                .into_iter()
                .collect(),
            warnings: Vec::new(),
        }
    }

    /// The count, and where it came from; `unread`: the controller could not read the scale.
    fn of(
        settings: &Settings,
        loaded: &LoadedHpa,
        target: Option<&target::TargetScale>,
        pods: Option<&Vec<crate::scenario::Pod>>,
        unread: bool,
    ) -> Result<Counts> {
        if unread {
            return Ok(Counts::unread(loaded));
        }
        let unknown = settings.current_replicas.is_none()
            && target.and_then(|t| t.spec_replicas).is_none()
            && loaded.status.current_replicas.is_none()
            && pods.is_none();
        if unknown
            && let Some(counts) = (loaded.keda.as_ref()).and_then(|t| keda_start(&t.keda.input))
        {
            return Ok(counts);
        }
        let current = required::current_replicas(&required::CurrentInputs {
            flag: settings.current_replicas,
            target,
            status: loaded.status.current_replicas,
            counted: pods.map(|pods| {
                let counted = pods
                    .iter()
                    .filter(|p| samples::counts_as_replica(p))
                    .count();
                i32::try_from(counted).unwrap_or(i32::MAX)
            }),
        })?;
        let (status, status_note) = required::status_replicas(
            settings.status_replicas,
            target,
            current.replicas,
            &loaded.spec.metrics,
        )?;
        let mut warnings = Vec::new();
        if settings.status_replicas.is_some() && status_note.is_none() {
            warnings.push(
                "--status-replicas is read only by AverageValue Object and External metrics, and \
                 the HPA has none"
                    .to_string(),
            );
        }
        Ok(Counts {
            current: current.replicas,
            source: current.source,
            status,
            notes: current.note.into_iter().chain(status_note).collect(),
            warnings,
        })
    }
}

/// A ScaledObject's current count when no input gives it: where its status says KEDA holds the
/// target (`calc::keda::status::start`, which `simulate` starts from too), else, when the status
/// leaves it to the HPA (`Active=True`), the HPA's minimum, assumed and said (the engine then
/// lists the answers at every other count: `calc::keda::current`). No status: `None` (the count
/// is asked for).
fn keda_start(k: &crate::scenario::keda::KedaInput) -> Option<Counts> {
    let (current, source, note) = match crate::calc::keda::status::start(k) {
        Some((n, why)) => (n, Source::Status, why),
        None => {
            let status = k.status.as_ref()?;
            // Port of scaleToZeroOrIdle (scale_scaledobjects.go): an inactive ScaledObject past
            // its cooldown has the target at idleReplicaCount, else minReplicaCount (0).
            let n = match status.is("Active") {
                Some(false) => (k.idle_replica_count).or(k.min_replica_count).unwrap_or(0),
                _ => k.min_replica_count.unwrap_or(0).max(1),
            };
            let active = (status.condition("Active"))
                .map_or("no Active condition".to_string(), |c| {
                    format!("Active={} ({})", c.status, c.reason)
                });
            (
                n,
                Source::Default,
                format!(
                    "KEDA: no --current-replicas, --target or pods, and the ScaledObject's status \
                     ({active}) does not give the target's count: {n} assumed"
                ),
            )
        }
    };
    Some(Counts {
        current,
        source,
        status: current,
        notes: vec![format!("{note}.")],
        warnings: Vec::new(),
    })
}

/// Whether, without pods, the status alone answers: a pasted form (it carries nothing else), or
/// a status whose currentMetrics stand for the pods (`reads_pods`), or for a metric total that
/// no `--metric-value` or metrics file gives and only its per-pod average keeps.
fn from_status_alone(loaded: &LoadedHpa, settings: &Settings, files: &values::FromFiles) -> bool {
    let (specs, status) = (&loaded.spec.metrics, &loaded.status);
    let given =
        !settings.metric_values.is_empty() || files.custom_answered || files.external_answered;
    // The controller said it could not compute (ScalingActive False, FailedGet...): that is
    // its answer, whatever the status holds of the metrics.
    let failure_stated = (status.conditions.iter()).any(|c| {
        c.condition_type == "ScalingActive"
            && c.status == "False"
            && c.reason.starts_with("FailedGet")
    });
    loaded.form.is_some()
        || failure_stated
        || (!status.current_metrics.is_empty()
            && (kubectl::status_only::reads_pods(specs)
                || (!given && kubectl::status_only::keeps_only_averages(specs, status))))
}

/// The status a sync is approximated from, when the status is all there is.
struct Approximated<'a> {
    status: &'a crate::scenario::ObservedStatus,
    now: crate::time::Timestamp,
    window: crate::time::Duration,
    current: i32,
}

impl Approximated<'_> {
    /// The pods and usage that reproduce `status.currentMetrics`.
    fn fill(&self, samples: &mut samples::Samples, said: &mut Said, loaded: &LoadedHpa) {
        let synthetic = kubectl::status_only::synthesize(
            &loaded.spec.metrics,
            self.status,
            self.current,
            self.now,
            self.window,
        );
        if !samples.by_entry.is_empty() {
            said.warnings.push(
                "Pods metric values of --custom-metrics need --pods: the status's averages are \
                 used"
                    .to_string(),
            );
        }
        samples.pods = synthetic.pods;
        samples.resource_metrics = synthetic.resource_metrics;
        samples.by_entry = synthetic.pod_metrics;
        said.notes.splice(0..0, synthetic.notes);
    }
}

/// `KedaManaged`: KEDA labels the HPAs it generates (`scaledobject.keda.sh/name`,
/// `app.kubernetes.io/managed-by: keda-operator`; kedacore/keda `controllers/keda/hpa.go`).
fn keda_managed(labels: &std::collections::BTreeMap<String, String>) -> Option<Diagnostic> {
    let scaled_object = labels.get("scaledobject.keda.sh/name");
    let by_operator = labels
        .get("app.kubernetes.io/managed-by")
        .is_some_and(|m| m == "keda-operator");
    if scaled_object.is_none() && !by_operator {
        return None;
    }
    let owner = scaled_object.map_or_else(
        || "a KEDA ScaledObject".to_string(),
        |name| format!("the KEDA ScaledObject {name}"),
    );
    Some(Diagnostic::new(
        "KedaManaged",
        Severity::Info,
        format!(
            "this HPA is generated by {owner}: its External metrics are served by KEDA's metrics \
             server, and scaling between 0 and 1 replica (activation, cooldown) is KEDA's \
             decision, not the HPA controller's"
        ),
        "change the ScaledObject, not the HPA: KEDA rewrites the HPA from it",
    ))
}
