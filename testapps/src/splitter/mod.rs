//! The bill splitter (modelled on SplittyPie): a single-page app with hash routes whose
//! data live server-side per session behind a small JSON API. Its transaction form wants
//! the date as `DD.MM.YYYY` in a plain text field.

mod api;
mod bugs;
mod data;
mod dates;
mod truth;
mod validate;

use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;
use axum::routing::{get, post};
use axum::{Extension, Router};

use crate::common::{self, fill, js_json, Sessions, Sid};
use data::{Group, SplitSession};

pub(crate) use bugs::BUGS;
pub(crate) use truth::TRUTH;

pub(crate) struct St {
    pub bugs: bool,
    pub sessions: Arc<Sessions<SplitSession>>,
}

pub(crate) type S = State<Arc<St>>;

const SHELL: &str = include_str!("../../assets/splitter/index.html");
const CSS: &str = include_str!("../../assets/splitter/splitter.css");
/// The client, in load order: helpers, screens, forms, then the router that starts it.
const CORE_JS: &str = include_str!("../../assets/splitter/core.js");
const SCREENS_JS: &str = include_str!("../../assets/splitter/screens.js");
const FORMS_JS: &str = include_str!("../../assets/splitter/forms.js");
const APP_JS: &str = include_str!("../../assets/splitter/splitter.js");

pub(crate) fn router(bugs: bool, port: u16) -> Router {
    let st = Arc::new(St {
        bugs,
        sessions: Sessions::new(port, data::new_session),
    });
    let routes = Router::new()
        .route("/", get(shell))
        .route("/api/groups", get(api::list_groups).post(api::create_group))
        .route("/api/groups/{id}", get(api::get_group))
        .route("/api/groups/{id}/transactions", post(api::create_tx))
        .route("/api/groups/{id}/transactions/{tx}", post(api::update_tx))
        .route(
            "/api/groups/{id}/transactions/{tx}/delete",
            post(api::delete_tx),
        )
        .route("/api/groups/{id}/payments", post(api::pay))
        .route(
            "/static/splitter/core.js",
            get(|| async { common::js(CORE_JS) }),
        )
        .route(
            "/static/splitter/screens.js",
            get(|| async { common::js(SCREENS_JS) }),
        )
        .route(
            "/static/splitter/forms.js",
            get(|| async { common::js(FORMS_JS) }),
        )
        .route(
            "/static/splitter/splitter.js",
            get(|| async { common::js(APP_JS) }),
        )
        .route(
            "/static/splitter/splitter.css",
            get(|| async { common::css(CSS) }),
        );
    let sessions = st.sessions.clone();
    common::finish_router(routes, st, sessions)
}

/// `GET /`: the one HTML document. The groups list is inlined so the start screen renders
/// without waiting for a request; every other screen is drawn by the client.
async fn shell(State(st): S, Extension(sid): Extension<Sid>) -> Response {
    let groups = st.sessions.with(&sid, |s| {
        let list: Vec<_> = s.groups.iter().map(Group::summary).collect();
        js_json(&list)
    });
    common::html(fill(
        SHELL,
        &[
            ("bugs", if st.bugs { "true" } else { "false" }),
            ("groups", &groups),
        ],
    ))
}
