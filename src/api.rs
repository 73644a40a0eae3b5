//! The typed API: every option and request a front end passes to
//! [`Memory`](crate::Memory), validated once, here.
//!
//! Each front end (the JS binding, the WIT binding, the CLI, the edge
//! examples) converts what it received into these types and calls the core;
//! none of them decides a limit, a default or an error of its own. Every
//! option has one rule (in [`rule`]) and one error for breaking it, so the
//! same call gets the same answer on every surface. Options arrive either as
//! JSON (`from_json`: JS objects, tool arguments, HTTP bodies) or as typed
//! values (`new`: WIT records, CLI flags); both paths run the same rule.
//!
//! This module must never do I/O or hold state: it only shapes requests.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{Error, ErrorKind, Result};
use crate::store::Target;

pub use crate::tool::{Operation, SearchCall, ToolCall, ToolRequest};

/// The rules every option follows, one function per kind of value. Their
/// error messages name the option and what it accepts.
pub mod rule {
    use super::*;

    /// A store name: `memory` or `user` (`unknown-target` otherwise).
    pub fn target_name(name: &str) -> Result<Target> {
        Target::from_name(name).ok_or_else(|| {
            let shown: String = name.chars().take(40).collect();
            Error::new(
                ErrorKind::UnknownTarget,
                format!("unknown target {shown:?}; expected \"memory\" or \"user\""),
            )
        })
    }

    /// A JSON store name.
    pub fn target(value: &Value) -> Result<Target> {
        match value {
            Value::String(name) => target_name(name),
            _ => Err(Error::input(
                "target must be \"memory\" or \"user\" (a string)",
            )),
        }
    }

    /// An integer from `min` to `max` (typed callers).
    pub fn int_in(key: &str, n: u64, min: u64, max: u64) -> Result<u64> {
        if (min..=max).contains(&n) {
            Ok(n)
        } else {
            Err(out_of_range(key, min, max))
        }
    }

    /// A JSON integer from `min` to `max`.
    pub fn int(key: &str, value: &Value, min: u64, max: u64) -> Result<u64> {
        value
            .as_u64()
            .ok_or_else(|| out_of_range(key, min, max))
            .and_then(|n| int_in(key, n, min, max))
    }

    fn out_of_range(key: &str, min: u64, max: u64) -> Error {
        Error::input(format!("{key} must be an integer from {min} to {max}"))
    }

    /// A JSON string.
    pub fn string(key: &str, value: &Value) -> Result<String> {
        match value {
            Value::String(s) => Ok(s.clone()),
            _ => Err(Error::input(format!("{key} must be a string"))),
        }
    }

    /// A JSON string that means "absent" when blank (a filter).
    pub fn filter(key: &str, value: &Value) -> Result<Option<String>> {
        let s = string(key, value)?;
        Ok((!s.trim().is_empty()).then_some(s))
    }

    /// A JSON importance: a number from 0.0 to 1.0.
    pub fn importance(key: &str, value: &Value) -> Result<f64> {
        match value {
            Value::Number(n) => crate::meta::importance(key, n.as_f64().unwrap_or(f64::NAN)),
            _ => Err(Error::input(format!(
                "{key} must be a number from 0.0 to 1.0"
            ))),
        }
    }

    /// A JSON category name (`general` or blank: none).
    pub fn category(key: &str, value: &Value) -> Result<Option<crate::meta::Category>> {
        crate::meta::Category::parse(&string(key, value)?)
    }

    /// A JSON boolean.
    pub fn boolean(key: &str, value: &Value) -> Result<bool> {
        value
            .as_bool()
            .ok_or_else(|| Error::input(format!("{key} must be true or false")))
    }

    /// A time in ms since the Unix epoch (a non-negative integer).
    pub fn time(key: &str, value: &Value) -> Result<i64> {
        value
            .as_u64()
            .and_then(|n| i64::try_from(n).ok())
            .ok_or_else(|| {
                Error::input(format!(
                    "{key} must be a time in ms since the Unix epoch (a non-negative integer)"
                ))
            })
    }
}

