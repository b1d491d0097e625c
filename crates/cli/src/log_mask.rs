//! Nothing the CLI prints shows a secret: the log writer on stderr and every line the
//! commands print (`mprintln!` and friends; clippy refuses `println!` in this crate) mask
//! the values of the `${NAME}` references this process has read (from the configuration
//! or a trace) with the same `${NAME}` the store writes, in every form an application may
//! echo them in, whatever crate produced the text (a typed value at -vv, a CDP message, a
//! failure message quoting the page).

use std::io::Write;

use wayfarer_core::secrets::mask_known as mask;

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

/// `text` masked on stdout. A closed pipe (`wayfarer report | head`) is not an error.
pub fn stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(mask(text).as_bytes());
    let _ = out.flush();
}

/// `text` masked on stderr.
pub fn stderr(text: &str) {
    let _ = std::io::stderr().lock().write_all(mask(text).as_bytes());
}

/// `print!`, masked.
macro_rules! mprint {
    ($($t:tt)*) => { $crate::log_mask::stdout(&format!($($t)*)) };
}

/// `println!`, masked.
macro_rules! mprintln {
    () => { $crate::log_mask::stdout("\n") };
    ($($t:tt)*) => { $crate::log_mask::stdout(&format!("{}\n", format_args!($($t)*))) };
}

/// `eprint!`, masked.
macro_rules! meprint {
    ($($t:tt)*) => { $crate::log_mask::stderr(&format!($($t)*)) };
}

/// `eprintln!`, masked.
macro_rules! meprintln {
    () => { $crate::log_mask::stderr("\n") };
    ($($t:tt)*) => { $crate::log_mask::stderr(&format!("{}\n", format_args!($($t)*))) };
}
