//! The data every part of wayfarer speaks: what the page looks like (`Observation`,
//! `Element`), what we do to it (`Action`) and what it did back (`Event`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A rectangle in CSS pixels, relative to the top-left corner of the whole page.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

impl Rect {
    pub fn center(&self) -> (f64, f64) {
        (self.x + self.width / 2.0, self.y + self.height / 2.0)
    }

    /// Whether this rect has an area and its centre lies in `region`.
    pub fn centered_in(&self, region: &Rect) -> bool {
        let (x, y) = self.center();
        self.width > 0.0
            && self.height > 0.0
            && x >= region.x
            && y >= region.y
            && x <= region.x + region.width
            && y <= region.y + region.height
    }
}

/// Width and height in CSS pixels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Size {
    pub width: f64,
    pub height: f64,
}

/// One visible element of the page, as the scan reports it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Element {
    /// A CSS selector unique in its document. Elements inside open shadow roots or
    /// same-origin iframes use `>>>` between the host (or frame) selector and the inner one.
    pub locator: String,
    /// Absolute XPath, kept as a backup locator for reports and exported tests.
    #[serde(default)]
    pub xpath: String,
    /// Lower-case tag name.
    pub tag: String,
    /// Explicit or implicit ARIA role, when one applies.
    #[serde(default)]
    pub role: Option<String>,
    /// The `type` of an input or button, lower case.
    #[serde(default, rename = "type")]
    pub input_type: Option<String>,
    /// The attributes the strategies use (id, name, class, placeholder, aria-label, value,
    /// href, min, max, step, pattern, minlength, maxlength, multiple, required, ...).
    #[serde(default)]
    pub attrs: BTreeMap<String, String>,
    /// Visible text, whitespace-collapsed and truncated.
    #[serde(default)]
    pub text: String,
    /// Text of the associated `<label>` or of the nearest text before the element.
    #[serde(default)]
    pub label: String,
    #[serde(default)]
    pub rect: Rect,
    #[serde(default = "yes")]
    pub visible: bool,
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Why the scan considers the element actionable (e.g. "tag:a", "onclick",
    /// "role:button", "cursor:pointer"); empty when it is not.
    #[serde(default)]
    pub actionable: Vec<String>,
    /// Gestures other than a click the element listens for (the scan's listener record
    /// and stylesheets): "hover", "context_menu", "keys", "scroll" (a scroll listener on
    /// something scrollable), "drag" (`draggable` or a `dragstart` listener), "drop" (a
    /// `drop` or `dragover` listener), "sort:N" (an item of the Nth list on the page that
    /// is sorted by dragging its items, natively or with the pointer). An element with
    /// gestures alone is offered those, not a click.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gestures: Vec<String>,
    /// Option values of a `<select>`, in document order.
    #[serde(default)]
    pub options: Vec<String>,
    /// Checked state of checkboxes and radios.
    #[serde(default)]
    pub checked: Option<bool>,
    /// The element matches a deny rule's selector (it stays visible to the strategies as
    /// page content, but no action targets it).
    #[serde(default)]
    pub denied: bool,
    /// Locator of the `<form>` the element belongs to (its form owner, or the enclosing
    /// form of a button or link), when it has one: strategies fill a form before submitting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<String>,
    /// A field that fails its constraints (`:invalid`: required and empty, a pattern or a
    /// range not met); false for everything else.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub invalid: bool,
}

fn yes() -> bool {
    true
}

/// Longest value the scan reports (it truncates longer ones), in characters.
pub const SCAN_MAX_VALUE: usize = 300;

/// What the scan reports for a filled password field (scan.js keeps typed passwords out).
pub const PASSWORD_MASK: &str = "********";

