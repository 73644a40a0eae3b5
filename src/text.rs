//! Text analysis: the words of a note or a query, as index terms.
//!
//! One analysis serves note search, session search and (where it fits) the
//! scanner, so a note and a query always meet on the same terms:
//!
//! - Words are maximal runs of letters and digits (an apostrophe between
//!   letters stays inside: `don't`). Each word is folded (lowercase, `ё` →
//!   `е`) and stemmed by its script: Cyrillic with the Russian Snowball
//!   stemmer, Latin with the English one ("портами" → "порт", "proxies" →
//!   "proxi" like "proxy"). Digits and other scripts are only folded.
//! - Identifiers keep their whole form as an extra term at the position of
//!   their first part: `10.0.1.50`, `1.22`, `~/code/api`, `snake_case`,
//!   `kebab-case`, `user@host`; their parts are terms too, so `api` finds
//!   `~/code/api`. A hyphenated word also yields its closed spelling
//!   (`de-stress` → `destress`).
//! - Text in scripts written without spaces (Han, Hiragana, Katakana,
//!   Hangul) becomes overlapping character bigrams, so it is searchable at
//!   all.
//! - Stop words (English and Russian) are marked, not dropped: they take a
//!   position, so phrase proximity still sees the gap, but ranking ignores
//!   them.
//!
//! Any input is accepted; there is no query syntax to get wrong.

use std::cell::RefCell;

use rust_stemmers::{Algorithm, Stemmer};
use rustc_hash::FxHashMap;

/// One term of analysed text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Term {
    /// The folded, stemmed term (or the whole identifier, or a bigram).
    pub text: String,
    /// Position in the text (words count from 0; an identifier shares its
    /// first part's position).
    pub pos: u32,
    /// Whether the term is a stop word of its language.
    pub stop: bool,
}

/// The script class of a word, which picks its analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Script {
    Latin,
    Cyrillic,
    /// Written without spaces: indexed as bigrams.
    Cjk,
    Digit,
    Other,
}

