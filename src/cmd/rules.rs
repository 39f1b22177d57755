//! `hpacalc rules`: the flags validated, the rules rendered (`crate::rules`), printed.

use anyhow::Result;

use crate::cli::RulesArgs;
use crate::error::InputError;
use crate::rules::{RulesFormat, render};
use crate::term::write_stdout;

pub fn run(args: &RulesArgs) -> Result<()> {
    let sync_period = crate::input::flag_duration("--sync-period", &args.sync_period)?;
    if sync_period.0 <= 0 {
        return Err(InputError::new(
            "--sync-period",
            format!(
                "found {}, expected a positive duration",
                crate::error::quoted(&args.sync_period)
            ),
        )
        .into());
    }
    crate::rules::check_sync_period(sync_period)
        .map_err(|e| InputError::new("--sync-period", e))?;
    let format = if args.prometheus_rule {
        RulesFormat::PrometheusRule
    } else {
        RulesFormat::Plain
    };
    if args.job.is_empty() {
        return Err(InputError::new(
            "--job",
            "found an empty name, expected the scrape job's name",
        )
        .into());
    }
    write_stdout(render(format, sync_period, &args.job)?.as_bytes())
}
