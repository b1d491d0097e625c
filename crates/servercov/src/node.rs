//! Node: every Node process of the server (children included: `NODE_OPTIONS`) loads a
//! preload that starts V8's precise block coverage in the process before the
//! application's code (binary: a function once reported run is not reported again, so a
//! take is small), and opens its inspector on a loopback port of its own
//! (`--inspect=127.0.0.1:0`), saying where on its stderr. The reader connects to each as
//! it appears and takes its coverage through the preload over the DevTools protocol
//! (without the preload, it starts coverage from outside: what ran before is then lost).
//! Offsets become lines of the script's file.

use std::collections::HashSet;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};
use tungstenite::protocol::WebSocketConfig;
use tungstenite::{Message, WebSocket};
use wayfarer_core::server::{ServerCoverage, ServerFileReach};
use wayfarer_process::OutputCursor;

use crate::lines::JS_COMMENTS;
use crate::{timed, Book, CovError, Filter, Prepared, Reader, Stack};

/// What a Node process prints when its inspector listens.
const LISTENING: &str = "Debugger listening on ";

/// Longest wait for one answer of an inspector (a first take of a large server is tens
/// of megabytes).
const ANSWER: Duration = Duration::from_secs(20);

/// The lines Node's inspector adds to a server's output: not the application's.
pub fn chatter(line: &str) -> bool {
    line.starts_with(LISTENING)
        || line.starts_with("For help, see: https://nodejs.org/en/docs/inspector")
        || line.starts_with("Debugger attached.")
        || line.starts_with("Waiting for the debugger to disconnect")
}

/// What every Node process of the server loads first: coverage started in the process.
const PRELOAD: &str = include_str!("preload.cjs");

/// What the preload defines: the process's coverage since the last take, as JSON.
const TAKE: &str = "typeof globalThis.__wayfarerTakeCoverage === 'function' \
                    ? globalThis.__wayfarerTakeCoverage() : undefined";

/// `NODE_OPTIONS` with the preload and the inspector on a free loopback port, after what
/// the server's configuration or wayfarer's environment already put there.
pub fn prepare(env: &[(String, String)], work: &Path) -> Result<Prepared, CovError> {
    let preload = work.join("wayfarer-coverage.cjs");
    std::fs::create_dir_all(work)
        .and_then(|_| std::fs::write(&preload, PRELOAD))
        .map_err(|e| CovError::Setup(format!("cannot write {}: {e}", preload.display())))?;
    let before = env
        .iter()
        .rev()
        .find(|(k, _)| k == "NODE_OPTIONS")
        .map(|(_, v)| v.clone())
        .or_else(|| std::env::var("NODE_OPTIONS").ok())
        .unwrap_or_default();
    // NODE_OPTIONS splits on spaces; a path with one would need quotes, which it takes.
    let options = format!(
        "{before} --require \"{}\" --inspect=127.0.0.1:0",
        preload.display()
    )
    .trim()
    .to_string();
    Ok(Prepared {
        env: vec![("NODE_OPTIONS".into(), options)],
    })
}

/// One Node process's inspector.
struct Session {
    url: String,
    ws: WebSocket<TcpStream>,
    next: u64,
    /// The process finished and waits for its debuggers to leave (it would wait forever):
    /// read its last coverage and let it go.
    waiting: bool,
    /// Coverage was started from outside (the process has no preload): it misses what ran
    /// before.
    outside: bool,
}

