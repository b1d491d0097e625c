// wayfarer test-app instrumentation: every control with a data-action-id logs that id into
// window.__wfActions when it is used. Clicks are logged for clickables, "change" for
// text fields and selects. The log survives page loads through sessionStorage, so it
// covers the whole session (clearing storage resets it).
(function () {
  'use strict';
  var KEY = '__wfActions';
  var log = [];
  try {
    log = JSON.parse(window.sessionStorage.getItem(KEY) || '[]');
    if (!Array.isArray(log)) { log = []; }
  } catch (e) {
    log = [];
  }
  window.__wfActions = log;

  function save() {
    try { window.sessionStorage.setItem(KEY, JSON.stringify(log)); } catch (e) { /* storage off */ }
  }

  function record(id) {
    if (!id) { return; }
    log.push(id);
    save();
  }
  window.__wfRecord = record;

  var CLICK_INPUTS = { button: 1, submit: 1, reset: 1, image: 1, checkbox: 1, radio: 1 };

  function isField(el) {
    var tag = el.tagName;
    if (tag === 'SELECT' || tag === 'TEXTAREA') { return true; }
    if (tag === 'INPUT') { return !CLICK_INPUTS[(el.type || 'text').toLowerCase()]; }
    return false;
  }

  function target(ev) {
    // composedPath()[0] is the real target, also inside open shadow roots.
    var path = ev.composedPath ? ev.composedPath() : [];
    var t = path.length ? path[0] : ev.target;
    if (!t || !t.closest) { return null; }
    return t.closest('[data-action-id]');
  }

  document.addEventListener('click', function (ev) {
    var el = target(ev);
    if (el && !isField(el)) { record(el.getAttribute('data-action-id')); }
  }, true);

  document.addEventListener('change', function (ev) {
    var el = target(ev);
    if (el && isField(el)) { record(el.getAttribute('data-action-id')); }
  }, true);
})();
