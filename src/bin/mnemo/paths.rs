//! Where the memories and the config live, and opening them.
//!
//! The scope is decided here. `--dir` names a memories directory outright
//! (scope `dir`). Otherwise the memories are a scope's: the project's,
//! `<project>/.mnemo/memories`, when a `.mnemo/` directory is found in the
//! working directory or above it (the nearest wins, as git finds `.git`;
//! `mnemo init` makes one), else the global scope's,
//! `$MNEMO_HOME/memories` (`$MNEMO_HOME` defaults to `~/.mnemo`).
//! `--scope global|project` (`MNEMO_SCOPE`) forces one; `--workspace NAME`
//! (`MNEMO_WORKSPACE`) picks `<scope root>/workspaces/NAME/memories`
//! instead of the scope's default memories. Writes go to the one directory
//! this resolves to; only reads ranked across scopes ([`Paths::readers`])
//! look at a second one.
//!
//! The config is `--config`, else the project's `.mnemo/config.yaml` when
//! it exists, else `$MNEMO_HOME/config.yaml`; mnemo's keys of it become a
//! [`mnemo::Config`]: the `memory:` and `curation:` sections,
//! `display.memory_notifications` and `auxiliary.background_review`. The top-level `embeddings:` section
//! is the CLI's own (the embedding model it lends the core,
//! [`crate::embed`]): its keys are read strictly here, its values checked
//! where it is used. The file is shared with other tools, so their keys
//! beside these (other `display:` and `auxiliary:` keys, other sections)
//! are left alone. The core's keys' rules are the core's: this module only
//! finds them and hands them over; it never checks a value itself.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use mnemo::storage::run_ready;
use mnemo::storage::state::{directory, StateDb};
use mnemo::{Config, DirStorage, Error, ErrorKind, Memory, Result};

use crate::embed::Section;
use crate::flags::ScopeArg;

/// A memories directory: the Markdown files and `state.db` beside them.
pub type Dir = StateDb<DirStorage>;
use serde_json::json;

/// The directory that marks a project, and holds its scope.
pub const PROJECT_DIR: &str = ".mnemo";

/// Whose memories a command reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// `$MNEMO_HOME`'s.
    Global,
    /// A project's `.mnemo/`.
    Project,
    /// The directory `--dir` names.
    Dir,
}

impl Scope {
    /// `global`, `project` or `dir`, as printed and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Global => "global",
            Scope::Project => "project",
            Scope::Dir => "dir",
        }
    }
}

/// Where a command line's memories are, once the scope is decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The scope in force.
    pub scope: Scope,
    /// The scope's root: `$MNEMO_HOME` or `<project>/.mnemo`; none for
    /// `--dir`.
    pub root: Option<PathBuf>,
    /// The named workspace; none for the default one (and for `--dir`).
    pub workspace: Option<String>,
    /// The memories directory.
    pub dir: PathBuf,
    /// Whether the project was found by looking upwards rather than asked
    /// for with `--scope project`: only then do reads take in the global
    /// scope too.
    pub found: bool,
}

/// Where the memories and the config come from: the command line's
/// `--dir`, `--config`, `--scope`, `--workspace` and `--agent`, the
/// environment and the working directory.
#[derive(Clone, Debug)]
pub struct Paths {
    dir: Option<PathBuf>,
    config: Option<PathBuf>,
    home: Option<PathBuf>,
    agent: Option<String>,
    scope: Option<ScopeArg>,
    workspace: Option<String>,
    cwd: Option<PathBuf>,
}

impl Paths {
    /// The paths of a command line: `--dir` and `--config` when given,
    /// otherwise the scope's (see the module docs); `agent` names whose
    /// writes these are (`--agent`, `MNEMO_AGENT`). Nothing is looked up
    /// or checked yet: commands that never open the memory (`scan`,
    /// `schema`) must not fail on a scope they do not use.
    pub fn new(
        dir: Option<PathBuf>,
        config: Option<PathBuf>,
        agent: Option<String>,
        scope: Option<ScopeArg>,
        workspace: Option<String>,
    ) -> Paths {
        Paths {
            dir,
            config,
            home: mnemo_home(),
            agent,
            scope,
            workspace,
            cwd: std::env::current_dir().ok(),
        }
    }

