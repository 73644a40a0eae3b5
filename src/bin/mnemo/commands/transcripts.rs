//! `mnemo sessions import [--from FORMAT] [PATH]`: finds the transcript
//! files (a file, a directory walked for `*.jsonl`, standard input, or the
//! agent's own directory), reads each through the core's
//! [`mnemo::transcripts::parse`] and records them all in one transaction.
//! What a transcript holds and what is recorded of it are the core's rules.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use mnemo::transcripts::{parse, Format, ImportReport, Transcript};
use mnemo::{Error, ErrorKind, Memory, Result};

use crate::input::file_or_stdin;
use crate::paths::Dir;
use crate::render::{out, pretty};

/// Imports `path` (or the agent's default directory) as `from` transcripts.
pub fn import(
    memory: &Memory<Dir>,
    from: &str,
    path: Option<&str>,
    json: bool,
) -> Result<ExitCode> {
    let format = Format::from_name(from)?;
    let files = match path {
        Some("-") => vec![Source::Stdin],
        Some(path) => sources(Path::new(path))?,
        None => sources(&default_dir(format)?)?,
    };
    // Every file is read before anything is recorded: one that is not a
    // transcript of this format imports nothing at all.
    let mut transcripts: Vec<Transcript> = Vec::with_capacity(files.len());
    for source in &files {
        let (text, name) = match source {
            Source::Stdin => (file_or_stdin("-")?, None),
            Source::File(file) => (read(file)?, Some(file.to_string_lossy().into_owned())),
        };
        let transcript = parse(format, &text, name.as_deref()).map_err(|e| match source {
            Source::File(file) if e.kind() == ErrorKind::InvalidInput => {
                Error::new(e.kind(), format!("{}: {}", file.display(), e.message()))
            }
            _ => e,
        })?;
        transcripts.push(transcript);
    }
    let report = mnemo::storage::run_ready(memory.import_transcripts(format, &transcripts))??;
    if json {
        out(&pretty(&report)?)?;
    } else if format == Format::Mnemo && files.len() == 1 {
        // mnemo's own format keeps the line it always printed.
        out(&format!("recorded {} messages\n", report.messages))?;
    } else {
        out(&summary(&report))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The one-line summary: files, sessions, messages added, what was not.
fn summary(r: &ImportReport) -> String {
    let n = mnemo::store::thousands;
    let plural = |count: usize, one: &str, many: &str| {
        format!("{} {}", n(count), if count == 1 { one } else { many })
    };
    let mut line = format!(
        "imported {}: {}, {} added",
        plural(r.files, "file", "files"),
        plural(r.sessions, "session", "sessions"),
        plural(r.messages, "message", "messages"),
    );
    if r.present > 0 {
        line.push_str(&format!(", {} already there", n(r.present)));
    }
    if r.skipped > 0 {
        line.push_str(&format!(
            ", {} skipped (not readable)",
            plural(r.skipped, "line", "lines")
        ));
    }
    if r.too_long > 0 {
        line.push_str(&format!(
            ", {} left out (too long to scan)",
            plural(r.too_long, "message", "messages")
        ));
    }
    line.push('\n');
    line
}

/// Where a transcript is read from.
enum Source {
    Stdin,
    File(PathBuf),
}

/// `path` itself, or the `*.jsonl` files under it (sorted, so that an
/// import always records in the same order; links to directories are not
/// followed).
fn sources(path: &Path) -> Result<Vec<Source>> {
    let meta = std::fs::metadata(path).map_err(|e| {
        Error::new(
            ErrorKind::InvalidInput,
            format!("cannot read {}: {e}", path.display()),
        )
    })?;
    if !meta.is_dir() {
        return Ok(vec![Source::File(path.to_path_buf())]);
    }
    let mut files = Vec::new();
    let mut dirs = vec![path.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| {
            Error::new(
                ErrorKind::Storage,
                format!("cannot list {}: {e}", dir.display()),
            )
        })?;
        for entry in entries {
            let entry = entry.map_err(|e| {
                Error::new(
                    ErrorKind::Storage,
                    format!("cannot list {}: {e}", dir.display()),
                )
            })?;
            let kind = entry.file_type().map_err(|e| {
                Error::new(
                    ErrorKind::Storage,
                    format!("cannot read {}: {e}", entry.path().display()),
                )
            })?;
            let path = entry.path();
            if kind.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") && !kind.is_symlink() {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files.into_iter().map(Source::File).collect())
}

/// A transcript file's text (invalid UTF-8 replaced: such a line is then
/// not JSON, and skipped).
fn read(file: &Path) -> Result<String> {
    std::fs::read(file)
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .map_err(|e| {
            Error::new(
                ErrorKind::Storage,
                format!("could not read {}: {e}", file.display()),
            )
        })
}

/// A non-empty environment variable.
fn var(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// Where the agent keeps its transcripts: Claude Code in
/// `$CLAUDE_CONFIG_DIR/projects` (default `~/.claude/projects`), Codex in
/// `$CODEX_HOME/sessions` (default `~/.codex/sessions`).
fn default_dir(format: Format) -> Result<PathBuf> {
    let home = || var("HOME").or_else(|| var("USERPROFILE"));
    let dir = match format {
        Format::ClaudeCode => var("CLAUDE_CONFIG_DIR")
            .or_else(|| home().map(|h| h.join(".claude")))
            .map(|d| d.join("projects")),
        Format::Codex => var("CODEX_HOME")
            .or_else(|| home().map(|h| h.join(".codex")))
            .map(|d| d.join("sessions")),
        Format::Mnemo => {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                "name the transcript file to import (`-` reads standard input)",
            ))
        }
    };
    let dir = dir.ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidInput,
            "cannot find your home directory; name the transcripts' directory",
        )
    })?;
    if !dir.is_dir() {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!(
                "no {} transcripts at {} (the default); name the file or directory to import",
                format.name(),
                dir.display()
            ),
        ));
    }
    Ok(dir)
}