impl Session {
    fn open(url: &str) -> Result<Session, String> {
        let parsed = url::Url::parse(url).map_err(|e| format!("{url}: {e}"))?;
        let addr = parsed
            .socket_addrs(|| None)
            .map_err(|e| format!("{url}: {e}"))?
            .into_iter()
            .next()
            .ok_or_else(|| format!("{url}: no address"))?;
        let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(3))
            .map_err(|e| format!("{url}: {e}"))?;
        stream
            .set_read_timeout(Some(ANSWER))
            .and_then(|_| stream.set_write_timeout(Some(ANSWER)))
            .map_err(|e| format!("{url}: {e}"))?;
        let config = WebSocketConfig::default()
            .max_message_size(None)
            .max_frame_size(None);
        let (ws, _) = tungstenite::client::client_with_config(url, stream, Some(config))
            .map_err(|e| format!("{url}: {e}"))?;
        let mut s = Session {
            url: url.to_string(),
            ws,
            next: 0,
            waiting: false,
            outside: false,
        };
        // A process that ends waits for its debuggers to disconnect: this says when.
        let _ = s.call(
            "NodeRuntime.notifyWhenWaitingForDisconnect",
            json!({ "enabled": true }),
        );
        let has_preload = s
            .call(
                "Runtime.evaluate",
                json!({ "expression": "typeof globalThis.__wayfarerTakeCoverage", "returnByValue": true }),
            )?["result"]["value"]
            == "function";
        if !has_preload {
            s.outside = true;
            s.call("Profiler.enable", json!({}))?;
            s.call(
                "Profiler.startPreciseCoverage",
                json!({ "callCount": false, "detailed": true }),
            )?;
        }
        Ok(s)
    }

    /// The scripts' coverage since the last take (`ScriptCoverage` objects).
    fn take(&mut self) -> Result<Value, String> {
        if self.outside {
            return Ok(self
                .call("Profiler.takePreciseCoverage", json!({}))?
                .get_mut("result")
                .map(Value::take)
                .unwrap_or_default());
        }
        let answer = self.call(
            "Runtime.evaluate",
            json!({ "expression": TAKE, "returnByValue": true }),
        )?;
        let text = answer["result"]["value"]
            .as_str()
            .ok_or_else(|| format!("no coverage from the process: {answer}"))?;
        let mut v: Value =
            serde_json::from_str(text).map_err(|e| format!("coverage is not JSON: {e}"))?;
        if let Some(e) = v.get("error") {
            return Err(format!("taking coverage: {e}"));
        }
        Ok(v.get_mut("result").map(Value::take).unwrap_or_default())
    }

    /// Send one command and wait for its answer (events in between are dropped).
    fn call(&mut self, method: &str, params: Value) -> Result<Value, String> {
        self.next += 1;
        let id = self.next;
        let msg = json!({ "id": id, "method": method, "params": params }).to_string();
        self.ws
            .send(Message::text(msg))
            .map_err(|e| format!("{method}: {e}"))?;
        loop {
            let text = match self.ws.read().map_err(|e| format!("{method}: {e}"))? {
                Message::Text(t) => t,
                Message::Close(_) => return Err(format!("{method}: the process went away")),
                _ => continue,
            };
            let mut v: Value = serde_json::from_str(text.as_str())
                .map_err(|e| format!("{method}: not JSON: {e}"))?;
            if v["method"] == "NodeRuntime.waitingForDisconnect" {
                self.waiting = true;
            }
            if v["id"].as_u64() != Some(id) {
                continue;
            }
            if let Some(err) = v.get("error") {
                return Err(format!("{method}: {err}"));
            }
            return Ok(v["result"].take());
        }
    }
}

/// The coverage of a server's Node processes.
pub struct NodeReader {
    output: OutputCursor,
    sessions: Vec<Session>,
    /// Inspector URLs seen, connected or not (a process may be gone before the next take).
    seen: HashSet<String>,
    book: Book,
}

impl NodeReader {
    /// `output`: the server's output from its start on, where its processes say where
    /// their inspectors listen.
    pub fn new(output: OutputCursor, filter: Filter) -> NodeReader {
        NodeReader {
            output,
            sessions: Vec::new(),
            seen: HashSet::new(),
            book: Book::new(filter, JS_COMMENTS),
        }
    }

    /// Connect to the inspectors the server's processes announced since the last look.
    fn connect_new(&mut self) {
        for line in self.output.read() {
            let Some(at) = line.find(LISTENING) else {
                continue;
            };
            let url = line[at + LISTENING.len()..].trim().to_string();
            if !self.seen.insert(url.clone()) {
                continue;
            }
            match Session::open(&url) {
                Ok(s) => {
                    tracing::debug!("server coverage: connected to {url}");
                    self.sessions.push(s);
                }
                // A short-lived process (npm's own, a build step) may be gone already.
                Err(e) => tracing::debug!("server coverage: cannot connect to {e}"),
            }
        }
    }
}

