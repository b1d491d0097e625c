//! One run's numbers: a row of `bench.csv`. `COLUMNS` documents every column (the
//! book's table in docs/src/bench.md is checked against it).

use serde::{Deserialize, Serialize};

/// One run of a strategy or a peer on one application with one seed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunRow {
    pub app: String,
    pub strategy: String,
    /// "strategy" or "peer".
    pub kind: String,
    /// The state-inference configuration ("off", "actions-5" ...); empty for a peer.
    pub inference: String,
    /// Browsers the run was asked for (`plan::AUTO` for `--workers auto`; 1 for a peer).
    pub workers: u32,
    /// Browsers that took steps: what `--workers auto` chose (1 for a peer).
    pub browsers: u32,
    pub seed: u64,
    pub budget: String,
    /// How the run shrank its failures (`--shrink`: "off", "20%", "90s"); empty for a
    /// peer, and for a row kept from before the bench recorded it.
    #[serde(default)]
    pub shrink: String,
    pub steps: u64,
    pub states: usize,
    pub urls: usize,
    pub actions: Option<usize>,
    pub action_ids: Option<usize>,
    pub screens: Option<usize>,
    pub js_coverage: Option<f64>,
    pub js_coverage_first_load: Option<f64>,
    /// Bytes of the application's JavaScript covered at the end, of all it loaded, and
    /// right after the first page load: bytes compare across tools whose runs loaded
    /// different scripts, where ratios do not.
    pub js_covered_bytes: Option<u64>,
    pub js_total_bytes: Option<u64>,
    pub js_first_load_bytes: Option<u64>,
    /// The server's own code (`[server] coverage`): how it was read ("node", "python"),
    /// lines run at the end, lines of its loaded files, run after the first page load,
    /// and the mean time of a reading. Empty where it was not read.
    #[serde(default)]
    pub server_stack: String,
    #[serde(default)]
    pub server_lines: Option<u64>,
    #[serde(default)]
    pub server_lines_total: Option<u64>,
    #[serde(default)]
    pub server_first_lines: Option<u64>,
    #[serde(default)]
    pub server_read_ms: Option<f64>,
    pub failures: usize,
    pub seeded_bugs: Option<usize>,
    pub seeded_found: String,
    /// The longest trace the run reports for a failure matching a seeded bug (its minimal
    /// trace when shrinking shortened it, else the recorded one); for an application
    /// without seeded bugs, of any failure (`minimal::measure`). Strategies only.
    #[serde(default)]
    pub longest_trace: Option<usize>,
    /// The fewest actions the seeded bug of that longest trace needs.
    #[serde(default)]
    pub fewest_actions: Option<u32>,
    /// The worst excess of a seeded bug's reported trace over its fewest actions.
    #[serde(default)]
    pub trace_excess: Option<i64>,
    /// Unique failures shrinking shrank, and those its replays confirmed (strategies only).
    #[serde(default)]
    pub failures_shrunk: Option<usize>,
    #[serde(default)]
    pub failures_confirmed: Option<usize>,
    pub feature_coverage: Option<f64>,
    pub features_covered: String,
    /// Share of the traces that cover some grammar feature (each trace as a test).
    pub trace_precision: Option<f64>,
    /// `--feature-tests`: the tests `wayfarer features` keeps from this run ...
    pub suite_tests: Option<usize>,
    /// ... the share of grammar features their replays cover ...
    pub suite_coverage: Option<f64>,
    /// ... and the share of them that cover some grammar feature.
    pub suite_precision: Option<f64>,
    pub steps_per_second: f64,
    pub duration_s: f64,
    pub scan_ms: Option<f64>,
    pub analysis_ms: Option<f64>,
    pub decide_ms: Option<f64>,
    pub act_ms: Option<f64>,
    pub wait_ms: Option<f64>,
    pub step_ms: Option<f64>,
    pub coverage_ms: Option<f64>,
    pub name_ms: Option<f64>,
    pub step_mean_ms: Option<f64>,
    pub train_ms: Option<f64>,
    pub other_share: Option<f64>,
    pub resets_s: Option<f64>,
    pub validate_ms: Option<f64>,
    pub scan_analysis_ms: Option<f64>,
    pub scan_analysis_cut: Option<f64>,
    pub scans_avoided: Option<f64>,
    pub deviation: Option<f64>,
    pub restarts: u64,
    pub step_errors: u64,
    pub stopped_early: String,
    /// Times the run found itself logged out (applications with a login).
    pub logged_out: Option<u64>,
    /// Distinct URLs a peer saw while logged in (applications with a login).
    pub behind_login: Option<usize>,
    pub form_submissions: Option<u64>,
    pub form_acceptance: Option<f64>,
    pub form_deliberate: Option<u64>,
    pub llm_provider: String,
    pub llm_questions: Option<u64>,
    pub llm_calls: Option<u64>,
    pub llm_cache_hits: Option<u64>,
    pub llm_heuristic: Option<u64>,
    pub llm_failed: Option<u64>,
    pub llm_malformed_share: Option<f64>,
    pub llm_latency_ms: Option<f64>,
    pub llm_tokens: Option<u64>,
    pub llm_cost: Option<f64>,
}

