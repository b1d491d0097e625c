//! gremlins.js (npm, marmelab), the monkey-testing library users know: installed into the
//! bench's cache from the npm registry at a pinned version, and injected into every
//! document with a seeded starter (`gremlins_starter.js`).

use std::path::{Path, PathBuf};

use wayfarer_core::config::DenyRule;

use super::install::{Installed, NpmPackage};
use super::{Peer, PeerError, PeerOptions, PeerResult, ScriptPeer};

const NAME: &str = "gremlins.js";
const VERSION: &str = "2.2.0";

/// The pin; `npm ci` refuses anything that does not match the lock below.
const PACKAGE_JSON: &str = r#"{
  "name": "wayfarer-peer-gremlins",
  "private": true,
  "description": "gremlins.js for wayfarer bench, installed by the bench itself (never vendored).",
  "license": "MIT OR Apache-2.0",
  "dependencies": {
    "gremlins.js": "2.2.0"
  }
}
"#;

/// Generated once with `npm install --package-lock-only` (npm 11): it carries the
/// registry's integrity hashes, so every install is byte-identical.
const PACKAGE_LOCK: &str = r#"{
  "name": "wayfarer-peer-gremlins",
  "lockfileVersion": 3,
  "requires": true,
  "packages": {
    "": {
      "name": "wayfarer-peer-gremlins",
      "license": "MIT OR Apache-2.0",
      "dependencies": {
        "gremlins.js": "2.2.0"
      }
    },
    "node_modules/chance": {
      "version": "1.1.13",
      "integrity": "sha512-V6lQCljcLznE7tUYUM9EOAnnKXbctE6j/rdQkYOHIWbfGQbrzTsAXNW9CdU5XCo4ArXQCj/rb6HgxPlmGJcaUg==",
      "license": "MIT"
    },
    "node_modules/core-js": {
      "version": "3.51.0",
      "integrity": "sha512-7bDKx/5jm5MxzsXxc93g6Z2+4ZsuT/MddrfRmTDJNAkWsYWHU8EVNEsBiIEWnMAMCHMmRfUEjkuo3jeNBOIHRw==",
      "hasInstallScript": true,
      "license": "MIT",
      "engines": {
        "node": "*"
      },
      "funding": {
        "type": "opencollective",
        "url": "https://opencollective.com/core-js"
      }
    },
    "node_modules/gremlins.js": {
      "version": "2.2.0",
      "integrity": "sha512-zVe4+WuCwTheg1OzBOdtiy7nZj52lWyWjCPMw/78wI1uAJdGlc97hVGYsZg0v75Hm+E91y5D+yG4U0lk7j/6xg==",
      "license": "MIT",
      "dependencies": {
        "chance": "^1.1.4",
        "core-js": "^3.6.4"
      }
    }
  }
}
"#;

const STARTER: &str = include_str!("gremlins_starter.js");

fn package() -> NpmPackage<'static> {
    NpmPackage {
        name: NAME,
        version: VERSION,
        package_json: PACKAGE_JSON,
        package_lock: PACKAGE_LOCK,
        main: "dist/gremlins.min.js",
    }
}

/// gremlins.js (npm), a monkey-testing library.
pub struct Gremlins {
    /// `<cache>/gremlins/` holds the npm project.
    dir: PathBuf,
    npm: PathBuf,
    /// The bundle, once `ensure_installed` found or installed it.
    bundle: Option<String>,
}

impl Gremlins {
    /// Installs into `<cache>/gremlins/` (e.g. `~/.cache/wayfarer/peers/gremlins`).
    pub fn new(cache: PathBuf) -> Gremlins {
        Gremlins {
            dir: cache.join("gremlins"),
            npm: PathBuf::from("npm"),
            bundle: None,
        }
    }

    /// Use this npm binary instead of the one on `PATH`.
    pub fn with_npm(mut self, npm: impl Into<PathBuf>) -> Gremlins {
        self.npm = npm.into();
        self
    }

