//! Installing a peer's npm package into the user's cache, by the bench itself: a pinned
//! `package.json` and `package-lock.json` (carrying the registry's integrity hash) are
//! written into the peer's folder and `npm ci` installs exactly that. Nothing is vendored
//! into the repository, and no package script ever runs.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One pinned npm package to install into `dir`.
pub(crate) struct NpmPackage<'a> {
    /// Package name and exact version, for messages ("gremlins.js", "2.2.0").
    pub name: &'a str,
    pub version: &'a str,
    pub package_json: &'a str,
    pub package_lock: &'a str,
    /// The file the peer needs, relative to `dir/node_modules/<name>/`.
    pub main: &'a str,
}

/// What `ensure` did.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Installed {
    /// The pinned version was already there.
    Found,
    /// `npm ci` installed it now.
    Installed,
}

impl NpmPackage<'_> {
    fn module_dir(&self, dir: &Path) -> PathBuf {
        dir.join("node_modules").join(self.name)
    }

    /// The main file's path under `dir`.
    pub fn main_path(&self, dir: &Path) -> PathBuf {
        self.module_dir(dir).join(self.main)
    }

    /// Whether `dir` holds the pinned version with its main file.
    fn present(&self, dir: &Path) -> bool {
        if !self.main_path(dir).is_file() {
            return false;
        }
        let manifest = self.module_dir(dir).join("package.json");
        let version = std::fs::read_to_string(manifest)
            .ok()
            .and_then(|s| serde_json::from_str::<serde_json::Value>(&s).ok())
            .and_then(|v| v.get("version")?.as_str().map(str::to_string));
        version.as_deref() == Some(self.version)
    }

    /// Install the package into `dir` with `npm` unless it is already there.
    pub fn ensure(&self, dir: &Path, npm: &Path) -> Result<Installed, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        // One install at a time per folder, across processes: `npm ci` first deletes
        // node_modules, so a second bench (or test) starting beside the first deleted the
        // package the first had just installed (CI, 2026-12-06: "npm ci succeeded but ...
        // is missing"). The lock is released when the file closes.
        let _lock = self.lock(dir)?;
        // Rewritten every time: a cache left by another wayfarer version installs the pin
        // of this one.
        for (file, text) in [
            ("package.json", self.package_json),
            ("package-lock.json", self.package_lock),
        ] {
            let path = dir.join(file);
            if std::fs::read_to_string(&path).ok().as_deref() != Some(text) {
                std::fs::write(&path, text)
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            }
        }
        if self.present(dir) {
            return Ok(Installed::Found);
        }
        tracing::info!(package = self.name, version = self.version, dir = %dir.display(), "npm ci");
        self.npm_ci(dir, npm)?;
        if !self.present(dir) {
            return Err(format!(
                "npm ci succeeded but {} (version {}) is missing",
                self.main_path(dir).display(),
                self.version
            ));
        }
        Ok(Installed::Installed)
    }

    /// The folder's install lock, waited for (with a message) while another process
    /// holds it. (flock(2) rather than std's File::lock: that needs Rust 1.89.)
    fn lock(&self, dir: &Path) -> Result<std::fs::File, String> {
        use std::os::fd::AsRawFd;
        let path = dir.join(".wayfarer-install.lock");
        let file = std::fs::File::create(&path)
            .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        let flock = |how| {
            // SAFETY: the descriptor is the open file's, alive for the call.
            if unsafe { libc::flock(file.as_raw_fd(), how) } == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        };
        match flock(libc::LOCK_EX | libc::LOCK_NB) {
            Ok(()) => return Ok(file),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                tracing::info!(package = self.name, dir = %dir.display(),
                    "another process is installing into this folder: waiting for it");
            }
            Err(e) => return Err(format!("cannot lock {}: {e}", path.display())),
        }
        flock(libc::LOCK_EX).map_err(|e| format!("cannot lock {}: {e}", path.display()))?;
        Ok(file)
    }

    fn npm_ci(&self, dir: &Path, npm: &Path) -> Result<(), String> {
        let out = Command::new(npm)
            .args([
                "ci",
                "--no-audit",
                "--no-fund",
                "--ignore-scripts",
                "--loglevel=error",
            ])
            .current_dir(dir)
            .output()
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => format!(
                    "npm not found (looked for {}): install Node.js and npm: apt-get install -y npm",
                    npm.display()
                ),
                _ => format!("cannot run {}: {e}", npm.display()),
            })?;
        if out.status.success() {
            return Ok(());
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        // npm puts the error code and its message first, then a stack trace and hints.
        let head: Vec<&str> = stderr
            .lines()
            .map(|l| l.trim_start_matches("npm error").trim())
            .filter(|l| !l.is_empty() && !l.starts_with("at "))
            .take(4)
            .collect();
        let head = head.join("; ");
        Err(if unreachable_registry(&stderr) {
            format!(
                "the npm registry is unreachable (npm ci in {}): check the network or the \
                 registry set in ~/.npmrc ({head})",
                dir.display()
            )
        } else {
            format!(
                "npm ci in {} failed ({}): {head}",
                dir.display(),
                out.status
            )
        })
    }
}

