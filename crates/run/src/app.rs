//! The application under test for one command: where it is (the start URL), its server
//! when `[server]` starts one, and the `[reset]` hook. Each browser of the run gets a
//! handle ([`Application::handle`]) that the core's `WithApp` calls on every reset and
//! after every step: a restart when `restart = "episode"`, the hook when asked, and the
//! news that the server died.

use std::collections::BTreeMap;
use std::net::TcpStream;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use regex::Regex;
use url::Url;
use wayfarer_core::config::{Restart, ServerConfig, ServerStack};
use wayfarer_core::server::{ServerCoverage, ServerFileReach, ServerOutput};
use wayfarer_core::{AppUnderTest, Config, EnvError};
use wayfarer_process::{free_port, OutputCursor, Ready, Server, ServerSpec};

use crate::hook::ResetHook;
use crate::{environment, usage, Notice, Notices, RunError};

/// The `{port}` placeholder of `[server]`.
const PORT: &str = "{port}";

/// The server and what the run learnt of it.
struct Slot {
    /// Its coverage reader, when `[server] coverage` reads it (first: it lets go of the
    /// server's processes before they are stopped).
    coverage: Option<Coverage>,
    server: Server,
    /// A reset has used the server since it was (re)started: the next fresh application
    /// needs a restart.
    used: bool,
    /// Why it is gone, once it is: every later check says so again.
    dead: Option<String>,
    /// Where the next step's output begins. One for all browsers of the run: with
    /// several, a line goes to the step of whichever asks first.
    output: OutputCursor,
}

/// The server's coverage as read for the run.
struct Coverage {
    reader: Box<dyn wayfarer_servercov::Reader>,
    stack: ServerStack,
    /// The reader's files (Python's data files), removed with the run.
    _work: tempfile::TempDir,
}

/// The application a command runs against.
pub struct Application {
    start_url: Url,
    server: Option<Arc<Mutex<Slot>>>,
    restart: Restart,
    hook: Option<ResetHook>,
    /// Run the hook before every reset (replays always; exploration with `reset.explore`).
    hook_on_reset: bool,
}

impl Application {
    /// The application of `config`: its server started when `[server]` is set (ready, or
    /// an error quoting its output), the start URL resolved (`url` as given, which may be
    /// a path or hold `{port}` when a server is started), the reset hook read. The
    /// server's output goes to `log`.
    pub fn prepare(
        config: &Config,
        url: Option<&str>,
        log: &Path,
        hook_on_reset: bool,
        say: Notices,
    ) -> Result<Application, RunError> {
        let (start_url, server) = match &config.server {
            None => {
                let raw = url.ok_or_else(|| {
                    usage!(
                        "no application to explore: give its URL (e.g. http://localhost:3000/), \
                         or a command that starts it (--serve \"CMD\" or [server] in the config)"
                    )
                })?;
                let start = parse_url(raw)?;
                check_reachable(&start)?;
                (start, None)
            }
            Some(sv) => {
                let plan = plan(sv, url)?;
                say(Notice::Info(format!(
                    "wayfarer: starting the application: `{}` (port {}, output in {})",
                    wayfarer_core::secrets::mask_known(&plan.spec.command),
                    plan.port,
                    log.display()
                )));
                let mut spec = ServerSpec {
                    log: log.to_path_buf(),
                    ..plan.spec
                };
                let measured = coverage_setup(sv, &mut spec, say)?;
                let server = Server::start(spec).map_err(|e| masked(e.into()))?;
                say(Notice::Info(format!(
                    "wayfarer: the application is ready at {} after {:.1} s",
                    plan.start,
                    server.ready_after().as_secs_f64()
                )));
                let coverage = match measured {
                    Some(m) => coverage_attach(m, &server, say)?,
                    None => None,
                };
                let slot = Slot {
                    output: server.output(),
                    coverage,
                    server,
                    used: false,
                    dead: None,
                };
                (plan.start, Some(Arc::new(Mutex::new(slot))))
            }
        };
        let hook = ResetHook::new(&config.reset, &start_url)?;
        Ok(Application {
            start_url,
            restart: config
                .server
                .as_ref()
                .map(|s| s.restart)
                .unwrap_or_default(),
            server,
            hook,
            hook_on_reset,
        })
    }

    /// The application already running at `start` (nothing is started or checked).
    pub fn at(
        start: url::Url,
        config: &Config,
        hook_on_reset: bool,
    ) -> Result<Application, RunError> {
        let hook = ResetHook::new(&config.reset, &start)?;
        Ok(Application {
            start_url: start,
            server: None,
            restart: Restart::default(),
            hook,
            hook_on_reset,
        })
    }

