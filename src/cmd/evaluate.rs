//! `hpacalc --hpa FILE ...`: one sync from files.

use anyhow::Result;

use crate::calc;
use crate::cli::{Cli, OutputFormat};
use crate::input::{self, Inputs};
use crate::render::{Exporter, Json, Table, Yaml};
use crate::report::Report;
use crate::term::{terminal, warn_all, write_stdout};

pub fn run(cli: &Cli) -> Result<()> {
    let scenario = input::build(Inputs::from_cli(cli)?)?;
    warn_all(&scenario.warnings);
    let report = calc::evaluate(&scenario);
    write_stdout(
        report_exporter(cli.output)
            .export(&report, terminal())
            .as_bytes(),
    )
}

/// The report's format, as `-o` names it.
pub fn report_exporter(output: OutputFormat) -> Box<dyn Exporter<Report>> {
    match output {
        OutputFormat::Table => Box::new(Table { wide: false }),
        OutputFormat::Wide => Box::new(Table { wide: true }),
        OutputFormat::Json => Box::new(Json),
        OutputFormat::Yaml => Box::new(Yaml),
    }
}
