//! Serves one fixture application on 127.0.0.1 until killed, printing its URL:
//! `cargo run -p wayfarer-testapps --example serve -- expense [--no-bugs] [--port N]
//! [--latency-ms N]` (every response waits N ms first, as a real backend would)
//! (any of expense, clinic, splitter, board, board-delegated, hazards; `scripts/soak.sh`
//! uses the release build, `cargo build --release -p wayfarer-testapps --example serve`).

use wayfarer_testapps::{App, ServeOptions, Server};

const USAGE: &str = "usage: serve [expense|clinic|splitter|board|board-delegated|hazards] \
                     [--no-bugs] [--port N] [--latency-ms N]";

fn main() {
    let mut app = App::Expense;
    let mut opts = ServeOptions::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "-h" | "--help" => {
                println!("{USAGE}");
                return;
            }
            "--no-bugs" => opts.bugs = false,
            "--port" => match args.next().and_then(|p| p.parse().ok()) {
                Some(p) => opts.port = p,
                None => {
                    eprintln!("--port needs a number\n{USAGE}");
                    std::process::exit(2);
                }
            },
            "--latency-ms" => match args.next().and_then(|p| p.parse().ok()) {
                Some(ms) => opts.latency = std::time::Duration::from_millis(ms),
                None => {
                    eprintln!("--latency-ms needs a number\n{USAGE}");
                    std::process::exit(2);
                }
            },
            name => match App::from_name(name) {
                Some(x) => app = x,
                None => {
                    eprintln!("unknown application {name:?}\n{USAGE}");
                    std::process::exit(2);
                }
            },
        }
    }
    let server = Server::start(app, opts).expect("start server");
    println!("{}", server.url());
    loop {
        std::thread::park();
    }
}
