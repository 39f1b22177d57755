//! The text of kubectl's printed forms, as every pasted reader cuts it: which form a text is,
//! the lines before the output, the cells of a table row, an age.

use crate::error::InputError;
use crate::time::Duration;

/// Which pasted form a text is, recognized from its first meaningful line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `kubectl describe hpa`: starts with `Name:`.
    Describe,
    /// `kubectl get hpa` (`-o wide`, `-w`, `-A`): a header with NAME, REFERENCE and TARGETS.
    Table,
}

impl Form {
    /// The form's name in the report's `sources`.
    pub fn name(self) -> &'static str {
        match self {
            Form::Describe => "kubectl describe hpa",
            Form::Table => "kubectl get hpa",
        }
    }
}

/// A line a paste may carry before the output: the shell prompt and command, or a warning kubectl
/// printed on stderr (`Warning: autoscaling/v2beta2 HorizontalPodAutoscaler is deprecated ...`).
pub fn is_preamble(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with('$') || t.starts_with("Warning: ")
}

/// The form of `text`, or `None` for a manifest (YAML or JSON).
pub fn detect(text: &str) -> Option<Form> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first = body
        .lines()
        .map(str::trim_end)
        .find(|l| !l.trim().is_empty() && !is_preamble(l))?;
    if first.starts_with("Name:") {
        return Some(Form::Describe);
    }
    let words: Vec<&str> = first.split_whitespace().collect();
    (words.contains(&"NAME") && words.contains(&"REFERENCE") && words.contains(&"TARGETS"))
        .then_some(Form::Table)
}

/// An age as kubectl prints it (`duration.HumanDuration`: `45s`, `3m50s`, `20m`, `5h10m`, `2d3h`,
/// `400d`, `3y45d`), or `None`.
pub fn parse_age(text: &str) -> Option<Duration> {
    let mut total: i64 = 0;
    let mut number = String::new();
    let mut any = false;
    for c in text.trim().chars() {
        if c.is_ascii_digit() {
            number.push(c);
            continue;
        }
        let unit: i64 = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            'y' => 365 * 86_400,
            _ => return None,
        };
        let n: i64 = number.parse().ok()?;
        number.clear();
        total = total.checked_add(n.checked_mul(unit)?)?;
        any = true;
    }
    (any && number.is_empty() && total <= i64::MAX / 1000).then(|| Duration::from_secs(total))
}

/// Splits a table row into cells separated by two spaces or more; the last of `n` cells takes
/// the rest of the line. Each cell comes with its 1-based column.
pub fn split_cells(line: &str, n: usize) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    let mut i = 0;
    // Skip the indentation.
    while i < bytes.len() && bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    let mut start = i;
    while i < bytes.len() {
        if out.len() + 1 == n {
            break;
        }
        let gap = bytes.get(i..).map_or(0, |b| {
            b.iter().take_while(|c| c.is_ascii_whitespace()).count()
        });
        if gap >= 2 || (gap >= 1 && bytes.get(i) == Some(&b'\t')) {
            if let Some(cell) = line.get(start..i) {
                out.push((start + 1, cell));
            }
            i += gap;
            start = i;
            continue;
        }
        i += 1;
    }
    if let Some(cell) = line.get(start..)
        && !cell.trim().is_empty()
    {
        out.push((start + 1, cell.trim_end()));
    }
    out
}

/// A kubectl table's header: its column names (a name may hold one space: `LAST SEEN`) and the
/// byte where each starts. kubectl prints tables through a tabwriter that pads every cell to its
/// column's width, so a row's cells start where the header's names do, empty cells included.
pub(crate) struct Header {
    pub(crate) names: Vec<String>,
    starts: Vec<usize>,
    /// No cell holds a space (`kubectl top`): a row may be cut at every run of whitespace.
    word_cells: bool,
}

impl Header {
    pub(crate) fn parse(line: &str) -> Header {
        Header::of(split_cells(line, usize::MAX))
    }

    /// A header whose names hold no space (`kubectl get hpa`, `kubectl top`): cut at every run
    /// of whitespace, so a header typed with single spaces reads too.
    pub(crate) fn words(line: &str) -> Header {
        Header::of(words(line))
    }

