//! The run store and the reports through the binary: a run killed with SIGKILL keeps
//! every step but the one it was in, and page-controlled text is escaped in the HTML.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use wayfarer_testapps::{App, ServeOptions, Server};

fn wayfarer() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wayfarer"))
}

/// A number in `lo..hi` that differs from run to run: the kill lands at a random moment.
fn random_in(lo: u64, hi: u64) -> u64 {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64;
    lo + nanos % (hi - lo)
}

#[test]
fn a_run_killed_with_sigkill_is_reported_from_its_store() {
    let server = Server::start(App::Clinic, ServeOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut child = wayfarer()
        .args(["explore", &server.url(), "--budget", "2000", "-q", "--out"])
        .arg(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let target = random_in(5, 25);
    let started = Instant::now();
    let mut seen = 0;
    while seen < target {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "only {seen} steps stored after 2 minutes"
        );
        std::thread::sleep(Duration::from_millis(200));
        if let Ok(data) = wayfarer_store::load(dir.path()) {
            seen = data.steps.len() as u64;
        }
    }
    std::thread::sleep(Duration::from_millis(random_in(0, 400)));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    let out = wayfarer().arg("report").arg(dir.path()).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("did not finish"), "{stderr}");

    let data = wayfarer_store::load(dir.path()).unwrap();
    assert!(!data.complete);
    let n = data.steps.len() as u64;
    assert!(
        n >= seen,
        "{n} steps stored, {seen} were seen before the kill"
    );
    for (i, s) in data.steps.iter().enumerate() {
        assert_eq!(s.record.step, i as u64 + 1, "steps 1..={n} without a gap");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    assert_eq!(json["steps"], n);
    assert_eq!(json["complete"], false);
    let junit = std::fs::read_to_string(dir.path().join("junit.xml")).unwrap();
    assert!(junit.contains("type=\"incomplete\""), "{junit}");
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(
        html.contains(&format!("{n} steps")),
        "the HTML report counts {n} steps"
    );
    let ctrf: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("ctrf.json")).unwrap())
            .unwrap();
    assert_eq!(ctrf["results"]["tests"][0]["status"], "failed", "{ctrf}");

    // One format alone, and a name that is none: refused with the ones there are.
    std::fs::remove_file(dir.path().join("ctrf.json")).unwrap();
    std::fs::remove_file(dir.path().join("junit.xml")).unwrap();
    let out = wayfarer()
        .args(["report", "--format", "ctrf"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(dir.path().join("ctrf.json").exists() && !dir.path().join("junit.xml").exists());
    let out = wayfarer()
        .args(["report", "--format", "sarif"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr.contains("html, json, junit, ctrf"), "{stderr}");
    server.shutdown();
}

#[test]
fn page_markup_in_titles_text_and_console_is_text_in_the_html_report() {
    let server = Server::start(App::Hazards, ServeOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = wayfarer()
        .args([
            "explore",
            &format!("{}xss", server.url()),
            "--budget",
            "4",
            "-q",
            "--out",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "the probe's console error is a failure: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    for probe in wayfarer_testapps::XSS_PROBES {
        assert!(!html.contains(probe), "raw {probe:?} in the report");
    }
    assert!(!html.contains("<img src=x"));
    assert!(!html.contains("<script>alert"));
    // The probes are there, as text.
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;&#x2f;script&gt;")
            || html.contains("&lt;script&gt;alert(1)&lt;/script&gt;")
    );
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"));
    server.shutdown();
}
