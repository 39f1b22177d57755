//! The text `kubectl top pods` prints: with `--containers` one row per container (`POD NAME
//! CPU(cores) MEMORY(bytes)`), without it one row per pod (`NAME CPU(cores) MEMORY(bytes)`), with
//! a leading `NAMESPACE` column under `-A`, and an optional `SWAP(bytes)` column (ignored). A
//! `--sum` footer is skipped.
//!
//! kubectl prints cpu as `MilliValue()` millicores (what the controller uses, per container; a
//! per-pod row rounds the pod's sum once) but memory as whole Mi, truncated: the caller warns
//! about both.

use std::collections::HashMap;

use super::sample::{Item, Sample};
use crate::error::InputError;
use crate::input::paste::text::{Header, Row as TableRow};
use crate::quantity::parse_milli;
use crate::scenario::{ContainerMetrics, Resources};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Namespace,
    Pod,
    /// The container with `--containers`, else the pod.
    Name,
    Cpu,
    Memory,
    Swap,
}

const HEADERS: [(&str, Column); 6] = [
    ("NAMESPACE", Column::Namespace),
    ("POD", Column::Pod),
    ("NAME", Column::Name),
    ("CPU(cores)", Column::Cpu),
    ("MEMORY(bytes)", Column::Memory),
    ("SWAP(bytes)", Column::Swap),
];

const EXPECTED: &str = "the columns of kubectl top pods [--containers]: [NAMESPACE] [POD] NAME \
                        CPU(cores) MEMORY(bytes) [SWAP(bytes)]";

pub(super) fn parse(file: &str, text: &str) -> Result<Vec<Item>, InputError> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = body
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((header_line, header)) = lines.next() else {
        return Err(InputError::new(
            file,
            format!("found an empty file, expected JSON, YAML or {EXPECTED}"),
        ));
    };
    let header = Header::words(header).with_word_cells();
    let columns = read_header(file, header_line, &header)?;
    let per_container = columns.contains(&Column::Pod);

    let mut pods = Pods {
        file,
        per_container,
        items: Vec::new(),
        index: HashMap::new(),
    };
    for (line_no, line) in lines {
        // The `--sum` footer: a rule of underscores, then the totals.
        if line.chars().all(|c| c == '_' || c.is_whitespace()) {
            break;
        }
        let row = TableRow::cut(file, line_no, line, &header, " ")?;
        let read = read_row(file, line_no, row.cells(), &columns, per_container)?;
        pods.add(line_no, read)?;
    }
    Ok(pods.items)
}

/// The header's columns, each known and once, with NAME, CPU(cores) and MEMORY(bytes) among them.
fn read_header(file: &str, header_line: usize, header: &Header) -> Result<Vec<Column>, InputError> {
    let mut columns = Vec::new();
    for (name, col) in header.names.iter().zip(header.columns()) {
        let Some(&(_, column)) = HEADERS.iter().find(|(h, _)| h.eq_ignore_ascii_case(name)) else {
            return Err(InputError::new(
                file,
                format!("found the column \"{name}\", expected {EXPECTED}"),
            )
            .at(header_line, Some(col))
            .field(name));
        };
        if columns.contains(&column) {
            return Err(InputError::new(
                file,
                format!("found the column \"{name}\" twice, expected each column once"),
            )
            .at(header_line, Some(col))
            .field(name));
        }
        columns.push(column);
    }
    let has = |c: Column| columns.contains(&c);
    if !has(Column::Name) || !has(Column::Cpu) || !has(Column::Memory) {
        return Err(InputError::new(
            file,
            format!(
                "found the columns {}, expected {EXPECTED}",
                crate::error::name_list(&header.names, crate::error::LIST_NAMES)
            ),
        )
        .at(header_line, Some(1)));
    }
    Ok(columns)
}

/// One row: a container's (or, without `--containers`, a pod's) usage.
struct Row<'a> {
    namespace: Option<String>,
    pod: &'a str,
    /// Empty without `--containers`.
    container: &'a str,
    usage: Vec<(String, i64)>,
}

fn read_row<'a>(
    file: &str,
    line_no: usize,
    row: &[(usize, &'a str)],
    columns: &[Column],
    per_container: bool,
) -> Result<Row<'a>, InputError> {
    let mut read = Row {
        namespace: None,
        pod: "",
        container: "",
        usage: Vec::with_capacity(2),
    };
    for (&(col, cell), &column) in row.iter().zip(columns) {
        match column {
            Column::Namespace => read.namespace = Some(cell.to_string()),
            Column::Pod => read.pod = cell,
            Column::Name if per_container => read.container = cell,
            Column::Name => read.pod = cell,
            Column::Cpu | Column::Memory => {
                let (resource, header) = if column == Column::Cpu {
                    ("cpu", "CPU(cores)")
                } else {
                    ("memory", "MEMORY(bytes)")
                };
                let here = |e: String| {
                    InputError::new(file, e)
                        .at(line_no, Some(col))
                        .field(header.to_string())
                };
                match parse_milli(cell) {
                    Ok(v) if v >= 0 => read.usage.push((resource.to_string(), v)),
                    Ok(_) => {
                        return Err(here(format!(
                            "found {}, expected a usage of 0 or more",
                            crate::error::quoted(cell)
                        )));
                    }
                    Err(e) => return Err(here(e.to_string())),
                }
            }
            Column::Swap => {}
        }
    }
    Ok(read)
}

