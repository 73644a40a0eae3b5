//! Trains the scanner's learned layer (`src/scan/model.bin`) from the
//! development split and the project corpus, choosing its hyperparameters
//! and threshold by leave-one-round-out cross-validation (see
//! `examples/common/scan_model.rs`).
//! Usage: `cargo run --release --example scan_train [-- --check]
//! [-- --locomo]`: `--check` fails unless `model.bin` is exactly what
//! training produces; `--locomo` also counts the LoCoMo turns (from
//! `../shared/locomo/locomo10.json`), alone and side by side with their
//! neighbour, the trained model would block over the rules.
use mnemo::scan::model::Model;

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
        println!("  {p:?} on all:");
        chat(bytes);
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
        "chosen: {:?}, threshold {:.4} (the chat and notes floor {:.4} applied): dev CV ordinary {}, evasions {}, lookalikes {}",
        t.params,
        t.threshold,
        t.floor,
        pct(o),
        pct(e),
        pct(b)
    );
    if args.iter().any(|a| a == "--locomo") {
        chat(&t.bytes);
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

/// LoCoMo's turns the model would block over the rules, in the
/// conversations it trained on (even) and in the others (odd): each turn
/// alone, and each beside the one before (as a store's neighbours are
/// read). `SCAN_TRAIN_SHOW=1` prints the highest-scored texts.
fn chat(bytes: &[u8]) {
    let m = Model::parse(bytes).unwrap();
    for parity in [0, 1] {
        let turns = scan_model::chat_turns(parity);
        let pairs: Vec<String> = turns
            .windows(2)
            .map(|w| mnemo::store::side_by_side(&w[0], &w[1]))
            .collect();
        let which = ["even (trained on)", "odd (never trained on)"][parity];
        for (what, texts) in [("turns", &turns), ("pairs", &pairs)] {
            let mut rules = 0;
            let mut scored: Vec<(f32, &str)> = Vec::new();
            for text in texts {
                let (v, input) = mnemo::scan::learned_input(text);
                if v.blocked {
                    rules += 1;
                } else if let Some(input) = input {
                    scored.push((m.score(&input.features), text));
                }
            }
            scored.sort_by(|a, b| b.0.total_cmp(&a.0));
            let added = scored.iter().filter(|x| x.0 >= m.threshold()).count();
            let top: Vec<f32> = scored.iter().take(6).map(|x| x.0).collect();
            println!(
                "LoCoMo {which}: {} {what}; rules block {rules}; the model adds {added}; top scores {top:?}",
                texts.len()
            );
            if std::env::var_os("SCAN_TRAIN_SHOW").is_some() {
                for (s, t) in scored.iter().take(20) {
                    println!("  {s:.3} {t}");
                }
            }
        }
    }
}
