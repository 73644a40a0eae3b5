//! Trains the scanner's learned layer (`src/scan/model.bin`) from the
//! development split and the project corpus, choosing its hyperparameters
//! and threshold by leave-one-round-out cross-validation (see
//! `examples/common/scan_model.rs`).
//! Usage: `cargo run --release --example scan_train [-- --check]
//! [-- --locomo [path]]`: `--check` fails unless `model.bin` is exactly
//! what training produces; `--locomo` also counts the LoCoMo turns, alone
//! and side by side with their neighbour, the trained model would add over
//! the rules.
use mnemo::scan::model::Model;
use serde_json::Value;

#[path = "common/scan_model.rs"]
mod scan_model;

fn pct((n, d): (usize, usize)) -> String {
    format!("{:.1}% ({n}/{d})", 100.0 * n as f64 / d.max(1) as f64)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = format!("{}/src/scan/model.bin", env!("CARGO_MANIFEST_DIR"));
    let data = scan_model::examples();
    let with = data.iter().filter(|e| e.features.is_some()).count();
    println!(
        "{} lines, {with} with a near-miss; of those the rules let through: {} attacks, {} lookalikes",
        data.len(),
        data.iter()
            .filter(|e| e.features.is_some() && !e.rules && e.attack)
            .count(),
        data.iter()
            .filter(|e| e.features.is_some() && !e.rules && !e.attack)
            .count(),
    );
    let explore = |p: scan_model::Params, bytes: &[u8]| {
        print!("  {p:?} on all: ");
        locomo(
            &format!(
                "{}/../shared/locomo/locomo10.json",
                env!("CARGO_MANIFEST_DIR")
            ),
            bytes,
        );
    };
    let hook: scan_model::Hook = if std::env::var_os("SCAN_TRAIN_EXPLORE").is_some() {
        Some(&explore)
    } else {
        None
    };
    let t = scan_model::run(&data, hook);
    let [o, e, b] = t.rules_only;
    println!(
        "dev, rules alone: ordinary {}, evasions {}, lookalikes {}",
        pct(o),
        pct(e),
        pct(b)
    );
    for (p, th, [o, e, b]) in &t.report {
        println!(
            "dev CV {p:?} threshold {th:.4}: ordinary {}, evasions {}, lookalikes {}",
            pct(*o),
            pct(*e),
            pct(*b)
        );
    }
    let [o, e, b] = t.chosen;
    println!(
        "chosen: {:?}, threshold {:.4} (the chat floor {:.4} applied): dev CV ordinary {}, evasions {}, lookalikes {}",
        t.params,
        t.threshold,
        t.chat_floor,
        pct(o),
        pct(e),
        pct(b)
    );
    if let Some(i) = args.iter().position(|a| a == "--locomo") {
        let file = args.get(i + 1).cloned().unwrap_or_else(|| {
            format!(
                "{}/../shared/locomo/locomo10.json",
                env!("CARGO_MANIFEST_DIR")
            )
        });
        locomo(&file, &t.bytes);
        pairs(&t.bytes);
    }
    let size = t.bytes.len();
    if args.iter().any(|a| a == "--check") {
        let now = std::fs::read(&path).unwrap_or_default();
        if now != t.bytes {
            eprintln!("{path} is not what the trainer produces: run `cargo run --release --example scan_train`");
            std::process::exit(1);
        }
        println!("{path} is what the trainer produces ({size} bytes)");
    } else {
        std::fs::write(&path, &t.bytes).unwrap();
        println!("wrote {path} ({size} bytes)");
    }
}

/// LoCoMo's turns (`speaker: text`) the model would add over the rules.
fn locomo(file: &str, bytes: &[u8]) {
    let data: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let m = Model::parse(bytes).unwrap();
    let (mut turns, mut rules, mut added) = (0, 0, 0);
    let mut scores: Vec<f32> = Vec::new();
    let mut top: Vec<(f32, String)> = Vec::new();
    for sample in data.as_array().unwrap() {
        for (key, list) in sample["conversation"].as_object().unwrap() {
            if !key.starts_with("session_") || key.ends_with("date_time") {
                continue;
            }
            for turn in list.as_array().into_iter().flatten() {
                let text = format!(
                    "{}: {}",
                    turn["speaker"].as_str().unwrap_or(""),
                    turn["text"].as_str().unwrap_or("")
                );
                turns += 1;
                let (v, input) = mnemo::scan::learned_input(&text);
                if v.blocked {
                    rules += 1;
                } else if let Some(input) = input {
                    let s = m.score(&input.features);
                    added += usize::from(s >= m.threshold());
                    scores.push(s);
                    top.push((s, text.clone()));
                }
            }
        }
    }
    scores.sort_by(|a, b| b.total_cmp(a));
    top.sort_by(|a, b| b.0.total_cmp(&a.0));
    if std::env::var_os("SCAN_TRAIN_SHOW").is_some() {
        for (s, t) in top.iter().take(40) {
            println!("{s:.3} {t}");
        }
    }
    println!(
        "LoCoMo: {turns} turns; rules block {rules}; the model adds {added}; \
         a threshold above {:.4} adds at most three (top scores {:?})",
        scores.get(3).copied().unwrap_or(f32::NEG_INFINITY),
        &scores[..scores.len().min(8)]
    );
}

/// Neighbouring LoCoMo turns read side by side (as a store's neighbours
/// are): how many pairs the model blocks over the rules, in the
/// conversations it trained on (even) and in the others (odd).
fn pairs(bytes: &[u8]) {
    let m = Model::parse(bytes).unwrap();
    for parity in [0, 1] {
        let turns = scan_model::chat_turns(parity);
        let mut s: Vec<(f32, String)> = Vec::new();
        for w in turns.windows(2) {
            let joined = mnemo::store::side_by_side(&w[0], &w[1]);
            let (v, input) = mnemo::scan::learned_input(&joined);
            if v.blocked {
                continue;
            }
            if let Some(i) = input {
                s.push((m.score(&i.features), joined));
            }
        }
        s.sort_by(|a, b| b.0.total_cmp(&a.0));
        let n = s.iter().filter(|x| x.0 >= m.threshold()).count();
        let top: Vec<f32> = s.iter().take(6).map(|x| x.0).collect();
        let which = ["even (trained on)", "odd (never trained on)"][parity];
        println!(
            "LoCoMo pairs, {which} conversations: {} turns, the model adds {n}; top scores {top:?}",
            turns.len()
        );
    }
}
