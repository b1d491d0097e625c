//! Hazards: pages that test the robustness of a browser driver (not a demo application).

use std::time::Duration;

use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use crate::common::{self, esc, fill, js_json};

const LAYOUT: &str = include_str!("../assets/hazards/layout.html");
const INDEX: &str = include_str!("../assets/hazards/index.html");
const MUTATING: &str = include_str!("../assets/hazards/mutating.html");
const DIALOGS: &str = include_str!("../assets/hazards/dialogs.html");
const THROWS: &str = include_str!("../assets/hazards/throws.html");
const EXTERNAL: &str = include_str!("../assets/hazards/external.html");
const FRAMES: &str = include_str!("../assets/hazards/frames.html");
const INNER: &str = include_str!("../assets/hazards/inner.html");

/// The markup probes the `/xss` page shows as text.
pub const XSS_PROBES: [&str; 2] = [
    "<script>alert(1)</script>",
    "\"><img src=x onerror=alert(1)>",
];

pub(crate) fn router() -> Router {
    Router::new()
        .route("/", get(|| async { page("Hazards", "index", INDEX) }))
        .route(
            "/mutating",
            get(|| async { page("Mutating DOM", "mutating", MUTATING) }),
        )
        .route(
            "/dialogs",
            get(|| async { page("Dialogs", "dialogs", DIALOGS) }),
        )
        .route(
            "/popup",
            get(|| async {
                page(
                    "Popup",
                    "popup",
                    "<h1>Popup</h1><p>A window opened by window.open().</p>",
                )
            }),
        )
        .route("/never", get(never))
        .route(
            "/stuck",
            get(|| async { page("Stuck requests", "stuck", STUCK) }),
        )
        .route("/slow", get(slow))
        .route("/boom", get(|| async { common::internal_error() }))
        .route(
            "/throws",
            get(|| async { page("Exceptions", "throws", THROWS) }),
        )
        .route(
            "/external",
            get(|| async { page("External targets", "external", EXTERNAL) }),
        )
        .route(
            "/download",
            get(|| async { page("Download", "download", DOWNLOAD) }),
        )
        .route("/download/report.csv", get(download_file))
        .route(
            "/frames",
            get(|| async { page("Iframe and shadow DOM", "frames", FRAMES) }),
        )
        .route(
            "/frames/inner",
            get(|| async { common::html(INNER.to_string()) }),
        )
        .route("/xss", get(xss))
        .route("/static/wf.js", get(common::wf_js))
        .route("/favicon.ico", get(common::favicon))
        .fallback(|| async { common::not_found() })
}

const DOWNLOAD: &str =
    "<h1>Download</h1>\n<p><a href=\"/download/report.csv\" id=\"download-link\" \
    data-action-id=\"hazards.download.link\">Download report.csv</a></p>";

fn page(title: &str, page_id: &str, body: &str) -> Response {
    common::html(fill(
        LAYOUT,
        &[("title", &esc(title)), ("page", page_id), ("body", body)],
    ))
}

/// Every control here waits on a server that never answers: a link and a fetch.
const STUCK: &str = r#"<h1>Stuck requests</h1>
<p><a href="/never" data-action-id="hazards.stuck.link">Open the page that never answers</a></p>
<p><button id="fetch-never" data-action-id="hazards.stuck.fetch"
  onclick="fetch('/never').then(function () { document.title = 'answered'; })">Fetch forever</button></p>"#;

/// Accepts the request and never answers.
async fn never() -> Response {
    std::future::pending::<Response>().await
}

async fn slow() -> Response {
    tokio::time::sleep(Duration::from_secs(3)).await;
    page(
        "Slow page",
        "slow",
        "<h1>Slow page</h1><p>This page took 3 seconds to answer.</p>",
    )
}

async fn download_file() -> Response {
    let mut r = (StatusCode::OK, "date,amount\n2024-03-01,850.00\n").into_response();
    let h = r.headers_mut();
    h.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/csv; charset=utf-8"),
    );
    h.insert(
        CONTENT_DISPOSITION,
        HeaderValue::from_static("attachment; filename=\"report.csv\""),
    );
    r
}

async fn xss() -> Response {
    let probe = XSS_PROBES.join(" ");
    let body = format!(
        "<h1 id=\"xss-title\">{p}</h1>\n<p id=\"xss-text\">Escaped text: {p}</p>\n\
         <p><input id=\"xss-input\" type=\"text\" value=\"{p}\" data-action-id=\"hazards.xss.input\"></p>\n\
         <script>console.error('xss probe ' + {j});</script>",
        p = esc(&probe),
        j = js_json(&probe),
    );
    page(&format!("XSS {probe}"), "xss", &body)
}
