//! The memory tool: what an LLM calls, and what it gets back.
//!
//! [`ToolCall::parse`] turns whatever JSON a model emitted into typed
//! operations or a clear error; [`apply`] runs them against copies of the
//! stores and judges the result against the storage limits; [`ToolResult`]
//! is the JSON the model reads. Nothing here does I/O: the
//! [`Memory`](crate::Memory) driver persists what [`apply`] returns.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::api::{rule, SearchOptions};
use crate::config::Config;
use crate::error::{Error, ErrorKind, Result};
use crate::store::{
    clean_content, clean_old_text, thousands, usage_long, usage_short, Store, Target,
};

/// Failed writes in a row, within one turn, before the tool answers
/// [`STOP_RETRYING`].
pub const MAX_FAILED_WRITES: u32 = 3;

/// The final answer after too many failed writes in one turn.
pub const STOP_RETRYING: &str = "Memory writes have failed several times in a row in this turn. \
Stop retrying memory writes now and continue with the user's task. If what you wanted to save \
matters, tell the user it could not be saved and why.";

/// A write action of the memory tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Add a new entry.
    Add,
    /// Replace the entry containing `old_text` with `content`.
    Replace,
    /// Remove the entry containing `old_text`.
    Remove,
}

impl Action {
    /// The write actions, as named in the schema (`search` is the fourth
    /// action of the tool; it does not write).
    pub const NAMES: [&'static str; 3] = ["add", "replace", "remove"];

    /// The action named `name` in the schema.
    pub fn from_name(name: &str) -> Option<Action> {
        match name {
            "add" => Some(Action::Add),
            "replace" => Some(Action::Replace),
            "remove" => Some(Action::Remove),
            _ => None,
        }
    }

    /// The action's name in the schema.
    pub fn name(self) -> &'static str {
        match self {
            Action::Add => "add",
            Action::Replace => "replace",
            Action::Remove => "remove",
        }
    }
}

/// One operation of a tool call.
#[derive(Clone, Debug, PartialEq)]
pub struct Operation {
    /// What to do.
    pub action: Action,
    /// Which store.
    pub target: Target,
    /// The new entry text (add, replace), cleaned.
    pub content: Option<String>,
    /// The substring that identifies the entry (replace, remove).
    pub old_text: Option<String>,
    /// The entry's index, when the caller already knows it (a person
    /// editing a node of the journey); takes the place of `old_text`.
    pub index: Option<usize>,
    /// The importance to give the written entry (add, replace).
    pub importance: Option<f64>,
    /// The category to give the written entry (add, replace).
    pub category: Option<crate::meta::Category>,
}

/// A parsed tool call: one operation, or an atomic batch.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    /// The operations, in order.
    pub operations: Vec<Operation>,
    /// Whether the call used `operations` (a batch).
    pub batch: bool,
}

const TOP_FIELDS: [&str; 8] = [
    "action",
    "target",
    "content",
    "old_text",
    "query",
    "operations",
    "importance",
    "category",
];
const OP_FIELDS: [&str; 6] = [
    "action",
    "target",
    "content",
    "old_text",
    "importance",
    "category",
];

impl ToolCall {
    /// Parses the arguments of a memory tool call exactly as an LLM emits
    /// them. `null` counts as absent.
    pub fn parse(args: &Value) -> Result<ToolCall> {
        let obj = match args {
            Value::Object(obj) => obj,
            Value::String(s) => {
                // Some clients pass the arguments still encoded as a string.
                return match serde_json::from_str::<Value>(s) {
                    Ok(v @ Value::Object(_)) => ToolCall::parse(&v),
                    _ => Err(Error::input(
                        "expected the tool arguments as a JSON object like \
                         {\"action\": \"add\", \"target\": \"memory\", \"content\": \"…\"}",
                    )),
                };
            }
            other => {
                return Err(Error::input(format!(
                    "expected the tool arguments as a JSON object, got {}",
                    type_name(other)
                )))
            }
        };
        check_fields(obj, &TOP_FIELDS, "")?;
        let default_target = optional_str(obj, "target", "")?;
        match present(obj, "operations") {
            Some(Value::Array(items)) => {
                if let Some(action) = optional_str(obj, "action", "")? {
                    if action != "batch" {
                        return Err(Error::input(format!(
                            "got both action '{action}' and operations; send either one action \
                             or a list of operations (each with its own action)"
                        )));
                    }
                }
                if items.is_empty() {
                    return Err(Error::new(
                        ErrorKind::Empty,
                        "operations is empty; expected at least one {action, target, …} object",
                    ));
                }
                let mut operations = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let where_ = format!("operations[{i}].");
                    let Value::Object(op) = item else {
                        return Err(Error::input(format!(
                            "operations[{i}] must be an object with action, target and \
                             content/old_text, got {}",
                            type_name(item)
                        )));
                    };
                    check_fields(op, &OP_FIELDS, &where_)?;
                    operations.push(parse_op(op, default_target, &where_)?);
                }
                Ok(ToolCall {
                    operations,
                    batch: true,
                })
            }
            Some(other) => Err(Error::input(format!(
                "operations must be an array of operation objects, got {}",
                type_name(other)
            ))),
            None => Ok(ToolCall {
                operations: vec![parse_op(obj, None, "")?],
                batch: false,
            }),
        }
    }
}

