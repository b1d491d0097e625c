//! Gestures: a small application whose features sit behind the gestures of a user's whole
//! hand, one page each, each with a seeded bug reachable only through its gesture: a double
//! click delegated to the document (roundup's date copy), a menu opened by hovering (a
//! `mouseenter` listener, and a stylesheet `:hover` rule), a context menu, and Enter in a
//! search box without a button. Static pages; no session data.

use axum::response::Response;
use axum::routing::get;
use axum::Router;

use crate::bugs::SeededBug;
use crate::common::{self, esc, fill};
use crate::truth::Step;
use crate::App;

const LAYOUT: &str = include_str!("../assets/gestures/layout.html");
const INDEX: &str = include_str!("../assets/gestures/index.html");
const DATES: &str = include_str!("../assets/gestures/dates.html");
const MENU: &str = include_str!("../assets/gestures/menu.html");
const FILES: &str = include_str!("../assets/gestures/files.html");
const SEARCH: &str = include_str!("../assets/gestures/search.html");

pub(crate) fn router(bugs: bool) -> Router {
    let at = move |title: &'static str, id: &'static str, body: &'static str| {
        get(move || async move { page(title, id, body, bugs) })
    };
    Router::new()
        .route("/", at("Gestures", "gestures_index", INDEX))
        .route("/dates", at("Dates", "gestures_dates", DATES))
        .route("/menu", at("Menus", "gestures_menu", MENU))
        .route("/files", at("Files", "gestures_files", FILES))
        .route("/search", at("Search", "gestures_search", SEARCH))
        .route("/static/wf.js", get(common::wf_js))
        .route("/favicon.ico", get(common::favicon))
        .fallback(|| async { common::not_found() })
}

fn page(title: &str, page_id: &str, body: &str, bugs: bool) -> Response {
    common::html(fill(
        LAYOUT,
        &[
            ("title", &esc(title)),
            ("page", page_id),
            ("body", body),
            ("bugs", if bugs { "true" } else { "false" }),
        ],
    ))
}

pub(crate) const BUGS: &[SeededBug] = &[
    SeededBug {
        id: "gestures-date-copy",
        app: App::Gestures,
        description: "Double-clicking a field without a type attribute throws in the \
                      document's date-copy handler. Steps: Dates, double-click Note.",
        kind: "exception",
        message_contains: "TypeError: Cannot read properties of undefined (reading 'value')",
        min_actions: 2,
        steps: &[
            Step::click("gestures.index.dates"),
            Step::double_click("gestures.dates.note"),
        ],
    },
    SeededBug {
        id: "gestures-account-export",
        app: App::Gestures,
        description: "Export my data, in the menu that hovering Account opens, throws. \
                      Steps: Menus, hover Account, Export my data.",
        kind: "exception",
        message_contains: "TypeError: Cannot read properties of null (reading 'rows')",
        min_actions: 3,
        steps: &[
            Step::click("gestures.index.menu"),
            Step::hover("gestures.menu.account"),
            Step::click("gestures.menu.export"),
        ],
    },
    SeededBug {
        id: "gestures-tools-archive",
        app: App::Gestures,
        description: "Archive all, in the Tools menu a stylesheet shows while it is \
                      hovered, throws. Steps: Menus, hover Tools, Archive all.",
        kind: "exception",
        message_contains: "TypeError: Cannot read properties of undefined (reading 'name')",
        min_actions: 3,
        steps: &[
            Step::click("gestures.index.menu"),
            Step::hover("gestures.menu.tools"),
            Step::click("gestures.menu.archive"),
        ],
    },
    SeededBug {
        id: "gestures-file-rename",
        app: App::Gestures,
        description: "Rename, in a file's context menu, throws for a file it never \
                      measured. Steps: Files, right-click a file, Rename.",
        kind: "exception",
        message_contains: "TypeError: Cannot read properties of undefined (reading 'size')",
        min_actions: 3,
        steps: &[
            Step::click("gestures.index.files"),
            Step::context_menu("gestures.files.row"),
            Step::click("gestures.files.rename"),
        ],
    },
    SeededBug {
        id: "gestures-search-empty",
        app: App::Gestures,
        description: "Enter in the empty search box throws. Steps: Search, Enter in the box.",
        kind: "exception",
        message_contains: "TypeError: Cannot read properties of null (reading 'some')",
        min_actions: 2,
        steps: &[
            Step::click("gestures.index.search"),
            Step::press("gestures.search.q", "Enter"),
        ],
    },
];
