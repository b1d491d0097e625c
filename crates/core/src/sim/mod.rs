//! A simulated web application: a generated graph of pages with links, forms whose
//! submit is guarded by field validity, and a seeded bug (a button that throws, or a
//! `FieldRule::Column` whose server fails on a value longer than the column). It
//! implements `Environment` so the loop and the strategies can be tested over thousands
//! of steps per second. It is a test double and a lab, never a stand-in for the browser
//! in the product.

mod app;
mod env;

pub use app::{Field, FieldRule, Form, Page, SimApp};
pub use env::SimEnv;
