//! Pages for wayfarer's built-in page checks, each alone (no links out) in two builds:
//! `/checks/{check}/bad` trips the check and `/checks/{check}/good` is a page a careless
//! check would trip but which is fine.
//!
//! - `placeholder`: "Total: NaN" on load, "Hello, undefined!" after a click (good: real
//!   values; "null" and "NaN" in code, "undefined" in a sentence of prose, and a filter's
//!   "is null" and "is not null", as Datasette offers them; release notes as TiddlyWiki's,
//!   where a link cuts a sentence into short texts and a word is quoted).
//! - `image`: an image that answers 404 and one that is not an image (good: a real
//!   image, an SVG without a size, a fetch that answers 404).
//! - `ids`: two buttons with the same id (good: unique ids; two plain divs share one).
//! - `names`: a text field and a select without a name (good: every way of naming one).
//! - `error`: a notebook whose kernel fails on every run, a traceback of its own code
//!   (good: a wiki's prose that mentions errors, and a notebook answering a name the
//!   user typed with a NameError that quotes it).

use axum::extract::Path;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use crate::common;

/// The checks with a page here, as named in the path.
pub const CHECK_PAGES: [&str; 5] = ["placeholder", "image", "ids", "names", "error"];

/// A 1x1 GIF.
const PIXEL: [u8; 42] = [
    71, 73, 70, 56, 57, 97, 1, 0, 1, 0, 128, 0, 0, 0, 0, 0, 255, 255, 255, 33, 249, 4, 1, 0, 0, 0,
    0, 44, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 1, 68, 0, 59,
];

pub(super) fn router() -> Router {
    Router::new()
        .route("/checks/{check}/{build}", get(checks))
        .route("/checks/files/pixel.gif", get(pixel))
        .route(
            "/checks/files/not-an-image.png",
            get(|| async {
                common::typed(StatusCode::OK, "image/png", "this is not an image")
            }),
        )
        .route(
            "/checks/files/icon.svg",
            get(|| async {
                common::typed(
                    StatusCode::OK,
                    "image/svg+xml",
                    r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>"#,
                )
            }),
        )
}

async fn pixel() -> Response {
    (
        StatusCode::OK,
        [(CONTENT_TYPE, "image/gif"), (CACHE_CONTROL, "no-store")],
        PIXEL.to_vec(),
    )
        .into_response()
}

async fn checks(Path((check, build)): Path<(String, String)>) -> Response {
    let good = match build.as_str() {
        "good" => true,
        "bad" => false,
        _ => return common::html_status(StatusCode::NOT_FOUND, "no such build".into()),
    };
    let (title, body) = match (check.as_str(), good) {
        ("placeholder", false) => ("Your order", PLACEHOLDER_BAD),
        ("placeholder", true) => ("Your order", PLACEHOLDER_GOOD),
        ("image", false) => ("Gallery", IMAGE_BAD),
        ("image", true) => ("Gallery", IMAGE_GOOD),
        ("ids", false) => ("Editor", IDS_BAD),
        ("ids", true) => ("Editor", IDS_GOOD),
        ("names", false) => ("Search", NAMES_BAD),
        ("names", true) => ("Search", NAMES_GOOD),
        ("error", false) => ("sales.ipynb", ERROR_BAD),
        ("error", true) => ("Deploying under Apache", ERROR_GOOD),
        _ => return common::html_status(StatusCode::NOT_FOUND, "no such check".into()),
    };
    common::html(format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title></head>\n<body data-page=\"checks\">\n{body}\n</body></html>"
    ))
}

const PLACEHOLDER_BAD: &str = r#"<h1>Your order</h1>
<p>Total: <span id="total"></span></p>
<button id="greet">Greet me</button>
<p id="hello"></p>
<script>
const order = { lines: [] };
document.getElementById('total').textContent = String(order.lines.reduce((s, l) => s + l.price, 0) / order.lines.length);
document.getElementById('greet').addEventListener('click', () => {
  document.getElementById('hello').textContent = 'Hello, ' + order.customer + '!';
});
</script>"#;

const PLACEHOLDER_GOOD: &str = r##"<h1>Your order</h1>
<p>Total: <span id="total">12.50</span></p>
<button id="greet">Greet me</button>
<p id="hello"></p>
<p>The API returns an empty list when the order is undefined, never an error page.</p>
<p>In the export, a missing price is written <code>null</code>; a bad one <code>NaN</code>.</p>
<pre>total = NaN  // what the old version printed</pre>
<label>Lines where the note <select name="op"><option>=</option><option>is null</option><option>is not null</option></select></label>
<h2>Changes</h2>
<ul><li><a href="#fix-1">Fixed</a> not to return "null" for an empty list</li>
<li><a href="#fix-2">Fixed</a> the sort of undefined titles in lists</li>
<li>issue with <code>e.toggle</code> being undefined with <a href="#cm">CodeMirror</a> keymaps</li></ul>
<script>
document.getElementById('greet').addEventListener('click', () => {
  document.getElementById('hello').textContent = 'Hello, Ada!';
});
</script>"##;

const IMAGE_BAD: &str = r#"<h1>Gallery</h1>
<img src="/checks/files/missing.png" alt="Logo" width="40" height="40">
<img src="/checks/files/not-an-image.png" alt="Chart" width="40" height="40">
<button id="next">Next</button>"#;

