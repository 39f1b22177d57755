//! `hpacalc serve --offline` (issue 26, the calculator): `/calc` loaded in headless Chromium
//! reproduces seed 004's worked examples from the `hpacalc-data` JSON of the dumped DOM; a
//! pasted describe text gives the CLI's answer on the same text; hostile pastes are escaped or
//! refused; an input error is the CLI's message with 422.

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::html::{chromium, console, screenshot};
use crate::support::{NOW, Scratch, free_port, get, json, root, temp_dir};

/// `hpacalc serve --offline` running, killed when dropped.
pub(crate) struct Offline {
    pub(crate) child: Child,
    pub(crate) port: u16,
}

impl Drop for Offline {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Offline {
    /// Starts it with no kubeconfig anywhere, and waits for `/readyz`.
    pub(crate) fn start() -> Offline {
        Offline::start_with(&[])
    }

    /// `start`, with more flags.
    pub(crate) fn start_with(flags: &[&str]) -> Offline {
        let port = free_port();
        let dir = temp_dir(&format!("web-home-{port}"));
        let child = Command::new(env!("CARGO_BIN_EXE_hpacalc"))
            .args(["serve", "--offline", "--listen"])
            .arg(format!("127.0.0.1:{port}"))
            .args(flags)
            .env("HOME", &dir)
            .env("KUBECONFIG", dir.join("no-such-kubeconfig"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let serving = Offline { child, port };
        let started = Instant::now();
        while get(port, "/readyz").is_none_or(|(code, _)| code != 200) {
            assert!(started.elapsed() < Duration::from_secs(30), "not ready");
            std::thread::sleep(Duration::from_millis(100));
        }
        serving
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

/// `application/x-www-form-urlencoded`, every byte but the unreserved ones escaped.
pub(crate) fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A raw HTTP/1.0 POST of `body` to `path`: the status, the head and the body of the answer.
pub(crate) fn post(port: u16, path: &str, body: &[u8]) -> (u16, String, String) {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let head = format!(
        "POST {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    // A refused body may be cut short by the server: the answer is still read.
    let _ = stream.write_all(body);
    let mut bytes = Vec::new();
    let _ = stream.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let code = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (code, head.to_string(), body.to_string())
}

/// The page's `hpacalc-data` JSON.
pub(crate) fn data(page: &str) -> Value {
    let start = page
        .find("id=\"hpacalc-data\">")
        .expect("the page embeds its JSON")
        + "id=\"hpacalc-data\">".len();
    let end = start + page[start..].find("</script>").unwrap();
    serde_json::from_str(&page[start..end]).unwrap()
}

#[test]
fn seed_004s_worked_examples_through_the_calculator_form_in_chromium() {
    let server = Offline::start();
    let dir = Scratch::new("web-seed-004");
    // (query, current, desired)
    let examples = [
        ("replicas=50&ready=50&usage=90&target=75&max=100", 50, 60),
        ("replicas=2&ready=2&usage=59&target=90", 2, 2),
        // The scale-up limit, max(2 x 4, 4), caps the 12 the metric asks for.
        ("replicas=4&ready=4&usage=180&target=60&max=12", 4, 8),
        ("replicas=3&ready=2&unready=1&usage=60&target=30", 3, 4),
        ("replicas=5&ready=3&unready=2&usage=30&target=50", 5, 2),
    ];
    for (query, current, desired) in examples {
        let url = server.url(&format!("/calc?{query}&now={NOW}"));
        let b = chromium(&url, "--dump-dom", &dir.0);
        assert!(console(&b.stderr).is_empty(), "{:?}", console(&b.stderr));
        let v = data(&b.stdout);
        assert_eq!(v["currentReplicas"], current, "{query}");
        assert_eq!(v["desiredReplicas"], desired, "{query}: {}", v["decision"]);
        for id in ["replicas", "usage", "ready", "unready", "missing", "target"] {
            assert!(b.stdout.contains(&format!("id=\"{id}\"")), "{id}");
        }
        for id in [
            "tolerance",
            "min",
            "max",
            "hpa",
            "pods",
            "metrics",
            "events",
            "explain",
        ] {
            assert!(b.stdout.contains(&format!("id=\"{id}\"")), "{id}");
        }
        assert!(
            b.stdout.contains("--current-replicas"),
            "the command is shown"
        );
    }
    // A screenshot for a person to look at (README's, with HPACALC_BLESS=1).
    screenshot(
        &server.url(&format!("/calc?{}&now={NOW}", examples[2].0)),
        "web-calc.png",
        &dir.0,
    );
}

#[test]
fn a_pasted_describe_text_gives_the_clis_answer() {
    let server = Offline::start();
    let file = root().join("fixtures/paste/describe.txt");
    let cli = json(&["--hpa", file.to_str().unwrap()]);
    let text = std::fs::read_to_string(&file).unwrap();
    let body = format!("hpa={}&now={}", encode(&text), encode(NOW));
    let (code, head, page) = post(server.port, "/calc", body.as_bytes());
    assert_eq!(code, 200, "{page}");
    let head = head.to_ascii_lowercase();
    assert!(head.contains(
        "content-security-policy: default-src 'none'; style-src 'unsafe-inline'; form-action 'self'"
    ));
    assert!(head.contains("content-type: text/html; charset=utf-8"));
    let v = data(&page);
    assert_eq!(v["desiredReplicas"], cli["desiredReplicas"]);
    assert_eq!(v["now"], cli["now"]);
    assert_eq!(v["decision"], cli["decision"]);
}

#[test]
fn hostile_pastes_are_escaped_or_refused() {
    let server = Offline::start();
    let hostile = "<script>alert(1)</script>\u{1b}]0;owned\u{7}\u{1b}[31m";
    let (code, _, page) = post(
        server.port,
        "/calc",
        format!("hpa={}", encode(hostile)).as_bytes(),
    );
    assert_eq!(code, 422);
    assert!(!page.contains("<script>alert"), "{page}");
    assert!(!page.contains('\u{1b}'), "a terminal escape came back raw");
    assert!(page.contains("&lt;script&gt;alert(1)"));
    // The uniform form's values are escaped too.
    let (code, page) = get(server.port, "/calc?target=%3Cscript%3Ealert(1)").unwrap();
    assert_eq!(code, 422);
    assert!(!page.contains("<script>alert"));

    let big = vec![b'a'; (1 << 20) + 1];
    let (code, _, _) = post(server.port, "/calc", &big);
    assert_eq!(code, 413);
    let exactly = format!("hpa={}", "a".repeat((1 << 20) - 4));
    let (code, _, _) = post(server.port, "/calc", exactly.as_bytes());
    assert_eq!(code, 422, "1 MiB is read");
}

#[test]
fn an_input_error_is_the_clis_message_with_422() {
    let server = Offline::start();
    let (code, _, page) = post(server.port, "/calc", b"hpa=not+an+hpa");
    assert_eq!(code, 422);
    assert!(
        page.contains(
            "hpa:1:1: found a string, expected a Kubernetes object (a mapping with apiVersion and kind)"
        ),
        "{page}"
    );
    assert!(page.contains("id=\"explain\""), "the form is shown again");
    // Only the calculator is served: no cluster path.
    assert_eq!(get(server.port, "/metrics").unwrap().0, 404);
    assert_eq!(get(server.port, "/healthz").unwrap().0, 200);
}

#[test]
fn a_page_past_its_time_limit_or_without_a_free_place_is_503() {
    let server = Offline::start_with(&["--page-timeout", "1ms", "--max-evaluations", "1"]);
    // A day of syncs with nodes takes far longer than a millisecond: 503, and its computation
    // stops at that deadline.
    let day = "/simulate?scenario=node-scale-down&t=86400";
    let (code, text) = get(server.port, day).unwrap();
    assert_eq!(code, 503, "{text}");
    assert!(
        text.contains("took longer than --page-timeout (1 ms)"),
        "{text}"
    );
    // The next page has 1 ms too: it waits for the place the run frees at its deadline, or
    // computes past its own limit; either way a 503 that names the limit.
    let (code, text) = get(server.port, "/calc?replicas=4").unwrap();
    assert_eq!(code, 503, "{text}");
    assert!(text.contains("--page-timeout"), "{text}");
    // The health checks are no evaluation.
    assert_eq!(get(server.port, "/healthz").unwrap().0, 200);
}
