//! The scanner's learned layer, trained: shared by the `scan_train`
//! example (which writes `src/scan/model.bin`) and `tests/scan_model.rs`
//! (which checks that the file is what this produces).
//!
//! Data: the development split (`tests/fixtures/scan/dev/`, its rounds),
//! the project corpus (`tests/fixtures/scan/attacks.jsonl`,
//! `benign.jsonl`), as ordinary chat the turns of LoCoMo's even-numbered
//! conversations, and the even-numbered ordinary notes
//! (`tests/fixtures/scan/notes/`); never the held-out split. Hyperparameters
//! and the threshold are chosen by leave-one-round-out cross-validation on
//! the development split (the corpus and the chat stay in every training
//! fold); the threshold is then raised until the model adds at most
//! [`CHAT_CAP`] blocked turns of LoCoMo's odd-numbered conversations and
//! [`NOTES_CAP`] blocked odd-numbered ordinary notes, neither of which it
//! trains on.
//! Deterministic: a fixed seed, one thread, f64 arithmetic in a fixed
//! order, weights quantised to i16.
#![allow(dead_code)]

use mnemo::scan::model::{norm, Model, BUCKETS};
use serde_json::Value;

/// One labelled line, as the scanner reads it.
pub struct Example {
    /// 0: the project corpus and the chat; 1 on: the development split's
    /// rounds.
    pub round: u8,
    pub attack: bool,
    pub evasion: bool,
    pub id: String,
    /// Whether the rules alone refuse it.
    pub rules: bool,
    /// The learned layer's features (none: no near-miss).
    pub features: Option<Vec<u32>>,
}

fn root() -> String {
    format!("{}/tests/fixtures/scan", env!("CARGO_MANIFEST_DIR"))
}

fn read_lines(path: &str) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// The rules' verdict and the model's input for a line (one text, or two
/// parts written in one batch: each part and the two side by side).
pub fn example(line: &Value, round: u8, attack: bool) -> Example {
    let (rules, features) = match line.get("parts") {
        Some(Value::Array(parts)) => {
            let texts: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
            let joined = mnemo::store::side_by_side(texts[0], texts[1]);
            let (v, input) = mnemo::scan::learned_input(&joined);
            let rules = v.blocked || texts.iter().any(|t| mnemo::scan::rules_verdict(t).blocked);
            (rules, input)
        }
        _ => {
            let (v, input) = mnemo::scan::learned_input(line["text"].as_str().unwrap_or(""));
            (v.blocked, input)
        }
    };
    Example {
        round,
        attack,
        evasion: line["evasion"].as_str().is_some_and(|e| e != "none"),
        id: line["id"].as_str().unwrap_or("?").to_string(),
        rules,
        features: features.map(|i| i.features),
    }
}

/// LoCoMo's conversation file (`../shared/locomo/locomo10.json`).
pub fn locomo_file() -> String {
    format!(
        "{}/../shared/locomo/locomo10.json",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The turns (`speaker: text`) of LoCoMo's conversations whose index has
/// the given parity (0: even, 1: odd); empty if the file is missing.
pub fn chat_turns(parity: usize) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(locomo_file()) else {
        return Vec::new();
    };
    let data: Value = serde_json::from_str(&text).expect("LoCoMo's JSON");
    let mut out = Vec::new();
    for sample in data.as_array().unwrap().iter().skip(parity).step_by(2) {
        for (key, list) in sample["conversation"].as_object().unwrap() {
            if !key.starts_with("session_") || key.ends_with("date_time") {
                continue;
            }
            for turn in list.as_array().into_iter().flatten() {
                out.push(format!(
                    "{}: {}",
                    turn["speaker"].as_str().unwrap_or(""),
                    turn["text"].as_str().unwrap_or("")
                ));
            }
        }
    }
    out
}

/// The ordinary notes (`tests/fixtures/scan/notes/`, the everyday bulk of
/// what agents save, none of it written to look like an attack) whose
/// line number has the given parity: the even ones are training data (as
/// lookalikes of round 0), the odd ones, never trained on, cap the
/// threshold ([`NOTES_CAP`]).
pub fn notes(parity: usize) -> Vec<String> {
    let dir = format!("{}/notes", root());
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".jsonl"))
        .collect();
    files.sort();
    files
        .iter()
        .flat_map(|f| read_lines(f))
        .enumerate()
        .filter(|(i, _)| i % 2 == parity)
        .map(|(_, l)| l["text"].as_str().unwrap_or("").to_string())
        .collect()
}