/// The fields of an options object, `null` meaning absent; an unknown key
/// is `invalid-input` naming what is accepted.
pub(crate) fn fields(value: &Value, what: &str, allowed: &[&str]) -> Result<Vec<(String, Value)>> {
    let map: Map<String, Value> = match value {
        Value::Null => return Ok(Vec::new()),
        Value::Object(map) => map.clone(),
        _ => {
            return Err(Error::input(format!(
                "{what} must be an object with {}",
                allowed.join(", ")
            )))
        }
    };
    only_known(what, map.keys().map(String::as_str), allowed)?;
    Ok(map.into_iter().filter(|(_, v)| !v.is_null()).collect())
}

/// Checks a workspace name (JS's `workspace` option, the CLI's
/// `--workspace`): it becomes a directory, a database and a lock name, so
/// it has the form of a memory name, 1 to 64 of `A-Z a-z 0-9 - _ .` not
/// starting with a dot (never `.`, `..` or hidden); `invalid-input`
/// otherwise, before anything is created.
pub fn check_workspace(workspace: &str) -> Result<()> {
    if crate::storage::portable(workspace) {
        return Ok(());
    }
    let shown: String = workspace.chars().take(80).collect();
    Err(Error::input(format!(
        "{shown:?} cannot name a workspace: use 1 to 64 of A-Z a-z 0-9 - _ . (not starting with \
         a dot); nothing was created"
    )))
}

/// `invalid-input` naming the `keys` of a `what` that are not `allowed`.
pub(crate) fn only_known<'a>(
    what: &str,
    keys: impl Iterator<Item = &'a str>,
    allowed: &[&str],
) -> Result<()> {
    let unknown: Vec<&str> = keys.filter(|k| !allowed.contains(k)).collect();
    if unknown.is_empty() {
        return Ok(());
    }
    Err(Error::input(format!(
        "unknown {what} field(s) {}; expected only: {}",
        unknown.join(", "),
        allowed.join(", ")
    )))
}

/// Options of a note search (`search`, the tool's `search` action, `mnemo
/// search`): which store, and how many results.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SearchOptions {
    target: Option<Target>,
    limit: usize,
}

impl SearchOptions {
    /// Results when no limit is given.
    pub const DEFAULT_LIMIT: usize = 10;
    /// The largest limit accepted.
    pub const MAX_LIMIT: usize = 1000;
    const FIELDS: [&'static str; 2] = ["target", "limit"];

    /// Options from typed values; `limit` from 1 to [`MAX_LIMIT`](Self::MAX_LIMIT).
    pub fn new(target: Option<Target>, limit: Option<u64>) -> Result<SearchOptions> {
        let limit = match limit {
            None => Self::DEFAULT_LIMIT,
            Some(n) => rule::int_in("limit", n, 1, Self::MAX_LIMIT as u64)? as usize,
        };
        Ok(SearchOptions { target, limit })
    }

    /// Options from `{target?, limit?}` (`null` or absent: the defaults).
    pub fn from_json(value: &Value) -> Result<SearchOptions> {
        let mut target = None;
        let mut limit = None;
        for (key, v) in fields(value, "search options", &Self::FIELDS)? {
            match key.as_str() {
                "target" => target = Some(rule::target(&v)?),
                _ => limit = Some(rule::int("limit", &v, 1, Self::MAX_LIMIT as u64)?),
            }
        }
        SearchOptions::new(target, limit)
    }

    /// Only this store, when set.
    pub fn target(&self) -> Option<Target> {
        self.target
    }

    /// At most this many results.
    pub fn limit(&self) -> usize {
        self.limit
    }
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            target: None,
            limit: Self::DEFAULT_LIMIT,
        }
    }
}

/// Options of `recall`: how many results, the score threshold, the
/// importance range and category filters, and whether to explain scores.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RecallOptions {
    /// Only this store.
    pub target: Option<Target>,
    /// At most this many results (1 to 1000, default 10).
    pub limit: usize,
    /// Only results whose adjusted score reaches this (0 to 1; default 0).
    pub score_threshold: f64,
    /// Only entries at least this important.
    pub min_importance: f64,
    /// Only entries at most this important.
    pub max_importance: f64,
    /// Only this category (`general`: entries without one).
    pub category: Option<Option<crate::meta::Category>>,
    /// Each result carries every part of its score.
    pub explain: bool,
}

