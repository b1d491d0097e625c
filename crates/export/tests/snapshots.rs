//! The exact text wayfarer-export writes, as insta snapshots (`tests/snapshots/`):
//! review a change with `cargo insta review`, or `INSTA_UPDATE=always` and `git diff`.

use std::collections::BTreeMap;

use wayfarer_core::config::{LoginStep, OracleConfig};
use wayfarer_core::trace::{ElementHint, Expected, ReplaySetup, TraceStep, TRACE_VERSION};
use wayfarer_core::{Action, ActionKind, Trace};
use wayfarer_export::{
    playwright, playwright_features, FeatureCheck, FeatureSpec, NamedTrace, PlaywrightOptions,
};

const START: &str = "http://127.0.0.1:41234/";

fn attrs(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A control named by its text (links, buttons).
fn control(tag: &str, role: &str, name: &str, same_name: u32) -> ElementHint {
    ElementHint {
        tag: tag.into(),
        role: Some(role.into()),
        text: name.into(),
        name: name.into(),
        same_name,
        ..ElementHint::default()
    }
}

/// A form field named by its label.
fn labelled(tag: &str, role: Option<&str>, ty: Option<&str>, label: &str, n: u32) -> ElementHint {
    ElementHint {
        tag: tag.into(),
        role: role.map(str::to_string),
        input_type: ty.map(str::to_string),
        label: label.into(),
        name: label.into(),
        same_name: n,
        same_label: n,
        ..ElementHint::default()
    }
}

fn step(
    kind: ActionKind,
    target: Option<&str>,
    value: Option<&str>,
    el: Option<ElementHint>,
    path: &str,
) -> TraceStep {
    TraceStep {
        action: Action {
            kind,
            target: target.map(str::to_string),
            value: value.map(str::to_string),
        },
        element: el,
        url: format!("http://127.0.0.1:41234{path}"),
    }
}

fn trace(expected: Expected, setup: ReplaySetup, steps: Vec<TraceStep>) -> Trace {
    Trace {
        version: TRACE_VERSION,
        wayfarer: "0.1.0".into(),
        setup,
        expected,
        origin: "explore seed 7 step 42".into(),
        outside_state: None,
        steps,
    }
}

/// The seeded clinic bug as exploration records it: plain links, a labelled field, a button.
fn owner_email_500() -> Trace {
    use ActionKind::*;
    trace(
        Expected {
            kind: "http_5xx".into(),
            signature: "http_5xx|HTTP <n> from http://127.0.0.1:<n>/owners/new|http://127.0.0.1:41234/owners/new".into(),
            message: "HTTP 500 from http://127.0.0.1:41234/owners/new".into(),
        },
        ReplaySetup {
            start_url: START.into(),
            ..ReplaySetup::default()
        },
        vec![
            step(Click, Some("#nav-find"), None, Some(control("a", "link", "Find owners", 1)), "/"),
            step(Click, Some("body > main > a"), None, Some(control("a", "link", "Add Owner", 1)), "/owners/find"),
            step(Type, Some("#email"), Some("a@b"), Some(labelled("input", Some("textbox"), Some("email"), "E-mail (optional)", 1)), "/owners/new"),
            step(Click, Some("#add-owner-form > div > button"), None, Some(control("button", "button", "Add Owner", 1)), "/owners/new"),
        ],
    )
}

/// Every action kind, every locator kind, login with secrets, hostile values, oracles.
fn everything() -> Trace {
    use ActionKind::*;
    let mut tile = control("div", "button", "Other", 1);
    tile.attrs = attrs(&[("data-test", "tile-other")]);
    let mut menu = control("button", "button", "Menu", 2);
    menu.attrs = attrs(&[("data-test", "menu")]);
    let mut save = control("button", "button", "Save", 1);
    save.attrs = attrs(&[("data-testid", "save"), ("id", "save")]);
    let done = control("button", "button", "Done", 1);
    let hostile = "it's `${ x}` \\ \"q\"\n</script>\u{2028}Zoë";
    trace(
        Expected {
            kind: "exception".into(),
            signature: "exception|TypeError: Cannot read properties of undefined (reading <str>)|http://127.0.0.1:41234/static/app.js:10:5".into(),
            message: "TypeError: Cannot read properties of undefined (reading 'glyph')\n    at confirm (app.js:10:5)".into(),
        },
        ReplaySetup {
            start_url: "http://127.0.0.1:41234/dashboard?tab=all".into(),
            allow_origins: vec!["http://127.0.0.1:8081".into()],
            login: vec![
                LoginStep { goto: Some("/login".into()), fill: None, value: None, click: None },
                LoginStep { goto: None, fill: Some("#user".into()), value: Some("${WF_USER}".into()), click: None },
                LoginStep { goto: None, fill: Some("input[name=\"pw\"]".into()), value: Some("${WF_PASSWORD}".into()), click: Some("form button[type=submit]".into()) },
            ],
            oracles: OracleConfig {
                http_4xx: true,
                console_errors: false,
                ignore: vec!["(?i)^console_error: .*favicon".into(), "(?x) spaced".into()],
                ..OracleConfig::default()
            },
            ..ReplaySetup::default()
        },
        vec![
            step(Type, Some("#desc"), Some(hostile), Some(labelled("textarea", Some("textbox"), None, "Description", 1)), "/dashboard?tab=all"),
            step(Type, Some("#note"), Some(&"x".repeat(201)), None, "/dashboard?tab=all"),
            step(Type, Some("#pw2"), Some("pre-${WF_PASSWORD}-`${1}`"), Some(labelled("input", Some("textbox"), Some("password"), "Confirm password", 1)), "/dashboard?tab=all"),
            step(Select, Some("#period"), Some("2024-01"), Some(labelled("select", Some("combobox"), None, "Period", 1)), "/reports"),
            step(Select, Some("#cat"), None, Some(labelled("select", Some("combobox"), None, "Category", 2)), "/reports"),
            step(Check, Some("#agree"), None, Some(labelled("input", Some("checkbox"), Some("checkbox"), "I agree", 1)), "/reports"),
            step(Hover, Some("#menu"), None, Some(menu), "/reports"),
            step(DoubleClick, Some("div.tiles > div:nth-of-type(5)"), None, Some(tile), "/wizard"),
            step(Click, Some("#save"), None, Some(save), "/wizard"),
            step(Submit, Some("#q"), None, Some(labelled("input", Some("searchbox"), Some("search"), "Search", 1)), "/wizard"),
            step(Press, Some("#q"), Some("Enter"), Some(labelled("input", Some("searchbox"), Some("search"), "Search", 1)), "/wizard"),
            step(Press, Some("#done"), Some("Alt+KeyS"), Some(done.clone()), "/wizard"),
            step(Press, None, Some("Escape"), None, "/wizard"),
            step(ContextMenu, Some("#done"), None, Some(done.clone()), "/wizard"),
            step(Upload, Some("#pic"), Some("photo.png:6291456"), Some(labelled("input", None, Some("file"), "Picture", 1)), "/wizard"),
            step(Scroll, None, None, None, "/wizard"),
            step(Scroll, Some("#done"), None, Some(done.clone()), "/wizard"),
            step(Drag, Some("#done"), Some("#column-2"), Some(done), "/wizard"),
            step(Click, Some("#shadow-host >>> #inner"), None, Some(control("button", "button", "Inner", 1)), "/frames"),
            step(Back, None, None, None, "/frames"),
            step(Navigate, None, Some("../owners/7?x=1#top"), None, "/vets/list"),
            step(Navigate, None, Some("http://127.0.0.1:8081/api"), None, "/owners/7"),
            step(Navigate, None, Some("https://example.com/"), None, "/owners/7"),
            step(Click, None, None, None, "/owners/7"),
        ],
    )
}

fn export(traces: Vec<NamedTrace>, opts: &PlaywrightOptions) -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let files = playwright(&traces, opts, dir.path()).unwrap();
    let rel = files
        .iter()
        .map(|p| p.strip_prefix(dir.path()).unwrap().display().to_string())
        .collect();
    (dir, rel)
}

