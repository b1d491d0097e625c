//! PHP: pcov around every request. An ini file wayfarer adds to the ones PHP scans
//! (`PHP_INI_SCAN_DIR`) prepends a script to each request's (`auto_prepend_file`) that
//! starts pcov and, when the request ends, writes the lines of the server's own files it
//! ran to a JSON file of its own; the reader reads each once. PHP runs each request on its
//! own, so there is nothing to ask: every request leaves its file.

use std::path::{Path, PathBuf};
use std::time::Instant;

use wayfarer_core::server::{ServerCoverage, ServerFileReach};
use wayfarer_process::OutputCursor;

use crate::procs::{self, Procs};
use crate::{Book, CovError, Filter, Prepared, Reader, Stack};

/// The script prepended to every request.
const HOOK: &str = include_str!("wayfarer_coverage.php");

/// PHP's comment lines (`//`, `#`, and a block comment's).
const PHP_COMMENTS: &[&str] = &["//", "#", "/*", "*"];

/// `PHP_INI_SCAN_DIR` with wayfarer's ini file after PHP's own ones, where it keeps its
/// files, and what it keeps (`filter`'s patterns, matched by `fnmatch`).
pub fn prepare(
    env: &[(String, String)],
    work: &Path,
    filter: &Filter,
) -> Result<Prepared, CovError> {
    let php = work.join("php");
    procs::make_dirs(work, &php)?;
    let hook = php.join("wayfarer_coverage.php");
    let ini_dir = php.join("ini");
    let ini = format!(
        "; wayfarer: pcov around every request\nauto_prepend_file = \"{}\"\npcov.enabled = 1\npcov.directory = /\n",
        hook.display()
    );
    std::fs::write(&hook, HOOK)
        .and_then(|_| std::fs::create_dir_all(&ini_dir))
        .and_then(|_| std::fs::write(ini_dir.join("zz-wayfarer.ini"), ini))
        .map_err(|e| CovError::Setup(format!("cannot write {}: {e}", php.display())))?;
    let before = env
        .iter()
        .rev()
        .find(|(k, _)| k == "PHP_INI_SCAN_DIR")
        .map(|(_, v)| v.clone())
        .or_else(|| std::env::var("PHP_INI_SCAN_DIR").ok())
        .unwrap_or_default();
    // An empty element keeps PHP's compiled-in scan directory (its extensions' ini files).
    let scan = format!("{before}:{}", ini_dir.display());
    let (include, omit) = filter.patterns();
    Ok(Prepared {
        env: vec![
            ("PHP_INI_SCAN_DIR".into(), scan),
            ("WAYFARER_COVERAGE_DIR".into(), work.display().to_string()),
            ("WAYFARER_COVERAGE_INCLUDE".into(), include.join("\n")),
            ("WAYFARER_COVERAGE_OMIT".into(), omit.join("\n")),
        ],
    })
}

/// The coverage of a PHP server's requests.
pub struct PhpReader {
    work: PathBuf,
    book: Book,
    procs: Procs,
    reads: u64,
}

impl PhpReader {
    /// `work`: the folder [`prepare`] set up.
    pub fn new(work: &Path, filter: Filter) -> PhpReader {
        PhpReader {
            work: work.to_path_buf(),
            book: Book::new(filter, PHP_COMMENTS),
            procs: Procs::new(work),
            reads: 0,
        }
    }
}

impl Reader for PhpReader {
    fn take(&mut self) -> Result<u64, CovError> {
        self.reads += 1;
        if self.reads == 1 {
            let (_, missing) = self.procs.list();
            if let Some(php) = missing.first() {
                return Err(CovError::Setup(format!(
                    "pcov is not loaded in the server's PHP ({php}); install it (Debian: \
                     apt install php-pcov; else pecl install pcov), or set coverage = \"off\" \
                     in [server]"
                )));
            }
        }
        let t = Instant::now();
        let new = procs::read_json(&self.work.join("data"), &mut self.book);
        self.book.read_done(t.elapsed());
        Ok(new)
    }

    fn coverage(&self) -> ServerCoverage {
        self.book.coverage(Stack::Php)
    }

    fn by_file(&self) -> Vec<ServerFileReach> {
        self.book.by_file()
    }

    fn mark_first_load(&mut self) {
        self.book.mark_first_load();
    }

    /// Each request writes its own file: a new server changes nothing.
    fn restarted(&mut self, _output: OutputCursor) {}
}
