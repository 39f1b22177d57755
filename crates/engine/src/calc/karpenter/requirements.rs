//! Node selector requirements as Karpenter reasons over them (`pkg/scheduling/requirement.go`,
//! `requirements.go`): a key's allowed values as a set or its complement, with integer bounds
//! (Gt/Lt canonicalized to Gte/Lte) and `minValues`.

use std::collections::{BTreeMap, BTreeSet};

/// The operators a `NodeSelectorRequirement` may carry (Karpenter adds Gte and Lte).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operator {
    In,
    NotIn,
    Exists,
    DoesNotExist,
    Gt,
    Lt,
    Gte,
    Lte,
}

impl Operator {
    pub fn from_name(name: &str) -> Option<Operator> {
        Some(match name {
            "In" => Operator::In,
            "NotIn" => Operator::NotIn,
            "Exists" => Operator::Exists,
            "DoesNotExist" => Operator::DoesNotExist,
            "Gt" => Operator::Gt,
            "Lt" => Operator::Lt,
            "Gte" => Operator::Gte,
            "Lte" => Operator::Lte,
            _ => return None,
        })
    }
}

/// One key's allowed values (`scheduling.Requirement`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    pub key: String,
    complement: bool,
    values: BTreeSet<String>,
    gte: Option<i64>,
    lte: Option<i64>,
    pub min_values: Option<i64>,
}

// Port of NewRequirementWithFlexibility (pkg/scheduling/requirement.go).
pub fn requirement(
    key: &str,
    op: Operator,
    min_values: Option<i64>,
    values: &[String],
) -> Requirement {
    let mut r = Requirement {
        key: key.to_string(),
        complement: !matches!(op, Operator::In | Operator::DoesNotExist),
        values: BTreeSet::new(),
        gte: None,
        lte: None,
        min_values,
    };
    let first = || {
        values
            .first()
            .and_then(|v| v.parse::<i64>().ok())
            .unwrap_or(0)
    };
    match op {
        Operator::In | Operator::NotIn => r.values.extend(values.iter().cloned()),
        Operator::Gt => {
            let v = first();
            if v == i64::MAX {
                return requirement(key, Operator::DoesNotExist, None, &[]);
            }
            r.gte = Some(v + 1);
        }
        Operator::Lt => r.lte = Some(first().saturating_sub(1)),
        Operator::Gte => r.gte = Some(first()),
        Operator::Lte => r.lte = Some(first()),
        Operator::Exists | Operator::DoesNotExist => {}
    }
    r
}

/// `NewRequirement(key, In, values...)`.
pub fn is_in(key: &str, values: &[&str]) -> Requirement {
    let v: Vec<String> = values.iter().map(|s| (*s).to_string()).collect();
    requirement(key, Operator::In, None, &v)
}

// Port of withinBounds (pkg/scheduling/requirement.go).
fn within_bounds(value: &str, gte: Option<i64>, lte: Option<i64>) -> bool {
    if gte.is_none() && lte.is_none() {
        return true;
    }
    let Ok(v) = value.parse::<i64>() else {
        return false;
    };
    gte.is_none_or(|g| v >= g) && lte.is_none_or(|l| v <= l)
}

