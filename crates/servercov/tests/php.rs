//! The PHP reader against the bundled PHP app on PHP's built-in server (a document root:
//! it prepends nothing to a router script): pcov around each request; the lines a request
//! runs are in the take after it, once.

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
    let prepared = prepare(Stack::Php, env, dir, &filter).unwrap();
    let server = Server::start(ServerSpec {
        command: format!(
            "exec php -S 127.0.0.1:{port} -t {}/php",
            servers().display()
        ),
        ready: Ready::Output(Regex::new("Development Server .* started").unwrap()),
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
    let mut reader = attach(Stack::Php, server.output_since_start(), dir.path(), filter).unwrap();
    // No request yet: nothing ran.
    assert_eq!(reader.take().unwrap(), 0);
    assert_eq!(get(port, "/"), Some(200));
    assert!(reader.take().unwrap() > 10, "the script and home() ran");
    reader.mark_first_load();
    assert_eq!(get(port, "/report"), None, "a 500");
    let report = reader.take().unwrap();
    assert!(report >= 3, "report and average_length ran: {report}");
    assert_eq!(get(port, "/report"), None);
    assert_eq!(reader.take().unwrap(), 0, "nothing new the second time");
    let c = reader.coverage();
    assert_eq!(c.stack, "php");
    assert!(c.lines_covered < c.lines_total, "{c:?}: note() never ran");
    assert_eq!((c.files, c.files_run), (1, 1), "{c:?}");
    assert!(reader.by_file()[0]
        .path
        .ends_with("testapps/servers/php/index.php"));
    drop(server);
}

#[test]
fn a_php_without_pcov_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    // Scanning only a folder of its own, the server's PHP loads no pcov (Debian's
    // conf.d is where its ini file lives), but still wayfarer's prepended script.
    let env = [("PHP_INI_SCAN_DIR".to_string(), "/nonexistent".to_string())];
    let work = dir.path().join("work");
    let (server, filter, port) = start(&work, &env);
    assert_eq!(get(port, "/"), Some(200));
    let mut reader = attach(Stack::Php, server.output_since_start(), &work, filter).unwrap();
    let e = reader.take().unwrap_err().to_string();
    assert!(e.contains("pcov is not loaded in the server's PHP"), "{e}");
    assert!(e.contains("apt install php-pcov"), "{e}");
    drop(server);
}
