//! Malformed and hostile input: the corpus of bad files in `fixtures/malformed/`, each with the
//! command that reads it and what its error must say (`CASES.tsv`), and inputs built to hurt
//! (huge, deeply nested, self-referential). Every one exits 1, prints nothing on stdout, and never
//! panics.

use std::collections::BTreeSet;
use std::time::Duration;

use crate::support::{MALFORMED, Test, codes, malformed_cases, root, stderr, temp_dir};

#[test]
fn every_malformed_file_gets_its_message() {
    let cases = malformed_cases();
    for case in &cases {
        case.test().run();
    }
    // Every file of the folder has a case and every case's file is there; no case is listed
    // twice; and the corpus stays at 120 or more.
    let files: BTreeSet<String> = std::fs::read_dir(root().join(MALFORMED))
        .expect("fixtures/malformed")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n != "CASES.tsv")
        .collect();
    let listed: BTreeSet<String> = cases.iter().map(|c| c.file.clone()).collect();
    assert_eq!(
        files, listed,
        "fixtures/malformed/CASES.tsv must list every file"
    );
    let runs: BTreeSet<(&str, &str)> = cases
        .iter()
        .map(|c| (c.file.as_str(), c.args.as_str()))
        .collect();
    assert_eq!(
        runs.len(),
        cases.len(),
        "a case of CASES.tsv is listed twice"
    );
    assert!(cases.len() >= 120, "only {} malformed inputs", cases.len());
}