    /// Where exploration (or a replay) starts.
    pub fn start_url(&self) -> &Url {
        &self.start_url
    }

    /// Whether a server was started for the command.
    pub fn serves(&self) -> bool {
        self.server.is_some()
    }

    /// When the server starts afresh (meaningful when it [`serves`](Self::serves)).
    pub fn restart(&self) -> Restart {
        self.restart
    }

    /// The reset hook, when one is configured.
    pub fn hook(&self) -> Option<&ResetHook> {
        self.hook.as_ref()
    }

    /// Whether every reset makes the application fresh (a restart per episode, or the
    /// hook before every reset).
    pub fn refreshes(&self) -> bool {
        (self.serves() && self.restart == Restart::Episode)
            || (self.hook.is_some() && self.hook_on_reset)
    }

    /// What one browser calls on every reset and after every step; `None` when there is
    /// nothing to call (no server, no hook).
    pub fn handle(&self) -> Option<Box<dyn AppUnderTest>> {
        if self.server.is_none() && !(self.hook.is_some() && self.hook_on_reset) {
            return None;
        }
        Some(Box::new(Handle {
            server: self.server.clone(),
            restart_each: self.restart == Restart::Episode,
            hook: self.hook.clone().filter(|_| self.hook_on_reset),
        }))
    }

    /// Stop the server now (it stops when the application is dropped anyway).
    pub fn stop(&self) {
        if let Some(s) = &self.server {
            let mut slot = lock(s);
            if let Some(c) = slot.coverage.as_mut() {
                c.reader.close();
            }
            slot.server.stop();
        }
    }

    /// The server's last lines of output, for a message (empty without a server).
    pub fn server_tail(&self) -> String {
        self.server
            .as_ref()
            .map(|s| wayfarer_core::secrets::mask_known(&lock(s).server.tail()))
            .unwrap_or_default()
    }
}

fn lock(s: &Mutex<Slot>) -> MutexGuard<'_, Slot> {
    s.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A server error with the secrets this process knows masked (its output may hold them).
fn masked(e: RunError) -> RunError {
    match e {
        RunError::Server(s) => {
            RunError::Environment(wayfarer_core::secrets::mask_known(&s.to_string()))
        }
        e => e,
    }
}

/// One browser's view of the application.
struct Handle {
    server: Option<Arc<Mutex<Slot>>>,
    restart_each: bool,
    hook: Option<ResetHook>,
}

impl AppUnderTest for Handle {
    fn refresh(&mut self) -> Result<(), EnvError> {
        if let (Some(s), true) = (&self.server, self.restart_each) {
            let mut slot = lock(s);
            if slot.used {
                if let Some(c) = slot.coverage.as_mut() {
                    c.reader.close();
                }
                slot.server.restart().map_err(|e| {
                    EnvError::Server(wayfarer_core::secrets::mask_known(&e.to_string()))
                })?;
                // Its start-up output is nobody's step.
                slot.output.skip();
                let since = slot.server.output_since_start();
                if let Some(c) = slot.coverage.as_mut() {
                    c.reader.restarted(since);
                }
            }
            slot.used = true;
        }
        if let Some(h) = &self.hook {
            h.run().map_err(EnvError::Hook)?;
        }
        Ok(())
    }

    fn refreshes(&self) -> bool {
        (self.server.is_some() && self.restart_each) || self.hook.is_some()
    }

    fn check(&mut self) -> Result<(), EnvError> {
        let Some(s) = &self.server else {
            return Ok(());
        };
        let mut slot = lock(s);
        if slot.dead.is_none() {
            if let Err(e) = slot.server.check() {
                slot.dead = Some(wayfarer_core::secrets::mask_known(&e.to_string()));
            }
        }
        match &slot.dead {
            Some(why) => Err(EnvError::Server(why.clone())),
            None => Ok(()),
        }
    }

    fn output(&mut self) -> ServerOutput {
        let Some(s) = &self.server else {
            return ServerOutput::default();
        };
        let mut slot = lock(s);
        let mut lines = slot.output.read();
        if slot.coverage.as_ref().map(|c| c.stack) == Some(ServerStack::Node) {
            // The inspector's own lines are wayfarer's doing, not the application's.
            lines.retain(|l| !wayfarer_servercov::node::chatter(l));
        }
        ServerOutput::of(lines)
    }

