//! wayfarer-browser: the browser `Environment` over CDP (chromiumoxide, tokio).
//!
//! `BrowserEnv` is synchronous on purpose (the loop and strategies are): it owns a small
//! tokio runtime and blocks on it. Inside, one Chromium (launched headless, attached by
//! websocket or an http base (`endpoint`), or asked of a WebDriver hub (`grid`)), one page
//! per session, a single event task that turns CDP events into
//! `wayfarer_core::Event`s, a one-call scan script, real input events, a stability wait
//! without fixed sleeps, and merged precise JS coverage.

mod actions;
mod cdp;
mod coverage;
mod endpoint;
mod env;
mod events;
mod grid;
mod inject;
mod launch;
mod leave;
mod login;
mod name;
mod options;
mod probe;
mod reset;
mod scan;
mod scan_answer;
mod scope;
mod session;
mod spec;
mod spec_act;
mod stability;
mod watch;

pub use coverage::CoveragePool;
pub use endpoint::shown_str as shown_endpoint;
pub use env::BrowserEnv;
pub use launch::{launch_flags, Flag};
pub use login::form_expression as login_form_expression;
pub use options::{find_chrome, BrowserOptions};
pub use stability::DOM_STILL_CHANGING;
pub use watch::{PageNews, PageWatch};
