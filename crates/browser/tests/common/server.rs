//! A tiny HTTP/1.1 server on 127.0.0.1 for the browser tests: pages from strings, plus
//! hazards (a route that never answers, a 500). Runs on its own thread and runtime so
//! the sync `BrowserEnv` (which owns another runtime) can be driven from the test thread.

#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// What a route answers.
#[derive(Clone)]
pub enum Reply {
    /// status, content type, body
    Page(u16, &'static str, String),
    /// Accept the connection and never answer.
    Never,
    /// 302 to this address.
    Redirect(String),
}

pub fn html(body: impl Into<String>) -> Reply {
    Reply::Page(200, "text/html; charset=utf-8", body.into())
}

pub fn js(body: impl Into<String>) -> Reply {
    Reply::Page(200, "application/javascript", body.into())
}

pub struct TestServer {
    pub port: u16,
    /// The request paths served so far (with their queries), in order.
    hits: Arc<std::sync::Mutex<Vec<String>>>,
}

impl TestServer {
    /// Serve `routes` (path without query -> reply); unknown paths get a 404.
    pub fn start(routes: Vec<(&str, Reply)>) -> TestServer {
        let routes: Arc<HashMap<String, Reply>> = Arc::new(
            routes
                .into_iter()
                .map(|(p, r)| (p.to_string(), r))
                .collect(),
        );
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        std_listener.set_nonblocking(true).unwrap();
        let port = std_listener.local_addr().unwrap().port();
        let hits = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = hits.clone();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = TcpListener::from_std(std_listener).unwrap();
                loop {
                    let Ok((mut sock, _)) = listener.accept().await else {
                        continue;
                    };
                    let routes = routes.clone();
                    let seen = seen.clone();
                    tokio::spawn(async move {
                        let mut buf = Vec::new();
                        let mut chunk = [0u8; 4096];
                        // Read the head (bodies are ignored: the tests only post tiny forms).
                        loop {
                            match sock.read(&mut chunk).await {
                                Ok(0) | Err(_) => return,
                                Ok(n) => buf.extend_from_slice(&chunk[..n]),
                            }
                            if buf.windows(4).any(|w| w == b"\r\n\r\n") {
                                break;
                            }
                        }
                        let head = String::from_utf8_lossy(&buf).to_string();
                        let target = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                        let path = target.split('?').next().unwrap_or("/").to_string();
                        seen.lock().unwrap().push(target.clone());
                        let reply = routes.get(&path).cloned().unwrap_or(Reply::Page(
                            404,
                            "text/plain",
                            "not found".into(),
                        ));
                        match reply {
                            Reply::Redirect(to) => {
                                let resp = format!(
                                    "HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                                );
                                let _ = sock.write_all(resp.as_bytes()).await;
                                let _ = sock.shutdown().await;
                            }
                            Reply::Never => {
                                tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
                            }
                            Reply::Page(status, ctype, body) => {
                                let resp = format!(
                                    "HTTP/1.1 {status} X\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n{body}",
                                    body.len()
                                );
                                let _ = sock.write_all(resp.as_bytes()).await;
                                let _ = sock.shutdown().await;
                            }
                        }
                    });
                }
            });
        });
        TestServer { port, hits }
    }

    /// The request targets (path and query) this server has answered or is answering.
    pub fn hits(&self) -> Vec<String> {
        self.hits.lock().unwrap().clone()
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{}", self.port, path)
    }
}
