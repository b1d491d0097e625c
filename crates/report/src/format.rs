//! Output formats of a run: each one type with a name, the file it writes in the run
//! directory and a render over the run's data, listed once in `FORMATS`. `write_all`
//! writes them all; `wayfarer report DIR --format NAME` any of them. A new format is its
//! file and one line here.

use wayfarer_store::RunData;

use crate::SeededLine;

/// What a format renders: the run, and for a bundled demo app which of its seeded bugs
/// the run found.
pub struct Input<'a> {
    pub data: &'a RunData,
    pub seeded: Option<&'a [SeededLine]>,
}

pub trait Format: Sync {
    /// `--format NAME`.
    fn name(&self) -> &'static str;
    /// One line for people: what it is for.
    fn about(&self) -> &'static str;
    /// The file it writes in the run directory.
    fn file(&self) -> &'static str;
    fn render(&self, input: &Input<'_>) -> String;
}

/// Every format a run writes, in the order they are listed.
pub const FORMATS: &[&dyn Format] = &[
    &crate::html::Html,
    &crate::json::Json,
    &crate::junit::Junit,
    &crate::ctrf::Ctrf,
    &crate::text::Text,
];

/// The format called `name`.
pub fn format(name: &str) -> Option<&'static dyn Format> {
    FORMATS.iter().copied().find(|f| f.name() == name)
}

/// Every format's name.
pub fn names() -> Vec<&'static str> {
    FORMATS.iter().map(|f| f.name()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_files_are_unique() {
        let mut names = names();
        let mut files: Vec<&str> = FORMATS.iter().map(|f| f.file()).collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        files.sort_unstable();
        files.dedup();
        assert_eq!((names.len(), files.len()), (n, n));
        assert!(FORMATS.iter().all(|f| !f.about().is_empty()));
    }
}