    fn coverage_take(&mut self) -> Option<u64> {
        let s = self.server.as_ref()?;
        let mut slot = lock(s);
        let c = slot.coverage.as_mut()?;
        let n = match c.reader.take() {
            Ok(n) => n,
            Err(e) => {
                // One reading lost (a process between two lives); the next may work.
                tracing::warn!("{e}");
                0
            }
        };
        // The loop's first reading follows the first page load.
        c.reader.mark_first_load();
        Some(n)
    }

    fn coverage(&mut self) -> Option<ServerCoverage> {
        let s = self.server.as_ref()?;
        let slot = lock(s);
        slot.coverage.as_ref().map(|c| c.reader.coverage())
    }

    fn coverage_by_file(&mut self) -> Vec<ServerFileReach> {
        let Some(s) = self.server.as_ref() else {
            return Vec::new();
        };
        let slot = lock(s);
        slot.coverage
            .as_ref()
            .map(|c| c.reader.by_file())
            .unwrap_or_default()
    }
}

/// A server to be read under coverage: its stack, and whether the configuration asked
/// for it by name (then a failure to read it is an error, not a notice).
struct Measured {
    stack: ServerStack,
    named: bool,
    work: tempfile::TempDir,
    filter: wayfarer_servercov::Filter,
}

/// The stack to measure (`[server] coverage`, or guessed from the command when "auto"),
/// its tool's environment added to `spec`; `None` when nothing is measured.
fn coverage_setup(
    sv: &ServerConfig,
    spec: &mut ServerSpec,
    say: Notices,
) -> Result<Option<Measured>, RunError> {
    let (stack, named) = match sv.coverage {
        ServerStack::Off => return Ok(None),
        ServerStack::Auto => match wayfarer_servercov::guess(&sv.command) {
            Some(s) => (s, false),
            None => return Ok(None),
        },
        s => (s, true),
    };
    let work = tempfile::Builder::new()
        .prefix("wayfarer-servercov-")
        .tempdir()
        .map_err(|e| environment!("cannot make a folder for the server's coverage: {e}"))?;
    let root = match &sv.cwd {
        Some(d) => std::path::PathBuf::from(d),
        None => std::env::current_dir().unwrap_or_default(),
    };
    // Scripts come with their real paths.
    let root = root.canonicalize().unwrap_or(root);
    let filter = wayfarer_servercov::Filter::new(&sv.include, &sv.exclude, &root)
        .map_err(|e| usage!("{e}"))?;
    match wayfarer_servercov::prepare(stack, &spec.env, work.path(), &filter) {
        Ok(p) => {
            spec.env
                .retain(|(k, _)| !p.env.iter().any(|(pk, _)| pk == k));
            spec.env.extend(p.env);
            Ok(Some(Measured {
                stack,
                named,
                work,
                filter,
            }))
        }
        Err(e) if named => Err(usage!("{e}")),
        Err(e) => {
            say(Notice::Info(format!(
                "wayfarer: not reading the server's coverage ({e}); coverage = \"off\" in \
                 [server] says so for good"
            )));
            Ok(None)
        }
    }
}

/// Attach the reader to the started server and take its first reading (what the start
/// ran); a failure is an error when the stack was named, else a notice.
fn coverage_attach(
    m: Measured,
    server: &Server,
    say: Notices,
) -> Result<Option<Coverage>, RunError> {
    let attached = wayfarer_servercov::attach(
        m.stack,
        server.output_since_start(),
        m.work.path(),
        m.filter,
    )
    .and_then(|mut reader| reader.take().map(|_| reader));
    match attached {
        Ok(reader) => {
            let c = reader.coverage();
            say(Notice::Info(format!(
                "wayfarer: reading the server's coverage ({}): {} lines of {} files of its own \
                 run by its start-up",
                m.stack.name(),
                c.lines_covered,
                c.files
            )));
            Ok(Some(Coverage {
                reader,
                stack: m.stack,
                _work: m.work,
            }))
        }
        Err(e) if m.named => Err(environment!("{e}")),
        Err(e) => {
            say(Notice::Info(format!(
                "wayfarer: not reading the server's coverage ({e})"
            )));
            Ok(None)
        }
    }
}

/// A server resolved from `[server]`: its spec (without the log), the port and start URL.
struct Plan {
    spec: ServerSpec,
    port: u16,
    start: Url,
}

