//! Pages that attack the tester: a DOM of 50,000 elements, a click handler that never
//! returns, redirect loops (server and client), a page that does not want to be left, a
//! page that rewrites the builtins a driver's injected scripts use, and a 50 MB answer.
//! A driver must end each in bounded time and go on.

use std::collections::HashMap;

use axum::body::{Body, Bytes};
use axum::extract::Query;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, LOCATION};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use crate::common::fill;

/// Elements `/crowd` holds (its item buttons; the layout's few come on top).
pub const CROWD_ELEMENTS: usize = 50_000;
/// Bytes of paragraphs `/huge/stream` sends inside its page.
pub const HUGE_BYTES: usize = 50 * 1024 * 1024;
/// One chunk of `/huge/stream`.
const HUGE_CHUNK: usize = 64 * 1024;
/// Where the layout is split around the streamed body.
const BODY_MARK: &str = "<!--hazards-huge-body-->";

pub(super) fn router() -> Router {
    Router::new()
        .route(
            "/crowd",
            get(|| async { super::page("A crowd of elements", "crowd", crowd_body()) }),
        )
        .route(
            "/spin",
            get(|| async { super::page("A click that never returns", "spin", SPIN) }),
        )
        .route(
            "/redirects",
            get(|| async { super::page("Redirect loops", "redirects", REDIRECTS) }),
        )
        .route("/redirects/server", get(server_hop))
        .route("/redirects/client", get(client_hop))
        .route(
            "/leaving",
            get(|| async {
                super::page("A page that does not want to be left", "leaving", LEAVING)
            }),
        )
        .route(
            "/leaving/next",
            get(|| async { super::page("Left", "leaving-next", LEFT) }),
        )
        .route(
            "/tampered",
            get(|| async { super::page("Rewritten builtins", "tampered", TAMPERED) }),
        )
        .route(
            "/huge",
            get(|| async { super::page("A huge answer", "huge", HUGE) }),
        )
        .route("/huge/stream", get(huge_stream))
}

/// 50,000 item buttons side by side under one parent (no ids), a delegated listener that
/// says which was clicked, and two ordinary controls first.
fn crowd_body() -> &'static str {
    static BODY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BODY.get_or_init(|| {
        let mut b = String::with_capacity(CROWD_ELEMENTS * 48 + 1024);
        b.push_str(
            "<h1>A crowd of elements</h1>\n\
             <p><button id=\"crowd-count\" data-action-id=\"hazards.crowd.count\" \
             onclick=\"document.getElementById('crowd-out').textContent = 'items: ' + \
             document.querySelectorAll('#crowd button').length\">Count the items</button>\n\
             <span id=\"crowd-out\">nothing clicked yet</span></p>\n<div id=\"crowd\">\n",
        );
        for i in 0..CROWD_ELEMENTS {
            b.push_str(&format!("<button class=\"item\">Item {i}</button>\n"));
        }
        b.push_str(
            "</div>\n<script>document.getElementById('crowd').addEventListener('click', function (e) {\n\
             \x20 if (e.target.localName === 'button') document.getElementById('crowd-out').textContent = 'clicked ' + e.target.textContent;\n\
             });</script>",
        );
        b
    })
}

/// One button spins forever in its click handler, one in a task just after its click;
/// the last works.
const SPIN: &str = r#"<h1>A click that never returns</h1>
<p><button id="spin-forever" data-action-id="hazards.spin.forever" onclick="while (true) {}">Spin forever</button></p>
<p><button id="spin-later" data-action-id="hazards.spin.later"
  onclick="setTimeout(function () { while (true) {} }, 0)">Spin after the click</button></p>
<p><button id="spin-hello" data-action-id="hazards.spin.hello"
  onclick="window.hellos = (window.hellos || 0) + 1; document.getElementById('spin-out').textContent = 'hello ' + window.hellos">Say hello</button></p>
<p id="spin-out">nothing said yet</p>"#;

const REDIRECTS: &str = r#"<h1>Redirect loops</h1>
<p><a href="/redirects/server?n=0" id="redirects-server" data-action-id="hazards.redirects.server">A server redirect chain that never ends</a></p>
<p><a href="/redirects/client?n=0" id="redirects-client" data-action-id="hazards.redirects.client">A page that sends itself to its next hop, forever</a></p>
<p><button id="redirects-stay" data-action-id="hazards.redirects.stay"
  onclick="document.getElementById('redirects-out').textContent = 'stayed'">Stay here</button></p>
