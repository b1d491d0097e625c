//! wayfarer's own fixture web applications, served in-process on 127.0.0.1.
//!
//! * [`App::Expense`]: an expense tracker modelled on DimeShift (registration, login, a
//!   div-based budget wizard, reports).
//! * [`App::Clinic`]: a veterinary clinic modelled on Spring PetClinic (owners, pets, visits).
//! * [`App::Splitter`]: a bill-splitting single-page app with hash routes and a date field
//!   in a non-standard format (modelled on SplittyPie).
//! * [`App::Board`]: a task board whose controls are bare divs and spans with JS handlers
//!   (no role, no tabindex, no pointer cursor), with double-click editing.
//! * [`App::BoardDelegated`]: the same board whose controls have no listener of their own:
//!   one listener on the document dispatches on a `data-ctl` attribute (event delegation, as
//!   component libraries do), so only a learned action discriminator can find them.
//! * [`App::Hazards`]: robustness pages for the browser driver (dialogs, popups, hangs, ...).
//! * [`App::Gestures`]: features behind gestures other than a click (a double click the
//!   document handles, hover menus, a context menu, Enter in a search box), a seeded bug
//!   behind each; static pages, no ground truth.
//!
//! All but Hazards carry seeded bugs ([`seeded_bugs`]) that `ServeOptions { bugs: false }`
//! switches off. All data live in a per-browser-session store keyed by the `sid` cookie, so
//! clearing cookies gives a fresh application. Every user-facing control carries a
//! `data-action-id`, logged by `/static/wf.js` into `window.__wfActions`; each app ships a
//! feature grammar ([`feature_grammar`]) and a ground truth ([`ground_truth`]). See
//! `testapps/README.md`.

mod board;
mod bugs;
mod clinic;
mod common;
mod expense;
mod gestures;
pub mod hazards;
pub mod llm;
mod server;
mod session;
mod splitter;
mod truth;

pub use bugs::{seeded_bugs, SeededBug};
pub use hazards::XSS_PROBES;
pub use llm::{FixtureReply, LlmFixture};
pub use server::Server;
pub use truth::{ground_truth, FeatureCase, Gesture, GroundTruth, Pick, Step};

/// One of the fixture applications.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum App {
    Expense,
    Clinic,
    Splitter,
    Board,
    /// The board with event delegation (same pages, bugs, truth and grammar).
    BoardDelegated,
    Hazards,
    /// Features behind gestures other than clicks (a delegated double click, hover menus,
    /// a context menu, Enter in a search box), each with a seeded bug; named on its own.
    Gestures,
}

impl App {
    /// Short name: "expense", "clinic", "splitter", "board", "board-delegated", "hazards".
    pub fn name(&self) -> &'static str {
        match self {
            App::Expense => "expense",
            App::Clinic => "clinic",
            App::Splitter => "splitter",
            App::Board => "board",
            App::BoardDelegated => "board-delegated",
            App::Hazards => "hazards",
            App::Gestures => "gestures",
        }
    }

    /// Inverse of [`App::name`].
    pub fn from_name(s: &str) -> Option<App> {
        match s {
            "expense" => Some(App::Expense),
            "clinic" => Some(App::Clinic),
            "splitter" => Some(App::Splitter),
            "board" => Some(App::Board),
            "board-delegated" => Some(App::BoardDelegated),
            "hazards" => Some(App::Hazards),
            "gestures" => Some(App::Gestures),
            _ => None,
        }
    }

    /// The applications meant for exploration and benchmarks, `--apps all` (Hazards is a
    /// driver test page; BoardDelegated a variant of Board, named on its own).
    pub fn all_apps() -> &'static [App] {
        &[App::Expense, App::Clinic, App::Splitter, App::Board]
    }
}

impl std::fmt::Display for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How to serve an application.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// `true` (the default) turns the seeded bugs on; `false` serves the fixed build.
    pub bugs: bool,
    /// Port on 127.0.0.1; 0 picks an ephemeral one.
    pub port: u16,
    /// Every response waits this long first, as a backend behind a network and a database
    /// would (the bundled apps answer in microseconds otherwise).
    pub latency: std::time::Duration,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            bugs: true,
            port: 0,
            latency: std::time::Duration::ZERO,
        }
    }
}

/// The feature grammar of an application: the content of `testapps/<app>/features.grammar`.
///
/// One feature per line, `name: regex`, the regex matched (unanchored) against the
/// space-separated sequence of action ids; lines starting with `#` are comments.
pub fn feature_grammar(app: App) -> &'static str {
    match app {
        App::Expense => include_str!("../expense/features.grammar"),
        App::Clinic => include_str!("../clinic/features.grammar"),
        App::Splitter => include_str!("../splitter/features.grammar"),
        App::Board | App::BoardDelegated => include_str!("../board/features.grammar"),
        App::Hazards => include_str!("../hazards/features.grammar"),
        App::Gestures => include_str!("../gestures/features.grammar"),
    }
}
