//! Named causes: why the controller does, or does not do, what it does, each with a stable code,
//! a severity and what a person can change. Every sentence is read from the sync's trace and the
//! report built from it (the pod groups, the recount, the hold band, the normalization, the
//! controller memory the windows read); nothing here recomputes a number.

use crate::calc::metrics::{Computed, MetricOutcome, readable};
use crate::calc::reconcile::{Branch, Normalization, Sync};
use crate::calc::replicas::Rule;
use crate::calc::status::Reconciled;
use crate::report::{Diagnostic, MetricReport, Report, Severity};
use crate::scenario::{PodPhase, Scenario};
use crate::time::{Duration, Timestamp};

/// Containers that mesh and agent injectors add to pods, with the pod-template annotation that
/// sets their cpu and memory requests.
const INJECTED_SIDECARS: &[(&str, &str, &str, &str)] = &[
    (
        "istio-proxy",
        "Istio",
        "sidecar.istio.io/proxyCPU",
        "sidecar.istio.io/proxyMemory",
    ),
    (
        "linkerd-proxy",
        "Linkerd",
        "config.linkerd.io/proxy-cpu-request",
        "config.linkerd.io/proxy-memory-request",
    ),
    (
        "daprd",
        "Dapr",
        "dapr.io/sidecar-cpu-request",
        "dapr.io/sidecar-memory-request",
    ),
    (
        "vault-agent",
        "Vault Agent Injector",
        "vault.hashicorp.com/agent-requests-cpu",
        "vault.hashicorp.com/agent-requests-mem",
    ),
    (
        "consul-dataplane",
        "Consul",
        "consul.hashicorp.com/sidecar-proxy-cpu-request",
        "consul.hashicorp.com/sidecar-proxy-memory-request",
    ),
];

/// Every named cause of this sync, most severe first (input findings included).
pub fn diagnose(s: &Scenario, sync: &Sync<'_>, report: &Report) -> Vec<Diagnostic> {
    let mut out = s.input_diagnostics.clone();
    let current = s.current_replicas;
    match sync.branch {
        Branch::ScalingDisabled => out.push(scaling_disabled(s)),
        Branch::AboveMax => out.push(Diagnostic::new(
            "AtMaxReplicas",
            Severity::Warning,
            format!(
                "the target has {current} replicas, above maxReplicas {}: the controller scales it to {} without reading the metrics",
                s.hpa.max_replicas, s.hpa.max_replicas
            ),
            "raise maxReplicas if the target needs more, or let the HPA bring it down",
        )),
        Branch::BelowMin => out.push(Diagnostic::new(
            "AtMinReplicas",
            Severity::Info,
            format!(
                "the target has {current} replicas, below minReplicas {}: the controller scales it to {} without reading the metrics",
                sync.min_replicas, sync.min_replicas
            ),
            "",
        )),
        // The conditions and the decision say it; an audit's finding names the cause.
        Branch::FailedGetScale => {}
        Branch::Metrics | Branch::MetricsFailed => {
            // The report's metrics are the sync's outcomes, in the same order.
            for (m, outcome) in report.metrics.iter().zip(&sync.outcomes) {
                metric_causes(&mut out, s, m, outcome, sync);
            }
            if sync.combined.as_ref().is_some_and(|c| c.failed) {
                out.extend(invalid_blocks_scale_down(report, current));
            }
            out.extend(report.metrics.iter().filter_map(|m| ready_during_initialization(s, m)));
            if let Some(n) = &sync.normalization {
                normalization_causes(&mut out, s, sync, n, report);
            }
        }
    }
    // What the status says decides between outcomes: first among its severity.
    if let Some(d) = status_mismatch(s, report) {
        out.insert(0, d);
    }
    // Most severe first; the order above (the controller's) within a severity.
    out.sort_by_key(|d| std::cmp::Reverse(d.severity));
    out
}

fn scaling_disabled(s: &Scenario) -> Diagnostic {
    let newest_rules = s.config.kube_minor >= 37;
    let why = if newest_rules && s.config.features.hpa_scale_to_zero {
        "the target is at 0 replicas and the HPA did not scale it there itself (no ScaledToZero=True condition): a manual scale to 0 pauses the HPA"
    } else if newest_rules {
        "the target is at 0 replicas and HPAScaleToZero is off: the controller computes no metrics at 0 replicas"
    } else {
        "the target is at 0 replicas and minReplicas is not 0: the controller computes no metrics at 0 replicas"
    };
    Diagnostic::new(
        "ScalingDisabled",
        Severity::Warning,
        format!("{why}; it keeps 0 (ScalingActive=False, ScalingDisabled)"),
        format!(
            "scale the target back up by hand (kubectl scale {} {} -n {} --replicas=N) to hand it back to the HPA",
            s.hpa.target.kind.to_lowercase(),
            s.hpa.target.name,
            s.hpa.namespace
        ),
    )
}

/// The causes one metric shows: its pods, its recount, its tolerance, its error.
fn metric_causes(
    out: &mut Vec<Diagnostic>,
    s: &Scenario,
    m: &MetricReport,
    outcome: &MetricOutcome<'_>,
    sync: &Sync<'_>,
) {
    let current = s.current_replicas;
    let name = &readable(&m.description);
    if let Some(error) = &m.error {
        out.push(invalid_metric(s, m, error));
    }
    let finished = finished_without_sample(s, m);
    if !finished.is_empty() {
        out.push(finished_pods(&finished, name));
    }
    let placed = placement_causes(s, m, name);
    if m.missing_pods > 0 {
        let mut missing = missing_metrics(m, name, finished.len());
        if let Some(first) = placed.first().filter(|_| finished.is_empty()) {
            missing.fix = format!("see {}", first.code);
        }
        out.push(missing);
    }
    out.extend(placed);
    if let Some(rc) = &m.recount
        && rc.unready_pods_at_zero
        && m.unready_pods > 0
    {
        out.push(Diagnostic::new(
            "UnreadyPods",
            Severity::Info,
            format!(
                "{} unready or Pending pod(s) count as using nothing on this scale-up: ratio {:.3} → {:.3} for {name}",
                m.unready_pods,
                m.ratio.unwrap_or_default(),
                rc.new_ratio
            ),
            "pods become ready after their readiness probe passes (cpu: after --horizontal-pod-autoscaler-cpu-initialization-period); Pending pods need room on the nodes",
        ));
    }
    tolerance_causes(out, m, outcome, current, sync, name);
    rollout_surge(out, m, outcome, current);
}