impl Default for RecallOptions {
    fn default() -> Self {
        RecallOptions {
            target: None,
            limit: SearchOptions::DEFAULT_LIMIT,
            score_threshold: 0.0,
            min_importance: 0.0,
            max_importance: 1.0,
            category: None,
            explain: false,
        }
    }
}

impl RecallOptions {
    const FIELDS: [&'static str; 8] = [
        "target",
        "limit",
        "scoreThreshold",
        "score_threshold",
        "minImportance",
        "maxImportance",
        "category",
        "explain",
    ];

    /// Options from `{target?, limit?, scoreThreshold?, minImportance?,
    /// maxImportance?, category?, explain?}` (snake_case accepted too for
    /// the threshold).
    pub fn from_json(value: &Value) -> Result<RecallOptions> {
        let mut o = RecallOptions::default();
        let value = match value {
            Value::Object(map) => {
                let mut map = map.clone();
                for (camel, snake) in [
                    ("minImportance", "min_importance"),
                    ("maxImportance", "max_importance"),
                ] {
                    if let Some(v) = map.remove(snake) {
                        map.insert(camel.to_string(), v);
                    }
                }
                Value::Object(map)
            }
            other => other.clone(),
        };
        for (key, v) in fields(&value, "recall options", &Self::FIELDS)? {
            match key.as_str() {
                "target" => o.target = Some(rule::target(&v)?),
                "limit" => {
                    o.limit = rule::int("limit", &v, 1, SearchOptions::MAX_LIMIT as u64)? as usize
                }
                "scoreThreshold" | "score_threshold" => {
                    o.score_threshold = rule::importance("scoreThreshold", &v)?
                }
                "minImportance" => o.min_importance = rule::importance("minImportance", &v)?,
                "maxImportance" => o.max_importance = rule::importance("maxImportance", &v)?,
                "category" => o.category = Some(rule::category("category", &v)?),
                _ => o.explain = rule::boolean("explain", &v)?,
            }
        }
        o.check()?;
        Ok(o)
    }

    /// Checks the options given as typed values.
    pub fn check(&self) -> Result<()> {
        rule::int_in(
            "limit",
            self.limit as u64,
            1,
            SearchOptions::MAX_LIMIT as u64,
        )?;
        for (key, v) in [
            ("scoreThreshold", self.score_threshold),
            ("minImportance", self.min_importance),
            ("maxImportance", self.max_importance),
        ] {
            crate::meta::importance(key, v)?;
        }
        if self.min_importance > self.max_importance {
            return Err(Error::input(format!(
                "minImportance ({}) is above maxImportance ({})",
                self.min_importance, self.max_importance
            )));
        }
        Ok(())
    }
}

/// Options of the sectors report: one sector, and how many entries each
/// sector lists (the rest are counted).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SectorsOptions {
    sector: Option<String>,
    limit: usize,
}

impl SectorsOptions {
    /// Entries listed per sector when no limit is given.
    pub const DEFAULT_LIMIT: usize = 12;
    /// The largest limit accepted.
    pub const MAX_LIMIT: usize = 100_000;
    const FIELDS: [&'static str; 2] = ["sector", "limit"];

    /// Options from typed values; `limit` from 0 (counts only) to
    /// [`MAX_LIMIT`](Self::MAX_LIMIT).
    pub fn new(sector: Option<String>, limit: Option<u64>) -> Result<SectorsOptions> {
        let limit = match limit {
            None => Self::DEFAULT_LIMIT,
            Some(n) => rule::int_in("limit", n, 0, Self::MAX_LIMIT as u64)? as usize,
        };
        let sector = sector.filter(|s| !s.trim().is_empty());
        Ok(SectorsOptions { sector, limit })
    }

    /// Options from `{sector?, limit?}`.
    pub fn from_json(value: &Value) -> Result<SectorsOptions> {
        let mut sector = None;
        let mut limit = None;
        for (key, v) in fields(value, "sectors options", &Self::FIELDS)? {
            match key.as_str() {
                "sector" => sector = Some(rule::string("sector", &v)?),
                _ => limit = Some(rule::int("limit", &v, 0, Self::MAX_LIMIT as u64)?),
            }
        }
        SectorsOptions::new(sector, limit)
    }

    /// Only this sector (by name, case-insensitive), when set.
    pub fn sector(&self) -> Option<&str> {
        self.sector.as_deref()
    }

    /// Entries listed per sector.
    pub fn limit(&self) -> usize {
        self.limit
    }
}

impl Default for SectorsOptions {
    fn default() -> Self {
        SectorsOptions {
            sector: None,
            limit: Self::DEFAULT_LIMIT,
        }
    }
}

/// Options of `remember`: the store a confirmed fact goes to (default the
/// user profile), and the importance and category it gets. Search options
/// such as `limit` are refused.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RememberOptions {
    target: Target,
    /// The fact's importance (default 0.5).
    pub importance: Option<f64>,
    /// The fact's category (default General).
    pub category: Option<crate::meta::Category>,
}

