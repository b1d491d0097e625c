//! Names of the element an action targets, read just before acting: its role and
//! accessible name from Chromium's accessibility tree and how many elements share them
//! (what Playwright's `getByRole` and screen readers go by), and Playwright's other ways
//! to it (test ids, label, text) counted by Playwright's rules. The script that finds the
//! element for the action also counts those, and for each name the element may bear, how
//! many elements of its role may bear it too; the tree then costs one
//! `Accessibility.getPartialAXTree` of the element alone per step, its name looked up in
//! those counts.

use chromiumoxide::cdp::browser_protocol::accessibility::{AxNode, GetPartialAxTreeParams};
use chromiumoxide::cdp::browser_protocol::dom::BackendNodeId;
use chromiumoxide::Page;
use std::time::Duration;
use wayfarer_core::{PageNames, TreeName};

use crate::cdp::{call, BrowserError};

/// `__wfRole`: the role HTML (or the role attribute) gives an element, as Chromium's tree
/// spells it; empty where it gives none (a plain div or span: nothing to name it by).
/// `__wfFacts`: the root of the subtree holding every element of that role, and
/// Playwright's other names of the element, counted (a JSON `PageNames`).
pub(crate) const NAMES_JS: &str = r#"const __wfRole = (el) => {
  const r = ((el.getAttribute && el.getAttribute("role")) || "").trim().split(/\s+/)[0];
  if (r) return r.toLowerCase();
  const t = ((el.getAttribute && el.getAttribute("type")) || "text").toLowerCase();
  switch (el.localName) {
    case "a": case "area": return el.hasAttribute("href") ? "link" : "";
    case "button": return "button";
    case "textarea": return "textbox";
    case "select": return (el.multiple || el.size > 1) ? "listbox" : "combobox";
    case "input":
      if (el.hasAttribute("list") && ["text", "search", "email", "tel", "url"].includes(t)) return "combobox";
      return ({ button: "button", submit: "button", reset: "button", image: "button",
        checkbox: "checkbox", radio: "radio", range: "slider", number: "spinbutton",
        search: "searchbox", text: "textbox", email: "textbox", tel: "textbox", url: "textbox",
        password: "textbox" })[t] || "";
  }
  return "";
};
// Playwright's names, counted its way (injected script of Playwright 1.65: elementText,
// getElementLabels, the text and test id engines); locators pierce open shadow roots.
const __wfHelpers = (doc) => {
  const roots = [doc];
  for (let i = 0; i < roots.length; i++)
    for (const e of roots[i].querySelectorAll("*")) if (e.shadowRoot) roots.push(e.shadowRoot);
  const q = (sel) => roots.flatMap((r) => Array.from(r.querySelectorAll(sel)));
  const norm = (s) => (s || "").replace(/[\u200b\u00ad]/g, "").trim().replace(/\s+/g, " ");
  const cache = new Map();
  const skip = (e) => ["script", "noscript", "style"].includes(e.localName) || (doc.head && doc.head.contains(e));
  const full = (n) => {
    let v = cache.get(n);
    if (v !== undefined) return v;
    v = "";
    if (n.nodeType === 1 && skip(n)) v = "";
    else if (n.localName === "input" && ["submit", "button", "reset"].includes(n.type)) v = n.value;
    else {
      for (let c = n.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 3) v += c.nodeValue || "";
        else if (c.nodeType === 1) v += full(c);
      }
      if (n.shadowRoot) v += full(n.shadowRoot);
    }
    cache.set(n, v);
    return v;
  };
  // getByLabel: aria-labelledby, else aria-label, else the <label>s of a labelable element.
  const labels = (e) => {
    const ids = (e.getAttribute("aria-labelledby") || "").split(/[ \t\n\f\r]+/).filter(Boolean);
    const r = e.getRootNode(), by = [];
    for (const id of ids) {
      const x = r.getElementById ? r.getElementById(id) : null;
      if (x && !by.includes(x)) by.push(x);
    }
    if (by.length) return by.map((x) => norm(full(x)));
    const al = e.getAttribute("aria-label");
    if (al !== null && al.trim()) return [norm(al)];
    const n = e.localName;
    if (["button", "meter", "output", "progress", "select", "textarea"].includes(n) || (n === "input" && e.type !== "hidden"))
      return Array.from(e.labels || []).map((x) => norm(full(x)));
    return [];
  };
  // Names the tree may give an element of the role: from attributes and labels, else its
  // text (with what its descendants' attributes add, and without what is not rendered).
  const says = (e) => {
    const out = labels(e).filter(Boolean);
    if (out.length > 1) out.push(out.join(" "));
    for (const a of ["title", "placeholder", "alt"]) { const v = norm(e.getAttribute(a)); if (v) out.push(v); }
    if (e.localName === "input" && ["submit", "button", "reset", "image"].includes(e.type)) out.push(norm(e.value), "Submit", "Reset");
    return out;
  };
  const rich = (e) => e.firstElementChild !== null || !!e.shadowRoot;
  const extended = (e) => {
    let t = e.textContent || "";
    for (const d of e.querySelectorAll("[aria-label],[alt],[title],input")) t += " " + (d.getAttribute("aria-label") || d.getAttribute("alt") || d.getAttribute("title") || d.value || "");
    return norm(t);
  };
  // An element whose own text (no child's alone) is `t`: what getByText finds.
  const own = (e, t) => !skip(e) && norm(full(e)) === t && !Array.from(e.children).some((c) => norm(full(c)) === t)
    && !(e.shadowRoot && norm(full(e.shadowRoot)) === t);
  const shown = (p) => (!p.checkVisibility || p.checkVisibility({ visibilityProperty: true })) && !p.closest("[aria-hidden=true]");
  const ROLED = "a,area,button,input,select,textarea,[role]";
  return { roots, q, norm, skip, full, labels, says, rich, extended, own, shown, ROLED };
};
const __wfFacts = (el, role, tids, loc) => {
  const t0 = performance.now();
  const doc = el.ownerDocument;
  const { roots, q, norm, full, labels, says, rich, extended, own, shown, ROLED } = __wfHelpers(doc);
  const f = { text: "", same_text: 0, label: "", same_label: 0, same_path: 0, covered_by: "", test_ids: [], frame: doc !== document };
  // How many elements of the role may bear each name the target may bear (the target
  // included): the tree's name is looked up here, so one small query reads it. Exact for
  // names from attributes and plain text; an element whose text has markup counts when
  // the name occurs in its text at all. Hidden elements do not count (nor for getByRole).
  const namesakes = [];
  if (role) {
    const mine = new Set([...says(el), norm(el.textContent)]);
    if (rich(el) && el.innerText !== undefined) mine.add(norm(el.innerText));
    mine.delete("");
    const peers = q(ROLED).filter((p) => p !== el && __wfRole(p) === role && shown(p));
    const seen = peers.slice(0, 2000).map((p) => ({ says: says(p), text: norm(p.textContent), ext: rich(p) ? extended(p) : null }));
    for (const n of mine) {
      let same = 1;
      for (const p of seen) if (p.says.includes(n) || p.text === n || (p.ext !== null && p.ext.includes(n))) same++;
      namesakes.push([n, peers.length > 2000 ? 0 : same]);
    }
  }
  // getByText: an element without a role, whose own text (no child's alone) is unique.
  if (!role) {
    const t = norm(full(el));
    if (t && t.length <= 80 && own(el, t)) {
      // Without shadow roots an element can only match if its textContent holds the first word.
      const w = t.split(" ")[0], plain = roots.length === 1;
      f.text = t;
      f.same_text = q("*").filter((e) => (!plain || e.localName === "input" || (e.textContent || "").includes(w)) && own(e, t)).length;
    }
  }
  const mine = labels(el).filter(Boolean);
  if (mine.length) {
    f.label = mine[0];
    const cands = new Set(q("[aria-label],[aria-labelledby]"));
    for (const l of q("label")) if (l.control) cands.add(l.control);
    f.same_label = [...cands].filter((e) => labels(e).includes(f.label)).length;
  }
  // The structural path: a replay that found the first of several would act on a guess.
  if (loc) {
    const parts = loc.split(" >>> ");
    try { f.same_path = el.getRootNode().querySelectorAll(parts[parts.length - 1]).length; } catch (e) { f.same_path = 0; }
  }
  // What a pointer at the element's centre would hit, when not the element or inside it
  // (an overlay over it): Playwright then refuses to click it.
  const r = el.getBoundingClientRect();
  const px = r.left + r.width / 2, py = r.top + r.height / 2;
  let hit = r.width > 0 && r.height > 0 ? doc.elementFromPoint(px, py) : null;
  // Into open shadow roots: the document answers with their hosts.
  for (let h = hit; h && h.shadowRoot; h = hit) {
    const inner = h.shadowRoot.elementFromPoint(px, py);
    if (!inner || inner === h) break;
    hit = inner;
  }
  let inside = !hit;
  for (let n = hit; n && !inside; n = n.parentNode || n.host) inside = n === el;
  if (!inside) { const id = hit.getAttribute('id'); f.covered_by = hit.localName + (id ? '#' + id : ''); }
  // Test ids: exact values (Playwright's test id engine).
  for (const a of tids) {
    const v = el.getAttribute(a);
    if (v) f.test_ids.push({ attr: a, value: v, same: q("[" + a + "]").filter((e) => e.getAttribute(a) === v).length });
  }
  return [JSON.stringify(namesakes), JSON.stringify(f), performance.now() - t0];
};"#;

