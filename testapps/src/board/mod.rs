//! The task board (Trello-like): boards, three columns, cards. Its controls are bare divs
//! and spans with `addEventListener` handlers (no links, buttons, role, tab order or pointer
//! cursor), renaming is a double-click, and the data sit behind a small same-origin JSON
//! API so that clearing cookies gives a fresh app.

mod api;
mod bugs;
mod data;
mod pages;
mod truth;

use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;

use crate::common::{self, esc, fill, Sessions};
use data::BoardSession;

pub(crate) use bugs::BUGS;
pub(crate) use truth::TRUTH;

pub(crate) struct St {
    pub bugs: bool,
    /// Controls get one delegated listener on the document instead of their own (the
    /// `board-delegated` variant): neither tags nor per-element listeners reveal them.
    pub delegated: bool,
    pub sessions: Arc<Sessions<BoardSession>>,
}

pub(crate) type S = State<Arc<St>>;

const LAYOUT: &str = include_str!("../../assets/board/layout.html");
const COMMON_JS: &str = include_str!("../../assets/board/common.js");
const PAGES_JS: &str = include_str!("../../assets/board/pages.js");
const EDIT_JS: &str = include_str!("../../assets/board/edit.js");
const VIEW_JS: &str = include_str!("../../assets/board/view.js");
const APP_CSS: &str = include_str!("../../assets/board/board.css");

pub(crate) fn router(bugs: bool, port: u16, delegated: bool) -> Router {
    let st = Arc::new(St {
        bugs,
        delegated,
        sessions: Sessions::new(port, data::new_session),
    });
    let routes = Router::new()
        .route("/", get(pages::boards))
        .route("/boards/{id}", get(pages::board))
        .route("/boards/{id}/archive", get(pages::archive))
        .route("/api/boards", post(api::create_board))
        .route("/api/boards/{id}", get(api::board_json))
        .route("/api/boards/{id}/cards", post(api::create_card))
        .route("/api/boards/{id}/{op}", post(api::board_op))
        .route("/api/cards/{id}/{op}", post(api::card_op))
        .route("/static/board.css", get(|| async { common::css(APP_CSS) }))
        .route(
            "/static/board-common.js",
            get(|| async { common::js(COMMON_JS) }),
        )
        .route(
            "/static/board-pages.js",
            get(|| async { common::js(PAGES_JS) }),
        )
        .route(
            "/static/board-edit.js",
            get(|| async { common::js(EDIT_JS) }),
        )
        .route(
            "/static/board-view.js",
            get(|| async { common::js(VIEW_JS) }),
        );
    let sessions = st.sessions.clone();
    common::finish_router(routes, st, sessions)
}

/// A full page: `page` names the body's `data-page` (the scripts dispatch on it), `state`
/// its initial `data-wf-state`; `script` is extra inline script (the page's data).
pub(crate) fn page(
    st: &St,
    title: &str,
    page: &str,
    state: &str,
    body: &str,
    script: &str,
) -> Response {
    common::html(fill(
        LAYOUT,
        &[
            ("title", &esc(title)),
            ("page", page),
            ("state", state),
            ("bugs", if st.bugs { "true" } else { "false" }),
            ("delegated", if st.delegated { "true" } else { "false" }),
            ("body", body),
            ("script", script),
        ],
    ))
}