impl RememberOptions {
    /// Options from a typed target (default `user`).
    pub fn new(target: Option<Target>) -> RememberOptions {
        RememberOptions {
            target: target.unwrap_or(Target::User),
            importance: None,
            category: None,
        }
    }

    /// Options from `{target?, importance?, category?}`.
    pub fn from_json(value: &Value) -> Result<RememberOptions> {
        let mut options = RememberOptions::new(None);
        for (key, v) in fields(
            value,
            "remember options",
            &["target", "importance", "category"],
        )? {
            match key.as_str() {
                "target" => options.target = rule::target(&v)?,
                "importance" => options.importance = Some(rule::importance("importance", &v)?),
                _ => options.category = rule::category("category", &v)?,
            }
        }
        Ok(options)
    }

    /// The store.
    pub fn target(&self) -> Target {
        self.target
    }
}

impl Default for RememberOptions {
    fn default() -> Self {
        RememberOptions::new(None)
    }
}

/// A completed turn to record: the user's message and the answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Turn {
    /// The host's session id.
    pub session: String,
    /// The user's message.
    pub user: String,
    /// The assistant's answer.
    pub assistant: String,
    /// When, in ms since the Unix epoch (default: now, by the storage's
    /// clock).
    pub time: Option<i64>,
    /// The source or agent recording it (default [`Turn::DEFAULT_SOURCE`]).
    pub source: String,
}

impl Turn {
    /// The source of a turn that names none.
    pub const DEFAULT_SOURCE: &'static str = "agent";
    const FIELDS: [&'static str; 5] = ["session", "user", "assistant", "time", "source"];

    /// A turn from `{session, user, assistant, time?, source?}`.
    pub fn from_json(value: &Value) -> Result<Turn> {
        if !value.is_object() {
            return Err(Error::input(
                "a turn must be an object {session, user, assistant, time?, source?}",
            ));
        }
        let mut turn = Turn {
            session: String::new(),
            user: String::new(),
            assistant: String::new(),
            time: None,
            source: Turn::DEFAULT_SOURCE.to_string(),
        };
        for (key, v) in fields(value, "turn", &Self::FIELDS)? {
            match key.as_str() {
                "session" => turn.session = rule::string("session", &v)?,
                "user" => turn.user = rule::string("user", &v)?,
                "assistant" => turn.assistant = rule::string("assistant", &v)?,
                "source" => turn.source = rule::string("source", &v)?,
                _ => turn.time = Some(rule::time("time", &v)?),
            }
        }
        Ok(turn)
    }
}

/// The sequence numbers a recorded turn got.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RecordedTurn {
    /// The session id.
    pub session: String,
    /// The user message's sequence number.
    pub user: i64,
    /// The answer's sequence number.
    pub assistant: i64,
}

/// The most results a session query returns.
pub const MAX_SESSION_LIMIT: u64 = 50;
/// Session results when no limit is given.
pub const DEFAULT_SESSION_LIMIT: u64 = 10;
/// The most messages read before or after a message.
pub const MAX_SCROLL: u64 = 200;
const MAX_OFFSET: u64 = (i64::MAX / 4) as u64;

