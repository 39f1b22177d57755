//! Live mode: the cluster itself is the input. `client` connects as kubectl does, `fetch` reads
//! what the controller reads at one sync, and this file hands the answers to the input layer as
//! the `Inputs` of the offline command (`hpa.yaml`, `scale.json`, `target.json`, `pods.json`,
//! `metrics.json`, `custom-metrics.json`, `external-metrics.json`, `events.json`), in memory: the
//! live answer is the offline answer by construction. With `--save DIR` the same texts are
//! written there, with `command.txt` holding the offline command that reads them.

pub mod answer;
pub mod client;
pub mod cluster;
pub mod fetch;
pub mod kubeconfig;
pub mod rbac;
pub mod scales;
pub mod watch;

use std::path::{Path, PathBuf};
use std::time::Duration as StdDuration;

use anyhow::Result;

use crate::error::InputError;
use crate::input::inputs::{KarpenterTexts, LiveSource};
use crate::input::kubectl::pods::CapturedPods;
use crate::input::{self, Given, Inputs, Settings, Text};
use crate::output::Outputs;
use crate::scenario::Scenario;
use crate::time::Duration;
use crate::version;
use client::{Api, Settings as Connection};

/// How `command.txt` starts: a folder holding it is an earlier capture, which `--save` may
/// replace.
const COMMAND_MARKER: &str = "# The offline command that gives the live answer of";

/// A failure of live mode (configuration, connection, permission, a missing object): one line,
/// exit 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct LiveError(pub String);

/// Refuses a name that cannot be one segment of an API path (`.`, `..`, or holding `/` or `%`)
/// before any request, as client-go's request builder does (`Request.Namespace`, `.Name`,
/// `.Resource` in rest/request.go call apimachinery's `IsValidPathSegmentName`): a proxy that
/// normalizes `namespaces/../horizontalpodautoscalers` would widen a one-namespace read.
pub fn path_segment(what: &str, name: &str) -> Result<(), LiveError> {
    match crate::input::manifest::validate::path_segment_refusal(name) {
        None => Ok(()),
        Some(reason) => Err(LiveError(format!(
            "invalid {what} {}: {reason} (client-go refuses it as a segment of an API path)",
            crate::error::quoted(name)
        ))),
    }
}

/// What a live run is asked for, besides the HPA's name.
#[derive(Debug, Clone)]
pub struct Options {
    pub kubeconfig: Option<PathBuf>,
    pub context: Option<String>,
    /// `--cluster`, `--user`: kubeconfig entries instead of the context's.
    pub cluster: Option<String>,
    pub user: Option<String>,
    /// `--request-timeout`; `None` waits without limit.
    pub timeout: Option<StdDuration>,
    /// `-v`: kubectl's log level.
    pub verbosity: u8,
    /// `--server`, `--token`, `--insecure-skip-tls-verify`, `--as`, `--as-group`.
    pub overrides: kubeconfig::Overrides,
    /// `-n`; default: the kubeconfig context's namespace.
    pub namespace: Option<String>,
    /// `--save DIR`: also write the capture there.
    pub save: Option<PathBuf>,
    /// `--nodes-from-cluster`.
    pub with_nodes: bool,
    /// Whose Kubernetes release's rules apply.
    pub rules: Rules,
    /// The settings of the offline command (controller flags, node flags).
    pub settings: Settings,
    /// `--history`, read once.
    pub history: Option<Text>,
    /// The offline command's flags besides the files, for `command.txt`.
    pub passthrough: Vec<String>,
}

/// Whose Kubernetes release's controller rules a live run applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rules {
    /// `--kube-version`, already in the settings.
    Given,
    /// The API server's (`/version`), with the `--feature-gates` to apply on that release's
    /// defaults; the settings' version where the server does not say.
    Server { feature_gates: Option<String> },
}