fn read(dir: &tempfile::TempDir, rel: &str) -> String {
    std::fs::read_to_string(dir.path().join(rel)).unwrap()
}

#[test]
fn clinic_owner_email_500_spec() {
    let named = NamedTrace {
        name: "http_5xx-1".into(),
        trace: owner_email_500(),
    };
    let opts = PlaywrightOptions {
        chromium: Some("/usr/bin/chromium".into()),
    };
    let (dir, files) = export(vec![named], &opts);
    assert_eq!(
        files,
        [
            "playwright.config.ts",
            "package.json",
            "tests/wayfarer.ts",
            "tests/http_5xx-1.spec.ts"
        ]
    );
    insta::assert_snapshot!(
        "owner_email_500.spec.ts",
        read(&dir, "tests/http_5xx-1.spec.ts")
    );
    insta::assert_snapshot!("playwright.config.ts", read(&dir, "playwright.config.ts"));
    insta::assert_snapshot!("package.json", read(&dir, "package.json"));
}

#[test]
fn every_action_and_locator_kind_spec() {
    let traces = vec![
        NamedTrace {
            name: "exception 1/../x".into(),
            trace: everything(),
        },
        NamedTrace {
            name: "exception 1/../x".into(),
            trace: owner_email_500(),
        },
    ];
    let (dir, files) = export(traces, &PlaywrightOptions::default());
    assert_eq!(
        &files[3..],
        [
            "tests/exception-1-x.spec.ts",
            "tests/exception-1-x-2.spec.ts"
        ]
    );
    let spec = read(&dir, "tests/exception-1-x.spec.ts");
    insta::assert_snapshot!("everything.spec.ts", spec);
    // No secret value and no raw line break inside a literal.
    assert!(spec.contains("WF_PASSWORD: process.env.WF_PASSWORD ?? missing('WF_PASSWORD')"));
    // The data-test attribute (2 elements against 1) is configured; no Chromium path given.
    let config = read(&dir, "playwright.config.ts");
    assert!(config.contains("testIdAttribute: 'data-test',"), "{config}");
    assert!(!config.contains("executablePath"), "{config}");
}

