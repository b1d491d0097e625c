// The scan: a function returning the whole observation as a JSON string shaped like
// wayfarer_core::Observation. It is installed once per document (scan.rs) and called with
// cfg = {deny: [{selector, text}], maxElements, maxTags, maxHtml, errorsOnly, facts}, facts
// the page checks' extractors by name (functions; an answer is kept only when it is JSON).
// With errorsOnly it returns {error_text} alone, found exactly as a full scan finds it
// (state inference's probe), and skips the walk when no error pattern is in the page text.
(function (cfg) {
  "use strict";
  const MAX_EL = cfg.maxElements, MAX_TAGS = cfg.maxTags, MAX_HTML = cfg.maxHtml;
  const ERR_ONLY = !!cfg.errorsOnly;
  const MAX_TEXT_LEAVES = Math.floor(MAX_EL * 0.75);
  const LISTENERS = Symbol.for("wayfarer.listeners");
  // Listener types that make an element a control to click (its reasons); the others
  // recorded are gestures of their own (`gesturesOf`).
  const CLICK_TYPES = new Set(["click", "dblclick", "mousedown", "mouseup", "pointerdown", "pointerup", "keydown"]);
  const GESTURE_OF = { contextmenu: "context_menu", mouseenter: "hover", mouseover: "hover", keyup: "keys", keypress: "keys",
    scroll: "scroll", wheel: "scroll", dragstart: "drag", dragover: "drop", drop: "drop" };
  const SKIP = new Set(["script", "style", "noscript", "template", "head", "meta", "link", "title", "base"]);
  const ACTION_TAGS = new Set(["button", "textarea", "select", "summary"]);
  const ACTION_ROLES = new Set(["button", "link", "checkbox", "tab", "menuitem", "option", "radio", "switch"]);
  const ATTRS = ["id", "name", "class", "placeholder", "aria-label", "href", "min", "max", "step", "pattern",
    "minlength", "maxlength", "multiple", "required", "title", "alt", "for", "action", "method", "autocomplete",
    "data-testid", "data-test-id", "data-test", "data-cy", "data-qa", "data-test-subj", "data-automation-id",
    "data-e2e", "data-pw", "readonly", "accept", "src", "contenteditable", "role", "type", "data-action-id",
    "accesskey", "aria-keyshortcuts", "aria-autocomplete", "list"];
  const HTML_ATTRS = ["id", "class", "name", "type", "href", "role", "aria-label", "placeholder", "for",
    "action", "method", "title", "alt", "value", "data-testid"];
  const IMPLICIT_ROLE = {
    a: "link", button: "button", select: "combobox", textarea: "textbox", summary: "button", nav: "navigation",
    form: "form", table: "table", ul: "list", ol: "list", li: "listitem", img: "img", main: "main",
    h1: "heading", h2: "heading", h3: "heading", h4: "heading", h5: "heading", h6: "heading", dialog: "dialog",
  };
  // The lines of a stack trace: no prose holds one, so where they stand is not judged.
  const FRAME_ANON = /\bat Object\.<anonymous>/, FRAME_AT = /\n\s+at [\w.$<>]+ \([^)]*:\d+:\d+\)/;
  const ERROR_PATTERNS = [/Internal Server Error/, /Traceback \(most recent call last\)/, /Exception in thread/,
    FRAME_ANON, /Whitelabel Error Page/, /Stack trace:/, /Fatal error:/, /Unhandled exception/i,
    /Server Error in '/, FRAME_AT];

  // The optional instrumentation of the application (wayfarer_core::AppProbe).
  function appProbe() {
    const log = window.__wfActions;
    const wfState = document.body ? document.body.getAttribute("data-wf-state") : null;
    if (!Array.isArray(log) && wfState === null) return null;
    return { state: wfState, actions: Array.isArray(log) ? log.slice(-5000).map(String) : [] };
  }
  // Elements of the main document: a cheap fingerprint a guessed page is checked against.
  function domSize() { return document.getElementsByTagName("*").length; }
  // The parts of the page that open and close in place, shown now, as "role:name" (at
  // most 20; digits in names as "#", so "Edit item 42" is one region for every item).
  const REGIONS = 'dialog[open], [role="dialog"], [role="alertdialog"], [aria-modal="true"], ' +
    '[role="menu"], [role="listbox"], [role="tabpanel"], aside, [role="complementary"]';
  function regionsOf() {
    const out = [];
    let found = [];
    try { found = document.querySelectorAll(REGIONS); } catch (e) { return out; }
    for (const el of found) {
      if (out.length >= 20) break;
      const b = el.getBoundingClientRect();
      if (!(b.width > 0 && b.height > 0)) continue;
      const cs = getComputedStyle(el);
      if (cs.visibility === "hidden" || cs.visibility === "collapse") continue;
      const role = el.getAttribute("role") || (el.localName === "dialog" ? "dialog" : el.localName === "aside" ? "complementary" : el.localName);
      let name = el.getAttribute("aria-label") || "";
      const by = el.getAttribute("aria-labelledby");
      if (!name && by) { const l = document.getElementById(by.trim().split(/\s+/)[0]); if (l) name = textHead(l, 200); }
      if (!name) { const h = el.querySelector("h1, h2, h3, h4, legend, [role=heading]"); if (h) name = textHead(h, 200); }
      out.push(role + ":" + squash(name, 60).replace(/[0-9]+/g, "#"));
    }
    return out;
  }
  // The first `max` characters of the text under `node` (textContent's text), without
  // building the whole of it: a 50 MB page's textContent cost seconds a scan.
  function textHead(node, max) {
    if (!node) return "";
    if (node.nodeType === 3) return node.data.length > max ? node.data.slice(0, max) : node.data;
    let out = "";
    const w = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
    for (let n = w.nextNode(); n && out.length < max; n = w.nextNode()) out += n.data.length > max ? n.data.slice(0, max) : n.data;
    return out.length > max ? out.slice(0, max) : out;
  }
  // Characters of a text read for a name or label: enough for 100 once spaces collapse.
  const TEXT_HEAD = 10000;
  if (ERR_ONLY) {
    const all = textHead(document.documentElement, 2000000);
    if (!ERROR_PATTERNS.some(re => re.test(all))) return JSON.stringify({ error_text: null, app: appProbe(), dom_size: domSize() });
  }
  const deny = (cfg.deny || []).map(r => ({ selector: r.selector || null, text: r.text ? r.text.toLowerCase() : null }));
  const elements = [];
  const tags = [];
  // The built-in page checks (wayfarer_core's oracle): placeholder text shown where a
  // value should be, fields without an accessible name, images without pixels.
  const placeholders = [];
  const unnamed = [];
  const PLACEHOLDER_HINT = /\[object Object\]|NaN|undefined|null/;
  const CODE_LIKE = "code, pre, kbd, samp, var, textarea, [contenteditable=''], [contenteditable='true']";
  // "[object Object]" anywhere and "NaN" as a word; "undefined" and "null" as a word of a
  // short text only (a label or a value; prose may say them), not after "is" or "not"
  // (a filter's operator, "is null" on Datasette; a phrase, not a value) and not in
  // quotes (a word mentioned: 'not to return "null"' in TiddlyWiki's release notes).
  const VALUE_WORD = /(^|[^\w-])(undefined|null)(?=[^\w-]|$)/g;
  const PHRASE_BEFORE = /(^|[^\w'])(is|not|be|being|are|was|were|isn't|aren't)\s+$/i;
  const QUOTES = "\"'\u201c\u201d\u2018\u2019";
  function valueWord(s) {
    if (s.length > 40) return false;
    for (const m of s.matchAll(VALUE_WORD)) {
      const at = m.index + m[1].length, end = at + m[2].length;
      if (PHRASE_BEFORE.test(s.slice(0, at))) continue;
      if (QUOTES.includes(s[at - 1] || "") && QUOTES.includes(s[end] || "")) continue;
      return true;
    }
    return false;
  }
  function placeholderIn(t, el) {
    const s = squash(t, 200);
    const strong = s.includes("[object Object]") || /(^|[^\w])NaN([^\w]|$)/.test(s);
    if (!strong && !valueWord(s)) return null;
    try { if (el.closest(CODE_LIKE)) return null; } catch (e) { return null; }
    // Shown as the reader sees it: the enclosing block's text ("Total: NaN"), when short.
    // A word's text is judged there too: a text node cut short by a link ("[[Fixed]] not
    // to return null for an empty list") is part of a sentence, not a value.
    try {
      const block = el.closest(SHOWN_IN);
      const whole = block ? squash(block.textContent, 200) : "";
      if (whole.length <= 120 && whole.includes(s)) return strong || valueWord(whole) ? whole : null;
    } catch (e) { /* the text node's own text */ }
    return s;
  }
  const SHOWN_IN = "p, li, td, th, dd, dt, label, legend, caption, figcaption, h1, h2, h3, h4, h5, h6, button, a, div";
  const FIELD_TYPES_NAMED_BY_VALUE = new Set(["hidden", "submit", "reset", "button", "image"]);
  // A field a screen reader announces without a name (the accessible name's sources,
  // placeholder included as Chromium includes it).
  function isUnnamedField(el, tag, type) {
    if (!(tag === "select" || tag === "textarea" || (tag === "input" && !FIELD_TYPES_NAMED_BY_VALUE.has(type)))) return false;
    const has = (a) => { const v = el.getAttribute(a); return v !== null && v.trim() !== ""; };
    if (has("aria-label") || has("title") || has("placeholder")) return false;
    try {
      if (el.labels && Array.from(el.labels).some(l => l.textContent.trim() !== "")) return false;
      const lb = el.getAttribute("aria-labelledby");
      if (lb) {
        const root = el.getRootNode();
        if (lb.split(/\s+/).some(id => { const r = root.getElementById ? root.getElementById(id) : null; return r && r.textContent.trim() !== ""; })) return false;
      }
    } catch (e) { return false; }
    return true;
  }
  function brokenImages() {
    const out = [];
    const imgs = document.images;
    for (let i = 0; i < imgs.length && i < 2000 && out.length < 10; i++) {
      const img = imgs[i];
      const src = img.currentSrc || img.src;
      // complete && no pixels: loaded and broken (a lazy image not loaded yet is not
      // complete). An SVG without a size of its own may report no pixels: skipped.
      if (!src || !img.complete || img.naturalWidth !== 0 || /^data:image\/svg|\.svg([?#]|$)/i.test(src)) continue;
      out.push(src.length > 300 ? src.slice(0, 300) : src);
    }
    return out;
  }
  let html = "";
  let textLeaves = 0;
  let errorCorpus = "";
  // [offset in errorCorpus, element holding the text node] per text node kept, in order.
  const errorNodes = [];
  const loweredErrorCap = 200000;
  // The walk stops after this many elements, or once nothing more would be kept (every
  // list full): a page of 50,000 elements kept the first 2000 but paid style and layout
  // reads for all of them. The same in both modes, so the probe's error text is the scan's.
  const MAX_VISIT = cfg.maxVisit || 30000;
  let visited = 0;
  const saturated = () => visited >= MAX_VISIT || (errorCorpus.length >= loweredErrorCap
    && (ERR_ONLY || (elements.length >= MAX_EL && tags.length >= MAX_TAGS && html.length >= MAX_HTML)));

  const squash = (s, n) => { s = (s || "").replace(/\s+/g, " ").trim(); return s.length > n ? s.slice(0, n) : s; };
  const esc = s => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

  // Per-root counts so uniqueness checks are O(1) instead of a querySelectorAll per element.
  const rootInfo = new Map();
  function infoOf(root) {
    let info = rootInfo.get(root);
    if (info) return info;
    info = { ids: new Map(), testids: new Map(), names: new Map() };
    for (const e of root.querySelectorAll("[id],[data-testid],[name]")) {
      const bump = (m, k) => m.set(k, (m.get(k) || 0) + 1);
      // getAttribute: a form's `.id` is its control named "id" when it has one.
      const id = e.getAttribute("id"); if (id) bump(info.ids, id);
      const t = e.getAttribute("data-testid"); if (t) bump(info.testids, t);
      const n = e.getAttribute("name"); if (n) bump(info.names, e.localName + "\u0000" + n);
    }
    rootInfo.set(root, info);
    return info;
  }
  const attrSel = (name, v) => "[" + name + "=\"" + v.replace(/\\/g, "\\\\").replace(/"/g, "\\\"") + "\"]";
  const pathCache = new Map();
  // Per parent node, in one pass over its children: each child's rank among the siblings
  // of its tag, and how many share each tag. A pass per child was quadratic: 50,000
  // siblings took 8-13 s a scan.
  const ranks = new Map();
  function rankOf(el) {
    const parent = el.parentNode;
    if (!parent) return [1, 1];
    let r = ranks.get(parent);
    if (!r) {
      const rank = new Map(), count = new Map();
      for (let s = parent.firstElementChild; s; s = s.nextElementSibling) {
        const k = (count.get(s.localName) || 0) + 1;
        count.set(s.localName, k);
        rank.set(s, k);
      }
      r = [rank, count];
      ranks.set(parent, r);
    }
    return [r[0].get(el) || 1, r[1].get(el.localName) || 1];
  }
  function segment(el) {
    const tag = CSS.escape(el.localName);
    if (!el.parentElement) return tag;
    const [k, n] = rankOf(el);
    return n > 1 ? tag + ":nth-of-type(" + k + ")" : tag;
  }
  function uniqueId(el, info) {
    const id = el.getAttribute("id");
    return id && info.ids.get(id) === 1 ? "#" + CSS.escape(id) : null;
  }
  // A selector unique within the element's own root (document or shadow root).
  function locatorIn(el) {
    const root = el.getRootNode();
    const info = infoOf(root);
    const byId = uniqueId(el, info);
    if (byId) return byId;
    const t = el.getAttribute("data-testid");
    if (t && info.testids.get(t) === 1) return attrSel("data-testid", t);
    const n = el.getAttribute("name");
    if (n && info.names.get(el.localName + "\u0000" + n) === 1) return CSS.escape(el.localName) + attrSel("name", n);
    return pathOf(el, info);
  }
  function pathOf(el, info) {
    if (pathCache.has(el)) return pathCache.get(el);
    const parent = el.parentElement;
    let p;
    if (!parent) p = CSS.escape(el.localName);
    else {
      const pid = uniqueId(parent, info);
      p = (pid || pathOf(parent, info)) + " > " + segment(el);
    }
    pathCache.set(el, p);
    return p;
  }
  function xpathOf(el) {
    const parts = [];
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) parts.unshift(e.localName + "[" + rankOf(e)[0] + "]");
    return "/" + parts.join("/");
  }

  // A label's text without the control's own text (a wrapping label holds the control).
  function textOutside(label, el) {
    if (!label.contains(el)) return textHead(label, TEXT_HEAD);
    let out = "";
    const w = document.createTreeWalker(label, NodeFilter.SHOW_TEXT);
    for (let n = w.nextNode(); n; n = w.nextNode()) if (!el.contains(n)) out += n.data;
    return out;
  }

  // The form an element belongs to: its form owner (the form attribute counts), else
  // the enclosing form; strategies fill it before a submit.
  function formOf(el, prefix) {
    const f = (el.form instanceof HTMLFormElement) ? el.form : el.closest("form");
    return f ? prefix + locatorIn(f) : null;
  }

  function labelOf(el) {
    try {
      if (el.labels && el.labels.length) {
        const t = squash(Array.from(el.labels).map(l => textOutside(l, el)).join(" "), 100);
        if (t) return t;
      }
      const lb = el.getAttribute("aria-labelledby");
      if (lb) {
        const root = el.getRootNode();
        const t = squash(lb.split(/\s+/).map(id => { const r = root.getElementById ? root.getElementById(id) : null; return r ? textHead(r, TEXT_HEAD) : ""; }).join(" "), 100);
        if (t) return t;
      }
      // Nearest preceding text: previous siblings, then the parent's, three levels up.
      let node = el;
      for (let depth = 0; depth < 3 && node; depth++) {
        for (let s = node.previousSibling; s; s = s.previousSibling) {
          if (s.nodeType === 1 && SKIP.has(s.localName)) continue;
          const t = squash(textHead(s, TEXT_HEAD), 1000);
          if (t) return t.length > 100 ? t.slice(t.length - 100) : t;
        }
        node = node.parentNode;
      }
    } catch (e) { /* detached or odd node */ }
    return "";
  }

  function roleOf(el) {
    const r = el.getAttribute("role");
    if (r) return r.trim().split(/\s+/)[0];
    if (el.localName === "a") return el.hasAttribute("href") ? "link" : null;
    if (el.localName === "input") {
      const t = (el.type || "text").toLowerCase();
      if (t === "checkbox" || t === "radio") return t;
      if (["submit", "button", "reset", "image"].includes(t)) return "button";
      if (t === "range") return "slider";
      if (t === "hidden") return null;
      return "textbox";
    }
    return IMPLICIT_ROLE[el.localName] || null;
  }

  function reasonsOf(el, cs, parentCursor) {
    const r = [];
    const tag = el.localName;
    if (tag === "a" && el.hasAttribute("href")) r.push("tag:a");
    else if (tag === "input" && (el.type || "").toLowerCase() !== "hidden") r.push("tag:input");
    else if (ACTION_TAGS.has(tag)) r.push("tag:" + tag);
    const role = el.getAttribute("role");
    if (role && ACTION_ROLES.has(role.trim())) r.push("role:" + role.trim());
    if (el.hasAttribute("onclick")) r.push("onclick");
    const ti = el.getAttribute("tabindex");
    if (ti !== null && parseInt(ti, 10) >= 0) r.push("tabindex");
    if (el.isContentEditable && (!el.parentElement || !el.parentElement.isContentEditable)) r.push("contenteditable");
    if (cs.cursor === "pointer" && parentCursor !== "pointer") r.push("cursor:pointer");
    // Click-like listeners recorded by listeners.js (absent when [actions] listeners is
    // off). The root and body are left out: a listener there delegates for the whole page.
    if (tag !== "html" && tag !== "body") {
      const w = el.ownerDocument && el.ownerDocument.defaultView;
      const marks = w ? w[LISTENERS] : null;
      const byType = marks ? marks.get(el) : null;
      if (byType) for (const [type, set] of byType) if (set.size && CLICK_TYPES.has(type)) r.push("listener:" + type);
    }
    return r;
  }

  // Gestures the element listens for besides clicks: "hover" (a mouseenter or mouseover
  // listener, or a stylesheet rule that shows something while it is hovered),
  // "context_menu", "keys" (keyup or keypress).
  function gesturesOf(el) {
    const g = [];
    const tag = el.localName;
    if (tag !== "html" && tag !== "body") {
      const w = el.ownerDocument && el.ownerDocument.defaultView;
      const marks = w ? w[LISTENERS] : null;
      const byType = marks ? marks.get(el) : null;
      if (byType) for (const [type, set] of byType) {
        const k = GESTURE_OF[type];
        // A scroll listener counts where there is something to scroll.
        if (k === "scroll" && !(el.scrollHeight > el.clientHeight + 10)) continue;
        if (set.size && k && !g.includes(k)) g.push(k);
      }
    }
    if (!g.includes("drag") && el.getAttribute("draggable") === "true") g.push("drag");
    // A list that takes native drags for its items (SortableJS) is not itself dragged.
    if (g.includes("drag") && el.getAttribute("draggable") !== "true" && Array.from(el.children).some(sortableItem)) {
      g.splice(g.indexOf("drag"), 1);
    }
    // An item of a sortable list is dragged onto its siblings: "sort:N", N the list's
    // number in this scan.
    if (sortableItem(el)) {
      const list = el.parentElement;
      if (!sortLists.has(list)) sortLists.set(list, sortLists.size);
      g.push("sort:" + sortLists.get(list));
    }
    if (!g.includes("hover") && hoverTriggers.some(sel => { try { return el.matches(sel); } catch (e) { return false; } })) g.push("hover");
    return g;
  }

  // Whether `el` listens (its own listeners) for any of `types`.
  function listensFor(el, types) {
    const w = el.ownerDocument && el.ownerDocument.defaultView;
    const marks = w ? w[LISTENERS] : null;
    const byType = marks ? marks.get(el) : null;
    return !!byType && types.some(t => { const set = byType.get(t); return !!set && set.size > 0; });
  }
  const POINTER_DOWN = ["pointerdown", "mousedown", "touchstart"];
  const sortLists = new Map();
  // Children of a list by tag name, counted once per list in a scan.
  const alikeCounts = new Map();
  function alikeCount(list, tag) {
    let counts = alikeCounts.get(list);
    if (!counts) {
      counts = new Map();
      for (const c of list.children) counts.set(c.localName, (counts.get(c.localName) || 0) + 1);
      alikeCounts.set(list, counts);
    }
    return counts.get(tag) || 0;
  }
  // An item of a list sorted by dragging: one of at least two alike children of a list
  // that takes the pointer going down (or that its items take themselves) and says it
  // sorts: by native drags over it (SortableJS), a move or grab cursor on the items
  // (jQuery UI, most hand-made lists), a "sortable" class or an ARIA role description.
  // Checked cheapest first: a page of 50,000 buttons under one parent must not count
  // their siblings 50,000 times (the children of a list are counted once, `alikeCount`).
  function sortableItem(el) {
    const p = el.parentElement;
    if (!p || p === document.body || p === document.documentElement) return false;
    const described = /sortable|draggable/i.test(el.getAttribute("aria-roledescription") || "");
    if (!described && !listensFor(p, POINTER_DOWN) && !listensFor(el, POINTER_DOWN)) return false;
    if (alikeCount(p, el.localName) < 2) return false;
    if (described) return true;
    if (listensFor(p, ["dragover", "drop", "dragstart"])) return true;
    if (/(^|[\s_-])(ui-)?sortable([\s_-]|$)/.test(typeof p.className === "string" ? p.className : "")) return true;
    const cursor = getComputedStyle(el).cursor;
    return cursor === "grab" || cursor === "move" || cursor === "-webkit-grab";
  }

  // The page checks' extractors' answers; one that throws or answers nothing (null, an
  // empty list) is left out: most pages have nothing to say to most checks.
  function factsOf(extractors) {
    const out = {};
    if (!extractors) return out;
    for (const name of Object.keys(extractors)) {
      try {
        const v = extractors[name]();
        if (v === undefined || v === null || (Array.isArray(v) && !v.length)) continue;
        out[name] = JSON.parse(JSON.stringify(v));
      } catch (e) { /* a check's script failing is not the page's failure */ }
    }
    return out;
  }

  // What the page listens for on the window, the document, its root and body: handlers
  // of the whole page's events, which read `event.target` (a delegated double click).
  function delegatedTypes() {
    const out = new Set();
    const marks = window[LISTENERS];
    if (!marks) return [];
    const note = (type, set) => { if (set && set.size) out.add(type); };
    if (marks.delegated) for (const [type, set] of marks.delegated) note(type, set);
    if (marks.observed && marks.observed.count > 0) out.add("intersection");
    for (const el of [document.documentElement, document.body]) {
      const byType = el ? marks.get(el) : null;
      if (byType) for (const [type, set] of byType) note(type, set);
    }
    return Array.from(out).sort();
  }

  // Selectors of elements whose hover shows something: rules like `.menu:hover > ul
  // { display: block }` (a combinator after `:hover`, a declaration that shows), from
  // the stylesheets the page may read. Kept per document until its sheets change.
  const HOVER = Symbol.for("wayfarer.hover");
  function hoverTriggersOf() {
    let sheets = [];
    try { sheets = Array.from(document.styleSheets); } catch (e) { return []; }
    const cached = window[HOVER];
    if (cached && cached.count === sheets.length) return cached.triggers;
    const triggers = [];
    const shows = st => (st.display && st.display !== "none") || st.visibility === "visible" ||
      (st.opacity !== "" && st.opacity !== "0") || (st.maxHeight && st.maxHeight !== "0px" && st.maxHeight !== "0");
    const walk = rules => {
      for (const r of rules) {
        if (triggers.length >= 50) return;
        if (r.cssRules && !r.selectorText) { try { walk(r.cssRules); } catch (e) { /* unreadable */ } continue; }
        const sel = r.selectorText;
        if (!sel || !sel.includes(":hover") || !r.style || !shows(r.style)) continue;
        for (const one of sel.split(",")) {
          const m = /^(.*?):hover(?:[^\s>+~]*)\s*[>+~ ]\s*\S/.exec(one.trim());
          if (m && m[1].trim() && !triggers.includes(m[1].trim())) triggers.push(m[1].trim());
        }
      }
    };
    for (const sh of sheets) {
      let rules = null;
      try { rules = sh.cssRules; } catch (e) { rules = null; } // another origin's sheet
      if (rules) walk(rules);
    }
    try { Object.defineProperty(window, HOVER, { value: { count: sheets.length, triggers }, configurable: true }); } catch (e) { /* frozen */ }
    return triggers;
  }
  const hoverTriggers = ERR_ONLY ? [] : hoverTriggersOf();

  function deniedBy(el, text, label) {
    for (const d of deny) {
      if (d.text) {
        const aria = (el.getAttribute("aria-label") || "").toLowerCase();
        if (text.toLowerCase().includes(d.text) || label.toLowerCase().includes(d.text) || aria.includes(d.text)) return true;
      }
    }
    return false;
  }

  function hasOwnText(el) {
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3 && c.data.trim()) return true;
    }
    return false;
  }

  function textOf(el) {
    const tag = el.localName;
    if (tag === "input") {
      const t = (el.type || "").toLowerCase();
      if (["submit", "button", "reset"].includes(t)) return squash(el.value, 100);
      return "";
    }
    if (tag === "select" || tag === "textarea") return "";
    return squash(textHead(el, TEXT_HEAD), 100);
  }

  // ctx: {prefix, xprefix, ox, oy, hidden, cursor, denied}
  function visit(el, ctx) {
    if (saturated()) return;
    visited++;
    const tag = el.localName;
    if (!ERR_ONLY && tags.length < MAX_TAGS) tags.push(tag);
    const skip = SKIP.has(tag);
    let cs = null, visible = false, rect = null;
    let hidden = ctx.hidden;
    if (!hidden && !skip) {
      cs = getComputedStyle(el);
      if (cs.display === "none") hidden = true;
      // The box only matters for an element still to be kept, or a frame's offset.
      else if (elements.length < MAX_EL || tag === "iframe" || tag === "frame") {
        const b = el.getBoundingClientRect();
        rect = b;
        visible = b.width > 0 && b.height > 0 && cs.visibility !== "hidden" && cs.visibility !== "collapse";
      }
    }
    const cursor = cs ? cs.cursor : ctx.cursor;
    // Selector rules cover descendants (also across shadow/frame boundaries); text rules
    // only the element whose own text matches.
    let denied = ctx.denied;
    if (!denied) {
      for (const d of deny) {
        if (d.selector) { try { if (el.matches(d.selector)) { denied = true; break; } } catch (e) { /* bad selector */ } }
      }
    }
    // A file input is often hidden behind a styled button or label: it is kept (not
    // shown) so an upload can set it, as a file chooser would.
    const fileInput = tag === "input" && (el.type || "").toLowerCase() === "file";
    if (!ERR_ONLY && (visible || fileInput) && elements.length < MAX_EL) {
      const reasons = reasonsOf(el, cs || {}, ctx.cursor);
      const gestures = gesturesOf(el);
      const isLeaf = !reasons.length && !gestures.length && hasOwnText(el) && textLeaves < MAX_TEXT_LEAVES;
      if (reasons.length || gestures.length || isLeaf) {
        if (isLeaf) textLeaves++;
        const text = textOf(el);
        const label = reasons.length || gestures.length ? labelOf(el) : "";
        const attrs = {};
        for (const a of ATTRS) { const v = el.getAttribute(a); if (v !== null) attrs[a] = v.length > 300 ? v.slice(0, 300) : v; }
        if ("value" in el && (tag === "input" || tag === "textarea" || tag === "select")) {
          const v = String(el.value == null ? "" : el.value);
          // Typed passwords stay out of observations (they end up in reports).
          attrs.value = el.type === "password" && v ? "********" : v.length > 300 ? v.slice(0, 300) : v;
        }
        const type = tag === "input" ? (el.getAttribute("type") || "text").toLowerCase()
          : tag === "button" ? (el.getAttribute("type") || "submit").toLowerCase() : null;
        const out = {
          locator: ctx.prefix + locatorIn(el),
          xpath: ctx.xprefix + xpathOf(el),
          tag,
          role: roleOf(el),
          type,
          attrs,
          text,
          label,
          rect: rect ? { x: rect.left + ctx.ox, y: rect.top + ctx.oy, width: rect.width, height: rect.height } : { x: 0, y: 0, width: 0, height: 0 },
          visible,
          enabled: !(el.matches(":disabled") || el.getAttribute("aria-disabled") === "true"),
          actionable: reasons,
          gestures,
          options: tag === "select" ? Array.from(el.options).filter(o => !o.matches(":disabled")).map(o => o.value) : [],
          checked: (tag === "input" && (el.type === "checkbox" || el.type === "radio")) ? !!el.checked : null,
          denied: denied || deniedBy(el, text, label),
          form: formOf(el, ctx.prefix),
          invalid: (tag === "input" || tag === "textarea" || tag === "select") && el.matches(":invalid"),
        };
        elements.push(out);
        if (reasons.length && unnamed.length < 20 && !out.denied && isUnnamedField(el, tag, type)) unnamed.push(out.locator);
      }
    }
    if (!ERR_ONLY && html.length < MAX_HTML) {
      let a = "";
      for (const n of HTML_ATTRS) { const v = el.getAttribute(n); if (v !== null && v.length < 200) a += " " + n + "=\"" + esc(v) + "\""; }
      html += "<" + tag + a + ">";
    }
    if (tag === "svg" || skip) {
      if (html.length < MAX_HTML) html += "</" + tag + ">";
      return;
    }
    const child = { prefix: ctx.prefix, xprefix: ctx.xprefix, ox: ctx.ox, oy: ctx.oy, hidden, cursor, denied };
    if (el.shadowRoot) {
      const sub = { ...child, prefix: ctx.prefix + locatorIn(el) + " >>> ", xprefix: ctx.xprefix + xpathOf(el) + " >>> " };
      for (let c = el.shadowRoot.firstElementChild; c; c = c.nextElementSibling) visit(c, sub);
    }
    if (tag === "iframe" || tag === "frame") {
      let doc = null;
      try { doc = el.contentDocument; } catch (e) { doc = null; }
      if (doc && doc.documentElement && rect) {
        const fs = getComputedStyle(el);
        const sub = {
          ...child,
          prefix: ctx.prefix + locatorIn(el) + " >>> ", xprefix: ctx.xprefix + xpathOf(el) + " >>> ",
          ox: ctx.ox + rect.left + el.clientLeft + parseFloat(fs.paddingLeft || "0"),
          oy: ctx.oy + rect.top + el.clientTop + parseFloat(fs.paddingTop || "0"),
          cursor: "auto",
        };
        visit(doc.documentElement, sub);
      }
    }
    for (let c = el.firstChild; c && !saturated(); c = c.nextSibling) {
      if (c.nodeType === 1) visit(c, child);
      else if (c.nodeType === 3) {
        const t = c.data;
        if (!t.trim()) continue;
        if (html.length < MAX_HTML) html += esc((t.length > MAX_HTML ? t.slice(0, MAX_HTML) : t).replace(/\s+/g, " "));
        const room = loweredErrorCap - errorCorpus.length;
        if (!hidden && room > 0) {
          errorNodes.push([errorCorpus.length, el]);
          errorCorpus += (t.length > room ? t.slice(0, room) : t) + "\n";
        }
        if (!hidden && !ERR_ONLY && placeholders.length < 10 && PLACEHOLDER_HINT.test(t)) {
          const p = placeholderIn(t, el);
          if (p) placeholders.push(p);
        }
      }
    }
    if (html.length < MAX_HTML) html += "</" + tag + ">";
  }

  // The error the page shows, not one its prose mentions (a wiki's "mod_wsgi gave an
  // Internal Server Error on my system"): each match judged where a reader sees it, its
  // text cut to that place (a heading, an alert, a block), not the text around it.
  // An alert is shown; a docs site's callout (Bootstrap's .alert-info) is prose.
  const ERROR_SHOWN = "h1, h2, h3, h4, h5, h6, [role=heading], [role=alert], [role=alertdialog], pre, " +
    ".error, .alert-danger, .alert-error";
  const BLOCKS = "p, li, dd, dt, td, th, caption, figcaption, blockquote, h1, h2, h3, h4, h5, h6, pre, " +
    "div, section, article, main, aside, header, footer, nav, form, fieldset, details, body";
  const CLAUSE_END = /[.!?;:](?:\s|$)/;
  const WORD = /[\p{L}\p{N}][\p{L}\p{N}'\u2019._-]*/gu;
  function errorShown() {
    for (const re of ERROR_PATTERNS) {
      let tries = 0;
      for (const m of errorCorpus.matchAll(new RegExp(re.source, re.flags + "g"))) {
        if (++tries > 20) break;
        const at = m.index + m[0].search(/\S/), end = m.index + m[0].length;
        const i = entryAt(at), el = errorNodes[i][1];
        let shown = null;
        try { shown = el.closest(ERROR_SHOWN); } catch (e) { /* the text's own block */ }
        const block = blockOf(el);
        const span = shown ? spanOf(i, n => shown.contains(n)) : spanOf(i, n => blockOf(n) === block);
        const frame = re === FRAME_ANON || re === FRAME_AT;
        if (shown || frame || !mentioned(el, span, at, end)) {
          return squash(errorCorpus.slice(Math.max(span[0], at - 60), Math.min(span[1], end + 140)), 200);
        }
      }
    }
    return null;
  }
  function blockOf(el) {
    try { return el.closest(BLOCKS) || el.getRootNode(); } catch (e) { return el; }
  }
  // The index of the errorNodes entry holding corpus offset `at`.
  function entryAt(at) {
    let lo = 0, hi = errorNodes.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (errorNodes[mid][0] <= at) lo = mid; else hi = mid - 1;
    }
    return lo;
  }
  // The corpus span [from, to) of the entries next to entry i whose elements `inside`
  // holds (a few hundred each way at most: a long page's body is one block).
  function spanOf(i, inside) {
    let a = i, b = i;
    while (a > 0 && i - a < 300 && inside(errorNodes[a - 1][1])) a--;
    while (b + 1 < errorNodes.length && b - i < 300 && inside(errorNodes[b + 1][1])) b++;
    return [errorNodes[a][0], b + 1 < errorNodes.length ? errorNodes[b + 1][0] : errorCorpus.length];
  }
  let pageTextLength = -1;
  // Whether the error phrase at [at, end) of a block's span is prose naming it: quoted or
  // in inline code, or inside a sentence that goes on around it, unless the block is
  // most of the page's text (then the page is the error).
  function mentioned(el, span, at, end) {
    const before = errorCorpus.slice(span[0], at).replace(/\s+/g, " ");
    const after = errorCorpus.slice(end, span[1]).replace(/\s+/g, " ");
    if (QUOTES.includes(before.trimEnd().slice(-1) || "\u0000") && QUOTES.includes(after.trimStart()[0] || "\u0000")) return true;
    let code = null;
    try { code = el.closest("code, kbd, samp, var"); } catch (e) { /* not in code */ }
    const whole = squash(errorCorpus.slice(span[0], span[1]), Infinity);
    if (code && squash(code.textContent, Infinity).length < whole.length) return true;
    if (pageTextLength < 0) pageTextLength = squash(errorCorpus, Infinity).length;
    if (whole.length * 2 >= pageTextLength) return false;
    const lead = (before.split(CLAUSE_END).pop().match(WORD) || []).length;
    const rest = (after.split(CLAUSE_END)[0].match(WORD) || []).length;
    return (lead >= 2 && rest >= 2) || lead >= 4;
  }

  const root = document.documentElement;
  if (root) visit(root, { prefix: "", xprefix: "", ox: window.scrollX, oy: window.scrollY, hidden: false, cursor: "auto", denied: false });

  const errorText = errorShown();
  if (ERR_ONLY) return JSON.stringify({ error_text: errorText, app: appProbe(), dom_size: domSize() });
  const de = document.documentElement;
  return JSON.stringify({
    url: location.href,
    title: document.title || "",
    tags,
    html: html.length > MAX_HTML ? html.slice(0, MAX_HTML) : html,
    elements,
    viewport: { width: window.innerWidth, height: window.innerHeight },
    page: { width: de ? de.scrollWidth : 0, height: de ? de.scrollHeight : 0 },
    status: null,
    error_text: errorText,
    placeholder_text: placeholders,
    broken_images: brokenImages(),
    unnamed_controls: unnamed,
    facts: factsOf(cfg.facts),
    regions: regionsOf(),
    delegated: delegatedTypes(),
    app: appProbe(),
    dom_size: domSize(),
  });
})
