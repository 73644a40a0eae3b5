//! Session-search recall on LoCoMo, natively: each LoCoMo session a session,
//! each turn a message, a day between sessions, the questions as queries;
//! recall@5, recall@10 and MRR@10 of the evidence turns (as
//! `examples/locomo.rs` does for note search). Measured twice: one store per
//! conversation (about 600 messages), and all ten conversations in one store
//! (5,882 messages, a hit counts only in the question's own conversation),
//! where leaving out common terms and the match budget weigh more.
//! Usage: `cargo run --release --example sessions_recall`
use std::collections::HashMap;

use mnemo::sessions::{Filter, Sessions};

#[path = "common/locomo.rs"]
mod locomo;

fn main() {
    let conversations = locomo::load(&locomo::path());
    for shared in [false, true] {
        let (mut r5, mut r10, mut mrr, mut n) = (0.0, 0.0, 0.0, 0usize);
        // R@10 and questions of the even conversations (where ranking
        // changes are tried) and of the odd ones (held out: only reported).
        let mut split = [(0.0, 0usize), (0.0, 0usize)];
        let mut db = Sessions::open_in_memory().expect("store");
        let mut ids = HashMap::new();
        let mut stores = Vec::new();
        for (c, conv) in conversations.iter().enumerate() {
            if !shared {
                db = Sessions::open_in_memory().expect("store");
                ids.clear();
            }
            for (i, t) in conv.turns.iter().enumerate() {
                let role = if t.speaker == conv.speaker_a {
                    "user"
                } else {
                    "assistant"
                };
                let session = format!("c{c}s{}", t.session);
                let time = t.session as i64 * 86_400_000 + i as i64 * 60_000;
                let seq = db
                    .append(&session, "locomo", role, &t.document, time)
                    .expect("append");
                ids.insert((session, seq), t.id.clone());
            }
            if !shared {
                let before = (r10, n);
                score(&db, &ids, c, conv, (&mut r5, &mut r10, &mut mrr, &mut n));
                split[c % 2].0 += r10 - before.0;
                split[c % 2].1 += n - before.1;
            } else {
                stores.push(c);
            }
        }
        if shared {
            for c in stores {
                let before = (r10, n);
                score(
                    &db,
                    &ids,
                    c,
                    &conversations[c],
                    (&mut r5, &mut r10, &mut mrr, &mut n),
                );
                split[c % 2].0 += r10 - before.0;
                split[c % 2].1 += n - before.1;
            }
        }
        let n_f = n as f64;
        println!(
            "{}: questions {n}  R@5 {:.3}  R@10 {:.3}  MRR@10 {:.3}  \
             (R@10 even conversations {:.3}, odd, held out {:.3})",
            if shared {
                "one store for all ten conversations"
            } else {
                "one store per conversation"
            },
            r5 / n_f,
            r10 / n_f,
            mrr / n_f,
            split[0].0 / split[0].1 as f64,
            split[1].0 / split[1].1 as f64
        );
    }
}

/// Adds conversation `c`'s questions to the sums.
fn score(
    db: &Sessions,
    ids: &HashMap<(String, i64), String>,
    c: usize,
    conv: &locomo::Conversation,
    (r5, r10, mrr, n): (&mut f64, &mut f64, &mut f64, &mut usize),
) {
    let prefix = format!("c{c}s");
    for q in conv.questions.iter().filter(|q| !q.evidence.is_empty()) {
        let hits = db.search(&q.text, &Filter::default(), 40).expect("search");
        let ranked: Vec<&str> = hits
            .iter()
            .filter(|h| h.session.starts_with(&prefix))
            .filter_map(|h| ids.get(&(h.session.clone(), h.seq)).map(String::as_str))
            .take(10)
            .collect();
        let (a, b, rr) = locomo::score(&q.evidence, &ranked);
        *r5 += a;
        *r10 += b;
        *mrr += rr;
        *n += 1;
    }
}
