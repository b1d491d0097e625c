//! Every CDP call goes through `call`: a tokio timeout around the command, and errors
//! sorted into what the environment must do about them (retry, restart, report).

use std::time::Duration;

use chromiumoxide::error::CdpError;
use chromiumoxide::types::Command;
use chromiumoxide::Page;

/// Internal failure of a browser operation; `env` maps it to `EnvError` or a restart.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BrowserError {
    /// The command got no answer within the CDP timeout (hung renderer or browser).
    #[error("CDP {0} timed out")]
    Timeout(String),
    /// The websocket or the process is gone.
    #[error("browser connection lost ({0})")]
    Dead(String),
    /// Chromium answered with an error (bad params, no context, ...).
    #[error("CDP {0}: {1}")]
    Protocol(String, String),
    #[error("{0}")]
    NotFound(String),
    /// The start URL could not be loaded at all.
    #[error("cannot load {0}: {1}")]
    Unreachable(String, String),
    #[error("{0}")]
    Step(String),
    /// The login steps cannot log in: the run cannot explore what is behind them.
    #[error("{0}")]
    Login(String),
}

pub(crate) fn classify(method: &str, err: CdpError) -> BrowserError {
    match err {
        CdpError::Timeout => BrowserError::Timeout(method.to_string()),
        CdpError::Ws(e) => BrowserError::Dead(e.to_string()),
        CdpError::Io(e) => BrowserError::Dead(e.to_string()),
        CdpError::ChannelSendError(e) => BrowserError::Dead(e.to_string()),
        CdpError::NoResponse => BrowserError::Dead("no response".into()),
        CdpError::Chrome(e) => BrowserError::Protocol(method.to_string(), e.message),
        other => BrowserError::Protocol(method.to_string(), other.to_string()),
    }
}

/// Run one command on the page's session, bounded by `limit`.
pub(crate) async fn call<T: Command>(
    page: &Page,
    cmd: T,
    limit: Duration,
) -> Result<T::Response, BrowserError> {
    let method = cmd.identifier().to_string();
    match tokio::time::timeout(limit, page.execute(cmd)).await {
        Ok(Ok(resp)) => Ok(resp.result),
        Ok(Err(e)) => Err(classify(&method, e)),
        Err(_) => Err(BrowserError::Timeout(method)),
    }
}

/// What Chromium answers a page command with while the page's frame is between two
/// documents (a navigation committing); the same command a moment later works.
const BETWEEN_DOCUMENTS: &str = "Not attached to an active page";

/// Tries while the page is between two documents, and the pause between them.
const ATTACH_TRIES: u32 = 5;
const ATTACH_PAUSE: Duration = Duration::from_millis(100);

/// `call`, again while the page is between two documents: a back on a page that kept
/// navigating failed on it under load (issue 45), a step error for a passing moment.
pub(crate) async fn call_when_attached<T: Command + Clone>(
    page: &Page,
    cmd: T,
    limit: Duration,
) -> Result<T::Response, BrowserError> {
    when_attached(|| call(page, cmd.clone(), limit)).await
}

async fn when_attached<R, F, Fut>(mut attempt: F) -> Result<R, BrowserError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<R, BrowserError>>,
{
    let mut tries = 1;
    loop {
        match attempt().await {
            Err(BrowserError::Protocol(m, e))
                if e.contains(BETWEEN_DOCUMENTS) && tries < ATTACH_TRIES =>
            {
                tracing::debug!("CDP {m}: {e}; again in {ATTACH_PAUSE:?}");
                tries += 1;
                tokio::time::sleep(ATTACH_PAUSE).await;
            }
            r => return r,
        }
    }
}

/// Run one browser-level command (no session), bounded by `limit`.
pub(crate) async fn call_browser<T: Command>(
    browser: &chromiumoxide::Browser,
    cmd: T,
    limit: Duration,
) -> Result<T::Response, BrowserError> {
    let method = cmd.identifier().to_string();
    match tokio::time::timeout(limit, browser.execute(cmd)).await {
        Ok(Ok(resp)) => Ok(resp.result),
        Ok(Err(e)) => Err(classify(&method, e)),
        Err(_) => Err(BrowserError::Timeout(method)),
    }
}

