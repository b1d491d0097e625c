//! A user's specification, ready to run.
//!
//! A specification is an ES module, in TypeScript or JavaScript, written in the language of
//! Bombadil (`extract`, `always`, `eventually(..).within(..)`, `next`, `now`, `actions`,
//! `weighted`), in 0.4.5's module layout (`@antithesishq/bombadil/defaults`) or 0.7's
//! (`@antithesishq/bombadil/browser/defaults`): it exports properties, checked on every
//! captured state, and action generators. This crate reads the module and what it imports (relative files, JSON, text
//! and binary files, packages under `node_modules`) and makes ONE script of it: types
//! stripped (oxc), each module rewritten into a factory of a small registry, wayfarer's
//! implementation of `@antithesishq/bombadil` in front (`js/runtime.js`).
//!
//! The script defines `globalThis.__wayfarerSpec` wherever it is evaluated: in the
//! application's page its `extract` runs every extractor on the page in one call; in a
//! spec host page (or Node) `begin`/`step`/`end` step the properties state by state and
//! `actions` runs the generators. The browser crate does the calling; this crate knows
//! nothing of CDP.

mod bundle;

pub use bundle::{bundle, Bundle, SpecError};

/// wayfarer's implementation of the `@antithesishq/bombadil` modules and the driver.
pub const RUNTIME_JS: &str = include_str!("../js/runtime.js");

/// The registry every bundle is framed in.
pub const PRELUDE_JS: &str = include_str!("../js/prelude.js");

/// The module names the runtime provides.
pub const PROVIDED: &[&str] = &[
    "@antithesishq/bombadil",
    "@antithesishq/bombadil/actions",
    "@antithesishq/bombadil/random",
    "@antithesishq/bombadil/internal",
    "@antithesishq/bombadil/defaults",
    "@antithesishq/bombadil/defaults/properties",
    "@antithesishq/bombadil/defaults/actions",
    "@antithesishq/bombadil/browser",
    "@antithesishq/bombadil/browser/dom",
    "@antithesishq/bombadil/browser/defaults",
    "@antithesishq/bombadil/browser/defaults/properties",
    "@antithesishq/bombadil/browser/defaults/actions",
];