/// Every line of the corpus and the development split, and the chat turns
/// of LoCoMo's even-numbered conversations and the even-numbered ordinary
/// notes (as lookalikes of round 0).
pub fn examples() -> Vec<Example> {
    let mut out = Vec::new();
    let chat = chat_turns(0).into_iter().map(|t| ("chat", t));
    let notes = notes(0).into_iter().map(|t| ("note", t));
    for (i, (kind, text)) in chat.chain(notes).enumerate() {
        let (v, input) = mnemo::scan::learned_input(&text);
        out.push(Example {
            round: 0,
            attack: false,
            evasion: false,
            id: format!("{kind}-{i}"),
            rules: v.blocked,
            features: input.map(|i| i.features),
        });
    }
    for (file, attack) in [("attacks.jsonl", true), ("benign.jsonl", false)] {
        for line in read_lines(&format!("{}/{file}", root())) {
            out.push(example(&line, 0, attack));
        }
    }
    let dir = format!("{}/dev", root());
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".jsonl"))
        .collect();
    files.sort();
    for name in files {
        // `en-attacks.jsonl` is round 1, `ru3-benign.jsonl` round 3.
        let stem = name.split('-').next().unwrap();
        let round = stem
            .trim_start_matches(|c: char| c.is_ascii_alphabetic())
            .parse()
            .unwrap_or(1);
        let attack = name.ends_with("attacks.jsonl");
        for line in read_lines(&format!("{dir}/{name}")) {
            out.push(example(&line, round, attack));
        }
    }
    out
}

/// The trainer's hyperparameters.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub epochs: u32,
    pub rate: f64,
    pub l2: f64,
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// Logistic regression by stochastic gradient descent over the examples
/// that have features; returns the model file's bytes (threshold given).
pub fn train(data: &[&Example], p: Params, threshold: f32) -> Vec<u8> {
    let set: Vec<(&[u32], f64)> = data
        .iter()
        .filter_map(|e| {
            e.features
                .as_deref()
                .map(|f| (f, if e.attack { 1.0 } else { 0.0 }))
        })
        .collect();
    let mut w = vec![0.0f64; BUCKETS];
    let mut b = 0.0f64;
    let mut order: Vec<usize> = (0..set.len()).collect();
    let mut seed: u64 = 0x005E_ED0F_5CA7;
    for epoch in 0..p.epochs {
        // Fisher–Yates with xorshift.
        for i in (1..order.len()).rev() {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            order.swap(i, (seed % (i as u64 + 1)) as usize);
        }
        let rate = p.rate / (1.0 + f64::from(epoch) * 0.2);
        for &k in &order {
            let (f, y) = set[k];
            let s = f64::from(norm(f.len()));
            let z = b + f.iter().map(|&i| w[i as usize]).sum::<f64>() * s;
            let g = sigmoid(z) - y;
            b -= rate * g;
            for &i in f {
                let wi = &mut w[i as usize];
                *wi -= rate * (g * s + p.l2 * *wi);
            }
        }
    }
    let max = w.iter().fold(0.0f64, |m, x| m.max(x.abs())).max(1e-9);
    let scale = max / f64::from(LEVELS);
    let mut out = Vec::with_capacity(24 + BUCKETS);
    out.extend_from_slice(b"MNSM");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(BUCKETS as u32).to_le_bytes());
    out.extend_from_slice(&(scale as f32).to_le_bytes());
    out.extend_from_slice(&(b as f32).to_le_bytes());
    out.extend_from_slice(&threshold.to_le_bytes());
    for x in &w {
        out.push((x / scale).round() as i8 as u8);
    }
    out
}

/// Steps each way a weight is quantised to: with 31 the
/// cross-validation blocked as many attacks as with 127 (two evasions
/// more of 8,410 attacks; 15 steps blocked eighteen fewer), and the file
/// gzips to three quarters of the bytes.
const LEVELS: i8 = 31;

/// `bytes` (a model [`train`] wrote) with its threshold set to `t`: the
/// weights do not depend on it.
fn with_threshold(mut bytes: Vec<u8>, t: f32) -> Vec<u8> {
    bytes[20..24].copy_from_slice(&t.to_le_bytes());
    bytes
}

