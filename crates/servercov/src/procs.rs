//! The server's processes that took a coverage hook wayfarer gave them (Python's
//! `sitecustomize`, Ruby's `-r`): each registers its pid in `procs/`, saves its data when
//! the trigger file changes, and says it did; a process that cannot load its language's
//! coverage tool says which interpreter it ran.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::CovError;

/// Longest wait for the server's processes to save their data after a trigger.
const SAVED: Duration = Duration::from_secs(3);

/// The folders of a hook's files. A server may drop its privileges (roundup-server
/// `-u nobody`): its processes must still read the hook and write their data (sticky,
/// like /tmp).
pub fn make_dirs(work: &Path, hook: &Path) -> Result<(), CovError> {
    for (dir, mode) in [
        (work.to_path_buf(), 0o755),
        (hook.to_path_buf(), 0o755),
        (work.join("data"), 0o1777),
        (work.join("procs"), 0o1777),
    ] {
        std::fs::create_dir_all(&dir)
            .and_then(|_| std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(mode)))
            .map_err(|e| CovError::Setup(format!("cannot make {}: {e}", dir.display())))?;
    }
    Ok(())
}

/// The hooked processes of one server.
#[derive(Debug)]
pub struct Procs {
    work: PathBuf,
    /// The trigger's count: each process answers a take with the count it saved at.
    takes: u64,
}

impl Procs {
    pub fn new(work: &Path) -> Procs {
        Procs {
            work: work.to_path_buf(),
            takes: 0,
        }
    }

    /// Readings asked for so far.
    pub fn takes(&self) -> u64 {
        self.takes
    }

    /// The live processes that started coverage, and the interpreters of those that
    /// could not.
    pub fn list(&self) -> (Vec<u32>, Vec<String>) {
        let mut live = Vec::new();
        let mut missing = Vec::new();
        let Ok(entries) = std::fs::read_dir(self.work.join("procs")) else {
            return (live, missing);
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(pid) = name.strip_prefix("pid.").and_then(|p| p.parse().ok()) {
                if wayfarer_process::alive(pid) {
                    live.push(pid);
                }
            } else if name.starts_with("missing.") {
                if let Ok(interpreter) = std::fs::read_to_string(e.path()) {
                    missing.push(interpreter.trim().to_string());
                }
            }
        }
        (live, missing)
    }

    /// Ask every live process to save its data, and wait (bounded) until each did.
    pub fn trigger(&mut self, pids: &[u32]) {
        self.takes += 1;
        let n = self.takes.to_string();
        let trigger = self.work.join("take");
        let tmp = self.work.join("take.tmp");
        // Renamed into place: a process never reads half a count.
        if std::fs::write(&tmp, &n)
            .and_then(|_| std::fs::rename(&tmp, &trigger))
            .is_err()
        {
            return;
        }
        let deadline = Instant::now() + SAVED;
        let saved = |pid: &u32| {
            std::fs::read_to_string(self.work.join("procs").join(format!("saved.{pid}")))
                .is_ok_and(|s| s.trim() == n)
        };
        while Instant::now() < deadline {
            if pids
                .iter()
                .all(|p| saved(p) || !wayfarer_process::alive(*p))
            {
                return;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        tracing::debug!("server coverage: not every process saved within {SAVED:?}");
    }
}

/// Read the `.json` files in `data` (each `{path: [lines run]}`) into `book` once each,
/// removing them; the lines first run. A file still being written waits for the next read.
pub fn read_json(data: &Path, book: &mut crate::Book) -> u64 {
    let Ok(entries) = std::fs::read_dir(data) else {
        return 0;
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut new = 0;
    for f in files {
        let parsed: Option<std::collections::BTreeMap<String, Vec<u32>>> =
            std::fs::read_to_string(&f)
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok());
        match parsed {
            Some(map) => {
                for (path, lines) in map {
                    new += book.run(Path::new(&path), lines);
                }
                let _ = std::fs::remove_file(&f);
            }
            None => tracing::debug!("server coverage: unreadable {}", f.display()),
        }
    }
    new
}
