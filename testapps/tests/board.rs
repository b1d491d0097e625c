//! HTTP tests of the task board: sessions, sample data, the JSON API and its validation,
//! the server-side seeded bug, and that no control gives itself away by tag or attribute.

mod support;

use serde_json::Value;
use support::Client;
use wayfarer_testapps::{App, Server};

fn start(bugs: bool) -> Server {
    support::start(App::Board, bugs)
}

fn json(r: &support::Resp) -> Value {
    serde_json::from_str(&r.body).unwrap_or_else(|e| panic!("{e}: {}", r.body))
}

/// (title, column) of the board's cards, in order.
fn cards(c: &mut Client, board: u32) -> Vec<(String, String)> {
    let r = c.get(&format!("/api/boards/{board}"));
    assert_eq!(r.status, 200, "{}", r.body);
    json(&r)["board"]["cards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap_or_default().to_string();
            (s("title"), s("col"))
        })
        .collect()
}

fn add(c: &mut Client, title: &str) -> support::Resp {
    c.post("/api/boards/1/cards", &[("title", title)])
}

fn added_id(r: &support::Resp) -> u32 {
    assert_eq!(r.status, 200, "{}", r.body);
    json(r)["card"]["id"].as_u64().unwrap() as u32
}

/// (path, form fields, expected message) of an invalid request.
type Case<'a> = (&'a str, Vec<(&'a str, &'a str)>, &'a str);

fn pair(t: &str, col: &str) -> (String, String) {
    (t.to_string(), col.to_string())
}

#[test]
fn sessions_are_isolated_and_start_from_the_sample() {
    let s = start(true);
    let mut a = Client::new(s.addr());
    let mut b = Client::new(s.addr());
    assert!(a.get("/").body.contains(">Launch</div>"));
    b.get("/");
    assert!(a.cookie.is_some() && a.cookie != b.cookie);
    let sample = vec![
        pair("Write announcement", "todo"),
        pair("Fix login redirect", "todo"),
        pair("Design landing page", "doing"),
        pair("Set up repository", "done"),
    ];
    assert_eq!(cards(&mut a, 1), sample);
    let r = add(&mut a, "Alpha only #urgent");
    let id = added_id(&r);
    let card = &json(&r)["card"];
    assert_eq!(card["title"], "Alpha only");
    assert_eq!(card["labels"], serde_json::json!(["urgent"]));
    assert!(card["own"].as_bool().unwrap() && card["description"].is_null());
    assert!(cards(&mut a, 1).contains(&pair("Alpha only", "todo")));
    assert_eq!(cards(&mut b, 1), sample);
    // Without a cookie the app is fresh again.
    assert_eq!(cards(&mut Client::new(s.addr()), 1), sample);
    // The server-side action log is per session.
    let r = a.post(&format!("/api/cards/{id}/move"), &[("to", "doing")]);
    assert_eq!(r.status, 200);
    let log = a.get("/__wf/actions").body;
    assert!(log.contains("board.composer.save") && log.contains("board.card.move_right"));
    assert_eq!(b.get("/__wf/actions").body, "[]");
}

