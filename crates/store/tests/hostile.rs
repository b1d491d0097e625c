//! The store opener against hostile files: a real store cut short, with bytes or pages
//! overwritten, files of other formats, directories where the file should be, and stores
//! of other versions. `load` must never panic, and every error must name the file.

mod common;

use std::path::Path;
use std::sync::OnceLock;

use proptest::prelude::*;
use wayfarer_store::{load, RunMeta, StoreWriter, STORE_FILE};

/// A small run into `dir`, with its writer; `end`: whether the run ended (else it stops
/// after its last step, as a killed one does).
fn explore(dir: &Path, end: bool) -> StoreWriter {
    let meta = RunMeta {
        wayfarer: "test".into(),
        target: "sim".into(),
        strategy: "uniform".into(),
        seed: 3,
        budget: "120".into(),
        ..RunMeta::default()
    };
    let (_, writer) = common::explore(dir, &meta, "120", end);
    assert!(writer.error().is_none());
    writer
}

/// The bytes of a small finished store (steps, resets, states, failures, summary), made
/// once: the cases corrupt copies of it.
fn pristine() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let writer = explore(dir.path(), true);
        // Closing checkpoints the WAL into the main file, so the file alone is the store.
        drop(writer);
        let bytes = std::fs::read(dir.path().join(STORE_FILE)).unwrap();
        assert!(load(dir.path()).is_ok(), "the pristine store loads");
        bytes
    })
}

/// The main file and the write-ahead log of a run killed after its last step: the log
/// holds steps the main file does not.
fn killed() -> &'static (Vec<u8>, Vec<u8>) {
    static BYTES: OnceLock<(Vec<u8>, Vec<u8>)> = OnceLock::new();
    BYTES.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        // Never closed, as a killed process leaves it: the WAL is not checkpointed.
        std::mem::forget(explore(dir.path(), false));
        let file = dir.path().join(STORE_FILE);
        let main = std::fs::read(&file).unwrap();
        let wal = std::fs::read(dir.path().join(format!("{STORE_FILE}-wal"))).unwrap();
        assert!(!wal.is_empty(), "the killed run left a write-ahead log");
        (main, wal)
    })
}

/// Load a store made of `bytes` from a fresh directory; on error, check it names the file.
fn load_bytes(bytes: &[u8]) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(STORE_FILE);
    std::fs::write(&file, bytes).unwrap();
    check_names_file(dir.path(), &file)
}

/// `load(dir)` gives data or an error that names `file`.
fn check_names_file(dir: &Path, file: &Path) -> Result<(), String> {
    match load(dir) {
        Ok(_) => Ok(()),
        Err(e) => {
            let text = e.to_string();
            if text.contains(&file.display().to_string()) {
                Ok(())
            } else {
                Err(format!(
                    "the error does not name {}: {text}",
                    file.display()
                ))
            }
        }
    }
}

const PAGE: usize = 4096;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_store_cut_short_is_an_error_that_names_the_file(cut in 0.0f64..1.0) {
        let bytes = pristine();
        let len = (bytes.len() as f64 * cut) as usize;
        prop_assert_eq!(load_bytes(&bytes[..len]), Ok(()));
    }

    #[test]
    fn flipped_bytes_are_an_error_that_names_the_file(
        flips in proptest::collection::vec((0.0f64..1.0, 1u8..=255), 1..24)
    ) {
        let mut bytes = pristine().to_vec();
        for (at, x) in flips {
            let i = (bytes.len() as f64 * at) as usize;
            bytes[i] ^= x;
        }
        prop_assert_eq!(load_bytes(&bytes), Ok(()));
    }

    #[test]
    fn overwritten_pages_are_an_error_that_names_the_file(
        page in 0.0f64..1.0,
        fill in proptest::collection::vec(any::<u8>(), 1..64),
    ) {
        let mut bytes = pristine().to_vec();
        let pages = bytes.len().div_ceil(PAGE);
        let start = (pages as f64 * page) as usize * PAGE;
        let end = (start + PAGE).min(bytes.len());
        for (i, b) in bytes[start..end].iter_mut().enumerate() {
            *b = fill[i % fill.len()];
        }
        prop_assert_eq!(load_bytes(&bytes), Ok(()));
    }

    #[test]
    fn a_damaged_log_of_a_killed_run_is_an_error_that_names_the_file(
        cut in 0.0f64..1.0,
        flips in proptest::collection::vec((0.0f64..1.0, 1u8..=255), 0..8),
    ) {
        let (main, wal) = killed();
        let mut wal = wal[..(wal.len() as f64 * cut) as usize].to_vec();
        let len = wal.len();
        for (at, x) in flips {
            if let Some(b) = wal.get_mut((len as f64 * at) as usize) {
                *b ^= x;
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(STORE_FILE);
        std::fs::write(&file, main).unwrap();
        std::fs::write(dir.path().join(format!("{STORE_FILE}-wal")), wal).unwrap();
        prop_assert_eq!(check_names_file(dir.path(), &file), Ok(()));
    }

    #[test]
    fn files_of_other_formats_are_an_error_that_names_the_file(
        bytes in proptest::collection::vec(any::<u8>(), 0..8192)
    ) {
        prop_assert_eq!(load_bytes(&bytes), Ok(()));
    }
}

#[test]
fn empty_json_and_text_files_are_not_stores() {
    for bytes in [
        &b""[..],
        b"{\"version\": 1, \"steps\": []}",
        b"SQLite format 3\0",
        b"not a store\n",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(STORE_FILE);
        std::fs::write(&file, bytes).unwrap();
        let e = error_of(dir.path());
        assert!(e.contains(&file.display().to_string()), "{e}");
    }
}

#[test]
fn a_directory_where_the_store_file_should_be_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(STORE_FILE);
    std::fs::create_dir(&file).unwrap();
    let e = error_of(dir.path());
    assert!(e.contains(&file.display().to_string()), "{e}");
    assert!(e.contains("is a directory"), "{e}");
}

