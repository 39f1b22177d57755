//! Field paths and where they are in the manifest's text.
//!
//! Errors found after deserialization (validation, missing keys) know the field path but not the
//! line: neither `serde_json::Value` nor the typed k8s-openapi structs keep spans. This module
//! finds the line by walking the path through the text: structurally for JSON, by indentation for
//! block YAML. It is best effort: when a step cannot be found (flow style, anchors, odd layouts),
//! it returns the deepest key it did find, or nothing.

use std::fmt;
use std::ops::Range;

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    Key(String),
    Index(usize),
}

/// A field path such as `spec.metrics[1].resource.target.averageUtilization`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FieldPath(pub Vec<Seg>);

impl FieldPath {
    pub fn root() -> Self {
        FieldPath(Vec::new())
    }

    /// Builds a path from dotted keys: `FieldPath::of(&["spec", "maxReplicas"])`.
    pub fn of(keys: &[&str]) -> Self {
        FieldPath(keys.iter().map(|k| Seg::Key((*k).to_string())).collect())
    }

    pub fn key(&self, key: &str) -> Self {
        let mut segs = self.0.clone();
        segs.push(Seg::Key(key.to_string()));
        FieldPath(segs)
    }

    pub fn index(&self, index: usize) -> Self {
        let mut segs = self.0.clone();
        segs.push(Seg::Index(index));
        FieldPath(segs)
    }

    /// `self` followed by every step of `rest`.
    pub fn join(&self, rest: &FieldPath) -> Self {
        let mut segs = self.0.clone();
        segs.extend(rest.0.iter().cloned());
        FieldPath(segs)
    }

    /// The path without `prefix`, when it starts with it.
    pub fn strip_prefix(&self, prefix: &FieldPath) -> Option<FieldPath> {
        self.0
            .strip_prefix(prefix.0.as_slice())
            .map(|rest| FieldPath(rest.to_vec()))
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.0.iter().enumerate() {
            match seg {
                Seg::Index(n) => write!(f, "[{n}]")?,
                // Annotation keys hold dots and slashes: print them as `annotations["a.b/c"]`.
                Seg::Key(k) if !k.is_empty() && k.chars().all(plain_key_char) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(k)?;
                }
                Seg::Key(k) => write!(f, "[{}]", crate::error::quoted(k))?,
            }
        }
        Ok(())
    }
}

fn plain_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// The 1-based line and column of the deepest step of `path` found in `text[span]`, where `span`
/// is the byte range of one document.
pub fn locate(
    text: &str,
    span: Range<usize>,
    json: bool,
    path: &FieldPath,
) -> Option<(usize, usize)> {
    let doc = text.get(span.clone())?;
    let offset = if json {
        json_offset(doc, &path.0)?
    } else {
        yaml_offset(doc, &path.0)?
    };
    Some(line_col(text, span.start + offset))
}

/// 1-based line and column (in characters) of byte `offset`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

/// Byte ranges of the documents of a YAML stream, split at `---` lines. Documents with no content
/// (only comments or directives before the first `---`) are dropped, as the parser drops them.
pub fn yaml_document_spans(text: &str) -> Vec<Range<usize>> {
    let mut starts = vec![0];
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if offset > 0 && is_document_start(line) {
            starts.push(offset);
        }
        offset += line.len();
    }
    let mut spans: Vec<Range<usize>> = starts
        .iter()
        .zip(starts.iter().skip(1).chain(std::iter::once(&text.len())))
        .map(|(&a, &b)| a..b)
        .collect();
    if let Some(first) = spans.first()
        && starts.len() > 1
        && !text
            .get(first.clone())
            .is_some_and(has_content_before_marker)
    {
        spans.remove(0);
    }
    spans
}

fn is_document_start(line: &str) -> bool {
    line.strip_prefix("---")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
}

/// The first segment holds a document of its own only when it has content lines other than
/// comments, directives, and the `---` of the first document.
fn has_content_before_marker(segment: &str) -> bool {
    segment.lines().any(|l| {
        let t = l.trim();
        !t.is_empty() && !t.starts_with('#') && !t.starts_with('%') && !is_document_start(l)
    })
}

