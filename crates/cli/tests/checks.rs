//! The built-in page checks (`[oracles]` placeholder_text, broken_resources,
//! duplicate_ids, unnamed_controls): each found on the hazards page that trips it, silent
//! on the page beside it that a careless check would trip; the last two are warnings
//! (listed, the run passes) unless the configuration makes them failures, and each can
//! be switched off.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::cmd::text;
use serde_json::Value;
use wayfarer_testapps::{App, ServeOptions, Server};

/// Explore `page` of a fresh hazards server for a few random steps (with `config`, a
/// TOML text, when given): the report, and the command's output.
fn explore(page: &str, config: Option<&str>, dir: &Path) -> (Value, Output) {
    let server = Server::start(App::Hazards, ServeOptions::default()).unwrap();
    let out = dir.join(page.replace('/', "-"));
    let mut c = Command::new(env!("CARGO_BIN_EXE_wayfarer"));
    c.env_remove("RUST_LOG")
        .args(["explore", &format!("{}checks/{page}", server.url())])
        .args(["--strategy", "random", "--seed", "2", "--budget", "12"])
        .args(["--shrink", "off", "-o"])
        .arg(&out);
    if let Some(toml) = config {
        let file = dir.join(format!("{}.toml", page.replace('/', "-")));
        std::fs::write(&file, toml).unwrap();
        c.arg("--config").arg(file);
    }
    let o = c.output().unwrap();
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", text(&o));
    let report = serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap())
        .unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    (report, o)
}

/// The kind and message of each failure (`list` = "failures") or warning ("warnings").
fn listed(r: &Value, list: &str) -> Vec<(String, String)> {
    r[list]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|f| {
                    (
                        f["kind"].as_str().unwrap().to_string(),
                        f["message"].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

const BUILT_IN: [&str; 4] = [
    "placeholder_text",
    "broken_resource",
    "duplicate_id",
    "unnamed_control",
];

/// The good build: no built-in check says anything.
fn silent_on_good(check: &str, dir: &Path) {
    let (r, o) = explore(&format!("{check}/good"), None, dir);
    for list in ["failures", "warnings"] {
        let found: Vec<_> = listed(&r, list)
            .into_iter()
            .filter(|(k, _)| BUILT_IN.contains(&k.as_str()))
            .collect();
        assert_eq!(found, vec![], "{check}/good {list}\n{}", text(&o));
    }
}

#[test]
fn placeholder_text_is_a_failure_and_prose_and_code_are_not() {
    let dir = tempfile::tempdir().unwrap();
    let (r, o) = explore("placeholder/bad", None, dir.path());
    let f = listed(&r, "failures");
    let has = |needle: &str| {
        f.iter()
            .any(|(k, m)| k == "placeholder_text" && m.contains(needle))
    };
    // The text shown is the enclosing block's, as a reader sees it.
    assert!(
        has("\"NaN\" where a value should be: \"Total: NaN\""),
        "{f:#?}\n{}",
        text(&o)
    );
    assert!(has("\"Hello, undefined!\""), "{f:#?}");
    assert_eq!(o.status.code(), Some(1), "failures fail the run");
    silent_on_good("placeholder", dir.path());
    // Switched off, the bad page passes.
    let (r, o) = explore(
        "placeholder/bad",
        Some("[oracles]\nplaceholder_text = false\n"),
        dir.path(),
    );
    assert!(
        listed(&r, "failures")
            .iter()
            .all(|(k, _)| k != "placeholder_text"),
        "{}",
        text(&o)
    );
}

#[test]
fn a_broken_image_and_a_missing_one_are_failures_and_a_404_fetch_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let (r, o) = explore("image/bad", None, dir.path());
    let f = listed(&r, "failures");
    let has = |needle: &str| {
        f.iter()
            .any(|(k, m)| k == "broken_resource" && m.contains(needle))
    };
    assert!(
        has("HTTP 404 from") && has("/checks/files/missing.png (image of the page)"),
        "{f:#?}\n{}",
        text(&o)
    );
    assert!(
        has("broken image") && has("/checks/files/not-an-image.png"),
        "{f:#?}"
    );
    silent_on_good("image", dir.path());
}

#[test]
fn duplicate_ids_and_unnamed_fields_are_warnings_unless_configured_as_failures() {
    let dir = tempfile::tempdir().unwrap();
    let (r, o) = explore("ids/bad", None, dir.path());
    let w = listed(&r, "warnings");
    assert!(
        w.iter().any(|(k, m)| k == "duplicate_id"
            && m.starts_with("id \"save\" is on 2 interactive elements")),
        "{w:#?}\n{}",
        text(&o)
    );
    assert_eq!(o.status.code(), Some(0), "warnings do not fail the run");
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("warnings: "),
        "{}",
        text(&o)
    );
    let (r, o) = explore("names/bad", None, dir.path());
    let w = listed(&r, "warnings");
    let unnamed: Vec<_> = w.iter().filter(|(k, _)| k == "unnamed_control").collect();
    assert!(
        unnamed.iter().any(|(_, m)| m.starts_with("input ("))
            && unnamed.iter().any(|(_, m)| m.starts_with("select (")),
        "{w:#?}\n{}",
        text(&o)
    );
    assert_eq!(o.status.code(), Some(0));
    silent_on_good("ids", dir.path());
    silent_on_good("names", dir.path());
    // As failures when the configuration says so; off when it says so.
    let (r, o) = explore(
        "ids/bad",
        Some("[oracles]\nduplicate_ids = \"fail\"\nunnamed_controls = \"off\"\n"),
        dir.path(),
    );
    assert!(
        listed(&r, "failures")
            .iter()
            .any(|(k, _)| k == "duplicate_id"),
        "{}",
        text(&o)
    );
    assert_eq!(o.status.code(), Some(1));
    let (r, o) = explore(
        "names/bad",
        Some("[oracles]\nunnamed_controls = \"off\"\n"),
        dir.path(),
    );
    assert!(
        listed(&r, "warnings")
            .iter()
            .all(|(k, _)| k != "unnamed_control"),
        "{}",
        text(&o)
    );
}
