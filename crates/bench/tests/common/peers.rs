//! Options for a peer run against a test app: the same in every peer test but for the
//! duration, so a change to `PeerOptions` is made once.

use std::time::Duration;

use wayfarer_bench::peer::PeerOptions;
use wayfarer_core::config::OracleConfig;

/// A peer run from `url` for at most `duration`, seed 1, default oracles, no logs kept.
pub fn peer_options(url: &str, duration: Duration) -> PeerOptions {
    PeerOptions {
        start_url: url::Url::parse(url).expect("the test app serves a valid URL"),
        chrome: Some(wayfarer_browser::find_chrome(None).expect("chromium is installed")),
        seed: 1,
        duration,
        max_steps: None,
        sample_every: Duration::from_millis(250),
        oracles: OracleConfig::default(),
        log_dir: None,
        login: Vec::new(),
        deny: Vec::new(),
        server: None,
    }
}
