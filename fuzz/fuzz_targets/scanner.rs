//! Fuzz target `scanner`: the property `props::scanner::check` (tests/props/scanner.rs).
#![no_main]

#[path = "../../tests/props/mod.rs"]
mod props;

libfuzzer_sys::fuzz_target!(|data: &[u8]| props::scanner::check(data));
