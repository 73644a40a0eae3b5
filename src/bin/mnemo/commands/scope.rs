//! `mnemo init`: making a directory a project, with its own memories.
//!
//! Where the project's directories go, and what may not be one, is
//! [`crate::paths`]'s; this file only creates them and says what it did.

use std::fs;
use std::path::PathBuf;
use std::process::ExitCode;

use mnemo::{Error, ErrorKind, Result};
use serde_json::json;

use crate::paths::Paths;
use crate::render::{out, pretty};

/// `mnemo init [PATH]`: creates `PATH/.mnemo/memories` (or the workspace's
/// memories directory) unless it exists; running it again changes nothing.
pub fn init(paths: &Paths, path: Option<PathBuf>, json: bool) -> Result<ExitCode> {
    let location = paths.project_for(path.as_deref())?;
    let created = !location.dir.is_dir();
    if created {
        fs::create_dir_all(&location.dir).map_err(|e| {
            Error::new(
                ErrorKind::Storage,
                format!("cannot create {}: {e}", location.dir.display()),
            )
        })?;
    }
    // `project_for` always names the root of a project.
    let root = location.root.unwrap_or_default();
    let project = root.parent().unwrap_or(&root).to_path_buf();
    if json {
        out(&pretty(&json!({
            "project": project,
            "root": root,
            "dir": location.dir,
            "workspace": location.workspace,
            "created": created,
        }))?)?;
    } else if created {
        out(&format!(
            "Created {}: mnemo run in {} or below it now uses the project scope ({}).\n",
            location.dir.display(),
            project.display(),
            location.workspace.as_deref().map_or_else(
                || "default workspace".to_string(),
                |w| format!("workspace {w}")
            )
        ))?;
    } else {
        out(&format!(
            "{} already exists: {} is a project; nothing changed.\n",
            location.dir.display(),
            project.display()
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}
