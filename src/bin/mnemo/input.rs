//! What the CLI reads from a person: arguments that may come from standard
//! input (`-`), whole files, and yes/no questions.
//!
//! Reading only: nothing here opens the memory or writes to standard output.

use std::io::{self, Read, Write};

use mnemo::{Error, ErrorKind, Result};

/// A command-line argument, or standard input when it is `-`.
pub fn arg_or_stdin(arg: String) -> Result<String> {
    if arg != "-" {
        return Ok(arg);
    }
    let mut bytes = Vec::new();
    io::stdin().read_to_end(&mut bytes).map_err(|e| {
        Error::new(
            ErrorKind::Storage,
            format!("cannot read standard input: {e}"),
        )
    })?;
    String::from_utf8(bytes).map_err(|e| {
        Error::new(
            ErrorKind::InvalidText,
            format!(
                "standard input is not valid UTF-8 (first bad byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

/// A file's text, or standard input for `-`.
pub fn file_or_stdin(file: &str) -> Result<String> {
    if file == "-" {
        return arg_or_stdin("-".to_string());
    }
    std::fs::read_to_string(file)
        .map_err(|e| Error::new(ErrorKind::Storage, format!("could not read {file}: {e}")))
}

/// Asks `question` on standard error (it ends with its own `[y/N] `) and
/// reads the answer; only `y` or `yes` agrees. When the answer is no, says
/// that nothing was deleted, since every question guards a deletion.
pub fn confirm_delete(question: &str) -> bool {
    let _ = write!(io::stderr(), "{question}");
    let mut answer = String::new();
    let _ = io::stdin().read_line(&mut answer);
    let yes = matches!(answer.trim().to_lowercase().as_str(), "y" | "yes");
    if !yes {
        let _ = writeln!(io::stderr(), "cancelled; nothing deleted");
    }
    yes
}
