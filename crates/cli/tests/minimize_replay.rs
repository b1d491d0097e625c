//! `minimize` and `replay` on a trace a strategy really found for a deep seeded bug: the
//! trace shrinks to the bug's true length, and the result reproduces every time.
//!
//! The fixture is the trace of splitter-future-settle (8 actions from a fresh session)
//! that `wayfarer bench --apps splitter --strategies webexplor --budget 500 --seeds 3`
//! (webexplor, heuristic+mutate inputs) recorded in seed 3: 24 actions from its reset,
//! with detours through other groups and transactions and fields typed twice.

use std::process::Command;

use wayfarer_testapps::{seeded_bugs, App, ServeOptions, Server};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/splitter-future-settle.trace.json"
);

fn wayfarer() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wayfarer"))
}

#[test]
fn a_deep_trace_shrinks_to_the_bugs_true_length_and_replays_5_of_5() {
    let bug = seeded_bugs(App::Splitter)
        .iter()
        .find(|b| b.id == "splitter-future-settle")
        .unwrap();
    // A group, Add transaction, amount, a future date, description, payer, Save, Settle up.
    assert_eq!(bug.min_actions, 8);
    let original: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(FIXTURE).unwrap()).unwrap();
    assert_eq!(original["steps"].as_array().unwrap().len(), 24);

    let server = Server::start(App::Splitter, ServeOptions::default()).unwrap();
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
    // No fewer can raise it from a fresh session, and ddmin leaves no action it can drop.
    assert_eq!(
        kept, bug.min_actions as usize,
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
        App::Splitter,
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
