//! The `kubectl get hpa` table (also `-o wide`, `-A`, and `-w`, which appends a row per change),
//! as `printHorizontalPodAutoscaler` and `formatHPAMetrics` in kubernetes/kubernetes
//! `pkg/printers/internalversion/printers.go` print it:
//! `NAME  REFERENCE  TARGETS  MINPODS  MAXPODS  REPLICAS  AGE`.
//!
//! TARGETS is lossy: Resource metrics are `cpu: 46%/50%` (before kubectl 1.30: `46%/50%`, without
//! the resource), Pods, Object and External metrics are `91/100` or `30/40 (avg)` without their
//! name or type, `<unknown>` is a metric the status has no value for, and only the first two are
//! shown (`+ 1 more...`). What the table does not say is assumed and said.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::text::{Header, Row};
use super::{Lines, Pasted, scale_target_ref, v2_spec};
use crate::error::InputError;
use crate::input::manifest::status::{CurrentMetric, HpaStatus};
use crate::quantity::parse_milli;

/// The columns read; AGE, last in kubectl's table, may be cut off a paste.
const COLUMNS: [&str; 6] = [
    "NAME",
    "REFERENCE",
    "TARGETS",
    "MINPODS",
    "MAXPODS",
    "REPLICAS",
];

/// One HPA's last row, as the choice needs it: its key, and where to read it again.
struct LastRow<'t> {
    namespace: String,
    name: String,
    n: usize,
    line: &'t str,
    header: usize,
}

impl super::Keyed for LastRow<'_> {
    fn namespace(&self) -> &str {
        &self.namespace
    }
    fn name(&self) -> &str {
        &self.name
    }
}

/// The one HPA of the table that `-n` (`namespace`) and `--name` choose, as `in_namespace` and
/// `choose` pick among `parse`'s rows, read as a stream: every row is read and checked in turn,
/// but only each HPA's key and the place of its last row are kept, and the chosen row is read
/// again. A `kubectl get hpa -A -w` capture of 300,000 rows over as many HPAs holds their names
/// (tens of MB), not 300,000 specs (1.6 GB).
pub fn parse_one(
    file: &str,
    text: &str,
    namespace: Option<&str>,
    name: Option<&str>,
) -> Result<Pasted, InputError> {
    let mut kept: Vec<(usize, LastRow<'_>)> = Vec::new();
    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    let headers = scan(file, text, |n, pasted, line, header| {
        let key = (pasted.namespace, pasted.name);
        let last = |(namespace, name): (String, String)| LastRow {
            namespace,
            name,
            n,
            line,
            header,
        };
        match seen.get(&key).and_then(|&at| kept.get_mut(at)) {
            Some(earlier) => earlier.1 = last(key),
            None => {
                seen.insert(key.clone(), kept.len());
                kept.push((n, last(key)));
            }
        }
    })?;
    drop(seen);
    super::in_namespace(&mut kept, namespace);
    let chosen = super::choose(file, kept, name)?;
    let header = headers.get(chosen.header).ok_or_else(|| {
        InputError::new(file, "found a row without its header").at(chosen.n, Some(1))
    })?;
    row(file, chosen.n, chosen.line, header)
}

/// Reads every row in order, each checked (`row`), and hands it to `each` with its line
/// number, its text and the index of its header among those returned.
fn scan<'t>(
    file: &str,
    text: &'t str,
    mut each: impl FnMut(usize, Pasted, &'t str, usize),
) -> Result<Vec<Header>, InputError> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut headers: Vec<Header> = Vec::new();
    let mut rows = 0usize;
    for (i, raw) in body.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim_end();
        if line.trim().is_empty() || super::is_preamble(line) {
            continue;
        }
        let words = Header::words(line);
        if words.has("NAME") && words.has("TARGETS") {
            for required in COLUMNS {
                if !words.has(required) {
                    return Err(InputError::new(
                        file,
                        format!(
                            "found the header {:?} without {required}, expected the columns of \
                             kubectl get hpa ({})",
                            line.trim(),
                            COLUMNS.join(" ")
                        ),
                    )
                    .at(n, Some(1)));
                }
            }
            headers.push(words);
            continue;
        }
        let Some(columns) = headers.last() else {
            return Err(InputError::new(
                file,
                "found a row before the header, expected the header NAME  REFERENCE  TARGETS ...",
            )
            .at(n, Some(1)));
        };
        each(n, row(file, n, line, columns)?, line, headers.len() - 1);
        rows += 1;
    }
    if rows == 0 {
        return Err(InputError::new(
            file,
            "found no row under the header, expected one HPA per row",
        )
        .at(1, Some(1)));
    }
    Ok(headers)
}

