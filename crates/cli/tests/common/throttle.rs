//! The hazards app's login throttle as a trace: five failed logins lock `ada` out on the
//! server, and a browser reset does not undo it.

use wayfarer_core::config::OracleConfig;
use wayfarer_core::{Event, Oracles};

/// Six failed logins on `/throttle` of the app at `base` (a wrong password typed once,
/// then Login six times: the form comes back empty, and an empty password fails too):
/// the sixth answers 500, after action 7. The logins are what `minimize` must keep; with a
/// typing before each (12 steps) the two minimizing tests took 107 s and ~285 s, now 41
/// s and 80 s.
pub fn trace(base: &str) -> String {
    let page = format!("{base}throttle");
    let login = Oracles::new(
        OracleConfig::default(),
        vec![base.trim_end_matches('/').into()],
    )
    .unwrap()
    .judge(&[Event::http(500, page.clone(), true)], None)
    .remove(0);
    let mut steps = vec![serde_json::json!({
        "kind": "type", "target": "#throttle-password", "value": "nope", "url": page
    })];
    for _ in 0..6 {
        steps.push(serde_json::json!({
            "kind": "click", "target": "#throttle-login", "url": page
        }));
    }
    serde_json::json!({
        "version": 1,
        "wayfarer": "0.1.0",
        "setup": { "start_url": page },
        "expected": {
            "kind": "http_5xx",
            "signature": login.signature,
            "message": login.message,
        },
        "origin": "crates/cli/tests/common/throttle.rs",
        "steps": steps,
    })
    .to_string()
}

/// The failed logins a trace (as JSON) holds.
pub fn logins(trace: &serde_json::Value) -> usize {
    trace["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["target"] == "#throttle-login")
        .count()
}
