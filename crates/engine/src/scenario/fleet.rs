//! What the input side knows of a fleet of HPAs, validated, for the cross-HPA checks
//! (`calc::fleet`): each HPA's target, selectors, PDBs, VPAs, who owns its target's
//! `spec.replicas`, and the nodes' room; and what the whole dump says.

use crate::time::{Duration, Timestamp};

/// The scale target as the dump shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetState {
    Found,
    /// No object of that kind and name in the HPA's namespace.
    Missing,
    /// A kind the API serves without a scale subresource.
    NoScale,
    /// Live: the API answered the read of the target's scale subresource with an error (404,
    /// or a kind no API serves): its message, which the controller's FailedGetScale carries.
    Unread {
        answer: String,
    },
}

/// A PodDisruptionBudget covering the HPA's pods.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdbFacts {
    pub name: String,
    /// `minAvailable` as an integer or a percentage (`"100%"`).
    pub min_available: Option<String>,
    pub max_unavailable: Option<String>,
}

/// A VerticalPodAutoscaler on the HPA's target: its update mode and the resources it controls
/// (containers whose mode is not Off).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VpaFacts {
    pub name: String,
    pub update_mode: String,
    pub controlled: Vec<String>,
}

/// What the input side knows about one HPA.
#[derive(Debug, Clone, PartialEq)]
pub struct HpaFacts {
    pub namespace: String,
    pub name: String,
    pub target_kind: String,
    pub target_name: String,
    pub target: TargetState,
    pub min_replicas: i32,
    pub max_replicas: i32,
    /// The resources its Resource and ContainerResource metrics read, with Utilization targets.
    pub utilization_resources: Vec<String>,
    pub resources: Vec<String>,
    /// `(container, resource)` of the target's pod template without that request.
    pub missing_requests: Vec<(String, String)>,
    /// The other HPAs whose selectors match pods this HPA's selector matches (the controller's
    /// own check), `namespace/name`.
    pub selecting: Names,
    /// The other HPAs with the same scale target.
    pub same_target: Names,
    /// The target's selector text, as the scale's `status.selector`.
    pub selector: String,
    /// Who sets the target's `spec.replicas` besides the HPA controller: a manager of
    /// `managedFields` (`argocd-controller (managedFields)`), or the manifest itself.
    pub replicas_owners: Vec<String>,
    pub pdbs: Vec<PdbFacts>,
    pub vpas: Vec<VpaFacts>,
    pub generation: Option<i64>,
    pub observed_generation: Option<i64>,
    /// The last write of the HPA's status (managedFields, subresource status).
    pub status_written: Option<Timestamp>,
    /// The pods' requests of one replica, and the room the nodes have (with `--nodes`).
    pub capacity: Option<CapacityFacts>,
}

/// One replica's requests against the nodes' free room (milli-units).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapacityFacts {
    pub per_pod: Vec<(String, i64)>,
    /// How many more such pods the schedulable nodes hold.
    pub fit: i64,
    pub current_pods: i64,
    /// `--node-group-max`: what the nodes the group may still add hold.
    pub group: Option<GroupFit>,
}

/// The nodes a node group may still add (`--node-group-max` less the nodes given), and how many
/// more pods of one kind they hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupFit {
    pub max: i64,
    pub new_nodes: i64,
    pub fit: i64,
}

/// What one schedulable node has left: per resource, and pod slots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeRoom {
    pub free: Vec<(String, i64)>,
    pub free_pods: i64,
}

/// The dump as a whole.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetFacts {
    pub newest: Option<Timestamp>,
    pub sync_period: Duration,
    /// `--metrics` answered an error (a Status): its message.
    pub metrics_api_error: Option<String>,
    pub metrics_given: bool,
    /// Lists the API refused and the audit went on without.
    pub unlisted: Vec<Unlisted>,
    /// `--node-group-max`: the node group's maximum size.
    pub node_group_max: Option<i64>,
}

/// A ScaledObject of the inputs that no HPA of the inputs belongs to (`ownerReferences`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoneScaledObject {
    /// `namespace/name`.
    pub key: String,
    /// Paused by annotation: KEDA deleted its HPA on purpose.
    pub paused: bool,
}

/// A list the API refused (403) that the audit can do without, and what it could not check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unlisted {
    /// The API group (empty for the core group) and the resource, as an RBAC rule names them.
    pub group: String,
    pub resource: String,
    /// The namespace listed, or none for every namespace.
    pub namespace: Option<String>,
    /// The API server's message.
    pub answer: String,
    /// What goes unchecked without the list.
    pub unchecked: String,
}

/// One HPA of a fleet, ready for the checks: what the input side knows of it, and the scenario
/// of its single-HPA evaluation, or why there is none.
#[derive(Debug, Clone)]
pub struct HpaCase {
    pub facts: HpaFacts,
    pub scenario: Result<crate::scenario::Scenario, String>,
}

/// `namespace/name`s of HPAs, sorted, the first `LIST_NAMES` of them kept: 2,500 HPAs on one
/// target would otherwise be 2,500 lists of 2,499 names.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Names {
    pub first: Vec<String>,
    /// How many there are.
    pub total: usize,
}

impl Names {
    /// The names of a sorted list of `total`, of which `first` yields the first ones.
    pub fn of(first: impl IntoIterator<Item = String>, total: usize) -> Names {
        Names {
            first: first.into_iter().take(crate::quote::LIST_NAMES).collect(),
            total,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// `a b c`, then `and N more`: the list as a message shows it.
    pub fn joined(&self, separator: &str) -> String {
        let mut out = self.first.join(separator);
        let more = self.total.saturating_sub(self.first.len());
        if more > 0 {
            out.push_str(&format!("{separator}and {more} more"));
        }
        out
    }

    /// These names and one more, sorted (the HPA itself among the others).
    pub fn with(&self, key: &str) -> Names {
        let mut first = self.first.clone();
        // Beyond the kept names, `key` may sort after the last kept one: it is then one more.
        let kept_last = first.last().cloned();
        if self.total == first.len() || kept_last.is_none_or(|last| key < last.as_str()) {
            first.push(key.to_string());
            first.sort();
        }
        Names::of(first, self.total + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Names {
        Names::of((0..n).map(|i| format!("ns/h{i:03}")), n)
    }

    #[test]
    fn a_long_list_keeps_its_first_names_and_its_count() {
        let many = names(2_499);
        assert_eq!(many.first.len(), crate::quote::LIST_NAMES);
        assert_eq!(many.total, 2_499);
        assert!(many.joined(" ").ends_with("ns/h019 and 2479 more"));
        assert_eq!(names(2).joined(" "), "ns/h000 ns/h001");
    }

    #[test]
    fn the_hpa_itself_joins_the_list_in_order() {
        // Short lists keep every name, the HPA's own among them.
        assert_eq!(
            names(2).with("ns/h0005").joined(" "),
            "ns/h000 ns/h0005 ns/h001"
        );
        // Long lists: a name that sorts among the kept ones is kept, one after them is counted.
        let early = names(30).with("ns/a");
        assert_eq!((early.first[0].as_str(), early.total), ("ns/a", 31));
        let late = names(30).with("ns/z");
        assert!(!late.first.contains(&"ns/z".to_string()));
        assert_eq!(late.total, 31);
    }
}
