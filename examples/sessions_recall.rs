//! Session-search recall on LoCoMo, natively: one session store per
//! conversation (each LoCoMo session a session, each turn a message, a day
//! between sessions), the questions as queries; recall@5, recall@10 and
//! MRR@10 of the evidence turns (as `examples/locomo.rs` does for note
//! search). Usage: `cargo run --release --example sessions_recall`
use std::collections::HashMap;

use mnemo::sessions::{Filter, Sessions};

#[path = "common/locomo.rs"]
mod locomo;

fn main() {
    let (mut r5, mut r10, mut mrr, mut n) = (0.0, 0.0, 0.0, 0usize);
    for conv in locomo::load(&locomo::path()) {
        let mut db = Sessions::open_in_memory().expect("store");
        let mut ids = HashMap::new();
        for (i, t) in conv.turns.iter().enumerate() {
            let role = if t.speaker == conv.speaker_a {
                "user"
            } else {
                "assistant"
            };
            let session = format!("s{}", t.session);
            let time = t.session as i64 * 86_400_000 + i as i64 * 60_000;
            let seq = db
                .append(&session, "locomo", role, &t.document, time)
                .expect("append");
            ids.insert((session, seq), t.id.as_str());
        }
        for q in conv.questions.iter().filter(|q| !q.evidence.is_empty()) {
            let hits = db.search(&q.text, &Filter::default(), 10).expect("search");
            let ranked: Vec<&str> = hits
                .iter()
                .filter_map(|h| ids.get(&(h.session.clone(), h.seq)).copied())
                .collect();
            let (a, b, rr) = locomo::score(&q.evidence, &ranked);
            r5 += a;
            r10 += b;
            mrr += rr;
            n += 1;
        }
    }
    let n_f = n as f64;
    println!(
        "questions {n}  R@5 {:.3}  R@10 {:.3}  MRR@10 {:.3}",
        r5 / n_f,
        r10 / n_f,
        mrr / n_f
    );
}
