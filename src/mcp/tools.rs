//! The tools: each one's name, description (when an assistant should call it), argument schema
//! and output schema, and what a call does. A call wires the layers as the command does: its
//! arguments fill the same `Inputs` (`args`), `input::build` and `calc` compute, and the same
//! exporters render: the JSON of `-o json`, and the short summary beside it. Nothing here parses
//! a format or computes a number.

use std::path::PathBuf;

use anyhow::{Result, bail};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use super::args::{
    AuditArgs, CompareArgs, DiffArgs, ExplainArgs, Explained, LIVE_AUDIT_ARGS, LiveArgs,
    PrintHpaArgs, SimulateArgs, text,
};
use super::brief::{self, Detail, LIST_LIMIT};
use crate::calc;
use crate::error::UsageError;
use crate::input::cluster::Dump;
use crate::input::live::{Options, Rules, Session, request_timeout};
use crate::input::{self, PrintedHpa, simulation};
use crate::render::{Exporter, Json, Terminal, summary};
use crate::work::audit::{DumpFacts, of_dump};
use crate::work::bounds::Bounds;
use crate::work::what_if::before_and_after;

/// What the server was started with that the tools need.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// `--allow-live`: the tools that read the cluster are offered.
    pub allow_live: bool,
    /// `--kubeconfig` of the live tools.
    pub kubeconfig: Option<PathBuf>,
}

/// A tool's answer: the short text a person reads, and the JSON of `-o json` (with
/// `detail: "full"`) or its summary (`brief`), once, as the structured content.
#[derive(Debug, Clone)]
pub struct Answer {
    pub summary: String,
    pub value: serde_json::Value,
}

/// The exporters' terminal: no colour, the table's default width.
const PLAIN: Terminal = Terminal {
    color: false,
    width: 100,
};

impl Answer {
    /// The answer of `value`, the summary of kind `kind` unless `detail` is full; the command
    /// line's warnings (its stderr) end the text.
    fn of<T: serde::Serialize>(
        mut summary: String,
        warnings: &[String],
        value: &T,
        kind: &str,
        detail: Detail,
    ) -> Result<Answer> {
        for w in warnings {
            summary.push_str(&format!("warning: {w}\n"));
        }
        // The JSON of `-o json`, read back: the same numbers the command prints.
        let value = serde_json::from_str(&Json.export(value, PLAIN))?;
        let value = match detail {
            Detail::Full => value,
            Detail::Summary => {
                let budget = brief::ANSWER_BUDGET.saturating_sub(summary.len());
                brief::within(kind, value, budget)
            }
        };
        Ok(Answer { summary, value })
    }
}

const EXPLAIN: &str = "Explain what the Kubernetes HorizontalPodAutoscaler controller does at \
its next sync, and why: the controller's own algorithm (ported line by line from \
kube-controller-manager), not the docs' formula. Call it when someone asks why an HPA is (not) \
scaling, what it will scale to, or what a change of load, target or flags would do. Give the \
HPA as pasted (manifest, `kubectl describe hpa`, `kubectl get hpa` table or a KEDA \
ScaledObject) and, when you have them, the pods, the metrics or `kubectl top pods`, the events \
and the controller flags: with the HPA alone its status is used (an approximation, labelled \
so). Answers the decision line and the WHY lines (named causes with their fixes), and a summary of \
the report as JSON (detail: \"full\" gives the whole report, the schema of `hpacalc schema \
report`). With set_request, min, max, a tolerance or what_if items, answers the sync before and \
after the change.";

const LIVE: &str = "Read one HPA from the Kubernetes cluster through the user's kubeconfig \
(read-only GETs: the HPA, its scale target, the pods, the metrics APIs, the events) and explain \
its next sync, as `hpacalc NAME -n NAMESPACE` does. This tool READS THE CLUSTER: call it only \
when the user wants their live HPA explained and has not pasted its objects (then use \
explain_hpa). Answers as explain_hpa.";

const SIMULATE: &str = "Run the HPA controller over time on a load curve: syncs, pods that take \
time to start, nodes that take time to boot (the scheduler and the Cluster Autoscaler), \
rollouts. Call it to see how an HPA reacts to a load spike or drop, how long it takes to reach \
its target, or to replay a night from Prometheus. Give an HPA manifest and a load (a load CSV \
or a saved Prometheus query_range answer), or a built-in scenario: ";

