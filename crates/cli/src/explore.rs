//! `explore` and `demo`: the flags made into run settings, the run (put together by
//! wayfarer-run), its notices printed, and the report.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{anyhow, bail, Context, Result};
use wayfarer_core::config::DenyRule;
use wayfarer_core::{Config, Observer};
use wayfarer_run::{Notice, Settings};

use crate::args::RunArgs;
use crate::progress::ProgressLine;
use crate::report;

/// Run an exploration of `url` (with a server, a path or nothing); returns the process
/// exit code (0 clean, 1 failures, 2 ended by the environment).
pub fn explore(url: Option<&str>, args: &RunArgs) -> Result<i32> {
    let out = explore_url(url, args, None, |_| {})?;
    report::emit(&out, args)
}

/// The output directory of a run.
pub fn out_dir(args: &RunArgs) -> PathBuf {
    args.out
        .clone()
        .unwrap_or_else(|| PathBuf::from("wayfarer-out"))
}

/// The flag that stops a run: set by Ctrl-C, SIGTERM or SIGHUP (a second one while the
/// run winds down ends the process at once).
pub fn stop_flag() -> Arc<AtomicBool> {
    static STOP: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
    STOP.get_or_init(|| {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let _ = ctrlc::set_handler(move || {
            if flag.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
        });
        stop
    })
    .clone()
}

/// Print a run's notices: progress unless quiet (or JSON), warnings always.
pub fn printer(show: bool) -> impl FnMut(Notice) {
    move |n| match n {
        Notice::Info(line) if show => meprintln!("{line}"),
        Notice::Info(_) => {}
        Notice::Warning(line) => meprintln!("{line}"),
    }
}

/// The browsers a run explores with when `--workers` is not given: as many as the machine
/// has room for (`auto`: one where the application keeps the CPU busy; on Redmine two made
/// 1.45-1.6x the steps and 8-14% more JavaScript gain). A fleet (`--cdp`) is one worker per
/// endpoint, and a comparison with a baseline (`--deviation-from`) needs the one sequence
/// of actions of one browser.
fn default_workers(args: &RunArgs) -> Option<wayfarer_run::Workers> {
    let fleet = !args.cdp.is_empty() || args.cdp_file.is_some();
    (!fleet && args.deviation_from.is_none()).then_some(wayfarer_run::Workers::Auto)
}

/// The run settings the flags give.
pub fn settings(url: Option<&str>, args: &RunArgs) -> Result<Settings> {
    Ok(Settings {
        url: url.map(str::to_string),
        strategy: args.strategy.clone(),
        budget: args.budget.as_deref().map(str::parse).transpose()?,
        seed: args.seed,
        episode_steps: args.episode_steps,
        inputs: args.inputs.clone(),
        inference: wayfarer_core::infer::parse_inference(&args.inference)?,
        networks: args.networks.clone(),
        llm: args.llm.clone(),
        model: args.model.clone(),
        deviation_from: args.deviation_from.clone(),
        out: out_dir(args),
        cdp: cdp_endpoints(args)?,
        grid: args.grid.clone(),
        workers: args.workers.or_else(|| default_workers(args)),
        chrome: args.chrome.clone(),
        isolate: args.isolate,
        bundled: None,
        command: std::env::args().collect::<Vec<_>>().join(" "),
        stop: stop_flag(),
        shrink: args.shrink,
        confirm: args.confirm,
        baseline: args
            .baseline
            .as_deref()
            .map(wayfarer_report::baseline::load)
            .transpose()
            .context("--baseline")?,
    })
}

/// Flags that only make sense together, checked before a minute is spent exploring.
fn check_flags(args: &RunArgs, config: &Config) -> Result<()> {
    if args.fail_on.new && args.baseline.is_none() {
        bail!(
            "--fail-on new compares with an earlier run: give --baseline PATH (its report.json or run directory)"
        );
    }
    // The flag, else the file's `[budget] shrink` (checked when it was read).
    let from_file = config.budget.shrink.as_deref().and_then(|s| s.parse().ok());
    if args.fail_on.at_least.is_some()
        && args.shrink.or(from_file) == Some(wayfarer_run::ShrinkBudget::Off)
    {
        bail!(
            "--fail-on confirmed/flaky needs the confirming replays that come after shrinking; drop --shrink off (or `shrink = \"off\"` under [budget] in the config)"
        );
    }
    if args.annotations.is_some() && args.json {
        bail!(
            "--annotations writes workflow commands on stdout, where --json writes its object; use one (report.json holds the JSON)"
        );
    }
    if let Some(path) = &args.summary_md {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("--summary-md: cannot write {}", path.display()))?;
    }
    Ok(())
}

