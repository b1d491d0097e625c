//! When to take JS coverage before an action. Precise coverage counts accumulate in the
//! page until a take, but a document that is replaced takes its counts with it, and
//! Chrome holds every command to the renderer while a navigation is pending. A document
//! the page leaves itself (a link, a form, a script assigning `location`) is taken at the
//! moment it leaves: the install script pauses in its `navigate` listener, after every
//! handler of the action, and the session's debugger takes coverage there (`events.rs`).
//! Back and address navigations start in the browser, without that event, so they are
//! taken for before; whether they leave is learned per run (a single-page app's back
//! stays in its document).

/// What an action acts on, as far as leaving the document goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Control {
    /// A link to another address (not `#...`, not `javascript:`, not a new window).
    Link,
    /// A form's submit button, or a `submit` action.
    Submit,
    /// Back, or a navigation by address.
    History,
    /// Anything else: it leaves only if the page's script makes it.
    Script,
}

impl Control {
    fn index(self) -> usize {
        match self {
            Control::Link => 0,
            Control::Submit => 1,
            Control::History => 2,
            Control::Script => 3,
        }
    }
}

/// Per kind of control: how many actions there were and how many left their document.
#[derive(Clone, Debug)]
pub(crate) struct LeaveStats {
    /// (actions, documents left) per control, with a prior: the three kinds that usually
    /// leave start as if one action left; script-driven controls start as if nineteen
    /// stayed, so one departure among them is enough to turn the takes on.
    seen: [(u32, u32); 4],
    /// Departures that happened without a take with them (coverage lost since the
    /// last take).
    pub missed: u32,
}

impl Default for LeaveStats {
    fn default() -> Self {
        LeaveStats {
            seen: [(1, 1), (1, 1), (1, 1), (19, 0)],
            missed: 0,
        }
    }
}

impl LeaveStats {
    /// Take with an action on `c` when at least one action in twenty of its kind left.
    pub fn take_for(&self, c: Control) -> bool {
        let (actions, left) = self.seen[c.index()];
        left * 20 >= actions
    }

    /// Learn what an action on `c` did; `taken`: coverage was taken with it.
    pub fn record(&mut self, c: Control, left: bool, taken: bool) {
        let s = &mut self.seen[c.index()];
        s.0 = s.0.saturating_add(1);
        s.1 = s.1.saturating_add(u32::from(left));
        if left && !taken {
            self.missed += 1;
            tracing::debug!(control = ?c, "a document was left without a coverage take");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_stop_being_taken_for_in_a_single_page_app() {
        let mut s = LeaveStats::default();
        assert!(s.take_for(Control::Link));
        for _ in 0..19 {
            s.record(Control::Link, false, true);
        }
        // 1 of 20 left (the prior): still taking.
        assert!(s.take_for(Control::Link));
        s.record(Control::Link, false, true);
        assert!(!s.take_for(Control::Link), "1 of 21 left");
        // One real departure turns it back on.
        s.record(Control::Link, true, false);
        assert!(s.take_for(Control::Link));
        assert_eq!(s.missed, 1);
    }

    #[test]
    fn script_controls_are_taken_for_once_one_leaves() {
        let mut s = LeaveStats::default();
        assert!(!s.take_for(Control::Script));
        s.record(Control::Script, true, false);
        assert!(s.take_for(Control::Script));
        assert!(s.take_for(Control::Submit) && s.take_for(Control::History));
    }
}
