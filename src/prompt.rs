//! The frozen snapshot of memory for the system prompt.
//!
//! One block per enabled, non-empty store, in the spec's format: a rule of
//! `═`, the header with usage, another rule, then the entries separated by
//! `§` lines. While a store fits its verbatim budget the header reports
//! usage against that budget; a store above it reports usage against its
//! storage limit. The [`Memory`](crate::Memory) driver captures the text at
//! session start and keeps it unchanged until the next session.

use crate::config::Config;
use crate::store::{usage_long, Store, Target, SEPARATOR};

/// The rule line above and below a block header.
pub const RULE: &str = "══════════════════════════════════════════════";

/// The header label of `target`'s block.
pub fn label(target: Target) -> &'static str {
    match target {
        Target::Memory => "MEMORY (your personal notes)",
        Target::User => "USER PROFILE (who the user is)",
    }
}

/// Whether `store` fits the verbatim budget of `target` (or recall is off,
/// which makes the storage limit the budget).
pub fn fits_verbatim(store: &Store, target: Target, config: &Config) -> bool {
    !config.memory.recall.enabled || store.chars() <= config.verbatim_budget(target)
}

/// The block of one store, or `None` when it is disabled or empty.
pub fn render_block(target: Target, store: &Store, config: &Config) -> Option<String> {
    if !config.enabled(target) || store.entries().is_empty() {
        return None;
    }
    let limit = if fits_verbatim(store, target, config) {
        config.verbatim_budget(target)
    } else {
        config.storage_limit(target)
    };
    let mut out = String::with_capacity(store.chars() + 2 * RULE.len() + 64);
    out.push_str(RULE);
    out.push('\n');
    out.push_str(label(target));
    out.push_str(" [");
    out.push_str(&usage_long(store.chars(), limit));
    out.push_str("]\n");
    out.push_str(RULE);
    out.push('\n');
    out.push_str(&store.entries().join(SEPARATOR));
    Some(out)
}

/// The memory part of the system prompt: the blocks of both stores
/// separated by a blank line; empty when there is nothing to show.
pub fn render(stores: &[Store; 2], config: &Config) -> String {
    Target::ALL
        .iter()
        .filter_map(|&t| render_block(t, &stores[t.index()], config))
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_matches_the_spec_example() {
        let store = Store::new(vec![
            "User's project is a Rust web service at ~/code/myapi using Axum + SQLx".into(),
            "This machine runs Ubuntu 22.04, has Docker and Podman installed".into(),
            "User prefers concise responses, dislikes verbose explanations".into(),
        ]);
        let block = render_block(Target::Memory, &store, &Config::default()).unwrap();
        let expected = format!(
            "{RULE}\nMEMORY (your personal notes) [9% — {}/2,200 chars]\n{RULE}\n\
             User's project is a Rust web service at ~/code/myapi using Axum + SQLx\n§\n\
             This machine runs Ubuntu 22.04, has Docker and Podman installed\n§\n\
             User prefers concise responses, dislikes verbose explanations",
            store.chars()
        );
        assert_eq!(block, expected);
        assert_eq!(RULE.chars().count(), 46);
    }

    #[test]
    fn empty_and_disabled_stores_render_nothing() {
        let mut config = Config::default();
        let stores = [Store::default(), Store::new(vec!["Name: Ada".into()])];
        let text = render(&stores, &config);
        assert!(text.starts_with(&format!(
            "{RULE}\nUSER PROFILE (who the user is) [0% — 9/1,375 chars]"
        )));
        config.memory.user_profile_enabled = false;
        assert_eq!(render(&stores, &config), "");
    }
}
