//! The fuzzing properties, written once. Each function takes the raw bytes
//! of one input and panics when a property fails. Three runners share them:
//! the cargo-fuzz targets in `fuzz/` (nightly, libFuzzer), the replay of
//! every saved input in `fuzz/corpus/` and `fuzz/regressions/`
//! (`tests/fuzz_replay.rs`, stable, part of `cargo test`), and the proptest
//! properties of `tests/fuzz_replay.rs`.
//!
//! Cost is measured only by the fuzzer (`cfg(fuzzing)`): no test is timed.

#![allow(dead_code)]

pub mod approval;
pub mod config;
pub mod scanner;
pub mod skills;
pub mod store;
pub mod text;
pub mod tool;
pub mod transcripts;
pub mod wikilinks;

/// A property over one input: panics when it fails.
pub type Check = fn(&[u8]);

/// Every target by name, for the replay runner.
pub const TARGETS: &[(&str, Check)] = &[
    ("store", store::check),
    ("tool", tool::check),
    ("config", config::check),
    ("scanner", scanner::check),
    ("text", text::check),
    ("wikilinks", wikilinks::check),
    ("approval", approval::check),
    ("skills", skills::check),
    ("transcripts", transcripts::check),
];

/// The input as text: invalid UTF-8 is replaced, as a reader of the file
/// would see it after its own validation.
pub fn lossy(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// Runs a future to completion (every storage here is in memory).
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    pollster::block_on(future)
}
