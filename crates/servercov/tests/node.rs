//! The Node reader against the bundled Node server: the lines a request runs are in the
//! take after it, once.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use regex::Regex;
use url::Url;
use wayfarer_process::{answers, free_port, Ready, Server, ServerSpec};
use wayfarer_servercov::{attach, prepare, Filter, Stack};

fn servers() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testapps/servers")
        .canonicalize()
        .unwrap()
}

fn get(port: u16, path: &str) -> Option<u16> {
    let url = Url::parse(&format!("http://127.0.0.1:{port}{path}")).unwrap();
    answers(&url, Instant::now() + Duration::from_secs(5))
}

#[test]
fn each_request_runs_its_new_lines_once_in_the_take_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port().unwrap();
    let filter = Filter::new(&[], &[], &servers()).unwrap();
    let prepared = prepare(Stack::Node, &[], dir.path(), &filter).unwrap();
    let server = Server::start(ServerSpec {
        command: format!("exec node {}/notes.mjs {port}", servers().display()),
        ready: Ready::Output(Regex::new("^notes: http").unwrap()),
        timeout: Duration::from_secs(20),
        env: prepared.env,
        cwd: None,
        log: dir.path().join("server.log"),
        stop_timeout: Duration::from_secs(3),
        filter: None,
    })
    .unwrap();
    let mut reader = attach(Stack::Node, server.output_since_start(), dir.path(), filter).unwrap();
    // Coverage started in the process, before the module loaded: its top level is in.
    let start = reader.take().unwrap();
    assert!(start >= 10, "{start}");
    assert_eq!(get(port, "/"), Some(200));
    let first = reader.take().unwrap();
    assert!(first > 0, "home() ran");
    reader.mark_first_load();

    assert_eq!(
        get(port, "/report"),
        None,
        "a 500 is no answer to `answers`"
    );
    let report = reader.take().unwrap();
    assert!(
        report >= 5,
        "the route, report() and averageLength() ran: {report}"
    );
    assert_eq!(get(port, "/report"), None);
    assert_eq!(reader.take().unwrap(), 0, "nothing new the second time");
    assert_eq!(get(port, "/notes/1"), Some(200));
    assert!(reader.take().unwrap() > 0, "note() ran for the first time");

    let c = reader.coverage();
    assert_eq!(c.stack, "node");
    assert_eq!(c.first_lines_covered, start + first);
    assert!(c.lines_covered < c.lines_total, "{c:?}: search() never ran");
    assert_eq!((c.files, c.files_run, c.reads), (1, 1, 5), "{c:?}");
    let files = reader.by_file();
    assert!(
        files[0].path.ends_with("testapps/servers/notes.mjs"),
        "{files:?}"
    );
    reader.close();
    drop(server);
}

#[test]
fn a_node_process_that_ends_is_let_go_at_the_next_reading() {
    // A process with a debugger attached waits at exit until it leaves: a server's
    // one-off helpers (a token fetch, a build step) must not hang there.
    let dir = tempfile::tempdir().unwrap();
    let filter = Filter::new(&[], &[], dir.path()).unwrap();
    let prepared = prepare(Stack::Node, &[], dir.path(), &filter).unwrap();
    let mut server = Server::start(ServerSpec {
        command: "exec node -e \"console.log('up'); setTimeout(() => {}, 1000)\"".into(),
        ready: Ready::Output(Regex::new("^up").unwrap()),
        timeout: Duration::from_secs(20),
        env: prepared.env,
        cwd: None,
        log: dir.path().join("server.log"),
        stop_timeout: Duration::from_secs(3),
        filter: None,
    })
    .unwrap();
    let mut reader = attach(Stack::Node, server.output_since_start(), dir.path(), filter).unwrap();
    reader.take().unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    reader.take().unwrap();
    let t = Instant::now();
    while server.check().is_ok() {
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "still waiting for its debugger"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
