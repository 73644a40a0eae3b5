//! Session search over 100,000 messages, natively: append throughput and
//! discovery latency p50/p95 (the spec's budget: p95 under 20 ms). The
//! messages are LoCoMo turns (cycled, numbered so every one is distinct),
//! one session per LoCoMo session; the queries are the LoCoMo questions.
//! Usage: `cargo run --release --example sessions_bench [-- ../shared/locomo/locomo10.json]`
use std::time::Instant;

use mnemo::sessions::{Filter, Sessions};

#[path = "common/locomo.rs"]
mod locomo;

fn main() {
    let conversations = locomo::load(&locomo::path());
    let turns: Vec<&str> = conversations
        .iter()
        .flat_map(|c| c.turns.iter().map(|t| t.document.as_str()))
        .collect();
    let questions: Vec<&str> = conversations
        .iter()
        .flat_map(|c| c.questions.iter().map(|q| q.text.as_str()))
        .collect();
    let dir = std::env::temp_dir().join(format!("mnemo-sessions-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db_path = dir.join("state.db");
    let mut db = Sessions::open(&db_path).unwrap();
    let total = 100_000;
    let t0 = Instant::now();
    let mut appends = Vec::with_capacity(total);
    for i in 0..total {
        let text = turns[i % turns.len()];
        let session = format!("s{}", i / 50);
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        let a = Instant::now();
        db.append(
            &session,
            "bench",
            role,
            &format!("{text} ({i})"),
            i as i64 * 60_000,
        )
        .unwrap();
        appends.push(a.elapsed().as_secs_f64() * 1e3);
    }
    let build = t0.elapsed();
    let mut lat = Vec::new();
    for q in questions.iter().take(100) {
        db.search(q, &Filter::default(), 10).unwrap(); // warm-up
    }
    for q in &questions {
        let a = Instant::now();
        let hits = db.search(q, &Filter::default(), 10).unwrap();
        std::hint::black_box(hits);
        lat.push(a.elapsed().as_secs_f64() * 1e3);
    }
    let mut scroll = Vec::new();
    for i in 0..1000 {
        let a = Instant::now();
        db.scroll(&format!("s{}", i * 2), 25, 5, 5).unwrap();
        scroll.push(a.elapsed().as_secs_f64() * 1e3);
    }
    let q = |xs: &mut Vec<f64>, p: f64| {
        xs.sort_by(f64::total_cmp);
        xs[((xs.len() as f64 * p) as usize).min(xs.len() - 1)]
    };
    let size = std::fs::metadata(&db_path).map(|m| m.len()).unwrap_or(0)
        + std::fs::metadata(dir.join("state.db-wal"))
            .map(|m| m.len())
            .unwrap_or(0);
    println!("| operation | n | p50 | p95 |");
    println!("|---|---:|---:|---:|");
    println!(
        "| append one message (own transaction) | {total} | {:.3} ms | {:.3} ms |",
        q(&mut appends, 0.5),
        q(&mut appends, 0.95)
    );
    println!(
        "| discovery over 100,000 messages (LoCoMo questions, top 10) | {} | {:.2} ms | {:.2} ms |",
        lat.len(),
        q(&mut lat, 0.5),
        q(&mut lat, 0.95)
    );
    println!(
        "| scroll (11 messages around one) | 1000 | {:.3} ms | {:.3} ms |",
        q(&mut scroll, 0.5),
        q(&mut scroll, 0.95)
    );
    println!();
    println!(
        "appending all {total} took {:.1} s; state.db is {:.1} MiB",
        build.as_secs_f64(),
        size as f64 / 1048576.0
    );
    let _ = std::fs::remove_dir_all(&dir);
}