#[test]
fn a_huge_file_of_garbage_fails_fast() {
    let dir = temp_dir("garbage");
    let path = dir.join("garbage.yaml");
    // 200 MB of bytes that are neither YAML, JSON nor UTF-8.
    let chunk: Vec<u8> = (0..1_048_576u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8 | 0x80)
        .collect();
    {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        for _ in 0..200 {
            f.write_all(&chunk).unwrap();
        }
    }
    let shown = path.to_string_lossy().into_owned();
    for flag in ["--hpa", "--pods"] {
        let args: Vec<&str> = if flag == "--hpa" {
            vec!["--hpa", &shown]
        } else {
            vec!["--hpa", "fixtures/hpa/web-cpu.yaml", "--pods", &shown]
        };
        Test::new()
            .args(args)
            .status(1)
            .stdout("")
            .stderr_contains(&shown)
            // Generous: the point is "seconds, not minutes", on a loaded CI machine.
            .within(Duration::from_secs(30))
            .run();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn crlf_line_ends_and_a_bom_are_accepted() {
    let csv = "\u{feff}pod,cpu,cpu_request\r\na,400m,500m\r\nb,400m,500m\r\n";
    let v = Test::new()
        .args([
            "--hpa",
            "fixtures/hpa/web-cpu.yaml",
            "--pods",
            "-",
            "-o",
            "json",
        ])
        .stdin(csv)
        .schema("report")
        .json();
    assert_eq!(v["metrics"][0]["currentUtilization"], 80);
}

#[test]
fn a_history_of_thousands_of_rows_is_read() {
    let mut csv = String::from("age,recommendation,change\n");
    for i in (0..5000).rev() {
        csv.push_str(&format!(
            "{}s,{},{}\n",
            i * 15 + 15,
            4 + i % 3,
            if i % 50 == 0 { "1" } else { "" }
        ));
    }
    Test::new()
        .args(["--hpa", "fixtures/hpa/web-cpu.yaml"])
        .args(["--pods", "fixtures/samples/web-cpu.csv"])
        .args(["--history", "-", "-o", "json"])
        .stdin(csv)
        .status(0)
        .run();
}

#[test]
fn absurd_numbers_in_flags_are_refused() {
    for (args, code) in [
        (
            vec![
                "--hpa",
                "fixtures/hpa/web-cpu.yaml",
                "--current-replicas",
                "99999999999",
            ],
            2,
        ),
        (
            vec![
                "--hpa",
                "fixtures/hpa/web-cpu.yaml",
                "--downscale-stabilization",
                "99999999999999h",
            ],
            1,
        ),
        (
            vec!["--hpa", "fixtures/hpa/web-cpu.yaml", "--tolerance", "NaN"],
            1,
        ),
        (
            vec![
                "--hpa",
                "fixtures/hpa/web-cpu.yaml",
                "--metric-value",
                "x=1e999999999999",
            ],
            1,
        ),
    ] {
        Test::new().args(args).status(code).stdout("").run();
    }
}

// Round two: every input and output stream bounded in time and memory.

/// hpacalc under an address-space limit of `mib` MiB (through `prlimit` when the machine has it).
fn bounded(args: &[&str], mib: u64) -> Test {
    Test::new().args(args).memory_limit_mib(mib)
}

#[test]
fn devices_are_refused_at_once_for_every_input_flag() {
    let base = [
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--current-replicas",
        "6",
    ];
    let csv = ["--pods", "fixtures/samples/web-cpu.csv"];
    for (flag, device) in [
        ("--hpa", "/dev/zero"),
        ("--pods", "/dev/urandom"),
        ("--metrics", "/dev/zero"),
        ("--history", "/dev/zero"),
        ("--events", "/dev/zero"),
        ("--target", "/dev/zero"),
        ("--scale", "/dev/zero"),
        ("--custom-metrics", "/dev/zero"),
        ("--nodes", "/dev/zero"),
    ] {
        let mut args: Vec<&str> = if flag == "--hpa" {
            vec![]
        } else {
            base.to_vec()
        };
        if flag == "--metrics" {
            args.extend(["--pods", "fixtures/kubectl/pods.json"]);
        } else if flag != "--hpa" && flag != "--pods" {
            args.extend(csv);
        }
        args.extend([flag, device]);
        bounded(&args, 1024)
            .status(1)
            .stderr_contains(format!("{device}: found a character device"))
            .within(Duration::from_secs(5))
            .run();
    }
    bounded(
        &[
            "simulate",
            "--hpa",
            "fixtures/hpa/web-cpu.yaml",
            "--load",
            "/dev/zero",
        ],
        1024,
    )
    .stderr_contains("found a character device")
    .run();
}

#[test]
fn an_endless_stdin_stops_at_the_size_limit() {
    // 512 MiB read, then refused: memory stays near the cap (the limit is 2 GiB of address space).
    bounded(&["--hpa", "-"], 2048)
        .stdin_file("/dev/zero")
        .status(1)
        .stderr_contains("<stdin>: found more than 536870912 bytes, expected at most 536870912 bytes (512 MiB, the input size limit)")
        .within(Duration::from_secs(60))
        .run();
}

#[cfg(unix)]
#[test]
fn a_fifo_without_a_writer_ends_in_an_error() {
    let dir = temp_dir("fifo");
    let fifo = dir.join("hpa.yaml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let shown = fifo.to_string_lossy().into_owned();
    bounded(&["--hpa", &shown], 1024)
        .status(1)
        .stderr_contains("found a named pipe with no writer after 10 s")
        .within(Duration::from_secs(30))
        .run();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_pipe_given_as_a_file_is_read() {
    // What `--hpa <(cat file)` passes: /dev/fd/N of a pipe.
    Test::new()
        .program("bash")
        .arg("-c")
        .arg(format!(
            "{} --hpa <(cat fixtures/hpa/web-cpu.yaml) --pods fixtures/samples/web-cpu.csv -o json",
            env!("CARGO_BIN_EXE_hpacalc")
        ))
        .status(0)
        .run();
}

#[test]
fn full_and_closed_streams_never_panic() {
    let run = [
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pods",
        "fixtures/samples/web-cpu.csv",
    ];
    let bad = ["--hpa", "fixtures/does-not-exist.yaml"];
    let cases: Vec<(Vec<&str>, &str, i32)> = vec![
        (run.to_vec(), "stdout", 1),
        (vec!["--help"], "stdout", 1),
        (vec!["--version"], "stdout", 1),
        (vec!["completions", "bash"], "stdout", 1),
        (vec!["simulate", "--scenario", "list"], "stdout", 1),
        (bad.to_vec(), "stderr", 1),
        (vec!["--no-such-flag"], "stderr", 2),
        (
            vec![
                "--hpa",
                "fixtures/hpa/typo.yaml",
                "--pods",
                "fixtures/samples/web-cpu.csv",
            ],
            "stderr",
            0,
        ),
    ];
    for (args, stream, code) in cases {
        let test = bounded(&args, 1024).status(code);
        let test = if stream == "stdout" {
            test.stdout_file("/dev/full")
        } else {
            test.stderr_file("/dev/full")
        };
        let test = if stream == "stdout" && code == 1 && args != ["--help"] && args != ["--version"]
        {
            test.stderr_contains("cannot write to stdout")
        } else {
            test
        };
        test.run();
    }
    // A closed pipe: quiet, exit 0, as before.
    for args in [run.to_vec(), vec!["--help"], vec!["completions", "zsh"]] {
        let mut child = Test::new()
            .args(&args)
            .command()
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).is_empty(), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn an_output_file_never_overwrites_an_input() {
    let dir = temp_dir("clobber");
    let hpa = dir.join("hpa.yaml");
    let load = dir.join("load.csv");
    std::fs::copy(root().join("fixtures/hpa/web-cpu.yaml"), &hpa).unwrap();
    std::fs::copy(root().join("fixtures/load/web-cpu.csv"), &load).unwrap();
    let hard = dir.join("hard.svg");
    std::fs::hard_link(&load, &hard).unwrap();
    let link = dir.join("link.svg");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&hpa, &link).unwrap();
    let before = (std::fs::read(&hpa).unwrap(), std::fs::read(&load).unwrap());
    let s = |p: &std::path::Path| p.to_string_lossy().into_owned();
    let dotted = format!("{}/./hpa.yaml", dir.display());
    for chart in [s(&hpa), s(&load), s(&hard), s(&link), dotted] {
        Test::new()
            .args(["simulate", "--hpa", &s(&hpa), "--load", &s(&load)])
            .args(["--pod-request", "cpu=500m", "--chart", &chart])
            .status(2)
            .stdout("")
            .stderr_contains("expected an output file that is not an input of this run")
            .run();
    }
    assert_eq!(
        before,
        (std::fs::read(&hpa).unwrap(), std::fs::read(&load).unwrap())
    );
    // `-` is not a file name.
    Test::new()
        .args(["simulate", "--hpa", &s(&hpa), "--load", &s(&load)])
        .args(["--pod-request", "cpu=500m", "--chart", "-"])
        .status(2)
        .run();
    assert!(!root().join("-").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn rfc3339_times_the_api_server_accepts_are_read() {
    for now in [
        "9999-12-31T23:59:59Z",
        "9999-12-31T23:59:59.999999999+00:00",
        "2026-11-29T15:04:05.123456789123Z",
    ] {
        Test::new()
            .args(["--hpa", "fixtures/hpa/web-cpu.yaml"])
            .args(["--pods", "fixtures/samples/web-cpu.csv", "--now", now])
            .status(0)
            .run();
    }
}

#[test]
fn a_file_of_the_wrong_kind_for_its_flag_is_refused() {
    Test::new()
        .args(["--hpa", "fixtures/kubectl/hpa.yaml"])
        .args(["--pods", "fixtures/kubectl/pods.json"])
        .args(["--metrics", "fixtures/kubectl/metrics.json"])
        .args(["--nodes", "fixtures/cluster/nodes.json"])
        .args(["--all-pods", "fixtures/kubectl/metrics.json"])
        .status(1)
        .stderr_contains("kind: found kind PodMetricsList, expected a PodList")
        .run();
}

#[test]
fn work_is_bounded_by_the_input_not_by_a_number_in_it() {
    let base = [
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--pods",
        "fixtures/samples/web-cpu.csv",
        "--node-allocatable",
        "cpu=4,memory=8Gi",
    ];
    let sim = [
        "simulate",
        "--hpa",
        "fixtures/hpa/web-cpu.yaml",
        "--load",
        "fixtures/load/web-cpu.csv",
        "--pod-request",
        "cpu=500m",
    ];
    let with = |base: &[&'static str], more: &[&'static str]| -> Vec<&'static str> {
        base.iter().chain(more).copied().collect()
    };
    // Refused at once, naming the limit.
    for (args, fragment) in [
        (
            with(&base, &["--existing-nodes", "2147483647"]),
            "expected at most 10000 nodes (hpacalc's node limit)",
        ),
        (
            with(&base, &["--current-replicas", "1000000"]),
            "125000 nodes of 8 pods, expected at most 10000 nodes",
        ),
        (
            with(&sim, &["--replicas", "2147483647"]),
            "expected at most 100000 pods (the simulation limit)",
        ),
        (
            with(&sim, &["--sync-period", "1s", "--duration", "8784h"]),
            "31622401 syncs, expected at most 100000 syncs (the simulation limit)",
        ),
    ] {
        bounded(&args, 1024)
            .status(1)
            .stderr_contains(fragment)
            .within(Duration::from_secs(5))
            .run();
    }
    // Computed, in linear time: a million pods on 10,000 nodes scaled down to the HPA's max.
    bounded(
        &with(
            &base,
            &[
                "--existing-nodes",
                "10000",
                "--current-replicas",
                "1000000",
                "-o",
                "json",
            ],
        ),
        1024,
    )
    .status(0)
    .within(Duration::from_secs(20))
    .run();
}

#[test]
fn nothing_is_quadratic_in_the_input() {
    let dir = temp_dir("wide");
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_string_lossy().into_owned()
    };
    let mut wide = String::from("pod,cpu,cpu_request");
    for i in 0..100_000 {
        wide.push_str(&format!(",m{i}"));
    }
    wide.push_str("\na,400m,500m");
    wide.push_str(&",1".repeat(100_000));
    wide.push('\n');
    let wide = write("wide.csv", wide);
    let mut rows = String::from("pod,container,cpu,cpu_request\n");
    for i in 0..100_000 {
        rows.push_str(&format!("a,c{i},1m,2m\n"));
    }
    let rows = write("rows.csv", rows);
    let mut top = String::from("POD NAME CPU(cores) MEMORY(bytes)");
    for i in 0..300_000 {
        top.push_str(&format!(" X{i}"));
    }
    top.push('\n');
    let top = write("top.txt", top);
    let long_name = write(
        "long-name.csv",
        format!("pod,cpu,cpu_request\n{},400m,500m\n", "a".repeat(1_000_000)),
    );
    let hpa = "fixtures/hpa/web-cpu.yaml";
    for (args, code) in [
        (vec!["--hpa", hpa, "--pods", &wide], 0),
        (vec!["--hpa", hpa, "--pods", &rows], 0),
        (
            vec![
                "--hpa",
                hpa,
                "--pods",
                "fixtures/kubectl/pods.json",
                "--metrics",
                &top,
            ],
            1,
        ),
        (vec!["--hpa", hpa, "--pods", &long_name], 0),
        (vec!["--hpa", hpa, "--pods", &long_name, "-o", "wide"], 0),
    ] {
        let test = bounded(&args, 1024)
            .status(code)
            // Seconds in a debug build on a loaded machine; the quadratic versions took minutes.
            .within(Duration::from_secs(20));
        if args.contains(&wide.as_str()) {
            // 100,000 ignored columns are one warning with a cut list, not 100,000 lines.
            test.stderr_lines(1).stderr_contains("and 99980 more").run();
        } else {
            test.run();
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn control_characters_from_inputs_are_shown_escaped_never_sent() {
    // A pod name with ESC and BEL, and a cell with ESC: the table and the error show `\e`.
    let csv = "pod,cpu,cpu_request\nweb-\u{1b}[31mred\u{7},400m,500m\nb,400m,500m\n";
    Test::new()
        .args([
            "--hpa",
            "fixtures/hpa/web-cpu.yaml",
            "--pods",
            "-",
            "-o",
            "wide",
        ])
        .stdin(csv)
        .status(0)
        .stdout_lacks("\u{1b}")
        .stdout_lacks("\u{7}")
        .stdout_contains("web-\\e[31mred\\u0007")
        .run();

    Test::new()
        .args(["--hpa", "fixtures/hpa/web-cpu.yaml", "--pods", "-"])
        .stdin("pod,cpu,cpu_request\na,4\u{1b}[31m00m,500m\n")
        .status(1)
        .stderr_lacks("\u{1b}")
        .stderr_contains("found \"4\\e[31m00m\"")
        .run();
}

#[test]
fn echoed_values_are_cut_to_80_characters_with_their_length() {
    let long = "9".repeat(500) + "x";
    let o = Test::new()
        .args(["--hpa", "fixtures/hpa/web-cpu.yaml", "--pods", "-"])
        .stdin(format!("pod,cpu,cpu_request\na,{long},500m\n"))
        .status(1)
        .stderr_contains(format!("found \"{}...\" (501 characters)", "9".repeat(80)))
        .run();
    let err = stderr(&o);
    assert!(err.len() < 300, "{err}");
}

#[test]
fn kubectl_capture_errors_name_the_field_path_not_a_type() {
    let mut pods: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("fixtures/kubectl/pods.json")).unwrap(),
    )
    .unwrap();
    pods["items"][1]["status"]["startTime"] = "yesterday".into();
    let pods_from_stdin = ["--hpa", "fixtures/kubectl/hpa.yaml", "--pods", "-"];
    Test::new()
        .args(pods_from_stdin)
        .stdin(pods.to_string())
        .stderr_contains("items[1].status.startTime: found \"yesterday\"")
        .run();
    Test::new()
        .args(pods_from_stdin)
        .stdin(r#"{"kind":"PodList","items":["x"]}"#)
        .stderr_contains("items[0]: found string \"x\", expected an object")
        .stderr_lacks("struct")
        .run();
}

#[test]
fn an_int64_overflow_of_the_controller_is_diagnosed() {
    // 1,000 pods at 100Gi of memory each: usage × 100 passes 2^63 milli-bytes.
    let hpa = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: shop}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 2000\n  metrics:\n  - type: Resource\n    resource: {name: memory, target: {type: Utilization, averageUtilization: 60}}\n";
    let dir = temp_dir("overflow");
    let hpa_path = dir.join("hpa.yaml");
    std::fs::write(&hpa_path, hpa).unwrap();
    let mut csv = String::from("pod,memory,memory_request\n");
    for i in 0..1000 {
        csv.push_str(&format!("p{i},100Gi,100Gi\n"));
    }
    let v = Test::new()
        .args([
            "--hpa",
            &hpa_path.to_string_lossy(),
            "--pods",
            "-",
            "-o",
            "json",
        ])
        .stdin(csv)
        .schema("report")
        .json();
    let codes = codes(&v);
    assert!(
        codes.contains(&"ArithmeticOverflow".to_string()),
        "{codes:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_list_of_names_in_an_error_is_cut_to_20_with_a_count() {
    // No `pod` column among 30: the error lists 20 of them and says how many more.
    let header: Vec<String> = (0..30).map(|i| format!("c{i}")).collect();
    Test::new()
        .args(["--hpa", "fixtures/hpa/web-cpu.yaml", "--pods", "-"])
        .stdin(format!("{}\n", header.join(",")))
        .status(1)
        .stderr_contains("c19 and 10 more, expected a `pod` column")
        .stderr_lacks("c20")
        .run();
}

#[test]
fn an_alias_bomb_is_refused_in_every_yaml_input_within_time_and_memory() {
    // 9,000 aliases of one 9,000-element anchor: 81 million nodes from 54 KB (2.5 GB before the
    // alias budget). Each YAML input, headed so that it is read as YAML.
    let dir = temp_dir("aliases");
    let bomb = |head: &str| {
        format!(
            "{head}x-anchor: &a [{}]\nx-aliases: [{}]\n",
            vec!["1"; 9_000].join(","),
            vec!["*a"; 9_000].join(",")
        )
    };
    let write = |name: &str, head: &str| {
        let path = dir.join(name);
        std::fs::write(&path, bomb(head)).unwrap();
        path.to_string_lossy().into_owned()
    };
    let hpa = write(
        "hpa.yaml",
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\n",
    );
    let scaled = write(
        "scaled.yaml",
        "apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\n",
    );
    let pods = write("pods.yaml", "apiVersion: v1\nkind: PodList\n");
    let metrics = write(
        "metrics.yaml",
        "apiVersion: metrics.k8s.io/v1beta1\nkind: PodMetricsList\n",
    );
    let custom = write(
        "custom.yaml",
        "apiVersion: custom.metrics.k8s.io/v1beta2\nkind: MetricValueList\n",
    );
    let events = write("events.yaml", "apiVersion: v1\nkind: EventList\n");
    let nodes = write("nodes.yaml", "apiVersion: v1\nkind: NodeList\n");
    let target = write("target.yaml", "apiVersion: apps/v1\nkind: Deployment\n");
    let base = [
        "--hpa",
        "fixtures/kubectl/hpa.yaml",
        "--pods",
        "fixtures/kubectl/pods.json",
    ];
    let with = |more: &[&str]| -> Vec<String> {
        base.iter()
            .copied()
            .chain(more.iter().copied())
            .map(String::from)
            .collect()
    };
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["--hpa".into(), hpa.clone()], &hpa),
        (vec!["--hpa".into(), scaled.clone()], &scaled),
        (
            vec![
                "--hpa".into(),
                "fixtures/kubectl/hpa.yaml".into(),
                "--pods".into(),
                pods.clone(),
            ],
            &pods,
        ),
        (with(&["--metrics", &metrics]), &metrics),
        (with(&["--custom-metrics", &custom]), &custom),
        (with(&["--events", &events]), &events),
        (with(&["--nodes", &nodes]), &nodes),
        (with(&["--target", &target]), &target),
    ];
    for (args, file) in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        bounded(&args, 1024)
            .status(1)
            .stdout("")
            .stderr_contains(*file)
            .stderr_contains("(the alias budget)")
            .within(Duration::from_secs(10))
            .run();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn quantities_are_read_exactly_as_parse_quantity_reads_them_everywhere() {
    // ParseQuantity (apimachinery quantity.go) reads a bare suffix, exponent or point as zero
    // (parseQuantityString returns num "0"; TestParseQuantityString has "." and "-."), and refuses
    // a suffix it does not know, a space or a second point.
    let dir = temp_dir("quantities");
    for (text, accepted) in [
        ("m", true),
        ("e3", true),
        (".", true),
        ("10KB", false),
        ("1 m", false),
        ("1.2.3", false),
        ("1e", false),
    ] {
        let csv = dir.join("pods.csv");
        std::fs::write(
            &csv,
            format!("pod,ready,started,cpu,cpu_request\nweb-1,true,3h,{text},500m\n"),
        )
        .unwrap();
        let load = dir.join("load.csv");
        std::fs::write(&load, format!("time,cpu\n0s,{text}\n")).unwrap();
        let allocatable = format!("cpu={text},memory=8Gi");
        let (csv, load) = (csv.to_string_lossy(), load.to_string_lossy());
        for (args, place) in [
            (
                vec!["--hpa", "fixtures/hpa/web-cpu.yaml", "--pods", &csv],
                format!("{csv}:2:4: cpu: found"),
            ),
            (
                vec![
                    "--hpa",
                    "fixtures/hpa/web-cpu.yaml",
                    "--pods",
                    "fixtures/samples/web-cpu.csv",
                    "--node-allocatable",
                    &allocatable,
                ],
                "--node-allocatable: cpu: found".to_string(),
            ),
            (
                vec![
                    "simulate",
                    "--hpa",
                    "fixtures/hpa/web-cpu.yaml",
                    "--load",
                    &load,
                    "--pod-request",
                    "cpu=500m",
                ],
                format!("{load}:2"),
            ),
        ] {
            if accepted {
                bounded(&args, 1024).status(0).run();
            } else {
                bounded(&args, 1024)
                    .status(1)
                    .stderr_contains(place)
                    .stderr_contains("expected a Kubernetes quantity")
                    .run();
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
