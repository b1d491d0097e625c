// The builtins wayfarer's page scripts use, as the document had them when it started
// (this runs in an init script, before the page's own scripts), and `guard(fn)`: runs
// the synchronous `fn` with every one the page has since rewritten put back, then gives
// the page its versions again. A page that replaces JSON.stringify, Array.prototype.map
// or Function.prototype.call (or adds Object.prototype.toJSON, as Prototype.js did) must
// not break the scan, the click's aim or the naming. Costs ~200 descriptor reads a call.
(() => {
  "use strict";
  const describe = Object.getOwnPropertyDescriptor, hasOwn = Object.hasOwn;
  const define = Reflect.defineProperty, remove = Reflect.deleteProperty;
  const FIELDS = ["value", "writable", "get", "set", "enumerable", "configurable"];
  // A descriptor without a prototype: a page's Object.prototype.get cannot make it read
  // as an accessor.
  const plain = (d) => {
    if (d === undefined) return undefined;
    const p = { __proto__: null };
    for (let i = 0; i < FIELDS.length; i++) if (hasOwn(d, FIELDS[i])) p[FIELDS[i]] = d[FIELDS[i]];
    return p;
  };
  const spots = [];
  const keep = (holder, keys) => {
    if (!holder) return;
    for (let i = 0; i < keys.length; i++) spots[spots.length] = [holder, keys[i], plain(describe(holder, keys[i]))];
  };
  const ITER = Symbol.iterator, protoOf = Object.getPrototypeOf;
  keep(window, ["JSON", "Object", "Array", "String", "Number", "Boolean", "Math", "Map", "Set", "WeakMap",
    "Reflect", "Promise", "parseInt", "parseFloat", "isNaN", "CSS", "getComputedStyle", "performance"]);
  keep(JSON, ["stringify", "parse"]);
  keep(Object, ["keys", "values", "entries", "assign", "create", "defineProperty", "getOwnPropertyDescriptor",
    "getPrototypeOf", "freeze", "fromEntries", "hasOwn"]);
  keep(Object.prototype, ["toJSON", "hasOwnProperty", "toString", "valueOf"]);
  keep(Array, ["from", "isArray", "of"]);
  keep(Array.prototype, ["toJSON", "push", "pop", "shift", "unshift", "slice", "splice", "concat", "join", "map",
    "filter", "forEach", "some", "every", "find", "findIndex", "flatMap", "flat", "includes", "indexOf",
    "lastIndexOf", "reduce", "sort", "reverse", "fill", "keys", "values", "entries", ITER]);
  keep(protoOf([][ITER]()), ["next"]);
  keep(String.prototype, ["toJSON", "trim", "trimStart", "trimEnd", "toLowerCase", "toUpperCase", "replace",
    "replaceAll", "split", "slice", "substring", "substr", "includes", "startsWith", "endsWith", "indexOf",
    "lastIndexOf", "charAt", "charCodeAt", "padStart", "padEnd", "repeat", "concat", "match", ITER]);
  keep(protoOf(""[ITER]()), ["next"]);
  keep(Number.prototype, ["toJSON", "toString", "toFixed"]);
  keep(Boolean.prototype, ["toJSON"]);
  keep(Function.prototype, ["call", "apply", "bind", "toString"]);
  keep(RegExp.prototype, ["exec", "test", Symbol.replace, Symbol.split, Symbol.match, Symbol.matchAll, Symbol.search]);
  keep(Map.prototype, ["get", "set", "has", "delete", "clear", "forEach", "keys", "values", "entries", ITER]);
  keep(protoOf(new Map()[ITER]()), ["next"]);
  keep(Set.prototype, ["add", "has", "delete", "clear", "forEach", "keys", "values", "entries", ITER]);
  keep(protoOf(new Set()[ITER]()), ["next"]);
  keep(WeakMap.prototype, ["get", "set", "has", "delete"]);
  keep(Promise.prototype, ["then", "catch", "finally"]);
  keep(Math, ["min", "max", "floor", "ceil", "round", "abs"]);
  const same = (now, was) => {
    if (now === undefined || was === undefined) return now === was;
    return hasOwn(now, "value") ? hasOwn(was, "value") && now.value === was.value
      : now.get === was.get && now.set === was.set;
  };
  const put = (holder, key, d) => {
    try { return d === undefined ? remove(holder, key) : define(holder, key, d); } catch (e) { return false; }
  };
  return function guard(fn) {
    let changed = null;
    for (let i = 0; i < spots.length; i++) {
      const s = spots[i], now = describe(s[0], s[1]);
      if (same(now, s[2])) continue;
      // Frozen by the page: left as it is.
      if (!put(s[0], s[1], s[2])) continue;
      if (changed === null) changed = [];
      changed[changed.length] = [s[0], s[1], plain(now)];
    }
    if (changed === null) return fn();
    try {
      return fn();
    } finally {
      for (let i = changed.length - 1; i >= 0; i--) put(changed[i][0], changed[i][1], changed[i][2]);
    }
  };
})()
