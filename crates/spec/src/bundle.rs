//! From a module graph on disk to one script: resolve, strip types, rewrite each module
//! into a factory, frame them in the prelude.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use base64::Engine as _;
use oxc_allocator::Allocator;
use oxc_ast::ast::{
    Declaration, ExportDefaultDeclarationKind, ImportAttributeKey, ImportDeclarationSpecifier,
    ModuleExportName, Statement, StringLiteral, WithClause,
};
use oxc_ast_visit::{walk, Visit};
use oxc_codegen::Codegen;
use oxc_diagnostics::OxcDiagnostic;
use oxc_parser::Parser;
use oxc_semantic::SemanticBuilder;
use oxc_span::{GetSpan, SourceType};
use oxc_transformer::{TransformOptions, Transformer};

use crate::{PRELUDE_JS, PROVIDED, RUNTIME_JS};

/// Why a specification could not be loaded. Each names the file, and the line and column
/// where the source is at fault.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("cannot read specification file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}:{column}: {message}")]
    Syntax {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}:{line}:{column}: cannot resolve import \"{specifier}\": {why}")]
    Resolve {
        path: PathBuf,
        line: usize,
        column: usize,
        specifier: String,
        why: String,
    },
    #[error("{path}:{line}:{column}: {message}")]
    Unsupported {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}: not valid JSON: {message}")]
    Json { path: PathBuf, message: String },
}

/// A specification made into one script.
#[derive(Clone, Debug)]
pub struct Bundle {
    /// Evaluated in a page, a host page or Node, it defines `globalThis.__wayfarerSpec`.
    pub script: String,
    /// The entry module, as given.
    pub entry: PathBuf,
    /// Every file read, the entry first.
    pub files: Vec<PathBuf>,
}

/// Read the module at `path` and everything it imports into one script.
pub fn bundle(path: &Path) -> Result<Bundle, SpecError> {
    let entry = absolute(path);
    let mut b = Bundler {
        root: entry.parent().map(Path::to_path_buf).unwrap_or_default(),
        ids: HashMap::new(),
        modules: Vec::new(),
        files: Vec::new(),
        queue: Vec::new(),
    };
    let entry_id = b.id_of(&entry, Kind::Code);
    while let Some((file, kind, id)) = b.queue.pop() {
        let code = b.module(&file, kind)?;
        b.modules.push((id, code));
    }
    // Every module is defined before the entry is required: their order does not matter.
    let modules: String = b.modules.iter().map(|(_, code)| code.as_str()).collect();
    let script = PRELUDE_JS
        .replacen("/*@@RUNTIME@@*/", RUNTIME_JS, 1)
        .replacen("/*@@MODULES@@*/", &modules, 1)
        .replacen("/*@@ENTRY@@*/", &js_string(&entry_id), 1);
    Ok(Bundle {
        script,
        entry: path.to_path_buf(),
        files: b.files,
    })
}

/// How a file is imported: as code, or as data (import attributes, `.json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    Code,
    Json,
    Text,
    Binary,
}

struct Bundler {
    /// Paths shown in module ids are relative to the entry's folder.
    root: PathBuf,
    ids: HashMap<(PathBuf, Kind), String>,
    modules: Vec<(String, String)>,
    files: Vec<PathBuf>,
    queue: Vec<(PathBuf, Kind, String)>,
}

impl Bundler {
    /// The module id of a file, queued to be read the first time it is asked for.
    fn id_of(&mut self, file: &Path, kind: Kind) -> String {
        if let Some(id) = self.ids.get(&(file.to_path_buf(), kind)) {
            return id.clone();
        }
        let shown = match file.strip_prefix(&self.root) {
            Ok(rel) => format!("./{}", rel.display()),
            Err(_) => file.display().to_string(),
        };
        let id = match kind {
            Kind::Code | Kind::Json => shown,
            Kind::Text => format!("{shown}#text"),
            Kind::Binary => format!("{shown}#binary"),
        };
        self.ids.insert((file.to_path_buf(), kind), id.clone());
        if !self.files.iter().any(|f| f == file) {
            self.files.push(file.to_path_buf());
        }
        self.queue.push((file.to_path_buf(), kind, id.clone()));
        id
    }

