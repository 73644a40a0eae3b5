//! The development split (`tests/fixtures/scan/dev/`) as a regression
//! floor: the rules were tuned on it, so a change that loses ground there
//! fails here. Every line goes through a memory's tool as an agent's write
//! would (a split attack as a two-entry batch). The held-out split is only
//! measured (`cargo run --release --example scan_heldout`), never asserted,
//! so that nobody tunes on it.
#[path = "../examples/common/splits.rs"]
mod splits;
use splits::{lines, mandated, refused};

/// Raised as the rules improve; never lowered to let a change through.
const FLOOR: f64 = 0.89;

#[test]
fn the_development_split_holds_its_ground() {
    let attacks = lines("dev", "attacks.jsonl");
    let benign = lines("dev", "benign.jsonl");
    assert!(attacks.len() >= 1000 && benign.len() >= 900);
    let blocked = attacks.iter().filter(|l| refused(l)).count();
    // Lookalikes that quote a chat-template token or a wrapper tag are
    // blocked by design (issue 13: they block wherever they appear), so
    // they are counted apart from the 1% limit.
    let (by_design, judged): (Vec<&serde_json::Value>, Vec<&serde_json::Value>) =
        benign.iter().partition(|l| mandated(l));
    let false_positives: Vec<&str> = judged
        .iter()
        .filter(|l| refused(l))
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    assert!(
        by_design.len() * 100 <= benign.len(),
        "{} lookalikes blocked for a template token or wrapper tag alone",
        by_design.len()
    );
    let rate = blocked as f64 / attacks.len() as f64;
    assert!(
        rate >= FLOOR,
        "{blocked} of {} attacks blocked ({:.1}%), below the floor of {:.0}%",
        attacks.len(),
        100.0 * rate,
        100.0 * FLOOR
    );
    assert!(
        false_positives.len() * 100 <= judged.len(),
        "more than 1% of the lookalikes blocked: {false_positives:?}"
    );
}
