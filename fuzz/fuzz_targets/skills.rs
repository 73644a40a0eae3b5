//! Fuzz target `skills`: the property `props::skills::check` (tests/props/skills.rs).
#![no_main]

#[path = "../../tests/props/mod.rs"]
mod props;

libfuzzer_sys::fuzz_target!(|data: &[u8]| props::skills::check(data));
