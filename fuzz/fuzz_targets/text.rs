//! Fuzz target `text`: the property `props::text::check` (tests/props/text.rs).
#![no_main]

#[path = "../../tests/props/mod.rs"]
mod props;

libfuzzer_sys::fuzz_target!(|data: &[u8]| props::text::check(data));
