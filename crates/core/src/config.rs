//! `wayfarer.toml`: what flags do not hold. Plain serde types, shared by every crate; the
//! CLI reads the file and fills in `${ENV}` references before anything else sees it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Slots of an embedding unless configured (`[abstraction] dims`).
pub const DEFAULT_DIMS: usize = 512;
/// Cosine at or above which two pages of one URL are one state (`[abstraction] cosine`).
pub const DEFAULT_COSINE: f64 = 0.95;
/// The attributes read as test ids unless configured otherwise (`[browser]
/// test_id_attributes` adds more): Playwright's default and the common variants.
pub const TEST_ID_ATTRS: &[&str] = &["data-testid", "data-test-id", "data-test", "data-cy"];

/// The whole configuration file. Every section is optional.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub scope: ScopeConfig,
    /// Actions to never take, by selector or by visible text.
    pub deny: Vec<DenyRule>,
    /// Steps replayed after every reset, before the start URL is explored.
    pub login: Vec<LoginStep>,
    /// Field-name pattern (a case-insensitive regex over name, id, label, placeholder)
    /// to the value to type.
    pub inputs: BTreeMap<String, String>,
    pub budget: BudgetConfig,
    pub abstraction: AbstractionConfig,
    pub strategy: StrategyConfig,
    pub oracles: OracleConfig,
    pub browser: BrowserConfig,
    /// What counts as actionable besides tags, roles and attributes.
    pub actions: ActionsConfig,
    /// Application state that outlives the browser (a database, a server-side throttle):
    /// how to put it back before each replay.
    pub reset: ResetConfig,
    /// The language model (an OpenAI-compatible endpoint); none by default. The key is
    /// read from `WAYFARER_LLM_KEY` only, never from this file.
    pub llm: LlmConfig,
    /// The application's server, started by wayfarer (as Playwright's `webServer`); none:
    /// the application is already running at the start URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerConfig>,
    /// The user's own properties, in Bombadil's specification language.
    pub spec: SpecConfig,
}

/// `[spec]`: a specification (an ES module in TypeScript or JavaScript exporting
/// properties in Bombadil's language), checked on every captured state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SpecConfig {
    /// The module's path (relative to the current directory); `--spec` overrides it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

/// `[server]`: the application under test as a process wayfarer starts, waits for,
/// restarts when a fresh application is asked for, and stops (never outliving wayfarer).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerConfig {
    /// A shell command (`sh -c`) that runs the server in the foreground; `{port}` is
    /// replaced by the port (a free one wayfarer picks unless `port` is set).
    pub command: String,
    /// The start URL of exploration, `{port}` replaced; default `http://127.0.0.1:{port}/`.
    pub url: Option<String>,
    /// When the server is ready: a URL (`http://...`, or a path `/...` on the start URL's
    /// origin) that answers with a status below 500, or else a regex over the lines of its
    /// output. Default: the start URL answers.
    pub ready: Option<String>,
    /// Seconds to wait for readiness.
    pub timeout_s: u64,
    /// Extra environment variables of the server, `{port}` replaced in their values.
    pub env: BTreeMap<String, String>,
    /// Working directory (relative: to the configuration file's folder).
    pub cwd: Option<String>,
    /// A fixed port instead of a free one.
    pub port: Option<u16>,
    /// When the server is started afresh (see [`Restart`]).
    pub restart: Restart,
    /// Seconds between SIGTERM and SIGKILL when the server is stopped.
    pub stop_timeout_s: u64,
    /// Coverage of the server's own code, read while it runs (see [`ServerStack`]).
    pub coverage: ServerStack,
    /// The server's own files, as globs over absolute paths (`**/node_modules/verdaccio/**`,
    /// `**/site-packages/wagtail/**`); none: the files under the server's working
    /// directory, its dependencies (`node_modules`, `site-packages`) left out.
    pub include: Vec<String>,
    /// Files left out of the server's coverage, as globs (`**/migrations/**`).
    pub exclude: Vec<String>,
}