/// The pods of a metric in phase Succeeded without a sample: a finished pod has no usage in the
/// metrics API, and before kubernetes/kubernetes#141302 `groupPods` does not ignore it.
fn finished_without_sample<'s>(s: &'s Scenario, m: &MetricReport) -> Vec<&'s str> {
    let missing = || (m.pods.iter()).filter(|p| p.class == "missing");
    // A resource metric with no sample at all fails before `groupPods`: no pod is classed.
    let none_sampled = m.pods.is_empty()
        && m.error.is_some()
        && matches!(m.metric_type.as_str(), "Resource" | "ContainerResource");
    let sampled = |name: &str| s.metrics.resource.iter().any(|p| p.pod == name);
    s.pods
        .iter()
        .filter(|p| p.phase == PodPhase::Succeeded)
        .filter(|p| missing().any(|c| c.name == p.name) || (none_sampled && !sampled(&p.name)))
        .map(|p| p.name.as_str())
        .collect()
}

/// `WindowsPods` and `ContainerNotRunning`: the pods of a metric without a sample (or unready)
/// that the capture shows on a Windows node, or with a container not running. Each is its own
/// cause, not the metrics pipeline's: metrics-server answered for the other pods.
fn placement_causes(s: &Scenario, m: &MetricReport, name: &str) -> Vec<Diagnostic> {
    let classed = |p: &crate::scenario::Pod, classes: &[&str]| {
        (m.pods.iter()).any(|c| c.name == p.name && classes.contains(&c.class.as_str()))
    };
    let running = |p: &&crate::scenario::Pod| p.phase != PodPhase::Succeeded;
    let windows: Vec<&str> = (s.pods.iter().filter(running))
        .filter(|p| p.placement.windows && classed(p, &["missing"]))
        .map(|p| p.name.as_str())
        .collect();
    let stopped: Vec<(&str, &str, &str)> = (s.pods.iter().filter(running))
        .filter(|p| classed(p, &["missing", "unready"]))
        .filter_map(|p| {
            let (c, why) = p.placement.not_running.as_ref()?;
            Some((p.name.as_str(), c.as_str(), why.as_str()))
        })
        .collect();
    let mut out = Vec::new();
    if !windows.is_empty() {
        out.push(Diagnostic::new(
            "WindowsPods",
            Severity::Warning,
            format!(
                "{} pod(s) without a sample for {name} run on Windows nodes (nodeSelector \
                 kubernetes.io/os: windows): {}",
                windows.len(),
                shortlist(&windows)
            ),
            "metrics-server reads each node's kubelet: check that the Windows nodes' kubelets \
             serve resource metrics (kubectl top nodes lists them) and that metrics-server's \
             nodeSelector or tolerations do not leave them out",
        ));
    }
    if let Some(&(pod, container, why)) = stopped.first() {
        let names: Vec<&str> = stopped.iter().map(|(p, _, _)| *p).collect();
        out.push(Diagnostic::new(
            "ContainerNotRunning",
            Severity::Warning,
            format!(
                "{} pod(s) counted without a sample or unready for {name} have a container not \
                 running: {} (container {container} of {pod}: {why})",
                stopped.len(),
                shortlist(&names)
            ),
            format!(
                "kubectl describe pod {pod} and kubectl logs {pod} -c {container} --previous: \
                 a container that is not running has no usage to report and keeps the pod \
                 unready"
            ),
        ));
    }
    out
}

/// `FinishedPodsUnderSelector`: Succeeded pods (a finished Job or test pod) under the selector.
fn finished_pods(pods: &[&str], name: &str) -> Diagnostic {
    Diagnostic::new(
        "FinishedPodsUnderSelector",
        Severity::Warning,
        format!(
            "{} pod(s) in phase Succeeded match the HPA's selector ({}): a finished pod has no \
             usage in the metrics API, so the controller counts it as a pod without a sample \
             for {name}",
            pods.len(),
            shortlist(pods)
        ),
        "these pods are not the target's: delete them (a Completed Job or test pod), or give \
         them labels outside the HPA's selector",
    )
}

