//! Learned skills: `SKILL.md` procedures beside the notes.
//!
//! A skill is a directory `skills/<category>/<name>/` holding a `SKILL.md`
//! (YAML frontmatter with `name`, `description`, `category`, optional
//! `tags`, then a Markdown body; see [`frontmatter`]) and any files the
//! procedure needs beside it (`references/api.md`, `scripts/check.sh`).
//! Natively the directory is `<scope root>/skills`, beside `memories/`;
//! in browser storage and through adapters the same layout is kept as
//! blob names (`skills/devops/deploy/SKILL.md`). Archived skills move to
//! `skills/.archive/<category>/<name>.<ms>/`, restorable, never deleted.
//!
//! What is not Markdown lives beside the stores' state: usage counts,
//! pins and the user's own approval of flagged text in [`META_BLOB`], the
//! staged skill writes in [`QUEUE_BLOB`].
//!
//! This module holds the data and the rules (names, limits, the tool's
//! arguments, diffs); [`crate::Memory`] applies them to storage.

pub mod frontmatter;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, ErrorKind, Result};

pub use frontmatter::Frontmatter;

/// The folder of the skills in blob names.
pub const DIR: &str = "skills/";

/// The folder of archived skills in blob names.
pub const ARCHIVE: &str = "skills/.archive/";

/// The folder of earlier versions of skill files, in blob names:
/// `skills/.history/<category>/<name>/<ms>/<file>`.
pub const HISTORY: &str = "skills/.history/";

/// A skill's main file.
pub const SKILL_FILE: &str = "SKILL.md";

/// The blob of usage counts, pins and approvals (kept with the state).
pub const META_BLOB: &str = "mnemo-skills.json";

/// The blob of staged skill writes.
pub const QUEUE_BLOB: &str = "mnemo-skills-pending.json";

/// The most chars a `SKILL.md` may hold (the scanner reads all of it).
pub const MAX_SKILL_CHARS: usize = 100_000;

/// The most bytes a file beside `SKILL.md` may hold.
pub const MAX_FILE_BYTES: usize = 200_000;

/// The most files (other than `SKILL.md`) one skill may hold.
pub const MAX_FILES: usize = 50;

/// The most staged skill writes waiting at once.
pub const MAX_PENDING: usize = 100;

/// The category a skill without one is filed in.
pub const GENERAL: &str = "general";

/// Checks a skill or category name: 1 to 64 of `a-z 0-9 - _ .`, starting
/// with a letter or digit (it becomes a directory name on every
/// platform and a node id of the journey).
pub fn check_name(what: &str, name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(Error::new(
            ErrorKind::InvalidInput,
            format!(
                "{what} {name:?} must be 1 to 64 of a-z 0-9 - _ . starting with a letter or \
                 digit (e.g. \"deploy-checklist\")"
            ),
        ))
    }
}

/// Checks the path of a file beside `SKILL.md`: relative, at most four
/// parts, each a plain file or folder name.
pub fn check_file_path(path: &str) -> Result<()> {
    let parts: Vec<&str> = path.split('/').collect();
    let ok = !path.is_empty()
        && path.len() <= 200
        && parts.len() <= 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && !p.starts_with('.')
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        })
        && path != SKILL_FILE;
    if ok {
        Ok(())
    } else {
        Err(Error::new(
            ErrorKind::InvalidInput,
            format!(
                "file_path {path:?} must be a relative path beside SKILL.md such as \
                 \"references/api.md\" (at most 4 parts of A-Z a-z 0-9 - _ ., none starting \
                 with a dot; SKILL.md itself is changed with edit or patch)"
            ),
        ))
    }
}

/// The blob folder of skill `name` in `category`.
pub fn folder(category: &str, name: &str) -> String {
    format!("{DIR}{category}/{name}/")
}

/// One skill as read from storage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skill {
    /// Its name (the directory's; the frontmatter's when they differ is
    /// reported in `problem`).
    pub name: String,
    /// Its category (the frontmatter's, else the directory's).
    pub category: String,
    /// The frontmatter's description.
    pub description: String,
    /// The frontmatter's tags.
    pub tags: Vec<String>,
    /// The whole `SKILL.md`.
    pub text: String,
    /// Files beside `SKILL.md`, relative to the skill's folder, sorted.
    pub files: Vec<String>,
    /// What is wrong with a skill placed by hand (bad frontmatter), if
    /// anything: such a skill is listed, never used.
    pub problem: Option<String>,
    /// Whether the scanner blocks its `SKILL.md` and the user has not
    /// approved that text: then no text of it is shown.
    pub blocked: bool,
}

