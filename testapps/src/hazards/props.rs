//! Pages for the examples of Bombadil's manual (`testapps/specs/`), each alone (no links
//! out) in two builds: `/props/{example}/bad` violates the example's property and
//! `/props/{example}/good` satisfies it whatever is clicked or typed, in any order.
//!
//! - `notifications`: never more than five `.notification`s (bad: no cap).
//! - `constant`: the `.notification` count never changes (bad: a button adds one).
//! - `error`: an `.error` disappears within 5 s (bad: it stays until the page reloads).
//! - `name`: a submission's notification names what was entered (bad: "Saved.").
//! - `counter`: `#counter` only moves by one (bad: every third "+" adds two).
//! - `canvas`: a canvas that only a spec's action generator clicks (no control the
//!   explorer finds reacts to it); at most three marks on it (bad: no cap).
//! - `board`: for Bombadil 0.7's actions: a double click on the board selects it, the
//!   Delete key then clears it; fewer than three "cleared" entries in the tab's history
//!   (bad: each clearing pushes one; good: the address never changes).

use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use crate::common;

/// The examples with a page here, as named in the path.
pub const PROP_PAGES: [&str; 7] = [
    "notifications",
    "constant",
    "error",
    "name",
    "counter",
    "canvas",
    "board",
];

pub(super) fn router() -> Router {
    Router::new().route("/props/{example}/{build}", get(props))
}

async fn props(Path((example, build)): Path<(String, String)>) -> Response {
    let good = match build.as_str() {
        "good" => true,
        "bad" => false,
        _ => return common::html_status(StatusCode::NOT_FOUND, "no such build".into()),
    };
    let (title, body) = match example.as_str() {
        "notifications" => ("Notifications", NOTIFICATIONS),
        "constant" => ("Two notices", CONSTANT),
        "error" => ("Save", ERROR),
        "name" => ("Your name", NAME),
        "counter" => ("Counter", COUNTER),
        "canvas" => ("Canvas", CANVAS),
        "board" => ("Board", BOARD),
        _ => return common::html_status(StatusCode::NOT_FOUND, "no such example".into()),
    };
    common::html(
        PAGE.replace("{{title}}", title)
            .replace("{{body}}", body)
            .replace("{{good}}", if good { "true" } else { "false" }),
    )
}

const PAGE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{title}}</title></head>
<body data-page="props">
<script>const GOOD = {{good}};</script>
{{body}}
</body></html>"#;

const NOTIFICATIONS: &str = r#"<h1>Notifications</h1>
<button id="notify">Notify</button>
<button id="dismiss">Dismiss the oldest</button>
<div id="list"></div>
<script>
let n = 0;
const list = document.getElementById('list');
document.getElementById('notify').addEventListener('click', () => {
  n += 1;
  const d = document.createElement('div');
  d.className = 'notification';
  d.textContent = 'Notice ' + n;
  list.appendChild(d);
  // The good build keeps the newest five.
  while (GOOD && list.children.length > 5) list.firstElementChild.remove();
});
// The bad build cannot dismiss: only the good one needs a way down.
document.getElementById('dismiss').addEventListener('click', () => {
  if (GOOD && list.firstElementChild) list.firstElementChild.remove();
});
</script>"#;

const CONSTANT: &str = r#"<h1>Two notices</h1>
<div id="list"><div class="notification">Maintenance on Sunday</div><div class="notification">New prices from May</div></div>
<button id="refresh">Refresh the notices</button>
<button id="shade">Change the shade</button>
<p id="shade-name">Shade: light</p>
<script>
const list = document.getElementById('list');
document.getElementById('refresh').addEventListener('click', () => {
  const texts = [...list.children].map((c) => c.textContent);
  list.textContent = '';
  for (const t of texts) {
    const d = document.createElement('div');
    d.className = 'notification';
    d.textContent = t;
    list.appendChild(d);
  }
  if (!GOOD) {
    const d = document.createElement('div');
    d.className = 'notification';
    d.textContent = 'Refreshed';
    list.appendChild(d);
  }
});
document.getElementById('shade').addEventListener('click', () => {
  const p = document.getElementById('shade-name');
  p.textContent = p.textContent.endsWith('light') ? 'Shade: dark' : 'Shade: light';
});
</script>"#;

const ERROR: &str = r#"<h1>Save</h1>
<button id="save">Save</button>
<button id="ping">Ping</button>
<p id="pings">No pings yet.</p>
<div id="messages"></div>
<script>
let pings = 0;
const save = document.getElementById('save');
save.addEventListener('click', () => {
  if (document.querySelector('.error')) return;
  const e = document.createElement('p');
  e.className = 'error';
  e.textContent = 'Could not save: the disk is full.';
  document.getElementById('messages').appendChild(e);
  // The good build takes the message down after a second.
  if (GOOD) {
    save.disabled = true;
    setTimeout(() => { e.remove(); save.disabled = false; }, 1000);
  }
});
document.getElementById('ping').addEventListener('click', () => {
  pings += 1;
  document.getElementById('pings').textContent = pings + ' pings.';
});
</script>"#;

