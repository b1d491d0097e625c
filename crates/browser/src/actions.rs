//! Acting on the page with real input: mouse events at the element's centre after
//! scrolling it into view, Delete + Input.insertText for typing, native setters only where
//! browsers offer no text entry (date/time/color/range), history and navigation by CDP.

use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::dom::SetFileInputFilesParams;
use chromiumoxide::cdp::browser_protocol::input::{
    DispatchKeyEventParams, DispatchKeyEventType, DispatchMouseEventParams, DispatchMouseEventType,
    InsertTextParams, MouseButton,
};
use chromiumoxide::cdp::browser_protocol::page::{
    GetNavigationHistoryParams, NavigateParams, NavigateToHistoryEntryParams, StopLoadingParams,
};
use chromiumoxide::cdp::js_protocol::runtime::EvaluateParams;
use chromiumoxide::Page;
use wayfarer_core::files::FileSpec;
use wayfarer_core::keys::Chord;
use wayfarer_core::spec_action::Point;
use wayfarer_core::{Action, ActionKind, Event, EventKind};

use crate::cdp::{call, call_when_attached, eval, eval_deep, BrowserError};
use crate::events::SharedRef;
use crate::leave::Control;
use crate::name::{identify_items, Identified, NAMES_JS};
use crate::scan::guarded;
use crate::scope::Scope;
use crate::stability::{InputMark, Unstuck};

/// Resolves `A >>> B >>> C` (shadow hosts and same-origin frames) to an element or null.
pub(crate) const FIND_JS: &str = r#"const __wfFind = (loc) => {
  const parts = loc.split(" >>> ");
  let root = document, el = null;
  for (let i = 0; i < parts.length; i++) {
    try { el = root.querySelector(parts[i]); } catch (e) { return null; }
    if (!el) return null;
    if (i < parts.length - 1) {
      if (el.shadowRoot) { root = el.shadowRoot; continue; }
      let d = null;
      try { d = el.contentDocument; } catch (e) { d = null; }
      if (!d) return null;
      root = d;
    }
  }
  return el;
};"#;

/// Scroll into view and return the centre in top-level viewport coordinates, and whether
/// a click there may load another document (a link, a form's submit button).
const POINT_JS: &str = r#"const el = __wfFind(loc);
if (!el) return null;
let leave = null;
const a = el.closest("a[href], area[href]");
if (a) {
  const h = (a.getAttribute("href") || "").trim().toLowerCase();
  if (!(h.startsWith('#') || h.startsWith('javascript:')) && (a.target || "").toLowerCase() !== "_blank") leave = "link";
} else {
  const b = el.closest("button, input[type=submit], input[type=image]");
  if (b && b.form && (b.localName !== "button" || (b.getAttribute("type") || "submit").toLowerCase() === "submit")) leave = "submit";
}
el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
const r = el.getBoundingClientRect();
let x = r.left + r.width / 2, y = r.top + r.height / 2;
for (let w = el.ownerDocument.defaultView; w && w.frameElement; w = w.frameElement.ownerDocument.defaultView) {
  const fe = w.frameElement, fr = fe.getBoundingClientRect(), cs = getComputedStyle(fe);
  x += fr.left + fe.clientLeft + parseFloat(cs.paddingLeft || "0");
  y += fr.top + fe.clientTop + parseFloat(cs.paddingTop || "0");
}
// The releases the top document has counted (see the stability script); a click in a
// frame is counted there, where the wait does not look.
const st = el.ownerDocument === document ? window[Symbol.for("wayfarer.stability")] : null;
return [x, y, r.width, r.height, leave, st ? [st.id, st.ups] : null, __WF_IDENTIFY__];"#;

/// The element, its role and its facts, for its names (`name.rs`).
const IDENTIFY_JS: &str = r#"const el = __wfFind(loc);
if (!el) return null;
return [__WF_IDENTIFY__];"#;