/// Resolve `[server]`: the port (fixed, the URL's, or a free one), `{port}` replaced
/// everywhere, the start URL (`url` may be a path on the server's URL), readiness.
fn plan(sv: &ServerConfig, url: Option<&str>) -> Result<Plan, RunError> {
    let template = sv
        .url
        .clone()
        .unwrap_or_else(|| format!("http://127.0.0.1:{PORT}/"));
    // A full URL given on the command line names the port the server listens on.
    let given_port = url
        .filter(|u| !u.contains(PORT))
        .and_then(|u| Url::parse(u).ok())
        .and_then(|u| u.port());
    let port = match sv.port.or(given_port) {
        Some(p) => {
            if TcpStream::connect_timeout(&([127, 0, 0, 1], p).into(), Duration::from_millis(300))
                .is_ok()
            {
                return Err(usage!(
                    "port {p} on 127.0.0.1 is already in use, so the server wayfarer starts \
                     cannot listen there; stop what runs there, or let wayfarer pick a free \
                     port (leave server.port unset and write {PORT} in the command)"
                ));
            }
            p
        }
        None => free_port()
            .map_err(|e| RunError::Environment(format!("cannot find a free port: {e}")))?,
    };
    let passed = sv.command.contains(PORT) || sv.env.values().any(|v| v.contains(PORT));
    if sv.port.is_none() && given_port.is_none() && !passed {
        return Err(usage!(
            "server.command `{}` does not mention {PORT}, so the server cannot know the port \
             wayfarer picked; pass it (e.g. `--port {PORT}`, or env = {{ PORT = \"{PORT}\" }}) \
             or set server.port to the port it listens on",
            sv.command
        ));
    }
    let sub = |s: &str| s.replace(PORT, &port.to_string());
    let base = parse_url(&sub(&template)).map_err(|e| usage!("server.url: {e}"))?;
    let start = match url {
        None => base,
        Some(u) if u.starts_with('/') => base
            .join(u)
            .map_err(|e| usage!("{u:?} is not a path on {base}: {e}"))?,
        Some(u) => parse_url(&sub(u))?,
    };
    let ready = match sv.ready.as_deref() {
        None => Ready::Url(start.clone()),
        Some(r) if r.starts_with("http://") || r.starts_with("https://") => {
            let u = parse_url(&sub(r)).map_err(|e| usage!("server.ready: {e}"))?;
            if u.scheme() != "http" {
                return Err(usage!(
                    "server.ready {u} is not plain http (the readiness check speaks no TLS); \
                     give a regex over the server's output instead"
                ));
            }
            Ready::Url(u)
        }
        Some(r) if r.starts_with('/') => Ready::Url(
            start
                .join(&sub(r))
                .map_err(|e| usage!("server.ready {r:?} is not a path: {e}"))?,
        ),
        Some(r) => Ready::Output(
            Regex::new(&sub(r))
                .map_err(|e| usage!("server.ready {r:?} is neither a URL nor a regex: {e}"))?,
        ),
    };
    let env: BTreeMap<String, String> = sv.env.iter().map(|(k, v)| (k.clone(), sub(v))).collect();
    Ok(Plan {
        spec: ServerSpec {
            command: sub(&sv.command),
            ready,
            timeout: Duration::from_secs(sv.timeout_s.max(1)),
            env: env.into_iter().collect(),
            cwd: sv.cwd.as_ref().map(Into::into),
            log: Default::default(),
            stop_timeout: Duration::from_secs(sv.stop_timeout_s),
            // The application's output is kept: masked like everything kept.
            filter: Some(wayfarer_core::secrets::mask_known),
        },
        port,
        start,
    })
}

/// Parse a start URL, with a message that says what a good one looks like.
pub fn parse_url(raw: &str) -> Result<Url, RunError> {
    let url = Url::parse(raw).map_err(|e| {
        usage!("{raw:?} is not a URL ({e}); give a full URL such as http://localhost:3000/")
    })?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(usage!(
            "{raw:?} is not an http(s) URL; give a full URL such as http://localhost:3000/"
        ));
    }
    Ok(url)
}

