//! Per-browser-session stores keyed by the `sid` cookie, and the middleware that issues it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::http::header::{COOKIE, SET_COOKIE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::middleware::from_fn_with_state;
use axum::middleware::Next;
use axum::response::Response;
use axum::routing::get;
use axum::{Extension, Router};

use crate::common::typed;

/// The session id of the current request, inserted by [`session_layer`].
#[derive(Clone, Debug)]
pub struct Sid(pub String);

struct Entry<T> {
    data: T,
    actions: Vec<String>,
}

/// Per-session application data. Ids are `<port>-<counter>`: deterministic, never random.
pub struct Sessions<T> {
    port: u16,
    next: AtomicU64,
    map: Mutex<HashMap<String, Entry<T>>>,
    init: fn() -> T,
}

/// Oldest sessions beyond this many are forgotten (long runs reset thousands of times).
const MAX_SESSIONS: usize = 5000;

impl<T: Send + 'static> Sessions<T> {
    pub fn new(port: u16, init: fn() -> T) -> Arc<Self> {
        Arc::new(Sessions {
            port,
            next: AtomicU64::new(1),
            map: Mutex::new(HashMap::new()),
            init,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry<T>>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn ensure(&self, cookie: Option<&str>) -> (String, bool) {
        let mut map = self.lock();
        if let Some(c) = cookie {
            if map.contains_key(c) {
                return (c.to_string(), false);
            }
        }
        let n = self.next.fetch_add(1, Ordering::SeqCst);
        let sid = format!("{}-{n}", self.port);
        if map.len() >= MAX_SESSIONS {
            let cutoff = n.saturating_sub(MAX_SESSIONS as u64 / 2);
            let port = self.port;
            map.retain(|k, _| {
                k.strip_prefix(&format!("{port}-"))
                    .and_then(|c| c.parse::<u64>().ok())
                    .is_some_and(|c| c > cutoff)
            });
        }
        let data = (self.init)();
        map.insert(
            sid.clone(),
            Entry {
                data,
                actions: Vec::new(),
            },
        );
        (sid, true)
    }

    /// Runs `f` on the session's data (the session is created if it vanished).
    pub fn with<R>(&self, sid: &Sid, f: impl FnOnce(&mut T) -> R) -> R {
        let mut map = self.lock();
        let init = self.init;
        let e = map.entry(sid.0.clone()).or_insert_with(|| Entry {
            data: init(),
            actions: Vec::new(),
        });
        f(&mut e.data)
    }

    /// Appends an action id to the session's server-side action log.
    pub fn log(&self, sid: &Sid, action: &str) {
        if let Some(e) = self.lock().get_mut(&sid.0) {
            e.actions.push(action.to_string());
        }
    }

    pub fn actions(&self, sid: &Sid) -> Vec<String> {
        self.lock()
            .get(&sid.0)
            .map(|e| e.actions.clone())
            .unwrap_or_default()
    }
}

fn cookie_value(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

/// Middleware: makes sure every request has a known session, issuing `sid` when needed.
pub async fn session_layer<T: Send + 'static>(
    State(sessions): State<Arc<Sessions<T>>>,
    mut req: Request,
    next: Next,
) -> Response {
    let cookie = cookie_value(req.headers(), "sid");
    let (sid, fresh) = sessions.ensure(cookie.as_deref());
    req.extensions_mut().insert(Sid(sid.clone()));
    let mut resp = next.run(req).await;
    if fresh {
        let c = format!("sid={sid}; Path=/; HttpOnly; SameSite=Lax");
        if let Ok(v) = HeaderValue::from_str(&c) {
            resp.headers_mut().append(SET_COOKIE, v);
        }
    }
    resp
}

/// What every fixture app's router ends with: `/__wf/actions`, `/static/wf.js`,
/// `/favicon.ico`, the 404 page for everything else, and the session cookie layer over
/// all of it; then the app's own state.
pub fn finish_router<S, T>(app: Router<Arc<S>>, state: Arc<S>, sessions: Arc<Sessions<T>>) -> Router
where
    S: Send + Sync + 'static,
    T: Send + 'static,
{
    let log = sessions.clone();
    app.route(
        "/__wf/actions",
        get(move |Extension(sid): Extension<Sid>| async move { actions_json(&log, &sid) }),
    )
    .route("/static/wf.js", get(crate::common::wf_js))
    .route("/favicon.ico", get(crate::common::favicon))
    .fallback(|| async { crate::common::not_found() })
    .layer(from_fn_with_state(sessions, session_layer::<T>))
    .with_state(state)
}

/// `GET /__wf/actions`: the session's server-side action log as JSON.
pub fn actions_json<T: Send + 'static>(sessions: &Sessions<T>, sid: &Sid) -> Response {
    let body = serde_json::to_string(&sessions.actions(sid)).unwrap_or_else(|_| "[]".into());
    typed(StatusCode::OK, "application/json", body)
}
