//! The exported specs are real tests: for every seeded bug of the demo applications, a
//! trace recorded the way exploration records them (wayfarer's browser environment driven
//! into the bug) becomes a Playwright spec that fails against the buggy build and passes
//! against the fixed build served on the same port.
//!
//! One test per application: one Chromium records all its traces, then Playwright runs
//! once against the buggy build and once against the fixed one.
//!
//! Needs Chromium (scripts/ensure-chromium.sh) and the pinned Playwright Test runner
//! (scripts/ensure-playwright.sh); without them it fails and says so.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use wayfarer_browser::{find_chrome, BrowserEnv, BrowserOptions};
use wayfarer_core::config::OracleConfig;
use wayfarer_core::trace::{Expected, ReplaySetup, TraceStep, TRACE_VERSION};
use wayfarer_core::{Action, ActionKind, Element, Environment, Event, Observation, Oracles, Trace};
use wayfarer_export::{playwright, NamedTrace, PlaywrightOptions};
use wayfarer_testapps::{seeded_bugs, App, Gesture, Pick, SeededBug, ServeOptions, Server};

/// `tools/playwright/node_modules`, which must hold `@playwright/test`.
fn node_modules() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/playwright/node_modules");
    assert!(
        dir.join("@playwright/test/cli.js").exists(),
        "{} has no @playwright/test: run `bash scripts/ensure-playwright.sh` first",
        dir.display()
    );
    dir.canonicalize().expect("node_modules resolves")
}

/// Drives the browser environment and records a trace as the exploration loop does: a
/// `TraceStep` of the action on the current observation, then the step.
struct Recorder {
    app: App,
    start: String,
    env: BrowserEnv,
    oracles: Oracles,
    obs: Observation,
    steps: Vec<TraceStep>,
    /// The failures each step raised (index into `steps`).
    failures: Vec<(usize, Expected)>,
}

impl Recorder {
    fn new(app: App, env: BrowserEnv, start: &url::Url) -> Recorder {
        Recorder {
            app,
            start: start.to_string(),
            env,
            oracles: Oracles::new(
                OracleConfig::default(),
                vec![start.origin().ascii_serialization()],
            )
            .unwrap(),
            obs: Observation::default(),
            steps: Vec::new(),
            failures: Vec::new(),
        }
    }

    /// A fresh episode (and a fresh application session).
    fn reset(&mut self) {
        self.obs = self.env.reset().expect("reset").observation;
        self.steps.clear();
        self.failures.clear();
    }

