//! One exploration put together: the strategy and its language model, the application
//! (its server started when configured), the run store, the browsers of the workers, each
//! behind the application, and the loop with the caller's observers.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use wayfarer_browser::{find_chrome, BrowserEnv, BrowserOptions, CoveragePool};
use wayfarer_core::candidates::DenyText;
use wayfarer_core::config::Restart;
use wayfarer_core::infer::InferenceConfig;
use wayfarer_core::secrets::Secrets;
use wayfarer_core::{
    run_workers, AutoWorkers, Budget, Config, Environment, Observer, Oracles, RunOptions,
    RunSummary, WithApp,
};
use wayfarer_store::{RunMeta, RunStart, StoreWriter};

use crate::app::Application;
use crate::shrink::{ShrinkBudget, DEFAULT_CONFIRM};
use crate::{usage, Notice, Notices, RunError, Why};

/// What the flags of a run say; `None` leaves it to the configuration, then the default.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// The start URL as given: a full URL, or (with a server) a path or a URL with
    /// `{port}`, or nothing (with a server: its URL).
    pub url: Option<String>,
    pub strategy: Option<String>,
    pub budget: Option<Budget>,
    pub seed: Option<u64>,
    pub episode_steps: Option<u32>,
    pub inputs: Option<String>,
    pub inference: Option<InferenceConfig>,
    /// webrled: networks to start from (a run directory or a folder holding them).
    pub networks: Option<PathBuf>,
    /// `--llm URL` and `--model NAME`.
    pub llm: Option<String>,
    pub model: Option<String>,
    /// A run of the same strategy and seed without inference, to measure the deviation.
    pub deviation_from: Option<PathBuf>,
    /// The run directory.
    pub out: PathBuf,
    /// CDP endpoints to drive instead of launching Chromium (one worker each, or all
    /// the workers on one endpoint).
    pub cdp: Vec<String>,
    /// A WebDriver hub to ask for the browsers instead (one session per worker).
    pub grid: Option<String>,
    pub workers: Option<Workers>,
    pub chrome: Option<String>,
    pub isolate: bool,
    /// A bundled application served for the run: its name and whether its bugs are on.
    pub bundled: Option<(String, bool)>,
    /// The command line, for the report header.
    pub command: String,
    /// Set from outside (Ctrl-C, SIGTERM) to end the run early with a report.
    pub stop: Arc<AtomicBool>,
    /// Shrinking after the run (`--shrink`; default: a fifth of the exploring time).
    pub shrink: Option<ShrinkBudget>,
    /// Confirming replays of each minimal trace (`--confirm`; default 3).
    pub confirm: Option<u32>,
    /// An earlier run to compare the failures with (`--baseline`).
    pub baseline: Option<wayfarer_report::baseline::Baseline>,
}

/// A finished exploration.
pub struct Explored {
    /// The run directory (its store holds everything the reports need).
    pub out: PathBuf,
    pub summary: RunSummary,
}

