//! Node: every Node process of the server opens its inspector on a loopback port of its
//! own (`NODE_OPTIONS=--inspect=127.0.0.1:0`, children included) and says where on its
//! stderr; the reader connects to each as it appears, starts V8's precise block coverage
//! (binary: a function once reported run is not reported again, so a take is small) and
//! takes it over the DevTools protocol. Offsets become lines of the script's file.

use std::collections::HashSet;
use std::net::TcpStream;
use std::path::PathBuf;
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

/// `NODE_OPTIONS` with the inspector on a free loopback port, after what the server's
/// configuration or wayfarer's environment already put there.
pub fn prepare(env: &[(String, String)]) -> Prepared {
    let before = env
        .iter()
        .rev()
        .find(|(k, _)| k == "NODE_OPTIONS")
        .map(|(_, v)| v.clone())
        .or_else(|| std::env::var("NODE_OPTIONS").ok())
        .unwrap_or_default();
    let options = format!("{before} --inspect=127.0.0.1:0").trim().to_string();
    Prepared {
        env: vec![("NODE_OPTIONS".into(), options)],
    }
}

/// One Node process's inspector.
struct Session {
    url: String,
    ws: WebSocket<TcpStream>,
    next: u64,
    /// The process finished and waits for its debuggers to leave (it would wait forever):
    /// read its last coverage and let it go.
    waiting: bool,
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
        };
        // A process that ends waits for its debuggers to disconnect: this says when.
        let _ = s.call(
            "NodeRuntime.notifyWhenWaitingForDisconnect",
            json!({ "enabled": true }),
        );
        s.call("Profiler.enable", json!({}))?;
        s.call(
            "Profiler.startPreciseCoverage",
            json!({ "callCount": false, "detailed": true }),
        )?;
        Ok(s)
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
            sessions.retain_mut(
                |s| match s.call("Profiler.takePreciseCoverage", json!({})) {
                    Ok(v) => {
                        new += absorb(book, &v["result"]);
                        // Its last lines are in: let it end.
                        !s.waiting
                    }
                    Err(e) => {
                        errors.push(format!("{}: {e}", s.url));
                        false
                    }
                },
            );
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
    fn the_inspector_is_added_to_what_node_options_held() {
        let p = prepare(&[("NODE_OPTIONS".into(), "--max-old-space-size=512".into())]);
        assert_eq!(
            p.env,
            vec![(
                "NODE_OPTIONS".to_string(),
                "--max-old-space-size=512 --inspect=127.0.0.1:0".to_string()
            )]
        );
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
