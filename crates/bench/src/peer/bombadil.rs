//! Bombadil (antithesishq/bombadil, MIT), an autonomous property-based web UI tester in
//! Rust and the closest peer of wayfarer. It drives a Chromium of its own, so it is not
//! injected: the bench runs `bombadil test URL --headless ...` with a Chromium wrapper of
//! ours (our flags, and Bombadil kept from the browser until our watcher is attached to
//! it), and measures the run through that watcher (`monitor.rs`) by our definitions: JS
//! coverage merged by our accumulator, failures judged by our oracles, URLs and states as
//! the gremlins tally counts them. Steps are Bombadil's own actions, read from the
//! `trace.jsonl` it writes.
//!
//! Two releases: `bombadil` is today's, 0.7.0 from the npm registry (its package ships a
//! prebuilt static binary; the bench installs it like gremlins, pinned with its integrity
//! hash); `bombadil@0.4.5` is the source build the benches before it compared with
//! (`$BOMBADIL_BIN` or `/opt/peers/bombadil/target/release/bombadil`; the bench never
//! builds it). Where the application has a login, the bench logs in with its own browser
//! and hands Bombadil the session's cookies (`--cookie`, 0.7 only; 0.4.5 has no way in).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read as _, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use wayfarer_browser::{find_chrome, launch_flags, CoveragePool};
use wayfarer_core::config::BrowserConfig;
use wayfarer_core::{Oracles, Outcome};

use super::install::{Installed, NpmPackage};
use super::monitor::{Monitor, MonitorStats, Read, Socket};
use super::tally::Tally;
use super::{Peer, PeerError, PeerOptions, PeerResult};

/// Where `build.sh` (the project's peer instrument) puts the 0.4.5 binary.
pub const DEFAULT_BIN: &str = "/opt/peers/bombadil/target/release/bombadil";
const BUILD_HINT: &str = "build it from source with `bash peers/bombadil/build.sh` of the project workspace's shared/ folder \
     (Bombadil 0.4.5 with crates.io only, ~11 min on 2 cores; or upstream: \
     `cargo build --release -p bombadil-cli` in antithesishq/bombadil), or point \
     $BOMBADIL_BIN at a bombadil binary";

const NPM_NAME: &str = "@antithesishq/bombadil";
const NPM_VERSION: &str = "0.7.0";

/// The pin; `npm ci` refuses anything that does not match the lock below.
const PACKAGE_JSON: &str = r#"{
  "name": "wayfarer-peer-bombadil",
  "private": true,
  "description": "Bombadil for wayfarer bench, installed by the bench itself (never vendored).",
  "license": "MIT OR Apache-2.0",
  "dependencies": {
    "@antithesishq/bombadil": "0.7.0"
  }
}
"#;

/// Generated once with `npm install --package-lock-only` (npm 11): it carries the
/// registry's integrity hash, so every install is byte-identical.
const PACKAGE_LOCK: &str = r#"{
  "name": "wayfarer-peer-bombadil",
  "lockfileVersion": 3,
  "requires": true,
  "packages": {
    "": {
      "name": "wayfarer-peer-bombadil",
      "license": "MIT OR Apache-2.0",
      "dependencies": {
        "@antithesishq/bombadil": "0.7.0"
      }
    },
    "node_modules/@antithesishq/bombadil": {
      "version": "0.7.0",
      "integrity": "sha512-alJmnphJ/iUoL5mCsnV3DwtajGy/sEQ3NJJCiMhgjqXshSq2BUtAs0vqdXEiiSkB8HbsOX5CLrAcaogYdwfAJg==",
      "license": "MIT",
      "bin": {
        "bombadil": "bin/bombadil.js"
      }
    }
  }
}
"#;

/// The prebuilt binary the package ships for this machine.
fn npm_binary() -> Result<&'static str, String> {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => Ok("binaries/bombadil-linux-x64"),
        ("linux", "aarch64") => Ok("binaries/bombadil-linux-arm64"),
        ("macos", "aarch64") => Ok("binaries/bombadil-darwin-arm64"),
        (os, arch) => Err(format!(
            "{NPM_NAME} {NPM_VERSION} ships no binary for {os}/{arch}"
        )),
    }
}

/// Which Bombadil a peer runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Release {
    /// 0.7.0 from the npm registry: `bombadil browser test`, with `--cookie`.
    Npm,
    /// 0.4.5 built from source: `bombadil test`, no login.
    Source045,
}

impl Release {
    /// Its name in tables and on the command line.
    pub fn peer_name(self) -> &'static str {
        match self {
            Release::Npm => "bombadil",
            Release::Source045 => "bombadil@0.4.5",
        }
    }
}

/// Bombadil's browser is found and attached within this long, or the run fails.
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// Bombadil stops at its first state past its time limit; past this much more, it is
/// interrupted (SIGINT: it writes its trace and closes its browser) ...
const OVERRUN: Duration = Duration::from_secs(45);
/// ... and past this much after that, its whole process group is killed.
const INTERRUPT_GRACE: Duration = Duration::from_secs(15);
/// Bombadil ending this much before its time limit ended early (its clock starts before
/// ours, at its own start).
const EARLY_SLACK: Duration = Duration::from_secs(5);
/// Bombadil's exit status when its test found property violations.
const VIOLATIONS_FOUND: i32 = 2;
/// How long one socket read waits: the loop's resolution.
const POLL: Duration = Duration::from_millis(20);

/// Bombadil, run as a program.
#[derive(Debug)]
pub struct Bombadil {
    release: Release,
    /// `<cache>/bombadil/` holds the npm project (0.7).
    dir: PathBuf,
    npm: PathBuf,
    /// A binary given by the caller (tests), before `$BOMBADIL_BIN` and the default.
    explicit: Option<PathBuf>,
    /// The binary `ensure_installed` found.
    bin: Option<PathBuf>,
}

impl Bombadil {
    /// Today's Bombadil from the npm registry, installed into `<cache>/bombadil/`.
    pub fn npm(cache: PathBuf) -> Bombadil {
        Bombadil {
            release: Release::Npm,
            dir: cache.join("bombadil"),
            npm: PathBuf::from("npm"),
            explicit: None,
            bin: None,
        }
    }