/// How the server's coverage is measured (`[server] coverage`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ServerStack {
    /// Guessed from the server's command (node, npm, npx, python, gunicorn, ...); off when
    /// it names no stack, or when the stack's tool is missing (said, not an error).
    #[default]
    Auto,
    /// V8's precise coverage over the inspector of every Node process of the server.
    Node,
    /// coverage.py in every Python process of the server (installed in its environment).
    Python,
    /// The standard library's `Coverage` in every Ruby process of the server.
    Ruby,
    /// pcov around every PHP request of the server (the `pcov` extension installed).
    Php,
    Off,
}

impl ServerStack {
    pub fn name(&self) -> &'static str {
        match self {
            ServerStack::Auto => "auto",
            ServerStack::Node => "node",
            ServerStack::Python => "python",
            ServerStack::Ruby => "ruby",
            ServerStack::Php => "php",
            ServerStack::Off => "off",
        }
    }
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            command: String::new(),
            url: None,
            ready: None,
            timeout_s: 60,
            env: BTreeMap::new(),
            cwd: None,
            port: None,
            restart: Restart::Run,
            stop_timeout_s: 10,
            coverage: ServerStack::Auto,
            include: Vec::new(),
            exclude: Vec::new(),
        }
    }
}

/// When `[server]` starts the application afresh, so that server-side state (a throttle,
/// a database) does not leak between what should be independent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Restart {
    /// Once per command: a bench's runs of one application share it.
    Never,
    /// Once per run (the default): every bench run, and each `replay` or `minimize`
    /// command, gets a fresh server.
    #[default]
    Run,
    /// Before every exploration episode and every replay of `replay` and `minimize`.
    Episode,
}

impl std::fmt::Display for Restart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Restart::Never => "never",
            Restart::Run => "run",
            Restart::Episode => "episode",
        })
    }
}

/// `[llm]`: the OpenAI-compatible endpoint that answers the strategies' questions (VETL's
/// values and interested elements). Without `url`, the heuristic provider answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LlmConfig {
    /// `http://127.0.0.1:8080/v1` (a bare server, its `/v1`, or the full
    /// `/chat/completions` URL).
    pub url: Option<String>,
    pub model: Option<String>,
    /// The model that reads screenshots, on the same endpoint (default: `model`).
    pub vision_model: Option<String>,
    /// Whether the model reads images: vision prompts (`vetl`, `vetl-v1`, `vetl-lv`)
    /// send screenshots only then, and fall back to text prompts otherwise.
    pub vision: bool,
    /// One request's limit, seconds.
    pub timeout_s: f64,
    /// Further tries after a 429, a 5xx or a timeout (with backoff).
    pub retries: u32,
    /// Seconds a failing endpoint is left alone before it is asked again.
    pub pause_s: f64,
    pub max_tokens: u32,
    pub temperature: f32,
    /// Prices per 1000 tokens, for the cost counter.
    pub prompt_price_per_1k: f64,
    pub completion_price_per_1k: f64,
}

impl Default for LlmConfig {
    fn default() -> Self {
        LlmConfig {
            url: None,
            model: None,
            vision_model: None,
            vision: false,
            timeout_s: 60.0,
            retries: 3,
            pause_s: 30.0,
            max_tokens: 64,
            temperature: 0.2,
            prompt_price_per_1k: 0.0,
            completion_price_per_1k: 0.0,
        }
    }
}

/// `[reset]`: a hook that puts the application's own state back (the browser's is reset
/// anyway). `replay` and `minimize` run it before every replay when it is set;
/// exploration runs it before every episode only with `explore = true`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ResetConfig {
    /// A shell command (`sh -c`), e.g. "psql -f reset.sql"; it must exit with 0.
    pub command: Option<String>,
    /// An HTTP request, "METHOD PATH-OR-URL" (e.g. "POST /__reset"), the path relative to
    /// the start URL; it must answer 2xx.
    pub http: Option<String>,
    /// Also run the hook on every reset of an exploration.
    pub explore: bool,
    /// Seconds the hook may take.
    pub timeout_s: u64,
}

impl Default for ResetConfig {
    fn default() -> Self {
        ResetConfig {
            command: None,
            http: None,
            explore: false,
            timeout_s: 30,
        }
    }
}

impl ResetConfig {
    /// Whether a hook is configured at all.
    pub fn is_set(&self) -> bool {
        self.command.is_some() || self.http.is_some()
    }

