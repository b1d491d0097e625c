//! Candidate actions of a page: which actions a strategy may choose from.

use crate::config::DenyRule;
use crate::keys::declared_shortcut;
use crate::model::{Action, ActionKind, Element, Observation};

/// Text deny rules, lower-cased once.
#[derive(Clone, Debug, Default)]
pub struct DenyText {
    needles: Vec<String>,
}

impl DenyText {
    pub fn new(rules: &[DenyRule]) -> DenyText {
        DenyText {
            needles: rules
                .iter()
                .filter_map(|r| r.text.as_ref())
                .map(|t| t.to_lowercase())
                .filter(|t| !t.is_empty())
                .collect(),
        }
    }

    pub fn denies(&self, e: &Element) -> bool {
        if self.needles.is_empty() {
            return false;
        }
        let hay = [
            e.text.as_str(),
            e.label.as_str(),
            e.attr("aria-label").unwrap_or(""),
            e.attr("value").unwrap_or(""),
        ]
        .join(" ")
        .to_lowercase();
        self.needles.iter().any(|n| hay.contains(n.as_str()))
    }
}

/// The action an element invites, by its kind.
pub fn action_for(e: &Element) -> Action {
    let kind = if e.tag == "select" {
        ActionKind::Select
    } else if e.tag == "input" && e.input_type.as_deref() == Some("file") {
        ActionKind::Upload
    } else if e.tag == "input"
        && matches!(e.input_type.as_deref(), Some("checkbox") | Some("radio"))
    {
        ActionKind::Check
    } else if e.is_text_input() {
        ActionKind::Type
    } else {
        ActionKind::Click
    };
    Action::on(kind, e.locator.clone())
}

/// Whether the element listens for double clicks (a recorded `dblclick` listener): it is
/// offered a double click besides its usual action.
pub fn wants_double_click(e: &Element) -> bool {
    e.actionable.iter().any(|r| r == "listener:dblclick")
}

/// Drop targets offered for one dragged element: at most this many.
const DROPS_PER_SOURCE: usize = 4;

/// Where `source` may be dropped: the elements that take drops (`drop` gesture), shown,
/// other than the one it is in or on (a card is moved to another column, not its own),
/// in document order.
fn drops_for<'a>(obs: &'a Observation, source: &'a Element) -> impl Iterator<Item = &'a str> {
    let (cx, cy) = (
        source.rect.x + source.rect.width / 2.0,
        source.rect.y + source.rect.height / 2.0,
    );
    obs.elements
        .iter()
        .filter(|t| t.visible && !t.denied && wants(t, "drop") && t.locator != source.locator)
        .filter(move |t| {
            let r = &t.rect;
            !(cx >= r.x && cx <= r.x + r.width && cy >= r.y && cy <= r.y + r.height)
        })
        .map(|t| t.locator.as_str())
        .take(DROPS_PER_SOURCE)
}

/// The sorted list `e` is an item of ("sort:N"), if any.
fn sort_group(e: &Element) -> Option<&str> {
    e.gestures
        .iter()
        .find(|g| g.starts_with("sort:"))
        .map(String::as_str)
}

