//! Transcripts that agents already keep, read as session messages: mnemo's
//! own JSON Lines, Claude Code's session files and Codex's rollout files.
//!
//! Nothing here is recorded behind anybody's back: a host (the CLI's
//! `mnemo sessions import`, the JS `importTranscript`) hands over the text
//! of a transcript the user chose, and the session store records what this
//! module reads from it (`Sessions::import`, in builds with SQLite).
//!
//! What is read: the words a person reads in the agent's window, the user's
//! messages and the assistant's answers. Left out on purpose (counted as
//! `ignored`): tool calls and tool results (file contents and command
//! output, bulky, often not the user's words, and the usual way injected
//! text arrives), thinking and reasoning, images, sub-agent conversations
//! (Claude Code's `isSidechain`), text the harness writes in the user's or
//! the assistant's place (Claude Code's `isMeta` lines, compaction
//! summaries, slash command echoes, synthetic API error messages; Codex's
//! `<environment_context>`, `<user_instructions>` and `AGENTS.md` blocks,
//! developer and system messages), and every line that is not a message
//! (summaries, snapshots, events, turn contexts).
//!
//! Bad input: a line that is not JSON, or a message record of the wrong
//! shape, is skipped and counted (`malformed`): an agent still writing its
//! file leaves a partial last line. A text in which no line is a record of
//! the format named is refused with `invalid-input`, and nothing of it is
//! read. mnemo's own format stays strict: one bad line refuses the file.
//!
//! Idempotence: every message of an agent's transcript carries a stable
//! `key`, Claude Code's line `uuid`, or for Codex (whose lines have no id)
//! a digest of the line with its occurrence number; the session store keeps
//! the key with the message and skips a key it already has, so importing a
//! file again adds nothing and importing a file that grew adds what is new.
//!
//! This module parses text: it never reads a file, a clock or a database.

use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::error::{Error, ErrorKind, Result};
use crate::time::parse_iso;

/// A transcript format [`parse`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// mnemo's own JSON Lines: `{session, role, text, time?, source?}`.
    Mnemo,
    /// Claude Code's session files (`~/.claude/projects/<project>/<session>.jsonl`).
    ClaudeCode,
    /// Codex's rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
    Codex,
}

impl Format {
    /// Every format, in the order the docs list them.
    pub const ALL: [Format; 3] = [Format::Mnemo, Format::ClaudeCode, Format::Codex];

    /// Its name: `mnemo`, `claude-code`, `codex`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Mnemo => "mnemo",
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
        }
    }

    /// The format called `name`; `invalid-input` naming the known ones
    /// otherwise.
    pub fn from_name(name: &str) -> Result<Format> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidInput,
                    format!(
                        "unknown transcript format {name:?}; known: {}",
                        Format::ALL.map(Format::name).join(", ")
                    ),
                )
            })
    }

    /// How people call it in messages.
    fn title(self) -> &'static str {
        match self {
            Format::Mnemo => "mnemo transcript",
            Format::ClaudeCode => "Claude Code session file",
            Format::Codex => "Codex session file",
        }
    }
}

/// One message read from a transcript.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TranscriptMessage {
    /// The agent's session id.
    pub session: String,
    /// `user` or `assistant` (mnemo's own format: as written).
    pub role: String,
    /// The text, whole.
    pub text: String,
    /// ms since the Unix epoch; `None` when the transcript gives none (the
    /// importer records the time of the import).
    pub time: Option<i64>,
    /// What recorded it: `claude-code`, `codex`, or the line's `source` in
    /// mnemo's format (default `import`).
    pub source: String,
    /// The stable key of the record it came from (see the module docs);
    /// `None` in mnemo's own format, whose import appends every time.
    pub key: Option<String>,
}

/// What [`parse`] read from one transcript.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Transcript {
    /// The messages, in the transcript's order.
    pub messages: Vec<TranscriptMessage>,
    /// Lines skipped because they could not be read: not JSON (a partial
    /// last line), or a message record of the wrong shape.
    pub malformed: usize,
    /// Records read and left out on purpose (see the module docs).
    pub ignored: usize,
}

