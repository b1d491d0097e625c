// Expense tracker client code. Page set-up is small; most of the code runs only when the
// user does something (validation, filtering, reports, the budget wizard).
(function () {
  'use strict';
  var BUGS = window.WF_BUGS === true;
  var PAGE = document.body.getAttribute('data-page');

  function $(sel) { return document.querySelector(sel); }

  function setError(name, msg) {
    var el = document.querySelector('[data-error-for="' + name + '"]');
    if (el) { el.textContent = msg || ''; }
  }

  function money(cents) {
    var neg = cents < 0;
    var c = Math.abs(Math.round(cents));
    var whole = String(Math.floor(c / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    var frac = String(c % 100);
    return (neg ? '-' : '') + '$' + whole + '.' + (frac.length < 2 ? '0' + frac : frac);
  }

  function toCents(text) {
    if (!/^\d+(\.\d{1,2})?$/.test(String(text).trim())) { return NaN; }
    return Math.round(parseFloat(text) * 100);
  }

  // ---- login -------------------------------------------------------------------------
  function initLogin() {
    $('#demo-fill').addEventListener('click', function () {
      $('#email').value = 'demo@example.com';
      $('#password').value = 'demo1234';
      setError('email', '');
      setError('password', '');
      setError('login', '');
    });
    $('#login-form').addEventListener('submit', function (ev) {
      var ok = true;
      if (!$('#email').value.trim()) { setError('email', 'E-mail is required'); ok = false; }
      if (!$('#password').value) { setError('password', 'Password is required'); ok = false; }
      if (!ok) { ev.preventDefault(); }
    });
  }

  // ---- registration ------------------------------------------------------------------
  function strength(p) {
    var score = 0;
    if (p.length >= 8) { score++; }
    if (/[A-Z]/.test(p) && /[a-z]/.test(p)) { score++; }
    if (/\d/.test(p)) { score++; }
    if (/[^A-Za-z0-9]/.test(p)) { score++; }
    return ['Too weak', 'Weak', 'Fair', 'Good', 'Strong'][score];
  }

  function initRegister() {
    var pw = $('#password');
    var confirm = $('#confirm');
    pw.addEventListener('input', function () {
      $('#strength').textContent = pw.value ? 'Strength: ' + strength(pw.value) : '';
    });
    confirm.addEventListener('input', function () {
      var bad = confirm.value && confirm.value !== pw.value;
      setError('confirm', bad ? 'Passwords do not match' : '');
    });
  }

  // ---- dashboard ---------------------------------------------------------------------
  function initDashboard() {
    var filter = $('#filter');
    filter.addEventListener('input', function () {
      var q = filter.value.trim().toLowerCase();
      var rows = document.querySelectorAll('#expenses tbody tr[data-cents]');
      var shown = 0;
      var sum = 0;
      for (var i = 0; i < rows.length; i++) {
        var hit = !q || rows[i].getAttribute('data-text').indexOf(q) >= 0;
        rows[i].hidden = !hit;
        if (hit) { shown++; sum += Number(rows[i].getAttribute('data-cents')); }
      }
      $('#filter-total').textContent = q ? shown + ' shown, ' + money(sum) : '';
    });
  }

  // ---- add / edit expense ------------------------------------------------------------
  function initExpenseForm() {
    var form = $('#expense-form');
    var max = Number(form.getAttribute('data-max'));
    var desc = $('#description');
    var amount = $('#amount');
    desc.addEventListener('input', function () {
      var left = max - desc.value.length;
      var bar;
      if (BUGS) {
        // SEEDED BUG expense-long-description: more than 200 characters make the count
        // negative and String.prototype.repeat throws "RangeError: Invalid count value: -1".
        bar = '#'.repeat(Math.floor(left / 10));
      } else {
        bar = '#'.repeat(Math.max(0, Math.floor(left / 10)));
      }
      var counter = $('#desc-counter');
      counter.textContent = left >= 0 ? left + ' characters left' : -left + ' characters too many';
      counter.setAttribute('data-bar', bar);
    });
    amount.addEventListener('input', function () {
      var c = toCents(amount.value);
      $('#amount-preview').textContent = isNaN(c) || c <= 0 ? 'Enter a positive amount' : '= ' + money(c);
    });
    form.addEventListener('submit', function (ev) {
      var ok = true;
      var d = desc.value.trim();
      setError('description', '');
      if (!d) { setError('description', 'Description is required'); ok = false; }
      else if (d.length > max) { setError('description', 'Description must be at most ' + max + ' characters'); ok = false; }
      if (!ok) { ev.preventDefault(); }
    });
  }

  // ---- categories --------------------------------------------------------------------
  function initCategories() {
    var name = $('#name');
    var known = (window.CATEGORIES || []).map(function (c) { return c.toLowerCase(); });
    name.addEventListener('input', function () {
      var v = name.value.trim().toLowerCase();
      setError('name', v && known.indexOf(v) >= 0 ? 'This category already exists' : '');
    });
  }

  // ---- reports -----------------------------------------------------------------------
  function groupBy(items, keyOf) {
    var map = {};
    var out = [];
    items.forEach(function (e) {
      var k = keyOf(e);
      if (!map[k]) { map[k] = { key: k, count: 0, total: 0 }; out.push(map[k]); }
      map[k].count++;
      map[k].total += e.cents;
    });
    out.sort(function (a, b) { return b.total - a.total || (a.key < b.key ? -1 : 1); });
    return out;
  }

  function initReports() {
    var data = window.REPORT_DATA || [];
    var state = { mode: 'month', month: $('#month').value };
    var keyOf = {
      month: function (e) { return e.date.slice(0, 7); },
      category: function (e) { return e.category; }
    };
    function selected() {
      return data.filter(function (e) { return state.month === 'all' || e.date.slice(0, 7) === state.month; });
    }
    function render() {
      var groups = groupBy(selected(), keyOf[state.mode]);
      var box = $('#report');
      box.textContent = '';
      var h = document.createElement('h2');
      h.textContent = (state.mode === 'month' ? 'By month' : 'By category') + ' · ' + (state.month === 'all' ? 'all time' : state.month);
      box.appendChild(h);
      if (!groups.length) {
        var p = document.createElement('p');
        p.className = 'empty';
        p.textContent = 'No expenses in this period.';
        box.appendChild(p);
        return;
      }
      var table = document.createElement('table');
      groups.forEach(function (g) {
        var tr = table.insertRow();
        tr.insertCell().textContent = g.key;
        tr.insertCell().textContent = String(g.count);
        tr.insertCell().textContent = money(g.total);
      });
      box.appendChild(table);
    }
    function exportReport() {
      var groups = groupBy(selected(), keyOf[state.mode]);
      var grand = groups.reduce(function (s, g) { return s + g.total; }, 0);
      var lines = ['key,count,total'].concat(groups.map(function (g) {
        return '"' + g.key.replace(/"/g, '""') + '",' + g.count + ',' + (g.total / 100).toFixed(2);
      }));
      var summary;
      if (state.mode === 'category') {
        if (BUGS) {
          // SEEDED BUG expense-report-export: assumes there is at least one group, so an
          // empty period throws "TypeError: Cannot read properties of undefined (reading 'key')".
          summary = 'Top category: ' + groups[0].key + ' (' + Math.round(groups[0].total * 100 / grand) + '%)';
        } else {
          summary = groups.length ? 'Top category: ' + groups[0].key + ' (' + Math.round(groups[0].total * 100 / grand) + '%)' : 'Nothing to export for this period.';
        }
      } else {
        summary = groups.length + ' month(s), ' + money(grand) + ' in total.';
      }
      $('#export-summary').textContent = summary;
      $('#export-out').textContent = lines.join('\n');
      $('#export-box').hidden = false;
    }
    $('#month').addEventListener('change', function () { state.month = $('#month').value; render(); });
    $('#by-month').addEventListener('click', function () { state.mode = 'month'; render(); });
    $('#by-category').addEventListener('click', function () { state.mode = 'category'; render(); });
    $('#export').addEventListener('click', exportReport);
    render();
  }

  // ---- budget wizard (divs only, no buttons or links) --------------------------------
  var ICONS = { Food: { glyph: '\u{1F34E}' }, Transport: { glyph: '\u{1F68C}' }, Rent: { glyph: '\u{1F3E0}' }, Fun: { glyph: '\u{1F389}' } };
  var DEFAULT_ICON = { glyph: '\u2022' };

  function initWizard() {
    var state = { step: 1, category: null, limit: 0, period: 'monthly' };
    function show(step) {
      state.step = step;
      // The ground truth's screen abstraction counts each wizard step as a screen.
      document.body.setAttribute('data-wf-state', 'wizard/' + step);
      for (var i = 1; i <= 3; i++) {
        $('#step-' + i).hidden = i !== step;
        document.querySelector('.step-labels [data-step="' + i + '"]').className = i === step ? 'current' : '';
      }
    }
    document.body.setAttribute('data-wf-state', 'wizard/1');
    document.querySelectorAll('.tile').forEach(function (tile) {
      tile.addEventListener('click', function () {
        document.querySelectorAll('.tile').forEach(function (t) { t.classList.remove('selected'); });
        tile.classList.add('selected');
        state.category = tile.getAttribute('data-category');
        setError('category', '');
      });
    });
    window.wizard = {
      next: function (step) {
        if (step === 1) {
          if (!state.category) { setError('category', 'Choose a category first'); return; }
          show(2);
        } else if (step === 2) {
          var limit = Number($('#limit').value);
          if (!$('#limit').value || !(limit > 0) || Math.floor(limit) !== limit) {
            setError('limit', 'Enter a whole, positive limit');
            return;
          }
          setError('limit', '');
          state.limit = limit;
          state.period = $('#period').value;
          var perDay = state.limit / (state.period === 'weekly' ? 7 : 30);
          $('#wizard-summary').textContent = 'Budget for ' + state.category + ': ' + money(state.limit * 100) + ' ' + state.period + ' (about ' + money(perDay * 100) + ' a day).';
          show(3);
        }
      },
      back: function (step) { show(step - 1); },
      confirm: function () {
        var icon;
        if (BUGS) {
          // SEEDED BUG expense-wizard-confirm: only the built-in categories have an icon;
          // "Other" (or any new category) throws "TypeError: Cannot read properties of
          // undefined (reading 'glyph')".
          icon = ICONS[state.category].glyph;
        } else {
          icon = (ICONS[state.category] || DEFAULT_ICON).glyph;
        }
        var body = new URLSearchParams({ category: state.category, limit: String(state.limit), period: state.period });
        fetch('/budgets', { method: 'POST', body: body, credentials: 'same-origin' })
          .then(function (r) { return r.json(); })
          .then(function (res) {
            if (!res.ok) { setError('confirm', res.error || 'Could not save the budget'); return; }
            $('#step-3').hidden = true;
            $('#wizard-done').hidden = false;
            document.body.setAttribute('data-wf-state', 'wizard/done');
            $('#wizard-done-text').textContent = icon + ' Budget saved for ' + state.category + '.';
          });
      }
    };
  }

  var INIT = {
    login: initLogin,
    register: initRegister,
    dashboard: initDashboard,
    expense_new: initExpenseForm,
    expense_edit: initExpenseForm,
    categories: initCategories,
    reports: initReports,
    wizard: initWizard
  };
  if (INIT[PAGE]) { INIT[PAGE](); }
})();
