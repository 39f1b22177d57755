//! The controller's past, from every input that records it: `--history` (CSV), `--events`
//! (`kubectl get events`), and the Events section of pasted describe text. One memory comes out,
//! with what was assumed and where it came from.

use anyhow::Result;

use super::history;
use super::inputs::Text;
use super::paste::events::{self, HpaEvent};
use crate::report::{Diagnostic, FactSource};
use crate::scenario::{BoundedRecommendation, ControllerMemory, HpaSpec};
use crate::time::{Duration, Timestamp};

/// The memory and what goes with it into the `Scenario`.
#[derive(Debug, Default)]
pub struct Past {
    /// `None`: steady load is assumed.
    pub memory: Option<ControllerMemory>,
    /// The recommendations of `memory` that events give only as bounds.
    pub bounded: Vec<BoundedRecommendation>,
    pub notes: Vec<String>,
    pub warnings: Vec<String>,
    pub diagnostics: Vec<Diagnostic>,
    /// The `history` entries of the report's `sources`.
    pub sources: Vec<FactSource>,
}

/// The newest time of `--events` (`lastTimestamp`, `eventTime`, ...; not the ages of a table
/// or of describe text, which count back from the capture), with its file: the capture cannot
/// predate it.
pub fn newest_time(events: Option<&Text>) -> Result<Option<(Timestamp, String)>> {
    let Some(Text { name: file, text }) = events else {
        return Ok(None);
    };
    let list = events::parse(file, text)?;
    let newest = (list.iter()).filter(|e| !e.relative).map(|e| e.last).max();
    Ok(newest.map(|t| (t, file.clone())))
}

/// Reads `--history` and `--events`; without `--events`, the describe text's events (`pasted`,
/// from `hpa_file`) stand in for them.
pub fn read(
    history: Option<&Text>,
    events: Option<&Text>,
    hpa: &HpaSpec,
    pasted: Vec<HpaEvent>,
    hpa_file: Option<&str>,
    downscale_window: Duration,
    now: Timestamp,
) -> Result<Past> {
    let mut past = Past::default();
    if let Some(Text { name: file, text }) = history {
        past.sources
            .push(FactSource::new("history", "history CSV", Some(file)));
        past.memory = Some(history::parse(file, text, now)?);
    }
    let (label, list): (String, Vec<HpaEvent>) = match events {
        Some(Text { name: file, text }) => {
            if !pasted.is_empty() {
                past.notes.push(format!(
                    "The describe text's Events section is left out: --events {file} has the \
                     events with their exact times."
                ));
            }
            past.sources
                .push(FactSource::new("history", "kubectl get events", Some(file)));
            let list = events::parse(file, text)?
                .into_iter()
                .map(|e| e.at(now))
                .collect();
            (file.clone(), list)
        }
        None if !pasted.is_empty() => {
            past.sources.push(FactSource::new(
                "history",
                "kubectl describe hpa events",
                hpa_file,
            ));
            let list = pasted.into_iter().map(|e| e.at(now)).collect();
            ("the describe text's Events".to_string(), list)
        }
        None => {
            if past.sources.is_empty() {
                past.sources
                    .push(FactSource::new("history", "assumed", None));
            }
            return Ok(past);
        }
    };
    let longest = events::longest_window(hpa, downscale_window);
    let from_events = events::to_history(&list, hpa, now, longest, &label);
    past.bounded = from_events.bounded;
    past.memory = match (past.memory.take(), from_events.memory) {
        (Some(mut csv), Some(ev)) => {
            let added = events::merge(&mut csv, &ev);
            past.bounded.retain(|b| added.contains(&b.timestamp));
            past.notes.push(
                "--history and --events merged: the CSV's rows are kept, and each rescale of the \
                 events is added unless the CSV has a scale event at the same second."
                    .to_string(),
            );
            Some(csv)
        }
        (csv, ev) => csv.or(ev),
    };
    past.notes.extend(from_events.notes);
    past.warnings.extend(from_events.warnings);
    past.diagnostics.extend(from_events.diagnostics);
    Ok(past)
}