/// What an import of transcripts did (the CLI's summary, the JS
/// `importTranscript` result).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ImportReport {
    /// Transcript files read.
    pub files: usize,
    /// Sessions their messages belong to (new or already recorded).
    pub sessions: usize,
    /// Messages added now.
    pub messages: usize,
    /// Messages an earlier import already recorded, not added again.
    pub present: usize,
    /// Lines skipped because they could not be read (see
    /// [`Transcript::malformed`]).
    pub skipped: usize,
    /// Messages left out for being longer than the session store takes
    /// ([`crate::scan::MAX_SCAN_BYTES`]); nothing is ever cut.
    pub too_long: usize,
    /// Records left out on purpose: tool calls and results, thinking,
    /// metadata (see the module docs).
    pub ignored: usize,
}

/// Reads `text` as a transcript in `format`. `name` is the file's name, if
/// there is a file: the session id when the transcript does not say it
/// (Claude Code's `<session>.jsonl`, Codex's `rollout-<time>-<id>.jsonl`).
///
/// Errors: `invalid-input` when no line of `text` is a record of `format`
/// (nothing is read), and, in mnemo's own format, for any bad line.
pub fn parse(format: Format, text: &str, name: Option<&str>) -> Result<Transcript> {
    if format == Format::Mnemo {
        return parse_mnemo(text);
    }
    let mut reader = Reader::new(format, name.and_then(session_from_name));
    let mut complete = 0;
    for (line, ends) in lines(text) {
        complete += usize::from(ends);
        match format {
            Format::ClaudeCode => reader.claude_line(line),
            _ => reader.codex_line(line),
        }
    }
    if !reader.recognised && complete > 0 {
        let other = match format {
            Format::ClaudeCode => Format::Codex,
            _ => Format::ClaudeCode,
        };
        let looks_like = if lines(text).any(|(l, _)| is_record(other, l)) {
            format!(
                " (it looks like a {}: format {:?})",
                other.title(),
                other.name()
            )
        } else if lines(text).any(|(l, _)| parse_mnemo_line(l, 0).is_ok()) {
            format!(
                " (it looks like a {}: format {:?})",
                Format::Mnemo.title(),
                Format::Mnemo.name()
            )
        } else {
            String::new()
        };
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!(
                "this is not a {}: none of its lines is one of its records{looks_like}; \
                 nothing was imported",
                format.title()
            ),
        ));
    }
    reader.finish()
}

/// The lines of `text`, without their line ends, each with whether a line
/// end closed it (a last line without one may still be being written).
fn lines(text: &str) -> impl Iterator<Item = (&str, bool)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let r = rest?;
        match r.find('\n') {
            Some(i) => {
                rest = Some(&r[i + 1..]);
                Some((&r[..i], true))
            }
            None => {
                rest = None;
                Some((r, false))
            }
        }
    })
    .map(|(l, ends)| (l.strip_suffix('\r').unwrap_or(l), ends))
    .filter(|(l, _)| !l.trim().is_empty())
}

/// The session id a file's name gives: the stem of `<id>.jsonl`, or the
/// trailing UUID of Codex's `rollout-<time>-<uuid>.jsonl`.
fn session_from_name(name: &str) -> Option<String> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let stem = base.strip_suffix(".jsonl").unwrap_or(base);
    if let Some(rest) = stem.strip_prefix("rollout-") {
        let uuid = rest.get(rest.len().checked_sub(36)?..)?;
        let looks = uuid.len() == 36
            && uuid.char_indices().all(|(i, c)| {
                if [8, 13, 18, 23].contains(&i) {
                    c == '-'
                } else {
                    c.is_ascii_hexdigit()
                }
            });
        return looks.then(|| uuid.to_string());
    }
    (!stem.trim().is_empty()).then(|| stem.to_string())
}

