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

#[cfg(test)]
mod tests {
    use super::*;

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