    fn module(&mut self, file: &Path, kind: Kind) -> Result<String, SpecError> {
        let id = self.ids[&(file.to_path_buf(), kind)].clone();
        let data = |body: String| {
            format!(
                "__wf_define({}, function (__wf_exports) {{\n\
                 Object.defineProperty(__wf_exports, \"__esModule\", {{ value: true }});\n\
                 __wf_exports.default = {body};\n}});\n",
                js_string(&id)
            )
        };
        match kind {
            Kind::Binary => {
                let bytes = std::fs::read(file).map_err(|source| SpecError::Read {
                    path: file.to_path_buf(),
                    source,
                })?;
                let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
                return Ok(data(format!(
                    "Uint8Array.from(atob(\"{b64}\"), (c) => c.charCodeAt(0))"
                )));
            }
            Kind::Text => return Ok(data(js_string(&read(file)?))),
            Kind::Json => {
                let text = read(file)?;
                let value: serde_json::Value =
                    serde_json::from_str(&text).map_err(|e| SpecError::Json {
                        path: file.to_path_buf(),
                        message: e.to_string(),
                    })?;
                return Ok(data(value.to_string()));
            }
            Kind::Code => {}
        }
        let source = read(file)?;
        let js = to_javascript(file, &source)?;
        self.rewrite(file, &source, &id, &js)
    }