/// `__wfResolve(kind, by, value, near)`: the elements of the top document (open shadow
/// roots included) a Playwright locator of that kind would find, by the rules the counts
/// above follow (for a role, the names the element may bear; hidden ones left out). One
/// is marked with a `data-wf-replay` attribute and its locator returned, e.g.
/// `[data-wf-replay="3"]` (through shadow hosts: `host >>> inner`): the only one, or with
/// `near` (a CSS path) among several, the one the path finds if among them, else the
/// first. Returns `[count, locator or null, whether the path chose it]`.
pub(crate) const RESOLVE_JS: &str = r#"const __wfAt = (path) => {
  // The element wayfarer's path finds (through shadow roots; not into frames, where
  // the locators do not look either).
  let root = document, el = null;
  for (const part of path.split(" >>> ")) {
    if (!root) return null;
    try { el = root.querySelector(part); } catch (e) { return null; }
    if (!el) return null;
    root = el.shadowRoot;
  }
  return el;
};
const __wfResolve = (kind, by, value, near) => {
  const { q, norm, labels, says, rich, own, shown, ROLED } = __wfHelpers(document);
  let found = [];
  if (kind === "testid") found = q("[" + CSS.escape(by) + "]").filter((e) => e.getAttribute(by) === value);
  else if (kind === "text") found = q("*").filter((e) => own(e, value));
  else if (kind === "label") {
    const cands = new Set(q("[aria-label],[aria-labelledby]"));
    for (const l of q("label")) if (l.control) cands.add(l.control);
    found = [...cands].filter((e) => labels(e).includes(value));
  } else if (kind === "role") {
    found = q(ROLED).filter((p) => __wfRole(p) === by && shown(p) && (says(p).includes(value)
      || norm(p.textContent) === value || (rich(p) && p.innerText !== undefined && norm(p.innerText) === value)));
  }
  let pick = found.length === 1 ? found[0] : null, at = false;
  if (found.length > 1 && near !== null) {
    const el = __wfAt(near);
    at = found.includes(el);
    pick = at ? el : found[0];
  }
  if (!pick) return [found.length, null, false];
  const w = window, n0 = (w.__wfReplayN = (w.__wfReplayN || 0) + 1);
  const parts = [];
  for (let n = pick, k = 0; n; k++) {
    const id = n0 + "-" + k;
    n.setAttribute("data-wf-replay", id);
    parts.unshift('[data-wf-replay="' + id + '"]');
    const r = n.getRootNode();
    n = r && r.host ? r.host : null;
  }
  return [found.length, parts.join(" >>> "), at];
};"#;

