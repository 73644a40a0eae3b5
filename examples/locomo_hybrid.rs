//! Hybrid recall on LoCoMo with a real embedding model, and what the hybrid
//! costs. The host's part (all-MiniLM-L6-v2) runs once, beforehand, in
//! `bench/embed_locomo.py`, which caches a vector for every turn and
//! question; here an [`Embedder`] answers from that cache by exact text (a
//! text not in it is an error), as a host's model would.
//!
//! Part 1, quality: each conversation is one memory (its turns imported as
//! entries of MEMORY.md) and every question with evidence goes through
//! `recall` three ways: keyword-only (no embedder), embedding-only (the
//! cosine alone, from the cache) and hybrid (the default, with an
//! embedder). R@5, R@10 and MRR@10 of the evidence turns, as
//! examples/locomo.rs. Other semantic/keyword weights are tried by
//! re-ranking the parts `recall` explains (`explain: true`), so nothing in
//! the crate changes.
//!
//! Part 2, cost: recall over 1,000 and 100,000 LoCoMo-derived entries with
//! random unit vectors of 384 dimensions: median and p95 ms per recall,
//! keyword-only beside hybrid (and the bare BM25 index beside both).
//!
//! Usage (release: the numbers mean nothing in debug):
//! `python bench/embed_locomo.py` (see its docstring), then
//! `cargo run --release --example locomo_hybrid -- [locomo10.json] [--only quality|cost]`.
//! `MNEMO_BENCH_CACHE` overrides the cache directory (default
//! `target/bench-cache`); `COST_QUERIES` the queries timed per size.
use std::collections::HashMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

use mnemo::api::RecallOptions;
use mnemo::host::{Answer, Embedder};
use mnemo::search::Index;
use mnemo::store::{VerdictCache, SEPARATOR};
use mnemo::text::Analyzer;
use mnemo::{Config, Error, ErrorKind, Files, Memory, MemoryStorage, Store, Target};
use serde_json::{json, Value};

#[path = "common/locomo.rs"]
mod locomo;

/// A fixed clock: every entry is new, so the decay is 1 and the ranking is
/// the relevance alone (LoCoMo has no importance or age to weigh).
const NOW: u64 = 1_700_000_000_000;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .cloned();
    let data = args
        .iter()
        .enumerate()
        .find(|(i, a)| !a.starts_with("--") && (*i == 0 || args[i - 1] != "--only"))
        .map_or_else(
            || "../shared/locomo/locomo10.json".into(),
            |(_, a)| a.clone(),
        );
    let conversations = locomo::load(&data);
    pollster::block_on(async {
        if only.as_deref() != Some("cost") {
            quality(&conversations).await;
        }
        if only.as_deref() != Some("quality") {
            cost(&conversations).await;
        }
    });
}

// --- the cache and its embedder -----------------------------------------

/// The vectors `bench/embed_locomo.py` wrote, by text.
struct Cache {
    model: String,
    dims: usize,
    rows: HashMap<String, usize>,
    vectors: Vec<f32>,
}

impl Cache {
    fn load() -> Cache {
        let dir =
            std::env::var("MNEMO_BENCH_CACHE").unwrap_or_else(|_| "target/bench-cache".into());
        let index_path = format!("{dir}/locomo-minilm.json");
        let text = std::fs::read_to_string(&index_path).unwrap_or_else(|e| {
            panic!("{index_path}: {e}; run `python bench/embed_locomo.py` first")
        });
        let index: Value = serde_json::from_str(&text).expect("parse the cache index");
        let dims = index["dimensions"].as_u64().expect("dimensions") as usize;
        let bytes = std::fs::read(format!("{dir}/locomo-minilm.f32")).expect("read the vectors");
        let vectors: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let texts = index["texts"].as_array().expect("texts");
        assert_eq!(
            vectors.len(),
            texts.len() * dims,
            "the cache is torn; re-run the script"
        );
        let rows = texts
            .iter()
            .enumerate()
            .map(|(i, t)| (t.as_str().expect("a text").to_string(), i))
            .collect();
        Cache {
            model: index["model"]
                .as_str()
                .unwrap_or("all-MiniLM-L6-v2")
                .to_string(),
            dims,
            rows,
            vectors,
        }
    }

