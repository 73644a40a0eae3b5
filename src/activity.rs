//! The activity log: what happened, day by day, for the curator and for
//! people to read.
//!
//! Every write, every recorded turn and every `log(note)` call appends a
//! timestamped, attributed record to the day's log, the blob
//! `logs/YYYY-MM-DD.md` (a file in a memories directory, a record of the
//! browser database or an adapter's store). A day's log is Markdown:
//!
//! ```text
//! # Activity 2026-12-01
//!
//! - 14:03:22 · research-bot · memory add · The staging API rate-limits at 100 rps
//! - 14:05:10 · - · turn user · Can you check the deploy?
//!   (a second line of the same message)
//! ```
//!
//! A record is a line `- HH:MM:SS · agent · what · text`, the agent `-`
//! when none was named; further lines of its text are indented by two
//! spaces. Records are only ever appended; the curation position counts
//! records per day, so nothing rewrites a day except the privacy
//! operations (`purgeSessions` blanks turn texts in place, the retention
//! deletes whole days). Text the scanner blocks is never written: a
//! placeholder stands in its place.
//!
//! This module must never read a clock or storage: [`crate::memory`]
//! passes the day's bytes and the time.

use serde::Serialize;

use crate::storage::BlobEnd;
use crate::time::Utc;

/// The folder of the day logs (a prefix of blob names).
pub const DIR: &str = "logs/";

/// The most chars of one record's text; a longer text (a long turn) is cut
/// with an ellipsis. Writes are bounded by the stores' limits anyway.
pub const MAX_RECORD_CHARS: usize = 4_000;

/// The text a purged turn leaves in the log.
pub const PURGED: &str = "(removed by purgeSessions)";

/// One record of the log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Record {
    /// The day, `YYYY-MM-DD` (UTC).
    pub date: String,
    /// The time of day, `HH:MM:SS` (UTC).
    pub time: String,
    /// The agent that wrote it, when one was named.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// What happened: `note`, `memory add`, `user replace`, `memory
    /// remove`, `turn user`, `turn assistant`, …
    pub what: String,
    /// The text (the new text of a replace, the removed text of a
    /// remove, the message of a turn).
    pub text: String,
}

impl Record {
    /// A record made at `ms` by `agent`.
    pub fn new(ms: u64, agent: Option<&str>, what: &str, text: &str) -> Record {
        let at = Utc::at(ms);
        Record {
            date: at.date(),
            time: format!("{:02}:{:02}:{:02}", at.hour, at.minute, at.second),
            agent: agent.map(str::to_string),
            what: what.to_string(),
            text: cut(text),
        }
    }

    /// Whether this record is a recorded conversation turn.
    pub fn is_turn(&self) -> bool {
        self.what.starts_with("turn ")
    }

    /// Renders the record as its lines in a day's log.
    fn render(&self, out: &mut String) {
        let agent = self
            .agent
            .as_deref()
            .map_or_else(|| "-".to_string(), |a| a.replace('·', "-"));
        let mut lines = self.text.split('\n');
        let first = lines.next().unwrap_or("");
        out.push_str(&format!(
            "- {} · {agent} · {} · {first}\n",
            self.time, self.what
        ));
        for line in lines {
            out.push_str("  ");
            out.push_str(line);
            out.push('\n');
        }
    }
}

/// `text` cut to [`MAX_RECORD_CHARS`], with `\r\n` read as `\n`.
fn cut(text: &str) -> String {
    let text = text.replace("\r\n", "\n");
    if text.chars().count() <= MAX_RECORD_CHARS {
        return text;
    }
    let mut kept: String = text.chars().take(MAX_RECORD_CHARS - 1).collect();
    kept.push('…');
    kept
}

/// The blob name of day `date` (`logs/2026-12-01.md`).
pub fn blob(date: &str) -> String {
    format!("{DIR}{date}.md")
}

/// The day a blob name holds, when it is a day log.
pub fn day_of(name: &str) -> Option<&str> {
    let date = name.strip_prefix(DIR)?.strip_suffix(".md")?;
    crate::time::parse_date(date).map(|_| date)
}

