//! Fuzz target `transcripts`: the property `props::transcripts::check` (tests/props/transcripts.rs).
#![no_main]

#[path = "../../tests/props/mod.rs"]
mod props;

libfuzzer_sys::fuzz_target!(|data: &[u8]| props::transcripts::check(data));