#[test]
fn cards_move_sort_archive_and_restore() {
    let s = start(false);
    let mut c = Client::new(s.addr());
    let id = added_id(&add(&mut c, "alpha"));
    for to in ["doing", "done"] {
        let r = c.post(&format!("/api/cards/{id}/move"), &[("to", to)]);
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let r = c.post("/api/boards/1/sort", &[("col", "todo")]);
    assert_eq!(r.status, 200);
    let r = c.post("/api/cards/1/rename", &[("title", "Zed announcement")]);
    assert_eq!(r.status, 200);
    let r = c.post("/api/boards/1/sort", &[("col", "todo")]);
    assert_eq!(r.status, 200);
    assert_eq!(
        cards(&mut c, 1),
        vec![
            pair("Fix login redirect", "todo"),
            pair("Zed announcement", "todo"),
            pair("Design landing page", "doing"),
            pair("Set up repository", "done"),
            pair("alpha", "done"),
        ]
    );
    // Clear Done archives both; the archive page lists them and restores one.
    let r = c.post("/api/boards/1/clear-done", &[]);
    assert_eq!(json(&r)["archived"], 2);
    let page = c.get("/boards/1/archive").body;
    assert!(page.contains("Set up repository") && page.contains(">alpha</span>"));
    assert!(page.contains("data-wf-state=\"archive\""));
    assert_eq!(c.post("/api/cards/4/restore", &[]).status, 200);
    assert!(cards(&mut c, 1).ends_with(&[pair("Set up repository", "done")]));
    assert_eq!(c.post(&format!("/api/cards/{id}/delete"), &[]).status, 200);
    assert!(c
        .get("/boards/1/archive")
        .body
        .contains("id=\"archive-empty\">Nothing archived yet."));
    // Descriptions and the archive of a single card.
    let r = c.post(
        "/api/cards/2/describe",
        &[("description", "  Only on Safari  ")],
    );
    assert_eq!(r.status, 200);
    assert_eq!(c.post("/api/cards/2/archive", &[]).status, 200);
    assert!(!cards(&mut c, 1).contains(&pair("Fix login redirect", "todo")));
    let r = c.get("/api/boards/1");
    assert!(!r.body.contains("Only on Safari"));
    // A new board starts empty and is listed.
    let r = c.post("/api/boards", &[("name", "Roadmap")]);
    assert_eq!(json(&r)["id"], 2);
    assert!(cards(&mut c, 2).is_empty());
    assert!(c.get("/").body.contains(">Roadmap</div>"));
    assert_eq!(c.get("/boards/2").status, 200);
}

#[test]
fn invalid_input_gets_a_400_with_a_message() {
    for bugs in [true, false] {
        let s = start(bugs);
        let mut c = Client::new(s.addr());
        let long = "x".repeat(201);
        let cases: Vec<Case> = vec![
            (
                "/api/boards/1/cards",
                vec![("title", "  ")],
                "Title is required",
            ),
            (
                "/api/boards/1/cards",
                vec![("title", "#docs")],
                "Title is required",
            ),
            ("/api/boards/1/cards", vec![("title", &long)], "at most 200"),
            ("/api/cards/1/rename", vec![("title", &long)], "at most 200"),
            ("/api/cards/1/delete", vec![], "Only cards you created"),
            ("/api/cards/1/move", vec![("to", "later")], "Unknown column"),
            ("/api/boards/1/sort", vec![("col", "")], "Unknown column"),
            ("/api/boards", vec![("name", "")], "Name is required"),
            ("/api/boards", vec![("name", &long[..61])], "at most 60"),
        ];
        for (path, fields, msg) in cases {
            let r = c.post(path, &fields);
            assert_eq!(r.status, 400, "{path} {fields:?}: {}", r.body);
            assert_eq!(json(&r)["ok"], false);
            assert!(r.body.contains(msg), "{path}: {}", r.body);
        }
        assert_eq!(c.post("/api/cards/99/move", &[("to", "done")]).status, 404);
        assert_eq!(c.post("/api/boards/9/cards", &[("title", "x")]).status, 404);
        assert_eq!(c.get("/boards/9").status, 404);
        assert_eq!(cards(&mut c, 1).len(), 4, "nothing changed");
    }
}

#[test]
fn unknown_label_500_only_with_bugs() {
    for bugs in [true, false] {
        let s = start(bugs);
        let mut c = Client::new(s.addr());
        for title in ["#zzz", "Ship #", "Ship it #Docs #zzz"] {
            let r = add(&mut c, title);
            if bugs {
                assert_eq!(r.status, 500, "{title}");
                assert!(r.body.contains("Internal Server Error"));
            } else {
                assert_eq!(r.status, 400, "{title}");
                assert!(r.body.contains("Unknown label #"), "{}", r.body);
                assert!(!r.body.contains("Internal Server Error"));
            }
        }
        // Known labels work in both builds.
        assert_eq!(add(&mut c, "Ship it #Docs").status, 200);
        // The rename half of board-rename-empty: a blank title is stored only with bugs.
        let r = c.post("/api/cards/1/rename", &[("title", "   ")]);
        assert_eq!(r.status, if bugs { 200 } else { 400 }, "{}", r.body);
        assert_eq!(
            cards(&mut c, 1)[0].0,
            if bugs { "" } else { "Write announcement" }
        );
    }
}

#[test]
fn pages_are_instrumented() {
    for bugs in [true, false] {
        let s = start(bugs);
        let mut c = Client::new(s.addr());
        for (path, state) in [
            ("/", "boards"),
            ("/boards/1", "board"),
            ("/boards/1/archive", "archive"),
        ] {
            let r = c.get(path);
            assert_eq!(r.status, 200, "{path}");
            let b = &r.body;
            assert!(b.contains(&format!("data-wf-state=\"{state}\"")), "{path}");
            assert!(b.contains(&format!("window.WF_BUGS = {bugs};")), "{path}");
            let wf = b.find("/static/wf.js").expect("wf.js");
            assert!(
                wf < b.find("/static/board-common.js").unwrap(),
                "wf.js first"
            );
        }
        let page = c.get("/boards/1").body;
        assert!(page.contains("window.BOARD = {") && page.contains("Write announcement"));
        assert!(c
            .get("/")
            .body
            .contains("data-action-id=\"board.boards.open\""));
    }
}

#[test]
fn controls_do_not_give_themselves_away() {
    let s = start(true);
    let mut c = Client::new(s.addr());
    c.post("/api/cards/1/archive", &[]);
    let mut served = Vec::new();
    for path in ["/", "/boards/1", "/boards/1/archive"] {
        served.push((path, c.get(path).body));
    }
    for path in [
        "/static/board-common.js",
        "/static/board-pages.js",
        "/static/board-edit.js",
        "/static/board-view.js",
        "/static/board.css",
    ] {
        let r = c.get(path);
        assert_eq!(r.status, 200, "{path}");
        served.push((path, r.body));
    }
    for (path, body) in &served {
        let lower = body.to_lowercase();
        for bad in [
            "role=",
            "tabindex",
            "onclick",
            "cursor: pointer",
            "cursor:pointer",
            "<a ",
            "<button",
        ] {
            assert!(!lower.contains(bad), "{path} contains {bad:?}");
        }
    }
    // Controls are divs and spans with an id (the board's own are built by the scripts).
    let view = &served
        .iter()
        .find(|(p, _)| *p == "/static/board-view.js")
        .unwrap()
        .1;
    for id in [
        "board.card.move_right",
        "board.card.delete",
        "board.column.menu",
    ] {
        assert!(view.contains(&format!("'{id}'")), "{id}");
    }
    // Renaming is a double click (on the title itself, or delegated in board-delegated).
    assert!(view.contains("B.on(title, 'dblclick'"));
}

#[test]
fn same_steps_give_the_same_board() {
    let s = start(true);
    let mut seen = Vec::new();
    for _ in 0..2 {
        let mut c = Client::new(s.addr());
        let id = added_id(&add(&mut c, "Ship it"));
        c.post(&format!("/api/cards/{id}/move"), &[("to", "done")]);
        c.post("/api/cards/3/rename", &[("title", "Landing page v2")]);
        seen.push((c.get("/boards/1").body, c.get("/").body));
    }
    assert!(seen[0] == seen[1]);
}
