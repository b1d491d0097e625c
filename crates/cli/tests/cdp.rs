//! `--cdp`: a Chromium started on its own with a remote debugging port (the way a browser
//! farm exposes one) serves a whole run: episodes with their resets, the report, and the
//! browser is left running for its owner.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use wayfarer_testapps::{App, ServeOptions, Server};

/// The Chromium this test started, killed when the test ends, even by a panic.
struct Started(Child);

impl Drop for Started {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A headless Chromium on a free debugging port; its port comes from the profile's
/// `DevToolsActivePort` file.
fn start_chromium(profile: &Path) -> (Started, u16) {
    let chrome = wayfarer_browser::find_chrome(None).expect("Chromium is installed");
    let child = Started(
        Command::new(chrome)
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let file = profile.join("DevToolsActivePort");
    let started = Instant::now();
    loop {
        if let Some(port) = std::fs::read_to_string(&file)
            .ok()
            .and_then(|t| t.lines().next().and_then(|l| l.trim().parse().ok()))
        {
            return (child, port);
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "Chromium wrote no DevToolsActivePort"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_separately_started_chromium_serves_a_whole_run_and_stays_up() {
    let server = Server::start(App::Clinic, ServeOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (mut chromium, port) = start_chromium(&dir.path().join("profile"));
    let out = Command::new(env!("CARGO_BIN_EXE_wayfarer"))
        .args([
            "explore",
            &server.url(),
            "--budget",
            "30",
            "--episode-steps",
            "10",
        ])
        .args(["--cdp", &format!("http://127.0.0.1:{port}"), "--out"])
        .arg(dir.path().join("run"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{:?}: {stderr}",
        out.status
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("run/report.json")).unwrap())
            .unwrap();
    assert_eq!(json["steps"], 30, "{json}");
    assert!(json["episodes"].as_u64().unwrap() >= 3, "resets: {json}");
    assert_eq!(json["restarts"], 0, "{json}");
    assert_eq!(json["complete"], true);
    assert!(json["states"].as_u64().unwrap() >= 2, "{json}");
    assert!(dir.path().join("run/report.html").exists());
    // Not ours to close: the browser still answers on its port.
    assert!(
        chromium.0.try_wait().unwrap().is_none(),
        "the attached browser was closed"
    );
    let version = std::net::TcpStream::connect(("127.0.0.1", port));
    assert!(version.is_ok(), "the debugging port is gone");
    drop(chromium);
    server.shutdown();
}