    /// An ES module (or a CommonJS one, from a package) as a factory of the registry.
    fn rewrite(
        &mut self,
        file: &Path,
        original: &str,
        id: &str,
        js: &str,
    ) -> Result<String, SpecError> {
        let allocator = Allocator::default();
        let parsed = Parser::new(&allocator, js, SourceType::mjs()).parse();
        if let Some(e) = parsed.diagnostics.first() {
            // Only a bug of ours can get here for TypeScript: the source itself parsed.
            return Err(syntax(file, original, js, e));
        }
        let program = parsed.program;
        let mut esm = false;
        let mut edits: Vec<(u32, u32, String)> = Vec::new();
        let mut header = String::new();
        let mut getters: Vec<(String, String)> = Vec::new();
        let mut stars: Vec<String> = Vec::new();
        let mut names: Vec<String> = Vec::new();
        let mut n = 0usize;
        let mut fresh = || {
            n += 1;
            format!("__wf_m{n}")
        };
        for stmt in &program.body {
            match stmt {
                Statement::ImportDeclaration(d) => {
                    esm = true;
                    let dep = self.import_from(file, js, &d.source, d.with_clause.as_deref())?;
                    edits.push((d.span.start, d.span.end, String::new()));
                    let m = fresh();
                    let _ = writeln!(header, "const {m} = __wf_require({});", js_string(&dep));
                    for s in d.specifiers.iter().flatten() {
                        match s {
                            ImportDeclarationSpecifier::ImportSpecifier(s) => {
                                let _ = writeln!(
                                    header,
                                    "const {} = {m}[{}];",
                                    s.local.name,
                                    js_string(export_name(&s.imported))
                                );
                            }
                            ImportDeclarationSpecifier::ImportDefaultSpecifier(s) => {
                                let _ = writeln!(
                                    header,
                                    "const {} = __wf_importDefault({m});",
                                    s.local.name
                                );
                            }
                            ImportDeclarationSpecifier::ImportNamespaceSpecifier(s) => {
                                let _ = writeln!(header, "const {} = {m};", s.local.name);
                            }
                        }
                    }
                }
                Statement::ExportDeclaration(d) => {
                    esm = true;
                    edits.push((d.span.start, d.declaration.span().start, String::new()));
                    for name in declared(&d.declaration) {
                        getters.push((name.clone(), name.clone()));
                        names.push(name);
                    }
                }
                Statement::ExportNamedDeclaration(d) => {
                    esm = true;
                    edits.push((d.span.start, d.span.end, String::new()));
                    for s in &d.specifiers {
                        getters.push((
                            export_name(&s.exported).to_string(),
                            export_name(&s.local).to_string(),
                        ));
                    }
                }
                Statement::ExportFromDeclaration(d) => {
                    esm = true;
                    let dep = self.import_from(file, js, &d.source, d.with_clause.as_deref())?;
                    edits.push((d.span.start, d.span.end, String::new()));
                    let m = fresh();
                    let _ = writeln!(header, "const {m} = __wf_require({});", js_string(&dep));
                    for s in &d.specifiers {
                        let local = export_name(&s.local);
                        let read = if local == "default" {
                            format!("__wf_importDefault({m})")
                        } else {
                            format!("{m}[{}]", js_string(local))
                        };
                        getters.push((export_name(&s.exported).to_string(), read));
                    }
                }
                Statement::ExportAllDeclaration(d) => {
                    esm = true;
                    let dep = self.import_from(file, js, &d.source, d.with_clause.as_deref())?;
                    edits.push((d.span.start, d.span.end, String::new()));
                    let required = format!("__wf_require({})", js_string(&dep));
                    match &d.exported {
                        Some(name) => getters.push((export_name(name).to_string(), required)),
                        None => stars.push(required),
                    }
                }
                Statement::ExportDefaultDeclaration(d) => {
                    esm = true;
                    let body_start = d.declaration.span().start;
                    let named = match &d.declaration {
                        ExportDefaultDeclarationKind::FunctionDeclaration(f) => {
                            f.id.as_ref().map(|i| i.name.to_string())
                        }
                        ExportDefaultDeclarationKind::ClassDeclaration(c) => {
                            c.id.as_ref().map(|i| i.name.to_string())
                        }
                        _ => None,
                    };
                    match named {
                        Some(name) => {
                            edits.push((d.span.start, body_start, String::new()));
                            getters.push(("default".into(), name));
                        }
                        None => {
                            edits.push((d.span.start, body_start, "const __wf_default = (".into()));
                            edits.push((d.declaration.span().end, d.span.end, ");".into()));
                            getters.push(("default".into(), "__wf_default".into()));
                        }
                    }
                }
                Statement::VariableDeclaration(v) => {
                    for d in &v.declarations {
                        for b in d.id.get_binding_identifiers() {
                            names.push(b.name.to_string());
                        }
                    }
                }
                _ => {}
            }
        }
        // What only a full module loader could do, said plainly instead of failing later.
        let mut scan = Scan::default();
        scan.visit_program(&program);
        if let Some(at) = scan.dynamic_import {
            let (line, column) = line_col(js, at);
            return Err(SpecError::Unsupported {
                path: file.to_path_buf(),
                line,
                column,
                message:
                    "dynamic import() is not supported in a specification; use a static import"
                        .into(),
            });
        }
        if !esm {
            // CommonJS (a package's file): its require("x") calls point at module ids.
            let mut edits = Vec::new();
            for (start, end, spec) in &scan.requires {
                let dep = self.import(file, js, spec, None, *start)?;
                edits.push((*start, *end, js_string(&dep)));
            }
            return Ok(format!(
                "__wf_define({}, function (exports, require, module) {{\n{}\n}});\n",
                js_string(id),
                apply(js, edits)
            ));
        }
        let mut out = String::new();
        let _ = writeln!(
            out,
            "__wf_define({}, function (__wf_exports, __wf_require) {{",
            js_string(id)
        );
        out.push_str("\"use strict\";\nObject.defineProperty(__wf_exports, \"__esModule\", { value: true });\n");
        for (name, read) in &getters {
            let _ = writeln!(
                out,
                "Object.defineProperty(__wf_exports, {}, {{ enumerable: true, get: () => {read} }});",
                js_string(name)
            );
        }
        out.push_str(&header);
        for s in &stars {
            let _ = writeln!(out, "__wf_reexport(__wf_exports, {s});");
        }
        out.push_str(&apply(js, edits));
        out.push('\n');
        names.sort();
        names.dedup();
        for name in &names {
            let _ = writeln!(out, "__wf_name({name}, {});", js_string(name));
        }
        out.push_str("});\n");
        Ok(out)
    }