impl Skill {
    /// The blob folder of the skill.
    pub fn folder(&self) -> String {
        folder(&self.category, &self.name)
    }

    /// The body of `SKILL.md` (after the frontmatter).
    pub fn body(&self) -> &str {
        frontmatter::parse(&self.text).map_or(self.text.as_str(), |(_, b)| b)
    }
}

/// Finds the skills among blob `names`: `(category, name)` → the files of
/// the folder (relative paths; `SKILL.md` among them when present).
pub fn folders(names: &[String]) -> BTreeMap<(String, String), Vec<String>> {
    let mut out: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for (category, name, file) in names.iter().filter_map(|n| parts(n)) {
        out.entry((category.to_string(), name.to_string()))
            .or_default()
            .push(file.to_string());
    }
    for files in out.values_mut() {
        crate::order::sort(files);
    }
    out
}

/// Archived skills among blob `names`: `(category, name, archived ms,
/// folder)`, newest first.
pub fn archived(names: &[String]) -> Vec<(String, String, u64, String)> {
    let mut out: Vec<(String, String, u64, String)> = Vec::new();
    for n in names {
        let Some(rest) = n.strip_prefix(ARCHIVE) else {
            continue;
        };
        let mut parts = rest.splitn(3, '/');
        let (Some(category), Some(dir), Some(_)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let Some((name, ms)) = dir.rsplit_once('.') else {
            continue;
        };
        let Ok(ms) = ms.parse::<u64>() else {
            continue;
        };
        let folder = format!("{ARCHIVE}{category}/{dir}/");
        if !out.iter().any(|(_, _, _, f)| f == &folder) {
            out.push((category.to_string(), name.to_string(), ms, folder));
        }
    }
    crate::order::sort_by(&mut out, |a, b| b.2.cmp(&a.2).then(a.1.cmp(&b.1)));
    out
}

/// The skill, category and file a skill blob name holds
/// (`skills/devops/deploy/references/api.md` → `("devops", "deploy",
/// "references/api.md")`), or `None` for another name.
pub fn parts(path: &str) -> Option<(&str, &str, &str)> {
    let mut it = path.strip_prefix(DIR)?.splitn(3, '/');
    match (it.next(), it.next(), it.next()) {
        (Some(c), Some(n), Some(f)) if !c.starts_with('.') && !f.is_empty() => Some((c, n, f)),
        _ => None,
    }
}

/// An earlier version of a skill file, kept when a write replaced or
/// removed it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Version {
    /// When the write replaced it, ms since the Unix epoch.
    pub replaced: u64,
    /// The file, relative to the skill's folder (`SKILL.md`).
    pub file: String,
    /// Its blob name under [`HISTORY`].
    pub path: String,
    /// The text it held.
    pub text: String,
}

/// Usage and state of one skill that is not in its files.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Usage {
    /// When mnemo first saw it, ms since the Unix epoch.
    pub created: u64,
    /// When a write through mnemo last changed it.
    pub changed: u64,
    /// Times the agent viewed it through the skill tool.
    pub views: u64,
    /// Times the host reported it used (`skillUsed`).
    pub uses: u64,
    /// Times it was patched, edited or had a file written.
    pub patches: u64,
    /// When it was last viewed or used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_used: Option<u64>,
    /// Pinned skills are never archived as stale.
    pub pinned: bool,
    /// SHA-256 (hex) of a `SKILL.md` text the user approved although the
    /// scanner flags it: that text is shown, any other flagged text not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vouched: Option<String>,
    /// The agent whose write created it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}

