//! The one way a value from the inputs is echoed in a message or a line of output: control
//! bytes escaped, cut to [`ECHO_CHARS`] characters with its length, lists cut to [`LIST_NAMES`]
//! names with a count.

/// The longest value echoed whole in a message.
pub const ECHO_CHARS: usize = 80;
/// The most names listed in one message.
pub const LIST_NAMES: usize = 20;

/// A character a terminal acts on rather than shows: a control character, or a Unicode line or
/// paragraph separator (U+2028, U+2029), which some terminals and editors break the line at.
fn acts(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

/// Control characters (and U+2028, U+2029) shown, never sent to the terminal: `\e`, `\n`,
/// `\u0007`, `\u2028`.
pub fn escape_control(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(acts) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{1b}' => out.push_str("\\e"),
            c if acts(c) => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Text for the terminal: control characters escaped as in [`escape_control`], line breaks kept.
pub fn escape_terminal(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(|c| acts(c) && c != '\n') {
        return std::borrow::Cow::Borrowed(text);
    }
    let lines: Vec<std::borrow::Cow<'_, str>> = text.split('\n').map(escape_control).collect();
    std::borrow::Cow::Owned(lines.join("\n"))
}

/// A value for a message, unquoted: escaped, and cut to 80 characters with its length.
pub fn quoted_bare(text: &str) -> String {
    let count = text.chars().count();
    if count <= ECHO_CHARS {
        return escape_control(text).into_owned();
    }
    let end = text
        .char_indices()
        .nth(ECHO_CHARS)
        .map_or(text.len(), |(i, _)| i);
    format!(
        "{}... ({count} characters)",
        escape_control(text.get(..end).unwrap_or(text))
    )
}

/// A value for a message, in double quotes: escaped, and cut to 80 characters with its length.
pub fn quoted(text: &str) -> String {
    let count = text.chars().count();
    if count <= ECHO_CHARS {
        return format!("\"{}\"", escape_control(text));
    }
    let end = text
        .char_indices()
        .nth(ECHO_CHARS)
        .map_or(text.len(), |(i, _)| i);
    format!(
        "\"{}...\" ({count} characters)",
        escape_control(text.get(..end).unwrap_or(text))
    )
}

/// Names for a message: the first 20, then how many more.
pub fn name_list<S: AsRef<str>>(names: &[S], max: usize) -> String {
    let shown: Vec<String> = names
        .iter()
        .take(max)
        .map(|n| quoted_bare(n.as_ref()))
        .collect();
    let mut out = shown.join(", ");
    if names.len() > max {
        out.push_str(&format!(" and {} more", names.len() - max));
    }
    out
}

/// The most of a message from outside (a server's error, an event's message) a report keeps:
/// real ones are a line; a longer one is cut, with its length.
pub const MAX_MESSAGE_CHARS: usize = 1024;

/// `text` cut to `max` characters, with its length when it was longer.
pub fn cut(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => std::borrow::Cow::Borrowed(text),
        Some((end, _)) => std::borrow::Cow::Owned(format!(
            "{}... ({} characters)",
            text.get(..end).unwrap_or(text),
            text.chars().count()
        )),
    }
}

/// A message whose quoted spans (`"..."`, `` `...` ``) are each cut to 80 characters with their
/// length: a parser's own words (`found string "..."`) quote what it read, whole.
pub fn cut_quoted_spans(message: &str) -> std::borrow::Cow<'_, str> {
    if message.len() <= ECHO_CHARS {
        return std::borrow::Cow::Borrowed(message);
    }
    let mut out = String::new();
    let mut rest = message;
    let mut copied_upto = 0;
    let mut offset = 0;
    while let Some(open) = rest.find(['"', '`']) {
        let quote = rest.as_bytes().get(open).copied().unwrap_or(b'"');
        let body_start = open + 1;
        let Some(len) = span_len(rest.get(body_start..).unwrap_or(""), quote) else {
            break;
        };
        let body = rest.get(body_start..body_start + len).unwrap_or("");
        let count = body.chars().count();
        // A span `quoted` already cut (80 characters and `...`) is kept as it is.
        if count > ECHO_CHARS + 3 {
            let end = body
                .char_indices()
                .nth(ECHO_CHARS)
                .map_or(body.len(), |(i, _)| i);
            out.push_str(message.get(copied_upto..offset + body_start).unwrap_or(""));
            out.push_str(body.get(..end).unwrap_or(body));
            out.push_str("...");
            out.push(char::from(quote));
            out.push_str(&format!(" ({count} characters)"));
            copied_upto = offset + body_start + len + 1;
        }
        let next = body_start + len + 1;
        offset += next;
        rest = rest.get(next..).unwrap_or("");
    }
    if copied_upto == 0 {
        return std::borrow::Cow::Borrowed(message);
    }
    out.push_str(message.get(copied_upto..).unwrap_or(""));
    std::borrow::Cow::Owned(out)
}

/// The length of a quoted span's body up to its closing `quote` (a `"` span may escape one with
/// a backslash, as Debug prints strings), if it closes.
fn span_len(text: &str, quote: u8) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'\\' && quote == b'"' {
            i += 2;
        } else if b == quote {
            return Some(i);
        } else {
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_quoted_span_is_cut_with_its_length_and_the_rest_is_kept() {
        let long = "y".repeat(200_000);
        let message = format!("a.b: found string \"{long}\", expected a sequence of `{long}`");
        let cut = cut_quoted_spans(&message);
        let y80 = "y".repeat(80);
        assert_eq!(
            cut,
            format!(
                "a.b: found string \"{y80}...\" (200000 characters), expected a sequence of \
                 `{y80}...` (200000 characters)"
            )
        );
    }

    #[test]
    fn short_spans_escaped_quotes_and_an_unclosed_quote_are_kept() {
        let message = format!(
            "found string \"a\\\"b\", expected `x`; {} \"unclosed",
            "z".repeat(100)
        );
        assert_eq!(cut_quoted_spans(&message), message);
        let escaped = format!("found \"{}\\\"{}\" end", "q".repeat(50), "r".repeat(50));
        let cut = cut_quoted_spans(&escaped);
        assert!(cut.ends_with("...\" (102 characters) end"), "{cut}");
        let already = format!("found {} and more", quoted(&"w".repeat(500)));
        assert_eq!(cut_quoted_spans(&already), already);
    }

    #[test]
    fn quoted_and_quoted_bare_cut_at_80_with_the_length() {
        assert_eq!(quoted("a\u{1b}b"), "\"a\\eb\"");
        let long = "é".repeat(81);
        assert_eq!(
            quoted(&long),
            format!("\"{}...\" (81 characters)", "é".repeat(80))
        );
        assert_eq!(
            quoted_bare(&long),
            format!("{}... (81 characters)", "é".repeat(80))
        );
        assert_eq!(name_list(&["a", "b", "c"], 2), "a, b and 1 more");
    }
}
