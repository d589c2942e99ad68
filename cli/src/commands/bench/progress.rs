//! A one-line progress indicator on stderr, redrawn in place; silent when stderr is not a
//! terminal (CI logs) or with `--quiet`.

use std::io::{IsTerminal, Write};

/// The progress line.
#[derive(Debug)]
pub struct Progress {
    enabled: bool,
}

impl Progress {
    /// A progress line, drawn only if `wanted` and stderr is a terminal.
    pub fn new(wanted: bool) -> Self {
        Progress {
            enabled: wanted && std::io::stderr().is_terminal(),
        }
    }

    /// Replaces the line with `text`.
    pub fn update(&self, text: &str) {
        if self.enabled {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K{text}");
            let _ = err.flush();
        }
    }

    /// Clears the line.
    pub fn clear(&self) {
        self.update("");
    }
}
