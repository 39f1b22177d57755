//! The scale subresource of the HPA's target (`autoscaling/v1` `Scale`), as
//! `kubectl get --raw /apis/apps/v1/namespaces/NS/deployments/NAME/scale` prints it: what the
//! controller reads of its target.
//!
//! Fields read: `kind`; `spec.replicas` (the current count), `status.replicas` (the replicas the
//! target has, used by Object and External AverageValue targets) and `status.selector` (the pods'
//! label selector, in `metav1.FormatLabelSelector` form).

use serde::Deserialize;

use super::{Format, decode};
use crate::error::InputError;

/// What the controller reads of `GetScale`'s answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scale {
    pub spec_replicas: i32,
    pub status_replicas: i32,
    /// `status.selector`; `None` when empty or absent.
    pub selector: Option<String>,
}

#[derive(Deserialize)]
struct RawScale {
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    spec: Option<RawSpec>,
    #[serde(default)]
    status: Option<RawStatus>,
}

#[derive(Deserialize)]
struct RawSpec {
    #[serde(default)]
    replicas: Option<i32>,
}

#[derive(Deserialize)]
struct RawStatus {
    #[serde(default)]
    replicas: Option<i32>,
    #[serde(default)]
    selector: Option<String>,
}

// Port of the scale read of reconcileAutoscaler (horizontal.go): currentReplicas :=
// scale.Spec.Replicas; statusReplicas := scale.Status.Replicas; selector from scale.Status.Selector.
pub fn parse(file: &str, text: &str, format: Format) -> Result<Scale, InputError> {
    let format = match format {
        Format::Text => {
            return Err(InputError::new(
                file,
                "found text that is neither JSON nor YAML, expected a Scale as kubectl get --raw \
                 .../scale prints it",
            )
            .at(1, Some(1)));
        }
        f => f,
    };
    let mut docs: Vec<RawScale> = decode(file, text, format)?;
    if docs.len() != 1 {
        return Err(InputError::new(
            file,
            format!("found {} documents, expected one Scale", docs.len()),
        ));
    }
    let raw = docs.remove(0);
    match raw.kind.as_deref() {
        Some("Scale") => {}
        other => {
            return Err(InputError::new(
                file,
                format!(
                    "found {}, expected kind Scale (the target's scale subresource)",
                    other.map_or("no kind".to_string(), |k| format!("kind {k}"))
                ),
            )
            .field("kind"));
        }
    }
    let spec_replicas = raw.spec.and_then(|s| s.replicas).unwrap_or(0);
    let (status_replicas, selector) = raw
        .status
        .map_or((0, None), |s| (s.replicas.unwrap_or(0), s.selector));
    for (field, n) in [
        ("spec.replicas", spec_replicas),
        ("status.replicas", status_replicas),
    ] {
        if n < 0 {
            return Err(
                InputError::new(file, format!("found {n}, expected 0 or more")).field(field),
            );
        }
    }
    Ok(Scale {
        spec_replicas,
        status_replicas,
        selector: selector.filter(|s| !s.trim().is_empty()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replicas_and_selector_are_read_from_spec_and_status() {
        let json = r#"{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"web"},
            "spec":{"replicas":5},"status":{"replicas":6,"selector":"app=web"}}"#;
        let scale = parse("scale.json", json, Format::Json).unwrap();
        assert_eq!(
            scale,
            Scale {
                spec_replicas: 5,
                status_replicas: 6,
                selector: Some("app=web".into())
            }
        );
    }

    #[test]
    fn a_scale_at_zero_omits_replicas_and_an_empty_selector_is_none() {
        let yaml = "kind: Scale\nspec: {}\nstatus:\n  selector: \"\"\n";
        let scale = parse("scale.yaml", yaml, Format::Yaml).unwrap();
        assert_eq!((scale.spec_replicas, scale.status_replicas), (0, 0));
        assert_eq!(scale.selector, None);
    }

    #[test]
    fn another_kind_is_refused_with_its_field() {
        let err = parse("scale.json", r#"{"kind":"Deployment"}"#, Format::Json).unwrap_err();
        assert_eq!(err.field.as_deref(), Some("kind"));
        assert!(err.message.starts_with("found kind Deployment"), "{err}");
        let err = parse(
            "scale.json",
            r#"{"kind":"Scale","spec":{"replicas":-1}}"#,
            Format::Json,
        )
        .unwrap_err();
        assert_eq!(err.field.as_deref(), Some("spec.replicas"));
    }
}
