//! The terminal, at the bottom of the command layer: stdout (a broken pipe is success), stderr's
//! warnings and errors (control bytes escaped), colour (NO_COLOR, CLICOLOR_FORCE) and width.

use std::io::{self, Write};

use anyhow::Result;

use crate::render::Terminal;

/// Writes the run's result; everything on stdout is the result.
pub fn write_stdout(bytes: &[u8]) -> Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| anyhow::Error::new(e).context("cannot write to stdout"))
}

/// Whether an error is stdout closed by the reader (`hpacalc ... | head`): that is success.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.downcast_ref::<io::Error>()
        .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
}

/// Prints a clap outcome (help, version, usage error) without panicking on a closed or full
/// stream, and returns its exit code: a broken pipe keeps clap's code, another write error is 1.
pub fn clap_exit_code(err: &clap::Error) -> u8 {
    let code = u8::try_from(err.exit_code()).unwrap_or(crate::exit_codes::USAGE);
    let printed = if err.use_stderr() {
        // A usage error quotes what was given (`invalid value '...'`): quoted as every error is.
        let text = clap_error_text(&err.render().to_string());
        write!(anstream::stderr(), "{text}")
    } else {
        err.print()
    };
    match printed {
        Ok(()) => code,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => code,
        // Help that could not be written is a failure; an error keeps its own code.
        Err(_) if code == 0 => crate::exit_codes::BAD_INPUT,
        Err(_) => code,
    }
}

/// clap's usage error, plain, each value it quotes between `'` cut to 80 characters with its
/// length and control characters escaped; its lines kept.
fn clap_error_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(8 * 1024));
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        let mut parts = body.split('\'');
        out.push_str(parts.next().unwrap_or(""));
        for (i, part) in parts.enumerate() {
            out.push('\'');
            // Odd parts are inside quotes: a value from the command line.
            if i % 2 == 0 {
                out.push_str(&cut_value(part));
            } else {
                out.push_str(part);
            }
        }
        out.push_str(end);
    }
    out
}

/// A value clap quotes, as `error::quoted_bare` shows it.
fn cut_value(value: &str) -> std::borrow::Cow<'_, str> {
    if value.chars().count() <= crate::error::ECHO_CHARS && !value.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(value);
    }
    std::borrow::Cow::Owned(crate::error::quoted_bare(value))
}

/// Prints `error: ...` on stderr; a stderr that cannot be written to is not a second error.
pub fn print_error(err: &anyhow::Error) {
    let style = anstyle::Style::new()
        .bold()
        .fg_color(Some(anstyle::AnsiColor::Red.into()));
    let message = crate::error::shown(err);
    let _ = writeln!(anstream::stderr(), "{style}error{style:#}: {message}");
}

/// How stderr's warnings and log lines are written: text for a person, or, for `hpacalc serve
/// --log-format json`, one JSON object a line (`time`, `level`, `message`) for a log collector.
static JSON_LOGS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Writes stderr's warnings and log lines as JSON from now on.
pub fn log_json() {
    JSON_LOGS.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// One JSON log line, when logs are JSON: `true` when it was written.
fn json_line(level: &str, message: &str) -> bool {
    if !JSON_LOGS.load(std::sync::atomic::Ordering::SeqCst) {
        return false;
    }
    let time = jiff::Timestamp::now().to_string();
    let line = serde_json::json!({"time": time, "level": level, "message": message});
    let _ = writeln!(io::stderr(), "{line}");
    true
}

/// Prints `warning: ...` on stderr.
pub fn warn(message: &str) {
    if json_line("warning", message) {
        return;
    }
    let style = anstyle::Style::new()
        .bold()
        .fg_color(Some(anstyle::AnsiColor::Yellow.into()));
    // A full or closed stderr loses the warning, never the result on stdout.
    let message = crate::error::cut_quoted_spans(message);
    let message = crate::error::escape_terminal(&message);
    let _ = writeln!(anstream::stderr(), "{style}warning{style:#}: {message}");
}

/// Prints a log line (`-v`'s requests) on stderr, escaped as warnings are.
pub fn log(message: &str) {
    if json_line("info", message) {
        return;
    }
    let message = crate::error::escape_terminal(message);
    let _ = writeln!(anstream::stderr(), "{message}");
}

/// Prints each warning.
pub fn warn_all(warnings: &[String]) {
    for w in warnings {
        warn(w);
    }
}

/// What the renderers need of the terminal: colour on a terminal unless NO_COLOR is set
/// (anstream also honours CLICOLOR_FORCE), and the width (see [`width`]).
pub fn terminal() -> Terminal {
    Terminal {
        color: anstream::AutoStream::choice(&io::stdout()) != anstream::ColorChoice::Never,
        width: width(),
    }
}

/// Whether stdout is a terminal (a person reads it; a pipe or a file is read by a program).
pub fn stdout_is_terminal() -> bool {
    io::IsTerminal::is_terminal(&io::stdout())
}

/// The width without a terminal or `COLUMNS`: a table still fits beside a side panel.
const DEFAULT_WIDTH: u16 = 100;
/// Narrower than this, the step table's details would be a word a line: the width is raised.
const MIN_WIDTH: u16 = 40;

/// The width of the output: the terminal's when stdout is one (bash sets `COLUMNS` but does not
/// export it, so a program never sees it unless the user exports it), else `COLUMNS` (tests set
/// it for stable snapshots), else 100.
fn width() -> u16 {
    let from_terminal = terminal_size::terminal_size_of(io::stdout()).map(|(w, _)| w.0);
    let from_env = || {
        std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.trim().parse::<u16>().ok())
    };
    choose_width(from_terminal, from_env)
}

/// The first width known, at least [`MIN_WIDTH`].
fn choose_width(terminal: Option<u16>, columns: impl FnOnce() -> Option<u16>) -> u16 {
    terminal
        .filter(|&w| w > 0)
        .or_else(columns)
        .unwrap_or(DEFAULT_WIDTH)
        .max(MIN_WIDTH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_terminal_width_wins_then_columns_then_100() {
        assert_eq!(choose_width(Some(80), || Some(150)), 80);
        assert_eq!(choose_width(None, || Some(150)), 150);
        assert_eq!(choose_width(Some(0), || Some(90)), 90);
        assert_eq!(choose_width(None, || None), 100);
        assert_eq!(choose_width(Some(20), || None), 40);
        assert_eq!(choose_width(None, || Some(10)), 40);
    }
}
