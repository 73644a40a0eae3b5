//! The behaviour suite in wasm, under Node.js (`wasm-pack test --node`).
#![cfg(target_arch = "wasm32")]

#[macro_use]
mod behaviour;

behaviour_suite!();
