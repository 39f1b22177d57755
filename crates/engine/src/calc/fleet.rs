//! The checks of `hpacalc audit` that need more than one object: pure functions of the facts the
//! input side gathered (`scenario::fleet`) for each HPA (its target, the other HPAs selecting its pods, its PDBs and
//! VPAs, who owns its target's `spec.replicas`) and of its single-HPA report.

use crate::report::fleet::{AuditReport, AuditSummary, Finding, SeverityCounts, Unevaluated};
use crate::report::{Report, Severity};
use crate::scenario::fleet::{
    CapacityFacts, FleetFacts, HpaCase, HpaFacts, LoneScaledObject, NodeRoom, PdbFacts,
    TargetState, Unlisted,
};
use crate::time::Duration;

/// How many pods of `per_pod` requests the nodes hold, node by node (a pod fits on one node).
pub fn pods_that_fit(nodes: &[NodeRoom], per_pod: &[(String, i64)]) -> i64 {
    nodes
        .iter()
        .map(|n| {
            per_pod
                .iter()
                .filter(|(_, need)| *need > 0)
                .map(|(r, need)| {
                    let free = n.free.iter().find(|(f, _)| f == r).map_or(0, |(_, v)| *v);
                    free.max(0) / need
                })
                .fold(n.free_pods.max(0), i64::min)
        })
        .sum()
}

/// `EvaluationFailed`: the HPA `key` (`namespace/name`) has no decision, and why.
pub fn evaluation_failed(key: &str, message: String, fix: &str) -> Finding {
    Finding {
        code: "EvaluationFailed".into(),
        severity: Severity::Error,
        hpa: Some(key.to_string()),
        objects: Vec::new(),
        message,
        fix: fix.to_string(),
    }
}

/// `ScaledObjectWithoutHpa`: what scales a ScaledObject's target when its HPA is not there.
pub fn scaled_object_findings(lone: &[LoneScaledObject]) -> Vec<Finding> {
    lone.iter()
        .map(|so| {
            let (message, fix) = if so.paused {
                (
                    format!(
                        "ScaledObject {} is paused (autoscaling.keda.sh/paused or \
                         paused-replicas): KEDA deleted its HPA and holds the target, so nothing \
                         scales it and there is no HPA to evaluate",
                        so.key
                    ),
                    "remove the pause annotation when the target should scale again".to_string(),
                )
            } else {
                (
                    format!(
                        "ScaledObject {} owns no HPA in the inputs: KEDA creates one (keda-hpa-NAME, \
                         or advanced.horizontalPodAutoscalerConfig.name) when it reconciles the \
                         ScaledObject; without it nothing scales the target, and there is no HPA to \
                         evaluate",
                        so.key
                    ),
                    "include the HPAs in the dump (kubectl get hpa,...); if the HPA is really \
                     missing, read the ScaledObject's status.conditions and the KEDA operator's log"
                        .to_string(),
                )
            };
            Finding {
                code: "ScaledObjectWithoutHpa".into(),
                severity: Severity::Info,
                hpa: None,
                objects: vec![format!("ScaledObject/{}", so.key)],
                message,
                fix,
            }
        })
        .collect()
}

/// Keys of an HPA in messages.
fn key(h: &HpaFacts) -> String {
    format!("{}/{}", h.namespace, h.name)
}

fn finding(
    code: &str,
    severity: Severity,
    h: &HpaFacts,
    objects: Vec<String>,
    message: String,
    fix: String,
) -> Finding {
    Finding {
        code: code.to_string(),
        severity,
        hpa: Some(key(h)),
        objects,
        message,
        fix,
    }
}

fn target_object(h: &HpaFacts) -> String {
    format!("{}/{}/{}", h.target_kind, h.namespace, h.target_name)
}