    /// Bombadil 0.4.5 built from source (`$BOMBADIL_BIN` or [`DEFAULT_BIN`]).
    pub fn source() -> Bombadil {
        Bombadil {
            release: Release::Source045,
            dir: PathBuf::new(),
            npm: PathBuf::from("npm"),
            explicit: None,
            bin: None,
        }
    }

    /// Use this 0.4.5 binary instead of `$BOMBADIL_BIN` or the default.
    pub fn with_bin(path: impl Into<PathBuf>) -> Bombadil {
        Bombadil {
            explicit: Some(path.into()),
            ..Bombadil::source()
        }
    }

    /// Use this npm binary instead of the one on `PATH`.
    pub fn with_npm(mut self, npm: impl Into<PathBuf>) -> Bombadil {
        self.npm = npm.into();
        self
    }

    pub fn release(&self) -> Release {
        self.release
    }

    /// The 0.4.5 binary to use: the explicit one, `$BOMBADIL_BIN`, or `DEFAULT_BIN`.
    pub fn locate(&self) -> PathBuf {
        if let Some(p) = &self.explicit {
            return p.clone();
        }
        match std::env::var_os("BOMBADIL_BIN").filter(|v| !v.is_empty()) {
            Some(p) => PathBuf::from(p),
            None => PathBuf::from(DEFAULT_BIN),
        }
    }

    fn install_error(&self, reason: String) -> PeerError {
        PeerError::Install {
            peer: self.release.peer_name().into(),
            reason,
        }
    }

    /// The npm package's binary, installed when missing: (its path, what was done).
    fn install_npm(&self) -> Result<(PathBuf, String), PeerError> {
        let main = npm_binary().map_err(|e| self.install_error(e))?;
        let pkg = NpmPackage {
            name: NPM_NAME,
            version: NPM_VERSION,
            package_json: PACKAGE_JSON,
            package_lock: PACKAGE_LOCK,
            main,
        };
        let done = pkg
            .ensure(&self.dir, &self.npm)
            .map_err(|r| self.install_error(r))?;
        let verb = match done {
            Installed::Found => "found in",
            Installed::Installed => "installed into",
        };
        Ok((
            pkg.main_path(&self.dir),
            format!("{verb} {}", self.dir.display()),
        ))
    }
}

impl Peer for Bombadil {
    fn name(&self) -> &'static str {
        self.release.peer_name()
    }

    fn ensure_installed(&mut self) -> Result<String, PeerError> {
        let (bin, how) = match self.release {
            Release::Npm => self.install_npm()?,
            Release::Source045 => {
                let bin = self.locate();
                if !is_executable(&bin) {
                    return Err(self.install_error(format!(
                        "no bombadil binary at {}: {BUILD_HINT}",
                        bin.display()
                    )));
                }
                let how = format!("found at {}", bin.display());
                (bin, how)
            }
        };
        if !is_executable(&bin) {
            return Err(self.install_error(format!("{} is not an executable file", bin.display())));
        }
        let out = Command::new(&bin)
            .arg("--version")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| self.install_error(format!("cannot run {}: {e}", bin.display())))?;
        if !out.status.success() {
            return Err(self.install_error(format!(
                "{} --version failed ({})",
                bin.display(),
                out.status
            )));
        }
        let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let line = format!("{version} {how}");
        self.bin = Some(bin);
        Ok(line)
    }

    fn run(&self, opts: &PeerOptions) -> Result<PeerResult, PeerError> {
        let bin = self.bin.clone().ok_or_else(|| {
            self.install_error("not located yet (call ensure_installed first)".into())
        })?;
        BombadilRun::start(&bin, self.release, opts)?.finish()
    }
}

/// Why Bombadil ended before its time `limit` on its own (an error exit, a crash), if it
/// did: the bench says so beside its numbers (verdaccio: a download crashed it). `ours`:
/// we stopped it (its budget spent, an overrun).
fn ended_early(
    exit: Option<ExitStatus>,
    ours: bool,
    elapsed: Duration,
    limit: Duration,
    log: Option<&Path>,
    error: Option<&str>,
) -> Option<String> {
    let status = exit?;
    // Bombadil ends a test that found violations with status 2 (`main.rs`: "Test finished
    // after time limit, finding N violations!"): at its time, that is a normal end.
    let finished = status.success() || status.code() == Some(VIOLATIONS_FOUND);
    if ours || (finished && elapsed + EARLY_SLACK >= limit) {
        return None;
    }
    let error = error.map_or(String::new(), |e| format!(": {e}"));
    let log = log.map_or(String::new(), |l| format!("; its log: {}", l.display()));
    Some(format!(
        "bombadil exited ({status}) after {:.1} s of {} s{error}{log}",
        elapsed.as_secs_f64(),
        limit.as_secs()
    ))
}

/// The last error Bombadil printed (`Error: ...`, before its backtrace), cut to a line a
/// table can hold: why it ended (0.7.0 on wagtail: "failed to convert generated action
/// from `defaultActions`: structural_path must not be included ...").
fn last_error(log: &str) -> Option<String> {
    const MAX: usize = 300;
    let line = log
        .lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix("Error: "))?
        .trim();
    Some(if line.chars().count() > MAX {
        format!("{}...", line.chars().take(MAX - 3).collect::<String>())
    } else {
        line.to_string()
    })
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `bombadil test`'s arguments (`bombadil browser test` in 0.7, with the session's
/// cookies). Bombadil's own JS instrumentation is off: it rewrites the application's
/// scripts (other content, other hashes and lengths: our coverage would measure its
/// rewrite), and in 0.4.5 it only feeds a log line, not its choice of action.
pub(crate) fn arguments(
    release: Release,
    url: &str,
    time_limit: Duration,
    out: &Path,
    cookies: &[String],
) -> Vec<String> {
    let secs = time_limit.as_secs() + u64::from(time_limit.subsec_nanos() > 0);
    let command: &[&str] = match release {
        Release::Npm => &["browser", "test"],
        Release::Source045 => &["test"],
    };
    let mut args: Vec<String> = command.iter().map(|c| c.to_string()).collect();
    if release == Release::Npm {
        for c in cookies {
            args.push("--cookie".into());
            args.push(c.clone());
        }
    }
    args.extend([
        url.into(),
        "--headless".into(),
        "--no-sandbox".into(),
        "--time-limit".into(),
        format!("{}s", secs.max(1)),
        "--output-path".into(),
        out.display().to_string(),
        // Our strategies' window (BrowserConfig's 1280x800, no scaling).
        "--width".into(),
        "1280".into(),
        "--height".into(),
        "800".into(),
        "--device-scale-factor".into(),
        "1".into(),
        "--instrument-javascript=".into(),
    ]);
    args
}

