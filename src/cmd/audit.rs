//! `hpacalc audit`: the flags read into a dump (a cluster dump, or the live cluster with `-A`)
//! or into manifests (`-f`), audited by `work::audit`, and the report printed.

use anyhow::Result;

use crate::cli::{AuditArgs, AuditFormat, FailOn};
use crate::error::FindingsFailed;
use crate::input::cluster::Dump;
use crate::input::cluster::share::Common;
use crate::input::{Settings, Text};
use crate::render::{Exporter, Json, Markdown, Sarif, Table, Yaml};
use crate::report::Severity;
use crate::report::fleet::AuditReport;
use crate::stop::Stop;
use crate::term::{terminal, warn, write_stdout};
use crate::work::audit::{DumpFacts, Places, of_dump, static_audit};

pub fn run(args: &AuditArgs) -> Result<()> {
    refuse_live_flags(args)?;
    let (audit, places) = if args.manifests.is_empty() {
        cluster(args)?
    } else {
        manifests(args)?
    };
    let exporter: Box<dyn Exporter<AuditReport>> = match args.output {
        AuditFormat::Table => Box::new(Table { wide: false }),
        AuditFormat::Wide => Box::new(Table { wide: true }),
        AuditFormat::Json => Box::new(Json),
        AuditFormat::Yaml => Box::new(Yaml),
        AuditFormat::Sarif => Box::new(Sarif { places: &places }),
        AuditFormat::Markdown => Box::new(Markdown),
    };
    write_stdout(exporter.export(&audit, terminal()).as_bytes())?;
    if let Some(fail_on) = args.fail_on {
        let (least, name) = match fail_on {
            FailOn::Warning => (Severity::Warning, "warning"),
            FailOn::Error => (Severity::Error, "error"),
        };
        let count = audit
            .findings
            .iter()
            .filter(|f| f.severity >= least)
            .count();
        if count > 0 {
            return Err(FindingsFailed {
                count,
                severity: name,
            }
            .into());
        }
    }
    Ok(())
}

/// The connection flags read the cluster: with the files of a dump or manifests they would be
/// ignored, so they are a usage error.
fn refuse_live_flags(args: &AuditArgs) -> Result<()> {
    if args.all_namespaces || args.namespace.is_some() {
        return Ok(());
    }
    let auth = &args.auth;
    let given = [
        ("--kubeconfig", args.kubeconfig.is_some()),
        ("--context", args.context.is_some()),
        ("--user", args.user.is_some()),
        ("--server", auth.server.is_some()),
        ("--token", auth.token.is_some()),
        ("--insecure-skip-tls-verify", auth.insecure_skip_tls_verify),
        ("--as", auth.as_user.is_some()),
    ];
    if let Some((flag, _)) = given.iter().find(|(_, set)| *set) {
        anyhow::bail!(crate::error::UsageError(format!(
            "{flag} is for the live cluster (-n NAMESPACE or -A), and the input here is files: \
             drop {flag}, or read the cluster with -n or -A"
        )));
    }
    Ok(())
}

/// `--dump` (or the live cluster): the decision of every HPA and the findings.
fn cluster(args: &AuditArgs) -> Result<(AuditReport, Places)> {
    let live = args.all_namespaces || args.namespace.is_some();
    // `--cluster` is kubectl's (a kubeconfig cluster) when the cluster is read; without -n or -A
    // nothing names a kubeconfig cluster, and it is the old spelling of `--dump`.
    let (kube_cluster, old_dump): (Option<&str>, Vec<std::path::PathBuf>) = match (live, &args.cluster[..]) {
        (_, []) => (None, Vec::new()),
        (true, [one]) => (Some(one.as_str()), Vec::new()),
        (true, _) => anyhow::bail!(crate::error::UsageError(
            "--cluster names one kubeconfig cluster with -n or -A; the dump files are --dump FILE..."
                .to_string()
        )),
        (false, files) => {
            crate::term::log("hpacalc: audit --cluster FILE is the old spelling of --dump FILE");
            (None, files.iter().map(std::path::PathBuf::from).collect())
        }
    };
    let mut dump = if live {
        let settings = crate::input::live::client::Settings {
            kubeconfig: args.kubeconfig.as_deref(),
            context: args.context.as_deref(),
            cluster: kube_cluster,
            user: args.user.as_deref(),
            overrides: crate::cmd::live::overrides(&args.auth),
            timeout: crate::input::live::request_timeout(&args.request_timeout)?,
            verbosity: args.verbosity,
        };
        crate::input::live::cluster::read(&settings, args.namespace.as_deref())?
    } else {
        Dump::default()
    };
    for path in args.dump.iter().chain(&old_dump).chain(&args.events) {
        dump.read(path)?;
    }
    if let Some(path) = &args.metrics {
        dump.read_metrics(path)?;
    }
    if let Some(path) = &args.nodes {
        dump.read(path)?;
        if dump.nodes.is_empty() {
            return Err(crate::error::InputError::new(
                path.to_string_lossy(),
                "found no nodes, expected kubectl get nodes -o json output",
            )
            .into());
        }
    }
    let read_all = |paths: &[std::path::PathBuf]| -> Result<Vec<Text>> {
        (paths.iter())
            .map(|p| {
                Ok(Text::new(
                    p.to_string_lossy(),
                    crate::input::read_input(p)?.1,
                ))
            })
            .collect()
    };
    let mut settings = Settings::from_fleet_flags(&args.controller)?;
    settings.now = (args.now.as_deref())
        .map(|text| crate::input::flag_time("--now", text))
        .transpose()?;
    let common = Common {
        settings,
        custom_metrics: read_all(&args.custom_metrics)?,
        external_metrics: read_all(&args.external_metrics)?,
    };
    let given = DumpFacts {
        metrics_given: live || args.metrics.is_some(),
        node_group_max: args.node_group_max,
    };
    let (audit, places, warnings) = of_dump(dump, common, &given, &Stop::default())?;
    for w in &warnings {
        warn(w);
    }
    Ok((audit, places))
}

/// `-f DIR`: the static checks of every HPA in the manifests, no decision.
fn manifests(args: &AuditArgs) -> Result<(AuditReport, Places)> {
    let mut dump = Dump::default();
    for path in &args.manifests {
        for file in crate::input::cluster::manifests::files(path)? {
            dump.read_manifest(&file)?;
        }
    }
    let sync_period = crate::input::flag_duration("--sync-period", &args.controller.sync_period)?;
    Ok(static_audit(dump, sync_period))
}