/// Every column of `bench.csv`, in order, with what it holds.
pub const COLUMNS: &[(&str, &str)] = &[
    ("app", "bundled application name, or the URL explored"),
    ("strategy", "strategy name (random, ...) or peer name (gremlins)"),
    ("kind", "`strategy` or `peer`"),
    ("seed", "the seed of the run"),
    ("inference", "state inference (`--inference`): `off`, or the configuration (`actions-5` ...); empty for a peer"),
    ("workers", "browsers the run was asked for (`--workers`: a count, or `auto`), sharing one store and what the strategy learns; 1 for a peer"),
    ("browsers", "browsers that took steps: the count `--workers auto` chose, else `workers` (fewer when one died before its first step); 1 for a peer"),
    ("budget", "the budget every run had (actions, time or both)"),
    ("shrink", "how the run shrank its failures by replay (`--shrink`: `off`, a share of the exploring time such as `20%`, or a time such as `90s`); empty for a peer"),
    ("steps", "actions performed (for a peer: its own actions, e.g. gremlin events)"),
    ("states", "distinct abstract states (the `tagseq`-style structure abstraction of the run loop; for a peer, among the pages sampled every 200 ms)"),
    ("urls", "distinct URLs after normalisation"),
    ("actions", "distinct (page, action) pairs offered by the candidate rules (strategies only)"),
    ("action_ids", "distinct `data-action-id`s the application logged (instrumented apps only)"),
    ("screens", "distinct `data-wf-state` screens reached (instrumented apps only; the ground truth lists them all)"),
    ("js_coverage", "share of the application's JS bytes covered at the end (DESIGN section 4), 0 to 1"),
    ("js_coverage_first_load", "the same right after the first page load; the gain is the difference"),
    ("js_covered_bytes", "bytes of the application's JavaScript covered at the end (comparable across tools, whose runs may load different scripts)"),
    ("js_total_bytes", "bytes of the application's JavaScript the run loaded (the denominator of js_coverage)"),
    ("js_first_load_bytes", "bytes covered right after the first page load: the gain of exploration is js_covered_bytes minus this"),
    ("server_stack", "how the server's own code coverage was read (`[server] coverage`: `node`, `python`); empty where it was not"),
    ("server_lines", "lines of the server's own code run at the end of the run (measured at the server, the same way whichever tool drives the browser)"),
    ("server_lines_total", "lines of code of the server files it loaded (the denominator)"),
    ("server_first_lines", "server lines run after the first page load (the server's start-up and the start page): the gain of exploration is server_lines minus this"),
    ("server_read_ms", "mean time of one reading of the server's coverage (strategies read after every step, peers at every sample)"),
    ("failures", "unique failures (by signature)"),
    ("seeded_bugs", "seeded bugs found (bundled apps only)"),
    ("seeded_found", "`id@step` for each seeded bug found, `;`-separated"),
    ("longest_trace", "the longest trace the run reports for a failure matching a seeded bug: its minimal trace when shrinking shortened it, else the recorded one; for an application without seeded bugs, of any failure (strategies only)"),
    ("fewest_actions", "the fewest actions the seeded bug of that longest trace needs (bundled apps only): `longest_trace` of `fewest_actions` is the table's `longest/fewest`"),
    ("trace_excess", "the worst excess of a seeded bug's reported trace over the fewest actions it needs (0: every seeded bug found was reported minimal)"),
    ("shrunk_share", "share of the run's unique failures shrinking shrank by replay, 0 to 1 (strategies only; empty without failures)"),
    ("confirmed_share", "share of the run's unique failures whose confirming replays all raised it again (verdict confirmed), 0 to 1 (strategies only; empty without failures)"),
    ("feature_coverage", "share of the grammar's features covered by the run's traces (each episode from a reset is one trace; a peer's whole session is one), 0 to 1"),
    ("features_covered", "the covered features' names, `;`-separated"),
    ("trace_precision", "share of the run's traces (each taken as a test, as the paper's Crawljax baseline) that cover some grammar feature, 0 to 1"),
    ("suite_tests", "`--feature-tests`: the tests `wayfarer features` kept from the run (those whose replay runs through)"),
    ("suite_coverage", "`--feature-tests`: share of the grammar's features the kept tests' replays cover, 0 to 1"),
    ("suite_precision", "`--feature-tests`: share of the kept tests whose replay covers some grammar feature, 0 to 1"),
    ("steps_per_second", "steps / duration_s"),
    ("duration_s", "wall time of the run, browser start excluded"),
    ("scan_ms", "median per-step time scanning the page (strategies only)"),
    ("analysis_ms", "median per-step time in state analysis"),
    ("decide_ms", "median per-step time the strategy took to choose"),
    ("act_ms", "median per-step time performing the action"),
    ("wait_ms", "median per-step time waiting for the page to settle"),
    ("step_ms", "median wall time of a whole step"),
    ("coverage_ms", "median per-step time taking JS coverage"),
    ("name_ms", "median per-step time reading the target's role and name from the accessibility tree"),
    ("step_mean_ms", "mean wall time of a whole step (the parts' means add up to it)"),
    ("train_ms", "mean time the strategy trained its networks per episode, at its end and along it (webrled; 0 for the others)"),
    ("other_share", "share of the mean step no timed part (scan, analysis, decide, act, wait, validate, coverage, judge, learn, name, train) accounts for, 0 to 1"),
    ("resets_s", "wall time spent in resets between episodes, outside the steps"),
    ("validate_ms", "median per-step time trying guessed states (state inference; 0 when off)"),
    ("scan_analysis_ms", "mean per-step time in scan + analysis + validation: the part state inference saves"),
    ("scan_analysis_cut", "1 - scan_analysis_ms / the same for the run without inference (same strategy and seed), when the bench made one"),
    ("scans_avoided", "share of steps whose scan and analysis inference skipped, 0 to 1"),
    ("deviation", "share of steps whose action differs from the run without inference (same strategy and seed), 0 to 1"),
    ("restarts", "browser restarts after a crash, a hang or a lost connection"),
    ("step_errors", "steps whose action could not be performed"),
    ("stopped_early", "why the run ended before its budget, if it did"),
    ("logged_out", "times the run lost its login (applications with a login): it saw the login form again (the fields the login steps fill) after being past it; a peer, which cannot log in again itself, stays out until the bench logs it in (gremlins after a browser restart)"),
    ("behind_login", "distinct URLs a peer saw while logged in (peers on applications with a login): 0 means it never got past the login"),
    ("form_submissions", "clicks that submitted a form with values meant to be valid (strategies only)"),
    ("form_acceptance", "share of those after which the page changed, no field of the form is `:invalid` and no error text appeared, 0 to 1"),
    ("form_deliberate", "submissions with a value made invalid on purpose by `+mutate` (not in the share)"),
    ("llm_provider", "`openai` or `heuristic` when the strategy or the input generator asks a language model; empty otherwise"),
    ("llm_questions", "questions asked (answered by the model, the cache or the heuristic)"),
    ("llm_calls", "requests the model answered"),
    ("llm_cache_hits", "questions answered from the cache"),
    ("llm_heuristic", "questions the heuristic provider answered (all without a model; failed or skipped calls with one)"),
    ("llm_failed", "calls that failed after their retries"),
    ("llm_malformed_share", "share of model answers without the asked-for format, 0 to 1"),
    ("llm_latency_ms", "median answer time of the model's calls"),
    ("llm_tokens", "prompt + completion tokens the endpoint reported"),
    ("llm_cost", "estimated cost from `[llm]` prices per 1000 tokens"),
];

