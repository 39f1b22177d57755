//! The one harness of the integration tests (just's `tests/test.rs`, ripgrep's `tests/util.rs`):
//! [`Test`] runs the binary from the project root with a fixed width, no colour and an empty
//! stdin, and checks its exit code, stdout and stderr. What several modules share lives here
//! once: the project root, scratch folders, the JSON outputs and their schema check, the parts of
//! a report that two runs must agree on, and the malformed-input corpus of `fixtures/malformed/`.

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The time most tests evaluate at (`--now`).
pub const NOW: &str = "2026-11-29T15:00:00Z";

/// The project root: every test runs there, and fixture paths are relative to it.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh, empty folder `hpacalc-NAME-PID` in cargo's folder for integration tests' files
/// (`target/tmp`, where a copied binary may run).
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("hpacalc-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// A [`temp_dir`] removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        Scratch(temp_dir(name))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What one stream must hold.
enum Expect {
    Is(String),
    Contains(String),
    StartsWith(String),
    Lacks(String),
    Lines(usize),
}

impl Expect {
    /// What is wrong with `text`, if anything.
    fn fault(&self, text: &str) -> Option<String> {
        let fault = match self {
            Expect::Is(want) => text != want,
            Expect::Contains(want) => !text.contains(want.as_str()),
            Expect::StartsWith(want) => !text.starts_with(want.as_str()),
            Expect::Lacks(unwanted) => text.contains(unwanted.as_str()),
            Expect::Lines(n) => text.lines().count() != *n,
        };
        fault.then(|| match self {
            Expect::Is(want) => format!("is not exactly {want:?}"),
            Expect::Contains(want) => format!("does not contain {want:?}"),
            Expect::StartsWith(want) => format!("does not start with {want:?}"),
            Expect::Lacks(unwanted) => format!("contains {unwanted:?}"),
            Expect::Lines(n) => format!("has {} lines, expected {n}", text.lines().count()),
        })
    }
}

enum Stdin {
    Text(Vec<u8>),
    Null,
    File(PathBuf),
}

/// How many times its CPU bound a `cpu_within` case may take on the wall clock: on a machine
/// whose load is 20 on two cores, a process gets about a tenth of a core.
pub const CPU_WALL_FACTOR: u32 = 15;

/// One run of hpacalc and what it must print:
/// `Test::new().args([...]).stdin("...").env("K", "V").status(1).stdout("").stderr_contains("...")`,
/// then `.run()` for the output or `.json()` for the parsed stdout of a successful run.
///
/// It runs from the project root with `COLUMNS=120` and `NO_COLOR=1` (and no `CLICOLOR_FORCE`),
/// an empty stdin and piped stdout and stderr. Only what is asked is checked, and always that
/// nothing panicked.
#[must_use]
pub struct Test {
    program: PathBuf,
    args: Vec<OsString>,
    current_dir: PathBuf,
    /// In order: a later setting of a variable wins, `None` removes it.
    env: Vec<(OsString, Option<OsString>)>,
    stdin: Stdin,
    stdout_file: Option<PathBuf>,
    stderr_file: Option<PathBuf>,
    memory_limit_mib: Option<u64>,
    status: Option<i32>,
    stdout: Vec<Expect>,
    stderr: Vec<Expect>,
    within: Option<Duration>,
    cpu_within: Option<Duration>,
    schema: Option<String>,
}

impl Test {
    pub fn new() -> Test {
        Test {
            program: PathBuf::from(env!("CARGO_BIN_EXE_hpacalc")),
            args: Vec::new(),
            current_dir: root(),
            env: Vec::new(),
            stdin: Stdin::Text(Vec::new()),
            stdout_file: None,
            stderr_file: None,
            memory_limit_mib: None,
            status: None,
            stdout: Vec::new(),
            stderr: Vec::new(),
            within: None,
            cpu_within: None,
            schema: None,
        }
        .env("COLUMNS", "120")
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
    }

    /// Runs another binary instead (a copy of hpacalc under another name, another build).
    pub fn program(mut self, program: impl Into<PathBuf>) -> Test {
        self.program = program.into();
        self
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Test {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Test
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Test {
        self.current_dir = dir.into();
        self
    }

    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Test {
        self.env
            .push((key.as_ref().to_owned(), Some(value.as_ref().to_owned())));
        self
    }

    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Test {
        self.env.push((key.as_ref().to_owned(), None));
        self
    }

    /// Writes `text` to stdin, then closes it.
    pub fn stdin(mut self, text: impl Into<Vec<u8>>) -> Test {
        self.stdin = Stdin::Text(text.into());
        self
    }

    /// Stdin is `/dev/null`.
    pub fn stdin_null(mut self) -> Test {
        self.stdin = Stdin::Null;
        self
    }

    /// Stdin reads `path` (a device such as `/dev/zero`).
    pub fn stdin_file(mut self, path: impl Into<PathBuf>) -> Test {
        self.stdin = Stdin::File(path.into());
        self
    }

    /// Stdout writes to `path` (such as `/dev/full`) instead of a pipe; it is then read as empty.
    pub fn stdout_file(mut self, path: impl Into<PathBuf>) -> Test {
        self.stdout_file = Some(path.into());
        self
    }

    /// Stderr writes to `path` instead of a pipe; it is then read as empty.
    pub fn stderr_file(mut self, path: impl Into<PathBuf>) -> Test {
        self.stderr_file = Some(path.into());
        self
    }

    /// Runs under an address-space limit, through `prlimit` when the machine has it.
    pub fn memory_limit_mib(mut self, mib: u64) -> Test {
        self.memory_limit_mib = Some(mib);
        self
    }

    /// The exit code it must end with.
    pub fn status(mut self, code: i32) -> Test {
        self.status = Some(code);
        self
    }

    /// An error: exit `code`, nothing on stdout, and stderr starting with `error: `.
    pub fn fails(self, code: i32) -> Test {
        self.status(code).stdout("").stderr_starts_with("error: ")
    }

    /// Stdout is exactly `text`.
    pub fn stdout(mut self, text: impl Into<String>) -> Test {
        self.stdout.push(Expect::Is(text.into()));
        self
    }

    pub fn stdout_contains(mut self, text: impl Into<String>) -> Test {
        self.stdout.push(Expect::Contains(text.into()));
        self
    }

    pub fn stdout_lacks(mut self, text: impl Into<String>) -> Test {
        self.stdout.push(Expect::Lacks(text.into()));
        self
    }

    /// Stderr is exactly `text`.
    pub fn stderr(mut self, text: impl Into<String>) -> Test {
        self.stderr.push(Expect::Is(text.into()));
        self
    }

    pub fn stderr_contains(mut self, text: impl Into<String>) -> Test {
        self.stderr.push(Expect::Contains(text.into()));
        self
    }

    pub fn stderr_starts_with(mut self, text: impl Into<String>) -> Test {
        self.stderr.push(Expect::StartsWith(text.into()));
        self
    }

    pub fn stderr_lacks(mut self, text: impl Into<String>) -> Test {
        self.stderr.push(Expect::Lacks(text.into()));
        self
    }

    /// Stderr has exactly `n` lines.
    pub fn stderr_lines(mut self, n: usize) -> Test {
        self.stderr.push(Expect::Lines(n));
        self
    }

    /// It must end within `limit` of CPU time (user and system, every thread), enforced by the
    /// kernel through `prlimit --cpu`: a bound on the work, whatever the machine's load. Against
    /// a hang that spends no CPU, it must also end within `CPU_WALL_FACTOR` times `limit` on the
    /// wall clock. Of two bounds, the tighter holds.
    pub fn cpu_within(mut self, limit: Duration) -> Test {
        self.cpu_within = Some(self.cpu_within.map_or(limit, |l| l.min(limit)));
        self
    }

    /// It must end within `limit` (a bound in seconds, generous for a loaded machine).
    pub fn within(mut self, limit: Duration) -> Test {
        self.within = Some(limit);
        self
    }

    /// [`Test::json`] checks the output against this output of `hpacalc schema` (`report`,
    /// `simulation`, `audit`, `watchLine`).
    pub fn schema(mut self, output: &str) -> Test {
        self.schema = Some(output.to_string());
        self
    }

    /// The command as configured, for a test that drives the process itself (signals, closed
    /// pipes); stdin, stdout and stderr are left to it.
    pub fn command(&self) -> Command {
        let mut limits = Vec::new();
        if let Some(mib) = self.memory_limit_mib {
            limits.push(format!("--as={}", mib * 1024 * 1024));
        }
        if let Some(limit) = self.cpu_within {
            // The kernel ends the process past its CPU time (SIGXCPU), however loaded the
            // machine is.
            limits.push(format!("--cpu={}", limit.as_secs().max(1)));
        }
        let mut cmd = if !limits.is_empty() && Path::new("/usr/bin/prlimit").exists() {
            let mut c = Command::new("/usr/bin/prlimit");
            c.args(&limits).arg("--").arg(&self.program);
            c
        } else {
            Command::new(&self.program)
        };
        cmd.args(&self.args).current_dir(&self.current_dir);
        for (key, value) in &self.env {
            match value {
                Some(value) => cmd.env(key, value),
                None => cmd.env_remove(key),
            };
        }
        cmd
    }

    /// Runs, checks everything asked, and returns the output.
    #[track_caller]
    pub fn run(self) -> Output {
        let (output, took) = self.execute();
        self.check(&output, took);
        output
    }

    /// Runs, checks that it succeeded (or ended with the `status` asked) and everything else
    /// asked, and returns stdout parsed as one JSON value, checked against the `schema` if asked.
    #[track_caller]
    pub fn json(mut self) -> Value {
        self.status = self.status.or(Some(0));
        let schema = self.schema.take();
        let output = self.run();
        match schema {
            Some(schema) => json_of(&output, &schema),
            None => serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
                panic!("stdout is not one JSON value: {e}\n{}", stdout(&output))
            }),
        }
    }

    fn execute(&self) -> (Output, Duration) {
        let mut cmd = self.command();
        cmd.stdin(match &self.stdin {
            Stdin::Text(_) => Stdio::piped(),
            Stdin::Null => Stdio::null(),
            Stdin::File(path) => Stdio::from(
                std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
            ),
        });
        cmd.stdout(to(self.stdout_file.as_deref()));
        cmd.stderr(to(self.stderr_file.as_deref()));
        let started = Instant::now();
        let mut child = cmd.spawn().expect("hpacalc runs");
        if let (Stdin::Text(text), Some(mut pipe)) = (&self.stdin, child.stdin.take()) {
            // hpacalc may end before it reads everything (a usage error): a closed pipe is fine.
            if let Err(e) = pipe.write_all(text) {
                assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {e}");
            }
        }
        let output = child.wait_with_output().expect("hpacalc finishes");
        (output, started.elapsed())
    }

    #[track_caller]
    fn check(&self, output: &Output, took: Duration) {
        let (out, err) = (stdout(output), stderr(output));
        let mut faults = Vec::new();
        if let Some(code) = self.status
            && output.status.code() != Some(code)
        {
            faults.push(format!(
                "exit code {:?}, expected {code}",
                output.status.code()
            ));
        }
        faults.extend(
            self.stdout
                .iter()
                .filter_map(|e| e.fault(&out))
                .map(|f| format!("stdout {f}")),
        );
        faults.extend(
            self.stderr
                .iter()
                .filter_map(|e| e.fault(&err))
                .map(|f| format!("stderr {f}")),
        );
        if err.contains("panicked") {
            faults.push("hpacalc panicked".to_string());
        }
        if let Some(limit) = self.within
            && took >= limit
        {
            faults.push(format!("took {took:?}, expected less than {limit:?}"));
        }
        if let Some(limit) = self.cpu_within {
            use std::os::unix::process::ExitStatusExt;
            // SIGXCPU at the soft limit, SIGKILL at the hard one.
            if matches!(output.status.signal(), Some(24 | 9)) {
                faults.push(format!("used more than {limit:?} of CPU time"));
            }
            if took >= limit * CPU_WALL_FACTOR {
                faults.push(format!(
                    "took {took:?} of wall-clock time, expected less than {:?}",
                    limit * CPU_WALL_FACTOR
                ));
            }
        }
        assert!(
            faults.is_empty(),
            "hpacalc {}\n  {}\n--- stdout\n{}\n--- stderr\n{}",
            shown(
                &self
                    .args
                    .iter()
                    .map(|a| a.to_string_lossy())
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            faults.join("\n  "),
            shown(&out),
            shown(&err),
        );
    }
}

/// A pipe, or the file at `path` opened for writing.
fn to(path: Option<&Path>) -> Stdio {
    match path {
        None => Stdio::piped(),
        Some(path) => Stdio::from(
            std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display())),
        ),
    }
}

