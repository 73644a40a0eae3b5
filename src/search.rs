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

use std::hash::Hasher;

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

/// Postings of a term in more than this many documents carry a skip
/// table with an entry every this many postings, so that finding one
/// document in a long list (the proximity bonus) does not decode it from
/// the start.
const SKIP_BLOCK: usize = 32;
/// Bytes of one skip entry: the document of the block's last posting, and
/// where the next posting starts in the document and position parts.
const SKIP_ENTRY: usize = 12;

/// A BM25 index over a list of documents (the entries of a store).
///
/// Compact, as it is held for as long as its store (and in wasm, memory
/// once grown is never given back): the vocabulary is one string, and the
/// postings of all terms one byte array of varints. The postings of a term
/// are `varint(length of the document part)`, then the document part (per
/// document: `varint(gap << 1 | tf == 1)`, then `varint(tf)` unless it is
/// 1), then the position part (per document: the first position, then the
/// gaps), then, for a term in more than 32 documents, a skip table (an
/// entry every 32 postings).
#[derive(Debug, Default)]
pub struct Index {
    params: Params,
    doc_len: Vec<u32>,
    avg_len: f32,
    terms: Terms,
    /// Term ids sorted by term text, for typo-tolerant lookup; built on
    /// the first query that needs it.
    vocabulary: std::cell::OnceCell<Vec<u32>>,
    /// Number of documents each term is in.
    df: Vec<u32>,
    /// The postings of term `t` are `postings[post_start[t]..post_start[t + 1]]`.
    post_start: Vec<u32>,
    postings: Vec<u8>,
    /// Distinct term ids of each document, ascending, as varint gaps
    /// (`doc_terms[doc_start[d]..doc_start[d + 1]]`): what feedback reads.
    doc_terms: Vec<u8>,
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

/// Builds an [`Index`] one document at a time, so that the caller need not
/// hold every text at once beside the index being built.
///
/// ```
/// use mnemo::search::IndexBuilder;
/// use mnemo::text::Analyzer;
///
/// let analyzer = Analyzer::new();
/// let mut builder = IndexBuilder::new(&analyzer);
/// for note in ["staging server runs Debian", "the cat sat on the mat"] {
///     builder.add(note);
/// }
/// let index = builder.finish();
/// assert_eq!(index.search(&analyzer, "server", 10)[0].doc, 0);
/// ```
#[derive(Debug)]
pub struct IndexBuilder<'a> {
    analyzer: &'a Analyzer,
    terms: Terms,
    df: Vec<u32>,
    /// Per term: the last document it was seen in (for the gaps).
    last_doc: Vec<u32>,
    /// Per term: bytes of its document part and of its position part.
    doc_bytes: Vec<u32>,
    pos_bytes: Vec<u32>,
    /// Each document's postings in the order of `doc_terms`, already
    /// encoded (document part, then positions); `finish` moves them to
    /// their terms.
    stream: Vec<u8>,
    doc_terms: Vec<u8>,
    doc_start: Vec<u32>,
    doc_len: Vec<u32>,
    total: u64,
    pairs: Vec<(u32, u32)>,
}

