//! The in-process server: one std thread owning a tokio runtime.

use std::net::{Ipv4Addr, SocketAddr, TcpListener as StdListener};
use std::thread::JoinHandle;

use tokio::sync::oneshot;

use crate::{App, ServeOptions};

/// A running fixture application on 127.0.0.1. Dropping it shuts it down.
pub struct Server {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// Binds 127.0.0.1:`opts.port` and serves `app` from a background thread with its own
    /// runtime. Returns once the socket is listening. Works inside or outside a runtime.
    pub fn start(app: App, opts: ServeOptions) -> std::io::Result<Server> {
        let listener = StdListener::bind((Ipv4Addr::LOCALHOST, opts.port))?;
        let port = listener.local_addr()?.port();
        let router = match app {
            App::Expense => crate::expense::router(opts.bugs, port),
            App::Clinic => crate::clinic::router(opts.bugs, port),
            App::Splitter => crate::splitter::router(opts.bugs, port),
            App::Board => crate::board::router(opts.bugs, port, false),
            App::BoardDelegated => crate::board::router(opts.bugs, port, true),
            App::Hazards => crate::hazards::router(),
            App::Gestures => crate::gestures::router(opts.bugs),
        };
        let router = match opts.latency {
            d if d.is_zero() => router,
            d => router.layer(axum::middleware::from_fn(
                move |req: axum::extract::Request, next: axum::middleware::Next| async move {
                    tokio::time::sleep(d).await;
                    next.run(req).await
                },
            )),
        };
        Server::serve(listener, router, app.name())
    }

    /// Serve `router` on `listener` (bound to 127.0.0.1) from a background thread.
    pub(crate) fn serve(
        listener: StdListener,
        router: axum::Router,
        name: &str,
    ) -> std::io::Result<Server> {
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<std::io::Result<()>>();
        let thread = std::thread::Builder::new()
            .name(format!("wf-testapp-{name}-{}", addr.port()))
            .spawn(move || {
                runtime.block_on(async move {
                    let listener = match tokio::net::TcpListener::from_std(listener) {
                        Ok(l) => l,
                        Err(e) => {
                            let _ = ready_tx.send(Err(e));
                            return;
                        }
                    };
                    let _ = ready_tx.send(Ok(()));
                    // Not a graceful shutdown: /never keeps a request open forever and
                    // browsers keep connections alive; dropping the runtime ends them all.
                    tokio::select! {
                        _ = axum::serve(listener, router) => {}
                        _ = stop_rx => {}
                    }
                });
                runtime.shutdown_background();
            })?;
        match ready_rx.recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(e),
            Err(_) => return Err(std::io::Error::other("test app server thread died")),
        }
        Ok(Server {
            addr,
            stop: Some(stop_tx),
            thread: Some(thread),
        })
    }

    /// Start URL of the application, e.g. `http://127.0.0.1:41234/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// The bound socket address (always 127.0.0.1).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops the server and waits for its thread. Also done on drop.
    pub fn shutdown(self) {}

    fn stop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("addr", &self.addr).finish()
    }
}
