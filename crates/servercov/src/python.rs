//! Python: coverage.py, started in every Python process of the server by a
//! `sitecustomize` module wayfarer puts first on `PYTHONPATH` (children and reloaders
//! included). Each process registers itself, and a thread of its own saves its data file
//! whenever wayfarer touches a trigger file; the reader then reads the data files
//! (SQLite) and counts the lines run in the server's own files.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags};
use wayfarer_core::server::{ServerCoverage, ServerFileReach};
use wayfarer_process::OutputCursor;

use crate::lines::PY_COMMENTS;
use crate::procs::{self, Procs};
use crate::{Book, CovError, Filter, Prepared, Reader, Stack};

/// The module every Python process of the server imports at start-up.
const SITECUSTOMIZE: &str = include_str!("sitecustomize.py");

/// `PYTHONPATH` with wayfarer's `sitecustomize` first, where it keeps its files, and what
/// coverage.py measures (`filter`'s patterns: it traces only the server's own files).
pub fn prepare(
    env: &[(String, String)],
    work: &Path,
    filter: &Filter,
) -> Result<Prepared, CovError> {
    let py = work.join("py");
    procs::make_dirs(work, &py)?;
    std::fs::write(py.join("sitecustomize.py"), SITECUSTOMIZE)
        .map_err(|e| CovError::Setup(format!("cannot write {}: {e}", py.display())))?;
    let before = env
        .iter()
        .rev()
        .find(|(k, _)| k == "PYTHONPATH")
        .map(|(_, v)| v.clone())
        .or_else(|| std::env::var("PYTHONPATH").ok())
        .unwrap_or_default();
    let path = match before.as_str() {
        "" => py.display().to_string(),
        b => format!("{}:{b}", py.display()),
    };
    let (include, omit) = filter.patterns();
    Ok(Prepared {
        env: vec![
            ("PYTHONPATH".into(), path),
            ("WAYFARER_COVERAGE_DIR".into(), work.display().to_string()),
            ("WAYFARER_COVERAGE_INCLUDE".into(), include.join("\n")),
            ("WAYFARER_COVERAGE_OMIT".into(), omit.join("\n")),
        ],
    })
}

/// The coverage of a server's Python processes.
pub struct PythonReader {
    work: PathBuf,
    book: Book,
    procs: Procs,
}

impl PythonReader {
    /// `work`: the folder [`prepare`] set up.
    pub fn new(work: &Path, filter: Filter) -> PythonReader {
        PythonReader {
            work: work.to_path_buf(),
            book: Book::new(filter, PY_COMMENTS),
            procs: Procs::new(work),
        }
    }

    /// Read every data file into the book; the lines first run.
    fn read_data(book: &mut Book, dir: &Path) -> u64 {
        let mut new = 0;
        let Ok(entries) = std::fs::read_dir(dir) else {
            return 0;
        };
        for e in entries.flatten() {
            match lines_of(&e.path()) {
                Ok(files) => {
                    for (path, lines) in files {
                        new += book.run(Path::new(&path), lines);
                    }
                }
                // Being written: its lines come with the next take.
                Err(err) => tracing::debug!("{}: {err}", e.path().display()),
            }
        }
        new
    }
}

/// The lines each file of a coverage.py data file ran.
fn lines_of(db: &Path) -> Result<Vec<(String, Vec<u32>)>, rusqlite::Error> {
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    conn.busy_timeout(Duration::from_millis(200))?;
    let mut stmt = conn.prepare(
        "SELECT file.path, line_bits.numbits FROM line_bits JOIN file ON file.id = line_bits.file_id",
    )?;
    let rows = stmt.query_map([], |r| {
        let path: String = r.get(0)?;
        let bits: Vec<u8> = r.get(1)?;
        Ok((path, numbits(&bits)))
    })?;
    rows.collect()
}

/// coverage.py's numbits: bit `i` of byte `j` set when line `8j + i` ran.
fn numbits(bits: &[u8]) -> Vec<u32> {
    let mut lines = Vec::new();
    for (j, byte) in bits.iter().enumerate() {
        for i in 0..8 {
            if byte & (1 << i) != 0 {
                lines.push((j * 8 + i) as u32);
            }
        }
    }
    lines
}

impl Reader for PythonReader {
    fn take(&mut self) -> Result<u64, CovError> {
        let (pids, missing) = self.procs.list();
        if pids.is_empty() {
            if let Some(python) = missing.first() {
                return Err(CovError::Setup(format!(
                    "coverage.py is not installed in the server's Python ({python}); install it \
                     there ({python} -m pip install coverage, or Debian's python3-coverage), or \
                     set coverage = \"off\" in [server]"
                )));
            }
            if self.procs.takes() == 0 {
                return Err(CovError::Setup(
                    "no Python process of the server started coverage.py (is it a Python \
                     server? Does it run python with -I, -E or -S, or set PYTHONPATH itself?)"
                        .into(),
                ));
            }
        }
        // A reading is the processes saving and wayfarer reading what they saved.
        let t = Instant::now();
        self.procs.trigger(&pids);
        let new = Self::read_data(&mut self.book, &self.work.join("data"));
        self.book.read_done(t.elapsed());
        Ok(new)
    }

    fn coverage(&self) -> ServerCoverage {
        self.book.coverage(Stack::Python)
    }

    fn by_file(&self) -> Vec<ServerFileReach> {
        self.book.by_file()
    }

    fn mark_first_load(&mut self) {
        self.book.mark_first_load();
    }

    /// The new processes register themselves; their data files join the others.
    fn restarted(&mut self, _output: OutputCursor) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbits_are_lines() {
        assert_eq!(numbits(&[0b0000_0110, 0, 0b1000_0001]), vec![1, 2, 16, 23]);
        assert!(numbits(&[]).is_empty());
    }

    #[test]
    fn pythonpath_puts_ours_first() {
        let dir = tempfile::tempdir().unwrap();
        let filter = Filter::new(&[], &[], Path::new("/srv/app")).unwrap();
        let p = prepare(
            &[("PYTHONPATH".into(), "/app/lib".into())],
            dir.path(),
            &filter,
        )
        .unwrap();
        let want = format!("{}/py:/app/lib", dir.path().display());
        assert_eq!(p.env[0], ("PYTHONPATH".to_string(), want));
        assert!(dir.path().join("py/sitecustomize.py").is_file());
        assert_eq!(
            p.env[2],
            (
                "WAYFARER_COVERAGE_INCLUDE".to_string(),
                "/srv/app/*".to_string()
            )
        );
        assert!(p.env[3].1.contains("*/site-packages/*"), "{:?}", p.env[3]);
    }
}
