//! `wayfarer features URL`: a breadth-first crawl of an application becomes one
//! Playwright test per inferred feature. Each test was replayed by wayfarer before it was
//! written; here Playwright itself runs them: all pass on the application without its
//! seeded bugs, and a test whose feature meets a seeded bug fails with it.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::cmd::node_modules;
use wayfarer_testapps::{App, ServeOptions, Server};

fn wayfarer() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wayfarer"))
}

/// `wayfarer features URL` on `app` served without its bugs: the crawl's directory, the
/// Playwright project in it and what `features` printed.
fn feature_tests(app: App, budget: &str, dir: &Path) -> (PathBuf, String) {
    let server = Server::start(
        app,
        ServeOptions {
            bugs: false,
            ..Default::default()
        },
    )
    .unwrap();
    let run = dir.join("run");
    let out = wayfarer()
        .args([
            "features",
            &server.url(),
            "--seed",
            "1",
            "-q",
            "--budget",
            budget,
        ])
        .arg("--out")
        .arg(&run)
        .output()
        .unwrap();
    server.shutdown();
    project_of(&out, &run)
}

/// The Playwright project a successful `wayfarer features` (`out`) wrote into `run`,
/// ready to run, and what it printed.
fn project_of(out: &std::process::Output, run: &Path) -> (PathBuf, String) {
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let project = run.join("features");
    std::os::unix::fs::symlink(node_modules(), project.join("node_modules")).unwrap();
    (project, stdout)
}

/// Run the project's tests against `base`; (passed, failed test titles, output).
fn playwright(project: &Path, base: &str) -> (usize, Vec<String>, String) {
    let out = Command::new("node")
        .arg("node_modules/@playwright/test/cli.js")
        .args(["test", "--reporter=list"])
        .current_dir(project)
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
        .env("CI", "1")
        .env("BASE_URL", base)
        .output()
        .expect("node runs (scripts/ensure-playwright.sh installs it)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let passed = text
        .lines()
        .filter(|l| l.trim_start().starts_with('✓') || l.trim_start().starts_with("ok "))
        .count();
    let failed = text
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with('✘') || l.starts_with("x "))
        .filter_map(|l| l.split("feature: ").nth(1))
        // The title, without the list reporter's " (2.3s)".
        .map(|t| match t.rsplit_once(" (") {
            Some((title, took)) if took.ends_with("s)") => title.to_string(),
            _ => t.to_string(),
        })
        .collect();
    (passed, failed, text)
}

/// Crawl `app`, write its feature tests, run them with and without the seeded bugs:
/// (tests, failed on the buggy application).
fn with_and_without_bugs(app: App, budget: &str) -> (usize, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let (project, printed) = feature_tests(app, budget, dir.path());
    run_with_and_without_bugs(app, &project, &printed)
}

/// Run `project`'s feature tests (all must pass) without the seeded bugs, then with them:
/// (tests, failed on the buggy application).
fn run_with_and_without_bugs(app: App, project: &Path, printed: &str) -> (usize, Vec<String>) {
    assert!(printed.contains("tests in"), "{printed}");
    let specs = std::fs::read_dir(project.join("tests"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .to_string_lossy()
                .ends_with(".spec.ts")
        })
        .count();
    assert!(specs >= 5, "{specs} specs: {printed}");
    let serve = |bugs| {
        Server::start(
            app,
            ServeOptions {
                bugs,
                ..Default::default()
            },
        )
        .unwrap()
    };
    let fixed = serve(false);
    let (passed, failed, text) = playwright(project, &fixed.url());
    fixed.shutdown();
    assert!(
        failed.is_empty(),
        "failed without the bugs: {failed:?}\n{text}"
    );
    assert_eq!(passed, specs, "{text}");
    let buggy = serve(true);
    let (_, failed, _) = playwright(project, &buggy.url());
    buggy.shutdown();
    (specs, failed)
}

#[test]
fn clinic_feature_tests_pass_under_playwright_without_the_bugs() {
    let (specs, failed) = with_and_without_bugs(App::Clinic, "400");
    // Which tests the seeded bugs break is reported, not yet required: none of these
    // features' recorded values or paths reaches one.
    println!("{specs} tests; failed on the buggy clinic: {failed:?}");
}

/// `wayfarer demo` (the bundled application with its demo login, without its bugs)
/// crawled breadth-first with masked ids, then `wayfarer features` on the run.
fn demo_feature_tests(app: App, budget: &str, dir: &Path) -> (PathBuf, String) {
    let config = dir.join("crawl.toml");
    std::fs::write(&config, "[abstraction]\nmask_ids = true\n").unwrap();
    let run = dir.join("run");
    let crawl = wayfarer()
        .args(["demo", "--app", app.name(), "--fixed", "--strategy", "bfs"])
        .args(["--seed", "1", "-q", "--budget", budget, "-c"])
        .arg(&config)
        .arg("-o")
        .arg(&run)
        .output()
        .unwrap();
    assert!(
        crawl.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&crawl.stderr)
    );
    let out = wayfarer().arg("features").arg(&run).output().unwrap();
    project_of(&out, &run)
}

#[test]
fn expense_export_test_passes_without_the_bugs_and_fails_on_the_seeded_one() {
    let dir = tempfile::tempdir().unwrap();
    let (project, printed) = demo_feature_tests(App::Expense, "500", dir.path());
    assert!(
        project.join("tests/feature-Export.spec.ts").is_file(),
        "no Export test: {printed}"
    );
    let (specs, failed) = run_with_and_without_bugs(App::Expense, &project, &printed);
    // The seeded report-export exception: the Export test, and nothing else, catches it.
    assert_eq!(failed, vec!["Export".to_string()], "{specs} tests");
}

#[test]
fn a_target_that_is_neither_a_url_nor_a_run_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = wayfarer().arg("features").arg(dir.path()).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("neither a URL nor a run directory"),
        "{stderr}"
    );
}
