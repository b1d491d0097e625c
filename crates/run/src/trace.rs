//! Opening a trace for `replay` and `minimize`: read it, find the application (`--url`,
//! the server of `--config`/`--serve` or of the trace started again, or the bundled demo
//! app served again), fill in its secrets from the environment, and start a browser
//! configured as the recording one was, behind the application (a fresh server or the
//! reset hook before every replay, when configured).

use std::path::{Path, PathBuf};

use wayfarer_browser::{find_chrome, BrowserEnv, BrowserOptions};
use wayfarer_core::config::{BrowserConfig, CoverageMode, Restart, ServerConfig};
use wayfarer_core::trace::{unmask, Trace};
use wayfarer_core::{Oracles, TraceStep, WithApp};

use crate::app::{check_reachable, parse_url, Application};
use crate::{usage, Notice, Notices, RunError, Why};

/// Where and how a trace is replayed (the flags of `replay` and `minimize`).
#[derive(Clone, Debug, Default)]
pub struct Place {
    /// The application's start URL now (default: the trace's, or its server's).
    pub url: Option<String>,
    /// With a demo trace: serve the bundled application without its seeded bugs.
    pub fixed: bool,
    pub chrome: Option<String>,
    /// Attach to a running browser instead of launching one.
    pub cdp: Option<String>,
    /// A configuration: its `[reset]` hook runs before every replay, its `[server]`
    /// starts the application.
    pub config: Option<PathBuf>,
    /// A command that starts the application (`--serve`), as `[server] command`.
    pub serve: Option<String>,
    /// Where a started server's output goes (default: next to the trace).
    pub server_log: Option<PathBuf>,
}

/// A trace ready to be replayed, with everything that must live as long as replays do.
pub struct Target {
    /// The trace as written (secrets as references, recorded origin).
    pub trace: Trace,
    /// The steps to perform: moved to where the application runs now, secrets filled in;
    /// replays aim each by its hint's locator (see `wayfarer_core::replay::Replayable`).
    pub steps: Vec<TraceStep>,
    /// The browser, behind the application.
    pub env: WithApp<BrowserEnv>,
    pub oracles: Oracles,
    /// The expected signature, moved like the actions.
    pub expected: String,
    pub start_url: String,
    app: Application,
    server: Option<wayfarer_testapps::Server>,
}

impl Target {
    pub fn close(mut self) {
        use wayfarer_core::Environment;
        self.env.close();
        self.app.stop();
        if let Some(s) = self.server.take() {
            s.shutdown();
        }
    }
}

pub fn read_trace(path: &Path) -> Result<Trace, RunError> {
    let text =
        std::fs::read_to_string(path).usage(|| format!("cannot read trace {}", path.display()))?;
    Trace::parse(&text).usage(|| format!("cannot use {}", path.display()))
}

/// Open the trace at `path` for replays.
pub fn open(path: &Path, place: &Place, say: Notices) -> Result<Target, RunError> {
    let mut place = place.clone();
    if place.server_log.is_none() {
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "trace".into());
        place.server_log = Some(path.with_file_name(format!("{stem}.server.log")));
    }
    open_trace(read_trace(path)?, &place, say)
}

/// A secret of the trace (a `${NAME}` reference) read from the environment, and masked in
/// everything this process writes from now on.
fn env_var(k: &str) -> Option<String> {
    let v = std::env::var(k).ok();
    if let Some(v) = &v {
        wayfarer_core::secrets::remember([(k.to_string(), v.clone())]);
    }
    v
}

fn fill(s: &str) -> Result<String, RunError> {
    unmask(s, env_var).map_err(|e| usage!("{e}; the trace refers to them as ${{NAME}}"))
}

/// The trace's server with its references filled in from the environment.
fn unmasked(sv: &ServerConfig) -> Result<ServerConfig, RunError> {
    let mut out = sv.clone();
    out.command = fill(&sv.command)?;
    out.url = sv.url.as_deref().map(fill).transpose()?;
    out.ready = sv.ready.as_deref().map(fill).transpose()?;
    out.cwd = sv.cwd.as_deref().map(fill).transpose()?;
    for v in out.env.values_mut() {
        *v = fill(v)?;
    }
    Ok(out)
}

