//! Serves one fixture application until killed:
//! `cargo run -p wayfarer-testapps --example serve -- expense [--no-bugs] [--port N]`

use wayfarer_testapps::{App, ServeOptions, Server};

fn main() {
    let mut app = App::Expense;
    let mut opts = ServeOptions::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--no-bugs" => opts.bugs = false,
            "--port" => opts.port = args.next().and_then(|p| p.parse().ok()).unwrap_or(0),
            name => match App::from_name(name) {
                Some(x) => app = x,
                None => {
                    eprintln!("usage: serve [expense|clinic|hazards] [--no-bugs] [--port N]");
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