/// Whether `line` is a record of `format` (what tells a transcript from
/// any other JSON Lines file).
fn is_record(format: Format, line: &str) -> bool {
    let Ok(Value::Object(v)) = serde_json::from_str::<Value>(line) else {
        return false;
    };
    match format {
        Format::ClaudeCode => claude_record(&v),
        Format::Codex => codex_record(&v),
        Format::Mnemo => false,
    }
}

/// A Claude Code record: a `type`, and the session or line ids every
/// record carries (summaries and snapshots have their own).
fn claude_record(v: &Map<String, Value>) -> bool {
    v.get("type").is_some_and(Value::is_string)
        && ["sessionId", "uuid", "leafUuid", "messageId"]
            .iter()
            .any(|k| v.get(*k).is_some_and(Value::is_string))
}

/// Codex's item types, as its rollout files write them (inside a
/// `response_item` payload, or alone in the older files).
const CODEX_ITEMS: [&str; 10] = [
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "local_shell_call",
    "custom_tool_call",
    "custom_tool_call_output",
    "web_search_call",
    "tool_search_call",
    "image_generation_call",
];

/// A Codex record: an envelope `{timestamp, type, payload}`, or in the
/// older files an item alone, a `record_type` marker, or the first line's
/// session meta `{id, timestamp, …}`.
fn codex_record(v: &Map<String, Value>) -> bool {
    let kind = v.get("type").and_then(Value::as_str);
    match kind {
        Some(_) if v.get("payload").is_some_and(Value::is_object) => true,
        Some(k) => CODEX_ITEMS.contains(&k) && (k != "message" || v.contains_key("role")),
        None => {
            v.contains_key("record_type")
                || (v.get("id").is_some_and(Value::is_string)
                    && v.get("timestamp").is_some_and(Value::is_string))
        }
    }
}

/// The reader of one agent transcript.
struct Reader {
    format: Format,
    out: Transcript,
    recognised: bool,
    /// The session id from the file's name.
    fallback: Option<String>,
    /// Codex: the session id and start time from `session_meta`.
    session: Option<String>,
    started: Option<i64>,
    /// How often each line digest has been seen (keys of repeated lines).
    seen: std::collections::HashMap<String, usize>,
}

impl Reader {
    fn new(format: Format, fallback: Option<String>) -> Reader {
        Reader {
            format,
            out: Transcript::default(),
            recognised: false,
            fallback,
            session: None,
            started: None,
            seen: Default::default(),
        }
    }

    /// The key of a line without an id of its own: a digest of it, with
    /// its occurrence number from the second time on (an agent may write
    /// the same line twice; a file only grows at its end, so numbers stay).
    fn digest_key(&mut self, line: &str) -> String {
        let hex = crate::text::hex(&Sha256::digest(line.as_bytes())[..8]);
        let n = self.seen.entry(hex.clone()).or_insert(0);
        *n += 1;
        if *n == 1 {
            hex
        } else {
            format!("{hex}#{n}")
        }
    }

    fn push(&mut self, session: String, role: &str, text: String, time: Option<i64>, key: String) {
        // SQLite text cannot hold NUL: such a message is unreadable here.
        if text.contains('\0') || session.contains('\0') {
            self.out.malformed += 1;
            return;
        }
        self.out.messages.push(TranscriptMessage {
            session,
            role: role.to_string(),
            text,
            time,
            source: self.format.name().to_string(),
            key: Some(key),
        });
    }

