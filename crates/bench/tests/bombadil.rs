//! Bombadil against the expense test app for ~10 s, watched and measured by the bench.
//! Today's (0.7.0) is installed from the npm registry into a cache under `target/` on the
//! first run, as the bench does into `~/.cache`; 0.4.5 is built from source, never by the
//! tests: where its binary is missing ($BOMBADIL_BIN,
//! /opt/peers/bombadil/target/release/bombadil), its test says so and passes.

mod common;

use std::time::Duration;

use common::peers::peer_options;
use wayfarer_bench::peer::{run_peer, Bombadil, Peer, PeerOptions};
use wayfarer_core::config::LoginStep;
use wayfarer_testapps::{App, ServeOptions, Server};

/// Live (not zombie) processes whose process group is `pgid`, read from /proc.
fn group_members(pgid: i64) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        let f: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        if f.len() > 2 && f[0] != "Z" && f[2].parse::<i64>() == Ok(pgid) {
            out.push(stat[..close + 1].to_string());
        }
    }
    out
}

/// Bombadil's browser profiles (`user_data_*`) in the system's temporary directory.
fn profiles_in_tmp() -> Vec<std::path::PathBuf> {
    std::fs::read_dir(std::env::temp_dir())
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with("user_data_"))
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn bombadil_045_explores_the_expense_app() {
    let mut b = Bombadil::source();
    let line = match b.ensure_installed() {
        Ok(line) => line,
        Err(e) => {
            eprintln!("skipped: {e}");
            return;
        }
    };
    eprintln!("{line}");
    let server = Server::start(App::Expense, ServeOptions::default()).unwrap();
    let profiles_before = profiles_in_tmp();
    let logs = tempfile::tempdir().unwrap();
    let opts = PeerOptions {
        log_dir: Some(logs.path().to_path_buf()),
        ..peer_options(&server.url(), Duration::from_secs(10))
    };
    let r = run_peer(&b, &opts).expect("bombadil runs");
    eprintln!(
        "steps {} in {:?}, urls {}, states {}, screens {:?}, skipped samples {}",
        r.steps, r.elapsed, r.urls, r.states, r.screens, r.skipped_samples
    );
    eprintln!("coverage {:?}", r.coverage);
    eprintln!("action log ({}): {:?}", r.action_log.len(), r.action_log);
    for f in &r.failures {
        eprintln!(
            "failure at step {}: {} {}",
            f.step,
            f.kind.as_str(),
            f.message
        );
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(logs.path().join("run.json")).unwrap())
            .unwrap();
    eprintln!("{}", serde_json::to_string_pretty(&summary).unwrap());

    let cov = r.coverage.expect("coverage is measured");
    assert!(
        cov.first_load_covered_bytes > 0,
        "the first load covered nothing: {cov:?}"
    );
    assert!(
        cov.covered_bytes > cov.first_load_covered_bytes,
        "Bombadil's actions covered nothing past the first load: {cov:?}"
    );
    assert!(r.urls >= 1);
    assert!(r.steps > 0, "no action in the trace");
    assert!(r.states > 0, "no page was sampled");
    assert!(!r.series.is_empty());
    assert!(r.series.windows(2).all(|w| w[0].step <= w[1].step));
    assert_eq!(summary["chromium_flags_applied"], true, "{summary}");
    assert!(logs.path().join("bombadil.log").is_file());
    assert!(logs.path().join("trace.jsonl").is_file());
    let pgid = summary["process_group"].as_i64().unwrap();
    assert!(
        group_members(pgid).is_empty(),
        "left behind: {:?}",
        group_members(pgid)
    );
    // Interrupted, Bombadil leaves its browser profile behind: it must go with our
    // scratch directory, not stay in /tmp (5-9 MB a run).
    let left: Vec<_> = profiles_in_tmp()
        .into_iter()
        .filter(|p| !profiles_before.contains(p))
        .collect();
    assert!(left.is_empty(), "profiles left in /tmp: {left:?}");
}

