//! Curation: the activity log distilled into durable memory.
//!
//! [`Memory::curate`](crate::Memory::curate) runs the pipeline of the
//! memory-plugin spec ("The Curation Pipeline"):
//!
//! 1. **Read** the day logs ([`crate::activity`]) since the durable
//!    [`Position`]: only notes and conversation turns (writes are already
//!    in memory), cut into chunks of at most `curation.max_input_chars`.
//! 2. **Extract** durable facts with the host's `llm` and the versioned
//!    prompt [`EXTRACT_PROMPT`]; its answer is read strictly by
//!    [`parse_facts`] (any malformed fact fails the whole chunk, and the
//!    position stays before it, so the next run reads it again). Relative
//!    dates the model left in a fact are resolved against its log line's
//!    date ([`resolve_dates`]).
//! 3. **Classify** each fact against its store by [`Similarity`]: cosine
//!    with the host's embedder, else the lexical [`dice`] coefficient.
//!    [`DUPLICATE`] and above: skipped, and the existing entry's access is
//!    counted. From [`GRAY_ZONE`]: a second `llm` call ([`RESOLVE_PROMPT`],
//!    read by [`parse_decision`]) decides whether the fact supersedes the
//!    entry (a replace; the old text goes to the history) or both are kept
//!    (the answer on any error). Below: added. Every write goes through the
//!    scanner, the limits and the approval gate like any other write.
//! 4. **Consolidate** each store: entries grouped by category in the
//!    spec's order ([`consolidated`]), exact duplicates merged, in one
//!    atomic write with a backup, still the spec's Markdown.
//! 5. **Prune** stale entries by [`prune_reason`]; pinned entries never.
//!    Pruned texts go to the history, restorable by id.
//!
//! This module holds the pure parts: the answers' grammar, the
//! similarity, the rules and the report. It never reads a clock or
//! storage.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::activity::Record;
use crate::error::{Error, ErrorKind, Result};
use crate::meta::Category;
use crate::review::Usage;
use crate::text::Analyzer;
use crate::Target;

/// The blob holding the curation position.
pub const POSITION_BLOB: &str = "mnemo-curation.json";

/// The extraction prompt (versioned in `prompts/curate-extract.md`).
pub const EXTRACT_PROMPT: &str = include_str!("../prompts/curate-extract.md");

/// The gray-zone prompt (versioned in `prompts/curate-resolve.md`).
pub const RESOLVE_PROMPT: &str = include_str!("../prompts/curate-resolve.md");

/// From this similarity a fact duplicates an entry.
pub const DUPLICATE: f64 = 0.9;

/// From this similarity (below [`DUPLICATE`]) a fact is in the gray zone.
pub const GRAY_ZONE: f64 = 0.7;

/// The most facts read from one answer; more is an unreadable answer.
pub const MAX_FACTS: usize = 200;

const DAY_MS: u64 = 86_400_000;

/// Where the last curation stopped reading the log: the day and how many
/// of its records were read. Logs are append-only, so this never skips a
/// record; it is written after each chunk's writes, so a crash re-reads
/// at most one chunk.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    /// Format version.
    #[serde(default)]
    pub version: u32,
    /// The last day read (`YYYY-MM-DD`), none before the first curation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// How many records of that day were read.
    #[serde(default)]
    pub records: usize,
    /// When a curation last finished, ms since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_run: Option<u64>,
}

impl Position {
    /// Reads the blob; a missing or unreadable one is the start (so the
    /// whole log is read again: facts already stored are duplicates, never
    /// losses).
    pub fn parse(bytes: Option<&[u8]>) -> Position {
        bytes
            .and_then(|b| serde_json::from_slice(b).ok())
            .unwrap_or_default()
    }

    /// The blob's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = serde_json::to_vec_pretty(&Position {
            version: 1,
            ..self.clone()
        })
        .unwrap_or_default();
        out.push(b'\n');
        out
    }

    /// How many records of `date` were already read.
    pub fn read_of(&self, date: &str) -> usize {
        match self.date.as_deref() {
            Some(d) if d == date => self.records,
            Some(d) if d > date => usize::MAX,
            _ => 0,
        }
    }
}