    fn get(&self, text: &str) -> Option<&[f32]> {
        let row = *self.rows.get(text)?;
        Some(&self.vectors[row * self.dims..(row + 1) * self.dims])
    }
}

/// The host's embedder, answering from the cache.
struct Cached(Rc<Cache>);

impl Embedder for Cached {
    fn model(&self) -> &str {
        &self.0.model
    }
    fn dimensions(&self) -> usize {
        self.0.dims
    }
    fn embed<'a>(&'a self, texts: &'a [String]) -> Answer<'a, Vec<Vec<f32>>> {
        let answer = texts
            .iter()
            .map(|t| {
                self.0.get(t).map(<[f32]>::to_vec).ok_or_else(|| {
                    Error::new(ErrorKind::InvalidInput, format!("not in the cache: {t:?}"))
                })
            })
            .collect();
        Box::pin(async move { answer })
    }
}

/// Random unit vectors, the same for the same text (for the cost part).
struct RandomUnit(usize);

impl Embedder for RandomUnit {
    fn model(&self) -> &str {
        "random-unit"
    }
    fn dimensions(&self) -> usize {
        self.0
    }
    fn embed<'a>(&'a self, texts: &'a [String]) -> Answer<'a, Vec<Vec<f32>>> {
        let answer = texts.iter().map(|t| random_unit(t, self.0)).collect();
        Box::pin(async move { Ok(answer) })
    }
}

fn random_unit(text: &str, dims: usize) -> Vec<f32> {
    // FNV-1a seeds a splitmix64 stream.
    let mut state = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let mut v: Vec<f32> = (0..dims)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            (z >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
        })
        .collect();
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= norm);
    v
}

// --- part 1: quality ----------------------------------------------------

/// A way of mixing the two parts, applied to what `recall` explained.
#[derive(Clone, Copy)]
struct Mix {
    semantic: f64,
    verbatim: bool,
    agreement: bool,
}

/// The semantic weights tried (the keyword weight is the rest).
const WEIGHTS: [f64; 7] = [0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2];
/// The bonuses tried: both (the spec's), none, each alone.
const BONUSES: [(bool, bool, &str); 4] = [
    (true, true, "both bonuses (spec)"),
    (false, false, "no bonuses"),
    (true, false, "verbatim only"),
    (false, true, "agreement only"),
];

fn mixes() -> Vec<Mix> {
    WEIGHTS
        .iter()
        .flat_map(|&semantic| {
            BONUSES.iter().map(move |&(verbatim, agreement, _)| Mix {
                semantic,
                verbatim,
                agreement,
            })
        })
        .collect()
}

impl Mix {
    fn score(&self, semantic: f64, keyword: f64, verbatim: bool) -> f64 {
        let semantic = semantic.clamp(0.0, 1.0);
        let mut r = self.semantic * semantic + (1.0 - self.semantic) * keyword;
        if self.verbatim && verbatim {
            r += mnemo::vectors::VERBATIM_BONUS;
        }
        if self.agreement && semantic > 0.5 && keyword > 0.5 {
            r += mnemo::vectors::AGREEMENT_BONUS;
        }
        r
    }

    fn name(&self) -> String {
        let bonuses = BONUSES
            .iter()
            .find(|b| b.0 == self.verbatim && b.1 == self.agreement)
            .map_or("", |b| b.2);
        format!(
            "{:.1} / {:.1}, {bonuses}",
            self.semantic,
            1.0 - self.semantic
        )
    }
}

/// Summed metrics of one mode.
#[derive(Default, Clone)]
struct Tally {
    r5: f64,
    r10: f64,
    mrr: f64,
    by_category: HashMap<u64, (f64, usize)>,
    n: usize,
}

impl Tally {
    fn add(&mut self, evidence: &[String], ranked: &[&str], category: u64) {
        let (a, b, rr) = locomo::score(evidence, ranked);
        self.r5 += a;
        self.r10 += b;
        self.mrr += rr;
        self.n += 1;
        let c = self.by_category.entry(category).or_default();
        c.0 += b;
        c.1 += 1;
    }

