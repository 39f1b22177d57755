//! Malformed and hostile input: a corpus of bad files, each with the message fragment it must
//! produce, and inputs built to hurt (huge, deeply nested, self-referential). Every one exits 1,
//! prints nothing on stdout, and never panics.

use std::time::Instant;

use crate::cli::{hpacalc, hpacalc_stdin, root, stderr};

/// The flag a corpus file goes to, with a valid base for the other inputs.
fn args_for(file: &str) -> Vec<String> {
    let path = format!("tests/malformed/{file}");
    let base = |flag: &str| -> Vec<String> {
        match flag {
            "--hpa" => vec!["--hpa".into(), path.clone()],
            "--pods" => vec![
                "--hpa".into(),
                "fixtures/hpa/web-cpu.yaml".into(),
                "--pods".into(),
                path.clone(),
            ],
            _ => vec![
                "--hpa".into(),
                "fixtures/hpa/web-cpu.yaml".into(),
                "--pods".into(),
                "fixtures/samples/web-cpu.csv".into(),
                flag.into(),
                path.clone(),
            ],
        }
    };
    let prefix = file.split('-').next().unwrap_or("");
    let flag = match prefix {
        "hpa" => "--hpa",
        "samples" => "--pods",
        "history" => "--history",
        "events" => "--events",
        other => panic!("tests/malformed/{file}: unknown prefix {other:?}"),
    };
    let mut args = base(flag);
    args.extend(["--now".into(), "2026-11-29T15:00:00Z".into()]);
    args
}

fn assert_input_error(args: &[&str], fragment: &str, file_prefix: &str) {
    let o = hpacalc(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
    assert!(o.stdout.is_empty(), "{args:?} printed on stdout");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(
        err.starts_with(&format!("error: {file_prefix}")),
        "{args:?}: {err}"
    );
    assert!(
        err.contains(fragment),
        "{args:?}: expected {fragment:?} in {err}"
    );
    assert_eq!(err.lines().count(), 1, "{args:?}: one line expected: {err}");
}

#[test]
fn every_malformed_file_gets_its_message() {
    let cases =
        std::fs::read_to_string(root().join("tests/malformed/CASES.tsv")).expect("CASES.tsv");
    let mut listed = Vec::new();
    for line in cases
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (file, fragment) = line.split_once('\t').expect("file<TAB>fragment");
        let args = args_for(file);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_input_error(&args, fragment, &format!("tests/malformed/{file}"));
        listed.push(file.to_string());
    }
    // Every file in the folder is listed, and the corpus stays at 50 or more.
    let mut files: Vec<String> = std::fs::read_dir(root().join("tests/malformed"))
        .expect("tests/malformed")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n != "CASES.tsv")
        .collect();
    files.sort();
    listed.sort();
    assert_eq!(
        files, listed,
        "tests/malformed/CASES.tsv must list every file once"
    );
    assert!(listed.len() >= 50, "only {} malformed inputs", listed.len());
}

#[test]
fn a_huge_file_of_garbage_fails_fast() {
    let dir = std::env::temp_dir().join(format!("hpacalc-garbage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
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
        let start = Instant::now();
        let args: Vec<&str> = if flag == "--hpa" {
            vec!["--hpa", &shown]
        } else {
            vec!["--hpa", "fixtures/hpa/web-cpu.yaml", "--pods", &shown]
        };
        let o = hpacalc(&args);
        assert_eq!(o.status.code(), Some(1), "{flag}: {}", stderr(&o));
        assert!(o.stdout.is_empty());
        assert!(stderr(&o).contains(&shown), "{}", stderr(&o));
        // Generous: the point is "seconds, not minutes", on a loaded CI machine.
        assert!(
            start.elapsed().as_secs() < 30,
            "{flag} took {:?}",
            start.elapsed()
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn crlf_line_ends_and_a_bom_are_accepted() {
    let csv = "\u{feff}pod,cpu,cpu_request\r\na,400m,500m\r\nb,400m,500m\r\n";
    let o = hpacalc_stdin(
        &[
            "--hpa",
            "fixtures/hpa/web-cpu.yaml",
            "--pods",
            "-",
            "-o",
            "json",
        ],
        csv,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
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
    let o = hpacalc_stdin(
        &[
            "--hpa",
            "fixtures/hpa/web-cpu.yaml",
            "--pods",
            "fixtures/samples/web-cpu.csv",
            "--history",
            "-",
            "-o",
            "json",
        ],
        &csv,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
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
        let o = hpacalc(&args);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty());
        assert!(!stderr(&o).contains("panicked"));
    }
}
