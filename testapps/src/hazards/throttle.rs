//! A login with a per-user throttle that lives in the server, not in the browser: after
//! five failed logins for one user, every login for that user answers HTTP 500 for ten
//! minutes, whatever the browser's cookies. A reset of the browser does not undo it;
//! `POST /__reset` does (a reset hook's target).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Form, Router};

use crate::common::{self, esc, field};

/// Failed logins after which a user is locked out.
pub const THROTTLE_FAILURES: u32 = 5;
/// How long a lock-out lasts.
pub const THROTTLE_LOCK: Duration = Duration::from_secs(600);
/// The one account: user `ada`, password `letmein`.
const USER: &str = "ada";
const PASSWORD: &str = "letmein";

/// Per user: failed logins so far and when the lock-out began.
#[derive(Default)]
struct Attempts {
    failed: u32,
    locked_at: Option<Instant>,
}

type Throttle = Arc<Mutex<HashMap<String, Attempts>>>;

pub(super) fn router() -> Router {
    let state: Throttle = Arc::default();
    Router::new()
        .route("/throttle", get(form_page).post(login))
        .route("/__reset", post(reset))
        .layer(Extension(state))
}

const FORM: &str = r#"<h1>Log in (throttled)</h1>
<p>The demo account is <code>ada</code> / <code>letmein</code>. Five failed logins lock a
user out for ten minutes.</p>
{message}
<form id="throttle-form" method="post" action="/throttle">
  <p><label for="throttle-user">User</label>
    <input id="throttle-user" name="user" value="{user}" data-action-id="hazards.throttle.user"></p>
  <p><label for="throttle-password">Password</label>
    <input id="throttle-password" name="password" type="password" data-action-id="hazards.throttle.password"></p>
  <p><input type="submit" id="throttle-login" value="Login" data-action-id="hazards.throttle.login">
    <span class="error" id="throttle-error">{error}</span></p>
</form>"#;

fn render(status: StatusCode, user: &str, message: &str, error: &str) -> Response {
    let message = if message.is_empty() {
        String::new()
    } else {
        format!("<p id=\"throttle-message\">{}</p>", esc(message))
    };
    let body = FORM
        .replace("{message}", &message)
        .replace("{user}", &esc(user))
        .replace("{error}", &esc(error));
    let mut r = super::page("Throttled login", "throttle", &body);
    *r.status_mut() = status;
    r
}

async fn form_page() -> Response {
    render(StatusCode::OK, "", "", "")
}

async fn login(
    Extension(state): Extension<Throttle>,
    Form(f): Form<HashMap<String, String>>,
) -> Response {
    let user = field(&f, "user");
    let password = f.get("password").cloned().unwrap_or_default();
    let mut all = state.lock().unwrap_or_else(|e| e.into_inner());
    let a = all.entry(user.to_lowercase()).or_default();
    if let Some(at) = a.locked_at {
        if at.elapsed() < THROTTLE_LOCK {
            return common::html_status(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!(
                    "<!doctype html><html><head><meta charset=\"utf-8\"><title>500 Internal Server Error</title></head>\
                     <body><h1>server_error</h1><p>Too many login attempts for {}. Wait 10 minutes.</p></body></html>",
                    esc(&user)
                ),
            );
        }
        *a = Attempts::default();
    }
    if user.eq_ignore_ascii_case(USER) && password == PASSWORD {
        *a = Attempts::default();
        return render(StatusCode::OK, &user, &format!("Welcome, {user}!"), "");
    }
    a.failed += 1;
    if a.failed >= THROTTLE_FAILURES {
        a.locked_at = Some(Instant::now());
    }
    render(StatusCode::OK, &user, "", "Login failed")
}

/// Forget every failed login (what a reset hook calls between replays).
async fn reset(Extension(state): Extension<Throttle>) -> Response {
    state.lock().unwrap_or_else(|e| e.into_inner()).clear();
    StatusCode::NO_CONTENT.into_response()
}
