//! Reading the memory by meaning: `mnemo search` ranks notes against a
//! query, `mnemo context` prints the per-turn block an agent attaches to a
//! message.
//!
//! Ranking and the block's contents are the core's; this file only prints,
//! and, inside a project, merges the project's hits with the global
//! scope's ([`interleave`]).

use std::io::{self, Write};
use std::process::ExitCode;

use mnemo::api::SearchOptions;
use mnemo::storage::run_ready;
use mnemo::Memory;
use mnemo::{Error, ErrorKind, Result};
use serde_json::{json, Value};

use crate::flags::TargetArg;
use crate::input::arg_or_stdin;
use crate::paths::{Dir, Paths, Scope};
use crate::render::{out, pretty};

/// `mnemo search`: the best notes for `query`, of every scope
/// [`Paths::readers`] names.
pub fn search(
    paths: &Paths,
    query: &str,
    target: Option<TargetArg>,
    limit: Option<u64>,
    json: bool,
) -> Result<ExitCode> {
    let options = SearchOptions::new(target.map(|t| t.target()), limit)?;
    let mut lists = Vec::new();
    for (i, (scope, reader)) in paths.readers()?.into_iter().enumerate() {
        let opened = open_ranked(&reader);
        let mut memory = match (i, opened) {
            (_, Ok(memory)) => memory,
            (0, Err(e)) => return Err(e),
            (_, Err(e)) => {
                warn_unread(scope, &e);
                continue;
            }
        };
        lists.push((scope, run_ready(memory.search_ranked(query, &options))?));
    }
    let labelled = lists.len() > 1;
    let hits = interleave(lists, |h| h.score, options.limit());
    if json {
        let scopes: Vec<Scope> = hits.iter().map(|(s, _)| *s).collect();
        let hits: Vec<_> = hits.into_iter().map(|(_, h)| h).collect();
        out(&pretty(&with_scopes(to_json(&hits)?, &scopes))?)?;
    } else if hits.is_empty() {
        let _ = writeln!(io::stderr(), "no notes match {query:?}");
    } else {
        let mut text = String::new();
        for (scope, h) in &hits {
            text.push_str(&format!(
                "{}{} #{} ({:.2})\n",
                label(*scope, labelled),
                h.target,
                h.index,
                h.score
            ));
            for line in h.text.lines() {
                text.push_str(&format!("  {line}\n"));
            }
        }
        out(&text)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The memory of `paths` with the config's embedding model lent, so that
/// search and context rank by the hybrid as recall does (lending makes no
/// call); a section that cannot be used leaves them keyword-only, with a
/// warning.
fn open_ranked(paths: &Paths) -> Result<Memory<Dir>> {
    let (mut memory, source, section) = paths.open_with_embeddings()?;
    let lent = crate::embed::lend(
        &mut memory,
        &crate::flags::EmbedArgs::default(),
        section.as_ref(),
        &source,
    );
    if let Err(e) = lent {
        let _ = writeln!(
            io::stderr(),
            "warning: the config's embeddings section cannot be used ({}); ranking by keywords",
            e.message()
        );
    }
    Ok(memory)
}

/// The lists of hits of several scopes, each best first, as one list best
/// first: merged by `score` (the adjusted scores of every scope are on the
/// same absolute 0–1 scale), the earlier scope's hit first on a tie, so the
/// project's before the global's; at most `limit` hits in all.
pub fn interleave<T>(
    lists: Vec<(Scope, Vec<T>)>,
    score: impl Fn(&T) -> f64,
    limit: usize,
) -> Vec<(Scope, T)> {
    let mut lists: Vec<(Scope, std::iter::Peekable<std::vec::IntoIter<T>>)> = lists
        .into_iter()
        .map(|(scope, hits)| (scope, hits.into_iter().peekable()))
        .collect();
    let mut merged = Vec::new();
    while merged.len() < limit {
        let mut best: Option<(usize, f64)> = None;
        for (i, (_, hits)) in lists.iter_mut().enumerate() {
            if let Some(hit) = hits.peek() {
                let s = score(hit);
                if best.is_none_or(|(_, b)| s > b) {
                    best = Some((i, s));
                }
            }
        }
        let Some((i, _)) = best else { break };
        let (scope, hits) = &mut lists[i];
        merged.extend(hits.next().map(|hit| (*scope, hit)));
    }
    merged
}

/// `[project] ` or `[global] ` before a hit when hits of several scopes
/// are shown together; nothing otherwise.
pub fn label(scope: Scope, labelled: bool) -> String {
    if labelled {
        format!("[{}] ", scope.name())
    } else {
        String::new()
    }
}

/// Says on standard error that a second scope's memories could not be
/// read; the read goes on with the first's.
pub fn warn_unread(scope: Scope, e: &Error) {
    let _ = writeln!(
        io::stderr(),
        "warning: the {} memories were not read: error [{}]: {}",
        scope.name(),
        e.code(),
        e.message()
    );
}

/// `value` as JSON.
pub fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> Result<Value> {
    serde_json::to_value(value)
        .map_err(|e| Error::new(ErrorKind::Internal, format!("cannot encode JSON: {e}")))
}

/// A JSON array of hit objects, each with its `scope` added.
pub fn with_scopes(hits: Value, scopes: &[Scope]) -> Value {
    match hits {
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .zip(scopes)
                .map(|(hit, scope)| match hit {
                    Value::Object(mut fields) => {
                        fields.insert("scope".into(), json!(scope.name()));
                        Value::Object(fields)
                    }
                    other => other,
                })
                .collect(),
        ),
        other => other,
    }
}

/// `mnemo context`: the `<memory-context>` block for `message`, if any.
pub fn context(paths: &Paths, message: String) -> Result<ExitCode> {
    let message = arg_or_stdin(message)?;
    let readers = paths.readers()?;
    if readers.len() < 2 {
        let mut memory = open_ranked(paths)?;
        let block = run_ready(memory.context_ranked(&message))?;
        if !block.is_empty() {
            out(&format!("{block}\n"))?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    // A project read with the global scope: the project's notes first (its
    // stores beyond the prompt, as always), then the global scope's (none
    // of it is in a project's prompt), each labelled, within the project's
    // max_chars.
    let mut labelled: Vec<String> = Vec::new();
    let mut max_chars = 0;
    for (i, (scope, reader)) in readers.iter().enumerate() {
        let (mut memory, _) = match reader.open() {
            Ok(opened) => opened,
            Err(e) if i > 0 => {
                let _ = writeln!(
                    io::stderr(),
                    "warning: the {} scope could not be read: {}",
                    scope.name(),
                    e.message()
                );
                continue;
            }
            Err(e) => return Err(e),
        };
        if i == 0 {
            max_chars = memory.config().memory.recall.max_chars;
        }
        for note in memory.context_notes(&message, i > 0, max_chars) {
            labelled.push(format!("[{}] {note}", scope.name()));
        }
    }
    let notes = mnemo::recall::cap(labelled.iter().map(String::as_str), max_chars);
    let block = mnemo::recall::context_block(&notes);
    if !block.is_empty() {
        out(&format!("{block}\n"))?;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleaving_merges_by_score_with_ties_to_the_first_scope() {
        let merged = interleave(
            vec![
                (Scope::Project, vec![0.9, 0.5, 0.1]),
                (Scope::Global, vec![0.7, 0.5, 0.4]),
            ],
            |s| *s,
            5,
        );
        assert_eq!(
            merged,
            vec![
                (Scope::Project, 0.9),
                (Scope::Global, 0.7),
                (Scope::Project, 0.5),
                (Scope::Global, 0.5),
                (Scope::Global, 0.4),
            ]
        );
        assert!(interleave::<f64>(vec![], |s| *s, 3).is_empty());
        assert_eq!(
            interleave(vec![(Scope::Global, vec![1.0, 0.5])], |s| *s, 1),
            vec![(Scope::Global, 1.0)]
        );
    }

    #[test]
    fn each_hit_gets_its_scope() {
        let hits = json!([{"target": "memory", "index": 0}, {"index": 1}]);
        assert_eq!(
            with_scopes(hits, &[Scope::Global, Scope::Project]),
            json!([
                {"scope": "global", "target": "memory", "index": 0},
                {"scope": "project", "index": 1}
            ])
        );
    }
}
