//! Helpers for the tests that run the `wayfarer` binary and Playwright.

use std::path::{Path, PathBuf};
use std::process::Output;

/// What a finished command printed, with its status, for an assertion's message.
pub fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `tools/playwright/node_modules` (scripts/ensure-playwright.sh installs it).
pub fn node_modules() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/playwright/node_modules");
    assert!(
        dir.join("@playwright/test").is_dir(),
        "{} lacks @playwright/test: run scripts/ensure-playwright.sh",
        dir.display()
    );
    dir.canonicalize().unwrap()
}
