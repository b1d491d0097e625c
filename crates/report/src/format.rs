//! Output formats of a run: each one type with a name, the file (or folder) it writes in
//! the run directory and a render over the run's data, listed once in `FORMATS`.
//! `write_all` writes those a run writes at its end; `wayfarer report DIR --format NAME`
//! any of them. A new format is its file and one line here.

use std::path::PathBuf;

use wayfarer_store::RunData;

use crate::SeededLine;

/// What a format renders: the run, and for a bundled demo app which of its seeded bugs
/// the run found.
pub struct Input<'a> {
    pub data: &'a RunData,
    pub seeded: Option<&'a [SeededLine]>,
    /// The Chromium binary exported tests launch (`None`: Playwright's own browsers).
    pub chromium: Option<&'a str>,
}

pub trait Format: Sync {
    /// `--format NAME`.
    fn name(&self) -> &'static str;
    /// One line for people: what it is for.
    fn about(&self) -> &'static str;
    /// The file it writes in the run directory (a folder ends in `/`).
    fn file(&self) -> &'static str;
    /// Written at the end of every run; the others only when asked for by name.
    fn every_run(&self) -> bool {
        true
    }
    /// The whole output as one text (a folder's files one after the other).
    fn render(&self, input: &Input<'_>) -> String;
    /// The files it writes, by their paths in the run directory: `file()` holding
    /// `render`'s text, unless the format is a folder of files.
    fn files(&self, input: &Input<'_>) -> Result<Vec<(PathBuf, String)>, String> {
        Ok(vec![(PathBuf::from(self.file()), self.render(input))])
    }
}

/// Every format, in the order they are listed.
pub const FORMATS: &[&dyn Format] = &[
    &crate::html::Html,
    &crate::json::Json,
    &crate::junit::Junit,
    &crate::ctrf::Ctrf,
    &crate::text::Text,
    &crate::playwright::Playwright,
];

/// The formats every run writes at its end.
pub fn every_run() -> Vec<&'static dyn Format> {
    FORMATS.iter().copied().filter(|f| f.every_run()).collect()
}

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