/// As [`open`], for a trace in memory.
pub fn open_trace(trace: Trace, place: &Place, say: Notices) -> Result<Target, RunError> {
    let (mut config, _secrets) = crate::config::load(place.config.as_deref())?;
    if let Some(cmd) = &place.serve {
        let mut sv = config.server.take().unwrap_or_default();
        sv.command = cmd.clone();
        config.server = Some(sv);
    }
    let log = place
        .server_log
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join("wayfarer-replay-server.log"));
    let mut server = None;
    // A replay measures whether the failure comes back, not the server's coverage: its
    // tool would only slow the server down.
    let quiet = |sv: &mut wayfarer_core::config::ServerConfig| {
        sv.coverage = wayfarer_core::config::ServerStack::Off;
    };
    if let Some(sv) = config.server.as_mut() {
        quiet(sv);
    }
    // The application: a server of the configuration, the URL given, the trace's own
    // server started again, the bundled demo app served again, or the recorded URL.
    let app = if config.server.is_some() || place.url.is_some() {
        Application::prepare(&config, place.url.as_deref(), &log, true, say)?
    } else if let Some(sv) = &trace.setup.server {
        let mut sv = unmasked(sv)?;
        quiet(&mut sv);
        config.server = Some(sv);
        // Where the recording started on its server: the same path on the new one.
        let recorded = parse_url(&trace.setup.start_url)
            .usage(|| "the trace's start URL is not usable".to_string())?;
        let mut path = recorded.path().to_string();
        if let Some(q) = recorded.query() {
            path.push('?');
            path.push_str(q);
        }
        Application::prepare(&config, Some(&path), &log, true, say)?
    } else if let Some(name) = &trace.setup.app {
        let which = wayfarer_testapps::App::from_name(name)
            .ok_or_else(|| usage!("the trace names an unknown bundled app {name:?}"))?;
        let bugs = !place.fixed && trace.setup.app_bugs.unwrap_or(true);
        let s = wayfarer_testapps::Server::start(
            which,
            wayfarer_testapps::ServeOptions {
                bugs,
                ..Default::default()
            },
        )
        .environment(|| "cannot start the bundled application".to_string())?;
        let url = s.url();
        say(Notice::Info(format!(
            "wayfarer: serving the {name} demo at {url} (seeded bugs {})",
            if bugs { "on" } else { "off" }
        )));
        server = Some(s);
        Application::at(parse_url(&url)?, &config, true)?
    } else {
        let start = parse_url(&trace.setup.start_url).map_err(|e| {
            usage!("the trace's start URL is not usable ({e}); give one with --url")
        })?;
        if place.cdp.is_none() {
            check_reachable(&start)?;
        }
        Application::at(start, &config, true)?
    };
    if place.fixed && trace.setup.app.is_none() {
        say(Notice::Warning(
            "note: --fixed only applies to traces of the bundled demo applications".into(),
        ));
    }
    let start = app.start_url().clone();
    let moved = trace.rebased(&start);
    let mut steps = Vec::with_capacity(moved.steps.len());
    for st in &moved.steps {
        let mut st = st.clone();
        if let Some(v) = &st.action.value {
            st.action.value = Some(fill(v)?);
        }
        steps.push(st);
    }
    let mut login = moved.setup.login.clone();
    for l in &mut login {
        if let Some(v) = &l.value {
            l.value = Some(fill(v)?);
        }
    }
    let chrome = match &place.cdp {
        Some(_) => None,
        None => {
            let explicit = place.chrome.clone().or(moved.setup.browser.chrome.clone());
            Some(
                find_chrome(explicit.as_deref())
                    .map_err(|e| RunError::Environment(e.to_string()))?,
            )
        }
    };
    let mut origins = vec![start.origin().ascii_serialization()];
    origins.extend(moved.setup.allow_origins.iter().cloned());
    let oracles = Oracles::new(moved.setup.oracles.clone(), origins).map_err(|e| usage!("{e}"))?;
    if let Some(h) = app.hook() {
        say(Notice::Info(format!(
            "wayfarer: before every replay the reset hook runs {}",
            h.describe()
        )));
    }
    if app.serves() && app.restart() == Restart::Episode {
        say(Notice::Info(
            "wayfarer: every replay starts on a freshly started server (server.restart = \"episode\")"
                .into(),
        ));
    }
    let browser = BrowserEnv::launch(BrowserOptions {
        start_url: start.clone(),
        config: replay_config(&moved.setup.browser),
        actions: Default::default(),
        allow_origins: moved.setup.allow_origins.clone(),
        subresources: config.scope.subresources,
        deny: Vec::new(),
        login,
        cdp_url: place.cdp.clone(),
        grid: None,
        chrome,
        coverage: Default::default(),
        // The specification the run checked, as it was bundled then.
        spec: moved
            .setup
            .spec
            .as_ref()
            .map(|s| std::sync::Arc::<str>::from(s.bundle.as_str())),
    })
    .environment(|| "cannot start the browser".to_string())?;
    let env = WithApp::new(browser, app.handle());
    Ok(Target {
        expected: moved.expected.signature.clone(),
        start_url: start.to_string(),
        trace,
        steps,
        env,
        oracles,
        app,
        server,
    })
}