/// Every finding of one HPA: its target, its pods' selector, its replica range, the other objects
/// acting on its workload, its metrics' inputs, and whether the controller syncs it and the nodes
/// hold maxReplicas.
pub fn hpa_findings(h: &HpaFacts, report: Option<&Report>, fleet: &FleetFacts) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(target_finding(h));
    out.extend(selector_finding(h));
    out.extend(range_findings(h, report));
    out.extend(neighbour_findings(h));
    out.extend(metric_input_findings(h, fleet));
    out.extend(sync_findings(h, fleet));
    out
}

/// `TargetMissing`, `TargetKindMismatch`: the controller cannot read the target's scale.
fn target_finding(h: &HpaFacts) -> Option<Finding> {
    let target = target_object(h);
    match &h.target {
        TargetState::Missing => Some(finding(
            "TargetMissing",
            Severity::Error,
            h,
            vec![target],
            format!(
                "scaleTargetRef names {} {}, which is not in namespace {} of the inputs: the \
                 controller cannot read its scale (AbleToScale False, FailedGetScale) and does \
                 nothing",
                h.target_kind, h.target_name, h.namespace
            ),
            "fix scaleTargetRef (kind, name, apiVersion), or include the target in the dump"
                .to_string(),
        )),
        // Port of the scale read of reconcileAutoscaler (horizontal.go): the error
        // scaleNamespacer.Scales(...).Get answers is the event and condition FailedGetScale.
        TargetState::Unread { answer } => Some(finding(
            "TargetMissing",
            Severity::Error,
            h,
            vec![target],
            format!(
                "scaleTargetRef names {} {}, whose scale the API server does not give: {answer}; \
                 the controller cannot read its scale (AbleToScale False, FailedGetScale) and \
                 does nothing",
                h.target_kind, h.target_name
            ),
            "fix scaleTargetRef (kind, name, apiVersion), or create the target".to_string(),
        )),
        TargetState::NoScale => Some(finding(
            "TargetKindMismatch",
            Severity::Error,
            h,
            vec![target],
            format!(
                "scaleTargetRef names a {}, a kind without a scale subresource: the controller \
                 cannot read or set its replicas (FailedGetScale)",
                h.target_kind
            ),
            "point scaleTargetRef at a Deployment, StatefulSet, ReplicaSet or another kind with \
             a scale subresource"
                .to_string(),
        )),
        TargetState::Found => None,
    }
}

/// `HorizontalPodAutoscaler/KEY` for each HPA key.
fn hpa_objects(keys: &[String]) -> Vec<String> {
    keys.iter()
        .map(|k| format!("HorizontalPodAutoscaler/{k}"))
        .collect()
}

/// `AmbiguousSelector`: other HPAs select the same pods, or scale the same target.
// Port of validateAndParseSelector / hpasControllingPodsUnderSelector (horizontal.go).
fn selector_finding(h: &HpaFacts) -> Option<Finding> {
    if !h.selecting.is_empty() {
        let all = h.selecting.with(&key(h));
        Some(finding(
            "AmbiguousSelector",
            Severity::Error,
            h,
            hpa_objects(&h.selecting.first),
            format!(
                "pods by selector {} are controlled by multiple HPAs: [{}]; the controller \
                 computes nothing for this HPA (ScalingActive False, AmbiguousSelector)",
                h.selector,
                all.joined(" ")
            ),
            "keep one HPA per workload, and give each workload labels and a selector of its own"
                .to_string(),
        ))
    } else if !h.same_target.is_empty() {
        Some(finding(
            "AmbiguousSelector",
            Severity::Error,
            h,
            hpa_objects(&h.same_target.first),
            format!(
                "{} other HPA(s) scale the same {} {}: once it has pods, the controller stops \
                 every one of them with AmbiguousSelector",
                h.same_target.total, h.target_kind, h.target_name
            ),
            "keep one HPA per workload; put all its metrics in that one HPA".to_string(),
        ))
    } else {
        None
    }
}

