//! The kubeconfig as kubectl finds it, read as every input is read: `--kubeconfig`, else each
//! file of `KUBECONFIG` that exists (merged, the first to set a value wins), else
//! `~/.kube/config`. Each file goes through the bounded reader (no device, no FIFO without a
//! writer, a size cap while reading); the files the chosen context names (certificate
//! authority, client certificate and key, token file) are read the same way and inlined, and an
//! exec credential plugin is run here with a time limit and a bounded output, so the client
//! reads nothing else. An error names the file and the place, never what the file holds: a
//! kubeconfig holds secrets.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration as StdDuration;

use base64::Engine;
use kube::config::{AuthInfo, Kubeconfig};
use secrecy::SecretString;

use super::LiveError;
use crate::input::read;

/// The largest kubeconfig read: real ones are kilobytes, large merged ones a few megabytes.
pub const MAX_KUBECONFIG_BYTES: u64 = 16 * 1024 * 1024;
/// The largest file a kubeconfig names (a certificate, a key, a token) and the most an exec
/// plugin may print.
pub const MAX_CREDENTIAL_BYTES: u64 = 1024 * 1024;
/// How long an exec plugin may take without `--request-timeout`.
pub const EXEC_TIMEOUT: StdDuration = StdDuration::from_secs(30);

/// The kubeconfig in reach, with the chosen context's files inlined; `None` when there is none.
pub fn load(explicit: Option<&Path>) -> Result<Option<(Kubeconfig, Vec<PathBuf>)>, LiveError> {
    let paths = match explicit {
        Some(path) => vec![path.to_path_buf()],
        None => match std::env::var_os("KUBECONFIG") {
            // kubectl skips the files of KUBECONFIG that do not exist.
            Some(list) => std::env::split_paths(&list)
                .filter(|p| !p.as_os_str().is_empty() && p.exists())
                .collect(),
            None => home_kubeconfig()
                .filter(|p| p.exists())
                .into_iter()
                .collect(),
        },
    };
    if paths.is_empty() {
        return Ok(None);
    }
    let mut merged = Kubeconfig::default();
    for path in &paths {
        merged = merged.merge(read_file(path)?).map_err(|_| {
            LiveError(format!(
                "{}: found a kubeconfig whose kind or apiVersion differs from the files before it",
                path.display()
            ))
        })?;
    }
    Ok(Some((merged, paths)))
}

fn home_kubeconfig() -> Option<PathBuf> {
    let home = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE"))?;
    Some(Path::new(&home).join(".kube").join("config"))
}

/// One kubeconfig file: its documents merged, its relative paths made absolute.
fn read_file(path: &Path) -> Result<Kubeconfig, LiveError> {
    let shown = path.display().to_string();
    let bytes = read::read_bytes(path, MAX_KUBECONFIG_BYTES)
        .map_err(|e| LiveError(format!("cannot read the kubeconfig {e}")))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        LiveError(format!(
            "cannot read the kubeconfig {shown}: found bytes that are not UTF-8 at byte {}, \
             expected YAML",
            e.utf8_error().valid_up_to()
        ))
    })?;
    let mut config = parse(&shown, &text)?;
    if let Some(dir) = path.parent() {
        absolute_paths(&mut config, dir);
    }
    Ok(config)
}

/// One kubeconfig's text (`shown` names it): its documents merged. An error says the place and
/// the field, never the text there: a kubeconfig holds secrets.
pub fn parse(shown: &str, text: &str) -> Result<Kubeconfig, LiveError> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut config = Kubeconfig::default();
    for doc in serde_yaml::Deserializer::from_str(body) {
        let parsed: Kubeconfig = serde_path_to_error::deserialize(doc).map_err(|e| {
            // The parser's own words may quote the file: only the place is said.
            let place = match e.inner().location() {
                Some(l) => format!(":{}:{}", l.line(), l.column()),
                None => String::new(),
            };
            let path = field_path(e.path());
            let field = if path.is_empty() {
                String::new()
            } else {
                format!(": {path}")
            };
            LiveError(format!(
                "cannot read the kubeconfig {shown}{place}{field}: found YAML that is not a \
                 kubeconfig there, expected what `kubectl config view` shows (the file's \
                 content is not repeated here: it may hold secrets)"
            ))
        })?;
        config = config.merge(parsed).map_err(|_| {
            LiveError(format!(
                "cannot read the kubeconfig {shown}: found documents of different kinds"
            ))
        })?;
    }
    Ok(config)
}