fn session_limit(v: &Value) -> Result<usize> {
    Ok(rule::int("limit", v, 1, MAX_SESSION_LIMIT)? as usize)
}

/// Options of a session search (discovery): filters and a limit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SessionSearchOptions {
    /// Only this session.
    pub session: Option<String>,
    /// Only this role (`user`, `assistant`).
    pub role: Option<String>,
    /// Only this source or agent.
    pub source: Option<String>,
    /// Only messages at or after this time (ms).
    pub since: Option<i64>,
    /// Only messages at or before this time (ms).
    pub until: Option<i64>,
    limit: usize,
}

impl Default for SessionSearchOptions {
    fn default() -> Self {
        SessionSearchOptions {
            session: None,
            role: None,
            source: None,
            since: None,
            until: None,
            limit: DEFAULT_SESSION_LIMIT as usize,
        }
    }
}

impl SessionSearchOptions {
    /// Options from `{session?, role?, source?, since?, until?, limit?}`.
    pub fn from_json(value: &Value) -> Result<SessionSearchOptions> {
        let keys = ["session", "role", "source", "since", "until", "limit"];
        SessionSearchOptions::from_fields(fields(value, "session search options", &keys)?)
    }

    fn from_fields(fields: Vec<(String, Value)>) -> Result<SessionSearchOptions> {
        let mut out = SessionSearchOptions::default();
        for (key, v) in fields {
            match key.as_str() {
                "session" | "session_id" => out.session = rule::filter(&key, &v)?,
                "role" => out.role = rule::filter("role", &v)?,
                "source" => out.source = rule::filter("source", &v)?,
                "since" => out.since = Some(rule::time("since", &v)?),
                "until" => out.until = Some(rule::time("until", &v)?),
                "limit" => out.limit = session_limit(&v)?,
                _ => {}
            }
        }
        Ok(out)
    }

    /// Options from typed values (blank filters count as absent; the limit
    /// from 1 to 50).
    pub fn new(
        session: Option<String>,
        role: Option<String>,
        source: Option<String>,
        since: Option<i64>,
        until: Option<i64>,
        limit: Option<u64>,
    ) -> Result<SessionSearchOptions> {
        let filter = |s: Option<String>| s.filter(|s| !s.trim().is_empty());
        let time = |key: &str, t: Option<i64>| match t {
            Some(t) if t < 0 => Err(Error::input(format!(
                "{key} must be a time in ms since the Unix epoch (a non-negative integer)"
            ))),
            t => Ok(t),
        };
        Ok(SessionSearchOptions {
            session: filter(session),
            role: filter(role),
            source: filter(source),
            since: time("since", since)?,
            until: time("until", until)?,
            limit: match limit {
                None => DEFAULT_SESSION_LIMIT as usize,
                Some(n) => rule::int_in("limit", n, 1, MAX_SESSION_LIMIT)? as usize,
            },
        })
    }

    /// At most this many hits.
    pub fn limit(&self) -> usize {
        self.limit
    }
}

/// Which messages of a session to read: around a message (5 before and 5
/// after by default) or, without `around`, from the start (the first 20).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ScrollOptions {
    /// The message to read around (its seq; default the first).
    pub around: i64,
    /// Messages before it.
    pub before: i64,
    /// Messages after it.
    pub after: i64,
}

impl Default for ScrollOptions {
    fn default() -> Self {
        ScrollOptions::new(None, None, None).expect("defaults are valid")
    }
}

impl ScrollOptions {
    /// Options from typed values (`before`/`after` up to 200).
    pub fn new(around: Option<u64>, before: Option<u64>, after: Option<u64>) -> Result<Self> {
        let near = around.is_some();
        let count = |key, n: Option<u64>, default| match n {
            None => Ok(default),
            Some(n) => rule::int_in(key, n, 0, MAX_SCROLL).map(|n| n as i64),
        };
        Ok(ScrollOptions {
            around: match around {
                None => 1,
                Some(n) => rule::int_in("around", n, 0, MAX_OFFSET)? as i64,
            },
            before: count("before", before, if near { 5 } else { 0 })?,
            after: count("after", after, if near { 5 } else { 20 })?,
        })
    }