fn opt<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map(ToString::to_string).unwrap_or_default()
}

fn ratio(v: &Option<f64>) -> String {
    v.map(|x| format!("{x:.4}")).unwrap_or_default()
}

fn ms(v: &Option<f64>) -> String {
    v.map(|x| format!("{x:.1}")).unwrap_or_default()
}

impl RunRow {
    /// The name the tables group runs by: the strategy, with its inference when one is on
    /// and its workers when there are several.
    pub fn who(&self) -> String {
        let inference = match self.inference.as_str() {
            "" | "off" => None,
            i => Some(i),
        };
        crate::plan::label_of(&self.strategy, inference, self.workers)
    }

    /// Share of the run's unique failures shrinking shrank; `None` without failures (or
    /// for a peer).
    pub fn shrunk_share(&self) -> Option<f64> {
        self.share_of(self.failures_shrunk)
    }

    /// Share of the run's unique failures confirmed by every replay.
    pub fn confirmed_share(&self) -> Option<f64> {
        self.share_of(self.failures_confirmed)
    }

    fn share_of(&self, n: Option<usize>) -> Option<f64> {
        n.filter(|_| self.failures > 0)
            .map(|n| n as f64 / self.failures as f64)
    }

    /// The row's values in `COLUMNS` order, as CSV text (not yet quoted).
    pub fn values(&self) -> Vec<String> {
        vec![
            self.app.clone(),
            self.strategy.clone(),
            self.kind.clone(),
            self.seed.to_string(),
            self.inference.clone(),
            crate::plan::workers_name(self.workers),
            self.browsers.to_string(),
            self.budget.clone(),
            self.shrink.clone(),
            self.steps.to_string(),
            self.states.to_string(),
            self.urls.to_string(),
            opt(&self.actions),
            opt(&self.action_ids),
            opt(&self.screens),
            ratio(&self.js_coverage),
            ratio(&self.js_coverage_first_load),
            opt(&self.js_covered_bytes),
            opt(&self.js_total_bytes),
            opt(&self.js_first_load_bytes),
            self.server_stack.clone(),
            opt(&self.server_lines),
            opt(&self.server_lines_total),
            opt(&self.server_first_lines),
            ms(&self.server_read_ms),
            self.failures.to_string(),
            opt(&self.seeded_bugs),
            self.seeded_found.clone(),
            opt(&self.longest_trace),
            opt(&self.fewest_actions),
            opt(&self.trace_excess),
            ratio(&self.shrunk_share()),
            ratio(&self.confirmed_share()),
            ratio(&self.feature_coverage),
            self.features_covered.clone(),
            ratio(&self.trace_precision),
            opt(&self.suite_tests),
            ratio(&self.suite_coverage),
            ratio(&self.suite_precision),
            format!("{:.2}", self.steps_per_second),
            format!("{:.1}", self.duration_s),
            ms(&self.scan_ms),
            ms(&self.analysis_ms),
            ms(&self.decide_ms),
            ms(&self.act_ms),
            ms(&self.wait_ms),
            ms(&self.step_ms),
            ms(&self.coverage_ms),
            ms(&self.name_ms),
            ms(&self.step_mean_ms),
            ms(&self.train_ms),
            ratio(&self.other_share),
            ms(&self.resets_s),
            ms(&self.validate_ms),
            ms(&self.scan_analysis_ms),
            ratio(&self.scan_analysis_cut),
            ratio(&self.scans_avoided),
            ratio(&self.deviation),
            self.restarts.to_string(),
            self.step_errors.to_string(),
            self.stopped_early.clone(),
            opt(&self.logged_out),
            opt(&self.behind_login),
            opt(&self.form_submissions),
            ratio(&self.form_acceptance),
            opt(&self.form_deliberate),
            self.llm_provider.clone(),
            opt(&self.llm_questions),
            opt(&self.llm_calls),
            opt(&self.llm_cache_hits),
            opt(&self.llm_heuristic),
            opt(&self.llm_failed),
            ratio(&self.llm_malformed_share),
            ms(&self.llm_latency_ms),
            opt(&self.llm_tokens),
            self.llm_cost.map(|c| format!("{c:.4}")).unwrap_or_default(),
        ]
    }
}