/// The expense app's login, as its configuration would say it (its fields are what tells
/// a logged-out page).
fn expense_login() -> Vec<LoginStep> {
    let step = |goto: Option<&str>, fill: Option<(&str, &str)>, click: Option<&str>| LoginStep {
        goto: goto.map(String::from),
        fill: fill.map(|f| f.0.to_string()),
        value: fill.map(|f| f.1.to_string()),
        click: click.map(String::from),
    };
    vec![
        step(Some("/login"), None, None),
        step(None, Some(("#email", "demo@example.com")), None),
        step(None, Some(("#password", "demo1234")), None),
        step(None, None, Some("button[type=submit]")),
    ]
}

/// Today's Bombadil, from the npm registry, logged in the way its users log in: the
/// bench's browser runs the login and Bombadil gets the session's cookies, so it explores
/// the pages behind the login.
#[test]
fn bombadil_07_from_npm_explores_behind_the_login() {
    let cache = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("peers");
    let mut b = Bombadil::npm(cache);
    let line = b.ensure_installed().expect("bombadil installs from npm");
    assert!(line.starts_with("bombadil 0.7.0"), "{line}");
    let server = Server::start(App::Expense, ServeOptions::default()).unwrap();
    let logs = tempfile::tempdir().unwrap();
    let opts = PeerOptions {
        log_dir: Some(logs.path().to_path_buf()),
        login: expense_login(),
        ..peer_options(&server.url(), Duration::from_secs(10))
    };
    let r = run_peer(&b, &opts).expect("bombadil runs");
    eprintln!(
        "steps {} urls {} states {} behind the login {:?} logouts {} ended early {:?} screens {:?}",
        r.steps, r.urls, r.states, r.behind_login, r.logouts, r.ended_early, r.screens
    );
    assert!(r.steps > 0, "no action in the trace");
    // Screens only a logged-in user sees (the login and registration pages are not).
    assert!(
        r.screens.iter().any(|s| s != "login" && s != "register"),
        "screens {:?}",
        r.screens
    );
    assert!(
        r.behind_login.is_some_and(|n| n >= 1),
        "bombadil never got past the login: {:?}",
        r.behind_login
    );
    // Bombadil's own failure is a line "Error: ..." (the harness reports it); its
    // browser client may log "WS Connection error: ..." when the time limit closes it.
    let log = std::fs::read_to_string(logs.path().join("bombadil.log")).unwrap_or_default();
    assert!(
        !log.lines().any(|l| l.trim_start().starts_with("Error: ")),
        "{log}"
    );
}

/// A login kept in local storage (Verdaccio's way): no cookie to hand over, so the bench
/// writes the login's local storage into Bombadil's browser before it starts, and Bombadil
/// explores the account page, not the sign-in form.
#[test]
fn bombadil_07_gets_a_login_kept_in_local_storage() {
    let cache = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("peers");
    let mut b = Bombadil::npm(cache);
    b.ensure_installed().expect("bombadil installs from npm");
    let server = Server::start(App::Hazards, ServeOptions::default()).unwrap();
    let logs = tempfile::tempdir().unwrap();
    let step = |goto: Option<&str>, fill: Option<(&str, &str)>, click: Option<&str>| LoginStep {
        goto: goto.map(String::from),
        fill: fill.map(|f| f.0.to_string()),
        value: fill.map(|f| f.1.to_string()),
        click: click.map(String::from),
    };
    let login = vec![
        step(Some("/token/login"), None, None),
        step(None, Some(("#user", "ada")), None),
        step(None, Some(("#password", "pw")), None),
        step(None, None, Some("button[type=submit]")),
    ];
    let start = format!("{}token/home", server.url());
    let opts = PeerOptions {
        log_dir: Some(logs.path().to_path_buf()),
        login,
        ..peer_options(&start, Duration::from_secs(10))
    };
    let r = run_peer(&b, &opts).expect("bombadil runs with a login kept in local storage");
    assert!(r.steps > 0, "no action in the trace");
    assert!(
        r.behind_login.is_some_and(|n| n >= 1),
        "bombadil never got past the login: {:?} (ended early: {:?})",
        r.behind_login,
        r.ended_early
    );
}