/// The days that have a log among `names`, oldest first.
pub fn days(names: &[String]) -> Vec<String> {
    let mut days: Vec<String> = names
        .iter()
        .filter_map(|n| day_of(n).map(str::to_string))
        .collect();
    crate::order::sort(&mut days);
    days.dedup();
    days
}

/// The heading of a day's log.
fn heading(date: &str) -> String {
    format!("# Activity {date}\n\n")
}

/// What appending `records` to day `date`'s log adds, given where the log
/// ends (`None`: there is none yet): the heading first for a new or empty
/// log, a line break first when a hand edit left its last line open.
/// Records of another day than `date` are the caller's mistake and are
/// written anyway, under this day.
pub fn addition(date: &str, end: Option<BlobEnd>, records: &[Record]) -> Vec<u8> {
    let mut out = match end {
        Some(BlobEnd {
            last: Some(b'\n'), ..
        }) => String::new(),
        Some(BlobEnd { last: Some(_), .. }) => "\n".to_string(),
        _ => heading(date),
    };
    for record in records {
        record.render(&mut out);
    }
    out.into_bytes()
}

/// `existing` (a day's log, or nothing) with `records` appended (see
/// [`addition`]).
pub fn append(date: &str, existing: Option<&[u8]>, records: &[Record]) -> Vec<u8> {
    let mut out = existing.unwrap_or_default().to_vec();
    out.extend(addition(date, existing.map(BlobEnd::of), records));
    out
}

/// Reads day `date`'s log. Lines that are not records (a heading, a hand
/// edit) are skipped; indented lines continue the record before them.
pub fn parse(date: &str, bytes: &[u8]) -> Vec<Record> {
    let text = String::from_utf8_lossy(bytes);
    let mut records: Vec<Record> = Vec::new();
    for line in text.lines() {
        if let Some(record) = parse_start(date, line) {
            records.push(record);
        } else if let (Some(rest), Some(last)) = (line.strip_prefix("  "), records.last_mut()) {
            last.text.push('\n');
            last.text.push_str(rest);
        }
    }
    records
}

/// A record's first line: `- HH:MM:SS · agent · what · text`.
fn parse_start(date: &str, line: &str) -> Option<Record> {
    let rest = line.strip_prefix("- ")?;
    let (time, rest) = rest.split_once(" · ")?;
    let t = time.as_bytes();
    let well_formed = t.len() == 8
        && t[2] == b':'
        && t[5] == b':'
        && t.iter()
            .enumerate()
            .all(|(i, b)| i == 2 || i == 5 || b.is_ascii_digit());
    if !well_formed {
        return None;
    }
    let (agent, rest) = rest.split_once(" · ")?;
    let (what, text) = match rest.split_once(" · ") {
        Some((what, text)) => (what, text),
        None => (rest.strip_suffix(" ·").unwrap_or(rest), ""),
    };
    Some(Record {
        date: date.to_string(),
        time: time.to_string(),
        agent: (agent != "-").then(|| agent.to_string()),
        what: what.to_string(),
        text: text.to_string(),
    })
}

/// Day `date`'s log with every turn's text replaced by [`PURGED`] (the
/// records stay, so curation positions stay right); `None` when it holds
/// no turn text.
pub fn purge_turns(date: &str, bytes: &[u8]) -> Option<Vec<u8>> {
    let records = parse(date, bytes);
    if !records.iter().any(|r| r.is_turn() && r.text != PURGED) {
        return None;
    }
    let mut out = heading(date);
    for mut record in records {
        if record.is_turn() {
            record.text = PURGED.to_string();
        }
        record.render(&mut out);
    }
    Some(out.into_bytes())
}

