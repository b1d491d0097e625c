//! `explore` and `demo`: wire the configuration, the browser, the strategy and the
//! observers together, run the loop, and report.

use std::net::{TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use url::Url;
use wayfarer_browser::{find_chrome, BrowserEnv, BrowserOptions, CoveragePool};
use wayfarer_core::candidates::DenyText;
use wayfarer_core::config::DenyRule;
use wayfarer_core::{
    run_workers, Budget, Config, Environment, Observer, Oracles, RunOptions, RunSummary,
    WithResetHook,
};

use wayfarer_store::{RunMeta, RunStart, StoreWriter};

use crate::args::RunArgs;
use crate::progress::ProgressLine;
use crate::{config_file, report};

/// Parse a start URL, with a message that says what a good one looks like.
pub fn parse_url(raw: &str) -> Result<Url> {
    let url = Url::parse(raw).map_err(|e| {
        anyhow!("{raw:?} is not a URL ({e}); give a full URL such as http://localhost:3000/")
    })?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        bail!("{raw:?} is not an http(s) URL; give a full URL such as http://localhost:3000/");
    }
    Ok(url)
}

/// Fail fast, with a clear line, when nothing listens at the start URL.
pub fn check_reachable(url: &Url) -> Result<()> {
    let host = url.host_str().unwrap_or_default();
    let port = url.port_or_known_default().unwrap_or(80);
    let addrs: Vec<_> = (host, port)
        .to_socket_addrs()
        .with_context(|| format!("cannot resolve {host} for {url}"))?
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
    bail!("cannot reach {url}: {why}; is the application running?")
}

/// Run an exploration of `url`; returns the process exit code (0 clean, 1 failures).
pub fn explore(raw_url: &str, args: &RunArgs) -> Result<i32> {
    let out = explore_url(raw_url, args, None, |_| {})?;
    report::emit(&out, args)
}

/// The output directory of a run.
pub fn out_dir(args: &RunArgs) -> PathBuf {
    args.out
        .clone()
        .unwrap_or_else(|| PathBuf::from("wayfarer-out"))
}

/// A bundled application a run explores: its name and whether its bugs are on.
#[derive(Clone, Copy)]
pub(crate) struct Bundled<'a> {
    app: &'a str,
    bugs: bool,
}

