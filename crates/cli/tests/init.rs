//! `wayfarer init` on the bundled applications with a login: the configuration it writes
//! logs in, and a run with it explores behind the login; a file is never replaced without
//! --force, and an unreachable URL is exit 2 with a clear line.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::cmd::text;
use wayfarer_testapps::{App, ServeOptions, Server};

fn init(url: &str, out: &Path, creds: Option<(&str, &str)>, extra: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_wayfarer"));
    c.args(["init", url, "-o"]).arg(out).args(extra);
    c.env_remove("WAYFARER_USER")
        .env_remove("WAYFARER_PASSWORD");
    if let Some((u, p)) = creds {
        c.env("WAYFARER_USER", u).env("WAYFARER_PASSWORD", p);
    }
    c.output().unwrap()
}

#[test]
fn the_expense_config_logs_in_denies_log_out_and_explores_behind_the_login() {
    let server = Server::start(App::Expense, ServeOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("wayfarer.toml");
    let out = init(
        &server.url(),
        &config,
        Some(("demo@example.com", "demo1234")),
        &[],
    );
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("it logs in"), "{said}");
    let written = std::fs::read_to_string(&config).unwrap();
    for line in [
        "fill = \"#email\"",
        "value = \"${WAYFARER_USER}\"",
        "fill = \"#password\"",
        "value = \"${WAYFARER_PASSWORD}\"",
        "text = \"Log out\"",
    ] {
        assert!(written.contains(line), "{line} in:\n{written}");
    }
    assert!(
        !written.contains("demo1234") && !said.contains("demo1234"),
        "the password stays out of the file and the output:\n{written}\n{said}"
    );

    // A run with it: behind the login from the first step, and never logged out.
    let run = dir.path().join("run");
    let explored = Command::new(env!("CARGO_BIN_EXE_wayfarer"))
        .args([
            "explore",
            &server.url(),
            "--budget",
            "25",
            "--seed",
            "3",
            "--shrink",
            "off",
        ])
        .arg("--config")
        .arg(&config)
        .arg("--out")
        .arg(&run)
        .env("WAYFARER_USER", "demo@example.com")
        .env("WAYFARER_PASSWORD", "demo1234")
        .output()
        .unwrap();
    assert!(
        matches!(explored.status.code(), Some(0 | 1)),
        "{}",
        text(&explored)
    );
    let data = wayfarer_store::load(&run).unwrap();
    let paths: Vec<String> = data
        .steps
        .iter()
        .map(|s| {
            url::Url::parse(&s.record.url_after)
                .unwrap()
                .path()
                .to_string()
        })
        .collect();
    let behind = paths
        .iter()
        .filter(|p| !["/", "/login", "/register"].contains(&p.as_str()))
        .count();
    // Logged in, a reset lands on /dashboard; only a step that comes back to the login
    // (none: "Log out" is denied) or registers would leave.
    assert!(
        behind * 2 > paths.len(),
        "behind the login: {behind} of {paths:?}"
    );
    assert!(
        data.steps
            .iter()
            .all(|s| s.record.action.value.as_deref() != Some("demo1234")),
        "exploration does not type the login"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("report.json")).unwrap()).unwrap();
    assert_eq!(json["logged_out"].as_u64().unwrap_or(0), 0, "{json}");
    server.shutdown();
}

#[test]
fn the_throttled_login_is_written_tried_and_its_welcome_masked() {
    let server = Server::start(App::Hazards, ServeOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("wayfarer.toml");
    let url = format!("{}throttle", server.url());
    let out = init(&url, &config, Some(("ada", "letmein")), &[]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    let written = std::fs::read_to_string(&config).unwrap();
    for line in [
        "goto = \"/throttle\"",
        "fill = \"#throttle-user\"",
        "fill = \"#throttle-password\"",
        "click = \"#throttle-login\"",
    ] {
        assert!(written.contains(line), "{line} in:\n{written}");
    }
    // The page keeps its form once logged in and greets the user by name: that is told,
    // with the name masked.
    assert!(
        said.contains("Welcome, ${WAYFARER_USER}!"),
        "what the page said after the login, masked:\n{said}"
    );
    assert!(
        !written.contains("letmein") && !said.contains("letmein"),
        "{said}"
    );

    // The written steps replay as a run's reset (a wrong password is a different story:
    // without credentials the steps are written and not tried).
    let replay = Command::new(env!("CARGO_BIN_EXE_wayfarer"))
        .args(["explore", &url, "--budget", "5", "--shrink", "off"])
        .arg("--config")
        .arg(&config)
        .arg("--out")
        .arg(dir.path().join("run"))
        .env("WAYFARER_USER", "ada")
        .env("WAYFARER_PASSWORD", "letmein")
        .output()
        .unwrap();
    assert!(
        matches!(replay.status.code(), Some(0 | 1)),
        "{}",
        text(&replay)
    );

    let untried = dir.path().join("untried.toml");
    let out = init(&url, &untried, None, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("login not tried"), "{}", text(&out));
    server.shutdown();
}

#[test]
fn an_existing_file_needs_force_and_an_unreachable_url_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("wayfarer.toml");
    std::fs::write(&config, "# mine\n").unwrap();
    let out = init("http://127.0.0.1:9/", &config, None, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--force"), "{}", text(&out));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), "# mine\n");

    let out = init("http://127.0.0.1:9/", &config, None, &["--force"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("cannot reach"), "{}", text(&out));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), "# mine\n");
}
