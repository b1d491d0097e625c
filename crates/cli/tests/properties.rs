//! The user's own properties (`--spec`): every example of Bombadil's manual, unchanged
//! (`testapps/specs/`), run against a hazards page that violates it and one that
//! satisfies it. On the first the run reports a failure of kind `property` naming the
//! property and the values its cells had, shrinks and confirms it, and its exported
//! Playwright test fails with the same violation; on the second, 300 steps find none and the
//! property's verdict is not "violated". A broken specification stops the run before it
//! starts, naming the file and the line.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::cmd::{node_modules, text};
use serde_json::Value;
use wayfarer_testapps::{App, ServeOptions, Server};

fn spec(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../testapps/specs/{name}"))
}

fn wayfarer() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_wayfarer"));
    c.env_remove("RUST_LOG");
    c
}

/// Explore `page` of a fresh hazards server with the random strategy and `spec`: the
/// report, and what the command printed. The server stays up for `then` (an export run
/// against it).
fn explore_then(
    page: &str,
    spec: &Path,
    steps: u32,
    episode: u32,
    shrink: &str,
    out: &Path,
    then: impl FnOnce(),
) -> (Value, Output) {
    let server = Server::start(App::Hazards, ServeOptions::default()).unwrap();
    let o = wayfarer()
        .args(["explore", &format!("{}{page}", server.url())])
        .arg("--spec")
        .arg(spec)
        .args(["--strategy", "random", "--seed", "3", "--budget"])
        .arg(steps.to_string())
        // One browser: the timed examples need one episode as long as the budget, which
        // `--workers auto` (the default) would share between browsers.
        .args(["--workers", "1"])
        .arg("--episode-steps")
        .arg(episode.to_string())
        .args(["--shrink", shrink, "-o"])
        .arg(out)
        .output()
        .unwrap();
    // Exit 1: failures were found, and traces written.
    if o.status.code() == Some(1) {
        then();
    }
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", text(&o));
    let report = serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap())
        .unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    (report, o)
}

fn explore(page: &str, spec: &Path, steps: u32, out: &Path) -> (Value, Output) {
    explore_then(page, spec, steps, 40, "off", out, || {})
}

/// `wayfarer export` of the run in `out`, then Playwright on it: whether it passed, and
/// what it printed.
fn export_and_run(out: &Path) -> (bool, String) {
    let o = wayfarer().arg("export").arg(out).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let project = out.join("playwright");
    std::os::unix::fs::symlink(node_modules(), project.join("node_modules")).unwrap();
    let run = Command::new("node")
        .arg("node_modules/@playwright/test/cli.js")
        .args(["test", "--reporter=list"])
        .current_dir(&project)
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
        .env("CI", "1")
        .env_remove("BASE_URL")
        .output()
        .expect("node runs (scripts/ensure-playwright.sh installs it)");
    (run.status.success(), text(&run))
}

fn property_failures(r: &Value) -> Vec<&Value> {
    r["failures"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "property")
        .collect()
}

fn verdict<'a>(r: &'a Value, property: &str) -> &'a Value {
    r["properties"]
        .as_array()
        .unwrap_or_else(|| panic!("no properties in {r}"))
        .iter()
        .find(|p| p["name"] == property)
        .unwrap_or_else(|| panic!("no verdict for {property} in {}", r["properties"]))
}

