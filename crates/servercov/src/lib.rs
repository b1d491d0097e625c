//! wayfarer-servercov: the application server's own code coverage, read while it runs.
//!
//! The supervisor (`wayfarer-run`'s application) asks [`prepare`] for the environment a
//! stack's coverage tool needs before it starts the server, then [`attach`]es a
//! [`Reader`] to the running server. Each [`Reader::take`] returns the server's lines
//! first run since the one before, counted in a [`Book`] of the server's own files (its
//! `include`/`exclude` patterns, by default not its dependencies):
//!
//! - Node ([`node`]): the inspector of every Node process of the server
//!   (`NODE_OPTIONS=--inspect=127.0.0.1:0`, found by the line each prints), V8's precise
//!   block coverage started on it and taken over the DevTools protocol;
//! - Python ([`python`]): coverage.py started in every Python process of the server (a
//!   `sitecustomize` on `PYTHONPATH`), each saving its data when asked;
//! - Ruby ([`ruby`]): the standard library's `Coverage`, started in every Ruby process of
//!   the server (`RUBYOPT=-r...`), each writing the lines it ran when asked;
//! - PHP ([`php`]): pcov around every request (a prepended script), each request writing
//!   the lines it ran.

pub mod lines;
pub mod node;
pub mod php;
mod procs;
pub mod python;
pub mod ruby;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use globset::{Glob, GlobSet, GlobSetBuilder};
use wayfarer_core::server::{ServerCoverage, ServerFileReach};
use wayfarer_process::OutputCursor;

use crate::lines::Source;

pub use wayfarer_core::config::ServerStack as Stack;

/// The stack `command` runs, as far as its words tell (for `coverage = "auto"`).
pub fn guess(command: &str) -> Option<Stack> {
    let words: Vec<&str> = command
        .split(|c: char| c.is_whitespace() || c == ';' || c == '&' || c == '|')
        .map(|w| w.rsplit('/').next().unwrap_or(w))
        .collect();
    let any = |f: &dyn Fn(&str) -> bool| words.iter().any(|w| f(w));
    if any(&|w| {
        matches!(w, "node" | "npm" | "npx" | "yarn" | "pnpm" | "nodejs")
            || w.ends_with(".js")
            || w.ends_with(".mjs")
            || w.ends_with(".cjs")
    }) {
        return Some(Stack::Node);
    }
    if any(&|w| {
        w.starts_with("python")
            || w.ends_with(".py")
            || matches!(
                w,
                "gunicorn" | "uvicorn" | "flask" | "django-admin" | "waitress-serve"
            )
    }) {
        return Some(Stack::Python);
    }
    if any(&|w| {
        w.starts_with("ruby")
            || w.ends_with(".rb")
            || matches!(
                w,
                "rails" | "bundle" | "puma" | "thin" | "unicorn" | "rackup" | "passenger"
            )
    }) {
        return Some(Stack::Ruby);
    }
    if any(&|w| w.starts_with("php") || w.ends_with(".php")) {
        return Some(Stack::Php);
    }
    None
}

/// Why coverage cannot be measured.
#[derive(Debug, thiserror::Error)]
pub enum CovError {
    #[error("server coverage: {0}")]
    Setup(String),
    #[error("server coverage: bad pattern {pattern:?}: {why}")]
    Pattern { pattern: String, why: String },
    #[error("server coverage: reading it failed: {0}")]
    Read(String),
}

/// The server's own files: `include` patterns (globs over absolute paths; none: files
/// under `root`), less `exclude` and the stack's dependencies (`node_modules`,
/// `site-packages`) unless an include pattern names them.
#[derive(Clone, Debug)]
pub struct Filter {
    include: Option<GlobSet>,
    exclude: GlobSet,
    root: PathBuf,
    /// The patterns as given (a coverage tool that filters by itself is told them).
    include_patterns: Vec<String>,
    exclude_patterns: Vec<String>,
}

