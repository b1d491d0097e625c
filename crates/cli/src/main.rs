//! `wayfarer`: the command line. It parses arguments, reads the configuration, and hands
//! everything to the engine; output goes through observers.

// Every line printed goes through the secrets mask: `mprintln!` and friends.
#![deny(clippy::print_stdout, clippy::print_stderr)]

// First: its masked print macros are used by every module below.
#[macro_use]
mod log_mask;

mod args;
mod bench;
mod explore;
mod export;
mod features;
mod init;
mod minimize;
mod progress;
mod replay;
mod report;
mod seeded;

use clap::Parser;
use tracing_subscriber::EnvFilter;

use crate::args::{Cli, Command};

/// mimalloc: webrled's network training allocates many large short-lived tensors, which
/// glibc's allocator served through mmap (a Q-network step 80 ms instead of 9 ms).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let cli = Cli::parse();
    // chromiumoxide warns on every CDP message newer than its generated types; that
    // protocol drift is expected and handled, so its handler logs only at -vv (a lost
    // connection, its one error, the browser environment says itself).
    let default_level = match cli.verbose {
        0 => "warn,chromiumoxide=error,chromiumoxide::handler=off",
        1 => "info,chromiumoxide=error,chromiumoxide::handler=off",
        _ => "debug",
    };
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_level)),
        )
        // Masked: secret values read later (config, trace) never reach the log.
        .with_writer(|| log_mask::MaskedStderr)
        .init();

    let result = match &cli.command {
        Command::Init {
            url,
            out,
            force,
            chrome,
        } => init::command(url, out, *force, chrome.as_deref()),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            let mut cli = Cli::command();
            clap_complete::generate(*shell, &mut cli, "wayfarer", &mut std::io::stdout());
            Ok(0)
        }
        Command::Explore { url, run } => explore::explore(url.as_deref(), run),
        Command::Demo { app, fixed, run } => explore::demo(app, *fixed, run),
        Command::Report { dir, format } => report::command(dir, format),
        Command::Diff { a, b } => report::diff(a, b),
        Command::Replay {
            trace,
            target,
            repeat,
            json,
        } => replay::command(trace, target, *repeat, *json),
        Command::Minimize { trace, target, out } => {
            minimize::command(trace, target, out.as_deref())
        }
        Command::Bench(args) => bench::command(args),
        Command::Serve {
            app,
            port,
            fixed,
            latency_ms,
        } => explore::serve(app, *fixed, *port, *latency_ms),
        Command::Features {
            target,
            no_check,
            run,
        } => features::command(target, !*no_check, run),
        Command::Export {
            format,
            dir,
            out,
            chrome,
        } => export::command(format, dir, out.as_deref(), chrome.as_deref()),
    };
    let code = match result {
        Ok(code) => code,
        Err(e) => {
            meprintln!("error: {e:#}");
            2
        }
    };
    std::process::exit(code);
}