/// One log record offered to the extraction, with where it sits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The record.
    pub record: Record,
    /// Its index within its day.
    pub index: usize,
}

/// Whether a record is raw activity the curator reads: a note or a turn
/// (writes are already in memory; the curator's own records are not
/// activity).
pub fn is_activity(record: &Record) -> bool {
    record.what == "note" || record.is_turn()
}

/// Renders a chunk's lines as the model reads them: `L1 [2026-12-01
/// 14:03:22 · agent · note] text`.
pub fn render_lines(lines: &[Line]) -> String {
    let mut out = String::new();
    for (n, line) in lines.iter().enumerate() {
        let r = &line.record;
        out.push_str(&format!(
            "L{} [{} {} · {} · {}] {}\n",
            n + 1,
            r.date,
            r.time,
            r.agent.as_deref().unwrap_or("-"),
            r.what,
            r.text.replace('\n', "\n    ")
        ));
    }
    out
}

/// Cuts `lines` into chunks whose rendering fits `max_chars` (a record
/// longer than that is a chunk of its own; records are at most
/// [`crate::activity::MAX_RECORD_CHARS`] anyway).
pub fn chunks(lines: Vec<Line>, max_chars: usize) -> Vec<Vec<Line>> {
    let mut out: Vec<Vec<Line>> = Vec::new();
    let mut size = 0;
    for line in lines {
        let len = line.record.text.chars().count() + 60;
        match out.last_mut() {
            Some(chunk) if size + len <= max_chars => chunk.push(line),
            _ => {
                out.push(vec![line]);
                size = 0;
            }
        }
        size += len;
    }
    out
}

/// A fact the model extracted.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fact {
    /// The fact, one sentence.
    pub content: String,
    /// Its category (none: general).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<Category>,
    /// Its importance, 0 to 1.
    pub importance: f64,
    /// The store it belongs in.
    pub target: Target,
    /// The date of the log line it came from.
    pub date: String,
}

/// Strips a Markdown code fence around an answer, which models add even
/// when told not to.
fn unfenced(text: &str) -> &str {
    let t = text.trim();
    let Some(rest) = t.strip_prefix("```") else {
        return t;
    };
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
    rest.strip_suffix("```").unwrap_or(rest).trim()
}

fn bad(why: String) -> Error {
    Error::new(
        ErrorKind::InvalidInput,
        format!("the host's llm answered {why}"),
    )
}

