//! The actions a specification's own generators offer (`actions(...)`, `weighted(...)`),
//! in the shape Bombadil's manual gives its `Action` type: `"Back"`, `{ "Click": { name,
//! point } }`, ... An [`Action`] of kind [`ActionKind::Spec`] carries one as JSON in its
//! `value`; the browser performs it, the export writes it, the report describes it, each
//! through this one type.

use crate::model::{Action, ActionKind};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

mod template;

/// A point in the page's viewport, in CSS pixels.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

/// What identifies the element a Bombadil 0.7 click aims at (its `getFingerprint`): the
/// attributes a locator would use, its place in the tree only when it has none of them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Fingerprint {
    pub tag: String,
    pub test_id: Option<String>,
    pub id: Option<String>,
    pub role: Option<String>,
    pub accessible_name: Option<String>,
    pub href: Option<String>,
    pub name_attr: Option<String>,
    pub placeholder: Option<String>,
    pub input_type: Option<String>,
    pub text_content: Option<String>,
    pub structural_path: Option<String>,
}

impl Fingerprint {
    /// The element in a few words for people: its name, text, test id or id, else its tag.
    pub fn label(&self) -> String {
        [
            &self.accessible_name,
            &self.text_content,
            &self.test_id,
            &self.id,
            &self.name_attr,
            &self.placeholder,
        ]
        .into_iter()
        .flatten()
        .map(|s| s.trim())
        .find(|s| !s.is_empty())
        .map(|s| cut(s, 40))
        .unwrap_or_else(|| self.tag.clone())
    }
}

/// One action of a specification's generators, as Bombadil's `Action` type spells it
/// (0.4.5 names a click's target, 0.7 gives its fingerprint).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum SpecAction {
    Back,
    Forward,
    Reload,
    /// Do nothing: the next state is captured after a while.
    Wait,
    #[serde(rename_all = "camelCase")]
    Click {
        #[serde(default, skip_serializing_if = "String::is_empty")]
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fingerprint: Option<Fingerprint>,
        point: Point,
    },
    #[serde(rename_all = "camelCase")]
    DoubleClick {
        #[serde(default, skip_serializing_if = "String::is_empty")]
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fingerprint: Option<Fingerprint>,
        point: Point,
        #[serde(default)]
        delay_millis: f64,
    },
    #[serde(rename_all = "camelCase")]
    TypeText {
        text: String,
        #[serde(default)]
        delay_millis: f64,
    },
    PressKey {
        code: f64,
    },
    ScrollUp {
        origin: Point,
        distance: f64,
    },
    ScrollDown {
        origin: Point,
        distance: f64,
    },
    /// Put files (paths on this machine) into a file input, as a user's file chooser does.
    SetFileInputFiles {
        selector: String,
        files: Vec<String>,
    },
    /// Press at `from`, move in `steps` steps to `to`, release.
    #[serde(rename_all = "camelCase")]
    MouseDrag {
        from: Point,
        to: Point,
        steps: f64,
        #[serde(default)]
        delay_millis: f64,
    },
    /// Resize the page's viewport (CSS pixels).
    SetViewport {
        width: f64,
        height: f64,
    },
}

/// How long a `Wait` waits: long enough for a timer or a request to land, as Bombadil's
/// next state capture would.
pub const WAIT_MS: u64 = 1000;

/// The longest delay between a double click's clicks (Bombadil refuses more).
const MAX_DOUBLE_CLICK_DELAY_MS: f64 = 1000.0;

/// The longest delay between typed characters wayfarer accepts.
const MAX_TYPE_DELAY_MS: f64 = 1000.0;

/// The most steps of a drag, and the longest pause between them.
const MAX_DRAG_STEPS: f64 = 1000.0;
const MAX_DRAG_DELAY_MS: f64 = 1000.0;

/// The largest viewport side wayfarer sets (Chromium's own limit is far above any screen).
const MAX_VIEWPORT: f64 = 10_000.0;

/// Why a generator's action cannot be performed, in the spec author's terms.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SpecActionError(pub String);

