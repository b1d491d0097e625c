//! The Python reader against the bundled Python server: coverage.py in the server's
//! process saves when asked; the lines a request runs are in the take after it, once.

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

/// The notes app, its coverage prepared (`env`: the server's own).
fn start(dir: &Path, env: &[(String, String)]) -> (Server, Filter, u16) {
    let port = free_port().unwrap();
    let filter = Filter::new(&[], &[], &servers()).unwrap();
    let prepared = prepare(Stack::Python, env, dir, &filter).unwrap();
    let server = Server::start(ServerSpec {
        command: format!("exec python3 {}/notes.py {port}", servers().display()),
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
    let (server, filter, port) = start(dir.path(), &[]);
    let mut reader = attach(
        Stack::Python,
        server.output_since_start(),
        dir.path(),
        filter,
    )
    .unwrap();
    // coverage.py runs from the interpreter's start: the module's top level is in.
    let start = reader.take().unwrap();
    assert!(start > 20, "{start}");
    assert_eq!(get(port, "/"), Some(200));
    assert!(reader.take().unwrap() > 0, "home() ran");
    reader.mark_first_load();
    assert_eq!(get(port, "/report"), None, "a 500");
    let report = reader.take().unwrap();
    assert!(report >= 4, "report() and average_length() ran: {report}");
    assert_eq!(get(port, "/report"), None);
    assert_eq!(reader.take().unwrap(), 0, "nothing new the second time");
    let c = reader.coverage();
    assert_eq!(c.stack, "python");
    assert!(c.lines_covered < c.lines_total, "{c:?}: search() never ran");
    assert_eq!((c.files, c.files_run), (1, 1), "{c:?}");
    assert!(reader.by_file()[0]
        .path
        .ends_with("testapps/servers/notes.py"));
    drop(server);
}

#[test]
fn a_python_without_coverage_py_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    // A server whose own PYTHONPATH has a `coverage` that cannot be imported: what a
    // Python without coverage.py does at `import coverage`.
    let stub = dir.path().join("stub");
    std::fs::create_dir_all(&stub).unwrap();
    std::fs::write(
        stub.join("coverage.py"),
        "raise ImportError('no coverage here')\n",
    )
    .unwrap();
    let env = [("PYTHONPATH".to_string(), stub.display().to_string())];
    let (server, filter, _) = start(&dir.path().join("work"), &env);
    let dir = dir.path().join("work");
    let mut reader = attach(Stack::Python, server.output_since_start(), &dir, filter).unwrap();
    let e = reader.take().unwrap_err().to_string();
    assert!(
        e.contains("coverage.py is not installed in the server's Python"),
        "{e}"
    );
    assert!(e.contains("-m pip install coverage"), "{e}");
    drop(server);
}

#[test]
fn the_sitecustomize_it_shadows_still_runs() {
    let dir = tempfile::tempdir().unwrap();
    let theirs = dir.path().join("theirs");
    std::fs::create_dir_all(&theirs).unwrap();
    let marker = dir.path().join("ran");
    std::fs::write(
        theirs.join("sitecustomize.py"),
        format!(
            "open({:?}, 'w').write('yes')\n",
            marker.display().to_string()
        ),
    )
    .unwrap();
    let env = [("PYTHONPATH".to_string(), theirs.display().to_string())];
    let work = dir.path().join("work");
    let (server, filter, port) = start(&work, &env);
    let mut reader = attach(Stack::Python, server.output_since_start(), &work, filter).unwrap();
    assert!(reader.take().unwrap() > 0, "ours ran");
    assert_eq!(get(port, "/"), Some(200));
    assert_eq!(
        std::fs::read_to_string(&marker).unwrap(),
        "yes",
        "theirs ran too"
    );
    drop(server);
}
