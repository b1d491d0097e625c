// Splitter client, part 4 of 4: the hash router. One HTML document; the screen follows
// location.hash (#/, #/groups/new, #/groups/1, #/groups/1/transactions/new,
// #/groups/1/transactions/3, #/groups/1/settle).
(function () {
  'use strict';
  var SPL = window.SPL;

  // The group page always fetches; the screens reached from it reuse the group it loaded,
  // so they draw in the same task as the navigation.
  function withGroup(id, fresh, my, fn) {
    var g = SPL.store.group;
    if (!fresh && g && g.id === id) { fn(g); return; }
    SPL.load('/api/groups/' + id, my, function (data) {
      SPL.store.group = data;
      fn(data);
    });
  }

  SPL.route = function () {
    var my = ++SPL.seq;
    if (my > 1) { SPL.store.groups = null; } // the inlined list is only fresh at load
    var h = location.hash.replace(/^#/, '');
    var m;
    if (h === '' || h === '/') { SPL.screens.groups(my); return; }
    if (h === '/groups/new') { SPL.screens.group_new(); return; }
    if ((m = /^\/groups\/(\d+)$/.exec(h))) {
      withGroup(Number(m[1]), true, my, SPL.screens.group);
      return;
    }
    if ((m = /^\/groups\/(\d+)\/transactions\/new$/.exec(h))) {
      withGroup(Number(m[1]), false, my, SPL.screens.tx_new);
      return;
    }
    if ((m = /^\/groups\/(\d+)\/transactions\/(\d+)$/.exec(h))) {
      var tx = Number(m[2]);
      withGroup(Number(m[1]), false, my, function (g) { SPL.screens.tx(g, tx); });
      return;
    }
    if ((m = /^\/groups\/(\d+)\/settle$/.exec(h))) {
      withGroup(Number(m[1]), false, my, SPL.screens.settle);
      return;
    }
    SPL.screens.not_found();
  };

  window.addEventListener('hashchange', SPL.route);
  SPL.route();
})();
