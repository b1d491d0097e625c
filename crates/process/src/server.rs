//! The application under test as a process, as Playwright's `webServer` runs it: a shell
//! command started in its own process group, its output appended to a log file, ready
//! when a URL answers or a line of its output matches, stopped with SIGTERM to the whole
//! group and SIGKILL after a grace period, and watched so that it never outlives wayfarer.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use regex::Regex;
use url::Url;

use crate::watchdog::Watchdog;

/// Lines of the server's output an error quotes.
const TAIL_LINES: usize = 20;
/// Characters of one quoted line at most.
const TAIL_WIDTH: usize = 300;
/// How often readiness and death are looked at.
const POLL: Duration = Duration::from_millis(50);

/// When a started server is ready.
#[derive(Clone, Debug)]
pub enum Ready {
    /// This URL answers with a status below 500 (plain http only).
    Url(Url),
    /// A line of the server's output (stdout or stderr) matches.
    Output(Regex),
}

impl std::fmt::Display for Ready {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ready::Url(u) => write!(f, "{u} to answer"),
            Ready::Output(r) => write!(f, "a line of its output to match /{}/", r.as_str()),
        }
    }
}

/// How to run a server.
#[derive(Clone, Debug)]
pub struct ServerSpec {
    /// A shell command (`sh -c`) that runs the server in the foreground.
    pub command: String,
    pub ready: Ready,
    /// Longest wait for readiness.
    pub timeout: Duration,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
    /// Working directory (default: wayfarer's).
    pub cwd: Option<PathBuf>,
    /// The file its output is appended to.
    pub log: PathBuf,
    /// Between SIGTERM and SIGKILL when it is stopped.
    pub stop_timeout: Duration,
    /// Applied to each line before it reaches the log (secrets masked: an access log
    /// quotes the URLs the run opened). `None`: the output goes to the file directly.
    pub filter: Option<fn(&str) -> String>,
}

/// Why a server could not be started, or stopped running.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("cannot start the server `{command}`: {source}")]
    Spawn {
        command: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write the server's output to {}: {source}", path.display())]
    Log {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the server `{command}` was not ready within {secs} s (waiting for {waiting}); its last output:\n{tail}")]
    NotReady {
        command: String,
        secs: u64,
        waiting: String,
        tail: String,
    },
    #[error("the server `{command}` exited ({status}) {when}; its last output:\n{tail}")]
    Exited {
        command: String,
        status: String,
        when: String,
        tail: String,
    },
}

/// A free TCP port on 127.0.0.1 (the server is told to take it; another process could
/// in between, which its readiness wait would then report).
pub fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind(("127.0.0.1", 0))?.local_addr()?.port())
}

/// A running server (its process group), stopped when dropped.
pub struct Server {
    spec: ServerSpec,
    leader: Option<Child>,
    /// The leader's exit, once reaped (the group may outlive it).
    exited: Option<ExitStatus>,
    pgid: u32,
    watchdog: Option<Watchdog>,
    /// Where this start's output begins in the log.
    offset: u64,
    starts: u32,
    started: Instant,
    ready_after: Duration,
}

impl Server {
    /// Start the server and wait until it is ready; on failure nothing of it is left
    /// running and the error quotes its last lines of output.
    pub fn start(spec: ServerSpec) -> Result<Server, ServerError> {
        let mut s = Server {
            spec,
            leader: None,
            exited: None,
            pgid: 0,
            watchdog: None,
            offset: 0,
            starts: 0,
            started: Instant::now(),
            ready_after: Duration::ZERO,
        };
        s.launch()?;
        Ok(s)
    }

    /// Stop the server and start it again with the same command (and port).
    pub fn restart(&mut self) -> Result<(), ServerError> {
        self.stop();
        self.launch()
    }

    /// The leader's pid, which is also the process group's id.
    pub fn pid(&self) -> u32 {
        self.pgid
    }

    /// How long the last start took to get ready.
    pub fn ready_after(&self) -> Duration {
        self.ready_after
    }