fn script(c: char) -> Script {
    match c {
        '0'..='9' => Script::Digit,
        'a'..='z' | 'A'..='Z' => Script::Latin,
        '\u{00C0}'..='\u{024F}' | '\u{1E00}'..='\u{1EFF}' => Script::Latin,
        '\u{0400}'..='\u{052F}' => Script::Cyrillic,
        '\u{1100}'..='\u{11FF}'
        | '\u{2E80}'..='\u{2FDF}'
        | '\u{3040}'..='\u{30FF}'
        | '\u{3100}'..='\u{31FF}'
        | '\u{3400}'..='\u{4DBF}'
        | '\u{4E00}'..='\u{9FFF}'
        | '\u{AC00}'..='\u{D7AF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{FF66}'..='\u{FF9F}'
        | '\u{20000}'..='\u{2FA1F}' => Script::Cjk,
        c if c.is_numeric() => Script::Digit,
        _ => Script::Other,
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

/// Characters that join the parts of an identifier (`10.0.1.50`,
/// `~/code/api`, `snake_case`, `kebab-case`, `user@host`).
fn is_joiner(c: char) -> bool {
    matches!(
        c,
        '.' | '_' | '-' | '/' | '\\' | ':' | '~' | '@' | '+' | '#'
    )
}

/// The analyser: stemmers are built once and reused.
pub struct Analyzer {
    english: Stemmer,
    russian: Stemmer,
    /// Stems already computed: words repeat (Zipf), and stemming is most of
    /// the cost of indexing. Cleared when it reaches [`STEM_CACHE`] words.
    cache: RefCell<FxHashMap<Box<str>, Box<str>>>,
}

/// Words whose stems the analyser remembers.
pub const STEM_CACHE: usize = 65_536;

impl Default for Analyzer {
    fn default() -> Self {
        Analyzer::new()
    }
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Analyzer")
    }
}

impl Analyzer {
    /// A new analyser.
    pub fn new() -> Analyzer {
        Analyzer {
            english: Stemmer::create(Algorithm::English),
            russian: Stemmer::create(Algorithm::Russian),
            cache: RefCell::default(),
        }
    }

    /// The terms of `text`, in order.
    pub fn terms(&self, text: &str) -> Vec<Term> {
        let mut out = Vec::new();
        self.analyze(text, |text, pos, stop| {
            out.push(Term {
                text: text.to_string(),
                pos,
                stop,
            })
        });
        out
    }

    /// Calls `emit(term, position, is_stop_word)` for every term of `text`.
    pub fn analyze(&self, text: &str, mut emit: impl FnMut(&str, u32, bool)) {
        let mut pos: u32 = 0;
        let mut word = String::new();
        let mut folded = String::new();
        for chunk in text.split(|c: char| c.is_whitespace()) {
            if chunk.is_empty() {
                continue;
            }
            let first_pos = pos;
            let mut parts = 0usize;
            // Words inside the chunk.
            let mut chars = chunk.char_indices().peekable();
            while let Some((_, c)) = chars.next() {
                if !is_word_char(c) {
                    continue;
                }
                word.clear();
                word.push(c);
                let mut class = script(c);
                while let Some(&(_, n)) = chars.peek() {
                    if is_word_char(n) {
                        let s = script(n);
                        // A change to or from a spaceless script ends a word.
                        if (s == Script::Cjk) != (class == Script::Cjk) {
                            break;
                        }
                        if class == Script::Digit && s != Script::Digit {
                            class = s;
                        }
                        word.push(n);
                        chars.next();
                    } else if (n == '\'' || n == '’') && class != Script::Cjk {
                        // An apostrophe between letters stays in the word.
                        let mut ahead = chars.clone();
                        ahead.next();
                        match ahead.peek() {
                            Some(&(_, m)) if m.is_alphabetic() && script(m) != Script::Cjk => {
                                word.push('\'');
                                chars.next();
                            }
                            _ => break,
                        }
                    } else {
                        break;
                    }
                }
                if class == Script::Cjk {
                    pos = self.bigrams(&word, pos, &mut emit);
                    parts += 2; // never an identifier
                    continue;
                }
                fold_into(&word, &mut folded);
                let stop = is_stop(&folded);
                self.with_stem(&folded, word_script(&word), |stem| emit(stem, pos, stop));
                pos += 1;
                parts += 1;
            }
            // The whole identifier, when the chunk is parts joined by joiners.
            if parts >= 2 {
                if let Some(ident) = identifier(chunk) {
                    fold_into(ident, &mut folded);
                    emit(&folded, first_pos, false);
                    // Hyphenated words also meet their closed spelling:
                    // "de-stress" finds "destress", "e-mail" finds "email".
                    if ident.contains('-') && ident.chars().all(|c| c == '-' || c.is_alphabetic()) {
                        let closed: String = folded.chars().filter(|&c| c != '-').collect();
                        self.with_stem(&closed, word_script(&closed), |stem| {
                            emit(stem, first_pos, false)
                        });
                    }
                }
            }
        }
    }

    /// Calls `f` with the stem of the folded word `folded`.
    fn with_stem(&self, folded: &str, script: Script, f: impl FnOnce(&str)) {
        let stemmer = match script {
            Script::Latin => &self.english,
            Script::Cyrillic => &self.russian,
            _ => return f(folded),
        };
        // The script follows from the word, so the word alone is the key.
        if let Some(stem) = self.cache.borrow().get(folded) {
            return f(stem);
        }
        let stem = stemmer.stem(folded);
        f(&stem);
        let mut cache = self.cache.borrow_mut();
        if cache.len() >= STEM_CACHE {
            cache.clear();
        }
        cache.insert(folded.into(), stem.as_ref().into());
    }

    fn bigrams(&self, run: &str, mut pos: u32, emit: &mut impl FnMut(&str, u32, bool)) -> u32 {
        let chars: Vec<char> = run.chars().flat_map(char::to_lowercase).collect();
        let mut buf = String::new();
        if chars.len() == 1 {
            buf.push(chars[0]);
            emit(&buf, pos, false);
            return pos + 1;
        }
        for pair in chars.windows(2) {
            buf.clear();
            buf.extend(pair);
            emit(&buf, pos, false);
            pos += 1;
        }
        pos
    }
}

/// The script that picks a word's stemmer: the first letter's.
fn word_script(word: &str) -> Script {
    word.chars()
        .map(script)
        .find(|s| *s != Script::Digit)
        .unwrap_or(Script::Digit)
}

/// Lowercase, `ё` → `е`, typographic apostrophe → `'`.
fn fold_into(word: &str, out: &mut String) {
    out.clear();
    if word.is_ascii() {
        out.push_str(word);
        out.make_ascii_lowercase();
        return;
    }
    for c in word.chars() {
        for l in c.to_lowercase() {
            out.push(match l {
                'ё' => 'е',
                '’' => '\'',
                other => other,
            });
        }
    }
}

/// `chunk` without surrounding punctuation, if what remains is word parts
/// joined only by joiner characters (and at least one joiner).
fn identifier(chunk: &str) -> Option<&str> {
    let trimmed = chunk
        .trim_start_matches(|c: char| !is_word_char(c) && !matches!(c, '~' | '/' | '.' | '\\'))
        .trim_end_matches(|c: char| !is_word_char(c) && c != '/');
    let mut joined = false;
    for c in trimmed.chars() {
        if is_joiner(c) {
            joined = true;
        } else if !is_word_char(c) {
            return None;
        }
    }
    (joined && trimmed.chars().any(is_word_char)).then_some(trimmed)
}

/// `bytes` as lowercase hex digits, two per byte (keys and hashes are
/// written this way on every commit, so not through `fmt`).
pub fn hex(bytes: &[u8]) -> String {
    let mut buf = vec![0u8; bytes.len() * 2];
    hex_into(bytes, &mut buf);
    String::from_utf8(buf).unwrap_or_default()
}

/// `bytes` as lowercase hex digits written into `out` (which must hold
/// twice as many bytes; the rest is left alone), without allocating.
pub fn hex_into<'a>(bytes: &[u8], out: &'a mut [u8]) -> &'a str {
    // Both digits of every byte, so each byte is one lookup.
    const PAIRS: [[u8; 2]; 256] = {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut pairs = [[0u8; 2]; 256];
        let mut b = 0;
        while b < 256 {
            pairs[b] = [DIGITS[b >> 4], DIGITS[b & 15]];
            b += 1;
        }
        pairs
    };
    let n = bytes.len().min(out.len() / 2);
    // Two stores, not a two-byte `copy_from_slice`: that is a `memcpy`
    // call per byte in the size-optimised wasm build. Pairs of `out`
    // zipped with `bytes`, so no store is bounds-checked.
    for (pair, b) in out[..2 * n].chunks_exact_mut(2).zip(&bytes[..n]) {
        let [hi, lo] = PAIRS[usize::from(*b)];
        pair[0] = hi;
        pair[1] = lo;
    }
    // Only ASCII digits were written.
    std::str::from_utf8(&out[..n * 2]).unwrap_or_default()
}