/// The release whose rules apply to a capture, the assumption line that says so, and whether it
/// is the server's own release; `None` keeps the settings' version.
pub(super) fn server_rules(
    rules: &Rules,
    server_version: Option<&str>,
    settings: &mut Settings,
) -> Result<Option<(u32, String, bool)>, InputError> {
    let Rules::Server { feature_gates } = rules else {
        return Ok(None);
    };
    let used = settings.controller.kube_minor;
    let Some(text) = server_version else {
        return Ok(Some((
            used,
            format!(
                "Live: the API server did not say its version (/version): the rules of 1.{used} \
                 apply; pass --kube-version with the cluster's release."
            ),
            false,
        )));
    };
    let found = version::parse_kube_version(text).ok().or_else(|| {
        // A managed cluster's suffix (`v1.33.2-eks-1234`) or an unsupported release: its minor.
        let t = text.trim_start_matches('v');
        let minor = t
            .strip_prefix("1.")?
            .split(|c: char| !c.is_ascii_digit())
            .next()?;
        minor.parse::<u32>().ok()
    });
    let Some(found) = found else {
        return Ok(Some((
            used,
            format!(
                "Live: the API server's version {} is not a Kubernetes release hpacalc reads: \
                 the rules of 1.{used} apply; pass --kube-version.",
                crate::error::quoted(text)
            ),
            false,
        )));
    };
    let minor = found.clamp(version::OLDEST, version::NEWEST);
    settings.controller.kube_minor = minor;
    settings.controller.features = version::default_gates(minor);
    if let Some(gates) = feature_gates {
        version::apply_feature_gates(&mut settings.controller.features, minor, gates)
            .map_err(|e| InputError::new("--feature-gates", e))?;
    }
    let line = if minor == found {
        format!("Live: the API server is {text}: the rules of 1.{minor} apply.")
    } else {
        format!(
            "Live: the API server is {text}, outside the releases hpacalc knows (1.{}–1.{}): \
             the rules of the nearest, 1.{minor}, apply.",
            version::OLDEST,
            version::NEWEST
        )
    };
    Ok(Some((minor, line, minor == found)))
}

/// One connection to the cluster, used for every evaluation of a run.
pub struct Session {
    api: Api,
    runtime: tokio::runtime::Runtime,
    name: String,
    namespace: String,
    options: Options,
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
    /// Loads the kubeconfig (or the in-cluster configuration).
    pub fn open(options: Options, name: &str) -> Result<Session> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| LiveError(format!("cannot start the I/O runtime: {e}")))?;
        let connection = Connection {
            kubeconfig: options.kubeconfig.as_deref(),
            context: options.context.as_deref(),
            cluster: options.cluster.as_deref(),
            user: options.user.as_deref(),
            timeout: options.timeout,
            verbosity: options.verbosity,
            overrides: options.overrides.clone(),
        };
        let api = runtime.block_on(Api::connect(&connection))?;
        let namespace =
            (options.namespace.clone()).unwrap_or_else(|| api.default_namespace.clone());
        path_segment("namespace", &namespace)?;
        path_segment("resource name", name)?;
        if let Some(dir) = &options.save {
            std::fs::create_dir_all(dir).map_err(|e| {
                InputError::new(
                    dir.display().to_string(),
                    format!("cannot create the capture directory: {e}"),
                )
            })?;
        }
        Ok(Session {
            api,
            runtime,
            name: name.to_string(),
            namespace,
            options,
        })
    }

    /// Runs a future on the session's I/O runtime (the watch's waits).
    pub fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.runtime.block_on(f)
    }

    /// Reads the cluster once and returns the scenario of the offline command on the capture.
    /// With `--save`, the capture replaces an earlier one only when the run succeeds.
    pub fn scenario(&self) -> Result<Scenario> {
        let save = self.options.save.as_deref();
        let mut outputs = Outputs::new(&[]);
        let save_pods = match save {
            Some(dir) => {
                outputs.capture_dir(dir, COMMAND_MARKER)?;
                Some(outputs.create("--save", &dir.join(fetch::PODS_FILE))?)
            }
            None => None,
        };
        let capture = self.runtime.block_on(fetch::capture(
            &self.api,
            &self.namespace,
            &self.name,
            self.options.with_nodes,
            save_pods,
        ))?;
        let mut settings = self.options.settings.clone();
        let rules = server_rules(
            &self.options.rules,
            capture.server_version.as_deref(),
            &mut settings,
        )?;
        let mut passthrough = self.options.passthrough.clone();
        if let Some((minor, _, _)) = &rules {
            passthrough.extend(["--kube-version".to_string(), format!("1.{minor}")]);
        }
        let files = Files::of(&capture)?;
        let args = files.command(&capture, &passthrough);
        if let Some(dir) = save {
            files.save(&mut outputs, dir, &capture, &args)?;
        }
        let clock = match capture.clock {
            fetch::Clock::Server => "the API server's clock (its Date header)",
            fetch::Clock::Local => "this machine's clock (the API server sent no Date)",
        };
        let mut notes = vec![format!(
            "Live: read from context {} at {} ({} pod(s) under the selector {}); evaluated at \
             the capture time, by {clock}.",
            self.api.context,
            self.api.server,
            capture.pod_count,
            (capture.scale_parsed.as_ref())
                .and_then(|s| s.selector.as_deref())
                .unwrap_or_default()
        )];
        notes.extend(rules.map(|(_, line, _)| line));
        if let Some(dir) = save {
            notes.push(format!(
                "Saved in {}: `{}` there gives this answer (command.txt).",
                dir.display(),
                offline_command(&args)
            ));
        }
        let fetch::Capture {
            pods,
            notes: capture_notes,
            diagnostics,
            captured_at,
            clock: dated_by,
            ..
        } = capture;
        settings.now = Some(captured_at);
        let source = LiveSource {
            context: self.api.context.clone(),
            server: self.api.server.clone(),
            server_clock: dated_by == fetch::Clock::Server,
        };
        let mut inputs = (files.named(save)).into_inputs(
            pods,
            self.options.history.clone(),
            settings,
            &live_name(fetch::PODS_FILE, save),
        );
        inputs.live = Some(source);
        let mut scenario = input::build(inputs)?;
        outputs.commit()?;
        notes.extend(capture_notes);
        scenario.input_notes.splice(0..0, notes);
        scenario.input_diagnostics.extend(diagnostics);
        Ok(scenario)
    }
}