    /// How many times it was started.
    pub fn starts(&self) -> u32 {
        self.starts
    }

    pub fn spec(&self) -> &ServerSpec {
        &self.spec
    }

    /// A reader of what this start of the server wrote and writes (its log as filtered).
    pub fn output_since_start(&self) -> OutputCursor {
        OutputCursor {
            log: self.spec.log.clone(),
            pos: self.offset,
            partial: String::new(),
        }
    }

    /// A reader of what the server writes from now on (its log as filtered).
    pub fn output(&self) -> OutputCursor {
        let pos = std::fs::metadata(&self.spec.log)
            .map(|m| m.len())
            .unwrap_or(0);
        OutputCursor {
            log: self.spec.log.clone(),
            pos,
            partial: String::new(),
        }
    }

    /// `Err` once the server is gone: its leader exited and nothing of its group runs.
    pub fn check(&mut self) -> Result<(), ServerError> {
        if self.leader.is_none() {
            return Ok(());
        }
        match self.gone() {
            Some(status) => {
                let secs = self.started.elapsed().as_secs_f64();
                self.forget();
                Err(ServerError::Exited {
                    command: self.spec.command.clone(),
                    status,
                    when: format!("{secs:.1} s after it started"),
                    tail: self.tail(),
                })
            }
            None => Ok(()),
        }
    }

    /// The last lines of this start's output, for an error.
    pub fn tail(&self) -> String {
        tail_of(&self.spec.log, self.offset)
    }