/// Explore with `settings` and `config` (its secrets masked wherever the run writes),
/// recording into `settings.out`; `observers` see every step besides the store. The
/// application is `app` when the caller started it (a benchmark sharing one server),
/// else the one `config` describes, started here and stopped at the end.
pub fn explore(
    settings: &Settings,
    mut config: Config,
    secrets: Secrets,
    app: Option<&Application>,
    observers: &mut [&mut (dyn Observer + Send)],
    say: Notices,
) -> Result<Explored, RunError> {
    let s = settings;
    // A specification that does not load stops the run before anything starts.
    let spec = match &config.spec.file {
        Some(file) => {
            let b = wayfarer_spec::bundle(std::path::Path::new(file))
                .map_err(|e| usage!("the specification: {e}"))?;
            say(Notice::Info(format!(
                "wayfarer: checking the properties of {} ({} file{}) on every state",
                b.entry.display(),
                b.files.len(),
                if b.files.len() == 1 { "" } else { "s" }
            )));
            Some(wayfarer_core::trace::SpecSetup {
                file: file.clone(),
                bundle: b.script,
            })
        }
        None => None,
    };
    let budget: Budget = match s.budget {
        Some(b) => b,
        None => config
            .budget
            .budget
            .as_deref()
            .unwrap_or("300")
            .parse()
            .map_err(|e| usage!("{e}"))?,
    };
    let strategy = s
        .strategy
        .clone()
        .or(config.strategy.name.clone())
        .unwrap_or_else(|| wayfarer_strategies::DEFAULT.into());
    let seed = s.seed.or(config.strategy.seed).unwrap_or(1);
    if let Some(dir) = &s.networks {
        // A run directory holds its networks in model/.
        let inner = dir.join("model");
        let dir = if inner.join("webrled.json").exists() {
            inner
        } else {
            dir.clone()
        };
        let dir = dir.to_string_lossy().into_owned();
        config.strategy.set("webrled", "model", dir.into());
    }
    if config.strategy.get("webrled", "save").is_none() {
        let save = s.out.join("model").to_string_lossy().into_owned();
        config.strategy.set("webrled", "save", save.into());
    }
    config.llm = wayfarer_llm::with_flags(&config.llm, s.llm.as_deref(), s.model.as_deref());
    let llm = crate::llm::client(&config.llm, &s.out, secrets.clone())?;
    let wayfarer_strategies::Setup {
        mut agent,
        mut abstraction,
        episode_steps,
        llm: usage,
        ..
    } = wayfarer_strategies::setup(
        &strategy,
        &config,
        s.inputs.as_deref(),
        s.episode_steps,
        llm,
    )
    .map_err(|e| usage!("{e}"))?;
    let baseline = match &s.deviation_from {
        Some(dir) => Some(baseline_actions(dir, &strategy, seed, say)?),
        None => None,
    };
    let (mut workers, auto) = worker_count(s.workers, s.cdp.len())?;
    let restart_each = config
        .server
        .as_ref()
        .is_some_and(|sv| sv.restart == Restart::Episode);
    // Asked once: making a worker's agent is not free (webrled copies its networks).
    let shares = workers == 1 || agent.worker().is_some();
    if auto && workers > 1 {
        // What auto cannot use, it does not ask for.
        let probe = AutoWorkers::default().probe_steps;
        let alone = if !shares {
            Some(format!(
                "the strategy {strategy} cannot share what it learns between workers"
            ))
        } else if restart_each && app.is_none() {
            Some("server.restart = \"episode\" restarts the one server every worker uses".into())
        } else if let (Some(n), None) = (budget.actions.filter(|&n| n <= 2 * probe), budget.time) {
            // Browsers that would start for a handful of steps after the probe.
            Some(format!(
                "a budget of {n} actions, little beyond the {probe}-step probe"
            ))
        } else {
            None
        };
        if let Some(why) = alone {
            say(Notice::Info(format!(
                "wayfarer: --workers auto: one browser ({why})"
            )));
            workers = 1;
        }
    }
    if workers > 1 && !shares {
        return Err(usage!(
            "the strategy {strategy} cannot share what it learns between workers yet; run it with --workers 1"
        ));
    }
    if workers > 1 && restart_each && app.is_none() {
        return Err(usage!(
            "server.restart = \"episode\" restarts the one server every worker uses, under the \
             others' feet; with {workers} workers use restart = \"run\" (one fresh server for \
             the run), or explore with one worker"
        ));
    }
    let chrome = if s.cdp.is_empty() && s.grid.is_none() {
        let explicit = s.chrome.clone().or(config.browser.chrome.clone());
        Some(find_chrome(explicit.as_deref()).map_err(|e| RunError::Environment(e.to_string()))?)
    } else {
        None
    };
    // Started here (and stopped when this function returns) unless the caller holds it.
    let owned;
    let app = match app {
        Some(a) => a,
        None => {
            owned = Application::prepare(
                &config,
                s.url.as_deref(),
                &s.out.join("server.log"),
                config.reset.explore,
                say,
            )?;
            &owned
        }
    };
    let url = app.start_url().clone();
    config.browser.isolate |= s.isolate;
    let browser_config = config.browser.clone();
    let mut app_origins = vec![url.origin().ascii_serialization()];
    app_origins.extend(config.scope.allow_origins.iter().cloned());
    let oracles = Oracles::new(config.oracles.clone(), app_origins).map_err(|e| usage!("{e}"))?;
    let inference = s.inference;
    let mut opts = RunOptions {
        budget,
        episode_steps,
        seed,
        deny: DenyText::new(&config.deny),
        oracles,
        stop: s.stop.clone(),
        target: url.to_string(),
        inference,
        llm: usage,
        auto_workers: (auto && workers > 1).then(AutoWorkers::default),
        handover: None,
    };

    let mut meta = RunMeta::new(RunStart {
        url: url.as_str(),
        config: &config,
        strategy: &strategy,
        seed,
        budget: opts.budget,
        episode_steps: opts.episode_steps,
        command: &s.command,
        app: s.bundled.as_ref().map(|(a, bugs)| (a.as_str(), *bugs)),
    });
    meta.setup.spec = spec.clone();
    let mut store = StoreWriter::create(&s.out, &meta, secrets)
        .environment(|| format!("cannot create the run store in {}", s.out.display()))?;

    let guessing = inference
        .map(|i| format!(", state inference {i}"))
        .unwrap_or_default();
    let fleet = match (workers, auto) {
        (1, _) => String::new(),
        (n, true) => format!(", up to {n} workers: --workers auto decides after the first steps"),
        (n, false) => format!(", {n} workers"),
    };
    say(Notice::Info(format!(
        "wayfarer: exploring {url} with {strategy} (seed {seed}, budget {budget}{guessing}{fleet}); Ctrl-C stops with a report"
    )));
    if let (Some(u), Some(m)) = (&config.llm.url, &config.llm.model) {
        say(Notice::Info(format!(
            "wayfarer: asking {m} at {} (answers cached in the run store)",
            wayfarer_llm::display_endpoint(u)
        )));
    }
    if app.serves() && restart_each {
        say(Notice::Info(
            "wayfarer: the server is restarted before every episode (server.restart = \"episode\")"
                .into(),
        ));
    }
    if let (Some(h), true) = (app.hook(), config.reset.explore) {
        say(Notice::Info(format!(
            "wayfarer: before every episode the reset hook runs {}",
            h.describe()
        )));
        if workers > 1 {
            say(Notice::Warning(format!(
                "wayfarer: warning: with {workers} workers the hook runs before every episode of each, while the others explore"
            )));
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
        grid: s.grid.clone(),
        chrome,
        // One pool: the run's coverage is what any worker's browser covered.
        coverage: CoveragePool::default(),
        spec: spec.map(|s| std::sync::Arc::<str>::from(s.bundle)),
    };
    let browsers = launch_workers(&base, &s.cdp, workers, say)?;
    let mut envs: Vec<WithApp<BrowserEnv>> = browsers
        .into_iter()
        .map(|b| WithApp::new(b, app.handle()))
        .collect();

    // Failures are shrunk on the run's own browsers from the moment they are found.
    let pool = crate::shrink::Pool::new(
        opts.oracles.clone(),
        shrinking(s, &config),
        budget.time,
        envs.len(),
    )
    .map(Arc::new);
    opts.handover = pool
        .clone()
        .map(|p| p as Arc<dyn wayfarer_core::runner::Handover>);
    let mut found = pool.clone().map(crate::shrink::PoolObserver);
    let result = {
        let mut all: Vec<&mut (dyn Observer + Send)> = vec![&mut store];
        if let Some(f) = found.as_mut() {
            all.push(f);
        }
        for o in observers.iter_mut() {
            all.push(&mut **o);
        }
        run_workers(
            envs.iter_mut()
                .map(|e| e as &mut (dyn Environment + Send))
                .collect(),
            agent.as_mut(),
            abstraction.as_mut(),
            &opts,
            &mut all,
        )
    };
    for env in &mut envs {
        env.close();
    }
    let mut summary = result.map_err(|e| RunError::Environment(e.to_string()))?;
    if let Some(base) = baseline {
        let actions: Vec<_> = wayfarer_store::load(&s.out)
            .map(|d| d.steps.into_iter().map(|s| s.record.action).collect())
            .unwrap_or_default();
        summary.deviation = Some(wayfarer_core::infer::deviation(&base, &actions));
        // The store's summary is replaced by the one that knows the deviation.
        store.on_end(&summary);
    }
    let stopped = s.stop.load(std::sync::atomic::Ordering::SeqCst);
    if pool.is_some_and(|p| p.apply(&mut summary, stopped, say)) {
        store.on_end(&summary);
    }
    if let Some(b) = &s.baseline {
        let target = summary.target.clone();
        summary.baseline = Some(wayfarer_report::baseline::compare(
            b,
            &target,
            &mut summary.failures,
        ));
        store.on_end(&summary);
    }
    if let Some(e) = store.error() {
        // The run went on; what the store holds is still reported.
        say(Notice::Warning(format!(
            "warning: the run store stopped recording: {e}"
        )));
    }
    Ok(Explored {
        out: s.out.clone(),
        summary,
    })
}

/// `--workers`: how many browsers explore at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workers {
    Count(u32),
    /// Up to [`AUTO_MAX`]: the first probes alone, then as many explore as the machine
    /// has room for (`wayfarer_core::runner::auto`).
    Auto,
}

