//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "wayfarer",
    version,
    about = "Explores a web application in headless Chromium and reports what breaks.",
    after_help = "Exit codes: 0 no failure found, 1 failures found, 2 usage or environment error (also a run the environment ended early, after writing its report)."
)]
pub struct Cli {
    /// More log output on stderr (-v info, -vv debug); RUST_LOG overrides.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write a first configuration (wayfarer.toml) for the application at URL: its login
    /// form as [[login]] steps, its logout controls as [[deny]] rules, the test id
    /// attribute it uses, and what a plain load already reports as ignore suggestions.
    /// With WAYFARER_USER and WAYFARER_PASSWORD set, the login is tried as a run replays it.
    #[command(
        after_help = "Examples:\n  WAYFARER_USER=admin WAYFARER_PASSWORD=changeme wayfarer init http://127.0.0.1:8000/admin/\n  WAYFARER_USER=admin WAYFARER_PASSWORD=changeme wayfarer explore http://127.0.0.1:8000/admin/ --config wayfarer.toml"
    )]
    Init {
        /// The application's start URL, e.g. http://localhost:3000/.
        url: String,
        /// Where to write the configuration.
        #[arg(long, short = 'o', default_value = "wayfarer.toml")]
        out: PathBuf,
        /// Replace the file if it exists.
        #[arg(long)]
        force: bool,
        /// Chromium binary (default: $CHROME, then /usr/lib/chromium/chromium-headless-shell, /usr/bin/chromium).
        #[arg(long)]
        chrome: Option<String>,
    },
    /// Print a completion script for a shell.
    #[command(
        after_help = "Examples:\n  wayfarer completions bash > ~/.local/share/bash-completion/completions/wayfarer\n  wayfarer completions zsh > ~/.zfunc/_wayfarer\n  wayfarer completions fish > ~/.config/fish/completions/wayfarer.fish"
    )]
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Explore the web application at URL (or the one --serve / [server] starts).
    #[command(
        after_help = "Examples:\n  wayfarer explore http://localhost:3000/ --budget 5m\n  wayfarer explore --serve \"npm start -- --port {port}\" --config wayfarer.toml --budget 300,5m\n  wayfarer explore http://localhost:3000/ --json --fail-on new --baseline last-run/"
    )]
    Explore {
        /// Start URL, e.g. http://localhost:3000/. With a server to start (--serve or
        /// [server]): optional, a path on it (/admin/) or a URL with {port}.
        url: Option<String>,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Serve a bundled demo application on 127.0.0.1 and explore it.
    #[command(
        after_help = "Examples:\n  wayfarer demo\n  wayfarer demo --app clinic --budget 2m --seed 7\n  wayfarer demo --fixed"
    )]
    Demo {
        /// Which bundled application: expense, clinic, splitter or board.
        #[arg(long, default_value = "expense")]
        app: String,
        /// Serve the application with its seeded bugs switched off.
        #[arg(long)]
        fixed: bool,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Compare the failures of two runs (each a report.json or a run directory): new in
    /// B, known to both, gone from A. Exits 1 when B has new failures.
    #[command(after_help = "Example:\n  wayfarer diff main-run/ pr-run/report.json")]
    Diff {
        /// The earlier run (the baseline).
        a: PathBuf,
        /// The later run.
        b: PathBuf,
    },
    /// Rebuild the reports (report.html, report.json, junit.xml, ctrf.json, summary.txt) and traces/
    /// from a run's store.
    #[command(
        after_help = "Examples:\n  wayfarer report wayfarer-out\n  wayfarer report wayfarer-out --format ctrf"
    )]
    Report {
        /// The run's output directory (it holds run.sqlite).
        dir: PathBuf,
        /// Only this format (repeatable): html, json, junit, ctrf, text, or playwright (a
        /// Playwright project with a test per failure, in DIR/playwright/). Default: all
        /// but playwright, as a run writes them.
        #[arg(long, value_name = "NAME")]
        format: Vec<String>,
    },
    /// Re-run a failure trace and say whether the failure reproduces.
    #[command(
        after_help = "Examples:\n  wayfarer replay wayfarer-out/traces/01-exception-typeerror.json --repeat 5\n  wayfarer replay TRACE --url http://127.0.0.1:3000/ --config wayfarer.toml"
    )]
    Replay {
        /// A trace file (traces/*.json of a run).
        trace: PathBuf,
        #[command(flatten)]
        target: TraceArgs,
        /// Replay this many times and report how often it reproduced (flakiness).
        #[arg(long, default_value_t = 1)]
        repeat: u32,
        /// Print one JSON object on stdout, nothing else.
        #[arg(long)]
        json: bool,
    },
    /// Shrink a failure trace (delta debugging) to the fewest actions that still raise
    /// the same failure; writes TRACE's name with .min.json.
    #[command(
        after_help = "Example:\n  wayfarer minimize wayfarer-out/traces/01-exception-typeerror.json"
    )]
    Minimize {
        /// A trace file (traces/*.json of a run).
        trace: PathBuf,
        #[command(flatten)]
        target: TraceArgs,
        /// Where to write the minimal trace (default: next to TRACE, NAME.min.json).
        #[arg(long, short = 'o')]
        out: Option<PathBuf>,
    },
    /// Measure strategies (and external peers) side by side: every strategy x application
    /// x seed with one budget, one run after another; writes bench.md, bench.csv and
    /// SVG plots into --out.
    #[command(
        after_help = "Examples:\n  wayfarer bench --apps expense,clinic --strategies random,webexplor --seeds 3 --budget 2m\n  wayfarer bench --url http://localhost:3000/ --strategies webexplor,guided --peer bombadil"
    )]
    Bench(BenchArgs),
    /// Infer the features a finished run's exploration shows (AutoE2E) and write one
    /// Playwright test per feature, with features.md.
    ///
    /// TARGET is a finished run's directory (it holds run.sqlite; the tests go to
    /// TARGET/features, or --out), or a URL: then it is crawled first (bfs unless
    /// --strategy says otherwise, record ids in URLs as one page) into --out, and the
    /// tests go to OUT/features.
    #[command(
        after_help = "Examples:\n  wayfarer features http://localhost:3000/ --budget 1500 -o app-run\n  wayfarer features wayfarer-out"
    )]
    Features {
        /// A run directory or the URL of the application.
        target: String,
        /// Write the tests without replaying them first (by default each is replayed in
        /// the browser and left out when it does not run through).
        #[arg(long)]
        no_check: bool,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Serve a bundled test application on 127.0.0.1 until stopped, printing its URL
    /// (e.g. as a --serve command: --serve "wayfarer serve clinic --port {port}").
    #[command(after_help = "Example:\n  wayfarer serve clinic --port 8080")]
    Serve {
        /// expense, clinic, splitter, board, board-delegated or hazards.
        app: String,
        /// Port on 127.0.0.1 (0: a free one).
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// Serve it with its seeded bugs switched off.
        #[arg(long)]
        fixed: bool,
        /// Answer every request this many milliseconds late, as a remote backend would.
        #[arg(long, value_name = "MS", default_value_t = 0)]
        latency_ms: u64,
    },
    /// Turn a run's failure traces into tests another tool runs.
    #[command(
        after_help = "Example:\n  wayfarer export --format playwright wayfarer-out\n  cd wayfarer-out/playwright && npm install && npx playwright test"
    )]
    Export {
        /// Output format; only playwright for now.
        #[arg(long, default_value = "playwright")]
        format: String,
        /// The run's output directory (it holds traces/).
        dir: PathBuf,
        /// Where to write the tests (default: DIR/playwright).
        #[arg(long, short = 'o')]
        out: Option<PathBuf>,
        /// Chromium binary the Playwright config points at (default: as for explore).
        #[arg(long)]
        chrome: Option<String>,
    },
}