impl SpecAction {
    /// Read and check one action a generator returned (its JSON value).
    pub fn from_json(v: &serde_json::Value) -> Result<SpecAction, SpecActionError> {
        let a: SpecAction = serde_json::from_value(v.clone()).map_err(|e| {
            SpecActionError(format!(
                "{} is not an action (expected \"Back\", \"Forward\", \"Reload\", \"Wait\" or \
                 {{ Click | DoubleClick | TypeText | PressKey | ScrollUp | ScrollDown | \
                 SetFileInputFiles | MouseDrag | SetViewport: {{...}} }}): {e}",
                short_json(v)
            ))
        })?;
        a.check()?;
        Ok(a)
    }

    /// Draw the action a Bombadil 0.7 template describes, then read it: a number may be a
    /// range `[lo, hi]` (integers when both ends are), a typed text a generator
    /// (`"Email"`, `{ Text: n }`, `{ CharSet: [...] }`, `{ Regexp: "..." }`; any other
    /// string is typed as it is). The draw uses `rng`, so a seed gives the same actions and
    /// the trace holds what was done.
    pub fn from_template(
        v: &serde_json::Value,
        rng: &mut ChaCha8Rng,
    ) -> Result<SpecAction, SpecActionError> {
        SpecAction::from_json(&template::draw(v, rng)?)
    }

    /// Read the action an [`Action`] of kind `Spec` carries.
    pub fn of(action: &Action) -> Result<SpecAction, SpecActionError> {
        let text = action
            .value
            .as_deref()
            .ok_or_else(|| SpecActionError("a spec action without its value".into()))?;
        let v: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| SpecActionError(format!("a spec action that is not JSON: {e}")))?;
        SpecAction::from_json(&v)
    }

    /// The [`Action`] that carries it.
    pub fn to_action(&self) -> Action {
        Action {
            kind: ActionKind::Spec,
            target: None,
            value: Some(serde_json::to_string(self).expect("a spec action serializes")),
        }
    }

    fn check(&self) -> Result<(), SpecActionError> {
        let finite_point = |p: &Point, what: &str| {
            if p.x.is_finite() && p.y.is_finite() {
                Ok(())
            } else {
                Err(SpecActionError(format!(
                    "{what} must be finite numbers, got ({}, {})",
                    p.x, p.y
                )))
            }
        };
        let delay = |d: f64, max: f64| {
            if d.is_finite() && (0.0..=max).contains(&d) {
                Ok(())
            } else {
                Err(SpecActionError(format!(
                    "delayMillis must be a number from 0 to {max}, got {d}"
                )))
            }
        };
        match self {
            SpecAction::Click { point, .. } => finite_point(point, "a click's point"),
            SpecAction::DoubleClick {
                point,
                delay_millis,
                ..
            } => {
                finite_point(point, "a double click's point")?;
                delay(*delay_millis, MAX_DOUBLE_CLICK_DELAY_MS)
            }
            SpecAction::TypeText { delay_millis, .. } => delay(*delay_millis, MAX_TYPE_DELAY_MS),
            SpecAction::PressKey { code } => {
                if code.fract() != 0.0 || !(0.0..=255.0).contains(code) {
                    return Err(SpecActionError(format!(
                        "a key code must be an integer from 0 to 255, got {code}"
                    )));
                }
                key_name(*code as u8).map(|_| ()).ok_or_else(|| {
                    SpecActionError(format!("no key has code {code} (a DOM keyCode)"))
                })
            }
            SpecAction::ScrollUp { origin, distance }
            | SpecAction::ScrollDown { origin, distance } => {
                finite_point(origin, "a scroll's origin")?;
                if distance.is_finite() && *distance >= 0.0 {
                    Ok(())
                } else {
                    Err(SpecActionError(format!(
                        "a scroll's distance must be a non-negative number, got {distance}"
                    )))
                }
            }
            SpecAction::SetFileInputFiles { selector, files } => {
                if selector.trim().is_empty() {
                    return Err(SpecActionError(
                        "SetFileInputFiles needs the file input's CSS selector".into(),
                    ));
                }
                match files.iter().find(|f| f.trim().is_empty()) {
                    Some(_) => Err(SpecActionError(
                        "SetFileInputFiles names an empty file path".into(),
                    )),
                    None => Ok(()),
                }
            }
            SpecAction::MouseDrag {
                from,
                to,
                steps,
                delay_millis,
            } => {
                finite_point(from, "a drag's start")?;
                finite_point(to, "a drag's end")?;
                if steps.fract() != 0.0 || !(1.0..=MAX_DRAG_STEPS).contains(steps) {
                    return Err(SpecActionError(format!(
                        "a drag's steps must be an integer from 1 to {MAX_DRAG_STEPS}, got {steps}"
                    )));
                }
                delay(*delay_millis, MAX_DRAG_DELAY_MS)
            }
            SpecAction::SetViewport { width, height } => {
                let side = |v: f64| v.fract() == 0.0 && (1.0..=MAX_VIEWPORT).contains(&v);
                if side(*width) && side(*height) {
                    Ok(())
                } else {
                    Err(SpecActionError(format!(
                        "a viewport's width and height must be integers from 1 to {MAX_VIEWPORT}, \
                         got {width} x {height}"
                    )))
                }
            }
            SpecAction::Back | SpecAction::Forward | SpecAction::Reload | SpecAction::Wait => {
                Ok(())
            }
        }
    }

    /// A line for people: `click "canvas" at (120, 80)`, `press Enter`.
    pub fn describe(&self) -> String {
        let at = |p: &Point| format!("({}, {})", p.x.round(), p.y.round());
        let named = |name: &str, fp: &Option<Fingerprint>| {
            let label = match (name.is_empty(), fp) {
                (false, _) => name.to_string(),
                (true, Some(fp)) => fp.label(),
                (true, None) => return String::new(),
            };
            format!("{label:?} ")
        };
        match self {
            SpecAction::Back => "go back".into(),
            SpecAction::Forward => "go forward".into(),
            SpecAction::Reload => "reload the page".into(),
            SpecAction::Wait => format!("wait {} s", WAIT_MS as f64 / 1000.0),
            SpecAction::Click {
                name,
                fingerprint,
                point,
                ..
            } => {
                format!("click {}at {}", named(name, fingerprint), at(point))
            }
            SpecAction::DoubleClick {
                name,
                fingerprint,
                point,
                ..
            } => {
                format!("double-click {}at {}", named(name, fingerprint), at(point))
            }
            SpecAction::TypeText { text, .. } => format!("type {text:?}"),
            SpecAction::PressKey { code } => {
                format!("press {}", key_label(*code as u8))
            }
            SpecAction::ScrollUp { origin, distance } => {
                format!("scroll up {distance} px at {}", at(origin))
            }
            SpecAction::ScrollDown { origin, distance } => {
                format!("scroll down {distance} px at {}", at(origin))
            }
            SpecAction::SetFileInputFiles { selector, files } => {
                format!("set the files of {selector} to {files:?}")
            }
            SpecAction::MouseDrag { from, to, .. } => {
                format!("drag from {} to {}", at(from), at(to))
            }
            SpecAction::SetViewport { width, height } => {
                format!("resize the viewport to {width} x {height}")
            }
        }
    }
}

