//! Fuzz target `wikilinks`: the property `props::wikilinks::check` (tests/props/wikilinks.rs).
#![no_main]

#[path = "../../tests/props/mod.rs"]
mod props;

libfuzzer_sys::fuzz_target!(|data: &[u8]| props::wikilinks::check(data));
