//! Pages for what happens to a failure after the run, each alone (no links out):
//! `/flaky`, whose button throws on every other load of the page, so a replay raises it
//! one time in two; and `/bugs/{ab,a,b,none}`, one page whose two buttons throw when
//! their bug is on (the path says which), from one script, so runs of the variants
//! compare like builds of one application with bugs fixed or brought back.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use axum::extract::Path;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;
use axum::{Extension, Router};

use crate::common;

/// The `/bugs/` variants: which of bug A and bug B are on.
pub const BUG_VARIANTS: [&str; 4] = ["ab", "a", "b", "none"];

pub(super) fn router() -> Router {
    let loads = Arc::new(AtomicU64::new(0));
    Router::new()
        .route("/flaky", get(flaky))
        .route("/bugs/{variant}", get(bugs))
        .route(
            "/static/hazards/bugs.js",
            get(|| async { common::js(BUGS_JS) }),
        )
        .layer(Extension(loads))
}

const FLAKY: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Flaky</title></head>
<body data-page="flaky">
<h1>Flaky</h1>
<p>Saving throws on every other load of this page.</p>
<button id="save" data-action-id="hazards.flaky.save">Save</button>
<script>
const broken = {{broken}};
document.getElementById('save').addEventListener('click', () => {
  if (broken) { throw new TypeError('flaky save: the draft went missing'); }
  document.querySelector('p').textContent = 'Saved.';
});
</script>
</body></html>"#;

/// Only navigations count as loads: a script's or a probe's fetch of the URL does not
/// turn the page.
async fn flaky(Extension(loads): Extension<Arc<AtomicU64>>, headers: HeaderMap) -> Response {
    let navigation = headers
        .get("sec-fetch-mode")
        .is_some_and(|v| v.as_bytes() == b"navigate");
    let n = if navigation {
        loads.fetch_add(1, Ordering::SeqCst) + 1
    } else {
        loads.load(Ordering::SeqCst)
    };
    let broken = if n % 2 == 1 { "true" } else { "false" };
    common::html(FLAKY.replace("{{broken}}", broken))
}

const BUGS: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Two bugs</title></head>
<body data-page="bugs" data-bugs="{{bugs}}">
<h1>Two bugs</h1>
<p id="out">Nothing done yet.</p>
<button id="archive" data-action-id="hazards.bugs.archive">Archive</button>
<button id="export" data-action-id="hazards.bugs.export">Export</button>
<script src="/static/hazards/bugs.js"></script>
</body></html>"#;

/// One script for every variant: a failure's signature (its source and line) is the
/// same whichever variant raised it.
const BUGS_JS: &str = r#"const on = document.body.dataset.bugs;
const out = document.getElementById('out');
document.getElementById('archive').addEventListener('click', () => {
  if (on.includes('a')) { throw new RangeError('archive: no folder for the item'); }
  out.textContent = 'Archived.';
});
document.getElementById('export').addEventListener('click', () => {
  if (on.includes('b')) { throw new TypeError('export: the format is not set'); }
  out.textContent = 'Exported.';
});
"#;

async fn bugs(Path(variant): Path<String>) -> Response {
    if !BUG_VARIANTS.contains(&variant.as_str()) {
        return common::not_found();
    }
    let on = if variant == "none" { "" } else { &variant };
    common::html(BUGS.replace("{{bugs}}", on))
}
