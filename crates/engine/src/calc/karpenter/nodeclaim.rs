//! One NodeClaim being packed (`nodeclaim.go`): its template (a NodePool's requirements,
//! taints and instance types, `nodeclaimtemplate.go`), the DaemonSet overhead groups, and
//! `CanAdd`/`Add`/`FinalizeScheduling` with `filterInstanceTypesByRequirements`.

use std::collections::BTreeMap;

use super::catalog::{self, HOSTNAME, Item, Res, compatible, fits, merge};
use super::pod::{Pod, host_ports_conflict, pod_requirements, tolerates_pod};
use super::requirements::{Requirements, is_in};
use super::topology::Topology;
use crate::scenario::karpenter::HostPort;
use crate::scenario::node_groups::Taint;

/// A NodePool made ready to open NodeClaims (`NodeClaimTemplate`).
#[derive(Debug, Clone)]
pub struct Template {
    pub node_pool: String,
    pub weight: i32,
    pub requirements: Requirements,
    pub taints: Vec<Taint>,
    /// Indices into the catalog, in catalog order.
    pub instance_types: Vec<usize>,
    /// The DaemonSet overhead groups: (instance types, overhead).
    pub daemon_groups: Vec<(Vec<usize>, Res)>,
}

/// A NodeClaim of this solve.
#[derive(Debug, Clone)]
pub struct NodeClaim {
    pub template: usize,
    pub hostname: String,
    pub requirements: Requirements,
    pub instance_types: Vec<usize>,
    /// The pods' requests (DaemonSet overhead added by `finalize`).
    pub requests: Res,
    pub pods: Vec<usize>,
    /// The host ports its pods hold (each overhead group's `HostPortUsage`; the DaemonSets of
    /// `--daemonset-requests` hold none).
    pub host_ports: Vec<HostPort>,
}

/// Why no instance type was left (`InstanceTypeFilterError`).
#[derive(Debug, Default)]
struct FilterError {
    requirements_met: bool,
    fits: bool,
    has_offering: bool,
    requirements_and_fits: bool,
    requirements_and_offering: bool,
    fits_and_offering: bool,
    min_values: Option<String>,
}

impl FilterError {
    // Port of InstanceTypeFilterError.Error (nodeclaim.go): the reason without the
    // requirements/resources tail, which the caller appends.
    fn reason(&self) -> &'static str {
        let (r, f, o) = (self.requirements_met, self.fits, self.has_offering);
        match () {
            _ if !r && !f && !o => {
                "no instance type met the scheduling requirements or had enough resources or had a required offering"
            }
            _ if !r && !f => {
                "no instance type met the scheduling requirements or had enough resources"
            }
            _ if !r && !o => {
                "no instance type met the scheduling requirements or had a required offering"
            }
            _ if !f && !o => "no instance type had enough resources or had a required offering",
            _ if !r => "no instance type met all requirements",
            _ if !f => "no instance type has enough resources",
            _ if !o => "no instance type has the required offering",
            _ if self.requirements_and_fits => {
                "no instance type which met the scheduling requirements and had enough resources, had a required offering"
            }
            _ if self.fits_and_offering => {
                "no instance type which had enough resources and the required offering met the scheduling requirements"
            }
            _ if self.requirements_and_offering => {
                "no instance type which met the scheduling requirements and the required offering had the required resources"
            }
            _ => "no instance type met the requirements/resources/offering tuple",
        }
    }
}

/// Resources as Karpenter prints them (`resources.String`): `{"cpu":"1500m","memory":...}`.
pub fn res_string(r: &Res) -> String {
    let parts: Vec<String> = (r.iter())
        .map(|(k, v)| {
            let q = if k == "cpu" {
                crate::quantity::build_quantity("cpu", *v)
            } else {
                crate::quantity::build_quantity(k, *v)
            };
            format!("{k:?}:{q:?}")
        })
        .collect();
    format!("{{{}}}", parts.join(","))
}

