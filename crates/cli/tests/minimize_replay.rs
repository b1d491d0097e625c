//! `minimize` and `replay` on a trace random exploration really found: the trace shrinks
//! to what the seeded bug needs, and the result reproduces every time.
//!
//! The fixture is the trace of `wayfarer demo --app expense --seed 2 --budget 1500`
//! (random, random inputs), which first raised the bug at step 882 after 32 actions from
//! its reset; re-recording it takes that run, so the file is kept here.

use std::process::Command;

use wayfarer_testapps::{seeded_bugs, App, ServeOptions, Server};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/expense-long-description.trace.json"
);

fn wayfarer() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wayfarer"))
}

#[test]
fn a_random_trace_shrinks_to_the_actions_the_bug_needs_and_replays_5_of_5() {
    let bug = seeded_bugs(App::Expense)
        .iter()
        .find(|b| b.id == "expense-long-description")
        .unwrap();
    // Fill demo credentials, Log in, open an expense form, type 201+ characters.
    assert_eq!(bug.min_actions, 4);
    let original: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(FIXTURE).unwrap()).unwrap();
    assert_eq!(original["steps"].as_array().unwrap().len(), 32);

    let server = Server::start(App::Expense, ServeOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let min_path = dir.path().join("min.json");
    let out = wayfarer()
        .args(["minimize", FIXTURE, "--url", &server.url(), "-q", "--out"])
        .arg(&min_path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let min: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&min_path).unwrap()).unwrap();
    let kept = min["steps"].as_array().unwrap().len();
    assert!(
        kept <= bug.min_actions as usize,
        "{kept} actions kept, the bug needs {}:\n{stdout}",
        bug.min_actions
    );
    // The minimal trace keeps the recorded origin and expectation, so it replays anywhere.
    assert_eq!(min["expected"], original["expected"]);
    assert_eq!(min["setup"]["start_url"], original["setup"]["start_url"]);

    let out = wayfarer()
        .args(["replay", "--repeat", "5", "--json", "--url", &server.url()])
        .arg(&min_path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "reproduced means exit 1: {stdout}"
    );
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["reproduced"], 5, "{v}");
    assert_eq!(v["repeat"], 5);

    // Against the same application with its bugs switched off, it is gone: exit 0.
    server.shutdown();
    let fixed = Server::start(
        App::Expense,
        ServeOptions {
            bugs: false,
            ..Default::default()
        },
    )
    .unwrap();
    let out = wayfarer()
        .args(["replay", "-q", "--url", &fixed.url()])
        .arg(&min_path)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    fixed.shutdown();
}
