//! Browsers from real grid products started here (installed by `scripts/ensure-grid.sh`):
//! browserless, which starts a fresh Chromium per websocket connection and ends a
//! connection at its session timeout, and a WebDriver hub (Debian's chromedriver) for
//! `--grid`, whose sessions wayfarer opens and must delete, also when stopped by SIGTERM.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use wayfarer_testapps::{App, ServeOptions, Server};

/// A process this test started, stopped when the test ends, even by a panic: TERM (the
/// browserless launcher stops browserless and removes its folder), then KILL.
struct Started(Child);

impl Drop for Started {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status();
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(10) {
            if matches!(self.0.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `GET http://127.0.0.1:port{path}`: the status and the body, or `None` when nothing
/// answers.
fn get(port: u16, path: &str) -> Option<(u16, String)> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    // Read the head, then Content-Length bytes: chromedriver keeps the connection open.
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = s.read(&mut chunk).ok()?;
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf).into_owned();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.eq_ignore_ascii_case("content-length")
                    .then(|| v.trim().parse::<usize>().ok())?
            });
            if n == 0 || length.is_some_and(|l| body.len() >= l) {
                let status = head.split_whitespace().nth(1)?.parse().ok()?;
                return Some((status, body.to_string()));
            }
        } else if n == 0 {
            return None;
        }
    }
}