// ---- JSON: a small structural scanner ----

/// Byte offset of the deepest step of `path` in the JSON document `doc`.
fn json_offset(doc: &str, path: &[Seg]) -> Option<usize> {
    let bytes = doc.as_bytes();
    let mut pos = skip_ws(bytes, 0);
    let mut best = None;
    for seg in path {
        match seg {
            Seg::Key(key) => {
                let (key_at, value_at) = json_member(bytes, pos, key)?;
                best = Some(key_at);
                pos = value_at;
            }
            Seg::Index(n) => match json_element(bytes, pos, *n) {
                Some(at) => {
                    best = Some(at);
                    pos = at;
                }
                None => return best,
            },
        }
    }
    best.or(Some(pos))
}

/// In the object at `pos`: the offsets of member `key` and of its value.
fn json_member(bytes: &[u8], pos: usize, key: &str) -> Option<(usize, usize)> {
    if bytes.get(pos) != Some(&b'{') {
        return None;
    }
    let mut i = skip_ws(bytes, pos + 1);
    while bytes.get(i) == Some(&b'"') {
        let key_end = string_end(bytes, i)?;
        let name = bytes.get(i + 1..key_end - 1)?;
        let colon = skip_ws(bytes, key_end);
        if bytes.get(colon) != Some(&b':') {
            return None;
        }
        let value = skip_ws(bytes, colon + 1);
        if name == key.as_bytes() {
            return Some((i, value));
        }
        i = skip_ws(bytes, value_end(bytes, value)?);
        if bytes.get(i) == Some(&b',') {
            i = skip_ws(bytes, i + 1);
        }
    }
    None
}

/// In the array at `pos`: the offset of element `n`.
fn json_element(bytes: &[u8], pos: usize, n: usize) -> Option<usize> {
    if bytes.get(pos) != Some(&b'[') {
        return None;
    }
    let mut i = skip_ws(bytes, pos + 1);
    for _ in 0..n {
        i = skip_ws(bytes, value_end(bytes, i)?);
        if bytes.get(i) != Some(&b',') {
            return None;
        }
        i = skip_ws(bytes, i + 1);
    }
    matches!(bytes.get(i), Some(b) if *b != b']').then_some(i)
}

fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

/// One past the closing quote of the string starting at `start`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    loop {
        match bytes.get(i)? {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
}