fn globs(patterns: &[String]) -> Result<GlobSet, CovError> {
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        let g = Glob::new(p).map_err(|e| CovError::Pattern {
            pattern: p.clone(),
            why: e.kind().to_string(),
        })?;
        b.add(g);
    }
    b.build().map_err(|e| CovError::Pattern {
        pattern: patterns.join(", "),
        why: e.to_string(),
    })
}

/// Folders that hold a stack's dependencies, not the application's own code.
const DEPENDENCIES: &[&str] = &[
    "/node_modules/",
    "/site-packages/",
    "/dist-packages/",
    "/gems/",
    "/vendor/",
];

impl Filter {
    pub fn new(include: &[String], exclude: &[String], root: &Path) -> Result<Filter, CovError> {
        Ok(Filter {
            include: (!include.is_empty()).then(|| globs(include)).transpose()?,
            exclude: globs(exclude)?,
            root: root.to_path_buf(),
            include_patterns: include.to_vec(),
            exclude_patterns: exclude.to_vec(),
        })
    }

    /// What a tool that filters by itself should measure and leave out, as globs: the
    /// include patterns (none given: everything under the root), and the exclude patterns
    /// (none given with no include: the dependencies too).
    pub fn patterns(&self) -> (Vec<String>, Vec<String>) {
        if self.include_patterns.is_empty() {
            let mut omit: Vec<String> = DEPENDENCIES.iter().map(|d| format!("*{d}*")).collect();
            omit.extend(self.exclude_patterns.iter().cloned());
            (vec![format!("{}/*", self.root.display())], omit)
        } else {
            (self.include_patterns.clone(), self.exclude_patterns.clone())
        }
    }

    /// Whether `path` (absolute) is the server's own code.
    pub fn wants(&self, path: &Path) -> bool {
        if self.exclude.is_match(path) {
            return false;
        }
        match &self.include {
            Some(inc) => inc.is_match(path),
            None => {
                let text = path.to_string_lossy();
                path.starts_with(&self.root) && !DEPENDENCIES.iter().any(|d| text.contains(d))
            }
        }
    }
}

/// One file's lines run so far.
#[derive(Debug, Default)]
struct FileLines {
    /// Code lines of the file (0 until it could be read).
    lines: u64,
    covered: BTreeSet<u32>,
    first_covered: u64,
}

/// The server's own files and their lines run, over the run.
#[derive(Debug)]
pub struct Book {
    filter: Filter,
    /// The comment prefixes of the stack's language (see [`lines`]).
    comments: &'static [&'static str],
    files: BTreeMap<PathBuf, FileLines>,
    sources: BTreeMap<PathBuf, Option<Source>>,
    /// Whether the first load is marked.
    started: bool,
    first_lines: u64,
    reads: u64,
    read_total: Duration,
    read_max: Duration,
}