/// The most browsers `--workers auto` runs.
pub const AUTO_MAX: usize = 3;

impl std::str::FromStr for Workers {
    type Err = String;

    fn from_str(s: &str) -> Result<Workers, String> {
        match s.trim() {
            "auto" => Ok(Workers::Auto),
            n => n
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=64).contains(n))
                .map(Workers::Count)
                .ok_or_else(|| format!("{s:?} is not `auto` or a number from 1 to 64")),
        }
    }
}

impl std::fmt::Display for Workers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Workers::Count(n) => write!(f, "{n}"),
            Workers::Auto => f.write_str("auto"),
        }
    }
}

/// How many workers a run has (`--workers`, or one per CDP endpoint, or one) and
/// whether `auto` chooses how many of them explore.
pub fn worker_count(asked: Option<Workers>, endpoints: usize) -> Result<(usize, bool), RunError> {
    Ok(match (asked, endpoints) {
        (Some(Workers::Auto), 0) => (AUTO_MAX, true),
        (Some(Workers::Auto), k) => (k, true),
        (Some(Workers::Count(n)), 0) => (n as usize, false),
        (None, 0) => (1, false),
        (None, k) => (k, false),
        (Some(Workers::Count(n)), k) if n as usize == k => (k, false),
        // One endpoint, N connections: a grid gives each its own browser.
        (Some(Workers::Count(n)), 1) => (n as usize, false),
        (Some(Workers::Count(n)), k) => {
            return Err(usage!(
                "--workers {n} with {k} CDP endpoints: each worker drives one endpoint; drop --workers, give {n} endpoints, or give one endpoint (a grid) for {n} connections to it"
            ))
        }
    })
}