/// npm's error codes for a registry it cannot reach.
fn unreachable_registry(stderr: &str) -> bool {
    [
        "ENOTFOUND",
        "EAI_AGAIN",
        "ECONNREFUSED",
        "ECONNRESET",
        "ETIMEDOUT",
        "ENETUNREACH",
        "EHOSTUNREACH",
        "network request",
    ]
    .iter()
    .any(|code| stderr.contains(code))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_errors_are_recognised() {
        assert!(unreachable_registry(
            "npm error code ENOTFOUND\nnpm error network request to https://registry.npmjs.org/x failed"
        ));
        assert!(!unreachable_registry("npm error code EINTEGRITY"));
    }

    /// An `npm` that behaves as `npm ci` does where it matters: it deletes node_modules
    /// first, and takes its time. Its first call installs at once and lingers; a second
    /// call, started meanwhile, deletes node_modules after the first call's files are
    /// there and before the first call has returned.
    fn slow_npm(dir: &Path) -> PathBuf {
        let npm = dir.join("npm");
        let script = r#"#!/bin/sh
if mkdir calls.first 2>/dev/null; then
  rm -rf node_modules; sleep 0.3
  mkdir -p node_modules/peer; echo '{"version":"1.0.0"}' > node_modules/peer/package.json
  echo 'x' > node_modules/peer/main.js; sleep 0.8
else
  sleep 0.5; rm -rf node_modules; sleep 1.5
  mkdir -p node_modules/peer; echo '{"version":"1.0.0"}' > node_modules/peer/package.json
  echo 'x' > node_modules/peer/main.js
fi
"#;
        std::fs::write(&npm, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&npm, std::fs::Permissions::from_mode(0o755)).unwrap();
        npm
    }

    #[test]
    fn two_installs_into_one_folder_at_once_both_find_the_package() {
        let tmp = tempfile::tempdir().unwrap();
        let npm = slow_npm(tmp.path());
        let cache = tmp.path().join("cache");
        let pkg = || NpmPackage {
            name: "peer",
            version: "1.0.0",
            package_json: "{}",
            package_lock: "{}",
            main: "main.js",
        };
        let first = {
            let (cache, npm) = (cache.clone(), npm.clone());
            std::thread::spawn(move || pkg().ensure(&cache, &npm))
        };
        std::thread::sleep(std::time::Duration::from_millis(100));
        let second = pkg().ensure(&cache, &npm);
        let first = first.join().unwrap();
        // Before the lock: the first found its package deleted by the second's npm ci.
        assert_eq!(first, Ok(Installed::Installed));
        assert_eq!(second, Ok(Installed::Found));
    }
}
