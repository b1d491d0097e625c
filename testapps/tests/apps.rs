//! Plain HTTP tests of the fixture applications.

mod support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use support::{start, Client};
use wayfarer_testapps::{App, ServeOptions, Server};

#[test]
fn start_pages_are_served_and_instrumented() {
    for (app, must) in [
        (
            App::Expense,
            [
                "expense.login.email",
                "expense.login.submit",
                "expense.login.demo",
            ],
        ),
        (
            App::Clinic,
            [
                "clinic.nav.home",
                "clinic.nav.find_owners",
                "clinic.nav.vets",
            ],
        ),
        (
            App::Hazards,
            [
                "hazards.index.dialogs",
                "hazards.index.never",
                "hazards.index.xss",
            ],
        ),
    ] {
        let s = start(app, true);
        assert!(s.url().starts_with("http://127.0.0.1:") && s.url().ends_with('/'));
        let mut c = Client::new(s.addr());
        let r = c.get("/");
        assert_eq!(r.status, 200, "{app}");
        assert!(r.header("content-type").unwrap().starts_with("text/html"));
        for id in must {
            assert!(
                r.body.contains(&format!("data-action-id=\"{id}\"")),
                "{app}: {id}"
            );
        }
        assert!(r.body.contains("/static/wf.js"));
        assert_eq!(c.get("/static/wf.js").status, 200);
        assert!(c.get("/static/wf.js").body.contains("__wfActions"));
        assert_eq!(c.get("/favicon.ico").status, 204);
        assert_eq!(c.get("/no/such/page").status, 404);
    }
}

#[test]
fn app_scripts_are_served() {
    let s = start(App::Expense, true);
    let mut c = Client::new(s.addr());
    let js = c.get("/static/expense.js");
    assert_eq!(js.status, 200);
    assert!(js.header("content-type").unwrap().contains("javascript"));
    assert!(js.body.contains("SEEDED BUG expense-wizard-confirm"));
    let s = start(App::Clinic, true);
    let mut c = Client::new(s.addr());
    assert!(c
        .get("/static/clinic.js")
        .body
        .contains("SEEDED BUG clinic-visit-empty-description"));
    assert_eq!(c.get("/static/clinic.css").status, 200);
}

#[test]
fn hazards_pages() {
    let s = start(App::Hazards, true);
    let mut c = Client::new(s.addr());
    let r = c.get("/boom");
    assert_eq!(r.status, 500);
    assert!(r.body.contains("Internal Server Error"));
    let r = c.get("/download/report.csv");
    assert!(r
        .header("content-disposition")
        .unwrap()
        .starts_with("attachment"));
    let r = c.get("/xss");
    assert_eq!(r.status, 200);
    assert!(!r.body.contains("<script>alert(1)") && !r.body.contains("<img src=x"));
    assert!(r.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(r
        .body
        .contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"));
    for p in [
        "/mutating",
        "/dialogs",
        "/popup",
        "/throws",
        "/external",
        "/download",
        "/frames",
        "/frames/inner",
    ] {
        assert_eq!(c.get(p).status, 200, "{p}");
    }
    assert!(c
        .get("/external")
        .body
        .contains("action=\"http://example.invalid/submit\""));
    // /never accepts the request and never answers.
    let mut t = TcpStream::connect(s.addr()).unwrap();
    t.set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    t.write_all(b"GET /never HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut buf = [0u8; 16];
    let e = t.read(&mut buf).expect_err("no answer");
    assert!(matches!(
        e.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
    ));
    // Shutting down does not wait for the hanging request.
    let addr = s.addr();
    s.shutdown();
    assert!(TcpStream::connect(addr).is_err());
}

/// The pages that attack the tester: each is linked from the index and is what it says.
#[test]
fn hostile_hazards_pages() {
    use wayfarer_testapps::hazards::{CROWD_ELEMENTS, HUGE_BYTES};
    let s = start(App::Hazards, true);
    let mut c = Client::new(s.addr());
    let index = c.get("/").body;
    for p in ["crowd", "spin", "redirects", "leaving", "tampered", "huge"] {
        assert!(
            index.contains(&format!(
                "href=\"/{p}\" data-action-id=\"hazards.index.{p}\""
            )),
            "{p}"
        );
    }
    let crowd = c.get("/crowd").body;
    assert_eq!(
        crowd.matches("<button class=\"item\">").count(),
        CROWD_ELEMENTS
    );
    assert!(c.get("/spin").body.contains("onclick=\"while (true) {}\""));
    // The server chain counts up with every hop.
    let r = c.get("/redirects/server?n=7");
    assert_eq!(r.status, 302);
    assert_eq!(r.header("location"), Some("/redirects/server?n=8"));
    let r = c.get("/redirects/client?n=7");
    assert_eq!(r.status, 200);
    assert!(r.body.contains("location.replace('/redirects/client?n=8')"));
    let leaving = c.get("/leaving").body;
    assert!(leaving.contains("addEventListener('beforeunload'") && leaving.contains("confirm("));
    let tampered = c.get("/tampered").body;
    for rewritten in [
        "JSON.stringify = ",
        "Object.keys = ",
        "'addEventListener'",
        "Array.prototype.toJSON = ",
        "Function.prototype.call = ",
    ] {
        assert!(tampered.contains(rewritten), "{rewritten}");
    }
    assert!(c.get("/huge").body.contains("href=\"/huge/stream\""));
    let huge = c.get("/huge/stream");
    assert_eq!(huge.status, 200);
    assert!(huge.body.len() >= HUGE_BYTES, "{}", huge.body.len());
    assert!(huge.body.len() < HUGE_BYTES + 10_000);
    assert!(huge.body.trim_end().ends_with("</html>"));
    assert_eq!(
        huge.body.matches("<p>All work").count(),
        HUGE_BYTES / (64 * 1024)
    );
}

#[test]
fn binds_loopback_only_and_works_inside_a_runtime() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let s = rt.block_on(async { start(App::Clinic, false) });
    assert!(s.addr().ip().is_loopback());
    assert_eq!(s.addr().ip().to_string(), "127.0.0.1");
    assert_eq!(Client::new(s.addr()).get("/").status, 200);
    // A busy fixed port is an error, not a panic.
    assert!(Server::start(
        App::Clinic,
        ServeOptions {
            bugs: true,
            port: s.addr().port(),
            ..Default::default()
        }
    )
    .is_err());
    drop(rt);
    s.shutdown();
}

/// `latency` holds every response back (a sleep never ends early), and changes nothing else.
#[test]
fn a_latency_holds_every_response_back() {
    let s = Server::start(
        App::Clinic,
        ServeOptions {
            latency: Duration::from_millis(120),
            ..Default::default()
        },
    )
    .unwrap();
    let fast = start(App::Clinic, true);
    for path in ["/", "/owners"] {
        let t = std::time::Instant::now();
        let slow = Client::new(s.addr()).get(path);
        assert!(t.elapsed() >= Duration::from_millis(120), "{path}");
        let quick = Client::new(fast.addr()).get(path);
        assert_eq!((slow.status, slow.body), (quick.status, quick.body));
    }
}
