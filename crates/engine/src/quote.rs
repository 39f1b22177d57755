//! The one way a value from the inputs is echoed in a message or a line of output: control
//! bytes escaped, cut to [`ECHO_CHARS`] characters with its length, lists cut to [`LIST_NAMES`]
//! names with a count.

/// The longest value echoed whole in a message.
pub const ECHO_CHARS: usize = 80;
/// The most names listed in one message.
pub const LIST_NAMES: usize = 20;

/// Control characters shown, never sent to the terminal: `\e`, `\n`, `\u0007`.
pub fn escape_control(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{1b}' => out.push_str("\\e"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Text for the terminal: control characters escaped as in [`escape_control`], line breaks kept.
pub fn escape_terminal(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(|c| c.is_control() && c != '\n') {
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