/// The skills' state blob ([`META_BLOB`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Meta {
    /// Format version.
    pub version: u32,
    /// The user's `mnemo skills approval on|off`, over the config's
    /// `skills.write_approval`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval: Option<bool>,
    /// Per skill name.
    pub skills: BTreeMap<String, Usage>,
    /// The scanner's rules version the `clean` digests were judged by.
    #[serde(skip_serializing_if = "is_zero")]
    pub rules: u32,
    /// SHA-256 (hex) of every `SKILL.md` text that scanned clean, so an
    /// open does not scan what it scanned before.
    #[serde(skip_serializing_if = "std::collections::BTreeSet::is_empty")]
    pub clean: std::collections::BTreeSet<String>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Meta {
    /// Reads the blob; a missing or unreadable one is empty (counts are
    /// advisory; the skills themselves are files).
    pub fn parse(bytes: Option<&[u8]>) -> Meta {
        bytes
            .and_then(|b| serde_json::from_slice(b).ok())
            .unwrap_or(Meta {
                version: 1,
                ..Meta::default()
            })
    }

    /// The blob's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec_pretty(self).unwrap_or_default()
    }
}

/// SHA-256 of `text`, hex.
pub fn digest(text: &str) -> String {
    use sha2::{Digest, Sha256};
    let d = Sha256::digest(text.as_bytes());
    crate::text::hex(&d)
}

/// A skill write's action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// A new skill from a whole `SKILL.md`.
    Create,
    /// A whole new `SKILL.md` for an existing skill.
    Edit,
    /// A change of `SKILL.md` or a file beside it, as a unified diff or
    /// old/new text.
    Patch,
    /// A file beside `SKILL.md`, created or replaced.
    WriteFile,
    /// A file beside `SKILL.md` removed.
    RemoveFile,
    /// The skill archived (restorable).
    Delete,
}

impl Action {
    /// The action's name as the tool takes it.
    pub fn name(self) -> &'static str {
        match self {
            Action::Create => "create",
            Action::Edit => "edit",
            Action::Patch => "patch",
            Action::WriteFile => "write_file",
            Action::RemoveFile => "remove_file",
            Action::Delete => "delete",
        }
    }

    /// The past tense for messages: `created`, `patched`.
    pub fn done(self) -> &'static str {
        match self {
            Action::Create => "created",
            Action::Edit => "edited",
            Action::Patch => "patched",
            Action::WriteFile => "file written",
            Action::RemoveFile => "file removed",
            Action::Delete => "archived",
        }
    }
}

/// One blob a skill write changes: its text before and after (`None`:
/// absent).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChange {
    /// The blob name (`skills/devops/deploy/SKILL.md`).
    pub path: String,
    /// The text it holds now (checked again when a staged write is
    /// approved).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// The text it will hold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}

/// A skill write worked out in full: what the tool applies, or stages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// The action.
    pub action: Action,
    /// The skill's name.
    pub name: String,
    /// Its category (after the write; the one it had for a delete).
    pub category: String,
    /// The blobs changed.
    pub changes: Vec<FileChange>,
    /// Scanner findings on the new text (`category (ids)` strings).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<String>,
}

impl Plan {
    /// A one-line gist: what the write does, in the user's words.
    pub fn gist(&self) -> String {
        let (added, removed) = self.line_counts();
        let what = match self.action {
            Action::Create => format!("create skill '{}' in {}", self.name, self.category),
            Action::Edit => format!("rewrite SKILL.md of '{}'", self.name),
            Action::Patch => format!("patch {} of '{}'", self.files_named(), self.name),
            Action::WriteFile => format!("write {} of '{}'", self.files_named(), self.name),
            Action::RemoveFile => format!("remove {} of '{}'", self.files_named(), self.name),
            Action::Delete => format!("archive skill '{}'", self.name),
        };
        let mut gist = format!("{what} (+{added} −{removed} lines)");
        if !self.findings.is_empty() {
            gist.push_str(&format!(" ⚠ scanner: {}", self.findings.join("; ")));
        }
        gist
    }

    /// The changes of the skill's own files (not the archive's or the
    /// kept versions').
    fn own(&self) -> impl Iterator<Item = &FileChange> {
        self.changes
            .iter()
            .filter(|c| !c.path.starts_with(ARCHIVE) && !c.path.starts_with(HISTORY))
    }

    fn files_named(&self) -> String {
        let names: Vec<&str> = self
            .own()
            .map(|c| {
                c.path
                    .rsplit_once(&format!("/{}/", self.name))
                    .map_or(c.path.as_str(), |(_, f)| f)
            })
            .collect();
        names.join(", ")
    }