    /// One line of a Claude Code session file.
    fn claude_line(&mut self, line: &str) {
        let Ok(Value::Object(v)) = serde_json::from_str::<Value>(line) else {
            self.out.malformed += 1;
            return;
        };
        if !claude_record(&v) {
            self.out.ignored += 1;
            return;
        }
        self.recognised = true;
        let kind = v.get("type").and_then(Value::as_str).unwrap_or_default();
        let flag = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
        if !matches!(kind, "user" | "assistant")
            || flag("isSidechain")
            || flag("isMeta")
            || flag("isCompactSummary")
            || flag("isVisibleInTranscriptOnly")
            || flag("isApiErrorMessage")
        {
            self.out.ignored += 1;
            return;
        }
        let Some(Value::Object(message)) = v.get("message") else {
            self.out.malformed += 1;
            return;
        };
        let role = message.get("role").and_then(Value::as_str).unwrap_or(kind);
        let text = match message.get("content") {
            Some(Value::String(s)) => s.trim().to_string(),
            Some(Value::Array(blocks)) => blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .map(str::trim)
                .filter(|t| !t.is_empty() && !wrapped_in(t, &["system-reminder"]))
                .collect::<Vec<_>>()
                .join("\n\n"),
            _ => {
                self.out.malformed += 1;
                return;
            }
        };
        if !matches!(role, "user" | "assistant")
            || text.is_empty()
            || (role == "user" && claude_harness_text(&text))
        {
            self.out.ignored += 1;
            return;
        }
        let session = v
            .get("sessionId")
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .map(str::to_string)
            .or_else(|| self.fallback.clone());
        let Some(session) = session else {
            self.out.malformed += 1;
            return;
        };
        let time = v
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(parse_iso);
        let key = match v.get("uuid").and_then(Value::as_str) {
            Some(uuid) if !uuid.is_empty() => uuid.to_string(),
            _ => self.digest_key(line),
        };
        self.push(session, role, text, time, key);
    }

    /// One line of a Codex rollout file.
    fn codex_line(&mut self, line: &str) {
        let Ok(Value::Object(v)) = serde_json::from_str::<Value>(line) else {
            self.out.malformed += 1;
            return;
        };
        if !codex_record(&v) {
            self.out.ignored += 1;
            return;
        }
        self.recognised = true;
        let stamp = v
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(parse_iso);
        match (v.get("type").and_then(Value::as_str), v.get("payload")) {
            (Some("session_meta"), Some(Value::Object(meta))) => {
                self.meta(meta, stamp);
                self.out.ignored += 1;
            }
            (Some("response_item"), Some(Value::Object(item))) => {
                self.codex_item(item, stamp, line);
            }
            (_, Some(_)) => self.out.ignored += 1,
            (Some("message"), None) => self.codex_item(&v, stamp, line),
            (Some(_), None) => self.out.ignored += 1,
            (None, _) => {
                // The older files: `{record_type: "state"}` markers, and a
                // first line holding the session meta itself.
                if !v.contains_key("record_type") && self.session.is_none() {
                    self.meta(&v, stamp);
                }
                self.out.ignored += 1;
            }
        }
    }

    fn meta(&mut self, meta: &Map<String, Value>, stamp: Option<i64>) {
        if let Some(id) = meta.get("id").and_then(Value::as_str) {
            if !id.trim().is_empty() {
                self.session.get_or_insert_with(|| id.to_string());
            }
        }
        let started = meta
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(parse_iso)
            .or(stamp);
        if self.started.is_none() {
            self.started = started;
        }
    }

    /// A Codex item: a user's or the assistant's message is read, every
    /// other item (tool calls, reasoning, developer text) left out.
    fn codex_item(&mut self, item: &Map<String, Value>, stamp: Option<i64>, line: &str) {
        if item.get("type").and_then(Value::as_str) != Some("message") {
            self.out.ignored += 1;
            return;
        }
        let Some(role) = item.get("role").and_then(Value::as_str) else {
            self.out.malformed += 1;
            return;
        };
        let text = match item.get("content") {
            Some(Value::Array(parts)) => parts
                .iter()
                .filter(|p| {
                    matches!(
                        p.get("type").and_then(Value::as_str),
                        Some("input_text" | "output_text" | "text")
                    )
                })
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .filter(|t| role != "user" || !codex_harness_text(t))
                .collect::<Vec<_>>()
                .join("\n\n"),
            Some(Value::String(s)) => s.trim().to_string(),
            _ => {
                self.out.malformed += 1;
                return;
            }
        };
        if !matches!(role, "user" | "assistant") || text.is_empty() {
            self.out.ignored += 1;
            return;
        }
        // The session id is filled in by `finish` when the meta line is
        // missing (it is the first line of every file Codex writes).
        let session = self.session.clone().unwrap_or_default();
        let key = self.digest_key(line);
        let time = stamp.or(self.started);
        self.push(session, role, text, time, key);
    }