/// Out-of-fold scores: each development round scored by a model trained
/// on the others and the corpus. `None` for a line without features.
pub fn cross_validate(data: &[Example], p: Params) -> Vec<Option<f32>> {
    let mut scores = vec![None; data.len()];
    let rounds = data.iter().map(|e| e.round).max().unwrap_or(0);
    for fold in 1..=rounds {
        let train_on: Vec<&Example> = data.iter().filter(|e| e.round != fold).collect();
        let bytes = train(&train_on, p, 0.0);
        let m = Model::parse(&bytes).unwrap();
        for (i, e) in data.iter().enumerate() {
            if e.round == fold {
                scores[i] = e.features.as_deref().map(|f| m.score(f));
            }
        }
    }
    scores
}

/// Blocked counts on the development split at a threshold: (ordinary
/// attacks, evasions, lookalikes) blocked, and their totals.
pub fn counts(data: &[Example], scores: &[Option<f32>], t: f32) -> [(usize, usize); 3] {
    let mut c = [(0, 0); 3];
    for (e, s) in data.iter().zip(scores) {
        if e.round == 0 {
            continue;
        }
        let k = match (e.attack, e.evasion) {
            (true, false) => 0,
            (true, true) => 1,
            _ => 2,
        };
        let blocked = e.rules || s.is_some_and(|s| s >= t);
        c[k].0 += usize::from(blocked);
        c[k].1 += 1;
    }
    c
}

/// Lookalikes of the development split the learned layer may add, out of
/// fold: one in 500.
pub const FP_BUDGET_PER_MILLE: usize = 2;

/// The lowest threshold at which the out-of-fold lookalikes the model adds
/// stay within the budget.
pub fn threshold(data: &[Example], scores: &[Option<f32>]) -> f32 {
    let benign = data.iter().filter(|e| e.round > 0 && !e.attack).count();
    let budget = benign * FP_BUDGET_PER_MILLE / 1000;
    let mut added: Vec<f32> = data
        .iter()
        .zip(scores)
        .filter(|(e, _)| e.round > 0 && !e.attack && !e.rules)
        .filter_map(|(_, s)| *s)
        .collect();
    added.sort_by(|a, b| b.total_cmp(a));
    // Just above the (budget+1)-th highest lookalike score.
    added.get(budget).map_or(0.0, |s| next_up(*s))
}

fn next_up(x: f32) -> f32 {
    if x >= 0.0 {
        f32::from_bits(x.to_bits() + 1)
    } else {
        f32::from_bits(x.to_bits() - 1)
    }
}

/// The hyperparameters tried, in order.
pub const GRID: [Params; 5] = [
    Params {
        epochs: 12,
        rate: 0.5,
        l2: 1e-5,
    },
    Params {
        epochs: 30,
        rate: 0.5,
        l2: 1e-5,
    },
    Params {
        epochs: 30,
        rate: 0.5,
        l2: 1e-4,
    },
    Params {
        epochs: 30,
        rate: 1.0,
        l2: 3e-4,
    },
    Params {
        epochs: 30,
        rate: 1.0,
        l2: 1e-3,
    },
];

/// Turns of LoCoMo's odd-numbered conversations (2,922, never trained on)
/// the learned layer may block over the rules: ordinary chat read as an
/// order is the failure a memory's sessions cannot afford.
pub const CHAT_CAP: usize = 1;

/// Odd-numbered ordinary notes (600, never trained on) the learned layer
/// may block over the rules: none. A memory that refuses everyday notes
/// ("Follow [[style-guide]] for every PR description.") teaches its users
/// to turn it off.
pub const NOTES_CAP: usize = 0;

/// The lowest threshold at which the model (`bytes`) adds at most
/// [`NOTES_CAP`] blocked notes of the odd-numbered ordinary notes.
pub fn notes_floor(bytes: &[u8]) -> f32 {
    let m = Model::parse(bytes).unwrap();
    cap_floor(&m, &notes(1), NOTES_CAP)
}

/// The lowest threshold at which the model (`bytes`) adds at most
/// [`CHAT_CAP`] blocked turns of the odd-numbered conversations, read
/// alone and each beside the one before (as a store's neighbours are);
/// and how many turns it read (0: LoCoMo is missing, no cap).
pub fn chat_floor(bytes: &[u8]) -> (f32, usize) {
    let m = Model::parse(bytes).unwrap();
    let turns = chat_turns(1);
    let pairs: Vec<String> = turns
        .windows(2)
        .map(|w| mnemo::store::side_by_side(&w[0], &w[1]))
        .collect();
    let floor = cap_floor(&m, &turns, CHAT_CAP).max(cap_floor(&m, &pairs, CHAT_CAP));
    (floor, turns.len())
}

