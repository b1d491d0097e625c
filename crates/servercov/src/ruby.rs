//! Ruby: the standard library's `Coverage`, started in every Ruby process of the server
//! by a file wayfarer has Ruby require first (`RUBYOPT=-r...`, which Bundler keeps for the
//! processes it starts), before the application loads. Each process registers itself and,
//! whenever wayfarer touches the trigger file, writes the lines of the server's own files
//! it ran since its last save (`Coverage.result(clear: true)`) to a JSON file of its own,
//! which the reader reads once and removes.

use std::path::{Path, PathBuf};
use std::time::Instant;

use wayfarer_core::server::{ServerCoverage, ServerFileReach};
use wayfarer_process::OutputCursor;

use crate::lines::PY_COMMENTS as RB_COMMENTS;
use crate::procs::{self, Procs};
use crate::{Book, CovError, Filter, Prepared, Reader, Stack};

/// The file every Ruby process of the server requires at start-up.
const HOOK: &str = include_str!("wayfarer_coverage.rb");

/// `RUBYOPT` requiring wayfarer's hook, where it keeps its files, and what it keeps
/// (`filter`'s patterns, matched by `File.fnmatch`).
pub fn prepare(
    env: &[(String, String)],
    work: &Path,
    filter: &Filter,
) -> Result<Prepared, CovError> {
    let rb = work.join("rb");
    procs::make_dirs(work, &rb)?;
    let hook = rb.join("wayfarer_coverage.rb");
    std::fs::write(&hook, HOOK)
        .map_err(|e| CovError::Setup(format!("cannot write {}: {e}", hook.display())))?;
    let before = env
        .iter()
        .rev()
        .find(|(k, _)| k == "RUBYOPT")
        .map(|(_, v)| v.clone())
        .or_else(|| std::env::var("RUBYOPT").ok())
        .unwrap_or_default();
    let (include, omit) = filter.patterns();
    Ok(Prepared {
        env: vec![
            (
                "RUBYOPT".into(),
                format!("{before} -r{}", hook.display()).trim().to_string(),
            ),
            ("WAYFARER_COVERAGE_DIR".into(), work.display().to_string()),
            ("WAYFARER_COVERAGE_INCLUDE".into(), include.join("\n")),
            ("WAYFARER_COVERAGE_OMIT".into(), omit.join("\n")),
        ],
    })
}

/// The coverage of a server's Ruby processes.
pub struct RubyReader {
    work: PathBuf,
    book: Book,
    procs: Procs,
}

impl RubyReader {
    /// `work`: the folder [`prepare`] set up.
    pub fn new(work: &Path, filter: Filter) -> RubyReader {
        RubyReader {
            work: work.to_path_buf(),
            book: Book::new(filter, RB_COMMENTS),
            procs: Procs::new(work),
        }
    }
}

impl Reader for RubyReader {
    fn take(&mut self) -> Result<u64, CovError> {
        let (pids, _) = self.procs.list();
        if pids.is_empty() && self.procs.takes() == 0 {
            return Err(CovError::Setup(
                "no Ruby process of the server started Coverage (is it a Ruby server? Does \
                 it set RUBYOPT itself?)"
                    .into(),
            ));
        }
        let t = Instant::now();
        self.procs.trigger(&pids);
        let new = procs::read_json(&self.work.join("data"), &mut self.book);
        self.book.read_done(t.elapsed());
        Ok(new)
    }

    fn coverage(&self) -> ServerCoverage {
        self.book.coverage(Stack::Ruby)
    }

    fn by_file(&self) -> Vec<ServerFileReach> {
        self.book.by_file()
    }

    fn mark_first_load(&mut self) {
        self.book.mark_first_load();
    }

    /// The new processes register themselves; their files join the others.
    fn restarted(&mut self, _output: OutputCursor) {}
}
