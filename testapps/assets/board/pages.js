// Task board: the boards list (open a board, create one) and a board's archive (restore).
(function () {
  'use strict';
  var B = window.BoardApp;

  function initBoards() {
    B.all('.tile').forEach(function (tile) {
      B.on(tile, 'click', function () { B.go(tile.getAttribute('data-href')); });
    });
    var open = B.$('#new-board-open');
    var form = B.$('#new-board');
    var name = B.$('#board-name');
    var error = B.$('#board-name-error');

    function show(on) {
      form.hidden = !on;
      open.hidden = on;
      error.textContent = '';
      if (on) { name.value = ''; name.focus(); }
      B.setState(on ? 'boards/new' : 'boards');
    }

    function create() {
      var v = name.value.trim();
      if (!v) { error.textContent = 'Name is required'; return; }
      if (v.length > 60) { error.textContent = 'Name must be at most 60 characters'; return; }
      B.post('/api/boards', { name: v }).then(function (res) {
        if (!res.ok) { error.textContent = res.error; return; }
        B.go('/boards/' + res.id);
      });
    }

    B.on(open, 'click', function () { show(true); });
    B.on(B.$('#new-board-cancel'), 'click', function () { show(false); });
    B.on(B.$('#new-board-create'), 'click', create);
    B.keys(name, create, function () { show(false); });
  }

  function initArchive() {
    var back = B.$('#archive-back');
    B.on(back, 'click', function () { B.go(back.getAttribute('data-href')); });
    B.all('.archived-card').forEach(function (row) {
      var restore = B.$('[data-action-id="board.archive.restore"]', row);
      B.on(restore, 'click', function () {
        var title = B.$('.title', row).textContent;
        var from = B.$('.meta', row).textContent.replace(/^from /, '');
        row.parentNode.removeChild(row);
        B.$('#archive-empty').hidden = B.all('.archived-card').length > 0;
        B.notice('Restored \u201c' + title + '\u201d to ' + from + '.');
        B.post('/api/cards/' + row.getAttribute('data-card-id') + '/restore').then(B.report);
      });
    });
  }

  if (B.PAGE === 'boards') { initBoards(); }
  if (B.PAGE === 'archive') { initArchive(); }
})();
