//! The hazards app's check pages (`/checks/{check}/{good,bad}`) as the scan reads them in
//! a real Chromium: the error text a page shows, not the errors its prose mentions, and
//! the probe reading it exactly as the scan does.

mod common;

use std::collections::BTreeSet;

use common::server::{html, TestServer};
use common::*;
use wayfarer_browser::BrowserEnv;
use wayfarer_core::config::OracleConfig;
use wayfarer_core::{Action, ActionKind, Environment, FailureKind, Observation, Oracles};
use wayfarer_testapps::{hazards::CHECK_PAGES, App, ServeOptions, Server};

fn goto(env: &mut BrowserEnv, path: &str) -> Observation {
    env.step(&Action {
        kind: ActionKind::Navigate,
        target: None,
        value: Some(path.into()),
    })
    .unwrap()
    .observation
}

/// Type `code` into the page's cell and run it.
fn run_cell(env: &mut BrowserEnv, code: &str) -> Observation {
    env.step(&Action::on(ActionKind::Type, "#code").with_value(code))
        .unwrap();
    env.step(&Action::on(ActionKind::Click, "#run"))
        .unwrap()
        .observation
}

/// The error_text findings of `obs` for a run that typed `typed`.
fn error_findings(obs: &Observation, typed: &[&str]) -> Vec<wayfarer_core::oracle::Finding> {
    let typed: BTreeSet<String> = typed.iter().map(|t| t.to_string()).collect();
    Oracles::new(OracleConfig::default(), vec![])
        .unwrap()
        .judge_typed(&[], Some(obs), &typed)
        .into_iter()
        .filter(|f| f.kind == FailureKind::ErrorText)
        .collect()
}

#[test]
fn every_check_page_probes_its_error_text_as_the_scan_reads_it() {
    let server = Server::start(App::Hazards, ServeOptions::default()).unwrap();
    let mut env = launch(options(&server.url()));
    env.reset().unwrap();
    for check in CHECK_PAGES {
        for build in ["good", "bad"] {
            let scanned = goto(&mut env, &format!("/checks/{check}/{build}"));
            let probed = env.probe(None).unwrap();
            assert_eq!(probed.error_text, scanned.error_text, "{check}/{build}");
            // Only the error check's bad page shows an error on load.
            let expected = (check, build) == ("error", "bad");
            assert_eq!(
                scanned.error_text.is_some(),
                expected,
                "{check}/{build}: {:?}",
                scanned.error_text
            );
        }
    }
}

#[test]
fn a_wiki_mentioning_errors_and_a_notebook_answering_a_typed_name_are_no_failures() {
    let server = Server::start(App::Hazards, ServeOptions::default()).unwrap();
    let mut env = launch(options(&server.url()));
    env.reset().unwrap();
    // The wiki's prose says "Internal Server Error" and "Traceback" in sentences.
    let wiki = goto(&mut env, "/checks/error/good");
    assert_eq!(wiki.error_text, None);
    // A name typed into the cell and run: the kernel's NameError quotes it.
    let obs = run_cell(&mut env, "grydj9ra");
    let shown = obs.error_text.clone().unwrap_or_default();
    assert!(
        shown.contains("NameError") && shown.contains("grydj9ra"),
        "{shown:?}"
    );
    assert_eq!(error_findings(&obs, &["grydj9ra"]), vec![]);
    // It is the typed value that makes it an echo: untyped, it is a failure.
    assert_eq!(error_findings(&obs, &[]).len(), 1);
}