const COMPARE: &str = "Run two or more HPA configurations on the same load and compare them, \
as `hpacalc simulate --compare` does: the base (hpa, or a built-in scenario) and each of \
compare, every one with the same load and flags, and per configuration what-if changes \
(set-request, tolerance, min, max, ...). Call it to choose between HPA changes (a faster \
scale-down, another target, another request) on a real or built-in load: each configuration's \
pod-hours, time above target, scale events and flapping, and the first time they differ.";

const DIFF: &str = "Compare the HPAs of two sets of manifests (before and after a change, as a \
pull request holds them), matched by namespace/name, as `hpacalc diff OLD NEW` does: each \
changed field of the behaviour, the replica counts whose hold band moves, with pods the sync \
of both sides on them, and with a load both sides' runs compared; fail_on names what makes a \
change worse. Call it to review an HPA change. The summary is the Markdown of `-o markdown`.";

const AUDIT: &str = "Audit every HPA of a cluster dump (`kubectl get \
hpa,deploy,sts,rs,pods,pdb -A -o json`): each HPA's next decision, and the problems that need \
several objects to see (two HPAs on the same pods, a missing target, a PDB that blocks a \
drain, a VPA on the same resource, ...). Call it for a health check of many HPAs.";

const LIVE_AUDIT: &str = " With namespace, it READS THE CLUSTER through the kubeconfig \
(read-only lists), as `hpacalc audit -n NAMESPACE` does.";

const PRINT_HPA: &str = "Print the autoscaling/v2 HPA hpacalc evaluates from a given text: the \
HPA KEDA creates from a ScaledObject, an autoscaling/v1 or v2beta1 HPA converted, a describe \
text or a get-hpa table read back. Call it to see what KEDA or an old API version yields.";

const DIAGNOSTICS: &str = "List every diagnostic code hpacalc's reports name (WithinTolerance, \
StabilizationHold, MissingRequest, ...) with its severity, when it is given and what to \
change, and an example message: the table of docs/diagnostics.md. Call it to explain a code, \
or to know which causes hpacalc can name.";

