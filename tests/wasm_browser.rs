//! The behaviour suite in wasm, in a headless browser page.
#![cfg(target_arch = "wasm32")]

#[macro_use]
mod behaviour;

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
behaviour_suite!();
