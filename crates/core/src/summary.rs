//! The end-of-run summary: one model for `--json`, `report.json` and the terminal.

use std::collections::HashSet;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::env::{Coverage, ScriptReach};
use crate::oracle::Failure;
use crate::record::StepTimings;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CoverageSummary {
    pub covered_bytes: u64,
    pub total_bytes: u64,
    pub ratio: f64,
    pub first_load_ratio: f64,
    pub functions_covered: u64,
    pub functions_total: u64,
    /// Script by script (one row per URL), most bytes never run first: where the code the
    /// run did not reach lives. Empty without coverage, and in older reports.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scripts: Vec<ScriptReach>,
}

impl CoverageSummary {
    /// With `scripts` (as the environment gives them), most bytes never run first.
    pub fn with_scripts(mut self, mut scripts: Vec<ScriptReach>) -> CoverageSummary {
        scripts.sort_by(|a, b| {
            let left = |r: &ScriptReach| r.bytes.saturating_sub(r.covered_bytes);
            left(b).cmp(&left(a)).then_with(|| a.url.cmp(&b.url))
        });
        self.scripts = scripts;
        self
    }
}

impl From<Coverage> for CoverageSummary {
    fn from(c: Coverage) -> Self {
        CoverageSummary {
            covered_bytes: c.covered_bytes,
            total_bytes: c.total_bytes,
            ratio: c.ratio(),
            first_load_ratio: c.first_load_ratio(),
            functions_covered: c.functions_covered,
            functions_total: c.functions_total,
            scripts: Vec::new(),
        }
    }
}

/// The server's coverage at the end of a run, with where its code never run lives.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerCoverageSummary {
    #[serde(flatten)]
    pub totals: crate::server::ServerCoverage,
    /// File by file, most lines never run first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub by_file: Vec<crate::server::ServerFileReach>,
}

impl ServerCoverageSummary {
    pub fn new(
        totals: crate::server::ServerCoverage,
        mut files: Vec<crate::server::ServerFileReach>,
    ) -> ServerCoverageSummary {
        let left = |f: &crate::server::ServerFileReach| f.lines.saturating_sub(f.covered);
        files.sort_by(|a, b| left(b).cmp(&left(a)).then_with(|| a.path.cmp(&b.path)));
        ServerCoverageSummary {
            totals,
            by_file: files,
        }
    }
}

/// Median milliseconds of each part of a step.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimingMedians {
    pub scan: f64,
    pub analysis: f64,
    pub decide: f64,
    pub act: f64,
    pub wait: f64,
    /// Trying guessed states (state inference).
    #[serde(default)]
    pub validate: f64,
    /// Taking JS coverage (measurement overhead).
    #[serde(default)]
    pub coverage: f64,
    /// Judging events into failures.
    #[serde(default)]
    pub judge: f64,
    /// The strategy learning from the step.
    #[serde(default)]
    pub learn: f64,
    /// Reading the target's name from the accessibility tree (for the trace).
    #[serde(default)]
    pub name: f64,
    /// Checking the specification's properties (`--spec`).
    #[serde(default)]
    pub spec: f64,
    /// Reading the server's coverage (`[server] coverage`).
    #[serde(default)]
    pub server: f64,
    pub step: f64,
    /// Spent after the step in the observers (run store, progress line): the cost of
    /// recording, outside `step`.
    #[serde(default)]
    pub observers: f64,
}

/// Where the time of an average step went: the mean milliseconds of each part. Unlike
/// medians, means add up: the parts and `other` sum to `step`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimeSplit {
    /// (part, mean ms) for the named parts of `StepTimings::parts`, in that order.
    pub parts: Vec<(String, f64)>,
    /// What no part accounts for.
    pub other: f64,
    /// The mean step.
    pub step: f64,
    /// Recording after each step (outside `step`).
    pub observers: f64,
}