/// The days among `days` older than `retention_days` before `now_ms`.
pub fn expired(days: &[String], retention_days: u32, now_ms: u64) -> Vec<String> {
    let keep_from = now_ms.saturating_sub(u64::from(retention_days) * 86_400_000);
    days.iter()
        .filter(|d| crate::time::parse_date(d).is_some_and(|start| start + 86_400_000 <= keep_from))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: u64 = 86_400_000;
    // 2026-12-01T14:03:22Z
    const NOW: u64 = 1_796_133_802_000;

    #[test]
    fn records_round_trip_with_many_lines_and_agents() {
        let records = [
            Record::new(
                NOW,
                Some("research-bot"),
                "memory add",
                "Staging rate-limits at 100 rps",
            ),
            Record::new(
                NOW + 1000,
                None,
                "turn user",
                "line one\nline two\n\nafter a blank",
            ),
            Record::new(NOW + 2000, Some("a · b"), "note", ""),
        ];
        let date = &records[0].date;
        assert_eq!(date, "2026-12-01");
        let bytes = append(date, None, &records[..2]);
        let bytes = append(date, Some(&bytes), &records[2..]);
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(text.starts_with(
            "# Activity 2026-12-01\n\n- 14:03:22 · research-bot · memory add · Staging"
        ));
        let back = parse(date, &bytes);
        assert_eq!(back.len(), 3);
        assert_eq!(back[0], records[0]);
        assert_eq!(back[1], records[1]);
        assert_eq!(back[2].agent.as_deref(), Some("a - b"));
        assert_eq!(back[2].text, "");
    }

    #[test]
    fn long_texts_are_cut_and_hand_edits_skipped() {
        let long = "x".repeat(MAX_RECORD_CHARS + 50);
        let r = Record::new(NOW, None, "turn assistant", &long);
        assert_eq!(r.text.chars().count(), MAX_RECORD_CHARS);
        assert!(r.text.ends_with('…'));
        let parsed = parse("2026-12-01", b"# Activity\n\nsome prose a person wrote\n- 10:00:00 \xc2\xb7 - \xc2\xb7 note \xc2\xb7 ok\n- bad line\n");
        assert_eq!(parsed.len(), 1);
        assert_eq!(parsed[0].text, "ok");
    }

    #[test]
    fn an_addition_opens_a_new_log_and_closes_a_hand_edited_line() {
        let r = [Record::new(NOW, None, "note", "ok")];
        let line = "- 14:03:22 · - · note · ok\n";
        let add = |end| String::from_utf8(addition("2026-12-01", end, &r)).unwrap();
        assert_eq!(add(None), format!("# Activity 2026-12-01\n\n{line}"));
        assert_eq!(add(Some(BlobEnd::of(b""))), add(None));
        assert_eq!(add(Some(BlobEnd::of(b"x\n"))), line);
        assert_eq!(add(Some(BlobEnd::of(b"prose"))), format!("\n{line}"));
        // Bytes a person left that are not UTF-8 stay as they were.
        let kept = append("2026-12-01", Some(b"\xff\n"), &r);
        assert_eq!(&kept[..2], b"\xff\n");
        assert_eq!(parse("2026-12-01", &kept).len(), 1);
    }

    #[test]
    fn purging_turns_keeps_the_records() {
        let records = vec![
            Record::new(NOW, None, "turn user", "my password hint is blue"),
            Record::new(NOW, None, "memory add", "Uses tabs"),
        ];
        let bytes = append("2026-12-01", None, &records);
        let purged = purge_turns("2026-12-01", &bytes).unwrap();
        let back = parse("2026-12-01", &purged);
        assert_eq!(back.len(), 2);
        assert_eq!(back[0].text, PURGED);
        assert_eq!(back[1].text, "Uses tabs");
        assert!(purge_turns("2026-12-01", &purged).is_none());
    }

    #[test]
    fn days_and_retention() {
        let names = vec![
            "MEMORY.md".to_string(),
            "logs/2026-09-01.md".to_string(),
            "logs/2026-11-30.md".to_string(),
            "logs/not-a-day.md".to_string(),
        ];
        let days = days(&names);
        assert_eq!(days, vec!["2026-09-01", "2026-11-30"]);
        assert_eq!(expired(&days, 90, NOW), vec!["2026-09-01"]);
        assert!(expired(&days, 91, NOW).is_empty());
        assert!(expired(&days, 1, NOW + DAY).contains(&"2026-11-30".to_string()));
        assert_eq!(blob("2026-11-30"), "logs/2026-11-30.md");
    }
}
