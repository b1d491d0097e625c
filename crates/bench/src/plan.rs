//! What a benchmark runs: targets x strategies (and peers) x seeds, with one budget.

use std::path::PathBuf;
use std::sync::Arc;

use wayfarer_core::config::DenyRule;
use wayfarer_core::grammar::FeatureGrammar;
use wayfarer_core::infer::InferenceConfig;
use wayfarer_core::{Budget, Config};
use wayfarer_testapps::{feature_grammar, ground_truth, seeded_bugs, App, GroundTruth, SeededBug};

/// An application under test: a bundled fixture app (served on 127.0.0.1 for each run,
/// seeded bugs on), any URL, or an application of an apps file (started by its own
/// configuration's `[server]`).
#[derive(Clone, Debug)]
pub enum Target {
    Bundled(App),
    Url(url::Url),
    Served(Arc<crate::apps::AppSpec>),
}

impl Target {
    /// The name in tables and file names.
    pub fn name(&self) -> String {
        match self {
            Target::Bundled(app) => app.name().to_string(),
            Target::Url(u) => u.to_string(),
            Target::Served(a) => a.name.clone(),
        }
    }

    /// A file-name-safe form of the name.
    pub fn slug(&self) -> String {
        let raw = match self {
            Target::Bundled(app) => app.name().to_string(),
            Target::Url(u) => format!("{}{}", u.host_str().unwrap_or("url"), u.path()),
            Target::Served(a) => a.name.clone(),
        };
        let s: String = raw
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        s.trim_matches('-').to_string()
    }

    pub fn app(&self) -> Option<App> {
        match self {
            Target::Bundled(a) => Some(*a),
            Target::Url(_) | Target::Served(_) => None,
        }
    }

    /// What is known about the target independent of any run.
    pub fn truth(&self) -> Known {
        match self {
            Target::Bundled(app) => Known {
                grammar: FeatureGrammar::parse(feature_grammar(*app)).ok(),
                truth: ground_truth(*app),
                bugs: seeded_bugs(*app),
            },
            Target::Url(_) | Target::Served(_) => Known::default(),
        }
    }
}

/// The ground truth a target has (none for a plain URL).
#[derive(Debug, Default)]
pub struct Known {
    pub grammar: Option<FeatureGrammar>,
    pub truth: Option<&'static GroundTruth>,
    pub bugs: &'static [SeededBug],
}

/// The whole benchmark.
#[derive(Clone, Debug)]
pub struct Plan {
    pub targets: Vec<Target>,
    pub strategies: Vec<String>,
    /// State-inference configurations each strategy runs with (`None`: off).
    pub inferences: Vec<Option<InferenceConfig>>,
    /// How many browsers each strategy run explores at once (`--workers 1,3,auto`);
    /// [`AUTO`] stands for `auto`.
    pub workers: Vec<u32>,
    pub peers: Vec<String>,
    pub seeds: Vec<u64>,
    pub budget: Budget,
    /// Where bench.md, bench.csv, the plots and each run's store go.
    pub out: PathBuf,
    /// Scope, deny rules, login, inputs, oracles and browser settings for every run.
    pub config: Config,
    pub chrome: Option<PathBuf>,
    /// Where peers install themselves.
    pub peer_cache: PathBuf,
    /// Steps per episode before a reset; None: the configuration's, else each
    /// strategy's default.
    pub episode_steps: Option<u32>,
    /// The command line, for the header of bench.md.
    pub command: String,
    /// Keep the strategy runs already complete in `out` (same budget) instead of running
    /// them again.
    pub resume: bool,
    /// Bundled applications answer every request this late (a backend behind a network
    /// and a database), so runs wait on the application as they would on a real one.
    pub app_latency: std::time::Duration,
    /// How every strategy run shrinks its failures by replay (`--shrink`): by default as
    /// `wayfarer explore` does (20% of the exploring time), so the bench measures the
    /// traces a user is handed; `off` measures exploring alone.
    pub shrink: wayfarer_run::ShrinkBudget,
}

impl Plan {
    /// The configuration of one target's runs: an apps file's application has its own
    /// (its server, login, deny and ignore rules); the others the bench's, where bundled
    /// apps never click "Log out" (as `wayfarer demo`), since logging out only undoes the
    /// login.
    pub fn config_for(&self, target: &Target) -> Config {
        if let Target::Served(a) = target {
            return a.config.clone();
        }
        let mut c = self.config.clone();
        if matches!(target, Target::Bundled(_)) {
            c.deny.push(DenyRule {
                selector: None,
                text: Some("Log out".into()),
            });
        }
        c
    }

    /// How many runs the plan makes.
    pub fn runs(&self) -> usize {
        self.targets.len()
            * self.seeds.len()
            * (self.strategies.len() * self.inferences.len().max(1) * self.workers.len().max(1)
                + self.peers.len())
    }

    /// The names the tables use for the strategy runs: `random`, `random · actions-5` ...
    pub fn strategy_labels(&self) -> Vec<String> {
        let mut out = Vec::new();
        for s in &self.strategies {
            for &w in &self.workers {
                for i in &self.inferences {
                    out.push(label(s, *i, w));
                }
            }
        }
        out
    }
}

#[cfg(test)]
impl Plan {
    /// A plan of one strategy with `workers`, no targets, 10 actions: for the tables' tests.
    pub(crate) fn for_tests(strategy: &str, workers: Vec<u32>) -> Plan {
        Plan {
            targets: vec![],
            strategies: vec![strategy.into()],
            inferences: vec![None],
            workers,
            app_latency: Default::default(),
            peers: vec![],
            seeds: vec![1],
            budget: wayfarer_core::Budget::actions(10),
            out: "out".into(),
            config: Default::default(),
            chrome: None,
            peer_cache: "peers".into(),
            episode_steps: None,
            command: String::new(),
            resume: false,
            shrink: Default::default(),
        }
    }
}

/// `--workers auto` in a plan's worker counts.
pub const AUTO: u32 = 0;

/// A worker count as the tables and directories write it: `3`, or `auto`.
pub fn workers_name(workers: u32) -> String {
    match workers {
        AUTO => "auto".into(),
        n => n.to_string(),
    }
}

/// A strategy's name in the tables, with its inference configuration when one is on and
/// its workers when there are several: `random`, `random · actions-5`, `random · 3 workers`.
pub fn label(strategy: &str, inference: Option<InferenceConfig>, workers: u32) -> String {
    label_of(
        strategy,
        inference.map(|i| i.to_string()).as_deref(),
        workers,
    )
}

/// `label`, with the inference configuration as its name.
pub fn label_of(strategy: &str, inference: Option<&str>, workers: u32) -> String {
    let mut out = strategy.to_string();
    if let Some(i) = inference {
        out.push_str(&format!(" · {i}"));
    }
    if workers != 1 {
        out.push_str(&format!(" · {} workers", workers_name(workers)));
    }
    out
}
