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
        deny: Vec::new(),
        login,
        cdp_url: args.cdp.clone(),
        chrome,
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
