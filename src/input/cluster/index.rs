//! The pods of a dump by namespace and by label: a selector's pods are found from its rarest
//! `key=value` requirement, then checked whole, so matching every HPA costs O(pods + matches),
//! not O(pods × HPAs).

use std::collections::HashMap;

use super::json::Sym;
use super::objects::{LabelSelector, Pod};
use crate::input::selector::Selector;

#[derive(Debug, Default)]
pub struct PodIndex {
    namespaces: HashMap<Sym, Namespace>,
}

#[derive(Debug, Default)]
struct Namespace {
    all: Vec<u32>,
    by_label: HashMap<(Sym, Sym), Vec<u32>>,
}

impl PodIndex {
    pub fn build(pods: &[Pod]) -> PodIndex {
        let mut index = PodIndex::default();
        for (i, pod) in pods.iter().enumerate() {
            let Ok(id) = u32::try_from(i) else { break };
            let ns = index
                .namespaces
                .entry(pod.metadata.namespace.clone())
                .or_default();
            ns.all.push(id);
            for pair in &pod.metadata.labels.0 {
                match ns.by_label.get_mut(pair) {
                    Some(list) => list.push(id),
                    None => {
                        ns.by_label.insert(pair.clone(), vec![id]);
                    }
                }
            }
        }
        index
    }

    /// The indexes of the pods of `namespace` that `selector` matches, in dump order; `parsed`
    /// is the same selector as the controller parses it (`labels.Parse`), which decides.
    pub fn select(
        &self,
        pods: &[Pod],
        namespace: &str,
        selector: &LabelSelector,
        parsed: &Selector,
    ) -> Vec<u32> {
        let Some(ns) = self.namespaces.get(namespace) else {
            return Vec::new();
        };
        let empty = Vec::new();
        // The candidates: the shortest list of one equality requirement, else every pod.
        let mut lists = selector.match_labels.iter().map(|(k, v)| {
            ns.by_label
                .get(&(Sym::new(k), Sym::new(v)))
                .unwrap_or(&empty)
        });
        let candidates = lists.by_ref().min_by_key(|l| l.len()).unwrap_or(&ns.all);
        candidates
            .iter()
            .copied()
            .filter(|&i| {
                pods.get(i as usize)
                    .is_some_and(|p| parsed.matches_pairs(&p.metadata.labels.0))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::cluster::objects::{Labels, Meta};

    fn pod(ns: &str, labels: &[(&str, &str)]) -> Pod {
        Pod {
            metadata: Meta {
                name: "p".into(),
                namespace: ns.into(),
                labels: Labels(
                    labels
                        .iter()
                        .map(|(k, v)| (Sym::new(k), Sym::new(v)))
                        .collect(),
                ),
                ..Meta::default()
            },
            ..Pod::default()
        }
    }

    #[test]
    fn a_selector_matches_only_its_namespace_and_every_requirement() {
        let pods = vec![
            pod("shop", &[("app", "web"), ("tier", "front")]),
            pod("shop", &[("app", "web")]),
            pod("other", &[("app", "web"), ("tier", "front")]),
            pod("shop", &[("app", "api"), ("tier", "front")]),
        ];
        let index = PodIndex::build(&pods);
        let sel = LabelSelector {
            match_labels: [("app".to_string(), "web".to_string())].into(),
            match_expressions: vec![crate::input::cluster::objects::Expression {
                key: "tier".into(),
                operator: "In".into(),
                values: vec!["front".into()],
            }],
        };
        let parsed = Selector::parse(&sel.to_text()).unwrap();
        assert_eq!(index.select(&pods, "shop", &sel, &parsed), vec![0]);
        let only_expr = LabelSelector {
            match_expressions: sel.match_expressions.clone(),
            ..LabelSelector::default()
        };
        let parsed = Selector::parse(&only_expr.to_text()).unwrap();
        assert_eq!(index.select(&pods, "shop", &only_expr, &parsed), vec![0, 3]);
        assert!(index.select(&pods, "none", &sel, &parsed).is_empty());
    }
}
