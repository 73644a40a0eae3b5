//! BM25 ranking over the notes of a store.
//!
//! The index is derived state: built from a store's entries, never stored,
//! rebuilt whenever the entries change. Terms come from [`crate::text`]; stop
//! words take positions but are not indexed.
//!
//! Scoring is Okapi BM25 plus a proximity bonus and pseudo-relevance
//! feedback. The parameters were chosen on the LoCoMo evidence-retrieval
//! task (see the README's benchmark), where the response surface is flat
//! around them (R@10 within ±0.003 for k1 0.7–1.2, b 0.2–0.5):
//!
//! - `k1 = 0.9`: term frequency saturates quickly. Notes are short and
//!   dense; a word said twice is barely more relevant than once.
//! - `b = 0.35`: about half the usual length normalisation. Notes vary from
//!   a line to a paragraph, and a long note that matches is usually a richer
//!   note, not a padded one; full normalisation (0.75) buries them.
//! - `idf = ln(1 + (N - df + 0.5) / (df + 0.5))`, never negative.
//! - Proximity: for each pair of query terms next to each other in the
//!   query, a note where they stand in the same order at the same distance
//!   gains `0.5 × min(idf)` of the pair, and half that when they are within
//!   two positions in another arrangement: the author wrote them together,
//!   as the asker did.
//! - Typos: a query word of five letters or more that no note contains is
//!   matched to the known term one edit away (two for long words) with the
//!   same first letter, at 0.6 of its weight.
//! - Feedback (RM3-style): the 10 terms that best characterise the top 3
//!   notes of a first pass (weighted by their score and idf, ignoring terms
//!   in over a tenth of the notes) join the query at up to 0.4 of a query
//!   term's weight. It finds the note that says "campfire" for a question
//!   about "camping" when a neighbour note used both words; it costs a
//!   second pass over the postings.
//!
//! Ties are broken by entry order, so ranking is deterministic.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::text::Analyzer;

/// BM25 term-frequency saturation.
pub const K1: f32 = 0.9;
/// BM25 length normalisation.
pub const B: f32 = 0.35;
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

/// The ranking parameters (see the module docs for why the defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// BM25 term-frequency saturation.
    pub k1: f32,
    /// BM25 length normalisation (0: none, 1: full).
    pub b: f32,
    /// Weight of the proximity bonus, relative to the rarer term's idf.
    pub phrase_weight: f32,
    /// Pseudo-relevance feedback: documents read from the first pass.
    pub feedback_docs: usize,
    /// Pseudo-relevance feedback: terms added to the query (0: off).
    pub feedback_terms: usize,
    /// Pseudo-relevance feedback: weight of the best added term.
    pub feedback_weight: f32,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            k1: K1,
            b: B,
            phrase_weight: PHRASE_WEIGHT,
            feedback_docs: 3,
            feedback_terms: 10,
            feedback_weight: 0.4,
        }
    }
}

/// A BM25 index over a list of documents (the entries of a store).
#[derive(Debug, Default)]
pub struct Index {
    params: Params,
    doc_len: Vec<u32>,
    avg_len: f32,
    term_ids: FxHashMap<Box<str>, u32>,
    /// Term ids sorted by term text, for typo-tolerant lookup; built on
    /// the first query that needs it.
    vocabulary: std::cell::OnceCell<Vec<(Box<str>, u32)>>,
    postings: Vec<Vec<Posting>>,
    positions: Vec<u32>,
    /// Distinct term ids of each document (`doc_start[d]..doc_start[d+1]`).
    doc_terms: Vec<u32>,
    doc_start: Vec<u32>,
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
            index.doc_start.push(index.doc_terms.len() as u32);
            let mut i = 0;
            while i < pairs.len() {
                let id = pairs[i].0;
                index.doc_terms.push(id);
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
        index.doc_start.push(index.doc_terms.len() as u32);
        index.avg_len = if docs.is_empty() {
            0.0
        } else {
            total as f32 / docs.len() as f32
        };
        index
    }