/// The items read so far, one a pod, and where each pod's is.
struct Pods<'f> {
    file: &'f str,
    per_container: bool,
    items: Vec<Item>,
    index: HashMap<(String, String), usize>,
}

impl Pods<'_> {
    /// Adds a row's container to its pod's item, each pod (and container) once.
    fn add(&mut self, line_no: usize, row: Row<'_>) -> Result<(), InputError> {
        let Row {
            namespace,
            pod,
            container,
            usage,
        } = row;
        let key = (namespace.clone().unwrap_or_default(), pod.to_string());
        let slot = match self.index.get(&key) {
            Some(_) if !self.per_container => {
                return Err(InputError::new(
                    self.file,
                    format!("found the pod \"{pod}\" again, expected each pod once"),
                )
                .at(line_no, None));
            }
            Some(&slot) => slot,
            None => {
                self.index.insert(key, self.items.len());
                self.items.push(Item {
                    path: super::sample::ItemPath::Text(format!("line {line_no}")),
                    namespace,
                    labels: None,
                    sample: Sample {
                        pod: pod.to_string(),
                        timestamp: None,
                        window: None,
                        containers: Vec::new(),
                    },
                });
                self.items.len() - 1
            }
        };
        let Some(item) = self.items.get_mut(slot) else {
            return Ok(());
        };
        if item.sample.containers.iter().any(|c| c.name == container) {
            return Err(InputError::new(
                self.file,
                format!(
                    "found the container \"{container}\" of pod \"{pod}\" again, expected each \
                     container once"
                ),
            )
            .at(line_no, None));
        }
        item.sample.containers.push(ContainerMetrics {
            name: container.to_string(),
            usage: Resources(usage),
        });
        Ok(())
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn container_rows_make_one_item_per_pod() {
        let text = "POD                NAME          CPU(cores)   MEMORY(bytes)\n\
                    web-1              app           400m         300Mi\n\
                    web-1              istio-proxy   40m          60Mi\n\
                    web-2              app           1            1Gi\n";
        let items = parse("top.txt", text).unwrap();
        assert_eq!(items.len(), 2);
        let web1 = &items[0].sample;
        assert_eq!(web1.pod, "web-1");
        assert_eq!(web1.containers.len(), 2);
        assert_eq!(web1.containers[1].name, "istio-proxy");
        assert_eq!(web1.containers[1].usage.get("cpu"), Some(40));
        assert_eq!(items[1].sample.containers[0].usage.get("cpu"), Some(1000));
        assert_eq!(web1.timestamp, None);
    }

    #[test]
    fn a_namespace_column_and_pod_rows_are_read() {
        let text = "NAMESPACE   NAME    CPU(cores)   MEMORY(bytes)   SWAP(bytes)\n\
                    shop        web-1   250m         100Mi           0Mi\n\
                    prod        web-1   5m           1Mi             0Mi\n";
        let items = parse("top.txt", text).unwrap();
        assert_eq!(items.len(), 2, "one pod name in two namespaces");
        assert_eq!(items[0].namespace.as_deref(), Some("shop"));
        assert_eq!(items[0].sample.containers[0].name, "");
        assert_eq!(
            items[0].sample.containers[0].usage.get("memory"),
            Some(104_857_600_000)
        );
    }

    #[test]
    fn the_sum_footer_is_skipped() {
        let text = "NAME    CPU(cores)   MEMORY(bytes)\nweb-1   250m         100Mi\n        ________     ________\n        250m         100Mi\n";
        assert_eq!(parse("top.txt", text).unwrap().len(), 1);
    }

    #[test]
    fn bad_tables_are_located() {
        let cases: &[(&str, &str, Option<usize>, Option<usize>)] = &[
            (
                "POD NAME CPU MEMORY(bytes)\n",
                "found the column \"CPU\", expected the columns of kubectl top",
                Some(1),
                Some(10),
            ),
            (
                "POD NAME MEMORY(bytes)\n",
                "found the columns POD, NAME, MEMORY(bytes), expected",
                Some(1),
                Some(1),
            ),
            (
                "NAME CPU(cores) MEMORY(bytes)\nweb-1 250m\n",
                "found 1 column(s), expected 3 as in the header (NAME CPU(cores) MEMORY(bytes))",
                Some(2),
                Some(1),
            ),
            (
                "NAME CPU(cores) MEMORY(bytes)\nweb-1 fast 1Mi\n",
                "found \"fast\", expected a Kubernetes quantity",
                Some(2),
                Some(7),
            ),
            (
                "NAME CPU(cores) MEMORY(bytes)\nweb-1 1m 1Mi\nweb-1 1m 1Mi\n",
                "found the pod \"web-1\" again",
                Some(3),
                None,
            ),
            ("", "found an empty file", None, None),
        ];
        for &(text, message, line, column) in cases {
            let err = parse("top.txt", text).unwrap_err();
            assert!(err.message.starts_with(message), "{text:?}: {err}");
            assert_eq!((err.line, err.column), (line, column), "{text:?}: {err}");
        }
    }
}
