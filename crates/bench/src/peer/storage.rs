//! A login kept in local storage (Verdaccio keeps its token there), handed to a peer's own
//! browser as its users would carry it over: before the peer starts, a tab of ours opens the
//! application's origin in the peer's browser, writes the entries our login left, and
//! closes. Cookies go by the peer's own flag (`--cookie`); local storage has none.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::monitor::{Read, Socket};

/// How long the whole hand-over may take (the tab's page load included).
const DEADLINE: Duration = Duration::from_secs(20);

/// The entries of the page's local storage, from `JSON.stringify(Object.entries(localStorage))`.
pub(crate) const READ_JS: &str = "JSON.stringify(Object.entries(window.localStorage || {}))";

/// Read what `READ_JS` answered.
pub(crate) fn parse(answer: &Value) -> Vec<(String, String)> {
    answer
        .as_str()
        .and_then(|s| serde_json::from_str::<Vec<(String, String)>>(s).ok())
        .unwrap_or_default()
}

/// Write `entries` into the local storage of `origin` (`http://127.0.0.1:PORT`) in the
/// browser behind `socket`, through a tab opened there for it and closed after.
pub(crate) fn seed(
    socket: &mut Socket,
    origin: &str,
    entries: &[(String, String)],
) -> Result<(), String> {
    let until = Instant::now() + DEADLINE;
    let mut cdp = Calls {
        socket,
        next: 1_000_000,
    };
    let target = cdp.call(
        None,
        "Target.createTarget",
        json!({ "url": format!("{origin}/") }),
        until,
    )?;
    let target_id = target["targetId"]
        .as_str()
        .ok_or("Target.createTarget: no targetId")?
        .to_string();
    let result = (|| {
        let attached = cdp.call(
            None,
            "Target.attachToTarget",
            json!({ "targetId": target_id, "flatten": true }),
            until,
        )?;
        let session = attached["sessionId"]
            .as_str()
            .ok_or("Target.attachToTarget: no sessionId")?
            .to_string();
        // Local storage belongs to the document's origin: wait until the tab is there.
        loop {
            let here = cdp.eval(&session, "location.origin", until)?;
            if here.as_str() == Some(origin) {
                break;
            }
            if Instant::now() >= until {
                return Err(format!("the tab never reached {origin} (it is at {here})"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let script = format!(
            "(() => {{ for (const [k, v] of {}) window.localStorage.setItem(k, v); return window.localStorage.length; }})()",
            serde_json::to_string(entries).unwrap_or_else(|_| "[]".into())
        );
        let n = cdp.eval(&session, &script, until)?;
        tracing::info!(entries = entries.len(), stored = %n, %origin, "local storage handed over");
        Ok(())
    })();
    let closed = cdp.call(
        None,
        "Target.closeTarget",
        json!({ "targetId": target_id }),
        until,
    );
    result.and(closed.map(|_| ()))
}

/// Commands over the browser's socket, one at a time, answered by id (events between are
/// not ours: nothing else listens yet).
struct Calls<'a> {
    socket: &'a mut Socket,
    next: u64,
}

impl Calls<'_> {
    fn call(
        &mut self,
        session: Option<&str>,
        method: &str,
        params: Value,
        until: Instant,
    ) -> Result<Value, String> {
        self.next += 1;
        let id = self.next;
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        self.socket.send(msg.to_string())?;
        loop {
            match self.socket.read() {
                Read::Text(t) => {
                    let v: Value = serde_json::from_str(&t).unwrap_or(Value::Null);
                    if v["id"].as_u64() != Some(id) {
                        continue;
                    }
                    if let Some(e) = v.get("error") {
                        return Err(format!("{method}: {e}"));
                    }
                    return Ok(v["result"].clone());
                }
                Read::Nothing => {}
                Read::Closed(why) => {
                    return Err(format!("{method}: the browser closed the socket: {why}"))
                }
            }
            if Instant::now() >= until {
                return Err(format!(
                    "{method}: no answer within {} s",
                    DEADLINE.as_secs()
                ));
            }
        }
    }

    fn eval(&mut self, session: &str, expression: &str, until: Instant) -> Result<Value, String> {
        let r = self.call(
            Some(session),
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true }),
            until,
        )?;
        if let Some(e) = r.get("exceptionDetails") {
            return Err(format!("Runtime.evaluate threw: {e}"));
        }
        Ok(r["result"]["value"].clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_storage_entries_read_back_from_their_json() {
        let answer = json!(r#"[["username","admin"],["token","ey.J"]]"#);
        assert_eq!(
            parse(&answer),
            [
                ("username".to_string(), "admin".to_string()),
                ("token".into(), "ey.J".into())
            ]
        );
        assert!(parse(&json!(null)).is_empty());
        assert!(parse(&json!("not json")).is_empty());
    }
}