fn parse_op(obj: &Map<String, Value>, default_target: Option<&str>, at: &str) -> Result<Operation> {
    let action_name = optional_str(obj, "action", at)?.ok_or_else(|| {
        Error::input(format!(
            "{at}action is missing; expected one of: {}",
            Action::NAMES.join(", ")
        ))
    })?;
    let action = Action::from_name(action_name).ok_or_else(|| {
        Error::new(
            ErrorKind::UnknownAction,
            format!(
                "unknown {at}action {}; expected one of: {}{}",
                json_quote(action_name),
                Action::NAMES.join(", "),
                if at.is_empty() {
                    ", search"
                } else {
                    " (search cannot be batched)"
                }
            ),
        )
    })?;
    let target_name = optional_str(obj, "target", at)?
        .or(default_target)
        .ok_or_else(|| {
            Error::input(format!(
                "{at}target is missing; expected 'memory' (your notes) or 'user' (the user profile)"
            ))
        })?;
    let target = Target::from_name(target_name).ok_or_else(|| {
        Error::new(
            ErrorKind::UnknownTarget,
            format!(
                "unknown {at}target {}; expected 'memory' (your notes) or 'user' (the user profile)",
                json_quote(target_name)
            ),
        )
    })?;
    let mut op = Operation::new(
        action,
        target,
        optional_str(obj, "content", at)?,
        optional_str(obj, "old_text", at)?,
        at,
    )?;
    if action != Action::Remove {
        op.importance = match present(obj, "importance") {
            None => None,
            Some(Value::Number(n)) => Some(crate::meta::importance(
                &format!("{at}importance"),
                n.as_f64().unwrap_or(f64::NAN),
            )?),
            Some(other) => {
                return Err(Error::input(format!(
                    "{at}importance must be a number from 0.0 to 1.0, got {}",
                    type_name(other)
                )))
            }
        };
        op.category = match optional_str(obj, "category", at)? {
            None => None,
            Some(name) => crate::meta::Category::parse(name)?,
        };
    }
    Ok(op)
}

impl Operation {
    /// An operation from typed values, with every check a tool call gets:
    /// `content` for add and replace, `old_text` for replace and remove,
    /// both cleaned (`at` prefixes the field names in errors, e.g.
    /// `operations[1].`). Fields the action does not use are ignored.
    pub fn new(
        action: Action,
        target: Target,
        content: Option<&str>,
        old_text: Option<&str>,
        at: &str,
    ) -> Result<Operation> {
        let content = match action {
            Action::Add | Action::Replace => {
                let raw = content.ok_or_else(|| {
                    Error::new(
                        ErrorKind::Empty,
                        format!(
                            "{at}content is missing; {} needs the entry text",
                            action.name()
                        ),
                    )
                })?;
                Some(clean_content(&format!("{at}content"), raw)?)
            }
            Action::Remove => None,
        };
        let old_text = match action {
            Action::Replace | Action::Remove => {
                let raw = old_text.ok_or_else(|| {
                    Error::new(
                        ErrorKind::Empty,
                        format!(
                            "{at}old_text is missing; {} needs a short unique substring of the entry",
                            action.name()
                        ),
                    )
                })?;
                Some(clean_old_text(raw)?.to_string())
            }
            Action::Add => None,
        };
        Ok(Operation {
            action,
            target,
            content,
            old_text,
            index: None,
            importance: None,
            category: None,
        })
    }
}

fn present<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    obj.get(key).filter(|v| !v.is_null())
}

fn optional_str<'a>(obj: &'a Map<String, Value>, key: &str, at: &str) -> Result<Option<&'a str>> {
    match present(obj, key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(Error::input(format!(
            "{at}{key} must be a string, got {}",
            type_name(other)
        ))),
    }
}

