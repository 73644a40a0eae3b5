//! The text analysis and query path (`src/text.rs`, `src/search.rs`): the
//! input's lines are indexed as notes and its last line is the query;
//! results are well formed, and a note is found by its own text.

use mnemo::search::Index;
use mnemo::text::Analyzer;

/// The input: notes, one per line, then the query on the last line.
pub fn check(data: &[u8]) {
    let text = super::lossy(data);
    let mut lines: Vec<&str> = text.split('\n').take(48).collect();
    let query = lines.pop().unwrap_or("");
    let analyzer = Analyzer::new();
    for doc in lines.iter().chain([&query]) {
        let terms = analyzer.terms(doc);
        for t in &terms {
            assert!(!t.text.is_empty(), "an empty term from {doc:?}");
            assert!(!t.text.chars().any(char::is_whitespace), "{t:?}");
        }
        // Positions count words: an identifier shares its first part's.
        assert!(
            terms.iter().all(|t| (t.pos as usize) < terms.len()),
            "{terms:?}"
        );
    }
    let index = Index::build(&analyzer, &lines);
    assert_eq!(index.len(), lines.len());
    for limit in [1, 3, lines.len().max(1)] {
        let hits = index.search(&analyzer, query, limit);
        assert!(hits.len() <= limit);
        let mut docs: Vec<usize> = hits.iter().map(|h| h.doc).collect();
        assert!(docs.iter().all(|&d| d < lines.len()));
        docs.sort_unstable();
        docs.dedup();
        assert_eq!(docs.len(), hits.len(), "a note listed twice");
        assert!(
            hits.iter().all(|h| h.score.is_finite() && h.score > 0.0),
            "{hits:?}"
        );
        assert!(
            hits.windows(2).all(|w| w[0].score >= w[1].score),
            "not best first: {hits:?}"
        );
    }
    // A note is found by its own words (the first few, under the query cap).
    for (i, doc) in lines.iter().enumerate() {
        let words: Vec<&str> = doc.split_whitespace().take(8).collect();
        let own = words.join(" ");
        if analyzer.terms(&own).iter().any(|t| !t.stop) {
            let hits = index.search(&analyzer, &own, lines.len());
            assert!(
                hits.iter().any(|h| h.doc == i),
                "note {i} {doc:?} not found by {own:?}"
            );
        }
    }
}