/// The violating page: a `property` failure for `property` whose message shows one of
/// `shows` (a page may violate a property in more than one way, depending on timing).
/// The satisfying page: none in 300 steps. The run directories stay in the returned
/// directory (`bad`, with its `playwright` export, and `good`).
fn example(file: &str, page: &str, property: &str, shows: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bad");
    let mut playwright = None;
    let (bad, o) = explore_then(
        &format!("props/{page}/bad"),
        &spec(file),
        300,
        // One episode: a property over time (`within 5 seconds`) needs an episode that
        // lasts longer than that after the step that starts it (40 steps took 2 s, at
        // 19.5 steps/s alone, and found neither timed example).
        300,
        "90s",
        &out,
        // Against the same server: the exported test repeats the shrunk steps there.
        || playwright = Some(export_and_run(&out)),
    );
    let found = property_failures(&bad);
    assert_eq!(
        found.len(),
        1,
        "{file} on the bad page: {:#?}\n{}",
        bad["failures"],
        text(&o)
    );
    let message = found[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!("{property} violated"))
            && shows.iter().any(|s| message.contains(s)),
        "{message}"
    );
    assert!(verdict(&bad, property)["violated"].as_u64().unwrap() >= 1);
    // Shrunk and confirmed: every confirming replay found it again.
    let shrunk = &found[0]["shrunk"];
    assert!(
        shrunk["runs"].as_u64().unwrap() >= 1 && shrunk["hits"] == shrunk["runs"],
        "{shrunk}\n{}",
        text(&o)
    );
    assert!(
        shrunk["kept"].as_array().unwrap().len() <= shrunk["of"].as_u64().unwrap() as usize,
        "{shrunk}"
    );
    // The exported regression test fails, for the same reason.
    let (passed, printed) = playwright.expect("the run wrote a report");
    assert!(!passed, "the exported test passed:\n{printed}");
    assert!(
        printed.contains(&format!("{property} violated")),
        "{printed}"
    );
    assert!(
        String::from_utf8_lossy(&o.stdout).contains(&format!("property {property}: violated")),
        "{}",
        text(&o)
    );

    let (good, o) = explore(
        &format!("props/{page}/good"),
        &spec(file),
        300,
        &dir.path().join("good"),
    );
    assert_eq!(
        property_failures(&good),
        Vec::<&Value>::new(),
        "{file} on the good page\n{}",
        text(&o)
    );
    let v = verdict(&good, property);
    assert_eq!(v["violated"], 0, "{v}");
    assert_eq!(v["errors"], 0, "{v}");
    assert!(
        v["held"].as_u64().unwrap() + v["pending"].as_u64().unwrap() >= 7,
        "{v}"
    );
    dir
}

/// Every file under `dir` whose name ends with `suffix`, read.
fn files_ending(dir: &Path, suffix: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() && p.file_name().is_some_and(|n| n != "node_modules") {
            out.extend(files_ending(&p, suffix));
        } else if p.to_string_lossy().ends_with(suffix) {
            out.push(std::fs::read_to_string(&p).unwrap_or_default());
        }
    }
    out
}

/// The manual's action generator (clicks at a canvas's centre) reaches what no control the
/// explorer finds does: its clicks break the property on the bad page (found, shrunk, and
/// exported as Playwright mouse clicks at the same point), never on the good one.
#[test]
fn action_generators_reach_a_canvas_no_rule_finds() {
    let dir = example("canvas.ts", "canvas", "at_most_three_marks", &["marks = 4"]);
    let specs = files_ending(&dir.path().join("bad/playwright"), ".spec.ts");
    assert!(
        specs
            .iter()
            .any(|s| s.matches("await page.mouse.click(").count() >= 4),
        "the exported test clicks the canvas four times:\n{specs:#?}"
    );
}

/// A specification in Bombadil 0.7's language (`/browser` modules, `weighted` around a
/// generator, `DoubleClick` at a fingerprint with a delay range, `PressKey`, and a
/// property on `navigationHistory`) runs unchanged: its double clicks and Delete keys
/// break the property on the bad board (found, shrunk, exported as a double click and a
/// key press), never on the good one.
#[test]
fn a_bombadil_07_specification_double_clicks_presses_keys_and_reads_the_history() {
    let dir = example(
        "v07-board.ts",
        "board",
        "fewer_than_three_cleared_entries",
        &["clearedEntries = 3"],
    );
    let specs = files_ending(&dir.path().join("bad/playwright"), ".spec.ts");
    assert!(
        specs.iter().any(|s| {
            s.matches("await page.keyboard.press('Delete')").count() >= 3
                && (s.contains("page.mouse.dblclick(") || s.contains("clickCount: 2"))
        }),
        "the exported test double-clicks the board and presses Delete three times:\n{specs:#?}"
    );
}