/// Explore `url`, recording the run into its output directory; returns that directory.
pub(crate) fn explore_url(
    raw_url: &str,
    args: &RunArgs,
    bundled: Option<Bundled>,
    adjust: impl FnOnce(&mut Config),
) -> Result<PathBuf> {
    let url = parse_url(raw_url)?;
    let (mut config, secrets) = config_file::load(args.config.as_deref())?;
    adjust(&mut config);
    let budget: Budget = args
        .budget
        .clone()
        .or(config.budget.budget.clone())
        .unwrap_or_else(|| "300".into())
        .parse()?;
    let strategy = args
        .strategy
        .clone()
        .or(config.strategy.name.clone())
        .unwrap_or_else(|| wayfarer_strategies::DEFAULT.into());
    let seed = args.seed.or(config.strategy.seed).unwrap_or(1);
    if let Some(dir) = &args.networks {
        // A run directory holds its networks in model/.
        let inner = dir.join("model");
        let dir = if inner.join("webrled.json").exists() {
            inner
        } else {
            dir.clone()
        };
        config.strategy.webrled.model = Some(dir.to_string_lossy().into_owned());
    }
    if config.strategy.webrled.save.is_none() {
        let save = out_dir(args).join("model");
        config.strategy.webrled.save = Some(save.to_string_lossy().into_owned());
    }
    config.llm = wayfarer_llm::with_flags(&config.llm, args.llm.as_deref(), args.model.as_deref());
    let llm = crate::llm::client(&config.llm, &out_dir(args), secrets.clone())?;
    let wayfarer_strategies::Setup {
        mut agent,
        mut abstraction,
        episode_steps,
        llm: usage,
        ..
    } = wayfarer_strategies::setup(
        &strategy,
        &config,
        args.inputs.as_deref(),
        args.episode_steps,
        llm,
    )?;

    let inference = wayfarer_core::infer::parse_inference(&args.inference)?;
    let baseline = match &args.deviation_from {
        Some(dir) => Some(baseline_actions(dir, &strategy, seed)?),
        None => None,
    };
    let endpoints = cdp_endpoints(args)?;
    let workers = worker_count(args.workers, endpoints.len())?;
    if workers > 1 && agent.worker().is_none() {
        bail!(
            "the strategy {strategy} cannot share what it learns between workers yet; run it with --workers 1"
        );
    }
    let chrome = if endpoints.is_empty() {
        check_reachable(&url)?;
        let explicit = args.chrome.clone().or(config.browser.chrome.clone());
        Some(find_chrome(explicit.as_deref())?)
    } else {
        None
    };
    config.browser.isolate |= args.isolate;
    let browser_config = config.browser.clone();
    let mut app_origins = vec![url.origin().ascii_serialization()];
    app_origins.extend(config.scope.allow_origins.iter().cloned());
    let oracles = Oracles::new(config.oracles.clone(), app_origins)?;

    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        // A second Ctrl-C while the run winds down kills the process as usual.
        let _ = ctrlc::set_handler(move || {
            if stop.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
        });
    }
    let opts = RunOptions {
        budget,
        episode_steps,
        seed,
        deny: DenyText::new(&config.deny),
        oracles,
        stop,
        target: url.to_string(),
        inference,
        llm: usage,
    };

    let out = out_dir(args);
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let meta = RunMeta::new(RunStart {
        url: url.as_str(),
        config: &config,
        strategy: &strategy,
        seed,
        budget: opts.budget,
        episode_steps: opts.episode_steps,
        command: &command,
        app: bundled.map(|b| (b.app, b.bugs)),
    });
    let mut store = StoreWriter::create(&out, &meta, secrets)
        .with_context(|| format!("cannot create the run store in {}", out.display()))?;

    let show_progress = !args.quiet && !args.json;
    if show_progress {
        let guessing = inference
            .map(|i| format!(", state inference {i}"))
            .unwrap_or_default();
        let fleet = match workers {
            1 => String::new(),
            n => format!(", {n} workers"),
        };
        eprintln!(
            "wayfarer: exploring {url} with {strategy} (seed {seed}, budget {budget}{guessing}{fleet}); Ctrl-C stops with a report"
        );
        if let (Some(u), Some(m)) = (&config.llm.url, &config.llm.model) {
            eprintln!(
                "wayfarer: asking {m} at {} (answers cached in the run store)",
                wayfarer_llm::display_endpoint(u)
            );
        }
    }
    // The reset hook runs before every episode only when the configuration asks for it.
    let hook = match config.reset.explore {
        true => crate::reset_hook::ResetHook::new(&config.reset, &url)?,
        false => None,
    };
    if let (Some(h), true) = (&hook, show_progress) {
        eprintln!(
            "wayfarer: before every episode the reset hook runs {}",
            h.describe()
        );
        if workers > 1 {
            eprintln!(
                "wayfarer: warning: with {workers} workers the hook runs before every episode of each, while the others explore"
            );
        }
    }
    let base = BrowserOptions {
        start_url: url.clone(),
        config: browser_config,
        actions: config.actions.clone(),
        allow_origins: config.scope.allow_origins.clone(),
        subresources: config.scope.subresources,
        deny: config.deny.clone(),
        login: config.login.clone(),
        cdp_url: None,
        chrome,
        // One pool: the run's coverage is what any worker's browser covered.
        coverage: CoveragePool::default(),
    };
    let browsers = launch_workers(&base, &endpoints, workers, show_progress)?;
    let mut envs = Vec::with_capacity(browsers.len());
    for browser in browsers {
        envs.push(WithResetHook::new(
            browser,
            hook.clone().map(crate::reset_hook::ResetHook::boxed),
        ));
    }

    let mut progress = ProgressLine::new();
    let result = {
        let mut observers: Vec<&mut (dyn Observer + Send)> = vec![&mut store];
        if show_progress {
            observers.push(&mut progress);
        }
        run_workers(
            envs.iter_mut()
                .map(|e| e as &mut (dyn Environment + Send))
                .collect(),
            agent.as_mut(),
            abstraction.as_mut(),
            &opts,
            &mut observers,
        )
    };
    for env in &mut envs {
        env.close();
    }
    let mut summary: RunSummary = result?;
    if let Some(base) = baseline {
        let actions: Vec<_> = wayfarer_store::load(&out)
            .map(|d| d.steps.into_iter().map(|s| s.record.action).collect())
            .unwrap_or_default();
        summary.deviation = Some(wayfarer_core::infer::deviation(&base, &actions));
        // The store's summary is replaced by the one that knows the deviation.
        store.on_end(&summary);
    }
    if let Some(e) = store.error() {
        // The run went on; what the store holds is still reported.
        eprintln!("warning: the run store stopped recording: {e}");
    }
    Ok(out)
}