impl Element {
    /// What a scan reports as this field's value after `typed` was entered: cut at its
    /// `maxlength` (typing stops there), masked for a password, truncated as the scan
    /// truncates; for a file input given an upload's file, `C:\fakepath\` and its name.
    pub fn shown_after_typing(&self, typed: &str) -> String {
        // A file input shows the chosen file's name behind the path browsers fake.
        if self.tag == "input" && self.input_type.as_deref() == Some("file") {
            let name = crate::files::FileSpec::parse(typed).file_name();
            return format!("C:\\fakepath\\{name}");
        }
        let mut v: String = match self
            .attr("maxlength")
            .and_then(|m| m.trim().parse::<usize>().ok())
        {
            Some(max) if self.tag != "select" => typed.chars().take(max).collect(),
            _ => typed.to_string(),
        };
        if self.input_type.as_deref() == Some("password") && !v.is_empty() {
            return PASSWORD_MASK.into();
        }
        if v.chars().count() > SCAN_MAX_VALUE {
            v = v.chars().take(SCAN_MAX_VALUE).collect();
        }
        v
    }

    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.get(name).map(String::as_str)
    }

    pub fn is_actionable(&self) -> bool {
        !self.actionable.is_empty() && self.visible && self.enabled && !self.denied
    }

    /// Text-like inputs a user types into.
    pub fn is_text_input(&self) -> bool {
        match self.tag.as_str() {
            "textarea" => true,
            "input" => matches!(
                self.input_type.as_deref().unwrap_or("text"),
                "text"
                    | "email"
                    | "password"
                    | "search"
                    | "tel"
                    | "url"
                    | "number"
                    | "date"
                    | "datetime-local"
                    | "month"
                    | "week"
                    | "time"
            ),
            _ => self.attr("contenteditable").is_some_and(|v| v != "false"),
        }
    }

    /// A button-like element: pressing it may send what the fields of its form hold.
    /// Links are not (a link with `role=button` is).
    pub fn submits(&self) -> bool {
        match self.tag.as_str() {
            "button" => true,
            "input" => matches!(
                self.input_type.as_deref(),
                Some("submit") | Some("button") | Some("image")
            ),
            "a" | "select" | "textarea" | "option" | "label" | "summary" => {
                self.role.as_deref() == Some("button")
            }
            _ => !self.is_text_input(),
        }
    }

    /// A short human description for logs and reports: `button "Save"`.
    pub fn describe(&self) -> String {
        let name = [
            self.text.as_str(),
            self.attr("aria-label").unwrap_or(""),
            self.label.as_str(),
            self.attr("placeholder").unwrap_or(""),
            self.attr("name").unwrap_or(""),
        ]
        .into_iter()
        .find(|s| !s.trim().is_empty())
        .unwrap_or("");
        let name: String = name.chars().take(40).collect();
        if name.is_empty() {
            self.tag.clone()
        } else {
            format!("{} \"{}\"", self.tag, name)
        }
    }
}

/// Everything one scan of the page returns.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    pub url: String,
    pub title: String,
    /// The DOM as a sequence of tag names in document order (state abstraction input).
    #[serde(default)]
    pub tags: Vec<String>,
    /// Simplified HTML: no scripts, styles or comments; text kept.
    #[serde(default)]
    pub html: String,
    #[serde(default)]
    pub elements: Vec<Element>,
    #[serde(default)]
    pub viewport: Size,
    #[serde(default)]
    pub page: Size,
    /// HTTP status of the last main document load, when known.
    #[serde(default)]
    pub status: Option<u16>,
    /// Text shown on the page that looks like an error page or a stack trace.
    #[serde(default)]
    pub error_text: Option<String>,
    /// The parts of the page that open and close in place, as shown now: open dialogs,
    /// menus, listboxes, the selected tab panel, side panels, each as "role:name"
    /// ("dialog:Edit item", "tabpanel:Settings"); digits in names are `#`. A single-page
    /// app that opens one changes neither its URL nor much of its document.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regions: Vec<String>,
    /// Event types the page listens for on the window, the document, its root or body
    /// ("dblclick", "contextmenu", "keydown", "scroll"): handlers of the whole page's
    /// events that read `event.target`, so any element may answer them; "intersection"
    /// when an IntersectionObserver watches something (an endless list's sentinel).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub delegated: Vec<String>,
    /// Short visible texts showing "undefined", "NaN", "[object Object]" or "null" where
    /// a value should be (outside code), at most 10: the built-in `placeholder_text`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub placeholder_text: Vec<String>,
    /// Images of the page that finished loading without pixels (their URLs, at most 10):
    /// the built-in `broken_resource`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub broken_images: Vec<String>,
    /// Locators of visible form fields without an accessible name (no label,
    /// `aria-label`, `aria-labelledby`, `title` or placeholder), at most 20: the built-in
    /// `unnamed_control`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unnamed_controls: Vec<String>,
    /// What the page checks' own extractors answered on this page, by name
    /// (`crate::check::Extractor`).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub facts: std::collections::BTreeMap<String, serde_json::Value>,
    /// What an instrumented application says about itself (see [`AppProbe`]).
    #[serde(default)]
    pub app: Option<AppProbe>,
    /// Elements in the main document, when the environment counts them: state inference
    /// checks a guessed page's count against the live page's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dom_size: Option<u32>,
    /// A screenshot of part of the page, taken only when the agent asked for one before
    /// deciding (`Agent::wants_picture`): vision prompts are built from it.
    #[serde(skip)]
    pub picture: Option<crate::llm::Picture>,
}

