//! Fuzz target `tool`: the property `props::tool::check` (tests/props/tool.rs).
#![no_main]

#[path = "../../tests/props/mod.rs"]
mod props;

libfuzzer_sys::fuzz_target!(|data: &[u8]| props::tool::check(data));