    /// Decides the scope, the workspace and the memories directory.
    /// Creates nothing: a bad workspace name or a missing project is
    /// refused before any directory is made.
    pub fn locate(&self) -> Result<Location> {
        if let Some(dir) = &self.dir {
            return Ok(Location {
                scope: Scope::Dir,
                root: None,
                workspace: None,
                dir: dir.clone(),
                found: false,
            });
        }
        let workspace = self.workspace.as_deref().map(workspace_name).transpose()?;
        let (scope, root, found) = match self.scope {
            Some(ScopeArg::Global) => (Scope::Global, self.global_root()?, false),
            Some(ScopeArg::Project) => match self.find_project() {
                Some(root) => (Scope::Project, root, false),
                None => return Err(self.no_project()),
            },
            None => match self.find_project() {
                Some(root) => (Scope::Project, root, true),
                None => (Scope::Global, self.global_root()?, false),
            },
        };
        if scope == Scope::Project {
            project_links(&root, workspace.as_deref())?;
        }
        Ok(Location {
            scope,
            dir: memories_of(&root, workspace.as_deref()),
            root: Some(root),
            workspace,
            found,
        })
    }

    /// The memories a read ranked across scopes takes in, first the one
    /// this command line resolves to; then, when that is a project found
    /// by looking upwards (not `--scope project`, not `--dir`), the global
    /// scope's memories of the same workspace, if that directory exists.
    pub fn readers(&self) -> Result<Vec<(Scope, Paths)>> {
        let here = self.locate()?;
        let mut readers = vec![(here.scope, self.clone())];
        if here.scope == Scope::Project && here.found {
            if let Some(global) = self.global_paths(here.workspace.as_deref()) {
                readers.push((Scope::Global, global));
            }
        }
        Ok(readers)
    }

    /// The global scope's paths for reads alongside a project, when its
    /// memories directory exists: same `--config`, agent and workspace.
    fn global_paths(&self, workspace: Option<&str>) -> Option<Paths> {
        let home = self.home.as_ref()?;
        memories_of(home, workspace).is_dir().then(|| Paths {
            scope: Some(ScopeArg::Global),
            ..self.clone()
        })
    }

    /// Where `mnemo init` puts a project for `path` (the working directory
    /// when none): `<path>/.mnemo` and the memories directory of the
    /// workspace asked for. `path` must be an existing directory, and its
    /// `.mnemo` must not be the global scope's own `$MNEMO_HOME`.
    pub fn project_for(&self, path: Option<&Path>) -> Result<Location> {
        if self.dir.is_some() {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                "`mnemo init` makes a project's .mnemo/ directory; --dir names a memories \
                 directory itself and has no place here (a --dir is made when first used)",
            ));
        }
        let workspace = self.workspace.as_deref().map(workspace_name).transpose()?;
        let path = match path {
            Some(path) => path.to_path_buf(),
            None => self.cwd.clone().ok_or_else(|| {
                Error::new(
                    ErrorKind::Storage,
                    "cannot read the working directory; name the project: mnemo init PATH",
                )
            })?,
        };
        let path = fs::canonicalize(&path)
            .ok()
            .filter(|p| p.is_dir())
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidInput,
                    format!(
                        "{} is not an existing directory; `mnemo init PATH` makes PATH a project",
                        path.display()
                    ),
                )
            })?;
        let root = path.join(PROJECT_DIR);
        if self.is_global_home(&root) {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!(
                    "{} is the global scope's home ($MNEMO_HOME or ~/.mnemo), so it cannot \
                     also be a project; run `mnemo init` in the project's own directory",
                    root.display()
                ),
            ));
        }
        Ok(Location {
            scope: Scope::Project,
            dir: memories_of(&root, workspace.as_deref()),
            root: Some(root),
            workspace,
            found: false,
        })
    }

    /// The error of `--scope project` where no project is found.
    fn no_project(&self) -> Error {
        let cwd = self.cwd.as_deref().map_or_else(
            || "the working directory".into(),
            |d| d.display().to_string(),
        );
        Error::new(
            ErrorKind::InvalidInput,
            format!(
                "--scope project (or MNEMO_SCOPE=project): no {PROJECT_DIR} directory in {cwd} \
                 or above it; `mnemo init` makes the current directory a project, or use \
                 --scope global"
            ),
        )
    }

    /// `$MNEMO_HOME` (default `~/.mnemo`), or why there is none.
    fn global_root(&self) -> Result<PathBuf> {
        self.home.clone().ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidInput,
                "cannot find your home directory; set MNEMO_HOME or pass --dir DIR",
            )
        })
    }

    /// The nearest `.mnemo/` directory in the working directory or above
    /// it that is not the global home.
    fn find_project(&self) -> Option<PathBuf> {
        let cwd = self.cwd.as_ref()?;
        cwd.ancestors()
            .map(|dir| dir.join(PROJECT_DIR))
            .find(|candidate| candidate.is_dir() && !self.is_global_home(candidate))
    }

    /// Whether `dir` is the global scope's home: `$MNEMO_HOME`, or
    /// `~/.mnemo`, the default one (a home moved elsewhere with
    /// `MNEMO_HOME` still leaves `~/.mnemo` a home, never a project of
    /// everything under `~`).
    fn is_global_home(&self, dir: &Path) -> bool {
        let same = |home: &Path| {
            home == dir
                || matches!(
                    (fs::canonicalize(home), fs::canonicalize(dir)),
                    (Ok(a), Ok(b)) if a == b
                )
        };
        self.home.as_deref().is_some_and(same) || default_home().as_deref().is_some_and(same)
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
        let location = self.locate()?;
        let (config, embeddings, source) = self.load_config(&location)?;
        let storage = directory(location.dir)?;
        let mut memory = run_ready(Memory::open(storage, config))??;
        memory.set_agent(self.agent.as_deref())?;
        Ok((memory, source, embeddings))
    }

    /// The config file for `location`: `--config`, else the project's
    /// `config.yaml` when it has one, else the global one; whether it must
    /// exist (only `--config`'s must), and whether it is a project's (a
    /// file that came with the project's sources, not the user's own);
    /// none without a home directory.
    fn config_path(&self, location: &Location) -> Option<(PathBuf, bool, bool)> {
        if let Some(path) = &self.config {
            return Some((path.clone(), true, false));
        }
        if let (Scope::Project, Some(root)) = (location.scope, &location.root) {
            let path = root.join("config.yaml");
            if path.is_file() {
                return Some((path, false, true));
            }
        }
        self.home
            .as_ref()
            .map(|home| (home.join("config.yaml"), false, false))
    }

    /// The config in force at `location`, its `embeddings:` section, and a
    /// line saying where they came from.
    fn load_config(&self, location: &Location) -> Result<(Config, Option<Section>, String)> {
        let Some((path, explicit, project)) = self.config_path(location) else {
            return Ok((
                Config::default(),
                None,
                "defaults (no home directory)".into(),
            ));
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
        let (config, embeddings) = config_from_yaml(&text, project)
            .map_err(|e| Error::new(e.kind(), format!("{}: {}", path.display(), e.message())))?;
        Ok((config, embeddings, path.display().to_string()))
    }
}

