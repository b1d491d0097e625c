//! Logins that hold: a login step that cannot be done ends the run at once, with the
//! step's number and what the page showed (exit 2, report written); being logged out
//! mid-run is noticed from the login form coming back, and answered by a reset that logs
//! in again, counted in the summary.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use wayfarer_browser::{find_chrome, BrowserEnv, BrowserOptions};
use wayfarer_core::config::LoginStep;
use wayfarer_core::{Budget, Environment, EventKind};
use wayfarer_testapps::{App, ServeOptions, Server};

fn step(goto: Option<&str>, fill: Option<(&str, &str)>, click: Option<&str>) -> LoginStep {
    LoginStep {
        goto: goto.map(Into::into),
        fill: fill.map(|(s, _)| s.into()),
        value: fill.map(|(_, v)| v.into()),
        click: click.map(Into::into),
    }
}

/// The expense app's demo account, logged in through its form.
fn demo_login() -> Vec<LoginStep> {
    vec![
        step(Some("/login"), None, None),
        step(None, Some(("#email", "demo@example.com")), None),
        step(None, Some(("#password", "demo1234")), None),
        step(None, None, Some("button[type=submit]")),
    ]
}

#[test]
fn a_login_step_whose_selector_matches_nothing_fails_fast_with_its_number_and_the_page() {
    let server = Server::start(App::Expense, ServeOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("wayfarer.toml");
    std::fs::write(
        &config,
        "[[login]]\ngoto = \"/login\"\n[[login]]\nfill = \"#email\"\nvalue = \"demo@example.com\"\n\
         [[login]]\nfill = \"#passwd\"\nvalue = \"Pw-typed-77\"\n[[login]]\nclick = \"button[type=submit]\"\n",
    )
    .unwrap();
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_wayfarer"))
        .args(["explore", &server.url(), "--budget", "50", "--config"])
        .arg(&config)
        .arg("--out")
        .arg(dir.path().join("run"))
        .output()
        .unwrap();
    let took = started.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    // Fast: no restarts, no retries (generous for 2 loaded cores).
    assert!(took < Duration::from_secs(30), "{took:?}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("run/report.json")).unwrap())
            .unwrap();
    let why = json["stopped_early"].as_str().unwrap_or_default();
    assert!(why.contains("login step 3 of 4"), "{why}");
    assert!(why.contains("#passwd"), "{why}");
    assert!(
        why.contains("/login") && why.contains("Log in"),
        "the page: {why}"
    );
    assert!(
        !why.contains("Pw-typed-77"),
        "a typed value is never shown: {why}"
    );
    assert_eq!(json["steps"], 0);
    assert_eq!(json["restarts"], 0);
    assert!(stdout.contains("login step 3 of 4"), "{stdout}");
    server.shutdown();
}

#[test]
fn logged_out_mid_run_is_noticed_reset_and_counted() {
    let server = Server::start(App::Expense, ServeOptions::default()).unwrap();
    let url = server.url();
    let config = wayfarer_core::config::BrowserConfig {
        stable_timeout_ms: 3000,
        ..Default::default()
    };
    let mut env = BrowserEnv::launch(BrowserOptions {
        login: demo_login(),
        chrome: Some(find_chrome(None).unwrap()),
        config,
        ..BrowserOptions::new(url.parse().unwrap())
    })
    .unwrap();
    // Random clicks reach the "Log out" button of every page within a few dozen steps.
    let opts = common::options(&url, 5, Budget::actions(120), 40);
    let (summary, steps) = common::explore(&mut env, &opts, &mut common::Nobody);
    env.close();
    let out: Vec<usize> = steps
        .iter()
        .enumerate()
        .filter(|(_, s)| s.events.iter().any(|e| e.kind == EventKind::LoggedOut))
        .map(|(i, _)| i)
        .collect();
    assert!(!out.is_empty(), "never logged out in 120 random steps");
    assert_eq!(summary.logged_out, out.len() as u64);
    for &i in &out {
        assert!(
            steps[i].url_after.contains("/login") || steps[i].url_after.ends_with('/'),
            "{}",
            steps[i].url_after
        );
        // The next step starts a new episode, logged in again (not on the login page).
        if let Some(next) = steps.get(i + 1) {
            assert_eq!(next.episode_step, 1, "step {} after the log-out", next.step);
            assert_eq!(next.episode, steps[i].episode + 1);
        }
    }
    // Logged in again after each: most steps are not on the login page.
    let on_login = steps
        .iter()
        .filter(|s| s.events.iter().any(|e| e.kind == EventKind::LoggedOut))
        .count();
    assert!(on_login * 4 < steps.len(), "{on_login} of {}", steps.len());
    server.shutdown();
}
