//! All-or-nothing commits over single-blob atomic writes.
//!
//! A commit of several blobs first writes every change into one journal
//! blob, then applies them, then deletes the journal. A crash before the
//! journal is complete leaves the old state; a crash after leaves a journal
//! that [`recover`] replays when the memory next opens, giving the new
//! state. A commit of one change needs no journal: the single write is
//! already atomic.
//!
//! Journal format (binary-safe): the header line `mnemo-journal 1\n`, then
//! per change either `W <name-len> <data-len>\n<name><data>\n` or
//! `D <name-len>\n<name>\n`, then the trailer `end\n`.

use super::{Change, Storage};
use crate::error::Result;

/// Name of the journal blob.
pub const JOURNAL: &str = "mnemo.journal";

const HEADER: &[u8] = b"mnemo-journal 1\n";
const TRAILER: &[u8] = b"end\n";

/// Applies `changes` all-or-nothing through the journal (the default
/// [`Storage::commit`]).
pub async fn commit<S: Storage + ?Sized>(storage: &S, changes: &[Change]) -> Result<()> {
    if changes.len() > 1 {
        storage.write(JOURNAL, &encode(changes)).await?;
    }
    apply(storage, changes).await?;
    if changes.len() > 1 {
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
            "W" => parts.next()?.parse().ok()?,
            "D" => 0,
            _ => return None,
        };
        let name = std::str::from_utf8(rest.get(..name_len)?).ok()?.to_string();
        let data = rest
            .get(name_len..name_len.checked_add(data_len)?)?
            .to_vec();
        rest = rest.get(name_len + data_len..)?.strip_prefix(b"\n")?;
        changes.push(match kind {
            "W" => Change::Write { name, data },
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
