//! `hpacalc diff OLD NEW`: both sides' files read, compared by `work::diff`, the report printed,
//! and exit 3 when a `--fail-on` rule finds one side worse.

use anyhow::Result;

use crate::calc::diff::DiffReport;
use crate::cli::{DiffArgs, DiffFormat};
use crate::error::DiffWorse;
use crate::input::Text;
use crate::render::{Exporter, Json, Markdown, Table};
use crate::term::{terminal, warn_all, write_stdout};
use crate::work::diff::{DiffInputs, diff_texts};

/// Both sides read, every HPA compared, the report printed, then exit 3 if one got worse.
pub fn run(args: &DiffArgs) -> Result<()> {
    let read = |p: Option<&std::path::Path>| p.map(Text::read).transpose();
    let inputs = DiffInputs {
        old: files(&args.old)?,
        new: files(&args.new)?,
        fail_on: args.fail_on.clone(),
        load: read(args.load.as_deref())?,
        load_map: args.load_map.clone(),
        actual: read(args.actual_file.as_deref())?,
        pod_request: args.pod_request.clone(),
        replicas: args.replicas,
        duration: args.duration.clone(),
        pods: read(args.pods.as_deref())?,
        metrics: read(args.metrics.as_deref())?,
        now: args.now.clone(),
        controller: args.controller.clone(),
        bounds: crate::work::bounds::Bounds::default(),
    };
    let (report, warnings) = diff_texts(&inputs)?;
    warn_all(&warnings);
    let exporter: Box<dyn Exporter<DiffReport>> = match args.output {
        DiffFormat::Table => Box::new(Table::default()),
        DiffFormat::Json => Box::new(Json),
        DiffFormat::Markdown => Box::new(Markdown),
    };
    write_stdout(exporter.export(&report, terminal()).as_bytes())?;
    if !report.worse.is_empty() {
        return Err(DiffWorse {
            count: report.worse.len(),
            rules: args.fail_on.join(","),
        }
        .into());
    }
    Ok(())
}

/// The manifests of a file or folder, each file's text.
fn files(path: &std::path::Path) -> Result<Vec<Text>> {
    let mut files = Vec::new();
    for file in crate::input::cluster::manifests::files(path)? {
        let (name, text) = crate::input::read_input(&file)?;
        files.push(Text::new(name, text));
    }
    Ok(files)
}
