//! Key chords: what a `press` action's value names ("Enter", "Escape", "Alt+k",
//! "Control+Shift+p"), read from the page's declared shortcuts (`accesskey`,
//! `aria-keyshortcuts`) and written for people and for Playwright.

use crate::spec_action::{key_code, key_name};

/// Modifier bits as the DevTools protocol counts them (`Input.dispatchKeyEvent`).
pub const ALT: u8 = 1;
pub const CONTROL: u8 = 2;
pub const META: u8 = 4;
pub const SHIFT: u8 = 8;

const MODIFIERS: [(u8, &str); 4] = [
    (CONTROL, "Control"),
    (ALT, "Alt"),
    (SHIFT, "Shift"),
    (META, "Meta"),
];

/// One key pressed with the modifiers held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chord {
    /// The `ALT | CONTROL | META | SHIFT` bits held.
    pub modifiers: u8,
    /// The key's code ([`key_name`]): 65 for "a".
    pub code: u8,
}

impl Chord {
    /// Read "Enter", "Alt+k", "Control+Shift+P", "Shift+Space" (ARIA's and Playwright's
    /// spelling: `+` between parts, modifiers first; a letter in either case; "Ctrl",
    /// "Option" and "Cmd" as their usual names). None for a key wayfarer cannot press.
    pub fn parse(s: &str) -> Option<Chord> {
        let parts: Vec<&str> = s.trim().split('+').map(str::trim).collect();
        let (key, mods) = parts.split_last()?;
        let mut modifiers = 0;
        for m in mods {
            modifiers |= match m.to_ascii_lowercase().as_str() {
                "alt" | "option" => ALT,
                "control" | "ctrl" => CONTROL,
                "meta" | "cmd" | "command" | "os" => META,
                "shift" => SHIFT,
                _ => return None,
            };
        }
        let code = key_of(key)?;
        Some(Chord { modifiers, code })
    }

    /// The DOM `key` of the press: a letter upper-cased when Shift is held.
    pub fn key(&self) -> String {
        let k = key_name(self.code).unwrap_or("?");
        if self.modifiers & SHIFT != 0 && k.len() == 1 {
            k.to_ascii_uppercase()
        } else {
            k.to_string()
        }
    }

    /// The text the press types: none while Control, Alt or Meta is held (a shortcut).
    pub fn text(&self) -> Option<String> {
        if self.modifiers & (ALT | CONTROL | META) != 0 {
            return None;
        }
        match key_name(self.code)? {
            "Enter" => Some("\r".into()),
            k if k.chars().count() == 1 => Some(self.key()),
            _ => None,
        }
    }

    /// The chord as [`Chord::parse`] reads it and Playwright's `press` takes it; with a
    /// modifier, a letter or digit by its code ("Alt+KeyK"), which Playwright presses as
    /// the same physical key whatever the modifiers.
    pub fn playwright(&self) -> String {
        let mut out = String::new();
        for (bit, name) in MODIFIERS {
            if self.modifiers & bit != 0 {
                out.push_str(name);
                out.push('+');
            }
        }
        let k = key_name(self.code).unwrap_or("?");
        match self.code {
            32 => out.push_str("Space"),
            48..=57 if self.modifiers != 0 => out.push_str(&format!("Digit{k}")),
            65..=90 if self.modifiers != 0 => {
                out.push_str(&format!("Key{}", k.to_ascii_uppercase()))
            }
            _ => out.push_str(k),
        }
        out
    }
}

impl std::fmt::Display for Chord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.playwright())
    }
}