/// `c` resolved in the live page (see `RESOLVE_JS`): the target of the one element it
/// finds.
pub(crate) async fn resolve(
    page: &Page,
    c: &wayfarer_core::trace::Chosen,
    limit: Duration,
) -> Result<String, wayfarer_core::EnvError> {
    resolve_near(page, c, None, limit).await.map(|r| r.target)
}

/// `c` resolved in the live page (see `RESOLVE_JS`); with `near`, one of several is
/// chosen (the one that CSS path finds, else the first), without it several are an error.
pub(crate) async fn resolve_near(
    page: &Page,
    c: &wayfarer_core::trace::Chosen,
    near: Option<&str>,
    limit: Duration,
) -> Result<wayfarer_core::env::Resolved, wayfarer_core::EnvError> {
    use wayfarer_core::EnvError;
    let arg = |v: &str| serde_json::to_string(v).unwrap_or_else(|_| "\"\"".into());
    let body = crate::scan::guarded(&format!(
        "{NAMES_JS}\n{RESOLVE_JS}\nreturn __wfResolve(kind, by, value, near);"
    ));
    let script = format!(
        "((kind, by, value, near) => {{ {body} }})({}, {}, {}, {})",
        arg(c.kind.as_str()),
        arg(&c.by),
        arg(&c.value),
        near.map_or_else(|| "null".to_string(), arg)
    );
    let v = crate::cdp::eval(page, script, limit)
        .await
        .map_err(|e| EnvError::Step(e.to_string()))?;
    let what = match c.kind {
        wayfarer_core::trace::LocatorKind::Role => format!("{} {:?}", c.by, c.value),
        wayfarer_core::trace::LocatorKind::TestId => format!("{} {:?}", c.by, c.value),
        k => format!("{} {:?}", k.as_str(), c.value),
    };
    match (
        v.get(0).and_then(|n| n.as_u64()),
        v.get(1).and_then(|t| t.as_str()),
    ) {
        (Some(n), Some(target)) if n >= 1 => Ok(wayfarer_core::env::Resolved {
            target: target.to_string(),
            count: n as usize,
            near: v.get(2).and_then(|a| a.as_bool()).unwrap_or(false),
        }),
        (Some(0), _) => Err(EnvError::ElementNotFound(format!("{what} finds nothing"))),
        (Some(n), _) => Err(EnvError::Step(format!("{what} finds {n} elements"))),
        _ => Err(EnvError::Step(format!("{what}: the page gave no answer"))),
    }
}

