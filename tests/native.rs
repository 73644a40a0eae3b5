//! The behaviour suite, natively.
#[macro_use]
mod behaviour;

behaviour_suite!();