/// The optional instrumentation contract between an application and wayfarer, used by
/// the benchmark: a page may keep the ids of the user actions it saw in
/// `window.__wfActions` (an array of strings, per tab session) and name its current
/// abstract screen in `<body data-wf-state="...">`. Neither is needed for exploring.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppProbe {
    /// `document.body.dataset.wfState`, when set.
    #[serde(default)]
    pub state: Option<String>,
    /// `window.__wfActions`, the whole log of this tab session.
    #[serde(default)]
    pub actions: Vec<String>,
}

impl AppProbe {
    /// The action ids `after` logged since `before`: the new tail when the log grew,
    /// the whole log when it restarted (a reset or a new tab session cleared it).
    pub fn logged_since(before: &Observation, after: &Observation) -> Vec<String> {
        let empty: &[String] = &[];
        let old = before.app.as_ref().map_or(empty, |a| a.actions.as_slice());
        let new = after.app.as_ref().map_or(empty, |a| a.actions.as_slice());
        if new.len() >= old.len() && new[..old.len()] == *old {
            new[old.len()..].to_vec()
        } else {
            new.to_vec()
        }
    }
}

impl Observation {
    pub fn element(&self, locator: &str) -> Option<&Element> {
        self.elements.iter().find(|e| e.locator == locator)
    }
}

/// How far one `Scroll` turns the mouse wheel, in CSS pixels (the Playwright export turns
/// it as far).
pub const SCROLL_PX: u32 = 600;

/// What an action does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    Click,
    DoubleClick,
    /// Replace the element's value with `value`, typed with real input events.
    Type,
    /// Choose the option whose value is `value`.
    Select,
    /// Toggle a checkbox or radio.
    Check,
    /// Move the pointer over the target and leave it there (a hover menu opens).
    Hover,
    /// A right click: the context menu the page opens for the target.
    ContextMenu,
    /// Set the file input's file to the one `value` names (`crate::files::FileSpec`: a
    /// generated file, `photo.png` or `large.png:6291456`), as a file chooser does.
    Upload,
    /// Drag the target and drop it on the element the locator `value` finds (HTML5 drag
    /// and drop: the page's `dragstart`, `dragover` and `drop` handlers).
    Drag,
    /// Turn the mouse wheel down over the target (a scrollable container), or over the
    /// middle of the page without one: what loads more of an endless list.
    Scroll,
    /// Press the key `value` (a Playwright key name: `Enter`, `Escape`, `ArrowDown`) with
    /// the focus on the target.
    Press,
    /// Submit the form that contains the target.
    Submit,
    Back,
    /// Load `value` as a URL.
    Navigate,
    /// An action of the specification's own generators: `value` holds it as Bombadil's
    /// `Action` JSON (see `spec_action`).
    Spec,
}

impl ActionKind {
    /// Whether a candidate of this kind comes with its value and the value says which
    /// action it is (the key pressed, the drop target), rather than being filled in later
    /// (typed text, an option, a file): strategies tell such actions apart by it.
    pub fn value_is_identity(&self) -> bool {
        matches!(self, ActionKind::Press | ActionKind::Drag)
    }

    pub fn as_str(&self) -> &'static str {
        match self {
            ActionKind::Click => "click",
            ActionKind::DoubleClick => "double_click",
            ActionKind::Type => "type",
            ActionKind::Select => "select",
            ActionKind::Check => "check",
            ActionKind::Hover => "hover",
            ActionKind::ContextMenu => "context_menu",
            ActionKind::Press => "press",
            ActionKind::Upload => "upload",
            ActionKind::Scroll => "scroll",
            ActionKind::Drag => "drag",
            ActionKind::Submit => "submit",
            ActionKind::Back => "back",
            ActionKind::Navigate => "navigate",
            ActionKind::Spec => "spec",
        }
    }
}

