//! Hooks for the bench's external peers (gremlins.js, ...): a peer is a script injected
//! into every document, and the bench reads its counters from the page; a peer with a
//! browser of its own gets the cookies of a login done here. Strategies never use these;
//! they only see the `Environment` trait.

use chromiumoxide::cdp::browser_protocol::network::{Cookie, GetCookiesParams};
use chromiumoxide::cdp::browser_protocol::page::AddScriptToEvaluateOnNewDocumentParams;
use wayfarer_core::EnvError;

use crate::cdp::{call, eval, BrowserError};
use crate::env::BrowserEnv;
use crate::stability::close_popups;

fn step_error(what: &str, e: BrowserError) -> EnvError {
    EnvError::Step(format!("{what}: {e}"))
}

impl BrowserEnv {
    /// Evaluate `source` in the main world of every new document of the current page,
    /// before the document's own scripts (`Page.addScriptToEvaluateOnNewDocument`). It
    /// takes effect from the next navigation.
    ///
    /// The registration belongs to the page: when the environment restarts the browser or
    /// reopens a crashed page (an outcome with `restarted: true`), it is gone and must be
    /// added again.
    pub fn add_init_script(&mut self, source: &str) -> Result<(), EnvError> {
        let page = self
            .inner
            .page()
            .map_err(|e| step_error("add init script", e))?;
        let limit = self.inner.lim.cdp;
        let params = AddScriptToEvaluateOnNewDocumentParams::new(source);
        let id = self
            .rt
            .block_on(call(&page, params, limit))
            .map_err(|e| step_error("add init script", e))?;
        tracing::debug!(identifier = ?id.identifier, bytes = source.len(), "init script added");
        Ok(())
    }

    /// Close the windows the page opened since the last step. A step closes them in its
    /// stability wait; a peer acting on its own between `observe` calls needs this.
    pub fn close_popups(&mut self) {
        if let Some(l) = self.inner.launched.as_ref() {
            let cdp = self.inner.lim.cdp;
            self.rt
                .block_on(close_popups(&l.browser, &self.inner.shared, cdp));
        }
    }

    /// The cookies the current page and `urls` get, each as a `Set-Cookie` value (what
    /// a login left: the session a program with a browser of its own can be handed).
    pub fn session_cookies(&mut self, urls: &[String]) -> Result<Vec<String>, EnvError> {
        let page = self.inner.page().map_err(|e| step_error("cookies", e))?;
        let limit = self.inner.lim.cdp;
        let mut all = urls.to_vec();
        if let Some(here) = self.rt.block_on(page.url()).ok().flatten() {
            all.push(here);
        }
        let params = GetCookiesParams::builder().urls(all).build();
        let got = self
            .rt
            .block_on(call(&page, params, limit))
            .map_err(|e| step_error("cookies", e))?;
        Ok(got.cookies.iter().map(set_cookie).collect())
    }

    /// Evaluate `expression` in the page's main world and return its value as JSON
    /// (`Runtime.evaluate` with `returnByValue`, bounded by the CDP timeout). An exception
    /// in the expression, a page in the middle of a navigation or a hung renderer is an
    /// `EnvError::Step`; the browser's health is left to the next `observe`/`step`.
    pub fn evaluate(&mut self, expression: &str) -> Result<serde_json::Value, EnvError> {
        let page = self.inner.page().map_err(|e| step_error("evaluate", e))?;
        let limit = self.inner.lim.cdp;
        self.rt
            .block_on(eval(&page, expression, limit))
            .map_err(|e| step_error("evaluate", e))
    }
}

/// A cookie as a `Set-Cookie` header gives it, for the length of one run (no expiry): a
/// host-only cookie (no leading dot) keeps no `Domain`, which would widen it to
/// subdomains.
fn set_cookie(c: &Cookie) -> String {
    let mut s = format!("{}={}; Path={}", c.name, c.value, c.path);
    if c.domain.starts_with('.') {
        s.push_str(&format!("; Domain={}", c.domain.trim_start_matches('.')));
    }
    if c.secure {
        s.push_str("; Secure");
    }
    if c.http_only {
        s.push_str("; HttpOnly");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use chromiumoxide::cdp::browser_protocol::network::{CookiePriority, CookieSourceScheme};

    fn cookie(domain: &str, session: bool) -> Cookie {
        Cookie {
            name: "sid".into(),
            value: "a1".into(),
            domain: domain.into(),
            path: "/app".into(),
            expires: if session { -1.0 } else { 4e9 },
            size: 5,
            http_only: true,
            secure: false,
            session,
            same_site: None,
            priority: CookiePriority::Medium,
            source_scheme: CookieSourceScheme::NonSecure,
            source_port: 80,
            partition_key: None,
            partition_key_opaque: None,
        }
    }

    #[test]
    fn cookies_become_set_cookie_values() {
        assert_eq!(
            set_cookie(&cookie("127.0.0.1", true)),
            "sid=a1; Path=/app; HttpOnly"
        );
        let wide = set_cookie(&cookie(".example.test", false));
        assert_eq!(wide, "sid=a1; Path=/app; Domain=example.test; HttpOnly");
    }
}
