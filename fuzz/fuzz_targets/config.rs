//! Fuzz target `config`: the property `props::config::check` (tests/props/config.rs).
#![no_main]

#[path = "../../tests/props/mod.rs"]
mod props;

libfuzzer_sys::fuzz_target!(|data: &[u8]| props::config::check(data));
