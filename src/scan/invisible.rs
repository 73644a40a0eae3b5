//! Invisible and bidirectional characters, found on the raw text.

use super::{Category, Finding};

/// Characters removed before matching: format characters that render as
/// nothing (soft hyphen, zero-width, bidi controls, tags, variation
/// selectors, fillers).
pub(crate) fn is_format(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}'
        | '\u{FFA0}' | '\u{FFF9}'..='\u{FFFB}' | '\u{1D173}'..='\u{1D17A}'
        | '\u{E0000}'..='\u{E007F}' | '\u{E0100}'..='\u{E01EF}')
}

/// The id of an invisible character that is blocked on sight, if `c` is one.
pub(crate) fn invisible(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{200B}' | '\u{200C}' | '\u{200D}' => "unicode.zero-width",
        '\u{2060}'..='\u{2064}' | '\u{180E}' => "unicode.invisible-operator",
        '\u{FEFF}' => "unicode.bom",
        '\u{202A}'..='\u{202E}'
        | '\u{2066}'..='\u{2069}'
        | '\u{200E}'
        | '\u{200F}'
        | '\u{061C}' => "unicode.bidi-control",
        '\u{E0000}'..='\u{E007F}' => "unicode.tag-character",
        _ => return None,
    })
}

/// Pictographs that a zero-width joiner legitimately glues into one emoji.
fn is_emoji(c: char) -> bool {
    matches!(c,
        '\u{2600}'..='\u{27BF}' | '\u{2B00}'..='\u{2BFF}' | '\u{1F000}'..='\u{1FAFF}' | '\u{FE0F}')
}

/// Finds invisible characters in the raw text.
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
            // A BOM at the very start is a file artefact, not hidden text.
            Some(_) if c == '\u{FEFF}' && i == 0 => None,
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
