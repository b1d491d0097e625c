//! Hazards: pages that test the robustness of a browser driver (not a demo application).

use std::time::Duration;

use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use crate::common::{self, esc, fill, js_json};

mod checks;
mod hostile;
mod late;
mod props;
mod throttle;
mod token;
mod verdicts;

pub use checks::CHECK_PAGES;
pub use hostile::{CROWD_ELEMENTS, HUGE_BYTES};
pub use late::LATE_RENDER_MS;
pub use props::PROP_PAGES;
pub use verdicts::BUG_VARIANTS;

const LAYOUT: &str = include_str!("../assets/hazards/layout.html");
const INDEX: &str = include_str!("../assets/hazards/index.html");
const MUTATING: &str = include_str!("../assets/hazards/mutating.html");
const DIALOGS: &str = include_str!("../assets/hazards/dialogs.html");
const THROWS: &str = include_str!("../assets/hazards/throws.html");
const EXTERNAL: &str = include_str!("../assets/hazards/external.html");
const FRAMES: &str = include_str!("../assets/hazards/frames.html");
const INNER: &str = include_str!("../assets/hazards/inner.html");
const NAMING: &str = include_str!("../assets/hazards/naming.html");
const NAMING_INNER: &str = include_str!("../assets/hazards/naming-inner.html");

