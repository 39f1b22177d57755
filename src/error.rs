//! Errors a person can act on: every input error names the file, the line and column when known,
//! the field, what was found and what was expected.

use std::fmt;

/// A problem with an input file or flag value. Exit code 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// The file name as the user gave it (`-` is shown as `<stdin>`), or `--flag` for a flag.
    pub file: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// The field path (`spec.metrics[0].resource.target`) or CSV column.
    pub field: Option<String>,
    /// What was wrong: "found X, expected Y".
    pub message: String,
}

impl InputError {
    pub fn new(file: impl Into<String>, message: impl Into<String>) -> Self {
        InputError {
            file: file.into(),
            line: None,
            column: None,
            field: None,
            message: message.into(),
        }
    }

    pub fn at(mut self, line: usize, column: Option<usize>) -> Self {
        self.line = Some(line);
        self.column = column;
        self
    }

    pub fn field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        if let Some(field) = &self.field {
            write!(f, ": {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for InputError {}

/// The display name of an input path: `-` is standard input.
pub fn display_name(path: &str) -> String {
    if path == "-" {
        "<stdin>".to_string()
    } else {
        path.to_string()
    }
}

pub use hpacalc_engine::quote::{
    ECHO_CHARS, LIST_NAMES, MAX_MESSAGE_CHARS, cut, cut_quoted_spans, escape_control,
    escape_terminal, name_list, quoted, quoted_bare,
};

/// The longest error message any surface shows (the terminal, an MCP error, a page): each value
/// in it is already cut to 80 characters, so only a message that echoes many is cut here.
pub const MAX_ERROR_CHARS: usize = 2_000;

/// The one way an error is shown, on every surface (the CLI's `error: ` line, MCP's error
/// results and protocol errors, the pages, `--watch`'s line): its causes on one line, each quoted
/// value cut to 80 characters with its length, control characters and line breaks escaped, and
/// the whole cut to [`MAX_ERROR_CHARS`] with its length.
pub fn shown(err: &anyhow::Error) -> String {
    shown_text(&format!("{err:#}"))
}

/// [`shown`] of a message already written out.
pub fn shown_text(message: &str) -> String {
    let message = cut_quoted_spans(message);
    let message = escape_control(&message);
    cut(&message, MAX_ERROR_CHARS).into_owned()
}

/// A parser message as "found X, expected Y" where serde's wording allows.
fn rephrase(message: &str) -> String {
    let mut out = message.to_string();
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = message.strip_prefix(prefix) {
            out = format!("found {rest}");
            break;
        }
    }
    // serde names the Rust type it wanted (`expected struct RawCustom`): say what it reads.
    if let Some(at) = out.find("expected struct ") {
        let name_end = out
            .get(at + "expected struct ".len()..)
            .and_then(|rest| rest.find(|c: char| !c.is_alphanumeric() && c != '_'))
            .map_or(out.len(), |i| at + "expected struct ".len() + i);
        out.replace_range(at..name_end, "expected an object (a mapping of fields)");
    }
    // serde's derived structs refuse a repeated field (`duplicate field `name``): say it as the
    // other inputs do.
    if let Some(key) = out
        .strip_prefix("duplicate field `")
        .and_then(|rest| rest.strip_suffix('`'))
    {
        out = repeated_key(key);
    }
    out.replace("found enum", "found a tagged value")
}

/// A serde_json error as a located input error.
pub fn json_error(file: &str, e: &serde_json::Error) -> InputError {
    let message = e.to_string().replacen(
        &format!(" at line {} column {}", e.line(), e.column()),
        "",
        1,
    );
    let message = match e.classify() {
        serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
            format!("found malformed JSON ({message}), expected the JSON kubectl prints")
        }
        _ => rephrase(&message),
    };
    let err = InputError::new(file, message);
    match (e.line(), e.column()) {
        (0, _) => err,
        // Column 0 is the start of the line (serde_json counts from 1 otherwise).
        (line, 0) => err.at(line, None),
        (line, column) => err.at(line, Some(column)),
    }
}

/// A YAML error as a located input error, with the field path the parser reports.
pub fn yaml_error(file: &str, e: &serde_yaml::Error) -> InputError {
    let mut message = e.to_string();
    let location = e.location();
    if let Some(loc) = &location {
        message = message.replacen(
            &format!(" at line {} column {}", loc.line(), loc.column()),
            "",
            1,
        );
    }
    // Data errors start with the path: `items[2].spec: invalid type: ...`.
    let (field, message) = match message.split_once(": ") {
        Some((path, rest)) if !path.contains(' ') && !path.is_empty() && path != "." => {
            (Some(path.to_string()), rest.to_string())
        }
        _ => (None, message),
    };
    let mut err = InputError::new(file, rephrase(&message));
    if let Some(loc) = location {
        err = err.at(loc.line(), Some(loc.column()));
    }
    if let Some(field) = field {
        err = err.field(field);
    }
    err
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echoed_values_are_escaped_and_cut() {
        assert_eq!(escape_control("a\u{1b}[31mb\u{7}\n"), "a\\e[31mb\\u0007\\n");
        assert_eq!(quoted("web"), "\"web\"");
        let long = "x".repeat(1000);
        assert_eq!(
            quoted(&long),
            format!("\"{}...\" (1000 characters)", "x".repeat(80))
        );
        let names: Vec<String> = (0..25).map(|i| format!("p{i}")).collect();
        let list = name_list(&names, LIST_NAMES);
        assert!(list.ends_with("p19 and 5 more"), "{list}");
    }

    #[test]
    fn located_errors_name_file_line_column_and_field() {
        let err = InputError::new("hpa.yaml", "found \"abc\", expected an integer")
            .at(12, Some(5))
            .field("spec.maxReplicas");
        assert_eq!(
            err.to_string(),
            "hpa.yaml:12:5: spec.maxReplicas: found \"abc\", expected an integer"
        );
        assert_eq!(
            InputError::new("samples.csv", "no `pod` column").to_string(),
            "samples.csv: no `pod` column"
        );
    }
}

/// A usage error found after clap parsed the flags: exit 2, like clap's own.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// `--fail-on` matched: exit 3 after the output.
#[derive(Debug, thiserror::Error)]
#[error("{count} finding(s) of severity {severity} or above (--fail-on {severity})")]
pub struct FindingsFailed {
    pub count: usize,
    pub severity: &'static str,
}

/// `hpacalc diff --fail-on` matched: exit 3 after the output, as audit's `--fail-on`.
#[derive(Debug, thiserror::Error)]
#[error("{count} change(s) got worse by --fail-on {rules}")]
pub struct DiffWorse {
    pub count: usize,
    /// The rules as given, comma-separated.
    pub rules: String,
}

/// The error for a key seen twice in one mapping. The API server's strict decoding
/// (`kjson.UnmarshalStrict` in apimachinery's serializer/json/json.go, and
/// `yaml.YAMLToJSONStrict`) refuses it; serde_json would keep the last value silently.
pub fn repeated_key(key: &str) -> String {
    format!(
        "found the key {} twice in one mapping, expected each key once (kubectl and the API \
         server refuse duplicate keys)",
        quoted(key)
    )
}
