//! What the CLI hands to `BrowserEnv::launch`, and where Chromium lives.

use std::path::{Path, PathBuf};

use wayfarer_core::config::{ActionsConfig, BrowserConfig, DenyRule, LoginStep, Subresources};
use wayfarer_core::EnvError;

use crate::coverage::CoveragePool;

/// Everything the browser environment needs to start.
#[derive(Clone, Debug)]
pub struct BrowserOptions {
    pub start_url: url::Url,
    /// Timeouts, window size, isolation, host resolver rules.
    pub config: BrowserConfig,
    /// Whether recorded listeners make elements actionable.
    pub actions: ActionsConfig,
    /// Origins allowed besides the start URL's own (e.g. "http://127.0.0.1:8081").
    pub allow_origins: Vec<String>,
    /// Whether requests other than documents may go to other origins.
    pub subresources: Subresources,
    /// Elements matching these are reported with `denied: true`.
    pub deny: Vec<DenyRule>,
    /// Replayed after every reset, before the start URL is loaded.
    pub login: Vec<LoginStep>,
    /// Attach to a running browser's websocket (or http://host:port) instead of launching.
    pub cdp_url: Option<String>,
    /// Ask this WebDriver hub for the browser (a session of its own, deleted when done)
    /// instead of launching; wins over `cdp_url`.
    pub grid: Option<String>,
    /// The Chromium binary; `None` (and no `cdp_url`) means `find_chrome(None)`.
    pub chrome: Option<PathBuf>,
    /// Where JS coverage accumulates: give the workers of one run clones of one pool, so
    /// the run's coverage counts what any of them covered.
    pub coverage: CoveragePool,
    /// The user's specification as one script (`wayfarer_spec::bundle`): its properties
    /// are checked on every captured state, and violations come back as `Property` events.
    pub spec: Option<std::sync::Arc<str>>,
}

impl BrowserOptions {
    /// Options with the default config and nothing else set.
    pub fn new(start_url: url::Url) -> BrowserOptions {
        BrowserOptions {
            start_url,
            config: BrowserConfig::default(),
            actions: ActionsConfig::default(),
            allow_origins: Vec::new(),
            subresources: Subresources::Allow,
            deny: Vec::new(),
            login: Vec::new(),
            cdp_url: None,
            grid: None,
            chrome: None,
            coverage: CoveragePool::default(),
            spec: None,
        }
    }
}

/// Where Debian installs its browsers, in the order they are taken. The headless shell
/// first: on 2 cores it ran the same 150 steps with half the CPU of `chromium
/// --headless=new` (10.8 s against 22.5 s, docs/src/getting-started.md). Its binary, not
/// `/usr/bin/chromium-headless-shell`: that script starts it without `exec`, so the pid we
/// hold (to stop it, to see it die) would be the shell's, and a stop would orphan it.
pub const DEBIAN_CHROMES: [&str; 3] = [
    "/usr/lib/chromium/chromium-headless-shell",
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
];

/// The Chromium binary: `explicit`, then `$CHROME`, then the first of [`DEBIAN_CHROMES`]
/// that is installed.
pub fn find_chrome(explicit: Option<&str>) -> Result<PathBuf, EnvError> {
    pick_chrome(explicit, std::env::var("CHROME").ok().as_deref(), |p| {
        p.exists()
    })
}

/// How to get a browser, in every error that found none.
const INSTALL_HINT: &str =
    "install it with `apt-get install -y chromium-headless-shell` (or `bash scripts/ensure-chromium.sh`) or pass --chrome PATH";

fn pick_chrome(
    explicit: Option<&str>,
    env: Option<&str>,
    exists: impl Fn(&Path) -> bool,
) -> Result<PathBuf, EnvError> {
    if let Some(p) = explicit.filter(|p| !p.is_empty()) {
        return if exists(Path::new(p)) {
            Ok(PathBuf::from(p))
        } else {
            Err(EnvError::Browser(format!(
                "Chromium not found at {p}: {INSTALL_HINT}"
            )))
        };
    }
    if let Some(p) = env.filter(|p| !p.is_empty() && exists(Path::new(p))) {
        return Ok(PathBuf::from(p));
    }
    if let Some(p) = DEBIAN_CHROMES.iter().find(|p| exists(Path::new(p))) {
        return Ok(PathBuf::from(p));
    }
    Err(EnvError::Browser(format!(
        "Chromium not found (looked at --chrome, $CHROME, {}): {INSTALL_HINT}",
        DEBIAN_CHROMES.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_missing_path_is_an_error_with_a_hint() {
        let err = find_chrome(Some("/nonexistent/chrome")).unwrap_err();
        assert!(err
            .to_string()
            .contains("apt-get install -y chromium-headless-shell"));
    }

    #[test]
    fn the_headless_shell_is_taken_before_chromium_and_chrome_before_both() {
        let all = |_: &Path| true;
        let pick = |explicit, env| pick_chrome(explicit, env, all).unwrap();
        assert_eq!(
            pick(None, None),
            PathBuf::from("/usr/lib/chromium/chromium-headless-shell")
        );
        assert_eq!(pick(None, Some("/opt/c")), PathBuf::from("/opt/c"));
        assert_eq!(pick(Some("/x/c"), Some("/opt/c")), PathBuf::from("/x/c"));
        // An empty $CHROME is no choice.
        assert_eq!(
            pick(None, Some("")),
            PathBuf::from("/usr/lib/chromium/chromium-headless-shell")
        );
        let no_shell = |p: &Path| p != Path::new("/usr/lib/chromium/chromium-headless-shell");
        assert_eq!(
            pick_chrome(None, None, no_shell).unwrap(),
            PathBuf::from("/usr/bin/chromium")
        );
        // A $CHROME that is not there falls through to the installed ones.
        let only_chromium = |p: &Path| p == Path::new("/usr/bin/chromium");
        assert_eq!(
            pick_chrome(None, Some("/gone"), only_chromium).unwrap(),
            PathBuf::from("/usr/bin/chromium")
        );
    }

    #[test]
    fn nothing_installed_names_every_place_looked_at() {
        let err = pick_chrome(None, None, |_| false).unwrap_err();
        let msg = err.to_string();
        for p in DEBIAN_CHROMES {
            assert!(msg.contains(p), "{msg}");
        }
    }
}
