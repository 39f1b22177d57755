//! The samples header against the HPA's metrics: a Resource or ContainerResource metric needs its
//! usage column (unless `--metrics` gives the usage) and, for a Utilization target, its
//! `<resource>_request` column; a column nobody reads is worth a warning. A missing column would
//! otherwise read as "no usage" or "no request" and give a wrong answer with exit 0.

use crate::error::InputError;
use crate::scenario::{MetricSpec, TargetType};

/// Resource names a column may carry without any metric reading it: the requests and usage of
/// these feed the node view and the pods' description.
fn is_standard_resource(name: &str) -> bool {
    matches!(
        name,
        "cpu" | "memory" | "ephemeral-storage" | "storage" | "pods"
    ) || name.starts_with("hugepages-")
        || name.contains('/')
}

/// Edit distance, for "the closest existing column".
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row.first().copied().unwrap_or(0);
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous + usize::from(ca != *cb);
            previous = row.get(j + 1).copied().unwrap_or(0);
            let insert = row.get(j).copied().unwrap_or(0) + 1;
            let delete = previous + 1;
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = substitute.min(insert).min(delete);
            }
        }
    }
    row.last().copied().unwrap_or(0)
}

/// The existing column most like `wanted` among `candidates` (indexes into `names`): one that
/// contains it or is contained in it, else one within a few edits.
pub(super) fn closest(names: &[String], candidates: &[usize], wanted: &str) -> Option<usize> {
    let wanted = wanted.to_lowercase();
    candidates
        .iter()
        .filter_map(|&i| {
            let name = names.get(i)?.to_lowercase();
            let contains = name.contains(&wanted) || wanted.contains(&name);
            let score = if contains && name.len().min(wanted.len()) >= 3 {
                0
            } else {
                let d = distance(&name, &wanted);
                if d > (wanted.len() / 3).max(2) {
                    return None;
                }
                d
            };
            Some((score, i))
        })
        .min()
        .map(|(_, i)| i)
}

/// What a header column was read as, for the checks.
pub(super) enum Read<'a> {
    /// A fixed samples column or a Pods metric's.
    Known,
    Usage(&'a str),
    Request(&'a str),
}

/// What the checks need to know besides the header.
pub(super) struct Context<'a> {
    pub file: &'a str,
    pub line: usize,
    /// Usage comes from `--metrics`: no usage column is needed.
    pub usage_given: bool,
    /// Names of metrics answered elsewhere (Pods metrics in `--custom-metrics`): columns so named
    /// are not unknown.
    pub other_names: &'a [String],
}

/// "the cpu metric" or "the cpu metric of container app".
fn metric_label(resource: &str, container: Option<&str>) -> String {
    match container {
        Some(c) => format!("the {resource} metric of container {c}"),
        None => format!("the {resource} metric"),
    }
}

/// An error for a needed column: names the closest existing column, or all of them.
fn missing(
    ctx: &Context<'_>,
    names: &[String],
    candidates: &[usize],
    wanted: &str,
    why: &str,
) -> InputError {
    match closest(names, candidates, wanted) {
        Some(i) => {
            let found = names.get(i).map_or("", String::as_str);
            InputError::new(
                ctx.file,
                format!("found the column {found}; {why} a column named {wanted}"),
            )
            .at(ctx.line, Some(i + 1))
            .field(found)
        }
        None => InputError::new(
            ctx.file,
            format!(
                "found {}; {why} a column named {wanted}",
                super::describe_columns(names)
            ),
        )
        .at(ctx.line, None),
    }
}

/// What the header check found: columns nothing reads (ignored), and a warning for each.
#[derive(Debug, Default)]
pub(super) struct Unread {
    pub columns: Vec<usize>,
    pub warnings: Vec<String>,
}