/// `MinEqualsMax`, `MaxBelowCurrentLoad`: the replica range against itself and the load now.
fn range_findings(h: &HpaFacts, report: Option<&Report>) -> Vec<Finding> {
    let mut out = Vec::new();
    if h.min_replicas == h.max_replicas {
        out.push(finding(
            "MinEqualsMax",
            Severity::Warning,
            h,
            Vec::new(),
            format!(
                "minReplicas and maxReplicas are both {}: the HPA can never change the count",
                h.max_replicas
            ),
            "raise maxReplicas, or remove the HPA and set the replicas on the workload".into(),
        ));
    }
    if let Some(r) = report
        && let Some(proposal) = r.decision.metric_proposal
        && proposal > h.max_replicas
    {
        out.push(finding(
            "MaxBelowCurrentLoad",
            Severity::Warning,
            h,
            Vec::new(),
            format!(
                "the metrics ask for {proposal} replicas now ({}), above maxReplicas {}: the \
                 target stays at {}",
                r.decision
                    .metric_name
                    .as_deref()
                    .unwrap_or("the largest proposal"),
                h.max_replicas,
                r.desired_replicas
            ),
            format!("raise maxReplicas to at least {proposal}, or lower the load per pod"),
        ));
    }
    out
}

/// `PdbBlocksDrain`, `HpaVpaConflict`, `ReplicasFieldManaged`: the other objects acting on the
/// HPA's workload.
fn neighbour_findings(h: &HpaFacts) -> Vec<Finding> {
    let mut out = Vec::new();
    for pdb in &h.pdbs {
        if let Some(why) = pdb_blocks(pdb, h.min_replicas) {
            out.push(finding(
                "PdbBlocksDrain",
                Severity::Warning,
                h,
                vec![format!("PodDisruptionBudget/{}/{}", h.namespace, pdb.name)],
                format!(
                    "PodDisruptionBudget {} has {why}: at minReplicas {} no pod may be evicted, \
                     so a node drain waits until the HPA scales up",
                    pdb.name, h.min_replicas
                ),
                "set maxUnavailable: 1 (or minAvailable below minReplicas), or raise minReplicas"
                    .into(),
            ));
        }
    }
    for vpa in &h.vpas {
        let mode = vpa.update_mode.as_str();
        let both: Vec<&String> = (h.resources.iter())
            .filter(|r| vpa.controlled.contains(r))
            .collect();
        if matches!(mode, "Auto" | "Recreate" | "InPlaceOrRecreate") && !both.is_empty() {
            let list: Vec<&str> = both.iter().map(|s| s.as_str()).collect();
            out.push(finding(
                "HpaVpaConflict",
                Severity::Warning,
                h,
                vec![format!(
                    "VerticalPodAutoscaler/{}/{}",
                    h.namespace, vpa.name
                )],
                format!(
                    "VerticalPodAutoscaler {} (updateMode {mode}) sets the {} requests the HPA \
                     scales on: each changes the other's input, and utilization drifts as the \
                     requests move",
                    vpa.name,
                    list.join(", ")
                ),
                "scale the HPA on another metric, or exclude these resources from the VPA \
                 (controlledResources, or updateMode Off)"
                    .into(),
            ));
        }
    }
    if !h.replicas_owners.is_empty() {
        out.push(finding(
            "ReplicasFieldManaged",
            Severity::Warning,
            h,
            vec![target_object(h)],
            format!(
                "{} {}'s spec.replicas is set by {}, not by the HPA controller: every apply \
                 of it resets the count the HPA set",
                h.target_kind,
                h.target_name,
                h.replicas_owners.join(", ")
            ),
            "remove spec.replicas from the manifests the manager applies (or tell it to ignore \
             the field, e.g. Argo CD ignoreDifferences)"
                .into(),
        ));
    }
    out
}

