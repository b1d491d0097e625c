// wayfarer: V8's precise coverage in this Node process from its start (loaded by
// NODE_OPTIONS=--require before the application's own code), taken when wayfarer asks over
// the inspector. Started in the process, a module's top level counts; started from
// outside, after the fact, it would not (V8 forgets what ran before).
"use strict";
try {
  const inspector = require("node:inspector");
  const session = new inspector.Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.startPreciseCoverage", { callCount: false, detailed: true });
  Object.defineProperty(globalThis, "__wayfarerTakeCoverage", {
    value: () => {
      let out = { error: "no answer" };
      // An in-process session answers before post returns.
      session.post("Profiler.takePreciseCoverage", (err, r) => {
        out = err ? { error: String(err) } : r;
      });
      return JSON.stringify(out);
    },
  });
} catch (e) {
  // No inspector in this build: wayfarer starts coverage from outside instead.
}