    fn row(&self, name: &str) -> String {
        let n = self.n as f64;
        format!(
            "| {name} | {:.3} | {:.3} | {:.3} |",
            self.r5 / n,
            self.r10 / n,
            self.mrr / n
        )
    }
}

fn config(memory_limit: usize, user_limit: usize) -> Config {
    Config::from_json(&json!({"memory": {"recall": {
        "memory_char_limit": memory_limit,
        "user_char_limit": user_limit,
    }}}))
    .expect("a valid config")
}

/// The indexes of `texts` a store accepts: an entry the scanner blocks
/// (alone, or with its neighbour: the two read together in the prompt)
/// cannot be imported, so it is left out, as a host would have to.
fn admit(texts: &[String]) -> Vec<usize> {
    let mut kept: Vec<usize> = (0..texts.len())
        .filter(|&i| !mnemo::scan::scan(&texts[i]).blocked)
        .collect();
    loop {
        let joined = kept
            .iter()
            .map(|&i| texts[i].as_str())
            .collect::<Vec<_>>()
            .join(SEPARATOR);
        let store = Store::load(
            Some(joined.as_bytes()),
            mnemo::config::MAX_LIMIT,
            &VerdictCache::default(),
        );
        let blocked = store.blocked().next();
        match blocked {
            Some(i) => {
                kept.remove(i);
            }
            None => return kept,
        }
    }
}

async fn open(memory: &[String], user: &[String]) -> Memory<MemoryStorage> {
    let chars = |e: &[String]| e.iter().map(|t| t.chars().count() + 3).sum::<usize>();
    let config = config(chars(memory).max(120_000), chars(user).max(24_000));
    let mut m = Memory::open(MemoryStorage::with_clock(|| NOW), config)
        .await
        .expect("open");
    let mut files = Files::new();
    files.insert("MEMORY.md".into(), memory.join(SEPARATOR));
    if !user.is_empty() {
        files.insert("USER.md".into(), user.join(SEPARATOR));
    }
    m.import_markdown(&files).await.expect("import");
    let stored = m.store(Target::Memory).entries();
    if let Some(i) = (0..memory.len().max(stored.len())).find(|&i| stored.get(i) != memory.get(i)) {
        panic!(
            "the store changed the turns: {} entries for {}; first difference at {i}: {:?} for {:?}",
            stored.len(),
            memory.len(),
            stored.get(i),
            memory.get(i)
        );
    }
    m
}