/// `NoRequests`, `MetricsApiUnavailable`: what the HPA's Resource metrics need and lack.
fn metric_input_findings(h: &HpaFacts, fleet: &FleetFacts) -> Vec<Finding> {
    let mut out = Vec::new();
    if !h.missing_requests.is_empty() {
        let list: Vec<String> = (h.missing_requests.iter())
            .map(|(c, r)| format!("{r} of container {c}"))
            .collect();
        out.push(finding(
            "NoRequests",
            Severity::Error,
            h,
            vec![target_object(h)],
            format!(
                "the pods have no request for {}: a Utilization target divides by the request, \
                 so the controller fails the metric (missing request)",
                list.join(", ")
            ),
            "set resources.requests on every container for the resources the HPA scales on".into(),
        ));
    }
    if let Some(e) = &fleet.metrics_api_error
        && !h.resources.is_empty()
    {
        out.push(finding(
            "MetricsApiUnavailable",
            Severity::Warning,
            h,
            Vec::new(),
            format!(
                "the resource metrics API answered an error ({e}): every Resource metric of \
                 this HPA fails"
            ),
            "check metrics-server (kubectl get apiservice v1beta1.metrics.k8s.io)".into(),
        ));
    }
    out
}

/// `StatusStale`, `MaxUnreachable`: whether the controller syncs the HPA, and whether the nodes
/// hold maxReplicas.
fn sync_findings(h: &HpaFacts, fleet: &FleetFacts) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some(stale) = staleness(h, fleet) {
        out.push(finding(
            "StatusStale",
            Severity::Warning,
            h,
            Vec::new(),
            stale,
            "check that kube-controller-manager runs and can reach this HPA (its logs, \
             --controllers)"
                .into(),
        ));
    }
    if let Some(c) = &h.capacity
        && let Some(text) = unreachable(c, h.max_replicas)
    {
        out.push(finding(
            "MaxUnreachable",
            Severity::Warning,
            h,
            Vec::new(),
            text,
            "add nodes (or raise the node group's maximum), or lower maxReplicas to what fits"
                .into(),
        ));
    }
    out
}

/// Findings about the inputs as a whole: `resource_hpas` are the HPAs with Resource metrics.
pub fn fleet_findings(fleet: &FleetFacts, resource_hpas: &[String]) -> Vec<Finding> {
    let mut out: Vec<Finding> = fleet.unlisted.iter().map(list_forbidden).collect();
    if fleet.metrics_given || resource_hpas.is_empty() {
        return out;
    }
    out.push(Finding {
        code: "MetricsApiUnavailable".into(),
        severity: Severity::Info,
        hpa: None,
        objects: hpa_objects(resource_hpas),
        message: format!(
            "no --metrics was given: for the {} HPA(s) with Resource metrics the resource metrics \
             API answers nothing, so those metrics fail",
            resource_hpas.len()
        ),
        fix: "pass --metrics with kubectl get --raw /apis/metrics.k8s.io/v1beta1/pods".into(),
    });
    out
}

/// A list the API refused: what the audit could not check, and the rule that would allow it.
fn list_forbidden(u: &Unlisted) -> Finding {
    let resource = match u.group.as_str() {
        "" => u.resource.clone(),
        group => format!("{}.{group}", u.resource),
    };
    let scope = u
        .namespace
        .as_deref()
        .map_or("in any namespace".to_string(), |ns| {
            format!("in namespace {ns}")
        });
    Finding {
        code: "ListForbidden".into(),
        severity: Severity::Info,
        hpa: None,
        objects: Vec::new(),
        message: format!(
            "cannot list {resource} {scope} (403: {}): {}",
            u.answer, u.unchecked
        ),
        fix: format!(
            "bind a Role or ClusterRole with the rule {{apiGroups: [\"{}\"], resources: \
             [\"{}\"], verbs: [\"list\"]}} (hpacalc rbac prints every rule the audit needs)",
            u.group, u.resource
        ),
    }
}

