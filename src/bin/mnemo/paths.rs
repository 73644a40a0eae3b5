//! Where the memories and the config live, and opening them.
//!
//! `$MNEMO_HOME` (default `~/.mnemo`), `--dir` and `--config` are resolved
//! here, and mnemo's keys of `config.yaml` become a [`mnemo::Config`]: the
//! `memory:` section, `display.memory_notifications` and
//! `auxiliary.background_review`. The top-level `embeddings:` section is the
//! CLI's own (the embedding model it lends the core, [`crate::embed`]): its
//! keys are read strictly here, its values checked where it is used. The
//! file is shared with other tools, so their keys beside these (other
//! `display:` and `auxiliary:` keys, other sections) are left alone. The
//! core's keys' rules are the core's: this module only finds them and hands
//! them over; it never checks a value itself.

use std::fs;
use std::io;
use std::path::PathBuf;

use mnemo::storage::run_ready;
use mnemo::storage::state::{directory, StateDb};
use mnemo::{Config, DirStorage, Error, ErrorKind, Memory, Result};

use crate::embed::Section;

/// A memories directory: the Markdown files and `state.db` beside them.
pub type Dir = StateDb<DirStorage>;
use serde_json::json;

/// Where the memories and the config come from.
pub struct Paths {
    dir: Option<PathBuf>,
    config: Option<PathBuf>,
    home: Option<PathBuf>,
    agent: Option<String>,
}

impl Paths {
    /// The paths of a command line: `--dir` and `--config` when given,
    /// otherwise under `$MNEMO_HOME`; `agent` names whose writes these are
    /// (`--agent`, `MNEMO_AGENT`).
    pub fn new(dir: Option<PathBuf>, config: Option<PathBuf>, agent: Option<String>) -> Paths {
        Paths {
            dir,
            config,
            home: mnemo_home(),
            agent,
        }
    }

    /// Opens the memory (with the agent named, if any), and says where its
    /// config came from.
    pub fn open(&self) -> Result<(Memory<Dir>, String)> {
        let (memory, source, _) = self.open_with_embeddings()?;
        Ok((memory, source))
    }

    /// Opens the memory as [`Paths::open`] does, with the config's
    /// `embeddings:` section when it has one (lent to the memory by
    /// [`crate::embed::lend`], not here).
    pub fn open_with_embeddings(&self) -> Result<(Memory<Dir>, String, Option<Section>)> {
        let (config, embeddings, source) = self.load_config()?;
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
        let mut memory = run_ready(Memory::open(storage, config))??;
        memory.set_agent(self.agent.as_deref())?;
        Ok((memory, source, embeddings))
    }

    /// The config in force, its `embeddings:` section, and a line saying
    /// where they came from.
    fn load_config(&self) -> Result<(Config, Option<Section>, String)> {
        let (path, explicit) = match (&self.config, &self.home) {
            (Some(path), _) => (path.clone(), true),
            (None, Some(home)) => (home.join("config.yaml"), false),
            (None, None) => {
                return Ok((
                    Config::default(),
                    None,
                    "defaults (no home directory)".into(),
                ))
            }
        };
        let invalid = |msg: String| Error::new(ErrorKind::InvalidConfig, msg);
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound && !explicit => {
                return Ok((
                    Config::default(),
                    None,
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
        let (config, embeddings) = config_from_yaml(&text)
            .map_err(|e| Error::new(e.kind(), format!("{}: {}", path.display(), e.message())))?;
        Ok((config, embeddings, path.display().to_string()))
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

/// Reads mnemo's keys of a YAML config: the `memory:` section,
/// `display.memory_notifications` and `auxiliary.background_review`, and
/// the CLI's `embeddings:` section, ignoring every other key (they belong
/// to other tools); the keys themselves are checked strictly, the core's
/// by the core.
fn config_from_yaml(text: &str) -> Result<(Config, Option<Section>)> {
    let invalid = |msg: String| Error::new(ErrorKind::InvalidConfig, msg);
    let mut doc: serde_yaml::Value =
        serde_yaml::from_str(text).map_err(|e| invalid(format!("not valid YAML: {e}")))?;
    doc.apply_merge()
        .map_err(|e| invalid(format!("not valid YAML: {e}")))?;
    let mut map = match doc {
        serde_yaml::Value::Null => return Ok((Config::default(), None)),
        serde_yaml::Value::Mapping(map) => map,
        _ => {
            return Err(invalid(
                "expected a mapping of sections (like `memory:`) at the top level".into(),
            ))
        }
    };
    let mut config = serde_json::Map::new();
    if let Some(section) = map.remove("memory").filter(|s| !s.is_null()) {
        config.insert("memory".into(), to_json("memory", section)?);
    }
    if let Some(mode) = pick(&mut map, "display", "memory_notifications") {
        // YAML 1.1 readers (PyYAML) load a bare `off`/`on` as a boolean;
        // a file written for them means the same here.
        let mode = match mode {
            serde_yaml::Value::Bool(on) => serde_yaml::Value::from(if on { "on" } else { "off" }),
            other => other,
        };
        config.insert(
            "display".into(),
            json!({"memory_notifications": to_json("display.memory_notifications", mode)?}),
        );
    }
    if let Some(review) = pick(&mut map, "auxiliary", "background_review") {
        config.insert(
            "auxiliary".into(),
            json!({"background_review": to_json("auxiliary.background_review", review)?}),
        );
    }
    let embeddings = match map.remove("embeddings").filter(|s| !s.is_null()) {
        None => None,
        Some(section) => Some(serde_yaml::from_value::<Section>(section).map_err(|e| {
            invalid(format!(
                "invalid config at embeddings: {e} (expected {{provider | base_url, model, \
                 dimensions, api_key_env?, timeout?}})"
            ))
        })?),
    };
    Ok((
        Config::from_json(&serde_json::Value::Object(config))?,
        embeddings,
    ))
}

/// The key `key` of the top-level section `section`, unless absent or
/// null. The section is shared with other tools: its other keys are not
/// looked at, and a section that is not a mapping holds no key of mnemo's.
fn pick(map: &mut serde_yaml::Mapping, section: &str, key: &str) -> Option<serde_yaml::Value> {
    match map.get_mut(section) {
        Some(serde_yaml::Value::Mapping(inner)) => inner.remove(key).filter(|v| !v.is_null()),
        _ => None,
    }
}

/// A YAML value as JSON, for the core's checks; `at` names it in errors.
fn to_json(at: &str, value: serde_yaml::Value) -> Result<serde_json::Value> {
    serde_json::to_value(&value).map_err(|e| {
        Error::new(
            ErrorKind::InvalidConfig,
            format!("invalid config at {at}: it cannot be read ({e})"),
        )
    })
}