/// Reads the extraction answer `text` for the chunk `lines` strictly:
/// `{"facts": [{content, category?, importance?, target?, line?}]}`. A
/// wrong type anywhere, an unknown category or target, an importance
/// outside 0–1 or a line outside the chunk fails the whole answer.
pub fn parse_facts(text: &str, lines: &[Line]) -> Result<Vec<Fact>> {
    let value: Value = serde_json::from_str(unfenced(text)).map_err(|e| {
        bad(format!(
            "something that is not JSON ({e}); expected {{\"facts\": [...]}}"
        ))
    })?;
    let Some(items) = value.get("facts").and_then(Value::as_array) else {
        return Err(bad("JSON without a \"facts\" array".into()));
    };
    if items.len() > MAX_FACTS {
        return Err(bad(format!(
            "{} facts; at most {MAX_FACTS} are read from one answer",
            items.len()
        )));
    }
    let last_date = lines
        .last()
        .map_or_else(String::new, |l| l.record.date.clone());
    let mut facts = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = |what: &str| bad(format!("facts[{i}] with {what}"));
        let Value::Object(obj) = item else {
            return Err(at("something that is not an object"));
        };
        let content = match obj.get("content") {
            Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
            _ => return Err(at("no content string")),
        };
        let category = match obj.get("category") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Category::parse(s).map_err(|_| at("an unknown category"))?,
            Some(_) => return Err(at("a category that is not a string")),
        };
        let importance = match obj.get("importance") {
            None | Some(Value::Null) => crate::meta::DEFAULT_IMPORTANCE,
            Some(Value::Number(n)) => match n.as_f64() {
                Some(v) if (0.0..=1.0).contains(&v) => v,
                _ => return Err(at("an importance outside 0 to 1")),
            },
            Some(_) => return Err(at("an importance that is not a number")),
        };
        let target = match obj.get("target") {
            None | Some(Value::Null) => Target::Memory,
            Some(Value::String(s)) => match s.trim() {
                "memory" => Target::Memory,
                "user" => Target::User,
                _ => return Err(at("a target other than memory or user")),
            },
            Some(_) => return Err(at("a target that is not a string")),
        };
        let date = match obj.get("line") {
            None | Some(Value::Null) => last_date.clone(),
            Some(Value::Number(n)) => match n.as_u64() {
                Some(l) if l >= 1 && (l as usize) <= lines.len() => {
                    lines[l as usize - 1].record.date.clone()
                }
                _ => return Err(at("a line number outside the log it was shown")),
            },
            Some(_) => return Err(at("a line that is not a number")),
        };
        let content = resolve_dates(&content, &date);
        facts.push(Fact {
            content,
            category,
            importance,
            target,
            date,
        });
    }
    Ok(facts)
}

/// What the gray-zone call decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// The fact replaces the entry.
    Supersede,
    /// Both stay.
    KeepBoth,
}

/// Reads the gray-zone answer strictly: `{"decision": "supersede" |
/// "keep_both"}`.
pub fn parse_decision(text: &str) -> Result<Decision> {
    let value: Value = serde_json::from_str(unfenced(text))
        .map_err(|e| bad(format!("something that is not JSON ({e})")))?;
    match value.get("decision").and_then(Value::as_str) {
        Some("supersede") => Ok(Decision::Supersede),
        Some("keep_both") => Ok(Decision::KeepBoth),
        _ => Err(bad("no decision \"supersede\" or \"keep_both\"".to_string())),
    }
}

/// Relative day words and how many days from the line's date they mean.
const RELATIVE: [(&str, i64); 8] = [
    ("today", 0),
    ("tonight", 0),
    ("yesterday", -1),
    ("tomorrow", 1),
    ("сегодня", 0),
    ("вчера", -1),
    ("завтра", 1),
    ("послезавтра", 2),
];

/// Replaces the relative day words the model left in `fact` (today,
/// yesterday, tomorrow; сегодня, вчера, завтра) with the dates they mean
/// on `date` (`YYYY-MM-DD`), the date of the fact's log line. A safety net
/// under the prompt, which asks for absolute dates.
pub fn resolve_dates(fact: &str, date: &str) -> String {
    let Some(day_ms) = crate::time::parse_date(date) else {
        return fact.to_string();
    };
    let mut out = String::with_capacity(fact.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let lower = word.to_lowercase();
        match RELATIVE.iter().find(|(w, _)| *w == lower) {
            Some((_, offset)) => {
                let ms = (day_ms as i64 + offset * DAY_MS as i64).max(0) as u64;
                out.push_str(&crate::time::Utc::at(ms).date());
            }
            None => out.push_str(word),
        }
        word.clear();
    };
    for c in fact.chars() {
        if c.is_alphabetic() {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// How facts were compared with entries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Similarity {
    /// Cosine of the host embedder's vectors.
    Cosine,
    /// The Dice coefficient of the texts' content terms ([`dice`]).
    Lexical,
}

/// The lexical similarity used without an embedder: the Dice coefficient
/// `2·|A∩B| / (|A|+|B|)` of the two texts' sets of stemmed, case-folded
/// content words (stop words left out, English and Russian). 1 for the
/// same words in any order or form, 0 for none shared.
pub fn dice(analyzer: &Analyzer, a: &str, b: &str) -> f64 {
    let set = |t: &str| {
        let mut v: Vec<String> = analyzer
            .terms(t)
            .into_iter()
            .filter(|t| !t.stop && !t.text.contains(' '))
            .map(|t| t.text)
            .collect();
        crate::order::sort(&mut v);
        v.dedup();
        v
    };
    let (x, y) = (set(a), set(b));
    if x.is_empty() || y.is_empty() {
        return 0.0;
    }
    let common = x.iter().filter(|t| y.binary_search(t).is_ok()).count();
    2.0 * common as f64 / (x.len() + y.len()) as f64
}

/// Where a similarity puts a fact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Nothing like it is stored.
    New,
    /// Between [`GRAY_ZONE`] and [`DUPLICATE`].
    Gray,
    /// [`DUPLICATE`] or above.
    Duplicate,
}

/// The class of a best similarity.
pub fn classify(similarity: f64) -> Class {
    if similarity >= DUPLICATE {
        Class::Duplicate
    } else if similarity >= GRAY_ZONE {
        Class::Gray
    } else {
        Class::New
    }
}

/// What the pruning rules see of an entry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aging {
    /// Pinned (never pruned).
    pub pinned: bool,
    /// Its importance.
    pub importance: f64,
    /// Times recall, search, context or inject returned it.
    pub access_count: u64,
    /// When its text last changed (its age counts from there).
    pub last_changed: u64,
}

