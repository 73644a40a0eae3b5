//! The behaviour suite in wasm, in a dedicated Web Worker of a headless browser.
#![cfg(target_arch = "wasm32")]

#[macro_use]
mod behaviour;

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_dedicated_worker);
behaviour_suite!();
