// Task board: helpers shared by every page. The controls of this app are bare divs and
// spans whose handlers are attached with addEventListener: no links, no buttons, no ARIA,
// no tab order and the default cursor, so only their behaviour says they are clickable.
(function () {
  'use strict';
  var B = window.BoardApp = {};
  B.BUGS = window.WF_BUGS === true;
  B.PAGE = document.body.getAttribute('data-page');

  B.$ = function (sel, root) { return (root || document).querySelector(sel); };
  B.all = function (sel, root) {
    return Array.prototype.slice.call((root || document).querySelectorAll(sel));
  };

  // el('div', 'ctl', 'Save', 'board.composer.save'): text goes in as text, never as HTML.
  B.el = function (tag, cls, text, actionId) {
    var n = document.createElement(tag);
    if (cls) { n.className = cls; }
    if (text !== null && text !== undefined) { n.textContent = text; }
    if (actionId) { n.setAttribute('data-action-id', actionId); }
    return n;
  };

  // The board-delegated build (window.WF_DELEGATED) gives controls no listener of their
  // own: one listener per event type on the document finds the control by its data-ctl
  // attribute, as component libraries delegate events, so nothing on the node says it acts.
  B.DELEGATED = window.WF_DELEGATED === true;
  var HANDLERS = '__wfHandlers';
  B.on = function (node, type, handler) {
    if (!B.DELEGATED) { node.addEventListener(type, handler); return; }
    node.setAttribute('data-ctl', '');
    node[HANDLERS] = node[HANDLERS] || {};
    node[HANDLERS][type] = handler;
  };
  if (B.DELEGATED) {
    ['click', 'dblclick'].forEach(function (type) {
      document.addEventListener(type, function (ev) {
        var t = ev.target instanceof Element ? ev.target.closest('[data-ctl]') : null;
        var h = t && t[HANDLERS] && t[HANDLERS][type];
        if (h) { h.call(t, ev); }
      });
    });
  }

  // A clickable div or span: just an element with a click listener (or a delegated one).
  B.ctl = function (tag, cls, text, actionId, handler) {
    var n = B.el(tag, cls, text, actionId);
    B.on(n, 'click', handler);
    return n;
  };

  // The abstract screen for the ground truth (see testapps/README.md).
  B.setState = function (s) { document.body.setAttribute('data-wf-state', s); };

  B.notice = function (msg) {
    var n = B.$('#notice');
    if (n) { n.textContent = msg || ''; }
  };

  // Requests run one after another, so the server sees changes in the order they were
  // made; leaving the page waits for them.
  var queue = Promise.resolve();

  B.go = function (href) {
    queue.then(function () { window.location.href = href; });
  };

  // POSTs form fields and always resolves to {ok, ...}: a 500 page is not JSON, and a
  // rejected promise would be a second, unrelated failure.
  B.post = function (url, fields) {
    var body = new URLSearchParams(fields || {});
    queue = queue.then(function () {
      return fetch(url, { method: 'POST', body: body, credentials: 'same-origin' })
        .then(function (r) {
          var type = r.headers.get('content-type') || '';
          if (type.indexOf('application/json') === 0) { return r.json(); }
          return { ok: false, error: 'Something went wrong (HTTP ' + r.status + ').' };
        })
        .catch(function () { return { ok: false, error: 'The server did not answer.' }; });
    });
    return queue;
  };

  // For changes already shown on screen: only a refusal needs saying.
  B.report = function (res) {
    if (!res.ok) { B.notice(res.error); }
  };

  // Enter and Escape in a text field act like its Save and Cancel controls.
  B.keys = function (input, onEnter, onEscape) {
    input.addEventListener('keydown', function (ev) {
      if (ev.key === 'Enter') { ev.preventDefault(); onEnter(); }
      else if (ev.key === 'Escape') { onEscape(); }
    });
  };
})();
