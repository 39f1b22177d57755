//! hpacalc: what the Kubernetes HorizontalPodAutoscaler controller will do at its next sync.
//!
//! Data flows one way: files and flags are parsed (`input`) into a validated [`scenario::Scenario`],
//! the pure calculation (`calc`) turns it into a [`report::Report`], and renderers (`render`) turn
//! that into a table, JSON or YAML.

pub mod audit;
pub mod cli;
pub mod error;
pub mod input;
pub mod live;
pub mod output;
pub mod render;
pub mod scenarios;
pub mod schema;

/// The engine (its own crate, free of I/O), under the paths the rest of hpacalc names it by.
pub use hpacalc_engine::{calc, formula, quantity, quote, report, scenario, time, version};

use std::io::{self, Write};

use anyhow::Result;
use clap::CommandFactory;

use crate::cli::{Cli, Command, OutputFormat, SimulateArgs, TimelineFormat};

/// Exit codes, in one place: 0 computed, 1 bad input, 2 usage (clap's own).
pub mod exit_codes {
    pub const BAD_INPUT: u8 = 1;
    pub const USAGE: u8 = 2;
    /// `hpacalc audit --fail-on`: a finding of that severity exists.
    pub const FINDINGS: u8 = 3;
}

/// Runs one invocation; everything printed on stdout is the result.
pub fn run(cli: &Cli) -> Result<()> {
    if let Some(Command::Completions { shell }) = &cli.command {
        let mut out = Vec::new();
        clap_complete::generate(*shell, &mut Cli::command(), "hpacalc", &mut out);
        return write_stdout(&out);
    }
    if let Some(Command::Simulate(args)) = &cli.command {
        return simulate(args);
    }
    if let Some(Command::Audit(args)) = &cli.command {
        return audit::run(args);
    }
    if let Some(Command::Schema) = &cli.command {
        let text = serde_json::to_string_pretty(&schema::all())? + "\n";
        return write_stdout(text.as_bytes());
    }
    if let Some(Command::Rbac) = &cli.command {
        return write_stdout(input::live::rbac::CLUSTER_ROLE.as_bytes());
    }
    if let Some(name) = &cli.live_hpa {
        return live::run(cli, name);
    }
    if cli.print_hpa {
        let (printed, warnings) = input::hpa_only(cli)?;
        for w in &warnings {
            warn(w);
        }
        let text = match (printed, cli.output) {
            (input::PrintedHpa::Keda(hpa), OutputFormat::Json) => {
                serde_json::to_string_pretty(&hpa)? + "\n"
            }
            (input::PrintedHpa::Keda(hpa), _) => serde_yaml::to_string(&hpa)?,
            (input::PrintedHpa::Hpa(printed), OutputFormat::Json) => {
                render::hpa::render_json(&printed.0, printed.1.as_ref())
            }
            (input::PrintedHpa::Hpa(printed), _) => {
                render::hpa::render_yaml(&printed.0, printed.1.as_ref())
            }
        };
        return write_stdout(text.as_bytes());
    }
    let scenario = input::build_scenario(cli)?;
    for w in &scenario.warnings {
        warn(w);
    }
    let report = calc::evaluate(&scenario);
    write_stdout(render_report(&report, cli.output).as_bytes())
}

/// The report in the format of `-o`.
pub(crate) fn render_report(report: &report::Report, output: OutputFormat) -> String {
    match output {
        OutputFormat::Table | OutputFormat::Wide => render::table::render(
            report,
            render::table::Layout {
                wide: output == OutputFormat::Wide,
                color: color_enabled(),
                width: terminal_width(),
            },
        ),
        OutputFormat::Json => render::json::render(report),
        OutputFormat::Yaml => render::json::render_yaml(report),
    }
}