/// Why a PDB blocks evictions at `min` replicas, if it does.
fn pdb_blocks(pdb: &PdbFacts, min: i32) -> Option<String> {
    let zero = |v: &str| v == "0" || v == "0%";
    if let Some(max) = &pdb.max_unavailable
        && zero(max)
    {
        return Some(format!("maxUnavailable {max}"));
    }
    let min_available = pdb.min_available.as_deref()?;
    let blocks = match min_available.strip_suffix('%') {
        Some(p) => p.parse::<i64>().is_ok_and(|p| p >= 100),
        None => min_available
            .parse::<i64>()
            .is_ok_and(|n| n >= i64::from(min)),
    };
    blocks.then(|| format!("minAvailable {min_available}"))
}

fn staleness(h: &HpaFacts, fleet: &FleetFacts) -> Option<String> {
    if let (Some(g), Some(o)) = (h.generation, h.observed_generation)
        && o < g
    {
        return Some(format!(
            "status.observedGeneration {o} is behind metadata.generation {g}: the controller \
             has not synced the HPA since its spec changed"
        ));
    }
    let (written, newest) = (h.status_written?, fleet.newest?);
    let limit = fleet.sync_period.millis().saturating_mul(10);
    let age = newest.0.saturating_sub(written.0);
    (age > limit).then(|| {
        format!(
            "the status was last written {} before the newest time in the inputs ({}), more than \
             10 sync periods: the controller is not syncing this HPA",
            Duration(age),
            newest.to_rfc3339()
        )
    })
}

fn unreachable(c: &CapacityFacts, max: i32) -> Option<String> {
    let more = i64::from(max) - c.current_pods;
    let room = c.fit.saturating_add(c.group.as_ref().map_or(0, |g| g.fit));
    if more <= room {
        return None;
    }
    let requests: Vec<String> = (c.per_pod.iter())
        .map(|(r, m)| format!("{r} {}", crate::quantity::human_quantity(r, *m)))
        .collect();
    let room = match &c.group {
        None => format!(
            "the schedulable nodes given have room for {}: the rest stay Pending unless the node \
             group grows (its maximum is not in the inputs; --node-group-max gives it)",
            c.fit
        ),
        Some(g) => format!(
            "the schedulable nodes given have room for {} and the {} node(s) the node group may \
             still add (--node-group-max {}) for {}: the rest stay Pending",
            c.fit, g.new_nodes, g.max, g.fit
        ),
    };
    Some(format!(
        "maxReplicas {max} needs {more} more pod(s) requesting {}; {room}",
        requests.join(", ")
    ))
}

/// The audit's result: the reports, the findings most severe first, and the summary.
/// With `decided` false (manifests only) no HPA was meant to be evaluated: none counts as
/// failing for that.
pub fn assemble(
    reports: Vec<Report>,
    unevaluated: Vec<Unevaluated>,
    mut findings: Vec<Finding>,
    decided: bool,
) -> AuditReport {
    findings.sort_by(|a, b| b.severity.cmp(&a.severity).then(a.hpa.cmp(&b.hpa)));
    let mut counts = SeverityCounts::default();
    for f in &findings {
        match f.severity {
            Severity::Error => counts.error += 1,
            Severity::Warning => counts.warning += 1,
            Severity::Info => counts.info += 1,
        }
    }
    // ScalingActive False: no count computed; AbleToScale False: no scale read.
    let failing = reports
        .iter()
        .filter(|r| {
            r.conditions.iter().any(|c| {
                matches!(c.condition_type.as_str(), "ScalingActive" | "AbleToScale")
                    && c.status == "False"
            })
        })
        .count()
        + if decided { unevaluated.len() } else { 0 };
    AuditReport {
        schema_version: crate::report::fleet::AUDIT_SCHEMA_VERSION,
        summary: AuditSummary {
            hpas: reports.len() + unevaluated.len(),
            scaling_up: (reports.iter())
                .filter(|r| r.desired_replicas > r.current_replicas)
                .count(),
            scaling_down: (reports.iter())
                .filter(|r| r.desired_replicas < r.current_replicas)
                .count(),
            at_max: (reports.iter())
                .filter(|r| r.desired_replicas == r.max_replicas)
                .count(),
            failing,
            findings_by_severity: counts,
        },
        hpas: reports,
        unevaluated,
        findings,
    }
}

