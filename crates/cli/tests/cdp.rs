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
    start_chromium_on(profile, 0)
}

/// A headless Chromium debugging on `port` (0: any free one).
fn start_chromium_on(profile: &Path, port: u16) -> (Started, u16) {
    let chrome = wayfarer_browser::find_chrome(None).expect("Chromium is installed");
    let child = Started(
        Command::new(chrome)
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--remote-debugging-address=127.0.0.1",
            ])
            .arg(format!("--remote-debugging-port={port}"))
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
        // Chromium writes DevToolsActivePort only for a port it picked; a given port is
        // ready when it accepts a connection.
        let ready = if port == 0 {
            std::fs::read_to_string(&file)
                .ok()
                .and_then(|t| t.lines().next().and_then(|l| l.trim().parse().ok()))
        } else {
            std::net::TcpStream::connect(("127.0.0.1", port))
                .ok()
                .map(|_| port)
        };
        if let Some(port) = ready {
            return (child, port);
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "Chromium did not start debugging (port {port})"
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

/// The steps a run stored, by number: (step, worker).
fn stored_steps(run: &Path) -> Vec<(u64, u32)> {
    let data = wayfarer_store::load(run).unwrap();
    data.steps
        .iter()
        .map(|s| (s.record.step, s.record.worker))
        .collect()
}

/// Two Chromium processes started on their own stand in for a browser farm: one worker
/// each. Killing one mid-run retires its worker; the other spends the budget, and the
/// summary, the report and the progress output say which browser was lost.
#[test]
fn a_fleet_of_two_loses_one_browser_and_the_run_finishes_its_budget() {
    let server = Server::start(App::Clinic, ServeOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (kept, port_a) = start_chromium(&dir.path().join("a"));
    let (mut lost, port_b) = start_chromium(&dir.path().join("b"));
    let run = dir.path().join("run");
    let endpoints = dir.path().join("fleet.txt");
    std::fs::write(
        &endpoints,
        format!("# the farm\nhttp://127.0.0.1:{port_a}\n\nhttp://127.0.0.1:{port_b}  # second\n"),
    )
    .unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_wayfarer"))
        .args(["explore", &server.url(), "--strategy", "random"])
        // An action budget: on a busy machine the kill below comes late, and the run
        // must still have steps left to spend without the lost browser.
        .args(["--budget", "60", "--episode-steps", "15", "--cdp-file"])
        .arg(&endpoints)
        .arg("--out")
        .arg(&run)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Kill the second browser once both workers have recorded steps.
    let started = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(300));
        let steps = wayfarer_store::load(&run)
            .map(|d| d.steps.iter().map(|s| s.record.worker).collect::<Vec<_>>())
            .unwrap_or_default();
        if steps.contains(&0) && steps.contains(&1) && steps.len() >= 10 {
            break;
        }
        assert!(
            steps.len() < 50 && started.elapsed() < Duration::from_secs(120),
            "both workers step before most of the budget is spent: {steps:?}"
        );
    }
    lost.0.kill().unwrap();
    lost.0.wait().unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{:?}: {stderr}",
        out.status
    );
    assert!(stderr.contains("2 workers"), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "worker 1 (http://127.0.0.1:{port_b}) stopped, the others go on"
        )),
        "{stderr}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("report.json")).unwrap()).unwrap();
    assert!(json["stopped_early"].is_null(), "{json}");
    assert_eq!(json["steps"], 60, "the budget is spent: {json}");
    let workers = json["workers"].as_array().unwrap();
    assert_eq!(workers.len(), 2, "{json}");
    assert_eq!(workers[0]["browser"], format!("http://127.0.0.1:{port_a}"));
    assert!(workers[0]["retired"].is_null(), "{json}");
    assert!(
        workers[1]["retired"].as_str().unwrap().contains("browser"),
        "{json}"
    );
    assert!(
        workers[0]["steps"].as_u64().unwrap() > workers[1]["steps"].as_u64().unwrap(),
        "the surviving worker went on: {json}"
    );
    // Every step is in the store once, numbered 1..=n, and the summary counts them all.
    let steps = stored_steps(&run);
    let n = steps.len() as u64;
    assert_eq!(
        steps.iter().map(|s| s.0).collect::<Vec<_>>(),
        (1..=n).collect::<Vec<_>>()
    );
    assert_eq!(json["steps"].as_u64().unwrap(), n);
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(
        html.contains("2 browsers at once"),
        "the report lists the workers"
    );
    drop(kept);
    server.shutdown();
}

/// A farm that brings a lost browser back on the same address: the worker reconnects to
/// it (a restart), is not retired, and goes on stepping there.
#[test]
fn a_fleet_browser_that_comes_back_on_its_address_gets_its_worker_back() {
    let server = Server::start(App::Clinic, ServeOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (kept, port_a) = start_chromium(&dir.path().join("a"));
    let (mut lost, port_b) = start_chromium(&dir.path().join("b"));
    let run = dir.path().join("run");
    // Killed by its drop if the test fails before the run ends.
    let mut child = Started(
        Command::new(env!("CARGO_BIN_EXE_wayfarer"))
            .args(["explore", &server.url(), "--strategy", "random", "--quiet"])
            .args(["--budget", "24s", "--episode-steps", "15"])
            .args(["--cdp", &format!("http://127.0.0.1:{port_a}")])
            .args(["--cdp", &format!("http://127.0.0.1:{port_b}"), "--out"])
            .arg(&run)
            .spawn()
            .unwrap(),
    );
    let started = Instant::now();
    let before = loop {
        std::thread::sleep(Duration::from_millis(300));
        let steps: Vec<u32> = wayfarer_store::load(&run)
            .map(|d| d.steps.iter().map(|s| s.record.worker).collect())
            .unwrap_or_default();
        if steps.contains(&0) && steps.iter().filter(|&&w| w == 1).count() >= 5 {
            break steps.iter().filter(|&&w| w == 1).count();
        }
        assert!(started.elapsed() < Duration::from_secs(18), "{steps:?}");
    };
    lost.0.kill().unwrap();
    lost.0.wait().unwrap();
    // The farm's replacement, on the same address, with a profile of its own.
    let (back, _) = start_chromium_on(&dir.path().join("b2"), port_b);
    let status = child.0.wait().unwrap();
    assert!(matches!(status.code(), Some(0 | 1)), "{status:?}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("report.json")).unwrap()).unwrap();
    let w = &json["workers"][1];
    assert!(w["retired"].is_null(), "{json}");
    assert!(w["restarts"].as_u64().unwrap() >= 1, "{json}");
    assert!(
        w["steps"].as_u64().unwrap() > before as u64 + 5,
        "worker 1 stepped on the new browser: {json}"
    );
    drop((kept, back));
    server.shutdown();
}