fn check_fields(obj: &Map<String, Value>, allowed: &[&str], at: &str) -> Result<()> {
    let unknown: Vec<&str> = obj
        .keys()
        .map(String::as_str)
        .filter(|k| !allowed.contains(k))
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    Err(Error::input(format!(
        "unknown field{} {}; expected only: {}",
        if unknown.len() > 1 { "s" } else { "" },
        unknown
            .iter()
            .map(|k| format!("{at}{k}"))
            .collect::<Vec<_>>()
            .join(", "),
        allowed.join(", ")
    )))
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn json_quote(s: &str) -> String {
    let short: String = s.chars().take(40).collect();
    serde_json::to_string(&short).unwrap_or_default()
}

/// A `search` call of the memory tool: `{action: "search", query,
/// target?, limit?}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchCall {
    /// What to look for, as prose.
    pub query: String,
    /// Which store and how many notes (the rules of every search).
    pub options: SearchOptions,
}

/// A memory tool call, typed: writes, or a search.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolRequest {
    /// One write or an atomic batch.
    Write(ToolCall),
    /// Find notes.
    Search(SearchCall),
}

impl ToolRequest {
    /// Parses the arguments of a memory tool call exactly as an LLM emits
    /// them (see [`ToolCall::parse`] and [`SearchCall::detect`]); arguments
    /// still encoded as a JSON string are decoded first.
    pub fn parse(args: &Value) -> Result<ToolRequest> {
        if let Value::String(s) = args {
            if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(s) {
                return ToolRequest::parse(&v);
            }
        }
        match SearchCall::detect(args) {
            Some(search) => search.map(ToolRequest::Search),
            None => ToolCall::parse(args).map(ToolRequest::Write),
        }
    }

    /// Whether `args` ask for a search (a failed search is not a failed
    /// write: it does not count toward the retry cap).
    pub fn is_search(args: &Value) -> bool {
        args.as_object()
            .and_then(|obj| present(obj, "action"))
            .and_then(Value::as_str)
            == Some("search")
    }
}

impl SearchCall {
    /// A search from typed values, with the checks of a tool call.
    pub fn new(query: &str, options: SearchOptions) -> Result<SearchCall> {
        if query.trim().is_empty() {
            return Err(Error::new(
                ErrorKind::Empty,
                "query is empty; search needs the words to look for, e.g. \
                 {\"action\": \"search\", \"query\": \"staging server port\"}",
            ));
        }
        if query.contains('\0') {
            return Err(Error::new(
                ErrorKind::InvalidText,
                "query contains a NUL character",
            ));
        }
        Ok(SearchCall {
            query: query.to_string(),
            options,
        })
    }

    /// `None` when `args` is not a search call; otherwise the parsed call
    /// or what is wrong with it.
    pub fn detect(args: &Value) -> Option<Result<SearchCall>> {
        let obj = args.as_object()?;
        if present(obj, "action").and_then(Value::as_str) != Some("search") {
            return None;
        }
        Some((|| {
            check_fields(
                obj,
                &["action", "target", "query", "limit", "content", "old_text"],
                "",
            )?;
            let query = optional_str(obj, "query", "")?.unwrap_or("");
            let target = match optional_str(obj, "target", "")? {
                None => None,
                Some(name) => Some(Target::from_name(name).ok_or_else(|| {
                    Error::new(
                        ErrorKind::UnknownTarget,
                        format!(
                            "unknown target {}; expected 'memory' or 'user', or leave it out to \
                             search both",
                            json_quote(name)
                        ),
                    )
                })?),
            };
            let limit = present(obj, "limit")
                .map(|v| rule::int("limit", v, 1, SearchOptions::MAX_LIMIT as u64))
                .transpose()?;
            SearchCall::new(query, SearchOptions::new(target, limit)?)
        })())
    }
}

/// What a successful [`apply`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    /// The message for the model.
    pub message: String,
    /// Stores whose entries changed (to be persisted).
    pub changed: Vec<Target>,
    /// What changed, operation by operation (none for a duplicate).
    pub effects: Vec<Effect>,
}

/// One change a write made to a store, for the notification line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// An entry was added.
    Added(Target, String),
    /// An entry's text was replaced: the old and the new text.
    Replaced(Target, String, String),
    /// An entry was removed: its text.
    Removed(Target, String),
}

/// A failed [`apply`]: the error and, for a full store, what the model needs
/// to consolidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejected {
    /// The error.
    pub error: Error,
    /// The store the error is about, when there is one.
    pub target: Option<Target>,
    /// For `store-full`: the live entries of that store.
    pub current_entries: Option<Vec<String>>,
}