/// `s` as one word for bash.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The flags our own browser gets that keep a run on the loopback, from the one list in
/// `wayfarer_browser::launch_flags`: no GPU, and every host but 127.0.0.1/localhost
/// unresolvable (a link elsewhere ends on an error page, nothing leaves the machine).
pub(crate) fn chromium_flags() -> Vec<String> {
    launch_flags(&BrowserConfig::default())
        .iter()
        .filter(|f| matches!(f.name, "disable-gpu" | "host-resolver-rules"))
        .map(|f| f.spelled())
        .collect()
}

/// The Chromium that Bombadil is given through `$CHROME`: a script that starts the real
/// one with Bombadil's flags plus ours. Chromium's stderr goes to `log`, where the bench
/// reads the DevTools address; Bombadil reads that address on the script's stderr, which
/// gets the line only once the bench has put it into `gate` (its watcher attached). The
/// `exec` keeps the pid Bombadil started, so its shutdown reaches Chromium.
pub(crate) fn wrapper_script(chrome: &Path, flags: &[String], gate: &Path, log: &Path) -> String {
    let flags: Vec<String> = flags.iter().map(|f| sh_quote(f)).collect();
    format!(
        "#!/bin/bash\n\
         # Chromium for one Bombadil run of wayfarer bench (written per run; see bombadil.rs).\n\
         gate={gate}\n\
         # Passes the DevTools line on once the bench allows it (gives up after a minute).\n\
         ( n=0; while [ $n -lt 1200 ]; do\n\
         \x20   if [ -s \"$gate\" ]; then cat \"$gate\" >&2; exit 0; fi\n\
         \x20   sleep 0.05; n=$((n + 1))\n\
         done ) &\n\
         exec {chrome} \"$@\" {flags} 2>>{log}\n",
        gate = sh_quote(&gate.display().to_string()),
        chrome = sh_quote(&chrome.display().to_string()),
        flags = flags.join(" "),
        log = sh_quote(&log.display().to_string()),
    )
}

/// Chromium's DevTools line in `log`: (the whole line, its websocket address).
fn devtools_line(log: &str) -> Option<(String, String)> {
    log.lines().find_map(|l| {
        let (_, ws) = l.split_once("DevTools listening on ")?;
        let ws = ws.trim();
        ws.starts_with("ws://")
            .then(|| (l.to_string(), ws.to_string()))
    })
}

/// Bombadil's `trace.jsonl` (one entry per state it captured; the entry's `action` is
/// the action that led there), read as it grows.
#[derive(Debug, Default)]
pub(crate) struct TraceReader {
    offset: u64,
    partial: Vec<u8>,
    /// States captured (entries).
    pub states: u64,
    /// Actions performed (entries with an action), `Wait` included.
    pub actions: u64,
    pub kinds: BTreeMap<String, u64>,
    /// Property violations Bombadil itself reported (its default properties: HTTP
    /// errors, exceptions, rejections, console errors); not ours, for the log only.
    pub violations: u64,
    pub unreadable: u64,
}

impl TraceReader {
    /// Read what was appended to `path` since the last call (a missing file is empty).
    pub fn read_new(&mut self, path: &Path) {
        let Ok(mut f) = File::open(path) else {
            return;
        };
        if f.seek(SeekFrom::Start(self.offset)).is_err() {
            return;
        }
        let mut buf = Vec::new();
        if let Ok(n) = f.read_to_end(&mut buf) {
            self.offset += n as u64;
            self.feed(&buf);
        }
    }

    /// Take in bytes of the trace; a line is read once it is whole.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.partial.extend_from_slice(bytes);
        while let Some(end) = self.partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=end).collect();
            self.line(&line);
        }
    }

    fn line(&mut self, line: &[u8]) {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let v: serde_json::Value = match serde_json::from_slice(line) {
            Ok(v) => v,
            Err(e) => {
                tracing::debug!(%e, "bombadil trace line not understood");
                self.unreadable += 1;
                return;
            }
        };
        self.states += 1;
        // Actions are serialised as "Back" or {"Click": {...}}.
        let kind = match &v["action"] {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Object(o) => o.keys().next().cloned(),
            _ => None,
        };
        if let Some(k) = kind {
            self.actions += 1;
            *self.kinds.entry(k).or_default() += 1;
        }
        self.violations += v["violations"].as_array().map_or(0, |a| a.len() as u64);
    }
}

/// The process group Bombadil was started in: it, the wrapper, Chromium and its helpers.
#[derive(Clone, Copy, Debug)]
struct Group(i32);

impl Group {
    /// Live (not zombie) processes of the group, from /proc (no signal is sent).
    fn members(self) -> Vec<(i32, String)> {
        group_members(self.0)
    }