/// Where a trace is replayed.
#[derive(Debug, Args, Clone)]
pub struct TraceArgs {
    /// Start URL of the application to replay against (default: the trace's; a trace
    /// recorded by `wayfarer demo` serves its bundled application again).
    #[arg(long)]
    pub url: Option<String>,
    /// With a demo trace: serve the bundled application with its seeded bugs switched off.
    #[arg(long)]
    pub fixed: bool,
    /// Chromium binary (default: $CHROME, then /usr/lib/chromium/chromium-headless-shell, /usr/bin/chromium).
    #[arg(long)]
    pub chrome: Option<String>,
    /// Attach to a running browser's CDP websocket instead of launching Chromium.
    #[arg(long)]
    pub cdp: Option<String>,
    /// No progress lines (errors still go to stderr).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// A configuration file whose `[reset]` hook puts the application's own state back
    /// before every replay, and whose `[server]` starts the application (the trace
    /// carries everything else, the server it was recorded on included).
    #[arg(long, short = 'c')]
    pub config: Option<PathBuf>,
    /// A shell command that starts the application, `{port}` replaced by a free port
    /// (as `[server] command`); by default the trace's own server is started again.
    #[arg(long, value_name = "CMD")]
    pub serve: Option<String>,
}

#[derive(Debug, Args, Clone)]
pub struct RunArgs {
    /// Exploration strategy: guided (default), random, bfs, dfs, webexplor, webrled (and
    /// its ablations webrled+, webrled-, webrled*), vetl, vetl-v1, vetl-lv, vetl-l, vetl-h.
    #[arg(long, short = 's')]
    pub strategy: Option<String>,
    /// Budget: actions (300), wall time (90s, 2m) or both (300,2m). Default 300 (demo: 2m).
    #[arg(long, short = 'b')]
    pub budget: Option<String>,
    /// Seed for every random choice. Default 1.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Steps per episode before a reset to the start URL (default: the config's, else
    /// the strategy's: random 50, guided/bfs/dfs/webexplor 100, webrled 50 + 2 x 10 probes).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub episode_steps: Option<u32>,
    /// Input generator for typed values: random, heuristic, llm (VETL's prompt to the
    /// --llm model, the heuristic without one), each alone or with +mutate. `+mutate`
    /// attacks a form once it was accepted: every other submission changes one field to
    /// a boundary value. Default: the strategy's generator with +mutate (random for
    /// random, llm for vetl, heuristic for the others); naming a plain generator turns
    /// mutation off.
    #[arg(long)]
    pub inputs: Option<String>,
    /// State inference: guess the page an action leads to and skip the scan when the
    /// guess holds. off (default), types-1, types-5, actions-1, actions-5, widgets-1,
    /// widgets-5 (any N from 1 to 20 after the dash).
    #[arg(long, default_value = "off")]
    pub inference: String,
    /// webrled: start from the networks an earlier run saved (its run directory's
    /// `model/`, or any directory holding them) instead of untrained ones. Every webrled
    /// run saves its networks in `<out>/model/`.
    #[arg(long, value_name = "DIR")]
    pub networks: Option<PathBuf>,
    /// An OpenAI-compatible endpoint (hosted, vLLM, Ollama, llama.cpp server) for the
    /// `llm` input generator and the vetl strategies, e.g. http://127.0.0.1:8080/v1. The
    /// key, if it needs one, is read from WAYFARER_LLM_KEY. Without it, the heuristic
    /// provider answers offline.
    #[arg(long, value_name = "URL")]
    pub llm: Option<String>,
    /// The model the --llm endpoint serves (`[llm] model` in the configuration).
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// A run directory of the same strategy and seed made without inference: the summary
    /// then reports the deviation, the share of steps whose action differs from it.
    #[arg(long, value_name = "DIR")]
    pub deviation_from: Option<PathBuf>,
    /// Output directory (report.json). Default ./wayfarer-out
    #[arg(long, short = 'o')]
    pub out: Option<PathBuf>,
    /// Configuration file (scope, deny rules, login steps, inputs, budgets, [server]...).
    #[arg(long, short = 'c')]
    pub config: Option<PathBuf>,
    /// Start the application with this shell command and stop it at the end, as
    /// `[server] command` (`{port}` is replaced by a free port): e.g.
    /// --serve "npm start -- --port {port}". Its output goes to OUT/server.log.
    #[arg(long, value_name = "CMD")]
    pub serve: Option<String>,
    /// Attach to a running browser instead of launching Chromium: its CDP websocket
    /// (ws://..., a grid's token in its query kept) or its http(s)://host:port[/path].
    /// Repeat it for a fleet: one worker per endpoint. One endpoint with --workers N: N
    /// connections to it (a grid such as browserless gives each its own browser).
    #[arg(long, value_name = "URL")]
    pub cdp: Vec<String>,
    /// Ask a WebDriver hub for the browsers (Selenium Grid 4, a chromedriver, Selenoid):
    /// one session per worker, driven over the CDP websocket it names, deleted at the end
    /// (also after Ctrl-C or SIGTERM). E.g. --grid http://127.0.0.1:4444 --workers 3.
    #[arg(long, value_name = "URL", conflicts_with_all = ["cdp", "cdp_file"])]
    pub grid: Option<String>,
    /// A file of CDP endpoints, one per line (blank lines and # comments skipped), each
    /// driven by a worker as if given with --cdp.
    #[arg(long, value_name = "FILE")]
    pub cdp_file: Option<PathBuf>,
    /// Browsers explored at once by this one run (default auto): every worker has its own
    /// Chromium (or --cdp endpoint) and generator, and all share one store, one failure
    /// table and what the strategy learns. With --cdp, one worker per endpoint (or N
    /// connections to one endpoint); with --grid, N sessions. `auto`:
    /// up to 3 browsers start; the first explores alone for 20 steps, then as many
    /// explore as the CPU it left idle (waiting on the application) has room for. A run
    /// repeats exactly with the same --seed only with one browser: give --workers 1.
    #[arg(long, value_name = "N|auto")]
    pub workers: Option<wayfarer_run::Workers>,
    /// Chromium binary (default: $CHROME, then /usr/lib/chromium/chromium-headless-shell, /usr/bin/chromium).
    #[arg(long)]
    pub chrome: Option<String>,
    /// Open a fresh browser context on every reset (full isolation, slower).
    #[arg(long)]
    pub isolate: bool,
    /// Print one JSON summary on stdout at the end, nothing else.
    #[arg(long)]
    pub json: bool,
    /// No progress line and no summary (errors still go to stderr).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// A specification of your own properties (a TypeScript or JavaScript module in
    /// Bombadil's language: `extract`, `always`, `eventually(..).within(..)`, `next`),
    /// checked on every state; a violation is a failure of kind `property`. Overrides
    /// `[spec] file`.
    #[arg(long, value_name = "FILE")]
    pub spec: Option<PathBuf>,
    /// After the run, shrink each failure by replay in a fresh browser: `off`, a share of
    /// the exploring time (default 20%) or a time (90s, 5m).
    #[arg(long, value_name = "off|SHARE%|TIME")]
    pub shrink: Option<wayfarer_run::ShrinkBudget>,
    /// Replays of each minimal trace that tell a confirmed failure from a flaky one.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub confirm: Option<u32>,
    /// An earlier run (its report.json or its directory): each failure is new or known,
    /// and the baseline's failures not raised again are gone.
    #[arg(long, value_name = "PATH")]
    pub baseline: Option<PathBuf>,
    /// Which failures make the exit code 1: any (default), new (needs --baseline),
    /// confirmed (raised on every confirming replay), flaky (on at least one); joined
    /// with commas, all must hold (new,confirmed).
    #[arg(long, value_name = "WHICH", default_value = "any")]
    pub fail_on: wayfarer_core::findings::FailOn,
    /// Also print the failures as CI annotations on stdout (github: workflow commands).
    #[arg(long, value_name = "FORMAT", value_parser = ["github"])]
    pub annotations: Option<String>,
    /// Append a Markdown summary of the run to FILE (for $GITHUB_STEP_SUMMARY).
    #[arg(long, value_name = "FILE")]
    pub summary_md: Option<PathBuf>,
}