impl Book {
    pub fn new(filter: Filter, comments: &'static [&'static str]) -> Book {
        Book {
            filter,
            comments,
            files: BTreeMap::new(),
            sources: BTreeMap::new(),
            started: false,
            first_lines: 0,
            reads: 0,
            read_total: Duration::ZERO,
            read_max: Duration::ZERO,
        }
    }

    pub fn wants(&self, path: &Path) -> bool {
        self.filter.wants(path)
    }

    /// The file's source, read once (`None`: unreadable).
    pub fn source(&mut self, path: &Path) -> Option<&Source> {
        let comments = self.comments;
        self.sources
            .entry(path.to_path_buf())
            .or_insert_with(|| lines::read(path, comments))
            .as_ref()
    }

    /// `path` is loaded by the server: its lines count in the total. False when it is not
    /// the server's own code.
    pub fn know(&mut self, path: &Path) -> bool {
        if !self.wants(path) {
            return false;
        }
        if !self.files.contains_key(path) {
            let lines = self.source(path).map_or(0, Source::code_line_count);
            self.files.insert(
                path.to_path_buf(),
                FileLines {
                    lines,
                    ..FileLines::default()
                },
            );
        }
        true
    }

    /// Lines of `path` run; returns how many were run for the first time.
    pub fn run(&mut self, path: &Path, run: impl IntoIterator<Item = u32>) -> u64 {
        if !self.know(path) {
            return 0;
        }
        let f = self.files.get_mut(path).expect("known above");
        let before = f.covered.len();
        f.covered.extend(run);
        (f.covered.len() - before) as u64
    }

    /// A reading ended, having taken `took`.
    pub fn read_done(&mut self, took: Duration) {
        self.reads += 1;
        self.read_total += took;
        self.read_max = self.read_max.max(took);
    }

    /// What is covered now is the first load's (the server's start-up and the start
    /// page): exploration's gain is counted from here. Only the first call counts.
    pub fn mark_first_load(&mut self) {
        if self.started {
            return;
        }
        self.started = true;
        for f in self.files.values_mut() {
            f.first_covered = f.covered.len() as u64;
        }
        self.first_lines = self.files.values().map(|f| f.first_covered).sum();
    }

    pub fn coverage(&self, stack: Stack) -> ServerCoverage {
        ServerCoverage {
            stack: stack.name().to_string(),
            lines_covered: self.files.values().map(|f| f.covered.len() as u64).sum(),
            lines_total: self.files.values().map(|f| f.lines).sum(),
            first_lines_covered: self.first_lines,
            files: self.files.len() as u64,
            files_run: self
                .files
                .values()
                .filter(|f| !f.covered.is_empty())
                .count() as u64,
            reads: self.reads,
            read_ms_total: self.read_total.as_secs_f64() * 1000.0,
            read_ms_max: self.read_max.as_secs_f64() * 1000.0,
        }
    }

    pub fn by_file(&self) -> Vec<ServerFileReach> {
        self.files
            .iter()
            .map(|(p, f)| ServerFileReach {
                path: p.to_string_lossy().into_owned(),
                lines: f.lines,
                covered: f.covered.len() as u64,
                first_covered: f.first_covered,
            })
            .collect()
    }
}

/// Reads a running server's coverage.
pub trait Reader: Send {
    /// Take what the server ran since the last take: the lines first run (0 when
    /// nothing new). An error says why this reading failed; the next may work.
    fn take(&mut self) -> Result<u64, CovError>;
    /// The coverage so far.
    fn coverage(&self) -> ServerCoverage;
    /// The coverage so far, file by file.
    fn by_file(&self) -> Vec<ServerFileReach>;
    /// What is covered now is the first load's (see [`Book::mark_first_load`]).
    fn mark_first_load(&mut self);
    /// The server was started again: read the new processes (`output`: the new start's
    /// output), adding to the lines run so far.
    fn restarted(&mut self, output: OutputCursor);
    /// Stop reading (before the server is stopped: a Node process waits for its
    /// debugger to go at exit).
    fn close(&mut self) {}
}

/// What starting a server under coverage needs: environment variables, and files of its
/// own (kept in `work`, which lives as long as the run).
#[derive(Debug, Default)]
pub struct Prepared {
    pub env: Vec<(String, String)>,
}

/// The environment `stack`'s tool needs in the server; `env` is the server's configured
/// environment (an existing `NODE_OPTIONS` or `PYTHONPATH` is kept), `work` a folder for
/// the tool's files that lives as long as the server.
pub fn prepare(
    stack: Stack,
    env: &[(String, String)],
    work: &Path,
    filter: &Filter,
) -> Result<Prepared, CovError> {
    match stack {
        Stack::Node => node::prepare(env, work),
        Stack::Python => python::prepare(env, work, filter),
        Stack::Ruby => ruby::prepare(env, work, filter),
        Stack::Php => php::prepare(env, work, filter),
        Stack::Auto | Stack::Off => Ok(Prepared::default()),
    }
}