<p id="redirects-out"></p>"#;

fn hop_of(q: &HashMap<String, String>) -> u64 {
    q.get("n").and_then(|n| n.parse().ok()).unwrap_or(0)
}

/// 302 to the next hop, forever (the browser gives up after its own redirect limit).
async fn server_hop(Query(q): Query<HashMap<String, String>>) -> Response {
    let next = format!("/redirects/server?n={}", hop_of(&q) + 1);
    let mut r = StatusCode::FOUND.into_response();
    let h = r.headers_mut();
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Ok(v) = HeaderValue::from_str(&next) {
        h.insert(LOCATION, v);
    }
    r
}

/// A page whose script replaces it with the next hop as soon as it runs, forever.
async fn client_hop(Query(q): Query<HashMap<String, String>>) -> Response {
    let n = hop_of(&q);
    super::page(
        &format!("Hop {n}"),
        "redirects-client",
        &format!(
            "<h1>Hop {n}</h1>\n<p id=\"hop\">This page sends itself on to hop {next}.</p>\n\
             <script>location.replace('/redirects/client?n={next}');</script>",
            next = n + 1
        ),
    )
}

/// Leaving asks twice: `alert` and `confirm` inside `beforeunload` (which browsers refuse
/// to show) and the browser's own "Leave site?" question; `pagehide` alerts too.
const LEAVING: &str = r#"<h1>A page that does not want to be left</h1>
<p>Every way out asks you to stay.</p>
<p><a href="/leaving/next" id="leaving-link" data-action-id="hazards.leaving.link">Leave by a link</a></p>
<p><button id="leaving-script" data-action-id="hazards.leaving.script"
  onclick="location.href = '/leaving/next'">Leave by a script</button></p>
<p><button id="leaving-reload" data-action-id="hazards.leaving.reload" onclick="location.reload()">Reload</button></p>
<p><button id="leaving-stay" data-action-id="hazards.leaving.stay"
  onclick="document.getElementById('leaving-out').textContent = 'still here'">Stay</button></p>
<p id="leaving-out"></p>
<script>
  addEventListener('beforeunload', function (e) {
    try { alert('Do not leave'); } catch (x) { /* refused */ }
    try { confirm('Really leave?'); } catch (x) { /* refused */ }
    e.preventDefault();
    e.returnValue = 'Stay on this page?';
    return 'Stay on this page?';
  });
  addEventListener('pagehide', function () {
    try { alert('Gone'); } catch (x) { /* refused */ }
  });
</script>"#;

const LEFT: &str = r#"<h1>Left</h1>
<p><a href="/leaving" id="leaving-back" data-action-id="hazards.leaving.back">Back to the page that does not want to be left</a></p>"#;

