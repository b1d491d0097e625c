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

/// Elements carrying `data-action-id` and what the scan says makes them actionable.
fn controls(obs: &wayfarer_core::Observation) -> Vec<(String, Vec<String>)> {
    obs.elements
        .iter()
        .filter_map(|e| {
            e.attr("data-action-id")
                .map(|id| (id.to_string(), e.actionable.clone()))
        })
        .collect()
}

#[test]
fn recorded_listeners_make_bare_div_controls_actionable() {
    let server = Server::start(App::Board, ServeOptions::default()).unwrap();
    let mut env = launch(options(&server.url()));
    let out = env.reset().unwrap();
    let tiles: Vec<_> = controls(&out.observation)
        .into_iter()
        .filter(|(id, _)| id == "board.boards.open")
        .collect();
    assert!(!tiles.is_empty(), "{:?}", controls(&out.observation));
    for (_, why) in &tiles {
        assert_eq!(why, &vec!["listener:click".to_string()]);
    }
    let out = goto(&mut env, "/boards/1");
    let title = out
        .observation
        .elements
        .iter()
        .find(|e| e.attr("data-action-id") == Some("board.card.title"))
        .expect("a card title");
    assert!(title.actionable.contains(&"listener:click".to_string()));
    assert!(title.actionable.contains(&"listener:dblclick".to_string()));
    let loc = title.locator.clone();
    let out = env
        .step(&Action::on(ActionKind::DoubleClick, loc.as_str()))
        .unwrap();
    let screen = out.observation.app.as_ref().and_then(|a| a.state.clone());
    assert_eq!(screen.as_deref(), Some("board/rename"));

    // An on* property counts until it is cleared; a removed listener no longer counts;
    // a listener on <body> (page-wide delegation) never does.
    env.evaluate(
        "(() => { const mk = (id) => { const d = document.createElement('div'); d.id = id; \
         d.textContent = id; document.body.appendChild(d); return d; }; \
         mk('by-prop').onclick = () => 1; \
         const c = mk('cleared'); c.onmousedown = () => 1; c.onmousedown = null; \
         const f = () => 1; const r = mk('removed'); r.addEventListener('pointerdown', f); \
         r.removeEventListener('pointerdown', f); \
         document.body.addEventListener('click', () => 1); return 1; })()",
    )
    .unwrap();
    let obs = env.observe().unwrap().observation;
    assert_eq!(find(&obs, "#by-prop").actionable, vec!["listener:click"]);
    assert!(find(&obs, "#cleared").actionable.is_empty());
    assert!(find(&obs, "#removed").actionable.is_empty());
    assert!(obs
        .elements
        .iter()
        .filter(|e| e.tag == "body")
        .all(|e| e.actionable.is_empty()));
    env.close();

    // Turned off, the same controls are invisible again.
    let mut o = options(&server.url());
    o.actions.listeners = false;
    let mut env = launch(o);
    let out = env.reset().unwrap();
    let found = controls(&out.observation);
    assert!(found.iter().any(|(id, _)| id == "board.boards.open"));
    assert!(found.iter().all(|(_, why)| why.is_empty()), "{found:?}");
    env.close();

    // With event delegation nothing on the control says it acts, listeners or not.
    let server = Server::start(App::BoardDelegated, ServeOptions::default()).unwrap();
    let mut env = launch(options(&server.url()));
    env.reset().unwrap();
    let out = goto(&mut env, "/boards/1");
    let found = controls(&out.observation);
    assert!(found.iter().any(|(id, _)| id == "board.card.title"));
    assert!(found.iter().all(|(_, why)| why.is_empty()), "{found:?}");
    // ... and yet they work: a real click on a title selects the card.
    let title = out
        .observation
        .elements
        .iter()
        .find(|e| e.attr("data-action-id") == Some("board.card.title"))
        .unwrap()
        .locator
        .clone();
    let out = env
        .step(&Action::on(ActionKind::DoubleClick, title.as_str()))
        .unwrap();
    let screen = out.observation.app.as_ref().and_then(|a| a.state.clone());
    assert_eq!(screen.as_deref(), Some("board/rename"));
    env.close();
}

/// WebRLED's simplified HTML of real pages (text masked, repeated siblings collapsed with
/// a count): what the `embedding` abstraction and webrled's state vector are made of.
#[test]
fn simplified_html_of_the_test_apps() {
    let pages: &[(App, &str, &str)] = &[
        (App::Clinic, "/owners?lastName=", "clinic_owners"),
        (App::Expense, "/login", "expense_login"),
        (App::Board, "/boards/1", "board_board"),
    ];
    for (app, path, name) in pages {
        let server = Server::start(*app, ServeOptions::default()).unwrap();
        let mut env = launch(options(&server.url()));
        env.reset().unwrap();
        let out = goto(&mut env, path);
        let simple =
            wayfarer_core::embed::render(&wayfarer_core::embed::simplify(&out.observation.html));
        insta::assert_snapshot!(*name, simple);
        env.close();
    }
}
