//! The application's server as a step sees it, when wayfarer started the server
//! (`[server]`): what it wrote to its output while the step ran (a traceback, a log line),
//! kept as a failure's evidence so that a 500 arrives with its cause, and the server code
//! it ran (`[server] coverage`), counted in lines of the server's own files.

use serde::{Deserialize, Serialize};

/// Lines of one step's server output kept at most: the last ones, where a traceback ends
/// with its exception (a Django traceback of a template error runs to ~60 lines).
pub const OUTPUT_LINES: usize = 80;

/// Characters of one kept line at most.
pub const LINE_WIDTH: usize = 400;

/// What the server wrote during one step (or reset): its last lines, and how many earlier
/// ones were left out.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerOutput {
    pub lines: Vec<String>,
    /// Earlier lines of the same step left out.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub omitted: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl ServerOutput {
    /// The last [`OUTPUT_LINES`] of `lines` that say something (blank lines dropped), each
    /// cut to [`LINE_WIDTH`].
    pub fn of(lines: impl IntoIterator<Item = String>) -> ServerOutput {
        let said: Vec<String> = lines
            .into_iter()
            .map(|l| l.trim_end().to_string())
            .filter(|l| !l.trim().is_empty())
            .collect();
        let omitted = said.len().saturating_sub(OUTPUT_LINES);
        ServerOutput {
            lines: said[omitted..].iter().map(|l| cut(l)).collect(),
            omitted,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// `later` appended: a step's output read in two parts.
    pub fn extend(&mut self, later: ServerOutput) {
        let all = std::mem::take(&mut self.lines)
            .into_iter()
            .chain(later.lines)
            .collect::<Vec<_>>();
        let before = self.omitted + later.omitted;
        *self = ServerOutput::of(all);
        self.omitted += before;
    }

    /// The last `n` lines, with a first line saying how many came before, for a terminal.
    pub fn tail(&self, n: usize) -> Vec<String> {
        let skip = self.lines.len().saturating_sub(n);
        let mut out = Vec::with_capacity(n + 1);
        if skip + self.omitted > 0 {
            out.push(format!("… {} earlier line(s)", skip + self.omitted));
        }
        out.extend(self.lines[skip..].iter().cloned());
        out
    }
}

fn cut(line: &str) -> String {
    match line.char_indices().nth(LINE_WIDTH) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_string(),
    }
}

/// The server's own code run so far, by line: the same yardstick whichever tool drives
/// the browser, since it is measured at the server.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerCoverage {
    /// How it was measured: "node" (V8's precise coverage over the inspector), "python"
    /// (coverage.py), ...
    pub stack: String,
    /// Lines run at least once since the server started (its own files only).
    pub lines_covered: u64,
    /// Lines of code of the files known (loaded by the server, or named by `include`).
    pub lines_total: u64,
    /// Covered after the first page load (the server's start-up and the start page):
    /// what exploration added is `lines_covered - first_lines_covered`.
    pub first_lines_covered: u64,
    /// Files known, and files with a line run.
    pub files: u64,
    pub files_run: u64,
    /// Readings taken, and their total and slowest time (what measuring costs).
    pub reads: u64,
    pub read_ms_total: f64,
    pub read_ms_max: f64,
}

impl ServerCoverage {
    pub fn ratio(&self) -> f64 {
        if self.lines_total == 0 {
            0.0
        } else {
            self.lines_covered as f64 / self.lines_total as f64
        }
    }

    /// Lines exploration added to what the start ran.
    pub fn gain(&self) -> u64 {
        self.lines_covered.saturating_sub(self.first_lines_covered)
    }
}

/// One server file's share of the coverage: where the server code a run never reached
/// lives.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerFileReach {
    pub path: String,
    pub lines: u64,
    pub covered: u64,
    /// Covered after the first page load.
    pub first_covered: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_lines_are_kept_and_the_rest_counted() {
        let lines = (1..=100).map(|i| format!("line {i}"));
        let out = ServerOutput::of(lines.chain(["   ".to_string()]));
        assert_eq!(out.lines.len(), OUTPUT_LINES);
        assert_eq!(out.omitted, 20);
        assert_eq!(out.lines.last().unwrap(), "line 100");
        assert_eq!(
            out.tail(2),
            vec!["… 98 earlier line(s)", "line 99", "line 100"]
        );
        let long = ServerOutput::of(["x".repeat(1000)]);
        assert_eq!(long.lines[0].chars().count(), LINE_WIDTH + 1);
        let mut a = ServerOutput::of(["Traceback (most recent call last):".to_string()]);
        a.extend(ServerOutput::of([
            "ZeroDivisionError: division by zero".to_string()
        ]));
        assert_eq!(a.lines.len(), 2);
        assert_eq!(a.tail(5).len(), 2, "nothing left out, nothing said");
    }
}
