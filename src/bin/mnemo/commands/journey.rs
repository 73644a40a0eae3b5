//! `mnemo journey`: every memory on a timeline, and deleting or editing a
//! memory by its node id.
//!
//! Edits and deletions go through the core ([`mnemo::Memory::edit_entry`]),
//! which scans and checks the new text like any write.

use std::process::ExitCode;

use mnemo::journey::Kind;
use mnemo::storage::run_ready;
use mnemo::{Error, ErrorKind, Memory, Result, Target};

use crate::paths::Dir;

use crate::flags::JourneyAction;
use crate::input::{confirm_delete, edit_in_editor};
use crate::paths::Paths;
use crate::render::{self, out, pretty, use_color, Style};

/// `mnemo journey [list|delete|edit]`.
pub fn journey(
    paths: &Paths,
    action: Option<JourneyAction>,
    json: bool,
    width: usize,
    no_color: bool,
) -> Result<ExitCode> {
    let (mut memory, _) = paths.open()?;
    match action {
        None => {
            let journey = memory.journey();
            if json {
                out(&pretty(&journey)?)?;
            } else {
                out(&render::journey(
                    &journey,
                    Style {
                        width,
                        color: use_color(no_color),
                    },
                ))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(JourneyAction::List) => {
            let mut text = String::new();
            for n in memory.journey().nodes {
                let glyph = match n.kind {
                    Kind::Note => "◆",
                    Kind::Skill => "✧",
                };
                text.push_str(&format!("{:<18} {glyph} {}\n", n.id, n.title));
            }
            out(&text)?;
            Ok(ExitCode::SUCCESS)
        }
        Some(JourneyAction::Sectors { name, json, limit }) => {
            drop(memory);
            crate::commands::sectors::sectors(paths, name, json, limit, width, no_color)
        }
        Some(JourneyAction::Delete { node, yes }) if !is_note_id(&node) => {
            archive(&mut memory, &node, yes)
        }
        Some(JourneyAction::Edit { node }) if !is_note_id(&node) => edit_skill(&mut memory, &node),
        Some(JourneyAction::Delete { node, yes }) => delete(&mut memory, &node, yes),
        Some(JourneyAction::Edit { node }) => edit(&mut memory, &node),
    }
}

/// Whether `node` names a note (`memory:…`) rather than a skill.
fn is_note_id(node: &str) -> bool {
    node.starts_with("memory:")
}

/// `mnemo journey delete SKILL`: archives the skill (restorable), asking
/// first unless `yes`.
fn archive(memory: &mut Memory<Dir>, name: &str, yes: bool) -> Result<ExitCode> {
    let (path, _) = run_ready(memory.skill_text(name))??;
    if !yes && !confirm_delete(&format!("Archive skill {name} ({path})? It can be restored with `mnemo skills restore {name}`.\n[y/N] ")) {
        return Ok(ExitCode::FAILURE);
    }
    let message = run_ready(memory.archive_skill(name))??;
    out(&format!("{message}\n"))?;
    Ok(ExitCode::SUCCESS)
}

/// `mnemo journey edit SKILL`: its SKILL.md in `$EDITOR`, saved through
/// the core (frontmatter checked, scanned).
fn edit_skill(memory: &mut Memory<Dir>, name: &str) -> Result<ExitCode> {
    let (_, text) = run_ready(memory.skill_text(name))??;
    let edited = edit_in_editor(&text)?;
    if edited == text || edited.trim() == text.trim() {
        out("no change\n")?;
        return Ok(ExitCode::SUCCESS);
    }
    let message = run_ready(memory.edit_skill(name, &edited))??;
    out(&format!("{message}\n"))?;
    Ok(ExitCode::SUCCESS)
}

/// `mnemo journey delete NODE`: asks first unless `yes`.
fn delete(memory: &mut Memory<Dir>, node: &str, yes: bool) -> Result<ExitCode> {
    let (target, index, entry) = node_entry(memory, node)?;
    if !yes {
        let shown = memory.store(target).shown(target, index).into_owned();
        if !confirm_delete(&format!("Delete {node}?\n{shown}\n[y/N] ")) {
            return Ok(ExitCode::FAILURE);
        }
    }
    // Delete what was shown, even if another writer moved it since.
    let now_at = memory.store(target).entries().get(index) == Some(&entry);
    if !now_at {
        return Err(Error::new(
            ErrorKind::NoMatch,
            format!("{node} changed while you were deciding; run `mnemo journey list` again"),
        ));
    }
    let message = run_ready(memory.edit_entry(target, index, None))??;
    out(&format!("{message} ({node})\n"))?;
    Ok(ExitCode::SUCCESS)
}

/// `mnemo journey edit NODE`: the entry in `$EDITOR`, saved through the core.
fn edit(memory: &mut Memory<Dir>, node: &str) -> Result<ExitCode> {
    let (target, index, entry) = node_entry(memory, node)?;
    let edited = edit_in_editor(&entry)?;
    if edited.trim() == entry.trim() {
        out("no change\n")?;
        return Ok(ExitCode::SUCCESS);
    }
    if edited.trim().is_empty() {
        return Err(Error::new(
            ErrorKind::Empty,
            format!("the edited text is empty; to delete it run `mnemo journey delete {node}`"),
        ));
    }
    let message = run_ready(memory.edit_entry(target, index, Some(&edited)))??;
    out(&format!("{message} ({node})\n"))?;
    Ok(ExitCode::SUCCESS)
}

/// The store, index and text of the entry a node id names.
fn node_entry(memory: &Memory<Dir>, node: &str) -> Result<(Target, usize, String)> {
    let (target, index) = memory.node(node)?;
    let entry = memory.store(target).entries()[index].clone();
    Ok((target, index, entry))
}
