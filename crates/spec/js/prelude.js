// The bundle's frame: a module registry (define/require) around wayfarer's runtime and the
// user's modules, each rewritten from an ES module into a factory. Evaluating the bundle
// twice in one realm does nothing the second time. Its own names start with `__wf_`, so
// that a module's `define` or `require` (UMD packages test for them) finds nothing of ours.
(function () {
  "use strict";
  const g = globalThis;
  if (g.__wayfarerSpec) return;
  const factories = Object.create(null);
  const cache = Object.create(null);
  function __wf_define(id, factory) {
    factories[id] = factory;
  }
  function __wf_require(id) {
    const hit = cache[id];
    if (hit) return hit.exports;
    const factory = factories[id];
    if (!factory) throw new Error("cannot find module " + JSON.stringify(id));
    const module = { exports: {} };
    cache[id] = module;
    factory.call(undefined, module.exports, __wf_require, module);
    return module.exports;
  }
  // `import x from "m"`: a rewritten ES module's default export, or a CommonJS module itself.
  function __wf_importDefault(m) {
    return m && m.__esModule ? m.default : m;
  }
  // `export * from "m"`: every name but `default`, read live.
  function __wf_reexport(to, from) {
    for (const k of Object.keys(from)) {
      if (k === "default" || k === "__esModule" || Object.prototype.hasOwnProperty.call(to, k)) continue;
      Object.defineProperty(to, k, { enumerable: true, get: () => from[k] });
    }
  }
  // A top-level binding holding a cell names it, for reports ("count = 6").
  function __wf_name(value, name) {
    const { Cell } = __wf_require("@antithesishq/bombadil/internal");
    if (value instanceof Cell && value.name === null) value.name = name;
  }
  void __wf_importDefault;
  void __wf_reexport;
  void __wf_name;
  /*@@RUNTIME@@*/
  /*@@MODULES@@*/
  const driver = __wf_require("@wayfarer/driver");
  driver.entry = /*@@ENTRY@@*/;
  Object.defineProperty(g, "__wayfarerSpec", { value: driver, configurable: true });
})();
