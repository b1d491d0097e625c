//! A login done for a peer that drives a browser of its own (Bombadil): our browser runs
//! the application's login steps, as a strategy's reset does, and the peer is handed the
//! session's cookies, as its users hand it theirs (`--cookie`), and the local storage the
//! login left (`storage`), written into its browser before it starts.

use wayfarer_browser::{find_chrome, BrowserEnv, BrowserOptions};
use wayfarer_core::Environment;

use super::PeerOptions;

/// What the login left: the session's cookies (`Set-Cookie` values), the entries of the
/// page's local storage (a login kept there: Verdaccio's token), and the page it ended on.
#[derive(Debug)]
pub(crate) struct Session {
    pub cookies: Vec<String>,
    pub storage: Vec<(String, String)>,
    pub landed: String,
}

/// Run `opts.login` in a browser of ours and take its cookies; the browser is closed,
/// the server keeps the session.
pub(crate) fn log_in(opts: &PeerOptions) -> Result<Session, String> {
    let chrome = match &opts.chrome {
        Some(p) => p.clone(),
        None => find_chrome(None).map_err(|e| e.to_string())?,
    };
    let mut bopts = BrowserOptions::new(opts.start_url.clone());
    bopts.chrome = Some(chrome);
    bopts.login = opts.login.clone();
    let mut env = BrowserEnv::launch(bopts).map_err(|e| format!("browser: {e}"))?;
    let result = (|| {
        let out = env
            .reset()
            .map_err(|e| format!("the login steps failed: {e}"))?;
        let cookies = env
            .session_cookies(&[opts.start_url.to_string()])
            .map_err(|e| e.to_string())?;
        let storage = env
            .evaluate(super::storage::READ_JS)
            .map(|v| super::storage::parse(&v))
            .unwrap_or_default();
        if cookies.is_empty() && storage.is_empty() {
            return Err(format!(
                "the login left neither a cookie nor local storage (landed on {})",
                out.observation.url
            ));
        }
        Ok(Session {
            cookies,
            storage,
            landed: out.observation.url,
        })
    })();
    env.close();
    result
}