const IMAGE_GOOD: &str = r#"<h1>Gallery</h1>
<img src="/checks/files/pixel.gif" alt="Pixel" width="40" height="40">
<img src="/checks/files/icon.svg" alt="Icon">
<button id="next">Next</button>
<p id="status"></p>
<script>
document.getElementById('next').addEventListener('click', async () => {
  // An API answering 404 is the application's business (http_4xx), not a broken page.
  const r = await fetch('/checks/api/missing');
  document.getElementById('status').textContent = r.ok ? 'more' : 'no more pictures';
});
</script>"#;

const IDS_BAD: &str = r#"<h1>Editor</h1>
<textarea aria-label="Text"></textarea>
<button id="save">Save draft</button>
<button id="save">Save and publish</button>
<p id="saved"></p>
<script>
for (const b of document.querySelectorAll('button')) {
  b.addEventListener('click', () => { document.getElementById('saved').textContent = b.textContent + ': done'; });
}
</script>"#;

const IDS_GOOD: &str = r#"<h1>Editor</h1>
<textarea aria-label="Text"></textarea>
<button id="save-draft">Save draft</button>
<button id="save-publish">Save and publish</button>
<div id="panel">Drafts</div>
<div id="panel">Published</div>
<p id="saved"></p>
<script>
for (const b of document.querySelectorAll('button')) {
  b.addEventListener('click', () => { document.getElementById('saved').textContent = b.textContent + ': done'; });
}
</script>"#;

const NAMES_BAD: &str = r#"<h1>Search</h1>
<form onsubmit="event.preventDefault(); document.getElementById('out').textContent = 'searched';">
  <input type="text" id="q">
  <select id="where"><option>Everywhere</option><option>Titles</option></select>
  <button type="submit">Search</button>
</form>
<p id="out"></p>"#;

const NAMES_GOOD: &str = r#"<h1>Search</h1>
<form onsubmit="event.preventDefault(); document.getElementById('out').textContent = 'searched';">
  <label for="q">Words</label> <input type="text" id="q">
  <label>Where <select id="where"><option>Everywhere</option><option>Titles</option></select></label>
  <input type="text" aria-label="Author">
  <span id="year-label">Year</span> <input type="number" aria-labelledby="year-label">
  <input type="text" placeholder="Tag">
  <input type="email" title="E-mail">
  <input type="hidden" name="token" value="x">
  <input type="submit" value="Search">
</form>
<p id="out"></p>"#;

/// The kernel's own fault, whatever the cell holds: the traceback names its code, never
/// the cell's, and the cell echoed above it changes with what was run.
const ERROR_BAD: &str = r#"<h1>sales.ipynb</h1>
<p>Kernel: Python 3</p>
<div class="cell">
  <pre class="input" id="ran"></pre>
  <pre class="output" id="out"></pre>
</div>
<label>Code <textarea id="code" rows="2">total(sales)</textarea></label>
<button id="run">Run</button>
<script>
let runs = 0;
function run() {
  runs += 1;
  document.getElementById('ran').textContent = 'In [' + runs + ']: ' + document.getElementById('code').value;
  document.getElementById('out').textContent = 'Traceback (most recent call last):\n' +
    '  File "/srv/kernel/session.py", line 88, in execute\n' +
    '    reply = self.shell.run(code, store=self.history[-1])\n' +
    'IndexError: list index out of range';
}
document.getElementById('run').addEventListener('click', run);
run();
</script>"#;

/// A wiki's documentation, whose prose mentions errors (quoted, in inline code, inside a
/// sentence), and a notebook cell: a name typed and run is answered with a NameError
/// quoting it, as a kernel does.
const ERROR_GOOD: &str = r##"<nav><a href="#install">Install</a> | <a href="#try">Try it</a></nav>
<h1>Deploying under Apache</h1>
<p id="install">Install the package with pip, then point <code>WSGIScriptAlias</code> at the
<code>app.wsgi</code> file of the release and restart Apache. The application needs write
access to its cache directory and to the directory that holds the uploaded files.</p>
<p>On Debian Lenny, running the application under mod_wsgi gave an Internal Server Error on my
system... Upgrading to Python 2.6.2 solved this.</p>
<ul>
<li>If the log shows a Traceback (most recent call last), read it from the bottom up: the last
line names the error.</li>
<li>The message "Internal Server Error" alone says nothing; the server's log says why.</li>
<li>Older releases raised an <code>Unhandled exception</code> when the cache was not writable.</li>
</ul>
<p>Once it runs, open the front page and sign in with the account made at install time; the
settings page lists what can be changed without a restart.</p>
<h2 id="try">Try it</h2>
<div class="cell">
  <label>Code <textarea id="code" rows="2"></textarea></label>
  <button id="run">Run</button>
  <pre class="output" id="out"></pre>
</div>
<script>
const DASHES = '-'.repeat(75);
document.getElementById('run').addEventListener('click', () => {
  const code = document.getElementById('code').value.trim();
  const out = document.getElementById('out');
  if (!code || /^-?\d+(\.\d+)?$/.test(code)) { out.textContent = code; return; }
  if (/^[A-Za-z_]\w*$/.test(code)) {
    out.textContent = DASHES + '\nNameError                                 Traceback (most recent call last)\n' +
      'Cell In[1], line 1\n----> 1 ' + code + '\n\nNameError: name \'' + code + '\' is not defined';
    return;
  }
  out.textContent = '  Cell In[1], line 1\n    ' + code.split('\n')[0] + '\n    ^\nSyntaxError: invalid syntax';
});
</script>"##;
