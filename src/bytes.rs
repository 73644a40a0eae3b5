//! Byte comparisons for large buffers. `==` on byte slices is a call to
//! `memcmp`, which wasm32 gets byte by byte (about 1.5 ns a byte in V8),
//! and a write compares a few hundred KB: the stores and the sidecar read
//! back against what this memory last saw, and each stored chunk against
//! the one its hash names.

/// Whether `a` and `b` hold the same bytes, compared four 64-bit words at
/// a time.
pub fn same(a: &[u8], b: &[u8]) -> bool {
    // Natively `memcmp` is the platform's vectorised one.
    if cfg!(not(target_arch = "wasm32")) {
        return a == b;
    }
    words_same(a, b)
}

/// [`same`] a word at a time.
fn words_same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    // SAFETY: every bit pattern is a valid u64; `align_to` only
    // reinterprets the aligned middle of each slice.
    let ((pa, wa, sa), (pb, wb, sb)) = unsafe { (a.align_to::<u64>(), b.align_to::<u64>()) };
    if pa.len() != pb.len() {
        // Aligned differently: byte by byte.
        return bytewise(a, b);
    }
    if !bytewise(pa, pb) || !bytewise(sa, sb) {
        return false;
    }
    let mut i = 0;
    while i + 4 <= wa.len() {
        let diff = (wa[i] ^ wb[i])
            | (wa[i + 1] ^ wb[i + 1])
            | (wa[i + 2] ^ wb[i + 2])
            | (wa[i + 3] ^ wb[i + 3]);
        if diff != 0 {
            return false;
        }
        i += 4;
    }
    while i < wa.len() {
        if wa[i] != wb[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// [`same`] for optional buffers (`None` equals only `None`).
pub fn same_opt(a: Option<&[u8]>, b: Option<&[u8]>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => same(a, b),
        (None, None) => true,
        _ => false,
    }
}

/// `a == b` one byte at a time, without `memcmp` (for short ends).
fn bytewise(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_differing_byte_is_seen_at_any_alignment() {
        let a: Vec<u8> = (0..300u32).map(|i| (i * 7) as u8).collect();
        for start in 0..9 {
            for end in [start, start + 1, start + 40, 299, 300] {
                let (x, y) = (&a[start..end], a[start..end].to_vec());
                assert!(same(x, &y) && words_same(x, &y));
                for at in 0..x.len() {
                    let mut z = y.clone();
                    z[at] ^= 0x10;
                    assert!(!same(x, &z), "{start}..{end} at {at}");
                    assert!(!words_same(x, &z), "{start}..{end} at {at}");
                }
            }
        }
        // Slices aligned differently, and lengths that differ.
        let b = [0u8; 64];
        assert!(words_same(&b[1..33], &b[3..35]));
        assert!(!words_same(&b[..32], &b[..33]));
        assert!(same_opt(None, None) && !same_opt(Some(&b[..0]), None));
        assert!(same_opt(Some(&a[..5]), Some(&a[..5])));
    }
}
