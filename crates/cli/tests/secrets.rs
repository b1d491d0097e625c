//! Secrets never land anywhere a run writes: with `${NAME}` values in the login steps and
//! the input dictionary, no byte of any file of the run directory (the SQLite store and
//! its journal included), of the exported Playwright project, of the feature tests, of the
//! reports, nor of stdout/stderr at `-vv` holds a secret value, even where the application
//! shows it back on its pages.

use std::path::Path;
use std::process::{Command, Output};

use wayfarer_testapps::{App, ServeOptions, Server};

const USER: &str = "sam.q7vk2@example.test";
const PASS: &str = "Pw-zr83ms1x";
const NOTE: &str = "Note-hk29vw";

fn wayfarer() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_wayfarer"));
    c.env("WF_SECRET_USER", USER)
        .env("WF_SECRET_PASS", PASS)
        .env("WF_SECRET_NOTE", NOTE)
        .env_remove("RUST_LOG");
    c
}

const CONFIG: &str = r##"
[[login]]
goto = "/register"
[[login]]
fill = "#name"
value = "Sam"
[[login]]
fill = "#email"
value = "${WF_SECRET_USER}"
[[login]]
fill = "#password"
value = "${WF_SECRET_PASS}"
[[login]]
fill = "#confirm"
value = "${WF_SECRET_PASS}"
[[login]]
click = "button[type=submit]"

[inputs]
"(?i)description" = "${WF_SECRET_NOTE}"
"##;

/// Every file under `dir`, as (path, bytes).
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = vec![];
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                // The exported project's installed packages are not ours.
                if p.file_name().is_some_and(|n| n != "node_modules") {
                    todo.push(p);
                }
            } else {
                out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out
}

fn holds(bytes: &[u8], secret: &str) -> bool {
    bytes.windows(secret.len()).any(|w| w == secret.as_bytes())
}

/// The places a secret was found, by name.
fn leaks(what: &str, bytes: &[u8]) -> Vec<String> {
    [USER, PASS, NOTE]
        .iter()
        .filter(|s| holds(bytes, s))
        .map(|s| format!("{s} in {what}"))
        .collect()
}

fn output_leaks(name: &str, out: &Output) -> Vec<String> {
    let mut l = leaks(&format!("{name} stdout"), &out.stdout);
    l.extend(leaks(&format!("{name} stderr"), &out.stderr));
    l
}

#[test]
fn no_secret_value_in_any_file_log_report_or_export_of_a_run() {
    let server = Server::start(App::Expense, ServeOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("wayfarer.toml");
    std::fs::write(&config, CONFIG).unwrap();
    let run = dir.path().join("run");
    let explore = wayfarer()
        .args([
            "explore",
            &server.url(),
            "-vv",
            "--budget",
            "40",
            "--seed",
            "3",
        ])
        .arg("--config")
        .arg(&config)
        .arg("--out")
        .arg(&run)
        .output()
        .unwrap();
    assert!(
        matches!(explore.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&explore.stderr)
    );
    let export = wayfarer()
        .args(["export", "-vv"])
        .arg(&run)
        .output()
        .unwrap();
    let features = wayfarer()
        .args(["features", "--no-check", "-vv"])
        .arg(&run)
        .output()
        .unwrap();
    let report = wayfarer()
        .args(["report", "-vv"])
        .arg(&run)
        .output()
        .unwrap();
    // A failure trace replayed: its references are filled from the environment again.
    let trace = std::fs::read_dir(run.join("traces")).ok().and_then(|d| {
        d.flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == "json"))
    });
    let replay = trace.as_ref().map(|t| {
        wayfarer()
            .args(["replay", "-vv", "--url", &server.url()])
            .arg(t)
            .output()
            .unwrap()
    });
    let mut found = output_leaks("explore", &explore);
    found.extend(output_leaks("export", &export));
    found.extend(output_leaks("features", &features));
    found.extend(output_leaks("report", &report));
    if let Some(r) = &replay {
        found.extend(output_leaks("replay", r));
    }
    let all = files(&run);
    for (path, bytes) in &all {
        found.extend(leaks(path, bytes));
    }
    assert!(found.is_empty(), "secret values written: {found:#?}");

    // The secrets were used, or this proves nothing: the store holds their references,
    // the login went through, and the exported tests read them from the environment.
    let store: Vec<u8> = all
        .iter()
        .filter(|(p, _)| p.contains("run.sqlite"))
        .flat_map(|(_, b)| b.clone())
        .collect();
    for name in ["${WF_SECRET_PASS}", "${WF_SECRET_NOTE}"] {
        assert!(holds(&store, name), "{name} is not in the store");
    }
    let data = wayfarer_store::load(&run).unwrap();
    assert!(
        data.steps
            .iter()
            .any(|s| s.record.url_after.contains("/dashboard")),
        "the login did not go through"
    );
    let exported: Vec<u8> = all
        .iter()
        .filter(|(p, _)| p.ends_with(".spec.ts"))
        .flat_map(|(_, b)| b.clone())
        .collect();
    assert!(
        holds(&exported, "process.env.WF_SECRET_PASS"),
        "no exported test logs in with the secret"
    );
    server.shutdown();
}
