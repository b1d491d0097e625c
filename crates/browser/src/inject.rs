//! Hooks for the bench's external peers (gremlins.js, ...): a peer is a script injected
//! into every document, and the bench reads its counters from the page. Strategies never
//! use these; they only see the `Environment` trait.

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
