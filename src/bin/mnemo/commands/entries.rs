//! The memory plugin's operations on entries and their metadata: `recall`
//! (ranked by relevance, importance and age; hybrid with an embedding
//! model), `inject` (the `## Relevant Memory` block), `update`,
//! `mark-important`, `pin` and `forget`.
//!
//! Inside a project, `recall` also reads the global scope and merges the
//! two by adjusted score.
//!
//! Selection by QUERY, the score, the fallback of injection and the
//! answers for no match and many matches are the core's
//! ([`mnemo::Memory::recall`] and its neighbours); this file passes the
//! arguments, lends the embedding model ([`crate::embed`]) and prints.
//! Text changes (`update`, `forget`) are writes: staged while approval is
//! on, and asked about in a terminal ([`settle`]), like `add`.

use std::io::{self, Write};
use std::process::ExitCode;

use mnemo::api::RecallOptions;
use mnemo::memory::Recalled;
use mnemo::storage::run_ready;
use mnemo::{Memory, Result};
use serde_json::{json, Value};

use crate::commands::approval::settle;
use crate::commands::search::{interleave, label, to_json, warn_unread, with_scopes};
use crate::commands::store::report_tool_result;
use crate::embed;
use crate::flags::{EmbedArgs, RecallArgs, TargetArg};
use crate::input::arg_or_stdin;
use crate::paths::{Dir, Paths, Scope};
use crate::render::{self, out, pretty};

/// Opens the memory with the embedding model of `flags` or the config
/// lent to it, if any.
fn open_for_recall(paths: &Paths, flags: &EmbedArgs) -> Result<Memory<Dir>> {
    let (mut memory, source, section) = paths.open_with_embeddings()?;
    embed::lend(&mut memory, flags, section.as_ref(), &source)?;
    Ok(memory)
}