/// Why the spec's rules prune an entry now, if they do: pinned never;
/// older than 90 days with importance below 0.3; older than 60 days,
/// never accessed, importance below 0.5.
pub fn prune_reason(entry: &Aging, now_ms: u64) -> Option<&'static str> {
    if entry.pinned {
        return None;
    }
    let age_days = now_ms.saturating_sub(entry.last_changed) / DAY_MS;
    if age_days > 90 && entry.importance < 0.3 {
        Some("older than 90 days with importance below 0.3")
    } else if age_days > 60 && entry.access_count == 0 && entry.importance < 0.5 {
        Some("older than 60 days, never accessed, importance below 0.5")
    } else {
        None
    }
}

/// The rank of a category in a consolidated store: the spec's order,
/// general last.
fn rank(category: Option<Category>) -> usize {
    category
        .and_then(|c| Category::ALL.iter().position(|&x| x == c))
        .unwrap_or(Category::ALL.len())
}

/// A store's entries consolidated: grouped by category in the spec's order
/// (general last; the order within a group kept), exact duplicates after
/// the first left out. `categories[i]` is entry `i`'s category. Returns the
/// old indices in their new order.
pub fn consolidated(entries: &[String], categories: &[Option<Category>]) -> Vec<usize> {
    let mut seen = std::collections::HashSet::new();
    let mut order: Vec<usize> = (0..entries.len())
        .filter(|&i| seen.insert(entries[i].as_str()))
        .collect();
    crate::order::sort_by_key(&mut order, |&i| rank(categories.get(i).copied().flatten()));
    order
}

/// What became of one fact.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "outcome")]
pub enum Outcome {
    /// Stored as a new entry.
    Added,
    /// Staged for the user's approval: the staged write's id.
    Staged {
        /// The staged write.
        pending_id: String,
    },
    /// Skipped: an entry says the same.
    Duplicate {
        /// The entry's text.
        existing: String,
    },
    /// Replaced an entry (its text is in the history).
    Superseded {
        /// The entry's old text.
        existing: String,
    },
    /// Kept beside a similar entry.
    KeptBoth {
        /// The similar entry.
        existing: String,
        /// Why, when the gray-zone call failed.
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// The write was refused (scanner, limits, format): the code and why.
    Refused {
        /// The error code.
        code: String,
        /// The error message.
        error: String,
    },
}

/// One extracted fact and what became of it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FactReport {
    /// The fact.
    #[serde(flatten)]
    pub fact: Fact,
    /// Its best similarity with an entry of its store.
    pub similarity: f64,
    /// What became of it.
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// How the extraction went.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Extraction {
    /// `done`, `skipped` (no llm, or nothing new in the log), `failed` or
    /// `cancelled`.
    pub status: &'static str,
    /// Why it was skipped or failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Log records read (notes and turns).
    pub records_read: usize,
    /// Chunks sent to the model.
    pub chunks: usize,
}

