//! A JSON dump read as it arrives, at the speed of a byte scan. The top level (one object, and
//! the elements of its `items`) is walked here, with strings, escapes and nesting tracked, and
//! each item is cut out as text for the typed readers, which parse it from memory: serde_json
//! reads a reader one byte at a time, which was a third of the audit of a large dump. Whatever
//! the scan lets through is parsed by serde_json afterwards (each item, each other field), so a
//! malformed file is still refused, at its line and column.

use std::io::BufRead;

use crate::error::InputError;

/// A position in the file: 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct At {
    pub line: usize,
    pub column: usize,
}

/// What the top level of a JSON file holds, handed over as it is read.
pub trait Parts {
    /// The `index`-th element of `items`, starting at `at`.
    fn item(&mut self, index: usize, text: &str, at: At) -> Result<(), InputError>;
    /// Any other field of the top-level object: (key, value text).
    fn field(&mut self, key: String, value: &str, at: At) -> Result<(), InputError>;
    /// The top-level object had no `items`: its fields were all there is.
    fn end_without_items(&mut self) -> Result<(), InputError>;
}

/// How many items go from the scanning thread to the parsing one at a time, and how many such
/// batches may wait: the text in flight stays a few megabytes.
const BATCH: usize = 256;
const BATCHES_WAITING: usize = 4;

/// One part of the top level, as the scanning thread hands it over.
enum Part {
    Item(usize, At),
    Field(String, At),
    End,
}

/// A run of parts, their texts end to end in one string.
#[derive(Default)]
struct Batch {
    text: String,
    parts: Vec<(Part, std::ops::Range<usize>)>,
}

/// The scanning thread's side: parts gathered into batches and sent.
struct Sender {
    batch: Batch,
    to: std::sync::mpsc::SyncSender<Batch>,
}

/// The parsing side stopped (its own error comes first): the scan stops too.
fn hung_up() -> InputError {
    InputError::new("", "the reader stopped")
}

impl Sender {
    fn push(&mut self, part: Part, text: &str) -> Result<(), InputError> {
        let start = self.batch.text.len();
        self.batch.text.push_str(text);
        let end = self.batch.text.len();
        self.batch.parts.push((part, start..end));
        if self.batch.parts.len() >= BATCH {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), InputError> {
        if self.batch.parts.is_empty() {
            return Ok(());
        }
        (self.to.send(std::mem::take(&mut self.batch))).map_err(|_| hung_up())
    }
}

impl Parts for Sender {
    fn item(&mut self, index: usize, text: &str, at: At) -> Result<(), InputError> {
        self.push(Part::Item(index, at), text)
    }

    fn field(&mut self, key: String, value: &str, at: At) -> Result<(), InputError> {
        self.push(Part::Field(key, at), value)
    }