    /// The browser process's command line (Chromium's main process: the one with the
    /// DevTools port and no `--type`), to check that our flags reached it.
    fn browser_command_line(self) -> Option<String> {
        self.members().into_iter().find_map(|(pid, _)| {
            let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            let args: Vec<String> = raw
                .split(|&b| b == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect();
            let browser = args
                .iter()
                .any(|a| a.starts_with("--remote-debugging-port"))
                && !args.iter().any(|a| a.starts_with("--type="));
            browser.then(|| args.join(" "))
        })
    }

    /// The group is the one made for this run (process_group(0) makes its id Bombadil's pid).
    fn signal(self, sig: i32) {
        wayfarer_process::signal_group(self.0, sig);
    }
}

/// Live processes whose process group is `pgid`, with their command names.
pub(crate) fn group_members(pgid: i32) -> Vec<(i32, String)> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let comm = stat[open + 1..close].to_string();
        let mut rest = stat[close + 1..].split_whitespace();
        let (Some(state), Some(_ppid), Some(pgrp)) = (rest.next(), rest.next(), rest.next()) else {
            continue;
        };
        if state != "Z" && pgrp.parse::<i32>() == Ok(pgid) {
            out.push((pid, comm));
        }
    }
    out
}

/// One run in progress.
struct BombadilRun<'a> {
    opts: &'a PeerOptions,
    child: Child,
    group: Group,
    /// Ends the group if the bench dies first (SIGTERM, SIGKILL): no destructor runs then.
    watchdog: Option<wayfarer_process::Watchdog>,
    /// Removed at the end; holds Bombadil's output (screenshots) and, without a log
    /// directory, the logs.
    _scratch: tempfile::TempDir,
    logs: PathBuf,
    out: PathBuf,
    args: Vec<String>,
    started: Instant,
    pool: CoveragePool,
    monitor: Monitor,
    socket: Option<Socket>,
    tally: Tally,
    trace: TraceReader,
    /// The first navigation to the application: the run's clock starts there.
    t0: Option<Instant>,
    exit: Option<(ExitStatus, Instant)>,
    /// Chromium's command line as it ran.
    command_line: Option<String>,
    interrupted: Option<(Instant, &'static str)>,
    killed: bool,
    /// The local storage our login left, written into its browser before it starts.
    storage: Vec<(String, String)>,
}

impl<'a> BombadilRun<'a> {
    fn fail(reason: String) -> PeerError {
        PeerError::Browser {
            peer: "bombadil".into(),
            reason,
        }
    }

