//! The expense tracker (modelled on DimeShift).

mod auth;
mod data;
mod expenses;
mod pages;
mod truth;

use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;

use crate::common::{self, esc, fill, Sessions};
use data::ExpenseSession;
pub(crate) use truth::TRUTH;

pub(crate) struct St {
    pub bugs: bool,
    pub sessions: Arc<Sessions<ExpenseSession>>,
}

pub(crate) type S = State<Arc<St>>;

const LAYOUT: &str = include_str!("../../assets/expense/layout.html");
const NAV: &str = include_str!("../../assets/expense/nav.html");
const APP_JS: &str = include_str!("../../assets/expense/expense.js");
const APP_CSS: &str = include_str!("../../assets/expense/expense.css");

pub(crate) fn router(bugs: bool, port: u16) -> Router {
    let st = Arc::new(St {
        bugs,
        sessions: Sessions::new(port, data::new_session),
    });
    let routes = Router::new()
        .route("/", get(auth::login_page))
        .route("/login", get(auth::login_page).post(auth::login))
        .route("/register", get(auth::register_page).post(auth::register))
        .route("/logout", post(auth::logout))
        .route("/dashboard", get(expenses::dashboard))
        .route(
            "/expenses/new",
            get(expenses::new_page).post(expenses::create),
        )
        .route(
            "/expenses/{id}/edit",
            get(expenses::edit_page).post(expenses::update),
        )
        .route("/expenses/{id}/delete", post(expenses::delete))
        .route(
            "/categories",
            get(pages::categories).post(pages::add_category),
        )
        .route("/categories/delete", post(pages::delete_category))
        .route("/reports", get(pages::reports))
        .route("/wizard", get(pages::wizard))
        .route("/budgets", post(pages::save_budget))
        .route("/static/expense.js", get(|| async { common::js(APP_JS) }))
        .route(
            "/static/expense.css",
            get(|| async { common::css(APP_CSS) }),
        );
    let sessions = st.sessions.clone();
    common::finish_router(routes, st, sessions)
}

/// A full page: `page` names the body's `data-page` (the JS dispatches on it); `user` is the
/// logged-in user's name (shows the navigation); `script` is extra inline script.
pub(crate) fn page(
    st: &St,
    title: &str,
    page: &str,
    user: Option<&str>,
    body: &str,
    script: &str,
) -> Response {
    let nav = match user {
        Some(name) => fill(NAV, &[("user", &esc(name))]),
        None => String::new(),
    };
    common::html(fill(
        LAYOUT,
        &[
            ("title", &esc(title)),
            ("page", page),
            ("bugs", if st.bugs { "true" } else { "false" }),
            ("nav", &nav),
            ("body", body),
            ("script", script),
        ],
    ))
}

/// A flash message box (empty when there is none).
pub(crate) fn flash_html(flash: Option<String>) -> String {
    match flash {
        Some(m) => format!("<div class=\"flash\" role=\"status\">{}</div>", esc(&m)),
        None => String::new(),
    }
}
