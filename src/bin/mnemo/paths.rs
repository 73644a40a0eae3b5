//! Where the memories and the config live, and opening them.
//!
//! `$MNEMO_HOME` (default `~/.mnemo`), `--dir` and `--config` are resolved
//! here, and the `memory:` section of `config.yaml` becomes a
//! [`mnemo::Config`]. The section's rules are the core's: this module only
//! finds the file and hands the section over; it never checks a key itself.

use std::fs;
use std::io;
use std::path::PathBuf;

use mnemo::storage::run_ready;
use mnemo::storage::state::{directory, StateDb};
use mnemo::{Config, DirStorage, Error, ErrorKind, Memory, Result};

/// A memories directory: the Markdown files and `state.db` beside them.
pub type Dir = StateDb<DirStorage>;
use serde_json::json;

/// Where the memories and the config come from.
pub struct Paths {
    dir: Option<PathBuf>,
    config: Option<PathBuf>,
    home: Option<PathBuf>,
}

impl Paths {
    /// The paths of a command line: `--dir` and `--config` when given,
    /// otherwise under `$MNEMO_HOME`.
    pub fn new(dir: Option<PathBuf>, config: Option<PathBuf>) -> Paths {
        Paths {
            dir,
            config,
            home: mnemo_home(),
        }
    }

    /// Opens the memory, and says where its config came from.
    pub fn open(&self) -> Result<(Memory<Dir>, String)> {
        let (config, source) = self.load_config()?;
        let dir = match (&self.dir, &self.home) {
            (Some(dir), _) => dir.clone(),
            (None, Some(home)) => home.join("memories"),
            (None, None) => {
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    "cannot find your home directory; set MNEMO_HOME or pass --dir DIR",
                ))
            }
        };
        let storage = directory(dir)?;
        let memory = run_ready(Memory::open(storage, config))??;
        Ok((memory, source))
    }

    /// The config in force and a line saying where it came from.
    fn load_config(&self) -> Result<(Config, String)> {
        let (path, explicit) = match (&self.config, &self.home) {
            (Some(path), _) => (path.clone(), true),
            (None, Some(home)) => (home.join("config.yaml"), false),
            (None, None) => return Ok((Config::default(), "defaults (no home directory)".into())),
        };
        let invalid = |msg: String| Error::new(ErrorKind::InvalidConfig, msg);
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound && !explicit => {
                return Ok((
                    Config::default(),
                    format!("{} (not found; using defaults)", path.display()),
                ))
            }
            Err(e) => {
                return Err(invalid(format!(
                    "cannot read the config file {}: {e}",
                    path.display()
                )))
            }
        };
        let text = String::from_utf8(bytes).map_err(|e| {
            invalid(format!(
                "the config file {} is not valid UTF-8 (first bad byte at offset {})",
                path.display(),
                e.utf8_error().valid_up_to()
            ))
        })?;
        let config = config_from_yaml(&text)
            .map_err(|e| Error::new(e.kind(), format!("{}: {}", path.display(), e.message())))?;
        Ok((config, path.display().to_string()))
    }
}

/// `$MNEMO_HOME`, else `~/.mnemo`; `None` when there is no home directory.
fn mnemo_home() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(home) = var("MNEMO_HOME") {
        return Some(PathBuf::from(home));
    }
    var("HOME")
        .or_else(|| var("USERPROFILE"))
        .map(|home| PathBuf::from(home).join(".mnemo"))
}

/// Reads the `memory:` section of a YAML config, ignoring the sections of
/// other tools; the section itself is checked strictly by the core.
fn config_from_yaml(text: &str) -> Result<Config> {
    let invalid = |msg: String| Error::new(ErrorKind::InvalidConfig, msg);
    let mut doc: serde_yaml::Value =
        serde_yaml::from_str(text).map_err(|e| invalid(format!("not valid YAML: {e}")))?;
    doc.apply_merge()
        .map_err(|e| invalid(format!("not valid YAML: {e}")))?;
    let section = match doc {
        serde_yaml::Value::Null => None,
        serde_yaml::Value::Mapping(mut map) => map.remove("memory"),
        _ => {
            return Err(invalid(
                "expected a mapping of sections (like `memory:`) at the top level".into(),
            ))
        }
    };
    let section = match section {
        None | Some(serde_yaml::Value::Null) => return Ok(Config::default()),
        Some(section) => section,
    };
    let section = serde_json::to_value(&section)
        .map_err(|e| invalid(format!("the memory: section cannot be read: {e}")))?;
    Config::from_json(&json!({ "memory": section }))
}