/// An entry the curation pruned (or would prune).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Pruned {
    /// Its store.
    pub target: Target,
    /// Its stable id.
    pub entry_id: String,
    /// Its text.
    pub text: String,
    /// The rule.
    pub reason: &'static str,
}

/// What a curation did: the spec's metrics first, then the details.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// Facts the model extracted.
    pub facts_extracted: usize,
    /// Facts stored as new entries.
    pub facts_added: usize,
    /// Entries a fact superseded.
    pub memories_updated: usize,
    /// Entries pruned.
    pub memories_pruned: usize,
    /// Entries in both stores afterwards.
    pub existing_memories: usize,
    /// What the host's model reported it cost, in US dollars (0 when it
    /// reported nothing).
    pub cost_usd: f64,
    /// Whether nothing was written.
    pub dry_run: bool,
    /// How the extraction went.
    pub extraction: Extraction,
    /// How facts were compared with entries, and why not by cosine when
    /// an embedder failed.
    pub similarity: Similarity,
    /// Why the embedder was not used, when it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedder_error: Option<String>,
    /// Every fact and what became of it.
    pub facts: Vec<FactReport>,
    /// Ids of the writes staged for approval.
    pub staged: Vec<String>,
    /// Facts whose write was refused.
    pub refused: usize,
    /// Entries pruned (or, under approval, staged for removal).
    pub pruned: Vec<Pruned>,
    /// Stores rewritten by the consolidation.
    pub consolidated: Vec<Target>,
    /// Exact duplicate entries the consolidation merged.
    pub merged: usize,
    /// Day logs deleted by the retention.
    pub expired_logs: Vec<String>,
    /// What the host's model reported.
    pub usage: Usage,
    /// Steps that could not be done, and why (say, pruning refused
    /// because a store's file is damaged).
    pub errors: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(date: &str, text: &str) -> Line {
        Line {
            record: Record {
                date: date.into(),
                time: "10:00:00".into(),
                agent: Some("bot".into()),
                what: "note".into(),
                text: text.into(),
            },
            index: 0,
        }
    }

    #[test]
    fn facts_are_read_strictly() {
        let lines = [line("2026-11-30", "a"), line("2026-12-01", "b")];
        let ok = r#"{"facts": [{"content": "We ship on Friday", "category": "decision", "importance": 0.7, "target": "memory", "line": 1},
                               {"content": "User likes tea", "target": "user"}]}"#;
        let facts = parse_facts(ok, &lines).unwrap();
        assert_eq!(facts[0].category, Some(Category::Decision));
        assert_eq!(facts[0].date, "2026-11-30");
        assert_eq!(facts[1].target, Target::User);
        assert_eq!(facts[1].importance, 0.5);
        assert_eq!(facts[1].date, "2026-12-01");
        let fenced = format!("```json\n{ok}\n```");
        assert_eq!(parse_facts(&fenced, &lines).unwrap().len(), 2);
        assert!(parse_facts(r#"{"facts": []}"#, &lines).unwrap().is_empty());
        for bad in [
            "Sure! Here are the facts",
            r#"{"fact": []}"#,
            r#"{"facts": [{"content": ""}]}"#,
            r#"{"facts": [{"content": 3}]}"#,
            r#"{"facts": [{"content": "x", "importance": 1.5}]}"#,
            r#"{"facts": [{"content": "x", "importance": "high"}]}"#,
            r#"{"facts": [{"content": "x", "category": "gossip"}]}"#,
            r#"{"facts": [{"content": "x", "target": "MEMORY.md"}]}"#,
            r#"{"facts": [{"content": "x", "line": 3}]}"#,
            r#"{"facts": [{"content": "x", "line": 0}]}"#,
            r#"{"facts": ["x"]}"#,
        ] {
            assert!(parse_facts(bad, &lines).is_err(), "{bad}");
        }
    }

    #[test]
    fn decisions_are_read_strictly() {
        assert_eq!(
            parse_decision(r#"{"decision": "supersede"}"#).unwrap(),
            Decision::Supersede
        );
        assert_eq!(
            parse_decision("```\n{\"decision\": \"keep_both\"}\n```").unwrap(),
            Decision::KeepBoth
        );
        for bad in ["supersede", r#"{"decision": "both"}"#, "{}"] {
            assert!(parse_decision(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn relative_days_become_dates_of_the_line() {
        assert_eq!(
            resolve_dates("Deploy moved to tomorrow; decided yesterday.", "2026-12-31"),
            "Deploy moved to 2027-01-01; decided 2026-12-30."
        );
        assert_eq!(
            resolve_dates("Релиз перенесли на завтра", "2026-03-01"),
            "Релиз перенесли на 2026-03-02"
        );
        assert_eq!(
            resolve_dates("Todays are fine", "2026-03-01"),
            "Todays are fine"
        );
    }

    #[test]
    fn dice_reads_word_forms_and_ignores_order_and_stop_words() {
        let a = Analyzer::new();
        assert_eq!(
            dice(&a, "The deploys run on Fridays", "Friday deploy runs"),
            1.0
        );
        assert!(dice(&a, "Postgres is on port 5432", "Redis caches sessions") < 0.2);
        let gray = dice(
            &a,
            "The staging database runs on port 5432",
            "The staging database now runs on port 6543",
        );
        assert!((GRAY_ZONE..DUPLICATE).contains(&gray), "{gray}");
        assert_eq!(dice(&a, "", "x"), 0.0);
    }

    #[test]
    fn pruning_follows_the_spec() {
        let now = 200 * DAY_MS;
        let at = |days: u64, importance: f64, access_count: u64, pinned: bool| Aging {
            pinned,
            importance,
            access_count,
            last_changed: now - days * DAY_MS,
        };
        assert!(prune_reason(&at(91, 0.29, 5, false), now).is_some());
        assert!(prune_reason(&at(91, 0.29, 5, true), now).is_none());
        assert!(prune_reason(&at(90, 0.29, 0, false), now).is_some()); // 60-day rule
        assert!(prune_reason(&at(89, 0.29, 1, false), now).is_none());
        assert!(prune_reason(&at(61, 0.49, 0, false), now).is_some());
        assert!(prune_reason(&at(61, 0.49, 1, false), now).is_none());
        assert!(prune_reason(&at(61, 0.5, 0, false), now).is_none());
        assert!(prune_reason(&at(60, 0.1, 0, false), now).is_none());
        assert!(prune_reason(&at(150, 0.3, 3, false), now).is_none());
    }

    #[test]
    fn consolidation_groups_by_category_and_merges_exact_copies() {
        let e = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let entries = e(&["a", "b", "a", "c", "d"]);
        let cats = [
            None,
            Some(Category::Preference),
            None,
            Some(Category::Security),
            Some(Category::Preference),
        ];
        assert_eq!(consolidated(&entries, &cats), vec![3, 1, 4, 0]);
    }

    #[test]
    fn positions_never_skip() {
        let p = Position {
            version: 1,
            date: Some("2026-12-01".into()),
            records: 4,
            last_run: None,
        };
        assert_eq!(p.read_of("2026-12-01"), 4);
        assert_eq!(p.read_of("2026-12-02"), 0);
        assert_eq!(p.read_of("2026-11-30"), usize::MAX);
        assert_eq!(Position::parse(Some(&p.to_bytes())), p);
        assert_eq!(Position::parse(Some(b"garbage")), Position::default());
    }
}