/// A second click on one load of the page throws: a step that reloads the page in between
/// (a back out of the application and forward again) loses the first click.
const TWICE: &str = r#"<h1>Twice</h1>
<button id="again">Again</button> <span id="clicks">0</span>
<script>
let clicks = 0;
document.getElementById('again').addEventListener('click', () => {
  clicks += 1;
  document.getElementById('clicks').textContent = String(clicks);
  if (clicks === 2) throw new Error('clicked twice on one load of the page');
});
</script>"#;

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
        .route(
            "/history/twice",
            get(|| async { page("Twice", "twice", TWICE) }),
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
        // Not linked from the index: a test of secrets starts there (it throws on purpose).
        .route("/echo", get(echo))
        .route(
            "/naming",
            get(|| async { page("Naming traps", "naming", NAMING) }),
        )
        .route(
            "/naming/inner",
            get(|| async { common::html(NAMING_INNER.to_string()) }),
        )
        .merge(throttle::router())
        .merge(verdicts::router())
        .merge(props::router())
        .merge(checks::router())
        .merge(hostile::router())
        .merge(late::router())
        .merge(token::router())
        .route(
            "/worker",
            get(|| async { page("A Web Worker", "worker", WORKER) }),
        )
        .route(
            "/static/hazards/worker.js",
            get(|| async { common::js(WORKER_JS) }),
        )
        .route("/worker/held", get(never))
        .route(
            "/events",
            get(|| async { page("An event stream", "events", EVENTS) }),
        )
        .route("/events/stream", get(event_stream))
        .route(
            "/longpoll",
            get(|| async { page("A long poll", "longpoll", LONGPOLL) }),
        )
        .route("/longpoll/wait", get(long_poll))
        .route(
            "/socket",
            get(|| async { page("A WebSocket", "socket", SOCKET) }),
        )
        .route("/socket/ws", get(socket))
        .route(
            "/bigscript",
            get(|| async { page("Much JavaScript", "bigscript", &big_page()) }),
        )
        .route(
            "/static/hazards/big.js",
            get(|| async { big_js_response() }),
        )
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

/// Long-lived connections a page keeps open while it is otherwise idle: a driver that
/// waits for "no pending request" must not wait for these. Each page also has a button
/// whose effect arrives over its connection.
const WORKER: &str = r#"<h1>A Web Worker</h1>
<p id="worker-out">starting</p>
<button id="worker-ask" data-action-id="hazards.worker.ask">Ask the worker</button>
<script>
  const w = new Worker('/static/hazards/worker.js');
  w.onmessage = function (e) { document.getElementById('worker-out').textContent = e.data; };
  document.getElementById('worker-ask').onclick = function () { w.postMessage('ask'); };
</script>"#;

/// The worker answers messages and keeps a request open that never answers.
const WORKER_JS: &str = "postMessage('worker ready');\n\
fetch('/worker/held').catch(function () {});\n\
onmessage = function () { postMessage('worker answered'); };\n";

const EVENTS: &str = r#"<h1>An event stream</h1>
<p id="events-out">no event yet</p>
<button id="events-mark" data-action-id="hazards.events.mark">Mark</button>
<p id="events-marked"></p>
<script>
  const es = new EventSource('/events/stream');
  es.onmessage = function (e) { document.getElementById('events-out').textContent = 'event ' + e.data; };
  document.getElementById('events-mark').onclick = function () {
    document.getElementById('events-marked').textContent = 'marked';
  };
</script>"#;

const LONGPOLL: &str = r#"<h1>A long poll</h1>
<p id="poll-out">waiting for news</p>
<button id="poll-mark" data-action-id="hazards.longpoll.mark">Mark</button>
<p id="poll-marked"></p>
<script>
  function poll() {
    fetch('/longpoll/wait').then(function (r) { return r.text(); })
      .then(function (t) { document.getElementById('poll-out').textContent = t; poll(); })
      .catch(function () {});
  }
  poll();
  document.getElementById('poll-mark').onclick = function () {
    document.getElementById('poll-marked').textContent = 'marked';
  };
</script>"#;

const SOCKET: &str = r#"<h1>A WebSocket</h1>
<p id="socket-out">connecting</p>
<button id="socket-ask" data-action-id="hazards.socket.ask">Ask the server</button>
<script>
  const ws = new WebSocket('ws://' + location.host + '/socket/ws');
  ws.onopen = function () { document.getElementById('socket-out').textContent = 'connected'; };
  ws.onmessage = function (e) { document.getElementById('socket-out').textContent = e.data; };
  document.getElementById('socket-ask').onclick = function () { ws.send('ask'); };
</script>"#;

/// Server-sent events: `data: N` every 300 ms, forever.
async fn event_stream() -> Response {
    let frames = futures::stream::unfold(0u64, |n| async move {
        if n > 0 {
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        Some((
            Ok::<_, std::convert::Infallible>(format!("data: {n}\n\n")),
            n + 1,
        ))
    });
    let mut r = (StatusCode::OK, axum::body::Body::from_stream(frames)).into_response();
    r.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    r
}

/// A long poll: the server holds the request for 20 s, then answers; the page asks again.
async fn long_poll() -> Response {
    tokio::time::sleep(Duration::from_secs(20)).await;
    common::typed(StatusCode::OK, "text/plain; charset=utf-8", "news")
}

/// Answers every message with "server answered"; stays open.
async fn socket(ws: axum::extract::ws::WebSocketUpgrade) -> Response {
    use axum::extract::ws::Message;
    ws.on_upgrade(|mut sock| async move {
        while let Some(Ok(msg)) = sock.recv().await {
            if matches!(msg, Message::Text(_))
                && sock
                    .send(Message::Text("server answered".into()))
                    .await
                    .is_err()
            {
                break;
            }
        }
    })
}

/// Functions in the generated script of `/bigscript`, and how many each feature button
/// runs: 8000 functions of ~280 bytes make a 2.2 MB script, as real single-page
/// applications load; 16 features run 100 functions each, the rest never runs.
const BIG_FUNCTIONS: usize = 8000;
const BIG_FEATURES: usize = 16;
const BIG_PER_FEATURE: usize = 100;

/// The script of `/bigscript`: generated once, deterministic.
pub fn big_js() -> &'static str {
    static JS: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    JS.get_or_init(|| {
        let mut js = String::with_capacity(BIG_FUNCTIONS * 300);
        for i in 0..BIG_FUNCTIONS {
            js.push_str(&format!(
                "function f{i}(x) {{\n  var s = {m};\n  for (var i = 0; i < 3; i++) {{ s += (x + i) * {m} % 7; }}\n  if (s % 2 === 0) {{ s = s / 2; }} else {{ s = s * 3 + 1; }}\n  if (x < 0) {{ throw new Error('negative input ' + x + ' in f{i}'); }}\n  return s > 1000000 ? s % 1000 : s;\n}}\n",
                m = i % 97 + 1
            ));
        }
        for k in 0..BIG_FEATURES {
            let first = k * BIG_PER_FEATURE;
            js.push_str(&format!(
                "function feature{k}() {{ var t = 0; for (var i = {first}; i < {end}; i++) {{ t += window['f' + i](i); }} document.getElementById('big-out').textContent = 'feature {k}: ' + t; }}\n",
                end = first + BIG_PER_FEATURE
            ));
        }
        js
    })
}

fn big_js_response() -> Response {
    common::typed(
        StatusCode::OK,
        "application/javascript; charset=utf-8",
        big_js(),
    )
}

fn big_page() -> String {
    let mut body = String::from(
        "<h1>Much JavaScript</h1>\n<p>A 2 MB script; each button runs a hundred of its functions.</p>\n<p id=\"big-out\">nothing run yet</p>\n<script src=\"/static/hazards/big.js\"></script>\n",
    );
    for k in 0..BIG_FEATURES {
        body.push_str(&format!(
            "<button id=\"feature{k}\" onclick=\"feature{k}()\" data-action-id=\"hazards.bigscript.feature{k}\">Feature {k}</button>\n"
        ));
    }
    body
}

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

/// `/echo`: a search form sent with GET whose answer repeats the query the ways an
/// application shows back a value typed into it: in its URL, its title, its text
/// (HTML-escaped), the field's value, a link, a console error and an exception.
async fn echo(
    axum::extract::Query(q): axum::extract::Query<std::collections::HashMap<String, String>>,
) -> Response {
    let form = "<form method=\"get\" action=\"/echo\">\n\
         <label for=\"echo-q\">Description</label>\n\
         <input id=\"echo-q\" name=\"q\" type=\"text\" value=\"__VALUE__\" \
         data-action-id=\"hazards.echo.q\">\n\
         <button type=\"submit\" data-action-id=\"hazards.echo.search\">Search</button>\n</form>\n";
    let Some(q) = q.get("q").filter(|q| !q.is_empty()) else {
        let body = format!("<h1>Search</h1>\n{}", form.replace("__VALUE__", ""));
        return page("Search", "echo", &body);
    };
    let link: String = q
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect();
    let body = format!(
        "<h1>Search</h1>\n{form}<p id=\"echo-said\">No result for {h}.</p>\n\
         <p><a href=\"/echo?q={link}&amp;page=2\" data-action-id=\"hazards.echo.next\">Next page</a></p>\n\
         <script>console.error('no result for ' + {j});</script>\n\
         <script>throw new Error('cannot search for ' + {j});</script>",
        form = form.replace("__VALUE__", &esc(q)),
        h = esc(q),
        j = js_json(q),
    );
    page(&format!("Search: {q}"), "echo", &body)
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