/// A key name in any of the spellings people and Playwright use: "a", "A", "KeyA",
/// "Digit1", "Esc", "Space", "Enter".
fn key_of(key: &str) -> Option<u8> {
    if let Some(c) = key_code(key) {
        return Some(c);
    }
    let lower = key.to_ascii_lowercase();
    if lower.chars().count() == 1 {
        return key_code(&lower);
    }
    if let Some(l) = key.strip_prefix("Key").filter(|l| l.len() == 1) {
        return key_code(&l.to_ascii_lowercase());
    }
    if let Some(d) = key.strip_prefix("Digit").filter(|d| d.len() == 1) {
        return key_code(d);
    }
    match lower.as_str() {
        "esc" => key_code("Escape"),
        "spacebar" => Some(32),
        "del" => key_code("Delete"),
        "up" | "down" | "left" | "right" => key_code(&format!(
            "Arrow{}{}",
            lower[..1].to_ascii_uppercase(),
            &lower[1..]
        )),
        _ => None,
    }
}

/// The modifier a browser on Linux holds with an `accesskey` (Chromium, Firefox: Alt;
/// Firefox on Linux adds Shift, which Chromium ignores).
const ACCESS_KEY_MODIFIERS: u8 = ALT;

/// The shortcut an element declares: its first `aria-keyshortcuts` chord wayfarer can
/// press, or else its `accesskey` (its first character) with the access key modifier.
pub fn declared_shortcut(
    aria_keyshortcuts: Option<&str>,
    accesskey: Option<&str>,
) -> Option<Chord> {
    let aria = aria_keyshortcuts
        .into_iter()
        .flat_map(|s| s.split_whitespace())
        .find_map(Chord::parse);
    aria.or_else(|| {
        let c = accesskey?.trim().chars().next()?;
        let code = key_of(&c.to_string())?;
        Some(Chord {
            modifiers: ACCESS_KEY_MODIFIERS,
            code,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chords_read_every_usual_spelling_and_write_playwrights() {
        let cases = [
            ("Enter", "Enter"),
            ("Escape", "Escape"),
            ("Esc", "Escape"),
            ("Alt+k", "Alt+KeyK"),
            ("Alt+K", "Alt+KeyK"),
            ("Control+Shift+P", "Control+Shift+KeyP"),
            ("Shift+Control+p", "Control+Shift+KeyP"),
            ("Ctrl+1", "Control+Digit1"),
            ("Alt+KeyS", "Alt+KeyS"),
            ("Shift+Space", "Shift+Space"),
            ("ArrowDown", "ArrowDown"),
            ("Meta+Enter", "Meta+Enter"),
        ];
        for (given, written) in cases {
            let c = Chord::parse(given).unwrap_or_else(|| panic!("{given} unread"));
            assert_eq!(c.playwright(), written, "{given}");
            assert_eq!(Chord::parse(written), Some(c), "{written} reads back");
        }
        for bad in ["", "Hyper+k", "Control+", "NoSuchKey", "Alt+€"] {
            assert_eq!(Chord::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_shortcut_types_no_text_and_shift_upper_cases_a_letter() {
        let alt = Chord::parse("Alt+k").unwrap();
        assert_eq!((alt.key(), alt.text()), ("k".into(), None));
        let shift = Chord::parse("Shift+k").unwrap();
        assert_eq!((shift.key(), shift.text()), ("K".into(), Some("K".into())));
        let enter = Chord::parse("Enter").unwrap();
        assert_eq!(enter.text(), Some("\r".into()));
        assert_eq!(Chord::parse("Escape").unwrap().text(), None);
    }

    #[test]
    fn aria_keyshortcuts_come_before_the_access_key() {
        let c = declared_shortcut(Some("Foo+x Control+Shift+S"), Some("k")).unwrap();
        assert_eq!(c.playwright(), "Control+Shift+KeyS");
        let c = declared_shortcut(None, Some("s")).unwrap();
        assert_eq!(c.playwright(), "Alt+KeyS");
        let c = declared_shortcut(Some("Hyper+x"), Some(" 3")).unwrap();
        assert_eq!(c.playwright(), "Alt+Digit3");
        assert_eq!(declared_shortcut(None, Some("")), None);
        assert_eq!(declared_shortcut(None, None), None);
    }
}