/// Start (or attach to) the workers' browsers at once. A browser that cannot be started
/// or reached is skipped with a warning while another one works; none at all is an error.
fn launch_workers(
    base: &BrowserOptions,
    endpoints: &[String],
    workers: usize,
    say: Notices,
) -> Result<Vec<BrowserEnv>, RunError> {
    let options: Vec<BrowserOptions> = if endpoints.is_empty() {
        vec![base.clone(); workers]
    } else if endpoints.len() == 1 && workers > 1 {
        // Several connections to one endpoint: a grid gives each a browser; one Chromium
        // gives each a page, so each worker keeps to a browser context of its own.
        say(Notice::Info(format!(
            "wayfarer: {workers} connections to {} (a grid gives each its own browser; one Chromium, a context each)",
            wayfarer_browser::shown_endpoint(&endpoints[0])
        )));
        let mut one = base.clone();
        one.cdp_url = Some(endpoints[0].clone());
        one.config.isolate = true;
        vec![one; workers]
    } else {
        endpoints
            .iter()
            .map(|e| BrowserOptions {
                cdp_url: Some(e.clone()),
                ..base.clone()
            })
            .collect()
    };
    let names: Vec<Option<String>> = options
        .iter()
        .map(|o| match (&o.grid, &o.cdp_url) {
            (Some(g), _) => Some(format!("grid {}", wayfarer_browser::shown_endpoint(g))),
            (None, u) => u.as_deref().map(wayfarer_browser::shown_endpoint),
        })
        .collect();
    let results = names.into_iter().zip(BrowserEnv::launch_all(options));
    let mut browsers = Vec::new();
    let mut first_error = None;
    for (i, (name, result)) in results.enumerate() {
        match result {
            Ok(b) => browsers.push(b),
            Err(e) if workers == 1 => {
                return Err(RunError::Environment(format!(
                    "cannot start the browser: {e}"
                )))
            }
            Err(e) => {
                let which = name.unwrap_or_else(|| format!("the browser of worker {i}"));
                say(Notice::Warning(format!(
                    "wayfarer: warning: skipping {which}: {e}"
                )));
                first_error.get_or_insert(e);
            }
        }
    }
    match first_error {
        Some(e) if browsers.is_empty() => Err(RunError::Environment(format!(
            "cannot start any browser: {e}"
        ))),
        _ => {
            if workers > 1 {
                say(Notice::Info(format!(
                    "wayfarer: {} of {workers} workers have a browser",
                    browsers.len()
                )));
            }
            Ok(browsers)
        }
    }
}

