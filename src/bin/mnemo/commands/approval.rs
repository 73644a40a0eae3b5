//! Write approval from the command line: `pending`, `approve`, `reject`,
//! `approval`, and the question a write asks in a terminal while approval
//! is on ([`settle`]).
//!
//! The queue, its checks and the override belong to the core
//! ([`mnemo::approval`]); approving inline is the core's stage-then-approve,
//! so a write said yes to at the terminal passes the same checks as one
//! approved later. Nothing here applies a write by itself.

use std::io::{self, Write};
use std::process::ExitCode;

use mnemo::approval::{Queue, Which};
use mnemo::storage::run_ready;
use mnemo::{Error, ErrorKind, Memory, Result, Target, ToolResult};

use crate::flags::Switch;
use crate::input::{arg_or_stdin, ask, edit_in_editor, interactive};
use crate::paths::{Dir, Paths};
use crate::render::{self, out, pretty};

/// `mnemo pending`: the staged writes, oldest first, and a count line.
pub fn pending(paths: &Paths, json: bool) -> Result<ExitCode> {
    let (mut memory, _) = paths.open()?;
    let items = run_ready(memory.pending())??;
    if json {
        out(&pretty(&items)?)?;
    } else {
        let status = memory.approval_status();
        out(&render::pending(&items, &status, render::now_ms()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `mnemo approve ID|all [--edit | --content TEXT]`: exits 1 when a write
/// could not be applied (it stays pending as `needs_review`).
pub fn approve(
    paths: &Paths,
    which: String,
    edit: bool,
    content: Option<String>,
    json: bool,
) -> Result<ExitCode> {
    let which = Which::parse(&which)?;
    let (mut memory, _) = paths.open()?;
    let content = match (edit, content) {
        (true, _) => edited(&mut memory, &which)?,
        (false, Some(text)) => Some(arg_or_stdin(text)?),
        (false, None) => None,
    };
    if which == Which::All && memory.approval_status().pending == 0 {
        if json {
            out(&pretty(&mnemo::approval::Approved::default())?)?;
        } else {
            out("nothing is waiting for approval\n")?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let report = run_ready(memory.approve(&which, content.as_deref()))??;
    if json {
        out(&pretty(&report)?)?;
    } else {
        let mut text = String::new();
        for (id, message) in report.applied.iter().zip(&report.messages) {
            text.push_str(&format!("approved {id}: {message}\n"));
        }
        let mut problems = String::new();
        for f in &report.failed {
            problems.push_str(&format!(
                "{} not applied [{}]: {}\n  it stays pending as needs_review: `mnemo reject {0}` \
                 drops it; `mnemo approve {0} --edit` changes the text of an add or replace\n",
                f.id,
                f.code.code(),
                render::clean(&f.reason)
            ));
        }
        if let Some(line) = &report.notification {
            problems.push_str(line);
            problems.push('\n');
        }
        text.push_str(&render::still_pending(report.pending, true));
        let _ = io::stderr().write_all(problems.as_bytes());
        out(&text)?;
    }
    Ok(if report.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The text of the one staged add or replace `which` names, edited in
/// `$VISUAL` / `$EDITOR`; `None` when it was saved unchanged.
fn edited(memory: &mut Memory<Dir>, which: &Which) -> Result<Option<String>> {
    let Which::One(id) = which else {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            "--edit is for one staged add or replace, not for `all`",
        ));
    };
    let queue = Queue {
        items: run_ready(memory.pending())??,
        ..Queue::default()
    };
    let item = &queue.items[queue.position(id)?];
    let text = item
        .operations
        .first()
        .and_then(|op| op.content.clone())
        .unwrap_or_default();
    // The core says whether this write can be edited, before the editor
    // opens for nothing.
    item.call(Some(&text))?;
    let new = edit_in_editor(&text)?;
    if new.trim() == text.trim() {
        let _ = writeln!(io::stderr(), "no change; approving {} as staged", item.id);
        return Ok(None);
    }
    if new.trim().is_empty() {
        return Err(Error::new(
            ErrorKind::Empty,
            format!(
                "the edited text is empty; nothing was approved (to drop the write run `mnemo \
                 reject {}`)",
                item.id
            ),
        ));
    }
    Ok(Some(new))
}

/// `mnemo reject ID|all`: the texts go to the history.
pub fn reject(paths: &Paths, which: String, json: bool) -> Result<ExitCode> {
    let which = Which::parse(&which)?;
    let (mut memory, _) = paths.open()?;
    let report = run_ready(memory.reject(&which))??;
    if json {
        out(&pretty(&report)?)?;
    } else if report.rejected.is_empty() {
        out("nothing is waiting for approval\n")?;
    } else {
        out(&format!(
            "rejected {} (nothing was saved; the texts are kept in `mnemo history`)\n{}",
            report.rejected.join(", "),
            render::still_pending(report.pending, true)
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `mnemo approval [on|off]`: sets the override, or shows what is in force
/// and why.
pub fn approval(paths: &Paths, state: Option<Switch>, json: bool) -> Result<ExitCode> {
    let (mut memory, config_source) = paths.open()?;
    let status = match state {
        Some(switch) => run_ready(memory.set_approval(switch == Switch::On))??,
        None => memory.approval_status(),
    };
    if json {
        out(&pretty(&status)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let configured = memory.config().memory.write_approval;
    let dir = memory.storage().files().dir().to_path_buf();
    let source = if status.source == "override" {
        format!(
            "override set with `mnemo approval on|off`, kept with the memories in {} (the \
             config says {})",
            dir.display(),
            on_off(configured)
        )
    } else {
        format!("memory.write_approval in {config_source}")
    };
    out(&format!(
        "write approval: {}\nsource: {source}\n{}",
        on_off(status.enabled),
        render::still_pending(status.pending, false)
    ))?;
    Ok(ExitCode::SUCCESS)
}

fn on_off(on: bool) -> &'static str {
    if on {
        "on"
    } else {
        "off"
    }
}

/// What a write from the command line ends as. A staged write, when a
/// person is at the terminal (standard input and standard error are
/// terminals), is shown in full with its target and `Save this to memory?
/// [y/N]` is asked: yes approves it through the core (every check runs
/// again), anything else leaves it staged. Without a terminal it stays
/// staged. Every other result passes through unchanged.
pub fn settle(memory: &mut Memory<Dir>, result: ToolResult) -> Result<ToolResult> {
    let (Some(true), Some(id)) = (result.staged, result.pending_id.clone()) else {
        return Ok(result);
    };
    if !interactive() {
        return Ok(result);
    }
    let items = run_ready(memory.pending())??;
    let Some(item) = items.iter().find(|s| s.id == id) else {
        return Ok(result);
    };
    let shown = render::staged_write(item, |target, old_text| {
        current_entry(memory.store(target), target, old_text)
    });
    let _ = io::stderr().write_all(shown.as_bytes());
    if !ask("Save this to memory? [y/N] ") {
        let _ = writeln!(io::stderr(), "not saved; {id} stays staged");
        return Ok(result);
    }
    let report = run_ready(memory.approve(&Which::One(id.clone()), None))??;
    if report.applied.contains(&id) {
        let target = result.target.unwrap_or(Target::Memory);
        let mut done = ToolResult::ok(
            report.messages.join(" "),
            Some(target),
            Some(memory.store(target)),
            memory.config().storage_limit(target),
        );
        done.notification = report.notification;
        done.skipped = result.skipped;
        return Ok(done);
    }
    match report.failed.into_iter().find(|f| f.id == id) {
        Some(failed) => {
            let mut refused = result;
            refused.success = false;
            refused.message = None;
            refused.notification = None;
            refused.error = Some(format!(
                "{} ({id} stays pending as needs_review)",
                failed.reason
            ));
            refused.code = Some(failed.code);
            Ok(refused)
        }
        // Approved or rejected by another process meanwhile.
        None => Ok(result),
    }
}

/// The entry `old_text` names in `store`, as shown to people (blocked
/// entries as their placeholder), when exactly one matches: an entry equal
/// to it, else the one entry containing it.
fn current_entry(store: &mnemo::Store, target: Target, old_text: &str) -> Option<String> {
    let entries = store.entries();
    let exact: Vec<usize> = (0..entries.len())
        .filter(|&i| entries[i] == old_text)
        .collect();
    let found: Vec<usize> = if exact.is_empty() {
        (0..entries.len())
            .filter(|&i| entries[i].contains(old_text))
            .collect()
    } else {
        exact
    };
    match found.as_slice() {
        [i] => Some(store.shown(target, *i).into_owned()),
        _ => None,
    }
}
