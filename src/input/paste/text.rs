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

/// A row of a pasted table cut into the header's columns, its cells found by column name.
pub(crate) struct Row<'a> {
    columns: &'a [String],
    cells: Vec<(usize, &'a str)>,
}

impl<'a> Row<'a> {
    /// Cuts line `n` of `file` into one cell per column of the header (`split_cells`). A row with
    /// another count is an error that names the header's columns, joined by `joiner`.
    pub(crate) fn split(
        file: &str,
        n: usize,
        line: &'a str,
        columns: &'a [String],
        joiner: &str,
    ) -> Result<Self, InputError> {
        let cells = split_cells(line, columns.len());
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

    /// The cell of the column `name`, with its 1-based column; `None` when the header has no
    /// such column.
    pub(crate) fn get(&self, name: &str) -> Option<(usize, &'a str)> {
        (self.columns.iter())
            .position(|c| c == name)
            .and_then(|i| self.cells.get(i))
            .copied()
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
    fn forms_are_recognized_from_the_first_line() {
        assert_eq!(detect("Name:   web\n"), Some(Form::Describe));
        assert_eq!(
            detect("$ kubectl get hpa\nNAME  REFERENCE  TARGETS  MINPODS\n"),
            Some(Form::Table)
        );
        assert_eq!(detect("apiVersion: autoscaling/v2\n"), None);
    }
}
