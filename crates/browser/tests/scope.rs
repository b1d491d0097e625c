//! Scope, proven: a second local server (another origin) counts every request it gets
//! while pages of the first one link to it, post forms to it, open it in a new window,
//! assign `location` to it, redirect to it (302 and meta refresh) and frame it. No
//! document request reaches it and each attempt is recorded as an external navigation;
//! other requests (an image, a fetch) reach it only under `subresources = "allow"`.

mod common;

use std::time::Duration;

use common::server::{html, Reply, TestServer};
use common::*;
use wayfarer_core::config::Subresources;
use wayfarer_core::{Action, ActionKind, Environment, EventKind};

/// The first origin's pages, each attempt behind one control of the start page.
fn first_server(second: &TestServer) -> TestServer {
    let to = |p: &str| second.url(p);
    let index = format!(
        r#"<!doctype html><title>scope</title><body>
<a id="link" href="{link}">a link</a>
<a id="blank" href="{blank}" target="_blank">a new tab</a>
<form id="f" method="post" action="{post}"><input name="q" value="x"><button id="post">post</button></form>
<form id="g" method="get" action="{get}"><button id="get">get</button></form>
<button id="open" onclick="window.open('{popup}')">open</button>
<button id="assign" onclick="location.href = '{assign}'">assign</button>
<a id="redirect" href="/redirect">redirect</a>
<a id="meta" href="/meta">meta refresh</a>
<a id="framed" href="/framed">framed</a>
<a id="sub" href="/sub">subresources</a>
</body>"#,
        link = to("/link"),
        blank = to("/blank"),
        post = to("/post"),
        get = to("/get"),
        popup = to("/popup"),
        assign = to("/assign"),
    );
    let meta = format!(
        r#"<!doctype html><meta http-equiv="refresh" content="0;url={}"><p>leaving</p>"#,
        to("/meta")
    );
    let framed = format!(
        r#"<!doctype html><p>a frame</p><iframe src="{}"></iframe>"#,
        to("/frame")
    );
    let sub = format!(
        r#"<!doctype html><p id="p">sub</p><img src="{}">
<script>fetch('{}').then(() => document.getElementById('p').textContent = 'fetched', () => document.getElementById('p').textContent = 'refused');</script>"#,
        to("/img.png"),
        to("/api")
    );
    TestServer::start(vec![
        ("/", html(index)),
        ("/redirect", Reply::Redirect(to("/redirected"))),
        ("/meta", html(meta)),
        ("/framed", html(framed)),
        ("/sub", html(sub)),
    ])
}

/// The start page's controls, one attempt each.
const CONTROLS: [&str; 10] = [
    "#link",
    "#blank",
    "#post",
    "#get",
    "#open",
    "#assign",
    "#redirect",
    "#meta",
    "#framed",
    "#sub",
];

/// The documents the attempts would load from the second origin.
const DOCUMENTS: [&str; 10] = [
    "/link",
    "/blank",
    "/post",
    "/get",
    "/popup",
    "/assign",
    "/redirected",
    "/meta",
    "/frame",
    "/",
];

/// Click every control of the start page (a reset before each), wait on the page it
/// leads to, and return the second server's hits and the external navigations recorded.
fn attempt_all(sub: Subresources) -> (Vec<String>, Vec<String>) {
    let second = TestServer::start(vec![("/", html("<p>second origin</p>"))]);
    let first = first_server(&second);
    let mut opts = options(&first.url("/"));
    opts.subresources = sub;
    let mut env = launch(opts);
    let mut external = vec![];
    for control in CONTROLS {
        let start = env.reset().expect("the start page loads");
        assert!(start.observation.element(control).is_some(), "{control}");
        let out = env
            .step(&Action::on(ActionKind::Click, control))
            .unwrap_or_else(|e| panic!("{control}: {e}"));
        // A second step lets a refresh, a frame or a fetch of the new page happen.
        std::thread::sleep(Duration::from_millis(500));
        let more = env.observe().ok();
        for e in out
            .events
            .iter()
            .chain(more.iter().flat_map(|m| m.events.iter()))
        {
            if e.kind == EventKind::ExternalNavigation {
                external.push(format!("{control} {}", e.message));
            }
        }
    }
    env.close();
    (second.hits(), external)
}

fn documents_in(hits: &[String]) -> Vec<&String> {
    hits.iter()
        .filter(|h| DOCUMENTS.contains(&h.split('?').next().unwrap_or("")))
        .collect()
}

#[test]
fn no_document_of_another_origin_is_requested_and_each_attempt_is_recorded() {
    let (hits, external) = attempt_all(Subresources::Allow);
    assert!(
        documents_in(&hits).is_empty(),
        "the second origin served documents: {hits:?}"
    );
    // All but the last, which loads subresources, not a document.
    for control in &CONTROLS[..CONTROLS.len() - 1] {
        assert!(
            external
                .iter()
                .any(|e| e.starts_with(&format!("{control} "))),
            "{control}'s attempt is not recorded: {external:#?}"
        );
    }
    // Allowed: the image and the fetch of /sub went out (the policy is not a blanket ban).
    assert!(
        hits.iter().any(|h| h == "/img.png") && hits.iter().any(|h| h == "/api"),
        "{hits:?}"
    );
}

#[test]
fn under_subresources_block_the_other_origin_gets_no_request_at_all() {
    let (hits, _) = attempt_all(Subresources::Block);
    assert!(hits.is_empty(), "the second origin was asked: {hits:?}");
}

#[test]
fn a_frame_of_another_origin_is_blocked_without_keeping_its_page_loading() {
    // TiddlyWiki's YouTube frames: an aborted frame kept the load of its page going
    // until the load timeout, a hang at every reset.
    let second = TestServer::start(vec![("/", html("<p>second origin</p>"))]);
    let first = first_server(&second);
    let mut env = launch(options(&first.url("/framed")));
    let out = env.reset().expect("the framed page loads");
    let said = |kind: EventKind| {
        out.events
            .iter()
            .filter(|e| e.kind == kind)
            .map(|e| e.message.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(said(EventKind::Hang), Vec::<String>::new());
    let frame = said(EventKind::ExternalNavigation);
    assert!(
        frame
            .iter()
            .any(|m| m.starts_with("frame of ") && m.contains("/frame")),
        "{frame:?}"
    );
    env.close();
    // A page's own navigation is still stopped where it was, not shown an error page.
    let mut env = launch(options(&first.url("/")));
    env.reset().unwrap();
    env.step(&Action::on(ActionKind::Click, "#link")).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let out = env.observe().unwrap();
    assert!(
        out.observation.url.starts_with(&first.url("/")),
        "{}",
        out.observation.url
    );
    assert!(out.observation.element("#link").is_some());
    env.close();
    assert!(
        documents_in(&second.hits()).is_empty(),
        "{:?}",
        second.hits()
    );
}