/// The keys a kubeconfig has (kubectl's `clientcmd/api/v1` types): a path through the file is
/// said with these only, since any other key is the file's own text, which may be a secret.
const KUBECONFIG_KEYS: &[&str] = &[
    "apiVersion",
    "kind",
    "preferences",
    "colors",
    "clusters",
    "contexts",
    "users",
    "current-context",
    "extensions",
    "extension",
    "name",
    "cluster",
    "context",
    "user",
    "server",
    "tls-server-name",
    "insecure-skip-tls-verify",
    "certificate-authority",
    "certificate-authority-data",
    "proxy-url",
    "disable-compression",
    "client-certificate",
    "client-certificate-data",
    "client-key",
    "client-key-data",
    "token",
    "tokenFile",
    "as",
    "as-uid",
    "as-groups",
    "as-user-extra",
    "username",
    "password",
    "auth-provider",
    "config",
    "exec",
    "command",
    "args",
    "env",
    "value",
    "installHint",
    "provideClusterInfo",
    "interactiveMode",
    "namespace",
];

/// A field path (`users[0].user.token`) with every key that is not a kubeconfig key shown as
/// `?`.
fn field_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                let known = KUBECONFIG_KEYS.contains(&key.as_str());
                out.push_str(if known { key } else { "?" });
            }
            Segment::Unknown => {}
        }
    }
    out
}

/// Relative file references are relative to the kubeconfig's folder, as for kubectl
/// (client-go's `ResolveLocalPaths`; an exec command only when it holds a separator).
fn absolute_paths(config: &mut Kubeconfig, dir: &Path) {
    let absolute = |p: &mut Option<String>| {
        if let Some(path) = p.as_deref()
            && Path::new(path).is_relative()
        {
            *p = Some(dir.join(path).to_string_lossy().into_owned());
        }
    };
    for c in config
        .clusters
        .iter_mut()
        .filter_map(|c| c.cluster.as_mut())
    {
        absolute(&mut c.certificate_authority);
    }
    for a in config
        .auth_infos
        .iter_mut()
        .filter_map(|a| a.auth_info.as_mut())
    {
        absolute(&mut a.client_certificate);
        absolute(&mut a.client_key);
        absolute(&mut a.token_file);
        if let Some(exec) = &mut a.exec
            && exec
                .command
                .as_deref()
                .is_some_and(|c| c.contains(std::path::MAIN_SEPARATOR))
        {
            absolute(&mut exec.command);
        }
    }
}

/// `--cluster` and `--user`: the context uses these kubeconfig entries instead of its own, as
/// kubectl's flags of the same names make it; an entry the kubeconfig lacks is an error that
/// lists those it has.
pub fn use_entries(
    config: &mut Kubeconfig,
    context: &str,
    cluster: Option<&str>,
    user: Option<&str>,
) -> Result<(), LiveError> {
    let missing = |kind: &str, name: &str, names: Vec<&str>| {
        LiveError(format!(
            "{kind} {} not found in the kubeconfig (its {kind}s: {})",
            crate::error::quoted(name),
            crate::error::name_list(&names, crate::error::LIST_NAMES)
        ))
    };
    if let Some(name) = cluster
        && !config.clusters.iter().any(|c| c.name == name)
    {
        let names = config.clusters.iter().map(|c| c.name.as_str()).collect();
        return Err(missing("cluster", name, names));
    }
    if let Some(name) = user
        && !config.auth_infos.iter().any(|a| a.name == name)
    {
        let names = config.auth_infos.iter().map(|a| a.name.as_str()).collect();
        return Err(missing("user", name, names));
    }
    let entry = (config.contexts.iter_mut())
        .find(|c| c.name == context)
        .and_then(|c| c.context.as_mut());
    if let Some(ctx) = entry {
        if let Some(name) = cluster {
            ctx.cluster = name.to_string();
        }
        if let Some(name) = user {
            ctx.user = Some(name.to_string());
        }
    }
    Ok(())
}

