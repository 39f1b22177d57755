//! `hpacalc --hpa FILE --print-hpa`: the normalized HPA hpacalc uses, instead of the report.

use anyhow::Result;

use crate::cli::{Cli, OutputFormat};
use crate::input::{self, PrintedHpa, Settings, Text};
use crate::render::{Exporter, Json, Yaml};
use crate::term::{terminal, warn_all, write_stdout};

pub fn run(cli: &Cli) -> Result<()> {
    let settings = Settings::from_cli(cli)?;
    let Some(path) = &cli.hpa else {
        anyhow::bail!(crate::error::UsageError("--hpa is required".to_string()));
    };
    let (printed, warnings) = input::hpa_only(&Text::read(path)?, &settings)?;
    warn_all(&warnings);
    let value = match printed {
        PrintedHpa::Keda(hpa) => hpa,
        PrintedHpa::Hpa(printed) => crate::render::hpa::to_value(&printed.0, printed.1.as_ref()),
    };
    let text = match cli.output {
        OutputFormat::Json => Json.export(&value, terminal()),
        _ => Yaml.export(&value, terminal()),
    };
    write_stdout(text.as_bytes())
}
