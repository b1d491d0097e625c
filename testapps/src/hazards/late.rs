//! A start page that renders late, as a notebook application restoring its workspace
//! does: the document loads with nothing to act on, and the interface appears
//! [`LATE_RENDER_MS`] after the load event, from one timer, with no request meanwhile (the
//! page looks stable to a driver long before). What it shows comes from `localStorage`,
//! and leaving it asks "Leave site?" (a `beforeunload` handler).

use axum::response::Response;
use axum::routing::get;
use axum::Router;

use crate::common;

/// How long after its load event `/late` shows its interface.
pub const LATE_RENDER_MS: u64 = 2_000;

pub(super) fn router() -> Router {
    Router::new().route("/late", get(late))
}

async fn late() -> Response {
    common::html(LATE.replace("__DELAY__", &LATE_RENDER_MS.to_string()))
}

/// No layout (its index link would be something to act on at once): until the timer
/// fires the page holds a heading and a paragraph only. The workspace is a list of cells
/// saved on every change; "Reload" leaves through the "Leave site?" question.
const LATE: &str = r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>A workspace that renders late</title>
<script src="/static/wf.js"></script>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:50rem}button{margin:.25rem}</style>
</head>
<body data-page="late">
<h1>Workspace</h1>
<p id="late-status">Restoring your workspace…</p>
<div id="late-app"></div>
<script>
(function () {
  var KEY = 'late.workspace';
  function load() {
    try { return JSON.parse(localStorage.getItem(KEY)) || []; } catch (e) { return []; }
  }
  function save(cells) { localStorage.setItem(KEY, JSON.stringify(cells)); }
  function render() {
    var cells = load();
    var app = document.getElementById('late-app');
    app.textContent = '';
    var bar = document.createElement('p');
    function button(id, text, fn) {
      var b = document.createElement('button');
      b.id = id;
      b.textContent = text;
      b.setAttribute('data-action-id', 'hazards.late.' + id.replace('late-', ''));
      b.addEventListener('click', fn);
      bar.appendChild(b);
    }
    button('late-add', 'Add cell', function () { cells.push(''); save(cells); render(); });
    button('late-clear', 'Clear workspace', function () { save([]); render(); });
    button('late-reload', 'Reload', function () { location.reload(); });
    app.appendChild(bar);
    cells.forEach(function (text, i) {
      var t = document.createElement('textarea');
      t.id = 'late-cell-' + i;
      t.setAttribute('aria-label', 'Cell ' + (i + 1));
      t.value = text;
      t.addEventListener('input', function () { cells[i] = t.value; save(cells); });
      app.appendChild(t);
    });
    document.getElementById('late-status').textContent =
      cells.length + ' cell(s) restored';
  }
  addEventListener('load', function () { setTimeout(render, __DELAY__); });
  addEventListener('beforeunload', function (e) {
    e.preventDefault();
    e.returnValue = 'Leave the workspace?';
    return 'Leave the workspace?';
  });
})();
</script>
</body>
</html>
"#;
