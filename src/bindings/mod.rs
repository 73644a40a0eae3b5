//! Thin bindings of the core for other worlds. Each converts its inputs,
//! calls the core, and converts the outputs and errors; nothing else.

#[cfg(all(feature = "js", target_arch = "wasm32"))]
pub mod js;

#[cfg(all(feature = "component", target_arch = "wasm32"))]
pub mod wit;
