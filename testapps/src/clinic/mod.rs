//! The veterinary clinic (modelled on Spring PetClinic).

mod data;
mod owners;
mod pets;
mod truth;
mod vets;

use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use crate::common::{self, esc, fill, Sessions};
use data::ClinicSession;
pub(crate) use truth::TRUTH;

pub(crate) struct St {
    pub bugs: bool,
    pub sessions: Arc<Sessions<ClinicSession>>,
}

pub(crate) type S = State<Arc<St>>;

const LAYOUT: &str = include_str!("../../assets/clinic/layout.html");
const APP_JS: &str = include_str!("../../assets/clinic/clinic.js");
const APP_CSS: &str = include_str!("../../assets/clinic/clinic.css");

pub(crate) fn router(bugs: bool, port: u16) -> Router {
    let st = Arc::new(St {
        bugs,
        sessions: Sessions::new(port, data::new_session),
    });
    let routes = Router::new()
        .route("/", get(vets::home))
        .route("/vets", get(vets::vets))
        .route("/owners/find", get(owners::find_page))
        .route("/owners", get(owners::list))
        .route("/owners/new", get(owners::new_page).post(owners::create))
        .route("/owners/{id}", get(owners::detail))
        .route(
            "/owners/{id}/edit",
            get(owners::edit_page).post(owners::update),
        )
        .route(
            "/owners/{id}/pets/new",
            get(pets::new_page).post(pets::create),
        )
        .route(
            "/owners/{id}/pets/{pet}/edit",
            get(pets::edit_page).post(pets::update),
        )
        .route(
            "/owners/{id}/pets/{pet}/visits/new",
            get(pets::visit_page).post(pets::add_visit),
        )
        .route("/static/clinic.js", get(|| async { common::js(APP_JS) }))
        .route("/static/clinic.css", get(|| async { common::css(APP_CSS) }));
    let sessions = st.sessions.clone();
    common::finish_router(routes, st, sessions)
}

/// A full page; `page` is the body's `data-page` (the JS dispatches on it).
pub(crate) fn page(st: &St, title: &str, page: &str, body: &str, script: &str) -> Response {
    common::html(fill(
        LAYOUT,
        &[
            ("title", &esc(title)),
            ("page", page),
            ("bugs", if st.bugs { "true" } else { "false" }),
            ("body", body),
            ("script", script),
        ],
    ))
}

pub(crate) fn flash_html(flash: Option<String>) -> String {
    flash
        .map(|m| format!("<div class=\"flash\" role=\"status\">{}</div>", esc(&m)))
        .unwrap_or_default()
}