/// An element found for an action: its backend node id, the role HTML gives it (empty:
/// none), how many elements of that role may bear each name it may bear, and what the
/// page counted for Playwright's other locators.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Identified {
    pub el: i64,
    pub role: String,
    pub namesakes: Vec<(String, u32)>,
    pub page: Option<PageNames>,
    /// What counting took in the page (ms): part of the name's cost.
    pub counted_ms: f64,
}

impl Identified {
    /// From the plain form of `[..., el, __wfRole(el), __wfFacts(...)]` at `at`.
    pub fn from_items(items: &[serde_json::Value], at: usize) -> Option<Identified> {
        let id = |v: Option<&serde_json::Value>| v?.get("backendNodeId")?.as_i64();
        let facts = items.get(at + 2)?.as_array()?;
        let el = id(items.get(at))?;
        Some(Identified {
            el,
            role: items.get(at + 1)?.as_str()?.to_string(),
            namesakes: facts
                .first()
                .and_then(|f| f.as_str())
                .and_then(|f| serde_json::from_str(f).ok())
                .unwrap_or_default(),
            page: facts
                .get(1)
                .and_then(|f| f.as_str())
                .and_then(|f| serde_json::from_str(f).ok()),
            counted_ms: facts.get(2).and_then(|v| v.as_f64()).unwrap_or(0.0),
        })
    }
}

impl Identified {
    /// What counting took in the page.
    pub fn counted(&self) -> Duration {
        Duration::from_secs_f64(self.counted_ms.max(0.0) / 1e3)
    }
}

/// The call that identifies `el` for `Identified::from_items` (three items); `tids` is
/// the JSON array of test id attributes.
pub(crate) fn identify_items(tids: &str) -> String {
    format!("el, __wfRole(el), __wfFacts(el, __wfRole(el), {tids}, loc)")
}

