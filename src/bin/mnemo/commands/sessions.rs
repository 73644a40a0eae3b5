//! `mnemo sessions …`: past conversations in `state.db` beside the stores.
//!
//! Each subcommand is one function over the open memory's session calls;
//! options, search, ranking and the `session_search` tool are the core's.

use std::io::{self, Write};
use std::process::ExitCode;

use mnemo::api::{ListOptions, ScrollOptions, SessionSearchOptions};
use mnemo::storage::run_ready;
use mnemo::{Error, ErrorKind, Memory, Result};
use serde_json::Value;

use crate::flags::SessionsCommand;
use crate::input::{arg_or_stdin, confirm_delete};
use crate::paths::{Dir, Paths};
use crate::render::{out, pretty, when};

/// Runs a session call of the core over the directory's `state.db`.
fn run<T>(future: impl std::future::Future<Output = Result<T>>) -> Result<T> {
    run_ready(future)?
}

/// Runs one `mnemo sessions` subcommand.
pub fn sessions(paths: &Paths, command: SessionsCommand) -> Result<ExitCode> {
    // The options are checked by the core's rules before anything is
    // opened or read.
    match command {
        SessionsCommand::List {
            offset,
            limit,
            json,
        } => list(&paths.open()?.0, &ListOptions::new(offset, limit)?, json),
        SessionsCommand::Search {
            query,
            session,
            role,
            source,
            limit,
            json,
        } => {
            let options = SessionSearchOptions::new(session, role, source, None, None, limit)?;
            search(&paths.open()?.0, &query, &options, json)
        }
        SessionsCommand::Show {
            session,
            around,
            before,
            after,
            json,
        } => {
            let options = ScrollOptions::new(around, before, after)?;
            show(&paths.open()?.0, &session, &options, json)
        }
        SessionsCommand::Import { from, path, json } => {
            // The format is checked before anything is opened.
            mnemo::transcripts::Format::from_name(&from)?;
            super::transcripts::import(&paths.open()?.0, &from, path.as_deref(), json)
        }
        SessionsCommand::Delete { session } => delete(&paths.open()?.0, &session),
        SessionsCommand::Purge { yes } => purge(&paths.open()?.0, yes),
        SessionsCommand::Tool { json } => tool(&paths.open()?.0, json),
        SessionsCommand::Schema => schema(),
    }
}

/// `mnemo sessions list`: recent sessions, most recent first.
fn list(memory: &Memory<Dir>, options: &ListOptions, json: bool) -> Result<ExitCode> {
    let sessions = run(memory.sessions(options))?;
    if json {
        out(&pretty(&sessions)?)?;
    } else {
        let mut text = String::new();
        for s in &sessions {
            text.push_str(&format!(
                "{}  {:<20} {:>4} msgs  {:<10} {}\n",
                when(s.ended),
                s.id,
                s.messages,
                s.source,
                s.title
            ));
        }
        if sessions.is_empty() {
            let _ = writeln!(io::stderr(), "(no sessions recorded)");
        }
        out(&text)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `mnemo sessions search`: matching messages, best first.
fn search(
    memory: &Memory<Dir>,
    query: &str,
    options: &SessionSearchOptions,
    json: bool,
) -> Result<ExitCode> {
    let hits = run(memory.session_search(query, options))?;
    if json {
        out(&pretty(&hits)?)?;
    } else {
        let mut text = String::new();
        for h in &hits {
            text.push_str(&format!(
                "{}  {} #{} {} ({:.2})\n  {}\n",
                when(h.time),
                h.session,
                h.seq,
                h.role,
                h.score,
                h.snippet
            ));
        }
        out(&text)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `mnemo sessions show`: a session's messages, or those around one.
fn show(
    memory: &Memory<Dir>,
    session: &str,
    options: &ScrollOptions,
    json: bool,
) -> Result<ExitCode> {
    let messages = run(memory.session_messages(session, options))?;
    if json {
        out(&pretty(&messages)?)?;
    } else {
        let mut text = String::new();
        for m in &messages {
            text.push_str(&format!("#{} {} {}\n", m.seq, m.role, when(m.time)));
            for line in m.text.lines() {
                text.push_str(&format!("  {line}\n"));
            }
        }
        out(&text)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `mnemo sessions delete`: one session and everything in it.
fn delete(memory: &Memory<Dir>, session: &str) -> Result<ExitCode> {
    if !run(memory.delete_session(session))? {
        return Err(Error::new(
            ErrorKind::NoMatch,
            format!("no session {session:?}"),
        ));
    }
    out(&format!("deleted session {session}\n"))?;
    Ok(ExitCode::SUCCESS)
}

/// `mnemo sessions purge`: every session; asks first unless `yes`.
fn purge(memory: &Memory<Dir>, yes: bool) -> Result<ExitCode> {
    if !yes && !confirm_delete("Delete every recorded session? [y/N] ") {
        return Ok(ExitCode::FAILURE);
    }
    let n = run(memory.purge_sessions())?;
    out(&format!("deleted {n} sessions\n"))?;
    Ok(ExitCode::SUCCESS)
}

/// `mnemo sessions tool`: one `session_search` call; the exit status says
/// whether it succeeded.
fn tool(memory: &Memory<Dir>, json: String) -> Result<ExitCode> {
    let text = arg_or_stdin(json)?;
    let args: Value = serde_json::from_str(&text).unwrap_or(Value::String(text));
    let answer = run_ready(memory.session_tool(&args))?;
    out(&pretty(&answer)?)?;
    Ok(if answer.success {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `mnemo sessions schema`: the `session_search` tool's definition.
fn schema() -> Result<ExitCode> {
    out(&pretty(&mnemo::sessions::tool_schema())?)?;
    Ok(ExitCode::SUCCESS)
}