    /// Options from `{around?, before?, after?}`.
    pub fn from_json(value: &Value) -> Result<ScrollOptions> {
        let keys = ["around", "before", "after"];
        ScrollOptions::from_fields(fields(value, "session messages options", &keys)?)
    }

    fn from_fields(fields: Vec<(String, Value)>) -> Result<ScrollOptions> {
        let (mut around, mut before, mut after) = (None, None, None);
        for (key, v) in fields {
            match key.as_str() {
                "around" => around = Some(rule::int("around", &v, 0, MAX_OFFSET)?),
                "before" => before = Some(rule::int("before", &v, 0, MAX_SCROLL)?),
                "after" => after = Some(rule::int("after", &v, 0, MAX_SCROLL)?),
                _ => {}
            }
        }
        ScrollOptions::new(around, before, after)
    }
}

/// Options of a transcript import (JS `importTranscript`'s third argument).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TranscriptOptions {
    /// The transcript file's name (or path): the session id when the
    /// transcript itself does not say it (see [`crate::transcripts::parse`]).
    pub name: Option<String>,
}

impl TranscriptOptions {
    /// Options from `{name?}`.
    pub fn from_json(value: &Value) -> Result<TranscriptOptions> {
        let mut out = TranscriptOptions::default();
        for (key, v) in fields(value, "importTranscript options", &["name"])? {
            if key == "name" {
                out.name = Some(rule::string("name", &v)?);
            }
        }
        Ok(out)
    }
}

/// Which sessions to list, most recent first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ListOptions {
    /// Sessions to skip.
    pub offset: usize,
    limit: usize,
}

impl Default for ListOptions {
    fn default() -> Self {
        ListOptions {
            offset: 0,
            limit: DEFAULT_SESSION_LIMIT as usize,
        }
    }
}

impl ListOptions {
    /// Options from typed values (the limit from 1 to 50).
    pub fn new(offset: Option<u64>, limit: Option<u64>) -> Result<ListOptions> {
        Ok(ListOptions {
            offset: match offset {
                None => 0,
                Some(n) => rule::int_in("offset", n, 0, MAX_OFFSET)? as usize,
            },
            limit: match limit {
                None => DEFAULT_SESSION_LIMIT as usize,
                Some(n) => rule::int_in("limit", n, 1, MAX_SESSION_LIMIT)? as usize,
            },
        })
    }

    /// Options from `{offset?, limit?}`.
    pub fn from_json(value: &Value) -> Result<ListOptions> {
        ListOptions::from_fields(fields(value, "sessions options", &["offset", "limit"])?)
    }

    fn from_fields(fields: Vec<(String, Value)>) -> Result<ListOptions> {
        let mut out = ListOptions::default();
        for (key, v) in fields {
            match key.as_str() {
                "offset" => out.offset = rule::int("offset", &v, 0, MAX_OFFSET)? as usize,
                "limit" => out.limit = session_limit(&v)?,
                _ => {}
            }
        }
        Ok(out)
    }

    /// At most this many sessions.
    pub fn limit(&self) -> usize {
        self.limit
    }
}

/// A `session_search` tool call, typed: its three shapes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionCall {
    /// With `query`: find messages.
    Discovery {
        /// The words to look for.
        query: String,
        /// Filters and limit.
        options: SessionSearchOptions,
    },
    /// With `session_id` and no query: read messages of that session.
    Scroll {
        /// The session.
        session: String,
        /// Which messages.
        options: ScrollOptions,
    },
    /// With neither: list recent sessions.
    Browse(ListOptions),
}

const SESSION_TOOL_FIELDS: [&str; 11] = [
    "query",
    "session_id",
    "around",
    "before",
    "after",
    "role",
    "source",
    "since",
    "until",
    "limit",
    "offset",
];

