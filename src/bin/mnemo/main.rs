//! The `mnemo` command-line tool: the memory of an agent in a directory
//! (`MEMORY.md`, `USER.md`), read and changed from a shell.
//!
//! This file parses the command line, hands it to its command and turns the
//! outcome into an exit status: 0 on success, 1 on an error (printed as
//! `error [<code>]: <message>`) or a refused write, 2 for a wrong command
//! line (clap's own). Every decision (limits, locking, backups, damaged
//! files) belongs to the core.
//!
//! - [`flags`]: the commands, arguments and help texts
//! - [`paths`]: `$MNEMO_HOME`, scopes and workspaces, `--dir`, `--config`,
//!   opening the memory
//! - [`input`]: arguments from standard input, yes/no questions
//! - [`render`]: everything drawn for a terminal
//! - [`terminal`]: the terminal's size, full-screen mode and Ctrl-C, for
//!   `journey --play`
//! - [`llm`]: the OpenAI-compatible HTTP client and the chat-completions
//!   model of `review`
//! - [`embed`]: the OpenAI-compatible embeddings model of hybrid recall
//! - [`commands`]: one file per group of commands

mod commands;
mod embed;
mod flags;
mod input;
mod llm;
mod paths;
mod render;
mod terminal;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::Parser;
use mnemo::Result;

use crate::commands::{
    activity, approval, curate, entries, journey, review, scan, scope, search, sectors, sessions,
    skills, store, tool,
};
use crate::flags::{Cli, Command};
use crate::paths::Paths;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            let _ = writeln!(io::stderr(), "error [{}]: {}", e.code(), e.message());
            ExitCode::FAILURE
        }
    }
}

/// Dispatches a parsed command line to its command.
fn run(cli: Cli) -> Result<ExitCode> {
    let paths = Paths::new(cli.dir, cli.config, cli.agent, cli.scope, cli.workspace);
    match cli.command {
        Command::Status { json } => store::status(&paths, json),
        Command::Prompt => store::prompt(&paths),
        Command::Add {
            target,
            content,
            meta,
        } => store::add(&paths, target, content, meta),
        Command::Replace {
            target,
            old_text,
            content,
        } => store::replace(&paths, target, old_text, content),
        Command::Remove { target, old_text } => store::remove(&paths, target, old_text),
        Command::Remember { target, fact, meta } => store::remember(&paths, target, fact, meta),
        Command::Recall(args) => entries::recall(&paths, args),
        Command::Inject { prompt, embed } => entries::inject(&paths, prompt, &embed),
        Command::Update {
            query,
            content,
            importance,
            target,
        } => entries::update(&paths, &query, content, importance, target),
        Command::MarkImportant {
            query,
            importance,
            all,
            target,
        } => entries::mark_important(&paths, &query, importance, all, target),
        Command::Pin { query, target } => entries::pin(&paths, &query, target),
        Command::Forget { query, all, target } => entries::forget(&paths, &query, all, target),
        Command::History {
            action: None,
            json,
            limit,
            ..
        } => store::history(&paths, json, limit),
        Command::History {
            action: Some(action),
            id,
            purge_id,
            before,
            all,
            ..
        } => store::history_action(&paths, action, id, purge_id, before, all),
        Command::Export { out, force } => store::export(&paths, out, force),
        Command::Import { files } => store::import(&paths, &files),
        Command::Search {
            query,
            target,
            limit,
            json,
        } => search::search(&paths, &query, target, limit, json),
        Command::Context { message } => search::context(&paths, message),
        Command::Sectors {
            name,
            json,
            limit,
            width,
            no_color,
        } => sectors::sectors(&paths, name, json, limit, width, no_color),
        Command::Journey {
            action,
            json,
            play,
            fps,
            width,
            height,
            no_color,
        } => journey::journey(
            &paths,
            action,
            json,
            no_color,
            journey::Size { width, height },
            play.then(|| fps.unwrap_or(journey::FPS)),
        ),
        Command::Sessions(command) => sessions::sessions(&paths, command),
        Command::Skills { command } => skills::skills(
            &paths,
            command.unwrap_or(flags::SkillsCommand::List { json: false }),
        ),
        Command::Scan { file, store, json } => scan::scan(&file, store, json),
        Command::Tool { json } => tool::tool(&paths, json),
        Command::Schema => tool::schema(),
        Command::Pending { json } => approval::pending(&paths, json),
        Command::Approve {
            which,
            edit,
            content,
            json,
        } => approval::approve(&paths, which, edit, content, json),
        Command::Reject { which, json } => approval::reject(&paths, which, json),
        Command::Approval { state, json } => approval::approval(&paths, state, json),
        Command::Review(args) => review::review(&paths, args),
        Command::Curate(args) => curate::curate(&paths, args),
        Command::Init { path, json } => scope::init(&paths, path, json),
        Command::Log { date, days, json } => activity::log(&paths, date, days, json),
        Command::Note { text, json } => activity::note(&paths, text, json),
    }
}