    /// The HTTP hook's method and target, checked: `None` when there is none.
    pub fn http_request(&self) -> Result<Option<(String, String)>, String> {
        let Some(spec) = self.http.as_deref() else {
            return Ok(None);
        };
        let mut parts = spec.split_whitespace();
        let (Some(method), Some(target), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(format!(
                "reset.http {spec:?} is not \"METHOD PATH\" (e.g. \"POST /__reset\")"
            ));
        };
        let method = method.to_ascii_uppercase();
        if !["GET", "POST", "PUT", "DELETE", "PATCH"].contains(&method.as_str()) {
            return Err(format!(
                "reset.http method {method:?} is not one of GET, POST, PUT, DELETE, PATCH"
            ));
        }
        Ok(Some((method, target.to_string())))
    }
}

/// `[actions]`: which elements the scan reports as actionable beyond its tag, role and
/// attribute rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ActionsConfig {
    /// Elements that got a click, dblclick, mousedown, mouseup, pointerdown, pointerup or
    /// keydown listener (`addEventListener` or an `on*` property), recorded by a script run
    /// before the page's own, are actionable ("listener:click"); a dblclick listener also
    /// offers a double click. Listeners on `<html>` and `<body>` (page-wide delegation) are
    /// left out.
    pub listeners: bool,
}

impl Default for ActionsConfig {
    fn default() -> Self {
        ActionsConfig { listeners: true }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ScopeConfig {
    /// Origins the run may visit besides the start URL's own (e.g. "http://127.0.0.1:8081").
    pub allow_origins: Vec<String>,
    /// What pages may load from other origins (scripts, styles, images, fetch): documents
    /// of other origins (navigations, frames, popups, form posts) are blocked either way.
    pub subresources: Subresources,
}

/// The policy for requests to origins outside the scope that are not documents.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Subresources {
    /// Loaded as the page asks (third-party hosts still do not resolve by default).
    #[default]
    Allow,
    /// Failed before they leave the browser, and counted.
    Block,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DenyRule {
    /// A CSS selector; matching elements (and their descendants) are never acted on.
    pub selector: Option<String>,
    /// A case-insensitive substring of the element's text, label or aria-label.
    pub text: Option<String>,
}

/// One login step: the same action kinds as exploration, by CSS selector.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoginStep {
    /// Load this URL (relative to the start URL, or absolute).
    #[serde(default)]
    pub goto: Option<String>,
    /// Type `value` into the element matching this selector.
    #[serde(default)]
    pub fill: Option<String>,
    #[serde(default)]
    pub value: Option<String>,
    /// Click the element matching this selector.
    #[serde(default)]
    pub click: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BudgetConfig {
    /// Number of actions (e.g. 300) or wall time ("2m", "90s"); the CLI flag wins.
    pub budget: Option<String>,
    /// Steps per episode before a reset.
    pub episode_steps: Option<u32>,
    /// Time for shrinking the failures after the run: "off", a share of the exploring
    /// time ("20%", the default) or a time ("90s"); `--shrink` wins.
    pub shrink: Option<String>,
    /// Replays of each minimal trace that tell a confirmed failure from a flaky one
    /// (default 3); `--confirm` wins.
    pub confirm: Option<u32>,
}

/// `[strategy]`: what every strategy reads, and each strategy's own table.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StrategyConfig {
    pub name: Option<String>,
    pub seed: Option<u64>,
    /// Input generator: "random", "heuristic", "random+mutate" or "heuristic+mutate";
    /// each strategy has its default (its generator with "+mutate").
    pub inputs: Option<String>,
    /// Strategy parameters by name, read by the strategy that knows them.
    pub params: BTreeMap<String, serde_json::Value>,
    /// Each strategy's own table, `[strategy.NAME]`, as written: its type lives in the
    /// strategy's file (wayfarer-strategies), which reads it with its defaults and refuses
    /// what it does not know; a name no strategy owns is refused there too.
    #[serde(flatten)]
    pub sections: BTreeMap<String, serde_json::Value>,
}

impl StrategyConfig {
    /// The keys of `[strategy]` that are not a strategy's table.
    pub const KEYS: &'static [&'static str] = &["name", "seed", "inputs", "params"];