/// The JSON Schema of a tool's arguments (draft 2020-12).
fn schema_of<T: JsonSchema>() -> JsonObject {
    match schemars::schema_for!(T).to_value() {
        serde_json::Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// A tool's output schema, trimmed: an object, and where its whole schema is. The structured
/// content is the summary by default and the whole JSON with `detail: "full"`: both fit it, and
/// `tools/list` stays small (the full schemas were 79 KB of its 105 KB).
fn output(name: &str) -> Option<std::sync::Arc<JsonObject>> {
    let schema = serde_json::json!({
        "type": "object",
        "description": format!(
            "With detail \"full\": the JSON of `hpacalc ... -o json`, whose JSON Schema is \
             `hpacalc schema {name}`. By default its summary: the same keys with the trace and \
             sources left out, each list cut to {LIST_LIMIT} items with its length as \
             KEYTotal, and \"detail\": \"summary\"."
        ),
    });
    match schema {
        serde_json::Value::Object(map) => Some(std::sync::Arc::new(map)),
        _ => None,
    }
}

/// The `detail` argument every tool takes, added to its schema (the calls read it before the
/// tool's own arguments).
fn with_detail(mut args: JsonObject) -> JsonObject {
    let properties = args
        .entry("properties")
        .or_insert_with(|| serde_json::Value::Object(JsonObject::new()));
    if let serde_json::Value::Object(p) = properties {
        p.insert(
            "detail".into(),
            serde_json::json!({
                "description": "summary (default): the decision, the WHY lines and the figures \
                    that matter, lists cut to 20; full: the whole report of -o json",
                "enum": ["summary", "full"],
                "default": "summary",
            }),
        );
    }
    args
}

/// A tool as listed: read-only, idempotent, closed-world (the live ones are opened after).
fn tool(name: &'static str, description: String, args: JsonObject, out: Option<&str>) -> Tool {
    let mut tool = Tool::new(name, description, with_detail(args)).annotate(
        ToolAnnotations::new()
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false),
    );
    tool.output_schema = out.and_then(output);
    tool
}

/// Every tool the server offers: the live ones only with `--allow-live`.
pub fn list(context: &Context) -> Vec<Tool> {
    let scenarios: Vec<&str> = input::builtin::ALL.iter().map(|s| s.name).collect();
    let mut audit_args = schema_of::<AuditArgs>();
    let mut audit = AUDIT.to_string();
    if context.allow_live {
        audit.push_str(LIVE_AUDIT);
    } else if let Some(serde_json::Value::Object(p)) = audit_args.get_mut("properties") {
        for name in LIVE_AUDIT_ARGS {
            p.remove(name);
        }
    }
    let mut tools = vec![
        tool(
            "explain_hpa",
            EXPLAIN.into(),
            schema_of::<ExplainArgs>(),
            Some("report"),
        ),
        tool(
            "simulate",
            format!("{SIMULATE}{}.", scenarios.join(", ")),
            schema_of::<SimulateArgs>(),
            Some("simulation"),
        ),
        tool(
            "compare",
            COMPARE.into(),
            schema_of::<CompareArgs>(),
            Some("comparison"),
        ),
        tool("diff", DIFF.into(), schema_of::<DiffArgs>(), Some("diff")),
        tool("audit", audit, audit_args, Some("audit")),
        tool(
            "print_hpa",
            PRINT_HPA.into(),
            schema_of::<PrintHpaArgs>(),
            None,
        ),
        tool(
            "list_diagnostics",
            DIAGNOSTICS.into(),
            schema_of::<NoArgs>(),
            None,
        ),
    ];
    if context.allow_live {
        let live = tool(
            "explain_live_hpa",
            LIVE.into(),
            schema_of::<LiveArgs>(),
            Some("report"),
        );
        tools.insert(1, live);
        // The tools that read the cluster reach beyond their arguments.
        for t in
            (tools.iter_mut()).filter(|t| matches!(t.name.as_ref(), "explain_live_hpa" | "audit"))
        {
            if let Some(a) = t.annotations.as_mut() {
                a.open_world_hint = Some(true);
            }
        }
    }
    tools
}

/// Whether the server offers the tool `name`: the live one only with `--allow-live`.
pub fn offers(context: &Context, name: &str) -> bool {
    match name {
        "explain_hpa" | "simulate" | "compare" | "diff" | "audit" | "print_hpa"
        | "list_diagnostics" => true,
        "explain_live_hpa" => context.allow_live,
        _ => false,
    }
}

/// `list_diagnostics` takes no argument.
#[derive(Debug, Clone, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

/// The arguments as the tool's type: a missing, misspelled or mistyped one is named with its
/// path (`flags.tolerance: invalid type: string "x", expected f64`).
fn parse<T: DeserializeOwned>(arguments: JsonObject) -> Result<T> {
    let value = serde_json::Value::Object(arguments);
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let at = if path == "." {
            String::new()
        } else {
            format!("{path}: ")
        };
        UsageError(format!("arguments: {at}{}", e.inner())).into()
    })
}

/// Does what the tool `name` does with `arguments` within `bounds` (a run past the budget is
/// refused, and the work stops at the deadline); `None` when no such tool is offered. The
/// `detail` argument, every tool's, is read first.
pub fn call(
    name: &str,
    mut arguments: JsonObject,
    context: &Context,
    bounds: &Bounds,
) -> Option<Result<Answer>> {
    let detail = match Detail::parse(arguments.remove("detail").as_ref()) {
        Ok(d) => d,
        Err(e) => return offers(context, name).then(|| Err(UsageError(e).into())),
    };
    Some(match name {
        "explain_hpa" => parse(arguments).and_then(|a| explain(a, detail)),
        "explain_live_hpa" if offers(context, name) => {
            parse(arguments).and_then(|a| explain_live(a, context, detail))
        }
        "simulate" => parse(arguments).and_then(|a| simulate(a, bounds, detail)),
        "compare" => parse(arguments).and_then(|a| compare(a, bounds, detail)),
        "diff" => parse(arguments).and_then(|a| diff(a, bounds, detail)),
        "audit" => parse(arguments).and_then(|a| audit(a, context, bounds, detail)),
        "print_hpa" => parse(arguments).and_then(|a| print_hpa(a, detail)),
        "list_diagnostics" => parse::<NoArgs>(arguments).and_then(|_| list_diagnostics(detail)),
        _ => return None,
    })
}