/// The configuration file with `--serve` applied.
pub fn config(args: &RunArgs) -> Result<(Config, wayfarer_core::secrets::Secrets)> {
    let (mut config, secrets) = wayfarer_run::config::load(args.config.as_deref())?;
    if let Some(cmd) = &args.serve {
        let mut sv = config.server.take().unwrap_or_default();
        sv.command = cmd.clone();
        config.server = Some(sv);
        config.validate().map_err(|e| anyhow!("--serve: {e}"))?;
    }
    Ok((config, secrets))
}

/// A bundled application a run explores: its name and whether its bugs are on.
#[derive(Clone, Copy)]
pub(crate) struct Bundled<'a> {
    app: &'a str,
    bugs: bool,
}

/// Explore `url`, recording the run into its output directory; returns that directory.
pub(crate) fn explore_url(
    url: Option<&str>,
    args: &RunArgs,
    bundled: Option<Bundled>,
    adjust: impl FnOnce(&mut Config),
) -> Result<PathBuf> {
    let (mut config, secrets) = config(args)?;
    check_flags(args, &config)?;
    if let Some(spec) = &args.spec {
        config.spec.file = Some(spec.to_string_lossy().into_owned());
    }
    adjust(&mut config);
    let mut settings = settings(url, args)?;
    settings.bundled = bundled.map(|b| (b.app.to_string(), b.bugs));
    let show_progress = !args.quiet && !args.json;
    let mut say = printer(show_progress);
    let mut progress = ProgressLine::new();
    let mut observers: Vec<&mut (dyn Observer + Send)> = Vec::new();
    if show_progress {
        observers.push(&mut progress);
    }
    let done = wayfarer_run::explore(&settings, config, secrets, None, &mut observers, &mut say)?;
    Ok(done.out)
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

/// The demo's budget when neither a flag nor the config gives one.
const DEMO_BUDGET: &str = "2m";

/// Serve a bundled application on 127.0.0.1 and explore it.
pub fn demo(app: &str, fixed: bool, args: &RunArgs) -> Result<i32> {
    let server = serve_bundled(app, fixed, args.quiet || args.json)?;
    // The demo knows its app: logging out only undoes the login, so it is never clicked.
    let bundled = Bundled { app, bugs: !fixed };
    let result = explore_url(Some(&server.url()), args, Some(bundled), |c| {
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

/// Serve the bundled application `app` on 127.0.0.1 (seeded bugs unless `fixed`).
fn serve_bundled(app: &str, fixed: bool, quiet: bool) -> Result<wayfarer_testapps::Server> {
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
    if !quiet {
        meprintln!(
            "wayfarer: serving the {app} demo at {} (seeded bugs {})",
            server.url(),
            if fixed { "off" } else { "on" }
        );
    }
    Ok(server)
}

/// `wayfarer serve APP`: serve a bundled application on 127.0.0.1 until stopped, its URL
/// on stdout once it answers (a `[server]` command for trying wayfarer's own options).
pub fn serve(app: &str, fixed: bool, port: u16, latency_ms: u64) -> Result<i32> {
    let which = wayfarer_testapps::App::from_name(app).ok_or_else(|| {
        anyhow!(
            "unknown application {app:?}; available: expense, clinic, splitter, board, board-delegated, hazards"
        )
    })?;
    let server = wayfarer_testapps::Server::start(
        which,
        wayfarer_testapps::ServeOptions {
            bugs: !fixed,
            port,
            latency: std::time::Duration::from_millis(latency_ms),
        },
    )
    .with_context(|| format!("cannot serve {app} on port {port}"))?;
    mprintln!("{}", server.url());
    let stop = stop_flag();
    while !stop.load(Ordering::SeqCst) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    server.shutdown();
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

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