    /// The module a declaration's `from "..."` names, resolved and queued.
    fn import_from(
        &mut self,
        file: &Path,
        js: &str,
        source: &StringLiteral<'_>,
        with: Option<&WithClause<'_>>,
    ) -> Result<String, SpecError> {
        self.import(file, js, &source.value, with, source.span.start)
    }

    /// Resolve an import of `file` and queue it; `at` is where its specifier starts in `js`.
    fn import(
        &mut self,
        file: &Path,
        js: &str,
        specifier: &str,
        with: Option<&WithClause<'_>>,
        at: u32,
    ) -> Result<String, SpecError> {
        let fail = |why: String| {
            let (line, column) = line_col(js, at);
            SpecError::Resolve {
                path: file.to_path_buf(),
                line,
                column,
                specifier: specifier.to_string(),
                why,
            }
        };
        if specifier == "@antithesishq/bombadil" || specifier.starts_with("@antithesishq/bombadil/")
        {
            return if PROVIDED.contains(&specifier) {
                Ok(specifier.to_string())
            } else {
                Err(fail(format!("wayfarer provides {}", PROVIDED.join(", "))))
            };
        }
        let attr = with.and_then(|w| {
            w.with_entries
                .iter()
                .find(|e| match &e.key {
                    ImportAttributeKey::Identifier(i) => i.name == "type",
                    ImportAttributeKey::StringLiteral(s) => s.value == "type",
                })
                .map(|e| e.value.value.to_string())
        });
        let dir = file.parent().unwrap_or(Path::new("/"));
        let target = if specifier.starts_with("./")
            || specifier.starts_with("../")
            || specifier.starts_with('/')
        {
            let base = normalize(&dir.join(specifier));
            resolve_file(&base).ok_or_else(|| {
                fail(format!(
                    "no file {} (tried .ts, .js, .mjs, .json and index files)",
                    base.display()
                ))
            })?
        } else {
            resolve_package(dir, specifier).map_err(fail)?
        };
        let kind = match attr.as_deref() {
            Some("json") => Kind::Json,
            Some("text") => Kind::Text,
            Some("binary") | Some("bytes") => Kind::Binary,
            Some(other) => {
                return Err(fail(format!(
                    "import type \"{other}\" is not one of json, text, binary"
                )))
            }
            None if target.extension().is_some_and(|e| e == "json") => Kind::Json,
            None => Kind::Code,
        };
        Ok(self.id_of(&target, kind))
    }
}

/// TypeScript stripped to JavaScript; JavaScript checked and returned as it is.
fn to_javascript(file: &Path, source: &str) -> Result<String, SpecError> {
    let source_type = SourceType::from_path(file)
        .unwrap_or_else(|_| SourceType::mjs())
        .with_module(true);
    let allocator = Allocator::default();
    let parsed = Parser::new(&allocator, source, source_type).parse();
    if let Some(e) = parsed.diagnostics.first() {
        return Err(syntax(file, source, source, e));
    }
    if !source_type.is_typescript() {
        return Ok(source.to_string());
    }
    let mut program = parsed.program;
    let semantic = SemanticBuilder::new().build(&program);
    if let Some(e) = semantic.diagnostics.first() {
        return Err(syntax(file, source, source, e));
    }
    let scoping = semantic.semantic.into_scoping();
    let options = TransformOptions::default();
    let done =
        Transformer::new(&allocator, file, &options).build_with_scoping(scoping, &mut program);
    if let Some(e) = done.diagnostics.first() {
        return Err(syntax(file, source, source, e));
    }
    Ok(Codegen::new().build(&program).code)
}

