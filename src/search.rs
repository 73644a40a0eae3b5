//! BM25 ranking over the notes of a store.
//!
//! The index is derived state: built from a store's entries, never stored,
//! rebuilt whenever the entries change. Terms come from [`crate::text`]; stop
//! words take positions but are not indexed.
//!
//! Scoring is Okapi BM25 plus a proximity bonus:
//!
//! - `k1 = 1.2`: term frequency saturates quickly. Notes are short and
//!   dense; a word said twice is barely more relevant than once.
//! - `b = 0.5`: half the usual length normalisation. Notes vary from a line
//!   to a paragraph, and a long note that matches is usually a richer note,
//!   not a padded one; full normalisation (0.75) buries them.
//! - `idf = ln(1 + (N - df + 0.5) / (df + 0.5))`, never negative.
//! - Proximity: for each pair of query terms next to each other in the
//!   query, a note where they stand in the same order at the same distance
//!   gains `PHRASE_WEIGHT × min(idf)` of the pair, and half that when they
//!   are within two positions in another arrangement: the author wrote them
//!   together, as the asker did.
//!
//! Ties are broken by entry order, so ranking is deterministic.

use std::collections::HashMap;

use crate::text::Analyzer;

/// BM25 term-frequency saturation.
pub const K1: f32 = 1.2;
/// BM25 length normalisation.
pub const B: f32 = 0.5;
/// Weight of the proximity bonus, relative to the rarer term's idf.
pub const PHRASE_WEIGHT: f32 = 0.5;
/// Largest distance (in positions) at which two terms count as together.
pub const PHRASE_WINDOW: u32 = 2;

/// Query terms beyond this many are ignored (a pasted log is not a query).
pub const MAX_QUERY_TERMS: usize = 64;

#[derive(Clone, Copy, Debug)]
struct Posting {
    doc: u32,
    /// Offset of this posting's positions in `Index::positions`.
    start: u32,
    tf: u32,
}

/// A BM25 index over a list of documents (the entries of a store).
#[derive(Debug, Default)]
pub struct Index {
    doc_len: Vec<u32>,
    avg_len: f32,
    term_ids: HashMap<Box<str>, u32>,
    postings: Vec<Vec<Posting>>,
    positions: Vec<u32>,
}

/// One ranked document.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// Index of the document (the entry) in the list the index was built on.
    pub doc: usize,
    /// Its score; higher is better.
    pub score: f32,
}

impl Index {
    /// Builds the index of `docs`.
    pub fn build<S: AsRef<str>>(analyzer: &Analyzer, docs: &[S]) -> Index {
        let mut index = Index::default();
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        let mut total: u64 = 0;
        for (doc, text) in docs.iter().enumerate() {
            pairs.clear();
            analyzer.analyze(text.as_ref(), |term, pos, stop| {
                if stop {
                    return;
                }
                let next = index.term_ids.len() as u32;
                let id = match index.term_ids.get(term) {
                    Some(&id) => id,
                    None => {
                        index.term_ids.insert(term.into(), next);
                        index.postings.push(Vec::new());
                        next
                    }
                };
                pairs.push((id, pos));
            });
            index.doc_len.push(pairs.len() as u32);
            total += pairs.len() as u64;
            pairs.sort_unstable();
            let mut i = 0;
            while i < pairs.len() {
                let id = pairs[i].0;
                let start = index.positions.len() as u32;
                while i < pairs.len() && pairs[i].0 == id {
                    index.positions.push(pairs[i].1);
                    i += 1;
                }
                let tf = index.positions.len() as u32 - start;
                index.postings[id as usize].push(Posting {
                    doc: doc as u32,
                    start,
                    tf,
                });
            }
        }
        index.avg_len = if docs.is_empty() {
            0.0
        } else {
            total as f32 / docs.len() as f32
        };
        index
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.doc_len.len()
    }

    /// Whether the index holds no documents.
    pub fn is_empty(&self) -> bool {
        self.doc_len.is_empty()
    }

    /// Number of distinct terms.
    pub fn term_count(&self) -> usize {
        self.term_ids.len()
    }