/// Fail fast, with a clear line, when nothing listens at the start URL.
pub fn check_reachable(url: &Url) -> Result<(), RunError> {
    use std::net::ToSocketAddrs;
    let host = url.host_str().unwrap_or_default();
    let port = url.port_or_known_default().unwrap_or(80);
    let addrs: Vec<_> = (host, port)
        .to_socket_addrs()
        .map_err(|e| RunError::Environment(format!("cannot resolve {host} for {url}: {e}")))?
        .collect();
    let mut last = None;
    for a in &addrs {
        match TcpStream::connect_timeout(a, Duration::from_secs(3)) {
            Ok(_) => return Ok(()),
            Err(e) => last = Some(e),
        }
    }
    let why = last
        .map(|e| e.to_string())
        .unwrap_or_else(|| "no address".into());
    Err(RunError::Environment(format!(
        "cannot reach {url}: {why}; is the application running? (or let wayfarer start it: \
         --serve \"CMD\" or [server] in the config)"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(command: &str) -> ServerConfig {
        ServerConfig {
            command: command.into(),
            ..ServerConfig::default()
        }
    }

    #[test]
    fn the_port_goes_everywhere_and_a_path_is_on_the_server() {
        let mut sv = server("serve --port {port}");
        sv.url = Some("http://127.0.0.1:{port}/app/".into());
        sv.ready = Some("listening on {port}$".into());
        sv.env
            .insert("WHERE".into(), "http://127.0.0.1:{port}".into());
        let p = plan(&sv, Some("/app/issues")).unwrap();
        let port = p.port.to_string();
        assert_eq!(p.spec.command, format!("serve --port {port}"));
        assert_eq!(
            p.start.as_str(),
            format!("http://127.0.0.1:{port}/app/issues")
        );
        match &p.spec.ready {
            Ready::Output(r) => assert_eq!(r.as_str(), format!("listening on {port}$")),
            r => panic!("{r:?}"),
        }
        assert_eq!(
            p.spec.env,
            vec![("WHERE".to_string(), format!("http://127.0.0.1:{port}"))]
        );
        // Default readiness: the start URL answers; a path is on the start URL's origin.
        let p = plan(&server("x {port}"), None).unwrap();
        assert!(matches!(&p.spec.ready, Ready::Url(u) if u == &p.start));
        let mut sv = server("x {port}");
        sv.ready = Some("/health".into());
        let p = plan(&sv, None).unwrap();
        assert!(matches!(&p.spec.ready, Ready::Url(u) if u.path() == "/health"));
    }

    #[test]
    fn a_port_nobody_passes_or_a_taken_one_is_a_clear_error() {
        let e = plan(&server("python -m http.server"), None)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("does not mention {port}"), "{e}");
        // A full URL with a port, or server.port, says where it listens.
        let p = plan(
            &server("python -m http.server 18123"),
            Some("http://127.0.0.1:18123/"),
        )
        .unwrap();
        assert_eq!(p.port, 18123);
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut sv = server("x");
        sv.port = Some(taken.local_addr().unwrap().port());
        let e = plan(&sv, None).err().unwrap().to_string();
        assert!(e.contains("already in use"), "{e}");
        let mut sv = server("x {port}");
        sv.ready = Some("https://127.0.0.1:{port}/".into());
        assert!(plan(&sv, None)
            .err()
            .unwrap()
            .to_string()
            .contains("not plain http"));
        sv.ready = Some("([".into());
        assert!(plan(&sv, None)
            .err()
            .unwrap()
            .to_string()
            .contains("neither a URL nor a regex"));
    }

    #[test]
    fn without_a_server_the_url_is_needed_and_must_answer() {
        let mut say = |_| {};
        let log = Path::new("/nonexistent/server.log");
        let e = Application::prepare(&Config::default(), None, log, false, &mut say)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("--serve"), "{e}");
        let e = Application::prepare(
            &Config::default(),
            Some("http://127.0.0.1:9/"),
            log,
            false,
            &mut say,
        )
        .err()
        .unwrap()
        .to_string();
        assert!(e.contains("cannot reach"), "{e}");
    }

    #[test]
    fn a_restart_per_episode_gives_each_reset_but_the_first_a_new_server() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::default();
        let mut sv = server("echo \"up on {port} as $$\"; exec sleep 300");
        sv.ready = Some("^up on".into());
        sv.restart = Restart::Episode;
        config.server = Some(sv);
        let mut notes = Vec::new();
        let app = Application::prepare(
            &config,
            None,
            &dir.path().join("server.log"),
            false,
            &mut |n| notes.push(n),
        )
        .unwrap();
        assert!(app.refreshes());
        assert!(notes.len() == 2, "{notes:?}");
        let mut h = app.handle().unwrap();
        let pid = || lock(app.server.as_ref().unwrap()).server.pid();
        let first = pid();
        h.refresh().unwrap();
        assert_eq!(pid(), first, "the first reset uses the server just started");
        h.refresh().unwrap();
        assert_ne!(pid(), first, "the next one restarts it");
        h.check().unwrap();
        // Killed behind wayfarer's back (by its pid: the command exec'd into sleep).
        let killed = std::process::Command::new("kill")
            .args(["-KILL", &pid().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        std::thread::sleep(Duration::from_millis(300));
        let e = h.check().unwrap_err().to_string();
        assert!(
            e.contains("server stopped") && e.contains("signal: 9"),
            "{e}"
        );
        assert!(h.check().is_err(), "gone stays gone");
    }
}
