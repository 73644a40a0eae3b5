//! `mnemo sectors`: the knowledge graph by area.
//!
//! The report is built by the core ([`mnemo::sectors::report`]); it is
//! drawn by [`crate::render::sectors`] or printed as JSON.

use std::process::ExitCode;

use mnemo::{Error, ErrorKind, Result};

use crate::paths::Paths;
use crate::render::{self, out, pretty, use_color, Style};

/// `mnemo sectors [NAME]`.
pub fn sectors(
    paths: &Paths,
    name: Option<String>,
    json: bool,
    limit: Option<u64>,
    width: usize,
    no_color: bool,
) -> Result<ExitCode> {
    let options = mnemo::api::SectorsOptions::new(name.clone(), limit)?;
    let (mut memory, _) = paths.open()?;
    let report = memory.sectors(&options);
    if let (Some(name), true) = (&name, report.sectors.is_empty()) {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!("no sector named {name:?}; `mnemo sectors` lists them"),
        ));
    }
    if json {
        out(&pretty(&report)?)?;
    } else {
        out(&render::sectors(
            &report,
            Style {
                width,
                color: use_color(no_color),
            },
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}
