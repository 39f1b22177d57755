//! `/calc` of `hpacalc serve --offline`: a form's fields filled into `Inputs`
//! (`input::form`), built and evaluated as the command line builds and evaluates them, and the
//! page rendered (`render::page`). An input error is the page with the CLI's message, 422.

use anyhow::Result;

use super::http::{Reply, html};
use crate::calc;
use crate::input::form::{self, PASTED_FIELDS, UNIFORM_FIELDS, Uniform};
use crate::input::sim_form::{Source, Stepping};
use crate::input::{self, Inputs};
use crate::render::page::{self, Answer, Form};
use crate::report::Report;

/// What a request asks the calculator.
#[derive(Debug, Clone)]
pub enum Asked {
    /// The GET form's query.
    Uniform(String),
    /// The POST form's body.
    Paste(String),
}

/// One sync, as the command line computes it.
fn evaluate(inputs: Inputs) -> Result<Report> {
    let scenario = input::build(inputs)?;
    Ok(calc::evaluate(&scenario))
}

/// The page answering `asked`.
pub fn page(asked: &Asked, fleet: bool) -> Reply {
    match asked {
        Asked::Uniform(query) => uniform(query, fleet),
        Asked::Paste(body) => paste(body, fleet),
    }
}

fn uniform(query: &str, fleet: bool) -> Reply {
    let pairs = form::decode(query);
    let now = form::field(&pairs, "now").unwrap_or("").to_string();
    let given = Uniform::from_pairs(&pairs);
    let shown = match &given {
        Ok(u) => u.values(),
        // As typed, so that the error can be corrected in place.
        Err(_) => {
            let d = Uniform::default().values();
            let mut shown = d.clone();
            for ((id, _), (value, default)) in UNIFORM_FIELDS.iter().zip(shown.iter_mut().zip(d)) {
                *value = form::field(&pairs, id).map_or(default, str::to_string);
            }
            shown
        }
    };
    let mut page_form = Form {
        uniform: UNIFORM_FIELDS
            .iter()
            .zip(shown)
            .map(|((id, label), value)| (*id, *label, value))
            .collect(),
        now: now.clone(),
        fleet,
        ..Form::default()
    };
    if pairs.is_empty() {
        return html(200, page::calc(&page_form, Answer::Empty));
    }
    let now = Some(now.as_str()).filter(|n| !n.trim().is_empty());
    let answer = given.and_then(|u| Ok((evaluate(u.inputs(now)?)?, u)));
    match answer {
        Ok((report, u)) => {
            page_form.command = Some((
                u.command(now),
                vec![
                    ("hpa.yaml".to_string(), u.hpa_text()),
                    ("pods.csv".to_string(), u.pods_csv()),
                ],
            ));
            // The simulator's uniform load is the utilization case's.
            if !u.is_average_value() {
                let over_time = Stepping {
                    source: Source::Uniform(u),
                    t: 0,
                    load_set: Vec::new(),
                };
                page_form.simulate = over_time.href(0, None);
            }
            html(200, page::calc(&page_form, Answer::Report(&report)))
        }
        Err(e) => html(
            422,
            page::calc(
                &page_form,
                Answer::Error(&crate::error::shown(&e), "uniform"),
            ),
        ),
    }
}

fn paste(body: &str, fleet: bool) -> Reply {
    let pairs = form::decode(body);
    let page_form = Form {
        uniform: UNIFORM_FIELDS
            .iter()
            .zip(Uniform::default().values())
            .map(|((id, label), value)| (*id, *label, value))
            .collect(),
        pasted: PASTED_FIELDS
            .iter()
            .map(|id| (*id, form::field(&pairs, id).unwrap_or("").to_string()))
            .collect(),
        now: form::field(&pairs, "now").unwrap_or("").to_string(),
        command: None,
        fleet,
        simulate: None,
    };
    match form::pasted_inputs(&pairs).and_then(evaluate) {
        Ok(report) => html(200, page::calc(&page_form, Answer::Report(&report))),
        Err(e) => html(
            422,
            page::calc(&page_form, Answer::Error(&crate::error::shown(&e), "paste")),
        ),
    }
}