/// Reads the files the context's cluster and user name, and runs its exec plugin, so that the
/// client reads nothing itself. `timeout` bounds the plugin (`--request-timeout`).
pub fn inline_context(
    config: &mut Kubeconfig,
    context: &str,
    timeout: Option<StdDuration>,
) -> Result<(), LiveError> {
    let Some(ctx) = (config.contexts.iter())
        .find(|c| c.name == context)
        .and_then(|c| c.context.clone())
    else {
        return Ok(());
    };
    if let Some(cluster) = (config.clusters.iter_mut())
        .find(|c| c.name == ctx.cluster)
        .and_then(|c| c.cluster.as_mut())
        && let Some(path) = cluster.certificate_authority.take()
    {
        cluster.certificate_authority_data = Some(encoded(&path, "certificate-authority")?);
    }
    let Some(user) = ctx.user.as_deref() else {
        return Ok(());
    };
    let Some(auth) = (config.auth_infos.iter_mut())
        .find(|a| a.name == user)
        .and_then(|a| a.auth_info.as_mut())
    else {
        return Ok(());
    };
    if let Some(path) = auth.client_certificate.take() {
        auth.client_certificate_data = Some(encoded(&path, "client-certificate")?);
    }
    if let Some(path) = auth.client_key.take() {
        auth.client_key_data = Some(SecretString::from(encoded(&path, "client-key")?));
    }
    if let Some(path) = auth.token_file.take()
        && auth.token.is_none()
    {
        let bytes = credential(&path, "tokenFile")?;
        let token = String::from_utf8(bytes).map_err(|_| {
            LiveError(format!(
                "cannot read the tokenFile {path}: found bytes that are not UTF-8"
            ))
        })?;
        // client-go trims the file's whitespace (`strings.TrimSpace`).
        auth.token = Some(SecretString::from(token.trim().to_string()));
    }
    if auth.exec.is_some() && auth.token.is_none() && auth.client_certificate_data.is_none() {
        run_exec(auth, timeout.unwrap_or(EXEC_TIMEOUT))?;
    }
    Ok(())
}

/// A file a kubeconfig names, read bounded: its bytes, never quoted.
fn credential(path: &str, field: &str) -> Result<Vec<u8>, LiveError> {
    read::read_bytes(Path::new(path), MAX_CREDENTIAL_BYTES)
        .map_err(|e| LiveError(format!("cannot read the kubeconfig's {field} {e}")))
}

/// A file as the `*-data` field that stands for it (base64).
fn encoded(path: &str, field: &str) -> Result<String, LiveError> {
    Ok(base64::engine::general_purpose::STANDARD.encode(credential(path, field)?))
}

/// `ExecCredential.status`: the token or client certificate the plugin prints.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct ExecStatus {
    #[serde(default)]
    token: Option<String>,
    #[serde(default)]
    client_certificate_data: Option<String>,
    #[serde(default)]
    client_key_data: Option<String>,
}

#[derive(serde::Deserialize)]
struct ExecCredential {
    #[serde(default)]
    status: Option<ExecStatus>,
}