async fn quality(conversations: &[locomo::Conversation]) {
    let cache = Rc::new(Cache::load());
    let (mut keyword, mut embedding, mut hybrid) =
        (Tally::default(), Tally::default(), Tally::default());
    let grid = mixes();
    let mut mixes = vec![Tally::default(); grid.len()];
    let mut drift = 0f64;
    let mut withheld: Vec<String> = Vec::new();
    let (mut with_verbatim, mut pairs) = (0usize, 0usize);
    let t0 = Instant::now();
    for conv in conversations {
        // A store keeps its entries trimmed (so does the cache).
        let docs: Vec<String> = conv
            .turns
            .iter()
            .map(|t| t.document.trim().to_string())
            .collect();
        let kept = admit(&docs);
        let docs: Vec<String> = kept.iter().map(|&i| docs[i].clone()).collect();
        let ids: Vec<&str> = kept.iter().map(|&i| conv.turns[i].id.as_str()).collect();
        let mut memory = open(&docs, &[]).await;
        let questions: Vec<&locomo::Question> = conv
            .questions
            .iter()
            .filter(|q| !q.evidence.is_empty())
            .collect();
        for (i, turn) in conv.turns.iter().enumerate() {
            if !kept.contains(&i) {
                let needed = questions
                    .iter()
                    .filter(|q| q.evidence.contains(&turn.id))
                    .count();
                withheld.push(format!(
                    "{} (evidence of {needed} question{})",
                    turn.id,
                    if needed == 1 { "" } else { "s" }
                ));
            }
        }

        let ten = RecallOptions {
            limit: 10,
            ..RecallOptions::default()
        };
        for q in &questions {
            let r = memory.recall(&q.text, &ten).await.expect("recall");
            assert_eq!(r.mode, "keyword");
            let ranked: Vec<&str> = r.results.iter().map(|h| ids[h.index]).collect();
            keyword.add(&q.evidence, &ranked, q.category);
        }

        memory
            .set_embedder(Some(Box::new(Cached(cache.clone()))))
            .expect("embedder");
        let all = RecallOptions {
            limit: docs.len(),
            explain: true,
            ..RecallOptions::default()
        };
        let vectors: Vec<&[f32]> = docs
            .iter()
            .map(|d| {
                cache
                    .get(d)
                    .unwrap_or_else(|| panic!("not in the cache: {d:?}"))
            })
            .collect();
        for q in &questions {
            let r = memory.recall(&q.text, &all).await.expect("recall");
            assert_eq!(r.mode, "hybrid", "{:?}", r.skipped);
            let ranked: Vec<&str> = r.results.iter().take(10).map(|h| ids[h.index]).collect();
            hybrid.add(&q.evidence, &ranked, q.category);

            // Embedding-only: the exact cosine, from the cache.
            let qv = cache.get(&q.text).expect("the question is in the cache");
            let cosines: Vec<f64> = vectors
                .iter()
                .map(|v| mnemo::vectors::cosine(qv, v))
                .collect();
            let mut order: Vec<usize> = (0..docs.len()).collect();
            order.sort_by(|&a, &b| cosines[b].total_cmp(&cosines[a]).then(a.cmp(&b)));
            let ranked: Vec<&str> = order.iter().take(10).map(|&i| ids[i]).collect();
            embedding.add(&q.evidence, &ranked, q.category);

            // Other mixes, from the parts recall explained.
            let parts: Vec<(usize, f64, f64, bool)> = r
                .results
                .iter()
                .map(|h| {
                    let e = h.explain.as_ref().expect("explained");
                    let semantic = e.semantic.expect("a semantic part");
                    drift = drift.max((semantic - cosines[h.index]).abs());
                    let verbatim = mnemo::vectors::verbatim(&q.text, &h.content);
                    with_verbatim += usize::from(verbatim);
                    (h.index, semantic, e.keyword, verbatim)
                })
                .collect();
            assert_eq!(parts.len(), docs.len(), "recall scored every entry");
            pairs += parts.len();
            for (mix, tally) in grid.iter().zip(&mut mixes) {
                let mut scored: Vec<(usize, f64)> = parts
                    .iter()
                    .map(|&(i, s, k, v)| (i, mix.score(s, k, v)))
                    .collect();
                scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                let ranked: Vec<&str> = scored.iter().take(10).map(|&(i, _)| ids[i]).collect();
                tally.add(&q.evidence, &ranked, q.category);
            }
        }
    }
    println!(
        "\nLoCoMo evidence retrieval, {} questions with evidence over {} conversations \
         ({} turns), all-MiniLM-L6-v2 ({} dims); {:.1} s\n",
        keyword.n,
        conversations.len(),
        conversations.iter().map(|c| c.turns.len()).sum::<usize>(),
        cache.dims,
        t0.elapsed().as_secs_f64()
    );
    if !withheld.is_empty() {
        println!(
            "(the scanner blocks {} turn(s), left out of the stores: {})\n",
            withheld.len(),
            withheld.join(", ")
        );
    }
    println!("| recall | R@5 | R@10 | MRR@10 |\n|---|---|---|---|");
    println!("{}", keyword.row("keyword-only (no embedder)"));
    println!("{}", embedding.row("embedding-only (cosine)"));
    println!(
        "{}",
        hybrid.row("hybrid, the default mix (0.4 × semantic + 0.6 × keyword, no bonuses)")
    );
    println!(
        "\nOther mixes, re-ranked from `explain`: semantic / keyword weight; each cell \
         R@5 / R@10 / MRR@10\n"
    );
    print!("| semantic / keyword |");
    for b in BONUSES {
        print!(" {} |", b.2);
    }
    println!("\n|---|{}", "---|".repeat(BONUSES.len()));
    for (w, row) in WEIGHTS.iter().zip(mixes.chunks(BONUSES.len())) {
        print!("| {w:.1} / {:.1} |", 1.0 - w);
        for t in row {
            let n = t.n as f64;
            print!(" {:.3} / {:.3} / {:.3} |", t.r5 / n, t.r10 / n, t.mrr / n);
        }
        println!();
    }
    let best = |f: fn(&Tally) -> f64| {
        let (mix, tally) = grid
            .iter()
            .zip(&mixes)
            .max_by(|a, b| f(a.1).total_cmp(&f(b.1)))
            .expect("mixes");
        format!("{} ({:.3})", mix.name(), f(tally))
    };
    println!(
        "\nbest R@5: {}; best R@10: {}; best MRR@10: {}",
        best(|t| t.r5 / t.n as f64),
        best(|t| t.r10 / t.n as f64),
        best(|t| t.mrr / t.n as f64)
    );
    println!(
        "beating keyword-only on all three: {}",
        grid.iter()
            .zip(&mixes)
            .filter(|(_, t)| t.r5 > keyword.r5 && t.r10 > keyword.r10 && t.mrr > keyword.mrr)
            .map(|(m, _)| m.name())
            .collect::<Vec<_>>()
            .join("; ")
    );
    println!(
        "the verbatim bonus applied to {:.1}% of (question, entry) pairs; largest \
         |explain.semantic − cosine|: {drift:.5}",
        100.0 * with_verbatim as f64 / pairs as f64
    );
    // The mix best on the three metrics together, beside the default.
    let (top, top_tally) = grid
        .iter()
        .zip(&mixes)
        .max_by(|a, b| {
            let sum = |t: &Tally| t.r5 + t.r10 + t.mrr;
            sum(a.1).total_cmp(&sum(b.1))
        })
        .expect("mixes");
    println!("\nbest on R@5 + R@10 + MRR@10: {}", top.name());
    let mut categories: Vec<u64> = keyword.by_category.keys().copied().collect();
    categories.sort_unstable();
    println!("\nR@10 by LoCoMo category:\n");
    println!(
        "| category | questions | keyword | embedding | hybrid (default) | {} |\n\
         |---|---|---|---|---|---|",
        top.name()
    );
    for c in categories {
        let r = |t: &Tally| {
            let (sum, n) = t.by_category[&c];
            sum / n as f64
        };
        let name = match c {
            1 => "multi-hop",
            2 => "temporal",
            3 => "open-domain",
            4 => "single-hop",
            5 => "adversarial",
            _ => "other",
        };
        println!(
            "| {c} {name} | {} | {:.3} | {:.3} | {:.3} | {:.3} |",
            keyword.by_category[&c].1,
            r(&keyword),
            r(&embedding),
            r(&hybrid),
            r(top_tally)
        );
    }
}

