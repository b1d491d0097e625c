//! The gremlins.js peer against a real Chromium and the clinic test app. The package is
//! installed from the npm registry into a cache under `target/` on the first run (as the
//! bench does into `~/.cache`), so a clean clone with registry access passes.

mod common;

use std::path::PathBuf;
use std::time::Duration;

use common::peers::peer_options;
use wayfarer_bench::peer::{
    run_peer, run_script, Gremlins, Peer, PeerError, PeerOptions, PeerResult, ScriptPeer,
};
use wayfarer_testapps::{App, ServeOptions, Server};

fn cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("peers")
}

#[test]
fn install_without_npm_says_how_to_get_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut g = Gremlins::new(dir.path().to_path_buf()).with_npm("/nonexistent/bin/npm");
    let err = g.ensure_installed().unwrap_err();
    assert!(matches!(err, PeerError::Install { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains("npm not found"), "{msg}");
    assert!(msg.contains("apt-get install -y npm"), "{msg}");
    // The pin is written even when npm is missing: a later run with npm installs it.
    assert!(g.dir().join("package-lock.json").is_file());
}

/// A stand-in for npm: a shell script that prints `stderr` and exits with `code`.
#[cfg(unix)]
fn fake_npm(dir: &std::path::Path, stderr: &str, code: i32) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("npm");
    let script = format!("#!/bin/sh\nprintf '%s\\n' '{stderr}' >&2\nexit {code}\n");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[cfg(unix)]
#[test]
fn install_errors_say_what_went_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let refused = "npm error code ECONNREFUSED";
    let mut g = Gremlins::new(cache.clone()).with_npm(fake_npm(dir.path(), refused, 1));
    let msg = g.ensure_installed().unwrap_err().to_string();
    assert!(msg.contains("registry is unreachable"), "{msg}");
    assert!(msg.contains("code ECONNREFUSED"), "{msg}");

    // npm says it worked, but the bundle is not there.
    let mut g = Gremlins::new(cache).with_npm(fake_npm(dir.path(), "", 0));
    let msg = g.ensure_installed().unwrap_err().to_string();
    assert!(msg.contains("gremlins.min.js"), "{msg}");
    assert!(msg.contains("is missing"), "{msg}");
}

/// Seed 1 reaches the vets page around action 570.
const MAX_STEPS: u64 = 750;

#[test]
fn gremlins_explore_the_clinic() {
    let mut g = Gremlins::new(cache());
    let line = g.ensure_installed().expect("gremlins.js installs from npm");
    eprintln!("{line}");
    assert!(line.starts_with("gremlins.js 2.2.0 "), "{line}");
    // A second call finds what the first installed.
    assert!(g.ensure_installed().unwrap().contains("found in"));

    let server = Server::start(App::Clinic, ServeOptions::default()).unwrap();
    let opts = PeerOptions {
        max_steps: Some(MAX_STEPS),
        // About 8 s here (~90 actions/s); the duration is only a ceiling.
        ..peer_options(&server.url(), Duration::from_secs(40))
    };
    let r = run_peer(&g, &opts).expect("the peer runs");

    eprintln!(
        "steps {} in {:?}, urls {}, states {}, restarts {}, skipped samples {}",
        r.steps, r.elapsed, r.urls, r.states, r.restarts, r.skipped_samples
    );
    eprintln!("coverage {:?}", r.coverage);
    eprintln!("screens {:?}", r.screens);
    eprintln!("action log ({}): {:?}", r.action_log.len(), r.action_log);
    for f in &r.failures {
        eprintln!(
            "failure at step {}: {} {} ({:?})",
            f.step,
            f.kind.as_str(),
            f.message,
            f.page_url
        );
    }

    assert_eq!(r.steps, MAX_STEPS, "the horde stops at the action budget");
    let cov = r.coverage.expect("coverage is measured");
    assert!(cov.total_bytes > 0);
    assert!(
        cov.covered_bytes > cov.first_load_covered_bytes,
        "the horde exercised no code past the first load: {cov:?}"
    );
    // Where the horde goes depends on timing (a click that navigates lets a varying number
    // of attacks run on the old page), so only what holds on every path is asserted here;
    // the log's bookkeeping is unit-tested in peer/tally.rs.
    assert!(
        r.action_log.iter().all(|a| a.starts_with("clinic.")),
        "{:?}",
        r.action_log
    );
    assert!(
        r.screens.iter().any(|s| s == "home"),
        "screens {:?}",
        r.screens
    );
    assert!(!r.series.is_empty());
    assert!(r.series.windows(2).all(|w| w[0].step <= w[1].step));
    assert!(r.series.windows(2).all(|w| w[0].failures <= w[1].failures));
    assert!(r.elapsed < opts.duration, "{:?}", r.elapsed);
}