    /// The header of these names, each with its 1-based column.
    fn of(cells: Vec<(usize, &str)>) -> Header {
        let (starts, names) = cells
            .into_iter()
            .map(|(col, name)| (col - 1, name.to_string()))
            .unzip();
        Header {
            names,
            starts,
            word_cells: false,
        }
    }

    /// The header of a table none of whose cells holds a space (`kubectl top`): a row typed with
    /// single spaces reads too.
    pub(crate) fn with_word_cells(self) -> Header {
        Header {
            word_cells: true,
            ..self
        }
    }

    /// The 1-based column where each name starts.
    pub(crate) fn columns(&self) -> impl Iterator<Item = usize> + '_ {
        self.starts.iter().map(|s| s + 1)
    }

    pub(crate) fn has(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }
}

/// A row of a pasted table cut into the header's columns, its cells found by column name.
pub(crate) struct Row<'a> {
    columns: &'a [String],
    cells: Vec<(usize, &'a str)>,
}

impl<'a> Row<'a> {
    /// Cuts line `n` of `file` at the header's column positions, as kubectl aligned them; a row
    /// that does not fit them (a `-w` row printed apart, spaces lost in a paste) is cut at two
    /// spaces or more (`split_cells`) instead, or at every run of whitespace where no cell holds
    /// a space. A row with another count of cells is an error that names the header's
    /// columns, joined by `joiner`.
    pub(crate) fn cut(
        file: &str,
        n: usize,
        line: &'a str,
        header: &'a Header,
        joiner: &str,
    ) -> Result<Self, InputError> {
        let columns = &header.names;
        if let Some(cells) = cut_at(line, &header.starts) {
            return Ok(Row { columns, cells });
        }
        let mut cells = split_cells(line, columns.len());
        if cells.len() != columns.len() && header.word_cells {
            let words = words(line);
            if words.len() == columns.len() {
                cells = words;
            }
        }
        if cells.len() != columns.len() {
            return Err(InputError::new(
                file,
                format!(
                    "found {} column(s), expected {} as in the header ({}): are the columns \
                     shifted or the row cut?",
                    cells.len(),
                    columns.len(),
                    columns.join(joiner)
                ),
            )
            .at(n, Some(1)));
        }
        Ok(Row { columns, cells })
    }

    /// The cells in the header's order, each with its 1-based column.
    pub(crate) fn cells(&self) -> &[(usize, &'a str)] {
        &self.cells
    }

    /// The cell of the column `name`, with its 1-based column; `None` when the header has no
    /// such column.
    pub(crate) fn get(&self, name: &str) -> Option<(usize, &'a str)> {
        (self.columns.iter())
            .position(|c| c == name)
            .and_then(|i| self.cells.get(i))
            .copied()
    }
}

/// The words of `line` with their 1-based columns.
fn words(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line
        .char_indices()
        .chain(std::iter::once((line.len(), ' ')))
    {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((s + 1, line.get(s..i).unwrap_or_default()));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    out
}

/// The cells of `line` between the column starts, or `None` where the row does not fit them: a
/// start inside a word, or text in the gap before the first column.
fn cut_at<'a>(line: &'a str, starts: &[usize]) -> Option<Vec<(usize, &'a str)>> {
    let bytes = line.as_bytes();
    let mut cells = Vec::with_capacity(starts.len());
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(line.len(), |&e| e.min(line.len()));
        let start = start.min(line.len());
        let opens_inside_a_word = start > 0
            && start < line.len()
            && !bytes.get(start - 1).is_some_and(u8::is_ascii_whitespace);
        if opens_inside_a_word || (i == 0 && !line.get(..start)?.trim().is_empty()) {
            return None;
        }
        let cell = line.get(start..end)?;
        // A cell runs into the next column only when its last byte touches the next start.
        if end < line.len() && !cell.is_empty() && !cell.ends_with(char::is_whitespace) {
            return None;
        }
        cells.push((start + 1, cell.trim()));
    }
    // The first and last columns always have a value: a row without them is cut or shifted.
    (!cells.first()?.1.is_empty() && !cells.last()?.1.is_empty()).then_some(cells)
}

/// An event's age cell as kubectl prints it: `AGE`, or `LAST (xN over FIRST)` for an event seen
/// N times from FIRST ago to LAST ago (`kubectl describe`'s Age, `kubectl events`' LAST SEEN,
/// `kubectl get events`' LAST SEEN in older releases).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interval {
    pub last: Duration,
    pub count: i64,
    pub first: Duration,
}