/// A reader of the server that was started with [`prepare`]'s environment; `output` is
/// its output since it started (where Node processes say where their inspectors listen).
pub fn attach(
    stack: Stack,
    output: OutputCursor,
    work: &Path,
    filter: Filter,
) -> Result<Box<dyn Reader>, CovError> {
    match stack {
        Stack::Node => Ok(Box::new(node::NodeReader::new(output, filter))),
        Stack::Python => Ok(Box::new(python::PythonReader::new(work, filter))),
        Stack::Ruby => Ok(Box::new(ruby::RubyReader::new(work, filter))),
        Stack::Php => Ok(Box::new(php::PhpReader::new(work, filter))),
        Stack::Auto | Stack::Off => Err(CovError::Setup(format!(
            "no reader for coverage = \"{}\"",
            stack.name()
        ))),
    }
}

/// Time one reading into `book`.
pub(crate) fn timed<T>(book: &mut Book, f: impl FnOnce(&mut Book) -> T) -> T {
    let t = Instant::now();
    let out = f(book);
    book.read_done(t.elapsed());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stack_is_guessed_from_the_command() {
        for (cmd, want) in [
            ("node server.js --port {port}", Some(Stack::Node)),
            ("npx directus start", Some(Stack::Node)),
            (
                "/usr/bin/node ./bin/tiddlywiki.js wiki --listen",
                Some(Stack::Node),
            ),
            ("exec python3 app.py {port}", Some(Stack::Python)),
            ("venv/bin/gunicorn app:app", Some(Stack::Python)),
            ("python manage.py runserver {port}", Some(Stack::Python)),
            ("bundle exec rails server -p {port}", Some(Stack::Ruby)),
            ("ruby notes.rb {port}", Some(Stack::Ruby)),
            ("php -S 127.0.0.1:{port} -t public", Some(Stack::Php)),
            ("bash start.sh {port}", None),
            ("wayfarer serve clinic --port {port}", None),
        ] {
            assert_eq!(guess(cmd), want, "{cmd}");
        }
    }

    #[test]
    fn own_files_by_default_and_patterns_when_given() {
        let root = Path::new("/srv/app");
        let f = Filter::new(&[], &["**/migrations/**".to_string()], root).unwrap();
        assert!(f.wants(Path::new("/srv/app/server.js")));
        assert!(!f.wants(Path::new("/srv/app/node_modules/express/index.js")));
        assert!(!f.wants(Path::new("/usr/lib/python3/json/decoder.py")));
        assert!(!f.wants(Path::new("/srv/app/migrations/0001.py")));
        let f = Filter::new(
            &["**/node_modules/verdaccio/**".to_string()],
            &["**/*.test.js".to_string()],
            root,
        )
        .unwrap();
        assert!(f.wants(Path::new("/opt/v/node_modules/verdaccio/build/index.js")));
        assert!(!f.wants(Path::new("/opt/v/node_modules/verdaccio/build/a.test.js")));
        assert!(!f.wants(Path::new("/srv/app/server.js")));
        let e = Filter::new(&["[".to_string()], &[], root).unwrap_err();
        assert!(e.to_string().contains("bad pattern \"[\""), "{e}");
    }

    #[test]
    fn the_book_counts_first_runs_and_the_start() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.js");
        std::fs::write(&a, "x();\n\ny();\n// note\nz();\n").unwrap();
        let mut book = Book::new(
            Filter::new(&[], &[], dir.path()).unwrap(),
            lines::JS_COMMENTS,
        );
        assert_eq!(book.run(&a, [1]), 1);
        book.read_done(Duration::from_millis(3));
        book.mark_first_load();
        assert_eq!(book.run(&a, [1, 3]), 1);
        assert_eq!(book.run(Path::new("/elsewhere/b.js"), [1]), 0);
        book.read_done(Duration::from_millis(5));
        let c = book.coverage(Stack::Node);
        assert_eq!(
            (c.lines_covered, c.lines_total, c.first_lines_covered),
            (2, 3, 1)
        );
        assert_eq!((c.files, c.files_run, c.reads), (1, 1, 2));
        assert_eq!(c.gain(), 1);
        assert!((c.read_ms_max - 5.0).abs() < 0.5);
    }
}
