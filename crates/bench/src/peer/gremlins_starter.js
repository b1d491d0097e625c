// wayfarer bench: unleashes a gremlins.js 2.2.0 horde on each document of the tab, after
// the gremlins bundle (injected just before this, on every new document). Globals of our
// own are `__wfPeer*` only: the test applications read `WF_BUGS` and `__wfActions`.
(function () {
  'use strict';
  // Frames get the script too: one horde per tab, in the top document (as a bookmarklet).
  if (window.top !== window) { return; }
  // The about:blank a reset passes through is not the application.
  if (!/^https?:$/.test(window.location.protocol)) { return; }
  var g = window.gremlins;
  if (!g || typeof g.createHorde !== 'function') { return; }

  var SEED = __WF_SEED__;
  var MAX_STEPS = __WF_MAX_STEPS__;
  // The application's [[deny]] rules (a logout link, a reset button): as a strategy
  // never acts on what they match, the horde's clicks, touches and fills leave it alone.
  var DENY = __WF_DENY__;
  var store = null;
  try { store = window.sessionStorage; } catch (e) { /* storage disabled */ }
  function load(key) {
    try { return parseInt(store && store.getItem(key), 10) || 0; } catch (e) { return 0; }
  }
  function save(key, n) {
    try { if (store) { store.setItem(key, String(n)); } } catch (e) { /* full or disabled */ }
  }

  // Counters survive the page loads the horde causes (sessionStorage is per tab).
  var steps = load('__wfPeerSteps');
  var loads = load('__wfPeerLoads') + 1;
  save('__wfPeerLoads', loads);
  window.__wfPeerSteps = steps;
  window.__wfPeerLoads = loads;
  window.__wfPeerErrors = 0;
  window.__wfPeerDialogs = 0;

  // A tab the app closes would end the run; the browser env cannot reopen it mid-run.
  try { window.close = function () {}; } catch (e) { /* read-only */ }

  // Each species' attack counts as one step. A gremlin's own crash (e.g. the typer when
  // elementFromPoint finds nothing) is not the application's failure, and would otherwise
  // reject the strategy's promise and stop the horde.
  var horde = null;
  function counted(species) {
    return function (ctx) {
      var attack = species(ctx);
      return function () {
        if (MAX_STEPS !== null && steps >= MAX_STEPS) {
          if (horde) { horde.stop(); }
          return;
        }
        steps += 1;
        window.__wfPeerSteps = steps;
        save('__wfPeerSteps', steps);
        try { return attack.apply(this, arguments); } catch (e) { window.__wfPeerErrors += 1; }
      };
    };
  }
  // Whether a deny rule matches `el` or the control it is in (by selector, or by a
  // case-insensitive part of its text or label).
  function denied(el) {
    if (!el || !el.closest || DENY.length === 0) { return false; }
    var control = el.closest('a,button,input,select,textarea,label,[role]') || el;
    var said = ((control.textContent || '') + ' ' + (control.getAttribute('aria-label') || '') +
      ' ' + (control.value || '')).toLowerCase();
    for (var i = 0; i < DENY.length; i++) {
      var r = DENY[i];
      try {
        if (r.selector && el.closest(r.selector)) { return true; }
      } catch (e) { /* a selector the page cannot parse matches nothing */ }
      if (r.text && said.indexOf(String(r.text).toLowerCase()) >= 0) { return true; }
    }
    return false;
  }
  function allowed(el) { return !denied(el); }
  // No visual traces: they are DOM nodes that would count as new states and, at z-index
  // 2000, catch the horde's own later clicks.
  function quiet(extra) {
    var o = { showAction: function () {} };
    for (var k in extra) { o[k] = extra[k]; }
    return o;
  }
  var s = g.species;
  var species = [s.clicker(quiet({ canClick: allowed })), s.toucher(quiet({ canTouch: allowed })),
    s.formFiller(quiet({ canFillElement: allowed })), s.scroller(quiet({})),
    s.typer(quiet({}))].map(counted);
  // The alert mogwai only stubs alert/confirm/prompt when there is a logger.
  var logger = {
    log: function () {}, info: function () {}, error: function () {},
    warn: function () { window.__wfPeerDialogs += 1; }
  };

  function unleash() {
    try {
      horde = g.createHorde({
        species: species,
        // No gizmo (it stops the horde after 10 errors) and no fps (it only logs): the
        // time budget is what ends the run.
        mogwais: [g.mogwais.alert()],
        // The default strategy, one random species every 10 ms, for far longer than any
        // budget.
        strategies: [g.strategies.distribution({ delay: 10, nb: 1e9 })],
        // Deterministic, yet a different sequence on each page load of the tab.
        randomizer: new g.Chance(SEED + ':' + loads),
        logger: logger,
        window: window
      });
      horde.unleash().catch(function () { window.__wfPeerErrors += 1; });
    } catch (e) {
      window.__wfPeerErrors += 1;
    }
  }
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', unleash, { once: true });
  } else {
    unleash();
  }
})();