    fn idf(&self, df: usize) -> f32 {
        let n = self.doc_len.len() as f32;
        let df = df as f32;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    fn positions(&self, p: &Posting) -> &[u32] {
        &self.positions[p.start as usize..(p.start + p.tf) as usize]
    }

    /// The documents matching `query`, best first, at most `limit`.
    pub fn search(&self, analyzer: &Analyzer, query: &str, limit: usize) -> Vec<Hit> {
        if self.is_empty() || limit == 0 {
            return Vec::new();
        }
        // Query terms in query order, deduplicated, known to the index.
        let mut terms: Vec<(u32, u32)> = Vec::new(); // (term id, query position)
        let mut seen = std::collections::HashSet::new();
        analyzer.analyze(query, |term, pos, stop| {
            if stop || terms.len() >= MAX_QUERY_TERMS {
                return;
            }
            if let Some(&id) = self.term_ids.get(term) {
                if seen.insert(id) {
                    terms.push((id, pos));
                }
            }
        });
        if terms.is_empty() {
            return Vec::new();
        }
        let mut scores = vec![0f32; self.len()];
        let mut touched: Vec<u32> = Vec::new();
        let mut idfs = Vec::with_capacity(terms.len());
        for &(id, _) in &terms {
            let list = &self.postings[id as usize];
            let idf = self.idf(list.len());
            idfs.push(idf);
            for p in list {
                let len = self.doc_len[p.doc as usize] as f32;
                let tf = p.tf as f32;
                let norm = K1 * (1.0 - B + B * len / self.avg_len.max(1.0));
                let s = &mut scores[p.doc as usize];
                if *s == 0.0 {
                    touched.push(p.doc);
                }
                *s += idf * tf * (K1 + 1.0) / (tf + norm);
            }
        }
        // Proximity bonus for query neighbours that stand together.
        for i in 0..terms.len().saturating_sub(1) {
            let (a, pa) = terms[i];
            let (b, pb) = terms[i + 1];
            if pb.saturating_sub(pa) > PHRASE_WINDOW + 1 {
                continue;
            }
            let bonus = PHRASE_WEIGHT * idfs[i].min(idfs[i + 1]);
            let (la, lb) = (&self.postings[a as usize], &self.postings[b as usize]);
            let (short, long) = if la.len() <= lb.len() {
                (la, lb)
            } else {
                (lb, la)
            };
            for p in short {
                let Ok(j) = long.binary_search_by_key(&p.doc, |q| q.doc) else {
                    continue;
                };
                let (pos_a, pos_b) = if std::ptr::eq(short, la) {
                    (self.positions(p), self.positions(&long[j]))
                } else {
                    (self.positions(&long[j]), self.positions(p))
                };
                scores[p.doc as usize] += bonus * closeness(pos_a, pos_b, pb - pa);
            }
        }
        let mut hits: Vec<Hit> = touched
            .into_iter()
            .map(|doc| Hit {
                doc: doc as usize,
                score: scores[doc as usize],
            })
            .collect();
        let by_rank = |x: &Hit, y: &Hit| y.score.total_cmp(&x.score).then(x.doc.cmp(&y.doc));
        if hits.len() > limit {
            hits.select_nth_unstable_by(limit - 1, by_rank);
            hits.truncate(limit);
        }
        hits.sort_unstable_by(by_rank);
        hits
    }
}

/// How closely positions `a` and `b` (sorted) echo a query in which `b`
/// came `gap` positions after `a`: 1 when they stand in the same order at
/// the same distance, ½ when they are within [`PHRASE_WINDOW`] of each
/// other otherwise, 0 when they are apart.
fn closeness(a: &[u32], b: &[u32], gap: u32) -> f32 {
    if a.iter().any(|&p| b.binary_search(&(p + gap)).is_ok()) {
        return 1.0;
    }
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] != b[j] && a[i].abs_diff(b[j]) <= PHRASE_WINDOW {
            return 0.5;
        }
        if a[i] < b[j] {
            i += 1;
        } else {
            j += 1;
        }
    }
    0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rank(docs: &[&str], q: &str) -> Vec<usize> {
        let a = Analyzer::new();
        Index::build(&a, docs)
            .search(&a, q, 10)
            .into_iter()
            .map(|h| h.doc)
            .collect()
    }

    #[test]
    fn stemmed_matches_in_both_languages() {
        let docs = [
            "Nginx proxies requests to the app",
            "Сервер слушает на портах 80 и 443",
            "The cat sat on the mat",
        ];
        assert_eq!(rank(&docs, "proxy"), [0]);
        assert_eq!(rank(&docs, "порт"), [1]);
        assert_eq!(rank(&docs, "dogs"), Vec::<usize>::new());
    }

    #[test]
    fn stop_words_do_not_rank() {
        let docs = [
            "What did we do? We did what we could.",
            "The staging server 10.0.1.50 needs SSH port 2222",
        ];
        assert_eq!(
            rank(&docs, "What did we decide about the staging server?"),
            [1]
        );
    }

    #[test]
    fn rare_terms_and_proximity_win_and_ties_keep_entry_order() {
        let docs = [
            "server logs rotate daily",
            "staging server runs Debian",
            "the server for staging is old",
            "staging area for uploads",
        ];
        let r = rank(&docs, "staging server");
        assert_eq!(r[0], 1, "together as in the query");
        assert_eq!(r.len(), 4);
        let same = ["alpha beta", "alpha beta"];
        assert_eq!(rank(&same, "alpha"), [0, 1]);
    }

    #[test]
    fn hostile_queries_never_fail() {
        let docs = ["a note about ssh keys"];
        for q in [
            "",
            "?",
            "\"ssh\" AND (keys OR",
            "*",
            "ssh:keys",
            &"ssh ".repeat(10_000),
        ] {
            let _ = rank(&docs, q);
        }
        assert_eq!(rank(&docs, "\"ssh\" AND (keys OR"), [0]);
        let empty: [&str; 0] = [];
        assert!(rank(&empty, "ssh").is_empty());
    }
}