/// A key's name as the DOM's `KeyboardEvent.key` (and Playwright's `keyboard.press`)
/// spells it, from its DOM `keyCode`: letters lower case, as typed without Shift.
pub fn key_name(code: u8) -> Option<&'static str> {
    const LETTERS: [&str; 26] = [
        "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r",
        "s", "t", "u", "v", "w", "x", "y", "z",
    ];
    const DIGITS: [&str; 10] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];
    const F: [&str; 12] = [
        "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12",
    ];
    Some(match code {
        8 => "Backspace",
        9 => "Tab",
        13 => "Enter",
        16 => "Shift",
        17 => "Control",
        18 => "Alt",
        27 => "Escape",
        32 => " ",
        33 => "PageUp",
        34 => "PageDown",
        35 => "End",
        36 => "Home",
        37 => "ArrowLeft",
        38 => "ArrowUp",
        39 => "ArrowRight",
        40 => "ArrowDown",
        45 => "Insert",
        46 => "Delete",
        48..=57 => DIGITS[(code - 48) as usize],
        65..=90 => LETTERS[(code - 65) as usize],
        112..=123 => F[(code - 112) as usize],
        _ => return None,
    })
}

/// The key's DOM `code` (the physical key), for the CDP key event.
pub fn key_code_name(code: u8) -> Option<String> {
    let key = key_name(code)?;
    Some(match code {
        32 => "Space".into(),
        48..=57 => format!("Digit{key}"),
        65..=90 => format!("Key{}", key.to_ascii_uppercase()),
        _ => key.to_string(),
    })
}