    fn line_counts(&self) -> (usize, usize) {
        let (mut added, mut removed) = (0, 0);
        for c in self.own() {
            let before = c.before.as_deref().unwrap_or("");
            let after = c.after.as_deref().unwrap_or("");
            let patch = diffy::create_patch(before, after);
            for h in patch.hunks() {
                for l in h.lines() {
                    match l {
                        diffy::Line::Insert(_) => added += 1,
                        diffy::Line::Delete(_) => removed += 1,
                        diffy::Line::Context(_) => {}
                    }
                }
            }
        }
        (added, removed)
    }

    /// The full unified diff of the write (`--- a/…` / `+++ b/…` per
    /// file; an archive is one line saying where the files go).
    pub fn diff(&self) -> String {
        let mut out = String::new();
        for c in self.own() {
            let before = c.before.as_deref().unwrap_or("");
            let after = c.after.as_deref().unwrap_or("");
            if self.action == Action::Delete {
                continue;
            }
            let old = if c.before.is_some() {
                format!("a/{}", c.path)
            } else {
                "/dev/null".to_string()
            };
            let new = if c.after.is_some() {
                format!("b/{}", c.path)
            } else {
                "/dev/null".to_string()
            };
            let patch = diffy::DiffOptions::new()
                .set_original_filename(old)
                .set_modified_filename(new)
                .create_patch(before, after);
            out.push_str(&patch.to_string());
        }
        if self.action == Action::Delete {
            let to = self
                .changes
                .iter()
                .find(|c| c.path.starts_with(ARCHIVE))
                .map(|c| c.path.rsplit_once('/').map_or(c.path.as_str(), |(d, _)| d))
                .unwrap_or(ARCHIVE);
            out.push_str(&format!(
                "# archive skill '{}': {} file(s) move to {to}/ (restore with `mnemo skills restore {}`)\n",
                self.name,
                self.changes.iter().filter(|c| c.path.starts_with(ARCHIVE)).count(),
                self.name
            ));
        }
        out
    }
}

/// Applies a unified diff to `base`. Errors say which hunk failed.
pub fn apply_patch(base: &str, patch: &str) -> Result<String> {
    let parsed = diffy::Patch::from_str(patch).map_err(|e| {
        Error::new(
            ErrorKind::InvalidInput,
            format!("patch is not a unified diff ({e}); send `@@ -l,n +l,n @@` hunks, or old_string and new_string instead"),
        )
    })?;
    if parsed.hunks().is_empty() {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            "patch has no hunks; send `@@ -l,n +l,n @@` hunks, or old_string and new_string",
        ));
    }
    diffy::apply(base, &parsed).map_err(|e| {
        Error::new(
            ErrorKind::NoMatch,
            format!("patch does not apply to the current text ({e}); view the skill and send a patch against what it holds now"),
        )
    })
}

/// Replaces `old` by `new` in `base`: exactly one match unless `all`.
pub fn replace_text(base: &str, old: &str, new: &str, all: bool) -> Result<String> {
    if old.is_empty() {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            "old_string is empty; give the exact text to replace",
        ));
    }
    let count = base.matches(old).count();
    match (count, all) {
        (0, _) => Err(Error::new(
            ErrorKind::NoMatch,
            "old_string was not found in the file; view the skill and copy the text exactly",
        )),
        (1, _) | (_, true) => Ok(base.replace(old, new)),
        (n, false) => Err(Error::new(
            ErrorKind::AmbiguousMatch,
            format!(
                "old_string matches {n} places; include more surrounding text, or set replace_all"
            ),
        )),
    }
}

/// A parsed call of the `skill` tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// List the skills (optionally one category).
    List {
        /// Only this category.
        category: Option<String>,
    },
    /// Read a skill (or a file of it).
    View {
        /// The skill.
        name: String,
        /// A file beside `SKILL.md`.
        file_path: Option<String>,
    },
    /// Search skills by meaning of their words.
    Search {
        /// The query.
        query: String,
    },
    /// A write.
    Write(WriteRequest),
}

