//! The Chromium that `BrowserEnv` launches runs with the switches wayfarer asks for,
//! spelled right (chromiumoxide adds the leading dashes itself), and the default host
//! resolver rule keeps third-party hosts from resolving.

mod common;

use std::time::{Duration, Instant};

use common::server::{html, js, TestServer};
use common::*;
use wayfarer_browser::launch_flags;
use wayfarer_core::Environment;

/// The browser process's argv, read from /proc.
fn cmdline(pid: u32) -> Vec<String> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).expect("the browser's cmdline");
    raw.split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect()
}

#[test]
fn every_configured_flag_reaches_chromium_once_and_spelled_right() {
    let server = TestServer::start(vec![("/", html("<p>hi</p>"))]);
    let opts = options(&server.url("/"));
    let flags = launch_flags(&opts.config);
    assert!(
        flags.iter().any(|f| f.name == "host-resolver-rules"),
        "the default config has a resolver rule"
    );
    let mut env = launch(opts);
    let argv = cmdline(env.browser_pid().expect("a launched browser has a pid"));
    for a in &argv {
        assert!(!a.starts_with("---"), "mangled switch {a:?} in {argv:?}");
    }
    for f in &flags {
        let want = f.spelled();
        let n = argv.iter().filter(|a| **a == want).count();
        assert_eq!(n, 1, "{want:?} should appear once in {argv:?}");
        // Not also present with another value (a merged or duplicated switch).
        let prefix = format!("--{}=", f.name);
        let others = argv
            .iter()
            .filter(|a| a.starts_with(&prefix) && **a != want)
            .count();
        assert_eq!(others, 0, "{} given twice in {argv:?}", f.name);
    }
    env.close();
}

/// A page on the test server that loads a script from a second local server by a name
/// Chromium resolves to the loopback on its own (`*.localhost`), unless a rule maps it.
fn page_with_foreign_script(second_port: u16) -> String {
    format!(
        r#"<!doctype html><title>t</title><p id="p">page</p>
<script src="http://wf-second.localhost:{second_port}/probe.js"></script>
<script>document.getElementById('p').textContent = window.second ? 'second loaded' : 'second missing';</script>"#
    )
}

fn load_with_rules(rules: Option<&str>) -> (Vec<String>, Duration, String, usize) {
    let second = TestServer::start(vec![("/probe.js", js("window.second = true;"))]);
    let first = TestServer::start(vec![("/", html(page_with_foreign_script(second.port)))]);
    let mut opts = options(&first.url("/"));
    if let Some(r) = rules {
        opts.config.host_resolver_rules = Some(r.to_string());
    }
    let mut env = launch(opts);
    let t = Instant::now();
    let out = env.reset().expect("the page loads");
    let took = t.elapsed();
    let text = find(&out.observation, "#p").text.clone();
    let hangs = events_of(&out.events, wayfarer_core::EventKind::Hang).len();
    env.close();
    (second.hits(), took, text, hangs)
}

#[test]
fn default_resolver_rule_keeps_third_party_hosts_away_and_an_empty_rule_lets_them_in() {
    // Default rules: the name does not resolve; the second server sees nothing and the
    // load does not wait for it.
    let (hits, took, text, hangs) = load_with_rules(None);
    assert!(hits.is_empty(), "the second server was reached: {hits:?}");
    assert_eq!(text, "second missing");
    assert_eq!(hangs, 0, "the blocked script held the stability wait");
    assert!(
        took < Duration::from_secs(4),
        "the reset stalled on the blocked host ({took:?})"
    );
    // No rule: Chromium resolves *.localhost to the loopback and fetches the script.
    let (hits, _, text, _) = load_with_rules(Some(""));
    assert_eq!(hits, vec!["/probe.js".to_string()]);
    assert_eq!(text, "second loaded");
}