/// `text`, cut to 4,000 characters for a failure message.
fn shown(text: &str) -> String {
    match text.char_indices().nth(4000) {
        Some((at, _)) => format!("{}... ({} bytes)", &text[..at], text.len()),
        None => text.to_string(),
    }
}

/// Runs hpacalc with `args` (the harness's defaults, nothing asked).
pub fn hpacalc(args: &[&str]) -> Output {
    Test::new().args(args).run()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Stdout as one JSON value that fits `hpacalc schema`'s `output`.
#[track_caller]
pub fn json_of(o: &Output, output: &str) -> Value {
    let v = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("stdout is not one JSON value: {e}\n{}", stdout(o)));
    crate::schema::assert_fits(output, &v);
    v
}

/// Runs with `-o json` and parses the result; the command must succeed.
pub fn json_output(args: &[&str]) -> Value {
    let test = Test::new().args(args).args(["-o", "json"]);
    // --print-hpa prints a Kubernetes HPA object: its schema is the API server's, not hpacalc's.
    if args.contains(&"--print-hpa") {
        test.json()
    } else {
        test.schema("report").json()
    }
}

/// The same at [`NOW`].
pub fn json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["--now", NOW]);
    json_output(&all)
}

/// The approximate decision, which every form of the same HPA must share.
pub fn approximate(v: &serde_json::Value) -> serde_json::Value {
    serde_json::json!({
        "approximation": v["approximation"],
        "currentReplicas": v["currentReplicas"],
        "desiredReplicas": v["desiredReplicas"],
        "metricProposal": v["decision"]["metricProposal"],
        "change": v["decision"]["change"],
        "rescaleReason": v["decision"]["rescaleReason"],
    })
}