/// The actions of the run in `dir`, checked to be comparable: same strategy and seed.
fn baseline_actions(
    dir: &Path,
    strategy: &str,
    seed: u64,
    say: Notices,
) -> Result<Vec<wayfarer_core::Action>, RunError> {
    let data = wayfarer_store::load(dir)
        .usage(|| format!("--deviation-from: cannot read the run in {}", dir.display()))?;
    if data.meta.strategy != strategy || data.meta.seed != seed {
        return Err(usage!(
            "--deviation-from: the run in {} used {} with seed {}; this run uses {strategy} with seed {seed}, so their actions cannot be compared",
            dir.display(),
            data.meta.strategy,
            data.meta.seed
        ));
    }
    if data
        .summary
        .inference
        .as_ref()
        .is_some_and(|i| i.disabled.is_none())
    {
        say(Notice::Warning(format!(
            "warning: the run in {} used state inference itself; the deviation is measured against it",
            dir.display()
        )));
    }
    Ok(data.steps.into_iter().map(|s| s.record.action).collect())
}

/// Shrinking's time and confirming replays: the flags, then the file (checked when it
/// was read), then the defaults.
fn shrinking(s: &Settings, config: &Config) -> (ShrinkBudget, u32) {
    let shrink = s
        .shrink
        .or_else(|| config.budget.shrink.as_deref()?.parse().ok())
        .unwrap_or_default();
    let confirm = s
        .confirm
        .or(config.budget.confirm)
        .unwrap_or(DEFAULT_CONFIRM);
    (shrink, confirm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_are_asked_for_or_one_per_endpoint_or_n_on_one() {
        let n = |w: u32| Some(Workers::Count(w));
        assert_eq!(worker_count(None, 0).unwrap(), (1, false));
        assert_eq!(worker_count(n(3), 0).unwrap(), (3, false));
        assert_eq!(worker_count(None, 2).unwrap(), (2, false));
        assert_eq!(worker_count(n(2), 2).unwrap(), (2, false));
        assert_eq!(
            worker_count(Some(Workers::Auto), 0).unwrap(),
            (AUTO_MAX, true)
        );
        assert_eq!(worker_count(Some(Workers::Auto), 2).unwrap(), (2, true));
        let e = worker_count(n(3), 2).unwrap_err().to_string();
        assert!(e.contains("--workers 3 with 2 CDP endpoints"), "{e}");
        // One endpoint and a count: that many connections to it (a grid).
        assert_eq!(worker_count(n(3), 1).unwrap(), (3, false));
        assert!(e.contains("one endpoint (a grid) for 3 connections"), "{e}");
    }

    #[test]
    fn workers_parse_as_auto_or_a_count() {
        assert_eq!("auto".parse::<Workers>(), Ok(Workers::Auto));
        assert_eq!("3".parse::<Workers>(), Ok(Workers::Count(3)));
        assert!("0".parse::<Workers>().unwrap_err().contains("from 1 to 64"));
        assert!("many".parse::<Workers>().is_err());
        assert_eq!(Workers::Auto.to_string(), "auto");
    }

    #[test]
    fn shrinking_comes_from_the_flags_then_the_file_then_the_defaults() {
        let mut config = Config::default();
        let mut s = Settings::default();
        assert_eq!(
            shrinking(&s, &config),
            (ShrinkBudget::default(), DEFAULT_CONFIRM)
        );
        config.budget.shrink = Some("5m".into());
        config.budget.confirm = Some(5);
        assert_eq!(
            shrinking(&s, &config),
            (ShrinkBudget::Fixed(std::time::Duration::from_secs(300)), 5)
        );
        s.shrink = Some(ShrinkBudget::Off);
        s.confirm = Some(2);
        assert_eq!(shrinking(&s, &config), (ShrinkBudget::Off, 2));
    }
}