/// The key code of a key name ([`key_name`]'s inverse; "Space" too): what a `press`
/// action's value names.
pub fn key_code(name: &str) -> Option<u8> {
    if name == "Space" {
        return Some(32);
    }
    (0..=u8::MAX).find(|&c| key_name(c) == Some(name))
}

/// A key for people and for Playwright's `keyboard.press` (the space key is "Space").
pub fn key_label(code: u8) -> &'static str {
    match code {
        32 => "Space",
        _ => key_name(code).unwrap_or("?"),
    }
}

fn short_json(v: &serde_json::Value) -> String {
    cut(&v.to_string(), 80)
}

fn cut(s: &str, max: usize) -> String {
    if s.chars().count() > max {
        format!("{}...", s.chars().take(max - 3).collect::<String>())
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_manuals_shapes_are_read() {
        let click = SpecAction::from_json(
            &json!({ "Click": { "name": "canvas", "point": { "x": 10.5, "y": 20 } } }),
        )
        .unwrap();
        assert_eq!(click.describe(), "click \"canvas\" at (11, 20)");
        assert_eq!(
            SpecAction::from_json(&json!("Back")).unwrap(),
            SpecAction::Back
        );
        let dbl = SpecAction::from_json(&json!({ "DoubleClick": { "name": "c", "point": { "x": 1, "y": 2 }, "delayMillis": 100 } }))
            .unwrap();
        assert!(
            matches!(dbl, SpecAction::DoubleClick { delay_millis, .. } if delay_millis == 100.0)
        );
        let key = SpecAction::from_json(&json!({ "PressKey": { "code": 13 } })).unwrap();
        assert_eq!(key.describe(), "press Enter");
        let typed =
            SpecAction::from_json(&json!({ "TypeText": { "text": "hi", "delayMillis": 0 } }))
                .unwrap();
        assert_eq!(typed.describe(), "type \"hi\"");
    }

    #[test]
    fn an_action_round_trips_through_the_action_that_carries_it() {
        let a = SpecAction::ScrollDown {
            origin: Point { x: 100.0, y: 200.0 },
            distance: 300.0,
        };
        let carried = a.to_action();
        assert_eq!(carried.kind, ActionKind::Spec);
        assert_eq!(carried.target, None);
        assert_eq!(SpecAction::of(&carried).unwrap(), a);
        // Bombadil's own spelling: the same JSON goes back to the spec as `lastAction`.
        assert_eq!(
            carried.value.as_deref(),
            Some(r#"{"ScrollDown":{"origin":{"x":100.0,"y":200.0},"distance":300.0}}"#)
        );
    }

    #[test]
    fn impossible_actions_are_refused_with_the_reason() {
        let err = |v| SpecAction::from_json(&v).unwrap_err().0;
        assert!(err(json!({ "PressKey": { "code": 300 } })).contains("from 0 to 255"));
        assert!(err(json!({ "PressKey": { "code": 200 } })).contains("no key has code 200"));
        assert!(err(json!({ "DoubleClick": { "name": "c", "point": { "x": 1, "y": 2 }, "delayMillis": 5000 } }))
            .contains("delayMillis"));
        assert!(err(json!({ "Click": { "name": "c" } })).contains("is not an action"));
        assert!(err(json!("Jump")).contains("\"Jump\" is not an action"));
        assert!(
            err(json!({ "ScrollUp": { "origin": { "x": 1, "y": 1 }, "distance": -3 } }))
                .contains("non-negative")
        );
    }

    #[test]
    fn keys_are_named_as_the_dom_names_them() {
        assert_eq!(key_name(65), Some("a"));
        assert_eq!(key_name(57), Some("9"));
        assert_eq!(key_name(113), Some("F2"));
        assert_eq!(key_code_name(65).as_deref(), Some("KeyA"));
        assert_eq!(key_code_name(32).as_deref(), Some("Space"));
        assert_eq!(key_label(32), "Space");
        assert_eq!(key_name(200), None);
    }
}