/// Up to three names, then how many more.
fn shortlist(names: &[&str]) -> String {
    let shown: Vec<&str> = names.iter().take(3).copied().collect();
    match names.len() - shown.len() {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// What to do about pods without a sample when the metrics API itself answered.
const NO_SAMPLE_FIX: &str = "the metrics API answered without these pods: a new pod gets its \
     first sample within the metrics resolution; a pod with a container that is not running \
     (CrashLoopBackOff, OOMKilled: kubectl get pods shows the restarts) has none, nor does a \
     pod on a node the metrics pipeline does not scrape (a Windows node needs its own \
     metrics source)";

/// `MissingMetrics`: the pods without a sample, and what the recount made of them.
fn missing_metrics(m: &MetricReport, name: &str, finished: usize) -> Diagnostic {
    let pods = m.ready_pods + m.unready_pods + m.missing_pods;
    let effect = match &m.recount {
        Some(rc) if rc.missing_pods_value_milli == Some(0) => format!(
            "on a scale-up they count as using nothing: ratio {:.3} → {:.3}",
            m.ratio.unwrap_or_default(),
            rc.new_ratio
        ),
        Some(rc) if rc.missing_pods_value_milli.is_some() => format!(
            "on a scale-down they count as using {}: ratio {:.3} → {:.3}",
            if m.current_utilization.is_some() {
                "max(100 %, target) of their request"
            } else {
                "the target value"
            },
            m.ratio.unwrap_or_default(),
            rc.new_ratio
        ),
        Some(_) => "at a ratio of exactly 1 they are not added".to_string(),
        None if m.error.as_deref().is_some_and(|e| {
            e.contains("did not receive metrics") || e.contains("no metrics returned")
        }) =>
        {
            "no pod has a usable sample, so the metric fails".to_string()
        }
        None => String::new(),
    };
    Diagnostic::new(
        "MissingMetrics",
        Severity::Warning,
        format!(
            "{} of {pods} pods have no sample for {name} (metrics-server or the adapter has none yet, or the pod is new){}",
            m.missing_pods,
            if effect.is_empty() {
                String::new()
            } else {
                format!("; {effect}")
            }
        ),
        if finished == m.missing_pods {
            "see FinishedPodsUnderSelector"
        } else {
            NO_SAMPLE_FIX
        },
    )
}

/// `RecountReversed` and `WithinTolerance`: what the tolerance band and the recount did.
fn tolerance_causes(
    out: &mut Vec<Diagnostic>,
    m: &MetricReport,
    outcome: &MetricOutcome<'_>,
    current: i32,
    sync: &Sync<'_>,
    name: &str,
) {
    let first_within = m.ratio.is_some_and(|r| sync.tolerances.is_within(r));
    let rule = rule_of(outcome);
    // Only the rules that keep the count: after `RecountSamples` the recount's own count is the
    // proposal, in the first pass's direction (2 → 3), and nothing was reversed.
    if let (Some(rc), Some(rule)) = (&m.recount, rule)
        && rule.recount()
        && rule != Rule::RecountSamples
        && !(first_within && rule.within_tolerance())
    {
        let what = if rule.within_tolerance() {
            "back into the tolerance band"
        } else {
            "the other way"
        };
        out.push(Diagnostic::new(
            "RecountReversed",
            Severity::Info,
            format!(
                "the recount of missing and unready pods moved {name} from ratio {:.3} to {:.3}, {what}: this metric keeps {current}",
                m.ratio.unwrap_or_default(),
                rc.new_ratio
            ),
            "",
        ));
    }
    // Inside the band: the first pass's ratio, or the recount's when it only confirmed it.
    let within = match (&m.recount, rule) {
        (None, Some(rule)) => rule.within_tolerance().then_some(m.ratio).flatten(),
        (Some(rc), Some(rule)) if first_within && rule.within_tolerance() => Some(rc.new_ratio),
        _ => None,
    };
    if let (Some(ratio), Some(p)) = (within, m.proposed_replicas)
        && p == current
    {
        let band = m
            .hold_band
            .as_ref()
            .map(|b| {
                let mut moves = Vec::new();
                if let Some(e) = &b.below {
                    moves.push(format!("at {} or below ({} replicas)", e.value, e.replicas));
                }
                if let Some(e) = &b.above {
                    moves.push(format!("from {} ({} replicas)", e.value, e.replicas));
                }
                if moves.is_empty() {
                    String::new()
                } else {
                    format!("; the count changes {}", moves.join(" or "))
                }
            })
            .unwrap_or_default();
        out.push(Diagnostic::new(
            "WithinTolerance",
            Severity::Info,
            format!(
                "{name} is at ratio {ratio:.3}, inside the tolerance band {:.2}–{:.2}: no change from this metric{band}",
                m.tolerance.lower, m.tolerance.upper
            ),
            "nothing to fix; to react to smaller changes set behavior.scaleUp/scaleDown.tolerance (1.33+) or the controller's --horizontal-pod-autoscaler-tolerance",
        ));
    }
}

/// The calculator's branch that made this metric's proposal, if it made one.
fn rule_of(outcome: &MetricOutcome<'_>) -> Option<Rule> {
    match &outcome.result {
        Ok(Computed::PodBased(p)) => Some(p.branch),
        Ok(Computed::Value(v)) => Some(v.branch),
        Err(_) => None,
    }
}

/// `RolloutSurge`: more ready pods than the target's replicas; the proposal multiplies by them.
fn rollout_surge(
    out: &mut Vec<Diagnostic>,
    m: &MetricReport,
    outcome: &MetricOutcome<'_>,
    current: i32,
) {
    let ready = match &outcome.result {
        // Object/External Value targets read getReadyPodsCount.
        Ok(Computed::Value(v)) => v.ready_pods.unwrap_or(0),
        _ => i64::try_from(m.ready_pods).unwrap_or(i64::MAX),
    };
    if rule_of(outcome) == Some(Rule::ReadyPods) && ready > i64::from(current) {
        out.push(Diagnostic::new(
            "RolloutSurge",
            Severity::Info,
            format!(
                "{ready} ready pods, more than the target's {current} replicas (a rollout's surge pods count too): {} multiplies its ratio {:.3} by {ready}, so it proposes {}",
                readable(&m.description),
                m.ratio.unwrap_or_default(),
                m.proposed_replicas.unwrap_or_default()
            ),
            "expected during a rollout; it settles once the old pods are gone. A large maxSurge makes it larger",
        ));
    }
}

/// An invalid metric: `MissingRequest` when a container has no request, else `InvalidMetric`.
fn invalid_metric(s: &Scenario, m: &MetricReport, error: &str) -> Diagnostic {
    let reason = m.error_reason.as_deref().unwrap_or("FailedGetMetric");
    if let Some(rest) = error
        .split_once("missing request for ")
        .map(|(_, rest)| rest)
    {
        // "<resource> in container <c> of Pod <p>"
        let container = rest
            .split_once(" in container ")
            .and_then(|(_, c)| c.split_once(" of Pod "))
            .map(|(c, _)| c);
        let sidecar = container.and_then(|c| {
            INJECTED_SIDECARS
                .iter()
                .find(|(name, ..)| *name == c || c.starts_with(&format!("{name}-")))
        });
        // "<resource> in container <c> of Pod <p>": a finished pod is not the target's.
        let finished = (rest.rsplit_once(" of Pod ").map(|(_, p)| p))
            .and_then(|p| s.pods.iter().find(|pod| pod.name == p))
            .filter(|p| matches!(p.phase, PodPhase::Succeeded | PodPhase::Failed));
        let fix = match (finished, sidecar) {
            (Some(p), _) => format!(
                "Pod {} is in phase {:?} (a finished Job or test pod) but matches the HPA's \
                 selector, and the controller sums the requests of every pod the selector \
                 lists: delete it or give it labels outside the selector; the target's own pods \
                 need no change",
                p.name, p.phase
            ),
            (None, Some((name, injector, cpu, memory))) => format!(
                "{name} is injected by {injector}: set its request with the pod template annotation {} (or mesh-wide in the injector's config), then roll the pods",
                if m.name == "memory" { memory } else { cpu }
            ),
            (None, None) => format!(
                "set resources.requests.{} on every container of the pods (init sidecars included), or target AverageValue instead of Utilization",
                m.name
            ),
        };
        return Diagnostic::new(
            "MissingRequest",
            Severity::Error,
            format!(
                "{}: missing request for {rest}; a Utilization target needs a request on every container, so the controller cannot compute this metric ({reason})",
                readable(&m.description)
            ),
            fix,
        );
    }
    Diagnostic::new(
        "InvalidMetric",
        Severity::Error,
        format!("{}: {reason}: {error}", readable(&m.description)),
        match reason {
            // "check metrics-server" only when the metrics API itself failed, or when no pod is
            // known (the status alone): then it may be the pipeline's.
            "FailedGetResourceMetric" | "FailedGetContainerResourceMetric"
                if s.metrics.resource_api_error.is_some()
                    || s.approximation
                    || s.pods.is_empty() =>
            {
                "check metrics-server: kubectl top pods -n NAMESPACE"
            }
            "FailedGetResourceMetric" | "FailedGetContainerResourceMetric"
                if !error.contains("missing request") =>
            {
                NO_SAMPLE_FIX
            }
            "FailedGetPodsMetric" | "FailedGetObjectMetric" => {
                "check the custom metrics adapter: kubectl get --raw /apis/custom.metrics.k8s.io/v1beta1"
            }
            "FailedGetExternalMetric" => {
                "check the external metrics adapter (KEDA, prometheus-adapter): kubectl get --raw /apis/external.metrics.k8s.io/v1beta1"
            }
            _ => "",
        },
    )
}

/// `InvalidMetricBlocksScaleDown`: some metrics invalid and the valid ones would scale down.
fn invalid_blocks_scale_down(report: &Report, current: i32) -> Option<Diagnostic> {
    let valid: Vec<&MetricReport> = report
        .metrics
        .iter()
        .filter(|m| m.error.is_none())
        .collect();
    let invalid: Vec<String> = report
        .metrics
        .iter()
        .filter(|m| m.error.is_some())
        .map(|m| readable(&m.description))
        .collect();
    let best = valid.iter().filter_map(|m| m.proposed_replicas).max()?;
    Some(Diagnostic::new(
        "InvalidMetricBlocksScaleDown",
        Severity::Warning,
        format!(
            "the valid metrics ask for {best}, fewer than {current}, but {} cannot be computed: with an invalid metric the controller never scales down, it keeps {current}",
            invalid.join(", ")
        ),
        "fix the invalid metric (its error is in the metric's steps) or remove it from spec.metrics",
    ))
}

fn normalization_causes(
    out: &mut Vec<Diagnostic>,
    s: &Scenario,
    sync: &Sync<'_>,
    n: &Normalization,
    report: &Report,
) {
    let current = s.current_replicas;
    let proposal = sync.metric_proposal.unwrap_or(current).max(0);
    if n.stabilized != proposal {
        out.push(stabilization_hold(s, sync, n, proposal));
    }
    let who = report
        .decision
        .metric_name
        .as_deref()
        .map_or_else(|| "the metrics".to_string(), readable);
    let runaway = value_target_runaway(s, sync, report, n);
    match n.limited.reason {
        "TooManyReplicas" => out.push(Diagnostic::new(
            "AtMaxReplicas",
            Severity::Warning,
            format!(
                "{who} asks for {}, above maxReplicas {}: the count stops at {}",
                n.stabilized, s.hpa.max_replicas, n.limited.replicas
            ),
            if runaway.is_some() {
                "see ValueTargetRunaway: a higher maxReplicas only lets the count run further"
            } else {
                "raise maxReplicas if the load is real (and check that the nodes can hold the pods)"
            },
        )),
        "TooFewReplicas" => out.push(Diagnostic::new(
            "AtMinReplicas",
            Severity::Info,
            format!(
                "the metrics ask for {}, below minReplicas {}: the count stays at {}",
                n.stabilized, sync.min_replicas, n.limited.replicas
            ),
            "lower minReplicas to let it go further down",
        )),
        "ScaleUpLimit" | "ScaleDownLimit" => out.push(rate_limited(s, n)),
        _ => out.extend(policy_allows_more(s, n)),
    }
    out.extend(runaway);
}

/// `PolicyAllowsMore`: a change the behavior policies allowed in full, so they did not cap it:
/// what decided the count was the metrics (and the window), not the rate.
fn policy_allows_more(s: &Scenario, n: &Normalization) -> Option<Diagnostic> {
    use crate::calc::normalize::{
        calculate_scale_down_limit_with_behaviors, calculate_scale_up_limit_with_scaling_rules,
    };
    let b = s.hpa.behavior.as_ref()?;
    let current = s.current_replicas;
    let up = n.limited.replicas > current;
    if n.legacy_scale_up_limit.is_some() || n.limited.replicas == current {
        return None;
    }
    let rules = if up { &b.scale_up } else { &b.scale_down };
    if rules.policies.is_empty() || rules.select_policy == crate::scenario::SelectPolicy::Disabled {
        return None;
    }
    let empty = crate::scenario::ControllerMemory::default();
    let memory = s.memory.as_ref().unwrap_or(&empty);
    let limit = if up {
        calculate_scale_up_limit_with_scaling_rules(current, memory, rules, s.now)
    } else {
        calculate_scale_down_limit_with_behaviors(current, memory, rules, s.now)
    };
    let (direction, bound) = if up {
        ("scaleUp", "up to")
    } else {
        ("scaleDown", "down to")
    };
    Some(Diagnostic::new(
        "PolicyAllowsMore",
        Severity::Info,
        format!(
            "the {direction} policies (selectPolicy {:?}) allow {bound} {limit} this sync and the \
             metrics asked for {}: the policies did not cap it",
            rules.select_policy, n.stabilized
        ),
        "",
    ))
}

/// `ReadyDuringInitialization`: cpu pods inside the cpu initialization period that are Ready and
/// sampled since (`groupPods` counts them as ready): their startup burst counts in the usage.
fn ready_during_initialization(s: &Scenario, m: &MetricReport) -> Option<Diagnostic> {
    if m.name != "cpu" || !matches!(m.metric_type.as_str(), "Resource" | "ContainerResource") {
        return None;
    }
    let early = crate::calc::pods::Why::Initializing.describe();
    let pods: Vec<&str> = (m.pods.iter())
        .filter(|p| p.class == "ready" && p.reason == early)
        .map(|p| p.name.as_str())
        .collect();
    if pods.is_empty() {
        return None;
    }
    let shown: Vec<&str> = pods.iter().take(3).copied().collect();
    let more = pods.len() - shown.len();
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    Some(Diagnostic::new(
        "ReadyDuringInitialization",
        Severity::Info,
        format!(
            "{} pod(s) ({}{more}) became Ready inside the cpu initialization period ({} from \
             their start) and were sampled since: the controller counts their cpu, a startup \
             burst included",
            pods.len(),
            shown.join(", "),
            s.config.cpu_initialization_period
        ),
        "if a startup burst drives the count, keep the pods unready until it ends (a \
         startupProbe, or the readinessProbe's initialDelaySeconds), or raise the controller's \
         --horizontal-pod-autoscaler-cpu-initialization-period",
    ))
}

/// `ValueTargetRunaway`: the metric that decides is an Object or External metric with a
/// `Value` target, and the count rises or stops at maxReplicas. `GetObjectMetricReplicas` and
/// `GetExternalMetricReplicas` propose `ceil(ready pods × value / target)`: a value that does
/// not fall as pods are added (a queue's length, a rate measured upstream) grows the count at
/// every sync until maxReplicas. An `AverageValue` target divides the value by the pods instead
/// (`GetObjectPerPodMetricReplicas`, `GetExternalPerPodMetricReplicas`), so the count settles.
fn value_target_runaway(
    s: &Scenario,
    sync: &Sync<'_>,
    report: &Report,
    n: &Normalization,
) -> Option<Diagnostic> {
    let winner = sync.combined.as_ref()?.winner?;
    let m = report.metrics.get(winner)?;
    let value_target =
        matches!(m.metric_type.as_str(), "Object" | "External") && m.target.target_type == "Value";
    let current = s.current_replicas;
    let rising = n.limited.replicas > current || n.limited.reason == "TooManyReplicas";
    if !value_target || !rising {
        return None;
    }
    Some(Diagnostic::new(
        "ValueTargetRunaway",
        Severity::Warning,
        format!(
            "{} has a Value target ({}): the controller proposes ceil(pods × value / target) = {}, \
             so if the value does not fall as pods are added (a queue's length, a rate measured \
             upstream) the count grows at every sync until maxReplicas {}",
            m.name,
            m.target.value.as_deref().unwrap_or_default(),
            m.proposed_replicas.unwrap_or(current),
            s.hpa.max_replicas
        ),
        "use an AverageValue target (the value per pod: the controller divides it by the pods, \
         and the count settles at value / averageValue); raising maxReplicas only lets it run \
         further",
    ))
}

fn ago(now: Timestamp, t: Timestamp) -> String {
    format!("{} ago", now.since(t))
}

/// `StabilizationHold`: a window keeps a recommendation other than the metrics' proposal.
fn stabilization_hold(
    s: &Scenario,
    sync: &Sync<'_>,
    n: &Normalization,
    proposal: i32,
) -> Diagnostic {
    let down = n.stabilized > proposal;
    let (direction, seconds) = match (&s.hpa.behavior, down) {
        (None, _) => ("downscale", n.down_window_seconds),
        (Some(_), true) => ("scale-down", n.down_window_seconds),
        (Some(_), false) => ("scale-up", n.up_window_seconds),
    };
    let which = match n.holder(s, sync) {
        Some(h) if sync.seeded_initial_recommendation => format!(
            "the controller has just started (the history has no recommendations): it recorded the current count {} as its first recommendation, which stays in the window until {} ({} from now)",
            h.replicas,
            h.until.to_rfc3339(),
            h.until.since(s.now)
        ),
        Some(h) => format!(
            "the recommendation of {} made {} stays in the window until {} ({} from now); then the window's next {} recommendation applies",
            h.replicas,
            ago(s.now, h.timestamp),
            h.until.to_rfc3339(),
            h.until.since(s.now),
            if down { "highest" } else { "lowest" }
        ),
        None => format!(
            "a recommendation of {} inside the window holds it",
            n.stabilized
        ),
    };
    Diagnostic::new(
        "StabilizationHold",
        Severity::Info,
        format!(
            "the metrics propose {proposal}, but the {direction} stabilization window ({seconds}s) {}: {which}",
            match n.stabilized.cmp(&s.current_replicas) {
                std::cmp::Ordering::Equal => format!("keeps {}", n.stabilized),
                std::cmp::Ordering::Greater => format!(
                    "raises the count to {} (a higher recommendation is still in it)",
                    n.stabilized
                ),
                std::cmp::Ordering::Less => format!("stops at {}", n.stabilized),
            }
        ),
        match (down, s.hpa.behavior.is_some()) {
            (true, true) => {
                "this is the window doing its job (it stops flapping); shorten behavior.scaleDown.stabilizationWindowSeconds to follow the load down sooner"
            }
            (true, false) => {
                "this is the window doing its job (it stops flapping); without behavior the window is the controller's --horizontal-pod-autoscaler-downscale-stabilization: set spec.behavior.scaleDown.stabilizationWindowSeconds to choose it per HPA"
            }
            (false, _) => "shorten behavior.scaleUp.stabilizationWindowSeconds to scale up sooner",
        },
    )
}

/// `RateLimited`: a behavior policy or the legacy scale-up limit cuts the change.
fn rate_limited(s: &Scenario, n: &Normalization) -> Diagnostic {
    let current = s.current_replicas;
    let up = n.limited.reason == "ScaleUpLimit";
    let (which, frees) = match (n.legacy_scale_up_limit, &s.hpa.behavior) {
        (Some(limit), _) => (
            format!(
                "the scale-up limit max({}×{current}, {}) = {limit} (no behavior: the legacy rule)",
                s.config.scale_up_limit_factor, s.config.scale_up_limit_minimum
            ),
            format!(
                "the next sync ({} from now) may go to max({}×{}, {})",
                s.config.sync_period,
                s.config.scale_up_limit_factor,
                n.limited.replicas,
                s.config.scale_up_limit_minimum
            ),
        ),
        (None, Some(b)) => {
            let rules = if up { &b.scale_up } else { &b.scale_down };
            let events = s.memory.as_ref().map_or(&[][..], |m| {
                if up {
                    &m.scale_up_events[..]
                } else {
                    &m.scale_down_events[..]
                }
            });
            let longest = crate::calc::normalize::longest_policy_period(rules);
            let cutoff = s.now.sub(Duration::from_secs(i64::from(longest)));
            let oldest = events
                .iter()
                .filter(|e| e.timestamp.after(cutoff))
                .map(|e| e.timestamp)
                .min_by_key(|t| t.0);
            (
                format!(
                    "the {} policies (selectPolicy {:?}) allow {} now",
                    if up { "scaleUp" } else { "scaleDown" },
                    rules.select_policy,
                    n.limited.replicas
                ),
                match oldest {
                    Some(t) => format!(
                        "the limit loosens as the scale events of the last {longest}s leave their periods, the oldest at {} ({} from now)",
                        t.add(Duration::from_secs(i64::from(longest))).to_rfc3339(),
                        t.add(Duration::from_secs(i64::from(longest))).since(s.now)
                    ),
                    None => "no recent scale event: the policies measure from the current count, so each period allows this much again".to_string(),
                },
            )
        }
        (None, None) => (String::from("a rate limit"), String::new()),
    };
    Diagnostic::new(
        "RateLimited",
        Severity::Info,
        format!(
            "{which}: {} → {} instead of {}; {frees}",
            current, n.limited.replicas, n.stabilized
        ),
        if up {
            "raise behavior.scaleUp.policies (Pods or Percent per period) to scale up faster"
        } else {
            "raise behavior.scaleDown.policies to scale down faster"
        },
    )
}

/// `status.desiredReplicas` against the computed count, when the status does not simply record
/// another situation: `StatusMismatch` when the same count and values gave another answer
/// (naming them), `StatusHeld` when the controller kept the count where steady load moves it.
fn status_mismatch(s: &Scenario, report: &Report) -> Option<Diagnostic> {
    let c = report.status_comparison.as_ref()?;
    let d = c.desired_replicas?;
    match crate::calc::status::reconcile_desired(s, report, d, &c.metrics) {
        Reconciled::Contradicted(text) => Some(Diagnostic::new(
            "StatusMismatch",
            Severity::Warning,
            text,
            c.likely_causes.first().cloned().unwrap_or_default(),
        )),
        Reconciled::HeldByMemory(text) => Some(Diagnostic::new(
            "StatusHeld",
            Severity::Warning,
            text,
            "pass --history with the controller's recommendations, or --events with its \
             rescale events, to settle which",
        )),
        Reconciled::Reproduced(_) | Reconciled::Explained(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::calc::evaluate;
    use crate::calc::testing::{cpu_utilization, external, pod, recommended, scenario};
    use crate::report::{Diagnostic, Severity};
    use crate::scenario::{
        Container, ContainerKind, ControllerMemory, ObservedStatus, Resources, Scenario,
    };

    fn codes(s: &Scenario) -> Vec<String> {
        evaluate(s)
            .diagnostics
            .into_iter()
            .map(|d| d.code)
            .collect()
    }

    fn find(s: &Scenario, code: &str) -> Diagnostic {
        let all = evaluate(s).diagnostics;
        all.iter()
            .find(|d| d.code == code)
            .cloned()
            .unwrap_or_else(|| panic!("no {code} in {all:#?}"))
    }

    #[test]
    fn within_tolerance_names_the_ratio_and_where_the_count_changes() {
        // 52 % of 50 %: ratio 1.04; 3 pods hold from 34 % (ceil(0.68 × 3) = 3) to 55 %.
        let d = find(
            &scenario(vec![cpu_utilization(50)], 3, 520),
            "WithinTolerance",
        );
        assert_eq!(d.severity, Severity::Info);
        assert!(d.message.contains("ratio 1.040"), "{}", d.message);
        assert!(
            d.message.contains(
                "the count changes at 33% or below (2 replicas) or from 56% (4 replicas)"
            ),
            "{}",
            d.message
        );
        assert!(
            !codes(&scenario(vec![cpu_utilization(50)], 3, 700))
                .contains(&"WithinTolerance".into())
        );
    }

    #[test]
    fn stabilization_hold_names_the_recommendation_and_when_it_expires() {
        let mut s = scenario(vec![cpu_utilization(50)], 6, 200);
        s.memory = Some(recommended(6, 120));
        let d = find(&s, "StabilizationHold");
        assert!(
            d.message.contains("the metrics propose 3, but the downscale stabilization window (300s) keeps 6: the recommendation of 6 made 2m ago stays in the window until"),
            "{}",
            d.message
        );
        assert!(d.message.contains("(3m from now)"), "{}", d.message);
    }

    #[test]
    fn a_higher_recommendation_in_the_window_raises_the_count() {
        // The legacy window takes the highest recommendation, even above the current count.
        let mut s = scenario(vec![cpu_utilization(50)], 6, 200);
        s.memory = Some(recommended(9, 120));
        assert_eq!(evaluate(&s).desired_replicas, 9);
        let d = find(&s, "StabilizationHold");
        assert!(d.message.contains("raises the count to 9"), "{}", d.message);
    }

    #[test]
    fn a_just_started_controller_holds_with_its_first_recommendation() {
        let mut s = scenario(vec![cpu_utilization(50)], 6, 200);
        s.memory = Some(ControllerMemory::default());
        let d = find(&s, "StabilizationHold");
        assert!(
            d.message.contains("the controller has just started"),
            "{}",
            d.message
        );
    }

    #[test]
    fn rate_limited_names_the_legacy_limit_and_the_next_sync() {
        // 2 pods at 300 % of 50 %: ceil(6 × 2) = 12, limited to max(2 × 2, 4) = 4.
        let d = find(&scenario(vec![cpu_utilization(50)], 2, 3000), "RateLimited");
        assert!(
            d.message
                .starts_with("the scale-up limit max(2×2, 4) = 4 (no behavior: the legacy rule): 2 → 4 instead of 12"),
            "{}",
            d.message
        );
    }

    #[test]
    fn at_max_and_at_min_say_what_the_metrics_ask_for() {
        let mut s = scenario(vec![cpu_utilization(50)], 4, 1000);
        s.hpa.max_replicas = 5;
        let d = find(&s, "AtMaxReplicas");
        assert_eq!(d.severity, Severity::Warning);
        assert!(
            d.message.contains("asks for 8, above maxReplicas 5"),
            "{}",
            d.message
        );
        let mut s = scenario(vec![cpu_utilization(50)], 4, 50);
        s.hpa.min_replicas = 3;
        let d = find(&s, "AtMinReplicas");
        assert!(
            d.message.contains("ask for 1, below minReplicas 3"),
            "{}",
            d.message
        );
    }

    #[test]
    fn missing_request_of_an_injected_sidecar_says_how_to_set_it() {
        let mut s = scenario(vec![cpu_utilization(50)], 2, 500);
        s.pods[0].containers.push(Container {
            name: "istio-proxy".into(),
            kind: ContainerKind::App,
            requests: Resources(vec![]),
        });
        let d = find(&s, "MissingRequest");
        assert_eq!(d.severity, Severity::Error);
        assert!(
            d.message
                .contains("missing request for cpu in container istio-proxy of Pod p0"),
            "{}",
            d.message
        );
        assert!(d.fix.contains("sidecar.istio.io/proxyCPU"), "{}", d.fix);
        // An ordinary container: set the request.
        s.pods[0].containers[1].name = "worker".into();
        assert!(
            find(&s, "MissingRequest")
                .fix
                .contains("set resources.requests.cpu")
        );
    }

    #[test]
    fn missing_and_unready_pods_and_the_reversed_recount_are_named() {
        // 3 ready pods at 90 % of 50 %, one without a sample, one unready: the recount reverses.
        let mut s = scenario(vec![cpu_utilization(50)], 3, 900);
        s.pods.push(pod("missing", 1000));
        let mut unready = pod("unready", 1000);
        unready.phase = crate::scenario::PodPhase::Pending;
        s.pods.push(unready);
        s.pods.push(pod("p3", 1000));
        s.pods.push(pod("p4", 1000));
        s.pods.push(pod("p5", 1000));
        s.current_replicas = 8;
        let found = codes(&s);
        for code in ["MissingMetrics", "UnreadyPods", "RecountReversed"] {
            assert!(found.contains(&code.to_string()), "{code} in {found:?}");
        }
        let d = find(&s, "MissingMetrics");
        assert!(
            d.message.starts_with("4 of 8 pods have no sample"),
            "{}",
            d.message
        );
    }

    #[test]
    fn an_invalid_metric_blocking_a_scale_down_is_named() {
        let s = scenario(
            vec![cpu_utilization(50), external("queue", Some(1000), None)],
            4,
            100,
        );
        let d = find(&s, "InvalidMetricBlocksScaleDown");
        assert!(
            d.message
                .contains("the valid metrics ask for 1, fewer than 4"),
            "{}",
            d.message
        );
        assert!(codes(&s).contains(&"InvalidMetric".to_string()));
    }

    #[test]
    fn more_ready_pods_than_replicas_is_a_rollout_surge() {
        // 5 ready pods, 4 replicas: at 60 % of 50 % the proposal is ceil(1.2 × 5) = 6.
        let mut s = scenario(vec![cpu_utilization(50)], 5, 600);
        s.current_replicas = 4;
        let d = find(&s, "RolloutSurge");
        assert!(
            d.message
                .starts_with("5 ready pods, more than the target's 4 replicas"),
            "{}",
            d.message
        );
        assert!(d.message.contains("so it proposes 6"), "{}", d.message);
    }

    #[test]
    fn zero_replicas_is_scaling_disabled_with_how_to_resume() {
        let mut s = scenario(vec![cpu_utilization(50)], 2, 500);
        s.current_replicas = 0;
        let d = find(&s, "ScalingDisabled");
        assert!(
            d.fix
                .contains("kubectl scale deployment web -n default --replicas=N"),
            "{}",
            d.fix
        );
    }

    #[test]
    fn a_status_that_disagrees_is_a_mismatch_with_its_likely_cause() {
        let mut s = scenario(vec![cpu_utilization(50)], 2, 500);
        s.observed_status = Some(ObservedStatus {
            current_replicas: Some(2),
            desired_replicas: Some(0),
            current_metrics: vec![crate::scenario::ObservedMetric {
                metric_type: "Resource".into(),
                name: "cpu".into(),
                average_utilization: Some(50),
                ..crate::scenario::ObservedMetric::default()
            }],
            ..ObservedStatus::default()
        });
        let d = find(&s, "StatusMismatch");
        assert_eq!(
            d.message,
            "status.desiredReplicas is 0, computed by the controller from 2 replicas and the same \
             metric values; hpacalc computes 2 from the same"
        );
        // The controller answered lower from the same first-pass values: its recount first.
        assert!(
            d.fix.starts_with("The recount at the last sync"),
            "{}",
            d.fix
        );
    }

    #[test]
    fn a_status_left_behind_by_failing_metrics_blames_the_metrics_not_history() {
        let mut s = scenario(vec![external("queue", Some(1000), None)], 2, 0);
        s.observed_status = Some(ObservedStatus {
            desired_replicas: Some(0),
            ..ObservedStatus::default()
        });
        assert!(!codes(&s).contains(&"StatusMismatch".to_string()));
        let c = evaluate(&s).status_comparison.unwrap();
        assert_eq!(c.reconciled.as_deref(), Some("explained"));
        let why = c.explanation.unwrap_or_default();
        assert!(why.starts_with("Every metric fails here"), "{why}");
        let causes = c.likely_causes;
        assert!(
            causes.iter().all(|c| !c.starts_with("History")),
            "{causes:?}"
        );
    }

    #[test]
    fn a_value_target_that_drives_the_count_up_suggests_average_value_not_a_higher_max() {
        // 3 against a Value target of 1 on 8 pods: ceil(8 × 3) = 24, above maxReplicas 10.
        let mut s = scenario(vec![external("queue", Some(1000), None)], 8, 0);
        s.hpa.max_replicas = 10;
        s.metrics.external.insert(0, vec![3_000]);
        let d = find(&s, "ValueTargetRunaway");
        assert_eq!(
            d.message,
            "queue has a Value target (1): the controller proposes ceil(pods × value / target) = \
             24, so if the value does not fall as pods are added (a queue's length, a rate \
             measured upstream) the count grows at every sync until maxReplicas 10"
        );
        assert!(d.fix.starts_with("use an AverageValue target"), "{}", d.fix);
        let at_max = find(&s, "AtMaxReplicas");
        assert!(
            !at_max.fix.starts_with("raise maxReplicas"),
            "{}",
            at_max.fix
        );
        // An AverageValue target is not a runaway.
        let mut s = scenario(vec![external("queue", None, Some(1000))], 4, 0);
        s.metrics.external.insert(0, vec![3_000]);
        assert!(!codes(&s).contains(&"ValueTargetRunaway".to_string()));
    }

    #[test]
    fn policies_that_allow_more_than_the_metrics_ask_are_said_not_to_cap() {
        use crate::scenario::{Behavior, PolicyType, ScalingPolicy, ScalingRules, SelectPolicy};
        let rules = |value| ScalingRules {
            stabilization_window_seconds: Some(0),
            select_policy: SelectPolicy::Max,
            policies: vec![ScalingPolicy {
                policy_type: PolicyType::Pods,
                value,
                period_seconds: 60,
            }],
            tolerance: None,
        };
        // 4 pods at 75 % of 50 %: 6, and the policy allows 4 + 4 = 8.
        let mut s = scenario(vec![cpu_utilization(50)], 4, 750);
        s.hpa.behavior = Some(Behavior {
            scale_up: rules(4),
            scale_down: rules(1),
        });
        let d = find(&s, "PolicyAllowsMore");
        assert_eq!(
            d.message,
            "the scaleUp policies (selectPolicy Max) allow up to 8 this sync and the metrics asked \
             for 6: the policies did not cap it"
        );
        // A policy that caps is RateLimited instead.
        s.hpa.behavior = Some(Behavior {
            scale_up: rules(1),
            scale_down: rules(1),
        });
        assert!(!codes(&s).contains(&"PolicyAllowsMore".to_string()));
        assert!(codes(&s).contains(&"RateLimited".to_string()));
    }

    #[test]
    fn missing_pods_of_a_metric_failing_for_another_reason_do_not_claim_the_failure() {
        let mut s = scenario(vec![cpu_utilization(50)], 2, 500);
        s.pods.push(pod("missing", 1000));
        s.pods[0].containers[0].requests = Resources(vec![]);
        let d = find(&s, "MissingMetrics");
        assert!(!d.message.contains("so the metric fails"), "{}", d.message);
        assert!(codes(&s).contains(&"MissingRequest".to_string()));
    }

    #[test]
    fn a_recount_that_keeps_the_direction_is_not_called_reversed() {
        // 2 ready pods at 90 % of 50 %, one without a sample: counted at 0 the ratio is
        // (900 + 900 + 0) / 3 / 500 = 1.2, still a scale-up: ceil(1.2 × 3) = 4.
        let mut s = scenario(vec![cpu_utilization(50)], 2, 900);
        s.pods.push(pod("new", 1000));
        s.current_replicas = 3;
        let report = evaluate(&s);
        assert!(report.desired_replicas > 3, "{}", report.desired_replicas);
        assert!(!codes(&s).contains(&"RecountReversed".to_string()));
    }

    #[test]
    fn a_finished_pod_without_a_sample_is_its_own_cause_not_metrics_server() {
        let mut s = scenario(vec![cpu_utilization(50)], 3, 600);
        let mut done = pod("smoke-test", 1000);
        done.phase = crate::scenario::PodPhase::Succeeded;
        s.pods.push(done);
        let d = find(&s, "FinishedPodsUnderSelector");
        assert!(
            d.message
                .starts_with("1 pod(s) in phase Succeeded match the HPA's selector (smoke-test)"),
            "{}",
            d.message
        );
        assert_eq!(
            find(&s, "MissingMetrics").fix,
            "see FinishedPodsUnderSelector"
        );
        // A Running pod without a sample: its own causes, still not metrics-server.
        s.pods.push(pod("crashing", 1000));
        let fix = find(&s, "MissingMetrics").fix;
        assert!(fix.contains("container that is not running"), "{fix}");
        assert!(!fix.contains("check"), "{fix}");
    }

    #[test]
    fn a_windows_pod_without_a_sample_is_its_own_cause_not_metrics_server() {
        let mut s = scenario(vec![cpu_utilization(50)], 3, 600);
        let mut win = pod("web-win-0", 1000);
        win.placement.windows = true;
        s.pods.push(win);
        s.current_replicas = 4;
        let d = find(&s, "WindowsPods");
        assert!(
            d.message.starts_with(
                "1 pod(s) without a sample for cpu resource utilization (percentage of request) \
                 run on Windows nodes (nodeSelector kubernetes.io/os: windows): web-win-0"
            ),
            "{}",
            d.message
        );
        assert!(!d.fix.starts_with("check metrics-server"), "{}", d.fix);
        assert_eq!(find(&s, "MissingMetrics").fix, "see WindowsPods");
        // A Linux pod without a sample: no such cause.
        s.pods.last_mut().unwrap().placement.windows = false;
        assert!(!codes(&s).contains(&"WindowsPods".to_string()));
    }

    #[test]
    fn a_crash_looping_container_is_its_own_cause_not_metrics_server() {
        let mut s = scenario(vec![cpu_utilization(50)], 3, 600);
        let mut crashing = pod("web-7d9f-x2", 1000);
        crashing.placement.not_running = Some(("app".into(), "CrashLoopBackOff".into()));
        s.pods.push(crashing);
        s.current_replicas = 4;
        let d = find(&s, "ContainerNotRunning");
        assert!(
            d.message
                .ends_with("web-7d9f-x2 (container app of web-7d9f-x2: CrashLoopBackOff)"),
            "{}",
            d.message
        );
        assert!(
            d.fix.starts_with("kubectl describe pod web-7d9f-x2"),
            "{}",
            d.fix
        );
        assert_eq!(find(&s, "MissingMetrics").fix, "see ContainerNotRunning");
        // Every container running: the generic fix, which is not "check metrics-server".
        s.pods.last_mut().unwrap().placement.not_running = None;
        assert!(!codes(&s).contains(&"ContainerNotRunning".to_string()));
        assert!(
            !find(&s, "MissingMetrics")
                .fix
                .contains("check metrics-server")
        );
    }

    #[test]
    fn a_missing_request_on_a_finished_pod_names_the_pod_not_the_requests() {
        let mut s = scenario(vec![cpu_utilization(50)], 2, 500);
        let mut done = pod("helm-test", 1000);
        done.phase = crate::scenario::PodPhase::Succeeded;
        done.containers[0].requests = Resources(vec![]);
        s.pods.push(done);
        let d = find(&s, "MissingRequest");
        assert!(
            d.fix.starts_with("Pod helm-test is in phase Succeeded"),
            "{}",
            d.fix
        );
        assert!(!d.fix.contains("set resources.requests"), "{}", d.fix);
    }

    #[test]
    fn check_metrics_server_only_when_the_metrics_api_failed() {
        let mut s = scenario(vec![cpu_utilization(50)], 2, 500);
        s.metrics.resource.clear();
        let d = find(&s, "InvalidMetric");
        assert!(!d.fix.contains("metrics-server"), "{}", d.fix);
        s.metrics.resource_api_error =
            Some("the server is currently unable to handle the request".into());
        let d = find(&s, "InvalidMetric");
        assert!(d.fix.starts_with("check metrics-server"), "{}", d.fix);
    }

    #[test]
    fn the_most_severe_come_first() {
        let s = scenario(
            vec![cpu_utilization(50), external("queue", Some(1000), None)],
            4,
            100,
        );
        let severities: Vec<Severity> = evaluate(&s)
            .diagnostics
            .iter()
            .map(|d| d.severity)
            .collect();
        let mut sorted = severities.clone();
        sorted.sort_by_key(|s| std::cmp::Reverse(*s));
        assert_eq!(severities, sorted);
        assert_eq!(severities.first(), Some(&Severity::Error));
    }
}
