//! The commands that print what hpacalc knows of itself: `schema`, `rbac`, `completions`.

use anyhow::Result;
use clap::CommandFactory;

use crate::cli::Cli;
use crate::term::write_stdout;

/// `hpacalc schema`: the JSON Schema of every JSON output.
pub fn schema() -> Result<()> {
    let text = serde_json::to_string_pretty(&crate::schema::all())? + "\n";
    write_stdout(text.as_bytes())
}

/// `hpacalc rbac`: the read-only ClusterRole live mode needs.
pub fn rbac() -> Result<()> {
    write_stdout(crate::input::live::rbac::CLUSTER_ROLE.as_bytes())
}

/// `hpacalc completions SHELL`.
pub fn completions(shell: clap_complete::Shell) -> Result<()> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "hpacalc", &mut out);
    write_stdout(&out)
}