/// The arguments of a skill write.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteRequest {
    /// What to do.
    pub action: Option<Action>,
    /// The skill.
    pub name: String,
    /// `create`: the category when the frontmatter has none.
    pub category: Option<String>,
    /// `create`, `edit`: the whole `SKILL.md`.
    pub content: Option<String>,
    /// `patch`: a unified diff.
    pub patch: Option<String>,
    /// `patch`: the text to replace.
    pub old_string: Option<String>,
    /// `patch`: its replacement.
    pub new_string: Option<String>,
    /// `patch`: replace every match.
    pub replace_all: bool,
    /// `patch`, `write_file`, `remove_file`: a file beside `SKILL.md`.
    pub file_path: Option<String>,
    /// `write_file`: its text.
    pub file_content: Option<String>,
}

fn invalid(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidInput, msg)
}

/// Reads the tool's JSON arguments. `null` counts as absent.
pub fn parse_request(args: &Value) -> Result<Request> {
    let Some(obj) = args.as_object() else {
        return Err(invalid(
            "skill tool arguments must be an object like {\"action\": \"view\", \"name\": \"deploy-checklist\"}",
        ));
    };
    const KEYS: [&str; 12] = [
        "action",
        "name",
        "category",
        "content",
        "patch",
        "old_string",
        "new_string",
        "replace_all",
        "file_path",
        "file_content",
        "query",
        "agent",
    ];
    if let Some(k) = obj.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(invalid(format!(
            "unknown argument {k:?}; the skill tool takes {}",
            KEYS[..11].join(", ")
        )));
    }
    let text = |key: &str| -> Result<Option<String>> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(invalid(format!(
                "{key} must be a string, not {}",
                kind_of(other)
            ))),
        }
    };
    let action = text("action")?.ok_or_else(|| {
        Error::new(
            ErrorKind::UnknownAction,
            "action is missing; use list, view, search, create, edit, patch, write_file, remove_file or delete",
        )
    })?;
    let name = text("name")?;
    let need_name = || -> Result<String> {
        let n = name
            .clone()
            .ok_or_else(|| invalid(format!("{action} needs name")))?;
        check_name("skill name", &n)?;
        Ok(n)
    };
    let write = |a: Action| -> Result<Request> {
        let replace_all = match obj.get("replace_all") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(invalid(format!(
                    "replace_all must be true or false, not {}",
                    kind_of(other)
                )))
            }
        };
        Ok(Request::Write(WriteRequest {
            action: Some(a),
            name: need_name()?,
            category: text("category")?,
            content: text("content")?,
            patch: text("patch")?,
            old_string: text("old_string")?,
            new_string: text("new_string")?,
            replace_all,
            file_path: text("file_path")?,
            file_content: text("file_content")?,
        }))
    };
    match action.as_str() {
        "list" => Ok(Request::List {
            category: text("category")?,
        }),
        "view" => {
            let file_path = text("file_path")?;
            if let Some(p) = &file_path {
                if p != SKILL_FILE {
                    check_file_path(p)?;
                }
            }
            Ok(Request::View {
                name: need_name()?,
                file_path: file_path.filter(|p| p != SKILL_FILE),
            })
        }
        "search" => {
            let query = text("query")?.filter(|q| !q.trim().is_empty()).ok_or_else(|| {
                Error::new(ErrorKind::Empty, "search needs query: words about the task at hand")
            })?;
            Ok(Request::Search { query })
        }
        "create" => write(Action::Create),
        "edit" => write(Action::Edit),
        "patch" => write(Action::Patch),
        "write_file" => write(Action::WriteFile),
        "remove_file" => write(Action::RemoveFile),
        "delete" => write(Action::Delete),
        other => Err(Error::new(
            ErrorKind::UnknownAction,
            format!(
                "unknown action {other:?}; use list, view, search, create, edit, patch, write_file, remove_file or delete"
            ),
        )),
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The `skill` tool's JSON schema: `{name, description, parameters}`,
/// valid as an OpenAI function and an Anthropic tool.
pub fn tool_schema() -> Value {
    serde_json::json!({
        "name": "skill",
        "description": "Your learned skills: step-by-step procedures (SKILL.md files with YAML frontmatter: name, description, category) that worked before. Before a task that may have a procedure, search or list, then view the one that fits and follow it. After you work out a reusable, non-obvious procedure (a deploy, a debugging recipe, a tool's quirks), create a skill; when a skill was wrong or incomplete, patch it. Do not save one-off facts here (use the memory tool) or secrets. Writes may be staged for the user's approval: a staged write is not applied yet. delete archives a skill (the user can restore it).",
        "parameters": {
            "type": "object",
            "properties": {
                "action": {
                    "type": "string",
                    "enum": ["list", "view", "search", "create", "edit", "patch", "write_file", "remove_file", "delete"],
                    "description": "list | view | search (read); create | edit (whole SKILL.md) | patch | write_file | remove_file | delete (archive)"
                },
                "name": {"type": "string", "description": "The skill's name: lowercase letters, digits, - _ . (e.g. deploy-checklist)"},
                "category": {"type": "string", "description": "create: the category when the frontmatter has none; list: only this category"},
                "content": {"type": "string", "description": "create, edit: the whole SKILL.md, starting with ---, name:, description:, category:, ---, then the procedure in Markdown"},
                "patch": {"type": "string", "description": "patch: a unified diff (@@ hunks) of SKILL.md or of file_path"},
                "old_string": {"type": "string", "description": "patch: exact text to replace (instead of a diff)"},
                "new_string": {"type": "string", "description": "patch: the replacement text"},
                "replace_all": {"type": "boolean", "description": "patch: replace every match of old_string"},
                "file_path": {"type": "string", "description": "view, patch, write_file, remove_file: a file beside SKILL.md, e.g. references/api.md"},
                "file_content": {"type": "string", "description": "write_file: the file's text"},
                "query": {"type": "string", "description": "search: words about the task"}
            },
            "required": ["action"],
            "additionalProperties": false
        }
    })
}

/// A skill in a listing (`skills()`, `mnemo skills list`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Listed {
    /// Its name.
    pub name: String,
    /// Its category.
    pub category: String,
    /// Its description ([`crate::graph::BLOCKED_TITLE`] when blocked).
    pub description: String,
    /// Its tags.
    pub tags: Vec<String>,
    /// Files beside `SKILL.md`.
    pub files: Vec<String>,
    /// Usage counts and state.
    #[serde(flatten)]
    pub usage: Usage,
    /// Whether the scanner blocks its text (not shown to a model).
    pub blocked: bool,
    /// What is wrong with a hand-placed skill.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// An archived skill (`mnemo skills archived`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ArchivedSkill {
    /// Its name.
    pub name: String,
    /// Its category.
    pub category: String,
    /// When it was archived, ms since the Unix epoch.
    pub archived: u64,
}

