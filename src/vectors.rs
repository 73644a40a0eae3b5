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

/// The cosine of two vectors (0 when either is all zeros). Summed in
/// eight `f32` lanes, which compilers turn into SIMD: hybrid recall takes
/// one cosine per entry, so this is its inner loop.
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    const LANES: usize = 8;
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let (mut dot, mut na, mut nb) = ([0f32; LANES], [0f32; LANES], [0f32; LANES]);
    let mut ca = a.chunks_exact(LANES);
    let mut cb = b.chunks_exact(LANES);
    for (x, y) in (&mut ca).zip(&mut cb) {
        for k in 0..LANES {
            dot[k] += x[k] * y[k];
            na[k] += x[k] * x[k];
            nb[k] += y[k] * y[k];
        }
    }
    let (mut d, mut x2, mut y2) = (0f64, 0f64, 0f64);
    for k in 0..LANES {
        d += f64::from(dot[k]);
        x2 += f64::from(na[k]);
        y2 += f64::from(nb[k]);
    }
    for (x, y) in ca.remainder().iter().zip(cb.remainder()) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        d += x * y;
        x2 += x * x;
        y2 += y * y;
    }
    if x2 == 0.0 || y2 == 0.0 {
        0.0
    } else {
        (d / (x2.sqrt() * y2.sqrt())).clamp(-1.0, 1.0)
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

    #[test]
    fn the_laned_cosine_agrees_with_the_plain_one() {
        // A cheap deterministic generator: no dependency for a test.
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            ((seed >> 33) as f32 / (1u64 << 31) as f32) - 0.5
        };
        for len in [1, 7, 8, 9, 384, 385, 1536] {
            let a: Vec<f32> = (0..len).map(|_| next()).collect();
            let b: Vec<f32> = (0..len).map(|_| next()).collect();
            let (mut d, mut x, mut y) = (0f64, 0f64, 0f64);
            for (p, q) in a.iter().zip(&b) {
                d += f64::from(*p) * f64::from(*q);
                x += f64::from(*p) * f64::from(*p);
                y += f64::from(*q) * f64::from(*q);
            }
            let plain = d / (x.sqrt() * y.sqrt());
            assert!((cosine(&a, &b) - plain).abs() < 1e-5, "{len}");
            assert!((cosine(&a, &a) - 1.0).abs() < 1e-5, "{len}");
        }
    }
}