// Port of client-go's exec authenticator (plugin/pkg/client/auth/exec/exec.go, `refreshCredsLocked`):
// the plugin runs with KUBERNETES_EXEC_INFO, non-interactive, and prints an ExecCredential.
fn run_exec(auth: &mut AuthInfo, timeout: StdDuration) -> Result<(), LiveError> {
    let Some(exec) = auth.exec.take() else {
        return Ok(());
    };
    let Some(command) = exec.command.clone() else {
        return Err(LiveError(
            "the kubeconfig's exec plugin names no command".to_string(),
        ));
    };
    let api_version = exec
        .api_version
        .clone()
        .unwrap_or_else(|| "client.authentication.k8s.io/v1".to_string());
    let info = serde_json::json!({
        "apiVersion": api_version,
        "kind": "ExecCredential",
        "spec": {"interactive": false},
    });
    let mut cmd = std::process::Command::new(&command);
    cmd.args(exec.args.iter().flatten())
        .env("KUBERNETES_EXEC_INFO", info.to_string())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit());
    for pair in exec.env.iter().flatten() {
        if let (Some(name), Some(value)) = (pair.get("name"), pair.get("value")) {
            cmd.env(name, value);
        }
    }
    let out = run_bounded(cmd, timeout).map_err(|why| {
        let hint = exec
            .install_hint
            .as_deref()
            .map(|h| format!(" ({})", crate::error::quoted_bare(h)))
            .unwrap_or_default();
        LiveError(format!(
            "the kubeconfig's exec plugin {} {why}{hint}",
            crate::error::quoted(&command)
        ))
    })?;
    take_credential(auth, &command, &out)
}

/// What an exec plugin printed (`ExecCredential` JSON) as the user's token, or client
/// certificate and key.
pub fn take_credential(auth: &mut AuthInfo, command: &str, out: &[u8]) -> Result<(), LiveError> {
    let credential: ExecCredential = serde_json::from_slice(out).map_err(|e| {
        LiveError(format!(
            "the kubeconfig's exec plugin {} printed no ExecCredential (line {}, column {}: \
             not JSON of that kind)",
            crate::error::quoted(command),
            e.line(),
            e.column()
        ))
    })?;
    let status = credential.status.ok_or_else(|| {
        LiveError(format!(
            "the kubeconfig's exec plugin {} printed an ExecCredential without status",
            crate::error::quoted(command)
        ))
    })?;
    match (
        status.token,
        status.client_certificate_data,
        status.client_key_data,
    ) {
        (Some(token), _, _) => auth.token = Some(SecretString::from(token)),
        (None, Some(cert), Some(key)) => {
            let b64 = base64::engine::general_purpose::STANDARD;
            auth.client_certificate_data = Some(b64.encode(cert));
            auth.client_key_data = Some(SecretString::from(b64.encode(key)));
        }
        _ => {
            return Err(LiveError(format!(
                "the kubeconfig's exec plugin {} printed an ExecCredential with neither a token \
                 nor a client certificate and key",
                crate::error::quoted(command)
            )));
        }
    }
    Ok(())
}

/// Runs a command for at most `timeout`, keeping at most `MAX_CREDENTIAL_BYTES` of its output;
/// a plugin that takes longer, prints more or fails is stopped and said so.
fn run_bounded(mut cmd: std::process::Command, timeout: StdDuration) -> Result<Vec<u8>, String> {
    let mut child = cmd.spawn().map_err(|e| format!("cannot be started: {e}"))?;
    let Some(mut stdout) = child.stdout.take() else {
        return Err("gave no output stream".to_string());
    };
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let read = (&mut stdout)
            .take(MAX_CREDENTIAL_BYTES + 1)
            .read_to_end(&mut out);
        read.map(|_| out)
    });
    let deadline = std::time::Instant::now() + timeout;
    let late = || {
        format!(
            "gave no credential within {} (--request-timeout)",
            crate::time::Duration::from(timeout)
        )
    };
    // The output ends (or reaches the cap), then the plugin exits: both before the deadline.
    while !reader.is_finished() {
        if std::time::Instant::now() >= deadline {
            stop(&mut child);
            return Err(late());
        }
        std::thread::sleep(StdDuration::from_millis(20));
    }
    let out = reader
        .join()
        .map_err(|_| "output could not be read".to_string())?
        .map_err(|e| format!("output could not be read: {e}"))?;
    if out.len() as u64 > MAX_CREDENTIAL_BYTES {
        stop(&mut child);
        return Err(format!(
            "printed more than {MAX_CREDENTIAL_BYTES} bytes, expected one ExecCredential"
        ));
    }
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if std::time::Instant::now() >= deadline => {
                stop(&mut child);
                return Err(late());
            }
            Ok(None) => std::thread::sleep(StdDuration::from_millis(20)),
            Err(e) => return Err(format!("could not be waited for: {e}")),
        }
    };
    if !status.success() {
        return Err(format!("failed ({status})"));
    }
    Ok(out)
}

