//! Invisible characters, found on the raw text.
//!
//! Every default-ignorable code point (Unicode's `Default_Ignorable_Code_Point`
//! property: zero-width characters, word joiner and invisible operators, bidi
//! controls, Hangul fillers, tag characters, variation selectors, the
//! unassigned ignorable ranges) renders as nothing, so text written in them is
//! read by a model and not by the user. They are blocked on sight, with these
//! exceptions, each a way real text uses them:
//!
//! - the soft hyphen (U+00AD), left by copy-paste from typeset text: folded
//!   away before matching, never blocked;
//! - a zero-width joiner between two emoji (👩‍💻);
//! - one variation selector after a visible character (❤️, a keycap, a CJK
//!   ideographic variant). A second selector in a row, or one after nothing,
//!   is not a presentation choice: runs of selectors encode bytes;
//! - a byte-order mark at the very start of the text. A file's leading BOM is
//!   the file reader's business; memory entries are trimmed, so a BOM that
//!   reaches the scanner at index 0 can only be the start of a whole file.
//!
//! Combining marks are not invisible: they render on their base letter, and
//! the skeleton folds them away before matching.
//!
//! This module must never fold or delete anything: it reports code points of
//! the text as received.

use super::{Category, Finding};

/// Characters that render as nothing and are deleted (joined over) before
/// matching: the soft hyphen and every default-ignorable code point except
/// the blank fillers, which [`is_blank`] reads as spaces.
#[inline]
pub(crate) fn is_format(c: char) -> bool {
    is_default_ignorable(c) && !is_blank(c)
}

/// Default-ignorable characters that a renderer shows as blank space (the
/// Hangul fillers): read as a space, not deleted.
#[inline]
pub(crate) fn is_blank(c: char) -> bool {
    matches!(c, '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}')
}

/// Unicode's `Default_Ignorable_Code_Point` (DerivedCoreProperties.txt).
#[inline]
pub(crate) fn is_default_ignorable(c: char) -> bool {
    // Read for every character of every text: most are below the first.
    c >= '\u{00AD}' && is_listed_ignorable(c)
}

/// The list itself (kept out of line: it is large, and rarely reached).
#[inline(never)]
fn is_listed_ignorable(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}'
        | '\u{FFA0}' | '\u{FFF0}'..='\u{FFF8}' | '\u{1BCA0}'..='\u{1BCA3}'
        | '\u{1D173}'..='\u{1D17A}' | '\u{E0000}'..='\u{E0FFF}')
}

fn is_variation_selector(c: char) -> bool {
    matches!(c, '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}' | '\u{180B}'..='\u{180D}' | '\u{180F}')
}

/// The id of an invisible character that is blocked wherever it stands, if
/// `c` is one (context decides for joiners, selectors and the BOM: see
/// [`scan_invisible`]).
pub(crate) fn invisible(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{00AD}' => return None,
        '\u{200B}' | '\u{200C}' | '\u{200D}' => "unicode.zero-width",
        '\u{2060}'..='\u{2064}' | '\u{180E}' => "unicode.invisible-operator",
        '\u{FEFF}' => "unicode.bom",
        '\u{202A}'..='\u{202E}'
        | '\u{2066}'..='\u{2069}'
        | '\u{200E}'
        | '\u{200F}'
        | '\u{061C}' => "unicode.bidi-control",
        '\u{E0000}'..='\u{E007F}' => "unicode.tag-character",
        c if is_variation_selector(c) => "unicode.variation-selector",
        c if is_default_ignorable(c) => "unicode.default-ignorable",
        // Format characters that are not default-ignorable but still render
        // as nothing in most places: interlinear annotation marks (their
        // annotation is shown, or not, at the renderer's whim) and the
        // Egyptian hieroglyph format controls.
        '\u{FFF9}'..='\u{FFFB}' => "unicode.annotation",
        '\u{13430}'..='\u{1343F}' => "unicode.default-ignorable",
        _ => return None,
    })
}