/// A property violation found with a specification: the test loads its bundle, checks
/// the properties after every step and after their deadlines, and fails on a violation.
#[test]
fn a_property_violation_spec_checks_the_properties() {
    use ActionKind::*;
    let mut t = trace(
        Expected {
            kind: "property".into(),
            signature: "property|max_notifications_shown".into(),
            message: "max_notifications_shown violated: `() => notificationCount.current <= 5` was false (notificationCount = 6)".into(),
        },
        ReplaySetup {
            start_url: format!("{START}props/notifications/bad"),
            spec: Some(wayfarer_core::trace::SpecSetup {
                file: "specs/max-notifications.ts".into(),
                bundle: "globalThis.__wayfarerSpec = {};\n".into(),
            }),
            ..ReplaySetup::default()
        },
        vec![
            step(Click, Some("#notify"), None, Some(control("button", "button", "Notify", 1)), "/props/notifications/bad"),
            step(Click, Some("#notify"), None, Some(control("button", "button", "Notify", 1)), "/props/notifications/bad"),
        ],
    );
    t.origin = "explore seed 3 step 9".into();
    let (dir, files) = export(
        vec![NamedTrace {
            name: "property-1".into(),
            trace: t,
        }],
        &PlaywrightOptions::default(),
    );
    assert_eq!(
        &files[3..],
        ["tests/property-1.properties.js", "tests/property-1.spec.ts"]
    );
    assert_eq!(
        read(&dir, "tests/property-1.properties.js"),
        "globalThis.__wayfarerSpec = {};\n"
    );
    insta::assert_snapshot!("property.spec.ts", read(&dir, "tests/property-1.spec.ts"));
}