/// The CDP endpoints to drive: the `--cdp` flags, then the lines of `--cdp-file`.
fn cdp_endpoints(args: &RunArgs) -> Result<Vec<String>> {
    let mut endpoints = args.cdp.clone();
    if let Some(file) = &args.cdp_file {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("--cdp-file: cannot read {}", file.display()))?;
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            if !["ws://", "wss://", "http://", "https://"]
                .iter()
                .any(|p| line.starts_with(p))
            {
                bail!(
                    "--cdp-file {}: line {}: {line:?} is not a CDP endpoint; give ws://host:port/devtools/browser/... or http://host:port",
                    file.display(),
                    i + 1
                );
            }
            endpoints.push(line.to_string());
        }
        if endpoints.is_empty() {
            bail!("--cdp-file {}: no endpoint in it", file.display());
        }
    }
    Ok(endpoints)
}

/// How many workers a run has: `--workers`, or one per CDP endpoint, or one.
fn worker_count(asked: Option<u32>, endpoints: usize) -> Result<usize> {
    Ok(match (asked.map(|n| n as usize), endpoints) {
        (Some(n), 0) => n,
        (None, 0) => 1,
        (None, k) => k,
        (Some(n), k) if n == k => k,
        (Some(n), k) => bail!(
            "--workers {n} with {k} CDP endpoint(s): each worker drives one endpoint; drop --workers or give {n} endpoints"
        ),
    })
}

/// Start (or attach to) the workers' browsers at once. A browser that cannot be started
/// or reached is skipped with a warning while another one works; none at all is an error.
fn launch_workers(
    base: &BrowserOptions,
    endpoints: &[String],
    workers: usize,
    show_progress: bool,
) -> Result<Vec<BrowserEnv>> {
    let options: Vec<BrowserOptions> = if endpoints.is_empty() {
        vec![base.clone(); workers]
    } else {
        endpoints
            .iter()
            .map(|e| BrowserOptions {
                cdp_url: Some(e.clone()),
                ..base.clone()
            })
            .collect()
    };
    let names: Vec<Option<String>> = options.iter().map(|o| o.cdp_url.clone()).collect();
    let results = names.into_iter().zip(BrowserEnv::launch_all(options));
    let mut browsers = Vec::new();
    let mut first_error = None;
    for (i, (name, result)) in results.enumerate() {
        match result {
            Ok(b) => browsers.push(b),
            Err(e) if workers == 1 => return Err(e).context("cannot start the browser"),
            Err(e) => {
                let which = name.unwrap_or_else(|| format!("the browser of worker {i}"));
                eprintln!("wayfarer: warning: skipping {which}: {e}");
                first_error.get_or_insert(e);
            }
        }
    }
    match first_error {
        Some(e) if browsers.is_empty() => Err(e).context("cannot start any browser"),
        _ => {
            if show_progress && workers > 1 {
                eprintln!(
                    "wayfarer: {} of {workers} workers have a browser",
                    browsers.len()
                );
            }
            Ok(browsers)
        }
    }
}

