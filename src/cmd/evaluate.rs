//! `hpacalc --hpa FILE ...`: one sync from files; with what-if flags, the same sync before and
//! after the change.

use anyhow::Result;

use crate::calc;
use crate::cli::{Cli, OutputFormat};
use crate::input::what_if::WhatIf;
use crate::input::{self, Inputs, Settings};
use crate::render::{Brief, Exporter, Json, Markdown, Table, Yaml};
use crate::report::Report;
use crate::report::what_if::WhatIfReport;
use crate::term::{terminal, warn_all, write_stdout};

pub fn run(cli: &Cli) -> Result<()> {
    let inputs = Inputs::from_cli(cli)?;
    let what_if =
        crate::cmd::simulate::what_if_of(&cli.what_if).then(&WhatIf::parse(&cli.what_if_changes)?);
    if !what_if.is_empty() {
        return before_and_after(cli, inputs, &what_if);
    }
    let scenario = input::build(inputs)?;
    warn_all(&scenario.warnings);
    let report = calc::evaluate(&scenario);
    write_stdout(
        report_exporter(cli.output)
            .export(&report, terminal())
            .as_bytes(),
    )
}

/// The sync as given and the same inputs with the changes, each its own evaluation.
fn before_and_after(cli: &Cli, inputs: Inputs, what_if: &WhatIf) -> Result<()> {
    let mut changed = inputs.clone();
    if what_if.set_limit.is_empty() {
        changed.settings = Settings::from_cli_with(cli, what_if)?;
    }
    let (report, warnings) = crate::work::what_if::before_and_after(inputs, changed, what_if)?;
    warn_all(&warnings);
    let exporter: Box<dyn Exporter<WhatIfReport>> = match cli.output {
        OutputFormat::Table => Box::new(Table { wide: false }),
        OutputFormat::Wide => Box::new(Table { wide: true }),
        OutputFormat::Json => Box::new(Json),
        OutputFormat::Yaml => Box::new(Yaml),
        OutputFormat::Summary => Box::new(Brief),
        OutputFormat::Markdown => Box::new(Markdown),
    };
    write_stdout(exporter.export(&report, terminal()).as_bytes())
}

/// The report's format, as `-o` names it.
pub fn report_exporter(output: OutputFormat) -> Box<dyn Exporter<Report>> {
    match output {
        OutputFormat::Table => Box::new(Table { wide: false }),
        OutputFormat::Wide => Box::new(Table { wide: true }),
        OutputFormat::Json => Box::new(Json),
        OutputFormat::Yaml => Box::new(Yaml),
        OutputFormat::Summary => Box::new(Brief),
        OutputFormat::Markdown => Box::new(Markdown),
    }
}