/// The lowest threshold at which `m` blocks at most `cap` of `texts` that
/// the rules let through.
fn cap_floor(m: &Model, texts: &[String], cap: usize) -> f32 {
    let mut scores: Vec<f32> = texts
        .iter()
        .filter_map(|t| {
            let (v, input) = mnemo::scan::learned_input(t);
            (!v.blocked).then_some(input).flatten()
        })
        .map(|i| m.score(&i.features))
        .collect();
    scores.sort_by(|a, b| b.total_cmp(a));
    scores.get(cap).map_or(f32::NEG_INFINITY, |s| next_up(*s))
}

/// Blocked and total: ordinary attacks, evasions, lookalikes.
pub type Counts = [(usize, usize); 3];

/// Called with each grid entry's model trained on everything (to explore).
pub type Hook<'a> = Option<&'a dyn Fn(Params, &[u8])>;

/// What the trainer settles on.
pub struct Trained {
    pub bytes: Vec<u8>,
    pub params: Params,
    /// The threshold: the cross-validated one, raised to the floors.
    pub threshold: f32,
    /// The higher of the chat floor ([`chat_floor`]) and the notes floor
    /// ([`notes_floor`]) of the model trained on everything.
    pub floor: f32,
    /// Per grid entry: its cross-validated threshold and counts there.
    pub report: Vec<(Params, f32, Counts)>,
    /// The chosen entry's cross-validated counts at the final threshold.
    pub chosen: [(usize, usize); 3],
    pub rules_only: [(usize, usize); 3],
}

/// How many bytes `bytes` would take at their order-0 entropy: a proxy
/// for what the model file adds to the gzipped wasm.
fn entropy_size(bytes: &[u8]) -> f64 {
    let mut freq = [0usize; 256];
    bytes.iter().for_each(|&b| freq[b as usize] += 1);
    let n = bytes.len() as f64;
    let bits: f64 = freq
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| -(c as f64) * (c as f64 / n).log2())
        .sum();
    bits / 8.0
}

/// Cross-validates the grid and, for each entry, raises its threshold to
/// the chat and notes floors of that entry trained on everything; picks the entry
/// that blocks most attacks there within the lookalike budget. Entries
/// within a thousandth of the attacks of the best are a tie (the
/// cross-validation's noise is larger), broken by the smaller file once
/// compressed.
pub fn run(data: &[Example], hook: Hook) -> Trained {
    let none = vec![None; data.len()];
    let rules_only = counts(data, &none, 0.0);
    let all: Vec<&Example> = data.iter().collect();
    let mut report = Vec::new();
    // Each entry: attacks caught, params, threshold, chat floor, its
    // out-of-fold scores and the model trained on everything.
    type Entry = (usize, Params, f32, f32, Vec<Option<f32>>, Vec<u8>);
    let mut entries: Vec<Entry> = Vec::new();
    for p in GRID {
        let scores = cross_validate(data, p);
        let t = threshold(data, &scores);
        let bytes = train(&all, p, t);
        let (chat, _) = chat_floor(&bytes);
        let floor = chat.max(notes_floor(&bytes));
        let t = t.max(floor);
        let bytes = with_threshold(bytes, t);
        let c = counts(data, &scores, t);
        report.push((p, t, c));
        if let Some(hook) = &hook {
            hook(p, &bytes);
        }
        entries.push((c[0].0 + c[1].0, p, t, floor, scores, bytes));
    }
    let most = entries.iter().map(|e| e.0).max().unwrap_or(0);
    let attacks = data.iter().filter(|e| e.attack).count();
    let (_, params, threshold, floor, best_scores, best_bytes) = entries
        .into_iter()
        .filter(|e| (most - e.0) * 1000 <= attacks)
        .min_by(|a, b| entropy_size(&a.5).total_cmp(&entropy_size(&b.5)))
        .expect("a grid entry");
    Trained {
        bytes: best_bytes,
        params,
        threshold,
        floor,
        report,
        chosen: counts(data, &best_scores, threshold),
        rules_only,
    }
}