    /// `[strategy.NAME] key = value`, as if the file said it (the run's flags that set a
    /// strategy's key, as `--networks`).
    pub fn set(&mut self, section: &str, key: &str, value: serde_json::Value) {
        let table = self
            .sections
            .entry(section.to_string())
            .or_insert_with(|| serde_json::Value::Object(Default::default()));
        if let serde_json::Value::Object(map) = table {
            map.insert(key.to_string(), value);
        }
    }

    /// `[strategy.NAME] key`, when the file (or [`StrategyConfig::set`]) gave it.
    pub fn get(&self, section: &str, key: &str) -> Option<&serde_json::Value> {
        self.sections.get(section)?.get(key)
    }
}

/// How observations become abstract states (DESIGN section 5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AbstractionConfig {
    /// "tagseq" (same URL and similar tag sequence), "structure" (same URL and the
    /// exact tag sequence) or "embedding" (same URL and a similar embedding of the
    /// simplified HTML, WebRLED's).
    pub kind: String,
    /// `tagseq`: the similarity (0 to 1) at or above which two pages are one state.
    pub threshold: f64,
    /// `tagseq`: tags compared per page at most.
    pub max_tags: usize,
    /// `embedding`: the cosine (0 to 1) at or above which two pages are one state.
    pub cosine: f64,
    /// `embedding` (and every page embedding, e.g. webrled's): slots of the vector.
    pub dims: usize,
    /// `tagseq` and `structure`: URL path segments of digits are one page ("/owners/11"
    /// and "/owners/12" are "/owners/{id}"). Off by default (the papers' URLs keep them);
    /// `wayfarer features` turns it on, so a crawl does not visit every record.
    pub mask_ids: bool,
    /// `tagseq`: pages with other open regions (a dialog, a menu, the selected tab panel,
    /// a side panel: `Observation::regions`) are other states, even at the same URL with
    /// a similar document. Off by default until measured (issue 40).
    pub regions: bool,
}

impl Default for AbstractionConfig {
    fn default() -> Self {
        AbstractionConfig {
            kind: "tagseq".into(),
            threshold: 0.8,
            max_tags: 1000,
            cosine: DEFAULT_COSINE,
            dims: DEFAULT_DIMS,
            mask_ids: false,
            regions: false,
        }
    }
}

impl Config {
    /// Check the numbers a type cannot (a strategy's own table is checked by the
    /// strategy: wayfarer-strategies' `registry::check`).
    pub fn validate(&self) -> Result<(), String> {
        let a = &self.abstraction;
        if !["tagseq", "structure", "embedding"].contains(&a.kind.as_str()) {
            return Err(format!(
                "abstraction.kind {:?} is not one of tagseq, structure, embedding",
                a.kind
            ));
        }
        if !(a.cosine > 0.0 && a.cosine <= 1.0) {
            return Err(format!(
                "abstraction.cosine must be in (0, 1], not {}",
                a.cosine
            ));
        }
        if !(8..=65_536).contains(&a.dims) {
            return Err(format!(
                "abstraction.dims must be between 8 and 65536, not {}",
                a.dims
            ));
        }
        if !(a.threshold > 0.0 && a.threshold <= 1.0) {
            return Err(format!(
                "abstraction.threshold must be in (0, 1], not {}",
                a.threshold
            ));
        }
        if a.max_tags == 0 {
            return Err("abstraction.max_tags must be at least 1".into());
        }
        // The names go into a CSS attribute selector in the page and in exported specs.
        let bad = |n: &String| {
            let mut c = n.chars();
            !c.next()
                .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
                || !c.all(|x| x.is_ascii_alphanumeric() || matches!(x, '-' | '_' | '.' | ':'))
        };
        if let Some(n) = self.browser.test_id_attributes.iter().find(|n| bad(n)) {
            return Err(format!(
                "browser.test_id_attributes: {n:?} is not an attribute name (letters, digits, - _ . :)"
            ));
        }
        self.validate_runs()?;
        self.reset.http_request()?;
        if self
            .reset
            .command
            .as_deref()
            .is_some_and(|c| c.trim().is_empty())
        {
            return Err("reset.command is empty".into());
        }
        if self.reset.timeout_s == 0 {
            return Err("reset.timeout_s must be at least 1".into());
        }
        if self.reset.explore && !self.reset.is_set() {
            return Err("reset.explore is set but there is no reset.command or reset.http".into());
        }
        Ok(())
    }
}

