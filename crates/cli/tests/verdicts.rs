//! What a run says of each failure after exploring, through the `wayfarer` binary on the
//! hazards pages made for it: shrunk and confirmed by replays, flaky when the replays
//! disagree, and new, known or gone against a baseline run.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::cmd::text;
use serde_json::Value;
use wayfarer_testapps::{App, ServeOptions, Server};

fn wayfarer() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wayfarer"))
}

fn explore(url: &str, out: &Path, extra: &[&str]) -> Output {
    wayfarer()
        .args(["explore", url, "--strategy", "random", "--seed", "3"])
        .args(["--budget", "16", "--episode-steps", "4", "-q", "--out"])
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

fn report(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("report.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The failure lines whose message holds `needle`.
fn lines<'a>(r: &'a Value, needle: &str) -> Vec<&'a Value> {
    r["failures"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["message"].as_str().unwrap_or("").contains(needle))
        .collect()
}

#[test]
fn a_failure_raised_on_every_other_load_is_flaky_never_confirmed() {
    let server = Server::start(App::Hazards, ServeOptions::default()).unwrap();
    let url = format!("{}flaky", server.url());
    let dir = tempfile::tempdir().unwrap();
    let o = explore(
        &url,
        dir.path(),
        &["--shrink", "60s", "--fail-on", "confirmed"],
    );
    // Flaky only: `--fail-on confirmed` does not fail the run.
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let r = report(dir.path());
    let found = lines(&r, "flaky save");
    assert_eq!(found.len(), 1, "{r:#}");
    let sh = &found[0]["shrunk"];
    assert_eq!(sh["runs"], 3, "{sh:#}");
    let hits = sh["hits"].as_u64().unwrap();
    assert!((1..3).contains(&hits), "one load in two fails: {sh:#}");
    let again = wayfarer()
        .args(["report"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(again.status.success(), "{}", text(&again));
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    // The template escapes the slash.
    assert!(
        html.contains(&format!("flaky {hits}&#x2f;3")),
        "the card says flaky"
    );
    assert!(!html.contains("reproduced 3"));
}

#[test]
fn a_baseline_tells_new_known_and_gone_failures_and_fail_on_new_counts_the_new() {
    let server = Server::start(App::Hazards, ServeOptions::default()).unwrap();
    let page = |v: &str| format!("{}bugs/{v}", server.url());
    let (a, b, c) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );

    // Both bugs on: two failures, each shrunk to its one click and confirmed.
    let o = explore(&page("ab"), a.path(), &["--shrink", "60s"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let ra = report(a.path());
    for needle in ["archive: no folder", "export: the format"] {
        let f = lines(&ra, needle);
        assert_eq!(f.len(), 1, "{needle}: {ra:#}");
        let sh = &f[0]["shrunk"];
        assert_eq!(sh["kept"].as_array().map(Vec::len), Some(1), "{sh:#}");
        assert_eq!(
            (sh["hits"].as_u64(), sh["runs"].as_u64()),
            (Some(3), Some(3))
        );
    }

    // Both fixed: both gone, nothing new, and `--fail-on new` passes.
    let o = explore(
        &page("none"),
        b.path(),
        &["--baseline", a.path().to_str().unwrap(), "--fail-on", "new"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let base = &report(b.path())["baseline"];
    assert_eq!(
        (base["new"].as_u64(), base["known"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(base["gone"].as_array().map(Vec::len), Some(2), "{base:#}");

    // One bug back, against the fixed run: exactly one new failure, and exit 1.
    let summary = c.path().join("summary.md");
    let baseline = b.path().join("report.json");
    let o = explore(
        &page("b"),
        c.path(),
        &[
            "--baseline",
            baseline.to_str().unwrap(),
            "--fail-on",
            "new",
            "--annotations",
            "github",
            "--summary-md",
            summary.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let rc = report(c.path());
    assert_eq!(rc["baseline"]["new"], 1, "{rc:#}");
    let back = lines(&rc, "export: the format");
    assert_eq!(back.len(), 1);
    assert_eq!(back[0]["baseline"], "new");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(stdout.matches("::error ").count(), 1, "{stdout}");
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(md.contains("export: the format"), "{md}");

    // The same comparison between two finished runs: A then C, one known and one gone.
    let d = wayfarer()
        .arg("diff")
        .args([a.path(), c.path()])
        .output()
        .unwrap();
    assert_eq!(d.status.code(), Some(0), "{}", text(&d));
    let out = String::from_utf8_lossy(&d.stdout);
    assert!(out.contains("0 new, 1 known, 1 gone"), "{out}");
}