    fn end_without_items(&mut self) -> Result<(), InputError> {
        self.push(Part::End, "")
    }
}

/// [`walk`], with the scan on a second thread and `parts` fed on this one: on a large dump the
/// scan and the parse of the items each take about half the time, so they overlap. The parts
/// arrive in their order, and the first error in the file is the one returned.
pub fn walk_beside(
    file: &str,
    reader: impl BufRead + Send,
    parts: &mut dyn Parts,
) -> Result<(), InputError> {
    let (to, from) = std::sync::mpsc::sync_channel::<Batch>(BATCHES_WAITING);
    std::thread::scope(|scope| {
        let scan = scope.spawn(move || {
            let mut sender = Sender {
                batch: Batch::default(),
                to,
            };
            let walked = walk(file, reader, &mut sender);
            // The items before a syntax error go first: one of them may hold an earlier error.
            sender.flush().and(walked)
        });
        let fed = feed(&from, parts);
        // An error here stops the scan: it finds the channel closed.
        drop(from);
        let scanned = scan.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        fed.and(scanned)
    })
}

fn feed(from: &std::sync::mpsc::Receiver<Batch>, parts: &mut dyn Parts) -> Result<(), InputError> {
    for batch in from {
        for (part, range) in batch.parts {
            let text = &batch.text[range];
            match part {
                Part::Item(index, at) => parts.item(index, text, at)?,
                Part::Field(key, at) => parts.field(key, text, at)?,
                Part::End => parts.end_without_items()?,
            }
        }
    }
    Ok(())
}

/// Walks one JSON document from `reader`, handing its parts to `parts`.
pub fn walk(file: &str, reader: impl BufRead, parts: &mut dyn Parts) -> Result<(), InputError> {
    let mut s = Scanner {
        file,
        reader,
        at: At { line: 1, column: 1 },
        text: Vec::new(),
    };
    s.skip_whitespace()?;
    s.expect(b'{', "a Kubernetes object or List")?;
    let mut listed = false;
    let mut first = true;
    loop {
        s.skip_whitespace()?;
        if s.peek()? == Some(b'}') {
            s.bump()?;
            break;
        }
        if !first {
            s.expect(b',', "`,` or `}`")?;
            s.skip_whitespace()?;
        }
        first = false;
        let key = s.key()?;
        s.skip_whitespace()?;
        s.expect(b':', "`:`")?;
        s.skip_whitespace()?;
        if key == "items" && s.peek()? == Some(b'[') {
            listed = true;
            s.items(parts)?;
        } else {
            let mut key = Some(key);
            s.cut(&mut |text, at| parts.field(key.take().unwrap_or_default(), text, at))?;
        }
    }
    s.skip_whitespace()?;
    if let Some(b) = s.peek()? {
        return Err(s.malformed(&format!("trailing characters, found {}", shown(b))));
    }
    if listed {
        Ok(())
    } else {
        parts.end_without_items()
    }
}

struct Scanner<'f, R> {
    file: &'f str,
    reader: R,
    /// The position of the next byte.
    at: At,
    /// A value that spans buffers, as it is gathered.
    text: Vec<u8>,
}

