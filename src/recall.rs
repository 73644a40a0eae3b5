//! Note search as the agent sees it: ranked search over both stores and
//! the per-turn `<memory-context>` block.
//!
//! Only stores above their verbatim budget are "searched": a store that
//! fits its budget is already whole in the system prompt, so attaching its
//! notes again would only repeat them.

use serde::Serialize;

use crate::config::Config;
use crate::graph::Graph;
use crate::prompt::fits_verbatim;
use crate::search::Index;
use crate::store::{thousands, Store, Target, SEPARATOR};
use crate::text::Analyzer;

/// Opening line of the per-turn block.
pub const OPEN: &str = "<memory-context>";
/// Closing line of the per-turn block.
pub const CLOSE: &str = "</memory-context>";

/// One search result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SearchHit {
    /// The store: `memory` or `user`.
    pub target: Target,
    /// The entry's index in its store.
    pub index: usize,
    /// The entry's text, whole.
    pub text: String,
    /// Its adjusted score (see [`crate::meta`]): relevance on an absolute
    /// 0–1 scale, boosted by importance and decayed by age.
    pub score: f64,
}

/// What recall reads: the live stores with their derived indexes and graph.
pub struct View<'a> {
    /// Both stores, indexed by [`Target`].
    pub stores: &'a [Store; 2],
    /// The BM25 index of each store.
    pub indexes: [&'a Index; 2],
    /// The graph over both stores.
    pub graph: &'a Graph,
    /// The analyser the indexes were built with.
    pub analyzer: &'a Analyzer,
    /// The configuration in force.
    pub config: &'a Config,
    /// The entries' metadata (importance, pins, dates).
    pub sidecar: &'a crate::sidecar::Sidecar,
    /// Now, ms since the Unix epoch (for the decay).
    pub now: u64,
}

impl View<'_> {
    /// The adjusted score of entry `index` of `target` for a BM25 score,
    /// with its parts (see [`crate::meta`]).
    pub fn score(&self, target: Target, index: usize, bm25: f64) -> crate::meta::Explain {
        let record = self.sidecar.records(target).get(index);
        let pinned = record.is_some_and(|r| r.pinned)
            || self
                .graph
                .node(target, index)
                .is_some_and(|n| self.graph.nodes[n].pinned);
        let importance = record.map_or(crate::meta::DEFAULT_IMPORTANCE, |r| r.importance());
        let age = record.map_or(0, |r| self.now.saturating_sub(r.last_changed));
        crate::meta::score(
            bm25,
            importance,
            age,
            f64::from(self.config.memory.recall.decay_half_life_days),
            pinned,
        )
    }

    /// Keyword hits of `query` in `target`, ranked by the adjusted score:
    /// a candidate pool of `limit` × 4 + 16 by BM25 (all entries when
    /// `limit` is `usize::MAX`), re-ranked.
    fn hits(&self, target: Target, query: &str, limit: usize) -> Vec<(Target, usize, f32)> {
        let pool = limit.saturating_mul(4).saturating_add(16);
        let mut hits: Vec<(Target, usize, f32)> = self.indexes[target.index()]
            .search(self.analyzer, query, pool)
            .into_iter()
            .map(|h| {
                #[allow(clippy::cast_possible_truncation)]
                let adjusted = self.score(target, h.doc, f64::from(h.score)).adjusted as f32;
                (target, h.doc, adjusted)
            })
            .collect();
        rank(&mut hits);
        hits.truncate(limit);
        hits
    }

    /// The best `limit` notes for `query` in `target` (or both stores),
    /// best first; ties keep store order.
    pub fn search(&self, query: &str, target: Option<Target>, limit: usize) -> Vec<SearchHit> {
        let mut hits: Vec<(Target, usize, f32)> = Target::ALL
            .iter()
            .filter(|&&t| target.is_none_or(|only| only == t) && self.config.enabled(t))
            .flat_map(|&t| self.hits(t, query, limit))
            .collect();
        rank(&mut hits);
        hits.truncate(limit);
        hits.into_iter()
            .map(|(t, index, score)| SearchHit {
                target: t,
                index,
                text: self.stores[t.index()].shown(t, index).into_owned(),
                score: crate::meta::round(f64::from(score)),
            })
            .collect()
    }

    /// The `<memory-context>` block for `message`, or `""` when every store
    /// is whole in the prompt or nothing matches. See the crate README for
    /// the selection rules.
    pub fn context(&self, message: &str) -> String {
        self.context_picked(message).0
    }

    /// [`View::context`], with the entries it attached.
    pub fn context_picked(&self, message: &str) -> (String, Vec<(Target, usize)>) {
        let mut picked = self.context_notes(message, false);
        let notes = cap(
            picked
                .iter()
                .map(|&(t, i)| self.stores[t.index()].entries()[i].as_str()),
            self.config.memory.recall.max_chars,
        );
        if notes.is_empty() {
            return (String::new(), Vec::new());
        }
        picked.truncate(notes.len());
        (context_block(&notes), picked)
    }

    /// The entries the context attaches for `message`, best first, before
    /// the `max_chars` cap: the `top_k` best matches, then the notes linked
    /// to them. Only stores beyond their verbatim budget are searched,
    /// unless `whole` (a memory whose stores are not in the prompt at all,
    /// such as another scope's).
    pub fn context_notes(&self, message: &str, whole: bool) -> Vec<(Target, usize)> {
        let recall = &self.config.memory.recall;
        let searched = self.context_stores(whole);
        // Blocked entries never reach the context, not even as a placeholder.
        let mut hits: Vec<(Target, usize, f32)> = searched
            .iter()
            .flat_map(|&t| {
                let blocked = self.stores[t.index()].blocked().count();
                self.hits(t, message, recall.top_k + blocked)
            })
            .filter(|&(t, i, _)| self.stores[t.index()].verdict(i).is_none())
            .collect();
        rank(&mut hits);
        hits.truncate(recall.top_k);
        let matches: Vec<(Target, usize)> = hits.iter().map(|&(t, i, _)| (t, i)).collect();
        self.with_links(matches, &searched)
    }

    /// The stores the context searches: the enabled ones beyond their
    /// verbatim budget (every enabled one with `whole`).
    pub fn context_stores(&self, whole: bool) -> Vec<Target> {
        Target::ALL
            .into_iter()
            .filter(|&t| {
                self.config.enabled(t)
                    && (whole || !fits_verbatim(&self.stores[t.index()], t, self.config))
            })
            .collect()
    }

    /// `matches` (best first), then the clean notes of the `searched`
    /// stores linked to them within `recall.hops`, nearest first.
    pub fn with_links(
        &self,
        matches: Vec<(Target, usize)>,
        searched: &[Target],
    ) -> Vec<(Target, usize)> {
        let hops = self.config.memory.recall.hops;
        let mut picked = matches.clone();
        for (t, i) in matches {
            let Some(node) = self.graph.node(t, i) else {
                continue;
            };
            for n in self.graph.neighbours(node, hops) {
                let linked = &self.graph.nodes[n];
                let key = (linked.target, linked.index);
                if searched.contains(&linked.target)
                    && !picked.contains(&key)
                    && self.stores[linked.target.index()]
                        .verdict(linked.index)
                        .is_none()
                {
                    picked.push(key);
                }
            }
        }
        picked
    }
}