/// One thing to do to the page. Candidate actions come without a value; the agent fills
/// in the value of `Type` and `Select` before acting.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Action {
    pub kind: ActionKind,
    /// Locator of the target element, when the kind needs one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Text to type, option to select, or URL to navigate to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

impl Action {
    pub fn on(kind: ActionKind, target: impl Into<String>) -> Action {
        Action {
            kind,
            target: Some(target.into()),
            value: None,
        }
    }

    pub fn back() -> Action {
        Action {
            kind: ActionKind::Back,
            target: None,
            value: None,
        }
    }

    /// Whether where it leads depends on the history (back, or a spec's back or forward),
    /// which a replay from a reset lacks.
    pub fn uses_history(&self) -> bool {
        use crate::spec_action::SpecAction;
        match self.kind {
            ActionKind::Back => true,
            ActionKind::Spec => matches!(
                SpecAction::of(self),
                Ok(SpecAction::Back | SpecAction::Forward)
            ),
            _ => false,
        }
    }

    pub fn with_value(mut self, value: impl Into<String>) -> Action {
        self.value = Some(value.into());
        self
    }

    /// `click #save`, `type #email "a@b.c"`: for logs and the progress line.
    pub fn describe(&self) -> String {
        let mut s = self.kind.as_str().to_string();
        if let Some(t) = &self.target {
            s.push(' ');
            s.push_str(t);
        }
        if let Some(v) = &self.value {
            let short: String = v.chars().take(30).collect();
            let ellipsis = if v.chars().count() > 30 { "…" } else { "" };
            s.push_str(&format!(" {short:?}{ellipsis}"));
        }
        s
    }
}

/// The kinds of things the page or the browser can report during a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// `Runtime.exceptionThrown` that is not a rejection.
    Exception,
    UnhandledRejection,
    ConsoleError,
    /// Any HTTP response; `status` says which.
    HttpResponse,
    RequestFailed,
    PageCrash,
    /// A JavaScript dialog that was answered automatically.
    Dialog,
    /// A new tab or window that was closed.
    Popup,
    /// A download that was refused.
    Download,
    /// A navigation outside the allowed origins, blocked.
    ExternalNavigation,
    /// The page did not become stable within the timeout.
    Hang,
    /// The browser was restarted after a crash or a hang; the episode restarts.
    BrowserRestart,
    /// The page shows the login form again mid-run: the session ended (a log-out link,
    /// an expiry); the loop resets, which logs in again.
    LoggedOut,
    /// A property of the user's specification was violated at this state, or could not be
    /// evaluated (its extractor or formula threw); `property` names it.
    Property,
}

/// Something that happened while acting, collected from CDP events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    pub kind: EventKind,
    pub message: String,
    /// Script or request URL the event is attributed to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// HTTP status for `HttpResponse`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Whether the response or request was for the main document.
    #[serde(default)]
    pub document: bool,
    /// For `Property`: the property's name (its export in the specification).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub property: Option<String>,
    /// For `HttpResponse`: what the page loaded, when it is a file the page shows or runs
    /// ("image", "script", "stylesheet", "font", "media"); `None` for documents, fetches
    /// and the rest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
}

impl Event {
    pub fn new(kind: EventKind, message: impl Into<String>) -> Event {
        Event {
            kind,
            message: message.into(),
            url: None,
            line: None,
            column: None,
            status: None,
            document: false,
            property: None,
            resource: None,
        }
    }

    /// A property of the specification: violated, or (`error`) not evaluable here.
    pub fn property(name: impl Into<String>, message: impl Into<String>) -> Event {
        Event {
            property: Some(name.into()),
            ..Event::new(EventKind::Property, message)
        }
    }

    pub fn at(mut self, url: impl Into<String>, line: Option<u32>, column: Option<u32>) -> Event {
        self.url = Some(url.into());
        self.line = line;
        self.column = column;
        self
    }

    pub fn http(status: u16, url: impl Into<String>, document: bool) -> Event {
        Event {
            status: Some(status),
            document,
            ..Event::new(EventKind::HttpResponse, format!("HTTP {status}")).at(url, None, None)
        }
    }
}
