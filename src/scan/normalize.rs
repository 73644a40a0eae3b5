//! The code view: the normalised copy of a text that code-like rules (shell
//! commands, paths, URLs, addresses, markup, chat-template tokens) run on,
//! with a map back to the raw text's byte offsets, and a fast test for
//! keywords.
//!
//! NFKC (fullwidth letters and ligatures become plain ones), lower case,
//! `ё` → `е`, characters that render as nothing deleted (a zero-width space
//! inside `cu\u{200B}rl` joins it back into `curl`), blank fillers read as
//! spaces, runs of whitespace collapsed to one space, or to one newline when
//! the run held a line break (`\n`, `\r`, U+2028, U+2029, U+0085, form feed,
//! vertical tab), a middle dot between letters read as a dot. Digits stay
//! digits: addresses and ports must survive. The
//! language rules run on the skeleton instead ([`super::skeleton`]).

use unicode_normalization::UnicodeNormalization;

use super::invisible::{is_blank, is_format};

/// Whether `c` ends a line for the scanner.
pub(super) fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// The normalised text and, for each of its bytes, the range of the raw
/// character it came from.
pub(super) struct Normalised {
    pub(super) text: String,
    pub(super) origin: Vec<(u32, u32)>,
}

impl Normalised {
    /// The byte range in the raw text of the normalised bytes `start..end`.
    pub(super) fn raw_range(&self, start: usize, end: usize) -> (usize, usize) {
        let from = self.origin.get(start).map_or(0, |r| r.0 as usize);
        let to = end
            .checked_sub(1)
            .and_then(|last| self.origin.get(last))
            .map_or(from, |r| r.1 as usize);
        (from, to)
    }
}

pub(super) fn normalise(raw: &str) -> Normalised {
    let mut text = String::with_capacity(raw.len());
    let mut origin = Vec::with_capacity(raw.len());
    let mut pending_space: Option<(char, u32, u32)> = None;
    let mut buf = [0u8; 4];
    for (i, c) in raw.char_indices() {
        let range = (i as u32, (i + c.len_utf8()) as u32);
        if is_format(c) {
            continue;
        }
        if c.is_whitespace() || is_blank(c) {
            let kind = if is_line_break(c) { '\n' } else { ' ' };
            pending_space = match pending_space {
                Some(('\n', s, _)) => Some(('\n', s, range.1)),
                Some((_, s, _)) => Some((kind, s, range.1)),
                None => Some((kind, range.0, range.1)),
            };
            continue;
        }
        if let Some((kind, s, e)) = pending_space.take() {
            if !text.is_empty() {
                text.push(kind);
                origin.push((s, e));
            }
        }
        // A middle dot between letters or digits (`keys·example·net`) is a
        // dot in code: no address or path holds one.
        if is_middle_dot(c)
            && text.chars().next_back().is_some_and(char::is_alphanumeric)
            && raw[range.1 as usize..]
                .chars()
                .next()
                .is_some_and(char::is_alphanumeric)
        {
            text.push('.');
            origin.push(range);
            continue;
        }
        // ASCII and basic Cyrillic are already NFKC; skip the decomposer.
        if c.is_ascii() || ('\u{0410}'..='\u{044F}').contains(&c) {
            let l = if c.is_ascii() {
                c.to_ascii_lowercase()
            } else {
                c.to_lowercase().next().unwrap_or(c)
            };
            text.push(l);
            for _ in 0..l.len_utf8() {
                origin.push(range);
            }
            continue;
        }
        for n in std::iter::once(c).nfkc() {
            for l in n.to_lowercase() {
                let l = if l == 'ё' { 'е' } else { l };
                if is_format(l) {
                    continue;
                }
                for _ in 0..l.encode_utf8(&mut buf).len() {
                    origin.push(range);
                }
                text.push(l);
            }
        }
    }
    Normalised { text, origin }
}

/// The dots written at mid-height: `·`, `•`, `∙`, `⋅`, `・`.
fn is_middle_dot(c: char) -> bool {
    matches!(
        c,
        '\u{00B7}' | '\u{2022}' | '\u{2219}' | '\u{22C5}' | '\u{30FB}'
    )
}

/// The byte pairs of a text, hashed into 4,096 bits: a keyword whose pairs
/// are not all present cannot occur, and most are ruled out without a
/// substring search.
pub(super) struct Pairs([u64; 64]);

impl Pairs {
    fn hash(a: u8, b: u8) -> usize {
        (usize::from(a).wrapping_mul(31) ^ usize::from(b).wrapping_mul(131)) & 4095
    }

    pub(super) fn of(text: &str) -> Pairs {
        let mut bits = [0u64; 64];
        for w in text.as_bytes().windows(2) {
            let h = Pairs::hash(w[0], w[1]);
            bits[h >> 6] |= 1 << (h & 63);
        }
        Pairs(bits)
    }

    fn may_hold(&self, needle: &str) -> bool {
        needle.as_bytes().windows(2).all(|w| {
            let h = Pairs::hash(w[0], w[1]);
            self.0[h >> 6] & (1 << (h & 63)) != 0
        })
    }
}

/// Whether `text` holds `needle`; `#ip` means digits, a dot and digits.
pub(super) fn has(text: &str, pairs: &Pairs, needle: &str) -> bool {
    if needle == "#ip" {
        let b = text.as_bytes();
        return b
            .windows(3)
            .any(|w| w[0].is_ascii_digit() && w[1] == b'.' && w[2].is_ascii_digit());
    }
    pairs.may_hold(needle) && text.contains(needle)
}