impl<'a> IndexBuilder<'a> {
    /// An empty builder analysing with `analyzer`.
    pub fn new(analyzer: &'a Analyzer) -> IndexBuilder<'a> {
        IndexBuilder {
            analyzer,
            terms: Terms::default(),
            df: Vec::new(),
            last_doc: Vec::new(),
            doc_bytes: Vec::new(),
            pos_bytes: Vec::new(),
            stream: Vec::new(),
            doc_terms: Vec::new(),
            doc_start: Vec::new(),
            doc_len: Vec::new(),
            total: 0,
            pairs: Vec::new(),
        }
    }

    /// Adds the next document (its [`Hit::doc`] is the number added before it).
    pub fn add(&mut self, text: &str) {
        let doc = self.doc_len.len() as u32;
        let IndexBuilder {
            terms,
            df,
            last_doc,
            doc_bytes,
            pos_bytes,
            pairs,
            ..
        } = self;
        pairs.clear();
        self.analyzer.analyze(text, |term, pos, stop| {
            if stop {
                return;
            }
            let (id, new) = terms.intern(term);
            if new {
                df.push(0);
                last_doc.push(0);
                doc_bytes.push(0);
                pos_bytes.push(0);
            }
            pairs.push((id, pos));
        });
        self.doc_len.push(pairs.len() as u32);
        self.total += pairs.len() as u64;
        pairs.sort_unstable();
        self.doc_start.push(self.doc_terms.len() as u32);
        let (mut i, mut prev_id) = (0, 0);
        while i < pairs.len() {
            let id = pairs[i].0;
            let t = id as usize;
            let tf = pairs[i..].iter().take_while(|p| p.0 == id).count();
            put_varint(&mut self.doc_terms, u64::from(id - prev_id));
            prev_id = id;
            let before = self.stream.len();
            let gap = doc - self.last_doc[t];
            put_varint(&mut self.stream, u64::from(gap) << 1 | u64::from(tf == 1));
            if tf != 1 {
                put_varint(&mut self.stream, tf as u64);
            }
            let middle = self.stream.len();
            let mut prev_pos = 0;
            for &(_, pos) in &pairs[i..i + tf] {
                put_varint(&mut self.stream, u64::from(pos - prev_pos));
                prev_pos = pos;
            }
            self.doc_bytes[t] += (middle - before) as u32;
            self.pos_bytes[t] += (self.stream.len() - middle) as u32;
            self.last_doc[t] = doc;
            self.df[t] += 1;
            i += tf;
        }
    }

    /// The index of the documents added.
    pub fn finish(self) -> Index {
        let IndexBuilder {
            mut terms,
            mut df,
            last_doc,
            doc_bytes,
            pos_bytes,
            mut stream,
            mut doc_terms,
            mut doc_start,
            mut doc_len,
            total,
            pairs,
            ..
        } = self;
        drop((pairs, last_doc));
        doc_start.push(doc_terms.len() as u32);
        // Give back the growth slack before the postings are laid out.
        for v in [&mut df, &mut doc_start, &mut doc_len] {
            v.shrink_to_fit();
        }
        doc_terms.shrink_to_fit();
        stream.shrink_to_fit();
        terms.shrink();

        // Lay out each term's postings; `cursor` then says where its next
        // document and positions go, `written` how many it has.
        let n_terms = df.len();
        let mut post_start = Vec::with_capacity(n_terms + 1);
        let mut size = 0usize;
        for t in 0..n_terms {
            post_start.push(size as u32);
            let doc_part = doc_bytes[t] as usize;
            size += varint_len(doc_part as u64) + doc_part + pos_bytes[t] as usize;
            size += skip_entries(df[t] as usize) * SKIP_ENTRY;
        }
        post_start.push(size as u32);
        let mut postings = vec![0u8; size];
        let mut doc_cursor = doc_bytes;
        let mut pos_cursor = pos_bytes;
        for t in 0..n_terms {
            let mut at = post_start[t] as usize;
            let doc_part = doc_cursor[t];
            put_varint_at(&mut postings, &mut at, u64::from(doc_part));
            doc_cursor[t] = at as u32;
            pos_cursor[t] = at as u32 + doc_part;
        }
        let mut written = vec![0u32; n_terms];
        let mut s = 0;
        for d in 0..doc_len.len() {
            let list = &doc_terms[doc_start[d] as usize..doc_start[d + 1] as usize];
            let (mut at, mut id) = (0, 0usize);
            while at < list.len() {
                id += get_varint(list, &mut at) as usize;
                let start = s;
                let v = get_varint(&stream, &mut s);
                let tf = if v & 1 == 1 {
                    1
                } else {
                    get_varint(&stream, &mut s)
                };
                let middle = s;
                for _ in 0..tf {
                    skip_varint(&stream, &mut s);
                }
                let (dc, pc) = (doc_cursor[id] as usize, pos_cursor[id] as usize);
                postings[dc..dc + middle - start].copy_from_slice(&stream[start..middle]);
                postings[pc..pc + s - middle].copy_from_slice(&stream[middle..s]);
                doc_cursor[id] = (dc + middle - start) as u32;
                pos_cursor[id] = (pc + s - middle) as u32;
                written[id] += 1;
                let n = written[id] as usize;
                if n.is_multiple_of(SKIP_BLOCK) && n < df[id] as usize {
                    // The skip entry for the block just completed.
                    let region = post_start[id] as usize;
                    let mut docs_at = region;
                    let doc_part = get_varint(&postings, &mut docs_at) as usize;
                    let entries = skip_entries(df[id] as usize);
                    let entry =
                        post_start[id + 1] as usize - (entries - (n / SKIP_BLOCK - 1)) * SKIP_ENTRY;
                    let fields = [
                        d as u32,
                        doc_cursor[id] - docs_at as u32,
                        pos_cursor[id] - (docs_at + doc_part) as u32,
                    ];
                    for (k, f) in fields.into_iter().enumerate() {
                        postings[entry + 4 * k..entry + 4 * k + 4]
                            .copy_from_slice(&f.to_le_bytes());
                    }
                }
            }
        }
        drop((stream, written, doc_cursor, pos_cursor));
        let n_docs = doc_len.len();
        Index {
            params: Params::default(),
            doc_len,
            avg_len: if n_docs == 0 {
                0.0
            } else {
                total as f32 / n_docs as f32
            },
            terms,
            vocabulary: std::cell::OnceCell::new(),
            df,
            post_start,
            postings,
            doc_terms,
            doc_start,
        }
    }
}

/// Skip entries of a list of `df` postings: one after every full block
/// that has a posting after it.
fn skip_entries(df: usize) -> usize {
    if df > SKIP_BLOCK {
        (df - 1) / SKIP_BLOCK
    } else {
        0
    }
}

/// The vocabulary: every term's text in one string, and an open-addressing
/// table (linear probing) from text to id.
#[derive(Debug, Default)]
struct Terms {
    text: String,
    /// Term `i` is `text[bounds[i]..bounds[i + 1]]` (empty until the first term).
    bounds: Vec<u32>,
    /// Id + 1 of the term at each slot (0: empty); a power of two long.
    slots: Vec<u32>,
}

impl Terms {
    fn len(&self) -> usize {
        self.bounds.len().saturating_sub(1)
    }

