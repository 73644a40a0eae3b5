//! The approval queue's durable record (`mnemo-pending.json`): arbitrary
//! bytes parse to a queue or a clear error; a queue round-trips through its
//! own bytes; an unreadable queue is never overwritten; approving every
//! staged write accounts for each one and leaves a readable queue.

use mnemo::approval::{Queue, Which, BLOB};
use mnemo::{Config, Memory, MemoryStorage, Target};

const NOTES: &str = "Deploys go out on Tuesdays\n§\nThe build uses cargo";

/// The input is the queue file.
pub fn check(data: &[u8]) {
    let parsed = Queue::parse(Some(data));
    if let Ok(queue) = &parsed {
        let bytes = queue.to_bytes();
        let back = Queue::parse(Some(&bytes)).expect("a queue's own bytes parse");
        assert_eq!(&back, queue, "round trip");
        assert_eq!(back.to_bytes(), bytes, "the bytes are canonical");
        for item in &queue.items {
            // A staged write becomes a call or a clear error.
            if let Err(e) = item.call(None) {
                assert!(!e.message().is_empty());
            }
        }
    }
    let storage = MemoryStorage::with_clock(|| 1_795_980_426_000);
    storage.put("MEMORY.md", NOTES);
    storage.put(BLOB, data.to_vec());
    let opened = super::block_on(Memory::open(storage.clone(), Config::default()));
    let Ok(mut m) = opened else {
        assert!(parsed.is_err(), "a readable queue opens");
        assert_eq!(
            storage.snapshot()[BLOB],
            data,
            "the queue was changed by a failed open"
        );
        return;
    };
    let pending = super::block_on(m.pending());
    let approved = super::block_on(m.approve(&Which::All, None));
    match (&parsed, pending, approved) {
        (Ok(queue), Ok(items), Ok(report)) => {
            assert_eq!(items.len(), queue.items.len());
            // Each staged write was applied or kept for review, none twice.
            let mut seen: Vec<&str> = report.applied.iter().map(String::as_str).collect();
            seen.extend(report.failed.iter().map(|f| f.id.as_str()));
            let before = seen.len();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), before, "an id reported twice");
            let left = super::block_on(m.pending()).expect("the queue reads after approve");
            for f in &report.failed {
                assert!(
                    left.iter().any(|i| i.id == f.id),
                    "{} not kept for review",
                    f.id
                );
            }
            for id in &report.applied {
                assert!(
                    !left.iter().any(|i| &i.id == id),
                    "{id} applied but still queued"
                );
            }
            let blob = storage.snapshot().get(BLOB).cloned().unwrap_or_default();
            Queue::parse(Some(&blob)).expect("the queue written back parses");
            assert!(m.store(Target::Memory).chars() <= m.config().storage_limit(Target::Memory));
        }
        (Ok(_), _, _) => {}
        (Err(_), pending, approved) => {
            assert!(
                pending.is_err() && approved.is_err(),
                "an unreadable queue is refused"
            );
            assert_eq!(
                storage.snapshot()[BLOB],
                data,
                "an unreadable queue was overwritten"
            );
            assert_eq!(storage.snapshot()["MEMORY.md"], NOTES.as_bytes());
        }
    }
}
