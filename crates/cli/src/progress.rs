//! The live progress line on a terminal, and one line per new failure.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use wayfarer_core::{Failure, Observer, Progress, RunSummary, StepRecord};

/// Writes progress to stderr: a redrawn line on a TTY, a line every few seconds otherwise.
pub struct ProgressLine {
    tty: bool,
    last: Option<Instant>,
    every: Duration,
    drawn: bool,
    /// The run has several workers (a retired one is then worth a line).
    fleet: bool,
}

impl ProgressLine {
    pub fn new() -> ProgressLine {
        let tty = std::io::stderr().is_terminal();
        ProgressLine {
            tty,
            last: None,
            every: if tty {
                Duration::from_millis(100)
            } else {
                Duration::from_secs(10)
            },
            drawn: false,
            fleet: false,
        }
    }

    fn clear(&mut self) {
        if self.tty && self.drawn {
            meprint!("\r\x1b[2K");
            self.drawn = false;
        }
    }
}

pub fn progress_text(p: &Progress) -> String {
    let rate = p.steps as f64 / p.elapsed.as_secs_f64().max(1e-3);
    let cov = p
        .coverage
        .map(|c| format!(" · js {:.1}%", c.ratio() * 100.0))
        .unwrap_or_default();
    let workers = match p.workers {
        0 | 1 => String::new(),
        n => format!(" · {n} workers"),
    };
    format!(
        "[{:>5.1}s {:>3.0}%] step {} · episode {} · states {} · urls {} · failures {}{cov} · {:.1} steps/s{workers}",
        p.elapsed.as_secs_f64(),
        p.budget_used * 100.0,
        p.steps,
        p.episodes,
        p.states,
        p.urls,
        p.failures,
        rate
    )
}

impl Observer for ProgressLine {
    fn on_step(&mut self, _record: &StepRecord, p: &Progress) {
        self.fleet |= p.workers > 1;
        if self.last.is_some_and(|t| t.elapsed() < self.every) {
            return;
        }
        self.last = Some(Instant::now());
        let line = progress_text(p);
        let mut err = std::io::stderr().lock();
        if self.tty {
            let _ = write!(err, "\r\x1b[2K{line}");
            self.drawn = true;
        } else {
            let _ = writeln!(err, "{line}");
        }
        let _ = err.flush();
    }

    fn on_failure(&mut self, f: &Failure, _screenshot: Option<&[u8]>) {
        self.clear();
        let msg = wayfarer_core::secrets::mask_then_cut(&f.message, 120);
        meprintln!("  ✗ step {}: {} {}", f.step, f.kind.as_str(), msg);
    }

    fn on_retire(&mut self, worker: u32, browser: &str, why: &str) {
        // With one worker the run ends here, and its summary says why.
        if self.fleet {
            self.clear();
            meprintln!("  ! worker {worker} ({browser}) stopped, the others go on: {why}");
        }
    }

    fn on_end(&mut self, _summary: &RunSummary) {
        self.clear();
    }
}
