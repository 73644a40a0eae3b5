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

fn median_ns_per_kib(text: &str, scan: fn(&str) -> mnemo::scan::Verdict) -> f64 {
    let kib = text.len() as f64 / 1024.0;
    let mut times: Vec<f64> = (0..7)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(scan(std::hint::black_box(text)));
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
    // only there does `--misses` print the texts that were got wrong ("MISS",
    // "FP"; the rules alone's as "RMISS", "RFP").
    let split = args
        .iter()
        .position(|a| a == "--split")
        .and_then(|i| args.get(i + 1))
        .map_or("heldout", String::as_str);
    let show = flag("--misses") && split != "heldout";
    let attacks = lines(split, "attacks.jsonl");
    let benign = lines(split, "benign.jsonl");
    // `--cost-only`: the cost table alone, no split measured.
    if flag("--cost-only") {
        cost(&args, split, &benign);
        return;
    }
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
        // The rules alone's misses too, as "RMISS" lines.
        if show && !rules_refused(line) {
            println!("RMISS {}", line);
        }
    }
    let mut by_kind: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut false_positives = Vec::new();
    let mut by_design = 0;
    for line in &benign {
        let blocked = refused(line);
        by_design += usize::from(blocked && splits::mandated(line));
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
        if show && rules_refused(line) {
            println!("RFP {}", line);
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
    println!(
        "of those, blocked for a chat-template token or wrapper tag alone (by design): {by_design}; \
         the others: {} ({}/{})",
        pct(
            false_positives.len() - by_design,
            benign.len() - by_design
        ),
        false_positives.len() - by_design,
        benign.len() - by_design
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
    compare(&attacks, &benign);
    if flag("--no-cost") {
        return;
    }
    cost(&args, split, &benign);
    eprintln!("\nmissed attacks: {}", missed.join(" "));
    eprintln!("blocked lookalikes: {}", false_positives.join(" "));
}

/// Whether the rules alone (without the learned layer) refuse a line:
/// the text, or each part and the two side by side, as a batch is read.
fn rules_refused(line: &Value) -> bool {
    let rules = |t: &str| mnemo::scan::rules_verdict(t).blocked;
    match line.get("parts") {
        Some(Value::Array(parts)) => {
            let texts: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
            texts.iter().any(|t| rules(t))
                || texts
                    .windows(2)
                    .any(|w| rules(&mnemo::store::side_by_side(w[0], w[1])))
        }
        _ => rules(line["text"].as_str().unwrap_or("")),
    }
}

/// The rules alone against the scanner with its learned layer, by attack
/// category and evasion family, in the same run.
fn compare(attacks: &[Value], benign: &[Value]) {
    let mut rows: BTreeMap<(u8, String), (usize, usize, usize)> = BTreeMap::new();
    for (lines, attack) in [(attacks, true), (benign, false)] {
        for line in lines {
            let (full, rules) = (refused(line), rules_refused(line));
            let evasion = line["evasion"].as_str().unwrap_or("none");
            let mut keys = vec![if !attack {
                (0, "lookalikes (false positives)".to_string())
            } else if evasion == "none" {
                (0, "ordinary attacks".to_string())
            } else {
                (0, "evasions".to_string())
            }];
            if attack {
                keys.push((1, line["category"].as_str().unwrap_or("?").to_string()));
                keys.push((2, format!("evasion: {evasion}")));
            }
            for key in keys {
                let e = rows.entry(key).or_default();
                e.0 += usize::from(rules);
                e.1 += usize::from(full);
                e.2 += 1;
            }
        }
    }
    println!("\n| blocked | lines | rules alone | with the learned layer |\n|---|---:|---:|---:|");
    for ((_, key), (rules, full, total)) in &rows {
        println!(
            "| {key} | {total} | {} ({rules}) | {} ({full}) |",
            pct(*rules, *total),
            pct(*full, *total)
        );
    }
}

/// Realistic text against adversarial text of the same length.
fn cost(args: &[String], split: &str, benign: &[Value]) {
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
    let mut turns: Vec<String> = Vec::new();
    let realistic = match std::fs::read_to_string(&locomo) {
        Ok(text) => {
            let data: Value = serde_json::from_str(&text).unwrap();
            let mut out = String::new();
            for sample in data.as_array().unwrap() {
                for (key, list) in sample["conversation"].as_object().unwrap() {
                    if key.starts_with("session_") && !key.ends_with("date_time") {
                        for t in list.as_array().into_iter().flatten() {
                            out.push_str(t["text"].as_str().unwrap_or(""));
                            out.push('\n');
                            turns.push(format!(
                                "{}: {}",
                                t["speaker"].as_str().unwrap_or(""),
                                t["text"].as_str().unwrap_or("")
                            ));
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
    // The scanner, and the rules alone (without the learned layer), in
    // the same run.
    let full: fn(&str) -> mnemo::scan::Verdict = mnemo::scan::scan;
    let rules: fn(&str) -> mnemo::scan::Verdict = mnemo::scan::rules_verdict;
    let base = median_ns_per_kib(&realistic, full);
    let base_rules = median_ns_per_kib(&realistic, rules);
    println!(
        "\n| text (64 KiB) | µs per KiB | × realistic | rules alone: µs per KiB | × realistic |\n|---|---:|---:|---:|---:|"
    );
    println!(
        "| realistic (LoCoMo turns) | {:.1} | 1.0 | {:.1} | 1.0 |",
        base / 1000.0,
        base_rules / 1000.0
    );
    if !turns.is_empty() {
        // Each turn scanned alone, as session messages are: where the
        // learned layer reads most (a long text is often blocked whole).
        let kib = turns.iter().map(String::len).sum::<usize>() as f64 / 1024.0;
        let per_turn = |scan: fn(&str) -> mnemo::scan::Verdict| {
            let t = Instant::now();
            for turn in &turns {
                std::hint::black_box(scan(std::hint::black_box(turn)));
            }
            t.elapsed().as_nanos() as f64 / kib
        };
        // Alternated, the fastest of each: the least disturbed by other
        // work on the machine.
        let (mut a, mut b) = (f64::MAX, f64::MAX);
        for _ in 0..7 {
            a = a.min(per_turn(full));
            b = b.min(per_turn(rules));
        }
        println!(
            "| realistic, each LoCoMo turn alone ({} turns) | {:.1} | {:.2} | {:.1} | {:.2} |",
            turns.len(),
            a / 1000.0,
            a / base,
            b / 1000.0,
            b / base_rules
        );
    }
    println!(
        "(the 64 KiB realistic text is {}blocked by the rules)",
        if mnemo::scan::rules_verdict(&realistic).blocked {
            ""
        } else {
            "not "
        }
    );
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
        let cost = median_ns_per_kib(&text, full);
        let cost_rules = median_ns_per_kib(&text, rules);
        println!(
            "| {name} | {:.1} | {:.2} | {:.1} | {:.2} |",
            cost / 1000.0,
            cost / base,
            cost_rules / 1000.0,
            cost_rules / base_rules
        );
    }
}