fn row(file: &str, n: usize, line: &str, header: &Header) -> Result<Pasted, InputError> {
    // Cut at the header's positions; a TARGETS cell has single spaces only, so a row that does
    // not fit them splits at two spaces.
    let row = TableRow {
        file,
        n,
        row: Row::cut(file, n, line, header, " ")?,
    };
    let min = row.count("MINPODS")?;
    let max = (row.count("MAXPODS")?).ok_or_else(|| row.shifted("MAXPODS", "a whole number"))?;
    let replicas =
        (row.count("REPLICAS")?).ok_or_else(|| row.shifted("REPLICAS", "a whole number"))?;
    let (_, reference) = row.cell("REFERENCE");
    let (kind, target) = reference
        .split_once('/')
        .ok_or_else(|| row.shifted("REFERENCE", "Kind/name such as Deployment/web"))?;
    let Targets {
        metrics,
        current,
        unknown,
        unnamed,
        mut notes,
        warnings,
    } = targets(file, n, row.cell("TARGETS"))?;
    let name_col = row.cell("NAME").1;
    let namespace = header
        .has("NAMESPACE")
        .then(|| row.cell("NAMESPACE").1.to_string());
    if namespace.is_none() {
        notes.push(
            "The table has no NAMESPACE column (kubectl get hpa without -A): the HPA's namespace \
             is -n's, else default."
                .to_string(),
        );
    }
    let spec = v2_spec(scale_target_ref(kind, target), min, max, metrics, None);
    notes.insert(
        0,
        format!(
            "Read from a `kubectl get hpa` row ({file}:{n}): no behavior (the table does not show \
             it; the legacy path applies), no desired count, metric names only for resources."
        ),
    );
    Ok(Pasted {
        name: name_col.to_string(),
        namespace: namespace.unwrap_or_else(|| "default".to_string()),
        spec,
        status: HpaStatus {
            current_replicas: i32::try_from(replicas).ok(),
            desired_replicas: None,
            scaled_to_zero: false,
            current_metrics: current,
            // Only ScaledToZero is read from the pasted conditions.
            conditions: Vec::new(),
            last_scale_time: None,
        },
        events: Vec::new(),
        notes,
        warnings,
        diagnostics: Vec::new(),
        lines: Lines {
            first: n,
            reference: n,
            metrics: Vec::new(),
            min: n,
            max: n,
            behavior: n,
        },
        unknown,
        labels: std::collections::BTreeMap::new(),
        unnamed_resources: unnamed,
    })
}

/// A row of the table, line `n` of `file`.
struct TableRow<'a> {
    file: &'a str,
    n: usize,
    row: Row<'a>,
}

impl<'a> TableRow<'a> {
    /// The cell of a column every header has.
    fn cell(&self, name: &str) -> (usize, &'a str) {
        self.row.get(name).unwrap_or((1, ""))
    }

    /// The cell of `name` does not hold `what`.
    fn shifted(&self, name: &str, what: &str) -> InputError {
        let (col, text) = self.cell(name);
        InputError::new(
            self.file,
            format!(
                "found {} in {name}, expected {what} (are the columns shifted?)",
                crate::error::quoted(text)
            ),
        )
        .at(self.n, Some(col))
        .field(name.to_string())
    }

    /// A replica count; `None` for `<unset>`.
    fn count(&self, name: &str) -> Result<Option<i64>, InputError> {
        let (_, text) = self.cell(name);
        if text == "<unset>" {
            return Ok(None);
        }
        text.parse::<i64>()
            .map(Some)
            .map_err(|_| self.shifted(name, "a whole number of replicas"))
    }
}