/// Where an item of a sorted list may be dragged: onto the items after it (then before
/// it, wrapping round), at most two, then onto the page's drop targets it is not in
/// (another column of a board); at most `DROPS_PER_SOURCE` in all.
fn sort_drops_for<'a>(obs: &'a Observation, source: &'a Element, group: &str) -> Vec<&'a str> {
    let items: Vec<&Element> = obs
        .elements
        .iter()
        .filter(|t| t.visible && !t.denied && sort_group(t) == Some(group))
        .collect();
    let at = items
        .iter()
        .position(|t| t.locator == source.locator)
        .unwrap_or(0);
    let mut out: Vec<&str> = (1..items.len())
        .map(|k| items[(at + k) % items.len()].locator.as_str())
        .take(2)
        .collect();
    for t in drops_for(obs, source) {
        if out.len() >= DROPS_PER_SOURCE {
            break;
        }
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

fn is_file_input(e: &Element) -> bool {
    e.tag == "input" && e.input_type.as_deref() == Some("file")
}

/// Whether the element listens for `gesture` ("hover", "context_menu", "keys") besides
/// clicks (`Element::gestures`).
pub fn wants(e: &Element, gesture: &str) -> bool {
    e.gestures.iter().any(|g| g == gesture)
}

/// Whether Enter in the text field `e` is something the page answers: the field listens
/// for keys itself, the page does for all of them, or Enter is the only way to send its
/// form (no button submits it: the browser's implicit submission).
fn wants_enter(obs: &Observation, e: &Element) -> bool {
    if !e.is_text_input() || e.tag == "textarea" {
        return false;
    }
    let own = e.actionable.iter().any(|r| r == "listener:keydown") || wants(e, "keys");
    let page = obs
        .delegated
        .iter()
        .any(|t| matches!(t.as_str(), "keydown" | "keyup" | "keypress"));
    let lone = e.form.as_ref().is_some_and(|f| {
        !obs.elements
            .iter()
            .any(|b| b.form.as_ref() == Some(f) && b.submits() && b.is_actionable())
    });
    own || page || lone
}

/// The arrow key a composite widget takes (ARIA's keyboard patterns: a combobox, a
/// listbox or a menu moves down its options, a tab list to the next tab), where the
/// widget or the page listens for keys.
fn arrow_for(obs: &Observation, e: &Element) -> Option<&'static str> {
    let listens = e.actionable.iter().any(|r| r == "listener:keydown")
        || wants(e, "keys")
        || obs.delegated.iter().any(|t| t == "keydown");
    if !listens {
        return None;
    }
    match e.role.as_deref()? {
        "combobox" if e.tag != "select" => Some("ArrowDown"),
        "listbox" | "menu" | "menubar" | "grid" | "tree" => Some("ArrowDown"),
        "tablist" | "tab" => Some("ArrowRight"),
        _ => None,
    }
}

/// Tab where a text field completes what is typed (a combobox, an `aria-autocomplete`
/// field, one with a `list` of suggestions) and the page listens for keys: many such
/// widgets take the highlighted suggestion on Tab.
fn wants_tab(obs: &Observation, e: &Element) -> bool {
    let completes = e.role.as_deref() == Some("combobox")
        || e.attr("aria-autocomplete").is_some_and(|v| v != "none")
        || e.attr("list").is_some();
    let listens = e.actionable.iter().any(|r| r == "listener:keydown")
        || wants(e, "keys")
        || obs.delegated.iter().any(|t| t == "keydown");
    e.is_text_input() && e.tag != "textarea" && completes && listens
}

/// Whether a dialog is open (a region the scan records): it should close on Escape,
/// pressed wherever the focus is. Menus and list boxes are left out: many stay shown
/// (a navigation menu, a list of options), and Escape there would be offered on every
/// step of the page for nothing.
fn popup_open(obs: &Observation) -> bool {
    obs.regions.iter().any(|r| {
        let role = r.split(':').next().unwrap_or("");
        matches!(role, "dialog" | "alertdialog")
    })
}

/// Every action a strategy may take on `obs`, in document order; `back` is offered when
/// the episode has a step to go back from.
///
/// Besides each actionable element's own action: a double click where the element
/// listens for one; a hover, a right click or Enter where it listens for those gestures
/// (the scan's listener record and `:hover` rules); and, where the page handles double
/// clicks or context menus for all its elements (a listener on the document that reads
/// `event.target`), those gestures on one element of each kind (tag and `type`
/// attribute): a delegated handler's branches follow the target's kind, and one of each
/// keeps the offer small. Keys: Enter, Tab and the arrow keys where a field or widget
/// takes them, the shortcut an element declares (`aria-keyshortcuts`, `accesskey`), and
/// Escape, pressed wherever the focus is, while a dialog is open.
pub fn candidate_actions(obs: &Observation, deny: &DenyText, can_go_back: bool) -> Vec<Action> {
    let mut out: Vec<Action> = Vec::new();
    let delegated = |t: &str| obs.delegated.iter().any(|d| d == t);
    let (dbl_all, menu_all) = (delegated("dblclick"), delegated("contextmenu"));
    let mut kinds_seen: Vec<(&str, Option<&str>)> = Vec::new();
    // A file input is often hidden behind a styled button: it is set, not clicked.
    let usable =
        |e: &&Element| (e.visible || is_file_input(e)) && e.enabled && !e.denied && !deny.denies(e);
    for e in obs.elements.iter().filter(usable) {
        let gesture = |kind: ActionKind| Action::on(kind, e.locator.clone());
        let actionable = !e.actionable.is_empty() && (e.visible || is_file_input(e));
        if actionable && !(e.tag == "select" && e.options.is_empty()) {
            out.push(action_for(e));
            let first_of_kind = {
                let k = (e.tag.as_str(), e.attr("type"));
                let first = !kinds_seen.contains(&k);
                if first {
                    kinds_seen.push(k);
                }
                first
            };
            if wants_double_click(e) || (dbl_all && first_of_kind) {
                out.push(gesture(ActionKind::DoubleClick));
            }
            if menu_all && first_of_kind && !wants(e, "context_menu") {
                out.push(gesture(ActionKind::ContextMenu));
            }
            if wants_enter(obs, e) {
                out.push(gesture(ActionKind::Press).with_value("Enter"));
            }
            if let Some(key) = arrow_for(obs, e) {
                out.push(gesture(ActionKind::Press).with_value(key));
            }
            if wants_tab(obs, e) {
                out.push(gesture(ActionKind::Press).with_value("Tab"));
            }
        }
        if let Some(chord) = declared_shortcut(e.attr("aria-keyshortcuts"), e.attr("accesskey")) {
            let press = gesture(ActionKind::Press).with_value(chord.playwright());
            if !out.contains(&press) {
                out.push(press);
            }
        }
        if wants(e, "hover") {
            out.push(gesture(ActionKind::Hover));
        }
        if wants(e, "context_menu") {
            out.push(gesture(ActionKind::ContextMenu));
        }
        if wants(e, "scroll") {
            out.push(gesture(ActionKind::Scroll));
        }
        if let Some(group) = sort_group(e) {
            let drops = sort_drops_for(obs, e, group);
            out.extend(
                drops
                    .iter()
                    .map(|t| gesture(ActionKind::Drag).with_value(*t)),
            );
        } else if wants(e, "drag") {
            out.extend(drops_for(obs, e).map(|t| gesture(ActionKind::Drag).with_value(t)));
        }
    }
    // The page, where it is taller than the window and listens for scrolling (or watches
    // an element's coming into view): scrolling may load more.
    let loads_on_scroll = ["scroll", "wheel", "intersection"]
        .iter()
        .any(|t| delegated(t));
    if loads_on_scroll && obs.page.height > obs.viewport.height + 50.0 {
        out.push(Action {
            kind: ActionKind::Scroll,
            target: None,
            value: None,
        });
    }
    if popup_open(obs) {
        out.push(Action {
            kind: ActionKind::Press,
            target: None,
            value: Some("Escape".into()),
        });
    }
    if can_go_back {
        out.push(Action::back());
    }
    out
}

/// What the loop offers a strategy on `obs`: the rules' candidates, then the strategy's
/// own extra actions (probes, predicted controls) that may be taken there. The same list
/// on a scanned page and on a page state inference guessed.
pub fn offered_actions(
    obs: &Observation,
    deny: &DenyText,
    can_go_back: bool,
    agent: &mut dyn crate::agent::Agent,
) -> Vec<Action> {
    let mut offered = candidate_actions(obs, deny, can_go_back);
    let extra = agent.extra_actions(obs, &offered);
    let extra = usable_extras(obs, deny, &offered, extra);
    offered.extend(extra);
    offered
}

/// A strategy's extra actions (`Agent::extra_actions`) that may be taken on `obs`: those
/// on a present, visible, enabled element no deny rule covers, that are not candidates
/// already. Actions without a target (back, navigate) pass.
pub fn usable_extras(
    obs: &Observation,
    deny: &DenyText,
    candidates: &[Action],
    extra: Vec<Action>,
) -> Vec<Action> {
    let mut out: Vec<Action> = Vec::new();
    for a in extra {
        let ok = match a.target.as_deref() {
            None => true,
            Some(t) => obs
                .element(t)
                .is_some_and(|e| e.visible && e.enabled && !e.denied && !deny.denies(e)),
        };
        if ok && !candidates.contains(&a) && !out.contains(&a) {
            out.push(a);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn el(tag: &str, ty: Option<&str>, text: &str) -> Element {
        Element {
            locator: format!("#{tag}{}", text.len()),
            tag: tag.into(),
            input_type: ty.map(String::from),
            text: text.into(),
            actionable: vec![format!("tag:{tag}")],
            visible: true,
            enabled: true,
            ..Element::default()
        }
    }

    #[test]
    fn kinds_follow_elements_and_deny_rules_apply() {
        let mut select = el("select", None, "");
        select.options = vec!["a".into()];
        let mut hidden = el("button", None, "hidden");
        hidden.visible = false;
        let mut denied = el("a", None, "x");
        denied.denied = true;
        let mut dbl = el("span", None, "Card title");
        dbl.actionable = vec!["listener:click".into(), "listener:dblclick".into()];
        let obs = Observation {
            elements: vec![
                el("a", None, "Home"),
                el("input", Some("email"), ""),
                el("input", Some("checkbox"), "c"),
                select,
                el("button", None, "Log out now"),
                dbl,
                hidden,
                denied,
            ],
            ..Observation::default()
        };
        let deny = DenyText::new(&[DenyRule {
            selector: None,
            text: Some("LOG OUT".into()),
        }]);
        let acts = candidate_actions(&obs, &deny, true);
        let kinds: Vec<_> = acts.iter().map(|a| a.kind).collect();
        assert_eq!(
            kinds,
            vec![
                ActionKind::Click,
                ActionKind::Type,
                ActionKind::Check,
                ActionKind::Select,
                ActionKind::Click,
                ActionKind::DoubleClick,
                ActionKind::Back
            ]
        );
    }

    fn kinds_on(obs: &Observation) -> Vec<(ActionKind, String)> {
        candidate_actions(obs, &DenyText::default(), false)
            .into_iter()
            .map(|a| (a.kind, a.target.unwrap_or_default()))
            .collect()
    }

    #[test]
    fn an_element_listening_for_a_gesture_is_offered_it_and_a_click_only_when_actionable() {
        let mut menu = el("div", None, "Account");
        menu.locator = "#account".into();
        menu.actionable.clear();
        menu.gestures = vec!["hover".into()];
        let mut row = el("tr", None, "Row");
        row.locator = "#row".into();
        row.gestures = vec!["context_menu".into()];
        let mut hidden = menu.clone();
        hidden.locator = "#hidden".into();
        hidden.visible = false;
        let obs = Observation {
            elements: vec![menu, row, hidden],
            ..Observation::default()
        };
        assert_eq!(
            kinds_on(&obs),
            vec![
                (ActionKind::Hover, "#account".to_string()),
                (ActionKind::Click, "#row".to_string()),
                (ActionKind::ContextMenu, "#row".to_string()),
            ]
        );
    }

    #[test]
    fn a_gesture_the_page_delegates_is_offered_on_one_element_of_each_kind() {
        let field = |loc: &str, ty: Option<&str>| {
            let mut e = el("input", Some("text"), "");
            e.locator = loc.into();
            if let Some(t) = ty {
                e.attrs.insert("type".into(), t.into());
            }
            e
        };
        let mut obs = Observation {
            elements: vec![
                field("#a", Some("text")),
                field("#b", Some("text")),
                // No `type` attribute: another kind for a handler reading it.
                field("#c", None),
                el("button", None, "Go"),
            ],
            ..Observation::default()
        };
        let doubles = |obs: &Observation| -> Vec<String> {
            kinds_on(obs)
                .into_iter()
                .filter(|(k, _)| *k == ActionKind::DoubleClick)
                .map(|(_, t)| t)
                .collect()
        };
        assert!(doubles(&obs).is_empty());
        obs.delegated = vec!["dblclick".into(), "contextmenu".into()];
        assert_eq!(doubles(&obs), ["#a", "#c", "#button2"]);
        let menus = kinds_on(&obs)
            .into_iter()
            .filter(|(k, _)| *k == ActionKind::ContextMenu)
            .count();
        assert_eq!(menus, 3);
    }

    #[test]
    fn a_file_input_is_set_not_clicked_even_hidden_behind_a_label() {
        let mut file = el("input", Some("file"), "");
        file.locator = "#picture".into();
        file.visible = false;
        let mut hidden_button = el("button", None, "Gone");
        hidden_button.visible = false;
        let obs = Observation {
            elements: vec![file, hidden_button],
            ..Observation::default()
        };
        assert_eq!(
            kinds_on(&obs),
            vec![(ActionKind::Upload, "#picture".to_string())]
        );
    }

    #[test]
    fn the_page_is_scrolled_where_it_is_taller_than_the_window_and_loads_on_scroll() {
        let scrolls = |delegated: &[&str], page_height: f64| {
            let obs = Observation {
                delegated: delegated.iter().map(|s| s.to_string()).collect(),
                viewport: crate::model::Size {
                    width: 1280.0,
                    height: 800.0,
                },
                page: crate::model::Size {
                    width: 1280.0,
                    height: page_height,
                },
                ..Observation::default()
            };
            candidate_actions(&obs, &DenyText::default(), false)
                .iter()
                .filter(|a| a.kind == ActionKind::Scroll && a.target.is_none())
                .count()
        };
        assert_eq!(scrolls(&["intersection"], 2400.0), 1);
        assert_eq!(scrolls(&["scroll"], 2400.0), 1);
        // Nothing listens, or nothing to scroll: no step spent on it.
        assert_eq!(scrolls(&["click"], 2400.0), 0);
        assert_eq!(scrolls(&["intersection"], 800.0), 0);
    }

    #[test]
    fn a_draggable_element_is_dropped_on_the_targets_it_is_not_in() {
        let rect = |x: f64, y: f64, w: f64, h: f64| crate::model::Rect {
            x,
            y,
            width: w,
            height: h,
        };
        let mut todo = el("section", None, "To do");
        todo.locator = "#todo".into();
        todo.actionable.clear();
        todo.gestures = vec!["drop".into()];
        todo.rect = rect(0.0, 0.0, 200.0, 400.0);
        let mut done = todo.clone();
        done.locator = "#done".into();
        done.rect = rect(300.0, 0.0, 200.0, 400.0);
        let mut card = el("div", None, "Book the train");
        card.locator = "#card-2".into();
        card.actionable.clear();
        card.gestures = vec!["drag".into()];
        card.rect = rect(10.0, 50.0, 180.0, 30.0);
        let obs = Observation {
            elements: vec![todo, card, done],
            ..Observation::default()
        };
        let drags: Vec<Action> = candidate_actions(&obs, &DenyText::default(), false)
            .into_iter()
            .filter(|a| a.kind == ActionKind::Drag)
            .collect();
        assert_eq!(
            drags,
            vec![Action::on(ActionKind::Drag, "#card-2").with_value("#done")]
        );
        assert!(ActionKind::Drag.value_is_identity() && !ActionKind::Type.value_is_identity());
    }

    #[test]
    fn a_widget_that_listens_for_keys_is_offered_its_arrow() {
        let widget = |role: &str, keys: bool| {
            let mut e = el("div", None, "w");
            e.locator = format!("#{role}");
            e.role = Some(role.into());
            if keys {
                e.actionable.push("listener:keydown".into());
            }
            e
        };
        let obs = Observation {
            elements: vec![
                widget("combobox", true),
                widget("tablist", true),
                widget("listbox", false),
                widget("button", true),
            ],
            ..Observation::default()
        };
        let arrows: Vec<(String, String)> = candidate_actions(&obs, &DenyText::default(), false)
            .into_iter()
            .filter(|a| a.kind == ActionKind::Press)
            .map(|a| (a.target.unwrap(), a.value.unwrap()))
            .collect();
        assert_eq!(
            arrows,
            [
                ("#combobox".to_string(), "ArrowDown".to_string()),
                ("#tablist".to_string(), "ArrowRight".to_string()),
            ]
        );
    }

    #[test]
    fn enter_is_offered_where_the_page_answers_it() {
        let mut listened = el("input", Some("search"), "");
        listened.locator = "#q".into();
        listened.actionable.push("listener:keydown".into());
        let mut plain = el("input", Some("text"), "");
        plain.locator = "#name".into();
        plain.form = Some("#f".into());
        let mut save = el("button", None, "Save");
        save.form = Some("#f".into());
        let mut lone = el("input", Some("text"), "");
        lone.locator = "#filter".into();
        lone.form = Some("#g".into());
        let obs = Observation {
            elements: vec![listened, plain, save, lone],
            ..Observation::default()
        };
        let enter: Vec<String> = candidate_actions(&obs, &DenyText::default(), false)
            .into_iter()
            .filter(|a| a.kind == ActionKind::Press)
            .inspect(|a| assert_eq!(a.value.as_deref(), Some("Enter")))
            .map(|a| a.target.unwrap())
            .collect();
        // The field with a key listener, and the one whose form has no button.
        assert_eq!(enter, ["#q", "#filter"]);
    }

    #[test]
    fn a_sorted_lists_item_is_dragged_onto_the_items_after_it_then_other_drop_targets() {
        let item = |n: usize, group: &str, y: f64| {
            let mut e = el("li", None, "Item");
            e.locator = format!("#{group}-{n}");
            e.actionable.clear();
            e.gestures = vec![format!("sort:{}", &group[1..])];
            e.rect = crate::model::Rect {
                x: 0.0,
                y,
                width: 100.0,
                height: 20.0,
            };
            e
        };
        let mut zone = el("div", None, "Done");
        zone.locator = "#done".into();
        zone.actionable.clear();
        zone.gestures = vec!["drop".into()];
        zone.rect = crate::model::Rect {
            x: 500.0,
            y: 0.0,
            width: 100.0,
            height: 300.0,
        };
        let obs = Observation {
            elements: vec![
                item(1, "l0", 0.0),
                item(2, "l0", 30.0),
                item(3, "l0", 60.0),
                item(4, "l0", 90.0),
                item(1, "l1", 200.0),
                zone,
            ],
            ..Observation::default()
        };
        let drags = |from: &str| -> Vec<String> {
            candidate_actions(&obs, &DenyText::default(), false)
                .into_iter()
                .filter(|a| a.kind == ActionKind::Drag && a.target.as_deref() == Some(from))
                .map(|a| a.value.unwrap())
                .collect()
        };
        // The next two of its own list (wrapping round), then the board's drop target;
        // never an item of another list.
        assert_eq!(drags("#l0-1"), ["#l0-2", "#l0-3", "#done"]);
        assert_eq!(drags("#l0-4"), ["#l0-1", "#l0-2", "#done"]);
        // Alone in its list: only the drop target.
        assert_eq!(drags("#l1-1"), ["#done"]);
    }

    fn presses(obs: &Observation) -> Vec<(Option<String>, String)> {
        candidate_actions(obs, &DenyText::default(), false)
            .into_iter()
            .filter(|a| a.kind == ActionKind::Press)
            .map(|a| (a.target, a.value.unwrap()))
            .collect()
    }

    #[test]
    fn declared_shortcuts_tab_and_escape_are_offered_where_the_page_takes_them() {
        let mut save = el("button", None, "Save");
        save.locator = "#save".into();
        save.attrs.insert("accesskey".into(), "s".into());
        let mut find = el("a", None, "Find");
        find.locator = "#find".into();
        find.attrs
            .insert("aria-keyshortcuts".into(), "Control+Shift+F".into());
        find.attrs.insert("accesskey".into(), "f".into());
        let mut city = el("input", Some("text"), "");
        city.locator = "#city".into();
        city.attrs.insert("aria-autocomplete".into(), "list".into());
        city.actionable.push("listener:keydown".into());
        let mut deaf = city.clone();
        deaf.locator = "#deaf".into();
        deaf.actionable.pop();
        let mut obs = Observation {
            elements: vec![save, find, city, deaf],
            ..Observation::default()
        };
        let pressed = |t: &str, k: &str| (Some(t.to_string()), k.to_string());
        let expected = vec![
            pressed("#save", "Alt+KeyS"),
            pressed("#find", "Control+Shift+KeyF"),
            pressed("#city", "Enter"),
            pressed("#city", "Tab"),
        ];
        assert_eq!(presses(&obs), expected);
        // Escape, with no element, once a dialog is open; not for a tab panel or a menu
        // that stays shown.
        obs.regions = vec!["tabpanel:Settings".into(), "menu:Main".into()];
        assert_eq!(presses(&obs), expected);
        obs.regions.push("dialog:Edit item #".into());
        let mut with_escape = expected.clone();
        with_escape.push((None, "Escape".to_string()));
        assert_eq!(presses(&obs), with_escape);
    }

    #[test]
    fn extras_on_unusable_elements_or_repeating_candidates_are_dropped() {
        let mut gone = el("div", None, "hidden");
        gone.visible = false;
        let mut denied = el("div", None, "Log out");
        denied.actionable.clear();
        let mut plain = el("div", None, "Card");
        plain.actionable.clear();
        let button = el("button", None, "Save");
        let obs = Observation {
            elements: vec![gone.clone(), denied.clone(), plain.clone(), button.clone()],
            ..Observation::default()
        };
        let deny = DenyText::new(&[DenyRule {
            selector: None,
            text: Some("log out".into()),
        }]);
        let candidates = candidate_actions(&obs, &deny, false);
        let click = |e: &Element| Action::on(ActionKind::Click, e.locator.clone());
        let extra = vec![
            click(&gone),
            click(&denied),
            click(&plain),
            click(&plain),
            Action::on(ActionKind::DoubleClick, plain.locator.clone()),
            click(&button),
            Action::on(ActionKind::Click, "#nowhere"),
            Action::back(),
        ];
        let kept = usable_extras(&obs, &deny, &candidates, extra);
        assert_eq!(
            kept,
            vec![
                click(&plain),
                Action::on(ActionKind::DoubleClick, plain.locator.clone()),
                Action::back()
            ]
        );
    }
}
