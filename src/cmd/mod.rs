//! The commands: one module a command, each only wiring the layers (flags → `Inputs` →
//! `Scenario` → `calc` → `Report` → an `Exporter` → the terminal), and `run`, the one match that
//! chooses (just's `src/subcommand.rs`).

pub mod audit;
pub mod diff;
pub mod evaluate;
pub mod inputs;
pub mod list;
pub mod live;
pub mod mcp;
pub mod misc;
pub mod print_hpa;
pub mod rules;
pub mod serve;
pub mod simulate;
pub mod watch;

use anyhow::Result;

use crate::cli::{AuditArgs, Cli, Command, DiffArgs, McpArgs, RulesArgs, ServeArgs, SimulateArgs};

/// What one invocation runs: a subcommand, or a mode of the top-level flags.
#[derive(Debug)]
pub enum Subcommand<'a> {
    /// One sync from files (`--hpa FILE ...`).
    Evaluate,
    /// Every HPA of a namespace (`hpacalc -n NAMESPACE`) or of the cluster (`hpacalc -A`).
    List,
    /// One sync of a live HPA (`hpacalc NAME`).
    Live(&'a str),
    /// A live HPA every sync period (`hpacalc NAME --watch`).
    Watch(&'a str),
    /// The HPA hpacalc uses (`--print-hpa`).
    PrintHpa,
    Simulate(&'a SimulateArgs),
    Audit(&'a AuditArgs),
    Diff(&'a DiffArgs),
    Serve(&'a ServeArgs),
    Mcp(&'a McpArgs),
    Schema,
    Rbac,
    Rules(&'a RulesArgs),
    Completions(clap_complete::Shell),
}

impl Subcommand<'_> {
    pub fn of(cli: &Cli) -> Subcommand<'_> {
        match (&cli.command, &cli.live_hpa) {
            (Some(Command::Completions { shell }), _) => Subcommand::Completions(*shell),
            (Some(Command::Simulate(args)), _) => Subcommand::Simulate(args),
            (Some(Command::Audit(args)), _) => Subcommand::Audit(args),
            (Some(Command::Diff(args)), _) => Subcommand::Diff(args),
            (Some(Command::Serve(args)), _) => Subcommand::Serve(args),
            (Some(Command::Mcp(args)), _) => Subcommand::Mcp(args),
            (Some(Command::Schema), _) => Subcommand::Schema,
            (Some(Command::Rbac), _) => Subcommand::Rbac,
            (Some(Command::Rules(args)), _) => Subcommand::Rules(args),
            (None, Some(name)) if cli.live.watch => Subcommand::Watch(name),
            (None, Some(name)) => Subcommand::Live(name),
            (None, None) if cli.print_hpa => Subcommand::PrintHpa,
            (None, None) if cli.hpa.is_none() => Subcommand::List,
            (None, None) => Subcommand::Evaluate,
        }
    }
}

/// Runs one invocation; everything printed on stdout is the result.
pub fn run(cli: &Cli) -> Result<()> {
    match Subcommand::of(cli) {
        Subcommand::Evaluate => evaluate::run(cli),
        Subcommand::List => list::run(cli),
        Subcommand::Live(name) => live::run(cli, name),
        Subcommand::Watch(name) => watch::run(cli, name),
        Subcommand::PrintHpa => print_hpa::run(cli),
        Subcommand::Simulate(args) => simulate::run(args),
        Subcommand::Audit(args) => audit::run(args),
        Subcommand::Diff(args) => diff::run(args),
        Subcommand::Serve(args) => serve::run(args),
        Subcommand::Mcp(args) => mcp::run(args),
        Subcommand::Schema => misc::schema(),
        Subcommand::Rbac => misc::rbac(),
        Subcommand::Rules(args) => rules::run(args),
        Subcommand::Completions(shell) => misc::completions(shell),
    }
}