impl<R: BufRead> Scanner<'_, R> {
    fn peek(&mut self) -> Result<Option<u8>, InputError> {
        let file = self.file;
        let buf = (self.reader.fill_buf()).map_err(|e| cannot_read(file, &e))?;
        Ok(buf.first().copied())
    }

    fn bump(&mut self) -> Result<(), InputError> {
        if let Some(b) = self.peek()? {
            self.at = advance(self.at, &[b]);
            self.reader.consume(1);
        }
        Ok(())
    }

    fn skip_whitespace(&mut self) -> Result<(), InputError> {
        loop {
            let file = self.file;
            let buf = (self.reader.fill_buf()).map_err(|e| cannot_read(file, &e))?;
            let n = buf.iter().take_while(|b| b.is_ascii_whitespace()).count();
            let exhausted = n == buf.len() && n > 0;
            self.at = advance(self.at, buf.get(..n).unwrap_or_default());
            self.reader.consume(n);
            if !exhausted {
                return Ok(());
            }
        }
    }

    fn expect(&mut self, byte: u8, what: &str) -> Result<(), InputError> {
        match self.peek()? {
            Some(b) if b == byte => self.bump(),
            Some(b) => Err(self.malformed(&format!("found {}, expected {what}", shown(b)))),
            None => Err(self.malformed("EOF while parsing an object")),
        }
    }

    /// A key: a JSON string, decoded.
    fn key(&mut self) -> Result<String, InputError> {
        if self.peek()? != Some(b'"') {
            return Err(self.malformed("key must be a string"));
        }
        let file = self.file;
        let mut key = String::new();
        self.cut(&mut |text, at| {
            key = serde_json::from_str(text).map_err(|e| locate(file, at, &e))?;
            Ok(())
        })?;
        Ok(key)
    }

    /// The elements of `items`, each handed over as it is cut out.
    fn items(&mut self, parts: &mut dyn Parts) -> Result<(), InputError> {
        self.bump()?;
        let mut index = 0;
        loop {
            self.skip_whitespace()?;
            match self.peek()? {
                Some(b']') => return self.bump(),
                Some(b',') if index > 0 => {
                    self.bump()?;
                    self.skip_whitespace()?;
                }
                Some(b) if index > 0 => {
                    return Err(self.malformed(&format!("found {}, expected `,` or `]`", shown(b))));
                }
                None => return Err(self.malformed("EOF while parsing a list")),
                Some(_) => {}
            }
            self.cut(&mut |text, at| parts.item(index, text, at))?;
            index += 1;
        }
    }

    /// Cuts out the value that starts here and hands it to `take` with where it starts: from
    /// the buffer itself when it ends there (most items do), else gathered across buffers.
    fn cut(
        &mut self,
        take: &mut dyn FnMut(&str, At) -> Result<(), InputError>,
    ) -> Result<(), InputError> {
        let (file, start) = (self.file, self.at);
        let mut cut = Cut::default();
        self.text.clear();
        loop {
            let buf = (self.reader.fill_buf()).map_err(|e| cannot_read(file, &e))?;
            if buf.is_empty() {
                let what = cut.unfinished();
                return Err(self.malformed(&format!("EOF while parsing {what}")));
            }
            let Some(end) = cut.scan(buf) else {
                self.text.extend_from_slice(buf);
                self.at = advance(self.at, buf);
                let n = buf.len();
                self.reader.consume(n);
                continue;
            };
            let piece = buf.get(..end).unwrap_or(buf);
            self.at = advance(self.at, piece);
            let bytes = if self.text.is_empty() {
                piece
            } else {
                self.text.extend_from_slice(piece);
                &self.text
            };
            let text = std::str::from_utf8(bytes).map_err(|_| {
                InputError::new(file, "found bytes that are not UTF-8, expected text")
                    .at(start.line, Some(start.column))
            })?;
            take(text, start)?;
            self.reader.consume(end);
            return Ok(());
        }
    }

    fn malformed(&self, what: &str) -> InputError {
        InputError::new(
            self.file,
            format!("found malformed JSON ({what}), expected the JSON kubectl prints"),
        )
        .at(self.at.line, Some(self.at.column))
    }
}

fn cannot_read(file: &str, e: &std::io::Error) -> InputError {
    InputError::new(file, format!("cannot read: {e}"))
}

/// The position after `bytes`, read from `at`.
fn advance(at: At, bytes: &[u8]) -> At {
    match bytes.iter().rposition(|&b| b == b'\n') {
        Some(last) => At {
            line: at.line + bytes.iter().filter(|&&b| b == b'\n').count(),
            column: bytes.len() - last,
        },
        None => At {
            line: at.line,
            column: at.column + bytes.len(),
        },
    }
}

/// Where one value is, as its bytes go by: a string, an object or array (to the bracket that
/// closes the first), or a scalar (to the next delimiter). Its grammar is the parser's to check.
#[derive(Default)]
struct Cut {
    started: bool,
    scalar: bool,
    in_string: bool,
    escaped: bool,
    /// The brackets open, innermost last.
    open: Vec<u8>,
}