impl TimeSplit {
    pub fn of(timings: &[StepTimings], observers: &[Duration]) -> TimeSplit {
        let mean = |v: Duration| {
            if timings.is_empty() {
                0.0
            } else {
                v.as_secs_f64() * 1e3 / timings.len() as f64
            }
        };
        let mut sums: Vec<(&'static str, Duration)> = StepTimings::default().parts().to_vec();
        let mut other = Duration::ZERO;
        let mut step = Duration::ZERO;
        for t in timings {
            for (sum, part) in sums.iter_mut().zip(t.parts()) {
                sum.1 += part.1;
            }
            other += t.other();
            step += t.total;
        }
        let recorded: Duration = observers.iter().sum();
        TimeSplit {
            parts: sums
                .into_iter()
                .map(|(name, d)| (name.to_string(), mean(d)))
                .collect(),
            other: mean(other),
            step: mean(step),
            observers: if observers.is_empty() {
                0.0
            } else {
                recorded.as_secs_f64() * 1e3 / observers.len() as f64
            },
        }
    }

    /// The share of the step (0-1) no part accounts for.
    pub fn other_share(&self) -> f64 {
        if self.step > 0.0 {
            self.other / self.step
        } else {
            0.0
        }
    }
}

/// A unique failure as reported in the summary.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FailureLine {
    pub kind: String,
    pub signature: String,
    pub message: String,
    pub step: u64,
    pub count: u64,
    pub page_url: String,
    pub trace_len: usize,
    /// Its minimal trace and confirming replays, when the run shrank its failures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shrunk: Option<crate::findings::Shrunk>,
    /// New or known, when the run was compared with a baseline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<crate::findings::NewOrKnown>,
}

impl FailureLine {
    /// Its verdict: what its confirming replays said, or unconfirmed.
    pub fn verdict(&self) -> crate::findings::Verdict {
        crate::findings::Verdict::of(self.shrunk.as_ref())
    }

    /// "confirmed 3/3", ..., "unconfirmed (never replayed)".
    pub fn verdict_text(&self) -> String {
        self.verdict().text(self.shrunk.as_ref())
    }

    /// Whether a replay raised it again.
    pub fn reproduced(&self) -> bool {
        self.shrunk.as_ref().is_some_and(|s| s.hits > 0)
    }

    /// A failure that only timing makes (a page slower than the bound on a busy
    /// machine): a failure once a replay shows it again, else a warning.
    pub fn timing_only(&self) -> bool {
        self.kind == crate::oracle::FailureKind::Hang.as_str()
    }
}

impl From<&Failure> for FailureLine {
    fn from(f: &Failure) -> Self {
        FailureLine {
            kind: f.kind.as_str().to_string(),
            signature: f.signature.clone(),
            message: f.message.clone(),
            step: f.step,
            count: f.count,
            page_url: f.page_url.clone(),
            trace_len: f.trace.len(),
            shrunk: None,
            baseline: None,
        }
    }
}

pub use crate::env::PropertyVerdict;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    pub target: String,
    pub strategy: String,
    pub seed: u64,
    pub budget: String,
    pub steps: u64,
    pub episodes: u64,
    pub states: usize,
    pub urls: usize,
    pub actions_discovered: usize,
    pub failures: Vec<FailureLine>,
    pub js_coverage: Option<CoverageSummary>,
    /// The server's own code run, when its coverage was read (`[server] coverage`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_coverage: Option<ServerCoverageSummary>,
    /// The specification's properties (`--spec`), in the order it exports them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub properties: Vec<PropertyVerdict>,
    /// Advice of the page checks set to `warn` (duplicate ids, unnamed controls): listed,
    /// not failures.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<crate::oracle::Warning>,
    pub timings_ms: TimingMedians,
    /// The mean step split into its parts (they add up, `other` included).
    #[serde(default)]
    pub time_split: TimeSplit,
    /// Wall time spent in resets (between episodes), outside the steps.
    #[serde(default)]
    pub resets_s: f64,
    pub steps_per_second: f64,
    pub duration_s: f64,
    /// Browser restarts after a crash or a hang.
    pub restarts: u64,
    /// Steps whose action could not be performed (element gone, step error).
    pub step_errors: u64,
    /// Why the run ended before its budget, when it did.
    pub stopped_early: Option<String>,
    /// The environment ended the run early (browser gone for good, start page unreachable
    /// or empty, login impossible), not the budget or the user: the exit code is 2.
    #[serde(default)]
    pub ended_by_environment: bool,
    /// Steps after which the page showed the login form again (logged out mid-run); each
    /// ended its episode, and the reset logged in again.
    #[serde(default)]
    pub logged_out: u64,
    /// Share of steps whose scan state inference skipped, 0-1 (0 when it is off).
    #[serde(default)]
    pub scans_avoided: f64,
    /// Share of steps whose state analysis it skipped, 0-1.
    #[serde(default)]
    pub analyses_avoided: f64,
    /// What state inference did, when it was asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inference: Option<crate::infer::InferenceSummary>,
    /// Share of steps whose action differs from a run without inference on the same
    /// seed (0-1), when one was compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deviation: Option<f64>,
    /// How the run used its language model, when the strategy asks one (the heuristic
    /// provider included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llm: Option<crate::llm::LlmUsage>,
    /// Submissions of forms with values meant to be valid, and how many went through.
    #[serde(default)]
    pub form_acceptance: crate::forms::FormAcceptance,
    /// What each worker did, in a run with several (empty with one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workers: Vec<WorkerLine>,
    /// How `--workers auto` chose ("2 of 3 browsers: one kept 41% of the machine's CPU
    /// busy over its first 20 steps"), when it was asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_workers: Option<String>,
    /// The shrinking phase after exploring (each failure's own result is in its line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shrink: Option<crate::findings::ShrinkSummary>,
    /// The failures against a baseline run, when one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<crate::findings::BaselineSummary>,
}

