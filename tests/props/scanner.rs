//! The scanner: never panics; a blocked verdict is stable under the
//! normalisations the scanner says it undoes (`src/scan/normalize.rs` for
//! the code view, `src/scan/skeleton.rs` for the language view); and,
//! measured by the fuzzer only, no input costs more than a few times a
//! benign input of its length.

use mnemo::scan::{scan, Category, Verdict, MAX_SCAN_BYTES};

/// A rewrite of a text that the scanner claims to read through.
#[derive(Clone, Copy, Debug)]
pub enum Rewrite {
    /// A zero-width space inside every word (both views delete it; the
    /// invisible-character rule blocks it on sight anyway).
    ZeroWidth,
    /// ASCII letters and punctuation as their fullwidth forms (NFKC in the
    /// code view, NFKD in the language view).
    Fullwidth,
    /// ASCII letters of words without CamelCase humps upper-cased (both
    /// views lower-case).
    Upper,
    /// Spaces as no-break or ideographic spaces (blank fillers read as
    /// spaces in both views).
    Blanks,
    /// An acute accent after every vowel (the language view drops marks).
    Marks,
    /// One Latin letter of each word of four or more letters swapped for
    /// its Cyrillic lookalike (a word is read in its majority script).
    Confusable,
    /// The letters of one word spaced out (`i g n o r e`).
    Spaced,
}

impl Rewrite {
    /// Every rewrite.
    pub const ALL: [Rewrite; 7] = [
        Rewrite::ZeroWidth,
        Rewrite::Fullwidth,
        Rewrite::Upper,
        Rewrite::Blanks,
        Rewrite::Marks,
        Rewrite::Confusable,
        Rewrite::Spaced,
    ];

    /// Whether the code view claims to undo it too (else only the language
    /// view, whose rules are the `pi.`, `ch.` … word rules).
    fn both_views(self) -> bool {
        matches!(
            self,
            Rewrite::ZeroWidth | Rewrite::Fullwidth | Rewrite::Upper | Rewrite::Blanks
        )
    }
}

/// Words of the text that a rewrite may touch: runs of ASCII letters of at
/// most 15 (encoded runs such as base64 are longer, mix in digits, and are
/// case-sensitive: no claim covers them).
fn words(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_alphabetic() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
                i += 1;
            }
            let glued = |j: usize| {
                bytes.get(j).is_some_and(|b| {
                    b.is_ascii_alphanumeric()
                        || *b >= 0x80
                        || matches!(b, b'_' | b'+' | b'/' | b'=' | b'-')
                })
            };
            let alone = (start == 0 || !glued(start - 1)) && !glued(i);
            if alone && i - start <= 15 {
                out.push((start, i));
            }
        } else {
            i += 1;
        }
    }
    out
}

fn cyrillic(c: char) -> Option<char> {
    Some(match c {
        'a' => 'а',
        'c' => 'с',
        'e' => 'е',
        'o' => 'о',
        'p' => 'р',
        'x' => 'х',
        'y' => 'у',
        _ => return None,
    })
}

/// `text` rewritten by `rewrite`; `pick` chooses the word `Spaced` spaces.
pub fn rewrite(text: &str, rewrite: Rewrite, pick: usize) -> String {
    let spans = words(text);
    let mut out = String::with_capacity(text.len() * 2);
    let mut last = 0;
    let spaced = if spans.is_empty() {
        usize::MAX
    } else {
        pick % spans.len()
    };
    for (n, &(s, e)) in spans.iter().enumerate() {
        out.push_str(&text[last..s]);
        let word = &text[s..e];
        match rewrite {
            Rewrite::ZeroWidth if word.len() >= 2 => {
                out.push_str(&word[..1]);
                out.push('\u{200B}');
                out.push_str(&word[1..]);
            }
            Rewrite::Fullwidth => out.extend(
                word.chars()
                    .map(|c| char::from_u32(c as u32 - 0x21 + 0xFF01).unwrap_or(c)),
            ),
            // Only words without a hump: upper case would hide the
            // CamelCase boundaries the skeleton splits at.
            Rewrite::Upper if !word[1..].bytes().any(|b| b.is_ascii_uppercase()) => {
                out.push_str(&word.to_ascii_uppercase())
            }
            Rewrite::Marks => {
                for c in word.chars() {
                    out.push(c);
                    if "aeiouAEIOU".contains(c) {
                        out.push('\u{0301}');
                    }
                }
            }
            Rewrite::Confusable if word.len() >= 4 => {
                let mut swapped = false;
                for c in word.chars() {
                    match cyrillic(c).filter(|_| !swapped) {
                        Some(l) => {
                            out.push(l);
                            swapped = true;
                        }
                        None => out.push(c),
                    }
                }
            }
            Rewrite::Spaced if n == spaced && word.len() >= 3 => {
                let letters: Vec<String> = word.chars().map(String::from).collect();
                out.push_str(&letters.join(" "));
            }
            _ => out.push_str(word),
        }
        last = e;
    }
    out.push_str(&text[last..]);
    if let Rewrite::Blanks = rewrite {
        let mut n = 0;
        out = out
            .chars()
            .map(|c| {
                if c != ' ' {
                    return c;
                }
                n += 1;
                if n % 2 == 0 {
                    '\u{3000}'
                } else {
                    '\u{00A0}'
                }
            })
            .collect();
    }
    out
}