/// The server columns of a run from its server coverage.
pub(crate) fn server_columns(
    c: Option<&wayfarer_core::server::ServerCoverage>,
) -> (String, Option<u64>, Option<u64>, Option<u64>, Option<f64>) {
    match c {
        None => (String::new(), None, None, None, None),
        Some(c) => (
            c.stack.clone(),
            Some(c.lines_covered),
            Some(c.lines_total),
            Some(c.first_lines_covered),
            (c.reads > 0).then(|| c.read_ms_total / c.reads as f64),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_value_per_column() {
        assert_eq!(RunRow::default().values().len(), COLUMNS.len());
        let names: std::collections::HashSet<_> = COLUMNS.iter().map(|c| c.0).collect();
        assert_eq!(names.len(), COLUMNS.len());
        for required in [
            "app",
            "strategy",
            "seed",
            "steps",
            "states",
            "urls",
            "actions",
            "js_coverage",
            "failures",
            "seeded_bugs",
            "feature_coverage",
            "steps_per_second",
        ] {
            assert!(names.contains(required), "{required}");
        }
    }

    #[test]
    fn the_book_documents_every_column() {
        let chapter = include_str!("../../../docs/src/bench.md");
        for (name, _) in COLUMNS {
            assert!(
                chapter.contains(&format!("| `{name}` |")),
                "docs/src/bench.md does not document the bench.csv column {name}"
            );
        }
    }
}