    /// The locator of the first (or `last`) visible actionable element `pick` chooses.
    /// On a busy machine a scan can come before the page caught up with the last step;
    /// then the page is observed again (without acting) for a while before giving up.
    fn locate(&mut self, what: &str, pick: impl Fn(&Element) -> bool, last: bool) -> String {
        for _ in 0..30 {
            let mut found = self
                .obs
                .elements
                .iter()
                .filter(|e| e.is_actionable() && pick(e));
            let el = if last { found.last() } else { found.next() };
            if let Some(el) = el {
                return el.locator.clone();
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
            let out = self.env.observe().expect("observe");
            self.obs = out.observation;
            self.judge(&out.events);
        }
        panic!(
            "no {what} on {} (steps so far: {:?}); the page shows {:#?}",
            self.obs.url,
            self.steps
                .iter()
                .map(TraceStep::describe)
                .collect::<Vec<_>>(),
            self.obs
                .elements
                .iter()
                .map(|e| (
                    &e.tag,
                    e.text.trim(),
                    e.attr("href"),
                    &e.actionable,
                    e.visible
                ))
                .collect::<Vec<_>>()
        );
    }

    /// Note the failures `events` raise as the last step's.
    fn judge(&mut self, events: &[Event]) {
        let Some(at) = self.steps.len().checked_sub(1) else {
            return;
        };
        for f in self.oracles.judge(events, Some(&self.obs)) {
            let e = Expected {
                kind: f.kind.as_str().to_string(),
                signature: f.signature,
                message: f.message,
            };
            self.failures.push((at, e));
        }
    }

    /// Act on `target` (a CSS locator of the current page) and note the failures it raised.
    fn act_on(&mut self, kind: ActionKind, target: String, value: Option<&str>) {
        let mut action = Action::on(kind, target.clone());
        action.value = value.map(str::to_string);
        let mut step = TraceStep::new(action.clone(), &self.obs);
        let out = self.env.step(&action).expect("step");
        // As exploration records it: the name the accessibility tree gave the target.
        if let (Some(n), Some(h)) = (self.env.target_name(), step.element.as_mut()) {
            h.name_from_target(&n, &target);
        }
        self.steps.push(step);
        self.obs = out.observation;
        self.judge(&out.events);
    }

    /// The browser's back button, as exploration takes it.
    fn back(&mut self) {
        let action = Action::back();
        let step = TraceStep::new(action.clone(), &self.obs);
        let out = self.env.step(&action).expect("back");
        self.steps.push(step);
        self.obs = out.observation;
        self.judge(&out.events);
    }

    /// Act on the first visible element `pick` chooses.
    fn act(
        &mut self,
        kind: ActionKind,
        what: &str,
        pick: impl Fn(&Element) -> bool,
        value: Option<&str>,
    ) {
        let target = self.locate(what, pick, false);
        self.act_on(kind, target, value);
    }

    fn click(&mut self, what: &str, pick: impl Fn(&Element) -> bool) {
        self.act(ActionKind::Click, what, pick, None);
    }

    /// Click the last visible element `pick` chooses (e.g. the newest row's link).
    fn click_last(&mut self, what: &str, pick: impl Fn(&Element) -> bool) {
        let target = self.locate(what, pick, true);
        self.act_on(ActionKind::Click, target, None);
    }

    /// Type into the field whose label starts with `label`.
    fn type_into(&mut self, label: &str, value: &str) {
        let what = format!("field {label:?}");
        self.act(
            ActionKind::Type,
            &what,
            |e| e.is_text_input() && e.label.trim().starts_with(label),
            Some(value),
        );
    }

    /// The trace of this episode, which must end at a failure that is `bug`: no earlier
    /// step failed, and the last step raised a failure that matches it.
    fn trace_of(&self, bug: &SeededBug) -> Trace {
        let last = self.steps.len() - 1;
        let early: Vec<_> = self.failures.iter().filter(|(i, _)| *i < last).collect();
        assert!(
            early.is_empty(),
            "{}: failures before the last step: {early:?}",
            bug.id
        );
        let expected = self
            .failures
            .iter()
            .map(|(_, e)| e)
            .find(|e| matches(bug, e))
            .unwrap_or_else(|| {
                panic!(
                    "{}: the last step raised no matching failure (kind {}, message containing {:?}); it raised {:?}",
                    bug.id, bug.kind, bug.message_contains, self.failures
                )
            });
        Trace {
            version: TRACE_VERSION,
            wayfarer: env!("CARGO_PKG_VERSION").to_string(),
            setup: ReplaySetup {
                start_url: self.start.clone(),
                app: Some(self.app.name().into()),
                app_bugs: Some(true),
                ..ReplaySetup::default()
            },
            expected: expected.clone(),
            origin: format!("crates/export/tests/playwright_run.rs ({})", bug.id),
            outside_state: None,
            steps: self.steps.clone(),
        }
    }
}

/// Whether a recorded failure is the seeded bug (as crates/cli/src/seeded.rs decides).
/// Only the kinds the exported specs check are accepted: a bug that shows as error text
/// only would pass its spec on the buggy build.
fn matches(bug: &SeededBug, e: &Expected) -> bool {
    let kind_fits = match bug.kind {
        "exception" => matches!(e.kind.as_str(), "exception" | "unhandled_rejection"),
        "http-500" => e.kind == "http_5xx",
        "console-error" => e.kind == "console_error",
        other => panic!(
            "{}: seeded bug kind {other:?}: the exported specs check page errors, console errors and HTTP errors only",
            bug.id
        ),
    };
    kind_fits && e.message.contains(bug.message_contains)
}

/// How the failure reads in the specs' `app.failures` (a line of Playwright's diff).
fn failure_line(bug: &SeededBug, e: &Expected) -> String {
    let kind = match e.kind.as_str() {
        // Playwright reports both as `pageerror`.
        "unhandled_rejection" => "exception",
        k => k,
    };
    format!("\"{kind}: {}", bug.message_contains)
}

fn text_is(t: &'static str) -> impl Fn(&Element) -> bool {
    move |e| e.text.trim() == t
}

fn tag_text(tag: &'static str, t: &'static str) -> impl Fn(&Element) -> bool {
    move |e| e.tag == tag && e.text.trim() == t
}

/// What the `type` steps of the long-input bugs type: one more than the 200 allowed.
fn too_long() -> String {
    "a".repeat(201)
}

/// Drive the browser into `bug` from a fresh episode (the steps of its description).
fn record_clinic(rec: &mut Recorder, bug: &SeededBug) {
    match bug.id {
        "clinic-vets-contact" => {
            rec.click("Veterinarians link", text_is("Veterinarians"));
            rec.click("cardiology chip", text_is("cardiology"));
            rec.click("Contact button", text_is("Contact first listed vet"));
        }
        "clinic-owner-email-500" => {
            rec.click("Find owners link", text_is("Find owners"));
            rec.click("Add Owner link", tag_text("a", "Add Owner"));
            rec.type_into("E-mail", "a@b");
            rec.click("Add Owner button", tag_text("button", "Add Owner"));
        }
        "clinic-long-address" => {
            rec.click("Find owners link", text_is("Find owners"));
            rec.click("Add Owner link", tag_text("a", "Add Owner"));
            rec.type_into("Address", &too_long());
        }
        "clinic-visit-empty-description" => {
            rec.click("Find owners link", text_is("Find owners"));
            rec.click("Find Owner button", tag_text("button", "Find Owner"));
            rec.click("an owner's link", |e| {
                e.tag == "a" && e.attr("href").is_some_and(|h| h.starts_with("/owners/1"))
            });
            rec.click("Add New Pet link", text_is("Add New Pet"));
            rec.type_into("Name", "Nova");
            rec.type_into("Birth Date", "2023-05-01");
            rec.click("Add Pet button", tag_text("button", "Add Pet"));
            rec.click_last("the new pet's Add Visit link", tag_text("a", "Add Visit"));
            rec.click("Add Visit button", tag_text("button", "Add Visit"));
        }
        other => {
            panic!("seeded bug {other} of the clinic app has no recorded trace: add its steps here")
        }
    }
}

fn log_in(rec: &mut Recorder) {
    rec.click("Fill demo credentials", text_is("Fill demo credentials"));
    rec.click("Log in button", tag_text("button", "Log in"));
}

fn record_expense(rec: &mut Recorder, bug: &SeededBug) {
    match bug.id {
        "expense-report-export" => {
            log_in(rec);
            rec.click("Reports link", text_is("Reports"));
            rec.act(
                ActionKind::Select,
                "Period select",
                |e| e.tag == "select" && e.label.trim() == "Period",
                Some("2024-01"),
            );
            rec.click("By category button", text_is("By category"));
            rec.click("Export button", text_is("Export"));
        }
        "expense-register-email-500" => {
            rec.click("Create an account link", text_is("Create an account"));
            rec.type_into("E-mail", "a@b");
            rec.click(
                "Create account button",
                tag_text("button", "Create account"),
            );
        }
        "expense-long-description" => {
            log_in(rec);
            rec.click("Add expense link", text_is("Add expense"));
            rec.type_into("Description", &too_long());
        }
        "expense-wizard-confirm" => {
            log_in(rec);
            rec.click("Budget wizard link", text_is("Budget wizard"));
            // The wizard is made of divs; the scan finds them clickable by their cursor.
            rec.click("tile Other", tag_text("div", "Other"));
            rec.click("Next", tag_text("div", "Next"));
            rec.type_into("Limit", "100");
            rec.click("Next", tag_text("div", "Next"));
            rec.click("Confirm", tag_text("div", "Confirm"));
        }
        other => panic!(
            "seeded bug {other} of the expense app has no recorded trace: add its steps here"
        ),
    }
}

/// Run the exported project; (succeeded, stdout + stderr).
fn run_playwright(dir: &Path) -> (bool, String) {
    let out = Command::new("node")
        .arg("node_modules/@playwright/test/cli.js")
        .arg("test")
        .current_dir(dir)
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
        .env("CI", "1")
        .env_remove("BASE_URL")
        .output()
        .expect("node runs (scripts/ensure-playwright.sh installs it)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// Playwright's summary lines ("4 failed", "4 passed (3.2s)").
fn summary(out: &str) -> String {
    out.lines()
        .map(str::trim)
        .filter(|l| {
            l.split_whitespace()
                .nth(1)
                .is_some_and(|w| ["passed", "failed", "flaky", "skipped", "did"].contains(&w))
                && l.starts_with(|c: char| c.is_ascii_digit())
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Record a trace per seeded bug of `app`, export them, and check that Playwright fails
/// every spec on the buggy build (with the bug's failure) and passes them all once fixed.
fn seeded_bugs_fail_then_pass(app: App, record: fn(&mut Recorder, &SeededBug)) -> Vec<String> {
    let t0 = Instant::now();
    let modules = node_modules();
    let bugs = seeded_bugs(app);
    assert!(!bugs.is_empty(), "{app} has no seeded bugs");
    let server = Server::start(
        app,
        ServeOptions {
            bugs: true,
            ..Default::default()
        },
    )
    .unwrap();
    let url = url::Url::parse(&server.url()).unwrap();
    let port = url.port().unwrap();
    let chrome = find_chrome(None).expect("Chromium is installed (scripts/ensure-chromium.sh)");
    let mut opts = BrowserOptions::new(url.clone());
    opts.chrome = Some(chrome.clone());
    let env = BrowserEnv::launch(opts).expect("chromium launches");
    let mut rec = Recorder::new(app, env, &url);

    let mut traces = Vec::new();
    for bug in bugs {
        rec.reset();
        record(&mut rec, bug);
        traces.push(NamedTrace {
            name: bug.id.to_string(),
            trace: rec.trace_of(bug),
        });
    }
    rec.env.close();
    let recorded = t0.elapsed();

    let dir = tempfile::tempdir().unwrap();
    let export = PlaywrightOptions {
        chromium: Some(chrome.display().to_string()),
    };
    playwright(&traces, &export, dir.path()).expect("export");
    std::os::unix::fs::symlink(&modules, dir.path().join("node_modules")).unwrap();
    let specs: Vec<String> = traces
        .iter()
        .map(|t| {
            std::fs::read_to_string(dir.path().join(format!("tests/{}.spec.ts", t.name))).unwrap()
        })
        .collect();
    let all_specs = specs.join("\n");

    let t1 = Instant::now();
    let (ok, out) = run_playwright(dir.path());
    let buggy = t1.elapsed();
    assert!(
        !ok,
        "the specs pass against the buggy {app} app:\n{out}\n{all_specs}"
    );
    let n = bugs.len();
    assert!(
        out.contains(&format!("{n} failed")),
        "not every spec failed on the buggy {app} app:\n{out}\n{all_specs}"
    );
    for (bug, t) in bugs.iter().zip(&traces) {
        let line = failure_line(bug, &t.trace.expected);
        assert!(
            out.contains(&line),
            "{}: Playwright did not see {line}…:\n{out}",
            bug.id
        );
    }
    let buggy_summary = summary(&out);

    server.shutdown();
    let _fixed = Server::start(
        app,
        ServeOptions {
            bugs: false,
            port,
            ..Default::default()
        },
    )
    .expect("the fixed app binds the same port");
    let t2 = Instant::now();
    let (ok, out) = run_playwright(dir.path());
    let fixed = t2.elapsed();
    assert!(
        ok,
        "the specs fail against the fixed {app} app:\n{out}\n{all_specs}"
    );
    assert!(out.contains(&format!("{n} passed")), "{out}");
    eprintln!(
        "{app}: recorded {n} traces in {recorded:?}; playwright on the buggy app {buggy:?} ({buggy_summary}), on the fixed app {fixed:?} ({})\n{all_specs}",
        summary(&out)
    );
    specs
}

#[test]
fn clinic_seeded_bug_specs_fail_on_the_bugs_and_pass_once_fixed() {
    let specs = seeded_bugs_fail_then_pass(App::Clinic, record_clinic);
    // Real pages give user-facing locators where they are unambiguous: links, buttons and
    // labelled fields by role and name.
    let email = specs
        .iter()
        .find(|s| s.contains("Trace: clinic-owner-email-500 "))
        .unwrap();
    assert!(
        email.contains("getByRole('textbox', { name: 'E-mail (optional)', exact: true })"),
        "{email}"
    );
    assert!(
        email.contains("// 3. type \"a@b\" into textbox \"E-mail (optional)\" (css: #email)"),
        "{email}"
    );
}

#[test]
fn expense_seeded_bug_specs_fail_on_the_bugs_and_pass_once_fixed() {
    let specs = seeded_bugs_fail_then_pass(App::Expense, record_expense);
    let wizard = specs
        .iter()
        .find(|s| s.contains("Trace: expense-wizard-confirm "))
        .unwrap();
    assert!(
        wizard.contains("getByRole('button', { name: 'Fill demo credentials', exact: true })"),
        "{wizard}"
    );
}

/// The element carrying `action_id` that `pick` chooses, shown (or a file input, which
/// may hide behind its label), observed again for a while on a busy machine.
fn by_action_id(rec: &mut Recorder, action_id: &str, pick: Pick) -> String {
    for _ in 0..30 {
        let found: Vec<&Element> = rec
            .obs
            .elements
            .iter()
            .filter(|e| e.visible || e.input_type.as_deref() == Some("file"))
            .filter(|e| e.attr("data-action-id") == Some(action_id))
            .collect();
        let el = match pick {
            Pick::First => found.first(),
            Pick::Last => found.last(),
            Pick::Text(t) => found.iter().find(|e| e.text.trim() == t),
        };
        if let Some(el) = el {
            return el.locator.clone();
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        let out = rec.env.observe().expect("observe");
        rec.obs = out.observation;
        rec.judge(&out.events);
    }
    panic!("no {action_id} ({pick:?}) on {}", rec.obs.url);
}

/// The gestures app's bugs, recorded along their witnesses: each gesture as exploration
/// takes it (a hover, a right click, Enter, an upload, a scroll, a drag).
fn record_gestures(rec: &mut Recorder, bug: &SeededBug) {
    for step in bug.steps {
        let here = match step.gesture {
            Gesture::Scroll => Some((ActionKind::Scroll, None)),
            Gesture::PressHere(k) => Some((ActionKind::Press, Some(k.to_string()))),
            _ => None,
        };
        if let Some((kind, value)) = here {
            let action = Action {
                kind,
                target: None,
                value,
            };
            let t = TraceStep::new(action.clone(), &rec.obs);
            let out = rec.env.step(&action).expect("a step without a control");
            rec.steps.push(t);
            rec.obs = out.observation;
            rec.judge(&out.events);
            continue;
        }
        let target = by_action_id(rec, step.action_id, step.pick);
        let (kind, value) = match step.gesture {
            Gesture::Click => (ActionKind::Click, None),
            Gesture::DoubleClick => (ActionKind::DoubleClick, None),
            Gesture::Hover => (ActionKind::Hover, None),
            Gesture::ContextMenu => (ActionKind::ContextMenu, None),
            Gesture::Press(k) => (ActionKind::Press, Some(k.to_string())),
            Gesture::Upload(f) => (ActionKind::Upload, Some(f.to_string())),
            Gesture::DragTo(onto) => (ActionKind::Drag, Some(by_action_id(rec, onto, Pick::First))),
            g => panic!("{}: no gesture {g:?} in the gestures app", bug.id),
        };
        rec.act_on(kind, target, value.as_deref());
    }
}

#[test]
fn gestures_seeded_bug_specs_fail_on_the_bugs_and_pass_once_fixed() {
    let specs = seeded_bugs_fail_then_pass(App::Gestures, record_gestures);
    let all = specs.join("\n");
    for line in [
        ".hover();",
        ".click({ button: 'right' });",
        ".press('Enter');",
        ".setInputFiles({ name: 'photo.png', mimeType: 'image/png'",
        "await page.mouse.wheel(0, 600);",
        ".dragTo(page.locator(",
        "await page.keyboard.press('Escape');",
        ".press('Control+Shift+KeyF');",
        ".dblclick();",
    ] {
        assert!(all.contains(line), "no {line:?} in:\n{all}");
    }
}

/// The naming traps of the hazards app, one action each (see
/// testapps/assets/hazards/naming.html).
fn record_naming(rec: &mut Recorder) {
    let id = |want: &'static str| move |e: &Element| e.attr("id") == Some(want);
    rec.click(
        "Naming traps link",
        text_is("Naming traps (accessible names that markup hides)"),
    );
    rec.act(ActionKind::Type, "User field", id("trap-user"), Some("ada"));
    rec.click("Login submit input", id("trap-login"));
    rec.click("Terms link after a paragraph", id("trap-terms"));
    rec.act(
        ActionKind::Type,
        "Quantity (aria-labelledby)",
        id("trap-qty"),
        Some("3"),
    );
    rec.act(
        ActionKind::Type,
        "Nickname (wrapping label)",
        id("trap-nick"),
        Some("Zed"),
    );
    rec.act(
        ActionKind::Type,
        "placeholder-only field",
        id("trap-find"),
        Some("dune"),
    );
    rec.click("Delete row icon button", id("trap-delete"));
    rec.click("Add to favourites icon button", id("trap-star"));
    rec.act(ActionKind::Type, "Age number", id("trap-age"), Some("42"));
    rec.act(
        ActionKind::Type,
        "Born on date",
        id("trap-born"),
        Some("2024-02-29"),
    );
    rec.act(
        ActionKind::Type,
        "Search the shop",
        id("trap-search"),
        Some("shoes"),
    );
    rec.act(
        ActionKind::Type,
        "Volume range",
        id("trap-volume"),
        Some("7"),
    );
    rec.act(
        ActionKind::Type,
        "E-mail",
        id("trap-mail"),
        Some("a@b.example"),
    );
    rec.act(
        ActionKind::Check,
        "Send me news checkbox",
        id("trap-news"),
        None,
    );
    rec.act(
        ActionKind::Select,
        "Size select",
        id("trap-size"),
        Some("Large"),
    );
    rec.click("first Edit", text_is("Edit"));
    rec.click_last("second Edit", text_is("Edit"));
    rec.click("Pay by card (data-cy)", |e| {
        e.attr("data-cy") == Some("pay-card")
    });
    rec.click("Pay in cash (data-test-id)", |e| {
        e.attr("data-test-id") == Some("pay-cash")
    });
    rec.click("Red chip (a span: text)", id("chip-red"));
    rec.click_last("second Green chip (shared text)", text_is("Green"));
    rec.click("Yellow chip (its text is a child's)", id("chip-wrapped"));
    rec.click("shadow Save draft", id("shadow-save"));
    rec.act(
        ActionKind::Type,
        "frame Voucher code",
        id("frame-code"),
        Some("SPRING"),
    );
    rec.click("frame Apply", id("frame-apply"));
}

#[test]
fn naming_traps_export_finds_every_element_and_a_changed_page_says_so() {
    let modules = node_modules();
    let server = Server::start(App::Hazards, ServeOptions::default()).unwrap();
    let url = url::Url::parse(&server.url()).unwrap();
    let chrome = find_chrome(None).expect("Chromium is installed (scripts/ensure-chromium.sh)");
    let mut opts = BrowserOptions::new(url.clone());
    opts.chrome = Some(chrome.clone());
    let env = BrowserEnv::launch(opts).expect("chromium launches");
    let mut rec = Recorder::new(App::Hazards, env, &url);
    rec.reset();
    record_naming(&mut rec);
    rec.env.close();
    assert!(rec.failures.is_empty(), "{:?}", rec.failures);
    let trace = |steps: Vec<TraceStep>| Trace {
        version: TRACE_VERSION,
        wayfarer: env!("CARGO_PKG_VERSION").to_string(),
        setup: ReplaySetup {
            start_url: rec.start.clone(),
            ..ReplaySetup::default()
        },
        expected: Expected {
            kind: "exception".into(),
            signature: "exception|none".into(),
            message: "none: every step must find its element".into(),
        },
        origin: "crates/export/tests/playwright_run.rs (naming traps)".into(),
        outside_state: None,
        steps,
    };
    // What each trap was named, and by what: the note of issue 14 lists them.
    let mut named = String::new();
    for (i, st) in rec.steps.iter().enumerate() {
        let h = st.element.as_ref().expect("every step has its element");
        let none = wayfarer_core::trace::Chosen {
            kind: wayfarer_core::trace::LocatorKind::Css,
            by: "NOT CHOSEN".into(),
            value: String::new(),
            verified: false,
        };
        let chosen = h.locator.as_ref().unwrap_or(&none);
        named.push_str(&format!(
            "{:>2}. {:<42} tree: {:?} {:?} (same {}) {:?} -> {} {:?} {:?}\n",
            i + 1,
            st.action.target.as_deref().unwrap_or(""),
            h.role.as_deref().unwrap_or(""),
            h.name,
            h.same_name,
            h.source,
            chosen.kind.as_str(),
            chosen.by,
            chosen.value
        ));
    }
    assert!(
        !named.contains("NOT CHOSEN"),
        "every step names its target:\n{named}"
    );
    // Each kind where the page allows exactly one match, CSS where it allows none.
    let kind_of = |attr: &str, value: &str| {
        let h = rec
            .steps
            .iter()
            .filter_map(|s| s.element.as_ref())
            .find(|h| h.attrs.get(attr).map(String::as_str) == Some(value));
        let c = h.and_then(|h| h.locator.clone());
        c.map(|c| (c.kind, c.by, c.value))
    };
    use wayfarer_core::trace::LocatorKind as K;
    let want = [
        (("id", "trap-login"), (K::Role, "button", "Login")),
        (("data-cy", "pay-card"), (K::TestId, "data-cy", "pay-card")),
        (("id", "chip-red"), (K::Text, "", "Red")),
        (("id", "chip-wrapped"), (K::Css, "", "")),
    ];
    for ((attr, v), (k, by, value)) in want {
        assert_eq!(
            kind_of(attr, v),
            Some((k, by.to_string(), value.to_string())),
            "{attr}={v}\n{named}"
        );
    }
    let green = rec
        .steps
        .iter()
        .find(|s| s.element.as_ref().is_some_and(|h| h.text == "Green"));
    let green = green
        .and_then(|s| s.element.as_ref())
        .and_then(|h| h.page.clone())
        .expect("green chip counted");
    assert_eq!(
        (green.text.as_str(), green.same_text),
        ("Green", 2),
        "{named}"
    );
    let login = rec
        .steps
        .iter()
        .find(|s| s.action.target.as_deref() == Some("#trap-login"));
    let h = login
        .and_then(|s| s.element.as_ref())
        .expect("the login step");
    assert_eq!(
        (h.role.as_deref(), h.name.as_str()),
        (Some("button"), "Login"),
        "{named}"
    );
    assert_eq!(h.source, wayfarer_core::trace::NameSource::Tree, "{named}");

    // The same trace, recorded on a page whose Delete button has since changed.
    let mut changed = rec.steps.clone();
    let gone = changed
        .iter()
        .position(|s| s.action.target.as_deref() == Some("#trap-delete"))
        .unwrap();
    changed[gone].action.target = Some("#trap-delete-all".into());
    if let Some(h) = changed[gone].element.as_mut() {
        h.name = "Delete all rows".into();
        h.attrs.insert("id".into(), "trap-delete-all".into());
        h.locator = None;
    }
    let traces = vec![
        NamedTrace {
            name: "naming-traps".into(),
            trace: trace(rec.steps.clone()),
        },
        NamedTrace {
            name: "naming-changed".into(),
            trace: trace(changed),
        },
    ];
    let dir = tempfile::tempdir().unwrap();
    let export = PlaywrightOptions {
        chromium: Some(chrome.display().to_string()),
    };
    playwright(&traces, &export, dir.path()).expect("export");
    std::os::unix::fs::symlink(&modules, dir.path().join("node_modules")).unwrap();
    let spec = std::fs::read_to_string(dir.path().join("tests/naming-traps.spec.ts")).unwrap();
    let (_, out) = run_playwright(dir.path());
    assert!(
        out.contains("1 passed") && out.contains("1 failed"),
        "the naming traps' spec must pass and the changed one fail:\n{out}\n{named}\n{spec}"
    );
    let message = format!(
        "step {}: button \"Delete all rows\" not found on /naming#terms; the page changed since the trace was recorded",
        gone + 1
    );
    assert!(out.contains(&message), "{message}\n{out}");
    for code in [
        "getByRole('button', { name: 'Login', exact: true })",
        "page.getByText('Red', { exact: true })",
        "page.getByTestId('pay-card')",
        "page.locator('[data-test-id=\"pay-cash\"]')",
    ] {
        assert!(spec.contains(code), "{code}\n{spec}");
    }
    eprintln!("{named}\n{spec}");
}

/// Back on the first page of an episode does nothing in wayfarer (it never leaves the
/// application); the exported test does the same, instead of going to the blank page
/// before the start and forward again, a reload that loses what the page held (found
/// when an exported property test passed that wayfarer's replays failed 3 of 3).
#[test]
fn a_back_that_would_leave_the_application_does_nothing_in_the_export_either() {
    let modules = node_modules();
    let server = Server::start(App::Hazards, ServeOptions::default()).unwrap();
    let url = url::Url::parse(&format!("{}history/twice", server.url())).unwrap();
    let chrome = find_chrome(None).expect("Chromium is installed (scripts/ensure-chromium.sh)");
    let mut opts = BrowserOptions::new(url.clone());
    opts.chrome = Some(chrome.clone());
    let env = BrowserEnv::launch(opts).expect("chromium launches");
    let mut rec = Recorder::new(App::Hazards, env, &url);
    rec.reset();
    let again = |e: &Element| e.attr("id") == Some("again");
    rec.click("Again", again);
    rec.back();
    rec.click("Again", again);
    rec.env.close();
    // In wayfarer the back stayed on the page, so the second click threw.
    let (at, expected) = rec
        .failures
        .last()
        .cloned()
        .expect("the second click threw");
    assert_eq!(
        (at, expected.kind.as_str()),
        (2, "exception"),
        "{:?}",
        rec.failures
    );
    let trace = Trace {
        version: TRACE_VERSION,
        wayfarer: env!("CARGO_PKG_VERSION").to_string(),
        setup: ReplaySetup {
            start_url: rec.start.clone(),
            ..ReplaySetup::default()
        },
        expected,
        origin: "crates/export/tests/playwright_run.rs (back at the start)".into(),
        outside_state: None,
        steps: rec.steps.clone(),
    };
    let dir = tempfile::tempdir().unwrap();
    let export = PlaywrightOptions {
        chromium: Some(chrome.display().to_string()),
    };
    let traces = [NamedTrace {
        name: "back-at-the-start".into(),
        trace,
    }];
    playwright(&traces, &export, dir.path()).expect("export");
    std::os::unix::fs::symlink(&modules, dir.path().join("node_modules")).unwrap();
    let (ok, out) = run_playwright(dir.path());
    assert!(
        !ok && out.contains("clicked twice on one load of the page"),
        "the exported test must fail as wayfarer's steps did:\n{out}"
    );
}