    /// Start Bombadil with our Chromium wrapper, attach the watcher and let it go.
    fn start(
        bin: &Path,
        release: Release,
        opts: &'a PeerOptions,
    ) -> Result<BombadilRun<'a>, PeerError> {
        let origin = opts.start_url.origin().ascii_serialization();
        let oracles = Oracles::new(opts.oracles.clone(), vec![origin])
            .map_err(|e| Self::fail(format!("invalid oracle configuration: {e}")))?;
        let chrome = match &opts.chrome {
            Some(p) => p.clone(),
            None => find_chrome(None).map_err(|e| Self::fail(e.to_string()))?,
        };
        let io = |what: &str, e: std::io::Error| Self::fail(format!("{what}: {e}"));
        let scratch = tempfile::Builder::new()
            .prefix("wayfarer-bombadil-")
            .tempdir()
            .map_err(|e| io("temporary directory", e))?;
        let logs = match &opts.log_dir {
            Some(d) => d.clone(),
            None => scratch.path().join("logs"),
        };
        std::fs::create_dir_all(&logs).map_err(|e| io(&logs.display().to_string(), e))?;
        let out = scratch.path().join("out");
        let gate = scratch.path().join("devtools-line");
        let chromium_log = logs.join("chromium.log");
        File::create(&chromium_log).map_err(|e| io("chromium.log", e))?;
        let wrapper = scratch.path().join("chromium");
        std::fs::write(
            &wrapper,
            wrapper_script(&chrome, &chromium_flags(), &gate, &chromium_log),
        )
        .map_err(|e| io("wrapper", e))?;
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755))
                .map_err(|e| io("wrapper", e))?;
        }
        let log = File::create(logs.join("bombadil.log")).map_err(|e| io("bombadil.log", e))?;
        let log2 = log.try_clone().map_err(|e| io("bombadil.log", e))?;
        // Logged in like its users log in: our browser runs the login, Bombadil gets the
        // cookies (0.4.5 has no way to take them: it sees the login page).
        let (cookies, storage) = match release {
            Release::Npm if !opts.login.is_empty() => {
                let session = super::login::log_in(opts)
                    .map_err(|e| Self::fail(format!("logging in for bombadil: {e}")))?;
                tracing::info!(
                    cookies = session.cookies.len(),
                    storage = session.storage.len(),
                    landed = %session.landed,
                    "logged in for bombadil"
                );
                (session.cookies, session.storage)
            }
            _ => (Vec::new(), Vec::new()),
        };
        let args = arguments(
            release,
            opts.start_url.as_str(),
            opts.duration,
            &out,
            &cookies,
        );
        let mut cmd = Command::new(bin);
        cmd.args(&args)
            .env("CHROME", &wrapper)
            // Its browser's profile (user_data_*) and Chromium's own temporary files go
            // into our scratch directory, which goes with the run: in /tmp, each run left
            // 5-9 MB behind.
            .env("TMPDIR", scratch.path())
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log2);
        if std::env::var_os("RUST_LOG").is_none() {
            // Its actions and violations, for triage.
            cmd.env("RUST_LOG", "warn,bombadil=info");
        }
        {
            use std::os::unix::process::CommandExt;
            // A group of its own: Chromium and its helpers end with it, all at once.
            cmd.process_group(0);
        }
        let child = cmd
            .spawn()
            .map_err(|e| Self::fail(format!("cannot start {}: {e}", bin.display())))?;
        let group = Group(child.id() as i32);
        let watchdog = wayfarer_process::Watchdog::for_group(child.id(), Duration::from_secs(2));
        tracing::info!(pid = child.id(), url = %opts.start_url, logs = %logs.display(), "bombadil started");
        let pool = CoveragePool::default();
        let mut run = BombadilRun {
            opts,
            child,
            group,
            watchdog,
            _scratch: scratch,
            logs,
            out,
            args,
            started: Instant::now(),
            monitor: Monitor::new(opts.start_url.clone(), pool.clone())
                .watching_login(wayfarer_browser::login_form_expression(&opts.login)),
            pool,
            socket: None,
            tally: Tally::new(oracles)
                .with_login(wayfarer_browser::login_form_expression(&opts.login).is_some())
                .with_server(opts.server.clone()),
            trace: TraceReader::default(),
            t0: None,
            exit: None,
            command_line: None,
            interrupted: None,
            killed: false,
            storage,
        };
        if let Err(e) = run.attach(&chromium_log, &gate) {
            run.stop_all();
            return Err(Self::fail(format!(
                "{e}; Bombadil's log ({}): {}",
                run.logs.join("bombadil.log").display(),
                tail(&run.logs.join("bombadil.log"), 1500)
            )));
        }
        Ok(run)
    }

    /// Wait for Chromium's DevTools line, connect the watcher, set up auto-attach, then
    /// hand the line to Bombadil through the gate.
    fn attach(&mut self, chromium_log: &Path, gate: &Path) -> Result<(), String> {
        let deadline = Instant::now() + START_TIMEOUT;
        let (line, endpoint) = loop {
            let text = std::fs::read_to_string(chromium_log).unwrap_or_default();
            if let Some(found) = devtools_line(&text) {
                break found;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                self.exit = Some((status, Instant::now()));
                return Err(format!(
                    "bombadil exited ({status}) before its browser started"
                ));
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "no DevTools address from Chromium within {} s (its log: {})",
                    START_TIMEOUT.as_secs(),
                    text.chars()
                        .rev()
                        .take(500)
                        .collect::<String>()
                        .chars()
                        .rev()
                        .collect::<String>()
                ));
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let mut socket = Socket::connect(&endpoint, POLL)?;
        if !self.storage.is_empty() {
            let origin = self.opts.start_url.origin().ascii_serialization();
            super::storage::seed(&mut socket, &origin, &self.storage)
                .map_err(|e| format!("handing over the login's local storage: {e}"))?;
        }
        self.monitor.begin();
        for m in self.monitor.outgoing() {
            socket.send(m)?;
        }
        let until = Instant::now() + Duration::from_secs(10);
        while self.monitor.attached().is_none() && Instant::now() < until {
            match socket.read() {
                Read::Text(t) => self.monitor.handle(&t, Instant::now()),
                Read::Nothing => {}
                Read::Closed(why) => return Err(format!("the browser closed the watcher: {why}")),
            }
            for m in self.monitor.outgoing() {
                socket.send(m)?;
            }
        }
        match self.monitor.attached() {
            Some(Ok(())) => {}
            Some(Err(e)) => return Err(format!("Target.setAutoAttach failed: {e}")),
            None => return Err("Target.setAutoAttach unanswered for 10 s".into()),
        }
        self.socket = Some(socket);
        self.command_line = self.group.browser_command_line();
        if !self.flags_applied() {
            tracing::warn!(command_line = ?self.command_line, "our Chromium flags are not on Bombadil's browser");
        }
        let part = gate.with_extension("part");
        std::fs::write(&part, format!("{line}\n"))
            .and_then(|()| std::fs::rename(&part, gate))
            .map_err(|e| format!("cannot open the gate: {e}"))?;
        tracing::debug!(%endpoint, "watcher attached; bombadil released");
        Ok(())
    }

    /// Watch until Bombadil ends (or is stopped), then clean up and add up.
    fn finish(mut self) -> Result<PeerResult, PeerError> {
        let every = self.opts.sample_every.max(Duration::from_millis(50));
        let mut next_sample = Instant::now() + every;
        let hard = self.started + self.opts.duration + OVERRUN;
        while self.exit.is_none() {
            let now = Instant::now();
            self.pump(now);
            if now >= next_sample {
                self.sample(now);
                next_sample = (next_sample + every).max(now + every / 2);
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                self.exit = Some((status, Instant::now()));
                break;
            }
            let spent = self.opts.max_steps.is_some_and(|m| self.tally.steps() >= m);
            if spent && self.interrupted.is_none() {
                self.interrupt(now, "action budget spent");
            }
            if now >= hard && self.interrupted.is_none() {
                tracing::warn!("bombadil overran its time limit; interrupting it");
                self.interrupt(now, "overran its time limit");
            }
            if let Some((at, _)) = self.interrupted {
                if now >= at + INTERRUPT_GRACE && !self.killed {
                    tracing::warn!(
                        group = self.group.0,
                        "bombadil did not stop; killing its group"
                    );
                    self.group.signal(libc::SIGKILL);
                    self.killed = true;
                }
            }
            if self.socket.is_none() {
                // Nothing to read: don't spin.
                std::thread::sleep(POLL);
            }
        }
        // What the browser still says while it closes.
        let until = Instant::now() + Duration::from_secs(1);
        while self.socket.is_some() && Instant::now() < until {
            self.pump(Instant::now());
        }
        if let Some(s) = self.socket.take() {
            s.close();
        }
        let leftovers = self.stop_all();
        self.trace.read_new(&self.out.join("trace.jsonl"));
        self.tally.set_steps(self.trace.actions);
        let rest = self.monitor.rest();
        self.absorb(rest);
        let end = self.exit.map_or_else(Instant::now, |(_, at)| at);
        let elapsed = end.duration_since(self.t0.unwrap_or(self.started));
        self.tally.point(elapsed, Some(self.pool.snapshot()));
        self.keep_trace();
        let summary = self.summary(elapsed, &leftovers);
        if let Err(e) = std::fs::write(
            self.logs.join("run.json"),
            serde_json::to_string_pretty(&summary).unwrap_or_default(),
        ) {
            tracing::debug!(%e, "run.json not written");
        }
        let t = &self.tally;
        tracing::info!(
            steps = t.steps(),
            states = t.states(),
            urls = t.urls(),
            failures = t.failures().len(),
            exit = ?self.exit.map(|(s, _)| s),
            "bombadil run finished"
        );
        if self.t0.is_none() {
            return Err(Self::fail(format!(
                "bombadil never reached the application ({}); its log: {}",
                self.exit
                    .map_or("no exit status".to_string(), |(s, _)| s.to_string()),
                tail(&self.logs.join("bombadil.log"), 1500)
            )));
        }
        if !leftovers.is_empty() {
            return Err(Self::fail(format!(
                "processes of bombadil's group {} outlived it: {leftovers:?}",
                self.group.0
            )));
        }
        let error = std::fs::read_to_string(self.logs.join("bombadil.log"))
            .ok()
            .and_then(|l| last_error(&l));
        let ended_early = ended_early(
            self.exit.map(|(s, _)| s),
            self.interrupted.is_some() || self.killed,
            elapsed,
            self.opts.duration,
            self.opts
                .log_dir
                .as_ref()
                .map(|_| self.logs.join("bombadil.log"))
                .as_deref(),
            error.as_deref(),
        );
        if let Some(why) = &ended_early {
            tracing::warn!("{why}");
        }
        Ok(PeerResult {
            // Bombadil restarts nothing we drive; what was skipped is the watcher's.
            restarts: 0,
            ended_early,
            skipped_samples: self.monitor.stats.scan_failures,
            scripts: self.pool.by_script(),
            ..t.result(Some(self.pool.snapshot()), elapsed)
        })
    }

    /// Read what the browser sent (one message), keep the schedule, send what is due.
    fn pump(&mut self, now: Instant) {
        let Some(socket) = self.socket.as_mut() else {
            return;
        };
        match socket.read() {
            Read::Text(t) => self.monitor.handle(&t, now),
            Read::Nothing => {}
            Read::Closed(why) => {
                tracing::debug!(%why, "watcher disconnected");
                self.socket = None;
                return;
            }
        }
        self.monitor.tick(now);
        for (url, new_document, at) in self.monitor.navigations() {
            if new_document && self.t0.is_none() {
                self.t0 = Some(at);
                // The curves start where a strategy's do: the first page.
                self.tally.point(Duration::ZERO, Some(self.pool.snapshot()));
            }
            self.tally.visit(&url);
        }
        for shown in self.monitor.login_seen() {
            self.tally.login_form(shown);
        }
        let samples = self.monitor.samples();
        self.absorb(samples);
        let out = self.monitor.outgoing();
        if let Some(socket) = self.socket.as_mut() {
            for m in out {
                if let Err(e) = socket.send(m) {
                    tracing::debug!(%e, "watcher send failed");
                    self.socket = None;
                    break;
                }
            }
        }
    }

    fn absorb(&mut self, samples: Vec<super::monitor::Sample>) {
        for s in samples {
            match s.obs {
                // Off the application (an error page after a link elsewhere) is no state.
                Some(obs) if same_origin(&self.opts.start_url, &obs.url) => {
                    self.tally.absorb(&Outcome {
                        observation: obs,
                        events: s.events,
                        ..Outcome::default()
                    });
                }
                _ => self.tally.judge_events(&s.events, &s.url),
            }
        }
    }

    fn sample(&mut self, now: Instant) {
        self.trace.read_new(&self.out.join("trace.jsonl"));
        self.tally.set_steps(self.trace.actions);
        if self.socket.is_some() {
            self.monitor.sample();
        }
        if let Some(t0) = self.t0 {
            self.tally
                .point(now.duration_since(t0), Some(self.pool.snapshot()));
        }
    }

    fn interrupt(&mut self, now: Instant, why: &'static str) {
        tracing::info!(why, pid = self.child.id(), "interrupting bombadil");
        // SAFETY: kill has no memory-safety preconditions; the pid is our live child.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGINT);
        }
        self.interrupted = Some((now, why));
    }

    /// Make sure nothing of the group is left: Chromium's helpers may take a moment
    /// after Bombadil; stragglers get SIGTERM, then SIGKILL. Returns what outlived
    /// even that (then the watchdog, dropped with the run, tries once more).
    fn stop_all(&mut self) -> Vec<(i32, String)> {
        let left = self.end_group();
        if left.is_empty() {
            if let Some(w) = self.watchdog.take() {
                w.dismiss();
            }
        }
        left
    }

    fn end_group(&mut self) -> Vec<(i32, String)> {
        if self.exit.is_none() {
            self.group.signal(libc::SIGKILL);
            self.killed = true;
            if let Ok(status) = self.child.wait() {
                self.exit = Some((status, Instant::now()));
            }
        }
        let wait = |d: Duration, g: Group| {
            let until = Instant::now() + d;
            while !g.members().is_empty() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(50));
            }
            g.members()
        };
        let left = wait(Duration::from_secs(5), self.group);
        if left.is_empty() {
            return left;
        }
        tracing::warn!(
            group = self.group.0,
            ?left,
            "bombadil's processes outlived it; terminating them"
        );
        self.group.signal(libc::SIGTERM);
        if wait(Duration::from_secs(2), self.group).is_empty() {
            return Vec::new();
        }
        self.group.signal(libc::SIGKILL);
        wait(Duration::from_secs(2), self.group)
    }

    /// Bombadil's trace joins the logs (its screenshots stay behind: megabytes a run).
    fn keep_trace(&self) {
        if self.opts.log_dir.is_some() {
            let from = self.out.join("trace.jsonl");
            if from.is_file() {
                if let Err(e) = std::fs::copy(&from, self.logs.join("trace.jsonl")) {
                    tracing::debug!(%e, "trace not kept");
                }
            }
        }
    }

    /// Whether Chromium runs with every flag of ours.
    fn flags_applied(&self) -> bool {
        self.command_line
            .as_deref()
            .is_some_and(|c| chromium_flags().iter().all(|f| c.contains(f.as_str())))
    }

    fn summary(&self, elapsed: Duration, leftovers: &[(i32, String)]) -> serde_json::Value {
        serde_json::json!({
            "url": self.opts.start_url.as_str(),
            "bombadil_args": self.args,
            "process_group": self.group.0,
            "exit": self.exit.map(|(s, _)| s.to_string()),
            "interrupted": self.interrupted.map(|(_, why)| why),
            "killed": self.killed,
            "leftover_processes": leftovers,
            "elapsed_s": elapsed.as_secs_f64(),
            "reached_app_after_s": self.t0.map(|t| t.duration_since(self.started).as_secs_f64()),
            "chromium_flags_applied": self.flags_applied(),
            "chromium_command_line": self.command_line,
            "first_load_marked": self.monitor.first_load_marked(),
            "coverage": self.pool.snapshot(),
            "steps": self.tally.steps(),
            "urls": self.tally.urls(),
            "states": self.tally.states(),
            "failures": self.tally.failures().iter().map(|f| format!("{}: {}", f.kind.as_str(), f.message)).collect::<Vec<_>>(),
            "trace": {
                "states": self.trace.states,
                "actions": self.trace.actions,
                "actions_by_kind": self.trace.kinds,
                "bombadil_violations": self.trace.violations,
                "unreadable_lines": self.trace.unreadable,
            },
            "watcher": stats_json(&self.monitor.stats),
        })
    }
}

