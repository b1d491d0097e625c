// wayfarer's implementation of the `@antithesishq/bombadil` specification API, written from
// Bombadil's manual: cells filled by extractors, formulas of linear temporal logic stepped
// state by state (formula progression), action generators. The bundle puts this file
// before the user's modules; `define` and `require` come from the bundle's prelude.
//
// The same bundle runs in three places: the application's page (only `extract` runs
// there, on every captured state), the spec host page (formulas and action generators;
// it outlives the application's page loads, so closures over cell values survive) and
// Node, where an exported Playwright test checks the property on the states it saw.

__wf_define("@antithesishq/bombadil/internal", function (exports) {
  "use strict";

  // A small seeded generator (mulberry32): action generators must draw the same values
  // for the same seed, so a run can be repeated.
  let seed = 0x9e3779b9;
  function randomU32() {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  class Runtime {
    constructor() {
      this.cells = [];
      this.extracting = 0;
      // Cells read while a thunk runs: a violation names them with their values.
      this.reads = null;
      this.time = 0;
    }
    register(cell) {
      this.cells.push(cell);
      return this.cells.length - 1;
    }
    seed(n) {
      seed = n >>> 0;
    }
  }

  const runtime = new Runtime();

  class Cell {
    constructor(query) {
      if (typeof query !== "function") {
        throw new TypeError("extract() takes a function of the state, got " + typeof query);
      }
      this.query = query;
      this.name = null;
      this.has = false;
      this.value = undefined;
      this.index = runtime.register(this);
    }
    named(name) {
      this.name = String(name);
      return this;
    }
    get current() {
      if (runtime.extracting > 0) {
        throw new Error(
          "an extractor read `.current` of a cell: extractors may only read the state " +
            "they are given (share code through plain helper functions instead)",
        );
      }
      if (!this.has) {
        throw new Error("cell " + (this.name || "#" + this.index) + " has no value yet");
      }
      if (runtime.reads) runtime.reads.set(this.index, this.value);
      return this.value;
    }
  }

  function randomRange(min, max) {
    if (!(min < max)) throw new RangeError("min (" + min + ") must be less than max (" + max + ")");
    const range = max - min;
    if (range <= 0xffffffff) return min + (randomU32() % range);
    const uniform = (randomU32() * 0x100000000 + randomU32()) / 0x10000000000000000;
    return min + Math.floor(uniform * range);
  }

  exports.runtime = runtime;
  exports.Runtime = Runtime;
  exports.Cell = Cell;
  exports.ExtractorCell = Cell;
  exports.randomU32 = randomU32;
  exports.randomRange = randomRange;
});

__wf_define("@antithesishq/bombadil/random", function (exports, require) {
  "use strict";
  const { randomU32, randomRange } = require("@antithesishq/bombadil/internal");

  function choose(items) {
    if (items.length === 0) throw new Error("cannot choose from an empty array");
    return items[randomU32() % items.length];
  }

  class From {
    constructor(elements) {
      this.elements = elements;
    }
    generate() {
      return choose(this.elements);
    }
  }

  class Sized {
    constructor(min, max) {
      this.size = { min, max };
    }
    minSize(n) {
      this.size.min = n;
      return this;
    }
    maxSize(n) {
      this.size.max = n;
      return this;
    }
    size_() {
      return this.size.min >= this.size.max
        ? this.size.min
        : randomRange(this.size.min, this.size.max + 1);
    }
  }

  const ALPHANUMERIC = "abcdefghijklmnopqrstuvwxyz0123456789";

  class Strings extends Sized {
    constructor() {
      super(0, 16);
    }
    generate() {
      let s = "";
      for (let n = this.size_(); n > 0; n--) s += choose(ALPHANUMERIC);
      return s;
    }
  }

  class Integers {
    constructor() {
      this.lo = 0;
      this.hi = 100;
    }
    min(n) {
      this.lo = n;
      return this;
    }
    max(n) {
      this.hi = n;
      return this;
    }
    generate() {
      return this.lo >= this.hi ? this.lo : randomRange(this.lo, this.hi + 1);
    }
  }

  exports.randomRange = randomRange;
  exports.from = function from(elements) {
    if (!Array.isArray(elements) || elements.length === 0) {
      throw new Error("`from` needs at least one element");
    }
    return new From(elements);
  };
  exports.strings = () => new Strings();
  exports.integers = () => new Integers();
  exports.emails = () => ({
    generate() {
      const user = new Strings().minSize(1).maxSize(12).generate();
      const host = new Strings().minSize(1).maxSize(10).generate();
      return user + "@" + host + "." + choose(["com", "org", "net", "io"]);
    },
  });
  // Printable keys and the common control keys (Enter, Tab, Escape, arrows, Backspace).
  const KEYCODES = [8, 9, 13, 27, 32, 37, 38, 39, 40, 46];
  for (let c = 48; c <= 57; c++) KEYCODES.push(c);
  for (let c = 65; c <= 90; c++) KEYCODES.push(c);
  exports.keycodes = () => ({ generate: () => choose(KEYCODES) });
});

__wf_define("@antithesishq/bombadil/actions", function (exports, require) {
  "use strict";
  const random = require("@antithesishq/bombadil/random");

  function leaf(value) {
    return { value };
  }

  function branch(branches) {
    for (const [w] of branches) {
      if (!Number.isInteger(w) || w < 0 || w > 0xffff) {
        throw new RangeError("invalid weight " + w + ", expected an integer from 0 to 65535");
      }
    }
    return { branches };
  }

  class ActionGenerator {
    constructor(generate) {
      this.generate = generate;
    }
  }

  exports.ActionGenerator = ActionGenerator;
  exports.actions = function actions(generate) {
    if (typeof generate !== "function") {
      throw new TypeError("actions() takes a function returning actions");
    }
    return new ActionGenerator(() => {
      const result = generate();
      return Array.isArray(result) ? branch(result.map((a) => [1, leaf(a)])) : result;
    });
  };
  exports.weighted = function weighted(pairs) {
    if (!Array.isArray(pairs)) throw new TypeError("weighted() takes [[weight, action], ...]");
    return new ActionGenerator(() =>
      branch(pairs.map(([w, x]) => [w, x instanceof ActionGenerator ? x.generate() : leaf(x)])),
    );
  };
  for (const k of ["from", "strings", "emails", "integers", "keycodes"]) exports[k] = random[k];
  exports.leaf = leaf;
  exports.branch = branch;

  // Bombadil 0.7's character sets for `{ CharSet: ... }` strings: code point ranges and
  // literal characters; wayfarer draws the string when the action is chosen.
  exports.CharSet = {
    fromRange(from, to) {
      return [{ Range: [from, to] }];
    },
    fromLiterals(...literals) {
      return literals.map((literal) => ({ Literal: literal }));
    },
    union(...sets) {
      return sets.flat(1);
    },
  };
});

__wf_define("@antithesishq/bombadil", function (exports, require) {
  "use strict";
  const internal = require("@antithesishq/bombadil/internal");
  const actions = require("@antithesishq/bombadil/actions");
  const { runtime, Cell } = internal;

  // A formula's source text for reports: the thunk's code on one line, cut.
  function pretty(fn) {
    const s = String(fn).replace(/\s+/g, " ").trim();
    return s.length > 160 ? s.slice(0, 157) + "..." : s;
  }

  class Formula {
    and(other) {
      return new And(this, now(other));
    }
    or(other) {
      return new Or(this, now(other));
    }
    implies(other) {
      return new Implies(this, now(other));
    }
    not() {
      return new Not(this);
    }
  }

  class Pure extends Formula {
    constructor(value, text) {
      super();
      this.value = value;
      this.text = text;
    }
    toString() {
      return this.text;
    }
  }

  class Thunk extends Formula {
    constructor(fn) {
      super();
      this.fn = fn;
      this.text = pretty(fn);
    }
    toString() {
      return this.text;
    }
  }

  class And extends Formula {
    constructor(left, right) {
      super();
      this.left = left;
      this.right = right;
    }
    toString() {
      return "(" + this.left + ").and(" + this.right + ")";
    }
  }

  class Or extends Formula {
    constructor(left, right) {
      super();
      this.left = left;
      this.right = right;
    }
    toString() {
      return "(" + this.left + ").or(" + this.right + ")";
    }
  }

  class Implies extends Formula {
    constructor(left, right) {
      super();
      this.left = left;
      this.right = right;
    }
    toString() {
      return "(" + this.left + ").implies(" + this.right + ")";
    }
  }

  class Not extends Formula {
    constructor(sub) {
      super();
      this.sub = sub;
    }
    toString() {
      return "not(" + this.sub + ")";
    }
  }

  class Next extends Formula {
    constructor(sub) {
      super();
      this.sub = sub;
    }
    toString() {
      return "next(" + this.sub + ")";
    }
  }

  function millis(n, unit) {
    if (typeof n !== "number" || !(n >= 0)) throw new RangeError("within() takes a duration >= 0");
    switch (unit) {
      case "milliseconds":
        return n;
      case "seconds":
        return n * 1000;
      case "minutes":
        return n * 60000;
      default:
        throw new RangeError(
          'within() takes "milliseconds", "seconds" or "minutes", got ' + JSON.stringify(unit),
        );
    }
  }

  class Always extends Formula {
    constructor(sub, bound) {
      super();
      this.sub = sub;
      this.bound = bound;
    }
    within(n, unit) {
      if (this.bound != null) throw new Error("the time bound of `always` is already set");
      return new Always(this.sub, millis(n, unit));
    }
    toString() {
      return "always(" + this.sub + ")" + (this.bound == null ? "" : ".within(" + this.bound + " ms)");
    }
  }

  class Eventually extends Formula {
    constructor(sub, bound) {
      super();
      this.sub = sub;
      this.bound = bound;
    }
    within(n, unit) {
      if (this.bound != null) throw new Error("the time bound of `eventually` is already set");
      return new Eventually(this.sub, millis(n, unit));
    }
    toString() {
      return (
        "eventually(" + this.sub + ")" + (this.bound == null ? "" : ".within(" + this.bound + " ms)")
      );
    }
  }

  function now(x) {
    if (x instanceof Formula) return x;
    if (typeof x === "function") return new Thunk(x);
    if (typeof x === "boolean") return new Pure(x, String(x));
    throw new TypeError("expected a formula, a boolean or a function returning one, got " + typeof x);
  }

  exports.Formula = Formula;
  exports.Pure = Pure;
  exports.Thunk = Thunk;
  exports.And = And;
  exports.Or = Or;
  exports.Implies = Implies;
  exports.Not = Not;
  exports.Next = Next;
  exports.Always = Always;
  exports.Eventually = Eventually;
  exports.now = now;
  exports.not = (x) => new Not(now(x));
  exports.next = (x) => new Next(now(x));
  exports.always = (x) => new Always(now(x), null);
  exports.eventually = (x) => new Eventually(now(x), null);
  exports.extract = (query) => new Cell(query);
  // The time of the current state (ms since the epoch), as a cell.
  const time = new Cell(() => 0).named("time");
  exports.time = time;
  exports.runtime = runtime;
  for (const k of ["actions", "weighted", "ActionGenerator", "from", "strings", "emails"]) {
    exports[k] = actions[k];
  }
  exports.integers = actions.integers;
  exports.keycodes = actions.keycodes;
  exports.__time = time;
});

// The defaults of Bombadil map onto wayfarer's own generic oracles and explorer: a spec that
// re-exports them runs unchanged, and wayfarer checks them the way it always does.
__wf_define("@antithesishq/bombadil/defaults/properties", function (exports) {
  "use strict";
  const oracle = (kind) => Object.freeze({ __wayfarerOracle: kind });
  exports.noHttpErrorCodes = oracle("http-error");
  exports.noUncaughtExceptions = oracle("exception");
  exports.noUnhandledPromiseRejections = oracle("unhandled-rejection");
  exports.noConsoleErrors = oracle("console-error");
});

__wf_define("@antithesishq/bombadil/defaults/actions", function (exports) {
  "use strict";
  const explorer = (name) => Object.freeze({ __wayfarerExplorer: name });
  for (const k of ["clicks", "inputs", "scroll", "back", "forward", "reload", "waitOnce", "navigation"]) {
    exports[k] = explorer(k);
  }
});

__wf_define("@antithesishq/bombadil/defaults", function (exports, require) {
  "use strict";
  const p = require("@antithesishq/bombadil/defaults/properties");
  for (const k of Object.keys(p)) exports[k] = p[k];
  exports.defaultActions = Object.freeze({ __wayfarerExplorer: "defaultActions" });
});

// Bombadil 0.7's browser modules: the same API under `/browser`, with the browser's own
// helpers (fingerprints, DOM queries), and its defaults under `/browser/defaults`.
__wf_define("@antithesishq/bombadil/browser/dom", function (exports) {
  "use strict";
  // Every element under `root` matching `selector`, into open shadow roots, slots' assigned
  // elements and same-origin frames.
  exports.queryAll = function queryAll(root, selector) {
    const out = [];
    const todo = [root];
    while (todo.length > 0) {
      const el = todo.pop();
      if (el.matches && el.matches(selector)) out.push(el);
      let children = el.children ? Array.from(el.children) : [];
      if (el.shadowRoot) children = Array.from(el.shadowRoot.children);
      else if (typeof HTMLSlotElement !== "undefined" && el instanceof HTMLSlotElement) {
        children = el.assignedElements({ flatten: true });
      } else if (typeof HTMLIFrameElement !== "undefined" && el instanceof HTMLIFrameElement) {
        let body = null;
        try {
          body = el.contentDocument && el.contentDocument.body;
        } catch (e) {
          body = null;
        }
        children = body ? [body] : [];
      }
      for (let i = children.length - 1; i >= 0; i--) todo.push(children[i]);
    }
    return out;
  };
  exports.clickablePoint = function clickablePoint(el) {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 ? { x: r.left + r.width / 2, y: r.top + r.height / 2 } : null;
  };
  exports.isVisible = function isVisible(win, el) {
    const style = win.getComputedStyle(el);
    return style.display !== "none" && style.visibility !== "hidden" && parseFloat(style.opacity || "1") > 0;
  };
  exports.inViewport = function inViewport(win, p) {
    return p.x >= 0 && p.y >= 0 && p.x <= win.innerWidth && p.y <= win.innerHeight;
  };
});

__wf_define("@antithesishq/bombadil/browser", function (exports, require) {
  "use strict";
  const B = require("@antithesishq/bombadil");
  // 0.7's README imports the formulas from here too (`always`, `eventually`, `extract`).
  for (const k of Object.keys(B)) {
    if (!k.startsWith("__")) exports[k] = B[k];
  }

  // What identifies an element to a person or a test: the attributes a locator would use;
  // its place in the tree only when it has none of them.
  function structuralPath(el) {
    const parts = [];
    for (let at = el; at && at !== at.ownerDocument.documentElement; at = at.parentElement) {
      const parent = at.parentElement;
      if (!parent) break;
      const same = Array.from(parent.children).filter((c) => c.tagName === at.tagName);
      const tag = at.tagName.toLowerCase();
      parts.unshift(same.length > 1 ? tag + "[" + same.indexOf(at) + "]" : tag);
    }
    return parts.join(" > ");
  }
  exports.getFingerprint = function getFingerprint(el) {
    const attr = (n) => el.getAttribute(n);
    const labelledBy = attr("aria-labelledby");
    const labelled = labelledBy ? el.ownerDocument.getElementById(labelledBy) : null;
    const text = (el.textContent || "").trim();
    const fp = {
      tag: el.tagName.toLowerCase(),
      testId: attr("data-testid") ?? attr("data-test-id") ?? attr("data-cy") ?? attr("data-test"),
      id: attr("id"),
      role: attr("role"),
      accessibleName:
        attr("aria-label") ?? (labelled ? (labelled.textContent || "").trim() : null) ?? attr("title"),
      href: attr("href"),
      nameAttr: attr("name"),
      placeholder: attr("placeholder"),
      inputType: attr("type"),
      textContent: text.length > 0 && text.length <= 200 ? text : null,
      structuralPath: null,
    };
    const strong = Object.keys(fp).some((k) => k !== "tag" && k !== "structuralPath" && fp[k]);
    if (!strong) fp.structuralPath = structuralPath(el);
    return fp;
  };
});

__wf_define("@antithesishq/bombadil/browser/defaults/properties", function (exports, require) {
  "use strict";
  const p = require("@antithesishq/bombadil/defaults/properties");
  for (const k of Object.keys(p)) exports[k] = p[k];
});

__wf_define("@antithesishq/bombadil/browser/defaults/actions", function (exports, require) {
  "use strict";
  const a = require("@antithesishq/bombadil/defaults/actions");
  for (const k of Object.keys(a)) exports[k] = a[k];
  // A cell in 0.7 (the action that led to this state), read by the spec's own generators.
  exports.lastAction = require("@antithesishq/bombadil").extract((state) => state.lastAction);
});

__wf_define("@antithesishq/bombadil/browser/defaults", function (exports, require) {
  "use strict";
  const p = require("@antithesishq/bombadil/browser/defaults/properties");
  for (const k of Object.keys(p)) exports[k] = p[k];
  exports.defaultActions = Object.freeze({ __wayfarerExplorer: "defaultActions" });
});

// The driver: what wayfarer calls, in the page (`extract`) and in the host (the rest).
__wf_define("@wayfarer/driver", function (exports, require) {
  "use strict";
  const { runtime } = require("@antithesishq/bombadil/internal");
  const B = require("@antithesishq/bombadil");
  const { ActionGenerator } = require("@antithesishq/bombadil/actions");
  const { Formula, Pure, Thunk, And, Or, Implies, Not, Next, Always, Eventually } = B;

  // Residuals: what is left to check from the next state on.
  class AlwaysFrom {
    constructor(sub, deadline, from) {
      this.sub = sub;
      this.deadline = deadline;
      this.from = from;
    }
    toString() {
      return "always(" + this.sub + ")";
    }
  }
  class EventuallyFrom {
    constructor(sub, deadline, from) {
      this.sub = sub;
      this.deadline = deadline;
      this.from = from;
    }
    toString() {
      return "eventually(" + this.sub + ")";
    }
  }

  const TRUE = { ok: true };
  const holds = (v) => v.ok === true;
  const fails = (v) => v.ok === false;
  const later = (r) => ({ later: r });

  // Cell names: the bundle names each top-level binding holding a cell after its variable.
  function cellName(i) {
    const c = runtime.cells[i];
    return (c && c.name) || "cell #" + i;
  }

  function readsOf(map) {
    const out = {};
    for (const [i, v] of map) out[cellName(i)] = v;
    return out;
  }

  function violation(text, st, reads, extra) {
    return Object.assign({ formula: text, state: st.index, time: st.time, cells: reads }, extra || {});
  }

  // One formula at one state: { ok: true } | { ok: false, why } | { later: residual }.
  function evaluate(f, st) {
    if (f instanceof Pure) return f.value ? TRUE : { ok: false, why: violation(f.text, st, {}) };
    if (f instanceof Thunk) {
      const outer = runtime.reads;
      const reads = new Map();
      runtime.reads = reads;
      let result;
      try {
        result = f.fn();
      } finally {
        runtime.reads = outer;
        if (outer) for (const [k, v] of reads) outer.set(k, v);
      }
      if (typeof result === "boolean") {
        return result ? TRUE : { ok: false, why: violation(f.text, st, readsOf(reads)) };
      }
      if (result instanceof Formula) return evaluate(result, st);
      throw new TypeError(
        "the function " + f.text + " returned " + describe(result) + ", not a boolean or a formula",
      );
    }
    if (f instanceof Not) {
      const v = evaluate(f.sub, st);
      if (holds(v)) return { ok: false, why: violation(String(f), st, {}, { note: "held, but is negated" }) };
      if (fails(v)) return TRUE;
      return later(new Not(v.later));
    }
    if (f instanceof And) {
      const a = evaluate(f.left, st);
      if (fails(a)) return a;
      const b = evaluate(f.right, st);
      if (fails(b)) return b;
      if (holds(a)) return b;
      if (holds(b)) return a;
      return later(new And(a.later, b.later));
    }
    if (f instanceof Or) {
      const a = evaluate(f.left, st);
      if (holds(a)) return a;
      const b = evaluate(f.right, st);
      if (holds(b)) return b;
      if (fails(a) && fails(b)) return { ok: false, why: Object.assign({}, b.why, { also: a.why }) };
      if (fails(a)) return b;
      if (fails(b)) return a;
      return later(new Or(a.later, b.later));
    }
    if (f instanceof Implies) {
      const a = evaluate(f.left, st);
      if (fails(a)) return TRUE;
      const b = evaluate(f.right, st);
      if (holds(a) || holds(b)) return b;
      if (fails(b)) return later(new Not(a.later));
      return later(new Implies(a.later, b.later));
    }
    if (f instanceof Next) return later(f.sub);
    if (f instanceof Always) {
      return evaluate(new AlwaysFrom(f.sub, f.bound == null ? Infinity : st.time + f.bound, st), st);
    }
    if (f instanceof Eventually) {
      return evaluate(
        new EventuallyFrom(f.sub, f.bound == null ? Infinity : st.time + f.bound, st),
        st,
      );
    }
    if (f instanceof AlwaysFrom) {
      if (st.time > f.deadline) return TRUE;
      const v = evaluate(f.sub, st);
      if (fails(v)) return v;
      if (holds(v)) return later(f);
      return later(new And(v.later, f));
    }
    if (f instanceof EventuallyFrom) {
      if (st.time > f.deadline) {
        return {
          ok: false,
          why: violation(String(f.sub), st, f.last ? f.last.cells : {}, {
            note:
              "did not hold within " + (f.deadline - f.from.time) + " ms of state " + f.from.index +
              (f.last ? " (last false at state " + f.last.state + ")" : ""),
          }),
        };
      }
      const v = evaluate(f.sub, st);
      if (holds(v)) return v;
      if (fails(v)) {
        // The cells it read the last time it was false: what the report shows.
        f.last = v.why;
        return later(f);
      }
      return later(new Or(v.later, f));
    }
    throw new TypeError("not a formula: " + describe(f));
  }

  // The verdict of what is left when the trace ends: an `always` that held so far is
  // presumed to hold, an `eventually` not yet met is pending, a `next` past the end holds.
  // Ordered FALSE < PENDING < HELD < TRUE, so `and` is the least and `or` the greatest.
  const HELD = 2;
  const PENDING = 1;
  function stop(r) {
    if (r instanceof AlwaysFrom) return HELD;
    if (r instanceof EventuallyFrom) return PENDING;
    if (r instanceof And) return Math.min(stop(r.left), stop(r.right));
    if (r instanceof Or) return Math.max(stop(r.left), stop(r.right));
    if (r instanceof Not) return 3 - stop(r.sub);
    if (r instanceof Implies) return Math.max(3 - stop(r.left), stop(r.right));
    return HELD;
  }

  function describe(v) {
    if (v === null) return "null";
    if (typeof v === "function") return "a function";
    if (typeof v === "object") return "an object (" + (v.constructor ? v.constructor.name : "?") + ")";
    return typeof v + " " + String(v);
  }

  // What the entry module exports, sorted: properties, oracles of ours, action generators.
  let spec = null;
  function exported() {
    if (spec) return spec;
    const entry = require(exports.entry);
    spec = { properties: [], oracles: [], actions: [], explorer: [], ignored: [] };
    for (const name of Object.keys(entry).sort()) {
      const v = entry[name];
      if (v instanceof Formula) spec.properties.push({ name, formula: v });
      else if (v && v.__wayfarerOracle) spec.oracles.push({ name, kind: v.__wayfarerOracle });
      else if (v instanceof ActionGenerator) spec.actions.push({ name, gen: v });
      else if (v && v.__wayfarerExplorer) spec.explorer.push(name);
      else spec.ignored.push({ name, what: describe(v) });
    }
    return spec;
  }

  // JSON only: what an extractor returns crosses to the host as JSON.
  function checkJson(v, path) {
    if (v === null || typeof v === "string" || typeof v === "boolean") return null;
    if (typeof v === "number") return Number.isFinite(v) ? null : path + " is " + v;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const e = checkJson(v[i], path + "[" + i + "]");
        if (e) return e;
      }
      return null;
    }
    if (typeof v === "object") {
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return path + " is " + describe(v);
      for (const k of Object.keys(v)) {
        const e = checkJson(v[k], path + "." + k);
        if (e) return e;
      }
      return null;
    }
    return path + " is " + describe(v);
  }

  // In the page: every extractor on the state, as [index, value] or [index, null, error].
  exports.extract = function (partial, doc, win) {
    exported();
    const state = Object.assign({}, partial, { document: doc, window: win });
    const out = [];
    for (const cell of runtime.cells) {
      if (cell === B.__time) continue;
      runtime.extracting++;
      try {
        const v = cell.query(state);
        const bad = checkJson(v, "the value");
        if (bad) out.push([cell.index, null, "returned a value that is not JSON: " + bad]);
        else out.push([cell.index, v === undefined ? null : v]);
      } catch (e) {
        out.push([cell.index, null, "threw: " + (e && e.stack ? String(e.stack).split("\n").slice(0, 3).join(" | ") : String(e))]);
      } finally {
        runtime.extracting--;
      }
    }
    return out;
  };

  // The entry module's exports (tests, and the exported Playwright specs).
  exports.entryModule = function () {
    return require(exports.entry);
  };

  // In the host: what the spec exports, for wayfarer to report and check.
  exports.describe = function () {
    const s = exported();
    return {
      properties: s.properties.map((p) => ({ name: p.name, formula: String(p.formula) })),
      oracles: s.oracles.map((o) => ({ name: o.name, kind: o.kind })),
      actions: s.actions.map((a) => a.name),
      explorer: s.explorer,
      ignored: s.ignored,
      cells: runtime.cells.map((c, i) => cellName(i)),
    };
  };

  // A value shown in a violation is cut to this many characters.
  const VALUE_CHARS = 120;

  // "max_shown violated: `() => count.current <= 5` was false (count = 6)": what wayfarer
  // reports and an exported test fails with. An `or` that failed carries each side's
  // failure in `also`: none of them held.
  function message(v) {
    const formulas = [];
    for (let at = v; at; at = at.also) formulas.push("`" + (at.formula || "") + "`");
    formulas.reverse();
    let s =
      formulas.length === 1
        ? v.property + " violated: " + formulas[0] + " was false"
        : v.property + " violated: none held of " + formulas.join(", ");
    if (v.note) s += ": " + v.note;
    const cells = Object.entries(v.cells || {}).map(([k, val]) => {
      let shown = JSON.stringify(val);
      if (shown === undefined) shown = String(val);
      const chars = Array.from(shown);
      if (chars.length > VALUE_CHARS) shown = chars.slice(0, VALUE_CHARS).join("") + "...";
      return k + " = " + shown;
    });
    if (cells.length) s += " (" + cells.join(", ") + ")";
    return s;
  }

  // Per episode: each property's residual (null before the first state), or its end.
  let live = [];
  let index = 0;
  exports.begin = function () {
    live = exported().properties.map((p) => ({ name: p.name, formula: p.formula, residual: null, done: null }));
    index = 0;
  };

  // One captured state: the extractors' values and the state's time (ms). Returns the
  // properties violated at this state and those whose evaluation threw.
  exports.step = function (values, time) {
    if (live.length === 0 && exported().properties.length > 0) exports.begin();
    index += 1;
    runtime.time = time;
    const failed = new Set();
    for (const [i, v, err] of values) {
      const c = runtime.cells[i];
      if (!c) continue;
      if (err) {
        c.has = false;
        failed.add(i);
      } else {
        c.has = true;
        c.value = v;
      }
    }
    B.__time.has = true;
    B.__time.value = time;
    const st = { index, time };
    const violations = [];
    const errors = [];
    for (const p of live) {
      if (p.done) continue;
      try {
        const v = evaluate(p.residual || p.formula, st);
        if (holds(v)) {
          p.done = "held";
        } else if (fails(v)) {
          p.done = "violated";
          const found = Object.assign({ property: p.name }, v.why);
          found.message = message(found);
          violations.push(found);
        } else {
          p.residual = v.later;
        }
      } catch (e) {
        p.done = "error";
        errors.push({ property: p.name, state: index, message: String(e && e.message ? e.message : e) });
      }
    }
    return { violations, errors };
  };

  // The earliest time (ms) at which a property still undecided is due: the deadline of an
  // `eventually(..).within(..)` not yet met; null when none is. A replay that ends before
  // it waits and looks once more, so a violation found by waiting is found again.
  function dueOf(r) {
    if (r instanceof EventuallyFrom) return Number.isFinite(r.deadline) ? r.deadline : null;
    let subs = [];
    if (r instanceof And || r instanceof Or || r instanceof Implies) subs = [r.left, r.right];
    else if (r instanceof Not) subs = [r.sub];
    let best = null;
    for (const s of subs) {
      const d = dueOf(s);
      if (d != null && (best == null || d < best)) best = d;
    }
    return best;
  }
  exports.due = function () {
    let best = null;
    for (const p of live) {
      if (p.done || !p.residual) continue;
      const d = dueOf(p.residual);
      if (d != null && (best == null || d < best)) best = d;
    }
    return best;
  };

  // The episode ends: the verdict of each property not yet decided.
  exports.end = function () {
    const out = live.map((p) => {
      if (p.done) return { property: p.name, verdict: p.done };
      if (!p.residual) return { property: p.name, verdict: "unchecked" };
      return { property: p.name, verdict: stop(p.residual) >= HELD ? "held" : "pending" };
    });
    live = [];
    index = 0;
    return out;
  };

  // The spec's own action generators at this state: [weight, action] with the weights
  // multiplied down each tree; an action the state cannot take is the generator's to avoid.
  exports.actions = function (seedValue) {
    runtime.seed(seedValue);
    const out = [];
    const errors = [];
    function walk(tree, w) {
      if (!tree || typeof tree !== "object") throw new TypeError("an action generator returned " + describe(tree));
      if ("value" in tree) {
        const v = tree.value;
        if (v && v.__wayfarerExplorer) {
          throw new Error(
            "uses Bombadil's default `" + v.__wayfarerExplorer + "` inside a generator: wayfarer " +
              "performs the defaults with its own explorer, so export them as they are " +
              "(`export * from \"@antithesishq/bombadil/browser/defaults\"`) beside your own generators",
          );
        }
        if (w > 0) out.push([w, v]);
        return;
      }
      const total = tree.branches.reduce((s, [bw]) => s + bw, 0);
      if (total === 0) return;
      for (const [bw, sub] of tree.branches) walk(sub, (w * bw) / total);
    }
    for (const a of exported().actions) {
      try {
        walk(a.gen.generate(), 1);
      } catch (e) {
        errors.push({ generator: a.name, message: String(e && e.message ? e.message : e) });
      }
    }
    return { actions: out, errors };
  };
});