    /// SIGTERM to the whole group, SIGKILL to what is left after the grace period; the
    /// watchdog is dismissed. Stopping a stopped server does nothing.
    pub fn stop(&mut self) {
        if self.leader.is_none() {
            return;
        }
        let pgid = self.pgid as libc::pid_t;
        signal_group(pgid, libc::SIGTERM);
        let deadline = Instant::now() + self.spec.stop_timeout;
        while Instant::now() < deadline && self.gone().is_none() {
            std::thread::sleep(POLL);
        }
        let killed = self.gone().is_none();
        if killed {
            signal_group(pgid, libc::SIGKILL);
            if let Some(c) = self.leader.as_mut() {
                let _ = c.wait();
            }
            // Killed members are reaped by their parents (or init) a moment later.
            let t = Instant::now();
            while group_alive(pgid) && t.elapsed() < Duration::from_secs(2) {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        self.forget();
        let how = if killed {
            "killed after SIGTERM was not enough"
        } else {
            "stopped"
        };
        self.note(&format!(
            "{how} by wayfarer after {:.1} s",
            self.started.elapsed().as_secs_f64()
        ));
    }

    /// Spawn the command and wait for readiness.
    fn launch(&mut self) -> Result<(), ServerError> {
        self.starts += 1;
        let log_err = |source| ServerError::Log {
            path: self.spec.log.clone(),
            source,
        };
        if let Some(dir) = self.spec.log.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(log_err)?;
        }
        let mut log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.spec.log)
            .map_err(log_err)?;
        let header = format!(
            "== wayfarer: start {} of `{}`",
            self.starts, self.spec.command
        );
        let header = match self.spec.filter {
            Some(f) => f(&header),
            None => header,
        };
        writeln!(log, "{header}").map_err(log_err)?;
        self.offset = log.seek(SeekFrom::End(0)).map_err(log_err)?;
        let (stdout, stderr) = match self.spec.filter {
            None => {
                let out = log.try_clone().map_err(log_err)?;
                (Stdio::from(out), Stdio::from(log))
            }
            Some(_) => (Stdio::piped(), Stdio::piped()),
        };
        let mut cmd = Command::new("/bin/sh");
        cmd.arg("-c")
            .arg(&self.spec.command)
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr)
            // Its own group: stopped as a whole, and a Ctrl-C at the terminal reaches
            // wayfarer only, which then stops it in order.
            .process_group(0);
        if let Some(dir) = &self.spec.cwd {
            cmd.current_dir(dir);
        }
        for (k, v) in &self.spec.env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().map_err(|source| ServerError::Spawn {
            command: self.spec.command.clone(),
            source,
        })?;
        if let Some(filter) = self.spec.filter {
            let open = || OpenOptions::new().append(true).open(&self.spec.log);
            if let Some(out) = child.stdout.take() {
                copy_lines(out, open().map_err(log_err)?, filter);
            }
            if let Some(err) = child.stderr.take() {
                copy_lines(err, open().map_err(log_err)?, filter);
            }
        }
        self.pgid = child.id();
        self.leader = Some(child);
        self.exited = None;
        self.started = Instant::now();
        self.watchdog = Watchdog::for_group(self.pgid, self.spec.stop_timeout);
        match self.wait_ready() {
            Ok(()) => {
                self.ready_after = self.started.elapsed();
                tracing::info!(
                    pid = self.pgid,
                    ready_s = self.ready_after.as_secs_f64(),
                    "server ready"
                );
                Ok(())
            }
            Err(e) => {
                self.stop();
                Err(e)
            }
        }
    }

    fn wait_ready(&mut self) -> Result<(), ServerError> {
        let deadline = self.started + self.spec.timeout;
        let mut scanned = self.offset;
        let mut partial = String::new();
        loop {
            let ready = match &self.spec.ready {
                Ready::Url(u) => answers(u, deadline).is_some(),
                Ready::Output(re) => {
                    let (lines, pos) = new_lines(&self.spec.log, scanned, &mut partial);
                    scanned = pos;
                    lines.iter().any(|l| re.is_match(l)) || re.is_match(&partial)
                }
            };
            if ready {
                return Ok(());
            }
            if let Some(status) = self.gone() {
                self.forget();
                return Err(ServerError::Exited {
                    command: self.spec.command.clone(),
                    status,
                    when: "before it was ready".into(),
                    tail: self.tail(),
                });
            }
            if Instant::now() >= deadline {
                return Err(ServerError::NotReady {
                    command: self.spec.command.clone(),
                    secs: self.spec.timeout.as_secs(),
                    waiting: self.spec.ready.to_string(),
                    tail: self.tail(),
                });
            }
            std::thread::sleep(POLL);
        }
    }

    /// The leader's exit status when the server is gone (leader reaped, group empty).
    fn gone(&mut self) -> Option<String> {
        if self.exited.is_none() {
            if let Some(Ok(Some(status))) = self.leader.as_mut().map(Child::try_wait) {
                self.exited = Some(status);
            }
        }
        let status = self.exited?;
        (!group_alive(self.pgid as libc::pid_t)).then(|| status.to_string())
    }

    /// The server is gone: nothing to signal any more, nothing for the watchdog to do.
    fn forget(&mut self) {
        self.leader = None;
        if let Some(w) = self.watchdog.take() {
            w.dismiss();
        }
    }

    fn note(&self, line: &str) {
        if let Ok(mut f) = OpenOptions::new().append(true).open(&self.spec.log) {
            let _ = writeln!(f, "== wayfarer: {line}");
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Reads a server's log from where it last stopped: the lines each step of a run made
/// the server write (a traceback), without wayfarer's own notes.
#[derive(Debug)]
pub struct OutputCursor {
    log: PathBuf,
    pos: u64,
    /// The last line, while it has no end yet.
    partial: String,
}

/// Bytes of output one read looks at at most: a step that made the server write more
/// keeps its last lines.
const READ_LIMIT: u64 = 1 << 20;

impl OutputCursor {
    /// The complete lines written since the last read (an unfinished last line waits for
    /// the next one).
    pub fn read(&mut self) -> Vec<String> {
        let len = std::fs::metadata(&self.log).map(|m| m.len()).unwrap_or(0);
        if len < self.pos {
            // The log was replaced: start over at its beginning.
            self.pos = 0;
            self.partial.clear();
        }
        let mut cut = false;
        if len - self.pos > READ_LIMIT {
            self.pos = len - READ_LIMIT;
            self.partial.clear();
            cut = true;
        }
        let (mut lines, pos) = new_lines(&self.log, self.pos, &mut self.partial);
        self.pos = pos;
        if cut && !lines.is_empty() {
            // Began mid-line.
            lines.remove(0);
        }
        lines.retain(|l| !l.starts_with("== wayfarer:"));
        lines
    }

    /// Forget what was written so far (a restart's own start-up output).
    pub fn skip(&mut self) {
        self.pos = std::fs::metadata(&self.log).map(|m| m.len()).unwrap_or(0);
        self.partial.clear();
    }
}

/// Send `sig` to process group `pgid` (one this process made: a server's, a peer's); a
/// group that no longer exists is fine. Never the caller's own group nor init's.
pub fn signal_group(pgid: libc::pid_t, sig: libc::c_int) {
    if pgid > 1 {
        // SAFETY: kill(2) with a negative pid signals that group only; no memory involved.
        let r = unsafe { libc::kill(-pgid, sig) };
        if r != 0 {
            tracing::debug!(group = pgid, sig, err = %std::io::Error::last_os_error(), "signal to a process group");
        }
    }
}

/// Whether any process of group `pgid` is left (zombies included until reaped).
fn group_alive(pgid: libc::pid_t) -> bool {
    if pgid <= 1 {
        return false;
    }
    // SAFETY: signal 0 only checks that the group exists and may be signalled.
    let r = unsafe { libc::kill(-pgid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// The status code `url` answers with, if it answers before `deadline` (plain HTTP/1.0).
pub fn answers(url: &Url, deadline: Instant) -> Option<u16> {
    let host = url.host_str()?;
    let port = url.port_or_known_default()?;
    let addr = (host, port).to_socket_addrs().ok()?.next()?;
    let left = deadline
        .checked_duration_since(Instant::now())
        .unwrap_or(Duration::ZERO)
        .clamp(Duration::from_millis(200), Duration::from_secs(5));
    let mut stream = TcpStream::connect_timeout(&addr, left.min(Duration::from_secs(1))).ok()?;
    stream.set_read_timeout(Some(left)).ok()?;
    stream.set_write_timeout(Some(left)).ok()?;
    let mut target = url.path().to_string();
    if let Some(q) = url.query() {
        target.push('?');
        target.push_str(q);
    }
    let request = format!(
        "GET {target} HTTP/1.0\r\nHost: {host}:{port}\r\nAccept: */*\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut head = [0u8; 64];
    let mut n = 0;
    while n < 12 {
        match stream.read(&mut head[n..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    let line = String::from_utf8_lossy(&head[..n]);
    let code = line.strip_prefix("HTTP/")?.split_whitespace().nth(1)?;
    let code: u16 = code.parse().ok()?;
    (code < 500).then_some(code)
}

/// Copy `pipe` into `log` line by line through `filter`, on a thread of its own that
/// ends with the pipe (when the last process of the server's group holding it exits).
fn copy_lines(pipe: impl Read + Send + 'static, mut log: File, filter: fn(&str) -> String) {
    let spawned = std::thread::Builder::new()
        .name("server-log".into())
        .spawn(move || {
            let mut reader = std::io::BufReader::new(pipe);
            let mut line = Vec::new();
            loop {
                line.clear();
                match std::io::BufRead::read_until(&mut reader, b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let text = filter(&String::from_utf8_lossy(&line));
                        // One write per line: the two pipes' lines do not interleave.
                        if log.write_all(text.as_bytes()).is_err() {
                            break;
                        }
                    }
                }
            }
        });
    if let Err(e) = spawned {
        tracing::warn!("cannot copy the server's output into its log: {e}");
    }
}

/// Complete lines appended to `log` since byte `from` (the unfinished last line kept in
/// `partial`), and the position read up to.
fn new_lines(log: &std::path::Path, from: u64, partial: &mut String) -> (Vec<String>, u64) {
    let Ok(mut f) = File::open(log) else {
        return (Vec::new(), from);
    };
    if f.seek(SeekFrom::Start(from)).is_err() {
        return (Vec::new(), from);
    }
    let mut bytes = Vec::new();
    let _ = f.take(1 << 20).read_to_end(&mut bytes);
    let pos = from + bytes.len() as u64;
    partial.push_str(&String::from_utf8_lossy(&bytes));
    let mut lines: Vec<String> = partial.split('\n').map(str::to_string).collect();
    *partial = lines.pop().unwrap_or_default();
    (lines, pos)
}

/// The last lines of `log` after byte `from`, each cut to a readable width.
fn tail_of(log: &std::path::Path, from: u64) -> String {
    let mut text = String::new();
    if let Ok(mut f) = File::open(log) {
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        // The tail only: a chatty server's whole log is not read for twenty lines.
        let start = from.max(len.saturating_sub(64 * 1024));
        if f.seek(SeekFrom::Start(start)).is_ok() {
            let mut bytes = Vec::new();
            let _ = f.read_to_end(&mut bytes);
            text = String::from_utf8_lossy(&bytes).into_owned();
        }
    }
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("== wayfarer:"))
        .collect();
    if lines.is_empty() {
        return "  (no output)".into();
    }
    lines[lines.len().saturating_sub(TAIL_LINES)..]
        .iter()
        .map(|l| {
            let cut: String = l.chars().take(TAIL_WIDTH).collect();
            format!("  | {cut}")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(dir: &std::path::Path, command: &str, ready: Ready) -> ServerSpec {
        ServerSpec {
            command: command.into(),
            ready,
            timeout: Duration::from_secs(5),
            env: vec![("WF_TEST_VAR".into(), "hello".into())],
            cwd: Some(dir.to_path_buf()),
            log: dir.join("server.log"),
            stop_timeout: Duration::from_secs(2),
            filter: None,
        }
    }

    fn output(re: &str) -> Ready {
        Ready::Output(Regex::new(re).unwrap())
    }

    #[test]
    fn ready_by_output_with_env_and_cwd_then_stopped_whole() {
        let dir = tempfile::tempdir().unwrap();
        let s = spec(
            dir.path(),
            "echo \"listening $WF_TEST_VAR in $(pwd)\"; sleep 300 & wait",
            output("^listening hello in "),
        );
        let mut server = Server::start(s).unwrap();
        let pid = server.pid();
        assert!(crate::watchdog::alive(pid));
        server.check().unwrap();
        server.stop();
        assert!(!group_alive(pid as libc::pid_t), "the sleep went with it");
        let log = std::fs::read_to_string(dir.path().join("server.log")).unwrap();
        assert!(log.contains("listening hello in"), "{log}");
        assert!(log.contains("== wayfarer: stopped by wayfarer"), "{log}");
        // Stopping twice is harmless.
        server.stop();
    }

    fn hide(line: &str) -> String {
        line.replace("pw-s3cr3t", "${PW}")
    }

    #[test]
    fn a_filtered_log_gets_every_line_of_both_streams_through_the_filter() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = spec(
            dir.path(),
            "echo \"login pw-s3cr3t\"; echo \"GET /?q=pw-s3cr3t\" >&2; \
             echo listening; sleep 300 & wait",
            output("^listening"),
        );
        s.command = format!("{} # pw-s3cr3t", s.command);
        s.filter = Some(hide);
        let mut server = Server::start(s).unwrap();
        server.stop();
        let log = std::fs::read_to_string(dir.path().join("server.log")).unwrap();
        assert!(!log.contains("pw-s3cr3t"), "{log}");
        for line in ["login ${PW}", "GET /?q=${PW}", "listening", "# ${PW}`"] {
            assert!(log.contains(line), "{line} not in {log}");
        }
    }

    #[test]
    fn ready_by_url_and_restarted_on_the_same_port() {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port().unwrap();
        let url: Url = format!("http://127.0.0.1:{port}/").parse().unwrap();
        // A tiny HTTP server: python is on every machine this project runs on.
        let cmd = format!("exec python3 -m http.server {port} --bind 127.0.0.1");
        let mut server = Server::start(spec(dir.path(), &cmd, Ready::Url(url.clone()))).unwrap();
        let first = server.pid();
        assert_eq!(
            answers(&url, Instant::now() + Duration::from_secs(2)),
            Some(200)
        );
        server.restart().unwrap();
        assert_ne!(server.pid(), first);
        assert_eq!(server.starts(), 2);
        assert_eq!(
            answers(&url, Instant::now() + Duration::from_secs(2)),
            Some(200)
        );
        drop(server);
        assert_eq!(answers(&url, Instant::now() + Duration::from_secs(1)), None);
    }

    #[test]
    fn never_ready_is_an_error_with_its_output_and_nothing_left() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = spec(
            dir.path(),
            "echo booting; echo 'still booting' >&2; sleep 300",
            output("^ready$"),
        );
        s.timeout = Duration::from_millis(600);
        let t = Instant::now();
        let e = Server::start(s).err().expect("never ready");
        let text = e.to_string();
        assert!(text.contains("was not ready within 0 s"), "{text}");
        assert!(
            text.contains("| booting") && text.contains("| still booting"),
            "{text}"
        );
        assert!(t.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_server_that_exits_says_so_before_and_after_it_was_ready() {
        let dir = tempfile::tempdir().unwrap();
        let e = Server::start(spec(
            dir.path(),
            "echo no database; exit 3",
            output("^ready"),
        ))
        .err()
        .expect("exits");
        let text = e.to_string();
        assert!(
            text.contains("exited (exit status: 3) before it was ready"),
            "{text}"
        );
        assert!(text.contains("| no database"), "{text}");

        let mut server = Server::start(spec(
            dir.path(),
            "echo ready; sleep 0.3; echo dying; exit 4",
            output("^ready"),
        ))
        .unwrap();
        std::thread::sleep(Duration::from_millis(800));
        let text = server.check().unwrap_err().to_string();
        assert!(text.contains("exited (exit status: 4)"), "{text}");
        assert!(text.contains("| dying"), "{text}");
        // Gone is gone: the next check has nothing to say, stopping does nothing.
        server.check().unwrap();
        server.stop();
    }

    #[test]
    fn the_output_is_read_line_by_line_from_where_the_last_read_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let s = spec(
            dir.path(),
            "echo ready; read x < fifo; echo 'Traceback (most recent call last):'; \
             printf 'ValueError: bad'; read y < fifo; echo ' page'; sleep 300",
            output("^ready"),
        );
        let fifo = dir.path().join("fifo");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let mut server = Server::start(s).unwrap();
        let mut out = server.output();
        assert!(out.read().is_empty(), "the start-up output is not a step's");
        let poke = || std::fs::write(&fifo, "\n").unwrap();
        let read_until = |out: &mut OutputCursor, n: usize| {
            let mut got = Vec::new();
            let t = Instant::now();
            while got.len() < n && t.elapsed() < Duration::from_secs(5) {
                got.extend(out.read());
                std::thread::sleep(Duration::from_millis(20));
            }
            got
        };
        poke();
        assert_eq!(
            read_until(&mut out, 1),
            vec!["Traceback (most recent call last):"]
        );
        assert!(out.read().is_empty(), "an unfinished line waits");
        poke();
        assert_eq!(read_until(&mut out, 1), vec!["ValueError: bad page"]);
        server.stop();
        assert!(
            out.read().is_empty(),
            "wayfarer's own notes are not the server's"
        );
    }

    #[test]
    fn a_server_that_ignores_sigterm_is_killed() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = spec(
            dir.path(),
            "trap '' TERM; echo ready; while true; do sleep 0.1; done",
            output("ready"),
        );
        s.stop_timeout = Duration::from_millis(300);
        let mut server = Server::start(s).unwrap();
        let pid = server.pid();
        let t = Instant::now();
        server.stop();
        assert!(t.elapsed() < Duration::from_secs(3));
        assert!(!group_alive(pid as libc::pid_t));
        let log = std::fs::read_to_string(dir.path().join("server.log")).unwrap();
        assert!(log.contains("killed after SIGTERM"), "{log}");
    }
}
