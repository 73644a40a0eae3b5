//! The development split (`tests/fixtures/scan/dev/`) as a regression
//! floor: the rules were tuned on it, so a change that loses ground there
//! fails here. The held-out split is only measured (`cargo run --release
//! --example scan_heldout`), never asserted, so that nobody tunes on it.
use mnemo::scan::scan;
use mnemo::store::side_by_side;
use serde_json::Value;

fn lines(kind: &str) -> Vec<Value> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/scan/dev");
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(kind))
        .collect();
    files.sort();
    for path in files {
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            if !line.trim().is_empty() {
                out.push(serde_json::from_str(line).unwrap());
            }
        }
    }
    out
}

/// Whether the attack is refused: its text, or either part, or the two
/// parts side by side as a store shows them.
fn refused(line: &Value) -> bool {
    match line.get("parts").and_then(Value::as_array) {
        Some(parts) => {
            let parts: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
            parts.iter().any(|p| scan(p).blocked) || scan(&side_by_side(parts[0], parts[1])).blocked
        }
        None => scan(line["text"].as_str().unwrap()).blocked,
    }
}

#[test]
fn the_development_split_holds_its_ground() {
    let attacks = lines("attacks.jsonl");
    let benign = lines("benign.jsonl");
    assert!(attacks.len() >= 1000 && benign.len() >= 900);
    let blocked = attacks.iter().filter(|l| refused(l)).count();
    let false_positives: Vec<&str> = benign
        .iter()
        .filter(|l| scan(l["text"].as_str().unwrap()).blocked)
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    let rate = blocked as f64 / attacks.len() as f64;
    assert!(
        rate >= FLOOR,
        "{blocked} of {} attacks blocked ({:.1}%), below the floor of {:.0}%",
        attacks.len(),
        100.0 * rate,
        100.0 * FLOOR
    );
    assert!(
        false_positives.len() * 100 <= benign.len(),
        "more than 1% of the lookalikes blocked: {false_positives:?}"
    );
}

/// Raised as the rules improve; never lowered to let a change through.
const FLOOR: f64 = 0.72;