/// Checks the header: the first needed column that is missing is an error; columns nothing reads
/// are returned, to be ignored with a warning.
pub(super) fn check(
    ctx: &Context<'_>,
    names: &[String],
    read: &[Read<'_>],
    metrics: &[MetricSpec],
) -> Result<Unread, InputError> {
    let free: Vec<usize> = read
        .iter()
        .enumerate()
        .filter(|(_, r)| !matches!(r, Read::Known))
        .map(|(i, _)| i)
        .collect();
    let has_usage = |resource: &str| {
        read.iter()
            .any(|r| matches!(r, Read::Usage(u) if *u == resource))
    };
    let has_request = |resource: &str| {
        read.iter()
            .any(|r| matches!(r, Read::Request(u) if *u == resource))
    };
    for spec in metrics {
        let MetricSpec::Resource {
            resource,
            container,
            target,
        } = spec
        else {
            continue;
        };
        let label = metric_label(resource, container.as_deref());
        if !ctx.usage_given && !has_usage(resource) {
            let candidates: Vec<usize> = free
                .iter()
                .copied()
                .filter(|&i| !matches!(read.get(i), Some(Read::Request(r)) if r == resource))
                .collect();
            return Err(missing(
                ctx,
                names,
                &candidates,
                resource,
                &format!("{label} reads its usage from"),
            ));
        }
        if target.target_type == TargetType::Utilization && !has_request(resource) {
            let candidates: Vec<usize> = free
                .iter()
                .copied()
                .filter(|&i| !matches!(read.get(i), Some(Read::Usage(u)) if u == resource))
                .collect();
            return Err(missing(
                ctx,
                names,
                &candidates,
                &format!("{resource}_request"),
                &format!(
                    "{label} has a Utilization target, a percentage of the request (an empty \
                     cell is a container without one), read from"
                ),
            ));
        }
    }
    let read_by_metric = |name: &str| {
        metrics
            .iter()
            .any(|m| matches!(m, MetricSpec::Resource { resource, .. } if resource == name))
            || ctx.other_names.iter().any(|n| n.eq_ignore_ascii_case(name))
    };
    let mut unread = Unread::default();
    for (i, r) in read.iter().enumerate() {
        let resource = match r {
            Read::Known => continue,
            Read::Usage(resource) | Read::Request(resource) => *resource,
        };
        if is_standard_resource(resource) || read_by_metric(resource) {
            continue;
        }
        unread.columns.push(i);
    }
    // One warning for all of them: a header of 100,000 unknown columns is one line, not 100,000.
    if let Some(&first) = unread.columns.first() {
        let shown: Vec<&str> = unread
            .columns
            .iter()
            .map(|&i| names.get(i).map_or("", String::as_str))
            .collect();
        let (what, verb) = if shown.len() == 1 {
            ("column", "is")
        } else {
            ("columns", "are")
        };
        unread.warnings.push(format!(
            "{}:{}:{}: the {what} {} {verb} neither a samples column, a resource's usage or \
             request, nor a metric's name: ignored",
            ctx.file,
            ctx.line,
            first + 1,
            crate::error::name_list(&shown, crate::error::LIST_NAMES)
        ));
    }
    Ok(unread)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::scenario::MetricTarget;

    fn cpu(target_type: TargetType) -> MetricSpec {
        MetricSpec::Resource {
            resource: "cpu".into(),
            container: None,
            target: MetricTarget {
                target_type,
                average_utilization: (target_type == TargetType::Utilization).then_some(50),
                average_value_milli: (target_type == TargetType::AverageValue).then_some(500),
                value_milli: None,
            },
        }
    }

    fn run(header: &[&str], usage_given: bool, specs: &[MetricSpec]) -> Result<Unread, InputError> {
        let names: Vec<String> = header.iter().map(|s| s.to_string()).collect();
        let read: Vec<Read<'_>> = header
            .iter()
            .map(|n| match *n {
                "pod" | "ready" => Read::Known,
                n => match n.strip_suffix("_request") {
                    Some(r) => Read::Request(r),
                    None => Read::Usage(n),
                },
            })
            .collect();
        let ctx = Context {
            file: "pods.csv",
            line: 1,
            usage_given,
            other_names: &["qps".to_string()],
        };
        check(&ctx, &names, &read, specs)
    }

    #[test]
    fn a_resource_metric_needs_its_usage_column_unless_metrics_give_the_usage() {
        let specs = [cpu(TargetType::AverageValue)];
        let err = run(&["pod", "cpu_usage"], false, &specs).unwrap_err();
        assert_eq!((err.line, err.column), (Some(1), Some(2)));
        assert_eq!(
            err.message,
            "found the column cpu_usage; the cpu metric reads its usage from a column named cpu"
        );
        assert!(run(&["pod"], true, &specs).is_ok());
        let err = run(&["pod", "ready"], false, &specs).unwrap_err();
        assert!(
            err.message
                .starts_with("found the columns pod, ready; the cpu metric"),
            "{err}"
        );
    }

    #[test]
    fn a_utilization_target_needs_its_request_column() {
        let specs = [cpu(TargetType::Utilization)];
        let err = run(&["pod", "cpu", "cpu_requests"], false, &specs).unwrap_err();
        assert_eq!(err.field.as_deref(), Some("cpu_requests"));
        assert!(err.message.ends_with("a column named cpu_request"), "{err}");
        // With --metrics the usage column is not needed, the request column still is.
        assert!(run(&["pod"], true, &specs).is_err());
        assert!(run(&["pod", "cpu_request"], true, &specs).is_ok());
    }

    #[test]
    fn columns_nothing_reads_are_ignored_with_a_warning() {
        let unread = run(
            &["pod", "cpu", "region", "qps", "memory", "gpu_request"],
            false,
            &[],
        )
        .unwrap();
        assert_eq!(unread.columns, [2, 5]);
        assert_eq!(
            unread.warnings,
            [
                "pods.csv:1:3: the columns region, gpu_request are neither a samples column, a \
              resource's usage or request, nor a metric's name: ignored"
            ]
        );
        let one = run(&["pod", "cpu", "region"], false, &[]).unwrap();
        assert_eq!(
            one.warnings,
            [
                "pods.csv:1:3: the column region is neither a samples column, a resource's usage or \
              request, nor a metric's name: ignored"
            ]
        );
    }

    #[test]
    fn the_closest_column_contains_the_name_or_is_a_few_edits_away() {
        let names: Vec<String> = ["pod", "cpu_usage", "mem", "cpu_requests"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(closest(&names, &[1, 2, 3], "cpu"), Some(1));
        assert_eq!(closest(&names, &[2, 3], "cpu_request"), Some(3));
        assert_eq!(closest(&names, &[2], "memory"), Some(2));
        assert_eq!(closest(&names, &[2], "nvidia.com/gpu"), None);
        // A short name is not "contained" by chance.
        let short: Vec<String> = vec!["p".into()];
        assert_eq!(closest(&short, &[0], "packets-per-second"), None);
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
