//! `mutate` (DESIGN 6): inputs that break things on purpose, on top of any generator.
//!
//! Valid values first get a run deep; once a form was submitted with them and accepted,
//! the layer attacks it: every other submission of that form changes one field to a
//! boundary value from the [`catalogue`], the other fields keeping the inner generator's
//! valid values. Alternating keeps the flows behind a form (a login) reachable, and
//! mutating one field at a time says which value the application could not take.
//! Where the server's coverage is read, a boundary value that made the server run new
//! code (a validation branch, an error path) is followed by more on the same field.
//!
//! - [`catalogue`]: the boundary values, as a table of rows.
//! - [`judge`]: which form a field belongs to across visits ([`FormKey`]), and whether
//!   a submission was accepted ([`judge_submission`]).
//! - [`Mutate`]: the layer and its policy.

pub mod catalogue;
pub mod judge;
mod layer;

pub use catalogue::{boundary_values, Applies, Family, Make, Row, CATALOGUE};
pub use judge::{judge_submission, FormKey, Submission};
pub use layer::Mutate;
