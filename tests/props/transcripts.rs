//! The transcript importers: any text in any format is a transcript or an
//! `invalid-input` error; what is read is well formed: every message has a
//! session, and an agent's messages a role and a key.

use mnemo::transcripts::{parse, Format};
use mnemo::ErrorKind;

/// The first byte picks the format (and whether the file has a name), the
/// rest is the transcript.
pub fn check(data: &[u8]) {
    let (format, named, bytes) = match data.split_first() {
        Some((&b, rest)) => (Format::ALL[b as usize % 3], b & 4 == 0, rest),
        None => (Format::Mnemo, false, data),
    };
    let text = super::lossy(bytes);
    let name =
        named.then_some("rollout-2026-01-02T03-04-05-0199aaaa-bbbb-cccc-dddd-eeeeffff0000.jsonl");
    let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    match parse(format, &text, name) {
        Ok(t) => {
            assert!(t.malformed <= lines && t.ignored <= lines * 64 + 64);
            for m in &t.messages {
                assert!(!m.session.is_empty(), "a message without a session: {m:?}");
                assert!(
                    !m.text.trim().is_empty() || format == Format::Mnemo,
                    "{m:?}"
                );
                if format != Format::Mnemo {
                    assert!(m.role == "user" || m.role == "assistant", "{m:?}");
                    // The key the session store deduplicates on (a line
                    // written twice is imported once).
                    let key = m.key.as_deref().expect("an agent's message has a key");
                    assert!(!key.is_empty(), "{m:?}");
                }
            }
            // Reading is a function of the text.
            assert_eq!(parse(format, &text, name).ok(), Some(t));
        }
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e:?}");
            assert!(!e.message().is_empty());
        }
    }
}