impl RunSummary {
    /// The summary line of the failure with this signature.
    pub fn line(&self, signature: &str) -> Option<&FailureLine> {
        self.failures.iter().find(|l| l.signature == signature)
    }

    /// The failure first seen among those `matches(kind, message)` accepts (a seeded
    /// bug's, for the demo's table and the bench's counts).
    pub fn first_matching(&self, matches: impl Fn(&str, &str) -> bool) -> Option<&FailureLine> {
        self.failures
            .iter()
            .filter(|f| matches(&f.kind, &f.message))
            .min_by_key(|f| f.step)
    }
}

/// One worker of a run with several.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkerLine {
    /// 0-based, as in the step records.
    pub worker: u32,
    /// Where its browser runs: a CDP endpoint, or the Chromium it launched.
    #[serde(default)]
    pub browser: String,
    pub steps: u64,
    pub episodes: u64,
    pub restarts: u64,
    /// Why it stopped before the run did (its browser could not be brought back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired: Option<String>,
}

/// Accumulates what the summary needs while the loop runs.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    pub urls: HashSet<String>,
    pub actions: HashSet<(String, String)>,
    pub timings: Vec<StepTimings>,
    /// Time in the observers after each step.
    pub observers: Vec<Duration>,
    /// Time in resets.
    pub resets: Duration,
    pub restarts: u64,
    pub step_errors: u64,
    pub logged_out: u64,
}

fn median_ms(mut v: Vec<Duration>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort();
    let n = v.len();
    let mid = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2
    };
    (mid.as_secs_f64() * 1e6).round() / 1e3
}

impl Tally {
    pub fn medians(&self) -> TimingMedians {
        TimingMedians {
            observers: median_ms(self.observers.clone()),
            ..TimingMedians::of(&self.timings)
        }
    }
}

impl TimingMedians {
    /// The median of each part over `timings`.
    pub fn of(timings: &[StepTimings]) -> TimingMedians {
        let col = |f: fn(&StepTimings) -> Duration| median_ms(timings.iter().map(f).collect());
        TimingMedians {
            scan: col(|t| t.scan),
            analysis: col(|t| t.analysis),
            decide: col(|t| t.decide),
            act: col(|t| t.act),
            wait: col(|t| t.wait),
            validate: col(|t| t.validate),
            coverage: col(|t| t.coverage),
            judge: col(|t| t.judge),
            learn: col(|t| t.learn),
            name: col(|t| t.name),
            spec: col(|t| t.spec),
            server: col(|t| t.server),
            step: col(|t| t.total),
            observers: 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_of_odd_and_even_counts() {
        let ms = Duration::from_millis;
        assert_eq!(median_ms(vec![ms(3), ms(1), ms(2)]), 2.0);
        assert_eq!(median_ms(vec![ms(1), ms(2)]), 1.5);
        assert_eq!(median_ms(vec![]), 0.0);
    }
}