/// A deep-serialized value (`Runtime.evaluate` with `serialization: "deep"`) as plain
/// JSON; a DOM node becomes `{"backendNodeId": N}`.
pub(crate) fn plain(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
    let inner = v.get("value");
    match kind {
        "number" => match inner {
            Some(Value::Number(n)) => Value::Number(n.clone()),
            // NaN, Infinity, -0 arrive as strings.
            _ => Value::Null,
        },
        "string" | "boolean" => inner.cloned().unwrap_or(Value::Null),
        "array" => Value::Array(
            inner
                .and_then(Value::as_array)
                .map(|a| a.iter().map(plain).collect())
                .unwrap_or_default(),
        ),
        "object" => Value::Object(
            inner
                .and_then(Value::as_array)
                .map(|pairs| {
                    pairs
                        .iter()
                        .filter_map(|p| {
                            let p = p.as_array()?;
                            Some((p.first()?.as_str()?.to_string(), plain(p.get(1)?)))
                        })
                        .collect()
                })
                .unwrap_or_default(),
        ),
        "node" => match inner.and_then(|n| n.get("backendNodeId")) {
            Some(id) => serde_json::json!({ "backendNodeId": id }),
            None => Value::Null,
        },
        _ => Value::Null,
    }
}

fn text(v: &Option<chromiumoxide::cdp::browser_protocol::accessibility::AxValue>) -> String {
    v.as_ref()
        .and_then(|v| v.value.as_ref())
        .and_then(|v| v.as_str())
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// The name and role of `id.el` as the tree has them, and how many elements of its
/// document may share both (looked up in what the page counted: `queryAXTree` would count
/// exactly, but computes a name for every node of the document first, 3-10 ms a step on
/// the test apps, against ~1 ms for the element alone). `None`: the element has no role.
pub(crate) async fn tree_name(
    page: &Page,
    id: &Identified,
    limit: Duration,
) -> Result<Option<TreeName>, BrowserError> {
    let q = GetPartialAxTreeParams::builder()
        .backend_node_id(BackendNodeId::new(id.el))
        .fetch_relatives(false)
        .build();
    let nodes = call(page, q, limit).await?.nodes;
    Ok(nodes.iter().find(|n| is(n, id.el)).and_then(|n| {
        let role = text(&n.role);
        let keep = !n.ignored && !["generic", "none", "StaticText", ""].contains(&role.as_str());
        let name = text(&n.name);
        // Counted only among the elements HTML gives the same role.
        let same = if role == id.role {
            id.namesakes
                .iter()
                .find(|(n, _)| *n == name)
                .map_or(0, |(_, c)| *c)
        } else {
            0
        };
        keep.then(|| TreeName {
            role,
            name,
            from: String::new(),
            same,
        })
    }))
}

fn is(n: &AxNode, el: i64) -> bool {
    n.backend_dom_node_id.as_ref().map(|b| *b.inner()) == Some(el)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn deep_values_become_plain_json_and_nodes_their_backend_ids() {
        let deep = json!({"type": "array", "value": [
            {"type": "number", "value": 12.5},
            {"type": "string", "value": "link"},
            {"type": "null"},
            {"type": "number", "value": "NaN"},
            {"type": "node", "value": {"nodeType": 1, "localName": "a", "backendNodeId": 41}},
            {"type": "node", "value": {"nodeType": 9, "backendNodeId": 2}},
            {"type": "string", "value": "link"},
            {"type": "object", "value": [["k", {"type": "boolean", "value": true}]]}
        ]});
        let p = plain(&deep);
        assert_eq!(
            p,
            json!([12.5, "link", null, null, {"backendNodeId": 41}, {"backendNodeId": 2}, "link", {"k": true}])
        );
        let items = p.as_array().unwrap();
        assert_eq!(Identified::from_items(items, 4), None, "no facts there");
        let facts = json!([
            {"backendNodeId": 41}, "link",
            [r#"[["Go", 1], ["Go home", 2]]"#, r#"{"text":"","same_text":0,"label":"Go","same_label":1,"test_ids":[{"attr":"data-cy","value":"go","same":1}]}"#, 0.4]
        ]);
        let id = Identified::from_items(facts.as_array().unwrap(), 0).unwrap();
        assert_eq!((id.el, id.role.as_str(), id.counted_ms), (41, "link", 0.4));
        assert_eq!(
            id.namesakes,
            vec![("Go".to_string(), 1), ("Go home".to_string(), 2)]
        );
        let page = id.page.unwrap();
        assert_eq!((page.label.as_str(), page.same_label), ("Go", 1));
        assert_eq!(page.test_ids[0].attr, "data-cy");
        assert_eq!(
            Identified::from_items(items, 5),
            None,
            "a string is no node"
        );
    }
}
