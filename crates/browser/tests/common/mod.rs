#![allow(dead_code)]

pub mod server;

use wayfarer_browser::{BrowserEnv, BrowserOptions};
use wayfarer_core::{Event, EventKind, Observation};

/// Small timeouts so hazard tests stay fast.
pub fn options(start: &str) -> BrowserOptions {
    let mut o = BrowserOptions::new(url::Url::parse(start).unwrap());
    o.config.quiet_ms = 50;
    o.config.stable_timeout_ms = 1500;
    o.config.load_timeout_ms = 2000;
    o.config.cdp_timeout_ms = 5000;
    o
}

pub fn launch(o: BrowserOptions) -> BrowserEnv {
    BrowserEnv::launch(o).expect("chromium launches")
}

pub fn find<'a>(obs: &'a Observation, locator: &str) -> &'a wayfarer_core::Element {
    obs.element(locator).unwrap_or_else(|| {
        let all: Vec<&str> = obs.elements.iter().map(|e| e.locator.as_str()).collect();
        panic!("no element {locator} in {all:?}")
    })
}

pub fn has_text(obs: &Observation, text: &str) -> bool {
    obs.elements.iter().any(|e| e.text.contains(text))
}

pub fn events_of(events: &[Event], kind: EventKind) -> Vec<&Event> {
    events.iter().filter(|e| e.kind == kind).collect()
}
