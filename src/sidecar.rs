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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Superseded {
    /// Its index among the old entries.
    pub old_index: usize,
    /// Whether another entry took its place (an edit) or it is gone.
    pub replaced: bool,
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
    hash_digits(text).as_str().to_string()
}

/// [`hash`] on the stack.
struct HashDigits([u8; 16]);

impl HashDigits {
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

fn hash_digits(text: &str) -> HashDigits {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    let mut out = [0u8; 16];
    crate::text::hex_into(&h.to_be_bytes(), &mut out);
    HashDigits(out)
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

    /// The blob's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
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

    /// Brings the records of `target` in line with `entries` at time `now`;
    /// whether anything changed.
    pub fn reconcile(&mut self, target: Target, entries: &[String], now: u64) -> bool {
        self.reconcile_detailed(target, entries, now).0
    }

    /// [`Sidecar::reconcile`], also telling which old entries were replaced
    /// or removed (their records are gone or now describe another text).
    pub fn reconcile_detailed(
        &mut self,
        target: Target,
        entries: &[String],
        now: u64,
    ) -> (bool, Vec<Superseded>) {
        self.version = VERSION;
        let old = std::mem::take(self.records_mut(target));
        let hashes: Vec<HashDigits> = entries.iter().map(|e| hash_digits(e)).collect();
        let mut used = vec![false; old.len()];
        let mut new: Vec<Option<Record>> = vec![None; entries.len()];
        // Unchanged entries: same text, first unused record with it (the
        // records of each text in order, so a write costs O(entries)).
        let mut by_hash: rustc_hash::FxHashMap<&str, std::collections::VecDeque<usize>> =
            rustc_hash::FxHashMap::default();
        for (j, record) in old.iter().enumerate() {
            by_hash
                .entry(record.hash.as_str())
                .or_default()
                .push_back(j);
        }
        for (i, h) in hashes.iter().enumerate() {
            if let Some(j) = by_hash.get_mut(h.as_str()).and_then(|js| js.pop_front()) {
                used[j] = true;
                new[i] = Some(old[j].clone());
            }
        }
        // Edited entries: leftovers paired in order keep id and first seen.
        let leftover: Vec<usize> = (0..old.len()).filter(|&j| !used[j]).collect();
        let mut spare = leftover.iter().copied();
        let mut superseded = Vec::new();
        for (i, slot) in new.iter_mut().enumerate() {
            if slot.is_some() {
                continue;
            }
            *slot = Some(match spare.next() {
                Some(j) => {
                    superseded.push(Superseded {
                        old_index: j,
                        replaced: true,
                    });
                    Record {
                        hash: hashes[i].as_str().to_string(),
                        last_changed: now,
                        ..old[j].clone()
                    }
                }
                None => {
                    self.next_id += 1;
                    Record {
                        id: format!("e{}", self.next_id),
                        hash: hashes[i].as_str().to_string(),
                        first_seen: now,
                        last_changed: now,
                        confirmed: false,
                        importance: None,
                        category: None,
                        pinned: false,
                        access_count: 0,
                        last_access: None,
                        agent: None,
                        origin: None,
                    }
                }
            });
        }
        superseded.extend(spare.map(|j| Superseded {
            old_index: j,
            replaced: false,
        }));
        let new: Vec<Record> = new.into_iter().flatten().collect();
        let changed = new != old;
        *self.records_mut(target) = new;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn e(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
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
                replaced: true
            }]
        );
        assert_eq!(s.user[1].id, "e2");
        assert_eq!((s.user[1].first_seen, s.user[1].last_changed), (5, 9));
        assert_eq!(s.user[2].id, "e3");
        assert_eq!(s.user[2].first_seen, 9);
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