/// `hpacalc simulate`: the controller over time; the chart is written before anything is printed.
fn simulate(args: &SimulateArgs) -> Result<()> {
    if args.scenario.as_deref() == Some("list") {
        let list: Vec<(&str, &str)> = scenarios::ALL.iter().map(|s| (s.name, s.notice)).collect();
        return write_stdout(render::timeline::scenario_list(&list, terminal_width()).as_bytes());
    }
    let inputs = [
        ("--hpa", &args.hpa),
        ("--load", &args.load),
        ("--actual-file", &args.replay.actual_file),
    ];
    let inputs: Vec<output::Input<'_>> = inputs
        .iter()
        .filter_map(|(flag, p)| p.as_deref().map(|path| output::Input { flag, path }))
        .collect();
    if let Some(path) = &args.chart {
        output::check_target("--chart", path, &inputs)?;
    }
    if let Some(path) = &args.html {
        output::check_target("--html", path, &inputs)?;
    }
    let setup = input::load::build(args)?;
    let sim = match &args.html {
        None => calc::simulate::run(&setup),
        Some(path) => {
            let mut reports = render::html::SyncReports::new(setup.sync_count());
            let mut observe = |row: &calc::simulate::SyncRow,
                               build: &dyn Fn() -> report::Report| {
                reports.observe(row, build);
            };
            let sim = calc::simulate::run_observed(&setup, Some(&mut observe));
            let page = render::html::render(&sim, &reports);
            output::write_file("--html", path, page.as_bytes(), &inputs)?;
            sim
        }
    };
    if let Some(path) = &args.chart {
        output::write_file(
            "--chart",
            path,
            render::chart::render(&sim).as_bytes(),
            &inputs,
        )?;
    }
    let text = match args.output {
        TimelineFormat::Table => render::timeline::table(
            &sim,
            render::timeline::Layout {
                color: color_enabled(),
                width: terminal_width(),
            },
        ),
        TimelineFormat::Json => render::timeline::json(&sim),
        TimelineFormat::Csv => render::timeline::csv(&sim),
    };
    write_stdout(text.as_bytes())
}

/// A usage error found after clap parsed the flags: exit 2, like clap's own.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

pub fn exit_code(err: &anyhow::Error) -> u8 {
    if err.downcast_ref::<UsageError>().is_some() {
        exit_codes::USAGE
    } else if err.downcast_ref::<audit::FindingsFailed>().is_some() {
        exit_codes::FINDINGS
    } else {
        exit_codes::BAD_INPUT
    }
}

pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.downcast_ref::<io::Error>()
        .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
}

pub(crate) fn write_stdout(bytes: &[u8]) -> Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| anyhow::Error::new(e).context("cannot write to stdout"))
}

/// Prints a clap outcome (help, version, usage error) without panicking on a closed or full
/// stream, and returns its exit code: a broken pipe keeps clap's code, another write error is 1.
pub fn clap_exit_code(err: &clap::Error) -> u8 {
    let code = u8::try_from(err.exit_code()).unwrap_or(exit_codes::USAGE);
    match err.print() {
        Ok(()) => code,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => code,
        // Help that could not be written is a failure; an error keeps its own code.
        Err(_) if code == 0 => exit_codes::BAD_INPUT,
        Err(_) => code,
    }
}

/// Prints `error: ...` on stderr; a stderr that cannot be written to is not a second error.
pub fn print_error(err: &anyhow::Error) {
    let style = anstyle::Style::new()
        .bold()
        .fg_color(Some(anstyle::AnsiColor::Red.into()));
    let message = format!("{err:#}");
    let message = error::escape_terminal(&message);
    let _ = writeln!(anstream::stderr(), "{style}error{style:#}: {message}");
}

/// Colour on a terminal unless NO_COLOR is set (anstream also honours CLICOLOR_FORCE).
fn color_enabled() -> bool {
    anstream::AutoStream::choice(&io::stdout()) != anstream::ColorChoice::Never
}

/// `COLUMNS` when set (tests set it for stable snapshots), else 120.
pub(crate) fn terminal_width() -> u16 {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .filter(|&w: &u16| w >= 40)
        .unwrap_or(120)
}

pub(crate) fn warn(message: &str) {
    let style = anstyle::Style::new()
        .bold()
        .fg_color(Some(anstyle::AnsiColor::Yellow.into()));
    // A full or closed stderr loses the warning, never the result on stdout.
    let message = error::escape_terminal(message);
    let _ = writeln!(anstream::stderr(), "{style}warning{style:#}: {message}");
}