/// The file a script of V8 is, when it is one (`file://` URL or absolute path).
fn script_path(url: &str) -> Option<PathBuf> {
    if let Some(rest) = url.strip_prefix("file://") {
        let u = url::Url::parse(&format!("file://{rest}")).ok()?;
        return u.to_file_path().ok();
    }
    url.starts_with('/').then(|| PathBuf::from(url))
}

/// Count one take's scripts into `book`; returns the lines first run.
fn absorb(book: &mut Book, scripts: &Value) -> u64 {
    let mut new = 0;
    for script in scripts.as_array().into_iter().flatten() {
        let Some(path) = script["url"].as_str().and_then(script_path) else {
            continue;
        };
        if !book.know(&path) {
            continue;
        }
        let mut ranges: Vec<(usize, usize, u64)> = script["functions"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|f| f["ranges"].as_array().into_iter().flatten())
            .filter_map(|r| {
                Some((
                    r["startOffset"].as_u64()? as usize,
                    r["endOffset"].as_u64()? as usize,
                    r["count"].as_u64()?,
                ))
            })
            .collect();
        // Outer ranges before the ones nested in them.
        ranges.sort_by_key(|&(s, e, _)| (s, std::cmp::Reverse(e)));
        let run = match book.source(&path) {
            Some(src) => src.run_lines(&ranges),
            None => continue,
        };
        new += book.run(&path, run);
    }
    new
}

impl Reader for NodeReader {
    fn take(&mut self) -> Result<u64, CovError> {
        self.connect_new();
        let mut sessions = std::mem::take(&mut self.sessions);
        let mut errors = Vec::new();
        let new = timed(&mut self.book, |book| {
            let mut new = 0;
            sessions.retain_mut(|s| match s.take() {
                Ok(v) => {
                    new += absorb(book, &v);
                    // Its last lines are in: let it end.
                    !s.waiting
                }
                Err(e) => {
                    errors.push(format!("{}: {e}", s.url));
                    false
                }
            });
            new
        });
        self.sessions = sessions;
        for e in errors {
            // A process that ended (a worker, a one-off script) is no error of the run.
            tracing::debug!("server coverage: dropped the inspector of {e}");
        }
        if self.sessions.is_empty() && self.seen.is_empty() {
            return Err(CovError::Read(
                "no Node process of the server opened its inspector (is it a Node server? \
                 Does something reset NODE_OPTIONS?)"
                    .into(),
            ));
        }
        Ok(new)
    }

    fn coverage(&self) -> ServerCoverage {
        self.book.coverage(Stack::Node)
    }

    fn by_file(&self) -> Vec<ServerFileReach> {
        self.book.by_file()
    }

    fn mark_first_load(&mut self) {
        self.book.mark_first_load();
    }

    fn restarted(&mut self, output: OutputCursor) {
        self.close();
        self.seen.clear();
        self.output = output;
    }

    fn close(&mut self) {
        for mut s in self.sessions.drain(..) {
            let _ = s.ws.close(None);
            let _ = s.ws.flush();
        }
    }
}

impl Drop for NodeReader {
    fn drop(&mut self) {
        self.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preload_and_the_inspector_are_added_to_what_node_options_held() {
        let dir = tempfile::tempdir().unwrap();
        let p = prepare(
            &[("NODE_OPTIONS".into(), "--max-old-space-size=512".into())],
            dir.path(),
        )
        .unwrap();
        let preload = dir.path().join("wayfarer-coverage.cjs");
        assert_eq!(
            p.env,
            vec![(
                "NODE_OPTIONS".to_string(),
                format!(
                    "--max-old-space-size=512 --require \"{}\" --inspect=127.0.0.1:0",
                    preload.display()
                )
            )]
        );
        assert!(preload.is_file());
    }

    #[test]
    fn scripts_are_files_or_nothing() {
        assert_eq!(
            script_path("file:///srv/app/a%20b.js"),
            Some(PathBuf::from("/srv/app/a b.js"))
        );
        assert_eq!(
            script_path("/srv/app/c.js"),
            Some(PathBuf::from("/srv/app/c.js"))
        );
        assert_eq!(script_path("node:internal/main"), None);
        assert_eq!(script_path(""), None);
    }
}
