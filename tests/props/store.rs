//! The Markdown store parser: parse → serialize → parse is canonical and
//! stable, limits are respected, nothing panics.

use mnemo::store::{self, FileState, SEPARATOR};
use mnemo::Store;

/// The first byte picks the storage limit (small ones reach "damaged"),
/// the rest is the file.
pub fn check(data: &[u8]) {
    let (limit, bytes) = match data.split_first() {
        Some((&b, rest)) => (1 + (b as usize) * 8, rest),
        None => (2_200, data),
    };
    let read = Store::from_bytes(Some(bytes), limit);
    let text = read.serialize();
    // Entries are trimmed, non-empty and never hold a separator line.
    for entry in read.entries() {
        assert!(!entry.is_empty(), "empty entry from {bytes:?}");
        assert_eq!(entry.trim(), entry, "untrimmed entry from {bytes:?}");
        assert!(
            !entry.split('\n').any(|l| l.trim() == "§"),
            "entry holds a separator line: {entry:?}"
        );
    }
    assert_eq!(read.chars(), store::joined_chars(read.entries()));
    assert_eq!(read.chars(), text.chars().count());
    // The canonical text reads back into the same entries, and is canonical.
    let again = Store::from_bytes(Some(text.as_bytes()), limit);
    assert_eq!(
        again.entries(),
        read.entries(),
        "parse(serialize(parse(x))) differs for {bytes:?}"
    );
    assert_eq!(again.serialize(), text);
    match read.state() {
        FileState::Canonical => {
            assert_eq!(
                text.as_bytes(),
                bytes,
                "a canonical file is written back as read"
            );
        }
        FileState::NonCanonical => {
            assert_ne!(text.as_bytes(), bytes);
            assert_eq!(again.state(), &FileState::Canonical, "{text:?}");
        }
        FileState::Damaged(why) => assert!(!why.is_empty()),
    }
    if !matches!(read.state(), FileState::Damaged(_)) {
        // Limits: no single entry is longer than the whole store may be.
        for entry in read.entries() {
            assert!(entry.chars().count() <= limit);
        }
        // The same entries, built directly, serialise the same way.
        assert_eq!(Store::new(read.entries().to_vec()).serialize(), text);
    }
    // What the prompt shows has one text per entry.
    assert_eq!(
        read.shown_all(mnemo::Target::Memory).len(),
        read.entries().len()
    );
    // The parser alone agrees with the store.
    assert_eq!(store::parse(&text), read.entries());
    if !text.is_empty() {
        assert_eq!(text.split(SEPARATOR).count(), read.entries().len());
    }
}