    /// The same index ranking with `params`.
    pub fn with_params(mut self, params: Params) -> Index {
        self.params = params;
        self
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
        idf(self.doc_len.len(), df)
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
        // (term id, query position, weight)
        let mut terms: Vec<(u32, u32, f32)> = Vec::new();
        let mut seen = FxHashSet::default();
        let mut count = 0;
        analyzer.analyze(query, |term, pos, stop| {
            if stop || count >= MAX_QUERY_TERMS {
                return;
            }
            count += 1;
            let (id, weight) = match self.term_ids.get(term) {
                Some(&id) => (id, 1.0),
                None => match self.fuzzy(term) {
                    Some(id) => (id, FUZZY_WEIGHT),
                    None => return,
                },
            };
            if seen.insert(id) {
                terms.push((id, pos, weight));
            }
        });
        if terms.is_empty() {
            return Vec::new();
        }
        let mut scores = vec![0f32; self.len()];
        let mut touched: Vec<u32> = Vec::new();
        self.accumulate(&terms, &mut scores, &mut touched);
        self.proximity(&terms, &mut scores);
        if self.params.feedback_terms > 0 {
            // The added terms only add their own BM25 share to the first
            // pass's scores.
            let extra = self.expansion(&terms, &scores, &touched);
            self.accumulate(&extra, &mut scores, &mut touched);
        }
        let mut hits: Vec<Hit> = touched
            .into_iter()
            .map(|doc| Hit {
                doc: doc as usize,
                score: scores[doc as usize],
            })
            .collect();
        top_k(hits.drain(..), limit, |x: &Hit, y: &Hit| {
            y.score.total_cmp(&x.score).then(x.doc.cmp(&y.doc))
        })
    }
}

impl Index {
    /// Adds the BM25 share of each weighted query term to `scores`,
    /// recording newly matched documents in `touched`.
    fn accumulate(&self, terms: &[(u32, u32, f32)], scores: &mut [f32], touched: &mut Vec<u32>) {
        let Params { k1, b, .. } = self.params;
        let avg = self.avg_len.max(1.0);
        for &(id, _, weight) in terms {
            let list = &self.postings[id as usize];
            let idf = self.idf(list.len()) * weight;
            for p in list {
                let len = self.doc_len[p.doc as usize] as f32;
                let s = &mut scores[p.doc as usize];
                if *s == 0.0 {
                    touched.push(p.doc);
                }
                *s += bm25(idf, p.tf as f32, len / avg, k1, b);
            }
        }
    }

    /// Adds the proximity bonus for query neighbours that stand together.
    fn proximity(&self, terms: &[(u32, u32, f32)], scores: &mut [f32]) {
        for pair in terms.windows(2) {
            let ((a, pa, wa), (b, pb, wb)) = (pair[0], pair[1]);
            if pb <= pa || pb - pa > PHRASE_WINDOW + 1 {
                continue;
            }
            let (la, lb) = (&self.postings[a as usize], &self.postings[b as usize]);
            let idf_a = self.idf(la.len()) * wa;
            let idf_b = self.idf(lb.len()) * wb;
            let bonus = self.params.phrase_weight * idf_a.min(idf_b);
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
    }

    /// Pseudo-relevance feedback: adds the terms that best characterise the
    /// top documents of the first pass, at a reduced weight.
    fn expansion(
        &self,
        terms: &[(u32, u32, f32)],
        scores: &[f32],
        touched: &[u32],
    ) -> Vec<(u32, u32, f32)> {
        let top = top_k(
            touched.iter().copied(),
            self.params.feedback_docs,
            |x: &u32, y: &u32| {
                scores[*y as usize]
                    .total_cmp(&scores[*x as usize])
                    .then(x.cmp(y))
            },
        );
        if top.is_empty() {
            return Vec::new();
        }
        let max = top.iter().map(|&d| scores[d as usize]).fold(0f32, f32::max);
        let mut weights: FxHashMap<u32, f32> = FxHashMap::default();
        let n = self.len();
        for &d in &top {
            let w = scores[d as usize] / max;
            let (a, b) = (
                self.doc_start[d as usize] as usize,
                self.doc_start[d as usize + 1] as usize,
            );
            for &t in &self.doc_terms[a..b] {
                let df = self.postings[t as usize].len();
                if df < 2 || df * 10 > n {
                    continue;
                }
                *weights.entry(t).or_default() += w * self.idf(df);
            }
        }
        for (t, _, _) in terms.iter() {
            weights.remove(t);
        }
        let extra = top_k(
            weights.into_iter(),
            self.params.feedback_terms,
            |x: &(u32, f32), y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)),
        );
        let best = extra.first().map_or(1.0, |e| e.1);
        extra
            .into_iter()
            .map(|(t, w)| (t, u32::MAX, self.params.feedback_weight * w / best))
            .collect()
    }

    /// The known term a misspelt query term most likely means: one edit
    /// away (two for long words), or a known stem the query term starts
    /// with. Only for words of five letters or more that the index does not
    /// know, and only among terms with the same first letter.
    fn fuzzy(&self, term: &str) -> Option<u32> {
        let q: Vec<char> = term.chars().collect();
        if q.len() < 5 || !q.iter().all(|c| c.is_alphabetic()) {
            return None;
        }
        let max_edits = if q.len() >= 8 { 2 } else { 1 };
        let mut first = [0u8; 4];
        let first = q[0].encode_utf8(&mut first);
        let vocabulary = self.vocabulary.get_or_init(|| {
            let mut v: Vec<(Box<str>, u32)> = self
                .term_ids
                .iter()
                .map(|(t, &id)| (t.clone(), id))
                .collect();
            v.sort_unstable();
            v
        });
        let start = vocabulary.partition_point(|(t, _)| t.as_ref() < &*first);
        let mut best: Option<(usize, usize, u32)> = None; // (edits, -df, id)
        for (t, id) in vocabulary[start..]
            .iter()
            .take_while(|(t, _)| t.starts_with(&*first))
        {
            let t: Vec<char> = t.chars().collect();
            let edits =
                if t.len() >= 4 && q.len() > t.len() && q.len() - t.len() <= 4 && q.starts_with(&t)
                {
                    max_edits
                } else if t.len().abs_diff(q.len()) <= max_edits {
                    match edit_distance(&q, &t, max_edits) {
                        Some(e) => e,
                        None => continue,
                    }
                } else {
                    continue;
                };
            let df = self.postings[*id as usize].len();
            let key = (edits, usize::MAX - df, *id);
            if best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        }
        best.map(|(_, _, id)| id)
    }
}

