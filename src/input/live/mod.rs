//! Live mode: the cluster itself is the input. `client` connects as kubectl does, `fetch` reads
//! what the controller reads at one sync, and this file writes the answers as the offline files
//! (`hpa.yaml`, `scale.json`, `target.json`, `pods.json`, `metrics.json`, `custom-metrics.json`,
//! `external-metrics.json`, `events.json`) and builds the `Scenario` with the offline command on
//! them: a capture is a capture, and the live answer is the offline answer by construction. `command.txt` holds
//! that command. The pods are the one exception to "written, then read back": the pages are read
//! by the same reader as they arrive and handed over, and written only with `--save`.

pub mod client;
pub mod cluster;
pub mod fetch;
pub mod rbac;

use std::path::PathBuf;
use std::time::Duration as StdDuration;

use anyhow::Result;
use clap::Parser;

use crate::cli::{Cli, OutputFormat};
use crate::error::InputError;
use crate::input;
use crate::scenario::Scenario;
use crate::time::Duration;
use client::{Api, Settings};

/// A failure of live mode (configuration, connection, permission, a missing object): one line,
/// exit 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct LiveError(pub String);

/// One connection to the cluster, used for every evaluation of a run.
pub struct Session {
    api: Api,
    runtime: tokio::runtime::Runtime,
    name: String,
    namespace: String,
    /// Where each capture is written: `--save DIR`, else a private temporary directory.
    dir: PathBuf,
    temporary: bool,
    /// The flags of the offline command besides the files (controller settings, output).
    passthrough: Vec<String>,
    with_nodes: bool,
}

/// `--request-timeout`: kubectl's form, a duration (`5s`, `1m`), a bare number of seconds, or
/// `0` for no limit.
pub fn request_timeout(text: &str) -> Result<Option<StdDuration>, InputError> {
    let t = text.trim();
    let ms = match t.parse::<u64>() {
        Ok(secs) => secs.saturating_mul(1000),
        Err(_) => {
            let d = Duration::parse(t).map_err(|e| InputError::new("--request-timeout", e))?;
            u64::try_from(d.millis()).map_err(|_| {
                InputError::new(
                    "--request-timeout",
                    format!("found \"{text}\", expected 0 or a positive duration"),
                )
            })?
        }
    };
    Ok((ms > 0).then(|| StdDuration::from_millis(ms)))
}