/// The error of loading `dir`, which must fail (without printing a whole run if not).
fn error_of(dir: &Path) -> String {
    match load(dir) {
        Ok(_) => panic!("{} loaded", dir.display()),
        Err(e) => e.to_string(),
    }
}

/// A store of this build, with `sql` run on it afterwards.
fn store_changed_by(sql: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(STORE_FILE);
    std::fs::write(&file, pristine()).unwrap();
    let conn = rusqlite::Connection::open(&file).unwrap();
    conn.execute_batch(sql).unwrap();
    drop(conn);
    (dir, file)
}

#[test]
fn a_record_that_is_not_json_is_an_error_that_names_the_file_and_the_record() {
    for (sql, record) in [
        (
            "UPDATE steps SET record = '{\"step\":' WHERE step = 2",
            "a step",
        ),
        (
            "UPDATE meta SET value = '[]' WHERE key = 'run'",
            "run metadata",
        ),
        ("UPDATE failures SET failure = 'null'", "a failure"),
        (
            "UPDATE meta SET value = '7' WHERE key = 'summary'",
            "run summary",
        ),
    ] {
        let (dir, file) = store_changed_by(sql);
        let e = error_of(dir.path());
        assert!(e.contains(&file.display().to_string()), "{sql}: {e}");
        assert!(
            e.contains("cannot read") && e.contains(record),
            "{sql}: {e}"
        );
    }
}

#[test]
fn columns_of_the_wrong_type_are_an_error_that_names_the_file() {
    for sql in [
        "UPDATE steps SET record = x'00ff' WHERE step = 1",
        "UPDATE states SET url = x'68747470'",
        "UPDATE transitions SET count = 'many'",
        "DROP TABLE resets",
        "DELETE FROM meta WHERE key = 'run'",
    ] {
        let (dir, file) = store_changed_by(sql);
        let e = error_of(dir.path());
        assert!(e.contains(&file.display().to_string()), "{sql}: {e}");
    }
}

#[test]
fn stores_of_other_versions_say_which_version_wrote_them() {
    for (version, says) in [
        ("2", "schema version 2"),
        ("0", "schema version 0"),
        ("4294967296", "schema version 4294967296"),
        ("-1", "schema version \"-1\""),
        ("two", "schema version \"two\""),
    ] {
        let (dir, file) = store_changed_by(&format!(
            "UPDATE meta SET value = '{version}' WHERE key = 'schema_version'"
        ));
        let e = error_of(dir.path());
        assert!(e.contains(&file.display().to_string()), "{version}: {e}");
        assert!(e.contains(says), "{version}: {e}");
        assert!(
            e.contains("this wayfarer reads version 1"),
            "{version}: {e}"
        );
    }
    let (dir, file) = store_changed_by("DELETE FROM meta WHERE key = 'schema_version'");
    let e = error_of(dir.path());
    assert!(e.contains(&file.display().to_string()), "{e}");
    assert!(e.contains("not a wayfarer run store"), "{e}");
}
