//! One file per group of commands. Each command opens what it needs
//! through [`crate::paths::Paths`], calls the core, prints through
//! [`crate::render`] and returns the exit status; none of them parses
//! arguments or decides a rule the core owns.

pub mod activity;
pub mod approval;
pub mod curate;
pub mod entries;
pub mod journey;
pub mod review;
pub mod scan;
pub mod scope;
pub mod search;
pub mod sectors;
pub mod sessions;
pub mod skills;
pub mod store;
pub mod tool;
pub mod transcripts;
