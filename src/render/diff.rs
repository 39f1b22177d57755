//! `hpacalc diff` as text: per changed HPA its behaviour's changes, its hold bands where they
//! differ and the figures of both runs; as tables for a terminal, or as Markdown for a
//! pull-request comment. Pure: every value is the engine's (`calc::diff`). Names and values come
//! from the manifests: each goes through the encoder of its language (`render::escape`), control
//! bytes shown in the tables, Markdown's syntax escaped in the comment.

use std::fmt::Write;

use crate::calc::diff::{DiffReport, HpaDiff};
use crate::calc::simulate::compare::Figures;
use crate::render::Terminal;
use crate::render::compare::{FIGURES, figure_cells};
use crate::render::escape::{markdown as md, markdown_code as code, terminal as shown};
use crate::render::table::{new_table, push_table};

/// One row a figure: its name, and how each side writes it (the comparison's cells).
fn figure_rows(old: &Figures, new: &Figures) -> Vec<[String; 3]> {
    let time = |t: i64| format!("{t}s");
    let (a, b) = (figure_cells(old, &time), figure_cells(new, &time));
    (FIGURES.iter().zip(a).zip(b))
        .map(|((name, x), y)| [(*name).to_string(), x, y])
        .collect()
}

/// The HPAs with their status, then each changed one's tables.
pub fn table(d: &DiffReport, terminal: Terminal) -> String {
    let mut out = String::new();
    let mut list = new_table(&["HPA", "STATUS", "CHANGES"], terminal.width);
    for h in &d.hpas {
        list.add_row(vec![
            shown(&h.hpa).into_owned(),
            h.status.clone(),
            h.changes.len().to_string(),
        ]);
    }
    push_table(&mut out, &list);
    for h in d.hpas.iter().filter(|h| h.status != "unchanged") {
        let _ = writeln!(out, "\n{} ({})", shown(&h.hpa), h.status);
        if !h.changes.is_empty() {
            let mut t = new_table(&["FIELD", "OLD", "NEW"], terminal.width);
            for c in &h.changes {
                t.add_row(
                    [&c.field, &c.old, &c.new]
                        .map(|v| shown(v).into_owned())
                        .to_vec(),
                );
            }
            push_table(&mut out, &t);
        }
        if !h.flips.is_empty() {
            out.push('\n');
            let mut t = new_table(&["REPLICAS", "OLD HOLDS", "NEW HOLDS"], terminal.width);
            for f in &h.flips {
                t.add_row(vec![
                    f.replicas.to_string(),
                    shown(&f.old).into_owned(),
                    shown(&f.new).into_owned(),
                ]);
            }
            push_table(&mut out, &t);
        }
        if let (Some(a), Some(b)) = (&h.old_decision, &h.new_decision) {
            out.push('\n');
            let mut t = new_table(&["CAPTURE", "DESIRED", "DECISION"], terminal.width);
            for (side, d) in [("old", a), ("new", b)] {
                t.add_row(vec![
                    side.to_string(),
                    format!("{} → {}", d.current_replicas, d.desired_replicas),
                    shown(&d.summary).into_owned(),
                ]);
            }
            push_table(&mut out, &t);
        }
        if let (Some(a), Some(b)) = (&h.old_figures, &h.new_figures) {
            out.push('\n');
            let mut t = new_table(&["FIGURE", "OLD", "NEW"], terminal.width);
            for row in figure_rows(a, b) {
                t.add_row(row.to_vec());
            }
            push_table(&mut out, &t);
        }
    }
    for w in &d.worse {
        let _ = writeln!(
            out,
            "\nworse: {} by --fail-on {}: {}",
            shown(&w.hpa),
            w.rule,
            shown(&w.detail)
        );
    }
    out
}

/// A pull-request comment: a summary line, then per changed HPA what changed, what that does
/// to the hold band at each replica count, and the figures on the load.
pub fn markdown(d: &DiffReport) -> String {
    let mut out = String::from("## hpacalc diff\n\n");
    let changed: Vec<&HpaDiff> = d.hpas.iter().filter(|h| h.status != "unchanged").collect();
    let _ = writeln!(out, "{} HPA(s), {} changed.\n", d.hpas.len(), changed.len());
    if !d.worse.is_empty() {
        out.push_str("**Worse by `--fail-on`:**\n\n");
        for w in &d.worse {
            let _ = writeln!(out, "- {}: {} (`{}`)", code(&w.hpa), md(&w.detail), w.rule);
        }
        out.push('\n');
    }
    for h in changed {
        let _ = writeln!(out, "### {} ({})\n", code(&h.hpa), h.status);
        if !h.changes.is_empty() {
            out.push_str("| field | old | new |\n|---|---|---|\n");
            for c in &h.changes {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} |",
                    md(&c.field),
                    md(&c.old),
                    md(&c.new)
                );
            }
            out.push('\n');
        }
        if !h.flips.is_empty() {
            out.push_str("The first metric's values that keep each replica count:\n\n");
            out.push_str("| replicas | old holds | new holds |\n|---|---|---|\n");
            for f in &h.flips {
                let _ = writeln!(out, "| {} | {} | {} |", f.replicas, md(&f.old), md(&f.new));
            }
            out.push('\n');
        }
        if let (Some(a), Some(b)) = (&h.old_decision, &h.new_decision) {
            out.push_str("On the capture:\n\n| | desired replicas | decision |\n|---|---|---|\n");
            for (side, d) in [("old", a), ("new", b)] {
                let _ = writeln!(
                    out,
                    "| {side} | {} → {} | {} |",
                    d.current_replicas,
                    d.desired_replicas,
                    md(&d.summary)
                );
            }
            out.push('\n');
        }
        if let (Some(a), Some(b)) = (&h.old_figures, &h.new_figures) {
            out.push_str("On the load:\n\n| figure | old | new |\n|---|---|---|\n");
            for [name, x, y] in figure_rows(a, b) {
                let _ = writeln!(out, "| {name} | {} | {} |", md(&x), md(&y));
            }
            out.push('\n');
        }
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}