/// Focus and select the current content; date-like inputs get the value set natively.
const PREPARE_TYPE_JS: &str = r#"const el = __wfFind(loc);
if (!el) return null;
const t = (el.type || "").toLowerCase();
if (el.localName === "input" && ["date", "datetime-local", "month", "week", "time", "color", "range"].includes(t)) {
  const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set;
  el.focus();
  set.call(el, value);
  el.dispatchEvent(new Event("input", { bubbles: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
  el.blur();
  return "native";
}
el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
el.focus();
if (el.localName === "input" || el.localName === "textarea") {
  try { el.select(); } catch (e) { /* not selectable */ }
  return el.value ? "filled" : "empty";
}
if (el.isContentEditable) {
  const doc = el.ownerDocument, r = doc.createRange();
  r.selectNodeContents(el);
  const s = doc.defaultView.getSelection();
  s.removeAllRanges();
  s.addRange(r);
  return el.textContent ? "filled" : "empty";
}
return "empty";"#;

/// A drag's first move, in CSS pixels along each axis: past the few pixels a sortable
/// list waits for before it takes the pointer as a drag (jQuery UI: 1, SortableJS: 0-5).
const DRAG_NUDGE_PX: f64 = 6.0;
/// The moves of a drag towards its drop target, and the pause before each: libraries
/// that follow the pointer once a frame see it travel.
const DRAG_STEPS: u32 = 10;
const DRAG_PAUSE_MS: f64 = 16.0;

/// Scroll into view and focus, for a key press: "ok", or null when not found.
const FOCUS_JS: &str = r#"const el = __wfFind(loc);
if (!el) return null;
el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
if (el.focus) el.focus();
return "ok";"#;

const BLUR_JS: &str = r#"const el = __wfFind(loc); if (el && el.blur) el.blur(); return true;"#;

const SELECT_JS: &str = r#"const el = __wfFind(loc);
if (!el) return null;
const opts = Array.from(el.options || []);
const v = value;
// A disabled option (or one in a disabled group) is one no user can choose.
const usable = o => !o.matches(":disabled");
const named = o => o.value === v || o.textContent.trim() === v;
let o = v === null ? opts.find(o => usable(o) && !o.selected && o.value !== "") || opts.find(o => usable(o) && !o.selected)
  : opts.find(o => usable(o) && o.value === v) || opts.find(o => usable(o) && o.textContent.trim() === v);
if (!o) return v !== null && opts.some(named) ? "disabled" : "nooption";
el.focus();
if (el.multiple) o.selected = true; else el.value = o.value;
el.dispatchEvent(new Event("input", { bubbles: true }));
el.dispatchEvent(new Event("change", { bubbles: true }));
el.blur();
return "ok";"#;

const SUBMIT_JS: &str = r#"const el = __wfFind(loc);
if (!el) return null;
const f = el.form || el.closest("form");
if (!f) return "noform";
if (f.requestSubmit) f.requestSubmit(); else f.submit();
return "ok";"#;

/// Whether a failed `location.assign` failed because the navigation it started tore down
/// the document it ran in (Chrome: "Inspected target navigated or closed", "Execution
/// context was destroyed"), not because it could not run.
fn assign_began(e: &BrowserError) -> bool {
    let said = e.to_string();
    said.contains("navigated or closed") || said.contains("context was destroyed")
}

/// `body` sees the locator as `loc` and the value (or null) as `value`.
fn script(body: &str, loc: &str, value: Option<&str>) -> String {
    let loc = serde_json::to_string(loc).unwrap_or_else(|_| "\"\"".into());
    let value = serde_json::to_string(&value).unwrap_or_else(|_| "null".into());
    // Guarded: the page may have rewritten the builtins these scripts use.
    let body = guarded(&format!("{FIND_JS}\n{body}"));
    format!("((loc, value) => {{ {body} }})({loc}, {value})")
}

/// `body` with its `__WF_IDENTIFY__` replaced: with `tids` (the JSON array of test id
/// attributes), by the items `Identified::from_items` reads, the naming helpers included;
/// without, by `null` (the element is not named, nothing is counted).
fn named_script(body: &str, loc: &str, value: Option<&str>, tids: Option<&str>) -> String {
    match tids {
        Some(t) => {
            let body = body.replace("__WF_IDENTIFY__", &identify_items(t));
            script(&format!("{NAMES_JS}\n{body}"), loc, value)
        }
        None => script(&body.replace("__WF_IDENTIFY__", "null"), loc, value),
    }
}

/// What acting needs from the session.
pub(crate) struct Actor<'a> {
    pub page: &'a Page,
    pub shared: &'a SharedRef,
    pub scope: &'a Scope,
    pub cdp: Duration,
    pub load: Duration,
    /// The JSON array of attributes read as test ids.
    pub tids: &'a str,
}

/// Where a click lands, and what kind of control is there.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Aim {
    pub x: f64,
    pub y: f64,
    pub control: Control,
    /// The document's release count before the click (see `InputMark`).
    pub input: Option<InputMark>,
}

/// What preparing a field for typing left to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Typed {
    /// A date-like field got its value natively: nothing to type.
    Native,
    /// Focused with its content selected (`filled`: there was content to delete).
    Keys { filled: bool },
}

