//! HTTP tests of the splitter: the page shell, its JSON API, the DD.MM.YYYY date rule and
//! the server-side seeded bug; plus static checks of its bugs, grammar and ground truth.

mod support;

use std::collections::HashSet;

use regex::Regex;
use serde_json::{json, Value};
use support::{Client, Resp};
use wayfarer_testapps::{feature_grammar, ground_truth, seeded_bugs, App, Server};

fn start(bugs: bool) -> Server {
    support::start(App::Splitter, bugs)
}

fn post_json(c: &mut Client, path: &str, body: &Value) -> Resp {
    c.request("POST", path, Some(body.to_string()))
}

fn parse(r: &Resp) -> Value {
    serde_json::from_str(&r.body).unwrap_or_else(|e| panic!("{e}: {}", r.body))
}

fn tx(description: &str, amount: &str, date: &str) -> Value {
    json!({"description": description, "amount": amount, "date": date, "payer": 0, "participants": [0, 1, 2]})
}

/// The inline error of field `f` of a 400 answer.
fn error_of(r: &Resp, f: &str) -> String {
    assert_eq!(r.status, 400, "{}", r.body);
    parse(r)["errors"][f]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn shell_is_instrumented() {
    for bugs in [true, false] {
        let s = start(bugs);
        let mut c = Client::new(s.addr());
        let r = c.get("/");
        assert_eq!(r.status, 200);
        assert!(r.header("content-type").unwrap().starts_with("text/html"));
        let b = &r.body;
        assert!(b.contains("<body data-wf-state="));
        assert!(b.contains(&format!("window.WF_BUGS = {bugs};")));
        let wf = b.find("/static/wf.js").expect("wf.js");
        assert!(wf < b.find("/static/splitter/core.js").expect("app script"));
        assert!(b.contains("\"name\":\"Ski trip\""), "groups are inlined");
        for id in [
            "splitter.nav.home",
            "splitter.groups.new",
            "splitter.group.settle",
        ] {
            assert!(b.contains(&format!("data-action-id=\"{id}\"")), "{id}");
        }
        for p in ["core.js", "screens.js", "forms.js", "splitter.js"] {
            let r = c.get(&format!("/static/splitter/{p}"));
            assert_eq!(r.status, 200, "{p}");
            assert!(r.header("content-type").unwrap().contains("javascript"));
            assert!(!r.body.contains("Math.random") && !r.body.contains("Date.now"));
        }
        assert_eq!(c.get("/static/splitter/splitter.css").status, 200);
        assert_eq!(c.get("/static/wf.js").status, 200);
        assert_eq!(c.get("/no/such/page").status, 404);
        assert_eq!(c.get("/api/groups/99").status, 404);
    }
}

#[test]
fn sample_data_and_sessions() {
    let s = start(true);
    let mut a = Client::new(s.addr());
    let mut b = Client::new(s.addr());
    let groups = parse(&a.get("/api/groups"));
    assert_eq!(groups[0]["name"], "Ski trip");
    assert_eq!(groups[0]["members"], json!(["Ann", "Ben", "Cleo"]));
    assert_eq!(groups[1]["name"], "Flat share");
    let ski = parse(&a.get("/api/groups/1"));
    assert_eq!(ski["transactions"].as_array().unwrap().len(), 4);
    assert_eq!(ski["transactions"][0]["date"], "10.03.2024");
    assert_eq!(ski["balances"], json!([11100, -2400, -8700]));
    assert_eq!(
        ski["transfers"],
        json!([{"from": 2, "to": 0, "cents": 8700}, {"from": 1, "to": 0, "cents": 2400}])
    );
    b.get("/");
    assert!(a.cookie.is_some() && b.cookie.is_some() && a.cookie != b.cookie);
    let r = post_json(
        &mut a,
        "/api/groups/1/transactions",
        &tx("Alpha", "9", "14.03.2024"),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(parse(&r)["transactions"][4]["description"], "Alpha");
    assert!(a.get("/api/groups/1").body.contains("Alpha"));
    assert!(!b.get("/api/groups/1").body.contains("Alpha"));
    assert!(!Client::new(s.addr())
        .get("/api/groups/1")
        .body
        .contains("Alpha"));
    // The same requests give the same answers in two sessions.
    let again = parse(&post_json(
        &mut b,
        "/api/groups/1/transactions",
        &tx("Alpha", "9", "14.03.2024"),
    ));
    assert_eq!(again, parse(&a.get("/api/groups/1")));
    assert!(a
        .get("/__wf/actions")
        .body
        .contains("splitter.tx_form.submit"));
}

#[test]
fn dates_must_be_dd_mm_yyyy() {
    for bugs in [true, false] {
        let s = start(bugs);
        let mut c = Client::new(s.addr());
        let url = "/api/groups/1/transactions";
        for (date, msg) in [
            ("2024-03-15", "Use the format DD.MM.YYYY"),
            ("15/03/2024", "Use the format DD.MM.YYYY"),
            ("15.3.2024", "Use the format DD.MM.YYYY"),
            ("", "Date is required"),
            ("31.02.2024", "There is no such day: 31.02.2024"),
            ("31.04.2024", "There is no such day"),
            ("15.03.1999", "between 2000 and 2099"),
        ] {
            let r = post_json(&mut c, url, &tx("Lunch", "12.50", date));
            assert!(error_of(&r, "date").contains(msg), "{date}: {}", r.body);
        }
        let r = post_json(&mut c, url, &tx("Lunch", "12.50", "29.02.2024"));
        assert_eq!(r.status, 200, "leap day of a leap year: {}", r.body);
        let g = parse(&r);
        let last = &g["transactions"][4];
        assert_eq!(
            (last["date"].as_str(), last["cents"].as_i64()),
            (Some("29.02.2024"), Some(1250))
        );
        // Editing never accepts a date after today.
        let r = post_json(
            &mut c,
            "/api/groups/1/transactions/1",
            &tx("Chalet", "300", "16.03.2024"),
        );
        assert!(error_of(&r, "date").contains("must not be after today, 15.03.2024"));
        // Creating accepts one only with the seeded bug on.
        let r = post_json(&mut c, url, &tx("Later", "5", "20.03.2024"));
        if bugs {
            assert_eq!(r.status, 200);
        } else {
            assert!(error_of(&r, "date").contains("must not be after today"));
        }
    }
}

#[test]
fn leap_day_of_a_common_year_is_500_only_with_bugs() {
    for bugs in [true, false] {
        let s = start(bugs);
        let mut c = Client::new(s.addr());
        for url in ["/api/groups/1/transactions", "/api/groups/1/transactions/1"] {
            let r = post_json(&mut c, url, &tx("Chalet", "300", "29.02.2023"));
            if bugs {
                assert_eq!(r.status, 500, "{url}");
                assert!(r.body.contains("Internal Server Error"));
            } else {
                let m = error_of(&r, "date");
                assert!(m.contains("29.02.2023 (2023 is not a leap year)"), "{m}");
            }
        }
        assert_eq!(
            parse(&c.get("/api/groups/1"))["transactions"][0]["date"],
            "10.03.2024"
        );
    }
}

#[test]
fn other_fields_are_validated() {
    let s = start(false);
    let mut c = Client::new(s.addr());
    let url = "/api/groups/1/transactions";
    for amount in ["1e3", "0", "-3", "1.234", "abc", ""] {
        let r = post_json(&mut c, url, &tx("Lunch", amount, "15.03.2024"));
        assert!(!error_of(&r, "amount").is_empty(), "{amount}");
    }
    let long = "x".repeat(201);
    let r = post_json(&mut c, url, &tx(&long, "3", "15.03.2024"));
    assert!(error_of(&r, "description").contains("at most 200 characters"));
    let r = post_json(
        &mut c,
        url,
        &json!({"description": " ", "amount": "3", "date": "15.03.2024", "participants": []}),
    );
    assert_eq!(error_of(&r, "description"), "Description is required");
    assert_eq!(error_of(&r, "payer"), "Choose who paid");
    assert_eq!(
        error_of(&r, "participants"),
        "Choose at least one participant"
    );
    let r = post_json(
        &mut c,
        url,
        &json!({"description": "x", "amount": "3", "date": "15.03.2024", "payer": 7, "participants": [0]}),
    );
    assert_eq!(error_of(&r, "payer"), "Unknown member");
    let r = c.request("POST", url, Some("{not json".into()));
    assert_eq!(error_of(&r, "form"), "Malformed request");
    assert_eq!(
        post_json(
            &mut c,
            "/api/groups/9/transactions",
            &tx("a", "1", "15.03.2024")
        )
        .status,
        404
    );
}

#[test]
fn groups_transactions_and_payments() {
    let s = start(true);
    let mut c = Client::new(s.addr());
    let r = post_json(
        &mut c,
        "/api/groups",
        &json!({"name": " ", "members": ["Zoe", ""]}),
    );
    assert_eq!(error_of(&r, "name"), "Group name is required");
    assert_eq!(error_of(&r, "members"), "Add at least two members");
    let r = post_json(
        &mut c,
        "/api/groups",
        &json!({"name": "Club", "members": ["Zoe", "zoe"]}),
    );
    assert_eq!(error_of(&r, "members"), "Member names must be different");
    let r = post_json(
        &mut c,
        "/api/groups",
        &json!({"name": "Book club", "members": ["Zoe", "", " Yan "]}),
    );
    let g = parse(&r);
    assert_eq!(
        (g["id"].as_i64(), &g["members"]),
        (Some(3), &json!(["Zoe", "Yan"]))
    );
    assert_eq!(g["transactions"], json!([]));
    assert_eq!(parse(&c.get("/api/groups")).as_array().unwrap().len(), 3);
    // Delete the Flat share's only transaction: nothing left to settle.
    let g = parse(&c.request("POST", "/api/groups/2/transactions/5/delete", None));
    assert_eq!(
        (&g["transactions"], &g["balances"]),
        (&json!([]), &json!([0, 0]))
    );
    assert_eq!(
        c.request("POST", "/api/groups/2/transactions/5/delete", None)
            .status,
        404
    );
    // Recording both suggested payments settles the Ski trip.
    for (from, to, cents) in [(2, 0, 8700), (1, 0, 2400)] {
        let r = post_json(
            &mut c,
            "/api/groups/1/payments",
            &json!({"from": from, "to": to, "cents": cents}),
        );
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let g = parse(&c.get("/api/groups/1"));
    assert_eq!(
        (&g["balances"], &g["transfers"]),
        (&json!([0, 0, 0]), &json!([]))
    );
    let pay = &g["transactions"][4];
    assert_eq!(
        (pay["kind"].as_str(), pay["description"].as_str()),
        (Some("payment"), Some("Payment to Ann"))
    );
    assert_eq!(pay["date"], "15.03.2024");
    let r = post_json(
        &mut c,
        "/api/groups/1/payments",
        &json!({"from": 1, "to": 1, "cents": 5}),
    );
    assert_eq!(r.status, 400);
    // Editing keeps id and kind.
    let r = post_json(
        &mut c,
        "/api/groups/1/transactions/2",
        &json!({"description": "Lifts", "amount": "99.99", "date": "11.03.2024", "payer": 1, "participants": [1, 1, 0]}),
    );
    let t = &parse(&r)["transactions"][1];
    assert_eq!(
        (t["id"].as_i64(), t["cents"].as_i64()),
        (Some(2), Some(9999))
    );
    assert_eq!(t["participants"], json!([0, 1]));
    let log = c.get("/__wf/actions").body;
    for id in [
        "splitter.group_form.submit",
        "splitter.tx.delete",
        "splitter.settle.mark_paid",
        "splitter.tx.save",
    ] {
        assert!(log.contains(id), "{id}");
    }
}

fn grammar() -> Vec<(String, Regex)> {
    feature_grammar(App::Splitter)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (name, re) = l.split_once(':').unwrap();
            (name.trim().to_string(), Regex::new(re.trim()).unwrap())
        })
        .collect()
}

#[test]
fn bugs_truth_and_grammar_agree() {
    let bugs = seeded_bugs(App::Splitter);
    assert_eq!(bugs.len(), 4);
    let sources: String = [
        "src/splitter/api.rs",
        "assets/splitter/screens.js",
        "assets/splitter/forms.js",
    ]
    .iter()
    .map(|p| std::fs::read_to_string(format!("{}/{p}", env!("CARGO_MANIFEST_DIR"))).unwrap())
    .collect();
    let truth = ground_truth(App::Splitter).unwrap();
    let actions: HashSet<&str> = truth.actions.iter().copied().collect();
    for b in bugs {
        assert_eq!(b.steps.len() as u32, b.min_actions, "{}", b.id);
        assert!(
            sources.contains(&format!("SEEDED BUG {}", b.id)),
            "{}",
            b.id
        );
        assert!(
            b.steps.iter().all(|s| actions.contains(s.action_id)),
            "{}",
            b.id
        );
    }
    assert!(bugs.iter().any(|b| b.min_actions >= 8));
    let features = grammar();
    assert!((8..=12).contains(&features.len()));
    // The tour uses every action; its logs cover every feature.
    let used: HashSet<&str> = truth
        .tour
        .iter()
        .flat_map(|w| w.iter().filter(|s| s.has_control()).map(|s| s.action_id))
        .collect();
    assert_eq!(used, actions);
    let logs: Vec<String> = truth
        .tour
        .iter()
        .map(|w| {
            w.iter()
                .filter(|s| s.has_control())
                .map(|s| s.action_id)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    for (name, re) in &features {
        assert!(logs.iter().any(|l| re.is_match(l)), "tour covers {name}");
        let case = truth
            .feature_cases
            .iter()
            .find(|c| c.feature == name)
            .expect(name);
        assert!(re.is_match(case.covers), "{name} covers");
        assert!(!re.is_match(case.misses), "{name} misses");
        // Narrowly: the miss shares at least half of its ids with the cover.
        let misses: Vec<&str> = case.misses.split(' ').collect();
        let shared = misses
            .iter()
            .filter(|m| case.covers.split(' ').any(|c| c == **m))
            .count();
        assert!(
            shared * 2 >= misses.len(),
            "{name}: the miss is not near the cover"
        );
    }
    assert_eq!(truth.feature_cases.len(), features.len());
    let id_shape = Regex::new(r"^splitter\.[a-z0-9_]+\.[a-z0-9_]+$").unwrap();
    for id in &actions {
        assert!(id_shape.is_match(id), "{id}");
    }
}