/// Runs `call` against `stores` (indexed by [`Target`]) under `config`.
/// On success the stores hold the new state; on failure they are unchanged.
pub fn apply(
    stores: &mut [Store; 2],
    call: &ToolCall,
    config: &Config,
) -> std::result::Result<Applied, Rejected> {
    let (work, applied) = applied(stores, call, config)?;
    *stores = work;
    Ok(applied)
}

/// [`apply`] on a copy of `stores`: the new stores and what was done. The
/// stores are copied once, and not at all when the call is refused before
/// any operation runs.
pub fn applied(
    stores: &[Store; 2],
    call: &ToolCall,
    config: &Config,
) -> std::result::Result<([Store; 2], Applied), Rejected> {
    for op in &call.operations {
        check_writable(stores, op.target, config)?;
    }
    let before = stores;
    let mut work = stores.clone();
    let mut messages = Vec::new();
    let mut changed = Vec::new();
    let mut effects = Vec::new();
    for (i, op) in call.operations.iter().enumerate() {
        let store = &mut work[op.target.index()];
        let limit = config.storage_limit(op.target);
        let outcome = apply_one(store, op, limit).map_err(|error| {
            let error = if call.batch {
                Error::new(
                    error.kind(),
                    format!(
                        "operations[{i}] ({} on {}) failed, so no operation was applied: {}",
                        op.action.name(),
                        op.target.name(),
                        error.message()
                    ),
                )
            } else {
                error
            };
            Rejected {
                error,
                target: Some(op.target),
                current_entries: None,
            }
        })?;
        if outcome.changed && !changed.contains(&op.target) {
            changed.push(op.target);
        }
        effects.extend(outcome.effect);
        messages.push(outcome.message);
    }
    for &target in &changed {
        screen_neighbours(&mut work[target.index()], target).map_err(|error| Rejected {
            error,
            target: Some(target),
            current_entries: None,
        })?;
    }
    for &target in &changed {
        let limit = config.storage_limit(target);
        let after = work[target.index()].chars();
        // A store already over its limit (the limit was lowered, or the file
        // was edited by hand) may still shrink: that is how it gets back.
        if after > limit && after >= before[target.index()].chars() {
            let old = &before[target.index()];
            return Err(full_error(old, target, limit, after, call));
        }
    }
    let message = if call.batch {
        format!(
            "Applied {} operations: {}",
            call.operations.len(),
            messages.join(" ")
        )
    } else {
        messages.pop().unwrap_or_default()
    };
    Ok((
        work,
        Applied {
            message,
            changed,
            effects,
        },
    ))
}

fn check_writable(stores: &[Store; 2], target: Target, config: &Config) -> Result<(), Rejected> {
    if !config.enabled(target) {
        let key = match target {
            Target::Memory => "memory.memory_enabled",
            Target::User => "memory.user_profile_enabled",
        };
        return Err(Rejected {
            error: Error::new(
                ErrorKind::StoreDisabled,
                format!(
                    "{} is switched off ({key}: false); nothing can be saved there",
                    target.title()
                ),
            ),
            target: None,
            current_entries: None,
        });
    }
    if let crate::store::FileState::Damaged(why) = stores[target.index()].state() {
        return Err(Rejected {
            error: Error::new(
                ErrorKind::StoreDamaged,
                format!(
                    "{} cannot be changed: {} ({why}). A person must fix the file; it was backed \
                     up and nothing was written.",
                    target.title(),
                    target.file_name()
                ),
            ),
            target: Some(target),
            current_entries: None,
        });
    }
    Ok(())
}

struct OneOutcome {
    message: String,
    changed: bool,
    effect: Option<Effect>,
}