/// One HPA's case with its single-HPA report, or the reason it has none.
pub struct Evaluated {
    facts: HpaFacts,
    report: Result<Report, String>,
}

/// One HPA's decision: cases do not depend on each other, so a caller may evaluate them on
/// every core and hand them to [`audit`] in their order.
pub fn evaluate(case: HpaCase) -> Evaluated {
    Evaluated {
        report: case.scenario.map(|s| crate::calc::evaluate(&s)),
        facts: case.facts,
    }
}

/// A fleet's audit: each HPA's decision (its single-HPA report), the checks that need more than
/// one object, and the summary.
pub fn audit(
    cases: impl IntoIterator<Item = Evaluated>,
    fleet: &FleetFacts,
    lone: &[LoneScaledObject],
) -> AuditReport {
    let mut reports = Vec::new();
    let mut unevaluated = Vec::new();
    let mut findings: Vec<Finding> = Vec::new();
    let mut resource_hpas: Vec<String> = Vec::new();
    for case in cases {
        let h = &case.facts;
        let key = key(h);
        if !h.resources.is_empty() {
            resource_hpas.push(key.clone());
        }
        match case.report {
            Ok(report) => {
                findings.extend(hpa_findings(h, Some(&report), fleet));
                reports.push(report);
            }
            Err(error) => {
                findings.extend(hpa_findings(h, None, fleet));
                if h.target == TargetState::Found {
                    findings.push(evaluation_failed(
                        &key,
                        format!("the single-HPA evaluation failed: {error}"),
                        "run hpacalc on this HPA alone to see the inputs it needs",
                    ));
                }
                unevaluated.push(Unevaluated {
                    hpa: key,
                    target: format!("{}/{}", h.target_kind, h.target_name),
                    min_replicas: h.min_replicas,
                    max_replicas: h.max_replicas,
                    error,
                });
            }
        }
    }
    findings.extend(fleet_findings(fleet, &resource_hpas));
    findings.extend(scaled_object_findings(lone));
    assemble(reports, unevaluated, findings, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::fleet::{GroupFit, Names, VpaFacts};
    use crate::time::Timestamp;

    fn facts() -> HpaFacts {
        HpaFacts {
            namespace: "shop".into(),
            name: "web".into(),
            target_kind: "Deployment".into(),
            target_name: "web".into(),
            target: TargetState::Found,
            min_replicas: 2,
            max_replicas: 10,
            utilization_resources: vec!["cpu".into()],
            resources: vec!["cpu".into()],
            missing_requests: Vec::new(),
            selecting: Names::default(),
            same_target: Names::default(),
            selector: "app=web".into(),
            replicas_owners: Vec::new(),
            pdbs: Vec::new(),
            vpas: Vec::new(),
            generation: Some(1),
            observed_generation: Some(1),
            status_written: None,
            capacity: None,
        }
    }

    fn fleet() -> FleetFacts {
        FleetFacts {
            newest: None,
            sync_period: Duration(15_000),
            metrics_api_error: None,
            metrics_given: true,
            unlisted: Vec::new(),
            node_group_max: None,
        }
    }

    fn codes(h: &HpaFacts) -> Vec<String> {
        hpa_findings(h, None, &fleet())
            .into_iter()
            .map(|f| f.code)
            .collect()
    }

    #[test]
    fn a_healthy_hpa_has_no_finding() {
        assert!(codes(&facts()).is_empty());
    }

    #[test]
    fn a_scale_read_answered_with_an_error_is_target_missing_quoting_the_api() {
        let mut h = facts();
        h.target_kind = "Rollout".into();
        h.target = TargetState::Unread {
            answer: "rollouts.argoproj.io \"web\" not found".into(),
        };
        let f = hpa_findings(&h, None, &fleet());
        assert_eq!(f[0].code, "TargetMissing");
        assert_eq!(f[0].severity, Severity::Error);
        assert!(
            f[0].message
                .contains("does not give: rollouts.argoproj.io \"web\" not found;"),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn the_ambiguous_selector_message_is_the_controllers() {
        let mut h = facts();
        h.selecting = Names::of(["shop/web-2".to_string()], 1);
        let f = hpa_findings(&h, None, &fleet());
        assert_eq!(f[0].code, "AmbiguousSelector");
        assert!(
            f[0].message.starts_with(
                "pods by selector app=web are controlled by multiple HPAs: [shop/web shop/web-2]"
            ),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn a_pdb_blocks_when_min_available_reaches_min_replicas_or_max_unavailable_is_zero() {
        let pdb = |min: Option<&str>, max: Option<&str>| PdbFacts {
            name: "p".into(),
            min_available: min.map(str::to_string),
            max_unavailable: max.map(str::to_string),
        };
        assert!(pdb_blocks(&pdb(Some("2"), None), 2).is_some());
        assert!(pdb_blocks(&pdb(Some("1"), None), 2).is_none());
        assert!(pdb_blocks(&pdb(Some("100%"), None), 2).is_some());
        assert!(pdb_blocks(&pdb(Some("50%"), None), 2).is_none());
        assert!(pdb_blocks(&pdb(None, Some("0")), 2).is_some());
        assert!(pdb_blocks(&pdb(None, Some("1")), 2).is_none());
    }

    #[test]
    fn a_vpa_conflicts_only_in_an_updating_mode_on_a_scaled_resource() {
        let mut h = facts();
        let vpa = |mode: &str, res: &[&str]| VpaFacts {
            name: "v".into(),
            update_mode: mode.into(),
            controlled: res.iter().map(|s| s.to_string()).collect(),
        };
        h.vpas = vec![vpa("Off", &["cpu"]), vpa("Auto", &["memory"])];
        assert!(codes(&h).is_empty());
        h.vpas = vec![vpa("InPlaceOrRecreate", &["cpu", "memory"])];
        assert_eq!(codes(&h), ["HpaVpaConflict"]);
    }

    #[test]
    fn a_status_older_than_ten_sync_periods_is_stale() {
        let mut h = facts();
        let mut f = fleet();
        f.newest = Some(Timestamp(1_000_000));
        h.status_written = Some(Timestamp(1_000_000 - 150_000));
        assert!(hpa_findings(&h, None, &f).is_empty());
        h.status_written = Some(Timestamp(1_000_000 - 150_001));
        assert_eq!(hpa_findings(&h, None, &f)[0].code, "StatusStale");
        h.status_written = None;
        h.observed_generation = Some(0);
        assert_eq!(hpa_findings(&h, None, &f)[0].code, "StatusStale");
    }

    #[test]
    fn max_is_unreachable_when_the_free_room_holds_fewer_pods() {
        let node = |cpu: i64, pods: i64| NodeRoom {
            free: vec![("cpu".into(), cpu)],
            free_pods: pods,
        };
        let per_pod = vec![("cpu".to_string(), 500)];
        // 1.9 cores hold 3 pods, not 3.8; pod slots cap the second node.
        assert_eq!(
            pods_that_fit(&[node(1_900, 110), node(4_000, 2)], &per_pod),
            5
        );
        let mut c = CapacityFacts {
            per_pod,
            fit: 5,
            current_pods: 4,
            group: None,
        };
        assert!(unreachable(&c, 9).is_none());
        assert!(unreachable(&c, 10).is_some());
        // Two more nodes the group may add, three pods each: 6 more fit.
        c.group = Some(GroupFit {
            max: 7,
            new_nodes: 2,
            fit: 6,
        });
        assert!(unreachable(&c, 15).is_none());
        let text = unreachable(&c, 16).unwrap();
        assert!(
            text.ends_with(
                "the schedulable nodes given have room for 5 and the 2 node(s) the node group \
                 may still add (--node-group-max 7) for 6: the rest stay Pending"
            ),
            "{text}"
        );
    }
}
