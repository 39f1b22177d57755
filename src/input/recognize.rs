//! Text pasted where another input belongs: `kubectl top` output given as `--pods`, the text of
//! `kubectl describe hpa` or the table of `kubectl get hpa` given as `--hpa`, a Helm template not
//! yet rendered. Each is recognized from its first lines, and the error says what the file is and
//! what to pass instead, rather than a parser's complaint about a missing `pod` column or a YAML
//! scalar.
//!
//! `what` is the one place that tells the forms apart from their first lines: a parser of
//! describe text or get-hpa tables routes those forms to itself before `refusal` is reached. A
//! Helm template is looked for only once parsing failed (`or_helm`): a template action inside a
//! string (a Vault agent annotation, say) is data, not a template.

use crate::error::InputError;

/// A form of pasted text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pasted {
    /// `kubectl top pods [--containers]`.
    KubectlTop,
    /// `kubectl describe hpa NAME`.
    DescribeHpa,
    /// `kubectl get hpa` (the default table).
    GetHpaTable,
    /// A Helm chart's template (`{{ .Values.x }}`), not rendered.
    HelmTemplate,
}

/// The input a file was given as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Given {
    Hpa,
    Pods,
}

/// Where the form was recognized: its kind and 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    pub form: Pasted,
    pub line: usize,
}

/// The Go template actions a Helm chart uses, after `{{` (and an optional `-`).
const HELM_ACTIONS: [&str; 17] = [
    ".", "$", "include", "template", "if ", "else", "end", "range", "with", "define", "toYaml",
    "tpl", "required", "default", "printf", "quote", "/*",
];

/// Recognizes a pasted form from the text's first meaningful lines. `None` for everything else,
/// including JSON and the forms the parsers read.
pub fn what(text: &str) -> Option<Found> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    if body.trim_start().starts_with(['{', '[']) {
        return None;
    }
    let mut lines = body
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let (first_index, first) = lines.next()?;
    let line = first_index + 1;
    let tokens: Vec<&str> = first.split_whitespace().collect();
    let has = |t: &str| tokens.contains(&t);
    if has("NAME") && has("REFERENCE") && has("TARGETS") && has("REPLICAS") {
        return Some(Found {
            form: Pasted::GetHpaTable,
            line,
        });
    }
    if (has("POD") || has("NAME") || has("NAMESPACE"))
        && tokens.iter().any(|t| t.starts_with("CPU("))
        && tokens.iter().any(|t| t.starts_with("MEMORY("))
    {
        return Some(Found {
            form: Pasted::KubectlTop,
            line,
        });
    }
    if first.starts_with("Name:") {
        let rest: Vec<&str> = lines.take(40).map(|(_, l)| l).collect();
        let starts = |p: &str| rest.iter().any(|l| l.starts_with(p));
        if starts("Reference:") && (starts("Min replicas:") || starts("Max replicas:")) {
            return Some(Found {
                form: Pasted::DescribeHpa,
                line,
            });
        }
    }
    None
}

/// The first line with a Helm template action (`{{ .Values.replicas }}`, `{{- include ... }}`).
fn helm(text: &str) -> Option<Found> {
    if !text.contains("{{") {
        return None;
    }
    text.lines().enumerate().find_map(|(i, l)| {
        let (_, after) = l.split_once("{{")?;
        if !after.contains("}}") {
            return None;
        }
        let action = after.trim_start_matches('-').trim_start();
        HELM_ACTIONS
            .iter()
            .any(|a| action.starts_with(a))
            .then_some(Found {
                form: Pasted::HelmTemplate,
                line: i + 1,
            })
    })
}

/// A parser's error on `text`, or, when the text is a Helm template, the error that says so.
pub fn or_helm(err: InputError, file: &str, given: Given, text: &str) -> InputError {
    match helm(text) {
        Some(found) => refusal(file, given, found),
        None => err,
    }
}

