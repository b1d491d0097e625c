//! Performing the actions a specification's generators offer (`SpecAction`): clicks at a
//! point, keys, text, wheel scrolls, history and waits, with the same real input events
//! as wayfarer's own actions.

use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::input::{
    DispatchKeyEventParams, DispatchKeyEventType, DispatchMouseEventParams, DispatchMouseEventType,
    InsertTextParams,
};
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
        }
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
    async fn press_key(&self, code: u8) -> Result<(), BrowserError> {
        let key =
            key_name(code).ok_or_else(|| BrowserError::Step(format!("no key has code {code}")))?;
        let dom_code = key_code_name(code).unwrap_or_else(|| key.to_string());
        let text = match key {
            "Enter" => Some("\r"),
            k if k.chars().count() == 1 => Some(k),
            _ => None,
        };
        let event = |kind: DispatchKeyEventType, text: Option<&str>| {
            let mut b = DispatchKeyEventParams::builder()
                .r#type(kind)
                .key(key)
                .code(dom_code.clone())
                .windows_virtual_key_code(i64::from(code))
                .native_virtual_key_code(i64::from(code));
            if let Some(t) = text {
                b = b.text(t).unmodified_text(t);
            }
            b.build().map_err(BrowserError::Step)
        };
        let down = event(DispatchKeyEventType::KeyDown, text)?;
        let up = event(DispatchKeyEventType::KeyUp, None)?;
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
