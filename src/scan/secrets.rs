//! Hard-coded secrets: private keys and the token shapes of well-known
//! providers, matched on the normalised text.

use std::sync::OnceLock;

use regex_lite::Regex;

use super::normalize::{Normalised, Pairs};
use super::rules::{run, Pattern};
use super::{Category, Finding};

/// The secret patterns.
pub(super) const PATTERNS: &[Pattern] = &[
    Pattern {
        id: "secret.private-key",
        category: Category::Secret,
        keywords: &["private key"],
        also: &[],
        regex: r"-----begin ((rsa|dsa|ec|openssh|encrypted|pgp|ssh2 encrypted)\s+)?private key( block)?-----",
    },
    Pattern {
        id: "secret.aws-access-key",
        category: Category::Secret,
        keywords: &["akia", "asia"],
        also: &[],
        regex: r"\b(akia|asia)[0-9a-z]{16}\b",
    },
    Pattern {
        id: "secret.github-token",
        category: Category::Secret,
        keywords: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        also: &[],
        regex: r"\b(ghp|gho|ghu|ghs|ghr)_[a-z0-9]{36,}\b|\bgithub_pat_[a-z0-9_]{50,}",
    },
    Pattern {
        id: "secret.slack-token",
        category: Category::Secret,
        keywords: &["xox"],
        also: &[],
        regex: r"\bxox[abposre]-[a-z0-9-]{10,}",
    },
    Pattern {
        id: "secret.openai-key",
        category: Category::Secret,
        keywords: &["sk-"],
        also: &[],
        regex: r"\bsk-(proj-|ant-(api\d\d-)?|live-|svcacct-|admin-)?[a-z0-9_-]{20,}",
    },
    Pattern {
        id: "secret.google-api-key",
        category: Category::Secret,
        keywords: &["aiza"],
        also: &[],
        regex: r"\baiza[0-9a-z_-]{35}",
    },
    Pattern {
        id: "secret.stripe-key",
        category: Category::Secret,
        keywords: &["_live_", "_test_"],
        also: &[],
        regex: r"\b(sk|rk)_(live|test)_[0-9a-z]{16,}",
    },
    Pattern {
        id: "secret.jwt",
        category: Category::Secret,
        keywords: &["eyj"],
        also: &[],
        regex: r"\beyj[a-z0-9_-]{10,}\.eyj[a-z0-9_-]{10,}\.[a-z0-9_-]{10,}",
    },
];

/// The patterns compiled, in [`PATTERNS`] order.
pub(super) fn compiled() -> &'static [Regex] {
    static CELL: OnceLock<Vec<Regex>> = OnceLock::new();
    CELL.get_or_init(|| {
        PATTERNS
            .iter()
            .map(|p| Regex::new(p.regex).unwrap_or_else(|e| panic!("pattern {}: {e}", p.id)))
            .collect()
    })
}

/// The secrets in a text: `raw` is the scanned text, `norm` its normalised
/// copy.
pub(super) fn find(_raw: &str, norm: &Normalised, pairs: &Pairs, findings: &mut Vec<Finding>) {
    run(PATTERNS, compiled(), norm, pairs, findings);
}