fn apply_one(store: &mut Store, op: &Operation, limit: usize) -> Result<OneOutcome> {
    let too_long = |content: &str| -> Result<()> {
        let n = content.chars().count();
        if n > limit {
            return Err(Error::new(
                ErrorKind::TooLong,
                format!(
                    "this entry is {} chars but all of {} may hold at most {} chars; shorten it to \
                     the facts worth keeping",
                    thousands(n),
                    op.target.name(),
                    thousands(limit)
                ),
            ));
        }
        Ok(())
    };
    match op.action {
        Action::Add => {
            let content = op.content.clone().unwrap_or_default();
            too_long(&content)?;
            store.screen(&content)?;
            if store.contains_entry(&content) {
                return Ok(OneOutcome {
                    message: "Entry already exists; no duplicate added.".into(),
                    changed: false,
                    effect: None,
                });
            }
            if let Some(i) = store.near_duplicate(&content) {
                return Ok(OneOutcome {
                    message: format!(
                        "A near-duplicate entry already exists ('{}'); no entry added. Use \
                         replace with that entry's text as old_text to update it.",
                        crate::store::preview(&store.shown(op.target, i))
                    ),
                    changed: false,
                    effect: None,
                });
            }
            store.push(content.clone());
            Ok(OneOutcome {
                message: "Entry added.".into(),
                changed: true,
                effect: Some(Effect::Added(op.target, content)),
            })
        }
        Action::Replace => {
            let content = op.content.clone().unwrap_or_default();
            too_long(&content)?;
            store.screen(&content)?;
            let index = locate(store, op)?;
            if store.entries()[index] == content {
                return Ok(OneOutcome {
                    message: "Entry already has this content; nothing changed.".into(),
                    changed: false,
                    effect: None,
                });
            }
            let old = store.entries()[index].clone();
            if store.contains_entry(&content) {
                store.remove(index);
                return Ok(OneOutcome {
                    message: "Another entry already has this content, so the old entry was \
                              removed and no duplicate added."
                        .into(),
                    changed: true,
                    effect: Some(Effect::Removed(op.target, old)),
                });
            }
            store.set(index, content.clone());
            Ok(OneOutcome {
                message: "Entry replaced.".into(),
                changed: true,
                effect: Some(Effect::Replaced(op.target, old, content)),
            })
        }
        Action::Remove => {
            let index = locate(store, op)?;
            let old = store.entries()[index].clone();
            store.remove(index);
            Ok(OneOutcome {
                message: "Entry removed.".into(),
                changed: true,
                effect: Some(Effect::Removed(op.target, old)),
            })
        }
    }
}

/// The entry an operation is about: its known index, or the one entry
/// containing `old_text`.
fn locate(store: &Store, op: &Operation) -> Result<usize> {
    match op.index {
        Some(i) if i < store.entries().len() => Ok(i),
        Some(i) => Err(Error::new(
            ErrorKind::NoMatch,
            format!(
                "{} has no entry {i} (it has {})",
                op.target.file_name(),
                store.entries().len()
            ),
        )),
        None => store.find(op.target, op.old_text.as_deref().unwrap_or_default()),
    }
}

/// Refuses a change that puts two entries side by side which the scanner
/// blocks when read together, as the prompt shows them (joined by `§`):
/// an attack split over two entries of a batch, or completed by its
/// neighbour. Only pairs not read before are read (the store remembers the
/// pairs that passed; the check is the store's, the same as a load's); an
/// entry already blocked on its own is left to its own verdict.
pub fn screen_neighbours(after: &mut Store, target: Target) -> Result<()> {
    let none = crate::store::VerdictCache::default();
    for i in 1..after.entries().len() {
        if after.verdict(i - 1).is_some() || after.verdict(i).is_some() {
            continue;
        }
        let Some(verdict) = after.read_pair(i - 1, &none) else {
            continue;
        };
        let Some(first) = verdict.findings.first() else {
            continue;
        };
        return Err(Error::new(
            ErrorKind::Blocked,
            format!(
                "Blocked: entries {i} and {} of {} read together (the prompt shows them side by \
                 side) match threat pattern '{}' ({}), though neither does alone. Memory \
                 entries are injected into the system prompt; nothing was saved.",
                i + 1,
                target.file_name(),
                first.id,
                first.category.name()
            ),
        ));
    }
    Ok(())
}

fn full_error(
    old: &Store,
    target: Target,
    limit: usize,
    after: usize,
    call: &ToolCall,
) -> Rejected {
    let used = old.chars();
    let what = match (call.batch, call.operations.first()) {
        (false, Some(op)) if op.action == Action::Add => format!(
            "Adding this entry ({} chars) would exceed the limit.",
            thousands(op.content.as_deref().unwrap_or_default().chars().count())
        ),
        (false, Some(op)) if op.action == Action::Replace => format!(
            "Replacing that entry with this one ({} chars) would exceed the limit.",
            thousands(op.content.as_deref().unwrap_or_default().chars().count())
        ),
        _ => format!(
            "These operations would bring it to {} chars, over the limit.",
            thousands(after)
        ),
    };
    let retry = match (call.batch, call.operations.first()) {
        (false, Some(op)) => format!("then retry this {}", op.action.name()),
        _ => "then retry the operations".to_string(),
    };
    let message = format!(
        "{} at {}/{} chars. {what} Consolidate now: use 'replace' to merge overlapping entries \
         into shorter ones or 'remove' stale or less important entries (see current_entries \
         below), {retry} — all in this turn.",
        target.title(),
        thousands(used),
        thousands(limit)
    );
    Rejected {
        error: Error::new(ErrorKind::StoreFull, message),
        target: Some(target),
        current_entries: Some(
            old.shown_all(target)
                .into_iter()
                .map(|e| e.into_owned())
                .collect(),
        ),
    }
}

