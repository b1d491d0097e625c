//! The `[reset]` hook: a shell command and/or an HTTP request that puts the application's
//! own state back before a replay (or an exploration episode, when asked). Its failure is
//! an error, never a silent skip: replays after a failed reset prove nothing.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use url::Url;
use wayfarer_core::config::ResetConfig;

use crate::{usage, RunError};

/// A configured hook, checked and resolved against the start URL.
#[derive(Clone, Debug)]
pub struct ResetHook {
    command: Option<String>,
    http: Option<(String, Url)>,
    timeout: Duration,
}

/// Output of a failed command kept in the error.
const OUTPUT_TAIL: usize = 400;

impl ResetHook {
    /// The hook `cfg` describes, `None` when it describes none. Relative HTTP targets
    /// resolve against `start`.
    pub fn new(cfg: &ResetConfig, start: &Url) -> Result<Option<ResetHook>, RunError> {
        if !cfg.is_set() {
            return Ok(None);
        }
        let http = match cfg.http_request().map_err(RunError::Usage)? {
            Some((method, target)) => {
                let url = start
                    .join(&target)
                    .map_err(|e| usage!("reset.http target {target:?} is not a URL: {e}"))?;
                if url.scheme() != "http" {
                    return Err(usage!(
                        "reset.http {url} is not plain http (this build speaks no TLS); use \
                         reset.command, e.g. command = \"curl -fsS -X {method} {url}\""
                    ));
                }
                Some((method, url))
            }
            None => None,
        };
        Ok(Some(ResetHook {
            command: cfg.command.clone(),
            http,
            timeout: Duration::from_secs(cfg.timeout_s.max(1)),
        }))
    }

    /// What the hook does, for progress lines.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(c) = &self.command {
            parts.push(format!("`{c}`"));
        }
        if let Some((m, u)) = &self.http {
            parts.push(format!("{m} {u}"));
        }
        parts.join(" then ")
    }

    /// Run the command, then the request; the first failure is the error.
    pub fn run(&self) -> Result<(), String> {
        if let Some(c) = &self.command {
            run_command(c, self.timeout)?;
        }
        if let Some((m, u)) = &self.http {
            send(m, u, self.timeout)?;
        }
        Ok(())
    }
}

fn run_command(cmd: &str, timeout: Duration) -> Result<(), String> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run reset.command `{cmd}`: {e}"))?;
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child
            .try_wait()
            .map_err(|e| format!("reset.command `{cmd}`: {e}"))?
        {
            break s;
        }
        if started.elapsed() >= timeout {
            // Our own child, by its handle: never a process group.
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "reset.command `{cmd}` did not finish within {} s (reset.timeout_s)",
                timeout.as_secs()
            ));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    if !status.success() {
        let out = child
            .wait_with_output()
            .map_err(|e| format!("reset.command `{cmd}`: {e}"))?;
        let mut text = String::from_utf8_lossy(&out.stderr).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stdout));
        let text = text.trim();
        let tail: String = text
            .chars()
            .rev()
            .take(OUTPUT_TAIL)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        return Err(format!("reset.command `{cmd}` failed ({status}): {tail}"));
    }
    Ok(())
}

fn send(method: &str, url: &Url, timeout: Duration) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the reset hook's runtime: {e}"))?;
    let method = reqwest::Method::from_bytes(method.as_bytes())
        .map_err(|e| format!("reset.http method {method:?}: {e}"))?;
    let status = rt.block_on(async {
        // No proxy from the environment: the hook talks to the application itself.
        wayfarer_llm::tls_ready();
        let client = reqwest::Client::builder()
            .no_proxy()
            .timeout(timeout)
            .build()
            .map_err(|e| format!("cannot build the reset hook's HTTP client: {e}"))?;
        let r = client
            .request(method.clone(), url.as_str())
            .send()
            .await
            .map_err(|e| format!("reset.http {method} {url} got no answer: {e}"))?;
        Ok::<_, String>(r.status())
    })?;
    if !status.is_success() {
        return Err(format!(
            "reset.http {method} {url} answered {status}, not 2xx"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start() -> Url {
        "http://127.0.0.1:9/app/".parse().unwrap()
    }

    fn hook(command: Option<&str>, http: Option<&str>) -> Result<Option<ResetHook>, RunError> {
        ResetHook::new(
            &ResetConfig {
                command: command.map(str::to_string),
                http: http.map(str::to_string),
                timeout_s: 2,
                ..ResetConfig::default()
            },
            &start(),
        )
    }

    #[test]
    fn no_hook_is_none_and_paths_resolve_against_the_start_url() {
        assert!(hook(None, None).unwrap().is_none());
        let h = hook(None, Some("POST /__reset")).unwrap().unwrap();
        assert_eq!(h.describe(), "POST http://127.0.0.1:9/__reset");
        let e = hook(None, Some("POST https://example.test/reset")).unwrap_err();
        assert!(e.to_string().contains("reset.command"), "{e}");
    }

    #[test]
    fn a_command_must_succeed_in_time_and_its_output_says_why_not() {
        hook(Some("true"), None).unwrap().unwrap().run().unwrap();
        let e = hook(Some("echo no database >&2; exit 3"), None)
            .unwrap()
            .unwrap()
            .run()
            .unwrap_err();
        assert!(
            e.contains("no database") && e.contains("exit status: 3"),
            "{e}"
        );
        let t = Instant::now();
        let e = hook(Some("sleep 30"), None)
            .unwrap()
            .unwrap()
            .run()
            .unwrap_err();
        assert!(e.contains("did not finish within 2 s"), "{e}");
        assert!(t.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn an_unanswered_request_is_an_error() {
        // Port 9 (discard) on 127.0.0.1 refuses: no server there.
        let e = hook(None, Some("POST /__reset"))
            .unwrap()
            .unwrap()
            .run()
            .unwrap_err();
        assert!(e.contains("got no answer"), "{e}");
    }
}