/// The `<memory-context>` block around `notes` (already capped, see
/// [`cap`]); `""` for none.
pub fn context_block(notes: &[String]) -> String {
    if notes.is_empty() {
        return String::new();
    }
    format!("{OPEN}\n{}\n{CLOSE}", notes.join(SEPARATOR))
}

fn rank(hits: &mut [(Target, usize, f32)]) {
    crate::order::sort_by(hits, |a, b| {
        b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)).then(a.1.cmp(&b.1))
    });
}

/// Takes notes in order while their joined size stays within `max_chars`,
/// skipping those that would overflow it. A first note that alone exceeds
/// the cap is cut at a word boundary and says so.
pub fn cap<'a>(notes: impl Iterator<Item = &'a str>, max_chars: usize) -> Vec<String> {
    let sep = SEPARATOR.chars().count();
    let mut out: Vec<String> = Vec::new();
    let mut used = 0usize;
    for note in notes {
        let len = note.chars().count();
        let extra = if out.is_empty() { len } else { len + sep };
        if used + extra <= max_chars {
            used += extra;
            out.push(note.to_string());
        } else if out.is_empty() {
            out.push(cut(note, max_chars));
            break;
        }
    }
    out
}

/// `note` cut to at most `max_chars` chars at a word boundary, ending with
/// a line that says how much was left out.
fn cut(note: &str, max_chars: usize) -> String {
    let total = note.chars().count();
    let marker = |shown: usize| {
        format!(
            "\n[… note cut at {} of {} chars; memory(action=\"search\") returns it whole]",
            thousands(shown),
            thousands(total)
        )
    };
    let room = max_chars.saturating_sub(marker(total).chars().count());
    let head: String = note.chars().take(room).collect();
    let head = match head.rfind(char::is_whitespace) {
        Some(i) if i > head.len() / 2 => head[..i].trim_end().to_string(),
        _ => head.trim_end().to_string(),
    };
    let shown = head.chars().count();
    format!("{head}{}", marker(shown))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_skips_what_does_not_fit_and_cuts_only_a_lone_giant() {
        let notes = ["a".repeat(10), "b".repeat(10), "c".repeat(3)];
        let got = cap(notes.iter().map(String::as_str), 24);
        assert_eq!(got, ["a".repeat(10), "b".repeat(10)]);
        let got = cap(notes.iter().map(String::as_str), 20);
        assert_eq!(got, ["a".repeat(10), "c".repeat(3)]);
        let giant = format!("{} tail", "word ".repeat(100));
        let got = cap([giant.as_str(), "small"].into_iter(), 120);
        assert_eq!(got.len(), 1);
        assert!(got[0].chars().count() <= 120, "{}", got[0]);
        assert!(got[0].contains("note cut at"));
        assert!(got[0].starts_with("word word"));
        assert!(!got[0].contains("wor\n"));
    }
}