/// The error for a recognized form given as `given`: what the file is, what to pass instead.
pub fn refusal(file: &str, given: Given, found: Found) -> InputError {
    let message = match (found.form, given) {
        (Pasted::KubectlTop, Given::Pods) => {
            "found the output of kubectl top pods, which has the usage only (no readiness, no \
             requests), expected the pods: pass this file as --metrics, and kubectl get pods -o \
             json as --pods"
        }
        (Pasted::KubectlTop, Given::Hpa) => {
            "found the output of kubectl top pods, expected an HPA manifest: pass kubectl get hpa \
             NAME -o yaml as --hpa, and this file as --metrics"
        }
        (Pasted::DescribeHpa, Given::Hpa) => {
            "found the text of kubectl describe hpa, which rounds the values and leaves out the \
             behavior, expected an HPA manifest: pass kubectl get hpa NAME -o yaml as --hpa"
        }
        (Pasted::GetHpaTable, Given::Hpa) => {
            "found the table of kubectl get hpa, which leaves out the metrics' targets and the \
             behavior, expected an HPA manifest: pass kubectl get hpa NAME -o yaml as --hpa"
        }
        (Pasted::DescribeHpa | Pasted::GetHpaTable, Given::Pods) => {
            "found the text of kubectl describe hpa or get hpa, expected the pods: pass this text \
             as --hpa (read from the status it shows), or kubectl get hpa NAME -o yaml, and \
             kubectl get pods -o json as --pods"
        }
        (Pasted::HelmTemplate, Given::Hpa) => {
            "found a Helm template (a {{ ... }} action), expected a rendered HPA manifest: pass \
             the output of helm template RELEASE CHART, or kubectl get hpa NAME -o yaml"
        }
        (Pasted::HelmTemplate, Given::Pods) => {
            "found a Helm template (a {{ ... }} action), expected the pods: pass kubectl get pods \
             -o json"
        }
    };
    InputError::new(file, message).at(found.line, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DESCRIBE: &str = "Name:                                                  web
Namespace:                                             shop
Labels:                                                <none>
Reference:                                             Deployment/web
Metrics:                                               ( current / target )
  resource cpu on pods  (as a percentage of request):  61% (305m) / 60%
Min replicas:                                          3
Max replicas:                                          12
Deployment pods:                                       4 current / 4 desired
";

    #[test]
    fn a_helm_template_is_found_at_its_first_action() {
        let cases = [
            (
                "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nspec:\n  \
                 maxReplicas: {{ .Values.autoscaling.maxReplicas }}\n",
                4,
            ),
            (
                "{{- if .Values.autoscaling.enabled }}\napiVersion: autoscaling/v2\n",
                1,
            ),
        ];
        for (text, line) in cases {
            let found = helm(text).unwrap();
            assert_eq!(found.line, line, "{text}");
            let err = or_helm(
                InputError::new("h.yaml", "parse"),
                "h.yaml",
                Given::Hpa,
                text,
            );
            assert!(err.message.starts_with("found a Helm template"), "{err}");
        }
        // Braces that are no template action: the parser's error stands.
        let text = "metadata:\n  annotations:\n    note: \"{{ not a template }}\"\n";
        assert_eq!(helm(text), None);
        let err = or_helm(
            InputError::new("h.yaml", "parse"),
            "h.yaml",
            Given::Hpa,
            text,
        );
        assert_eq!(err.message, "parse");
    }

    #[test]
    fn each_pasted_form_is_recognized_at_its_line() {
        let cases = [
            (
                "POD           NAME   CPU(cores)   MEMORY(bytes)\nweb-1   app   250m   300Mi\n",
                Pasted::KubectlTop,
                1,
            ),
            (
                "\nNAME    CPU(cores)   MEMORY(bytes)\nweb-1   250m   300Mi\n",
                Pasted::KubectlTop,
                2,
            ),
            (DESCRIBE, Pasted::DescribeHpa, 1),
            (
                "NAME   REFERENCE        TARGETS       MINPODS   MAXPODS   REPLICAS   AGE\n\
                 web    Deployment/web   cpu: 61%/60%   3         12        4          9d\n",
                Pasted::GetHpaTable,
                1,
            ),
        ];
        for (text, form, line) in cases {
            assert_eq!(what(text), Some(Found { form, line }), "{text}");
        }
    }

    #[test]
    fn manifests_csv_and_json_are_not_pasted_forms() {
        for text in [
            "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n",
            "pod,ready,cpu,cpu_request\nweb-1,true,250m,500m\n",
            "{\"kind\":\"List\",\"items\":[{\"metadata\":{\"annotations\":{\"x\":\"{{ .Values }}\"}}}]}",
            // A Helm template is looked for only after a parser failed.
            "{{- if .Values.autoscaling.enabled }}\napiVersion: autoscaling/v2\n",
            "Name: a\nsomething: else\n",
        ] {
            assert_eq!(what(text), None, "{text}");
        }
    }

    #[test]
    fn the_refusal_says_what_the_file_is_and_what_to_pass() {
        let found = Found {
            form: Pasted::KubectlTop,
            line: 1,
        };
        let err = refusal("top.txt", Given::Pods, found);
        assert_eq!(err.line, Some(1));
        assert!(
            err.message
                .starts_with("found the output of kubectl top pods")
        );
        assert!(err.message.contains("pass this file as --metrics"), "{err}");
        let describe = what(DESCRIBE).unwrap();
        let err = refusal("pods.txt", Given::Pods, describe);
        assert!(err.message.contains("pass this text as --hpa"), "{err}");
    }
}
