//! Renderers: pure functions of a `Report` (one sync), a `Simulation` (over time) or an
//! `AuditReport` (a fleet) to the text printed. Every output format is one `Exporter`
//! (hyperfine's `src/export/mod.rs`), chosen once by `-o` in the command layer.

pub mod chart;
pub mod compare;
pub mod diff;
pub mod escape;
pub mod fleet;
pub mod fleet_page;
pub mod headline;
pub mod history;
pub mod hpa;
pub mod html;
pub mod karpenter;
pub mod list;
pub mod markdown;
pub mod node_groups;
pub mod page;
pub mod series;
pub mod simulator;
pub mod summary;
pub mod table;
pub mod timeline;

use std::collections::HashMap;

use serde::Serialize;

use crate::calc::simulate::Simulation;
use crate::calc::simulate::compare::Comparison;
use crate::report::Report;
use crate::report::fleet::AuditReport;

/// What the renderers need of the terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Terminal {
    pub color: bool,
    /// Total width in columns.
    pub width: u16,
}

/// One output format of `T`: the value in, the text printed out.
pub trait Exporter<T: ?Sized> {
    fn export(&self, value: &T, terminal: Terminal) -> String;
}

/// The step-by-step table (one sync), the timeline (a simulation) or the HPA table (a fleet);
/// `wide` adds each pod's class, or each HPA's metrics.
#[derive(Debug, Clone, Copy, Default)]
pub struct Table {
    pub wide: bool,
}

/// A simulation's or a comparison's table: the syncs where something changes, or every sync,
/// and on a terminal a sparkline of desired replicas above them.
#[derive(Debug, Clone, Copy, Default)]
pub struct Timeline(pub timeline::Rows);

/// The value as one pretty-printed JSON object.
#[derive(Debug, Clone, Copy)]
pub struct Json;

/// The same object as YAML.
#[derive(Debug, Clone, Copy)]
pub struct Yaml;

/// Markdown, for a pull-request comment.
#[derive(Debug, Clone, Copy)]
pub struct Markdown;

/// The answer alone (`--brief`, `-o summary`): the decision line, the first WHY line and one
/// line per other cause.
#[derive(Debug, Clone, Copy)]
pub struct Brief;

/// One row per sync, for spreadsheets.
#[derive(Debug, Clone, Copy)]
pub struct Csv;

/// SARIF 2.1.0: each finding at the place its HPA was read (`namespace/name` → `file:line`).
#[derive(Debug, Clone, Copy)]
pub struct Sarif<'a> {
    pub places: &'a HashMap<String, String>,
}

impl<T: Serialize + ?Sized> Exporter<T> for Json {
    fn export(&self, value: &T, _: Terminal) -> String {
        let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
        text.push('\n');
        text
    }
}

impl<T: Serialize + ?Sized> Exporter<T> for Yaml {
    fn export(&self, value: &T, _: Terminal) -> String {
        serde_yaml::to_string(value).unwrap_or_default()
    }
}

impl Exporter<Report> for Table {
    fn export(&self, report: &Report, terminal: Terminal) -> String {
        table::render(report, self.wide, terminal)
    }
}

impl Exporter<Report> for Brief {
    fn export(&self, report: &Report, terminal: Terminal) -> String {
        headline::brief(report, terminal.width)
    }
}

impl Exporter<Report> for Markdown {
    fn export(&self, report: &Report, _: Terminal) -> String {
        markdown::report(report)
    }
}

impl Exporter<crate::report::what_if::WhatIfReport> for Brief {
    fn export(&self, r: &crate::report::what_if::WhatIfReport, terminal: Terminal) -> String {
        let mut out = compare::what_if_line(r, terminal.width);
        out.push_str(&headline::brief(&r.after, terminal.width));
        out
    }
}

impl Exporter<crate::report::what_if::WhatIfReport> for Markdown {
    fn export(&self, r: &crate::report::what_if::WhatIfReport, _: Terminal) -> String {
        let mut out = format!(
            "{}\n\n#### Before\n\n",
            escape::markdown(compare::what_if_line(r, u16::MAX).trim_end())
        );
        out.push_str(&markdown::report(&r.before));
        let _ = std::fmt::Write::write_fmt(
            &mut out,
            format_args!(
                "\n#### What if: {}\n\n",
                escape::markdown(&r.changes.join(", "))
            ),
        );
        out.push_str(&markdown::report(&r.after));
        out
    }
}

impl Exporter<AuditReport> for Markdown {
    fn export(&self, audit: &AuditReport, _: Terminal) -> String {
        markdown::audit(audit)
    }
}

impl Exporter<Simulation> for Table {
    fn export(&self, sim: &Simulation, terminal: Terminal) -> String {
        timeline::table(sim, terminal)
    }
}

impl Exporter<crate::report::what_if::WhatIfReport> for Table {
    fn export(&self, r: &crate::report::what_if::WhatIfReport, terminal: Terminal) -> String {
        compare::what_if_table(r, self.wide, terminal)
    }
}

impl Exporter<crate::calc::diff::DiffReport> for Table {
    fn export(&self, d: &crate::calc::diff::DiffReport, terminal: Terminal) -> String {
        diff::table(d, terminal)
    }
}

impl Exporter<crate::calc::diff::DiffReport> for Markdown {
    fn export(&self, d: &crate::calc::diff::DiffReport, _: Terminal) -> String {
        diff::markdown(d)
    }
}

impl Exporter<Comparison> for Table {
    fn export(&self, cmp: &Comparison, terminal: Terminal) -> String {
        compare::table(cmp, terminal)
    }
}

impl Exporter<Simulation> for Timeline {
    fn export(&self, sim: &Simulation, terminal: Terminal) -> String {
        timeline::table_with(sim, terminal, self.0)
    }
}

impl Exporter<Comparison> for Timeline {
    fn export(&self, cmp: &Comparison, terminal: Terminal) -> String {
        compare::table_with(cmp, terminal, self.0)
    }
}

impl Exporter<Simulation> for Csv {
    fn export(&self, sim: &Simulation, _: Terminal) -> String {
        timeline::csv(sim)
    }
}

impl Exporter<AuditReport> for Table {
    fn export(&self, audit: &AuditReport, terminal: Terminal) -> String {
        fleet::table(audit, self.wide, terminal.width)
    }
}

impl Exporter<AuditReport> for Sarif<'_> {
    fn export(&self, audit: &AuditReport, _: Terminal) -> String {
        fleet::sarif(audit, self.places)
    }
}