fn max_opt(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

fn min_opt(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

impl Requirement {
    // Port of Requirement.Intersection (pkg/scheduling/requirement.go).
    pub fn intersection(&self, other: &Requirement) -> Requirement {
        let complement = self.complement && other.complement;
        let gte = max_opt(self.gte, other.gte);
        let lte = min_opt(self.lte, other.lte);
        let min_values = max_opt(self.min_values, other.min_values);
        if let (Some(g), Some(l)) = (gte, lte)
            && g > l
        {
            return requirement(&self.key, Operator::DoesNotExist, min_values, &[]);
        }
        let values: BTreeSet<String> = match (self.complement, other.complement) {
            (true, true) => self.values.union(&other.values).cloned().collect(),
            (true, false) => other.values.difference(&self.values).cloned().collect(),
            (false, true) => self.values.difference(&other.values).cloned().collect(),
            (false, false) => self.values.intersection(&other.values).cloned().collect(),
        };
        let values = values
            .into_iter()
            .filter(|v| within_bounds(v, gte, lte))
            .collect();
        let (gte, lte) = if complement { (gte, lte) } else { (None, None) };
        Requirement {
            key: self.key.clone(),
            complement,
            values,
            gte,
            lte,
            min_values,
        }
    }

    // Port of Requirement.HasIntersection (pkg/scheduling/requirement.go).
    pub fn has_intersection(&self, other: &Requirement) -> bool {
        let gte = max_opt(self.gte, other.gte);
        let lte = min_opt(self.lte, other.lte);
        if let (Some(g), Some(l)) = (gte, lte)
            && g > l
        {
            return false;
        }
        match (self.complement, other.complement) {
            (true, true) => true,
            (true, false) => other
                .values
                .iter()
                .any(|v| !self.values.contains(v) && within_bounds(v, gte, lte)),
            (false, true) => self
                .values
                .iter()
                .any(|v| !other.values.contains(v) && within_bounds(v, gte, lte)),
            (false, false) => self
                .values
                .iter()
                .any(|v| other.values.contains(v) && within_bounds(v, gte, lte)),
        }
    }

    // Port of Requirement.Has (pkg/scheduling/requirement.go).
    pub fn has(&self, value: &str) -> bool {
        self.values.contains(value) != self.complement && within_bounds(value, self.gte, self.lte)
    }

    // Port of Requirement.Operator (pkg/scheduling/requirement.go).
    pub fn operator(&self) -> Operator {
        match (self.complement, self.values.is_empty()) {
            (true, false) => Operator::NotIn,
            (true, true) => Operator::Exists,
            (false, false) => Operator::In,
            (false, true) => Operator::DoesNotExist,
        }
    }

    /// The values of an `In` (sorted), or of a `NotIn`'s complement.
    pub fn values(&self) -> impl Iterator<Item = &String> {
        self.values.iter()
    }

    pub fn len(&self) -> usize {
        if self.complement {
            usize::MAX - self.values.len()
        } else {
            self.values.len()
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn insert(&mut self, value: &str) {
        self.values.insert(value.to_string());
    }
}

// Port of Requirement.String (pkg/scheduling/requirement.go).
impl std::fmt::Display for Requirement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let op = self.operator();
        match op {
            Operator::Exists | Operator::DoesNotExist => write!(f, "{} {op:?}", self.key)?,
            _ => {
                let mut values: Vec<String> = self.values.iter().cloned().collect();
                if values.len() > 5 {
                    let n = values.len() - 5;
                    values.truncate(5);
                    values.push(format!("and {n} others"));
                }
                write!(f, "{} {op:?} [{}]", self.key, values.join(" "))?;
            }
        }
        if let Some(g) = self.gte {
            write!(f, " >={g}")?;
        }
        if let Some(l) = self.lte {
            write!(f, " <={l}")?;
        }
        if let Some(m) = self.min_values {
            write!(f, " minValues {m}")?;
        }
        Ok(())
    }
}

/// Every key's requirement (`scheduling.Requirements`), in key order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Requirements(pub BTreeMap<String, Requirement>);

/// The labels Karpenter lets a pod require though no NodePool defines them
/// (`v1.WellKnownLabels`, with what providers register: AWS's and KWOK's instance labels,
/// the fake provider's `size`, `special`, `integer`).
pub fn well_known(key: &str) -> bool {
    matches!(
        key,
        "karpenter.sh/nodepool"
            | "topology.kubernetes.io/zone"
            | "topology.kubernetes.io/region"
            | "node.kubernetes.io/instance-type"
            | "kubernetes.io/arch"
            | "kubernetes.io/os"
            | "karpenter.sh/capacity-type"
            | "node.kubernetes.io/windows-build"
            | "kubernetes.io/hostname"
            | "size"
            | "special"
            | "integer"
    ) || key.starts_with("karpenter.k8s.aws/")
        || key.starts_with("karpenter.kwok.sh/")
}

impl Requirements {
    // Port of Requirements.Add (pkg/scheduling/requirements.go).
    pub fn add(&mut self, r: Requirement) {
        let r = match self.0.get(&r.key) {
            Some(existing) => r.intersection(existing),
            None => r,
        };
        self.0.insert(r.key.clone(), r);
    }

    pub fn add_all(&mut self, other: &Requirements) {
        for r in other.0.values() {
            self.add(r.clone());
        }
    }

    // Port of NewLabelRequirements (pkg/scheduling/requirements.go).
    pub fn from_labels(labels: &[(String, String)]) -> Requirements {
        let mut out = Requirements::default();
        for (k, v) in labels {
            out.add(is_in(k, &[v]));
        }
        out
    }

    // Port of Requirements.Get: an absent key is `Exists`.
    pub fn get(&self, key: &str) -> Requirement {
        self.0
            .get(key)
            .cloned()
            .unwrap_or_else(|| requirement(key, Operator::Exists, None, &[]))
    }

    pub fn has(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    // Port of Requirements.Compatible (pkg/scheduling/requirements.go), with
    // AllowUndefinedWellKnownLabels when `allow_well_known`.
    pub fn compatible(
        &self,
        incoming: &Requirements,
        allow_well_known: bool,
    ) -> Result<(), String> {
        for key in incoming.0.keys() {
            if allow_well_known && well_known(key) {
                continue;
            }
            let op = incoming.get(key).operator();
            if self.has(key) || matches!(op, Operator::NotIn | Operator::DoesNotExist) {
                continue;
            }
            return Err(format!("label {key:?} does not have known values"));
        }
        self.intersects(incoming)
    }

    pub fn is_compatible(&self, incoming: &Requirements, allow_well_known: bool) -> bool {
        self.compatible(incoming, allow_well_known).is_ok()
    }

    // Port of Requirements.Intersects (pkg/scheduling/requirements.go).
    pub fn intersects(&self, incoming: &Requirements) -> Result<(), String> {
        let mut errs = Vec::new();
        for (key, existing) in &self.0 {
            let Some(inc) = incoming.0.get(key) else {
                continue;
            };
            if existing.has_intersection(inc) {
                continue;
            }
            let negative = |o: Operator| matches!(o, Operator::NotIn | Operator::DoesNotExist);
            if negative(inc.operator()) && negative(existing.operator()) {
                continue;
            }
            errs.push(format!("key {key}, {inc} not in {existing}"));
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(errs.join("; "))
        }
    }

    // Port of Requirements.HasMinValues (pkg/scheduling/requirements.go).
    pub fn has_min_values(&self) -> bool {
        self.0.values().any(|r| r.min_values.is_some())
    }
}

// Port of Requirements.String: the restricted keys (hostname) left out, sorted.
impl std::fmt::Display for Requirements {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = (self.0.values())
            .filter(|r| r.key != "kubernetes.io/hostname")
            .map(ToString::to_string)
            .collect();
        write!(f, "{}", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(key: &str, op: &str, values: &[&str]) -> Requirement {
        let v: Vec<String> = values.iter().map(|s| (*s).to_string()).collect();
        requirement(key, Operator::from_name(op).unwrap(), None, &v)
    }

    #[test]
    fn intersection_of_in_and_not_in_is_the_difference() {
        let r = req("k", "In", &["a", "b"]).intersection(&req("k", "NotIn", &["a"]));
        assert_eq!(r.operator(), Operator::In);
        assert!(r.has("b") && !r.has("a"));
    }

    #[test]
    fn gt_is_canonicalized_to_gte_plus_one() {
        let r = req("k", "Gt", &["4"]);
        assert!(!r.has("4") && r.has("5"));
        let l = req("k", "Lt", &["4"]);
        assert!(l.has("3") && !l.has("4"));
        assert!(!r.has_intersection(&req("k", "Lte", &["4"])));
        assert!(r.has_intersection(&req("k", "Gte", &["2"])));
        assert!(req("k", "Gte", &["4"]).has("4") && req("k", "Lte", &["4"]).has("4"));
    }

    #[test]
    fn disjoint_bounds_intersect_to_does_not_exist() {
        let r = req("k", "Gt", &["8"]).intersection(&req("k", "Lt", &["4"]));
        assert_eq!(r.operator(), Operator::DoesNotExist);
    }

    #[test]
    fn exists_and_does_not_exist_do_not_intersect() {
        assert!(!req("k", "Exists", &[]).has_intersection(&req("k", "DoesNotExist", &[])));
        assert!(req("k", "Exists", &[]).has_intersection(&req("k", "NotIn", &["x"])));
    }

    #[test]
    fn intersects_ignores_two_negative_requirements() {
        let mut a = Requirements::default();
        a.add(req("k", "DoesNotExist", &[]));
        let mut b = Requirements::default();
        b.add(req("k", "NotIn", &["x"]));
        assert!(a.intersects(&b).is_ok());
    }

    #[test]
    fn compatible_rejects_an_undefined_custom_label_but_allows_well_known() {
        let node = Requirements::default();
        let mut pod = Requirements::default();
        pod.add(req("team", "In", &["a"]));
        assert!(node.compatible(&pod, true).is_err());
        let mut zone = Requirements::default();
        zone.add(req("topology.kubernetes.io/zone", "In", &["z1"]));
        assert!(node.compatible(&zone, true).is_ok());
        let mut not_in = Requirements::default();
        not_in.add(req("team", "NotIn", &["a"]));
        assert!(node.compatible(&not_in, false).is_ok());
    }

    #[test]
    fn min_values_take_the_larger_on_intersection() {
        let a = requirement("k", Operator::Exists, Some(2), &[]);
        let b = requirement("k", Operator::Exists, Some(3), &[]);
        assert_eq!(a.intersection(&b).min_values, Some(3));
    }
}
