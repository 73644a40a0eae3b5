//! Entry metadata and the score that uses it.
//!
//! Each entry carries, beside its Markdown text (in the sidecar state, keyed
//! by its stable id): an importance from 0 to 1 (default
//! [`DEFAULT_IMPORTANCE`]), a [`Category`] (none = General), a pin, its
//! created and changed times, an access count and last access, and the agent
//! and origin of the write that made it.
//!
//! Recall ranks by the spec's adjusted score:
//!
//! ```text
//! adjusted = (relevance + boost) × decay
//! boost    = (importance − 0.5) × 0.2                 (−0.1 … +0.1)
//! decay    = 0.7 + 0.3 × 0.5^(age_days / half_life)   (1.0 … 0.7; pinned: 1.0)
//! ```
//!
//! (A sum below zero, a weak match of an unimportant entry, counts as 0.)
//! `relevance` is on an absolute 0–1 scale: the keyword part maps a BM25
//! score `s` through `s / (s + K)` ([`KEYWORD_K`]), so a threshold means the
//! same whatever else the query matched. Age counts from the entry's last
//! change. The decay halves its distance to the floor every `half_life`
//! days (default 90): 1.0 new, 0.85 at 90 days, 0.775 at 180, 0.7 in the
//! limit.

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind, Result};

/// Importance of an entry nobody rated.
pub const DEFAULT_IMPORTANCE: f64 = 0.5;

/// The BM25 score at which keyword relevance is one half.
pub const KEYWORD_K: f64 = 6.0;

/// Default half-life of the decay, in days.
pub const HALF_LIFE_DAYS: f64 = 90.0;

/// The floor of the decay.
pub const DECAY_FLOOR: f64 = 0.7;

const DAY_MS: f64 = 86_400_000.0;

/// The spec's memory categories; an entry without one is General.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    /// Credentials policy, access rules, threats.
    Security,
    /// Choices made and why.
    Decision,
    /// Facts and how things work.
    Knowledge,
    /// People and how to reach them.
    Contact,
    /// Project state and conventions.
    Project,
    /// Things that happened, with dates.
    Event,
    /// What the user likes and dislikes.
    Preference,
}

impl Category {
    /// Every category, in the spec's order.
    pub const ALL: [Category; 7] = [
        Category::Security,
        Category::Decision,
        Category::Knowledge,
        Category::Contact,
        Category::Project,
        Category::Event,
        Category::Preference,
    ];

    /// Its name, as written in the API and the files.
    pub fn name(self) -> &'static str {
        match self {
            Category::Security => "security",
            Category::Decision => "decision",
            Category::Knowledge => "knowledge",
            Category::Contact => "contact",
            Category::Project => "project",
            Category::Event => "event",
            Category::Preference => "preference",
        }
    }

    /// The category named `name` (any case); `general` and `""` are none.
    pub fn parse(name: &str) -> Result<Option<Category>> {
        let lower = name.trim().to_lowercase();
        if lower.is_empty() || lower == "general" {
            return Ok(None);
        }
        Category::ALL
            .into_iter()
            .find(|c| c.name() == lower)
            .map(Some)
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidInput,
                    format!(
                        "unknown category {:?}; expected one of: {}, or general",
                        name.chars().take(40).collect::<String>(),
                        Category::ALL.map(Category::name).join(", ")
                    ),
                )
            })
    }
}

/// Checks an importance given by a caller.
pub fn importance(key: &str, value: f64) -> Result<f64> {
    if value.is_finite() && (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(Error::input(format!(
            "{key} must be a number from 0.0 to 1.0, got {value}"
        )))
    }
}

/// Keyword relevance on the absolute 0–1 scale.
pub fn keyword_relevance(bm25: f64) -> f64 {
    if bm25 <= 0.0 {
        0.0
    } else {
        bm25 / (bm25 + KEYWORD_K)
    }
}

/// The importance boost: −0.1 at 0, 0 at 0.5, +0.1 at 1.
pub fn boost(importance: f64) -> f64 {
    (importance - 0.5) * 0.2
}