/// Everything of a report that is the controller's decision, which two forms of the same inputs
/// must agree on (not the steps, assumptions, sources and warnings, which name the forms).
pub fn decision(v: &Value) -> Value {
    let keys = [
        "now",
        "hpa",
        "target",
        "currentReplicas",
        "desiredReplicas",
        "minReplicas",
        "maxReplicas",
        "metrics",
        "decision",
        "conditions",
        "statusComparison",
        "approximation",
    ];
    Value::Object(
        keys.iter()
            .map(|k| ((*k).to_string(), v[*k].clone()))
            .collect(),
    )
}

/// The codes of a report's diagnostics.
pub fn codes(v: &Value) -> Vec<String> {
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

/// The rows of a simulation's timeline.
pub fn rows(v: &Value) -> &Vec<Value> {
    v["timeline"].as_array().expect("timeline")
}

/// The timeline row of the sync at `time` seconds.
pub fn row(v: &Value, time: i64) -> &Value {
    rows(v)
        .iter()
        .find(|r| r["time"] == time)
        .unwrap_or_else(|| panic!("no sync at {time}s"))
}

/// The malformed-input corpus: every file of `fixtures/malformed/` and what reading it must
/// print, from `fixtures/malformed/CASES.tsv` (its header says the format).
pub const MALFORMED: &str = "fixtures/malformed";

/// One case of the corpus: a file, hpacalc's arguments and what stderr must say (`FILE` stands
/// for the file's path in both).
pub struct Malformed {
    pub file: String,
    pub args: String,
    pub expected: Vec<String>,
}

impl Malformed {
    /// The run and everything it must print: exit 1, nothing on stdout, one line on stderr that
    /// starts with `error: ` and the file's path, and the case's expectations.
    pub fn test(&self) -> Test {
        let path = format!("{MALFORMED}/{}", self.file);
        let mut test = Test::new()
            .args(
                self.args
                    .split_whitespace()
                    .map(|a| a.replace("FILE", &path)),
            )
            .fails(1)
            .stderr_starts_with(format!("error: {path}"))
            .stderr_lines(1);
        for expected in &self.expected {
            let expected = expected.replace("FILE", &path);
            test = if let Some(line) = expected.strip_prefix("= ") {
                test.stderr(format!("{line}\n"))
            } else if let Some(absent) = expected.strip_prefix("! ") {
                test.stderr_lacks(absent)
            } else if expected.starts_with("error: ") {
                test.stderr_starts_with(expected)
            } else {
                test.stderr_contains(expected)
            };
        }
        test
    }
}

/// Every case of `fixtures/malformed/CASES.tsv`, in its order.
pub fn malformed_cases() -> Vec<Malformed> {
    let table = std::fs::read_to_string(root().join(MALFORMED).join("CASES.tsv"))
        .expect("fixtures/malformed/CASES.tsv");
    table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let mut fields = line.split('\t');
            let (Some(file), Some(args)) = (fields.next(), fields.next()) else {
                panic!("CASES.tsv: {line:?}: expected file<TAB>arguments<TAB>expected...");
            };
            let expected: Vec<String> = fields.map(String::from).collect();
            assert!(
                !expected.is_empty(),
                "CASES.tsv: {line:?}: nothing expected"
            );
            Malformed {
                file: file.to_string(),
                args: args.to_string(),
                expected,
            }
        })
        .collect()
}

/// Runs every case of these corpus files (each must have one).
#[track_caller]
pub fn check_malformed(files: &[&str]) {
    let cases = malformed_cases();
    let listed: BTreeSet<&str> = cases.iter().map(|c| c.file.as_str()).collect();
    for file in files {
        assert!(listed.contains(file), "no case of {file} in CASES.tsv");
    }
    for case in cases.iter().filter(|c| files.contains(&c.file.as_str())) {
        case.test().run();
    }
}

/// A free port on 127.0.0.1.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A plain HTTP/1.0 GET on 127.0.0.1: the status code and the body.
pub fn get(port: u16, path: &str) -> Option<(u16, String)> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut text = String::new();
    stream.read_to_string(&mut text).ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    let code = head.split_whitespace().nth(1)?.parse().ok()?;
    Some((code, body.to_string()))
}
