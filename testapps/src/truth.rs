//! Ground truth of each application: its abstract states under the fixed "screen"
//! abstraction, its action ids, a tour that reaches them all, and the witness steps of
//! every seeded bug. The browser tests in `crates/bench/tests/ground_truth.rs` check it.

use crate::App;

/// Which of the visible controls carrying a step's action id the step uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// The first in document order.
    First,
    /// The last in document order (e.g. the row just added).
    Last,
    /// The one whose trimmed visible text is exactly this.
    Text(&'static str),
}

/// What a step does to its control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gesture {
    Click,
    DoubleClick,
    /// Replace the field's value with this text.
    Type(&'static str),
    /// Replace the field's value with this many `a` characters (the long-input bugs).
    TypeRepeated(usize),
    /// Choose the option with this value.
    Select(&'static str),
    /// The browser's Back button (no control: the step's action id is empty).
    Back,
    /// Move the pointer over the control and leave it there.
    Hover,
    /// A right click.
    ContextMenu,
    /// Press this key (a Playwright key name) with the focus on the control.
    Press(&'static str),
    /// Set the file input to this generated file (`wayfarer_core::files::FileSpec`).
    Upload(&'static str),
    /// Drag the control and drop it on the control with this action id.
    DragTo(&'static str),
    /// Turn the mouse wheel down over the middle of the page (no control: the step's
    /// action id is empty).
    Scroll,
    /// Press this key where the focus is (no control: the step's action id is empty).
    PressHere(&'static str),
}

/// One user action of a walk, addressed by the control's `data-action-id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub action_id: &'static str,
    pub pick: Pick,
    pub gesture: Gesture,
}

impl Step {
    pub const fn click(action_id: &'static str) -> Step {
        Step {
            action_id,
            pick: Pick::First,
            gesture: Gesture::Click,
        }
    }

    pub const fn click_text(action_id: &'static str, text: &'static str) -> Step {
        Step {
            action_id,
            pick: Pick::Text(text),
            gesture: Gesture::Click,
        }
    }

    pub const fn click_last(action_id: &'static str) -> Step {
        Step {
            action_id,
            pick: Pick::Last,
            gesture: Gesture::Click,
        }
    }

    pub const fn double_click(action_id: &'static str) -> Step {
        Step {
            action_id,
            pick: Pick::First,
            gesture: Gesture::DoubleClick,
        }
    }

    pub const fn type_text(action_id: &'static str, text: &'static str) -> Step {
        Step {
            action_id,
            pick: Pick::First,
            gesture: Gesture::Type(text),
        }
    }

    pub const fn type_long(action_id: &'static str, len: usize) -> Step {
        Step {
            action_id,
            pick: Pick::First,
            gesture: Gesture::TypeRepeated(len),
        }
    }

    pub const fn select(action_id: &'static str, value: &'static str) -> Step {
        Step {
            action_id,
            pick: Pick::First,
            gesture: Gesture::Select(value),
        }
    }

    pub const fn hover(action_id: &'static str) -> Step {
        Step {
            action_id,
            pick: Pick::First,
            gesture: Gesture::Hover,
        }
    }

    pub const fn context_menu(action_id: &'static str) -> Step {
        Step {
            action_id,
            pick: Pick::First,
            gesture: Gesture::ContextMenu,
        }
    }

    pub const fn press(action_id: &'static str, key: &'static str) -> Step {
        Step {
            action_id,
            pick: Pick::First,
            gesture: Gesture::Press(key),
        }
    }

    pub const fn upload(action_id: &'static str, file: &'static str) -> Step {
        Step {
            action_id,
            pick: Pick::First,
            gesture: Gesture::Upload(file),
        }
    }

    pub const fn drag_to(action_id: &'static str, onto: &'static str) -> Step {
        Step {
            action_id,
            pick: Pick::First,
            gesture: Gesture::DragTo(onto),
        }
    }

    /// The mouse wheel, down, over the page.
    pub const fn scroll() -> Step {
        Step {
            action_id: "",
            pick: Pick::First,
            gesture: Gesture::Scroll,
        }
    }

    /// A key pressed where the focus is (Escape in an open dialog).
    pub const fn press_here(key: &'static str) -> Step {
        Step {
            action_id: "",
            pick: Pick::First,
            gesture: Gesture::PressHere(key),
        }
    }

    /// The browser's Back button.
    pub const fn back() -> Step {
        Step {
            action_id: "",
            pick: Pick::First,
            gesture: Gesture::Back,
        }
    }

    /// Whether the step uses a control of the page (every gesture but Back, Scroll and
    /// PressHere).
    pub const fn has_control(&self) -> bool {
        !matches!(
            self.gesture,
            Gesture::Back | Gesture::Scroll | Gesture::PressHere(_)
        )
    }

    /// The same step on another of the controls that share its action id.
    pub const fn pick(self, pick: Pick) -> Step {
        Step { pick, ..self }
    }
}

/// What is known about an application, independent of any tool.
#[derive(Debug)]
pub struct GroundTruth {
    pub app: App,
    /// Every value of `<body data-wf-state>` a user can reach from the start URL: the
    /// fixed "screen" abstraction (one per page, SPA route, wizard step or dialog).
    pub states: &'static [&'static str],
    /// Every `data-action-id` of the application's controls.
    pub actions: &'static [&'static str],
    /// Walks from a fresh session (each starts at the start URL) that together reach
    /// every state, use every action and cover every feature of the grammar (and may go
    /// Back where that is how a user reaches a screen).
    pub tour: &'static [&'static [Step]],
    /// For each feature of the grammar: an action-id sequence that covers it and one that
    /// narrowly misses it (both space-separated), for the matcher's tests.
    pub feature_cases: &'static [FeatureCase],
}

/// A hand-written pair of action-id logs for one feature.
#[derive(Clone, Copy, Debug)]
pub struct FeatureCase {
    pub feature: &'static str,
    pub covers: &'static str,
    pub misses: &'static str,
}

/// The ground truth of an application (Hazards has none: it is a driver test page).
pub fn ground_truth(app: App) -> Option<&'static GroundTruth> {
    match app {
        App::Expense => Some(&crate::expense::TRUTH),
        App::Clinic => Some(&crate::clinic::TRUTH),
        App::Splitter => Some(&crate::splitter::TRUTH),
        App::Board | App::BoardDelegated => Some(&crate::board::TRUTH),
        App::Hazards | App::Gestures => None,
    }
}