/// The `k` smallest items by `order`, sorted: one pass keeping a short
/// sorted list, cheaper than sorting or selecting for the small `k` of a
/// search.
fn top_k<T: Copy>(
    items: impl Iterator<Item = T>,
    k: usize,
    order: impl Fn(&T, &T) -> std::cmp::Ordering,
) -> Vec<T> {
    let mut best: Vec<T> = Vec::with_capacity(k + 1);
    if k == 0 {
        return best;
    }
    for item in items {
        if best.len() == k && order(&item, &best[k - 1]) != std::cmp::Ordering::Less {
            continue;
        }
        let at = best.partition_point(|b| order(b, &item) == std::cmp::Ordering::Less);
        best.insert(at, item);
        best.truncate(k);
    }
    best
}

/// Weight of a typo-tolerant match relative to an exact one.
pub const FUZZY_WEIGHT: f32 = 0.6;

/// Optimal-string-alignment distance between `a` and `b` if it is at most
/// `max`.
fn edit_distance(a: &[char], b: &[char], max: usize) -> Option<usize> {
    let (n, m) = (a.len(), b.len());
    let mut prev2 = vec![0usize; m + 1];
    let mut prev: Vec<usize> = (0..=m).collect();
    let mut cur = vec![0usize; m + 1];
    for i in 1..=n {
        cur[0] = i;
        let mut row_min = cur[0];
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(prev2[j - 2] + 1);
            }
            cur[j] = v;
            row_min = row_min.min(v);
        }
        if row_min > max {
            return None;
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    (prev[m] <= max).then_some(prev[m])
}

/// BM25's inverse document frequency of a term found in `df` of `n`
/// documents, never negative: `ln(1 + (n - df + 0.5) / (df + 0.5))`.
pub(crate) fn idf(n: usize, df: usize) -> f32 {
    let (n, df) = (n as f32, df as f32);
    (1.0 + (n - df + 0.5) / (df + 0.5)).max(1.0).ln()
}

/// The BM25 share of a term of weight `idf` found `tf` times in a
/// document `rel_len` times the average length long.
pub(crate) fn bm25(idf: f32, tf: f32, rel_len: f32, k1: f32, b: f32) -> f32 {
    idf * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * rel_len))
}

/// How closely positions `a` and `b` (sorted) echo a query in which `b`
/// came `gap` positions after `a`: 1 when they stand in the same order at
/// the same distance, ½ when they are within [`PHRASE_WINDOW`] of each
/// other otherwise, 0 when they are apart.
pub(crate) fn closeness(a: &[u32], b: &[u32], gap: u32) -> f32 {
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
    fn misspelt_query_words_still_find_their_note() {
        let docs = [
            "Went to the pride festival last summer",
            "Continuing my education in counseling",
            "The cat sat",
        ];
        assert_eq!(rank(&docs, "pride fesetival"), [0]);
        assert_eq!(rank(&docs, "educaton"), [1]);
        assert_eq!(edit_distance(&['a', 'b'], &['b', 'a'], 1), Some(1));
        assert_eq!(edit_distance(&['a'; 6], &['b'; 6], 2), None);
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