/// A non-empty environment variable.
fn var(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// `$MNEMO_HOME`, else `~/.mnemo`; `None` when there is no home directory.
fn mnemo_home() -> Option<PathBuf> {
    var("MNEMO_HOME").map(PathBuf::from).or_else(default_home)
}

/// `~/.mnemo`, the global home when `MNEMO_HOME` is not set.
fn default_home() -> Option<PathBuf> {
    var("HOME")
        .or_else(|| var("USERPROFILE"))
        .map(|home| PathBuf::from(home).join(PROJECT_DIR))
}

/// The memories directory of `workspace` (the default one when none) in
/// the scope rooted at `root`.
fn memories_of(root: &Path, workspace: Option<&str>) -> PathBuf {
    match workspace {
        None => root.join("memories"),
        Some(name) => root.join("workspaces").join(name).join("memories"),
    }
}

/// Refuses a project whose folders under `.mnemo/` are links. A project's
/// `.mnemo/` comes with its sources (a cloned repository), and a link there
/// would send its memories and skills anywhere: into the user's global
/// memories, or a skills tree walked and written over a home directory. (The
/// storage follows no link below these folders; the global scope's may be
/// links, the user's own choice.)
fn project_links(root: &Path, workspace: Option<&str>) -> Result<()> {
    let parts: Vec<PathBuf> = match workspace {
        None => vec![root.join("memories"), root.join("skills")],
        Some(name) => {
            let ws = root.join("workspaces").join(name);
            vec![
                root.join("workspaces"),
                ws.clone(),
                ws.join("memories"),
                ws.join("skills"),
            ]
        }
    };
    for part in parts {
        if fs::symlink_metadata(&part).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(Error::new(
                ErrorKind::Storage,
                format!(
                    "{} is a symbolic link: a project's memories and skills live in its own \
                     .mnemo folder, and mnemo follows no link there (one could point at any \
                     folder, which would be read and written); replace it with the folder itself",
                    part.display()
                ),
            ));
        }
    }
    Ok(())
}

