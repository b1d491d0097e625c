// Task board editors: the card composer under To do, the inline rename editor (opened by
// double-clicking a card's title) and the card detail dialog. board-view.js owns the
// state (B.S) and calls these renderers.
(function () {
  'use strict';
  var B = window.BoardApp;
  if (B.PAGE !== 'board') { return; }
  var BUGS = B.BUGS;
  var MAX_TITLE = 200;
  var MAX_DESCRIPTION = 1000;
  // The composer's length meter: one level per started 50 characters.
  var LEVELS = [
    { color: '#778' }, { color: '#2a7a3b' }, { color: '#2a7a3b' }, { color: '#b36b00' }, { color: '#b00020' }
  ];

  function meter(len) {
    var i = Math.ceil(len / 50);
    var level;
    if (BUGS) {
      // SEEDED BUG board-long-title: 201+ characters index past the table: "TypeError:
      // Cannot read properties of undefined (reading 'color')".
      level = LEVELS[i];
    } else {
      level = LEVELS[Math.min(i, LEVELS.length - 1)];
    }
    var color = level.color;
    var n = Math.abs(MAX_TITLE - len);
    var text = n + (n === 1 ? ' character ' : ' characters ') + (len <= MAX_TITLE ? 'left' : 'too many');
    return { text: text, color: color };
  }

  function field(tag, id, actionId, value) {
    var n = B.el(tag, 'field', null, actionId);
    n.id = id;
    if (tag === 'input') { n.type = 'text'; n.autocomplete = 'off'; }
    n.value = value;
    return n;
  }

  function errorLine(id, text) { var n = B.el('div', 'field-error', text); n.id = id; return n; }

  // ---- composer ------------------------------------------------------------------------
  B.renderComposer = function () {
    var S = B.S;
    var box = B.el('div', 'composer');
    if (!S.composer) {
      box.appendChild(B.ctl('div', 'ctl add', 'Add card', 'board.board.add_card', function () {
        B.closeEditors();
        S.composer = { value: '', error: '' };
        B.render();
        B.$('#composer-title').focus();
      }));
      return box;
    }
    var input = field('input', 'composer-title', 'board.composer.title', S.composer.value);
    input.placeholder = 'Title, e.g. Fix login #bug';
    var m = B.el('div', 'meter');
    function update() {
      var r = meter(input.value.length);
      m.textContent = r.text;
      m.style.color = r.color;
    }
    input.addEventListener('input', function () { S.composer.value = input.value; update(); });
    B.keys(input, saveComposer, closeComposer);
    update();
    box.appendChild(input);
    box.appendChild(m);
    box.appendChild(errorLine('composer-error', S.composer.error));
    var row = B.el('div', 'row');
    row.appendChild(B.ctl('div', 'ctl', 'Save', 'board.composer.save', saveComposer));
    row.appendChild(B.ctl('div', 'ctl secondary', 'Cancel', 'board.composer.cancel', closeComposer));
    box.appendChild(row);
    return box;
  };

  function closeComposer() { B.S.composer = null; B.render(); }

  function composerError(msg) {
    B.S.composer.error = msg;
    B.$('#composer-error').textContent = msg;
  }

  function saveComposer() {
    var S = B.S;
    var v = S.composer.value.trim();
    if (!v) { composerError('Title is required'); return; }
    if (v.length > MAX_TITLE) { composerError('Title must be at most ' + MAX_TITLE + ' characters'); return; }
    B.post('/api/boards/' + S.board.id + '/cards', { title: v }).then(function (res) {
      if (!res.ok) {
        if (S.composer) { S.composer.error = res.error; B.render(); } else { B.notice(res.error); }
        return;
      }
      S.board.cards.push(res.card);
      if (S.composer) { S.composer = null; }
      S.selected = res.card.id;
      B.render();
      B.notice('Added \u201c' + res.card.title + '\u201d.');
    });
  }

  // ---- rename (double-click on a title) -------------------------------------------------
  B.openRename = function (id) {
    var S = B.S;
    B.closeEditors();
    S.selected = id;
    S.rename = { id: id, value: B.card(id).title, error: '' };
    // The double-click itself: wf.js only sees its two clicks on board.card.title.
    if (window.__wfRecord) { window.__wfRecord('board.card.rename'); }
    B.render();
    var input = B.$('#rename-title');
    input.focus();
    input.select();
  };

  B.renderRename = function () {
    var r = B.S.rename;
    var box = B.el('div', 'rename');
    var input = field('input', 'rename-title', 'board.rename.title', r.value);
    input.addEventListener('input', function () { r.value = input.value; });
    B.keys(input, saveRename, cancelRename);
    box.appendChild(input);
    box.appendChild(errorLine('rename-error', r.error));
    var row = B.el('div', 'row');
    row.appendChild(B.ctl('div', 'ctl', 'Save', 'board.rename.save', saveRename));
    row.appendChild(B.ctl('div', 'ctl secondary', 'Cancel', 'board.rename.cancel', cancelRename));
    box.appendChild(row);
    return box;
  };

  function cancelRename() { B.S.rename = null; B.render(); }

  function saveRename() {
    var S = B.S;
    var r = S.rename;
    var v = r.value.trim();
    var accept = v.length > 0;
    if (BUGS) {
      // SEEDED BUG board-rename-empty: a blank title gets through (and the server stores
      // it); moving the card afterwards throws in board-view.js.
      accept = true;
    }
    var msg = !accept ? 'Title is required' : v.length > MAX_TITLE ? 'Title must be at most ' + MAX_TITLE + ' characters' : '';
    if (msg) { r.error = msg; B.$('#rename-error').textContent = msg; return; }
    B.card(r.id).title = v;
    S.rename = null;
    B.render();
    B.notice('Renamed to \u201c' + v + '\u201d.');
    B.post('/api/cards/' + r.id + '/rename', { title: v }).then(B.report);
  }

  // ---- card detail dialog ---------------------------------------------------------------
  B.openDetail = function (id) {
    B.closeEditors();
    B.S.detail = { id: id, value: B.card(id).description || '', msg: '' };
    B.render();
  };

  B.renderDetail = function () {
    var S = B.S;
    var host = B.$('#detail');
    host.textContent = '';
    host.hidden = !S.detail;
    if (!S.detail) { return; }
    var d = S.detail;
    var card = B.card(d.id);
    var dlg = B.el('div', 'dialog');
    dlg.appendChild(B.el('h2', null, card.title || '(untitled)'));
    var meta = 'In ' + B.colName(card.col);
    if (card.labels.length) { meta += ' \u00b7 labels: ' + card.labels.join(', '); }
    if (card.own) { meta += ' \u00b7 created by you'; }
    dlg.appendChild(B.el('p', 'meta', meta));
    var label = B.el('label', null, 'Description');
    label.htmlFor = 'detail-description';
    dlg.appendChild(label);
    var text = field('textarea', 'detail-description', 'board.detail.description', d.value);
    text.rows = 4;
    text.addEventListener('input', function () { d.value = text.value; });
    dlg.appendChild(text);
    dlg.appendChild(errorLine('detail-msg', d.msg));
    var row = B.el('div', 'row');
    row.appendChild(B.ctl('div', 'ctl', 'Save', 'board.detail.save', saveDetail));
    row.appendChild(B.ctl('div', 'ctl danger', 'Archive', 'board.detail.archive', archiveCard));
    row.appendChild(B.ctl('div', 'ctl secondary', 'Close', 'board.detail.close', function () { S.detail = null; B.render(); }));
    dlg.appendChild(row);
    host.appendChild(dlg);
  };

  function saveDetail() {
    var d = B.S.detail;
    var v = d.value.trim();
    if (v.length > MAX_DESCRIPTION) {
      d.msg = 'Description must be at most ' + MAX_DESCRIPTION + ' characters';
    } else {
      B.card(d.id).description = v;
      d.msg = 'Saved.';
      B.post('/api/cards/' + d.id + '/describe', { description: v }).then(B.report);
    }
    B.$('#detail-msg').textContent = d.msg;
  }

  function archiveCard() {
    var S = B.S;
    var card = B.card(S.detail.id);
    S.board.cards = S.board.cards.filter(function (c) { return c.id !== card.id; });
    S.detail = null;
    S.selected = null;
    B.render();
    B.notice('Archived \u201c' + card.title + '\u201d.');
    B.post('/api/cards/' + card.id + '/archive').then(B.report);
  }
})();
