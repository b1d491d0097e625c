//! Performing the actions a specification's generators offer (`SpecAction`): clicks at a
//! point, keys, text, wheel scrolls, drags, files, the viewport, history and waits, with
//! the same real input events as wayfarer's own actions.

use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::dom::SetFileInputFilesParams;
use chromiumoxide::cdp::browser_protocol::emulation::SetDeviceMetricsOverrideParams;
use chromiumoxide::cdp::browser_protocol::input::{
    DispatchKeyEventParams, DispatchKeyEventType, DispatchMouseEventParams, DispatchMouseEventType,
    InsertTextParams, MouseButton,
};
use chromiumoxide::cdp::js_protocol::runtime::EvaluateParams;
use wayfarer_core::keys::Chord;
use wayfarer_core::spec_action::{key_code_name, key_name, Point, SpecAction, WAIT_MS};
use wayfarer_core::Action;

use crate::actions::{Actor, Aim};
use crate::cdp::{call, eval, BrowserError};
use crate::leave::Control;

/// How the page may leave after the action: history actions as `back`, the rest as a
/// script's doing.
pub(crate) fn control(action: &Action) -> Control {
    match SpecAction::of(action) {
        Ok(SpecAction::Back | SpecAction::Forward | SpecAction::Reload) => Control::History,
        _ => Control::Script,
    }
}

/// A left-button mouse event of a drag at `p`, with `buttons` held (1 while dragging).
fn drag_event(
    kind: DispatchMouseEventType,
    p: Point,
    buttons: i64,
) -> Result<DispatchMouseEventParams, BrowserError> {
    let moved = kind == DispatchMouseEventType::MouseMoved;
    DispatchMouseEventParams::builder()
        .r#type(kind)
        .x(p.x)
        .y(p.y)
        .button(if moved && buttons == 0 {
            MouseButton::None
        } else {
            MouseButton::Left
        })
        .buttons(buttons)
        .click_count(if moved { 0 } else { 1 })
        .build()
        .map_err(BrowserError::Step)
}

