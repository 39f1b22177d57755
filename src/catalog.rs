//! The diagnostics table as data: every code of `diagnostics[]` with its severity, when it is
//! given (what it means and what to change) and an example message. The table is the one
//! docs/diagnostics.md shows, compiled in and read here, so the list an MCP client gets
//! (`list_diagnostics`) cannot drift from the reference; a test checks that every code the
//! source gives has its entry.

use serde::Serialize;

/// The document the table is read from.
const DOCUMENT: &str = include_str!("../docs/diagnostics.md");

/// One code of the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    pub code: String,
    /// `info`, `warning`, `error`, or `error / warning` for a code that can be either.
    pub severity: String,
    /// When the code is given: the cause, and what to change.
    pub when: String,
    /// A message of a real case; empty when the table gives none.
    pub example: String,
}

/// Markdown inline code and links as plain text: `` `x` `` → `x`, `[text](url)` → `text`.
fn plain(cell: &str) -> String {
    let mut out = String::with_capacity(cell.len());
    let mut rest = cell.trim();
    while let Some(open) = rest.find('[') {
        let (before, after) = rest.split_at(open);
        out.push_str(before);
        match after.find("](").zip(after.find(')')) {
            Some((mid, close)) if mid < close => {
                out.push_str(after.get(1..mid).unwrap_or(""));
                rest = after.get(close + 1..).unwrap_or("");
            }
            _ => {
                out.push('[');
                rest = after.get(1..).unwrap_or("");
            }
        }
    }
    out.push_str(rest);
    out.replace('`', "")
}

/// The cells of a table row `| a | b |` (a `|` inside backticks is not a separator).
fn cells(line: &str) -> Vec<&str> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    let mut cells = Vec::new();
    let (mut start, mut code) = (0, false);
    for (i, c) in inner.char_indices() {
        match c {
            '`' => code = !code,
            '|' if !code => {
                cells.push(inner.get(start..i).unwrap_or(""));
                start = i + 1;
            }
            _ => {}
        }
    }
    cells.push(inner.get(start..).unwrap_or(""));
    cells
}

/// The codes of a row's first cell: `` `A`, `B` `` → A, B.
fn codes(cell: &str) -> Vec<String> {
    (cell.split(','))
        .map(|c| plain(c).trim().to_string())
        .filter(|c| !c.is_empty())
        .collect()
}

/// Every entry, in the document's order: the table's rows (a row of several codes gives each
/// its entry), then the bullets after it (`` - `Code` (severity): when ``, continued on indented
/// lines).
pub fn entries() -> Vec<Entry> {
    let mut out = Vec::new();
    let mut bullet: Option<Entry> = None;
    for line in DOCUMENT.lines() {
        if let Some(rest) = line.strip_prefix("- `") {
            out.extend(bullet.take());
            let Some((code, rest)) = rest.split_once('`') else {
                continue;
            };
            let rest = rest.trim_start();
            let (severity, when) = match rest.strip_prefix('(').and_then(|r| r.split_once(')')) {
                Some((severity, when)) => (severity, when.trim_start_matches(':')),
                None => ("", rest),
            };
            bullet = Some(Entry {
                code: code.to_string(),
                severity: severity.to_string(),
                when: plain(when),
                example: String::new(),
            });
        } else if let Some(b) = bullet.as_mut().filter(|_| line.starts_with("  ")) {
            b.when = format!("{} {}", b.when, plain(line));
        } else {
            out.extend(bullet.take());
            let row = cells(line);
            let [code, severity, when, example] = row.as_slice() else {
                continue;
            };
            if !code.trim().starts_with('`') {
                continue;
            }
            for code in codes(code) {
                out.push(Entry {
                    code,
                    severity: plain(severity),
                    when: plain(when),
                    example: plain(example),
                });
            }
        }
    }
    out.extend(bullet);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_and_bullet_of_the_document_is_an_entry() {
        let all = entries();
        let codes: Vec<&str> = all.iter().map(|e| e.code.as_str()).collect();
        for code in [
            "WithinTolerance",
            "KedaActivation",
            "KedaFallback",
            "ArithmeticOverflow",
        ] {
            assert!(codes.contains(&code), "{code}: {codes:?}");
        }
        assert!(
            all.iter()
                .all(|e| !e.severity.is_empty() && !e.when.is_empty())
        );
        let overflow = all.iter().find(|e| e.code == "ArithmeticOverflow").unwrap();
        assert_eq!(overflow.severity, "warning");
        assert!(
            overflow.when.ends_with("the message names the sum."),
            "{overflow:?}"
        );
    }

    #[test]
    fn markdown_is_read_as_plain_text() {
        assert_eq!(
            plain(" see [Live mode](live.md) and `x` "),
            "see Live mode and x"
        );
        assert_eq!(plain("a [b c"), "a [b c");
        assert_eq!(cells("| `a|b` | c |"), vec![" `a|b` ", " c "]);
    }
}
