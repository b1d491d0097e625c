//! No orphan browser: a `wayfarer` killed with SIGKILL at any moment of a run (launching
//! Chromium, mid-step, resetting) leaves no Chromium of its own behind after 2 seconds.
//! The processes of one run are told apart by an environment variable they all inherit.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use wayfarer_testapps::{App, ServeOptions, Server};

const MARK: &str = "WAYFARER_ORPHAN_TEST";

/// Live Chromium processes (the browser, its helpers, its crash handler) of the run whose
/// environment holds `MARK=value`.
fn chromium_of(value: &str) -> Vec<(u32, String)> {
    common::procs::marked(MARK, value)
        .into_iter()
        .filter(|(_, cmd)| cmd.split(' ').next().unwrap_or("").contains("chrom"))
        .collect()
}

/// Pseudo-random delays (ms) seeded by the clock, printed so a failure can be retried.
fn delays(n: usize, lo: u64, hi: u64) -> Vec<u64> {
    let mut x = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    (0..n)
        .map(|_| {
            // xorshift64
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            lo + x % (hi - lo)
        })
        .collect()
}

#[test]
fn sigkill_at_ten_random_moments_leaves_no_chromium() {
    let server = Server::start(App::Clinic, ServeOptions::default()).unwrap();
    let moments = delays(10, 200, 6000);
    eprintln!("killing wayfarer after (ms): {moments:?}");
    let mut with_browser = 0;
    for (i, after) in moments.iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        let value = format!("{}-{i}", std::process::id());
        let mut child = Command::new(env!("CARGO_BIN_EXE_wayfarer"))
            .args(["explore", &server.url(), "--budget", "5000", "-q", "--out"])
            .arg(dir.path())
            .env(MARK, &value)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(*after));
        let before = chromium_of(&value).len();
        child.kill().unwrap();
        child.wait().unwrap();
        if before > 0 {
            with_browser += 1;
        }
        let killed = Instant::now();
        let mut left = chromium_of(&value);
        while !left.is_empty() && killed.elapsed() < Duration::from_secs(2) {
            std::thread::sleep(Duration::from_millis(100));
            left = chromium_of(&value);
        }
        assert!(
            left.is_empty(),
            "kill {i} after {after} ms ({before} Chromium processes then): still alive 2 s later: {left:?}"
        );
    }
    // The kills must have hit running browsers, or the test proves nothing.
    assert!(
        with_browser >= 5,
        "only {with_browser} of 10 kills found a Chromium running"
    );
}
