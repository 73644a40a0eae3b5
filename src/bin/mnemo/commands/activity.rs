//! The activity log: `mnemo log` reads a day of it, `mnemo note` adds a
//! note to today's.
//!
//! The log's days, records and attribution are the core's
//! ([`mnemo::Memory::read_log`], [`mnemo::Memory::log`]); this file checks
//! the day it is given before anything is opened, and prints.

use std::io::{self, Write};
use std::process::ExitCode;

use mnemo::storage::run_ready;
use mnemo::{Error, ErrorKind, Result};

use crate::input::arg_or_stdin;
use crate::paths::Paths;
use crate::render::{self, out, pretty};

/// `mnemo log [DATE]` and `mnemo log --days`.
pub fn log(paths: &Paths, date: Option<String>, days: bool, json: bool) -> Result<ExitCode> {
    if let Some(d) = &date {
        if mnemo::time::parse_date(d).is_none() {
            let shown: String = d.chars().take(40).collect();
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!("DATE takes a day as YYYY-MM-DD (UTC), got {shown:?}"),
            ));
        }
    }
    let (memory, _) = paths.open()?;
    if days {
        let days = run_ready(memory.log_days())??;
        if json {
            out(&pretty(&days)?)?;
        } else if days.is_empty() {
            let _ = writeln!(io::stderr(), "(no activity has been logged yet)");
        } else {
            out(&days.iter().map(|d| format!("{d}\n")).collect::<String>())?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let records = run_ready(memory.read_log(date.as_deref()))??;
    if json {
        out(&pretty(&records)?)?;
    } else if records.is_empty() {
        let day = date.unwrap_or_else(|| "today".to_string());
        let _ = writeln!(io::stderr(), "(no activity logged {day})");
    } else {
        out(&render::activity(&records))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `mnemo note TEXT`: a note of the agent named with `--agent` in today's
/// log.
pub fn note(paths: &Paths, text: String, json: bool) -> Result<ExitCode> {
    let text = arg_or_stdin(text)?;
    let (mut memory, _) = paths.open()?;
    let record = run_ready(memory.log(&text, None))??;
    if json {
        out(&pretty(&record)?)?;
    } else {
        out(&format!(
            "Noted in the activity log of {} at {}{}.\n",
            record.date,
            record.time,
            record
                .agent
                .as_deref()
                .map_or_else(String::new, |a| format!(" by {}", render::one_line(a, 64)))
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}