// Port of the interval of DescribeEvents (pkg/describe/describe.go) and of printOneEvent
// (pkg/cmd/events/event_printer.go), read backwards: `translateTimestampSince(first)`, or
// `fmt.Sprintf("%s (x%d over %s)", last, count, first)`.
pub fn parse_interval(text: &str) -> Option<Interval> {
    match text.trim().split_once(" (x") {
        Some((last, rest)) => {
            let (count, over) = rest.strip_suffix(')')?.split_once(" over ")?;
            let (last, first) = (parse_age(last)?, parse_age(over)?);
            Some(Interval {
                last,
                count: count.parse::<i64>().ok()?.max(1),
                first: first.max(last),
            })
        }
        None => {
            let age = parse_age(text)?;
            Some(Interval {
                last: age,
                count: 1,
                first: age,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_as_human_duration_writes_them() {
        assert_eq!(parse_age("45s"), Some(Duration::from_secs(45)));
        assert_eq!(parse_age("3m50s"), Some(Duration::from_secs(230)));
        assert_eq!(parse_age("20m"), Some(Duration::from_secs(1200)));
        assert_eq!(parse_age("5h10m"), Some(Duration::from_secs(18_600)));
        assert_eq!(parse_age("2d3h"), Some(Duration::from_secs(183_600)));
        assert_eq!(parse_age("<unknown>"), None);
        assert_eq!(parse_age("5"), None);
    }

    #[test]
    fn cells_are_split_at_two_spaces_and_the_last_takes_the_rest() {
        let row = "  Normal   SuccessfulRescale  5m (x2 over 10m)  horizontal-pod-autoscaler  New size: 5;  reason: x";
        let cells: Vec<&str> = split_cells(row, 5).into_iter().map(|(_, c)| c).collect();
        assert_eq!(
            cells,
            [
                "Normal",
                "SuccessfulRescale",
                "5m (x2 over 10m)",
                "horizontal-pod-autoscaler",
                "New size: 5;  reason: x"
            ]
        );
        assert_eq!(split_cells(row, 5).first().map(|c| c.0), Some(3));
    }

    /// What the fuzz target does, on every prefix of the fixtures: a cut text reads or fails at a
    /// line, never panics.

    #[test]
    fn a_counted_age_is_seen_n_times_from_its_span_ago_to_its_last() {
        assert_eq!(
            parse_interval("47s (x14 over 19m)"),
            Some(Interval {
                last: Duration::from_secs(47),
                count: 14,
                first: Duration::from_secs(19 * 60),
            })
        );
        assert_eq!(
            parse_interval("5m").map(|i| (i.count, i.first)),
            Some((1, Duration::from_secs(300)))
        );
        assert_eq!(parse_interval("5m (x3 over"), None);
    }

    #[test]
    fn a_row_is_cut_at_the_headers_positions_with_its_empty_cells() {
        let header = Header::parse(
            "LAST SEEN   TYPE     REASON   OBJECT   SUBOBJECT   SOURCE   MESSAGE   COUNT",
        );
        let line = "44s         Normal   Scaled   hpa/web               hpa      a  b      3";
        let row = Row::cut("f", 2, line, &header, "  ").unwrap();
        assert_eq!(row.get("SUBOBJECT").map(|c| c.1), Some(""));
        assert_eq!(row.get("MESSAGE").map(|c| c.1), Some("a  b"));
        assert_eq!(row.get("COUNT").map(|c| c.1), Some("3"));
        // Not aligned (spaces lost in a paste): cut at two spaces instead.
        let row = Row::cut(
            "f",
            2,
            "44s  Normal  Scaled  hpa/web  x  hpa  m  3",
            &header,
            " ",
        );
        assert_eq!(row.unwrap().get("COUNT").map(|c| c.1), Some("3"));
    }

    #[test]
    fn forms_are_recognized_from_the_first_line() {
        assert_eq!(detect("Name:   web\n"), Some(Form::Describe));
        assert_eq!(
            detect("$ kubectl get hpa\nNAME  REFERENCE  TARGETS  MINPODS\n"),
            Some(Form::Table)
        );
        assert_eq!(detect("apiVersion: autoscaling/v2\n"), None);
    }
}