/// The actions of the run in `dir`, checked to be comparable: same strategy and seed.
fn baseline_actions(
    dir: &std::path::Path,
    strategy: &str,
    seed: u64,
) -> Result<Vec<wayfarer_core::Action>> {
    let data = wayfarer_store::load(dir)
        .with_context(|| format!("--deviation-from: cannot read the run in {}", dir.display()))?;
    if data.meta.strategy != strategy || data.meta.seed != seed {
        bail!(
            "--deviation-from: the run in {} used {} with seed {}; this run uses {strategy} with seed {seed}, so their actions cannot be compared",
            dir.display(),
            data.meta.strategy,
            data.meta.seed
        );
    }
    if data
        .summary
        .inference
        .as_ref()
        .is_some_and(|i| i.disabled.is_none())
    {
        eprintln!(
            "warning: the run in {} used state inference itself; the deviation is measured against it",
            dir.display()
        );
    }
    Ok(data.steps.into_iter().map(|s| s.record.action).collect())
}

/// The demo's budget when neither a flag nor the config gives one.
const DEMO_BUDGET: &str = "2m";

/// Serve a bundled application on 127.0.0.1 and explore it.
pub fn demo(app: &str, fixed: bool, args: &RunArgs) -> Result<i32> {
    let which = wayfarer_testapps::App::from_name(app)
        .filter(|a| wayfarer_testapps::App::all_apps().contains(a))
        .ok_or_else(|| {
            let names: Vec<&str> = wayfarer_testapps::App::all_apps()
                .iter()
                .map(|a| a.name())
                .collect();
            anyhow!("unknown demo app {app:?}; available: {}", names.join(", "))
        })?;
    let server = wayfarer_testapps::Server::start(
        which,
        wayfarer_testapps::ServeOptions {
            bugs: !fixed,
            ..Default::default()
        },
    )
    .context("cannot start the demo application")?;
    if !args.quiet && !args.json {
        eprintln!(
            "wayfarer: serving the {app} demo at {} (seeded bugs {})",
            server.url(),
            if fixed { "off" } else { "on" }
        );
    }
    // The demo knows its app: logging out only undoes the login, so it is never clicked.
    let bundled = Bundled { app, bugs: !fixed };
    let result = explore_url(&server.url(), args, Some(bundled), |c| {
        c.deny.push(DenyRule {
            selector: None,
            text: Some("Log out".into()),
        });
        // Two minutes of the default strategy find several seeded bugs of every app, and
        // a first look should end while the user is still watching.
        c.budget
            .budget
            .get_or_insert_with(|| DEMO_BUDGET.to_string());
    });
    server.shutdown();
    report::emit(&result?, args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_are_asked_for_or_one_per_endpoint() {
        assert_eq!(worker_count(None, 0).unwrap(), 1);
        assert_eq!(worker_count(Some(3), 0).unwrap(), 3);
        assert_eq!(worker_count(None, 2).unwrap(), 2);
        assert_eq!(worker_count(Some(2), 2).unwrap(), 2);
        let e = worker_count(Some(3), 2).unwrap_err().to_string();
        assert!(e.contains("--workers 3 with 2 CDP endpoint(s)"), "{e}");
    }

    fn args_with_file(text: &str) -> (tempfile::TempDir, RunArgs) {
        use clap::Parser;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("fleet.txt");
        std::fs::write(&file, text).unwrap();
        let cli = crate::args::Cli::try_parse_from([
            "wayfarer",
            "explore",
            "http://127.0.0.1:1/",
            "--cdp",
            "http://127.0.0.1:9222",
            "--cdp-file",
            file.to_str().unwrap(),
        ])
        .unwrap();
        match cli.command {
            crate::args::Command::Explore { run, .. } => (dir, run),
            _ => unreachable!("explore parses as explore"),
        }
    }

    #[test]
    fn a_file_of_endpoints_adds_to_the_flags_and_a_bad_line_is_named() {
        let (_d, args) =
            args_with_file("# farm\nws://10.0.0.2:9222/devtools/browser/x\n\n http://h:1 # b\n");
        assert_eq!(
            cdp_endpoints(&args).unwrap(),
            [
                "http://127.0.0.1:9222",
                "ws://10.0.0.2:9222/devtools/browser/x",
                "http://h:1"
            ]
        );
        let (_d, args) = args_with_file("http://h:1\nh:2\n");
        let e = cdp_endpoints(&args).unwrap_err().to_string();
        assert!(e.contains("line 2: \"h:2\" is not a CDP endpoint"), "{e}");
    }
}
