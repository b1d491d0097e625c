//! A replay finds a recorded step's element as the exported test would (role and name
//! before the CSS path): a shortcut that changes the page (one more link in the menu, as
//! after a login) moves an `nth-of-type` path, not the element the step acted on.

mod common;

use common::server::{html, TestServer};
use common::*;
use wayfarer_core::config::OracleConfig;
use wayfarer_core::replay::{replay, Replay};
use wayfarer_core::trace::{Chosen, ElementHint, LocatorKind, NameSource, TraceStep};
use wayfarer_core::{Action, ActionKind, Environment, Oracles};

/// The path of "Reports" when it was recorded: the third link of the menu.
const RECORDED: &str = "html > body > header > nav > a:nth-of-type(3)";

fn page(title: &str, nav: &[(&str, &str)], footer: &str) -> String {
    let links: String = nav
        .iter()
        .map(|(href, name)| format!("<a href=\"{href}\">{name}</a>"))
        .collect();
    format!(
        "<!doctype html><html><head><title>{title}</title></head><body>\
         <header><nav>{links}</nav></header><main><h1>{title}</h1></main>\
         <footer>{footer}</footer></body></html>"
    )
}

/// Replay a click on "Reports" as recorded (named by the tree, with a namesake in the
/// footer, so its locator was the CSS path) against the page at `start`.
fn replay_reports(srv: &TestServer, start: &str) -> Replay {
    let step = TraceStep {
        action: Action::on(ActionKind::Click, RECORDED),
        element: Some(ElementHint {
            tag: "a".into(),
            role: Some("link".into()),
            name: "Reports".into(),
            text: "Reports".into(),
            attrs: [("href".to_string(), "/reports".to_string())].into(),
            same_name: 2,
            source: NameSource::Tree,
            locator: Some(Chosen {
                kind: LocatorKind::Css,
                by: String::new(),
                value: String::new(),
                verified: true,
            }),
            ..ElementHint::default()
        }),
        url: srv.url(start),
    };
    let oracles = Oracles::new(OracleConfig::default(), vec![]).unwrap();
    let mut env = launch(options(&srv.url(start)));
    let r = replay(&mut env, &[step], &oracles, "none", false).expect("no fatal error");
    env.close();
    r
}

/// The pages: a menu with one more link before "Reports" (as after a login), a shorter
/// one, one without "Reports"; a namesake in the footer of the first.
fn serve() -> TestServer {
    let footer = "<a href=\"/reports?from=footer\">Reports</a>";
    let menu = [
        ("/", "Home"),
        ("/dashboard", "Dashboard"),
        ("/expenses", "Expenses"),
        ("/reports", "Reports"),
    ];
    TestServer::start(vec![
        ("/", html(page("Home", &menu, footer))),
        (
            "/short",
            html(page("Short", &[("/", "Home"), ("/reports", "Reports")], "")),
        ),
        (
            "/guest",
            html(page(
                "Guest",
                &[
                    ("/", "Home"),
                    ("/login", "Log in"),
                    ("/expenses", "Expenses"),
                ],
                "",
            )),
        ),
        ("/reports", html(page("Reports", &[], ""))),
        ("/expenses", html(page("Expenses", &[], ""))),
    ])
}

#[test]
fn a_replay_clicks_the_recorded_link_where_its_path_moved() {
    let srv = serve();
    // The path finds "Expenses" now; "Reports" has a namesake in the footer.
    let r = replay_reports(&srv, "/");
    assert_eq!((r.performed, &r.blocked), (1, &None), "{r:?}");
    // The menu's "Reports" (the first of the two), not the footer's, not "Expenses".
    assert_eq!(r.urls.last().unwrap(), &srv.url("/reports"), "{r:?}");
}

#[test]
fn a_replay_clicks_the_recorded_link_where_its_path_finds_nothing() {
    let srv = serve();
    let r = replay_reports(&srv, "/short");
    assert_eq!(r.blocked, None, "{r:?}");
    assert_eq!(r.urls.last().unwrap(), &srv.url("/reports"), "{r:?}");
}

#[test]
fn a_replay_fails_where_the_recorded_link_is_gone() {
    let srv = serve();
    // The path finds "Expenses": the replay stops rather than click it instead.
    let r = replay_reports(&srv, "/guest");
    assert_eq!(r.performed, 0, "{r:?}");
    let (_, why) = r.blocked.clone().expect("blocked");
    assert!(why.contains("link \"Reports\" finds nothing"), "{why}");
}