    /// Where the npm project lives.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn install_error(&self, reason: String) -> PeerError {
        PeerError::Install {
            peer: format!("{NAME} {VERSION}"),
            reason,
        }
    }
}

/// `path` with the home directory shown as `~`, for the progress line.
fn tilde(path: &Path) -> String {
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        if let Ok(rest) = path.strip_prefix(&home) {
            return format!("~/{}", rest.display());
        }
    }
    path.display().to_string()
}

impl Peer for Gremlins {
    fn name(&self) -> &'static str {
        "gremlins"
    }

    fn ensure_installed(&mut self) -> Result<String, PeerError> {
        let pkg = package();
        let done = pkg
            .ensure(&self.dir, &self.npm)
            .map_err(|r| self.install_error(r))?;
        let main = pkg.main_path(&self.dir);
        let bundle = std::fs::read_to_string(&main)
            .map_err(|e| self.install_error(format!("cannot read {}: {e}", main.display())))?;
        // The map is not shipped to the page; a dangling reference only makes noise.
        let bundle = bundle
            .lines()
            .filter(|l| !l.starts_with("//# sourceMappingURL="))
            .collect::<Vec<_>>()
            .join("\n");
        self.bundle = Some(bundle);
        let verb = match done {
            Installed::Found => "found in",
            Installed::Installed => "installed into",
        };
        Ok(format!("{NAME} {VERSION} {verb} {}", tilde(&self.dir)))
    }

    fn run(&self, opts: &PeerOptions) -> Result<PeerResult, PeerError> {
        super::run_script(self, opts)
    }
}

impl ScriptPeer for Gremlins {
    fn init_script(
        &self,
        seed: u64,
        max_steps: Option<u64>,
        deny: &[DenyRule],
    ) -> Result<String, PeerError> {
        let bundle = self.bundle.as_deref().ok_or_else(|| {
            self.install_error("not installed yet (call ensure_installed first)".into())
        })?;
        // A string seed: Chance hashes it, and u64 seeds above 2^53 stay exact.
        let seed = serde_json::Value::String(seed.to_string()).to_string();
        let max = max_steps.map_or("null".to_string(), |m| m.to_string());
        let deny = serde_json::to_string(deny).unwrap_or_else(|_| "[]".into());
        let starter = STARTER
            .replace("__WF_SEED__", &seed)
            .replace("__WF_MAX_STEPS__", &max)
            .replace("__WF_DENY__", &deny);
        // `;` ends the bundle's last statement whatever it is.
        Ok(format!("{bundle}\n;\n{starter}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pin_and_the_lock_agree() {
        let pkg: serde_json::Value = serde_json::from_str(PACKAGE_JSON).unwrap();
        assert_eq!(pkg["dependencies"][NAME], VERSION);
        let lock: serde_json::Value = serde_json::from_str(PACKAGE_LOCK).unwrap();
        let entry = &lock["packages"][format!("node_modules/{NAME}")];
        assert_eq!(entry["version"], VERSION);
        assert!(entry["integrity"].as_str().unwrap().starts_with("sha512-"));
    }

    #[test]
    fn the_script_needs_the_bundle_and_carries_the_seed() {
        let mut g = Gremlins::new(PathBuf::from("/nonexistent"));
        assert!(g.init_script(1, None, &[]).is_err());
        g.bundle = Some("var gremlins = {};".into());
        let s = g.init_script(u64::MAX, None, &[]).unwrap();
        assert!(s.contains("var SEED = \"18446744073709551615\";"));
        assert!(s.contains("var MAX_STEPS = null;"));
        assert!(s.contains("var DENY = [];"));
        assert!(!s.contains("__WF_"));
        let deny = [DenyRule {
            selector: Some("a.logout".into()),
            text: None,
        }];
        let s = g.init_script(7, Some(300), &deny).unwrap();
        assert!(s.contains("var MAX_STEPS = 300;"));
        assert!(
            s.contains(r#"var DENY = [{"selector":"a.logout","text":null}];"#),
            "{s}"
        );
    }
}