    fn text(&self, id: u32) -> &str {
        let i = id as usize;
        &self.text[self.bounds[i] as usize..self.bounds[i + 1] as usize]
    }

    /// The text of term `id` as bytes (no char-boundary checks: a lookup
    /// compares bytes).
    fn bytes(&self, id: u32) -> &[u8] {
        let i = id as usize;
        &self.text.as_bytes()[self.bounds[i] as usize..self.bounds[i + 1] as usize]
    }

    fn home(&self, term: &str) -> usize {
        let mut h = rustc_hash::FxHasher::default();
        h.write(term.as_bytes());
        let h = h.finish().wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> 32) as usize & (self.slots.len() - 1)
    }

    /// The id of `term`, or the empty slot where it would go.
    fn find(&self, term: &str) -> Result<u32, usize> {
        let mask = self.slots.len() - 1;
        let mut i = self.home(term);
        loop {
            match self.slots[i] {
                0 => return Err(i),
                s if self.bytes(s - 1) == term.as_bytes() => return Ok(s - 1),
                _ => i = (i + 1) & mask,
            }
        }
    }

    fn get(&self, term: &str) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        self.find(term).ok()
    }

    /// The id of `term`, adding it if new (then `true`).
    fn intern(&mut self, term: &str) -> (u32, bool) {
        if (self.len() + 1) * 8 > self.slots.len() * 7 {
            self.grow();
        }
        match self.find(term) {
            Ok(id) => (id, false),
            Err(slot) => {
                if self.bounds.is_empty() {
                    self.bounds.push(0);
                }
                let id = self.len() as u32;
                self.text.push_str(term);
                self.bounds.push(self.text.len() as u32);
                self.slots[slot] = id + 1;
                (id, true)
            }
        }
    }

    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(64);
        self.slots = vec![0; size];
        for id in 0..self.len() as u32 {
            if let Err(slot) = self.find(self.text(id)) {
                self.slots[slot] = id + 1;
            }
        }
    }

    fn shrink(&mut self) {
        self.text.shrink_to_fit();
        self.bounds.shrink_to_fit();
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_varint_at(out: &mut [u8], at: &mut usize, mut v: u64) {
    while v >= 0x80 {
        out[*at] = v as u8 | 0x80;
        *at += 1;
        v >>= 7;
    }
    out[*at] = v as u8;
    *at += 1;
}

fn varint_len(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

// Always inlined: the release build optimises for size ("s"), and a call
// per posting would cost more than the decode.
#[inline(always)]
fn get_varint(bytes: &[u8], at: &mut usize) -> u64 {
    let b = bytes[*at];
    *at += 1;
    if b < 0x80 {
        return u64::from(b);
    }
    let mut v = u64::from(b & 0x7f);
    let mut shift = 7;
    loop {
        let b = bytes[*at];
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return v;
        }
        shift += 7;
    }
}

#[inline]
fn skip_varint(bytes: &[u8], at: &mut usize) {
    while bytes[*at] >= 0x80 {
        *at += 1;
    }
    *at += 1;
}

/// The postings of one term, split into their parts.
#[derive(Clone, Copy)]
struct List<'a> {
    docs: &'a [u8],
    positions: &'a [u8],
    skips: &'a [u8],
}