    fn finish(mut self) -> Result<Transcript> {
        if self.format == Format::Codex && self.out.messages.iter().any(|m| m.session.is_empty()) {
            let Some(id) = self.session.clone().or_else(|| self.fallback.clone()) else {
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    "this Codex session file has no session_meta line and no file name to \
                     take the session id from; nothing was imported",
                ));
            };
            for m in self
                .out
                .messages
                .iter_mut()
                .filter(|m| m.session.is_empty())
            {
                m.session = id.clone();
            }
        }
        Ok(self.out)
    }
}

/// Whether `text` is one `<tag …>…</tag>` block of one of `tags`.
fn wrapped_in(text: &str, tags: &[&str]) -> bool {
    tags.iter().any(|tag| {
        text.strip_prefix('<')
            .and_then(|t| t.strip_prefix(tag))
            .is_some_and(|t| t.starts_with(['>', ' ', '\n']))
            && text.ends_with(&format!("</{tag}>"))
    })
}

/// Text Claude Code writes in the user's place: slash-command echoes and
/// their output, and its own notices.
fn claude_harness_text(text: &str) -> bool {
    [
        "<command-name>",
        "<command-message>",
        "<command-args>",
        "<local-command-stdout>",
        "<local-command-stderr>",
        "<local-command-caveat>",
        "<bash-stdout>",
        "<bash-stderr>",
        "[Request interrupted by user",
        "Caveat: The messages below were generated by the user while running local commands",
    ]
    .iter()
    .any(|p| text.starts_with(p))
}

/// Text Codex sends as a user message that the user did not write: the
/// environment, the user's and the project's standing instructions.
fn codex_harness_text(text: &str) -> bool {
    text.starts_with("# AGENTS.md instructions for ")
        || wrapped_in(
            text,
            &[
                "environment_context",
                "user_instructions",
                "INSTRUCTIONS",
                "recommended_plugins",
                "available_skills",
                "additional_instructions",
                "tool_context",
                "turn_aborted",
            ],
        )
}

/// mnemo's own format, strictly: every line is checked before anything is
/// returned, and one bad line refuses the whole text.
fn parse_mnemo(text: &str) -> Result<Transcript> {
    let mut out = Transcript::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        out.messages.push(parse_mnemo_line(line, i)?);
    }
    Ok(out)
}