#[test]
fn an_error_the_page_shows_is_one_failure_whatever_surrounds_it() {
    let server = Server::start(App::Hazards, ServeOptions::default()).unwrap();
    let mut env = launch(options(&server.url()));
    env.reset().unwrap();
    let first = goto(&mut env, "/checks/error/bad");
    let shown = first.error_text.clone().unwrap_or_default();
    // The traceback's block, not the cell echoed above it.
    assert!(
        shown.starts_with("Traceback (most recent call last)"),
        "{shown:?}"
    );
    assert!(
        shown.contains("session.py") && !shown.contains("total(sales)"),
        "{shown:?}"
    );
    // Another cell run: the text around the error changed, the error did not. The
    // kernel's own error quotes nothing typed, so it stays a failure.
    let again = run_cell(&mut env, "grand_total(sales)");
    let (a, b) = (
        error_findings(&first, &[]),
        error_findings(&again, &["grand_total(sales)"]),
    );
    assert_eq!((a.len(), b.len()), (1, 1), "{a:?} {b:?}");
    assert_eq!(a[0].signature, b[0].signature);
}

/// Prose around the snippets of `where_an_error_stands_decides`, so that none of them is
/// most of its page's text.
const PROSE: &str = "<p>Install the package, then point the server at the release and \
restart it. The application needs write access to its cache directory and to the \
uploads; the settings page lists what can change without a restart.</p>\
<p>Sign in with the account made at install time and open the front page.</p>";

#[test]
fn where_an_error_stands_decides_whether_the_page_shows_it() {
    let cases: &[(&str, &str, bool)] = &[
        ("heading", "<h1>500 Internal Server Error</h1>", true),
        (
            "alert",
            "<div role=\"alert\">Saving failed: Internal Server Error</div>",
            true,
        ),
        (
            "danger",
            "<div class=\"alert alert-danger\">Sorry, we hit an Internal Server Error while \
             saving your report.</div>",
            true,
        ),
        ("short-block", "<p>Internal Server Error</p>", true),
        (
            "traceback",
            "<pre>Traceback (most recent call last):\n  File \"app.py\", line 3\nKeyError: 'total'</pre>",
            true,
        ),
        (
            "js-frame",
            "<div>TypeError: x is undefined\n    at render (http://app/app.js:10:5)</div>",
            true,
        ),
        (
            "sentence",
            "<p>Running it under mod_wsgi gave an Internal Server Error on my system. \
             Upgrading to Python 2.6.2 solved this.</p>",
            false,
        ),
        (
            "link-cut",
            "<li>Under <a href=\"#wsgi\">mod_wsgi</a> uploads raised an Unhandled exception \
             when the cache was not writable.</li>",
            false,
        ),
        (
            "callout",
            "<div class=\"alert alert-info\">Note: uploads over the limit gave an Internal \
             Server Error on old releases.</div>",
            false,
        ),
        (
            "quoted",
            "<li>The message \u{201c}Internal Server Error\u{201d} alone says nothing.</li>",
            false,
        ),
        (
            "inline-code",
            "<p>See <code>Traceback (most recent call last)</code> in the log.</p>",
            false,
        ),
    ];
    let mut routes = vec![(
        "/alone",
        html("<p>Sorry, we hit an Internal Server Error while saving your report.</p>"),
    )];
    let paths: Vec<String> = cases.iter().map(|(n, ..)| format!("/{n}")).collect();
    for ((_, snippet, _), path) in cases.iter().zip(&paths) {
        routes.push((
            path.as_str(),
            html(format!("<h1>Docs</h1>{PROSE}{snippet}{PROSE}")),
        ));
    }
    let srv = TestServer::start(routes);
    let mut env = launch(options(&srv.url("/alone")));
    // A page whose text is the error shows it, however it is worded.
    let alone = env.reset().unwrap().observation;
    assert!(alone.error_text.is_some(), "{:?}", alone.html);
    for ((name, _, shows), path) in cases.iter().zip(&paths) {
        let obs = goto(&mut env, path);
        assert_eq!(
            obs.error_text.is_some(),
            *shows,
            "{name}: {:?}",
            obs.error_text
        );
        assert_eq!(
            env.probe(None).unwrap().error_text,
            obs.error_text,
            "{name}"
        );
    }
    // What a heading shows is the heading, not the prose after it.
    let obs = goto(&mut env, "/heading");
    assert_eq!(obs.error_text.as_deref(), Some("500 Internal Server Error"));
}