fn stop(child: &mut std::process::Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// The names of a kubeconfig's contexts, for messages.
pub fn context_names(config: &Kubeconfig) -> Vec<&str> {
    config.contexts.iter().map(|c| c.name.as_str()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fuzz target's first crash: a line of the file taken as a key, token and all, was
    /// said as the error's field.
    #[test]
    fn an_error_says_the_field_path_with_kubeconfig_keys_only() {
        let text = "8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"s3cr3t-canary\",\
                    \"x\":\"2026\n- name: eks\n  cluster: {server: \"https://x\", insecure1`";
        let err = parse("fuzz.yaml", text).unwrap_err().to_string();
        assert!(!err.contains("s3cr3t"), "{err}");
        let text = "users:\n- name: dev\n  user:\n    token: [s3cr3t-canary]\n";
        let err = parse("kubeconfig", text).unwrap_err().to_string();
        assert!(err.contains(": users[0].user.token: found YAML"), "{err}");
        assert!(!err.contains("s3cr3t"), "{err}");
    }

    #[test]
    fn an_exec_credential_gives_its_token_or_certificate_and_key() {
        let mut auth = AuthInfo::default();
        let out = br#"{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
            "status":{"token":"t0k"}}"#;
        take_credential(&mut auth, "plugin", out).unwrap();
        assert!(auth.token.is_some());
        let err = take_credential(&mut AuthInfo::default(), "plugin", b"{\"status\":{}}");
        assert!(err.unwrap_err().to_string().contains("neither a token"));
        let err = take_credential(&mut AuthInfo::default(), "plugin", b"s3cr3t");
        let err = err.unwrap_err().to_string();
        assert!(
            err.contains("line 1, column 1") && !err.contains("s3cr3t"),
            "{err}"
        );
    }
}

/// kubectl's flags that override the kubeconfig's cluster and user (genericclioptions
/// `ConfigFlags`: `--server`, `--insecure-skip-tls-verify`, `--token`, `--as`, `--as-group`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overrides {
    pub server: Option<String>,
    pub insecure_skip_tls_verify: bool,
    pub token: Option<String>,
    /// `--as`: the user to impersonate (`Impersonate-User`).
    pub as_user: Option<String>,
    /// `--as-group`: the groups to impersonate (`Impersonate-Group`, one header each).
    pub as_groups: Vec<String>,
}

impl Overrides {
    pub fn is_empty(&self) -> bool {
        *self == Overrides::default()
    }
}

/// The name of the context (and its cluster and user) built from the flags alone when there is
/// no kubeconfig: `--server` and `--token` are enough for kubectl.
pub const FLAGS_CONTEXT: &str = "(from flags)";

/// A kubeconfig of one empty context, for `--server` without a kubeconfig file.
pub fn from_flags() -> Kubeconfig {
    use kube::config::{Cluster, Context, NamedAuthInfo, NamedCluster, NamedContext};
    Kubeconfig {
        clusters: vec![NamedCluster {
            name: FLAGS_CONTEXT.to_string(),
            cluster: Some(Cluster::default()),
            other: Default::default(),
        }],
        auth_infos: vec![NamedAuthInfo {
            name: FLAGS_CONTEXT.to_string(),
            auth_info: Some(AuthInfo::default()),
            other: Default::default(),
        }],
        contexts: vec![NamedContext {
            name: FLAGS_CONTEXT.to_string(),
            context: Some(Context {
                cluster: FLAGS_CONTEXT.to_string(),
                user: Some(FLAGS_CONTEXT.to_string()),
                ..Context::default()
            }),
            other: Default::default(),
        }],
        current_context: Some(FLAGS_CONTEXT.to_string()),
        ..Kubeconfig::default()
    }
}

