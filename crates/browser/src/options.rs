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
            chrome: None,
            coverage: CoveragePool::default(),
            spec: None,
        }
    }
}

/// The Chromium binary: `explicit`, then `$CHROME`, then the Debian paths.
pub fn find_chrome(explicit: Option<&str>) -> Result<PathBuf, EnvError> {
    if let Some(p) = explicit.filter(|p| !p.is_empty()) {
        return if Path::new(p).exists() {
            Ok(PathBuf::from(p))
        } else {
            Err(EnvError::Browser(format!(
                "Chromium not found at {p}: install it with `apt-get install -y chromium` or pass --chrome PATH"
            )))
        };
    }
    if let Ok(p) = std::env::var("CHROME") {
        if !p.is_empty() && Path::new(&p).exists() {
            return Ok(PathBuf::from(p));
        }
    }
    for p in ["/usr/bin/chromium", "/usr/bin/chromium-browser"] {
        if Path::new(p).exists() {
            return Ok(PathBuf::from(p));
        }
    }
    Err(EnvError::Browser(
        "Chromium not found (looked at --chrome, $CHROME, /usr/bin/chromium, /usr/bin/chromium-browser): \
         install it with `apt-get install -y chromium` or pass --chrome PATH"
            .to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_missing_path_is_an_error_with_a_hint() {
        let err = find_chrome(Some("/nonexistent/chrome")).unwrap_err();
        assert!(err.to_string().contains("apt-get install -y chromium"));
    }
}