/// A staged skill write.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Staged {
    /// Its id (`k1`, `k2`, …), what approve, reject and diff take.
    pub id: String,
    /// When it was staged, ms since the Unix epoch.
    pub created: u64,
    /// The agent whose write it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// Where it came from.
    pub origin: crate::approval::Origin,
    /// `pending`, or `needs_review` after an approval found it no longer
    /// applies.
    pub state: crate::approval::State,
    /// Why it needs review.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The one-line gist.
    pub gist: String,
    /// The write.
    pub plan: Plan,
}

/// The staged skill writes ([`QUEUE_BLOB`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Queue {
    /// Format version.
    pub version: u32,
    /// The next id's number.
    pub next: u64,
    /// Waiting writes, oldest first.
    pub items: Vec<Staged>,
}

impl Queue {
    /// Reads the blob. An unreadable queue is an error: it holds writes
    /// the user has not seen, so it is never replaced unread.
    pub fn parse(bytes: Option<&[u8]>) -> Result<Queue> {
        match bytes {
            None => Ok(Queue {
                version: 1,
                next: 1,
                items: Vec::new(),
            }),
            Some(b) => {
                let queue: Queue = serde_json::from_slice(b).map_err(|e| {
                    Error::storage(format!(
                        "{QUEUE_BLOB} cannot be read ({e}); it holds staged skill writes, so \
                         mnemo will not overwrite it: move it aside or fix it"
                    ))
                })?;
                if queue.version > 1 {
                    return Err(Error::storage(format!(
                        "{QUEUE_BLOB} was written by a newer mnemo (format {}); update mnemo \
                         to read it",
                        queue.version
                    )));
                }
                Ok(queue)
            }
        }
    }

