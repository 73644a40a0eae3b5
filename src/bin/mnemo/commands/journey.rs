//! `mnemo journey`: every memory on a timeline, played as a star map
//! filling in (`--play`), and deleting or editing a memory by its node id.
//!
//! Edits and deletions go through the core ([`mnemo::Memory::edit_entry`]),
//! which scans and checks the new text like any write. The frames of
//! `--play` are drawn by [`render::play`]; this file times them and
//! [`crate::terminal`] owns the screen and Ctrl-C.

use std::io::{self, IsTerminal};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use mnemo::journey::{Journey, Kind};
use mnemo::storage::run_ready;
use mnemo::{Error, ErrorKind, Memory, Result, Target};

use crate::paths::Dir;

use crate::flags::JourneyAction;
use crate::input::{confirm_delete, edit_in_editor};
use crate::paths::Paths;
use crate::render::play::{Frames, Screen, MIN_HEIGHT, MIN_WIDTH};
use crate::render::{self, out, pretty, use_color, Style};
use crate::terminal::{self, FullScreen};

/// Frames a second of `--play` without `--fps`.
pub const FPS: u32 = 8;
/// How long `--play` holds its last frame before leaving the full screen
/// (and printing that frame where the shell goes on).
const HOLD: Duration = Duration::from_millis(1500);
/// Longest sleep between two looks for Ctrl-C.
const TICK: Duration = Duration::from_millis(10);
/// Width of the timeline without `--width`.
const TIMELINE_WIDTH: usize = 100;
/// Size of `--play` when standard output is not a terminal.
const PIPED_SIZE: (usize, usize) = (80, 24);

/// `--width` and `--height` as given.
#[derive(Clone, Copy, Debug, Default)]
pub struct Size {
    /// Columns.
    pub width: Option<usize>,
    /// Lines (`--play` only).
    pub height: Option<usize>,
}

/// `mnemo journey [list|delete|edit]`; `play` is `--play`'s frames a
/// second. `--json` wins over `--play`.
pub fn journey(
    paths: &Paths,
    action: Option<JourneyAction>,
    json: bool,
    no_color: bool,
    size: Size,
    play: Option<u32>,
) -> Result<ExitCode> {
    // The sectors report opens the memory itself.
    let action = match action {
        Some(JourneyAction::Sectors { name, json, limit }) => {
            let width = size.width.unwrap_or(80);
            return crate::commands::sectors::sectors(paths, name, json, limit, width, no_color);
        }
        other => other,
    };
    let (mut memory, _) = paths.open()?;
    match action {
        None => {
            let journey = memory.journey();
            if json {
                out(&pretty(&journey)?)?;
            } else if let Some(fps) = play {
                return self::play(&journey, fps, size, no_color);
            } else {
                out(&render::journey(
                    &journey,
                    Style {
                        width: size.width.unwrap_or(TIMELINE_WIDTH),
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
        Some(JourneyAction::Sectors { .. }) => Err(Error::new(
            ErrorKind::Internal,
            "journey sectors is answered before the memory opens",
        )),
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

/// `mnemo journey --play`: on a terminal, the frames full screen at `fps`,
/// the last one held and then left printed; 128 + the signal's number
/// when Ctrl-C (or SIGTERM) stops it. Not on a terminal: the last frame.
fn play(journey: &Journey, fps: u32, size: Size, no_color: bool) -> Result<ExitCode> {
    let tty = io::stdout().is_terminal();
    let (columns, lines) = if tty {
        terminal::size().unwrap_or(PIPED_SIZE)
    } else {
        PIPED_SIZE
    };
    let screen = Screen {
        width: size.width.unwrap_or(columns),
        height: size.height.unwrap_or(lines),
        color: use_color(no_color),
    };
    if screen.width < MIN_WIDTH || screen.height < MIN_HEIGHT {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!(
                "--play needs at least {MIN_WIDTH} columns and {MIN_HEIGHT} lines, not {}x{} \
                 (a bigger terminal, or --width and --height)",
                screen.width, screen.height
            ),
        ));
    }
    let frames = Frames::new(journey, screen);
    let last = frames.frame(frames.len() - 1);
    if !tty {
        out(&format!("{last}\n"))?;
        return Ok(ExitCode::SUCCESS);
    }
    terminal::catch_stop_signals();
    let interval = Duration::from_secs(1) / fps;
    let full = FullScreen::enter().map_err(drawing)?;
    let mut due = Instant::now();
    for k in 0..frames.len() {
        full.draw(&frames.frame(k)).map_err(drawing)?;
        due += if k + 1 == frames.len() {
            HOLD
        } else {
            interval
        };
        if let Some(signal) = wait_until(due) {
            drop(full);
            return Ok(ExitCode::from(
                u8::try_from(128 + signal).unwrap_or(u8::MAX),
            ));
        }
    }
    drop(full);
    // Left printed where the shell goes on: one line shorter when the
    // frames filled the terminal, so that its prompt does not scroll the
    // header away.
    let printed = if size.height.is_none() && screen.height > MIN_HEIGHT {
        let shorter = Frames::new(
            journey,
            Screen {
                height: screen.height - 1,
                ..screen
            },
        );
        shorter.frame(shorter.len() - 1)
    } else {
        last
    };
    out(&format!("{printed}\n"))?;
    Ok(ExitCode::SUCCESS)
}

/// Sleeps until `due`, or returns early with the signal that asked to
/// stop.
fn wait_until(due: Instant) -> Option<i32> {
    loop {
        if let Some(signal) = terminal::stopped_by() {
            return Some(signal);
        }
        let now = Instant::now();
        if now >= due {
            return None;
        }
        std::thread::sleep(TICK.min(due - now));
    }
}

/// A failed write to the terminal as mnemo's error.
fn drawing(e: io::Error) -> Error {
    Error::new(
        ErrorKind::Storage,
        format!("cannot draw on the terminal: {e}"),
    )
}
