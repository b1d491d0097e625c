//! `property`: a property of the user's specification (`[spec]`, Bombadil's language)
//! that a state broke: the properties are judged in the browser, each broken one an event
//! this check turns into its failure.

use super::{Check, Happened};
use crate::config::Severity;
use crate::model::EventKind;
use crate::oracle::{FailureKind, Finding};

pub struct Property;

impl Check for Property {
    fn id(&self) -> &'static str {
        "property"
    }
    fn kind(&self) -> FailureKind {
        FailureKind::Property
    }
    fn phrase(&self) -> &'static str {
        "property violation"
    }
    fn about(&self) -> &'static str {
        "a property of the specification that a state broke"
    }
    fn default_severity(&self) -> Severity {
        Severity::Fail
    }
    fn judge_event(&self, h: &Happened<'_>) -> Option<Finding> {
        if h.ev.kind != EventKind::Property {
            return None;
        }
        // One failure per property: its cells' values differ from state to state.
        let mut f = Finding::new(self.kind(), h.ev.message.clone(), None);
        let name = h.ev.property.as_deref().unwrap_or("?");
        f.signature = format!("property|{name}");
        f.source = Some(format!("property {name}"));
        Some(f)
    }
}
