//! Reading the memory by meaning: `mnemo search` ranks notes against a
//! query, `mnemo context` prints the per-turn block an agent attaches to a
//! message.
//!
//! Ranking and the block's contents are the core's; this file only prints.

use std::io::{self, Write};
use std::process::ExitCode;

use mnemo::api::SearchOptions;
use mnemo::Result;

use crate::flags::TargetArg;
use crate::input::arg_or_stdin;
use crate::paths::Paths;
use crate::render::{out, pretty};

/// `mnemo search`: the best notes for `query`.
pub fn search(
    paths: &Paths,
    query: &str,
    target: Option<TargetArg>,
    limit: Option<u64>,
    json: bool,
) -> Result<ExitCode> {
    let options = SearchOptions::new(target.map(|t| t.target()), limit)?;
    let (mut memory, _) = paths.open()?;
    let hits = memory.search(query, &options);
    if json {
        out(&pretty(&hits)?)?;
    } else if hits.is_empty() {
        let _ = writeln!(io::stderr(), "no notes match {query:?}");
    } else {
        let mut text = String::new();
        for h in &hits {
            text.push_str(&format!("{} #{} ({:.2})\n", h.target, h.index, h.score));
            for line in h.text.lines() {
                text.push_str(&format!("  {line}\n"));
            }
        }
        out(&text)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `mnemo context`: the `<memory-context>` block for `message`, if any.
pub fn context(paths: &Paths, message: String) -> Result<ExitCode> {
    let message = arg_or_stdin(message)?;
    let (mut memory, _) = paths.open()?;
    let block = memory.context(&message);
    if !block.is_empty() {
        out(&format!("{block}\n"))?;
    }
    Ok(ExitCode::SUCCESS)
}