/// How a navigation ended.
pub(crate) enum Nav {
    Done,
    /// Aborted (net::ERR_ABORTED): a download, a 204, or a later navigation that won.
    Aborted,
    /// The browser could not load it (refused, DNS, invalid): net error text.
    Failed(String),
    /// No answer within the load bound; loading was stopped.
    TimedOut,
}

impl Actor<'_> {
    pub async fn act(&self, action: &Action) -> Result<(), BrowserError> {
        let target = || {
            action.target.as_deref().ok_or_else(|| {
                BrowserError::Step(format!("{} needs a target", action.kind.as_str()))
            })
        };
        match action.kind {
            ActionKind::Click | ActionKind::Check => self.click(target()?, 1).await,
            ActionKind::DoubleClick => self.click(target()?, 2).await,
            ActionKind::Hover => {
                let aim = self.aim(target()?).await?;
                self.mouse(DispatchMouseEventType::MouseMoved, aim.x, aim.y, 0)
                    .await
            }
            ActionKind::ContextMenu => {
                let aim = self.aim(target()?).await?;
                self.right_click(aim).await
            }
            ActionKind::Scroll => {
                let aim = match action.target.as_deref() {
                    Some(loc) => self.aim(loc).await?,
                    None => self.middle().await?,
                };
                self.wheel_down(aim).await
            }
            ActionKind::Drag => {
                let loc = target()?;
                let onto = action
                    .value
                    .as_deref()
                    .ok_or_else(|| BrowserError::Step("drag needs a drop target".into()))?;
                self.drag_onto(loc, onto).await
            }
            ActionKind::Upload => {
                let spec = FileSpec::parse(action.value.as_deref().unwrap_or("notes.txt"));
                self.upload(target()?, &spec).await
            }
            ActionKind::Press => {
                let key = action.value.as_deref().unwrap_or("Enter");
                let chord = Chord::parse(key)
                    .ok_or_else(|| BrowserError::Step(format!("no key named {key:?}")))?;
                // Without a target (Escape in an open dialog) the key goes where the focus is.
                if let Some(loc) = action.target.as_deref() {
                    let focused = self.run(FOCUS_JS, loc, None).await;
                    match self.answered(focused, "in a focus handler").await? {
                        Some(v) if v.is_null() => return Err(BrowserError::NotFound(loc.into())),
                        _ => {}
                    }
                }
                self.press_chord(chord).await
            }
            ActionKind::Type => {
                self.type_text(target()?, action.value.as_deref().unwrap_or(""))
                    .await
            }
            ActionKind::Select => {
                let loc = target()?;
                let chose = self.run(SELECT_JS, loc, action.value.as_deref()).await;
                let Some(chose) = self.answered(chose, "in a change handler").await? else {
                    return Ok(());
                };
                match chose.as_str() {
                    Some("ok") => Ok(()),
                    Some("disabled") => Err(BrowserError::Step(format!(
                        "option {:?} of {loc} is disabled: no user can choose it",
                        action.value.as_deref().unwrap_or("")
                    ))),
                    Some(_) => Err(BrowserError::Step(format!(
                        "no option {:?} in {loc}",
                        action.value.as_deref().unwrap_or("")
                    ))),
                    None => Err(BrowserError::NotFound(loc.to_string())),
                }
            }
            ActionKind::Submit => {
                let loc = target()?;
                let sent = self.run(SUBMIT_JS, loc, None).await;
                let Some(sent) = self.answered(sent, "in a submit handler").await? else {
                    return Ok(());
                };
                match sent.as_str() {
                    Some("ok") => Ok(()),
                    Some(_) => Err(BrowserError::Step(format!("{loc} is not in a form"))),
                    None => Err(BrowserError::NotFound(loc.to_string())),
                }
            }
            ActionKind::Back => self.back().await,
            ActionKind::Navigate => {
                let value = action
                    .value
                    .as_deref()
                    .ok_or_else(|| BrowserError::Step("navigate needs a URL".into()))?;
                self.navigate_in_scope(value).await
            }
            ActionKind::Spec => self.act_spec(action).await,
        }
    }

    async fn run(
        &self,
        body: &str,
        loc: &str,
        value: Option<&str>,
    ) -> Result<serde_json::Value, BrowserError> {
        eval(self.page, script(body, loc, value), self.cdp).await
    }

    /// Scroll the element into view and return its centre, or `NotFound`.
    pub async fn aim(&self, loc: &str) -> Result<Aim, BrowserError> {
        self.point(loc, None).await.map(|(aim, _)| aim)
    }

    /// `aim`, and the element as the accessibility tree knows it.
    pub async fn aim_identified(
        &self,
        loc: &str,
    ) -> Result<(Aim, Option<Identified>), BrowserError> {
        self.point(loc, Some(self.tids)).await
    }

    async fn point(
        &self,
        loc: &str,
        tids: Option<&str>,
    ) -> Result<(Aim, Option<Identified>), BrowserError> {
        let v = eval_deep(self.page, named_script(POINT_JS, loc, None, tids), self.cdp).await?;
        let a = v
            .as_array()
            .ok_or_else(|| BrowserError::NotFound(loc.to_string()))?;
        let id = Identified::from_items(a, 6);
        let num = |i: usize| a.get(i).and_then(|x| x.as_f64()).unwrap_or(0.0);
        // No box, no click: the scan never offers such an element, and a click at its
        // corner would land on whatever is there (Playwright waits for it to show).
        if num(2) <= 0.0 || num(3) <= 0.0 {
            return Err(BrowserError::NotFound(format!(
                "{loc} (in the page, but not shown)"
            )));
        }
        let aim = Aim {
            x: num(0),
            y: num(1),
            control: match a.get(4).and_then(|x| x.as_str()) {
                Some("link") => Control::Link,
                Some("submit") => Control::Submit,
                _ => Control::Script,
            },
            input: a.get(5).and_then(InputMark::from_json),
        };
        Ok((aim, id))
    }

    /// The element `loc` finds, as the accessibility tree knows it (`None`: not found).
    pub async fn identify(&self, loc: &str) -> Result<Option<Identified>, BrowserError> {
        let v = eval_deep(
            self.page,
            named_script(IDENTIFY_JS, loc, None, Some(self.tids)),
            self.cdp,
        )
        .await?;
        Ok(v.as_array().and_then(|a| Identified::from_items(a, 0)))
    }

    fn mouse_params(
        kind: DispatchMouseEventType,
        x: f64,
        y: f64,
        clicks: i64,
    ) -> Result<DispatchMouseEventParams, BrowserError> {
        Self::button_params(kind, x, y, clicks, MouseButton::Left)
    }

    fn button_params(
        kind: DispatchMouseEventType,
        x: f64,
        y: f64,
        clicks: i64,
        button: MouseButton,
    ) -> Result<DispatchMouseEventParams, BrowserError> {
        // The `buttons` bitmask while pressed: 1 the left button, 2 the right one.
        let held = if button == MouseButton::Right { 2 } else { 1 };
        let mut b = DispatchMouseEventParams::builder()
            .r#type(kind.clone())
            .x(x)
            .y(y);
        if kind != DispatchMouseEventType::MouseMoved {
            b = b.button(button).click_count(clicks);
            b = b.buttons(if kind == DispatchMouseEventType::MousePressed {
                held
            } else {
                0
            });
        }
        b.build().map_err(BrowserError::Step)
    }

    /// Set the file input `loc` to the file `spec` makes, as a file chooser does (the page
    /// gets its `input` and `change` events). The file is written once per process into
    /// a directory of its own under the system's temporary one.
    pub async fn upload(&self, loc: &str, spec: &FileSpec) -> Result<(), BrowserError> {
        let dir = std::env::temp_dir().join(format!("wayfarer-uploads-{}", std::process::id()));
        let path = dir.join(spec.file_name());
        let bytes = spec.bytes();
        let fresh = std::fs::metadata(&path).is_ok_and(|m| m.len() == bytes.len() as u64);
        if !fresh {
            std::fs::create_dir_all(&dir)
                .and_then(|()| std::fs::write(&path, &bytes))
                .map_err(|e| BrowserError::Step(format!("writing {}: {e}", path.display())))?;
        }
        let query = format!(
            "(() => {{ {} const el = __wfFind({}); \
               return el instanceof HTMLInputElement && el.type === 'file' ? el : null; }})()",
            FIND_JS,
            serde_json::Value::from(loc)
        );
        let found = call(self.page, EvaluateParams::new(query), self.cdp).await?;
        let Some(object_id) = found.result.object_id.clone() else {
            return Err(BrowserError::NotFound(format!("{loc} (no file input)")));
        };
        let set = SetFileInputFilesParams::builder()
            .files(vec![path.to_string_lossy().into_owned()])
            .object_id(object_id)
            .build()
            .map_err(BrowserError::Step)?;
        call(self.page, set, self.cdp).await.map(|_| ())
    }

    /// The middle of the window, where a scroll of the page turns the wheel.
    async fn middle(&self) -> Result<Aim, BrowserError> {
        let v = eval(self.page, "[innerWidth / 2, innerHeight / 2]", self.cdp).await?;
        let at = |i: usize| v.get(i).and_then(|x| x.as_f64()).unwrap_or(100.0);
        Ok(Aim {
            x: at(0),
            y: at(1),
            control: Control::Script,
            input: None,
        })
    }

    /// Move to `aim` and turn the wheel down by `SCROLL_PX`.
    async fn wheel_down(&self, aim: Aim) -> Result<(), BrowserError> {
        let moved = Self::mouse_params(DispatchMouseEventType::MouseMoved, aim.x, aim.y, 0)?;
        let wheel = DispatchMouseEventParams::builder()
            .r#type(DispatchMouseEventType::MouseWheel)
            .x(aim.x)
            .y(aim.y)
            .delta_x(0.0)
            .delta_y(f64::from(wayfarer_core::model::SCROLL_PX))
            .build()
            .map_err(BrowserError::Step)?;
        self.send_mouse(vec![moved, wheel]).await
    }

    /// Move to `aim` and press and release the right button: Chrome fires `contextmenu`
    /// on the press, as for a user.
    pub async fn right_click(&self, aim: Aim) -> Result<(), BrowserError> {
        use DispatchMouseEventType::{MouseMoved, MousePressed, MouseReleased};
        let right = |kind| Self::button_params(kind, aim.x, aim.y, 1, MouseButton::Right);
        let events = vec![
            Self::mouse_params(MouseMoved, aim.x, aim.y, 0)?,
            right(MousePressed)?,
            right(MouseReleased)?,
        ];
        self.send_mouse(events).await
    }

    /// Move to `aim` and press and release `clicks` times.
    pub async fn press(&self, aim: Aim, clicks: i64) -> Result<(), BrowserError> {
        use DispatchMouseEventType::{MouseMoved, MousePressed, MouseReleased};
        let mut events = vec![Self::mouse_params(MouseMoved, aim.x, aim.y, 0)?];
        for n in 1..=clicks {
            events.push(Self::mouse_params(MousePressed, aim.x, aim.y, n)?);
            events.push(Self::mouse_params(MouseReleased, aim.x, aim.y, n)?);
        }
        self.send_mouse(events).await
    }

    /// Press and release once at `aim`, counted as the `nth` click of a series (a double
    /// click's second press after a delay).
    pub(crate) async fn press_nth(&self, aim: Aim, nth: i64) -> Result<(), BrowserError> {
        use DispatchMouseEventType::{MousePressed, MouseReleased};
        self.send_mouse(vec![
            Self::mouse_params(MousePressed, aim.x, aim.y, nth)?,
            Self::mouse_params(MouseReleased, aim.x, aim.y, nth)?,
        ])
        .await
    }

    /// Mouse events sent without waiting for each acknowledgement (Chrome handles input in
    /// order), as Puppeteer does: one round trip instead of one per event.
    async fn send_mouse(&self, events: Vec<DispatchMouseEventParams>) -> Result<(), BrowserError> {
        let sent = events.into_iter().map(|p| call(self.page, p, self.cdp));
        let pressed = futures::future::try_join_all(sent).await.map(|_| ());
        self.unless_stuck(pressed, "in a click").await
    }

    /// A script of ours that dispatched to the page's handlers: its value, or None when a
    /// handler never returned and was terminated (see `unless_stuck`).
    async fn answered(
        &self,
        r: Result<serde_json::Value, BrowserError>,
        during: &str,
    ) -> Result<Option<serde_json::Value>, BrowserError> {
        match r {
            Ok(v) => Ok(Some(v)),
            Err(e) => self.unless_stuck(Err(e), during).await.map(|()| None),
        }
    }

    /// An input or script whose answer timed out because a handler of the page never
    /// returned: the script is terminated, a Hang says so, and the step goes on (the wait
    /// and the scan then find an answering page). Any other outcome as it is.
    pub(crate) async fn unless_stuck(
        &self,
        r: Result<(), BrowserError>,
        during: &str,
    ) -> Result<(), BrowserError> {
        match r {
            Err(BrowserError::Timeout(what)) => {
                if crate::stability::unstick(self.page, self.cdp).await == Unstuck::Answers {
                    tracing::debug!(%what, "a handler kept the page busy; terminated");
                    self.shared
                        .push(crate::stability::stuck_event(self.cdp.as_millis(), during));
                    Ok(())
                } else {
                    Err(BrowserError::Timeout(what))
                }
            }
            other => other,
        }
    }

    async fn mouse(
        &self,
        kind: DispatchMouseEventType,
        x: f64,
        y: f64,
        clicks: i64,
    ) -> Result<(), BrowserError> {
        let p = Self::mouse_params(kind, x, y, clicks)?;
        let moved = call(self.page, p, self.cdp).await.map(|_| ());
        self.unless_stuck(moved, "in a mouse move").await
    }

    pub async fn click(&self, loc: &str, clicks: i64) -> Result<(), BrowserError> {
        let aim = self.aim(loc).await?;
        self.press(aim, clicks).await
    }

    /// Drag `loc` onto `onto` as a hand does: press on it, move a few pixels (pointer-driven
    /// sortables start past a small distance), then on to the drop target in even steps,
    /// release there. Chromium starts a native HTML5 drag from these events where the
    /// element is draggable, so one gesture serves both kinds of page.
    async fn drag_onto(&self, loc: &str, onto: &str) -> Result<(), BrowserError> {
        let point = |a: Aim| Point { x: a.x, y: a.y };
        let from = point(self.aim(loc).await?);
        self.button_down(from).await?;
        let nudge = Point {
            x: from.x + DRAG_NUDGE_PX,
            y: from.y + DRAG_NUDGE_PX,
        };
        self.drag_moves(from, nudge, 2, DRAG_PAUSE_MS).await?;
        // The drop target is aimed at with the button held: it may scroll into view.
        let to = match self.aim(onto).await {
            Ok(a) => point(a),
            Err(e) => {
                self.button_up(nudge).await?;
                return Err(e);
            }
        };
        self.drag_moves(nudge, to, DRAG_STEPS, DRAG_PAUSE_MS)
            .await?;
        self.button_up(to).await
    }

    fn key(
        kind: DispatchKeyEventType,
        key: &str,
        code: i64,
    ) -> Result<DispatchKeyEventParams, BrowserError> {
        DispatchKeyEventParams::builder()
            .r#type(kind)
            .key(key)
            .code(key)
            .windows_virtual_key_code(code)
            .native_virtual_key_code(code)
            .build()
            .map_err(BrowserError::Step)
    }

    pub async fn type_text(&self, loc: &str, value: &str) -> Result<(), BrowserError> {
        match self.prepare_type(loc, value, false).await?.0 {
            Typed::Native => Ok(()),
            Typed::Keys { filled } => self.finish_type(loc, value, filled).await,
        }
    }

    /// Focus and select the field, or set a date-like value natively (then the typing is
    /// done); with `named`, identify it first (its names counted before anything changes).
    pub async fn prepare_type(
        &self,
        loc: &str,
        value: &str,
        named: bool,
    ) -> Result<(Typed, Option<Identified>), BrowserError> {
        let body = format!(
            "const el = __wfFind(loc);\nif (!el) return null;\nconst __id = [__WF_IDENTIFY__];\n\
             const __state = (() => {{ {PREPARE_TYPE_JS} }})();\nreturn [__state, ...__id];"
        );
        let tids = named.then_some(self.tids);
        let expr = named_script(&body, loc, Some(value), tids);
        let v = eval_deep(self.page, expr, self.cdp).await?;
        let a = v
            .as_array()
            .ok_or_else(|| BrowserError::NotFound(loc.to_string()))?;
        let typed = match a.first().and_then(|s| s.as_str()) {
            None => return Err(BrowserError::NotFound(loc.to_string())),
            Some("native") => Typed::Native,
            Some(s) => Typed::Keys {
                filled: s == "filled",
            },
        };
        Ok((typed, Identified::from_items(a, 1)))
    }

    /// Type `value` into the field `prepare_type` focused, and leave it.
    pub async fn finish_type(
        &self,
        loc: &str,
        value: &str,
        filled: bool,
    ) -> Result<(), BrowserError> {
        // Input events go through one ordered queue: send them together, await once.
        let mut keys = Vec::new();
        if filled {
            // The selection holds the old value: Delete removes it as a user would.
            keys.push(Self::key(DispatchKeyEventType::KeyDown, "Delete", 46)?);
            keys.push(Self::key(DispatchKeyEventType::KeyUp, "Delete", 46)?);
        }
        let cdp = self.cdp;
        let deleting =
            futures::future::try_join_all(keys.into_iter().map(|k| call(self.page, k, cdp)));
        let inserting = async {
            if value.is_empty() {
                Ok(())
            } else {
                call(self.page, InsertTextParams::new(value), cdp)
                    .await
                    .map(|_| ())
            }
        };
        let typed = futures::future::try_join(deleting, inserting)
            .await
            .map(|_| ());
        self.unless_stuck(typed, "in typing").await?;
        let blurred = self.run(BLUR_JS, loc, None).await.map(|_| ());
        self.unless_stuck(blurred, "in leaving a field").await
    }

    pub(crate) async fn back(&self) -> Result<(), BrowserError> {
        self.history_step(-1).await
    }

    /// Move `delta` entries through the session history, never out of the application
    /// (e.g. to the about:blank before the start); nothing when there is no such entry.
    pub(crate) async fn history_step(&self, delta: i64) -> Result<(), BrowserError> {
        let h =
            call_when_attached(self.page, GetNavigationHistoryParams::default(), self.cdp).await?;
        let Ok(i) = usize::try_from(h.current_index + delta) else {
            return Ok(());
        };
        match h.entries.get(i) {
            Some(e) if self.scope.allows(&e.url) => {
                call_when_attached(self.page, NavigateToHistoryEntryParams::new(e.id), self.cdp)
                    .await
                    .map(|_| ())
            }
            _ => Ok(()),
        }
    }

    async fn navigate_in_scope(&self, value: &str) -> Result<(), BrowserError> {
        let base = self
            .page
            .url()
            .await
            .ok()
            .flatten()
            .and_then(|u| url::Url::parse(&u).ok());
        let url = match base {
            Some(b) => b.join(value),
            None => url::Url::parse(value),
        }
        .map_err(|e| BrowserError::Step(format!("bad URL {value:?}: {e}")))?;
        if !self.scope.allows(url.as_str()) {
            self.shared.push(
                Event::new(
                    EventKind::ExternalNavigation,
                    format!("navigation to {url} blocked (outside the allowed origins)"),
                )
                .at(url.to_string(), None, None),
            );
            return Ok(());
        }
        // The page's own navigation, as a link's click makes it: Page.navigate through
        // chromiumoxide waits for a load that a route change within the document or a
        // download never brings (10 s each on MailDev's `#/email/<id>` and attachment
        // links). The settle after the step waits for a new document as after a click; a
        // failed load shows up as RequestFailed from the network events.
        let assign = format!("location.assign({})", serde_json::Value::from(url.as_str()));
        match eval(self.page, assign, self.cdp).await {
            Ok(_) => Ok(()),
            // The navigation began and took the script's context with it before the answer
            // came: navigating again would load the page twice, the first load aborted and
            // its wait timed out (a false hang seen on the gestures app).
            Err(e) if assign_began(&e) => Ok(()),
            Err(e) => {
                tracing::debug!("location.assign failed ({e}); Page.navigate instead");
                self.navigate(url.as_str()).await.map(|_| ())
            }
        }
    }

    /// Page.navigate bounded by the load timeout (the command returns once the response
    /// starts, or at once with a net error).
    pub async fn navigate(&self, url: &str) -> Result<Nav, BrowserError> {
        match tokio::time::timeout(self.load, self.page.execute(NavigateParams::new(url))).await {
            Ok(Ok(r)) => match r.result.error_text.clone() {
                Some(e) if e == "net::ERR_ABORTED" => Ok(Nav::Aborted),
                Some(e) if !e.is_empty() => Ok(Nav::Failed(e)),
                _ => Ok(Nav::Done),
            },
            Ok(Err(chromiumoxide::error::CdpError::Chrome(e))) => Ok(Nav::Failed(e.message)),
            Ok(Err(e)) => Err(crate::cdp::classify("Page.navigate", e)),
            Err(_) => {
                let _ = call(self.page, StopLoadingParams::default(), self.cdp).await;
                Ok(Nav::TimedOut)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_navigation_that_took_its_script_along_is_not_started_again() {
        let began = |m: &str| assign_began(&BrowserError::Step(m.into()));
        // As the suite saw it when a step's page navigated during an evaluation.
        assert!(began(
            "CDP Runtime.evaluate: Inspected target navigated or closed"
        ));
        assert!(began("Execution context was destroyed."));
        assert!(!began(
            "CDP Runtime.evaluate: Cannot find context with specified id"
        ));
        assert!(!began("ReferenceError: location is not defined"));
    }
}