const NAME: &str = r#"<h1>Your name</h1>
<label for="name-field">Name</label> <input id="name-field" name="name" type="text">
<button id="submit">Submit</button>
<div id="status"></div>
<script>
const submit = document.getElementById('submit');
const statusBox = document.getElementById('status');
// The good build keeps the last submission across a reload (a back on this page reloads
// it), so a save in progress is never lost; the bad one names nobody anyway.
const KEY = 'wayfarer-props-name';
function show(name) {
  statusBox.textContent = '';
  const note = document.createElement('div');
  note.className = 'notification';
  note.textContent = GOOD ? 'Saved ' + name : 'Saved.';
  statusBox.appendChild(note);
}
if (GOOD && sessionStorage.getItem(KEY) !== null) show(sessionStorage.getItem(KEY));
const field = document.getElementById('name-field');
submit.addEventListener('click', () => {
  const name = field.value;
  if (GOOD) sessionStorage.setItem(KEY, name);
  // While it saves, the name cannot change: the name entered is the name saved.
  submit.disabled = true;
  field.disabled = true;
  const progress = document.createElement('submit');
  progress.className = 'progress';
  progress.textContent = 'Saving...';
  statusBox.textContent = '';
  statusBox.appendChild(progress);
  // Longer than a stability wait's short timers: the state in progress is captured.
  setTimeout(() => {
    show(name);
    submit.disabled = false;
    field.disabled = false;
  }, 800);
});
</script>"#;

const COUNTER: &str = r#"<h1>Counter</h1>
<button id="dec">-</button> <span id="counter">0</span> <button id="inc">+</button>
<script>
const counter = document.getElementById('counter');
const value = () => parseInt(counter.textContent, 10);
let presses = 0;
document.getElementById('inc').addEventListener('click', () => {
  // The bad build counts every third press twice.
  presses += 1;
  counter.textContent = String(value() + (!GOOD && presses % 3 === 0 ? 2 : 1));
});
document.getElementById('dec').addEventListener('click', () => {
  counter.textContent = String(value() - 1);
});
</script>"#;

const CANVAS: &str = r#"<h1>Canvas</h1>
<canvas id="my-canvas" width="300" height="150" style="border: 1px solid #888"></canvas>
<p id="marks" data-count="0">Marks: 0</p>
<button id="help" aria-expanded="false">Help</button>
<p id="help-text" hidden>Click the canvas to leave a mark.</p>
<script>
const canvas = document.getElementById('my-canvas');
const marks = document.getElementById('marks');
// Delegated from the document, as drawing apps often do: nothing marks the canvas as
// clickable, so only a generator that knows where it is clicks it.
document.addEventListener('click', (e) => {
  const r = canvas.getBoundingClientRect();
  if (e.clientX < r.left || e.clientX > r.right || e.clientY < r.top || e.clientY > r.bottom) return;
  const n = Number(marks.dataset.count);
  // The good build keeps three marks at most.
  if (GOOD && n >= 3) return;
  const ctx = canvas.getContext('2d');
  ctx.fillRect(20 + n * 30, 60, 20, 20);
  marks.dataset.count = String(n + 1);
  marks.textContent = 'Marks: ' + (n + 1);
});
document.getElementById('help').addEventListener('click', (e) => {
  const t = document.getElementById('help-text');
  t.hidden = !t.hidden;
  e.currentTarget.setAttribute('aria-expanded', String(!t.hidden));
});
</script>"#;

const BOARD: &str = r#"<h1>Board</h1>
<canvas id="board" width="300" height="150" style="border: 1px solid #888"></canvas>
<p id="status" data-selected="false" data-cleared="0">Double-click the board, then press Delete.</p>
<script>
const board = document.getElementById('board');
const status = document.getElementById('status');
// Listeners on the document, as drawing apps often have: nothing marks the board as a
// control, so only a generator that knows where it is double-clicks it.
document.addEventListener('dblclick', (e) => {
  const r = board.getBoundingClientRect();
  if (e.clientX < r.left || e.clientX > r.right || e.clientY < r.top || e.clientY > r.bottom) return;
  status.dataset.selected = 'true';
  status.textContent = 'Selected: press Delete to clear.';
});
document.addEventListener('keydown', (e) => {
  if (e.key !== 'Delete' || status.dataset.selected !== 'true') return;
  const n = Number(status.dataset.cleared) + 1;
  status.dataset.selected = 'false';
  status.dataset.cleared = String(n);
  status.textContent = 'Cleared ' + n + ' times.';
  board.getContext('2d').clearRect(0, 0, board.width, board.height);
  // The bad build pushes a history entry per clearing; the good one keeps its address.
  if (!GOOD) history.pushState({}, '', '#cleared-' + n);
});
</script>"#;
