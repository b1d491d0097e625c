//! The Ruby reader against the bundled Ruby server: Ruby's Coverage in the server's
//! process writes when asked; the lines a request runs are in the take after it, once.

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

/// The notes app, its coverage prepared.
fn start(dir: &Path) -> (Server, Filter, u16) {
    let port = free_port().unwrap();
    let filter = Filter::new(&[], &[], &servers()).unwrap();
    let prepared = prepare(Stack::Ruby, &[], dir, &filter).unwrap();
    let server = Server::start(ServerSpec {
        command: format!("exec ruby {}/notes.rb {port}", servers().display()),
        ready: Ready::Output(Regex::new("^notes: http").unwrap()),
        timeout: Duration::from_secs(20),
        env: prepared.env,
        cwd: None,
        log: dir.join("server.log"),
        stop_timeout: Duration::from_secs(3),
        filter: None,
    })
    .unwrap();
    (server, filter, port)
}

#[test]
fn each_request_runs_its_new_lines_once_in_the_take_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let (server, filter, port) = start(dir.path());
    let mut reader = attach(Stack::Ruby, server.output_since_start(), dir.path(), filter).unwrap();
    // Coverage runs from before the app was required: its top level is in.
    let start = reader.take().unwrap();
    assert!(start > 15, "{start}");
    assert_eq!(get(port, "/"), Some(200));
    assert!(reader.take().unwrap() > 0, "home() ran");
    reader.mark_first_load();
    assert_eq!(get(port, "/report"), None, "a 500");
    let report = reader.take().unwrap();
    assert!(report >= 3, "report and average_length ran: {report}");
    assert_eq!(get(port, "/report"), None);
    assert_eq!(reader.take().unwrap(), 0, "nothing new the second time");
    let c = reader.coverage();
    assert_eq!(c.stack, "ruby");
    assert!(c.lines_covered < c.lines_total, "{c:?}: note() never ran");
    assert_eq!((c.files, c.files_run), (1, 1), "{c:?}");
    assert!(reader.by_file()[0]
        .path
        .ends_with("testapps/servers/notes_app.rb"));
    drop(server);
}