/// gremlins in a logged-in page: the bench's browser runs the expense app's login first,
/// and the app's deny rule keeps the horde off "Log out", so it works behind the login.
#[test]
fn gremlins_work_behind_the_login_and_leave_denied_controls_alone() {
    let mut g = Gremlins::new(cache());
    g.ensure_installed().expect("gremlins.js installs from npm");
    let server = Server::start(App::Expense, ServeOptions::default()).unwrap();
    let step = |goto: Option<&str>, fill: Option<(&str, &str)>, click: Option<&str>| {
        wayfarer_core::config::LoginStep {
            goto: goto.map(String::from),
            fill: fill.map(|f| f.0.to_string()),
            value: fill.map(|f| f.1.to_string()),
            click: click.map(String::from),
        }
    };
    let opts = PeerOptions {
        max_steps: Some(300),
        login: vec![
            step(Some("/login"), None, None),
            step(None, Some(("#email", "demo@example.com")), None),
            step(None, Some(("#password", "demo1234")), None),
            step(None, None, Some("button[type=submit]")),
        ],
        deny: vec![wayfarer_core::config::DenyRule {
            selector: None,
            text: Some("log out".into()),
        }],
        ..peer_options(&server.url(), Duration::from_secs(30))
    };
    let r = run_peer(&g, &opts).expect("the peer runs");
    eprintln!(
        "steps {} urls {} behind the login {:?} logouts {} log {:?}",
        r.steps, r.urls, r.behind_login, r.logouts, r.action_log
    );
    assert!(
        r.behind_login.is_some_and(|n| n >= 1),
        "{:?}",
        r.behind_login
    );
    assert!(
        !r.action_log.iter().any(|a| a.contains("logout")),
        "the horde logged out: {:?}",
        r.action_log
    );
}

/// A stand-in for a peer whose every action leaves a mark in the page (gremlins draws a
/// circle where it clicks), from the moment the page loads: the DOM never stops changing
/// while it acts. Every 2 ms (4 ms as Chrome clamps it), shorter than the 10 ms of quiet the
/// stability wait asks for, as gremlins' horde and its fading marks are.
struct Marker;

impl Peer for Marker {
    fn name(&self) -> &'static str {
        "marker"
    }
    fn ensure_installed(&mut self) -> Result<String, PeerError> {
        Ok("marker: built in".into())
    }
    fn run(&self, opts: &PeerOptions) -> Result<PeerResult, PeerError> {
        run_script(self, opts)
    }
}

impl ScriptPeer for Marker {
    fn init_script(
        &self,
        _seed: u64,
        _max_steps: Option<u64>,
        _deny: &[wayfarer_core::config::DenyRule],
    ) -> Result<String, PeerError> {
        Ok(r#"window.__wfPeerSteps = window.__wfPeerSteps || 0;
addEventListener("DOMContentLoaded", () => setInterval(() => {
  window.__wfPeerSteps++;
  const mark = document.createElement("i");
  document.body.append(mark);
  setTimeout(() => mark.remove(), 100);
}, 2));"#
            .into())
    }
}

/// Roundup, gremlins, seed 1 of the real-apps bench: "hang: page not stable: DOM still
/// changing after 5004 ms" on the start page, caused by the horde's own marks during the
/// load that unleashes it.
#[test]
fn what_a_peer_changes_in_the_page_is_not_a_hang_of_the_app() {
    let server = Server::start(App::Clinic, ServeOptions::default()).unwrap();
    let opts = peer_options(&server.url(), Duration::from_secs(3));
    let r = run_peer(&Marker, &opts).expect("the peer runs");
    let hangs: Vec<_> = r
        .failures
        .iter()
        .filter(|f| f.kind.as_str() == "hang")
        .map(|f| &f.message)
        .collect();
    assert!(hangs.is_empty(), "{hangs:?}");
    assert!(r.steps > 0, "the marker acted");
}
