//! Smoke test against the project's own hazards application (wayfarer-testapps).

mod common;

use common::*;
use wayfarer_core::{Action, ActionKind, Environment, EventKind, Outcome};
use wayfarer_testapps::{App, ServeOptions, Server};

fn goto(env: &mut wayfarer_browser::BrowserEnv, path: &str) -> Outcome {
    env.step(&Action {
        kind: ActionKind::Navigate,
        target: None,
        value: Some(path.into()),
    })
    .unwrap()
}

fn click(env: &mut wayfarer_browser::BrowserEnv, loc: &str) -> Outcome {
    env.step(&Action::on(ActionKind::Click, loc)).unwrap()
}

#[test]
fn hazards_app_pages_behave() {
    let server = Server::start(App::Hazards, ServeOptions::default()).unwrap();
    let mut env = launch(options(&server.url()));
    let out = env.reset().unwrap();
    assert!(
        out.observation.element("a[href=\"/frames\"]").is_some()
            || has_text(&out.observation, "Iframe and shadow DOM")
    );

    goto(&mut env, "/frames");
    let out = click(&mut env, "#shadow-host >>> #shadow-button");
    assert!(has_text(&out.observation, "Shadow button clicked"));
    let out = click(&mut env, "#frame >>> #inner-button");
    assert!(has_text(&out.observation, "Inner button clicked"));

    goto(&mut env, "/dialogs");
    let out = click(&mut env, "#confirm");
    assert!(has_text(&out.observation, "confirm: true"));
    assert_eq!(events_of(&out.events, EventKind::Dialog).len(), 1);
    let out = click(&mut env, "#prompt");
    assert!(has_text(&out.observation, "prompt:"));
    let out = click(&mut env, "#open");
    assert_eq!(
        events_of(&out.events, EventKind::Popup).len(),
        1,
        "{:?}",
        out.events
    );

    goto(&mut env, "/download");
    let out = click(&mut env, "#download-link");
    assert_eq!(
        events_of(&out.events, EventKind::Download).len(),
        1,
        "{:?}",
        out.events
    );

    goto(&mut env, "/throws");
    let out = click(&mut env, "#throw");
    let ex = events_of(&out.events, EventKind::Exception);
    assert!(
        ex.iter().any(|e| e.message == "Error: hazard boom"),
        "{:?}",
        out.events
    );
    let out = click(&mut env, "#reject");
    assert!(!events_of(&out.events, EventKind::UnhandledRejection).is_empty());

    goto(&mut env, "/external");
    let out = click(&mut env, "#external-link");
    assert_eq!(
        events_of(&out.events, EventKind::ExternalNavigation).len(),
        1
    );
    assert!(out.observation.url.ends_with("/external"));

    let out = goto(&mut env, "/boom");
    assert_eq!(out.observation.status, Some(500));
    assert!(
        out.observation.error_text.is_some(),
        "{}",
        out.observation.html
    );
}

/// Connections the page's session never sees end (a worker's script and its requests, an
/// event stream, a WebSocket) or that stay open by design (a long poll) must not hold the
/// stability wait: each page settles, reports no hang, and a click whose effect arrives
/// over the connection is seen.
#[test]
fn long_lived_connections_do_not_hold_the_wait() {
    let server = Server::start(App::Hazards, ServeOptions::default()).unwrap();
    let mut o = options(&server.url());
    // The defaults a user gets, not the tests' short bounds.
    o.config.stable_timeout_ms = 5_000;
    o.config.load_timeout_ms = 10_000;
    let long = std::time::Duration::from_millis(o.config.long_request_ms);
    let mut env = launch(o);
    env.reset().unwrap();
    for (page, button, effect) in [
        ("/worker", "#worker-ask", "worker answered"),
        ("/events", "#events-mark", "marked"),
        ("/longpoll", "#poll-mark", "marked"),
        ("/socket", "#socket-ask", "server answered"),
    ] {
        let t = std::time::Instant::now();
        let out = goto(&mut env, page);
        let load = t.elapsed();
        assert!(
            events_of(&out.events, EventKind::Hang).is_empty(),
            "{page}: {:?}",
            out.events
        );
        // A long poll holds the wait once, until it is known for one.
        assert!(load < long * 2, "{page} took {load:?} to settle");
        let t = std::time::Instant::now();
        let out = click(&mut env, button);
        let took = t.elapsed();
        assert!(
            events_of(&out.events, EventKind::Hang).is_empty(),
            "{page}: {:?}",
            out.events
        );
        assert!(took < long, "{page}: the click took {took:?}");
        assert!(
            has_text(&out.observation, effect),
            "{page}: {effect:?} not shown"
        );
    }
    // Back to the long poll: its endpoint is known now, the page settles at once.
    let t = std::time::Instant::now();
    goto(&mut env, "/longpoll");
    assert!(t.elapsed() < long, "{:?}", t.elapsed());
}
