//! Fuzz target `approval`: the property `props::approval::check` (tests/props/approval.rs).
#![no_main]

#[path = "../../tests/props/mod.rs"]
mod props;

libfuzzer_sys::fuzz_target!(|data: &[u8]| props::approval::check(data));