// Port of filterInstanceTypesByRequirements (nodeclaim.go): the types compatible with the
// requirements that fit the requests plus their group's DaemonSet overhead and have an
// offering; `minValues` checked over what is left (the Strict policy).
pub fn filter_instance_types(
    catalog: &[Item],
    eligible: &[usize],
    groups: &[(Vec<usize>, Res)],
    reqs: &Requirements,
    pod_requests: &Res,
    total: &Res,
) -> Result<Vec<usize>, String> {
    let mut e = FilterError::default();
    let mut remaining = Vec::new();
    let eligible_set: std::collections::BTreeSet<usize> = eligible.iter().copied().collect();
    for (types, overhead) in groups {
        let with_daemons = merge(total, overhead);
        for &i in types.iter().filter(|i| eligible_set.contains(i)) {
            let Some(it) = catalog.get(i) else { continue };
            let c = compatible(it, reqs);
            let (f, o) = fits(it, &with_daemons, reqs);
            e.requirements_met |= c;
            e.fits |= f;
            e.has_offering |= o;
            e.requirements_and_fits |= c && f && !o;
            e.requirements_and_offering |= c && o && !f;
            e.fits_and_offering |= f && o && !c;
            if c && f && o {
                remaining.push(i);
            }
        }
    }
    if reqs.has_min_values() {
        let items: Vec<&Item> = remaining.iter().filter_map(|i| catalog.get(*i)).collect();
        let mv = catalog::satisfies_min_values(&items, reqs);
        if !mv.short.is_empty() {
            e.min_values = Some(catalog::min_values_error(&mv.short));
            remaining.clear();
        }
    }
    if remaining.is_empty() {
        let head = e
            .min_values
            .clone()
            .unwrap_or_else(|| e.reason().to_string());
        return Err(format!(
            "{head}, requirements={reqs}, resources={}",
            res_string(pod_requests)
        ));
    }
    Ok(remaining)
}

/// What `CanAdd` found: the requirements and instance types the NodeClaim would have.
pub struct Fit {
    pub requirements: Requirements,
    pub instance_types: Vec<usize>,
}

impl NodeClaim {
    // Port of NewNodeClaim (nodeclaim.go): the template's requirements and a placeholder
    // hostname.
    pub fn new(template: usize, t: &Template, instance_types: Vec<usize>, n: usize) -> NodeClaim {
        let hostname = format!("hostname-placeholder-{n:04}");
        let mut requirements = t.requirements.clone();
        requirements.add(is_in(HOSTNAME, &[&hostname]));
        NodeClaim {
            template,
            hostname,
            requirements,
            instance_types,
            requests: Res::new(),
            pods: Vec::new(),
            host_ports: Vec::new(),
        }
    }

    // Port of NodeClaim.CanAdd (nodeclaim.go) and tryVolumeAlternative without volumes.
    pub fn can_add(
        &self,
        t: &Template,
        catalog: &[Item],
        topology: &Topology,
        pod: &Pod,
    ) -> Result<Fit, String> {
        tolerates_pod(&t.taints, &pod.constraints.tolerations)?;
        let pod_reqs = pod_requirements(&pod.constraints, false);
        let mut reqs = self.requirements.clone();
        reqs.compatible(&pod_reqs, true)
            .map_err(|e| format!("incompatible requirements, {e}"))?;
        reqs.add_all(&pod_reqs);
        let strict = pod_requirements(&pod.constraints, true);
        let topo = topology.add_requirements(pod, &strict, &reqs)?;
        reqs.compatible(&topo, true)?;
        reqs.add_all(&topo);
        let total = merge(&self.requests, &pod.requests);
        // filterInstanceTypesByRequirements skips every overhead group whose host ports
        // conflict with the pod's.
        let groups = match host_ports_conflict(&self.host_ports, &pod.constraints.host_ports) {
            Ok(()) => &t.daemon_groups[..],
            Err(_) => &[],
        };
        let its = filter_instance_types(
            catalog,
            &self.instance_types,
            groups,
            &reqs,
            &pod.requests,
            &total,
        )?;
        Ok(Fit {
            requirements: reqs,
            instance_types: its,
        })
    }

    // Port of NodeClaim.Add (nodeclaim.go).
    pub fn add(&mut self, pod_index: usize, pod: &Pod, fit: Fit, topology: &mut Topology) {
        self.pods.push(pod_index);
        self.instance_types = fit.instance_types;
        self.requests = merge(&self.requests, &pod.requests);
        self.host_ports
            .extend(pod.constraints.host_ports.iter().cloned());
        self.requirements = fit.requirements;
        topology.record(pod, &self.requirements);
    }

    // Port of NodeClaim.FinalizeScheduling and addDaemonRequests (nodeclaim.go): the
    // hostname requirement goes, and the smallest overhead of the groups still represented
    // is added to the requests.
    pub fn finalize(&mut self, t: &Template) {
        self.requirements.0.remove(HOSTNAME);
        let mut min: Option<Res> = None;
        for (types, overhead) in &t.daemon_groups {
            if !types.iter().any(|i| self.instance_types.contains(i)) {
                continue;
            }
            min = Some(match min {
                None => overhead.clone(),
                Some(m) => min_resources(&m, overhead),
            });
        }
        if let Some(m) = min {
            self.requests = merge(&self.requests, &m);
        }
    }
}

// Port of resources.MinResources: per resource, the smaller (a resource missing from one side
// is taken from the other).
fn min_resources(a: &Res, b: &Res) -> Res {
    let mut out: BTreeMap<String, i64> = a.clone();
    for (k, v) in b {
        out.entry(k.clone())
            .and_modify(|x| *x = (*x).min(*v))
            .or_insert(*v);
    }
    out
}