/// The two examples of Bombadil 0.7.0's README, unchanged: the title property (imported
/// from `/browser`) holds on a page with a heading, and the re-exported defaults are
/// wayfarer's own checks (the hazards pages throw and log errors).
#[test]
fn the_examples_of_bombadil_07s_readme_run_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let (r, o) = explore(
        "props/notifications/good",
        &spec("v07-title.ts"),
        20,
        &dir.path().join("t"),
    );
    let v = verdict(&r, "has_title");
    assert_eq!(v["violated"], 0, "{v}\n{}", text(&o));
    assert!(
        v["held"].as_u64().unwrap() + v["pending"].as_u64().unwrap() >= 1,
        "{v}"
    );
    let (r, o) = explore(
        "history/twice",
        &spec("v07-defaults.ts"),
        20,
        &dir.path().join("d"),
    );
    assert_eq!(r["steps"], 20, "{}", text(&o));
    assert!(
        r["failures"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["kind"] == "exception" || f["kind"] == "console_error"),
        "the defaults find the pages' errors: {}\n{}",
        r["failures"],
        text(&o)
    );
}

#[test]
fn max_notifications_shown() {
    example(
        "max-notifications.ts",
        "notifications",
        "max_notifications_shown",
        &["notificationCount = 6"],
    );
}

#[test]
fn constant_notification_count() {
    example(
        "constant-count.ts",
        "constant",
        "constantNotificationCount",
        &["notificationCount = 3"],
    );
}

#[test]
fn error_disappears_within_five_seconds() {
    example(
        "error-disappears.ts",
        "error",
        "errorDisappears",
        &["did not hold within 5000 ms"],
    );
}

#[test]
fn notification_includes_the_name_entered() {
    example(
        "notification-includes-name.ts",
        "name",
        "notificationIncludesMessage",
        // "Saved." names nobody; a save left before it ends (the bad build keeps nothing
        // across a reload) never shows a notification at all.
        &["notificationText = \"Saved.\"", "notificationText = null"],
    );
}

#[test]
fn counter_state_machine() {
    example(
        "counter.ts",
        "counter",
        "counterStateMachine",
        &["counterValue = "],
    );
}

#[test]
fn a_broken_specification_stops_the_run_naming_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("broken.ts");
    std::fs::write(
        &file,
        "import { always } from \"@antithesishq/bombadil\";\nexport const p = always(() => (1 + );\n",
    )
    .unwrap();
    let o = wayfarer()
        .args(["explore", "http://127.0.0.1:9/", "--spec"])
        .arg(&file)
        .arg("-o")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(err.contains("broken.ts:2:"), "{err}");
}

fn failure_messages(r: &Value) -> Vec<String> {
    property_failures(r)
        .iter()
        .map(|f| f["message"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn extractors_that_throw_or_return_a_function_are_failures_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("spec.js");
    std::fs::write(
        &file,
        r#"import { extract, always } from "@antithesishq/bombadil";
const boom = extract(() => { throw new Error("no such widget"); });
const handler = extract(() => () => 1);
export const p = always(() => boom.current === 1);
"#,
    )
    .unwrap();
    let (r, o) = explore("props/counter/good", &file, 10, &dir.path().join("out"));
    let messages = failure_messages(&r);
    let has = |needle: &str| messages.iter().any(|m| m.contains(needle));
    assert!(
        has("the extractor of boom threw: Error: no such widget"),
        "{messages:#?}\n{}",
        text(&o)
    );
    assert!(
        has("the extractor of handler returned a value that is not JSON"),
        "{messages:#?}"
    );
    assert!(
        has("p could not be evaluated: cell boom has no value"),
        "{messages:#?}"
    );
    assert_eq!(r["steps"], 10, "the run went on: {}", text(&o));
}

#[test]
fn an_extractor_that_never_returns_is_stopped_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("spec.js");
    std::fs::write(
        &file,
        r#"import { extract, always } from "@antithesishq/bombadil";
const forever = extract(() => { for (;;) {} });
export const p = always(() => forever.current === 1);
"#,
    )
    .unwrap();
    let (r, o) = explore("props/counter/good", &file, 4, &dir.path().join("out"));
    let messages = failure_messages(&r);
    assert!(
        messages
            .iter()
            .any(|m| m.contains("did not finish within 2 s")),
        "{messages:#?}\n{}",
        text(&o)
    );
    assert_eq!(r["steps"], 4, "the run went on: {}", text(&o));
}
