//! The `SKILL.md` frontmatter reader: any text is a frontmatter and a body
//! or an `invalid-input` error naming the problem; what it reads renders
//! back to a frontmatter that reads the same.

use mnemo::skills::frontmatter::{parse, render};
use mnemo::ErrorKind;

/// The input is the `SKILL.md` text.
pub fn check(data: &[u8]) {
    let text = super::lossy(data);
    match parse(&text) {
        Ok((fm, body)) => {
            assert!(text.ends_with(body), "the body is the end of the text");
            let again = format!("{}{body}", render(&fm));
            let (back, back_body) = parse(&again)
                .unwrap_or_else(|e| panic!("rendered {again:?} does not parse: {}", e.message()));
            assert_eq!(back, fm, "render → parse of {text:?}");
            assert_eq!(back_body, body);
        }
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e:?}");
            assert!(!e.message().is_empty());
        }
    }
}
