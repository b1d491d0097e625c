//! A start page that offered nothing leaves its screenshot in the run directory, one
//! file for each time the run said so.

use wayfarer_core::Observer;
use wayfarer_store::{RunMeta, StoreWriter};

#[test]
fn an_empty_start_page_is_kept_as_a_screenshot_of_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut writer = StoreWriter::create(dir.path(), &RunMeta::default(), Default::default())
        .expect("a store in a fresh directory");
    let seen = "http://127.0.0.1/ (title \"Workspace\") showing \"Restoring…\"";
    writer.on_empty_start(0, seen, Some(b"png one"));
    writer.on_empty_start(0, seen, None);
    writer.on_empty_start(1, seen, Some(b"png three"));
    let shots = dir.path().join("screenshots");
    let read = |name: &str| std::fs::read(shots.join(name)).ok();
    assert_eq!(read("empty-start-1.png").as_deref(), Some(&b"png one"[..]));
    assert_eq!(read("empty-start-2.png"), None);
    assert_eq!(
        read("empty-start-3.png").as_deref(),
        Some(&b"png three"[..])
    );
}
