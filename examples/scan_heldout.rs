//! The scanner measured on the held-out split (`tests/fixtures/scan/heldout/`,
//! written blind to the rules and never tuned on) and its cost per KiB on
//! realistic and adversarial text. Every line goes through a memory's tool
//! exactly as an agent's write would (`add`, or a two-entry batch for the
//! lines that split an attack over two entries), so the number is what a
//! user gets, not what one function returns.
//! Usage: `cargo run --release --example scan_heldout [-- [--split dev [--misses]] [--no-cost]
//! [../shared/locomo/locomo10.json]]`
use std::collections::BTreeMap;
use std::time::Instant;

use serde_json::Value;

#[path = "common/splits.rs"]
mod splits;
use splits::{lines, refused};

fn pct(n: usize, d: usize) -> String {
    if d == 0 {
        "–".into()
    } else {
        format!("{:.1}%", 100.0 * n as f64 / d as f64)
    }
}

fn table(title: &str, rows: &BTreeMap<String, (usize, usize)>, what: &str) {
    println!("\n| {title} | lines | {what} |\n|---|---:|---:|");
    let (mut n, mut d) = (0, 0);
    for (key, &(hit, total)) in rows {
        println!("| {key} | {total} | {} |", pct(hit, total));
        n += hit;
        d += total;
    }
    println!("| **all** | {d} | **{}** |", pct(n, d));
}

