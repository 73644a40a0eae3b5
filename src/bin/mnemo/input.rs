//! What the CLI reads from a person: arguments that may come from standard
//! input (`-`), whole files, yes/no questions and texts edited in
//! `$VISUAL` / `$EDITOR`.
//!
//! Reading only: nothing here opens the memory or writes to standard output.

use std::io::{self, IsTerminal, Read, Write};

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
    let yes = ask(question);
    if !yes {
        let _ = writeln!(io::stderr(), "cancelled; nothing deleted");
    }
    yes
}

/// Asks `question` on standard error (it ends with its own `[y/N] `) and
/// reads one line of standard input; only `y` or `yes` agrees, anything
/// else (an empty line, end of input) is no.
pub fn ask(question: &str) -> bool {
    let _ = write!(io::stderr(), "{question}");
    let _ = io::stderr().flush();
    let mut answer = String::new();
    let _ = io::stdin().read_line(&mut answer);
    matches!(answer.trim().to_lowercase().as_str(), "y" | "yes")
}

/// Whether a person is at the terminal to answer a question: standard
/// input and standard error are both terminals (the question goes to
/// standard error, so standard output can still be piped).
pub fn interactive() -> bool {
    io::stdin().is_terminal() && io::stderr().is_terminal()
}

/// A new directory of the temp dir only this user can enter. Its name is
/// never one that existed: on a shared machine another user could have
/// made a directory of a predictable name, with a link in it to a file of
/// ours, and read or redirect what is edited.
fn private_dir() -> std::io::Result<std::path::PathBuf> {
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let mut last = None;
    for attempt in 0..100u32 {
        let dir = std::env::temp_dir().join(format!(
            "mnemo-edit-{}-{nanos:08x}-{attempt}",
            std::process::id()
        ));
        match builder.create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free temp dir name")))
}

/// Opens `text` in `$VISUAL` / `$EDITOR` (default `vi`) and returns what
/// was saved; an editor that fails changes nothing.
pub fn edit_in_editor(text: &str) -> Result<String> {
    let io_err = |what: &str, e: std::io::Error| {
        Error::new(ErrorKind::Storage, format!("could not {what}: {e}"))
    };
    let dir = private_dir().map_err(|e| io_err("create a temp dir", e))?;
    let file = dir.join("entry.md");
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&file)
        .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()))
        .map_err(|e| io_err("write the temp file", e))?;
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let editor = var("VISUAL")
        .or_else(|| var("EDITOR"))
        .unwrap_or_else(|| "vi".to_string());
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("mnemo-editor")
        .arg(&file)
        .status()
        .map_err(|e| io_err("start the editor", e))?;
    let result = if status.success() {
        std::fs::read_to_string(&file).map_err(|e| io_err("read the edited file", e))
    } else {
        Err(Error::new(
            ErrorKind::InvalidInput,
            format!("the editor ({editor}) exited with {status}; nothing changed"),
        ))
    };
    let _ = std::fs::remove_dir_all(&dir);
    result
}