/// `name` when it can name a workspace (the core's rule,
/// [`mnemo::api::check_workspace`]), the error saying where it came from.
fn workspace_name(name: &str) -> Result<String> {
    mnemo::api::check_workspace(name).map_err(|e| {
        Error::new(
            e.kind(),
            format!("{} (--workspace or MNEMO_WORKSPACE)", e.message()),
        )
    })?;
    Ok(name.to_string())
}

/// Reads mnemo's keys of a YAML config: the `memory:` and `curation:`
/// sections, `display.memory_notifications` and
/// `auxiliary.background_review`, and
/// the CLI's `embeddings:` section, ignoring every other key (they belong
/// to other tools); the keys themselves are checked strictly, the core's
/// by the core. A `project`'s file may not name where mnemo connects or
/// which key it sends ([`ENDPOINT_KEYS`]).
fn config_from_yaml(text: &str, project: bool) -> Result<(Config, Option<Section>)> {
    let invalid = |msg: String| Error::new(ErrorKind::InvalidConfig, msg);
    // The YAML reader refuses nesting past its limit, but only after a
    // scan whose cost grows with the square of the brackets still open: a
    // file of a few hundred KB of `[` would take a minute. No config nests
    // anywhere near this deep.
    let mut depth = 0usize;
    for b in text.bytes() {
        match b {
            b'[' | b'{' => depth += 1,
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth > MAX_FLOW_DEPTH {
            return Err(invalid(format!(
                "not valid YAML: brackets nested deeper than {MAX_FLOW_DEPTH}"
            )));
        }
    }
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
    if project {
        refuse_endpoints(&map)?;
    }
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
    if let Some(section) = map.remove("curation").filter(|s| !s.is_null()) {
        config.insert("curation".into(), to_json("curation", section)?);
    }
    if let Some(approval) = pick(&mut map, "skills", "write_approval") {
        config.insert(
            "skills".into(),
            json!({"write_approval": to_json("skills.write_approval", approval)?}),
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

/// The keys that say where mnemo connects and which API key it sends
/// there, by section. A project's `.mnemo/config.yaml` comes with the
/// project's sources (a cloned repository), so whoever wrote it could
/// otherwise point the review's or the embeddings' endpoint at a server of
/// theirs and receive the user's API key and memories (the global scope's
/// too: reads in a project take them in); these keys are read only from
/// the user's own config (`$MNEMO_HOME/config.yaml`, `--config`) and the
/// flags.
const ENDPOINT_KEYS: [(&[&str], [&str; 3]); 2] = [
    (&["embeddings"], ["base_url", "provider", "api_key_env"]),
    (
        &["auxiliary", "background_review"],
        ["base_url", "provider", "api_key_env"],
    ),
];

/// The deepest nesting of `[` and `{` a config may have (counted in the
/// raw text, quoted or not).
const MAX_FLOW_DEPTH: usize = 64;

/// Refuses a project config that sets any of [`ENDPOINT_KEYS`].
fn refuse_endpoints(map: &serde_yaml::Mapping) -> Result<()> {
    for (path, keys) in ENDPOINT_KEYS {
        let mut section = Some(map);
        for name in path {
            section = section
                .and_then(|m| m.get(*name))
                .and_then(serde_yaml::Value::as_mapping);
        }
        let Some(section) = section else { continue };
        if let Some(key) = keys
            .iter()
            .find(|k| section.get(**k).is_some_and(|v| !v.is_null()))
        {
            return Err(Error::new(
                ErrorKind::InvalidConfig,
                format!(
                    "{}.{key} is not read from a project's config.yaml: it says where mnemo \
                     sends your API key and memories, and this file came with the project; \
                     set it in $MNEMO_HOME/config.yaml (or pass --config FILE or the \
                     command's flags) and remove it here",
                    path.join(".")
                ),
            ));
        }
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workspace_names_are_plain_directory_names() {
        for good in ["a", "Team_1.v-2", &"x".repeat(64)] {
            assert_eq!(workspace_name(good).unwrap(), good);
        }
        for bad in [
            "",
            ".",
            "..",
            ".git",
            "a/b",
            "a\\b",
            "a b",
            "é",
            "a\0",
            &"x".repeat(65),
        ] {
            let e = workspace_name(bad).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidInput, "{bad:?}");
        }
        assert_eq!(
            memories_of(Path::new("/h"), Some("w")),
            Path::new("/h/workspaces/w/memories")
        );
        assert_eq!(memories_of(Path::new("/h"), None), Path::new("/h/memories"));
    }
}