impl Session {
    /// Loads the kubeconfig (or the in-cluster configuration) and prepares the capture directory.
    pub fn open(cli: &Cli, name: &str) -> Result<Session> {
        refuse_file_flags(cli)?;
        let timeout = request_timeout(&cli.live.request_timeout)?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| LiveError(format!("cannot start the I/O runtime: {e}")))?;
        let settings = Settings {
            kubeconfig: cli.live.kubeconfig.as_deref(),
            context: cli.live.context.as_deref(),
            timeout,
        };
        let api = runtime.block_on(Api::connect(&settings))?;
        let namespace = cli
            .namespace
            .clone()
            .unwrap_or_else(|| api.default_namespace.clone());
        let (dir, temporary) = match &cli.live.save {
            Some(dir) => (dir.clone(), false),
            None => (
                std::env::temp_dir().join(format!("hpacalc-live-{}", std::process::id())),
                true,
            ),
        };
        std::fs::create_dir_all(&dir).map_err(|e| {
            InputError::new(
                dir.display().to_string(),
                format!("cannot create the capture directory: {e}"),
            )
        })?;
        Ok(Session {
            api,
            runtime,
            name: name.to_string(),
            namespace,
            dir,
            temporary,
            passthrough: passthrough(cli),
            with_nodes: cli.live.nodes_from_cluster,
        })
    }

    /// Runs a future on the session's I/O runtime (the watch's waits).
    pub fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.runtime.block_on(f)
    }

    /// Reads the cluster once and returns the scenario of the offline command on the capture.
    pub fn scenario(&self) -> Result<Scenario> {
        let mut capture = self.runtime.block_on(fetch::capture(
            &self.api,
            &self.namespace,
            &self.name,
            self.with_nodes,
            &self.dir,
            !self.temporary,
        ))?;
        let args = self.write(&capture)?;
        // What was written is read back from the files: keep no second copy (dropped now, not
        // at the end of this function, as a struct update would leave them).
        capture.target_object = String::new();
        capture.hpa = String::new();
        capture.metrics = None;
        capture.metric_files = fetch::MetricFiles::default();
        let offline = Cli::try_parse_from(std::iter::once("hpacalc".to_string()).chain(
            args.iter().map(|a| {
                if a.ends_with(".json") || a.ends_with(".yaml") {
                    self.dir.join(a).to_string_lossy().into_owned()
                } else {
                    a.clone()
                }
            }),
        ))
        .map_err(|e| LiveError(format!("internal: the offline command does not parse: {e}")))?;
        let mut scenario = input::build_scenario_with(&offline, capture.pods.take())?;
        // The offline readers name their files: in live mode, by their names in the capture.
        let prefix = format!("{}{}", self.dir.display(), std::path::MAIN_SEPARATOR);
        for text in (scenario.input_notes.iter_mut())
            .chain(scenario.warnings.iter_mut())
            .chain(scenario.sources.iter_mut().filter_map(|s| s.file.as_mut()))
        {
            if text.contains(&prefix) {
                *text = text.replace(&prefix, "");
            }
        }
        let mut notes = vec![format!(
            "Live: read from context {} at {} ({} pod(s) under the selector {}); evaluated at \
             the capture time.",
            self.api.context,
            self.api.server,
            capture.pod_count,
            capture.scale_parsed.selector.as_deref().unwrap_or_default()
        )];
        if !self.temporary {
            notes.push(format!(
                "Saved in {}: `{}` there gives this answer (command.txt).",
                self.dir.display(),
                offline_command(&args)
            ));
        }
        notes.extend(capture.notes);
        scenario.input_notes.splice(0..0, notes);
        scenario.input_diagnostics.extend(capture.diagnostics);
        Ok(scenario)
    }

    /// Writes the capture's files and `command.txt`; returns the offline command's arguments,
    /// with file names relative to the directory.
    fn write(&self, capture: &fetch::Capture) -> Result<Vec<String>> {
        let put = |name: &str, text: &str| -> Result<()> {
            let path = self.dir.join(name);
            std::fs::write(&path, text).map_err(|e| {
                InputError::new(path.display().to_string(), format!("cannot write: {e}")).into()
            })
        };
        put("hpa.yaml", &to_yaml(&capture.hpa)?)?;
        put("scale.json", &capture.scale)?;
        put(fetch::TARGET_FILE, &capture.target_object)?;
        let mut args: Vec<String> = [
            "--hpa",
            "hpa.yaml",
            "--scale",
            "scale.json",
            "--target",
            fetch::TARGET_FILE,
        ]
        .map(String::from)
        .to_vec();
        args.extend(["--pods".into(), fetch::PODS_FILE.into()]);
        let resource = ("--metrics", "metrics.json", capture.metrics.as_ref());
        for (flag, file, text) in std::iter::once(resource).chain(capture.metric_files.all()) {
            let path = self.dir.join(file);
            match text {
                Some(text) => {
                    put(file, text)?;
                    args.extend([flag.to_string(), file.to_string()]);
                }
                // A file of an earlier capture in the same directory must not stay behind.
                None if path.exists() => {
                    let _ = std::fs::remove_file(&path);
                }
                None => {}
            }
        }
        args.extend(["--events".into(), fetch::EVENTS_FILE.into()]);
        if capture.nodes {
            args.extend(
                [
                    "--nodes",
                    fetch::NODES_FILE,
                    "--all-pods",
                    fetch::ALL_PODS_FILE,
                ]
                .map(String::from),
            );
        }
        args.extend(["--now".into(), capture.captured_at.to_rfc3339()]);
        args.extend(self.passthrough.iter().cloned());
        if !self.temporary {
            put(
                "command.txt",
                &format!(
                    "# The offline command that gives the live answer of {} (run in this \
                     directory):\n{}\n",
                    capture.target,
                    offline_command(&args)
                ),
            )?;
        }
        Ok(args)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if self.temporary {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Flags that give what live mode reads from the cluster are usage errors, not silently ignored.
fn refuse_file_flags(cli: &Cli) -> Result<(), crate::UsageError> {
    let given = [
        ("--pods", cli.pods.is_some()),
        ("--metrics", cli.metrics.is_some()),
        ("--custom-metrics", !cli.custom_metrics.is_empty()),
        ("--external-metrics", !cli.external_metrics.is_empty()),
        ("--scale", cli.scale.is_some()),
        ("--target", cli.target.is_some()),
        ("--events", cli.events.is_some()),
        ("--selector", cli.selector.is_some()),
        ("--name", cli.name.is_some()),
        ("--current-replicas", cli.current_replicas.is_some()),
        ("--metric-value", !cli.metric_values.is_empty()),
        ("--now", cli.now.is_some()),
        ("--nodes", cli.nodes.nodes_file.is_some()),
    ];
    match given.iter().find(|(_, set)| *set) {
        Some((flag, _)) => Err(crate::UsageError(format!(
            "{flag} gives what live mode reads from the cluster: use it with --hpa FILE (or \
             --save the capture and edit the files)"
        ))),
        None => Ok(()),
    }
}

/// The HPA as YAML, what `kubectl get hpa -o yaml` prints.
fn to_yaml(json: &str) -> Result<String> {
    let value: serde_json::Value = serde_json::from_str(json)
        .map_err(|e| LiveError(format!("the HPA the API server answered is not JSON: {e}")))?;
    Ok(serde_yaml::to_string(&value)
        .map_err(|e| LiveError(format!("cannot write the HPA as YAML: {e}")))?)
}

/// `hpacalc ARGS`, each argument quoted for a POSIX shell when it needs it.
pub fn offline_command(args: &[String]) -> String {
    let mut out = String::from("hpacalc");
    for a in args {
        out.push(' ');
        if !a.is_empty()
            && a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.,:=/@%+".contains(c))
        {
            out.push_str(a);
        } else {
            out.push('\'');
            out.push_str(&a.replace('\'', "'\\''"));
            out.push('\'');
        }
    }
    out
}

/// The flags that change the answer, as given: the offline command repeats them.
fn passthrough(cli: &Cli) -> Vec<String> {
    let defaults = Cli::parse_from(["hpacalc", "--hpa", "x"]);
    let mut out = Vec::new();
    let mut flag = |name: &str, value: String, default: String| {
        if value != default {
            out.push(format!("--{name}"));
            out.push(value);
        }
    };
    flag(
        "tolerance",
        cli.tolerance.to_string(),
        defaults.tolerance.to_string(),
    );
    for (name, value, default) in [
        (
            "cpu-initialization-period",
            &cli.cpu_initialization_period,
            &defaults.cpu_initialization_period,
        ),
        (
            "initial-readiness-delay",
            &cli.initial_readiness_delay,
            &defaults.initial_readiness_delay,
        ),
        (
            "downscale-stabilization",
            &cli.downscale_stabilization,
            &defaults.downscale_stabilization,
        ),
        ("sync-period", &cli.sync_period, &defaults.sync_period),
        ("kube-version", &cli.kube_version, &defaults.kube_version),
        (
            "metrics-window",
            &cli.metrics_window,
            &defaults.metrics_window,
        ),
    ] {
        flag(name, value.clone(), default.clone());
    }
    if let Some(gates) = &cli.feature_gates {
        out.extend(["--feature-gates".to_string(), gates.clone()]);
    }
    if let Some(history) = &cli.history {
        out.extend([
            "--history".to_string(),
            std::path::absolute(history)
                .unwrap_or_else(|_| history.clone())
                .to_string_lossy()
                .into_owned(),
        ]);
    }
    let output = match cli.output {
        OutputFormat::Table => None,
        OutputFormat::Wide => Some("wide"),
        OutputFormat::Json => Some("json"),
        OutputFormat::Yaml => Some("yaml"),
    };
    if let Some(o) = output {
        out.extend(["-o".to_string(), o.to_string()]);
    }
    let n = &cli.nodes;
    for (name, value) in [
        ("node-allocatable", n.node_allocatable.clone()),
        ("existing-nodes", n.existing_nodes.map(|v| v.to_string())),
        ("node-group-max", n.node_group_max.map(|v| v.to_string())),
        ("max-nodes-total", n.max_nodes_total.map(|v| v.to_string())),
        ("pod-request", n.pod_request.clone()),
    ] {
        if let Some(v) = value {
            out.extend([format!("--{name}"), v]);
        }
    }
    for d in &n.daemonset_requests {
        out.extend(["--daemonset-requests".to_string(), d.clone()]);
    }
    for (name, value, default) in [
        (
            "scale-down-utilization-threshold",
            n.scale_down_utilization_threshold.to_string(),
            defaults.nodes.scale_down_utilization_threshold.to_string(),
        ),
        (
            "scale-down-unneeded-time",
            n.scale_down_unneeded_time.clone(),
            defaults.nodes.scale_down_unneeded_time.clone(),
        ),
    ] {
        if value != default {
            out.extend([format!("--{name}"), value]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_timeouts_read_as_kubectl_reads_them() {
        assert_eq!(request_timeout("0").unwrap(), None);
        assert_eq!(
            request_timeout("5").unwrap(),
            Some(StdDuration::from_secs(5))
        );
        assert_eq!(
            request_timeout("1m30s").unwrap(),
            Some(StdDuration::from_secs(90))
        );
        assert_eq!(
            request_timeout("fast").unwrap_err().file,
            "--request-timeout"
        );
    }

    #[test]
    fn the_offline_command_quotes_what_a_shell_would_split() {
        let args: Vec<String> = ["--hpa", "hpa.yaml", "--feature-gates", "A=true B"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            offline_command(&args),
            "hpacalc --hpa hpa.yaml --feature-gates 'A=true B'"
        );
    }

    #[test]
    fn only_flags_that_differ_from_their_defaults_pass_through() {
        let cli = Cli::parse_from(["hpacalc", "web", "--tolerance", "0.2", "-o", "json"]);
        assert_eq!(passthrough(&cli), ["--tolerance", "0.2", "-o", "json"]);
        let cli = Cli::parse_from(["hpacalc", "web"]);
        assert!(passthrough(&cli).is_empty());
    }
}