/// One past the end of the value starting at `start`.
fn value_end(bytes: &[u8], start: usize) -> Option<usize> {
    match bytes.get(start)? {
        b'"' => string_end(bytes, start),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = start;
            loop {
                match bytes.get(i)? {
                    b'"' => {
                        i = string_end(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let mut i = start;
            while bytes
                .get(i)
                .is_some_and(|b| !matches!(b, b',' | b'}' | b']') && !b.is_ascii_whitespace())
            {
                i += 1;
            }
            Some(i)
        }
    }
}

// ---- YAML: block style, by indentation ----

/// A content line of block YAML.
struct Line<'a> {
    /// Byte offset of the line in the document.
    start: usize,
    /// Column of the first non-space character.
    indent: usize,
    /// Column of the leading `-` when the line starts a sequence item.
    dash: Option<usize>,
    /// Column of the content after any `- ` prefixes.
    col: usize,
    content: &'a str,
}

fn yaml_lines(doc: &str) -> Vec<Line<'_>> {
    let mut lines = Vec::new();
    let mut start = 0;
    for raw in doc.split_inclusive('\n') {
        let line = raw.trim_end_matches(['\n', '\r']);
        let indent = line.len() - line.trim_start_matches(' ').len();
        let mut content = &line[indent..];
        let dash = (content == "-" || content.starts_with("- ")).then_some(indent);
        while content == "-" || content.starts_with("- ") {
            content = content[1..].trim_start_matches(' ');
        }
        let col = line.len() - content.len();
        if !content.is_empty() && !content.starts_with('#') && !is_document_start(line) {
            lines.push(Line {
                start,
                indent,
                dash,
                col,
                content,
            });
        } else if dash.is_some() {
            // A bare `-` whose item starts on the next line: keep it as an item marker.
            lines.push(Line {
                start,
                indent,
                dash,
                col,
                content: "",
            });
        }
        start += raw.len();
    }
    lines
}

fn is_key(content: &str, key: &str) -> bool {
    [
        format!("{key}:"),
        format!("\"{key}\":"),
        format!("'{key}':"),
    ]
    .iter()
    .any(|k| {
        content
            .strip_prefix(k.as_str())
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
    })
}

/// Where the walk stands: inside the value of a key, or inside a sequence item.
#[derive(Clone, Copy)]
enum Scope {
    /// The value of the key on line `line` at column `col` (`line` is `None` at the root).
    Value {
        line: Option<usize>,
        col: Option<usize>,
    },
    /// The sequence item whose `-` is on line `line` at column `dash`, content at column `col`.
    Item {
        line: usize,
        dash: usize,
        col: usize,
    },
}

fn yaml_offset(doc: &str, path: &[Seg]) -> Option<usize> {
    let lines = yaml_lines(doc);
    let mut scope = Scope::Value {
        line: None,
        col: None,
    };
    let mut best = None;
    for seg in path {
        let found = match seg {
            Seg::Key(key) => yaml_key(&lines, scope, key),
            Seg::Index(n) => yaml_item(&lines, scope, *n),
        };
        match found {
            Some((i, next)) => {
                best = lines.get(i).map(|l| l.start + l.col);
                scope = next;
            }
            None => break,
        }
    }
    best
}

/// The line of mapping key `key` directly inside `scope`.
fn yaml_key(lines: &[Line], scope: Scope, key: &str) -> Option<(usize, Scope)> {
    let (first, end_col, child_col) = match scope {
        Scope::Value { line, col } => (line.map_or(0, |l| l + 1), col, None),
        Scope::Item { line, col, .. } => (line, None, Some(col)),
    };
    let mut child_col = child_col;
    for (i, l) in lines.iter().enumerate().skip(first) {
        match scope {
            Scope::Value { .. } => {
                if end_col.is_some_and(|c| l.col <= c) {
                    return None;
                }
            }
            Scope::Item { line, dash, col } => {
                if i > line && (l.dash == Some(dash) || l.col < col) {
                    return None;
                }
            }
        }
        let child = *child_col.get_or_insert(l.col);
        if l.col == child && is_key(l.content, key) {
            return Some((
                i,
                Scope::Value {
                    line: Some(i),
                    col: Some(l.col),
                },
            ));
        }
    }
    None
}

/// The line of item `n` of the sequence that is the value of `scope`.
fn yaml_item(lines: &[Line], scope: Scope, n: usize) -> Option<(usize, Scope)> {
    let Scope::Value {
        line: Some(parent),
        col: Some(parent_col),
    } = scope
    else {
        return None;
    };
    let mut dash_col = None;
    let mut count = 0;
    for (i, l) in lines.iter().enumerate().skip(parent + 1) {
        let d = match dash_col {
            Some(d) => d,
            // The value is a block sequence only when its first line is an item.
            None => *dash_col.insert(l.dash?),
        };
        if l.indent < d || (l.indent <= parent_col && l.dash != Some(d)) {
            return None;
        }
        if l.dash == Some(d) && l.indent == d {
            if count == n {
                // A bare `-` puts the item's content on the next line.
                let col = if l.content.is_empty() {
                    lines.get(i + 1).map_or(l.col, |next| next.col)
                } else {
                    l.col
                };
                return Some((
                    i,
                    Scope::Item {
                        line: i,
                        dash: d,
                        col,
                    },
                ));
            }
            count += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path and the 1-based line and column it should resolve to.
    type Case<'a> = (&'a [&'a str], Option<(usize, usize)>);

    fn path(segs: &[&str]) -> FieldPath {
        FieldPath(
            segs.iter()
                .map(|s| match s.parse::<usize>() {
                    Ok(n) => Seg::Index(n),
                    Err(_) => Seg::Key((*s).to_string()),
                })
                .collect(),
        )
    }

    const YAML: &str = "\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
  annotations:
    a.b/c: x
spec:
  # comment
  maxReplicas: 10
  metrics:
  - type: Resource
    resource:
      name: cpu
  - type: Pods
    pods:
      metric:
        name: qps
      target:
        averageValue: 1k
  behavior:
    scaleDown:
      policies:
        -
          type: Percent
          value: 0
";

    #[test]
    fn yaml_paths_resolve_to_their_key_lines() {
        let cases: &[Case] = &[
            (&["spec", "maxReplicas"], Some((9, 3))),
            (&["spec", "metrics", "0"], Some((11, 5))),
            (&["spec", "metrics", "0", "resource", "name"], Some((13, 7))),
            (&["spec", "metrics", "1", "type"], Some((14, 5))),
            (
                &["spec", "metrics", "1", "pods", "target", "averageValue"],
                Some((19, 9)),
            ),
            (
                &["spec", "behavior", "scaleDown", "policies", "0", "value"],
                Some((25, 11)),
            ),
            (&["metadata", "annotations", "a.b/c"], Some((6, 5))),
            // Missing steps stop at the deepest key found.
            (&["spec", "minReplicas"], Some((7, 1))),
            (&["spec", "metrics", "5", "type"], Some((10, 3))),
            // A key of another level does not match.
            (&["spec", "name"], Some((7, 1))),
            (&["status"], None),
        ];
        for (segs, want) in cases {
            assert_eq!(
                locate(YAML, 0..YAML.len(), false, &path(segs)),
                *want,
                "{segs:?}"
            );
        }
    }

    #[test]
    fn json_paths_resolve_structurally() {
        let json = "{\n  \"spec\": {\"a\": [1, {\"x\": \"}\"}], \"maxReplicas\": 0,\n  \"metrics\": [{\"type\": \"Pods\"}, {\"type\": \"Foo\"}]}\n}";
        let cases: &[Case] = &[
            (&["spec", "maxReplicas"], Some((2, 34))),
            (&["spec", "metrics", "1", "type"], Some((3, 34))),
            (&["spec", "metrics", "2", "type"], Some((3, 3))),
            (&["status"], None),
        ];
        for (segs, want) in cases {
            assert_eq!(
                locate(json, 0..json.len(), true, &path(segs)),
                *want,
                "{segs:?}"
            );
        }
    }

    #[test]
    fn documents_split_at_marker_lines() {
        let text = "# leading comment\n---\na: 1\n---\nb: 2\n--- \nc: 3\n";
        let spans = yaml_document_spans(text);
        let docs: Vec<&str> = spans.iter().map(|s| &text[s.clone()]).collect();
        assert_eq!(docs, ["---\na: 1\n", "---\nb: 2\n", "--- \nc: 3\n"]);
        let text = "a: 1\n---\nb: 2\n";
        assert_eq!(yaml_document_spans(text).len(), 2);
        assert_eq!(yaml_document_spans("a: 1\n").len(), 1);
    }

    #[test]
    fn paths_print_like_kubernetes_field_paths() {
        let p = FieldPath::of(&["spec", "metrics"])
            .index(1)
            .key("resource")
            .key("target");
        assert_eq!(p.to_string(), "spec.metrics[1].resource.target");
        let a = FieldPath::of(&[
            "metadata",
            "annotations",
            "autoscaling.alpha.kubernetes.io/metrics",
        ]);
        assert_eq!(
            a.to_string(),
            "metadata.annotations[\"autoscaling.alpha.kubernetes.io/metrics\"]"
        );
        assert_eq!(
            p.strip_prefix(&FieldPath::of(&["spec"])),
            Some(
                FieldPath::of(&["metrics"])
                    .index(1)
                    .key("resource")
                    .key("target")
            )
        );
    }
}