/// The actions of a specification's generators: Playwright's mouse and keyboard at the
/// points and with the keys and delays wayfarer used.
#[test]
fn spec_generator_actions_become_mouse_and_keyboard_calls() {
    use wayfarer_core::spec_action::{Point, SpecAction};
    let at = Point { x: 160.0, y: 95.5 };
    let actions = [
        SpecAction::Click {
            name: "canvas".into(),
            content: None,
            fingerprint: None,
            point: at,
        },
        SpecAction::DoubleClick {
            name: "canvas".into(),
            content: None,
            fingerprint: None,
            point: at,
            delay_millis: 0.0,
        },
        SpecAction::DoubleClick {
            name: "canvas".into(),
            content: None,
            fingerprint: None,
            point: at,
            delay_millis: 150.0,
        },
        SpecAction::TypeText {
            text: "it's \"quoted\"".into(),
            delay_millis: 0.0,
        },
        SpecAction::TypeText {
            text: "slow".into(),
            delay_millis: 20.0,
        },
        SpecAction::PressKey { code: 13.0 },
        SpecAction::PressKey { code: 32.0 },
        SpecAction::ScrollDown {
            origin: at,
            distance: 300.0,
        },
        SpecAction::ScrollUp {
            origin: at,
            distance: 120.0,
        },
        SpecAction::SetFileInputFiles {
            selector: "#avatar".into(),
            files: vec!["fixtures/cat.png".into()],
        },
        SpecAction::MouseDrag {
            from: at,
            to: Point { x: 400.0, y: 95.5 },
            steps: 5.0,
            delay_millis: 0.0,
        },
        SpecAction::SetViewport {
            width: 390.0,
            height: 844.0,
        },
        SpecAction::Back,
        SpecAction::Forward,
        SpecAction::Reload,
        SpecAction::Wait,
    ];
    let steps = actions
        .iter()
        .map(|a| TraceStep {
            action: a.to_action(),
            element: None,
            url: format!("{START}props/canvas/bad"),
        })
        .collect();
    let t = trace(
        Expected {
            kind: "exception".into(),
            signature: "exception|boom".into(),
            message: "Uncaught Error: boom".into(),
        },
        ReplaySetup {
            start_url: format!("{START}props/canvas/bad"),
            ..ReplaySetup::default()
        },
        steps,
    );
    let (dir, _) = export(
        vec![NamedTrace {
            name: "generated".into(),
            trace: t,
        }],
        &PlaywrightOptions::default(),
    );
    insta::assert_snapshot!(
        "spec-actions.spec.ts",
        read(&dir, "tests/generated.spec.ts")
    );
}

#[test]
fn exporting_nothing_writes_nothing() {
    let (dir, files) = export(vec![], &PlaywrightOptions::default());
    assert!(files.is_empty());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_bad_start_url_names_the_trace() {
    let mut t = owner_email_500();
    t.setup.start_url = "not a url".into();
    let dir = tempfile::tempdir().unwrap();
    let e = playwright(
        &[NamedTrace {
            name: "t1".into(),
            trace: t,
        }],
        &PlaywrightOptions::default(),
        dir.path(),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("trace t1: start URL \"not a url\""),
        "{e}"
    );
}

#[test]
fn a_feature_spec_checks_where_the_feature_ends() {
    let mut trace = owner_email_500();
    trace.expected = Expected {
        kind: "feature".into(),
        signature: String::new(),
        message: "Add Owner".into(),
    };
    let start = trace.setup.start_url.clone();
    let end = url::Url::parse(&start)
        .unwrap()
        .join("/owners/12?x=1")
        .unwrap();
    let spec = FeatureSpec {
        name: "add-owner".into(),
        trace,
        check: FeatureCheck {
            label: "Add Owner".into(),
            score: 2.77,
            end_url: end.to_string(),
            end_title: "Owner 12 · PetClinic".into(),
            also: vec!["Find owners".into()],
        },
    };
    let dir = tempfile::tempdir().unwrap();
    let files = playwright_features(&[spec], &PlaywrightOptions::default(), dir.path()).unwrap();
    assert_eq!(files.len(), 4);
    let text = std::fs::read_to_string(dir.path().join("tests/add-owner.spec.ts")).unwrap();
    assert!(text.contains("test('feature: Add Owner'"), "{text}");
    assert!(
        text.contains(r"await expect(page).toHaveURL(new RegExp('/owners/\\d+\\?x=\\d+$'));"),
        "{text}"
    );
    insta::assert_snapshot!("feature_add_owner.spec.ts", text);
}