/// What the TARGETS cell gives back.
struct Targets {
    metrics: Vec<Value>,
    current: Vec<CurrentMetric>,
    /// The entries shown as `<unknown>`.
    unknown: Vec<String>,
    /// The positions of Utilization entries that name no resource.
    unnamed: Vec<usize>,
    notes: Vec<String>,
    warnings: Vec<String>,
}

/// The TARGETS cell (at column `targets_col` of line `n`): each entry shown, and a warning for
/// the metrics `+ N more...` hides.
fn targets(
    file: &str,
    n: usize,
    (targets_col, targets): (usize, &str),
) -> Result<Targets, InputError> {
    let mut out = Targets {
        metrics: Vec::new(),
        current: Vec::new(),
        unknown: Vec::new(),
        unnamed: Vec::new(),
        notes: Vec::new(),
        warnings: Vec::new(),
    };
    let (shown, more) = match targets.split_once(" + ") {
        Some((shown, more)) => (shown, Some(more)),
        None => (targets, None),
    };
    if shown != "<none>" {
        // Utilization entries without a resource name, so far: cpu first, then memory.
        let mut nameless = 0;
        for (i, entry) in shown.split(", ").enumerate() {
            let bad = |what: &str| {
                InputError::new(
                    file,
                    format!(
                        "found the target {}, expected {what}",
                        crate::error::quoted(entry)
                    ),
                )
                .at(n, Some(targets_col))
                .field("TARGETS")
            };
            let before = nameless;
            let (m, c, assumed) = target_entry(entry, i, &mut nameless).map_err(|e| bad(&e))?;
            if nameless > before {
                out.unnamed.push(i);
            }
            if let Some(a) = assumed {
                out.notes.push(a);
            }
            // An `<unknown>` entry is still an entry, without a value, in its own place: the
            // status's `currentMetrics[i]` that formatHPAMetrics found empty. The controller
            // could not get it (a failed metric), which is an answer, not an input error.
            if c.is_unknown() {
                out.unknown.push(entry.to_string());
            }
            out.current.push(c);
            out.metrics.push(m);
        }
    }
    if let Some(more) = more {
        out.warnings.push(format!(
            "{file}:{n}: kubectl get hpa shows two metrics and `+ {more}`: the others are left \
             out (pass the describe text or the YAML for all of them)"
        ));
    }
    Ok(out)
}
type Entry = (Value, CurrentMetric, Option<String>);

