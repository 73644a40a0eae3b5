//! Session-search recall on LoCoMo, natively: one session store per
//! conversation (each LoCoMo session a session, each turn a message, the
//! session dates as message times), the questions as queries; recall@5,
//! recall@10 and MRR@10 of the evidence turns (as `examples/locomo.rs` does
//! for note search). Usage: `cargo run --release --example sessions_recall`
use mnemo::sessions::{Filter, Sessions};
use serde_json::Value;

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "../shared/locomo/locomo10.json".into());
    let data: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("read data"))
        .expect("parse data");
    let (mut r5, mut r10, mut mrr, mut n) = (0.0, 0.0, 0.0, 0usize);
    for sample in data.as_array().expect("array") {
        let conv = &sample["conversation"];
        let mut db = Sessions::open_in_memory().expect("store");
        let mut ids = std::collections::HashMap::new();
        let mut s = 1;
        while let Some(turns) = conv.get(format!("session_{s}")).and_then(Value::as_array) {
            let a = conv["speaker_a"].as_str().unwrap_or("");
            for (i, t) in turns.iter().enumerate() {
                let speaker = t["speaker"].as_str().unwrap_or("");
                let mut text = format!("{speaker}: {}", t["text"].as_str().unwrap_or(""));
                if let Some(c) = t.get("blip_caption").and_then(Value::as_str) {
                    text.push_str(&format!(" [image: {c}]"));
                }
                let role = if speaker == a { "user" } else { "assistant" };
                // Sessions a day apart, turns a minute apart.
                let time = s as i64 * 86_400_000 + i as i64 * 60_000;
                let seq = db
                    .append(&format!("s{s}"), "locomo", role, &text, time)
                    .expect("append");
                ids.insert(
                    (format!("s{s}"), seq),
                    t["dia_id"].as_str().unwrap_or("").to_string(),
                );
            }
            s += 1;
        }
        let known: std::collections::HashSet<&String> = ids.values().collect();
        for qa in sample["qa"].as_array().expect("qa") {
            let evidence: Vec<String> = qa["evidence"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .flat_map(|e| e.split(|c: char| c == ';' || c.is_whitespace()))
                        .filter(|e| !e.is_empty())
                        .map(normalise)
                        .filter(|e| known.contains(e))
                        .collect()
                })
                .unwrap_or_default();
            if evidence.is_empty() {
                continue;
            }
            let hits = db
                .search(
                    qa["question"].as_str().unwrap_or(""),
                    &Filter::default(),
                    10,
                )
                .expect("search");
            let ranked: Vec<&String> = hits
                .iter()
                .filter_map(|h| ids.get(&(h.session.clone(), h.seq)))
                .collect();
            let recall = |k: usize| {
                evidence
                    .iter()
                    .filter(|e| ranked.iter().take(k).any(|r| r == e))
                    .count() as f64
                    / evidence.len() as f64
            };
            r5 += recall(5);
            r10 += recall(10);
            mrr += ranked
                .iter()
                .position(|r| evidence.contains(r))
                .map_or(0.0, |p| 1.0 / (p + 1) as f64);
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

/// `D:11:26` → `D11:26`, `D30:05` → `D30:5`, trimmed.
fn normalise(e: &str) -> String {
    let e = e.trim().replacen("D:", "D", 1);
    match e.split_once(':') {
        Some((s, t)) => format!("{s}:{}", t.trim_start_matches('0')),
        None => e,
    }
}
