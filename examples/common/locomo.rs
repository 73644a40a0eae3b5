//! LoCoMo for the examples: loading, the document text of a turn, evidence
//! normalisation and the retrieval metrics (see ../shared/locomo/README.md).
#![allow(dead_code)]

use std::collections::HashSet;

use serde_json::Value;

/// One dialogue turn.
pub struct Turn {
    /// `D<session>:<turn>`.
    pub id: String,
    /// Who spoke.
    pub speaker: String,
    /// The document text: `speaker: text [image: caption]`.
    pub document: String,
    /// The LoCoMo session number, from 1.
    pub session: usize,
}

/// One question with its evidence turn ids (normalised, known ids only).
pub struct Question {
    pub text: String,
    pub evidence: Vec<String>,
    pub category: u64,
}

/// One conversation.
pub struct Conversation {
    pub speaker_a: String,
    pub turns: Vec<Turn>,
    pub questions: Vec<Question>,
}

/// The data file: the first command-line argument, else the shared copy.
pub fn path() -> String {
    std::env::args()
        .nth(1)
        .unwrap_or_else(|| "../shared/locomo/locomo10.json".into())
}

/// Loads every conversation of the file at `path`.
pub fn load(path: &str) -> Vec<Conversation> {
    let data: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("read LoCoMo"))
        .expect("parse LoCoMo");
    data.as_array()
        .expect("an array of conversations")
        .iter()
        .map(|sample| {
            let conv = &sample["conversation"];
            let mut turns = Vec::new();
            let mut s = 1;
            while let Some(list) = conv.get(format!("session_{s}")).and_then(Value::as_array) {
                for t in list {
                    let speaker = t["speaker"].as_str().unwrap_or("").to_string();
                    let mut document = format!("{speaker}: {}", t["text"].as_str().unwrap_or(""));
                    if let Some(c) = t.get("blip_caption").and_then(Value::as_str) {
                        document.push_str(&format!(" [image: {c}]"));
                    }
                    turns.push(Turn {
                        id: t["dia_id"].as_str().unwrap_or("").to_string(),
                        speaker,
                        document,
                        session: s,
                    });
                }
                s += 1;
            }
            let known: HashSet<&str> = turns.iter().map(|t| t.id.as_str()).collect();
            let questions = sample["qa"]
                .as_array()
                .expect("qa")
                .iter()
                .map(|qa| Question {
                    text: qa["question"].as_str().unwrap_or("").to_string(),
                    evidence: qa["evidence"]
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
                        .unwrap_or_default(),
                    category: qa["category"].as_u64().unwrap_or(0),
                })
                .collect();
            Conversation {
                speaker_a: conv["speaker_a"].as_str().unwrap_or("").to_string(),
                turns,
                questions,
            }
        })
        .collect()
}

/// `D:11:26` → `D11:26`, `D30:05` → `D30:5`, trimmed.
fn normalise(e: &str) -> String {
    let e = e.trim().replacen("D:", "D", 1);
    match e.split_once(':') {
        Some((s, t)) => format!("{s}:{}", t.trim_start_matches('0')),
        None => e,
    }
}

/// Recall@5, recall@10 and the reciprocal rank (within the top 10) of
/// `evidence` in `ranked`.
pub fn score(evidence: &[String], ranked: &[&str]) -> (f64, f64, f64) {
    let recall = |k: usize| {
        evidence
            .iter()
            .filter(|e| ranked.iter().take(k).any(|r| r == e))
            .count() as f64
            / evidence.len() as f64
    };
    let rr = ranked
        .iter()
        .take(10)
        .position(|r| evidence.iter().any(|e| e == r))
        .map_or(0.0, |p| 1.0 / (p + 1) as f64);
    (recall(5), recall(10), rr)
}

/// The first turns of `conversations` that fit a full 120,000-char store
/// (entries joined by the three-char separator).
pub fn full_store(conversations: &[Conversation]) -> Vec<String> {
    let mut store = Vec::new();
    let mut chars = 0;
    for turn in conversations.iter().flat_map(|c| &c.turns) {
        let add = turn.document.chars().count() + if store.is_empty() { 0 } else { 3 };
        if chars + add > 119_900 {
            break;
        }
        store.push(turn.document.clone());
        chars += add;
    }
    store
}
