//! The minimal read-only ClusterRole live mode needs: exactly the requests `fetch` makes.

/// `hpacalc rbac`: bind it with a ClusterRoleBinding, or a RoleBinding per namespace.
pub const CLUSTER_ROLE: &str = r#"# The read-only access `hpacalc HPA` needs: what the HPA controller reads at one sync.
# Bind it with a RoleBinding in each namespace (or a ClusterRoleBinding for all of them).
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: hpacalc-reader
rules:
# The HPA (list: to name the namespace's HPAs when one is not found, and for `audit -A`).
- apiGroups: ["autoscaling"]
  resources: ["horizontalpodautoscalers"]
  verbs: ["get", "list"]
# The targets and their scale subresource: the built-in kinds', and every kind's scale (an
# Argo Rollout's, any custom resource's), which the controller reads whatever the kind is.
# `hpacalc HPA` also reads the target object itself: for a custom kind, add `get` on its
# resource (e.g. apiGroups: ["argoproj.io"], resources: ["rollouts"]).
- apiGroups: ["apps"]
  resources: ["deployments", "deployments/scale", "statefulsets", "statefulsets/scale",
              "replicasets", "replicasets/scale"]
  verbs: ["get"]
- apiGroups: [""]
  resources: ["replicationcontrollers", "replicationcontrollers/scale"]
  verbs: ["get"]
- apiGroups: ["*"]
  resources: ["*/scale"]
  verbs: ["get"]
# `hpacalc audit -A` / `-n NS`: every workload, PDB, VPA and KEDA ScaledObject (the last two
# only where those add-ons are installed).
- apiGroups: ["apps"]
  resources: ["deployments", "statefulsets", "replicasets"]
  verbs: ["list"]
- apiGroups: [""]
  resources: ["replicationcontrollers"]
  verbs: ["list"]
- apiGroups: ["policy"]
  resources: ["poddisruptionbudgets"]
  verbs: ["list"]
- apiGroups: ["autoscaling.k8s.io"]
  resources: ["verticalpodautoscalers"]
  verbs: ["list"]
- apiGroups: ["keda.sh"]
  resources: ["scaledobjects"]
  verbs: ["list"]
# The pods of the target's selector.
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["list"]
# The HPA's events, as its history (events.k8s.io/v1, or core/v1 where that is not served).
- apiGroups: ["events.k8s.io", ""]
  resources: ["events"]
  verbs: ["list"]
# The three metrics APIs.
- apiGroups: ["metrics.k8s.io"]
  resources: ["pods"]
  verbs: ["list"]
- apiGroups: ["custom.metrics.k8s.io", "external.metrics.k8s.io"]
  resources: ["*"]
  verbs: ["get", "list"]
# --nodes-from-cluster: the nodes, and the pods of every namespace (bind with a
# ClusterRoleBinding for that).
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["list"]
# --nodes-from-cluster where Karpenter is installed: its NodePools, and the AWS provider's
# EC2NodeClasses (the kubelet settings that shape each instance type's allocatable).
- apiGroups: ["karpenter.sh"]
  resources: ["nodepools"]
  verbs: ["list"]
- apiGroups: ["karpenter.k8s.aws"]
  resources: ["ec2nodeclasses"]
  verbs: ["list"]
# API discovery, and the server's release whose controller rules apply (every authenticated
# user has them through system:discovery and system:public-info-viewer).
- nonResourceURLs: ["/api", "/api/*", "/apis", "/apis/*", "/version"]
  verbs: ["get"]
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cluster_role_is_yaml_with_a_rule_for_each_request() {
        let doc: serde_yaml::Value = serde_yaml::from_str(CLUSTER_ROLE).unwrap();
        assert_eq!(doc["kind"].as_str(), Some("ClusterRole"));
        let rules = doc["rules"].as_sequence().unwrap();
        let resources: Vec<&str> = rules
            .iter()
            .filter_map(|r| r["resources"].as_sequence())
            .flatten()
            .filter_map(|r| r.as_str())
            .collect();
        for needed in [
            "horizontalpodautoscalers",
            "deployments",
            "deployments/scale",
            "*/scale",
            "pods",
            "events",
            "*",
            "nodes",
            "nodepools",
            "ec2nodeclasses",
        ] {
            assert!(resources.contains(&needed), "{needed}");
        }
        for rule in rules {
            let verbs = rule["verbs"].as_sequence().unwrap();
            assert!(
                verbs
                    .iter()
                    .all(|v| matches!(v.as_str(), Some("get" | "list"))),
                "read-only"
            );
        }
    }
}
