//! All-or-nothing commits over single-blob atomic writes.
//!
//! A commit of several blobs first writes every change into one journal
//! blob, then applies them, then deletes the journal. A crash before the
//! journal is complete leaves the old state; a crash after leaves a journal
//! that [`recover`] replays when the memory next opens, giving the new
//! state. A commit of one write or delete needs no journal: the single
//! write is already atomic. An append is journaled even alone: a crash in
//! the middle of it can leave part of its bytes, and the replay (which
//! cuts the blob back to where the append started) makes it whole.
//!
//! Journal format (binary-safe): the header line `mnemo-journal 1\n`, then
//! per change `W <name-len> <data-len>\n<name><data>\n`,
//! `D <name-len>\n<name>\n` or `A <name-len> <data-len> <at>\n<name><data>\n`,
//! then the trailer `end\n`.

use super::{Change, Storage};
use crate::error::Result;

/// Name of the journal blob.
pub const JOURNAL: &str = "mnemo.journal";

const HEADER: &[u8] = b"mnemo-journal 1\n";
const TRAILER: &[u8] = b"end\n";

/// Applies `changes` all-or-nothing through the journal (the default
/// [`Storage::commit`]).
pub async fn commit<S: Storage + ?Sized>(storage: &S, changes: &[Change]) -> Result<()> {
    let journaled = changes.len() > 1 || changes.iter().any(|c| matches!(c, Change::Append { .. }));
    if journaled {
        storage.write(JOURNAL, &encode(changes)).await?;
    }
    apply(storage, changes).await?;
    if journaled {
        storage.delete(JOURNAL).await?;
    }
    Ok(())
}

/// Finishes a journaled commit a crash interrupted (the default
/// [`Storage::recover`]).
pub async fn recover<S: Storage + ?Sized>(storage: &S) -> Result<()> {
    let Some(bytes) = storage.read(JOURNAL).await? else {
        return Ok(());
    };
    // An incomplete journal cannot exist (its write is atomic), but if a
    // backend breaks that promise the commit never started: drop it.
    if let Some(changes) = decode(&bytes) {
        apply(storage, &changes).await?;
    }
    storage.delete(JOURNAL).await
}

async fn apply<S: Storage + ?Sized>(storage: &S, changes: &[Change]) -> Result<()> {
    for change in changes {
        match change {
            Change::Write { name, data } => storage.write(name, data).await?,
            Change::Delete { name } => storage.delete(name).await?,
            Change::Append { name, at, data } => storage.write_at(name, *at, data).await?,
        }
    }
    Ok(())
}

pub(crate) fn encode(changes: &[Change]) -> Vec<u8> {
    let mut out = HEADER.to_vec();
    for change in changes {
        match change {
            Change::Write { name, data } => {
                out.extend_from_slice(format!("W {} {}\n", name.len(), data.len()).as_bytes());
                out.extend_from_slice(name.as_bytes());
                out.extend_from_slice(data);
            }
            Change::Delete { name } => {
                out.extend_from_slice(format!("D {}\n", name.len()).as_bytes());
                out.extend_from_slice(name.as_bytes());
            }
            Change::Append { name, at, data } => {
                out.extend_from_slice(format!("A {} {} {at}\n", name.len(), data.len()).as_bytes());
                out.extend_from_slice(name.as_bytes());
                out.extend_from_slice(data);
            }
        }
        out.push(b'\n');
    }
    out.extend_from_slice(TRAILER);
    out
}