/// A reader of a term's postings in document order.
struct Cursor<'a> {
    list: List<'a>,
    at: usize,
    pos_at: usize,
    /// Postings read so far; the current one is the last of them.
    read: usize,
    doc: u32,
    tf: u32,
    /// Positions ahead of `pos_at` that belong to postings already passed
    /// (skipped only when positions are read: most never are).
    behind: u32,
    /// Whether the current posting's positions are still ahead of `pos_at`.
    pending: bool,
}

impl<'a> Cursor<'a> {
    fn new(list: List<'a>) -> Cursor<'a> {
        Cursor {
            list,
            at: 0,
            pos_at: 0,
            read: 0,
            doc: 0,
            tf: 0,
            behind: 0,
            pending: false,
        }
    }

    /// Moves to the next posting; `false` at the end.
    #[inline(always)]
    fn next(&mut self) -> bool {
        if self.pending {
            self.behind += self.tf;
        }
        if self.at >= self.list.docs.len() {
            self.pending = false;
            return false;
        }
        let v = get_varint(self.list.docs, &mut self.at);
        self.doc += (v >> 1) as u32;
        self.tf = if v & 1 == 1 {
            1
        } else {
            get_varint(self.list.docs, &mut self.at) as u32
        };
        self.read += 1;
        self.pending = true;
        true
    }

    /// Moves to the first posting at or after the current one whose
    /// document is at least `target`; `false` if there is none.
    fn seek(&mut self, target: u32) -> bool {
        if self.read > 0 && self.doc >= target {
            return true;
        }
        let skips = self.list.skips;
        let mut k = self.read / SKIP_BLOCK;
        while (k + 1) * SKIP_ENTRY <= skips.len() {
            let e = &skips[k * SKIP_ENTRY..(k + 1) * SKIP_ENTRY];
            let field =
                |i: usize| u32::from_le_bytes([e[4 * i], e[4 * i + 1], e[4 * i + 2], e[4 * i + 3]]);
            if field(0) >= target {
                break;
            }
            self.doc = field(0);
            self.at = field(1) as usize;
            self.pos_at = field(2) as usize;
            self.read = (k + 1) * SKIP_BLOCK;
            self.behind = 0;
            self.pending = false;
            k += 1;
        }
        loop {
            if !self.next() {
                return false;
            }
            if self.doc >= target {
                return true;
            }
        }
    }

    /// The current posting's positions, into `out`.
    fn positions(&mut self, out: &mut Vec<u32>) {
        out.clear();
        let positions = self.list.positions;
        while self.behind > 0 {
            if positions[self.pos_at] < 0x80 {
                self.behind -= 1;
            }
            self.pos_at += 1;
        }
        let mut p = 0;
        for _ in 0..self.tf {
            p += get_varint(self.list.positions, &mut self.pos_at) as u32;
            out.push(p);
        }
        self.pending = false;
    }
}

impl Index {
    /// Builds the index of `docs`.
    pub fn build<S: AsRef<str>>(analyzer: &Analyzer, docs: &[S]) -> Index {
        let mut builder = IndexBuilder::new(analyzer);
        for text in docs {
            builder.add(text.as_ref());
        }
        builder.finish()
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
        self.df.len()
    }

