//! `hpacalc -n NAMESPACE` and `hpacalc -A`: every HPA of a namespace (or of the cluster) in the
//! style of `kubectl get hpa`, each evaluated as `audit -n` evaluates it (`work::audit`), with
//! kubectl's flags for the connection and `-l` selecting HPAs by their labels.

use anyhow::Result;

use crate::cli::{Cli, OutputFormat};
use crate::error::UsageError;
use crate::input::Settings;
use crate::input::cluster::share::Common;
use crate::input::live::Rules;
use crate::input::selector::Selector;
use crate::render::list::{self, Columns};
use crate::render::{Exporter, Json, Markdown, Yaml};
use crate::stop::Stop;
use crate::term::{terminal, warn, write_stdout};
use crate::work::audit::{DumpFacts, of_dump};

pub fn run(cli: &Cli) -> Result<()> {
    refuse(cli)?;
    let selector = (cli.selector.as_deref())
        .map(|text| {
            Selector::parse(text)
                .map_err(|m| UsageError(format!("-l {}: {m}", crate::error::quoted(text))))
        })
        .transpose()?;
    let namespace = if cli.all_namespaces {
        None
    } else {
        cli.namespace.as_deref()
    };
    let connection = crate::input::live::client::Settings {
        kubeconfig: cli.live.kubeconfig.as_deref(),
        context: cli.live.context.as_deref(),
        cluster: cli.live.cluster.as_deref(),
        user: cli.live.user.as_deref(),
        timeout: crate::input::live::request_timeout(&cli.live.request_timeout)?,
        verbosity: cli.live.verbosity,
        overrides: crate::cmd::live::overrides(&cli.live.auth),
    };
    let mut settings = Settings::from_cli(cli)?;
    settings.namespace = None;
    // The API server's release gives the rules, as for one HPA, unless --kube-version is given.
    let rules = match &cli.kube_version {
        Some(_) => Rules::Given,
        None => Rules::Server {
            feature_gates: cli.feature_gates.clone(),
        },
    };
    let (mut dump, rules_line) = crate::input::live::cluster::read_with_rules(
        &connection,
        namespace,
        &rules,
        &mut settings,
    )?;
    if let Some(line) = rules_line {
        warn(&line);
    }
    if let Some(selector) = &selector {
        dump.hpas
            .retain(|h| selector.matches_pairs(&h.head.metadata.labels.0));
        dump.scaled_objects
            .retain(|h| selector.matches_pairs(&h.head.metadata.labels.0));
    }
    let common = Common {
        settings,
        custom_metrics: Vec::new(),
        external_metrics: Vec::new(),
    };
    let given = DumpFacts {
        metrics_given: true,
        node_group_max: None,
    };
    let (audit, _, warnings) = of_dump(dump, common, &given, &Stop::default())?;
    for w in &warnings {
        warn(w);
    }
    let columns = Columns {
        namespaces: cli.all_namespaces,
        wide: cli.output == OutputFormat::Wide,
    };
    let terminal = terminal();
    let text = match cli.output {
        OutputFormat::Table | OutputFormat::Wide => list::table(&audit, columns, terminal.width),
        OutputFormat::Summary => list::brief(&audit, columns),
        OutputFormat::Json => Json.export(&audit, terminal),
        OutputFormat::Yaml => Yaml.export(&audit, terminal),
        OutputFormat::Markdown => Markdown.export(&audit, terminal),
    };
    write_stdout(text.as_bytes())
}

/// What a list cannot use: the offline files (as live mode refuses them), what-if changes, and
/// the flags of one HPA (`--save`, `--watch`, `--nodes-from-cluster`).
fn refuse(cli: &Cli) -> Result<()> {
    crate::cmd::live::refuse_file_flags(cli, true)?;
    let what_if = crate::cmd::simulate::what_if_of(&cli.what_if)
        .then(&crate::input::what_if::WhatIf::parse(&cli.what_if_changes)?);
    let given = [
        ("--save", cli.live.save.is_some()),
        ("--watch", cli.live.watch),
        ("--nodes-from-cluster", cli.live.nodes_from_cluster),
        ("--history", cli.history.is_some()),
        ("--print-hpa", cli.print_hpa),
        ("a what-if flag", !what_if.is_empty()),
    ];
    if let Some((flag, _)) = given.iter().find(|(_, set)| *set) {
        anyhow::bail!(UsageError(format!(
            "{flag} is for one HPA: name it (hpacalc NAME -n NAMESPACE), or drop {flag} to \
             list every HPA"
        )));
    }
    Ok(())
}
