//! `hpacalc simulate --chart` and `--html` (issue 15): the SVG against its snapshot, and the HTML
//! page opened in headless Chromium (Debian's `chromium`, which `.ci/run` installs): the chart and
//! a chosen sync's steps render, with no console errors.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{Scratch, Test, root};

fn write_with(flag: &str, scenario: &str, file: &Path) {
    Test::new()
        .args(["simulate", "--scenario", scenario, flag])
        .arg(file)
        .status(0)
        .run();
}

#[test]
fn the_chart_of_pods_pending_matches_its_snapshot() {
    let dir = Scratch::new("chart-snapshot");
    let file = dir.0.join("chart.svg");
    write_with("--chart", "pods-pending", &file);
    let svg = std::fs::read_to_string(&file).unwrap();
    snapbox::assert_data_eq!(svg, snapbox::file!["snapshots/chart-pods-pending.svg"]);
}

/// What headless Chromium printed: stdout (the DOM with `--dump-dom`) and stderr (its log).
pub(crate) struct Browser {
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

/// Runs Debian's Chromium headless on `url` with `mode` (`--dump-dom`, `--screenshot=...`),
/// offline and in a fresh profile; its console messages go to stderr.
pub(crate) fn chromium(url: &str, mode: &str, scratch: &Path) -> Browser {
    chromium_sized(url, mode, scratch, "1280,2000")
}

/// A screenshot of `url` in a 1280×960 window, kept under the tests' output as `name` for a
/// person to look at; with `HPACALC_BLESS=1` also written to `docs/` (README's pictures).
pub(crate) fn screenshot(url: &str, name: &str, scratch: &Path) {
    // A folder of its own: `temp_dir` empties it, and tests run side by side.
    let folder = format!("screenshot-{}", name.trim_end_matches(".png"));
    let file = crate::support::temp_dir(&folder).join(name);
    chromium_sized(
        url,
        &format!("--screenshot={}", file.display()),
        scratch,
        "1280,960",
    );
    assert!(std::fs::metadata(&file).unwrap().len() > 1000, "{name}");
    if std::env::var_os("HPACALC_BLESS").is_some() {
        std::fs::copy(&file, crate::support::root().join("docs").join(name)).unwrap();
    }
}

fn chromium_sized(url: &str, mode: &str, scratch: &Path, size: &str) -> Browser {
    let binary = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("Chromium is needed: apt-get install chromium (.ci/run installs it)");
    let profile = scratch.join("profile");
    std::fs::create_dir_all(&profile).unwrap();
    let (out, err) = (scratch.join("stdout"), scratch.join("stderr"));
    let mut child = Command::new(binary)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            "--hide-scrollbars",
        ])
        .arg(format!("--window-size={size}"))
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(mode)
        .arg(url)
        .current_dir(scratch)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .expect("chromium starts");
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "chromium: {status}");
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish in 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Browser {
        stdout: std::fs::read_to_string(&out).unwrap(),
        stderr: std::fs::read_to_string(&err).unwrap(),
    }
}

/// The console messages in Chromium's log (`INFO:CONSOLE(3)] "Uncaught ..."`).
pub(crate) fn console(log: &str) -> Vec<&str> {
    log.lines().filter(|l| l.contains("CONSOLE")).collect()
}

fn file_url(path: &Path) -> String {
    format!("file://{}", path.display())
}

#[test]
fn the_html_page_shows_the_chart_and_the_chosen_syncs_steps_in_chromium() {
    let dir = Scratch::new("html-browser");
    let page = dir.0.join("real-drop.html");
    write_with("--html", "real-drop", &page);

    // The page chooses sync 29 (the scale-down at 7:00) from the URL on load.
    let b = chromium(
        &format!("{}#sync=29", file_url(&page)),
        "--dump-dom",
        &dir.0,
    );
    assert!(console(&b.stderr).is_empty(), "{:?}", console(&b.stderr));
    let dom = &b.stdout;
    assert!(dom.contains("data-shown=\"29\""), "the script did not run");
    assert!(dom.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(dom.contains("Replicas (pods)"));
    assert!(dom.contains("<h2 id=\"chosen\">Sync 29 of 41 at 7:00</h2>"));
    assert!(dom.contains(
        "<tr data-sync=\"29\" data-time=\"420\" data-clock=\"7:00\" class=\"scaled chosen\">"
    ));
    // Its report is shown, every other one stays hidden.
    assert!(dom.contains("<section class=\"report\" id=\"r29\"><h3>Sync 29 at 7:00: 8 → 4</h3>"));
    assert_eq!(dom.matches("<section class=\"report\" id=\"r").count(), 41);
    assert_eq!(
        dom.matches("<section class=\"report\" id=\"r29\" hidden")
            .count(),
        0
    );
    let shown = dom
        .split("<section class=\"report\" id=\"r29\">")
        .nth(1)
        .and_then(|rest| rest.split("</section>").next())
        .unwrap();
    // The same steps as the single-sync table: the window held 8 until the scale-down.
    for step in [
        "<td>stabilization</td>",
        "legacy window 300s (inclusive)",
        "<td>rate limit and clamp</td>",
        "<b>8 → 4</b> scale down",
    ] {
        assert!(shown.contains(step), "{step}");
    }

    // Without a sync in the URL the page shows the first that changed the count.
    let b = chromium(&file_url(&page), "--dump-dom", &dir.0);
    assert!(console(&b.stderr).is_empty(), "{:?}", console(&b.stderr));
    assert!(b.stdout.contains("data-shown=\"29\""));

    // The screenshot in docs/ comes from here (HPACALC_BLESS=1 replaces it).
    let png = dir.0.join("page.png");
    let b = chromium(
        &format!("{}#sync=29", file_url(&page)),
        &format!("--screenshot={}", png.display()),
        &dir.0,
    );
    assert!(console(&b.stderr).is_empty(), "{:?}", console(&b.stderr));
    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.starts_with(b"\x89PNG"), "a PNG");
    if std::env::var_os("HPACALC_BLESS").is_some() {
        std::fs::write(root().join("docs/simulate-html.png"), &bytes).unwrap();
    }
}

#[test]
fn a_script_error_in_a_page_shows_in_chromiums_log() {
    // The check above can fail: a page whose script throws is caught by the same filter.
    let dir = Scratch::new("html-console");
    let page = dir.0.join("broken.html");
    std::fs::write(
        &page,
        "<!DOCTYPE html><html><body><script>notDefined();</script></body></html>",
    )
    .unwrap();
    let b = chromium(&file_url(&page), "--dump-dom", &dir.0);
    let found = console(&b.stderr);
    assert!(
        found.iter().any(|l| l.contains("notDefined")),
        "{}",
        b.stderr
    );
}

#[test]
fn an_html_file_that_is_an_input_or_cannot_be_written_is_an_error_and_prints_nothing() {
    Test::new()
        .args(["simulate", "--hpa", "fixtures/hpa/web-cpu.yaml"])
        .args([
            "--load",
            "fixtures/load/web-day.csv",
            "--pod-request",
            "cpu=500m",
        ])
        .args(["--html", "fixtures/load/web-day.csv"])
        .status(2)
        .stdout("")
        .stderr_contains("--html fixtures/load/web-day.csv: found the file of --load")
        .run();
    Test::new()
        .args(["simulate", "--scenario", "real-drop"])
        .args(["--html", "/nonexistent-dir/page.html"])
        .status(1)
        .stdout("")
        .stderr_contains("/nonexistent-dir/page.html: cannot write --html")
        .run();
}