/// The temporal decay of an entry `age_ms` old (1.0 for a pinned entry).
pub fn decay(age_ms: u64, half_life_days: f64, pinned: bool) -> f64 {
    if pinned {
        return 1.0;
    }
    // Precision: f64 holds any realistic age in ms exactly enough.
    #[allow(clippy::cast_precision_loss)]
    let days = age_ms as f64 / DAY_MS;
    DECAY_FLOOR + (1.0 - DECAY_FLOOR) * 0.5f64.powf(days / half_life_days)
}

/// Every part of one score, for `explain`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Explain {
    /// The keyword part (absolute scale) and the BM25 score it came from.
    pub keyword: f64,
    /// The raw BM25 score.
    pub bm25: f64,
    /// The semantic part, when an embedder took part.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub semantic: Option<f64>,
    /// The relevance the adjustment started from.
    pub relevance: f64,
    /// The importance boost.
    pub boost: f64,
    /// The temporal decay (1.0 when pinned).
    pub decay: f64,
    /// The entry's age in days (since its last change).
    pub age_days: f64,
    /// Whether the pin exempted it from decay.
    pub pinned: bool,
    /// The adjusted score.
    pub adjusted: f64,
}

/// The adjusted score of an entry, with its parts.
pub fn score(
    bm25: f64,
    importance: f64,
    age_ms: u64,
    half_life_days: f64,
    pinned: bool,
) -> Explain {
    let keyword = keyword_relevance(bm25);
    let relevance = keyword;
    let b = boost(importance);
    let d = decay(age_ms, half_life_days, pinned);
    #[allow(clippy::cast_precision_loss)]
    let age_days = age_ms as f64 / DAY_MS;
    Explain {
        keyword: round(keyword),
        bm25: round(bm25),
        semantic: None,
        relevance: round(relevance),
        boost: round(b),
        decay: round(d),
        age_days: (age_days * 10.0).round() / 10.0,
        pinned,
        adjusted: round((relevance + b).max(0.0) * d),
    }
}

/// Rounds a score to 4 decimals (what results show).
pub fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: u64 = 86_400_000;

    #[test]
    fn the_formula_matches_hand_computed_values() {
        // New entry, neutral importance: relevance unchanged.
        let s = score(6.0, 0.5, 0, 90.0, false);
        assert_eq!(s.keyword, 0.5);
        assert_eq!(s.adjusted, 0.5);
        // Important and 90 days old: (0.5 + 0.08) × 0.85.
        let s = score(6.0, 0.9, 90 * DAY, 90.0, false);
        assert_eq!(s.boost, 0.08);
        assert_eq!(s.decay, 0.85);
        assert_eq!(s.adjusted, 0.493);
        // The spec's example: 0.7 important beats 0.75 unimportant.
        let a = (0.7 + boost(0.9)) * decay(0, 90.0, false);
        let b = (0.75 + boost(0.3)) * decay(0, 90.0, false);
        assert!(a > b);
    }

    #[test]
    fn the_decay_halves_towards_its_floor_and_spares_pins() {
        assert_eq!(decay(0, 90.0, false), 1.0);
        assert!((decay(90 * DAY, 90.0, false) - 0.85).abs() < 1e-12);
        assert!((decay(180 * DAY, 90.0, false) - 0.775).abs() < 1e-12);
        assert!((decay(3650 * DAY, 90.0, false) - 0.7).abs() < 1e-6);
        assert!(decay(u64::MAX, 90.0, false) >= 0.7);
        assert_eq!(decay(3650 * DAY, 90.0, true), 1.0);
        assert!((decay(30 * DAY, 30.0, false) - 0.85).abs() < 1e-12);
    }

    #[test]
    fn relevance_is_absolute_and_bounded() {
        assert_eq!(keyword_relevance(0.0), 0.0);
        assert!(keyword_relevance(1e9) < 1.0);
        assert!(keyword_relevance(3.0) < keyword_relevance(4.0));
    }

    #[test]
    fn categories_and_importance_are_checked() {
        assert_eq!(
            Category::parse("Decision").unwrap(),
            Some(Category::Decision)
        );
        assert_eq!(Category::parse("general").unwrap(), None);
        let e = Category::parse("gossip").unwrap_err();
        assert!(e.message().contains("preference"), "{e}");
        assert!(importance("importance", 1.5).is_err());
        assert!(importance("importance", f64::NAN).is_err());
        assert_eq!(importance("importance", 0.0).unwrap(), 0.0);
    }
}
