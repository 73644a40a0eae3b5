//! Fuzz target `store`: the property `props::store::check` (tests/props/store.rs).
#![no_main]

#[path = "../../tests/props/mod.rs"]
mod props;

libfuzzer_sys::fuzz_target!(|data: &[u8]| props::store::check(data));
