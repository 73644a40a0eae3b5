//! The commands that read and write the two stores as a whole or entry by
//! entry: `status`, `prompt`, `add`, `replace`, `remove`, `remember`,
//! `history`, `export` and `import`.
//!
//! Writes go through the core's memory tool or its import, so limits,
//! locking, backups, damaged files and write approval are decided there,
//! never here. While approval is on, a write is staged and, in a terminal,
//! asked about at once ([`settle`]).

use std::collections::BTreeSet;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use mnemo::storage::run_ready;
use mnemo::store::thousands;
use mnemo::{Error, ErrorKind, Files, Memory, Result, Storage, Target, ToolResult};
use serde_json::{json, Value};

use crate::commands::approval::settle;
use crate::flags::{MetaArgs, TargetArg};
use crate::input::arg_or_stdin;
use crate::paths::Paths;
use crate::render::{self, entries, out, pretty};

/// `mnemo status`: which memories these are (scope, workspace,
/// directory), both stores' size, limits and mode.
pub fn status(paths: &Paths, json: bool) -> Result<ExitCode> {
    let location = paths.locate()?;
    let also_read: Vec<PathBuf> = paths
        .readers()?
        .iter()
        .skip(1)
        .map(|(_, p)| p.locate().map(|l| l.dir))
        .collect::<Result<_>>()?;
    let (mut memory, config_source, embeddings) = paths.open_with_embeddings()?;
    // Lending makes no call: the status only says which recall is in force.
    let recall = crate::embed::lend(
        &mut memory,
        &crate::flags::EmbedArgs::default(),
        embeddings.as_ref(),
        &config_source,
    );
    if let (true, Err(e)) = (json, &recall) {
        let _ = writeln!(
            io::stderr(),
            "warning: the config's embeddings section cannot be used: {}",
            e.message()
        );
    }
    let status = memory.status();
    if json {
        let mut value = serde_json::to_value(&status)
            .map_err(|e| Error::new(ErrorKind::Internal, format!("cannot encode JSON: {e}")))?;
        if let Value::Object(map) = &mut value {
            map.insert("scope".into(), json!(location.scope.name()));
            map.insert("workspace".into(), json!(location.workspace));
            map.insert("dir".into(), json!(location.dir));
            map.insert("config".into(), json!(config_source));
            map.insert("also_reads".into(), json!(also_read));
        }
        out(&pretty(&value)?)?;
    } else {
        let dir = memory.storage().files().dir();
        let approval = &status.approval;
        let mut text = format!(
            "Scope: {}{} · workspace: {}\n",
            location.scope.name(),
            location
                .root
                .as_deref()
                .map_or_else(String::new, |r| format!(" ({})", r.display())),
            match (&location.workspace, location.scope) {
                (_, crate::paths::Scope::Dir) => "- (--dir)",
                (Some(name), _) => name.as_str(),
                (None, _) => "default",
            }
        );
        for dir in &also_read {
            text.push_str(&format!(
                "Search and recall also read: global ({})\n",
                dir.display()
            ));
        }
        text.push_str(&format!(
            "Memories directory: {}\nConfig: {config_source}\nWrite approval: {} ({}) · {}",
            dir.display(),
            if approval.enabled { "on" } else { "off" },
            approval.source,
            match approval.pending {
                0 => "nothing pending".to_string(),
                n => format!("{n} pending (`mnemo pending`)"),
            }
        ));
        if approval.needs_review > 0 {
            text.push_str(&format!(", {} need review", approval.needs_review));
        }
        text.push_str(&format!("\nRecall: {}", status.recall));
        match &recall {
            Ok(Some(url)) => text.push_str(&format!(" at {url}")),
            Ok(None) => text.push_str(" (no embedding model: see `mnemo recall --help`)"),
            Err(e) => text.push_str(&format!(
                " (the config's embeddings section cannot be used: {})",
                e.message()
            )),
        }
        text.push('\n');
        for (target, s) in [
            (Target::Memory, &status.memory),
            (Target::User, &status.user),
        ] {
            text.push_str(&render::store_status(target, s, dir));
        }
        out(&text)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `mnemo prompt`: the memory block of the system prompt.
pub fn prompt(paths: &Paths) -> Result<ExitCode> {
    let (memory, _) = paths.open()?;
    let prompt = memory.system_prompt();
    if prompt.is_empty() {
        let _ = writeln!(
            io::stderr(),
            "(both stores are empty or disabled: nothing goes into the system prompt)"
        );
    } else {
        out(&format!("{prompt}\n"))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `mnemo add`, with the entry's importance and category when given.
pub fn add(paths: &Paths, target: TargetArg, content: String, meta: MetaArgs) -> Result<ExitCode> {
    let mut args = meta_json(meta);
    args.insert("action".into(), json!("add"));
    args.insert("target".into(), json!(target.name()));
    args.insert("content".into(), json!(arg_or_stdin(content)?));
    write(paths, Value::Object(args))
}

/// `--importance` and `--category` as the core's JSON arguments (the core
/// checks them).
fn meta_json(meta: MetaArgs) -> serde_json::Map<String, Value> {
    let mut map = serde_json::Map::new();
    if let Some(importance) = meta.importance {
        map.insert("importance".into(), json!(importance));
    }
    if let Some(category) = meta.category {
        map.insert("category".into(), json!(category));
    }
    map
}

/// `mnemo replace`.
pub fn replace(
    paths: &Paths,
    target: TargetArg,
    old_text: String,
    content: String,
) -> Result<ExitCode> {
    write(
        paths,
        json!({
            "action": "replace",
            "target": target.name(),
            "old_text": old_text,
            "content": arg_or_stdin(content)?,
        }),
    )
}

/// `mnemo remove`.
pub fn remove(paths: &Paths, target: TargetArg, old_text: String) -> Result<ExitCode> {
    write(
        paths,
        json!({"action": "remove", "target": target.name(), "old_text": old_text}),
    )
}

/// `mnemo remember`: a write the user confirmed.
pub fn remember(
    paths: &Paths,
    target: TargetArg,
    fact: String,
    meta: MetaArgs,
) -> Result<ExitCode> {
    let mut options = meta_json(meta);
    options.insert("target".into(), json!(target.name()));
    let options = mnemo::api::RememberOptions::from_json(&Value::Object(options))?;
    let fact = arg_or_stdin(fact)?;
    let (mut memory, _) = paths.open()?;
    let result = run_ready(memory.remember(&fact, options))?;
    report_tool_result(&settle(&mut memory, result)?)
}

/// `mnemo history`: superseded entries, newest first, each with its
/// cause (`replace`, `remove`, `import`, `rejected`, and curation's
/// `supersede`, `prune`, `merge`) and the agent whose change it was.
pub fn history(paths: &Paths, json: bool, limit: Option<usize>) -> Result<ExitCode> {
    let (memory, _) = paths.open()?;
    let mut items = run_ready(memory.history())??;
    if let Some(n) = limit {
        items.truncate(n);
    }
    if json {
        out(&pretty(&items)?)?;
    } else if items.is_empty() {
        let _ = writeln!(io::stderr(), "(no entry has been replaced or removed yet)");
    } else {
        let mut text = String::new();
        for i in &items {
            let cause = render::cause(i.cause);
            text.push_str(&format!(
                "{}  {:<4} {:<9} {} {}{}{}\n",
                render::when(i.time),
                i.id,
                cause,
                i.target,
                i.entry_id,
                if i.confirmed { " ✔" } else { "" },
                i.agent
                    .as_deref()
                    .map_or_else(String::new, |a| format!("  by {}", render::one_line(a, 64)))
            ));
            for line in i.text.lines() {
                text.push_str(&format!("    {line}\n"));
            }
        }
        out(&text)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `mnemo history restore ID` and `mnemo history purge`.
pub fn history_action(
    paths: &Paths,
    action: crate::flags::HistoryAction,
    id: Option<String>,
    purge_id: Option<String>,
    before: Option<String>,
    all: bool,
) -> Result<ExitCode> {
    use crate::flags::HistoryAction;
    let (mut memory, _) = paths.open()?;
    match action {
        HistoryAction::Restore => {
            let id = id.ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidInput,
                    "history restore needs the item's id (see `mnemo history`)",
                )
            })?;
            let result = run_ready(memory.restore(&id))?;
            report_tool_result(&crate::commands::approval::settle(&mut memory, result)?)
        }
        HistoryAction::Purge => {
            let id = purge_id.or(id);
            let before = before
                .map(|d| {
                    mnemo::time::parse_date(&d).ok_or_else(|| {
                        Error::new(
                            ErrorKind::InvalidInput,
                            format!("--before takes a day as YYYY-MM-DD, got {d:?}"),
                        )
                    })
                })
                .transpose()?;
            if id.is_none() && before.is_none() && !all {
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    "history purge removes text for good: name it with --id ID, --before \
                     YYYY-MM-DD or --all",
                ));
            }
            let n = run_ready(memory.purge_history(before, id.as_deref()))??;
            let _ = writeln!(
                io::stderr(),
                "removed {n} history item{} for good",
                if n == 1 { "" } else { "s" }
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `mnemo export`: both stores as JSON, or as files in `dir`.
pub fn export(paths: &Paths, dir: Option<PathBuf>, force: bool) -> Result<ExitCode> {
    let (memory, _) = paths.open()?;
    warn_damaged(&memory);
    match dir {
        None => out(&pretty(&memory.export_markdown())?)?,
        Some(dir) => export_to(&memory, &dir, force)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `mnemo import`: whole stores from files named after them.
pub fn import(paths: &Paths, files: &[PathBuf]) -> Result<ExitCode> {
    let nothing = "nothing was imported";
    let mut map = Files::new();
    let mut sources = Vec::new();
    for path in files {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let Some(target) = Target::from_file_name(name) else {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!(
                    "cannot import {}: the file must be named MEMORY.md or USER.md (its name \
                     says which store it replaces); {nothing}",
                    path.display()
                ),
            ));
        };
        if map.contains_key(name) {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!("{name} is given more than once; {nothing}"),
            ));
        }
        let bytes = fs::read(path).map_err(|e| {
            Error::new(
                ErrorKind::Storage,
                format!("cannot read {}: {e}; {nothing}", path.display()),
            )
        })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            Error::new(
                ErrorKind::InvalidText,
                format!(
                    "cannot import {}: not valid UTF-8 text (first bad byte at offset {}); \
                     {nothing}",
                    path.display(),
                    e.utf8_error().valid_up_to()
                ),
            )
        })?;
        map.insert(name.to_string(), text);
        sources.push((target, path));
    }
    let (mut memory, _) = paths.open()?;
    let before: BTreeSet<String> = run_ready(memory.storage().list())??.into_iter().collect();
    run_ready(memory.import_markdown(&map))??;
    let mut report = String::new();
    for (target, path) in sources {
        let store = memory.store(target);
        report.push_str(&format!(
            "imported {} from {}: {}, {} chars\n",
            target.file_name(),
            path.display(),
            entries(store.entries().len()),
            thousands(store.chars())
        ));
    }
    // Best effort: the import already succeeded.
    if let Ok(Ok(after)) = run_ready(memory.storage().list()) {
        for name in after.iter().filter(|n| !before.contains(*n)) {
            if name.contains(".bak.") {
                report.push_str(&format!("previous text backed up as {name}\n"));
            }
        }
    }
    out(&report)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs one tool call from `add`, `replace` or `remove` and reports it.
fn write(paths: &Paths, args: Value) -> Result<ExitCode> {
    let (mut memory, _) = paths.open()?;
    let result = run_ready(memory.tool(&args))?;
    report_tool_result(&settle(&mut memory, result)?)
}

/// Prints a write's result for a person: the message and usage (or that it
/// awaits approval), the notification line on standard error, or the
/// error with the current entries when the store is full.
pub fn report_tool_result(result: &ToolResult) -> Result<ExitCode> {
    let result = result.clone();
    if let Some(line) = &result.notification {
        let _ = writeln!(io::stderr(), "{line}");
    }
    if let (true, Some(true), Some(id)) = (result.success, result.staged, &result.pending_id) {
        out(&format!(
            "Staged for your approval as {id}: not saved yet.\n`mnemo approve {id}` saves it, \
             `mnemo reject {id}` drops it (`mnemo pending` lists what waits).\n"
        ))?;
        return Ok(ExitCode::SUCCESS);
    }
    if result.success {
        let mut text = result.message.unwrap_or_default();
        if let (Some(target), Some(usage), Some(n)) =
            (result.target, result.usage, result.entry_count)
        {
            text.push_str(&format!("\n{target}: {}, {usage}", entries(n)));
        }
        text.push('\n');
        out(&text)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut text = format!(
        "error [{}]: {}\n",
        result.code.unwrap_or(ErrorKind::Internal).code(),
        result.error.unwrap_or_default()
    );
    if let Some(current) = result.current_entries.filter(|c| !c.is_empty()) {
        text.push_str(&format!(
            "\nCurrent entries of {} ({} chars):\n",
            result.target.map_or("the store", |t| t.name()),
            result.usage.unwrap_or_default()
        ));
        for (i, entry) in current.iter().enumerate() {
            let number = format!("{:>3}. ", i + 1);
            let indent = " ".repeat(number.len());
            for (j, line) in entry.lines().enumerate() {
                text.push_str(if j == 0 { &number } else { &indent });
                text.push_str(line);
                text.push('\n');
            }
        }
        text.push_str("\nMake room with `mnemo replace OLD_TEXT CONTENT` or `mnemo remove OLD_TEXT`, then retry.\n");
    }
    let _ = io::stderr().write_all(text.as_bytes());
    Ok(ExitCode::FAILURE)
}

/// Warns on standard error about each damaged store before an export.
fn warn_damaged<S: Storage>(memory: &Memory<S>) {
    let status = memory.status();
    for (target, s) in [
        (Target::Memory, &status.memory),
        (Target::User, &status.user),
    ] {
        if let Some(why) = &s.damaged {
            let _ = writeln!(
                io::stderr(),
                "warning: {} is damaged ({why}); the export holds what could be read",
                target.file_name()
            );
        }
    }
}

/// Writes `MEMORY.md` and `USER.md` into `dir`, refusing to overwrite
/// unless `force`.
fn export_to<S: Storage>(memory: &Memory<S>, dir: &Path, force: bool) -> Result<()> {
    let files = memory.export_markdown();
    let io_err = |what: &str, path: &Path, e: io::Error| {
        Error::new(
            ErrorKind::Storage,
            format!("cannot {what} {}: {e}", path.display()),
        )
    };
    if !force {
        let existing: Vec<String> = files
            .keys()
            .map(|name| dir.join(name))
            .filter(|path| path.exists())
            .map(|path| path.display().to_string())
            .collect();
        if !existing.is_empty() {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!(
                    "{} already exist{}; pass --force to overwrite, or choose another --out \
                     directory (nothing was written)",
                    existing.join(" and "),
                    if existing.len() == 1 { "s" } else { "" }
                ),
            ));
        }
    }
    fs::create_dir_all(dir).map_err(|e| io_err("create the directory", dir, e))?;
    let mut report = String::new();
    for (name, text) in &files {
        let path = dir.join(name);
        fs::write(&path, text).map_err(|e| io_err("write", &path, e))?;
        let n = Target::from_file_name(name).map_or(0, |t| memory.store(t).entries().len());
        report.push_str(&format!("wrote {} ({})\n", path.display(), entries(n)));
    }
    out(&report)
}
