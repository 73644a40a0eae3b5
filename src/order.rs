//! Sorting through one compiled routine. Each `sort_by` with a comparator
//! closure of its own compiles a copy of the standard library's sort
//! (about 4.5 KB of wasm each; some forty copies were 6% of the wasm's
//! code). These sort a permutation of indices with the comparator behind
//! `dyn`, so the sort itself is compiled once, then move the elements
//! into place. They are stable, like `slice::sort_by`. Sorts whose length
//! grows with the input keep the standard ones: note and session search,
//! and the scanner's matches (a text of repeated cues has thousands).

use std::cmp::Ordering;

/// Sorts `v` stably by `cmp`.
pub(crate) fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let mut order: Vec<usize> = (0..v.len()).collect();
    sort_indices(&mut order, &mut |a, b| cmp(&v[a], &v[b]));
    permute(v, order);
}

/// Sorts `v` stably by `key`.
pub(crate) fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` stably.
pub(crate) fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// Sorts `v` stably by a key of two `u32`s, through one compiled sort of
/// (key, position) triples: for the scanner's matches, which a text of
/// repeated cues makes thousands (the comparator behind `dyn` of
/// [`sort_by`] would cost a third more there), and whose element types
/// would otherwise each compile a copy of the standard sort.
pub(crate) fn sort_by_pair<T>(v: &mut [T], key: impl Fn(&T) -> (u32, u32)) {
    if v.len() < 2 {
        return;
    }
    let mut keyed: Vec<(u32, u32, u32)> = v
        .iter()
        .zip(0u32..)
        .map(|(x, i)| {
            let (a, b) = key(x);
            (a, b, i)
        })
        .collect();
    sort_triples(&mut keyed);
    permute(v, keyed.into_iter().map(|(_, _, i)| i as usize).collect());
}

/// The one compiled sort of [`sort_by_pair`]: the position in each triple
/// makes it stable.
#[inline(never)]
fn sort_triples(v: &mut [(u32, u32, u32)]) {
    v.sort_unstable();
}

/// The one compiled sort.
#[inline(never)]
fn sort_indices(order: &mut [usize], cmp: &mut dyn FnMut(usize, usize) -> Ordering) {
    order.sort_by(|&a, &b| cmp(a, b));
}

/// Rearranges `v` so that element `i` is the one that was at `order[i]`,
/// following each cycle of the permutation once.
fn permute<T>(v: &mut [T], mut order: Vec<usize>) {
    const DONE: usize = usize::MAX;
    for start in 0..v.len() {
        let mut at = start;
        while order[at] != DONE {
            let from = order[at];
            order[at] = DONE;
            if from == start {
                break;
            }
            v.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_like_the_standard_stable_sort() {
        // A small generator, so the test needs no crate: every length up to
        // 40, keys with many ties, compared with `slice::sort_by_key`.
        let mut seed = 0x9e37_79b9_u32;
        for len in 0..40 {
            let v: Vec<(u8, usize)> = (0..len)
                .map(|i| {
                    seed ^= seed << 13;
                    seed ^= seed >> 17;
                    seed ^= seed << 5;
                    ((seed % 5) as u8, i)
                })
                .collect();
            let mut paired = v.clone();
            sort_by_pair(&mut paired, |p| (u32::from(p.0) % 2, u32::from(p.0)));
            let mut standard = v.clone();
            standard.sort_by_key(|p| (p.0 % 2, p.0));
            assert_eq!(paired, standard, "length {len}, by pair");
            let mut ours = v.clone();
            sort_by_key(&mut ours, |p| p.0);
            let mut theirs = v.clone();
            theirs.sort_by_key(|p| p.0);
            assert_eq!(ours, theirs, "length {len}");
            let mut reversed = v.clone();
            sort_by(&mut reversed, |a, b| b.cmp(a));
            let mut expected = v;
            expected.sort_by(|a, b| b.cmp(a));
            assert_eq!(reversed, expected);
        }
        let mut words = vec!["pear", "apple", "fig", "apple"];
        sort(&mut words);
        assert_eq!(words, ["apple", "apple", "fig", "pear"]);
    }
}