/// One sync, as `hpacalc --hpa ... -o json` computes it; with what-if changes, the sync before
/// and after them, as `hpacalc --hpa ... --set-request ... -o json`.
fn explain(args: ExplainArgs, detail: Detail) -> Result<Answer> {
    match args.explained()? {
        Explained::One(inputs) => {
            let scenario = input::build(*inputs)?;
            let report = calc::evaluate(&scenario);
            let text = summary::report(&report);
            Answer::of(text, &scenario.warnings, &report, "report", detail)
        }
        Explained::WhatIf {
            before,
            after,
            what_if,
        } => {
            let (report, warnings) = before_and_after(*before, *after, &what_if)?;
            let text = summary::what_if(&report);
            Answer::of(text, &warnings, &report, "whatIf", detail)
        }
    }
}

/// One sync of a live HPA, as `hpacalc NAME -n NS -o json` reads and computes it.
fn explain_live(args: LiveArgs, context: &Context, detail: Detail) -> Result<Answer> {
    let mut settings = args.settings()?;
    settings.namespace = None;
    let options = Options {
        kubeconfig: context.kubeconfig.clone(),
        context: args.context.clone(),
        cluster: None,
        user: None,
        timeout: request_timeout("30s")?,
        verbosity: 0,
        overrides: Default::default(),
        namespace: args.namespace.clone(),
        save: None,
        with_nodes: false,
        rules: match &args.flags.kube_version {
            Some(_) => Rules::Given,
            None => Rules::Server {
                feature_gates: args.flags.feature_gates.clone(),
            },
        },
        settings,
        history: None,
        passthrough: Vec::new(),
    };
    let scenario = Session::open(options, &args.name)?.scenario()?;
    let report = calc::evaluate(&scenario);
    let text = summary::report(&report);
    Answer::of(text, &scenario.warnings, &report, "report", detail)
}

/// The controller over time, as `hpacalc simulate ... -o json` runs it.
fn simulate(args: SimulateArgs, bounds: &Bounds, detail: Detail) -> Result<Answer> {
    let setup = simulation::build(&args.inputs()?)?;
    let sim = bounds.run(&setup, "duration")?;
    let text = summary::simulation(&sim);
    Answer::of(text, &setup.scenario.warnings, &sim, "simulation", detail)
}

/// Configurations on the same load, as `hpacalc simulate --hpa ... --compare ... -o json`.
fn compare(args: CompareArgs, bounds: &Bounds, detail: Detail) -> Result<Answer> {
    let configs = args.configurations()?;
    let (comparison, warnings) = crate::work::compare::compare_runs(&configs, bounds)?;
    let text = summary::comparison(&comparison);
    Answer::of(text, &warnings, &comparison, "comparison", detail)
}

/// Two sides of manifests, as `hpacalc diff OLD NEW -o json`; what got worse by `fail_on` is
/// the report's `worse`, an answer (the command's exit 3), not an error.
fn diff(args: DiffArgs, bounds: &Bounds, detail: Detail) -> Result<Answer> {
    let mut inputs = args.inputs()?;
    inputs.bounds = bounds.clone();
    let (report, warnings) = crate::work::diff::diff_texts(&inputs)?;
    let markdown = crate::render::Markdown.export(&report, PLAIN);
    Answer::of(markdown, &warnings, &report, "diff", detail)
}

