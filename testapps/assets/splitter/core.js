// Splitter client, part 1 of 4: shared helpers (DOM, money, dates, the JSON API).
// Deterministic on purpose: no randomness, no clock; "today" is fixed at 15.03.2024.
(function () {
  'use strict';
  var SPL = window.SPL = { screens: {}, seq: 0 };
  SPL.BUGS = window.WF_BUGS === true;
  SPL.TODAY = '15.03.2024';
  // The start screen's data come inlined in the page; later visits fetch them.
  SPL.store = { group: null, groups: window.SPLITTER_GROUPS || null };

  SPL.el = function (tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) { e.textContent = text; }
    return e;
  };

  SPL.tpl = function (name) {
    var box = document.createElement('div');
    box.appendChild(document.getElementById('tpl-' + name).content.cloneNode(true));
    return box;
  };

  // Replaces the screen and records the abstract state the ground truth talks about.
  SPL.show = function (state, title, node) {
    var view = document.getElementById('view');
    view.textContent = '';
    while (node.firstChild) { view.appendChild(node.firstChild); }
    document.body.dataset.wfState = state;
    document.title = title + ' · Splitter';
  };

  SPL.money = function (cents) {
    var neg = cents < 0;
    var c = Math.abs(cents);
    var whole = String(Math.floor(c / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    var frac = String(c % 100);
    return (neg ? '-' : '') + '$' + whole + '.' + (frac.length < 2 ? '0' + frac : frac);
  };

  SPL.setError = function (root, field, msg) {
    var e = root.querySelector('[data-error-for="' + field + '"]');
    if (e) { e.textContent = msg || ''; }
  };

  SPL.clearErrors = function (root) {
    root.querySelectorAll('[data-error-for]').forEach(function (e) { e.textContent = ''; });
  };

  // Runs fn in its own task: a failure while drawing after a request is then an uncaught
  // exception, as in an event handler, not an unhandled promise rejection.
  SPL.later = function (fn) { setTimeout(fn, 0); };

  // JSON request; resolves {status, data} and never rejects (status 0: network failure).
  SPL.api = function (method, path, body) {
    var opts = { method: method, credentials: 'same-origin', headers: {} };
    if (body !== undefined) {
      opts.body = JSON.stringify(body);
      opts.headers['Content-Type'] = 'application/json';
    }
    return fetch(path, opts).then(function (r) {
      return r.text().then(function (t) {
        var data = null;
        try { data = JSON.parse(t); } catch (e) { data = null; }
        return { status: r.status, data: data };
      });
    }).catch(function () { return { status: 0, data: null }; });
  };

  // GET for the screen of route number `my`; drops the answer if the user moved on.
  SPL.load = function (path, my, fn) {
    SPL.api('GET', path).then(function (r) {
      SPL.later(function () {
        if (my !== SPL.seq) { return; }
        if (r.status !== 200) { SPL.screens.not_found(); return; }
        fn(r.data);
      });
    });
  };

  // ---- dates: DD.MM.YYYY only ----------------------------------------------------------
  // February may have 29 days here: leap years are left to the server.
  var DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

  SPL.dateKey = function (s) { return Number(s.slice(6, 10) + s.slice(3, 5) + s.slice(0, 2)); };

  SPL.daysAgo = function (s) {
    var then = Date.UTC(Number(s.slice(6, 10)), Number(s.slice(3, 5)) - 1, Number(s.slice(0, 2)));
    return Math.round((Date.UTC(2024, 2, 15) - then) / 86400000);
  };

  // The inline message for a date ('' when it is fine); noFuture refuses dates after today.
  SPL.dateError = function (text, noFuture) {
    var s = text.trim();
    if (!s) { return 'Date is required'; }
    var m = /^(\d{2})\.(\d{2})\.(\d{4})$/.exec(s);
    if (!m) { return 'Use the format DD.MM.YYYY, e.g. 15.03.2024'; }
    var d = Number(m[1]);
    var mo = Number(m[2]);
    var y = Number(m[3]);
    if (y < 2000 || y > 2099) { return 'The year must be between 2000 and 2099'; }
    if (mo < 1 || mo > 12 || d < 1 || d > DAYS[mo - 1]) { return 'There is no such day: ' + s; }
    if (noFuture && SPL.dateKey(s) > SPL.dateKey(SPL.TODAY)) {
      return 'The date must not be after today, ' + SPL.TODAY;
    }
    return '';
  };

  // {cents} or {error}: a positive amount with at most two decimals, at most 100000.
  SPL.parseAmount = function (text) {
    var s = text.trim();
    if (!s) { return { error: 'Amount is required' }; }
    if (!/^\d+(\.\d{1,2})?$/.test(s)) { return { error: 'Enter an amount like 12.50 (at most two decimals)' }; }
    var parts = s.split('.');
    if (parts[0].length > 6) { return { error: 'Amount must be at most 100000' }; }
    var cents = Number(parts[0]) * 100 + Number(((parts[1] || '') + '00').slice(0, 2));
    if (cents <= 0) { return { error: 'Amount must be greater than 0' }; }
    if (cents > 10000000) { return { error: 'Amount must be at most 100000' }; }
    return { cents: cents };
  };

  // Splits cents equally; the first shares get the remaining cents (as the server does).
  SPL.shares = function (cents, n) {
    var out = [];
    for (var i = 0; i < n; i++) { out.push(Math.floor(cents / n) + (i < cents % n ? 1 : 0)); }
    return out;
  };

  // Balance list items ("Ann  +$111.00") shared by the group and settle screens.
  SPL.balanceItems = function (ul, g) {
    g.members.forEach(function (name, i) {
      var b = g.balances[i];
      var li = SPL.el('li', { 'class': b > 0 ? 'pos' : (b < 0 ? 'neg' : 'zero') });
      li.appendChild(SPL.el('span', { 'class': 'who' }, name));
      li.appendChild(SPL.el('span', { 'class': 'num' }, (b > 0 ? '+' : '') + SPL.money(b)));
      ul.appendChild(li);
    });
  };
})();