/// The page sets up its controls, then rewrites the builtins a driver's injected scripts
/// lean on: most throw, `JSON.stringify` lies, `Object.keys` sees nothing, and every
/// object and array serializes as "tampered" (as Prototype.js's `toJSON` once did). Its
/// own controls carry no `data-action-id` (recording one uses `Array.prototype.push`) and
/// use none of those builtins after the rewrite, so every error that names one is the
/// driver's. Each control says what it did in `#tampered-out`; the last two get their
/// handler after the rewrite (an `onclick` property, and a timer, a fetch, an XHR and a
/// frame behind them).
const TAMPERED: &str = r#"<h1>Rewritten builtins</h1>
<p>This page rewrites JSON, Object.keys, Array and String methods, Function.prototype.call
and apply, and addEventListener after setting up its own controls.</p>
<p><button id="tampered-listener">A listener added before the rewrite</button>
<span id="tampered-div" style="padding:.3rem;border:1px solid #999">A span with a click listener</span></p>
<p><button id="tampered-timer">Start a timer</button>
<button id="tampered-fetch">Fetch</button>
<button id="tampered-xhr">Send an XHR</button>
<button id="tampered-frame">Ask for a frame</button></p>
<p><button id="tampered-late">A handler set after the rewrite</button></p>
<p id="tampered-out">nothing yet</p>
<script>
(function () {
  var out = document.getElementById('tampered-out');
  function say(t) { out.textContent = t; }
  function on(id, fn) { document.getElementById(id).addEventListener('click', fn); }
  on('tampered-listener', function () { say('listener ran'); });
  on('tampered-div', function () { say('span clicked'); });
  on('tampered-timer', function () { setTimeout(function () { say('timer fired'); }, 10); });
  on('tampered-fetch', function () { fetch('/popup').then(function (r) { say('fetched ' + r.status); }); });
  on('tampered-xhr', function () {
    var x = new XMLHttpRequest();
    x.open('GET', '/popup');
    x.onload = function () { say('xhr ' + x.status); };
    x.send();
  });
  on('tampered-frame', function () { requestAnimationFrame(function () { say('frame ran'); }); });
  function broken(name) {
    return function () { throw new Error('tampered: ' + name + ' is disabled by this page'); };
  }
  var lists = [
    [Array.prototype, 'Array.prototype', ['map', 'filter', 'forEach', 'some', 'every', 'find', 'findIndex',
      'flatMap', 'includes', 'indexOf', 'join', 'slice', 'push', 'unshift', 'concat', 'reduce']],
    [Array, 'Array', ['from', 'isArray']],
    [String.prototype, 'String.prototype', ['trim', 'toLowerCase', 'replace', 'split', 'slice', 'includes', 'startsWith']],
    [Object, 'Object', ['assign']],
    [JSON, 'JSON', ['parse']],
    [EventTarget.prototype, 'EventTarget.prototype', ['addEventListener', 'removeEventListener']]
  ];
  for (var i = 0; i < lists.length; i++) {
    for (var j = 0; j < lists[i][2].length; j++) {
      lists[i][0][lists[i][2][j]] = broken(lists[i][1] + '.' + lists[i][2][j]);
    }
  }
  JSON.stringify = function () { return '"tampered"'; };
  Object.keys = function () { return []; };
  Object.values = function () { return []; };
  Object.entries = function () { return []; };
  Object.prototype.toJSON = function () { return 'tampered'; };
  Array.prototype.toJSON = function () { return 'tampered'; };
  // Last: the loops above needed call-free code only.
  Function.prototype.call = broken('Function.prototype.call');
  Function.prototype.apply = broken('Function.prototype.apply');
  document.getElementById('tampered-late').onclick = function () { say('late handler ran'); };
})();
</script>"#;

const HUGE: &str = r#"<h1>A huge answer</h1>
<p><a href="/huge/stream" id="huge-link" data-action-id="hazards.huge.link">Open a 50 MB page</a></p>
<p><button id="huge-stay" data-action-id="hazards.huge.stay"
  onclick="document.getElementById('huge-out').textContent = 'stayed'">Stay here</button></p>
<p id="huge-out"></p>"#;

/// 50 MB of text inside the hazards layout, streamed in 64 KB chunks of one paragraph
/// each (one growing `<pre>` made Chromium lay out all of it again and again: ~1.5 MB/s).
async fn huge_stream() -> Response {
    static CHUNK: std::sync::OnceLock<Bytes> = std::sync::OnceLock::new();
    let chunk = CHUNK
        .get_or_init(|| {
            let line =
                "All work and no play makes a very long page; the driver must not read it all.\n";
            let mut s = String::with_capacity(HUGE_CHUNK);
            s.push_str("<p>");
            while s.len() + line.len() + 5 <= HUGE_CHUNK {
                s.push_str(line);
            }
            while s.len() + 5 < HUGE_CHUNK {
                s.push('.');
            }
            s.push_str("</p>\n");
            Bytes::from(s)
        })
        .clone();
    let page = fill(
        super::LAYOUT,
        &[
            ("title", "A 50 MB page"),
            ("page", "huge-stream"),
            ("body", BODY_MARK),
        ],
    );
    let (head, tail) = page.split_once(BODY_MARK).unwrap_or((&page, ""));
    let head = Bytes::from(format!(
        "{head}<h1>A 50 MB page</h1>\n<div id=\"huge-text\">\n"
    ));
    let tail = Bytes::from(format!("</div>{tail}"));
    let chunks = HUGE_BYTES / HUGE_CHUNK;
    let parts = std::iter::once(head)
        .chain(std::iter::repeat_n(chunk, chunks))
        .chain(std::iter::once(tail))
        .map(Ok::<_, std::convert::Infallible>);
    let mut r = (
        StatusCode::OK,
        Body::from_stream(futures::stream::iter(parts)),
    )
        .into_response();
    let h = r.headers_mut();
    h.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}
