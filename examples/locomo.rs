//! Evidence retrieval on LoCoMo with mnemo's note search, natively (the
//! quick loop for tuning; `bench/note-search.mjs` measures the same in wasm
//! beside the peers). Usage:
//! `cargo run --release --example locomo -- ../shared/locomo/locomo10.json`
use std::collections::HashMap;

use mnemo::search::Index;
use mnemo::text::Analyzer;
use serde_json::Value;

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "../shared/locomo/locomo10.json".into());
    let data: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("read data"))
        .expect("parse data");
    let analyzer = Analyzer::new();
    let env = |k: &str, d: f32| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let defaults = mnemo::search::Params::default();
    let params = mnemo::search::Params {
        k1: env("K1", defaults.k1),
        b: env("B", defaults.b),
        phrase_weight: env("PW", defaults.phrase_weight),
        feedback_docs: env("FD", defaults.feedback_docs as f32) as usize,
        feedback_terms: env("FT", defaults.feedback_terms as f32) as usize,
        feedback_weight: env("FW", defaults.feedback_weight),
    };
    let (mut r5, mut r10, mut mrr, mut n) = (0.0, 0.0, 0.0, 0usize);
    let mut by_cat: HashMap<u64, (f64, usize)> = HashMap::new();
    let mut build = std::time::Duration::ZERO;
    let mut query = std::time::Duration::ZERO;
    for sample in data.as_array().expect("array") {
        let conv = &sample["conversation"];
        let mut docs = Vec::new();
        let mut ids = Vec::new();
        let mut s = 1;
        while let Some(turns) = conv.get(format!("session_{s}")).and_then(Value::as_array) {
            for t in turns {
                let mut text = format!(
                    "{}: {}",
                    t["speaker"].as_str().unwrap_or(""),
                    t["text"].as_str().unwrap_or("")
                );
                if let Some(c) = t.get("blip_caption").and_then(Value::as_str) {
                    text.push_str(&format!(" [image: {c}]"));
                }
                docs.push(text);
                ids.push(t["dia_id"].as_str().unwrap_or("").to_string());
            }
            s += 1;
        }
        let t0 = std::time::Instant::now();
        let index = Index::build(&analyzer, &docs).with_params(params);
        build += t0.elapsed();
        let known: std::collections::HashSet<&str> = ids.iter().map(String::as_str).collect();
        for qa in sample["qa"].as_array().expect("qa") {
            let evidence: Vec<String> = qa["evidence"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .flat_map(|e| e.split(|c: char| c == ';' || c.is_whitespace()))
                        .filter(|e| !e.is_empty())
                        .map(normalise)
                        .filter(|e| known.contains(e.as_str()))
                        .collect()
                })
                .unwrap_or_default();
            if evidence.is_empty() {
                continue;
            }
            let q = qa["question"].as_str().unwrap_or("");
            let t0 = std::time::Instant::now();
            let hits = index.search(&analyzer, q, 10);
            query += t0.elapsed();
            let ranked: Vec<&str> = hits.iter().map(|h| ids[h.doc].as_str()).collect();
            let recall = |k: usize| {
                evidence
                    .iter()
                    .filter(|e| ranked.iter().take(k).any(|r| r == e))
                    .count() as f64
                    / evidence.len() as f64
            };
            let rr = ranked
                .iter()
                .position(|r| evidence.iter().any(|e| e == r))
                .map_or(0.0, |p| 1.0 / (p + 1) as f64);
            if std::env::var("DEBUG").is_ok() && recall(10) == 0.0 {
                println!("\nQ {q}");
                for e in &evidence {
                    if let Some(i) = ids.iter().position(|x| x == e) {
                        println!("  want {}", docs[i]);
                    }
                }
                for h in hits.iter().take(3) {
                    println!("  got  {:.2} {}", h.score, docs[h.doc]);
                }
            }
            r5 += recall(5);
            r10 += recall(10);
            mrr += rr;
            n += 1;
            let c = by_cat
                .entry(qa["category"].as_u64().unwrap_or(0))
                .or_default();
            c.0 += recall(10);
            c.1 += 1;
        }
    }
    let n_f = n as f64;
    println!(
        "questions {n}  R@5 {:.3}  R@10 {:.3}  MRR@10 {:.3}  build {:?}  query total {:?}",
        r5 / n_f,
        r10 / n_f,
        mrr / n_f,
        build,
        query
    );
    let mut cats: Vec<_> = by_cat.into_iter().collect();
    cats.sort_by_key(|c| c.0);
    for (c, (sum, count)) in cats {
        println!("  category {c}: R@10 {:.3} ({count})", sum / count as f64);
    }
}

/// `D:11:26` → `D11:26`, `D30:05` → `D30:5`, trimmed.
fn normalise(e: &str) -> String {
    let e = e.trim().replacen("D:", "D", 1);
    match e.split_once(':') {
        Some((s, t)) => format!("{s}:{}", t.trim_start_matches('0')),
        None => e,
    }
}