impl Drop for BombadilRun<'_> {
    /// A run abandoned half-way (a panic) leaves nothing running behind.
    fn drop(&mut self) {
        if self.exit.is_none() {
            self.group.signal(libc::SIGKILL);
            let _ = self.child.wait();
        }
    }
}

fn stats_json(s: &MonitorStats) -> serde_json::Value {
    serde_json::to_value(s).unwrap_or_default()
}

fn same_origin(start: &url::Url, url: &str) -> bool {
    url::Url::parse(url).is_ok_and(|u| u.origin() == start.origin())
}

/// The last `n` characters of a log file, for an error message.
fn tail(path: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let start = text.len().saturating_sub(n);
    let start = (start..text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len());
    text[start..].trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exit_of_its_own_before_the_time_limit_is_said_with_its_log() {
        use std::os::unix::process::ExitStatusExt;
        let (limit, log) = (Duration::from_secs(120), Path::new("/r/bombadil.log"));
        let failed = ExitStatus::from_raw(1 << 8);
        let ok = ExitStatus::from_raw(0);
        let s = |secs| Duration::from_secs_f64(secs);
        assert_eq!(
            ended_early(Some(failed), false, s(4.2), limit, Some(log), None).as_deref(),
            Some("bombadil exited (exit status: 1) after 4.2 s of 120 s; its log: /r/bombadil.log")
        );
        // Its own error line says why (wagtail, 0.7.0).
        let printed = "INFO ok\nError: failed to convert generated action from `defaultActions`: \
                       structural_path must not be included\n\nStack backtrace:\n   0: <unknown>\n";
        let why = last_error(printed);
        assert_eq!(
            ended_early(
                Some(failed),
                false,
                s(111.3),
                limit,
                Some(log),
                why.as_deref()
            )
            .as_deref(),
            Some(
                "bombadil exited (exit status: 1) after 111.3 s of 120 s: failed to convert \
                 generated action from `defaultActions`: structural_path must not be included; \
                 its log: /r/bombadil.log"
            )
        );
        assert_eq!(last_error("all fine\n"), None);
        // An error exit at the end is still one; a clean one at its time is not.
        assert!(ended_early(Some(failed), false, s(119.0), limit, None, None).is_some());
        assert_eq!(
            ended_early(Some(ok), false, s(119.0), limit, Some(log), None),
            None
        );
        assert!(ended_early(Some(ok), false, s(60.0), limit, None, None).is_some());
        // Violations found, at its time (mlflow, 2026-12-02): a normal end; before it, not.
        let violations = ExitStatus::from_raw(2 << 8);
        assert_eq!(
            ended_early(Some(violations), false, s(119.9), limit, None, None),
            None
        );
        assert!(ended_early(Some(violations), false, s(60.0), limit, None, None).is_some());
        // Stopped by us (budget spent, overrun): not early.
        assert_eq!(
            ended_early(Some(failed), true, s(4.2), limit, None, None),
            None
        );
        assert_eq!(ended_early(None, false, s(4.2), limit, None, None), None);
    }

    #[test]
    fn arguments_round_the_budget_up_and_turn_instrumentation_off() {
        let cookies = ["sid=abc; Path=/; HttpOnly".to_string()];
        let a = arguments(
            Release::Source045,
            "http://127.0.0.1:1/",
            Duration::from_millis(10_200),
            Path::new("/tmp/o"),
            &cookies,
        );
        let i = a.iter().position(|x| x == "--time-limit").unwrap();
        assert_eq!(a[i + 1], "11s");
        assert_eq!(&a[..2], ["test", "http://127.0.0.1:1/"]);
        assert!(
            !a.contains(&"--cookie".to_string()),
            "0.4.5 has no --cookie"
        );
        let b = arguments(
            Release::Npm,
            "http://127.0.0.1:1/",
            Duration::from_secs(5),
            Path::new("/tmp/o"),
            &cookies,
        );
        assert_eq!(
            &b[..5],
            [
                "browser",
                "test",
                "--cookie",
                "sid=abc; Path=/; HttpOnly",
                "http://127.0.0.1:1/"
            ]
        );
        assert!(a.contains(&"--instrument-javascript=".to_string()));
        let w = a.iter().position(|x| x == "--width").unwrap();
        assert_eq!((a[w + 1].as_str(), a[w + 3].as_str()), ("1280", "800"));
    }

    #[test]
    fn the_wrapper_adds_our_flags_and_holds_the_line_back() {
        let flags = chromium_flags();
        assert_eq!(
            flags,
            vec![
                "--disable-gpu".to_string(),
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost"
                    .to_string()
            ]
        );
        let s = wrapper_script(
            Path::new("/usr/bin/chromium"),
            &flags,
            Path::new("/tmp/it's/gate"),
            Path::new("/tmp/l/chromium.log"),
        );
        assert!(s.starts_with("#!/bin/bash\n"));
        assert!(s.contains("gate='/tmp/it'\\''s/gate'\n"), "{s}");
        assert!(s.contains(
            "exec '/usr/bin/chromium' \"$@\" '--disable-gpu' '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost' 2>>'/tmp/l/chromium.log'\n"
        ), "{s}");
        assert!(s.contains("cat \"$gate\" >&2"));
    }

    /// The wrapper really holds the line back until the gate opens, and passes the
    /// arguments on (a stand-in Chromium prints them and its DevTools line).
    #[test]
    fn the_wrapper_gates_a_fake_chromium() {
        use std::io::Read as _;
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let fake = dir.path().join("fake-chromium");
        std::fs::write(
            &fake,
            "#!/bin/sh\necho \"args: $*\" >&2\necho 'DevTools listening on ws://127.0.0.1:1/devtools/browser/x' >&2\n",
        )
        .unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let gate = dir.path().join("gate");
        let log = dir.path().join("chromium.log");
        let w = dir.path().join("wrapper");
        std::fs::write(&w, wrapper_script(&fake, &chromium_flags(), &gate, &log)).unwrap();
        std::fs::set_permissions(&w, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut child = Command::new(&w)
            .arg("--headless")
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let until = Instant::now() + Duration::from_secs(10);
        let (line, ws) = loop {
            if let Some(found) = devtools_line(&std::fs::read_to_string(&log).unwrap_or_default()) {
                break found;
            }
            assert!(Instant::now() < until, "no DevTools line in the log");
            std::thread::sleep(Duration::from_millis(10));
        };
        assert_eq!(ws, "ws://127.0.0.1:1/devtools/browser/x");
        let logged = std::fs::read_to_string(&log).unwrap();
        assert!(logged.contains("args: --headless --disable-gpu --host-resolver-rules=MAP *"));
        child.wait().unwrap();
        // Nothing on the wrapper's stderr until the gate opens.
        std::thread::sleep(Duration::from_millis(200));
        std::fs::write(&gate, format!("{line}\n")).unwrap();
        let mut got = String::new();
        stderr.read_to_string(&mut got).unwrap();
        assert_eq!(got, format!("{line}\n"));
    }

    #[test]
    fn the_devtools_line_is_found_among_others() {
        let log = "[1:2:ERROR:foo] something\n\nDevTools listening on ws://127.0.0.1:4567/devtools/browser/ab-cd\nmore\n";
        let (line, ws) = devtools_line(log).unwrap();
        assert_eq!(ws, "ws://127.0.0.1:4567/devtools/browser/ab-cd");
        assert!(line.starts_with("DevTools listening on"));
        assert!(devtools_line("DevTools listening on").is_none());
    }

    #[test]
    fn the_trace_is_read_as_it_grows() {
        // Shaped as Bombadil 0.4.5 writes it (bombadil-schema TraceEntry), trimmed.
        let fixture = [
            r#"{"timestamp":1778000000000000,"url":"http://127.0.0.1:1/","hash_previous":null,"hash_current":1,"action":null,"screenshot":"s/1.webp","snapshots":[],"violations":[],"resources":{}}"#,
            r#"{"timestamp":1778000000600000,"url":"http://127.0.0.1:1/","hash_previous":1,"hash_current":2,"action":{"Click":{"name":"button","content":"Add","point":{"x":1.0,"y":2.0}}},"screenshot":"s/2.webp","snapshots":[],"violations":[{"name":"noConsoleErrors","violation":{}}],"resources":{}}"#,
            r#"{"timestamp":1778000001200000,"url":"http://127.0.0.1:1/b","hash_previous":2,"hash_current":3,"action":"Back","screenshot":"s/3.webp","snapshots":[],"violations":[],"resources":{}}"#,
            r#"{"timestamp":1778000001800000,"url":"http://127.0.0.1:1/b","hash_previous":3,"hash_current":4,"action":"Wait","screenshot":"s/4.webp","snapshots":[],"violations":[],"resources":{}}"#,
        ]
        .join("\n")
            + "\n";
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace.jsonl");
        let mut r = TraceReader::default();
        r.read_new(&path);
        assert_eq!(r.states, 0, "no file yet");
        // Written in two pieces, the second line cut in the middle.
        let cut = fixture.find("\"Click\"").unwrap();
        std::fs::write(&path, &fixture[..cut]).unwrap();
        r.read_new(&path);
        assert_eq!((r.states, r.actions), (1, 0));
        std::fs::write(&path, &fixture).unwrap();
        r.read_new(&path);
        assert_eq!((r.states, r.actions, r.violations), (4, 3, 1));
        assert_eq!(r.kinds.get("Click"), Some(&1));
        assert_eq!(r.kinds.get("Back"), Some(&1));
        assert_eq!(r.kinds.get("Wait"), Some(&1));
        r.feed(b"not json\n");
        assert_eq!(r.unreadable, 1);
    }

    #[test]
    fn a_missing_binary_says_how_to_build_it() {
        let mut b = Bombadil::with_bin("/nonexistent/bombadil");
        let err = b.ensure_installed().unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("no bombadil binary at /nonexistent/bombadil"),
            "{msg}"
        );
        assert!(msg.contains("build.sh"), "{msg}");
        assert!(msg.contains("BOMBADIL_BIN"), "{msg}");
    }

    #[test]
    fn the_pin_and_the_lock_agree() {
        let pkg: serde_json::Value = serde_json::from_str(PACKAGE_JSON).unwrap();
        assert_eq!(pkg["dependencies"][NPM_NAME], NPM_VERSION);
        let lock: serde_json::Value = serde_json::from_str(PACKAGE_LOCK).unwrap();
        let entry = &lock["packages"][format!("node_modules/{NPM_NAME}")];
        assert_eq!(entry["version"], NPM_VERSION);
        assert!(entry["integrity"].as_str().unwrap().starts_with("sha512-"));
    }

    #[test]
    fn group_members_come_from_proc() {
        // Our own group has at least this process in it.
        let me = std::process::id() as i32;
        // SAFETY: getpgrp has no preconditions.
        let pgid = unsafe { libc::getpgrp() };
        assert!(group_members(pgid).iter().any(|(pid, _)| *pid == me));
        assert!(group_members(i32::MAX).is_empty());
    }
}