fn syntax(file: &Path, original: &str, text: &str, e: &OxcDiagnostic) -> SpecError {
    let at = e.labels.first().map(|l| l.offset()).unwrap_or(0);
    // Offsets of `text`; when it is not the original (generated code), say so.
    let (line, column) = line_col(text, at);
    let message = if std::ptr::eq(original, text) || original == text {
        e.message.to_string()
    } else {
        format!(
            "{} (in the code wayfarer generated from this file)",
            e.message
        )
    };
    SpecError::Syntax {
        path: file.to_path_buf(),
        line,
        column,
        message,
    }
}

/// `import()` and `require("x")` found anywhere in a module.
#[derive(Default)]
struct Scan {
    dynamic_import: Option<u32>,
    requires: Vec<(u32, u32, String)>,
}

impl<'a> Visit<'a> for Scan {
    fn visit_import_expression(&mut self, it: &oxc_ast::ast::ImportExpression<'a>) {
        self.dynamic_import.get_or_insert(it.span.start);
        walk::walk_import_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &oxc_ast::ast::CallExpression<'a>) {
        if it.callee.is_specific_id("require") && it.arguments.len() == 1 {
            if let Some(oxc_ast::ast::Argument::StringLiteral(s)) = it.arguments.first() {
                self.requires
                    .push((s.span.start, s.span.end, s.value.to_string()));
            }
        }
        walk::walk_call_expression(self, it);
    }
}

/// The names a declaration binds at the top level.
fn declared(d: &Declaration<'_>) -> Vec<String> {
    match d {
        Declaration::VariableDeclaration(v) => v
            .declarations
            .iter()
            .flat_map(|d| d.id.get_binding_identifiers())
            .map(|b| b.name.to_string())
            .collect(),
        Declaration::FunctionDeclaration(f) => f.id.iter().map(|i| i.name.to_string()).collect(),
        Declaration::ClassDeclaration(c) => c.id.iter().map(|i| i.name.to_string()).collect(),
        _ => Vec::new(),
    }
}

fn export_name<'a>(n: &'a ModuleExportName<'_>) -> &'a str {
    match n {
        ModuleExportName::IdentifierName(i) => i.name.as_str(),
        ModuleExportName::IdentifierReference(i) => i.name.as_str(),
        ModuleExportName::StringLiteral(s) => s.value.as_str(),
    }
}

