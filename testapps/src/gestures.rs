//! Gestures: a small application whose features sit behind the gestures of a user's whole
//! hand, one page each, each with a seeded bug reachable only through its gesture: a double
//! click delegated to the document (roundup's date copy), a menu opened by hovering (a
//! `mouseenter` listener, and a stylesheet `:hover` rule), a context menu, and Enter in a
//! search box without a button, an upload over a size, the 40th post of a feed that
//! loads more as it scrolls, a card dragged to another column, the down arrow in a
//! combobox, Escape in an open dialog and a shortcut the page declares
//! (`aria-keyshortcuts`). Static pages; no session data.

use axum::response::Response;
use axum::routing::get;
use axum::Router;

use crate::bugs::SeededBug;
use crate::common::{self, esc, fill};
use crate::truth::{Pick, Step};
use crate::App;

const LAYOUT: &str = include_str!("../assets/gestures/layout.html");
const INDEX: &str = include_str!("../assets/gestures/index.html");
const DATES: &str = include_str!("../assets/gestures/dates.html");
const MENU: &str = include_str!("../assets/gestures/menu.html");
const FILES: &str = include_str!("../assets/gestures/files.html");
const SEARCH: &str = include_str!("../assets/gestures/search.html");
const UPLOAD: &str = include_str!("../assets/gestures/upload.html");
const FEED: &str = include_str!("../assets/gestures/feed.html");
const KANBAN: &str = include_str!("../assets/gestures/kanban.html");
const CITY: &str = include_str!("../assets/gestures/city.html");
const NOTES: &str = include_str!("../assets/gestures/notes.html");

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
        .route("/upload", at("Upload", "gestures_upload", UPLOAD))
        .route("/feed", at("Feed", "gestures_feed", FEED))
        .route("/kanban", at("Kanban", "gestures_kanban", KANBAN))
        .route("/city", at("City", "gestures_city", CITY))
        .route("/notes", at("Notes", "gestures_notes", NOTES))
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
    SeededBug {
        id: "gestures-upload-large",
        app: App::Gestures,
        description: "Uploading a picture over 5 MB throws where a message should say it is \
                      too large. Steps: Upload, choose a 6 MB picture, Upload.",
        kind: "exception",
        message_contains: "TypeError: Cannot read properties of undefined (reading 'width')",
        min_actions: 3,
        steps: &[
            Step::click("gestures.index.upload"),
            Step::upload("gestures.upload.file", "photo.png:6291456"),
            Step::click("gestures.upload.send"),
        ],
    },
    SeededBug {
        id: "gestures-feed-40",
        app: App::Gestures,
        description: "The 40th post of the feed, loaded by scrolling, throws when opened. \
                      Steps: Feed, scroll until Post 40 shows, Post 40.",
        kind: "exception",
        message_contains: "TypeError: Cannot read properties of undefined (reading 'login')",
        min_actions: 4,
        steps: &[
            // Twenty posts show at first (the sentinel is in view once), ten more a scroll.
            Step::click("gestures.index.feed"),
            Step::scroll(),
            Step::scroll(),
            Step::click_text("gestures.feed.post", "Post 40"),
        ],
    },
    SeededBug {
        id: "gestures-kanban-done",
        app: App::Gestures,
        description: "Dropping a card without a due date on Done throws. Steps: Kanban, \
                      drag Book the train onto Done.",
        kind: "exception",
        message_contains: "TypeError: Cannot read properties of undefined (reading 'date')",
        min_actions: 2,
        steps: &[
            Step::click("gestures.index.kanban"),
            Step::drag_to("gestures.kanban.card", "gestures.kanban.done").pick(Pick::Last),
        ],
    },
    SeededBug {
        id: "gestures-city-arrow",
        app: App::Gestures,
        description: "The down arrow in the City combobox of a new user (no recent \
                      cities) throws. Steps: City, ArrowDown in the box.",
        kind: "exception",
        message_contains: "TypeError: Cannot read properties of undefined (reading 'label')",
        min_actions: 2,
        steps: &[
            Step::click("gestures.index.city"),
            Step::press("gestures.city.input", "ArrowDown"),
        ],
    },
    SeededBug {
        id: "gestures-notes-escape",
        app: App::Gestures,
        description: "Closing the edit dialog with Escape throws for a note never saved. \
                      Steps: Notes, Edit, Escape.",
        kind: "exception",
        message_contains: "TypeError: Cannot read properties of null (reading 'text')",
        min_actions: 3,
        steps: &[
            Step::click("gestures.index.notes"),
            Step::click("gestures.notes.edit"),
            Step::press_here("Escape"),
        ],
    },
    SeededBug {
        id: "gestures-notes-find",
        app: App::Gestures,
        description: "The find shortcut the Find button declares (Control+Shift+F) throws; \
                      the button itself works. Steps: Notes, Control+Shift+F.",
        kind: "exception",
        message_contains: "TypeError: Cannot set properties of null (setting 'hidden')",
        min_actions: 2,
        steps: &[
            Step::click("gestures.index.notes"),
            Step::press("gestures.notes.find", "Control+Shift+KeyF"),
        ],
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_bug_has_its_own_message_and_a_witness_as_long_as_its_minimum() {
        let mut seen = std::collections::HashSet::new();
        for b in BUGS {
            assert!(seen.insert((b.kind, b.message_contains)), "{}", b.id);
            assert_eq!(b.steps.len() as u32, b.min_actions, "{}", b.id);
            assert!(b.id.starts_with("gestures-") && b.app == App::Gestures);
        }
    }
}