#[derive(Debug, Args, Clone)]
pub struct BenchArgs {
    /// Bundled applications to serve and explore: `all` (expense, clinic, splitter,
    /// board) or a comma list of them and board-delegated (the board with event
    /// delegation). Default: all (none when --url is given).
    #[arg(long)]
    pub apps: Option<String>,
    /// Also (or only) benchmark the application at this URL; repeatable. Metrics that
    /// need ground truth stay empty for it.
    #[arg(long)]
    pub url: Vec<String>,
    /// Also (or only) benchmark the applications this file lists (`[[app]]` with `name`,
    /// `config` and an optional start `path`): each run starts its application afresh with
    /// the `[server]` of the app's own configuration, which also holds its login steps and
    /// deny rules (see realapps/apps.toml). With it, --apps names pick among its
    /// applications and the bundled ones.
    #[arg(long, value_name = "FILE")]
    pub apps_file: Option<PathBuf>,
    /// Strategies, comma-separated.
    #[arg(long, default_value = "random")]
    pub strategies: String,
    /// State-inference configurations every strategy runs with, comma-separated: off,
    /// types-1, types-5, actions-1, actions-5, widgets-1, widgets-5. With `off` in the
    /// list, the other runs are compared with it (deviation, scan+analysis cut).
    #[arg(long, default_value = "off")]
    pub inference: String,
    /// Browsers each strategy run explores at once, comma-separated (1,3 runs every
    /// strategy with one worker and with three, and the table compares them per
    /// wall-minute); `auto` lets each run choose (see explore's --workers).
    #[arg(long, default_value = "1")]
    pub workers: String,
    /// External peers measured in the same run, comma-separated (gremlins, bombadil,
    /// bombadil@0.4.5), or none. gremlins and bombadil (0.7.0) are installed from npm into
    /// --peer-cache when missing; bombadil@0.4.5 is built from source ($BOMBADIL_BIN,
    /// /opt/peers/bombadil/target/release/bombadil). Where the application has a login,
    /// peers start logged in.
    #[arg(long, default_value = "none")]
    pub peer: String,
    /// Budget of every run: actions (300), wall time (90s, 2m) or both (300,2m).
    #[arg(long, short = 'b', default_value = "300")]
    pub budget: String,
    /// Seeds: a count N (seeds 1 to N), a range A..B, or a list A,B,C.
    #[arg(long, default_value = "3")]
    pub seeds: String,
    /// Steps per episode before a reset to the start URL (default: the config's, else
    /// each strategy's: random 50, bfs/dfs/webexplor 100, webrled 50 + 2 x 10 probes).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub episode_steps: Option<u32>,
    /// Output directory. Default ./wayfarer-bench
    #[arg(long, short = 'o')]
    pub out: Option<PathBuf>,
    /// Configuration file applied to every run (scope, deny rules, login, inputs...).
    #[arg(long, short = 'c')]
    pub config: Option<PathBuf>,
    /// Chromium binary (default: $CHROME, then /usr/lib/chromium/chromium-headless-shell, /usr/bin/chromium).
    #[arg(long)]
    pub chrome: Option<String>,
    /// Where peers are installed (default: $XDG_CACHE_HOME/wayfarer/peers or
    /// ~/.cache/wayfarer/peers).
    #[arg(long)]
    pub peer_cache: Option<PathBuf>,
    /// How every strategy run shrinks its failures by replay, as explore's --shrink: a
    /// share of the exploring time (default 20%), a time (90s, 5m), or `off` to measure
    /// exploring alone. The tables say which, and set each seeded bug's reported trace
    /// against the fewest actions it needs.
    #[arg(long, value_name = "off|SHARE%|TIME")]
    pub shrink: Option<wayfarer_run::ShrinkBudget>,
    /// Keep the strategy runs already complete in --out (made with the same budget and
    /// --shrink) instead of running them again: a long benchmark can be finished in
    /// several goes.
    #[arg(long)]
    pub resume: bool,
    /// Bundled applications wait this many milliseconds before every response, as a
    /// backend behind a network and a database would (they answer in microseconds
    /// otherwise): runs then wait on the application the way they do on a real one.
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub app_latency_ms: u64,
    /// Also turn each strategy run into feature tests (`wayfarer features` on its
    /// directory) and score them: the `suite_*` columns. Add `[abstraction] mask_ids =
    /// true` to the config for the crawl `wayfarer features URL` makes.
    #[arg(long)]
    pub feature_tests: bool,
    /// No progress lines (errors still go to stderr).
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    /// `--help` of every command ends with an example of its use.
    #[test]
    fn every_command_shows_an_example_of_itself() {
        let cli = Cli::command();
        cli.clone().debug_assert();
        for sub in cli.get_subcommands().filter(|s| s.get_name() != "help") {
            let name = sub.get_name();
            let help = sub
                .get_after_help()
                .map(|h| h.to_string())
                .unwrap_or_default();
            assert!(
                help.starts_with("Example") && help.contains(&format!("wayfarer {name}")),
                "`wayfarer {name} --help` shows no example of it: {help:?}"
            );
        }
    }