// --- part 2: cost -------------------------------------------------------

/// `n` entries from the LoCoMo turns (cut to `cut` chars at a word
/// boundary): the turns, then copies with their words rotated (every text
/// distinct, the vocabulary LoCoMo's). Entries the scanner blocks are left
/// out.
fn derived(turns: &[&str], n: usize, cut: usize) -> Vec<String> {
    let turns: Vec<Vec<&str>> = turns
        .iter()
        .map(|t| {
            let mut len = 0;
            t.split_whitespace()
                .take_while(|w| {
                    len += w.chars().count() + 1;
                    len <= cut.saturating_add(1)
                })
                .collect()
        })
        .collect();
    let texts: Vec<String> = (0..n + 64)
        .map(|k| {
            let words = &turns[k % turns.len()];
            let copy = k / turns.len();
            if copy == 0 {
                return words.join(" ");
            }
            let r = copy % words.len().max(1);
            let mut out: Vec<&str> = words[r..].to_vec();
            out.extend_from_slice(&words[..r]);
            format!("{} ({copy})", out.join(" "))
        })
        .collect();
    let texts: Vec<String> = admit(&texts)
        .into_iter()
        .take(n)
        .map(|i| texts[i].clone())
        .collect();
    assert_eq!(texts.len(), n);
    texts
}

fn stats(times: &mut [Duration]) -> (f64, f64) {
    times.sort_unstable();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let p95 = ((times.len() as f64 * 0.95).ceil() as usize).clamp(1, times.len()) - 1;
    (ms(times[times.len() / 2]), ms(times[p95]))
}

fn env(key: &str) -> Option<usize> {
    std::env::var(key)
        .ok()
        .map(|v| v.parse().unwrap_or_else(|_| panic!("{key}: a number")))
}