impl Cut {
    /// The end of the value in `bytes` (the index after it), the bytes before taken into
    /// account; `None` when it goes on past them.
    fn scan(&mut self, bytes: &[u8]) -> Option<usize> {
        let mut i = 0;
        if !self.started {
            self.started = true;
            match bytes.first() {
                Some(b'"') => (self.in_string, i) = (true, 1),
                Some(b'{' | b'[') => {}
                _ => self.scalar = true,
            }
        }
        if self.scalar {
            let delimiter = |b: &u8| matches!(b, b',' | b']' | b'}') || b.is_ascii_whitespace();
            return bytes.iter().position(delimiter);
        }
        loop {
            let rest = bytes.get(i..)?;
            if self.escaped {
                rest.first()?;
                (self.escaped, i) = (false, i + 1);
                continue;
            }
            if self.in_string {
                let k = memchr::memchr2(b'"', b'\\', rest)?;
                i += k + 1;
                if rest.get(k) == Some(&b'\\') {
                    self.escaped = true;
                } else {
                    self.in_string = false;
                    if self.open.is_empty() {
                        return Some(i);
                    }
                }
                continue;
            }
            // `[` and `{` differ in one bit (0x20), as `]` and `}` do.
            let k = rest
                .iter()
                .position(|&b| b == b'"' || matches!(b | 0x20, b'{' | b'}'))?;
            let b = rest.get(k).copied()?;
            i += k + 1;
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.open.push(b),
                _ => {
                    self.open.pop();
                    if self.open.is_empty() {
                        return Some(i);
                    }
                }
            }
        }
    }

    /// What the end of the file cut short, in serde_json's words.
    fn unfinished(&self) -> &'static str {
        if self.in_string {
            "a string"
        } else if self.scalar || self.open.is_empty() {
            "a value"
        } else if self.open.last() == Some(&b'[') {
            "a list"
        } else {
            "an object"
        }
    }
}

/// A serde_json error in a value that starts at `at`, said at its place in the file.
pub fn locate(file: &str, at: At, e: &serde_json::Error) -> InputError {
    let line = at.line + e.line().saturating_sub(1);
    let column = if e.line() <= 1 {
        at.column + e.column().saturating_sub(1)
    } else {
        e.column()
    };
    crate::error::json_error(file, e).at(line, Some(column))
}

/// What the top-level keys of an object's text say of its `kind`.
#[derive(Debug, PartialEq, Eq)]
pub enum KindOf<'a> {
    /// A plain string (no escapes).
    Plain(&'a str),
    /// The object has no `kind`.
    Absent,
    /// The scan cannot tell (an escape, a kind that is not a string, text that is not an
    /// object): the parser must.
    Unknown,
}

/// The `kind` of an object's text, from a scan of its top-level keys: kubectl writes it second,
/// so this reads a few dozen bytes where parsing the object would read all of it.
pub fn kind_of(text: &str) -> KindOf<'_> {
    let bytes = text.as_bytes();
    let mut i = skip_space(bytes, 0);
    if bytes.get(i) != Some(&b'{') {
        return KindOf::Unknown;
    }
    i += 1;
    loop {
        i = skip_space(bytes, i);
        match bytes.get(i) {
            Some(b'}') => return KindOf::Absent,
            Some(b',') => i = skip_space(bytes, i + 1),
            _ => {}
        }
        let Some((key, after)) = plain_string(text, i) else {
            return KindOf::Unknown;
        };
        i = skip_space(bytes, after);
        if bytes.get(i) != Some(&b':') {
            return KindOf::Unknown;
        }
        i = skip_space(bytes, i + 1);
        if key == "kind" {
            return match plain_string(text, i) {
                Some((kind, _)) => KindOf::Plain(kind),
                None => KindOf::Unknown,
            };
        }
        match value_end(bytes, i) {
            Some(end) => i = end,
            None => return KindOf::Unknown,
        }
    }
}

fn skip_space(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

/// The string starting at `i` when it has no escape: (its content, the index after it).
fn plain_string(text: &str, i: usize) -> Option<(&str, usize)> {
    let bytes = text.as_bytes();
    if bytes.get(i) != Some(&b'"') {
        return None;
    }
    let start = i + 1;
    let len = (bytes.get(start..)?.iter()).position(|&b| b == b'"' || b == b'\\')?;
    let end = start + len;
    (bytes.get(end) == Some(&b'"')).then_some(())?;
    Some((text.get(start..end)?, end + 1))
}

/// The index after the value that starts at `i`, strings and nesting followed.
fn value_end(bytes: &[u8], i: usize) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (j, &b) in bytes.get(i..)?.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
                if depth == 0 {
                    return Some(i + j + 1);
                }
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            // A scalar ends at the delimiter after it; no value at all is for the parser to say.
            b'}' | b']' | b',' if depth == 0 => return (j > 0).then_some(i + j),
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + j + 1);
                }
            }
            _ => {}
        }
    }
    None
}