    /// `--strategy`'s help names every strategy of the registry (a new one is listed
    /// there once, and here in words).
    #[test]
    fn the_strategy_flag_names_every_registered_strategy() {
        let cli = Cli::command();
        let explore = cli.find_subcommand("explore").expect("explore");
        let flag = explore
            .get_arguments()
            .find(|a| a.get_id() == "strategy")
            .expect("--strategy");
        let help = flag.get_help().map(|h| h.to_string()).unwrap_or_default();
        let words: Vec<&str> = help
            .split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')')
            .map(|w| w.trim_end_matches('.'))
            .collect();
        for name in wayfarer_strategies::registry::names() {
            assert!(
                words.contains(&name),
                "--strategy's help lacks {name}: {help}"
            );
        }
    }

    /// The completion scripts know every command and their flags.
    #[test]
    fn completions_cover_the_commands_and_their_flags() {
        for shell in [
            clap_complete::Shell::Bash,
            clap_complete::Shell::Zsh,
            clap_complete::Shell::Fish,
        ] {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "wayfarer", &mut script);
            let script = String::from_utf8(script).unwrap();
            // fish names a long flag `-l budget`, the others `--budget`.
            let flag = |f: &str| match shell {
                clap_complete::Shell::Fish => format!("-l {f}"),
                _ => format!("--{f}"),
            };
            for word in [
                "init".into(),
                "explore".into(),
                "replay".into(),
                flag("budget"),
                flag("force"),
            ] {
                assert!(script.contains(&word), "{shell}: {word}");
            }
        }
    }
}
