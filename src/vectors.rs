//! Vectors for hybrid recall: the host's embedder's answers checked,
//! stored, compared.
//!
//! The hybrid relevance is `w × semantic + (1 − w) × keyword`, with the
//! spec's bonuses when configured: `+0.15` when two or more words of the
//! query appear verbatim in the entry, `+0.10` when both parts exceed 0.5
//! (`memory.recall.hybrid`; the default is 0.4/0.6 without bonuses, what
//! LoCoMo measured best; the spec's mix is 0.6/0.4 with both). `semantic` is the cosine of
//! the query's and the entry's vectors (below 0 counts as 0); `keyword` is
//! the absolute keyword relevance of [`crate::meta`]. The importance boost
//! and the decay then apply as to a keyword score.

use crate::config::HybridConfig;

/// Bonus when two or more query words appear verbatim in the entry.
pub const VERBATIM_BONUS: f64 = 0.15;
/// Bonus when both parts exceed one half.
pub const AGREEMENT_BONUS: f64 = 0.10;
/// Texts sent to the embedder in one call.
pub const BATCH: usize = 64;

/// The cosine of two vectors (0 when either is all zeros).
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let (mut dot, mut na, mut nb) = (0f64, 0f64, 0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na.sqrt() * nb.sqrt())
    }
}

fn words(text: &str) -> std::collections::BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .collect()
}

/// Whether two or more words of `query` (of three letters or more) appear
/// as words of `entry`, case aside.
pub fn verbatim(query: &str, entry: &str) -> bool {
    let q = words(query);
    if q.len() < 2 {
        return false;
    }
    let e = words(entry);
    q.intersection(&e).nth(1).is_some()
}

/// The cosine from which an entry that shares no word with a query still
/// matches it in the hybrid search and context (meanings this close are
/// paraphrases with the common sentence-embedding models; unrelated texts
/// stay well below).
pub const SEMANTIC_FLOOR: f64 = 0.5;

/// The hybrid relevance of an entry from its two parts, mixed as `mix`
/// says (`verbatim`: two or more query words appear in the entry).
pub fn hybrid(mix: &HybridConfig, semantic: f64, keyword: f64, verbatim: bool) -> f64 {
    let semantic = semantic.clamp(0.0, 1.0);
    let w = f64::from(mix.semantic) / 100.0;
    let mut r = w * semantic + (1.0 - w) * keyword;
    if mix.bonuses && verbatim {
        r += VERBATIM_BONUS;
    }
    if mix.bonuses && semantic > 0.5 && keyword > 0.5 {
        r += AGREEMENT_BONUS;
    }
    r
}

/// A vector as stored: little-endian f32s.
pub fn encode(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A stored vector read back.
pub fn decode(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Checks an embedder's answer for `n` texts of `dimensions` numbers.
pub fn check(answer: &[Vec<f32>], n: usize, dimensions: usize) -> Result<(), String> {
    if answer.len() != n {
        return Err(format!(
            "the host's embedder answered {} vectors for {n} texts",
            answer.len()
        ));
    }
    for v in answer {
        if v.len() != dimensions {
            return Err(format!(
                "the host's embedder answered a vector of {} numbers; it declared {dimensions}",
                v.len()
            ));
        }
        if v.iter().any(|x| !x.is_finite()) {
            return Err("the host's embedder answered a vector holding NaN or infinity".into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hybrid_adds_up_as_the_spec_says() {
        let spec = HybridConfig {
            semantic: 60,
            keyword: 40,
            bonuses: true,
        };
        assert!((hybrid(&spec, 1.0, 0.0, false) - 0.6).abs() < 1e-12);
        assert!((hybrid(&spec, 0.0, 1.0, false) - 0.4).abs() < 1e-12);
        assert!((hybrid(&spec, 0.6, 0.6, true) - (0.36 + 0.24 + 0.15 + 0.10)).abs() < 1e-12);
        assert!((hybrid(&spec, -0.3, 0.2, false) - 0.08).abs() < 1e-12);
        let tuned = HybridConfig::default();
        assert!((hybrid(&tuned, 0.6, 0.6, true) - 0.6).abs() < 1e-12);
        assert!((hybrid(&tuned, 1.0, 0.0, true) - 0.4).abs() < 1e-12);
        assert!(verbatim(
            "rate limiting policy",
            "Rate limiting: 100 req/min"
        ));
        assert!(!verbatim("rate limiting", "rate of change"));
        assert!(!verbatim("a b", "a b"));
    }

    #[test]
    fn vectors_round_trip_and_compare() {
        let v = vec![0.5f32, -1.25, 3.0];
        assert_eq!(decode(&encode(&v)), v);
        assert!((cosine(&v, &v) - 1.0).abs() < 1e-9);
        assert_eq!(cosine(&v, &[0.0, 0.0, 0.0]), 0.0);
        assert!(check(std::slice::from_ref(&v), 1, 3).is_ok());
        assert!(check(std::slice::from_ref(&v), 2, 3).is_err());
        assert!(check(&[v], 1, 4).is_err());
        assert!(check(&[vec![f32::NAN, 0.0, 0.0]], 1, 3).is_err());
    }
}
