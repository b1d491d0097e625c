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

/// The binary with these variables set, and no RUST_LOG of the caller.
fn with_env(vars: &[(&str, &str)]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_wayfarer"));
    c.envs(vars.iter().copied()).env_remove("RUST_LOG");
    c
}

fn wayfarer() -> Command {
    with_env(&[
        ("WF_SECRET_USER", USER),
        ("WF_SECRET_PASS", PASS),
        ("WF_SECRET_NOTE", NOTE),
    ])
}

/// Run a command that explores: it must finish (exit 0, or 1 for failures found).
fn finished(c: &mut Command) -> Output {
    let out = c.output().unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
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
    let explore = finished(
        wayfarer()
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
            .arg(&run),
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

/// A value whose URL-encoded, HTML-escaped and JSON-escaped forms all differ from it.
const ECHOED: &str = "Ec ho&9<s3>\"q'";

/// The forms an application echoes `s` in, written here independently of the mask: as
/// typed, URL-encoded (a form's `+`, `%20`, a query that keeps `&` and `'`), escaped in
/// HTML (quotes as `&quot;`/`&#39;`, or left alone in text), and the first 5 characters
/// (a value cut short in a line escapes a mask that only knows the whole value).
fn encodings(s: &str) -> Vec<String> {
    let pct = |keep: &dyn Fn(u8) -> bool, space: &str| -> String {
        s.bytes()
            .map(|b| match b {
                b' ' => space.to_string(),
                b if keep(b) => (b as char).to_string(),
                b => format!("%{b:02X}"),
            })
            .collect()
    };
    let alnum = |b: u8| b.is_ascii_alphanumeric() || b"-_.*".contains(&b);
    let query = |b: u8| b.is_ascii_graphic() && !b"\"#<>'".contains(&b);
    let text = s
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    let mut all = vec![
        s.to_string(),
        pct(&alnum, "+"),
        pct(&alnum, "%20"),
        pct(&query, "%20"),
        text.replace('"', "&quot;").replace('\'', "&#39;"),
        text,
        serde_json::to_string(s)
            .unwrap()
            .trim_matches('"')
            .to_string(),
        s.chars().take(5).collect(),
    ];
    all.sort();
    all.dedup();
    all
}

/// Where any form of `secret` occurs in `bytes`.
fn echo_leaks(what: &str, bytes: &[u8], secret: &str) -> Vec<String> {
    encodings(secret)
        .into_iter()
        .filter(|f| holds(bytes, f))
        .map(|f| format!("{f:?} in {what}"))
        .collect()
}

/// Every output of a run directory and of the commands that produced it, searched for
/// every form of `secret`.
fn every_leak(run: &Path, outputs: &[(&str, &Output)], secret: &str) -> Vec<String> {
    let mut found = vec![];
    for (name, out) in outputs {
        found.extend(echo_leaks(&format!("{name} stdout"), &out.stdout, secret));
        found.extend(echo_leaks(&format!("{name} stderr"), &out.stderr, secret));
    }
    for (path, bytes) in files(run) {
        found.extend(echo_leaks(&path, &bytes, secret));
    }
    found
}

/// What the application says back holds the secret: the URL of a GET form, the title,
/// the page text (HTML-escaped), a console error and an exception quoting it (failures,
/// with screenshots). None of it reaches a file, a report, an export or the terminal, in
/// any form; the store says where it was, as `${WF_ECHO_SECRET}`.
#[test]
fn a_secret_the_application_echoes_is_masked_in_every_form() {
    let server = Server::start(App::Hazards, ServeOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("wayfarer.toml");
    std::fs::write(
        &config,
        // The other hazards are not this test's: the index link is denied.
        "[inputs]\n\"(?i)description\" = \"${WF_ECHO_SECRET}\"\n\
         [[deny]]\nselector = \"a[href='/']\"\n",
    )
    .unwrap();
    let run = dir.path().join("run");
    let cmd = || with_env(&[("WF_ECHO_SECRET", ECHOED)]);
    let explore = finished(
        cmd()
            .args([
                "explore",
                &format!("{}/echo", server.url().trim_end_matches('/')),
                "-vv",
            ])
            .args(["--budget", "30", "--seed", "1", "--shrink", "off"])
            .arg("--config")
            .arg(&config)
            .arg("--out")
            .arg(&run),
    );
    let export = cmd().args(["export", "-vv"]).arg(&run).output().unwrap();
    let report = cmd().args(["report", "-vv"]).arg(&run).output().unwrap();
    let found = every_leak(
        &run,
        &[
            ("explore", &explore),
            ("export", &export),
            ("report", &report),
        ],
        ECHOED,
    );
    assert!(found.is_empty(), "the secret was written: {found:#?}");

    // It was echoed, or this proves nothing: a URL, a title and failures held it.
    let data = wayfarer_store::load(&run).unwrap();
    let named = "${WF_ECHO_SECRET}";
    assert!(
        data.steps
            .iter()
            .any(|s| s.record.url_after.contains(&format!("q={named}"))),
        "no step sent the form with the secret"
    );
    assert!(
        data.steps
            .iter()
            .any(|s| s.record.title_after.contains(named)),
        "no title quoted the secret"
    );
    let quoting: Vec<&str> = data
        .failures
        .iter()
        .filter(|f| f.failure.message.contains(named))
        .map(|f| f.failure.kind.as_str())
        .collect();
    assert!(
        quoting.contains(&"console_error") && quoting.contains(&"exception"),
        "the failures quoting the secret: {quoting:?}"
    );
    server.shutdown();
}

/// The issue's own command: a GET search form on the demo clinic, the secret typed (and
/// mutated) into it for 150 steps; no file and no line of output holds it.
#[test]
fn the_demo_with_a_secret_in_a_search_form_writes_it_nowhere() {
    const SECRET: &str = "s3cr3t-Zq9-bar";
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("c.toml"),
        "[inputs]\n\"(?i)description|name|city|address\" = \"${WF_BAR_SECRET}\"\n",
    )
    .unwrap();
    let demo = finished(
        with_env(&[("WF_BAR_SECRET", SECRET)])
            .current_dir(dir.path())
            .args(["demo", "--app", "clinic", "--budget", "150", "--seed", "2"])
            .args(["--config", "c.toml", "-vv"]),
    );
    let found = every_leak(dir.path(), &[("demo", &demo)], SECRET);
    assert!(found.is_empty(), "the secret was written: {found:#?}");
    let data = wayfarer_store::load(&dir.path().join("wayfarer-out")).unwrap();
    assert!(
        data.steps
            .iter()
            .any(|s| s.record.url_after.contains("lastName=${WF_BAR_SECRET}")),
        "the search form was never sent with the secret"
    );
}
