//! Sidecar state: what mnemo knows about entries beyond their text.
//!
//! That is when each entry was first seen and last changed, keyed by a
//! stable entry id, so that removing or reordering other entries does not
//! move an entry's dates and the Markdown stays byte-compatible, and the
//! scanner's clean verdicts on the entries ([`Sidecar::scan`]). It is kept
//! as one JSON blob ([`BLOB`]) beside the stores and committed in the same
//! all-or-nothing commit as the store it describes.
//!
//! Entries are matched to their records by content hash; what is left over
//! on both sides, in order, is paired up as edits (an entry replaced
//! through the tool or edited by hand keeps its id and first-seen date);
//! anything else is new (or gone).

use serde::{Deserialize, Serialize};

use crate::store::{Target, VerdictCache};

/// Name of the sidecar blob.
pub const BLOB: &str = "mnemo-state.json";

/// Version of the sidecar format this build writes.
pub const VERSION: u32 = 1;

/// What is known about one entry.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Stable id, unique within the memory (`e1`, `e2`, …).
    pub id: String,
    /// FNV-1a 64 hash of the entry text, hex.
    pub hash: String,
    /// When the entry was first seen, ms since the Unix epoch.
    pub first_seen: u64,
    /// When its text last changed, ms since the Unix epoch.
    pub last_changed: u64,
    /// Whether the user confirmed this fact (`remember()`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub confirmed: bool,
    /// Importance from 0 to 1; absent means
    /// [`DEFAULT_IMPORTANCE`](crate::meta::DEFAULT_IMPORTANCE).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub importance: Option<f64>,
    /// The category; absent means General.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<crate::meta::Category>,
    /// Pinned through the API (`#pinned` in the text pins too).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pinned: bool,
    /// How many times search, context, recall or inject returned it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub access_count: u64,
    /// When it was last returned, ms since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_access: Option<u64>,
    /// The agent whose write made it, when one was named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// Where the write that made it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<crate::approval::Origin>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Record {
    /// Its importance (the default when nobody rated it).
    pub fn importance(&self) -> f64 {
        self.importance.unwrap_or(crate::meta::DEFAULT_IMPORTANCE)
    }
}

/// An old entry that a reconciliation found replaced or removed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Superseded {
    /// Its index among the old entries.
    pub old_index: usize,
    /// Whether another entry took its place (an edit) or it is gone.
    pub replaced: bool,
    /// Its record's id.
    pub id: String,
    /// Whether its record said the user confirmed it.
    pub confirmed: bool,
}

/// The sidecar state of a memory.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Sidecar {
    /// Format version.
    pub version: u32,
    /// The next id number to hand out.
    pub next_id: u64,
    /// Records of `MEMORY.md`, in entry order.
    pub memory: Vec<Record>,
    /// Records of `USER.md`, in entry order.
    pub user: Vec<Record>,
    /// The scanner's clean verdicts on the entries of both stores and on
    /// their pairs of neighbours, so that opening a memory whose stores did
    /// not change scans nothing. Absent in older sidecars and when nothing
    /// passed; ignored when made under other rules. (Its shape is kept: a
    /// later format gets a field of its own, so older builds still read the
    /// rest.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scan: Option<VerdictCache>,
}

/// FNV-1a 64 of `text`, as 16 hex digits.
pub fn hash(text: &str) -> String {
    digits_of(digest(text)).as_str().to_string()
}