/// Whether `s` seconds make a `Duration` (finite, not negative, not past u64 seconds):
/// `Duration::from_secs_f64` panics on the others.
pub fn seconds(s: f64) -> bool {
    std::time::Duration::try_from_secs_f64(s).is_ok()
}

impl Config {
    /// The values that would otherwise fail later, mid-run: a budget that does not parse,
    /// episodes of no step (a run that resets for ever), seconds no `Duration` holds.
    fn validate_runs(&self) -> Result<(), String> {
        if let Some(b) = &self.budget.budget {
            b.parse::<crate::Budget>()
                .map_err(|e| format!("budget.budget: {e}"))?;
        }
        if let Some(sv) = &self.server {
            if sv.command.trim().is_empty() {
                return Err("server.command is missing: the shell command that runs the server, e.g. \"npm start -- --port {port}\"".into());
            }
            if sv.timeout_s == 0 {
                return Err("server.timeout_s must be at least 1 (seconds)".into());
            }
        }
        let checks = [
            (
                self.budget.episode_steps != Some(0),
                "budget.episode_steps must be at least 1",
            ),
            (
                self.budget.confirm != Some(0),
                "budget.confirm must be at least 1 (replays of each minimal trace)",
            ),
            (
                self.llm.timeout_s > 0.0 && seconds(self.llm.timeout_s),
                "llm.timeout_s must be above 0 (seconds)",
            ),
            (
                self.llm.pause_s > 0.0 && seconds(self.llm.pause_s),
                "llm.pause_s must be above 0 (seconds)",
            ),
        ];
        match checks.iter().find(|(ok, _)| !ok) {
            Some((_, msg)) => Err(msg.to_string()),
            None => Ok(()),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OracleConfig {
    /// Report same-origin HTTP 4xx responses as failures.
    pub http_4xx: bool,
    /// Report console.error messages as failures.
    pub console_errors: bool,
    /// Regexes over "kind: message"; a matching failure is known noise and ignored.
    pub ignore: Vec<String>,
    /// Visible text "undefined", "NaN", "[object Object]" or "null" where a value
    /// should be (`placeholder_text`).
    pub placeholder_text: bool,
    /// A broken image (loaded, no pixels), or an image, script, stylesheet, font or media
    /// file of the application answering 4xx (`broken_resource`).
    pub broken_resources: bool,
    /// Two interactive elements with the same `id` (`duplicate_id`): a warning by default.
    pub duplicate_ids: Severity,
    /// A form control without an accessible name (`unnamed_control`): a warning by default.
    pub unnamed_controls: Severity,
    /// Any page check by its id (`crate::check::CHECKS`): "off", "warn" or "fail"; wins
    /// over the fields above.
    pub checks: std::collections::BTreeMap<String, Severity>,
}

impl Default for OracleConfig {
    fn default() -> Self {
        OracleConfig {
            http_4xx: false,
            console_errors: true,
            ignore: Vec::new(),
            placeholder_text: true,
            broken_resources: true,
            duplicate_ids: Severity::Warn,
            unnamed_controls: Severity::Warn,
            checks: std::collections::BTreeMap::new(),
        }
    }
}

/// How a check that may be only advice counts: not at all, as a warning (listed in the
/// report, the run still passes) or as a failure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Off,
    #[default]
    Warn,
    Fail,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BrowserConfig {
    /// Path of the Chromium binary; `--chrome` or `CHROME` win.
    pub chrome: Option<String>,
    /// Open a fresh browser context on every reset instead of clearing storage in place.
    pub isolate: bool,
    /// Quiet window (ms) without DOM mutation, pending request or scheduled work (short
    /// timers, animation frames, queued history events) that counts as stable.
    pub quiet_ms: u64,
    /// Longest wait (ms) for stability after an action before a hang is reported.
    pub stable_timeout_ms: u64,
    /// Longest wait (ms) for a page load.
    pub load_timeout_ms: u64,
    /// A request (other than a page load) still open after this long (ms) is taken for a
    /// long poll or a stream: it, and later requests to the same address, no longer hold
    /// the stability wait.
    pub long_request_ms: u64,
    /// Timeout (ms) of one CDP command.
    pub cdp_timeout_ms: u64,
    pub window_width: u32,
    pub window_height: u32,
    /// Chromium `--host-resolver-rules`; the default makes every host but the loopback
    /// fail fast, so third-party requests never hang a run.
    pub host_resolver_rules: Option<String>,
    /// When JS coverage is taken (`lazy`, `every-step` or `off`).
    pub coverage: CoverageMode,
    /// With `lazy` coverage: the live counters (progress line, plots) are refreshed by a
    /// take at most this often (ms); what a page ran is never lost in between.
    pub coverage_interval_ms: u64,
    /// Attributes read as test ids besides data-testid, data-test-id, data-test and
    /// data-cy: a unique one names an acted element in traces and exported tests.
    pub test_id_attributes: Vec<String>,
}

impl BrowserConfig {
    /// Every attribute read as a test id: the common ones, then the configured ones.
    pub fn test_id_attrs(&self) -> Vec<String> {
        let mut all: Vec<String> = TEST_ID_ATTRS.iter().map(|a| a.to_string()).collect();
        for a in &self.test_id_attributes {
            if !all.contains(a) {
                all.push(a.clone());
            }
        }
        all
    }
}

/// When the browser takes precise JS coverage. Counts accumulate in the page until a take,
/// so a take is only *needed* before a document goes away; every mode gives the same
/// final coverage (within what a crashed renderer loses).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CoverageMode {
    /// Before an action that may replace the document (a link, a submit button, back;
    /// learned per run), before a reset, at the end of the run, and every
    /// `coverage_interval_ms` for the live counters.
    #[default]
    Lazy,
    /// After every action and before every scan (the reference the lazy mode is checked
    /// against; slower on pages with much JavaScript).
    EveryStep,
    /// No coverage at all (no profiler, no debugger in the page).
    Off,
}

impl Default for BrowserConfig {
    fn default() -> Self {
        BrowserConfig {
            chrome: None,
            isolate: false,
            // Scheduled work is waited for as such; the window covers what the page cannot
            // show (splitter walks the same states at 10 and 25 ms, 1.2x faster at 10).
            quiet_ms: 10,
            stable_timeout_ms: 5_000,
            load_timeout_ms: 10_000,
            long_request_ms: 2_000,
            cdp_timeout_ms: 10_000,
            window_width: 1280,
            window_height: 800,
            host_resolver_rules: Some(
                "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost".to_string(),
            ),
            coverage: CoverageMode::Lazy,
            coverage_interval_ms: 1_000,
            test_id_attributes: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reset(http: &str) -> ResetConfig {
        ResetConfig {
            http: Some(http.into()),
            ..ResetConfig::default()
        }
    }

    #[test]
    fn test_id_attributes_extend_the_common_ones_and_must_be_attribute_names() {
        let mut c = Config::default();
        c.browser.test_id_attributes = vec!["data-qa".into(), "data-cy".into()];
        assert_eq!(c.validate(), Ok(()));
        assert_eq!(
            c.browser.test_id_attrs(),
            [
                "data-testid",
                "data-test-id",
                "data-test",
                "data-cy",
                "data-qa"
            ]
        );
        for bad in ["data qa", "x]\"", "", "1abc"] {
            c.browser.test_id_attributes = vec![bad.into()];
            let e = c.validate().unwrap_err();
            assert!(e.contains("test_id_attributes"), "{bad:?}: {e}");
        }
    }

    #[test]
    fn a_reset_hook_request_is_a_method_and_a_target() {
        assert_eq!(
            reset("post /__reset").http_request(),
            Ok(Some(("POST".into(), "/__reset".into())))
        );
        assert_eq!(ResetConfig::default().http_request(), Ok(None));
        for bad in ["/__reset", "POST", "POST /a /b", "FETCH /x"] {
            let err = reset(bad).http_request().unwrap_err();
            assert!(err.starts_with("reset.http"), "{bad}: {err}");
        }
        let mut c = Config::default();
        c.reset.explore = true;
        assert!(c.validate().unwrap_err().contains("reset.explore"));
        c.reset.command = Some("true".into());
        assert_eq!(c.validate(), Ok(()));
    }
}
