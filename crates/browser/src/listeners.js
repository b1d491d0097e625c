// Listener actionability: an init script, run in every document before its own scripts,
// that records which elements get click-like listeners, through addEventListener or an
// on* property. The scan reads the record (window[Symbol.for("wayfarer.listeners")], a
// WeakMap element -> Map(type -> Set of handlers)) and reports "listener:<type>" reasons:
// a div with a click handler and no tag, role or cursor is a control all the same.
// Gestures other than a click (a context menu, a hover, keys) are recorded too, and so are
// listeners on the window and the document (delegated: `window[K].delegated`, a Map type
// -> Set of handlers), which handle the whole page's events through `event.target`.
(() => {
  "use strict";
  const K = Symbol.for("wayfarer.listeners");
  if (window[K]) return;
  const TYPES = new Set(["click", "dblclick", "mousedown", "mouseup", "pointerdown", "pointerup", "keydown",
    "contextmenu", "mouseenter", "mouseover", "keyup", "keypress", "scroll", "wheel", "dragstart", "dragover", "drop"]);
  const marks = new WeakMap();
  const delegated = new Map();
  Object.defineProperty(marks, "delegated", { value: delegated });
  Object.defineProperty(window, K, { value: marks });
  // Elements an IntersectionObserver watches (an endless list's sentinel): scrolling is
  // what shows them. Counted, not kept.
  const observed = { count: 0 };
  Object.defineProperty(marks, "observed", { value: observed });
  if (typeof IntersectionObserver !== "undefined") {
    const observe = IntersectionObserver.prototype.observe;
    Object.defineProperty(IntersectionObserver.prototype, "observe", {
      value: function observe_(target) {
        try { observed.count++; } catch (e) { /* never break the page */ }
        return apply(observe, this, arguments);
      },
      writable: true, configurable: true,
    });
  }
  // Captured before the page's scripts: the wrappers run inside the page's calls, after
  // it may have rewritten Function.prototype.call or the Element global.
  const apply = Reflect.apply, El = typeof Element !== "undefined" ? Element : null;
  const isEl = t => El !== null && t instanceof El;
  const isPage = t => t === window || (typeof Document !== "undefined" && t instanceof Document);
  const handlersOf = (t, type) => {
    let byType = marks.get(t);
    if (!byType) { byType = new Map(); marks.set(t, byType); }
    let set = byType.get(type);
    if (!set) { set = new Set(); byType.set(type, set); }
    return set;
  };
  const proto = EventTarget.prototype;
  const add = proto.addEventListener, remove = proto.removeEventListener;
  // Wrapped, not replaced: the page's call goes through unchanged whatever we do.
  const wrappedAdd = function addEventListener(type, fn, opts) {
    try {
      if (fn && TYPES.has(type)) {
        if (isEl(this)) handlersOf(this, type).add(fn);
        else if (isPage(this)) {
          if (!delegated.has(type)) delegated.set(type, new Set());
          delegated.get(type).add(fn);
        }
      }
    } catch (e) { /* never break the page */ }
    return apply(add, this, arguments);
  };
  const wrappedRemove = function removeEventListener(type, fn, opts) {
    try {
      const byType = TYPES.has(type) && isEl(this) ? marks.get(this) : null;
      if (byType && byType.has(type)) byType.get(type).delete(fn);
      if (TYPES.has(type) && isPage(this) && delegated.has(type)) delegated.get(type).delete(fn);
    } catch (e) { /* never break the page */ }
    return apply(remove, this, arguments);
  };
  Object.defineProperty(proto, "addEventListener", { value: wrappedAdd, writable: true, configurable: true });
  Object.defineProperty(proto, "removeEventListener", { value: wrappedRemove, writable: true, configurable: true });
  // on* properties: the setter of the accessor, for HTML and SVG elements. A property
  // handler counts as one more handler of its type, gone when set to null.
  const ON = Symbol("wayfarer.on");
  for (const P of [typeof HTMLElement !== "undefined" && HTMLElement.prototype, typeof SVGElement !== "undefined" && SVGElement.prototype]) {
    if (!P) continue;
    for (const type of TYPES) {
      const d = Object.getOwnPropertyDescriptor(P, "on" + type);
      if (!d || !d.set || !d.configurable) continue;
      Object.defineProperty(P, "on" + type, {
        configurable: true,
        enumerable: d.enumerable,
        get: d.get,
        set: function (fn) {
          try {
            const set = handlersOf(this, type);
            set.delete(ON);
            if (typeof fn === "function") set.add(ON);
          } catch (e) { /* never break the page */ }
          return apply(d.set, this, [fn]);
        },
      });
    }
  }
})();