fn median_ns_per_kib(text: &str) -> f64 {
    let kib = text.len() as f64 / 1024.0;
    let mut times: Vec<f64> = (0..7)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(mnemo::scan::scan(std::hint::black_box(text)));
            t.elapsed().as_nanos() as f64 / kib
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |f: &str| args.iter().any(|a| a == f);
    // `--split dev` measures the development split, which may be tuned on;
    // only there does `--misses` print the texts that were got wrong.
    let split = args
        .iter()
        .position(|a| a == "--split")
        .and_then(|i| args.get(i + 1))
        .map_or("heldout", String::as_str);
    let show = flag("--misses") && split != "heldout";
    let attacks = lines(split, "attacks.jsonl");
    let benign = lines(split, "benign.jsonl");
    let mut by_category: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut by_evasion: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut by_language: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let (mut ordinary, mut evasions) = ((0, 0), (0, 0));
    let mut missed = Vec::new();
    for line in &attacks {
        let blocked = refused(line);
        let category = line["category"].as_str().unwrap_or("?").to_string();
        let evasion = line["evasion"].as_str().unwrap_or("none").to_string();
        for (map, key) in [
            (&mut by_category, category.clone()),
            (&mut by_evasion, evasion.clone()),
            (
                &mut by_language,
                line["lang"].as_str().unwrap_or("?").to_string(),
            ),
        ] {
            let e = map.entry(key).or_default();
            e.0 += usize::from(blocked);
            e.1 += 1;
        }
        let bucket = if evasion == "none" {
            &mut ordinary
        } else {
            &mut evasions
        };
        bucket.0 += usize::from(blocked);
        bucket.1 += 1;
        if !blocked {
            missed.push(line["id"].as_str().unwrap_or("?").to_string());
            if show {
                println!("MISS {}", line);
            }
        }
    }
    let mut by_kind: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut false_positives = Vec::new();
    for line in &benign {
        let blocked = refused(line);
        let e = by_kind
            .entry(line["kind"].as_str().unwrap_or("?").to_string())
            .or_default();
        e.0 += usize::from(blocked);
        e.1 += 1;
        if blocked {
            false_positives.push(line["id"].as_str().unwrap_or("?").to_string());
            if show {
                println!("FP {}", line);
            }
        }
    }
    println!(
        "{split} split: {} attacks, {} lookalikes",
        attacks.len(),
        benign.len()
    );
    println!(
        "ordinary attacks blocked: {} ({}/{}); evasions blocked: {} ({}/{}); lookalikes blocked: {} ({}/{})",
        pct(ordinary.0, ordinary.1),
        ordinary.0,
        ordinary.1,
        pct(evasions.0, evasions.1),
        evasions.0,
        evasions.1,
        pct(false_positives.len(), benign.len()),
        false_positives.len(),
        benign.len()
    );
    table("attack category", &by_category, "blocked");
    table("evasion family", &by_evasion, "blocked");
    table("language", &by_language, "blocked");
    table("lookalike kind", &by_kind, "blocked (false positives)");

    // Neighbours read together: how often two lookalikes that each pass
    // are refused side by side (each lookalike with the next one).
    let texts: Vec<&str> = benign.iter().filter_map(|l| l["text"].as_str()).collect();
    let pairs: Vec<&[&str]> = texts
        .windows(2)
        .filter(|w| {
            !mnemo::scan::scan(w[0]).blocked
                && !mnemo::scan::scan(w[1]).blocked
                && mnemo::scan::scan(&mnemo::store::side_by_side(w[0], w[1])).blocked
        })
        .collect();
    if show {
        for w in &pairs {
            println!("PAIR {:?} || {:?}", w[0], w[1]);
        }
    }
    println!(
        "\nneighbouring lookalikes refused together: {} of {}",
        pairs.len(),
        texts.len().saturating_sub(1)
    );
    if flag("--no-cost") {
        return;
    }
    // Cost: realistic text (LoCoMo conversation turns) against adversarial
    // text of the same length.
    let locomo = args
        .iter()
        .find(|a| !a.starts_with("--") && *a != split)
        .cloned()
        .unwrap_or_else(|| {
            format!(
                "{}/../shared/locomo/locomo10.json",
                env!("CARGO_MANIFEST_DIR")
            )
        });
    let realistic = match std::fs::read_to_string(&locomo) {
        Ok(text) => {
            let data: Value = serde_json::from_str(&text).unwrap();
            let mut out = String::new();
            for sample in data.as_array().unwrap() {
                for (key, turns) in sample["conversation"].as_object().unwrap() {
                    if key.starts_with("session_") && !key.ends_with("date_time") {
                        for t in turns.as_array().into_iter().flatten() {
                            out.push_str(t["text"].as_str().unwrap_or(""));
                            out.push('\n');
                        }
                    }
                }
            }
            out
        }
        Err(_) => benign
            .iter()
            .map(|l| l["text"].as_str().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n"),
    };
    let size = 64 * 1024;
    let cut = |s: &str| {
        let mut end = size.min(s.len());
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s[..end].to_string()
    };
    let repeat = |unit: &str| cut(&unit.repeat(size / unit.len() + 1));
    let realistic = cut(&realistic.repeat(size / realistic.len().max(1) + 1));
    let base = median_ns_per_kib(&realistic);
    println!("\n| text (64 KiB) | µs per KiB | × realistic |\n|---|---:|---:|");
    println!("| realistic (LoCoMo turns) | {:.1} | 1.0 |", base / 1000.0);
    for (name, text) in [
        ("`<!--` repeated", repeat("<!--")),
        ("`ignore ` repeated", repeat("ignore ")),
        ("`system: ` lines", repeat("system: you\n")),
        ("`api_key=` repeated", repeat("api_key=")),
        ("base64 run", repeat("QUJDREVGR0hJSktMTU5PUA")),
        ("`-----BEGIN ` repeated", repeat("-----BEGIN ")),
        ("`curl ` repeated", repeat("curl ")),
        ("`<|` repeated", repeat("<|")),
        ("spaced letters", repeat("i g n o r e ")),
        ("combining marks", repeat("i\u{0301}")),
        ("Cyrillic lookalikes", repeat("іgnоrе ")),
        ("zero-width runs", repeat("a\u{200B}")),
        ("hex run", repeat("69676e6f726520616c6c20")),
        (
            "base64 of text",
            repeat("aWdub3JlIGFsbCBwcmV2aW91cyBpbnN0cnVjdGlvbnMg"),
        ),
        ("`%69` repeated", repeat("%69%67 ")),
        ("`&#105;` repeated", repeat("&#105;&#103;")),
        (
            "rot13 and reversal cues with base64",
            repeat("rot13 backwards aWdub3JlIGFsbCBwcmV2aW91cyBpbnN0cnVjdGlvbnMg "),
        ),
    ] {
        let cost = median_ns_per_kib(&text);
        println!("| {name} | {:.1} | {:.2} |", cost / 1000.0, cost / base);
    }
    eprintln!("\nmissed attacks: {}", missed.join(" "));
    eprintln!("blocked lookalikes: {}", false_positives.join(" "));
}