/// `text` with the byte ranges replaced (ranges do not overlap).
fn apply(text: &str, mut edits: Vec<(u32, u32, String)>) -> String {
    edits.sort_by_key(|e| e.0);
    let mut out = String::with_capacity(text.len());
    let mut at = 0usize;
    for (start, end, with) in edits {
        let (start, end) = (start as usize, end as usize);
        if start < at {
            continue;
        }
        out.push_str(&text[at..start]);
        out.push_str(&with);
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

/// 1-based line and column (in characters) of a byte offset.
fn line_col(text: &str, offset: u32) -> (usize, usize) {
    let offset = (offset as usize).min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// A JavaScript string literal (JSON's escapes are JavaScript's; U+2028/9 are escaped by
/// serde_json since ES2019 accepts them anyway).
fn js_string(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

fn read(file: &Path) -> Result<String, SpecError> {
    std::fs::read_to_string(file).map_err(|source| SpecError::Read {
        path: file.to_path_buf(),
        source,
    })
}

fn absolute(path: &Path) -> PathBuf {
    let p = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    normalize(&p)
}

/// `a/./b/../c` as `a/c`, without touching the disk (a missing file is reported later).
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

const EXTENSIONS: &[&str] = &["ts", "tsx", "mts", "js", "mjs", "cjs", "json"];

/// A relative import as TypeScript and Node resolve it: the file, the file with an
/// extension, `./x.js` written for `./x.ts`, or the folder's index.
fn resolve_file(base: &Path) -> Option<PathBuf> {
    if base.is_file() {
        return Some(base.to_path_buf());
    }
    for ext in EXTENSIONS {
        let p = PathBuf::from(format!("{}.{ext}", base.display()));
        if p.is_file() {
            return Some(p);
        }
    }
    if let Some(ext) = base.extension().and_then(|e| e.to_str()) {
        let swap: &[&str] = match ext {
            "js" => &["ts", "tsx"],
            "mjs" => &["mts"],
            "cjs" => &["cts"],
            _ => &[],
        };
        for s in swap {
            let p = base.with_extension(s);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    for ext in EXTENSIONS {
        let p = base.join(format!("index.{ext}"));
        if p.is_file() {
            return Some(p);
        }
    }
    None
}

/// A package import (`pkg`, `@scope/pkg/sub`) from the nearest `node_modules` up from `dir`:
/// its package.json's `exports` (the `import`, `default` or `require` condition), then
/// `module`, then `main`, then index.js.
fn resolve_package(dir: &Path, specifier: &str) -> Result<PathBuf, String> {
    let mut parts = specifier.splitn(if specifier.starts_with('@') { 3 } else { 2 }, '/');
    let name = if specifier.starts_with('@') {
        format!(
            "{}/{}",
            parts.next().unwrap_or(""),
            parts.next().unwrap_or("")
        )
    } else {
        parts.next().unwrap_or("").to_string()
    };
    let sub = parts
        .next()
        .map(|s| format!("./{s}"))
        .unwrap_or_else(|| ".".into());
    let mut at = Some(dir);
    while let Some(d) = at {
        let pkg = d.join("node_modules").join(&name);
        if pkg.is_dir() {
            return resolve_in_package(&pkg, &sub);
        }
        at = d.parent();
    }
    Err(format!(
        "no package \"{name}\" in a node_modules folder above {} (install it there with npm)",
        dir.display()
    ))
}

fn resolve_in_package(pkg: &Path, sub: &str) -> Result<PathBuf, String> {
    let manifest: serde_json::Value = std::fs::read_to_string(pkg.join("package.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(serde_json::Value::Null);
    if let Some(exports) = manifest.get("exports") {
        let entry = match exports {
            serde_json::Value::String(_) if sub == "." => Some(exports),
            serde_json::Value::Object(m) if m.keys().any(|k| k.starts_with('.')) => m.get(sub),
            serde_json::Value::Object(_) if sub == "." => Some(exports),
            _ => None,
        };
        if let Some(target) = entry.and_then(condition) {
            let p = normalize(&pkg.join(target));
            return resolve_file(&p).ok_or_else(|| format!("{} is missing", p.display()));
        }
        return Err(format!("{} does not export \"{sub}\"", pkg.display()));
    }
    if sub != "." {
        let base = normalize(&pkg.join(sub));
        return resolve_file(&base).ok_or_else(|| format!("no file {}", base.display()));
    }
    for field in ["module", "main"] {
        if let Some(m) = manifest.get(field).and_then(|v| v.as_str()) {
            if let Some(p) = resolve_file(&normalize(&pkg.join(m))) {
                return Ok(p);
            }
        }
    }
    resolve_file(&pkg.join("index")).ok_or_else(|| format!("{} has no entry file", pkg.display()))
}

/// The file an `exports` entry names for an importer in a browser.
fn condition(v: &serde_json::Value) -> Option<&str> {
    match v {
        serde_json::Value::String(s) => Some(s),
        serde_json::Value::Object(m) => ["browser", "import", "default", "require"]
            .iter()
            .find_map(|k| m.get(*k).and_then(condition)),
        serde_json::Value::Array(a) => a.iter().find_map(condition),
        _ => None,
    }
}