// Port of client-go's `DirectClientConfig.getCluster` and `getAuthInfo`
// (tools/clientcmd/client_config.go): the overrides are merged over the context's cluster and
// user; an insecure override clears the CA (else "CA and insecure-skip-tls-verify couldn't both
// be set"). Impersonation is `ImpersonationConfig` (rest.Config), sent as `Impersonate-User` and
// one `Impersonate-Group` header per group (transport/round_trippers.go,
// `NewImpersonatingRoundTripper`).
pub fn apply_overrides(
    config: &mut Kubeconfig,
    context: &str,
    o: &Overrides,
) -> Result<(), LiveError> {
    use kube::config::{Cluster, NamedAuthInfo, NamedCluster};
    if o.is_empty() {
        return Ok(());
    }
    let Some(ctx) = (config.contexts.iter_mut())
        .find(|c| c.name == context)
        .and_then(|c| c.context.as_mut())
    else {
        return Ok(());
    };
    if ctx.user.is_none() {
        ctx.user = Some(context.to_string());
    }
    let (cluster_name, user_name) = (ctx.cluster.clone(), ctx.user.clone().unwrap_or_default());
    if o.server.is_some() || o.insecure_skip_tls_verify {
        if !config.clusters.iter().any(|c| c.name == cluster_name) {
            config.clusters.push(NamedCluster {
                name: cluster_name.clone(),
                cluster: Some(Cluster::default()),
                other: Default::default(),
            });
        }
        let entry = (config.clusters.iter_mut())
            .find(|c| c.name == cluster_name)
            .map(|c| c.cluster.get_or_insert_with(Cluster::default));
        if let Some(cluster) = entry {
            if let Some(server) = &o.server {
                cluster.server = Some(server.clone());
            }
            if o.insecure_skip_tls_verify {
                cluster.insecure_skip_tls_verify = Some(true);
                cluster.certificate_authority = None;
                cluster.certificate_authority_data = None;
            }
        }
    }
    if !config.auth_infos.iter().any(|a| a.name == user_name) {
        config.auth_infos.push(NamedAuthInfo {
            name: user_name.clone(),
            auth_info: Some(AuthInfo::default()),
            other: Default::default(),
        });
    }
    let auth = (config.auth_infos.iter_mut())
        .find(|a| a.name == user_name)
        .map(|a| a.auth_info.get_or_insert_with(AuthInfo::default));
    if let Some(auth) = auth {
        if let Some(token) = &o.token {
            auth.token = Some(SecretString::from(token.clone()));
            auth.token_file = None;
        }
        if let Some(user) = &o.as_user {
            auth.impersonate = Some(user.clone());
        }
        if !o.as_groups.is_empty() {
            auth.impersonate_groups = Some(o.as_groups.clone());
        }
    }
    Ok(())
}

#[cfg(test)]
mod override_tests {
    use super::*;

    #[test]
    fn get_cluster_and_get_auth_info_merge_the_flags_over_the_context() {
        let mut config = from_flags();
        let o = Overrides {
            server: Some("https://10.0.0.1:6443".into()),
            insecure_skip_tls_verify: true,
            token: Some("t".into()),
            as_user: Some("jane".into()),
            as_groups: vec!["ops".into(), "dev".into()],
        };
        config.clusters[0]
            .cluster
            .as_mut()
            .unwrap()
            .certificate_authority_data = Some("Q0E=".into());
        apply_overrides(&mut config, FLAGS_CONTEXT, &o).unwrap();
        let cluster = config.clusters[0].cluster.as_ref().unwrap();
        assert_eq!(cluster.server.as_deref(), Some("https://10.0.0.1:6443"));
        assert_eq!(cluster.insecure_skip_tls_verify, Some(true));
        assert_eq!(cluster.certificate_authority_data, None);
        let auth = config.auth_infos[0].auth_info.as_ref().unwrap();
        assert_eq!(auth.impersonate.as_deref(), Some("jane"));
        assert_eq!(
            auth.impersonate_groups,
            Some(vec!["ops".into(), "dev".into()])
        );
        assert!(auth.token.is_some());
    }
}