/// FNV-1a 64 of `text`: what a [`Record`]'s `hash` holds, in hex.
pub fn digest(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// [`hash`] on the stack.
struct HashDigits([u8; 16]);

impl HashDigits {
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

fn digits_of(h: u64) -> HashDigits {
    let mut out = [0u8; 16];
    crate::text::hex_into(&h.to_be_bytes(), &mut out);
    HashDigits(out)
}

/// `records` as a JSON array, as serde writes it (see [`Sidecar::to_bytes`]).
fn records_json(out: &mut Vec<u8>, records: &[Record]) {
    out.push(b'[');
    for (i, r) in records.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(br#"{"id":"#);
        json_str(out, &r.id);
        out.extend_from_slice(br#","hash":"#);
        json_str(out, &r.hash);
        out.extend_from_slice(br#","first_seen":"#);
        push_u64(out, r.first_seen);
        out.extend_from_slice(br#","last_changed":"#);
        push_u64(out, r.last_changed);
        if r.confirmed {
            out.extend_from_slice(br#","confirmed":true"#);
        }
        // The rare fields: as serde writes them.
        if let Some(importance) = r.importance {
            out.extend_from_slice(br#","importance":"#);
            let _ = serde_json::to_writer(&mut *out, &importance);
        }
        if let Some(category) = &r.category {
            out.extend_from_slice(br#","category":"#);
            let _ = serde_json::to_writer(&mut *out, category);
        }
        if r.pinned {
            out.extend_from_slice(br#","pinned":true"#);
        }
        if r.access_count != 0 {
            out.extend_from_slice(br#","access_count":"#);
            push_u64(out, r.access_count);
        }
        if let Some(at) = r.last_access {
            out.extend_from_slice(br#","last_access":"#);
            push_u64(out, at);
        }
        if let Some(agent) = &r.agent {
            out.extend_from_slice(br#","agent":"#);
            json_str(out, agent);
        }
        if let Some(origin) = &r.origin {
            out.extend_from_slice(br#","origin":"#);
            let _ = serde_json::to_writer(&mut *out, origin);
        }
        out.push(b'}');
    }
    out.push(b']');
}

/// `n` in decimal.
fn push_u64(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// `s` as a JSON string, escaped as serde escapes it.
pub(crate) fn json_str(out: &mut Vec<u8>, s: &str) {
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        let _ = serde_json::to_writer(&mut *out, s);
    }
}

/// Why a stored sidecar blob cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unusable {
    /// A newer mnemo wrote it (its format version): this one must not
    /// rewrite it, or the newer one's fields would be lost.
    Newer(u32),
    /// It is not a sidecar (hand-edited, truncated): why.
    Unreadable(String),
}

impl Sidecar {
    /// Reads the blob; an absent or unusable blob gives an empty state
    /// (dates are then re-learned from now on; no entry text is involved).
    /// [`Sidecar::read`] says why a blob is unusable.
    pub fn parse(bytes: Option<&[u8]>) -> Sidecar {
        bytes
            .and_then(|b| Sidecar::read(b).ok())
            .unwrap_or_else(Sidecar::empty)
    }

    /// A state that knows no entry yet.
    pub fn empty() -> Sidecar {
        Sidecar {
            version: VERSION,
            ..Sidecar::default()
        }
    }

    /// Reads a stored blob, or says why it cannot be used.
    pub fn read(bytes: &[u8]) -> Result<Sidecar, Unusable> {
        // The version first, so a newer format that an older build cannot
        // parse is still told apart from garbage.
        #[derive(Deserialize)]
        struct Version {
            version: u32,
        }
        if let Ok(Version { version }) = serde_json::from_slice::<Version>(bytes) {
            if version > VERSION {
                return Err(Unusable::Newer(version));
            }
        }
        serde_json::from_slice::<Sidecar>(bytes).map_err(|e| Unusable::Unreadable(e.to_string()))
    }

    /// The blob's bytes: the JSON serde writes for it, byte for byte, but
    /// written directly (a write serializes every entry's record and the
    /// whole verdict cache, so this is on every write's path).
    pub fn to_bytes(&self) -> Vec<u8> {
        use std::io::Write as _;
        let keys = self.scan.as_ref().map_or(0, VerdictCache::len);
        let mut out =
            Vec::with_capacity(64 + 96 * (self.memory.len() + self.user.len()) + 67 * keys);
        // Writes into a Vec<u8> cannot fail.
        let _ = write!(
            out,
            r#"{{"version":{},"next_id":{},"memory":"#,
            self.version, self.next_id
        );
        records_json(&mut out, &self.memory);
        out.extend_from_slice(br#","user":"#);
        records_json(&mut out, &self.user);
        if let Some(scan) = &self.scan {
            out.extend_from_slice(br#","scan":"#);
            scan.write_json(&mut out);
        }
        out.push(b'}');
        out
    }

    /// The records of `target`, in entry order.
    pub fn records(&self, target: Target) -> &[Record] {
        match target {
            Target::Memory => &self.memory,
            Target::User => &self.user,
        }
    }

    /// The node id of entry `index` of `target` in the journey and the
    /// sectors report: `memory:<target>:<entry id>` (the spec's shape; the
    /// third part is the stable id, so it survives edits of other entries).
    /// An entry the sidecar has not seen yet falls back to its index.
    pub fn node_id(&self, target: Target, index: usize) -> String {
        match self.records(target).get(index) {
            Some(record) => format!("memory:{target}:{}", record.id),
            None => format!("memory:{target}:{index}"),
        }
    }

    /// The entry a node id names now, by its stable id (`memory:user:e3`)
    /// or by its index (`memory:user:0`, the older form).
    pub fn find_node(&self, id: &str) -> Option<(Target, usize)> {
        let (store, last) = id.strip_prefix("memory:")?.split_once(':')?;
        let target = Target::from_name(store)?;
        let index = match last.parse::<usize>() {
            Ok(index) => index,
            Err(_) => self.records(target).iter().position(|r| r.id == last)?,
        };
        Some((target, index))
    }

    fn records_mut(&mut self, target: Target) -> &mut Vec<Record> {
        match target {
            Target::Memory => &mut self.memory,
            Target::User => &mut self.user,
        }
    }

    /// Brings the records of `target` in line with entries whose
    /// [`digest`]s are `digests` (in order) at time `now`; whether anything
    /// changed.
    pub fn reconcile(&mut self, target: Target, digests: &[u64], now: u64) -> bool {
        self.reconcile_detailed(target, digests, now).0
    }

    /// [`Sidecar::reconcile`], also telling which old entries were replaced
    /// or removed (their records are gone or now describe another text).
    ///
    /// A write changes a few entries of many: the records of the unchanged
    /// entries before and after the change keep their places and are moved,
    /// not copied, and only those in between are matched by text.
    pub fn reconcile_detailed(
        &mut self,
        target: Target,
        digests: &[u64],
        now: u64,
    ) -> (bool, Vec<Superseded>) {
        self.version = VERSION;
        let mut old = std::mem::take(self.records_mut(target));
        let digits: Vec<HashDigits> = digests.iter().map(|&d| digits_of(d)).collect();
        let same = |record: &Record, digits: &HashDigits| record.hash.as_bytes() == digits.0;
        let shortest = old.len().min(digits.len());
        let head = (0..shortest)
            .take_while(|&i| same(&old[i], &digits[i]))
            .count();
        let tail = (0..shortest - head)
            .take_while(|&k| same(&old[old.len() - 1 - k], &digits[digits.len() - 1 - k]))
            .count();
        let mut changed = old.len() != digits.len();
        // `old` keeps the head; the tail and the middle are split off it.
        let old_tail = old.split_off(old.len() - tail);
        let mut middle = old.split_off(head);
        let wanted = &digits[head..digits.len() - tail];
        let mut used = vec![false; middle.len()];
        let mut new: Vec<Option<Record>> = vec![None; wanted.len()];
        // Unchanged entries: same text, first unused record with it (the
        // records of each text in order, so a write costs O(entries)).
        let mut by_hash: rustc_hash::FxHashMap<&[u8], std::collections::VecDeque<usize>> =
            rustc_hash::FxHashMap::default();
        for (j, record) in middle.iter().enumerate() {
            by_hash
                .entry(record.hash.as_bytes())
                .or_default()
                .push_back(j);
        }
        let mut found = Vec::new();
        for (i, d) in wanted.iter().enumerate() {
            if let Some(j) = by_hash.get_mut(&d.0[..]).and_then(|js| js.pop_front()) {
                used[j] = true;
                changed |= i != j;
                found.push((i, j));
            }
        }
        drop(by_hash);
        for (i, j) in found {
            new[i] = Some(std::mem::take(&mut middle[j]));
        }
        // Edited entries: leftovers paired in order keep id and first seen.
        let leftover: Vec<usize> = (0..middle.len()).filter(|&j| !used[j]).collect();
        let mut spare = leftover.iter().copied();
        let mut superseded = Vec::new();
        for (i, slot) in new.iter_mut().enumerate() {
            if slot.is_some() {
                continue;
            }
            changed = true;
            let hash = wanted[i].as_str().to_string();
            *slot = Some(match spare.next() {
                Some(j) => {
                    let record = std::mem::take(&mut middle[j]);
                    superseded.push(Superseded {
                        old_index: head + j,
                        replaced: true,
                        id: record.id.clone(),
                        confirmed: record.confirmed,
                    });
                    Record {
                        hash,
                        last_changed: now,
                        ..record
                    }
                }
                None => {
                    self.next_id += 1;
                    Record {
                        id: format!("e{}", self.next_id),
                        hash,
                        first_seen: now,
                        last_changed: now,
                        ..Record::default()
                    }
                }
            });
        }
        for j in spare {
            let record = std::mem::take(&mut middle[j]);
            superseded.push(Superseded {
                old_index: head + j,
                replaced: false,
                id: record.id,
                confirmed: record.confirmed,
            });
        }
        old.extend(new.into_iter().flatten());
        old.extend(old_tail);
        *self.records_mut(target) = old;
        (changed, superseded)
    }

    /// The record of entry `index` of `target`, to change its metadata.
    pub fn record_mut(&mut self, target: Target, index: usize) -> Option<&mut Record> {
        self.records_mut(target).get_mut(index)
    }

    /// Marks entry `index` of `target` as confirmed by the user.
    pub fn confirm(&mut self, target: Target, index: usize) {
        if let Some(r) = self.records_mut(target).get_mut(index) {
            r.confirmed = true;
        }
    }
}

/// Name of the history blob: every superseded entry text.
pub const HISTORY_BLOB: &str = "mnemo-history.json";

/// What replaced or removed an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cause {
    /// A `replace` (tool call or journey edit) put another text in its place.
    Replace,
    /// A `remove` (tool call or journey delete) took it out.
    Remove,
    /// An import replaced the whole store.
    Import,
    /// A staged write the user rejected (its id is the staged write's).
    Rejected,
    /// Curation found a newer fact that supersedes it.
    Supersede,
    /// Curation pruned it (old, unimportant, unused).
    Prune,
    /// Curation's consolidation merged it with an identical entry.
    Merge,
}

/// One superseded entry text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryItem {
    /// The item's own id (`h1`, `h2`, …), which `restore` and
    /// `purge_history` take; items of older files get theirs by position.
    #[serde(default)]
    pub id: String,
    /// When it was superseded, ms since the Unix epoch.
    pub time: u64,
    /// `memory` or `user`.
    pub target: Target,
    /// The entry's stable id.
    pub entry_id: String,
    /// The text as it was.
    pub text: String,
    /// What superseded it.
    pub cause: Cause,
    /// Whether the user had confirmed it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub confirmed: bool,
    /// The agent whose change superseded it, when one was named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}

/// Every superseded entry text, oldest first. Nothing in it is ever
/// dropped by mnemo.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct History {
    /// Format version.
    pub version: u32,
    /// The items, oldest first.
    pub items: Vec<HistoryItem>,
    /// The next item id number.
    #[serde(default)]
    pub next_id: u64,
}

impl History {
    /// Reads the blob; absent means empty. An unreadable blob is an error:
    /// it holds text a user wrote, so mnemo will not overwrite it.
    pub fn parse(bytes: Option<&[u8]>) -> Result<History, String> {
        match bytes {
            None => Ok(History {
                version: VERSION,
                items: Vec::new(),
                next_id: 1,
            }),
            Some(b) => {
                let mut history: History = serde_json::from_slice(b).map_err(|e| e.to_string())?;
                if history.version > VERSION {
                    // Rewriting it would drop what the newer format adds.
                    return Err(format!(
                        "written by a newer mnemo (format {}); update mnemo to read it",
                        history.version
                    ));
                }
                // Items of a file written before ids existed get them by
                // position (the same on every read until it is written).
                let mut n = history.next_id.max(1);
                for item in &mut history.items {
                    if item.id.is_empty() {
                        item.id = format!("h{n}");
                        n += 1;
                    } else if let Some(k) = item
                        .id
                        .strip_prefix('h')
                        .and_then(|k| k.parse::<u64>().ok())
                    {
                        n = n.max(k + 1);
                    }
                }
                history.next_id = n;
                Ok(history)
            }
        }
    }

    /// Appends `item`, giving it the next id.
    pub fn push(&mut self, mut item: HistoryItem) {
        let n = self.next_id.max(1);
        item.id = format!("h{n}");
        self.next_id = n + 1;
        self.items.push(item);
    }

    /// The blob's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }
}

/// A history blob as this memory last read or wrote it, so that new items
/// are appended to it rather than the whole history parsed and written
/// again: the blob ends with `],"next_id":N}` (as [`History::to_bytes`]
/// writes it), and items go in before that `]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryTail {
    /// The blob's bytes: an append is made only to exactly these.
    raw: Vec<u8>,
    /// Where the `]` that closes the items is.
    items_end: usize,
    /// The next item id number (as [`History::parse`] counts it).
    next_id: u64,
}

impl HistoryTail {
    /// The tail of `raw`, whose parse is `history`; `None` when its end is
    /// not the one [`History::to_bytes`] writes (the next write is then a
    /// whole one).
    pub fn of(raw: Vec<u8>, history: &History) -> Option<HistoryTail> {
        let body = raw.strip_suffix(b"}")?;
        let at = body.windows(12).rposition(|w| w == br#"],"next_id":"#)?;
        let digits = &body[at + 12..];
        if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        Some(HistoryTail {
            items_end: at,
            next_id: history.next_id.max(1),
            raw,
        })
    }

    /// Whether `bytes` are the blob this tail describes.
    pub fn describes(&self, bytes: &[u8]) -> bool {
        self.raw == bytes
    }

    /// `items` given their ids and appended: the change to the blob
    /// ([`HISTORY_BLOB`]) and the tail after it.
    pub fn append(&self, items: Vec<HistoryItem>) -> (crate::storage::Change, HistoryTail) {
        let mut next_id = self.next_id;
        let mut empty = self.raw[..self.items_end].last() == Some(&b'[');
        let mut data = Vec::new();
        for mut item in items {
            item.id = format!("h{next_id}");
            next_id += 1;
            if !empty {
                data.push(b',');
            }
            empty = false;
            // An item always serializes (strings, numbers and enums).
            let _ = serde_json::to_writer(&mut data, &item);
        }
        let items_end = self.items_end + data.len();
        data.extend_from_slice(br#"],"next_id":"#);
        data.extend_from_slice(itoa::Buffer::new().format(next_id).as_bytes());
        data.push(b'}');
        let mut raw = self.raw[..self.items_end].to_vec();
        raw.extend_from_slice(&data);
        (
            crate::storage::Change::Append {
                name: HISTORY_BLOB.to_string(),
                at: self.items_end as u64,
                data,
            },
            HistoryTail {
                raw,
                items_end,
                next_id,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The digests of entries `v`.
    fn e(v: &[&str]) -> Vec<u64> {
        v.iter().map(|s| digest(s)).collect()
    }

    #[test]
    fn ids_and_dates_survive_other_entries_moving() {
        let mut s = Sidecar::parse(None);
        assert!(s.reconcile(Target::Memory, &e(&["a", "b", "c"]), 10));
        let ids: Vec<String> = s.memory.iter().map(|r| r.id.clone()).collect();
        assert_eq!(ids, ["e1", "e2", "e3"]);
        // Remove "a", reorder: "c" and "b" keep their ids and dates.
        assert!(s.reconcile(Target::Memory, &e(&["c", "b"]), 20));
        assert_eq!(s.memory[0].id, "e3");
        assert_eq!(s.memory[1].id, "e2");
        assert_eq!(s.memory[0].first_seen, 10);
        // Nothing changed: nothing to write.
        assert!(!s.reconcile(Target::Memory, &e(&["c", "b"]), 30));
    }

    #[test]
    fn an_edited_entry_keeps_its_id_and_first_seen() {
        let mut s = Sidecar::parse(None);
        s.reconcile(Target::User, &e(&["x", "y"]), 5);
        let (_, gone) = s.reconcile_detailed(Target::User, &e(&["x", "y changed", "z"]), 9);
        assert_eq!(
            gone,
            [Superseded {
                old_index: 1,
                replaced: true,
                id: "e2".into(),
                confirmed: false,
            }]
        );
        assert_eq!(s.user[1].id, "e2");
        assert_eq!((s.user[1].first_seen, s.user[1].last_changed), (5, 9));
        assert_eq!(s.user[2].id, "e3");
        assert_eq!(s.user[2].first_seen, 9);
    }

    #[test]
    fn the_blob_is_written_as_serde_writes_it() {
        let mut s = Sidecar::parse(None);
        s.reconcile(Target::Memory, &e(&["a", "b", "c"]), 1_764_000_000_000);
        s.reconcile(Target::User, &e(&["u"]), 7);
        let r = &mut s.memory[1];
        r.confirmed = true;
        r.importance = Some(0.1 + 0.2);
        r.category = Some(crate::meta::Category::Security);
        r.pinned = true;
        r.access_count = 12;
        r.last_access = Some(99);
        r.agent = Some("ops \"bot\"\\\n\u{1}é\u{2028}".into());
        r.origin = Some(crate::approval::Origin::Review);
        s.memory[2].importance = Some(1.0);
        s.memory[2].agent = Some("plain".into());
        assert_eq!(s.to_bytes(), serde_json::to_vec(&s).unwrap());
        let store = crate::store::Store::new(vec!["x".into(), "y".into()]);
        s.scan = Some(VerdictCache::of(std::slice::from_ref(&store)));
        assert_eq!(s.to_bytes(), serde_json::to_vec(&s).unwrap());
        assert_eq!(Sidecar::read(&s.to_bytes()).unwrap(), s);
    }

    #[test]
    fn a_write_moves_the_records_around_it_and_matches_the_rest_by_text() {
        // Random edits, duplicates included: every record names its entry's
        // text, an entry whose text is unique before and after keeps its
        // id, and "changed" says whether the records changed.
        let mut seed = 11u32;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (seed >> 16) as usize % n.max(1)
        };
        let mut s = Sidecar::parse(None);
        let mut entries: Vec<String> = (0..6).map(|i| format!("t{i}")).collect();
        let digests = |v: &[String]| v.iter().map(|t| digest(t)).collect::<Vec<u64>>();
        s.reconcile(Target::Memory, &digests(&entries), 1);
        for step in 0..500 {
            let before = entries.clone();
            let old = s.memory.clone();
            let len = entries.len();
            match next(5) {
                0 => entries.push(format!("n{step}")),
                1 if len > 0 => entries[next(len)] = format!("x{step}"),
                2 if len > 0 => {
                    entries.remove(next(len));
                }
                3 if len > 1 => entries.swap(next(len), next(len)),
                _ if len > 0 => entries.insert(next(len), before[next(len)].clone()),
                _ => {}
            }
            let changed = s.reconcile(Target::Memory, &digests(&entries), step + 2);
            assert_eq!(changed, s.memory != old, "step {step}");
            assert_eq!(s.memory.len(), entries.len());
            for (record, text) in s.memory.iter().zip(&entries) {
                assert_eq!(record.hash, hash(text), "step {step}");
            }
            let once = |v: &[String], t: &String| v.iter().filter(|x| *x == t).count() == 1;
            for (i, text) in entries.iter().enumerate() {
                if once(&entries, text) && once(&before, text) {
                    let j = before.iter().position(|t| t == text).unwrap();
                    assert_eq!(s.memory[i].id, old[j].id, "step {step}: {text}");
                }
            }
        }
    }

    #[test]
    fn history_appends_write_what_a_whole_rewrite_writes() {
        let item = |n: u64, text: &str| HistoryItem {
            id: String::new(),
            time: n,
            target: Target::Memory,
            entry_id: format!("e{n}"),
            text: text.into(),
            cause: Cause::Replace,
            confirmed: n.is_multiple_of(2),
            agent: n.is_multiple_of(3).then(|| "ops \"bot\"".into()),
        };
        let mut whole = History::parse(None).unwrap();
        let mut tail = HistoryTail::of(whole.to_bytes(), &whole).unwrap();
        let mut blob = whole.to_bytes();
        for round in 0..4u64 {
            let items: Vec<HistoryItem> = (0..=round)
                .map(|k| item(round * 10 + k, &format!("text {round} {k} ü\n\"q\"")))
                .collect();
            for i in items.clone() {
                whole.push(i);
            }
            let (change, after) = tail.append(items);
            let crate::storage::Change::Append { name, at, data } = change else {
                panic!("not an append");
            };
            assert_eq!(name, HISTORY_BLOB);
            blob = crate::storage::appended(blob, at, &data);
            assert_eq!(blob, whole.to_bytes(), "round {round}");
            assert!(after.describes(&blob));
            assert_eq!(History::parse(Some(&blob)).unwrap(), whole);
            tail = after;
        }
        // A blob written some other way gets no tail: the next write is whole.
        assert!(HistoryTail::of(br#"{"version":1,"items":[]}"#.to_vec(), &whole).is_none());
        assert!(!tail.describes(b"{}"));
    }

    #[test]
    fn the_blob_round_trips_and_garbage_starts_fresh() {
        let mut s = Sidecar::parse(None);
        s.reconcile(Target::Memory, &e(&["a"]), 1);
        assert_eq!(Sidecar::parse(Some(&s.to_bytes())), s);
        assert_eq!(Sidecar::parse(Some(b"{not json")).memory.len(), 0);
        assert!(matches!(
            Sidecar::read(b"{not json"),
            Err(Unusable::Unreadable(_))
        ));
        let newer = br#"{"version": 7, "next_id": 1, "memory": [], "user": [], "new": 1}"#;
        assert_eq!(Sidecar::read(newer), Err(Unusable::Newer(7)));
        let newer_history = br#"{"version": 7, "items": []}"#;
        assert!(History::parse(Some(newer_history))
            .unwrap_err()
            .contains("newer mnemo"));
        assert_eq!(hash(""), "cbf29ce484222325");
        assert!(History::parse(Some(b"{broken")).is_err());
        assert!(History::parse(None).unwrap().items.is_empty());
    }
}