/// `mnemo recall`: the best entries for the query, with their metadata,
/// of every scope [`Paths::readers`] names (merged by adjusted score,
/// [`interleave`]).
pub fn recall(paths: &Paths, args: RecallArgs) -> Result<ExitCode> {
    let options = recall_options(&args)?;
    let mut parts: Vec<(Scope, Recalled)> = Vec::new();
    for (i, (scope, reader)) in paths.readers()?.into_iter().enumerate() {
        let recalled = open_for_recall(&reader, &args.embed).and_then(|mut memory| {
            let recalled = run_ready(memory.recall(&args.query, &options))??;
            save_accesses(&mut memory);
            Ok(recalled)
        });
        match (i, recalled) {
            (_, Ok(recalled)) => parts.push((scope, recalled)),
            (0, Err(e)) => return Err(e),
            (_, Err(e)) => warn_unread(scope, &e),
        }
    }
    let labelled = parts.len() > 1;
    let (recalled, scopes) = merge(parts, options.limit);
    if let Some(why) = &recalled.skipped {
        let _ = writeln!(io::stderr(), "note: {}", render::one_line(why, 600));
    }
    if args.json {
        let mut value = to_json(&recalled)?;
        if let Some(results) = value.get_mut("results") {
            *results = with_scopes(results.take(), &scopes);
        }
        out(&pretty(&value)?)?;
    } else if recalled.results.is_empty() {
        let _ = writeln!(
            io::stderr(),
            "nothing recalled for {:?} ({} recall{})",
            render::one_line(&args.query, 80),
            recalled.mode,
            match options.score_threshold {
                t if t > 0.0 => format!(", threshold {t}"),
                _ => String::new(),
            }
        );
    } else {
        let labels: Vec<String> = scopes.iter().map(|s| label(*s, labelled)).collect();
        out(&render::recall(
            &recalled,
            &args.query,
            args.explain,
            &labels,
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The recalls of several scopes as one: the results merged by adjusted
/// score, at most `limit`, with the scope of each; the first scope's mode,
/// and why any scope's hybrid could not run (a later scope's reason named
/// after it).
fn merge(parts: Vec<(Scope, Recalled)>, limit: usize) -> (Recalled, Vec<Scope>) {
    let mode = parts.first().map_or("keyword", |(_, r)| r.mode);
    let skipped: Vec<String> = parts
        .iter()
        .enumerate()
        .filter_map(|(i, (scope, r))| {
            let why = r.skipped.as_ref()?;
            Some(match i {
                0 => why.clone(),
                _ => format!("{} memories: {why}", scope.name()),
            })
        })
        .collect();
    let lists = parts
        .into_iter()
        .map(|(scope, r)| (scope, r.results))
        .collect();
    let (scopes, results) = interleave(lists, |h| h.relevance, limit)
        .into_iter()
        .unzip();
    (
        Recalled {
            results,
            mode,
            skipped: (!skipped.is_empty()).then(|| skipped.join("; ")),
        },
        scopes,
    )
}

/// Writes the accesses a recall counted. The core batches them with the
/// next write or session start; a command's process ends with the command,
/// so its session does too. Best effort: a read never fails for it.
fn save_accesses(memory: &mut Memory<Dir>) {
    let _ = run_ready(memory.start_session());
}

/// The flags as the core's recall options (the core checks them).
fn recall_options(args: &RecallArgs) -> Result<RecallOptions> {
    let mut options = serde_json::Map::new();
    let mut set = |key: &str, value: Option<Value>| {
        if let Some(value) = value {
            options.insert(key.to_string(), value);
        }
    };
    set("target", args.target.map(|t| json!(t.name())));
    set("limit", args.limit.map(|n| json!(n)));
    set("scoreThreshold", args.threshold.map(|x| json!(x)));
    set("minImportance", args.min_importance.map(|x| json!(x)));
    set("maxImportance", args.max_importance.map(|x| json!(x)));
    set("category", args.category.as_ref().map(|c| json!(c)));
    set("explain", Some(json!(args.explain)));
    RecallOptions::from_json(&Value::Object(options))
}

/// `mnemo inject`: the `## Relevant Memory` block for a prompt, if any.
pub fn inject(paths: &Paths, prompt: String, flags: &EmbedArgs) -> Result<ExitCode> {
    let prompt = arg_or_stdin(prompt)?;
    let mut memory = open_for_recall(paths, flags)?;
    let block = run_ready(memory.inject(&prompt))?;
    save_accesses(&mut memory);
    if block.is_empty() {
        let _ = writeln!(
            io::stderr(),
            "(nothing to inject: the memory holds no entry it may show)"
        );
    } else {
        out(&format!("{block}\n"))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `mnemo update`: a new text (and importance) for the entry QUERY selects.
pub fn update(
    paths: &Paths,
    query: &str,
    content: String,
    importance: Option<f64>,
    target: Option<TargetArg>,
) -> Result<ExitCode> {
    let content = arg_or_stdin(content)?;
    let (mut memory, _) = paths.open()?;
    let result = run_ready(memory.update_memory(
        query,
        &content,
        importance,
        target.map(TargetArg::target),
    ))?;
    report_tool_result(&settle(&mut memory, result)?)
}

/// `mnemo mark-important`: metadata only, applied at once.
pub fn mark_important(
    paths: &Paths,
    query: &str,
    importance: f64,
    all: bool,
    target: Option<TargetArg>,
) -> Result<ExitCode> {
    let (mut memory, _) = paths.open()?;
    let marked =
        run_ready(memory.mark_important(query, importance, all, target.map(TargetArg::target)))??;
    report_marked(&marked)
}

/// `mnemo pin`: metadata only, applied at once.
pub fn pin(paths: &Paths, query: &str, target: Option<TargetArg>) -> Result<ExitCode> {
    let (mut memory, _) = paths.open()?;
    let marked = run_ready(memory.pin(query, target.map(TargetArg::target)))??;
    report_marked(&marked)
}

/// `mnemo forget`: the entry (or entries, with `all`) into the history.
pub fn forget(
    paths: &Paths,
    query: &str,
    all: bool,
    target: Option<TargetArg>,
) -> Result<ExitCode> {
    let (mut memory, _) = paths.open()?;
    let result = run_ready(memory.forget(query, all, target.map(TargetArg::target)))?;
    report_tool_result(&settle(&mut memory, result)?)
}

/// The core's sentence and the entries it changed; an entry that already
/// had that importance or pin is not listed.
fn report_marked(marked: &mnemo::memory::Marked) -> Result<ExitCode> {
    let mut text = match marked.entries.len() {
        0 => "nothing changed: the entry already had that\n".to_string(),
        _ => format!("{}\n", marked.message),
    };
    for id in &marked.entries {
        text.push_str(&format!("  {id}\n"));
    }
    out(&text)?;
    Ok(ExitCode::SUCCESS)
}