fn shown(b: u8) -> String {
    match b {
        b' '..=b'~' => format!("`{}`", char::from(b)),
        _ => format!("byte 0x{b:02x}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Seen {
        items: Vec<(usize, String, At)>,
        fields: Vec<(String, String)>,
        whole: bool,
    }

    impl Parts for Seen {
        fn item(&mut self, index: usize, text: &str, at: At) -> Result<(), InputError> {
            self.items.push((index, text.to_string(), at));
            Ok(())
        }
        fn field(&mut self, key: String, value: &str, _: At) -> Result<(), InputError> {
            self.fields.push((key, value.to_string()));
            Ok(())
        }
        fn end_without_items(&mut self) -> Result<(), InputError> {
            self.whole = true;
            Ok(())
        }
    }

    /// Walks `text` through a reader of `chunk` bytes at a time, so values cross buffers.
    fn walked(text: &str, chunk: usize) -> Result<Seen, InputError> {
        let mut seen = Seen::default();
        let reader = std::io::BufReader::with_capacity(chunk, text.as_bytes());
        walk("f.json", reader, &mut seen)?;
        Ok(seen)
    }

    #[test]
    fn items_are_cut_out_whole_wherever_the_buffer_ends() {
        let text = "{\"kind\": \"List\",\n \"items\": [\n  {\"a\": \"x]}\\\"\", \"b\": [1, {\"c\": null}]},\n  {}\n ],\n \"metadata\": {\"x\": 1}}\n";
        for chunk in [1, 2, 3, 7, 64, 4096] {
            let seen = walked(text, chunk).unwrap();
            assert_eq!(seen.items.len(), 2, "chunk {chunk}");
            assert_eq!(
                seen.items[0].1,
                "{\"a\": \"x]}\\\"\", \"b\": [1, {\"c\": null}]}"
            );
            assert_eq!(seen.items[0].2, At { line: 3, column: 3 });
            assert_eq!(seen.items[1].1, "{}");
            assert_eq!(seen.items[1].2, At { line: 4, column: 3 });
            let keys: Vec<&str> = seen.fields.iter().map(|(k, _)| k.as_str()).collect();
            assert_eq!(keys, ["kind", "metadata"]);
            assert_eq!(seen.fields[0].1, "\"List\"");
            assert!(!seen.whole);
        }
    }

    /// Takes the items and refuses the one at `refuse`.
    struct Refusing {
        taken: Vec<usize>,
        refuse: usize,
    }

    impl Parts for Refusing {
        fn item(&mut self, index: usize, _: &str, _: At) -> Result<(), InputError> {
            if index == self.refuse {
                return Err(InputError::new("f.json", format!("item {index} refused")));
            }
            self.taken.push(index);
            Ok(())
        }
        fn field(&mut self, _: String, _: &str, _: At) -> Result<(), InputError> {
            Ok(())
        }
        fn end_without_items(&mut self) -> Result<(), InputError> {
            Ok(())
        }
    }

    fn beside(text: &str, refuse: usize) -> (Vec<usize>, Result<(), String>) {
        let mut parts = Refusing {
            taken: Vec::new(),
            refuse,
        };
        let reader = std::io::BufReader::with_capacity(7, text.as_bytes());
        let out = walk_beside("f.json", reader, &mut parts).map_err(|e| e.to_string());
        (parts.taken, out)
    }

    #[test]
    fn beside_the_scan_the_items_arrive_in_order_and_the_first_error_wins() {
        let items = vec!["{}"; 3 * BATCH + 5].join(",");
        let (taken, out) = beside(&format!("{{\"items\": [{items}]}}"), usize::MAX);
        assert_eq!(out, Ok(()));
        assert_eq!(taken, (0..3 * BATCH + 5).collect::<Vec<_>>());
        // An item refused before a syntax error further on: the item's error is the first.
        let (taken, out) = beside(&format!("{{\"items\": [{items},"), 2);
        assert_eq!(out, Err("f.json: item 2 refused".to_string()));
        assert_eq!(taken, [0, 1]);
        // The syntax error comes first: every item before it was taken.
        let (taken, out) = beside(&format!("{{\"items\": [{items},"), usize::MAX);
        assert!(out.unwrap_err().starts_with("f.json:1:"));
        assert_eq!(taken.len(), 3 * BATCH + 5);
    }

    #[test]
    fn an_object_without_items_is_its_fields() {
        let seen = walked(r#"{"kind":"Status","code":503,"ok":true}"#, 5).unwrap();
        assert!(seen.whole);
        assert_eq!(seen.fields[1], ("code".to_string(), "503".to_string()));
        assert_eq!(seen.fields[2], ("ok".to_string(), "true".to_string()));
    }

    #[test]
    fn a_malformed_top_level_is_said_at_its_line_and_column() {
        let err = |text: &str| walked(text, 3).map(|_| ()).unwrap_err().to_string();
        assert_eq!(
            err("{\"items\": [{\"a\": 1}"),
            "f.json:1:20: found malformed JSON (EOF while parsing a list), expected the JSON \
             kubectl prints"
        );
        assert!(err("{\"items\": [{\"a\": [1").contains("EOF while parsing a list"));
        assert!(err("{\"items\": [{\"a\": \"x").contains("EOF while parsing a string"));
        assert!(err("{\"items\": [{}}").contains("found `}`, expected `,` or `]`"));
        assert!(err("{\"items\": []} x").contains("trailing characters"));
        assert!(err("[1]").contains("found `[`, expected a Kubernetes object or List"));
        assert!(err("{\"a\" 1}").starts_with("f.json:1:6:"));
    }

    #[test]
    fn the_kind_is_read_from_the_first_keys_and_anything_unclear_goes_to_the_parser() {
        assert_eq!(
            kind_of(r#"{"apiVersion": "v1", "kind": "Pod", "spec": {}}"#),
            KindOf::Plain("Pod")
        );
        let after = r#"{"metadata": {"kind": "x", "a": [1, "]"]}, "n": 5, "kind":"Node"}"#;
        assert_eq!(kind_of(after), KindOf::Plain("Node"));
        assert_eq!(kind_of(r#"{"metadata": {"kind": "Pod"}}"#), KindOf::Absent);
        assert_eq!(kind_of(r#"{"kind": "P\u006fd"}"#), KindOf::Unknown);
        assert_eq!(kind_of(r#"{"kind": 5}"#), KindOf::Unknown);
        assert_eq!(kind_of(r#"{"a": }"#), KindOf::Unknown);
        assert_eq!(kind_of("[]"), KindOf::Unknown);
    }

    #[test]
    fn a_parse_error_in_an_item_is_said_at_its_place_in_the_file() {
        let e = serde_json::from_str::<serde_json::Value>("{\"a\":\n  x}").unwrap_err();
        let at = locate(
            "f.json",
            At {
                line: 10,
                column: 5,
            },
            &e,
        )
        .to_string();
        assert!(at.starts_with("f.json:11:3:"), "{at}");
        let e = serde_json::from_str::<serde_json::Value>("{\"a\": x}").unwrap_err();
        let at = locate(
            "f.json",
            At {
                line: 10,
                column: 5,
            },
            &e,
        )
        .to_string();
        assert!(at.starts_with("f.json:10:11:"), "{at}");
    }
}