// Port of formatHPAMetrics (pkg/printers/internalversion/printers.go), read backwards: one
// TARGETS entry gives back a metric spec, its status entry (without a value for `<unknown>`),
// and what had to be assumed.
fn target_entry(entry: &str, index: usize, nameless: &mut usize) -> Result<Entry, String> {
    let (resource, rest) = match entry.split_once(": ") {
        Some((r, rest)) => (Some(r), rest),
        None => (None, entry),
    };
    let (rest, average) = match rest.strip_suffix(" (avg)") {
        Some(r) => (r, true),
        None => (rest, false),
    };
    let (c, t) = rest
        .split_once('/')
        .ok_or("`current/target` such as 46%/50% or cpu: 46%/50%")?;
    let current = (c != "<unknown>").then_some(c);
    let percent = |s: &str| s.strip_suffix('%').and_then(|p| p.parse::<i32>().ok());
    let q = |s: &str| parse_milli(s).map_err(|e| format!("a quantity ({e})"));
    let mut status = CurrentMetric::default();
    let mut assumed = None;
    let spec = if let Some(pct) = percent(t) {
        let resource = match resource {
            Some(r) => r.to_string(),
            None => {
                // An API server before 1.30 prints Utilization without the resource: by position,
                // the first is taken as cpu and the second as memory, each value kept apart.
                let Some(&taken) = ["cpu", "memory"].get(*nameless) else {
                    return Err(
                        "at most two Utilization targets without a resource name (cpu, then \
                         memory): pass the HPA's YAML for their names"
                            .to_string(),
                    );
                };
                *nameless += 1;
                assumed = Some(format!(
                    "The target {} names no resource (an API server before 1.30 prints it so): \
                     taken as {taken}, by its position among such targets (cpu first, then \
                     memory); with pods and samples the other resource is tried too; pass the \
                     HPA's YAML if that is not so.",
                    crate::error::quoted(entry)
                ));
                taken.to_string()
            }
        };
        if let Some(c) = current {
            status.average_utilization =
                Some(percent(c).ok_or("a current utilization such as 46%")?);
        }
        status.metric_type = "Resource".into();
        status.name.clone_from(&resource);
        json!({"type": "Resource", "resource": {"name": resource,
            "target": {"type": "Utilization", "averageUtilization": pct}}})
    } else if let Some(resource) = resource {
        q(t)?;
        if let Some(c) = current {
            status.average_value_milli = Some(q(c)?);
        }
        status.metric_type = "Resource".into();
        status.name = resource.to_string();
        json!({"type": "Resource", "resource": {"name": resource,
            "target": {"type": "AverageValue", "averageValue": t}}})
    } else {
        q(t)?;
        let name = format!("metric-{}", index + 1);
        status.name.clone_from(&name);
        if average {
            // An Object or External AverageValue: only External keeps no described object.
            assumed = Some(format!(
                "The target {} shows neither the metric's type nor its name: taken as an \
                 External AverageValue metric named {name}.",
                crate::error::quoted(entry)
            ));
            if let Some(c) = current {
                status.average_value_milli = Some(q(c)?);
            }
            status.metric_type = "External".into();
            json!({"type": "External", "external": {"metric": {"name": name},
                "target": {"type": "AverageValue", "averageValue": t}}})
        } else {
            assumed = Some(format!(
                "The target {} shows neither the metric's type nor its name: taken as a \
                 Pods metric named {name} (an Object or External Value target prints the same).",
                crate::error::quoted(entry)
            ));
            if let Some(c) = current {
                status.average_value_milli = Some(q(c)?);
            }
            status.metric_type = "Pods".into();
            json!({"type": "Pods", "pods": {"metric": {"name": name},
                "target": {"type": "AverageValue", "averageValue": t}}})
        }
    };
    Ok((spec, status, assumed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_resource_target_is_a_utilization_metric_of_that_resource() {
        let (spec, status, assumed) = target_entry("memory: 61%/80%", 0, &mut 0).unwrap();
        assert_eq!(spec["resource"]["name"], "memory");
        assert_eq!(spec["resource"]["target"]["averageUtilization"], 80);
        assert_eq!(status.average_utilization, Some(61));
        assert_eq!(assumed, None);
    }

    #[test]
    fn the_old_form_without_a_name_is_taken_as_cpu() {
        let (spec, _, assumed) = target_entry("46%/50%", 0, &mut 0).unwrap();
        assert_eq!(spec["resource"]["name"], "cpu");
        assert!(assumed.unwrap().contains("taken as cpu"));
    }

    #[test]
    fn two_old_form_targets_are_cpu_then_memory_each_with_its_value() {
        let t = targets("t.txt", 2, (20, "127%/90%, 2%/90%")).unwrap();
        let names: Vec<_> = (t.current.iter())
            .map(|c| (c.name.as_str(), c.average_utilization))
            .collect();
        assert_eq!(names, [("cpu", Some(127)), ("memory", Some(2))]);
        assert_eq!(t.unnamed, [0, 1]);
        let named = targets("t.txt", 2, (20, "91/100, 46%/50%, memory: 2%/90%")).unwrap();
        assert_eq!(
            named.unnamed,
            [1],
            "only the Utilization entry without a name"
        );
        assert!(targets("t.txt", 2, (20, "1%/9%, 2%/9%, 3%/9%")).is_err());
    }

    #[test]
    fn an_unknown_current_value_is_an_entry_without_a_value_in_every_form() {
        // formatHPAMetrics' `<unknown>` as the API servers of kubectl 1.27–1.33 print it: the
        // resource named (1.30 on) or not (before), AverageValue, Pods, and External `(avg)`.
        for (entry, kind, name) in [
            ("<unknown>/50%", "Resource", "cpu"),
            ("cpu: <unknown>/50%", "Resource", "cpu"),
            ("memory: <unknown>/512Mi", "Resource", "memory"),
            ("<unknown>/100", "Pods", "metric-1"),
            ("<unknown>/500m (avg)", "External", "metric-1"),
        ] {
            let (spec, status, _) = target_entry(entry, 0, &mut 0).unwrap();
            assert_eq!(spec["type"], kind, "{entry}");
            assert_eq!(
                (status.metric_type.as_str(), status.name.as_str()),
                (kind, name)
            );
            assert!(status.is_unknown(), "{entry}: {status:?}");
        }
    }

    #[test]
    fn an_unknown_entry_keeps_its_place_beside_the_values() {
        let t = targets("t.txt", 2, (20, "<unknown>/500m (avg), cpu: 46%/50%")).unwrap();
        assert_eq!(t.unknown, ["<unknown>/500m (avg)"]);
        assert!(t.current[0].is_unknown());
        assert_eq!(t.current[1].average_utilization, Some(46));
    }

    #[test]
    fn a_bare_value_is_a_pods_metric_and_avg_an_external_one() {
        let (spec, status, _) = target_entry("91/100", 1, &mut 0).unwrap();
        assert_eq!(spec["pods"]["metric"]["name"], "metric-2");
        assert_eq!(status.average_value_milli, Some(91_000));
        let (spec, _, _) = target_entry("30/40 (avg)", 0, &mut 0).unwrap();
        assert_eq!(spec["type"], "External");
    }

    #[test]
    fn a_resource_average_value_keeps_its_quantities() {
        let (spec, status, _) = target_entry("memory: 300Mi/512Mi", 0, &mut 0).unwrap();
        assert_eq!(spec["resource"]["target"]["averageValue"], "512Mi");
        assert_eq!(status.average_value_milli, Some(300 * 1024 * 1024 * 1000));
    }

    #[test]
    fn a_watch_of_many_hpas_keeps_the_chosen_ones_last_row_and_checks_every_row() {
        let mut text = String::from(
            "NAMESPACE   NAME   REFERENCE        TARGETS        MINPODS   MAXPODS   REPLICAS   AGE\n",
        );
        for (i, ns) in ["a", "b", "a", "c", "a"].iter().enumerate() {
            text.push_str(&format!(
                "{ns}           web    Deployment/web   cpu: 4{i}%/50%   2         10        {}          5m\n",
                i + 1
            ));
        }
        let chosen = parse_one("w.txt", &text, Some("a"), Some("web")).unwrap();
        assert_eq!(chosen.namespace, "a");
        assert_eq!(chosen.status.current_replicas, Some(5));
        assert!(chosen.notes[0].contains("w.txt:6"), "{}", chosen.notes[0]);
        let many = parse_one("w.txt", &text, None, None).unwrap_err();
        assert!(many.message.starts_with("found 3 HPAs"), "{many}");
        // A bad row is found wherever it is, even of an HPA not chosen.
        text.push_str("c           web    Deployment/web   cpu: 1%/50%    2         ten       3          5m\n");
        let bad = parse_one("w.txt", &text, Some("a"), Some("web")).unwrap_err();
        assert_eq!(bad.line, Some(7));
    }

    #[test]
    fn a_row_with_shifted_columns_is_located() {
        let text = "NAME   REFERENCE        TARGETS         MINPODS   MAXPODS   REPLICAS   AGE\n\
                    web    Deployment/web   cpu: 46%/50%    2         10        3m\n";
        let err = parse_one("t.txt", text, None, None).unwrap_err();
        assert_eq!(err.line, Some(2));
        assert!(
            err.message.contains("found 6 column(s), expected 7"),
            "{err}"
        );
        let text = "NAME   REFERENCE        TARGETS         MINPODS   MAXPODS   REPLICAS   AGE\n\
                    web    Deployment/web   cpu: 46%/50%    2         ten       3          3m\n";
        let err = parse_one("t.txt", text, None, None).unwrap_err();
        assert_eq!(err.field.as_deref(), Some("MAXPODS"));
        assert_eq!(err.column, Some(51), "{err}");
    }
}