/// The capture's texts, each under the name of the offline command's file.
struct Files {
    hpa: Text,
    scale: Text,
    /// The target object; `None` when its scale read failed (and no pod was read).
    target: Option<Text>,
    metrics: Option<Text>,
    /// The custom and external metrics APIs' answers (and error answers), with their flags.
    metric_files: Vec<(&'static str, Text)>,
    events: Text,
    nodes: Option<(Text, Text)>,
    /// The NodePools and the EC2NodeClasses, when Karpenter is installed.
    karpenter: Option<(Text, Option<Text>)>,
}

impl Files {
    fn of(capture: &fetch::Capture) -> Result<Files> {
        let text = |name: &str, text: &str| Text::new(name, text);
        Ok(Files {
            hpa: Text::new("hpa.yaml", to_yaml(&capture.hpa)?),
            scale: text("scale.json", &capture.scale),
            target: (capture.target_object.as_deref()).map(|t| text(fetch::TARGET_FILE, t)),
            metrics: capture.metrics.as_deref().map(|t| text("metrics.json", t)),
            metric_files: (capture.metric_files.files())
                .map(|(flag, file, t)| (flag, text(file, t)))
                .collect(),
            events: text(fetch::EVENTS_FILE, &capture.events),
            nodes: (capture.nodes.as_ref())
                .map(|(n, p)| (text(fetch::NODES_FILE, n), text(fetch::ALL_PODS_FILE, p))),
            karpenter: capture.karpenter.as_ref().map(|(pools, classes)| {
                (
                    text(fetch::NODEPOOLS_FILE, pools),
                    classes.as_deref().map(|c| text(fetch::NODECLASSES_FILE, c)),
                )
            }),
        })
    }

    /// The offline command's arguments, with file names relative to the capture directory.
    fn command(&self, capture: &fetch::Capture, passthrough: &[String]) -> Vec<String> {
        let mut files: Vec<(&str, &str)> =
            vec![("--hpa", &self.hpa.name), ("--scale", &self.scale.name)];
        if let Some(target) = &self.target {
            files.extend([("--target", &*target.name), ("--pods", fetch::PODS_FILE)]);
        }
        files.extend(self.metrics.iter().map(|t| ("--metrics", t.name.as_str())));
        files.extend(self.metric_files.iter().map(|(f, t)| (*f, t.name.as_str())));
        files.push(("--events", &self.events.name));
        if let Some((nodes, all_pods)) = &self.nodes {
            files.extend([("--nodes", &*nodes.name), ("--all-pods", &*all_pods.name)]);
        }
        if let Some((pools, classes)) = &self.karpenter {
            files.push(("--nodepool", &pools.name));
            files.extend(classes.iter().map(|c| ("--nodeclass", c.name.as_str())));
        }
        let mut args: Vec<String> = (files.into_iter())
            .flat_map(|(flag, file)| [flag.to_string(), file.to_string()])
            .collect();
        args.extend(["--now".into(), capture.captured_at.to_rfc3339()]);
        args.extend(passthrough.iter().cloned());
        args
    }

