//! The learned layer behind the rules: a logistic regression over hashed
//! features, its weights compiled in (`model.bin`, written by
//! `examples/scan_train.rs` from the development split and the project
//! corpus only; `cargo run --release --example scan_train -- --check`
//! verifies that the file is exactly what the trainer produces).
//!
//! It speaks only where the rules saw something and stopped short: a
//! near-miss (a rule matched but for its last step: an override verb
//! without its object, a secret file without a place to send it; not a
//! rule its own veto stopped, as "only if the tests passed" stops a false
//! report), and only when no rule blocked the text. Its features are read from the sentences around each
//! near-miss (the sentence and one on each side), never from the whole
//! text, so a long message with one suspicious word costs a few sentences
//! more, and a text made of near-misses costs one more pass over its words:
//! - the stems of the skeleton's words, pairs of neighbouring stems and
//!   pairs of stems one word apart ("send … to", «отправь … на»), and the
//!   stem that opens a sentence (where an order's verb stands);
//! - character 3-grams of each skeleton word, with its boundaries;
//!   function words ("you", "what", «что») are skipped: trained on notes,
//!   a model reads a chat's second person as an order;
//! - the word classes the rules saw there, and pairs of them in order;
//! - which rules came close (a rule's index: the model is retrained, and
//!   checked against the trainer, whenever the rules change);
//! - each stem and each word class paired with the first near-miss's
//!   category, so a word can weigh differently near a secret file than
//!   near an override verb.
//!
//! It must never overrule the rules: it adds a finding (`learned.score`,
//! the near-miss's category) to a text the rules let through, and nothing
//! else. Ordinary chat is in its training data (the turns of LoCoMo's
//! even-numbered conversations), and its threshold keeps what it adds on
//! the odd-numbered ones, which it never trains on, to one turn in 2,922;
//! so are half of the ordinary notes (`tests/fixtures/scan/notes/`), and
//! it blocks none of the other half.

use std::sync::OnceLock;

use rustc_hash::FxHashSet;

use super::lexicon::Lexicon;
use super::rules::{Hit, NearMiss};
use super::skeleton::Skeleton;
use super::Category;

/// Number of hashed feature buckets.
pub const BUCKETS: usize = 1 << 15;

/// The model file: `MNSM`, format version (2), bucket count (u32 LE),
/// then scale, bias and threshold (f32 LE), then one i8 weight per bucket
/// (a weight is its byte times the scale; the trainer uses 31 steps each
/// way, which lose nothing the threshold can see and compress well).
static MODEL: &[u8] = include_bytes!("model.bin");

const HEADER: usize = 24;

/// The model's parameters, read from its bytes.
pub struct Model<'a> {
    scale: f32,
    bias: f32,
    threshold: f32,
    weights: &'a [u8],
}

impl<'a> Model<'a> {
    /// Reads a model file; `None` if it is not one.
    pub fn parse(bytes: &'a [u8]) -> Option<Model<'a>> {
        let word = |i: usize| -> Option<[u8; 4]> { bytes.get(i..i + 4)?.try_into().ok() };
        if bytes.get(..4)? != b"MNSM" || u32::from_le_bytes(word(4)?) != 2 {
            return None;
        }
        if u32::from_le_bytes(word(8)?) as usize != BUCKETS || bytes.len() != HEADER + BUCKETS {
            return None;
        }
        Some(Model {
            scale: f32::from_le_bytes(word(12)?),
            bias: f32::from_le_bytes(word(16)?),
            threshold: f32::from_le_bytes(word(20)?),
            weights: &bytes[HEADER..],
        })
    }

    /// The compiled-in model.
    pub fn get() -> Model<'static> {
        Model::parse(MODEL).expect("model.bin is a model file")
    }

    /// The decision threshold on [`Model::score`].
    pub fn threshold(&self) -> f32 {
        self.threshold
    }

    /// The model's logit for a sorted, distinct set of features.
    pub fn score(&self, features: &[u32]) -> f32 {
        if features.is_empty() {
            return f32::NEG_INFINITY;
        }
        let sum: i64 = features
            .iter()
            .map(|&f| i64::from(self.weights[f as usize] as i8))
            .sum();
        self.bias + self.scale * sum as f32 * norm(features.len())
    }
}

/// The factor each feature's weight is multiplied by, for `n` features:
/// `1/√n`, so a long window does not add up to a high score by length.
pub fn norm(n: usize) -> f32 {
    1.0 / (n.max(NORM_FLOOR) as f32).sqrt()
}

/// Fewer features than this are scaled as this many: a short chat turn
/// with a verb and a pronoun is not confidently anything.
const NORM_FLOOR: usize = 50;

/// FNV-1a over a tag and the pieces, folded to a bucket.
fn bucket(tag: u8, pieces: &[&[u8]]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    let mut eat = |b: u8| {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    };
    eat(tag);
    for p in pieces {
        for &b in *p {
            eat(b);
        }
        eat(0xff);
    }
    (h ^ (h >> 16)) % BUCKETS as u32
}

/// The text the model reads: the category of the first near-miss and the
/// sorted, distinct features of the sentences around every near-miss.
pub struct Input {
    /// The category a finding would have.
    pub category: Category,
    /// Hashed features, sorted, without repeats.
    pub features: Vec<u32>,
    /// The raw range of the first near-miss's word.
    pub(super) range: (usize, usize),
}

