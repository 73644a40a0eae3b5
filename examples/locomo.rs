//! Evidence retrieval on LoCoMo with mnemo's note search, natively (the
//! quick loop for tuning; `bench/note-search.mjs` measures the same in wasm
//! beside the peers). Usage:
//! `cargo run --release --example locomo -- ../shared/locomo/locomo10.json`
//! Ranking parameters can be overridden for tuning: K1, B, PW (phrase
//! weight), FD, FT, FW (feedback docs, terms, weight); DEBUG=1 prints misses.
use std::collections::HashMap;

use mnemo::search::{Index, Params};
use mnemo::text::Analyzer;

#[path = "common/locomo.rs"]
mod locomo;

fn main() {
    let analyzer = Analyzer::new();
    let env = |k: &str, d: f32| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let defaults = Params::default();
    let params = Params {
        k1: env("K1", defaults.k1),
        b: env("B", defaults.b),
        phrase_weight: env("PW", defaults.phrase_weight),
        feedback_docs: env("FD", defaults.feedback_docs as f32) as usize,
        feedback_terms: env("FT", defaults.feedback_terms as f32) as usize,
        feedback_weight: env("FW", defaults.feedback_weight),
    };
    let (mut r5, mut r10, mut mrr, mut n) = (0.0, 0.0, 0.0, 0usize);
    let mut by_cat: HashMap<u64, (f64, usize)> = HashMap::new();
    let (mut build, mut query) = (std::time::Duration::ZERO, std::time::Duration::ZERO);
    for conv in locomo::load(&locomo::path()) {
        let docs: Vec<&str> = conv.turns.iter().map(|t| t.document.as_str()).collect();
        let t0 = std::time::Instant::now();
        let index = Index::build(&analyzer, &docs).with_params(params);
        build += t0.elapsed();
        for q in conv.questions.iter().filter(|q| !q.evidence.is_empty()) {
            let t0 = std::time::Instant::now();
            let hits = index.search(&analyzer, &q.text, 10);
            query += t0.elapsed();
            let ranked: Vec<&str> = hits.iter().map(|h| conv.turns[h.doc].id.as_str()).collect();
            let (a, b, rr) = locomo::score(&q.evidence, &ranked);
            if std::env::var("DEBUG").is_ok() && b == 0.0 {
                println!("\nQ {}", q.text);
                for e in &q.evidence {
                    if let Some(t) = conv.turns.iter().find(|t| &t.id == e) {
                        println!("  want {}", t.document);
                    }
                }
                for h in hits.iter().take(3) {
                    println!("  got  {:.2} {}", h.score, conv.turns[h.doc].document);
                }
            }
            r5 += a;
            r10 += b;
            mrr += rr;
            n += 1;
            let c = by_cat.entry(q.category).or_default();
            c.0 += b;
            c.1 += 1;
        }
    }
    let n_f = n as f64;
    println!(
        "questions {n}  R@5 {:.3}  R@10 {:.3}  MRR@10 {:.3}  build {build:?}  query total {query:?}",
        r5 / n_f,
        r10 / n_f,
        mrr / n_f,
    );
    let mut cats: Vec<_> = by_cat.into_iter().collect();
    cats.sort_by_key(|c| c.0);
    for (c, (sum, count)) in cats {
        println!("  category {c}: R@10 {:.3} ({count})", sum / count as f64);
    }
}