    /// Writes the capture's files and `command.txt` into `dir` (the pods are there already),
    /// aside until the run commits.
    fn save(
        &self,
        outputs: &mut Outputs<'_>,
        dir: &Path,
        capture: &fetch::Capture,
        args: &[String],
    ) -> Result<()> {
        let texts = [&self.hpa, &self.scale]
            .into_iter()
            .chain(&self.target)
            .chain(&self.metrics)
            .chain(self.metric_files.iter().map(|(_, t)| t))
            .chain([&self.events])
            .chain(self.nodes.iter().flat_map(|(n, p)| [n, p]))
            .chain(
                self.karpenter
                    .iter()
                    .flat_map(|(n, c)| std::iter::once(n).chain(c)),
            );
        for text in texts {
            outputs.stage("--save", &dir.join(&text.name), text.text.as_bytes())?;
        }
        let command = format!(
            "{COMMAND_MARKER} {} (run in this directory):\n{}\n",
            capture.target,
            offline_command(args)
        );
        outputs.stage("--save", &dir.join("command.txt"), command.as_bytes())
    }

    /// The offline command's inputs, with the pods read page by page as they arrived.
    /// Each text under the name a message or an assumption may show: the saved file's path
    /// with `--save`, else what it is in the live answer (no such file exists).
    fn named(mut self, save: Option<&Path>) -> Files {
        let rename = |t: &mut Text| t.name = live_name(&t.name, save);
        rename(&mut self.hpa);
        rename(&mut self.scale);
        self.target.iter_mut().for_each(rename);
        rename(&mut self.events);
        self.metrics.iter_mut().for_each(rename);
        self.metric_files.iter_mut().for_each(|(_, t)| rename(t));
        if let Some((nodes, all_pods)) = &mut self.nodes {
            rename(nodes);
            rename(all_pods);
        }
        if let Some((pools, classes)) = &mut self.karpenter {
            rename(pools);
            classes.iter_mut().for_each(rename);
        }
        self
    }

    fn into_inputs(
        self,
        pods: Option<CapturedPods>,
        history: Option<Text>,
        settings: Settings,
        pods_name: &str,
    ) -> Inputs {
        let (nodes, all_pods) = self.nodes.unzip();
        let (mut custom_metrics, mut external_metrics) = (Vec::new(), Vec::new());
        for (flag, text) in self.metric_files {
            match flag {
                "--custom-metrics" => custom_metrics.push(text),
                _ => external_metrics.push(text),
            }
        }
        Inputs {
            hpa: self.hpa,
            pods: pods.map(|value| Given::Read {
                name: pods_name.to_string(),
                value,
            }),
            metrics: self.metrics.map(Given::Text),
            custom_metrics,
            external_metrics,
            scale: Some(self.scale),
            scale_error: None,
            target: self.target.map(Given::Text),
            history,
            events: Some(self.events),
            nodes,
            all_pods,
            node_groups: None,
            karpenter: self.karpenter.map(|(pools, node_class)| KarpenterTexts {
                node_pools: vec![pools],
                node_class,
                instance_types: None,
            }),
            settings,
            live: None,
        }
    }
}

/// The name a captured text is shown under: `DIR/events.json` when saved there, else `the live
/// answer (events)`: a message or an assumption never names a file that does not exist.
fn live_name(file: &str, save: Option<&Path>) -> String {
    match save {
        Some(dir) => dir.join(file).display().to_string(),
        None => {
            let what = file.rsplit_once('.').map_or(file, |(stem, _)| stem);
            format!("the live answer ({})", what.replace('-', " "))
        }
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
}