impl SessionCall {
    /// Parses `session_search` tool arguments exactly as a model sent them.
    pub fn from_tool_args(args: &Value) -> Result<SessionCall> {
        if !matches!(args, Value::Object(_) | Value::Null) {
            return Err(Error::input("expected the arguments as a JSON object"));
        }
        let all = fields(args, "session_search", &SESSION_TOOL_FIELDS)?;
        let pick = |keys: &[&str]| -> Vec<(String, Value)> {
            all.iter()
                .filter(|(k, _)| keys.contains(&k.as_str()))
                .cloned()
                .collect()
        };
        let get = |key: &str| all.iter().find(|(k, _)| k == key).map(|(_, v)| v);
        let session = get("session_id")
            .map(|v| rule::filter("session_id", v))
            .transpose()?
            .flatten();
        let query = get("query")
            .map(|v| rule::filter("query", v))
            .transpose()?
            .flatten();
        if let Some(query) = query {
            let options = SessionSearchOptions::from_fields(pick(&[
                "session_id",
                "role",
                "source",
                "since",
                "until",
                "limit",
            ]))?;
            return Ok(SessionCall::Discovery { query, options });
        }
        if let Some(session) = session {
            let options = ScrollOptions::from_fields(pick(&["around", "before", "after"]))?;
            return Ok(SessionCall::Scroll { session, options });
        }
        Ok(SessionCall::Browse(ListOptions::from_fields(pick(&[
            "offset", "limit",
        ]))?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn search_limits_follow_one_rule_on_both_paths() {
        let typed = SearchOptions::new(None, Some(5000)).unwrap_err();
        let json = SearchOptions::from_json(&json!({"limit": 5000})).unwrap_err();
        assert_eq!(typed, json);
        assert_eq!(typed.kind(), ErrorKind::InvalidInput);
        assert_eq!(typed.message(), "limit must be an integer from 1 to 1000");
        assert_eq!(
            SearchOptions::from_json(&json!({"limit": 0})).unwrap_err(),
            json
        );
        assert_eq!(
            SearchOptions::from_json(&json!({"limit": 2.5})).unwrap_err(),
            json
        );
        assert_eq!(SearchOptions::from_json(&Value::Null).unwrap().limit(), 10);
        let bad = SearchOptions::from_json(&json!({"target": "both"})).unwrap_err();
        assert_eq!(bad.kind(), ErrorKind::UnknownTarget);
        let unknown = SearchOptions::from_json(&json!({"top_k": 3})).unwrap_err();
        assert!(unknown.message().contains("top_k"), "{}", unknown.message());
    }

    #[test]
    fn remember_refuses_search_options() {
        let e = RememberOptions::from_json(&json!({"limit": 3})).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        assert_eq!(
            RememberOptions::from_json(&json!({"target": "memory"}))
                .unwrap()
                .target(),
            Target::Memory
        );
        assert_eq!(RememberOptions::default().target(), Target::User);
    }

    #[test]
    fn session_tool_args_take_three_shapes() {
        let call = SessionCall::from_tool_args(&json!({"query": "x", "limit": 3})).unwrap();
        assert!(matches!(call, SessionCall::Discovery { ref options, .. } if options.limit() == 3));
        let call = SessionCall::from_tool_args(&json!({"session_id": "s", "around": 4})).unwrap();
        assert_eq!(
            call,
            SessionCall::Scroll {
                session: "s".into(),
                options: ScrollOptions {
                    around: 4,
                    before: 5,
                    after: 5
                }
            }
        );
        let call = SessionCall::from_tool_args(&json!({"session_id": "  "})).unwrap();
        assert!(matches!(call, SessionCall::Browse(_)));
        let e = SessionCall::from_tool_args(&json!({"limit": 0})).unwrap_err();
        assert_eq!(e.message(), "limit must be an integer from 1 to 50");
        assert!(SessionCall::from_tool_args(&json!([1])).is_err());
    }

    #[test]
    fn turns_check_every_field() {
        let t = Turn::from_json(&json!({"session": "s", "user": "u", "assistant": "a"})).unwrap();
        assert_eq!((t.time, t.source.as_str()), (None, Turn::DEFAULT_SOURCE));
        for bad in [
            json!({"session": 1}),
            json!({"time": -1}),
            json!({"time": 1.5}),
            json!({"speaker": "x"}),
            json!("s"),
        ] {
            assert_eq!(
                Turn::from_json(&bad).unwrap_err().kind(),
                ErrorKind::InvalidInput,
                "{bad}"
            );
        }
    }
}