/// The JSON a model reads back from the memory tool.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolResult {
    /// Whether the call did what was asked (a duplicate add counts).
    pub success: bool,
    /// What happened, on success.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// What went wrong and what was expected, on failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The stable error code, on failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<ErrorKind>,
    /// The store the call was about: `memory` or `user`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<Target>,
    /// Usage of that store: `"67% — 1,474/2,200 chars"` (the short
    /// `"2,100/2,200"` form in the full-store error, as in the spec).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<String>,
    /// Number of entries in that store.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry_count: Option<usize>,
    /// For `store-full`: the live entries, so the model can consolidate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_entries: Option<Vec<String>>,
    /// `true` when the model must stop retrying memory writes this turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub done: Option<bool>,
    /// For `search`: the matching notes, best first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub results: Option<Vec<crate::recall::SearchHit>>,
    /// Checks that could not run on this call, and why (a host classifier
    /// that failed); the scanner's rules still judged it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<Vec<String>>,
    /// `true` when the write was staged for the user's approval instead of
    /// applied: it is not in memory (yet), and is not an error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub staged: Option<bool>,
    /// The staged write's id, for the user's `approve`/`reject`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending_id: Option<String>,
    /// The chat line announcing the write
    /// (`display.memory_notifications`), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notification: Option<String>,
}

impl ToolResult {
    /// A result with only `success` set; the constructors fill in the rest.
    fn bare(success: bool) -> Self {
        ToolResult {
            success,
            message: None,
            error: None,
            code: None,
            target: None,
            usage: None,
            entry_count: None,
            current_entries: None,
            done: None,
            results: None,
            skipped: None,
            staged: None,
            pending_id: None,
            notification: None,
        }
    }

    /// A write staged for the user's approval as `id`.
    pub fn staged(id: &str, target: Option<Target>, store: Option<&Store>, limit: usize) -> Self {
        ToolResult {
            message: Some(format!(
                "Staged for the user's approval as {id}: it is not saved yet and will not be in \
                 memory unless the user approves it. Do not retry it; tell the user it awaits \
                 their approval if it matters now."
            )),
            target,
            usage: store.map(|s| usage_long(s.chars(), limit)),
            entry_count: store.map(|s| s.entries().len()),
            staged: Some(true),
            pending_id: Some(id.to_string()),
            ..ToolResult::bare(true)
        }
    }

    /// A success about `target`.
    pub fn ok(
        message: String,
        target: Option<Target>,
        store: Option<&Store>,
        limit: usize,
    ) -> Self {
        ToolResult {
            message: Some(message),
            target,
            usage: store.map(|s| usage_long(s.chars(), limit)),
            entry_count: store.map(|s| s.entries().len()),
            ..ToolResult::bare(true)
        }
    }

    /// The answer to a `search` call.
    pub fn found(hits: Vec<crate::recall::SearchHit>, target: Option<Target>) -> Self {
        let message = match hits.len() {
            0 => "No notes match. Try other words (synonyms are not matched).".to_string(),
            1 => "1 note matches.".to_string(),
            n => format!("{n} notes match, best first."),
        };
        ToolResult {
            message: Some(message),
            target,
            results: Some(hits),
            ..ToolResult::bare(true)
        }
    }

    /// A failure, with usage of `store` when known.
    pub fn failed(rejected: Rejected, store: Option<&Store>, limit: usize) -> Self {
        let full = rejected.error.kind() == ErrorKind::StoreFull;
        ToolResult {
            error: Some(rejected.error.message().to_string()),
            code: Some(rejected.error.kind()),
            target: rejected.target,
            usage: store.map(|s| {
                if full {
                    usage_short(s.chars(), limit)
                } else {
                    usage_long(s.chars(), limit)
                }
            }),
            entry_count: store.map(|s| s.entries().len()),
            current_entries: rejected.current_entries,
            ..ToolResult::bare(false)
        }
    }