/// Whether the text holds what the scanner decodes from raw bytes (hex,
/// percent-encoding, base64, escapes, character references, bits or
/// character codes): those readings make no claim about rewritten bytes.
fn encoded(text: &str) -> bool {
    let b = text.as_bytes();
    let hex = |c: u8| c.is_ascii_hexdigit();
    let b64 = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=' | b'-' | b'_');
    let mut run = 0;
    let mut numbers = 0;
    for (i, &c) in b.iter().enumerate() {
        run = if b64(c) { run + 1 } else { 0 };
        if run >= 16 {
            return true;
        }
        if matches!(c, b'%' | b'\\' | b'&')
            && b.get(i + 1)
                .is_some_and(|&n| hex(n) || matches!(n, b'x' | b'u' | b'#'))
        {
            return true;
        }
        // Runs of short numbers or hex pairs: character codes, hex bytes, bits.
        if c.is_ascii_hexdigit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) {
            let len = b[i..]
                .iter()
                .take_while(|&&d| d.is_ascii_hexdigit())
                .count();
            numbers = if (1..=8).contains(&len) && b[i..i + len].iter().any(u8::is_ascii_digit) {
                numbers + 1
            } else {
                0
            };
            if numbers >= 4 {
                return true;
            }
        }
    }
    false
}

/// Whether the verdict rests on a finding the rewrite's claim covers: a
/// word or code rule (not a secret's exact shape, not an invisible
/// character, not truncation); for the language-only rewrites, a rule of
/// the language view.
fn covered(v: &Verdict, how: Rewrite) -> bool {
    v.findings.iter().any(|f| {
        !matches!(f.category, Category::Secret | Category::InvisibleUnicode)
            && (how.both_views() || f.id.starts_with("pi."))
    })
}

/// The input is the text to scan; its first byte also picks the word the
/// spacing rewrite touches.
pub fn check(data: &[u8]) {
    let text = super::lossy(data);
    let verdict = scan(&text);
    assert_eq!(
        verdict.blocked,
        !verdict.findings.is_empty() || verdict.truncated
    );
    for f in &verdict.findings {
        assert!(
            f.start <= f.end && f.end <= text.len(),
            "{f:?} outside the text"
        );
        assert!(
            text.is_char_boundary(f.start) && text.is_char_boundary(f.end),
            "{f:?}"
        );
    }
    // Scanning is a function of the text.
    assert_eq!(scan(&text), verdict);
    if verdict.blocked && !verdict.truncated && text.len() <= MAX_SCAN_BYTES / 4 {
        let pick = data.first().copied().unwrap_or(0) as usize;
        let (encoded, cued) = (
            encoded(&text),
            mnemo::scan::asks_for_whole_text_reading(&text),
        );
        for how in Rewrite::ALL {
            if !covered(&verdict, how)
                || (encoded && !matches!(how, Rewrite::ZeroWidth))
                || (cued && matches!(how, Rewrite::Confusable))
            {
                continue;
            }
            let changed = rewrite(&text, how, pick);
            let again = scan(&changed);
            assert!(
                again.blocked,
                "blocked {text:?} ({:?}) passes once rewritten by {how:?}: {changed:?}",
                verdict.ids()
            );
        }
    }
    #[cfg(fuzzing)]
    cost(&text);
}

/// A benign text of `len` bytes: notes of the kind a memory holds.
pub fn benign(len: usize) -> String {
    const NOTES: &str = "The project builds with cargo and the tests run on stable Rust. \
        The user prefers short answers and works in Berlin. Deploys go out on Tuesdays after \
        review. Пользователь предпочитает краткие ответы. ";
    let mut out = String::with_capacity(len + NOTES.len());
    while out.len() < len {
        out.push_str(NOTES);
    }
    let mut end = len;
    while !out.is_char_boundary(end) {
        end -= 1;
    }
    out.truncate(end);
    out
}

/// Fails when the text costs more than [`MAX_RATIO`] times a benign text of
/// its length. Measured by the fuzz harness only, never by a test.
#[cfg(fuzzing)]
fn cost(text: &str) {
    use std::time::{Duration, Instant};
    const MIN_LEN: usize = 2_048;
    const MAX_RATIO: f64 = 8.0;
    if text.len() < MIN_LEN {
        return;
    }
    let time = |t: &str| -> Duration {
        (0..3)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(scan(std::hint::black_box(t)));
                start.elapsed()
            })
            .min()
            .unwrap_or_default()
    };
    let plain = benign(text.len());
    let (ours, theirs) = (time(text), time(&plain));
    let ratio = ours.as_secs_f64() / theirs.as_secs_f64().max(1e-6);
    assert!(
        ratio <= MAX_RATIO,
        "scanning {} bytes took {ours:?}, {ratio:.1}× the {theirs:?} of a benign text of that length",
        text.len()
    );
}
