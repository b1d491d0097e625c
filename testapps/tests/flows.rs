//! Plain HTTP tests of the application flows: sessions, validation, seeded server bugs.

mod support;

use support::{start, Client};
use wayfarer_testapps::App;

fn demo_login(c: &mut Client) {
    let r = c.post(
        "/login",
        &[("email", "demo@example.com"), ("password", "demo1234")],
    );
    assert_eq!(r.status, 303, "login redirects");
    assert_eq!(r.header("location"), Some("/dashboard"));
}

#[test]
fn sessions_are_isolated_by_cookie() {
    let s = start(App::Expense, true);
    let mut a = Client::new(s.addr());
    let mut b = Client::new(s.addr());
    a.get("/");
    b.get("/");
    assert!(a.cookie.is_some() && b.cookie.is_some());
    assert_ne!(a.cookie, b.cookie);
    demo_login(&mut a);
    demo_login(&mut b);
    let r = a.post(
        "/expenses/new",
        &[
            ("description", "Alpha unique lunch"),
            ("amount", "12.5"),
            ("date", "2024-03-10"),
            ("category", "Food"),
        ],
    );
    assert_eq!(r.status, 303);
    let dash_a = a.get("/dashboard").body;
    assert!(dash_a.contains("Alpha unique lunch") && dash_a.contains("$12.50"));
    assert!(!b.get("/dashboard").body.contains("Alpha unique lunch"));
    // A cookie-less request is a fresh app: not logged in.
    let mut fresh = Client::new(s.addr());
    assert_eq!(fresh.get("/dashboard").status, 303);
    // The server-side action log is per session too.
    assert!(a
        .get("/__wf/actions")
        .body
        .contains("expense.expense_new.submit"));
    assert!(!b
        .get("/__wf/actions")
        .body
        .contains("expense.expense_new.submit"));
}

#[test]
fn same_steps_give_the_same_page() {
    let s = start(App::Expense, true);
    let mut pages = Vec::new();
    for _ in 0..2 {
        let mut c = Client::new(s.addr());
        demo_login(&mut c);
        c.post("/expenses/2/delete", &[]);
        pages.push((
            c.get("/dashboard").body,
            c.get("/reports").body,
            c.get("/wizard").body,
        ));
    }
    assert!(pages[0] == pages[1]);
    assert!(
        pages[0].0.contains("Deleted \u{201c}Groceries")
            && !pages[0].0.contains("<td>Groceries</td>")
    );
}

#[test]
fn expense_validation_is_inline() {
    let s = start(App::Expense, true);
    let mut c = Client::new(s.addr());
    demo_login(&mut c);
    let r = c.post(
        "/expenses/new",
        &[
            ("description", ""),
            ("amount", "-3"),
            ("date", "x"),
            ("category", "Food"),
        ],
    );
    assert_eq!(r.status, 200);
    for m in [
        "Description is required",
        "Amount must be",
        "Date must look like",
    ] {
        assert!(r.body.contains(m), "{m}");
    }
    let long = "x".repeat(201);
    let r = c.post(
        "/expenses/new",
        &[
            ("description", &long),
            ("amount", "3"),
            ("date", "2024-03-01"),
            ("category", "Food"),
        ],
    );
    assert!(r.body.contains("at most 200 characters"));
    let r = c.post(
        "/login",
        &[("email", "demo@example.com"), ("password", "nope")],
    );
    assert!(r.body.contains("Invalid e-mail or password") || r.status == 303);
}

#[test]
fn malformed_email_500_only_with_bugs() {
    for bugs in [true, false] {
        let s = start(App::Expense, bugs);
        let mut c = Client::new(s.addr());
        let r = c.post(
            "/register",
            &[
                ("name", "Ann"),
                ("email", "a@b"),
                ("password", "secret123"),
                ("confirm", "secret123"),
            ],
        );
        if bugs {
            assert_eq!(r.status, 500);
            assert!(r.body.contains("Internal Server Error"));
        } else {
            assert_eq!(r.status, 200);
            assert!(r.body.contains("Enter a valid e-mail address"));
            assert!(!r.body.contains("Internal Server Error"));
        }
        // A good registration works in both builds and logs the user in.
        let r = c.post(
            "/register",
            &[
                ("name", "Ann"),
                ("email", "ann@example.com"),
                ("password", "secret123"),
                ("confirm", "secret123"),
            ],
        );
        assert_eq!(r.header("location"), Some("/dashboard"));
        assert!(c.get("/dashboard").body.contains("No expenses yet"));

        let s = start(App::Clinic, bugs);
        let mut c = Client::new(s.addr());
        let r = c.post("/owners/new", &[("email", "a@b")]);
        if bugs {
            assert_eq!(r.status, 500);
            assert!(r.body.contains("Internal Server Error"));
        } else {
            assert_eq!(r.status, 200);
            assert!(r.body.contains("must be a well-formed e-mail address"));
            assert!(r.body.contains("must not be blank"));
        }
    }
}

#[test]
fn clinic_owners_pets_and_visits() {
    let s = start(App::Clinic, true);
    let mut c = Client::new(s.addr());
    let r = c.get("/owners?lastName=Davis");
    assert_eq!(r.status, 200);
    assert!(r.body.contains("Betty") && r.body.contains("Harold"));
    assert_eq!(
        c.get("/owners?lastName=franklin").header("location"),
        Some("/owners/1")
    );
    assert!(c
        .get("/owners?lastName=Nobody")
        .body
        .contains("has not been found"));
    assert_eq!(
        c.get("/owners?lastName=")
            .body
            .matches("clinic.owners.owner")
            .count(),
        10
    );
    let bad = [
        ("firstName", "Jo"),
        ("lastName", "Doe"),
        ("address", "1 Road"),
        ("city", "Town"),
        ("telephone", "12ab"),
    ];
    assert!(c.post("/owners/new", &bad).body.contains("numeric value"));
    let ok = [
        ("firstName", "Jo"),
        ("lastName", "Doe"),
        ("address", "1 Road"),
        ("city", "Town"),
        ("telephone", "0123456789"),
    ];
    let r = c.post("/owners/new", &ok);
    assert_eq!(r.header("location"), Some("/owners/11"));
    let r = c.post(
        "/owners/11/pets/new",
        &[
            ("name", "Rex"),
            ("birthDate", "2030-01-01"),
            ("type", "dog"),
        ],
    );
    assert!(r.body.contains("must not be in the future"));
    let r = c.post(
        "/owners/11/pets/new",
        &[
            ("name", "Rex"),
            ("birthDate", "2020-01-01"),
            ("type", "dog"),
        ],
    );
    assert_eq!(r.status, 303);
    let detail = c.get("/owners/11").body;
    assert!(detail.contains("Rex") && detail.contains("No visits yet"));
    let visit = c.get("/owners/11/pets/14/visits/new").body;
    assert!(visit.contains("window.PET = {\"name\":\"Rex\",\"visits\":[]}"));
    let r = c.post(
        "/owners/11/pets/14/visits/new",
        &[("date", "2024-03-15"), ("description", "")],
    );
    assert!(r.body.contains("must not be blank"));
    let r = c.post(
        "/owners/11/pets/14/visits/new",
        &[("date", "2024-03-15"), ("description", "checkup")],
    );
    assert_eq!(r.status, 303);
    assert!(c.get("/owners/11").body.contains("checkup"));
    assert!(c.get("/vets").body.contains("data-filter=\"cardiology\""));
}