fn decode(bytes: &[u8]) -> Option<Vec<Change>> {
    let mut rest = bytes.strip_prefix(HEADER)?;
    let mut changes = Vec::new();
    loop {
        if rest == TRAILER {
            return Some(changes);
        }
        let nl = rest.iter().position(|&b| b == b'\n')?;
        let line = std::str::from_utf8(&rest[..nl]).ok()?;
        rest = &rest[nl + 1..];
        let mut parts = line.split(' ');
        let kind = parts.next()?;
        let name_len: usize = parts.next()?.parse().ok()?;
        let data_len: usize = match kind {
            "W" | "A" => parts.next()?.parse().ok()?,
            "D" => 0,
            _ => return None,
        };
        let at: u64 = match kind {
            "A" => parts.next()?.parse().ok()?,
            _ => 0,
        };
        let name = std::str::from_utf8(rest.get(..name_len)?).ok()?.to_string();
        let data = rest
            .get(name_len..name_len.checked_add(data_len)?)?
            .to_vec();
        rest = rest.get(name_len + data_len..)?.strip_prefix(b"\n")?;
        changes.push(match kind {
            "W" => Change::Write { name, data },
            "A" => Change::Append { name, at, data },
            _ => Change::Delete { name },
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::MemoryStorage;

    #[test]
    fn journal_round_trips_binary_data() {
        let changes = vec![
            Change::Write {
                name: "MEMORY.md".into(),
                data: b"a\n\xff\nend\n".to_vec(),
            },
            Change::Delete {
                name: "USER.md".into(),
            },
            Change::Write {
                name: "x".into(),
                data: Vec::new(),
            },
            Change::Append {
                name: "logs/2026-12-01.md".into(),
                at: 1234,
                data: b"- 10:00:00 \xff\n".to_vec(),
            },
        ];
        assert_eq!(decode(&encode(&changes)), Some(changes));
        assert_eq!(decode(b"mnemo-journal 1\nW 3 1\nab"), None);
    }

    #[test]
    fn a_crash_after_the_journal_is_finished_by_recover() {
        let storage = MemoryStorage::new();
        storage.put("A", "old a");
        storage.put("B", "old b");
        let changes = vec![
            Change::Write {
                name: "A".into(),
                data: b"new a".to_vec(),
            },
            Change::Write {
                name: "B".into(),
                data: b"new b".to_vec(),
            },
        ];
        // The journal and the first blob get written, then the "disk" fails.
        storage.fail_writes_after(Some(2));
        assert!(pollster::block_on(storage.commit(&changes)).is_err());
        assert_eq!(storage.snapshot()["B"], b"old b");
        storage.fail_writes_after(None);
        pollster::block_on(storage.recover()).unwrap();
        let blobs = storage.snapshot();
        assert_eq!(blobs["A"], b"new a");
        assert_eq!(blobs["B"], b"new b");
        assert!(!blobs.contains_key(JOURNAL));
    }

    #[test]
    fn an_append_cut_short_by_a_crash_is_made_whole_once() {
        let storage = MemoryStorage::new();
        storage.put("log", "line 1\n");
        let append = [Change::Append {
            name: "log".into(),
            at: 7,
            data: b"line 2\n".to_vec(),
        }];
        // Alone, it is journaled: the journal gets written, the append fails.
        storage.fail_writes_after(Some(1));
        assert!(pollster::block_on(storage.commit(&append)).is_err());
        assert_eq!(storage.snapshot()["log"], b"line 1\n");
        // What a crash in the middle of the append would leave.
        storage.put("log", "line 1\nli");
        storage.fail_writes_after(None);
        pollster::block_on(storage.recover()).unwrap();
        assert_eq!(storage.snapshot()["log"], b"line 1\nline 2\n");
        // A replay of an append that had finished changes nothing.
        storage.put(JOURNAL, encode(&append));
        pollster::block_on(storage.recover()).unwrap();
        let blobs = storage.snapshot();
        assert_eq!(blobs["log"], b"line 1\nline 2\n");
        assert!(!blobs.contains_key(JOURNAL));
        // An append to a blob that does not exist yet creates it.
        let new = [Change::Append {
            name: "new".into(),
            at: 0,
            data: b"first".to_vec(),
        }];
        pollster::block_on(storage.commit(&new)).unwrap();
        assert_eq!(storage.snapshot()["new"], b"first");
    }

    #[test]
    fn a_crash_before_the_journal_leaves_the_old_state() {
        let storage = MemoryStorage::new();
        storage.put("A", "old a");
        let changes = vec![
            Change::Write {
                name: "A".into(),
                data: b"new a".to_vec(),
            },
            Change::Delete { name: "A".into() },
        ];
        storage.fail_writes_after(Some(0));
        assert!(pollster::block_on(storage.commit(&changes)).is_err());
        storage.fail_writes_after(None);
        pollster::block_on(storage.recover()).unwrap();
        assert_eq!(storage.snapshot()["A"], b"old a");
    }
}