/// The browser settings a replay runs with: the run's, without JS coverage, which a
/// replay never reads and which slows a page more the longer one browser session lives.
pub fn replay_config(run: &BrowserConfig) -> BrowserConfig {
    BrowserConfig {
        coverage: CoverageMode::Off,
        ..run.clone()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use wayfarer_core::trace::{Expected, ReplaySetup, TRACE_VERSION};
    use wayfarer_core::{Action, ActionKind};

    use super::*;

    fn trace() -> Trace {
        Trace {
            version: TRACE_VERSION,
            wayfarer: "0.1.0".into(),
            setup: ReplaySetup {
                start_url: "http://127.0.0.1:1/".into(),
                app: Some("expenses".into()),
                ..ReplaySetup::default()
            },
            expected: Expected {
                kind: "exception".into(),
                signature: "exception|x|y".into(),
                message: "x".into(),
            },
            origin: "explore seed 3 step 12".into(),
            outside_state: None,
            steps: vec![
                TraceStep {
                    action: Action::on(ActionKind::Type, "#q").with_value("${PW}"),
                    element: None,
                    url: "http://127.0.0.1:1/".into(),
                },
                TraceStep {
                    action: Action::on(ActionKind::Click, "#go"),
                    element: None,
                    url: "http://127.0.0.1:1/é".into(),
                },
            ],
        }
    }

    /// Write `bytes` as a trace file and read it: a trace, or an error (as the CLI prints
    /// it) that names the file and the problem.
    fn read_bytes(bytes: &[u8]) -> Result<(), TestCaseError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("failure-1.json");
        std::fs::write(&path, bytes).unwrap();
        if let Err(e) = read_trace(&path) {
            let e = format!("{e:#}");
            prop_assert!(e.contains(&path.display().to_string()), "{}", e);
            prop_assert!(
                e.contains("not a wayfarer trace")
                    || e.contains("trace format version")
                    || e.contains("valid UTF-8"),
                "{}",
                e
            );
        }
        Ok(())
    }

    #[test]
    fn a_replay_runs_without_coverage_and_otherwise_as_the_run_did() {
        let run = BrowserConfig {
            coverage: CoverageMode::EveryStep,
            stable_timeout_ms: 1234,
            window_width: 640,
            ..BrowserConfig::default()
        };
        let replay = replay_config(&run);
        assert_eq!(replay.coverage, CoverageMode::Off);
        assert_eq!(
            BrowserConfig {
                coverage: run.coverage,
                ..replay
            },
            run
        );
    }

    /// Every cut is core's test (in memory); here each error must also name the file, so
    /// the cuts are sampled (every 5th byte, and every one near either end).
    #[test]
    fn cuts_of_a_trace_file_are_errors_naming_it() {
        let text = trace().to_json();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("failure-1.json");
        let named = path.display().to_string();
        let near_end = |c: usize| c < 32 || c + 32 > text.len();
        for cut in (0..text.len()).filter(|c| c % 5 == 0 || near_end(*c)) {
            std::fs::write(&path, &text.as_bytes()[..cut]).unwrap();
            let e = format!("{:#}", read_trace(&path).unwrap_err());
            assert!(e.contains(&named), "cut at {cut}: {e}");
            assert!(
                e.contains("not a wayfarer trace") || e.contains("valid UTF-8"),
                "cut at {cut}: {e}"
            );
        }
        std::fs::write(&path, &text).unwrap();
        assert_eq!(read_trace(&path).unwrap(), trace());
    }

    #[test]
    fn a_missing_file_a_directory_and_another_version_are_errors_naming_them() {
        let dir = tempfile::tempdir().unwrap();
        for path in [dir.path().join("nope.json"), dir.path().to_path_buf()] {
            let e = format!("{:#}", read_trace(&path).unwrap_err());
            assert!(e.contains(&path.display().to_string()), "{e}");
        }
        let path = dir.path().join("new.json");
        let text = trace().to_json().replacen(
            &format!("\"version\": {TRACE_VERSION}"),
            "\"version\": 7",
            1,
        );
        std::fs::write(&path, text).unwrap();
        let e = format!("{:#}", read_trace(&path).unwrap_err());
        assert!(e.contains(&path.display().to_string()), "{e}");
        assert!(e.contains("trace format version 7"), "{e}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        #[test]
        fn a_file_of_any_bytes_is_a_trace_or_an_error_naming_it(
            bytes in prop::collection::vec(any::<u8>(), 0..512)
        ) {
            read_bytes(&bytes)?;
        }

        #[test]
        fn a_trace_file_with_flipped_bytes_is_a_trace_or_an_error_naming_it(
            flips in prop::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..6)
        ) {
            let mut bytes = trace().to_json().into_bytes();
            for (at, x) in flips {
                let i = at.index(bytes.len());
                bytes[i] ^= x;
            }
            read_bytes(&bytes)?;
        }
    }
}