    fn idf(&self, df: usize) -> f32 {
        idf(self.doc_len.len(), df)
    }

    fn df(&self, id: u32) -> usize {
        self.df[id as usize] as usize
    }

    /// The postings of term `id`.
    #[inline(always)]
    fn list(&self, id: u32) -> List<'_> {
        let (start, end) = (
            self.post_start[id as usize] as usize,
            self.post_start[id as usize + 1] as usize,
        );
        let mut at = start;
        let doc_part = get_varint(&self.postings, &mut at) as usize;
        let skips = end - skip_entries(self.df(id)) * SKIP_ENTRY;
        List {
            docs: &self.postings[at..at + doc_part],
            positions: &self.postings[at + doc_part..skips],
            skips: &self.postings[skips..end],
        }
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
            let (id, weight) = match self.terms.get(term) {
                Some(id) => (id, 1.0),
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
            let idf = self.idf(self.df(id)) * weight;
            // The document part straight through: no skip table, no positions.
            let docs = self.list(id).docs;
            let (mut at, mut doc) = (0, 0usize);
            while at < docs.len() {
                let v = get_varint(docs, &mut at);
                doc += (v >> 1) as usize;
                let tf = if v & 1 == 1 {
                    1.0
                } else {
                    get_varint(docs, &mut at) as f32
                };
                let len = self.doc_len[doc] as f32;
                let s = &mut scores[doc];
                if *s == 0.0 {
                    touched.push(doc as u32);
                }
                *s += bm25(idf, tf, len / avg, k1, b);
            }
        }
    }

    /// Adds the proximity bonus for query neighbours that stand together.
    fn proximity(&self, terms: &[(u32, u32, f32)], scores: &mut [f32]) {
        let (mut short_pos, mut long_pos) = (Vec::new(), Vec::new());
        for pair in terms.windows(2) {
            let ((a, pa, wa), (b, pb, wb)) = (pair[0], pair[1]);
            if pb <= pa || pb - pa > PHRASE_WINDOW + 1 {
                continue;
            }
            let (df_a, df_b) = (self.df(a), self.df(b));
            let idf_a = self.idf(df_a) * wa;
            let idf_b = self.idf(df_b) * wb;
            let bonus = self.params.phrase_weight * idf_a.min(idf_b);
            let a_is_short = df_a <= df_b;
            let (short, long) = if a_is_short { (a, b) } else { (b, a) };
            let (mut short, mut long) =
                (Cursor::new(self.list(short)), Cursor::new(self.list(long)));
            while short.next() {
                if !long.seek(short.doc) {
                    break;
                }
                if long.doc != short.doc {
                    continue;
                }
                short.positions(&mut short_pos);
                long.positions(&mut long_pos);
                let (pos_a, pos_b) = if a_is_short {
                    (&short_pos, &long_pos)
                } else {
                    (&long_pos, &short_pos)
                };
                scores[short.doc as usize] += bonus * closeness(pos_a, pos_b, pb - pa);
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
            let list = &self.doc_terms
                [self.doc_start[d as usize] as usize..self.doc_start[d as usize + 1] as usize];
            let (mut at, mut t) = (0, 0u32);
            while at < list.len() {
                t += get_varint(list, &mut at) as u32;
                let df = self.df(t);
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
            // Sorted as (text, id) pairs (each comparison then reads the
            // text directly), kept as ids.
            let mut v: Vec<(&str, u32)> = (0..self.terms.len() as u32)
                .map(|id| (self.terms.text(id), id))
                .collect();
            v.sort_unstable();
            v.into_iter().map(|(_, id)| id).collect()
        });
        let start = vocabulary.partition_point(|&id| self.terms.text(id) < &*first);
        let mut best: Option<(usize, usize, u32)> = None; // (edits, -df, id)
        for &id in vocabulary[start..]
            .iter()
            .take_while(|&&id| self.terms.text(id).starts_with(&*first))
        {
            let t: Vec<char> = self.terms.text(id).chars().collect();
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
            let df = self.df(id);
            let key = (edits, usize::MAX - df, id);
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
