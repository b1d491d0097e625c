//! A failure that needs state outside the browser: the hazards app's login throttle
//! answers HTTP 500 after five failed logins for a user, and a browser reset does not
//! undo it. With a `[reset]` hook `minimize` keeps every failed login the lock needs;
//! without one, `minimize` and `replay` say the failure depends on state outside the
//! browser instead of reporting a one-login trace. The trace starts on `/throttle`, so
//! the commands replay it where it was recorded (no `--url`).

mod common;

use std::process::Command;

use common::throttle::{logins, trace};
use wayfarer_testapps::{App, ServeOptions, Server};

fn wayfarer() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wayfarer"))
}

/// Run `cmd`: its exit code and its stdout and stderr together.
fn run(cmd: &mut Command) -> (Option<i32>, String) {
    let out = cmd.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

#[test]
fn with_a_reset_hook_minimize_keeps_every_failed_login_the_lock_needs() {
    let server = Server::start(App::Hazards, ServeOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("throttle.json");
    std::fs::write(&path, trace(&server.url())).unwrap();
    let config = dir.path().join("wayfarer.toml");
    std::fs::write(&config, "[reset]\nhttp = \"POST /__reset\"\n").unwrap();
    let min_path = dir.path().join("min.json");
    let (code, text) = run(wayfarer()
        .args(["minimize", "--config"])
        .arg(&config)
        .arg("--out")
        .arg(&min_path)
        .arg(&path));
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("reset hook runs POST"), "{text}");
    let min: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&min_path).unwrap()).unwrap();
    assert_eq!(
        logins(&min),
        6,
        "five failures lock, the sixth login fails:\n{text}"
    );
    assert!(min.get("outside_state").is_none(), "{min}");
    assert!(!text.contains("outside the browser"), "{text}");
}

#[test]
fn without_a_hook_minimize_and_replay_say_the_failure_depends_on_outside_state() {
    let server = Server::start(App::Hazards, ServeOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("throttle.json");
    std::fs::write(&path, trace(&server.url())).unwrap();
    let min_path = dir.path().join("min.json");
    // A fresh server: the first replay is right (the sixth login fails), then the lock
    // holds and shorter traces "reproduce".
    let (code, text) = run(wayfarer()
        .args(["minimize", "--out"])
        .arg(&min_path)
        .arg(&path));
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("warning: the failure depends on state outside the browser"),
        "{text}"
    );
    let min: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&min_path).unwrap()).unwrap();
    assert!(
        logins(&min) >= 6,
        "no one-login trace passes for minimal:\n{text}"
    );
    assert!(
        min["outside_state"]
            .as_str()
            .is_some_and(|w| w.contains("after shorter traces had run")),
        "{min}"
    );

    // The lock still holds: a replay raises the failure at the first login.
    let out = wayfarer()
        .args(["replay", "--json"])
        .arg(&path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["runs"][0]["after_action"], 2, "{v}");
    assert!(
        v["outside_state"]
            .as_str()
            .is_some_and(|w| w.contains("run 1 raised it after action 2 of 7")),
        "{v}"
    );

    // The exported spec carries the warning.
    let export = dir.path().join("pw");
    std::fs::create_dir_all(dir.path().join("run/traces")).unwrap();
    std::fs::copy(&min_path, dir.path().join("run/traces/01-throttle.json")).unwrap();
    let out = wayfarer()
        .args(["export", "--format", "playwright", "--out"])
        .arg(&export)
        .arg(dir.path().join("run"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let spec = std::fs::read_dir(export.join("tests"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .find(|s| s.contains("test("))
        .unwrap();
    assert!(
        spec.contains("// Warning: this failure depends on state outside the browser"),
        "{spec}"
    );
}
