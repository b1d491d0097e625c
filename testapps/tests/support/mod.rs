//! A tiny blocking HTTP/1.1 client over std::net for the tests (no extra dependencies).
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// One "browser": keeps the `sid` cookie it was given.
pub struct Client {
    pub addr: SocketAddr,
    pub cookie: Option<String>,
}

pub fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

pub fn form(fields: &[(&str, &str)]) -> String {
    fields
        .iter()
        .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

impl Client {
    pub fn new(addr: SocketAddr) -> Client {
        Client { addr, cookie: None }
    }

    pub fn get(&mut self, path: &str) -> Resp {
        self.request("GET", path, None)
    }

    pub fn post(&mut self, path: &str, fields: &[(&str, &str)]) -> Resp {
        self.request("POST", path, Some(form(fields)))
    }

    /// Follows 303 redirects with GET, like a browser after a form post.
    pub fn follow(&mut self, mut r: Resp) -> Resp {
        for _ in 0..5 {
            if r.status != 303 && r.status != 302 {
                break;
            }
            let to = r
                .header("location")
                .expect("redirect without Location")
                .to_string();
            r = self.get(&to);
        }
        r
    }

    pub fn request(&mut self, method: &str, path: &str, body: Option<String>) -> Resp {
        let mut s = TcpStream::connect(self.addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut req = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
            self.addr
        );
        if let Some(c) = &self.cookie {
            req.push_str(&format!("Cookie: sid={c}\r\n"));
        }
        let body = body.unwrap_or_default();
        if method == "POST" {
            req.push_str("Content-Type: application/x-www-form-urlencoded\r\n");
            req.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        req.push_str("\r\n");
        req.push_str(&body);
        s.write_all(req.as_bytes()).unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).expect("read response");
        let r = parse(&raw);
        if let Some(sc) = r.header("set-cookie") {
            if let Some(v) = sc.split(';').next().and_then(|kv| kv.strip_prefix("sid=")) {
                self.cookie = Some(v.to_string());
            }
        }
        r
    }
}

fn parse(raw: &[u8]) -> Resp {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("no header end");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap();
    let status: u16 = status_line.split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    if chunked {
        body = dechunk(&body);
    }
    Resp {
        status,
        headers,
        body: String::from_utf8_lossy(&body).to_string(),
    }
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(nl) = b.windows(2).position(|w| w == b"\r\n") {
        let size_txt = String::from_utf8_lossy(&b[..nl]).to_string();
        let size =
            usize::from_str_radix(size_txt.split(';').next().unwrap().trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        let start = nl + 2;
        out.extend_from_slice(&b[start..start + size]);
        b = &b[start + size + 2..];
    }
    out
}

/// `app` served on an ephemeral port of 127.0.0.1, with its seeded bugs on or off.
pub fn start(app: wayfarer_testapps::App, bugs: bool) -> wayfarer_testapps::Server {
    wayfarer_testapps::Server::start(
        app,
        wayfarer_testapps::ServeOptions {
            bugs,
            ..Default::default()
        },
    )
    .expect("server starts")
}