    /// The final "stop retrying" answer.
    pub fn stop_retrying(last: &Error) -> Self {
        ToolResult {
            error: Some(format!("{STOP_RETRYING} (Last error: {})", last.message())),
            code: Some(ErrorKind::RetryLimit),
            done: Some(true),
            ..ToolResult::bare(false)
        }
    }

    /// This result as a JSON value.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// The tool description shown to the model: what to save and what to skip.
pub const DESCRIPTION: &str = "Save durable facts to your persistent memory. It survives across \
sessions and is shown to you in the system prompt at the start of each session (changes made now \
appear there next session; tool results show the live state).\n\n\
Targets: 'memory' for your own notes (environment facts, project conventions, tool quirks and \
workarounds, lessons learned, completed work worth remembering); 'user' for the user profile \
(name, role, timezone, preferences, communication style, things to avoid, skill level).\n\n\
Save proactively, without being asked, when you learn: a user preference, an environment fact, a \
correction of something you did, a project convention, a completed milestone, or anything the \
user asks you to remember. Keep entries compact and specific; pack related facts into one entry.\n\n\
Skip: trivial or vague facts, things easy to look up again, raw data (code blocks, logs, tables), \
one-off details of the current task, and anything already in the project's instruction files.\n\n\
Actions: 'add' a new entry (content); 'replace' the entry containing old_text (a short unique \
substring) with content; 'remove' the entry containing old_text; 'search' for notes matching \
query when the notes attached to the conversation miss something. Use 'operations' to send \
several writes as one atomic batch. When a store is full, the error lists current_entries: \
merge or remove entries and retry in the same turn.";

/// The JSON Schema of the memory tool's arguments. Valid as an OpenAI
/// function `parameters` object and as an Anthropic `input_schema`; it lists
/// only actions that work.
pub fn parameters_schema() -> Value {
    let op_props = serde_json::json!({
        "action": {
            "type": "string",
            "enum": Action::NAMES,
            "description": "add: new entry; replace: swap the entry containing old_text for content; remove: delete the entry containing old_text."
        },
        "target": {
            "type": "string",
            "enum": ["memory", "user"],
            "description": "memory: your own notes; user: the user profile."
        },
        "content": {
            "type": "string",
            "description": "The entry text (add, replace). Compact and specific."
        },
        "old_text": {
            "type": "string",
            "description": "A short substring that identifies exactly one existing entry (replace, remove)."
        }
    });
    let mut top = op_props.clone();
    if let Value::Object(map) = &mut top {
        map.insert(
            "action".into(),
            serde_json::json!({
                "type": "string",
                "enum": ["add", "replace", "remove", "search"],
                "description": "add: new entry; replace: swap the entry containing old_text for content; remove: delete the entry containing old_text; search: find notes matching query (both stores unless target is given)."
            }),
        );
        map.insert(
            "query".into(),
            serde_json::json!({
                "type": "string",
                "description": "What to look for (search): plain words, matched by stem in English and Russian."
            }),
        );
        map.insert(
            "limit".into(),
            serde_json::json!({
                "type": "integer",
                "minimum": 1,
                "maximum": SearchOptions::MAX_LIMIT,
                "description": "At most this many notes (search; default 10)."
            }),
        );
        map.insert(
            "operations".into(),
            serde_json::json!({
                "type": "array",
                "description": "Several actions applied atomically: all or none. Limits are judged after the whole batch.",
                "items": {
                    "type": "object",
                    "properties": op_props,
                    "required": ["action", "target"],
                    "additionalProperties": false
                }
            }),
        );
    }
    serde_json::json!({
        "type": "object",
        "properties": top,
        "additionalProperties": false
    })
}

/// The complete tool definition: `{name, description, parameters}` (OpenAI
/// style; use `parameters` as Anthropic's `input_schema`).
pub fn tool_schema() -> Value {
    serde_json::json!({
        "name": "memory",
        "description": DESCRIPTION,
        "parameters": parameters_schema()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn stores(memory: &[&str]) -> [Store; 2] {
        [
            Store::new(memory.iter().map(|s| s.to_string()).collect()),
            Store::default(),
        ]
    }

    fn run(stores: &mut [Store; 2], args: Value, config: &Config) -> Result<Applied, Rejected> {
        let call = ToolCall::parse(&args).map_err(Rejected::from)?;
        apply(stores, &call, config)
    }

    #[test]
    fn parse_reports_shape_errors_with_codes() {
        let cases = [
            (json!(42), "invalid-input"),
            (json!({"action": "add", "target": "memory"}), "empty"),
            (
                json!({"action": "add", "target": "memory", "content": "  "}),
                "empty",
            ),
            (
                json!({"action": "add", "target": "memory", "content": 5}),
                "invalid-input",
            ),
            (
                json!({"action": "fly", "target": "memory", "content": "x"}),
                "unknown-action",
            ),
            (
                json!({"action": "add", "target": "brain", "content": "x"}),
                "unknown-target",
            ),
            (json!({"action": "add", "content": "x"}), "invalid-input"),
            (
                json!({"action": "add", "target": "memory", "content": "x", "extra": 1}),
                "invalid-input",
            ),
            (
                json!({"action": "remove", "target": "memory", "old_text": null}),
                "empty",
            ),
            (json!({"operations": []}), "empty"),
            (json!({"operations": "add"}), "invalid-input"),
            (json!({"operations": [7]}), "invalid-input"),
            (
                json!({"operations": [{"action": "add", "target": "memory", "content": "x", "bogus": true}]}),
                "invalid-input",
            ),
        ];
        for (args, code) in cases {
            let e = ToolCall::parse(&args).unwrap_err();
            assert_eq!(e.code(), code, "{args} -> {e}");
        }
    }

    #[test]
    fn nulls_are_absent_and_string_arguments_are_decoded() {
        let call = ToolCall::parse(&json!({
            "action": "add", "target": "user", "content": "Likes tea", "old_text": null, "query": null
        }))
        .unwrap();
        assert_eq!(call.operations[0].content.as_deref(), Some("Likes tea"));
        let call = ToolCall::parse(&json!(
            "{\"action\":\"remove\",\"target\":\"memory\",\"old_text\":\"tea\"}"
        ))
        .unwrap();
        assert_eq!(call.operations[0].action, Action::Remove);
    }

    #[test]
    fn batch_is_atomic_and_judged_after_the_whole_batch() {
        let mut config = Config::default();
        config.memory.recall.enabled = false;
        config.memory.memory_char_limit = 20;
        let mut s = stores(&["aaaaaaaa", "bbbbbbbb"]); // 19 chars
                                                       // Adding first would overflow mid-batch, but the remove makes it fit.
        let ok = run(
            &mut s,
            json!({"operations": [
                {"action": "add", "target": "memory", "content": "cccccccc"},
                {"action": "remove", "target": "memory", "old_text": "aaaa"}
            ]}),
            &config,
        )
        .unwrap();
        assert_eq!(s[0].entries(), ["bbbbbbbb", "cccccccc"]);
        assert!(ok.message.starts_with("Applied 2 operations"));
        // A failing op in the middle leaves everything unchanged.
        let before = s.clone();
        let err = run(
            &mut s,
            json!({"operations": [
                {"action": "remove", "target": "memory", "old_text": "bbbb"},
                {"action": "remove", "target": "memory", "old_text": "zzzz"}
            ]}),
            &config,
        )
        .unwrap_err();
        assert_eq!(err.error.kind(), ErrorKind::NoMatch);
        assert!(err.error.message().contains("operations[1]"));
        assert_eq!(s, before);
    }

    #[test]
    fn full_store_error_has_the_spec_shape() {
        let mut config = Config::default();
        config.memory.recall.enabled = false;
        let mut s = stores(&[&"x".repeat(2_100)]);
        let err = run(
            &mut s,
            json!({"action": "add", "target": "memory", "content": "y".repeat(250)}),
            &config,
        )
        .unwrap_err();
        assert_eq!(err.error.kind(), ErrorKind::StoreFull);
        assert!(err.error.message().starts_with(
            "Memory at 2,100/2,200 chars. Adding this entry (250 chars) would exceed the limit. \
             Consolidate now:"
        ));
        assert!(err
            .error
            .message()
            .ends_with("then retry this add — all in this turn."));
        assert_eq!(err.current_entries.as_ref().unwrap().len(), 1);
        let result = ToolResult::failed(err, Some(&s[0]), 2_200);
        assert_eq!(result.usage.as_deref(), Some("2,100/2,200"));
    }

    #[test]
    fn schema_lists_only_working_actions() {
        let schema = tool_schema();
        assert_eq!(schema["parameters"]["type"], "object");
        assert_eq!(
            schema["parameters"]["properties"]["action"]["enum"],
            json!(["add", "replace", "remove", "search"])
        );
        assert_eq!(
            schema["parameters"]["properties"]["operations"]["items"]["properties"]["action"]
                ["enum"],
            json!(["add", "replace", "remove"])
        );
    }
}