/// Wait until `GET path` answers 200, or fail with what the process wrote.
fn wait_ready(port: u16, path: &str, what: &str, log: &Path) {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(90) {
        if matches!(get(port, path), Some((200, _))) {
            return;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    panic!(
        "{what} did not answer {path} within 90 s: {}",
        std::fs::read_to_string(log).unwrap_or_default()
    );
}

/// A run's stderr, once it is known to have ended as a run does (0: no failure, 1: some).
fn finished(out: &std::process::Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{:?}: {stderr}",
        out.status
    );
    stderr
}

/// The lines of browserless's log about its jobs (queued, started, timed out, ended).
fn jobs(log: &Path) -> String {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("Job") || l.contains("imeout") || l.contains("queue"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn report(run: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(run.join("report.json")).unwrap()).unwrap()
}

/// Two workers through one browserless endpoint, whose 12-second session timeout ends
/// each worker's connection mid-run: each time the worker reconnects (a fresh browser),
/// enters the application again and goes on, and the run spends its whole budget. The
/// token in the endpoint's query is never printed or stored.
#[test]
fn two_workers_through_browserless_outlive_its_session_timeout() {
    let launcher = repo().join("tools/browserless/start.sh");
    assert!(
        repo()
            .join("tools/browserless/node_modules/@browserless.io/browserless/build")
            .is_dir(),
        "browserless is not installed: run bash scripts/ensure-grid.sh"
    );
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let token = format!("tok{}", std::process::id());
    let log = dir.path().join("browserless.log");
    let _browserless = Started(
        Command::new("bash")
            .arg(&launcher)
            .env("PORT", port.to_string())
            .env("TOKEN", &token)
            .env("TIMEOUT", "12000")
            .env("CONCURRENT", "4")
            .env("QUEUED", "4")
            // browserless logs through `debug`, to stderr: its jobs' starts and timeouts
            // explain a run that was not cut as expected.
            .stdout(std::fs::File::create(&log).unwrap())
            .stderr(std::fs::File::options().append(true).open(&log).unwrap())
            .spawn()
            .unwrap(),
    );
    wait_ready(
        port,
        &format!("/json/version?token={token}"),
        "browserless",
        &log,
    );
    let server = Server::start(App::Clinic, ServeOptions::default()).unwrap();
    let run = dir.path().join("run");
    let out = Command::new(env!("CARGO_BIN_EXE_wayfarer"))
        .args(["explore", &server.url(), "--strategy", "random"])
        .args(["--budget", "30s", "--episode-steps", "10", "--workers", "2"])
        .args([
            "--cdp",
            &format!("ws://127.0.0.1:{port}/chromium?token={token}"),
        ])
        .arg("--out")
        .arg(&run)
        .output()
        .unwrap();
    let stderr = finished(&out);
    assert!(stderr.contains("2 connections to"), "{stderr}");
    let json = report(&run);
    assert!(json["stopped_early"].is_null(), "{json}");
    assert_eq!(json["complete"], true, "{json}");
    assert!(
        json["duration_s"].as_f64().unwrap() >= 29.0,
        "the time budget is spent: {json}"
    );
    assert!(
        json["restarts"].as_u64().unwrap() >= 2,
        "the session timeout ended connections mid-run: {json}\nbrowserless's jobs:\n{}",
        jobs(&log)
    );
    let workers = json["workers"].as_array().unwrap();
    assert_eq!(workers.len(), 2, "{json}");
    for w in workers {
        assert!(w["retired"].is_null(), "no worker gave up: {json}");
        assert!(w["steps"].as_u64().unwrap() >= 5, "{json}");
    }
    // After a reconnection the worker is back in the application: steps after the first
    // restart reach its pages again.
    let data = wayfarer_store::load(&run).unwrap();
    let restarted_at = data
        .steps
        .iter()
        .find(|s| {
            s.record
                .events
                .iter()
                .any(|e| e.message.contains("restarted"))
        })
        .map(|s| s.record.step)
        .expect("a step that says the browser was restarted");
    assert!(
        data.steps
            .iter()
            .any(|s| s.record.step > restarted_at && s.record.url_after.starts_with(&server.url())),
        "the app is explored again after the reconnection"
    );
    let stored = std::fs::read_to_string(run.join("report.json")).unwrap();
    assert!(!stderr.contains(&token), "the token is printed: {stderr}");
    assert!(!stored.contains(&token), "the token is stored");
    server.shutdown();
}

/// The chromedriver's sessions (`GET /sessions`): how many are open.
fn sessions(port: u16) -> usize {
    let (_, body) = get(port, "/sessions").expect("chromedriver answers");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    v["value"].as_array().map_or(0, Vec::len)
}

/// `--grid` against a WebDriver hub (Debian's chromedriver): a session per worker, the
/// run over their CDP websockets, and every session deleted at the end; then a run
/// stopped by SIGTERM deletes its session too.
#[test]
fn a_webdriver_hub_serves_the_workers_and_every_session_is_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let log = dir.path().join("chromedriver.log");
    let _driver = Started(
        Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .arg(format!("--log-path={}", log.display()))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver is installed: run bash scripts/ensure-grid.sh"),
    );
    wait_ready(port, "/status", "chromedriver", &log);
    let server = Server::start(App::Clinic, ServeOptions::default()).unwrap();
    let hub = format!("http://127.0.0.1:{port}");

    let run = dir.path().join("run");
    let out = Command::new(env!("CARGO_BIN_EXE_wayfarer"))
        .args(["explore", &server.url(), "--strategy", "random"])
        .args(["--budget", "30", "--episode-steps", "10", "--workers", "2"])
        .args(["--grid", &hub, "--out"])
        .arg(&run)
        .output()
        .unwrap();
    finished(&out);
    let json = report(&run);
    assert_eq!(json["steps"], 30, "{json}");
    let workers = json["workers"].as_array().unwrap();
    assert_eq!(workers.len(), 2, "{json}");
    for w in workers {
        assert!(
            w["browser"]
                .as_str()
                .unwrap()
                .starts_with("grid http://127.0.0.1:"),
            "{json}"
        );
        assert!(w["steps"].as_u64().unwrap() >= 1, "{json}");
    }
    assert_eq!(sessions(port), 0, "the run deleted its sessions");

    // Stopped by SIGTERM mid-run: the session goes all the same.
    let stopped = dir.path().join("stopped");
    let mut child = Command::new(env!("CARGO_BIN_EXE_wayfarer"))
        .args(["explore", &server.url(), "--strategy", "random"])
        .args(["--budget", "5m", "--workers", "1", "--grid", &hub, "--out"])
        .arg(&stopped)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(300));
        let steps = wayfarer_store::load(&stopped)
            .map(|d| d.steps.len())
            .unwrap_or(0);
        if steps >= 5 {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(120),
            "the run took no steps"
        );
    }
    assert_eq!(sessions(port), 1, "the run holds one session");
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the run did not stop"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(sessions(port), 0, "SIGTERM: the session was deleted");
    let json = report(&stopped);
    assert!(!json["stopped_early"].is_null(), "{json}");
    server.shutdown();
}
