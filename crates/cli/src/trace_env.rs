//! Opening a trace for `replay` and `minimize`: read it, find the application (the
//! trace's URL, `--url`, or the bundled demo app served again), fill in its secrets from
//! the environment, and start a browser configured as the recording one was.

use std::path::Path;

use anyhow::{anyhow, Context, Result};
use wayfarer_browser::{find_chrome, BrowserEnv, BrowserOptions};
use wayfarer_core::trace::{unmask, Trace};
use wayfarer_core::{Action, Oracles, WithResetHook};

use crate::args::TraceArgs;
use crate::explore::{check_reachable, parse_url};
use crate::reset_hook::ResetHook;

/// A trace ready to be replayed, with everything that must live as long as replays do.
pub struct Target {
    /// The trace as written (secrets as references, recorded origin).
    pub trace: Trace,
    /// The actions to perform: moved to where the application runs now, secrets filled in.
    pub actions: Vec<Action>,
    /// The browser, behind the configured reset hook (if any).
    pub env: WithResetHook<BrowserEnv>,
    pub oracles: Oracles,
    /// The expected signature, moved like the actions.
    pub expected: String,
    pub start_url: String,
    server: Option<wayfarer_testapps::Server>,
}

impl Target {
    pub fn close(mut self) {
        use wayfarer_core::Environment;
        self.env.close();
        if let Some(s) = self.server.take() {
            s.shutdown();
        }
    }
}

pub fn read_trace(path: &Path) -> Result<Trace> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read trace {}", path.display()))?;
    Trace::parse(&text).with_context(|| format!("cannot use {}", path.display()))
}

pub fn open(path: &Path, args: &TraceArgs) -> Result<Target> {
    open_trace(read_trace(path)?, args)
}

/// As [`open`], for a trace in memory.
pub fn open_trace(trace: Trace, args: &TraceArgs) -> Result<Target> {
    let (config, _secrets) = crate::config_file::load(args.config.as_deref())?;
    let mut server = None;
    let start = if let Some(raw) = &args.url {
        parse_url(raw)?
    } else if let Some(app) = &trace.setup.app {
        let which = wayfarer_testapps::App::from_name(app)
            .ok_or_else(|| anyhow!("the trace names an unknown bundled app {app:?}"))?;
        let bugs = !args.fixed && trace.setup.app_bugs.unwrap_or(true);
        let s = wayfarer_testapps::Server::start(
            which,
            wayfarer_testapps::ServeOptions {
                bugs,
                ..Default::default()
            },
        )
        .context("cannot start the bundled application")?;
        let url = parse_url(&s.url())?;
        if !args.quiet {
            eprintln!(
                "wayfarer: serving the {app} demo at {url} (seeded bugs {})",
                if bugs { "on" } else { "off" }
            );
        }
        server = Some(s);
        url
    } else {
        parse_url(&trace.setup.start_url)
            .context("the trace's start URL is not usable; give one with --url")?
    };
    if args.fixed && trace.setup.app.is_none() {
        eprintln!("note: --fixed only applies to traces of the bundled demo applications");
    }
    let moved = trace.rebased(&start);
    // What the trace's references bring in is a secret: masked in the log from now on.
    let env_var = |k: &str| {
        let v = std::env::var(k).ok();
        if let Some(v) = &v {
            crate::log_mask::add([(k.to_string(), v.clone())]);
        }
        v
    };
    let fill = |s: &str| {
        unmask(s, env_var).map_err(|e| anyhow!("{e}; the trace refers to them as ${{NAME}}"))
    };
    let mut actions = Vec::with_capacity(moved.steps.len());
    for st in &moved.steps {
        let mut a = st.action.clone();
        if let Some(v) = &a.value {
            a.value = Some(fill(v)?);
        }
        actions.push(a);
    }
    let mut login = moved.setup.login.clone();
    for l in &mut login {
        if let Some(v) = &l.value {
            l.value = Some(fill(v)?);
        }
    }
    if args.cdp.is_none() && server.is_none() {
        check_reachable(&start)?;
    }
    let chrome = match &args.cdp {
        Some(_) => None,
        None => {
            let explicit = args.chrome.clone().or(moved.setup.browser.chrome.clone());
            Some(find_chrome(explicit.as_deref())?)
        }
    };
    let mut origins = vec![start.origin().ascii_serialization()];
    origins.extend(moved.setup.allow_origins.iter().cloned());
    let oracles = Oracles::new(moved.setup.oracles.clone(), origins)?;
    let hook = ResetHook::new(&config.reset, &start)?;
    if let (Some(h), false) = (&hook, args.quiet) {
        eprintln!(
            "wayfarer: before every replay the reset hook runs {}",
            h.describe()
        );
    }
    let browser = BrowserEnv::launch(BrowserOptions {
        start_url: start.clone(),
        config: moved.setup.browser.clone(),
        actions: Default::default(),
        allow_origins: moved.setup.allow_origins.clone(),
        subresources: config.scope.subresources,
        deny: Vec::new(),
        login,
        cdp_url: args.cdp.clone(),
        chrome,
        coverage: Default::default(),
    })
    .context("cannot start the browser")?;
    let env = WithResetHook::new(browser, hook.map(ResetHook::boxed));
    Ok(Target {
        expected: moved.expected.signature.clone(),
        start_url: start.to_string(),
        trace,
        actions,
        env,
        oracles,
        server,
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use wayfarer_core::trace::{Expected, ReplaySetup, TraceStep, TRACE_VERSION};
    use wayfarer_core::ActionKind;

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
