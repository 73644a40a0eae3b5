//! What the scanner costs per short note, natively: every note of a full
//! 120,000-char store (LoCoMo turns) and the attack and benign corpora
//! through `scan()`, as `bench/scan.mjs` measures in wasm.
//! Usage: `cargo run --release --example scan_notes [locomo10.json] [rounds]`
use std::time::Instant;

use mnemo::scan::scan;

#[path = "common/locomo.rs"]
mod locomo;

fn corpus(name: &str) -> Vec<String> {
    let path = format!("{}/tests/fixtures/scan/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["text"].as_str().unwrap().to_string()
        })
        .collect()
}

fn q(xs: &[f64], p: f64) -> f64 {
    xs[((p * xs.len() as f64) as usize).min(xs.len() - 1)]
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(2)
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let conversations = locomo::load(&locomo::path());
    let store = locomo::full_store(&conversations);
    let sets = [
        ("full store (LoCoMo turns)", store),
        ("attack corpus", corpus("attacks.jsonl")),
        ("benign lookalikes", corpus("benign.jsonl")),
    ];
    // The first scan builds the rules (lexicon, automata, patterns)…
    let t = Instant::now();
    scan("hello");
    let init = t.elapsed().as_secs_f64() * 1e3;
    // …and the first pass meets every word for the first time (a cold open).
    let t = Instant::now();
    for n in &sets[0].1 {
        scan(n);
    }
    let cold = t.elapsed().as_secs_f64() * 1e3;
    for (_, notes) in &sets {
        for n in notes {
            scan(n);
        }
    }
    println!("first scan (the rules built): {init:.2} ms; first pass over the full store: {cold:.2} ms\n");
    println!("| texts (native) | notes | per note p50 | per note p95 | all notes |");
    println!("|---|---:|---:|---:|---:|");
    for (name, notes) in &sets {
        let mut per = Vec::new();
        let mut totals = Vec::new();
        for _ in 0..rounds {
            let t0 = Instant::now();
            for n in notes {
                let t = Instant::now();
                std::hint::black_box(scan(std::hint::black_box(n)));
                per.push(t.elapsed().as_secs_f64() * 1e6);
            }
            totals.push(t0.elapsed().as_secs_f64() * 1e3);
        }
        per.sort_by(f64::total_cmp);
        totals.sort_by(f64::total_cmp);
        println!(
            "| {name} | {} | {:.1} µs | {:.1} µs | {:.2} ms |",
            notes.len(),
            q(&per, 0.5),
            q(&per, 0.95),
            q(&totals, 0.5)
        );
    }
}