/// Function words, read as nothing: who is addressed and how a sentence is
/// built say little about what it asks for, and a chat is full of them.
const STOP: &[&str] = &[
    "i", "me", "my", "mine", "you", "your", "yours", "we", "us", "our", "he", "him", "his", "she",
    "her", "it", "its", "they", "them", "their", "a", "an", "the", "and", "or", "but", "so", "to",
    "of", "in", "on", "at", "for", "with", "from", "by", "as", "what", "how", "why", "when",
    "where", "who", "which", "do", "does", "did", "have", "has", "had", "be", "is", "are", "was",
    "were", "been", "am", "that", "this", "these", "those", "there", "here", "about", "up", "just",
    "really", "too", "very", "any", "some", "if", "then", "than", "can", "could", "would", "will",
    "should", "s", "t", "m", "re", "ve", "ll", "d", "я", "ты", "вы", "мы", "он", "она", "оно",
    "они", "мне", "меня", "тебя", "тебе", "вас", "вам", "нас", "нам", "мой", "моя", "моё", "мое",
    "мои", "твой", "твоя", "твои", "ваш", "ваша", "ваши", "наш", "и", "а", "но", "или", "в", "во",
    "на", "с", "со", "к", "ко", "по", "за", "из", "от", "до", "у", "о", "об", "что", "как", "это",
    "этот", "эта", "то", "так", "же", "ли", "бы", "уже", "ещё", "еще", "вот", "там", "тут",
];

fn stop() -> &'static FxHashSet<&'static str> {
    static SET: OnceLock<FxHashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| STOP.iter().copied().collect())
}

/// Longest word whose character n-grams are read.
const MAX_GRAM_WORD: usize = 32;

/// The features of the windows around `near` (none: no input).
pub(super) fn input(sk: &Skeleton, hits: &[Hit], near: &[NearMiss]) -> Option<Input> {
    let first = near.first()?;
    let words = &sk.words;
    if words.is_empty() {
        return None;
    }
    // Sentences in a window, as merged ranges.
    let mut sents: Vec<(u32, u32)> = near
        .iter()
        .filter_map(|m| words.get(m.w0 as usize).or(words.last()))
        .map(|w| (w.sent.saturating_sub(1), w.sent + 1))
        .collect();
    sents.sort_unstable();
    let mut ranges: Vec<(u32, u32)> = Vec::with_capacity(sents.len());
    for (lo, hi) in sents {
        match ranges.last_mut() {
            Some(last) if lo <= last.1 + 1 => last.1 = last.1.max(hi),
            _ => ranges.push((lo, hi)),
        }
    }
    let inside = |s: u32| {
        let i = ranges.partition_point(|r| r.1 < s);
        ranges.get(i).is_some_and(|r| r.0 <= s)
    };
    let lx = Lexicon::get();
    // The near-miss's category: stems and word classes are also read paired
    // with it ("send" near a secret file is not "send" near an override).
    let cat = first.category.name().as_bytes();
    let mut out: Vec<u32> = Vec::new();
    let mut prev_stem: Option<std::rc::Rc<super::lexicon::Looked>> = None;
    let mut prev2_stem: Option<std::rc::Rc<super::lexicon::Looked>> = None;
    let mut gram: Vec<u8> = Vec::with_capacity(MAX_GRAM_WORD * 4 + 2);
    let mut at: Vec<usize> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if !inside(w.sent) {
            prev_stem = None;
            prev2_stem = None;
            continue;
        }
        let word = sk.word(i);
        let opens = i == 0 || words[i - 1].sent != w.sent;
        if stop().contains(word) {
            continue;
        }
        let looked = lx.stem_of(word);
        let stem = looked.stem.as_bytes();
        out.push(bucket(1, &[stem]));
        out.push(bucket(10, &[cat, stem]));
        if opens {
            out.push(bucket(8, &[stem]));
        }
        if let Some(p) = &prev_stem {
            out.push(bucket(2, &[p.stem.as_bytes(), stem]));
        }
        if let Some(p) = &prev2_stem {
            out.push(bucket(7, &[p.stem.as_bytes(), stem]));
        }
        prev2_stem = prev_stem.take();
        prev_stem = Some(looked);
        // Character 3-grams of `^word$`.
        gram.clear();
        gram.push(b'^');
        for c in word.chars().take(MAX_GRAM_WORD) {
            let mut b = [0; 4];
            gram.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
        }
        gram.push(b'$');
        at.clear();
        at.extend((0..gram.len()).filter(|&k| (gram[k] & 0xC0) != 0x80));
        at.push(gram.len());
        for k in 0..at.len().saturating_sub(3) {
            out.push(bucket(3, &[&gram[at[k]..at[k + 3]]]));
        }
    }
    let mut prev_class: Option<u32> = None;
    for h in hits {
        let Some(w) = words.get(h.w0 as usize) else {
            continue;
        };
        if !inside(w.sent) {
            prev_class = None;
            continue;
        }
        let f = (h.f as u32).to_le_bytes();
        out.push(bucket(4, &[&f]));
        out.push(bucket(11, &[cat, &f]));
        if let Some(p) = prev_class {
            out.push(bucket(5, &[&p.to_le_bytes(), &f]));
        }
        prev_class = Some(h.f as u32);
    }
    out.push(bucket(6, &[cat]));
    for m in near {
        out.push(bucket(9, &[&m.rule.to_le_bytes()]));
    }
    out.sort_unstable();
    out.dedup();
    let w = words.get(first.w0 as usize).or(words.last())?;
    Some(Input {
        range: (w.raw.0 as usize, w.raw.1 as usize),
        category: first.category,
        features: out,
    })
}