/// What a script threw: the exception's description (its stack for an Error), else the
/// protocol's text.
pub(crate) fn thrown(ex: chromiumoxide::cdp::js_protocol::runtime::ExceptionDetails) -> String {
    ex.exception
        .as_ref()
        .and_then(|e| e.description.clone())
        .unwrap_or(ex.text)
}

/// Run `Runtime.evaluate`; an exception the expression threw is an error.
async fn evaluate(
    page: &Page,
    params: chromiumoxide::cdp::js_protocol::runtime::EvaluateParams,
    limit: Duration,
) -> Result<chromiumoxide::cdp::js_protocol::runtime::RemoteObject, BrowserError> {
    let ret = call(page, params, limit).await?;
    if let Some(ex) = ret.exception_details {
        return Err(BrowserError::Protocol(
            "Runtime.evaluate".into(),
            thrown(ex),
        ));
    }
    Ok(ret.result)
}

/// Evaluate `expression` in the page's main world and return its JSON value.
pub(crate) async fn eval(
    page: &Page,
    expression: impl Into<String>,
    limit: Duration,
) -> Result<serde_json::Value, BrowserError> {
    use chromiumoxide::cdp::js_protocol::runtime::EvaluateParams;
    let params = EvaluateParams::builder()
        .expression(expression)
        .return_by_value(true)
        .await_promise(false)
        .build()
        .map_err(|e| BrowserError::Step(e.to_string()))?;
    let result = evaluate(page, params, limit).await?;
    Ok(result.value.unwrap_or(serde_json::Value::Null))
}

/// Evaluate `expression` with deep serialization, so DOM nodes in the result come back
/// as `{"backendNodeId": N}` (see `name::plain`); other values as `eval` returns them.
/// The result's handle lives until its document goes (every reset leaves it).
pub(crate) async fn eval_deep(
    page: &Page,
    expression: impl Into<String>,
    limit: Duration,
) -> Result<serde_json::Value, BrowserError> {
    use chromiumoxide::cdp::js_protocol::runtime::{
        EvaluateParams, SerializationOptions, SerializationOptionsSerialization,
    };
    let serialization = SerializationOptions::builder()
        .serialization(SerializationOptionsSerialization::Deep)
        .max_depth(3)
        .additional_parameters(
            serde_json::json!({ "maxNodeDepth": 0, "includeShadowTree": "none" }),
        )
        .build()
        .map_err(BrowserError::Step)?;
    let params = EvaluateParams::builder()
        .expression(expression)
        .await_promise(false)
        .serialization_options(serialization)
        .build()
        .map_err(|e| BrowserError::Step(e.to_string()))?;
    let result = evaluate(page, params, limit).await?;
    Ok(match result.deep_serialized_value {
        Some(d) => crate::name::plain(&serde_json::to_value(d).unwrap_or_default()),
        None => result.value.unwrap_or(serde_json::Value::Null),
    })
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    fn between() -> BrowserError {
        BrowserError::Protocol("Page.getNavigationHistory".into(), BETWEEN_DOCUMENTS.into())
    }

    fn run<R>(f: impl std::future::Future<Output = R>) -> R {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn a_page_between_two_documents_is_asked_again() {
        let calls = Cell::new(0);
        let got = run(when_attached(|| {
            calls.set(calls.get() + 1);
            let n = calls.get();
            async move {
                if n < 3 {
                    Err(between())
                } else {
                    Ok(n)
                }
            }
        }));
        assert_eq!(got.unwrap(), 3);
    }

    #[test]
    fn the_asking_is_bounded_and_other_errors_are_not_retried() {
        let calls = Cell::new(0);
        let got: Result<(), _> = run(when_attached(|| {
            calls.set(calls.get() + 1);
            async { Err(between()) }
        }));
        assert!(matches!(got, Err(BrowserError::Protocol(..))));
        assert_eq!(calls.get(), ATTACH_TRIES);
        calls.set(0);
        let got: Result<(), _> = run(when_attached(|| {
            calls.set(calls.get() + 1);
            async {
                Err(BrowserError::Protocol(
                    "Page.navigate".into(),
                    "Invalid url".into(),
                ))
            }
        }));
        assert!(got.is_err());
        assert_eq!(calls.get(), 1);
    }
}
