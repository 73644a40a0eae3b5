//! `mnemo scan`: the security scanner that guards every memory write, run
//! on a file, a store or standard input.
//!
//! The verdicts are the core's ([`mnemo::scan::scan`]); this file reads the
//! input, prints the findings and turns "blocked" into the exit status. It
//! needs no memories directory.

use std::io;
use std::process::ExitCode;

use mnemo::{Error, ErrorKind, Result};

use crate::render::{out, pretty};

/// `mnemo scan FILE`: exits 0 when clean, 1 when blocked.
pub fn scan(file: &str, store: bool, json: bool) -> Result<ExitCode> {
    let bytes = if file == "-" {
        let mut buf = Vec::new();
        io::Read::read_to_end(&mut io::stdin(), &mut buf)
            .map_err(|e| Error::new(ErrorKind::Storage, format!("could not read stdin: {e}")))?;
        buf
    } else {
        std::fs::read(file)
            .map_err(|e| Error::new(ErrorKind::Storage, format!("could not read {file}: {e}")))?
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        Error::new(
            ErrorKind::InvalidText,
            format!(
                "{file} is not valid UTF-8 (first bad byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })?;
    // A file's leading BOM is an artefact of the file, not of its text.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text).to_string();
    let texts: Vec<String> = if store {
        mnemo::store::parse(&text)
    } else {
        vec![text]
    };
    let verdicts: Vec<mnemo::scan::Verdict> = texts.iter().map(|t| mnemo::scan::scan(t)).collect();
    let blocked = verdicts.iter().filter(|v| v.blocked).count();
    if json {
        let value = if store {
            serde_json::to_value(&verdicts)
        } else {
            serde_json::to_value(&verdicts[0])
        }
        .map_err(|e| Error::new(ErrorKind::Internal, e.to_string()))?;
        out(&pretty(&value)?)?;
    } else {
        let mut report = String::new();
        for (i, (t, v)) in texts.iter().zip(&verdicts).enumerate() {
            if !v.blocked {
                continue;
            }
            if store {
                report.push_str(&format!("entry {} (index {i}): blocked\n", i + 1));
            } else {
                report.push_str("blocked\n");
            }
            for f in &v.findings {
                let covered: String = t
                    .get(f.start..f.end)
                    .unwrap_or("")
                    .chars()
                    .take(80)
                    .collect();
                let covered = covered.escape_debug().to_string();
                match &f.code_point {
                    Some(cp) => report.push_str(&format!(
                        "  {} [{}] {cp} at bytes {}..{}\n",
                        f.id,
                        f.category.name(),
                        f.start,
                        f.end
                    )),
                    None => report.push_str(&format!(
                        "  {} [{}] bytes {}..{}: \"{covered}\"\n",
                        f.id,
                        f.category.name(),
                        f.start,
                        f.end
                    )),
                }
            }
            if v.truncated {
                report.push_str(&format!(
                    "  (only the first {} KiB were scanned)\n",
                    mnemo::scan::MAX_SCAN_BYTES / 1024
                ));
            }
        }
        if blocked == 0 {
            report.push_str(if store {
                "all entries are clean\n"
            } else {
                "clean\n"
            });
        } else if store {
            report.push_str(&format!("{blocked} of {} entries blocked\n", texts.len()));
        }
        out(&report)?;
    }
    Ok(if blocked == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
