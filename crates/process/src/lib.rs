//! wayfarer-process: the processes wayfarer starts and must not leave behind.
//!
//! - [`Server`]: the application under test as a process (`[server]` in the
//!   configuration): a shell command in its own process group, its output in a log file,
//!   ready when a URL answers or a line of its output matches, stopped with SIGTERM then
//!   SIGKILL, restarted on the same port when a fresh application is asked for.
//! - [`Watchdog`]: one per browser and per server, a tiny shell that ends what it watches
//!   when wayfarer dies in any way (SIGKILL included), since no destructor runs then.

mod server;
mod watchdog;

pub use server::{
    answers, free_port, signal_group, OutputCursor, Ready, Server, ServerError, ServerSpec,
};
pub use watchdog::{alive, Watchdog};