impl Actor<'_> {
    pub(crate) async fn act_spec(&self, action: &Action) -> Result<(), BrowserError> {
        let a = SpecAction::of(action).map_err(|e| BrowserError::Step(e.0))?;
        match a {
            SpecAction::Back => self.back().await,
            SpecAction::Forward => self.history_step(1).await,
            SpecAction::Reload => {
                // The page's own reload, as for a navigation: the settle waits for the
                // new document.
                eval(self.page, "location.reload()", self.cdp)
                    .await
                    .map(|_| ())
            }
            SpecAction::Wait => {
                tokio::time::sleep(Duration::from_millis(WAIT_MS)).await;
                Ok(())
            }
            SpecAction::Click { point, .. } => self.press(aim(point), 1).await,
            SpecAction::DoubleClick {
                point,
                delay_millis,
                ..
            } => {
                if delay_millis <= 0.0 {
                    return self.press(aim(point), 2).await;
                }
                self.press(aim(point), 1).await?;
                tokio::time::sleep(Duration::from_millis(delay_millis as u64)).await;
                // The second press counts 2: the page sees a double click, as from a user.
                self.press_nth(aim(point), 2).await
            }
            SpecAction::TypeText { text, delay_millis } => {
                if delay_millis <= 0.0 {
                    return self.insert(&text).await;
                }
                for c in text.chars() {
                    tokio::time::sleep(Duration::from_millis(delay_millis as u64)).await;
                    self.insert(c.encode_utf8(&mut [0; 4])).await?;
                }
                Ok(())
            }
            SpecAction::PressKey { code } => self.press_key(code as u8).await,
            SpecAction::ScrollUp { origin, distance } => self.wheel(origin, -distance).await,
            SpecAction::ScrollDown { origin, distance } => self.wheel(origin, distance).await,
            SpecAction::SetFileInputFiles { selector, files } => {
                self.set_files(&selector, &files).await
            }
            SpecAction::MouseDrag {
                from,
                to,
                steps,
                delay_millis,
            } => self.drag(from, to, steps as u32, delay_millis).await,
            SpecAction::SetViewport { width, height } => {
                let p =
                    SetDeviceMetricsOverrideParams::new(width as i64, height as i64, 1.0, false);
                call(self.page, p, self.cdp).await.map(|_| ())
            }
        }
    }

    /// The files of the input `selector` finds, as a file chooser sets them (the page
    /// gets its `input` and `change` events); a path is read from where wayfarer runs.
    async fn set_files(&self, selector: &str, files: &[String]) -> Result<(), BrowserError> {
        let mut paths = Vec::new();
        for f in files {
            let p = std::path::absolute(f)
                .map_err(|e| BrowserError::Step(format!("file {f:?}: {e}")))?;
            if !p.is_file() {
                return Err(BrowserError::Step(format!(
                    "SetFileInputFiles: no file {} (paths are read from the directory wayfarer \
                     runs in)",
                    p.display()
                )));
            }
            paths.push(p.to_string_lossy().into_owned());
        }
        let query = format!(
            "(() => {{ const el = document.querySelector({sel}); \
               return el instanceof HTMLInputElement && el.type === 'file' ? el : null; }})()",
            sel = serde_json::Value::from(selector)
        );
        let found = call(self.page, EvaluateParams::new(query), self.cdp).await?;
        let Some(object_id) = found.result.object_id.clone() else {
            return Err(BrowserError::Step(format!(
                "SetFileInputFiles: {selector} finds no file input"
            )));
        };
        let set = SetFileInputFilesParams::builder()
            .files(paths)
            .object_id(object_id)
            .build()
            .map_err(BrowserError::Step)?;
        call(self.page, set, self.cdp).await.map(|_| ())
    }

    /// Press at `from`, move in `steps` even steps to `to` with the left button held (a
    /// pause of `delay_ms` before each), release there.
    async fn drag(
        &self,
        from: Point,
        to: Point,
        steps: u32,
        delay_ms: f64,
    ) -> Result<(), BrowserError> {
        self.button_down(from).await?;
        self.drag_moves(from, to, steps, delay_ms).await?;
        self.button_up(to).await
    }

    /// Move the pointer to `at` and press the left button there.
    pub(crate) async fn button_down(&self, at: Point) -> Result<(), BrowserError> {
        self.send_drag(drag_event(DispatchMouseEventType::MouseMoved, at, 0)?)
            .await?;
        self.send_drag(drag_event(DispatchMouseEventType::MousePressed, at, 1)?)
            .await
    }

    /// Move in `steps` even steps from `from` to `to` with the left button held, a pause
    /// of `delay_ms` before each.
    pub(crate) async fn drag_moves(
        &self,
        from: Point,
        to: Point,
        steps: u32,
        delay_ms: f64,
    ) -> Result<(), BrowserError> {
        for i in 1..=steps.max(1) {
            if delay_ms > 0.0 {
                tokio::time::sleep(Duration::from_millis(delay_ms as u64)).await;
            }
            let t = f64::from(i) / f64::from(steps.max(1));
            let at = Point {
                x: from.x + (to.x - from.x) * t,
                y: from.y + (to.y - from.y) * t,
            };
            self.send_drag(drag_event(DispatchMouseEventType::MouseMoved, at, 1)?)
                .await?;
        }
        Ok(())
    }

    /// Release the left button at `at`.
    pub(crate) async fn button_up(&self, at: Point) -> Result<(), BrowserError> {
        self.send_drag(drag_event(DispatchMouseEventType::MouseReleased, at, 0)?)
            .await
    }

    async fn send_drag(&self, p: DispatchMouseEventParams) -> Result<(), BrowserError> {
        let sent = call(self.page, p, self.cdp).await.map(|_| ());
        self.unless_stuck(sent, "in a drag").await
    }

    async fn insert(&self, text: &str) -> Result<(), BrowserError> {
        if text.is_empty() {
            return Ok(());
        }
        let typed = call(self.page, InsertTextParams::new(text), self.cdp)
            .await
            .map(|_| ());
        self.unless_stuck(typed, "in typing").await
    }

    /// One key down and up, with the text a printable key (or Enter) types.
    pub(crate) async fn press_key(&self, code: u8) -> Result<(), BrowserError> {
        if key_name(code).is_none() {
            return Err(BrowserError::Step(format!("no key has code {code}")));
        }
        self.press_chord(Chord { modifiers: 0, code }).await
    }

    /// Press and release `chord`'s key with its modifiers held, where the focus is.
    pub(crate) async fn press_chord(&self, chord: Chord) -> Result<(), BrowserError> {
        let key = chord.key();
        let code = chord.code;
        let dom_code = key_code_name(code).unwrap_or_else(|| key.clone());
        let text = chord.text();
        // The character the key would type without modifiers: Chromium finds an access
        // key by it (Alt+n types nothing, and still means "n").
        let unmodified = match key_name(code) {
            Some("Enter") => Some("\r".to_string()),
            Some(k) if k.chars().count() == 1 => Some(key.clone()),
            _ => None,
        };
        let event = |kind: DispatchKeyEventType, down: bool| {
            let mut b = DispatchKeyEventParams::builder()
                .r#type(kind)
                .modifiers(i64::from(chord.modifiers))
                .key(key.clone())
                .code(dom_code.clone())
                .windows_virtual_key_code(i64::from(code))
                .native_virtual_key_code(i64::from(code));
            if down {
                if let Some(t) = &text {
                    b = b.text(t.clone());
                }
                if let Some(u) = &unmodified {
                    b = b.unmodified_text(u.clone());
                }
            }
            b.build().map_err(BrowserError::Step)
        };
        // A key with a character goes down as one (access keys are looked up there); a
        // key without one (Escape, the arrows) goes down raw, as Puppeteer sends it.
        let down_kind = if unmodified.is_some() {
            DispatchKeyEventType::KeyDown
        } else {
            DispatchKeyEventType::RawKeyDown
        };
        let down = event(down_kind, true)?;
        let up = event(DispatchKeyEventType::KeyUp, false)?;
        let pressed = futures::future::try_join(
            call(self.page, down, self.cdp),
            call(self.page, up, self.cdp),
        )
        .await
        .map(|_| ());
        self.unless_stuck(pressed, "in a key press").await
    }

    /// A mouse wheel turn at `origin`: positive `dy` scrolls down.
    async fn wheel(&self, origin: Point, dy: f64) -> Result<(), BrowserError> {
        let p = DispatchMouseEventParams::builder()
            .r#type(DispatchMouseEventType::MouseWheel)
            .x(origin.x)
            .y(origin.y)
            .delta_x(0.0)
            .delta_y(dy)
            .build()
            .map_err(BrowserError::Step)?;
        let wheeled = call(self.page, p, self.cdp).await.map(|_| ());
        self.unless_stuck(wheeled, "in a scroll").await
    }
}

/// A click at a point the spec chose: what is there is the page's business.
fn aim(p: Point) -> Aim {
    Aim {
        x: p.x,
        y: p.y,
        control: Control::Script,
        input: None,
    }
}