/// Whether a folded word is an English or Russian stop word.
pub fn is_stop(folded: &str) -> bool {
    static SET: std::sync::OnceLock<rustc_hash::FxHashSet<&'static str>> =
        std::sync::OnceLock::new();
    SET.get_or_init(|| STOP_WORDS.iter().copied().collect())
        .contains(folded)
}

/// English and Russian stop words (folded and sorted): the function words
/// of questions and notes that carry no topic.
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "aren't",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "can't",
    "cannot",
    "could",
    "couldn't",
    "did",
    "didn't",
    "do",
    "does",
    "doesn't",
    "doing",
    "don't",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "hadn't",
    "has",
    "hasn't",
    "have",
    "haven't",
    "having",
    "he",
    "he's",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "i'm",
    "i've",
    "if",
    "in",
    "into",
    "is",
    "isn't",
    "it",
    "it's",
    "its",
    "itself",
    "just",
    "let's",
    "me",
    "more",
    "most",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "ought",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "she",
    "she's",
    "should",
    "shouldn't",
    "so",
    "some",
    "such",
    "than",
    "that",
    "that's",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "there's",
    "these",
    "they",
    "they're",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "wasn't",
    "we",
    "we're",
    "were",
    "weren't",
    "what",
    "what's",
    "when",
    "where",
    "which",
    "while",
    "who",
    "who's",
    "whom",
    "why",
    "will",
    "with",
    "won't",
    "would",
    "wouldn't",
    "you",
    "you're",
    "your",
    "yours",
    "yourself",
    "yourselves",
    "а",
    "без",
    "бы",
    "был",
    "была",
    "были",
    "было",
    "быть",
    "в",
    "вам",
    "вас",
    "вот",
    "все",
    "всё",
    "вы",
    "где",
    "да",
    "даже",
    "для",
    "до",
    "его",
    "ее",
    "если",
    "есть",
    "еще",
    "же",
    "за",
    "здесь",
    "и",
    "из",
    "или",
    "им",
    "их",
    "к",
    "как",
    "какая",
    "какие",
    "какой",
    "когда",
    "кто",
    "ли",
    "либо",
    "мне",
    "мной",
    "мы",
    "на",
    "над",
    "нам",
    "нас",
    "не",
    "него",
    "нее",
    "нет",
    "ни",
    "них",
    "но",
    "ну",
    "о",
    "об",
    "он",
    "она",
    "они",
    "оно",
    "от",
    "по",
    "под",
    "при",
    "про",
    "с",
    "со",
    "так",
    "также",
    "там",
    "те",
    "тем",
    "то",
    "того",
    "тоже",
    "той",
    "только",
    "том",
    "ты",
    "у",
    "уже",
    "чего",
    "чем",
    "что",
    "чтобы",
    "эта",
    "эти",
    "это",
    "этот",
    "я",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        Analyzer::new()
            .terms(text)
            .into_iter()
            .filter(|t| !t.stop)
            .map(|t| t.text)
            .collect()
    }

    fn same_terms(a: &str, b: &str) {
        assert_eq!(words(a), words(b), "{a:?} vs {b:?}");
    }

    #[test]
    fn stop_words_are_sorted_and_unique() {
        let mut sorted = STOP_WORDS.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, STOP_WORDS);
    }

    #[test]
    fn english_and_russian_stemming_meet() {
        same_terms("proxies", "proxy");
        same_terms("running", "run");
        same_terms("runs", "run");
        same_terms("портами", "порт");
        same_terms("Ёлка", "елка");
        same_terms("серверов", "сервер");
    }

    #[test]
    fn identifiers_stay_whole_and_split() {
        let w = words("Staging 10.0.1.50 needs port 2222, see ~/code/api and snake_case or kebab-case. Go 1.22.");
        for t in [
            "10.0.1.50",
            "10",
            "50",
            "2222",
            "~/code/api",
            "code",
            "api",
            "snake_case",
            "snake",
            "case",
            "kebab-case",
            "kebab",
            "1.22",
            "go",
            "stage",
        ] {
            assert!(w.contains(&t.to_string()), "{t} missing from {w:?}");
        }
        assert!(!w.iter().any(|t| t.ends_with('.') || t.ends_with(',')));
    }

    #[test]
    fn hyphenated_words_meet_their_closed_spelling() {
        assert!(words("a way to de-stress").contains(&"destress".to_string()));
        assert!(words("send an e-mail").contains(&"email".to_string()));
    }

    #[test]
    fn stop_words_are_marked() {
        let terms = Analyzer::new().terms("What did we decide about the staging server?");
        let content: Vec<_> = terms
            .iter()
            .filter(|t| !t.stop)
            .map(|t| t.text.as_str())
            .collect();
        assert_eq!(content, ["decid", "stage", "server"]);
        let ru = words("Что мы решили про порт на сервере?");
        assert_eq!(ru, ["реш", "порт", "сервер"]);
    }

    #[test]
    fn spaceless_scripts_become_bigrams() {
        assert_eq!(words("東京タワー"), ["東京", "京タ", "タワ", "ワー"]);
        assert_eq!(words("猫"), ["猫"]);
        // Mixed with Latin, each side is analysed by its own rule.
        assert_eq!(words("API東京"), ["api", "東京"]);
    }

    #[test]
    fn hostile_input_is_just_text() {
        for q in [
            "",
            "???",
            "\"quoted\" OR (NOT x*) AND y:z",
            "a\u{0}b",
            "🚀🚀",
            "—",
            "'''",
            "NEAR(a b)",
            "\\",
            "[[link]]",
        ] {
            let _ = Analyzer::new().terms(q);
        }
        let long = "word ".repeat(100_000);
        assert_eq!(Analyzer::new().terms(&long).len(), 100_000);
        assert_eq!(words("\"quoted\" OR (NOT x*)"), ["quot", "x"]);
    }

    #[test]
    fn positions_count_words_and_identifiers_share_them() {
        let terms = Analyzer::new().terms("ssh to 10.0.1.50 now");
        let at: Vec<(String, u32)> = terms.into_iter().map(|t| (t.text, t.pos)).collect();
        assert!(at.contains(&("10.0.1.50".into(), 2)));
        assert!(at.contains(&("now".into(), 6)));
    }
}
