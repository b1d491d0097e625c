//! Logs never show a secret: the log writer on stderr masks the values of the `${NAME}`
//! references this process has read (from the configuration or a trace) with the same
//! `${NAME}` the store writes, whatever crate logged them (a typed value at -vv, a CDP
//! message of chromiumoxide).

use std::io::Write;

use wayfarer_run::mask::mask;

/// stderr for the log: each formatted event arrives in one write and leaves masked.
pub struct MaskedStderr;

impl Write for MaskedStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        std::io::stderr().write_all(mask(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}