    /// The blob's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec_pretty(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_portable() {
        for ok in ["deploy", "a1", "x-y_z.2"] {
            check_name("skill name", ok).unwrap();
        }
        for bad in [
            "",
            "Deploy",
            "-x",
            ".x",
            "a/b",
            "a b",
            "../x",
            &"x".repeat(65),
        ] {
            assert!(check_name("skill name", bad).is_err(), "{bad}");
        }
        check_file_path("references/api.md").unwrap();
        for bad in [
            "../x",
            "/etc/passwd",
            "a//b",
            ".env",
            "SKILL.md",
            "a/b/c/d/e",
            "a\\b",
        ] {
            assert!(check_file_path(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn folders_and_archives_are_found_in_blob_names() {
        let names: Vec<String> = [
            "MEMORY.md",
            "skills/devops/deploy/SKILL.md",
            "skills/devops/deploy/scripts/check.sh",
            "skills/.archive/devops/old.1700000000000/SKILL.md",
            "skills/.archive/devops/old.1800000000000/SKILL.md",
            "skills/stray.md",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let f = folders(&names);
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[&("devops".to_string(), "deploy".to_string())],
            ["SKILL.md", "scripts/check.sh"]
        );
        let a = archived(&names);
        assert_eq!(a.len(), 2);
        assert_eq!((a[0].1.as_str(), a[0].2), ("old", 1_800_000_000_000));
    }

    #[test]
    fn patches_apply_or_say_why_not() {
        let base = "one\ntwo\nthree\n";
        let patch = "--- a/SKILL.md\n+++ b/SKILL.md\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n";
        assert_eq!(apply_patch(base, patch).unwrap(), "one\nTWO\nthree\n");
        assert_eq!(
            apply_patch("other\ntext\n", patch).unwrap_err().kind(),
            ErrorKind::NoMatch
        );
        assert_eq!(
            apply_patch(base, "not a diff").unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
        assert_eq!(
            replace_text("a b a", "a", "c", false).unwrap_err().kind(),
            ErrorKind::AmbiguousMatch
        );
        assert_eq!(replace_text("a b a", "a", "c", true).unwrap(), "c b c");
    }

    #[test]
    fn the_diff_names_files_and_counts_lines() {
        let plan = Plan {
            action: Action::Patch,
            name: "deploy".into(),
            category: "devops".into(),
            changes: vec![FileChange {
                path: "skills/devops/deploy/SKILL.md".into(),
                before: Some("a\nb\n".into()),
                after: Some("a\nc\nd\n".into()),
            }],
            findings: vec![],
        };
        let diff = plan.diff();
        assert!(
            diff.contains("--- a/skills/devops/deploy/SKILL.md"),
            "{diff}"
        );
        assert!(diff.contains("+c\n+d\n") && diff.contains("-b\n"), "{diff}");
        assert_eq!(plan.gist(), "patch SKILL.md of 'deploy' (+2 −1 lines)");
    }

    #[test]
    fn tool_arguments_are_checked() {
        let ok = parse_request(&serde_json::json!({"action": "patch", "name": "deploy", "old_string": "a", "new_string": "b", "category": null})).unwrap();
        assert!(matches!(
            ok,
            Request::Write(WriteRequest {
                action: Some(Action::Patch),
                ..
            })
        ));
        for (args, code) in [
            (serde_json::json!("x"), ErrorKind::InvalidInput),
            (serde_json::json!({}), ErrorKind::UnknownAction),
            (
                serde_json::json!({"action": "fly"}),
                ErrorKind::UnknownAction,
            ),
            (
                serde_json::json!({"action": "view"}),
                ErrorKind::InvalidInput,
            ),
            (
                serde_json::json!({"action": "view", "name": "../etc"}),
                ErrorKind::InvalidInput,
            ),
            (
                serde_json::json!({"action": "create", "name": "a", "content": 5}),
                ErrorKind::InvalidInput,
            ),
            (
                serde_json::json!({"action": "view", "name": "a", "file_path": "../../x"}),
                ErrorKind::InvalidInput,
            ),
            (
                serde_json::json!({"action": "list", "bogus": 1}),
                ErrorKind::InvalidInput,
            ),
        ] {
            assert_eq!(parse_request(&args).unwrap_err().kind(), code, "{args}");
        }
    }
}