/// Every HPA of a dump (or, with `--allow-live`, of a namespace), as `hpacalc audit -o json`.
fn audit(
    mut args: AuditArgs,
    context: &Context,
    bounds: &Bounds,
    detail: Detail,
) -> Result<Answer> {
    let live = args.namespace.is_some();
    if args.dump.is_none() && !live {
        bail!(UsageError("audit needs a dump".to_string()));
    }
    if !context.allow_live
        && let Some(name) = (LIVE_AUDIT_ARGS.iter())
            .zip([args.namespace.is_some(), args.context.is_some()])
            .find_map(|(name, given)| given.then_some(name))
    {
        bail!(UsageError(format!(
            "arguments: {name} reads the cluster: the server was started without --allow-live"
        )));
    }
    let mut dump = match &args.namespace {
        Some(namespace) => {
            let settings = crate::input::live::client::Settings {
                kubeconfig: context.kubeconfig.as_deref(),
                context: args.context.as_deref(),
                timeout: request_timeout("30s")?,
                ..Default::default()
            };
            crate::input::live::cluster::read(&settings, Some(namespace))?
        }
        None => Dump::default(),
    };
    for (name, given) in [("dump", &args.dump), ("events", &args.events)] {
        if let Some(t) = given {
            dump.read_text(name, &text(name, t.clone())?.text)?;
        }
    }
    if let Some(t) = &args.metrics {
        dump.read_metrics_text("metrics", &text("metrics", t.clone())?.text)?;
    }
    let common = args.common()?;
    let facts = DumpFacts {
        metrics_given: live || args.metrics.is_some(),
        node_group_max: args.node_group_max,
    };
    let (report, _, warnings) = of_dump(dump, common, &facts, &bounds.stop)?;
    let limit = match detail {
        Detail::Full => usize::MAX,
        Detail::Summary => LIST_LIMIT,
    };
    let text = summary::audit(&report, limit);
    Answer::of(text, &warnings, &report, "audit", detail)
}

/// The HPA hpacalc uses, as `hpacalc --hpa FILE --print-hpa -o json` prints it.
fn print_hpa(args: PrintHpaArgs, detail: Detail) -> Result<Answer> {
    let (hpa, settings) = args.inputs()?;
    let (printed, warnings) = input::hpa_only(&hpa, &settings)?;
    let value = match printed {
        PrintedHpa::Keda(hpa) => hpa,
        PrintedHpa::Hpa(printed) => crate::render::hpa::to_value(&printed.0, printed.1.as_ref()),
    };
    let yaml = crate::render::Yaml.export(&value, PLAIN);
    Answer::of(yaml, &warnings, &value, "hpa", detail)
}

/// The diagnostics table.
fn list_diagnostics(detail: Detail) -> Result<Answer> {
    let entries = crate::catalog::entries();
    let lines: Vec<String> = (entries.iter())
        .map(|e| format!("{} ({}): {}", e.code, e.severity, e.when))
        .collect();
    Answer::of(
        lines.join("\n"),
        &[],
        &serde_json::json!({ "diagnostics": entries }),
        "diagnostics",
        detail,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tools_listed_are_the_tools_offered() {
        for allow_live in [false, true] {
            let context = Context {
                allow_live,
                kubeconfig: None,
            };
            let listed: Vec<String> = list(&context).iter().map(|t| t.name.to_string()).collect();
            for name in [
                "explain_hpa",
                "explain_live_hpa",
                "simulate",
                "compare",
                "diff",
                "audit",
                "print_hpa",
            ] {
                assert_eq!(
                    offers(&context, name),
                    listed.iter().any(|n| n == name),
                    "{name}"
                );
            }
            assert!(listed.iter().all(|n| offers(&context, n)));
            assert!(!offers(&context, "comparison"));
        }
    }

    #[test]
    fn a_mistyped_argument_is_named_by_its_path() {
        let args = serde_json::json!({"hpa": "x", "flags": {"tolerance": "a"}});
        let serde_json::Value::Object(args) = args else {
            unreachable!()
        };
        let e = parse::<ExplainArgs>(args).unwrap_err();
        assert!(
            format!("{e:#}").starts_with("arguments: flags.tolerance: invalid type"),
            "{e:#}"
        );
    }

    #[test]
    fn each_text_is_named_by_its_argument() {
        let args: ExplainArgs = serde_json::from_value(serde_json::json!({
            "hpa": "h", "pods": "p", "custom_metrics": ["a", "b"], "now": "2026-11-29T15:00:00Z"
        }))
        .unwrap();
        let inputs = args.inputs().unwrap();
        assert_eq!(inputs.hpa.name, "hpa");
        assert_eq!(inputs.pods.as_ref().map(|p| p.name()), Some("pods"));
        let names: Vec<&str> = inputs
            .custom_metrics
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        assert_eq!(names, ["custom_metrics[0]", "custom_metrics[1]"]);
        assert!(inputs.settings.now.is_some());
    }
}