/// Entries cut to this many chars: 100,000 of them fit one store's
/// maximum of 10,000,000 chars.
const CUT: usize = 90;

async fn cost(conversations: &[locomo::Conversation]) {
    let turns: Vec<&str> = conversations
        .iter()
        .flat_map(|c| &c.turns)
        .map(|t| t.document.trim())
        .collect();
    let questions: Vec<&str> = conversations
        .iter()
        .flat_map(|c| &c.questions)
        .map(|q| q.text.as_str())
        .collect();
    // (entries, split over both stores, queries timed)
    let mut rows: Vec<(usize, bool, usize)> = std::env::var("COST_SIZES")
        .unwrap_or_else(|_| "1000,100000".into())
        .split(',')
        .filter(|n| !n.trim().is_empty())
        .map(|n| {
            let n: usize = n.trim().parse().expect("COST_SIZES: numbers");
            let queries = env("COST_QUERIES").unwrap_or(if n <= 10_000 { 200 } else { 50 });
            (n, false, queries)
        })
        .collect();
    if let Some(n) = env("COST_SPLIT") {
        rows.push((n, true, env("COST_SPLIT_QUERIES").unwrap_or(10)));
    }
    let analyzer = Analyzer::new();
    println!(
        "\nCost per recall (limit 10): LoCoMo-derived entries (turns cut to {CUT} chars, all in \
         MEMORY.md; \"split\": whole turns, half of them in USER.md), random unit vectors of 384 \
         dimensions, LoCoMo questions as queries; median and p95 in ms\n"
    );
    println!(
        "| entries | queries | BM25 index alone | keyword-only recall | hybrid recall | hybrid / \
         keyword (medians) |\n|---|---|---|---|---|---|"
    );
    let mut notes = Vec::new();
    for (n, split, queries) in rows {
        let texts = derived(&turns, n, if split { usize::MAX } else { CUT });
        let (memory, user) = if split {
            texts.split_at(n / 2)
        } else {
            (&texts[..], &[][..])
        };
        let t0 = Instant::now();
        let mut m = open(memory, user).await;
        let opened = t0.elapsed();
        let index = Index::build(&analyzer, &texts);
        let qs: Vec<&str> = questions.iter().cycle().take(queries).copied().collect();
        let ten = RecallOptions {
            limit: 10,
            ..RecallOptions::default()
        };

        let mut bare = Vec::with_capacity(queries);
        for q in &qs {
            let t = Instant::now();
            std::hint::black_box(index.search(&analyzer, q, 10));
            bare.push(t.elapsed());
        }
        m.recall(qs[0], &ten).await.expect("warm-up");
        let mut keyword = Vec::with_capacity(queries);
        for q in &qs {
            let t = Instant::now();
            let r = m.recall(q, &ten).await.expect("recall");
            keyword.push(t.elapsed());
            assert_eq!(r.mode, "keyword");
        }
        m.set_embedder(Some(Box::new(RandomUnit(384))))
            .expect("embedder");
        let t = Instant::now();
        m.recall(qs[0], &ten).await.expect("warm-up");
        let first = t.elapsed();
        let mut hybrid = Vec::with_capacity(queries);
        for q in &qs {
            let t = Instant::now();
            let r = m.recall(q, &ten).await.expect("recall");
            hybrid.push(t.elapsed());
            assert_eq!(r.mode, "hybrid", "{:?}", r.skipped);
        }
        let (b, bp) = stats(&mut bare);
        let (k, kp) = stats(&mut keyword);
        let (h, hp) = stats(&mut hybrid);
        let label = if split {
            format!("{n} split")
        } else {
            n.to_string()
        };
        println!(
            "| {label} | {queries} | {b:.3}, {bp:.3} | {k:.3}, {kp:.3} | {h:.1}, {hp:.1} | {:.0}× |",
            h / k
        );
        notes.push(format!(
            "{label}: {} chars; opened and imported in {:.2} s; the first hybrid recall \
             (embedding every entry) {:.2} s",
            texts.iter().map(|t| t.chars().count()).sum::<usize>(),
            opened.as_secs_f64(),
            first.as_secs_f64()
        ));
    }
    println!();
    for note in notes {
        println!("{note}");
    }
}