/// Pictographs that a zero-width joiner legitimately glues into one emoji.
fn is_emoji(c: char) -> bool {
    matches!(c,
        '\u{2600}'..='\u{27BF}' | '\u{2B00}'..='\u{2BFF}' | '\u{1F000}'..='\u{1FAFF}' | '\u{FE0F}')
}

fn is_ideograph(c: char) -> bool {
    matches!(c,
        '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{3134F}')
}

/// Whether a variation selector `c` after `prev` is one presentation choice
/// for a visible character.
fn selects(prev: Option<char>, c: char) -> bool {
    let Some(p) = prev else { return false };
    if p.is_whitespace() || is_default_ignorable(p) || p.is_control() {
        return false;
    }
    match c {
        '\u{FE00}'..='\u{FE0F}' => true,
        '\u{E0100}'..='\u{E01EF}' => is_ideograph(p),
        // Mongolian free variation selectors.
        _ => ('\u{1820}'..='\u{18AF}').contains(&p),
    }
}

/// Finds invisible characters in the raw text: one finding per id, at its
/// first occurrence.
pub(super) fn scan_invisible(text: &str, findings: &mut Vec<Finding>) {
    let mut seen: Vec<&'static str> = Vec::new();
    let mut prev: Option<char> = None;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let id = match invisible(c) {
            // A joiner inside an emoji sequence is how emoji are written.
            Some(_)
                if c == '\u{200D}' && prev.is_some_and(is_emoji) && next.is_some_and(is_emoji) =>
            {
                None
            }
            // One selector after a visible character picks its glyph.
            Some(_) if is_variation_selector(c) && selects(prev, c) => None,
            // A BOM is blocked wherever it stands: a file's leading BOM is
            // the reader's business (the store parser and `mnemo scan` drop
            // it before scanning), so one that reaches the scanner was put
            // in the text.
            other => other,
        };
        prev = Some(c);
        let Some(id) = id else { continue };
        if seen.contains(&id) {
            continue;
        }
        seen.push(id);
        findings.push(Finding {
            id,
            category: Category::InvisibleUnicode,
            start: i,
            end: i + c.len_utf8(),
            code_point: Some(format!("U+{:04X}", c as u32)),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(text: &str) -> Vec<&'static str> {
        let mut f = Vec::new();
        scan_invisible(text, &mut f);
        f.iter().map(|f| f.id).collect()
    }

    #[test]
    fn every_default_ignorable_but_the_soft_hyphen_is_blocked() {
        for c in [
            '\u{034F}',
            '\u{115F}',
            '\u{3164}',
            '\u{FFA0}',
            '\u{17B4}',
            '\u{2065}',
            '\u{206A}',
            '\u{FFF0}',
            '\u{1BCA0}',
            '\u{1D173}',
            '\u{E0080}',
            '\u{E01F0}',
            '\u{180E}',
        ] {
            assert!(!ids(&format!("a{c}b")).is_empty(), "U+{:04X}", c as u32);
        }
        assert!(ids("in\u{00AD}ter\u{00AD}op").is_empty());
    }

    #[test]
    fn interlinear_annotation_marks_are_blocked() {
        assert_eq!(
            ids("\u{FFF9}visible\u{FFFA}hidden gloss\u{FFFB} rest"),
            ["unicode.annotation"]
        );
        // The replacement character and the object placeholder are visible.
        assert!(ids("bad byte \u{FFFD} and \u{FFFC} image").is_empty());
    }

    #[test]
    fn one_selector_after_a_visible_character_is_presentation() {
        assert!(ids("❤\u{FE0F} and 1\u{FE0F}\u{20E3} and 葛\u{E0100}").is_empty());
        // Runs of selectors carry bytes.
        assert_eq!(ids("😀\u{FE0F}\u{FE0E}"), ["unicode.variation-selector"]);
        assert_eq!(
            ids("😀\u{E0101}\u{E0142}\u{E0130}"),
            ["unicode.variation-selector"]
        );
        assert_eq!(ids("text \u{FE0F}"), ["unicode.variation-selector"]);
    }
}
