//! A run its environment ends early exits 2, after writing its store and reports, and
//! says why; a run that spends its budget exits 0 or 1 as its failures say.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use wayfarer_testapps::{App, ServeOptions, Server};

fn wayfarer() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wayfarer"))
}

#[test]
fn an_application_gone_mid_run_ends_it_with_exit_2_and_a_report() {
    let server = Server::start(App::Clinic, ServeOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut child = wayfarer()
        .args([
            "explore",
            &server.url(),
            "--budget",
            "2000",
            "--episode-steps",
        ])
        .arg("5")
        .arg("--out")
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no 3 steps stored after 2 minutes"
        );
        std::thread::sleep(Duration::from_millis(200));
        if wayfarer_store::load(dir.path()).is_ok_and(|d| d.steps.len() >= 3) {
            break;
        }
    }
    // The application goes away: the next reset cannot load the start page.
    server.shutdown();
    let waited = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if waited.elapsed() > Duration::from_secs(120) {
            child.kill().unwrap();
            panic!("the run went on 2 minutes after its application stopped");
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let stdout = std::io::read_to_string(child.stdout.take().unwrap()).unwrap();
    assert_eq!(status.code(), Some(2), "{stdout}");
    assert!(stdout.contains("exit code 2"), "{stdout}");
    assert!(dir.path().join("report.html").exists());
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    assert_eq!(json["ended_by_environment"], true, "{json}");
    let why = json["stopped_early"].as_str().unwrap_or_default();
    assert!(why.contains("cannot load"), "{why}");
    let data = wayfarer_store::load(dir.path()).unwrap();
    assert!(data.complete, "the run ended with its summary written");
}

#[test]
fn a_run_that_spends_its_budget_is_not_ended_by_its_environment() {
    let server = Server::start(App::Clinic, ServeOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = wayfarer()
        .args(["explore", &server.url(), "--budget", "5", "-q", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    assert_eq!(json["ended_by_environment"], false, "{json}");
    server.shutdown();
}