/// Line `i` (from 0) of mnemo's format.
fn parse_mnemo_line(line: &str, i: usize) -> Result<TranscriptMessage> {
    let bad = |what: &str| Error::new(ErrorKind::InvalidInput, format!("line {}: {what}", i + 1));
    let v: Value = serde_json::from_str(line).map_err(|e| bad(&format!("not JSON ({e})")))?;
    let text_field = |k: &str| match v.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(bad(&format!("{k} must be a string"))),
    };
    let (Some(session), Some(role), Some(text)) = (
        text_field("session")?,
        text_field("role")?,
        text_field("text")?,
    ) else {
        return Err(bad("expected {session, role, text, time?, source?}"));
    };
    let time = match v.get("time") {
        None | Some(Value::Null) => None,
        Some(t) => Some(
            t.as_i64()
                .ok_or_else(|| bad("time must be ms since the Unix epoch"))?,
        ),
    };
    Ok(TranscriptMessage {
        session,
        role,
        text,
        time,
        source: text_field("source")?.unwrap_or_else(|| "import".into()),
        key: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLAUDE: &str = include_str!("../tests/fixtures/transcripts/claude-code.jsonl");
    const CODEX: &str = include_str!("../tests/fixtures/transcripts/codex.jsonl");
    const CODEX_LEGACY: &str = include_str!("../tests/fixtures/transcripts/codex-legacy.jsonl");

    fn texts(t: &Transcript) -> Vec<(&str, &str)> {
        t.messages
            .iter()
            .map(|m| (m.role.as_str(), m.text.as_str()))
            .collect()
    }

    #[test]
    fn claude_code_reads_what_a_person_reads() {
        let t = parse(Format::ClaudeCode, CLAUDE, None).unwrap();
        assert_eq!(
            texts(&t),
            vec![
                ("user", "The deploy to staging fails with a 502 since this morning. Can you look at nginx?"),
                ("assistant", "I'll check the nginx configuration for the staging upstream first."),
                ("assistant", "Found it: the upstream still points at port 8080, but the app now listens on 8081. I changed `proxy_pass` in deploy/nginx/staging.conf."),
                ("user", "Thanks. Does the same problem exist on production?"),
                ("assistant", "No: production's upstream already uses 8081."),
            ]
        );
        let first = &t.messages[0];
        assert_eq!(first.session, "7f3c2a10-5b8e-4c1d-9a6f-2e4b8d1c0a93");
        assert_eq!(first.source, "claude-code");
        assert_eq!(
            first.key.as_deref(),
            Some("a1b2c3d4-0001-4e5f-8a9b-000000000001")
        );
        // 2026-11-30T09:14:02.118Z
        assert_eq!(first.time, Some(1_796_030_042_118));
        // The partial last line (an agent still writing) is skipped and
        // counted; summaries, snapshots, tool-only lines, thinking, meta,
        // sidechain and command echoes are left out.
        assert_eq!(t.malformed, 1);
        assert!(t.ignored >= 9, "{}", t.ignored);
        assert!(t.messages.iter().all(|m| !m.text.contains("cat deploy")
            && !m.text.contains("upstream app")
            && !m.text.contains("Let me think")
            && !m.text.contains("Caveat")
            && !m.text.contains("sub-agent")
            && !m.text.contains("API Error")));
    }

    #[test]
    fn codex_reads_user_and_assistant_messages_without_boilerplate() {
        let t = parse(
            Format::Codex,
            CODEX,
            Some("sessions/2026/11/30/rollout-2026-11-30T10-02-11-019ad3e4-6b1f-7c20-9d4e-5a8b7c6d5e4f.jsonl"),
        )
        .unwrap();
        assert_eq!(
            texts(&t),
            vec![
                ("user", "Why does `cargo test` hang in the sessions suite?"),
                ("assistant", "The test holds a write transaction while a second connection waits on the busy timeout; I'll make the reader open after the commit."),
                ("user", "Good. Also bump the busy timeout to 10 s."),
                ("assistant", "Done: `busy_timeout` is now 10 seconds in src/db.rs."),
            ]
        );
        assert!(t
            .messages
            .iter()
            .all(|m| m.session == "019ad3e4-6b1f-7c20-9d4e-5a8b7c6d5e4f" && m.source == "codex"));
        // 2026-11-30T10:02:15.400Z
        assert_eq!(t.messages[0].time, Some(1_796_032_935_400));
        assert_eq!(t.malformed, 1);
        let keys: std::collections::HashSet<_> = t.messages.iter().map(|m| &m.key).collect();
        assert_eq!(keys.len(), t.messages.len());
    }

    #[test]
    fn older_codex_files_without_envelopes_are_read() {
        let t = parse(Format::Codex, CODEX_LEGACY, None).unwrap();
        assert_eq!(
            texts(&t),
            vec![
                (
                    "user",
                    "List the files larger than 1 MB in this repository."
                ),
                (
                    "assistant",
                    "Two files are larger than 1 MB: bench/data.bin and docs/demo.gif."
                ),
            ]
        );
        assert_eq!(
            t.messages[0].session,
            "b5e0c7a2-9d41-4f3e-8c26-71d0a4e9f813"
        );
        // Lines carry no time: the session's start is used.
        assert_eq!(t.messages[1].time, parse_iso("2025-04-18T15:06:03.120Z"));
    }

    #[test]
    fn a_file_of_another_format_is_refused_with_a_hint() {
        let e = parse(Format::ClaudeCode, CODEX, None).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        assert!(
            e.message().contains("not a Claude Code session file"),
            "{}",
            e.message()
        );
        assert!(e.message().contains("\"codex\""), "{}", e.message());
        let e = parse(Format::Codex, CLAUDE, None).unwrap_err();
        assert!(e.message().contains("\"claude-code\""), "{}", e.message());
        let e = parse(Format::Codex, "{\"a\": 1}\nhello\n", None).unwrap_err();
        assert!(
            e.message().contains("not a Codex session file"),
            "{}",
            e.message()
        );
        let mnemo = "{\"session\":\"s\",\"role\":\"user\",\"text\":\"hi\"}\n";
        let e = parse(Format::ClaudeCode, mnemo, None).unwrap_err();
        assert!(e.message().contains("\"mnemo\""), "{}", e.message());
        // An empty file, or one whose only line is still being written, is
        // a transcript with nothing in it yet.
        for text in ["", "\n\n", "{\"type\":\"user\",\"sessi"] {
            let t = parse(Format::ClaudeCode, text, None).unwrap();
            assert!(t.messages.is_empty());
        }
    }

    #[test]
    fn keys_are_stable_and_a_grown_file_keeps_its_old_keys() {
        let half: String = CODEX.lines().take(6).map(|l| format!("{l}\n")).collect();
        let a = parse(Format::Codex, &half, Some("x.jsonl")).unwrap();
        let b = parse(Format::Codex, CODEX, Some("x.jsonl")).unwrap();
        assert!(!a.messages.is_empty() && a.messages.len() < b.messages.len());
        assert_eq!(a.messages[..], b.messages[..a.messages.len()]);
        // The same line twice gets two keys.
        let line = CODEX.lines().find(|l| l.contains("output_text")).unwrap();
        let twice = format!("{}\n{line}\n{line}\n", CODEX.lines().next().unwrap());
        let t = parse(Format::Codex, &twice, None).unwrap();
        assert_eq!(t.messages.len(), 2);
        assert_ne!(t.messages[0].key, t.messages[1].key);
    }

    #[test]
    fn the_session_id_falls_back_on_the_file_name() {
        let line = r#"{"type":"response_item","timestamp":"2026-01-02T03:04:05Z","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hello"}]}}"#;
        let t = parse(
            Format::Codex,
            line,
            Some("rollout-2026-01-02T03-04-05-019ad3e4-6b1f-7c20-9d4e-5a8b7c6d5e4f.jsonl"),
        )
        .unwrap();
        assert_eq!(
            t.messages[0].session,
            "019ad3e4-6b1f-7c20-9d4e-5a8b7c6d5e4f"
        );
        let e = parse(Format::Codex, line, None).unwrap_err();
        assert!(e.message().contains("no session_meta"), "{}", e.message());
        assert_eq!(session_from_name("/a/b/abc.jsonl").as_deref(), Some("abc"));
        assert_eq!(session_from_name("rollout-2026-x.jsonl"), None);
    }

    #[test]
    fn mnemo_format_is_strict_and_names_the_bad_line() {
        let t = parse(
            Format::Mnemo,
            "{\"session\":\"s\",\"role\":\"user\",\"text\":\"hi\",\"time\":5}\n\n{\"session\":\"s\",\"role\":\"assistant\",\"text\":\"yo\",\"source\":\"cli\"}",
            None,
        )
        .unwrap();
        assert_eq!(t.messages.len(), 2);
        assert_eq!((t.messages[0].time, t.messages[1].time), (Some(5), None));
        assert_eq!(
            (t.messages[0].source.as_str(), t.messages[1].source.as_str()),
            ("import", "cli")
        );
        assert!(t.messages.iter().all(|m| m.key.is_none()));
        let e = parse(
            Format::Mnemo,
            "{\"session\":\"s\",\"role\":\"user\",\"text\":\"a\"}\nnope",
            None,
        )
        .unwrap_err();
        assert_eq!(e.message().split(':').next(), Some("line 2"));
        assert_eq!(Format::from_name("codex").unwrap(), Format::Codex);
        assert!(Format::from_name("gemini")
            .unwrap_err()
            .message()
            .contains("claude-code"));
    }
}
