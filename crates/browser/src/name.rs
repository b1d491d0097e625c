//! Names from Chromium's accessibility tree: the role and accessible name of the element
//! an action targets, read just before acting, and how many elements of its document
//! share them (what Playwright's `getByRole` and screen readers go by). The script that
//! finds the element for the action also returns its backend node id, its document's and
//! the role HTML gives it, so the tree costs one `Accessibility.queryAXTree` per step.

use chromiumoxide::cdp::browser_protocol::accessibility::{
    AxNode, GetPartialAxTreeParams, QueryAxTreeParams,
};
use chromiumoxide::cdp::browser_protocol::dom::BackendNodeId;
use chromiumoxide::Page;
use std::time::Duration;
use wayfarer_core::TreeName;

use crate::cdp::{call, BrowserError};

/// The role HTML (or the role attribute) gives an element, as Chromium's tree spells it;
/// empty where it gives none (a plain div or span: nothing to name it by).
pub(crate) const ROLE_JS: &str = r#"const __wfRole = (el) => {
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
};"#;

/// An element found for an action: its backend node id, its document's, and the role
/// HTML gives it (empty: none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Identified {
    pub el: i64,
    pub doc: i64,
    pub role: String,
}

impl Identified {
    /// From the plain form of `[..., el, el.ownerDocument, __wfRole(el)]` at `at`.
    pub fn from_items(items: &[serde_json::Value], at: usize) -> Option<Identified> {
        let id = |v: Option<&serde_json::Value>| v?.get("backendNodeId")?.as_i64();
        Some(Identified {
            el: id(items.get(at))?,
            doc: id(items.get(at + 1))?,
            role: items.get(at + 2)?.as_str()?.to_string(),
        })
    }
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
/// document share both. One query when the role HTML gives is the tree's; a second
/// (the element alone, uncounted) when it is not. `None`: the element has no role.
pub(crate) async fn tree_name(
    page: &Page,
    id: &Identified,
    limit: Duration,
) -> Result<Option<TreeName>, BrowserError> {
    if !id.role.is_empty() {
        let q = QueryAxTreeParams::builder()
            .backend_node_id(BackendNodeId::new(id.doc))
            .role(id.role.clone())
            .build();
        let nodes = call(page, q, limit).await?.nodes;
        if let Some(n) = nodes.iter().find(|n| is(n, id.el)) {
            let name = text(&n.name);
            let same = nodes
                .iter()
                .filter(|o| !o.ignored && text(&o.name) == name)
                .count() as u32;
            return Ok(Some(TreeName {
                role: text(&n.role),
                name,
                from: String::new(),
                same: if n.ignored { 0 } else { same },
            }));
        }
    }
    // The tree gives it another role (or HTML gives it none): read the element alone.
    let q = GetPartialAxTreeParams::builder()
        .backend_node_id(BackendNodeId::new(id.el))
        .fetch_relatives(false)
        .build();
    let nodes = call(page, q, limit).await?.nodes;
    Ok(nodes.iter().find(|n| is(n, id.el)).and_then(|n| {
        let role = text(&n.role);
        let keep = !n.ignored && !["generic", "none", "StaticText", ""].contains(&role.as_str());
        keep.then(|| TreeName {
            role,
            name: text(&n.name),
            from: String::new(),
            same: 0,
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
        assert_eq!(
            Identified::from_items(items, 4),
            Some(Identified {
                el: 41,
                doc: 2,
                role: "link".into()
            })
        );
        assert_eq!(
            Identified::from_items(items, 5),
            None,
            "a string is no node"
        );
    }
}
