//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "wayfarer",
    version,
    about = "Explores a web application in headless Chromium and reports what breaks.",
    after_help = "Exit codes: 0 no failure found, 1 failures found, 2 usage or environment error."
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
    /// Explore the web application at URL.
    Explore {
        /// Start URL, e.g. http://localhost:3000/
        url: String,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Serve a bundled demo application on 127.0.0.1 and explore it.
    Demo {
        /// Which bundled application: expense or clinic.
        #[arg(long, default_value = "expense")]
        app: String,
        /// Serve the application with its seeded bugs switched off.
        #[arg(long)]
        fixed: bool,
        #[command(flatten)]
        run: RunArgs,
    },
}

#[derive(Debug, Args, Clone)]
pub struct RunArgs {
    /// Exploration strategy.
    #[arg(long, short = 's')]
    pub strategy: Option<String>,
    /// Budget: actions (300), wall time (90s, 2m) or both (300,2m). Default 300 (demo: 1000).
    #[arg(long, short = 'b')]
    pub budget: Option<String>,
    /// Seed for every random choice. Default 1.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Steps per episode before a reset to the start URL. Default 50.
    #[arg(long)]
    pub episode_steps: Option<u32>,
    /// Input generator for typed values: random or heuristic (default: the strategy's).
    #[arg(long)]
    pub inputs: Option<String>,
    /// Output directory (report.json). Default ./wayfarer-out
    #[arg(long, short = 'o')]
    pub out: Option<PathBuf>,
    /// Configuration file (scope, deny rules, login steps, inputs, budgets...).
    #[arg(long, short = 'c')]
    pub config: Option<PathBuf>,
    /// Attach to a running browser's CDP websocket instead of launching Chromium.
    #[arg(long)]
    pub cdp: Option<String>,
    /// Chromium binary (default: $CHROME, then /usr/bin/chromium).
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
}
